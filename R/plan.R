# The search plan: the one value every search entry point of the binding
# takes (ds_search(), ds_table_submit(), ds_crispr(), ds_fastx_search(),
# ds_fastx_filter(), ds_crispr_fastx()), read by name in
# src/rust/src/plan.rs.
#
# R checks the *shape* of the user's arguments (type, length, NA: the
# check_*() functions of checks.R) and builds the plan here; the Rust core
# checks the *domain* rules (k below every pattern's length, rc with ascii,
# overhang with iupac, PAM length, ...) once, and its errors come back as
# data (conditions.R). Absent optional values are NULL.
#
# Adding a search option: a formal of the verbs (arguments.R), its shape
# check (checks.R), a field here, one line in plan.rs, the core.

#' A search plan for the binding
#'
#' @param patterns Character vector of patterns (the guides, PAM included,
#'   of a CRISPR plan).
#' @param k Maximum edits, a whole number.
#' @param alphabet `"iupac"`, `"dna"` or `"ascii"`.
#' @param ignore_case,rc,all_endpoints,cigar,indels Flags.
#' @param overhang,max_n_frac `NULL` or a number.
#' @param threads Worker threads, a whole number.
#' @param mode `"hits"`, `"count"` or `"contains"`.
#' @param max_hits `NULL` (no limit) or the most hits held in memory.
#' @param pam_length `NULL`, or (a CRISPR plan) the PAM length: one whole
#'   number or one per guide.
#' @param allow_pam_edits Flag of a CRISPR plan.
#' @param ends `NULL`, or the letters searched at the start and the end of
#'   each record (two whole numbers, check_ends()).
#' @param margin `NULL`, or an assignment's margin (check_margin()).
#' @param samples `NULL`, or (an assignment) the 0-based sample of each
#'   pattern (assign_samples()): the margin compares samples.
#' @param barcode_from,barcode_to `NULL`, or (an assignment with a barcode
#'   set that has flanks) the 0-based letters `[from, to)` of each pattern's
#'   barcode: the best hit then carries its edits there (`barcode_cost`) and
#'   the margin compares them (barcode_spans()).
#' @param halves `NULL`, or `TRUE` for an end of a read in the both-ends
#'   mode (`ends` `c(L, 0)` or `c(0, L)`): a best hit nearer the record's
#'   other end is that end's site, and the end is searched again without it
#'   (the core's `SearchPlan::halves`), so the rear end of a short read does
#'   not find the front end's site.
#' @return A named list of class `ducksassy_plan`.
#' @noRd
new_plan <- function(patterns,
                     k,
                     alphabet = "iupac",
                     ignore_case = FALSE,
                     rc = TRUE,
                     all_endpoints = FALSE,
                     overhang = NULL,
                     max_n_frac = NULL,
                     cigar = TRUE,
                     threads = 1L,
                     mode = "hits",
                     max_hits = NULL,
                     indels = TRUE,
                     pam_length = NULL,
                     allow_pam_edits = FALSE,
                     ends = NULL,
                     margin = NULL,
                     samples = NULL,
                     barcode_from = NULL,
                     barcode_to = NULL,
                     halves = NULL) {
  structure(
    list(
      patterns = patterns,
      k = k,
      alphabet = alphabet,
      ignore_case = ignore_case,
      rc = rc,
      all_endpoints = all_endpoints,
      overhang = absent_as_null(overhang),
      max_n_frac = absent_as_null(max_n_frac),
      cigar = cigar,
      threads = threads,
      mode = mode,
      max_hits = absent_as_null(max_hits),
      indels = indels,
      pam_length = pam_length,
      allow_pam_edits = allow_pam_edits,
      ends = ends,
      margin = margin,
      samples = samples,
      barcode_from = barcode_from,
      barcode_to = barcode_to,
      halves = halves
    ),
    class = "ducksassy_plan"
  )
}

#' Check the domain rules of a plan in the core, once, before anything is
#' read or searched (a table or file search would otherwise report a bad
#' `k` only at its first chunk, or never for an empty one)
#' @noRd
check_plan <- function(plan, call = rlang::caller_env()) {
  rust_result(ds_check_plan(plan), call = call, patterns = plan$patterns)
  invisible(plan)
}

#' The binding's plan from a checked argument list
#'
#' `args` is what `new_search_plan()` (checks.R) or `new_crispr_plan()`
#' (crispr.R) returned: a CRISPR list has `guides` and `pam_length`.
#' @noRd
as_plan <- function(args, mode = "hits", max_hits = NULL) {
  if (!is.null(args$guides)) {
    return(new_plan(
      args$guides, args$k,
      rc = args$rc, all_endpoints = TRUE, max_n_frac = args$max_n_frac,
      cigar = args$cigar, threads = args$threads, mode = "hits",
      max_hits = max_hits, indels = args$indels %||% TRUE,
      pam_length = args$pam_length, allow_pam_edits = args$allow_pam_edits
    ))
  }
  new_plan(
    args$patterns, args$k, args$alphabet, args$ignore_case, args$rc,
    args$all_endpoints, args$overhang, args$max_n_frac,
    args$cigar, args$threads, mode, max_hits,
    args$indels %||% TRUE,
    ends = args$ends, margin = args$margin,
    samples = if (mode == "assign") assign_samples(args$patterns),
    barcode_from = if (mode == "assign") args$barcode_from,
    barcode_to = if (mode == "assign") args$barcode_to,
    halves = if (mode == "assign") args$halves
  )
}

#' Where a demultiplexing writes: the one list ds_fastx_demultiplex() reads
#' (by name, src/rust/src/demux.rs `demux_spec()`)
#'
#' Every value is checked by demultiplex_fastx() before; here they are only
#' named and typed, so the binding takes one list instead of ten arguments.
#' @param mates The mates' files (`NULL`: single reads).
#' @param outputs,mate_outputs The output files (`mate_outputs`: `NULL`
#'   without mates).
#' @param sample The 0-based output of each pattern.
#' @param unassigned,ambiguous The 0-based outputs of those records.
#' @param trim Cut the barcodes (and what is outside them) off.
#' @param gzip_level 1 to 9, for the outputs named `.gz`.
#' @param report `NULL`, or `list(path, output_names, pattern_names)`.
#' @param ends `NULL`, or the both-ends mode (demux_ends_outputs()`$spec`).
#' @noRd
new_demux_spec <- function(mates, outputs, mate_outputs, sample, unassigned,
                           ambiguous, trim, gzip_level, report, ends) {
  list(
    mates = mates, outputs = outputs, mate_outputs = mate_outputs,
    sample = as.integer(sample), unassigned = as.integer(unassigned),
    ambiguous = as.integer(ambiguous), trim = isTRUE(trim),
    gzip_level = as.integer(gzip_level), report = report, ends = ends
  )
}

#' Where a filter writes: the one list ds_fastx_filter() reads (by name,
#' src/rust/src/fastx.rs)
#'
#' @param output The output file.
#' @param invert Write the records without a hit instead.
#' @param gzip The gzip level (1 to 9), 0 for a plain output.
#' @noRd
new_filter_spec <- function(output, invert, gzip) {
  list(output = output, invert = isTRUE(invert), gzip = as.integer(gzip))
}

#' How the file searches read their files
#'
#' @param size Batch sizes (`fastx_batch_size()`: `bytes`, `records`; `NA`
#'   or `NULL`: the default for the thread count).
#' @param skip,n_records The record range of each file: skip the first
#'   `skip` records, then read `n_records` (`NULL`: to the end).
#' @param region Capture the matched region of each hit.
#' @param names Keep the name of every record in hits mode (sparse counts:
#'   `all_names` and `records_per_file` in the result).
#' @noRd
new_read_options <- function(size = NULL, skip = 0, n_records = NULL,
                             region = FALSE, names = FALSE) {
  list(
    batch_bytes = absent_as_null(size[["bytes"]]),
    batch_records = absent_as_null(size[["records"]]),
    skip = skip,
    n_records = absent_as_null(n_records),
    region = isTRUE(region),
    names = isTRUE(names)
  )
}

# NULL for NULL, NA and NaN (the stand-ins of "not set" in older code).
absent_as_null <- function(x) {
  if (is.null(x) || (length(x) == 1L && is.na(x))) NULL else x
}
