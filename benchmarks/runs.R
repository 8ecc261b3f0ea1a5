# Whole runs: what a demultiplexing costs with its files (issue 39,
# benchmarks/runs.Rmd).
#
# gzip outputs. The real nanopore reads of Debian's `qcat-examples`
# (qcat/test/data/barcode_1k.fastq.gz: 1,000 reads, 7.5 MB of FASTQ),
# `--copies` copies one after the other (8: about 60 MB; each copy's read
# names prefixed `c<i>_`), as one plain FASTQ; the 12 native barcodes of
# ONT's NBD104 kit (qcat's kit file), k = `--k`, ends = `--ends`.
# sassy_demultiplex_fastx(fastq, barcodes, output = "<dir>/{name}.fastq"
# or ".fastq.gz", ...) on each of `--threads`, the gzip outputs at the
# default compression level and at each of `--levels`. Every repetition
# runs every path once, in an order rotated from one repetition to the
# next (paired ratios: gz / plain, 1 thread / 2 threads). The outputs of
# every path must hold the same records: the decompressed outputs of the
# first repetition are compared byte for byte with the plain ones.
#
# Memory. Peak RSS (VmHWM of /proc/self/status) of a fresh Rscript that
# loads ducksassy and demultiplexes the 1x input (`--copies` copies) or
# the 4x input (4 x `--copies`), into gzip (default level) and plain
# files, on the largest of `--threads`; `--rss_reps` processes each, in
# alternating order. The process's RSS after loading the package is
# reported too.
#
#   Rscript benchmarks/runs.R [--copies=8] [--k=5] [--ends=150] [--reps=10]
#     [--threads=1,2] [--levels=2] [--rss_reps=3] [--ont_reads=3000]
#     [--ont_copies=10] [--ont_k=3]  (--ont_reads=0: the real reads only)
#   Small smoke run: --copies=1 --reps=2 --rss_reps=1
#
# Writes benchmarks/data/runs.csv (times), runs_memory.csv and
# runs_receipt.json; the inputs go to $DUCKSASSY_BENCH_CACHE/runs-*.
# Needs Debian's qcat-examples (tools/setup installs it).

source("benchmarks/common.R")
args <- bench_args(list(
  copies = 8L, k = 5L, ends = 150L, reps = 10L, threads = c(1L, 2L), levels = 2L,
  rss_reps = 3L, ont_reads = 3000L, ont_copies = 10L, ont_k = 3L
))
load_before <- load_average()
threads <- sort(unique(args$threads))
has_level <- "compression_level" %in% names(formals(sassy_demultiplex_fastx))
default_level <- if (has_level) formals(sassy_demultiplex_fastx)$compression_level else NA_integer_
levels <- if (has_level) setdiff(unique(args$levels), default_level) else integer()
if (!has_level) message("the installed ducksassy has no `compression_level`: gzip at its fixed level only")

# ---- the workload -------------------------------------------------------------
qcat_reads <- function() {
  path <- "/usr/share/doc/qcat/examples/qcat/test/data/barcode_1k.fastq.gz"
  if (file.exists(path)) return(path)
  found <- tryCatch(
    suppressWarnings(system2("dpkg", c("-L", "qcat-examples"), stdout = TRUE, stderr = FALSE)),
    error = function(e) character()
  )
  found <- grep("barcode_1k\\.fastq\\.gz$", found, value = TRUE)
  if (!length(found)) stop("the reads of Debian's qcat-examples are not installed (apt-get install qcat-examples; tools/setup)")
  found[[1]]
}
src <- qcat_reads()
# NBD104 native barcodes 1-12 (qcat/resources/kits/NBD104_5p.yml)
barcodes <- c(
  barcode01 = "CACAAAGACACCGACAACTTTCTT", barcode02 = "ACAGACGACTACAAACGGAATCGA",
  barcode03 = "CCTGGTAACTGGGACACAAGACTC", barcode04 = "TAGGGAAACACGATAGAATCCGAA",
  barcode05 = "AAGGTTACACAAACCCTGGACAAG", barcode06 = "GACTACTTTCTGCCTTTGCGAGAA",
  barcode07 = "AAGGATTCATTCCCACGGTAACAC", barcode08 = "ACGTAACTTGGTTTGTTCCCTGAA",
  barcode09 = "AACCAAGACTCGCTGTGCCTAGTT", barcode10 = "GAGAGGACAAAGGTTTCAACGCTT",
  barcode11 = "TCCATTCCCTCCGATAGATGAAAC", barcode12 = "TCCGATTCTGCTTCTTTCTACCTG"
)
con <- gzfile(src, "r")
lines <- readLines(con)
close(con)
stopifnot(length(lines) %% 4L == 0L)
header <- seq(1L, length(lines), by = 4L)
#' The FASTQ of `copies` copies of the reads (made once, kept in the cache).
make_input <- function(copies) {
  path <- bench_cache(sprintf("runs-qcat-%dx.fastq", copies))
  want <- copies * (sum(as.numeric(nchar(lines, "bytes"))) + length(lines)) +
    sum(nchar(sprintf("c%d_", seq_len(copies)))) * length(header)
  if (file.exists(path) && file.size(path) == want) return(path)
  con <- file(path, "w")
  for (i in seq_len(copies)) {
    l <- lines
    l[header] <- sub("^@", paste0("@c", i, "_"), l[header])
    writeLines(l, con)
  }
  close(con)
  stopifnot(file.size(path) == want)
  path
}
input <- make_input(args$copies)
input_bytes <- file.size(input)
n_reads <- length(header) * args$copies
message(sprintf("%s reads, %.1f MB (%d copies of %s), %d barcodes, k = %d, ends = %d",
                format(n_reads, big.mark = ","), input_bytes / 1e6, args$copies, basename(src),
                length(barcodes), args$k, args$ends))

# The ONT-like reads of benchmarks/barcodes.Rmd (barcodes_data.R: 500-6,000
# bases, 96 random barcodes of 24 at both ends with 0-3 edits, 10% without),
# `--ont_reads` reads, `--ont_copies` copies one after the other (names
# prefixed `c<i>_`): with the defaults 30,000 reads, about 200 MB.
source("benchmarks/barcodes_data.R")
make_ont_input <- function(n, copies) {
  path <- bench_cache(sprintf("runs-ont-%d-%dx.fastq", n, copies))
  data <- make_barcode_data(reads = n, barcodes = BARCODE_DEFAULTS$barcodes, seed = BARCODE_DEFAULTS$seed)
  if (!file.exists(path)) {
    r <- data$reads
    quals <- vapply(nchar(r), function(m) strrep("I", m), "")
    con <- file(path, "w")
    for (i in seq_len(copies)) {
      writeLines(c(rbind(paste0("@c", i, "_", names(r)), unname(r), "+", quals)), con, useBytes = TRUE)
    }
    close(con)
  }
  list(path = path, barcodes = data$barcodes, reads = n * copies)
}
workloads <- list(
  qcat_reads = list(input = input, barcodes = barcodes, k = args$k, reads = n_reads)
)
if (args$ont_reads > 0L) {
  ont <- make_ont_input(args$ont_reads, args$ont_copies)
  workloads$ont_like <- list(input = ont$path, barcodes = ont$barcodes, k = args$ont_k, reads = ont$reads)
  message(sprintf("ONT-like: %s reads, %.1f MB, %d barcodes, k = %d", format(ont$reads, big.mark = ","),
                  file.size(ont$path) / 1e6, length(ont$barcodes), args$ont_k))
}

out_root <- bench_cache("runs-out")
unlink(out_root, recursive = TRUE)
dir.create(out_root, recursive = TRUE)

# ---- the paths ----------------------------------------------------------------
#' One path: format "plain" or "gz", a level (NA: the default), threads.
path_spec <- rbind(
  expand.grid(format = "plain", level = NA_integer_, threads = threads, stringsAsFactors = FALSE),
  expand.grid(format = "gz", level = NA_integer_, threads = threads, stringsAsFactors = FALSE),
  if (length(levels)) expand.grid(format = "gz", level = levels, threads = threads, stringsAsFactors = FALSE)
)
path_spec$path <- with(path_spec, paste0(format, ifelse(is.na(level), "", paste0("_level", level)), "_threads", threads))
path_spec$level_used <- ifelse(path_spec$format == "gz", ifelse(is.na(path_spec$level), default_level, path_spec$level), NA)

run_path <- function(i, out, w) {
  s <- path_spec[i, ]
  ext <- if (s$format == "gz") ".fastq.gz" else ".fastq"
  a <- list(w$input, w$barcodes, output = file.path(out, paste0("{name}", ext)), k = w$k,
            ends = args$ends, threads = s$threads)
  if (!is.na(s$level)) a$compression_level <- s$level
  do.call(sassy_demultiplex_fastx, a)
}

#' The bytes of a (gzip or plain) file, read whole.
file_bytes <- function(p) {
  con <- gzfile(p, "rb") # plain files too
  on.exit(close(con))
  out <- list()
  while (length(x <- readBin(con, "raw", 1e7))) out[[length(out) + 1L]] <- x
  if (length(out)) unlist(out) else raw()
}

# warm-up, and the check that every path writes the same records
assigned <- list()
for (wn in names(workloads)) {
  w <- workloads[[wn]]
  w_bytes <- file.size(w$input)
  ref <- NULL
  for (i in seq_len(nrow(path_spec))) {
    d <- file.path(out_root, path_spec$path[[i]])
    unlink(d, recursive = TRUE)
    res <- run_path(i, d, w)
    bytes <- lapply(res$path, file_bytes)
    if (is.null(ref)) {
      ref <- list(records = res$records, bytes = bytes)
      stopifnot(sum(res$records) == w$reads, sum(lengths(bytes)) == w_bytes)
    } else if (!identical(res$records, ref$records) || !identical(bytes, ref$bytes)) {
      stop(wn, ": ", path_spec$path[[i]], " wrote other records than ", path_spec$path[[1]])
    }
    rm(bytes)
  }
  assigned[[wn]] <- sum(ref$records[!res$name %in% c("unassigned", "ambiguous")])
  message(sprintf("%s: every path writes the same records; %d of %d reads assigned", wn, assigned[[wn]], w$reads))
  rm(ref)
  gc(verbose = FALSE)
}

# ---- timing ---------------------------------------------------------------------
rows <- list()
for (rep in seq_len(args$reps)) {
  n <- nrow(path_spec)
  order <- (seq_len(n) + rep - 2L) %% n + 1L
  for (wn in names(workloads)) {
    w <- workloads[[wn]]
    for (j in seq_len(n)) {
      i <- order[[j]]
      d <- file.path(out_root, path_spec$path[[i]])
      unlink(d, recursive = TRUE)
      gc(verbose = FALSE)
      t0 <- proc.time()
      res <- run_path(i, d, w)
      dt <- proc.time() - t0
      s <- path_spec[i, ]
      rows[[length(rows) + 1L]] <- data.frame(
        part = "gzip outputs", workload = wn, path = s$path, format = s$format,
        level = s$level_used, threads = s$threads, rep = rep, order = j,
        seconds = dt[["elapsed"]], cpu_seconds = dt[["user.self"]] + dt[["sys.self"]],
        input_bytes = file.size(w$input), output_bytes = sum(file.size(res$path)),
        records = sum(res$records), load1 = load_average()[1], stringsAsFactors = FALSE
      )
      message(sprintf("rep %d %-10s %-22s %.3f s (cpu %.3f s), %.1f MB written", rep, wn, s$path,
                      dt[["elapsed"]], dt[["user.self"]] + dt[["sys.self"]], sum(file.size(res$path)) / 1e6))
    }
  }
}
write_csv(do.call(rbind, rows), "runs")

# ---- memory ---------------------------------------------------------------------
#' Peak RSS (kB) of a fresh R process demultiplexing `path` into `format`
#' files on `th` threads, and its RSS after loading the package.
measure_rss <- function(path, format, th) {
  out <- file.path(out_root, "rss")
  unlink(out, recursive = TRUE)
  code <- c(
    "suppressPackageStartupMessages(library(ducksassy))",
    "hwm <- function() as.numeric(gsub('[^0-9]', '', grep('^VmHWM', readLines('/proc/self/status'), value = TRUE)))",
    "base <- hwm()",
    "e <- Sys.getenv",
    "t <- system.time(res <- sassy_demultiplex_fastx(e('RUNS_INPUT'), eval(parse(text = e('RUNS_BARCODES'))),",
    "  output = e('RUNS_OUTPUT'), k = as.integer(e('RUNS_K')), ends = as.integer(e('RUNS_ENDS')),",
    "  threads = as.integer(e('RUNS_THREADS'))))[['elapsed']]",
    "cat(base, hwm(), t, sum(res$records), '\\n')"
  )
  script <- file.path(out_root, "rss.R")
  writeLines(code, script)
  env <- c(
    paste0("RUNS_INPUT=", shQuote(path)),
    paste0("RUNS_BARCODES=", shQuote(paste(deparse(barcodes), collapse = ""))),
    paste0("RUNS_OUTPUT=", shQuote(file.path(out, paste0("{name}", if (format == "gz") ".fastq.gz" else ".fastq")))),
    paste0("RUNS_K=", args$k), paste0("RUNS_ENDS=", args$ends), paste0("RUNS_THREADS=", th),
    child_lib_env()
  )
  res <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)), stdout = TRUE, env = env)
  v <- as.numeric(strsplit(trimws(res[length(res)]), " +")[[1]])
  list(loaded_kb = v[[1]], peak_kb = v[[2]], seconds = v[[3]], records = v[[4]])
}
input4 <- make_input(4L * args$copies)
th_rss <- max(threads)
mem <- list()
for (rep in seq_len(args$rss_reps)) {
  runs <- expand.grid(size = c("1x", "4x"), format = c("gz", "plain"), stringsAsFactors = FALSE)
  if (rep %% 2L == 0L) runs <- runs[rev(seq_len(nrow(runs))), ]
  for (j in seq_len(nrow(runs))) {
    sz <- runs$size[[j]]
    m <- measure_rss(if (sz == "1x") input else input4, runs$format[[j]], th_rss)
    mem[[length(mem) + 1L]] <- data.frame(
      size = sz, copies = if (sz == "1x") args$copies else 4L * args$copies,
      input_bytes = file.size(if (sz == "1x") input else input4), format = runs$format[[j]],
      level = if (runs$format[[j]] == "gz") default_level else NA, threads = th_rss, rep = rep,
      loaded_kb = m$loaded_kb, peak_kb = m$peak_kb, seconds = m$seconds, records = m$records,
      load1 = load_average()[1], stringsAsFactors = FALSE
    )
    message(sprintf("rss rep %d %s %-5s peak %.1f MB (loaded %.1f MB), %.2f s", rep, sz, runs$format[[j]],
                    m$peak_kb / 1024, m$loaded_kb / 1024, m$seconds))
  }
}
write_csv(do.call(rbind, mem), "runs_memory")

write_receipt("runs", args, load_before = load_before, extra = list(
  workload = list(
    source = src, source_package = paste("qcat-examples", tryCatch(
      system2("dpkg-query", c("-W", "-f='${Version}'", "qcat-examples"), stdout = TRUE, stderr = FALSE),
      error = function(e) NA_character_)),
    copies = args$copies, reads = n_reads, input_bytes = input_bytes, input_4x_bytes = file.size(input4),
    barcodes = length(barcodes), barcode_kit = "NBD104 (barcode01-12)", assigned = assigned$qcat_reads,
    k = args$k, ends = args$ends
  ),
  ont_like = if (!is.null(workloads$ont_like)) list(
    source = "benchmarks/barcodes_data.R", reads = workloads$ont_like$reads, copies = args$ont_copies,
    input_bytes = file.size(workloads$ont_like$input), barcodes = length(workloads$ont_like$barcodes),
    k = args$ont_k, ends = args$ends, assigned = assigned$ont_like
  ),
  compression_level_default = default_level,
  gzip = tryCatch(system2("gzip", "--version", stdout = TRUE)[1], error = function(e) NA_character_)
))
unlink(out_root, recursive = TRUE)
