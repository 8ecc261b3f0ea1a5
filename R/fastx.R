#' Search, filter and read FASTA and FASTQ files
#'
#' @description
#' Work with sequence files without loading them into R first. The files are
#' read in native code (the needletail parser), in batches of records, on a
#' thread of their own, while the previous batch is searched in parallel:
#' memory stays bounded by the batch size and the results, not by the file
#' size.
#'
#' * `sassy_search_fastx()` searches every record of one or more files, like
#'   [sassy_search()], [sassy_count()] or [sassy_contains()] do for a
#'   character vector (`what = "hits"`, `"count"` or `"contains"`).
#' * `sassy_filter_fastx()` writes the records that have a hit of any pattern
#'   (or, with `invert = TRUE`, those that have none) to a new file,
#'   unchanged. It takes the search arguments that change which records have
#'   a hit (`all_endpoints` and `cigar` do not).
#' * `sassy_read_fastx()` reads the records into a data frame, for use in R or
#'   in a database.
#'
#' @section Files:
#' FASTA (records start with `>`) and FASTQ (four lines per record, starting
#' with `@`) are recognised from the first byte, plain or compressed with
#' gzip (also multi-member and BGZF), bzip2, xz or zstd. The compression is
#' detected from the content, not from the file name. Multi-line FASTA is
#' supported, FASTQ must have one sequence line and one quality line per
#' record. Windows line endings (`\r\n`) are accepted.
#'
#' An empty file (0 bytes, a compressed stream of nothing, or only blank
#' lines) has zero records, as Biostrings reads it: empty demultiplexed
#' samples are routine. Blank lines and `;` comment lines before the first
#' record, and `;` comment lines anywhere in FASTA, are skipped, as
#' Biostrings skips them (`sassy_filter_fastx()` does not write them).
#'
#' Each record has a *name*, the header up to the first space or tab (what
#' Biostrings and samtools call the id), and a *description*, the rest of the
#' header after that space or tab. Records are numbered from 1 in each file.
#'
#' A search gives the same result as [sassy_search()] (or [sassy_count()],
#' [sassy_contains()]) on the sequences of the records, whatever the
#' compression, the batch size and the number of threads; only the `file`,
#' `record` and `name` columns are added.
#'
#' @section Writing records unchanged:
#' `sassy_filter_fastx()` writes each selected record as it is in the input,
#' byte for byte: the header line with its description, the sequence lines
#' (a multi-line FASTA record keeps its line breaks where they were), and for
#' FASTQ the `+` line (with its optional repeated name) and the quality line.
#' Each record ends with a line break in the style of the input (`\n` or
#' `\r\n`). The only differences to the input records are: blank lines after
#' a FASTA record are not written, and a last record without a final line
#' break gets one. The output is FASTA or FASTQ like the input, gzip-compressed
#' when `output` ends in `.gz`, otherwise plain; other compressions
#' (`.bz2`, `.xz`, `.zst`) cannot be written and are an error. The output is
#' written to a temporary file in the same folder and renamed when complete,
#' so a failed or interrupted filter leaves no partial output (and an
#' existing `output` untouched until the new one is complete). An existing
#' `output` file is replaced.
#'
#' @section Memory:
#' Records are read in batches of about 1 MiB per thread (at least 2 MiB, at
#' most 64 MiB); two batches wait while one is searched and the next is read.
#' Peak memory is therefore a few batches plus the result, not the file: the
#' hits, or for counts one row per record (about 80 bytes per record, most of
#' it the name). A single record longer than a batch (a chromosome) is read
#' whole. The batch size can be set with the options
#' `ducksassy.fastx_batch_bytes` and `ducksassy.fastx_batch_records`; it
#' never changes the result. `sassy_read_fastx()` keeps everything it reads.
#'
#' @section Errors:
#' Errors have class `ducksassy_error`. Problems with a file have the
#' subclasses `ducksassy_file_error` and `ducksassy_input_error`, a message
#' that names the file and, where there is one, the record number (and line),
#' and the fields `path`, `record` and `line` (`NULL` when not known):
#'
#' * a file that does not exist, is a folder or cannot be opened;
#' * a file that is neither FASTA nor FASTQ (after decompression), e.g. a
#'   single byte that is not a blank line;
#' * truncated or corrupt compressed data (reported at the record being read
#'   when the data ran out; the records before it are never returned alone);
#' * a FASTQ record whose quality line and sequence differ in length (the
#'   error's `line` is the quality line), a FASTQ
#'   file cut inside a record, a blank line between FASTQ records, a third
#'   FASTQ line that does not start with `+`;
#' * a NUL byte in a name, sequence or quality that would become an R string.
#'
#' A sequence letter outside the alphabet is a `ducksassy_input_error` naming
#' the file, the record number and name, the position and the letter, with
#' fields `path`, `record`, `name`, `position` and `letter`. Argument errors
#' are as for [sassy_search()]; more hits than
#' `getOption("ducksassy.max_hits")` (see [sassy_search()]) is a
#' `ducksassy_limit_error`; interrupting (Ctrl-C / Esc) raises a
#' `ducksassy_interrupt` (an `interrupt` condition, not an error, as for
#' [sassy_search()]). No error leaves a partial result.
#'
#' @param paths A character vector of one or more paths to FASTA or FASTQ
#'   files (plain or compressed; `~` is expanded). A path may appear more
#'   than once. Names, if any, label the files in the `file` column of the
#'   results (`c(s1 = "s1.fq.gz", s2 = "s2.fq.gz")`).
#' @param path A single path to a FASTA or FASTQ file.
#' @param patterns A character vector of one or more patterns, none `NA` or
#'   empty. With `what = "count"` or `"contains"`, pattern names (or
#'   `pattern_1`, `pattern_2`, ... for unnamed ones) become column names.
#' @param what `"hits"` (default), one row per hit as [sassy_search()];
#'   `"count"`, the number of hits per record and pattern as [sassy_count()];
#'   or `"contains"`, whether each record has a hit of each pattern as
#'   [sassy_contains()].
#' @param output Path of the file to write, a single string. Gzip-compressed
#'   when it ends in `.gz`, plain otherwise. Its folder must exist; it must
#'   not be `path` itself.
#' @param invert `FALSE` (default) writes the records with a hit of at least
#'   one pattern; `TRUE` writes the records without any hit. The two outputs
#'   partition the input.
#' @param n_max The largest number of records to read: a whole number `>= 0`
#'   or `Inf` (default, all).
#' @param BPPARAM `NULL` (default): search in this R session on `threads`
#'   threads. Or a BiocParallel parameter object (`SnowParam()`,
#'   `BatchtoolsParam()`, ...): the files are searched in shards by its
#'   workers (one file each, or, with fewer files than workers, record ranges
#'   of the files), each on `threads` threads, and the shards' results are
#'   bound in order: the result is identical to that without `BPPARAM`. A
#'   failed shard is a `ducksassy_shard_error` naming the file and record
#'   range. See [sharding] for shard sizes, options and errors.
#' @inheritParams sassy_search
#'
#' @return
#' `sassy_search_fastx()` with `what = "hits"`: a base `data.frame` with one
#' row per hit, ordered by file (in the order of `paths`), record, pattern,
#' start, end and strand, and columns
#'
#' \describe{
#'   \item{`file`}{character, the path the record is from, as given in
#'     `paths`, or its name where `paths` has names; only present when
#'     `paths` has more than one element or has names.}
#'   \item{`record`}{integer, 1-based number of the record within its file.}
#'   \item{`name`}{character, the record's name (its header up to the first
#'     space or tab).}
#'   \item{`pattern`, `start`, `end`, `pattern_start`, `pattern_end`,
#'     `cost`, `strand`, `cigar`}{as for [sassy_search()]: `start` and `end`
#'     are 1-based inclusive positions in the record's sequence.}
#'   \item{`region`}{character, the matched part of the record's sequence;
#'     only with `region = TRUE` (taken while the record is read).}
#' }
#'
#' The table carries the lengths of the records with hits (attribute
#' `"seqlengths"`), from which [as_granges()] fills `seqinfo`. In
#' interactive sessions a progress bar shows the bytes read of the files'
#' size (see [sassy_search()], *Progress*).
#'
#' With `what = "count"` or `"contains"`: a base `data.frame` with one row per
#' record (all records of all files, in order) and columns `file` (only with
#' several paths), `record` and `name` as above, then one column per pattern,
#' integer counts (`"count"`) or logical (`"contains"`), named by
#' `names(patterns)` or `pattern_1`, `pattern_2`, ... (made unique with
#' [make.unique()] where names repeat or clash with the first columns).
#'
#' `sassy_filter_fastx()`: a named double vector `c(read = , written = )`,
#' the numbers of records read and written (doubles, so that files with more
#' than 2^31 records are counted exactly).
#'
#' `sassy_read_fastx()`: a base `data.frame` with one row per record and
#' columns
#'
#' \describe{
#'   \item{`name`}{character, the header up to the first space or tab.}
#'   \item{`description`}{character, the rest of the header after that space
#'     or tab (possibly `""`), `NA` when the header has no space or tab.}
#'   \item{`sequence`}{character, the sequence, the lines of a multi-line
#'     FASTA record joined.}
#'   \item{`quality`}{character, the quality line; only for FASTQ files.}
#' }
#'
#' @seealso [sassy_search()] for the search arguments and the hit columns;
#'   `Biostrings::readDNAStringSet()` to read files as Biostrings objects.
#' @export
#' @examples
#' reads <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
#' genome <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
#'
#' # Where a 20-mer of the lambda genome occurs in the reads, with up to 2
#' # edits, on both strands
#' primer <- "GACGCTCAGTAATGTGACGA"
#' hits <- sassy_search_fastx(reads, primer, k = 2)
#' head(hits)
#'
#' # These simulated reads have many N, which match any base: drop hits
#' # that owe much to them
#' sassy_search_fastx(reads, primer, k = 2, max_n_frac = 0.1)
#'
#' # Several files: a file column is added
#' sassy_search_fastx(c(genome, reads), c(p1 = primer), k = 1)[, 1:6]
#'
#' # Counts per record, one column per pattern
#' counts <- sassy_search_fastx(reads, c(p1 = primer, p2 = "ACGTACGTACGT"),
#'   k = 1, what = "count")
#' head(counts)
#' colSums(counts[, c("p1", "p2")])
#'
#' # Keep only the reads with a hit, gzip-compressed
#' out <- tempfile(fileext = ".fq.gz")
#' sassy_filter_fastx(reads, out, primer, k = 2)
#' nrow(sassy_read_fastx(out))
#'
#' # The records as a data frame
#' recs <- sassy_read_fastx(genome)
#' recs$name
#' nchar(recs$sequence)
#' str(sassy_read_fastx(reads, n_max = 3))
#'
#' # Bad files are classed errors naming the file and the record
#' bad <- tempfile(fileext = ".fq")
#' writeLines(c("@r1", "ACGT", "+", "III"), bad)
#' try(sassy_read_fastx(bad))
sassy_search_fastx <- function(paths,
                               patterns,
                               k = 0L,
                               alphabet = c("iupac", "dna", "ascii"),
                               rc = NULL,
                               all_endpoints = FALSE,
                               overhang = NULL,
                               max_n_frac = NULL,
                               ignore_case = FALSE,
                               cigar = TRUE,
                               cigar_style = c("pattern", "sam"),
                               region = FALSE,
                               threads = sassy_threads(),
                               what = c("hits", "count", "contains"),
                               BPPARAM = NULL,
                               indels = TRUE,
                               ...) {
  call <- rlang::current_env()
  check_no_extra_args(..., .fn = "sassy_search_fastx", .call = call)
  paths <- check_fastx_paths(paths, "paths", call = call, hint = function() {
    swapped_hint(patterns, is_file, "sassy_search_fastx", "paths")
  })
  plan <- new_search_plan(
    character(), patterns, k, alphabet, rc, all_endpoints, overhang,
    max_n_frac, ignore_case, cigar, threads,
    indels = indels, call = call
  )
  plan$cigar_style <- check_cigar_style(cigar_style, call = call)
  plan$region <- check_flag(region, "region", call = call)
  what <- check_what(what, call = call)
  if (!is.null(BPPARAM)) {
    return(shard_fastx(paths, plan, what, BPPARAM, call = call))
  }
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(paths), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_fastx_search(
    path.expand(paths),
    as_plan(plan, what, max_hits_option(call = call)),
    new_read_options(size, region = plan$region),
    progress_callback(progress)
  )
  res <- fastx_result(res, "paths", paths, call = call)
  if (what == "hits") {
    new_fastx_hits(res, paths, call = call,
      pattern_names = names(plan$patterns), plan = plan
    )
  } else {
    new_fastx_values(res, paths, plan$patterns, what, call = call)
  }
}

#' @rdname sassy_search_fastx
#' @export
sassy_filter_fastx <- function(path,
                               output,
                               patterns,
                               k = 0L,
                               invert = FALSE,
                               alphabet = c("iupac", "dna", "ascii"),
                               rc = NULL,
                               overhang = NULL,
                               max_n_frac = NULL,
                               ignore_case = FALSE,
                               threads = sassy_threads(),
                               indels = TRUE,
                               ...) {
  call <- rlang::current_env()
  check_no_extra_args(..., .fn = "sassy_filter_fastx", .call = call)
  path <- check_fastx_paths(path, "path", single = TRUE, call = call, hint = function() {
    swapped_hint(patterns, is_file, "sassy_filter_fastx", "path")
  })
  output <- check_fastx_output(output, path, call = call)
  plan <- new_search_plan(
    character(), patterns, k, alphabet, rc, FALSE, overhang, max_n_frac,
    ignore_case, FALSE, threads,
    indels = indels, call = call
  )
  invert <- check_flag(invert, "invert", call = call)
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(path), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_fastx_filter(
    path.expand(path),
    path.expand(output),
    invert,
    grepl("\\.gz$", output, ignore.case = TRUE),
    as_plan(plan, "contains"),
    new_read_options(size),
    progress_callback(progress)
  )
  res <- fastx_result(res, "path", path, output = output, call = call)
  if (!is.double(res) || length(res) != 2L) {
    abort_internal("the filter returned no counts", call)
  }
  res
}

#' @rdname sassy_search_fastx
#' @export
sassy_read_fastx <- function(path, n_max = Inf, ...) {
  call <- rlang::current_env()
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

# ---------------------------------------------------------------------------
# Results

new_fastx_hits <- function(res, paths, call, pattern_names = NULL, plan = NULL) {
  hits <- new_hits(res$hits, call = call, pattern_names = pattern_names)
  n <- nrow(hits)
  if (length(res$file) != n || length(res$name) != n) {
    abort_internal("the file hit table has columns of unequal length", call)
  }
  out <- list()
  if (has_file_column(paths)) {
    out$file <- file_labels(paths)[res$file]
  }
  out$record <- hits$record
  out$name <- res$name
  for (col in setdiff(names(hits), c("record", "name"))) {
    out[[col]] <- hits[[col]]
  }
  out <- new_data_frame(out, n)
  if (!is.null(plan)) {
    patterns <- if (!is.null(plan$guides)) plan$guides else plan$patterns
    out <- finish_hits(out, nchar(patterns, type = "bytes"),
      if (is.null(plan$cigar_style)) "pattern" else plan$cigar_style,
      regions = res$region, call = call
    )
  }
  if (n > 0L && length(res$length) == n) {
    # the record lengths the reader saw, for as_granges()'s seqinfo: one
    # per run of hits of a record (rows are ordered by file and record)
    rec <- hits$record
    first <- which(c(TRUE, rec[-1L] != rec[-n] | res$file[-1L] != res$file[-n]))
    out <- set_seqlengths(out, res$name[first], res$length[first])
  }
  out
}

# The progress bar's label for a search of files.
fastx_label <- function(paths) {
  if (length(paths) == 1L) {
    paste("Searching", basename(paths))
  } else {
    paste("Searching", length(paths), "files")
  }
}

new_fastx_values <- function(res, paths, patterns, what, call) {
  counts <- res$records_per_file
  n <- length(res$name)
  if (length(counts) != length(paths) || sum(counts) != n ||
    length(res$values) != length(patterns) ||
    any(lengths(res$values) != n)) {
    abort_internal("the file count table has the wrong size", call)
  }
  out <- list()
  if (has_file_column(paths)) {
    out$file <- rep(file_labels(paths), counts)
    out$record <- sequence(as.integer(counts))
  } else {
    out$record <- seq_len(n)
  }
  out$name <- res$name
  cols <- res$values
  names(cols) <- fastx_pattern_columns(patterns, names(out))
  new_data_frame(c(out, cols), n)
}

# The `file` column: present with several paths, or when `paths` has names
# (names label the files); the name of each path, or the path where it has
# none.
has_file_column <- function(paths) {
  length(paths) > 1L || !is.null(names(paths))
}

file_labels <- function(paths) {
  nm <- names(paths)
  if (is.null(nm)) {
    return(unname(paths))
  }
  out <- unname(paths)
  named <- !is.na(nm) & nm != ""
  out[named] <- nm[named]
  out
}

# Column names of the patterns in count and contains results, the same for
# vectors, files and tables: their names, pattern_<i> where unnamed, made
# unique.
pattern_columns <- function(patterns) {
  fastx_pattern_columns(patterns, character())
}

# Column names of the patterns: their names, pattern_<i> where unnamed, made
# unique against each other and the id columns before them.
fastx_pattern_columns <- function(patterns, id_columns) {
  nm <- names(patterns)
  if (is.null(nm)) {
    nm <- rep("", length(patterns))
  }
  blank <- is.na(nm) | nm == ""
  nm[blank] <- paste0("pattern_", seq_along(patterns))[blank]
  all <- make.unique(c(id_columns, nm), sep = "_")
  all[length(id_columns) + seq_along(nm)]
}

# ---------------------------------------------------------------------------
# Errors from the binding

#' Check a value from a file-reading entry point of the binding
#'
#' File errors name the file as the user gave it (`paths`, or `output`),
#' `arg` is their argument; hit-limit advice is the file family's. The
#' condition is built by `rust_condition()` (conditions.R).
#' @noRd
fastx_result <- function(res, arg, paths, output = NULL,
                         call = rlang::caller_env()) {
  rust_result(res, call = call, limit_context = "fastx", paths = paths,
    output = output, path_arg = arg
  )
}

# ---------------------------------------------------------------------------
# Argument checks

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

check_fastx_output <- function(output, path, call = rlang::caller_env()) {
  if (!is.character(output) || length(output) != 1L || is.na(output) ||
    output == "") {
    abort_scalar("output", "a single file path", output, call)
  }
  full <- path.expand(output)
  if (grepl("\\.(bz2|xz|zst|zstd|lz4|bgz|bgzf)$", output, ignore.case = TRUE)) {
    ducksassy_abort(
      c(
        "`output` must end in \".gz\" (gzip) or have no compression suffix.",
        x = paste0("`output` is ", format_value(output), "."),
        i = "Only gzip output can be written; other compressions are read, not written."
      ),
      arg = "output",
      value = output,
      call = call
    )
  }
  if (dir.exists(full)) {
    ducksassy_abort(
      c(
        "`output` must be a file path, not a folder.",
        x = paste0("`output` is ", format_value(output), ".")
      ),
      arg = "output",
      value = output,
      call = call
    )
  }
  if (!dir.exists(dirname(full))) {
    ducksassy_abort(
      c(
        "The folder of `output` must exist.",
        x = paste0("`output` is ", format_value(output), ", in a folder that does not exist.")
      ),
      class = c("ducksassy_file_error", "ducksassy_input_error"),
      arg = "output",
      value = output,
      path = output,
      call = call
    )
  }
  same <- file.exists(full) &&
    identical(normalizePath(full), normalizePath(path.expand(path)))
  if (same) {
    ducksassy_abort(
      c(
        "`output` must not be the input file `path`.",
        x = paste0("Both are ", format_value(output), ".")
      ),
      arg = "output",
      value = output,
      call = call
    )
  }
  output
}

check_what <- function(what, call = rlang::caller_env()) {
  choices <- c("hits", "count", "contains")
  if (identical(what, choices)) {
    return("hits")
  }
  if (!is.character(what) || length(what) != 1L || is.na(what) ||
    !(what %in% choices)) {
    ducksassy_abort(
      c(
        "`what` must be one of \"hits\", \"count\" or \"contains\".",
        locate_bullet("what", NULL, what)
      ),
      arg = "what",
      value = what,
      call = call
    )
  }
  what
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
