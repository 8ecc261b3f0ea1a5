# sassy_count*(sparse = TRUE): counts tabulated from the hits (searched
# without CIGARs) into a Matrix::dgCMatrix, so that memory grows with the
# hits (and one row name per record), not with records x patterns. Shared
# by the vector (search.R), file (fastx.R, shard-fastx.R) and table
# (table.R, table-scan.R, shard-table.R) families.

#' A records x patterns dgCMatrix of hit counts
#'
#' @param record,pattern The 1-based row and pattern of each hit (one entry
#'   per hit: repeated pairs are summed).
#' @param na_rows Rows whose sequence is `NA`: stored as `NA` in every
#'   column, as the dense counts have them (they have no hits).
#' @param n_rows,n_patterns The dimensions.
#' @param dimnames `list(row names or NULL, column names)`.
#' @noRd
sparse_count_matrix <- function(record, pattern, na_rows, n_rows, n_patterns,
                                dimnames, call = rlang::caller_env()) {
  record <- as.integer(record)
  pattern <- as.integer(pattern)
  if (length(record) != length(pattern) ||
    anyNA(record) || anyNA(pattern) ||
    any(record < 1L | record > n_rows) ||
    any(pattern < 1L | pattern > n_patterns) ||
    any(na_rows < 1L | na_rows > n_rows)) {
    abort_internal("the hit table has records or patterns out of range", call)
  }
  x <- rep.int(1, length(record))
  if (length(na_rows) > 0L) {
    record <- c(record, rep.int(as.integer(na_rows), n_patterns))
    pattern <- c(pattern, rep(seq_len(n_patterns), each = length(na_rows)))
    x <- c(x, rep.int(NA_real_, length(na_rows) * n_patterns))
  }
  # sparseMatrix() sums the entries of repeated (record, pattern) pairs
  Matrix::sparseMatrix(
    i = record, j = pattern, x = x,
    dims = c(as.integer(n_rows), as.integer(n_patterns)),
    dimnames = dimnames,
    repr = "C"
  )
}

#' Sparse counts of the records of files or tables
#'
#' @param records A data frame, one row per record: the identifying
#'   columns of the dense result (`file`, `record`, `name`; or the `id`
#'   columns, or `record`), kept as the attribute `"records"`.
#' @param record,pattern,na_rows As for sparse_count_matrix(), `record`
#'   indexing the rows of `records`.
#' @param patterns The patterns: the column names are those of the dense
#'   result's count columns (fastx_pattern_columns()).
#' @param rownames `NULL` or one name per record.
#' @noRd
new_record_sparse_counts <- function(records, record, pattern, na_rows,
                                     patterns, rownames,
                                     call = rlang::caller_env()) {
  m <- sparse_count_matrix(record, pattern, na_rows, nrow(records),
    length(patterns),
    list(rownames, fastx_pattern_columns(patterns, names(records))),
    call = call
  )
  attr(m, "records") <- records
  m
}

#' Bind the sparse counts of shards (in order) into one
#'
#' @param values The shards' dgCMatrix results, each with its `"records"`.
#' @param file `NULL`, or the `file` column to put first in the records
#'   (one label per shard, repeated over its rows).
#' @noRd
bind_sparse_counts <- function(values, patterns, file = NULL) {
  records <- lapply(values, attr, "records", exact = TRUE)
  mats <- lapply(values, function(v) {
    attr(v, "records") <- NULL
    attr(v, "not_utf8") <- NULL
    v
  })
  n <- vapply(records, nrow, numeric(1))
  rec <- combine_pieces(lapply(records, unclass), records[[1L]])
  if (!is.null(file)) {
    rec <- new_data_frame(c(list(file = rep(file, n)), rec), nrow(rec))
  }
  m <- if (length(mats) == 1L) mats[[1L]] else do.call(rbind, unname(mats))
  rn <- rownames(m)
  dimnames(m) <- list(rn, fastx_pattern_columns(patterns, names(rec)))
  attr(m, "records") <- rec
  m
}

#' The hits a sparse count holds: its cells, `NA` rows left out
#' @noRd
sparse_hits <- function(m) {
  sum(m@x, na.rm = TRUE)
}

#' Sparse counts of files from the binding's hits with every record's name
#' (`ds_fastx_search()` with `new_read_options(names = TRUE)`)
#'
#' @param skip Records of the (one) file before the range searched (a
#'   shard); the rows are those of the range, `record` the file's numbers.
#' @noRd
new_fastx_sparse <- function(res, paths, patterns, skip = 0, call) {
  per_file <- res$records_per_file
  names <- res$all_names
  hits <- res$hits
  n <- length(names)
  if (!is.double(per_file) || length(per_file) != length(paths) ||
    sum(per_file) != n || !is.character(names) ||
    length(res$file) != length(hits$record)) {
    abort_internal("the file hit table has the wrong size for sparse counts", call)
  }
  records <- fastx_record_columns(paths, per_file, names)
  if (skip > 0) {
    records$record <- records$record + as.integer(skip)
  }
  records <- new_data_frame(records, n)
  # the row of each hit: the records of the files before its own, then its
  # number within the file (of the range)
  offset <- c(0, cumsum(per_file))[res$file]
  row <- offset + hits$record - skip
  new_record_sparse_counts(records, row, hits$pattern, integer(), patterns,
    names,
    call = call
  )
}

#' `sparse = TRUE` with `output`: a classed error (the counts of an output
#' table are a data frame of the rows)
#' @noRd
abort_sparse_output <- function(call) {
  ducksassy_abort(
    c(
      "`sparse = TRUE` can't be used with `output`.",
      i = "`output` writes one row per table row; leave `sparse = FALSE` to write the counts, or `output = NULL` to get the sparse matrix."
    ),
    arg = "sparse",
    call = call
  )
}

#' One table chunk's part of sparse counts: the identifying columns of all
#' its rows, and the table row (scan order) and pattern of each hit
#' @param res The chunk's hit columns (`ds_search()` in hits mode).
#' @param offset Rows of the table before the chunk.
#' @noRd
table_sparse_piece <- function(res, chunk, cols, offset, column) {
  n <- chunk$n
  records <- list()
  if (cols$record) {
    records$record <- row_numbers(offset, seq_len(n))
  } else {
    for (nm in cols$id) {
      records[[nm]] <- chunk$data[[nm]]
    }
  }
  na <- chunk[["na"]]
  if (is.null(na)) {
    seqs <- chunk$data[[column]]
    if (is.null(seqs) && n > 0L) {
      abort_internal("a chunk has neither its sequences nor its NULL rows", rlang::caller_env())
    }
    na <- which(is.na(seqs))
  }
  list(
    records = records,
    n = n,
    i = offset + res$record,
    j = res$pattern,
    na = offset + na
  )
}

#' The sparse counts of a table from its chunks' pieces (in scan order)
#' @noRd
combine_sparse_pieces <- function(pieces, patterns, cols, call) {
  n <- sum(vapply(pieces, `[[`, numeric(1), "n"))
  records <- combine_pieces(
    lapply(pieces, `[[`, "records"),
    new_data_frame(pieces[[1L]][["records"]], pieces[[1L]][["n"]])
  )
  records <- new_data_frame(unclass(records), n)
  i <- unlist(lapply(pieces, `[[`, "i"), use.names = FALSE)
  j <- unlist(lapply(pieces, `[[`, "j"), use.names = FALSE)
  na <- unlist(lapply(pieces, `[[`, "na"), use.names = FALSE)
  new_record_sparse_counts(records, i, j, na, patterns,
    table_sparse_rownames(records, cols),
    call = call
  )
}

#' Row names of a table's sparse counts: the values of the `id` column,
#' as text, when there is exactly one; otherwise none
#' @noRd
table_sparse_rownames <- function(records, cols) {
  if (isTRUE(cols$record) || length(cols$id) != 1L) {
    return(NULL)
  }
  x <- records[[1L]]
  if (!is.atomic(x) && !is.factor(x)) {
    return(NULL)
  }
  as.character(x)
}
