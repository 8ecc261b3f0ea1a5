# Checks of the file arguments (R/fastx-checks.R).

test_that("paths must be existing files, named in the error", {
  check <- ducksassy:::check_fastx_paths
  fa <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  expect_identical(check(fa, "paths"), fa)
  e <- expect_error(check(c(fa, NA), "paths"), class = "ducksassy_input_error")
  expect_identical(e$index, 2L)
  expect_error(check(character(), "paths"), class = "ducksassy_input_error")
  expect_error(check(c(fa, fa), "path", single = TRUE), class = "ducksassy_input_error")
  dir <- withr::local_tempdir()
  e <- expect_error(check(file.path(dir, "nope.fa"), "paths"), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "nope.fa", fixed = TRUE)
  expect_error(check(dir, "paths"), class = "ducksassy_input_error")
})

test_that("the reader's batch size comes from the options, NaN when unset", {
  withr::local_options(ducksassy.fastx_batch_bytes = NULL, ducksassy.fastx_batch_records = 100)
  size <- ducksassy:::fastx_batch_size()
  expect_true(is.nan(size[["bytes"]]))
  expect_identical(size[["records"]], 100)
  withr::local_options(ducksassy.fastx_batch_bytes = 0)
  expect_error(ducksassy:::fastx_batch_size(), class = "ducksassy_input_error")
})
