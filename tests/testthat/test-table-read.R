# Reading a table in chunks (R/table-read.R).

test_that("a chunk's sequences become text: NULL is NA, an ENUM is its labels, others are errors", {
  src <- list(kind = "table", label = "\"t\"")
  texts <- ducksassy:::chunk_texts
  expect_identical(texts(c("AC", NA), src, "s", NULL), c("AC", NA))
  expect_identical(texts(factor(c("AC", "GT")), src, "s", NULL), c("AC", "GT"))
  expect_identical(texts(c(NA, NA), src, "s", NULL), c(NA_character_, NA_character_))
  e <- expect_error(texts(1:2, src, "s", NULL), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "must be text", fixed = TRUE)
  expect_match(conditionMessage(e), "integer", fixed = TRUE)
})

test_that("no fetch asks for more than a million rows", {
  expect_identical(ducksassy:::table_fetch_rows(10), 10L)
  expect_identical(ducksassy:::table_fetch_rows(5e6), 1000000L)
})
