# sassy_count() and sassy_contains() take shortcuts (no traceback; contains
# stops at the first hit of a record), so they are checked against the full
# search on every code path: both strands, all end points, equal-length
# (batched) and mixed-length patterns, overhang, N filter, NA texts.

# count[r, p] must equal the number of rows of `hits` with record r and
# pattern p; contains[r, p] whether there is at least one. NA texts give NA.
expect_consistent <- function(texts, patterns, ...) {
  hits <- sassy_search(texts, patterns, ..., cigar = FALSE)
  count <- sassy_count(texts, patterns, ...)
  contains <- sassy_contains(texts, patterns, ...)
  n_t <- length(texts)
  n_p <- length(patterns)
  want <- table(
    factor(hits$record, levels = seq_len(n_t)),
    factor(hits$pattern, levels = seq_len(n_p))
  )
  want <- matrix(as.integer(want), n_t, n_p)
  want[is.na(texts), ] <- NA_integer_
  expect_identical(unname(matrix(count, n_t, n_p)), want)
  expect_identical(unname(matrix(contains, n_t, n_p)), want > 0L)
  # The one-pattern form: table(hits$record) and record %in% hits$record.
  for (p in seq_len(n_p)) {
    h <- hits[hits$pattern == p, ]
    one <- sassy_count(texts, patterns[p], ...)
    tab <- table(factor(h$record, levels = seq_len(n_t)))
    expect_identical(unname(one), ifelse(is.na(texts), NA_integer_, as.integer(tab)))
    expect_identical(
      unname(sassy_contains(texts, patterns[p], ...)),
      ifelse(is.na(texts), NA, seq_len(n_t) %in% h$record)
    )
  }
}

make_texts <- function(n, letters = c("A", "C", "G", "T"), seed = 1L) {
  set.seed(seed)
  texts <- random_seqs(n, 0L, 120L, letters)
  texts[c(3L, 10L, n)] <- NA
  texts
}

test_that("count and contains agree with the hits (dna, mixed lengths)", {
  texts <- make_texts(60L)
  patterns <- c("ACGTAC", "TTGACCA", "GGG", "CATCATCAT")
  texts <- oracle_plant(texts, patterns, c("A", "C", "G", "T"))
  for (rc in c(TRUE, FALSE)) for (k in c(0L, 1L, 2L)) for (all_endpoints in c(FALSE, TRUE)) {
    expect_consistent(texts, patterns, k = k, alphabet = "dna", rc = rc, all_endpoints = all_endpoints)
  }
})

test_that("count and contains agree with the hits (equal-length, batched)", {
  texts <- make_texts(80L, seed = 2L)
  set.seed(3)
  patterns <- random_seqs(40L, 10L, 10L)
  texts <- oracle_plant(texts, patterns, c("A", "C", "G", "T"))
  for (rc in c(TRUE, FALSE)) for (all_endpoints in c(FALSE, TRUE)) {
    expect_consistent(texts, patterns, k = 2L, alphabet = "iupac", rc = rc, all_endpoints = all_endpoints)
  }
})

test_that("count and contains agree with the hits (iupac, N filter, overhang)", {
  texts <- make_texts(60L, c("A", "C", "G", "T", "N", "N", "R"), seed = 4L)
  patterns <- c("ACGNNT", "RYAGTT", "TTTTT")
  expect_consistent(texts, patterns, k = 1L)
  expect_consistent(texts, patterns, k = 1L, max_n_frac = 0.2)
  expect_consistent(texts, patterns, k = 1L, overhang = 0.5)
  expect_consistent(texts, patterns, k = 2L, overhang = 0.5, all_endpoints = TRUE, rc = FALSE)
})

test_that("count and contains agree with the hits (ascii)", {
  texts <- make_texts(60L, c("a", "b", "c", "A", "B", " "), seed = 5L)
  patterns <- c("abc", "Cab", "a a")
  for (ignore_case in c(FALSE, TRUE)) {
    expect_consistent(texts, patterns, k = 1L, alphabet = "ascii", ignore_case = ignore_case)
  }
})

test_that("the shapes: vector for one pattern, matrix otherwise, with names", {
  texts <- c(a = "ACGTACGT", b = NA, c = "TTTT")
  expect_identical(
    sassy_count(texts, "ACG", alphabet = "dna", rc = FALSE),
    c(a = 2L, b = NA, c = 0L)
  )
  expect_identical(
    sassy_contains(texts, "ACG", alphabet = "dna", rc = FALSE),
    c(a = TRUE, b = NA, c = FALSE)
  )
  got <- sassy_count(texts, c(p1 = "ACG", p2 = "TTT"), alphabet = "dna", rc = FALSE)
  expect_identical(got, matrix(
    c(2L, NA, 0L, 0L, NA, 1L), 3L, 2L,
    dimnames = list(c("a", "b", "c"), c("p1", "p2"))
  ))
  # unnamed patterns: pattern_<i>, as the count columns of files and tables
  got <- sassy_contains(unname(texts), c("ACG", "TTT"), alphabet = "dna", rc = FALSE)
  expect_identical(got, matrix(c(TRUE, NA, FALSE, FALSE, NA, TRUE), 3L, 2L,
    dimnames = list(NULL, c("pattern_1", "pattern_2"))
  ))
  # Only the patterns are named.
  got <- sassy_count(unname(texts), c(p1 = "ACG", p2 = "TTT"), alphabet = "dna", rc = FALSE)
  expect_identical(dimnames(got), list(NULL, c("p1", "p2")))
})
