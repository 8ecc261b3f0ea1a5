# One chunk of a table search: its binding result (or error, in table
# terms) made into a piece of the result, with the chunk's id columns.

#' A chunk's binding result, or its error in table terms
#'
#' An error value is re-raised with the row in scan order (and its id
#' values) in place of the index into the chunk, and the hit limit counts
#' the hits of all chunks.
#' @noRd
table_chunk_result <- function(res, searcher) {
  if (!inherits(res, "ducksassy_rust_error")) {
    return(res)
  }
  call <- searcher$call
  max_hits <- searcher$max_hits
  column <- searcher$column
  chunk <- searcher$chunk$data
  cols <- searcher$cols
  offset <- searcher$offset
  if (identical(res$kind, "too_many_hits")) {
    abort_table_limit(max_hits, searcher$output, call)
  }
  ids <- function(i) {
    if (!is.null(cols) && !cols$record && length(cols$id) > 0L) {
      vals <- vapply(utils_head(cols$id, 5L), function(nm) {
        paste0(nm, " = ", format_value(as.vector(chunk[[nm]][i])))
      }, character(1))
      c(i = paste0("The row's id: ", paste(vals, collapse = ", "), "."))
    }
  }
  rust_result(res, call = call, rows = list(offset = offset, column = column, ids = ids))
}

#' A chunk's piece of the result: its hits (finished as the plan asks, then
#' by the engine's `finish_piece()`), or its counts or flags
#' @noRd
table_piece <- function(res, chunk, cols, offset, column, engine) {
  plan <- engine$plan
  if (engine$mode == "assign") {
    return(table_assign_piece(res, chunk$data, cols, offset, chunk$n, plan$patterns))
  }
  if (engine$mode != "hits") {
    return(table_values_piece(res, chunk$data, cols, offset, chunk$n, plan$patterns))
  }
  patterns <- if (!is.null(plan$guides)) plan$guides else plan$patterns
  piece <- finish_table_piece(
    table_hits_piece(res, chunk$data, cols, offset, names(patterns)),
    res, chunk$data, column, plan
  )
  if (is.null(engine$finish_piece)) piece else engine$finish_piece(piece)
}

# One chunk's hits: the id columns of each hit's row (or its row number),
# then the hit columns of sassy_search().
table_hits_piece <- function(res, chunk, cols, offset, pattern_names = NULL) {
  hits <- new_hits(res, pattern_names = pattern_names)
  out <- list()
  if (cols$record) {
    out$record <- row_numbers(offset, hits$record)
  } else {
    for (nm in cols$id) {
      out[[nm]] <- subset_rows(chunk[[nm]], hits$record)
    }
  }
  with_hit_columns(out, hits)
}

# A chunk's hit columns finished as the caller asked (SAM CIGARs, the
# matched region cut from the chunk's sequences).
finish_table_piece <- function(piece, res, data, column, plan) {
  if (identical(plan$cigar_style, "sam")) {
    patterns <- if (!is.null(plan$guides)) plan$guides else plan$patterns
    piece$cigar <- sam_cigars(new_hits(res), nchar(patterns, type = "bytes"),
      call = rlang::caller_env())
  }
  if (isTRUE(plan$region)) {
    texts <- data[[column]]
    if (!is.character(texts)) {
      texts <- as.character(texts)
    }
    piece$region <- hit_regions(new_hits(res), texts)
  }
  piece
}

# The id columns of every row of a chunk of `n` rows, or its row numbers.
table_row_ids <- function(chunk, cols, offset, n) {
  out <- list()
  if (cols$record) {
    out$record <- row_numbers(offset, seq_len(n))
  } else {
    for (nm in cols$id) {
      out[[nm]] <- chunk[[nm]]
    }
  }
  out
}

# One chunk's counts or flags: one row per row of the chunk.
table_values_piece <- function(values, chunk, cols, offset, n, patterns) {
  out <- table_row_ids(chunk, cols, offset, n)
  if (length(values) != n * length(patterns)) {
    abort_internal("the count vector has the wrong length", rlang::caller_env())
  }
  names <- fastx_pattern_columns(patterns, names(out))
  for (j in seq_along(patterns)) {
    out[[names[[j]]]] <- values[(j - 1L) * n + seq_len(n)]
  }
  out
}

# One chunk's assignments (sassy_assign_table()): one row per row of the
# chunk, its id columns (or row number), then the assignment columns.
table_assign_piece <- function(res, chunk, cols, offset, n, patterns) {
  out <- table_row_ids(chunk, cols, offset, n)
  c(out, assignment_columns(res, patterns, n, factor = FALSE))
}

# More hits than `max_hits`: over the whole table, or, with `output`, in one
# chunk (the advice differs: issue 17).
abort_table_limit <- function(max_hits, output, call) {
  abort_too_many_hits(max_hits, if (output) "table_output" else "table", call,
    per_chunk = output
  )
}

row_numbers <- function(offset, i) {
  x <- offset + i
  if (length(x) == 0L || max(x) <= .Machine$integer.max) as.integer(x) else as.double(x)
}

subset_rows <- function(x, i) {
  if (is.data.frame(x)) x[i, , drop = FALSE] else x[i]
}

