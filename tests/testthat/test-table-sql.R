# The table verbs' in-database path (R/table-sql.R): on a DuckDB
# connection that has the SQL functions, sassy_*_table() may run as one
# query; it must return exactly what the R-side scan returns (the
# reference: tested against sassy_search() and oracles in test-table*.R).
# Each comparison forces both paths with options(ducksassy.table_sql = ) and
# checks that the in-database one was really taken.

skip_if_not_installed("DBI")
skip_if_not_installed("duckdb")
skip_if_not_installed("nanoarrow")

rand_seqs <- function(n, len, letters) {
  vapply(seq_len(n), function(i) {
    paste(sample(letters, sample(len, 1L), replace = TRUE), collapse = "")
  }, "")
}

# Texts with copies of `pattern` (some edited, some reverse complemented),
# NA and empty texts.
planted_texts <- function(n, pattern, letters = c("A", "C", "G", "T")) {
  texts <- rand_seqs(n, 0:120, letters)
  rc <- chartr("ACGT", "TGCA", paste(rev(strsplit(pattern, "")[[1]]), collapse = ""))
  for (i in sample(n, n %/% 2)) {
    p <- if (runif(1) < 0.5) pattern else rc
    if (runif(1) < 0.5) substr(p, 3, 3) <- sample(letters, 1)
    at <- sample(nchar(texts[i]) + 1L, 1) - 1L
    texts[i] <- paste0(substr(texts[i], 1, at), p, substring(texts[i], at + 1))
  }
  texts[sample(n, max(1L, n %/% 20))] <- NA
  texts[sample(n, max(1L, n %/% 30))] <- ""
  texts
}

# Both paths on the same call: identical results, and the in-database one
# taken (`sql = FALSE`: it must not be, the R path runs both times).
expect_same_paths <- function(f, ..., sql = TRUE) {
  r <- withr::with_options(list(ducksassy.table_sql = FALSE), f(...))
  before <- ducksassy:::table_sql_uses()
  s <- withr::with_options(list(ducksassy.table_sql = TRUE), f(...))
  expect_identical(ducksassy:::table_sql_uses() - before, if (sql) 1 else 0)
  expect_identical(s, r)
  invisible(r)
}

verbs <- list(
  search = sassy_search_table, count = sassy_count_table,
  contains = sassy_contains_table
)

test_that("the three verbs give the R path's result on random DNA and IUPAC tables", {
  con <- sql_con()
  set.seed(151)
  pats <- c("ACGTTGCAAGG", "TTGACCATGCA", "GGGATCCAATC")
  n <- 400L
  tab <- data.frame(
    id = sample(n),
    name = paste0("r", seq_len(n)),
    score = runif(n),
    big = as.double(seq_len(n)) * 1e6,
    flag = rep(c(TRUE, FALSE, NA, TRUE), length.out = n),
    sequence = planted_texts(n, pats[1], c("A", "C", "G", "T"))
  )
  tab$sequence[1:40] <- planted_texts(40, pats[2], c("A", "C", "G", "T", "N", "R", "Y"))
  DBI::dbWriteTable(con, "reads", tab)
  DBI::dbExecute(con, "CREATE TABLE reads2 AS SELECT CAST(id AS SMALLINT) AS small, CAST(id AS BIGINT) AS big8, sequence FROM reads")
  cases <- list(
    list(p = pats[1], k = 2),
    list(p = pats, k = 2, rc = FALSE),
    list(p = c(a = pats[1], pats[2], c = pats[3]), k = 3),
    list(p = pats[1], k = 2, all_endpoints = TRUE),
    list(p = pats[1:2], k = 3, overhang = 0.5),
    list(p = pats[2], k = 2, max_n_frac = 0.1),
    list(p = pats[1], k = 1, alphabet = "iupac", threads = 2L),
    list(p = pats[1:2], k = 2, threads = 1L)
  )
  for (case in cases) {
    for (verb in names(verbs)) {
      for (tbl in c("reads", "reads2")) {
        args <- c(list(con, tbl, case$p), case[setdiff(names(case), "p")])
        got <- expect_same_paths(function() do.call(verbs[[verb]], args))
        if (verb == "search") {
          expect_gt(nrow(got), 20)
        } else {
          expect_true(anyNA(got[[ncol(got)]]))
        }
      }
    }
  }
  # the chosen id columns, the sequence among them
  expect_same_paths(function() {
    sassy_search_table(con, "reads", pats[1], k = 2, id = c("sequence", "name"))
  })
  expect_same_paths(function() {
    sassy_count_table(con, "reads", c(name = pats[1], id = pats[2]), k = 2, id = c("name", "id"))
  })
})

test_that("every id type the in-database path takes comes back as on the R path", {
  con <- sql_con()
  set.seed(157)
  n <- 200L
  DBI::dbWriteTable(con, "base", data.frame(
    i = seq_len(n), x = runif(n) * 1e4, s = paste0("id-", seq_len(n), "-\u00e9"),
    sequence = planted_texts(n, "ACGTTGCAAGG")
  ))
  DBI::dbExecute(con, paste(
    "CREATE TABLE typed AS SELECT",
    "CAST(i % 100 AS TINYINT) AS t1, CAST(i AS SMALLINT) AS t2, i AS t3,",
    "CAST(i AS BIGINT) * 1000000007 AS t4, CAST(i AS UTINYINT) AS u1,",
    "CAST(i AS USMALLINT) AS u2, CAST(CAST(i AS BIGINT) * 20000000 AS UINTEGER) AS u4,",
    "CAST(x AS FLOAT) AS f4, x AS f8, s, i % 3 = 0 AS b,",
    "CASE WHEN i % 7 = 0 THEN NULL ELSE i END AS with_null, sequence FROM base"
  ))
  for (verb in names(verbs)) {
    got <- expect_same_paths(function() verbs[[verb]](con, "typed", "ACGTTGCAAGG", k = 2, threads = 1L))
    expect_identical(names(got)[1:12], c("t1", "t2", "t3", "t4", "u1", "u2", "u4", "f4", "f8", "s", "b", "with_null"))
    expect_true(anyNA(got$with_null))
    # and written to a table
    expect_same_paths(function() {
      on.exit(DBI::dbRemoveTable(con, "out"))
      n <- verbs[[verb]](con, "typed", "ACGTTGCAAGG", k = 2, output = "out")
      list(n, DBI::dbReadTable(con, "out"), DBI::dbGetQuery(con, "DESCRIBE out")[1:2])
    })
  }
  # a schema-qualified table and output, as DBI::Id()
  expect_same_paths(function() {
    on.exit(DBI::dbRemoveTable(con, DBI::Id(schema = "main", table = "out2")))
    n <- sassy_search_table(con, DBI::Id(schema = "main", table = "typed"), "ACGTTGCAAGG", k = 2,
                            id = c("s", "t4"), output = DBI::Id(schema = "main", table = "out2"))
    list(n, DBI::dbReadTable(con, "out2"))
  })
  # with a transaction of the user's open, output runs the R path (a failed
  # query would abort it), in that transaction
  DBI::dbBegin(con)
  r <- expect_same_paths(function() {
    on.exit(DBI::dbRemoveTable(con, "out3"))
    n <- sassy_count_table(con, "typed", "ACGTTGCAAGG", k = 2, output = "out3")
    list(n, DBI::dbReadTable(con, "out3"))
  }, sql = FALSE)
  expect_identical(r[[1]], as.double(n))
  withr::with_options(list(ducksassy.table_sql = TRUE), {
    sassy_count_table(con, "typed", "ACGTTGCAAGG", k = 2, output = "out4")
  })
  expect_true(DBI::dbExistsTable(con, "out4"))
  DBI::dbRollback(con)
  expect_false(DBI::dbExistsTable(con, "out4"))
})

test_that("several row groups on DuckDB's threads keep the R path's row order", {
  con <- sql_con()
  set.seed(158)
  # 300,000 rows: three of DuckDB's row groups (122,880 rows), scanned in
  # parallel on 2 threads
  n <- 300000L
  bases <- c("A", "C", "G", "T")
  seqs <- vapply(seq_len(1000L), function(i) paste(sample(bases, 40L, TRUE), collapse = ""), "")
  seqs[c(7L, 500L)] <- c("GGACGTTGCAAGGTT", NA)
  DBI::dbWriteTable(con, "reads", data.frame(id = sample(n), sequence = seqs[sample(1000L, n, TRUE)]))
  DBI::dbExecute(con, "SET threads = 3")
  for (verb in names(verbs)) {
    got <- expect_same_paths(function() verbs[[verb]](con, "reads", "ACGTTGCAAGG", k = 2, threads = 2L))
    expect_gt(nrow(got), 1000)
    expect_same_paths(function() {
      on.exit(DBI::dbRemoveTable(con, "out"))
      n <- verbs[[verb]](con, "reads", "ACGTTGCAAGG", k = 2, threads = 2L, output = "out")
      list(n, DBI::dbReadTable(con, "out"))
    })
  }
  # DuckDB's threads are set back to what they were
  expect_equal(as.numeric(DBI::dbGetQuery(con, "SELECT current_setting('threads') AS n")$n), 3)
  # without preserve_insertion_order DuckDB may return rows in any order:
  # the R path (whose rows then come in DuckDB's order too, so they are
  # compared sorted)
  DBI::dbExecute(con, "SET preserve_insertion_order = false")
  expect_same_paths(function() {
    r <- sassy_count_table(con, "reads", "ACGTTGCAAGG", k = 2, threads = 1L)
    r <- r[order(r$id), , drop = FALSE]
    rownames(r) <- NULL
    r
  }, sql = FALSE)
})

test_that("ASCII text, a table name that needs quoting and no hits at all", {
  con <- sql_con()
  set.seed(152)
  words <- c(rand_seqs(200, 0:60, c(letters, " ", ".", "'")), NA, "the quick brown fox", "")
  DBI::dbWriteTable(con, "my 'odd' table", data.frame(k = seq_along(words), sequence = words))
  for (verb in names(verbs)) {
    got <- expect_same_paths(function() {
      verbs[[verb]](con, "my 'odd' table", c("brown fix", "it's"), k = 1, alphabet = "ascii")
    })
    expect_gt(nrow(got), 0)
    expect_same_paths(function() {
      verbs[[verb]](con, "my 'odd' table", "zzzzqqqq", k = 0, alphabet = "ascii", rc = FALSE)
    })
  }
  DBI::dbWriteTable(con, "empty", data.frame(id = integer(), sequence = character()))
  for (verb in names(verbs)) {
    got <- expect_same_paths(function() verbs[[verb]](con, "empty", "ACGT", k = 1))
    expect_identical(nrow(got), 0L)
  }
})

test_that("`output` writes the same table on both paths, new or existing", {
  con <- sql_con()
  set.seed(153)
  pats <- c(p1 = "ACGTTGCAAGG", p2 = "TTGACCATGCA")
  tab <- data.frame(id = 1:300, big = as.double(1:300) * 3, sequence = planted_texts(300, pats[[1]]))
  DBI::dbWriteTable(con, "reads", tab)
  for (verb in names(verbs)) {
    for (existing in c(FALSE, TRUE)) {
      run <- function(path) {
        out <- paste0("out_", path)
        if (existing) {
          # a table with the result's columns in another order
          proto <- withr::with_options(
            list(ducksassy.table_sql = FALSE),
            verbs[[verb]](con, "reads", pats, k = 2)
          )
          DBI::dbCreateTable(con, out, proto[rev(names(proto))])
          DBI::dbAppendTable(con, out, proto[1:3, rev(names(proto))])
        }
        n <- withr::with_options(
          list(ducksassy.table_sql = path == "sql"),
          withVisible(verbs[[verb]](con, "reads", pats, k = 2, threads = 2L, output = out))
        )
        on.exit(DBI::dbRemoveTable(con, out))
        list(n = n, table = DBI::dbReadTable(con, out), types = DBI::dbGetQuery(con, paste0("DESCRIBE ", out))[1:2])
      }
      r <- run("r")
      before <- ducksassy:::table_sql_uses()
      s <- run("sql")
      expect_identical(ducksassy:::table_sql_uses() - before, 1)
      expect_identical(s, r)
      expect_false(r$n$visible)
      expect_gt(r$n$value, 100)
    }
  }
})

test_that("errors are the R path's: bad letters, the hit limit, bad output tables", {
  con <- sql_con()
  DBI::dbWriteTable(con, "reads", data.frame(id = 1:3, sequence = c("ACGTACGT", "ACGZACGT", "ACGT")))
  err <- function(expr) tryCatch(expr, error = function(e) e)
  for (verb in names(verbs)) {
    r <- withr::with_options(list(ducksassy.table_sql = FALSE), err(verbs[[verb]](con, "reads", "ACGT", alphabet = "dna")))
    s <- withr::with_options(list(ducksassy.table_sql = TRUE), err(verbs[[verb]](con, "reads", "ACGT", alphabet = "dna")))
    expect_s3_class(r, "ducksassy_input_error")
    expect_identical(class(s), class(r))
    expect_identical(conditionMessage(s), conditionMessage(r))
    expect_match(conditionMessage(s), "id = 2", fixed = TRUE)
  }
  DBI::dbWriteTable(con, "many", data.frame(id = 1:50, sequence = strrep("ACGT", 20)))
  withr::local_options(ducksassy.max_hits = 100)
  r <- withr::with_options(list(ducksassy.table_sql = FALSE), err(sassy_search_table(con, "many", "ACGT")))
  before <- ducksassy:::table_sql_uses()
  s <- withr::with_options(list(ducksassy.table_sql = TRUE), err(sassy_search_table(con, "many", "ACGT")))
  expect_s3_class(r, "ducksassy_limit_error")
  expect_identical(class(s), class(r))
  expect_identical(conditionMessage(s), conditionMessage(r))
  # at the limit exactly: 50 rows x 2 strands x 20 hits is 2000
  withr::local_options(ducksassy.max_hits = 2000)
  expect_identical(nrow(expect_same_paths(function() sassy_search_table(con, "many", "ACGT"))), 2000L)
  # an output table that does not fit
  DBI::dbWriteTable(con, "bad", data.frame(x = 1))
  r <- withr::with_options(list(ducksassy.table_sql = FALSE), err(sassy_count_table(con, "reads", "ACGT", output = "bad")))
  s <- withr::with_options(list(ducksassy.table_sql = TRUE), err(sassy_count_table(con, "reads", "ACGT", output = "bad")))
  expect_s3_class(r, "ducksassy_input_error")
  expect_identical(conditionMessage(s), conditionMessage(r))
  expect_identical(DBI::dbReadTable(con, "bad"), data.frame(x = 1))
})

test_that("options and sources the SQL functions cannot do exactly run the R path", {
  con <- sql_con()
  set.seed(154)
  DBI::dbWriteTable(con, "reads", data.frame(
    id = 1:50, day = as.Date("2024-01-01") + 0:49,
    sequence = planted_texts(50, "ACGTTGCAAGG")
  ))
  DBI::dbWriteTable(con, "only", data.frame(sequence = planted_texts(50, "ACGTTGCAAGG")))
  no <- function(f) expect_same_paths(f, sql = FALSE)
  no(function() sassy_search_table(con, "reads", "ACGTTGCAAGG", k = 2, id = "id", cigar = FALSE))
  no(function() sassy_search_table(con, "reads", "ACGTTGCAAGG", k = 2, id = "id", cigar_style = "sam"))
  no(function() sassy_search_table(con, "reads", "ACGTTGCAAGG", k = 2, id = "id", region = TRUE))
  no(function() sassy_count_table(con, "reads", "ACGTTGCAAGG", k = 2, id = "id", indels = FALSE))
  no(function() sassy_count_table(con, "reads", "acgttgcaagg", k = 2, id = "id", alphabet = "ascii", ignore_case = TRUE))
  # a Date id, no id (the row number), a query
  no(function() sassy_count_table(con, "reads", "ACGTTGCAAGG", k = 2))
  no(function() sassy_search_table(con, "only", "ACGTTGCAAGG", k = 2))
  no(function() {
    on.exit(DBI::dbRemoveTable(con, "out"))
    n <- sassy_count_table(con, "only", "ACGTTGCAAGG", k = 2, output = "out")
    list(n, DBI::dbReadTable(con, "out"))
  })
  no(function() sassy_count_table(con, DBI::SQL("SELECT id, sequence FROM reads"), "ACGTTGCAAGG", k = 2))
})

test_that("without id columns, counts are numbered in scan order as on the R path", {
  con <- sql_con()
  set.seed(156)
  DBI::dbWriteTable(con, "only", data.frame(sequence = planted_texts(300, "ACGTTGCAAGG")))
  for (verb in c("count", "contains")) {
    got <- expect_same_paths(function() {
      verbs[[verb]](con, "only", c(record = "ACGTTGCAAGG", "TTGACCATGCA"), k = 2)
    })
    expect_identical(names(got), c("record", "record_1", "pattern_2"))
    expect_identical(got$record, 1:300)
  }
})

test_that("a DuckDB database that cannot load the extension runs the R path, silently", {
  con <- DBI::dbConnect(suppressMessages(duckdb::duckdb()))
  withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
  set.seed(155)
  texts <- planted_texts(100, "ACGTTGCAAGG")
  DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(texts), sequence = texts))
  for (verb in names(verbs)) {
    before <- ducksassy:::table_sql_uses()
    got <- withr::with_options(list(ducksassy.table_sql = TRUE), {
      expect_no_warning(expect_no_error(verbs[[verb]](con, "reads", "ACGTTGCAAGG", k = 2)))
    })
    expect_identical(ducksassy:::table_sql_uses(), before)
    # what the vector function gives on the same sequences
    want <- if (verb == "search") {
      h <- sassy_search(texts, "ACGTTGCAAGG", k = 2)
      nrow(h)
    } else {
      length(texts)
    }
    expect_identical(nrow(got), want)
  }
})

test_that("unset, the rule picks the in-database path for output and counts where DuckDB's threads have rows", {
  faster <- ducksassy:::table_sql_faster
  rows <- function(n) function() n
  group <- 122880
  expect_true(faster("count", NULL, 1L, rows(NA)))
  expect_true(faster("contains", NULL, 1L, rows(10)))
  expect_true(faster("count", NULL, 2L, rows(2 * group)))
  expect_false(faster("contains", NULL, 2L, rows(2 * group - 1)))
  expect_false(faster("count", NULL, 2L, rows(NA)))
  expect_false(faster("hits", NULL, 1L, rows(1e9)))
  expect_true(faster("hits", "out", 1L, rows(10)))
  expect_false(faster("count", "out", 2L, rows(NA)))
  expect_false(faster("count", "out", 2L, rows(2 * group - 1)))
  expect_true(faster("count", "out", 2L, rows(2 * group)))
  expect_true(faster("hits", "out", 4L, rows(4 * group)))
  expect_false(faster("hits", "out", 4L, rows(4 * group - 1)))

  con <- sql_con()
  DBI::dbWriteTable(con, "reads", data.frame(id = 1:20, sequence = strrep("ACGTTGCAAGG", 2)))
  withr::local_options(ducksassy.table_sql = NULL)
  withr::local_envvar(DUCKSASSY_TABLE_SQL = NA)
  uses <- function(expr) {
    before <- ducksassy:::table_sql_uses()
    force(expr)
    ducksassy:::table_sql_uses() - before
  }
  expect_identical(uses(sassy_count_table(con, "reads", "ACGTTGCAAGG", threads = 1L)), 1)
  expect_identical(uses(sassy_count_table(con, "reads", "ACGTTGCAAGG", threads = 2L)), 0)
  expect_identical(uses(sassy_search_table(con, "reads", "ACGTTGCAAGG", threads = 1L)), 0)
  expect_identical(uses(sassy_search_table(con, "reads", "ACGTTGCAAGG", threads = 1L, output = "out")), 1)
  withr::local_envvar(DUCKSASSY_TABLE_SQL = "false")
  expect_identical(uses(sassy_count_table(con, "reads", "ACGTTGCAAGG", threads = 1L)), 0)
  withr::local_envvar(DUCKSASSY_TABLE_SQL = "true")
  expect_identical(uses(sassy_search_table(con, "reads", "ACGTTGCAAGG", threads = 2L)), 1)
})

test_that("Ctrl-C stops the in-database search within a second, as the R path's", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  rs <- callr::r_session$new(
    callr::r_session_options(libpath = .libPaths(), env = c(callr::rcmd_safe_env(), DUCKSASSY_THREADS = "2")),
    wait = TRUE
  )
  on.exit(rs$close(), add = TRUE)
  rs$run(function() {
    suppressPackageStartupMessages(library(ducksassy))
    try(sassy_search("ACGT", "ACGT", k = 9L), silent = TRUE)
    drv <- suppressMessages(sassy_duckdb())
    con <<- DBI::dbConnect(drv)
    set.seed(1)
    genome <- rawToChar(as.raw(c(65L, 67L, 71L, 84L))[sample.int(4L, 1e7, TRUE)])
    starts <- sample.int(1e7 - 150L, 2e6, TRUE)
    DBI::dbWriteTable(con, "reads", data.frame(id = seq_along(starts), sequence = substring(genome, starts, starts + 149L)))
    invisible(gc())
  })
  count <- function() {
    before <- ducksassy:::table_sql_uses()
    outcome <- withr::with_options(list(ducksassy.table_sql = TRUE), tryCatch(
      {
        sassy_count_table(con, "reads", c(
          "ACGTTGCAACGTTGCAACGT", "GGGCCCAATTGGCCAATTGCA", "TTGACCATGGCAAGTCCATGAC",
          "CATCATCATCATGATGATGATCA", "GATTACAGATTACAGATTACAGAT", "CCGGTTAACCGGTTAACCGGTTAAC",
          "AGCTAGCTTCGATCGAAGCTAGCTTC", "TTTTCCCCAAAAGGGGTTTTCCCCAAA"
        ), k = 4L)
        "finished"
      },
      ducksassy_interrupt = function(e) "ducksassy_interrupt",
      interrupt = function(e) "interrupt"
    ))
    list(outcome = outcome, at = Sys.time(), used = ducksassy:::table_sql_uses() - before)
  }
  rs$call(count)
  Sys.sleep(1.5)
  busy <- rs$poll_process(0) == "timeout"
  sent <- Sys.time()
  rs$interrupt()
  deadline <- Sys.time() + 60
  while (rs$poll_process(1000) != "ready" && Sys.time() < deadline) NULL
  res <- rs$read()
  expect_true(busy, info = "the search had finished before the interrupt: make the input larger")
  expect_null(res$error)
  expect_true(res$result$outcome %in% c("ducksassy_interrupt", "interrupt"), info = res$result$outcome)
  expect_lt(as.numeric(difftime(res$result$at, sent, units = "secs")), 1)
  # and the connection still searches, inside the database
  small <- rs$run(function() {
    withr::with_options(list(ducksassy.table_sql = TRUE), {
      before <- ducksassy:::table_sql_uses()
      n <- sassy_count_table(con, DBI::Id(table = "reads"), "ACGTTGCAACGTTGCAACGT", k = 0L)
      list(n = nrow(n), used = ducksassy:::table_sql_uses() - before)
    })
  })
  expect_identical(small, list(n = 2e6L, used = 1))
})

test_that("non-ASCII patterns and texts: the same result or error on both paths; latin1 patterns run the R path", {
  con <- sql_con()
  DBI::dbWriteTable(con, "words", data.frame(id = 1:3, sequence = c("na\u00efve caf\u00e9", "cafe", NA)))
  outcome <- function(f) tryCatch(f(), error = function(e) list(class(e), conditionMessage(e)))
  for (p in list("caf\u00e9", iconv("caf\u00e9", "UTF-8", "latin1"), "cafe")) {
    r <- withr::with_options(list(ducksassy.table_sql = FALSE), outcome(function() {
      sassy_count_table(con, "words", p, k = 1, alphabet = "ascii")
    }))
    before <- ducksassy:::table_sql_uses()
    s <- withr::with_options(list(ducksassy.table_sql = TRUE), outcome(function() {
      sassy_count_table(con, "words", p, k = 1, alphabet = "ascii")
    }))
    expect_identical(s, r)
    if (Encoding(p) == "latin1") {
      expect_identical(ducksassy:::table_sql_uses(), before)
    }
  }
})
