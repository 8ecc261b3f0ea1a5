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
  expect_time_limit_error(under_time_limit(function(fa, p) {
    con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
    DBI::dbWriteTable(con, "t", data.frame(id = 1L, sequence = sassy_read_fastx(fa)$sequence))
    sassy_search_table(con, "t", p, k = 600, id = "id")
  }, list(fa = fa, p = p), limit = 1))
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

test_that("#24: searches inside DuckDB on few long rows cannot be stopped (Ctrl-C)", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  skip_if_not_installed("ps")
  skip_if_not_installed("duckdb")
  rs <- new_search_session()
  on.exit(rs$close(), add = TRUE)
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
