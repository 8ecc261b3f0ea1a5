# ducksassy demo: the main job, on real data.
#
# Searches the 26,454 Drosophila melanogaster upstream sequences (2 kb each,
# dm3) that ship with Biostrings for a few promoter motifs and a PCR primer,
# allowing k = 2 edits (substitutions, insertions, deletions), on both strands
# and on all cores. Run it with `make demo`, or
#   Rscript inst/scripts/demo.R   (or system.file("scripts", "demo.R", package = "ducksassy"))
suppressPackageStartupMessages(library(ducksassy))

fasta <- system.file("extdata", "dm3_upstream2000.fa.gz", package = "Biostrings")
if (!nzchar(fasta)) {
  stop("Biostrings' dm3_upstream2000.fa.gz was not found; install Biostrings ",
       "(Debian: r-bioc-biostrings, or `make setup`).")
}

cat("== ducksassy demo ==\n\n")
cat("SIMD backend:\n")
print(sassy_backend_info(), row.names = FALSE)

t0 <- proc.time()[["elapsed"]]
seqs <- Biostrings::readDNAStringSet(fasta)
texts <- as.character(seqs)   # a named character vector
names(texts) <- sub(" .*", "", names(texts))
t_read <- proc.time()[["elapsed"]] - t0
cat(sprintf("\nRead %s records, %.1f Mb, from %s in %.2f s\n",
            format(length(texts), big.mark = ","),
            sum(nchar(texts)) / 1e6, basename(fasta), t_read))

# A 20-mer primer cut from a real record (the first without N), so the search
# must find it at least once with cost 0, at the place it was cut from.
src <- which(!grepl("N", texts, fixed = TRUE))[1]
primer_start <- 1001L
primer <- substr(texts[[src]], primer_start, primer_start + 19L)

patterns <- c(
  "TATA box" = "TATAAAAG",
  "CAAT box" = "GGCCAATCT",
  "E-box" = "CACGTGAC",
  "primer (20-mer)" = primer
)
k <- 2L
threads <- sassy_threads()

cat(sprintf("\nSearching %d patterns with k = %d on both strands, %d threads\n",
            length(patterns), k, threads))
t0 <- proc.time()[["elapsed"]]
hits <- sassy_search(texts, unname(patterns), k = k, threads = threads)
elapsed <- proc.time()[["elapsed"]] - t0

per_pattern <- data.frame(
  pattern = names(patterns),
  sequence = unname(patterns),
  hits = tabulate(hits$pattern, nbins = length(patterns)),
  exact = tabulate(hits$pattern[hits$cost == 0L], nbins = length(patterns)),
  records = vapply(seq_along(patterns), function(i) {
    length(unique(hits$record[hits$pattern == i]))
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
found <- any(ph$record == src & ph$start == primer_start & ph$cost == 0L)
cat(sprintf("Found at its origin with cost 0: %s\n", found))

cat(sprintf(
  "\nSearched %.1f Mb x %d patterns (both strands) in %.2f s on %d threads: %s hits in total\n",
  sum(nchar(texts)) / 1e6, length(patterns), elapsed, threads,
  format(nrow(hits), big.mark = ",")
))
if (!found) {
  stop("the primer was not found at the place it was cut from")
}
