# sassy_search_table(): writing the result to an `output` table, through a
# temporary spool file (no query may run on the connection while the source
# is being read).

# ---------------------------------------------------------------------------
# Output to a table

#' What is known about the output table before the rows are read
#'
#' No query may run on `con` while the source is being read, so the output
#' table's columns are looked up first.
#' @noRd
new_output_spec <- function(con, output, call) {
  quoted <- db_call(
    DBI::dbQuoteIdentifier(con, output),
    "Can't quote the `output` table name.", "output", call
  )
  label <- as.character(quoted)
  exists <- db_call(
    DBI::dbExistsTable(con, output),
    paste0("Can't look up the `output` table ", label, "."), "output", call
  )
  existing <- NULL
  if (isTRUE(exists)) {
    existing <- db_call(
      DBI::dbGetQuery(con, paste0("SELECT * FROM ", label, " WHERE 1 = 0")),
      paste0("Can't read the columns of the `output` table ", label, "."),
      "output", call
    )
  }
  list(name = output, label = label, exists = isTRUE(exists), existing = existing)
}

check_output_fit <- function(spec, template, call) {
  if (!spec$exists) {
    return(invisible())
  }
  have <- names(spec$existing)
  want <- names(template)
  missing <- setdiff(want, have)
  extra <- setdiff(have, want)
  if (length(missing) > 0L || length(extra) > 0L) {
    ducksassy_abort(
      c(
        paste0("The columns of the `output` table ", cli_escape(spec$label), " do not fit the result."),
        x = if (length(missing) > 0L) paste0("Not in the table: ", quote_names(missing), "."),
        x = if (length(extra) > 0L) paste0("Not in the result: ", quote_names(extra), "."),
        i = "Write to a new table, or remove the old one first."
      ),
      arg = "output",
      value = spec$label,
      call = call
    )
  }
  for (nm in want) {
    a <- value_kind(spec$existing[[nm]])
    b <- value_kind(template[[nm]])
    if (a != "unknown" && b != "unknown" && a != b) {
      ducksassy_abort(
        c(
          paste0("The columns of the `output` table ", cli_escape(spec$label), " do not fit the result."),
          x = paste0("Column \"", cli_escape(nm), "\" holds ", a, " in the table, but ", b, " in the result."),
          i = "Write to a new table, or remove the old one first."
        ),
        arg = "output",
        value = spec$label,
        call = call
      )
    }
  }
  invisible()
}

quote_names <- function(x, n = 10L) {
  out <- paste0("\"", cli_escape(utils_head(x, n)), "\"", collapse = ", ")
  if (length(x) > n) paste0(out, ", ... (", length(x), " in all)") else out
}

# Broad kinds of values, for checking that an existing table can take the
# result: numbers go into numbers, text into text.
value_kind <- function(x) {
  if (inherits(x, "Date")) {
    "dates"
  } else if (inherits(x, "POSIXt")) {
    "date-times"
  } else if (is.factor(x) || is.character(x)) {
    "text"
  } else if (is.logical(x)) {
    # an untyped (all-NULL) column reads as logical
    "unknown"
  } else if (is.numeric(x) || inherits(x, "integer64")) {
    "numbers"
  } else if (is.list(x)) {
    "lists"
  } else {
    "unknown"
  }
}

#' Stop when an `id` column cannot be written to an `output` table
#'
#' The id columns are copied into the `output` table as they are read: text,
#' numbers, logicals, dates, times (atomic vectors, factors) and blobs can
#' be; a STRUCT (read as a data frame column) or a LIST / ARRAY / MAP (a
#' list) cannot, and would fail only when the table is made. Checked on the
#' first chunk, before anything is searched or written.
#' @param data The first chunk's columns as read (a data frame).
#' @noRd
check_output_id_types <- function(data, id, column, call) {
  for (nm in id) {
    x <- data[[nm]]
    if (is.null(x) || (is.atomic(x) && !is.data.frame(x)) || inherits(x, "blob")) {
      next
    }
    read_as <- if (is.data.frame(x)) {
      "a data frame column (a STRUCT in DuckDB)"
    } else if (is.list(x)) {
      "a list column (a LIST, ARRAY or MAP in DuckDB)"
    } else {
      paste0("an object of class ", class(x)[[1L]])
    }
    q <- function(x) encodeString(x, quote = "\"")
    ducksassy_abort(
      c(
        paste0("`id` column ", cli_escape(q(nm)), " can't be written to the `output` table."),
        x = paste0("It is read as ", read_as, "."),
        i = "With `output`, `id` columns must be text, numbers, logicals, dates or date-times (or blobs).",
        i = paste0(
          "Cast it in a query, e.g. `DBI::SQL(\"SELECT CAST(", cli_escape(nm),
          " AS VARCHAR) AS ", cli_escape(nm), ", ", cli_escape(column),
          " FROM t\")`, choose other `id` columns, or leave `output` out to get the hits in R."
        )
      ),
      class = c("ducksassy_output_type_error", "ducksassy_input_error"),
      arg = "id",
      value = nm,
      call = call
    )
  }
  invisible()
}

write_output <- function(con, spec, template, spool, call) {
  finish_spool(spool)
  began <- !in_duckdb_transaction(con) && tryCatch(
    {
      DBI::dbBegin(con)
      TRUE
    },
    error = function(e) FALSE
  )
  done <- FALSE
  on.exit(if (began && !done) try(DBI::dbRollback(con), silent = TRUE), add = TRUE)
  label <- spec$label
  if (!spec$exists) {
    db_call(
      DBI::dbCreateTable(con, spec$name, template),
      paste0("Can't create the `output` table ", label, "."), "output", call
    )
  }
  read_spool(spool, function(piece) {
    df <- new_data_frame(piece, length(piece[[1L]]))
    db_call(
      DBI::dbAppendTable(con, spec$name, df),
      paste0("Can't append the result to the `output` table ", label, "."),
      "output", call
    )
  })
  if (began) {
    db_call(
      DBI::dbCommit(con),
      paste0("Can't commit the writes to the `output` table ", label, "."),
      "output", call
    )
  }
  done <- TRUE
  invisible()
}

#' Whether a transaction is open on a DuckDB connection
#'
#' In DuckDB a `BEGIN` inside an open transaction fails and aborts that
#' transaction (SQLite's leaves it be), so "try to begin one" cannot be the
#' test there: within a transaction, `txid_current()` gives the same id
#' twice; in autocommit mode each query has its own. `FALSE` for other
#' drivers (their failed `BEGIN` is harmless) and when the query fails.
#' @noRd
in_duckdb_transaction <- function(con) {
  if (!inherits(con, "duckdb_connection")) {
    return(FALSE)
  }
  id <- function() DBI::dbGetQuery(con, "SELECT txid_current() AS id")$id
  isTRUE(tryCatch(identical(id(), id()), error = function(e) FALSE))
}

# A temporary file of serialized chunk results, read back in order.
new_spool <- function() {
  spool <- new.env(parent = emptyenv())
  spool$path <- tempfile("ducksassy-table-", fileext = ".bin")
  spool$con <- file(spool$path, open = "wb")
  spool$n <- 0L
  spool
}

write_spool <- function(spool, piece) {
  serialize(piece, spool$con, xdr = FALSE)
  spool$n <- spool$n + 1L
  invisible()
}

finish_spool <- function(spool) {
  if (!is.null(spool$con)) {
    close(spool$con)
    spool$con <- NULL
  }
  invisible()
}

read_spool <- function(spool, f) {
  if (spool$n == 0L) {
    return(invisible())
  }
  con <- file(spool$path, open = "rb")
  on.exit(close(con), add = TRUE)
  for (i in seq_len(spool$n)) {
    f(unserialize(con))
  }
  invisible()
}

close_spool <- function(spool) {
  finish_spool(spool)
  unlink(spool$path)
  invisible()
}
