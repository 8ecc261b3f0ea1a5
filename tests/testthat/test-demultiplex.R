# sassy_demultiplex_fastx() (issue 23): every record once, in the file of
# its assignment (sassy_assign_fastx(), itself tested against the best-hit
# rule on sassy_search()), as it was read or trimmed; paired files; no
# output that looks complete after a failure.

demux_rs <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")
demux_rc <- function(s) chartr("ACGT", "TGCA", paste(rev(strsplit(s, "")[[1]]), collapse = ""))
demux_edit <- function(s, e) {
  for (i in seq_len(e)) {
    p <- sample(nchar(s), 1)
    s <- switch(sample(3, 1),
      `substr<-`(s, p, p, setdiff(c("A", "C", "G", "T"), substr(s, p, p))[1]),
      paste0(substr(s, 1, p - 1), substr(s, p + 1, nchar(s))),
      paste0(substr(s, 1, p), "A", substr(s, p + 1, nchar(s)))
    )
  }
  s
}

# ONT-like reads: a barcode near the start and its reverse complement near
# the end, with up to 2 edits; some reads without.
demux_workload <- function(n = 200, n_bc = 12, seed = 23) {
  set.seed(seed)
  bc <- stats::setNames(vapply(seq_len(n_bc), function(i) demux_rs(20), ""), sprintf("bc%02d", seq_len(n_bc)))
  truth <- sample(c(seq_len(n_bc), NA), n, TRUE)
  reads <- vapply(truth, function(t) {
    if (is.na(t)) return(demux_rs(sample(200:600, 1)))
    paste0(demux_rs(sample(20:40, 1)), demux_edit(bc[[t]], sample(0:2, 1)),
      demux_rs(sample(150:500, 1)), demux_rc(demux_edit(bc[[t]], sample(0:2, 1))),
      demux_rs(sample(30:60, 1)))
  }, "")
  names(reads) <- paste0("read", seq_len(n))
  list(bc = bc, truth = truth, reads = reads)
}

demux_write_fastq <- function(reads, path, desc = TRUE) {
  q <- vapply(nchar(reads), function(n) paste(sample(c("I", "#", "5", "+"), n, TRUE), collapse = ""), "")
  lines <- paste0("@", names(reads), if (desc) " some description", "\n", reads, "\n+\n", q)
  if (grepl("\\.gz$", path)) {
    con <- gzfile(path, "w")
    on.exit(close(con))
    writeLines(lines, con)
  } else {
    writeLines(lines, path)
  }
  invisible(q)
}

# The records of every output, with the output's name.
demux_read_back <- function(res, col = "path") {
  do.call(rbind, lapply(seq_len(nrow(res)), function(i) {
    x <- sassy_read_fastx(res[[col]][[i]])
    x$sample <- rep(res$name[[i]], nrow(x))
    x
  }))
}

test_that("#23 demultiplexing: every record once, in the file of its assignment, byte for byte", {
  w <- demux_workload()
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "reads.fastq.gz")
  demux_write_fastq(w$reads, fq)
  for (ends in list(NULL, 100L)) {
    out <- file.path(dir, paste0("out", length(ends)), "{name}.fastq")
    res <- sassy_demultiplex_fastx(fq, w$bc, output = out, k = 3, ends = ends, threads = 2)
    expect_named(res, c("name", "path", "records"))
    expect_identical(res$name, c(names(w$bc), "unassigned", "ambiguous"))
    expect_true(all(file.exists(res$path)))
    back <- demux_read_back(res)
    expect_equal(sum(res$records), length(w$reads))
    expect_setequal(back$name, names(w$reads))
    expect_false(anyDuplicated(back$name) > 0)
    expect_equal(as.vector(table(factor(back$sample, res$name))), res$records)
    # the file of each record is its assignment's
    a <- sassy_assign_fastx(fq, w$bc, k = 3, ends = ends)
    want <- ifelse(a$status == "assigned", a$pattern_name, as.character(a$status))
    expect_identical(back$sample[match(a$name, back$name)], want)
    # written as read: sequence, quality and description unchanged
    orig <- sassy_read_fastx(fq)
    m <- match(orig$name, back$name)
    expect_identical(back$sequence[m], orig$sequence)
    expect_identical(back$quality[m], orig$quality)
    expect_identical(back$description[m], orig$description)
    # and right where the truth is known
    right <- !is.na(w$truth) & want != "unassigned"
    expect_gt(mean(want[right] == names(w$bc)[w$truth[right]]), 0.97)
  }
})

test_that("#23 demultiplexing: Biostrings reads the outputs, gzip by extension", {
  skip_if_not_installed("Biostrings")
  w <- demux_workload(60)
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "reads.fastq")
  demux_write_fastq(w$reads, fq)
  res <- sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}.fq.gz"), k = 3)
  sizes <- vapply(res$path, function(p) {
    expect_identical(readBin(p, "raw", 2L), as.raw(c(0x1f, 0x8b)))
    # (Biostrings warns that it drops the quality metadata it reads)
    length(suppressWarnings(Biostrings::readQualityScaledDNAStringSet(p)))
  }, 1L)
  expect_equal(unname(sizes), res$records)
})

test_that("#23 demultiplexing: trim cuts the barcode and what precedes it on its strand", {
  w <- demux_workload(120, seed = 5)
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "reads.fastq")
  demux_write_fastq(w$reads, fq)
  res <- sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}.fastq"), k = 3, trim = TRUE)
  back <- demux_read_back(res)
  orig <- sassy_read_fastx(fq)
  a <- sassy_assign_fastx(fq, w$bc, k = 3)
  for (i in seq_len(nrow(a))) {
    got <- back[back$name == a$name[[i]], ]
    o <- orig[i, ]
    if (a$status[[i]] != "assigned") {
      expect_identical(got$sequence, o$sequence)
      next
    }
    n <- nchar(o$sequence)
    keep <- if (a$strand[[i]] == "+") c(a$end[[i]] + 1L, n) else c(1L, a$start[[i]] - 1L)
    expect_identical(got$sequence, substr(o$sequence, keep[[1]], keep[[2]]))
    expect_identical(got$quality, substr(o$quality, keep[[1]], keep[[2]]))
    expect_identical(got$sample, a$pattern_name[[i]])
  }
  expect_true(any(a$strand == "-", na.rm = TRUE) && any(a$strand == "+", na.rm = TRUE))
})

test_that("#23 demultiplexing: paired files, both mates go to the sample of the pair", {
  w <- demux_workload(150, seed = 9)
  dir <- withr::local_tempdir()
  r1 <- file.path(dir, "r1.fastq")
  r2 <- file.path(dir, "r2.fastq")
  # R1 carries the start of the read, R2 the end: each mate one barcode
  n <- nchar(w$reads)
  m1 <- stats::setNames(substr(w$reads, 1, 120), names(w$reads))
  m2 <- stats::setNames(vapply(w$reads, function(s) demux_rc(substr(s, nchar(s) - 119, nchar(s))), ""), names(w$reads))
  demux_write_fastq(m1, r1)
  demux_write_fastq(m2, r2)
  res <- sassy_demultiplex_fastx(r1, w$bc, output = file.path(dir, "{name}_R{mate}.fastq"), k = 3, mates = r2)
  expect_named(res, c("name", "path", "mate_path", "records"))
  b1 <- demux_read_back(res, "path")
  b2 <- demux_read_back(res, "mate_path")
  expect_equal(sum(res$records), length(w$reads))
  expect_identical(b1$name, b2$name)
  expect_identical(b1$sample, b2$sample)
  expect_identical(b2$sequence[match(names(m2), b2$name)], unname(m2))
  # the pair's assignment: the best hit over both mates' hits
  h <- rbind(
    sassy_search(m1, w$bc, k = 3, cigar = FALSE),
    sassy_search(m2, w$bc, k = 3, cigar = FALSE)
  )
  want <- vapply(seq_along(m1), function(r) {
    x <- h[h$record == r, ]
    if (!nrow(x)) return("unassigned")
    x <- x[order(x$cost, x$pattern), ]
    other <- x$cost[x$pattern != x$pattern[[1]]]
    if (length(other) && min(other) <= x$cost[[1]]) "ambiguous" else names(w$bc)[x$pattern[[1]]]
  }, "")
  expect_identical(b1$sample[match(names(m1), b1$name)], want)
})

test_that("#23 demultiplexing: a failed run leaves no output that looks complete", {
  w <- demux_workload(50, seed = 2)
  dir <- withr::local_tempdir()
  r1 <- file.path(dir, "r1.fastq")
  r2 <- file.path(dir, "r2.fastq")
  demux_write_fastq(w$reads, r1)
  demux_write_fastq(w$reads[1:40], r2)
  out <- file.path(dir, "o", "{name}_{mate}.fastq")
  expect_error(
    sassy_demultiplex_fastx(r1, w$bc, output = out, k = 2, mates = r2),
    "different numbers of records", class = "ducksassy_file_error"
  )
  expect_identical(list.files(file.path(dir, "o"), all.files = TRUE, no.. = TRUE), character())
  # an earlier run's outputs stay as they were
  out <- file.path(dir, "{name}.fastq")
  res <- sassy_demultiplex_fastx(r1, w$bc, output = out, k = 2)
  before <- tools::md5sum(res$path)
  bad <- file.path(dir, "bad.fastq")
  writeLines(c(readLines(r1), "@broken", "ACGT", "+", "II"), bad)
  expect_error(sassy_demultiplex_fastx(bad, w$bc, output = out, k = 2), class = "ducksassy_file_error")
  expect_identical(tools::md5sum(res$path), before)
  expect_false(any(grepl("ducksassy", list.files(dir, all.files = TRUE))))
})

test_that("#23 demultiplexing: a time limit stops it, leaving no output", {
  set.seed(4)
  dir <- withr::local_tempdir()
  reads <- stats::setNames(vapply(1:40, function(i) demux_rs(25000), ""), paste0("r", 1:40))
  fq <- file.path(dir, "long.fastq")
  demux_write_fastq(reads, fq)
  p <- demux_rs(1000)
  out <- file.path(dir, "o", "{name}.fastq")
  t0 <- Sys.time()
  err <- tryCatch({
    setTimeLimit(elapsed = 1, transient = TRUE)
    on.exit(setTimeLimit(), add = TRUE)
    sassy_demultiplex_fastx(fq, c(a = p), output = out, k = 600, threads = 1)
  }, error = function(e) e)
  setTimeLimit()
  expect_s3_class(err, "ducksassy_time_limit")
  expect_lt(as.numeric(Sys.time() - t0, units = "secs"), 15)
  expect_identical(list.files(file.path(dir, "o"), all.files = TRUE, no.. = TRUE), character())
})

test_that("#23 demultiplexing: bad outputs and patterns are classed errors", {
  w <- demux_workload(10)
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fastq")
  demux_write_fastq(w$reads, fq)
  expect_error(sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "x.fastq")), "\\{name\\}", class = "ducksassy_input_error")
  fq2 <- file.path(dir, "r2.fastq")
  file.copy(fq, fq2)
  expect_error(sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}.fq"), mates = fq2), "\\{mate\\}", class = "ducksassy_input_error")
  # the mates are other files than the reads
  expect_error(sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}_{mate}.fq"), mates = fq), "none of `paths`", class = "ducksassy_input_error")
  expect_error(sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}_{mate}.fq")), "\\{mate\\}", class = "ducksassy_input_error")
  expect_error(sassy_demultiplex_fastx(fq, c(unassigned = "ACGTACGT"), output = file.path(dir, "{name}.fq")), "unassigned", class = "ducksassy_input_error")
  expect_error(sassy_demultiplex_fastx(fq, c(`a/b` = "ACGTACGT"), output = file.path(dir, "{name}.fq")), class = "ducksassy_input_error")
  expect_error(sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}.fq"), trim = NA), class = "ducksassy_input_error")
  expect_error(sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}.fq"), margin = -1), class = "ducksassy_input_error")
  expect_error(sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}.fq"), mates = c(fq, fq)), class = "ducksassy_input_error")
  # two barcodes of one sample share its file
  res <- sassy_demultiplex_fastx(fq, stats::setNames(w$bc, c("s", "s", names(w$bc)[-(1:2)])), output = file.path(dir, "{name}.fq"), k = 3)
  expect_identical(res$name[[1]], "s")
  expect_equal(sum(res$records), 10)
})

# The bytes of a file, decompressed by R (zlib's gzread, every member).
gz_bytes <- function(path) {
  con <- gzfile(path, "rb")
  on.exit(close(con))
  out <- list()
  while (length(chunk <- readBin(con, "raw", 1e6))) out[[length(out) + 1L]] <- chunk
  if (length(out)) unlist(out) else raw()
}

# `gzip -t` and `gzip -dc` (GNU gzip), where installed, in one call each:
# TRUE when the files are valid and decompress to the bytes of the plain
# files, one after the other.
gzip_tool_agrees <- function(paths, plain) {
  if (!nzchar(Sys.which("gzip"))) return(NA)
  if (system2("gzip", c("-t", shQuote(paths)), stdout = FALSE, stderr = FALSE) != 0L) return(FALSE)
  out <- tempfile()
  on.exit(unlink(out))
  system2("gzip", c("-dc", shQuote(paths)), stdout = out)
  want <- unlist(lapply(plain, function(p) readBin(p, "raw", file.size(p) + 1)))
  identical(readBin(out, "raw", file.size(out) + 1), want)
}

test_that("#39 gzip outputs: every reader reads the plain outputs' bytes, at every level and thread count", {
  # 96 barcodes (98 outputs and one no read goes to), a read far larger
  # than a block of 64 KiB
  w <- demux_workload(1200, n_bc = 96, seed = 39)
  w$reads[["huge"]] <- paste0(demux_rs(30), w$bc[[1]], demux_rs(200000))
  bc <- c(w$bc, nobody = "ACGTTGCAACGTTGCAACGTTGCA")
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "reads.fastq")
  demux_write_fastq(w$reads, fq)
  plain <- sassy_demultiplex_fastx(fq, bc, output = file.path(dir, "plain", "{name}.fastq"), k = 3, ends = 100, threads = 1)
  expect_equal(sum(plain$records), length(w$reads))
  expect_equal(sum(file.size(plain$path)), file.size(fq))
  expect_gt(max(file.size(plain$path)), 3 * 65280)
  expect_equal(plain$records[plain$name == "nobody"], 0)
  for (run in list(c(threads = 1, level = 2), c(threads = 2, level = 2), c(threads = 2, level = 1), c(threads = 3, level = 9))) {
    out <- file.path(dir, paste0("gz", run[["threads"]], run[["level"]]), "{name}.fastq.gz")
    res <- sassy_demultiplex_fastx(fq, bc, output = out, k = 3, ends = 100,
      threads = run[["threads"]], compression_level = run[["level"]])
    expect_identical(res$records, plain$records)
    for (i in seq_len(nrow(res))) {
      want <- readBin(plain$path[[i]], "raw", file.size(plain$path[[i]]) + 1)
      expect_identical(gz_bytes(res$path[[i]]), want, label = res$path[[i]])
    }
    expect_false(isFALSE(gzip_tool_agrees(res$path, plain$path)))
    # the output of no record: a gzip file of nothing (BGZF's end marker)
    expect_identical(file.size(res$path[res$name == "nobody"]), 28)
  }
  # the levels differ in size, not in content
  size <- function(l) sum(file.size(Sys.glob(file.path(dir, paste0("gz2", l), "*.gz"))))
  expect_lt(size(2), size(1))
  # BGZF: htslib indexes the largest output and fetches a record of its
  # middle by name
  if (nzchar(Sys.which("samtools"))) {
    i <- which.max(file.size(plain$path))
    gz <- file.path(dir, "gz22", basename(paste0(plain$path[[i]], ".gz")))
    expect_identical(system2("samtools", c("fqidx", shQuote(gz)), stdout = FALSE, stderr = FALSE), 0L)
    recs <- sassy_read_fastx(plain$path[[i]])
    mid <- ceiling(nrow(recs) / 2)
    got <- system2("samtools", c("fqidx", shQuote(gz), recs$name[[mid]]), stdout = TRUE)
    # (samtools wraps the sequence and the quality)
    plus <- which(got == "+")[[1]]
    expect_identical(paste(got[2:(plus - 1L)], collapse = ""), recs$sequence[[mid]])
  }
  skip_if_not_installed("Biostrings")
  for (i in which(plain$records > 0)[1:3]) {
    gz <- file.path(dir, "gz22", basename(paste0(plain$path[[i]], ".gz")))
    expect_identical(
      as.character(Biostrings::readDNAStringSet(gz, format = "fastq")),
      as.character(Biostrings::readDNAStringSet(plain$path[[i]], format = "fastq"))
    )
  }
})

test_that("#39 gzip outputs: compression_level is a whole number from 1 to 9", {
  w <- demux_workload(10)
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fastq")
  demux_write_fastq(w$reads, fq)
  for (bad in list(0, 10, 2.5, "2", NA, c(1, 2), NULL)) {
    e <- expect_error(
      sassy_demultiplex_fastx(fq, w$bc, output = file.path(dir, "{name}.fq.gz"), compression_level = bad),
      class = "ducksassy_input_error"
    )
    expect_identical(e$arg, "compression_level")
  }
  expect_identical(list.files(dir), "r.fastq")
})
