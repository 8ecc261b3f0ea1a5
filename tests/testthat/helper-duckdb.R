# A connection to a fresh in-memory DuckDB database made with
# sassy_duckdb() (the SQL functions registered), closed and shut down when
# the calling test (`env`) ends. Used by test-duckdb-sql.R and
# test-table-sql.R.
sql_con <- function(env = parent.frame()) {
  drv <- suppressMessages(sassy_duckdb())
  con <- DBI::dbConnect(drv)
  withr::defer(
    {
      DBI::dbDisconnect(con)
      duckdb::duckdb_shutdown(drv)
    },
    envir = env
  )
  con
}
