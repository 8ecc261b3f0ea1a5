# Binding result columns (R/bind.R): pieces by rows, key columns before the
# hit columns, the column names of count and contains results.

test_that("combine_pieces() binds pieces by rows, column by column, keeping classes", {
  combine <- ducksassy:::combine_pieces
  day <- as.Date("2026-01-01")
  template <- data.frame(a = integer(), b = character(), d = as.Date(character()))
  pieces <- list(
    list(a = 1:2, b = c("x", "y"), d = day + 0:1),
    list(a = 3L, b = "z", d = day + 5)
  )
  got <- combine(pieces, template)
  expect_identical(got, data.frame(a = 1:3, b = c("x", "y", "z"), d = day + c(0, 1, 5)))
  # no pieces: the template, zero rows with its types
  expect_identical(combine(list(), template), template)
  # one piece: that piece as a data frame
  expect_identical(combine(pieces[1], template), data.frame(a = 1:2, b = c("x", "y"), d = day + 0:1))
})

test_that("shard_bind() is rbind() of data frames without row names", {
  a <- data.frame(id = c("r1", "r2"), n = c(1L, 4L))
  b <- data.frame(id = "r3", n = 0L)
  want <- rbind(a, b)
  rownames(want) <- NULL
  expect_identical(ducksassy:::shard_bind(list(a, b)), want)
  expect_identical(ducksassy:::shard_bind(list(a)), a)
})

test_that("with_hit_columns() puts the keys first and drops record and name", {
  hits <- data.frame(record = 2:1, name = c("b", "a"), pattern = 1L, start = c(5L, 1L), cost = 0L)
  got <- ducksassy:::with_hit_columns(list(read = c("r2", "r1")), hits)
  expect_identical(names(got), c("read", "pattern", "start", "cost"))
  expect_identical(got$read, c("r2", "r1"))
  expect_identical(got$start, c(5L, 1L))
})

test_that("pattern columns are the names, pattern_<i> where unnamed, made unique", {
  cols <- ducksassy:::fastx_pattern_columns
  expect_identical(cols(c("A", "C"), character()), c("pattern_1", "pattern_2"))
  expect_identical(cols(c(x = "A", "C"), character()), c("x", "pattern_2"))
  # a pattern named like a key column gets a suffix
  expect_identical(cols(c(id = "A", id = "C"), "id"), c("id_1", "id_2"))
  expect_identical(ducksassy:::pattern_columns(c(p = "A")), "p")
})
