# sassy_search_fastx(BPPARAM = ), sassy_crispr_fastx(BPPARAM = ) and
# sassy_assign_fastx(BPPARAM = ): files, or record ranges of one file,
# searched by the workers. See ?sharding.

#' Sharded sassy_search_fastx() / sassy_crispr_fastx() / sassy_assign_fastx()
#'
#' @param plan The checked plan (new_search_plan() or new_crispr_plan(); for
#'   "assign" with its `margin`).
#' @param what "hits", "count", "contains", "sparse" (sparse counts),
#'   "crispr" or "assign" (one row per record, no hit limit).
#' @noRd
shard_fastx <- function(paths, plan, what, BPPARAM, call) {
  BPPARAM <- check_bpparam(BPPARAM, call = call)
  plan$texts <- NULL
  args <- list(
    plan = plan,
    what = what,
    # (an assignment holds no hits: the hit limit does not apply)
    max_hits = if (what != "assign") max_hits_option(call = call),
    size = fastx_batch_size(call = call)
  )
  shards <- shard_plan_fastx(paths, BiocParallel::bpnworkers(BPPARAM), call, BPPARAM)
  res <- shard_run(split(shards, seq_len(nrow(shards))), shard_fastx_work, args, BPPARAM, call)
  values <- shard_results(res, shards, "records", BPPARAM, call)
  kept <- if (is.null(attr(values, "missing_shards"))) {
    seq_len(nrow(shards))
  } else {
    setdiff(seq_len(nrow(shards)), attr(values, "missing_shards")$shard)
  }
  not_utf8 <- sum(vapply(values, function(v) as.double(attr(v, "not_utf8", exact = TRUE) %||% 0), numeric(1)))
  if (what == "sparse") {
    inform_not_utf8(not_utf8, paths)
    out <- bind_sparse_counts(values, plan$patterns,
      file = if (has_file_column(paths)) file_labels(paths)[shards$index[kept]]
    )
    check_shard_hits(sparse_hits(out), args$max_hits, call, "fastx")
    attr(out, "missing_shards") <- attr(values, "missing_shards")
    return(out)
  }
  out <- shard_bind(values)
  attr(out, "not_utf8") <- NULL
  inform_not_utf8(not_utf8, paths)
  if (has_file_column(paths)) {
    file <- rep(file_labels(paths)[shards$index[kept]], vapply(values, nrow, numeric(1)))
    out <- new_data_frame(c(list(file = file), out), nrow(out))
  }
  if (what %in% c("count", "contains")) {
    id_cols <- names(out)[seq_len(length(out) - length(plan$patterns))]
    names(out) <- c(id_cols, fastx_pattern_columns(plan$patterns, id_cols))
  } else if (what != "assign") {
    check_shard_hits(nrow(out), args$max_hits, call, "fastx")
    # the record lengths of the shards, as one search would have them
    sl <- lapply(values[vapply(values, nrow, numeric(1)) > 0], attr, "seqlengths", exact = TRUE)
    if (length(sl) > 0L && !any(vapply(sl, is.null, logical(1)))) {
      out <- set_seqlengths(out, unlist(lapply(sl, names), use.names = FALSE),
        unlist(sl, use.names = FALSE))
    }
  }
  attr(out, "missing_shards") <- attr(values, "missing_shards")
  out
}

#' The shards of a file search: one per file, or record ranges
#'
#' @return A data frame: `index` (into `paths`), `path` (as given), `full`
#'   (absolute), `skip` (records before the range), `n` (records in it,
#'   `NaN`: to the end), and for messages `kind`, `source`, `first`, `last`.
#' @noRd
shard_plan_fastx <- function(paths, workers, call, BPPARAM = NULL) {
  per_shard <- shard_size_option("ducksassy.shard_records", call)
  # absolute: workers may run in another folder (batchtools jobs do)
  full <- normalizePath(path.expand(paths), mustWork = FALSE)
  counts <- rep(NA_real_, length(paths))
  if (!is.null(per_shard) || length(paths) < workers) {
    counts <- shard_count_records(full, BPPARAM)
  }
  if (is.null(per_shard)) {
    total <- sum(counts, na.rm = TRUE)
    per_shard <- max(1, ceiling(total / max(1, workers)))
  }
  rows <- lapply(seq_along(paths), function(i) {
    cuts <- range_cuts(counts[[i]], per_shard)
    data.frame(index = i, skip = cuts$skip, n = cuts$n)
  })
  shards <- do.call(rbind, rows)
  shards$path <- unname(paths[shards$index])
  shards$full <- full[shards$index]
  shards$kind <- "file"
  shards$source <- shards$path
  shards$first <- shards$skip + 1
  shards$last <- ifelse(is.nan(shards$n), NA_real_, shards$skip + shards$n)
  shards
}

# The records of each file: several files are counted by the workers, in
# parallel (each count reads a whole file), one file here.
shard_count_records <- function(full, BPPARAM) {
  if (length(full) > 1L && !is.null(BPPARAM)) {
    counts <- tryCatch(
      BiocParallel::bplapply(full, fastx_record_count, BPPARAM = BPPARAM),
      error = function(e) NULL
    )
    ok <- is.list(counts) && length(counts) == length(full) &&
      all(vapply(counts, function(x) is.double(x) && length(x) == 1L, logical(1)))
    # if the workers could not count, the shards' searches will say why
    return(if (ok) unlist(counts, use.names = FALSE) else rep(NA_real_, length(full)))
  }
  vapply(full, fastx_record_count, numeric(1), USE.NAMES = FALSE)
}

# The records of a file, or NA where it cannot be read: such a file is one
# shard, whose worker then reports the problem like any other.
fastx_record_count <- function(path) {
  n <- ds_fastx_count(path)
  if (inherits(n, "ducksassy_rust_error") || !is.double(n) || length(n) != 1L) NA_real_ else n
}

#' Search one file shard (in a worker)
#' @return The shard's data frame without a `file` column.
#' @noRd
shard_fastx_work <- function(shard, args) {
  call <- rlang::current_env()
  plan <- args$plan
  size <- args$size
  res <- if (args$what == "crispr") {
    ds_crispr_fastx(
      shard$full, as_plan(plan, max_hits = args$max_hits),
      new_read_options(size, shard$skip, shard$n, plan$region), NULL
    )
  } else {
    sparse <- args$what == "sparse"
    ds_fastx_search(
      shard$full, as_plan(plan, if (sparse) "hits" else args$what, args$max_hits),
      new_read_options(size, shard$skip, shard$n, plan$region, names = sparse), NULL
    )
  }
  if (inherits(res, "ducksassy_rust_error") && identical(res$path, shard$full)) {
    # the error's `path` field as the caller gave it
    res$path <- path.expand(shard$path)
  }
  # headers that were not UTF-8: counted here, said once by shard_fastx()
  not_utf8 <- if (is.list(res) && !inherits(res, "ducksassy_rust_error")) res$not_utf8
  if (!is.null(not_utf8)) {
    res$not_utf8 <- NULL
  }
  res <- fastx_result(res, "paths", shard$path, call = call)
  out <- if (args$what == "crispr") {
    new_crispr_hits(new_fastx_hits(res, shard$path, call = call,
      pattern_names = names(plan$guides), plan = plan
    ))
  } else if (args$what == "sparse") {
    new_fastx_sparse(res, shard$path, plan$patterns, skip = shard$skip, call = call)
  } else if (args$what == "assign") {
    n <- length(res$name)
    records <- fastx_record_columns(shard$path, res$records_per_file, res$name)
    # record numbers of the file, not of the range
    records$record <- records$record + as.integer(shard$skip)
    new_assignments(records, res$best, plan$patterns, n)
  } else if (args$what == "hits") {
    new_fastx_hits(res, shard$path, call = call,
      pattern_names = names(plan$patterns), plan = plan
    )
  } else {
    values <- new_fastx_values(res, shard$path, plan$patterns, args$what, call = call)
    # record numbers of the file, not of the range
    values$record <- values$record + as.integer(shard$skip)
    values
  }
  attr(out, "not_utf8") <- not_utf8
  out
}

#' Progress of a sharded run: shards done of all, by BiocParallel's own bar
#'
#' The shards run in workers, where no bar is shown (and no R of this
#' session runs while bplapply() waits), so in interactive sessions the
#' parameter's progress bar is switched on for the call unless the caller
#' set it, or turned progress off with `options(ducksassy.progress = FALSE)`.
#' @return `TRUE` when it was switched on (the caller switches it off).
#' @noRd
shard_progress <- function(BPPARAM) {
  if (!progress_wanted() || isTRUE(BiocParallel::bpprogressbar(BPPARAM))) {
    return(FALSE)
  }
  tryCatch(
    {
      BiocParallel::bpprogressbar(BPPARAM) <- TRUE
      TRUE
    },
    error = function(e) FALSE
  )
}
