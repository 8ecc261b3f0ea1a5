# sassy_demultiplex_fastx() by both ends of each read (issue 38): the
# arguments `policy`, `samples`, `chimeras`, `reason_files` checked, and
# the outputs and the core's `ends` specification built from them
# (fastx/demux_ends.rs and ends_policy.rs in the core; R's reference of
# the rule is combine_ends(), R/ends-assign.R).

# The reasons of the both-ends mode, in the core's order (ends_policy.rs,
# `Reason`), and the files of those that go to files of their own.
demux_reasons <- c(
  "chimeric", "ambiguous", "ends disagree", "one end only",
  "pair not in sample sheet", "flank without barcode", "no hit"
)
demux_reason_file <- function(reason) gsub(" ", "_", reason, fixed = TRUE)

#' Whether a demultiplexing is by both ends: a barcode set, or a policy or
#' a sample sheet given
#' @noRd
is_demux_both_ends <- function(patterns, policy, samples) {
  is_barcode_set(patterns) || !is.null(policy) || !is.null(samples)
}

#' `chimeras`: `"ignore"` (the default) or `"set_aside"`; checked in
#' either mode
#' @noRd
check_demux_chimeras <- function(chimeras, call) {
  if (identical(chimeras, c("ignore", "set_aside"))) {
    return("ignore")
  }
  if (!is.character(chimeras) || length(chimeras) != 1L || is.na(chimeras) ||
    !chimeras %in% c("ignore", "set_aside")) {
    abort_scalar("chimeras", "\"ignore\" or \"set_aside\"", chimeras, call)
  }
  chimeras
}

#' The arguments of the both-ends mode, checked (`chimeras` and
#' `reason_files` already are)
#'
#' @return A list: `end_length`, `policy`, `samples` (the sheet as
#'   characters, or `NULL`), `chimeras`, `reason_files`.
#' @noRd
check_demux_ends_args <- function(ends, policy, samples, chimeras, reason_files, mates, call) {
  if (is.null(ends)) {
    end_length <- 250L
  } else {
    if (!is_whole_scalar(ends) || ends < 1 || ends > .Machine$integer.max) {
      abort_value("ends",
        "`ends` must be one whole number >= 1 when both ends of the reads are assigned (the letters of each end).",
        ends, call,
        hint = "With a barcode set, `policy` or `samples`, the front is searched in the first `ends` letters and the rear in the last (default 250)."
      )
    }
    end_length <- as.integer(ends)
  }
  if (is.null(policy)) {
    policy <- if (is.null(samples)) "either" else "samples"
  } else if (!is.character(policy) || length(policy) != 1L || is.na(policy) ||
    !policy %in% c("either", "both", "samples")) {
    abort_scalar("policy", "`NULL`, \"either\", \"both\" or \"samples\"", policy, call)
  }
  if (policy == "samples" && is.null(samples)) {
    abort_scalar("samples", "a sample sheet (a data frame with columns `front`, `rear` and `sample`) with `policy = \"samples\"`", samples, call)
  }
  if (policy != "samples" && !is.null(samples)) {
    abort_scalar("policy", "\"samples\" (or `NULL`) when a sample sheet `samples` is given", policy, call)
  }
  if (!is.null(mates)) {
    abort_value("mates",
      "`mates` cannot be demultiplexed by both ends of the reads yet.",
      mates, call,
      hint = "Demultiplex the mates with bare named patterns (no barcode set, `policy` or `samples`)."
    )
  }
  list(end_length = end_length, policy = policy, samples = samples,
    chimeras = chimeras, reason_files = reason_files)
}

#' `samples`: a data frame of `front`, `rear` (`NA`: any rear end) and
#' `sample`, whose barcodes are those of the set
#' @return The sheet as three character vectors (a data frame).
#' @noRd
check_demux_sample_sheet <- function(samples, barcodes, call) {
  if (!is.data.frame(samples) || !all(c("front", "rear", "sample") %in% names(samples)) || nrow(samples) == 0L) {
    abort_scalar("samples", "a data frame with columns `front`, `rear` and `sample` and a row per sample", samples, call)
  }
  col <- function(x) {
    x <- if (is.factor(x)) as.character(x) else x
    if (is.logical(x) && all(is.na(x))) x <- as.character(x)
    if (!is.character(x)) abort_scalar("samples", "a data frame whose `front`, `rear` and `sample` are character columns", samples, call)
    x
  }
  sheet <- data.frame(front = col(samples$front), rear = col(samples$rear), sample = col(samples$sample),
    stringsAsFactors = FALSE)
  bad <- function(what, i, hint = NULL) {
    abort_value("samples", paste0("`samples` must ", what, "."), samples, call,
      hint = if (is.null(hint)) paste0("Row ", i[[1L]], " does not.") else hint
    )
  }
  if (anyNA(sheet$sample) || any(sheet$sample == "")) bad("name a sample in every row (`sample` not `NA` or empty)", which(is.na(sheet$sample) | sheet$sample == ""))
  unknown <- is.na(sheet$front) | !sheet$front %in% barcodes
  if (any(unknown)) {
    bad("name a barcode of `patterns` in every `front`", which(unknown),
      paste0("Row ", which(unknown)[[1L]], " names ", format_value(sheet$front[unknown][[1L]]), "; the barcodes are ", format_value(utils::head(unique(barcodes), 5L)), if (length(unique(barcodes)) > 5L) ", ..."))
  }
  unknown <- !is.na(sheet$rear) & !sheet$rear %in% barcodes
  if (any(unknown)) {
    bad("name a barcode of `patterns` in every `rear` (or `NA`: any rear end)", which(unknown),
      paste0("Row ", which(unknown)[[1L]], " names ", format_value(sheet$rear[unknown][[1L]]), "."))
  }
  pair <- paste(sheet$front, sheet$rear, sep = "\r")
  dup <- duplicated(pair) & !duplicated(paste(pair, sheet$sample, sep = "\r"))
  if (any(dup)) {
    bad("name one sample per pair of barcodes", which(dup),
      paste0("Row ", which(dup)[[1L]], " gives the pair (", sheet$front[dup][[1L]], ", ", sheet$rear[dup][[1L]], ") a second sample."))
  }
  sheet
}

#' The flank patterns of a set: of each row the longer of `flank5` and
#' `flank3` (`flank5` when equal), if it has 8 letters or more; with
#' `k = ceiling(error_rate * length)`, below the length
#' @return A list of `patterns` (unique) and their `k`.
#' @noRd
demux_set_flanks <- function(set) {
  if (is.null(set)) {
    return(list(patterns = character(), k = integer()))
  }
  f <- ifelse(nchar(set$flank3) > nchar(set$flank5), set$flank3, set$flank5)
  f <- unique(f[nchar(f) >= 8L])
  rate <- attr(set, "error_rate") %||% 0.27
  k <- as.integer(pmin(ceiling(rate * nchar(f)), nchar(f) - 1L))
  list(patterns = f, k = k)
}

#' The outputs of a both-ends demultiplexing and the core's specification
#'
#' @param plan The checked assign plan (its patterns are the set's).
#' @param set The barcode set, or `NULL` (bare named patterns).
#' @param e check_demux_ends_args()'s list.
#' @return A list: `names` (of the outputs: the samples, then `unassigned`
#'   or the reasons' files, `ambiguous`, and `chimeric` with `chimeras =
#'   "set_aside"`), `sample_names` and `spec` (for the binding, without its
#'   output indices' base shifted: 0-based).
#' @noRd
demux_ends_outputs <- function(plan, set, e, call) {
  barcode_names <- pattern_samples(plan$patterns)
  barcodes <- unique(barcode_names)
  if (e$policy == "samples") {
    sheet <- check_demux_sample_sheet(e$samples, barcodes, call)
    sample_names <- unique(sheet$sample)
    check_sample_names(sample_names, call, arg = "samples", reserved = demux_reserved_names())
  } else {
    sheet <- NULL
    sample_names <- barcodes
    check_sample_names(sample_names, call, reserved = demux_reserved_names())
  }
  flanks <- demux_set_flanks(set)
  kinds <- c(
    "no hit",
    if (e$policy != "samples") "ends disagree",
    if (e$policy == "both") "one end only",
    if (e$policy == "samples") "pair not in sample sheet",
    if (length(flanks$patterns)) "flank without barcode"
  )
  kinds <- intersect(demux_reasons, kinds)
  unassigned <- if (e$reason_files) demux_reason_file(kinds) else "unassigned"
  names <- c(sample_names, unassigned, "ambiguous", if (e$chimeras == "set_aside") "chimeric")
  at <- function(n) match(n, names) - 1L
  reason_output <- vapply(demux_reasons, function(r) {
    if (r == "ambiguous") return(at("ambiguous"))
    if (r == "chimeric" && e$chimeras == "set_aside") return(at("chimeric"))
    if (!e$reason_files) return(at("unassigned"))
    if (r %in% kinds) at(demux_reason_file(r)) else at("no_hit")
  }, 0L, USE.NAMES = FALSE)
  flank_plans <- lapply(sort(unique(flanks$k)), function(kk) {
    fp <- plan
    fp$patterns <- flanks$patterns[flanks$k == kk]
    fp$k <- kk
    fp$ends <- NULL
    # a flank is looked for on either strand
    fp$rc <- fp$alphabet != "ascii"
    as_plan(fp, "assign")
  })
  row_end <- if (is.null(set)) rep("both", length(plan$patterns)) else set$ends
  list(
    names = names,
    sample_names = sample_names,
    spec = list(
      end_length = e$end_length,
      policy = e$policy,
      barcode = match(barcode_names, barcodes) - 1L,
      row_end = row_end,
      sheet_front = if (!is.null(sheet)) match(sheet$front, barcodes) - 1L else integer(),
      sheet_rear = if (!is.null(sheet)) match(sheet$rear, barcodes) - 1L else integer(),
      sheet_sample = if (!is.null(sheet)) match(sheet$sample, sample_names) - 1L else integer(),
      output_of_sample = seq_along(sample_names) - 1L,
      output_of_reason = reason_output,
      flank_plans = flank_plans,
      chimeras = e$chimeras == "set_aside",
      barcode_names = barcodes,
      sample_names = sample_names
    )
  )
}

# The output names of the both-ends mode that no sample may take.
demux_reserved_names <- function() {
  c("unassigned", "ambiguous", "chimeric", demux_reason_file(demux_reasons))
}
