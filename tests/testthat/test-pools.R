# Worker pools: one per thread count in use, but only a few kept, so a
# session that tries many `threads` values does not pile up idle threads.

test_that("many thread counts do not pile up OS threads, and results stay the same", {
  skip_if_not(dir.exists("/proc/self/task"), "needs Linux /proc")
  os_threads <- function() length(list.files("/proc/self/task"))
  texts <- c("ACGTACGTTT", "GGACGTAC", "", "TTTT")
  want <- sassy_count(texts, c("ACGT", "GTAC"), k = 1, threads = 1L)
  before <- os_threads()
  for (t in 1:24) {
    expect_identical(sassy_count(texts, c("ACGT", "GTAC"), k = 1, threads = t), want)
  }
  # dropped pools end their threads asynchronously
  deadline <- Sys.time() + 5
  kept_at_most <- sum(21:24) # the 4 most recent pools
  while (os_threads() - before > kept_at_most && Sys.time() < deadline) Sys.sleep(0.05)
  # all 24 pools would be sum(1:24) = 300 threads
  expect_lte(os_threads() - before, kept_at_most)
})
