# Peak memory of sassy_count_table() over a DuckDB table with
# 1x and 4x as many rows (issue 3: "peak R memory of a count over a
# 4,000,000-row table is within 25% of the same count over 1,000,000 rows").
#
# The data: one DuckDB database file (in tempdir()) with two tables of
# pseudo-random 100-bp DNA reads, `reads_1x` (1,000,000 rows) and `reads_4x`
# (4,000,000 rows), columns `id` (INTEGER) and `sequence` (VARCHAR),
# generated inside DuckDB from MD5 hashes of the row number.
#
# Each measurement runs in a fresh Rscript that loads ducksassy and duckdb,
# opens the file, warms up (a count over 10 rows: R code, the Rust library,
# its thread pool) and counts one 12-mer (k = 1, both strands) in every row
# of the table with the default chunk_rows (100,000). Three modes:
#
# - count: the counts come back to R (a data frame with one row per table
#   row: id and count), DuckDB with its default settings.
# - count_duckdb_64MB: the same with `SET memory_limit = '64MB'` in DuckDB.
#   DuckDB keeps the blocks of a database file that a scan has read in its
#   buffer pool, up to memory_limit (default 80% of RAM), so by default its
#   share of the process grows with the size of the table read; this mode
#   bounds that cache, to show what the R side does alone.
# - count_to_table: the counts are appended to a table in the same database
#   (`output = "counts_out"`), so the result never comes to R.
# - count_no_overlap: as `count`, with options(ducksassy.table_overlap =
#   FALSE): each chunk is fetched, its sequences converted to R strings and
#   searched, in turn (the other modes search a chunk in the Arrow batch
#   while the next one is fetched).
#
# Each run reports:
#
# - r_heap_peak_mb: peak R memory, from gc(): `gc(reset = TRUE)` just before
#   the search, then the sum of the "max used" (Mb) column of gc() after it:
#   everything R itself allocated (vectors and cons cells), including the
#   result and garbage not yet collected.
# - rss_peak_kb: the peak resident memory of the whole process, VmHWM from
#   /proc/self/status, which also counts DuckDB's buffers and the Rust
#   search's; `loaded_kb` is VmHWM after the warm-up, before the search.
# - duckdb_mb: DuckDB's own memory after the search (duckdb_memory(); mostly
#   cached table blocks).
# - result_mb: object.size() of the result returned to R (0 with output);
#   heap_less_result_mb: r_heap_peak_mb less it, the R memory the streaming
#   itself needs (the result is 4x as large for 4x the rows by definition).
#
# Run from the package root with ducksassy installed (R_LIBS may point at the
# library):   Rscript benchmarks/table_memory.R [rows_1x]
# Writes benchmarks/data/table_memory.csv and prints it.

source("benchmarks/common.R") # child_lib_env(), DUCKSASSY_BENCH_LIB
args <- commandArgs(trailingOnly = TRUE)
rows_1x <- if (length(args) >= 1) as.integer(args[[1]]) else 1000000L
out_csv <- file.path("benchmarks", "data", "table_memory.csv")
stopifnot(file.exists("DESCRIPTION"), rows_1x >= 1)
if (!file.exists("/proc/self/status")) stop("needs Linux (/proc/self/status)")
for (pkg in c("DBI", "duckdb", "nanoarrow")) {
  if (!requireNamespace(pkg, quietly = TRUE)) stop("needs the ", pkg, " package")
}

dir <- tempfile("table-memory-")
dir.create(dir)
on.exit(unlink(dir, recursive = TRUE), add = TRUE)
db <- file.path(dir, "reads.duckdb")

# Pseudo-random 100-bp reads, made in DuckDB (never in R): the hex digits
# of four MD5 hashes of the row number, read as A, C, G, T (each digit value
# mod 4). Deterministic, and needs no lambda syntax (which changed in DuckDB
# 2.0).
make_table <- function(con, name, n) {
  md5 <- function(salt) paste0("md5(i::VARCHAR || '", salt, "')")
  DBI::dbExecute(con, paste0(
    "CREATE TABLE ", DBI::dbQuoteIdentifier(con, name), " AS ",
    "SELECT i::INTEGER AS id, ",
    "translate(substr(", paste(md5(c("a", "b", "c", "d")), collapse = " || "),
    ", 1, 100), '0123456789abcdef', 'ACGTACGTACGTACGT') AS sequence ",
    "FROM range(1, ", n + 1, ") t(i) ORDER BY i"
  ))
}
t0 <- proc.time()[["elapsed"]]
con <- suppressMessages(DBI::dbConnect(duckdb::duckdb(dbdir = db)))
invisible(make_table(con, "reads_1x", rows_1x))
invisible(make_table(con, "reads_4x", 4L * rows_1x))
check <- DBI::dbGetQuery(con, paste(
  "SELECT (SELECT COUNT(*) FROM reads_1x) AS n1, (SELECT COUNT(*) FROM reads_4x) AS n4,",
  "(SELECT MIN(length(sequence)) FROM reads_4x) AS min_len,",
  "(SELECT MAX(length(sequence)) FROM reads_4x) AS max_len"
))
DBI::dbDisconnect(con, shutdown = TRUE)
cat(sprintf(
  "made %s (%.0f MB): %s + %s rows of %d-%d bp in %.1f s\n",
  basename(db), file.size(db) / 2^20,
  format(check$n1, big.mark = ",", scientific = FALSE),
  format(check$n4, big.mark = ",", scientific = FALSE), check$min_len, check$max_len,
  proc.time()[["elapsed"]] - t0
))

# One measurement in a fresh R process. `output`: "" to return the counts to
# R, or a table name to append them to (the file is then opened read-write).
# `limit`: "" for DuckDB's default memory_limit (80% of RAM), or a limit for
# DuckDB's buffer manager, e.g. "64MB".
measure <- function(table, output = "", limit = "", overlap = TRUE) {
  code <- c(
    "suppressPackageStartupMessages({library(ducksassy); library(DBI)})",
    "options(ducksassy.table_overlap = Sys.getenv('TABLE_OVERLAP') == 'true')",
    "hwm <- function() as.numeric(gsub('[^0-9]', '', grep('^VmHWM', readLines('/proc/self/status'), value = TRUE)))",
    "table <- Sys.getenv('TABLE_NAME'); output <- Sys.getenv('TABLE_OUTPUT')",
    "out <- if (nzchar(output)) output else NULL",
    "con <- suppressMessages(dbConnect(duckdb::duckdb(dbdir = Sys.getenv('TABLE_DB'), read_only = is.null(out))))",
    "limit <- Sys.getenv('DUCKDB_LIMIT')",
    "if (nzchar(limit)) invisible(dbExecute(con, paste0('SET memory_limit = ', dbQuoteString(con, limit))))",
    "pattern <- 'GATTACAGGCTT'",
    "# warm-up on 10 rows: R code, the Rust library and its thread pool",
    "invisible(sassy_count_table(con, SQL(paste('SELECT * FROM', table, 'LIMIT 10')), pattern))",
    "loaded <- hwm()",
    "invisible(gc(reset = TRUE))",
    "t <- system.time(res <- sassy_count_table(con, table, pattern, k = 1, output = out))[['elapsed']]",
    "heap <- sum(gc()[, 6])",
    "if (is.null(out)) { n <- nrow(res); hits <- sum(res[[2]]) } else { n <- res; hits <- dbGetQuery(con, paste('SELECT SUM(pattern_1) FROM', output))[[1]]; dbRemoveTable(con, output) }",
    "duck <- sum(dbGetQuery(con, 'SELECT memory_usage_bytes FROM duckdb_memory()')[[1]]) / 2^20",
    "result_mb <- if (is.null(out)) as.numeric(object.size(res)) / 2^20 else 0",
    "cat(loaded, hwm(), heap, t, n, hits, sassy_threads(), duck, result_mb, '\\n')",
    "dbDisconnect(con, shutdown = TRUE)"
  )
  script <- file.path(dir, "measure.R")
  writeLines(code, script)
  out <- system2(
    file.path(R.home("bin"), "Rscript"), c("--vanilla", shQuote(script)),
    stdout = TRUE,
    env = c(
      paste0("TABLE_DB=", shQuote(db)), paste0("TABLE_NAME=", shQuote(table)),
      paste0("TABLE_OUTPUT=", shQuote(output)),
      paste0("DUCKDB_LIMIT=", shQuote(limit)),
      paste0("TABLE_OVERLAP=", tolower(overlap)),
      child_lib_env()
    )
  )
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) stop("the measurement failed: ", paste(out, collapse = "\n"))
  as.numeric(strsplit(trimws(out[length(out)]), " +")[[1]])
}

modes <- list(
  count = list(output = "", limit = ""),
  count_duckdb_64MB = list(output = "", limit = "64MB"),
  count_to_table = list(output = "counts_out", limit = ""),
  count_no_overlap = list(output = "", limit = "", overlap = FALSE)
)
rows <- list()
for (mode in names(modes)) {
  for (label in c("1x", "4x")) {
    table <- paste0("reads_", label)
    m <- measure(table, modes[[mode]]$output, modes[[mode]]$limit, !isFALSE(modes[[mode]]$overlap))
    rows[[length(rows) + 1L]] <- data.frame(
      mode = mode, label = label, table = table, rows = as.integer(m[[5]]),
      loaded_kb = m[[1]], rss_peak_kb = m[[2]], r_heap_peak_mb = m[[3]],
      duckdb_mb = round(m[[8]], 1), result_mb = round(m[[9]], 1),
      seconds = m[[4]], hits = as.integer(m[[6]]),
      threads = as.integer(m[[7]])
    )
  }
}
res <- do.call(rbind, rows)
rownames(res) <- NULL
base <- function(col) {
  vapply(res$mode, function(m) res[[col]][res$mode == m & res$label == "1x"], numeric(1))
}
res$rss_ratio_to_1x <- round(res$rss_peak_kb / base("rss_peak_kb"), 3)
res$heap_ratio_to_1x <- round(res$r_heap_peak_mb / base("r_heap_peak_mb"), 3)
# R's peak less the result it returns (one id and one count per table row,
# 4x as large for 4x the rows): what the streaming itself holds
res$heap_less_result_mb <- res$r_heap_peak_mb - res$result_mb
res$heap_less_result_ratio_to_1x <- round(res$heap_less_result_mb / base("heap_less_result_mb"), 3)
res$chunk_rows <- 100000L
res$read_length <- 100L
res$duckdb <- as.character(utils::packageVersion("duckdb"))
res$fetch <- "arrow"
res$overlap <- res$mode != "count_no_overlap"
dir.create(dirname(out_csv), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, out_csv, row.names = FALSE)
print(res)
for (m in unique(res$mode)) {
  r_rss <- res$rss_ratio_to_1x[res$mode == m & res$label == "4x"]
  r_heap <- res$heap_ratio_to_1x[res$mode == m & res$label == "4x"]
  r_less <- res$heap_less_result_ratio_to_1x[res$mode == m & res$label == "4x"]
  cat(sprintf(
    "\n%s: peak RSS 4x / 1x = %.3f (%s the 25%% bound); peak R heap 4x / 1x = %.3f (%s); less the result: %.3f (%s)",
    m, r_rss, if (r_rss <= 1.25) "within" else "OUTSIDE",
    r_heap, if (r_heap <= 1.25) "within" else "OUTSIDE",
    r_less, if (r_less <= 1.25) "within" else "OUTSIDE"
  ))
}
cat("\n")
