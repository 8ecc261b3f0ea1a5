# ducksassy vs Biostrings, agrepl() and grepl() on real sequences
# (benchmarks/peers.Rmd).
#
# Data: `lambda_reads`, the 10,000 lambda phage reads of Debian's
# bowtie2-examples (reads/reads_1.fq.gz, 40-354 bases, 64% with an N),
# patterns: `--lambda_patterns` 20-mers of the lambda genome
# (reference/lambda_virus.fa.gz) at evenly spaced positions;
# `dm3_upstream`, the 26,454 Drosophila upstream sequences of 2,000 bases in
# Biostrings' extdata (dm3_upstream2000.fa.gz), patterns: two fixed 12-mers.
# k = 0, 1, 2 (edits: substitutions, insertions, deletions).
#
# Two comparisons, each with the same definition of a match on both sides:
#  * literal letters, forward strand: every letter (N too) matches only
#    itself, as in agrepl()/grepl() and Biostrings with fixed = TRUE:
#    sassy_contains(alphabet = "ascii") vs vcountPattern(max.mismatch = k,
#    with.indels = TRUE) > 0 vs agrepl(max.distance = k, fixed = TRUE) vs,
#    for k = 0, grepl(fixed = TRUE).
#  * IUPAC codes, both strands: N in a text matches any base, as in
#    ducksassy's default alphabet and Biostrings with fixed = FALSE:
#    sassy_contains(rc = TRUE) vs vcountPattern(fixed = FALSE) of the
#    pattern and of its reverse complement.
# Each tool is called once per pattern (ducksassy too, with 1 and with 2
# threads); time is the sum over the patterns. Agreement: presence per
# (record, pattern); counts of ducksassy and Biostrings are compared too
# (their definitions differ; see the report).
#
#   Rscript benchmarks/peers.R [--k=0,1,2] [--reps=3] [--peer_reps=1]
#     [--lambda_patterns=8] [--threads=1,2] [--datasets=lambda_reads,dm3_upstream]
#
# Writes benchmarks/data/peers.csv, peers_agreement.csv and
# peers_receipt.json.

source("benchmarks/common.R")
suppressPackageStartupMessages(library(Biostrings))
args <- bench_args(list(
  k = 0:2, reps = 3L, peer_reps = 1L, lambda_patterns = 8L, threads = c(1L, 2L),
  datasets = c("lambda_reads", "dm3_upstream")
))
load_before <- load_average()

data_sets <- list()
reads_fq <- "/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz"
lambda_fa <- "/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz"
if ("lambda_reads" %in% args$datasets && file.exists(reads_fq) && file.exists(lambda_fa)) {
  genome <- readDNAStringSet(lambda_fa)[[1]]
  at <- round(seq(1000, length(genome) - 1000, length.out = args$lambda_patterns))
  data_sets$lambda_reads <- list(
    set = readDNAStringSet(reads_fq, format = "fastq"),
    patterns = vapply(at, function(i) as.character(subseq(genome, i, width = 20L)), ""),
    source = reads_fq, patterns_from = sprintf("%s, positions %s", lambda_fa, paste(at, collapse = ","))
  )
}
dm3 <- system.file("extdata", "dm3_upstream2000.fa.gz", package = "Biostrings")
if ("dm3_upstream" %in% args$datasets && nzchar(dm3)) {
  data_sets$dm3_upstream <- list(
    set = readDNAStringSet(dm3),
    patterns = c("TATAAAAGGCCG", "CAGTTGCAAGTC"),
    source = dm3, patterns_from = "fixed"
  )
}
if (!length(data_sets)) stop("none of the data sets is installed")

rc_of <- function(p) as.character(reverseComplement(DNAString(p)))

#' Presence per (record, pattern) as a logical matrix, and the seconds
#' taken, for one tool: `f(pattern)` gives one logical (or count) per record.
run_tool <- function(patterns, f, n) {
  t0 <- proc.time()[["elapsed"]]
  vals <- lapply(patterns, f)
  secs <- proc.time()[["elapsed"]] - t0
  list(seconds = secs, values = do.call(cbind, vals))
}

rows <- list()
agree <- list()
for (dn in names(data_sets)) {
  d <- data_sets[[dn]]
  x <- as.character(d$set)
  names(x) <- NULL
  n <- length(x)
  has_n <- sum(grepl("N", x, fixed = TRUE))
  invisible(sassy_contains(x, d$patterns[1], k = 1L, threads = max(args$threads))) # warm-up
  for (k in args$k) {
    tools <- list(
      # literal letters, forward strand
      list(cmp = "literal_forward", tool = "ducksassy", threads = args$threads, reps = args$reps,
           presence = function(p, th) sassy_contains(x, p, k = k, alphabet = "ascii", threads = th),
           count = function(p, th) sassy_count(x, p, k = k, alphabet = "ascii", threads = th)),
      list(cmp = "literal_forward", tool = "Biostrings", threads = 1L, reps = args$peer_reps,
           count = function(p, th) vcountPattern(p, d$set, max.mismatch = k, with.indels = TRUE)),
      list(cmp = "literal_forward", tool = "agrepl", threads = 1L, reps = args$peer_reps,
           presence = function(p, th) agrepl(p, x, max.distance = k, fixed = TRUE)),
      if (k == 0) list(cmp = "literal_forward", tool = "grepl", threads = 1L, reps = args$peer_reps,
           presence = function(p, th) grepl(p, x, fixed = TRUE)),
      # IUPAC codes, both strands
      list(cmp = "iupac_both_strands", tool = "ducksassy", threads = args$threads, reps = args$reps,
           presence = function(p, th) sassy_contains(x, p, k = k, threads = th),
           count = function(p, th) sassy_count(x, p, k = k, threads = th)),
      list(cmp = "iupac_both_strands", tool = "Biostrings", threads = 1L, reps = args$peer_reps,
           count = function(p, th) {
             vcountPattern(p, d$set, max.mismatch = k, with.indels = TRUE, fixed = FALSE) +
               vcountPattern(rc_of(p), d$set, max.mismatch = k, with.indels = TRUE, fixed = FALSE)
           })
    )
    tools <- Filter(Negate(is.null), tools)
    results <- list()
    for (tl in tools) {
      for (th in tl$threads) {
        f <- if (!is.null(tl$presence)) function(p) tl$presence(p, th) else function(p) tl$count(p, th) > 0L
        for (rep in seq_len(tl$reps)) {
          r <- run_tool(d$patterns, f, n)
          rows[[length(rows) + 1L]] <- data.frame(
            dataset = dn, records = n, records_with_n = has_n,
            bases = sum(as.numeric(nchar(x))), patterns = length(d$patterns),
            pattern_length = nchar(d$patterns[1]), k = k, comparison = tl$cmp,
            tool = tl$tool, threads = th, rep = rep, seconds = r$seconds,
            records_found = sum(r$values), load1 = load_average()[1]
          )
          message(sprintf("%-12s k=%d %-18s %-10s threads=%d rep=%d %.3f s, %d found",
                          dn, k, tl$cmp, tl$tool, th, rep, r$seconds, sum(r$values)))
        }
        results[[paste(tl$cmp, tl$tool)]] <- r$values
      }
      # counts: ducksassy vs Biostrings (definitions differ)
      if (!is.null(tl$count)) {
        results[[paste(tl$cmp, tl$tool, "count")]] <- do.call(cbind, lapply(d$patterns, function(p) tl$count(p, 1L)))
      }
    }
    for (cmp in unique(vapply(tools, `[[`, "", "cmp"))) {
      ref <- results[[paste(cmp, "ducksassy")]]
      for (tl in setdiff(unique(vapply(Filter(function(t) t$cmp == cmp, tools), `[[`, "", "tool")), "ducksassy")) {
        other <- results[[paste(cmp, tl)]]
        cnt_ds <- results[[paste(cmp, "ducksassy", "count")]]
        cnt_o <- results[[paste(cmp, tl, "count")]]
        agree[[length(agree) + 1L]] <- data.frame(
          dataset = dn, k = k, comparison = cmp, peer = tl,
          pairs = length(ref), ducksassy_found = sum(ref), peer_found = sum(other),
          only_ducksassy = sum(ref & !other), only_peer = sum(other & !ref),
          ducksassy_count_total = if (!is.null(cnt_ds)) sum(cnt_ds) else NA_real_,
          peer_count_total = if (!is.null(cnt_o)) sum(cnt_o) else NA_real_,
          count_differs = if (!is.null(cnt_o)) sum(cnt_ds != cnt_o) else NA_real_
        )
      }
    }
  }
}
write_csv(do.call(rbind, rows), "peers")
write_csv(do.call(rbind, agree), "peers_agreement")
write_receipt("peers", args, load_before = load_before, extra = list(
  biostrings_version = as.character(utils::packageVersion("Biostrings")),
  data = lapply(data_sets, function(d) list(source = d$source, records = length(d$set),
                                            patterns = d$patterns, patterns_from = d$patterns_from))
))
