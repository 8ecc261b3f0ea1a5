# The table verbs inside DuckDB: sassy_search_table(), sassy_count_table()
# and sassy_contains_table() on a DuckDB connection can run as one query of
# the SQL functions (R/duckdb-sql.R, the extension) instead of reading the
# rows into R (table-scan.R), with exactly the R path's result. The R path
# stays the reference: whatever the query cannot do exactly (an option the
# SQL functions lack, an id type whose conversion to R might differ, a
# connection that cannot load the extension, any error of the query) runs
# the R path, so errors and their classes are the R path's own.
#
# When: measured with benchmarks/sql_table.R (data/sql_table.csv: reads of
# 150 bases, one 20-base pattern, k = 2, about one hit per two reads;
# DuckDB `SET threads` equal to `threads =`; the paths side by side in one
# process, median of 5), rerun on a quiet machine (load 0.35 before;
# 2 cores). In-database elapsed time over the R path's (CPU in brackets):
#
#   rows  threads  count        contains     search       count+output search+output
#   100k  1        0.92 (0.95)  1.01 (0.94)  0.99 (0.99)  0.86 (0.86)  0.88 (0.89)
#   100k  2        1.40 (1.24)  1.17 (0.86)  1.69 (1.02)  1.22 (0.99)  1.10 (1.10)
#   250k  1        0.77 (0.64)  0.74 (0.59)  0.93 (0.79)  0.73 (0.63)  0.77 (0.62)
#   250k  2        0.78 (0.60)  0.80 (0.63)  1.11 (0.77)  0.51 (0.60)  0.57 (0.71)
#   1M    1        0.86 (0.68)  0.84 (0.65)  1.07 (0.85)  0.73 (0.59)  0.82 (0.64)
#   1M    2        0.87 (0.58)  0.88 (0.61)  1.22 (0.92)  0.45 (0.61)  0.54 (0.68)
#
# (contains+output 0.47-0.94, as count+output.) Why: both paths run the
# same engine on the same bytes. The R path also exports the rows through
# Arrow and converts the ids, and with `output` spools every chunk's result
# to a file and appends it with dbAppendTable(); the in-database path has
# neither (no row travels through R for `output`), but makes a few small
# queries first (2-5 ms each: about even on 100k rows). DuckDB scans a
# table in parallel by row groups (122,880 rows), so a table of 100k rows
# is searched on one thread however many are asked for, while the R path
# splits every chunk among its workers; and hits returned to R (a list of
# structs, unnested) come back no faster than the R path's, which converts
# while its workers search.
#
# Rule (table_sql_faster()): the in-database path for counts and flags
# (returned to R or written to `output`) and for hits written to `output`,
# with one thread or at least `threads` x 122,880 rows; never for hits
# returned to R (even on one thread, slower on 2).
#
# The switch for tests and benchmarks: options(ducksassy.table_sql = ) or
# the environment variable DUCKSASSY_TABLE_SQL: FALSE never takes the
# in-database path; TRUE takes it whenever it can give the same result
# (whether or not it is faster); unset, the rule decides.

#' @section Inside DuckDB:
#' On a DuckDB connection whose database has the ducksassy SQL functions
#' (made with [sassy_duckdb()], or where [sassy_register()] can load them:
#' a database created with `allow_unsigned_extensions`), the search can run
#' as one query inside the database, on DuckDB's threads, instead of
#' reading the rows into R. This is done where it was measured faster
#' (`benchmarks/sql_table.R`): every verb with `output` (the result is
#' written by `INSERT ... SELECT`, so nothing travels through R) and
#' `sassy_count_table()` and `sassy_contains_table()` returning their
#' result, each with `threads = 1` or on a table of at least `threads` x
#' 122,880 rows (DuckDB scans a table in parallel by row groups of 122,880
#' rows: a smaller table is searched on fewer threads than the R path would
#' use); when
#'
#' * `table` is a table name or `DBI::Id()` (not a `DBI::SQL()` query),
#'   the sequence column is `VARCHAR` and the `id` columns (at least one,
#'   except for counts and flags returned to R) are `BOOLEAN`, integer
#'   (`TINYINT` ... `BIGINT`, `UTINYINT` ... `UINTEGER`), `FLOAT`, `DOUBLE`
#'   or `VARCHAR`;
#' * the patterns are ASCII or UTF-8 text;
#' * the options are ones the SQL functions have: not `ignore_case`,
#'   `indels = FALSE`, `cigar = FALSE`, `cigar_style = "sam"` or
#'   `region = TRUE`; no `BPPARAM`; with `output` and hits, no
#'   `ducksassy.max_hits` option set (the R path limits the hits of one
#'   chunk);
#' * with `output`, no transaction is open on `con`.
#'
#' The result is the same as the R path's in every respect (columns, types,
#' row order, errors: any error of the query, such as a letter outside the
#' alphabet, runs the R path, which raises its own). `threads` sets DuckDB's
#' `threads` for the query (the previous setting is restored). With
#' DuckDB's `preserve_insertion_order` set to `false` (it is `true` by
#' default) the query's rows could come in another order: the R path runs.
#' The in-database path shows no progress bar, and `chunk_rows` does not
#' apply (DuckDB's own vectors are searched). Interrupting it stops
#' DuckDB's query and raises the same `ducksassy_interrupt` condition as
#' the R path. `options(ducksassy.table_sql = FALSE)` (or the environment
#' variable `DUCKSASSY_TABLE_SQL=false`) always reads the rows into R;
#' `TRUE` takes the in-database path wherever it gives the same result,
#' faster or not: both are for testing and benchmarking.
#' @name sassy_search_table
#' @order 4
NULL

#' Search a table inside DuckDB, when that can and should be done
#'
#' Called by search_table_rows() once the arguments and the source are
#' checked, before the rows are read.
#' @return `NULL` when the R path must run; else a list with `value`, the
#'   verb's result (invisible with `output`, as the R path's).
#' @noRd
table_sql_scan <- function(con, table, src, column, id, output, engine, call) {
  want <- table_sql_option()
  if (isFALSE(want) || !table_sql_possible(con, src, engine)) {
    return(NULL)
  }
  if (is.na(want) && !table_sql_faster(
    engine$mode, output, engine$plan$threads,
    function() cheap_row_count(con, table, src)
  )) {
    return(NULL)
  }
  tryCatch(
    table_sql_run(con, src, column, id, output, engine, call),
    # any error of the in-database path (one of the query's, a letter
    # outside the alphabet, a write that fails): the R path runs and raises
    # its own classed error (or, where the query alone failed, succeeds).
    # But Ctrl-C, which duckdb turns into an error of the query, ends the
    # call as on the R path, and the hit limit's error (abort_table_limit(),
    # as the R path raises it) needs no second search.
    # R's own interrupt, when it comes while duckdb returns to R
    interrupt = function(e) signal_interrupt(call = call),
    error = function(e) {
      kind <- duckdb_error_kind(e)
      if (identical(kind, "interrupt")) {
        signal_interrupt(call = call)
      }
      # a time limit, met inside our SQL functions: R has reset it, so the
      # R path must not run (unlimited) after it
      if (identical(kind, "time_limit")) {
        abort_time_limit(conditionMessage(e), call)
      }
      if (inherits(e, "ducksassy_limit_error")) {
        stop(e)
      }
      NULL
    }
  )
}

#' The switch: `NA` (the rule decides), `TRUE` or `FALSE`.
#' @noRd
table_sql_option <- function() {
  x <- getOption("ducksassy.table_sql")
  if (is.null(x)) {
    env <- Sys.getenv("DUCKSASSY_TABLE_SQL", "")
    x <- if (nzchar(env)) toupper(env) %in% c("TRUE", "1", "YES")
  }
  if (is.null(x) || !is.logical(x) || length(x) != 1L) NA else x
}

#' Where the in-database path is faster than the R path (the rule in the
#' header, from benchmarks/sql_table.R): anything but hits returned to R,
#' on one thread or on a table large enough that each of DuckDB's threads
#' has a row group to scan (`rows()` counts a DuckDB table's rows from its
#' metadata; `NA` for a view).
#' @noRd
table_sql_faster <- function(mode, output, threads, rows) {
  if (is.null(output) && mode == "hits") {
    return(FALSE)
  }
  if (is.null(threads) || threads <= 1L) {
    return(TRUE)
  }
  n <- rows()
  !is.na(n) && n >= table_sql_min_rows(threads)
}

# DuckDB scans a table in parallel by row groups of 122,880 rows (its
# default `row_group_size`), one thread per row group: a smaller table is
# searched by one thread, however many there are.
duckdb_row_group_rows <- 122880

table_sql_min_rows <- function(threads) {
  threads * duckdb_row_group_rows
}

#' Whether the query can give exactly the R path's result, judged from what
#' is known before anything is read: a DuckDB table (not a query: its row
#' order inside a subquery is not promised) and the options the SQL
#' functions have, searched as the R path does.
#' @noRd
table_sql_possible <- function(con, src, engine) {
  plan <- engine$plan
  inherits(con, "duckdb_connection") &&
    identical(src$kind, "table") &&
    engine$mode %in% c("hits", "count", "contains") &&
    is.null(plan$guides) && is.null(engine$finish_piece) &&
    is.character(plan$patterns) &&
    # (the patterns go into SQL as UTF-8 text: ASCII or UTF-8 ones are the
    # same bytes there as on the R path)
    all(Encoding(plan$patterns) %in% c("unknown", "UTF-8")) &&
    all(validUTF8(plan$patterns)) &&
    !isTRUE(plan$ignore_case) && isTRUE(plan$indels) && is.null(plan$ends) &&
    (engine$mode != "hits" || (isTRUE(plan$cigar) &&
      identical(plan$cigar_style, "pattern") && !isTRUE(plan$region)))
}

#' The DuckDB types of id columns that dbGetQuery() gives as the R path's
#' Arrow read does, with the cast that makes them so (whatever the driver's
#' `bigint` setting): the R type each becomes.
#' @noRd
table_sql_id_types <- c(
  BOOLEAN = "logical", TINYINT = "integer", SMALLINT = "integer",
  INTEGER = "integer", UTINYINT = "integer", USMALLINT = "integer",
  BIGINT = "double", UINTEGER = "double", FLOAT = "double", DOUBLE = "double",
  VARCHAR = "character"
)
table_sql_casts <- c(
  logical = "BOOLEAN", integer = "INTEGER", double = "DOUBLE",
  character = "VARCHAR"
)

#' Run the in-database search; `NULL` where it cannot give the R path's
#' result after all (found out only from the table or the connection).
#' @noRd
table_sql_run <- function(con, src, column, id, output, engine, call) {
  mode <- engine$mode
  plan <- engine$plan
  cols <- resolve_table_columns(src, src$fields, column, id, call = call)
  # the inner query's column of results
  sql_alias <- "\"__ducksassy_result\""
  # Without id columns the R path numbers the rows in scan order: the
  # query's rows come in that order, so counts are numbered in R; a hit's
  # row number, or one written to `output`, would need a window function
  # (the R path does those).
  if ((cols$record && (mode == "hits" || !is.null(output))) ||
    "__ducksassy_result" %in% cols$id) {
    return(NULL)
  }
  quote <- function(x) as.character(DBI::dbQuoteIdentifier(con, x))
  wanted <- unique(c(cols$id, column))
  described <- DBI::dbGetQuery(con, paste0(
    "DESCRIBE SELECT ", paste(vapply(wanted, quote, ""), collapse = ", "),
    " FROM ", src$quoted
  ))
  types <- toupper(described$column_type)[match(wanted, described$column_name)]
  names(types) <- wanted
  if (anyNA(types) || types[[column]] != "VARCHAR" ||
    !all(types[cols$id] %in% names(table_sql_id_types))) {
    return(NULL)
  }
  state <- table_sql_state(con)
  if (is.null(state) || !identical(tolower(state$order), "true")) {
    # (without preserve_insertion_order the query's rows may come in any
    # order)
    return(NULL)
  }
  out_spec <- if (!is.null(output)) new_output_spec(con, output, call = call)
  if (mode == "hits" && !is.null(out_spec) && !is.null(getOption("ducksassy.max_hits"))) {
    # with `output` the R path limits the hits of one chunk; the query holds
    # none in R and has no chunks, so a limit set by the user is the R path's
    return(NULL)
  }
  r_types <- table_sql_id_types[types[cols$id]]
  id_exprs <- paste0(
    "CAST(", vapply(cols$id, quote, ""), " AS ", table_sql_casts[r_types], ")"
  )
  fn_args <- table_sql_fn_args(con, plan, quote(column))
  pattern_names <- names(plan$patterns)

  # the result's columns: the id columns, then the hit columns or one per
  # pattern, each with its R type (the R path's template) and SQL expression
  template <- lapply(r_types, function(t) vector(t, 0L))
  names(template) <- cols$id
  if (cols$record) {
    template <- list(record = integer())
    id_exprs <- character()
  }
  inner_ids <- paste(c(vapply(cols$id, quote, ""), ""), collapse = ", ")
  values <- if (mode == "hits") {
    table_sql_hit_columns(con, pattern_names, sql_alias)
  } else {
    table_sql_value_columns(mode, plan$patterns, names(template), sql_alias)
  }
  value_exprs <- values$exprs
  template[names(values$template)] <- values$template
  from <- paste0(
    "(SELECT ", inner_ids, values$call(fn_args), " AS ", sql_alias,
    " FROM ", src$quoted, ")"
  )
  template <- new_data_frame(template, 0L)
  select <- paste0(
    "SELECT ",
    paste(
      c(id_exprs, value_exprs),
      "AS", vapply(setdiff(names(template), if (cols$record) "record"), quote, ""),
      collapse = ", "
    ),
    " FROM ", from
  )

  threads <- table_sql_threads(con, state$threads, plan$threads)
  on.exit(table_sql_threads_restore(con, threads), add = TRUE)
  if (!is.null(out_spec)) {
    return(table_sql_write(con, out_spec, template, select, call))
  }
  max_hits <- max_hits_option(call = call)
  if (mode == "hits") {
    # one row more than allowed tells that the limit is passed, without
    # holding the hits beyond it
    select <- paste0(select, " LIMIT ", format(max_hits + 1, scientific = FALSE))
  }
  res <- DBI::dbGetQuery(con, select)
  n <- nrow(res)
  if (mode == "hits" && n > max_hits) {
    abort_table_limit(max_hits, FALSE, call)
  }
  if (cols$record) {
    res$record <- row_numbers(0, seq_len(n))
  }
  out <- lapply(names(template), function(nm) {
    x <- res[[nm]]
    if (!identical(typeof(x), typeof(template[[nm]])) || !is.null(attributes(x))) {
      stop("the query's column ", nm, " is not of the R path's type")
    }
    x
  })
  names(out) <- names(template)
  table_sql_count_use()
  list(value = new_data_frame(out, n))
}

#' The hit columns of the in-database search: their SQL expressions over
#' the unnested struct `alias`, their R types (the R path's template), and
#' `call`, which makes the SQL call giving that struct from the function's
#' arguments.
#' @noRd
table_sql_hit_columns <- function(con, pattern_names, alias) {
  hit <- c(
    pattern = "pattern", start = "start", end = "\"end\"",
    pattern_start = "pattern_start", pattern_end = "pattern_end",
    cost = "cost", strand = "strand", cigar = "cigar"
  )
  hit[] <- paste0(alias, ".", hit)
  if (!is.null(pattern_names)) {
    nm <- as.character(pattern_names)
    lit <- ifelse(is.na(nm) | nm == "", "NULL", vapply(enc2utf8(nm), function(x) {
      as.character(DBI::dbQuoteString(con, x))
    }, ""))
    hit <- append(hit, c(pattern_name = paste0(
      "CAST(([", paste(lit, collapse = ", "), "]::VARCHAR[])[", alias, ".pattern] AS VARCHAR)"
    )), after = 1L)
  }
  template <- lapply(names(hit), function(nm) {
    if (nm %in% c("pattern_name", "strand", "cigar")) character() else integer()
  })
  names(template) <- names(hit)
  list(exprs = hit, template = template, call = function(args) {
    paste0("unnest(sassy_hits(", args, "))")
  })
}

#' The count or presence columns of the in-database search, one per
#' pattern, named as the R path names them next to the id columns `ids`;
#' as table_sql_hit_columns().
#' @noRd
table_sql_value_columns <- function(mode, patterns, ids, alias) {
  value_names <- fastx_pattern_columns(patterns, ids)
  type <- if (mode == "count") "INTEGER" else "BOOLEAN"
  exprs <- paste0("CAST(", alias, "[", seq_along(patterns), "] AS ", type, ")")
  names(exprs) <- value_names
  template <- rep(list(if (mode == "count") integer() else logical()), length(value_names))
  names(template) <- value_names
  list(exprs = exprs, template = template, call = function(args) {
    paste0("sassy_", mode, "(", args, ")")
  })
}

#' The arguments of the SQL function after the text: the patterns as a
#' `VARCHAR[]` and every option given explicitly.
#' @noRd
table_sql_fn_args <- function(con, plan, text) {
  lit <- function(x) as.character(DBI::dbQuoteString(con, enc2utf8(x)))
  flag <- function(x) if (isTRUE(x)) "true" else "false"
  num <- function(x) {
    if (is.null(x) || is.na(x)) "NULL::DOUBLE" else sprintf("%.17g::DOUBLE", x)
  }
  paste(
    text,
    paste0("[", paste(vapply(unname(plan$patterns), lit, ""), collapse = ", "), "]::VARCHAR[]"),
    format(as.integer(plan$k)),
    lit(tolower(plan$alphabet)),
    flag(plan$rc),
    flag(plan$all_endpoints),
    num(plan$overhang),
    num(plan$max_n_frac),
    sep = ", "
  )
}

#' The settings the in-database path needs, when the SQL functions are
#' there or can be loaded on `con`: a list of `threads` (DuckDB's) and
#' `order` (`preserve_insertion_order`); `NULL` otherwise, never an error or
#' a warning (a database that cannot load them is the R path's).
#' @noRd
table_sql_state <- function(con) {
  # one query, which also calls one of the functions (cheaper than a look
  # into duckdb_functions(), which lists them all)
  state <- function() {
    tryCatch(
      DBI::dbGetQuery(con, paste(
        "SELECT current_setting('threads')::VARCHAR AS threads,",
        "current_setting('preserve_insertion_order')::VARCHAR AS \"order\",",
        "sassy_backend() AS backend"
      )),
      error = function(e) NULL
    )
  }
  s <- state()
  if (is.null(s)) {
    ok <- tryCatch(
      suppressWarnings(suppressMessages({
        sassy_register(con)
        TRUE
      })),
      error = function(e) FALSE
    )
    s <- if (ok) state()
  }
  if (is.null(s) || nrow(s) != 1L) NULL else as.list(s)
}

#' Set DuckDB's threads (now `old`) to `threads` (the search's threads, as
#' the R path's worker threads) when they differ; returns what
#' table_sql_threads_restore() needs. (Setting DuckDB's threads restarts its
#' thread pool: not for nothing.)
#' @noRd
table_sql_threads <- function(con, old, threads) {
  old <- suppressWarnings(as.integer(old))
  if (is.null(threads) || is.na(threads) || is.na(old) || identical(old, as.integer(threads))) {
    return(NA_integer_)
  }
  DBI::dbExecute(con, paste0("SET threads = ", as.integer(threads)))
  old
}

table_sql_threads_restore <- function(con, old) {
  if (!is.na(old)) {
    try(DBI::dbExecute(con, paste0("SET threads = ", old)), silent = TRUE)
  }
  invisible()
}

#' `output`: the result is appended inside the database, with the R path's
#' table definition and checks, in a transaction of our own (with one of the
#' user's open, the R path runs: a failed query would abort it).
#' @noRd
table_sql_write <- function(con, spec, template, select, call) {
  check_output_fit(spec, template, call = call)
  began <- !in_duckdb_transaction(con) && tryCatch(
    {
      DBI::dbBegin(con)
      TRUE
    },
    error = function(e) FALSE
  )
  if (!began) {
    return(NULL)
  }
  done <- FALSE
  on.exit(if (!done) try(DBI::dbRollback(con), silent = TRUE), add = TRUE)
  if (!spec$exists) {
    DBI::dbCreateTable(con, spec$name, template)
  }
  cols <- paste(
    vapply(names(template), function(x) as.character(DBI::dbQuoteIdentifier(con, x)), ""),
    collapse = ", "
  )
  n <- DBI::dbExecute(con, paste0("INSERT INTO ", spec$label, " (", cols, ") ", select))
  DBI::dbCommit(con)
  done <- TRUE
  table_sql_count_use()
  list(value = as.double(n))
}

# How many searches took the in-database path in this session (for the
# tests, which check that the path they compare was taken).
table_sql_count_use <- function() {
  the$table_sql_uses <- table_sql_uses() + 1
  invisible()
}

table_sql_uses <- function() {
  if (is.null(the$table_sql_uses)) 0 else the$table_sql_uses
}
