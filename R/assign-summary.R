# summary() and plot() of a both-ends assignment (issue 38): reads per
# sample and per reason, and the picture users check first after a run.

#' Summarise and plot an assignment
#'
#' The both-ends mode of [sassy_assign()], [sassy_assign_fastx()] and
#' [sassy_assign_table()] returns a data frame of class
#' `ducksassy_assignment` (one-end assignments stay plain data frames).
#' `summary()` counts its reads per sample, per status and per reason;
#' `plot()` draws the reads per sample and the distribution of the edits
#' in the barcodes found at each end (`front_barcode_cost`,
#' `rear_barcode_cost`), with base graphics.
#'
#' @param object,x An assignment (`ducksassy_assignment`), or for `print()`
#'   its summary.
#' @param ... Not used.
#' @return `summary()`: a list of class `ducksassy_assignment_summary`:
#'   `reads` (the number of records), `samples` (a data frame of `sample`
#'   and `reads`, the assigned reads of each sample, most first), `status`
#'   (a data frame of `status` and `reads`, every level) and `reasons` (a
#'   data frame of `reason` and `reads`, every reason, in their order of
#'   precedence; see [sassy_assign()], *Both ends and sample sheets*). The
#'   counts equal `table()` of the columns `sample`, `status` and `reason`.
#'   `plot()` returns `x` invisibly.
#' @name assignment-summary
#' @examples
#' set <- sassy_barcodes(c(a = "ACGTACGTACGTACGT", b = "TTGCAATTGCAAGGCC"),
#'   flank5 = "GGTGCTGAAC", flank3 = "CCTTAACCGG")
#' reads <- c(
#'   r1 = paste0("GGTGCTGAAC", "ACGTACGTACGTACGT", "CCTTAACCGG", strrep("A", 60)),
#'   r2 = paste0(strrep("C", 60), "CCGGTTAAGG", "GGCCTTGCAATTGCAA", "GTTCAGCACC"),
#'   r3 = strrep("ACGT", 20)
#' )
#' x <- sassy_assign(reads, set, k = 4, ends = 40)
#' summary(x)
#' plot(x)
NULL

#' @rdname assignment-summary
#' @method summary ducksassy_assignment
#' @export
summary.ducksassy_assignment <- function(object, ...) {
  count <- function(v, levels, col) {
    tab <- table(factor(v, levels = levels))
    df <- data.frame(x = names(tab), reads = as.integer(tab), stringsAsFactors = FALSE)
    names(df)[[1L]] <- col
    df
  }
  s <- object$sample
  samples <- if (is.null(s)) count(character(), character(), "sample") else {
    # (names = "dorado" calls the unassigned reads' sample "unclassified")
    v <- as.character(s[!is.na(s) & (is.null(object$status) | object$status %in% "assigned")])
    u <- sort(unique(v))
    df <- data.frame(sample = u, reads = tabulate(match(v, u), length(u)), stringsAsFactors = FALSE)
    df[order(-df$reads, df$sample), , drop = FALSE]
  }
  rownames(samples) <- NULL
  st <- object$status
  out <- list(
    reads = nrow(object),
    samples = samples,
    status = count(as.character(st), if (is.factor(st)) levels(st) else ends_status_levels, "status"),
    reasons = count(object$reason, ends_reasons, "reason")
  )
  class(out) <- "ducksassy_assignment_summary"
  out
}

#' @rdname assignment-summary
#' @method print ducksassy_assignment_summary
#' @export
print.ducksassy_assignment_summary <- function(x, ...) {
  assigned <- sum(x$samples$reads)
  pct <- if (x$reads > 0L) paste0(" (", format(round(100 * assigned / x$reads, 1), nsmall = 1), "%)") else ""
  cat("<ducksassy_assignment_summary> ", x$reads, " read", if (x$reads != 1L) "s",
    ", ", assigned, " assigned", pct, " to ", nrow(x$samples), " sample",
    if (nrow(x$samples) != 1L) "s", "\n",
    sep = ""
  )
  cat("\nReads per sample:\n")
  if (nrow(x$samples)) print(x$samples, row.names = FALSE) else cat("(none)\n")
  cat("\nReads per status:\n")
  print(x$status, row.names = FALSE)
  cat("\nUnassigned reads per reason:\n")
  print(x$reasons, row.names = FALSE)
  invisible(x)
}

#' @rdname assignment-summary
#' @method plot ducksassy_assignment
#' @export
plot.ducksassy_assignment <- function(x, ...) {
  s <- summary(x)
  old <- graphics::par(mfrow = c(1L, 2L))
  on.exit(graphics::par(old), add = TRUE)
  reads <- c(stats::setNames(s$samples$reads, s$samples$sample),
    c(unassigned = s$reads - sum(s$samples$reads)))
  # room for the longest sample name under the bars
  graphics::par(mar = c(min(15, max(5, 1 + 0.6 * max(nchar(names(reads))))), 4, 3, 1))
  graphics::barplot(reads, las = 2L, main = "Reads per sample", ylab = "reads",
    col = c(rep("grey40", nrow(s$samples)), "grey80"))
  edits <- function(col, barcode) {
    v <- x[[col]]
    b <- x[[barcode]]
    if (is.null(v) || is.null(b)) integer() else v[!is.na(b) & !is.na(v)]
  }
  fe <- edits("front_barcode_cost", "front_barcode")
  re <- edits("rear_barcode_cost", "rear_barcode")
  top <- max(c(0L, fe, re))
  m <- rbind(
    front = tabulate(fe + 1L, top + 1L),
    rear = tabulate(re + 1L, top + 1L)
  )
  colnames(m) <- 0:top
  graphics::par(mar = c(5, 4, 3, 1))
  graphics::barplot(m, beside = TRUE, legend.text = rownames(m),
    main = "Edits in the barcode", xlab = "edits", ylab = "ends",
    col = c("grey30", "grey70"))
  invisible(x)
}

# The assignment as a plain data frame.
unclass_assignment <- function(x) {
  class(x) <- "data.frame"
  x
}
