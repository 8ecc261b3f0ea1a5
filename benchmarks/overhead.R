# The same search through four paths (benchmarks/overhead.Rmd):
#   (a) sassy_direct: a Rust binary calling the sassy crate directly, one
#       searcher, one thread (src/rust/core/examples/sassy_direct.rs)
#   (b) engine: the core engine ducksassy_core::run from Rust
#       (src/rust/core/examples/engine.rs)
#   (c) r_search: sassy_search() from R
#   (d) duckdb_table: sassy_search_table() on an in-memory DuckDB table
#       (when the installed ducksassy has it and duckdb is installed), the
#       search of each chunk overlapping the fetch of the next (default);
#       duckdb_table_serial: the same with
#       options(ducksassy.table_overlap = FALSE) (fetch, convert to R
#       strings, search, in turn), run right after it in each repetition
#   (c') r_search_progress: (c) with the progress bar on, as an interactive
#       session has it (rlang_interactive = TRUE, ducksassy.progress = TRUE,
#       shown from the start: cli.progress_show_after = 0), run right after
#       (c) in each repetition: the cost of the progress machinery
# Workloads: `dna`, the small read set of scaling.R (pattern
# GACGCTCAGTAATGTGACGA, k = 2, alphabet "iupac", both strands); `ascii`,
# dense text (random a/b letters; pattern "abba", k = 1). Each repetition
# runs every path once (the Rust binaries after one untimed warm-up call in
# their own process, inputs read before timing); every path's hits are
# summarised (count, cost sum, CIGAR bytes, sum of starts, minus-strand hits)
# and must agree.
#
#   Rscript benchmarks/overhead.R [--dna_records=262144]
#     [--ascii_records=16384] [--threads=1,2] [--reps=5]
#
# Writes benchmarks/data/overhead.csv and overhead_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  dna_records = 262144L, ascii_records = 16384L, threads = c(1L, 2L), reps = 5L
))
load_before <- load_average()
bin <- rust_examples()

table_why <- NULL
if (!exists("sassy_search_table", envir = asNamespace("ducksassy"))) {
  table_why <- "the installed ducksassy has no sassy_search_table()"
} else if (!requireNamespace("duckdb", quietly = TRUE) || !requireNamespace("DBI", quietly = TRUE)) {
  table_why <- "the duckdb (or DBI) package is not installed"
}
con <- NULL
if (is.null(table_why)) {
  con <- DBI::dbConnect(duckdb::duckdb())
  on.exit(DBI::dbDisconnect(con, shutdown = TRUE), add = TRUE)
}

workloads <- list(
  dna = list(texts = make_reads(args$dna_records), pattern = BENCH_PATTERN, k = 2L,
             alphabet = "iupac", rc = TRUE),
  ascii = list(texts = make_ascii(args$ascii_records), pattern = ASCII_PATTERN,
               k = ASCII_K, alphabet = "ascii", rc = FALSE)
)

rows <- list()
add <- function(wn, w, path, threads, rep, seconds, cpu, s) {
  rows[[length(rows) + 1L]] <<- data.frame(
    workload = wn, records = length(w$texts), path = path, threads = threads,
    rep = rep, seconds = seconds, cpu_seconds = cpu, hits = s$hits,
    cost_sum = s$cost_sum, cigar_bytes = s$cigar_bytes, start_sum = s$start_sum,
    minus = s$minus, load1 = load_average()[1]
  )
  message(sprintf("%-5s %-13s threads=%d rep=%d %.3f s, %d hits", wn, path, threads, rep, seconds, s$hits))
}

for (wn in names(workloads)) {
  w <- workloads[[wn]]
  file <- write_lines_file(w$texts, paste0("overhead-", wn, "-", length(w$texts), ".txt"))
  common_args <- c("--input", file, "--patterns", w$pattern, "--k", w$k,
                   "--alphabet", w$alphabet, "--rc", tolower(w$rc),
                   "--reps", 1, "--warmup", 1)
  if (!is.null(con)) {
    DBI::dbWriteTable(con, "reads", data.frame(sequence = w$texts), overwrite = TRUE)
  }
  search_r <- function(th) {
    sassy_search(w$texts, w$pattern, k = w$k, alphabet = w$alphabet, rc = w$rc, threads = th)
  }
  search_r_progress <- function(th) {
    old <- options(rlang_interactive = TRUE, ducksassy.progress = TRUE,
                   cli.progress_show_after = 0)
    on.exit(options(old))
    sassy_search(w$texts, w$pattern, k = w$k, alphabet = w$alphabet, rc = w$rc, threads = th)
  }
  search_table <- function(th, overlap = TRUE) {
    old <- options(ducksassy.table_overlap = overlap)
    on.exit(options(old))
    sassy_search_table(con, "reads", w$pattern, k = w$k, id = character(0),
                       alphabet = w$alphabet, rc = w$rc, threads = th)
  }
  # warm-up of the R paths
  invisible(search_r(max(args$threads)))
  if (!is.null(con)) {
    invisible(search_table(max(args$threads)))
    invisible(search_table(max(args$threads), overlap = FALSE))
  }
  for (rep in seq_len(args$reps)) {
    d <- run_example(bin, "sassy_direct", common_args)
    add(wn, w, "sassy_direct", 1L, rep, d$seconds, d$cpu_seconds, d)
    for (th in args$threads) {
      e <- run_example(bin, "engine", c(common_args, "--threads", th))
      add(wn, w, "engine", th, rep, e$seconds, e$cpu_seconds, e)
    }
    for (th in args$threads) {
      r <- timed(function() search_r(th))
      add(wn, w, "r_search", th, rep, r$elapsed, r$cpu, hit_summary(r$value))
      r <- timed(function() search_r_progress(th))
      add(wn, w, "r_search_progress", th, rep, r$elapsed, r$cpu, hit_summary(r$value))
    }
    if (!is.null(con)) {
      for (th in args$threads) {
        r <- timed(function() search_table(th))
        add(wn, w, "duckdb_table", th, rep, r$elapsed, r$cpu, hit_summary(r$value))
        r <- timed(function() search_table(th, overlap = FALSE))
        add(wn, w, "duckdb_table_serial", th, rep, r$elapsed, r$cpu, hit_summary(r$value))
      }
    }
  }
  if (!is.null(con)) DBI::dbRemoveTable(con, "reads")
}
res <- do.call(rbind, rows)
write_csv(res, "overhead")
write_receipt("overhead", args, load_before = load_before, extra = list(
  dna = list(pattern = BENCH_PATTERN, k = 2L, alphabet = "iupac", rc = TRUE, length = 256L),
  ascii = list(pattern = ASCII_PATTERN, k = ASCII_K, alphabet = "ascii", rc = FALSE, length = 256L),
  duckdb_table = if (is.null(table_why)) "run" else paste("not run:", table_why),
  duckdb_version = if (requireNamespace("duckdb", quietly = TRUE)) as.character(utils::packageVersion("duckdb")) else NA_character_,
  rust_binaries = bin
))
