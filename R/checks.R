# Argument checks. Each check_*() either returns the cleaned value (e.g. `k`
# as an integer, `rc` with its default filled in) or raises a
# `ducksassy_input_error` through ducksassy_abort() whose message names the
# argument, the index where there is one, and the offending value.
#
# Everything sassy would panic on is caught here or in the Rust validation
# before the search starts; the Rust side re-checks what it must (letters
# outside the alphabet), and reports through the same condition classes.

alphabets <- c("iupac", "dna", "ascii")

# Largest thread count accepted; more is almost certainly a mistake and a
# pool that size could exhaust the process's threads.
max_threads <- 1024L

# ---------------------------------------------------------------------------
# Inputs: texts and patterns

#' Coerce texts (or patterns) to what the engine reads
#'
#' The one place where inputs are coerced. Character vectors pass through.
#' Biostrings `XString`s become one string; `XStringSet`s become a
#' character vector with the set's names (U read as T for RNA), except that
#' with `keep_sets = TRUE` (the texts of a search) a non-empty set is returned
#' as it is: `run_search()` then converts and searches it in chunks, so the
#' whole set is never an R character vector at once (see bioc.R).
#' @noRd
as_texts <- function(x, arg = "texts", call = rlang::caller_env(),
                     keep_sets = FALSE) {
  if (is.character(x)) {
    return(x)
  }
  if (is_xstring(x) || is_xstringset(x)) {
    return(as_texts_bioc(x, keep_sets))
  }
  abort_not_character(x, arg, call)
}

abort_not_character <- function(x, arg, call) {
  what <- describe_type(x)
  ducksassy_abort(
    c(
      paste0(
        "`", arg, "` must be a character vector",
        if (arg %in% c("texts", "patterns", "guides")) " or a Biostrings XStringSet / XString",
        "."
      ),
      x = paste0("`", arg, "` is ", cli_escape(what), "."),
      bioc_hint(x, arg)
    ),
    arg = arg,
    value = what,
    call = call
  )
}

describe_type <- function(x) {
  if (is.null(x)) {
    "NULL"
  } else if (isS4(x)) {
    # name the class (an S4 "type" says nothing: a Views, a MaskedDNAString)
    cls <- class(x)
    paste0("an object of class ", cls[[1L]], if (!is.null(attr(cls, "package"))) {
      paste0(" (package ", attr(cls, "package"), ")")
    })
  } else if (is.factor(x)) {
    "a factor"
  } else if (is.data.frame(x)) {
    "a data frame"
  } else if (is.list(x)) {
    "a list"
  } else if (is.atomic(x)) {
    paste0(a_type(x), " vector")
  } else {
    paste0("an object of type ", typeof(x))
  }
}

#' What to pass instead of a Biostrings object that is not an XString(Set)
#'
#' Views, masked strings and lists of sets hold sequences, but what to
#' search in them is the caller's choice (the views' regions or the whole
#' subject, the masked letters or not, one set or all): say how to get the
#' set that is meant (issue 17).
#' @noRd
bioc_hint <- function(x, arg) {
  if (!isS4(x)) {
    return(NULL)
  }
  if (inherits(x, "XStringViews") || inherits(x, "Views")) {
    c(i = paste0(
      "To search the views' regions, pass `as(", arg, ", \"XStringSet\")` ",
      "(e.g. `as(x, \"DNAStringSet\")`); to search the whole sequence, ",
      "`subject(", arg, ")`."
    ))
  } else if (inherits(x, "MaskedXString")) {
    c(i = paste0(
      "Pass `Biostrings::unmasked(", arg, ")` to search every letter, or ",
      "`Biostrings::injectHardMask(", arg, ", letter = \"N\")` to search with the ",
      "masked letters replaced by N (they then match anything; use ",
      "`max_n_frac` to drop such hits)."
    ))
  } else if (inherits(x, "XStringSetList") || inherits(x, "List")) {
    c(i = paste0(
      "Pass `unlist(", arg, ")` to search every sequence of every element ",
      "as one set, or one element, e.g. `", arg, "[[1]]`."
    ))
  } else if (inherits(x, "QualityScaledXStringSet") || inherits(x, "XStringQuality")) {
    NULL
  } else {
    c(i = "Pass a character vector or a Biostrings `DNAStringSet` (e.g. `Biostrings::DNAStringSet(x)`).")
  }
}

check_texts <- function(texts, call = rlang::caller_env()) {
  as_texts(texts, arg = "texts", call = call, keep_sets = TRUE)
}

check_patterns <- function(patterns, call = rlang::caller_env()) {
  patterns <- as_texts(patterns, arg = "patterns", call = call)
  check_strings_present(patterns, "patterns", "pattern", call = call)
  check_pattern_names(patterns, call = call)
  patterns
}

#' Stop when a pattern is named as an unnamed one is called
#'
#' Unnamed patterns are called `pattern_<i>` (pattern_samples()): a given
#' name `pattern_<i>` while pattern `i` has no name would merge the two
#' in every verb that names patterns (count columns, assignments,
#' demultiplexed files), so it is an error, not a merge.
#' @noRd
check_pattern_names <- function(patterns, call = rlang::caller_env()) {
  nm <- names(patterns)
  if (is.null(nm)) {
    return(invisible(patterns))
  }
  blank <- is.na(nm) | nm == ""
  if (!any(blank) || all(blank)) {
    return(invisible(patterns))
  }
  bad <- which(!blank & nm %in% paste0("pattern_", which(blank)))
  if (length(bad) > 0L) {
    i <- bad[[1L]]
    ducksassy_abort(
      c(
        "A name of `patterns` must not be the name given to an unnamed pattern.",
        x = paste0(
          "Pattern ", i, " is named ", format_value(nm[[i]]), ", the name of unnamed pattern ",
          sub("pattern_", "", nm[[i]], fixed = TRUE), "."
        ),
        i = "Name every pattern, or none."
      ),
      class = c("ducksassy_name_clash_error", "ducksassy_input_error"),
      arg = "patterns", index = i, value = nm[[i]], call = call
    )
  }
  invisible(patterns)
}

#' Stop when a character vector argument is empty, or at its first `NA` or
#' empty string
#'
#' (The patterns and CRISPR guides: at least one, none missing or empty.)
#' @param noun What one element is, for the message ("pattern").
#' @return `x`, invisibly.
#' @noRd
check_strings_present <- function(x, arg, noun, call = rlang::caller_env()) {
  if (length(x) == 0L) {
    ducksassy_abort(
      c(
        paste0("`", arg, "` must contain at least one ", noun, "."),
        x = paste0("`", arg, "` has length 0.")
      ),
      arg = arg,
      value = x,
      call = call
    )
  }
  bad <- which(is.na(x))
  if (length(bad) > 0L) {
    abort_elements(paste0("`", arg, "` must not contain missing values."), arg, x, bad, call)
  }
  bad <- which(nchar(x, type = "bytes") == 0L)
  if (length(bad) > 0L) {
    abort_elements(paste0("`", arg, "` must not contain empty strings."), arg, x, bad, call)
  }
  invisible(x)
}

#' The error for the elements `bad` (indices) of the vector argument `x`
#'
#' The `headline`, then the first bad element (which is also the
#' condition's `index` and `value`), and how many more there are.
#' @noRd
abort_elements <- function(headline, arg, x, bad, call) {
  i <- bad[[1L]]
  ducksassy_abort(
    c(headline, locate_bullet(arg, i, x[[i]]), more_bullet(bad)),
    arg = arg,
    index = i,
    value = x[[i]],
    call = call
  )
}

more_bullet <- function(bad) {
  if (length(bad) > 1L) {
    c(i = paste0(
      "And ", length(bad) - 1L, " more (",
      paste(bad[seq_len(min(length(bad), 6L))[-1L]], collapse = ", "),
      if (length(bad) > 6L) ", ...", ")."
    ))
  }
}

# ---------------------------------------------------------------------------
# Scalars

# TRUE when `x` is one finite whole number (integer or double, not logical).
is_whole_scalar <- function(x) {
  (is.integer(x) || is.double(x)) && length(x) == 1L && !is.na(x) &&
    is.finite(x) && x == trunc(x)
}

abort_scalar <- function(arg, what, value, call, hint = NULL) {
  abort_value(arg, paste0("`", arg, "` must be ", what, "."), value, call, hint)
}

#' The error for a bad value of an argument: the `headline`, the value, and
#' an optional `hint` (an "i" bullet)
#' @noRd
abort_value <- function(arg, headline, value, call, hint = NULL) {
  ducksassy_abort(
    c(headline, locate_bullet(arg, NULL, value), if (!is.null(hint)) c(i = hint)),
    arg = arg,
    value = value,
    call = call
  )
}

# (k below every pattern's length is the core's rule: check_plan())
check_k <- function(k, call = rlang::caller_env()) {
  if (!is_whole_scalar(k) || k < 0) {
    abort_scalar("k", "a single whole number >= 0", k, call)
  }
  if (k > .Machine$integer.max) {
    # (no pattern is that long; and the binding takes an integer)
    abort_scalar("k", "a whole number less than the length of every pattern", k, call)
  }
  as.integer(k)
}

check_alphabet <- function(alphabet, call = rlang::caller_env()) {
  if (identical(alphabet, alphabets)) {
    return(alphabets[[1L]])
  }
  if (!is.character(alphabet) || length(alphabet) != 1L || is.na(alphabet) ||
    !(tolower(alphabet) %in% alphabets)) {
    ducksassy_abort(
      c(
        "`alphabet` must be one of \"iupac\", \"dna\" or \"ascii\".",
        locate_bullet("alphabet", NULL, alphabet)
      ),
      arg = "alphabet",
      value = alphabet,
      call = call
    )
  }
  tolower(alphabet)
}

check_flag <- function(x, arg, call = rlang::caller_env()) {
  if (!is.logical(x) || length(x) != 1L || is.na(x)) {
    abort_scalar(arg, "TRUE or FALSE", x, call)
  }
  x
}

# `NULL`: both strands where there is a reverse complement. (rc with
# "ascii" is refused by the core: check_plan())
check_rc <- function(rc, alphabet, call = rlang::caller_env()) {
  if (is.null(rc)) {
    return(alphabet != "ascii")
  }
  check_flag(rc, "rc", call = call)
}

# A NULL or a number in [0, 1]; NULL becomes NA_real_ for the binding.
check_fraction <- function(x, arg, call) {
  if (is.null(x)) {
    return(NA_real_)
  }
  if (!(is.integer(x) || is.double(x)) || length(x) != 1L || is.na(x) ||
    x < 0 || x > 1) {
    abort_scalar(arg, "NULL or a single number between 0 and 1", x, call)
  }
  as.double(x)
}

# (overhang only with "iupac", max_n_frac not with "ascii": the core's
# rules, check_plan())
check_overhang <- function(overhang, call = rlang::caller_env()) {
  check_fraction(overhang, "overhang", call)
}

check_max_n_frac <- function(max_n_frac, call = rlang::caller_env()) {
  check_fraction(max_n_frac, "max_n_frac", call)
}

check_threads <- function(threads, call = rlang::caller_env(),
                          arg = "threads") {
  if (!is_whole_scalar(threads) || threads < 1 || threads > max_threads) {
    abort_scalar(
      arg,
      paste0("a single whole number between 1 and ", max_threads),
      threads,
      call
    )
  }
  as.integer(threads)
}

#' The hit limit: `getOption("ducksassy.max_hits")`, a whole number >= 0,
#' default `default_max_hits()`. Returned as a double for the binding.
#' @noRd
max_hits_option <- function(call = rlang::caller_env()) {
  x <- getOption("ducksassy.max_hits", default_max_hits())
  if (!is_whole_scalar(x) || x < 0 || x > .Machine$integer.max) {
    abort_scalar(
      "getOption(\"ducksassy.max_hits\")",
      "a single whole number between 0 and .Machine$integer.max",
      x,
      call
    )
  }
  as.double(x)
}

#' Default hit limit: the most rows a data frame can have
#' (`.Machine$integer.max`), but no more hits than this machine's memory can
#' hold: one per 256 bytes of RAM. A search holds about 50 to 140 bytes per
#' hit at its peak (the Rust buffers, their merge, then the R columns), so
#' the limit stops a runaway search with an error well before the system
#' runs out of memory and kills R. Deterministic per machine (total, not
#' free, memory); `.Machine$integer.max` where the RAM size is unknown.
#' @noRd
default_max_hits <- function() {
  if (is.null(the$default_max_hits)) {
    ram <- physical_memory_bytes()
    the$default_max_hits <- if (is.na(ram)) {
      .Machine$integer.max
    } else {
      min(.Machine$integer.max, floor(ram / 256))
    }
  }
  the$default_max_hits
}

#' Stop before a count/contains matrix that cannot fit in memory
#'
#' The result of `sassy_count()` / `sassy_contains()` has one cell per text
#' and pattern; the native code and R hold about 12 bytes per cell at the
#' peak. More than this machine's RAM is a `ducksassy_limit_error` instead of
#' a failed allocation that would end the R session.
#' @noRd
check_result_size <- function(n_texts, n_patterns, call = rlang::caller_env()) {
  cells <- as.double(n_texts) * as.double(n_patterns)
  ram <- physical_memory_bytes()
  limit <- if (is.na(ram)) 2^52 else ram / 12
  if (cells > limit) {
    gb <- format(cells * 12 / 2^30, digits = 3)
    ducksassy_abort(
      c(
        paste0(
          "The result would have ", format(cells, big.mark = ",", scientific = FALSE),
          " cells (", format(n_texts, big.mark = ","), " texts x ",
          format(n_patterns, big.mark = ","), " patterns, about ", gb,
          " GB), more than this machine's memory holds."
        ),
        i = "Count fewer texts or patterns per call and combine the parts.",
        i = paste0(
          "With few hits, `sassy_count(texts, patterns, sparse = TRUE)` ",
          "holds only the cells with hits (a Matrix::dgCMatrix)."
        ),
        i = paste0(
          "Or stream the counts into a database table: ",
          "`sassy_count_table(con, table, patterns, output = \"counts\")`."
        )
      ),
      class = "ducksassy_limit_error",
      value = cells,
      call = call
    )
  }
  invisible(cells)
}

# Package-level cache.
the <- new.env(parent = emptyenv())

# Total physical memory in bytes (Linux: /proc/meminfo), or NA.
physical_memory_bytes <- function() {
  x <- tryCatch(
    suppressWarnings(readLines("/proc/meminfo", n = 1L)),
    error = function(e) character()
  )
  kb <- suppressWarnings(as.numeric(sub("^MemTotal:\\s*([0-9]+)\\s*kB.*$", "\\1", x)))
  if (length(kb) == 1L && !is.na(kb) && kb > 0) kb * 1024 else NA_real_
}

# ---------------------------------------------------------------------------
# All search arguments at once

#' `ends`: `NULL` (whole records), or one or two whole numbers >= 0, the
#' letters searched at the start and at the end of each record (one number:
#' both). Returns `NULL` or an integer vector of two.
#' @noRd
check_ends <- function(ends, call = rlang::caller_env()) {
  if (is.null(ends)) {
    return(NULL)
  }
  ok <- (is.integer(ends) || is.double(ends)) && length(ends) %in% 1:2 &&
    !anyNA(ends) && all(is.finite(ends)) && all(ends == trunc(ends)) &&
    all(ends >= 0) && all(ends <= .Machine$integer.max)
  if (!ok) {
    abort_value("ends",
      "`ends` must be `NULL`, or one or two whole numbers >= 0 (the letters searched at the start and at the end of each record).",
      ends, call
    )
  }
  if (sum(ends) == 0) {
    abort_value("ends", "`ends` must search some letters: at least one end above 0.", ends, call)
  }
  rep_len(as.integer(ends), 2L)
}

#' Warn when an end searched with `ends` is shorter than a pattern
#'
#' Such a pattern fits the end only with edits (deletions of its
#' overhanging letters), so its hits there are missed or cost more than
#' they would in the whole record: almost always a mistake.
#' @noRd
warn_short_ends <- function(ends, patterns, call = rlang::caller_env()) {
  # (an internal option: tests that search short ends on purpose)
  if (is.null(ends) || isFALSE(getOption("ducksassy.warn_short_ends"))) {
    return(invisible())
  }
  longest <- max(nchar(patterns, type = "bytes"))
  shortest <- min(ends[ends > 0L])
  if (shortest < longest) {
    cli::cli_warn(
      c(
        "An end searched with `ends` is shorter than the longest pattern.",
        i = paste0(
          "`ends` searches ", shortest, " letters, and a pattern has ", longest,
          ": it fits there only with edits, so its hits near the ends are missed or cost more."
        ),
        i = "Search ends of at least the pattern length plus the letters before it (adapters, flanks)."
      ),
      class = c("ducksassy_ends_warning", "ducksassy_warning"),
      call = call
    )
  }
  invisible()
}

#' `margin`: one whole number >= 0 (sassy_assign())
#' @noRd
check_margin <- function(margin, call = rlang::caller_env()) {
  if (!is_whole_scalar(margin) || margin < 0 || margin > .Machine$integer.max) {
    abort_scalar("margin", "a single whole number >= 0", margin, call)
  }
  as.integer(margin)
}

#' The options of every search, CRISPR's too, checked: CIGARs, threads and
#' indels
#' @noRd
check_run_options <- function(cigar, threads, indels, call) {
  list(
    cigar = check_flag(cigar, "cigar", call = call),
    threads = check_threads(threads, call = call),
    indels = check_flag(indels, "indels", call = call)
  )
}

#' Check every search argument and return the values the binding takes
#' @noRd
new_search_plan <- function(texts, patterns, k, alphabet, rc, all_endpoints,
                            overhang, max_n_frac, ignore_case, cigar, threads,
                            indels = TRUE, call = rlang::caller_env(),
                            check = TRUE, ends = NULL) {
  texts <- check_texts(texts, call = call)
  patterns <- check_patterns(patterns, call = call)
  alphabet <- check_alphabet(alphabet, call = call)
  k <- check_k(k, call = call)
  rc <- check_rc(rc, alphabet, call = call)
  all_endpoints <- check_flag(all_endpoints, "all_endpoints", call = call)
  overhang <- check_overhang(overhang, call = call)
  max_n_frac <- check_max_n_frac(max_n_frac, call = call)
  # dna and iupac are always case-insensitive; the flag matters for ascii only.
  ignore_case <- check_flag(ignore_case, "ignore_case", call = call)
  ends <- check_ends(ends, call = call)
  warn_short_ends(ends, patterns, call = call)
  # the checked values, by name (NULL ones kept)
  args <- c(
    mget(c(
      "texts", "patterns", "k", "alphabet", "ignore_case", "rc",
      "all_endpoints", "overhang", "max_n_frac", "ends"
    )),
    check_run_options(cigar, threads, indels, call)
  )
  # the domain rules (k below every pattern's length, rc and max_n_frac
  # not with "ascii", overhang only with "iupac" and indels, the letters of
  # the patterns) are the core's: checked here before a file or table is
  # opened; `check = FALSE` (a vector search, which reads nothing first)
  # leaves them to the search call itself, saving a call to the core
  if (check) {
    check_plan(as_plan(args), call = call)
  }
  args
}

#' The plan of a file or table verb: the search arguments checked as for
#' sassy_search(); the count verbs search without CIGARs or regions
#' @param mode "hits", "count" or "contains".
#' @param args The verb's search arguments (search_args_of(), arguments.R).
#' @noRd
new_verb_plan <- function(mode, patterns, k, args, call) {
  hits <- mode == "hits"
  plan <- new_search_plan(
    character(), patterns, k, args$alphabet, args$rc, args$all_endpoints,
    args$overhang, args$max_n_frac, args$ignore_case,
    if (hits) args$cigar else FALSE, args$threads,
    indels = args$indels, call = call, ends = args$ends
  )
  if (hits) {
    plan$cigar_style <- check_cigar_style(args$cigar_style, call = call)
    plan$region <- check_flag(args$region, "region", call = call)
  } else {
    plan$cigar_style <- cigar_styles[[1L]]
    plan$region <- FALSE
  }
  plan
}
