# Empty texts, texts shorter than the pattern, NA texts, zero texts.

empty_hits_template <- function(named = FALSE) {
  expected_hits(name = if (named) character(), patterns = character())
}

test_that("empty texts and texts shorter than the pattern give no hits, not errors", {
  texts <- c("", "A", "AC", "ACG", "", "ACGT")
  got <- sassy_search(texts, "ACGT", k = 0L, alphabet = "dna", rc = FALSE)
  expect_identical(got$record, 6L)
  expect_identical(sassy_count(texts, "ACGT", alphabet = "dna", rc = FALSE), c(0L, 0L, 0L, 0L, 0L, 1L))
  expect_identical(sassy_contains(texts, "ACGT", alphabet = "dna"), c(FALSE, FALSE, FALSE, FALSE, FALSE, TRUE))
  # Shorter than the pattern but within k: ACG is ACGT with T missing.
  got <- sassy_search(texts, "ACGT", k = 1L, alphabet = "dna", rc = FALSE)
  expect_identical(got$record, c(4L, 6L))
  expect_identical(got$cigar, c("3=1I", "4="))
  expect_identical(got$cost, c(1L, 0L))
  expect_identical(sassy_count(texts, "ACGT", k = 1L, alphabet = "dna", rc = FALSE), c(0L, 0L, 0L, 1L, 0L, 1L))
  # Only empty texts.
  expect_identical(sassy_search(c("", ""), "ACGT", k = 3L), empty_hits_template())
  expect_identical(sassy_count(c("", ""), "ACGT", k = 3L), c(0L, 0L))
  expect_identical(sassy_contains(c("", ""), "ACGT", k = 3L, all_endpoints = TRUE), c(FALSE, FALSE))
})

test_that("NA texts give NA counts and no hits", {
  texts <- c(NA, "ACGA", NA_character_)
  got <- sassy_search(texts, "ACG", alphabet = "dna", rc = FALSE)
  expect_identical(got$record, 2L)
  expect_identical(sassy_count(texts, "ACG", alphabet = "dna"), c(NA, 1L, NA))
  expect_identical(sassy_contains(texts, "ACG", alphabet = "dna"), c(NA, TRUE, NA))
  expect_identical(
    sassy_count(texts, c("ACG", "TTT"), alphabet = "dna", rc = FALSE),
    matrix(c(NA, 1L, NA, NA, 0L, NA), 3L, 2L, dimnames = list(NULL, c("pattern_1", "pattern_2")))
  )
  # All NA.
  expect_identical(sassy_search(c(NA_character_, NA_character_), "ACG"), empty_hits_template())
  expect_identical(sassy_count(NA_character_, "ACG"), NA_integer_)
  expect_identical(sassy_contains(NA_character_, "ACG"), NA)
  # An NA text is not checked for letters, and does not upset names.
  got <- sassy_search(c(x = NA, y = "ACG"), "ACG", alphabet = "dna", rc = FALSE)
  expect_identical(got$name, "y")
})

test_that("zero texts give a zero-row data frame and zero-length vectors", {
  expect_identical(sassy_search(character(), "ACG"), empty_hits_template())
  expect_identical(sassy_search(character(), "ACG", cigar = FALSE), empty_hits_template())
  expect_identical(sassy_count(character(), "ACG"), integer())
  expect_identical(sassy_contains(character(), "ACG"), logical())
  cols <- list(NULL, c("pattern_1", "pattern_2"))
  expect_identical(sassy_count(character(), c("ACG", "TTT")), matrix(integer(), 0L, 2L, dimnames = cols))
  expect_identical(sassy_contains(character(), c("ACG", "TTT")), matrix(logical(), 0L, 2L, dimnames = cols))
  named <- stats::setNames(character(), character())
  expect_identical(sassy_search(named, "ACG"), empty_hits_template(named = TRUE))
  expect_identical(sassy_count(named, "ACG"), stats::setNames(integer(), character()))
})

test_that("no hits anywhere gives the empty template, with names if named", {
  expect_identical(sassy_search(c(a = "TTTT", b = "CCCC"), "GGAA", alphabet = "dna", rc = FALSE), empty_hits_template(named = TRUE))
})

test_that("texts that are one long homopolymer or all N behave", {
  # Every position of an N run matches; local minima keep it to one hit per
  # run and strand, all_endpoints gives one per end position.
  n_run <- strrep("N", 200)
  got <- sassy_search(n_run, "ACGTACGT", rc = FALSE)
  expect_identical(nrow(got), 1L)
  expect_identical(c(got$start, got$end), c(193L, 200L))
  expect_identical(sassy_count(n_run, "ACGTACGT", rc = FALSE, all_endpoints = TRUE), 193L)
  expect_identical(nrow(sassy_search(n_run, "ACGTACGT", rc = FALSE, max_n_frac = 0.5)), 0L)
  # A homopolymer: AAAA in 100 As, one hit (rightmost) per strand-free search.
  got <- sassy_search(strrep("A", 100), "AAAA", alphabet = "dna", rc = FALSE)
  expect_identical(c(got$start, got$end), c(97L, 100L))
})

test_that("the extremes of k are accepted: k = nchar(pattern) - 1", {
  got <- sassy_count(c("T", "", "GG"), "ACG", k = 2L, alphabet = "dna", rc = FALSE, all_endpoints = TRUE)
  # ACG against T: cost 2 at end 1 (A, C inserted... or substitutions). GG: G matches at end 1 and 2.
  expect_identical(got, vapply(c("T", "", "GG"), function(t) oracle_count_all_endpoints("ACG", t, 2L, "dna", rc = FALSE), 0L, USE.NAMES = FALSE))
})
