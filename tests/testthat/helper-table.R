# Helpers of the table tests (test-table*.R): the drivers installed, an
# in-memory database per test, the fixture table and the expected hits
# (sassy_search() on the same sequences).

# The drivers to test with; each test runs for every one that is installed.
table_drivers <- function() {
  out <- character()
  if (requireNamespace("DBI", quietly = TRUE)) {
    if (requireNamespace("duckdb", quietly = TRUE) &&
      requireNamespace("nanoarrow", quietly = TRUE)) {
      out <- c(out, "duckdb")
    }
    if (requireNamespace("RSQLite", quietly = TRUE)) {
      out <- c(out, "RSQLite")
    }
  }
  out
}

skip_without_drivers <- function() {
  skip_if_not_installed("DBI")
  if (length(table_drivers()) == 0L) {
    skip("neither duckdb (with nanoarrow) nor RSQLite is installed")
  }
}

# An in-memory database, disconnected when the calling test ends.
local_db <- function(driver, env = parent.frame()) {
  con <- switch(driver,
    # (duckdb 2 tells where it keeps extensions; not of interest here)
    duckdb = suppressMessages(DBI::dbConnect(duckdb::duckdb())),
    RSQLite = DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  )
  withr::defer(
    if (driver == "duckdb") {
      DBI::dbDisconnect(con, shutdown = TRUE)
    } else {
      DBI::dbDisconnect(con)
    },
    envir = env
  )
  con
}

table_patterns <- c(p1 = "ACGTTGCA", p2 = "GATTACA", p3 = "TTTTCCCCGG")

# Random DNA with planted (edited) copies of the patterns, some NULL and
# empty sequences, a row id and a name.
table_fixture <- function(n = 61L, seed = 3L) {
  withr::local_seed(seed)
  seqs <- random_seqs(n, 0L, 160L)
  seqs <- oracle_plant(seqs, unname(table_patterns), c("A", "C", "G", "T"), n_edits = 2L)
  seqs <- oracle_plant(seqs, unname(table_patterns), c("A", "C", "G", "T"), n_edits = 1L)
  seqs[c(5L, 17L, 40L, n)] <- NA
  seqs[8L] <- ""
  data.frame(
    id = seq_len(n),
    name = sprintf("read%03d", seq_len(n)),
    sequence = seqs,
    stringsAsFactors = FALSE
  )
}

# sassy_search() hits with `record` replaced by the fixture's id columns.
expected_table_hits <- function(df, patterns, ..., id = c("id", "name")) {
  h <- sassy_search(df$sequence, patterns, ...)
  out <- list()
  for (nm in id) out[[nm]] <- df[[nm]][h$record]
  for (nm in setdiff(names(h), "record")) out[[nm]] <- h[[nm]]
  structure(out, class = "data.frame", row.names = .set_row_names(nrow(h)))
}

# Rows sorted by every column, for comparing tables read back from a
# database (which need not keep the insertion order).
order_by_all <- function(x) {
  x <- x[do.call(order, unname(as.list(x))), , drop = FALSE]
  rownames(x) <- NULL
  x
}

write_fixture <- function(con, df = table_fixture(), name = "reads") {
  DBI::dbWriteTable(con, name, df)
  df
}

