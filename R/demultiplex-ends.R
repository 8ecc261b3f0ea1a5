# sassy_demultiplex_fastx() by both ends of each read (issue 38): the
# arguments `policy`, `samples`, `chimeras`, `reason_files` checked, and
# the outputs and the core's `ends` specification built from them
# (fastx/demux_ends.rs and ends_policy.rs in the core; R's reference of
# the rule is combine_ends(), R/ends-assign.R).

# The reasons' files: the reason (ends_reasons, ends-assign.R) with `_`
# for spaces.
demux_reason_file <- function(reason) gsub(" ", "_", reason, fixed = TRUE)

#' The both-ends mode of a demultiplexing: ends_mode() (ends-assign.R, the
#' assign verbs' checks of `policy`, `samples`, `chimeras` and `ends`),
#' and what demultiplexing adds
#' @return `NULL` (the single assignment), or ends_mode()'s list with
#'   `reason_files`.
#' @noRd
demux_ends_mode <- function(patterns, policy, samples, chimeras, reason_files, ends, mates, call) {
  reason_files <- check_flag(reason_files, "reason_files", call = call)
  mode <- ends_mode(patterns, policy, samples, chimeras, ends, call, split = TRUE)
  if (is.null(mode)) {
    if (reason_files) {
      abort_value("reason_files",
        "`reason_files` applies in the both-ends mode only.", reason_files, call,
        hint = "Give a barcode set (`sassy_kit()`, `sassy_barcodes()`) as `patterns`, or a `policy`."
      )
    }
    return(NULL)
  }
  if (mode$chimeras == "split" && !is.null(mates)) {
    abort_value("chimeras",
      "`chimeras = \"split\"` does not split paired mates.",
      mode$chimeras, call,
      hint = "Use `chimeras = \"set_aside\"` with `mates`."
    )
  }
  mode$reason_files <- reason_files
  mode
}

#' The outputs of a both-ends demultiplexing and the core's specification
#'
#' @param plan The checked assign plan (its patterns are the set's).
#' @param set The barcode set, or `NULL` (bare named patterns).
#' @param e demux_ends_mode()'s list.
#' @return A list: `names` (of the outputs: the samples, then `unassigned`
#'   or the reasons' files, `ambiguous`, and `chimeric` with `chimeras =
#'   "set_aside"`), `sample_names` and `spec` (for the binding, without its
#'   output indices' base shifted: 0-based).
#' @noRd
demux_ends_outputs <- function(plan, set, e, call) {
  barcode_names <- pattern_samples(plan$patterns)
  barcodes <- unique(barcode_names)
  if (e$policy == "samples") {
    sheet <- e$samples
    sample_names <- unique(sheet$sample)
    check_sample_names(sample_names, call, arg = "samples", reserved = demux_reserved_names())
  } else {
    sheet <- NULL
    sample_names <- barcodes
    if (identical(e$names, "dorado")) {
      sample_names <- dorado_sample_names(sample_names, set)
    }
    check_sample_names(sample_names, call, reserved = demux_reserved_names())
  }
  flanks <- flank_patterns(set)
  # (k below the flank's length, which a search needs)
  flanks$k <- as.integer(pmin(flanks$k, nchar(flanks$patterns) - 1L))
  kinds <- c(
    "no hit",
    if (e$policy != "samples") "ends disagree",
    if (e$policy == "both") "one end only",
    if (e$policy == "samples") "pair not in sample sheet",
    if (length(flanks$patterns)) "flank without barcode"
  )
  kinds <- intersect(ends_reasons, kinds)
  # dorado's names (without reason files): one "unclassified" output, the
  # ambiguous reads' too
  dorado <- identical(e$names, "dorado") && !e$reason_files
  unassigned <- if (e$reason_files) demux_reason_file(kinds) else if (dorado) "unclassified" else "unassigned"
  names <- c(sample_names, unassigned, if (!dorado) "ambiguous", if (e$chimeras == "set_aside") "chimeric")
  at <- function(n) match(n, names) - 1L
  reason_output <- vapply(ends_reasons, function(r) {
    if (r == "ambiguous") return(at(if (dorado) "unclassified" else "ambiguous"))
    if (r == "chimeric" && e$chimeras == "set_aside") return(at("chimeric"))
    if (!e$reason_files) return(at(unassigned))
    if (r %in% kinds) at(demux_reason_file(r)) else at("no_hit")
  }, 0L, USE.NAMES = FALSE)
  flank_plans <- lapply(sort(unique(flanks$k)), function(kk) {
    fp <- plan
    fp$patterns <- flanks$patterns[flanks$k == kk]
    fp$k <- kk
    fp$ends <- NULL
    fp$barcode_from <- fp$barcode_to <- NULL
    # a flank is looked for on either strand; its presence is enough
    fp$rc <- fp$alphabet != "ascii"
    more <- flank_search_args(fp$alphabet)
    fp[names(more)] <- more
    as_plan(fp, "contains")
  })
  # the flanks with nothing between them (ends-assign.R, no_barcode_between())
  spacer <- spacer_patterns(set)
  spacer_plan <- if (!is.null(spacer) && !is.null(plan$barcode_from)) {
    fp <- plan
    fp$patterns <- spacer$patterns
    fp$k <- spacer$k
    fp$ends <- NULL
    fp$barcode_from <- fp$barcode_to <- NULL
    fp$rc <- fp$alphabet != "ascii"
    more <- flank_search_args(fp$alphabet)
    fp[names(more)] <- more
    as_plan(fp, "assign")
  }
  row_end <- if (is.null(set)) rep("both", length(plan$patterns)) else set$ends
  list(
    names = names,
    sample_names = sample_names,
    spec = list(
      end_length = e$L,
      policy = e$policy,
      barcode = match(barcode_names, barcodes) - 1L,
      row_end = row_end,
      sheet_front = if (!is.null(sheet)) match(sheet$front, barcodes) - 1L else integer(),
      sheet_rear = if (!is.null(sheet)) match(sheet$rear, barcodes) - 1L else integer(),
      sheet_sample = if (!is.null(sheet)) match(sheet$sample, sample_names) - 1L else integer(),
      output_of_sample = seq_along(sample_names) - 1L,
      output_of_reason = reason_output,
      flank_plans = flank_plans,
      chimeras = e$chimeras %in% c("set_aside", "split"),
      chimera_k = chimera_k(plan$k),
      split = e$chimeras == "split",
      barcode_names = barcodes,
      sample_names = sample_names,
      # the barcode cap of each pattern (ends-assign.R, assign_ends()); the
      # plan has their barcode letters (with_barcode_spans())
      barcode_cap = as.integer(barcode_caps(set) %||% integer()),
      # the explanations without a barcode of the set, and the price of a
      # barcode's letters there (ends-assign.R, no_barcode_between())
      spacer_plan = spacer_plan,
      barcode_price = as.integer(if (!is.null(spacer_plan)) barcode_price(set) else integer())
    )
  )
}

# The output names of the both-ends mode that no sample may take.
demux_reserved_names <- function() {
  unique(c("unassigned", "ambiguous", "chimeric", demux_reason_file(ends_reasons)))
}
