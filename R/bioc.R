# Biostrings inputs: XString / XStringSet texts and patterns.
#
# Every search function takes `DNAStringSet`, `RNAStringSet`, `BStringSet`
# (and any other `XStringSet`, e.g. `AAStringSet` for `alphabet = "ascii"`)
# and single `XString`s (`DNAString`, ...) wherever it takes a character
# vector, with the set's names as `name`. `as_texts()` (checks.R) is where
# they are recognised; this file holds the Biostrings-specific parts.
#
# How a set reaches the engine. The engine reads the bytes of R strings in
# place, so a set must become character strings at some point; converting a
# whole genome-sized or read-sized set at once would double its memory (an R
# string costs its letters plus ~56 bytes of header, and goes through R's
# global string cache). Instead a *text* set is kept as it is in the plan and
# converted in chunks -- at most `xset_chunk_records` records and about
# `xset_chunk_letters` letters at a time (one record longer than that is
# converted on its own) -- and each chunk is searched with its record
# numbers offset, then the results are put together. Rows come out in the
# same order and with the same values as for the whole set converted at
# once, on any number of threads. Patterns and guides are converted whole:
# the engine needs all of them at once and they are short.
#
# RNA sets are read with U as T (`"iupac"` does that anyway; with `"dna"` it
# makes RNA searchable). Biostrings is only needed when such an object is
# passed, and then it is already loaded.

# Chunk sizes for text sets; options for tests and unusual machines.
xset_chunk_records <- function() {
  getOption("ducksassy.xstringset_chunk_records", 10000L)
}
xset_chunk_letters <- function() {
  getOption("ducksassy.xstringset_chunk_letters", 2^26)
}

is_xstringset <- function(x) {
  isS4(x) && inherits(x, "XStringSet")
}

is_xstring <- function(x) {
  isS4(x) && inherits(x, "XString")
}

is_rna <- function(x) {
  inherits(x, "RNAStringSet") || inherits(x, "RNAString")
}

#' Characters from (part of) an XString or XStringSet, U read as T for RNA
#' @noRd
xstring_chars <- function(x, use_names = TRUE) {
  check_biostrings()
  out <- if (is_xstring(x)) as.character(x) else as.character(x, use.names = use_names)
  if (is_rna(x)) {
    nm <- names(out)
    out <- chartr("U", "T", out)
    names(out) <- nm
  }
  out
}

#' Coerce a Biostrings object for `as_texts()`
#'
#' `keep_sets = TRUE` (texts of a search): an `XStringSet` is returned as it
#' is, to be converted chunk by chunk by `run_search_chunked()`; a single
#' `XString` becomes one string. Otherwise (patterns, guides) everything
#' becomes a character vector with the set's names.
#' @noRd
as_texts_bioc <- function(x, keep_sets) {
  if (is_xstring(x)) {
    return(xstring_chars(x))
  }
  if (keep_sets && length(x) > 0L) {
    return(x)
  }
  xstring_chars(x)
}

check_biostrings <- function(call = rlang::caller_env()) {
  check_suggested("Biostrings", "to read Biostrings sequences", call = call)
}

#' Fail with a classed error when a suggested package is missing
#' @noRd
check_suggested <- function(pkg, why, call = rlang::caller_env()) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    ducksassy_abort(
      c(
        paste0("The package {.pkg ", pkg, "} is needed ", why, "."),
        i = if (pkg %in% c("Biostrings", "IRanges", "GenomicRanges")) {
          paste0(
            "Install it with `BiocManager::install(\"", pkg, "\")` ",
            "(or, on Debian/Ubuntu, `apt install r-bioc-", tolower(pkg), "`)."
          )
        } else {
          paste0("Install it with `install.packages(\"", pkg, "\")`.")
        }
      ),
      class = "ducksassy_dependency_error",
      value = pkg,
      call = call
    )
  }
  invisible(TRUE)
}

#' Record ranges of the chunks of a text set
#'
#' @return A list of integer vectors `c(from, to)` covering `seq_along(x)`.
#' @noRd
xset_chunks <- function(x) {
  n <- length(x)
  if (n == 0L) {
    return(list())
  }
  max_records <- max(1L, as.integer(xset_chunk_records()))
  max_letters <- max(1, as.double(xset_chunk_letters()))
  widths <- as.double(Biostrings::width(x))
  out <- list()
  from <- 1L
  while (from <= n) {
    last <- min(n, from + max_records - 1L)
    # the longest run from `from` within the letter budget, at least one record
    cum <- cumsum(widths[from:last])
    fits <- sum(cum <= max_letters)
    to <- from + max(1L, fits) - 1L
    out[[length(out) + 1L]] <- c(from, to)
    from <- to + 1L
  }
  out
}

#' Search a text set chunk by chunk and put the results together
#'
#' `run_one(p, offset)` runs the search for a plan whose `texts` is a
#' character vector (one chunk) and returns what the binding returns: hit
#' columns (`mode = "hits"`) or a `records x patterns` value vector. Record
#' numbers are offset here; values are stacked record-wise.
#' @noRd
run_search_chunked <- function(plan, mode, run_one, n_patterns,
                               call = rlang::caller_env()) {
  set <- plan$texts
  chunks <- xset_chunks(set)
  limit <- max_hits_option(call = call)
  parts <- vector("list", length(chunks))
  total <- 0
  for (i in seq_along(chunks)) {
    from <- chunks[[i]][[1L]]
    to <- chunks[[i]][[2L]]
    p <- plan
    p$texts <- xstring_chars(set[from:to], use_names = FALSE)
    res <- run_one(p, from - 1L)
    p$texts <- NULL
    if (mode == "assign") {
      # one row per record, no record numbers
    } else if (mode == "hits") {
      res$record <- res$record + (from - 1L)
      total <- total + length(res$record)
      if (total > limit) {
        abort_too_many_hits(limit, "vector", call)
      }
    } else {
      res <- matrix(res, nrow = to - from + 1L, ncol = n_patterns)
    }
    parts[[i]] <- res
  }
  if (mode %in% c("hits", "assign")) {
    bind_hit_columns(parts)
  } else if (length(parts) == 0L) {
    if (mode == "count") integer() else logical()
  } else {
    as.vector(do.call(rbind, parts))
  }
}

# Concatenate lists of equal-named hit columns.
bind_hit_columns <- function(parts) {
  if (length(parts) == 1L) {
    return(parts[[1L]])
  }
  cols <- names(parts[[1L]])
  out <- lapply(cols, function(col) unlist(lapply(parts, `[[`, col), use.names = FALSE))
  names(out) <- cols
  out
}

# An XStringSet searched in chunks (run_search_chunked()) under one progress
# bar over all chunks: `search(plan, offset, progress)` runs one chunk.
run_xstringset <- function(plan, mode, n_patterns, search, call) {
  widths <- as.double(Biostrings::width(plan$texts))
  progress <- new_progress(search_label(plan$texts), "bytes", sum(widths))
  on.exit(progress_done(progress), add = TRUE)
  done_before <- cumsum(widths)
  one <- function(p, offset) {
    if (!is.null(progress)) {
      progress$base <- if (offset == 0L) 0 else done_before[[offset]]
    }
    search(p, offset, progress)
  }
  run_search_chunked(plan, mode, one, n_patterns, call = call)
}
