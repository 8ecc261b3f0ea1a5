# sassy_detect_kit(): which kit a run used, named from its reads (issue 51),
# and the check that a set of sassy_kit() fits the reads it is given.
#
# Kits are grouped by their arrangement: the sites a read carries, each a
# flank pair around a barcode slot at an end. Kits that share an arrangement
# (SQK-NBD111-24, SQK-NBD114-24, ... ) are searched once. A first pass
# searches every arrangement's flanks, with a slot of N where the barcode
# goes, in the ends of the sampled reads; each read goes to the arrangement
# that explains it best; a second pass searches the barcodes of the
# arrangements that explain enough reads, in their reads only.

#' Which kit is this run? Name it from the reads
#'
#' Every demultiplexer makes you name the kit, and a wrong name fails
#' quietly: most reads come back unclassified. `sassy_detect_kit()` samples
#' the first `n` records of a run and names the kits of [sassy_kits()] whose
#' flanks and barcodes the reads carry.
#'
#' @section How it decides:
#' The kits of [sassy_kits()] are grouped by their *arrangement*: the sites
#' a read carries, each a pair of flanks around a barcode slot at a read
#' end (front only, rear only, or both ends, the rear reverse
#' complemented). Kits that share an arrangement are searched once.
#'
#' 1. The flanks of every arrangement (the `flank_length` letters of each
#'    flank nearest the barcode, as [sassy_kit()] keeps them), with a slot
#'    of `N` as long as the barcodes between them, are searched in the first
#'    and last `ends` letters of each read, on both strands, with at most
#'    `ceiling(error_rate * flank letters)` edits.
#' 2. Each read's best explanation is the arrangement with the most of its
#'    sites found; on a tie, the one with fewer sites (a front-only kit
#'    explains a read with one site better than a both-ends kit missing its
#'    rear), then the lower total cost. The arrangement that is the best
#'    explanation of the most reads takes every read in which it has a site,
#'    then the next among the reads left, and so on (so a both-ends run with
#'    truncated reads is one row, not two).
#' 3. For each arrangement with at least `min_fraction` of the sampled
#'    reads, the barcodes of all its kits (without flanks, at most 27% of
#'    their letters wrong, the kits' default rate) are assigned, as
#'    [sassy_assign()] does, in the slot between the flanks of each of its
#'    reads' best flank hit (3 letters more on each side). A barcode is
#'    *found* with at least 3 reads and at least 0.5% of the arrangement's
#'    reads assigned.
#' 4. `kit` is the kit with the fewest barcodes that holds every barcode
#'    found (by name and sequence); `kits` every kit of the arrangement
#'    that holds them, dorado's aliases included. Where no kit holds them
#'    all, the kit that holds the most.
#'
#' @section The wrong kit given:
#' `sassy_assign_fastx()` and `sassy_demultiplex_fastx()` given a set of
#' [sassy_kit()] first read the first 2,000 records of the first file and
#' search them for every arrangement's flanks (the first pass above). When
#' more than half of them carry none of the given kit's sites and are best
#' explained by one other arrangement, they warn (class
#' `ducksassy_kit_warning`, with fields `kit`, `detected` and `shares`),
#' naming that arrangement's largest kit. The check judges flanks, not
#' barcodes: ONT's kits share barcodes, so a wrong kit still assigns some
#' reads. It costs about a tenth of a second; `options(ducksassy.kit_check
#' = FALSE)` turns it off. Sets of [sassy_barcodes()] and
#' [sassy_barcodes_dorado()] are never checked.
#'
#' @param paths FASTA/FASTQ/uBAM files (plain or compressed), read in order
#'   until `n` records; or the reads themselves: a character vector of
#'   sequences (every element of IUPAC letters only) or a Biostrings
#'   `XStringSet`.
#' @param n The number of records to sample: the first `n` (a whole number
#'   `>= 1`). 10,000 reads name a kit in well under a second.
#' @param ends The letters at each read end searched for the flanks and
#'   barcodes (a whole number `>= 1`).
#' @param min_fraction The least share of the sampled reads an arrangement
#'   must explain to be reported (a number in `(0, 1]`).
#' @param error_rate The edits allowed per flank letter in the first pass (a
#'   number in `[0, 1)`).
#' @param threads Worker threads for the searches.
#' @return A data frame of class `ducksassy_kit_detection`, one row per
#'   arrangement that explains at least `min_fraction` of the sampled reads,
#'   best first: `kit`, `kits` (a list of character vectors), `reads` (the
#'   reads it explains), `fraction` (of the sampled reads), `ends`
#'   (`"front"`, `"rear"` or `"both"`), `barcodes` (a list of named integer
#'   vectors: the reads of each barcode found, most first) and `flanks` (the
#'   arrangement's sites, as text). Attribute `sampled`: the number of reads
#'   sampled. No row when no arrangement explains `min_fraction` of the
#'   reads (a custom kit: describe it with [sassy_barcodes()]).
#' @seealso [sassy_kit()] to make the set of a detected kit (restricted to
#'   the barcodes found, if you like: see the example); the check of the
#'   demultiplexing verbs that warns when a set of [sassy_kit()] does not fit
#'   the reads (option `ducksassy.kit_check`).
#' @export
#' @examples
#' set <- sassy_kit("SQK-RBK114-24")
#' set.seed(1)
#' rdna <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")
#' reads <- vapply(1:200, function(i) {
#'   b <- 1 + i %% 3
#'   paste0(rdna(20), set$flank5[b], set$barcode[b], set$flank3[b], rdna(400))
#' }, "")
#' d <- sassy_detect_kit(reads)
#' d
#' # the set of the kit found, only its barcodes found
#' found <- sassy_kit(d$kit[1])
#' found <- found[found$name %in% names(d$barcodes[[1]]), ]
#' table(sassy_assign(reads, found, ends = 150)$sample)
sassy_detect_kit <- function(paths, n = 10000L, ends = 150L, min_fraction = 0.05,
                             error_rate = 0.2, threads = sassy_threads()) {
  call <- rlang::current_env()
  n <- check_whole_arg(n, "n", 1, call)
  ends <- check_whole_arg(ends, "ends", 1, call)
  if (!is.numeric(min_fraction) || length(min_fraction) != 1L || is.na(min_fraction) ||
    min_fraction <= 0 || min_fraction > 1) {
    abort_scalar("min_fraction", "a single number in (0, 1]", min_fraction, call)
  }
  error_rate <- check_error_rate(error_rate, call)
  threads <- check_threads(threads, call = call)
  texts <- sample_reads(paths, n, call)
  detect_kit(texts, ends, min_fraction, error_rate, threads)
}

# A whole number >= `lowest` (integer-valued doubles up to 2^31 - 1).
check_whole_arg <- function(x, arg, lowest, call) {
  if (!is_whole_scalar(x) || x < lowest || x > .Machine$integer.max) {
    abort_scalar(arg, paste0("a single whole number >= ", lowest), x, call)
  }
  as.integer(x)
}

#' The first `n` records of `paths` (files, sequences or an XStringSet), as
#' a character vector of sequences
#' @noRd
sample_reads <- function(paths, n, call) {
  if (is_xstringset(paths)) {
    return(as.character(utils::head(paths, n)))
  }
  if (is.character(paths) && length(paths) && !anyNA(paths) &&
    all(grepl("^[ACGTURYSWKMBDHVNacgturyswkmbdhvn]+$", paths))) {
    return(utils::head(unname(paths), n))
  }
  paths <- check_fastx_paths(paths, "paths", call = call)
  size <- fastx_batch_size(call = call)
  out <- character()
  for (p in paths) {
    if (length(out) >= n) break
    res <- ds_fastx_read(path.expand(p), n - length(out), size[["bytes"]], size[["records"]])
    res <- fastx_result(res, "paths", p, call = call)
    out <- c(out, res$sequence)
  }
  if (!length(out)) {
    ducksassy_abort(
      c("`paths` must hold at least one record.", x = paste0(
        "The file", if (length(paths) > 1L) "s" else "", " ", paste(format_value(paths), collapse = ", "),
        " hold", if (length(paths) > 1L) "" else "s", " none."
      )),
      class = c("ducksassy_file_error", "ducksassy_input_error"), arg = "paths",
      value = paths, call = call
    )
  }
  out
}

#' The kits' arrangements: one row per site of each arrangement
#'
#' @return A list: `sites`, a data frame of `arrangement` (an integer),
#'   `pattern` (flank5, a slot of N, flank3), `k`, `window` ("front" or
#'   "rear") and `strand` ("+" or "-") per atom, `site` (the atoms of one
#'   site share it); `kits`, a data frame of `kit`, `arrangement` and
#'   `barcodes` (their number); `rows`, the kit table's rows of those kits.
#' @noRd
kit_arrangements <- function(flank_length = 16L, error_rate = 0.2) {
  key <- paste(flank_length, error_rate)
  if (!is.null(kit_cache$arrangements[[key]])) {
    return(kit_cache$arrangements[[key]])
  }
  tab <- kit_choice(kit_table(), NULL)
  tab$f5 <- keep_flanks(tab$flank5, flank_length, TRUE)
  tab$f3 <- keep_flanks(tab$flank3, flank_length, FALSE)
  tab$slot <- paste0(tab$f5, strrep("N", nchar(tab$sequence)), tab$f3)
  kits <- sort(unique(tab$kit))
  # a kit's arrangement: its distinct (slot, ends) rows, as one key
  keys <- vapply(kits, function(k) {
    r <- tab[tab$kit == k, , drop = FALSE]
    paste(sort(unique(paste(r$slot, r$ends))), collapse = ";")
  }, "")
  ids <- match(keys, unique(keys))
  kit_df <- data.frame(
    kit = kits, arrangement = ids,
    barcodes = vapply(kits, function(k) length(unique(tab$barcode[tab$kit == k])), 1L),
    stringsAsFactors = FALSE, row.names = NULL
  )
  sites <- do.call(rbind, lapply(seq_along(unique(keys)), function(a) {
    r <- unique(tab[tab$kit == kits[match(a, ids)], c("slot", "f5", "f3", "ends")])
    do.call(rbind, lapply(seq_len(nrow(r)), function(i) {
      atoms <- switch(r$ends[[i]],
        # one site, read forward at the front or reversed at the rear
        front = data.frame(window = c("front", "rear"), strand = c("+", "-"), site = 1L),
        rear = data.frame(window = c("rear", "front"), strand = c("+", "-"), site = 1L),
        # two sites: forward at the front, reverse complemented at the rear
        both = data.frame(window = c("front", "rear"), strand = c("+", "-"), site = 1:2)
      )
      atoms$site <- paste(a, i, atoms$site)
      cbind(
        arrangement = a, pattern = r$slot[[i]],
        k = as.integer(ceiling(error_rate * (nchar(r$f5[[i]]) + nchar(r$f3[[i]])))),
        flanks = paste0(r$f5[[i]], "..", r$f3[[i]], " (", r$ends[[i]], ")"),
        f5_length = nchar(r$f5[[i]]), f3_length = nchar(r$f3[[i]]), atoms,
        stringsAsFactors = FALSE
      )
    }))
  }))
  out <- list(sites = sites, kits = kit_df, rows = tab)
  kit_cache$arrangements[[key]] <- out
  out
}

#' The first pass: the flanks of every arrangement in the reads' ends
#'
#' @return A data frame, one row per (read, arrangement) with a site found:
#'   `record`, `arrangement`, `found` (its sites found), `sites` (its sites),
#'   `cost` (the sum of their best costs), and the best hit of its sites:
#'   `start`, `end`, `strand`.
#' @noRd
flank_hits <- function(texts, arr, ends, threads) {
  sites <- arr$sites
  pats <- unique(sites$pattern)
  k <- sites$k[match(pats, sites$pattern)]
  # one search per edit limit (`k` of a search is one number)
  h <- do.call(rbind, lapply(sort(unique(k)), function(kk) {
    i <- which(k == kk)
    r <- sassy_search(texts, pats[i], k = kk, alphabet = "iupac", rc = TRUE, ends = ends,
      threads = threads)
    r$pattern <- i[r$pattern]
    r[c("record", "pattern", "start", "end", "strand", "cost")]
  }))
  empty <- data.frame(record = integer(), arrangement = integer(), found = integer(),
    sites = integer(), cost = double(), start = integer(), end = integer(), strand = character(),
    f5_length = integer(), f3_length = integer())
  if (!nrow(h)) {
    return(empty)
  }
  len <- nchar(texts, type = "bytes")[h$record]
  # a hit in both windows (a short read) is an atom of each
  h <- rbind(
    cbind(h[h$start <= ends, , drop = FALSE], window = rep("front", sum(h$start <= ends))),
    cbind(h[h$end > len - ends, , drop = FALSE], window = rep("rear", sum(h$end > len - ends)))
  )
  atom <- paste(pats[h$pattern], h$window, h$strand)
  site_atom <- paste(sites$pattern, sites$window, sites$strand)
  # each hit is an atom of every site row that has it
  of <- split(seq_len(nrow(sites)), factor(site_atom, levels = unique(site_atom)))
  rows <- of[match(atom, names(of))]
  keep <- lengths(rows) > 0L
  i <- rep(which(keep), lengths(rows[keep]))
  j <- unlist(rows[keep], use.names = FALSE)
  if (!length(i)) {
    return(empty)
  }
  m <- data.frame(
    record = h$record[i], arrangement = sites$arrangement[j], site = match(sites$site[j], unique(sites$site)),
    cost = h$cost[i], start = h$start[i], end = h$end[i], strand = h$strand[i],
    f5_length = sites$f5_length[j], f3_length = sites$f3_length[j], stringsAsFactors = FALSE
  )
  # the best hit of each site in each read
  m <- m[order(m$record, m$site, m$cost), , drop = FALSE]
  m <- m[!duplicated(m[c("record", "site")]), , drop = FALSE]
  # per (read, arrangement): sites found, their costs, the best hit
  m <- m[order(m$record, m$arrangement, m$cost), , drop = FALSE]
  key <- paste(m$record, m$arrangement)
  first <- !duplicated(key)
  out <- m[first, c("record", "arrangement", "start", "end", "strand", "f5_length", "f3_length"), drop = FALSE]
  g <- factor(key, levels = key[first])
  out$found <- as.integer(tabulate(g, nlevels(g)))
  out$cost <- as.vector(rowsum(m$cost, g, reorder = FALSE))
  n_sites <- tapply(sites$site, sites$arrangement, function(s) length(unique(s)))
  out$sites <- as.integer(n_sites[as.character(out$arrangement)])
  rownames(out) <- NULL
  out
}

#' Each read's arrangement: the one with most of its sites found, then
#' fewer sites, then the lower cost (`NA`: none)
#' @noRd
best_arrangement <- function(fh, n) {
  fh <- fh[order(fh$record, -fh$found, fh$sites, fh$cost, fh$arrangement), , drop = FALSE]
  first <- fh[!duplicated(fh$record), , drop = FALSE]
  out <- rep(NA_integer_, n)
  out[first$record] <- first$arrangement
  out
}

#' The arrangements that explain the reads, greedily: the one that is the
#' best explanation of the most reads takes every read it explains (a site
#' found), then the next among the reads left, while one has at least
#' `least` reads
#' @return A list of integer vectors of records, named by arrangement, in
#'   the order taken.
#' @noRd
cover_reads <- function(fh, n, least) {
  best <- best_arrangement(fh, n)
  left <- rep(TRUE, n)
  out <- list()
  repeat {
    counts <- tabulate(best[left & !is.na(best)], max(c(fh$arrangement, 1L)))
    a <- which.max(counts)
    if (!length(a) || counts[[a]] < max(1, least)) break
    mine <- unique(fh$record[fh$arrangement == a])
    mine <- mine[left[mine]]
    out[[as.character(a)]] <- mine
    left[mine] <- FALSE
    best[mine] <- NA_integer_
  }
  out
}

#' The detection from the sampled texts (see sassy_detect_kit())
#' @noRd
detect_kit <- function(texts, ends, min_fraction, error_rate, threads) {
  arr <- kit_arrangements(16L, error_rate)
  fh <- flank_hits(texts, arr, ends, threads)
  cover <- cover_reads(fh, length(texts), min_fraction * length(texts))
  rows <- lapply(names(cover), function(a) {
    a <- as.integer(a)
    hits <- fh[fh$arrangement == a & fh$record %in% cover[[as.character(a)]], , drop = FALSE]
    kit_row(a, texts, hits, arr, threads, length(texts))
  })
  out <- if (length(rows)) {
    do.call(rbind, rows)
  } else {
    data.frame(kit = character(), kits = I(list()), reads = integer(), fraction = double(),
      ends = character(), barcodes = I(list()), flanks = character(), stringsAsFactors = FALSE)
  }
  out$kits <- unclass(out$kits)
  out$barcodes <- unclass(out$barcodes)
  rownames(out) <- NULL
  attr(out, "sampled") <- length(texts)
  class(out) <- c("ducksassy_kit_detection", "data.frame")
  out
}

#' The barcode slot of each read's best flank hit, with `pad` letters more
#' on each side, read so that the site reads forward (reverse complemented
#' where the hit is on "-")
#' @noRd
slot_windows <- function(texts, hits, pad = 3L) {
  site <- substr(texts[hits$record], hits$start, hits$end)
  minus <- hits$strand == "-"
  if (any(minus)) site[minus] <- revcomp_dna(site[minus])
  substr(site, pmax(1L, hits$f5_length + 1L - pad), nchar(site) - hits$f3_length + pad)
}

#' One arrangement's row: its barcodes (the second pass: the kits'
#' barcodes, without flanks, in the slot between each read's flank hit)
#' and kits
#' @noRd
kit_row <- function(a, texts, hits, arr, threads, sampled) {
  kits <- arr$kits$kit[arr$kits$arrangement == a]
  rows <- arr$rows[arr$rows$kit %in% kits, , drop = FALSE]
  u <- unique(rows[c("barcode", "sequence")])
  # a barcode has at most 27% of its letters wrong (the kits' default rate)
  k <- as.integer(ceiling(0.27 * min(nchar(u$sequence))))
  res <- sassy_assign(slot_windows(texts, hits), u$sequence, k = k, rc = FALSE, threads = threads)
  # (by index: a dual kit's front and rear barcodes may share a name)
  got <- table(u$barcode[res$pattern[res$status == "assigned"]])
  found <- sort(got[got >= max(3, 0.005 * nrow(hits))], decreasing = TRUE)
  found <- stats::setNames(as.integer(found), names(found))
  holds <- vapply(kits, function(k) sum(names(found) %in% rows$barcode[rows$kit == k]), 1L)
  size <- arr$kits$barcodes[match(kits, arr$kits$kit)]
  full <- holds == length(found)
  best <- if (any(full)) which(full)[order(size[full], kits[full])][[1L]] else order(-holds, size, kits)[[1L]]
  s <- arr$sites[arr$sites$arrangement == a, , drop = FALSE]
  ends_of <- unique(rows$ends)
  data.frame(
    kit = kits[[best]],
    kits = I(list(if (any(full)) kits[full][order(size[full], kits[full])] else kits[[best]])),
    reads = nrow(hits), fraction = nrow(hits) / sampled,
    ends = if (length(ends_of) == 1L) ends_of else "both",
    barcodes = I(list(found)),
    flanks = paste(unique(s$flanks), collapse = "; "),
    stringsAsFactors = FALSE
  )
}

#' @rdname sassy_detect_kit
#' @param x A result of `sassy_detect_kit()`.
#' @param ... Not used.
#' @method print ducksassy_kit_detection
#' @export
print.ducksassy_kit_detection <- function(x, ...) {
  sampled <- attr(x, "sampled") %||% NA_integer_
  cat("<ducksassy kit detection: ", format(sampled, big.mark = ","), " reads sampled>\n", sep = "")
  if (!nrow(x)) {
    cat(
      "No kit's flanks explain enough of the reads. A custom kit? Describe it with\n",
      "sassy_barcodes() (or sassy_barcodes_dorado() for dorado's arrangement files).\n",
      sep = ""
    )
    return(invisible(x))
  }
  for (i in seq_len(nrow(x))) {
    b <- x$barcodes[[i]]
    shown <- if (length(b)) {
      paste0(
        paste0(names(b), " (", b, ")", collapse = ", ")
      )
    } else {
      "none"
    }
    if (nchar(shown) > 70L) shown <- paste0(substr(shown, 1L, 67L), "...")
    cat(sprintf(
      "%d. %s: %s of the reads (%s), %s; %d barcode%s: %s\n", i, x$kit[[i]],
      paste0(format(round(100 * x$fraction[[i]], 1), nsmall = 1), "%"), format(x$reads[[i]], big.mark = ","),
      x$ends[[i]], length(b), if (length(b) == 1L) "" else "s", shown
    ), sep = "")
    if (length(x$kits[[i]]) > 1L) {
      cat("   also named: ", paste(setdiff(x$kits[[i]], x$kit[[i]]), collapse = ", "), "\n", sep = "")
    }
  }
  invisible(x)
}

# ---------------------------------------------------------------------------
# The check of a kit's set against the reads it is given

#' The reads the kit check samples: the first of the first file
#' @noRd
kit_check_reads <- 2000L

#' Warn when the reads carry another arrangement's flanks than the kit's
#'
#' For a set of [sassy_kit()] (never a custom set): the first
#' `kit_check_reads` records of the first file are searched for the flanks
#' of every arrangement (the first pass of sassy_detect_kit()). When the
#' reads that no site of the given kit's arrangement explains are more than
#' half of them and most of those are best explained by one other
#' arrangement, a warning of class `ducksassy_kit_warning` names that
#' arrangement's largest kit and the share each explains. Judged by flanks, not barcodes: ONT's kits
#' share barcodes. Off with `options(ducksassy.kit_check = FALSE)`; any
#' error of its own is left to the verb, which reads the files next.
#' @noRd
check_kit_fit <- function(paths, set, threads, call) {
  kit <- attr(set, "kit")
  if (is.null(kit) || !is_barcode_set(set) || isFALSE(getOption("ducksassy.kit_check", TRUE))) {
    return(invisible(NULL))
  }
  threads <- tryCatch(check_threads(threads, call = call), error = function(e) 1L)
  texts <- tryCatch(sample_reads(paths[[1L]], kit_check_reads, call), error = function(e) NULL)
  if (length(texts) < 20L) {
    return(invisible(NULL))
  }
  arr <- kit_arrangements(16L, 0.2)
  given <- unique(arr$kits$arrangement[arr$kits$kit %in% kit])
  if (!length(given)) {
    # a custom arrangement of dorado's (sassy_barcodes_dorado())
    return(invisible(NULL))
  }
  fh <- flank_hits(texts, arr, 150L, threads)
  n <- length(texts)
  mine <- unique(fh$record[fh$arrangement %in% given])
  other <- fh[!fh$record %in% mine & !fh$arrangement %in% given, , drop = FALSE]
  best <- best_arrangement(other, n)
  counts <- tabulate(best[!is.na(best)], max(c(arr$kits$arrangement, 1L)))
  a <- which.max(counts)
  if (!length(a) || counts[[a]] <= n / 2) {
    return(invisible(NULL))
  }
  kits <- arr$kits[arr$kits$arrangement == a, , drop = FALSE]
  # the arrangement's largest kit (it holds every barcode of the others),
  # the last by name on a tie (SQK-PCB114-24 after SQK-PCB111-24)
  name <- kits$kit[order(-kits$barcodes, -rank(kits$kit))][[1L]]
  pct <- function(x) paste0(format(round(100 * x / n, 1), nsmall = 1), "%")
  cli::cli_warn(
    c(
      paste0(
        "Most of the first ", format(n, big.mark = ","), " reads carry the flanks of ",
        cli_escape(name), ", not those of ", cli_escape(paste(kit, collapse = ", ")), "."
      ),
      i = paste0(
        "Flanks of ", cli_escape(paste(kit, collapse = ", ")), ": ", pct(length(mine)),
        " of the reads; of ", cli_escape(name), " (and kits that share its flanks): ", pct(counts[[a]]), "."
      ),
      i = "`sassy_detect_kit()` names a run's kit from its reads; `options(ducksassy.kit_check = FALSE)` turns this check off."
    ),
    class = "ducksassy_kit_warning", kit = kit, detected = name,
    shares = c(given = length(mine) / n, detected = counts[[a]] / n), call = call
  )
  invisible(NULL)
}
