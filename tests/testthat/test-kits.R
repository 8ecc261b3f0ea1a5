# Barcode sets and kits (issue 38): the kit table against qcat's own files,
# sassy_kit() / sassy_barcodes(), the default k, barcode_cost against a
# brute-force edit distance, and assignment with a kit on planted reads.

kit_rows <- function() {
  utils::read.delim(system.file("extdata", "kits.tsv", package = "ducksassy"),
    colClasses = "character", na.strings = character(), quote = "")
}

revcomp <- function(x) {
  chartr("ACGTMRWSYKVHDBN", "TGCAKYWSRMBDHVN", vapply(strsplit(x, ""), function(l) paste(rev(l), collapse = ""), ""))
}

# One random edit (substitution, insertion or deletion) at position i of s.
edit_at <- function(s, i, type) {
  l <- strsplit(s, "")[[1L]]
  other <- function(b) sample(setdiff(c("A", "C", "G", "T"), b), 1L)
  l <- switch(type,
    sub = {
      l[i] <- other(l[i])
      l
    },
    ins = append(l, sample(c("A", "C", "G", "T"), 1L), after = i),
    del = l[-i]
  )
  paste(l, collapse = "")
}

random_dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, replace = TRUE), collapse = "")

test_that("the kit table's sequences and flanks are those of qcat's kit files", {
  folder <- "/usr/lib/python3/dist-packages/qcat/resources/kits"
  skip_if_not(dir.exists(folder), "qcat is not installed")
  skip_if_not_installed("yaml")
  tab <- kit_rows()
  expect_setequal(names(tab), c("kit", "barcode", "sequence", "flank5", "flank3", "ends", "qcat_kit", "source"))
  # an IUPAC flank letter of ours stands for the letter of each qcat file
  iupac <- list(A = "A", C = "C", G = "G", T = "T", M = c("A", "C"), R = c("A", "G"))
  covers <- function(ours, theirs) {
    nchar(ours) == nchar(theirs) && all(mapply(function(o, t) t %in% iupac[[o]],
      strsplit(ours, "")[[1L]], strsplit(theirs, "")[[1L]]))
  }
  cache <- list()
  read_kit <- function(f) {
    if (is.null(cache[[f]])) cache[[f]] <<- yaml::read_yaml(file.path(folder, f))
    cache[[f]]
  }
  bad <- character()
  checked <- 0L
  for (i in seq_len(nrow(tab))) {
    row <- tab[i, ]
    files <- strsplit(sub("^[^:]*: ", "", row$source), " + ", fixed = TRUE)[[1L]]
    if (!grepl("^qcat", row$source)) bad <- c(bad, paste(i, "source"))
    for (f in files) {
      d <- read_kit(f)
      is_rear <- grepl("_3p", f)
      if ((row$ends == "front" && is_rear) || (row$ends == "rear" && !is_rear)) next
      names <- sub("^BC", "barcode", vapply(d$barcode_set_1, `[[`, "", "name"))
      seqs <- toupper(vapply(d$barcode_set_1, `[[`, "", "sequence"))
      template <- toupper(gsub("[[:space:]\"]", "", d$sequence))
      parts <- strsplit(template, "N+")[[1L]]
      t5 <- parts[[1L]]
      t3 <- if (length(parts) > 1L) parts[[2L]] else ""
      ok <- c(
        # the row's barcode is one of the file's under its name
        barcode = row$sequence %in% seqs[names == row$barcode],
        length = nchar(gsub("[^N]", "", template)) == nchar(row$sequence),
        # the file's flanks, as far as they reach: ours end (flank5) and
        # begin (flank3) with them
        flank5 = nchar(row$flank5) >= nchar(t5) &&
          covers(substring(row$flank5, nchar(row$flank5) - nchar(t5) + 1L), t5),
        flank3 = nchar(row$flank3) >= nchar(t3) && covers(substr(row$flank3, 1L, nchar(t3)), t3)
      )
      if (!all(ok)) bad <- c(bad, paste(row$kit, row$barcode, f, names(ok)[!ok]))
      checked <- checked + 1L
    }
  }
  expect_identical(bad, character())
  expect_gt(checked, nrow(tab))
  # every barcode of each qcat file is in the table, for its kit
  rbk <- yaml::read_yaml(file.path(folder, "RBK001.yml"))
  expect_setequal(tab$sequence[tab$kit == "SQK-RBK001"],
    toupper(vapply(rbk$barcode_set_1, `[[`, "", "sequence")))
  pbc <- yaml::read_yaml(file.path(folder, "PBC096_5p.yml"))
  expect_setequal(tab$sequence[tab$kit == "EXP-PBC096" & tab$ends == "front"],
    toupper(vapply(pbc$barcode_set_1, `[[`, "", "sequence")))
})

test_that("sassy_kits() lists every kit of the table with its layout", {
  tab <- kit_rows()
  k <- sassy_kits(from = "qcat")
  expect_identical(k$kit, sort(unique(tab$kit)))
  # by default dorado's definition where dorado has the kit (issue 46)
  k <- sassy_kits()
  expect_true(all(tab$kit %in% k$kit))
  expect_identical(k$origin[k$kit %in% tab$kit], ifelse(k$kit[k$kit %in% tab$kit] == "SQK-RAB214", "qcat", "dorado"))
  expect_identical(k$barcodes[k$kit == "SQK-RBK001"], 12L)
  expect_identical(k$barcodes[k$kit == "EXP-PBC096"], 96L)
  expect_identical(k$ends[k$kit == "EXP-PBC001"], "front, rear")
  expect_identical(k$ends[k$kit == "EXP-NBD104"], "both")
  expect_identical(k$flank5_length[k$kit == "SQK-RBK001"], 7L)
  expect_identical(k$flank3_length[k$kit == "SQK-RBK001"], 50L)
})

test_that("sassy_kit() returns the table's rows, by any spelling of the name", {
  tab <- kit_rows()
  kit <- sassy_kit("SQK-RBK001")
  expect_s3_class(kit, "ducksassy_barcodes")
  rows <- tab[tab$kit == "SQK-RBK001", ]
  expect_identical(kit$name, rows$barcode)
  expect_identical(kit$barcode, rows$sequence)
  expect_identical(kit$ends, rows$ends)
  # the 16 letters of each flank next to the barcode, or all of them
  expect_identical(kit$flank5, rows$flank5) # 7 letters
  expect_identical(kit$flank3, substr(rows$flank3, 1L, 16L))
  whole <- sassy_kit("SQK-RBK001", flank_length = Inf)
  expect_identical(whole$flank3, rows$flank3)
  nbd <- sassy_kit("EXP-NBD104", flank_length = 5)
  expect_identical(nbd$flank5, rep("GTTAA", 12L))
  expect_identical(nbd$flank3, rep("CAGCA", 12L))
  expect_identical(sassy_kit("rbk001"), kit)
  expect_identical(sassy_kit("sqk_rbk001"), kit)
  expect_identical(attr(kit, "kit"), "SQK-RBK001")
  # several kits: all their barcodes, in the order of the names
  both <- sassy_kit(c("NBD114", "NBD104"))
  expect_identical(both$name, c(sprintf("barcode%02d", 13:24), sprintf("barcode%02d", 1:12)))
  expect_output(print(kit), "12 barcodes of SQK-RBK001")
})

test_that("a kit name with a typo is a classed error that names close kits", {
  err <- expect_error(sassy_kit("RBK01"), class = "ducksassy_kit_error")
  expect_s3_class(err, "ducksassy_input_error")
  expect_match(conditionMessage(err), "SQK-RBK001", fixed = TRUE)
  # SQK-NBD114-96 is dorado's (issue 46)
  expect_identical(nrow(sassy_kit("SQK-NBD114-96")), 96L)
  expect_error(sassy_kit(NA_character_), class = "ducksassy_input_error")
  expect_error(sassy_kit("RBK001", error_rate = 1), class = "ducksassy_input_error")
})

test_that("sassy_barcodes() makes a set; its pattern is flank5 + barcode + flank3", {
  bc <- c(s1 = "ACGTACGTACGTAC", s2 = "TTGCAATTGCAATT")
  set <- sassy_barcodes(bc, flank5 = "ggtgctg", flank3 = c("TTAACCT", "TTAACC"), ends = "front")
  expect_identical(set$name, c("s1", "s2"))
  expect_identical(set$flank5, c("GGTGCTG", "GGTGCTG"))
  expect_identical(set$ends, c("front", "front"))
  sp <- ducksassy:::as_search_patterns(set)
  expect_identical(sp$patterns, c(s1 = paste0("GGTGCTG", bc[["s1"]], "TTAACCT"), s2 = paste0("GGTGCTG", bc[["s2"]], "TTAACC")))
  kit <- sassy_kit("EXP-PBC001")
  expect_identical(unname(ducksassy:::as_search_patterns(kit)$patterns), paste0(kit$flank5, kit$barcode, kit$flank3))
  expect_identical(names(ducksassy:::as_search_patterns(kit)$patterns), kit$name)
  # a bare vector passes as it is, k as given or 0
  expect_identical(ducksassy:::as_search_patterns(bc), list(patterns = bc, k = 0L, set = NULL))
  expect_identical(ducksassy:::as_search_patterns(bc, 3L)$k, 3L)
  expect_error(sassy_barcodes(bc, flank5 = c("A", "C", "G")), class = "ducksassy_input_error")
  expect_error(sassy_barcodes(bc, ends = "middle"), class = "ducksassy_input_error")
  expect_error(sassy_barcodes(c("ACGT", NA)), class = "ducksassy_input_error")
})

test_that("the default k is ceiling(error_rate * the longest pattern), below the shortest", {
  set <- sassy_barcodes(c(a = "ACGTACGTAC", b = "ACGTACGTACGT"), flank5 = "AAAA", flank3 = "TTTTTT", error_rate = 0.15)
  # patterns of 20 and 22 letters: ceiling(0.15 * 22) = 4
  expect_identical(ducksassy:::as_search_patterns(set)$k, 4L)
  expect_identical(ducksassy:::as_search_patterns(set, 1L)$k, 1L)
  expect_identical(ducksassy:::default_set_k(sassy_barcodes("ACGT", error_rate = 0.9)), 3L)
  kit <- sassy_kit("SQK-RBK001", error_rate = 0.2)
  expect_identical(ducksassy:::as_search_patterns(kit)$k, as.integer(ceiling(0.2 * (7 + 24 + 16))))
  expect_identical(ducksassy:::as_search_patterns(sassy_kit("SQK-RBK001"))$k, 13L)
  # a verb without k uses it: the same result as with that k given
  reads <- c(paste0(random_dna(30), set$flank5[1], "ACGTAGGTAC", set$flank3[1], random_dna(30)), random_dna(80))
  expect_identical(sassy_assign(reads, set), sassy_assign(reads, set, k = 4L))
  expect_false(identical(sassy_assign(reads, set)$cost, sassy_assign(reads, set, k = 0L)$cost))
})

test_that("barcode_cost is the edit distance of the barcode's part of the read", {
  set.seed(38)
  f5 <- random_dna(16)
  f3 <- random_dna(16)
  barcodes <- vapply(1:8, function(i) random_dna(24), "")
  names(barcodes) <- sprintf("bc%d", 1:8)
  set <- sassy_barcodes(barcodes, flank5 = f5, flank3 = f3)
  n <- 120
  truth <- sample(names(barcodes), n, replace = TRUE)
  planted <- character(n)
  reads <- character(n)
  flank_edits <- integer(n)
  for (r in seq_len(n)) {
    b <- barcodes[[truth[r]]]
    # 0-3 edits inside the barcode (away from its first and last 3 letters,
    # so the alignment cannot move them into a flank), 0-2 substitutions in
    # the flanks (away from the barcode)
    for (e in seq_len(sample(0:3, 1L))) {
      b <- edit_at(b, sample(4:(nchar(b) - 4L), 1L), sample(c("sub", "ins", "del"), 1L))
    }
    a5 <- f5
    a3 <- f3
    fe <- sample(0:2, 1L)
    if (fe >= 1L) a5 <- edit_at(a5, sample(2:10, 1L), "sub")
    if (fe >= 2L) a3 <- edit_at(a3, sample(7:15, 1L), "sub")
    flank_edits[r] <- fe
    planted[r] <- b
    site <- paste0(a5, b, a3)
    reads[r] <- paste0(random_dna(40), if (r %% 2L) site else revcomp(site), random_dna(40))
  }
  a <- sassy_assign(reads, set, k = 8L)
  expect_identical(a$pattern_name, truth)
  expect_identical(as.character(a$status), rep("assigned", n))
  oracle <- mapply(function(p, b) drop(utils::adist(p, b)), planted, barcodes[truth], USE.NAMES = FALSE)
  expect_identical(a$barcode_cost, as.integer(oracle))
  expect_identical(a$cost, as.integer(oracle + flank_edits))
  expect_identical(match("barcode_cost", names(a)), match("cost", names(a)) + 1L)
  # the same from a file
  fq <- withr::local_tempfile(fileext = ".fastq")
  writeLines(paste0("@r", seq_len(n), "\n", reads, "\n+\n", strrep("I", nchar(reads))), fq)
  af <- sassy_assign_fastx(fq, set, k = 8L)
  expect_identical(af$barcode_cost, a$barcode_cost)
  expect_identical(af$pattern_name, a$pattern_name)
  # a bare vector: no barcode_cost
  expect_false("barcode_cost" %in% names(sassy_assign(reads, barcodes, k = 3L)))
})

test_that("barcode_edits() counts a CIGAR's edits on the barcode's letters", {
  # pattern: 3 flank letters, 4 barcode letters (positions 4-7), 3 flank
  be <- function(cigar) ducksassy:::barcode_edits(cigar, 3L, 4L)
  expect_identical(be("10="), 0L)
  expect_identical(be("1X9="), 0L)
  expect_identical(be("3=1X6="), 1L)
  expect_identical(be("6=1X3="), 1L)
  expect_identical(be("7=1X2="), 0L)
  expect_identical(be("4=2D6="), 2L) # text letters between barcode letters 1 and 2
  expect_identical(be("3=2D7="), 0L) # before the barcode: the flank's
  expect_identical(be("7=1D3="), 0L) # after it
  expect_identical(be("2=3I5="), 2L) # pattern letters 3-5 missing: two of the barcode's
  expect_identical(be(NA_character_), NA_integer_)
  # overhang: the CIGAR starts at pattern letter `from + 1`; barcode letters
  # over the text's edge count as missing
  over <- function(cigar, from) ducksassy:::barcode_edits(cigar, 3L, 4L, from)
  expect_identical(over("8=", 2L), 0L) # letters 3-10 aligned, the barcode whole
  expect_identical(over("1=1X3=", 5L), 3L) # letters 4-5 over the start, 7 an X
  expect_identical(over("5=", 0L), 2L) # letters 6-7 over the end
  expect_identical(over("3=", 7L), 4L) # the whole barcode over the start
})

test_that("a kit assigns planted reads of every barcode, and reads without one are not", {
  set.seed(380)
  kit <- sassy_kit("EXP-NBD104")
  n <- 96
  truth <- sample(kit$name, n, replace = TRUE)
  reads <- character(n)
  mutate <- function(s, rate) {
    for (i in seq_len(rbinom(1L, nchar(s), rate))) {
      s <- edit_at(s, sample(2:(nchar(s) - 1L), 1L), sample(c("sub", "ins", "del"), 1L))
    }
    s
  }
  for (r in seq_len(n)) {
    i <- match(truth[r], kit$name)
    site <- mutate(paste0(kit$flank5[i], kit$barcode[i], kit$flank3[i]), 0.06)
    # native kit: the barcode at the front, and reverse complemented at the
    # rear, of reads in either orientation
    read <- paste0(random_dna(20), site, random_dna(400), revcomp(mutate(paste0(kit$flank5[i], kit$barcode[i], kit$flank3[i]), 0.06)), random_dna(20))
    reads[r] <- if (r %% 2L) read else revcomp(read)
  }
  empty <- vapply(1:40, function(i) random_dna(500), "")
  a <- sassy_assign(c(reads, empty), kit, ends = 150L)
  expect_identical(a$pattern_name[seq_len(n)], truth)
  expect_identical(as.character(a$status[seq_len(n)]), rep("assigned", n))
  expect_identical(as.character(a$status[n + 1:40]), rep("unassigned", 40))
  # demultiplexing with the kit: every read in its barcode's file
  fq <- withr::local_tempfile(fileext = ".fastq")
  writeLines(paste0("@r", seq_along(c(reads, empty)), "\n", c(reads, empty), "\n+\n", strrep("I", nchar(c(reads, empty)))), fq)
  out <- file.path(withr::local_tempdir(), "{name}.fastq")
  d <- sassy_demultiplex_fastx(fq, kit, output = out, ends = 150L)
  expected <- table(factor(truth, levels = unique(kit$name)))
  expect_identical(d$records[match(names(expected), d$name)], as.double(expected))
  expect_identical(d$records[d$name == "unassigned"], 40)
  # the table verb takes the set too
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "reads", data.frame(sequence = c(reads, empty)))
  at <- sassy_assign_table(con, "reads", kit, ends = 150L)
  expect_identical(at$pattern_name, a$pattern_name)
  expect_identical(at$cost, a$cost)
})

test_that("barcode_cost is barcode_edits() of the best hit's CIGAR, overhanging letters included", {
  withr::local_seed(381)
  kit <- sassy_kit("EXP-NBD104")
  pats <- ducksassy:::set_patterns(kit)
  n <- 60L
  reads <- character(n)
  for (r in seq_len(n)) {
    site <- pats[[sample(length(pats), 1L)]]
    for (e in seq_len(sample(0:6, 1L))) {
      site <- edit_at(site, sample(2:(nchar(site) - 1L), 1L), sample(c("sub", "ins", "del"), 1L))
    }
    # a third of the reads start or end inside their site: overhang
    cut <- sample(0:25, 1L)
    reads[r] <- switch(r %% 3L + 1L,
      paste0(random_dna(30), site, random_dna(200)),
      paste0(substring(site, cut + 1L), random_dna(200)),
      revcomp(paste0(random_dna(200), substr(site, 1L, nchar(site) - cut)))
    )
  }
  # the front end (its first 120 letters) of the both-ends assignment, with
  # overhang: an end that the plain search does not call is searched again
  # with patterns hanging over the read's start
  a <- sassy_assign(reads, kit, ends = 120L, overhang = 0.5)
  k <- ducksassy:::default_set_k(kit)
  with_bc <- function(h) {
    h$bc <- ducksassy:::barcode_edits(h$cigar, nchar(kit$flank5)[h$pattern],
      nchar(kit$barcode)[h$pattern], h$pattern_start - 1L)
    h[order(h$record, h$cost, h$pattern, h$start, h$end, h$strand != "+"), ]
  }
  # the best hit and the runner-up (the best of another barcode) of each
  # record, and whether the margin (0) on the costs and barcode edits calls it
  calls <- function(h) {
    best <- h[!duplicated(h$record), ]
    i <- match(seq_len(n), best$record)
    runner <- h[h$pattern != best$pattern[match(h$record, best$record)], ]
    runner <- runner[!duplicated(runner$record), ]
    j <- match(seq_len(n), runner$record)
    close <- !is.na(j) & (runner$cost[j] <= best$cost[i] | runner$bc[j] <= best$bc[i])
    list(bc = best$bc[i], cost = best$cost[i], called = !is.na(i) & !close)
  }
  plain <- with_bc(sassy_search(reads, pats, k, ends = c(120L, 0L)))
  first <- calls(plain)
  over <- with_bc(sassy_search(reads, pats, k, overhang = 0.5))
  m <- nchar(pats)[over$pattern]
  at_start <- over$start == 1L & over$end <= 120L &
    ifelse(over$strand == "+", over$pattern_start > 1L, over$pattern_end < m)
  union <- with_bc(rbind(plain[, names(over)], over[at_start & !first$called[over$record], ])[, names(over)])
  final <- calls(union)
  expect_true(sum(!is.na(final$bc)) >= 50L)
  expect_true(sum(!first$called & final$called) >= 3L)
  expect_true(any(at_start & !first$called[over$record]))
  expect_identical(a$front_barcode_cost, final$bc)
  # the cap, ceiling(0.45 * 24) = 11, and no barcode without evidence
  # (issue 46): the flanks with nothing, or a slot of N, between them (k =
  # ceiling(0.27 * 22) = 6) plus 9 (ceiling(24 / 3) + 1) cost no more
  f <- c(paste0(kit$flank5[[1]], kit$flank3[[1]]), paste0(kit$flank5[[1]], strrep("N", 24L), kit$flank3[[1]]))
  sp <- sassy_search(reads, f, 6L, ends = c(120L, 0L), overhang = 0.5, alphabet = "iupac")
  ca <- as.vector(tapply(sp$cost, sp$record, min)[as.character(seq_len(n))])
  explained <- !is.na(ca) & ca + 9 <= final$cost
  expect_identical(!is.na(a$front_barcode), final$called & final$bc <= 11L & !explained)
})
