# The plan: the one value the search entry points of the binding take
# (R/plan.R, read by name in src/rust/src/plan.rs).

test_that("new_plan() holds every option by name, absent values as NULL", {
  p <- new_plan("ACGT", 1L)
  expect_s3_class(p, "ducksassy_plan")
  expect_named(p, c(
    "patterns", "k", "alphabet", "ignore_case", "rc", "all_endpoints",
    "overhang", "max_n_frac", "cigar", "threads", "mode", "max_hits",
    "indels", "pam_length", "allow_pam_edits", "ends", "margin", "samples",
    "barcode_from", "barcode_to", "halves"
  ))
  expect_null(p$overhang)
  expect_null(p$samples)
  expect_null(p$halves)
  # an assignment's plan: the 0-based sample of each pattern (its first
  # pattern of the same name)
  args <- new_search_plan(character(), c(a = "ACGT", b = "TTTT", a = "GGGG", "CCCC"), 1L,
    "dna", TRUE, FALSE, NULL, NULL, FALSE, FALSE, 1L)
  expect_identical(as_plan(args, "assign")$samples, c(0L, 1L, 0L, 3L))
  expect_null(as_plan(args, "count")$samples)
  expect_null(p$max_hits)
  # the stand-ins of "not set" of older code become NULL
  p <- new_plan("ACGT", 1L, overhang = NA_real_, max_n_frac = NaN, max_hits = NA)
  expect_null(p$overhang)
  expect_null(p$max_n_frac)
  expect_null(p$max_hits)
  expect_identical(new_plan("ACGT", 1L, overhang = 0.5)$overhang, 0.5)
})

test_that("as_plan() turns checked search and CRISPR arguments into plans", {
  args <- new_search_plan(c(a = "ACGTACGT"), "ACGT", 1L, "dna", NULL, FALSE,
    NULL, 0.1, FALSE, TRUE, 2L)
  p <- as_plan(args, "count", 10)
  expect_identical(p$patterns, "ACGT")
  expect_identical(p$alphabet, "dna")
  expect_identical(p$mode, "count")
  expect_identical(p$max_hits, 10)
  expect_identical(p$max_n_frac, 0.1)
  expect_null(p$pam_length)
  expect_null(ds_check_plan(p))
  cargs <- new_crispr_plan("ACGTACGTNGG", 2L, 3L, FALSE, 0.2, TRUE, TRUE, 1L)
  p <- as_plan(cargs, max_hits = 5)
  expect_identical(p$patterns, "ACGTACGTNGG")
  expect_identical(p$pam_length, 3L)
  expect_true(p$all_endpoints)
  expect_identical(p$mode, "hits")
  expect_null(ds_check_plan(p))
})

test_that("the binding reads the plan by name: the same hits as the user function", {
  texts <- c("AAAATTGAAA", "CCCATCACCC")
  want <- sassy_search(texts, "ATCG", k = 1L)
  res <- ds_search(texts, new_plan("ATCG", 1L), NULL, NULL)
  expect_identical(res$start, want$start)
  expect_identical(res$cost, want$cost)
  expect_identical(res$strand, want$strand)
  counts <- ds_search(texts, new_plan("ATCG", 1L, mode = "count"), NULL, NULL)
  expect_identical(counts, as.vector(sassy_count(texts, "ATCG", k = 1L)))
  # field order does not matter; a missing field is a bug, named
  p <- new_plan("ATCG", 1L)
  expect_identical(ds_search(texts, rev(unclass(p)), NULL, NULL)$start, want$start)
  res <- ds_search(texts, unclass(p)[names(p) != "indels"], NULL, NULL)
  expect_identical(res$kind, "internal")
  expect_match(res$message, "indels", fixed = TRUE)
})

test_that("the domain rules are the core's, checked once when the plan is made", {
  # R checks only the shape of k; the core finds it too large for pattern 2
  cnd <- tryCatch(new_search_plan("ACGTACGT", c("ACGTA", "ACG"), 3L, "iupac",
    NULL, FALSE, NULL, NULL, FALSE, TRUE, 1L), error = identity)
  expect_s3_class(cnd, "ducksassy_input_error")
  expect_identical(cnd$arg, "k")
  expect_identical(cnd$index, 2L)
  err <- ds_check_plan(new_plan(c("ACGTA", "ACG", "AC"), 3L))
  expect_identical(err$kind, "invalid_argument")
  expect_identical(err$rule, "below_length")
  expect_identical(err$of_index, 2L)
  expect_identical(err$more, 3)
  expect_identical(err$seq, "ACG")
})

test_that("new_read_options() gives NULL for the defaults", {
  r <- new_read_options()
  expect_null(r$batch_bytes)
  expect_null(r$n_records)
  expect_identical(r$skip, 0)
  expect_false(r$region)
  r <- new_read_options(c(bytes = 4e5, records = NaN), 10, NaN, TRUE)
  expect_identical(r$batch_bytes, 4e5)
  expect_null(r$batch_records)
  expect_identical(r$skip, 10)
  expect_null(r$n_records)
  expect_true(r$region)
})
