# Result tables of the file searches (R/fastx-results.R).

test_that("the file column is there for several paths or named paths, labelled by the names", {
  expect_false(ducksassy:::has_file_column("a.fa"))
  expect_true(ducksassy:::has_file_column(c("a.fa", "b.fa")))
  expect_true(ducksassy:::has_file_column(c(s1 = "a.fa")))
  expect_identical(ducksassy:::file_labels(c(s1 = "a.fa", "b.fa")), c("s1", "b.fa"))
  expect_identical(ducksassy:::file_labels(c("a.fa", "a.fa")), c("a.fa", "a.fa"))
})

test_that("file counts come back one row per record of every file, in order", {
  fa <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  recs <- sassy_read_fastx(fa)
  cnt <- sassy_count_fastx(c(x = fa, y = fa), c(p = "GATTACA"), k = 1)
  expect_identical(names(cnt), c("file", "record", "name", "p"))
  expect_identical(cnt$file, rep(c("x", "y"), each = nrow(recs)))
  expect_identical(cnt$record, rep(seq_len(nrow(recs)), 2L))
  expect_identical(cnt$p, rep(sassy_count(recs$sequence, "GATTACA", k = 1), 2L))
})
