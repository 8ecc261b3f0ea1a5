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
#' a fraction of a second and raises a `ducksassy_interrupt` error (or R's
#' `interrupt` condition, when it comes while R fetches a chunk); any
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
#' * `ducksassy_db_error` (also a `ducksassy_input_error`): the database
#'   refused a query (a syntax error in a `DBI::SQL()` query, say) or a
#'   write; the driver's error is the parent condition.
#' * `ducksassy_limit_error`: more hits than `getOption("ducksassy.max_hits")`
#'   would be held in memory (not with `output`, where only one chunk's hits
#'   are).
#' * `ducksassy_interrupt`: the user interrupted the search.
#' * `ducksassy_dependency_error`: the `DBI` package is not installed.
#'
#' @param con A DBI connection ([DBI::dbConnect()]), e.g. to DuckDB
#'   (`duckdb::duckdb()`) or SQLite (`RSQLite::SQLite()`).
#' @param table The rows to search: a table name (a single string), a
#'   `DBI::Id()`, or a `DBI::SQL()` query; see *Tables, queries and
#'   identifiers*.
#' @param patterns A character vector of one or more patterns, none `NA` or
#'   empty. With `what = "count"` or `"contains"`, pattern names (or
#'   `pattern_1`, `pattern_2`, ... for unnamed ones) become column names.
#' @param column Name of the column that holds the sequences, a single
#'   string. Default `"sequence"`.
#' @param id Names of the columns that identify a row in the result, a
#'   character vector. `NULL` (default) means every column of the table (or
#'   query) but `column`. `character(0)` carries none; the result then has a
#'   `record` column, the row number in scan order, as has a table with no
#'   other column than `column`.
#' @param what `"hits"` (default), one row per hit as [sassy_search()];
#'   `"count"`, the number of hits per row and pattern as [sassy_count()];
#'   or `"contains"`, whether each row has a hit of each pattern as
#'   [sassy_contains()].
#' @param ... Search arguments of [sassy_search()], by name: `alphabet`,
#'   `rc`, `all_endpoints`, `overhang`, `max_n_frac`, `ignore_case`,
#'   `cigar`, `cigar_style`, `region` (these three for hits only),
#'   `threads` and `indels`, with the same defaults and meaning. Any other
#'   argument is an error. With `region = TRUE` the sequence column is also
#'   read into R (to cut the regions from), which a search of a DuckDB table
#'   otherwise avoids.
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
#' With `what = "hits"`, one row per hit, with columns
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
#' With `what = "count"` or `"contains"`, one row per table row (in scan
#' order): the `id` columns (or `record`), then one column per pattern,
#' integer counts of hits on both strands (`"count"`) or logical
#' (`"contains"`), `NA` for a `NULL` sequence, named by `names(patterns)` or
#' `pattern_1`, `pattern_2`, ... (made unique with [make.unique()] where
#' names repeat or clash with the `id` columns).
#'
#' With `output`: the number of rows appended to `output` (hits, or table
#' rows for counts), a double, invisibly.
#'
#' @seealso [sassy_search()] for the search itself, the hit columns and the
#'   search arguments; [sassy_search_fastx()] for FASTA/FASTQ files.
#' @export
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
#' sassy_search_table(con, "reads", c(p1 = "ATCG", p2 = "GATTACA"),
#'   k = 1, what = "count")
#' sassy_search_table(con, "reads", "ATCG", k = 1, what = "contains",
#'   rc = FALSE)
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
sassy_search_table <- function(con,
                               table,
                               patterns,
                               k = 0L,
                               column = "sequence",
                               id = NULL,
                               what = c("hits", "count", "contains"),
                               ...,
                               chunk_rows = 100000L,
                               output = NULL,
                               BPPARAM = NULL) {
  call <- rlang::current_env()
  check_dbi_installed(call = call)
  check_connection(con, call = call)
  args <- table_search_args(list(...), call = call)
  plan <- new_search_plan(
    character(), patterns, k, args$alphabet, args$rc, args$all_endpoints,
    args$overhang, args$max_n_frac, args$ignore_case, args$cigar,
    args$threads,
    indels = args$indels, call = call
  )
  what <- check_what(what, call = call)
  if (what != "hits") {
    plan$cigar <- FALSE
  }
  plan$cigar_style <- check_cigar_style(args$cigar_style, call = call)
  plan$region <- check_flag(args$region, "region", call = call) && what == "hits"
  column <- check_column_name(column, call = call)
  id <- check_id(id, call = call)
  chunk_rows <- check_chunk_rows(chunk_rows, call = call)
  output <- check_output_name(output, call = call)
  max_hits <- max_hits_option(call = call)
  if (!is.null(BPPARAM)) {
    return(shard_table(
      con, table, column, id, chunk_rows, output, BPPARAM,
      search = sassy_search_table,
      search_args = c(list(patterns = patterns, k = k, what = what), list(...)),
      hits = what == "hits", call = call
    ))
  }

  # Everything that talks to the database before the rows are read: no query
  # may run on `con` while the rows are being read.
  src <- new_table_source(con, table, column, id, call = call, hint = function() {
    swapped_hint(patterns, function(p) DBI::dbExistsTable(con, p), "sassy_search_table", "table")
  })
  out_spec <- if (!is.null(output)) new_output_spec(con, output, call = call)
  # The row count of a table, where it is cheap to know (a DuckDB table):
  # the progress bar's total, and, for counts returned to R, the size of the
  # result, so that it is filled in place rather than bound from pieces at
  # the end (which would hold it twice).
  total <- NA_real_
  show_progress <- progress_wanted()
  prefill <- what != "hits" && is.null(out_spec)
  if (show_progress || prefill) {
    total <- cheap_row_count(con, table, src)
  }

  reader <- open_table_reader(con, src, chunk_rows, call = call)
  on.exit(close_table_reader(reader), add = TRUE)
  # the sequences are also needed in R to cut the `region` column from
  # (only then: a search in place of an Arrow batch does not copy them)
  reader$keep_sequence <- column %in% id || plan$region
  if (!is.null(out_spec)) {
    spool <- new_spool()
    on.exit(close_spool(spool), add = TRUE)
  }
  # The search of a chunk runs in the background while the next one is
  # fetched; whatever ends this call (an error, an interrupt) first stops
  # that search and waits for its threads, before the reader is closed.
  searcher <- new_chunk_searcher(plan, what, src, column, max_hits, call)
  searcher$output <- !is.null(out_spec)
  on.exit(cancel_chunk_search(searcher), add = TRUE, after = FALSE)

  progress <- if (show_progress) new_progress(paste("Searching", src$label), "rows", total)
  on.exit(progress_done(progress), add = TRUE)

  mode <- what
  pace <- new_gc_pace()
  rows_done <- 0
  n_out <- 0
  pieces <- list()
  filled <- NULL # the prefilled result columns, or NULL
  n_filled <- 0
  template <- NULL
  # hits still allowed, not counting `pending` found but not yet counted
  limit_now <- function(pending = 0) {
    if (is.null(out_spec) && mode == "hits") max_hits - n_out - pending else max_hits
  }
  # Pipeline: chunk i+1 is fetched while chunk i is searched; chunk i's
  # result is made into a piece while chunk i+1 is searched.
  chunk <- fetch_search_chunk(reader, column, call = call)
  cols <- resolve_table_columns(src, chunk$names, column, id, call = call)
  start_chunk_search(searcher, chunk, rows_done, limit_now())
  while (!is.null(chunk)) {
    following <- fetch_search_chunk(reader, column, call = call)
    table_test_hook("fetched")
    res <- finish_chunk_search(searcher, cols)
    n_res <- if (mode == "hits") length(res$record) else 0L
    if (!is.null(following)) {
      start_chunk_search(searcher, following, rows_done + chunk$n, limit_now(n_res))
    }
    piece <- if (mode == "hits") {
      finish_table_piece(
        table_hits_piece(res, chunk$data, cols, rows_done, names(plan$patterns)),
        res, chunk$data, column, plan
      )
    } else {
      table_values_piece(res, chunk$data, cols, rows_done, chunk$n, plan$patterns)
    }
    if (is.null(template)) {
      template <- new_data_frame(lapply(piece, function(x) x[0L]), 0L)
      if (!is.null(out_spec)) {
        check_output_fit(out_spec, template, call = call)
      }
      if (prefill && can_prefill(template, total)) {
        filled <- lapply(template, function(x) vector(typeof(x), total))
      }
    }
    n_piece <- length(piece[[1L]])
    if (n_piece > 0L) {
      if (!is.null(out_spec)) {
        write_spool(spool, piece)
      } else if (!is.null(filled) && n_filled + n_piece <= total) {
        # in place: `filled` and its columns are not shared
        at <- n_filled + seq_len(n_piece)
        for (j in seq_along(filled)) {
          filled[[j]][at] <- piece[[j]]
        }
        n_filled <- n_filled + n_piece
      } else {
        if (!is.null(filled)) {
          # more rows than counted (the table grew): bind pieces instead
          pieces <- list(lapply(filled, function(x) x[seq_len(n_filled)]))
          filled <- NULL
        }
        pieces[[length(pieces) + 1L]] <- piece
      }
    }
    n_out <- n_out + n_piece
    rows_done <- rows_done + chunk$n
    read_bytes <- chunk_garbage_bytes(chunk, column)
    chunk <- following
    rm(following, res, piece)
    gc_pace_step(pace, read_bytes)
    progress_update(progress, rows_done)
  }
  close_table_reader(reader)

  if (!is.null(out_spec)) {
    write_output(con, out_spec, template, spool, call = call)
    return(invisible(as.double(n_out)))
  }
  if (!is.null(filled)) {
    if (n_filled < total) {
      filled <- lapply(filled, function(x) x[seq_len(n_filled)])
    }
    return(new_data_frame(filled, n_filled))
  }
  combine_pieces(pieces, template)
}

# ---------------------------------------------------------------------------
# Arguments

# The search arguments sassy_search_table() takes through `...`, with the
# defaults of sassy_search().
table_search_defaults <- function() {
  list(
    alphabet = alphabets,
    rc = NULL,
    all_endpoints = FALSE,
    overhang = NULL,
    max_n_frac = NULL,
    ignore_case = FALSE,
    cigar = TRUE,
    cigar_style = cigar_styles,
    region = FALSE,
    threads = NULL,
    indels = TRUE
  )
}

table_search_args <- function(dots, call = rlang::caller_env()) {
  defaults <- table_search_defaults()
  nms <- names(dots)
  if (length(dots) > 0L && (is.null(nms) || any(is.na(nms) | nms == ""))) {
    i <- if (is.null(nms)) 1L else which(is.na(nms) | nms == "")[[1L]]
    ducksassy_abort(
      c(
        "Arguments in `...` must be named search arguments.",
        x = paste0("Argument ", i, " in `...` has no name."),
        i = paste0(
          "The search arguments are ",
          paste0("`", names(defaults), "`", collapse = ", "), "."
        )
      ),
      arg = "...",
      index = i,
      call = call
    )
  }
  bad <- setdiff(nms, names(defaults))
  if (length(bad) > 0L) {
    # the same classed error, with the argument meant, as every function's
    # unknown arguments (dots.R)
    known <- c(
      setdiff(names(formals(sassy_search_table)), "..."), names(defaults)
    )
    abort_extra_args(bad, known, "sassy_search_table", call)
  }
  dup <- nms[duplicated(nms)]
  if (length(dup) > 0L) {
    ducksassy_abort(
      c(
        "Each argument in `...` must be given once.",
        x = paste0("`", cli_escape(dup[[1L]]), "` is given more than once.")
      ),
      arg = "...",
      value = dup[[1L]],
      call = call
    )
  }
  args <- defaults
  # `args[nm] <- list(value)` keeps explicit NULLs (rc = NULL, overhang = NULL)
  for (nm in nms) {
    args[nm] <- list(dots[[nm]])
  }
  if (is.null(args$threads)) {
    args$threads <- sassy_threads()
  }
  args
}

check_dbi_installed <- function(call = rlang::caller_env()) {
  if (!requireNamespace("DBI", quietly = TRUE)) {
    ducksassy_abort(
      c(
        "`sassy_search_table()` needs the DBI package.",
        i = "Install it with `install.packages(\"DBI\")`."
      ),
      class = "ducksassy_dependency_error",
      call = call
    )
  }
}

check_connection <- function(con, call = rlang::caller_env()) {
  if (!methods_is(con, "DBIConnection")) {
    what <- if (isS4(con)) {
      paste0("an object of class ", class(con)[[1L]])
    } else {
      describe_type(con)
    }
    ducksassy_abort(
      c(
        "`con` must be a DBI connection.",
        x = paste0("`con` is ", cli_escape(what), "."),
        i = "Open one with `DBI::dbConnect()`, e.g. `DBI::dbConnect(duckdb::duckdb())`."
      ),
      arg = "con",
      value = what,
      call = call
    )
  }
  valid <- tryCatch(DBI::dbIsValid(con), error = function(e) FALSE)
  if (!isTRUE(valid)) {
    ducksassy_abort(
      c(
        "`con` must be an open DBI connection.",
        x = "`con` is closed or no longer valid."
      ),
      arg = "con",
      call = call
    )
  }
  invisible(con)
}

# inherits() follows S4 inheritance (`is()`) for S4 objects, so this needs
# no import of methods.
methods_is <- function(x, class) {
  isS4(x) && inherits(x, class)
}

check_column_name <- function(column, call = rlang::caller_env()) {
  if (!is.character(column) || length(column) != 1L || is.na(column) ||
    column == "") {
    abort_scalar("column", "a single non-empty string (a column name)", column, call)
  }
  # as.vector(): a 1 x 1 matrix is a name too, but not a `[[` subscript
  as.vector(column)
}

check_id <- function(id, call = rlang::caller_env()) {
  if (is.null(id)) {
    return(NULL)
  }
  if (!is.character(id)) {
    abort_not_character(id, "id", call)
  }
  bad <- which(is.na(id) | id == "")
  if (length(bad) > 0L) {
    i <- bad[[1L]]
    ducksassy_abort(
      c(
        "`id` must not contain missing values or empty strings.",
        locate_bullet("id", i, id[[i]]),
        more_bullet(bad)
      ),
      arg = "id",
      index = i,
      value = id[[i]],
      call = call
    )
  }
  dup <- which(duplicated(id))
  if (length(dup) > 0L) {
    i <- dup[[1L]]
    ducksassy_abort(
      c(
        "`id` must not name a column twice.",
        locate_bullet("id", i, id[[i]])
      ),
      arg = "id",
      index = i,
      value = id[[i]],
      call = call
    )
  }
  unname(id)
}

check_chunk_rows <- function(chunk_rows, call = rlang::caller_env()) {
  if (!is_whole_scalar(chunk_rows) || chunk_rows < 1 ||
    chunk_rows > .Machine$integer.max) {
    abort_scalar(
      "chunk_rows",
      "a single whole number between 1 and .Machine$integer.max",
      chunk_rows,
      call
    )
  }
  as.integer(chunk_rows)
}

check_output_name <- function(output, call = rlang::caller_env()) {
  if (is.null(output)) {
    return(NULL)
  }
  if (is_dbi_id(output)) {
    return(output)
  }
  if (!is.character(output) || inherits(output, "SQL") ||
    length(output) != 1L || is.na(output) || output == "") {
    what <- if (inherits(output, "SQL")) "a DBI::SQL() query" else format_value(output)
    ducksassy_abort(
      c(
        "`output` must be `NULL`, a table name (a single string) or a `DBI::Id()`.",
        x = paste0("`output` is ", what, ".")
      ),
      arg = "output",
      value = output,
      call = call
    )
  }
  output
}

is_dbi_id <- function(x) {
  isS4(x) && inherits(x, "Id")
}

# ---------------------------------------------------------------------------
# Searching a chunk

#' Searching the chunks of a table, one in the background at a time
#'
#' `start_chunk_search()` starts the search of a chunk and returns at once;
#' `finish_chunk_search()` waits for it and returns what `ds_search()` does
#' (or raises its error in table terms); `cancel_chunk_search()` stops a
#' search that was started and not finished, and waits for its threads (it
#' runs from `on.exit()`). With overlap (the default), the search runs on
#' the worker threads through `ds_table_submit()` / `ds_table_collect()`:
#' from a DuckDB Arrow batch, which the search takes over and releases, or
#' from the chunk's character vector, which the job handle keeps alive.
#' With `options(ducksassy.table_overlap = FALSE)` the chunk is searched by
#' `ds_search()` when it is finished, as `sassy_search()` would.
#' @noRd
new_chunk_searcher <- function(plan, mode, src, column, max_hits, call) {
  searcher <- new.env(parent = emptyenv())
  searcher$plan <- plan
  searcher$mode <- mode
  searcher$src <- src
  searcher$column <- column
  searcher$max_hits <- max_hits
  searcher$call <- call
  searcher$overlap <- table_overlap_wanted()
  searcher$output <- FALSE
  searcher$job <- NULL
  searcher$chunk <- NULL
  searcher
}

start_chunk_search <- function(searcher, chunk, offset, limit) {
  call <- searcher$call
  searcher$chunk <- chunk
  searcher$offset <- offset
  searcher$limit <- as.double(limit)
  searcher$texts <- NULL
  if (is.null(chunk$batch)) {
    searcher$texts <- chunk_texts(
      chunk$data[[searcher$column]], searcher$src, searcher$column,
      call = call
    )
  }
  if (!searcher$overlap) {
    return(invisible())
  }
  plan <- searcher$plan
  batch <- chunk$batch
  job <- ds_table_submit(
    if (is.null(batch)) searcher$texts else batch$array,
    if (is.null(batch)) 0L else batch$index,
    if (is.null(batch)) "" else batch$format,
    as_plan(plan, searcher$mode, searcher$limit)
  )
  if (inherits(job, "ducksassy_rust_error")) {
    # nothing is running; the error is the chunk's
    release_batch(batch)
    table_chunk_result(job, searcher)
  }
  searcher$job <- job
  invisible()
}

finish_chunk_search <- function(searcher, cols) {
  searcher$cols <- cols
  job <- searcher$job
  if (is.null(job)) {
    plan <- searcher$plan
    plan$texts <- searcher$texts
    res <- ds_search_plan(plan, searcher$mode, searcher$limit)
  } else {
    res <- ds_table_collect(job)
    searcher$job <- NULL
  }
  searcher$texts <- NULL
  table_chunk_result(res, searcher)
}

cancel_chunk_search <- function(searcher) {
  job <- searcher$job
  searcher$job <- NULL
  if (!is.null(job)) {
    ds_table_cancel(job)
  }
  if (!is.null(searcher$chunk)) {
    release_batch(searcher$chunk$batch)
    searcher$chunk <- NULL
  }
  invisible()
}

#' A chunk's binding result, or its error in table terms
#'
#' An error value is re-raised with the row in scan order (and its id
#' values) in place of the index into the chunk, and the hit limit counts
#' the hits of all chunks.
#' @noRd
table_chunk_result <- function(res, searcher) {
  if (!inherits(res, "ducksassy_rust_error")) {
    return(res)
  }
  call <- searcher$call
  max_hits <- searcher$max_hits
  column <- searcher$column
  chunk <- searcher$chunk$data
  cols <- searcher$cols
  offset <- searcher$offset
  if (identical(res$kind, "too_many_hits")) {
    abort_table_limit(max_hits, searcher$output, call)
  }
  ids <- function(i) {
    if (!is.null(cols) && !cols$record && length(cols$id) > 0L) {
      vals <- vapply(utils_head(cols$id, 5L), function(nm) {
        paste0(nm, " = ", format_value(as.vector(chunk[[nm]][i])))
      }, character(1))
      c(i = paste0("The row's id: ", paste(vals, collapse = ", "), "."))
    }
  }
  rust_result(res, call = call, rows = list(offset = offset, column = column, ids = ids))
}

# Test hook: `options(ducksassy.table_test_hook = function(event) ...)` is
# called while a chunk's search runs in the background (after the next
# chunk has been fetched), so tests can run the garbage collector or raise
# an error or interrupt there.
table_test_hook <- function(event) {
  hook <- getOption("ducksassy.table_test_hook")
  if (is.function(hook)) {
    hook(event)
  }
  invisible()
}

# One chunk's hits: the id columns of each hit's row (or its row number),
# then the hit columns of sassy_search().
table_hits_piece <- function(res, chunk, cols, offset, pattern_names = NULL) {
  hits <- new_hits(res, pattern_names = pattern_names)
  out <- list()
  if (cols$record) {
    out$record <- row_numbers(offset, hits$record)
  } else {
    for (nm in cols$id) {
      out[[nm]] <- subset_rows(chunk[[nm]], hits$record)
    }
  }
  for (col in setdiff(names(hits), c("record", "name"))) {
    out[[col]] <- hits[[col]]
  }
  out
}

# A chunk's hit columns finished as the caller asked (SAM CIGARs, the
# matched region cut from the chunk's sequences).
finish_table_piece <- function(piece, res, data, column, plan) {
  if (identical(plan$cigar_style, "sam")) {
    patterns <- if (!is.null(plan$guides)) plan$guides else plan$patterns
    piece$cigar <- sam_cigars(new_hits(res), nchar(patterns, type = "bytes"),
      call = rlang::caller_env())
  }
  if (isTRUE(plan$region)) {
    texts <- data[[column]]
    if (!is.character(texts)) {
      texts <- as.character(texts)
    }
    piece$region <- hit_regions(new_hits(res), texts)
  }
  piece
}

# One chunk's counts or flags: one row per row of the chunk.
table_values_piece <- function(values, chunk, cols, offset, n, patterns) {
  out <- list()
  if (cols$record) {
    out$record <- row_numbers(offset, seq_len(n))
  } else {
    for (nm in cols$id) {
      out[[nm]] <- chunk[[nm]]
    }
  }
  if (length(values) != n * length(patterns)) {
    abort_internal("the count vector has the wrong length", rlang::caller_env())
  }
  names <- fastx_pattern_columns(patterns, names(out))
  for (j in seq_along(patterns)) {
    out[[names[[j]]]] <- values[(j - 1L) * n + seq_len(n)]
  }
  out
}

# More hits than `max_hits`: over the whole table, or, with `output`, in one
# chunk (the advice differs: issue 17).
abort_table_limit <- function(max_hits, output, call) {
  abort_too_many_hits(max_hits, if (output) "table_output" else "table", call,
    per_chunk = output
  )
}

row_numbers <- function(offset, i) {
  x <- offset + i
  if (length(x) == 0L || max(x) <= .Machine$integer.max) as.integer(x) else as.double(x)
}

subset_rows <- function(x, i) {
  if (is.data.frame(x)) x[i, , drop = FALSE] else x[i]
}

# ---------------------------------------------------------------------------
# Garbage

# Each chunk leaves its sequences behind as R strings (and the driver's data
# frame) once it has been searched: garbage of about the size of the chunk.
# R collects it when its heap has grown by a fraction of the live heap, so in
# a long scan the peak heap would hold several chunks' worth, and more the
# longer the table. A full collection after every `limit` bytes of sequences
# read keeps the peak near one chunk. The limit is at least 8 MiB and at
# least a quarter of the live heap measured at the last collection, so that
# collecting costs a small fraction of the time even in a session that holds
# a large heap (a full collection takes time in proportion to the live
# heap). The option `ducksassy.table_gc_bytes` sets the minimum (`Inf`:
# never collect).
new_gc_pace <- function() {
  pace <- new.env(parent = emptyenv())
  floor <- getOption("ducksassy.table_gc_bytes", 8 * 2^20)
  if (!is.numeric(floor) || length(floor) != 1L || is.na(floor) || floor < 0) {
    floor <- 8 * 2^20
  }
  pace$floor <- floor
  pace$limit <- floor
  pace$bytes <- 0
  pace
}

gc_pace_step <- function(pace, bytes) {
  pace$bytes <- pace$bytes + bytes
  if (pace$bytes >= pace$limit && is.finite(pace$limit)) {
    live <- sum(gc(verbose = FALSE)[, 2L]) * 2^20
    pace$bytes <- 0
    pace$limit <- max(pace$floor, live / 4)
  }
  invisible()
}

# The R memory a searched chunk leaves behind: its sequences as R strings,
# or, for an Arrow batch searched in place (whose memory is not R's), an
# estimate for its other columns.
chunk_garbage_bytes <- function(chunk, column) {
  x <- chunk$data[[column]]
  if (is.null(chunk$batch) && is.character(x)) {
    return(text_bytes(x))
  }
  56 * chunk$n * max(1L, length(chunk$data))
}

# Bytes the sequences of a chunk take as R strings (about 56 per string and
# its letters).
text_bytes <- function(texts) {
  sum(nchar(texts, type = "bytes", keepNA = FALSE)) + 56 * length(texts)
}

# ---------------------------------------------------------------------------
# Putting the chunks together

# Counts can be filled into columns allocated up front when the number of
# rows is known and every column is a plain vector (no class to keep).
can_prefill <- function(template, total) {
  !is.na(total) && total >= 0 && total <= .Machine$integer.max &&
    all(vapply(template, function(x) {
      is.atomic(x) && is.null(attributes(x)) && typeof(x) %in%
        c("logical", "integer", "double", "character")
    }, logical(1)))
}

#' Bind the chunks' columns into one data frame
#'
#' Column by column, dropping each column of the pieces once it has been
#' copied, so that the pieces and the result are not held twice over.
#' @noRd
combine_pieces <- function(pieces, template) {
  if (length(pieces) == 0L) {
    return(template)
  }
  n <- sum(vapply(pieces, function(p) length(p[[1L]]), numeric(1)))
  out <- vector("list", length(template))
  names(out) <- names(template)
  for (j in seq_along(template)) {
    parts <- vector("list", length(pieces))
    for (p in seq_along(pieces)) {
      parts[p] <- list(pieces[[p]][[j]])
      pieces[[p]][j] <- list(NULL)
    }
    out[[j]] <- combine_column(parts)
    rm(parts)
  }
  new_data_frame(out, n)
}

combine_column <- function(parts) {
  if (length(parts) == 1L) {
    return(parts[[1L]])
  }
  first <- parts[[1L]]
  if (is.data.frame(first)) {
    return(do.call(rbind, unname(parts)))
  }
  x <- do.call(c, unname(parts))
  if (!identical(class(x), class(first)) && is.object(first)) {
    # c() without a method for the class (a list column, say) drops it
    keep <- setdiff(names(attributes(first)), c("names", "dim", "dimnames"))
    attributes(x)[keep] <- attributes(first)[keep]
  }
  names(x) <- NULL
  x
}
