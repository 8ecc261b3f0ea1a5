# The chunk loop of every table search (sassy_search_table(),
# sassy_count_table(), sassy_contains_table(), sassy_crispr_table(), and so
# their sharded forms, whose workers call them): fetch the rows in chunks,
# search chunk i while chunk i+1 is fetched, show progress, pace R's garbage
# collector, fill counts in place when the row count is known, spool pieces
# for an `output` table, and stop the background search and clear the
# result set whatever ends the call. What is searched per chunk is the
# `engine`'s (table_search_engine() in table.R, crispr_table_engine() in
# crispr-table.R).

#' Check the table arguments, then search the rows in shards or scan them
#'
#' What every table search does once its search arguments are checked into
#' `engine` (table_search_engine(), crispr_table_engine()).
#' @param fn The exported function's name; with `BPPARAM` each worker calls
#'   it with `search_args` (its checked arguments but the table's).
#' @param patterns The patterns (or guides) as given, for the hint that
#'   `table` and `patterns` look swapped; `what` names them.
#' @noRd
search_table_rows <- function(con, table, column, id, chunk_rows, output,
                              BPPARAM, engine, fn, search_args, patterns,
                              what, call) {
  column <- check_column_name(column, call = call)
  id <- check_id(id, call = call)
  chunk_rows <- check_chunk_rows(chunk_rows, call = call)
  output <- check_output_name(output, call = call)
  max_hits_option(call = call) # checked before any shard starts
  if (!is.null(BPPARAM)) {
    return(shard_table(
      con, table, column, id, chunk_rows, output, BPPARAM,
      search = get(fn, mode = "function"), search_args = search_args,
      hits = engine$mode == "hits", call = call,
      reserved = engine$reserved %||% hit_columns[-1L]
    ))
  }
  # Everything that talks to the database before the rows are read: no query
  # may run on `con` while the rows are being read.
  src <- new_table_source(con, table, column, id, call = call, hint = function() {
    swapped_hint(patterns, function(p) DBI::dbExistsTable(con, p), fn, "table", what)
  }, reserved = engine$reserved %||% hit_columns[-1L])
  # inside the database, where that is faster and gives the same result
  # (table-sql.R)
  # (not sparse counts: the SQL functions return dense ones)
  in_db <- if (!isTRUE(engine$sparse)) {
    table_sql_scan(con, table, src, column, id, output, engine, call)
  }
  if (!is.null(in_db)) {
    return(if (is.null(output)) in_db$value else invisible(in_db$value))
  }
  scan_table(con, table, src, column, id, chunk_rows, output, engine, call = call)
}

#' Scan a table in chunks with a search engine
#'
#' @param src The checked source (new_table_source()).
#' @param output `NULL` or the checked `output` table name.
#' @param engine A list: `mode` ("hits", "count" or "contains"), `plan` (the
#'   checked plan: `patterns` or `guides`, `cigar_style`, `region`),
#'   `submit(texts, batch, limit)` that starts the search of a chunk on the
#'   worker threads and returns a job for `ds_table_collect()` (or `NULL`
#'   when the engine has none), `search(texts, limit)` that searches a
#'   chunk's character vector at once, and `finish_piece(piece)` applied to
#'   each chunk's hit columns.
#' @return The result data frame, or with `output` the number of rows
#'   written, invisibly.
#' @noRd
scan_table <- function(con, table, src, column, id, chunk_rows, output,
                       engine, call) {
  out_spec <- if (!is.null(output)) new_output_spec(con, output, call = call)
  mode <- engine$mode
  plan <- engine$plan
  max_hits <- max_hits_option(call = call)
  # The row count of a table, where it is cheap to know (a DuckDB table):
  # the progress bar's total, and, for counts returned to R, the size of the
  # result, so that it is filled in place rather than bound from pieces at
  # the end (which would hold it twice).
  total <- NA_real_
  show_progress <- progress_wanted()
  prefill <- mode != "hits" && is.null(out_spec)
  if (show_progress || prefill) {
    total <- cheap_row_count(con, table, src)
  }

  reader <- open_table_reader(con, src, chunk_rows, call = call)
  on.exit(close_table_reader(reader), add = TRUE)
  # sparse counts need the rows whose sequence is NULL (NA counts)
  sparse <- isTRUE(engine$sparse)
  reader$want_na <- sparse
  # the sequences are also needed in R to cut the `region` column from
  # (only then: a search in place of an Arrow batch does not copy them)
  reader$keep_sequence <- column %in% id || isTRUE(plan$region)
  # an engine without a background search reads the sequences as R strings
  fetch_column <- if (!is.null(engine$submit)) column
  if (!is.null(out_spec)) {
    spool <- new_spool()
    on.exit(close_spool(spool), add = TRUE)
  }
  # The search of a chunk runs in the background while the next one is
  # fetched; whatever ends this call (an error, an interrupt) first stops
  # that search and waits for its threads, before the reader is closed.
  searcher <- new_chunk_searcher(engine, src, column, max_hits, call)
  searcher$output <- !is.null(out_spec)
  on.exit(cancel_chunk_search(searcher), add = TRUE, after = FALSE)

  progress <- if (show_progress) new_progress(paste("Searching", src$label), "rows", total)
  on.exit(progress_done(progress), add = TRUE)

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
  chunk <- fetch_search_chunk(reader, fetch_column, call = call)
  cols <- resolve_table_columns(src, chunk$names, column, id, call = call,
    reserved = engine$reserved %||% hit_columns[-1L])
  if (!is.null(out_spec)) {
    # before the first search: an id column that no table can take
    check_output_id_types(chunk$data, cols$id, column, call = call)
  }
  start_chunk_search(searcher, chunk, rows_done, limit_now())
  while (!is.null(chunk)) {
    following <- fetch_search_chunk(reader, fetch_column, call = call)
    table_test_hook("fetched")
    res <- finish_chunk_search(searcher, cols)
    n_res <- if (mode == "hits") length(res$record) else 0L
    if (!is.null(following)) {
      start_chunk_search(searcher, following, rows_done + chunk$n, limit_now(n_res))
    }
    if (sparse) {
      piece <- table_sparse_piece(res, chunk, cols, rows_done, column)
      pieces[[length(pieces) + 1L]] <- piece
      n_out <- n_out + length(piece$i)
      rows_done <- rows_done + chunk$n
      read_bytes <- chunk_garbage_bytes(chunk, column)
      chunk <- following
      rm(following, res, piece)
      gc_pace_step(pace, read_bytes)
      progress_update(progress, rows_done)
      next
    }
    piece <- table_piece(res, chunk, cols, rows_done, column, engine)
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

  if (sparse) {
    return(combine_sparse_pieces(pieces, engine$plan$patterns, cols, call))
  }
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
# Searching a chunk

#' Searching the chunks of a table, one in the background at a time
#'
#' `start_chunk_search()` starts the search of a chunk and returns at once;
#' `finish_chunk_search()` waits for it and returns what the binding does
#' (or raises its error in table terms); `cancel_chunk_search()` stops a
#' search that was started and not finished, and waits for its threads (it
#' runs from `on.exit()`). With overlap (the default, for an engine with a
#' `submit` function), the search runs on the worker threads through the
#' engine's `submit()` (`ds_table_submit()`) and `ds_table_collect()`: from
#' a DuckDB Arrow batch, which the search takes over and releases, or from
#' the chunk's character vector, which the job handle keeps alive. With
#' `options(ducksassy.table_overlap = FALSE)`, or an engine without
#' `submit` (CRISPR: the binding has no background entry point for it), the
#' chunk is searched by the engine's `search()` when it is finished, as the
#' vector function would.
#' @noRd
new_chunk_searcher <- function(engine, src, column, max_hits, call) {
  searcher <- new.env(parent = emptyenv())
  searcher$engine <- engine
  searcher$src <- src
  searcher$column <- column
  searcher$max_hits <- max_hits
  searcher$call <- call
  searcher$overlap <- table_overlap_wanted() && !is.null(engine$submit)
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
  batch <- chunk$batch
  job <- searcher$engine$submit(searcher$texts, batch, searcher$limit)
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
    res <- searcher$engine$search(searcher$texts, searcher$limit)
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

