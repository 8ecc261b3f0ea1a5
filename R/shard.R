#' Scaling out: file and table searches sharded over BiocParallel
#'
#' @description
#' [sassy_search_fastx()], [sassy_crispr_fastx()] and [sassy_search_table()]
#' (with their count and contains forms), [sassy_assign_fastx()] and
#' [sassy_assign_table()] take a `BPPARAM` argument. `NULL` (the default) searches in this R
#' session, on `threads` threads. A BiocParallel parameter object
#' (`BiocParallel::SnowParam()`, `MulticoreParam()`, `BatchtoolsParam()` for
#' SLURM, SGE, LSF, ...) splits the work into *shards*, searches each shard
#' in a BiocParallel worker with [BiocParallel::bplapply()], and binds the
#' shards' results in shard order. The result is identical to that of the
#' same call without `BPPARAM`: the same rows, in the same order, with the
#' same `record` numbers.
#'
#' @section Shards of files:
#' Each file is one shard when there are at least as many files as workers
#' (`BiocParallel::bpnworkers(BPPARAM)`): the common case of many FASTQ
#' files. With fewer files than workers, the records of each file are counted
#' first (a parse without a search; by the workers when there are several
#' files, in this session for one) and the files are split into record
#' ranges of about `total / workers` records, so that every worker gets work.
#' The option `ducksassy.shard_records` (a whole number) sets the most
#' records per shard instead, and then every file larger than that is split
#' into equal ranges. A worker reads its range on its own: it parses (and
#' decompresses) the records before the range and skips them, then searches
#' the range; record numbers stay those of the file. Skipping costs a parse,
#' much less than a search, but for gzip files a range near the end of a
#' large file decompresses most of it: prefer many files to few large ones.
#'
#' @section Shards of tables:
#' A table (or query) is split into row ranges: the rows are counted
#' (`SELECT COUNT(*)` of the query the single-process search runs) and cut
#' into `bpnworkers(BPPARAM)` ranges of consecutive rows, or equal ranges
#' of at most `getOption("ducksassy.shard_rows")` rows when that is set. Each worker
#' opens the database file itself, read-only, and reads its range with
#' `LIMIT`/`OFFSET` over the same query, so a row's place is its place in
#' the single-process scan, and a result without `id` columns keeps its
#' `record` numbers.
#'
#' This needs a database that another process can open:
#'
#' * DuckDB: a database file (not `:memory:`), connected read-only
#'   (`DBI::dbConnect(duckdb::duckdb(), path, read_only = TRUE)`): DuckDB
#'   lets several processes open a file only when none of them writes to
#'   it. Each worker opens it with `read_only = TRUE`.
#' * SQLite (RSQLite): a database file (not `:memory:` or a temporary
#'   database); each worker opens it with `flags = RSQLite::SQLITE_RO`.
#'
#' Other connections, in-memory databases and a read-write DuckDB
#' connection are a `ducksassy_input_error` that says why. Temporary tables,
#' views and attached databases of `con` are not visible to the workers;
#' the paths must be the same on the workers (a shared file system on a
#' cluster).
#'
#' @section Order:
#' Shards are bound in order: files in the order of `paths`, records and
#' rows in file and scan order. For tables, the result equals the
#' single-process result when the database returns the query's rows in the
#' same order every time it runs it: DuckDB does for table scans (it keeps
#' insertion order unless `preserve_insertion_order` is turned off), and any
#' database does for a `DBI::SQL()` query with an `ORDER BY` on a unique key.
#' For a query whose order is not defined (an unordered join or aggregate),
#' add `ORDER BY`.
#'
#' @section Threads and options:
#' Each worker searches its shard on `threads` threads, the value of the
#' call (its default, [sassy_threads()], is evaluated in this session; on a
#' cluster whose nodes differ from this machine, give `threads`): with
#' several workers on one machine, choose `threads` so that workers times
#' threads does not exceed the cores. The `ducksassy.*` options of this
#' session (the hit limit, batch sizes) are set in each worker for the
#' search. The hit limit (`getOption("ducksassy.max_hits")`) applies to the
#' bound result. The workers must load ducksassy from a library they see:
#' socket and batchtools workers start new R processes, which find the
#' package through `R_LIBS` / `.libPaths()` like any other package.
#'
#' @section Errors:
#' Argument errors (and, for tables, a missing table or column) are raised
#' in this session before any worker starts. A shard that fails in its
#' worker is reported with the shard it held: a `ducksassy_shard_error`
#' (also a `ducksassy_error`, and of the worker error's ducksassy classes,
#' e.g. `ducksassy_file_error`) whose message names the shard (file and
#' record range, or table and row range) and gives the worker's error; its
#' fields `shard` (index), `shards` (a data frame of all failed shards, as
#' below) and, for file errors, `path`, `record` and `line`. Nothing is
#' returned then: no partial result.
#'
#' With `BPPARAM` set to go on after errors
#' (`BiocParallel::bpstopOnError(BPPARAM) <- FALSE`, or `stop.on.error =
#' FALSE` in its constructor), the result of the shards that succeeded is
#' returned with a warning of class `ducksassy_shard_warning`, and the
#' attribute `missing_shards`: a data frame with one row per failed shard
#' and columns `shard`, `source` (file path or table), `first` and `last`
#' (1-based record or row range; `last` is `NA` for "to the end") and
#' `error` (the worker's message). When every shard fails, the call fails.
#'
#' @section Output:
#' `sassy_search_table(output = )` cannot be combined with `BPPARAM`: the
#' workers' results come back to this session, so write them with
#' [DBI::dbAppendTable()] or [DBI::dbWriteTable()].
#'
#' @name sharding
#' @aliases ducksassy_sharding
#' @seealso The vignette's section "Scaling out";
#'   [BiocParallel::SnowParam()], [BiocParallel::BatchtoolsParam()].
#' @examplesIf requireNamespace("BiocParallel", quietly = TRUE)
#' reads <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
#' # one file, two record ranges of 100 records, searched one after the other
#' # here; BiocParallel::SnowParam(workers = 2) would search them in two
#' # R processes
#' op <- options(ducksassy.shard_records = 100)
#' hits <- sassy_search_fastx(reads, "GACGCTCAGTAATGTGACGA", k = 2,
#'   BPPARAM = BiocParallel::SerialParam())
#' options(op)
#' identical(hits, sassy_search_fastx(reads, "GACGCTCAGTAATGTGACGA", k = 2))
NULL

# ---------------------------------------------------------------------------
# Running shards

#' Check `BPPARAM`: BiocParallel installed, a BiocParallelParam
#' @noRd
check_bpparam <- function(BPPARAM, call = rlang::caller_env()) {
  if (!requireNamespace("BiocParallel", quietly = TRUE)) {
    abort_dependency(
      "`BPPARAM` needs the BiocParallel package.",
      "Install it with `BiocManager::install(\"BiocParallel\")`, or leave `BPPARAM = NULL`.",
      call
    )
  }
  if (!methods_is(BPPARAM, "BiocParallelParam")) {
    abort_scalar(
      "BPPARAM", "`NULL` or a BiocParallel parameter object", BPPARAM, call,
      hint = "E.g. `BiocParallel::SnowParam(workers = 4)` or `BiocParallel::BatchtoolsParam()`."
    )
  }
  BPPARAM
}

#' Run `work(shard, args)` for every shard on BPPARAM's workers
#'
#' Every worker catches its own error and returns it as plain data (a
#' condition's call environment would drag the worker's frames over the
#' socket), so one failing shard never hides the others' results; a worker
#' that dies (or a scheduler error) comes back through `bptry()`.
#' @return A list, one element per shard: `list(ok = TRUE, value = )` or
#'   `list(ok = FALSE, error = list(message, class, fields))`.
#' @noRd
shard_run <- function(shards, work, args, BPPARAM, call) {
  opts <- options()
  opts <- opts[startsWith(names(opts), "ducksassy.")]
  opts$ducksassy.progress <- FALSE
  if (shard_progress(BPPARAM)) {
    # BiocParallel parameters are reference objects: give the caller's back
    on.exit(try(BiocParallel::bpprogressbar(BPPARAM) <- FALSE, silent = TRUE), add = TRUE)
  }
  res <- tryCatch(
    BiocParallel::bptry(BiocParallel::bplapply(
      shards, shard_worker,
      work = work, args = args, opts = opts,
      BPPARAM = BPPARAM
    )),
    error = function(e) {
      ducksassy_abort(
        c(
          "Can't run the shards on `BPPARAM`.",
          x = cli_escape(conditionMessage(e))
        ),
        class = "ducksassy_shard_error",
        arg = "BPPARAM",
        parent = e,
        call = call
      )
    }
  )
  if (inherits(res, "condition") || length(res) != length(shards)) {
    # bptry() gives the error itself when BiocParallel failed as a whole
    msg <- if (inherits(res, "condition")) conditionMessage(res) else "a result per shard is missing"
    ducksassy_abort(
      c("Can't run the shards on `BPPARAM`.", x = cli_escape(msg)),
      class = "ducksassy_shard_error",
      arg = "BPPARAM",
      call = call
    )
  }
  lapply(seq_along(shards), function(i) {
    r <- res[[i]]
    if (is.list(r) && identical(names(r)[1L], "ok") && !inherits(r, "condition")) {
      return(r)
    }
    # the worker itself failed (died, or BiocParallel could not run it)
    msg <- if (inherits(r, "condition")) conditionMessage(r) else "the worker returned no result"
    list(ok = FALSE, error = list(message = msg, class = character(), fields = list()))
  })
}

#' What each BiocParallel worker runs: the ducksassy options of the caller,
#' then the shard's search; errors come back as data
#' @noRd
shard_worker <- function(shard, work, args, opts) {
  # messages are formatted unwrapped: the caller wraps them again
  old <- options(c(opts, list(cli.width = 10000L)))
  on.exit(options(old), add = TRUE)
  tryCatch(
    list(ok = TRUE, value = work(shard, args)),
    error = function(e) list(ok = FALSE, error = shard_error_data(e))
  )
}

# A condition as plain data: message, ducksassy classes, file fields.
shard_error_data <- function(e) {
  fields <- list()
  for (nm in c("path", "record", "line", "name", "position", "letter", "row")) {
    x <- e[[nm]]
    if (!is.null(x) && is.atomic(x) && length(x) == 1L) {
      fields[[nm]] <- x
    }
  }
  cls <- class(e)
  list(
    message = conditionMessage(e),
    bullets = condition_bullets(e),
    class = cls[startsWith(cls, "ducksassy_") & cls != "ducksassy_error"],
    fields = fields
  )
}

# A condition's message as its parts, the headline first and then its named
# bullets (rlang and cli keep them apart in `message` and `body`), so that
# the caller can show them under its own headline without taking a
# formatted message apart again.
condition_bullets <- function(e) {
  if (!inherits(e, "rlang_error")) {
    return(conditionMessage(e))
  }
  body <- e$body
  if (is.function(body) || !is.character(body)) {
    body <- rlang::cnd_body(e)
  }
  parts <- c(as.character(e$message), as.character(body))
  names(parts) <- c(rlang::names2(e$message), rlang::names2(body))
  parts
}

#' Results of the shards in order, or the error of the first failed shard
#'
#' @param shards Data frame of the shards: `source`, `first`, `last`.
#' @param what "records" or "rows", for messages.
#' @return The `value`s of the shards that succeeded, in shard order, with
#'   the attribute `missing_shards` (a data frame, or `NULL`).
#' @noRd
shard_results <- function(res, shards, what, BPPARAM, call) {
  ok <- vapply(res, function(r) isTRUE(r$ok), logical(1))
  values <- lapply(res[ok], `[[`, "value")
  if (all(ok)) {
    return(values)
  }
  failed <- which(!ok)
  missing <- data.frame(
    shard = failed,
    source = shards$source[failed],
    first = shards$first[failed],
    last = shards$last[failed],
    error = vapply(res[failed], function(r) r$error$message, character(1)),
    stringsAsFactors = FALSE
  )
  if (BiocParallel::bpstopOnError(BPPARAM) || !any(ok)) {
    abort_shard(res[[failed[[1L]]]]$error, failed[[1L]], shards, missing, what, call)
  }
  cli::cli_warn(
    c(
      paste0(
        length(failed), " of ", nrow(shards), " shard", if (nrow(shards) > 1L) "s",
        " failed; the result lacks their ", what, "."
      ),
      i = paste0(
        "Failed: ", paste(cli_escape(utils_head(shard_label(shards, failed, what), 3L)), collapse = "; "),
        if (length(failed) > 3L) "; ...", "."
      ),
      i = "`attr(result, \"missing_shards\")` lists them with their errors."
    ),
    class = "ducksassy_shard_warning",
    missing_shards = missing,
    call = call
  )
  structure(values, missing_shards = missing)
}

abort_shard <- function(err, i, shards, missing, what, call) {
  # the worker's own headline and bullets, kept apart as data
  # (condition_bullets()); a worker that died gave a plain message
  bullets <- if (is.null(err$bullets)) err$message else err$bullets
  rest <- bullets[-1L]
  rest_names <- rlang::names2(rest)
  rest_names[rest_names == ""] <- " "
  others <- nrow(missing) - 1L
  args <- c(
    list(
      c(
        paste0(
          "Shard ", i, " of ", nrow(shards), " failed: ",
          cli_escape(shard_label(shards, i, what)), "."
        ),
        x = paste0("The worker's error: ", cli_escape(bullets[[1L]])),
        structure(cli_escape(rest), names = rest_names),
        i = if (others > 0L) paste0(others, " other shard", if (others > 1L) "s", " failed too."),
        i = "Nothing is returned; with `BiocParallel::bpstopOnError(BPPARAM) <- FALSE` the other shards' results are returned."
      ),
      class = unique(c("ducksassy_shard_error", err$class)),
      shard = i,
      shards = missing,
      call = call
    ),
    err$fields
  )
  do.call(ducksassy_abort, args)
}

# "file \"a.fq\", records 1 to 500" / "table \"reads\", rows 501 to the end"
shard_label <- function(shards, i, what) {
  last <- ifelse(
    is.na(shards$last[i]), "the end",
    format(shards$last[i], scientific = FALSE, big.mark = ",")
  )
  # a table's label is its quoted identifier already
  quoted <- shards$kind[i] == "table" & startsWith(shards$source[i], "\"")
  source <- ifelse(quoted, shards$source[i], paste0("\"", shards$source[i], "\""))
  paste0(
    shards$kind[i], " ", source, ", ", what, " ",
    format(shards$first[i], scientific = FALSE, big.mark = ","), " to ", last
  )
}

#' Bind data frames (of the same columns) by rows, column by column
#' @noRd
shard_bind <- function(pieces) {
  if (length(pieces) == 1L) {
    return(pieces[[1L]])
  }
  # plain lists: combine_pieces() drops each column once copied
  combine_pieces(lapply(pieces, unclass), pieces[[1L]])
}

# The hit limit of the whole call, over the bound shards.
check_shard_hits <- function(n, max_hits, call, context = "vector") {
  if (n > max_hits) {
    abort_too_many_hits(max_hits, context, call)
  }
}

# ---------------------------------------------------------------------------
# Ranges (files and tables)

#' Record or row ranges of about `per_shard` each, over `count` items
#'
#' Equal ranges (their sizes differ by at most one); the last runs to the
#' end (`n = NaN`), so that rows or records added since counting are not
#' lost. A count of `NA` is one range over everything.
#' @noRd
range_cuts <- function(count, per_shard) {
  if (is.na(count) || count <= per_shard) {
    return(list(skip = 0, n = NaN))
  }
  k <- ceiling(count / per_shard)
  cuts <- floor(seq(0, count, length.out = k + 1L))
  n <- diff(cuts)
  n[[k]] <- NaN
  list(skip = cuts[-(k + 1L)], n = n)
}

shard_size_option <- function(name, call) {
  x <- getOption(name)
  if (is.null(x)) {
    return(NULL)
  }
  if (!is_whole_scalar(x) || x < 1) {
    abort_scalar(paste0("getOption(\"", name, "\")"), "a single whole number >= 1", x, call)
  }
  as.double(x)
}
