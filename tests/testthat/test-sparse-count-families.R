# sassy_count_fastx(sparse = TRUE) and sassy_count_table(sparse = TRUE):
# a Matrix::dgCMatrix of the dense data frame's counts, one row per record,
# the identifying columns as its attribute "records" (issue 23). The dense
# count path (a per-record count in the core) is the oracle, and for files
# also a count tabulated here from sassy_search() of the records' sequences.

sf_random_dna <- function(n) {
  paste(sample(c("A", "C", "G", "T"), n, replace = TRUE), collapse = "")
}

sf_revcomp <- function(x) {
  paste(rev(strsplit(chartr("ACGT", "TGCA", x), "")[[1]]), collapse = "")
}

# Reads of random letters; most get one or two copies of a pattern
# planted, forward or reverse complemented, some with one substitution.
sf_reads <- function(n, patterns) {
  vapply(seq_len(n), function(i) {
    len <- sample(c(0L, 5L, 40L, 90L, 200L), 1L)
    x <- sf_random_dna(len)
    if (len >= 40L) {
      for (r in seq_len(sample(0:2, 1L))) {
        p <- patterns[[sample.int(length(patterns), 1L)]]
        if (runif(1) < 0.5) p <- sf_revcomp(p)
        if (runif(1) < 0.4) substr(p, 3L, 3L) <- "A"
        at <- sample.int(nchar(x) - 12L, 1L)
        x <- paste0(substr(x, 1L, at), p, substr(x, at + 1L, nchar(x)))
      }
    }
    x
  }, "")
}

sf_write_fastx <- function(path, names, seqs, fastq = TRUE) {
  con <- if (grepl("\\.gz$", path)) gzfile(path, "w") else file(path, "w")
  on.exit(close(con))
  if (length(seqs) == 0L) {
    return(invisible(path))
  }
  lines <- if (fastq) {
    as.vector(rbind(paste0("@", names, " desc"), seqs, "+", strrep("I", nchar(seqs))))
  } else {
    as.vector(rbind(paste0(">", names), seqs))
  }
  writeLines(lines, con)
  invisible(path)
}

# The dense counts a sparse result stands for: an integer matrix.
sf_dense_matrix <- function(s) {
  m <- as.matrix(s)
  storage.mode(m) <- "integer"
  m
}

# A sparse result against the dense data frame of the same call: the same
# counts (and NA), the count columns' names, the identifying columns as
# "records", and the row names of the family's rule.
expect_sparse_equals_dense <- function(s, dense, id_cols, rownames, label = "") {
  expect_s4_class(s, "dgCMatrix")
  count_cols <- setdiff(names(dense), id_cols)
  expect_identical(dim(s), c(nrow(dense), length(count_cols)), label = label)
  expect_identical(colnames(s), count_cols, label = label)
  expect_identical(rownames(s), rownames, label = label)
  want <- as.matrix(dense[count_cols])
  dimnames(want) <- dimnames(s)
  expect_identical(sf_dense_matrix(s), want, label = label)
  expect_identical(attr(s, "records", exact = TRUE), dense[id_cols], label = label)
}

# Counts from sassy_search() rows: records x patterns.
sf_search_counts <- function(seqs, patterns, ...) {
  h <- sassy_search(seqs, patterns, cigar = FALSE, ...)
  m <- matrix(0L, length(seqs), length(patterns))
  for (r in seq_len(nrow(h))) {
    m[h$record[r], h$pattern[r]] <- m[h$record[r], h$pattern[r]] + 1L
  }
  m[is.na(seqs), ] <- NA_integer_
  m
}

test_that("#23: sparse file counts equal the dense counts (FASTQ, FASTA, gz, several files)", {
  set.seed(2301)
  dir <- withr::local_tempdir()
  pats <- c(a = sf_random_dna(10), b = sf_random_dna(11), sf_random_dna(12))
  n <- c(40L, 25L, 0L, 30L)
  seqs <- lapply(n, sf_reads, patterns = pats)
  seqs[[4]][1:10] <- sf_random_dna(30) # records without hits
  names <- lapply(seq_along(n), function(f) {
    if (n[[f]] == 0L) character() else paste0("f", f, "_r", seq_len(n[[f]]))
  })
  names[[2]][1:3] <- "dup" # repeated names stay as they are
  paths <- c(
    sf_write_fastx(file.path(dir, "a.fq.gz"), names[[1]], seqs[[1]]),
    sf_write_fastx(file.path(dir, "b.fa"), names[[2]], seqs[[2]], fastq = FALSE),
    sf_write_fastx(file.path(dir, "empty.fq"), names[[3]], seqs[[3]]),
    sf_write_fastx(file.path(dir, "d.fa.gz"), names[[4]], seqs[[4]], fastq = FALSE)
  )
  all_seqs <- unlist(seqs)
  combos <- list(
    list(k = 0L),
    list(k = 1L),
    list(k = 2L),
    list(k = 1L, rc = FALSE),
    list(k = 2L, all_endpoints = TRUE),
    list(k = 1L, indels = FALSE)
  )
  # small batches: records of one file are searched in several
  withr::local_options(ducksassy.fastx_batch_records = 7)
  for (opt in combos) {
    label <- paste(deparse(opt), collapse = "")
    for (p in list(paths, paths[1], c(x = paths[[2]]))) {
      args <- c(list(p, pats), opt, threads = 2L)
      dense <- do.call(sassy_count_fastx, args)
      s <- do.call(sassy_count_fastx, c(args, sparse = TRUE))
      id_cols <- intersect(c("file", "record", "name"), names(dense))
      expect_sparse_equals_dense(s, dense, id_cols, dense$name, label = label)
    }
    # and the counts of sassy_search() on the same sequences
    s <- do.call(sassy_count_fastx, c(list(paths, pats), opt, sparse = TRUE))
    want <- do.call(sf_search_counts, c(list(all_seqs, pats), opt))
    expect_identical(unname(sf_dense_matrix(s)), want, label = label)
    expect_gt(sum(s), 0)
  }
  # the identifying columns: every record of every file, once, in order
  s <- sassy_count_fastx(paths, pats, k = 1, sparse = TRUE)
  rec <- attr(s, "records")
  expect_identical(rec$file, rep(paths, n))
  expect_identical(rec$record, unlist(lapply(n, seq_len)))
  expect_identical(rownames(s), unlist(names))
  expect_identical(colnames(s), c("a", "b", "pattern_3"))
  # cells without hits are not stored
  expect_identical(length(s@x), sum(sf_dense_matrix(s) > 0L))
})

test_that("#23: sparse file counts of no records, no hits, a clashing pattern name", {
  dir <- withr::local_tempdir()
  empty <- sf_write_fastx(file.path(dir, "e.fq"), character(), character())
  s <- sassy_count_fastx(empty, c("ACGTACGT", "TTTTGGGG"), sparse = TRUE)
  expect_s4_class(s, "dgCMatrix")
  expect_identical(dim(s), c(0L, 2L))
  expect_identical(names(attr(s, "records")), c("record", "name"))
  f <- sf_write_fastx(file.path(dir, "n.fa"), c("r1", "r2"), c("AAAAAAAAAA", "CCCCCCCCCC"), fastq = FALSE)
  pats <- c(name = "GTGTGTGT", record = "ACACACAC")
  s <- sassy_count_fastx(f, pats, sparse = TRUE)
  dense <- sassy_count_fastx(f, pats)
  expect_identical(length(s@x), 0L)
  expect_sparse_equals_dense(s, dense, c("record", "name"), c("r1", "r2"))
  expect_identical(colnames(s), c("name_1", "record_1"))
})

test_that("#23: sparse table counts equal the dense counts (DuckDB, SQLite, NULL sequences)", {
  skip_without_drivers()
  set.seed(2302)
  pats <- c(p1 = sf_random_dna(9), p2 = sf_random_dna(10), sequence = sf_random_dna(11))
  n <- 57L
  seqs <- sf_reads(n, pats)
  seqs[c(2L, 30L, n)] <- NA
  df <- data.frame(
    id = seq_len(n), name = sprintf("read%02d", seq_len(n)), sequence = seqs,
    stringsAsFactors = FALSE
  )
  full <- df[!is.na(df$sequence), ]
  for (driver in table_drivers()) {
    con <- local_db(driver)
    DBI::dbWriteTable(con, "reads", df)
    DBI::dbWriteTable(con, "full", full)
    for (opt in list(list(k = 0L), list(k = 1L), list(k = 2L, rc = FALSE), list(k = 2L))) {
      for (tbl in c("reads", "full")) {
        for (id in list(NULL, "name", character())) {
          for (chunk in c(7L, 100000L)) {
            label <- paste(driver, tbl, deparse(id), chunk, paste(deparse(opt), collapse = ""))
            args <- c(list(con, tbl, pats), opt, list(id = id, chunk_rows = chunk))
            dense <- do.call(sassy_count_table, args)
            s <- do.call(sassy_count_table, c(args, sparse = TRUE))
            id_cols <- if (is.null(id)) c("id", "name") else if (length(id)) id else "record"
            rn <- if (identical(id, "name")) dense$name
            expect_sparse_equals_dense(s, dense, id_cols, rn, label = label)
          }
        }
      }
      # and the counts of sassy_search() on the column
      s <- do.call(sassy_count_table, c(list(con, "reads", pats), opt, sparse = TRUE))
      want <- do.call(sf_search_counts, c(list(seqs, pats), opt))
      expect_identical(unname(sf_dense_matrix(s)), want)
    }
    # NULL sequences: NA rows, stored; a one-column integer id names the rows
    s <- sassy_count_table(con, "reads", pats, k = 1, id = "id", sparse = TRUE)
    expect_true(all(is.na(s[c(2L, 30L, n), ])))
    expect_identical(sum(is.na(s@x)), 3L * length(pats))
    expect_identical(rownames(s), as.character(seq_len(n)))
    expect_identical(colnames(s), c("p1", "p2", "sequence"))
    # a query, searched without the background overlap too
    q <- DBI::SQL("SELECT name, sequence FROM reads WHERE id > 10 ORDER BY id DESC")
    dense <- sassy_count_table(con, q, pats, k = 1)
    expect_sparse_equals_dense(
      sassy_count_table(con, q, pats, k = 1, sparse = TRUE),
      dense, "name", dense$name
    )
    withr::with_options(list(ducksassy.table_overlap = FALSE), {
      expect_sparse_equals_dense(
        sassy_count_table(con, q, pats, k = 1, chunk_rows = 5L, sparse = TRUE),
        dense, "name", dense$name
      )
    })
    # an empty result
    none <- sassy_count_table(con, DBI::SQL("SELECT * FROM reads WHERE id < 0"), pats, sparse = TRUE)
    expect_identical(dim(none), c(0L, 3L))
  }
})

test_that("#23: sparse counts of files and tables check `sparse`", {
  f <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  expect_error(sassy_count_fastx(f, "ACGT", sparse = NA), class = "ducksassy_input_error")
  expect_error(sassy_count_fastx(f, "ACGT", sparse = c(TRUE, FALSE)), class = "ducksassy_input_error")
  expect_error(sassy_contains_fastx(f, "ACGT", sparse = TRUE),
    class = "ducksassy_unknown_argument_error")
  expect_error(sassy_search_fastx(f, "ACGT", sparse = TRUE),
    class = "ducksassy_unknown_argument_error")
  skip_without_drivers()
  con <- local_db(table_drivers()[[1]])
  DBI::dbWriteTable(con, "t", data.frame(sequence = c("ACGTACGT", NA)))
  expect_error(sassy_count_table(con, "t", "ACGT", sparse = NA), class = "ducksassy_input_error")
  expect_error(sassy_count_table(con, "t", "ACGT", sparse = "yes"), class = "ducksassy_input_error")
  expect_error(sassy_count_table(con, "t", "ACGT", sparse = TRUE, output = "out"),
    class = "ducksassy_input_error")
  expect_false(DBI::dbExistsTable(con, "out"))
  expect_error(sassy_contains_table(con, "t", "ACGT", sparse = TRUE),
    class = "ducksassy_unknown_argument_error")
})

test_that("#23: sparse file counts of many records x patterns take memory per hit and record", {
  skip_on_cran()
  set.seed(2303)
  dir <- withr::local_tempdir()
  n_reads <- 20000L
  n_patterns <- 500L
  pats <- vapply(rep(12L, n_patterns), sf_random_dna, "")
  seqs <- rep("ACGTTGCAACGTTGCA", n_reads)
  with_hit <- sample.int(n_reads, 300L)
  seqs[with_hit] <- paste0("TT", pats[sample.int(n_patterns, 300L, replace = TRUE)], "TT")
  f <- sf_write_fastx(file.path(dir, "many.fq.gz"), paste0("r", seq_len(n_reads)), seqs)
  s <- sassy_count_fastx(f, pats, rc = FALSE, sparse = TRUE)
  expect_identical(dim(s), c(n_reads, n_patterns))
  expect_gte(length(s@x), 300L)
  dense_bytes <- 4 * as.double(n_reads) * n_patterns # 40 MB
  m <- s
  attr(m, "records") <- NULL
  expect_lt(as.double(utils::object.size(m)), dense_bytes / 10)
  expect_identical(
    unname(sf_dense_matrix(s[with_hit, ])),
    sf_search_counts(seqs[with_hit], pats, rc = FALSE)
  )
})

test_that("#23: sparse counts with BPPARAM equal those without", {
  skip_on_cran()
  skip_if_not_installed("BiocParallel")
  skip_if(
    !nzchar(system.file("Meta", "package.rds", package = "ducksassy")),
    "ducksassy is not installed (the workers load the installed package)"
  )
  set.seed(2304)
  dir <- withr::local_tempdir()
  pats <- c(a = sf_random_dna(10), b = sf_random_dna(12))
  n <- c(50L, 33L)
  seqs <- lapply(n, sf_reads, patterns = pats)
  paths <- c(
    sf_write_fastx(file.path(dir, "a.fq.gz"), paste0("a", seq_len(n[[1]])), seqs[[1]]),
    sf_write_fastx(file.path(dir, "b.fa"), paste0("b", seq_len(n[[2]])), seqs[[2]], fastq = FALSE)
  )
  bp <- BiocParallel::SnowParam(workers = 2L)
  BiocParallel::bpstart(bp)
  withr::defer(BiocParallel::bpstop(bp))
  # files: one per worker; one file in record ranges
  for (p in list(paths, paths[1])) {
    for (per in list(NULL, 9)) {
      withr::with_options(list(ducksassy.shard_records = per), {
        one <- sassy_count_fastx(p, pats, k = 1, threads = 1L, sparse = TRUE)
        got <- sassy_count_fastx(p, pats, k = 1, threads = 1L, sparse = TRUE, BPPARAM = bp)
        expect_identical(got, one)
        dense <- sassy_count_fastx(p, pats, k = 1, threads = 1L)
        expect_sparse_equals_dense(got, dense,
          intersect(c("file", "record", "name"), names(dense)), dense$name)
      })
    }
  }
  # tables: a DuckDB file (read-only) and an SQLite file, in row ranges
  skip_if_not_installed("DBI")
  all <- unlist(seqs)
  all[c(3L, 40L)] <- NA
  df <- data.frame(name = paste0("r", seq_along(all)), sequence = all)
  withr::local_options(ducksassy.shard_rows = 20)
  if (requireNamespace("duckdb", quietly = TRUE)) {
    path <- file.path(dir, "reads.duckdb")
    con <- DBI::dbConnect(duckdb::duckdb(), path)
    DBI::dbWriteTable(con, "reads", df)
    DBI::dbDisconnect(con, shutdown = TRUE)
    con <- suppressMessages(DBI::dbConnect(duckdb::duckdb(), path, read_only = TRUE))
    withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
    for (id in list(NULL, character())) {
      one <- sassy_count_table(con, "reads", pats, k = 1, id = id, sparse = TRUE)
      got <- sassy_count_table(con, "reads", pats, k = 1, id = id, sparse = TRUE, BPPARAM = bp)
      expect_identical(got, one)
      dense <- sassy_count_table(con, "reads", pats, k = 1, id = id)
      expect_sparse_equals_dense(got, dense, if (is.null(id)) "name" else "record",
        if (is.null(id)) dense$name)
    }
  }
  if (requireNamespace("RSQLite", quietly = TRUE)) {
    path <- file.path(dir, "reads.sqlite")
    con2 <- DBI::dbConnect(RSQLite::SQLite(), path)
    withr::defer(DBI::dbDisconnect(con2))
    DBI::dbWriteTable(con2, "reads", df)
    one <- sassy_count_table(con2, "reads", pats, k = 2, sparse = TRUE)
    expect_identical(sassy_count_table(con2, "reads", pats, k = 2, sparse = TRUE, BPPARAM = bp), one)
    expect_true(all(is.na(one[c(3L, 40L), ])))
  }
})
