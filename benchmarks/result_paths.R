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
#   Rscript benchmarks/result_paths.R [--dna_records=262144]
#     [--ascii_records=16384] [--threads=1,2] [--reps=3]
#
# Writes benchmarks/data/result_paths.csv and result_paths_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  dna_records = 262144L, ascii_records = 16384L, threads = unique(c(1L, 2L)),
  reps = 3L
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
write_receipt("result_paths", args, load_before = load_before, extra = list(
  dna = list(pattern = BENCH_PATTERN, k = 2L, alphabet = "iupac", rc = TRUE, length = 256L),
  ascii = list(pattern = ASCII_PATTERN, k = ASCII_K, alphabet = "ascii", rc = FALSE, length = 256L)
))
