#' Approximate search of patterns in many sequences
#'
#' @description
#' Find every approximate occurrence of one or more `patterns` (primers,
#' barcodes, adapters, guides, or any short string) in many `texts`, allowing
#' up to `k` substitutions, insertions and deletions (unit-cost edit
#' distance). The search runs in parallel in native code with SIMD, using the
#' sassy library of Beeloo and Groot Koerkamp.
#'
#' * `sassy_search()` returns one row per hit, with coordinates, cost, strand
#'   and alignment.
#' * `sassy_count()` returns the number of hits per text and pattern.
#' * `sassy_contains()` says whether each text has at least one hit; it stops
#'   at the first hit of each text.
#'
#' The texts come first and the patterns second, here and in every other
#' function of the package (files, tables, CRISPR guides). Biostrings puts
#' the pattern first (`matchPattern(pattern, subject)`); when every text is
#' shorter than every pattern (by more than `k` letters, so that no text can
#' have a hit) the arguments look swapped, and a warning of
#' class `ducksassy_swapped_arguments_warning` says so.
#'
#' All three share one engine: `sassy_count()` equals
#' `table(hits$record)` and `sassy_contains()` equals `record %in%
#' hits$record` for the `hits` of `sassy_search()` with the same arguments.
#'
#' @section What counts as a hit:
#' For a pattern of length `m` and a text, the *end cost* at text position `j`
#' is the smallest edit distance between the pattern and any substring of the
#' text that ends at `j` (semi-global alignment: the text before and after
#' the match is free, the whole pattern must be aligned). Every end position
#' with cost `<= k` has a match, but neighbouring end positions usually
#' describe the same occurrence (`ABC` in `XXXABCXXX` with `k = 1` ends with
#' cost 1, 0, 1 after `AB`, `ABC`, `ABCX`). By default only the rightmost end
#' position of each local minimum of the end cost is reported, so that
#' occurrence gives one hit (`ABC`, cost 0). With `all_endpoints = TRUE`
#' every end position with cost `<= k` is reported (three hits there).
#'
#' With `rc = TRUE` the pattern is also searched in the reverse complement of
#' each text. Those hits have `strand = "-"`; their end positions and local
#' minima are taken in the reverse-complement text, while `start` and `end`
#' are reported on the forward text. A palindromic site can give a hit on each
#' strand.
#'
#' Each hit's alignment is found by a traceback that prefers matches and
#' substitutions, then deletions, then insertions; its `cost` is the end
#' cost, the minimum for that end position, but among alignments of equal
#' cost the one reported is not guaranteed to have the fewest substitutions.
#'
#' @section Substitutions only:
#' With `indels = FALSE` a hit is a placement of the whole pattern on
#' `nchar(pattern)` consecutive letters of the text with at most `k`
#' mismatches (Hamming distance; Biostrings' `with.indels = FALSE`, the
#' counting of off-target searches such as Cas-OFFinder). Every such
#' placement is one hit, on each searched strand: `start` and `end` span
#' exactly `nchar(pattern)` letters, `cost` is the number of mismatches and
#' the `cigar` has only `=` and `X`. Letters match as in the edit search
#' (IUPAC codes by their sets of bases, `"ascii"` with `ignore_case`), so
#' `N` in a text matches everything and `max_n_frac` drops placements with a
#' larger fraction of `N`. There is no local-minimum rule to relax, so
#' `all_endpoints` changes nothing, and a placement never hangs over a text
#' end, so `overhang` must be `NULL`. The placements are found from the
#' edit search with every end position (a placement with `h` mismatches is
#' an alignment of cost `h` ending at the same position), each checked
#' letter by letter.
#'
#' @section Alphabets and case:
#' * `"dna"`: `A`, `C`, `G`, `T` only, upper or lower case.
#' * `"iupac"`: the IUPAC nucleotide codes `A C G T U R Y S W K M B D H V N X`
#'   (`U` is read as `T`), upper or lower case. Two codes match when the
#'   sets of bases they stand for intersect, so `N` matches every base and
#'   `R` matches `A`, `G` and `R`; `X` (a masked base) matches nothing, not
#'   even `X`. A run of `N` in a text therefore matches anything;
#'   `max_n_frac` drops such hits.
#' * `"ascii"`: any byte below 128, compared exactly, or ignoring the case of
#'   `A-Z`/`a-z` with `ignore_case = TRUE`. There is no reverse complement.
#'
#' `"dna"` and `"iupac"` are always case-insensitive, on both strands;
#' `ignore_case` only changes `"ascii"`. A letter outside the alphabet in a
#' text or pattern is an error naming the record and the letter, never a
#' silent mismatch.
#'
#' @section Coordinates and order:
#' All coordinates are 1-based and inclusive, on the forward text:
#' `substr(texts[record], start, end)` is the matched region, whatever the
#' strand, and `IRanges::IRanges(start, end)` needs no arithmetic. (sassy's
#' own 0-based half-open `text_start`, `text_end` are `start - 1` and `end`.)
#' On the `"-"` strand the `cigar` aligns the pattern with the reverse
#' complement of that region. An empty region (possible only with
#' `overhang`, when the whole pattern lies outside the text) has
#' `end = start - 1`, as in IRanges, and an empty `cigar` (`""`).
#'
#' @section CIGAR conventions:
#' By default (`cigar_style = "pattern"`) a CIGAR reads in the pattern's
#' direction, as sassy writes it: on the `"-"` strand it aligns the pattern
#' with the reverse complement of the region. `cigar_style = "sam"` writes
#' it as SAM files have it (what samtools, IGV,
#' Rsamtools and GenomicAlignments expect): along the text (SAM's
#' reference) on its forward strand, for the read as it lies there, the
#' reverse complement of the pattern on the `"-"` strand. `I` is still a
#' letter of the pattern (read) missing from the text and `D` a letter of
#' the text missing from the pattern, as SAM defines them relative to the
#' reference; pattern letters that hang over the text's ends (`overhang`)
#' become soft clips (`S`), so the CIGAR spells the whole pattern. On the
#' `"+"` strand both conventions give the same string; on the `"-"` strand
#' the SAM one lists sassy's operations in reverse order.
#'
#' A worked example: the pattern `AATGGTTCCC` occurs in
#' `TTTTTGGGACCATTTTT` at 6..14 on the `"-"` strand, one letter short. The
#' reverse complement of the region, `AATGGTCCC`, lacks the pattern's
#' sixth letter, so sassy writes `5=1I4=`; read along the text, the region
#' `GGGACCATT` lacks the fifth letter of the read `GGGAACCATT` (the
#' pattern's reverse complement), and SAM writes `4=1I5=`:
#' ```
#' sassy_search("TTTTTGGGACCATTTTT", "AATGGTTCCC", k = 1, alphabet = "dna",
#'   cigar_style = "sam")
#' ```
#'
#' @section The matched region:
#' `region = TRUE` adds a `region` column: the text of the matched region
#' as it stands in the text, `substr(texts[record], start, end)`, on either
#' strand (a `"-"` hit's region is not reverse complemented; use
#' `Biostrings::reverseComplement()` for the pattern's view). For files
#' it is taken while the record is in memory, so the records need not be
#' read into R. Nothing is spent on it unless it is asked for.
#'
#' @section Progress:
#' In interactive sessions a search that runs for more than about two
#' seconds (cli's `getOption("cli.progress_show_after")`) shows a progress
#' bar with the bytes searched of the total (for files: the file bytes of
#' the records searched, of the files' size, compressed bytes for
#' compressed files; a long record counts as its windows are searched), the
#' rate and the time left. It is fed from the engine's counters, read on R's thread
#' a few times a second, and costs nothing measurable. Turn it off with
#' `options(ducksassy.progress = FALSE)`; it is never shown in
#' non-interactive sessions (`Rscript`, `R CMD check`, knitr).
#'
#' @section Missing and empty values:
#' An `NA` text gives `NA` in `sassy_count()` and `sassy_contains()` and no
#' rows in `sassy_search()`. Empty texts and texts shorter than a pattern
#' are searched normally and usually have no hits (count 0). Zero texts give
#' a zero-row data frame with the usual columns or a zero-length result.
#' Patterns may not be `NA` or empty.
#'
#' @section Short records and the lanes switch:
#' Records of up to about two kilobases are joined, a few hundred at a time,
#' into one text with a short separator that matches nothing, so that
#' sassy's SIMD scan runs over them as over one long sequence; hits are
#' mapped back to their records, and a record with a hit that touches its
#' ends is searched again on its own. This holds for `all_endpoints = TRUE`
#' and CRISPR searches too; longer records, `overhang` and `indels = FALSE`
#' go one record at a time.
#' The results are identical either way. For testing and benchmarking only,
#' the environment variable `DUCKSASSY_LANES=off` (read when a search starts)
#' turns the joining off, e.g.
#' `withr::with_envvar(c(DUCKSASSY_LANES = "off"), sassy_count(reads, p))`.
#'
#' @section Many patterns on both strands:
#' Patterns of one length are searched together (sassy's batched search).
#' With `rc = TRUE`, the reverse strand of such a group of A/C/G/T patterns
#' is not searched a second time in full: an exact filter (every pattern's
#' reverse complement cut into `k %/% 2 + 1` pieces, one of which occurs
#' with at most one edit in any hit) finds which patterns can have a
#' reverse-strand hit in a record and where, and only those are searched
#' there, one by one. The hits are exactly those of the full search. The
#' group is searched in full where the filter cannot help: records with a
#' letter other than A, C, G, T (either case), records where more than a
#' sixteenth of the group are candidates, pieces too short to be rare in
#' random text (e.g. 96 barcodes of 24 letters are filtered at `k = 3`, not
#' at `k = 4`), `overhang` and `indels = FALSE`. Such groups are not joined
#' with other records (see "Short records and the lanes switch"). For testing and benchmarking
#' only, `DUCKSASSY_RC_FILTER=off` (read when a search starts) turns the
#' filter off.
#'
#' @section Errors:
#' Bad input raises an error of class `ducksassy_error`, with subclass
#' `ducksassy_input_error`, whose message names the argument, the index of
#' the offending element where there is one, and its value:
#' non-character `texts` or `patterns` (including factors, lists and
#' `NULL`), no patterns, an `NA` or empty pattern, `k` that is not a single
#' whole number `>= 0` or is not below the length of every pattern, an
#' unknown `alphabet`, `rc = TRUE` with `"ascii"`, `overhang` outside `[0, 1]`
#' or with an alphabet other than `"iupac"`, `max_n_frac` outside `[0, 1]` or
#' with `"ascii"`, flags that are not `TRUE` or `FALSE`, `threads` not a whole
#' number in `1..1024`, and letters outside the alphabet in a text or pattern.
#' Interrupting a search (Ctrl-C / Esc) stops it within a fraction of a
#' second with a condition of class `c("ducksassy_interrupt",
#' "ducksassy_error", "interrupt", "condition")`: like R's own interrupt it
#' is not an error, so `try()` and `tryCatch(error = )` do not catch it and
#' Ctrl-C ends a loop of searches; `tryCatch(interrupt = )` does.
#'
#' A search that would hold more hits in memory than
#' `getOption("ducksassy.max_hits")` fails with a `ducksassy_limit_error`
#' instead of returning a truncated table, before memory runs out. The
#' default is the most rows a data frame can have (`.Machine$integer.max`),
#' lowered to one hit per 256 bytes of the machine's RAM (a search holds up
#' to about 140 bytes per hit at its peak). The error says what to do
#' instead: stream the hits into a database table with
#' [sassy_search_table()] (`output = `), count them with `sassy_count()`,
#' narrow the search (smaller `k`, fewer texts per call) or raise the
#' option.
#'
#' @param texts A character vector of sequences to search (the *records*).
#'   Elements may be `NA` (no hits, `NA` count) or empty. Names, if any, are
#'   carried into the `name` column and the row names of counts. Biostrings
#'   `DNAStringSet`, `RNAStringSet` (U read as T), `BStringSet` (any
#'   `XStringSet`) and single `XString`s such as `DNAString` are accepted
#'   too, with the set's names as `name`; large sets are converted and
#'   searched in chunks of records, never all at once.
#' @param patterns A character vector (or Biostrings `XStringSet` /
#'   `XString`) of one or more patterns, none `NA` or empty. Names, if any,
#'   are carried into a `pattern_name` column of the hits and become the
#'   column names of `sassy_count()` / `sassy_contains()` results. Many patterns of equal length are searched
#'   together in SIMD batches, with the same result as one by one.
#' @param k Maximum edit distance (number of substitutions, insertions and
#'   deletions, each costing 1): a single whole number with
#'   `0 <= k < nchar(pattern)` for every pattern. Default `0L`, exact
#'   matches only.
#' @param alphabet `"iupac"` (default), `"dna"` or `"ascii"`; see
#'   *Alphabets and case*.
#' @param rc Also search the reverse complement of each text: `TRUE` or
#'   `FALSE`. `NULL` (default) means `TRUE` for `"dna"` and `"iupac"` and
#'   `FALSE` for `"ascii"`, where `TRUE` is an error.
#' @param all_endpoints `FALSE` (default) reports the rightmost end position
#'   of each local minimum of the cost; `TRUE` reports every end position
#'   with cost `<= k` (many overlapping hits per occurrence). For
#'   `sassy_contains()` it does not change the answer.
#' @param overhang `NULL` (default) or the overhang cost `alpha`, a number in
#'   `[0, 1]`: the pattern may then hang over either end of the text, the
#'   same way at both ends (up to the whole pattern); `o`
#'   pattern letters beyond one end cost `floor(alpha * o)`, and
#'   `pattern_start`, `pattern_end` tell which part of the pattern is
#'   aligned inside the text. With a small `alpha` a pattern can lie wholly
#'   outside a text (cost `floor(alpha * nchar(pattern))` or less), so even
#'   empty texts can have hits. `"iupac"` only. Patterns must then be free
#'   of the masking letter `X` (an error of class `ducksassy_input_error`,
#'   "must be free of the masking letter X when `overhang` is set").
#' @param max_n_frac `NULL` (default, no filter) or a number in `[0, 1]`:
#'   drop hits whose matched text region has a larger fraction of `N`
#'   letters. `"dna"` and `"iupac"` only (`"dna"` texts contain no `N`).
#' @param ignore_case For `"ascii"`: compare letters ignoring case (`TRUE`)
#'   or exactly (`FALSE`, default). `"dna"` and `"iupac"` are always
#'   case-insensitive and ignore this flag.
#' @param ends `NULL` (default) searches whole records. One or two whole
#'   numbers `>= 0` search only the ends of each record, where barcodes and
#'   primers sit: `ends = 150` the first and the last 150 letters, `ends =
#'   c(150, 0)` the first 150 only, `c(0, 100)` the last 100. Each end is
#'   searched as a text of its own (a hit cannot span the unsearched middle,
#'   and `overhang` applies at an end's inner edge too); hits are reported in
#'   the coordinates of the whole record, and a record no longer than both
#'   ends together is searched once, whole. Letters outside the ends are
#'   neither searched nor checked. Not for the CRISPR searches.
#' @param cigar `TRUE` (default) to return the alignment of each hit as a
#'   CIGAR string; `FALSE` leaves the `cigar` column `NA`, which saves time
#'   and memory. Coordinates and costs are exact either way.
#' @param cigar_style The CIGAR convention: `"pattern"` (default, in the
#'   pattern's direction, as sassy writes it) or `"sam"` (along the text's
#'   forward strand, as SAM files have it); see *CIGAR conventions*.
#' @param region `TRUE` to add a `region` column with the matched text;
#'   `FALSE` (default) does not; see *The matched region*.
#' @param threads Number of worker threads for this call, a whole number
#'   from 1 to 1024. Default [sassy_threads()].
#' @param indels `TRUE` (default): `k` counts substitutions, insertions and
#'   deletions. `FALSE`: substitutions only, every placement of the whole
#'   pattern with at most `k` mismatches; see *Substitutions only*.
#'   `overhang` must then be `NULL`.
#' @param sparse `sassy_count()` only (and the count verbs of files and
#'   tables). `FALSE` (default): a dense integer vector or matrix. `TRUE`: a
#'   sparse `Matrix::dgCMatrix` of the same counts, whose memory grows with
#'   the number of hits, not with texts x patterns (100,000 reads x 1,000
#'   patterns take 400 MB dense); see *Value*.
#' @param ... Not used. An argument that is not one of the above (a typo, or
#'   Biostrings' `max.mismatch`) is an error of class
#'   `ducksassy_unknown_argument_error` that names it and, where there is
#'   one, the argument meant (`k`). Arguments match by their full name
#'   only: a prefix (`indel = FALSE` for `indels`) is an error of class
#'   `ducksassy_partial_argument_error` (also a
#'   `ducksassy_unknown_argument_error`) that names the argument meant.
#'
#' @return
#' `sassy_search()`: a base `data.frame` with one row per hit and columns
#'
#' \describe{
#'   \item{`record`}{integer, 1-based index of the text in `texts`.}
#'   \item{`name`}{character, `names(texts)[record]`; only present when
#'     `texts` has names.}
#'   \item{`pattern`}{integer, 1-based index of the pattern in `patterns`.}
#'   \item{`pattern_name`}{character, `names(patterns)[pattern]` (`NA` for
#'     an unnamed one); only present when `patterns` has names.}
#'   \item{`start`, `end`}{integer, 1-based inclusive position of the matched
#'     region in the forward text, on either strand.}
#'   \item{`pattern_start`, `pattern_end`}{integer, 1-based inclusive part of
#'     the pattern that is aligned; always `1` and `nchar(pattern)` unless
#'     `overhang` is used.}
#'   \item{`cost`}{integer, edit distance of the alignment, `0..k`.}
#'   \item{`strand`}{character, `"+"`, or `"-"` when the pattern matched the
#'     reverse complement of the text.}
#'   \item{`cigar`}{character, the alignment in the pattern's direction:
#'     runs of `=` (match), `X` (substitution), `I` (pattern letter missing
#'     from the text) and `D` (text letter missing from the pattern), e.g.
#'     `"2=1X1="`; the number of `X`, `I` and `D` is `cost`. `NA` when
#'     `cigar = FALSE`. With `cigar_style = "sam"`, in SAM's convention.}
#'   \item{`region`}{character, `substr(texts[record], start, end)`; only
#'     with `region = TRUE`.}
#' }
#'
#' Rows are ordered by `record`, `pattern`, `start`, `end` and `strand`
#' (`"+"` first). The same input gives the identical data frame whatever the
#' number of threads.
#'
#' When `texts` has names, the table carries their lengths (for the texts
#' with hits) as the attribute `"seqlengths"`, from which [as_granges()]
#' fills the ranges' `seqinfo`.
#'
#' `sassy_count()`: the number of hits (rows of `sassy_search()`, both
#' strands) per text and pattern, an integer vector named by `names(texts)`
#' when there is one unnamed pattern, otherwise an integer matrix with one
#' row per text and one column per pattern: row names from `names(texts)`,
#' column names from `names(patterns)`, `pattern_1`, `pattern_2`, ... for
#' unnamed patterns (made unique with [make.unique()]), the rule of the
#' count columns of [sassy_search_fastx()] and [sassy_search_table()]. A
#' single named pattern gives a one-column matrix, so its name is kept.
#' `NA` for `NA` texts.
#'
#' With `sparse = TRUE`, `sassy_count()` returns a `Matrix::dgCMatrix`
#' with one row per text and one column per pattern, always a matrix (one
#' unnamed pattern gives one column, `pattern_1`), with the dimnames of the
#' dense matrix and the same counts: `as.matrix()` of it equals the dense
#' matrix (`matrix(dense)` for one unnamed pattern), the values stored as
#' doubles, as in every `dgCMatrix`. Cells without hits are not stored;
#' the rows of `NA` texts are `NA` (stored), as in the dense result. The
#' counts are tabulated from the hits of the search (the same hits as
#' `sassy_search()`, without CIGARs), so it takes about the time of
#' `sassy_search(cigar = FALSE)`, holds the hits meanwhile and is subject
#' to `getOption("ducksassy.max_hits")`, whereas the dense count is not; the
#' check that a dense matrix fits in memory does not apply.
#'
#' `sassy_contains()`: the logical equivalent, `TRUE` where the count is at
#' least one.
#'
#' @references
#' Beeloo R, Groot Koerkamp R (2026). "Sassy: fuzzy searching DNA sequences
#' using SIMD." *Bioinformatics*. \doi{10.1093/bioinformatics/btag244}.
#'
#' Beeloo R, Groot Koerkamp R (2026). "Sassy2: Batch Searching of Short DNA
#' Patterns." *bioRxiv*. \doi{10.64898/2026.03.10.710811}.
#'
#' @seealso [sassy_threads()] for the default number of threads.
#' @export
#' @examples
#' texts <- c(r1 = "AAAATTGAAA", r2 = "CCCATCACCC", r3 = NA, r4 = "")
#'
#' # One substitution allowed, both strands (the default for "iupac")
#' sassy_search(texts, "ATCG", k = 1)
#'
#' # How many hits, and which texts have one
#' sassy_count(texts, "ATCG", k = 1)
#' sassy_contains(texts, c(p1 = "ATCG", p2 = "GATTACA"), k = 1)
#'
#' # Counts of many texts x patterns with few hits: a sparse matrix
#' sassy_count(texts, c(p1 = "ATCG", p2 = "GATTACA"), k = 1, sparse = TRUE)
#'
#' # Substitutions only (Hamming distance), as Biostrings' with.indels = FALSE
#' sassy_search("AAAATTGAAA", "ATCG", k = 2, indels = FALSE)
#'
#' # Forward strand only, every end position
#' sassy_search(texts, "ATCG", k = 1, rc = FALSE, all_endpoints = TRUE)
#'
#' # IUPAC codes: R matches A or G
#' sassy_search("TTGGATCC", "GRAT")
#'
#' # CIGARs as SAM has them, and the matched text
#' sassy_search(texts, "ATCG", k = 1, cigar_style = "sam", region = TRUE)
#'
#' # Plain text, ignoring case
#' sassy_search("Say Hallo World", "hello", k = 1, alphabet = "ascii",
#'   ignore_case = TRUE)
#'
#' # Bad input is a classed error
#' try(sassy_search("ACGT", "ACGT", k = 4))
sassy_search <- search_verb("hits", "vector")

#' @rdname sassy_search
#' @export
sassy_count <- search_verb("count", "vector")

#' @rdname sassy_search
#' @export
sassy_contains <- search_verb("contains", "vector")

#' The three vector verbs (search_verb() in arguments.R)
#'
#' @param mode "hits", "count" or "contains".
#' @param cigar,cigar_style,region The hit verb's; the count verbs search
#'   without CIGARs.
#' @param call The verb's frame.
#' @noRd
search_vector <- function(mode, texts, patterns, k, alphabet, rc,
                          all_endpoints, overhang, max_n_frac, ignore_case,
                          cigar = FALSE, cigar_style = NULL, region = FALSE,
                          threads, indels, ends = NULL, sparse = FALSE, call) {
  hits <- mode == "hits"
  sparse <- check_flag(sparse, "sparse", call = call)
  plan <- new_search_plan(
    texts, patterns, k, alphabet, rc, all_endpoints, overhang, max_n_frac,
    ignore_case, cigar, threads,
    indels = indels, call = call, check = FALSE, ends = ends
  )
  if (!hits && !sparse) {
    check_result_size(length(plan$texts), length(plan$patterns), call = call)
  }
  warn_if_swapped(plan$texts, plan$patterns, verb_name(mode, "vector"),
    call = call, overhang = plan$overhang, k = plan$k
  )
  if (sparse) {
    # from the hit stream (without CIGARs): memory grows with the hits, not
    # with texts x patterns
    cols <- run_search(plan, "hits", call = call)
    return(new_sparse_counts(cols$record, cols$pattern, plan$texts,
      plan$patterns, call = call
    ))
  }
  if (!hits) {
    # the binding sets the shape: R would duplicate the records x patterns
    # matrix to set it here
    values <- run_search(plan, mode, call = call, attrs = count_attrs(plan$texts, plan$patterns))
    type <- if (mode == "count") "integer" else "logical"
    return(new_counts(values, plan$texts, plan$patterns, type, call = call))
  }
  cigar_style <- check_cigar_style(cigar_style, call = call)
  region <- check_flag(region, "region", call = call)
  cols <- run_search(plan, "hits", call = call)
  out <- new_hits(cols, names(plan$texts), call = call,
    pattern_names = names(plan$patterns)
  )
  out <- finish_hits(out, nchar(plan$patterns, type = "bytes"), cigar_style,
    texts = if (region) plan$texts, call = call
  )
  with_text_lengths(out, plan$texts)
}

#' Call the binding with a checked plan
#'
#' The only place the package calls the search entry point; an error value
#' coming back is re-raised as an R condition.
#' @noRd
run_search <- function(plan, mode, call = rlang::caller_env(),
                       record_offset = 0L, progress = NULL, attrs = NULL) {
  if (is_xstringset(plan$texts)) {
    # Biostrings sets are converted and searched in chunks (bioc.R)
    return(run_xstringset(plan, mode, length(plan$patterns), function(p, offset, progress) {
      run_search(p, mode, call, record_offset = offset, progress = progress)
    }, call = call))
  }
  if (is.null(progress)) {
    progress <- new_progress(search_label(plan$texts), "bytes")
    on.exit(progress_done(progress), add = TRUE)
  }
  res <- ds_search_plan(plan, mode, max_hits_option(call = call), progress_callback(progress), attrs)
  rust_result(res, call = call, offset = record_offset, patterns = plan$patterns)
}

# The progress bar's label for a search of `texts`.
search_label <- function(texts) {
  count_label("Searching", length(texts), "text")
}

# The binding call for checked arguments (the vector and table searches
# use it); the plan is built in plan.R.
ds_search_plan <- function(plan, mode, max_hits, progress = NULL, attrs = NULL) {
  ds_search(plan$texts, as_plan(plan, mode, max_hits), progress, attrs)
}
