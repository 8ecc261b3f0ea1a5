# Load: many successive calls keep resident memory flat (nothing leaks per
# call, in the binding, the engine, its pools and buffers, or the R layer),
# and several R processes can search one DuckDB file at the same time.
# Memory is measured in a subprocess, away from testthat's own allocations.

# Runs in the subprocess: `warmup` calls of `f(i)`, then `n` more, with the
# resident memory (MiB, from /proc/self/status, after gc()) every `every`
# calls.
rss_over_calls <- function(setup, f, warmup, n, every) {
  suppressPackageStartupMessages(library(ducksassy))
  rss <- function() {
    invisible(gc())
    x <- grep("^VmRSS:", readLines("/proc/self/status"), value = TRUE)
    as.numeric(gsub("[^0-9]", "", x)) / 1024
  }
  env <- new.env(parent = globalenv())
  eval(setup, env)
  environment(f) <- env
  start <- rss()
  warm <- end <- numeric()
  for (i in seq_len(warmup)) {
    f(i)
    if (i %% every == 0L) warm <- c(warm, rss())
  }
  for (i in warmup + seq_len(n)) {
    f(i)
    if (i %% every == 0L) end <- c(end, rss())
  }
  list(start = start, warm = warm, end = end)
}

# Flat: the highest RSS at the last three checkpoints is within 10% of the
# highest during the warm-up. (The allocator keeps freed pages for reuse, so
# single readings go up and down with what the last call freed.)
expect_flat_rss <- function(r, what) {
  warm <- max(r$warm)
  end <- max(utils::tail(r$end, 3L))
  expect_lt(end, 1.1 * warm,
    label = sprintf(
      "%s: RSS %.1f MiB at the start, at most %.1f after the warm-up, %.1f at the end (checkpoints: %s)",
      what, r$start, warm, end, paste(round(r$end), collapse = " ")
    )
  )
}

run_rss_over_calls <- function(setup, f, warmup, n, every) {
  callr::r(rss_over_calls,
    args = list(setup = setup, f = f, warmup = warmup, n = n, every = every),
    libpath = .libPaths(),
    env = c(callr::rcmd_safe_env(), DUCKSASSY_THREADS = "2"),
    timeout = 300
  )
}

test_that("10,000 successive small calls keep resident memory flat", {
  skip_on_cran()
  skip_if_not(file.exists("/proc/self/status"), "needs /proc (Linux)")
  skip_if_not_installed("callr")
  setup <- quote({
    texts <- c(r1 = "AAAATTGAAA", r2 = "CCCATCACCC", r3 = NA, r4 = "", r5 = "GGATCGGGATTACAGG")
    patterns <- c(p1 = "ATCG", p2 = "GATTACA", p3 = "ACGT", p4 = "TTTT")
  })
  # every mode, both thread counts, overhang, ascii, and (less often: a
  # classed error takes cli a few ms) the error path
  f <- function(i) {
    threads <- 1L + (i %% 2L)
    if (i %% 50L == 0L) {
      return(tryCatch(sassy_search(c("ACGT", "ACGZ"), "ACG", threads = threads), ducksassy_error = function(e) NULL))
    }
    switch(i %% 5L + 1L,
      sassy_count(texts, patterns, k = 1L, all_endpoints = TRUE, threads = threads),
      sassy_contains(texts, patterns[1:2], k = 1L, threads = threads),
      sassy_search(texts, "ATCGN", k = 2L, overhang = 0.5, max_n_frac = 0.5, threads = threads),
      sassy_search(c("Say Hallo", NA, "hello"), "hello", k = 1L, alphabet = "ascii", threads = threads),
      sassy_search(texts, patterns, k = 1L, threads = threads)
    )
  }
  # The warm-up: extendr keeps every R object it protects in a table of
  # 100,000 slots that it compacts and regrows when full, which steps the RSS
  # up by about 10 MiB a few times before it settles (measured over 60,000
  # calls: flat after that). 300,000 calls of the cheapest entry point get
  # the table there in half a second; 6,000 calls of the mix then reach the
  # steady state of the allocator's pools.
  setup <- bquote({
    .(setup)
    for (j in 1:300000) ducksassy:::ds_sassy_version()
  })
  r <- run_rss_over_calls(setup, f, warmup = 6000L, n = 10000L, every = 1000L)
  expect_flat_rss(r, "10,000 small calls")
})

test_that("100 large calls keep resident memory flat", {
  skip_on_cran()
  skip_if_not(file.exists("/proc/self/status"), "needs /proc (Linux)")
  skip_if_not_installed("callr")
  setup <- quote({
    set.seed(6)
    genome <- rawToChar(as.raw(c(65L, 67L, 71L, 84L))[sample.int(4L, 1e6, TRUE)])
    starts <- sample.int(1e6 - 150L, 1e4, TRUE)
    reads <- substring(genome, starts, starts + 149L)
    # a long record, searched in windows by both threads
    chromosome <- substr(genome, 1, 3e5)
  })
  # a cycle of 4 calls, ending with a limit error (after which the freed
  # memory goes back to the system: the RSS readings then show what is held)
  f <- function(i) {
    switch((i - 1L) %% 4L + 1L,
      # tens of thousands of hits with CIGARs
      sassy_search(reads, c("NNNNNNNNACGTA", "ACGTTGCAACGT"), k = 1L, threads = 2L),
      sassy_count(reads, c("ACGTTGCAACGTTGCA", "GGGCCCAATTGG", "CATCATCATCAT"), k = 2L, threads = 2L),
      # about 80,000 hits from the windows of one long record
      sassy_search(chromosome, c("ACGTTGCAACGTTGCA", "NNNNNNNNACGTAC"), k = 2L, all_endpoints = TRUE, threads = 2L),
      tryCatch(
        withr::with_options(list(ducksassy.max_hits = 1000), sassy_search(reads, "NNNNNNNNNNNNACGT", k = 2L)),
        ducksassy_limit_error = function(e) NULL
      )
    )
  }
  # a warm-up of 10 cycles: the allocator's high-water mark for these calls
  # (thread arenas, R's heap) was sometimes only reached after 3 (one step of
  # ~9 MiB, then flat), which read as growth against a 3-cycle warm-up
  r <- run_rss_over_calls(setup, f, warmup = 40L, n = 100L, every = 4L)
  expect_flat_rss(r, "100 large calls")
})

test_that("several R processes can search one DuckDB file read-only at the same time", {
  skip_on_cran()
  skip_if_not_installed("callr")
  skip_if_not_installed("DBI")
  skip_if_not(
    requireNamespace("duckdb", quietly = TRUE),
    "duckdb is not installed (or cannot be loaded)"
  )
  skip_if_not("sassy_search_table" %in% getNamespaceExports("ducksassy"), "sassy_search_table() is not there yet")
  db <- withr::local_tempfile(fileext = ".duckdb")
  set.seed(7)
  genome <- rawToChar(as.raw(c(65L, 67L, 71L, 84L))[sample.int(4L, 1e6, TRUE)])
  starts <- sample.int(1e6 - 150L, 1e4, TRUE)
  reads <- data.frame(id = seq_along(starts), sequence = substring(genome, starts, starts + 149L))
  con <- DBI::dbConnect(duckdb::duckdb(), db)
  DBI::dbWriteTable(con, "reads", reads)
  DBI::dbDisconnect(con, shutdown = TRUE)
  patterns <- c("ACGTTGCAACGT", "GGGCCCAATTGG", "NNNNNNNNACGTA")
  want <- sassy_search(reads$sequence, patterns, k = 2L)

  worker <- function(db, patterns, rounds) {
    suppressPackageStartupMessages(library(ducksassy))
    con <- DBI::dbConnect(duckdb::duckdb(), db, read_only = TRUE)
    on.exit(DBI::dbDisconnect(con, shutdown = TRUE))
    out <- NULL
    for (i in seq_len(rounds)) {
      h <- sassy_search_table(con, "reads", patterns, k = 2L, id = "id", chunk_rows = 5000L)
      if (is.null(out)) out <- h else stopifnot(identical(out, h))
    }
    out
  }
  procs <- lapply(1:3, function(i) {
    callr::r_bg(worker,
      args = list(db = db, patterns = patterns, rounds = 2L),
      libpath = .libPaths(),
      env = c(callr::rcmd_safe_env(), DUCKSASSY_THREADS = "1")
    )
  })
  for (p in procs) p$wait(120000)
  for (p in procs) {
    expect_false(p$is_alive())
    h <- p$get_result()
    expect_identical(h$id, want$record)
    expect_identical(h[, c("pattern", "start", "end", "cost", "strand", "cigar")], want[, c("pattern", "start", "end", "cost", "strand", "cigar")])
  }
})
