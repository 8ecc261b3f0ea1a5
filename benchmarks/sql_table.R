# The table verbs on a DuckDB table: the R-side scan (chunks read into R
# through DuckDB's Arrow stream, searched by the Rust engine on R's worker
# threads) against the same search as one query inside the database (the
# SQL functions of the extension, on DuckDB's threads), issue 15. This
# decides for which verbs sassy_*_table() takes the in-database path
# (R/table-sql.R, where the rule and these numbers are written down).
#
# Cases: table size (100k, 250k, 1M reads: one, three and nine of DuckDB's
# row groups of 122,880 rows, which it scans in parallel) x verb (count,
# contains, search) x patterns (1; 4 with --patterns=1,4) x threads
# (DuckDB `SET threads` and `threads =`, the same number) x result (back to
# R, or into an `output` table). Paths:
#   r        the verb with options(ducksassy.table_sql = FALSE) (the scan)
#   sql      the verb with options(ducksassy.table_sql = TRUE) (in-database,
#            where the options allow it)
#   raw      the equivalent hand-written query (dbGetQuery(), or CREATE
#            TABLE AS for output), no R-side work after it
# Side by side in one process, the paths alternating within each
# repetition; every result is checked against the R path's. CPU seconds
# (user + system, all threads of this process: DuckDB's threads are ours)
# and elapsed seconds per repetition.
#
#   Rscript benchmarks/sql_table.R [--reads=100000,250000,1000000]
#     [--len=150] [--k=2] [--reps=5] [--threads=1,2] [--patterns=1]
#     [--verbs=count,contains,search] [--output=no,yes]
#
# Writes benchmarks/data/sql_table.csv and sql_table_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  reads = c(100000L, 250000L, 1000000L), len = 150L, k = 2L, reps = 5L,
  threads = c(1L, 2L), patterns = 1L, verbs = c("count", "contains", "search"),
  output = c("no", "yes")
))
load_before <- load_average()
if (!requireNamespace("duckdb", quietly = TRUE)) stop("the duckdb package is needed")

set.seed(3)
random_pattern <- function() paste(sample(c("A", "C", "G", "T"), 20L, TRUE), collapse = "")
all_patterns <- c(BENCH_PATTERN, vapply(seq_len(max(args$patterns) - 1L), function(i) random_pattern(), ""))
k <- args$k

drv <- sassy_duckdb()
con <- DBI::dbConnect(drv)

sql_panel <- function(p) paste0("[", paste0("'", p, "'", collapse = ", "), "]")
raw_count_sql <- function(fn, p) {
  cols <- paste0("CAST(c[", seq_along(p), "] AS ", if (fn == "count") "INTEGER" else "BOOLEAN",
                 ") AS pattern_", seq_along(p), collapse = ", ")
  sprintf("SELECT id, %s FROM (SELECT id, sassy_%s(sequence, %s, %d) AS c FROM reads)",
          cols, fn, sql_panel(p), k)
}
raw_hits_sql <- function(p) {
  sprintf(paste(
    "SELECT id, h.pattern, h.start, h.\"end\", h.pattern_start, h.pattern_end,",
    "h.cost, h.strand, h.cigar FROM (SELECT id, unnest(sassy_hits(sequence, %s, %d)) AS h",
    "FROM reads)"
  ), sql_panel(p), k)
}

verb_of <- function(mode) {
  switch(mode,
    count = sassy_count_table, contains = sassy_contains_table,
    search = sassy_search_table
  )
}

run_path <- function(path, mode, p, threads, output) {
  DBI::dbExecute(con, sprintf("SET threads = %d", threads))
  if (output) {
    DBI::dbExecute(con, "DROP TABLE IF EXISTS out")
  }
  f <- if (path == "raw") {
    q <- if (mode == "search") raw_hits_sql(p) else raw_count_sql(mode, p)
    if (output) {
      function() DBI::dbExecute(con, paste("CREATE TABLE out AS", q))
    } else {
      function() DBI::dbGetQuery(con, q)
    }
  } else {
    function() {
      withr::with_options(
        list(ducksassy.table_sql = path == "sql", ducksassy.progress = FALSE),
        verb_of(mode)(con, "reads", p, k = k, threads = threads,
                      output = if (output) "out")
      )
    }
  }
  r <- timed(f)
  r$n <- if (output) {
    DBI::dbGetQuery(con, "SELECT count(*) AS n FROM out")$n
  } else {
    nrow(r$value)
  }
  r$value <- if (output) NULL else r$value
  r
}

rows <- list()
add <- function(...) rows[[length(rows) + 1L]] <<- data.frame(...)
paths <- c("r", "sql", "raw")
for (n_reads in args$reads) {
  reads <- make_reads(n_reads, args$len)
  DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(reads), sequence = reads), overwrite = TRUE)
  rm(reads)
  invisible(gc())
  for (mode in args$verbs) {
    for (np in args$patterns) {
      p <- all_patterns[seq_len(np)]
      for (output in c(FALSE, TRUE)[c("no", "yes") %in% args$output]) {
        for (t in args$threads) {
          # warm up, and the R path's result to check the others against
          want <- run_path("r", mode, p, t, output)
          for (rep in seq_len(args$reps)) {
            for (path in paths) {
              r <- run_path(path, mode, p, t, output)
              if (r$n != want$n) stop("different number of rows: ", path, " ", mode)
              if (path == "sql" && !output && !identical(r$value, want$value)) {
                stop("the in-database path differs from the R path: ", mode)
              }
              add(
                reads = n_reads, verb = mode, patterns = np, output = output, threads = t,
                path = path, rep = rep, elapsed = r$elapsed, cpu = r$cpu,
                rows = r$n
              )
            }
          }
        }
      }
    }
  }
}
res <- do.call(rbind, rows)
res$len <- args$len
res$k <- k
DBI::dbDisconnect(con)
duckdb::duckdb_shutdown(drv)

med <- aggregate(cbind(elapsed, cpu) ~ reads + verb + patterns + output + threads + path, res, stats::median)
wide <- reshape(med, idvar = c("reads", "verb", "patterns", "output", "threads"),
                timevar = "path", direction = "wide")
wide$elapsed_sql_over_r <- round(wide$elapsed.sql / wide$elapsed.r, 3)
wide$cpu_sql_over_r <- round(wide$cpu.sql / wide$cpu.r, 3)
print(wide[order(wide$reads, wide$verb, wide$patterns, wide$output, wide$threads), ], row.names = FALSE)
write_csv(res, "sql_table")
write_receipt("sql_table", args, load_before = load_before)
