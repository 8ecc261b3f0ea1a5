# Every bad input of the "Bad input" list gives a `ducksassy_error` (checked
# by class) whose message names the argument, the index (where there is one)
# and the value; nothing reaches the native code that could crash R. A few
# messages are pinned with snapshots.

# Run `expr`, expect an error of `class`, and return the condition.
catch_ducksassy <- function(expr, class = "ducksassy_input_error") {
  cnd <- tryCatch(expr, error = function(e) e)
  expect_s3_class(cnd, class)
  expect_s3_class(cnd, "ducksassy_error")
  cnd
}

# The message names every string in `...` (fixed matching).
expect_message_names <- function(cnd, ...) {
  msg <- conditionMessage(cnd)
  for (s in c(...)) {
    expect_true(grepl(s, msg, fixed = TRUE), info = paste0("'", s, "' in: ", msg))
  }
}

test_that("empty and NA patterns name the index", {
  cnd <- catch_ducksassy(sassy_search("ACGT", c("ACG", "")))
  expect_message_names(cnd, "`patterns`", "empty", "`patterns[2]`", '""')
  expect_identical(cnd$arg, "patterns")
  expect_identical(cnd$index, 2L)

  cnd <- catch_ducksassy(sassy_count("ACGT", c("ACG", "GT", NA)))
  expect_message_names(cnd, "`patterns`", "missing", "`patterns[3]`", "NA")
  expect_identical(cnd$index, 3L)

  cnd <- catch_ducksassy(sassy_contains("ACGT", c(NA, "")))
  expect_identical(cnd$index, 1L)

  cnd <- catch_ducksassy(sassy_search("ACGT", character()))
  expect_message_names(cnd, "`patterns`", "at least one")

  for (f in list(sassy_search, sassy_count, sassy_contains)) {
    expect_error(f("ACGT", ""), class = "ducksassy_input_error")
    expect_error(f("ACGT", NA_character_), class = "ducksassy_input_error")
  }
})

test_that("bad k: negative, not whole, NA, not a number, not one value", {
  for (k in list(-1L, -0.5, 1.5, NA, NA_integer_, NA_real_, Inf, "1", TRUE, c(1L, 2L), integer(), NULL)) {
    cnd <- catch_ducksassy(sassy_search("ACGTACGT", "ACGT", k = k))
    expect_message_names(cnd, "`k`", "whole number")
    expect_identical(cnd$arg, "k")
  }
  cnd <- catch_ducksassy(sassy_search("ACGTACGT", "ACGT", k = -1))
  expect_message_names(cnd, "-1")
  cnd <- catch_ducksassy(sassy_search("ACGTACGT", "ACGT", k = 1.5))
  expect_message_names(cnd, "1.5")
  cnd <- catch_ducksassy(sassy_count("ACGTACGT", "ACGT", k = NA))
  expect_message_names(cnd, "NA")
})

test_that("k must be below the length of every pattern, naming the pattern", {
  cnd <- catch_ducksassy(sassy_search("ACGTACGT", c("ACGTA", "ACG", "AC"), k = 3))
  expect_message_names(cnd, "`k`", "3", "`patterns[2]`", '"ACG"', "length 3")
  expect_identical(cnd$index, 2L)
  cnd <- catch_ducksassy(sassy_count("ACGT", "ACGT", k = 4L))
  expect_message_names(cnd, "`patterns[1]`", "length 4")
  expect_error(sassy_contains("ACGT", "A", k = 1L), class = "ducksassy_input_error")
  # k = nchar - 1 is fine.
  expect_no_error(sassy_count("ACGT", "ACGT", k = 3L))
})

test_that("unknown alphabet", {
  for (alphabet in list("rna", "", NA_character_, c("dna", "ascii"), 1L, NULL)) {
    cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", alphabet = alphabet))
    expect_message_names(cnd, "`alphabet`", "\"iupac\", \"dna\" or \"ascii\"")
  }
  cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", alphabet = "rna"))
  expect_message_names(cnd, '"rna"')
  # Case does not matter.
  expect_no_error(sassy_search("ACGT", "ACG", alphabet = "DNA"))
})

test_that("rc = TRUE is not allowed with ascii; rc must be a flag", {
  cnd <- catch_ducksassy(sassy_search("hello", "ell", alphabet = "ascii", rc = TRUE))
  expect_message_names(cnd, "`rc", "ascii")
  expect_no_error(sassy_search("hello", "ell", alphabet = "ascii", rc = FALSE))
  for (rc in list(NA, "TRUE", 1L, c(TRUE, FALSE))) {
    cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", rc = rc))
    expect_message_names(cnd, "`rc`", "TRUE or FALSE")
  }
})

test_that("overhang outside [0, 1] or with a non-iupac alphabet", {
  for (overhang in list(-0.1, 1.5, NA_real_, NaN, "0.5", c(0.1, 0.2), TRUE)) {
    cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", overhang = overhang))
    expect_message_names(cnd, "`overhang`", "between 0 and 1")
  }
  cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", overhang = 1.5))
  expect_message_names(cnd, "1.5")
  for (alphabet in c("dna", "ascii")) {
    cnd <- catch_ducksassy(sassy_count("ACGT", "ACG", alphabet = alphabet, rc = FALSE, overhang = 0.5))
    expect_message_names(cnd, "`overhang`", "iupac", alphabet, "0.5")
  }
  expect_no_error(sassy_search("ACGT", "ACG", overhang = 0))
  expect_no_error(sassy_search("ACGT", "ACG", overhang = 1L))
})

test_that("max_n_frac outside [0, 1] or with ascii", {
  for (x in list(-0.5, 2, NA_real_, "0.1")) {
    cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", max_n_frac = x))
    expect_message_names(cnd, "`max_n_frac`", "between 0 and 1")
  }
  cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", alphabet = "ascii", max_n_frac = 0.1))
  expect_message_names(cnd, "`max_n_frac`", "ascii")
})

test_that("flags must be TRUE or FALSE", {
  for (x in list(NA, "yes", 1, c(TRUE, FALSE), NULL)) {
    cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", all_endpoints = x))
    expect_message_names(cnd, "`all_endpoints`", "TRUE or FALSE")
    cnd <- catch_ducksassy(sassy_count("ACGT", "ACG", ignore_case = x))
    expect_message_names(cnd, "`ignore_case`")
    cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", cigar = x))
    expect_message_names(cnd, "`cigar`")
  }
})

test_that("threads must be a whole number >= 1", {
  for (threads in list(0L, -1L, 1.5, NA, NA_integer_, "2", 1e6, c(1L, 2L), NULL)) {
    cnd <- catch_ducksassy(sassy_search("ACGT", "ACG", threads = threads))
    expect_message_names(cnd, "`threads`", "whole number")
    expect_identical(cnd$arg, "threads")
  }
  cnd <- catch_ducksassy(sassy_count("ACGT", "ACG", threads = 0))
  expect_message_names(cnd, "`threads` is 0")
})

test_that("non-character texts and patterns", {
  bad <- list(1:3, factor("ACGT"), list("ACGT"), NULL, TRUE, as.raw(65), data.frame(x = "ACGT"))
  for (x in bad) {
    cnd <- catch_ducksassy(sassy_search(x, "ACG"))
    expect_message_names(cnd, "`texts`", "character vector")
    expect_identical(cnd$arg, "texts")
    cnd <- catch_ducksassy(sassy_count("ACGT", x))
    expect_message_names(cnd, "`patterns`", "character vector")
    expect_identical(cnd$arg, "patterns")
  }
  cnd <- catch_ducksassy(sassy_search(factor("ACGT"), "ACG"))
  expect_message_names(cnd, "a factor")
  cnd <- catch_ducksassy(sassy_contains(list("ACGT"), "ACG"))
  expect_message_names(cnd, "a list")
  cnd <- catch_ducksassy(sassy_search(NULL, "ACG"))
  expect_message_names(cnd, "NULL")
})

test_that("letters outside the alphabet in a text name the record and the letter", {
  cnd <- catch_ducksassy(sassy_search(c("ACGT", "ACGT", "ACGNT"), "ACG", alphabet = "dna"))
  expect_identical(cnd$arg, "texts")
  expect_identical(cnd$index, 3L)
  expect_message_names(cnd, "texts", "3", "N", "dna")
  # The same from count and contains (no traceback paths).
  expect_error(sassy_count(c("ACGT", "ACGNT"), "ACG", alphabet = "dna"), class = "ducksassy_input_error")
  expect_error(sassy_contains(c("ACGT", "ACGNT"), "ACG", alphabet = "dna"), class = "ducksassy_input_error")
  # Even when an earlier record already has a hit (contains could stop).
  expect_error(sassy_contains(c("ACG", "ACGNT"), "ACG", alphabet = "dna"), class = "ducksassy_input_error")
  # iupac: letters that are not IUPAC codes.
  for (text in c("ACGTZ", "ACG-T", "ACG T", "ACGE", "ACG1")) {
    cnd <- catch_ducksassy(sassy_search(c("ACGT", text), "ACG"))
    expect_identical(cnd$index, 2L)
    expect_message_names(cnd, "texts", "iupac")
  }
  # ascii: bytes >= 128.
  cnd <- catch_ducksassy(sassy_search(c("hello", "h\u00e9llo"), "ell", alphabet = "ascii"))
  expect_identical(cnd$arg, "texts")
  expect_identical(cnd$index, 2L)
  # Not in a NA text.
  expect_no_error(sassy_search(c(NA, "ACGT"), "ACG", alphabet = "dna"))
})

test_that("letters outside the alphabet in a pattern name the pattern and letter", {
  cnd <- catch_ducksassy(sassy_search("ACGT", c("ACG", "ANG"), alphabet = "dna"))
  expect_identical(cnd$arg, "patterns")
  expect_identical(cnd$index, 2L)
  expect_message_names(cnd, "patterns", "2", "N")
  cnd <- catch_ducksassy(sassy_count("ACGT", "AC-G"))
  expect_identical(cnd$arg, "patterns")
  expect_identical(cnd$index, 1L)
  # Patterns are checked even when there is nothing to search.
  expect_error(sassy_search(character(), "AXG", alphabet = "dna"), class = "ducksassy_input_error")
  expect_error(sassy_contains(c(NA, ""), "AXG", alphabet = "dna"), class = "ducksassy_input_error")
})

test_that("the error reports the user-facing call", {
  cnd <- catch_ducksassy(sassy_count("ACGT", "ACG", k = -1))
  expect_identical(cnd$call[[1L]], quote(sassy_count))
  cnd <- catch_ducksassy(sassy_search("ACGT", "ANG", alphabet = "dna"))
  expect_identical(cnd$call[[1L]], quote(sassy_search))
})

test_that("more hits than ducksassy.max_hits is an error, not a truncation", {
  withr::local_options(ducksassy.max_hits = 2)
  texts <- rep("ACGTTTACGTTTACGT", 3)
  cnd <- catch_ducksassy(sassy_search(texts, "ACGT", alphabet = "dna", rc = FALSE), "ducksassy_limit_error")
  expect_message_names(cnd, "2")
  # Counting holds no hits.
  expect_identical(sassy_count(texts, "ACGT", alphabet = "dna", rc = FALSE), c(3L, 3L, 3L))
  withr::local_options(ducksassy.max_hits = 9)
  expect_identical(nrow(sassy_search(texts, "ACGT", alphabet = "dna", rc = FALSE)), 9L)
  withr::local_options(ducksassy.max_hits = -1)
  expect_error(sassy_search(texts, "ACGT"), class = "ducksassy_input_error")
})

test_that("error messages are stable", {
  expect_snapshot(error = TRUE, {
    sassy_search("ACGTACGT", c("ACGTA", "ACG"), k = 3)
    sassy_search("ACGTACGT", c("ACG", ""))
    sassy_count("ACGT", "ACG", k = 1.5)
    sassy_search(factor("ACGT"), "ACG")
    sassy_search("hello", "ell", alphabet = "ascii", rc = TRUE)
    sassy_search("ACGT", "ACG", overhang = 0.5, alphabet = "dna")
    sassy_contains("ACGT", "ACG", threads = 0)
    sassy_search("ACGT", "ACG", alphabet = "rna")
  })
})

test_that("errors from the native code are stable", {
  expect_snapshot(error = TRUE, {
    sassy_search(c("ACGT", "ACGNT"), "ACG", alphabet = "dna")
    sassy_search("ACGT", c("ACG", "AZG"))
  })
})
