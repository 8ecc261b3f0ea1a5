# sassy_demultiplex_fastx() by both ends of each read (issue 38): every
# record in the output that the internal reference (assign_read_ends() and
# combine_ends(), R/ends-assign.R) names, for each policy; chimeras and
# flanks against searches of their own; trimming of both ends by hand.

de_dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, replace = TRUE), collapse = "")
de_rc <- function(x) chartr("ACGT", "TGCA", paste(rev(strsplit(x, "")[[1L]]), collapse = ""))
# `edits` random substitutions in s
de_mutate <- function(s, edits) {
  l <- strsplit(s, "")[[1L]]
  for (i in sample(seq_along(l), edits)) l[[i]] <- sample(setdiff(c("A", "C", "G", "T"), l[[i]]), 1L)
  paste(l, collapse = "")
}
de_fastq <- function(reads, path = withr::local_tempfile(fileext = ".fastq", .local_envir = parent.frame()),
                     names = paste0("r", seq_along(reads))) {
  writeLines(paste0("@", names, "\n", reads, "\n+\n", strrep("I", nchar(reads))), path)
  path
}

# The record names in each output of a demultiplexing (names of `res$name`).
de_outputs <- function(res) {
  out <- lapply(res$path, function(p) sassy_read_fastx(p)$name)
  names(out) <- res$name
  out
}

# What the reference says of each read: its output's name. Chimeras and
# flanks are the demultiplexing's own: found here by searches of their own
# (the middle of long reads; the flanks in the end windows).
de_expected <- function(reads, set, k, L, policy, samples = NULL, chimeras = FALSE,
                        reason_files = FALSE, flanks = NULL) {
  e <- ducksassy:::assign_read_ends(reads, set, k = k, end_length = L, policy = policy, samples = samples)
  reason <- e$reason
  if (chimeras) {
    n <- nchar(reads)
    long <- which(n > 2L * L)
    # (the set's patterns bare: a search of one end, the whole middle)
    mid <- sassy_assign(substr(reads[long], L + 1L, n[long] - L), ducksassy:::set_patterns(set), k = k)
    reason[long[!is.na(mid$pattern)]] <- "chimeric"
  }
  if (!is.null(flanks)) {
    found <- vapply(seq_along(flanks$patterns), function(i) {
      as.matrix(sassy_contains(reads, flanks$patterns[[i]], k = flanks$k[[i]], ends = c(L, L)))[, 1]
    }, logical(length(reads)))
    reason[reason %in% "no hit" & rowSums(matrix(found, length(reads))) > 0] <- "flank without barcode"
  }
  out <- ifelse(is.na(reason), e$sample, ifelse(reason == "ambiguous", "ambiguous",
    ifelse(reason == "chimeric", "chimeric", if (reason_files) gsub(" ", "_", reason) else "unassigned")))
  out[reason %in% "chimeric"] <- "chimeric"
  list(output = out, ref = e, reason = reason)
}

# The flanks the reference looks for, written out (the error rate 0.27):
# of each row, its flanks with nothing between them (an adapter without
# barcode) and around a slot of N as long as its barcode, k = 0.75 of the
# rate of their letters; each flank of 14 letters or more alone, k = half
# the rate of its letters.
de_flanks <- function(f5, f3, n_barcode) {
  together <- unique(c(paste0(f5, f3), paste0(f5, strrep("N", n_barcode), f3)))
  alone <- unique(c(f5, f3))
  alone <- alone[nchar(alone) >= 14L]
  list(
    patterns = c(together, alone),
    k = c(rep(as.integer(ceiling(0.75 * 0.27 * (nchar(f5[[1]]) + nchar(f3[[1]])))), length(together)),
      as.integer(floor(0.27 * nchar(alone) / 2)))
  )
}

# A symmetric set with flanks (a native kit: the same barcode at each end),
# and reads of chosen ends, orientation and edits.
de_native <- function(seed = 3801) {
  set.seed(seed)
  bcs <- c(a = de_dna(20), b = de_dna(20), c = de_dna(20))
  f5 <- de_dna(24)
  f3 <- de_dna(12)
  set <- sassy_barcodes(bcs, flank5 = f5, flank3 = f3)
  site <- function(b, edits = 0L) de_mutate(paste0(f5, bcs[[b]], f3), edits)
  reads <- character()
  kinds <- c("both", "front", "rear", "disagree", "none", "flank", "short", "chimera")
  for (i in 1:60) {
    b <- sample(names(bcs), 2L)
    kind <- kinds[[(i - 1L) %% length(kinds) + 1L]]
    ed <- sample(0:3, 2L, replace = TRUE)
    read <- switch(kind,
      both = paste0(de_dna(15), site(b[[1]], ed[[1]]), de_dna(300), de_rc(site(b[[1]], ed[[2]])), de_dna(15)),
      front = paste0(de_dna(15), site(b[[1]], ed[[1]]), de_dna(300)),
      rear = paste0(de_dna(300), de_rc(site(b[[1]], ed[[1]])), de_dna(15)),
      disagree = paste0(de_dna(15), site(b[[1]]), de_dna(300), de_rc(site(b[[2]])), de_dna(15)),
      none = de_dna(350),
      flank = paste0(de_dna(20), f5, de_dna(20), f3, de_dna(300)),
      short = paste0(de_dna(5), site(b[[1]], ed[[1]]), de_dna(40)),
      chimera = paste0(de_dna(15), site(b[[1]]), de_dna(250), site(b[[2]]), de_dna(250), de_rc(site(b[[1]])), de_dna(15))
    )
    reads[[i]] <- if (i %% 3L == 0L) de_rc(read) else read
  }
  list(set = set, reads = reads, f5 = f5, f3 = f3, bcs = bcs)
}

test_that("each policy writes every read to the output the reference names", {
  w <- de_native()
  fq <- de_fastq(w$reads)
  dir <- withr::local_tempdir()
  k <- 6L
  L <- 100L
  for (policy in c("either", "both")) {
    for (reason_files in c(FALSE, TRUE)) {
      out <- file.path(dir, paste0(policy, reason_files), "{name}.fastq")
      res <- sassy_demultiplex_fastx(fq, w$set, output = out, k = k, ends = L, policy = policy,
        reason_files = reason_files, report = file.path(dir, paste0(policy, reason_files, ".tsv")))
      got <- de_outputs(res)
      # every record in exactly one output
      expect_setequal(unlist(got, use.names = FALSE), paste0("r", seq_along(w$reads)))
      expect_identical(sum(res$records), as.double(length(w$reads)))
      expect_identical(lengths(got, use.names = FALSE), as.integer(res$records))
      ex <- de_expected(w$reads, w$set, k, L, policy, reason_files = reason_files,
        flanks = de_flanks(w$f5, w$f3, 20L))
      where <- rep(names(got), lengths(got))[match(paste0("r", seq_along(w$reads)), unlist(got))]
      expect_identical(where, ex$output, info = paste(policy, reason_files))
      # the outputs: the barcodes, then the reasons
      expect_identical(res$name[1:3], c("a", "b", "c"))
      expect_identical(res$name[-(1:3)], c(
        if (reason_files) c("ends_disagree", if (policy == "both") "one_end_only", "flank_without_barcode", "no_hit") else "unassigned",
        "ambiguous"
      ))
      # the report's columns are the reference's
      rep <- utils::read.delim(file.path(dir, paste0(policy, reason_files, ".tsv")), na.strings = "NA", stringsAsFactors = FALSE)
      expect_identical(rep$output, ex$output)
      expect_identical(rep$front_barcode, ex$ref$front_barcode)
      expect_identical(rep$rear_barcode, ex$ref$rear_barcode)
      expect_identical(rep$sample, ex$ref$sample)
      expect_identical(rep$reason, ex$reason)
      expect_identical(rep$status, as.character(ex$ref$status))
      expect_true(all(is.na(rep$orientation))) # a symmetric set does not tell
      # the hit columns: the deciding end's
      for (col in c("pattern", "cost", "start", "end", "strand", "other_cost")) {
        got <- if (col == "strand") rep[[col]] else as.integer(rep[[col]])
        expect_identical(got, ex$ref[[col]], info = col)
      }
    }
  }
  # the planted kinds come out where they must (the reference agrees with
  # the plan: a sanity check of the simulation itself)
  rep <- utils::read.delim(file.path(dir, "eitherTRUE.tsv"), stringsAsFactors = FALSE)
  kind <- rep(c("both", "front", "rear", "disagree", "none", "flank", "short", "chimera"), length.out = 60)
  expect_true(all(rep$reason[kind == "disagree"] == "ends disagree"))
  # (random reads do not hold the flanks: together, with or without a
  # slot, at k = 8 of their 36 letters; flank5 alone at k = 3 of 24)
  expect_true(all(rep$reason[kind == "none"] == "no hit"))
  expect_true(all(rep$reason[kind == "flank"] == "flank without barcode"))
  expect_true(all(rep$status[kind %in% c("both", "front", "rear", "short")] == "assigned"))
})

test_that("chimeras = 'set_aside' writes reads with a barcode in their middle to `chimeric`", {
  w <- de_native()
  fq <- de_fastq(w$reads)
  dir <- withr::local_tempdir()
  res <- sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, "{name}.fastq"), k = 6L, ends = 100L,
    chimeras = "set_aside", report = file.path(dir, "r.tsv"))
  expect_identical(res$name, c("a", "b", "c", "unassigned", "ambiguous", "chimeric"))
  got <- de_outputs(res)
  ex <- de_expected(w$reads, w$set, 6L, 100L, "either", chimeras = TRUE,
    flanks = de_flanks(w$f5, w$f3, 20L))
  where <- rep(names(got), lengths(got))[match(paste0("r", seq_along(w$reads)), unlist(got))]
  expect_identical(where, ex$output)
  kind <- rep(c("both", "front", "rear", "disagree", "none", "flank", "short", "chimera"), length.out = 60)
  # every planted chimera, and nothing else
  expect_identical(where == "chimeric", kind == "chimera")
  rep <- utils::read.delim(file.path(dir, "r.tsv"), stringsAsFactors = FALSE)
  expect_true(all(rep$status[kind == "chimera"] == "chimeric"))
  expect_true(all(is.na(rep$sample[kind == "chimera"])))
  # the assign verbs set aside the same reads
  a <- ducksassy:::assign_read_ends(w$reads, w$set, k = 6L, end_length = 100L, chimeras = "set_aside")
  expect_identical(rep$reason, a$reason)
})

test_that("a sample sheet names the sample of each pair of a dual-barcode design", {
  set.seed(3802)
  bcs <- c(bcA = de_dna(24), bcB = de_dna(24), bcC = de_dna(24))
  f5 <- de_dna(10)
  front3 <- de_dna(14)
  rear3 <- de_dna(14)
  # a PCR-like design: another primer at each end
  set <- sassy_barcodes(c(bcs, bcs), flank5 = f5, flank3 = rep(c(front3, rear3), each = 3L),
    ends = rep(c("front", "rear"), each = 3L))
  sheet <- data.frame(
    front = c("bcA", "bcB", "bcC", "bcA"),
    rear = c("bcB", "bcA", NA, "bcA"),
    sample = c("S1", "S2", "S3", "S1")
  )
  n <- 48
  fb <- sample(names(bcs), n, replace = TRUE)
  rb <- sample(names(bcs), n, replace = TRUE)
  minus <- seq_len(n) %% 2L == 0L
  reads <- vapply(seq_len(n), function(i) {
    front <- paste0(f5, de_mutate(bcs[[fb[i]]], sample(0:2, 1L)), front3)
    rear <- de_rc(paste0(f5, bcs[[rb[i]]], rear3))
    read <- switch(i %% 6L + 1L,
      paste0(de_dna(12), front, de_dna(300), rear, de_dna(12)),
      paste0(de_dna(12), front, de_dna(300)),
      paste0(de_dna(300), rear, de_dna(12)),
      de_dna(320),
      paste0(de_dna(12), front, de_dna(300), rear, de_dna(12)),
      paste0(de_dna(12), front, de_dna(300), rear, de_dna(12))
    )
    if (minus[i]) de_rc(read) else read
  }, "")
  fq <- de_fastq(reads)
  dir <- withr::local_tempdir()
  res <- sassy_demultiplex_fastx(fq, set, output = file.path(dir, "{name}.fastq"), k = 6L, ends = 120L,
    samples = sheet, reason_files = TRUE, report = file.path(dir, "r.tsv"))
  expect_identical(res$name, c("S1", "S2", "S3", "pair_not_in_sample_sheet", "flank_without_barcode", "no_hit", "ambiguous"))
  got <- de_outputs(res)
  ex <- de_expected(reads, set, 6L, 120L, "samples", samples = sheet, reason_files = TRUE,
    flanks = de_flanks(f5, c(front3, rear3), 24L))
  where <- rep(names(got), lengths(got))[match(paste0("r", seq_along(reads)), unlist(got))]
  expect_identical(where, ex$output)
  expect_identical(sort(unlist(got, use.names = FALSE)), sort(paste0("r", seq_len(n))))
  # the pairs of the sheet, whichever strand was read
  full <- seq_len(n) %% 6L %in% c(0L, 4L, 5L)
  truth <- ifelse(fb == "bcA" & rb == "bcB", "S1", ifelse(fb == "bcB" & rb == "bcA", "S2",
    ifelse(fb == "bcC", "S3", ifelse(fb == "bcA" & rb == "bcA", "S1", "pair_not_in_sample_sheet"))))
  expect_identical(where[full], truth[full])
  rep <- utils::read.delim(file.path(dir, "r.tsv"), stringsAsFactors = FALSE)
  expect_identical(rep$orientation[full], ifelse(minus, "-", "+")[full])
  expect_identical(rep$orientation, ex$ref$orientation)
  # policy = "samples" is implied by `samples`, and can be said
  res2 <- sassy_demultiplex_fastx(fq, set, output = file.path(dir, "s2", "{name}.fastq"), k = 6L, ends = 120L,
    samples = sheet, policy = "samples")
  expect_identical(res2$records[1:3], res$records[1:3])
  expect_identical(res2$records[[4]], sum(res$records[4:6]))
})

test_that("trim = TRUE cuts both ends: up to the front hit's end and from the rear hit's start", {
  set.seed(3803)
  bcs <- c(a = de_dna(20), b = de_dna(20))
  f5 <- de_dna(10)
  f3 <- de_dna(10)
  set <- sassy_barcodes(bcs, flank5 = f5, flank3 = f3)
  site <- paste0(f5, bcs[["a"]], f3) # 40 letters
  insert <- de_dna(200)
  pre <- "ACGTACGTAC"
  post <- "GGCCTTAAGG"
  reads <- c(
    r1 = paste0(pre, site, insert, de_rc(site), post), # both ends
    r2 = de_rc(paste0(pre, site, insert, de_rc(site), post)), # the same read, reverse
    r3 = paste0(pre, site, insert), # front only
    r4 = paste0(insert, de_rc(site), post), # rear only
    r5 = paste0(pre, site, "TTTTTGGGGG") # short: one site, both ends find it
  )
  qual <- vapply(nchar(reads), function(n) paste(rep_len(c("A", "B", "C", "D", "E"), n), collapse = ""), "")
  fq <- withr::local_tempfile(fileext = ".fastq")
  writeLines(paste0("@", names(reads), "\n", reads, "\n+\n", qual), fq)
  dir <- withr::local_tempdir()
  res <- sassy_demultiplex_fastx(fq, set, output = file.path(dir, "{name}.fastq"), k = 2L, ends = 80L, trim = TRUE)
  expect_identical(res$records, c(5, 0, 0, 0))
  a <- sassy_read_fastx(res$path[[1]])
  expect_identical(a$name, names(reads))
  expect_identical(a$sequence, c(insert, de_rc(insert), insert, insert, "TTTTTGGGGG"))
  # the qualities cut at the same letters: r1 keeps letters 51 to 250
  keep <- function(i, from, to) substr(qual[[i]], from, to)
  expect_identical(a$quality, c(keep(1, 51, 250), keep(2, 51, 250), keep(3, 51, 250), keep(4, 1, 200), keep(5, 51, 60)))
})

test_that("bare named patterns with a policy are demultiplexed by both ends", {
  set.seed(3804)
  bcs <- c(x = de_dna(18), y = de_dna(18))
  reads <- c(
    paste0(de_dna(10), bcs[["x"]], de_dna(200), de_rc(bcs[["x"]]), de_dna(10)),
    paste0(de_dna(10), bcs[["x"]], de_dna(200), de_dna(10)),
    paste0(de_dna(10), bcs[["x"]], de_dna(200), de_rc(bcs[["y"]]), de_dna(10)),
    de_dna(230)
  )
  fq <- de_fastq(reads)
  dir <- withr::local_tempdir()
  res <- sassy_demultiplex_fastx(fq, bcs, output = file.path(dir, "{name}.fastq"), k = 2L, ends = 60L,
    policy = "both", reason_files = TRUE)
  expect_identical(res$name, c("x", "y", "ends_disagree", "one_end_only", "no_hit", "ambiguous"))
  expect_identical(de_outputs(res), list(x = "r1", y = character(), ends_disagree = "r3",
    one_end_only = "r2", no_hit = "r4", ambiguous = character()))
  # without a policy: today's single assignment, the same reads
  single <- sassy_demultiplex_fastx(fq, bcs, output = file.path(dir, "s", "{name}.fastq"), k = 2L, ends = 60L)
  expect_identical(single$name, c("x", "y", "unassigned", "ambiguous"))
  expect_identical(single$records, c(2, 0, 1, 1))
})

test_that("the both-ends arguments are checked", {
  w <- de_native()
  fq <- de_fastq(w$reads[1:4])
  dir <- withr::local_tempdir()
  out <- file.path(dir, "{name}.fastq")
  dm <- function(...) sassy_demultiplex_fastx(fq, w$set, output = out, k = 4L, ...)
  expect_error(dm(policy = "any"), class = "ducksassy_input_error")
  expect_error(dm(policy = "samples"), class = "ducksassy_input_error")
  expect_error(dm(ends = c(100, 50)), class = "ducksassy_input_error")
  expect_error(dm(ends = 0), class = "ducksassy_input_error")
  expect_error(dm(chimeras = "cut"), class = "ducksassy_input_error")
  # chimeras are looked for by both ends only
  expect_error(sassy_demultiplex_fastx(fq, c(x = "ACGTACGTAC"), output = out, chimeras = "set_aside"),
    class = "ducksassy_input_error")
  expect_error(dm(reason_files = NA), class = "ducksassy_input_error")
  expect_error(dm(samples = data.frame(front = "a", rear = NA, sample = "S"), policy = "both"), class = "ducksassy_input_error")
  expect_error(dm(samples = data.frame(front = "zz", rear = NA, sample = "S")), class = "ducksassy_input_error")
  expect_error(dm(samples = data.frame(front = "a", rear = "zz", sample = "S")), class = "ducksassy_input_error")
  expect_error(dm(samples = data.frame(front = c("a", "a"), rear = c("b", "b"), sample = c("S", "T"))), class = "ducksassy_input_error")
  expect_error(dm(samples = data.frame(x = 1)), class = "ducksassy_input_error")
  expect_error(dm(samples = data.frame(front = "a", rear = NA, sample = "chimeric")), class = "ducksassy_sample_name_error")
  expect_error(dm(samples = data.frame(front = "a", rear = NA, sample = "s/1")), class = "ducksassy_sample_name_error")
  expect_error(sassy_demultiplex_fastx(fq, c(no_hit = "ACGTACGTAC"), output = out, policy = "either"),
    class = "ducksassy_sample_name_error")
  # mates whose names are not the reads' (here: another record order)
  rev_fq <- file.path(tempdir(), "mates-reversed.fastq")
  recs <- sassy_read_fastx(fq)
  writeLines(paste0("@", rev(recs$name), "\n", rev(recs$sequence), "\n+\n", strrep("I", nchar(rev(recs$sequence)))), rev_fq)
  withr::defer(unlink(rev_fq))
  expect_error(sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, "{name}_R{mate}.fastq"), mates = rev_fq),
    class = "ducksassy_file_error")
  # nothing was written
  expect_identical(list.files(dir), character())
})

test_that("real reads of a rapid kit (qcat-examples) go where assign_read_ends() says", {
  f <- "/usr/share/doc/qcat/examples/qcat/test/data/barcode_1k.fastq.gz"
  skip_if_not(file.exists(f), "qcat-examples is not installed")
  kit <- sassy_kit("SQK-RBK001")
  dir <- withr::local_tempdir()
  res <- sassy_demultiplex_fastx(f, kit, output = file.path(dir, "{name}.fastq.gz"), report = file.path(dir, "r.tsv"))
  reads <- sassy_read_fastx(f)
  e <- ducksassy:::assign_read_ends(reads$sequence, kit, end_length = 250L)
  expected <- table(factor(ifelse(is.na(e$sample), as.character(e$status), e$sample), levels = res$name))
  expect_identical(res$records, as.double(expected))
  rep <- utils::read.delim(file.path(dir, "r.tsv"), stringsAsFactors = FALSE)
  expect_identical(rep$sample, e$sample)
  expect_identical(rep$orientation, e$orientation)
  expect_identical(rep$reason, e$reason)
  expect_identical(rep$status, as.character(e$status))
  # most reads carry their barcode (the header's truebc)
  truth <- sub("^.*truebc=([0-9]+).*$", "\\1", reads$description)
  ok <- !is.na(e$sample) & sprintf("%02d", as.integer(truth)) == sub("^.*?([0-9]+)$", "\\1", e$sample)
  expect_gt(mean(ok), 0.8)
})

test_that("a letter outside the alphabet in a read's middle is an error of its record and position when chimeras are searched", {
  set.seed(3805)
  bcs <- c(x = de_dna(18), y = de_dna(18))
  bad <- paste0(de_dna(10), bcs[["x"]], de_dna(171), "N", de_dna(199))
  fq <- de_fastq(c(paste0(bcs[["y"]], de_dna(300)), bad))
  dir <- withr::local_tempdir()
  dm <- function(sub, ...) {
    sassy_demultiplex_fastx(fq, bcs, output = file.path(dir, sub, "{name}.fastq"), k = 1L, alphabet = "dna", ...)
  }
  # the ends alone do not reach it
  expect_identical(dm("a", ends = 50L, policy = "either")$records, c(1, 1, 0, 0))
  err <- tryCatch(dm("b", ends = 50L, policy = "either", chimeras = "set_aside"), error = identity)
  expect_s3_class(err, "ducksassy_input_error")
  # the same error as the search of the whole reads
  whole <- tryCatch(dm("c"), error = identity)
  expect_s3_class(whole, "ducksassy_input_error")
  expect_identical(conditionMessage(err), conditionMessage(whole))
  expect_match(conditionMessage(err), "200")
})

test_that("several inputs and gzip outputs give the records of one plain run", {
  w <- de_native()
  dir <- withr::local_tempdir()
  one <- de_fastq(w$reads, file.path(dir, "all.fastq"))
  a <- de_fastq(w$reads[1:25], file.path(dir, "a.fastq"), names = paste0("r", 1:25))
  b <- de_fastq(w$reads[26:60], file.path(dir, "b.fastq"), names = paste0("r", 26:60))
  plain <- sassy_demultiplex_fastx(one, w$set, output = file.path(dir, "p", "{name}.fastq"), k = 6L, ends = 100L,
    chimeras = "set_aside", reason_files = TRUE, trim = TRUE)
  gz <- withr::with_options(list(ducksassy.fastx_batch_records = 7L),
    sassy_demultiplex_fastx(c(a, b), w$set, output = file.path(dir, "g", "{name}.fastq.gz"), k = 6L, ends = 100L,
      chimeras = "set_aside", reason_files = TRUE, trim = TRUE, threads = 2L)
  )
  expect_identical(gz$name, plain$name)
  expect_identical(gz$records, plain$records)
  for (i in seq_along(plain$path)) {
    expect_identical(sassy_read_fastx(gz$path[[i]]), sassy_read_fastx(plain$path[[i]]))
  }
})

test_that("a DNA search looks for the flanks' slot of N as an IUPAC one", {
  w <- de_native()
  fq <- de_fastq(w$reads)
  dir <- withr::local_tempdir()
  run <- function(alphabet) {
    sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, alphabet, "{name}.fastq"), k = 6L, ends = 100L,
      alphabet = alphabet, reason_files = TRUE)
  }
  dna <- run("dna")
  expect_identical(dna$records, run("iupac")$records)
  # the planted flanks around a barcode of no sample are found
  kind <- rep(c("both", "front", "rear", "disagree", "none", "flank", "short", "chimera"), length.out = 60)
  got <- de_outputs(dna)
  expect_setequal(got$flank_without_barcode, paste0("r", which(kind == "flank")))
  expect_identical(ducksassy:::assign_read_ends(w$reads, w$set, k = 6L, end_length = 100L,
    alphabet = "dna")$reason[kind == "flank"], rep("flank without barcode", sum(kind == "flank")))
})
