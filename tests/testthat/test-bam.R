# Unaligned BAM input (issue 39): a BAM file reads, searches, assigns,
# filters and demultiplexes as the FASTQ that Debian's samtools writes of
# it (`samtools fastq`), on real nanopore reads (Debian's qcat-examples),
# made into BAM by samtools itself (`samtools import`, `samtools view`).

bam_samtools <- function() {
  s <- Sys.which("samtools")
  skip_if_not(nzchar(s), "samtools is not installed")
  s
}

# `samtools args...`, failing the test when it fails; its stdout.
bam_run <- function(args, stdout = TRUE) {
  out <- suppressWarnings(system2(bam_samtools(), args, stdout = stdout, stderr = FALSE))
  status <- attr(out, "status")
  if (!is.null(status) && status != 0L) {
    stop("samtools ", paste(args, collapse = " "), " failed with status ", status)
  }
  out
}

# The first n reads of qcat-examples' barcode_1k.fastq.gz as a plain FASTQ
# file in dir (names with descriptions: runid=... barcode=...).
bam_real_fastq <- function(dir, n = 300L) {
  src <- "/usr/share/doc/qcat/examples/qcat/test/data/barcode_1k.fastq.gz"
  skip_if_not(file.exists(src), "qcat-examples is not installed")
  con <- gzfile(src)
  lines <- readLines(con, n = 4L * n)
  close(con)
  fq <- file.path(dir, "reads.fastq")
  writeLines(lines, fq)
  fq
}

# samtools import of a FASTQ file into a (BGZF) BAM.
bam_import <- function(fq, bam) {
  bam_run(c("import", "-0", shQuote(fq), "-o", shQuote(bam)))
  bam
}

# samtools fastq of a BAM file, into a FASTQ file.
bam_samtools_fastq <- function(bam, fq) {
  bam_run(c("fastq", shQuote(bam)), stdout = fq)
  fq
}

# The BAM content of a BGZF file, uncompressed (a plain BAM file's bytes).
bam_inflate <- function(bam) {
  con <- gzfile(bam, "rb")
  on.exit(close(con))
  readBin(con, "raw", 1e8)
}

bam_rc <- function(s) {
  vapply(s, function(x) chartr("ACGTN", "TGCAN", paste(rev(strsplit(x, "")[[1]]), collapse = "")), "", USE.NAMES = FALSE)
}
bam_rev <- function(s) {
  vapply(s, function(x) paste(rev(strsplit(x, "")[[1]]), collapse = ""), "", USE.NAMES = FALSE)
}

test_that("#39 a BAM of real reads reads as their FASTQ and as samtools fastq writes it", {
  bam_samtools()
  dir <- withr::local_tempdir()
  fq <- bam_real_fastq(dir)
  bam <- bam_import(fq, file.path(dir, "reads.bam"))
  # BGZF: gzip members whose content starts with BAM\1
  expect_identical(readBin(bam, "raw", 2L), as.raw(c(0x1f, 0x8b)))
  f <- sassy_read_fastx(fq)
  b <- sassy_read_fastx(bam)
  expect_identical(nrow(b), 300L)
  expect_identical(b$name, f$name)
  expect_true(all(is.na(b$description)))
  expect_true(all(grepl("^runid=", f$description)))
  expect_identical(b$sequence, f$sequence)
  expect_identical(b$quality, f$quality)
  s <- sassy_read_fastx(bam_samtools_fastq(bam, file.path(dir, "samtools.fastq")))
  expect_identical(b, s)
  # n_max, and the record count of every verb
  expect_identical(sassy_read_fastx(bam, n_max = 7), b[1:7, ])
})

test_that("#39 reversed records come back in the read's orientation; secondary and supplementary are skipped", {
  bam_samtools()
  dir <- withr::local_tempdir()
  f <- sassy_read_fastx(bam_real_fastq(dir, 60L))
  n <- nrow(f)
  rev <- seq_len(n) %% 3L == 0L
  flag <- ifelse(rev, 4L + 16L, 4L)
  seq <- ifelse(rev, bam_rc(f$sequence), f$sequence)
  qual <- ifelse(rev, bam_rev(f$quality), f$quality)
  rows <- paste(f$name, flag, "*", 0, 0, "*", "*", 0, 0, seq, qual, "RG:Z:x", sep = "\t")
  # a secondary and a supplementary copy after some reads
  extra <- c(2L, 9L, 30L)
  rows <- c(rows, paste(f$name[extra], c(256L, 2048L, 256L + 16L), "*", 0, 0, "*", "*", 0, 0,
    "ACGT", "IIII", sep = "\t"))
  rows <- rows[order(c(seq_len(n), extra + 0.5))]
  sam <- file.path(dir, "reads.sam")
  writeLines(c("@HD\tVN:1.6\tSO:unknown", "@RG\tID:x", rows), sam)
  bam <- file.path(dir, "reads.bam")
  bam_run(c("view", "-b", "-o", shQuote(bam), shQuote(sam)))
  # an uncompressed BAM file (not BGZF)
  ubam <- file.path(dir, "reads.ubam")
  writeBin(bam_inflate(bam), ubam)
  expect_identical(readBin(ubam, "raw", 4L), charToRaw("BAM\001"))
  s <- sassy_read_fastx(bam_samtools_fastq(bam, file.path(dir, "samtools.fastq")))
  for (path in c(bam, ubam)) {
    b <- sassy_read_fastx(path)
    expect_identical(b, s)
    expect_identical(b$sequence, f$sequence)
    expect_identical(b$quality, f$quality)
    expect_identical(b$name, f$name)
  }
  # counted as records by every verb: the sharding record counts
  expect_identical(nrow(sassy_count_fastx(bam, "ACGT")), n)
})

test_that("#39 a BAM without qualities reads with Phred 1 on every base", {
  bam_samtools()
  dir <- withr::local_tempdir()
  fa <- file.path(dir, "reads.fa")
  writeLines(c(">r1 x", "ACGTN", ">r2", "GGA"), fa)
  bam <- bam_import(fa, file.path(dir, "noqual.bam"))
  b <- sassy_read_fastx(bam)
  expect_identical(b$name, c("r1", "r2"))
  expect_identical(b$sequence, c("ACGTN", "GGA"))
  expect_identical(b$quality, c("\"\"\"\"\"", "\"\"\""))
})

test_that("#39 searches, counts and assignments of a BAM equal those of its FASTQ", {
  bam_samtools()
  dir <- withr::local_tempdir()
  fq <- bam_real_fastq(dir)
  bam <- bam_import(fq, file.path(dir, "reads.bam"))
  f <- sassy_read_fastx(fq)
  # 20-mers of some reads, found with edits in others
  pats <- c(a = substr(f$sequence[[3]], 40, 59), b = substr(f$sequence[[10]], 100, 119),
    c = "GGTGCTGAAGAAAGTTGTCGGTGTCTTTGTG")
  h <- sassy_search_fastx(fq, pats, k = 4)
  expect_gt(nrow(h), 2L)
  expect_identical(sassy_search_fastx(bam, pats, k = 4), h)
  expect_identical(sassy_count_fastx(bam, pats, k = 6), sassy_count_fastx(fq, pats, k = 6))
  expect_identical(sassy_contains_fastx(bam, pats, k = 6), sassy_contains_fastx(fq, pats, k = 6))
  a <- sassy_assign_fastx(fq, pats, k = 6)
  expect_identical(sassy_assign_fastx(bam, pats, k = 6), a)
  # both files at once, named
  two <- sassy_count_fastx(c(x = fq, y = bam), pats, k = 6)
  expect_identical(two[two$file == "x", -1], two[two$file == "y", -1], ignore_attr = TRUE)
})

test_that("#39 filtering and demultiplexing a BAM write the FASTQ samtools writes of it", {
  bam_samtools()
  dir <- withr::local_tempdir()
  fq <- bam_real_fastq(dir)
  bam <- bam_import(fq, file.path(dir, "reads.bam"))
  sfq <- bam_samtools_fastq(bam, file.path(dir, "samtools.fastq"))
  f <- sassy_read_fastx(fq)
  pats <- c(s1 = substr(f$sequence[[3]], 40, 59), s2 = substr(f$sequence[[10]], 100, 119),
    s3 = "GGTGCTGAAGAAAGTTGTCGGTGTCTTTGTG")
  out_b <- file.path(dir, "filtered_bam.fastq")
  out_s <- file.path(dir, "filtered_samtools.fastq")
  cb <- sassy_filter_fastx(bam, out_b, pats, k = 6)
  cs <- sassy_filter_fastx(sfq, out_s, pats, k = 6)
  expect_identical(cb, cs)
  expect_identical(readBin(out_b, "raw", 1e7), readBin(out_s, "raw", 1e7))
  for (trim in c(FALSE, TRUE)) {
    rb <- sassy_demultiplex_fastx(bam, pats, output = file.path(dir, paste0("b", trim), "{name}.fastq.gz"), k = 6, trim = trim)
    rs <- sassy_demultiplex_fastx(sfq, pats, output = file.path(dir, paste0("s", trim), "{name}.fastq.gz"), k = 6, trim = trim)
    rf <- sassy_demultiplex_fastx(fq, pats, output = file.path(dir, paste0("f", trim), "{name}.fastq"), k = 6, trim = trim)
    expect_identical(rb$records, rs$records)
    expect_identical(rb$records, rf$records)
    expect_gt(sum(rb$records[1:3]), 0)
    expect_identical(sum(rb$records), 300)
    for (i in seq_len(nrow(rb))) {
      # byte for byte what the demultiplexing of samtools' FASTQ writes
      expect_identical(readLines(rb$path[[i]]), readLines(rs$path[[i]]))
      # the same records (names, sequences, qualities) as from the FASTQ
      x <- sassy_read_fastx(rb$path[[i]])
      y <- sassy_read_fastx(rf$path[[i]])
      expect_identical(x[c("name", "sequence", "quality")], y[c("name", "sequence", "quality")])
    }
  }
})

test_that("#39 truncated and corrupt BAM files are file errors naming the file", {
  bam_samtools()
  dir <- withr::local_tempdir()
  fq <- bam_real_fastq(dir, 50L)
  bam <- bam_import(fq, file.path(dir, "reads.bam"))
  bytes <- readBin(bam, "raw", file.size(bam))
  cut <- file.path(dir, "cut.bam")
  for (n in c(30L, length(bytes) %/% 2L, length(bytes) - 40L)) {
    writeBin(bytes[seq_len(n)], cut)
    err <- expect_error(sassy_read_fastx(cut), class = "ducksassy_file_error")
    expect_identical(err$path, cut)
    expect_error(sassy_count_fastx(cut, "ACGT"), class = "ducksassy_file_error")
    expect_false(file.exists(file.path(dir, "f.fastq")))
    expect_error(sassy_filter_fastx(cut, file.path(dir, "f.fastq"), "ACGT"), class = "ducksassy_file_error")
    expect_false(file.exists(file.path(dir, "f.fastq")))
  }
  # a record size too large for the file, or impossible (uncompressed BAM)
  u <- bam_inflate(bam)
  l_text <- readBin(u[5:8], "integer", size = 4L, endian = "little")
  at <- 8L + l_text + 4L + 1L # block_size of the first record (no references)
  expect_identical(readBin(u[(at - 4L):(at - 1L)], "integer", size = 4L, endian = "little"), 0L)
  bad <- file.path(dir, "bad.bam")
  for (size in list(as.raw(c(0xff, 0xff, 0xff, 0x7f)), as.raw(c(0xf0, 0xff, 0xff, 0xff)), as.raw(c(5, 0, 0, 0)))) {
    v <- u
    v[at:(at + 3L)] <- size
    writeBin(v, bad)
    err <- expect_error(sassy_read_fastx(bad), class = "ducksassy_file_error")
    expect_identical(err$record, 1L)
    expect_match(conditionMessage(err), "bad.bam", fixed = TRUE)
  }
  # a wrong magic number: not BAM, and neither FASTA nor FASTQ
  v <- u
  v[4] <- as.raw(2)
  writeBin(v, bad)
  expect_error(sassy_read_fastx(bad), "neither FASTA nor FASTQ", class = "ducksassy_file_error")
})
