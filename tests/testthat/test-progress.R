# Progress bars (R/progress.R, src/rust/src/progress.rs): shown in
# interactive sessions for searches that run long enough, fed from the
# engine's counters; never shown when turned off or non-interactive.

# A search the engine polls (more than its small-work threshold), long
# enough for several polls on one thread.
long_texts <- function() {
  set.seed(1)
  vapply(1:40, function(i) paste(sample(c("A", "C", "G", "T"), 2e5, TRUE), collapse = ""), "")
}
# (8 patterns: each is searched alone on these long texts, lanes.rs, and
# the search must outlast a few 50 ms polls on a fast machine)
long_patterns <- c("ACGTTGCATGCAAGTCCGATAGCA", "TTGACCGATGCAGTCAGTCGATCG",
  "GGCATCGATCGACTAGCTAGCATC", "CAGTCGATCGATGCATGCTAGCTA",
  "TGCATCGGATCCATGACTGACTGA", "GATCGGCTAGCTAGGATCCGATCA",
  "CTAGCTGACTGATCGATCGGCATG", "ATCGGATGCATCGATGCAGTCAGG")

test_that("the binding feeds the progress callback from the engine's counters", {
  texts <- long_texts()
  seen <- new.env()
  seen$calls <- list()
  cb <- function(done, total) {
    seen$calls[[length(seen$calls) + 1L]] <- c(done, total)
    NULL
  }
  plan <- ducksassy:::new_search_plan(texts, long_patterns, 4L, "dna", TRUE,
    FALSE, NULL, NULL, FALSE, FALSE, 1L)
  res <- ducksassy:::ds_search_plan(plan, "count", .Machine$integer.max, cb)
  expect_identical(matrix(as.integer(res), ncol = length(long_patterns)),
    unname(sassy_count(texts, long_patterns, k = 4L, alphabet = "dna", threads = 1L)))
  calls <- do.call(rbind, seen$calls)
  skip_if(is.null(calls), "the search ended before the first poll")
  done <- calls[, 1L]
  total <- calls[, 2L]
  # the total is the text bytes (+1 per record), done grows up to it
  expect_true(all(total == sum(nchar(texts)) + length(texts)))
  expect_true(all(diff(done) >= 0))
  expect_true(all(done <= total))
})

test_that("a search shows a cli progress bar in an interactive session", {
  texts <- long_texts()
  rlang::local_interactive(TRUE)
  withr::local_options(
    ducksassy.progress = TRUE, cli.progress_show_after = 0,
    cli.dynamic = FALSE, cli.progress_handlers_only = "cli"
  )
  out <- capture.output(
    msgs <- capture.output(
      n <- sassy_count(texts, long_patterns, k = 4L, alphabet = "dna", threads = 1L),
      type = "message"
    )
  )
  shown <- c(out, msgs)
  expect_true(any(grepl("Searching 40 texts", shown)), label = paste(shown, collapse = "\n"))
  expect_true(any(grepl("MB", shown)))
})

test_that("no progress bar when turned off or not interactive", {
  texts <- long_texts()
  withr::local_options(cli.progress_show_after = 0, cli.dynamic = FALSE,
    cli.progress_handlers_only = "cli")
  quiet <- function() {
    c(
      capture.output(m <- capture.output(
        invisible(sassy_count(texts, long_patterns, k = 4L, alphabet = "dna", threads = 1L)),
        type = "message"
      )),
      m
    )
  }
  rlang::local_interactive(FALSE)
  expect_identical(quiet()[!grepl("^\\s*$", quiet())], character())
  expect_null(ducksassy:::new_progress("x"))
  rlang::local_interactive(TRUE)
  withr::local_options(ducksassy.progress = FALSE)
  expect_identical(quiet()[!grepl("^\\s*$", quiet())], character())
  expect_null(ducksassy:::new_progress("x"))
})

test_that("file searches show the bytes read of the file size", {
  reads <- withr::local_tempfile(fileext = ".fa")
  texts <- long_texts()
  writeLines(paste0(">r", seq_along(texts), "\n", texts), reads)
  rlang::local_interactive(TRUE)
  withr::local_options(ducksassy.progress = TRUE)
  seen <- new.env()
  seen$calls <- list()
  cb <- function(done, total) {
    seen$calls[[length(seen$calls) + 1L]] <- c(done, total)
    NULL
  }
  # the entry point directly, with a small batch so that there are polls
  res <- ducksassy:::ds_fastx_search(reads,
    ducksassy:::new_plan(long_patterns, 4L, "dna", cigar = FALSE, mode = "count",
      max_hits = .Machine$integer.max),
    ducksassy:::new_read_options(c(bytes = 4e5, records = 2)), cb)
  expect_false(inherits(res, "ducksassy_rust_error"))
  calls <- do.call(rbind, seen$calls)
  skip_if(is.null(calls), "the search ended before the first poll")
  expect_true(all(calls[, 2L] == file.size(reads)))
  expect_true(all(calls[, 1L] <= file.size(reads)))
})

test_that("an error or interrupt in the callback does not cross Rust frames", {
  texts <- long_texts()
  plan <- ducksassy:::new_search_plan(texts, long_patterns, 4L, "dna", TRUE,
    FALSE, NULL, NULL, FALSE, FALSE, 1L)
  # an unhandled error: the protected call reports it, the search stops as
  # interrupted (never a longjmp over the search), the next call works
  printed <- capture.output(
    res <- ducksassy:::ds_search_plan(plan, "count", .Machine$integer.max,
      function(done, total) stop("boom")),
    type = "message"
  )
  expect_true(inherits(res, "ducksassy_rust_error") || is.integer(res))
  expect_identical(sassy_count("ACGT", "ACG", rc = FALSE), 1L)
  # the callback ducksassy makes swallows errors of cli
  p <- local({
    rlang::local_interactive(TRUE)
    withr::local_options(ducksassy.progress = TRUE)
    ducksassy:::new_progress("x")
  })
  p$unit <- "no such unit"
  cb <- ducksassy:::progress_callback(p)
  expect_null(cb(1, 10))
})
