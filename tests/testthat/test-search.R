# Hand-checked examples. Each expected row was worked out by hand (DP tables
# in test-helper-oracle.R) and agrees with the oracle; coordinates are
# 1-based inclusive on the forward text, CIGARs are in the pattern's
# direction (against the reverse complement of the region on "-").

test_that("a substitution on the + strand (ATCG in AAAATTGAAA)", {
  # AAA[ATTG]AAA: A=A T=T C/T G=G. The - strand (TTTCAATTTT) needs 2 edits.
  got <- sassy_search("AAAATTGAAA", "ATCG", k = 1, alphabet = "dna")
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = 4, end = 7, pattern_end = 4,
    cost = 1, strand = "+", cigar = "2=1X1="
  ))
  expect_identical(
    substr("AAAATTGAAA", got$start, got$end), "ATTG"
  )
  # k = 0: nothing.
  expect_identical(nrow(sassy_search("AAAATTGAAA", "ATCG", k = 0, alphabet = "dna")), 0L)
})

test_that("sassy's own documented example, both strands", {
  # CCC[ATCA]CCC on +: 3=1X. On -: CC[CCAT]... reverse complemented ATGG:
  # A=A T=T C/G G=G. Rows are ordered by start, so the - hit comes first.
  expected <- expected_hits(
    record = 1, pattern = 1, start = c(2, 4), end = c(5, 7),
    pattern_end = 4, cost = 1, strand = c("-", "+"),
    cigar = c("2=1X1=", "3=1X")
  )
  expect_identical(sassy_search("CCCATCACCC", "ATCG", k = 1, alphabet = "dna"), expected)
  expect_identical(sassy_search("CCCATCACCC", "ATCG", k = 1, alphabet = "iupac"), expected)
  # The end cost is 1 at both 6 (ATC + missing G) and 7 (ATCA): only the
  # rightmost end of the plateau is reported.
  expect_identical(
    sassy_search("CCCATCACCC", "ATCG", k = 1, alphabet = "dna", rc = FALSE),
    expected_hits(
      record = 1, pattern = 1, start = 4, end = 7, pattern_end = 4,
      cost = 1, strand = "+", cigar = "3=1X"
    )
  )
})

test_that("a hit on the - strand only", {
  # AACCG is the reverse complement of CGGTT = text[3..7].
  text <- "TTCGGTTTTT"
  got <- sassy_search(text, "AACCG", alphabet = "dna")
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = 3, end = 7, pattern_end = 5,
    cost = 0, strand = "-", cigar = "5="
  ))
  expect_identical(substr(text, 3, 7), "CGGTT")
  expect_identical(nrow(sassy_search(text, "AACCG", alphabet = "dna", rc = FALSE)), 0L)
})

test_that("an extra text letter is a deletion (D)", {
  # CC[GATTTACA]CC against GATTACA: G A, then the first T of TTT is extra.
  got <- sassy_search("CCGATTTACACC", "GATTACA", k = 1, alphabet = "dna")
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = 3, end = 10, pattern_end = 7,
    cost = 1, strand = "+", cigar = "2=1D5="
  ))
})

test_that("a missing text letter is an insertion (I)", {
  # CC[GATACA]CC against GATTACA: one T of the pattern is not in the text.
  got <- sassy_search("CCGATACACC", "GATTACA", k = 1, alphabet = "dna")
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = 3, end = 8, pattern_end = 7,
    cost = 1, strand = "+", cigar = "2=1I4="
  ))
})

test_that("IUPAC codes match on both strands", {
  # GRAT (R = A/G) matches GGAT = text[3..6]; the reverse complement of
  # text[5..8] = ATCC is GGAT too.
  got <- sassy_search("TTGGATCC", "GRAT", alphabet = "iupac")
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = c(3, 5), end = c(6, 8), pattern_end = 4,
    cost = 0, strand = c("+", "-"), cigar = "4="
  ))
  # iupac is the default alphabet.
  expect_identical(sassy_search("TTGGATCC", "GRAT"), got)
  # N in the pattern matches any base.
  got <- sassy_search("TTGGATCC", "GNAT", rc = FALSE)
  expect_identical(got$start, 3L)
  expect_identical(got$cigar, "4=")
})

test_that("ASCII text, exact and ignoring case", {
  # say [hallo] world: h=h, a/e, l l o.
  text <- "say hallo world"
  expected <- expected_hits(
    record = 1, pattern = 1, start = 5, end = 9, pattern_end = 5,
    cost = 1, strand = "+", cigar = "1=1X3="
  )
  expect_identical(sassy_search(text, "hello", k = 1, alphabet = "ascii"), expected)
  expect_identical(nrow(sassy_search(text, "HELLO", k = 1, alphabet = "ascii")), 0L)
  expect_identical(
    sassy_search(text, "HELLO", k = 1, alphabet = "ascii", ignore_case = TRUE),
    expected
  )
})

test_that("a palindromic site hits both strands; rows are ordered", {
  # ACG in ACGTACGT: + at 1..3 and 5..7; the text is its own reverse
  # complement, so - at 2..4 and 6..8 (CGT reverse complemented is ACG).
  got <- sassy_search("ACGTACGT", "ACG", alphabet = "dna")
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = c(1, 2, 5, 6), end = c(3, 4, 7, 8),
    pattern_end = 3, cost = 0, strand = c("+", "-", "+", "-"), cigar = "3="
  ))
})

test_that("all_endpoints reports every end position with cost <= k", {
  # End costs of ABC in XXXABCXXX are 3 3 3 3 2 1 0 1 2 3 (positions 0..9).
  got <- sassy_search("XXXABCXXX", "ABC", k = 1, alphabet = "ascii", all_endpoints = TRUE)
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = 4, end = c(5, 6, 7), pattern_end = 3,
    cost = c(1, 0, 1), strand = "+", cigar = c("2=1I", "3=", "3=1D")
  ))
  got <- sassy_search("XXXABCXXX", "ABC", k = 1, alphabet = "ascii")
  expect_identical(got$end, 6L)
  # TTT in TTTT: cost 0 at ends 3 and 4; by default only the rightmost.
  expect_identical(sassy_search("TTTT", "TTT", alphabet = "dna", rc = FALSE)$start, 2L)
  expect_identical(
    sassy_search("TTTT", "TTT", alphabet = "dna", rc = FALSE, all_endpoints = TRUE)$start,
    c(1L, 2L)
  )
})

test_that("several texts and patterns: indices, names and order", {
  texts <- c(a = "ACGTACGT", b = "TTTT", c = "GGGG")
  patterns <- c("TTT", "ACG")
  got <- sassy_search(texts, patterns, alphabet = "dna", rc = FALSE)
  # named texts: the hit table carries the lengths of those with hits
  expect_identical(got, structure(expected_hits(
    record = c(1, 1, 2), name = c("a", "a", "b"), pattern = c(2, 2, 1),
    start = c(1, 5, 2), end = c(3, 7, 4), pattern_end = 3, cost = 0,
    strand = "+", cigar = "3="
  ), seqlengths = c(a = 8, b = 4)))
  expect_identical(names(got), c("record", "name", hit_column_names[-1]))
  # Without names there is no name column.
  got2 <- sassy_search(unname(texts), patterns, alphabet = "dna", rc = FALSE)
  expect_identical(names(got2), hit_column_names)
  expect_identical(got2, got[names(got) != "name"])
})

test_that("cigar = FALSE keeps coordinates and costs, NA cigars", {
  with <- sassy_search("CCCATCACCC", "ATCG", k = 1, alphabet = "dna")
  without <- sassy_search("CCCATCACCC", "ATCG", k = 1, alphabet = "dna", cigar = FALSE)
  expect_identical(without$cigar, c(NA_character_, NA_character_))
  expect_identical(without[names(without) != "cigar"], with[names(with) != "cigar"])
})

test_that("overhang lets the pattern hang over the text ends", {
  # ACGT against GTTTTTTT with alpha = 0.5: A and C hang over the start
  # (cost floor(0.5 * 2) = 1), GT matches text[1..2]; pattern positions 3..4.
  got <- sassy_search("GTTTTTTT", "ACGT", k = 1, overhang = 0.5, rc = FALSE)
  expect_identical(got, expected_hits(
    record = 1, pattern = 1, start = 1, end = 2, pattern_start = 3,
    pattern_end = 4, cost = 1, strand = "+", cigar = "2="
  ))
  # Without overhang there is no hit with k = 1.
  expect_identical(nrow(sassy_search("GTTTTTTT", "ACGT", k = 1, rc = FALSE)), 0L)
})

test_that("max_n_frac drops hits that are mostly N", {
  # ACGT matches NNNN (end 6) and NNNT (end 7) at cost 0 in iupac; the
  # rightmost end of the plateau is reported: NNNT, 3/4 N.
  expect_identical(sassy_search("TTNNNNTT", "ACGT", rc = FALSE)$start, 4L)
  expect_identical(nrow(sassy_search("TTNNNNTT", "ACGT", rc = FALSE, max_n_frac = 0.5)), 0L)
  expect_identical(sassy_search("TTACGTTT", "ACGT", rc = FALSE, max_n_frac = 0)$start, 3L)
})

test_that("the result is a plain data frame with the documented types", {
  got <- sassy_search(c("ACGA", NA, ""), "ACG", alphabet = "dna")
  expect_s3_class(got, "data.frame", exact = TRUE)
  expect_identical(names(got), hit_column_names)
  expect_identical(
    vapply(got, typeof, ""),
    c(
      record = "integer", pattern = "integer", start = "integer", end = "integer",
      pattern_start = "integer", pattern_end = "integer", cost = "integer",
      strand = "character", cigar = "character"
    )
  )
  expect_identical(got$record, 1L)
  expect_identical(.row_names_info(got), -1L)
})

test_that("threads and the option give the same answer", {
  withr::local_options(ducksassy.threads = 1L)
  a <- sassy_search("CCCATCACCC", "ATCG", k = 1)
  withr::local_options(ducksassy.threads = 3L)
  b <- sassy_search("CCCATCACCC", "ATCG", k = 1)
  expect_identical(a, b)
})
