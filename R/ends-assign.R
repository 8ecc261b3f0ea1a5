# Both ends of a read (issue 38, "Both ends and dual barcodes"): the front
# and the rear end are assigned each, then combined by a policy. A building
# block, not yet wired into the verbs (their sample/status/reason columns
# are being reworked): assign_read_ends() assigns the ends of character
# vectors with two sassy_assign() calls; combine_ends() turns the two
# assignments into the per-end columns, the orientation, the sample, the
# status and the reason.

#' Assign the front and the rear end of each text on their own
#'
#' @param texts Reads (a character vector).
#' @param patterns A barcode set (sassy_kit(), sassy_barcodes()) or named
#'   patterns.
#' @param k As in sassy_assign() (`NULL`: the set's default).
#' @param end_length How many letters at each end: the front is searched in
#'   the first `end_length` letters, the rear in the last (`ends = c(end_length, 0)`
#'   and `c(0, end_length)`); a read no longer than `end_length` is searched whole
#'   for each.
#' @param policy,samples See combine_ends().
#' @param ... Search options passed to sassy_assign() (`margin`,
#'   `threads`, ...).
#' @return combine_ends()'s data frame, after `record` and `name`.
#' @noRd
assign_read_ends <- function(texts, patterns, k = NULL, end_length = 250L,
                             policy = c("either", "both", "samples"),
                             samples = NULL, ...) {
  policy <- match.arg(policy)
  sp <- as_search_patterns(patterns, k)
  front <- sassy_assign(texts, patterns, k = sp$k, ends = c(end_length, 0L), ...)
  rear <- sassy_assign(texts, patterns, k = sp$k, ends = c(0L, end_length), ...)
  cols <- combine_ends(front, rear, sp$set, policy, samples)
  new_data_frame(c(list(record = front$record, name = front$name), cols), nrow(front))
}

#' Combine the assignments of the two ends of each read
#'
#' @param front,rear Assignment data frames of the same records
#'   (sassy_assign() of the first and of the last letters).
#' @param set The barcode set, or `NULL` (names from `pattern_name`).
#' @param policy `"either"`: an end with a barcode suffices, but two ends
#'   that name different samples are `"ends disagree"`; `"both"`: both ends
#'   must name the same sample; `"samples"`: the pair (front, rear) is
#'   looked up in `samples`.
#' @param samples With `policy = "samples"`, a data frame with columns
#'   `front`, `rear` (barcode names; `rear` `NA` for a single-ended design:
#'   then any rear end, or none, matches) and `sample`. `front` is the
#'   barcode of the set's front rows: on a read of orientation `"-"` it is
#'   found at the read's rear end.
#' @return A list of columns: `front_barcode`, `front_cost`,
#'   `front_barcode_cost`, `front_start`, `front_end`, `front_strand`, the
#'   same for `rear_`, `orientation` (`"+"` when the read is the strand
#'   whose front carries the set's front (or both-ends) rows, `"-"` when
#'   its front carries a rear row; `NA` when the ends do not tell: no hit,
#'   or a symmetric set whose rows are the same at both ends), `sample`,
#'   `status` (`assigned`, `ambiguous`, `unassigned`) and `reason` (`NA`
#'   when assigned; `"no hit"`, `"ambiguous"`, `"ends disagree"`, `"one end
#'   only"` (policy `"both"`), `"pair not in sample sheet"`).
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
    if (is.null(set)) return(a$pattern_name)
    nm <- set$name[a$pattern]
    ifelse(is.na(nm), a$pattern_name, nm)
  }
  end_cols <- function(a, prefix) {
    ok <- a$status == "assigned"
    ok[is.na(ok)] <- FALSE
    out <- list(
      barcode = ifelse(ok, bc_name(a), NA_character_),
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
    key <- function(a, b) paste(a, b, sep = "\r")
    exact <- match(ifelse(is.na(fb), NA_character_, key(fb, rb)), key(samples$front, samples$rear),
      incomparables = NA)
    single <- match(fb, ifelse(is.na(samples$rear), samples$front, NA_character_), incomparables = NA)
    hit <- ifelse(is.na(exact), single, exact)
    sample <- as.character(samples$sample)[hit]
    reason[is.na(sample)] <- "pair not in sample sheet"
    reason[is.na(sample) & is.na(fb) & is.na(rb)] <- "no hit"
    reason[is.na(sample) & any_ambiguous] <- "ambiguous"
  } else {
    agree <- !is.na(fb) & !is.na(rb) & fb == rb
    disagree <- !is.na(fb) & !is.na(rb) & fb != rb
    if (policy == "either") {
      sample <- ifelse(!is.na(fb), fb, rb)
      sample[disagree] <- NA_character_
      # one end with a barcode and the other ambiguous: ambiguous
      sample[any_ambiguous & !agree] <- NA_character_
    } else {
      sample <- ifelse(agree, fb, NA_character_)
    }
    reason[is.na(sample)] <- "no hit"
    reason[is.na(sample) & xor(is.na(fb), is.na(rb))] <- if (policy == "both") "one end only" else "no hit"
    reason[is.na(sample) & any_ambiguous] <- "ambiguous"
    reason[disagree] <- "ends disagree"
  }
  status <- ifelse(!is.na(sample), "assigned", ifelse(reason %in% "ambiguous", "ambiguous", "unassigned"))
  c(f, r, list(
    orientation = orientation,
    sample = sample,
    status = factor(status, levels = assign_status_levels),
    reason = reason
  ))
}
