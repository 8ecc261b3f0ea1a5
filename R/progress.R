# Progress bars of long searches (cli), one implementation for every family.
#
# A search that may run long makes a progress object with new_progress():
# `NULL` when no bar is wanted (progress off, or a non-interactive session:
# R CMD check, knitr, Rscript), so the search then costs exactly what it
# did before. Otherwise an environment that holds the bar's state; the cli
# bar itself is only made at the first update, so short searches never pay
# for one: it is made, and shown, once the search has run for
# `getOption("cli.progress_show_after")` seconds (cli's option, 2 by default).
#
# Searches that run in Rust pass progress_callback(p) to the binding: the
# binding calls it on R's main thread while it polls for Ctrl-C, at most
# every 200 ms, under R_ToplevelExec() (src/rust/src/progress.rs), with the
# bytes done and the total the core's counters report. Searches driven
# from R (tables, chunks of Biostrings sets) call progress_update()
# themselves. progress_done() closes the bar; callers put it in on.exit().

#' Whether searches show progress bars
#'
#' Interactive sessions only, unless `options(ducksassy.progress = FALSE)`.
#' @noRd
progress_wanted <- function() {
  rlang::is_interactive() && !isFALSE(getOption("ducksassy.progress", TRUE))
}

#' A progress object, or NULL when no bar is wanted
#'
#' @param label What is being searched, e.g. "Searching 3 files".
#' @param unit `"bytes"` (shown as kB/MB/GB) or `"rows"`.
#' @param total The total in `unit`s, or `NA` when unknown (a spinner);
#'   updates may bring it.
#' @noRd
new_progress <- function(label, unit = c("bytes", "rows"), total = NA_real_) {
  if (!progress_wanted()) {
    return(NULL)
  }
  p <- new.env(parent = baseenv())
  p$label <- label
  p$unit <- match.arg(unit)
  p$total <- as.double(total)
  # added to what the binding reports (chunked searches: what earlier
  # chunks did)
  p$base <- 0
  p$id <- NULL
  p$start <- proc.time()[[3L]]
  # the bar's format calls these (cli evaluates the format in `p`)
  p$rate_text <- progress_rate
  p$count_text <- format_count
  p
}

#' Set the progress to `done` of `total`
#' @noRd
progress_update <- function(p, done, total = NA_real_) {
  if (is.null(p)) {
    return(invisible(NULL))
  }
  if (!is.na(total)) {
    p$total <- as.double(total)
  }
  if (is.null(p$id)) {
    # cli would wait `cli.progress_show_after` seconds from the bar's making;
    # waiting here instead, no bar is made at all for a shorter search, so a
    # short search pays nothing for it
    wait <- getOption("cli.progress_show_after", 2)
    if (proc.time()[[3L]] - p$start < wait) {
      return(invisible(NULL))
    }
    old <- options(cli.progress_show_after = 0)
    on.exit(options(old), add = TRUE)
    p$id <- cli::cli_progress_bar(
      format = progress_format(p$unit, known = !is.na(p$total)),
      total = p$total,
      clear = TRUE,
      # closed by progress_done() only: the bar may be made inside the
      # binding's protected callback, where cli cannot register its own
      # exit handler, and a table may have more rows than counted
      auto_terminate = FALSE,
      .auto_close = FALSE,
      .envir = p
    )
  }
  if (is.na(p$total)) {
    cli::cli_progress_update(set = done, id = p$id, .envir = p)
  } else {
    cli::cli_progress_update(set = min(done, p$total), total = p$total, id = p$id, .envir = p)
  }
  invisible(NULL)
}

#' The callback the binding calls with (done, total): the bar of `p` at
#' `p$base + done` of `p$total` (or of `p$base + total` when `p$total` is
#' unknown). `NULL` (no callback) when `p` is `NULL`.
#' @noRd
progress_callback <- function(p) {
  if (is.null(p)) {
    return(NULL)
  }
  force(p)
  function(done, total) {
    # an error here must not end the search: no bar is better than none
    tryCatch(
      {
        if (is.na(p$total) && !is.na(total)) {
          total <- p$base + total
        } else {
          total <- NA_real_
        }
        progress_update(p, p$base + done, total)
      },
      error = function(e) NULL
    )
    NULL
  }
}

#' Close the bar (a no-op when it was never shown)
#' @noRd
progress_done <- function(p) {
  if (!is.null(p) && !is.null(p$id)) {
    try(cli::cli_progress_done(id = p$id, .envir = p), silent = TRUE)
    p$id <- NULL
  }
  invisible(NULL)
}

progress_format <- function(unit, known) {
  if (unit == "bytes") {
    if (known) {
      "{label} {cli::pb_bar} {cli::pb_current_bytes}/{cli::pb_total_bytes} | {cli::pb_rate_bytes} | ETA {cli::pb_eta}"
    } else {
      "{label} {cli::pb_spin} {cli::pb_current_bytes} | {cli::pb_rate_bytes} | {cli::pb_elapsed}"
    }
  } else {
    if (known) {
      "{label} {cli::pb_bar} {count_text(cli::pb_current)}/{count_text(cli::pb_total)} rows | {rate_text(cli::pb_rate_raw)} | ETA {cli::pb_eta}"
    } else {
      "{label} {cli::pb_spin} {count_text(cli::pb_current)} rows | {rate_text(cli::pb_rate_raw)} | {cli::pb_elapsed}"
    }
  }
}

#' A progress label with a count: "Searching 1 text", "Searching 2,000 texts"
#' @noRd
count_label <- function(verb, n, noun) {
  paste(verb, format_count(n), paste0(noun, if (n != 1) "s"))
}

#' A count in full, with thousands separators and never in scientific
#' notation ("400,000", not "4e+05")
#' @noRd
format_count <- function(x) {
  format(round(x), big.mark = ",", scientific = FALSE, trim = TRUE)
}

#' A rate of the bar ("400,000/s"; "?/s" while unknown), for rows: cli's own
#' `pb_rate` formats with `digits = 2`, which shows 400000 as "4e+05"
#' @noRd
progress_rate <- function(rate) {
  if (length(rate) != 1L || !is.finite(rate)) {
    return("?/s")
  }
  paste0(format_count(rate), "/s")
}
