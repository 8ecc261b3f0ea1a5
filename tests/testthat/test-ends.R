# `ends =` (issue 23): searching only the first and last letters of each
# record equals searching those end substrings with today's functions (no
# `ends`) and shifting the coordinates. The oracle below cuts the ends with
# base R's substr(), searches the pieces with sassy_search() / sassy_count()
# / sassy_contains() and maps the hits back to their records; every family
# (vectors, Biostrings, FASTA/FASTQ files, tables, the filter) must agree.

# Ends shorter than the patterns are searched on purpose here: no warning.
withr::local_options(ducksassy.warn_short_ends = FALSE)

# The pieces searched for `ends`: one per end of each record, or the whole
# record when it is no longer than both ends together (NA and empty records
# too). `record` is the record a piece comes from, `offset` the letters of
# the record before it.
ends_pieces <- function(texts, ends) {
  ends <- rep_len(as.integer(ends), 2L)
  s <- ends[[1L]]
  e <- ends[[2L]]
  pieces <- list()
  for (i in seq_along(texts)) {
    x <- texts[[i]]
    len <- if (is.na(x)) NA_integer_ else nchar(x)
    if (is.na(x) || len <= s + e) {
      pieces[[length(pieces) + 1L]] <- list(x, i, 0L)
      next
    }
    if (s > 0L) pieces[[length(pieces) + 1L]] <- list(substr(x, 1L, s), i, 0L)
    if (e > 0L) pieces[[length(pieces) + 1L]] <- list(substr(x, len - e + 1L, len), i, len - e)
  }
  list(
    texts = vapply(pieces, function(p) p[[1L]], ""),
    record = vapply(pieces, function(p) p[[2L]], 0L),
    offset = vapply(pieces, function(p) as.integer(p[[3L]]), 0L)
  )
}

# sassy_search(texts, patterns, ..., ends = ends) computed from the pieces,
# with the `seqlengths` of the whole records (named texts). (Pieces shorter
# than every pattern make sassy_search() warn that the arguments may be
# swapped: not of interest here.)
oracle_ends_search <- function(texts, patterns, ends, ...) {
  pc <- ends_pieces(texts, ends)
  h <- suppressWarnings(sassy_search(pc$texts, patterns, ...))
  rec <- pc$record[h$record]
  out <- list(record = rec)
  if (!is.null(names(texts))) out$name <- names(texts)[rec]
  for (col in setdiff(names(h), "record")) out[[col]] <- h[[col]]
  out$start <- out$start + pc$offset[h$record]
  out$end <- out$end + pc$offset[h$record]
  out <- structure(out, class = "data.frame", row.names = .set_row_names(length(rec)))
  out <- order_hits(out)
  if (!is.null(names(texts)) && nrow(out) > 0L) {
    first <- unique(out$record)
    attr(out, "seqlengths") <- stats::setNames(as.double(nchar(texts[first], type = "bytes")), names(texts)[first])
  }
  out
}

# sassy_count() / sassy_contains() with `ends`, from the pieces: the sum of
# the pieces' counts, whether any piece has a hit (NA for NA records). The
# shape and names are those of the same verb without `ends`.
oracle_ends_count <- function(texts, patterns, ends, ..., contains = FALSE) {
  pc <- ends_pieces(texts, ends)
  per_piece <- as.matrix(suppressWarnings(sassy_count(pc$texts, patterns, ...)))
  storage.mode(per_piece) <- "integer"
  summed <- rowsum(per_piece, pc$record, reorder = TRUE)
  verb <- if (contains) sassy_contains else sassy_count
  out <- verb(texts, patterns, ...)
  if (contains) {
    out[] <- as.vector(summed > 0L)
  } else {
    out[] <- as.vector(summed)
  }
  out
}

# Random records over ACGT with some N and lowercase letters, of lengths
# around the ends (shorter, equal, a little and much longer), NA and empty
# ones, patterns planted anywhere and at the edges of the ends.
ends_inputs <- function(n = 120L, seed = 1L) {
  withr::local_seed(seed)
  pats <- c(a = "ACGTTGCAAGTC", b = "GATTACAGG", c = "TTTTCCCCGGAGT")
  lens <- sample(c(0:25, 28:62, 70:90, 119:121, 150:400), n, replace = TRUE)
  letters <- c("A", "C", "G", "T", "a", "c", "g", "t", "N")
  prob <- c(rep(0.22, 4), rep(0.02, 4), 0.04)
  texts <- vapply(lens, function(l) {
    paste(sample(letters, l, replace = TRUE, prob = prob), collapse = "")
  }, "")
  texts <- oracle_plant(texts, c(unname(pats), oracle_revcomp(pats[["b"]])), c("A", "C", "G", "T"), n_edits = 2L)
  # copies across the edges of the ends (30 and 40 letters below) and at
  # the records' very starts and ends
  for (i in sample(which(nchar(texts) > 100L), 25L)) {
    p <- sample(c(pats, oracle_revcomp(pats[["a"]])), 1L)
    at <- sample(c(1L, 20L, 25L, 30L, 35L, nchar(texts[[i]]) - 45L, nchar(texts[[i]]) - nchar(p) + 1L), 1L)
    substr(texts[[i]], at, at + nchar(p) - 1L) <- tolower(p)
  }
  texts[c(3L, 50L)] <- NA_character_
  texts[7L] <- ""
  names(texts) <- sprintf("rec%03d", seq_len(n))
  list(texts = texts, patterns = pats)
}

ends_cases <- list(30L, c(40L, 0L), c(0L, 35L), c(25, 60), c(150L, 0L), 150L, c(1L, 1L))

ends_options <- list(
  list(k = 2L),
  list(k = 2L, rc = FALSE),
  list(k = 1L, all_endpoints = TRUE),
  list(k = 3L, overhang = 0.5),
  list(k = 2L, overhang = 0),
  list(k = 2L, indels = FALSE),
  list(k = 1L, indels = FALSE, rc = FALSE),
  list(k = 2L, max_n_frac = 0.1),
  list(k = 2L, cigar_style = "sam", region = TRUE),
  list(k = 2L, threads = 2L)
)

info_of <- function(args, ends) {
  paste0(paste(names(args), args, sep = " = ", collapse = ", "), "; ends = ", paste(ends, collapse = ","))
}

test_that("#23: sassy_search(ends =) equals searching the end substrings and shifting", {
  inp <- ends_inputs()
  found <- 0L
  for (ends in ends_cases) {
    for (args in ends_options) {
      info <- info_of(args, ends)
      expected <- do.call(oracle_ends_search, c(list(inp$texts, inp$patterns, ends), args))
      got <- do.call(sassy_search, c(list(inp$texts, inp$patterns), args, list(ends = ends)))
      expect_identical(got, expected, info = info)
      found <- found + nrow(expected)
    }
  }
  # the inputs have hits on both strands, at the edges of the ends
  expect_gt(found, 1000L)
  h <- sassy_search(inp$texts, inp$patterns, k = 2L, ends = 30L)
  expect_true(all(c("+", "-") %in% h$strand))
})

test_that("#23: ends with unnamed texts and patterns, text lanes off, the ascii alphabet", {
  inp <- ends_inputs(80L, seed = 2L)
  texts <- unname(inp$texts)
  pats <- unname(inp$patterns)
  for (ends in list(30L, c(0L, 50L))) {
    expect_identical(
      sassy_search(texts, pats, k = 2L, ends = ends),
      oracle_ends_search(texts, pats, ends, k = 2L),
      info = paste(ends, collapse = ",")
    )
    withr::with_envvar(c(DUCKSASSY_LANES = "off"), {
      expect_identical(
        sassy_search(texts, pats, k = 2L, ends = ends),
        oracle_ends_search(texts, pats, ends, k = 2L)
      )
      expect_identical(
        sassy_count(texts, pats, k = 2L, ends = ends),
        oracle_ends_count(texts, pats, ends, k = 2L)
      )
    })
    # ascii: case matters unless ignore_case
    for (ic in c(FALSE, TRUE)) {
      expect_identical(
        sassy_search(texts, tolower(pats), k = 1L, alphabet = "ascii", ignore_case = ic, ends = ends),
        oracle_ends_search(texts, tolower(pats), ends, k = 1L, alphabet = "ascii", ignore_case = ic)
      )
    }
  }
})

test_that("#23: sassy_count() and sassy_contains() with ends: the sums and any of the pieces", {
  inp <- ends_inputs(100L, seed = 3L)
  for (ends in ends_cases) {
    for (args in ends_options[c(1L, 2L, 3L, 4L, 6L, 8L, 10L)]) {
      info <- info_of(args, ends)
      cnt <- do.call(sassy_count, c(list(inp$texts, inp$patterns), args, list(ends = ends)))
      expect_identical(cnt, do.call(oracle_ends_count, c(list(inp$texts, inp$patterns, ends), args)), info = info)
      has <- do.call(sassy_contains, c(list(inp$texts, inp$patterns), args, list(ends = ends)))
      expect_identical(has, do.call(oracle_ends_count, c(list(inp$texts, inp$patterns, ends), args, contains = TRUE)), info = info)
    }
    # one pattern: a vector; sparse counts hold the same numbers
    expect_identical(
      sassy_count(inp$texts, inp$patterns[["a"]], k = 2L, ends = ends),
      oracle_ends_count(inp$texts, inp$patterns[["a"]], ends, k = 2L)
    )
    sp <- sassy_count(inp$texts, inp$patterns, k = 2L, ends = ends, sparse = TRUE)
    expect_s4_class(sp, "dgCMatrix")
    dense <- as.matrix(sp)
    storage.mode(dense) <- "integer"
    expect_identical(dense, oracle_ends_count(inp$texts, inp$patterns, ends, k = 2L))
  }
})

test_that("#23: ends edge cases: short, empty and NA records, one end 0, ends longer than records", {
  p <- "ACGTTGCA" # its own reverse complement: rc = FALSE below
  x <- c(
    both = paste0(p, strrep("T", 30L), p), # 46 letters, a copy at each end
    short = p,
    empty = "",
    na = NA,
    middle = paste0(strrep("T", 19L), p, strrep("T", 19L)) # 46, a copy at 20..27
  )
  # the first 10 letters only: the copy at the start, not the one at the end
  h <- sassy_search(x, p, rc = FALSE, ends = c(10L, 0L))
  expect_identical(h$name, c("both", "short"))
  expect_identical(h$start, c(1L, 1L))
  # the last 10 only, coordinates in the whole record
  h <- sassy_search(x, p, rc = FALSE, ends = c(0L, 10L))
  expect_identical(h$name, c("both", "short"))
  expect_identical(h$start, c(39L, 1L))
  expect_identical(h$end, c(46L, 8L))
  # ends = 20 cuts "middle" into two pieces that both split the copy
  expect_identical(
    sassy_count(x, p, rc = FALSE, ends = 20L),
    c(both = 2L, short = 1L, empty = 0L, na = NA, middle = 0L)
  )
  # 23 + 23 = 46 letters: records of 46 letters are searched whole
  expect_identical(
    sassy_count(x, p, rc = FALSE, ends = c(23L, 23L)),
    c(both = 2L, short = 1L, empty = 0L, na = NA, middle = 1L)
  )
  expect_identical(sassy_count(x, p, rc = FALSE, ends = c(22L, 23L))[["middle"]], 0L)
  expect_identical(sassy_count(x, p, rc = FALSE, ends = c(23L, 22L))[["middle"]], 0L)
  expect_identical(sassy_count(x, p, rc = FALSE, ends = c(27L, 0L))[["middle"]], 1L)
  expect_identical(sassy_count(x, p, rc = FALSE, ends = c(26L, 0L))[["middle"]], 0L)
  expect_identical(sassy_count(x, p, rc = FALSE, ends = c(0L, 27L))[["middle"]], 1L)
  expect_identical(sassy_count(x, p, rc = FALSE, ends = c(0L, 26L))[["middle"]], 0L)
  # ends at least as long as every record: the whole search
  for (ends in list(150L, c(150L, 0L), c(0L, 46L), c(46L, 0L), c(1000L, 1000L))) {
    info <- paste(ends, collapse = ",")
    expect_identical(sassy_search(x, p, k = 1L, ends = ends), sassy_search(x, p, k = 1L), info = info)
    expect_identical(sassy_contains(x, p, k = 1L, ends = ends), sassy_contains(x, p, k = 1L), info = info)
  }
  # zero texts, only NA, only empty
  expect_identical(sassy_search(character(), p, ends = 10L), sassy_search(character(), p))
  expect_identical(sassy_count(character(), p, ends = 10L), sassy_count(character(), p))
  expect_identical(sassy_count(c(NA_character_, NA_character_), p, ends = 5L), c(NA_integer_, NA_integer_))
  expect_identical(sassy_contains(c("", ""), p, ends = 5L), c(FALSE, FALSE))
  # overhang: an empty record and the inner edges of the ends
  for (ends in list(20L, c(10L, 0L), c(0L, 5L))) {
    expect_identical(
      sassy_search(x, p, k = 3L, overhang = 0.25, ends = ends),
      oracle_ends_search(x, p, ends, k = 3L, overhang = 0.25),
      info = paste(ends, collapse = ",")
    )
  }
  # the unsearched middle is not checked: letters outside the alphabet there
  # are no error
  y <- c(paste0("ACGTTGCAAAAA", strrep("N", 20L), "AAAAACGTTGCA"), p)
  expect_error(sassy_count(y, p, alphabet = "dna"), class = "ducksassy_input_error")
  expect_identical(sassy_count(y, p, alphabet = "dna", rc = FALSE, ends = 12L), c(2L, 1L))
  expect_error(sassy_count(y, p, alphabet = "dna", ends = 13L), class = "ducksassy_input_error")
  expect_error(sassy_count(y, p, alphabet = "dna", ends = c(0L, 13L)), class = "ducksassy_input_error")
})

test_that("#23: ends on Biostrings sets equals ends on the character vector", {
  skip_if_not_installed("Biostrings")
  inp <- ends_inputs(90L, seed = 4L)
  texts <- toupper(inp$texts[!is.na(inp$texts)])
  dna <- Biostrings::DNAStringSet(texts)
  pats <- Biostrings::DNAStringSet(inp$patterns)
  for (ends in list(30L, c(40L, 0L), c(0L, 35L))) {
    expected <- oracle_ends_search(texts, inp$patterns, ends, k = 2L)
    expect_identical(sassy_search(dna, pats, k = 2L, ends = ends), expected)
    expect_identical(sassy_search(dna, inp$patterns, k = 2L, ends = ends), expected)
    expect_identical(sassy_count(dna, pats, k = 2L, ends = ends), oracle_ends_count(texts, inp$patterns, ends, k = 2L))
    expect_identical(
      sassy_contains(dna, pats, k = 2L, ends = ends),
      oracle_ends_count(texts, inp$patterns, ends, k = 2L, contains = TRUE)
    )
  }
})

# FASTA and FASTQ files of named records (`gz`: gzip-compressed).
write_records <- function(path, texts, fastq = TRUE) {
  con <- if (endsWith(path, ".gz")) gzfile(path, "wb") else file(path, "wb")
  on.exit(close(con))
  lines <- if (fastq) {
    as.vector(rbind(paste0("@", names(texts)), texts, "+", strrep("I", nchar(texts))))
  } else {
    as.vector(rbind(paste0(">", names(texts)), texts))
  }
  writeLines(lines, con)
  invisible(path)
}

test_that("#23: ends on FASTA and FASTQ files (plain and gzip) equals ends on the records", {
  inp <- ends_inputs(100L, seed = 5L)
  texts <- inp$texts[!is.na(inp$texts)]
  dir <- withr::local_tempdir()
  files <- c(
    fa = write_records(file.path(dir, "r.fa"), texts, fastq = FALSE),
    fq = write_records(file.path(dir, "r.fq"), texts),
    fq_gz = write_records(file.path(dir, "r.fq.gz"), texts),
    fa_gz = write_records(file.path(dir, "r.fa.gz"), texts, fastq = FALSE)
  )
  for (ends in list(30L, c(40L, 0L), c(0L, 35L), c(150L, 0L))) {
    for (args in ends_options[c(1L, 3L, 4L, 6L)]) {
      info <- info_of(args, ends)
      expected <- do.call(oracle_ends_search, c(list(texts, inp$patterns, ends), args))
      expected_count <- do.call(oracle_ends_count, c(list(texts, inp$patterns, ends), args))
      for (f in files) {
        got <- do.call(sassy_search_fastx, c(list(f, inp$patterns), args, list(ends = ends)))
        expect_identical(got, expected, info = paste(f, info))
        cnt <- do.call(sassy_count_fastx, c(list(f, inp$patterns), args, list(ends = ends)))
        expect_identical(unname(as.matrix(cnt[names(inp$patterns)])), unname(expected_count), info = paste(f, info))
        expect_identical(cnt$name, names(texts))
        has <- do.call(sassy_contains_fastx, c(list(f, inp$patterns), args, list(ends = ends)))
        expect_identical(unname(as.matrix(has[names(inp$patterns)])), unname(expected_count > 0L), info = paste(f, info))
      }
    }
    # two files: a `file` column, records numbered within each file
    got <- sassy_search_fastx(unname(files[c("fa", "fq_gz")]), inp$patterns, k = 2L, ends = ends)
    expected <- oracle_ends_search(texts, inp$patterns, ends, k = 2L)
    expect_identical(got$file, rep(unname(files[c("fa", "fq_gz")]), each = nrow(expected)))
    got$file <- NULL
    expected2 <- rbind(expected, expected)
    rownames(expected2) <- NULL
    # (the lengths of the records with hits, once per name)
    attr(expected2, "seqlengths") <- attr(expected, "seqlengths")
    expect_identical(got, expected2)
  }
})

test_that("#23: sassy_filter_fastx(ends =) writes the records whose ends have a hit", {
  inp <- ends_inputs(100L, seed = 6L)
  texts <- inp$texts[!is.na(inp$texts)]
  dir <- withr::local_tempdir()
  for (src in c(write_records(file.path(dir, "r.fq"), texts), write_records(file.path(dir, "r.fa.gz"), texts, fastq = FALSE))) {
    for (ends in list(30L, c(0L, 40L))) {
      for (args in list(list(k = 2L), list(k = 1L, indels = FALSE), list(k = 3L, overhang = 0.5))) {
        has <- apply(do.call(oracle_ends_count, c(list(texts, inp$patterns, ends), args, contains = TRUE)), 1L, any)
        expect_true(any(has) && !all(has))
        for (invert in c(FALSE, TRUE)) {
          out <- file.path(dir, if (invert) "inv.fq.gz" else "out.fq")
          n <- do.call(sassy_filter_fastx, c(list(src, out, inp$patterns), args, list(invert = invert, ends = ends)))
          keep <- if (invert) !has else has
          expect_identical(n, c(read = length(texts) + 0, written = sum(keep) + 0), info = info_of(args, ends))
          back <- sassy_read_fastx(out)
          expect_identical(back$name, names(texts)[keep])
          expect_identical(back$sequence, unname(texts[keep]))
        }
      }
    }
  }
})

test_that("#23: ends on DuckDB and RSQLite tables equals ends on the column", {
  skip_without_drivers()
  for (driver in table_drivers()) {
    con <- local_db(driver)
    df <- write_fixture(con)
    for (ends in list(40L, c(50L, 0L), c(0L, 30L))) {
      for (args in list(list(k = 2L), list(k = 1L, all_endpoints = TRUE), list(k = 2L, indels = FALSE), list(k = 2L, overhang = 0.5), list(k = 2L, region = TRUE, cigar_style = "sam"))) {
        info <- paste(driver, info_of(args, ends))
        h <- do.call(oracle_ends_search, c(list(df$sequence, table_patterns, ends), args))
        expected <- list(id = df$id[h$record], name = df$name[h$record])
        for (col in setdiff(names(h), "record")) expected[[col]] <- h[[col]]
        expected <- structure(expected, class = "data.frame", row.names = .set_row_names(nrow(h)))
        for (chunk_rows in c(7L, 100000L)) {
          got <- do.call(sassy_search_table, c(list(con, "reads", table_patterns), args, list(chunk_rows = chunk_rows, ends = ends)))
          expect_identical(got, expected, info = paste(info, chunk_rows))
        }
        args$region <- args$cigar_style <- NULL
        counts <- do.call(oracle_ends_count, c(list(df$sequence, table_patterns, ends), args))
        got <- do.call(sassy_count_table, c(list(con, "reads", table_patterns), args, list(chunk_rows = 7L, ends = ends)))
        expect_identical(got$id, df$id)
        expect_identical(unname(as.matrix(got[names(table_patterns)])), unname(counts), info = info)
        got <- do.call(sassy_contains_table, c(list(con, "reads", table_patterns), args, list(chunk_rows = 7L, ends = ends)))
        expect_identical(unname(as.matrix(got[names(table_patterns)])), unname(counts > 0L), info = info)
      }
    }
    # hits streamed into a table
    sassy_search_table(con, "reads", table_patterns, k = 2L, ends = 40L, output = "hits_ends", chunk_rows = 9L)
    back <- DBI::dbReadTable(con, "hits_ends")
    expected <- sassy_search_table(con, "reads", table_patterns, k = 2L, ends = 40L)
    expect_identical(nrow(back), nrow(expected))
    expect_equal(order_by_all(back[names(expected)]), order_by_all(expected), ignore_attr = TRUE, info = driver)
  }
})

test_that("#23: bad ends are classed errors naming `ends`, in every verb", {
  x <- c("ACGTTGCAACGT", "TTTT")
  bad <- list(
    -1L, -0.5, 1.5, NA, NA_integer_, NA_real_, NaN, Inf, "10", TRUE,
    c(1L, 2L, 3L), integer(), list(10L), c(10L, NA), 0L, c(0L, 0L), 0,
    2^31, 1i, factor(10)
  )
  for (ends in bad) {
    info <- paste(deparse(ends), collapse = "")
    for (f in list(sassy_search, sassy_count, sassy_contains, sassy_assign)) {
      cnd <- tryCatch(f(x, "ACGT", ends = ends), error = function(e) e)
      expect_s3_class(cnd, "ducksassy_input_error")
      expect_identical(cnd$arg, "ends", info = info)
      expect_true(grepl("`ends`", conditionMessage(cnd), fixed = TRUE), info = info)
    }
  }
  dir <- withr::local_tempdir()
  fq <- write_records(file.path(dir, "r.fq"), c(r1 = "ACGTTGCA"))
  for (ends in list(-1L, c(0L, 0L), 1.5, "5")) {
    expect_error(sassy_search_fastx(fq, "ACGT", ends = ends), class = "ducksassy_input_error")
    expect_error(sassy_count_fastx(fq, "ACGT", ends = ends), class = "ducksassy_input_error")
    expect_error(sassy_contains_fastx(fq, "ACGT", ends = ends), class = "ducksassy_input_error")
    expect_error(sassy_assign_fastx(fq, "ACGT", ends = ends), class = "ducksassy_input_error")
    expect_error(sassy_filter_fastx(fq, file.path(dir, "o.fq"), "ACGT", ends = ends), class = "ducksassy_input_error")
    expect_false(file.exists(file.path(dir, "o.fq")))
  }
  if (requireNamespace("RSQLite", quietly = TRUE)) {
    con <- local_db("RSQLite")
    write_fixture(con)
    for (ends in list(-1L, c(0L, 0L))) {
      expect_error(sassy_search_table(con, "reads", "ACGT", ends = ends), class = "ducksassy_input_error")
      expect_error(sassy_count_table(con, "reads", "ACGT", ends = ends), class = "ducksassy_input_error")
      expect_error(sassy_assign_table(con, "reads", "ACGT", ends = ends), class = "ducksassy_input_error")
    }
  }
  # not an argument of the CRISPR searches
  expect_error(
    sassy_crispr("ACGTACGTACGTACGTACGTNGG", "TTTTACGTACGTACGTACGTACGTTGGTTTT", k = 1L, ends = 10L),
    class = "ducksassy_error"
  )
})

test_that("#23: ends results do not depend on how records are batched (Biostrings chunks, FASTQ batches)", {
  inp <- ends_inputs(90L, seed = 9L)
  texts <- toupper(inp$texts[!is.na(inp$texts)])
  expected <- oracle_ends_search(texts, inp$patterns, c(30L, 20L), k = 2L)
  expected_count <- oracle_ends_count(texts, inp$patterns, c(30L, 20L), k = 2L)
  if (requireNamespace("Biostrings", quietly = TRUE)) {
    withr::with_options(list(ducksassy.xstringset_chunk_records = 7L), {
      dna <- Biostrings::DNAStringSet(texts)
      expect_identical(sassy_search(dna, inp$patterns, k = 2L, ends = c(30L, 20L), threads = 2L), expected)
      expect_identical(sassy_count(dna, inp$patterns, k = 2L, ends = c(30L, 20L)), expected_count)
    })
  }
  dir <- withr::local_tempdir()
  fq <- write_records(file.path(dir, "r.fq"), texts)
  for (records in c(1L, 7L)) {
    withr::with_options(list(ducksassy.fastx_batch_records = records), {
      expect_identical(sassy_search_fastx(fq, inp$patterns, k = 2L, ends = c(30L, 20L), threads = 2L), expected)
      cnt <- sassy_count_fastx(fq, inp$patterns, k = 2L, ends = c(30L, 20L), threads = 2L)
      expect_identical(unname(as.matrix(cnt[names(inp$patterns)])), unname(expected_count))
    })
  }
})

test_that("#23: ends on long reads with many equal-length patterns (batched search) equals the pieces' search", {
  withr::local_seed(24L)
  bcs <- vapply(1:24, function(i) paste(sample(c("A", "C", "G", "T"), 24L, TRUE), collapse = ""), "")
  names(bcs) <- sprintf("BC%02d", 1:24)
  reads <- vapply(1:120, function(i) {
    x <- paste(sample(c("A", "C", "G", "T"), sample(500:4000, 1L), TRUE), collapse = "")
    b <- bcs[[sample.int(24L, 1L)]]
    # 20-60 after the start, across the edge of the first 150, or its
    # reverse complement 60-100 before the end
    for (at in c(sample(c(20:60, 135:150), 1L), nchar(x) - sample(60:100, 1L))) {
      x <- paste0(substr(x, 1L, at), if (at > 500L) oracle_revcomp(b) else b, substr(x, at + 1L, nchar(x)))
    }
    x
  }, "")
  names(reads) <- sprintf("read%03d", seq_along(reads))
  for (args in list(list(k = 3L), list(k = 3L, all_endpoints = TRUE), list(k = 2L, indels = FALSE), list(k = 3L, overhang = 0.4), list(k = 3L, rc = FALSE, threads = 2L))) {
    for (ends in list(150L, c(150L, 0L), c(0L, 120L))) {
      info <- info_of(args, ends)
      expected <- do.call(oracle_ends_search, c(list(reads, bcs, ends), args))
      expect_identical(do.call(sassy_search, c(list(reads, bcs), args, list(ends = ends))), expected, info = info)
      expect_identical(
        do.call(sassy_count, c(list(reads, bcs), args, list(ends = ends))),
        do.call(oracle_ends_count, c(list(reads, bcs, ends), args)),
        info = info
      )
    }
  }
  expect_gt(nrow(sassy_search(reads, bcs, k = 3L, ends = 150L)), 150L)
})

test_that("#23: ends is carried to the BiocParallel workers", {
  skip_on_cran()
  skip_if_not_installed("BiocParallel")
  skip_if(
    !nzchar(system.file("Meta", "package.rds", package = "ducksassy")),
    "ducksassy is not installed (the workers load the installed package)"
  )
  inp <- ends_inputs(100L, seed = 10L)
  texts <- inp$texts[!is.na(inp$texts)]
  dir <- withr::local_tempdir()
  fq <- write_records(file.path(dir, "r.fq"), texts)
  bp <- BiocParallel::SnowParam(workers = 2L)
  BiocParallel::bpstart(bp)
  on.exit(BiocParallel::bpstop(bp), add = TRUE)
  expected <- oracle_ends_search(texts, inp$patterns, c(30L, 40L), k = 2L)
  expect_identical(sassy_search_fastx(fq, inp$patterns, k = 2L, ends = c(30L, 40L), BPPARAM = bp), expected)
  cnt <- sassy_count_fastx(fq, inp$patterns, k = 2L, ends = c(30L, 40L), BPPARAM = bp)
  expect_identical(unname(as.matrix(cnt[names(inp$patterns)])), unname(oracle_ends_count(texts, inp$patterns, c(30L, 40L), k = 2L)))
})
