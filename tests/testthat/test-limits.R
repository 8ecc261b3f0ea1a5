# Limits guard memory: more hits than getOption("ducksassy.max_hits") is a
# ducksassy_limit_error that says how to stream the hits to a table instead,
# raised before memory runs out, never a truncated result; pathological
# inputs finish with correct results or stop with that error.

# Peak resident memory of this process since the last reset, in bytes
# (Linux), or NA.
peak_rss <- function() {
  x <- grep("^VmHWM:", readLines("/proc/self/status"), value = TRUE)
  as.numeric(gsub("[^0-9]", "", x)) * 1024
}
reset_peak_rss <- function() {
  # writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0)
  ok <- tryCatch(
    {
      writeLines("5", "/proc/self/clear_refs")
      TRUE
    },
    error = function(e) FALSE,
    warning = function(w) FALSE
  )
  ok
}

test_that("the default hit limit is finite and fits in memory", {
  limit <- default_max_hits()
  expect_true(is.numeric(limit) && length(limit) == 1L && limit >= 1)
  expect_lte(limit, .Machine$integer.max)
  ram <- physical_memory_bytes()
  if (!is.na(ram)) {
    expect_lte(limit, ram / 256)
    expect_gt(limit, 1e5)
  }
  withr::local_options(ducksassy.max_hits = NULL)
  expect_identical(max_hits_option(), as.double(limit))
})

test_that("too many hits is a limit error that says how to stream to a table, not a truncation", {
  withr::local_options(ducksassy.max_hits = 10)
  texts <- rep("ACGTTTACGTTTACGT", 4) # 3 forward hits each
  cnd <- tryCatch(sassy_search(texts, "ACGT", alphabet = "dna", rc = FALSE),
    ducksassy_limit_error = function(e) e
  )
  expect_s3_class(cnd, "ducksassy_limit_error")
  expect_s3_class(cnd, "ducksassy_error")
  msg <- conditionMessage(cnd)
  expect_match(msg, "10", fixed = TRUE)
  expect_match(msg, "sassy_search_table(", fixed = TRUE)
  expect_match(msg, "output = ", fixed = TRUE)
  expect_match(msg, "sassy_count()", fixed = TRUE)
  expect_match(msg, "ducksassy.max_hits", fixed = TRUE)
  expect_match(msg, "No partial result", fixed = TRUE)
  # exactly at the limit is fine, one below is an error, for any thread count
  for (threads in 1:3) {
    withr::local_options(ducksassy.max_hits = 12)
    expect_identical(nrow(sassy_search(texts, "ACGT", alphabet = "dna", rc = FALSE, threads = threads)), 12L)
    withr::local_options(ducksassy.max_hits = 11)
    expect_error(sassy_search(texts, "ACGT", alphabet = "dna", rc = FALSE, threads = threads),
      class = "ducksassy_limit_error"
    )
  }
  # counting holds no hits, so it has no limit
  expect_identical(sassy_count(texts, "ACGT", alphabet = "dna", rc = FALSE), rep(3L, 4))
})

test_that("hit-limit advice: the limit error of a file search suggests no database", {
  fq <- withr::local_tempfile(fileext = ".fq")
  writeLines(rep(c("@r", "ACGTTTACGTTTACGT", "+", strrep("I", 16)), 4), fq)
  withr::local_options(ducksassy.max_hits = 5)
  for (f in list(
    function() sassy_search_fastx(fq, "ACGT", rc = FALSE),
    function() sassy_crispr_fastx(fq, "ACGT", k = 0, pam_length = 1L, rc = FALSE)
  )) {
    cnd <- tryCatch(f(), ducksassy_limit_error = function(e) e)
    expect_s3_class(cnd, "ducksassy_limit_error")
    msg <- conditionMessage(cnd)
    expect_no_match(msg, "sassy_search_table", fixed = TRUE)
    expect_no_match(msg, "database", fixed = TRUE)
    expect_match(msg, "sassy_count_fastx()", fixed = TRUE)
    expect_match(msg, "sassy_filter_fastx()", fixed = TRUE)
    expect_match(msg, "ducksassy.max_hits", fixed = TRUE)
  }
})

test_that("hit-limit advice: with `output` set the table error says chunk_rows, not output", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "reads", data.frame(
    id = 1:4, sequence = rep("ACGTTTACGTTTACGT", 4)
  ))
  withr::local_options(ducksassy.max_hits = 5)
  # 3 hits per row: 2 rows a chunk is over the limit, 1 row is not
  cnd <- tryCatch(
    sassy_search_table(con, "reads", "ACGT", rc = FALSE, output = "hits", chunk_rows = 2),
    ducksassy_limit_error = function(e) e
  )
  expect_s3_class(cnd, "ducksassy_limit_error")
  msg <- conditionMessage(cnd)
  expect_match(msg, "chunk_rows", fixed = TRUE)
  expect_match(msg, "one chunk", fixed = TRUE)
  expect_match(msg, "ducksassy.max_hits", fixed = TRUE)
  expect_no_match(msg, "output = ", fixed = TRUE)
  expect_false(DBI::dbExistsTable(con, "hits"))
  expect_identical(
    sassy_search_table(con, "reads", "ACGT", rc = FALSE, output = "hits", chunk_rows = 1),
    12
  )
  cnd <- tryCatch(
    sassy_crispr_table(con, "reads", "ACGT", k = 0, pam_length = 1L, rc = FALSE,
      output = "hits2", chunk_rows = 4),
    ducksassy_limit_error = function(e) e
  )
  expect_match(conditionMessage(cnd), "chunk_rows", fixed = TRUE)
  # without `output` the advice is to write to the database
  cnd <- tryCatch(sassy_search_table(con, "reads", "ACGT", rc = FALSE),
    ducksassy_limit_error = function(e) e
  )
  expect_match(conditionMessage(cnd), "output = ", fixed = TRUE)
  expect_no_match(conditionMessage(cnd), "chunk_rows", fixed = TRUE)
})

test_that("the limit stops a runaway search before its memory grows", {
  skip_on_cran()
  skip_if_not(file.exists("/proc/self/status"), "needs /proc (Linux)")
  skip_if_not(reset_peak_rss(), "cannot reset the peak RSS (/proc/self/clear_refs)")
  # every position of a 4-million-letter N run matches on both strands: 8
  # million hits (over 1 GB at the peak) without the limit
  n_run <- strrep("N", 4e6)
  invisible(gc())
  withr::local_options(ducksassy.max_hits = 1e5)
  reset_peak_rss()
  before <- peak_rss()
  t0 <- proc.time()[["elapsed"]]
  expect_error(
    sassy_search(n_run, "NNNNNNNNNNNNNNNNACGT", k = 2L, all_endpoints = TRUE, threads = 2L),
    class = "ducksassy_limit_error"
  )
  expect_lt(proc.time()[["elapsed"]] - t0, 20)
  # a window of 2^18 letters per task, so a few windows' hits at most
  expect_lt(peak_rss() - before, 300 * 2^20)
})

test_that("a 1,000,000-letter N run with an N-rich pattern and all_endpoints finishes correctly", {
  skip_on_cran()
  n <- 1e6
  n_run <- strrep("N", n)
  p <- "NNNNNNNNNNNNNNNNACGT"
  m <- nchar(p)
  k <- 2L
  # N matches every letter: every end position j >= m - k has cost
  # max(0, m - j) <= k, on each strand
  per_strand <- n - m + k + 1
  withr::local_options(ducksassy.max_hits = NULL)
  h <- tryCatch(
    sassy_search(n_run, p, k = k, all_endpoints = TRUE, cigar = FALSE, threads = 2L),
    ducksassy_limit_error = function(e) e
  )
  if (inherits(h, "ducksassy_limit_error")) {
    # only acceptable where the machine's memory sets a low default limit
    expect_lt(default_max_hits(), 2 * per_strand)
  } else {
    expect_identical(nrow(h), as.integer(2 * per_strand))
    expect_identical(as.vector(table(h$strand)[c("+", "-")]), as.integer(c(per_strand, per_strand)))
    expect_identical(sum(h$cost == 0L), as.integer(2 * (n - m + 1)))
    plus <- h[h$strand == "+", ]
    expect_identical(range(plus$end), as.integer(c(m - k, n)))
    expect_true(all(plus$cost == pmax(0L, m - plus$end)))
  }
  expect_identical(
    sassy_count(n_run, p, k = k, all_endpoints = TRUE, threads = 2L),
    as.integer(2 * per_strand)
  )
  # rightmost local minima only: one hit per strand
  expect_identical(sassy_count(n_run, p, k = k, threads = 2L), 2L)
  # and the N fraction filter drops them all
  expect_identical(sassy_count(n_run, p, k = k, all_endpoints = TRUE, max_n_frac = 0.5), 0L)
})

test_that("a pattern of 4,096 letters is found where it was planted", {
  set.seed(4096)
  letters4 <- c("A", "C", "G", "T")
  p <- paste(sample(letters4, 4096, TRUE), collapse = "")
  background <- paste(sample(letters4, 2e5, TRUE), collapse = "")
  # plant it with 20 substitutions at known places
  edited <- strsplit(p, "")[[1]]
  at <- seq(100L, 4000L, length.out = 20)
  edited[at] <- vapply(edited[at], function(b) setdiff(letters4, b)[[1L]], "")
  edited <- paste(edited, collapse = "")
  text <- paste0(substr(background, 1, 1e5), edited, substr(background, 1e5 + 1, 2e5))
  # (k near the pattern length is valid too, but then every one of the
  # ~20,000 local minima is traced, ~4 ms each at this length: counting is
  # instant, hits take over a minute; see the count below)
  for (k in c(19L, 20L, 100L, 1000L)) {
    h <- sassy_search(text, p, k = k, rc = FALSE, threads = 2L)
    if (k < 20L) {
      expect_identical(nrow(h), 0L)
      next
    }
    best <- h[h$cost == min(h$cost), ]
    expect_identical(best$start, 100001L)
    expect_identical(best$end, as.integer(1e5 + 4096))
    expect_identical(best$cost, 20L)
    expect_identical(sassy_count(text, p, k = k, rc = FALSE), nrow(h))
  }
  # the largest k counts fast (no traceback)
  expect_gt(sassy_count(text, p, k = 4095L, rc = FALSE, threads = 2L), 1000L)
  # and on the other strand
  rc <- chartr("ACGT", "TGCA", paste(rev(strsplit(text, "")[[1]]), collapse = ""))
  h <- sassy_search(rc, p, k = 20L, threads = 2L)
  expect_identical(h$strand, "-")
  expect_identical(h$start, as.integer(2e5 - 1e5 + 1))
})

test_that("100,000 patterns give the same hits as searching them in parts", {
  skip_on_cran()
  set.seed(100000)
  letters4 <- c("A", "C", "G", "T")
  random_strings <- function(n, len) {
    x <- matrix(sample(letters4, n * len, TRUE), nrow = n)
    do.call(paste0, as.data.frame(x))
  }
  patterns <- random_strings(1e5, 20)
  texts <- random_strings(300, 150)
  # plant three patterns (one reverse complemented) with one substitution
  plant <- function(text, p, at) {
    substr(text, at, at + nchar(p) - 1L) <- p
    text
  }
  texts[10] <- plant(texts[10], patterns[1], 5L)
  texts[200] <- plant(texts[200], patterns[50000], 100L)
  rc <- chartr("ACGT", "TGCA", paste(rev(strsplit(patterns[1e5], "")[[1]]), collapse = ""))
  texts[300] <- plant(texts[300], rc, 30L)
  h <- sassy_search(texts, patterns, k = 1L, threads = 2L)
  expect_true(all(c(1L, 50000L, 100000L) %in% h$pattern))
  hit <- function(pi) h[h$pattern == pi & h$cost == 0L, c("record", "start", "strand")]
  expect_identical(hit(1L)$record, 10L)
  expect_identical(hit(50000L)$start, 100L)
  expect_identical(hit(100000L)$strand, "-")
  # the same as searching the patterns in parts, with offset indices
  parts <- split(seq_along(patterns), rep(1:4, each = 25000))
  pieces <- lapply(parts, function(idx) {
    x <- sassy_search(texts, patterns[idx], k = 1L, threads = 2L)
    x$pattern <- idx[x$pattern]
    x
  })
  joined <- do.call(rbind, pieces)
  joined <- joined[order(joined$record, joined$pattern, joined$start, joined$end, joined$strand, method = "radix"), ]
  rownames(joined) <- NULL
  expect_identical(h, joined)
  # presence of every pattern agrees with the hits
  cc <- sassy_contains(texts[c(10, 200, 300)], patterns, k = 1L, threads = 2L)
  expect_identical(dim(cc), c(3L, 100000L))
  # (columns named pattern_<i>, as for files and tables)
  expect_identical(colnames(cc)[c(1L, 100000L)], c("pattern_1", "pattern_100000"))
  expect_identical(unname(sort(which(colSums(cc) > 0))), sort(unique(h$pattern[h$record %in% c(10L, 200L, 300L)])))
})

test_that("a count matrix too large for memory is an error, not a crash", {
  skip_on_cran()
  # 2e5 texts x 1e5 patterns = 2e10 cells (80 GB): refused before any search
  texts <- rep("ACGT", 2e5)
  patterns <- rep("ACGTACGT", 1e5)
  cnd <- tryCatch(sassy_count(texts, patterns), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_error")
})

test_that("an alignment larger than memory is a limit error, never an abort", {
  # sassy allocates a pattern's DP matrix (m^2 / 4 bytes) infallibly: a
  # failed allocation would abort R. Under an address-space limit of 4 GB a
  # 150,000-letter pattern's 5.6 GB matrix cannot be had.
  skip_on_os(c("windows", "mac", "solaris"))
  skip_if(Sys.which("bash") == "")
  script <- withr::local_tempfile(fileext = ".R")
  writeLines(c(
    "library(ducksassy)",
    "set.seed(1)",
    "p <- paste(sample(c('A', 'C', 'G', 'T'), 1.5e5, TRUE), collapse = '')",
    "r <- tryCatch(sassy_search(p, p, k = 10, threads = 1), ducksassy_limit_error = function(e) e)",
    "cat(inherits(r, 'ducksassy_limit_error'), grepl('150000-letter pattern', conditionMessage(r)), '\\n')",
    "cat(sassy_count(p, p, k = 10, threads = 1), '\\n')"
  ), script)
  rscript <- file.path(R.home("bin"), "Rscript")
  out <- suppressWarnings(system2("bash", c("-c", shQuote(paste(
    "ulimit -v 4000000;", shQuote(rscript), "--vanilla", shQuote(script)
  ))), stdout = TRUE, stderr = TRUE, env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":"))))
  status <- attr(out, "status") %||% 0L
  expect_identical(status, 0L, info = paste(out, collapse = "\n"))
  expect_true("TRUE TRUE " %in% out, info = paste(out, collapse = "\n"))
  # counting needs no alignment: the one exact occurrence
  expect_true("1 " %in% out, info = paste(out, collapse = "\n"))
})
