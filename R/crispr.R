#' CRISPR off-target search
#'
#' @description
#' Find the possible off-target sites of CRISPR guide RNAs: every place where
#' a guide, followed by its PAM, matches a text (a genome, contigs, reads)
#' with at most `k` edits in the guide and, by default, the PAM matched
#' exactly. The search is sassy's (Beeloo and Groot Koerkamp), in parallel
#' and SIMD-accelerated, as in [sassy_search()].
#'
#' * `sassy_crispr()` searches a character vector or a Biostrings
#'   `XStringSet` (e.g. a `DNAStringSet` genome).
#' * `sassy_crispr_fastx()` searches FASTA/FASTQ files, plain or compressed,
#'   read in streaming batches in native code as [sassy_search_fastx()] does.
#' * `sassy_crispr_table()` searches a sequence column of a database table
#'   in chunks, as [sassy_search_table()] does.
#'
#' @section What counts as a hit:
#' Each guide carries its PAM as its last `pam_length` letters, written
#' 5' to 3' on the guide's strand, e.g. `"GACGCATAAAGATGAGACGCNGG"` for a
#' SpCas9 guide with PAM `NGG` (IUPAC codes are allowed anywhere: `N`
#' matches any base, `R` A or G, and so on). Let the *spacer* be the guide
#' without its PAM. A hit ends at text position `end` when
#'
#' * (default, `allow_pam_edits = FALSE`) the PAM matches the `pam_length`
#'   letters of the text that end at `end`, letter by letter, without edits,
#'   and the spacer matches the text just before them with at most `k`
#'   edits (substitutions, insertions, deletions). `cost` is the number of
#'   edits; the `cigar` ends with `pam_length` matches (`3=`);
#' * (`allow_pam_edits = TRUE`) the whole guide, PAM included, matches the
#'   text ending at `end` with at most `k` edits, anywhere in it;
#'
#' and the matched region (`start` to `end`, PAM included) has at most a
#' fraction `max_n_frac` of `N` letters: a run of `N` in an assembly matches
#' any guide, and is dropped by the default `0.2`.
#'
#' With `indels = FALSE` only mismatches count, as in Cas-OFFinder: the
#' spacer is placed on the `nchar(spacer)` letters just before the PAM with
#' at most `k` mismatches (the PAM still matched exactly), or with
#' `allow_pam_edits = TRUE` the whole guide on `nchar(guide)` letters with
#' at most `k` mismatches, PAM included. Each placement is one hit, `cost`
#' its mismatches and the `cigar` only `=` and `X`.
#'
#' Every qualifying end position is reported, not only the best one of a
#' site, as sassy's own `crispr` command does (a site followed by `AGGG`
#' gives a hit of cost 0 ending after `AGG` and one of cost 1 ending after
#' `GGG`). With `rc = TRUE` (the default) the reverse complement is searched
#' too: a hit with `strand = "-"` is a site on the other strand, its region
#' is reported on the forward text as always (`start` <= `end`) and its
#' `cigar` aligns the guide with the reverse complement of that region. Keep
#' the best hit per site with e.g. `hits[order(hits$cost), ]` and
#' `!duplicated()` on the coordinates you consider one site.
#'
#' The costs are those of sassy's `crispr` command (searching the whole
#' guide and keeping the end positions where the PAM matches gives the
#' same cost as searching the spacer and checking the PAM after it); here
#' the spacer is searched and the PAM checked, so the reported alignment
#' never has edits in the PAM.
#'
#' Guides of different lengths and with different PAMs (SpCas9 `NGG`,
#' `NAG`, SaCas9 `NNGRRT`, ...) can be searched in one call: each guide is
#' searched on its own with its own PAM, and `pam_length` may give one PAM
#' length per guide.
#'
#' The PAM must come last. For a nuclease whose PAM lies 5' of the
#' protospacer (Cas12a, `TTTV`), give the reverse complement of PAM + spacer,
#' which ends with the reverse complement of the PAM (`BAAA`): with
#' `rc = TRUE` the same sites are found, with the strands swapped.
#'
#' @section Inputs:
#' The texts come first and the guides second, in every function of the
#' package (`sassy_crispr(texts, guides)` as `sassy_search(texts,
#' patterns)`; earlier versions of `sassy_crispr()` took the guides first).
#' When every text is shorter than every guide (by more than `k` letters, so
#' that none can have a hit) the arguments look swapped
#' and a warning of class `ducksassy_swapped_arguments_warning` says so.
#'
#' `texts` and `guides` may be character vectors or Biostrings objects
#' (`DNAStringSet`, `RNAStringSet` with U read as T, `BStringSet`,
#' `DNAString`); the names of `texts` become the `name` column. Texts and
#' guides are read as IUPAC codes, upper or lower case; any other letter is
#' an error naming the record (or guide), the position and the letter.
#' Texts shorter than a guide or its PAM, empty texts and `NA` texts simply
#' have no hits.
#'
#' @section Errors:
#' Bad arguments are errors of class `ducksassy_error` (subclass
#' `ducksassy_input_error`) naming the argument, the index and the value:
#' `guides` that are not a character vector or `XStringSet`, empty, `NA`,
#' or with letters outside IUPAC; `pam_length` not whole numbers `>= 1`
#' (one, or one per guide) or not less than the length of its guide; `k` not a whole number `>= 0`
#' or not less than the length of every spacer (every guide with
#' `allow_pam_edits = TRUE`); `max_n_frac` outside `[0, 1]`; flags that
#' are not `TRUE` or `FALSE`; `threads` not a whole number in `1..1024`.
#' More hits than `getOption("ducksassy.max_hits")` is a
#' `ducksassy_limit_error`, never a truncated table.
#'
#' @param texts Sequences to search: a character vector or a Biostrings
#'   `XStringSet` / `XString`, as for [sassy_search()].
#' @param guides Guide sequences, each ending with its PAM: a character
#'   vector or a Biostrings `XStringSet` of IUPAC letters, none `NA` or
#'   empty, at least one. Named guides give a `guide_name` column.
#' @param k Maximum number of edits in a hit, a single whole number `>= 0`
#'   and less than the length of every spacer (guide minus PAM), or with
#'   `allow_pam_edits = TRUE` of every guide.
#' @param pam_length Number of letters at the end of each guide that are its
#'   PAM: a whole number `>= 1` and less than the length of every guide, or
#'   one such number per guide. Default `3L` (`NGG`).
#' @param allow_pam_edits `FALSE` (default): the PAM must match exactly.
#'   `TRUE`: edits in the PAM count towards `k` like any other.
#' @param max_n_frac Largest fraction of `N` letters in a hit's region (PAM
#'   included), a number in `[0, 1]`; `1` or `NULL` keeps every hit. Default
#'   `0.2`.
#' @param rc Also search the reverse complement, `TRUE` (default) or `FALSE`.
#' @param cigar Return the alignment as a CIGAR string (`TRUE`, default);
#'   `FALSE` gives `NA` and saves time and memory.
#' @param cigar_style `"pattern"` (default) or `"sam"`: the CIGAR in the
#'   guide's direction or along the text, as in SAM files; see
#'   [sassy_search()], *CIGAR conventions*.
#' @param region `TRUE` to add a `region` column with the matched text
#'   (`substr(text, start, end)`, forward strand); see [sassy_search()].
#' @param threads Number of worker threads; see [sassy_threads()].
#' @param indels `TRUE` (default): `k` counts substitutions, insertions and
#'   deletions. `FALSE`: mismatches only (see *What counts as a hit*).
#' @param best `sassy_crispr()` only. `FALSE` (default) reports every hit;
#'   `TRUE` keeps the best hit of each site. Every end position with at
#'   most `k` edits is a hit, so one site can give neighbouring hits (a
#'   site followed by `AGGG` ends after `AGG` and after `GGG`). A site is a
#'   run of hits of one text, one guide and one strand whose starts, in
#'   increasing order, are at most 10 apart one to the next; of each the
#'   hit with the lowest `cost` is kept (the leftmost on a tie). The rows
#'   kept are a subset of those of `best = FALSE`, in the same order.
#' @param ... Not used: an unknown argument is an error naming it and the
#'   argument meant, as for [sassy_search()].
#'
#' @return A data frame with one row per hit, ordered by `record`, `guide`,
#'   `start`, `end` and `strand`, the same on any number of threads:
#'   \describe{
#'   \item{`record`}{integer, the 1-based index of the text (for files: of
#'     the record within its file; for tables: replaced by the `id`
#'     columns, or the row number).}
#'   \item{`name`}{character, the text's name; only when `texts` has names
#'     (for files: the record's id; with several files a `file` column comes
#'     first).}
#'   \item{`guide`}{integer, the 1-based index of the guide.}
#'   \item{`guide_name`}{character, the guide's name; only when `guides`
#'     has names.}
#'   \item{`start`, `end`}{integer, 1-based inclusive coordinates of the
#'     matched region on the forward text, PAM included, on either strand.}
#'   \item{`pattern_start`, `pattern_end`}{integer, the part of the guide
#'     aligned: always `1` and `nchar(guide)`.}
#'   \item{`cost`}{integer, the number of edits, at most `k`.}
#'   \item{`strand`}{character, `"+"` or `"-"` (the guide matches the
#'     reverse complement of the region).}
#'   \item{`cigar`}{character, the alignment in the guide's direction (`=`
#'     match, `X` substitution, `I` letter of the guide missing from the
#'     text, `D` letter of the text missing from the guide), or `NA` with
#'     `cigar = FALSE`.}
#'   }
#'
#' @seealso [sassy_search()] for plain approximate search, [as_granges()] to
#'   turn hits into `GRanges`.
#' @references
#' Beeloo, R. and Groot Koerkamp, R. (2026). Sassy: fuzzy searching DNA
#' sequences using SIMD. *Bioinformatics*.
#' @export
#' @order 1
#' @examples
#' # Two SpCas9 guides (20 nt + NGG) on a small made-up genome
#' genome <- c(
#'   chr1 = paste0(
#'     "TTGACAGCTAGCTCAGTCCTAGGTATAATGCTAGCGACGCATAAAGATGAGACGCTGGAGTACAAA",
#'     "CCTCCAGCGTCTCATCTTTATGCGTCAGCAGAGATTGTACTGAGAGTGCACCATATGCGG"
#'   )
#' )
#' guides <- c(g1 = "GACGCATAAAGATGAGACGCNGG", g2 = "CTGAGAGTGCACCATATGCGNGG")
#' sassy_crispr(genome, guides, k = 1)
#'
#' # Mismatches allowed in the PAM too, and no strand search
#' sassy_crispr(genome, guides, k = 1, allow_pam_edits = TRUE, rc = FALSE)
#'
#' # Bad guides are classed errors naming the guide
#' try(sassy_crispr(genome, c("ACGTNGG", "ACGZNGG"), k = 1))
sassy_crispr <- crispr_verb("vector")

#' The work of the CRISPR verbs (crispr_verb() in arguments.R)
#'
#' `crispr_vector()`, `crispr_fastx()` and `crispr_table()` (crispr-table.R)
#' take the verb's arguments by name and `call`, its frame.
#' @noRd
crispr_vector <- function(texts, guides, k, pam_length, allow_pam_edits,
                          max_n_frac, rc, cigar, cigar_style, region, threads,
                          indels, best, call) {
  plan <- new_crispr_plan(
    guides, k, pam_length, allow_pam_edits, max_n_frac, rc, cigar, threads,
    indels = indels, call = call, check = FALSE
  )
  plan$texts <- check_texts(texts, call = call)
  warn_if_swapped(plan$texts, plan$guides, "sassy_crispr", "guides",
    call = call, k = plan$k
  )
  cigar_style <- check_cigar_style(cigar_style, call = call)
  region <- check_flag(region, "region", call = call)
  best <- check_flag(best, "best", call = call)
  cols <- if (is_xstringset(plan$texts)) {
    run_xstringset(plan, "hits", length(plan$guides), function(p, offset, progress) {
      run_crispr(p, record_offset = offset, call = call, progress = progress)
    }, call = call)
  } else {
    run_crispr(plan, call = call)
  }
  hits <- new_hits(cols, names(plan$texts), call = call,
    pattern_names = names(plan$guides)
  )
  hits <- finish_hits(hits, nchar(plan$guides, type = "bytes"), cigar_style,
    texts = if (region) plan$texts, call = call
  )
  hits <- with_text_lengths(hits, plan$texts)
  if (best) {
    hits <- best_per_site(hits)
  }
  new_crispr_hits(hits)
}

#' The best hit of each site (`sassy_crispr(best = TRUE)`)
#'
#' A site is a run of hits of one text, one guide and one strand whose
#' starts, in increasing order, are at most `gap` apart one to the next;
#' of each, the hit with the lowest cost is kept, the leftmost (then the
#' shortest) on a tie. The rows kept are in the order of `hits`.
#' @param hits Hits (columns `record`, `pattern`, `strand`, `start`, `cost`),
#'   ordered by record, pattern, start, end, strand.
#' @noRd
best_per_site <- function(hits, gap = 10L) {
  n <- nrow(hits)
  if (n < 2L) {
    return(hits)
  }
  o <- order(hits$record, hits$pattern, hits$strand, hits$start)
  rec <- hits$record[o]
  pat <- hits$pattern[o]
  str <- hits$strand[o]
  st <- hits$start[o]
  new_site <- c(TRUE, rec[-1L] != rec[-n] | pat[-1L] != pat[-n] |
    str[-1L] != str[-n] | diff(st) > gap)
  site <- cumsum(new_site)
  by_cost <- order(site, hits$cost[o])
  keep <- sort(o[by_cost][!duplicated(site[by_cost])])
  out <- hits[keep, , drop = FALSE]
  row.names(out) <- NULL
  attr(out, "seqlengths") <- attr(hits, "seqlengths", exact = TRUE)
  out
}

#' @rdname sassy_crispr
#' @order 2
#' @param paths Paths of FASTA or FASTQ files, plain or compressed, or of
#'   unaligned BAM files, as for [sassy_search_fastx()].
#' @param BPPARAM `NULL` (default), or a BiocParallel parameter object to
#'   search in shards on its workers: the files as in [sassy_search_fastx()],
#'   the rows of the table as in [sassy_search_table()] (same result; see
#'   [sharding]).
#' @export
sassy_crispr_fastx <- crispr_verb("fastx")

# The work of sassy_crispr_fastx(), as crispr_vector()'s.
crispr_fastx <- function(paths, guides, k, pam_length, allow_pam_edits,
                         max_n_frac, rc, cigar, cigar_style, region, threads,
                         BPPARAM, indels, call) {
  paths <- check_fastx_paths(paths, "paths", call = call, hint = function() {
    swapped_hint(guides, is_file, "sassy_crispr_fastx", "paths", "guides")
  })
  plan <- new_crispr_plan(
    guides, k, pam_length, allow_pam_edits, max_n_frac, rc, cigar, threads,
    indels = indels, call = call
  )
  plan$cigar_style <- check_cigar_style(cigar_style, call = call)
  plan$region <- check_flag(region, "region", call = call)
  if (!is.null(BPPARAM)) {
    return(shard_fastx(paths, plan, "crispr", BPPARAM, call = call))
  }
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(paths), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_crispr_fastx(
    path.expand(paths),
    as_plan(plan, max_hits = max_hits_option(call = call)),
    new_read_options(size, region = plan$region),
    progress_callback(progress)
  )
  res <- fastx_result(res, "paths", paths, call = call)
  new_crispr_hits(new_fastx_hits(res, paths, call = call,
    pattern_names = names(plan$guides), plan = plan
  ))
}

#' Check every CRISPR argument
#' @noRd
new_crispr_plan <- function(guides, k, pam_length, allow_pam_edits,
                            max_n_frac, rc, cigar, threads, indels = TRUE,
                            call = rlang::caller_env(), check = TRUE) {
  # `k` has no default: missing() sees through the callers' promises
  if (missing(k)) {
    ducksassy_abort(
      c("`k` is missing, with no default.",
        i = "Give the edits allowed in a guide and its PAM, e.g. `k = 3`."),
      arg = "k", call = call
    )
  }
  guides <- check_guides(guides, call = call)
  pam_length <- check_pam_length(pam_length, guides, call = call)
  allow_pam_edits <- check_flag(allow_pam_edits, "allow_pam_edits", call = call)
  k <- check_k(k, call = call)
  max_n_frac <- check_fraction(max_n_frac, "max_n_frac", call)
  if (is.na(max_n_frac)) {
    max_n_frac <- 1
  }
  rc <- check_flag(rc, "rc", call = call)
  # the checked values, by name
  args <- c(
    mget(c("guides", "k", "pam_length", "allow_pam_edits", "max_n_frac", "rc")),
    check_run_options(cigar, threads, indels, call)
  )
  # the domain rules (the letters of the guides, PAM and k below each
  # guide's length or spacer) are the core's (see new_search_plan())
  if (check) {
    check_plan(as_plan(args), call = call)
  }
  args
}

check_guides <- function(guides, call = rlang::caller_env()) {
  guides <- as_texts(guides, arg = "guides", call = call)
  # (letters outside IUPAC: the core's rule, check_plan())
  check_strings_present(guides, "guides", "guide", call = call)
  guides
}

check_pam_length <- function(pam_length, guides, call = rlang::caller_env()) {
  n <- length(guides)
  one <- length(pam_length) == 1L
  if (!(is.integer(pam_length) || is.double(pam_length)) || is.object(pam_length) ||
    !(one || length(pam_length) == n)) {
    abort_scalar(
      "pam_length",
      paste0("a whole number >= 1, or one per guide (", n, ")"),
      pam_length,
      call
    )
  }
  bad <- which(is.na(pam_length) | !is.finite(pam_length) | pam_length < 1 |
    pam_length > .Machine$integer.max | pam_length != trunc(pam_length))
  if (length(bad) > 0L) {
    i <- bad[[1L]]
    ducksassy_abort(
      c(
        "`pam_length` must be whole numbers >= 1.",
        locate_bullet("pam_length", if (!one) i, pam_length[[i]])
      ),
      arg = "pam_length",
      index = if (!one) i,
      value = pam_length[[i]],
      call = call
    )
  }
  # (below each guide's length: the core's rule, check_plan())
  pam <- rep_len(as.integer(pam_length), n)
  if (one) pam[1L] else pam
}

#' Call the CRISPR binding for character texts
#' @noRd
run_crispr <- function(plan, record_offset = 0L, call = rlang::caller_env(),
                       progress = NULL) {
  if (is.null(progress)) {
    progress <- new_progress(search_label(plan$texts), "bytes")
    on.exit(progress_done(progress), add = TRUE)
  }
  res <- ds_crispr(
    plan$texts,
    as_plan(plan, max_hits = max_hits_option(call = call)),
    progress_callback(progress)
  )
  rust_result(res, call = call, offset = record_offset, patterns = plan$guides)
}

# A hit table with `guide` (and `guide_name`) in place of `pattern`.
new_crispr_hits <- function(hits) {
  names(hits)[names(hits) == "pattern"] <- "guide"
  names(hits)[names(hits) == "pattern_name"] <- "guide_name"
  hits
}
