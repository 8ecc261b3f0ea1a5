# sassy_search() vs sassy_count() vs sassy_contains() on the same input
# (benchmarks/result_paths.Rmd).
#
# Workloads: `dna`, the small read set of scaling.R (random 256-base reads,
# every second one with a copy of the 20-mer with up to 2 substitutions;
# pattern GACGCTCAGTAATGTGACGA, k = 2, both strands); `ascii`, dense text
# (random a/b letters, 256 per record; pattern "abba", k = 1, about 65 hits
# per record). Paths: sassy_search() with CIGARs, sassy_search(cigar =
# FALSE), sassy_count(), sassy_contains(); for each thread count, `--reps`
# times, paths and thread counts interleaved. The answers are checked to
# agree: the counts add up to the number of hits, contains == (count > 0).
#
# Patterns sweep (issue 17): `--sweep_records` random 150-base reads (1%
# carrying one of the patterns), 1, 8, 64, 128 and 1,000 random 20-mers,
# k = 2, both strands, one thread: search, count, sparse count
# (`sparse = TRUE`, issue 23) and contains in turn.
#
#   Rscript benchmarks/result_paths.R [--dna_records=262144]
#     [--ascii_records=16384] [--threads=1,2] [--reps=3]
#     [--sweep_records=100000] [--sweep_patterns=1,8,64,128,1000]
#   Small smoke run: --dna_records=2048 --ascii_records=256 --reps=1
#     --sweep_records=2000
#
# Writes benchmarks/data/result_paths.csv, result_paths_patterns.csv and
# result_paths_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  dna_records = 262144L, ascii_records = 16384L, threads = unique(c(1L, 2L)),
  reps = 3L, sweep_records = 100000L, sweep_patterns = c(1L, 8L, 64L, 128L, 1000L)
))
load_before <- load_average()

workloads <- list(
  dna = list(texts = make_reads(args$dna_records), pattern = BENCH_PATTERN,
             k = 2L, alphabet = "iupac"),
  ascii = list(texts = make_ascii(args$ascii_records), pattern = ASCII_PATTERN,
               k = ASCII_K, alphabet = "ascii")
)

paths <- list(
  search = function(w, th) sassy_search(w$texts, w$pattern, k = w$k, alphabet = w$alphabet, threads = th),
  search_nocigar = function(w, th) sassy_search(w$texts, w$pattern, k = w$k, alphabet = w$alphabet, cigar = FALSE, threads = th),
  count = function(w, th) sassy_count(w$texts, w$pattern, k = w$k, alphabet = w$alphabet, threads = th),
  contains = function(w, th) sassy_contains(w$texts, w$pattern, k = w$k, alphabet = w$alphabet, threads = th)
)

rows <- list()
for (wn in names(workloads)) {
  w <- workloads[[wn]]
  # warm-up and the agreement check
  h <- paths$search(w, max(args$threads))
  n <- paths$count(w, max(args$threads))
  cn <- paths$contains(w, max(args$threads))
  per_record <- tabulate(h$record, length(w$texts))
  stopifnot(
    identical(as.integer(per_record), as.integer(n)),
    identical(as.logical(cn), n > 0L),
    identical(nrow(paths$search_nocigar(w, 1L)), nrow(h))
  )
  for (rep in seq_len(args$reps)) {
    for (pn in names(paths)) {
      for (th in args$threads) {
        r <- timed(function() paths[[pn]](w, th))
        v <- r$value
        rows[[length(rows) + 1L]] <- data.frame(
          workload = wn, records = length(w$texts), path = pn, threads = th,
          rep = rep, seconds = r$elapsed, cpu_seconds = r$cpu,
          result = if (is.data.frame(v)) nrow(v) else sum(v),
          hits = nrow(h), records_with_hits = sum(n > 0L), load1 = load_average()[1]
        )
        message(sprintf("%-5s %-14s threads=%d rep=%d %.3f s", wn, pn, th, rep, r$elapsed))
      }
    }
  }
}
write_csv(do.call(rbind, rows), "result_paths")

# ---- patterns sweep --------------------------------------------------------
set.seed(17L)
all_patterns <- vapply(seq_len(max(args$sweep_patterns)), function(i) {
  paste(sample(c("A", "C", "G", "T"), 20L, TRUE), collapse = "")
}, "")
sweep_reads <- make_reads(args$sweep_records, 150L, pattern = all_patterns[1], plant_every = 100L)
sweep_paths <- list(
  search = function(p) sassy_search(sweep_reads, p, k = 2L, threads = 1L),
  count = function(p) sassy_count(sweep_reads, p, k = 2L, threads = 1L),
  # issue 23: a Matrix::dgCMatrix, tabulated from the hits
  count_sparse = function(p) sassy_count(sweep_reads, p, k = 2L, threads = 1L, sparse = TRUE),
  contains = function(p) sassy_contains(sweep_reads, p, k = 2L, threads = 1L)
)
sweep_rows <- list()
for (np in args$sweep_patterns) {
  p <- all_patterns[seq_len(np)]
  h <- sweep_paths$search(p) # warm-up and the agreement check
  n <- sweep_paths$count(p)
  ns <- sweep_paths$count_sparse(p)
  stopifnot(
    sum(n) == nrow(h), identical(as.logical(sweep_paths$contains(p)), as.vector(n > 0L)),
    inherits(ns, "dgCMatrix"), identical(as.vector(as.matrix(ns)), as.double(n))
  )
  hits <- nrow(h)
  # the size of each path's result in R (the dense matrix is records x
  # patterns integers; the sparse one grows with the hits)
  result_mb <- c(search = object.size(h), count = object.size(n), count_sparse = object.size(ns),
                 contains = object.size(sweep_paths$contains(p))) / 2^20
  rm(h, n, ns)
  for (rep in seq_len(args$reps)) {
    for (pn in names(sweep_paths)) {
      r <- timed(function() sweep_paths[[pn]](p))
      sweep_rows[[length(sweep_rows) + 1L]] <- data.frame(
        patterns = np, records = length(sweep_reads), path = pn, rep = rep,
        seconds = r$elapsed, cpu_seconds = r$cpu, hits = hits, result_mb = unname(result_mb[[pn]]),
        load1 = load_average()[1]
      )
      message(sprintf("patterns=%-5d %-12s rep=%d %.3f s (CPU %.3f)", np, pn, rep, r$elapsed, r$cpu))
    }
  }
}
write_csv(do.call(rbind, sweep_rows), "result_paths_patterns")
write_receipt("result_paths", args, load_before = load_before, extra = list(
  dna = list(pattern = BENCH_PATTERN, k = 2L, alphabet = "iupac", rc = TRUE, length = 256L),
  ascii = list(pattern = ASCII_PATTERN, k = ASCII_K, alphabet = "ascii", rc = FALSE, length = 256L)
))
