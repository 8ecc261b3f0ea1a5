# Barcode sets (issue 38): barcodes with their names, the constant flanks on
# each side and the read ends that carry them; the published kits: dorado's
# (inst/extdata/dorado-kits.tsv and dorado-barcodes.tsv, built from its
# barcode_kits.cpp by tools/kits-from-dorado.R, issue 46) and qcat's
# (inst/extdata/kits.tsv, built from qcat's kit files by
# tools/kits-from-qcat.R); and the one place, as_search_patterns(), where a
# set becomes the named patterns and the default `k` of a search.

#' Barcode sets and the published barcoding kits
#'
#' A barcode set holds barcodes with their names, the constant sequences
#' that flank them in a read (`flank5` before, `flank3` after, both written
#' 5'->3' on the strand where the barcode reads forward) and which read ends
#' carry them. Every assign and demultiplex verb ([sassy_assign()],
#' [sassy_assign_fastx()], [sassy_assign_table()],
#' [sassy_demultiplex_fastx()]) takes a set in place of `patterns`. A bare
#' named character vector still works everywhere, as a set without flanks.
#'
#' `sassy_kits()` lists the barcoding kits that ship with the package,
#' `sassy_kit()` returns the set of one (or several) of them, and
#' `sassy_barcodes()` makes a set of your own barcodes.
#'
#' @section How a set is searched:
#' Each barcode is searched as one pattern: `flank5`, the barcode and
#' `flank3` pasted together, named by the barcode's name (its sample). The
#' flanks anchor the alignment, so a barcode read with several errors is
#' still found, and a read without the kit's adapter has no hit. Searching
#' the flank first and the barcodes in its window (as dorado and barbell
#' do) needs two searches per read, and demultiplexing would have to do
#' both in the same pass; since all barcodes of a set share their flanks,
#' the one pattern already finds the site and tells the barcodes apart by
#' their own letters. Where the flanks at the front and the rear of a read
#' differ (PCR kits: a different primer at each end), the set has a row for
#' each end under one name; both rows are searched, and their name is the
#' read's sample.
#'
#' `sassy_kit()` keeps `flank_length = 16` letters of each flank next to the
#' barcode: measured on the real reads of a rapid barcoding run
#' (qcat-examples, 989 reads of SQK-RBK001 with known barcodes and 989
#' without, `benchmarks/kits.Rmd`, `ends = 250`), flank + barcode + flank
#' of 7 + 24 + 16 letters with k = 13 assigned 863 correctly, 1 wrongly and
#' 1 read without barcode (with the barcode cap of then, 11 edits; see *No
#' barcode without evidence* for today's); the whole flanks (7 + 24 + 50 letters) at k = 21
#' only 823 correctly and 3 wrongly (longer flanks need a larger `k` for
#' their own errors, which lets more barcodes through), the bare barcodes at
#' k = 5 about 755.
#'
#' The search options are those of the verb: `rc` (default `TRUE`) finds a
#' barcode at the rear end of a read, where it reads as the reverse
#' complement, and `ends = 250` limits the search to the first and last 250
#' letters of each read, which is faster on long reads and gives the same
#' answer when the barcodes are near the ends.
#'
#' @section The default k:
#' When a verb is given a set and no `k`, `k` is
#' `ceiling(error_rate * n)`, with `n` the length of the longest pattern
#' (flank5 + barcode + flank3) of the set, but below the length of the
#' shortest: the number of edits a pattern of `n` letters has when a
#' fraction `error_rate` of its letters is wrong. The default `error_rate =
#' 0.27` was chosen on the real reads above (k = 13 for 47 letters; the
#' same rate with flanks of 20 letters, k = 14, gave 860 correct, 2 wrong);
#' it suits nanopore reads of older chemistries, whose adapters are read
#' with many errors; for reads of higher accuracy, a lower rate (or a `k`)
#' keeps out more false hits. A `k` given to the verb is used as it is.
#'
#' @section Barcode edits:
#' With a set that has flanks, the assign verbs add the column
#' `barcode_cost` beside `cost`: the edits of the best hit's alignment that
#' fall on the barcode's own letters, apart from those in the flanks,
#' counted along its CIGAR: a substitution or a missing pattern letter at a
#' barcode position, an extra text letter between two of them, and a
#' barcode letter that hangs over the read's end (see *Read ends*: the read
#' does not show it). The search counts them as it assigns.
#'
#' The margin rule applies to them as well as to the costs: an end is
#' ambiguous when the best hit of another barcode (the runner-up) costs at
#' most `margin` more, or has at most `margin` more edits on its barcode,
#' so that fewer edits in its flanks cannot make up for a barcode that is
#' no better.
#'
#' @section No barcode without evidence:
#' An end names a barcode only when the barcode explains its letters
#' better, by the verb's `margin`, than the two explanations of a site
#' without one of the set's barcodes, each priced at
#' `U = ceiling(max(1/3, error_rate) * n) + 1` edits for the `n` letters
#' of the barcode that the explanation leaves to no barcode (9 of 24):
#' - *the flanks around a barcode the set lacks*: its flanks' edits plus
#'   `U`. Since the barcode's own hit pays those flanks' edits too, the
#'   barcode wins when its own letters have fewer than `U - margin` edits
#'   (`barcode_cost`; at most 8 of 24 with `margin = 0`; the barcode cap);
#' - *the flanks with nothing between them* (an adapter without barcode):
#'   the best hit of `flank5` + `flank3` in the same end (each flank of 5
#'   letters or more, 20 or more together, at most `ceiling(error_rate *
#'   f)` edits of its `f` letters, on either strand) plus `U`; the barcode
#'   wins when its hit costs less than that plus `margin`.
#'
#' An end that loses names no barcode; the read's reason is `"flank
#' without barcode"` (when no other end names its sample), and such a hit
#' in a read's middle is no chimera. This holds for every design: front
#' only, both ends, and front and rear barcodes that differ.
#'
#' The numbers that chose `U`: random letters are 9 to 15 edits from the
#' nearest of 12 barcodes of 24 letters (fewer than 9 for 2 in 1000), 7 to
#' 13 from the nearest of 96 (fewer than 9 for 2.4 in 100); EXP-NBD114's
#' barcodes 13-24 are 10 to 13 from EXP-NBD104's 1-12 (the former cap of
#' `ceiling(max(0.45, error_rate) * n)`, 11 of 24, let 4 of the 12 through,
#' and 47 of 200 random 24-mers). The true barcodes of the real reads of
#' SQK-RBK001 (qcat-examples, older chemistry) have 0 to 11 edits, 98% at
#' most 8: with `U = 9` 846 of their 989 reads are correct (was 863), none
#' wrong (was 1), 1 of the 989 without barcode assigned (was 1). On
#' simulated runs (6% errors, `benchmarks/kits.Rmd`; 3,000 reads each, 5%
#' adapters without barcode), the reads without barcode assigned fell from
#' 26 (front only, SQK-RBK004), 16 (native, EXP-NBD104), 47 (SQK-RBK114-96)
#' and 65 (SQK-NBD114-96) to 0, with every full barcoded read correct; the
#' barcode cap alone left 7, 6, 2 and 34 of them: the adapters without
#' barcode need the second explanation.
#'
#' @section Flanks without barcode:
#' A read whose ends name no barcode is also `"flank without barcode"`
#' when an end holds, on either strand, the set's flanks with no barcode
#' between them or around a slot as long as the barcode (`flank5`, any
#' letters, `flank3`), with at most `ceiling(0.75 * error_rate * f)` edits,
#' `f` the flanks' letters together (sets with `f >= 20`; 5 edits of
#' SQK-RBK001's 7 + 16), or one flank of 14 letters or more alone with at
#' most `floor(error_rate * n / 2)` edits of its `n` (2 of 16: a read that
#' starts or ends inside its barcode keeps one flank). One flank alone at
#' the set's error rate is no evidence: on the simulated runs of
#' `benchmarks/kits.Rmd`, a 16-letter flank with 5 edits is in an end of 3
#' reads in 4 that have no flank at all; these rules flag at most 2 in 100
#' of them, and most of the reads that carry an adapter without barcode
#' (see the reasons table there).
#'
#' @section Read ends:
#' A read may start or end inside its adapter, cutting off part of a flank.
#' `overhang = 0.5` lets a set's patterns hang over a read's own first and
#' last letters (not over the inner edge of an end), each letter beyond it
#' costing 0.5: an end that the search without overhang does not call is
#' searched again there. On the simulated runs of `benchmarks/kits.Rmd`,
#' with truncated ends, it calls 99.9% instead of 98.8% of the native run's
#' barcoded reads, 90.5% instead of 80.4% of the dual run's, 99.9% instead
#' of 91.5% of the front-only run's (cutadapt's best: 99.9%, 87.5%, 98.8%),
#' none wrong, and with the barcode cap assigns at most one more read
#' without a barcode; on the real reads above it changes nothing. It is not
#' the default because it is slower: sassy searches with overhang one
#' pattern at a time; demultiplexing took 78 instead of 21 microseconds a
#' read on those real reads (whose rear ends and reads without barcode are
#' all searched again), 39 instead of 24 on the simulated native run.
#'
#' @section Chimeras:
#' With `chimeras = "set_aside"` a read longer than twice `ends` is searched
#' between its ends for the set's patterns at three quarters of `k`
#' (`floor(0.75 * k)`): a barcode inside a read is whole and read as well as
#' the rest of the read, and a long middle offers many chances of a hit at
#' `k` by chance (on the simulated runs the chimeras' hits cost at most 10
#' of k = 16, the chance hits in reads without chimera k or k - 1).
#'
#' @section The kits and their sources:
#' The sequences are facts published by Oxford Nanopore. Every barcoding
#' kit that dorado 1.4 (ONT's basecaller and demultiplexer) defines comes
#' from its kit definitions (`dorado/utils/barcode_kits.cpp`), shipped as
#' `inst/extdata/dorado-kits.tsv` (one row per kit: its arrangement, ends
#' and flanks, its barcodes' names) and `dorado-barcodes.tsv` (every
#' barcode of dorado), rebuilt by `tools/kits-from-dorado.R`: the Kit 14
#' kits (SQK-NBD114-24/96, SQK-RBK114-24/96, SQK-PCB114-24, SQK-16S114-24,
#' SQK-RPB114-24, SQK-MLK114-96-XL, SQK-HTB114-96, SQK-MAB114-24), the Kit
#' 10/11 kits (SQK-RBK110-96, SQK-RBK111-24/96, SQK-NBD111-24/96,
#' SQK-PCB111-24, SQK-MLK111-96-XL, EXP-NBD196), the older ones, the RNA kit
#' SQK-DRB004-24 and the TWIST dual-index plates. dorado arranges a kit as:
#' - single-ended (rapid kits): the barcode between its two flanks at the
#'   read's front, `ends = "front"`; with `rear_only_barcodes` (RNA) at the
#'   read's 3' end reading forward: `ends = "rear"`, the row written
#'   reverse complemented (the strand where a rear row reads forward);
#' - double-ended with the same ends (native and rapid PCR kits): one row
#'   per barcode, `ends = "both"`; where dorado's rear flank is the front's
#'   read with a letter less (native kits: `CAGCACC` for `CAGCACCT`), the
#'   longer is kept;
#' - double-ended with different ends (PCR kits: a different primer at each
#'   end; TWIST: different front and rear barcodes): a `"front"` row (the
#'   front flanks and barcode) and a `"rear"` row (the rear's) per barcode,
#'   under one name.
#'
#' A barcode's name is dorado's sample name: `barcode` and the digits that
#' end its dorado name (`NB01`, `BC01`, `RBK26` and `AA01F_01` are
#' `barcode01`, `barcode01`, `barcode26` and `barcode01`); `names =
#' "dorado"` of the verbs prefixes the kit (`SQK-NBD114-96_barcode01`).
#'
#' qcat's kits (Debian package `qcat` 1.1.0, MPL-2.0; `inst/extdata/kits.tsv`,
#' rebuilt by `tools/kits-from-qcat.R`) are kept: SQK-RAB214 (16S, barcodes
#' 13-24, in both orientations as qcat lists them), which dorado lacks, and,
#' with `from = "qcat"`, qcat's own form of the 13 kits both define (the
#' same barcodes and flanks, except that qcat's SQK-RPB004 and SQK-RLB001
#' are front-only with both BC12 and RLB12A, its 16S kits list each barcode
#' in both orientations with the 27F primer's two forms as `M`, and its
#' VSK-VMK001 has 9 more letters of flank5). The `source` column of
#' `sassy_kits()` names the file of each kit. Custom arrangements: see
#' [sassy_barcodes_dorado()].
#'
#' @param name Kit names, as `sassy_kits()$kit` (and dorado) lists them
#'   (`"SQK-NBD114-96"`), or without the prefix (`"NBD114-96"`), in any case,
#'   `_` for `-`; an unknown name is an error of class
#'   `ducksassy_kit_error` that lists the closest names (its `closest`).
#'   Several names give one set of all their barcodes.
#' @param barcodes A character vector of barcodes (DNA or IUPAC letters),
#'   or a Biostrings `DNAStringSet`; their names are the samples'.
#' @param flank5,flank3 The constant sequence before (5') and after (3')
#'   each barcode, on the strand where the barcode reads forward: one string
#'   for all barcodes, or one per barcode; `""` (default) for none.
#' @param ends Which read ends carry each barcode: `"both"` (default),
#'   `"front"` or `"rear"`; one for all, or one per barcode.
#' @param error_rate The fraction of letters of a pattern that may be wrong,
#'   for the default `k` (see *The default k*): a number in `[0, 1)`.
#' @param flank_length How many letters of each flank, next to the barcode,
#'   the set keeps (and the search uses); `Inf` for the whole flanks of the
#'   table (see *How a set is searched*).
#' @param from `NULL` (default): each kit as dorado defines it, or qcat
#'   where dorado does not; `"dorado"` or `"qcat"`: that source's kits only
#'   (see *The kits and their sources*).
#' @return `sassy_kits()`: a data frame with one row per kit, by name:
#'   `kit`, `barcodes` (the number of barcode names), `ends` (the ends of
#'   its rows), `flank5_length`, `flank3_length` (the longest flanks),
#'   `dorado_arrangement` (dorado's name of its arrangement, `NA` for
#'   qcat's), `qcat_kit` (its name in qcat, `-k`, where qcat has it),
#'   `origin` (`"dorado"` or `"qcat"`: whose definition `sassy_kit()` gives)
#'   and `source` (the version and file).
#'
#'   `sassy_kit()` and `sassy_barcodes()`: a barcode set, a data frame of
#'   class `ducksassy_barcodes` with one row per barcode (per end where the
#'   flanks differ): `name`, `barcode`, `flank5`, `flank3`, `ends`; the
#'   attributes `error_rate` and `kit`.
#' @export
#' @examples
#' sassy_kits()
#' kit <- sassy_kit("RBK001")
#' kit
#' # Kit 14, by dorado's name in any case
#' sassy_kit("sqk-nbd114-96")
#'
#' # your own barcodes, with the sequences around them
#' set <- sassy_barcodes(
#'   c(s1 = "ACGTACGTACGTAC", s2 = "TTGCAATTGCAATT"),
#'   flank5 = "GGTGCTG", flank3 = "TTAACCT"
#' )
#' set
#' reads <- c(
#'   r1 = paste0("CCCCC", "GGTGCTG", "ACGTACGAACGTAC", "TTAACCT", "GGGGGGGGGG"),
#'   r2 = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
#' )
#' sassy_assign(reads, set)
sassy_kits <- function(from = NULL) {
  from <- check_kit_from(from, rlang::current_env())
  tab <- kit_choice(kit_table(), from)
  kits <- sort(unique(tab$kit))
  rows <- lapply(kits, function(k) {
    r <- tab[tab$kit == k, , drop = FALSE]
    data.frame(
      kit = k,
      barcodes = length(unique(r$barcode)),
      ends = paste(unique(r$ends), collapse = ", "),
      flank5_length = max(nchar(r$flank5)),
      flank3_length = max(nchar(r$flank3)),
      dorado_arrangement = r$dorado_arrangement[[1L]],
      qcat_kit = r$qcat_kit[[1L]],
      origin = r$origin[[1L]],
      source = paste(unique(r$source), collapse = "; "),
      stringsAsFactors = FALSE
    )
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

check_kit_from <- function(from, call) {
  if (is.null(from)) {
    return(NULL)
  }
  if (!is.character(from) || length(from) != 1L || is.na(from) || !from %in% c("dorado", "qcat")) {
    abort_scalar("from", "`NULL`, \"dorado\" or \"qcat\"", from, call)
  }
  from
}

#' @rdname sassy_kits
#' @export
sassy_kit <- function(name, error_rate = 0.27, flank_length = 16L, from = NULL) {
  call <- rlang::current_env()
  if (!is.character(name) || length(name) == 0L || anyNA(name) || any(name == "")) {
    abort_scalar("name", "one or more kit names, as `sassy_kits()$kit` lists them", name, call)
  }
  from <- check_kit_from(from, call)
  tab <- kit_choice(kit_table(), from)
  kits <- sort(unique(tab$kit))
  found <- vapply(name, function(n) match_kit(n, kits), "")
  bad <- is.na(found)
  if (any(bad)) {
    n <- name[bad][[1L]]
    close <- close_kits(n, kits)
    ducksassy_abort(
      c(
        paste0("`name` must be a kit of `sassy_kits()`; there is no kit ", format_value(n), "."),
        if (length(close)) c(i = paste0("The closest names: ", paste0("\"", close, "\"", collapse = ", "), ".")),
        i = "`sassy_barcodes()` makes a set of other barcodes; `sassy_barcodes_dorado()` reads dorado's custom arrangements."
      ),
      class = c("ducksassy_kit_error", "ducksassy_input_error"),
      arg = "name", value = n, closest = close, call = call
    )
  }
  found <- unique(found)
  rows <- tab[tab$kit %in% found, , drop = FALSE]
  rows <- rows[order(match(rows$kit, found)), , drop = FALSE]
  if (!is.numeric(flank_length) || length(flank_length) != 1L || is.na(flank_length) || flank_length < 0) {
    abort_scalar("flank_length", "a single number >= 0 (`Inf` for the whole flanks)", flank_length, call)
  }
  new_barcodes(
    rows$barcode, rows$sequence, keep_flanks(rows$flank5, flank_length, TRUE),
    keep_flanks(rows$flank3, flank_length, FALSE), rows$ends,
    check_error_rate(error_rate, call), kit = found
  )
}

# The letters of each flank next to the barcode: the last `n` of flank5
# (`from_end`), the first `n` of flank3.
keep_flanks <- function(x, n, from_end) {
  len <- nchar(x)
  if (from_end) substring(x, pmax(1, len - pmin(len, n) + 1)) else substr(x, 1L, pmin(len, n))
}

#' @rdname sassy_kits
#' @export
sassy_barcodes <- function(barcodes, flank5 = "", flank3 = "",
                           ends = c("both", "front", "rear"),
                           error_rate = 0.27) {
  call <- rlang::current_env()
  barcodes <- as_texts(barcodes, "barcodes", call = call)
  if (length(barcodes) == 0L || anyNA(barcodes) || any(barcodes == "")) {
    abort_scalar("barcodes", "a character vector of one or more barcodes, none `NA` or empty", barcodes, call)
  }
  n <- length(barcodes)
  per_barcode <- function(x, arg) {
    if (!is.character(x) || anyNA(x) || !length(x) %in% c(1L, n)) {
      abort_scalar(arg, paste0("a string, or one per barcode (", n, "), none `NA`"), x, call)
    }
    rep_len(toupper(x), n)
  }
  flank5 <- per_barcode(flank5, "flank5")
  flank3 <- per_barcode(flank3, "flank3")
  if (missing(ends)) {
    ends <- "both"
  }
  if (!is.character(ends) || !length(ends) %in% c(1L, n) || anyNA(ends) ||
    !all(ends %in% c("both", "front", "rear"))) {
    abort_scalar("ends", paste0("\"both\", \"front\" or \"rear\", one for all barcodes or one per barcode (", n, ")"), ends, call)
  }
  letters_ok <- function(x) grepl("^[ACGTURYSWKMBDHVN]*$", x)
  for (arg in c("barcodes", "flank5", "flank3")) {
    x <- toupper(switch(arg, barcodes = barcodes, flank5 = flank5, flank3 = flank3))
    bad <- which(!letters_ok(x))
    if (length(bad)) {
      abort_value(arg, paste0("`", arg, "` must be DNA or IUPAC letters (A, C, G, T, U, R, Y, S, W, K, M, B, D, H, V, N)."),
        x[[bad[[1L]]]], call)
    }
  }
  nm <- names(barcodes)
  new_barcodes(
    if (is.null(nm)) rep(NA_character_, n) else nm, toupper(unname(barcodes)),
    flank5, flank3, rep_len(ends, n), check_error_rate(error_rate, call)
  )
}

#' @rdname sassy_kits
#' @param x A barcode set.
#' @param ... Not used.
#' @method print ducksassy_barcodes
#' @export
print.ducksassy_barcodes <- function(x, ...) {
  n <- length(unique(x$name))
  what <- attr(x, "kit")
  cat(
    "<ducksassy_barcodes> ", n, " barcode", if (n != 1L) "s",
    if (nrow(x) != n) paste0(" (", nrow(x), " rows)"),
    if (length(what)) paste0(" of ", paste(what, collapse = ", ")),
    "\n",
    sep = ""
  )
  flanked <- any(nzchar(x$flank5) | nzchar(x$flank3))
  cat(
    "flanks: ", if (flanked) paste0(max(nchar(x$flank5)), " + ", max(nchar(x$flank3)), " letters") else "none",
    "; ends: ", paste(unique(x$ends), collapse = ", "),
    "; default k: ", default_set_k(x),
    " (error_rate ", format(attr(x, "error_rate")), ")\n",
    sep = ""
  )
  short <- function(s, w, left) {
    long <- nchar(s) > w
    s[long] <- if (left) paste0("...", substring(s[long], nchar(s[long]) - w + 4L)) else paste0(substr(s[long], 1L, w - 3L), "...")
    s
  }
  show <- data.frame(
    name = x$name, flank5 = short(x$flank5, 12L, TRUE), barcode = x$barcode,
    flank3 = short(x$flank3, 12L, FALSE), ends = x$ends,
    stringsAsFactors = FALSE
  )
  rows <- min(nrow(show), 10L)
  print(show[seq_len(rows), , drop = FALSE], row.names = FALSE)
  if (nrow(show) > rows) {
    cat("... and", nrow(show) - rows, "more rows\n")
  }
  invisible(x)
}

# ---------------------------------------------------------------------------
# Internals

#' A barcode set: the data frame and its attributes
#' @noRd
new_barcodes <- function(name, barcode, flank5, flank3, ends, error_rate,
                         kit = NULL) {
  x <- data.frame(
    name = name, barcode = barcode, flank5 = flank5, flank3 = flank3,
    ends = ends, stringsAsFactors = FALSE
  )
  attr(x, "error_rate") <- error_rate
  attr(x, "kit") <- kit
  class(x) <- c("ducksassy_barcodes", "data.frame")
  x
}

is_barcode_set <- function(x) inherits(x, "ducksassy_barcodes")

check_error_rate <- function(error_rate, call) {
  if (!is.numeric(error_rate) || length(error_rate) != 1L || is.na(error_rate) ||
    error_rate < 0 || error_rate >= 1) {
    abort_scalar("error_rate", "a single number in [0, 1)", error_rate, call)
  }
  as.double(error_rate)
}

# The kits' table, read once per session: one row per barcode (per end
# where the flanks differ) per kit and source: qcat's rows
# (inst/extdata/kits.tsv) and dorado's (dorado_kit_rows() of
# inst/extdata/dorado-kits.tsv and dorado-barcodes.tsv), with `origin`
# "qcat" or "dorado".
kit_cache <- new.env(parent = emptyenv())
kit_table <- function() {
  if (is.null(kit_cache$table)) {
    q <- read_extdata_tsv("kits.tsv")
    q$dorado_arrangement <- NA_character_
    q$origin <- "qcat"
    d <- dorado_table()
    rows <- lapply(seq_len(nrow(d$kits)), function(i) dorado_kit_rows(d$kits[i, , drop = FALSE], d$barcodes))
    d <- do.call(rbind, rows)
    d$qcat_kit <- NA_character_
    d <- d[names(q)]
    # qcat's name of a kit that both define
    d$qcat_kit <- q$qcat_kit[match(d$kit, q$kit)]
    kit_cache$table <- rbind(d, q)
  }
  kit_cache$table
}

# A tab-separated file of inst/extdata, as character columns.
read_extdata_tsv <- function(file) {
  path <- system.file("extdata", file, package = "ducksassy")
  lines <- strsplit(readLines(path), "\t", fixed = TRUE)
  cols <- lines[[1L]]
  # a last empty field (an empty barcodes2) is dropped by strsplit()
  body <- lapply(lines[-1L], function(l) c(l, rep("", length(cols) - length(l))))
  tab <- as.data.frame(do.call(rbind, body), stringsAsFactors = FALSE)
  names(tab) <- cols
  tab
}

# dorado's kits (one row each) and barcodes (tools/kits-from-dorado.R).
dorado_table <- function() {
  kits <- read_extdata_tsv("dorado-kits.tsv")
  for (col in c("double_ends", "ends_different", "rear_only_barcodes", "rna_barcodes")) {
    kits[[col]] <- as.logical(kits[[col]])
  }
  list(kits = kits, barcodes = read_extdata_tsv("dorado-barcodes.tsv"))
}

#' The rows of a barcode set for one dorado arrangement (a KitInfo)
#'
#' @param k A one-row data frame (or list) of dorado-kits.tsv's columns:
#'   `kit`, `arrangement`, `double_ends`, `ends_different`,
#'   `rear_only_barcodes`, the four flanks, `barcodes`, `barcodes2` (names
#'   joined by ","; `barcodes2` empty: the front's), `source`.
#' @param barcodes A data frame of `barcode` (name) and `sequence`.
#' @return The kit table's rows: `kit`, `barcode` (the sample name dorado
#'   gives it: `barcode` and the digits that end its name), `sequence`,
#'   `flank5`, `flank3`, `ends`, `dorado_arrangement`, `origin`, `source`.
#'   A single-ended kit: `ends = "front"`; with `rear_only_barcodes`, the
#'   construct reads forward at the read's 3' end, so its row is `"rear"`,
#'   written reverse complemented (the strand where a rear row reads
#'   forward). A double-ended kit: `"both"` where its ends are the same
#'   (`ends_different` false), or its rear barcodes are the front's and its
#'   rear flanks the front's read with fewer letters (native kits'
#'   `CAGCACC` for `CAGCACCT`: the longer flanks kept); else a `"front"`
#'   row (the top flanks, the front barcodes) and a `"rear"` row (the
#'   bottom flanks, the rear barcodes) per barcode, under one name.
#' @noRd
dorado_kit_rows <- function(k, barcodes) {
  split <- function(x) if (is.na(x) || !nzchar(x)) character() else strsplit(x, ",", fixed = TRUE)[[1L]]
  b1 <- split(k$barcodes)
  b2 <- split(k$barcodes2)
  if (!length(b2)) b2 <- b1
  seq_of <- function(b) unname(barcodes$sequence[match(b, barcodes$barcode)])
  name <- dorado_barcode_name(b1)
  mk <- function(seq, f5, f3, ends) {
    data.frame(
      kit = k$kit, barcode = name, sequence = seq, flank5 = f5, flank3 = f3, ends = ends,
      dorado_arrangement = k$arrangement, origin = "dorado", source = k$source,
      stringsAsFactors = FALSE
    )
  }
  tf <- k$top_front_flank
  tr <- k$top_rear_flank
  if (!isTRUE(k$double_ends)) {
    if (isTRUE(k$rear_only_barcodes)) {
      return(mk(revcomp_dna(seq_of(b1)), revcomp_dna(tr), revcomp_dna(tf), "rear"))
    }
    return(mk(seq_of(b1), tf, tr, "front"))
  }
  if (!isTRUE(k$ends_different)) {
    return(mk(seq_of(b1), tf, tr, "both"))
  }
  bf <- k$bottom_front_flank
  br <- k$bottom_rear_flank
  same5 <- endsWith(tf, bf) || endsWith(bf, tf)
  same3 <- startsWith(tr, br) || startsWith(br, tr)
  if (identical(b1, b2) && same5 && same3) {
    longer <- function(a, b) if (nchar(a) >= nchar(b)) a else b
    return(mk(seq_of(b1), longer(tf, bf), longer(tr, br), "both"))
  }
  rbind(mk(seq_of(b1), tf, tr, "front"), mk(seq_of(b2), bf, br, "rear"))
}

# The sample name dorado gives a barcode: "barcode" and the digits that end
# its name (BC01, NB01, RB01: barcode01; RLB12A: barcode12; AA01F_01:
# barcode01), dorado's normalize_barcode_name().
dorado_barcode_name <- function(x) {
  digits <- regmatches(x, regexpr("[0-9]+(?=[^0-9]*$)", x, perl = TRUE))
  out <- rep(NA_character_, length(x))
  out[grepl("[0-9]", x)] <- paste0("barcode", digits)
  out[is.na(out)] <- x[is.na(out)]
  out
}

revcomp_dna <- function(x) {
  chartr(
    "ACGTUMRWSYKVHDBNacgtumrwsykvhdbn", "TGCAAKYWSRMBDHVNtgcaakywsrmbdhvn",
    vapply(strsplit(x, ""), function(l) paste(rev(l), collapse = ""), "")
  )
}

# The kits of the table, one definition each: dorado's where dorado defines
# the kit, else qcat's (`from`: only that source's).
kit_choice <- function(tab, from = NULL) {
  if (!is.null(from)) {
    return(tab[tab$origin == from, , drop = FALSE])
  }
  dorado <- unique(tab$kit[tab$origin == "dorado"])
  tab[tab$origin == "dorado" | !tab$kit %in% dorado, , drop = FALSE]
}

# A kit name as users write it: with or without the prefix (SQK-, EXP-,
# VSK-), in any case, `_` for `-`.
match_kit <- function(n, kits) {
  key <- function(x) gsub("_", "-", toupper(x))
  bare <- sub("^[A-Z]{3,5}-", "", key(kits))
  i <- match(key(n), key(kits))
  if (is.na(i)) {
    i <- match(key(n), bare)
  }
  if (is.na(i)) NA_character_ else kits[[i]]
}

# The kits whose names are closest to a wrong one (utils::adist, with or
# without the prefix): the three closest.
close_kits <- function(n, kits) {
  if (nchar(n, type = "bytes") > 60L) {
    return(character())
  }
  key <- function(x) gsub("_", "-", toupper(x))
  bare <- sub("^[A-Z]{3,5}-", "", key(kits))
  d <- pmin(utils::adist(key(n), key(kits))[1L, ], utils::adist(key(n), bare)[1L, ])
  kits[order(d, kits)][seq_len(min(3L, length(kits)))]
}

#' The default k of a set (see ?sassy_kits, *The default k*)
#' @noRd
default_set_k <- function(set) {
  n <- nchar(set_patterns(set))
  # a set cut with `[` may have lost its attributes: the default rate
  rate <- attr(set, "error_rate") %||% 0.27
  k <- ceiling(rate * max(n))
  as.integer(max(0, min(k, min(n) - 1L)))
}

# The set's patterns: flank5 + barcode + flank3, named by the barcodes.
set_patterns <- function(set) {
  p <- paste0(set$flank5, set$barcode, set$flank3)
  nm <- set$name
  if (all(is.na(nm))) {
    return(p)
  }
  nm[is.na(nm)] <- ""
  names(p) <- nm
  p
}

#' Patterns, or a barcode set, as the named patterns and k of a search
#'
#' The one place where a barcode set becomes what the engine searches:
#' called at the top of every assign and demultiplex verb.
#'
#' @param x `patterns` as the user gave it.
#' @param k The verb's `k`; `NULL` when the user did not give one.
#' @return A list: `patterns` (the named patterns: flank5 + barcode + flank3
#'   for a set, `x` itself otherwise), `k` (the given one, else the set's
#'   default, else `0L`) and `set` (the set, or `NULL`).
#' @noRd
as_search_patterns <- function(x, k = NULL) {
  if (!is_barcode_set(x)) {
    return(list(patterns = x, k = if (is.null(k)) 0L else k, set = NULL))
  }
  list(
    patterns = set_patterns(x),
    k = if (is.null(k)) default_set_k(x) else k,
    set = x
  )
}

#' The plan of an assignment with the barcode letters of each pattern of
#' a set with flanks (new_plan()'s `barcode_from`, `barcode_to`): the
#' result then has `barcode_cost`, and the margin compares it
#' @noRd
with_barcode_spans <- function(plan, set) {
  if (!needs_barcode_cost(set)) {
    return(plan)
  }
  plan$barcode_from <- as.integer(nchar(set$flank5))
  plan$barcode_to <- as.integer(nchar(set$flank5) + nchar(set$barcode))
  plan
}

#' Edits of pattern-direction CIGARs on the pattern letters `first + 1` to
#' `first + len`: `X` and `I` there, `D` between two of them, and each of
#' those letters that hangs over the text's edge (the CIGAR starts at the
#' pattern letter `from + 1`). The core counts the same way
#' (barcode_edits.rs).
#' @noRd
barcode_edits <- function(cigar, first, len, from = 0L) {
  out <- rep(NA_integer_, length(cigar))
  from <- rep_len(from, length(cigar))
  for (r in which(!is.na(cigar))) {
    n <- as.integer(regmatches(cigar[[r]], gregexpr("[0-9]+", cigar[[r]]))[[1L]])
    op <- regmatches(cigar[[r]], gregexpr("[=XID]", cigar[[r]]))[[1L]]
    p <- from[[r]] # pattern letters consumed
    a <- first[[r]]
    b <- a + len[[r]]
    # barcode letters before the aligned part (overhang)
    e <- max(0L, min(p, b) - a)
    for (j in seq_along(op)) {
      if (op[[j]] == "D") {
        if (p > a && p < b) e <- e + n[[j]]
      } else {
        if (op[[j]] != "=") e <- e + max(0L, min(p + n[[j]], b) - max(p, a))
        p <- p + n[[j]]
      }
    }
    # ... and after it
    out[[r]] <- as.integer(e + max(0L, b - max(p, a)))
  }
  out
}

#' The price of a barcode's letters explained as letters of no barcode of
#' the set (?sassy_kits, *No barcode without evidence*):
#' `ceiling(max(1/3, error_rate) * n) + 1` edits for a barcode of `n`
#' letters (9 of 24), of each row of a set with flanks; `NULL` otherwise
#' @noRd
barcode_price <- function(set) {
  if (!needs_barcode_cost(set)) {
    return(NULL)
  }
  rate <- attr(set, "error_rate") %||% 0.27
  as.integer(ceiling(max(1 / 3, rate) * nchar(set$barcode) - 1e-9) + 1L)
}

#' The most edits on its barcode's letters a hit may have to name the
#' barcode (the barcode cap, see ?sassy_kits): `ceiling(max(0.45,
#' error_rate) * n)` for a barcode of `n` letters (11 of 24), of each row of
#' a set with flanks; `NULL` otherwise. A backstop: the explanations of
#' no_barcode_between() (ends-assign.R) decide first.
#' @noRd
barcode_caps <- function(set) {
  if (!needs_barcode_cost(set)) {
    return(NULL)
  }
  rate <- attr(set, "error_rate") %||% 0.27
  as.integer(ceiling(max(0.45, rate) * nchar(set$barcode)))
}

# Whether the assignment gets `barcode_cost`: a set with flanks.
needs_barcode_cost <- function(set) {
  !is.null(set) && any(nzchar(set$flank5) | nzchar(set$flank3))
}

#' The verb's `k`, or `NULL` when its user gave none
#'
#' `call` is the verb's frame (new_verb()): `missing(k)` is asked there,
#' where `k` is a formal with a default.
#' @noRd
given_k <- function(k, call) {
  not_given <- tryCatch(eval(quote(missing(k)), call), error = function(e) FALSE)
  if (isTRUE(not_given)) {
    return(NULL)
  }
  # a k that is given must be one (`k = NULL` is no "not given")
  check_k(k, call = call)
}
