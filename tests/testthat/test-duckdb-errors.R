# duckdb_error_kind(): the one function that reads DuckDB's error text.
# The first test pins the rule; the others make each error with the
# installed DuckDB, so they fail when DuckDB's (or R's) wording changes.

test_that("duckdb_error_kind() reads a condition and its parents", {
  kind <- ducksassy:::duckdb_error_kind
  expect_identical(kind(simpleError("INTERRUPT Error: Interrupted!")), "interrupt")
  expect_identical(kind(simpleError("Invalid Input Error: reached elapsed time limit")), "time_limit")
  expect_identical(kind(simpleError("x was built for platform 'a', not 'b'")), "platform")
  expect_identical(kind(simpleError("Binder Error: no such column")), NA_character_)
  inner <- simpleError("the search was interrupted")
  outer <- rlang::catch_cnd(rlang::abort("rapi_execute failed", parent = inner))
  expect_identical(kind(outer), "interrupt")
  expect_identical(kind(structure(class = c("interrupt", "condition"), list(message = ""))), "interrupt")
  expect_identical(kind(NULL), NA_character_)
})

test_that("DuckDB's refusal of another platform's extension is read as 'platform'", {
  skip_if_not_installed("duckdb")
  src <- ducksassy:::duckdb_extension_file(NULL)
  bytes <- readBin(src, "raw", file.size(src))
  at <- length(bytes) - 256L - 64L + seq_len(32L)
  bytes[at] <- c(charToRaw("linux_amd64_musl"), raw(16L))
  path <- file.path(withr::local_tempdir(), "ducksassy.duckdb_extension")
  writeBin(bytes, path)
  con <- DBI::dbConnect(suppressMessages(duckdb::duckdb(config = list(allow_unsigned_extensions = "true"))))
  withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
  err <- tryCatch(DBI::dbExecute(con, paste0("LOAD ", DBI::dbQuoteString(con, path))), error = identity)
  expect_s3_class(err, "error")
  expect_identical(ducksassy:::duckdb_error_kind(err), "platform", info = conditionMessage(err))
})

test_that("R's time limit met inside our SQL functions is read as 'time_limit'", {
  skip_if_not_installed("duckdb")
  con <- sql_con()
  # (warm up: lazily loaded code would swallow the limit)
  DBI::dbGetQuery(con, "SELECT sassy_count('ACGTACGTAC', 'ACGTACGTAC', 2)")
  # 5,000 texts of 200,000 letters made by the query itself (not constant: one per row), many seconds
  err <- tryCatch({
    setTimeLimit(elapsed = 0.2, transient = TRUE)
    DBI::dbGetQuery(con, "SELECT sum(sassy_count(repeat('ACGTTGCA', 25000 + i % 2), 'ACGTACGTACGTACGTACGT', 6)) FROM range(5000) t(i)")
  }, error = identity)
  setTimeLimit()
  expect_s3_class(err, "error")
  expect_identical(ducksassy:::duckdb_error_kind(err), "time_limit", info = conditionMessage(err))
})
