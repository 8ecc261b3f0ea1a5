#!/usr/bin/env bash
# tools/memcheck.sh: valgrind memcheck of the Rust core's tests and of
# searches from R (the installed package, every entry point and error path).
#
# Prints a summary and exits non-zero when valgrind reports an invalid
# access (invalid read/write/free, use of uninitialised memory, overlapping
# copies) or a definite leak in our code: anywhere in the core's test
# binaries; in R, where the stack goes through ducksassy's library (our Rust
# code, the vendored crates, extendr). R's own reports are not counted. One
# known leak is listed but not counted: the routine table that entrypoint.c's
# second R_registerRoutines() call replaces at load (once per process, a few
# hundred bytes).
#
# Valgrind has no AVX-512, so everything here is built for the avx2 backend
# (x86-64-v3), or scalar where the CPU lacks AVX2 (DUCKSASSY_SIMD overrides).
#
# Usage: tools/memcheck.sh [selftest|core|r|all]   (default all; all first
# checks the detector on a planted invalid write and leak)
# Environment:
#   MEMCHECK_DIR          logs and builds (default: ${TMPDIR:-/tmp}/ducksassy-memcheck);
#                         kept between runs, so rebuilds are incremental
#   MEMCHECK_PROPTEST_CASES  proptest cases per property under valgrind (default 8)
#   MEMCHECK_TEST_SCALE   scale of the random case counts of the core tests
#                         under valgrind (default 0.1; tests/common scaled())
#   MEMCHECK_SKIP         space-separated test names to skip in the core tests
#                         (default: the tests that assert wall-clock latency,
#                         which valgrind's 20-50x slowdown breaks; their code
#                         paths run in the other tests)
#   DUCKSASSY_SIMD        backend to build (default avx2, or scalar)
#   R                     R executable (default R)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
WHAT=${1:-all}
DIR=${MEMCHECK_DIR:-${TMPDIR:-/tmp}/ducksassy-memcheck}
R=${R:-R}
mkdir -p "$DIR/logs"

if ! command -v valgrind >/dev/null 2>&1; then
  echo "memcheck: valgrind is not installed (tools/setup installs it)" >&2
  exit 2
fi

if [ -z "${DUCKSASSY_SIMD:-}" ]; then
  if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
    export DUCKSASSY_SIMD=avx2
  else
    export DUCKSASSY_SIMD=scalar
  fi
fi
case "$DUCKSASSY_SIMD" in
  avx512 | native)
    echo "memcheck: valgrind cannot run AVX-512 code; use DUCKSASSY_SIMD=avx2 or scalar" >&2
    exit 2
    ;;
esac

VG_OPTS=(--tool=memcheck --leak-check=full --show-leak-kinds=definite
  --errors-for-leak-kinds=definite --num-callers=30 --track-origins=no)

# Summarise one valgrind log. $2 = "all" (every report is ours) or "ours"
# (only reports whose stack goes through our library). Prints the reports
# that count and one summary line; returns 1 if any counts.
summarise() {
  local log=$1 scope=$2 name=$3
  awk -v scope="$scope" -v name="$name" '
    function flush() {
      if (kind != "") {
        ours = (scope == "all") || (rec ~ /ducksassy|sassy|extendr|rayon|needletail/)
        if (kind == "leak" && ours && rec ~ /R_init_ducksassy/) {
          # once per process, at load: the registration table that the
          # second R_registerRoutines() call in entrypoint.c replaces
          n_load++; n_leak++
          print "  (load-time, once per process; not counted)"; print rec
        }
        else if (kind == "leak") { n_leak++; if (ours) { o_leak++; print rec } }
        else { n_err++; if (ours) { o_err++; print rec } }
      }
      kind = ""; rec = ""
    }
    {
      line = $0
      sub(/^==[0-9]+== ?/, "", line)
      if (line == "") { flush(); next }
      if (kind == "") {
        if (line ~ /are definitely lost in loss record/) { kind = "leak" }
        else if (line ~ /^(Invalid (read|write|free)|Mismatched free|Conditional jump or move depends|Use of uninitialised value|Syscall param .* uninitialised|Source and destination overlap|Argument .* of function .* has a fishy)/) { kind = "error" }
        if (kind != "") rec = "  " line
        next
      }
      rec = rec "\n  " line
    }
    END {
      flush()
      printf "memcheck %-28s %d invalid-access reports in our code (%d in all), %d definite leaks in our code (%d in all, %d at load)\n", name, o_err, n_err, o_leak, n_leak, n_load
      exit (o_err + o_leak > 0) ? 1 : 0
    }
  ' "$log"
}

failed=0
summary=()

# Summarise a log: print the reports that count, keep the summary line.
record() {
  local out rc=0
  out=$(summarise "$@") || rc=$?
  echo "$out"
  summary+=("$(echo "$out" | tail -n 1)")
  if [ "$rc" -ne 0 ]; then failed=1; fi
}

# The detector itself: a small C program with one invalid write and one
# definite leak, in functions named like ours, must be reported and counted
# (otherwise a broken log filter would let every real error pass).
run_selftest() {
  echo "== memcheck: self-test of the detector"
  local src="$DIR/selftest.c" bin="$DIR/selftest" log="$DIR/logs/selftest.log"
  cat >"$src" <<'CSRC'
#include <stdlib.h>
__attribute__((noinline)) char *ducksassy_selftest_leak(void) { return malloc(24); }
__attribute__((noinline)) void ducksassy_selftest_overrun(char *p) { p[16] = 1; }
int main(void) {
  char *p = malloc(16);
  ducksassy_selftest_overrun(p);
  free(p);
  char *q = ducksassy_selftest_leak();
  q[0] = 0;
  q = NULL;
  return q != NULL;
}
CSRC
  cc -g -O0 -o "$bin" "$src"
  valgrind "${VG_OPTS[@]}" --log-file="$log" "$bin" >/dev/null 2>&1 || true
  local out rc=0
  out=$(summarise "$log" ours "selftest") || rc=$?
  if [ "$rc" -ne 1 ] || ! echo "$out" | tail -n 1 | grep -q " 1 invalid-access reports in our code.* 1 definite leaks in our code"; then
    echo "memcheck: the self-test's invalid write and leak were not both caught:" >&2
    echo "$out" >&2
    exit 2
  fi
  summary+=("memcheck self-test: a planted invalid write and definite leak were both caught")
}

run_core() {
  echo "== memcheck: Rust core tests (backend $DUCKSASSY_SIMD)"
  (cd "$ROOT" && make -s rust-vendor >/dev/null)
  eval "$(cd "$ROOT" && sh tools/config 2>/dev/null)"
  local target="$DIR/target-core"
  local list="$DIR/logs/core-binaries.txt"
  sh "$ROOT/tools/check-host-flags" --prepare "$target"
  (
    cd "$ROOT/src/rust/core"
    env -u CARGO_ENCODED_RUSTFLAGS CARGO_HOME="$ROOT/src/rust/cargo-home" \
      CARGO_TARGET_DIR="$target" RUSTFLAGS="$DS_RUSTFLAGS" \
      cargo test --offline --no-run --message-format=json $DS_CARGO_FLAGS 2>"$DIR/logs/core-build.log" |
      grep '"test":true' | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' >"$list"
  ) || {
    echo "memcheck: building the core tests failed; see $DIR/logs/core-build.log" >&2
    tail -n 30 "$DIR/logs/core-build.log" >&2
    exit 2
  }
  sh "$ROOT/tools/check-host-flags" "$target" || exit 2
  local skip=()
  for t in ${MEMCHECK_SKIP-cancel_stops_one_heavy_record_within_a_second}; do skip+=(--skip "$t"); done
  while read -r bin; do
    [ -n "$bin" ] || continue
    local name log
    name=$(basename "$bin" | sed 's/-[0-9a-f]*$//')
    log="$DIR/logs/core-$name.log"
    echo "-- $name"
    local rc=0
    (cd "$ROOT/src/rust/core" &&
      PROPTEST_CASES=${MEMCHECK_PROPTEST_CASES:-8} DUCKSASSY_TEST_SCALE=${MEMCHECK_TEST_SCALE:-0.1} valgrind "${VG_OPTS[@]}" --log-file="$log" \
        "$bin" --test-threads=2 "${skip[@]}") >"$DIR/logs/core-$name.out" 2>&1 || rc=$?
    if [ "$rc" -ne 0 ]; then
      echo "   the tests failed under valgrind (exit $rc); see $DIR/logs/core-$name.out"
      tail -n 15 "$DIR/logs/core-$name.out"
      failed=1
    fi
    record "$log" all "core $name"
  done <"$list"
}

run_r() {
  echo "== memcheck: searches from R (backend $DUCKSASSY_SIMD)"
  local pkg="$DIR/pkg" lib="$DIR/rlib"
  mkdir -p "$pkg" "$lib"
  # a copy of the sources, keeping its own cargo target between runs
  find "$pkg" -mindepth 1 -maxdepth 1 ! -name src -exec rm -rf {} +
  if [ -d "$pkg/src" ]; then
    find "$pkg/src" -mindepth 1 -maxdepth 1 ! -name rust -exec rm -rf {} +
    if [ -d "$pkg/src/rust" ]; then
      find "$pkg/src/rust" -mindepth 1 -maxdepth 1 ! -name target -exec rm -rf {} +
    fi
  fi
  (cd "$ROOT" && tar --exclude=./src/rust/target --exclude=./src/rust/cargo-home \
    --exclude=./src/rust/vendor --exclude=./.git --exclude='./*.Rcheck' \
    --exclude='./ducksassy_*.tar.gz' --exclude='*.o' --exclude='*.so' -cf - .) |
    (cd "$pkg" && tar -xf -)
  echo "-- installing ducksassy ($DUCKSASSY_SIMD) into $lib (log: $DIR/logs/r-install.log)"
  if ! DUCKSASSY_KEEP_BUILD=true "$R" CMD INSTALL --no-test-load -l "$lib" "$pkg" >"$DIR/logs/r-install.log" 2>&1; then
    echo "memcheck: installing the package failed" >&2
    tail -n 30 "$DIR/logs/r-install.log" >&2
    exit 2
  fi
  local script="$DIR/memcheck-search.R" log="$DIR/logs/r-search.log"
  cat >"$script" <<'EOF'
# Every entry point once or twice, with its error paths: run under valgrind.
suppressPackageStartupMessages(library(ducksassy, lib.loc = Sys.getenv("MEMCHECK_RLIB")))
set.seed(1)
# a warning here means the script drifted from the API (an argument order
# or a signature changed): fail rather than exercise the wrong path
options(warn = 2)
bases <- c("A", "C", "G", "T")
rand <- function(n) paste(sample(bases, n, TRUE), collapse = "")
texts <- c(vapply(1:200, function(i) rand(150), ""), NA, "", rand(70000))
names(texts) <- paste0("r", seq_along(texts))
patterns <- c(p1 = "ACGTACGTAC", p2 = "GATTACA", p3 = "NNNNACGT", p4 = "TTGACCATGG")
for (threads in 1:2) {
  h <- sassy_search(texts, patterns, k = 2L, threads = threads)
  stopifnot(is.data.frame(h))
  h <- sassy_search(texts, patterns, k = 1L, all_endpoints = TRUE, cigar = FALSE, threads = threads)
  n <- sassy_count(texts, patterns, k = 2L, threads = threads)
  x <- sassy_contains(texts, patterns, k = 2L, threads = threads)
  h <- sassy_search(texts[1:50], "ACGTN", k = 2L, overhang = 0.3, max_n_frac = 0.5, threads = threads)
  h <- sassy_search(c("Say Hallo World", "hello"), "hello", k = 1L, alphabet = "ascii", ignore_case = TRUE, threads = threads)
  # four equal-length patterns: the batched search
  h <- sassy_search(texts, c("ACGTACGT", "TTTTACGT", "GGGGACGT", "CCCCACGT", "ACGTTTTT"), k = 1L, threads = threads)
  # a 300-letter pattern: traced in steps (stepwise.rs), hits and N-filtered counts
  long_p <- substr(texts[[203]], 30001, 30300)
  h <- sassy_search(texts, long_p, k = 20L, threads = threads)
  stopifnot(any(h$record == 203L & h$start == 30001L & h$cost == 0L))
  n <- sassy_count(texts, long_p, k = 20L, max_n_frac = 0.5, threads = threads)
}
# error paths: bad letters, bad arguments, the hit limit, a panic (test hook)
try(sassy_search(c("ACGT", "ACGZ"), "ACG"), silent = TRUE)
try(sassy_search("ACGT", "ACGN", alphabet = "dna"), silent = TRUE)
try(sassy_search("ACGT", "ACG", k = 5L), silent = TRUE)
local({
  op <- options(ducksassy.max_hits = 10)
  on.exit(options(op))
  try(sassy_search(texts, "NNNNNN", k = 1L), silent = TRUE)
  try(sassy_search(texts, strrep("N", 300), k = 2L, all_endpoints = TRUE), silent = TRUE)
})
try(ducksassy:::rust_result(ducksassy:::ds_test_panic("main", 2L)), silent = TRUE)
try(ducksassy:::rust_result(ducksassy:::ds_test_panic("worker", 2L)), silent = TRUE)
# files
fq <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy", lib.loc = Sys.getenv("MEMCHECK_RLIB"))
fa <- system.file("extdata", "lambda_virus.fa", package = "ducksassy", lib.loc = Sys.getenv("MEMCHECK_RLIB"))
if (nzchar(fq)) {
  h <- sassy_search_fastx(c(fq, fa), "GACGCTCAGTAATGTGACGA", k = 2L)
  n <- sassy_count_fastx(fq, patterns, k = 1L)
  out <- tempfile(fileext = ".fq.gz")
  n <- sassy_filter_fastx(fq, out, "GACGCTCAGTAATGTGACGA", k = 2L)
  r <- sassy_read_fastx(out)
  bad <- tempfile(fileext = ".fq")
  writeLines(c("@r1", "ACGT", "+", "III"), bad)
  try(sassy_read_fastx(bad), silent = TRUE)
}
if (exists("sassy_crispr", asNamespace("ducksassy"))) {
  h <- sassy_crispr(paste0(rand(1000), "ACGTACGTACGTACGTACGTTGG", rand(1000)), "ACGTACGTACGTACGTACGTNGG", k = 1L)
  stopifnot(nrow(h) >= 1L)
}
if (exists("sassy_search_table", asNamespace("ducksassy")) && requireNamespace("RSQLite", quietly = TRUE)) {
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(texts), sequence = texts))
  h <- sassy_search_table(con, "reads", patterns, k = 2L, id = "id", chunk_rows = 50L)
  # an error while a chunk is searched in the background (SQLite integer
  # overflow in the fetch of a later chunk)
  try(sassy_search_table(con, DBI::SQL("SELECT id, CASE WHEN id > 120 THEN abs(-9223372036854775807 - 1) ELSE sequence END AS sequence FROM reads"),
    patterns, k = 2L, chunk_rows = 30L), silent = TRUE)
  DBI::dbDisconnect(con)
}
# DuckDB: chunks searched in place in the Arrow batches (utf8, large_utf8,
# utf8_view), moved into the background search and released after it
if (exists("ds_table_submit", asNamespace("ducksassy")) && requireNamespace("duckdb", quietly = TRUE) &&
    requireNamespace("nanoarrow", quietly = TRUE)) {
  con <- suppressMessages(DBI::dbConnect(duckdb::duckdb()))
  DBI::dbExecute(con, "SET threads = 1")
  DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(texts), sequence = texts))
  want <- sassy_search(unname(texts), patterns, k = 2L)
  for (sql in list(character(), "SET arrow_large_buffer_size = true",
                   c("SET arrow_large_buffer_size = false", "SET arrow_output_version = '1.4'", "SET produce_arrow_string_view = true"))) {
    for (q in sql) DBI::dbExecute(con, q)
    h <- sassy_search_table(con, "reads", patterns, k = 2L, id = character(), chunk_rows = 37L)
    stopifnot(identical(h, want))
  }
  try(sassy_search_table(con, DBI::SQL("SELECT id, CASE WHEN id > 120 THEN error('boom') ELSE sequence END AS sequence FROM reads"),
    patterns, k = 2L, chunk_rows = 30L), silent = TRUE)
  # a job dropped without collect: the finalizer cancels and joins it
  job <- ducksassy:::ds_table_submit(texts, 0L, "", ducksassy:::new_plan(patterns, 2L, threads = 2L))
  rm(job)
  invisible(gc())
  stopifnot(ducksassy:::ds_table_live_jobs() == 0L)
  DBI::dbDisconnect(con, shutdown = TRUE)
}
invisible(gc())
cat("memcheck search script: done\n")
EOF
  echo "-- R searches under valgrind (log: $log)"
  local rc=0
  MEMCHECK_RLIB="$lib" R_LIBS="$lib${R_LIBS:+:$R_LIBS}" DUCKSASSY_THREADS=2 \
    "$R" -d "valgrind ${VG_OPTS[*]} --log-file=$log" --vanilla --slave -f "$script" \
    >"$DIR/logs/r-search.out" 2>&1 || rc=$?
  if [ "$rc" -ne 0 ] || ! grep -q "memcheck search script: done" "$DIR/logs/r-search.out"; then
    echo "   the R script failed under valgrind (exit $rc); see $DIR/logs/r-search.out"
    tail -n 20 "$DIR/logs/r-search.out"
    failed=1
  fi
  record "$log" ours "R searches"
}

case "$WHAT" in
  core) run_core ;;
  r) run_r ;;
  selftest) run_selftest ;;
  all)
    run_selftest
    run_core
    run_r
    ;;
  *)
    echo "usage: tools/memcheck.sh [selftest|core|r|all]" >&2
    exit 2
    ;;
esac

echo "== memcheck summary (logs in $DIR/logs)"
for s in "${summary[@]}"; do echo "$s"; done
if [ "$failed" -ne 0 ]; then
  echo "memcheck: FAILED"
  exit 1
fi
echo "memcheck: no invalid access or definite leak in our code"
