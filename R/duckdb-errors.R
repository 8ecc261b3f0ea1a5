#' What an error of DuckDB is, read from its text: the one place that reads it
#'
#' duckdb's R errors carry no class (a query's error is a plain `rlang` error
#' whose message is DuckDB's text), so three cases can only be told by their
#' words: Ctrl-C during a query (DuckDB: `INTERRUPT Error: Interrupted!`; our
#' SQL functions: "the search was interrupted"), R's time limit met inside
#' our SQL functions (R's words, inside DuckDB's), and an extension built for
#' another platform (`LOAD`). Every other site asks this function; the test
#' `test-duckdb-errors.R` makes each error with the installed DuckDB and fails
#' when its wording changes.
#' @param e a condition; its `parent`s are read too.
#' @return `"interrupt"`, `"time_limit"`, `"platform"` or `NA`.
#' @noRd
duckdb_error_kind <- function(e) {
  while (!is.null(e)) {
    if (inherits(e, "interrupt")) {
      return("interrupt")
    }
    m <- conditionMessage(e)
    for (kind in names(duckdb_error_words)) {
      if (grepl(duckdb_error_words[[kind]], m, ignore.case = TRUE)) {
        return(kind)
      }
    }
    e <- e$parent
  }
  NA_character_
}

# In the order they are tried.
duckdb_error_words <- c(
  interrupt = "INTERRUPT Error|Interrupted!|the search was interrupted",
  time_limit = time_limit_words,
  platform = "platform"
)
