# BPPARAM: file and table searches sharded over a BiocParallel SnowParam
# cluster (two R processes over loopback sockets), compared with the
# single-process result of the same call, which is the oracle: identical
# rows, order and record numbers. One cluster is started for the file and
# reused by every test.

skip_on_cran()
skip_if_not_installed("BiocParallel")
# socket workers load the installed package: under pkgload::load_all() they
# would load another (or no) copy
skip_if(
  !nzchar(system.file("Meta", "package.rds", package = "ducksassy")),
  "ducksassy is not installed (the workers load the installed package)"
)

shard_fixture <- function(name) system.file("extdata", name, package = "ducksassy")
# the hit, count and presence verbs of each family, by what they return
fastx_verbs <- list(hits = sassy_search_fastx, count = sassy_count_fastx, contains = sassy_contains_fastx)
table_verbs <- list(hits = sassy_search_table, count = sassy_count_table, contains = sassy_contains_table)
lambda_reads <- function() {
  p <- "/usr/share/doc/bowtie2/examples/reads/reads_1.fq.gz"
  if (file.exists(p)) p else shard_fixture("lambda_reads_1.fq.gz")
}
ecoli <- function() {
  paths <- c(
    "/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz",
    "/usr/share/bowtie-examples/genomes/NC_008253.fna.gz"
  )
  paths[file.exists(paths)][1]
}

bp <- BiocParallel::SnowParam(workers = 2L)
BiocParallel::bpstart(bp)
withr::defer(BiocParallel::bpstop(bp), teardown_env())

# patterns with hits in the lambda reads (a 20-mer of the lambda genome, a
# 12-mer) and one with few
lambda_patterns <- c(p1 = "GACGCTCAGTAATGTGACGA", p2 = "ACGTACGTACGT", p3 = "GGGCGGCGACCTCGC")

test_that("ranges of records or rows cover everything once, in order", {
  cut <- ducksassy:::range_cuts
  for (count in c(0, 1, 7, 10, 10000, 10001)) {
    for (per in c(1, 3, 1234, 1e6)) {
      r <- cut(count, per)
      n <- r$n
      n[is.nan(n)] <- count - utils::tail(r$skip, 1)
      expect_identical(r$skip, cumsum(c(0, n))[seq_along(n)])
      expect_identical(sum(n), max(count, 0))
      expect_true(all(n[-length(n)] <= per))
      expect_true(is.nan(utils::tail(r$n, 1)))
    }
  }
})

test_that("lambda reads: several files and a file split into record ranges equal the single-process search", {
  reads <- lambda_reads()
  paths <- c(reads, shard_fixture("lambda_virus.fa"), shard_fixture("lambda_reads_1.fq.gz"))
  for (what in c("hits", "count", "contains")) {
    one <- fastx_verbs[[what]](paths, lambda_patterns, k = 2, threads = 1L)
    expect_gt(nrow(one), 100L)
    # three files, two workers: one shard per file
    expect_identical(
      fastx_verbs[[what]](paths, lambda_patterns, k = 2, threads = 1L, BPPARAM = bp),
      one
    )
  }
  # one file, two workers: two record ranges, read by each worker alone
  n_reads <- nrow(sassy_read_fastx(reads))
  shards <- ducksassy:::shard_plan_fastx(reads, 2, NULL)
  expect_identical(nrow(shards), 2L)
  expect_identical(shards$skip, c(0, floor(n_reads / 2)))
  for (what in c("hits", "count")) {
    one <- fastx_verbs[[what]](reads, lambda_patterns, k = 2, threads = 2L)
    expect_identical(
      fastx_verbs[[what]](reads, lambda_patterns, k = 2, threads = 2L, BPPARAM = bp),
      one
    )
  }
  # many uneven ranges of every file (the genome's 3 records in 2 ranges)
  withr::local_options(ducksassy.shard_records = 1234)
  shards <- ducksassy:::shard_plan_fastx(paths, 2, NULL, bp)
  n_recs <- vapply(paths, function(p) nrow(sassy_read_fastx(p)), integer(1))
  expect_identical(nrow(shards), as.integer(sum(pmax(1, ceiling(n_recs / 1234)))))
  expect_gt(nrow(shards), length(paths))
  one <- sassy_count_fastx(paths, lambda_patterns, k = 1, threads = 1L)
  expect_identical(
    sassy_count_fastx(paths, lambda_patterns, k = 1, threads = 1L, BPPARAM = bp),
    one
  )
  one <- sassy_search_fastx(paths, lambda_patterns, k = 2, threads = 1L)
  got <- sassy_search_fastx(paths, lambda_patterns, k = 2, threads = 1L, BPPARAM = bp)
  expect_identical(got, one)
  # hits in records of the last ranges keep their numbers in the file
  expect_true(any(got$record > 1234L & got$file == reads))
})

test_that("the E. coli genome with the lambda reads, and the CRISPR form, equal the single-process search", {
  genome <- ecoli()
  skip_if(is.na(genome), "bowtie-examples E. coli genome not installed")
  paths <- c(genome, lambda_reads())
  lines <- readLines(genome, n = 2000L)
  seq <- paste(lines[!startsWith(lines, ">")], collapse = "")
  pats <- c(e1 = substr(seq, 1001L, 1020L), e2 = substr(seq, 50001L, 50024L), lambda_patterns[1])
  one <- sassy_search_fastx(paths, pats, k = 2, threads = 2L)
  expect_gt(sum(one$file == genome), 0L)
  expect_gt(sum(one$file != genome), 0L)
  expect_identical(sassy_search_fastx(paths, pats, k = 2, threads = 2L, BPPARAM = bp), one)
  # a guide (20 nt + NGG) from the genome, the reads as well
  at <- regexpr("[ACGT]{21}GG", seq)
  guide <- paste0(substr(seq, at, at + 19L), "NGG")
  one <- sassy_crispr_fastx(paths, c(g1 = guide, g2 = "GACGCTCAGTAATGTGACGANGG"), k = 3, threads = 1L)
  expect_gt(nrow(one), 0L)
  expect_true("guide" %in% names(one))
  withr::local_options(ducksassy.shard_records = 4000)
  expect_identical(
    sassy_crispr_fastx(paths, c(g1 = guide, g2 = "GACGCTCAGTAATGTGACGANGG"), k = 3, threads = 1L, BPPARAM = bp),
    one
  )
})

test_that("a failing file shard names the file and range; with stop.on.error = FALSE the result lists it", {
  dir <- withr::local_tempdir()
  good <- shard_fixture("lambda_reads_1.fq.gz")
  gz <- readBin(good, "raw", file.size(good))
  bad <- file.path(dir, "cut.fq.gz")
  writeBin(gz[seq_len(length(gz) %/% 2L)], bad)
  paths <- c(good, bad, shard_fixture("lambda_virus.fa"))
  # the same file error as in-process, with the shard around it
  direct <- tryCatch(sassy_search_fastx(bad, lambda_patterns, k = 1), ducksassy_error = identity)
  expect_s3_class(direct, "ducksassy_file_error")
  err <- tryCatch(
    sassy_search_fastx(paths, lambda_patterns, k = 1, BPPARAM = bp),
    ducksassy_error = identity
  )
  expect_s3_class(err, "ducksassy_shard_error")
  expect_s3_class(err, "ducksassy_file_error")
  expect_identical(err$shard, 2L)
  expect_identical(err$path, bad)
  expect_identical(err$record, direct$record)
  expect_match(conditionMessage(err), "Shard 2 of 3 failed: file \"[^\"]*cut.fq.gz\", records 1 to the end", perl = TRUE)
  expect_match(conditionMessage(err), "truncated or corrupt")
  expect_identical(err$shards$shard, 2L)

  # a relative path is found by the workers, and named as given
  withr::with_dir(dir, {
    err <- tryCatch(
      sassy_search_fastx(c("cut.fq.gz", good), lambda_patterns, k = 1, BPPARAM = bp),
      ducksassy_error = identity
    )
  })
  expect_s3_class(err, "ducksassy_file_error")
  expect_identical(err$path, "cut.fq.gz")
  expect_identical(err$shard, 1L)

  # go on after errors: the other shards' rows, and which shard is missing
  bp2 <- BiocParallel::SnowParam(workers = 2L, stop.on.error = FALSE)
  BiocParallel::bpstart(bp2)
  withr::defer(BiocParallel::bpstop(bp2))
  expect_warning(
    got <- sassy_search_fastx(paths, lambda_patterns, k = 1, BPPARAM = bp2),
    class = "ducksassy_shard_warning"
  )
  want <- sassy_search_fastx(paths[-2], lambda_patterns, k = 1)
  missing <- attr(got, "missing_shards")
  attr(got, "missing_shards") <- NULL
  expect_identical(got, want)
  expect_identical(missing$shard, 2L)
  expect_identical(missing$source, bad)
  expect_identical(missing$first, 1)
  expect_true(is.na(missing$last))
  expect_match(missing$error, "truncated or corrupt")

  # a letter outside the alphabet in the last of 4 ranges: its number in
  # the file, and the range
  fa <- file.path(dir, "ten.fa")
  recs <- rep("ACGTACGTAAACCCGGGTTT", 10L)
  recs[8L] <- "ACGTAC-TAAACCCGGGTTT"
  writeLines(paste0(">s", 1:10, "\n", recs), fa)
  withr::local_options(ducksassy.shard_records = 3)
  err <- tryCatch(sassy_search_fastx(fa, "ACGTACG", k = 1, BPPARAM = bp), ducksassy_error = identity)
  expect_s3_class(err, "ducksassy_shard_error")
  expect_identical(err$record, 8L)
  expect_identical(err$shard, 4L)
  expect_match(conditionMessage(err), "records 8 to the end")
  expect_match(conditionMessage(err), "Record 8 (\"s8\")", fixed = TRUE)
})

# ---------------------------------------------------------------------------
# Tables

shard_db <- function(dir, n = Inf) {
  recs <- sassy_read_fastx(lambda_reads(), n_max = n)
  path <- file.path(dir, "reads.duckdb")
  con <- DBI::dbConnect(duckdb::duckdb(), path)
  DBI::dbWriteTable(con, "reads", data.frame(
    name = recs$name, len = nchar(recs$sequence), sequence = recs$sequence
  ))
  DBI::dbWriteTable(con, "seqs", data.frame(sequence = recs$sequence))
  DBI::dbDisconnect(con, shutdown = TRUE)
  path
}

test_that("a DuckDB file table and query, read-only in each worker, equal the single-process search", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("duckdb")
  dir <- withr::local_tempdir()
  path <- shard_db(dir)
  con <- suppressMessages(DBI::dbConnect(duckdb::duckdb(), path, read_only = TRUE))
  withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
  query <- DBI::SQL("SELECT name, sequence FROM reads WHERE len > 50 ORDER BY name DESC;")
  for (table in list("reads", DBI::Id(table = "seqs"), query)) {
    for (what in c("hits", "count")) {
      one <- table_verbs[[what]](con, table, lambda_patterns, k = 2,
        threads = 1L, chunk_rows = 3000L)
      expect_gt(nrow(one), 1000L)
      got <- table_verbs[[what]](con, table, lambda_patterns, k = 2,
        threads = 1L, chunk_rows = 3000L, BPPARAM = bp)
      expect_identical(got, one)
    }
  }
  # more ranges than workers; no id columns: the record numbers of the table
  withr::local_options(ducksassy.shard_rows = 2222)
  one <- sassy_contains_table(con, "seqs", lambda_patterns, k = 1)
  expect_identical(names(one)[1L], "record")
  expect_identical(
    sassy_contains_table(con, "seqs", lambda_patterns, k = 1, BPPARAM = bp),
    one
  )
  one <- sassy_search_table(con, "seqs", lambda_patterns, k = 2, id = character())
  got <- sassy_search_table(con, "seqs", lambda_patterns, k = 2, id = character(), BPPARAM = bp)
  expect_identical(got, one)
  expect_true(any(got$record > 8000L))
})

test_that("the CRISPR table form equals the single-process search", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("duckdb")
  genome <- ecoli()
  skip_if(is.na(genome), "bowtie-examples E. coli genome not installed")
  # the genome in 10 kb rows, so that row ranges have work
  lines <- readLines(genome)
  seq <- paste(lines[!startsWith(lines, ">")], collapse = "")
  starts <- seq(1L, nchar(seq), by = 10000L)
  dir <- withr::local_tempdir()
  path <- file.path(dir, "ecoli.duckdb")
  con <- DBI::dbConnect(duckdb::duckdb(), path)
  DBI::dbWriteTable(con, "chunks", data.frame(
    from = starts, sequence = substring(seq, starts, pmin(starts + 9999L, nchar(seq)))
  ))
  DBI::dbDisconnect(con, shutdown = TRUE)
  con <- suppressMessages(DBI::dbConnect(duckdb::duckdb(), path, read_only = TRUE))
  withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
  at <- regexpr("[ACGT]{21}GG", substr(seq, 2000001L, 2001000L))
  guide <- paste0(substr(seq, 2000000L + at, 2000000L + at + 19L), "NGG")
  one <- sassy_crispr_table(con, "chunks", guide, k = 4, threads = 1L, chunk_rows = 100L)
  expect_gt(nrow(one), 1L)
  withr::local_options(ducksassy.shard_rows = 150)
  expect_identical(
    sassy_crispr_table(con, "chunks", guide, k = 4, threads = 1L, chunk_rows = 100L, BPPARAM = bp),
    one
  )
})

test_that("an SQLite file table equals the single-process search", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  dir <- withr::local_tempdir()
  recs <- sassy_read_fastx(shard_fixture("lambda_reads_1.fq.gz"))
  path <- file.path(dir, "reads.sqlite")
  con <- DBI::dbConnect(RSQLite::SQLite(), path)
  withr::defer(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "reads", data.frame(name = recs$name, sequence = recs$sequence))
  withr::local_options(ducksassy.shard_rows = 70)
  for (what in c("hits", "count")) {
    one <- table_verbs[[what]](con, "reads", lambda_patterns, k = 2)
    expect_gt(nrow(one), 10L)
    expect_identical(
      table_verbs[[what]](con, "reads", lambda_patterns, k = 2, BPPARAM = bp),
      one
    )
  }
})

test_that("a failing row range names the rows; with stop.on.error = FALSE the result lists it", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("duckdb")
  dir <- withr::local_tempdir()
  path <- file.path(dir, "bad.duckdb")
  seqs <- rep(c("ACGTACGTAAACCC", "TTTACGTACGTGGG", "CCCCCCCCCCCCCC"), 4L)
  seqs[8L] <- "ACGTAC-TAAACCC"
  con <- DBI::dbConnect(duckdb::duckdb(), path)
  DBI::dbWriteTable(con, "s", data.frame(sequence = seqs))
  DBI::dbDisconnect(con, shutdown = TRUE)
  con <- suppressMessages(DBI::dbConnect(duckdb::duckdb(), path, read_only = TRUE))
  withr::defer(DBI::dbDisconnect(con, shutdown = TRUE))
  direct <- tryCatch(sassy_search_table(con, "s", "ACGTACGT", k = 1), ducksassy_error = identity)
  expect_identical(direct$row, 8)
  # 12 rows in ranges of at most 4: 1-4, 5-8, 9-12
  withr::local_options(ducksassy.shard_rows = 4)
  err <- tryCatch(sassy_search_table(con, "s", "ACGTACGT", k = 1, BPPARAM = bp), ducksassy_error = identity)
  expect_s3_class(err, "ducksassy_shard_error")
  expect_s3_class(err, "ducksassy_input_error")
  expect_identical(err$shard, 2L)
  expect_identical(err$row, 8)
  expect_match(conditionMessage(err), "Shard 2 of 3 failed: table \"s\", rows 5 to 8", fixed = TRUE)
  expect_match(conditionMessage(err), "Row 8 (column \"sequence\")", fixed = TRUE)

  bp2 <- BiocParallel::SnowParam(workers = 2L, stop.on.error = FALSE)
  BiocParallel::bpstart(bp2)
  withr::defer(BiocParallel::bpstop(bp2))
  expect_warning(
    got <- sassy_search_table(con, "s", "ACGTACGT", k = 1, BPPARAM = bp2),
    class = "ducksassy_shard_warning"
  )
  missing <- attr(got, "missing_shards")
  expect_identical(missing[, c("shard", "first", "last")], data.frame(shard = 2L, first = 5, last = 8))
  # the other rows' hits, as the single-process search of those rows gives them
  ok_rows <- DBI::SQL("SELECT * FROM s WHERE rowid < 4 OR rowid >= 8")
  want <- sassy_search_table(con, ok_rows, "ACGTACGT", k = 1)
  want$record <- c(1:4, 9:12)[want$record]
  attr(got, "missing_shards") <- NULL
  expect_identical(got, want)
})

test_that("connections the workers can't reopen, output and bad BPPARAM are classed errors", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("duckdb")
  mem <- DBI::dbConnect(duckdb::duckdb())
  withr::defer(DBI::dbDisconnect(mem, shutdown = TRUE))
  DBI::dbWriteTable(mem, "s", data.frame(sequence = "ACGT"))
  expect_error(
    sassy_search_table(mem, "s", "ACGT", BPPARAM = bp),
    "in-memory DuckDB database", class = "ducksassy_input_error"
  )
  dir <- withr::local_tempdir()
  path <- file.path(dir, "rw.duckdb")
  rw <- DBI::dbConnect(duckdb::duckdb(), path)
  withr::defer(DBI::dbDisconnect(rw, shutdown = TRUE))
  DBI::dbWriteTable(rw, "s", data.frame(sequence = "ACGT"))
  expect_error(
    sassy_search_table(rw, "s", "ACGT", BPPARAM = bp),
    "read_only = TRUE", class = "ducksassy_input_error"
  )
  expect_error(
    sassy_search_table(rw, "s", "ACGT", output = "hits", BPPARAM = bp),
    "`output` can't be used with `BPPARAM`", class = "ducksassy_input_error"
  )
  expect_error(
    sassy_search_fastx(shard_fixture("lambda_virus.fa"), "ACGT", BPPARAM = 2),
    "BiocParallel parameter object", class = "ducksassy_input_error"
  )
  expect_error(
    sassy_search_table(rw, "no_such_table", "ACGT", BPPARAM = 2),
    class = "ducksassy_input_error"
  )
})

test_that("forked workers (MulticoreParam) search after this session's thread pool exists", {
  skip_on_os("windows")
  skip_if_not_installed("callr")
  # in a fresh R process (forking the test session, with all it has run,
  # is not what a user does), with a time limit: without a pool per
  # process a forked child would wait forever for the parent's threads
  res <- callr::r(function(reads, patterns) {
    library(ducksassy)
    # the pool of 2 threads exists in this session before the fork
    one <- sassy_search_fastx(reads, patterns, k = 2, threads = 2L)
    options(ducksassy.shard_records = 60)
    got <- sassy_search_fastx(reads, patterns, k = 2, threads = 2L,
      BPPARAM = BiocParallel::MulticoreParam(workers = 2L))
    texts <- c("ACGTACGTAAA", "GGGTTTACGT")
    kids <- parallel::mclapply(1:2, function(i) {
      sassy_count(texts, "ACGTACG", k = 1, threads = 2L)
    }, mc.cores = 2L)
    list(
      n = nrow(one),
      sharded = identical(got, one),
      forked = identical(kids, rep(list(sassy_count(texts, "ACGTACG", k = 1, threads = 2L)), 2L))
    )
  }, args = list(shard_fixture("lambda_reads_1.fq.gz"), lambda_patterns),
  libpath = .libPaths(), timeout = 120)
  expect_gt(res$n, 0L)
  expect_true(res$sharded)
  expect_true(res$forked)
})

test_that("a worker's error travels as its headline and named bullets, not as formatted text", {
  e <- tryCatch(cli::cli_abort(c("Head {1}", x = "bad {2}", i = "hint")), error = identity)
  expect_identical(condition_bullets(e), c("Head 1", x = "bad 2", i = "hint"))
  expect_identical(condition_bullets(simpleError("plain\nerror")), "plain\nerror")
  # shown under the shard's headline with their own bullet types
  err <- list(message = conditionMessage(e), bullets = condition_bullets(e), class = "ducksassy_input_error", fields = list())
  shards <- data.frame(kind = "file", source = "a.fq", first = 1, last = NA_real_)
  got <- tryCatch(abort_shard(err, 1L, shards, shards, "records", call = NULL), ducksassy_error = identity)
  expect_s3_class(got, "ducksassy_shard_error")
  expect_s3_class(got, "ducksassy_input_error")
  expect_identical(names(got$body)[1:2], c("x", "x"))
  expect_match(got$body[[1]], "The worker's error: Head 1", fixed = TRUE)
  expect_identical(unname(got$body[[2]]), "bad 2")
  expect_identical(unname(got$body[[3]]), "hint")
})
