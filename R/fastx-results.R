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
    paste("Searching", length(paths), "files")
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
  out <- list()
  if (has_file_column(paths)) {
    out$file <- rep(file_labels(paths), counts)
    out$record <- sequence(as.integer(counts))
  } else {
    out$record <- seq_len(n)
  }
  out$name <- res$name
  cols <- res$values
  names(cols) <- fastx_pattern_columns(patterns, names(out))
  new_data_frame(c(out, cols), n)
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

#' Re-raise a FASTA/FASTQ error value from the binding
#'
#' File errors carry `path`, `record`, `line` (and, for a letter outside the
#' alphabet, `name`, `position`, `letter`); other errors go through
#' `rust_result()`.
#' @noRd
fastx_result <- function(res, arg, paths, output = NULL,
                         call = rlang::caller_env()) {
  if (!inherits(res, "ducksassy_rust_error") || is.null(res$path) ||
    all(is.na(res$path))) {
    return(rust_result(res, call = call, limit_context = "fastx"))
  }
  field <- function(name) {
    x <- res[[name]]
    if (is.null(x) || length(x) != 1L || is.na(x)) NULL else x
  }
  as_count <- function(x) {
    if (is.null(x)) NULL else if (x <= .Machine$integer.max) as.integer(x) else x
  }
  class <- field("class") %||% "ducksassy_file_error"
  class <- if (identical(class, "ducksassy_file_error")) {
    c("ducksassy_file_error", "ducksassy_input_error")
  } else if (is.character(class) && startsWith(class, "ducksassy_")) {
    class
  } else {
    "ducksassy_internal_error"
  }
  path <- field("path")
  # the path as the user gave it, where the expanded one is one of them
  expanded <- path.expand(paths)
  index <- match(path, expanded)
  is_output <- !is.null(output) && identical(path, path.expand(output))
  if (is_output) {
    arg <- "output"
    index <- NA_integer_
  }
  if (!is.na(index)) {
    path <- paths[[index]]
  }
  headline <- field("headline")
  detail <- field("detail")
  bullets <- if (is.null(headline)) {
    cli_escape(field("message") %||% "The file could not be read.")
  } else {
    c(cli_escape(headline), x = if (!is.null(detail)) cli_escape(detail))
  }
  if (identical(field("letter"), "\"N\"") || identical(field("letter"), "\"n\"")) {
    bullets <- c(bullets, i = "Use `alphabet = \"iupac\"` for sequences with N.")
  }
  ducksassy_abort(
    bullets,
    class = class,
    arg = arg,
    index = if (is.na(index) || length(paths) == 1L) NULL else index,
    value = path,
    path = path,
    record = as_count(field("record")),
    line = as_count(field("line")),
    name = field("name"),
    position = field("position"),
    letter = field("letter"),
    call = call
  )
}
