# dorado's kits and custom arrangements (issue 46): the table against
# dorado's source read here on its own, hand-copied barcodes, every kit
# built and its error-free sites assigned to themselves, the arrangement
# reader on hand-written files; and no barcode without evidence (issue 52,
# defect 12): adapters without barcode, barcodes the set lacks and random
# letters between the flanks get no sample, in the assign verbs and the
# demultiplexer alike.

kd_rc <- function(x) {
  chartr("ACGT", "TGCA", vapply(strsplit(x, ""), function(l) paste(rev(l), collapse = ""), ""))
}
kd_dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, replace = TRUE), collapse = "")

# dorado's source, where the checkout has it (not in a built package)
kd_source <- function() {
  for (p in c(
    file.path("..", "..", "..", "shared", "reference", "dorado-1.4-barcode_kits.cpp"),
    file.path("..", "..", "shared", "reference", "dorado-1.4-barcode_kits.cpp")
  )) {
    if (file.exists(p)) return(p)
  }
  NULL
}

test_that("dorado's barcodes and kits are those of its source (barcode_kits.cpp)", {
  src <- kd_source()
  skip_if(is.null(src), "dorado's barcode_kits.cpp is not beside the checkout")
  cpp <- readLines(src, warn = FALSE)
  # the barcodes map: {"NAME", "SEQUENCE"},
  m <- regmatches(cpp, regexec('^\\s*\\{"([A-Za-z0-9_]+)", "([ACGT]+)"\\},\\s*$', cpp))
  m <- do.call(rbind, m[lengths(m) == 3L])
  seqs <- stats::setNames(m[, 3L], m[, 2L])
  expect_gt(length(seqs), 1000L)
  shipped <- utils::read.delim(system.file("extdata", "dorado-barcodes.tsv", package = "ducksassy"),
    colClasses = "character", quote = "")
  expect_identical(stats::setNames(shipped$sequence, shipped$barcode)[names(seqs)], seqs)
  expect_setequal(shipped$barcode, names(seqs))
  # the kit names of kit_info_map: {"NAME", kit_x} or {"NAME",
  at <- grep("kit_info_map = \\{", cpp)
  body <- cpp[at:length(cpp)]
  body <- body[seq_len(grep("^\\};", body)[[1L]])]
  k <- regmatches(body, regexec('^\\s*\\{"([A-Z0-9][A-Za-z0-9-]+)",', body))
  kits <- vapply(k[lengths(k) == 2L], `[[`, "", 2L)
  kits <- setdiff(kits, names(seqs))
  expect_setequal(sassy_kits(from = "dorado")$kit, kits)
  # each dorado kit's barcodes are the source's, by name and sequence
  # (rear-only kits' rows reverse complemented)
  for (kit in kits) {
    set <- sassy_kit(kit, from = "dorado")
    known <- c(seqs, kd_rc(seqs))
    expect_true(all(set$barcode %in% known), label = kit)
  }
  # the flanks: a few constants of the source, as the sets keep them
  flank <- function(name) sub('^.*= "([ACGT]*)";.*$', "\\1", grep(paste0("string ", name, " = "), cpp, value = TRUE))
  nb <- sassy_kit("SQK-NBD114-96", flank_length = Inf)
  expect_identical(unique(nb$flank5), flank("NB_1st_FRONT"))
  expect_identical(unique(nb$flank3), flank("NB_1st_REAR"))
  rbk <- sassy_kit("SQK-RBK114-96", flank_length = Inf)
  expect_identical(unique(rbk$flank5), flank("RBK4_kit14_FRONT"))
  expect_identical(unique(rbk$flank3), flank("RBK4_kit14_REAR"))
  pcr <- sassy_kit("EXP-PBC096", flank_length = Inf)
  expect_identical(unique(pcr$flank3[pcr$ends == "front"]), flank("BC_1st_REAR"))
  expect_identical(unique(pcr$flank3[pcr$ends == "rear"]), flank("BC_2nd_REAR"))
})

test_that("dorado's kits hold the barcodes and flanks of dorado 1.4 (copied by hand)", {
  # dorado/utils/barcode_kits.cpp of dorado 1.4
  BC01 <- "AAGAAAGTTGTCGGTGTCTTTGTG"
  BC12 <- "CAGGTAGAAAGAAGCAGAATCGGA"
  RLB12A <- "GTTGAGTTACAAAGCACCGATCAG"
  RBK26 <- "ACTATGCCTTTCCGTGAAACAGTT"
  BC96 <- "CTGAACGGTCATAGAGTCCACCAT"
  NB01 <- "CACAAAGACACCGACAACTTTCTT"
  NB96 <- "CTGAACGGTCATAGAGTCCACCAT"
  TP01 <- "GCACCTGGAACTTGTGCCTTCCAC"
  RNA01 <- "CGGCCACTTCGAATGTAGATCTTGTAACCAGCATCG"
  AA01F_01 <- "GCTGAAGATA"
  AA01R_01 <- "CCAATATTCG"
  k <- sassy_kits()
  expect_true(all(c(
    "SQK-NBD114-24", "SQK-NBD114-96", "SQK-RBK114-24", "SQK-RBK114-96", "SQK-PCB114-24",
    "SQK-16S114-24", "SQK-RPB114-24", "SQK-MLK114-96-XL", "SQK-RBK110-96", "SQK-NBD111-24",
    "SQK-NBD111-96", "SQK-PCB111-24", "EXP-NBD196", "SQK-RAB214", "TWIST-96A-UDI"
  ) %in% k$kit))
  expect_identical(k$source[k$kit == "SQK-NBD114-96"], "dorado 1.4, dorado/utils/barcode_kits.cpp")
  expect_identical(k$origin[k$kit == "SQK-RAB214"], "qcat")

  # native: both ends, the same flanks (the rear's CAGCACC read as CAGCACCT)
  nb <- sassy_kit("SQK-NBD114-96")
  expect_identical(nrow(nb), 96L)
  expect_identical(nb$name[c(1L, 96L)], c("barcode01", "barcode96"))
  expect_identical(nb$barcode[c(1L, 96L)], c(NB01, NB96))
  expect_identical(unique(nb$ends), "both")
  expect_identical(unique(nb$flank5), "ATTGCTAAGGTTAA")
  expect_identical(unique(nb$flank3), "CAGCACCT")
  # rapid, Kit 14: front only, RBK26 for barcode 26
  rb <- sassy_kit("SQK-RBK114-96")
  expect_identical(unique(rb$ends), "front")
  expect_identical(rb$barcode[rb$name == "barcode26"], RBK26)
  expect_identical(rb$barcode[rb$name == "barcode96"], BC96)
  expect_identical(unique(rb$flank5), "GCTTGGGTGTTTAACC")
  expect_identical(unique(rb$flank3), "GTTTTCGCATTTATCG")
  # PCR: the front and the rear flanks differ
  pcr <- sassy_kit("EXP-PBC001")
  expect_identical(pcr$ends, rep(c("front", "rear"), each = 12L))
  expect_identical(pcr$barcode[pcr$name == "barcode01"], c(BC01, BC01))
  expect_identical(unique(pcr$flank3[pcr$ends == "front"]), "TTAACCTTTCTGTTGG")
  expect_identical(unique(pcr$flank3[pcr$ends == "rear"]), "TTAACCTACTTGCCTG")
  # rapid PCR, Kit 14: both ends, RLB12A as barcode 12
  rpb <- sassy_kit("SQK-RPB114-24")
  expect_identical(rpb$barcode[rpb$name == "barcode12"], RLB12A)
  expect_identical(unique(rpb$ends), "both")
  expect_identical(sassy_kit("SQK-RBK114-24")$barcode[12L], BC12)
  # dual: different front and rear barcodes under one name
  tw <- sassy_kit("TWIST-96A-UDI")
  expect_identical(tw$barcode[tw$name == "barcode01"], c(AA01F_01, AA01R_01))
  expect_identical(tw$ends[tw$name == "barcode01"], c("front", "rear"))
  # RNA: the barcode at the read's 3' end, reading forward: a rear row
  # reverse complemented
  rna <- sassy_kit("SQK-DRB004-24")
  expect_identical(unique(rna$ends), "rear")
  expect_identical(rna$barcode[[1L]], kd_rc(RNA01))
  expect_identical(sassy_kit("SQK-MAB114-24")$barcode[[1L]], TP01)
  # qcat's definition stays reachable
  expect_identical(nrow(sassy_kit("SQK-RAB204", from = "qcat")), 48L)
  expect_identical(nrow(sassy_kit("SQK-RAB204")), 24L)
})

test_that("dorado's kit names are matched in any case, and a wrong one lists the closest", {
  expect_identical(sassy_kit("sqk-nbd114-96"), sassy_kit("SQK-NBD114-96"))
  expect_identical(sassy_kit("NBD114-96"), sassy_kit("SQK-NBD114-96"))
  expect_identical(sassy_kit("sqk_rbk114_24"), sassy_kit("SQK-RBK114-24"))
  err <- expect_error(sassy_kit("SQK-NBD114-69"), class = "ducksassy_kit_error")
  expect_true("SQK-NBD114-96" %in% err$closest)
  expect_match(conditionMessage(err), "SQK-NBD114-96", fixed = TRUE)
  err <- expect_error(sassy_kit("RBK114-69"), class = "ducksassy_kit_error")
  expect_true("SQK-RBK114-96" %in% err$closest)
  # a name with cli markup is shown as written
  err <- expect_error(sassy_kit("{stop('x')}"), class = "ducksassy_kit_error")
  expect_match(conditionMessage(err), "{stop('x')}", fixed = TRUE)
  expect_error(sassy_kits(from = "guppy"), class = "ducksassy_input_error")
})

test_that("every kit builds, and each barcode's error-free site is assigned to it", {
  set.seed(4601)
  for (kit in sassy_kits()$kit) {
    set <- sassy_kit(kit)
    expect_s3_class(set, "ducksassy_barcodes")
    # TWIST's 10-letter barcodes in 10-letter flanks: 30 letters at the
    # default rate (k = 9) find chance hits in the other end; a lower rate
    if (min(nchar(set$flank5) + nchar(set$barcode) + nchar(set$flank3)) < 40L) {
      set <- sassy_kit(kit, error_rate = 0.15)
    }
    # no two names share a site
    site <- paste(set$flank5, set$barcode, set$flank3, set$ends)
    expect_false(anyDuplicated(site) > 0L, label = kit)
    expect_false(any(duplicated(paste(set$barcode, set$ends)) &
      !duplicated(paste(set$name, set$barcode, set$ends))), label = kit)
    # each row's site in a read: at the front (front and both rows), at the
    # rear reverse complemented (rear rows)
    s <- paste0(set$flank5, set$barcode, set$flank3)
    ins <- vapply(seq_along(s), function(i) kd_dna(120), "")
    reads <- ifelse(set$ends == "rear", paste0(ins, kd_rc(s), "ACGTAC"), paste0("ACGTAC", s, ins))
    a <- sassy_assign(reads, set, ends = 100L)
    ok <- a$sample %in% set$name & a$sample == set$name
    expect_true(all(ok), label = paste(kit, paste(which(!ok), collapse = ",")))
  }
})

test_that("sassy_barcodes_dorado() reads dorado's custom arrangement and sequences", {
  dir <- withr::local_tempdir()
  toml <- file.path(dir, "a.toml")
  writeLines(c(
    "# a custom kit",
    "[arrangement]",
    "name = \"my_kit\"   # its name",
    "kit = 'MY'",
    "mask1_front = \"GGTGCTGAAC\"",
    "mask1_rear = \"CCTTAACCGG\"",
    "mask2_front = \"TTAGGCATCC\"",
    "mask2_rear = \"AACGGTTCAA\"",
    "barcode1_pattern = \"MY-F%02i\"",
    "barcode2_pattern = \"MY-R%02i\"",
    "first_index = 2",
    "last_index = 3",
    "",
    "[scoring]",
    "max_barcode_penalty = 11",
    "midstrand_flank_score = 0.95"
  ), toml)
  fa <- file.path(dir, "s.fasta")
  writeLines(c(">MY-F01", "AAAAAAAAAAAAAAAA", ">MY-F02", "ACGTACGTACGTACGT", ">MY-F03 a description",
    "TTGCAATTGCAAGGCC", ">MY-R02", "GATCGATCCATGGTAC", ">MY-R03", "CCATGGTTAACCGGTA"), fa)
  set <- sassy_barcodes_dorado(toml, fa)
  expect_s3_class(set, "ducksassy_barcodes")
  expect_identical(attr(set, "kit"), "my_kit")
  expect_identical(set$name, c("barcode02", "barcode03", "barcode02", "barcode03"))
  expect_identical(set$barcode, c("ACGTACGTACGTACGT", "TTGCAATTGCAAGGCC", "GATCGATCCATGGTAC", "CCATGGTTAACCGGTA"))
  expect_identical(set$ends, c("front", "front", "rear", "rear"))
  expect_identical(set$flank5, c("GGTGCTGAAC", "GGTGCTGAAC", "TTAGGCATCC", "TTAGGCATCC"))
  expect_identical(set$flank3, c("CCTTAACCGG", "CCTTAACCGG", "AACGGTTCAA", "AACGGTTCAA"))
  # a read of barcode 3, front and rear, is that sample
  read <- paste0("GGTGCTGAAC", "TTGCAATTGCAAGGCC", "CCTTAACCGG", strrep("ACGTTGCA", 20),
    kd_rc(paste0("TTAGGCATCC", "CCATGGTTAACCGGTA", "AACGGTTCAA")))
  a <- sassy_assign(read, set, ends = 60L, policy = "both")
  expect_identical(a$sample, "barcode03")

  # symmetric, dorado's own barcodes (no sequences file), and rear only
  sym <- file.path(dir, "sym.toml")
  writeLines(c("[arrangement]", "name = \"nb\"", "kit = \"NB\"", "mask1_front = \"ATTGCTAAGGTTAA\"",
    "mask1_rear = \"CAGCACCT\"", "mask2_front = \"ATTGCTAAGGTTAA\"", "mask2_rear = \"CAGCACCT\"",
    "barcode1_pattern = \"NB%02i\"", "barcode2_pattern = \"NB%02i\"", "first_index = 1", "last_index = 3"), sym)
  s2 <- sassy_barcodes_dorado(sym)
  expect_identical(s2$ends, rep("both", 3L))
  expect_identical(s2$barcode, sassy_kit("SQK-NBD114-96")$barcode[1:3])
  rear <- file.path(dir, "rear.toml")
  writeLines(c("[arrangement]", "name = \"r\"", "kit = \"R\"", "mask1_front = \"GGTGCTGAAC\"",
    "mask1_rear = \"CCTTAACCGG\"", "barcode1_pattern = \"MY-F%02i\"", "first_index = 2",
    "last_index = 2", "rear_only_barcodes = true"), rear)
  s3 <- sassy_barcodes_dorado(rear, fa)
  expect_identical(s3$ends, "rear")
  expect_identical(s3$barcode, kd_rc("ACGTACGTACGTACGT"))
  expect_identical(s3$flank5, kd_rc("CCTTAACCGG"))
  # the construct reads forward at the read's 3' end
  r3 <- paste0(strrep("ACGTTGCA", 20), "GGTGCTGAAC", "ACGTACGTACGTACGT", "CCTTAACCGG", "TTTTT")
  expect_identical(sassy_assign(r3, s3, ends = 60L)$sample, "barcode02")

  # errors: classed, naming the file's problem
  bad <- function(lines, ...) {
    f <- tempfile(fileext = ".toml", tmpdir = dir)
    writeLines(lines, f)
    expect_error(sassy_barcodes_dorado(f, ...), class = "ducksassy_arrangement_error")
  }
  bad(c("[scoring]", "max_barcode_penalty = 11"))
  bad(c("[arrangement]", "name = \"x\"", "mask1_front = \"A\"", "mask1_rear = \"C\"", "barcode1_pattern = \"BC%02i\"", "first_index = 1"))
  bad(c("[arrangement]", "name = \"x\"", "mask1_front = \"A\"", "mask1_rear = \"C\"", "mask2_front = \"A\"",
    "barcode1_pattern = \"BC%02i\"", "first_index = 1", "last_index = 2"))
  bad(c("[arrangement]", "name = \"x\"", "mask1_front = \"A\"", "mask1_rear = \"C\"", "barcode1_pattern = \"BC\"",
    "first_index = 1", "last_index = 2"))
  bad(c("[arrangement]", "name = \"x\"", "mask1_front = \"A\"", "mask1_rear = \"C\"", "barcode1_pattern = \"ZZ%02i\"",
    "first_index = 1", "last_index = 2"))
  bad(c("[arrangement]", "name = x"))
  bad(c("[arrangement]", "name = \"x\"", "name = \"y\""))
  expect_error(sassy_barcodes_dorado(file.path(dir, "none.toml")), class = "ducksassy_file_error")
})

# ---- no barcode without evidence (issue 52, defect 12) ---------------------

test_that("error-free reads of barcodes the set lacks get no sample (NB13-24 given EXP-NBD104)", {
  set.seed(5212)
  lacks <- sassy_kit("EXP-NBD114")
  set <- sassy_kit("EXP-NBD104")
  reads <- vapply(seq_len(nrow(lacks)), function(i) {
    paste0(kd_dna(20), lacks$flank5[[i]], lacks$barcode[[i]], lacks$flank3[[i]], kd_dna(300),
      kd_rc(paste0(lacks$flank5[[i]], lacks$barcode[[i]], lacks$flank3[[i]])), kd_dna(20))
  }, "")
  for (policy in c("either", "both")) {
    a <- sassy_assign(reads, set, policy = policy)
    expect_identical(a$sample, rep(NA_character_, 12L))
    expect_identical(a$reason, rep("flank without barcode", 12L))
  }
  # the set's own barcodes in the same reads are assigned
  own <- vapply(seq_len(nrow(set)), function(i) {
    paste0(kd_dna(20), set$flank5[[i]], set$barcode[[i]], set$flank3[[i]], kd_dna(300))
  }, "")
  expect_identical(sassy_assign(own, set)$sample, set$name)
})

test_that("random letters between a set's flanks, or none, get no sample", {
  set.seed(5213)
  f5 <- kd_dna(16)
  f3 <- kd_dna(16)
  bc <- stats::setNames(vapply(1:12, function(i) kd_dna(24), ""), sprintf("b%02d", 1:12))
  set <- sassy_barcodes(bc, flank5 = f5, flank3 = f3)
  reads <- vapply(1:200, function(i) paste0(kd_dna(30), f5, kd_dna(24), f3, kd_dna(200)), "")
  a <- sassy_assign(reads, set)
  # (47 of 200 before; a random 24-mer is within 8 edits of the nearest of
  # 12 barcodes about 1 time in 300, which no rule that keeps true barcodes
  # of 8 edits can tell from a barcode)
  expect_lte(sum(!is.na(a$sample)), 2L)
  expect_true(all(a$reason[is.na(a$sample)] == "flank without barcode"))
  # an adapter without barcode: the flanks with nothing between them
  empty <- vapply(1:50, function(i) paste0(kd_dna(30), f5, f3, kd_dna(200)), "")
  e <- sassy_assign(empty, set)
  expect_identical(sum(!is.na(e$sample)), 0L)
  expect_true(all(e$reason == "flank without barcode"))
})

test_that("adapters without barcode get no sample in each design, as the demultiplexer has it", {
  set.seed(5214)
  mutate <- function(s, n) {
    l <- strsplit(s, "")[[1L]]
    for (i in sample(seq_along(l), n)) l[[i]] <- sample(setdiff(c("A", "C", "G", "T"), l[[i]]), 1L)
    paste(l, collapse = "")
  }
  designs <- list(
    front = sassy_kit("SQK-RBK114-24"),
    both = sassy_kit("SQK-NBD114-24"),
    dual = sassy_kit("SQK-PCB114-24")
  )
  for (d in names(designs)) {
    set <- designs[[d]]
    fr <- set[set$ends != "rear", ]
    re <- if (any(set$ends == "rear")) set[set$ends == "rear", ] else fr
    n <- 40L
    i <- sample(nrow(fr), n, replace = TRUE)
    site <- function(s, j, bc = s$barcode[j]) paste0(s$flank5[j], bc, s$flank3[j])
    # barcoded reads (2 substitutions in each site), and adapters without
    # barcode (1 substitution in their flanks)
    good <- vapply(seq_len(n), function(r) {
      j <- i[[r]]
      paste0(kd_dna(25), mutate(site(fr, j), 2L), kd_dna(400),
        if (d != "front") kd_rc(mutate(site(re, j), 2L)), kd_dna(25))
    }, "")
    empty <- vapply(seq_len(n), function(r) {
      j <- i[[r]]
      paste0(kd_dna(25), mutate(site(fr, j, ""), 1L), kd_dna(400),
        if (d != "front") kd_rc(mutate(site(re, j, ""), 1L)), kd_dna(25))
    }, "")
    a <- sassy_assign(c(good, empty), set)
    expect_identical(a$sample[seq_len(n)], fr$name[i], label = d)
    expect_identical(a$sample[n + seq_len(n)], rep(NA_character_, n), label = d)
    expect_identical(a$reason[n + seq_len(n)], rep("flank without barcode", n), label = d)
    # the demultiplexer writes each read where the assignment says
    dir <- withr::local_tempdir()
    fq <- file.path(dir, "r.fastq")
    reads <- c(good, empty)
    writeLines(paste0("@r", seq_along(reads), "\n", reads, "\n+\n", strrep("I", nchar(reads))), fq)
    res <- sassy_demultiplex_fastx(fq, set, output = file.path(dir, "{name}.fastq"), report = file.path(dir, "rep.tsv"))
    rep <- utils::read.delim(file.path(dir, "rep.tsv"), stringsAsFactors = FALSE)
    expect_identical(rep$sample, a$sample, label = d)
    expect_identical(rep$reason, a$reason, label = d)
  }
})

test_that("names = \"dorado\" names samples <kit>_barcodeNN and the rest unclassified", {
  set.seed(4602)
  kit <- sassy_kit("SQK-NBD114-24")
  site <- function(i) paste0(kit$flank5[[i]], kit$barcode[[i]], kit$flank3[[i]])
  reads <- c(
    paste0(kd_dna(20), site(1L), kd_dna(300), kd_rc(site(1L)), kd_dna(20)),
    paste0(kd_dna(20), site(5L), kd_dna(300), kd_dna(20)),
    kd_dna(400)
  )
  a <- sassy_assign(reads, kit)
  d <- sassy_assign(reads, kit, names = "dorado")
  expect_identical(a$sample, c("barcode01", "barcode05", NA))
  expect_identical(d$sample, c("SQK-NBD114-24_barcode01", "SQK-NBD114-24_barcode05", "unclassified"))
  expect_identical(d$status, a$status)
  expect_identical(d$reason, a$reason)
  expect_identical(summary(d)$samples$reads, c(1L, 1L))
  # a sample sheet's names are kept
  sheet <- data.frame(front = "barcode01", rear = "barcode01", sample = "patient")
  expect_identical(sassy_assign(reads, kit, samples = sheet, names = "dorado")$sample,
    c("patient", "unclassified", "unclassified"))
  # the demultiplexer's outputs
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fastq")
  writeLines(paste0("@r", 1:3, "\n", reads, "\n+\n", strrep("I", nchar(reads))), fq)
  res <- sassy_demultiplex_fastx(fq, kit, output = file.path(dir, "out", "{name}.fastq"), names = "dorado")
  expect_identical(res$name, c(paste0("SQK-NBD114-24_", kit$name), "unclassified"))
  expect_identical(res$records[res$name %in% c("SQK-NBD114-24_barcode01", "SQK-NBD114-24_barcode05", "unclassified")],
    c(1, 1, 1))
  expect_true(file.exists(file.path(dir, "out", "SQK-NBD114-24_barcode01.fastq")))
  # checked; the one-end mode has no dorado names
  expect_error(sassy_assign(reads, kit, names = "guppy"), class = "ducksassy_input_error")
  expect_error(sassy_assign(reads, c(a = "ACGT"), names = "dorado"), class = "ducksassy_input_error")
  # an arrangement's name is the prefix
  toml <- file.path(dir, "a.toml")
  writeLines(c("[arrangement]", "name = \"my_nb\"", "kit = \"NB\"", "mask1_front = \"ATTGCTAAGGTTAA\"",
    "mask1_rear = \"CAGCACCT\"", "barcode1_pattern = \"NB%02i\"", "first_index = 1", "last_index = 5"), toml)
  expect_identical(sassy_assign(reads[2], sassy_barcodes_dorado(toml), names = "dorado")$sample, "my_nb_barcode05")
})
