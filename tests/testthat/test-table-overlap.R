# sassy_search_table() with the search of a chunk overlapping the fetch of
# the next (the default) and without (`ducksassy.table_overlap = FALSE`):
# the same results, every Arrow string layout DuckDB produces, errors while
# a search runs in the background, garbage collection between chunks, and
# the cap on the rows one fetch asks for. Helpers: helper-table.R.

# Every (driver, overlap) combination gives sassy_search()'s hits.
search_both_ways <- function(con, table, patterns, ..., .fn = sassy_search_table) {
  on <- withr::with_options(
    list(ducksassy.table_overlap = TRUE),
    .fn(con, table, patterns, ...)
  )
  off <- withr::with_options(
    list(ducksassy.table_overlap = FALSE),
    .fn(con, table, patterns, ...)
  )
  list(on = on, off = off)
}

test_that("overlap on and off give sassy_search()'s hits, counts and flags", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    expected <- expected_table_hits(df, table_patterns, k = 2)
    counts <- sassy_count(df$sequence, table_patterns, k = 2)
    flags <- sassy_contains(df$sequence, table_patterns, k = 2)
    for (chunk_rows in c(1L, 7L, 100000L)) {
      info <- paste(driver, chunk_rows)
      got <- search_both_ways(con, "reads", table_patterns, k = 2, chunk_rows = chunk_rows)
      expect_identical(got$on, expected, info = info)
      expect_identical(got$off, expected, info = info)
      got <- search_both_ways(con, "reads", table_patterns, k = 2,
        .fn = sassy_count_table, chunk_rows = chunk_rows)
      expect_identical(got$on, got$off, info = info)
      expect_identical(unname(as.matrix(got$on[3:5])), unname(counts), info = info)
      got <- search_both_ways(con, "reads", table_patterns, k = 2,
        .fn = sassy_contains_table, chunk_rows = chunk_rows)
      expect_identical(got$on, got$off, info = info)
      expect_identical(unname(as.matrix(got$on[3:5])), unname(flags), info = info)
    }
  }
})

test_that("DuckDB's utf8, large_utf8 and utf8_view batches are read in place", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("duckdb")
  skip_if_not_installed("nanoarrow")
  con <- local_db("duckdb")
  df <- table_fixture(n = 200L)
  # long sequences too: views of more than 12 bytes live in data buffers
  df$sequence[c(3L, 99L)] <- c(strrep("ACGTTGCAGG", 30L), "ACGTTGCA")
  write_fixture(con, df)
  expected <- expected_table_hits(df, table_patterns, k = 2)
  settings <- list(
    u = NULL,
    U = "SET arrow_large_buffer_size = true",
    vu = c("SET arrow_output_version = '1.4'", "SET produce_arrow_string_view = true")
  )
  for (format in names(settings)) {
    for (sql in settings[[format]]) DBI::dbExecute(con, sql)
    res <- DBI::dbSendQueryArrow(con, "SELECT sequence FROM reads")
    batch <- DBI::dbFetchArrowChunk(res, chunk_size = 10L)
    DBI::dbClearResult(res)
    expect_identical(
      nanoarrow::infer_nanoarrow_schema(batch)$children$sequence$format, format
    )
    for (chunk_rows in c(1L, 7L, 100000L)) {
      got <- sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = chunk_rows)
      expect_identical(got, expected, info = paste(format, chunk_rows))
    }
  }
})

test_that("a query's row offsets and an ENUM (dictionary) column give the same hits", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("duckdb")
  skip_if_not_installed("nanoarrow")
  con <- local_db("duckdb")
  df <- write_fixture(con)
  # an ENUM is dictionary-encoded in Arrow: converted to R strings instead
  DBI::dbExecute(con, "CREATE TYPE seqs AS ENUM (SELECT DISTINCT sequence FROM reads WHERE sequence IS NOT NULL)")
  q <- DBI::SQL("SELECT id, name, CAST(sequence AS seqs) AS sequence FROM reads")
  expected <- expected_table_hits(df, table_patterns, k = 1)
  got <- search_both_ways(con, q, table_patterns, k = 1, chunk_rows = 6L)
  expect_identical(got$on, expected)
  expect_identical(got$off, expected)
  # an ordered subset: rows in the query's order
  q <- DBI::SQL("SELECT id, name, sequence FROM reads WHERE id % 3 <> 0 ORDER BY id DESC")
  sub <- df[df$id %% 3L != 0L, ][order(-df$id[df$id %% 3L != 0L]), ]
  expected <- expected_table_hits(sub, table_patterns, k = 1)
  got <- search_both_ways(con, q, table_patterns, k = 1, chunk_rows = 4L)
  expect_identical(got$on, expected)
  expect_identical(got$off, expected)
})

test_that("garbage collection between chunks while a search runs changes nothing", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con, table_fixture(n = 120L))
    expected <- expected_table_hits(df, table_patterns, k = 2)
    n_gc <- 0L
    withr::local_options(ducksassy.table_test_hook = function(event) {
      n_gc <<- n_gc + 1L
      gc(verbose = FALSE)
      # and garbage: strings of the length of the chunk's sequences
      invisible(vapply(1:200, function(i) strrep("ACGT", 40L), ""))
    })
    got <- sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = 3L)
    expect_identical(got, expected, info = driver)
    expect_gte(n_gc, 40L)
    counts <- sassy_count_table(con, "reads", table_patterns, k = 2,
      chunk_rows = 5L)
    expect_identical(unname(as.matrix(counts[3:5])),
      unname(sassy_count(df$sequence, table_patterns, k = 2)), info = driver)
  }
})

# The connection still answers a query and a new table search.
expect_connection_usable <- function(con, df, info) {
  n <- DBI::dbGetQuery(con, "SELECT COUNT(*) AS n FROM reads")$n
  expect_equal(n, nrow(df), info = info)
  got <- sassy_search_table(con, "reads", table_patterns, k = 1, chunk_rows = 9L)
  expect_identical(got, expected_table_hits(df, table_patterns, k = 1), info = info)
}

test_that("an error fetching the next chunk stops the running search and leaves the connection usable", {
  skip_without_drivers()
  # a query that fails at row 40, after several chunks have been searched
  failing <- list(
    duckdb = "SELECT id, CASE WHEN id >= 40 THEN error('boom at 40') ELSE sequence END AS sequence FROM reads",
    RSQLite = "SELECT id, CASE WHEN id >= 40 THEN abs(-9223372036854775807 - 1) ELSE sequence END AS sequence FROM reads"
  )
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    for (overlap in c(TRUE, FALSE)) {
      info <- paste(driver, overlap)
      withr::with_options(list(ducksassy.table_overlap = overlap), {
        expect_error(
          sassy_search_table(con, DBI::SQL(failing[[driver]]), table_patterns,
            k = 2, chunk_rows = 7L),
          class = "ducksassy_db_error", info = info
        )
      })
      expect_identical(ds_table_live_jobs(), 0L, info = info)
      expect_connection_usable(con, df, info)
    }
  }
})

test_that("an error or interrupt while a search runs in the background joins it", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con, table_fixture(n = 300L))
    # an error raised in R while the search of a chunk runs
    calls <- 0L
    withr::with_options(list(ducksassy.table_test_hook = function(event) {
      calls <<- calls + 1L
      if (calls == 3L) stop("hook error")
    }), {
      expect_error(
        sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = 10L),
        "hook error"
      )
    })
    expect_identical(ds_table_live_jobs(), 0L, info = driver)
    expect_connection_usable(con, df, driver)
    # an interrupt there
    calls <- 0L
    interrupted <- FALSE
    withr::with_options(list(ducksassy.table_test_hook = function(event) {
      calls <<- calls + 1L
      if (calls == 2L) rlang::interrupt()
    }), {
      tryCatch(
        sassy_search_table(con, "reads", table_patterns, k = 2, chunk_rows = 10L),
        interrupt = function(e) interrupted <<- TRUE
      )
    })
    expect_true(interrupted, info = driver)
    expect_identical(ds_table_live_jobs(), 0L, info = driver)
    expect_connection_usable(con, df, driver)
  }
})

test_that("a bad letter names its row and id with overlap on and off", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- table_fixture(n = 45L)
    df$sequence[23L] <- "ACGTXACGT"
    write_fixture(con, df)
    for (overlap in c(TRUE, FALSE)) {
      info <- paste(driver, overlap)
      err <- withr::with_options(list(ducksassy.table_overlap = overlap), {
        expect_error(
          sassy_search_table(con, "reads", "ACGT", alphabet = "dna", chunk_rows = 4L),
          class = "ducksassy_input_error"
        )
      })
      expect_identical(err$row, 23, info = info)
      expect_match(conditionMessage(err), "Row 23", info = info)
      expect_match(conditionMessage(err), "id = 23", info = info)
      expect_match(conditionMessage(err), "position 5", info = info)
      expect_identical(ds_table_live_jobs(), 0L, info = info)
    }
  }
})

test_that("the job handles clean up after themselves", {
  # a job dropped without collect: cancelled and joined by the finalizer
  texts <- rep(strrep("ACGTTGCAGATTACA", 200L), 2000L)
  job <- ds_table_submit(texts, 0L, "", new_plan("GATTACA", 2L, threads = 2L))
  expect_identical(ds_table_live_jobs(), 1L)
  rm(job)
  gc(verbose = FALSE)
  expect_identical(ds_table_live_jobs(), 0L)
  # collect twice, cancel after collect: a classed error, then a no-op
  small <- c("GATTACAGATTACA", NA, "TTT")
  job <- ds_table_submit(small, 0L, "", new_plan("GATTACA", 0L, mode = "count"))
  expect_identical(ds_table_collect(job), sassy_count(small, "GATTACA"))
  expect_s3_class(ds_table_collect(job), "ducksassy_rust_error")
  expect_false(ds_table_cancel(job))
  expect_identical(ds_table_live_jobs(), 0L)
})

test_that("one fetch asks for at most table_fetch_cap() rows", {
  expect_identical(table_fetch_rows(7L), 7L)
  expect_identical(table_fetch_rows(.Machine$integer.max), table_fetch_cap())
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    # quickly, and without allocating for 2^31 rows
    got <- sassy_search_table(con, "reads", table_patterns, k = 2,
      chunk_rows = .Machine$integer.max)
    expect_identical(got, expected_table_hits(df, table_patterns, k = 2), info = driver)
  }
})
