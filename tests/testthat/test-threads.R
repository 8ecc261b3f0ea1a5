# The same input gives the identical result on 1, 2 and 8 threads, through
# every path: one pattern, many mixed-length patterns, many equal-length
# patterns (batched), counts and contains.

test_that("hits, counts and contains do not depend on the thread count", {
  set.seed(42)
  dna <- c("A", "C", "G", "T")
  texts <- random_seqs(3000L, 0L, 250L, dna)
  texts[sample(3000L, 30L)] <- NA
  equal <- random_seqs(40L, 16L, 16L, dna)
  mixed <- c(random_seqs(6L, 8L, 30L, dna), "ACGTACGTAC")
  texts <- oracle_plant(texts, c(equal, mixed), dna)
  names(texts) <- paste0("read", seq_along(texts))

  for (patterns in list(equal, mixed, c(equal, mixed), equal[1L])) {
    for (all_endpoints in c(FALSE, TRUE)) {
      runs <- lapply(c(1L, 2L, 8L), function(threads) {
        sassy_search(texts, patterns, k = 2L, all_endpoints = all_endpoints, threads = threads)
      })
      expect_gt(nrow(runs[[1L]]), 0L)
      expect_identical(runs[[2L]], runs[[1L]])
      expect_identical(runs[[3L]], runs[[1L]])
      expect_identical(runs[[1L]], order_hits(runs[[1L]]))
    }
    counts <- lapply(c(1L, 2L, 8L), function(threads) sassy_count(texts, patterns, k = 2L, threads = threads))
    expect_identical(counts[[2L]], counts[[1L]])
    expect_identical(counts[[3L]], counts[[1L]])
    contains <- lapply(c(1L, 2L, 8L), function(threads) sassy_contains(texts, patterns, k = 2L, threads = threads))
    expect_identical(contains[[2L]], contains[[1L]])
    expect_identical(contains[[3L]], contains[[1L]])
  }
})

test_that("batched equal-length patterns give the same hits as one by one", {
  set.seed(7)
  dna <- c("A", "C", "G", "T")
  texts <- random_seqs(300L, 0L, 200L, dna)
  patterns <- random_seqs(24L, 12L, 12L, dna)
  patterns[5L] <- patterns[2L] # a duplicate pattern
  texts <- oracle_plant(texts, patterns, dna)
  for (rc in c(TRUE, FALSE)) {
    together <- sassy_search(texts, patterns, k = 2L, alphabet = "dna", rc = rc, threads = 2L)
    one_by_one <- do.call(rbind, lapply(seq_along(patterns), function(p) {
      h <- sassy_search(texts, patterns[p], k = 2L, alphabet = "dna", rc = rc, threads = 2L)
      h$pattern <- rep(p, nrow(h))
      h
    }))
    expect_identical(together, order_hits(one_by_one))
    expect_identical(
      together[together$pattern == 5L, -2L],
      `rownames<-`(together[together$pattern == 2L, -2L], which(together$pattern == 5L))
    )
  }
})

test_that("a long text split over lanes gives the same hits on any thread count", {
  set.seed(9)
  dna <- c("A", "C", "G", "T")
  long <- random_seqs(4L, 20000L, 50000L, dna)
  patterns <- random_seqs(8L, 12L, 12L, dna)
  long <- vapply(long, function(t) {
    for (i in 1:50) {
      pos <- sample(nchar(t) - 20L, 1L)
      substr(t, pos, pos + 11L) <- sample(patterns, 1L)
    }
    t
  }, "", USE.NAMES = FALSE)
  a <- sassy_search(long, patterns, k = 1L, threads = 1L)
  b <- sassy_search(long, patterns, k = 1L, threads = 8L)
  expect_gte(nrow(a), 200L)
  expect_identical(a, b)
})

test_that("sassy_threads() reads the option, then the variable, then the cores", {
  withr::local_envvar(`_R_CHECK_LIMIT_CORES_` = "", DUCKSASSY_THREADS = "")
  withr::local_options(ducksassy.threads = NULL)
  cores <- parallel::detectCores()
  expect_identical(sassy_threads(), if (is.na(cores)) 1L else min(as.integer(cores), 1024L))

  withr::local_envvar(DUCKSASSY_THREADS = "3")
  expect_identical(sassy_threads(), 3L)

  withr::local_options(ducksassy.threads = 5)
  expect_identical(sassy_threads(), 5L)
})

test_that("sassy_threads() is capped at 2 under R CMD check", {
  withr::local_options(ducksassy.threads = NULL)
  withr::local_envvar(DUCKSASSY_THREADS = "16", `_R_CHECK_LIMIT_CORES_` = "TRUE")
  expect_identical(sassy_threads(), 2L)
  withr::local_envvar(`_R_CHECK_LIMIT_CORES_` = "false")
  expect_identical(sassy_threads(), 16L)
  withr::local_envvar(`_R_CHECK_LIMIT_CORES_` = "warn")
  expect_identical(sassy_threads(), 2L)
  withr::local_envvar(DUCKSASSY_THREADS = "1")
  expect_identical(sassy_threads(), 1L)
})

test_that("sassy_threads() rejects bad settings with a classed error", {
  withr::local_envvar(`_R_CHECK_LIMIT_CORES_` = "")
  withr::local_options(ducksassy.threads = 0)
  expect_error(sassy_threads(), class = "ducksassy_input_error")
  expect_error(sassy_threads(), "ducksassy.threads")
  withr::local_options(ducksassy.threads = NULL)
  withr::local_envvar(DUCKSASSY_THREADS = "many")
  expect_error(sassy_threads(), class = "ducksassy_input_error")
  expect_error(sassy_threads(), "DUCKSASSY_THREADS")
  expect_error(sassy_search("ACGT", "ACG"), class = "ducksassy_input_error")
  # An explicit argument does not consult the variable.
  expect_identical(nrow(sassy_search("ACGT", "ACG", threads = 1L, rc = FALSE)), 1L)
})
