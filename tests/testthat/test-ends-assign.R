# Both ends of a read (issue 38): combine_ends() on hand-made assignments,
# and assign_read_ends() on planted reads of known barcodes and orientation.

end_assignment <- function(pattern, pattern_name, status, strand = "+") {
  n <- length(pattern)
  data.frame(
    record = seq_len(n), name = NA_character_, pattern = pattern, pattern_name = pattern_name,
    cost = ifelse(is.na(pattern), NA_integer_, 1L), start = ifelse(is.na(pattern), NA_integer_, 5L),
    end = ifelse(is.na(pattern), NA_integer_, 30L), strand = ifelse(is.na(pattern), NA_character_, strand),
    other_cost = NA_integer_, status = factor(status, levels = c("assigned", "ambiguous", "unassigned")),
    stringsAsFactors = FALSE
  )
}

test_that("combine_ends() applies each policy and gives a reason for every unassigned read", {
  # reads: 1 both a; 2 front a only; 3 a / b; 4 none; 5 front ambiguous, rear a
  front <- end_assignment(c(1L, 1L, 1L, NA, 2L), c("a", "a", "a", NA, "b"),
    c("assigned", "assigned", "assigned", "unassigned", "ambiguous"))
  rear <- end_assignment(c(1L, NA, 2L, NA, 1L), c("a", NA, "b", NA, "a"),
    c("assigned", "unassigned", "assigned", "unassigned", "assigned"), strand = "-")
  e <- ducksassy:::combine_ends(front, rear, policy = "either")
  expect_identical(e$sample, c("a", "a", NA, NA, NA))
  expect_identical(as.character(e$status), c("assigned", "assigned", "unassigned", "unassigned", "ambiguous"))
  expect_identical(e$reason, c(NA, NA, "ends disagree", "no hit", "ambiguous"))
  expect_identical(e$front_barcode, c("a", "a", "a", NA, NA))
  expect_identical(e$rear_barcode, c("a", NA, "b", NA, "a"))
  expect_identical(e$rear_strand, c("-", NA, "-", NA, "-"))
  b <- ducksassy:::combine_ends(front, rear, policy = "both")
  expect_identical(b$sample, c("a", NA, NA, NA, NA))
  expect_identical(b$reason, c(NA, "one end only", "ends disagree", "no hit", "ambiguous"))
  sheet <- data.frame(front = c("a", "a"), rear = c("a", "b"), sample = c("s_aa", "s_ab"))
  s <- ducksassy:::combine_ends(front, rear, policy = "samples", samples = sheet)
  expect_identical(s$sample, c("s_aa", NA, "s_ab", NA, NA))
  expect_identical(s$reason, c(NA, "pair not in sample sheet", NA, "no hit", "ambiguous"))
  # a single-ended sheet row (rear NA) takes the front barcode alone
  s1 <- ducksassy:::combine_ends(front, rear, policy = "samples",
    samples = data.frame(front = "a", rear = NA_character_, sample = "s_a"))
  expect_identical(s1$sample, c("s_a", "s_a", "s_a", NA, NA))
  expect_error(ducksassy:::combine_ends(front, rear, policy = "samples", samples = data.frame(x = 1)),
    class = "ducksassy_input_error")
})

test_that("assign_read_ends() finds each end's barcode and the read's orientation", {
  set.seed(3838)
  dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, replace = TRUE), collapse = "")
  rc <- function(x) chartr("ACGT", "TGCA", paste(rev(strsplit(x, "")[[1L]]), collapse = ""))
  # a PCR-like design: the front primer differs from the rear one
  bcs <- c(b1 = dna(24), b2 = dna(24), b3 = dna(24))
  f5 <- dna(10)
  front3 <- dna(16)
  rear3 <- dna(16)
  set <- sassy_barcodes(c(bcs, bcs), flank5 = f5, flank3 = rep(c(front3, rear3), each = 3L),
    ends = rep(c("front", "rear"), each = 3L))
  n <- 30
  fb <- sample(names(bcs), n, replace = TRUE)
  rb <- sample(names(bcs), n, replace = TRUE)
  minus <- seq_len(n) %% 3L == 0L
  reads <- vapply(seq_len(n), function(i) {
    read <- paste0(dna(15), f5, bcs[[fb[i]]], front3, dna(600), rc(paste0(f5, bcs[[rb[i]]], rear3)), dna(15))
    if (minus[i]) rc(read) else read
  }, "")
  sheet <- expand.grid(front = names(bcs), rear = names(bcs), stringsAsFactors = FALSE)
  sheet$sample <- paste0(sheet$front, "-", sheet$rear)
  e <- ducksassy:::assign_read_ends(reads, set, k = 4L, end_length = 150L, policy = "samples", samples = sheet)
  # on a reverse read, the rear construct comes first
  expect_identical(e$front_barcode, ifelse(minus, rb, fb))
  expect_identical(e$rear_barcode, ifelse(minus, fb, rb))
  expect_identical(e$orientation, ifelse(minus, "-", "+"))
  expect_identical(as.character(e$status), rep("assigned", n))
  # the sample of the molecule, whichever strand was read
  expect_identical(e$sample, paste0(fb, "-", rb))
})

# ---------------------------------------------------------------------------
# The verbs' both-ends mode against the truth of a generator: reads built
# with chosen barcodes at chosen ends, strands and edits, and the expected
# sample, reason and orientation of each written down by the generator,
# not computed by the package.

sim_dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, replace = TRUE), collapse = "")
sim_rc <- function(x) chartr("ACGT", "TGCA", paste(rev(strsplit(x, "")[[1L]]), collapse = ""))
# `n` substitutions at distinct positions of the middle of `x`
sim_edit <- function(x, n) {
  if (n == 0L) return(x)
  ch <- strsplit(x, "")[[1L]]
  at <- sample(4:(length(ch) - 3L), n)
  for (i in at) ch[[i]] <- setdiff(c("A", "C", "G", "T"), ch[[i]])[[sample(3L, 1L)]]
  paste(ch, collapse = "")
}

# A symmetric design (native kits): the same flanked barcode at each end.
# Each read: a barcode at the front (or none), one at the rear (or none),
# 0-2 edits in each barcode, the read from either strand.
sim_symmetric <- function(n, seed) {
  withr::local_seed(seed)
  bcs <- c(bc1 = sim_dna(20), bc2 = sim_dna(20), bc3 = sim_dna(20), bc4 = sim_dna(20))
  f5 <- sim_dna(22)
  f3 <- sim_dna(22)
  # (error_rate 0.15: the flanks searched without barcode have
  # ceiling(0.75 * 0.15 * 44) = 5 edits together, floor(0.15 * 22 / 2) = 1
  # alone)
  set <- sassy_barcodes(bcs, flank5 = f5, flank3 = f3, error_rate = 0.15)
  kind <- rep_len(c("both", "front", "rear", "differ", "none", "both", "front"), n)
  truth <- data.frame(front = NA_character_, rear = NA_character_, either = NA_character_,
    both = NA_character_, reason_either = NA_character_, reason_both = NA_character_,
    stringsAsFactors = FALSE)[rep(1L, n), ]
  reads <- character(n)
  for (i in seq_len(n)) {
    b <- sample(names(bcs), 2L)
    fb <- switch(kind[[i]], both = b[[1L]], front = b[[1L]], rear = NA, differ = b[[1L]], none = NA)
    rb <- switch(kind[[i]], both = b[[1L]], front = NA, rear = b[[2L]], differ = b[[2L]], none = NA)
    site <- function(x) if (is.na(x)) sim_dna(64) else paste0(f5, sim_edit(bcs[[x]], sample(0:2, 1L)), f3)
    read <- paste0(sim_dna(20), site(fb), sim_dna(300), sim_rc(site(rb)), sim_dna(20))
    if (i %% 2L == 0L) read <- sim_rc(read)
    reads[[i]] <- read
    truth$either[[i]] <- switch(kind[[i]], both = fb, front = fb, rear = rb, differ = NA, none = NA)
    truth$both[[i]] <- switch(kind[[i]], both = fb, NA)
    truth$reason_either[[i]] <- switch(kind[[i]], differ = "ends disagree", none = "no hit", NA)
    truth$reason_both[[i]] <- switch(kind[[i]], differ = "ends disagree", none = "no hit",
      front = "one end only", rear = "one end only", NA)
    # as the read is (a reverse read has the rear site first)
    truth$front[[i]] <- if (i %% 2L == 0L) rb else fb
    truth$rear[[i]] <- if (i %% 2L == 0L) fb else rb
  }
  names(reads) <- paste0("read", seq_len(n))
  list(reads = reads, set = set, truth = truth, bcs = bcs, f5 = f5, f3 = f3)
}

test_that("policies 'either' and 'both' give the generator's sample and reason", {
  sim <- sim_symmetric(42L, 381L)
  t <- sim$truth
  e <- sassy_assign(sim$reads, sim$set, k = 6L, ends = 120L)
  expect_s3_class(e, "ducksassy_assignment")
  expect_identical(e$front_barcode, t$front)
  expect_identical(e$rear_barcode, t$rear)
  expect_identical(e$sample, t$either)
  expect_identical(e$reason, t$reason_either)
  expect_identical(levels(e$status), c("assigned", "ambiguous", "unassigned", "chimeric"))
  expect_identical(as.character(e$status), ifelse(is.na(t$either), "unassigned", "assigned"))
  # a symmetric set does not tell the strand
  expect_true(all(is.na(e$orientation)))
  b <- sassy_assign(sim$reads, sim$set, k = 6L, ends = 120L, policy = "both")
  expect_identical(b$sample, t$both)
  expect_identical(b$reason, t$reason_both)
  # the columns before `front_barcode` are those of the deciding end
  flanked <- stats::setNames(paste0(sim$f5, sim$bcs, sim$f3), names(sim$bcs))
  one_front <- sassy_assign(sim$reads, flanked, k = 6L, ends = c(120L, 0L))
  dec <- !is.na(t$front)
  expect_identical(e$start[dec], one_front$start[dec])
  expect_identical(e$front_start, one_front$start)
  expect_identical(e$front_cost, one_front$cost)
  expect_identical(names(e)[seq_len(11L)], c("record", "name", "pattern", "pattern_name", "cost",
    "barcode_cost", "start", "end", "strand", "other_cost", "front_barcode"))
  expect_identical(names(e)[-seq_len(10L)], c(
    paste0("front_", c("barcode", "cost", "barcode_cost", "start", "end", "strand")),
    paste0("rear_", c("barcode", "cost", "barcode_cost", "start", "end", "strand")),
    "orientation", "sample", "status", "reason"))
})

# A dual design (PCR kits): a front primer and a different rear primer,
# a barcode in each; the pair names the sample.
sim_dual <- function(n, seed) {
  withr::local_seed(seed)
  bcs <- c(bcA = sim_dna(20), bcB = sim_dna(20), bcC = sim_dna(20))
  f5 <- sim_dna(20)
  front3 <- sim_dna(20)
  rear3 <- sim_dna(20)
  set <- sassy_barcodes(c(bcs, bcs), flank5 = f5, flank3 = rep(c(front3, rear3), each = 3L),
    ends = rep(c("front", "rear"), each = 3L))
  sheet <- data.frame(front = c("bcA", "bcA", "bcB", "bcC"), rear = c("bcB", "bcC", "bcA", NA),
    sample = c("S1", "S2", "S3", "S4"))
  pairs <- list(c("bcA", "bcB"), c("bcA", "bcC"), c("bcB", "bcA"), c("bcC", "bcA"), c("bcC", NA),
    c("bcB", "bcB"), c(NA, NA))
  truth <- data.frame(sample = c("S1", "S2", "S3", "S4", "S4", NA, NA),
    reason = c(NA, NA, NA, NA, NA, "pair not in sample sheet", "no hit"), stringsAsFactors = FALSE)
  which <- rep_len(seq_along(pairs), n)
  minus <- rep_len(c(FALSE, FALSE, TRUE), n)
  reads <- vapply(seq_len(n), function(i) {
    p <- pairs[[which[[i]]]]
    fs <- if (is.na(p[[1L]])) sim_dna(60) else paste0(f5, sim_edit(bcs[[p[[1L]]]], sample(0:1, 1L)), front3)
    rs <- if (is.na(p[[2L]])) sim_dna(60) else paste0(f5, sim_edit(bcs[[p[[2L]]]], sample(0:1, 1L)), rear3)
    read <- paste0(sim_dna(15), fs, sim_dna(250), sim_rc(rs), sim_dna(15))
    if (minus[[i]]) sim_rc(read) else read
  }, "")
  orient <- ifelse(minus, "-", "+")
  orient[which == 7L] <- NA
  list(reads = reads, set = set, sheet = sheet, sample = truth$sample[which],
    reason = truth$reason[which], orientation = orient)
}

test_that("a sample sheet names the sample of each pair, whichever strand was read", {
  sim <- sim_dual(35L, 3801L)
  x <- sassy_assign(sim$reads, sim$set, k = 6L, ends = 110L, samples = sim$sheet)
  expect_identical(x$sample, sim$sample)
  expect_identical(x$reason, sim$reason)
  expect_identical(x$orientation, sim$orientation)
  expect_identical(as.character(x$status), ifelse(is.na(sim$sample), "unassigned", "assigned"))
  # policy = "samples" is the default with a sheet
  y <- sassy_assign(sim$reads, sim$set, k = 6L, ends = 110L, policy = "samples", samples = sim$sheet)
  expect_identical(y, x)
})

test_that("a symmetric set with a sheet looks the pair up in both orders", {
  withr::local_seed(77)
  bcs <- c(a = sim_dna(20), b = sim_dna(20), c = sim_dna(20))
  f5 <- sim_dna(20)
  f3 <- sim_dna(20)
  # (error_rate 0.15: the flanks searched without barcode have
  # ceiling(0.75 * 0.15 * 44) = 5 edits together, floor(0.15 * 22 / 2) = 1
  # alone)
  set <- sassy_barcodes(bcs, flank5 = f5, flank3 = f3, error_rate = 0.15)
  site <- function(x) paste0(f5, bcs[[x]], f3)
  mk <- function(x, y) paste0(sim_dna(10), site(x), sim_dna(200), sim_rc(site(y)), sim_dna(10))
  reads <- c(mk("a", "b"), mk("b", "a"), mk("a", "c"), mk("c", "a"))
  sheet <- data.frame(front = c("a", "a", "c"), rear = c("b", "c", "a"), sample = c("ab", "ac", "ca"))
  x <- sassy_assign(reads, set, k = 5L, ends = 80L, samples = sheet)
  # (b, a) is not in the sheet, but (a, b) is; (a, c) and (c, a) both are:
  # the strand is not known, so those two reads are ambiguous
  expect_identical(x$sample, c("ab", "ab", NA, NA))
  expect_identical(x$reason, c(NA, NA, "ambiguous", "ambiguous"))
  expect_identical(as.character(x$status), c("assigned", "assigned", "ambiguous", "ambiguous"))
})

# Simulated reads of which 1 and 2 have bc3's site after their letter 230
# (read 2 as its reverse complement): chimeras.
sim_chimeras <- function() {
  sim <- sim_symmetric(14L, 9L)
  withr::local_seed(10)
  sim$site <- paste0(sim$f5, sim$bcs[["bc3"]], sim$f3)
  mid <- function(x, s) paste0(substr(x, 1L, 230L), s, substring(x, 231L))
  sim$reads[[1L]] <- mid(sim$reads[[1L]], sim$site)
  sim$reads[[2L]] <- mid(sim$reads[[2L]], sim_rc(sim$site))
  sim
}

test_that("a barcode in the middle of a read is chimeric with chimeras = 'set_aside'", {
  sim <- sim_chimeras()
  site <- sim$site
  # reads 1 and 2 have a site in their middle; read 3 gets one just inside
  # its front end, not the middle
  r <- sim$reads
  r[[3L]] <- paste0(substr(r[[3L]], 1L, 90L), site, substring(r[[3L]], 91L))
  off <- sassy_assign(r, sim$set, k = 6L, ends = 120L)
  on <- sassy_assign(r, sim$set, k = 6L, ends = 120L, chimeras = "set_aside")
  expect_identical(on$reason[1:2], c("chimeric", "chimeric"))
  expect_identical(as.character(on$status[1:2]), c("chimeric", "chimeric"))
  expect_identical(on$sample[1:2], c(NA_character_, NA_character_))
  expect_identical(on$reason[-(1:2)], off$reason[-(1:2)])
  expect_identical(on$sample[-(1:2)], off$sample[-(1:2)])
  expect_false(any(off$reason %in% "chimeric"))
  # a read no longer than 2 * ends has no middle
  short <- sassy_assign(r[[1L]], sim$set, k = 6L, ends = 300L, chimeras = "set_aside")
  expect_false(identical(short$reason, "chimeric"))
})

test_that("a flank with a barcode of no sample is 'flank without barcode'", {
  sim <- sim_symmetric(14L, 19L)
  withr::local_seed(20)
  r <- sim$reads
  none <- which(sim$truth$reason_either %in% "no hit")
  expect_true(length(none) >= 2L)
  # the flanks around a barcode that is none of the set's
  r[[none[[1L]]]] <- paste0(sim_dna(20), sim$f5, sim_dna(20), sim$f3, substring(r[[none[[1L]]]], 80L))
  # the adapter without barcode (flank5 then flank3), with two edits, on
  # the reverse strand, at the rear
  r[[none[[2L]]]] <- paste0(r[[none[[2L]]]], sim_rc(sim_edit(paste0(sim$f5, sim$f3), 2L)), sim_dna(10))
  x <- sassy_assign(r, sim$set, k = 6L, ends = 120L)
  want <- sim$truth$reason_either
  want[none[1:2]] <- "flank without barcode"
  expect_identical(x$reason, want)
  # one flank alone counts with few edits only: floor(0.15 * 22 / 2) = 1
  alone <- c(paste0(sim_dna(20), sim_edit(sim$f5, 3L), sim_dna(300)),
    paste0(sim_dna(300), sim_rc(sim_edit(sim$f3, 1L)), sim_dna(20)))
  expect_identical(sassy_assign(alone, sim$set, k = 6L, ends = 120L)$reason, c("no hit", "flank without barcode"))
  # bare patterns have no flanks: "no hit"
  y <- sassy_assign(r, sim$set$barcode, k = 3L, ends = 120L, policy = "either")
  expect_identical(y$reason[none[1:2]], c("no hit", "no hit"))
})

test_that("a hit with more barcode edits than the cap names no barcode", {
  # barcodes of 10 letters between flanks of 14: cap ceiling(0.45 * 10) = 5
  f5 <- "GATTACAGATTACA"
  f3 <- "TGTAATCTGTAATC"
  set <- sassy_barcodes(c(b1 = "ACGTACGTAC", b2 = "TTGGCCAATT"), flank5 = f5, flank3 = f3)
  withr::local_seed(7)
  insert <- sim_dna(300)
  # read 1: b1 itself; read 2: a slot of ten C between the flanks: b1 has
  # three C, b2 two, so at least 7 and 8 of their letters are edits
  reads <- c(
    paste0(f5, "ACGTACGTAC", f3, insert),
    paste0(f5, strrep("C", 10L), f3, insert)
  )
  x <- sassy_assign(reads, set, k = 11L, ends = 60L)
  expect_identical(x$front_barcode, c("b1", NA))
  expect_identical(x$front_barcode_cost[[1L]], 0L)
  expect_gt(x$front_barcode_cost[[2L]], 5L)
  expect_identical(x$reason, c(NA, "flank without barcode"))
  # the same searches with a cap above those edits (error_rate 0.9: cap 9)
  # name b1 for read 2: only the cap tells it apart
  loose <- sassy_barcodes(c(b1 = "ACGTACGTAC", b2 = "TTGGCCAATT"), flank5 = f5, flank3 = f3,
    error_rate = 0.9)
  y <- sassy_assign(reads, loose, k = 11L, ends = 60L)
  expect_identical(y$front_barcode, c("b1", "b1"))
  expect_identical(y$front_barcode_cost, x$front_barcode_cost)
  # the demultiplexer routes them as the assignment calls them
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fastq")
  writeLines(paste0("@r", 1:2, "\n", reads, "\n+\n", strrep("I", nchar(reads))), fq)
  res <- sassy_demultiplex_fastx(fq, set, k = 11L, ends = 60L, reason_files = TRUE,
    output = file.path(dir, "{name}.fastq"))
  n <- stats::setNames(res$records, res$name)
  expect_identical(n[c("b1", "b2", "flank_without_barcode")], c(b1 = 1, b2 = 0, flank_without_barcode = 1))
  expect_identical(sassy_read_fastx(res$path[res$name == "flank_without_barcode"])$name, "r2")
})

test_that("the margin applies to the barcode's edits as well as to the costs", {
  # b2's flank5 differs from b1's by 4 letters; the read has b1's flank5
  # and b2's barcode: b1's pattern costs 2 (both on its barcode), b2's 4
  # (none on its barcode). By the costs alone b1 would be assigned.
  f5a <- "GATTACAGATTACA"
  f5b <- "GATTTCAGTTTACT"
  f3 <- "TGTAATCTGTAATC"
  set <- sassy_barcodes(c(b1 = "ACGTACGTAC", b2 = "ACGAACGTTC"), flank5 = c(f5a, f5b), flank3 = f3,
    ends = "front")
  withr::local_seed(8)
  reads <- c(paste0(f5a, "ACGAACGTTC", f3, sim_dna(300)), paste0(f5a, "ACGTACGTAC", f3, sim_dna(300)))
  x <- sassy_assign(reads, set, k = 6L, ends = 60L)
  expect_identical(x$front_cost, c(2L, 0L))
  expect_identical(x$front_barcode_cost, c(2L, 0L))
  expect_identical(x$reason, c("ambiguous", NA))
  expect_identical(x$sample, c(NA, "b1"))
  # margin 1: read 2's runner-up (b2: cost 6, 2 edits on its barcode) is
  # still too far on both
  expect_identical(sassy_assign(reads, set, k = 6L, ends = 60L, margin = 1L)$sample, c(NA, "b1"))
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fastq")
  writeLines(paste0("@r", 1:2, "\n", reads, "\n+\n", strrep("I", nchar(reads))), fq)
  res <- sassy_demultiplex_fastx(fq, set, k = 6L, ends = 60L, output = file.path(dir, "{name}.fastq"))
  expect_identical(sassy_read_fastx(res$path[res$name == "ambiguous"])$name, "r1")
  expect_identical(sassy_read_fastx(res$path[res$name == "b1"])$name, "r2")
})

test_that("with overhang a set's patterns hang over the reads' own ends", {
  sim <- sim_symmetric(14L, 29L)
  r <- sim$reads
  # read 1 (a forward read with a barcode at both ends) starts inside its
  # front construct: its 20 random letters and 8 of flank5 cut off
  expect_false(is.na(sim$truth$front[[1L]]))
  r[[1L]] <- substring(r[[1L]], 29L)
  plain <- sassy_assign(r, sim$set, k = 6L, ends = 120L)
  over <- sassy_assign(r, sim$set, k = 6L, ends = 120L, overhang = 0.5)
  # 8 missing letters cost 8 > k without overhang, 4 with it (plus the
  # barcode's own edits: the flanks have none)
  expect_identical(over$front_barcode[[1L]], sim$truth$front[[1L]])
  expect_identical(over$front_cost[[1L]], 4L + over$front_barcode_cost[[1L]])
  expect_identical(plain$front_barcode[[1L]], NA_character_)
  # the other reads' ends are called without overhang: the same
  expect_identical(over[-1L, ], plain[-1L, ], ignore_attr = TRUE)
  # a hit hanging over the inner edge of an end is none: the construct cut
  # by the end's edge (its first 60 of 120 letters are the read's 60..119)
  r2 <- paste0(sim_dna(90), paste0(sim$f5, sim$bcs[["bc2"]], sim$f3), sim_dna(400))
  e <- sassy_assign(r2, sim$set, k = 6L, ends = 100L, overhang = 0.5)
  expect_identical(e$front_barcode, NA_character_)
  # the demultiplexer calls as the assignment does
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fastq")
  writeLines(paste0("@", names(r), "\n", r, "\n+\n", strrep("I", nchar(r))), fq)
  res <- sassy_demultiplex_fastx(fq, sim$set, k = 6L, ends = 120L, overhang = 0.5,
    output = file.path(dir, "{name}.fastq"))
  got <- unlist(lapply(seq_len(nrow(res)), function(i) {
    stats::setNames(rep(res$name[[i]], res$records[[i]]), sassy_read_fastx(res$path[[i]])$name)
  }))
  want <- ifelse(is.na(over$sample), ifelse(over$status == "ambiguous", "ambiguous", "unassigned"), over$sample)
  expect_identical(unname(got[names(r)]), want)
})

test_that("bare patterns with a policy act as a set without flanks", {
  sim <- sim_symmetric(21L, 5L)
  bare <- stats::setNames(sim$bcs, names(sim$bcs))
  x <- sassy_assign(sim$reads, bare, k = 3L, ends = 120L, policy = "either")
  expect_s3_class(x, "ducksassy_assignment")
  expect_identical(x$sample, sim$truth$either)
  expect_identical(x$front_barcode_cost, x$front_cost)
  # without policy or samples: the one-end assignment, as before
  old <- sassy_assign(sim$reads, bare, k = 3L, ends = 120L)
  expect_false(inherits(old, "ducksassy_assignment"))
  expect_identical(levels(old$status), c("assigned", "ambiguous", "unassigned"))
  expect_false("reason" %in% names(old))
})

test_that("files, vectors and tables give the same both-ends assignment", {
  sim <- sim_dual(21L, 4242L)
  reads <- stats::setNames(sim$reads, paste0("r", seq_along(sim$reads)))
  reads[[5L]] <- paste0(substr(reads[[5L]], 1L, 200L), paste0(sim$set$flank5[[1L]], sim$set$barcode[[1L]],
    sim$set$flank3[[1L]]), substring(reads[[5L]], 201L))
  v <- sassy_assign(reads, sim$set, k = 6L, ends = 110L, samples = sim$sheet, chimeras = "set_aside")
  expect_identical(v$reason[[5L]], "chimeric")
  fa <- withr::local_tempfile(fileext = ".fa")
  writeLines(paste0(">", names(reads), "\n", reads), fa)
  f <- sassy_assign_fastx(fa, sim$set, k = 6L, ends = 110L, samples = sim$sheet, chimeras = "set_aside")
  expect_s3_class(f, "ducksassy_assignment")
  expect_identical(f$name, names(reads))
  cols <- setdiff(names(v), "record")
  expect_identical(as.list(f)[cols], as.list(v)[cols])
  if (requireNamespace("BiocParallel", quietly = TRUE)) {
    fp <- sassy_assign_fastx(fa, sim$set, k = 6L, ends = 110L, samples = sim$sheet, chimeras = "set_aside",
      BPPARAM = BiocParallel::SerialParam())
    expect_identical(fp, f)
  }
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    DBI::dbWriteTable(con, "reads", data.frame(sequence = unname(reads)))
    t <- sassy_assign_table(con, "reads", sim$set, k = 6L, ends = 110L, samples = sim$sheet,
      chimeras = "set_aside")
    cols <- setdiff(names(v), c("record", "name"))
    expect_identical(as.list(t)[cols], as.list(v)[cols], info = driver)
    # output: the rows appended to a table
    n <- sassy_assign_table(con, "reads", sim$set, k = 6L, ends = 110L, samples = sim$sheet,
      chimeras = "set_aside", output = "assigned")
    expect_identical(n, as.double(length(reads)))
    back <- DBI::dbReadTable(con, "assigned")
    expect_identical(back$sample, v$sample)
    expect_identical(back$reason, v$reason)
    expect_identical(back$status, as.character(v$status))
  }
})

test_that("the sample sheet and the mode's arguments are checked", {
  sim <- sim_dual(7L, 1L)
  expect_error(sassy_assign(sim$reads, sim$set, samples = data.frame(front = "bcA", rear = "bcZ", sample = "s")),
    class = "ducksassy_samples_error")
  err <- tryCatch(sassy_assign(sim$reads, sim$set, samples = data.frame(front = "bcQ", rear = NA, sample = "s")),
    error = identity)
  expect_s3_class(err, "ducksassy_input_error")
  expect_match(conditionMessage(err), "bcQ")
  expect_error(sassy_assign(sim$reads, sim$set,
    samples = data.frame(front = c("bcA", "bcA"), rear = c("bcB", "bcB"), sample = c("s", "t"))),
    class = "ducksassy_samples_error")
  expect_error(sassy_assign(sim$reads, sim$set, samples = list(front = "bcA")), class = "ducksassy_input_error")
  expect_error(sassy_assign(sim$reads, sim$set, policy = "samples"), class = "ducksassy_input_error")
  expect_error(sassy_assign(sim$reads, sim$set, policy = "all"), class = "ducksassy_input_error")
  expect_error(sassy_assign(sim$reads, sim$set, policy = "both", samples = sim$sheet), class = "ducksassy_input_error")
  expect_error(sassy_assign(sim$reads, sim$set, ends = c(10, 20)), class = "ducksassy_input_error")
  expect_error(sassy_assign(sim$reads, sim$set, chimeras = "split"), class = "ducksassy_input_error")
  expect_error(sassy_assign(sim$reads, c(a = "ACGTAC"), chimeras = "set_aside"), class = "ducksassy_input_error")
})

test_that("summary() counts what table() of the columns counts, and plot() draws", {
  sim <- sim_symmetric(28L, 88L)
  x <- sassy_assign(sim$reads, sim$set, k = 6L, ends = 120L, policy = "both")
  s <- summary(x)
  expect_s3_class(s, "ducksassy_assignment_summary")
  expect_identical(s$reads, nrow(x))
  tab <- table(x$sample)
  expect_identical(sort(stats::setNames(s$samples$reads, s$samples$sample)),
    sort(stats::setNames(as.integer(tab), names(tab))))
  expect_identical(s$status$reads, as.integer(table(x$status)))
  expect_identical(s$status$status, levels(x$status))
  reasons <- c("chimeric", "ambiguous", "ends disagree", "one end only", "pair not in sample sheet",
    "flank without barcode", "no hit")
  expect_identical(s$reasons$reason, reasons)
  expect_identical(s$reasons$reads, as.integer(table(factor(x$reason, levels = reasons))))
  expect_identical(sum(s$reasons$reads) + sum(s$samples$reads), nrow(x))
  expect_output(print(s), "Reads per sample")
  grDevices::pdf(NULL)
  withr::defer(grDevices::dev.off())
  expect_identical(plot(x), x)
})

test_that("qcat-examples' real reads with SQK-RBK001, policy 'either': >= 85% correct, <= 2 wrong", {
  path <- "/usr/share/doc/qcat/examples/qcat/test/data/barcode_1k.fastq.gz"
  skip_if_not(file.exists(path), "qcat-examples is not installed")
  x <- sassy_assign_fastx(path, sassy_kit("SQK-RBK001"), ends = 250L, policy = "either")
  desc <- sassy_read_fastx(path)$description
  expect_identical(length(desc), nrow(x))
  truth <- sub("^.*truebc=([0-9]+).*$", "\\1", desc)
  expect_true(all(grepl("^[0-9]+$", truth)))
  truth <- sprintf("barcode%02d", as.integer(truth))
  called <- x$sample
  correct <- sum(!is.na(called) & called == truth)
  wrong <- sum(!is.na(called) & called != truth)
  expect_gte(correct / nrow(x), 0.85)
  expect_lte(wrong, 2L)
  expect_identical(sum(!is.na(called)), sum(x$status == "assigned"))
  expect_true(all(!is.na(x$reason[is.na(called)])))
})

test_that("NA, empty and no records in the both-ends mode", {
  set <- sassy_barcodes(c(a = "ACGTACGTACGTACGT", b = "TTGCAATTGCAAGGCC"),
    flank5 = "GGTGCTGAAC", flank3 = "CCTTAACCGG")
  x <- sassy_assign(c(NA, "", "ACGT", paste0("GGTGCTGAAC", "ACGTACGTACGTACGT", "CCTTAACCGG")), set, k = 4L)
  expect_identical(x$sample, c(NA, NA, NA, "a"))
  # an NA record has NA in every column after `name`, as before
  expect_identical(as.character(x$status), c(NA, "unassigned", "unassigned", "assigned"))
  expect_identical(x$reason, c(NA, "no hit", "no hit", NA))
  y <- sassy_assign(character(), set)
  expect_identical(nrow(y), 0L)
  expect_identical(names(y), names(x))
  expect_identical(vapply(unclass(y), typeof, ""), vapply(unclass(x), typeof, ""))
  expect_identical(summary(y)$reads, 0L)
  expect_identical(nrow(summary(y)$samples), 0L)
})

test_that("paired mates: the front end in R1, the rear end at the start of R2", {
  sim <- sim_symmetric(28L, 51L)
  r <- sim$reads
  # R1: the first 200 letters of each read; R2: the last 200, read from the
  # other end (reverse complemented), as an Illumina pair of the molecule
  r1 <- unname(substr(r, 1L, 200L))
  r2 <- unname(vapply(r, function(x) sim_rc(substring(x, nchar(x) - 199L)), ""))
  dir <- withr::local_tempdir()
  fq <- function(x, mate) {
    f <- file.path(dir, paste0("r_", mate, ".fastq"))
    writeLines(paste0("@", names(r), "/", mate, "\n", x, "\n+\n", strrep("I", nchar(x))), f)
    f
  }
  f1 <- fq(r1, 1L)
  f2 <- fq(r2, 2L)
  for (policy in c("either", "both")) {
    single <- sassy_assign(r, sim$set, k = 6L, ends = 120L, policy = policy)
    paired <- sassy_assign_fastx(f1, sim$set, k = 6L, ends = 120L, policy = policy, mates = f2)
    cols <- c("front_barcode", "front_cost", "rear_barcode", "rear_cost", "orientation",
      "sample", "status", "reason")
    expect_identical(as.list(paired[cols]), as.list(single[cols]), info = policy)
    expect_identical(paired$name, paste0(names(r), "/1"))
  }
  # the demultiplexer writes each pair to its sample's two files, trimmed
  res <- sassy_demultiplex_fastx(f1, sim$set, k = 6L, ends = 120L, mates = f2, trim = TRUE,
    output = file.path(dir, "out", "{name}_{mate}.fastq"))
  expect_identical(res$name, c(names(sim$bcs), "unassigned", "ambiguous"))
  single <- sassy_assign(r, sim$set, k = 6L, ends = 120L)
  p1 <- sassy_assign_fastx(f1, sim$set, k = 6L, ends = 120L, mates = f2)
  for (i in seq_len(nrow(res))) {
    a <- sassy_read_fastx(res$path[[i]])
    b <- sassy_read_fastx(res$mate_path[[i]])
    expect_identical(sub("/1$", "", a$name), sub("/2$", "", b$name))
    want <- names(r)[(if (i <= length(sim$bcs)) single$sample %in% res$name[[i]] else
      is.na(single$sample) & as.character(single$status) == res$name[[i]])]
    expect_identical(sub("/1$", "", a$name), want, info = res$name[[i]])
    # trimmed after the front hit (R1) and after the rear hit (R2)
    if (i <= length(sim$bcs) && length(want)) {
      j <- match(want, names(r))
      cut1 <- ifelse(is.na(p1$front_barcode[j]), 0L, p1$front_end[j])
      cut2 <- ifelse(is.na(p1$rear_barcode[j]), 0L, p1$rear_end[j])
      expect_identical(a$sequence, unname(substring(r1[j], cut1 + 1L)))
      expect_identical(b$sequence, unname(substring(r2[j], cut2 + 1L)))
    }
  }
  expect_identical(sum(res$records), as.double(length(r)))
  # errors: mates without the both-ends mode, or with other record counts
  expect_error(sassy_assign_fastx(f1, sim$set$barcode, k = 3L, mates = f2), class = "ducksassy_input_error")
  short <- file.path(dir, "short.fastq")
  writeLines(paste0("@", names(r)[-1L], "/2\n", r2[-1L], "\n+\n", strrep("I", nchar(r2[-1L]))), short)
  expect_error(sassy_assign_fastx(f1, sim$set, k = 6L, ends = 120L, mates = short), class = "ducksassy_mates_error")
})

test_that("chimeras = 'split' demultiplexes each part of a chimeric read as a read", {
  sim <- sim_chimeras()
  site <- sim$site
  r <- sim$reads
  # the middle hit, found independently: the site where it was put
  n_site <- nchar(site)
  parts <- c(
    read1_1 = substr(r[[1L]], 1L, 230L), read1_2 = substring(r[[1L]], 231L + n_site),
    read2_1 = substr(r[[2L]], 1L, 230L), read2_2 = substring(r[[2L]], 231L + n_site)
  )
  h <- sassy_search(r[1:2], ducksassy:::set_patterns(sim$set), ducksassy:::chimera_k(6L))
  h <- h[h$start > 120L & h$end <= nchar(r[h$record]) - 120L, ]
  h <- h[order(h$record, h$cost, h$pattern, h$start), ]
  h <- h[!duplicated(h$record), ]
  expect_identical(h$start, c(231L, 231L))
  expect_identical(h$end, c(230L + n_site, 230L + n_site))
  # the parts and the other reads, each assigned as a read
  want <- sassy_assign(c(parts, r[-(1:2)]), sim$set, k = 6L, ends = 120L)
  want_out <- ifelse(is.na(want$sample), ifelse(want$status == "ambiguous", "ambiguous", "unassigned"), want$sample)
  names(want_out) <- c(names(parts), names(r)[-(1:2)])
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fastq")
  writeLines(paste0("@", names(r), " d\n", r, "\n+\n", strrep("I", nchar(r))), fq)
  res <- sassy_demultiplex_fastx(fq, sim$set, k = 6L, ends = 120L, chimeras = "split",
    output = file.path(dir, "{name}.fastq"), report = file.path(dir, "r.tsv"))
  expect_false("chimeric" %in% res$name)
  got <- do.call(rbind, lapply(seq_len(nrow(res)), function(i) {
    x <- sassy_read_fastx(res$path[[i]])
    data.frame(name = x$name, sequence = x$sequence, out = rep(res$name[[i]], length(x$name)))
  }))
  expect_identical(sum(res$records), as.double(length(r) + 2L))
  expect_setequal(got$name, names(want_out))
  o <- match(names(want_out), got$name)
  expect_identical(got$out[o], unname(want_out))
  expect_identical(got$sequence[match(names(parts), got$name)], unname(parts))
  rep <- utils::read.delim(file.path(dir, "r.tsv"))
  expect_identical(sort(rep$name), sort(names(want_out)))
  # the assign verbs do not split; mates are not split
  expect_error(sassy_assign(r, sim$set, k = 6L, ends = 120L, chimeras = "split"), class = "ducksassy_input_error")
  expect_error(sassy_demultiplex_fastx(fq, sim$set, k = 6L, ends = 120L, chimeras = "split", mates = fq,
    output = file.path(dir, "m", "{name}_{mate}.fastq")), class = "ducksassy_input_error")
})
