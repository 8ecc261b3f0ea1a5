# Helpers of the interrupt tests (test-interrupt.R, test-issue24.R): an R
# session that searches, and a call in it interrupted as Ctrl-C does.

# Resident memory of a process in MiB.
rss_mib <- function(pid) {
  ps::ps_memory_info(ps::ps_handle(pid))[["rss"]] / 2^20
}

# An R session with ducksassy loaded and its error path warmed up (the first
# classed error loads cli's formatting, which takes a noticeable part of a
# second on a busy machine; that is not what is measured here).
new_search_session <- function() {
  rs <- callr::r_session$new(
    callr::r_session_options(
      libpath = .libPaths(),
      env = c(callr::rcmd_safe_env(), DUCKSASSY_THREADS = "2")
    ),
    wait = TRUE
  )
  rs$run(function() {
    suppressPackageStartupMessages(library(ducksassy))
    try(sassy_search("ACGT", "ACGT", k = 9L), silent = TRUE)
    # the known small search compared after each interrupt
    invisible(sassy_search(c("AAAATTGAAA", "CCCATCACCC"), c("ATCG", "GATTACA"), k = 1L))
  })
  rs
}

# Run `f(...)` in the session, send SIGINT after it has been busy for
# `after` seconds, and return what happened: the condition class caught,
# the seconds from SIGINT to the handler, the RSS before, at the peak before
# the interrupt, and after.
interrupt_call <- function(rs, f, args = list(), after = 1.5, timeout = 60) {
  marker <- tempfile("searching-")
  on.exit(unlink(marker))
  pid <- rs$get_pid()
  rs$run(function() invisible(gc()))
  before <- rss_mib(pid)
  rs$call(function(marker, f, args) {
    writeLines("started", marker)
    outcome <- tryCatch(
      {
        do.call(f, args)
        "finished"
      },
      ducksassy_interrupt = function(e) "ducksassy_interrupt",
      interrupt = function(e) "interrupt"
    )
    list(outcome = outcome, at = Sys.time())
  }, list(marker = marker, f = f, args = args))
  deadline <- Sys.time() + timeout
  while (!file.exists(marker) && Sys.time() < deadline) Sys.sleep(0.01)
  peak <- before
  t_end <- Sys.time() + after
  while (Sys.time() < t_end) {
    Sys.sleep(0.1)
    peak <- max(peak, rss_mib(pid))
  }
  busy <- rs$poll_process(0) == "timeout"
  sent <- Sys.time()
  rs$interrupt()
  while (rs$poll_process(1000) != "ready" && Sys.time() < deadline) NULL
  res <- rs$read()
  Sys.sleep(0.2)
  list(
    busy = busy,
    outcome = res$result$outcome,
    error = res$error,
    seconds = as.numeric(difftime(res$result$at, sent, units = "secs")),
    before = before, peak = peak, after = rss_mib(pid)
  )
}

expect_prompt_interrupt <- function(r) {
  expect_true(r$busy, info = "the search had finished before the interrupt: make the input larger")
  expect_null(r$error)
  expect_true(r$outcome %in% c("ducksassy_interrupt", "interrupt"), info = r$outcome)
  expect_lt(r$seconds, 1)
}

small_search <- function() {
  sassy_search(c("AAAATTGAAA", "CCCATCACCC"), c("ATCG", "GATTACA"), k = 1L)
}

# The search session of a Ctrl-C test, closed when the test ends; skips
# where such a test cannot run (CRAN, Windows, without callr, ps or `pkgs`).
interrupt_test_session <- function(pkgs = character(), env = parent.frame()) {
  skip_on_cran()
  skip_on_os("windows")
  for (pkg in c("callr", "ps", pkgs)) skip_if_not_installed(pkg)
  rs <- new_search_session()
  withr::defer(rs$close(), envir = env)
  rs
}
