# sassy_assign() and its file and table forms (issue 23): one row per
# record with the best pattern. The reference below is built from
# sassy_search() and the documented rule written in R: best = lowest (cost,
# pattern index, start, end, "+" before "-"); other_cost = lowest cost of a
# hit of another pattern; "ambiguous" when other_cost <= cost + margin,
# "unassigned" with no hit, NA for NA records.

assign_columns <- c(
  record = "integer", name = "character", pattern = "integer",
  pattern_name = "character", sample = "character", cost = "integer", start = "integer",
  end = "integer", strand = "character", other_cost = "integer",
  status = "integer" # a factor
)

# The pattern labels of the assignment: names(patterns), or pattern_1,
# pattern_2, ... for unnamed ones, made unique.
assign_labels <- function(patterns) {
  nm <- names(patterns)
  if (is.null(nm)) nm <- rep("", length(patterns))
  nm[is.na(nm) | nm == ""] <- paste0("pattern_", seq_along(patterns))[is.na(nm) | nm == ""]
  make.unique(nm, sep = "_")
}

# The sample of each pattern: its name, pattern_<i> where unnamed (repeats
# are one sample).
assign_samples_ref <- function(patterns) {
  nm <- names(patterns)
  if (is.null(nm)) nm <- rep("", length(patterns))
  nm[is.na(nm) | nm == ""] <- paste0("pattern_", seq_along(patterns))[is.na(nm) | nm == ""]
  nm
}

# sassy_assign(texts, patterns, margin = margin, ...) from sassy_search().
ref_assign <- function(texts, patterns, margin = 0L, ...) {
  h <- sassy_search(texts, patterns, ..., cigar = FALSE)
  n <- length(texts)
  h <- h[order(h$record, h$cost, h$pattern, h$start, h$end, h$strand, method = "radix"), , drop = FALSE]
  best <- h[!duplicated(h$record), , drop = FALSE]
  at <- match(seq_len(n), best$record)
  pattern <- best$pattern[at]
  samples <- assign_samples_ref(patterns)
  other <- h[samples[h$pattern] != samples[pattern[h$record]], , drop = FALSE]
  other_cost <- rep(NA_integer_, n)
  if (nrow(other) > 0L) {
    m <- tapply(other$cost, other$record, min)
    other_cost[as.integer(names(m))] <- as.integer(m)
  }
  cost <- best$cost[at]
  status <- ifelse(is.na(pattern), "unassigned",
    ifelse(!is.na(other_cost) & other_cost <= cost + margin, "ambiguous", "assigned")
  )
  status[is.na(texts)] <- NA_character_
  nm <- names(texts)
  out <- list(
    record = seq_len(n),
    name = if (is.null(nm)) rep(NA_character_, n) else unname(nm),
    pattern = pattern,
    pattern_name = assign_labels(patterns)[pattern],
    sample = samples[pattern],
    cost = cost,
    start = best$start[at],
    end = best$end[at],
    strand = best$strand[at],
    other_cost = other_cost,
    status = factor(status, levels = c("assigned", "ambiguous", "unassigned"))
  )
  structure(out, class = "data.frame", row.names = .set_row_names(n))
}

random_dna_seqs <- function(n, len) {
  vapply(seq_len(n), function(i) paste(sample(c("A", "C", "G", "T"), len, TRUE), collapse = ""), "")
}

# A copy of `p` with `n` random edits (substitutions, insertions, deletions).
mutate_seq <- function(p, n) {
  ch <- strsplit(p, "")[[1L]]
  for (e in seq_len(n)) {
    pos <- sample.int(length(ch), 1L)
    kind <- sample(c("sub", "ins", "del"), 1L)
    if (kind == "sub") ch[pos] <- sample(setdiff(c("A", "C", "G", "T"), ch[pos]), 1L)
    if (kind == "ins") ch <- append(ch, sample(c("A", "C", "G", "T"), 1L), after = pos)
    if (kind == "del") ch <- ch[-pos]
  }
  paste(ch, collapse = "")
}

insert_at <- function(x, p, at) paste0(substr(x, 1L, at), p, substr(x, at + 1L, nchar(x)))

# Random records with copies of the patterns (edited, either strand, some
# two different patterns, some near the ends), NA and empty records, and
# patterns with a near twin and an exact twin so that there are ties and
# close runners-up.
assign_inputs <- function(n_texts, n_patterns, len, seed) {
  withr::local_seed(seed)
  pats <- random_dna_seqs(n_patterns, len)
  if (n_patterns >= 4L) {
    substr(pats[[2L]], 3L, 3L) <- if (substr(pats[[1L]], 3L, 3L) == "A") "C" else "A"
    substr(pats[[2L]], 1L, 2L) <- substr(pats[[1L]], 1L, 2L)
    substr(pats[[2L]], 4L, len) <- substr(pats[[1L]], 4L, len)
    pats[[4L]] <- pats[[3L]]
  }
  names(pats) <- sprintf("bc%02d", seq_along(pats))
  texts <- vapply(seq_len(n_texts), function(i) {
    x <- random_dna_seqs(1L, sample(c(0L, 5L, 30:120, 200:400), 1L))
    for (j in seq_len(sample(0:2, 1L, prob = c(0.2, 0.6, 0.2)))) {
      if (nchar(x) < 10L) break
      p <- mutate_seq(sample(pats, 1L), sample(0:3, 1L))
      if (runif(1) < 0.4) p <- oracle_revcomp(p)
      at <- sample(c(0L, sample.int(nchar(x), 1L), nchar(x)), 1L)
      x <- insert_at(x, p, at)
    }
    x
  }, "")
  texts[c(4L, n_texts - 1L)] <- NA_character_
  texts[[6L]] <- ""
  names(texts) <- sprintf("read%03d", seq_len(n_texts))
  list(texts = texts, patterns = pats)
}

expect_assign_equal <- function(got, expected, info = NULL) {
  expect_identical(names(got), names(expected), info = info)
  expect_identical(vapply(got, typeof, ""), vapply(expected, typeof, ""), info = info)
  expect_identical(got, expected, info = info)
}

test_that("#23: sassy_assign() equals the rule applied to sassy_search(), many equal-length patterns", {
  inp <- assign_inputs(250L, 30L, 14L, seed = 23L)
  statuses <- character()
  for (args in list(
    list(k = 2L),
    list(k = 3L, rc = FALSE),
    list(k = 3L, ends = 40L),
    list(k = 2L, ends = c(60L, 0L)),
    list(k = 2L, ends = c(0L, 50L), rc = FALSE),
    list(k = 2L, threads = 2L),
    list(k = 1L, all_endpoints = TRUE),
    list(k = 2L, indels = FALSE),
    list(k = 3L, overhang = 0.5),
    list(k = 0L),
    list(k = 2L, ends = 50L, all_endpoints = TRUE),
    list(k = 2L, ends = c(45L, 30L), indels = FALSE),
    list(k = 3L, ends = 40L, overhang = 0.5)
  )) {
    for (margin in 0:2) {
      info <- paste0(paste(names(args), args, sep = " = ", collapse = ", "), "; margin = ", margin)
      expected <- do.call(ref_assign, c(list(inp$texts, inp$patterns, margin = margin), args))
      got <- do.call(sassy_assign, c(list(inp$texts, inp$patterns, margin = margin), args))
      expect_assign_equal(got, expected, info)
      statuses <- c(statuses, as.character(got$status))
    }
  }
  expect_true(all(c("assigned", "ambiguous", "unassigned") %in% statuses))
  expect_true(anyNA(statuses))
  # one record at a time (text lanes off) gives the same
  withr::with_envvar(c(DUCKSASSY_LANES = "off"), {
    for (args in list(list(k = 2L), list(k = 3L, ends = 40L, threads = 2L))) {
      expect_assign_equal(
        do.call(sassy_assign, c(list(inp$texts, inp$patterns, margin = 1L), args)),
        do.call(ref_assign, c(list(inp$texts, inp$patterns, margin = 1L), args)),
        "lanes off"
      )
    }
  })
})

test_that("#23: sassy_assign() with few patterns of different lengths, unnamed, lanes off", {
  inp <- assign_inputs(200L, 3L, 12L, seed = 2L)
  pats <- c("ACGTTGCAAGTC", "GATTACAGGT", "TTTTCCCCGGAGTA")
  texts <- inp$texts
  withr::local_seed(3L)
  for (i in sample(which(nchar(texts) > 20L), 80L)) {
    texts[[i]] <- insert_at(texts[[i]], mutate_seq(sample(pats, 1L), sample(0:2, 1L)), sample.int(nchar(texts[[i]]), 1L))
  }
  for (args in list(list(k = 2L), list(k = 2L, ends = 30L), list(k = 3L, rc = FALSE, threads = 2L))) {
    for (margin in 0:2) {
      info <- paste0(paste(names(args), args, sep = " = ", collapse = ", "), "; margin = ", margin)
      expected <- do.call(ref_assign, c(list(texts, pats, margin = margin), args))
      got <- do.call(sassy_assign, c(list(texts, pats, margin = margin), args))
      expect_assign_equal(got, expected, info)
      expect_identical(got$pattern_name[!is.na(got$pattern)], paste0("pattern_", got$pattern[!is.na(got$pattern)]))
      off <- withr::with_envvar(c(DUCKSASSY_LANES = "off"), {
        do.call(sassy_assign, c(list(texts, pats, margin = margin), args))
      })
      expect_identical(off, got, info = info)
      # unnamed texts: `name` is NA
      expect_identical(
        do.call(sassy_assign, c(list(unname(texts), pats, margin = margin), args))$name,
        rep(NA_character_, length(texts))
      )
    }
  }
})

test_that("#23: sassy_assign() of NA, empty and no records; a tie is ambiguous", {
  p <- c(x = "ACGTACGTAC", y = "TTGGCCAATT")
  got <- sassy_assign(c(a = NA, b = "", c = "GGGGACGTACGTACGGGG"), p, k = 1L)
  expect_identical(names(got), names(assign_columns))
  expect_identical(vapply(got, typeof, ""), assign_columns)
  expect_identical(got$record, 1:3)
  expect_identical(got$name, c("a", "b", "c"))
  expect_identical(as.character(got$status), c(NA, "unassigned", "assigned"))
  expect_true(all(is.na(unlist(got[1L, -(1:2)]))))
  expect_true(all(is.na(unlist(got[2L, c("pattern", "pattern_name", "sample", "cost", "start", "end", "strand", "other_cost")]))))
  expect_identical(got$pattern[3L], 1L)
  expect_identical(got$pattern_name[3L], "x")
  expect_identical(got$cost[3L], 0L)
  expect_identical(c(got$start[3L], got$end[3L]), c(5L, 14L))
  # no records
  none <- sassy_assign(character(), p, k = 1L)
  expect_identical(nrow(none), 0L)
  expect_identical(vapply(none, typeof, ""), assign_columns)
  # two patterns equally good: ambiguous, the first one reported
  tie <- sassy_assign("GGGGACGTACGTACGGGGTTGGCCAATTGG", p, k = 1L)
  expect_identical(as.character(tie$status), "ambiguous")
  expect_identical(tie$pattern, 1L)
  expect_identical(tie$other_cost, 0L)
  # one edit more: ambiguous with margin 1 only
  one_more <- "GGGGACGTACGTACGGGGTTGGCGAATTGG"
  expect_identical(as.character(sassy_assign(one_more, p, k = 1L)$status), "assigned")
  expect_identical(sassy_assign(one_more, p, k = 1L)$other_cost, 1L)
  expect_identical(as.character(sassy_assign(one_more, p, k = 1L, margin = 1L)$status), "ambiguous")
  # the same pattern twice: ambiguous whatever the margin, unless the two
  # are one sample (one name: several barcodes of one sample)
  expect_identical(as.character(sassy_assign("GGGGACGTACGTACGGGG", unname(c(p[1L], p[1L])))$status), "ambiguous")
  expect_identical(as.character(sassy_assign("GGGGACGTACGTACGGGG", c(p[1L], p[1L]))$status), "assigned")
  # repeated and missing names: made unique, as the count columns
  q <- c(a = "ACGTACGTAC", a = "TTGGCCAATT", "GGGAAACCCT")
  got <- sassy_assign(c("GGGGACGTACGTACGGGG", "TTGGCCAATT", "GGGAAACCCT", "CCCCC"), q)
  expect_identical(got$pattern_name, c("a", "a_1", "pattern_3", NA))
  expect_identical(got$sample, c("a", "a", "pattern_3", NA))
})

# ONT-like reads: random bases, one barcode 20-60 bases after the start and
# its reverse complement 60-100 bases before the end, 0-3 edits each.
ont_reads <- function(n = 300L, n_barcodes = 24L, seed = 23L) {
  withr::local_seed(seed)
  barcodes <- random_dna_seqs(n_barcodes, 24L)
  names(barcodes) <- sprintf("BC%02d", seq_len(n_barcodes))
  truth <- sample(c(seq_len(n_barcodes), NA), n, replace = TRUE, prob = c(rep(0.95 / n_barcodes, n_barcodes), 0.05))
  reads <- vapply(seq_len(n), function(i) {
    x <- random_dna_seqs(1L, sample(500:3000, 1L))
    if (is.na(truth[[i]])) {
      return(x)
    }
    bc <- barcodes[[truth[[i]]]]
    x <- insert_at(x, oracle_revcomp(mutate_seq(bc, sample(0:3, 1L))), nchar(x) - sample(60:100, 1L))
    insert_at(x, mutate_seq(bc, sample(0:3, 1L)), sample(20:60, 1L))
  }, "")
  names(reads) <- sprintf("read_%04d", seq_len(n))
  list(reads = reads, barcodes = barcodes, truth = truth)
}

test_that("#23: sassy_assign() on ONT-like reads equals the reference, whole reads and ends = 150", {
  ont <- ont_reads()
  for (ends in list(NULL, 150L)) {
    for (margin in 0:1) {
      for (threads in 1:2) {
        info <- paste("ends", deparse(ends), "margin", margin, "threads", threads)
        expected <- ref_assign(ont$reads, ont$barcodes, margin = margin, k = 3L, ends = ends)
        got <- sassy_assign(ont$reads, ont$barcodes, k = 3L, ends = ends, margin = margin, threads = threads)
        expect_assign_equal(got, expected, info)
      }
    }
    # the planted barcodes are found: nearly all barcoded reads get theirs
    got <- sassy_assign(ont$reads, ont$barcodes, k = 3L, ends = ends)
    barcoded <- !is.na(ont$truth)
    expect_gt(mean(got$pattern[barcoded] == ont$truth[barcoded], na.rm = TRUE), 0.97)
    expect_gt(mean(got$status[barcoded] == "assigned"), 0.8)
  }
})

test_that("#23: assignments agree across vectors, DNAStringSet, FASTQ files and DuckDB tables", {
  ont <- ont_reads(150L, seed = 5L)
  reads <- ont$reads
  # a few short and empty reads
  reads[3:5] <- c("", "ACGT", substr(reads[[5L]], 1L, 80L))
  expected <- sassy_assign(reads, ont$barcodes, k = 3L, ends = 150L, margin = 1L)
  expect_assign_equal(expected, ref_assign(reads, ont$barcodes, margin = 1L, k = 3L, ends = 150L))

  if (requireNamespace("Biostrings", quietly = TRUE)) {
    dna <- Biostrings::DNAStringSet(reads)
    got <- sassy_assign(dna, Biostrings::DNAStringSet(ont$barcodes), k = 3L, ends = 150L, margin = 1L)
    expect_assign_equal(got, expected, "DNAStringSet")
  }

  dir <- withr::local_tempdir()
  fq <- file.path(dir, "reads.fq.gz")
  con <- gzfile(fq, "wb")
  writeLines(as.vector(rbind(paste0("@", names(reads), " some comment"), reads, "+", strrep("I", nchar(reads)))), con)
  close(con)
  got <- sassy_assign_fastx(fq, ont$barcodes, k = 3L, ends = 150L, margin = 1L)
  expect_assign_equal(got, expected, "FASTQ")
  # two files: a `file` column, records numbered within each
  fa <- file.path(dir, "reads.fa")
  writeLines(as.vector(rbind(paste0(">", names(reads)), reads)), fa)
  got2 <- sassy_assign_fastx(c(fq, fa), ont$barcodes, k = 3L, ends = 150L, margin = 1L, threads = 2L)
  expect_identical(names(got2), c("file", names(assign_columns)))
  expect_identical(got2$file, rep(c(fq, fa), each = length(reads)))
  got2$file <- NULL
  both <- rbind(expected, expected)
  rownames(both) <- NULL
  expect_assign_equal(got2, both, "two files")

  skip_if_not_installed("DBI")
  skip_if_not_installed("duckdb")
  for (driver in intersect(c("duckdb", "RSQLite"), table_drivers())) {
    db <- local_db(driver)
    df <- data.frame(id = seq_along(reads) + 100L, name = names(reads), sequence = unname(reads))
    df$sequence[7L] <- NA
    DBI::dbWriteTable(db, "reads", df)
    exp_tab <- expected
    exp_tab[7L, c("pattern", "pattern_name", "sample", "cost", "start", "end", "strand", "other_cost", "status")] <- NA
    cols <- setdiff(names(assign_columns), c("record", "name"))
    # with id
    for (chunk_rows in c(13L, 100000L)) {
      got <- sassy_assign_table(db, "reads", ont$barcodes, k = 3L, ends = 150L, margin = 1L, id = "id", chunk_rows = chunk_rows)
      expect_identical(names(got), c("id", cols), info = driver)
      expect_identical(got$id, df$id)
      expect_identical(got[cols], exp_tab[cols], info = paste(driver, chunk_rows))
    }
    # without id: every other column
    got <- sassy_assign_table(db, "reads", ont$barcodes, k = 3L, ends = 150L, margin = 1L)
    expect_identical(names(got), c("id", "name", cols), info = driver)
    expect_identical(got$name, df$name)
    expect_identical(got[cols], exp_tab[cols], info = driver)
    # no id columns: the row number
    got <- sassy_assign_table(db, "reads", ont$barcodes, k = 3L, ends = 150L, margin = 1L, id = character(0))
    expect_identical(names(got), c("record", cols), info = driver)
    expect_identical(got$record, seq_along(reads))
    expect_identical(got[cols], exp_tab[cols], info = driver)
    # written into a table
    sassy_assign_table(db, "reads", ont$barcodes, k = 3L, ends = 150L, margin = 1L, id = "id", output = "assigned", chunk_rows = 40L)
    back <- DBI::dbReadTable(db, "assigned")
    back <- back[order(back$id), , drop = FALSE]
    rownames(back) <- NULL
    expect_identical(names(back), c("id", cols))
    # a table holds the status as text
    exp_text <- exp_tab[cols]
    exp_text$status <- as.character(exp_text$status)
    expect_equal(back[cols], exp_text, ignore_attr = TRUE, info = driver)
  }
})

test_that("#23: bad margin is a classed error naming `margin`", {
  x <- c("ACGTTGCAACGT", "TTTT")
  for (margin in list(-1L, -0.5, 1.5, NA, NA_integer_, NaN, Inf, "1", TRUE, c(1L, 2L), integer(), NULL, list(1L), 2^31)) {
    info <- paste(deparse(margin), collapse = "")
    cnd <- tryCatch(sassy_assign(x, "ACGT", margin = margin), error = function(e) e)
    expect_s3_class(cnd, "ducksassy_input_error")
    expect_identical(cnd$arg, "margin", info = info)
    expect_true(grepl("`margin`", conditionMessage(cnd), fixed = TRUE), info = info)
  }
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fq")
  writeLines(c("@r1", "ACGTTGCA", "+", "IIIIIIII"), fq)
  expect_error(sassy_assign_fastx(fq, "ACGT", margin = -1L), class = "ducksassy_input_error")
  expect_error(sassy_assign_fastx(fq, "ACGT", margin = 0.5), class = "ducksassy_input_error")
  skip_if_not_installed("RSQLite")
  con <- local_db("RSQLite")
  write_fixture(con)
  expect_error(sassy_assign_table(con, "reads", "ACGT", margin = -1L), class = "ducksassy_input_error")
  expect_error(sassy_assign_table(con, "reads", "ACGT", margin = "0"), class = "ducksassy_input_error")
})

test_that("#23: sassy_assign() with mixed pattern lengths, IUPAC, lowercase, N filter, ascii", {
  withr::local_seed(11L)
  pats <- c(random_dna_seqs(8L, 12L), random_dna_seqs(5L, 16L), random_dna_seqs(2L, 9L))
  substr(pats[[3L]], 5L, 5L) <- "N"
  substr(pats[[10L]], 2L, 2L) <- "R"
  texts <- vapply(seq_len(150L), function(i) {
    x <- random_dna_seqs(1L, sample(0:300, 1L))
    for (j in seq_len(sample(0:3, 1L))) {
      p <- mutate_seq(gsub("[NR]", "A", sample(pats, 1L)), sample(0:2, 1L))
      if (runif(1) < 0.5) p <- oracle_revcomp(p)
      x <- insert_at(x, p, sample(0:nchar(x), 1L))
    }
    x
  }, "")
  # lowercase and N in some records
  low <- sample.int(150L, 30L)
  texts[low] <- tolower(texts[low])
  withn <- sample(which(nchar(texts) > 50L), 20L)
  substr(texts[withn], 10L, 14L) <- "NNNNN"
  for (args in list(
    list(k = 2L),
    list(k = 2L, max_n_frac = 0.1),
    list(k = 2L, ends = c(40L, 40L), threads = 2L),
    list(k = 1L, alphabet = "dna", rc = FALSE, texts = gsub("[Nn]", "A", texts), patterns = gsub("[NR]", "A", pats))
  )) {
    tx <- if (is.null(args$texts)) texts else args$texts
    pp <- if (is.null(args$patterns)) pats else args$patterns
    args$texts <- NULL
    args$patterns <- NULL
    for (margin in 0:1) {
      info <- paste0(paste(names(args), args, sep = " = ", collapse = ", "), "; margin = ", margin)
      expect_assign_equal(
        do.call(sassy_assign, c(list(tx, pp, margin = margin), args)),
        do.call(ref_assign, c(list(tx, pp, margin = margin), args)),
        info
      )
    }
  }
  # ascii, case-sensitive and not
  asc <- c("hello", "HeLLo", "world", "wOrld")
  tx <- c("xxhelloxx", "xxHELLOxx", "worldhello", "", "wxrld")
  for (ic in c(FALSE, TRUE)) {
    expect_assign_equal(
      sassy_assign(tx, asc, k = 1L, alphabet = "ascii", ignore_case = ic),
      ref_assign(tx, asc, k = 1L, alphabet = "ascii", ignore_case = ic)
    )
  }
})

test_that("#23: assignments do not depend on how records are batched (Biostrings chunks, FASTQ batches)", {
  ont <- ont_reads(120L, seed = 8L)
  expected <- sassy_assign(ont$reads, ont$barcodes, k = 3L, ends = 150L)
  if (requireNamespace("Biostrings", quietly = TRUE)) {
    withr::with_options(list(ducksassy.xstringset_chunk_records = 7L), {
      got <- sassy_assign(Biostrings::DNAStringSet(ont$reads), ont$barcodes, k = 3L, ends = 150L, threads = 2L)
    })
    expect_assign_equal(got, expected, "DNAStringSet in chunks of 7")
  }
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "reads.fq")
  writeLines(as.vector(rbind(paste0("@", names(ont$reads)), ont$reads, "+", strrep("I", nchar(ont$reads)))), fq)
  for (records in c(1L, 7L, 1000L)) {
    withr::with_options(list(ducksassy.fastx_batch_records = records), {
      got <- sassy_assign_fastx(fq, ont$barcodes, k = 3L, ends = 150L, threads = 2L)
    })
    expect_assign_equal(got, expected, paste("FASTQ batches of", records))
  }
})

test_that("#23: assignments of empty files, empty and all-NA tables", {
  p <- c(x = "ACGTACGT")
  f <- withr::local_tempfile(fileext = ".fq")
  file.create(f)
  got <- sassy_assign_fastx(f, p, k = 1L, ends = 10L)
  expect_identical(nrow(got), 0L)
  expect_identical(vapply(got, typeof, ""), assign_columns)
  if (requireNamespace("Biostrings", quietly = TRUE)) {
    got <- sassy_assign(Biostrings::DNAStringSet(character()), p)
    expect_identical(vapply(got, typeof, ""), assign_columns)
  }
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    DBI::dbWriteTable(con, "none", data.frame(id = integer(), sequence = character()))
    got <- sassy_assign_table(con, "none", p, k = 1L)
    expect_identical(nrow(got), 0L, info = driver)
    expect_identical(vapply(got, typeof, ""), c(id = "integer", assign_columns[-(1:2)]), info = driver)
    DBI::dbWriteTable(con, "nas", data.frame(id = 1:3, sequence = rep(NA_character_, 3L)))
    got <- sassy_assign_table(con, "nas", p, k = 1L, ends = 8L)
    expect_identical(got$id, 1:3, info = driver)
    expect_true(all(is.na(got[-1L])), info = driver)
    expect_identical(vapply(got, typeof, ""), c(id = "integer", assign_columns[-(1:2)]), info = driver)
  }
})

# BPPARAM: the file and table forms sharded over BiocParallel workers (as
# in test-shard.R), compared with the same call without BPPARAM, which is
# the oracle: identical rows, order, record numbers, types and levels.
skip_without_shards <- function() {
  skip_on_cran()
  skip_if_not_installed("BiocParallel")
  # socket workers load the installed package
  skip_if(
    !nzchar(system.file("Meta", "package.rds", package = "ducksassy")),
    "ducksassy is not installed (the workers load the installed package)"
  )
}

# SerialParam() (one worker, in this session) and a SnowParam() of two R
# processes, stopped when `env` ends.
assign_bpparams <- function(env = parent.frame()) {
  snow <- BiocParallel::SnowParam(workers = 2L)
  BiocParallel::bpstart(snow)
  withr::defer(BiocParallel::bpstop(snow), envir = env)
  list(serial = BiocParallel::SerialParam(), snow = snow)
}

test_that("the file and table assign verbs take BPPARAM where the count verbs do, `ends` before `margin`", {
  for (fam in c("fastx", "table")) {
    count <- names(formals(paste0("sassy_count_", fam)))
    expect_identical(
      names(formals(paste0("sassy_assign_", fam))),
      # (the both-ends mode's arguments, issue 38, after `margin`; the
      # files' mates)
      c(setdiff(count, c("sparse", "...")), "margin", "policy", "samples", "chimeras", "names",
        if (fam == "fastx") "mates", "..."),
      label = fam
    )
  }
})

test_that("#23: sassy_assign_fastx(BPPARAM = ) equals the unsharded assignment: files and record ranges", {
  skip_without_shards()
  bps <- assign_bpparams()
  ont <- ont_reads(160L, seed = 11L)
  reads <- ont$reads
  reads[3:5] <- c("", "ACGT", substr(reads[[5L]], 1L, 80L))
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "reads.fq.gz")
  con <- gzfile(fq, "wb")
  writeLines(as.vector(rbind(paste0("@", names(reads), " a comment"), reads, "+", strrep("I", nchar(reads)))), con)
  close(con)
  fa <- file.path(dir, "reads.fa")
  writeLines(as.vector(rbind(paste0(">", names(reads)[1:90]), reads[1:90])), fa)
  empty <- file.path(dir, "empty.fq")
  file.create(empty)
  lambda <- system.file("extdata", "lambda_reads_1.fq.gz", package = "ducksassy")
  statuses <- character()
  for (ends in list(NULL, 150L)) {
    for (paths in list(c(fq, fa, lambda), c(one = fq, empty, two = fa))) {
      one <- sassy_assign_fastx(paths, ont$barcodes, k = 3L, ends = ends, margin = 1L, threads = 1L)
      expect_identical(names(one)[1L], "file")
      statuses <- c(statuses, as.character(one$status))
      for (bp in names(bps)) {
        info <- paste(bp, "ends", deparse(ends), "paths", paste(names(paths), collapse = ","))
        got <- sassy_assign_fastx(paths, ont$barcodes, k = 3L, ends = ends, margin = 1L,
          threads = 1L, BPPARAM = bps[[bp]])
        expect_assign_equal(got, one, info)
      }
    }
    # one file in record ranges: two workers, two ranges
    one <- sassy_assign_fastx(fq, ont$barcodes, k = 3L, ends = ends, threads = 2L)
    expect_identical(names(one)[1L], "record")
    expect_identical(nrow(ducksassy:::shard_plan_fastx(fq, 2, NULL)), 2L)
    expect_assign_equal(
      sassy_assign_fastx(fq, ont$barcodes, k = 3L, ends = ends, threads = 2L, BPPARAM = bps$snow),
      one, paste("two ranges, ends", deparse(ends))
    )
    # uneven ranges of at most 37 records, for either parameter; a named
    # path keeps its `file` column
    withr::with_options(list(ducksassy.shard_records = 37), {
      expect_gt(nrow(ducksassy:::shard_plan_fastx(fq, 1, NULL)), 4L)
      for (bp in names(bps)) {
        expect_assign_equal(
          sassy_assign_fastx(fq, ont$barcodes, k = 3L, ends = ends, threads = 1L, BPPARAM = bps[[bp]]),
          one, paste(bp, "ranges of 37, ends", deparse(ends))
        )
        named <- c(reads = fq, lambda)
        expect_assign_equal(
          sassy_assign_fastx(named, ont$barcodes, k = 3L, ends = ends, margin = 2L, BPPARAM = bps[[bp]]),
          sassy_assign_fastx(named, ont$barcodes, k = 3L, ends = ends, margin = 2L),
          paste(bp, "ranges of 37 of two files, ends", deparse(ends))
        )
      }
    })
  }
  # the comparison had every status to get right
  expect_setequal(unique(statuses), c("assigned", "ambiguous", "unassigned"))
})

test_that("#23: sassy_assign_table(BPPARAM = ) equals the unsharded assignment (DuckDB and SQLite files)", {
  skip_without_shards()
  skip_if_not_installed("DBI")
  drivers <- intersect(c("duckdb", "RSQLite"), table_drivers())
  skip_if(length(drivers) == 0L, "no DuckDB or RSQLite")
  bps <- assign_bpparams()
  ont <- ont_reads(150L, seed = 7L)
  df <- data.frame(id = seq_along(ont$reads) + 100L, name = names(ont$reads), sequence = unname(ont$reads))
  df$sequence[c(7L, 120L)] <- NA
  df$sequence[9L] <- ""
  dir <- withr::local_tempdir()
  # the table in a database file that the workers open read-only
  file_db <- function(driver, env = parent.frame()) {
    if (driver == "duckdb") {
      path <- file.path(dir, "reads.duckdb")
      w <- suppressMessages(DBI::dbConnect(duckdb::duckdb(), path))
      DBI::dbWriteTable(w, "reads", df)
      DBI::dbDisconnect(w, shutdown = TRUE)
      con <- suppressMessages(DBI::dbConnect(duckdb::duckdb(), path, read_only = TRUE))
      withr::defer(DBI::dbDisconnect(con, shutdown = TRUE), envir = env)
    } else {
      con <- DBI::dbConnect(RSQLite::SQLite(), file.path(dir, "reads.sqlite"))
      withr::defer(DBI::dbDisconnect(con), envir = env)
      DBI::dbWriteTable(con, "reads", df)
    }
    con
  }
  for (driver in drivers) {
    con <- file_db(driver)
    query <- DBI::SQL("SELECT id, sequence FROM reads WHERE id % 3 <> 0 ORDER BY id DESC")
    for (ends in list(NULL, 150L)) {
      for (shard_rows in list(NULL, 37)) {
        withr::local_options(ducksassy.shard_rows = shard_rows)
        for (case in list(
          list(table = "reads", id = "id"),
          list(table = "reads", id = NULL),
          list(table = "reads", id = character()),
          list(table = query, id = "id")
        )) {
          one <- sassy_assign_table(con, case$table, ont$barcodes, k = 3L, ends = ends,
            margin = 1L, id = case$id, chunk_rows = 40L, threads = 1L)
          expect_gt(nrow(one), 50L)
          for (bp in names(bps)) {
            info <- paste(driver, bp, "ends", deparse(ends), "shard_rows", deparse(shard_rows),
              "id", deparse(case$id), "table", as.character(case$table))
            got <- sassy_assign_table(con, case$table, ont$barcodes, k = 3L, ends = ends,
              margin = 1L, id = case$id, chunk_rows = 40L, threads = 1L, BPPARAM = bps[[bp]])
            expect_assign_equal(got, one, info)
          }
        }
      }
    }
    # the results stay in this session: no `output`
    expect_error(
      sassy_assign_table(con, "reads", ont$barcodes, k = 3L, output = "assigned", BPPARAM = bps$serial),
      "`output` can't be used with `BPPARAM`", class = "ducksassy_input_error"
    )
  }
})
