# The SQL functions against the R function on the same strings (issue 15):
#   1. one DuckDB thread: SELECT sum(sassy_count(seq, pattern, k)) FROM reads
#      vs sum(sassy_count(reads, pattern, k, threads = 1)) in R
#      (target: SQL within 1.1x of R);
#   2. DuckDB threads 2 vs 1 on the same query (target: at least 1.8x);
#   3. a query whose rows come back to R (SELECT id, sassy_count(...)), with
#      preserve_insertion_order on (the default: one thread) and off;
#   4. the query of 1. on the same rows stored in row groups of 16,384 rows
#      (a database file attached with ROW_GROUP_SIZE 16384): 17 row groups
#      instead of DuckDB's default 3 (122,880 rows each), to see whether
#      the table's layout limits the 2-thread speed-up.
# Side by side in one process, alternating per repetition; every query's
# result is checked against R's. CPU seconds (user + system, all threads of
# this process) and elapsed seconds per repetition.
#
#   Rscript benchmarks/sql.R [--reads=262144] [--len=150] [--k=2] [--reps=5]
#     [--threads=1,2]
#
# Writes benchmarks/data/sql.csv and sql_receipt.json. Not yet in
# overhead.Rmd / scaling.Rmd: the lead folds these rows in after a rerun on a
# quiet machine.

source("benchmarks/common.R")
args <- bench_args(list(reads = 262144L, len = 150L, k = 2L, reps = 5L, threads = c(1L, 2L)))
load_before <- load_average()
if (!requireNamespace("duckdb", quietly = TRUE)) stop("the duckdb package is needed")

reads <- make_reads(args$reads, args$len)
pattern <- BENCH_PATTERN
k <- args$k

drv <- sassy_duckdb()
con <- DBI::dbConnect(drv)
DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(reads), seq = reads))
q_sum <- sprintf("SELECT sum(sassy_count(seq, '%s', %d)) AS n FROM reads", pattern, k)
q_rows <- sprintf("SELECT id, sassy_count(seq, '%s', %d) AS n FROM reads", pattern, k)
small_db <- tempfile(fileext = ".duckdb")
DBI::dbExecute(con, sprintf("ATTACH '%s' AS small (ROW_GROUP_SIZE 16384, STORAGE_VERSION 'v1.2.0')", small_db))
DBI::dbExecute(con, "CREATE TABLE small.reads AS SELECT * FROM reads")
q_small <- sprintf("SELECT sum(sassy_count(seq, '%s', %d)) AS n FROM small.reads", pattern, k)

want <- sassy_count(reads, pattern, k, threads = 1L)
want_sum <- sum(want)

sql_sum <- function(threads, q = q_sum) {
  DBI::dbExecute(con, sprintf("SET threads = %d", threads))
  r <- timed(function() DBI::dbGetQuery(con, q)$n)
  stopifnot(r$value == want_sum)
  r
}
sql_rows <- function(threads, preserve) {
  DBI::dbExecute(con, sprintf("SET threads = %d", threads))
  DBI::dbExecute(con, sprintf("SET preserve_insertion_order = %s", tolower(preserve)))
  r <- timed(function() DBI::dbGetQuery(con, q_rows))
  DBI::dbExecute(con, "SET preserve_insertion_order = true")
  v <- r$value
  stopifnot(identical(as.integer(v$n[order(v$id)]), as.vector(want)))
  r
}
r_fun <- function(threads) {
  r <- timed(function() sum(sassy_count(reads, pattern, k, threads = threads)))
  stopifnot(r$value == want_sum)
  r
}

# warm up (pools, per-thread searchers, DuckDB's table in memory)
invisible(sql_sum(max(args$threads)))
invisible(sql_sum(max(args$threads), q_small))
invisible(r_fun(1L))

rows <- list()
add <- function(path, threads, rep, r) {
  rows[[length(rows) + 1L]] <<- data.frame(
    path = path, threads = threads, rep = rep,
    elapsed = r$elapsed, cpu = r$cpu
  )
}
for (rep in seq_len(args$reps)) {
  for (t in args$threads) {
    add("r_sassy_count", t, rep, r_fun(t))
    add("sql_sum", t, rep, sql_sum(t))
    add("sql_sum_small_groups", t, rep, sql_sum(t, q_small))
    add("sql_rows_ordered", t, rep, sql_rows(t, TRUE))
    add("sql_rows_unordered", t, rep, sql_rows(t, FALSE))
  }
}
res <- do.call(rbind, rows)
res$reads <- args$reads
res$len <- args$len
res$k <- k
DBI::dbExecute(con, "DETACH small")
DBI::dbDisconnect(con)
duckdb::duckdb_shutdown(drv)
unlink(small_db)

med <- aggregate(cbind(elapsed, cpu) ~ path + threads, res, stats::median)
print(med)
one <- function(p, t, col) med[med$path == p & med$threads == t, col]
if (1L %in% args$threads) {
  cat(sprintf("SQL / R, 1 thread (cpu): %.3f\n", one("sql_sum", 1L, "cpu") / one("r_sassy_count", 1L, "cpu")))
}
if (all(c(1L, 2L) %in% args$threads)) {
  cat(sprintf("SQL 1 / 2 threads (elapsed): %.3f\n", one("sql_sum", 1L, "elapsed") / one("sql_sum", 2L, "elapsed")))
  cat(sprintf("SQL 1 / 2 threads, 16,384-row groups (elapsed): %.3f\n", one("sql_sum_small_groups", 1L, "elapsed") / one("sql_sum_small_groups", 2L, "elapsed")))
}
write_csv(res, "sql")
write_receipt("sql", args, load_before = load_before)
