# Checks of the arguments that name a table search's source and output:
# the connection, the sequence and id columns, the chunk size, the output
# table.

check_dbi_installed <- function(call = rlang::caller_env()) {
  if (!requireNamespace("DBI", quietly = TRUE)) {
    abort_dependency(
      "`sassy_search_table()` needs the DBI package.",
      "Install it with `install.packages(\"DBI\")`.",
      call
    )
  }
}

check_connection <- function(con, call = rlang::caller_env()) {
  if (!methods_is(con, "DBIConnection")) {
    what <- if (isS4(con)) {
      paste0("an object of class ", class(con)[[1L]])
    } else {
      describe_type(con)
    }
    ducksassy_abort(
      c(
        "`con` must be a DBI connection.",
        x = paste0("`con` is ", cli_escape(what), "."),
        i = "Open one with `DBI::dbConnect()`, e.g. `DBI::dbConnect(duckdb::duckdb())`."
      ),
      arg = "con",
      value = what,
      call = call
    )
  }
  valid <- tryCatch(DBI::dbIsValid(con), error = function(e) FALSE)
  if (!isTRUE(valid)) {
    ducksassy_abort(
      c(
        "`con` must be an open DBI connection.",
        x = "`con` is closed or no longer valid."
      ),
      arg = "con",
      call = call
    )
  }
  invisible(con)
}

# inherits() follows S4 inheritance (`is()`) for S4 objects, so this needs
# no import of methods.
methods_is <- function(x, class) {
  isS4(x) && inherits(x, class)
}

check_column_name <- function(column, call = rlang::caller_env()) {
  if (!is.character(column) || length(column) != 1L || is.na(column) ||
    column == "") {
    abort_scalar("column", "a single non-empty string (a column name)", column, call)
  }
  # as.vector(): a 1 x 1 matrix is a name too, but not a `[[` subscript
  as.vector(column)
}

check_id <- function(id, call = rlang::caller_env()) {
  if (is.null(id)) {
    return(NULL)
  }
  if (!is.character(id)) {
    abort_not_character(id, "id", call)
  }
  bad <- which(is.na(id) | id == "")
  if (length(bad) > 0L) {
    abort_elements("`id` must not contain missing values or empty strings.", "id", id, bad, call)
  }
  dup <- which(duplicated(id))
  if (length(dup) > 0L) {
    abort_elements("`id` must not name a column twice.", "id", id, dup[[1L]], call)
  }
  unname(id)
}

check_chunk_rows <- function(chunk_rows, call = rlang::caller_env()) {
  if (!is_whole_scalar(chunk_rows) || chunk_rows < 1 ||
    chunk_rows > .Machine$integer.max) {
    abort_scalar(
      "chunk_rows",
      "a single whole number between 1 and .Machine$integer.max",
      chunk_rows,
      call
    )
  }
  as.integer(chunk_rows)
}

check_output_name <- function(output, call = rlang::caller_env()) {
  if (is.null(output)) {
    return(NULL)
  }
  if (is_dbi_id(output)) {
    return(output)
  }
  if (!is.character(output) || inherits(output, "SQL") ||
    length(output) != 1L || is.na(output) || output == "") {
    what <- if (inherits(output, "SQL")) "a DBI::SQL() query" else format_value(output)
    ducksassy_abort(
      c(
        "`output` must be `NULL`, a table name (a single string) or a `DBI::Id()`.",
        x = paste0("`output` is ", what, ".")
      ),
      arg = "output",
      value = output,
      call = call
    )
  }
  output
}

is_dbi_id <- function(x) {
  isS4(x) && inherits(x, "Id")
}

