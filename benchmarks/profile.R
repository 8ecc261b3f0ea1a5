# Where the time of one warm search goes (benchmarks/profile.Rmd).
#
# Runs benchmarks/profile_worker.R (one workload, a warm-up search, then
# `--reps` measured searches) under a profiler that records only the
# measured searches, for each workload and thread count, and sorts the
# profile's symbols into categories (categorise() below):
#   perf       `perf record -e cpu-clock -F FREQ -D -1 --control=fifo:...`
#              (samples of the whole process, user and kernel; the worker
#              enables and disables recording around the measured searches),
#              then `perf report --no-children --sort dso,sym`: self samples
#              per symbol, so nested calls are not counted twice
#   callgrind  `valgrind --tool=callgrind --zero-before=wrap__ds_sassy_version
#              --dump-before=wrap__ds_rust_simd` (instructions executed, all
#              threads; the worker calls those two entry points around the
#              measured searches), then `callgrind_annotate --inclusive=no`.
#              Valgrind cannot run AVX-512 code, so callgrind needs a build of
#              the package for AVX2 (`--callgrind_lib`, made here with
#              DUCKSASSY_SIMD=avx2 R CMD INSTALL when it does not exist).
# `--tool=auto` uses perf where `perf record` works, else callgrind;
# `--tool=both` runs both.
#
# Workloads (common.R): `dna`, random 256-base reads, half with a copy of
# GACGCTCAGTAATGTGACGA (k = 2, both strands, iupac, CIGARs); `ascii`, random
# a/b text, 256 letters per record, pattern "abba", k = 1 (about 65 hits per
# record). Callgrind runs ~50x slower, so it uses smaller inputs.
#
#   Rscript benchmarks/profile.R [--tool=auto|perf|callgrind|both]
#     [--dna_records=262144] [--ascii_records=16384] [--threads=1,2]
#     [--reps=3] [--frequency=4999] [--callgrind_dna_records=16384]
#     [--callgrind_ascii_records=2048] [--callgrind_lib=DIR]
#
# Writes benchmarks/data/profile.csv (per category), profile_symbols.csv
# (per symbol) and profile_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  tool = "auto", dna_records = 262144L, ascii_records = 16384L,
  threads = c(1L, 2L), reps = 3L, frequency = 4999L,
  callgrind_dna_records = 16384L, callgrind_ascii_records = 2048L,
  callgrind_lib = bench_cache("rlib-avx2")
))
load_before <- load_average()
work <- bench_cache("profile")
unlink(work, recursive = TRUE)
dir.create(work, recursive = TRUE)
rscript <- file.path(R.home("bin"), "Rscript")

# ---- categories ---------------------------------------------------------

#' The category of a profile symbol (demangled name `sym` in object `dso`).
#' Rules apply in order; the first that matches wins.
categorise <- function(dso, sym) {
  out <- rep(NA_character_, length(sym))
  rule <- function(cond, name) out[is.na(out) & cond] <<- name
  has <- function(re) grepl(re, sym, perl = TRUE)
  rule(grepl("kernel", dso) | grepl("^\\[k\\]", sym), "kernel (page faults, syscalls)")
  rule(has("write_cigar|itoa::|Cigar as core::fmt|cigar_to_string"), "CIGAR formatting")
  rule(has("(^|[^a-z_])(malloc|calloc|realloc|free|cfree)(@|$)|_int_malloc|_int_free|_int_realloc|malloc_consolidate|unlink_chunk|tcache|sysmalloc|__rust_alloc|__rust_dealloc|__rust_realloc|__rdl_|__rust_no_alloc_shim|raw_vec|RawVec|finish_grow|alloc::alloc::|do_reserve_and_handle"),
       "allocation (malloc/free)")
  rule(has("mem(cpy|move|set|cmp)|__memcpy|__memmove|__memset|mempcpy|extend_from_slice|spec_extend|to_vec|::clone"),
       "copying, zeroing")
  rule(has("validate::|first_invalid_letter"), "text validation (alphabet check)")
  rule(has("(^|[<(, &])(sassy|pa_types)::"), "sassy search + traceback")
  rule(has("^ducksassy::|extendr"), "R objects: binding (Rust columns to R vectors)")
  rule(grepl("libR\\.so", dso) | has("^(Rf_|R_|SET_|do_|bcEval|Rcpp)"), "R: interpreter, GC, data.frame (libR)")
  rule(has("rayon|crossbeam|pthread|futex|sched_yield|lll_lock|parking_lot|std::sync|std::thread|Mutex|Condvar|__GI___clone|clone3|nanosleep|syscall|start_thread"),
       "scheduling, locks, waiting")
  rule(has("ducksassy_core::"), "ducksassy engine (tasks, hit buffers, sort, merge)")
  rule(TRUE, "other")
  out
}

# ---- perf -----------------------------------------------------------------

perf_works <- function() {
  if (!nzchar(Sys.which("perf"))) return(FALSE)
  f <- file.path(work, "probe.data")
  out <- suppressWarnings(system2("perf", c("record", "-e", "cpu-clock", "-F", "999", "-o", f, "--",
                                            "sh", "-c", shQuote("i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")),
                                  stdout = TRUE, stderr = TRUE))
  ok <- is.null(attr(out, "status")) && file.exists(f)
  if (ok) {
    rep <- suppressWarnings(system2("perf", c("report", "-i", f, "--stdio", "-q"), stdout = TRUE, stderr = TRUE))
    ok <- any(grepl("%", rep))
  }
  ok
}

run_perf <- function(workload, records, threads) {
  id <- sprintf("%s-%d", workload, threads)
  ctl <- file.path(work, paste0(id, ".ctl"))
  ack <- file.path(work, paste0(id, ".ack"))
  data <- file.path(work, paste0(id, ".perf.data"))
  system2("mkfifo", c(ctl, ack))
  out <- system2("perf", c(
    "record", "-e", "cpu-clock", "-F", args$frequency, "-D", "-1",
    paste0("--control=fifo:", ctl, ",", ack), "-o", data, "--",
    rscript, "--vanilla", "benchmarks/profile_worker.R", workload, records, threads,
    args$reps, "perf", ctl, ack
  ), stdout = TRUE, stderr = TRUE, env = env_lib())
  worker <- parse_kv(out, "PROFILE_WORKER")
  if (is.null(worker)) stop("the profiled worker failed:\n", paste(out, collapse = "\n"))
  rep <- system2("perf", c("report", "-i", data, "--stdio", "--no-children",
                           "--sort", "dso,sym", "-n", "-t", shQuote(";"), "-q", "--percent-limit", "0"),
                 stdout = TRUE, stderr = FALSE)
  rep <- rep[grepl(";", rep, fixed = TRUE)]
  f <- strsplit(rep, ";", fixed = TRUE)
  sym <- data.frame(
    dso = trimws(vapply(f, `[`, "", 3L)),
    symbol = trimws(sub("^\\[[.k]\\] ", "", trimws(vapply(f, `[`, "", 4L)))),
    kernel = grepl("^\\s*\\[k\\]", vapply(f, `[`, "", 4L)),
    cost = as.numeric(trimws(vapply(f, `[`, "", 2L))),
    stringsAsFactors = FALSE
  )
  sym$dso[sym$kernel] <- "[kernel]"
  sym$kernel <- NULL
  lost <- grep("lost", system2("perf", c("report", "-i", data, "--stats"), stdout = TRUE, stderr = FALSE),
               value = TRUE, ignore.case = TRUE)
  list(symbols = sym, worker = worker, unit = "samples",
       note = paste(c(sprintf("%d Hz cpu-clock samples", args$frequency), lost), collapse = "; "))
}

# ---- callgrind ----------------------------------------------------------------

env_lib <- function(lib = NULL) {
  libs <- c(lib, if (nzchar(bench_lib)) bench_lib)
  if (length(libs)) paste0("R_LIBS=", paste(libs, collapse = ":")) else character()
}

#' A fingerprint of the package sources (R code, Rust sources, build files),
#' to tell whether the AVX2 build is of the current sources.
source_fingerprint <- function() {
  files <- c(list.files("R", full.names = TRUE), "DESCRIPTION", "NAMESPACE", "src/entrypoint.c",
             list.files("src/rust", pattern = "\\.(rs|toml|lock)$", recursive = TRUE, full.names = TRUE))
  files <- files[!grepl("^src/rust/(vendor|target|cargo-home)/", files)]
  paste(unname(tools::md5sum(sort(files))), collapse = "")
}

callgrind_lib_ready <- function() {
  lib <- args$callgrind_lib
  so <- file.path(lib, "ducksassy", "libs", "ducksassy.so")
  stamp <- file.path(lib, "source-fingerprint")
  fp <- source_fingerprint()
  if (file.exists(so) && file.exists(stamp) && identical(readLines(stamp), fp)) return(lib)
  # built from a copy of the source tree, so that the build (configure,
  # src/Makevars, the cargo target directory) does not touch this checkout
  message("building ducksassy for AVX2 into ", lib, " (valgrind cannot run AVX-512 code)")
  src <- bench_cache("avx2-src")
  unlink(src, recursive = TRUE)
  dir.create(src, recursive = TRUE)
  st <- system(sprintf(
    "tar -cf - --exclude=./.git --exclude=./src/rust/target --exclude=./src/rust/cargo-home --exclude='*.Rcheck' --exclude='*.tar.gz' --exclude=./benchmarks . | tar -C %s -xf -",
    shQuote(src)
  ))
  if (st != 0) stop("copying the source tree failed")
  dir.create(lib, recursive = TRUE, showWarnings = FALSE)
  out <- system2(file.path(R.home("bin"), "R"), c("CMD", "INSTALL", "--no-test-load", "-l", shQuote(lib), shQuote(src)),
                 stdout = TRUE, stderr = TRUE, env = c("DUCKSASSY_SIMD=avx2", "CARGO_BUILD_JOBS=2"))
  unlink(src, recursive = TRUE)
  if (!file.exists(so)) stop("the AVX2 build failed:\n", paste(utils::tail(out, 30), collapse = "\n"))
  writeLines(fp, stamp)
  lib
}

#' Self cost (instructions) per (object, function) of a callgrind output
#' file. Read directly rather than through `callgrind_annotate`, whose
#' self costs include the calls still active when `--dump-before` fires
#' (thread start-up frames would show the whole search as their own cost).
#' Format: https://valgrind.org/docs/manual/cl-format.html; names are
#' compressed as "(id) name" on first use and "(id)" later, shared between
#' fn=/cfn= and between ob=/cob=; the cost line after "calls=" is the
#' inclusive cost of that call and is skipped.
callgrind_self_costs <- function(path) {
  x <- readLines(path)
  key <- sub("=.*", "", x)
  is_def <- grepl("^(c?fn|c?ob)=", x)
  ns <- ifelse(key %in% c("fn", "cfn"), "fn", ifelse(key %in% c("ob", "cob"), "ob", NA))
  id <- ifelse(is_def, sub("^[a-z]+=\\(([0-9]+)\\).*", "\\1", x), NA)
  nm <- ifelse(is_def & grepl("^[a-z]+=\\([0-9]+\\) ", x), sub("^[a-z]+=\\([0-9]+\\) ", "", x), NA)
  defs <- !is.na(nm)
  names_fn <- stats::setNames(nm[defs & ns == "fn"], id[defs & ns == "fn"])
  names_ob <- stats::setNames(nm[defs & ns == "ob"], id[defs & ns == "ob"])
  carry <- function(flag) {
    i <- ifelse(flag, seq_along(flag), 0L)
    i <- cummax(i)
    i[i == 0L] <- NA
    i
  }
  cur_fn <- id[carry(key == "fn")]
  cur_ob <- id[carry(key == "ob")]
  cost_line <- grepl("^[0-9+*-]", x)
  after_calls <- c(FALSE, startsWith(x[-length(x)], "calls="))
  use <- cost_line & !after_calls & !is.na(cur_fn)
  cost <- as.numeric(sub(".*\\s", "", x[use]))
  agg <- stats::aggregate(cost ~ ob + fn, data = data.frame(cost = cost, fn = cur_fn[use],
                                                            ob = ifelse(is.na(cur_ob[use]), "", cur_ob[use])),
                          FUN = sum)
  data.frame(
    dso = basename(unname(ifelse(agg$ob == "", "", names_ob[agg$ob]))),
    symbol = unname(names_fn[agg$fn]),
    cost = agg$cost,
    stringsAsFactors = FALSE
  )
}

run_callgrind <- function(workload, records, threads, lib) {
  id <- sprintf("%s-%d", workload, threads)
  outfile <- file.path(work, paste0(id, ".callgrind"))
  out <- system2(file.path(R.home("bin"), "R"), c(
    "-d", shQuote(paste(
      paste0("valgrind --tool=callgrind --callgrind-out-file=", outfile),
      "--zero-before=wrap__ds_sassy_version --dump-before=wrap__ds_rust_simd"
    )),
    "--vanilla", "--no-echo", "-f", "benchmarks/profile_worker.R", "--args",
    workload, records, threads, 1L, "callgrind"
  ), stdout = TRUE, stderr = TRUE, env = env_lib(lib))
  worker <- parse_kv(out, "PROFILE_WORKER")
  dump <- paste0(outfile, ".1")
  if (is.null(worker) || !file.exists(dump)) {
    stop("callgrind run failed:\n", paste(utils::tail(out, 30), collapse = "\n"))
  }
  sym <- callgrind_self_costs(dump)
  list(symbols = sym, worker = worker, unit = "instructions",
       note = "instructions (Ir), all threads; AVX2 build")
}

# ---- run ------------------------------------------------------------------

tools <- switch(args$tool,
  auto = if (perf_works()) "perf" else "callgrind",
  both = c("perf", "callgrind"),
  args$tool
)
tool_notes <- list()
if ("perf" %in% tools && !perf_works()) {
  tool_notes$perf <- "perf record does not work on this machine"
  tools <- setdiff(tools, "perf")
}
cg_lib <- NULL
if ("callgrind" %in% tools) {
  if (!nzchar(Sys.which("valgrind"))) {
    tool_notes$callgrind <- "valgrind is not installed"
    tools <- setdiff(tools, "callgrind")
  } else {
    cg_lib <- callgrind_lib_ready()
  }
}
if (!length(tools)) stop("no profiler works here: ", paste(unlist(tool_notes), collapse = "; "))

sizes <- list(
  perf = c(dna = args$dna_records, ascii = args$ascii_records),
  callgrind = c(dna = args$callgrind_dna_records, ascii = args$callgrind_ascii_records)
)
cats <- list()
syms <- list()
for (tool in tools) {
  for (workload in c("dna", "ascii")) {
    for (th in args$threads) {
      records <- sizes[[tool]][[workload]]
      message(sprintf("%s: %s, %d records, %d threads", tool, workload, records, th))
      r <- if (tool == "perf") run_perf(workload, records, th) else run_callgrind(workload, records, th, cg_lib)
      s <- r$symbols
      s$category <- categorise(s$dso, s$symbol)
      total <- sum(s$cost)
      s$percent <- 100 * s$cost / total
      key <- data.frame(tool = tool, workload = workload, records = records, threads = th)
      cat_tab <- stats::aggregate(cbind(cost = s$cost, percent = s$percent) ~ category, data = s, FUN = sum)
      cats[[length(cats) + 1L]] <- cbind(key, cat_tab, unit = r$unit, total = total,
                                         hits = r$worker$hits, searches = if (tool == "perf") args$reps else 1L,
                                         seconds = r$worker$seconds, cpu_seconds = r$worker$cpu_seconds,
                                         note = r$note)
      s <- s[order(-s$cost), ]
      keep <- s$percent >= 0.2
      rest <- if (any(!keep)) data.frame(dso = "", symbol = sprintf("(%d other symbols, each < 0.2%%)", sum(!keep)),
                                          cost = sum(s$cost[!keep]), category = "(several)",
                                          percent = sum(s$percent[!keep]))
      syms[[length(syms) + 1L]] <- cbind(key, rbind(s[keep, ], rest))
    }
  }
}
write_csv(do.call(rbind, cats), "profile")
write_csv(do.call(rbind, syms), "profile_symbols")
write_receipt("profile", args, load_before = load_before, extra = list(
  tools = tools, tool_notes = tool_notes,
  perf_version = tryCatch(system2("perf", "--version", stdout = TRUE), error = function(e) NA_character_),
  valgrind_version = tryCatch(system2("valgrind", "--version", stdout = TRUE), error = function(e) NA_character_),
  callgrind_lib = if (!is.null(cg_lib)) cg_lib else NA_character_,
  callgrind_simd = if (!is.null(cg_lib)) "avx2" else NA_character_,
  workloads = list(
    dna = list(pattern = BENCH_PATTERN, k = 2L, alphabet = "iupac", rc = TRUE, length = 256L),
    ascii = list(pattern = ASCII_PATTERN, k = ASCII_K, alphabet = "ascii", rc = FALSE, length = 256L)
  )
))
