# The ONT-like barcode workload of benchmarks/barcodes.Rmd (issue 23):
# seeded, deterministic, base R only.
#
# `reads` reads of `min_length`-`max_length` random bases (uniform length);
# `barcodes` random barcodes of `barcode_length` bases (distinct). A read
# with a barcode (all but a fraction `no_barcode`) carries one barcode,
# chosen uniformly, starting 20-60 bases after the read's start (that many
# bases precede it) and, reverse-complemented, the same barcode ending
# 60-100 bases before the read's end; each of the two copies gets 0-3
# random edits (uniformly: a substitution by another base, an insertion of
# a random base, a deletion of one base, at a random position of the copy).
# The flanks and the rest of the read are random bases.
#
# Sourced by barcodes.R (make_barcode_data(), write_barcode_data()), or run
# alone:
#   Rscript benchmarks/barcodes_data.R [--reads=3000] [--barcodes=96]
#     [--seed=23] [--out=DIR]
# writes DIR/reads.fastq, reads.txt (one read per line, for the Rust
# binary), barcodes.fasta, barcodes.txt (one per line), truth.csv.

BARCODE_DEFAULTS <- list(
  reads = 3000L, barcodes = 96L, barcode_length = 24L, min_length = 500L,
  max_length = 6000L, start_offset = c(20L, 60L), end_offset = c(60L, 100L),
  max_edits = 3L, no_barcode = 0.1, seed = 23L
)

revcomp <- function(x) {
  vapply(x, function(s) intToUtf8(rev(utf8ToInt(chartr("ACGT", "TGCA", s)))), "", USE.NAMES = FALSE)
}

#' Up to `max_edits` (uniformly 0..max_edits) random edits of one sequence
#' given as a character vector of letters; returns the edited letters and
#' the number of edits.
edit_copy <- function(letters, max_edits) {
  bases <- c("A", "C", "G", "T")
  n_edits <- sample.int(max_edits + 1L, 1L) - 1L
  for (e in seq_len(n_edits)) {
    kind <- sample.int(3L, 1L)
    pos <- sample.int(length(letters), 1L)
    if (kind == 1L) {
      letters[pos] <- sample(setdiff(bases, letters[pos]), 1L)
    } else if (kind == 2L) {
      letters <- append(letters, sample(bases, 1L), after = pos - 1L)
    } else {
      letters <- letters[-pos]
    }
  }
  list(letters = letters, edits = n_edits)
}

#' The workload as R values: `reads` (named character vector), `barcodes`
#' (named character vector, names bc01, bc02, ...) and `truth` (a data
#' frame: name, length, barcode (name, NA for reads without one), index,
#' start and end of the forward copy, start and end of the reverse copy
#' (1-based, inclusive), edits of each copy).
make_barcode_data <- function(reads = BARCODE_DEFAULTS$reads, barcodes = BARCODE_DEFAULTS$barcodes,
                              barcode_length = BARCODE_DEFAULTS$barcode_length,
                              min_length = BARCODE_DEFAULTS$min_length,
                              max_length = BARCODE_DEFAULTS$max_length,
                              start_offset = BARCODE_DEFAULTS$start_offset,
                              end_offset = BARCODE_DEFAULTS$end_offset,
                              max_edits = BARCODE_DEFAULTS$max_edits,
                              no_barcode = BARCODE_DEFAULTS$no_barcode,
                              seed = BARCODE_DEFAULTS$seed) {
  set.seed(seed)
  bases <- c("A", "C", "G", "T")
  rand <- function(n) sample(bases, n, replace = TRUE)
  bc <- character()
  while (length(bc) < barcodes) {
    bc <- unique(c(bc, vapply(seq_len(barcodes - length(bc)),
                              function(i) paste(rand(barcode_length), collapse = ""), "")))
  }
  names(bc) <- sprintf(paste0("bc%0", nchar(barcodes), "d"), seq_len(barcodes))
  bc_rc <- revcomp(bc)
  width <- nchar(reads)
  read_names <- sprintf(paste0("read%0", width, "d"), seq_len(reads))
  lengths <- sample(min_length:max_length, reads, replace = TRUE)
  carries <- stats::runif(reads) >= no_barcode
  which_bc <- ifelse(carries, sample.int(barcodes, reads, replace = TRUE), NA_integer_)
  out <- character(reads)
  truth <- data.frame(
    name = read_names, length = lengths, barcode = names(bc)[which_bc], index = which_bc,
    fwd_start = NA_integer_, fwd_end = NA_integer_, fwd_edits = NA_integer_,
    rev_start = NA_integer_, rev_end = NA_integer_, rev_edits = NA_integer_,
    stringsAsFactors = FALSE
  )
  for (i in seq_len(reads)) {
    len <- lengths[i]
    if (!carries[i]) {
      out[i] <- paste(rand(len), collapse = "")
      next
    }
    j <- which_bc[i]
    fwd <- edit_copy(strsplit(bc[[j]], "")[[1]], max_edits)
    rev <- edit_copy(strsplit(bc_rc[[j]], "")[[1]], max_edits)
    lead <- sample(start_offset[1]:start_offset[2], 1L)
    tail <- sample(end_offset[1]:end_offset[2], 1L)
    middle <- len - lead - tail - length(fwd$letters) - length(rev$letters)
    seq <- c(rand(lead), fwd$letters, rand(max(middle, 0L)), rev$letters, rand(tail))
    out[i] <- paste(seq, collapse = "")
    truth$fwd_start[i] <- lead + 1L
    truth$fwd_end[i] <- lead + length(fwd$letters)
    truth$fwd_edits[i] <- fwd$edits
    truth$rev_end[i] <- length(seq) - tail
    truth$rev_start[i] <- truth$rev_end[i] - length(rev$letters) + 1L
    truth$rev_edits[i] <- rev$edits
    truth$length[i] <- length(seq)
  }
  names(out) <- read_names
  list(reads = out, barcodes = bc, truth = truth)
}

#' Write the workload into `dir` (created) and return the paths: reads.fastq
#' (quality `I` throughout), reads.txt, barcodes.fasta, barcodes.txt,
#' truth.csv. Files that exist are kept when `overwrite` is FALSE (the
#' workload is deterministic in its arguments; `dir` should name them).
write_barcode_data <- function(dir, data, overwrite = FALSE) {
  dir.create(dir, showWarnings = FALSE, recursive = TRUE)
  paths <- list(
    fastq = file.path(dir, "reads.fastq"), txt = file.path(dir, "reads.txt"),
    fasta = file.path(dir, "barcodes.fasta"), barcodes_txt = file.path(dir, "barcodes.txt"),
    truth = file.path(dir, "truth.csv")
  )
  if (!overwrite && all(file.exists(unlist(paths)))) return(paths)
  r <- data$reads
  quals <- vapply(nchar(r), function(n) strrep("I", n), "")
  writeLines(c(rbind(paste0("@", names(r)), unname(r), "+", quals)), paths$fastq, useBytes = TRUE)
  writeLines(unname(r), paths$txt, useBytes = TRUE)
  writeLines(c(rbind(paste0(">", names(data$barcodes)), unname(data$barcodes))), paths$fasta)
  writeLines(unname(data$barcodes), paths$barcodes_txt)
  utils::write.csv(data$truth, paths$truth, row.names = FALSE)
  paths
}

if (sys.nframe() == 0L) {
  # run alone: Rscript benchmarks/barcodes_data.R [--reads=N] [--out=DIR] ...
  a <- commandArgs(trailingOnly = TRUE)
  get_arg <- function(name, default) {
    hit <- grep(paste0("^--", name, "="), a, value = TRUE)
    if (length(hit)) sub("^[^=]*=", "", hit[[1]]) else default
  }
  n <- as.integer(get_arg("reads", BARCODE_DEFAULTS$reads))
  nb <- as.integer(get_arg("barcodes", BARCODE_DEFAULTS$barcodes))
  seed <- as.integer(get_arg("seed", BARCODE_DEFAULTS$seed))
  out <- get_arg("out", file.path(tempdir(), "barcodes"))
  d <- make_barcode_data(reads = n, barcodes = nb, seed = seed)
  p <- write_barcode_data(out, d, overwrite = TRUE)
  message(sprintf("%d reads (%.1f Mbp, %d with a barcode), %d barcodes in %s",
                  n, sum(nchar(d$reads)) / 1e6, sum(!is.na(d$truth$barcode)), nb, out))
}
