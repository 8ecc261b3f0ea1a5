#' Search inside DuckDB: the sassy SQL functions
#'
#' ducksassy ships a DuckDB extension that runs the same search engine as the
#' R functions inside DuckDB's SQL, on DuckDB's own worker threads, so a
#' search can be part of a query: `WHERE`, `JOIN ... ON`, `GROUP BY`,
#' `CREATE TABLE AS`, and dplyr through dbplyr.
#'
#' `sassy_duckdb()` creates a duckdb driver whose database can load the
#' extension, and loads it: every connection made with
#' `DBI::dbConnect(sassy_duckdb())` (or with the same driver later) has the
#' functions. (The driver keeps one connection of its own open, so that the
#' database stays open with the functions when your connections close; the
#' database closes with `duckdb::duckdb_shutdown(drv)` or when the driver is
#' garbage-collected.) `sassy_register(con)` loads them into a connection you already
#' have; its database must have been created with
#' `config = list(allow_unsigned_extensions = "true")` (the extension file
#' is built when the package is installed and is not signed by DuckDB), and
#' a database created without it fails with an error of class
#' `ducksassy_duckdb_error` that says how to create one. Registering twice is
#' harmless. Both need the packages DBI and duckdb (else an error of class
#' `ducksassy_dependency_error`).
#'
#' @section SQL functions:
#' Optional arguments are positional, in the R functions' order; a `NULL`
#' argument gives a `NULL` result, except `overhang` and `max_n_frac` of the
#' search functions, where `NULL` means "not set" as in R (so that
#' `max_n_frac` can be given alone); coordinates are 1-based and inclusive,
#' like SQL's `substr()`. Each gives exactly what the R function of the same
#' name gives on the same strings.
#'
#' * `sassy_count(text, pattern, k [, alphabet [, rc [, all_endpoints
#'   [, overhang [, max_n_frac]]]]])` -> `BIGINT`: as [sassy_count()].
#'   `alphabet` is `'iupac'` (default), `'dna'` or `'ascii'`; `rc` defaults
#'   to `true` except for `'ascii'`.
#' * `sassy_contains(...)` -> `BOOLEAN`: as [sassy_contains()].
#' * `sassy_hits(...)` -> a list of structs with the fields `pattern`,
#'   `start`, `end`, `pattern_start`, `pattern_end`, `cost`, `strand`,
#'   `cigar` (as the columns of [sassy_search()]; quote `"end"` in SQL), for
#'   `UNNEST()`.
#' * The same three with a pattern panel, a `VARCHAR[]` in place of
#'   `pattern` (e.g. `['ACGT', 'GGCC']` or a column made with `list()`):
#'   many patterns in one call, batched like the R functions. `sassy_count`
#'   and `sassy_contains` then return one value per pattern (`BIGINT[]`,
#'   `BOOLEAN[]`), and the hits' `pattern` field is the 1-based index of the
#'   pattern in the list.
#' * `sassy_crispr_hits(text, guide, k [, pam_length [, allow_pam_edits
#'   [, max_n_frac [, rc]]]])` -> hits as [sassy_crispr()] finds them
#'   (defaults 3, `false`, 0.2, `true`), with the field `guide` in place of
#'   `pattern`; `guide` may be a `VARCHAR[]`.
#' * `sassy_assign(text, patterns, k [, alphabet [, rc [, all_endpoints
#'   [, overhang [, max_n_frac [, ends [, margin]]]]]]])` -> a `STRUCT`
#'   with the fields `pattern`, `cost`, `start`, `end`, `strand`,
#'   `other_cost`, `status`: the best pattern of the text, as the columns of
#'   [sassy_assign()] (`pattern` the 1-based index in the `VARCHAR[]`
#'   `patterns`, or `NULL` when `status` is `'unassigned'`; `status`
#'   `'assigned'`, `'ambiguous'` or `'unassigned'`). `ends` is a list of
#'   one or two whole numbers (`[150]`: the first and last 150 letters,
#'   `[150, 0]`: the start only) or `NULL` (whole texts, the default),
#'   `margin` a whole number (default 0). A `NULL` text gives a `NULL`
#'   struct. Its fields are read as `a.status`, `a.pattern`, or all of them
#'   with `a.*` (or `unnest(a)`); `patterns` may also be a single `VARCHAR`.
#' * `sassy_backend()` -> the SIMD backend the functions run: the one R
#'   uses (see [sassy_backend_info()]).
#'
#' Bad input (a letter outside the alphabet, `k` not less than the pattern's
#' length) fails the query with the R functions' message; the connection
#' stays usable. The functions run only in an R session that has ducksassy
#' loaded (the extension calls the package's library).
#'
#' @section Parallel queries:
#' DuckDB runs a query on `SET threads = n` threads, each searching its own
#' chunks of 2048 rows. A query whose result comes back to R keeps the rows
#' in order and then runs on one thread: `SET preserve_insertion_order =
#' false` lets it use them all (aggregates, `CREATE TABLE AS` and `COPY` run
#' in parallel anyway).
#'
#' @param dbdir Passed to [duckdb::duckdb()]: `":memory:"` or a database file.
#' @param ... Passed to [duckdb::duckdb()]. Unless `shared_home` is among them,
#'   `shared_home = FALSE` is passed where duckdb has that argument (2.0 and
#'   later): the temporary home directory is accepted, and duckdb prints no
#'   note about it at every call.
#' @param config A named list of DuckDB settings, passed to
#'   [duckdb::duckdb()] with `allow_unsigned_extensions = "true"` added;
#'   `NULL`: none.
#' @param con A DBI connection to a duckdb database.
#' @return `sassy_duckdb()`: a duckdb driver object, for [DBI::dbConnect()].
#'   `sassy_register()`: `con`, invisibly.
#' @export
#' @examples
#' if (requireNamespace("duckdb", quietly = TRUE)) {
#'   con <- DBI::dbConnect(sassy_duckdb())
#'   DBI::dbWriteTable(con, "reads", data.frame(
#'     id = 1:3, seq = c("TTACGTACGTTT", "GGGGGGGG", "ACGTTCGTAC")
#'   ))
#'   print(DBI::dbGetQuery(con, "
#'     SELECT id, sassy_count(seq, 'ACGTACGT', 1) AS n
#'     FROM reads WHERE sassy_contains(seq, 'ACGTACGT', 1)"))
#'   # every hit as a row
#'   print(DBI::dbGetQuery(con, "
#'     SELECT id, h.start, h.\"end\", h.cost, h.strand, h.cigar
#'     FROM (SELECT id, unnest(sassy_hits(seq, 'ACGTACGT', 1)) AS h FROM reads)"))
#'   # the best of several barcodes per read
#'   print(DBI::dbGetQuery(con, "
#'     SELECT id, a.pattern, a.cost, a.status
#'     FROM (SELECT id, sassy_assign(seq, ['ACGTACGT', 'TTCGTACG'], 1) AS a
#'           FROM reads) ORDER BY id"))
#'   DBI::dbDisconnect(con)
#' }
sassy_duckdb <- function(dbdir = ":memory:", ..., config = list()) {
  call <- rlang::current_env()
  check_duckdb(call)
  if (!is.character(dbdir) || length(dbdir) != 1L || is.na(dbdir)) {
    ducksassy_abort(
      c("`dbdir` must be a single string (a file, or \":memory:\").",
        x = "It is {format_value(dbdir)}."),
      arg = "dbdir", call = call
    )
  }
  if (is.null(config)) config <- list()
  if (!is.list(config) || (length(config) > 0L &&
    (is.null(names(config)) || any(!nzchar(names(config)))))) {
    ducksassy_abort(
      c("`config` must be a named list of DuckDB settings.",
        x = "It is {format_value(config)}."),
      arg = "config", call = call
    )
  }
  config <- as.list(config)
  config$allow_unsigned_extensions <- "true"
  args <- list(dbdir = dbdir, ..., config = config)
  # duckdb 2.0 prints a note on its temporary home directory at every
  # driver it creates (the rendered vignette's included): accepting the
  # temporary directory silences it, unless the caller chose otherwise
  if ("shared_home" %in% names(formals(duckdb::duckdb)) && !"shared_home" %in% names(args)) {
    args$shared_home <- FALSE
  }
  drv <- tryCatch(
    do.call(duckdb::duckdb, args),
    error = function(e) {
      ducksassy_abort(
        c("duckdb could not open the database.", x = "{conditionMessage(e)}"),
        class = "ducksassy_duckdb_error", call = call, parent = e
      )
    }
  )
  con <- DBI::dbConnect(drv)
  sassy_register(con)
  # The functions live in the database instance, for all its connections.
  # duckdb closes the instance when its last connection is closed, and the
  # driver's next dbConnect() then opens a fresh one, without them: this
  # connection, kept with the driver, keeps the instance (it goes with the
  # driver, or with duckdb::duckdb_shutdown(drv)).
  attr(drv, "ducksassy_connection") <- con
  drv
}

#' @rdname sassy_duckdb
#' @export
sassy_register <- function(con) {
  call <- rlang::current_env()
  check_duckdb(call)
  if (!inherits(con, "duckdb_connection") || !DBI::dbIsValid(con)) {
    ducksassy_abort(
      c(
        "`con` must be an open connection to a duckdb database.",
        x = "It is {format_value(con)}."
      ),
      class = "ducksassy_duckdb_error",
      arg = "con",
      call = call
    )
  }
  allowed <- DBI::dbGetQuery(
    con, "SELECT current_setting('allow_unsigned_extensions')::VARCHAR AS x"
  )$x
  if (!identical(tolower(allowed), "true")) {
    ducksassy_abort(
      c(
        "The database of `con` cannot load the ducksassy SQL functions.",
        x = "It was created without the setting `allow_unsigned_extensions`.",
        i = paste(
          "Create it with `con <- DBI::dbConnect(ducksassy::sassy_duckdb())`,",
          "or with `duckdb::duckdb(config = list(allow_unsigned_extensions =",
          "\"true\"))` and then `ducksassy::sassy_register(con)`",
          "(duckdb keeps one database per file: shut down the one that is",
          "open first, with `duckdb::duckdb_shutdown()`)."
        )
      ),
      class = "ducksassy_duckdb_error",
      arg = "con",
      call = call
    )
  }
  path <- duckdb_extension_file(call)
  tryCatch(
    DBI::dbExecute(con, paste0("LOAD ", DBI::dbQuoteString(con, path))),
    error = function(e) {
      platform <- tryCatch(
        DBI::dbGetQuery(con, "PRAGMA platform")$platform[[1]],
        error = function(e2) NA_character_
      )
      ducksassy_abort(
        c(
          "DuckDB could not load the ducksassy SQL functions.",
          x = "{conditionMessage(e)}",
          i = "The extension file is {.file {path}}.",
          i = if (identical(duckdb_error_kind(e), "platform") && !is.na(platform)) {
            paste0(
              "This DuckDB's platform is \"", platform, "\": reinstall ducksassy ",
              "with the environment variable DUCKSASSY_DUCKDB_PLATFORM=", platform, "."
            )
          }
        ),
        class = "ducksassy_duckdb_error",
        call = call,
        parent = e
      )
    }
  )
  invisible(con)
}

check_duckdb <- function(call) {
  check_suggested("DBI", "for the SQL functions", call = call)
  check_suggested("duckdb", "for the SQL functions", call = call)
}

# The extension file: installed next to the package's own library (see
# src/install.libs.R), found from where R loaded that library.
duckdb_extension_file <- function(call) {
  dll <- getLoadedDLLs()[["ducksassy"]]
  path <- file.path(dirname(dll[["path"]]), "ducksassy.duckdb_extension")
  if (!file.exists(path)) {
    ducksassy_abort(
      c(
        "The ducksassy DuckDB extension file is missing.",
        x = "{.file {path}} does not exist; reinstall ducksassy."
      ),
      class = "ducksassy_duckdb_error",
      call = call
    )
  }
  normalizePath(path)
}
