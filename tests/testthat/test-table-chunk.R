# One chunk of a table search (R/table-chunk.R).

test_that("row numbers stay integer until they pass .Machine$integer.max", {
  rn <- ducksassy:::row_numbers
  expect_identical(rn(10, c(1L, 3L)), c(11L, 13L))
  expect_identical(rn(0, integer()), integer())
  big <- rn(.Machine$integer.max - 1, 1:2)
  expect_type(big, "double")
  expect_identical(big, c(.Machine$integer.max, .Machine$integer.max + 1))
})

test_that("a chunk's counts become one row per row, the id columns first", {
  piece <- ducksassy:::table_values_piece(
    values = c(1L, 0L, NA, 2L, 5L, NA), # 3 rows x 2 patterns, rows fastest
    chunk = data.frame(id = c(7L, 8L, 9L)),
    cols = list(record = FALSE, id = "id"),
    offset = 0, n = 3L, patterns = c(a = "ACGT", "GGG")
  )
  expect_identical(piece, list(id = c(7L, 8L, 9L), a = c(1L, 0L, NA), pattern_2 = c(2L, 5L, NA)))
  # without id columns: the row numbers after `offset`
  piece <- ducksassy:::table_values_piece(c(TRUE, FALSE), data.frame(x = 1:2),
    list(record = TRUE, id = character()), offset = 40, n = 2L, patterns = "A")
  expect_identical(piece$record, c(41L, 42L))
  expect_identical(piece$pattern_1, c(TRUE, FALSE))
  expect_error(
    ducksassy:::table_values_piece(1:3, data.frame(x = 1:2), list(record = TRUE), 0, 2L, "A"),
    class = "ducksassy_internal_error"
  )
})

test_that("the table hit limit names the whole table, or one chunk with output", {
  e <- expect_error(ducksassy:::abort_table_limit(1000, FALSE, NULL), class = "ducksassy_limit_error")
  expect_match(conditionMessage(e), "more than 1,000 hits", fixed = TRUE)
  expect_no_match(conditionMessage(e), "one chunk", fixed = TRUE)
  e <- expect_error(ducksassy:::abort_table_limit(5, TRUE, NULL), class = "ducksassy_limit_error")
  expect_match(conditionMessage(e), "in one chunk of rows", fixed = TRUE)
})

test_that("a bad letter in a CRISPR table names the row and its id values", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "reads", data.frame(name = c("ok", "bad"), sequence = c("ACGTAGG", "ACG-TAGG")))
  e <- expect_error(sassy_crispr_table(con, "reads", "ACGTNGG", k = 1, chunk_rows = 1L),
    class = "ducksassy_input_error")
  expect_identical(e$row, 2)
  expect_match(conditionMessage(e), "Row 2 (column \"sequence\")", fixed = TRUE)
  expect_match(conditionMessage(e), "name = \"bad\"", fixed = TRUE)
})
