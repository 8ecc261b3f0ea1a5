# Result objects from the binding's columns (R/hits.R).

test_that("counts: a named vector for one unnamed pattern, else a records x patterns matrix", {
  nc <- ducksassy:::new_counts
  expect_identical(nc(c(2, 0), c(a = "AC", b = "GT"), "A"), c(a = 2L, b = 0L))
  m <- nc(c(1, 0, 3, 4), c("AC", "GT"), c(p = "A", "C"))
  expect_identical(dim(m), c(2L, 2L))
  expect_identical(colnames(m), c("p", "pattern_2"))
  expect_identical(m[, "pattern_2"], c(3L, 4L))
  expect_identical(nc(c(1, 0), c("AC", "GT"), "A", "logical"), c(TRUE, FALSE))
  expect_error(nc(1:3, c("AC", "GT"), "A"), class = "ducksassy_internal_error")
})

test_that("pattern names are NA where a pattern has none", {
  expect_identical(ducksassy:::pattern_name_column(c("x", ""), c(2L, 1L, 1L)), c(NA, "x", "x"))
})
