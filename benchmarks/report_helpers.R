# Helpers for the benchmark reports (benchmarks/*.Rmd), which are knitted in
# benchmarks/ and read everything they show from data/*.csv and the
# receipts: no number in a report is typed in.

receipt <- function(name) {
  path <- file.path("data", paste0(name, "_receipt.json"))
  if (!file.exists(path)) stop("no receipt ", path, ": run benchmarks/", name, ".R first")
  jsonlite::read_json(path, simplifyVector = TRUE)
}

read_data <- function(name) {
  path <- file.path("data", paste0(name, ".csv"))
  if (!file.exists(path)) return(NULL)
  utils::read.csv(path, stringsAsFactors = FALSE)
}

#' One paragraph: the machine and build that produced a receipt.
machine <- function(r) {
  load <- function(x) if (is.null(x)) "?" else paste(format(x, nsmall = 2), collapse = " / ")
  sprintf(paste0(
    "%s, %d cores, %s GB RAM; %s; ducksassy %s at commit `%s`%s, ",
    "sassy %s, SIMD backend `%s` (`%s`), %s; %s. ",
    "Load average (1/5/15 min) before: %s, after: %s. Measured %s."
  ),
  r$cpu_model, as.integer(r$cores), r$memory_gb, r$r_version, r$package_version,
  substr(r$commit, 1, 10),
  if (isTRUE(r$worktree_modified_files > 0)) sprintf(" (+%d modified files in the work tree)", as.integer(r$worktree_modified_files)) else "",
  r$sassy_version, r$simd_in_use, if (nzchar(r$rustflags %||% "")) r$rustflags else "no RUSTFLAGS",
  r$rustc, r$platform,
  load(r$load_average_before), load(r$load_average_after), r$date)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

#' The commands to rerun a report: its script with the receipt's arguments,
#' then the render.
rerun <- function(r, name = r$report) {
  cat("```sh\n")
  cat("# from the package root, with ducksassy installed\n")
  cat(trimws(r$command), "\n", sep = "")
  cat(sprintf(
    "Rscript -e 'rmarkdown::render(\"benchmarks/%s.Rmd\", output_format = rmarkdown::github_document(html_preview = FALSE))'\n",
    name
  ))
  cat("```\n")
}

#' Median of `value` by the grouping columns.
medians <- function(df, by, value = "seconds") {
  f <- stats::as.formula(paste(value, "~", paste(by, collapse = " + ")))
  stats::aggregate(f, data = df, FUN = stats::median)
}

fmt <- function(x, digits = 3) formatC(x, digits = digits, format = "f", big.mark = ",")
fmt_int <- function(x) formatC(x, format = "d", big.mark = ",")

#' Paired ratios of path `a` over path `b` in the rows `d` (a benchmark CSV):
#' one ratio per repetition (the two ran back to back), summarised per
#' workload and thread count by their median and quartiles, which a noisy
#' neighbour moves less than a ratio of minima.
paired <- function(d, a, b, col = "seconds") {
  x <- merge(d[d$path == a, c("workload", "threads", "rep", col)],
             d[d$path == b, c("workload", "threads", "rep", col)],
             by = c("workload", "threads", "rep"), suffixes = c("_a", "_b"))
  x$ratio <- x[[paste0(col, "_a")]] / x[[paste0(col, "_b")]]
  agg <- stats::aggregate(ratio ~ workload + threads, x, function(v) {
    ci <- median_ci(v)
    c(median = stats::median(v), q1 = unname(stats::quantile(v, 0.25)), q3 = unname(stats::quantile(v, 0.75)),
      ci_lo = ci[1], ci_hi = ci[2], n = length(v))
  })
  cbind(agg[c("workload", "threads")], as.data.frame(agg$ratio))
}

#' Distribution-free 95% confidence interval of a median: the order
#' statistics x_(l) and x_(n - l + 1), l from the binomial(n, 1/2) quantile
#' (no assumption on the shape of the noise, which on this VM is skewed).
#' `NA`s for fewer than 6 values, where no such interval reaches 95%.
median_ci <- function(v) {
  v <- sort(v)
  n <- length(v)
  l <- stats::qbinom(0.025, n, 0.5)
  if (l < 1) return(c(NA_real_, NA_real_))
  c(v[l], v[n - l + 1])
}
