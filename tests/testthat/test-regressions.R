# Regression tests: one test per bug found, named after the bug (issue or
# report number and a short description), with the smallest input that
# showed it and a comment saying what went wrong and what is expected:
#
#   test_that("#12: - strand hit lost at a 64-letter block border", {
#     # got no hit, expected start 60, end 71 on "-"
#     ...
#   })
#
# Tests are added here when a bug is fixed and never removed.

test_that("#7: X in a pattern with overhang failed sassy's traceback (internal error); now an input error", {
  # got "internal error in ducksassy: ... Remaining cost after the trace must
  # be 0" for pattern "CX", k = 1, overhang = 0.5 (sassy pads the text ends
  # with N, which X does not match); expected a classed input error
  cnd <- tryCatch(sassy_search("", "CX", k = 1L, overhang = 0.5), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_input_error")
  expect_match(conditionMessage(cnd), "X", fixed = TRUE)
  # without overhang X is a valid (never matching) letter
  expect_identical(sassy_count("CA", "CX", k = 1L, rc = FALSE), 1L)
})

test_that("#7: a count matrix larger than memory aborted the process; now a limit error", {
  # 200,000 texts x 100,000 patterns = 2e10 cells (80 GB in native code):
  # the allocation failed and Rust aborted, killing R; expected an error
  cnd <- tryCatch(sassy_count(rep("ACGT", 2e5), rep("ACGTACGT", 1e5)), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_limit_error")
  expect_match(conditionMessage(cnd), "100,000 patterns", fixed = TRUE)
  expect_s3_class(
    tryCatch(sassy_contains(rep("ACGT", 2e5), rep("ACGTACGT", 1e5)), error = function(e) e),
    "ducksassy_limit_error"
  )
})

test_that("#7: the default hit limit was .Machine$integer.max, more hits than memory holds", {
  # a search holds about 140 bytes per hit at its peak: 2^31 hits is ~300 GB,
  # so the limit never fired before the system killed R; expected a default
  # that fits in this machine's memory
  withr::local_options(ducksassy.max_hits = NULL)
  ram <- physical_memory_bytes()
  skip_if(is.na(ram), "RAM size unknown here")
  expect_lte(max_hits_option(), ram / 256)
})

test_that("#7: the limit error did not say how to keep every hit", {
  # got "The search found more than 2 hits (the `max_hits` limit)"; expected
  # the way to stream the hits to a table instead
  withr::local_options(ducksassy.max_hits = 2)
  cnd <- tryCatch(sassy_search(rep("ACGTTTACGT", 2), "ACGT", rc = FALSE), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_limit_error")
  expect_match(conditionMessage(cnd), "sassy_search_table(con, table, patterns, output = \"hits\")", fixed = TRUE)
})

test_that("#17: overhang at the right end of a text was capped, so hits were missed", {
  # sassy lets the pattern hang over the right end by at most
  # ceiling((k + alpha) / alpha) letters (1 here) and over the left end by
  # any number: the left text had the hit "AC|GT" (cost floor(0.1 * 2) = 0),
  # its mirror image "CCCCCCAC|GT" on the right was missing
  hits <- sassy_search(c(left = "GTCCCCCC", right = "CCCCCCAC"), "ACGT",
    k = 0, overhang = 0.1, rc = FALSE
  )
  part <- hits[hits$pattern_start <= hits$pattern_end, ]
  expect_identical(part$name, c("left", "right"))
  expect_identical(part$start, c(1L, 7L))
  expect_identical(part$end, c(2L, 8L))
  expect_identical(part$pattern_start, c(3L, 1L))
  expect_identical(part$pattern_end, c(4L, 2L))
  expect_identical(part$cost, c(0L, 0L))
  expect_identical(part$cigar, c("2=", "2="))
  # alpha = 0, k = 0: sassy allowed no right overhang at all
  hits <- sassy_search("TTTTAC", "ACGT", k = 0, overhang = 0, rc = FALSE, all_endpoints = TRUE)
  right <- hits[hits$pattern_end < 4L, ]
  expect_identical(right$pattern_end, c(2L, 0L))
  expect_identical(right$end, c(6L, 6L))
  # whatever may hang over the left end may hang over the right end: "GT"
  # over the end costs floor(2 * alpha) = 0 for every alpha < 0.5 (sassy's
  # cap is 1 letter for alpha > 0 at k = 0)
  for (alpha in c(0, 0.125, 0.25, 0.375)) {
    l <- sassy_search("GTCCCCCC", "ACGT", k = 0, overhang = alpha, rc = FALSE)
    r <- sassy_search("CCCCCCAC", "ACGT", k = 0, overhang = alpha, rc = FALSE)
    expect_true(any(l$pattern_start == 3L & l$end == 2L), info = paste("alpha", alpha))
    expect_true(any(r$pattern_end == 2L & r$start == 7L), info = paste("alpha", alpha))
  }
})

test_that("#17: indels = FALSE gives exactly the substitution-only (Hamming) hits", {
  # Biostrings' with.indels = FALSE: every placement of the whole pattern
  # with at most k mismatches; the edit search finds "ACGT" in "ACGGT" with
  # one deletion, the Hamming search does not
  expect_identical(sassy_count("ACGGT", "ACGT", k = 1, rc = FALSE), 1L)
  expect_identical(sassy_count("ACGGT", "ACGT", k = 1, rc = FALSE, indels = FALSE), 1L)
  h <- sassy_search("ACGGT", "ACGT", k = 1, rc = FALSE, indels = FALSE)
  # placements 1..4 (ACGG, 1 mismatch) and 2..5 (CGGT, 3): only the first
  expect_identical(h$start, 1L)
  expect_identical(h$end, 4L)
  expect_identical(h$cost, 1L)
  expect_identical(h$cigar, "3=1X")
  # every placement is a hit, not only local minima
  h <- sassy_search("AAAAAA", "AAA", k = 1, rc = FALSE, indels = FALSE)
  expect_identical(h$start, 1:4)
  expect_identical(h$cost, rep(0L, 4))
  expect_identical(
    sassy_search("AAAAAA", "AAA", k = 1, rc = FALSE, indels = FALSE, all_endpoints = TRUE), h
  )
  # overhang has no meaning without indels
  expect_error(
    sassy_search("ACGT", "ACG", overhang = 0.5, indels = FALSE),
    class = "ducksassy_input_error"
  )
  expect_error(sassy_search("ACGT", "ACG", indels = NA), class = "ducksassy_input_error")
})
