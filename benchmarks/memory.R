# Memory: peak resident memory of the streaming paths, and allocations per
# record of the core in steady state (benchmarks/memory.Rmd).
#
# 1. Allocations: src/rust/core/examples/alloc_count.rs, a counting global
#    allocator around the engine (ducksassy_core::run) on random DNA records
#    of `--length` bases without hits (and, for hits, with one planted hit
#    each), after a warm-up; each call is made on N and 2N records, the
#    difference / N is allocations per record; the stacks of the per-record
#    allocations are recorded (`--trace` records).
# 2. Peak RSS of the streaming paths: the CSVs of benchmarks/fastx_memory.R
#    (sassy_search_fastx) and benchmarks/table_memory.R (sassy_search_table
#    on DuckDB), each size in a fresh R process reading VmHWM from
#    /proc/self/status. When a CSV is missing (and `--rss_fallback` is
#    true), a smaller measurement of the same kind is made here (fresh
#    process per size, VmHWM): memory_rss.csv.
#
#   Rscript benchmarks/memory.R [--records=50000] [--length=256]
#     [--threads=1,2] [--trace=200] [--rss_fallback=true]
#     [--fallback_reads=250000]
#
# Writes benchmarks/data/memory_allocs.csv, memory_alloc_sources.csv,
# (memory_rss.csv) and memory_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  records = 50000L, length = 256L, threads = c(1L, 2L), trace = 200L,
  rss_fallback = TRUE, fallback_reads = 250000L
))
load_before <- load_average()
bin <- rust_examples()

# ---- allocations per record -------------------------------------------------
out <- system2(file.path(bin, "alloc_count"), c(
  "--records", args$records, "--length", args$length,
  "--threads", paste(args$threads, collapse = ","), "--trace", args$trace
), stdout = TRUE)
if (!is.null(attr(out, "status"))) stop("alloc_count failed:\n", paste(out, collapse = "\n"))
allocs <- parse_kv(out[startsWith(out, "mode=")])
write_csv(allocs, "memory_allocs")
src_lines <- out[startsWith(out, "source ")]
sources <- if (length(src_lines)) {
  s <- parse_kv(sub(" stack=.*", "", src_lines), "source")
  s$stack <- sub(".* stack=", "", src_lines)
  s
} else {
  data.frame(mode = character(), threads = integer(), workload = character(),
             records = integer(), allocs = integer(), per_record = numeric(), stack = character())
}
write_csv(sources, "memory_alloc_sources")

# ---- peak RSS ------------------------------------------------------------------
have <- c(
  fastx = file.exists("benchmarks/data/fastx_memory.csv"),
  table = file.exists("benchmarks/data/table_memory.csv")
)
rss_rows <- list()
if (args$rss_fallback && !all(have)) {
  dir <- bench_cache("memory")
  dir.create(dir, showWarnings = FALSE)
  reads <- make_reads(args$fallback_reads, 100L, seed = 11L)
  measure <- function(path_kind, mult) {
    code <- c(
      if (nzchar(bench_lib)) sprintf(".libPaths(c(%s, .libPaths()))", deparse(bench_lib)),
      "suppressPackageStartupMessages(library(ducksassy))",
      "hwm <- function() as.numeric(gsub('[^0-9]', '', grep('^VmHWM', readLines('/proc/self/status'), value = TRUE)))",
      "a <- commandArgs(TRUE); kind <- a[1]; path <- a[2]",
      "if (kind == 'table') { suppressPackageStartupMessages(library(DBI)); con <- dbConnect(duckdb::duckdb(), path, read_only = TRUE) }",
      "loaded <- hwm()",
      "t <- system.time(res <- if (kind == 'fastx') sassy_count_fastx(path, 'GACGCTCAGTAATGTGACGA', k = 1) else sassy_count_table(con, 'reads', 'GACGCTCAGTAATGTGACGA', k = 1))[['elapsed']]",
      "cat('RSS loaded_kb=', loaded, ' peak_kb=', hwm(), ' seconds=', t, ' rows=', nrow(res), '\\n', sep = '')"
    )
    script <- file.path(dir, "measure.R")
    writeLines(code, script)
    path <- if (path_kind == "fastx") {
      p <- file.path(dir, sprintf("reads-%dx.fa", mult))
      con <- file(p, "w")
      for (i in seq_len(mult)) writeLines(paste0(">c", i, "_r", seq_along(reads), "\n", reads), con)
      close(con)
      p
    } else {
      p <- file.path(dir, sprintf("reads-%dx.duckdb", mult))
      unlink(p)
      con <- DBI::dbConnect(duckdb::duckdb(), p)
      for (i in seq_len(mult)) {
        DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(reads) + (i - 1L) * length(reads), sequence = reads),
                          append = i > 1L)
      }
      DBI::dbDisconnect(con, shutdown = TRUE)
      p
    }
    o <- system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script), path_kind, shQuote(path)),
                 stdout = TRUE)
    r <- parse_kv(o, "RSS")
    unlink(path)
    cbind(data.frame(path = path_kind, size = paste0(mult, "x"), records = mult * length(reads)), r)
  }
  for (kind in names(have)[!have]) {
    if (kind == "table" && !(requireNamespace("duckdb", quietly = TRUE) &&
                             exists("sassy_search_table", envir = asNamespace("ducksassy")))) {
      message("no table memory measurement: duckdb or sassy_search_table() is not available")
      next
    }
    for (mult in c(1L, 4L)) rss_rows[[length(rss_rows) + 1L]] <- measure(kind, mult)
  }
}
if (length(rss_rows)) {
  write_csv(do.call(rbind, rss_rows), "memory_rss")
} else {
  unlink("benchmarks/data/memory_rss.csv")
}

write_receipt("memory", args, load_before = load_before, extra = list(
  pattern = BENCH_PATTERN, k = 2L, alphabet = "iupac", rc = TRUE,
  rss_csvs = list(
    fastx_memory = if (have[["fastx"]]) format(file.mtime("benchmarks/data/fastx_memory.csv"), "%Y-%m-%dT%H:%M:%S") else NA_character_,
    table_memory = if (have[["table"]]) format(file.mtime("benchmarks/data/table_memory.csv"), "%Y-%m-%dT%H:%M:%S") else NA_character_
  ),
  rss_fallback_used = length(rss_rows) > 0L,
  rust_binaries = bin
))
