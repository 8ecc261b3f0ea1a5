# Lowercase input is searched like uppercase, on both strands, for every
# alphabet (ascii: when both texts and patterns change case together, or
# with ignore_case = TRUE for any mix).

random_case_of <- function(x, p = 0.5) {
  vapply(x, function(s) {
    ch <- oracle_chars(s)
    low <- runif(length(ch)) < p
    ch[low] <- tolower(ch[low])
    paste(ch, collapse = "")
  }, "", USE.NAMES = FALSE)
}

setup_case_input <- function(letters, pattern_letters = letters, seed = 1L) {
  set.seed(seed)
  patterns <- c(
    random_seqs(10L, 9L, 9L, pattern_letters), # batched
    random_seqs(3L, 5L, 14L, pattern_letters)
  )
  texts <- oracle_plant(random_seqs(200L, 0L, 100L, letters), patterns, letters)
  list(texts = texts, patterns = patterns)
}

test_that("dna and iupac are case-insensitive on both strands", {
  for (alphabet in c("dna", "iupac")) {
    letters <- if (alphabet == "dna") c("A", "C", "G", "T") else c("A", "C", "G", "T", "N", "R", "Y", "K", "U")
    x <- setup_case_input(letters, seed = 11L)
    for (rc in c(TRUE, FALSE)) {
      upper <- sassy_search(x$texts, x$patterns, k = 1L, alphabet = alphabet, rc = rc)
      expect_gt(sum(upper$strand == "+"), 0L)
      if (rc) expect_gt(sum(upper$strand == "-"), 0L)
      lower <- sassy_search(tolower(x$texts), tolower(x$patterns), k = 1L, alphabet = alphabet, rc = rc)
      expect_identical(lower, upper)
      mixed <- sassy_search(random_case_of(x$texts), random_case_of(x$patterns), k = 1L, alphabet = alphabet, rc = rc)
      expect_identical(mixed, upper)
      expect_identical(
        sassy_count(tolower(x$texts), x$patterns, k = 1L, alphabet = alphabet, rc = rc),
        sassy_count(x$texts, x$patterns, k = 1L, alphabet = alphabet, rc = rc)
      )
      expect_identical(
        sassy_contains(x$texts, tolower(x$patterns), k = 1L, alphabet = alphabet, rc = rc),
        sassy_contains(x$texts, x$patterns, k = 1L, alphabet = alphabet, rc = rc)
      )
    }
  }
})

test_that("a lowercase hit on the - strand is found (dna and iupac)", {
  # aaccg is the reverse complement of cggtt = text[3..7].
  for (alphabet in c("dna", "iupac")) {
    got <- sassy_search("ttcggttttt", "aaccg", alphabet = alphabet)
    expect_identical(got$strand, "-")
    expect_identical(c(got$start, got$end), c(3L, 7L))
    expect_identical(got$cigar, "5=")
  }
})

test_that("ascii is case-sensitive unless ignore_case = TRUE", {
  x <- setup_case_input(c("A", "C", "G", "T", "X", "Y"), seed = 12L)
  upper <- sassy_search(x$texts, x$patterns, k = 1L, alphabet = "ascii")
  expect_gt(nrow(upper), 0L)
  # Changing the case of both sides changes nothing.
  expect_identical(
    sassy_search(tolower(x$texts), tolower(x$patterns), k = 1L, alphabet = "ascii"),
    upper
  )
  # Lowercase texts against uppercase patterns: no exact letter in common.
  expect_identical(nrow(sassy_search(tolower(x$texts), x$patterns, k = 1L, alphabet = "ascii")), 0L)
  # ignore_case = TRUE: any mix of cases gives the uppercase answer.
  mixed <- sassy_search(random_case_of(x$texts), random_case_of(x$patterns),
    k = 1L, alphabet = "ascii", ignore_case = TRUE
  )
  expect_identical(mixed, upper)
  expect_identical(
    sassy_count(tolower(x$texts), x$patterns, k = 1L, alphabet = "ascii", ignore_case = TRUE),
    sassy_count(x$texts, x$patterns, k = 1L, alphabet = "ascii")
  )
})

test_that("ignore_case does not change dna and iupac", {
  x <- setup_case_input(c("A", "C", "G", "T"), seed = 13L)
  for (alphabet in c("dna", "iupac")) {
    expect_identical(
      sassy_search(x$texts, tolower(x$patterns), k = 1L, alphabet = alphabet, ignore_case = TRUE),
      sassy_search(x$texts, x$patterns, k = 1L, alphabet = alphabet, ignore_case = FALSE)
    )
  }
})

test_that("ignore_case folds only A-Z: other bytes match exactly themselves", {
  # @ [ \ ] ^ _ differ from ` { | } ~ DEL by the same 0x20 bit as upper and
  # lower case letters; they must not be folded onto each other.
  punct <- c("@", "[", "\\", "]", "^", "_", "`", "{", "|", "}", "~", "\t", ")", "1", "Q", "q")
  for (ch in punct) {
    text <- paste0("xx", ch, "yy")
    pattern <- paste0("x", ch, "y")
    for (ignore_case in c(FALSE, TRUE)) {
      expect_identical(sassy_count(text, pattern, alphabet = "ascii", ignore_case = ignore_case), 1L)
      got <- sassy_search(text, pattern, alphabet = "ascii", ignore_case = ignore_case)
      expect_identical(got$cigar, "3=")
    }
  }
  pairs <- list(c("[", "{"), c("\\", "|"), c("@", "`"), c("^", "~"), c("\t", ")"))
  for (pair in pairs) for (swap in c(FALSE, TRUE)) {
    if (swap) pair <- rev(pair)
    text <- paste0("xx", pair[[1L]], "yy")
    pattern <- paste0("x", pair[[2L]], "y")
    expect_identical(sassy_count(text, pattern, alphabet = "ascii", ignore_case = TRUE), 0L)
    got <- sassy_search(text, pattern, k = 1L, alphabet = "ascii", ignore_case = TRUE)
    expect_identical(got$cigar, "1=1X1=")
  }
  expect_identical(sassy_count("xxQyy", "xqy", alphabet = "ascii", ignore_case = TRUE), 1L)
})
