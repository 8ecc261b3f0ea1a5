# The SQL functions (DuckDB extension, src/duckdb/extension.c over
# src/rust/sql): each must give what the R function of the same name gives
# on the same strings, NULL for NULL, errors with our message that leave the
# connection usable. The R functions are the reference here; they are tested
# against brute-force oracles elsewhere (test-oracle.R).

skip_if_not_installed("DBI")
skip_if_not_installed("duckdb")

random_seqs <- function(n, len, letters, na = 0) {
  out <- vapply(seq_len(n), function(i) {
    paste(sample(letters, sample(len, 1L), replace = TRUE), collapse = "")
  }, "")
  out[sample(n, round(n * na))] <- NA
  out
}

# Texts with copies (some edited, some reverse complemented) of `pattern`.
planted <- function(n, pattern, letters = c("A", "C", "G", "T"), na = 0.05) {
  texts <- random_seqs(n, 30:200, letters)
  rc <- chartr("ACGT", "TGCA", paste(rev(strsplit(pattern, "")[[1]]), collapse = ""))
  for (i in sample(n, n %/% 2)) {
    p <- if (runif(1) < 0.5) pattern else rc
    if (runif(1) < 0.5) substr(p, 3, 3) <- sample(letters, 1)
    at <- sample(nchar(texts[i]) - 1L, 1)
    texts[i] <- paste0(substr(texts[i], 1, at), p, substring(texts[i], at + 1))
  }
  texts[sample(n, round(n * na))] <- NA
  texts
}

sql_col <- function(con, sql, table) {
  DBI::dbWriteTable(con, "t", table, overwrite = TRUE)
  DBI::dbGetQuery(con, sql)[[1]]
}

# The hit columns of sassy_search() the SQL hits have, as a plain data frame.
r_hits <- function(h) {
  h <- as.data.frame(h)
  names(h)[names(h) == "guide"] <- "pattern"
  h <- h[c("record", "pattern", "start", "end", "pattern_start",
                          "pattern_end", "cost", "strand", "cigar")]
  attributes(h) <- attributes(h)[c("names", "row.names", "class")]
  rownames(h) <- NULL
  h
}

sql_hits <- function(con, fn_call, first = "pattern") {
  sql <- paste0(
    "SELECT id AS record, h.", first, " AS pattern, h.start, h.\"end\", h.pattern_start, ",
    "h.pattern_end, h.cost, h.strand, h.cigar FROM ",
    "(SELECT id, unnest(", fn_call, ") AS h FROM t) ",
    "ORDER BY record, pattern, h.start, h.\"end\", h.strand"
  )
  out <- DBI::dbGetQuery(con, sql)
  out$record <- as.integer(out$record)
  out
}

sort_hits <- function(h) {
  h <- h[order(h$record, h$pattern, h$start, h$end, h$strand), ]
  rownames(h) <- NULL
  h
}

test_that("sassy_count and sassy_contains in SQL equal the R functions (DNA, IUPAC, ASCII, rc, NULL rows)", {
  con <- sql_con()
  set.seed(15)
  pat <- "ACGTTGCAAGGTCC"
  cases <- list(
    list(texts = planted(500, pat), args = "2", r = list(k = 2)),
    list(texts = planted(500, pat), args = "2, 'dna', false", r = list(k = 2, alphabet = "dna", rc = FALSE)),
    list(texts = planted(300, pat, c("A", "C", "G", "T", "N", "R")), args = "1, 'iupac', true, true",
         r = list(k = 1, alphabet = "iupac", rc = TRUE, all_endpoints = TRUE)),
    list(texts = planted(300, pat), args = "3, 'iupac', true, false, 0.5",
         r = list(k = 3, overhang = 0.5)),
    list(texts = planted(300, pat, c("A", "C", "G", "T", "N")), args = "2, 'iupac', true, false, NULL::DOUBLE, 0.1",
         r = list(k = 2, max_n_frac = 0.1))
  )
  for (case in cases) {
    tab <- data.frame(id = seq_along(case$texts), seq = case$texts)
    n <- sql_col(con, sprintf("SELECT sassy_count(seq, '%s', %s) FROM t ORDER BY id", pat, case$args), tab)
    want <- do.call(sassy_count, c(list(case$texts, pat), case$r))
    expect_identical(as.integer(n), as.vector(want), info = case$args)
    expect_true(any(want > 0, na.rm = TRUE))
    expect_true(anyNA(n))
    has <- sql_col(con, sprintf("SELECT sassy_contains(seq, '%s', %s) FROM t ORDER BY id", pat, case$args), tab)
    expect_identical(has, as.vector(do.call(sassy_contains, c(list(case$texts, pat), case$r))), info = case$args)
  }
  # ASCII text: rc is off by default, as in R
  words <- c(random_seqs(200, 20:80, c(letters, " ", ".")), NA, "the quick brown fox")
  tab <- data.frame(id = seq_along(words), seq = words)
  n <- sql_col(con, "SELECT sassy_count(seq, 'brown fix', 1, 'ascii') FROM t ORDER BY id", tab)
  expect_identical(as.integer(n), as.vector(sassy_count(words, "brown fix", 1, alphabet = "ascii")))
  expect_identical(n[length(n)], 1)
})

test_that("a pattern per row, NULL patterns and NULL k give per-row results", {
  con <- sql_con()
  tab <- data.frame(
    id = 1:5,
    seq = c("AAACGTACGTAA", "TTTTGGGGTTTT", "ACGTACGT", NA, "ACGTACGT"),
    pat = c("ACGTACGT", "TTTTGGGG", NA, "ACGT", "CCCCCCCC"),
    k = c(1L, 0L, 0L, 0L, NA)
  )
  n <- sql_col(con, "SELECT sassy_count(seq, pat, k) FROM t ORDER BY id", tab)
  want <- c(
    sassy_count(tab$seq[1], tab$pat[1], 1), sassy_count(tab$seq[2], tab$pat[2], 0),
    NA, NA, NA
  )
  expect_identical(as.integer(n), as.integer(want))
  expect_true(all(n[1:2] > 0))
})

test_that("sassy_hits unnested equals sassy_search()", {
  con <- sql_con()
  set.seed(16)
  pat <- "GATTACAGATTACA"
  texts <- planted(400, pat, c("A", "C", "G", "T", "N"))
  tab <- data.frame(id = seq_along(texts), seq = texts)
  DBI::dbWriteTable(con, "t", tab, overwrite = TRUE)
  for (args in list(
    list(sql = "2", r = list(k = 2)),
    list(sql = "3, 'iupac', false, true", r = list(k = 3, rc = FALSE, all_endpoints = TRUE)),
    list(sql = "2, 'iupac', true, false, 0.4", r = list(k = 2, overhang = 0.4))
  )) {
    got <- sql_hits(con, sprintf("sassy_hits(seq, '%s', %s)", pat, args$sql))
    want <- sort_hits(r_hits(do.call(sassy_search, c(list(texts, pat), args$r))))
    expect_gt(nrow(want), 50)
    expect_equal(got, want, ignore_attr = TRUE, info = args$sql)
  }
  # a NULL text is a NULL list; no hits is an empty list
  l <- DBI::dbGetQuery(con, "SELECT sassy_hits(NULL::VARCHAR, 'ACGT', 0) AS a, len(sassy_hits('GGGG', 'ACGT', 0)) AS b")
  expect_null(l$a[[1]])
  expect_identical(l$b, 0)
})

test_that("pattern panels (VARCHAR[]) equal the R functions with several patterns", {
  con <- sql_con()
  set.seed(17)
  pats <- c("ACGTTGCAAG", "TTGACCATGC", "GGGATCCAAT", "CATCATCATG", "AAGGTTCCAA")
  texts <- planted(300, pats[2])
  tab <- data.frame(id = seq_along(texts), seq = texts)
  DBI::dbWriteTable(con, "t", tab, overwrite = TRUE)
  panel <- paste0("[", paste0("'", pats, "'", collapse = ", "), "]")
  counts <- DBI::dbGetQuery(con, sprintf("SELECT sassy_count(seq, %s, 2) AS n FROM t ORDER BY id", panel))$n
  want <- sassy_count(texts, pats, 2)
  got <- t(vapply(counts, function(x) if (is.null(x)) rep(NA_real_, 5) else as.numeric(x), numeric(5)))
  expect_identical(unname(got), unname(matrix(as.numeric(want), ncol = 5)))
  has <- DBI::dbGetQuery(con, sprintf("SELECT sassy_contains(seq, %s, 2) AS n FROM t ORDER BY id", panel))$n
  got <- t(vapply(has, function(x) if (is.null(x)) rep(NA, 5) else x, logical(5)))
  expect_identical(unname(got), unname(matrix(as.vector(sassy_contains(texts, pats, 2)), ncol = 5)))
  expect_true(anyNA(got) && any(got, na.rm = TRUE))
  got <- sql_hits(con, sprintf("sassy_hits(seq, %s, 2)", panel))
  expect_equal(got, sort_hits(r_hits(sassy_search(texts, pats, 2))), ignore_attr = TRUE)
})

test_that("sassy_crispr_hits equals sassy_crispr()", {
  con <- sql_con()
  set.seed(18)
  guide <- "ACGTTGCAAGGTCCATGCAATGG"
  texts <- planted(200, guide, na = 0)
  tab <- data.frame(id = seq_along(texts), seq = texts)
  DBI::dbWriteTable(con, "t", tab, overwrite = TRUE)
  got <- sql_hits(con, sprintf("sassy_crispr_hits(seq, '%s', 3)", guide), "guide")
  want <- sort_hits(r_hits(sassy_crispr(texts, guide, 3)))
  expect_gt(nrow(want), 20)
  expect_equal(got, want, ignore_attr = TRUE)
  got <- sql_hits(con, sprintf("sassy_crispr_hits(seq, '%s', 4, 3, true, 0.5, false)", guide), "guide")
  want <- sort_hits(r_hits(sassy_crispr(texts, guide, 4, pam_length = 3, allow_pam_edits = TRUE, max_n_frac = 0.5, rc = FALSE)))
  expect_equal(got, want, ignore_attr = TRUE)
})

test_that("the Drosophila upstream set gives the R functions' counts and hits", {
  skip_if_not_installed("Biostrings")
  con <- sql_con()
  path <- system.file("extdata", "dm3_upstream2000.fa.gz", package = "Biostrings")
  seqs <- as.character(Biostrings::readDNAStringSet(path)[1:400])
  tab <- data.frame(id = seq_along(seqs), seq = unname(seqs))
  n <- sql_col(con, "SELECT sassy_count(seq, 'TATAAAAGGC', 2) FROM t ORDER BY id", tab)
  expect_identical(as.integer(n), unname(as.vector(sassy_count(seqs, "TATAAAAGGC", 2))))
  got <- sql_hits(con, "sassy_hits(seq, 'GAGAGAGAGA', 1)")
  expect_equal(got, sort_hits(r_hits(sassy_search(unname(seqs), "GAGAGAGAGA", 1))), ignore_attr = TRUE)
})

test_that("DuckDB's threads give the same results", {
  con <- sql_con()
  set.seed(19)
  texts <- planted(20000, "ACGTTGCAAGGTCC", na = 0.01)
  tab <- data.frame(id = seq_along(texts), seq = texts)
  DBI::dbWriteTable(con, "t", tab, overwrite = TRUE)
  q <- "SELECT sum(sassy_count(seq, 'ACGTTGCAAGGTCC', 2)) AS n FROM t"
  DBI::dbExecute(con, "SET threads = 1")
  one <- DBI::dbGetQuery(con, q)$n
  DBI::dbExecute(con, "SET threads = 2")
  two <- DBI::dbGetQuery(con, q)$n
  expect_identical(one, two)
  expect_identical(one, as.numeric(sum(sassy_count(texts, "ACGTTGCAAGGTCC", 2), na.rm = TRUE)))
})

# Reads of random DNA with one of `barcodes` planted (some edited, half of
# them reverse complemented) near the start or the end, some with two
# barcodes (ties and near-ties), some with none, NULL rows.
assign_reads <- function(n, barcodes, na = 0.03) {
  rc <- function(x) chartr("ACGT", "TGCA", paste(rev(strsplit(x, "")[[1]]), collapse = ""))
  edit <- function(p) {
    for (e in seq_len(sample(0:3, 1))) {
      at <- sample(nchar(p), 1)
      p <- switch(sample(3, 1),
        `substr<-`(p, at, at, sample(c("A", "C", "G", "T"), 1)),
        paste0(substr(p, 1, at - 1), substring(p, at + 1)),
        paste0(substr(p, 1, at), sample(c("A", "C", "G", "T"), 1), substring(p, at + 1))
      )
    }
    p
  }
  texts <- random_seqs(n, 60:300, c("A", "C", "G", "T"))
  for (i in seq_len(n)) {
    for (j in seq_len(sample(c(0, 1, 1, 1, 2), 1))) {
      p <- edit(sample(barcodes, 1))
      if (runif(1) < 0.5) p <- rc(p)
      t <- texts[i]
      at <- if (runif(1) < 0.5) sample(0:20, 1) else nchar(t) - sample(0:20, 1)
      texts[i] <- paste0(substr(t, 1, at), p, substring(t, at + 1))
    }
  }
  texts[sample(n, round(n * na))] <- NA
  texts
}

assign_fields <- c("pattern", "cost", "start", "end", "strand", "other_cost", "status")

# sassy_assign() of R, the fields of the SQL struct
r_assign <- function(...) {
  a <- as.data.frame(sassy_assign(...))[assign_fields]
  # SQL's status is text, R's a factor of the same labels
  if ("status" %in% names(a)) a$status <- as.character(a$status)
  rownames(a) <- NULL
  a
}

sql_assign <- function(con, fn_call) {
  sql <- sprintf("SELECT id, a.* FROM (SELECT id, %s AS a FROM t) ORDER BY id", fn_call)
  out <- DBI::dbGetQuery(con, sql)
  out <- out[assign_fields]
  rownames(out) <- NULL
  out
}

sql_list <- function(x) paste0("[", paste0("'", x, "'", collapse = ", "), "]")

test_that("sassy_assign in SQL equals sassy_assign() (both strands, margin, ends, options, NULL rows, chunks)", {
  con <- sql_con()
  set.seed(23)
  barcodes <- vapply(1:12, function(i) paste(sample(c("A", "C", "G", "T"), 16, TRUE), collapse = ""), "")
  texts <- assign_reads(5000, barcodes)
  DBI::dbWriteTable(con, "t", data.frame(id = seq_along(texts), seq = texts), overwrite = TRUE)
  panel <- sql_list(barcodes)
  for (case in list(
    list(sql = "2", r = list(k = 2)),
    list(sql = "2, 'iupac', true, false, NULL, NULL, NULL, 0", r = list(k = 2, margin = 0)),
    list(sql = "2, 'iupac', true, false, NULL, NULL, NULL, 1", r = list(k = 2, margin = 1)),
    list(sql = "3, 'dna', false", r = list(k = 3, alphabet = "dna", rc = FALSE)),
    list(sql = "2, 'iupac', true, true", r = list(k = 2, all_endpoints = TRUE)),
    list(sql = "3, 'iupac', true, false, 0.5, 0.2, NULL, 1", r = list(k = 3, overhang = 0.5, max_n_frac = 0.2, margin = 1)),
    list(sql = "2, 'iupac', true, false, NULL, NULL, [40]", r = list(k = 2, ends = 40)),
    list(sql = "2, 'iupac', true, false, NULL, NULL, [40, 0], 1", r = list(k = 2, ends = c(40, 0), margin = 1)),
    list(sql = "2, 'iupac', true, false, NULL, NULL, [0, 35]", r = list(k = 2, ends = c(0, 35)))
  )) {
    got <- sql_assign(con, sprintf("sassy_assign(seq, %s, %s)", panel, case$sql))
    want <- do.call(r_assign, c(list(texts, barcodes), case$r))
    expect_identical(got, want, info = case$sql)
  }
  # the inputs cover every status and both strands
  want <- r_assign(texts, barcodes, k = 2)
  expect_true(all(c("assigned", "ambiguous", "unassigned") %in% want$status))
  expect_true(all(c("+", "-") %in% want$strand))
  expect_true(anyNA(want$status))
  expect_false(identical(want$status, r_assign(texts, barcodes, k = 2, margin = 1)$status))
  # on DuckDB's threads, in any order
  DBI::dbExecute(con, "SET threads = 2")
  DBI::dbExecute(con, "SET preserve_insertion_order = false")
  DBI::dbExecute(con, sprintf("CREATE TABLE asg AS SELECT id, sassy_assign(seq, %s, 2, 'iupac', true, false, NULL, NULL, NULL, 1) AS a FROM t", panel))
  got <- DBI::dbGetQuery(con, "SELECT a.* FROM asg ORDER BY id")
  rownames(got) <- NULL
  expect_identical(got, r_assign(texts, barcodes, k = 2, margin = 1))
  # 250,000 rows (DuckDB scans row groups of 122,880 rows in parallel):
  # each as its row of `t`
  DBI::dbExecute(con, "CREATE TABLE big AS SELECT i, t.seq FROM range(250000) r(i) JOIN t ON t.id = i % 5000 + 1")
  DBI::dbExecute(con, sprintf("CREATE TABLE bigasg AS SELECT i, sassy_assign(seq, %s, 2, 'iupac', true, false, NULL, NULL, NULL, 1) AS a FROM big", panel))
  same <- DBI::dbGetQuery(con, paste(
    "SELECT count(*) AS n, count(*) FILTER (WHERE b.a IS DISTINCT FROM s.a) AS differ",
    "FROM bigasg b JOIN asg s ON s.id = b.i % 5000 + 1"
  ))
  expect_equal(same$n, 250000)
  expect_equal(same$differ, 0)
  counts <- DBI::dbGetQuery(con, "SELECT a.status AS status, count(*)::INTEGER AS n FROM asg GROUP BY ALL")
  want <- table(r_assign(texts, barcodes, k = 2, margin = 1)$status, useNA = "ifany")
  expect_identical(counts$n[order(counts$status)], as.integer(want[order(names(want))]))
})

test_that("sassy_assign in SQL: a NULL text is a NULL struct, unassigned fields are NULL, one pattern and per-row patterns work", {
  con <- sql_con()
  tab <- data.frame(
    id = 1:5,
    seq = c("CCCCACGTACGTACGTCCCC", NA, "AAAAAAAAAAAAAAAAAAAA", "GGGGTGGCAATTGCAAGGGG", "ACGTACGTACGTTTGCAATTGCCA"),
    p1 = c("ACGTACGTACGT", "ACGTACGTACGT", "ACGTACGTACGT", "ACGTACGTACGT", NA)
  )
  DBI::dbWriteTable(con, "t", tab)
  bcs <- c("ACGTACGTACGT", "TTGCAATTGCCA")
  got <- DBI::dbGetQuery(con, sprintf("SELECT id, sassy_assign(seq, %s, 1) AS a, sassy_assign(seq, %s, 1) IS NULL AS n FROM t ORDER BY id", sql_list(bcs), sql_list(bcs)))
  expect_identical(got$n, c(FALSE, TRUE, FALSE, FALSE, FALSE))
  a <- DBI::dbGetQuery(con, sprintf("SELECT a.* FROM (SELECT id, sassy_assign(seq, %s, 1) AS a FROM t) ORDER BY id", sql_list(bcs)))
  expect_identical(a, r_assign(tab$seq, bcs, k = 1))
  expect_identical(a$status, c("assigned", NA, "unassigned", "assigned", "ambiguous"))
  expect_identical(a$pattern, c(1L, NA, NA, 2L, 1L))
  expect_identical(a$strand, c("+", NA, NA, "-", "+"))
  # one pattern (VARCHAR), per row; a NULL pattern gives a NULL struct
  a <- DBI::dbGetQuery(con, "SELECT a.* FROM (SELECT id, sassy_assign(seq, p1, 1) AS a FROM t) ORDER BY id")
  want <- r_assign(tab$seq[1:4], "ACGTACGTACGT", k = 1)
  expect_identical(`rownames<-`(a[1:4, ], NULL), want)
  expect_true(all(is.na(a[5, ])))
})

test_that("bad input is a DuckDB error with our message, and the connection stays usable", {
  con <- sql_con()
  DBI::dbWriteTable(con, "t", data.frame(id = 1:2, seq = c("ACGTACGT", "ACGZACGT")))
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_count(seq, 'ACGT', 0, 'dna') FROM t"),
    "sassy_count\\(\\): `text` \"ACGZACGT\" has letter \"Z\" at position 4 that is not in the dna alphabet"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_hits('ACGTACGT', 'ACGT', 4)"),
    "sassy_hits\\(\\): `k` must be less than the length of `pattern` \\(4\\)"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_count('ACGTACGT', 'ACGT', 0, 'rna')"),
    "`alphabet` must be one of"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_count('ACGTACGT', 'AC{GT', 0, 'ascii', true)"),
    "`rc`"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_crispr_hits('ACGTACGTAGG', 'ACGTACGTNGG', 9)"),
    "sassy_crispr_hits\\(\\): `k` must be less than .* of `guide`"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_count('ACGTACGT', ['ACGT', NULL], 0)"),
    "`patterns`\\[2\\]"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_assign(seq, ['ACGTA', 'GGCC'], 4) FROM t"),
    "sassy_assign\\(\\): `k` must be less than the length of `patterns`\\[2\\] \\(4\\)"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_assign(seq, ['ACGT', 'GGCC'], 0, 'dna') FROM t"),
    "sassy_assign\\(\\): `text` \"ACGZACGT\" has letter \"Z\" at position 4 that is not in the dna alphabet"
  )
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_assign('ACGTACGT', ['ACGT', NULL], 0)"),
    "sassy_assign\\(\\): `patterns`\\[2\\] must be a string"
  )
  for (ends in c("[]", "[1, 2, 3]", "[-1]", "[0, 0]", "[NULL]")) {
    expect_error(
      DBI::dbGetQuery(con, sprintf("SELECT sassy_assign('ACGTACGT', ['ACGT'], 0, 'iupac', true, false, NULL, NULL, %s)", ends)),
      "sassy_assign\\(\\): `ends` must be ", info = ends
    )
  }
  expect_error(
    DBI::dbGetQuery(con, "SELECT sassy_assign('ACGTACGT', ['ACGT'], 0, 'iupac', true, false, NULL, NULL, NULL, -1)"),
    "sassy_assign\\(\\): `margin` must be a whole number >= 0, not -1"
  )
  # the connection (and the functions) still work: ACGT at 1 and 5
  expect_identical(DBI::dbGetQuery(con, "SELECT sassy_count('ACGTACGT', 'ACGT', 0, 'dna', false) AS n")$n, 2)
})

test_that("registering twice is harmless; a database without the setting gets a classed error", {
  drv <- suppressMessages(sassy_duckdb())
  con <- DBI::dbConnect(drv)
  withr::defer(duckdb::duckdb_shutdown(drv))
  expect_identical(sassy_register(con), con)
  expect_identical(sassy_register(con), con)
  # ACGTT at 1 and 7, forward strand only
  expect_identical(DBI::dbGetQuery(con, "SELECT sassy_count('ACGTTTACGTTT', 'ACGTT', 0, 'dna', false) AS n")$n, 2)
  # a new connection of the same driver has the functions
  con2 <- DBI::dbConnect(drv)
  expect_identical(DBI::dbGetQuery(con2, "SELECT sassy_contains('AACCGGTT', 'CCGA', 1) AS n")$n, TRUE)
  DBI::dbDisconnect(con2)
  DBI::dbDisconnect(con)
  # and after every connection of the user closed
  con3 <- DBI::dbConnect(drv)
  expect_identical(DBI::dbGetQuery(con3, "SELECT sassy_contains('AACCGGTT', 'CCGA', 0) AS n")$n, FALSE)
  DBI::dbDisconnect(con3)

  plain <- DBI::dbConnect(suppressMessages(duckdb::duckdb()))
  withr::defer(DBI::dbDisconnect(plain, shutdown = TRUE))
  err <- expect_error(sassy_register(plain), class = "ducksassy_duckdb_error")
  expect_match(conditionMessage(err), "allow_unsigned_extensions", fixed = TRUE)
  expect_match(conditionMessage(err), "sassy_duckdb()", fixed = TRUE)
  expect_error(sassy_register("not a connection"), class = "ducksassy_duckdb_error")
})

test_that("the SQL functions run the backend R uses", {
  con <- sql_con()
  info <- sassy_backend_info()
  expect_identical(DBI::dbGetQuery(con, "SELECT sassy_backend() AS b")$b, info$simd[info$in_use])
})

test_that("dbplyr passes the SQL functions through: filter and mutate equal the R functions", {
  # duckdb warns when it meets an older dbplyr (Debian's 2.3.0) than its own
  # translations want; the functions here pass through untranslated anyway
  suppressWarnings(skip_if_not_installed("dbplyr"))
  skip_if_not_installed("dplyr")
  con <- sql_con()
  set.seed(20)
  texts <- planted(300, "ACGTTGCAAGGTCC", na = 0)
  DBI::dbWriteTable(con, "t", data.frame(id = seq_along(texts), seq = texts), overwrite = TRUE)
  got <- dplyr::tbl(con, "t") |>
    dplyr::filter(sassy_contains(seq, "ACGTTGCAAGGTCC", 2L)) |>
    dplyr::mutate(n = sassy_count(seq, "ACGTTGCAAGGTCC", 2L)) |>
    dplyr::arrange(id) |>
    dplyr::collect()
  n <- as.vector(sassy_count(texts, "ACGTTGCAAGGTCC", 2L))
  expect_identical(as.integer(got$id), which(n > 0))
  expect_identical(as.integer(got$n), n[n > 0])
})

test_that("an extension file DuckDB or the shim cannot use fails LOAD with a message that says why", {
  src <- ducksassy:::duckdb_extension_file(NULL)
  bytes <- readBin(src, "raw", file.size(src))
  # the footer's platform field: the 7th of eight 32-byte fields before the
  # 256-byte signature
  at <- length(bytes) - 256L - 64L + seq_len(32L)
  plain <- DBI::dbConnect(suppressMessages(duckdb::duckdb()))
  expect_identical(rawToChar(bytes[at][bytes[at] != 0]), DBI::dbGetQuery(plain, "PRAGMA platform")$platform)
  DBI::dbDisconnect(plain)
  dir <- withr::local_tempdir()
  swap_file <- function(path) {
    ns <- asNamespace("ducksassy")
    old <- ns$duckdb_extension_file
    unlockBinding("duckdb_extension_file", ns)
    assign("duckdb_extension_file", function(call) path, envir = ns)
    withr::defer({
      assign("duckdb_extension_file", old, envir = ns)
      lockBinding("duckdb_extension_file", ns)
    }, envir = parent.frame())
  }
  # another platform in the footer: DuckDB refuses it; we say how to fix it
  bad <- bytes
  bad[at] <- c(charToRaw("linux_amd64_musl"), raw(16L))
  writeBin(bad, file.path(dir, "ducksassy.duckdb_extension"))
  local({
    swap_file(file.path(dir, "ducksassy.duckdb_extension"))
    con <- DBI::dbConnect(suppressMessages(duckdb::duckdb(config = list(allow_unsigned_extensions = "true"))))
    withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
    err <- expect_error(sassy_register(con), class = "ducksassy_duckdb_error")
    expect_match(conditionMessage(err), "DUCKSASSY_DUCKDB_PLATFORM=", fixed = TRUE)
  })
  # a good file away from the package's libraries: the shim cannot find the
  # search code R loaded, and says so
  dir2 <- withr::local_tempdir()
  writeBin(bytes, file.path(dir2, "ducksassy.duckdb_extension"))
  local({
    swap_file(file.path(dir2, "ducksassy.duckdb_extension"))
    con <- DBI::dbConnect(suppressMessages(duckdb::duckdb(config = list(allow_unsigned_extensions = "true"))))
    withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
    err <- expect_error(sassy_register(con), class = "ducksassy_duckdb_error")
    expect_match(conditionMessage(err), "not loaded in this process", fixed = TRUE)
  })
})
