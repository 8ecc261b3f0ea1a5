# File shards (R/shard-fastx.R); the searches themselves are in
# test-shard.R.

test_that("as many files as workers: one shard per file, nothing counted", {
  fa <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  fq <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  withr::local_options(ducksassy.shard_records = NULL)
  s <- ducksassy:::shard_plan_fastx(c(fa, fq), 2, NULL)
  expect_identical(s$index, 1:2)
  expect_identical(s$skip, c(0, 0))
  expect_true(all(is.nan(s$n)))
  expect_identical(s$path, c(fa, fq))
})

test_that("fewer files than workers: record ranges of about equal size", {
  fq <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  n <- nrow(sassy_read_fastx(fq))
  withr::local_options(ducksassy.shard_records = NULL)
  s <- ducksassy:::shard_plan_fastx(fq, 3, NULL)
  expect_identical(nrow(s), 3L)
  expect_identical(s$skip, floor(seq(0, n, length.out = 4))[1:3])
  expect_identical(sum(s$n[1:2]) + (n - s$skip[[3]]), as.double(n))
})
