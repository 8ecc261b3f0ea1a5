# sassy_assign() and its file and table forms: which pattern is each
# record? One row per record, reduced in the Rust core (assign.rs) from the
# hits of each record as they are found, so memory does not grow with the
# number of hits.

# The both-ends mode's arguments (issue 38), after every older one.
end_mode_formals <- function() {
  alist(policy = NULL, samples = NULL, chimeras = c("ignore", "set_aside"), names = c("ducksassy", "dorado"))
}

#' Assign each record to its best pattern
#'
#' Which barcode, primer or guide is this read? For every record,
#' `sassy_assign()` finds the pattern with the best (lowest-cost) hit,
#' and says whether that answer is clear: `"assigned"`, `"ambiguous"` (another
#' pattern is nearly as good) or `"unassigned"` (no pattern has a hit with at
#' most `k` edits). It searches exactly as [sassy_search()] does, with the
#' same options, but keeps only the best hit of each record, so its memory
#' does not grow with the number of hits. `sassy_assign_fastx()` does the
#' same for the records of FASTA/FASTQ files, `sassy_assign_table()` for a
#' sequence column of a database table. Barcodes sit near the ends of reads:
#' `ends = 150` searches only the first and last 150 letters of each record,
#' which is several times faster on long reads.
#'
#' @section The rule:
#' The best hit of a record is its hit of lowest `cost` (edits, as
#' `sassy_search()` counts them); among hits of equal cost, that of the
#' pattern that comes first in `patterns`, then the leftmost one (by `start`,
#' then `end`), `"+"` before `"-"`: as cutadapt picks its "best adapter".
#' `other_cost` is the lowest cost of a hit of any *other sample* (`NA`
#' when no other sample has a hit with at most `k` edits). The record is
#' `"ambiguous"` when `other_cost <= cost + margin`: with the default
#' `margin = 0` a tie between two samples is ambiguous; `margin = 1` also
#' calls a record ambiguous when the runner-up has only one edit more
#' (splitcode's `--min-delta`, minus one). Records with no hit are
#' `"unassigned"`; `NA` records (vectors, tables) have `NA` in every column
#' after `name`.
#'
#' Only hits with at most `k` edits are found, so a runner-up beyond `k`
#' is not seen: `other_cost` is then `NA`, and a record whose best hit has
#' `cost` close to `k` is called assigned however close a hit of `k + 1`
#' edits came. To judge the margin near the limit, search with a larger
#' `k` (`k + margin` or more) and filter on `cost`.
#'
#' @section Samples:
#' A sample is the patterns of one name: `c(s = BC1, s = BC2, t = BC3)`
#' gives sample `s` two barcodes. The rule compares samples, not patterns:
#' a record with hits of `BC1` and `BC2` at equal cost is assigned to `s`,
#' not ambiguous. Unnamed patterns are samples of their own, called
#' `pattern_1`, `pattern_2`, ... by their index; naming a pattern so while
#' that pattern has no name is an error (`ducksassy_name_clash_error`), not
#' a merge. The same names are used by every verb: the count columns of
#' [sassy_count()], `pattern_name` and `sample` here, and the files of
#' [sassy_demultiplex_fastx()].
#'
#' Each end searched with `ends` is a text of its own, as in
#' [sassy_search()]: hits are in the coordinates of the whole record.
#'
#' @section Barcode sets and kits:
#' `patterns` may be a barcode set ([sassy_kit()], [sassy_barcodes()]):
#' each barcode is then searched with its flanks as one pattern named by the
#' barcode, `k` defaults from the set's layout when not given (see
#' [sassy_kits()], *The default k*), the result has the column
#' `barcode_cost`, the edits that fall on the barcode itself, to which the
#' margin applies as well as to the cost and whose cap makes an end's hit
#' no barcode (see [sassy_kits()], *Barcode edits* and *The barcode cap*;
#' for reads that start inside their adapter, *Read ends* there), and the
#' assignment is that of both ends (next section).
#'
#' @section Both ends and sample sheets:
#' With a barcode set as `patterns`, or with `policy` or `samples` given
#' (bare patterns then act as a set without flanks, at both ends), each
#' read's two ends are assigned on their own and combined. `ends` is then
#' one number `L` (`NULL`: 250): the front is searched in the first `L`
#' letters, the rear in the last `L`, a read no longer than `L` whole for
#' each end; each end gets the rule above (margin included). The two ends
#' of a read shorter than `2 * L` overlap, and an end does not take the
#' other end's site: an end's best hit that lies nearer the read's other
#' end (its middle past the read's middle) is that end's, and the end is
#' searched again in the letters before it (the front) or after it (the
#' rear). A hit whose letters are more than a fifth `N` is no barcode
#' (`max_n_frac` is 0.2 unless given): `N` matches every barcode. The
#' `policy` combines them:
#' * `"either"` (the default): an end with a barcode suffices; two ends
#'   with different barcodes are `"ends disagree"`.
#' * `"both"`: both ends must name the same barcode (native kits, which
#'   ligate the barcode at both ends); one is `"one end only"`.
#' * `"samples"` (the default when `samples` is given): the pair of the
#'   front and the rear barcode is looked up in the sample sheet `samples`,
#'   a data frame with columns `front`, `rear` and `sample` (dual and
#'   combinatorial designs, as cutadapt's `{name1}-{name2}`). A row with
#'   `rear = NA` takes any rear end, or none. Barcode names must be those
#'   of `patterns`, and a pair may name one sample only
#'   (`ducksassy_samples_error`).
#'
#' `orientation` is the strand the read is of: `"+"` when the set's
#' front rows (`ends = "front"`) are at the read's front, `"-"` when its
#' rear rows are, `NA` when the ends do not tell (a set whose rows are at
#' both ends is the same on both strands). On a `"-"` read the design's
#' front barcode is at the read's rear; the sheet is looked up by the
#' design's ends. Where the orientation is not known, the pair is looked
#' up in both orders, and two different samples so found are ambiguous.
#' An end that is ambiguous leaves the read without a sample.
#'
#' A read without a sample has a `reason`, the first of these that
#' applies: `"chimeric"` (with `chimeras = "set_aside"`: a flanked barcode
#' with at most `floor(0.75 * k)` edits lies wholly in the middle, between
#' the ends, of a read longer than `2 * L`; the whole read is searched for
#' it; see [sassy_kits()], *Chimeras*), `"ambiguous"`, `"ends disagree"`,
#' `"one end only"`, `"pair not in sample sheet"`, `"flank without
#' barcode"` (no barcode, but an end's best hit has more edits on its
#' barcode than the cap (see [sassy_kits()], *The barcode cap*), or the
#' set's flanks without a barcode are found in an end: see [sassy_kits()],
#' *Flanks without barcode*), `"no hit"`. `status`
#' then gains the level `"chimeric"`. The result has class
#' `ducksassy_assignment` (a data frame) with [summary()][assignment-summary]
#' and [plot()][assignment-summary] methods.
#'
#' Paired mates (Illumina; `sassy_assign_fastx(mates = )`): the front end
#' is the first `L` letters of each read (R1), the rear end the first `L`
#' of its mate (R2), which starts at the fragment's other end; the rear
#' end's coordinates are the mate's. Chimeras are looked for in the middle
#' of each mate, flanks at both ends of each.
#'
#' @param patterns As in [sassy_search()], or a barcode set of
#'   [sassy_kit()] or [sassy_barcodes()].
#' @param k As in [sassy_search()]; with a barcode set and no `k`, the
#'   set's default (see [sassy_kits()]).
#'
#' @inheritParams sassy_search
#' @param margin How close the runner-up must come for a record to be
#'   `"ambiguous"`: a whole number >= 0 (see *The rule*).
#' @param policy `NULL` (default), or how the two ends of a read name its
#'   sample: `"either"`, `"both"` or `"samples"` (see *Both ends and sample
#'   sheets*). Giving it turns the both-ends mode on for bare patterns.
#' @param samples `NULL` (default), or a sample sheet: a data frame with
#'   columns `front`, `rear` (barcode names; `rear` `NA` for any rear end)
#'   and `sample`; implies `policy = "samples"`.
#' @param chimeras `"ignore"` (default) or `"set_aside"`: reads with a
#'   barcode in their middle are `"chimeric"` (both-ends mode only).
#' @param names `"ducksassy"` (default): `sample` is the barcode's name (or
#'   the sample sheet's), `NA` for a read without sample. `"dorado"`: as
#'   dorado names them (both-ends mode only): a barcode of a kit or
#'   arrangement is `<kit>_<barcode>` (`"SQK-NBD114-96_barcode01"`, the
#'   set's `kit` attribute: one kit of [sassy_kit()] or the arrangement of
#'   [sassy_barcodes_dorado()]; a set of several kits or of your own
#'   barcodes keeps the barcode's name), a sample sheet's names are kept, and
#'   a read without sample is `"unclassified"` (its `status` and `reason`
#'   say why). Not with `sassy_assign_table(output = )`.
#' @return A data frame with one row per record, in input order:
#'   \describe{
#'     \item{`file`, `record`}{As in [sassy_search_fastx()] (files), the row
#'       number or the `id` columns (tables, as in [sassy_search_table()]),
#'       or `record`, the index into `texts` (vectors).}
#'     \item{`name`}{The record's name (`names(texts)`, the FASTA/FASTQ
#'       name; `NA` for unnamed texts; not for tables).}
#'     \item{`pattern`}{Index of the best pattern in `patterns` (`NA` when
#'       unassigned).}
#'     \item{`pattern_name`}{Its name: `names(patterns)`, or `pattern_1`,
#'       `pattern_2`, ... for unnamed ones, made unique with [make.unique()]
#'       where names repeat (`a`, `a_1`), as the count columns of
#'       [sassy_count_fastx()].}
#'     \item{`sample`}{Its sample: `names(patterns)` as given (so `a` for
#'       both `a` and `a_1`), `pattern_<i>` for unnamed ones (see
#'       *Samples*).}
#'     \item{`cost`, `start`, `end`, `strand`}{Its best hit, as in
#'       [sassy_search()] (1-based, inclusive coordinates).}
#'     \item{`barcode_cost`}{Only with a barcode set that has flanks: the
#'       edits of the best hit on the barcode's letters, apart from the
#'       flanks' (see [sassy_kits()], *Barcode edits*).}
#'     \item{`other_cost`}{The lowest cost of another sample's hit.}
#'     \item{`status`}{A factor with levels `"assigned"`, `"ambiguous"` and
#'       `"unassigned"`.}
#'   }
#'   In the both-ends mode (*Both ends and sample sheets*), the columns up
#'   to `other_cost`, but `sample`, describe the deciding end (the front's
#'   hit when the front is assigned, else the rear's when it is, else the
#'   front's when it is ambiguous, else the rear's: a front hit over the
#'   barcode cap names no barcode, and a read with no rear hit then has
#'   `NA` there), then:
#'   \describe{
#'     \item{`front_barcode`, `front_cost`, `front_barcode_cost`,
#'       `front_start`, `front_end`, `front_strand`}{The front end's
#'       assignment: its barcode (`NA` unless that end is assigned), the
#'       edits of its best hit, those on the barcode's letters (`cost`
#'       for a set without flanks), and the hit.}
#'     \item{`rear_barcode`, ..., `rear_strand`}{The same for the rear end.}
#'     \item{`orientation`}{`"+"`, `"-"` or `NA`.}
#'     \item{`sample`}{The read's sample (a barcode name, or the sample
#'       sheet's), `NA` unless assigned.}
#'     \item{`status`}{A factor with levels `"assigned"`, `"ambiguous"`,
#'       `"unassigned"` and `"chimeric"`.}
#'     \item{`reason`}{Why the read has no sample; `NA` when assigned.}
#'   }
#'   With `output`, `sassy_assign_table()` appends these rows to the table
#'   (creating it) and returns their number invisibly.
#' @seealso [sassy_demultiplex_fastx()] to write the records into one file
#'   per pattern.
#' @export
#' @examples
#' barcodes <- c(bc1 = "ACGTACGTACGT", bc2 = "TTGCAATTGCAA", bc3 = "GGATCCGGATCC")
#' reads <- c(
#'   r1 = "CCCCACGTACGAACGTCCCCCCCCCCCCCCCCCC",   # bc1, one edit
#'   r2 = "GGGGGGGGGGGGGGGGGTTGCAATTGCAATTTTT",   # bc2
#'   r3 = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"    # none
#' )
#' sassy_assign(reads, barcodes, k = 2)
#'
#' # only the first and last 16 letters of each read
#' sassy_assign(reads, barcodes, k = 2, ends = 16)
#'
#' # margin: r1's best barcode has 1 edit; a read with bc1 at 1 edit and
#' # bc3 at 2 is assigned with margin = 0, ambiguous with margin = 1
#' close <- c(r5 = "ACGTACGAACGTCCCCGGATCCGCTTCCAAAA")
#' sassy_assign(close, barcodes, k = 2)[, c("pattern_name", "cost", "other_cost", "status")]
#' sassy_assign(close, barcodes, k = 2, margin = 1)$status
#'
#' # both ends: a set with flanks; r6 is read from the other strand, so its
#' # barcode is at its rear; r7 has the flanks but a barcode of no sample
#' set <- sassy_barcodes(c(a = "ACGTACGTACGTACGT", b = "TTGCAATTGCAAGGCC"),
#'   flank5 = "GGTGCTGAAC", flank3 = "CCTTAACCGG")
#' reads <- c(
#'   r5 = paste0("GGTGCTGAAC", "ACGTACGTACGTACGT", "CCTTAACCGG", strrep("A", 60)),
#'   r6 = paste0(strrep("C", 60), "CCGGTTAAGG", "GGCCTTGCAATTGCAA", "GTTCAGCACC"),
#'   r7 = paste0("GGTGCTGAAC", "CATGCATGCATGCATG", "CCTTAACCGG", strrep("T", 60))
#' )
#' x <- sassy_assign(reads, set, k = 4, ends = 40)
#' x[, c("front_barcode", "rear_barcode", "sample", "status", "reason")]
#' summary(x)
#'
#' # a sample sheet: the pair of barcodes names the sample
#' dual <- c(paste0("GGTGCTGAAC", "ACGTACGTACGTACGT", "CCTTAACCGG", strrep("A", 60),
#'   "CCGGTTAAGG", "GGCCTTGCAATTGCAA", "GTTCAGCACC"))
#' sheet <- data.frame(front = "a", rear = "b", sample = "patient_1")
#' sassy_assign(dual, set, k = 4, ends = 40, samples = sheet)[, c("sample", "status")]
sassy_assign <- new_verb(
  "sassy_assign",
  c(verb_formals("vector", hits = FALSE), alist(margin = 0L), end_mode_formals()),
  "assign_vector_named"
)

#' @rdname sassy_assign
#' @param mates `NULL` (default), or (`sassy_assign_fastx()`, the both-ends
#'   mode) the files of the mates of `paths` (paired reads, R2), one per
#'   path, its records in the same order as the reads' and named as they
#'   are up to `/1` and `/2` (`ducksassy_mates_error` otherwise, as
#'   [sassy_demultiplex_fastx()] checks them): the front end is then the start of each read
#'   (R1), the rear end the start of its mate (see *Both ends and sample
#'   sheets*).
#' @param paths,table,con,column,id,chunk_rows,output As in
#'   [sassy_search_fastx()] and [sassy_search_table()].
#' @param BPPARAM `NULL` (default): assign in this R session. Or a
#'   BiocParallel parameter object: the files (or record ranges of them) or
#'   the table's row ranges are assigned in shards by its workers, as for
#'   [sassy_count_fastx()] and [sassy_count_table()], and the shards' rows
#'   are bound in order: the result is identical to that without `BPPARAM`
#'   (for tables, when the database returns the rows in the same order each
#'   time). Not with `sassy_assign_table(output = )`. See [sharding].
#' @export
sassy_assign_fastx <- new_verb(
  "sassy_assign_fastx",
  c(verb_formals("fastx", hits = FALSE), alist(margin = 0L), end_mode_formals(), alist(mates = NULL)),
  "assign_fastx_named",
  options_as_list = TRUE
)

#' @rdname sassy_assign
#' @export
sassy_assign_table <- new_verb(
  "sassy_assign_table",
  c(verb_formals("table", hits = FALSE), alist(margin = 0L), end_mode_formals()),
  "assign_table_named",
  options_as_list = TRUE
)

#' The work of sassy_assign()
#' @noRd
assign_vector <- function(texts, patterns, k, alphabet, rc, all_endpoints,
                          overhang, max_n_frac, ignore_case, ends, threads,
                          indels, margin, policy, samples, chimeras, call) {
  mode <- ends_mode(patterns, policy, samples, chimeras, ends, call)
  if (!is.null(mode)) {
    max_n_frac <- ends_max_n_frac(max_n_frac, alphabet)
  }
  sp <- as_search_patterns(patterns, given_k(k, call))
  one <- function(ends, halves = NULL) {
    assign_vector_one(texts, sp, alphabet, rc, all_endpoints, overhang,
      max_n_frac, ignore_case, ends, threads, indels, margin, call, halves)
  }
  if (is.null(mode)) {
    return(one(ends))
  }
  src <- list(
    keys = "record",
    alphabet = alphabet,
    assign = one,
    search = function(p, kk, e, rc2, more = list(), cigar = FALSE) {
      a <- list(alphabet = alphabet, rc = rc2 %||% rc, all_endpoints = all_endpoints,
        overhang = overhang, max_n_frac = max_n_frac, ignore_case = ignore_case,
        cigar = cigar, threads = threads, indels = indels, ends = e)
      a[names(more)] <- more
      do.call(sassy_search, c(list(texts, p, kk), a))
    },
    lengths = function() {
      tx <- as_texts(texts, "texts", call = call)
      data.frame(record = seq_along(tx), length = nchar(tx, type = "bytes"))
    }
  )
  assign_ends(src, mode, sp, margin)
}

#' One assignment of vectors, of the ends `ends`
#' @noRd
assign_vector_one <- function(texts, sp, alphabet, rc, all_endpoints,
                              overhang, max_n_frac, ignore_case, ends, threads,
                              indels, margin, call, halves = NULL) {
  patterns <- sp$patterns
  k <- sp$k
  plan <- new_search_plan(
    texts, patterns, k, alphabet, rc, all_endpoints, overhang, max_n_frac,
    ignore_case, FALSE, threads,
    indels = indels, call = call, check = FALSE, ends = ends
  )
  plan$margin <- check_margin(margin, call = call)
  plan$halves <- halves
  plan <- with_barcode_spans(plan, sp$set)
  n <- length(plan$texts)
  res <- if (n == 0L) empty_assignment(!is.null(plan$barcode_from)) else run_search(plan, "assign", call = call)
  nm <- names(plan$texts)
  out <- list(record = seq_len(n), name = if (is.null(nm)) rep(NA_character_, n) else unname(nm))
  new_assignments(out, res, plan$patterns, n)
}

#' The work of sassy_assign_fastx()
#' @noRd
assign_fastx <- function(paths, patterns, k, args, BPPARAM, margin,
                         policy, samples, chimeras, mates, call) {
  paths <- check_fastx_paths(paths, "paths", call = call, hint = function() {
    swapped_hint(patterns, is_file, "sassy_assign_fastx", "paths")
  })
  mode <- ends_mode(patterns, policy, samples, chimeras, args$ends, call)
  if (!is.null(mode)) {
    args$max_n_frac <- ends_max_n_frac(args$max_n_frac, args$alphabet)
  }
  sp <- as_search_patterns(patterns, given_k(k, call))
  if (!is.null(mates)) {
    mates <- check_assign_mates(mates, paths, mode, call)
  }
  # (issue 51) a kit's set on reads of another kit
  check_kit_fit(paths, sp$set, args$threads, call)
  if (is.null(mode)) {
    return(assign_fastx_one(paths, sp, args, BPPARAM, margin, call))
  }
  src <- fastx_source(paths, sp, args, BPPARAM, margin, call)
  if (!is.null(mates)) {
    src$mate <- fastx_source(mates, sp, args, BPPARAM, margin, call)
  }
  assign_ends(src, mode, sp, margin)
}

#' The records of files for assign_ends(): their one-end assignment, their
#' searches and their lengths
#' @noRd
fastx_source <- function(paths, sp, args, BPPARAM, margin, call) {
  search <- function(p, kk, e, rc2, more = list(), cigar = FALSE) {
    a <- args
    a$ends <- e
    a$cigar <- cigar
    if (!is.null(rc2)) a$rc <- rc2
    a[names(more)] <- more
    do.call(sassy_search_fastx, c(list(paths, p, kk), a, list(BPPARAM = BPPARAM)))
  }
  list(
    keys = c("file", "record"),
    alphabet = args$alphabet,
    assign = function(ends, halves = NULL) {
      args$ends <- ends
      assign_fastx_one(paths, sp, args, BPPARAM, margin, call, halves)
    },
    search = search,
    lengths = function() {
      # the last letter of each record: its end is the record's length
      h <- search("N", 0L, c(0L, 1L), FALSE,
        list(alphabet = "iupac", max_n_frac = 1, all_endpoints = FALSE, overhang = NULL))
      out <- as.list(h)[intersect(c("file", "record"), names(h))]
      out$length <- h$end
      new_data_frame(out, nrow(h))
    },
    call = call
  )
}

#' `mates` of sassy_assign_fastx(): one file per path, in the both-ends
#' mode; named as `paths` label their files, so that their results carry
#' the reads' `file`
#' @noRd
check_assign_mates <- function(mates, paths, mode, call) {
  if (is.null(mode)) {
    abort_value("mates",
      "`mates` applies in the both-ends mode only: the front end in `paths`, the rear end in `mates`.",
      mates, call,
      hint = "Give a barcode set (`sassy_kit()`, `sassy_barcodes()`) as `patterns`, or a `policy`."
    )
  }
  mates <- check_mates(mates, paths, call)
  names(mates) <- if (has_file_column(paths)) file_labels(paths)
  mates
}

#' One assignment of files, with the options `args`
#' @noRd
assign_fastx_one <- function(paths, sp, args, BPPARAM, margin, call, halves = NULL) {
  patterns <- sp$patterns
  k <- sp$k
  plan <- new_verb_plan("assign", patterns, k, args, call)
  plan$margin <- check_margin(margin, call = call)
  plan$halves <- halves
  plan <- with_barcode_spans(plan, sp$set)
  if (!is.null(BPPARAM)) {
    return(shard_fastx(paths, plan, "assign", BPPARAM, call = call))
  }
  size <- fastx_batch_size(call = call)
  progress <- new_progress(fastx_label(paths), "bytes")
  on.exit(progress_done(progress), add = TRUE)
  res <- ds_fastx_search(
    path.expand(paths),
    as_plan(plan, "assign"),
    new_read_options(size),
    progress_callback(progress)
  )
  res <- fastx_result(res, "paths", paths, call = call)
  counts <- res$records_per_file
  n <- length(res$name)
  out <- fastx_record_columns(paths, counts, res$name)
  new_assignments(out, res$best, plan$patterns, n)
}

#' The work of sassy_assign_table()
#' @noRd
assign_table <- function(con, table, patterns, k, column, id, args,
                         chunk_rows, output, BPPARAM, margin,
                         policy, samples, chimeras, call) {
  check_dbi_installed(call = call)
  check_connection(con, call = call)
  if (is.null(args$threads)) {
    args$threads <- sassy_threads()
  }
  mode <- ends_mode(patterns, policy, samples, chimeras, args$ends, call)
  if (!is.null(mode)) {
    args$max_n_frac <- ends_max_n_frac(args$max_n_frac, args$alphabet)
  }
  sp <- as_search_patterns(patterns, given_k(k, call))
  if (is.null(mode)) {
    return(assign_table_one(con, table, sp, column, id, args, chunk_rows, output,
      BPPARAM, margin, call))
  }
  # records are keyed on their row (its number in scan order), never on the
  # `id` values, which need not be unique (issue 52): the searches number
  # the rows (no `id` columns), the assignments are one row per row in order
  row <- table_row_key
  search <- function(p, kk, e, rc2, more = list(), cigar = FALSE) {
    a <- args
    a$ends <- e
    a$cigar <- cigar
    if (!is.null(rc2)) a$rc <- rc2
    a[names(more)] <- more
    h <- do.call(sassy_search_table, c(
      list(con, table, p, kk, column = column, id = character()), a,
      list(chunk_rows = chunk_rows, BPPARAM = BPPARAM)
    ))
    h[[row]] <- h$record
    h
  }
  src <- list(
    keys = NULL,
    row_key = row,
    alphabet = args$alphabet,
    assign = function(ends, halves = NULL) {
      args$ends <- ends
      a <- assign_table_one(con, table, sp, column, id, args, chunk_rows, NULL,
        BPPARAM, margin, call, halves, reserved = assign_table_columns(TRUE))
      a[[row]] <- seq_len(nrow(a))
      a
    },
    search = search,
    lengths = function() {
      h <- search("N", 0L, c(0L, 1L), FALSE,
        list(alphabet = "iupac", max_n_frac = 1, all_endpoints = FALSE, overhang = NULL))
      out <- list(h[[row]], h$end)
      names(out) <- c(row, "length")
      new_data_frame(out, nrow(h))
    }
  )
  out <- assign_ends(src, mode, sp, margin)
  if (is.null(output)) {
    return(out)
  }
  write_assignment_table(con, output, out, call)
}

#' One assignment of a table, with the options `args`
#' @noRd
assign_table_one <- function(con, table, sp, column, id, args, chunk_rows,
                             output, BPPARAM, margin, call, halves = NULL,
                             reserved = assign_table_columns(FALSE)) {
  patterns <- sp$patterns
  k <- sp$k
  plan <- new_verb_plan("assign", patterns, k, args, call)
  plan$margin <- check_margin(margin, call = call)
  plan$halves <- halves
  plan <- with_barcode_spans(plan, sp$set)
  engine <- table_search_engine(plan, "assign")
  engine$reserved <- reserved
  out <- search_table_rows(
    con, table, column, id, chunk_rows, output, BPPARAM,
    engine, "sassy_assign_table",
    search_args = c(list(patterns = patterns, k = k, margin = margin), args),
    patterns = patterns, what = "patterns", call = call
  )
  if (is.data.frame(out)) {
    out$status <- factor(out$status, levels = assign_status_levels)
  }
  out
}

#' A both-ends assignment appended to the `output` table (created when it
#' does not exist); `status` as text, as the one-end assignment writes it
#' @return The number of rows written, invisibly.
#' @noRd
write_assignment_table <- function(con, output, out, call) {
  output <- check_output_name(output, call = call)
  df <- as.data.frame(unclass_assignment(out))
  df$status <- as.character(df$status)
  exists <- db_call(DBI::dbExistsTable(con, output),
    "Can't look up the `output` table.", "output", call)
  db_call(
    if (isTRUE(exists)) DBI::dbAppendTable(con, output, df) else DBI::dbWriteTable(con, output, df),
    "Can't write the assignment to the `output` table.", "output", call
  )
  invisible(as.double(nrow(df)))
}

# The binding's columns of no records (`barcode_cost` with barcode spans).
empty_assignment <- function(barcode_cost = FALSE) {
  list(
    pattern = integer(), cost = integer(), barcode_cost = if (barcode_cost) integer(),
    start = integer(), end = integer(),
    strand = character(), other_cost = integer(), status = character()
  )
}

#' The assignment data frame: the record columns `out`, then the binding's
#' columns `res` (assign.rs in the binding) with the pattern names
#' @noRd
new_assignments <- function(out, res, patterns, n) {
  new_data_frame(c(out, assignment_columns(res, patterns, n)), n)
}

# The binding's assignment columns with the pattern names; `status` as a
# factor, or (table chunks, which are bound or written as plain columns)
# as a character vector.
assignment_columns <- function(res, patterns, n, factor = TRUE) {
  if (length(res$pattern) != n) {
    abort_internal("the assignment has the wrong number of rows", rlang::caller_env())
  }
  labels <- fastx_pattern_columns(patterns, character())
  cols <- list(
    pattern = res$pattern,
    pattern_name = labels[res$pattern],
    sample = pattern_samples(patterns)[res$pattern],
    cost = res$cost,
    barcode_cost = res$barcode_cost,
    start = res$start,
    end = res$end,
    strand = res$strand,
    other_cost = res$other_cost,
    status = if (factor) factor(res$status, levels = assign_status_levels) else res$status
  )
  # barcode_cost: with a barcode set that has flanks (with_barcode_spans())
  cols[!vapply(cols, is.null, logical(1L))]
}

#' The columns of sassy_assign_table()'s result that no `id` column may
#' be named (issue 52): the one-end assignment's, and with `ends` those of
#' the both-ends mode and its key of the rows (table_row_key)
#' @noRd
assign_table_columns <- function(ends = FALSE) {
  one <- c("pattern", "pattern_name", "sample", "cost", "barcode_cost", "start",
    "end", "strand", "other_cost", "status")
  if (!ends) {
    return(one)
  }
  end <- c("barcode", "cost", "barcode_cost", "start", "end", "strand")
  c(one, paste0("front_", end), paste0("rear_", end), "orientation", "reason", table_row_key)
}

# The both-ends mode's key of a table's rows (their number in scan order),
# a column of its intermediate results only.
table_row_key <- ".ducksassy_row"

# The levels of the `status` column (DESIGN.md): a factor, so that table()
# lists every status, also those no record has.
assign_status_levels <- c("assigned", "ambiguous", "unassigned")
