#' Search, filter and read FASTA and FASTQ files
#'
#' @description
#' Work with sequence files without loading them into R first. The files are
#' read in native code (the needletail parser), in batches of records, on a
#' thread of their own, while the previous batch is searched in parallel:
#' memory stays bounded by the batch size and the results, not by the file
#' size.
#'
#' * `sassy_search_fastx()`, `sassy_count_fastx()` and
#'   `sassy_contains_fastx()` search every record of one or more files, as
#'   [sassy_search()], [sassy_count()] and [sassy_contains()] do for a
#'   character vector: hits, counts per record, or presence per record.
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
#' Unaligned BAM files (what ONT's basecaller dorado writes by default) are
#' read too, recognised from their content (BGZF-compressed or plain, starting
#' with `BAM\1` when decompressed), in native code as they stream. Each
#' record is read as the FASTQ record `samtools fastq` writes of it: the read
#' name (no description: tags are dropped; no `/1` or `/2` is added for
#' flagged mates, as with `samtools fastq -n`), the sequence and the qualities,
#' both turned back to the read's orientation where the record is reversed
#' (flag `0x10`); secondary and supplementary records (flags `0x100`,
#' `0x800`) are skipped and not numbered. A record without qualities gets
#' Phred 1 (`"`) on every base, the documented default of `samtools fastq
#' -v` (Debian's samtools 1.16 writes `B`). Alignments and tags are
#' ignored; a BAM file reads as FASTQ everywhere (`sassy_read_fastx()`
#' gives its `quality` column), and `sassy_filter_fastx()`
#' and [sassy_demultiplex_fastx()] write its records as FASTQ. A truncated
#' or corrupt BAM file is an error (see *Errors*).
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
#' when `output` ends in `.gz` or `.gzip` (any case), otherwise plain; other compressions
#' (`.bz2`, `.xz`, `.zst`) cannot be written and are an error. A gzip output
#' is compressed in blocks of 64 KiB on `threads` threads of their own,
#' beside the search, at `compression_level`, and is BGZF (concatenated gzip
#' members that every gzip reader reads as one file, and that htslib can
#' index), as [sassy_demultiplex_fastx()] writes it (see its *gzip outputs*
#' for the levels). The output is
#' written to a temporary file in the same folder and renamed when complete,
#' so a failed or interrupted filter leaves no partial output (and an
#' existing `output` untouched until the new one is complete). An existing
#' `output` file is replaced. The records of a BAM file are written as
#' FASTQ (`@name`, sequence, `+`, qualities, one line each), as `samtools
#' fastq` writes them.
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
#' * a BAM file cut inside its header or a record, or whose header or record
#'   lengths do not fit its data (a corrupt file); a file starting with gzip
#'   data that decompresses to something other than `BAM\1`, FASTA or FASTQ
#'   is neither FASTA nor FASTQ.
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
#'   files (plain or compressed) or unaligned BAM files (see *Files*; `~` is
#'   expanded). A path may appear more
#'   than once. Names, if any, label the files in the `file` column of the
#'   results (`c(s1 = "s1.fq.gz", s2 = "s2.fq.gz")`).
#' @param path A single path to a FASTA or FASTQ file, or an unaligned BAM
#'   file (`sassy_filter_fastx()` writes its records as FASTQ).
#' @param patterns A character vector of one or more patterns, none `NA` or
#'   empty. For `sassy_count_fastx()` and `sassy_contains_fastx()`, pattern names (or
#'   `pattern_1`, `pattern_2`, ... for unnamed ones) become column names.
#' @param output Path of the file to write, a single string. Gzip-compressed
#'   when it ends in `.gz` or `.gzip`, plain otherwise. Its folder must exist; it must
#'   not be `path` itself.
#' @param compression_level `sassy_filter_fastx()` only: the gzip
#'   compression level of an `output` ending in `.gz`, a whole number from 1
#'   (fastest) to 9 (smallest); default 1, chosen by measurement (see
#'   [sassy_demultiplex_fastx()], *gzip outputs*). A plain output ignores it.
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
#' @param sparse `sassy_count_fastx()` only. `FALSE` (default): a data
#'   frame with one column per pattern. `TRUE`: a sparse
#'   `Matrix::dgCMatrix` of the same counts, one row per record, with the
#'   `file`, `record` and `name` columns as its attribute `"records"`; its
#'   memory grows with the hits (and one name per record), not with records
#'   x patterns. See *Value*.
#' @param ... Not used: an unknown argument is an error naming it and the
#'   argument meant, as for [sassy_search()]. (`what = ` was removed: use
#'   `sassy_count_fastx()` or `sassy_contains_fastx()`.)
#' @inheritParams sassy_search
#'
#' @return
#' `sassy_search_fastx()`: a base `data.frame` with one
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
#' interactive sessions a progress bar shows the bytes searched of the
#' files' size (see [sassy_search()], *Progress*).
#'
#' A header (name and description) that is not valid UTF-8 is read as
#' Latin-1 and returned converted to UTF-8, each byte one letter, so that
#' `nchar()`, `toupper()` and the like work on the names (as are sequences
#' and qualities of `sassy_read_fastx()`); a message of class
#' `ducksassy_not_utf8` says how many were converted (once per call).
#'
#' `sassy_count_fastx()` and `sassy_contains_fastx()`: a base `data.frame` with one row per
#' record (all records of all files, in order) and columns `file` (only with
#' several paths), `record` and `name` as above, then one column per pattern,
#' integer counts (`"count"`) or logical (`"contains"`), named by
#' `names(patterns)` or `pattern_1`, `pattern_2`, ... (made unique with
#' [make.unique()] where names repeat or clash with the first columns).
#'
#' With `sparse = TRUE`, `sassy_count_fastx()` returns a
#' `Matrix::dgCMatrix` with one row per record (the rows of the data frame,
#' in order) and one column per pattern, named as the data frame's count
#' columns, holding the same counts (as doubles, as in every `dgCMatrix`;
#' cells without hits are not stored). Its row names are the records'
#' names as they are, not made unique (a name may repeat, e.g. across
#' files). The identifying columns of the data frame (`file`, only with
#' several or named paths, `record` and `name`) are its attribute
#' `"records"`, a data frame with one row per matrix row, so that
#' `cbind(attr(m, "records"), as.matrix(m))` has the values of the data
#' frame; Matrix operations (subsetting, arithmetic) drop the attribute,
#' so take it first. The counts are tabulated from the hits of the search
#' (those of `sassy_search_fastx(cigar = FALSE)`), which are held
#' meanwhile and subject to `getOption("ducksassy.max_hits")`. With
#' `BPPARAM`, the shards' matrices are bound in order: the same result.
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
#'   \item{`quality`}{character, the quality line; only for FASTQ files
#'     (and BAM files).}
#' }
#'
#' A BAM record's `name` is its read name and its `description` `NA`.
#'
#' @seealso [sassy_search()] for the search arguments and the hit columns;
#'   `Biostrings::readDNAStringSet()` to read files as Biostrings objects.
#' @export
#' @order 1
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
#' counts <- sassy_count_fastx(reads, c(p1 = primer, p2 = "ACGTACGTACGT"),
#'   k = 1)
#' head(counts)
#' colSums(counts[, c("p1", "p2")])
#'
#' # The same counts as a sparse matrix, the record columns alongside
#' m <- sassy_count_fastx(reads, c(p1 = primer, p2 = "ACGTACGTACGT"),
#'   k = 1, sparse = TRUE)
#' Matrix::colSums(m)
#' head(attr(m, "records"))
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
sassy_search_fastx <- search_verb("hits", "fastx")

#' @rdname sassy_search_fastx
#' @order 2
#' @export
sassy_count_fastx <- search_verb("count", "fastx")

#' @rdname sassy_search_fastx
#' @order 3
#' @export
sassy_contains_fastx <- search_verb("contains", "fastx")

#' The three file verbs (search_verb() in arguments.R)
#'
#' @param mode "hits", "count" or "contains".
#' @param sparse `sassy_count_fastx()`'s: counts as a dgCMatrix (sparse.R).
#' @param args The search arguments of the verb, by name (the hit verb's
#'   `cigar`, `cigar_style` and `region` as well).
#' @noRd
search_fastx <- function(mode, paths, patterns, k, args, BPPARAM,
                         sparse = FALSE, call) {
  sparse <- check_flag(sparse, "sparse", call = call)
  # sparse counts: from the hits (without CIGARs) and every record's name
  what <- if (sparse) "sparse" else mode
  fn <- verb_name(mode, "fastx")
  paths <- check_fastx_paths(paths, "paths", call = call, hint = function() {
    swapped_hint(patterns, is_file, fn, "paths")
  })
  plan <- new_verb_plan(mode, patterns, k, args, call)
  if (!is.null(BPPARAM)) {
    return(shard_fastx(paths, plan, what, BPPARAM, call = call))
  }
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(paths), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_fastx_search(
    path.expand(paths),
    as_plan(plan, if (sparse) "hits" else what, max_hits_option(call = call)),
    new_read_options(size, region = plan$region, names = sparse),
    progress_callback(progress)
  )
  res <- fastx_result(res, "paths", paths, call = call)
  if (sparse) {
    new_fastx_sparse(res, paths, plan$patterns, call = call)
  } else if (what == "hits") {
    new_fastx_hits(res, paths, call = call,
      pattern_names = names(plan$patterns), plan = plan
    )
  } else {
    new_fastx_values(res, paths, plan$patterns, what, call = call)
  }
}
