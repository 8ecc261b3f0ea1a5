# A seeded simulator of nanopore-like barcoded runs (issue 38's "Numbers":
# simulated runs with the generator's truth), pure R, sourced by
# benchmarks/kits_sim.R. No package code is used to make the reads: the
# barcodes and flanks are the kit's own (passed in as a barcode set's data
# frame), the inserts are pieces of a genome (E. coli of Debian's
# bowtie-examples when installed, random letters otherwise).
#
# A read is built 5'->3' as the pore reads it, from segments:
#   leader  C1  insert  C2  trailer
# with C = flank5 + barcode + flank3 (the kit's whole flanks) and
#   symmetric native (design "native"): C1 = C(b), C2 = rc(C(b));
#   dual ("dual"): C1 = C(front i), C2 = rc(C(rear j)), the sample named by
#     the pair; a read of the other strand has C1 = C(j), C2 = rc(C(i)) and
#     the insert reverse complemented;
#   front only ("rapid"): C1 = C(b), no C2; on the other strand no C1 and
#     C2 = rc(C(b)).
# Half of the reads are of the other strand ("-"). Then, independently:
#   front truncation (p_trunc_front): the read starts t letters into C1
#     (leader lost), t uniform in 1..(flank5 + a third of the barcode);
#   rear truncation (p_trunc_rear): the read ends t letters before the end
#     of C2 (trailer lost); rear missing (p_no_rear, where C1 is not empty):
#     the read ends inside the insert (C2 and trailer lost);
#   reads without a barcode (p_none): leader, insert, trailer only, and for
#     half of them (p_flank_only; `flanks=yes` in the header) the flanks
#     without the barcode where the design's constructs are (an adapter that
#     carries no barcode);
#   chimeras (p_chimera): two molecules of the design (each built as above,
#     each on its own strand (front only: both on the read's), inserts half
#     as long) joined, so that a flanked barcode (A's C2, B's C1) lies in the
#     middle of the read.
# Errors last, on the whole read: each homopolymer of 3 or more letters is
# one letter longer or shorter with probability `homopolymer`; then each
# letter is substituted, deleted or preceded by an inserted random letter
# with the probabilities `error * c(0.40, 0.35, 0.25)` (about 6% in all by
# default, nanopore-like; Delahaye & Nicolas 2021 give 5-15% for R9 reads
# with deletions at least as frequent as insertions).
#
# The truth is in every read's header, `key=value` words after the ID:
#   @native_000001 design=native kind=barcoded truth=barcode05 strand=-
#     front=barcode05 rear=barcode05 trunc_front=0 rear_end=full errors=157
# `truth` is the sample (`none` without a barcode, `chimera` for a chimera,
# whose `first` and `second` name the samples of its two molecules).

sim_alphabet <- utf8ToInt("ACGT")

sim_rc <- function(x) {
  vapply(x, function(s) chartr("ACGTN", "TGCAN", intToUtf8(rev(utf8ToInt(s)))), "", USE.NAMES = FALSE)
}

#' Random letters (GC 50%), one string.
sim_random_dna <- function(n) intToUtf8(sim_alphabet[sample.int(4L, n, replace = TRUE)])

#' A source of genome-like inserts: `draw(n)` returns a piece of `n`
#' letters from a random place and strand of `genome` (a string), or random
#' letters when `genome` is NULL.
sim_insert_source <- function(genome = NULL) {
  if (is.null(genome) || nchar(genome) < 20000L) {
    return(list(draw = sim_random_dna, what = "random letters (no genome)"))
  }
  genome <- toupper(gsub("[^ACGTacgt]", "", genome))
  g <- nchar(genome)
  list(
    draw = function(n) {
      at <- sample.int(g - n, 1L)
      s <- substr(genome, at, at + n - 1L)
      if (stats::runif(1L) < 0.5) sim_rc(s) else s
    },
    what = sprintf("pieces of a %s-letter genome%s", format(g, big.mark = ","),
      if (!is.null(attr(genome, "header"))) paste0(" (", attr(genome, "header"), ")") else "")
  )
}

#' Nanopore-like errors on one string: homopolymer length errors, then
#' substitutions, deletions and insertions. Returns the string with the
#' number of error events as attribute "errors".
sim_errors <- function(x, error = 0.06, homopolymer = 0.10, split = c(sub = 0.40, del = 0.35, ins = 0.25)) {
  b <- utf8ToInt(x)
  hp <- 0L
  if (homopolymer > 0) {
    r <- rle(b)
    long <- r$lengths >= 3L
    flip <- long & stats::runif(length(long)) < homopolymer
    hp <- sum(flip)
    r$lengths[flip] <- r$lengths[flip] + sample(c(-1L, 1L), hp, replace = TRUE)
    b <- inverse.rle(r)
  }
  n <- length(b)
  u <- stats::runif(n)
  p <- error * split / sum(split)
  is_sub <- u < p[["sub"]]
  is_del <- u >= p[["sub"]] & u < p[["sub"]] + p[["del"]]
  is_ins <- u >= p[["sub"]] + p[["del"]] & u < p[["sub"]] + p[["del"]] + p[["ins"]]
  if (any(is_sub)) {
    at <- match(b[is_sub], sim_alphabet)
    at[is.na(at)] <- 1L
    b[is_sub] <- sim_alphabet[(at + sample.int(3L, sum(is_sub), replace = TRUE) - 1L) %% 4L + 1L]
  }
  times <- ifelse(is_del, 0L, ifelse(is_ins, 2L, 1L))
  out <- rep(b, times)
  first <- cumsum(times) - times + 1L
  out[first[is_ins]] <- sim_alphabet[sample.int(4L, sum(is_ins), replace = TRUE)]
  structure(intToUtf8(out), errors = hp + sum(is_sub) + sum(is_del) + sum(is_ins))
}

#' The designs: which barcodes (rows of a kit's table: name, barcode,
#' flank5, flank3) make the samples.
#' @param kit_rows A data frame with `name`, `barcode`, `flank5`, `flank3`
#'   (the whole flanks), one row per barcode.
#' @param design "native", "dual" or "rapid".
#' @param n_front,n_rear For "dual": the first `n_front` barcodes are the
#'   front ones, the next `n_rear` the rear ones (samples: every pair,
#'   named "front-rear"). Else the first `n_front * n_rear` barcodes.
sim_design <- function(kit_rows, design = c("native", "dual", "rapid"), n_front = 4L, n_rear = 3L) {
  design <- match.arg(design)
  construct <- stats::setNames(paste0(kit_rows$flank5, kit_rows$barcode, kit_rows$flank3), kit_rows$name)
  empty <- stats::setNames(paste0(kit_rows$flank5, kit_rows$flank3), kit_rows$name)
  if (design == "dual") {
    fr <- kit_rows$name[seq_len(n_front)]
    re <- kit_rows$name[n_front + seq_len(n_rear)]
    sheet <- expand.grid(front = fr, rear = re, stringsAsFactors = FALSE)
    sheet$sample <- paste0(sheet$front, "-", sheet$rear)
  } else {
    b <- kit_rows$name[seq_len(min(nrow(kit_rows), n_front * n_rear))]
    sheet <- data.frame(front = b, rear = if (design == "native") b else NA_character_, sample = b,
      stringsAsFactors = FALSE)
  }
  list(design = design, sheet = sheet, construct = construct, empty = empty[[1L]],
    flank5 = kit_rows$flank5[[1L]], barcode_length = nchar(kit_rows$barcode[[1L]]),
    front_names = unique(sheet$front), rear_names = unique(stats::na.omit(sheet$rear)))
}

#' One molecule's segments (before truncation and errors).
sim_molecule <- function(d, sample_row, insert, strand, leader, trailer) {
  s <- d$sheet[sample_row, ]
  cf <- d$construct[[s$front]]
  cr <- if (d$design == "rapid") NA_character_ else d$construct[[s$rear]]
  if (strand == "+") {
    c1 <- cf
    c2 <- if (is.na(cr)) "" else sim_rc(cr)
  } else {
    insert <- sim_rc(insert)
    c1 <- if (is.na(cr)) "" else cr
    c2 <- sim_rc(cf)
  }
  list(leader = leader, c1 = c1, insert = insert, c2 = c2, trailer = trailer,
    front = s$front, rear = s$rear, sample = s$sample, strand = strand)
}

#' Simulate `n` reads of a design.
#' @return A list: `reads` (a data frame: id, header, sequence, and the truth
#'   columns), `design` (sim_design()'s list), `params`.
simulate_run <- function(d, n, seed = 1L, insert_source = sim_insert_source(NULL),
                         min_length = 500L, max_length = 5000L,
                         error = 0.06, homopolymer = 0.10,
                         p_none = 0.10, p_flank_only = 0.5, p_chimera = 0.05,
                         p_trunc_front = 0.15, p_trunc_rear = 0.10, p_no_rear = 0.10,
                         max_leader = 30L) {
  set.seed(seed)
  ns <- nrow(d$sheet)
  kind <- sample(c("barcoded", "none", "chimera"), n, replace = TRUE,
    prob = c(1 - p_none - p_chimera, p_none, p_chimera))
  # the longest front truncation: the flank5 and a third of the barcode
  max_trunc <- nchar(d$flank5) + d$barcode_length %/% 3L
  rows <- vector("list", n)
  seqs <- character(n)
  for (i in seq_len(n)) {
    len <- sample.int(max_length - min_length + 1L, 1L) + min_length - 1L
    leader <- sim_random_dna(sample.int(max_leader + 1L, 1L) - 1L)
    trailer <- sim_random_dna(sample.int(max_leader + 1L, 1L) - 1L)
    strand <- if (stats::runif(1L) < 0.5) "+" else "-"
    first <- second <- NA_character_
    flanks <- NA
    if (kind[[i]] == "none") {
      flank_only <- stats::runif(1L) < p_flank_only
      flanks <- flank_only
      e <- if (flank_only) d$empty else ""
      # the flanks where the design's constructs would be
      front_e <- if (d$design == "rapid" && strand == "-") "" else e
      rear_e <- if (d$design != "rapid" || strand == "-") sim_rc(e) else ""
      parts <- list(leader = leader, c1 = front_e, insert = insert_source$draw(len), c2 = rear_e,
        trailer = trailer, front = NA_character_, rear = NA_character_, sample = "none", strand = strand)
    } else if (kind[[i]] == "barcoded") {
      parts <- sim_molecule(d, sample.int(ns, 1L), insert_source$draw(len), strand, leader, trailer)
    } else {
      sa <- sample.int(ns, 1L)
      sb <- sample.int(ns, 1L)
      half <- max(min_length, len %/% 2L)
      a <- sim_molecule(d, sa, insert_source$draw(half), strand, leader, sim_random_dna(sample.int(max_leader, 1L)))
      # front only: both molecules on one strand, so that a construct lies
      # between them
      b_strand <- if (d$design == "rapid") strand else if (stats::runif(1L) < 0.5) "+" else "-"
      b <- sim_molecule(d, sb, insert_source$draw(half), b_strand,
        sim_random_dna(sample.int(max_leader, 1L)), trailer)
      first <- a$sample
      second <- b$sample
      parts <- list(leader = a$leader, c1 = a$c1,
        insert = paste0(a$insert, a$c2, a$trailer, b$leader, b$c1, b$insert), c2 = b$c2, trailer = b$trailer,
        front = NA_character_, rear = NA_character_, sample = "chimera", strand = strand)
    }
    trunc_front <- 0L
    if (nzchar(parts$c1) && stats::runif(1L) < p_trunc_front) {
      trunc_front <- sample.int(min(max_trunc, nchar(parts$c1) - 1L), 1L)
      parts$leader <- ""
      parts$c1 <- substring(parts$c1, trunc_front + 1L)
    }
    rear_end <- if (nzchar(parts$c2)) "full" else "none"
    trunc_rear <- 0L
    if (nzchar(parts$c2)) {
      u <- stats::runif(1L)
      # the rear construct is lost only where the front has one (front
      # only, other strand: the rear construct is the read's only one,
      # cut into like the front's)
      if (u < p_no_rear && nzchar(parts$c1)) {
        rear_end <- "missing"
        parts$c2 <- ""
        parts$trailer <- ""
        parts$insert <- substr(parts$insert, 1L, nchar(parts$insert) - sample.int(50L, 1L))
      } else if (u < p_no_rear + p_trunc_rear) {
        t <- sample.int(min(max_trunc, nchar(parts$c2) - 1L), 1L)
        rear_end <- "truncated"
        trunc_rear <- t
        parts$c2 <- substr(parts$c2, 1L, nchar(parts$c2) - t)
        parts$trailer <- ""
      }
    }
    read <- sim_errors(paste0(parts$leader, parts$c1, parts$insert, parts$c2, parts$trailer),
      error = error, homopolymer = homopolymer)
    seqs[[i]] <- read
    rows[[i]] <- list(kind = kind[[i]], truth = parts$sample, strand = parts$strand,
      front = parts$front, rear = parts$rear, first = first, second = second, flanks = flanks,
      trunc_front = trunc_front, rear_end = rear_end, trunc_rear = trunc_rear, errors = attr(read, "errors"))
  }
  truth <- do.call(rbind, lapply(rows, as.data.frame, stringsAsFactors = FALSE))
  id <- sprintf("%s_%06d", d$design, seq_len(n))
  header <- paste0(id, " design=", d$design, " kind=", truth$kind, " truth=", truth$truth,
    " strand=", truth$strand,
    ifelse(is.na(truth$front), "", paste0(" front=", truth$front)),
    ifelse(is.na(truth$rear), "", paste0(" rear=", truth$rear)),
    ifelse(is.na(truth$first), "", paste0(" first=", truth$first, " second=", truth$second)),
    ifelse(is.na(truth$flanks), "", paste0(" flanks=", ifelse(truth$flanks, "yes", "no"))),
    " trunc_front=", truth$trunc_front, " rear_end=", truth$rear_end,
    ifelse(truth$trunc_rear > 0L, paste0(" trunc_rear=", truth$trunc_rear), ""), " errors=", truth$errors)
  reads <- cbind(data.frame(id = id, header = header, sequence = seqs, stringsAsFactors = FALSE), truth)
  reads$length <- nchar(reads$sequence)
  list(reads = reads, design = d, params = list(
    n = n, seed = seed, min_length = min_length, max_length = max_length, error = error,
    homopolymer = homopolymer, p_none = p_none, p_flank_only = p_flank_only, p_chimera = p_chimera,
    p_trunc_front = p_trunc_front, p_trunc_rear = p_trunc_rear, p_no_rear = p_no_rear,
    max_leader = max_leader, inserts = insert_source$what))
}

#' Write a simulated run as FASTQ (qualities all '5', Q20).
write_sim_fastq <- function(run, path) {
  r <- run$reads
  con <- file(path, "w")
  on.exit(close(con))
  writeLines(paste0("@", r$header, "\n", r$sequence, "\n+\n", strrep("5", nchar(r$sequence))), con)
  invisible(path)
}

#' The truth of a FASTQ written by write_sim_fastq(), from its headers alone.
sim_truth_from_headers <- function(headers) {
  headers <- sub("^@", "", headers)
  get <- function(key) {
    v <- ifelse(grepl(paste0(" ", key, "="), headers),
      sub(paste0(".* ", key, "=([^ ]*).*"), "\\1", headers), NA_character_)
    v
  }
  data.frame(id = sub(" .*", "", headers), kind = get("kind"), truth = get("truth"),
    strand = get("strand"), first = get("first"), second = get("second"), flanks = get("flanks"),
    stringsAsFactors = FALSE)
}

#' A check of the generator, without errors or truncations: every barcoded
#' read holds its constructs exactly, in its strand's places (the front's
#' construct forward within the first max_leader + 1 letters, the rear's
#' reverse complemented at the end), no other construct; a read without a
#' barcode none; a chimera at least two (front only) or four. Returns the
#' number of reads that fail (0 expected).
sim_self_check <- function(d, n = 100L, seed = 5L) {
  run <- simulate_run(d, n, seed = seed, error = 0, homopolymer = 0, p_trunc_front = 0, p_trunc_rear = 0,
    p_no_rear = 0)
  r <- run$reads
  C <- d$construct
  lead <- run$params$max_leader + 1L
  bad <- 0L
  for (i in seq_len(nrow(r))) {
    s <- r$sequence[[i]]
    at <- function(p) {
      m <- gregexpr(p, s, fixed = TRUE)[[1]]
      if (m[1] < 0) integer() else as.integer(m)
    }
    total <- sum(vapply(C, function(p) length(at(p)) + length(at(sim_rc(p))), 0L))
    at_front <- function(b) length(at(C[[b]])) == 1L && at(C[[b]]) <= lead
    at_rear <- function(b) {
      p <- sim_rc(C[[b]])
      length(at(p)) == 1L && at(p) + nchar(p) - 1L >= nchar(s) - lead + 1L
    }
    ok <- switch(r$kind[[i]],
      none = total == 0L,
      chimera = total >= if (d$design == "rapid") 2L else 4L,
      barcoded = if (d$design == "rapid") {
        total == 1L && if (r$strand[[i]] == "+") at_front(r$front[[i]]) else at_rear(r$front[[i]])
      } else if (r$strand[[i]] == "+") {
        total == 2L && at_front(r$front[[i]]) && at_rear(r$rear[[i]])
      } else {
        total == 2L && at_front(r$rear[[i]]) && at_rear(r$front[[i]])
      })
    if (!isTRUE(ok)) bad <- bad + 1L
  }
  bad
}
