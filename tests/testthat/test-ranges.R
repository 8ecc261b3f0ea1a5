# as_granges(), as_iranges(), as_hits(): ranges from hit tables and back,
# every column kept.

skip_if_not_installed("GenomicRanges")

# GenomeInfoDb comes with GenomicRanges; reached without `::` so that it
# need not be a declared dependency.
gidb <- function(f) getExportedValue("GenomeInfoDb", f)

texts <- c(chr1 = "AAAATTGAAAGGATCGATTCGATCGA", chr2 = "CCCATCACCCATCG")

test_that("as_granges uses names, coordinates, strand and keeps every column", {
  hits <- sassy_search(texts, c("ATCG", "GATTACA"), k = 1)
  gr <- as_granges(hits)
  expect_s4_class(gr, "GRanges")
  expect_identical(length(gr), nrow(hits))
  expect_identical(as.character(GenomicRanges::seqnames(gr)), hits$name)
  expect_identical(IRanges::start(gr), hits$start)
  expect_identical(IRanges::end(gr), hits$end)
  expect_identical(as.character(GenomicRanges::strand(gr)), hits$strand)
  mc <- GenomicRanges::mcols(gr)
  expect_identical(
    colnames(mc),
    c("record", "pattern", "pattern_start", "pattern_end", "cost", "cigar")
  )
  expect_identical(mc$cigar, hits$cigar)
  expect_identical(as_hits(gr), hits)
})

test_that("seqinfo from lengths, a Seqinfo or the searched set", {
  hits <- sassy_search(texts, "ATCG", k = 1)
  gr <- as_granges(hits, seqinfo = nchar(texts))
  expect_identical(
    unname(gidb("seqlengths")(gr)),
    unname(nchar(texts))
  )
  si <- gidb("Seqinfo")(c("chr2", "chr1", "chr3"), c(14L, 26L, 100L))
  gr <- as_granges(hits, seqinfo = si)
  expect_identical(gidb("seqlevels")(gr), c("chr2", "chr1", "chr3"))
  expect_identical(as_hits(gr), hits)
  skip_if_not_installed("Biostrings")
  set <- Biostrings::DNAStringSet(texts)
  gr <- as_granges(sassy_search(set, "ATCG", k = 1), seqinfo = set)
  expect_identical(gidb("seqlengths")(gr), c(chr1 = 26L, chr2 = 14L))
  e <- expect_error(as_granges(hits, seqinfo = c(chr1 = 26)), class = "ducksassy_input_error")
  expect_identical(e$arg, "seqinfo")
  expect_match(conditionMessage(e), "chr2")
  expect_error(as_granges(hits, seqinfo = c(26, 14)), class = "ducksassy_input_error")
  expect_error(as_granges(hits, seqinfo = "chr1"), class = "ducksassy_input_error")
})

test_that("without names the record numbers name the sequences", {
  hits <- sassy_search(unname(texts), "ATCG", k = 1)
  gr <- as_granges(hits)
  expect_identical(as.character(GenomicRanges::seqnames(gr)), as.character(hits$record))
  expect_false("record" %in% colnames(GenomicRanges::mcols(gr)))
  expect_identical(as_hits(gr), hits)
})

test_that("CRISPR, file and empty hit tables round trip", {
  g <- sassy_crispr(texts, "ATCGATTCNGG", k = 2, max_n_frac = 1)
  expect_identical(as_hits(as_granges(g)), g)
  expect_identical(as_hits(as_iranges(g)), g)
  empty <- sassy_search(texts, "GGGGGGGGG")
  expect_identical(as_hits(as_granges(empty)), empty)
  expect_length(as_granges(empty), 0L)
  path <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  skip_if(path == "")
  # two files with the same record name: it would become one sequence
  copy <- withr::local_tempfile(fileext = ".fa")
  file.copy(path, copy)
  f <- sassy_search_fastx(c(path, copy), "GGGCGGCGACCT", k = 1)
  expect_identical(length(unique(f$file)), 2L)
  expect_warning(gr <- as_granges(f), class = "ducksassy_warning")
  expect_identical(as_hits(gr), f)
  expect_true("file" %in% colnames(GenomicRanges::mcols(gr)))
  # files whose records have other names: no warning, one sequence each
  other <- withr::local_tempfile(fileext = ".fa")
  lines <- readLines(path)
  writeLines(sub("^>\\S+", ">other", lines), other)
  f2 <- sassy_search_fastx(c(path, other), "GGGCGGCGACCT", k = 1)
  expect_no_warning(gr2 <- as_granges(f2))
  expect_identical(sort(as.character(unique(GenomicRanges::seqnames(gr2)))), sort(unique(f2$name)))
  expect_length(unique(f2$name), 2L)
})

test_that("as_iranges keeps names and columns", {
  hits <- sassy_search(texts, "ATCG", k = 1)
  ir <- as_iranges(hits)
  expect_s4_class(ir, "IRanges")
  expect_identical(names(ir), hits$name)
  expect_identical(IRanges::width(ir), hits$end - hits$start + 1L)
  expect_identical(as_hits(ir), hits)
  unnamed <- sassy_search(unname(texts), "ATCG", k = 1)
  expect_null(names(as_iranges(unnamed)))
  expect_identical(as_hits(as_iranges(unnamed)), unnamed)
})

test_that("empty regions (overhang) become zero-width ranges", {
  hits <- sassy_search("ACGT", "TTTTT", k = 4, overhang = 0.5, rc = FALSE)
  empty <- hits[hits$end < hits$start, ]
  skip_if(nrow(empty) == 0L, "no empty overhang hit")
  expect_true(all(IRanges::width(as_iranges(empty)) == 0L))
  expect_identical(as_hits(as_granges(empty)), empty)
})

test_that("bad hit tables are classed errors naming the column", {
  hits <- sassy_search(texts, "ATCG", k = 1)
  e <- expect_error(as_granges(hits[, c("record", "start")]), class = "ducksassy_input_error")
  expect_identical(e$value, "end")
  expect_error(as_granges("x"), class = "ducksassy_input_error")
  expect_error(as_iranges(list(start = 1, end = 2)), class = "ducksassy_input_error")
  bad <- hits
  bad$name[[2]] <- NA
  e <- expect_error(as_granges(bad), class = "ducksassy_input_error")
  expect_identical(e$index, 2L)
  bad <- hits
  bad$width <- 1L
  e <- expect_error(as_granges(bad), class = "ducksassy_input_error")
  expect_identical(e$value, "width")
  bad <- hits
  bad$strand[[1]] <- "x"
  expect_error(as_granges(bad), class = "ducksassy_input_error")
  bad <- hits
  bad$start[[1]] <- NA
  expect_error(as_iranges(bad), class = "ducksassy_input_error")
  nonames <- hits[, setdiff(names(hits), c("name", "record"))]
  expect_error(as_granges(nonames), class = "ducksassy_input_error")
  expect_error(as_hits(data.frame()), class = "ducksassy_input_error")
})
