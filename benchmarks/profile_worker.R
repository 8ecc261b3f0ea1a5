# The process that benchmarks/profile.R profiles: makes one workload, runs
# one warm-up search, then `reps` measured searches, and marks where the
# measured part starts and ends for the profiler:
#   perf:      writes "enable"/"disable" to perf's control FIFO
#              (perf record -D -1 --control=fifo:CTL,ACK)
#   callgrind: calls ducksassy:::ds_sassy_version() just before and
#              ducksassy:::ds_rust_simd() just after (profile.R runs
#              callgrind with --zero-before=wrap__ds_sassy_version and
#              --dump-before=wrap__ds_rust_simd), neither of which the
#              search calls
#
#   Rscript benchmarks/profile_worker.R WORKLOAD RECORDS THREADS REPS MARKER [CTL ACK]
# WORKLOAD is dna or ascii (see common.R); MARKER is perf, callgrind or none.

source("benchmarks/common.R")
a <- commandArgs(trailingOnly = TRUE)
workload <- a[[1]]
records <- as.integer(a[[2]])
threads <- as.integer(a[[3]])
reps <- as.integer(a[[4]])
marker <- a[[5]]

search <- switch(workload,
  dna = {
    x <- make_reads(records)
    function() sassy_search(x, BENCH_PATTERN, k = 2L, threads = threads)
  },
  ascii = {
    x <- make_ascii(records)
    function() sassy_search(x, ASCII_PATTERN, k = ASCII_K, alphabet = "ascii", threads = threads)
  },
  stop("unknown workload ", workload)
)
invisible(search()) # warm-up: thread pool, searchers, R code
# the callgrind markers, fetched now: their lazy loading stays out of the window
mark_start <- ducksassy:::ds_sassy_version
mark_end <- ducksassy:::ds_rust_simd
invisible(gc())

perf_ctl <- function(cmd) {
  ctl <- file(a[[6]], "w")
  writeLines(cmd, ctl)
  close(ctl)
  ack <- file(a[[7]], "r")
  on.exit(close(ack))
  readLines(ack, n = 1L)
}

if (marker == "perf") perf_ctl("enable")
if (marker == "callgrind") invisible(mark_start())
t0 <- proc.time()
for (i in seq_len(reps)) h <- search()
t1 <- proc.time() - t0
if (marker == "callgrind") invisible(mark_end())
if (marker == "perf") perf_ctl("disable")
cat(sprintf("PROFILE_WORKER hits=%d seconds=%.3f cpu_seconds=%.3f\n", nrow(h),
            t1[["elapsed"]], t1[["user.self"]] + t1[["sys.self"]]))
