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

test_that("#39 a gzip output holds the plain output's bytes for every reader, at every level", {
  # the package's reads, 8 times: several blocks of 64 KiB
  dir <- withr::local_tempdir()
  con <- gzfile(system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy"))
  lines <- readLines(con)
  close(con)
  fq <- file.path(dir, "reads.fq")
  writeLines(rep(lines, 8), fq)
  plain <- file.path(dir, "with.fq")
  n <- sassy_filter_fastx(fq, plain, "GACGCTCAGTAATG", k = 2, invert = TRUE, threads = 1)
  want <- readBin(plain, "raw", file.size(plain) + 1)
  expect_gt(length(want), 2 * 65280)
  for (run in list(c(1, 1), c(2, 2), c(2, 9))) {
    gz <- file.path(dir, sprintf("with-%d-%d.fq.gz", run[[1]], run[[2]]))
    expect_identical(
      sassy_filter_fastx(fq, gz, "GACGCTCAGTAATG", k = 2, invert = TRUE, threads = run[[1]], compression_level = run[[2]]),
      n
    )
    con <- gzfile(gz, "rb")
    got <- readBin(con, "raw", length(want) + 1)
    close(con)
    expect_identical(got, want)
    if (nzchar(Sys.which("gzip"))) {
      expect_identical(system2("gzip", c("-t", shQuote(gz))), 0L)
      expect_identical(system2("gzip", c("-dc", shQuote(gz)), stdout = TRUE), readLines(plain))
    }
  }
  # no record written: a gzip file of nothing
  none <- file.path(dir, "none.fq.gz")
  n0 <- sassy_filter_fastx(fq, none, strrep("ACGT", 8), k = 0)
  expect_equal(unname(n0[["written"]]), 0)
  con <- gzfile(none, "rb")
  expect_identical(readBin(con, "raw", 10), raw())
  close(con)
  if (nzchar(Sys.which("gzip"))) expect_identical(system2("gzip", c("-t", shQuote(none))), 0L)
  e <- expect_error(sassy_filter_fastx(fq, gz, "ACGT", compression_level = 0), class = "ducksassy_input_error")
  expect_identical(e$arg, "compression_level")
})
