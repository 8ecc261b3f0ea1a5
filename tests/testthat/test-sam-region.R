# cigar_style = "sam", the region column and the seqinfo that as_granges()
# fills from the lengths of the texts searched.

# Split a SAM CIGAR into its leading and trailing soft clips and the rest.
sam_parts <- function(cigar) {
  lead <- regmatches(cigar, regexpr("^[0-9]+S", cigar))
  trail <- regmatches(cigar, regexpr("[0-9]+S$", cigar))
  core <- sub("^[0-9]+S", "", sub("[0-9]+S$", "", cigar))
  list(
    lead = if (length(lead)) as.integer(sub("S", "", lead)) else 0L,
    trail = if (length(trail)) as.integer(sub("S", "", trail)) else 0L,
    core = core
  )
}

# Check a SAM CIGAR independently of how it was made: the read as it lies on
# the forward strand (the pattern, or its reverse complement for "-"), less
# its soft clips, must be spelt against the forward text region by walking
# the CIGAR (cigar_apply() of helper-oracle.R), with the reported cost.
expect_sam_hits <- function(hits, texts, patterns, alphabet = "dna") {
  expect_gt(nrow(hits), 0L)
  for (i in seq_len(nrow(hits))) {
    h <- hits[i, ]
    pattern <- patterns[[h$pattern]]
    read <- if (h$strand == "-") oracle_revcomp(pattern) else pattern
    region <- substr(texts[[h$record]], h$start, h$end)
    parts <- sam_parts(h$cigar)
    read <- substr(read, parts$lead + 1L, nchar(read) - parts$trail)
    expect_true(isTRUE(cigar_apply(read, region, parts$core, alphabet)),
      label = paste("hit", i, h$strand, h$cigar, cigar_apply(read, region, parts$core, alphabet)))
    expect_identical(cigar_cost(parts$core), h$cost)
  }
}

set.seed(16)
letters_dna <- c("A", "C", "G", "T")
patterns <- oracle_random_strings(3, 12, 20, letters_dna)
texts <- oracle_plant(oracle_random_strings(30, 40, 120, letters_dna), patterns, letters_dna)
texts <- oracle_plant(texts, vapply(patterns, oracle_revcomp, ""), letters_dna)

test_that("SAM CIGARs spell the read and the text on both strands", {
  hits <- sassy_search(texts, patterns, k = 3, cigar_style = "sam")
  expect_true(all(c("+", "-") %in% hits$strand))
  expect_true(any(grepl("[ID]", hits$cigar[hits$strand == "-"])))
  expect_sam_hits(hits, texts, patterns)
  # plus-strand CIGARs are sassy's; minus-strand ones its operations reversed
  plain <- sassy_search(texts, patterns, k = 3)
  expect_identical(hits[names(hits) != "cigar"], plain[names(plain) != "cigar"])
  plus <- hits$strand == "+"
  expect_identical(hits$cigar[plus], plain$cigar[plus])
  # a worked minus-strand example: the pattern's reverse complement with
  # one letter deleted from the text's point of view
  h <- sassy_search("TTTTTGGGACCATTTTT", "AATGGTTCCC", k = 1, alphabet = "dna",
    cigar_style = "sam")
  expect_identical(h$strand, "-")
  expect_identical(h$cigar, "4=1I5=")
  expect_identical(
    sassy_search("TTTTTGGGACCATTTTT", "AATGGTTCCC", k = 1, alphabet = "dna")$cigar,
    "5=1I4="
  )
})

test_that("SAM CIGARs soft-clip the overhang", {
  hits <- sassy_search(c("GATTACAGG", "CCTGTAATC"), "TTTGATTACA", k = 1,
    overhang = 0.5, cigar_style = "sam")
  expect_gt(nrow(hits), 0L)
  expect_true(all(grepl("S", hits$cigar)))
  for (i in seq_len(nrow(hits))) {
    parts <- sam_parts(hits$cigar[[i]])
    clip <- c(hits$pattern_start[[i]] - 1L, 10L - hits$pattern_end[[i]])
    if (hits$strand[[i]] == "-") clip <- rev(clip)
    expect_identical(c(parts$lead, parts$trail), clip)
  }
})

test_that("cigar_style works for Biostrings sets, files, CRISPR and tables", {
  reads <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  primer <- "GACGCTCAGTAATGTGACGA"
  f <- sassy_search_fastx(reads, primer, k = 3, cigar_style = "sam", region = TRUE)
  recs <- sassy_read_fastx(reads)
  seqs <- stats::setNames(recs$sequence, NULL)
  f_plain <- sassy_search_fastx(reads, primer, k = 3)
  expect_identical(f$cigar[f$strand == "+"], f_plain$cigar[f_plain$strand == "+"])
  expect_identical(f$region, substr(seqs[f$record], f$start, f$end))
  expect_sam_hits(f, seqs, primer, alphabet = "iupac")

  guides <- c("GACGCATAAAGATGAGACGCNGG")
  genome <- sassy_read_fastx(system.file("extdata", "lambda_virus.fa", package = "ducksassy"))$sequence
  cr <- sassy_crispr(genome, guides, k = 2, cigar_style = "sam", region = TRUE)
  cr_plain <- sassy_crispr(genome, guides, k = 2)
  expect_identical(cr$start, cr_plain$start)
  expect_identical(cr$region, substr(genome[cr$record], cr$start, cr$end))

  expect_error(sassy_search("ACGT", "ACG", cigar_style = "samtools"), class = "ducksassy_input_error")
  expect_error(sassy_search("ACGT", "ACG", region = NA), class = "ducksassy_input_error")
})

test_that("the region column is substr() of the text", {
  hits <- sassy_search(texts, patterns, k = 3, region = TRUE)
  expect_identical(names(hits)[ncol(hits)], "region")
  expect_identical(hits$region, substr(texts[hits$record], hits$start, hits$end))
  without <- sassy_search(texts, patterns, k = 3)
  expect_identical(hits[names(without)], without)
  expect_false("region" %in% names(without))
  # empty result: an empty column
  none <- sassy_search("AAAA", "CCC", region = TRUE)
  expect_identical(none$region, character())
  # a Biostrings set, searched in chunks
  skip_if_not_installed("Biostrings")
  set <- Biostrings::DNAStringSet(texts)
  withr::local_options(ducksassy.xstringset_chunk_records = 7L)
  b <- sassy_search(set, patterns, k = 3, region = TRUE)
  expect_identical(b, hits)
})

test_that("the region column of file searches is captured while reading", {
  genome <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  seq <- sassy_read_fastx(genome)$sequence
  pats <- c(substr(seq[[1]], 1000, 1015), oracle_revcomp(substr(seq[[3]], 1500, 1517)))
  f <- sassy_search_fastx(genome, pats, k = 2, region = TRUE)
  expect_gt(nrow(f), 1L)
  expect_identical(f$region, substr(seq[f$record], f$start, f$end))
  without <- sassy_search_fastx(genome, pats, k = 2)
  expect_identical(f[names(without)], without[names(without)])
  expect_identical(attr(f, "seqlengths"), attr(without, "seqlengths"))
  # the same through shards of record ranges (a serial BiocParallel)
  skip_if_not_installed("BiocParallel")
  reads <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  withr::local_options(ducksassy.shard_records = 40)
  one <- sassy_search_fastx(reads, pats, k = 4, region = TRUE)
  sharded <- sassy_search_fastx(reads, pats, k = 4, region = TRUE,
    BPPARAM = BiocParallel::SerialParam())
  attr(sharded, "missing_shards") <- NULL
  expect_identical(sharded, one)
})

test_that("the region column of table searches is substr() of the column", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite())
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(texts), sequence = texts))
  t <- sassy_search_table(con, "reads", patterns, k = 3, id = "id",
    region = TRUE, cigar_style = "sam", chunk_rows = 11L)
  v <- sassy_search(texts, patterns, k = 3, region = TRUE, cigar_style = "sam")
  expect_identical(t$region, v$region)
  expect_identical(t$cigar, v$cigar)
  expect_identical(t$region, substr(texts[t$id], t$start, t$end))
})

test_that("as_granges() fills seqinfo from named texts and files", {
  skip_if_not_installed("GenomicRanges")
  seqlengths <- getExportedValue("GenomeInfoDb", "seqlengths")
  named <- stats::setNames(texts, paste0("t", seq_along(texts)))
  hits <- sassy_search(named, patterns, k = 3)
  gr <- as_granges(hits)
  sl <- seqlengths(gr)
  expect_identical(sl, nchar(named)[names(sl)])
  expect_setequal(names(sl), unique(hits$name))
  expect_identical(as_hits(gr), hits)

  genome <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  recs <- sassy_read_fastx(genome)
  f <- sassy_search_fastx(genome, "GACGCTCAGTAATGTGACGA", k = 2)
  sl <- seqlengths(as_granges(f))
  expect_identical(sl, stats::setNames(nchar(recs$sequence), recs$name)[names(sl)])

  # unnamed texts: record numbers, no lengths (nothing to name them by)
  expect_true(all(is.na(seqlengths(as_granges(sassy_search(texts, patterns, k = 3))))))
})
