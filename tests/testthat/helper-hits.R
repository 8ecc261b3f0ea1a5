# Build the data frame sassy_search() should return, for hand-written
# expectations. `name` is added (after `record`) only when given.
expected_hits <- function(record = integer(), pattern = integer(),
                          start = integer(), end = integer(),
                          pattern_start = 1L,
                          pattern_end = NULL, cost = integer(),
                          strand = character(), cigar = character(),
                          name = NULL, patterns = NULL) {
  n <- max(
    length(record), length(pattern), length(start), length(end),
    length(cost), length(strand), length(cigar)
  )
  if (is.null(pattern_end)) {
    pattern_end <- nchar(patterns)[rep_len(pattern, n)]
  }
  out <- list(record = as.integer(rep_len(record, n)))
  if (!is.null(name)) out$name <- as.character(rep_len(name, n))
  out$pattern <- as.integer(rep_len(pattern, n))
  out$start <- as.integer(rep_len(start, n))
  out$end <- as.integer(rep_len(end, n))
  out$pattern_start <- as.integer(rep_len(pattern_start, n))
  out$pattern_end <- as.integer(rep_len(pattern_end, n))
  out$cost <- as.integer(rep_len(cost, n))
  out$strand <- as.character(rep_len(strand, n))
  out$cigar <- as.character(rep_len(cigar, n))
  structure(out, class = "data.frame", row.names = .set_row_names(n))
}

hit_column_names <- c(
  "record", "pattern", "start", "end", "pattern_start", "pattern_end",
  "cost", "strand", "cigar"
)

# Random sequences over `letters` (lengths min_len..max_len).
random_seqs <- function(n, min_len, max_len, letters = c("A", "C", "G", "T")) {
  oracle_random_strings(n, min_len, max_len, letters)
}

# Sort hits the way the package promises (record, pattern, start, end,
# strand) -- used to check the order, never to fix it.
order_hits <- function(h) {
  out <- h[order(h$record, h$pattern, h$start, h$end, h$strand, method = "radix"), , drop = FALSE]
  rownames(out) <- NULL
  out
}
