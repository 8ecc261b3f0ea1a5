# ducksassy demo: the main job, on real data, in a database.
#
# Loads the 26,454 Drosophila melanogaster upstream sequences (2 kb each,
# dm3) that ship with Biostrings into a DuckDB database file, then searches
# that table with sassy_search_table() for a few promoter motifs and a PCR
# primer, allowing k = 2 edits (substitutions, insertions, deletions), on
# both strands and on all cores. The rows are streamed from DuckDB in chunks
# (its Arrow stream), never read into R as a whole. For comparison, the same
# search runs on the sequences as a character vector (sassy_search()), and
# must give the same hits. Run it with `make demo`, or
#   Rscript inst/scripts/demo.R   (or system.file("scripts", "demo.R", package = "ducksassy"))
suppressPackageStartupMessages(library(ducksassy))

fasta <- system.file("extdata", "dm3_upstream2000.fa.gz", package = "Biostrings")
if (!nzchar(fasta)) {
  stop("Biostrings' dm3_upstream2000.fa.gz was not found; install Biostrings ",
       "(Debian: r-bioc-biostrings, or `make setup`).")
}
for (pkg in c("DBI", "duckdb", "nanoarrow")) {
  if (!requireNamespace(pkg, quietly = TRUE)) {
    stop("the demo needs the ", pkg, " package; install it with `make setup`.")
  }
}
elapsed <- function(t0) proc.time()[["elapsed"]] - t0
mb <- function(bytes) sprintf("%.1f MB", bytes / 2^20)

cat("== ducksassy demo ==\n\n")
cat("SIMD backend:\n")
print(sassy_backend_info(), row.names = FALSE)

# --- 1. FASTA -> DuckDB database file --------------------------------------
t0 <- proc.time()[["elapsed"]]
records <- sassy_read_fastx(fasta)   # name, description, sequence
t_read <- elapsed(t0)
cat(sprintf("\nRead %s records, %.1f Mb, from %s in %.2f s\n",
            format(nrow(records), big.mark = ","),
            sum(nchar(records$sequence)) / 1e6, basename(fasta), t_read))

db <- file.path(tempdir(), "dm3_upstream.duckdb")
unlink(db)
con <- suppressMessages(DBI::dbConnect(duckdb::duckdb(dbdir = db)))
t0 <- proc.time()[["elapsed"]]
DBI::dbWriteTable(con, "upstream", data.frame(
  name = records$name,
  location = records$description,
  sequence = records$sequence
))
invisible(DBI::dbExecute(con, "CHECKPOINT"))
t_load <- elapsed(t0)
n_rows <- DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM upstream")$n
cat(sprintf("Loaded them into DuckDB %s, table `upstream` (%s rows; name, location, sequence): %s on disk, %.2f s\n",
            as.character(utils::packageVersion("duckdb")),
            format(n_rows, big.mark = ","), mb(file.size(db)), t_load))

# The vector, kept for the comparison below; the table search does not use it.
texts <- stats::setNames(records$sequence, records$name)
rm(records)

# --- 2. The patterns ---------------------------------------------------------
# A 20-mer primer cut from a real record (the first without N), so the search
# must find it at least once with cost 0, at the place it was cut from.
src <- which(!grepl("N", texts, fixed = TRUE))[1]
primer_start <- 1001L
primer <- toupper(substr(texts[[src]], primer_start, primer_start + 19L))

patterns <- c(
  "TATA box" = "TATAAAAG",
  "CAAT box" = "GGCCAATCT",
  "E-box" = "CACGTGAC",
  "primer (20-mer)" = primer
)
k <- 2L
threads <- sassy_threads()
chunk_rows <- 5000L   # 6 chunks here; the default is 100,000 rows

# --- 3. Search the table -----------------------------------------------------
cat(sprintf(
  "\nSearching table `upstream` for %d patterns with k = %d on both strands, %d threads, in chunks of %s rows\n",
  length(patterns), k, threads, format(chunk_rows, big.mark = ",")
))
t0 <- proc.time()[["elapsed"]]
hits <- sassy_search_table(con, "upstream", unname(patterns), k = k,
                           id = "name", threads = threads,
                           chunk_rows = chunk_rows)
t_table <- elapsed(t0)

per_pattern <- data.frame(
  pattern = names(patterns),
  sequence = unname(patterns),
  hits = tabulate(hits$pattern, nbins = length(patterns)),
  exact = tabulate(hits$pattern[hits$cost == 0L], nbins = length(patterns)),
  records = vapply(seq_along(patterns), function(i) {
    length(unique(hits$name[hits$pattern == i]))
  }, integer(1)),
  plus = tabulate(hits$pattern[hits$strand == "+"], nbins = length(patterns)),
  minus = tabulate(hits$pattern[hits$strand == "-"], nbins = length(patterns))
)
cat("\nHits per pattern (exact = cost 0; records = records with >= 1 hit):\n")
print(per_pattern, row.names = FALSE)

cat("\nHits by cost:\n")
print(table(pattern = names(patterns)[hits$pattern], cost = hits$cost))

cat(sprintf("\nPrimer taken from record %d (%s), positions %d-%d; its hits with cost <= 1:\n",
            src, names(texts)[src], primer_start, primer_start + 19L))
ph <- hits[hits$pattern == 4L & hits$cost <= 1L, ]
print(utils::head(ph, 10), row.names = FALSE)
found <- any(ph$name == names(texts)[src] & ph$start == primer_start & ph$cost == 0L)
cat(sprintf("Found at its origin with cost 0: %s\n", found))

# Which records have an exact TATA box and an exact E-box: one row per
# table row, one logical column per pattern
t0 <- proc.time()[["elapsed"]]
has <- sassy_contains_table(con, "upstream", patterns[c("TATA box", "E-box")],
                            k = 0L, id = "name", chunk_rows = chunk_rows)
t_contains <- elapsed(t0)
cat(sprintf("\nRecords with an exact TATA box and an exact E-box: %s of %s (sassy_contains_table(), %.2f s)\n",
            format(sum(has[["TATA box"]] & has[["E-box"]], na.rm = TRUE), big.mark = ","),
            format(nrow(has), big.mark = ","), t_contains))

# --- 4. The same search on the vector, for comparison ------------------------
t0 <- proc.time()[["elapsed"]]
vhits <- sassy_search(texts, unname(patterns), k = k, threads = threads)
t_vector <- elapsed(t0)
same <- identical(vhits$name, hits$name) &&
  identical(vhits[setdiff(names(vhits), c("record", "name"))],
            hits[setdiff(names(hits), "name")])
cat(sprintf(
  "\nsassy_search() on the same sequences as a character vector: %.2f s, identical hits: %s\n",
  t_vector, same
))

DBI::dbDisconnect(con, shutdown = TRUE)
cat(sprintf(
  "\nSearched the DuckDB table (%.1f Mb x %d patterns, both strands) in %.2f s on %d threads: %s hits in total (vector search: %.2f s)\n",
  sum(nchar(texts)) / 1e6, length(patterns), t_table, threads,
  format(nrow(hits), big.mark = ","), t_vector
))
unlink(db)
if (!found) {
  stop("the primer was not found at the place it was cut from")
}
if (!same) {
  stop("the table search and the vector search gave different hits")
}
# #24: the vignette the README sends users to is installed (make install)
if ("ducksassy" %in% utils::vignette(package = "ducksassy")$results[, "Item"]) {
  cat("\nNext: vignette(\"ducksassy\") walks through every verb on real data.\n")
} else if (file.exists("tools/install-vignette.R")) {
  stop("the vignette is not installed: run `make install` (tools/install-vignette.R)")
}
