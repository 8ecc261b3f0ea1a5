# sassy_demultiplex_fastx(): the records of FASTA/FASTQ files into one file
# per pattern (sample), streamed in Rust (fastx/demux.rs in the core).

#' Demultiplex FASTA/FASTQ files by barcode
#'
#' Writes every record of `paths` to the file of the pattern it is assigned
#' to (by the rule of [sassy_assign()]), or to `unassigned` or `ambiguous`.
#' The records stream through Rust: nothing is held in R, and memory does
#' not depend on the size of the files.
#'
#' @section Outputs:
#' `output` is a template: `{name}` becomes each pattern's name
#' (`names(patterns)`, or its index, `1`, `2`, ..., for unnamed ones), and
#' `unassigned` and `ambiguous`, as cutadapt names its files. Patterns with the same name go to the same
#' file (several barcodes of one sample). The folder is created if needed.
#' A name ending in `.gz` is written gzip-compressed (see *gzip outputs*),
#' any other plain. Every
#' output is written, even those that receive no record, under a temporary
#' name in the same folder, and renamed only when the whole run succeeded:
#' an interrupted or failed run leaves no output that looks complete, and
#' files of an earlier run in place.
#'
#' Without `trim`, records are written as they were read (header, sequence
#' lines, FASTQ `+` and quality lines, byte for byte). With `trim = TRUE`,
#' the matched barcode and what precedes it on its strand are cut from an
#' assigned record: everything up to the end of a forward hit, everything
#' from the start of a reverse-strand hit; a trimmed record is written with
#' its sequence (and quality) on one line each.
#'
#' @section gzip outputs:
#' A `.gz` output is cut into blocks of at most 64 KiB of records, each
#' compressed on its own, on `threads` threads of their own beside the
#' search, and written in order: the file is a series of gzip members, one
#' gzip file for every reader (`gzip -d`, `zcat`, R's [gzfile()],
#' Biostrings). The members are BGZF blocks, the gzip variant of htslib, so
#' htslib can also index the outputs (`samtools fqidx`, `samtools faidx`). An
#' output that receives no record is a valid gzip file of nothing (BGZF's
#' 28-byte end marker).
#'
#' `compression_level` trades speed for size, as gzip's `-1` to `-9`. The
#' default, 2, was chosen by measurement: on real nanopore reads (Debian's
#' `qcat-examples`) it writes files 3% larger than level 4, cutadapt's
#' default, at 1.7 times its speed, and 4% larger than level 6 (gzip's
#' default) at 2.6 times its speed.
#' Level 1, cutadapt's `-Z`, is another 1.7 times faster but writes files
#' about 45% larger.
#'
#' @section Paired reads:
#' With `mates`, the files of the second reads (R2), parallel to `paths`
#' (R1), are read in step with them: record *i* of a mates' file is the
#' mate of record *i* of its R1 file (files with different numbers of
#' records are an error). Both mates are searched; the pair is assigned by
#' the best hit of either mate (the same rule over both mates' hits), and
#' both mates go to the pair's sample. `output` must then contain `{mate}`,
#' which becomes `1` for the reads and `2` for the mates, e.g.
#' `"demux/{name}_R{mate}.fastq.gz"`. With `trim`, each mate is trimmed of
#' its own hit of the pair's pattern, if it has one.
#'
#' @section Threads:
#' `threads` is the number of search threads. Reading (and decompressing)
#' the input and writing the outputs run on a thread each of their own,
#' beside the search, and gzip outputs are compressed on `threads` more
#' (see *gzip outputs*), so even `threads = 1` keeps two cores busy. With
#' `ends`, the search of each read's ends is quick and reading and writing
#' take most of the time: more search threads then help little,
#' while on whole reads they help nearly in proportion
#' (`benchmarks/barcodes.md`).
#'
#' @inheritParams sassy_assign
#' @param paths FASTA or FASTQ files (plain, gzip, bzip2, xz or zstd), read
#'   one after the other.
#' @param output The template of the output paths (see *Outputs*), a single
#'   string containing `{name}`.
#' @param trim `TRUE` to cut the matched barcode, and what precedes it, from
#'   the assigned records (see *Outputs*); `FALSE` (default) writes them as
#'   they are.
#' @param mates `NULL` (default), or the files of the mates (see *Paired
#'   reads*), one per path.
#' @param compression_level The gzip compression level of the outputs
#'   ending in `.gz`: a whole number from 1 (fastest) to 9 (smallest);
#'   default 2 (see *gzip outputs*). Plain outputs ignore it.
#' @return A data frame with one row per output: `name` (the sample, then
#'   `"unassigned"` and `"ambiguous"`), `path` (and `mate_path` with
#'   `mates`) and `records`, the records (pairs) written there (a double).
#'   Together they hold every input record exactly once.
#' @seealso [sassy_assign_fastx()] for the assignment of each record as a
#'   data frame, [sassy_filter_fastx()] for the records with any hit.
#' @export
#' @examples
#' barcodes <- c(s1 = "ACGTACGTACGTAC", s2 = "TTGCAATTGCAATT")
#' reads <- c(
#'   r1 = "ACGTACGTACGTACGGGGGGGGGGGGGGGGGGGGG",
#'   r2 = "TTGCAATTGCTATTAAAAAAAAAAAAAAAAAAAAA",
#'   r3 = "CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC"
#' )
#' fq <- tempfile(fileext = ".fastq")
#' writeLines(paste0("@", names(reads), "\n", reads, "\n+\n",
#'   strrep("I", nchar(reads))), fq)
#' out <- file.path(tempdir(), "demux", "{name}.fastq")
#' sassy_demultiplex_fastx(fq, barcodes, output = out, k = 1, trim = TRUE)
#' sassy_read_fastx(file.path(tempdir(), "demux", "s1.fastq"))
sassy_demultiplex_fastx <- new_verb(
  "sassy_demultiplex_fastx",
  c(
    alist(paths = , patterns = , output = "demux/{name}.fastq.gz", k = 0L,
      ends = NULL, margin = 0L),
    search_option_formals(except = "all_endpoints"),
    alist(threads = sassy_threads(), indels = TRUE, trim = FALSE, mates = NULL,
      compression_level = 2L)
  ),
  "demultiplex_fastx",
  options_as_list = TRUE
)

#' The work of sassy_demultiplex_fastx()
#' @noRd
demultiplex_fastx <- function(paths, patterns, output, k, margin, trim, mates,
                              compression_level, args, call) {
  paths <- check_fastx_paths(paths, "paths", call = call, hint = function() {
    swapped_hint(patterns, is_file, "sassy_demultiplex_fastx", "paths")
  })
  if (!is.null(mates)) {
    mates <- check_fastx_paths(mates, "mates", call = call)
    if (length(mates) != length(paths)) {
      abort_value("mates",
        "`mates` must have one file per path in `paths`.",
        mates, call,
        hint = paste0("`paths` has ", length(paths), " and `mates` ", length(mates), ".")
      )
    }
  }
  args$all_endpoints <- FALSE
  plan <- new_verb_plan("assign", patterns, k, args, call)
  plan$margin <- check_margin(margin, call = call)
  trim <- check_flag(trim, "trim", call = call)
  level <- check_compression_level(compression_level, call = call)
  outs <- demux_outputs(output, plan$patterns, paired = !is.null(mates), c(paths, mates), call = call)
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(c(paths, mates)), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_fastx_demultiplex(
    path.expand(paths),
    if (!is.null(mates)) path.expand(mates),
    path.expand(outs$path),
    if (!is.null(mates)) path.expand(outs$mate_path),
    outs$sample - 1L, outs$unassigned - 1L, outs$ambiguous - 1L, trim, level,
    as_plan(plan, "assign"),
    new_read_options(size),
    progress_callback(progress)
  )
  res <- fastx_result(res, "paths", c(paths, mates), call = call)
  if (!is.double(res) || length(res) != length(outs$name)) {
    abort_internal("the demultiplexing returned no counts", call)
  }
  cols <- list(name = outs$name, path = outs$path)
  if (!is.null(mates)) {
    cols$mate_path <- outs$mate_path
  }
  cols$records <- res
  new_data_frame(cols, length(res))
}

#' The output files of a demultiplexing
#'
#' @return A list: `name` and `path` (and `mate_path`) of each output (the
#'   samples in the order of their first pattern, then `unassigned` and
#'   `ambiguous`), `sample` (the 1-based output of each pattern),
#'   `unassigned` and `ambiguous` (their outputs).
#' @noRd
demux_outputs <- function(output, patterns, paired, inputs, call) {
  if (!is.character(output) || length(output) != 1L || is.na(output) ||
    !grepl("{name}", output, fixed = TRUE)) {
    abort_scalar("output", "a single string containing `{{name}}`", output, call,
      hint = "E.g. `output = \"demux/{{name}}.fastq.gz\"`: `{{name}}` becomes each sample's name."
    )
  }
  if (paired != grepl("{mate}", output, fixed = TRUE)) {
    abort_scalar("output",
      if (paired) "a template containing `{{mate}}` with `mates`" else "a template without `{{mate}}` unless `mates` is given",
      output, call,
      hint = if (paired) "E.g. `output = \"demux/{{name}}_R{{mate}}.fastq.gz\"`: `{{mate}}` becomes 1 or 2."
    )
  }
  check_fastx_output(sub("{name}", "x", gsub("{mate}", "1", output, fixed = TRUE), fixed = TRUE),
    inputs[[1L]], call = call, folder_may_be_missing = TRUE)
  # the patterns' names, their index where unnamed (DESIGN.md); patterns
  # with one name share its file
  samples <- as.character(seq_along(patterns))
  nm <- names(patterns)
  if (!is.null(nm)) {
    named <- !is.na(nm) & nm != ""
    samples[named] <- nm[named]
  }
  bad <- grepl("[/\\\\]|^\\.\\.?$", samples) | samples %in% c("unassigned", "ambiguous")
  if (any(bad)) {
    abort_value("patterns",
      "The names of `patterns` name output files: they must not contain `/` or `\\`, nor be `unassigned` or `ambiguous`.",
      samples[bad][[1L]], call
    )
  }
  name <- c(unique(samples), "unassigned", "ambiguous")
  fill <- function(mate) {
    p <- gsub("{mate}", mate, output, fixed = TRUE)
    vapply(name, function(n) gsub("{name}", n, p, fixed = TRUE), "", USE.NAMES = FALSE)
  }
  path <- fill("1")
  mate_path <- if (paired) fill("2")
  all <- normalizePath(c(path, mate_path), mustWork = FALSE)
  if (anyDuplicated(all) || any(all %in% normalizePath(inputs, mustWork = FALSE))) {
    abort_scalar("output", "a template that gives every output its own file, none an input", output, call)
  }
  for (d in unique(dirname(path.expand(c(path, mate_path))))) {
    if (!dir.exists(d)) dir.create(d, recursive = TRUE)
  }
  list(
    name = name, path = path, mate_path = mate_path,
    sample = match(samples, name),
    unassigned = length(name) - 1L, ambiguous = length(name)
  )
}
