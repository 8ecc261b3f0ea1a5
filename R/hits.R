# Building result objects from the columns the binding returns.
#
# The binding already converts sassy's 0-based half-open coordinates to
# 1-based inclusive ones and orders the rows by record, pattern, start, end,
# strand; nothing here does coordinate arithmetic or sorting.

hit_columns <- c(
  "record", "pattern", "start", "end", "pattern_start", "pattern_end",
  "cost", "strand", "cigar"
)
hit_integer_columns <- c(
  "record", "pattern", "start", "end", "pattern_start", "pattern_end", "cost"
)

#' Build the hit data frame
#'
#' @param cols Named list of equal-length columns from `ds_search(mode =
#'   "hits")`.
#' @param text_names `names(texts)` or `NULL`; when not `NULL` a `name` column
#'   is added after `record`.
#' @param pattern_names `names(patterns)` or `NULL`; when not `NULL` a
#'   `pattern_name` column is added after `pattern` (names travel as the
#'   texts' do; `NA` for a pattern without a name).
#' @return A base `data.frame`.
#' @noRd
new_hits <- function(cols, text_names = NULL, call = rlang::caller_env(),
                     pattern_names = NULL) {
  if (!is.list(cols) || !all(hit_columns %in% names(cols))) {
    abort_internal("the hit table has the wrong columns", call)
  }
  n <- length(cols$record)
  if (any(lengths(cols[hit_columns]) != n)) {
    abort_internal("the hit table has columns of unequal length", call)
  }
  out <- list(record = as.integer(cols$record))
  if (!is.null(text_names)) {
    out$name <- as.character(text_names)[out$record]
  }
  for (col in hit_integer_columns[-1L]) {
    out[[col]] <- as.integer(cols[[col]])
    if (col == "pattern" && !is.null(pattern_names)) {
      out$pattern_name <- pattern_name_column(pattern_names, out$pattern)
    }
  }
  out$strand <- as.character(cols$strand)
  out$cigar <- as.character(cols$cigar)
  new_data_frame(out, n)
}

# The names of the patterns of hits `i`: `NA` where a pattern has none.
pattern_name_column <- function(pattern_names, i) {
  nm <- as.character(pattern_names)
  nm[nm == ""] <- NA_character_
  nm[i]
}

new_data_frame <- function(cols, n) {
  structure(cols, class = "data.frame", row.names = .set_row_names(n))
}

#' Shape counts (or contains flags) from the binding
#'
#' @param values Vector of length `length(texts) * length(patterns)`,
#'   record index varying fastest.
#' @return A vector named by `names(texts)` for one unnamed pattern,
#'   otherwise a records x patterns matrix, its row names the names of
#'   `texts` and its column names those of `patterns`, `pattern_<i>` for an
#'   unnamed one: the rule of the file and table results (so a named pattern
#'   keeps its name in every shape).
#' @noRd
new_counts <- function(values, texts, patterns, type = c("integer", "logical"),
                       call = rlang::caller_env()) {
  type <- match.arg(type)
  n_texts <- length(texts)
  n_patterns <- length(patterns)
  if (length(values) != n_texts * n_patterns) {
    abort_internal("the count vector has the wrong length", call)
  }
  values <- if (type == "integer") as.integer(values) else as.logical(values)
  if (n_patterns == 1L && is.null(names(patterns))) {
    names(values) <- names(texts)
    return(values)
  }
  dim(values) <- c(n_texts, n_patterns)
  dimnames(values) <- list(names(texts), pattern_columns(patterns))
  values
}

abort_internal <- function(what, call) {
  ducksassy_abort(
    c(
      paste0("Internal error: ", what, "."),
      i = "This is a bug in ducksassy; please report it with a reproducible example."
    ),
    class = "ducksassy_internal_error",
    call = call
  )
}
