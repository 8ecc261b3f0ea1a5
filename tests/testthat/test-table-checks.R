# Checks of the table arguments (R/table-checks.R).

test_that("chunk_rows is a whole number from 1 to .Machine$integer.max", {
  check <- ducksassy:::check_chunk_rows
  expect_identical(check(10), 10L)
  expect_identical(check(.Machine$integer.max), .Machine$integer.max)
  for (bad in list(0, -1, 1.5, NA_integer_, "10", c(1, 2), .Machine$integer.max + 1)) {
    expect_error(check(bad), class = "ducksassy_input_error")
  }
})

test_that("id names columns once, without NA or empty names", {
  check <- ducksassy:::check_id
  expect_null(check(NULL))
  expect_identical(check(c(a = "x", b = "y")), c("x", "y"))
  expect_identical(check(character()), character())
  e <- expect_error(check(c("x", "x")), class = "ducksassy_input_error")
  expect_identical(e$index, 2L)
  e <- expect_error(check(c("x", NA)), class = "ducksassy_input_error")
  expect_identical(e$index, 2L)
  expect_error(check(1), class = "ducksassy_input_error")
})

test_that("output is NULL, a name or a DBI::Id, never a query", {
  check <- ducksassy:::check_output_name
  expect_null(check(NULL))
  expect_identical(check("hits"), "hits")
  expect_error(check(""), class = "ducksassy_input_error")
  expect_error(check(c("a", "b")), class = "ducksassy_input_error")
  skip_if_not_installed("DBI")
  id <- DBI::Id(table = "hits")
  expect_identical(check(id), id)
  expect_error(check(DBI::SQL("SELECT 1")), class = "ducksassy_input_error")
})

test_that("con must be an open DBI connection", {
  expect_error(ducksassy:::check_connection("con"), class = "ducksassy_input_error")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  expect_identical(ducksassy:::check_connection(con), con)
  DBI::dbDisconnect(con)
  e <- expect_error(ducksassy:::check_connection(con), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "closed", fixed = TRUE)
})
