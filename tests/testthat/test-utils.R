test_that("utils_head() takes at most n elements", {
  expect_identical(ducksassy:::utils_head(1:10, 3L), 1:3)
  expect_identical(ducksassy:::utils_head(c("a", "b"), 5L), c("a", "b"))
  expect_identical(ducksassy:::utils_head(character(), 2L), character())
})
