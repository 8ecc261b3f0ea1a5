# Unknown and removed arguments (R/dots.R).

test_that("what = in the file and table functions is an error naming the function to call", {
  fq <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  for (verb in c("count", "contains")) {
    e <- expect_error(
      sassy_search_fastx(fq, "ACGT", what = verb),
      class = "ducksassy_deprecated_error"
    )
    expect_s3_class(e, "ducksassy_error")
    expect_match(conditionMessage(e), paste0("`what = \"", verb, "\"` was removed: use `sassy_", verb, "_fastx()`"), fixed = TRUE)
    expect_identical(e$value, paste0("sassy_", verb, "_fastx()"))
  }
  # a wrong value still names the hit function
  e <- expect_error(sassy_count_fastx(fq, "ACGT", what = "hit"), class = "ducksassy_deprecated_error")
  expect_match(conditionMessage(e), "use `sassy_search_fastx()`", fixed = TRUE)
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "reads", data.frame(sequence = "ACGT"))
  e <- expect_error(sassy_search_table(con, "reads", "ACGT", what = "count"), class = "ducksassy_deprecated_error")
  expect_match(conditionMessage(e), "`what = \"count\"` was removed: use `sassy_count_table()`", fixed = TRUE)
  e <- expect_error(sassy_search_table(con, "reads", "ACGT", what = "contains"), class = "ducksassy_deprecated_error")
  expect_match(conditionMessage(e), "use `sassy_contains_table()`", fixed = TRUE)
  e <- expect_error(sassy_search_table(con, "reads", "ACGT", what = "hits"), class = "ducksassy_deprecated_error")
  expect_match(conditionMessage(e), "use `sassy_search_table()`", fixed = TRUE)
})

test_that("an unknown argument of a table verb names the argument meant", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "reads", data.frame(sequence = "ACGT"))
  e <- expect_error(sassy_count_table(con, "reads", "ACGT", max.mismatch = 1), class = "ducksassy_unknown_argument_error")
  expect_identical(e$value, "k")
  e <- expect_error(sassy_contains_table(con, "reads", "ACGT", alphabt = "dna"), class = "ducksassy_unknown_argument_error")
  expect_identical(e$value, "alphabet")
  # a hit-only argument is not one of the count verb's
  e <- expect_error(sassy_count_table(con, "reads", "ACGT", cigar_style = "sam"), class = "ducksassy_unknown_argument_error")
  expect_identical(e$arg, "cigar_style")
})

test_that("every family's search arguments have sassy_search()'s defaults", {
  shared <- formals(sassy_search)
  shared <- shared[setdiff(names(shared), c("texts", "patterns", "..."))]
  fns <- c(
    "sassy_count", "sassy_contains",
    "sassy_search_fastx", "sassy_count_fastx", "sassy_contains_fastx",
    "sassy_search_table", "sassy_count_table", "sassy_contains_table"
  )
  for (fn in fns) {
    f <- formals(getExportedValue("ducksassy", fn))
    common <- intersect(names(shared), names(f))
    expect_identical(f[common], shared[common], label = fn)
  }
  # the hit verbs take every search argument, the count verbs all but the
  # hit-only ones
  hit_only <- c("cigar", "cigar_style", "region")
  for (fam in c("fastx", "table")) {
    expect_true(all(names(shared) %in% names(formals(paste0("sassy_search_", fam)))))
    for (verb in c("count", "contains")) {
      f <- names(formals(paste0("sassy_", verb, "_", fam)))
      expect_identical(setdiff(names(shared), f), hit_only, label = paste(verb, fam))
    }
  }
})

test_that("the count and contains verbs of a family are its hit verb's counts", {
  fq <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  pats <- c(p1 = "GACGCTCAGTAATGTGACGA", p2 = "ACGTACGTACGT")
  recs <- sassy_read_fastx(fq)
  cnt <- sassy_count_fastx(fq, pats, k = 2)
  expect_identical(unname(as.matrix(cnt[c("p1", "p2")])), unname(sassy_count(recs$sequence, pats, k = 2)))
  has <- sassy_contains_fastx(fq, pats, k = 2)
  expect_identical(unname(as.matrix(has[c("p1", "p2")])), unname(sassy_contains(recs$sequence, pats, k = 2)))
  hits <- sassy_search_fastx(fq, pats, k = 2)
  expect_identical(sum(cnt$p1), sum(hits$pattern == 1L))
})
