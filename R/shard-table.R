# sassy_search_table(BPPARAM = ): row ranges of a table or query, each read
# by a worker from its own read-only connection. See ?sharding.

#' Sharded sassy_search_table() and sassy_crispr_table()
#'
#' Runs in this session what must be checked before any worker starts (the
#' arguments, the table and its columns, the query), counts the rows, then
#' has each worker call `search` (the exported function) itself on its row
#' range.
#' @param search `sassy_search_table` or `sassy_crispr_table`.
#' @param search_args Its arguments other than `con`, `table`, `column`,
#'   `id` and `chunk_rows`, checked already.
#' @param hits Whether the result has a row per hit (the hit limit applies).
#' @noRd
shard_table <- function(con, table, column, id, chunk_rows, output, BPPARAM,
                        search, search_args, hits, call, reserved = hit_columns[-1L]) {
  BPPARAM <- check_bpparam(BPPARAM, call = call)
  if (!is.null(output)) {
    ducksassy_abort(
      c(
        "`output` can't be used with `BPPARAM`.",
        i = "The workers' results come back to this R session: write them with `DBI::dbAppendTable()`.",
        i = "Or leave `BPPARAM = NULL` to stream the hits into `output` from this session."
      ),
      arg = "output",
      call = call
    )
  }
  db <- shard_db(con, call = call)
  src <- new_table_source(con, table, column, id, call = call, reserved = reserved)
  sql <- sub("[[:space:];]+$", "", src$sql)
  fields <- src$fields
  if (is.null(fields)) {
    head <- db_call(
      DBI::dbGetQuery(con, paste0("SELECT * FROM (", sql, ") AS ducksassy_q LIMIT 0")),
      paste0("Can't read ", src$label, "."), "table", call
    )
    fields <- names(head)
  }
  cols <- resolve_table_columns(src, fields, column, id, call = call, reserved = reserved)
  total <- db_call(
    DBI::dbGetQuery(con, paste0("SELECT COUNT(*) AS n FROM (", sql, ") AS ducksassy_q"))[[1L]],
    paste0("Can't count the rows of ", src$label, "."), "table", call
  )
  shards <- shard_plan_rows(as.double(total), BiocParallel::bpnworkers(BPPARAM), call)
  shards$kind <- src$kind
  shards$source <- if (src$kind == "query") shorten(sql, 60L) else src$label
  shards$sql <- vapply(seq_len(nrow(shards)), function(i) {
    shard_sql(sql, shards$skip[[i]], shards$n[[i]], db$kind)
  }, character(1))
  # the threads of this session's default, as for files (see ?sharding)
  if (is.null(search_args$threads)) {
    search_args$threads <- sassy_threads()
  }
  args <- list(
    db = db, search = search, search_args = search_args, column = column,
    id = id, chunk_rows = chunk_rows, record = cols$record
  )
  res <- shard_run(split(shards, seq_len(nrow(shards))), shard_table_work, args, BPPARAM, call)
  values <- shard_results(res, shards, "rows", BPPARAM, call)
  if (isTRUE(search_args$sparse)) {
    # the workers' sparse counts, bound with their records
    out <- bind_sparse_counts(values, search_args$patterns)
    check_shard_hits(sparse_hits(out), max_hits_option(call = call), call, "table")
    attr(out, "missing_shards") <- attr(values, "missing_shards")
    return(out)
  }
  out <- shard_bind(values)
  if (hits) {
    check_shard_hits(nrow(out), max_hits_option(call = call), call, "table")
  }
  attr(out, "missing_shards") <- attr(values, "missing_shards")
  out
}

#' Row ranges: `bpnworkers` of them, or of `ducksassy.shard_rows` rows
#' @noRd
shard_plan_rows <- function(total, workers, call) {
  per_shard <- shard_size_option("ducksassy.shard_rows", call)
  if (is.null(per_shard)) {
    per_shard <- max(1, ceiling(total / max(1, workers)))
  }
  cuts <- range_cuts(total, per_shard)
  shards <- data.frame(skip = cuts$skip, n = cuts$n)
  shards$first <- shards$skip + 1
  shards$last <- ifelse(is.nan(shards$n), NA_real_, shards$skip + shards$n)
  shards
}

# The query of one row range: the same query, LIMIT/OFFSET. SQLite needs a
# LIMIT before an OFFSET (-1: none); the last range has no limit.
shard_sql <- function(sql, skip, n, kind) {
  fmt <- function(x) format(x, scientific = FALSE)
  limit <- if (!is.nan(n)) {
    paste0(" LIMIT ", fmt(n))
  } else if (skip > 0 && kind == "sqlite") {
    " LIMIT -1"
  }
  offset <- if (skip > 0) paste0(" OFFSET ", fmt(skip))
  paste0("SELECT * FROM (", sql, ") AS ducksassy_shard", limit, offset)
}

#' How a worker opens the database of `con` itself, read-only
#'
#' @return A list: `kind` ("duckdb" or "sqlite"), `path` and the options of
#'   the connection that change how values are read (`bigint`, ...).
#' @noRd
shard_db <- function(con, call) {
  abort_db <- function(why, hint) {
    ducksassy_abort(
      c("Can't share `con` with the `BPPARAM` workers.", x = why, i = hint),
      arg = "con",
      call = call
    )
  }
  memory_hint <- "Write the table to a database file and connect to that file; each worker opens it read-only."
  if (inherits(con, "duckdb_connection")) {
    drv <- con@driver
    path <- drv@dbdir
    if (length(path) != 1L || is.na(path) || path %in% c("", ":memory:") ||
      startsWith(path, ":memory:")) {
      abort_db("`con` is an in-memory DuckDB database, which exists only in this R session.", memory_hint)
    }
    if (!isTRUE(drv@read_only)) {
      abort_db(
        paste0("`con` has DuckDB file \"", cli_escape(path), "\" open for writing, so no other process can open it."),
        paste0(
          "DuckDB lets several processes open a file only when all of them read: connect with ",
          "`DBI::dbConnect(duckdb::duckdb(), \"", cli_escape(path), "\", read_only = TRUE)`."
        )
      )
    }
    return(list(kind = "duckdb", path = normalizePath(path), bigint = drv@bigint))
  }
  if (inherits(con, "SQLiteConnection")) {
    path <- con@dbname
    if (length(path) != 1L || is.na(path) || path %in% c("", ":memory:") ||
      startsWith(path, "file::memory:")) {
      abort_db("`con` is an in-memory or temporary SQLite database, which exists only in this R session.", memory_hint)
    }
    return(list(
      kind = "sqlite", path = normalizePath(path), bigint = con@bigint,
      extended_types = isTRUE(con@extended_types)
    ))
  }
  abort_db(
    paste0("`con` is a ", class(con)[[1L]], ", which the workers can't reopen."),
    "`BPPARAM` works with DuckDB and SQLite database files; for other databases, search a query per worker yourself."
  )
}

shard_db_connect <- function(db) {
  if (db$kind == "duckdb") {
    # duckdb() notes where it keeps extensions: not news in a worker's log
    drv <- suppressMessages(duckdb::duckdb(dbdir = db$path, read_only = TRUE, bigint = db$bigint))
    DBI::dbConnect(drv)
  } else {
    DBI::dbConnect(
      RSQLite::SQLite(), db$path,
      flags = RSQLite::SQLITE_RO, bigint = db$bigint,
      extended_types = db$extended_types
    )
  }
}

#' Search one row range (in a worker) with `sassy_search_table()` (or
#' `sassy_crispr_table()`) on the worker's own read-only connection
#'
#' Row numbers (the `record` column, and the row of a letter error) are
#' made those of the whole table.
#' @noRd
shard_table_work <- function(shard, args) {
  con <- shard_db_connect(args$db)
  on.exit(
    if (args$db$kind == "duckdb") {
      DBI::dbDisconnect(con, shutdown = TRUE)
    } else {
      DBI::dbDisconnect(con)
    },
    add = TRUE
  )
  skip <- shard$skip
  out <- tryCatch(
    do.call(args$search, c(
      list(con, DBI::SQL(shard$sql)),
      args$search_args,
      list(column = args$column, id = args$id, chunk_rows = args$chunk_rows)
    )),
    ducksassy_error = function(e) {
      if (!is.null(e$rust_error) && !is.null(e$rows_context)) {
        # the row in the whole table: worded again from the error's data
        rows <- e$rows_context
        rows$offset <- rows$offset + skip
        rust_condition(e$rust_error, call = e$call, rows = rows)
      }
      stop(e)
    }
  )
  if (args$record && nrow(out) > 0L) {
    if (isTRUE(args$search_args$sparse)) {
      # sparse counts: the row numbers are in their records
      records <- attr(out, "records", exact = TRUE)
      records$record <- row_numbers(skip, records$record)
      attr(out, "records") <- records
    } else {
      out$record <- row_numbers(skip, out$record)
    }
  }
  out
}

shorten <- function(x, width) {
  if (nchar(x) <= width) x else paste0(substr(x, 1L, width - 3L), "...")
}
