# Helpers shared by the benchmark scripts in benchmarks/ (sourced, not a
# package file): command-line arguments, the workloads, timing, receipts and
# the Rust benchmark binaries. Every script runs from the package root:
#   Rscript benchmarks/<name>.R [--arg=value ...]
#
# Environment:
#   DUCKSASSY_BENCH_LIB     a library to put first in .libPaths() (e.g. one
#                           made with `R CMD INSTALL -l /tmp/rlib .`)
#   DUCKSASSY_BENCH_CACHE   where generated inputs and the Rust build go
#                           (default: /tmp/ducksassy-bench)

bench_lib <- Sys.getenv("DUCKSASSY_BENCH_LIB")
if (nzchar(bench_lib)) .libPaths(c(bench_lib, .libPaths()))
if (!file.exists("DESCRIPTION") || !dir.exists("benchmarks")) {
  stop("run the benchmark scripts from the package root (Rscript benchmarks/<name>.R)")
}
suppressPackageStartupMessages(library(ducksassy))

#' The 20-mer searched in the read workloads (a lambda phage sequence).
BENCH_PATTERN <- "GACGCTCAGTAATGTGACGA"

bench_cache <- function(...) {
  dir <- Sys.getenv("DUCKSASSY_BENCH_CACHE", "/tmp/ducksassy-bench")
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  file.path(dir, ...)
}

# ---- arguments --------------------------------------------------------------

#' Parse `--name=value` (or `--name value`) arguments; each default's type
#' gives the argument's type; integer vectors are comma-separated.
bench_args <- function(defaults, args = commandArgs(trailingOnly = TRUE)) {
  out <- defaults
  i <- 1L
  while (i <= length(args)) {
    a <- args[[i]]
    if (!startsWith(a, "--")) stop("unexpected argument `", a, "`: use --name=value")
    a <- substring(a, 3L)
    if (grepl("=", a, fixed = TRUE)) {
      name <- sub("=.*", "", a)
      value <- sub("^[^=]*=", "", a)
    } else {
      name <- a
      value <- if (i < length(args) && !startsWith(args[[i + 1L]], "--")) {
        i <- i + 1L
        args[[i]]
      } else {
        "true"
      }
    }
    if (name == "help") {
      cat("arguments (defaults):\n")
      for (n in names(defaults)) cat(sprintf("  --%s=%s\n", n, paste(defaults[[n]], collapse = ",")))
      quit(status = 0)
    }
    if (!name %in% names(defaults)) {
      stop("unknown argument --", name, "; known: ", paste0("--", names(defaults), collapse = " "))
    }
    d <- defaults[[name]]
    parts <- strsplit(value, ",", fixed = TRUE)[[1]]
    out[[name]] <- if (is.logical(d)) {
      as.logical(toupper(value))
    } else if (is.integer(d)) {
      as.integer(parts)
    } else if (is.numeric(d)) {
      as.numeric(parts)
    } else if (is.character(d) && length(d) > 1L) {
      parts
    } else {
      value
    }
    if (anyNA(out[[name]])) stop("--", name, ": cannot read `", value, "`")
    i <- i + 1L
  }
  out
}

#' The thread counts 1..cores (the default of every scaling argument).
all_threads <- function() seq_len(parallel::detectCores())

# ---- workloads -------------------------------------------------------------

#' `n` random DNA reads of `len` bases (seeded). Every `plant_every`-th read
#' carries one copy of `pattern` at a random position, on a random strand
#' (half are its reverse complement), with up to `edits` random
#' substitutions, so the search has hits to trace and CIGARs to format.
make_reads <- function(n, len = 256L, pattern = BENCH_PATTERN, seed = 42L,
                       plant_every = 2L, edits = 2L) {
  set.seed(seed)
  bases <- charToRaw("ACGT")
  m <- matrix(bases[sample.int(4L, n * len, replace = TRUE)], nrow = len)
  planted <- seq(1L, n, by = plant_every)
  if (length(planted) && nchar(pattern) <= len) {
    p <- charToRaw(pattern)
    rc <- charToRaw(chartr("ACGT", "TGCA", intToUtf8(rev(utf8ToInt(pattern)))))
    w <- length(p)
    at <- sample.int(len - w + 1L, length(planted), replace = TRUE) - 1L
    minus <- stats::runif(length(planted)) < 0.5
    idx <- (rep(planted, each = w) - 1L) * len + rep(at, each = w) + rep(seq_len(w), length(planted))
    m[idx] <- c(p, rc)[rep(ifelse(minus, w, 0L), each = w) + rep(seq_len(w), length(planted))]
    for (e in seq_len(edits)) {
      sub <- stats::runif(length(planted)) < 0.5
      pos <- (planted[sub] - 1L) * len + at[sub] + sample.int(w, sum(sub), replace = TRUE)
      m[pos] <- bases[sample.int(4L, sum(sub), replace = TRUE)]
    }
  }
  vapply(seq_len(n), function(j) rawToChar(m[, j]), "")
}

#' The scaling workloads: `small` reads, `large` (small repeated 8 times) and
#' `balanced` (small repeated to `balanced_n` records).
read_workloads <- function(small_n = 262144L, large_times = 8L, balanced_n = 983040L,
                           len = 256L) {
  small <- make_reads(small_n, len)
  list(
    small = small,
    large = rep(small, large_times),
    balanced = rep_len(small, balanced_n)
  )
}

#' Dense ASCII text with many hits: records of random `a`/`b` letters,
#' searched for `abba` with k = 1 (about 65 hits per 256-byte record).
make_ascii <- function(n, len = 256L, seed = 7L) {
  set.seed(seed)
  ab <- charToRaw("ab")
  m <- matrix(ab[sample.int(2L, n * len, replace = TRUE)], nrow = len)
  vapply(seq_len(n), function(j) rawToChar(m[, j]), "")
}
ASCII_PATTERN <- "abba"
ASCII_K <- 1L

#' The E. coli genome of Debian's bowtie-examples as one string, or NULL.
ecoli_genome <- function() {
  path <- "/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz"
  if (!file.exists(path)) {
    found <- tryCatch(
      suppressWarnings(system2("dpkg", c("-L", "bowtie-examples"), stdout = TRUE, stderr = FALSE)),
      error = function(e) character()
    )
    found <- grep("\\.fna(\\.gz)?$", found, value = TRUE)
    if (!length(found)) return(NULL)
    path <- found[[1]]
  }
  lines <- readLines(path)
  structure(paste(lines[!startsWith(lines, ">")], collapse = ""), path = path,
            header = lines[startsWith(lines, ">")][1])
}

#' Write `texts` one per line (the input of the Rust benchmark binaries).
write_lines_file <- function(texts, name) {
  path <- bench_cache(name)
  if (!file.exists(path) || file.size(path) != sum(nchar(texts, "bytes")) + length(texts)) {
    writeLines(texts, path, useBytes = TRUE)
  }
  path
}

# ---- timing ----------------------------------------------------------------

#' Run `f()` once and return elapsed and CPU (user + system, all threads of
#' this process) seconds and the value.
timed <- function(f) {
  gc(verbose = FALSE)
  t0 <- proc.time()
  value <- f()
  t1 <- proc.time()
  d <- t1 - t0
  list(elapsed = d[["elapsed"]], cpu = d[["user.self"]] + d[["sys.self"]], value = value)
}

load_average <- function() {
  if (!file.exists("/proc/loadavg")) return(NA_real_)
  as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3])
}

#' Summary of a hit table that every path can compute the same way.
hit_summary <- function(h) {
  list(
    hits = nrow(h),
    cost_sum = sum(as.numeric(h$cost)),
    cigar_bytes = sum(as.numeric(nchar(h$cigar, "bytes"))),
    start_sum = sum(as.numeric(h$start)),
    minus = sum(h$strand == "-")
  )
}

# ---- receipts --------------------------------------------------------------

git <- function(...) {
  out <- tryCatch(
    suppressWarnings(system2("git", c(...), stdout = TRUE, stderr = FALSE)),
    error = function(e) character()
  )
  if (length(out)) out else NA_character_
}

cpu_model <- function() {
  info <- tryCatch(readLines("/proc/cpuinfo"), error = function(e) character())
  m <- grep("^model name", info, value = TRUE)
  if (length(m)) trimws(sub("^[^:]*:", "", m[[1]])) else NA_character_
}

rust_config <- function() {
  out <- tryCatch(system2("sh", "tools/config", stdout = TRUE, stderr = FALSE),
                  error = function(e) character())
  vals <- sub("^[^=]*='?(.*?)'?$", "\\1", out)
  stats::setNames(as.list(vals), sub("=.*", "", out))
}

#' Everything needed to tell where numbers came from; written next to the
#' CSV as benchmarks/data/<name>_receipt.json.
write_receipt <- function(name, args, extra = list(), load_before = NULL) {
  backend <- sassy_backend_info()
  cfg <- rust_config()
  status <- git("status", "--porcelain")
  receipt <- c(list(
    report = name,
    command = paste("Rscript", paste0("benchmarks/", name, ".R"),
                    paste(commandArgs(trailingOnly = TRUE), collapse = " ")),
    arguments = args,
    date = format(Sys.time(), "%Y-%m-%dT%H:%M:%S%z"),
    commit = git("rev-parse", "HEAD"),
    worktree_modified_files = sum(!is.na(status) & nzchar(status)),
    package_version = as.character(utils::packageVersion("ducksassy")),
    package_path = find.package("ducksassy"),
    sassy_version = ducksassy:::ds_sassy_version(),
    simd_compiled = paste(backend$backend, collapse = " "),
    simd_in_use = backend$backend[backend$in_use],
    simd_supported = paste(backend$backend[backend$supported], collapse = " "),
    rustflags = cfg$DS_RUSTFLAGS %||% NA_character_,
    cargo_flags = cfg$DS_CARGO_FLAGS %||% NA_character_,
    rustc = tryCatch(system2("rustc", "--version", stdout = TRUE), error = function(e) NA_character_),
    cc = tryCatch(system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CC"), stdout = TRUE),
                  error = function(e) NA_character_),
    cpu_model = cpu_model(),
    cores = parallel::detectCores(),
    memory_gb = round(as.numeric(sub("[^0-9]*([0-9]+).*", "\\1",
      grep("^MemTotal", readLines("/proc/meminfo"), value = TRUE))) / 2^20, 1),
    r_version = R.version.string,
    platform = R.version$platform,
    load_average_before = load_before,
    load_average_after = load_average(),
    threads_default = sassy_threads()
  ), extra)
  path <- file.path("benchmarks", "data", paste0(name, "_receipt.json"))
  dir.create(dirname(path), showWarnings = FALSE, recursive = TRUE)
  jsonlite::write_json(receipt, path, auto_unbox = TRUE, pretty = TRUE, digits = NA)
  invisible(path)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

write_csv <- function(x, name) {
  path <- file.path("benchmarks", "data", paste0(name, ".csv"))
  dir.create(dirname(path), showWarnings = FALSE, recursive = TRUE)
  utils::write.csv(x, path, row.names = FALSE)
  message("wrote ", path)
  invisible(path)
}

# ---- the Rust benchmark binaries --------------------------------------------

#' Build src/rust/core/examples with the package's SIMD flags (tools/config)
#' in the release profile (LTO, as the package) and return the directory of
#' the binaries. The build goes to its own target directory, so it does not
#' disturb the package build.
rust_examples <- function() {
  target <- bench_cache("cargo-target")
  cfg <- rust_config()
  flags <- cfg$DS_RUSTFLAGS %||% ""
  cargo_flags <- cfg$DS_CARGO_FLAGS %||% ""
  if (!file.exists("src/rust/vendor/sassy/Cargo.toml") ||
      !file.exists("src/rust/.cargo/config.toml")) {
    system2("make", "rust-vendor")
  }
  cmd <- sprintf(
    "cd src/rust/core && env -u CARGO_ENCODED_RUSTFLAGS RUSTFLAGS=%s CARGO_TARGET_DIR=%s cargo build --release --offline --examples %s 2>&1",
    shQuote(flags), shQuote(target), cargo_flags
  )
  out <- system(cmd, intern = TRUE)
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) {
    stop("cargo build of the benchmark binaries failed:\n", paste(utils::tail(out, 30), collapse = "\n"))
  }
  # tools/config passes --target (the host triple): the binaries are under it
  file.path(target, cfg$DS_TARGET, "release", "examples")
}

#' Run a benchmark binary; parse its `key=value` lines into a data frame.
run_example <- function(bin_dir, name, args) {
  out <- system2(file.path(bin_dir, name), args, stdout = TRUE)
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop(name, " failed: ", paste(out, collapse = "\n"))
  parse_kv(out)
}

parse_kv <- function(lines, prefix = NULL) {
  if (!is.null(prefix)) lines <- lines[startsWith(lines, prefix)]
  if (!is.null(prefix)) lines <- substring(lines, nchar(prefix) + 2L)
  rows <- lapply(lines, function(l) {
    kv <- regmatches(l, gregexpr("[A-Za-z_0-9]+=[^ ]*", l))[[1]]
    vals <- sub("^[^=]*=", "", kv)
    names(vals) <- sub("=.*", "", kv)
    as.data.frame(as.list(vals), stringsAsFactors = FALSE)
  })
  df <- do.call(rbind, rows)
  for (n in names(df)) {
    num <- suppressWarnings(as.numeric(df[[n]]))
    if (!anyNA(num)) df[[n]] <- num
  }
  df
}

#' The environment entry that gives a child R process this session's
#' library paths (with `DUCKSASSY_BENCH_LIB` first): `Rscript --vanilla`
#' children would otherwise load the default library's ducksassy, or none.
child_lib_env <- function() {
  paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = ":")))
}
