# sassy_search_fastx() and friends: result tables built from what the
# binding returns, and its errors re-raised in file terms.

# ---------------------------------------------------------------------------
# Results

new_fastx_hits <- function(res, paths, call, pattern_names = NULL, plan = NULL) {
  hits <- new_hits(res$hits, call = call, pattern_names = pattern_names)
  n <- nrow(hits)
  if (length(res$file) != n || length(res$name) != n) {
    abort_internal("the file hit table has columns of unequal length", call)
  }
  out <- list()
  if (has_file_column(paths)) {
    out$file <- file_labels(paths)[res$file]
  }
  out$record <- hits$record
  out$name <- res$name
  out <- new_data_frame(with_hit_columns(out, hits), n)
  if (!is.null(plan)) {
    patterns <- if (!is.null(plan$guides)) plan$guides else plan$patterns
    out <- finish_hits(out, nchar(patterns, type = "bytes"),
      if (is.null(plan$cigar_style)) "pattern" else plan$cigar_style,
      regions = res$region, call = call
    )
  }
  if (n > 0L && length(res$length) == n) {
    # the record lengths the reader saw, for as_granges()'s seqinfo: one
    # per run of hits of a record (rows are ordered by file and record)
    rec <- hits$record
    first <- which(c(TRUE, rec[-1L] != rec[-n] | res$file[-1L] != res$file[-n]))
    out <- set_seqlengths(out, res$name[first], res$length[first])
  }
  out
}

# The progress bar's label for a search of files.
fastx_label <- function(paths) {
  if (length(paths) == 1L) {
    paste("Searching", basename(paths))
  } else {
    count_label("Searching", length(paths), "file")
  }
}

new_fastx_values <- function(res, paths, patterns, what, call) {
  counts <- res$records_per_file
  n <- length(res$name)
  if (length(counts) != length(paths) || sum(counts) != n ||
    length(res$values) != length(patterns) ||
    any(lengths(res$values) != n)) {
    abort_internal("the file count table has the wrong size", call)
  }
  out <- fastx_record_columns(paths, counts, res$name)
  cols <- res$values
  names(cols) <- fastx_pattern_columns(patterns, names(out))
  new_data_frame(c(out, cols), n)
}

# The columns that identify each record of a file search with one row per
# record: `file` (see has_file_column()) and `record`, the number within
# its file, from the records per file `counts`; then `name`.
fastx_record_columns <- function(paths, counts, name) {
  out <- list()
  if (has_file_column(paths)) {
    out$file <- rep(file_labels(paths), counts)
    out$record <- sequence(as.integer(counts))
  } else {
    out$record <- seq_len(length(name))
  }
  out$name <- name
  out
}

# The `file` column: present with several paths, or when `paths` has names
# (names label the files); the name of each path, or the path where it has
# none.
has_file_column <- function(paths) {
  length(paths) > 1L || !is.null(names(paths))
}

file_labels <- function(paths) {
  nm <- names(paths)
  if (is.null(nm)) {
    return(unname(paths))
  }
  out <- unname(paths)
  named <- !is.na(nm) & nm != ""
  out[named] <- nm[named]
  out
}

# ---------------------------------------------------------------------------
# Errors from the binding

#' Check a value from a file-reading entry point of the binding
#'
#' File errors name the file as the user gave it (`paths`, or `output`),
#' `arg` is their argument; hit-limit advice is the file family's. The
#' condition is built by `rust_condition()` (conditions.R).
#' @noRd
fastx_result <- function(res, arg, paths, output = NULL,
                         call = rlang::caller_env()) {
  res <- rust_result(res, call = call, limit_context = "fastx", paths = paths,
    output = output, path_arg = arg
  )
  if (is.list(res) && !is.null(res$not_utf8)) {
    inform_not_utf8(res$not_utf8, paths, res$letters_not_utf8 %||% 0)
    res$not_utf8 <- NULL
    res$letters_not_utf8 <- NULL
  }
  res
}

#' Say that record headers were not UTF-8
#'
#' The binding reads a header that is not valid UTF-8 as Latin-1 and returns
#' it converted to UTF-8 (each byte one letter), so that `nchar()`,
#' `toupper()` and the like work on the names; this says so, once per call,
#' with a message of class `ducksassy_not_utf8` (`suppressMessages()` or
#' `suppressMessages(classes = "ducksassy_not_utf8")` silence it).
#' @param n How many headers (names) were converted.
#' @param paths The files searched or read.
#' @param letters How many sequences and qualities were converted
#'   (`sassy_read_fastx()` returns them; in UTF-8 such a letter takes 2 bytes).
#' @noRd
inform_not_utf8 <- function(n, paths, letters = 0) {
  ok <- function(x) is.numeric(x) && length(x) == 1L && !is.na(x) && x >= 1
  if (!ok(n) && !ok(letters)) {
    return(invisible(NULL))
  }
  where <- if (length(paths) == 1L) basename(paths) else paste(length(paths), "files")
  what <- c(
    if (ok(n)) paste0(format_count(n), " record header", if (n != 1) "s"),
    if (ok(letters)) paste(format_count(letters), if (letters != 1) "sequences or qualities" else "sequence or quality")
  )
  cli::cli_inform(
    c(
      paste0(
        paste(what, collapse = " and "), " in ", cli_escape(where),
        if (ok(n) && n == 1 && !ok(letters)) " is" else " are",
        " not valid UTF-8: read as Latin-1 and converted to UTF-8."
      ),
      i = "Convert the file to UTF-8 (e.g. with `iconv`) if it uses another encoding."
    ),
    class = "ducksassy_not_utf8"
  )
  invisible(NULL)
}
