# Issue 37: demultiplexing that never mixes two runs, merges two samples or
# leaves debris. One regression test per defect, named after it, then the
# rough edges. The workload helpers (demux_workload(), demux_write_fastq(),
# demux_read_back()) are those of test-demultiplex.R, repeated here small.

i37_rs <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")

i37_fastq <- function(reads, path, eol = "\n") {
  q <- strrep("I", nchar(reads))
  txt <- paste0("@", names(reads), eol, reads, eol, "+", eol, q, eol, collapse = "")
  writeBin(charToRaw(txt), path)
  invisible(path)
}

# 4 samples' worth of reads: BC1..BC3 at the start, and reads without
i37_workload <- function(n = 40, seed = 37) {
  set.seed(seed)
  bc <- vapply(1:3, function(i) i37_rs(20), "")
  truth <- rep_len(c(1:3, NA), n)
  reads <- vapply(truth, function(t) {
    paste0(i37_rs(15), if (!is.na(t)) bc[[t]] else i37_rs(20), i37_rs(80))
  }, "")
  names(reads) <- paste0("read", seq_len(n))
  list(bc = bc, truth = truth, reads = reads)
}

test_that("#37 defect 1: a failed run replaces none of an earlier run's outputs", {
  skip_if_not(file.exists("/dev/full"))
  w <- i37_workload()
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  bc <- c(bc01 = w$bc[[1]], bc02 = w$bc[[2]])
  out <- file.path(dir, "o", "{name}.fastq")
  first <- sassy_demultiplex_fastx(fq, bc, output = out, k = 2)
  expect_identical(first$name, c("bc01", "bc02", "unassigned", "ambiguous"))
  before <- tools::md5sum(first$path)
  # a second run whose `unassigned` output fails when it is completed, as
  # on a full disk: its temporary file is /dev/full (writes fail, ENOSPC),
  # and it comes after bc01 and bc02, which used to be renamed already
  tmp <- file.path(dir, "o", paste0(".unassigned.fastq.ducksassy-", Sys.getpid(), ".tmp"))
  file.symlink("/dev/full", tmp)
  fq2 <- i37_fastq(rev(w$reads), file.path(dir, "reads2.fastq"))
  expect_error(
    sassy_demultiplex_fastx(fq2, bc, output = out, k = 2),
    "space", class = "ducksassy_file_error"
  )
  expect_identical(tools::md5sum(first$path), before)
  # no temporary file left (the link removed with it)
  expect_identical(
    sort(list.files(file.path(dir, "o"), all.files = TRUE, no.. = TRUE)),
    sort(c(basename(first$path), ".demultiplex-outputs.tsv"))
  )
})

test_that("#37 defect 2: an unnamed pattern and a given name never merge", {
  w <- i37_workload()
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  p <- stats::setNames(w$bc[1:2], c("", "1"))
  res <- sassy_demultiplex_fastx(fq, p, output = file.path(dir, "{name}.fastq"), k = 2)
  expect_identical(res$name, c("pattern_1", "1", "unassigned", "ambiguous"))
  expect_equal(res$records[1:2], c(sum(w$truth %in% 1), sum(w$truth %in% 2)))
  # the same names in every verb
  a <- sassy_assign_fastx(fq, p, k = 2)
  expect_identical(sort(unique(a$pattern_name[a$status == "assigned"])), sort(c("1", "pattern_1")))
  expect_identical(a$sample, a$pattern_name)
  expect_identical(colnames(sassy_count(w$reads, p, k = 2)), c("pattern_1", "1"))
  counts <- sassy_count_fastx(fq, p, k = 2)
  expect_identical(utils::tail(names(counts), 2), c("pattern_1", "1"))
  # a given name equal to a generated one is an error, not a merge
  clash <- stats::setNames(w$bc[1:2], c("", "pattern_1"))
  for (f in list(
    function() sassy_assign(w$reads, clash, k = 2),
    function() sassy_count(w$reads, clash, k = 2),
    function() sassy_demultiplex_fastx(fq, clash, output = file.path(dir, "c", "{name}.fastq"), k = 2)
  )) {
    expect_error(f(), "pattern_1", class = "ducksassy_name_clash_error")
  }
  expect_false(dir.exists(file.path(dir, "c")))
  # repeats are one sample, and made unique as pattern names
  rep2 <- stats::setNames(w$bc[1:3], c("a", "a", ""))
  a <- sassy_assign(w$reads, rep2, k = 2)
  ok <- a$status == "assigned"
  expect_identical(a$pattern_name[ok], c("a", "a_1", "pattern_3")[a$pattern[ok]])
  expect_identical(a$sample[ok], c("a", "a", "pattern_3")[a$pattern[ok]])
  expect_identical(colnames(sassy_count(w$reads, rep2, k = 2)), c("a", "a_1", "pattern_3"))
})

test_that("#37 defect 3: two barcodes of one sample never make a read ambiguous", {
  set.seed(3)
  bc <- vapply(1:3, function(i) i37_rs(16), "")
  both <- c(r1 = paste0(i37_rs(10), bc[[1]], i37_rs(10), bc[[2]], i37_rs(10)))
  p <- c(s = bc[[1]], s = bc[[2]], t = bc[[3]])
  a <- sassy_assign(both, p, k = 2)
  expect_identical(as.character(a$status), "assigned")
  expect_identical(a$sample, "s")
  expect_true(is.na(a$other_cost))
  # two samples: ambiguous, as before
  expect_identical(as.character(sassy_assign(both, c(s = bc[[1]], u = bc[[2]]), k = 2)$status), "ambiguous")
  dir <- withr::local_tempdir()
  fq <- i37_fastq(both, file.path(dir, "r.fastq"))
  res <- sassy_demultiplex_fastx(fq, p, output = file.path(dir, "{name}.fastq"), k = 2)
  expect_identical(res$records[res$name == "s"], 1)
  # the rule against an oracle: hits of sassy_search(), reduced by sample
  w <- i37_workload(60, seed = 31)
  reads <- vapply(seq_along(w$reads), function(i) {
    paste0(w$reads[[i]], if (i %% 3 == 0) w$bc[[(i %% 2) + 1]] else "", i37_rs(5))
  }, "")
  grouped <- c(x = w$bc[[1]], x = w$bc[[2]], y = w$bc[[3]])
  for (margin in 0:1) {
    got <- sassy_assign(reads, grouped, k = 3, margin = margin)
    h <- sassy_search(reads, grouped, k = 3, cigar = FALSE)
    samples <- names(grouped)
    for (r in seq_along(reads)) {
      x <- h[h$record == r, ]
      if (!nrow(x)) {
        expect_identical(as.character(got$status[[r]]), "unassigned")
        next
      }
      x <- x[order(x$cost, x$pattern, x$start, x$end, x$strand == "-"), ]
      best <- samples[x$pattern[[1]]]
      other <- x$cost[samples[x$pattern] != best]
      want_other <- if (length(other)) min(other) else NA_integer_
      expect_identical(got$sample[[r]], best)
      expect_identical(got$other_cost[[r]], want_other)
      want <- if (!is.na(want_other) && want_other <= x$cost[[1]] + margin) "ambiguous" else "assigned"
      expect_identical(as.character(got$status[[r]]), want, info = paste("record", r))
    }
  }
})

test_that("#37 defect 4: no debris after a kill, a SIGTERM or a failure", {
  w <- i37_workload()
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  bc <- c(bc01 = w$bc[[1]], bc02 = w$bc[[2]])
  o <- file.path(dir, "o")
  dir.create(o)
  # temporary files of a process that no longer exists (beyond Linux's
  # largest pid) are removed; those of a live process (pid 1) stay
  dead <- file.path(o, ".bc01.fastq.gz.ducksassy-4194399.tmp")
  live <- file.path(o, ".bc02.fastq.ducksassy-1.tmp")
  for (f in c(dead, live)) writeLines("x", f)
  sassy_demultiplex_fastx(fq, bc, output = file.path(o, "{name}.fastq"), k = 2)
  expect_false(file.exists(dead))
  expect_true(file.exists(live))
  # a failed run removes the folders it created
  bad <- file.path(dir, "bad.fastq")
  writeLines(c(readLines(fq), "@broken", "ACGT", "+", "II"), bad)
  expect_error(
    sassy_demultiplex_fastx(bad, bc, output = file.path(dir, "new", "deeper", "{name}.fastq"), k = 2),
    class = "ducksassy_file_error"
  )
  expect_false(dir.exists(file.path(dir, "new")))
})

test_that("#37 defect 4: a SIGTERM stops the run, removes its temporary files and ends R", {
  skip_on_os("windows")
  skip_if_not_installed("processx")
  dir <- withr::local_tempdir()
  set.seed(4)
  reads <- stats::setNames(vapply(1:40, function(i) i37_rs(25000), ""), paste0("r", 1:40))
  fq <- i37_fastq(reads, file.path(dir, "long.fastq"))
  out <- file.path(dir, "o")
  script <- file.path(dir, "run.R")
  writeLines(c(
    "suppressPackageStartupMessages(library(ducksassy))",
    sprintf("p <- %s", deparse(i37_rs(1000))),
    sprintf(
      "sassy_demultiplex_fastx(%s, c(a = p), output = file.path(%s, '{name}.fastq'), k = 600, threads = 1)",
      deparse(fq), deparse(out)
    ),
    "cat('finished\\n')"
  ), script)
  px <- processx::process$new(
    file.path(R.home("bin"), "Rscript"), script,
    env = c("current", R_LIBS = paste(.libPaths(), collapse = ":")),
    stdout = "|", stderr = "|"
  )
  on.exit(px$kill(), add = TRUE)
  # wait for its temporary files: the run is under way
  deadline <- Sys.time() + 60
  while (Sys.time() < deadline && px$is_alive() &&
    !any(grepl("ducksassy", list.files(out, all.files = TRUE)))) {
    Sys.sleep(0.05)
  }
  expect_true(px$is_alive(), info = "the run ended before SIGTERM: make it longer")
  px$signal(tools::SIGTERM)
  px$wait(20000)
  expect_false(px$is_alive())
  # ended by the signal, as the sender asked, and not finished
  expect_identical(px$get_exit_status(), -tools::SIGTERM)
  expect_false(grepl("finished", px$read_all_output()))
  expect_identical(list.files(out, all.files = TRUE, no.. = TRUE), character())
})

test_that("#37 defect 5: messages show the template and the real reason", {
  w <- i37_workload(8)
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  withr::local_dir(dir)
  err <- tryCatch(sassy_demultiplex_fastx(fq, c(a = w$bc[[1]]), output = "o/{name}/"), error = identity)
  expect_s3_class(err, "ducksassy_input_error")
  expect_match(conditionMessage(err), "o/{name}/", fixed = TRUE)
  expect_false(grepl("o/x/", conditionMessage(err), fixed = TRUE))
  for (nm in c(".", "..")) {
    err <- tryCatch(
      sassy_demultiplex_fastx(fq, stats::setNames(w$bc[[1]], nm), output = file.path(dir, "{name}.fq")),
      error = identity
    )
    expect_s3_class(err, "ducksassy_sample_name_error")
    expect_match(conditionMessage(err), "is a folder")
    expect_false(grepl("contains `/`", conditionMessage(err), fixed = TRUE))
  }
})

test_that("#37 defect 6: setTimeLimit() stops a demultiplexing whose writer is the slow part", {
  set.seed(6)
  dir <- withr::local_tempdir()
  # many records into gzip outputs: compression, not the search, takes
  # the time
  one <- vapply(1:200, function(i) i37_rs(1000), "")
  reads <- stats::setNames(rep(one, 150), paste0("r", seq_len(30000)))
  fq <- i37_fastq(reads, file.path(dir, "many.fastq"))
  bc <- stats::setNames(vapply(1:12, function(i) i37_rs(24), ""), sprintf("bc%02d", 1:12))
  out <- file.path(dir, "o", "{name}.fastq.gz")
  # (load lazily loaded code first: a limit inside requireNamespace() is
  # swallowed there)
  sassy_demultiplex_fastx(i37_fastq(reads[1:5], file.path(dir, "few.fastq")), bc,
    output = file.path(dir, "warm", "{name}.fq"), k = 2)
  err <- tryCatch({
    setTimeLimit(elapsed = 0.2, transient = TRUE)
    on.exit(setTimeLimit(), add = TRUE)
    # (level 9: the writer, not the search, is the slow part)
    sassy_demultiplex_fastx(fq, bc, output = out, k = 2, ends = 100, threads = 1, compression_level = 9)
  }, error = identity)
  setTimeLimit()
  # stopped inside the run: the package's class (a limit noticed only
  # after the call returned would be R's plain error), and the run's
  # outputs and folder removed (a run that completed would have left them)
  expect_s3_class(err, "ducksassy_time_limit")
  expect_false(dir.exists(file.path(dir, "o")))
})

test_that("#37 rough edge: a folder with another run's samples is refused, or cleaned with overwrite", {
  w <- i37_workload()
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  out <- file.path(dir, "{name}.fastq")
  first <- sassy_demultiplex_fastx(fq, c(a = w$bc[[1]], b = w$bc[[2]]), output = out, k = 2)
  # the same samples again: replaced, no error
  again <- sassy_demultiplex_fastx(fq, c(a = w$bc[[1]], b = w$bc[[2]]), output = out, k = 2)
  expect_identical(again$records, first$records)
  # other samples: b.fastq would stay beside c.fastq
  err <- tryCatch(sassy_demultiplex_fastx(fq, c(a = w$bc[[1]], c = w$bc[[3]]), output = out, k = 2), error = identity)
  expect_s3_class(err, "ducksassy_stale_outputs_error")
  expect_match(conditionMessage(err), "b.fastq", fixed = TRUE)
  expect_identical(err$path, normalizePath(file.path(dir, "b.fastq")))
  expect_false(file.exists(file.path(dir, "c.fastq")))
  res <- sassy_demultiplex_fastx(fq, c(a = w$bc[[1]], c = w$bc[[3]]), output = out, k = 2, overwrite = TRUE)
  expect_setequal(list.files(dir, pattern = "fastq$"), c("reads.fastq", basename(res$path)))
  expect_equal(sum(res$records), length(w$reads))
  # the input fits the template too, but no run wrote it: never stale
  expect_true(file.exists(fq))
  # a file that fits the template but no run wrote is never listed
  writeLines("@x\nA\n+\nI", file.path(dir, "mine.fastq"))
  sassy_demultiplex_fastx(fq, c(a = w$bc[[1]]), output = out, k = 2, overwrite = TRUE)
  expect_true(file.exists(file.path(dir, "mine.fastq")))
  expect_false(file.exists(file.path(dir, "c.fastq")))
})

test_that("#37 rough edge: mates must have the same names, in the same order", {
  w <- i37_workload(20)
  dir <- withr::local_tempdir()
  r1 <- i37_fastq(stats::setNames(w$reads, paste0(names(w$reads), "/1")), file.path(dir, "r1.fastq"))
  r2 <- i37_fastq(stats::setNames(w$reads, paste0(names(w$reads), "/2")), file.path(dir, "r2.fastq"))
  out <- file.path(dir, "o", "{name}_R{mate}.fastq")
  res <- sassy_demultiplex_fastx(r1, c(a = w$bc[[1]]), output = out, k = 2, mates = r2)
  expect_equal(sum(res$records), 20)
  shuffled <- c(2, 1, 3:20)
  r2s <- i37_fastq(stats::setNames(w$reads[shuffled], paste0(names(w$reads)[shuffled], "/2")), file.path(dir, "r2s.fastq"))
  err <- tryCatch(
    sassy_demultiplex_fastx(r1, c(a = w$bc[[1]]), output = file.path(dir, "p", "{name}_R{mate}.fastq"), k = 2, mates = r2s),
    error = identity
  )
  expect_s3_class(err, "ducksassy_file_error")
  expect_match(conditionMessage(err), "record 1 is `read1`", fixed = TRUE)
  expect_match(conditionMessage(err), "`read2`", fixed = TRUE)
  expect_false(dir.exists(file.path(dir, "p")))
})

test_that("#37 rough edge: sample names that break files elsewhere are refused", {
  w <- i37_workload(8)
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  for (nm in c("a\nb", "a\tb", "a:b", "a*", "a?", "UNASSIGNED", "Ambiguous")) {
    expect_error(
      sassy_demultiplex_fastx(fq, stats::setNames(w$bc[[1]], nm), output = file.path(dir, "{name}.fq")),
      class = "ducksassy_sample_name_error"
    )
  }
  expect_error(
    sassy_demultiplex_fastx(fq, c(s1 = w$bc[[1]], S1 = w$bc[[2]]), output = file.path(dir, "{name}.fq")),
    "only in case", class = "ducksassy_sample_name_error"
  )
  expect_identical(list.files(dir), "reads.fastq")
})

test_that("#37 rough edge: too many open files says what to do", {
  skip_on_os(c("windows", "mac"))
  skip_if(Sys.which("bash") == "")
  w <- i37_workload(8)
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  set.seed(24)
  bc <- stats::setNames(vapply(1:300, function(i) i37_rs(20), ""), sprintf("s%03d", 1:300))
  saveRDS(bc, file.path(dir, "bc.rds"))
  code <- sprintf(
    "library(ducksassy); r <- tryCatch(sassy_demultiplex_fastx(%s, readRDS(%s), output = %s, k = 1), error = function(e) conditionMessage(e)); cat(r, sep = '\\n')",
    deparse(fq), deparse(file.path(dir, "bc.rds")), deparse(file.path(dir, "o", "{name}.fq"))
  )
  out <- system2("bash", c("-c", shQuote(paste0(
    "ulimit -n 256 && R_LIBS=", shQuote(paste(.libPaths(), collapse = ":")), " ",
    shQuote(file.path(R.home("bin"), "Rscript")), " -e ", shQuote(code)
  ))), stdout = TRUE, stderr = TRUE)
  expect_true(any(grepl("ulimit -n", out, fixed = TRUE)), info = paste(out, collapse = "\n"))
})

test_that("#37 rough edge: an end shorter than a pattern warns", {
  reads <- c(r = paste0(strrep("A", 30), "ACGTACGTACGTACGTACGT", strrep("C", 30)))
  expect_warning(sassy_assign(reads, c(a = "ACGTACGTACGTACGTACGT"), k = 1, ends = 10), class = "ducksassy_ends_warning")
  expect_warning(sassy_search(reads, "ACGTACGTACGTACGTACGT", k = 1, ends = c(50, 0)), NA)
})

test_that("#37 rough edge: trimmed CRLF records stay CRLF; .gzip is gzip", {
  w <- i37_workload(12)
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "crlf.fastq"), eol = "\r\n")
  res <- sassy_demultiplex_fastx(fq, c(a = w$bc[[1]]), output = file.path(dir, "{name}.fastq"), k = 2, trim = TRUE)
  for (p in res$path[res$records > 0]) {
    txt <- rawToChar(readBin(p, "raw", file.size(p)))
    expect_false(grepl("[^\r]\n", txt), info = p)
  }
  trimmed <- sassy_read_fastx(res$path[[1]])
  orig <- w$reads[match(trimmed$name, names(w$reads))]
  expect_identical(trimmed$sequence, unname(substring(orig, 36)))
  res <- sassy_demultiplex_fastx(fq, c(a = w$bc[[1]]), output = file.path(dir, "g", "{name}.fq.GZIP"), k = 2)
  for (p in res$path) expect_identical(readBin(p, "raw", 2L), as.raw(c(0x1f, 0x8b)))
  f <- file.path(dir, "f.fq.gzip")
  sassy_filter_fastx(fq, f, w$bc[[1]], k = 2)
  expect_identical(readBin(f, "raw", 2L), as.raw(c(0x1f, 0x8b)))
})

test_that("#37 rough edge: a per-read report equals the assignment, written with the outputs", {
  w <- i37_workload(60)
  dir <- withr::local_tempdir()
  fq <- i37_fastq(w$reads, file.path(dir, "reads.fastq"))
  bc <- c(s = w$bc[[1]], s = w$bc[[2]], t = w$bc[[3]])
  for (rep in c("report.tsv", "report.tsv.gz")) {
    report <- file.path(dir, "o", rep)
    res <- sassy_demultiplex_fastx(fq, bc, output = file.path(dir, "o", "{name}.fastq"), k = 2, report = report, overwrite = TRUE)
    got <- utils::read.delim(report, stringsAsFactors = FALSE, na.strings = "NA")
    a <- sassy_assign_fastx(fq, bc, k = 2)
    expect_identical(nrow(got), length(w$reads))
    expect_identical(got$file, rep(path.expand(fq), nrow(a)))
    expect_identical(got$record, a$record)
    expect_identical(got$name, a$name)
    expect_identical(got$pattern, a$pattern)
    expect_identical(got$pattern_name, a$pattern_name)
    expect_identical(got$cost, a$cost)
    expect_identical(got$start, a$start)
    expect_identical(got$end, a$end)
    expect_identical(got$strand, a$strand)
    expect_identical(as.integer(got$other_cost), a$other_cost)
    expect_identical(got$status, as.character(a$status))
    want <- ifelse(a$status == "assigned", a$sample, as.character(a$status))
    expect_identical(got$output, want)
    expect_equal(as.vector(table(factor(got$output, res$name))), res$records)
  }
  expect_error(
    sassy_demultiplex_fastx(fq, bc, output = file.path(dir, "o", "{name}.fastq"), k = 2, report = file.path(dir, "o", "s.fastq")),
    class = "ducksassy_input_error"
  )
})
