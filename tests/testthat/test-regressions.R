# Regression tests: one test per bug found, named after the bug (issue or
# report number and a short description), with the smallest input that
# showed it and a comment saying what went wrong and what is expected:
#
#   test_that("#12: - strand hit lost at a 64-letter block border", {
#     # got no hit, expected start 60, end 71 on "-"
#     ...
#   })
#
# Several bugs found under one issue are numbered within it (#7.1, #7.2,
# ...), so that each name says which bug it is.
#
# Tests are added here when a bug is fixed and never removed.

test_that("#7.1: X in a pattern with overhang failed sassy's traceback (internal error); now an input error", {
  # got "internal error in ducksassy: ... Remaining cost after the trace must
  # be 0" for pattern "CX", k = 1, overhang = 0.5 (sassy pads the text ends
  # with N, which X does not match); expected a classed input error
  cnd <- tryCatch(sassy_search("", "CX", k = 1L, overhang = 0.5), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_input_error")
  expect_match(conditionMessage(cnd), "X", fixed = TRUE)
  # without overhang X is a valid (never matching) letter
  expect_identical(sassy_count("CA", "CX", k = 1L, rc = FALSE), 1L)
})

test_that("#7.2: a count matrix larger than memory aborted the process; now a limit error", {
  # 200,000 texts x 100,000 patterns = 2e10 cells (80 GB in native code):
  # the allocation failed and Rust aborted, killing R; expected an error
  cnd <- tryCatch(sassy_count(rep("ACGT", 2e5), rep("ACGTACGT", 1e5)), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_limit_error")
  expect_match(conditionMessage(cnd), "100,000 patterns", fixed = TRUE)
  expect_s3_class(
    tryCatch(sassy_contains(rep("ACGT", 2e5), rep("ACGTACGT", 1e5)), error = function(e) e),
    "ducksassy_limit_error"
  )
})

test_that("#7.3: the default hit limit was .Machine$integer.max, more hits than memory holds", {
  # a search holds about 140 bytes per hit at its peak: 2^31 hits is ~300 GB,
  # so the limit never fired before the system killed R; expected a default
  # that fits in this machine's memory
  withr::local_options(ducksassy.max_hits = NULL)
  ram <- physical_memory_bytes()
  skip_if(is.na(ram), "RAM size unknown here")
  expect_lte(max_hits_option(), ram / 256)
})

test_that("#7.4: the limit error did not say how to keep every hit", {
  # got "The search found more than 2 hits (the `max_hits` limit)"; expected
  # the way to stream the hits to a table instead
  withr::local_options(ducksassy.max_hits = 2)
  cnd <- tryCatch(sassy_search(rep("ACGTTTACGT", 2), "ACGT", rc = FALSE), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_limit_error")
  expect_match(conditionMessage(cnd), "sassy_search_table(con, table, patterns, output = \"hits\")", fixed = TRUE)
})

# ---------------------------------------------------------------------------
# Issue 17: what a new user hit (the other points of the issue have their
# tests in test-fastx.R, "Empty inputs" and "FASTA with a leading blank
# line", and test-limits.R, "hit-limit advice")

test_that("#17: as_granges() accepts the hit table of sassy_search_table() (no name/record column)", {
  # got "`hits` must have a `name` or a `record` column"; expected the
  # caller to name the id column(s) that name the sequences
  skip_if_not_installed("GenomicRanges")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  seqs <- c(chr1 = "AAAATTGAAAGGATCGA", chr2 = "CCCATCACCC")
  DBI::dbWriteTable(con, "genome", data.frame(
    sample = c("s1", "s1"), chrom = names(seqs), sequence = unname(seqs)
  ))
  hits <- sassy_search_table(con, "genome", "ATCG", k = 1)
  want <- sassy_search(seqs, "ATCG", k = 1)
  expect_false(any(c("name", "record") %in% names(hits)))
  e <- expect_error(as_granges(hits), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "seqnames = \"sample\"", fixed = TRUE)
  gr <- as_granges(hits, seqnames = "chrom", seqinfo = nchar(seqs))
  expect_identical(as.character(GenomicRanges::seqnames(gr)), want$name)
  expect_identical(IRanges::start(gr), want$start)
  expect_identical(as.character(GenomicRanges::strand(gr)), want$strand)
  expect_identical(as_hits(gr), hits)
  # several columns are pasted and kept as metadata
  gr2 <- as_granges(hits, seqnames = c("sample", "chrom"))
  expect_identical(as.character(GenomicRanges::seqnames(gr2)), paste0("s1:", want$name))
  expect_identical(GenomicRanges::mcols(gr2)$chrom, want$name)
  # an integer id comes back as an integer
  DBI::dbWriteTable(con, "byid", data.frame(id = 7:8, sequence = unname(seqs)))
  h3 <- sassy_search_table(con, "byid", "ATCG", k = 1)
  expect_identical(as_hits(as_granges(h3, seqnames = "id")), h3)
  e <- expect_error(as_granges(hits, seqnames = "chr"), class = "ducksassy_input_error")
  expect_identical(e$arg, "seqnames")
  expect_match(conditionMessage(e), "chrom", fixed = TRUE)
})

test_that("#17: unknown arguments are classed errors naming the argument and the one meant", {
  # got R's plain "unused argument (max.mismatch = 1)"; expected a classed
  # error that names it and suggests `k`
  e <- expect_error(sassy_search("ACGTACGT", "ACGT", max.mismatch = 1),
    class = "ducksassy_unknown_argument_error"
  )
  expect_s3_class(e, "ducksassy_input_error")
  expect_identical(e$arg, "max.mismatch")
  expect_identical(e$value, "k")
  expect_match(conditionMessage(e), "`max.mismatch`", fixed = TRUE)
  expect_match(conditionMessage(e), "Did you mean `k = `?", fixed = TRUE)
  # typos: the nearest argument
  cases <- list(
    list(function() sassy_count("ACGTACGT", "ACGT", alphabt = "dna"), "alphabet"),
    list(function() sassy_contains("ACGTACGT", "ACGT", ignorecase = TRUE), "ignore_case"),
    list(function() sassy_search("ACGTACGT", "ACGT", all.endpoints = TRUE), "all_endpoints"),
    list(function() sassy_search_fastx(system.file("extdata", "lambda_virus.fa", package = "ducksassy"), "ACGT", regon = TRUE), "region"),
    list(function() sassy_read_fastx(system.file("extdata", "lambda_virus.fa", package = "ducksassy"), nmax = 2), "n_max"),
    list(function() sassy_crispr("ACGTACGTACGTACGTAGG", "ACGTACGTNGG", k = 1, pam_lenght = 3), "pam_length"),
    list(function() sassy_crispr_fastx(system.file("extdata", "lambda_virus.fa", package = "ducksassy"), "ACGTACGTNGG", k = 1, nthreads = 2), "threads")
  )
  for (case in cases) {
    e <- expect_error(case[[1]](), class = "ducksassy_unknown_argument_error")
    expect_identical(e$value, case[[2]])
  }
  # nothing like it: no suggestion, the arguments listed
  e <- expect_error(sassy_search("ACGTACGT", "ACGT", zzzzz = 1), class = "ducksassy_unknown_argument_error")
  expect_null(e$value)
  expect_match(conditionMessage(e), "`alphabet`", fixed = TRUE)
  # extra arguments by position (after the last one, `ends`)
  e <- expect_error(sassy_search("ACGTACGT", "ACGT", 0, "iupac", TRUE, FALSE, NULL, NULL, FALSE, TRUE, "pattern", FALSE, 1L, TRUE, NULL, "extra"),
    class = "ducksassy_unknown_argument_error"
  )
  expect_identical(e$arg, "...")
  # the table's `...` says the same
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "t", data.frame(sequence = "ACGTACGT"))
  e <- expect_error(sassy_search_table(con, "t", "ACGT", max.mismatch = 1),
    class = "ducksassy_unknown_argument_error"
  )
  expect_identical(e$value, "k")
  # (a prefix, `chunk_row = `, is R's partial match of `chunk_rows`, as in
  # every function)
  e <- expect_error(sassy_search_table(con, "t", "ACGT", chunk_rws = 1),
    class = "ducksassy_unknown_argument_error"
  )
  expect_identical(e$value, "chunk_rows")
})

test_that("#17: Biostrings objects that are not accepted get an error naming the class and what to pass", {
  # got "`texts` must be a character vector ... an object of type S4";
  # expected the class and the conversion
  skip_if_not_installed("Biostrings")
  dna <- Biostrings::DNAString("ACGTACGTTTACGT")
  cases <- list(
    list(Biostrings::Views(dna, start = c(1, 5), end = c(8, 12)), "Views", "as(texts, \"XStringSet\")"),
    list(Biostrings::DNAStringSetList(list(a = c("ACGTACGT"), b = c("TTACGT", "ACGA"))), "DNAStringSetList", "unlist(texts)")
  )
  masked <- tryCatch({
    m <- Biostrings::Mask(14, start = 2, end = 3)
    x <- dna
    Biostrings::masks(x) <- m
    x
  }, error = function(e) NULL)
  if (!is.null(masked)) {
    cases[[3]] <- list(masked, "MaskedDNAString", "unmasked(texts)")
  }
  for (case in cases) {
    e <- expect_error(sassy_search(case[[1]], "ACGT"), class = "ducksassy_input_error")
    msg <- conditionMessage(e)
    expect_match(msg, case[[2]], fixed = TRUE)
    expect_match(msg, case[[3]], fixed = TRUE)
    expect_no_match(msg, "type S4", fixed = TRUE)
  }
  # patterns and guides name their own argument
  e <- expect_error(sassy_count("ACGTACGT", cases[[2]][[1]]), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "unlist(patterns)", fixed = TRUE)
  e <- expect_error(sassy_crispr("ACGTACGTACGTAGG", cases[[2]][[1]], k = 1), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "unlist(guides)", fixed = TRUE)
  # what the hint says to pass works
  v <- cases[[1]][[1]]
  expect_identical(
    sassy_count(as(v, "XStringSet"), "ACGT", rc = FALSE),
    sassy_count(c("ACGTACGT", "ACGTTTAC"), "ACGT", rc = FALSE)
  )
})

test_that("#17: a constraint failure while appending to `output` surfaces the real error, not 'transaction is aborted'", {
  # duckdb's dbAppendTable() unregisters its view in an on.exit() that fails
  # inside the aborted transaction; that second error replaced the first
  # (duplicate key). The mechanism, without a database:
  masking <- function() {
    on.exit(stop("TransactionContext Error: Current transaction is aborted (please ROLLBACK)"))
    stop("Constraint Error: Duplicate key \"id: 1\" violates primary key constraint.")
  }
  e <- expect_error(db_call(masking(), "Can't append.", "output", NULL), class = "ducksassy_db_error")
  expect_match(conditionMessage(e$parent), "Duplicate key", fixed = TRUE)
  expect_match(conditionMessage(e), "Duplicate key", fixed = TRUE)
  # an error that is only "aborted" stays as it is
  e <- expect_error(db_call(stop("Current transaction is aborted"), "x", "output", NULL), class = "ducksassy_db_error")
  expect_match(conditionMessage(e$parent), "aborted", fixed = TRUE)

  # on real databases: a primary key on the output table, hits appended twice
  check_db <- function(con, message) {
    DBI::dbWriteTable(con, "reads", data.frame(id = 1:3, sequence = c("ACGTACGT", "TTACGTT", "GGGG")))
    DBI::dbExecute(con, paste(
      "CREATE TABLE hits (id INTEGER, pattern INTEGER, start INTEGER, \"end\" INTEGER,",
      "pattern_start INTEGER, pattern_end INTEGER, cost INTEGER, strand VARCHAR, cigar VARCHAR,",
      "PRIMARY KEY (id, pattern, start, strand))"
    ))
    n <- sassy_search_table(con, "reads", "ACGT", output = "hits")
    expect_identical(n, 6)
    e <- expect_error(sassy_search_table(con, "reads", "ACGT", output = "hits"), class = "ducksassy_db_error")
    expect_match(conditionMessage(e), message, ignore.case = TRUE)
    expect_no_match(conditionMessage(e), "transaction is aborted", ignore.case = TRUE)
    # rolled back: the first run's rows only
    expect_equal(DBI::dbGetQuery(con, "SELECT count(*) AS n FROM hits")$n, 6)
  }
  if (requireNamespace("RSQLite", quietly = TRUE)) {
    con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
    check_db(con, "UNIQUE constraint")
    DBI::dbDisconnect(con)
  }
  skip_if_not_installed("duckdb")
  con <- DBI::dbConnect(duckdb::duckdb())
  on.exit(DBI::dbDisconnect(con, shutdown = TRUE), add = TRUE)
  check_db(con, "duplicate key|constraint")
})

test_that("#17: names travel: pattern names in hits, counts in every shape, paths name the files", {
  # got no pattern name in the hits, an unnamed vector for one named pattern
  # and unnamed matrix columns where files and tables say pattern_1
  texts <- c(r1 = "ACGTACGTTT", r2 = "GGGGAAAA")
  pats <- c(fwd = "ACGT", polyA = "AAAA")
  h <- sassy_search(texts, pats, rc = FALSE)
  expect_identical(names(h)[1:4], c("record", "name", "pattern", "pattern_name"))
  expect_identical(h$pattern_name, names(pats)[h$pattern])
  # (column subsetting drops the seqlengths attribute; compare without it)
  unnamed <- sassy_search(texts, unname(pats), rc = FALSE)
  attr(unnamed, "seqlengths") <- NULL
  expect_identical(h[names(h) != "pattern_name"], unnamed)
  # partly named: NA where a pattern has no name
  h2 <- sassy_search(texts, c(fwd = "ACGT", "AAAA"), rc = FALSE)
  expect_identical(h2$pattern_name, c("fwd", NA)[h2$pattern])
  # count and contains: one named pattern keeps its name
  expect_identical(
    sassy_count(texts, c(fwd = "ACGT"), rc = FALSE),
    matrix(c(2L, 0L), 2, 1, dimnames = list(c("r1", "r2"), "fwd"))
  )
  expect_identical(sassy_count(texts, "ACGT", rc = FALSE), c(r1 = 2L, r2 = 0L))
  # the column rule of files and tables: pattern_<i> where unnamed
  expect_identical(colnames(sassy_contains(texts, c("ACGT", x = "AAAA"))), c("pattern_1", "x"))
  fa <- withr::local_tempfile(fileext = ".fa")
  writeLines(c(">r1", texts[[1]], ">r2", texts[[2]]), fa)
  fc <- sassy_count_fastx(fa, c("ACGT", x = "AAAA"))
  expect_identical(names(fc)[-(1:2)], colnames(sassy_count(texts, c("ACGT", x = "AAAA"))))
  expect_identical(unname(as.matrix(fc[-(1:2)])), unname(sassy_count(texts, c("ACGT", x = "AAAA"))))
  # files: pattern names in the hits, names of paths label the files
  fh <- sassy_search_fastx(c(a = fa, b = fa), pats, rc = FALSE)
  expect_identical(unique(fh$file), c("a", "b"))
  expect_identical(fh$pattern_name[fh$file == "a"], h$pattern_name)
  one <- sassy_count_fastx(c(sample1 = fa), pats, rc = FALSE)
  expect_identical(names(one)[1:3], c("file", "record", "name"))
  expect_identical(one$file, c("sample1", "sample1"))
  # guides
  g <- sassy_crispr(c(chr = "TTACGTACGTAGGTT"), c(g1 = "ACGTACGTNGG"), k = 0, rc = FALSE)
  expect_identical(g$guide_name, "g1")
  expect_identical(sassy_crispr_fastx(c(s = fa), c(g1 = "ACGTNGG"), k = 0)$file, character())
  # tables
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "t", data.frame(name = names(texts), sequence = unname(texts)))
  th <- sassy_search_table(con, "t", pats, rc = FALSE)
  expect_identical(th$pattern_name, h$pattern_name)
  tc <- sassy_count_table(con, "t", c("ACGT", x = "AAAA"))
  expect_identical(names(tc)[-1], names(fc)[-(1:2)])
  tg <- sassy_crispr_table(con, "t", c(g1 = "ACGTNGG"), k = 0, rc = FALSE)
  expect_identical(tg$guide_name, rep("g1", nrow(tg)))
})

test_that("#17: one argument order: sassy_crispr(texts, guides), and a warning when arguments look swapped", {
  # sassy_crispr(guides, texts) was the reverse of sassy_search(texts,
  # patterns); swapped arguments silently returned nothing
  genome <- c(chr = "TTTTGACGCATAAAGATGAGACGCTGGAGTACAAACC")
  guide <- c(g1 = "GACGCATAAAGATGAGACGCNGG")
  h <- sassy_crispr(genome, guide, k = 0)
  expect_identical(h$start, 5L)
  expect_identical(h$end, 27L)
  expect_identical(names(formals(sassy_crispr))[1:2], c("texts", "guides"))
  expect_identical(names(formals(sassy_crispr_fastx))[1:2], c("paths", "guides"))
  expect_identical(names(formals(sassy_crispr_table))[1:3], c("con", "table", "guides"))
  w <- expect_warning(h2 <- sassy_crispr(guide, genome, k = 0),
    class = "ducksassy_swapped_arguments_warning"
  )
  expect_s3_class(w, "ducksassy_warning")
  expect_identical(nrow(h2), 0L)
  expect_match(conditionMessage(w), "sassy_crispr(texts, guides", fixed = TRUE)
  for (f in list(sassy_search, sassy_count, sassy_contains)) {
    expect_warning(f("ACGT", "GACGCATAAAG"), class = "ducksassy_swapped_arguments_warning")
  }
  # not when any text is as long as a pattern, nor for empty or NA texts only
  expect_no_warning(sassy_search(c("ACG", "ACGTA"), c("ACGTA", "ACGTAC")))
  expect_no_warning(sassy_search(c("", NA), "ACGT"))
  expect_no_warning(sassy_search(character(), "ACGT"))
  # with overhang short texts are a use, not a sign of swapped arguments
  expect_no_warning(sassy_search("ACG", "ACGTA", k = 1, overhang = 0.5))
  # files and tables: a swapped call fails, and the error says why
  fa <- withr::local_tempfile(fileext = ".fa")
  writeLines(c(">chr", genome), fa)
  e <- expect_error(sassy_search_fastx("ACGT", fa), class = "ducksassy_file_error")
  expect_match(conditionMessage(e), "swapped", fixed = TRUE)
  e <- expect_error(sassy_crispr_fastx(guide, fa, k = 0), class = "ducksassy_file_error")
  expect_match(conditionMessage(e), "swapped", fixed = TRUE)
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  # (a table name of IUPAC letters, so that it passes as guides and patterns)
  DBI::dbWriteTable(con, "gattaca", data.frame(sequence = unname(genome)))
  e <- expect_error(sassy_crispr_table(con, guide, "gattaca", k = 0), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "swapped", fixed = TRUE)
  e <- expect_error(sassy_search_table(con, "ACGT", "gattaca"), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "swapped", fixed = TRUE)
})
test_that("#17: overhang at the right end of a text was capped, so hits were missed", {
  # sassy lets the pattern hang over the right end by at most
  # ceiling((k + alpha) / alpha) letters (1 here) and over the left end by
  # any number: the left text had the hit "AC|GT" (cost floor(0.1 * 2) = 0),
  # its mirror image "CCCCCCAC|GT" on the right was missing
  hits <- sassy_search(c(left = "GTCCCCCC", right = "CCCCCCAC"), "ACGT",
    k = 0, overhang = 0.1, rc = FALSE
  )
  part <- hits[hits$pattern_start <= hits$pattern_end, ]
  expect_identical(part$name, c("left", "right"))
  expect_identical(part$start, c(1L, 7L))
  expect_identical(part$end, c(2L, 8L))
  expect_identical(part$pattern_start, c(3L, 1L))
  expect_identical(part$pattern_end, c(4L, 2L))
  expect_identical(part$cost, c(0L, 0L))
  expect_identical(part$cigar, c("2=", "2="))
  # alpha = 0, k = 0: sassy allowed no right overhang at all
  hits <- sassy_search("TTTTAC", "ACGT", k = 0, overhang = 0, rc = FALSE, all_endpoints = TRUE)
  right <- hits[hits$pattern_end < 4L, ]
  expect_identical(right$pattern_end, c(2L, 0L))
  expect_identical(right$end, c(6L, 6L))
  # whatever may hang over the left end may hang over the right end: "GT"
  # over the end costs floor(2 * alpha) = 0 for every alpha < 0.5 (sassy's
  # cap is 1 letter for alpha > 0 at k = 0)
  for (alpha in c(0, 0.125, 0.25, 0.375)) {
    l <- sassy_search("GTCCCCCC", "ACGT", k = 0, overhang = alpha, rc = FALSE)
    r <- sassy_search("CCCCCCAC", "ACGT", k = 0, overhang = alpha, rc = FALSE)
    expect_true(any(l$pattern_start == 3L & l$end == 2L), info = paste("alpha", alpha))
    expect_true(any(r$pattern_end == 2L & r$start == 7L), info = paste("alpha", alpha))
  }
})

test_that("#17: indels = FALSE gives exactly the substitution-only (Hamming) hits", {
  # Biostrings' with.indels = FALSE: every placement of the whole pattern
  # with at most k mismatches; the edit search finds "ACGT" in "ACGGT" with
  # one deletion, the Hamming search does not
  expect_identical(sassy_count("ACGGT", "ACGT", k = 1, rc = FALSE), 1L)
  expect_identical(sassy_count("ACGGT", "ACGT", k = 1, rc = FALSE, indels = FALSE), 1L)
  h <- sassy_search("ACGGT", "ACGT", k = 1, rc = FALSE, indels = FALSE)
  # placements 1..4 (ACGG, 1 mismatch) and 2..5 (CGGT, 3): only the first
  expect_identical(h$start, 1L)
  expect_identical(h$end, 4L)
  expect_identical(h$cost, 1L)
  expect_identical(h$cigar, "3=1X")
  # every placement is a hit, not only local minima
  h <- sassy_search("AAAAAA", "AAA", k = 1, rc = FALSE, indels = FALSE)
  expect_identical(h$start, 1:4)
  expect_identical(h$cost, rep(0L, 4))
  expect_identical(
    sassy_search("AAAAAA", "AAA", k = 1, rc = FALSE, indels = FALSE, all_endpoints = TRUE), h
  )
  # overhang has no meaning without indels
  expect_error(
    sassy_search("ACGT", "ACG", overhang = 0.5, indels = FALSE),
    class = "ducksassy_input_error"
  )
  expect_error(sassy_search("ACGT", "ACG", indels = NA), class = "ducksassy_input_error")
})
