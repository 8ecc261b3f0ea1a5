# sassy_filter_fastx() and sassy_read_fastx(): records that have a hit,
# written to a file; the records of a file as a data frame.

#' @rdname sassy_search_fastx
#' @order 4
#' @export
sassy_filter_fastx <- new_verb(
  "sassy_filter_fastx",
  c(
    alist(path = , output = , patterns = , k = 0L, invert = FALSE),
    # which records have a hit does not depend on `all_endpoints`
    search_option_formals(except = "all_endpoints"),
    alist(threads = sassy_threads(), indels = TRUE),
    end_formals(),
    alist(compression_level = 1L)
  ),
  "filter_fastx"
)

#' The work of sassy_filter_fastx() (new_verb() in arguments.R)
#' @noRd
filter_fastx <- function(path, output, patterns, k, invert, alphabet, rc,
                         overhang, max_n_frac, ignore_case, ends = NULL,
                         threads, indels, compression_level, call) {
  path <- check_fastx_paths(path, "path", single = TRUE, call = call, hint = function() {
    swapped_hint(patterns, is_file, "sassy_filter_fastx", "path")
  })
  output <- check_fastx_output(output, path, call = call)
  plan <- new_search_plan(
    character(), patterns, k, alphabet, rc, FALSE, overhang, max_n_frac,
    ignore_case, FALSE, threads,
    indels = indels, call = call, ends = ends
  )
  invert <- check_flag(invert, "invert", call = call)
  level <- check_compression_level(compression_level, call = call)
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(path), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_fastx_filter(
    path.expand(path),
    as_plan(plan, "contains"),
    new_read_options(size),
    progress_callback(progress),
    new_filter_spec(
      output = path.expand(output), invert = invert,
      # the gzip level, 0 for a plain output
      gzip = if (grepl("\\.(gz|gzip)$", output, ignore.case = TRUE)) level else 0L
    )
  )
  res <- fastx_result(res, "path", path, output = output, call = call)
  if (!is.double(res) || length(res) != 2L) {
    abort_internal("the filter returned no counts", call)
  }
  res
}

#' @rdname sassy_search_fastx
#' @order 5
#' @export
sassy_read_fastx <- function(path, n_max = Inf, ...) {
  call <- rlang::current_env()
  check_full_arg_names(sys.call(), parent.frame(), .fn = "sassy_read_fastx", .call = call)
  check_no_extra_args(..., .fn = "sassy_read_fastx", .call = call)
  path <- check_fastx_paths(path, "path", single = TRUE, call = call)
  n_max <- check_n_max(n_max, call = call)
  size <- fastx_batch_size(call = call)
  res <- ds_fastx_read(path.expand(path), n_max, size[["bytes"]], size[["records"]])
  res <- fastx_result(res, "path", path, call = call)
  cols <- list(
    name = res$name,
    description = res$description,
    sequence = res$sequence
  )
  if (identical(res$format, "fastq")) {
    cols$quality <- res$quality
  }
  new_data_frame(cols, length(res$name))
}

# `shown`: what the errors show and carry as their `value` (the
# demultiplexer checks its first output file and shows its template), so no
# caller rewrites a message.
check_fastx_output <- function(output, path, call = rlang::caller_env(),
                               folder_may_be_missing = FALSE, arg = "output",
                               shown = output) {
  a <- paste0("`", arg, "`")
  if (!is.character(output) || length(output) != 1L || is.na(output) ||
    output == "") {
    abort_scalar(arg, "a single file path", shown, call)
  }
  full <- path.expand(output)
  if (grepl("\\.(bz2|xz|zst|zstd|lz4|bgz|bgzf)$", output, ignore.case = TRUE)) {
    abort_value(
      arg,
      paste0(a, " must end in \".gz\" (gzip) or have no compression suffix."),
      shown, call,
      hint = "Only gzip output can be written; other compressions are read, not written."
    )
  }
  if (dir.exists(full)) {
    abort_scalar(arg, "a file path, not a folder", shown, call)
  }
  if (!folder_may_be_missing && !dir.exists(dirname(full))) {
    ducksassy_abort(
      c(
        paste0("The folder of ", a, " must exist."),
        x = paste0(a, " is ", format_value(shown), ", in a folder that does not exist.")
      ),
      class = c("ducksassy_file_error", "ducksassy_input_error"),
      arg = arg,
      value = shown,
      path = shown,
      call = call
    )
  }
  same <- file.exists(full) &&
    identical(normalizePath(full), normalizePath(path.expand(path)))
  if (same) {
    ducksassy_abort(
      c(
        paste0(a, " must not be the input file `path`."),
        x = paste0("Both are ", format_value(shown), ".")
      ),
      arg = arg,
      value = shown,
      call = call
    )
  }
  output
}

check_n_max <- function(n_max, call = rlang::caller_env()) {
  ok <- (is.integer(n_max) || is.double(n_max)) && length(n_max) == 1L &&
    !is.na(n_max) && n_max >= 0 && (is.infinite(n_max) || n_max == trunc(n_max))
  if (!ok) {
    abort_scalar("n_max", "a single whole number >= 0, or Inf", n_max, call)
  }
  as.double(n_max)
}

# Batch size of the reader, from the (internal) options
# `ducksassy.fastx_batch_bytes` and `ducksassy.fastx_batch_records`; NaN
