# The reverse strand of a batched group (many patterns of one length) is
# searched only for the patterns that an exact k-mer filter finds there;
# DUCKSASSY_RC_FILTER=off searches it batched. Both must give identical
# results, on reads with reverse-complemented barcodes planted with edits,
# in lower case, and with N (which the filter leaves to the batched search).

rc_filter_off <- function(expr) withr::with_envvar(c(DUCKSASSY_RC_FILTER = "off"), expr)

rc_reads <- function(barcodes, n = 400, seed = 3) {
  set.seed(seed)
  rand <- function(l) paste(sample(c("A", "C", "G", "T"), l, TRUE), collapse = "")
  mutate <- function(s, edits) {
    for (e in seq_len(edits)) {
      i <- sample.int(nchar(s), 1)
      op <- sample(3, 1)
      s <- switch(op,
        paste0(substr(s, 1, i - 1), sample(c("A", "C", "G", "T"), 1), substr(s, i + 1, nchar(s))),
        paste0(substr(s, 1, i - 1), substr(s, i + 1, nchar(s))),
        paste0(substr(s, 1, i), sample(c("A", "C", "G", "T"), 1), substr(s, i + 1, nchar(s)))
      )
    }
    s
  }
  vapply(seq_len(n), function(i) {
    b <- barcodes[sample.int(length(barcodes), 1)]
    rc <- intToUtf8(rev(utf8ToInt(chartr("ACGT", "TGCA", b))))
    len <- sample(c(0L, 20L, 150L, 300L, 2500L), 1)
    r <- paste0(rand(len %/% 2), mutate(rc, sample(0:3, 1)), rand(len %/% 2))
    switch(sample(6, 1), tolower(r), sub("^(.{5})", "\\1N", r), r, r, r, r)
  }, "")
}

test_that("the reverse-strand filter gives the hits, counts, flags and assignments of the batched search", {
  set.seed(9)
  barcodes <- vapply(1:40, function(i) paste(sample(c("A", "C", "G", "T"), 24, TRUE), collapse = ""), "")
  reads <- c(rc_reads(barcodes), NA)
  for (args in list(
    list(k = 3L),
    list(k = 2L, alphabet = "dna"),
    list(k = 3L, all_endpoints = TRUE),
    list(k = 3L, threads = 2L)
  )) {
    info <- paste(names(args), args, collapse = ", ")
    if (identical(args$alphabet, "dna")) reads <- reads[!grepl("N", reads)]
    on <- do.call(sassy_search, c(list(reads, barcodes), args))
    expect_identical(on, rc_filter_off(do.call(sassy_search, c(list(reads, barcodes), args))), info = info)
    # planted in reverse with 0-3 edits: most reads have a reverse-strand hit
    # (at k = 2, those with 3 edits may not)
    expect_gt(sum(on$strand == "-"), 0.6 * sum(!is.na(reads)))
    for (f in list(sassy_count, sassy_contains, sassy_assign)) {
      expect_identical(do.call(f, c(list(reads, barcodes), args)), rc_filter_off(do.call(f, c(list(reads, barcodes), args))), info = info)
    }
  }
  expect_identical(sassy_assign(reads, barcodes, k = 3L, ends = 100), rc_filter_off(sassy_assign(reads, barcodes, k = 3L, ends = 100)))
})
