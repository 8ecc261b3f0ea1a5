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
  attrs <- count_attrs(texts, patterns)
  if (identical(typeof(values), type) && identical(attributes(values), attrs)) {
    return(values) # shaped by the binding
  }
  values <- if (type == "integer") as.integer(values) else as.logical(values)
  attributes(values) <- attrs
  values
}

#' Sparse counts from the record and pattern of each hit
#'
#' @param record,pattern Integer columns of the hits of `ds_search(mode =
#'   "hits")`, 1-based.
#' @return A `Matrix::dgCMatrix` with one row per text and one column per
#'   pattern (also for one unnamed pattern), the dimnames of the dense
#'   matrix (count_attrs()); each cell the number of hits, `NA` in the rows
#'   of `NA` texts (which have no hits), as in the dense result.
#' @noRd
new_sparse_counts <- function(record, pattern, texts, patterns,
                              call = rlang::caller_env()) {
  na_rows <- if (is.character(texts)) which(is.na(texts)) else integer()
  sparse_count_matrix(record, pattern, na_rows, length(texts), length(patterns),
    list(names(texts), pattern_columns(patterns)), call = call
  )
}

#' The attributes of counts (or contains flags) of `texts` x `patterns`:
#' the names of `texts` for one unnamed pattern, otherwise the dimensions
#' and dimnames of the records x patterns matrix (see `new_counts()`).
#' @noRd
count_attrs <- function(texts, patterns) {
  if (length(patterns) == 1L && is.null(names(patterns))) {
    if (is.null(names(texts))) return(NULL)
    return(list(names = names(texts)))
  }
  list(
    dim = c(length(texts), length(patterns)),
    dimnames = list(names(texts), pattern_columns(patterns))
  )
}

# ---------------------------------------------------------------------------
# What a hit table carries on request: SAM CIGARs, the matched region, the
# texts' lengths (for as_granges()'s seqinfo).

cigar_styles <- c("pattern", "sam")

#' Check `cigar_style`: "pattern" (sassy's, the default) or "sam"
#' @noRd
check_cigar_style <- function(cigar_style, call = rlang::caller_env()) {
  if (identical(cigar_style, cigar_styles)) {
    return(cigar_styles[[1L]])
  }
  if (!is.character(cigar_style) || length(cigar_style) != 1L ||
    is.na(cigar_style) || !(cigar_style %in% cigar_styles)) {
    ducksassy_abort(
      c(
        "`cigar_style` must be \"pattern\" or \"sam\".",
        locate_bullet("cigar_style", NULL, cigar_style)
      ),
      arg = "cigar_style",
      value = cigar_style,
      call = call
    )
  }
  # a value with attributes (a 1 x 1 matrix) is its string
  as.vector(cigar_style)
}

#' Finish a hit table as the caller asked
#'
#' @param hits A hit data frame from new_hits() (or with its columns).
#' @param pattern_lengths `nchar()` of the patterns, indexed by `hits$pattern`.
#' @param cigar_style "pattern" (unchanged) or "sam".
#' @param texts `NULL`, or the texts (a character vector or an `XStringSet`)
#'   to cut a `region` column from.
#' @param regions `NULL`, or the regions themselves (files: captured in
#'   Rust), one per hit.
#' @noRd
finish_hits <- function(hits, pattern_lengths, cigar_style = "pattern",
                        texts = NULL, regions = NULL,
                        call = rlang::caller_env()) {
  if (identical(cigar_style, "sam")) {
    hits$cigar <- sam_cigars(hits, pattern_lengths, call)
  }
  if (!is.null(regions)) {
    hits$region <- as.character(regions)
  } else if (!is.null(texts)) {
    hits$region <- hit_regions(hits, texts)
  }
  hits
}

#' The hits' CIGARs in SAM's convention (src/rust/core/src/cigar.rs): along
#' the forward text, so reversed on the minus strand, with soft clips for
#' pattern letters outside the aligned part (overhang).
#' @noRd
sam_cigars <- function(hits, pattern_lengths, call) {
  cigar <- hits$cigar
  if (length(cigar) == 0L || all(is.na(cigar))) {
    return(cigar)
  }
  plen <- as.integer(pattern_lengths)[hits$pattern]
  out <- ds_cigar_sam(
    cigar, hits$strand == "-", hits$pattern_start - 1L, plen - hits$pattern_end
  )
  out <- rust_result(out, call = call)
  if (any(is.na(out) & !is.na(cigar))) {
    abort_internal("a CIGAR could not be converted to SAM's convention", call)
  }
  out
}

#' The matched region of each hit, as it stands in the forward text:
#' `substr(text, start, end)` (minus-strand hits too: the region is not
#' reverse complemented).
#' @noRd
hit_regions <- function(hits, texts) {
  if (length(hits$start) == 0L) {
    return(character())
  }
  if (is_xstringset(texts)) {
    cut <- Biostrings::subseq(texts[hits$record], hits$start,
      width = pmax(hits$end - hits$start + 1L, 0L))
    return(unname(as.character(cut)))
  }
  unname(substr(texts[hits$record], hits$start, hits$end))
}

#' Attach the lengths of the named texts that have hits, as the attribute
#' `seqlengths` (named by the texts' names), from which as_granges() fills
#' `seqinfo`. Nothing is attached when the texts are unnamed, or when a
#' name is missing or given to texts of different lengths (no single length).
#' Costs one pass over the hits' record numbers (sorted).
#' @noRd
with_text_lengths <- function(hits, texts) {
  text_names <- names(texts)
  n <- nrow(hits)
  if (is.null(text_names) || n == 0L) {
    return(hits)
  }
  rec <- hits$record
  # rows are ordered by record: the first row of each record's run
  first <- rec[c(TRUE, rec[-1L] != rec[-n])]
  len <- if (is_xstringset(texts)) {
    Biostrings::width(texts)[first]
  } else {
    nchar(texts[first], type = "bytes")
  }
  set_seqlengths(hits, text_names[first], len)
}

#' The `seqlengths` attribute from names and lengths (one per record with
#' hits; repeated names must have one length).
#' @noRd
set_seqlengths <- function(hits, seq_names, lengths) {
  if (length(seq_names) == 0L || anyNA(seq_names) || any(seq_names == "") ||
    anyNA(lengths)) {
    return(hits)
  }
  lengths <- as.double(lengths)
  u <- !duplicated(seq_names)
  if (!all(u) && !identical(lengths[u][match(seq_names, seq_names[u])], lengths)) {
    return(hits)
  }
  attr(hits, "seqlengths") <- stats::setNames(lengths[u], seq_names[u])
  hits
}
