# Row ranges of a sharded table search (R/shard-table.R); the searches
# themselves are in test-shard.R.

test_that("row ranges cover the rows once, the last running to the end", {
  withr::local_options(ducksassy.shard_rows = NULL)
  s <- ducksassy:::shard_plan_rows(10, 3, NULL)
  expect_identical(s$skip, c(0, 3, 6))
  expect_identical(s$n[1:2], c(3, 3))
  expect_true(is.nan(s$n[[3]]))
  expect_identical(s$first, c(1, 4, 7))
  expect_identical(s$last, c(3, 6, NA))
  withr::local_options(ducksassy.shard_rows = 4)
  expect_identical(nrow(ducksassy:::shard_plan_rows(10, 2, NULL)), 3L)
})

test_that("a range's query is the query with LIMIT and OFFSET (SQLite: LIMIT -1)", {
  q <- "SELECT * FROM t"
  expect_identical(ducksassy:::shard_sql(q, 0, 5, "duckdb"),
    "SELECT * FROM (SELECT * FROM t) AS ducksassy_shard LIMIT 5")
  expect_identical(ducksassy:::shard_sql(q, 5, NaN, "duckdb"),
    "SELECT * FROM (SELECT * FROM t) AS ducksassy_shard OFFSET 5")
  expect_identical(ducksassy:::shard_sql(q, 5, NaN, "sqlite"),
    "SELECT * FROM (SELECT * FROM t) AS ducksassy_shard LIMIT -1 OFFSET 5")
  expect_identical(ducksassy:::shard_sql(q, 1e6, 2e6, "sqlite"),
    "SELECT * FROM (SELECT * FROM t) AS ducksassy_shard LIMIT 2000000 OFFSET 1000000")
})
