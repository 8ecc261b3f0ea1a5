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
#   (c'') r_search_progress_default: the same with cli's default delay (the
#       bar appears after 2 s, so not in these shorter searches): the cost
#       of a progress-enabled search as users run it
# Workloads: `dna`, the small read set of scaling.R (pattern
# GACGCTCAGTAATGTGACGA, k = 2, alphabet "iupac", both strands); `ascii`,
# dense text (random a/b letters; pattern "abba", k = 1). Each repetition
# runs every path once (the Rust binaries after one untimed warm-up call in
# their own process, inputs read before timing); every path's hits are
# summarised (count, cost sum, CIGAR bytes, sum of starts, minus-strand hits)
# and must agree.
#
#   (e) dispatch: with --single_lib=PATH, the same sassy_search() in two
#       fresh R sessions, in turn: `r_dispatched` loads the ducksassy of
#       this R's library (the default install: a C dispatcher that loads
#       the best SIMD backend library, issue 14) and `r_single` the one
#       installed in PATH (a single-backend build, e.g. one built before
#       the dispatcher with DUCKSASSY_SIMD=avx512). Inputs are sent once;
#       each session times its own calls.
#
#   Rscript benchmarks/overhead.R [--dna_records=262144]
#     [--ascii_records=16384] [--threads=1,2] [--reps=5] [--single_lib=PATH]
#     [--lanes_records=262144] [--sweep_bytes=40000000]
#     [--only_dispatch]   (only (e): a quick check; the report needs all paths)
#     [--dispatch_reps=20] (extra rounds of (e) alone after the others)
#
# Short records (issue 12), one thread, every path in turn in each repetition:
#   `reads150`: `--lanes_records` random 150-base reads, 1% carrying the
#   20-mer (up to 2 substitutions, either strand), k = 2, both strands:
#   sassy_count() from R (text lanes), the same with DUCKSASSY_LANES=off
#   (one record at a time), sassy_direct's per-record loop, and
#   sassy_count() on one text made of the same reads pasted together.
#   `sweep`: reads of 50, 100, 150, 300, 1,000, 5,000 bases, about
#   `--sweep_bytes` letters each, 1% planted: MB/s of sassy_count() with
#   lanes, without, and on the pasted text.
#
#   Small smoke run: --dna_records=2048 --ascii_records=256 --reps=1
#     --lanes_records=4096 --sweep_bytes=400000
#
# Writes benchmarks/data/overhead.csv, overhead_lanes.csv and
# overhead_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  dna_records = 262144L, ascii_records = 16384L, threads = c(1L, 2L), reps = 5L,
  single_lib = "", only_dispatch = FALSE, dispatch_reps = 20L,
  lanes_records = 262144L, sweep_bytes = 40000000L
))
if (args$only_dispatch && !nzchar(args$single_lib)) stop("--only_dispatch needs --single_lib")
load_before <- load_average()
bin <- if (!args$only_dispatch) rust_examples()

table_why <- NULL
if (!exists("sassy_search_table", envir = asNamespace("ducksassy"))) {
  table_why <- "the installed ducksassy has no sassy_search_table()"
} else if (args$only_dispatch) {
  table_why <- "--only_dispatch"
} else if (!requireNamespace("duckdb", quietly = TRUE) || !requireNamespace("DBI", quietly = TRUE)) {
  table_why <- "the duckdb (or DBI) package is not installed"
}
con <- NULL
if (is.null(table_why)) {
  con <- DBI::dbConnect(duckdb::duckdb())
  on.exit(DBI::dbDisconnect(con, shutdown = TRUE), add = TRUE)
}

# (e) two R sessions, one per build; NULL without --single_lib
dispatch_sessions <- NULL
if (nzchar(args$single_lib)) {
  if (!requireNamespace("callr", quietly = TRUE)) stop("--single_lib needs the callr package")
  if (!dir.exists(file.path(args$single_lib, "ducksassy"))) {
    stop("--single_lib: no ducksassy installed in ", args$single_lib)
  }
  start_session <- function(lib) {
    s <- callr::r_session$new(callr::r_session_options(
      libpath = unique(c(lib, .libPaths())),
      env = c(DUCKSASSY_BACKEND = "")
    ))
    s$run(function() {
      suppressPackageStartupMessages(library(ducksassy))
      NULL
    })
    s
  }
  dispatch_sessions <- list(
    r_dispatched = start_session(dirname(find.package("ducksassy"))),
    r_single = start_session(args$single_lib)
  )
  on.exit(for (s in dispatch_sessions) s$close(), add = TRUE)
}
# what each session loaded: package path, library files, backend report
dispatch_builds <- lapply(dispatch_sessions, function(s) s$run(function() {
  path <- find.package("ducksassy")
  list(path = path, libs = list.files(file.path(path, "libs")),
       backend = utils::capture.output(print(sassy_backend_info())))
}))

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
  search_r_progress_default <- function(th) {
    # the progress machinery as a user has it: on, interactive, the bar
    # shown only once the search has run for cli's default delay (2 s)
    old <- options(rlang_interactive = TRUE, ducksassy.progress = TRUE)
    on.exit(options(old))
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
  for (s in dispatch_sessions) {
    s$run(function(texts) {
      assign("bench_texts", texts, envir = globalenv())
      NULL
    }, list(w$texts))
  }
  search_session <- function(s, th) {
    s$run(function(pattern, k, alphabet, rc, th) {
      texts <- get("bench_texts", envir = globalenv())
      t0 <- proc.time()
      h <- sassy_search(texts, pattern, k = k, alphabet = alphabet, rc = rc, threads = th)
      t <- proc.time() - t0
      list(elapsed = t[["elapsed"]], cpu = t[["user.self"]] + t[["sys.self"]],
           hits = nrow(h), cost_sum = sum(as.numeric(h$cost)),
           cigar_bytes = sum(as.numeric(nchar(h$cigar, "bytes"))),
           start_sum = sum(as.numeric(h$start)), minus = sum(h$strand == "-"))
    }, list(w$pattern, w$k, w$alphabet, w$rc, th))
  }
  # warm-up of the R paths
  if (!args$only_dispatch) invisible(search_r(max(args$threads)))
  for (s in dispatch_sessions) invisible(search_session(s, max(args$threads)))
  if (!is.null(con)) {
    invisible(search_table(max(args$threads)))
    invisible(search_table(max(args$threads), overlap = FALSE))
  }
  for (rep in seq_len(args$reps)) {
    if (!args$only_dispatch) {
      # (a), (b), (c)
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
        r <- timed(function() search_r_progress_default(th))
        add(wn, w, "r_search_progress_default", th, rep, r$elapsed, r$cpu, hit_summary(r$value))
      }
    }
    # (e) alternate which build goes first, so drift hits both alike
    sess <- names(dispatch_sessions)
    if (rep %% 2L == 0L) sess <- rev(sess)
    for (th in args$threads) {
      for (sn in sess) {
        r <- search_session(dispatch_sessions[[sn]], th)
        add(wn, w, sn, th, rep, r$elapsed, r$cpu, r)
      }
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
  # (e) again, alone: more pairs for a ratio within a few percent
  for (rep in seq_len(args$dispatch_reps)) {
    sess <- names(dispatch_sessions)
    if (rep %% 2L == 0L) sess <- rev(sess)
    for (th in args$threads) {
      for (sn in sess) {
        r <- search_session(dispatch_sessions[[sn]], th)
        add(wn, w, sn, th, args$reps + rep, r$elapsed, r$cpu, r)
      }
    }
  }
  if (!is.null(con)) DBI::dbRemoveTable(con, "reads")
}
res <- do.call(rbind, rows)
write_csv(res, "overhead")

# ---- short records: text lanes vs one by one vs one long text ------------
if (!args$only_dispatch) {
lane_rows <- list()
count_paths <- function(texts, pattern) {
  pasted <- paste(texts, collapse = "")
  list(
    lanes = function() sassy_count(texts, pattern, k = 2L, threads = 1L),
    one_by_one = function() withr::with_envvar(c(DUCKSASSY_LANES = "off"), sassy_count(texts, pattern, k = 2L, threads = 1L)),
    one_text = function() sassy_count(pasted, pattern, k = 2L, threads = 1L)
  )
}
add_lane <- function(workload, len, n, path, rep, seconds, cpu, value) {
  lane_rows[[length(lane_rows) + 1L]] <<- data.frame(
    workload = workload, length = len, records = n, path = path, rep = rep,
    seconds = seconds, cpu_seconds = cpu, value = value,
    mb_per_s = n * len / 1e6 / seconds, load1 = load_average()[1]
  )
  message(sprintf("%-8s len=%-5d %-12s rep=%d %.3f s (CPU %.3f)", workload, len, path, rep, seconds, cpu))
}
reads150 <- make_reads(args$lanes_records, 150L, plant_every = 100L)
file150 <- write_lines_file(reads150, paste0("overhead-reads150-", length(reads150), ".txt"))
p150 <- count_paths(reads150, BENCH_PATTERN)
want <- sum(p150$one_by_one() > 0L) # warm-up
for (rep in seq_len(args$reps)) {
  for (pn in names(p150)) {
    r <- timed(p150[[pn]])
    add_lane("reads150", 150L, length(reads150), pn, rep, r$elapsed, r$cpu, sum(r$value))
  }
  d <- run_example(bin, "sassy_direct", c("--input", file150, "--patterns", BENCH_PATTERN,
                                          "--k", 2, "--alphabet", "iupac", "--rc", "true",
                                          "--reps", 1, "--warmup", 1))
  add_lane("reads150", 150L, length(reads150), "sassy_direct", rep, d$seconds, d$cpu_seconds, d$hits)
}
for (len in c(50L, 100L, 150L, 300L, 1000L, 5000L)) {
  n <- max(1L, as.integer(args$sweep_bytes %/% len))
  texts <- make_reads(n, len, plant_every = 100L)
  ps <- count_paths(texts, BENCH_PATTERN)
  stopifnot(identical(ps$lanes(), ps$one_by_one()))
  for (rep in seq_len(args$reps)) {
    for (pn in names(ps)) {
      r <- timed(ps[[pn]])
      add_lane("sweep", len, n, pn, rep, r$elapsed, r$cpu, sum(r$value))
    }
  }
}
write_csv(do.call(rbind, lane_rows), "overhead_lanes")
}
write_receipt("overhead", args, load_before = load_before, extra = list(
  dna = list(pattern = BENCH_PATTERN, k = 2L, alphabet = "iupac", rc = TRUE, length = 256L),
  ascii = list(pattern = ASCII_PATTERN, k = ASCII_K, alphabet = "ascii", rc = FALSE, length = 256L),
  duckdb_table = if (is.null(table_why)) "run" else paste("not run:", table_why),
  duckdb_version = if (requireNamespace("duckdb", quietly = TRUE)) as.character(utils::packageVersion("duckdb")) else NA_character_,
  rust_binaries = bin,
  dispatch = if (is.null(dispatch_sessions)) "not run: no --single_lib" else dispatch_builds
))
