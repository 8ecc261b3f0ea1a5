# sassy_search_table(): DBI tables (duckdb and RSQLite), chunked streaming,
# equivalence with the vector search, identifiers, output tables, errors.

# Helpers (drivers, fixture, expected hits): helper-table.R.

# ---------------------------------------------------------------------------
# Equivalence with the vector search

test_that("table hits equal sassy_search() hits row for row, for every chunk size", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    expected <- expected_table_hits(df, table_patterns, k = 2)
    expect_gt(nrow(expected), 20L)
    expect_true(all(c("+", "-") %in% expected$strand))
    for (chunk_rows in c(1L, 7L, 100000L)) {
      got <- sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = chunk_rows)
      expect_identical(got, expected, info = paste(driver, chunk_rows))
    }
  }
})

test_that("the search arguments in ... are those of sassy_search()", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    cases <- list(
      list(k = 1, rc = FALSE),
      list(k = 1, all_endpoints = TRUE, threads = 1),
      list(k = 2, cigar = FALSE, threads = 2),
      list(k = 2, overhang = 0.5, max_n_frac = 0.5),
      list(k = 1, alphabet = "dna"),
      list(k = 2, indels = FALSE)
    )
    for (args in cases) {
      expected <- do.call(expected_table_hits, c(list(df, table_patterns), args))
      got <- do.call(
        sassy_search_table,
        c(list(con, "reads", table_patterns, chunk_rows = 7L), args)
      )
      expect_identical(got, expected, info = paste(driver, deparse(args)))
    }
    # ascii, case-insensitive
    expected <- expected_table_hits(df, "acgttg", k = 1, alphabet = "ascii", ignore_case = TRUE)
    got <- sassy_search_table(con, "reads", "acgttg", k = 1, alphabet = "ascii",
      ignore_case = TRUE, chunk_rows = 5L)
    expect_identical(got, expected, info = driver)
  }
})

test_that("duckdb gives the same hits through Arrow and through dbFetch()", {
  skip_if_not_installed("duckdb")
  skip_if_not_installed("nanoarrow")
  con <- local_db("duckdb")
  df <- write_fixture(con)
  expected <- expected_table_hits(df, table_patterns, k = 2)
  arrow <- sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = 7L)
  withr::local_options(ducksassy.table_fetch = "dbi")
  dbi <- sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = 7L)
  expect_identical(arrow, expected)
  expect_identical(dbi, expected)
})

test_that("count and contains equal sassy_count() and sassy_contains()", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    counts <- sassy_count(df$sequence, table_patterns, k = 2)
    contains <- sassy_contains(df$sequence, table_patterns, k = 2)
    for (chunk_rows in c(1L, 7L, 100000L)) {
      got <- sassy_count_table(con, "reads", table_patterns, k = 2,
        chunk_rows = chunk_rows)
      expect_identical(names(got), c("id", "name", "p1", "p2", "p3"))
      expect_identical(got$id, df$id)
      expect_identical(got$name, df$name)
      expect_identical(unname(as.matrix(got[3:5])), unname(counts), info = paste(driver, chunk_rows))
      expect_true(all(is.na(got$p1[is.na(df$sequence)])))

      got <- sassy_contains_table(con, "reads", table_patterns, k = 2,
        chunk_rows = chunk_rows)
      expect_identical(unname(as.matrix(got[3:5])), unname(contains), info = paste(driver, chunk_rows))
    }
    # unnamed patterns: pattern_1, ...; names made unique against the ids
    got <- sassy_count_table(con, "reads", c("ACGTTGCA", name = "GATTACA"),
      k = 1, id = "name", chunk_rows = 10L)
    expect_identical(names(got), c("name", "pattern_1", "name_1"))
    expect_identical(got$pattern_1, sassy_count(df$sequence, "ACGTTGCA", k = 1))
    expect_type(got$pattern_1, "integer")
  }
})

test_that("a NULL sequence has no hits and NA counts; an empty table gives typed empty results", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- data.frame(id = 1:3, sequence = c(NA, "ACGTTGCA", NA), stringsAsFactors = FALSE)
    DBI::dbWriteTable(con, "t", df)
    hits <- sassy_search_table(con, "t", "ACGTTGCA", chunk_rows = 1L)
    expect_identical(unique(hits$id), 2L)
    counts <- sassy_count_table(con, "t", "ACGTTGCA", chunk_rows = 2L)
    expect_identical(counts$pattern_1, c(NA, sassy_count("ACGTTGCA", "ACGTTGCA"), NA))
    contains <- sassy_contains_table(con, "t", "ACGTTGCA")
    expect_identical(contains$pattern_1, c(NA, TRUE, NA))

    DBI::dbExecute(con, "DELETE FROM t")
    empty <- sassy_search_table(con, "t", "ACGTTGCA")
    expect_identical(nrow(empty), 0L)
    expect_identical(names(empty), c("id", hit_column_names[-1L]))
    expect_type(empty$start, "integer")
    expect_type(empty$strand, "character")
    empty <- sassy_count_table(con, "t", c(a = "ACGT"))
    expect_identical(names(empty), c("id", "a"))
    expect_identical(nrow(empty), 0L)
  }
})

test_that("without id columns, record is the row number in scan order", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- table_fixture()
    DBI::dbWriteTable(con, "only_seq", df["sequence"])
    expected <- sassy_search(df$sequence, table_patterns, k = 1)
    got <- sassy_search_table(con, "only_seq", table_patterns, k = 1, chunk_rows = 7L)
    expect_identical(got, expected)
    DBI::dbWriteTable(con, "reads", df)
    got <- sassy_search_table(con, "reads", table_patterns, k = 1, id = character(), chunk_rows = 3L)
    expect_identical(got, expected)
    counts <- sassy_count_table(con, "reads", "ACGTTGCA", k = 1, id = character())
    expect_identical(counts$record, seq_len(nrow(df)))
    # id may carry the sequence itself
    got <- sassy_search_table(con, "reads", "ACGTTGCA", k = 1, id = c("sequence", "id"))
    expect_identical(got$sequence, df$sequence[got$id])
  }
})

# ---------------------------------------------------------------------------
# Tables, Ids, queries, identifiers

test_that("DBI::Id() and DBI::SQL() sources work", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    expected <- expected_table_hits(df, table_patterns, k = 1)
    got <- sassy_search_table(con, DBI::Id(table = "reads"), table_patterns, k = 1)
    expect_identical(got, expected, info = driver)
    got <- sassy_search_table(con, DBI::Id(schema = "main", table = "reads"), table_patterns, k = 1)
    expect_identical(got, expected, info = driver)

    # a query: filtered, reordered, renamed
    q <- DBI::SQL("SELECT id AS rid, sequence AS s FROM reads WHERE id > 10 ORDER BY id DESC")
    sub <- df[df$id > 10, ]
    sub <- sub[order(-sub$id), ]
    got <- sassy_search_table(con, q, table_patterns, k = 1, column = "s", chunk_rows = 4L)
    exp <- expected_table_hits(
      data.frame(rid = sub$id, sequence = sub$sequence),
      table_patterns, k = 1, id = "rid"
    )
    expect_identical(got, exp, info = driver)
    got <- sassy_count_table(con, q, table_patterns, k = 1, column = "s")
    expect_identical(got$rid, sub$id)
  }
})

test_that("names with quotes, spaces and semicolons are quoted, never pasted", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- table_fixture()
    write_fixture(con, df)
    weird_table <- "we\"ird 't; DROP TABLE reads; --"
    weird_df <- data.frame(df$id, df$sequence, df$name)
    names(weird_df) <- c("i d\"; DROP TABLE reads; --", "se q'uence\";", "na`me")
    DBI::dbWriteTable(con, weird_table, weird_df)
    expect_true(DBI::dbExistsTable(con, weird_table))

    got <- sassy_search_table(con, weird_table, table_patterns, k = 1,
      column = "se q'uence\";", chunk_rows = 7L)
    expected <- expected_table_hits(df, table_patterns, k = 1)
    # (named patterns: their names travel in pattern_name)
    expect_identical(names(got), c(names(weird_df)[c(1, 3)], append(hit_column_names[-1L], "pattern_name", after = 1L)))
    expect_identical(got[[1]], expected$id)
    expect_identical(got[[2]], expected$name)
    expect_identical(got[-(1:2)], expected[-(1:2)])

    out <- "out\"; DROP TABLE reads; --"
    n <- sassy_search_table(con, weird_table, table_patterns, k = 1,
      column = "se q'uence\";", id = "na`me", output = out)
    expect_identical(n, as.double(nrow(expected)))
    expect_identical(nrow(DBI::dbReadTable(con, out)), nrow(expected))
    # nothing was injected: the original table is still there, unchanged
    expect_true(DBI::dbExistsTable(con, "reads"))
    expect_identical(nrow(DBI::dbReadTable(con, "reads")), nrow(df))

    # a table name that is an injection attempt is just a missing table
    expect_error(
      sassy_search_table(con, "reads; DROP TABLE reads", "ACGT"),
      class = "ducksassy_input_error"
    )
    expect_true(DBI::dbExistsTable(con, "reads"))
  }
})

# ---------------------------------------------------------------------------
# Output tables

test_that("output appends the hits with the right types and returns their number", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    expected <- expected_table_hits(df, table_patterns, k = 2)
    expect_invisible(
      n <- sassy_search_table(con, "reads", table_patterns, k = 2,
        chunk_rows = 7L, output = "hits")
    )
    expect_identical(n, as.double(nrow(expected)))
    back <- DBI::dbGetQuery(con, "SELECT * FROM hits")
    expect_identical(names(back), names(expected))
    for (col in c("id", hit_integer_columns[-1L])) {
      expect_type(back[[col]], "integer")
    }
    for (col in c("name", "strand", "cigar")) {
      expect_type(back[[col]], "character")
    }
    expect_identical(order_by_all(back), order_by_all(expected), info = driver)

    # a second call appends
    n2 <- sassy_search_table(con, DBI::Id(table = "reads"), table_patterns,
      k = 2, output = DBI::Id(table = "hits"))
    expect_identical(n2, n)
    back <- DBI::dbGetQuery(con, "SELECT * FROM hits")
    expect_identical(nrow(back), 2L * nrow(expected))

    # counts can go to a table too; the source may be the output's database
    n3 <- sassy_count_table(con, "reads", table_patterns, k = 2,
      output = "counts", chunk_rows = 10L)
    expect_identical(n3, as.double(nrow(df)))
    back <- DBI::dbGetQuery(con, "SELECT * FROM counts ORDER BY id")
    expect_identical(back$p2, unname(sassy_count(df$sequence, table_patterns, k = 2)[, 2]))

    # zero hits still create the table, with its columns
    n4 <- sassy_search_table(con, "reads", "CCCCCCCCCCCCCCCCCCCCCCCC", output = "none")
    expect_identical(n4, 0)
    # (an unnamed pattern: no pattern_name column)
    expect_identical(DBI::dbListFields(con, "none"), setdiff(names(expected), "pattern_name"))
  }
})

test_that("nothing is written to output when the search fails", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- table_fixture()
    df$sequence[30L] <- "ACGTNNACGT"
    write_fixture(con, df)
    # before the first chunk: bad column, bad argument
    expect_error(
      sassy_search_table(con, "reads", "ACGT", column = "seq", output = "o1"),
      class = "ducksassy_input_error"
    )
    expect_error(
      sassy_search_table(con, "reads", "ACGT", k = 9, output = "o1"),
      class = "ducksassy_input_error"
    )
    expect_false(DBI::dbExistsTable(con, "o1"))
    # a letter outside the alphabet in a later chunk: nothing either
    expect_error(
      sassy_search_table(con, "reads", "ACGTTGCA", k = 1, alphabet = "dna",
        chunk_rows = 7L, output = "o1"),
      class = "ducksassy_input_error"
    )
    expect_false(DBI::dbExistsTable(con, "o1"))
    # an existing table keeps its rows
    sassy_search_table(con, DBI::SQL("SELECT id, name, sequence FROM reads WHERE id < 20"),
      "ACGTTGCA", k = 1, alphabet = "dna", output = "o2")
    before <- DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM o2")$n
    expect_error(
      sassy_search_table(con, "reads", "ACGTTGCA", k = 1, alphabet = "dna",
        chunk_rows = 7L, output = "o2"),
      class = "ducksassy_input_error"
    )
    expect_identical(DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM o2")$n, before)
  }
})

test_that("an output table whose columns do not fit is an error", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    write_fixture(con)
    DBI::dbWriteTable(con, "other", data.frame(x = 1L))
    expect_error(
      sassy_search_table(con, "reads", "ACGT", output = "other"),
      class = "ducksassy_input_error"
    )
    expect_identical(DBI::dbReadTable(con, "other"), data.frame(x = 1L))
    # same names, a text column where the result has numbers
    template <- expected_table_hits(table_fixture(), "ACGT")[0, ]
    template$start <- character()
    DBI::dbCreateTable(con, "typed", template)
    cnd <- expect_error(
      sassy_search_table(con, "reads", "ACGT", output = "typed"),
      class = "ducksassy_input_error"
    )
    expect_match(conditionMessage(cnd), "start", fixed = TRUE)
    expect_identical(nrow(DBI::dbReadTable(con, "typed")), 0L)
    # output must be a name or an Id
    expect_error(
      sassy_search_table(con, "reads", "ACGT", output = DBI::SQL("SELECT 1")),
      class = "ducksassy_input_error"
    )
    expect_error(
      sassy_search_table(con, "reads", "ACGT", output = c("a", "b")),
      class = "ducksassy_input_error"
    )
  }
})

# ---------------------------------------------------------------------------
# Errors

test_that("bad arguments are classed errors", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    DBI::dbWriteTable(con, "regions", data.frame(start = 1L, sequence = "ACGT"))
    err <- function(...) {
      expect_error(sassy_search_table(...), class = "ducksassy_input_error")
    }
    err("not a connection", "reads", "ACGT")
    err(con, "nope", "ACGT")
    err(con, DBI::Id(table = "nope"), "ACGT")
    err(con, 1, "ACGT")
    err(con, NA_character_, "ACGT")
    err(con, c("reads", "reads"), "ACGT")
    err(con, "reads", "ACGT", column = "seq")
    err(con, "reads", "ACGT", column = NA_character_)
    err(con, "reads", "ACGT", id = "nope")
    err(con, "reads", "ACGT", id = c("id", "id"))
    err(con, "reads", "ACGT", id = 1)
    err(con, "reads", "ACGT", column = "id")
    err(con, "regions", "ACGT")
    err(con, DBI::SQL("SELECT id FROM reads"), "ACGT")
    err(con, DBI::SQL("SELECT id, sequence FROM reads"), "ACGT", id = "name")
    err(con, DBI::SQL("SELECT id AS sequence FROM reads"), "ACGT")
    err(con, "reads", "ACGT", chunk_rows = 0)
    err(con, "reads", "ACGT", chunk_rows = -1)
    err(con, "reads", "ACGT", chunk_rows = 1.5)
    err(con, "reads", "ACGT", chunk_rows = NA_integer_)
    err(con, "reads", "ACGT", chunk_rows = "10")
    err(con, "reads", "ACGT", what = "all")
    err(con, "reads", "ACGT", alphabet = "protein")
    err(con, "reads", "ACGT", k = 4)
    err(con, "reads", character())
    err(con, "reads", "ACGT", "unnamed")
    err(con, "reads", "ACGT", kk = 1)
    # a search argument given twice is R's own error, as in sassy_search()
    expect_error(sassy_search_table(con, "reads", "ACGT", rc = TRUE, rc = FALSE), "multiple actual arguments")
    err(con, "reads", "ACGT", alphabet = "ascii", rc = TRUE)
    err(con, "reads", "ACGT", threads = 0)
    expect_error(
      sassy_search_table(con, DBI::SQL("SELECT nonsense FROM"), "ACGT"),
      class = "ducksassy_db_error"
    )
    # the connection is still usable after each error
    expect_identical(nrow(sassy_count_table(con, "reads", "ACGT")), nrow(df))
  }
})

test_that("closed connections are an error", {
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  DBI::dbDisconnect(con)
  expect_error(sassy_search_table(con, "reads", "ACGT"), class = "ducksassy_input_error")
})

test_that("a letter outside the alphabet names the row and its id, and leaves the connection usable", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- table_fixture()
    df$sequence[30L] <- "ACGTNNACGT"
    write_fixture(con, df)
    cnd <- expect_error(
      sassy_search_table(con, "reads", "ACGTTGCA", k = 1, alphabet = "dna", chunk_rows = 7L),
      class = "ducksassy_input_error"
    )
    expect_identical(cnd$row, 30)
    expect_identical(cnd$arg, "column")
    msg <- conditionMessage(cnd)
    expect_match(msg, "Row 30", fixed = TRUE)
    expect_match(msg, "read030", fixed = TRUE)
    expect_match(msg, "iupac", fixed = TRUE)
    # no pending result set: the connection works, with no warning
    expect_no_warning(
      expect_equal(DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM reads")$n, nrow(df))
    )
  }
})

test_that("a table search's error names the user's call, whatever raised it", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    df$sequence[30L] <- "ACGTZZACGT"
    write_fixture(con, df, "bad")
    # the call as the user wrote it, as for the vector verbs (test-errors.R)
    # and not what the backtrace shows for `arg` (rlang matches the call
    # there and prints only the argument at fault, `column = "sequence"`)
    expect_user_call <- function(expr, class = "ducksassy_input_error") {
      expr <- substitute(expr)
      cnd <- tryCatch(eval(expr), error = function(e) e)
      expect_s3_class(cnd, class)
      expect_identical(cnd$call, expr)
    }
    # checks of the arguments, in R and in the core
    expect_user_call(sassy_search_table(con, "reads", "ACGT", column = "seq"))
    expect_user_call(sassy_count_table(con, "reads", "ACGT", k = 4L))
    expect_user_call(sassy_contains_table(con, "reads", "ACGT", chunk_rows = 0))
    expect_user_call(sassy_crispr_table(con, "reads", "ACGTNGG", k = 5))
    expect_user_call(sassy_search_table(con, "reads", "ACGT", kk = 1))
    expect_user_call(sassy_count_table(con, "reads", "ACGT", what = "count"))
    # errors of a chunk's search: a letter (in the background search, and
    # in the one that waits for the fetch), the hit limit
    expect_user_call(sassy_search_table(con, "bad", "ACGTTGCA", k = 1, chunk_rows = 7L))
    withr::with_options(list(ducksassy.table_overlap = FALSE), {
      expect_user_call(sassy_count_table(con, "bad", "ACGTTGCA", k = 1, chunk_rows = 7L))
    })
    expect_user_call(sassy_crispr_table(con, "bad", "ACGTTGCANGG", k = 1, chunk_rows = 7L))
    withr::with_options(list(ducksassy.max_hits = 1), {
      expect_user_call(sassy_search_table(con, "reads", "ACGT", k = 1), "ducksassy_limit_error")
    })
  }
})

test_that("the hit limit counts the hits of all chunks", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    n <- nrow(expected_table_hits(df, table_patterns, k = 2))
    withr::local_options(ducksassy.max_hits = n - 1)
    expect_error(
      sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = 1L),
      class = "ducksassy_limit_error"
    )
    withr::local_options(ducksassy.max_hits = n)
    expect_identical(nrow(sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = 1L)), n)
  }
})

test_that("error messages", {
  skip_if_not_installed("RSQLite")
  con <- local_db("RSQLite")
  write_fixture(con)
  DBI::dbWriteTable(con, "other", data.frame(x = 1L))
  expect_snapshot(error = TRUE, {
    sassy_search_table(con, "nope", "ACGT")
    sassy_search_table(con, "reads", "ACGT", column = "seq")
    sassy_search_table(con, "reads", "ACGT", column = "id")
    sassy_search_table(con, "reads", "ACGT", chunk_rows = 0)
    sassy_search_table(con, "reads", "ACGT", output = "other")
    sassy_search_table(con, "reads", "ACGT", kk = 1)
  })
})

# ---------------------------------------------------------------------------
# Progress, interrupts

test_that("the progress bar in interactive sessions does not change the result", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    expected <- expected_table_hits(df, table_patterns, k = 1)
    withr::local_options(rlang_interactive = TRUE, cli.progress_show_after = 0)
    got <- NULL
    suppressMessages(capture.output(
      got <- sassy_search_table(con, "reads", table_patterns, k = 1, chunk_rows = 5L),
      type = "message"
    ))
    expect_identical(got, expected)
    suppressMessages(capture.output(
      got <- sassy_search_table(con, DBI::SQL("SELECT * FROM reads"), table_patterns,
        k = 1, chunk_rows = 5L),
      type = "message"
    ))
    expect_identical(got, expected)
  }
})

test_that("Ctrl-C stops a table search within a second and leaves the connection usable", {
  skip_on_cran()
  skip_if_not_installed("callr")
  skip_without_drivers()
  lib <- find.package("ducksassy", lib.loc = .libPaths(), quiet = TRUE)
  skip_if(length(lib) == 0L, "ducksassy is not installed in .libPaths()")
  # A view of 10^8 generated 1-kb sequences: far more than a test can
  # search, and no storage.
  views <- list(
    duckdb = paste(
      "CREATE VIEW big AS SELECT i AS id,",
      "repeat('ACGT', 250) AS sequence FROM range(100000000) t(i)"
    ),
    RSQLite = paste(
      "CREATE VIEW big AS WITH RECURSIVE r(i) AS",
      "(SELECT 1 UNION ALL SELECT i + 1 FROM r LIMIT 100000000)",
      "SELECT i AS id, replace(hex(zeroblob(250)), '00', 'ACGT') AS sequence FROM r"
    )
  )
  for (driver in table_drivers()) {
    rs <- callr::r_session$new(options = callr::r_session_options(libpath = .libPaths()))
    withr::defer(rs$close())
    rs$run(function(driver, view) {
      suppressPackageStartupMessages(library(ducksassy))
      con <<- switch(driver,
        duckdb = suppressMessages(DBI::dbConnect(duckdb::duckdb())),
        RSQLite = DBI::dbConnect(RSQLite::SQLite(), ":memory:")
      )
      DBI::dbExecute(con, view)
      invisible()
    }, list(driver = driver, view = views[[driver]]))
    rs$call(function() {
      sassy_count_table(con, "big", "GATTACATT", k = 2, chunk_rows = 20000L, threads = 2L)
    })
    Sys.sleep(2)
    expect_identical(rs$get_state(), "busy", info = driver)
    t0 <- Sys.time()
    rs$interrupt()
    rs$poll_process(5000)
    res <- rs$read()
    waited <- as.numeric(difftime(Sys.time(), t0, units = "secs"))
    err <- res$error
    expect_false(is.null(err), info = driver)
    expect_true(
      inherits(err, "interrupt") || inherits(err, "ducksassy_interrupt") ||
        inherits(err$parent, "interrupt") || inherits(err$parent, "ducksassy_interrupt"),
      info = driver
    )
    # well within a second on an idle machine; some slack for a busy one
    expect_lt(waited, 1.5)
    # the connection is usable: a new query and a new table search run
    ok <- rs$run(function() {
      n <- DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM big WHERE id BETWEEN 1 AND 10")$n
      seqs <- c("GATTACA", "CCC", "TGTAATC")
      DBI::dbWriteTable(con, "small", data.frame(id = 1:3, sequence = seqs))
      h <- sassy_search_table(con, "small", "GATTACA")
      list(n = n, same = identical(h[-1], sassy_search(seqs, "GATTACA")[-1]))
    })
    expect_equal(ok$n, 10, info = driver)
    expect_true(ok$same, info = driver)
  }
})
