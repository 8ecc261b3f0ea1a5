# Thread scaling of one hit search (benchmarks/scaling.Rmd).
#
# Workloads (made by make_reads() in common.R, seed 42): `small` random DNA
# reads of 256 bases, every second one carrying a copy of the pattern (or
# its reverse complement) with up to 2 substitutions; `large`, the small set
# repeated 8 times; `balanced`, the small set repeated to 983,040 records;
# `ecoli`, the 4.9 Mbp E. coli genome of Debian's bowtie-examples as one
# record (cut by the engine into windows searched in parallel; searched
# `--genome_reps` times per timing, as one search takes milliseconds).
# Each: sassy_search(texts, "GACGCTCAGTAATGTGACGA", k = 2) (alphabet
# "iupac", both strands, CIGARs), for each thread count, `--reps` times,
# thread counts interleaved within a repetition.
#
#   Rscript benchmarks/scaling.R [--small=262144] [--large_times=8]
#     [--balanced=983040] [--length=256] [--threads=1,2,...] [--reps=3]
#     [--k=2] [--genome_reps=200] [--workloads=small,large,balanced,ecoli]
#
# Writes benchmarks/data/scaling.csv and scaling_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  small = 262144L, large_times = 8L, balanced = 983040L, length = 256L,
  threads = all_threads(), reps = 3L, k = 2L, genome_reps = 200L,
  workloads = c("small", "large", "balanced", "ecoli")
))
load_before <- load_average()

message("making the workloads")
texts <- read_workloads(args$small, args$large_times, args$balanced, args$length)
genome <- if ("ecoli" %in% args$workloads) ecoli_genome()
if (!is.null(genome)) texts$ecoli <- genome
texts <- texts[intersect(args$workloads, names(texts))]

search_once <- function(x, threads, times) {
  h <- NULL
  for (i in seq_len(times)) h <- sassy_search(x, BENCH_PATTERN, k = args$k, threads = threads)
  h
}

rows <- list()
for (w in names(texts)) {
  x <- texts[[w]]
  times <- if (w == "ecoli") args$genome_reps else 1L
  ref <- NULL
  invisible(search_once(x, max(args$threads), 1L)) # warm-up: pools, searchers
  for (rep in seq_len(args$reps)) {
    # rotate the order of the thread counts so drift in the machine's load
    # does not always favour the same one
    order <- args$threads[(seq_along(args$threads) + rep - 2L) %% length(args$threads) + 1L]
    for (th in order) {
      r <- timed(function() search_once(x, th, times))
      s <- hit_summary(r$value)
      if (is.null(ref)) ref <- s
      if (!identical(s, ref)) stop("workload ", w, ": ", th, " threads gave other hits")
      rows[[length(rows) + 1L]] <- data.frame(
        workload = w, records = length(x), text_mb = sum(as.numeric(nchar(x))) / 1e6,
        searches = times, threads = th, rep = rep, seconds = r$elapsed,
        cpu_seconds = r$cpu, hits = s$hits, cost_sum = s$cost_sum,
        cigar_bytes = s$cigar_bytes, load1 = load_average()[1]
      )
      message(sprintf("%-8s threads=%d rep=%d %.3f s", w, th, rep, r$elapsed))
    }
  }
  rm(x)
}
res <- do.call(rbind, rows)
write_csv(res, "scaling")
write_receipt("scaling", args, load_before = load_before, extra = list(
  pattern = BENCH_PATTERN, k = args$k, alphabet = "iupac", rc = TRUE, cigar = TRUE,
  genome = if (!is.null(genome)) attr(genome, "path") else NA_character_,
  genome_header = if (!is.null(genome)) attr(genome, "header") else NA_character_,
  genome_window = 262144L
))
