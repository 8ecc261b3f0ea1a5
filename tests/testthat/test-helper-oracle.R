# The brute-force oracle (helper-oracle.R) checked on cases worked out by
# hand; these tests do not call the package, so a wrong oracle cannot hide a
# wrong package.

test_that("end costs match the hand-filled DP table", {
  # ABC in XXXABCXXX: "333210123" after every character (sassy's docs),
  # plus D[3, 0] = 3 at position 0.
  expect_identical(
    oracle_end_costs("ABC", "XXXABCXXX", "ascii"),
    c(3L, 3L, 3L, 3L, 2L, 1L, 0L, 1L, 2L, 3L)
  )
  # ATCG in AAAATTGAAA, filled by hand row by row:
  #   A: 1 0 0 0 0 1 1 1 0 0 0
  #   T: 2 1 1 1 1 0 1 2 1 1 1
  #   C: 3 2 2 2 2 1 1 2 2 2 2
  #   G: 4 3 3 3 3 2 2 1 2 3 3
  expect_identical(
    oracle_end_costs("ATCG", "AAAATTGAAA", "dna"),
    c(4L, 3L, 3L, 3L, 3L, 2L, 2L, 1L, 2L, 3L, 3L)
  )
  # Empty text: only position 0, cost m.
  expect_identical(oracle_end_costs("ACG", "", "dna"), 3L)
  # Text shorter than the pattern: "AC" then a missing G.
  expect_identical(oracle_end_costs("ACG", "AC", "dna"), c(3L, 2L, 1L))
  # Insertion and deletion: GATTACA in GATTTACA and GATACA, cost 1 each.
  expect_identical(min(oracle_end_costs("GATTACA", "CCGATTTACACC", "dna")), 1L)
  expect_identical(which.min(oracle_end_costs("GATTACA", "CCGATTTACACC", "dna")) - 1L, 10L)
  expect_identical(min(oracle_end_costs("GATTACA", "CCGATACACC", "dna")), 1L)
  expect_identical(which.min(oracle_end_costs("GATTACA", "CCGATACACC", "dna")) - 1L, 8L)
})

test_that("letters match per alphabet", {
  expect_true(oracle_letters_match("a", "A", "dna"))
  expect_false(oracle_letters_match("A", "C", "dna"))
  # IUPAC: sets intersect.
  expect_true(oracle_letters_match("R", "A", "iupac"))
  expect_true(oracle_letters_match("R", "g", "iupac"))
  expect_false(oracle_letters_match("R", "C", "iupac"))
  expect_true(oracle_letters_match("R", "S", "iupac")) # {A,G} and {C,G}
  expect_false(oracle_letters_match("R", "Y", "iupac")) # {A,G} and {C,T}
  expect_true(oracle_letters_match("N", "T", "iupac"))
  expect_true(oracle_letters_match("U", "T", "iupac"))
  expect_true(oracle_letters_match("u", "W", "iupac"))
  expect_false(oracle_letters_match("X", "N", "iupac"))
  # ASCII.
  expect_false(oracle_letters_match("a", "A", "ascii"))
  expect_true(oracle_letters_match("a", "A", "ascii", ignore_case = TRUE))
  expect_false(oracle_letters_match("[", "{", "ascii", ignore_case = TRUE))
  expect_true(oracle_letters_match("N", "N", "ascii"))
  expect_false(oracle_letters_match("N", "A", "ascii"))
  # IUPAC end costs: GRAT matches GGAT exactly, ending at 6.
  expect_identical(oracle_end_costs("GRAT", "TTGGATCC", "iupac")[7L], 0L)
  expect_error(oracle_end_costs("ACN", "ACGT", "dna"), "not in the dna")
})

test_that("reverse complement is hand-checked", {
  # complement of ACGTRYKMBVDHNU is TGCAYRMKVBHDNA; reversed:
  expect_identical(oracle_revcomp("ACGTRYKMBVDHNU"), "ANDHBVKMRYACGT")
  expect_identical(oracle_revcomp("acgT"), "Acgt")
  expect_identical(oracle_revcomp("AAAATTGAAA"), "TTTCAATTTT")
  expect_identical(oracle_revcomp(""), "")
})

test_that("contains and all-endpoint counts per strand", {
  # + strand: cost 1 at end 7 only; - strand (TTTCAATTTT) has no cost <= 1.
  expect_true(oracle_contains("ATCG", "AAAATTGAAA", 1L, "dna"))
  expect_false(oracle_contains("ATCG", "AAAATTGAAA", 0L, "dna"))
  expect_identical(min(oracle_end_costs("ATCG", "TTTCAATTTT", "dna")), 2L)
  expect_identical(oracle_count_all_endpoints("ATCG", "AAAATTGAAA", 1L, "dna"), 1L)
  expect_identical(oracle_count_all_endpoints("ATCG", "AAAATTGAAA", 2L, "dna", rc = FALSE), 4L)
  # ABC in XXXABCXXX with k = 1: ends 5, 6, 7.
  expect_identical(oracle_count_all_endpoints("ABC", "XXXABCXXX", 1L, "ascii"), 3L)
  # Only on the - strand: AACCG is the reverse complement of CGGTT.
  expect_false(oracle_contains("AACCG", "TTCGGTTTTT", 0L, "dna", rc = FALSE))
  expect_true(oracle_contains("AACCG", "TTCGGTTTTT", 0L, "dna", rc = TRUE))
  expect_identical(oracle_count_all_endpoints("AACCG", "TTCGGTTTTT", 0L, "dna"), 1L)
  expect_identical(oracle_contains("ACG", NA_character_, 0L), NA)
  expect_identical(oracle_count_all_endpoints("ACG", NA_character_, 0L), NA_integer_)
})

test_that("local minima follow sassy's rightmost-minimum rule", {
  expect_identical(oracle_local_minima(c(3L, 3L, 3L, 3L, 2L, 1L, 0L, 1L, 2L, 3L), 1L), 6L)
  # A plateau reports its rightmost end.
  expect_identical(oracle_local_minima(c(3L, 2L, 1L, 1L, 2L), 1L), 3L)
  # Still decreasing at the end of the text: the last position.
  expect_identical(oracle_local_minima(c(3L, 2L, 1L), 1L), 2L)
  # Two separate minima.
  expect_identical(oracle_local_minima(c(2L, 1L, 0L, 1L, 2L, 1L, 2L), 1L), c(2L, 5L))
  # Nothing below k.
  expect_identical(oracle_local_minima(c(3L, 2L, 3L), 1L), integer())
  expect_identical(oracle_local_minima(3L, 1L), integer())

  # Hits of AACCG in TTCGGTTTTT: one on "-", anchored at forward start 3.
  h <- oracle_hits("AACCG", "TTCGGTTTTT", 0L, "dna")
  expect_identical(h$strand, "-")
  expect_identical(h$anchor, 3L)
  expect_identical(h$cost, 0L)
})

test_that("CIGARs are applied and costed", {
  expect_identical(cigar_cost("2=1X1="), 1L)
  expect_identical(cigar_cost("2=1D5="), 1L)
  expect_identical(cigar_cost("10=2I3X"), 5L)
  expect_true(cigar_apply("ATCG", "ATTG", "2=1X1="))
  expect_match(cigar_apply("ATCG", "ATTG", "4="), "differ")
  expect_match(cigar_apply("ATCG", "ATCG", "3=1X"), "match")
  expect_true(cigar_apply("GATTACA", "GATTTACA", "2=1D5="))
  expect_true(cigar_apply("GATTACA", "GATACA", "2=1I4="))
  expect_match(cigar_apply("GATTACA", "GATACA", "7="), "runs past|differ")
  expect_match(cigar_apply("ACGT", "ACGTA", "4="), "uses 4 of 4 pattern letters and 4 of 5")
  expect_match(cigar_apply("ACGT", "ACGT", "4Q"), "malformed")
  expect_match(cigar_apply("ACGT", "ACGT", NA_character_), "malformed")
  # The empty alignment: nothing aligned, nothing left over.
  expect_true(cigar_apply("", "", ""))
  expect_identical(cigar_cost(""), 0L)
  expect_match(cigar_apply("A", "", ""), "uses 0 of 1 pattern letters")
  # IUPAC: R = A is a match, N = anything.
  expect_true(cigar_apply("GRAT", "GGAT", "4=", "iupac"))
  expect_match(cigar_apply("GRAT", "GCAT", "4=", "iupac"), "differ")
  expect_true(cigar_apply("hello", "HALLO", "1=1X3=", "ascii", ignore_case = TRUE))
  # sassy's documented - strand example: CCAT reverse complemented is ATGG.
  expect_true(cigar_apply("ATCG", oracle_revcomp("CCAT"), "2=1X1="))
})

test_that("oracle: overhang at the right end goes as far as at the left end (#17)", {
  # "ACGT" in "CCCCCCAC", alpha 0.1: positions 0..12; past the end (9..12)
  # the pattern's last o letters hang over: o = 2 ("AC|GT") and o = 4 (the
  # whole pattern) cost floor(0.1 * o) = 0, o = 1 and o = 3 need an edit
  cost <- oracle_end_costs("ACGT", "CCCCCCAC", "iupac", overhang = 0.1, k = 0L)
  expect_length(cost, 13L)
  expect_identical(cost[10:13], c(1L, 0L, 1L, 0L))
  # and the mirror image at the left end: "GT" after "AC" hanging over
  left <- oracle_end_costs("ACGT", "GTCCCCCC", "iupac", overhang = 0.1, k = 0L)
  expect_identical(left[1:3], c(0L, 1L, 0L))
})

test_that("oracle: Hamming placements by hand", {
  # "ACGT" in "ACGGT": ACGG has 1 mismatch, CGGT 3; on "-" (ACCGT) CCGT has 1
  # and lies on forward 1..4
  o <- oracle_hamming_hits("ACGT", "ACGGT", 1L)
  expect_identical(o$strand, c("+", "-"))
  expect_identical(o$start, c(1L, 1L))
  expect_identical(o$end, c(4L, 4L))
  expect_identical(o$cost, c(1L, 1L))
  # N matches everything; the filter drops the window with half N
  expect_identical(nrow(oracle_hamming_hits("ACGT", "ANNT", 0L, "iupac", rc = FALSE)), 1L)
  expect_identical(nrow(oracle_hamming_hits("ACGT", "ANNT", 0L, "iupac", rc = FALSE, max_n_frac = 0.25)), 0L)
  # a PAM must match: "AC" + PAM "GG" against "ACGT" fails, "ACGG" passes
  expect_identical(nrow(oracle_hamming_hits("ACGG", "ACGT", 1L, "iupac", FALSE, pam = 2L)), 0L)
  expect_identical(nrow(oracle_hamming_hits("ACGG", "TCGG", 1L, "iupac", FALSE, pam = 2L)), 1L)
  expect_identical(nrow(oracle_hamming_hits("ACGG", "ACGT", 1L, "iupac", FALSE, pam = 2L, pam_edits = TRUE)), 1L)
})
