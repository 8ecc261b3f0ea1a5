# sassy_search_table(): resolving `table` into a query, reading it in
# chunks (DuckDB's Arrow stream or dbFetch()), and driver errors.

# ---------------------------------------------------------------------------
# The source: a table, an Id or a query

#' Resolve `table` into the query that reads it
#'
#' For a table name or `DBI::Id`, checks that the table exists and has
#' `column` and the `id` columns, and selects only those; a `DBI::SQL()`
#' query is run as given and its columns are checked on the first chunk.
#' @return A list: `kind` ("table" or "query"), `sql` (the query to run),
#'   `quoted` (the quoted table identifier or `NULL`), `label` (for
#'   messages), `fields` (the table's columns, `NULL` for a query).
#' @noRd
new_table_source <- function(con, table, column, id, call = rlang::caller_env(),
                             hint = NULL, reserved = hit_columns[-1L]) {
  if (inherits(table, "SQL")) {
    sql <- as.character(table)
    if (length(sql) != 1L || is.na(sql) || !nzchar(trimws(sql))) {
      abort_bad_table(table, call)
    }
    check_one_select(sql, call)
    return(list(
      kind = "query", sql = sql, quoted = NULL, label = "the query",
      fields = NULL
    ))
  }
  is_name <- is.character(table) && length(table) == 1L && !is.na(table) &&
    nzchar(table)
  if (!is_name && !is_dbi_id(table)) {
    abort_bad_table(table, call)
  }
  quoted <- db_call(
    DBI::dbQuoteIdentifier(con, table),
    "Can't quote the table name.", "table", call
  )
  label <- as.character(quoted)
  exists <- db_call(
    DBI::dbExistsTable(con, table),
    paste0("Can't look up table ", label, "."), "table", call
  )
  if (!isTRUE(exists)) {
    # The same words whatever the backend: DuckDB's dbQuoteIdentifier()
    # leaves a plain name bare, SQLite's puts it in backticks.
    shown <- as.character(DBI::dbQuoteIdentifier(DBI::ANSI(), table))
    ducksassy_abort(
      c(
        paste0("Can't find table ", cli_escape(shown), "."),
        x = paste0("`table` is ", table_value(table), ", which does not exist on `con`."),
        # (swapped arguments: the patterns name a table; swapped.R)
        if (is.function(hint)) hint(),
        i = "For a query, give `DBI::SQL(\"SELECT ...\")`; for a table in a schema, `DBI::Id(schema = , table = )`."
      ),
      arg = "table",
      value = shown,
      call = call
    )
  }
  fields <- db_call(
    DBI::dbListFields(con, table),
    paste0("Can't list the columns of table ", label, "."), "table", call
  )
  src <- list(kind = "table", quoted = quoted, label = label, fields = fields)
  cols <- resolve_table_columns(src, fields, column, id, call = call, reserved = reserved)
  wanted <- unique(c(cols$id, column))
  select <- vapply(
    wanted,
    function(x) as.character(DBI::dbQuoteIdentifier(con, x)),
    character(1)
  )
  src$sql <- paste0(
    "SELECT ", paste(select, collapse = ", "), " FROM ", as.character(quoted)
  )
  src
}

abort_bad_table <- function(table, call) {
  what <- if (inherits(table, "SQL")) "an empty DBI::SQL() query" else format_value(table)
  ducksassy_abort(
    c(
      "`table` must be a table name (a single string), a `DBI::Id()` or a `DBI::SQL()` query.",
      x = paste0("`table` is ", what, ".")
    ),
    arg = "table",
    value = table,
    call = call
  )
}

#' Stop unless a `DBI::SQL()` query is one statement that reads rows
#'
#' The query is run as given, so `SELECT * FROM t; DROP TABLE t` would run
#' the `DROP` (and then fail on its result). Refused before it runs: a `;`
#' followed by more than whitespace or comments, or a statement that does
#' not begin with `SELECT`, `WITH`, `VALUES`, `FROM` or `TABLE` (after
#' opening parentheses and comments). Quoted strings and identifiers and
#' comments are skipped over, so a `;` inside them is fine.
#' @noRd
check_one_select <- function(sql, call) {
  scan <- sql_statements(sql)
  first <- toupper(regmatches(scan$head, regexpr("^[A-Za-z]+", scan$head)))
  starts <- c("SELECT", "WITH", "VALUES", "FROM", "TABLE")
  if (scan$n > 1L || length(first) == 0L || !first %in% starts) {
    ducksassy_abort(
      c(
        "A `DBI::SQL()` query in `table` must be one `SELECT` statement.",
        x = if (scan$n > 1L) {
          paste0("The query has ", scan$n, " statements (separated by `;`); it was not run.")
        } else {
          paste0(
            "The query begins with ", if (length(first) == 0L) "no keyword" else paste0("`", first, "`"),
            "; it was not run."
          )
        },
        i = "Give one query that begins with `SELECT`, `WITH`, `VALUES`, `FROM` or `TABLE`; run other statements with `DBI::dbExecute()` first."
      ),
      class = c("ducksassy_query_error", "ducksassy_input_error"),
      arg = "table",
      value = sql,
      call = call
    )
  }
  invisible()
}

#' The statements of an SQL text: how many (non-empty, split at `;` outside
#' quotes and comments) and the first one's text with leading comments,
#' whitespace and `(` removed.
#' @noRd
sql_statements <- function(sql) {
  ch <- strsplit(sql, "", fixed = TRUE)[[1L]]
  n <- length(ch)
  code <- logical(n) # outside quotes and comments
  i <- 1L
  while (i <= n) {
    c1 <- ch[[i]]
    c2 <- if (i < n) ch[[i + 1L]] else ""
    if (c1 %in% c("'", "\"", "`")) {
      j <- i + 1L
      repeat {
        if (j > n) break
        if (ch[[j]] == c1) {
          if (j < n && ch[[j + 1L]] == c1) {
            j <- j + 2L
            next
          }
          break
        }
        j <- j + 1L
      }
      code[i] <- TRUE # a quote starts a token
      i <- j + 1L
    } else if (c1 == "-" && c2 == "-") {
      while (i <= n && ch[[i]] != "\n") i <- i + 1L
    } else if (c1 == "/" && c2 == "*") {
      j <- i + 2L
      while (j < n && !(ch[[j]] == "*" && ch[[j + 1L]] == "/")) j <- j + 1L
      i <- j + 2L
    } else {
      code[i] <- TRUE
      i <- i + 1L
    }
  }
  shown <- ifelse(code, ch, " ")
  # a quoted token stands as one letter-free mark
  shown[code & ch %in% c("'", "\"", "`")] <- "#"
  parts <- strsplit(paste(shown, collapse = ""), ";", fixed = TRUE)[[1L]]
  parts <- parts[grepl("[^[:space:]]", parts)]
  head <- if (length(parts) > 0L) sub("^[[:space:](]*", "", parts[[1L]]) else ""
  list(n = length(parts), head = head)
}

table_value <- function(table) {
  if (is_dbi_id(table)) {
    "a DBI::Id()"
  } else {
    format_value(table)
  }
}

#' Check `column` and `id` against the columns of the source
#' @param reserved The names an `id` column may not have: the result's own
#'   columns (the hit columns; an assignment's, assign_table_columns()).
#' @return A list: `id` (the id columns, possibly empty) and `record` (TRUE
#'   when there are no id columns and a row number takes their place).
#' @noRd
resolve_table_columns <- function(src, fields, column, id, call, reserved = hit_columns[-1L]) {
  where <- if (src$kind == "query") "the result of the query" else paste0("table ", src$label)
  available <- function() {
    shown <- utils_head(fields, 10L)
    c(i = paste0(
      "Its columns: ",
      if (length(fields) == 0L) "none" else paste0("\"", cli_escape(shown), "\"", collapse = ", "),
      if (length(fields) > 10L) paste0(", ... (", length(fields), " in all)"),
      "."
    ))
  }
  if (!(column %in% fields)) {
    ducksassy_abort(
      c(
        paste0("Can't find column \"", cli_escape(column), "\" in ", cli_escape(where), "."),
        x = paste0("`column` is ", format_value(column), "."),
        available()
      ),
      arg = "column",
      value = column,
      call = call
    )
  }
  if (is.null(id)) {
    id <- setdiff(fields, column)
  } else {
    bad <- which(!(id %in% fields))
    if (length(bad) > 0L) {
      i <- bad[[1L]]
      ducksassy_abort(
        c(
          paste0("Can't find `id` column \"", cli_escape(id[[i]]), "\" in ", cli_escape(where), "."),
          locate_bullet("id", i, id[[i]]),
          available()
        ),
        arg = "id",
        index = i,
        value = id[[i]],
        call = call
      )
    }
  }
  hits <- identical(reserved, hit_columns[-1L])
  clash <- which(id %in% reserved)
  if (length(clash) > 0L) {
    i <- clash[[1L]]
    what <- if (hits) "hit" else "result"
    ducksassy_abort(
      c(
        paste0("`id` column \"", cli_escape(id[[i]]), "\" has the name of a ", what, " column."),
        x = paste0(
          "The ", what, " columns ", paste0("`", reserved, "`", collapse = ", "),
          " can't be `id` columns."
        ),
        i = "Choose other `id` columns, or rename it in a query: `DBI::SQL(\"SELECT start AS region_start, ...\")`."
      ),
      arg = "id",
      value = id[[i]],
      call = call
    )
  }
  list(id = id, record = length(id) == 0L)
}

# ---------------------------------------------------------------------------
# Reading chunks

#' Open the streaming read of the source
#'
#' DuckDB (>= 1.5.4, with nanoarrow): its Arrow stream, one batch of
#' `chunk_rows` rows per `dbFetchArrowChunk()`. Anything else:
#' `dbSendQuery()` and `dbFetch(n = chunk_rows)`. The internal option
#' `ducksassy.table_fetch` (`"auto"`, `"arrow"`, `"dbi"`) picks the path for
#' tests. No fetch asks for more than [table_fetch_cap()] rows: drivers
#' allocate for the rows asked (RSQLite for 2^31 rows with
#' `chunk_rows = .Machine$integer.max`).
#' @return An environment: `res`, `arrow`, `done`, `first`, `chunk_rows`,
#'   and `keep_sequence` (FALSE; set it when the sequence column is an `id`
#'   column too, so that it is converted to R even when searched in place).
#' @noRd
open_table_reader <- function(con, src, chunk_rows, call = rlang::caller_env()) {
  reader <- new.env(parent = emptyenv())
  reader$arrow <- use_arrow_stream(con)
  reader$chunk_rows <- table_fetch_rows(chunk_rows)
  reader$keep_sequence <- FALSE
  reader$done <- FALSE
  reader$first <- TRUE
  reader$res <- NULL
  reader$label <- src$label
  reader$res <- db_call(
    if (reader$arrow) {
      DBI::dbSendQueryArrow(con, src$sql)
    } else {
      DBI::dbSendQuery(con, src$sql)
    },
    paste0("Can't read ", src$label, "."), "table", call
  )
  reader
}

# The most rows one fetch asks for. A chunk of more rows than this would
# not search faster (a million rows keep every thread busy), and drivers
# allocate for the rows asked before reading any.
table_fetch_cap <- function() {
  1000000L
}

table_fetch_rows <- function(chunk_rows) {
  as.integer(min(chunk_rows, table_fetch_cap()))
}

use_arrow_stream <- function(con) {
  how <- getOption("ducksassy.table_fetch", "auto")
  if (identical(how, "dbi")) {
    return(FALSE)
  }
  inherits(con, "duckdb_connection") &&
    requireNamespace("nanoarrow", quietly = TRUE) &&
    package_version(getNamespaceVersion("duckdb")) >= "1.5.4"
}

#' Fetch the next chunk as a data frame
#'
#' The first call always returns a data frame (with zero rows for an empty
#' source, so that its columns and types are known); later calls return
#' `NULL` when there is nothing left.
#' @noRd
fetch_table_chunk <- function(reader, call = rlang::caller_env()) {
  chunk <- fetch_search_chunk(reader, NULL, call = call)
  if (is.null(chunk)) NULL else chunk$data
}

#' Fetch the next chunk for the search
#'
#' @param column The sequence column, or `NULL` to convert every column to R.
#'   With a column name, an Arrow batch whose sequence column is text
#'   (`utf8`, `large_utf8`, `utf8_view`) is kept as Arrow: the search reads
#'   the sequences from its buffers (`ds_table_submit()`), and only the other
#'   columns become R vectors.
#' @return `NULL` when there is nothing left (never for the first call),
#'   or a list: `data`, a data frame of the columns converted to R; `n`, the
#'   number of rows; `names`, the columns of the source; `texts`, the
#'   sequences as a character vector or `NULL`; `batch`, `NULL` or the Arrow
#'   batch (`array`, the 1-based `index` and `format` of the sequence column).
#' @noRd
fetch_search_chunk <- function(reader, column, call = rlang::caller_env()) {
  if (reader$done) {
    return(NULL)
  }
  first <- reader$first
  reader$first <- FALSE
  chunk <- if (reader$arrow) {
    fetch_arrow_chunk(reader, column, call)
  } else {
    data <- db_call(
      DBI::dbFetch(reader$res, n = reader$chunk_rows),
      paste0("Can't read ", reader$label, "."), "table", call
    )
    list(data = data, n = nrow(data), names = names(data), batch = NULL)
  }
  n <- chunk$n
  if (!reader$arrow && (n == 0L || isTRUE(DBI::dbHasCompleted(reader$res)))) {
    reader$done <- TRUE
  }
  if (n == 0L) {
    reader$done <- TRUE
    if (!first) {
      release_batch(chunk$batch)
      return(NULL)
    }
  }
  chunk
}

# One Arrow batch, converted to R. The sequence column stays in the batch
# when the search can read it there (`column` given, a text type); then the
# batch is handed to the search, which takes it over and releases it.
# Otherwise every column is copied into ordinary R vectors and the batch is
# released at once, so no part of it outlives this call.
fetch_arrow_chunk <- function(reader, column, call) {
  array <- db_call(
    DBI::dbFetchArrowChunk(reader$res, chunk_size = reader$chunk_rows),
    paste0("Can't read ", reader$label, "."), "table", call
  )
  batch <- arrow_text_column(array, column)
  if (is.null(batch)) {
    on.exit(nanoarrow::nanoarrow_pointer_release(array), add = TRUE)
  } else {
    # released by the search that takes it over, or here on failure
    ok <- FALSE
    on.exit(if (!ok) nanoarrow::nanoarrow_pointer_release(array), add = TRUE)
  }
  data <- db_call(
    nanoarrow::convert_array(array),
    paste0("Can't convert the columns of ", reader$label, " to R."), "table", call,
    hint = "Cast them to text or numbers in a `DBI::SQL()` query, or choose other `id` columns."
  )
  if (!is.data.frame(data)) {
    abort_internal("an Arrow batch did not convert to a data frame", call)
  }
  n <- nrow(data)
  names <- names(data)
  na <- NULL
  if (!is.null(batch) && !isTRUE(reader$keep_sequence)) {
    if (isTRUE(reader$want_na)) {
      # the NULL sequences (sparse counts): from the null count, without
      # converting the sequences when there are none
      nulls <- array$children[[batch$index]]$null_count
      na <- if (identical(as.double(nulls), 0)) integer() else which(is.na(data[[column]]))
    }
    # never materialised: the search reads these sequences from the batch
    # (unless the sequence is an `id` column as well)
    data[[column]] <- NULL
  }
  for (j in seq_along(data)) {
    x <- data[[j]]
    # nanoarrow converts strings lazily (ALTREP over the batch's buffers);
    # subsetting makes an ordinary character vector.
    if (is.character(x)) {
      data[[j]] <- x[seq_len(n)]
    }
  }
  ok <- TRUE
  list(data = data, n = n, names = names, batch = batch, na = na)
}

# The batch and its sequence column when the search can read the column in
# place: a `utf8`, `large_utf8` or `utf8_view` column (not dictionary
# encoded, as a DuckDB ENUM is). NULL otherwise, or when the option
# `ducksassy.table_overlap` is FALSE.
arrow_text_column <- function(array, column) {
  if (is.null(column) || !table_overlap_wanted()) {
    return(NULL)
  }
  schema <- nanoarrow::infer_nanoarrow_schema(array)
  index <- match(column, names(schema$children))
  if (is.na(index)) {
    return(NULL)
  }
  child <- schema$children[[index]]
  if (!(child$format %in% c("u", "U", "vu")) || !is.null(child$dictionary)) {
    return(NULL)
  }
  list(array = array, index = index, format = child$format)
}

release_batch <- function(batch) {
  if (!is.null(batch)) {
    nanoarrow::nanoarrow_pointer_release(batch$array)
  }
  invisible()
}

# Whether a table search overlaps the search of a chunk with the fetch of
# the next (and reads DuckDB's sequences from the Arrow batch). The option
# is for benchmarks and tests; TRUE unless set to FALSE.
table_overlap_wanted <- function() {
  !isFALSE(getOption("ducksassy.table_overlap", TRUE))
}

close_table_reader <- function(reader) {
  res <- reader$res
  if (!is.null(res)) {
    reader$res <- NULL
    reader$done <- TRUE
    try(DBI::dbClearResult(res), silent = TRUE)
  }
  invisible()
}

# The sequences of a chunk as a character vector: NULL values are NA; a
# column that is entirely NULL may come back as logical, a DuckDB ENUM as a
# factor. Anything else is not text.
chunk_texts <- function(x, src, column, call) {
  if (is.character(x)) {
    return(x)
  }
  if (is.factor(x)) {
    return(as.character(x))
  }
  if (is.logical(x) && !is.object(x) && all(is.na(x))) {
    return(rep(NA_character_, length(x)))
  }
  what <- if (is.list(x)) {
    paste0("a list (", class(x)[[1L]], ", e.g. BLOB)")
  } else if (is.object(x)) {
    paste0(class(x)[[1L]], " (", typeof(x), ")")
  } else {
    typeof(x)
  }
  where <- if (src$kind == "query") "of the query" else paste0("of table ", src$label)
  ducksassy_abort(
    c(
      paste0("Column \"", cli_escape(column), "\" ", cli_escape(where), " must be text."),
      x = paste0("It is read as ", cli_escape(what), "."),
      i = "Cast it to text in a query, e.g. `DBI::SQL(\"SELECT id, CAST(seq AS VARCHAR) AS seq FROM t\")`."
    ),
    arg = "column",
    value = column,
    call = call
  )
}

#' The number of rows of a table, when it costs nothing to ask
#'
#' Only for a DuckDB base or temporary table, where `COUNT(*)` is read from
#' the table's metadata. A view or query can take as long as the search to
#' count, and SQLite counts by scanning the whole table, without a way to
#' interrupt it; they get `NA` (no total for the progress bar, and counts
#' are bound from chunks). `NA` also when anything fails.
#' @noRd
cheap_row_count <- function(con, table, src) {
  if (is.null(src$quoted) || !inherits(con, "duckdb_connection")) {
    return(NA_real_)
  }
  parts <- if (is_dbi_id(table)) table@name else c(table = table)
  schema <- if ("schema" %in% names(parts)) parts[["schema"]] else NA_character_
  types <- tryCatch(
    DBI::dbGetQuery(
      con,
      paste(
        "SELECT table_type FROM information_schema.tables",
        "WHERE table_name = ? AND (? IS NULL OR table_schema = ?)"
      ),
      params = list(parts[["table"]], schema, schema)
    )$table_type,
    error = function(e) NULL
  )
  if (length(types) == 0L || !all(types %in% c("BASE TABLE", "LOCAL TEMPORARY"))) {
    return(NA_real_)
  }
  n <- tryCatch(
    DBI::dbGetQuery(con, paste0("SELECT COUNT(*) AS n FROM ", as.character(src$quoted)))[[1L]],
    error = function(e) NA_real_
  )
  if (length(n) != 1L || is.na(n)) NA_real_ else as.double(n)
}

# ---------------------------------------------------------------------------
# Database errors

#' Evaluate a DBI call; turn a driver error into a ducksassy_db_error
#'
#' The driver's condition is kept as the parent, so its message is shown
#' under ours. Interrupts pass through untouched.
#' @noRd
db_call <- function(expr, headline, arg, call, hint = NULL) {
  # every error signalled on the way, in order (see masked_db_error())
  seen <- list()
  tryCatch(
    withCallingHandlers(
      expr,
      error = function(e) seen[[length(seen) + 1L]] <<- e
    ),
    error = function(e) {
      if (inherits(e, "ducksassy_error")) {
        stop(e)
      }
      e <- masked_db_error(e, seen)
      ducksassy_abort(
        c(cli_escape(headline), if (!is.null(hint)) c(i = hint)),
        class = c("ducksassy_db_error", "ducksassy_input_error"),
        arg = arg,
        parent = e,
        call = call
      )
    }
  )
}

#' The error that explains a failed database call
#'
#' A driver can fail a second time while it cleans up after the first
#' error, and the second error then replaces the first: duckdb's
#' `dbAppendTable()` unregisters its temporary view in an `on.exit()`, which
#' fails inside the transaction the failed `INSERT` aborted ("Current
#' transaction is aborted"), so a duplicate key or other constraint failure
#' would reach the user as that (issue 17). When the last error says only
#' that the transaction is aborted, the first error signalled before it is
#' the real one.
#' @noRd
masked_db_error <- function(e, seen) {
  aborted <- function(x) {
    grepl("transaction is aborted|current transaction is aborted|transaction has been aborted",
      conditionMessage(x),
      ignore.case = TRUE
    )
  }
  if (!aborted(e)) {
    return(e)
  }
  real <- Filter(function(x) !aborted(x) && !inherits(x, "ducksassy_error"), seen)
  if (length(real) > 0L) real[[1L]] else e
}
