# The one table scan driver (R/table-scan.R), which sassy_search_table()
# and sassy_crispr_table() share: the CRISPR search of a table is
# sassy_crispr() on the same rows, whatever the chunk size, with a progress
# bar, with garbage pacing.

crispr_scan_fixture <- function() {
  withr::local_seed(11)
  seqs <- random_seqs(30L, 0L, 200L)
  seqs[[7]] <- NA
  seqs[[12]] <- ""
  # two SpCas9-like guides planted (with their PAM) in rows 3 and 20
  seqs[[3]] <- paste0(random_seqs(1L, 150L, 150L), collapse = "")
  seqs[[20]] <- paste0(random_seqs(1L, 150L, 150L), collapse = "")
  guides <- c(
    g1 = paste0(substr(seqs[[3]], 20, 39), "NGG"),
    g2 = paste0(substr(seqs[[20]], 100, 119), "NAG")
  )
  substr(seqs[[3]], 40, 42) <- "TGG"
  substr(seqs[[20]], 120, 122) <- "CAG"
  list(
    df = data.frame(read_id = sprintf("r%02d", 1:30), seq = seqs),
    guides = guides
  )
}

test_that("sassy_crispr_table() is sassy_crispr() on the same rows for any chunk size", {
  skip_without_drivers()
  fx <- crispr_scan_fixture()
  want <- sassy_crispr(fx$df$seq, fx$guides, k = 3, region = TRUE)
  expect_gte(nrow(want), 2L)
  for (driver in table_drivers()) {
    con <- local_db(driver)
    DBI::dbWriteTable(con, "reads", fx$df)
    for (chunk_rows in c(1L, 7L, nrow(fx$df))) {
      got <- sassy_crispr_table(con, "reads", fx$guides, k = 3, column = "seq",
        id = character(), chunk_rows = chunk_rows, region = TRUE)
      expect_identical(got, want, label = paste(driver, chunk_rows))
      by_id <- sassy_crispr_table(con, "reads", fx$guides, k = 3, column = "seq",
        chunk_rows = chunk_rows, cigar_style = "sam")
      sam <- sassy_crispr(fx$df$seq, fx$guides, k = 3, cigar_style = "sam")
      expect_identical(by_id$read_id, fx$df$read_id[sam$record])
      expect_identical(by_id[-1], sam[-1])
    }
  }
})

# Record the calls of a function of the package (`fn`) with the values of
# `vars` in its frame, until the calling test ends.
local_record_calls <- function(fn, vars, env = parent.frame()) {
  seen <- new.env()
  seen$calls <- list()
  ns <- asNamespace("ducksassy")
  tracer <- bquote({
    rec <- .(seen)
    rec$calls[[length(rec$calls) + 1L]] <- mget(.(vars), envir = environment())
  })
  suppressMessages(trace(fn, tracer = tracer, where = ns, print = FALSE))
  withr::defer(suppressMessages(untrace(fn, where = ns)), envir = env)
  seen
}

test_that("sassy_crispr_table() reports its progress over the rows, with the same hits", {
  skip_without_drivers()
  fx <- crispr_scan_fixture()
  want <- sassy_crispr(fx$df$seq, fx$guides, k = 2)
  made <- local_record_calls("new_progress", c("label", "total"))
  updates <- local_record_calls("progress_update", "done")
  for (driver in table_drivers()) {
    con <- local_db(driver)
    DBI::dbWriteTable(con, "reads", fx$df)
    made$calls <- list()
    updates$calls <- list()
    rlang::with_interactive(
      withr::with_options(list(ducksassy.progress = TRUE), {
        got <- sassy_crispr_table(con, "reads", fx$guides, k = 2, column = "seq",
          id = character(), chunk_rows = 7L)
      })
    )
    expect_identical(got, want, label = driver)
    # one bar over the rows, the table's label, the row count where cheap
    labels <- vapply(made$calls, `[[`, "", "label")
    expect_length(grep("^Searching .*reads", labels), 1L)
    total <- made$calls[[grep("reads", labels)]]$total
    if (driver == "duckdb") expect_identical(total, 30) else expect_identical(total, NA_real_)
    # rows done after each chunk of 7
    done <- vapply(updates$calls, function(x) as.double(x$done), 0)
    expect_identical(done[done %in% c(7, 14, 21, 28, 30)], c(7, 14, 21, 28, 30), label = driver)
  }
})

test_that("the table scan paces R's garbage collector for CRISPR too", {
  skip_without_drivers()
  fx <- crispr_scan_fixture()
  want <- sassy_crispr(fx$df$seq, fx$guides, k = 2)
  driver <- table_drivers()[[1L]]
  con <- local_db(driver)
  DBI::dbWriteTable(con, "reads", fx$df)
  # every chunk's garbage goes to the pacer
  steps <- local_record_calls("gc_pace_step", "bytes")
  got <- sassy_crispr_table(con, "reads", fx$guides, k = 2, column = "seq",
    id = character(), chunk_rows = 7L)
  expect_identical(got, want)
  # 30 rows in chunks of 7: 5 chunks, each leaving its sequences behind
  bytes <- vapply(steps$calls, function(x) as.double(x$bytes), 0)
  expect_length(bytes, 5L)
  expect_true(all(bytes > 0))
})
