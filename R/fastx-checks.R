# Checks of the file arguments of the FASTA/FASTQ functions, and the
# reader's batch size.

# ---------------------------------------------------------------------------
# Argument checks

#' `compression_level`: the gzip level of `.gz` outputs, a whole number
#' from 1 to 9 (zlib's levels; 0, no compression, is a plain output)
#' @noRd
check_compression_level <- function(level, call = rlang::caller_env()) {
  if (!is_whole_scalar(level) || level < 1 || level > 9) {
    abort_scalar("compression_level", "a single whole number from 1 to 9", level, call,
      hint = "1 compresses fastest, 9 smallest; for a plain output, name it without `.gz`."
    )
  }
  as.integer(level)
}

check_fastx_paths <- function(paths, arg, single = FALSE,
                              call = rlang::caller_env(), hint = NULL) {
  what <- if (single) "a single file path" else "a character vector of file paths"
  if (!is.character(paths) || length(paths) == 0L ||
    (single && length(paths) != 1L)) {
    ducksassy_abort(
      c(
        paste0("`", arg, "` must be ", what, "."),
        x = paste0("`", arg, "` is ", format_value(paths), ".")
      ),
      arg = arg,
      value = paths,
      call = call
    )
  }
  bad <- which(is.na(paths) | paths == "")
  if (length(bad) > 0L) {
    i <- bad[[1L]]
    ducksassy_abort(
      c(
        paste0("`", arg, "` must not contain missing values or empty strings."),
        locate_bullet(arg, if (single) NULL else i, paths[[i]]),
        more_bullet(bad)
      ),
      arg = arg,
      index = i,
      value = paths[[i]],
      call = call
    )
  }
  full <- path.expand(paths)
  missing <- which(!file.exists(full))
  folders <- which(dir.exists(full))
  bad <- sort(c(missing, folders))
  if (length(bad) > 0L) {
    i <- bad[[1L]]
    problem <- if (i %in% missing) "does not exist" else "is a folder, not a file"
    where <- if (single) paste0("`", arg, "`") else paste0("`", arg, "[", i, "]`")
    ducksassy_abort(
      c(
        paste0("Can't read file \"", cli_escape(paths[[i]]), "\": it ", problem, "."),
        x = paste0(where, " is ", format_value(paths[[i]]), "."),
        more_bullet(bad),
        # (swapped arguments: the patterns name files; swapped.R)
        if (is.function(hint)) hint()
      ),
      class = c("ducksassy_file_error", "ducksassy_input_error"),
      arg = arg,
      index = i,
      value = paths[[i]],
      path = paths[[i]],
      record = NULL,
      line = NULL,
      call = call
    )
  }
  paths
}

is_file <- function(p) {
  full <- path.expand(p)
  file.exists(full) && !dir.exists(full)
}

# (unset) lets the Rust core pick its default for the thread count (1 MiB per
# thread, 2 to 64 MiB). Never changes results.
fastx_batch_size <- function(call = rlang::caller_env()) {
  get <- function(name) {
    x <- getOption(name)
    if (is.null(x)) {
      return(NaN)
    }
    if (!is_whole_scalar(x) || x < 1) {
      abort_scalar(
        paste0("getOption(\"", name, "\")"), "a single whole number >= 1", x,
        call
      )
    }
    as.double(x)
  }
  c(
    bytes = get("ducksassy.fastx_batch_bytes"),
    records = get("ducksassy.fastx_batch_records")
  )
}
