# Peak memory of sassy_count_fastx() over FASTQ files with 1x
# and 4x as many reads (issue 4: "peak memory for a count over a FASTQ with
# 4x more reads is within 25%").
#
# The files are made by repeating the real lambda phage reads of Debian's
# bowtie2-examples (reads/reads_1.fq.gz, 10,000 reads; the package's 200-read
# fixture when that is not installed), each copy's read names made unique
# (r1 -> c2_r1), gzip-compressed. Each measurement runs in a fresh Rscript
# that loads ducksassy, counts one 20-mer (k = 1) in every read and reports
# its peak resident memory (VmHWM in /proc/self/status). Two baselines: the
# process after loading the package ("loaded"), and a count over the
# package's 200-read fixture ("fixture"), which includes what any first
# search costs (R code loaded on first use, the Rust library's pages, the
# thread pool).
#
# Run from the package root with ducksassy installed (R_LIBS may point at the
# library):   Rscript benchmarks/fastx_memory.R [copies_1x]
# Writes benchmarks/data/fastx_memory.csv and prints it.

source("benchmarks/common.R") # child_lib_env(), DUCKSASSY_BENCH_LIB
args <- commandArgs(trailingOnly = TRUE)
copies_1x <- if (length(args) >= 1) as.integer(args[[1]]) else 5L
out_csv <- file.path("benchmarks", "data", "fastx_memory.csv")
stopifnot(file.exists("DESCRIPTION"), copies_1x >= 1)
if (!file.exists("/proc/self/status")) stop("needs Linux (/proc/self/status)")

src <- "/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz"
if (!file.exists(src)) src <- file.path("inst", "extdata", "lambda_reads_1.fq.gz")
con <- gzfile(src, "r")
lines <- readLines(con)
close(con)
n_src <- length(lines) / 4
header <- seq(1, length(lines), by = 4)

dir <- tempfile("fastx-memory-")
dir.create(dir)
on.exit(unlink(dir, recursive = TRUE), add = TRUE)

make_fastq <- function(copies) {
  path <- file.path(dir, sprintf("reads-%dx.fq.gz", copies))
  con <- gzfile(path, "w", compression = 6)
  for (i in seq_len(copies)) {
    l <- lines
    l[header] <- sub("^@", paste0("@c", i, "_"), l[header])
    writeLines(l, con)
  }
  close(con)
  path
}

# One measurement in a fresh R process: peak RSS (kB), seconds, rows.
measure <- function(path) {
  code <- c(
    "suppressPackageStartupMessages(library(ducksassy))",
    "hwm <- function() as.numeric(gsub('[^0-9]', '', grep('^VmHWM', readLines('/proc/self/status'), value = TRUE)))",
    "base <- hwm()",
    "path <- Sys.getenv('FASTX_PATH')",
    "t <- system.time(res <- if (nzchar(path)) sassy_count_fastx(path, 'GACGCTCAGTAATGTGACGA', k = 1) else NULL)[['elapsed']]",
    "cat(base, hwm(), t, if (is.null(res)) 0 else nrow(res), if (is.null(res)) 0 else sum(res[[3]]), '\\n')"
  )
  script <- file.path(dir, "measure.R")
  writeLines(code, script)
  out <- system2(
    file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
    stdout = TRUE, env = c(paste0("FASTX_PATH=", shQuote(path)), child_lib_env())
  )
  as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]])
}

rows <- list()
fixture <- file.path("inst", "extdata", "lambda_reads_1.fq.gz")
base <- measure(fixture)
rows[[1]] <- data.frame(
  label = "fixture", copies = NA_integer_, reads = as.integer(base[[4]]),
  file_mb = round(file.size(fixture) / 2^20, 2), loaded_kb = base[[1]],
  peak_kb = base[[2]], seconds = base[[3]], hits = base[[5]]
)
for (mult in c(1L, 4L)) {
  copies <- copies_1x * mult
  path <- make_fastq(copies)
  m <- measure(path)
  stopifnot(m[[4]] == n_src * copies)
  rows[[length(rows) + 1L]] <- data.frame(
    label = paste0(mult, "x"), copies = copies, reads = as.integer(m[[4]]),
    file_mb = round(file.size(path) / 2^20, 2), loaded_kb = m[[1]],
    peak_kb = m[[2]], seconds = m[[3]], hits = m[[5]]
  )
}
res <- do.call(rbind, rows)
res$ratio_to_1x <- round(res$peak_kb / res$peak_kb[res$label == "1x"], 3)
# what each further read costs at the peak (mostly the result row: its name)
one <- res[res$label == "1x", ]
res$bytes_per_extra_read <- round(1024 * (res$peak_kb - one$peak_kb) / (res$reads - one$reads))
res$bytes_per_extra_read[res$label != "4x"] <- NA
res$threads <- {
  suppressPackageStartupMessages(library(ducksassy))
  sassy_threads()
}
res$source <- basename(src)
dir.create(dirname(out_csv), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, out_csv, row.names = FALSE)
print(res)
ratio <- res$ratio_to_1x[res$label == "4x"]
cat(sprintf(
  "\npeak RSS 4x / 1x = %.3f (%s the 25%% bound)\n", ratio,
  if (ratio <= 1.25) "within" else "OUTSIDE"
))
