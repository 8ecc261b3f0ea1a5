#' Search a sequence column of a database table
#'
#' @description
#' Search the sequences stored in a column of a database table (or of the
#' result of a query) for approximate occurrences of `patterns`, as
#' [sassy_search()], [sassy_count()] and [sassy_contains()] do for a
#' character vector. Any DBI connection works; DuckDB (the `duckdb` package)
#' is read through its Arrow stream. The rows are read and searched in chunks
#' of `chunk_rows`, so the table is never held in R as a whole: memory is
#' bounded by two chunks and the result (or, with `output`, two chunks' hits).
#'
#' @section Tables, queries and identifiers:
#' `table` is one of
#'
#' * a table (or view) name, a single string: `"reads"`. The name is quoted
#'   as one identifier by [DBI::dbQuoteIdentifier()], so a name with spaces,
#'   quotes, dots or semicolons is taken literally and nothing is ever pasted
#'   into SQL. A name like `"main.reads"` is therefore a table whose name
#'   contains a dot; use `DBI::Id()` for a schema-qualified table.
#' * a `DBI::Id()`, e.g. `DBI::Id(schema = "main", table = "reads")`.
#' * a `DBI::SQL()` query, e.g.
#'   `DBI::SQL("SELECT name, seq FROM reads WHERE length(seq) > 50")`. The
#'   query is run as given; its result must contain `column` and the `id`
#'   columns. This is the way to filter rows, order them, join tables, cast
#'   a column to text or rename columns.
#'
#' The names in `column`, `id` and `output` are quoted by DBI as well. A
#' table given by name (or `Id`) is checked before anything is read: a
#' missing table, a missing `column` or `id` column is an error that names
#' the table and lists its columns. Only `column` and the `id` columns are
#' read.
#'
#' @section Results:
#' The rows of the table are numbered in the order the database returns
#' them (for a table, usually the insertion order; give a `DBI::SQL()` query
#' with `ORDER BY` for a defined order), and the result keeps that order:
#' hits are ordered by row, then as for [sassy_search()] by pattern, start,
#' end and strand. The search of every chunk is exactly that of
#' [sassy_search()] on the chunk's sequences, so the hits are those of
#' `sassy_search()` on the whole column, row for row, whatever `chunk_rows`
#' and the number of threads; only the `id` columns take the place of
#' `record`.
#'
#' A `NULL` (missing) sequence has no hits and `NA` counts; an empty one is
#' searched as usual. The sequence column must be text (`VARCHAR`, `TEXT`);
#' a factor (DuckDB `ENUM`) is read as text too, other types are an error
#' (cast them in a `DBI::SQL()` query).
#'
#' The `id` columns come back as R reads them from the driver: a 64-bit
#' integer (`BIGINT`, `HUGEINT`) becomes a double, exact only up to 2^53
#' (9,007,199,254,740,992), and is written to an `output` table as such. For
#' larger keys select them as text, e.g.
#' `DBI::SQL("SELECT CAST(id AS VARCHAR) AS id, sequence FROM reads")`.
#'
#' @section Writing hits to a table:
#' With `output`, the result is not returned but appended to the table
#' `output` on the same connection `con`: results larger than R's memory
#' end up in the database. While the rows are read, each chunk's result is
#' kept in a temporary file in [tempdir()] (DBI drivers, DuckDB and SQLite
#' among them, cannot write on a connection while one of its queries is
#' being read); when the whole table has been searched, the chunks are
#' appended to `output` one by one, inside a transaction (unless one is
#' already open on `con`). A table that does not exist is created with the
#' column types of the result ([DBI::dbCreateTable()]): integers for the
#' coordinates, counts and cost, text for `strand` and `cigar`, and the
#' types of the `id` columns as R reads them. An existing table must have
#' exactly the result's column names, with compatible types (numbers for
#' numbers, text for text), or nothing is written and an error says which
#' column does not fit. When the search fails or is interrupted, nothing is
#' written to `output`; a failure while writing rolls the transaction back.
#' `output` may be the table being searched.
#'
#' @section Memory and interrupts:
#' The rows are read in chunks of `chunk_rows` rows: with DuckDB, batches
#' of its Arrow stream ([DBI::dbSendQueryArrow()] and
#' [DBI::dbFetchArrowChunk()], through `nanoarrow`, `duckdb` >= 1.5.4);
#' with other drivers, [DBI::dbSendQuery()] and `dbFetch(n = chunk_rows)`.
#' (Older `duckdb` versions, or a missing `nanoarrow`, fall back to
#' `dbFetch()`, which in `duckdb` reads the whole result into memory
#' first.) No fetch asks for more than 1,000,000 rows, whatever
#' `chunk_rows` (drivers allocate for the rows asked before reading any).
#'
#' The database and the search work at the same time: while the worker
#' threads search one chunk, R fetches the next (and turns the previous
#' chunk's hits into rows of the result). At most two chunks are held at a
#' time. With DuckDB the sequences are searched where they are, in the
#' Arrow batch, without becoming R strings (for text columns; an `ENUM` or
#' other type is converted to R first), and the batch is released as soon
#' as its search has finished; the `id` columns are converted to R. With
#' other drivers the chunk's character vector is searched. Set
#' `options(ducksassy.table_overlap = FALSE)` to fetch, convert and search
#' in turn instead (same results; slower, for comparison). After every
#' 8 MiB of sequences read as R strings (or a quarter of R's live heap, if
#' more) R's garbage collector is run, so that a long scan does not pile
#' up several chunks' worth of garbage (the option
#' `ducksassy.table_gc_bytes` sets the 8 MiB; `Inf` never collects).
#'
#' What grows with the table is only the result: the hits, or for counts
#' one row per table row (its `id` columns and one value per pattern). For
#' counts of a DuckDB table (not a view or query), the number of rows is
#' read first and the result columns are filled in place; otherwise they are
#' bound from the chunks' results at the end. For very large results use
#' `output`, or `id` to carry fewer columns. DuckDB itself caches the blocks
#' of a database file that a scan reads, up to its `memory_limit` setting
#' (default 80% of RAM; `DBI::dbExecute(con, "SET memory_limit = '1GB'")`);
#' that memory is DuckDB's, outside R.
#'
#' Interrupting (Ctrl-C / Esc) stops the search of the current chunk within
#' a fraction of a second and signals a `ducksassy_interrupt` condition
#' (or R's own `interrupt` condition, when it comes while R fetches a
#' chunk). Like R's interrupt it is not an error (class
#' `c("ducksassy_interrupt", "ducksassy_error", "interrupt", "condition")`,
#' as for [sassy_search()]): `try()` and `tryCatch(error = )` do not catch
#' it, `tryCatch(interrupt = )` does; any
#' search still running in the background is stopped and waited for, and
#' the result set is always cleared, so the connection stays usable. The
#' same holds when the database raises an error while a search runs. In interactive sessions a
#' progress bar (cli) shows the rows searched, with a total and an ETA for a
#' DuckDB table; set `options(ducksassy.progress = FALSE)` to turn it off.
#'
#' @section Errors:
#' Errors have class `ducksassy_error`:
#'
#' * `ducksassy_input_error`: `con` is not a valid DBI connection; `table`
#'   is not a name, `DBI::Id` or `DBI::SQL`; the table does not exist;
#'   `column` or an `id` column is not in the table (or query result);
#'   the sequence column is not text; an `id` column is named like a hit
#'   column (`pattern`, `start`, ...; rename it in a query); `chunk_rows` is
#'   not a whole number `>= 1`; `output` is not a name or `DBI::Id`, or an
#'   existing `output` table whose columns do not fit the result; an
#'   unknown or unnamed argument in `...`; and every error of
#'   [sassy_search()]'s arguments. A letter outside the alphabet names the
#'   row (in scan order), its `id` values and the position.
#' * `ducksassy_output_type_error` (also a `ducksassy_input_error`): with
#'   `output`, an `id` column that no table can take as it is read (a
#'   DuckDB `STRUCT`, read as a data frame column, or a `LIST`, `ARRAY` or
#'   `MAP`, read as a list); `id` columns must then be text, numbers,
#'   logicals, dates or date-times. Checked before anything is searched;
#'   cast the column in a `DBI::SQL()` query.
#' * `ducksassy_db_error` (also a `ducksassy_input_error`): the database
#'   refused a query (a syntax error in a `DBI::SQL()` query, say) or a
#'   write; the driver's error is the parent condition.
#' * `ducksassy_limit_error`: more hits than `getOption("ducksassy.max_hits")`
#'   would be held in memory (not with `output`, where only one chunk's hits
#'   are).
#' * `ducksassy_dependency_error`: the `DBI` package is not installed.
#'
#' An interrupt (Ctrl-C / Esc) is not an error: it is a condition of class
#' `c("ducksassy_interrupt", "ducksassy_error", "interrupt", "condition")`;
#' see *Memory and interrupts*.
#'
#' @param con A DBI connection ([DBI::dbConnect()]), e.g. to DuckDB
#'   (`duckdb::duckdb()`) or SQLite (`RSQLite::SQLite()`).
#' @param table The rows to search: a table name (a single string), a
#'   `DBI::Id()`, or a `DBI::SQL()` query; see *Tables, queries and
#'   identifiers*.
#' @param patterns A character vector of one or more patterns, none `NA` or
#'   empty. For `sassy_count_table()` and `sassy_contains_table()`, pattern names (or
#'   `pattern_1`, `pattern_2`, ... for unnamed ones) become column names.
#' @param column Name of the column that holds the sequences, a single
#'   string. Default `"sequence"`.
#' @param id Names of the columns that identify a row in the result, a
#'   character vector. `NULL` (default) means every column of the table (or
#'   query) but `column`. `character(0)` carries none; the result then has a
#'   `record` column, the row number in scan order, as has a table with no
#'   other column than `column`.
#' @param ... Not used: an unknown argument is an error naming it and the
#'   argument meant, as for [sassy_search()]. The search arguments
#'   (`alphabet`, `rc`, ...) have the defaults and meaning of
#'   [sassy_search()]'s. With `region = TRUE` the sequence column is also
#'   read into R (to cut the regions from), which a search of a DuckDB
#'   table otherwise avoids. (`what = ` was removed: use
#'   `sassy_count_table()` or `sassy_contains_table()`.)
#' @param sparse `sassy_count_table()` only. `FALSE` (default): a data
#'   frame with one column per pattern. `TRUE`: a sparse
#'   `Matrix::dgCMatrix` of the same counts, one row per table row, with
#'   the `id` columns (or `record`) as its attribute `"records"`; its
#'   memory grows with the hits (and the `id` columns), not with rows x
#'   patterns. Not with `output`. See *Value*.
#' @param chunk_rows Number of rows read and searched at a time, a whole
#'   number `>= 1`. Default `100000`; values above 1,000,000 read 1,000,000
#'   rows at a time. It bounds memory (about two chunks: `2 * chunk_rows`
#'   times the length of a sequence, plus the chunk's hits) and never
#'   changes the result.
#' @param output `NULL` (default) to return the result, or the name of a
#'   table on `con` (a single string or a `DBI::Id()`) to append it to; see
#'   *Writing hits to a table*.
#' @param BPPARAM `NULL` (default): search in this R session. Or a
#'   BiocParallel parameter object: the rows are split into ranges (one per
#'   worker, or `getOption("ducksassy.shard_rows")` rows each) that the
#'   workers read from their own read-only connection to the same DuckDB or
#'   SQLite database file, and the results are bound in row order: identical
#'   to the result without `BPPARAM` when the database returns the rows in
#'   the same order each time (a table scan, or a query with `ORDER BY`).
#'   Not with `output`. See [sharding] for the rules and errors.
#' @inheritParams sassy_search
#'
#' @return
#' Without `output`, a base `data.frame`.
#'
#' `sassy_search_table()`: one row per hit, with columns
#'
#' \describe{
#'   \item{the `id` columns}{the identifying columns of the row the hit is
#'     in, as R reads them from the database (e.g. integer, double,
#'     character). Without `id` columns, `record`: integer, the 1-based row
#'     number in scan order.}
#'   \item{`pattern`}{integer, 1-based index of the pattern in `patterns`.}
#'   \item{`start`, `end`}{integer, 1-based inclusive position of the matched
#'     region in the row's sequence, on either strand.}
#'   \item{`pattern_start`, `pattern_end`}{integer, 1-based inclusive part of
#'     the pattern that is aligned; `1` and `nchar(pattern)` unless
#'     `overhang` is used.}
#'   \item{`cost`}{integer, edit distance of the alignment, `0..k`.}
#'   \item{`strand`}{character, `"+"`, or `"-"` for the reverse complement.}
#'   \item{`cigar`}{character, the alignment as in [sassy_search()]; `NA`
#'     with `cigar = FALSE`.}
#' }
#'
#' `sassy_count_table()` and `sassy_contains_table()`: one row per table row (in scan
#' order): the `id` columns (or `record`), then one column per pattern,
#' integer counts of hits on both strands (`"count"`) or logical
#' (`"contains"`), `NA` for a `NULL` sequence, named by `names(patterns)` or
#' `pattern_1`, `pattern_2`, ... (made unique with [make.unique()] where
#' names repeat or clash with the `id` columns).
#'
#' With `sparse = TRUE`, `sassy_count_table()` returns a `Matrix::dgCMatrix`
#' with one row per table row (in scan order) and one column per pattern,
#' named as the data frame's count columns, holding the same counts (as
#' doubles; cells without hits are not stored, the rows of `NULL`
#' sequences are `NA`, stored). Its row names are the values of the `id`
#' column, as text, when `id` is exactly one column, otherwise it has none.
#' The identifying columns of the data frame (the `id` columns, or
#' `record`) are its attribute `"records"`, a data frame with one row per
#' matrix row, so that `cbind(attr(m, "records"), as.matrix(m))` has the
#' values of the data frame; Matrix operations (subsetting, arithmetic)
#' drop the attribute, so take it first. The counts are tabulated from the
#' hits of the search (those of `sassy_search_table(cigar = FALSE)`),
#' which are held meanwhile and subject to
#' `getOption("ducksassy.max_hits")`, and always in R (not by the SQL
#' functions inside DuckDB). With `output` it is an error of class
#' `ducksassy_input_error`. With `BPPARAM`, the shards' matrices are bound
#' in order: the same result.
#'
#' With `output`: the number of rows appended to `output` (hits, or table
#' rows for counts), a double, invisibly.
#'
#' @seealso [sassy_search()] for the search itself, the hit columns and the
#'   search arguments; [sassy_search_fastx()] for FASTA/FASTQ files.
#' @export
#' @order 1
#' @examplesIf requireNamespace("DBI", quietly = TRUE) && requireNamespace("RSQLite", quietly = TRUE)
#' con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
#' DBI::dbWriteTable(con, "reads", data.frame(
#'   name = c("r1", "r2", "r3", "r4"),
#'   sequence = c("AAAATTGAAA", "CCCATCACCC", NA, "GGATCGGG")
#' ))
#'
#' # Hits with up to 1 edit, both strands; `name` identifies the row
#' sassy_search_table(con, "reads", "ATCG", k = 1)
#'
#' # Counts and presence per row, one column per pattern
#' sassy_count_table(con, "reads", c(p1 = "ATCG", p2 = "GATTACA"), k = 1)
#' sassy_contains_table(con, "reads", "ATCG", k = 1, rc = FALSE)
#'
#' # The counts as a sparse matrix, named by the `name` column
#' sassy_count_table(con, "reads", c(p1 = "ATCG", p2 = "GATTACA"), k = 1,
#'   id = "name", sparse = TRUE)
#'
#' # A query: any SQL the database runs, e.g. to filter rows
#' sassy_search_table(con,
#'   DBI::SQL("SELECT name, sequence FROM reads WHERE name <> 'r1'"),
#'   "ATCG", k = 1)
#'
#' # Append the hits to a table in the database instead of returning them
#' n <- sassy_search_table(con, "reads", "ATCG", k = 1, output = "hits")
#' n
#' DBI::dbReadTable(con, "hits")
#'
#' # Errors are classed and name the table and column
#' try(sassy_search_table(con, "reads", "ATCG", column = "seq"))
#' DBI::dbDisconnect(con)
#'
#' @examplesIf requireNamespace("DBI", quietly = TRUE) && requireNamespace("duckdb", quietly = TRUE) && requireNamespace("nanoarrow", quietly = TRUE)
#' # The same with DuckDB, read through its Arrow stream in chunks of 2 rows
#' con <- DBI::dbConnect(duckdb::duckdb())
#' DBI::dbWriteTable(con, "reads", data.frame(
#'   id = 1:3, sequence = c("AAAATTGAAA", "CCCATCACCC", "GGATCGGG")
#' ))
#' sassy_search_table(con, "reads", "ATCG", k = 1, chunk_rows = 2)
#' DBI::dbDisconnect(con, shutdown = TRUE)
sassy_search_table <- search_verb("hits", "table")

#' @rdname sassy_search_table
#' @order 2
#' @export
sassy_count_table <- search_verb("count", "table")

#' @rdname sassy_search_table
#' @order 3
#' @export
sassy_contains_table <- search_verb("contains", "table")

#' The three table verbs (search_verb() in arguments.R)
#'
#' @param mode "hits", "count" or "contains".
#' @param sparse `sassy_count_table()`'s: counts as a dgCMatrix (sparse.R).
#' @param args The search arguments of the verb, by name (the hit verb's
#'   `cigar`, `cigar_style` and `region` as well).
#' @noRd
search_table <- function(mode, con, table, patterns, k, column, id, args,
                         chunk_rows, output, BPPARAM, sparse = FALSE, call) {
  sparse <- check_flag(sparse, "sparse", call = call)
  if (sparse && !is.null(output)) {
    abort_sparse_output(call)
  }
  check_dbi_installed(call = call)
  check_connection(con, call = call)
  # `threads = NULL` is this session's default, as it was when the search
  # arguments came through `...`
  if (is.null(args$threads)) {
    args$threads <- sassy_threads()
  }
  plan <- new_verb_plan(mode, patterns, k, args, call)
  fn <- verb_name(mode, "table")
  # sparse counts: the hits (without CIGARs) tallied per row (sparse.R)
  engine <- table_search_engine(plan, if (sparse) "hits" else mode)
  engine$sparse <- sparse
  search_table_rows(
    con, table, column, id, chunk_rows, output, BPPARAM,
    engine, fn,
    search_args = c(list(patterns = patterns, k = k), args,
      if (sparse) list(sparse = TRUE)
    ),
    patterns = patterns, what = "patterns", call = call
  )
}

#' The search of a table's chunks for scan_table(): in the background on
#' the worker threads (from an Arrow batch in place, or a character vector),
#' or at once as sassy_search() does.
#' @noRd
table_search_engine <- function(plan, mode) {
  list(
    mode = mode,
    plan = plan,
    submit = function(texts, batch, limit) {
      ds_table_submit(
        if (is.null(batch)) texts else batch$array,
        if (is.null(batch)) 0L else batch$index,
        if (is.null(batch)) "" else batch$format,
        as_plan(plan, mode, limit)
      )
    },
    search = function(texts, limit) {
      plan$texts <- texts
      ds_search_plan(plan, mode, limit)
    }
  )
}
