# Argument checks shared by the families (R/checks.R).

test_that("a verb's search arguments are read from its frame by name", {
  f <- function(alphabet = "dna", rc = NULL, threads = 2L, other = 1) {
    ducksassy:::search_args_of(environment())
  }
  got <- f(rc = TRUE)
  expect_identical(got[order(names(got))], list(alphabet = "dna", rc = TRUE, threads = 2L))
  # NULL values are kept (they mean "the default")
  expect_true("rc" %in% names(f()))
})

test_that("the count verbs' plan has no CIGARs or regions", {
  args <- list(alphabet = "dna", rc = TRUE, all_endpoints = FALSE, overhang = NULL,
    max_n_frac = NULL, ignore_case = FALSE, threads = 1L, indels = TRUE)
  plan <- ducksassy:::new_verb_plan("count", "ACGT", 1L, args, NULL)
  expect_false(plan$cigar)
  expect_false(plan$region)
  hits <- ducksassy:::new_verb_plan("hits", "ACGT", 1L,
    c(args, cigar = TRUE, cigar_style = "sam", region = TRUE), NULL)
  expect_true(hits$cigar)
  expect_identical(hits$cigar_style, "sam")
  expect_true(hits$region)
  expect_error(ducksassy:::new_verb_plan("hits", "ACGT", 1L,
    c(args, cigar = TRUE, cigar_style = "bam", region = TRUE), NULL), class = "ducksassy_input_error")
})
