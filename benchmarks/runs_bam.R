# dorado's BAM in (issue 39, "Unaligned BAM in"; part of benchmarks/runs.Rmd,
# whose child report benchmarks/runs-bam.Rmd shows these numbers).
#
# Workload: the real nanopore reads of Debian's qcat-examples
# (barcode_1k.fastq.gz, 989 reads, 7.5 MB of FASTQ), `--copies` copies
# (default 8, about 60 MB) in one plain FASTQ file, and the BAM that
# `samtools import -0` makes of it (BGZF, what dorado writes; its reads
# are the FASTQ's without the header descriptions). `--barcodes` barcodes:
# by default 24-mers taken at seeded random places of the first 150 bases
# of seeded random reads (runs.Rmd may pass its own, see run_bam_bench()).
#
# Measured: sassy_demultiplex_fastx(input, barcodes, output =
# "<dir>/{name}.fastq", k = `--k`, ends = `--ends`, threads = n) of the
# FASTQ and of the BAM, for each of `--threads`, `--reps` repetitions in
# alternating order; then checked that both give the same records (names,
# sequences, qualities) in every output. The report gives the median times,
# the throughput (MB of FASTQ per second: the same reads for both inputs)
# and their ratio BAM / FASTQ (issue 39: at least 0.8).
#
#   Rscript benchmarks/runs_bam.R [--copies=8] [--reads=0] [--barcodes=12]
#     [--k=5] [--ends=150] [--reps=5] [--threads=1,2] [--seed=39]
#   Small smoke run: --copies=1 --reads=200 --reps=1 --threads=1
#
# Needs samtools (Debian: apt-get install samtools) and qcat-examples.
# Writes benchmarks/data/runs_bam.csv (times), runs_bam_check.csv (records
# per output) and runs_bam_receipt.json; inputs go to
# $DUCKSASSY_BENCH_CACHE/runs-bam-*.

QCAT_READS <- "/usr/share/doc/qcat/examples/qcat/test/data/barcode_1k.fastq.gz"

#' Write the FASTQ (`copies` copies of the first `reads` reads of
#' qcat-examples' barcode_1k, all of them when `reads` is 0) and its BAM
#' (samtools import) into `dir`; their paths.
bam_bench_inputs <- function(dir, copies = 8L, reads = 0L) {
  if (!file.exists(QCAT_READS)) stop("qcat-examples is not installed (apt-get install qcat-examples)")
  samtools <- Sys.which("samtools")
  if (!nzchar(samtools)) stop("samtools is not installed (apt-get install samtools)")
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  con <- gzfile(QCAT_READS)
  lines <- readLines(con, n = if (reads > 0L) 4L * reads else -1L)
  close(con)
  fq <- file.path(dir, "reads.fastq")
  writeLines(rep(lines, copies), fq)
  bam <- file.path(dir, "reads.bam")
  status <- system2(samtools, c("import", "-0", shQuote(fq), "-o", shQuote(bam)))
  if (status != 0) stop("samtools import failed")
  # the FASTQ as users keep it: GNU gzip's default level (one gzip stream)
  gz <- file.path(dir, "reads.fastq.gz")
  if (system2("gzip", c("-c", shQuote(fq)), stdout = gz) != 0) stop("gzip failed")
  list(fastq = fq, bam = bam, fastq_gz = gz, reads = length(lines) %/% 4L * copies)
}

#' `n` barcodes of `len` bases from the first 150 bases of reads of `fq`.
bam_bench_barcodes <- function(fq, n = 12L, len = 24L, seed = 39L) {
  r <- sassy_read_fastx(fq, n_max = 2000)
  set.seed(seed)
  ok <- which(nchar(r$sequence) >= 150L)
  pick <- sample(ok, n)
  start <- sample.int(150L - len, n, replace = TRUE)
  stats::setNames(substr(r$sequence[pick], start, start + len - 1L), sprintf("bc%02d", seq_len(n)))
}

#' The records of every output of a demultiplexing: one data frame of
#' output name, read name, sequence, quality, in output and file order.
bam_bench_records <- function(res) {
  do.call(rbind, lapply(seq_len(nrow(res)), function(i) {
    x <- sassy_read_fastx(res$path[[i]])
    data.frame(output = rep(res$name[[i]], nrow(x)), x[c("name", "sequence", "quality")])
  }))
}

#' Demultiplex the FASTQ and the BAM (`inputs`, from bam_bench_inputs()),
#' `reps` times for each thread count; check that they give the same
#' records per output. A list: `times` (one row per run) and `check` (one
#' row per output: records from each input, whether identical).
run_bam_bench <- function(inputs, barcodes, k = 5L, ends = 150L, threads = c(1L, 2L), reps = 5L,
                          dir = tempfile("runs-bam-out")) {
  runs <- list()
  demux <- function(input, n) {
    out <- file.path(dir, paste0(input, "_t", n), "{name}.fastq")
    t <- timed(function() {
      sassy_demultiplex_fastx(inputs[[input]], barcodes, output = out, k = k, ends = ends, threads = n)
    })
    list(elapsed = t$elapsed, cpu = t$cpu, res = t$value)
  }
  last <- list()
  for (n in threads) {
    for (rep in seq_len(reps)) {
      inputs_timed <- intersect(c("fastq", "bam", "fastq_gz"), names(inputs))
      order <- inputs_timed[(seq_along(inputs_timed) + rep - 2L) %% length(inputs_timed) + 1L]
      for (input in order) {
        r <- demux(input, n)
        last[[input]] <- r$res
        runs[[length(runs) + 1L]] <- data.frame(
          input = input, threads = n, rep = rep, elapsed = r$elapsed, cpu = r$cpu,
          records = sum(r$res$records), fastq_bytes = file.size(inputs$fastq),
          input_bytes = file.size(inputs[[input]])
        )
      }
    }
  }
  # the same records in every output (of the last runs)
  f <- bam_bench_records(last$fastq)
  b <- bam_bench_records(last$bam)
  check <- data.frame(
    output = last$fastq$name,
    fastq_records = last$fastq$records,
    bam_records = last$bam$records,
    identical = vapply(last$fastq$name, function(o) {
      identical(unname(as.list(f[f$output == o, -1])), unname(as.list(b[b$output == o, -1])))
    }, TRUE, USE.NAMES = FALSE)
  )
  list(times = do.call(rbind, runs), check = check)
}

#' Median times per input and thread count, the throughput (MB of FASTQ a
#' second) and the ratio of the BAM's throughput to the FASTQ's.
bam_bench_summary <- function(times) {
  s <- stats::aggregate(elapsed ~ input + threads, times, stats::median)
  s$mb_per_s <- times$fastq_bytes[[1]] / 1e6 / s$elapsed
  fq <- s[s$input == "fastq", c("threads", "mb_per_s")]
  s$ratio_to_fastq <- s$mb_per_s / fq$mb_per_s[match(s$threads, fq$threads)]
  gz <- s[s$input == "fastq_gz", c("threads", "mb_per_s")]
  s$ratio_to_fastq_gz <- s$mb_per_s / gz$mb_per_s[match(s$threads, gz$threads)]
  s[order(s$threads, s$input), ]
}

if (sys.nframe() == 0L) {
  source("benchmarks/common.R")
  args <- bench_args(list(
    copies = 8L, reads = 0L, barcodes = 12L, k = 5L, ends = 150L, reps = 5L,
    threads = c(1L, 2L), seed = 39L
  ))
  load_before <- load_average()
  key <- sprintf("runs-bam-%dx%d", args$copies, args$reads)
  inputs <- bam_bench_inputs(bench_cache(key), args$copies, args$reads)
  barcodes <- bam_bench_barcodes(inputs$fastq, args$barcodes, seed = args$seed)
  out_dir <- bench_cache(paste0(key, "-out"))
  unlink(out_dir, recursive = TRUE)
  res <- run_bam_bench(inputs, barcodes, k = args$k, ends = args$ends, threads = args$threads,
                       reps = args$reps, dir = out_dir)
  print(bam_bench_summary(res$times))
  print(res$check)
  if (!all(res$check$identical)) stop("the BAM and the FASTQ gave different records")
  write_csv(res$times, "runs_bam")
  write_csv(res$check, "runs_bam_check")
  samtools_version <- tryCatch(system2("samtools", "--version", stdout = TRUE)[[1]], error = function(e) NA)
  write_receipt("runs_bam", args, load_before = load_before, extra = list(
    workload = list(
      source = QCAT_READS, copies = args$copies, reads = inputs$reads,
      fastq_bytes = file.size(inputs$fastq), bam_bytes = file.size(inputs$bam),
      barcodes = barcodes, samtools = samtools_version
    )
  ))
}
