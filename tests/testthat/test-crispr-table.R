# sassy_crispr_table() (R/crispr-table.R): the equivalence with
# sassy_crispr() over chunk sizes and the progress are in
# test-table-scan.R; here the table's own arguments.

test_that("output appends the hits to a table; a query selects the rows", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  seqs <- c("TTTACGTACGTAGGTTT", "CCCCCCCCCC", "GGACGTACGTTGGA")
  DBI::dbWriteTable(con, "reads", data.frame(id = 1:3, sequence = seqs))
  want <- sassy_crispr(seqs, "ACGTACGTNGG", k = 1)
  expect_gt(nrow(want), 0L)
  n <- sassy_crispr_table(con, "reads", "ACGTACGTNGG", k = 1, output = "sites", chunk_rows = 2L)
  expect_equal(n, nrow(want))
  back <- DBI::dbReadTable(con, "sites")
  expect_identical(back$id, want$record)
  expect_identical(back$end, want$end)
  q <- sassy_crispr_table(con, DBI::SQL("SELECT id, sequence FROM reads WHERE id > 1"), "ACGTACGTNGG", k = 1)
  expect_identical(q$id, want$record[want$record > 1])
})

test_that("guides that name the table: the error says the arguments look swapped", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "ACGTNGG", data.frame(sequence = "ACGTAGG"))
  e <- expect_error(sassy_crispr_table(con, "TTTTNGG", "ACGTNGG", k = 0), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "are `table` and `guides` swapped", fixed = TRUE)
})
