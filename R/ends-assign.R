# Both ends of a read (issue 38, "Both ends and dual barcodes"; the contract
# is ENDS-SPEC): the front and the rear end are assigned each, then
# combined by a policy into the sample, the status and a reason. The verbs
# (assign.R) call assign_ends() with a "source" (vectors, files, a table):
# the functions that assign, search and measure its records.

# The reasons of an unassigned record, in their order of precedence.
ends_reasons <- c(
  "chimeric", "ambiguous", "ends disagree", "one end only",
  "pair not in sample sheet", "flank without barcode", "no hit"
)

#' Whether a verb call is in the both-ends mode, and its settings
#'
#' @return `NULL` when it is not (bare patterns, no `policy` or `samples`:
#'   the one-end behaviour of before), else a list: `set` (the barcode set,
#'   `NULL` for bare patterns), `policy`, `samples` (checked), `chimeras`,
#'   `L` (the end length).
#' @noRd
ends_mode <- function(patterns, policy, samples, chimeras, ends, call, split = FALSE) {
  chimeras <- check_chimeras(chimeras, call, split)
  on <- is_barcode_set(patterns) || !is.null(policy) || !is.null(samples)
  if (!on) {
    if (chimeras != "ignore") {
      abort_value("chimeras",
        "`chimeras` applies in the both-ends mode only.", chimeras, call,
        hint = "Give a barcode set (`sassy_kit()`, `sassy_barcodes()`) as `patterns`, or a `policy`."
      )
    }
    return(NULL)
  }
  if (!is.null(policy)) {
    if (!is.character(policy) || length(policy) != 1L || is.na(policy) ||
      !policy %in% c("either", "both", "samples")) {
      abort_scalar("policy", "one of \"either\", \"both\" or \"samples\"", policy, call)
    }
  } else {
    policy <- if (is.null(samples)) "either" else "samples"
  }
  if (policy == "samples" && is.null(samples)) {
    abort_value("samples", "`policy = \"samples\"` needs a sample sheet, `samples`.", samples, call)
  }
  if (policy != "samples" && !is.null(samples)) {
    abort_value("policy", paste0("A sample sheet, `samples`, goes with `policy = \"samples\"`, not \"", policy, "\"."),
      policy, call)
  }
  set <- if (is_barcode_set(patterns)) patterns
  if (policy == "both" && !is.null(set) && length(unique(set$ends)) == 1L && set$ends[[1L]] != "both") {
    # (issue 52) a set of one end's rows never has a barcode at both ends
    cli::cli_warn(
      c(
        "`policy = \"both\"` needs a barcode at both ends, and every row of the set is at the {set$ends[[1L]]} end only.",
        i = "Every read will be \"one end only\"; use `policy = \"either\"` for a kit that barcodes one end."
      ),
      class = c("ducksassy_policy_warning", "ducksassy_warning"),
      call = call
    )
  }
  names <- if (is.null(set)) pattern_samples(patterns) else set$name
  if (!is.null(samples)) {
    samples <- check_samples(samples, names, call)
  }
  if (is.null(ends)) {
    ends <- 250L
  }
  if (!is_whole_scalar(ends) || ends < 1 || ends > .Machine$integer.max) {
    abort_value("ends",
      "In the both-ends mode `ends` must be `NULL` (250) or one whole number >= 1: the letters of each end.",
      ends, call,
      hint = "The front is searched in the first `ends` letters, the rear in the last `ends`."
    )
  }
  list(set = set, policy = policy, samples = samples, chimeras = chimeras, L = as.integer(ends))
}

#' The N guard of the both-ends mode (issue 52): `max_n_frac` when given,
#' else 0.2 (not with `alphabet = "ascii"`, which has no N). `N` in a read
#' matches every letter of every barcode at no cost, so a run of N in an end
#' "found" every barcode there (an ambiguous end, an ambiguous read); a hit
#' whose letters are more than a fifth `N` is no barcode.
#' @noRd
ends_max_n_frac <- function(max_n_frac, alphabet) {
  if (!is.null(max_n_frac) || identical(alphabet, "ascii")) max_n_frac else ends_default_max_n_frac
}

ends_default_max_n_frac <- 0.2

#' `chimeras`: `"ignore"` (its default, the formals' vector), `"set_aside"`,
#' or with `split` (the demultiplexer) `"split"`
#' @noRd
check_chimeras <- function(chimeras, call, split = FALSE) {
  if (identical(chimeras, c("ignore", "set_aside")) || identical(chimeras, c("ignore", "set_aside", "split"))) {
    return("ignore")
  }
  allowed <- c("ignore", "set_aside", if (split) "split")
  if (!is.character(chimeras) || length(chimeras) != 1L || is.na(chimeras) || !chimeras %in% allowed) {
    if (identical(chimeras, "split")) {
      abort_value("chimeras",
        "`chimeras = \"split\"` applies to sassy_demultiplex_fastx(): an assignment has one row per read.",
        chimeras, call,
        hint = "Use `chimeras = \"set_aside\"` to find the chimeric reads (`status` \"chimeric\")."
      )
    }
    abort_scalar("chimeras", if (split) "\"ignore\", \"set_aside\" or \"split\"" else "\"ignore\" or \"set_aside\"", chimeras, call)
  }
  chimeras
}

#' Check a sample sheet: a data frame of `front`, `rear` (may be `NA`) and
#' `sample`, whose barcode names are those of the set
#' @return The sheet as three character columns.
#' @noRd
check_samples <- function(samples, names, call) {
  if (!is.data.frame(samples)) {
    abort_scalar("samples", "a data frame with columns `front`, `rear` and `sample`", samples, call)
  }
  absent <- setdiff(c("front", "rear", "sample"), names(samples))
  if (length(absent)) {
    ducksassy_abort(
      c(
        "`samples` must be a data frame with columns `front`, `rear` and `sample`.",
        x = paste0("It has no column ", paste0("`", absent, "`", collapse = ", "), ".")
      ),
      class = c("ducksassy_samples_error", "ducksassy_input_error"),
      arg = "samples", call = call
    )
  }
  chr <- function(x) if (is.factor(x)) as.character(x) else x
  s <- list(front = chr(samples$front), rear = chr(samples$rear), sample = chr(samples$sample))
  s$rear[is.na(s$rear)] <- NA_character_
  if (is.logical(s$rear) && all(is.na(s$rear))) {
    s$rear <- as.character(s$rear)
  }
  if (!is.character(s$front) || !is.character(s$rear) || !is.character(s$sample) ||
    anyNA(s$front) || anyNA(s$sample) || any(s$sample == "") || nrow(samples) == 0L) {
    bad <- if (is.character(s$front) && is.character(s$sample)) which(is.na(s$front) | is.na(s$sample) | s$sample == "")
    abort_value("samples",
      "`samples` must have one or more rows of character `front` and `sample` (not `NA` or empty) and `rear` (`NA` for any rear end).",
      samples, call,
      hint = if (length(bad)) paste0("Row ", bad[[1L]], " has `front` ", format_value(s$front[[bad[[1L]]]]),
        " and `sample` ", format_value(s$sample[[bad[[1L]]]]), ".")
    )
  }
  known <- unique(names)
  for (col in c("front", "rear")) {
    bad <- setdiff(stats::na.omit(s[[col]]), known)
    if (length(bad)) {
      ducksassy_abort(
        c(
          paste0("Every barcode of the sample sheet must be a barcode of `patterns`."),
          x = paste0("`samples$", col, "` has ", format_value(bad[[1L]]), ", which `patterns` has not."),
          i = paste0("The barcodes are ", cli_escape(paste(utils_head(known, 5L), collapse = ", ")),
            if (length(known) > 5L) ", ...", ".")
        ),
        class = c("ducksassy_samples_error", "ducksassy_input_error"),
        arg = "samples", value = bad[[1L]], call = call
      )
    }
  }
  # a row given twice is one row; (a rear of NA is no barcode named "NA")
  keep <- !duplicated(data.frame(front = s$front, rear = s$rear, sample = s$sample))
  s <- lapply(s, function(x) x[keep])
  dup <- duplicated(data.frame(front = s$front, rear = s$rear))
  if (any(dup)) {
    i <- which(dup)[[1L]]
    ducksassy_abort(
      c(
        "Each (front, rear) pair of the sample sheet must name one sample.",
        x = paste0("Row ", which(keep)[[i]], " repeats the pair (", format_value(s$front[[i]]), ", ",
          format_value(s$rear[[i]]), ") with another sample.")
      ),
      class = c("ducksassy_samples_error", "ducksassy_input_error"),
      arg = "samples", index = which(keep)[[i]], value = s$front[[i]], call = call
    )
  }
  new_data_frame(s, length(s$front))
}

#' Assign both ends of the records of a source and combine them
#'
#' @param src A list of functions over the verb's records: `assign(ends,
#'   halves)` (the one-end assignment with `ends`), `search(patterns, k,
#'   ends, rc)` (hits with the record key columns), `lengths(keys)` (the
#'   length of each record, by key); `keys`, the record columns of the
#'   result (`NULL`: those the assignment has before `pattern`), and
#'   `row_key`, the column that keys a record (one per row; `NULL`: `keys`).
#' @param mode ends_mode()'s list.
#' @param sp as_search_patterns()'s list.
#' @return The assignment data frame (class `ducksassy_assignment`).
#' @noRd
assign_ends <- function(src, mode, sp, margin = 0L) {
  L <- mode$L
  # an end does not take the other end's site: in a read shorter than 2L
  # an end's best hit nearer the other end is searched past (halves, the
  # core's SearchPlan::halves; issue 52); paired mates: the rear end is the
  # start of the mate, another read
  paired <- !is.null(src$mate)
  front <- src$assign(c(L, 0L), halves = !paired)
  rear <- if (!paired) src$assign(c(0L, L), halves = TRUE) else mate_ends(front, src$mate$assign(c(L, 0L)), src$call)
  keys <- if (is.null(src$keys)) {
    utils_head(names(front), match("pattern", names(front)) - 1L)
  } else {
    intersect(src$keys, names(front))
  }
  row_key <- src$row_key %||% keys
  # no barcode without evidence (?sassy_kits, *No barcode without
  # evidence*): an end whose hit has more edits on the barcode than its cap
  # (a barcode the set lacks), or whose flanks align no better than the
  # flanks with nothing between them (an adapter without barcode), names
  # no barcode (its flanks matched)
  caps <- barcode_caps(mode$set)
  capped_front <- over_cap(front, caps) | no_barcode_between(src, front, mode, sp, margin, c(L, 0L), row_key)
  capped_rear <- over_cap(rear, caps) |
    if (is.null(src$mate)) {
      no_barcode_between(src, rear, mode, sp, margin, c(0L, L), row_key)
    } else {
      no_barcode_between(src$mate, rear, mode, sp, margin, c(L, 0L), row_key)
    }
  front$status[capped_front] <- "unassigned"
  rear$status[capped_rear] <- "unassigned"
  cols <- combine_ends(front, rear, mode$set, mode$policy, mode$samples)
  reason <- cols$reason
  key_of <- function(d) do.call(paste, c(unname(as.list(d[row_key])), sep = "\r"))
  rec <- key_of(front)
  no_hit <- reason %in% "no hit"
  reason[no_hit & (capped_front | capped_rear)] <- "flank without barcode"
  # the set's flanks without a barcode, where none was found
  flanks <- flank_patterns(mode$set)
  no_hit <- which(reason %in% "no hit")
  if (length(flanks$patterns) && length(no_hit)) {
    found <- character()
    for (kk in unique(flanks$k)) {
      p <- flanks$patterns[flanks$k == kk]
      for (side in c(list(src), if (!is.null(src$mate)) list(src$mate))) {
        found <- c(found, key_of(side$search(p, kk, L, TRUE, flank_search_args(src$alphabet))))
      }
    }
    reason[no_hit[rec[no_hit] %in% found]] <- "flank without barcode"
  }
  if (mode$chimeras == "set_aside") {
    chim <- rec %in% chimera_keys(src, sp, L, caps, key_of)
    if (!is.null(src$mate)) {
      chim <- chim | rec %in% chimera_keys(src$mate, sp, L, caps, key_of)
    }
    reason[chim] <- "chimeric"
    cols$sample[chim] <- NA_character_
  }
  na_rec <- is.na(front$status) & is.na(rear$status)
  reason[na_rec] <- NA_character_
  cols$reason <- reason
  cols$status <- ends_status(cols$sample, reason)
  cols$status[na_rec] <- NA
  out <- deciding_columns(front, rear, union(keys, row_key))
  out[setdiff(row_key, keys)] <- NULL
  out <- c(out, cols)
  df <- new_data_frame(out, nrow(front))
  class(df) <- c("ducksassy_assignment", "data.frame")
  df
}

#' The rear ends of paired reads: the mates' front-end assignment, whose
#' records must be the reads' (one mate per read, in the same order, with
#' the same names up to `/1` and `/2`, as the demultiplexer checks them:
#' issue 52), named as the reads
#' @noRd
mate_ends <- function(front, rear, call) {
  if (nrow(rear) != nrow(front)) {
    ducksassy_abort(
      c(
        "The mates' files must have as many records as the reads' files.",
        x = paste0("`paths` has ", nrow(front), " records and `mates` ", nrow(rear), ".")
      ),
      class = c("ducksassy_mates_error", "ducksassy_input_error"), arg = "mates", call = call
    )
  }
  a <- mate_read_name(front$name)
  b <- mate_read_name(rear$name)
  bad <- which(a != b | xor(is.na(a), is.na(b)))
  if (length(bad)) {
    i <- bad[[1L]]
    where <- if (!is.null(front$file)) paste0(" of ", format_value(as.character(front$file[[i]])))
    ducksassy_abort(
      c(
        "The mates must be in the same order as the reads, with the same names (up to `/1` and `/2`).",
        x = paste0("Record ", front$record[[i]], where, " is ", format_value(a[[i]]),
          " and its mate ", format_value(b[[i]]), ".")
      ),
      class = c("ducksassy_mates_error", "ducksassy_input_error"), arg = "mates",
      index = front$record[[i]], value = b[[i]], call = call
    )
  }
  rear$name <- front$name
  rear
}

#' A read's name as its mate's must be (the demultiplexer's mate_name()):
#' up to the first space or tab, without a last `/1` or `/2`
#' @noRd
mate_read_name <- function(x) {
  x <- sub("[ \t].*$", "", x)
  sub("/[12]$", "", x)
}

#' Whether each end's best hit (assigned or ambiguous: a hit over the cap
#' is no barcode, nor a tie of two) has more barcode edits than its cap
#' @noRd
over_cap <- function(a, caps) {
  if (is.null(caps) || is.null(a$barcode_cost)) {
    return(rep(FALSE, nrow(a)))
  }
  over <- a$status %in% c("assigned", "ambiguous") & a$barcode_cost > caps[a$pattern]
  over[is.na(over)] <- FALSE
  over
}

#' The k of the search for barcodes inside reads (chimeras): three
#' quarters of the ends' k. A barcode in a read's middle is whole (a read's
#' end cuts its constructs and reads them worse), and the middle of a long
#' read offers many chances of a hit at k by chance: on the simulated runs
#' (benchmarks/kits.Rmd) the chimeras' hits cost at most 10 of k = 16 and
#' the chance hits in barcoded reads k or k - 1.
#' @noRd
chimera_k <- function(k) {
  as.integer(floor(0.75 * k))
}

#' The keys of the chimeric records: those longer than `2L` with a hit
#' (at chimera_k()) in their middle (after the first `L` letters, before
#' the last `L`).
#' With a barcode cap, the best such hit of a record (lowest cost, then
#' pattern, start, end, forward strand first: the assignment's order) must
#' be within its cap, as the demultiplexer has it.
#' @noRd
chimera_keys <- function(src, sp, L, caps, key_of) {
  # (no overhang, one end position per run: the demultiplexer's search of
  # whole reads for hits wholly in their middle, one rule; issue 52)
  hits <- src$search(sp$patterns, chimera_k(sp$k), NULL, NULL,
    list(overhang = NULL, all_endpoints = FALSE), cigar = !is.null(caps))
  if (!nrow(hits)) {
    return(character())
  }
  len <- src$lengths()
  hk <- key_of(hits)
  n <- len$length[match(hk, key_of(len))]
  mid <- !is.na(n) & n > 2L * L & hits$start > L & hits$end <= n - L
  if (is.null(caps)) {
    return(unique(hk[mid]))
  }
  h <- hits[mid, , drop = FALSE]
  hk <- hk[mid]
  o <- order(hk, h$cost, h$pattern, h$start, h$end, h$strand != "+")
  best <- o[!duplicated(hk[o])]
  set <- sp$set
  edits <- barcode_edits(h$cigar[best], nchar(set$flank5)[h$pattern[best]],
    nchar(set$barcode)[h$pattern[best]], h$pattern_start[best] - 1L)
  hk[best][edits <= caps[h$pattern[best]]]
}

ends_status <- function(sample, reason) {
  s <- ifelse(!is.na(sample), "assigned",
    ifelse(reason %in% "chimeric", "chimeric",
      ifelse(reason %in% "ambiguous", "ambiguous", "unassigned")
    )
  )
  factor(s, levels = ends_status_levels)
}

# The levels of `status` in the both-ends mode (ENDS-SPEC): one more than
# assign_status_levels, which the one-end assignment keeps.
ends_status_levels <- c("assigned", "ambiguous", "unassigned", "chimeric")

#' The one-end columns of the deciding end: the front's when the front is
#' assigned, else the rear's when it is, else the end with a hit (front
#' first)
#' @noRd
deciding_columns <- function(front, rear, keys) {
  fs <- as.character(front$status)
  rs <- as.character(rear$status)
  use_front <- fs %in% "assigned" | (!rs %in% "assigned" & fs %in% "ambiguous")
  cols <- setdiff(names(front), c(keys, "sample", "status"))
  out <- as.list(front)[keys]
  for (col in cols) {
    x <- rear[[col]]
    x[use_front] <- front[[col]][use_front]
    out[[col]] <- x
  }
  out
}

#' The flanks searched without a barcode: of each row whose two flanks have
#' 20 letters or more together, the flanks with nothing between them
#' (`flank5 + flank3`: an adapter without barcode) and around a slot of `N`
#' as long as its barcode (`flank5 + N... + flank3`: a barcode the set does
#' not have), with k = ceiling(0.75 * error_rate * the flanks' letters);
#' and each flank of 14 letters or more alone, with k = floor(error_rate *
#' its letters / 2) (a read that starts or ends inside the barcode keeps
#' one flank). One flank alone at the set's error rate is no evidence:
#' measured on simulated reads (benchmarks/kits.md), 16 letters with 5
#' edits are in the ends of 3 reads in 4 without any flank.
#' @noRd
flank_patterns <- function(set) {
  if (is.null(set)) {
    return(list(patterns = character(), k = integer()))
  }
  rate <- attr(set, "error_rate") %||% 0.27
  n <- nchar(set$flank5) + nchar(set$flank3)
  ok <- n >= 20L
  together <- c(paste0(set$flank5, set$flank3)[ok],
    paste0(set$flank5, strrep("N", nchar(set$barcode)), set$flank3)[ok])
  alone <- c(set$flank5, set$flank3)
  alone <- alone[nchar(alone) >= 14L]
  p <- c(together, alone)
  k <- c(rep(as.integer(ceiling(0.75 * rate * n[ok])), 2L), as.integer(floor(rate * nchar(alone) / 2)))
  keep <- !duplicated(p)
  list(patterns = p[keep], k = k[keep])
}

#' The search arguments of the flank patterns: their slot of N needs the
#' IUPAC alphabet where the verb's is DNA (whose reads have no other
#' letters, so the hits are those a DNA search would find)
#' @noRd
flank_search_args <- function(alphabet) {
  if (identical(alphabet, "dna")) list(alphabet = "iupac") else list()
}

#' Assign the front and the rear end of each text on their own
#'
#' @param texts Reads (a character vector).
#' @param patterns A barcode set (sassy_kit(), sassy_barcodes()) or named
#'   patterns.
#' @param k As in sassy_assign() (`NULL`: the set's default).
#' @param end_length How many letters at each end.
#' @param policy,samples See combine_ends().
#' @param ... Search options passed to sassy_assign() (`margin`,
#'   `threads`, ...).
#' @return sassy_assign()'s both-ends result.
#' @noRd
assign_read_ends <- function(texts, patterns, k = NULL, end_length = 250L,
                             policy = c("either", "both", "samples"),
                             samples = NULL, ...) {
  policy <- match.arg(policy)
  sp <- as_search_patterns(patterns, k)
  sassy_assign(texts, patterns, k = sp$k, ends = end_length, policy = policy, samples = samples, ...)
}

#' Combine the assignments of the two ends of each read
#'
#' @param front,rear Assignment data frames of the same records
#'   (sassy_assign() of the first and of the last letters).
#' @param set The barcode set, or `NULL` (names from `sample`, else
#'   `pattern_name`).
#' @param policy `"either"`: an end with a barcode suffices, but two ends
#'   that name different samples are `"ends disagree"`; `"both"`: both ends
#'   must name the same sample; `"samples"`: the pair (front, rear) is
#'   looked up in `samples`.
#' @param samples With `policy = "samples"`, a data frame with columns
#'   `front`, `rear` (barcode names; `rear` `NA` for a single-ended design:
#'   then any rear end, or none, matches) and `sample`. `front` is the
#'   barcode of the set's front rows: on a read of orientation `"-"` it is
#'   found at the read's rear end. Where the orientation is not known (a
#'   symmetric set), the pair is looked up in both orders; two different
#'   samples so found make the read ambiguous.
#' @return A list of columns: `front_barcode`, `front_cost`,
#'   `front_barcode_cost`, `front_start`, `front_end`, `front_strand`, the
#'   same for `rear_`, `orientation`, `sample`, `status` and `reason` (`NA`
#'   when assigned). An end that is ambiguous leaves the read without
#'   sample, whatever the policy.
#' @noRd
combine_ends <- function(front, rear, set = NULL,
                         policy = c("either", "both", "samples"),
                         samples = NULL) {
  policy <- match.arg(policy)
  if (nrow(front) != nrow(rear)) {
    abort_internal("the two ends have different numbers of records", rlang::caller_env())
  }
  if (policy == "samples") {
    if (!is.data.frame(samples) || !all(c("front", "rear", "sample") %in% names(samples))) {
      abort_scalar("samples", "a data frame with columns `front`, `rear` and `sample`", samples, rlang::caller_env())
    }
  }
  bc_name <- function(a) {
    if (is.null(set)) return(if (is.null(a$sample)) a$pattern_name else a$sample)
    nm <- set$name[a$pattern]
    ifelse(is.na(nm), a$pattern_name, nm)
  }
  end_cols <- function(a, prefix) {
    ok <- a$status == "assigned"
    ok[is.na(ok)] <- FALSE
    barcode <- rep(NA_character_, length(ok))
    barcode[ok] <- bc_name(a)[ok]
    out <- list(
      barcode = barcode,
      cost = a$cost,
      barcode_cost = if (is.null(a$barcode_cost)) a$cost else a$barcode_cost,
      start = a$start,
      end = a$end,
      strand = a$strand
    )
    names(out) <- paste0(prefix, "_", names(out))
    out
  }
  f <- end_cols(front, "front")
  r <- end_cols(rear, "rear")
  status_of <- function(a) {
    s <- as.character(a$status)
    s[is.na(s)] <- "unassigned"
    s
  }
  fs <- status_of(front)
  rs <- status_of(rear)
  n <- nrow(front)

  # orientation: which of the set's rows sits at the read's front
  row_end <- function(a) if (is.null(set)) rep(NA_character_, n) else set$ends[a$pattern]
  fe <- row_end(front)
  re <- row_end(rear)
  orientation <- rep(NA_character_, n)
  orientation[fs == "assigned" & fe %in% "front"] <- "+"
  orientation[fs == "assigned" & fe %in% "rear"] <- "-"
  from_rear <- is.na(orientation) & rs == "assigned"
  orientation[from_rear & re %in% "rear"] <- "+"
  orientation[from_rear & re %in% "front"] <- "-"

  # the design's front and rear: a read of the "-" strand has the rear
  # construct first
  flip <- orientation %in% "-"
  fb <- ifelse(flip, r$rear_barcode, f$front_barcode)
  rb <- ifelse(flip, f$front_barcode, r$rear_barcode)
  sample <- rep(NA_character_, n)
  reason <- rep(NA_character_, n)
  any_ambiguous <- fs == "ambiguous" | rs == "ambiguous"
  if (policy == "samples") {
    # a pair of two barcodes; none where either is missing (a barcode may be
    # named "NA": a missing rear end is no such barcode; issue 52)
    key <- function(a, b) ifelse(is.na(a) | is.na(b), NA_character_, paste(a, b, sep = "\r"))
    lookup <- function(a, b) {
      exact <- match(key(a, b), key(samples$front, samples$rear), incomparables = NA)
      single <- match(a, ifelse(is.na(samples$rear), samples$front, NA_character_), incomparables = NA)
      as.character(samples$sample)[ifelse(is.na(exact), single, exact)]
    }
    s1 <- lookup(fb, rb)
    # unknown orientation: the pair in either order
    s2 <- lookup(rb, fb)
    s2[!is.na(orientation)] <- NA_character_
    both <- !is.na(s1) & !is.na(s2) & s1 != s2
    sample <- ifelse(is.na(s1), s2, s1)
    sample[both | any_ambiguous] <- NA_character_
    reason[is.na(sample)] <- "pair not in sample sheet"
    reason[is.na(sample) & is.na(fb) & is.na(rb)] <- "no hit"
    reason[is.na(sample) & (any_ambiguous | both)] <- "ambiguous"
  } else {
    agree <- !is.na(fb) & !is.na(rb) & fb == rb
    disagree <- !is.na(fb) & !is.na(rb) & fb != rb
    if (policy == "either") {
      sample <- ifelse(!is.na(fb), fb, rb)
      sample[disagree] <- NA_character_
    } else {
      sample <- ifelse(agree, fb, NA_character_)
    }
    # an end with a barcode and the other ambiguous: ambiguous
    sample[any_ambiguous] <- NA_character_
    reason[is.na(sample)] <- "no hit"
    reason[is.na(sample) & xor(is.na(fb), is.na(rb))] <- if (policy == "both") "one end only" else "no hit"
    reason[disagree] <- "ends disagree"
    reason[is.na(sample) & any_ambiguous] <- "ambiguous"
  }
  sample <- as.character(sample)
  reason <- as.character(reason)
  c(f, r, list(
    orientation = orientation,
    sample = sample,
    status = ends_status(sample, reason),
    reason = reason
  ))
}

#' The two explanations of a site without one of the set's barcodes
#' (?sassy_kits, *No barcode without evidence*), searched in the end of a
#' barcode's hit: of the rows whose two flanks have 5 letters or more each
#' and 20 or more together, the flanks with nothing between them (an
#' adapter without barcode) and the flanks around a slot of `N` as long as
#' the barcode (a barcode the set lacks), at k = ceiling(error_rate * the
#' flanks' letters) (as a barcode's own flanks are read); `NULL` for a set
#' without such flanks
#' @noRd
spacer_patterns <- function(set) {
  if (is.null(set)) {
    return(NULL)
  }
  ok <- nchar(set$flank5) >= 5L & nchar(set$flank3) >= 5L & nchar(set$flank5) + nchar(set$flank3) >= 20L
  if (!any(ok)) {
    return(NULL)
  }
  f <- nchar(set$flank5[ok]) + nchar(set$flank3[ok])
  p <- c(paste0(set$flank5, set$flank3)[ok], paste0(set$flank5, strrep("N", nchar(set$barcode)), set$flank3)[ok])
  keep <- !duplicated(p)
  rate <- attr(set, "error_rate") %||% 0.27
  list(patterns = p[keep], k = as.integer(min(ceiling(rate * min(f)), min(f) - 1L)))
}

#' Whether each end's hit (assigned or ambiguous) is explained as well
#' without a barcode of the set: the best hit of the flanks with nothing
#' between them or around a slot (spacer_patterns()) in the same end, plus
#' the price of the barcode's letters as letters of no barcode
#' (barcode_price()), costs at most the barcode's hit plus `margin`. A
#' barcode must beat those explanations by the margin.
#' @param a The end's assignment; `ends` the end (as the search takes it).
#' @noRd
no_barcode_between <- function(src, a, mode, sp, margin, ends, row_key) {
  none <- rep(FALSE, nrow(a))
  spacer <- spacer_patterns(mode$set)
  if (is.null(spacer) || is.null(a$barcode_cost)) {
    return(none)
  }
  called <- which(a$status %in% c("assigned", "ambiguous") & !is.na(a$barcode_cost))
  if (!length(called)) {
    return(none)
  }
  hits <- src$search(spacer$patterns, spacer$k, ends, TRUE, flank_search_args(src$alphabet))
  if (!nrow(hits)) {
    return(none)
  }
  # keyed on the record's row (assign_ends()'s `row_key`), never on `id`
  # values (issue 52)
  key_of <- function(d) do.call(paste, c(unname(as.list(d[row_key])), sep = "\r"))
  best <- tapply(hits$cost, key_of(hits), min)
  c_a <- best[key_of(a)[called]]
  price <- barcode_price(mode$set)[a$pattern[called]]
  none[called] <- !is.na(c_a) & c_a + price <= a$cost[called] + margin
  none
}
