# Writing a table search's result to an output table (R/table-output.R).

test_that("the spool gives back the pieces in order", {
  spool <- ducksassy:::new_spool()
  on.exit(ducksassy:::close_spool(spool))
  pieces <- list(list(a = 1:2, b = c("x", "y")), list(a = 3L, b = NA_character_))
  for (p in pieces) ducksassy:::write_spool(spool, p)
  ducksassy:::finish_spool(spool)
  back <- list()
  ducksassy:::read_spool(spool, function(p) back[[length(back) + 1L]] <<- p)
  expect_identical(back, pieces)
  path <- spool$path
  ducksassy:::close_spool(spool)
  expect_false(file.exists(path))
})

test_that("columns fit an existing table by kind: numbers, text, unknown for all-NULL", {
  kind <- ducksassy:::value_kind
  expect_identical(kind(1L), "numbers")
  expect_identical(kind(1.5), "numbers")
  expect_identical(kind("a"), "text")
  expect_identical(kind(factor("a")), "text")
  expect_identical(kind(NA), "unknown")
  expect_identical(kind(Sys.Date()), "dates")
  expect_identical(ducksassy:::quote_names(c("a", "b")), "\"a\", \"b\"")
  expect_match(ducksassy:::quote_names(letters, n = 2L), "(26 in all)", fixed = TRUE)
})
