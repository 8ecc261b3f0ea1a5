# FASTA/FASTQ files: sassy_search_fastx(), sassy_filter_fastx() and
# sassy_read_fastx() on the real fixtures in inst/extdata (the first 200
# reads of bowtie2-examples' lambda reads_1.fq.gz, the first 30 of its
# longreads.fq.gz, and 6.3 kb of the lambda genome as three records).

fixture <- function(name) {
  p <- system.file("extdata", name, package = "ducksassy")
  if (!nzchar(p)) {
    p <- test_path("..", "..", "inst", "extdata", name)
  }
  p
}
reads_fq <- fixture("lambda_reads_1.fq.gz")
long_fq <- fixture("lambda_longreads.fq.gz")
lambda_fa <- fixture("lambda_virus.fa")

# 20-mers of the fixtures (so there are hits), a batched group of four
# 12-mers, and one pattern with no exact hit.
fastx_patterns <- c(
  r1 = "GACGCTCAGTAATGTGACGA",
  g1 = "GGGCGGCGACCTCGCGGGTT",
  "CCGGCGAACTGACC",
  b1 = "GATGCGGGCTTG", b2 = "CGCTATGCCTGT", b3 = "TGCCGGTGAAAG", b4 = "GGTTTATAAGGG"
)

# The plain text of a (possibly gzip-compressed) file as lines.
read_lines <- function(path) {
  con <- gzfile(path, "rb")
  on.exit(close(con))
  readLines(con, warn = FALSE)
}

# Records of a well-formed file as character strings of their lines, each
# line ending in "\n" (FASTQ: 4 lines each; FASTA: header to next header).
record_texts <- function(path) {
  lines <- read_lines(path)
  if (startsWith(lines[[1]], "@")) {
    group <- rep(seq_len(length(lines) / 4), each = 4)
  } else {
    group <- cumsum(startsWith(lines, ">"))
  }
  unname(vapply(split(lines, group), function(l) paste0(l, "\n", collapse = ""), ""))
}

# What sassy_search_fastx() should return for one file, from sassy_search()
# on the records' sequences.
expected_from_texts <- function(texts, names, ...) {
  hits <- sassy_search(texts, ...)
  cols <- list(record = hits$record, name = names[hits$record])
  for (col in setdiff(names(hits), c("record", "name"))) cols[[col]] <- hits[[col]]
  out <- structure(cols, class = "data.frame", row.names = .set_row_names(nrow(hits)))
  # the lengths of the records with hits, in record order, which file hit
  # tables carry for as_granges()'s seqinfo
  rec <- unique(hits$record)
  if (length(rec) > 0L) {
    attr(out, "seqlengths") <- stats::setNames(as.double(nchar(texts[rec])), names[rec])
  }
  out
}

make_bad <- function(bytes, ext = ".fq") {
  p <- withr::local_tempfile(fileext = ext, .local_envir = parent.frame())
  if (is.character(bytes)) bytes <- charToRaw(bytes)
  writeBin(bytes, p)
  p
}

test_that("the fixtures are the real lambda data", {
  r <- sassy_read_fastx(reads_fq)
  expect_identical(names(r), c("name", "description", "sequence", "quality"))
  expect_identical(nrow(r), 200L)
  expect_identical(r$name[1:3], c("r1", "r2", "r3"))
  expect_true(all(is.na(r$description)))
  expect_identical(nchar(r$sequence), nchar(r$quality))
  expect_identical(nrow(sassy_read_fastx(long_fq)), 30L)
  g <- sassy_read_fastx(lambda_fa)
  expect_identical(names(g), c("name", "description", "sequence"))
  expect_identical(g$name, c("NC_001416.1:1-2100", "NC_001416.1:2101-4200", "NC_001416.1:4201-6300"))
  expect_match(g$description, "^Enterobacteria phage lambda, bases")
  expect_identical(nchar(g$sequence), rep(2100L, 3))
  expect_identical(substr(g$sequence[[1]], 1, 20), "GGGCGGCGACCTCGCGGGTT")
})

test_that("sassy_read_fastx() agrees with Biostrings", {
  skip_if_not_installed("Biostrings")
  for (p in c(reads_fq, long_fq)) {
    # (Biostrings warns that it drops metadata columns it made itself)
    b <- suppressWarnings(Biostrings::readQualityScaledDNAStringSet(p))
    r <- sassy_read_fastx(p)
    expect_identical(r$sequence, unname(as.character(b)))
    expect_identical(r$name, names(b))
    expect_identical(r$quality, unname(as.character(Biostrings::quality(b))))
  }
  b <- Biostrings::readDNAStringSet(lambda_fa)
  r <- sassy_read_fastx(lambda_fa)
  expect_identical(r$sequence, unname(as.character(b)))
  expect_identical(paste(r$name, r$description), names(b))
})

test_that("n_max limits the records read", {
  expect_identical(sassy_read_fastx(reads_fq, n_max = 3)$name, c("r1", "r2", "r3"))
  expect_identical(sassy_read_fastx(reads_fq, n_max = 3L), sassy_read_fastx(reads_fq)[1:3, ])
  zero <- sassy_read_fastx(reads_fq, n_max = 0)
  expect_identical(nrow(zero), 0L)
  expect_identical(names(zero), c("name", "description", "sequence", "quality"))
  expect_identical(names(sassy_read_fastx(lambda_fa, n_max = 0)), c("name", "description", "sequence"))
  expect_identical(nrow(sassy_read_fastx(reads_fq, n_max = 1e6)), 200L)
  expect_error(sassy_read_fastx(reads_fq, n_max = -1), class = "ducksassy_input_error")
  expect_error(sassy_read_fastx(reads_fq, n_max = 1.5), class = "ducksassy_input_error")
  expect_error(sassy_read_fastx(reads_fq, n_max = NA), class = "ducksassy_input_error")
  expect_error(sassy_read_fastx(reads_fq, n_max = "all"), class = "ducksassy_input_error")
})

test_that("file search equals sassy_read_fastx() + sassy_search()", {
  for (p in c(reads_fq, long_fq, lambda_fa)) {
    r <- sassy_read_fastx(p)
    for (k in c(0L, 2L)) {
      got <- sassy_search_fastx(p, fastx_patterns, k = k)
      want <- expected_from_texts(r$sequence, r$name, fastx_patterns, k = k)
      expect_identical(got, want)
      # counts and contains
      cnt <- sassy_count_fastx(p, fastx_patterns, k = k)
      want_cnt <- sassy_count(r$sequence, fastx_patterns, k = k)
      expect_identical(names(cnt), c("record", "name", "r1", "g1", "pattern_3", "b1", "b2", "b3", "b4"))
      expect_identical(cnt$record, seq_len(nrow(r)))
      expect_identical(cnt$name, r$name)
      expect_identical(unname(as.matrix(cnt[, -(1:2)])), unname(want_cnt))
      has <- sassy_contains_fastx(p, fastx_patterns, k = k)
      expect_identical(unname(as.matrix(has[, -(1:2)])), unname(sassy_contains(r$sequence, fastx_patterns, k = k)))
    }
  }
  # the patterns do hit
  expect_gt(nrow(sassy_search_fastx(reads_fq, fastx_patterns, k = 2)), 20)
})

test_that("file search equals Biostrings::readDNAStringSet() + sassy_search()", {
  skip_if_not_installed("Biostrings")
  cases <- list(
    list(reads_fq, "fastq"), list(long_fq, "fastq"), list(lambda_fa, "fasta")
  )
  for (case in cases) {
    b <- Biostrings::readDNAStringSet(case[[1]], format = case[[2]])
    texts <- as.character(b)
    nm <- sub("[ \t].*", "", names(b))
    for (args in list(list(k = 1L), list(k = 2L, rc = FALSE, all_endpoints = TRUE), list(k = 2L, max_n_frac = 0.1))) {
      got <- do.call(sassy_search_fastx, c(list(case[[1]], fastx_patterns), args))
      want <- do.call(expected_from_texts, c(list(unname(texts), nm, fastx_patterns), args))
      expect_identical(got, want)
    }
  }
})

test_that("the real bowtie2-examples files give the same answers as Biostrings", {
  skip_on_cran()
  skip_if_not_installed("Biostrings")
  dir <- "/usr/share/doc/bowtie2/examples/reads"
  skip_if_not(file.exists(file.path(dir, "reads_1.fq.gz")), "bowtie2-examples is not installed")
  for (f in c("reads_1.fq.gz", "longreads.fq.gz")) {
    p <- file.path(dir, f)
    b <- Biostrings::readDNAStringSet(p, format = "fastq")
    cnt <- sassy_count_fastx(p, fastx_patterns, k = 1)
    expect_identical(cnt$name, names(b))
    expect_identical(unname(as.matrix(cnt[, -(1:2)])), unname(sassy_count(as.character(b), fastx_patterns, k = 1)))
  }
})

test_that("several files add a file column and restart record numbers", {
  got <- sassy_search_fastx(c(reads_fq, lambda_fa, reads_fq), fastx_patterns, k = 1)
  expect_identical(names(got)[1:3], c("file", "record", "name"))
  one <- sassy_search_fastx(reads_fq, fastx_patterns, k = 1)
  two <- sassy_search_fastx(lambda_fa, fastx_patterns, k = 1)
  expect_identical(got$file, rep(c(reads_fq, lambda_fa, reads_fq), c(nrow(one), nrow(two), nrow(one))))
  # (the record lengths, for seqinfo, are those of all files together)
  strip <- function(x) {
    x$file <- NULL
    rownames(x) <- NULL
    attr(x, "seqlengths") <- NULL
    x
  }
  expect_identical(strip(got[got$file == lambda_fa, ]), strip(two))
  n1 <- nrow(one)
  expect_identical(strip(got[seq_len(n1), ]), strip(one))
  expect_identical(strip(got[nrow(got) - rev(seq_len(n1)) + 1L, ]), strip(one))
  expect_identical(attr(got, "seqlengths"), c(attr(one, "seqlengths"), attr(two, "seqlengths")))
  cnt <- sassy_count_fastx(c(reads_fq, lambda_fa), "ACGTT")
  expect_identical(names(cnt), c("file", "record", "name", "pattern_1"))
  expect_identical(cnt$record, c(1:200, 1:3))
  expect_identical(cnt$file, rep(c(reads_fq, lambda_fa), c(200, 3)))
})

test_that("pattern columns are named and made unique", {
  cnt <- sassy_contains_fastx(lambda_fa, c(name = "ACGT", "ACGG", record = "TTTT", name = "GGGG"))
  expect_identical(names(cnt), c("record", "name", "name_1", "pattern_2", "record_1", "name_2"))
  expect_type(cnt$name_1, "logical")
  expect_type(sassy_count_fastx(lambda_fa, "ACGT")$pattern_1, "integer")
})

test_that("results do not depend on the batch size or the thread count", {
  want <- sassy_search_fastx(c(reads_fq, long_fq, lambda_fa), fastx_patterns, k = 2, threads = 1)
  want_cnt <- sassy_count_fastx(c(reads_fq, long_fq, lambda_fa), fastx_patterns, k = 2, threads = 1)
  for (size in list(c(1, 65536), c(1000, 3), c(8 * 2^20, 1))) {
    withr::local_options(ducksassy.fastx_batch_bytes = size[[1]], ducksassy.fastx_batch_records = size[[2]])
    for (threads in 1:3) {
      expect_identical(sassy_search_fastx(c(reads_fq, long_fq, lambda_fa), fastx_patterns, k = 2, threads = threads), want)
      expect_identical(sassy_count_fastx(c(reads_fq, long_fq, lambda_fa), fastx_patterns, k = 2, threads = threads), want_cnt)
    }
    expect_identical(sassy_read_fastx(reads_fq), {
      withr::local_options(ducksassy.fastx_batch_bytes = 8 * 2^20)
      sassy_read_fastx(reads_fq)
    })
  }
  withr::local_options(ducksassy.fastx_batch_bytes = 0)
  expect_error(sassy_read_fastx(reads_fq), class = "ducksassy_input_error")
})

# Copies of a file, plain and compressed with every tool there is.
compressed_copies <- function(src, dir) {
  lines <- read_lines(src)
  plain <- file.path(dir, "x.txt")
  writeLines(lines, plain)
  out <- c(plain = plain)
  # R's own connections
  for (fmt in list(c("gz", "gzfile"), c("bz2", "bzfile"), c("xz", "xzfile"))) {
    p <- file.path(dir, paste0("r.", fmt[[1]]))
    con <- do.call(fmt[[2]], list(p, "wb"))
    writeLines(lines, con)
    close(con)
    out[[paste0("R-", fmt[[1]])]] <- p
  }
  # command-line tools, where installed
  for (tool in c("gzip", "bzip2", "xz", "zstd")) {
    if (nzchar(Sys.which(tool))) {
      p <- file.path(dir, paste0("cli-", tool))
      status <- system2(tool, c("-c", shQuote(plain)), stdout = p)
      if (identical(status, 0L)) out[[tool]] <- p
    }
  }
  out
}

test_that("gzip, bzip2, xz and zstd copies give identical results", {
  dir <- withr::local_tempdir()
  for (src in c(reads_fq, lambda_fa)) {
    copies <- compressed_copies(src, dir)
    expect_true(all(c("R-gz", "R-bz2", "R-xz") %in% names(copies)))
    if (nzchar(Sys.which("zstd"))) expect_true("zstd" %in% names(copies))
    want <- sassy_search_fastx(copies[["plain"]], fastx_patterns, k = 2)
    want_cnt <- sassy_count_fastx(copies[["plain"]], fastx_patterns, k = 1)
    want_read <- sassy_read_fastx(copies[["plain"]])
    expect_identical(want_read, sassy_read_fastx(src))
    for (p in copies[-1]) {
      expect_identical(sassy_search_fastx(p, fastx_patterns, k = 2), want, label = p)
      expect_identical(sassy_count_fastx(p, fastx_patterns, k = 1), want_cnt, label = p)
      expect_identical(sassy_read_fastx(p), want_read, label = p)
    }
  }
})

test_that("filter writes the matching records byte for byte, invert the rest", {
  dir <- withr::local_tempdir()
  for (src in c(reads_fq, long_fq, lambda_fa)) {
    recs <- record_texts(src)
    texts <- sassy_read_fastx(src)$sequence
    pats <- fastx_patterns[c("r1", "g1", "b1")]
    hit <- sassy_contains(texts, pats, k = 2)
    hit <- apply(hit, 1, any)
    expect_true(any(hit))
    for (out_name in c("out.fq", "out.fq.gz")) {
      out <- file.path(dir, out_name)
      inv <- file.path(dir, paste0("inv-", out_name))
      n <- sassy_filter_fastx(src, out, pats, k = 2)
      expect_identical(n, c(read = length(recs) + 0, written = sum(hit) + 0))
      n_inv <- sassy_filter_fastx(src, inv, pats, k = 2, invert = TRUE)
      expect_identical(n_inv, c(read = length(recs) + 0, written = sum(!hit) + 0))
      expect_identical(read_lines(out), unlist(strsplit(recs[hit], "\n", fixed = TRUE)))
      expect_identical(read_lines(inv), unlist(strsplit(recs[!hit], "\n", fixed = TRUE)))
      # byte for byte: the raw output equals the selected record texts
      raw_out <- if (endsWith(out, ".gz")) {
        con <- gzfile(out, "rb")
        b <- readBin(con, "raw", 1e7)
        close(con)
        b
      } else {
        readBin(out, "raw", file.size(out))
      }
      expect_identical(raw_out, charToRaw(paste(recs[hit], collapse = "")))
      # gzip output is gzip, plain is plain
      magic <- readBin(out, "raw", 2)
      expect_identical(identical(magic, as.raw(c(0x1f, 0x8b))), endsWith(out, ".gz"))
      # the output reads back to the same records
      expect_identical(sassy_read_fastx(out), {
        x <- sassy_read_fastx(src)[hit, ]
        rownames(x) <- NULL
        x
      })
    }
  }
  expect_identical(sort(list.files(dir)), sort(c("out.fq", "out.fq.gz", "inv-out.fq", "inv-out.fq.gz")))
})

test_that("filter keeps descriptions, the + line and Windows line ends", {
  dir <- withr::local_tempdir()
  input <- paste0(
    "@a one two\r\nACGTACGT\r\n+a one two\r\nIIIIIIII\r\n",
    "@b\r\nTTTTTTTT\r\n+\r\n#!#!#!#!\r\n"
  )
  src <- file.path(dir, "in.fq")
  writeBin(charToRaw(input), src)
  out <- file.path(dir, "out.fq")
  expect_identical(sassy_filter_fastx(src, out, "ACGTACGT"), c(read = 2, written = 1))
  expect_identical(rawToChar(readBin(out, "raw", 1000)), "@a one two\r\nACGTACGT\r\n+a one two\r\nIIIIIIII\r\n")
  sassy_filter_fastx(src, out, "ACGTACGT", invert = TRUE)
  expect_identical(rawToChar(readBin(out, "raw", 1000)), "@b\r\nTTTTTTTT\r\n+\r\n#!#!#!#!\r\n")
  # multi-line FASTA keeps its lines; a missing final line break is added
  src <- file.path(dir, "in.fa")
  writeBin(charToRaw(">x desc\nACGT\nACGT\nAC\n>y\nGGGG\nGG"), src)
  sassy_filter_fastx(src, out, "N")
  expect_identical(rawToChar(readBin(out, "raw", 1000)), ">x desc\nACGT\nACGT\nAC\n>y\nGGGG\nGG\n")
})

test_that("filter arguments are checked", {
  dir <- withr::local_tempdir()
  expect_error(sassy_filter_fastx(reads_fq, file.path(dir, "x.fq.bz2"), "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_filter_fastx(reads_fq, file.path(dir, "x.fq.zst"), "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_filter_fastx(reads_fq, file.path(dir, "no", "x.fq"), "ACGT"), class = "ducksassy_file_error")
  expect_error(sassy_filter_fastx(reads_fq, dir, "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_filter_fastx(reads_fq, NA_character_, "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_filter_fastx(reads_fq, c("a", "b"), "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_filter_fastx(reads_fq, file.path(dir, "x.fq"), "ACGT", invert = NA), class = "ducksassy_input_error")
  expect_error(sassy_filter_fastx(c(reads_fq, reads_fq), file.path(dir, "x.fq"), "ACGT"), class = "ducksassy_input_error")
  copy <- file.path(dir, "copy.fq.gz")
  file.copy(reads_fq, copy)
  expect_error(sassy_filter_fastx(copy, copy, "ACGT"), class = "ducksassy_input_error")
  expect_identical(readBin(copy, "raw", 1e7), readBin(reads_fq, "raw", 1e7))
  expect_error(sassy_filter_fastx(reads_fq, file.path(dir, "x.fq"), "ACGT", k = 4), class = "ducksassy_input_error")
})

test_that("a failed filter leaves no output and keeps an existing one", {
  dir <- withr::local_tempdir()
  bad <- file.path(dir, "bad.fq")
  writeLines(c(read_lines(reads_fq), "@bad", "ACGT", "+", "III"), bad)
  out <- file.path(dir, "out.fq")
  e <- expect_error(sassy_filter_fastx(bad, out, "ACGT"), class = "ducksassy_file_error")
  expect_identical(e$record, 201L)
  expect_false(file.exists(out))
  writeLines("keep me", out)
  expect_error(sassy_filter_fastx(bad, out, "ACGT", invert = TRUE), class = "ducksassy_file_error")
  expect_identical(readLines(out), "keep me")
  expect_identical(sort(list.files(dir, all.files = TRUE, no.. = TRUE)), c("bad.fq", "out.fq"))
})

# --- bad input ---------------------------------------------------------------

# The error of every function on file `p`, each checked to be a file error
# naming the file and (when given) the record.
expect_file_error <- function(p, record = NULL, message = NULL, kind = NULL) {
  calls <- list(
    function() sassy_search_fastx(p, "ACGT"),
    function() sassy_count_fastx(p, "ACGT"),
    function() sassy_read_fastx(p),
    function() sassy_filter_fastx(p, tempfile(fileext = ".fq"), "ACGT")
  )
  for (f in calls) {
    e <- expect_error(f(), class = "ducksassy_file_error")
    expect_s3_class(e, "ducksassy_error")
    expect_s3_class(e, "ducksassy_input_error")
    expect_identical(e$path, p)
    expect_match(conditionMessage(e), p, fixed = TRUE)
    if (!is.null(record)) {
      expect_identical(e$record, as.integer(record))
      expect_match(conditionMessage(e), paste0("record ", record), fixed = TRUE)
    }
    if (!is.null(message)) expect_match(conditionMessage(e), message)
  }
  invisible(e)
}

test_that("missing files and folders are errors naming the path", {
  dir <- withr::local_tempdir()
  missing <- file.path(dir, "nope.fq.gz")
  expect_file_error(missing, message = "does not exist")
  e <- expect_error(sassy_search_fastx(c(reads_fq, missing), "ACGT"), class = "ducksassy_file_error")
  expect_identical(e$index, 2L)
  expect_match(conditionMessage(e), "paths[2]", fixed = TRUE)
  expect_file_error(dir, message = "folder")
  expect_error(sassy_search_fastx(character(), "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(NA_character_, "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(1, "ACGT"), class = "ducksassy_input_error")
  expect_error(sassy_read_fastx(c(reads_fq, reads_fq)), class = "ducksassy_input_error")
})

test_that("Empty inputs: empty files are zero records, not errors", {
  # 0 bytes, a gzip stream of nothing, blank lines only: zero records, as
  # Biostrings reads them (issue 17)
  empty <- make_bad(raw())
  con <- gzfile(gz <- withr::local_tempfile(fileext = ".fq.gz"), "wb")
  close(con)
  blank <- make_bad("\n\n")
  for (p in c(empty, gz, blank)) {
    r <- sassy_read_fastx(p)
    expect_identical(nrow(r), 0L)
    expect_identical(names(r), c("name", "description", "sequence"))
    h <- sassy_search_fastx(p, "ACGT")
    expect_identical(nrow(h), 0L)
    expect_identical(names(h), names(sassy_search_fastx(reads_fq, "ACGT")))
    n <- sassy_count_fastx(p, c(a = "ACGT"))
    expect_identical(n, data.frame(record = integer(), name = character(), a = integer()))
    expect_identical(sassy_filter_fastx(p, withr::local_tempfile(), "ACGT"), c(read = 0, written = 0))
  }
  # an empty sample among others: its records are none, the others' numbers
  # and values unchanged
  both <- sassy_count_fastx(c(reads_fq, empty, reads_fq), "ACGT", k = 1)
  one <- sassy_count_fastx(reads_fq, "ACGT", k = 1)
  expect_identical(nrow(both), 2L * nrow(one))
  expect_identical(both$pattern_1, rep(one$pattern_1, 2))
  expect_identical(both$file, rep(reads_fq, 2L * nrow(one)))
  # a file that is not FASTA/FASTQ at all stays an error
  expect_file_error(make_bad("x"), message = "neither FASTA nor FASTQ")
  # a compressed file cut before its first letter is truncated, not empty
  full <- readBin(reads_fq, "raw", file.size(reads_fq))
  expect_file_error(make_bad(full[1:20], ".fq.gz"), message = "truncated or corrupt")
})

test_that("Empty inputs: a filter that keeps nothing writes a file read back as zero records", {
  for (out in c(withr::local_tempfile(fileext = ".fq"), withr::local_tempfile(fileext = ".fq.gz"))) {
    # (no read has this 24-mer, N-rich regions dropped by max_n_frac)
    n <- sassy_filter_fastx(reads_fq, out, strrep("GATTACA", 4), k = 0, max_n_frac = 0)
    expect_identical(n[["written"]], 0)
    expect_true(file.exists(out))
    expect_identical(nrow(sassy_read_fastx(out)), 0L)
    expect_identical(nrow(sassy_search_fastx(out, "ACGT")), 0L)
    expect_identical(sassy_filter_fastx(out, withr::local_tempfile(), "ACGT"), c(read = 0, written = 0))
  }
})

test_that("FASTA with a leading blank line or `;` comment lines is read as Biostrings reads it", {
  want <- data.frame(name = c("a", "b"), description = c("x y", NA), sequence = c("ACGTAC", "GG"))
  texts <- c(
    "\n>a x y\nACGT\nAC\n>b\nGG\n",
    ";comment\n\n>a x y\nACGT\n;inside a record\nAC\n;between\n>b\nGG\n",
    "\r\n;c\r\n>a x y\r\nACGT\r\nAC\r\n;c\r\n>b\r\nGG\r\n"
  )
  for (text in texts) {
    p <- make_bad(text, ".fa")
    expect_identical(sassy_read_fastx(p), want)
    h <- sassy_search_fastx(p, "ACGTAC")
    expect_identical(h$name, "a")
    if (requireNamespace("Biostrings", quietly = TRUE)) {
      bs <- Biostrings::readDNAStringSet(p)
      expect_identical(unname(as.character(bs)), want$sequence)
      expect_identical(names(bs), c("a x y", "b"))
    }
  }
})

test_that("the FASTQ quality-length error names the quality line", {
  lines <- c("@a", "ACGT", "+", "IIII", "@b", "ACGT", "+", "III", "@c", "A", "+", "I")
  e <- expect_file_error(make_bad(paste0(lines, "\n", collapse = "")), record = 2, message = "differ in length")
  expect_identical(e$line, 8L)
  expect_match(conditionMessage(e), "line 8", fixed = TRUE)
  # leading blank lines count
  e <- expect_file_error(make_bad(paste0(c("", "", lines), "\n", collapse = "")), record = 2)
  expect_identical(e$line, 10L)
})

test_that("files that are neither FASTA nor FASTQ are errors", {
  expect_file_error(make_bad("name\tvalue\n1\t2\n"), record = 1, message = "neither FASTA nor FASTQ")
  p <- withr::local_tempfile(fileext = ".csv.gz")
  con <- gzfile(p, "w")
  writeLines("a,b", con)
  close(con)
  expect_file_error(p, record = 1, message = "neither FASTA nor FASTQ")
  # compression is detected at each layer: a gzip of the gzipped reads is
  # read as the reads, a gzip of a gzipped table is still not FASTA/FASTQ
  p2 <- withr::local_tempfile(fileext = ".gz")
  con <- gzfile(p2, "wb")
  writeBin(readBin(reads_fq, "raw", file.size(reads_fq)), con)
  close(con)
  expect_identical(sassy_read_fastx(p2), sassy_read_fastx(reads_fq))
  p3 <- withr::local_tempfile(fileext = ".gz")
  con <- gzfile(p3, "wb")
  writeBin(readBin(p, "raw", file.size(p)), con)
  close(con)
  expect_file_error(p3, record = 1, message = "neither FASTA nor FASTQ")
})

test_that("truncated and corrupt gzip files are errors, never partial results", {
  gz <- readBin(reads_fq, "raw", file.size(reads_fq))
  n <- length(gz)
  for (cut in c(n - 1, n - 8, n - 9, n %/% 2, 200)) {
    p <- make_bad(gz[seq_len(cut)], ".fq.gz")
    e <- expect_file_error(p, message = "truncated or corrupt")
    expect_true(e$record >= 1 && e$record <= 200)
  }
  corrupt <- gz
  corrupt[n %/% 2] <- xor(corrupt[n %/% 2], as.raw(0xff))
  expect_file_error(make_bad(corrupt, ".fq.gz"))
  # the CRC at the end is checked
  crc <- gz
  crc[n - 6] <- xor(crc[n - 6], as.raw(0xff))
  expect_file_error(make_bad(crc, ".fq.gz"), message = "truncated or corrupt")
})

test_that("FASTQ records with a wrong quality length are errors at that record", {
  lines <- read_lines(reads_fq)
  lines[4 * 57] <- substr(lines[4 * 57], 2, 1e6)
  p <- make_bad(paste0(lines, "\n", collapse = ""))
  expect_file_error(p, record = 57, message = "differ in length")
  # gzip-compressed, with small batches: the record number counts across batches
  withr::local_options(ducksassy.fastx_batch_records = 5)
  pz <- withr::local_tempfile(fileext = ".fq.gz")
  con <- gzfile(pz, "w")
  writeLines(lines, con)
  close(con)
  e <- expect_file_error(pz, record = 57)
  # the quality line of record 57
  expect_identical(e$line, 4L * 56L + 4L)
})

test_that("truncated FASTQ and blank lines are errors; header-only FASTA records are empty", {
  lines <- read_lines(reads_fq)
  expect_file_error(make_bad(paste0(lines[1:10], "\n", collapse = "")), record = 3, message = "ends inside a FASTQ record")
  expect_file_error(make_bad(paste0(c(lines[1:8], "", lines[9:12]), "\n", collapse = "")), record = 3)
  # a header-only record is an empty sequence, first, in the middle or last
  # (needletail alone cannot read the last case), with or without a final
  # line break, plain or gzip
  for (text in c(">a\n>b\nACGT\n>c d\n", ">a\n>b\nACGT\n>c d")) {
    for (gz in c(FALSE, TRUE)) {
      path <- make_bad(text, if (gz) ".fa.gz" else ".fa")
      if (gz) {
        con <- gzfile(path, "wb"); writeBin(charToRaw(text), con); close(con)
      }
      r <- sassy_read_fastx(path)
      expect_identical(r$name, c("a", "b", "c"))
      expect_identical(r$description, c(NA, NA, "d"))
      expect_identical(r$sequence, c("", "ACGT", ""))
      h <- sassy_search_fastx(path, "ACGT", k = 0)
      expect_identical(h$record, sassy_search(r$sequence, "ACGT", k = 0)$record)
      expect_identical(unique(h$record), 2L)
    }
  }
})

test_that("letters outside the alphabet name the file, record and position", {
  e <- expect_error(sassy_search_fastx(reads_fq, "ACGT", alphabet = "dna"), class = "ducksassy_input_error")
  expect_s3_class(e, "ducksassy_error")
  expect_identical(e$path, reads_fq)
  expect_identical(e$record, 1L)
  expect_identical(e$name, "r1")
  expect_identical(e$position, 60L)
  expect_identical(substr(sassy_read_fastx(reads_fq, 1)$sequence, 60, 60), "N")
  expect_match(conditionMessage(e), "Record 1 (\"r1\")", fixed = TRUE)
  expect_match(conditionMessage(e), "iupac", fixed = TRUE)
  # in a later record, with small batches
  withr::local_options(ducksassy.fastx_batch_records = 2)
  p <- make_bad(">a\nACGT\n>b\nACGT\n>c\nAC-GT\n", ".fa")
  e <- expect_error(sassy_search_fastx(p, "ACGT"), class = "ducksassy_input_error")
  expect_identical(e$record, 3L)
  expect_identical(e$position, 3L)
  expect_error(sassy_filter_fastx(p, tempfile(), "ACGT"), class = "ducksassy_input_error")
})

test_that("search arguments are checked as for sassy_search()", {
  expect_error(sassy_search_fastx(reads_fq, character()), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(reads_fq, "ACGT", k = 4), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(reads_fq, "ACGT", alphabet = "rna"), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(reads_fq, "ACGT", alphabet = "ascii", rc = TRUE), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(reads_fq, "ACGT", overhang = 2), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(reads_fq, "ACGT", threads = 0), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(reads_fq, "ACGT", what = "hit"), class = "ducksassy_input_error")
  expect_error(sassy_search_fastx(reads_fq, "ACGT", what = c("count", "hits")), class = "ducksassy_input_error")
})

test_that("search options behave as in sassy_search()", {
  r <- sassy_read_fastx(long_fq)
  for (args in list(
    list(k = 1L, cigar = FALSE),
    list(k = 2L, overhang = 0.5),
    list(k = 1L, alphabet = "ascii", ignore_case = TRUE),
    list(k = 3L, all_endpoints = TRUE, rc = FALSE),
    list(k = 2L, indels = FALSE)
  )) {
    got <- do.call(sassy_search_fastx, c(list(long_fq, fastx_patterns), args))
    want <- do.call(expected_from_texts, c(list(r$sequence, r$name, fastx_patterns), args))
    expect_identical(got, want)
  }
})

test_that("too many hits is a limit error", {
  withr::local_options(ducksassy.max_hits = 5)
  expect_error(sassy_search_fastx(reads_fq, "ACG"), class = "ducksassy_limit_error")
})

test_that("error messages", {
  dir <- withr::local_tempdir()
  tidy <- function(x) gsub(dir, "<tmp>", x, fixed = TRUE)
  bad <- file.path(dir, "bad.fq")
  writeLines(c("@r1", "ACGT", "+", "IIII", "@r2", "ACGT", "+", "III"), bad)
  expect_snapshot(sassy_read_fastx(bad), error = TRUE, transform = tidy)
  expect_snapshot(sassy_search_fastx(c(bad, file.path(dir, "nope.fa")), "ACGT"), error = TRUE, transform = tidy)
  fa <- file.path(dir, "gap.fa")
  writeLines(c(">seq1 a gapped one", "AC-GT"), fa)
  expect_snapshot(sassy_search_fastx(fa, "ACGT"), error = TRUE, transform = tidy)
})

test_that("indels = FALSE: file counts, contains and filter equal the vector search (#17)", {
  dir <- withr::local_tempdir()
  r <- sassy_read_fastx(long_fq)
  pats <- fastx_patterns[c("r1", "g1", "b1")]
  for (what in c("count", "contains")) {
    got <- (if (what == "count") sassy_count_fastx else sassy_contains_fastx)(long_fq, pats, k = 2L, indels = FALSE)
    want <- (if (what == "count") sassy_count else sassy_contains)(r$sequence, pats, k = 2L, indels = FALSE)
    expect_identical(unname(as.matrix(got[names(pats)])), unname(want), info = what)
  }
  hit <- apply(sassy_contains(r$sequence, pats, k = 2L, indels = FALSE), 1, any)
  edit <- apply(sassy_contains(r$sequence, pats, k = 2L), 1, any)
  expect_true(all(edit[hit]))
  out <- file.path(dir, "out.fq")
  n <- sassy_filter_fastx(long_fq, out, pats, k = 2L, indels = FALSE)
  expect_identical(n, c(read = nrow(r) + 0, written = sum(hit) + 0))
  expect_identical(sassy_read_fastx(out)$name, r$name[hit])
  expect_error(
    sassy_filter_fastx(long_fq, out, pats, k = 2L, indels = FALSE, overhang = 0.5),
    class = "ducksassy_input_error"
  )
})
