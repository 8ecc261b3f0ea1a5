# Swapped arguments (R/swapped.R).

test_that("a warning only when no text can hold a hit of any pattern", {
  warn <- function(...) ducksassy:::warn_if_swapped(..., fn = "sassy_search", call = NULL)
  expect_warning(r <- warn(c("ACGT", NA), "ACGTACGTAC"), class = "ducksassy_swapped_arguments_warning")
  expect_true(r)
  # a text within k letters of the shortest pattern can have a hit
  expect_false(warn("ACGTACG", "ACGTACGTAC", k = 3L))
  expect_warning(warn("ACGTAC", "ACGTACGTAC", k = 3L), class = "ducksassy_swapped_arguments_warning")
  # texts all empty or missing, overhang, or a long text: no sign of anything
  expect_false(warn(c("", NA), "ACGT"))
  expect_false(warn("AC", "ACGT", overhang = 0.5))
  expect_false(warn(c("AC", strrep("A", 10)), "ACGT"))
})

test_that("a missing table or file names the patterns when they name one", {
  hint <- ducksassy:::swapped_hint
  exists <- function(p) p == "reads"
  h <- hint(c("ACGT", "reads"), exists, "sassy_count_table", "table")
  expect_match(h, "`patterns` names a table that exists", fixed = TRUE)
  expect_match(h, "sassy_count_table(con, table, patterns, ...)", fixed = TRUE)
  expect_null(hint("ACGT", exists, "sassy_count_table", "table"))
  h <- hint("g.fa", function(p) TRUE, "sassy_crispr_fastx", "paths", "guides")
  expect_match(h, "`guides` names a file", fixed = TRUE)
})
