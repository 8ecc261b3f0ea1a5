#!/usr/bin/env Rscript
# Builds inst/extdata/kits.tsv, the barcoding kits of sassy_kits(), from the
# kit files of qcat (Oxford Nanopore's demultiplexer, Debian package `qcat`,
# MPL-2.0): one row per barcode (per read end where the flanks differ) per
# kit. The table ships in the package; qcat is needed only to rebuild it:
#
#   apt-get install qcat && Rscript tools/kits-from-qcat.R [kit folder] [output]
#
# The kit folder defaults to the one of Debian's package
# (/usr/lib/python3/dist-packages/qcat/resources/kits).
#
# What a qcat kit file holds: a template `sequence` of the adapter as it is
# read, with the barcode as a run of N, and the barcodes put in its place.
# `*_5p.yml` is the template at the start of a read; `*_3p.yml` the template
# at the end of a read, written as the reverse complement of the read's end
# (qcat reverse-complements the last bases of a read before it aligns them).
# So both are written on the strand where the barcode reads forward, the
# strand of our `flank5` and `flank3`. A file without _5p/_3p is searched by
# qcat at the start of reads only (the rapid kits).
#
# Rows:
# - flank5 / flank3: the template's letters before / after the run of N.
# - A kit with a 5p and a 3p file whose barcodes agree and whose flanks agree
#   (one file's flank5 a suffix of the other's, one flank3 a prefix of the
#   other's: the same adapter, read with more or less of it) gives one row per
#   barcode with `ends = "both"` and the longer flanks.
# - Otherwise (PCR kits: a different primer at each end) one row per barcode
#   and end, `ends = "front"` (5p file) and `ends = "rear"` (3p file).
# - Where qcat has two 5p files that differ in single letters (the 16S kits'
#   27F primer, `_5p_a` and `_5p_c`), the flank holds the IUPAC code of both
#   letters (M for A or C), so one row stands for both.
# - Barcode names as qcat's output names them, `barcode01` ...; the 16S and
#   NBD114 files call them `BC01` ..., written here as `barcode01` too.
#   Where qcat lists a barcode twice (the 16S kits: the barcode and its
#   reverse complement, both in the same template), both rows are kept under
#   the one name.
#
# Not built: qcat's DUAL layout (two barcodes in one adapter, for the
# combinatorial designs of a later stage), its `simple_*` files (inactive in
# qcat), and its union kits NBD104/NBD114 and RAB204/RAB214 (use
# sassy_kit(c("EXP-NBD104", "EXP-NBD114")) for those). SQK-NBD114-96's
# barcodes 25-96 are in no Debian package: its barcodes 1-24 have the
# sequences and flanks of EXP-NBD104 and EXP-NBD114.

args <- commandArgs(trailingOnly = TRUE)
folder <- if (length(args) >= 1L) args[[1L]] else "/usr/lib/python3/dist-packages/qcat/resources/kits"
output <- if (length(args) >= 2L) args[[2L]] else "inst/extdata/kits.tsv"
if (!requireNamespace("yaml", quietly = TRUE)) stop("needs the R package yaml")
if (!dir.exists(folder)) stop("no qcat kit folder at ", folder, " (apt-get install qcat)")

version <- tryCatch(
  system2("dpkg-query", c("-W", shQuote("-f=${Version}"), "qcat"), stdout = TRUE, stderr = FALSE),
  error = function(e) character(), warning = function(w) character()
)
version <- if (length(version) == 1L && nzchar(version)) paste0("qcat ", version, " (Debian)") else "qcat"

# Our kits: ONT's catalogue names, qcat's kit name (its -k), its files.
kits <- list(
  list(kit = "EXP-NBD103", qcat = "NBD103/NBD104", front = "NBD104_5p.yml", rear = "NBD104_3p.yml"),
  list(kit = "EXP-NBD104", qcat = "NBD103/NBD104", front = "NBD104_5p.yml", rear = "NBD104_3p.yml"),
  list(kit = "EXP-NBD114", qcat = "NBD114", front = "NBD114_5p.yml", rear = "NBD114_3p.yml"),
  list(kit = "SQK-RBK001", qcat = "RBK001", front = "RBK001.yml"),
  list(kit = "SQK-RBK004", qcat = "RBK004", front = "RBK004.yml"),
  list(kit = "VSK-VMK001", qcat = "VMK001", front = "VMK001.yml"),
  list(kit = "SQK-RPB004", qcat = "RPB004/RLB001", front = "RPB004_RLB001.yml"),
  list(kit = "SQK-RLB001", qcat = "RPB004/RLB001", front = "RPB004_RLB001.yml"),
  list(kit = "EXP-PBC001", qcat = "PBC001", front = "PBC001_5p.yml", rear = "PBC001_3p.yml"),
  list(kit = "EXP-PBC096", qcat = "PBC096", front = "PBC096_5p.yml", rear = "PBC096_3p.yml"),
  list(kit = "SQK-PBK004", qcat = "PBK004/LWB001", front = "PBK004_LWB001_5p.yml", rear = "PBK004_LWB001_3p.yml"),
  list(kit = "SQK-LWB001", qcat = "PBK004/LWB001", front = "PBK004_LWB001_5p.yml", rear = "PBK004_LWB001_3p.yml"),
  list(kit = "SQK-RAB204", qcat = "RAB204", front = c("RAB201_5p_a.yml", "RAB201_5p_c.yml"), rear = "RAB201_3p.yml"),
  list(kit = "SQK-RAB214", qcat = "RAB214", front = c("RAB214_5p_a.yml", "RAB214_5p_c.yml"), rear = "RAB214_3p.yml")
)

# One qcat file: its template's flanks and its barcodes.
read_kit_file <- function(file) {
  d <- yaml::read_yaml(file.path(folder, file))
  template <- toupper(gsub("[[:space:]\"]", "", d$sequence))
  runs <- gregexpr("N+", template)[[1L]]
  if (length(runs) != 1L || runs[[1L]] < 0L) stop(file, ": not one run of N in its template")
  at <- runs[[1L]]
  len <- attr(runs, "match.length")[[1L]]
  bc <- d$barcode_set_1
  seqs <- toupper(vapply(bc, function(b) b$sequence, ""))
  if (any(nchar(seqs) != len)) stop(file, ": a barcode is not as long as the template's N")
  name <- vapply(bc, function(b) b$name, "")
  name <- sub("^BC([0-9]+)$", "barcode\\1", name)
  list(
    kit = d$kit,
    flank5 = substr(template, 1L, at - 1L),
    flank3 = substr(template, at + len, nchar(template)),
    barcodes = data.frame(barcode = name, sequence = seqs, stringsAsFactors = FALSE)
  )
}

iupac <- c(
  A = "A", C = "C", G = "G", T = "T", AC = "M", AG = "R", AT = "W", CG = "S",
  CT = "Y", GT = "K", ACG = "V", ACT = "H", AGT = "D", CGT = "B", ACGT = "N"
)
# Flanks of several files of one end, letter by letter: the IUPAC code of
# the letters they have at each place.
merge_letters <- function(x) {
  if (length(unique(nchar(x))) != 1L) stop("flanks of unequal length: ", paste(x, collapse = ", "))
  if (length(unique(x)) == 1L) return(x[[1L]])
  m <- do.call(rbind, strsplit(x, ""))
  paste(apply(m, 2L, function(l) iupac[[paste(sort(unique(l)), collapse = "")]]), collapse = "")
}

read_end <- function(files) {
  parts <- lapply(files, read_kit_file)
  for (p in parts[-1L]) {
    if (!identical(p$barcodes, parts[[1L]]$barcodes)) stop(paste(files, collapse = ", "), ": barcodes differ")
  }
  list(
    qcat = parts[[1L]]$kit,
    flank5 = merge_letters(vapply(parts, `[[`, "", "flank5")),
    flank3 = merge_letters(vapply(parts, `[[`, "", "flank3")),
    barcodes = parts[[1L]]$barcodes
  )
}

# One flank is the other read with more or less of the adapter: flank5s end
# alike, flank3s begin alike.
longer_if_agree <- function(a, b, side) {
  short <- if (nchar(a) <= nchar(b)) a else b
  long <- if (nchar(a) <= nchar(b)) b else a
  ok <- if (side == 5L) endsWith(long, short) else startsWith(long, short)
  if (ok) long else NA_character_
}

rows <- list()
for (k in kits) {
  front <- read_end(k$front)
  if (front$qcat != k$qcat) stop(k$kit, ": qcat calls ", k$front[[1L]], " ", front$qcat)
  row <- function(end, ends, flank5 = end$flank5, flank3 = end$flank3, files) {
    data.frame(
      kit = k$kit, barcode = end$barcodes$barcode, sequence = end$barcodes$sequence,
      flank5 = flank5, flank3 = flank3, ends = ends, qcat_kit = k$qcat,
      source = paste0(version, ": ", paste(files, collapse = " + ")),
      stringsAsFactors = FALSE
    )
  }
  if (is.null(k$rear)) {
    rows[[length(rows) + 1L]] <- row(front, "front", files = k$front)
    next
  }
  rear <- read_end(k$rear)
  f5 <- longer_if_agree(front$flank5, rear$flank5, 5L)
  f3 <- longer_if_agree(front$flank3, rear$flank3, 3L)
  if (identical(front$barcodes, rear$barcodes) && !is.na(f5) && !is.na(f3)) {
    rows[[length(rows) + 1L]] <- row(front, "both", f5, f3, files = c(k$front, k$rear))
  } else {
    rows[[length(rows) + 1L]] <- row(front, "front", files = k$front)
    rows[[length(rows) + 1L]] <- row(rear, "rear", files = k$rear)
  }
}
out <- do.call(rbind, rows)
stopifnot(!anyNA(out), all(grepl("^[ACGT]+$", out$sequence)))
write.table(out, output, sep = "\t", quote = FALSE, row.names = FALSE)
cat("wrote", nrow(out), "rows of", length(unique(out$kit)), "kits to", output, "\n")
