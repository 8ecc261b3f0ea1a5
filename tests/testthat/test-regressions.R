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
