# Regression tests of issue 24 ("What a new user hit"), one per point, each
# named after it.

random_dna <- function(n, letters = c("A", "C", "G", "T")) {
  paste(sample(letters, n, TRUE), collapse = "")
}

# Hits of `texts` without max_n_frac whose region (`start..end` of the text,
# forward coordinates) has at most a fraction `f` of N (an empty region
# passes): what the search with `max_n_frac = f` must return.
n_rule <- function(hits, texts, f) {
  if (nrow(hits) == 0L) {
    return(hits)
  }
  region <- substring(texts[hits$record], hits$start, hits$end)
  n <- nchar(gsub("[^Nn]", "", region))
  len <- nchar(region)
  keep <- len == 0L | n / pmax(len, 1L) <= f + 1e-6
  out <- hits[keep, , drop = FALSE]
  rownames(out) <- NULL
  out
}

test_that("#24: max_n_frac with overhang drops hits that contain no N", {
  # the issue's examples: the hits on ACGT / GTTA (no N) stay
  fwd <- sassy_search("NACGT", "ACGTAAAA", k = 2, overhang = 0.5, rc = FALSE, max_n_frac = 0)
  expect_identical(nrow(fwd), 1L)
  expect_identical(substring("NACGT", fwd$start, fwd$end), "ACGT")
  expect_identical(fwd, sassy_search("NACGT", "ACGTAAAA", k = 2, overhang = 0.5, rc = FALSE))
  rev <- sassy_search("GGTTAN", "CAACCAGG", k = 2, overhang = 0.5, max_n_frac = 0)
  expect_identical(nrow(rev), 1L)
  expect_identical(rev$strand, "-")
  expect_identical(sassy_count("GGTTAN", "CAACCAGG", k = 2, overhang = 0.5, max_n_frac = 0)[[1]], 1L)
  expect_true(sassy_contains("GGTTAN", "CAACCAGG", k = 2, overhang = 0.5, max_n_frac = 0)[[1]])

  # the property, on random texts with N near both ends: with the filter,
  # exactly the hits without it whose region passes, every path
  set.seed(24)
  dropped <- 0L
  for (case in 1:60) {
    m <- sample(5:12, 1)
    k <- sample(0:(m %/% 2), 1)
    texts <- vapply(1:3, function(i) {
      t <- strsplit(random_dna(sample(m:50, 1)), "")[[1]]
      ends <- c(1:3, length(t) - 0:2)
      t[sample(ends, sample(0:3, 1))] <- "N"
      paste(t, collapse = "")
    }, "")
    patterns <- vapply(1:sample(1:3, 1), function(i) random_dna(m), "")
    opts <- list(
      k = k, overhang = if (case %% 3 == 0) NULL else sample(c(0, 0.25, 0.5, 1), 1),
      rc = runif(1) < 0.7, all_endpoints = runif(1) < 0.3
    )
    f <- sample(c(0, 0.1, 0.25, 0.5), 1)
    without <- do.call(sassy_search, c(list(texts, patterns), opts))
    want <- n_rule(without, texts, f)
    dropped <- dropped + nrow(without) - nrow(want)
    info <- paste(case, deparse(list(texts, patterns, opts, f)))
    got <- do.call(sassy_search, c(list(texts, patterns), opts, max_n_frac = f))
    expect_identical(got, want, info = info)
    counts <- table(factor(want$record, seq_along(texts)), factor(want$pattern, seq_along(patterns)))
    got_counts <- do.call(sassy_count, c(list(texts, patterns), opts, max_n_frac = f))
    expect_identical(as.vector(unclass(got_counts)), as.integer(counts), info = info)
    got_contains <- do.call(sassy_contains, c(list(texts, patterns), opts, max_n_frac = f))
    expect_identical(as.vector(unclass(got_contains)), as.integer(counts) > 0L, info = info)
  }
  expect_gt(dropped, 0L)

  # the SQL functions
  skip_if_not_installed("duckdb")
  con <- sql_con()
  q <- "SELECT sassy_count('GGTTAN', 'CAACCAGG', 2, 'iupac', true, false, 0.5, 0.0) AS n"
  expect_identical(as.integer(DBI::dbGetQuery(con, q)$n), 1L)
})

# Run `f(args)` in a fresh R session (`args$setup()`, when given, makes the
# arguments there) under a time limit of `limit` seconds; returns what was
# caught, the seconds it took and what the session printed.
under_time_limit <- function(f, args = list(), limit = 0.5) {
  out <- tempfile()
  on.exit(unlink(out))
  res <- callr::r(function(f, args, limit) {
    suppressPackageStartupMessages(library(ducksassy))
    setup <- args$setup
    if (is.function(setup)) args <- setup()
    # Load lazily loaded code first: a time limit that passes inside R's own
    # requireNamespace() (a slow load on a busy machine) is swallowed there,
    # and nothing is left to stop the search
    fa <- tempfile(fileext = ".fa")
    writeLines(c(">a", "ACGTACGTACGTACGTACGTAGG"), fa)
    invisible(sassy_search_fastx(fa, "ACGT", k = 0))
    invisible(sassy_crispr(sassy_read_fastx(fa)$sequence, "ACGTACGTACGTACGTACGTNGG", k = 0))
    for (pkg in c("DBI", "RSQLite", "duckdb")) requireNamespace(pkg, quietly = TRUE)
    unlink(fa)
    t0 <- Sys.time()
    caught <- tryCatch(
      {
        setTimeLimit(elapsed = limit, transient = TRUE)
        do.call(f, args)
        "finished"
      },
      error = function(e) class(e),
      interrupt = function(e) c("interrupt", class(e))
    )
    setTimeLimit()
    list(caught = caught, seconds = as.numeric(difftime(Sys.time(), t0, units = "secs")))
  }, list(f = f, args = args, limit = limit), libpath = .libPaths(), stdout = out, stderr = "2>&1")
  res$printed <- readLines(out)
  res
}

expect_time_limit_error <- function(r, limit = 0.5) {
  info <- paste(c(r$caught, r$seconds, r$printed), collapse = ", ")
  expect_true("ducksassy_time_limit" %in% r$caught, info = info)
  expect_true("error" %in% r$caught)
  expect_lt(r$seconds, limit + 2)
  expect_identical(r$printed, character(0))
}

test_that("#24: a time limit kills the script (search, fastx, filter, crispr, table)", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  heavy <- function() {
    set.seed(1)
    dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")
    list(x = dna(1e6), p = dna(1000))
  }
  expect_time_limit_error(under_time_limit(function(x, p) sassy_search(x, p, k = 600), list(setup = heavy)))
  fa <- tempfile(fileext = ".fa")
  on.exit(unlink(fa), add = TRUE)
  set.seed(1)
  writeLines(c(">chr", random_dna(1e6)), fa)
  p <- random_dna(1000)
  expect_time_limit_error(under_time_limit(function(fa, p) sassy_search_fastx(fa, p, k = 600), list(fa = fa, p = p)))
  guides <- vapply(1:3000, function(i) paste0(random_dna(20), "NGG"), "")
  expect_time_limit_error(under_time_limit(
    function(fa, guides) sassy_crispr(sassy_read_fastx(fa)$sequence, guides, k = 5),
    list(fa = fa, guides = guides)
  ))
  skip_if_not_installed("RSQLite")
  # the table is written before the limit (on a busy machine that alone
  # can take a second); only the search runs under it
  lite_setup <- function() {
    con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
    DBI::dbWriteTable(con, "t", data.frame(id = 1L, sequence = sassy_read_fastx(fa)$sequence))
    list(con = con, p = p)
  }
  environment(lite_setup) <- list2env(list(fa = fa, p = p), parent = globalenv())
  expect_time_limit_error(under_time_limit(function(con, p) {
    sassy_search_table(con, "t", p, k = 600, id = "id")
  }, list(setup = lite_setup), limit = 1), limit = 1)
})

# 40 rows of 25 kb and a 1,000-letter pattern at k = 600: about 18 s of
# work in DuckDB on one thread, in few vectors of rows.
long_rows_setup <- function() {
  set.seed(1)
  dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")
  drv <- suppressMessages(sassy_duckdb())
  con <<- DBI::dbConnect(drv)
  DBI::dbWriteTable(con, "t", data.frame(id = 1:40, sequence = vapply(1:40, function(i) dna(25000), "")))
  DBI::dbExecute(con, "SET threads = 1")
  p <<- dna(1000)
  invisible(gc())
}

test_that("#24: searches inside DuckDB on few long rows cannot be stopped (time limits)", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  skip_if_not_installed("duckdb")
  setup <- function() {
    long_rows_setup()
    list()
  }
  sql <- function() {
    DBI::dbGetQuery(con, sprintf("SELECT id, len(sassy_hits(sequence, '%s', 600)) FROM t", p))
  }
  r <- under_time_limit(sql, list(setup = setup), limit = 1)
  expect_true("error" %in% r$caught, info = paste(r$caught, collapse = ", "))
  expect_lt(r$seconds, 2.5)
  verb <- function() sassy_search_table(con, "t", p, k = 600, threads = 1, output = "hits")
  expect_time_limit_error(under_time_limit(verb, list(setup = setup), limit = 1), limit = 1)
})

test_that("#23: sassy_assign inside DuckDB on few long rows stops at a time limit", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  skip_if_not_installed("duckdb")
  setup <- function() {
    long_rows_setup()
    list()
  }
  sql <- function() {
    DBI::dbGetQuery(con, sprintf("SELECT id, sassy_assign(sequence, ['%s', '%s'], 600) AS a FROM t", p, substring(p, 2)))
  }
  r <- under_time_limit(sql, list(setup = setup), limit = 1)
  expect_true("error" %in% r$caught, info = paste(r$caught, collapse = ", "))
  expect_lt(r$seconds, 2.5)
})

test_that("#24: searches inside DuckDB on few long rows cannot be stopped (Ctrl-C)", {
  rs <- interrupt_test_session("duckdb")
  rs$run(long_rows_setup)
  # the table verb raises its documented condition
  r <- interrupt_call(rs, function() {
    sassy_search_table(con, "t", p, k = 600, threads = 1, output = "hits")
  }, after = 1)
  expect_true(r$busy)
  expect_null(r$error)
  expect_identical(r$outcome, "ducksassy_interrupt")
  expect_lt(r$seconds, 1)
  # the user's own query is interrupted as duckdb does (R's interrupt)
  r <- interrupt_call(rs, function() {
    DBI::dbGetQuery(con, sprintf("SELECT id, len(sassy_hits(sequence, '%s', 600)) FROM t", p))
  }, after = 1)
  expect_prompt_interrupt(r)
  # the connection and the SQL functions work afterwards, and R's own
  # handler is back (a later Ctrl-C outside a query still interrupts R)
  n <- rs$run(function() {
    DBI::dbGetQuery(con, "SELECT len(sassy_hits('CCGATTACACC', 'GATTA', 0)) AS n")$n
  })
  expect_equal(as.numeric(n), 1)
  r <- interrupt_call(rs, function() repeat Sys.sleep(0.05), after = 0.5)
  expect_identical(r$outcome, "interrupt")
  expect_lt(r$seconds, 1)
  expect_equal(rs$run(small_search), small_search())
})

test_that("#24: format_value() says \"an\" before a type that starts with a vowel", {
  expect_identical(format_value(1:3), "an integer vector of length 3")
  expect_identical(format_value(c(TRUE, FALSE)), "a logical vector of length 2")
  e <- expect_error(sassy_search(1:3, "ACGT"), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "`texts` is an integer vector", fixed = TRUE)
  expect_no_match(conditionMessage(e), "a integer", fixed = TRUE)
})

test_that("#24: a missing table has the same message with DuckDB and SQLite", {
  skip_if_not_installed("duckdb")
  skip_if_not_installed("RSQLite")
  lite <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(lite))
  duck <- sql_con()
  msgs <- lapply(list(duck, lite), function(con) {
    e <- expect_error(sassy_search_table(con, "nope", "ACGT"), class = "ducksassy_input_error")
    expect_identical(e$value, "\"nope\"")
    conditionMessage(e)
  })
  expect_identical(msgs[[1]], msgs[[2]])
  expect_match(msgs[[1]], "Can't find table \"nope\".", fixed = TRUE)
  e <- expect_error(sassy_search_table(duck, DBI::Id(schema = "main", table = "nope"), "ACGT"),
    class = "ducksassy_input_error"
  )
  expect_match(conditionMessage(e), "Can't find table \"main\".\"nope\".", fixed = TRUE)
})

test_that("#24: options match by full name only (no partial matching)", {
  e <- expect_error(sassy_search("ACGT", "ACGT", k = 0, indel = FALSE),
    class = "ducksassy_partial_argument_error"
  )
  expect_s3_class(e, "ducksassy_unknown_argument_error")
  expect_s3_class(e, "ducksassy_input_error")
  expect_identical(e$arg, "indel")
  expect_identical(e$value, "indels")
  expect_match(conditionMessage(e), "`sassy_search()` has no argument `indel`", fixed = TRUE)
  expect_match(conditionMessage(e), "Did you mean `indels = `?", fixed = TRUE)
  # names forwarded through a wrapper's dots are seen too
  wrap <- function(...) sassy_count(...)
  e <- expect_error(wrap("ACGT", "ACGT", thr = 1), class = "ducksassy_partial_argument_error")
  expect_identical(e$value, "threads")
  e <- expect_error(sassy_read_fastx("x.fa", n_m = 1), class = "ducksassy_partial_argument_error")
  expect_identical(e$value, "n_max")
  e <- expect_error(sassy_crispr("ACGTACGTAGG", "ACGTACGT", k = 0, pam = 3),
    class = "ducksassy_partial_argument_error"
  )
  expect_identical(e$value, "pam_length")
  # full names and positions still work
  h <- sassy_search("ACGTTTACGT", "ACGT", 0, "dna", FALSE)
  expect_identical(h$start, c(1L, 7L))
  expect_identical(h$strand, c("+", "+"))
  expect_identical(sassy_count("ACGTTTACGT", "ACGT", k = 0, indels = FALSE, rc = FALSE), 2L)
  expect_identical(wrap("ACGTTTACGT", "ACGT", 0, rc = FALSE), 2L)
})

test_that("#24: X in patterns is refused with overhang (as ?sassy_search says)", {
  e <- expect_error(sassy_search("ACGT", "ACXT", k = 1, overhang = 0.5), class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "must be free of the masking letter X when `overhang` is set", fixed = TRUE)
})

test_that("#24: as_granges() warns when texts share a name (they become one sequence)", {
  skip_if_not_installed("GenomicRanges")
  texts <- c(a = "ACGTAAAA", a = "TTACGTTTTTTT", b = "ACGT")
  hits <- sassy_search(texts, "ACGT", rc = FALSE)
  expect_identical(hits$name, c("a", "a", "b"))
  w <- expect_warning(gr <- as_granges(hits), class = "ducksassy_duplicate_names_warning")
  expect_s3_class(w, "ducksassy_warning")
  expect_identical(w$names, "a")
  expect_match(conditionMessage(w), "1 sequence name is given to several texts", fixed = TRUE)
  expect_match(conditionMessage(w), "seqnames = \"record\"", fixed = TRUE)
  expect_identical(as.character(GenomicRanges::seqnames(gr)), c("a", "a", "b"))
  expect_identical(gr$record, 1:3)
  # kept apart by record, no warning
  expect_no_warning(gr2 <- as_granges(hits, seqnames = "record"))
  expect_identical(as.character(GenomicRanges::seqnames(gr2)), c("1", "2", "3"))
  # unique names: no warning, and the lengths are filled in
  texts2 <- stats::setNames(texts, make.unique(names(texts)))
  expect_no_warning(gr3 <- as_granges(sassy_search(texts2, "ACGT", rc = FALSE)))
  expect_identical(unname(GenomeInfoDb::seqlengths(gr3)), c(8L, 12L, 4L))
  # two hits of one text are not a duplicate name
  expect_no_warning(as_granges(sassy_search(c(a = "ACGTACGT"), "ACGT", rc = FALSE)))
})

test_that("#24: `output` with a STRUCT or LIST id column is a classed error up front", {
  skip_if_not_installed("duckdb")
  con <- sql_con()
  DBI::dbExecute(con, "CREATE TABLE r AS SELECT {'a': 1, 'b': 'x'} AS s, [1, 2] AS l, 'ACGTACGT' AS sequence")
  e <- expect_error(
    sassy_search_table(con, DBI::SQL("SELECT s, sequence FROM r"), "ACGT", output = "o1"),
    class = "ducksassy_output_type_error"
  )
  expect_s3_class(e, "ducksassy_input_error")
  expect_identical(e$value, "s")
  expect_match(conditionMessage(e), "`id` column \"s\" can't be written to the `output` table.", fixed = TRUE)
  expect_match(conditionMessage(e), "STRUCT", fixed = TRUE)
  expect_match(conditionMessage(e), "must be text, numbers, logicals, dates or", fixed = TRUE)
  expect_match(conditionMessage(e), "CAST(s AS VARCHAR) AS s", fixed = TRUE)
  e <- expect_error(sassy_search_table(con, "r", "ACGT", id = "l", output = "o2"),
    class = "ducksassy_output_type_error"
  )
  expect_identical(e$value, "l")
  expect_match(conditionMessage(e), "a list column (a LIST, ARRAY or MAP in DuckDB)", fixed = TRUE)
  e <- expect_error(sassy_count_table(con, "r", "ACGT", output = "o3"), class = "ducksassy_output_type_error")
  expect_identical(e$value, "s")
  expect_false(any(c("o1", "o2", "o3") %in% DBI::dbListTables(con)))
  # cast in the query, as the message says: written
  n <- sassy_search_table(con, DBI::SQL("SELECT CAST(s AS VARCHAR) AS s, sequence FROM r"), "ACGT",
    rc = FALSE, output = "o4"
  )
  out <- DBI::dbReadTable(con, "o4")
  expect_identical(out$s, rep("{'a': 1, 'b': x}", 2))
  expect_identical(as.integer(out$start), c(1L, 5L))
  # without output the STRUCT id is fine (a data frame column)
  h <- sassy_search_table(con, DBI::SQL("SELECT s, sequence FROM r"), "ACGT", rc = FALSE)
  expect_identical(h$s$b, c("x", "x"))
})

test_that("#24: a `table` query must be one SELECT statement; others are not run", {
  expect_identical(sql_statements("SELECT 1; ")$n, 1L)
  expect_identical(sql_statements("SELECT ';' AS x -- ; DROP\n")$n, 1L)
  expect_identical(sql_statements("/* c; */ (SELECT 1)")$head, "SELECT 1)")
  expect_identical(sql_statements("SELECT 1; DROP TABLE t")$n, 2L)
  for (driver in c("duckdb", "RSQLite")) {
    skip_if_not_installed(driver)
    con <- if (driver == "duckdb") sql_con() else DBI::dbConnect(RSQLite::SQLite(), ":memory:")
    if (driver == "RSQLite") on.exit(DBI::dbDisconnect(con), add = TRUE)
    DBI::dbWriteTable(con, "reads", data.frame(id = 1:2, sequence = c("ACGTAA", "TTTT")))
    bad <- c(
      "SELECT * FROM reads; DROP TABLE reads",
      "SELECT * FROM reads;DROP TABLE reads;",
      "DROP TABLE reads",
      "DELETE FROM reads",
      "SELEC nonsense"
    )
    for (q in bad) {
      e <- expect_error(sassy_search_table(con, DBI::SQL(q), "ACGT"), class = "ducksassy_query_error", info = q)
      expect_s3_class(e, "ducksassy_input_error")
      expect_identical(e$arg, "table")
      expect_match(conditionMessage(e), "must be one `SELECT` statement", fixed = TRUE)
      expect_match(conditionMessage(e), "it was not run", fixed = TRUE)
      expect_true(DBI::dbExistsTable(con, "reads"), info = q)
      expect_identical(nrow(DBI::dbReadTable(con, "reads")), 2L, info = q)
    }
    e <- expect_error(sassy_count_table(con, DBI::SQL(bad[[1]]), "ACGT"), class = "ducksassy_query_error")
    expect_match(conditionMessage(e), "The query has 2 statements", fixed = TRUE)
    # one statement, with a trailing `;`, a `;` in a string, comments, WITH
    ok <- c(
      "SELECT id, sequence FROM reads;",
      "  -- the reads\n SELECT id, sequence FROM reads WHERE sequence <> ';'",
      "WITH r AS (SELECT id, sequence FROM reads) SELECT * FROM r",
      # (SQLite takes no parentheses around the whole query)
      if (driver == "duckdb") "(SELECT id, sequence FROM reads)"
    )
    for (q in ok) {
      h <- sassy_search_table(con, DBI::SQL(q), "ACGT", rc = FALSE)
      expect_identical(h$id, 1L, info = q)
      expect_identical(h$start, 1L, info = q)
    }
  }
})

test_that("#24: sassy_crispr(best = TRUE) keeps the best hit per site, as the vignette's rule did", {
  # the vignette's lines before `best = `, with the text added to the site
  manual <- function(off) {
    o <- off[order(off$record, off$guide, off$strand, off$start), ]
    new_site <- c(TRUE, diff(o$record) != 0 | diff(o$guide) != 0 |
      o$strand[-1] != o$strand[-nrow(o)] | diff(o$start) > 10)
    o$site <- cumsum(new_site)
    best <- o[order(o$site, o$cost), ]
    best <- best[!duplicated(best$site), ]
    best$site <- NULL
    best <- best[order(best$record, best$guide, best$start, best$end, best$strand), ]
    row.names(best) <- NULL
    best
  }
  set.seed(24)
  dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")
  guides <- vapply(1:3, function(i) paste0(dna(12), "NGG"), "")
  # texts with copies of the guides (some with edits) so that sites have several hits
  plant <- function(g) {
    g <- sub("N", sample(c("A", "C", "G", "T"), 1), g)
    if (runif(1) < 0.5) substr(g, 3, 3) <- "A"
    paste0(g, "GG")
  }
  texts <- vapply(1:4, function(i) {
    paste0(dna(50), plant(guides[[1 + i %% 3]]), dna(40), plant(guides[[1]]), dna(30))
  }, "")
  names(texts) <- paste0("t", 1:4)
  off <- sassy_crispr(texts, guides, k = 3)
  best <- sassy_crispr(texts, guides, k = 3, best = TRUE)
  expect_gt(nrow(off), nrow(best))
  expect_gt(nrow(best), 4L)
  expect_equal(best, manual(off), ignore_attr = TRUE)
  expect_identical(attr(best, "seqlengths"), attr(off, "seqlengths"))
  # the vignette's exact lines on one text give the same sites
  one <- sassy_crispr(texts[[1]], guides, k = 3)
  o <- one[order(one$guide, one$strand, one$start), ]
  new_site <- c(TRUE, diff(o$guide) != 0 | o$strand[-1] != o$strand[-nrow(o)] |
    diff(o$start) > 10)
  o$site <- cumsum(new_site)
  vig <- o[order(o$site, o$cost), ]
  vig <- vig[!duplicated(vig$site), ]
  got <- sassy_crispr(texts[[1]], guides, k = 3, best = TRUE)
  expect_identical(nrow(got), nrow(vig))
  key <- function(h) sort(paste(h$guide, h$strand, h$start, h$end, h$cost))
  expect_identical(key(got), key(vig))
  # a subset of the rows, in their order
  expect_true(all(paste(got$guide, got$start, got$strand) %in% paste(one$guide, one$start, one$strand)))
  expect_false(is.unsorted(order(got$record, got$guide, got$start, got$end, got$strand)))
  expect_error(sassy_crispr(texts, guides, k = 3, best = NA), class = "ducksassy_input_error")
})

# A FASTA file whose first header has a Latin-1 byte (0xe9, "é") in its name
# and its description; the second header is plain ASCII.
latin1_fasta <- function() {
  fa <- tempfile(fileext = ".fa")
  writeBin(c(
    charToRaw(">caf"), as.raw(0xe9), charToRaw(" d"), as.raw(0xe9), charToRaw("j\u00e0\n"),
    charToRaw("ACGTACGTTTGACCA\n>plain\nGGGGACGTACGTCC\n")
  ), fa)
  fa
}

# The result of `expr` and the messages of class ducksassy_not_utf8 it gave.
with_not_utf8 <- function(expr) {
  msgs <- list()
  value <- withCallingHandlers(expr, ducksassy_not_utf8 = function(m) {
    msgs[[length(msgs) + 1L]] <<- m
    invokeRestart("muffleMessage")
  })
  list(value = value, messages = vapply(msgs, conditionMessage, ""))
}

test_that("#24: headers that are not UTF-8 are read as Latin-1, in UTF-8, with one message", {
  fa <- latin1_fasta()
  on.exit(unlink(fa))
  r <- with_not_utf8(sassy_read_fastx(fa))
  recs <- r$value
  expect_identical(recs$name, c("caf\u00e9", "plain"))
  expect_identical(Encoding(recs$name), c("UTF-8", "unknown"))
  expect_identical(nchar(recs$name), c(4L, 5L))
  expect_identical(toupper(recs$name), c("CAF\u00c9", "PLAIN"))
  # the description's 0xe9 and the bytes of "à" (c3 a0) read as Latin-1 too:
  # the header is one string, not UTF-8 as a whole
  expect_identical(recs$description, c("d\u00e9j\u00c3\u00a0", NA))
  expect_identical(nchar(recs$description), c(5L, NA_integer_))
  expect_length(r$messages, 1L)
  expect_match(r$messages, "1 record header in .*\\.fa is not valid UTF-8: read as Latin-1", all = FALSE)
  # the search verbs: names of hits and of count rows
  h <- with_not_utf8(sassy_search_fastx(fa, "ACGTACGT", k = 0L))
  expect_identical(unique(h$value$name), c("caf\u00e9", "plain"))
  expect_identical(toupper(h$value$name[[1L]]), "CAF\u00c9")
  expect_length(h$messages, 1L)
  n <- with_not_utf8(sassy_count_fastx(fa, "ACGTACGT", k = 0L))
  expect_identical(n$value$name, c("caf\u00e9", "plain"))
  expect_identical(nchar(n$value$name), c(4L, 5L))
  expect_length(n$messages, 1L)
  # a sequence byte that is not UTF-8 (sassy_read_fastx() returns sequences)
  sq <- tempfile(fileext = ".fa")
  on.exit(unlink(sq), add = TRUE)
  writeBin(c(charToRaw(">a\nAC"), as.raw(0xe9), charToRaw("GT\n")), sq)
  r <- with_not_utf8(sassy_read_fastx(sq))
  expect_identical(r$value$sequence, "AC\u00e9GT")
  expect_identical(nchar(r$value$sequence), 5L)
  expect_length(r$messages, 1L)
  expect_match(r$messages, "1 sequence or quality in .*\\.fa are not valid UTF-8", all = FALSE)
  # valid UTF-8 and ASCII headers: kept as they are, no message
  ok <- tempfile(fileext = ".fa")
  on.exit(unlink(ok), add = TRUE)
  writeLines(enc2utf8(c(">caf\u00e9 d\u00e9j\u00e0", "ACGTACGT")), ok, useBytes = TRUE)
  expect_no_message(recs <- sassy_read_fastx(ok))
  expect_identical(recs$name, "caf\u00e9")
  expect_identical(recs$description, "d\u00e9j\u00e0")
})

test_that("#24: sharded file searches say once that headers were not UTF-8", {
  skip_if_not_installed("BiocParallel")
  fa <- latin1_fasta()
  on.exit(unlink(fa))
  # one shard per record: one message, with the total
  withr::local_options(ducksassy.shard_records = 1)
  two <- tempfile(fileext = ".fa")
  on.exit(unlink(two), add = TRUE)
  file.copy(fa, two)
  s <- with_not_utf8(sassy_count_fastx(c(fa, two), "ACGTACGT", k = 0L,
    BPPARAM = BiocParallel::SerialParam()))
  expect_identical(s$value$name, rep(c("caf\u00e9", "plain"), 2L))
  expect_null(attr(s$value, "not_utf8"))
  expect_length(s$messages, 1L)
  expect_match(s$messages, "2 record headers in 2 files are not valid UTF-8", all = FALSE)
  sh <- with_not_utf8(sassy_search_fastx(fa, "ACGTACGT", k = 0L, BPPARAM = BiocParallel::SerialParam()))
  expect_identical(toupper(unique(sh$value$name)), c("CAF\u00c9", "PLAIN"))
  expect_null(attr(sh$value, "not_utf8"))
  expect_length(sh$messages, 1L)
})

test_that("#24: progress labels count in the singular and the plural", {
  expect_identical(ducksassy:::search_label("ACGT"), "Searching 1 text")
  expect_identical(ducksassy:::search_label(c("ACGT", "AC")), "Searching 2 texts")
  expect_identical(ducksassy:::search_label(character(2e5)), "Searching 200,000 texts")
  expect_identical(ducksassy:::fastx_label(c("a.fa", "b.fa")), "Searching 2 files")
  expect_identical(ducksassy:::fastx_label("dir/a.fa"), "Searching a.fa")
  expect_identical(ducksassy:::count_label("Searching", 1, "row"), "Searching 1 row")
})

test_that("#24: progress rates and counts are not in scientific notation", {
  expect_identical(ducksassy:::progress_rate(4e5), "400,000/s")
  expect_identical(ducksassy:::progress_rate(1234567.8), "1,234,568/s")
  expect_identical(ducksassy:::progress_rate(0.4), "0/s")
  expect_identical(ducksassy:::progress_rate(NaN), "?/s")
  expect_identical(ducksassy:::progress_rate(Inf), "?/s")
  expect_identical(ducksassy:::format_count(1e6), "1,000,000")
  # the bar of rows formats through these
  fmt <- ducksassy:::progress_format("rows", known = TRUE)
  expect_match(fmt, "rate_text(cli::pb_rate_raw)", fixed = TRUE)
  expect_no_match(fmt, "{cli::pb_rate}", fixed = TRUE)
})

test_that("#24: a time limit stops sassy_count and sassy_filter_fastx (max_n_frac: traceback)", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  # without max_n_frac these finish in about a second at k = 600 on 1 Mb
  # (counts need no traceback, contains stops at its first hit); with it,
  # every candidate end is traced back: tens of seconds
  fa <- tempfile(fileext = ".fa")
  out <- tempfile(fileext = ".fa")
  on.exit(unlink(c(fa, out)), add = TRUE)
  set.seed(1)
  writeLines(c(">chr", random_dna(1e6)), fa)
  p <- random_dna(1000)
  expect_time_limit_error(under_time_limit(
    function(fa, p) sassy_count(sassy_read_fastx(fa)$sequence, p, k = 600, max_n_frac = 0.5),
    list(fa = fa, p = p)
  ))
  expect_time_limit_error(under_time_limit(
    function(fa, p) sassy_count_fastx(fa, p, k = 600, max_n_frac = 0.5),
    list(fa = fa, p = p)
  ))
  expect_time_limit_error(under_time_limit(
    function(fa, p, out) sassy_filter_fastx(fa, p, k = 600, max_n_frac = 0.5, output = out),
    list(fa = fa, p = p, out = out)
  ))
})

test_that("#24: the progress of a file counts the bytes searched, not the bytes read ahead", {
  # one 6 MB record: read (and so counted as read) long before it is
  # searched; its 256 kb windows are what the bar counts
  fa <- tempfile(fileext = ".fa")
  on.exit(unlink(fa))
  set.seed(1)
  writeLines(c(">chr", random_dna(6e6)), fa)
  p <- random_dna(1000)
  seen <- new.env()
  seen$calls <- list()
  cb <- function(done, total) {
    seen$calls[[length(seen$calls) + 1L]] <- c(done, total)
    NULL
  }
  res <- ducksassy:::ds_fastx_search(fa,
    ducksassy:::new_plan(p, 400L, "dna", cigar = FALSE, mode = "count",
      max_hits = .Machine$integer.max, threads = 1L),
    ducksassy:::new_read_options(c(bytes = NaN, records = NaN)), cb)
  expect_false(inherits(res, "ducksassy_rust_error"))
  expect_identical(res$records_per_file, 1)
  calls <- do.call(rbind, seen$calls)
  skip_if(is.null(calls), "the search ended before the first poll")
  expect_true(all(calls[, 2L] == file.size(fa)))
  expect_true(all(diff(calls[, 1L]) >= 0))
  # the first poll comes while the record is searched (1 thread: seconds),
  # long after it was read whole
  expect_lt(calls[1L, 1L], file.size(fa))
})
