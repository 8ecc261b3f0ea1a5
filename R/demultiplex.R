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
#' `output` is a template: `{name}` becomes each sample's name and
#' `unassigned` and `ambiguous`, as cutadapt names its files. A sample is
#' the patterns of one name (`names(patterns)`; `pattern_1`, `pattern_2`,
#' ... for unnamed ones, the names [sassy_assign()] gives): patterns with
#' the same name go to the same file (several barcodes of one sample), and
#' the margin compares samples (see [sassy_assign()]). The folders are
#' created if needed. A name ending in `.gz` or `.gzip` (in any case) is
#' written gzip-compressed (see *gzip outputs*), any other plain.
#'
#' Sample names become file names, so some are refused (class
#' `ducksassy_sample_name_error`): names with `/` or `\`, `.` and `..`,
#' names with a control character (a newline, a tab) or one of `:*?"<>|`
#' (not allowed in file names on Windows), `unassigned` and `ambiguous` in
#' any case, and two names that differ only in case (one file on macOS and
#' Windows). Rename such patterns first.
#'
#' @section A run is one transaction:
#' Every output is written, even those that receive no record, under a
#' temporary name in the same folder (`.<file>.ducksassy-<pid>.tmp`). Only
#' when every output is complete (flushed, gzip trailer written, closed)
#' are they renamed onto their names: a failed run (a full disk, a broken
#' input, an interrupt, a time limit of [setTimeLimit()]) replaces no file
#' of an earlier run, and removes its temporary files and the folders it
#' created. A SIGTERM (what batch schedulers send at a time limit) is
#' handled as Ctrl-C is, and then ends R as it asked. A process killed
#' outright (`kill -9`) cannot clean up: the next run into the same folder
#' removes the temporary files of processes that no longer exist.
#'
#' Each run lists its outputs in `.demultiplex-outputs.tsv` in the
#' template's folder. A rerun of the same template that would leave an
#' earlier run's outputs beside its own (the samples of a run with other
#' patterns) is an error (`ducksassy_stale_outputs_error`) that lists them:
#' mixing the files of two runs in one folder is how samples get lost.
#' With `overwrite = TRUE` they are removed once this run has succeeded.
#' Only files that a run wrote are listed or removed, never others that
#' happen to fit the template; files of this run's own samples are always
#' replaced, as cutadapt does.
#'
#' Without `trim`, records are written as they were read (header, sequence
#' lines, FASTQ `+` and quality lines, byte for byte). With `trim = TRUE`,
#' the matched barcode and what precedes it on its strand are cut from an
#' assigned record: everything up to the end of a forward hit, everything
#' from the start of a reverse-strand hit; a trimmed record is written with
#' its sequence (and quality) on one line each, with the line breaks of the
#' file it came from (LF, or CRLF). A read that ends with its barcode is
#' then empty: it is written with an empty sequence, as cutadapt writes
#' it; drop such records afterwards if a later tool refuses them.
#'
#' Each output is an open file while the run lasts (two with `mates`):
#' with hundreds of samples the process's limit of open files can be
#' reached ("Too many open files"); raise it (`ulimit -n 4096` in the shell
#' that starts R) or demultiplex fewer samples per run.
#'
#' @section The report:
#' With `report = "demux/report.tsv"`, every record (pair) gets one line,
#' in input order, with its assignment and the output it went to, so the
#' reads need not be assigned a second time: `file` (the input path),
#' `record` (its number in that file), `name`, `output` (the sample,
#' `unassigned` or `ambiguous`), `pattern` and `pattern_name` (the best
#' pattern), `cost`, `start`, `end` and `strand` (its hit, 1-based and
#' inclusive), `other_cost` and `status`, as in [sassy_assign()] (`NA`
#' where there is no hit). Read it back with `utils::read.delim(report)`.
#' With `mates`, `file`, `record` and `name` are those of the reads (R1),
#' and the assignment is the pair's.
#'
#' An unaligned BAM input (see [sassy_search_fastx()], *Files*) is written
#' as FASTQ: each record as `samtools fastq` writes it (read name,
#' sequence and qualities in the read's orientation, one line each; tags
#' dropped; secondary and supplementary records skipped), so name its
#' outputs `.fastq` or `.fastq.gz`.
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
#' `compression_level` trades speed for size, as gzip's `-1` to `-9`,
#' measured on real nanopore reads (Debian's `qcat-examples`,
#' `benchmarks/runs.md`): level 1 (the default, zlib's quick deflate)
#' writes 75% of the FASTQ's size and keeps a run with gzip outputs within
#' 3 times one with plain outputs on two cores; level 2 (miniz_oxide's fast
#' deflate) writes 55% at about 1.3 times its time, the best trade for
#' files that are kept; levels 3 to 9 (zlib's) write 50% to 49% at 2 to 4
#' times its time, and cutadapt's default, level 5, about 50%. Every level
#' writes standard gzip.
#'
#' @section Paired reads:
#' With `mates`, the files of the second reads (R2), parallel to `paths`
#' (R1), are read in step with them: record *i* of a mates' file is the
#' mate of record *i* of its R1 file. Their names must agree, as cutadapt
#' checks: the name up to the first space or tab, without a final `/1` or
#' `/2`; the first pair that differs is an error that names both, and so
#' are files with different numbers of records. Both mates are searched; the pair is assigned by
#' the best hit of either mate (the same rule over both mates' hits), and
#' both mates go to the pair's sample. `output` must then contain `{mate}`,
#' which becomes `1` for the reads and `2` for the mates, e.g.
#' `"demux/{name}_R{mate}.fastq.gz"`. With `trim`, each mate is trimmed of
#' its own hit of the pair's pattern, if it has one.
#'
#' @section Both ends:
#' With a barcode set ([sassy_kit()], [sassy_barcodes()]) as `patterns`, or
#' `policy` or `samples` given (bare named patterns then act as a set
#' without flanks, each at both ends), each read is assigned by both of its
#' ends. `ends` is then one number `L` (default 250): the front end is
#' searched in the first `L` letters, the rear end in the last `L` (a read
#' no longer than `L` is searched whole for each), each end on its own by
#' the rule of [sassy_assign()] (the margin compares barcode names). Both
#' strands are searched, and the read's orientation follows from the set's
#' rows: a read whose front carries a barcode of a `"rear"` row is the
#' reverse strand, and its ends are swapped before `policy` looks at them.
#' `policy` combines the two ends (as [sassy_assign()] does; an ambiguous
#' end leaves a read `"ambiguous"` whatever the policy):
#' * `"either"` (the default): the barcode of either end; two ends with
#'   different barcodes are `"ends disagree"`;
#' * `"both"`: both ends must carry the same barcode (`"one end only"`
#'   otherwise);
#' * `"samples"` (the default when `samples` is given): the sample sheet
#'   `samples`, a data frame with columns `front`, `rear` (barcode names)
#'   and `sample`, names the sample of each pair (dual and combinatorial
#'   barcodes); a row whose `rear` is `NA` takes any rear end, or none.
#'   Where the set does not tell the orientation (its rows are at both
#'   ends), the pair is looked up either way round, and two samples so
#'   found make the read `"ambiguous"`. Pairs not in the sheet are `"pair
#'   not in sample sheet"`.
#'
#' The outputs are then one per sample (the barcode names, or the sheet's
#' samples), `unassigned` and `ambiguous`. With `reason_files = TRUE` the
#' unassigned records go to one file per reason instead, named by the
#' reason with `_` for spaces: `no_hit`, `ends_disagree` (policies
#' `"either"` and `"both"`), `one_end_only` (`"both"`),
#' `pair_not_in_sample_sheet` (`"samples"`), `flank_without_barcode` (a set
#' with flanks): a read with no barcode at either end, but the set's
#' flanks without a barcode in an end (see [sassy_kits()], *Flanks without
#' barcode*).
#' With `chimeras = "set_aside"`, the middle of each read longer than `2L`
#' (its letters from `L + 1` to `n - L`) is searched for the set's
#' patterns (flanks included, with `floor(0.75 * k)`, see [sassy_kits()],
#' *Chimeras*): a read with a hit wholly there is chimeric (two molecules
#' joined), whatever its ends say, and goes to `chimeric`. That search
#' reads the whole of the long reads, so it costs far more than the ends.
#' `chimeras = "ignore"` (the default) does not look. With `chimeras =
#' "split"`, such a read is cut at that hit instead: the letters before it
#' and those after it become two reads, named as the read with `_1` and
#' `_2` (as porechop names them), each assigned by both of its ends and
#' written to its own output (not `mates`). Sample names may not be those
#' of these outputs.
#'
#' With `mates` (paired reads), the front end is the start of each read
#' (R1), the rear end the start of its mate (R2), as in
#' [sassy_assign_fastx()]; both mates go to the pair's output, `{mate}`
#' telling their files apart.
#'
#' With `trim = TRUE`, an assigned record is cut at both ends: everything
#' up to the end of the front end's hit and everything from the start of
#' the rear end's hit (each end assigned to a barcode; its hit found in its
#' `L` letters), in the read's forward coordinates. Where the two hits
#' overlap (a short read, searched whole for each end, has one site), the
#' record is cut of that one site as without both ends. With `mates`, the
#' read is cut after its front end's hit and the mate after its rear end's.
#'
#' The report (`report =`) then has, after `other_cost`, the columns
#' `front_barcode`, `rear_barcode` (the barcodes at the read's front and
#' rear end, `NA` unless assigned there), `orientation` (`"+"`, `"-"`, `NA`
#' when the ends do not tell), `sample`, `status` (`assigned`, `ambiguous`,
#' `unassigned` or `chimeric`) and `reason` (`NA` when assigned; `"no hit"`,
#' `"ambiguous"`, `"ends disagree"`, `"one end only"`, `"pair not in sample
#' sheet"`, `"flank without barcode"`, `"chimeric"`); its `pattern` to
#' `other_cost` describe the front end's hit when the front end is
#' assigned, else the rear end's when it is, else the front end's when it
#' is ambiguous, else the rear end's.
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
#' @param paths FASTA or FASTQ files (plain, gzip, bzip2, xz or zstd), or
#'   unaligned BAM files (as dorado writes them), read one after the other.
#'   The records of a BAM file are written as FASTQ (see *Outputs*).
#' @param output The template of the output paths (see *Outputs*), a single
#'   string containing `{name}`.
#' @param trim `TRUE` to cut the matched barcode, and what precedes it, from
#'   the assigned records (see *Outputs*); `FALSE` (default) writes them as
#'   they are.
#' @param mates `NULL` (default), or the files of the mates (see *Paired
#'   reads*), one per path.
#' @param report `NULL` (default), or the path of a per-read report: a
#'   tab-separated file (gzip-compressed when it ends in `.gz`), written and
#'   committed with the outputs (see *The report*).
#' @param overwrite `FALSE` (default): outputs of an earlier run of the
#'   template that this run would not replace are an error. `TRUE`: they
#'   are removed when this run succeeds (see *A run is one transaction*).
#' @param compression_level The gzip compression level of the outputs
#'   ending in `.gz`: a whole number from 1 (fastest) to 9 (smallest);
#'   default 1 (see *gzip outputs*). Plain outputs ignore it.
#' @param policy `NULL` (default), `"either"`, `"both"` or `"samples"`: how
#'   the two ends of a read name its sample (see *Both ends*). `NULL` is
#'   `"samples"` when `samples` is given, else `"either"`; given, it turns
#'   on the assignment by both ends for bare patterns.
#' @param samples `NULL` (default), or a sample sheet: a data frame with
#'   columns `front`, `rear` (barcode names; `rear` `NA` for any rear end)
#'   and `sample` (see *Both ends*).
#' @param chimeras `"ignore"` (default), `"set_aside"`: write reads with a
#'   barcode in their middle to `chimeric`, or `"split"`: split them there
#'   into two reads, each demultiplexed on its own (see *Both ends*).
#' @param reason_files `FALSE` (default): the unassigned records go to
#'   `unassigned`; `TRUE`: to one file per reason (see *Both ends*).
#' @param names `"ducksassy"` (default): outputs named by the samples,
#'   `unassigned` and `ambiguous`. `"dorado"`: as `dorado demux` names
#'   them (both-ends mode only): a kit's barcode `<kit>_<barcode>`
#'   (`SQK-NBD114-96_barcode01`; see `names` of [sassy_assign()]) and one
#'   output `unclassified` for the unassigned and the ambiguous reads (with
#'   `reason_files = TRUE`, the reasons' files and `ambiguous` as before).
#' @return A data frame with one row per output: `name` (the sample, then
#'   `"unassigned"` (or the reasons' files) and `"ambiguous"`, and
#'   `"chimeric"` with `chimeras = "set_aside"`), `path` (and `mate_path` with
#'   `mates`) and `records`, the records (pairs) written there (a double).
#'   Together they hold every input record exactly once (a read split at a
#'   middle barcode as its two parts).
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
#'
#' # by both ends of each read (see *Both ends*), a file per reason
#' out2 <- file.path(tempdir(), "demux-ends", "{name}.fastq")
#' sassy_demultiplex_fastx(fq, sassy_barcodes(barcodes), output = out2, k = 1,
#'   ends = 20, policy = "either", reason_files = TRUE)
sassy_demultiplex_fastx <- new_verb(
  "sassy_demultiplex_fastx",
  c(
    alist(paths = , patterns = , output = "demux/{name}.fastq.gz", k = 0L,
      ends = NULL, margin = 0L),
    search_option_formals(except = "all_endpoints"),
    alist(threads = sassy_threads(), indels = TRUE, trim = FALSE, mates = NULL,
      overwrite = FALSE, report = NULL, compression_level = 1L,
      policy = NULL, samples = NULL, chimeras = c("ignore", "set_aside", "split"),
      reason_files = FALSE, names = c("ducksassy", "dorado"))
  ),
  "demultiplex_fastx",
  options_as_list = TRUE
)

#' `mates`: files, one per path in `paths`
#' @noRd
check_mates <- function(mates, paths, call) {
  mates <- check_fastx_paths(mates, "mates", call = call)
  same <- normalizePath(path.expand(mates), mustWork = FALSE) %in% normalizePath(path.expand(paths), mustWork = FALSE)
  if (any(same)) {
    # (issue 52) a read file is no file of its mates
    abort_value("mates", "`mates` must be the files of the mates, none of `paths`.", mates, call,
      hint = paste0("`mates` has ", format_value(mates[which(same)[[1L]]]), ", which `paths` has too.")
    )
  }
  if (length(mates) != length(paths)) {
    abort_value("mates",
      "`mates` must have one file per path in `paths`.",
      mates, call,
      hint = paste0("`paths` has ", length(paths), " and `mates` ", length(mates), ".")
    )
  }
  mates
}

#' The work of sassy_demultiplex_fastx()
#' @noRd
demultiplex_fastx <- function(paths, patterns, output, k, margin, trim, mates,
                              overwrite, report, compression_level, policy,
                              samples, chimeras, reason_files, names, args, call) {
  paths <- check_fastx_paths(paths, "paths", call = call, hint = function() {
    swapped_hint(patterns, is_file, "sassy_demultiplex_fastx", "paths")
  })
  if (!is.null(mates)) {
    mates <- check_mates(mates, paths, call)
  }
  args$all_endpoints <- FALSE
  names <- check_names_style(names, call)
  if (names == "dorado") {
    check_dorado_mode(patterns, policy, samples, call)
  }
  e <- demux_ends_mode(patterns, policy, samples, chimeras, reason_files, args$ends, mates, call)
  both <- !is.null(e)
  if (both) {
    e$names <- names
  }
  if (both) {
    # each end is searched in `L` letters (the core sets the ends of each
    # search; these warn of ends shorter than a pattern)
    args$ends <- e$L
    # the N guard, as the assign verbs have it (ends-assign.R)
    args$max_n_frac <- ends_max_n_frac(args$max_n_frac, args$alphabet)
  }
  sp <- as_search_patterns(patterns, given_k(k, call))
  patterns <- sp$patterns
  k <- sp$k
  plan <- new_verb_plan("assign", patterns, k, args, call)
  plan$margin <- check_margin(margin, call = call)
  plan <- with_barcode_spans(plan, sp$set)
  trim <- check_flag(trim, "trim", call = call)
  overwrite <- check_flag(overwrite, "overwrite", call = call)
  level <- check_compression_level(compression_level, call = call)
  ends_spec <- NULL
  if (both) {
    eo <- demux_ends_outputs(plan, sp$set, e, call)
    outs <- demux_outputs(output, plan$patterns, paired = !is.null(mates), c(paths, mates),
      call = call, names = eo$names)
    ends_spec <- eo$spec
  } else {
    outs <- demux_outputs(output, plan$patterns, paired = !is.null(mates), c(paths, mates), call = call)
  }
  report <- check_demux_report(report, c(outs$path, outs$mate_path), c(paths, mates), call)
  outs$stale <- setdiff(outs$stale, report)
  if (length(outs$stale) > 0L && !overwrite) {
    abort_stale_outputs(outs$stale, output, call)
  }
  # (issue 51) a kit's set on reads of another kit
  check_kit_fit(paths, sp$set, args$threads, call)
  created <- create_output_folders(c(outs$path, outs$mate_path, report))
  done <- FALSE
  on.exit(if (!done) remove_empty_folders(created), add = TRUE)
  remove_debris(dirname(path.expand(c(outs$path, outs$mate_path, report))))
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(c(paths, mates)), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_fastx_demultiplex(
    path.expand(paths),
    as_plan(plan, "assign"),
    new_read_options(size),
    progress_callback(progress),
    new_demux_spec(
      mates = if (!is.null(mates)) path.expand(mates),
      outputs = path.expand(outs$path),
      mate_outputs = if (!is.null(mates)) path.expand(outs$mate_path),
      sample = outs$sample - 1L, unassigned = outs$unassigned - 1L,
      ambiguous = outs$ambiguous - 1L, trim = trim, gzip_level = level,
      report = if (!is.null(report)) {
        list(path.expand(report), outs$name, fastx_pattern_columns(plan$patterns, character()))
      },
      ends = ends_spec
    )
  )
  if (isTRUE(attr(res, "sigterm"))) {
    # a SIGTERM stopped the run as Ctrl-C does: it ends the process again,
    # once the folders this run created are removed (issue 52)
    on.exit(tools::pskill(Sys.getpid(), tools::SIGTERM), add = TRUE, after = TRUE)
  }
  res <- fastx_result(res, "paths", c(paths, mates), call = call)
  if (!is.double(res) || length(res) != length(outs$name)) {
    abort_internal("the demultiplexing returned no counts", call)
  }
  cols <- list(name = outs$name, path = outs$path)
  if (!is.null(mates)) {
    cols$mate_path <- outs$mate_path
  }
  cols$records <- res
  # overwrite = TRUE: the earlier run's files that this one did not replace
  unlink(outs$stale)
  write_demux_manifest(output, c(outs$path, outs$mate_path))
  done <- TRUE
  new_data_frame(cols, length(res))
}

#' `report`: `NULL`, or the path of the per-read report, which must be no
#' output and no input
#' @noRd
check_demux_report <- function(report, outputs, inputs, call) {
  if (is.null(report)) {
    return(NULL)
  }
  if (!is.character(report) || length(report) != 1L || is.na(report) || report == "") {
    abort_scalar("report", "`NULL` or a single file path", report, call)
  }
  check_fastx_output(report, inputs[[1L]], call = call, folder_may_be_missing = TRUE, arg = "report")
  taken <- normalizePath(c(outputs, inputs), mustWork = FALSE)
  if (normalizePath(report, mustWork = FALSE) %in% taken) {
    abort_scalar("report", "a file of its own, none of the outputs or inputs", report, call)
  }
  report
}

#' The error for files of an earlier run that this run would leave beside
#' its own outputs (a mix of two runs)
#' @noRd
abort_stale_outputs <- function(stale, output, call) {
  shown <- utils::head(stale, 5L)
  ducksassy_abort(
    c(
      "The outputs' folder holds files of an earlier run that this run would not replace.",
      x = paste0(
        length(stale), " file", if (length(stale) > 1L) "s", " fit", if (length(stale) == 1L) "s",
        " `output` but name", if (length(stale) == 1L) "s", " no sample of this run: ",
        paste(cli_escape(basename(shown)), collapse = ", "), if (length(stale) > 5L) ", ..."
      ),
      i = "Use `overwrite = TRUE` to remove them once this run succeeds, or write into another folder."
    ),
    class = c("ducksassy_stale_outputs_error", "ducksassy_file_error", "ducksassy_input_error"),
    arg = "output", value = output, path = stale, call = call
  )
}

#' The output files of a demultiplexing
#'
#' Checks the template and the sample names, creates missing folders, and
#' finds the files of earlier runs that this run would not replace.
#' @return A list: `name` and `path` (and `mate_path`) of each output (the
#'   samples in the order of their first pattern, then `unassigned` and
#'   `ambiguous`), `sample` (the 1-based output of each pattern),
#'   `unassigned` and `ambiguous` (their outputs), `created` (the folders
#'   created, deepest first) and `stale` (files of the template that this
#'   run does not write).
#' @noRd
demux_outputs <- function(output, patterns, paired, inputs, call, names = NULL) {
  check_demux_template(output, paired, inputs, call)
  samples <- pattern_samples(patterns)
  if (is.null(names)) {
    check_sample_names(unique(samples), call)
    name <- c(unique(samples), "unassigned", "ambiguous")
  } else {
    # the both-ends mode: the outputs' names given (demux_ends_outputs())
    name <- names
  }
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
  # the runs' manifest is no output (it would replace the output's reads:
  # issue 52); compared up to case, one file on macOS and Windows
  manifest <- tolower(normalizePath(demux_manifest(output), mustWork = FALSE))
  clash <- which(tolower(all) == manifest)
  if (length(clash)) {
    i <- (clash[[1L]] - 1L) %% length(name) + 1L
    ducksassy_abort(
      c(
        "Every output needs a file of its own.",
        x = paste0("The output of ", format_value(name[[i]]), " is the file of the runs' manifest, ",
          format_value(basename(demux_manifest(output))), "."),
        i = "Rename the sample, or change `output`."
      ),
      class = c("ducksassy_sample_name_error", "ducksassy_input_error"),
      arg = "output", value = name[[i]], call = call
    )
  }
  list(
    name = name, path = path, mate_path = mate_path,
    sample = match(samples, name, nomatch = 1L),
    # (dorado's names: "unclassified" for both)
    unassigned = match("unassigned", name, nomatch = match("unclassified", name, nomatch = 1L)),
    ambiguous = match("ambiguous", name, nomatch = match("unclassified", name)),
    stale = stale_outputs(output, c(path, mate_path))
  )
}

#' `output` of sassy_demultiplex_fastx(): a template of file paths
#' @noRd
check_demux_template <- function(output, paired, inputs, call) {
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
  if (grepl("[/\\\\]$", output)) {
    abort_scalar("output", "a template of file paths, not of folders", output, call,
      hint = "E.g. `output = \"demux/{{name}}.fastq.gz\"`, or `\"demux/{{name}}/reads.fastq.gz\"` for a folder per sample."
    )
  }
  # the checks of a single output file, on the first output; the template
  # is what its errors show (and their `value` field holds)
  first <- sub("{name}", "x", gsub("{mate}", "1", output, fixed = TRUE), fixed = TRUE)
  check_fastx_output(first, inputs[[1L]], call = call, folder_may_be_missing = TRUE,
    shown = output)
  invisible(output)
}

#' Sample names become file names: refuse those that break a path here or
#' on other systems
#'
#' `/` and `\` (folders), `.` and `..` (folders too), control characters
#' (a newline, a tab), `:*?"<>|` (not allowed in Windows file names), the
#' names of the `unassigned` and `ambiguous` outputs, and names equal up to
#' case (one file on macOS and Windows).
#' @noRd
check_sample_names <- function(samples, call, arg = "patterns",
                               reserved = c("unassigned", "ambiguous")) {
  refuse <- function(bad, why) {
    ducksassy_abort(
      c(
        if (arg == "patterns") "The names of `patterns` name the output files of their samples." else "The sample names of `samples` name the output files.",
        x = paste0("The name ", format_value(samples[[bad[[1L]]]]), " ", why, "."),
        i = if (arg == "patterns") "Rename the pattern (`names(patterns)`)." else "Rename the sample (`samples$sample`)."
      ),
      class = c("ducksassy_sample_name_error", "ducksassy_input_error"),
      arg = arg, value = samples[[bad[[1L]]]], call = call
    )
  }
  checks <- list(
    list(grepl("^\\.\\.?$", samples), "is a folder (`.` or `..`), not a file name"),
    list(grepl("[/\\\\]", samples), "contains `/` or `\\`, which would make it a folder"),
    list(grepl("[[:cntrl:]]", samples), "contains a control character (a newline or a tab)"),
    list(grepl("[:*?\"<>|]", samples), "contains one of `:*?\"<>|`, which file names on Windows must not"),
    list(tolower(samples) %in% reserved, paste0("is that of an output of its own (", paste0("`", reserved, "`", collapse = ", "), ")"))
  )
  for (chk in checks) {
    if (any(chk[[1L]])) refuse(which(chk[[1L]]), chk[[2L]])
  }
  folded <- duplicated(tolower(samples))
  if (any(folded)) {
    refuse(which(folded), paste0(
      "differs from ", format_value(samples[match(tolower(samples[folded][[1L]]), tolower(samples))]),
      " only in case: one file on macOS and Windows"
    ))
  }
  invisible(samples)
}

#' The files of earlier runs that this run would leave beside its own
#'
#' Each run records its outputs in a manifest in the template's folder
#' (demux_manifest()); the outputs of earlier runs of the same template
#' that still exist and are none of this run's `outputs` are stale. Only
#' files a run wrote are ever listed (and removed with `overwrite = TRUE`):
#' other files that happen to fit the template, an input say, never are.
#' @noRd
stale_outputs <- function(output, outputs) {
  m <- read_demux_manifest(output)
  p <- m$path[m$template == demux_template_key(output)]
  p[!p %in% normalizePath(path.expand(outputs), mustWork = FALSE) & file.exists(p)]
}

# The manifest of the runs of templates in one folder: the fixed part of
# the template before its first placeholder.
demux_manifest <- function(output) {
  file.path(demux_template_root(output), ".demultiplex-outputs.tsv")
}

demux_template_root <- function(output) {
  fixed <- sub("\\{(name|mate)\\}.*$", "", path.expand(output))
  if (!grepl("/", fixed, fixed = TRUE)) {
    return(".")
  }
  root <- sub("/[^/]*$", "", fixed)
  if (root == "") "/" else root
}

# The template with its folder made absolute: the same template however
# its folder is written.
demux_template_key <- function(output) {
  root <- demux_template_root(output)
  rest <- if (root == ".") paste0("/", output) else substring(path.expand(output), nchar(root) + 1L)
  paste0(normalizePath(root, mustWork = FALSE), rest)
}

read_demux_manifest <- function(output) {
  f <- demux_manifest(output)
  empty <- data.frame(template = character(), path = character(), stringsAsFactors = FALSE)
  if (!file.exists(f)) {
    return(empty)
  }
  m <- tryCatch(
    utils::read.delim(f, colClasses = "character", quote = "", comment.char = ""),
    error = function(e) empty
  )
  if (!all(c("template", "path") %in% names(m))) empty else m[c("template", "path")]
}

#' Record this run's outputs in the manifest (replacing the earlier runs'
#' of the same template), written under a temporary name and renamed
#' @noRd
write_demux_manifest <- function(output, outputs) {
  key <- demux_template_key(output)
  m <- read_demux_manifest(output)
  m <- rbind(
    m[m$template != key, , drop = FALSE],
    data.frame(template = key, path = normalizePath(path.expand(outputs), mustWork = FALSE), stringsAsFactors = FALSE)
  )
  f <- demux_manifest(output)
  tmp <- paste0(f, ".", Sys.getpid(), ".tmp")
  utils::write.table(m, tmp, sep = "\t", quote = FALSE, row.names = FALSE)
  file.rename(tmp, f)
  invisible(f)
}

#' Create the folders of the outputs; the ones created, deepest first
#' @noRd
create_output_folders <- function(paths) {
  created <- character()
  for (d in unique(dirname(path.expand(paths)))) {
    missing <- character()
    while (!dir.exists(d) && !d %in% c(".", "/", dirname(d))) {
      missing <- c(missing, d)
      d <- dirname(d)
    }
    for (m in rev(missing)) {
      # (a regular file in the way is the write's error, without a warning
      # of dir.create() beside it; issue 52)
      if (!file.exists(m) && dir.create(m, showWarnings = FALSE)) {
        created <- c(m, created)
      }
    }
  }
  created[order(-nchar(created))]
}

#' Remove the folders a failed run created, where they are still empty
#' @noRd
remove_empty_folders <- function(folders) {
  for (d in folders) {
    if (dir.exists(d) && length(list.files(d, all.files = TRUE, no.. = TRUE)) == 0L) {
      unlink(d, recursive = TRUE)
    }
  }
}

#' Remove the temporary outputs (`.<name>.ducksassy-<pid>.tmp`) of runs
#' whose process no longer exists (killed: `kill -9`, a crash, a power
#' loss) from the folders of this run's outputs. A live process's files,
#' this one's included, are left alone.
#' @noRd
remove_debris <- function(folders) {
  for (d in unique(folders)) {
    tmp <- list.files(d, pattern = "^\\..*\\.ducksassy-[0-9]+\\.tmp$", all.files = TRUE, full.names = TRUE)
    pid <- as.integer(sub("^.*\\.ducksassy-([0-9]+)\\.tmp$", "\\1", tmp))
    dead <- !is.na(pid) & pid != Sys.getpid() & !vapply(pid, process_alive, NA)
    unlink(tmp[dead])
  }
}

# Whether a process of this id exists (on this machine).
process_alive <- function(pid) {
  if (is.na(pid)) {
    return(FALSE)
  }
  if (dir.exists("/proc/self")) {
    return(dir.exists(file.path("/proc", pid)))
  }
  isTRUE(tools::pskill(pid, 0L))
}
