# sassy_filter_fastx() and sassy_read_fastx() (R/fastx-filter.R).

test_that("the filtered file and its inverse partition the records by sassy_contains()", {
  fq <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  recs <- sassy_read_fastx(fq)
  has <- sassy_contains(recs$sequence, "GACGCTCAGTAATG", k = 2)
  expect_true(any(has) && !all(has))
  dir <- withr::local_tempdir()
  n_with <- sassy_filter_fastx(fq, file.path(dir, "with.fq"), "GACGCTCAGTAATG", k = 2)
  n_without <- sassy_filter_fastx(fq, file.path(dir, "without.fq.gz"), "GACGCTCAGTAATG", k = 2, invert = TRUE)
  expect_equal(unname(c(n_with[["written"]], n_without[["written"]])), c(sum(has), sum(!has)))
  expect_equal(unname(n_with[["read"]]), nrow(recs))
  expect_identical(sassy_read_fastx(file.path(dir, "with.fq"))$name, recs$name[has])
  expect_identical(sassy_read_fastx(file.path(dir, "without.fq.gz"))$name, recs$name[!has])
  expect_identical(nrow(sassy_read_fastx(fq, n_max = 3)), 3L)
  expect_error(sassy_read_fastx(fq, n_max = -1), class = "ducksassy_input_error")
})
