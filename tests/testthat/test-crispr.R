# sassy_crispr(): against a brute-force oracle of the definition (edit
# distance over guide + PAM, PAM letters aligned to text letters without
# edits unless allow_pam_edits, N fraction of the reported region at most
# max_n_frac, every qualifying end position), the argument checks, and the
# file form. The Rust core has the heavier oracle tests (random genomes,
# windows, threads, the whole E. coli genome: src/rust/core/tests/crispr.rs).

# ---------------------------------------------------------------------------
# Oracle

crispr_bits <- c(
  A = 1L, C = 2L, G = 4L, T = 8L, U = 8L, R = 5L, Y = 10L, S = 6L, W = 9L,
  K = 12L, M = 3L, B = 14L, D = 13L, H = 11L, V = 7L, N = 15L, X = 0L
)
to_bits <- function(s) unname(crispr_bits[strsplit(toupper(s), "")[[1L]]])

revcomp_chr <- function(s) {
  paste(rev(strsplit(chartr("ACGTURYKMBVDHacgturykmbvdh", "TGCAAYRMKVBHDtgcaayrmkvbhd", s), "")[[1L]]), collapse = "")
}

# Cost of `pat` (bits) against text[(end - j + 1):end] for j = 0..(m + k),
# anchored at `end`; returns list(cost, j values reaching it) or NULL (> k).
anchored_cost <- function(pat, tb, end, k) {
  m <- length(pat)
  w <- min(m + k, end)
  prev <- 0:w
  for (i in seq_len(m)) {
    cur <- integer(w + 1L)
    cur[1L] <- i
    p <- pat[m - i + 1L]
    for (j in seq_len(w)) {
      sub <- prev[j] + (bitwAnd(p, tb[end - j + 1L]) == 0L)
      cur[j + 1L] <- min(sub, prev[j + 1L] + 1L, cur[j] + 1L)
    }
    if (min(cur) > k) {
      return(NULL)
    }
    prev <- cur
  }
  best <- min(prev)
  if (best > k) NULL else list(cost = best, j = which(prev == best) - 1L)
}

n_frac_ok <- function(region, max) {
  n <- nchar(gsub("[^Nn]", "", region))
  nchar(region) == 0L || n / nchar(region) <= max
}

# Every qualifying end position of one guide on one strand's text `t`:
# data frame of end (1-based inclusive end on that strand), cost, and
# `must` (TRUE: every optimal region passes the N filter, FALSE: none does,
# NA: either), `starts` (list of optimal 1-based starts).
oracle_strand <- function(guide, t, k, pam_length, allow, max_n_frac) {
  g <- to_bits(guide)
  tb <- if (nchar(t) > 0L) to_bits(t) else integer()
  searched <- if (allow) g else g[seq_len(length(g) - pam_length)]
  pam <- if (allow) integer() else g[length(g) - pam_length + seq_len(pam_length)]
  out <- list()
  for (e in seq_len(length(tb))) {
    sp_end <- e - length(pam)
    if (sp_end < 0L) next
    if (length(pam) > 0L && any(bitwAnd(pam, tb[sp_end + seq_along(pam)]) == 0L)) next
    r <- anchored_cost(searched, tb, sp_end, k)
    if (is.null(r)) next
    starts <- sp_end - r$j + 1L
    pass <- vapply(starts, function(s) n_frac_ok(substr(t, s, e), max_n_frac), logical(1))
    must <- if (all(pass)) TRUE else if (!any(pass)) FALSE else NA
    out[[length(out) + 1L]] <- list(end = e, cost = r$cost, must = must, starts = starts)
  }
  out
}

# Compare sassy_crispr() hits with the oracle for every text and guide.
expect_crispr_oracle <- function(hits, guides, texts, k, pam_length = 3L,
                                 allow = FALSE, max_n_frac = 0.2, rc = TRUE) {
  expect_identical(
    names(hits)[names(hits) != "name"],
    c("record", "guide", "start", "end", "pattern_start", "pattern_end", "cost", "strand", "cigar")
  )
  for (ti in seq_along(texts)) {
    t <- texts[[ti]]
    n <- nchar(t)
    for (gi in seq_along(guides)) {
      ctx <- paste0("text ", ti, " guide ", gi, " (", guides[[gi]], ")")
      h <- hits[hits$record == ti & hits$guide == gi, , drop = FALSE]
      if (is.na(t)) {
        expect_equal(nrow(h), 0L, info = ctx)
        next
      }
      want <- list(
        "+" = oracle_strand(guides[[gi]], t, k, pam_length, allow, max_n_frac),
        "-" = if (rc) oracle_strand(guides[[gi]], revcomp_chr(t), k, pam_length, allow, max_n_frac) else list()
      )
      seen <- character()
      for (i in seq_len(nrow(h))) {
        s <- h$strand[[i]]
        key_end <- if (s == "+") h$end[[i]] else n - h$start[[i]] + 1L
        key <- paste(s, key_end)
        expect_false(key %in% seen, info = paste(ctx, "twice:", key))
        seen <- c(seen, key)
        w <- Filter(function(x) x$end == key_end, want[[s]])
        expect_length(w, 1L)
        if (length(w) != 1L) next
        w <- w[[1L]]
        expect_false(isFALSE(w$must), info = paste(ctx, key, "should be dropped"))
        expect_equal(h$cost[[i]], w$cost, info = paste(ctx, key))
        strand_start <- if (s == "+") h$start[[i]] else n - h$end[[i]] + 1L
        expect_true(strand_start %in% w$starts, info = paste(ctx, key, "start"))
        expect_equal(h$pattern_start[[i]], 1L)
        expect_equal(h$pattern_end[[i]], nchar(guides[[gi]]))
        if (!allow) {
          expect_match(h$cigar[[i]], "[0-9]+=$", info = ctx)
          expect_gte(as.integer(sub(".*[^0-9]([0-9]+)=$", "\\1", paste0("^", h$cigar[[i]]))), pam_length)
        }
      }
      for (strand in c("+", "-")) {
        for (w in want[[strand]]) {
          if (isTRUE(w$must)) {
            expect_true(paste(strand, w$end) %in% seen, info = paste(ctx, "missing", strand, w$end))
          }
        }
      }
    }
  }
}

random_dna <- function(n, letters = c("A", "C", "G", "T")) {
  paste(sample(letters, n, replace = TRUE), collapse = "")
}

# ---------------------------------------------------------------------------
# Against the oracle

test_that("hits equal the brute-force oracle on random texts", {
  set.seed(11)
  for (case in 1:25) {
    pam_length <- sample(1:3, 1)
    pam <- switch(pam_length, "G", "AG", "NGG")
    guides <- vapply(1:sample(1:3, 1), function(i) {
      paste0(random_dna(sample(5:10, 1)), pam)
    }, "")
    allow <- case %% 4 == 0
    min_len <- min(nchar(guides)) - if (allow) 0L else pam_length
    k <- sample(0:min(2, min_len - 1L), 1)
    max_n_frac <- sample(c(0, 0.2, 1), 1)
    texts <- vapply(1:3, function(i) {
      t <- random_dna(sample(0:60, 1), c("A", "C", "G", "T", "A", "C", "G", "T", "N"))
      if (nchar(t) > 20) {
        g <- gsub("N", "A", guides[[1L]])
        if (runif(1) < 0.5) g <- revcomp_chr(g)
        at <- sample(0:(nchar(t) - nchar(g)), 1)
        substr(t, at + 1L, at + nchar(g)) <- g
      }
      t
    }, "")
    texts[sample(3, 1)] <- if (case %% 5 == 0) NA else texts[sample(3, 1)]
    rc <- case %% 3 != 0
    hits <- sassy_crispr(texts, guides, k = k, pam_length = pam_length,
      allow_pam_edits = allow, max_n_frac = max_n_frac, rc = rc, threads = 2L)
    expect_crispr_oracle(hits, guides, texts, k, pam_length, allow, max_n_frac, rc)
  }
})

test_that("a guide with its PAM is found where it was planted, on both strands", {
  guide <- "GACGCATAAAGATGAGACGCTGG"
  spacer <- substr(guide, 1, 20)
  fwd <- paste0("TTTTT", spacer, "AGG", "CCCCC")
  rev <- revcomp_chr(fwd)
  hits <- sassy_crispr(c(f = fwd, r = rev), paste0(spacer, "NGG"), k = 0)
  expect_identical(hits$name, c("f", "r"))
  expect_identical(hits$start, c(6L, 6L))
  expect_identical(hits$end, c(28L, 28L))
  expect_identical(hits$strand, c("+", "-"))
  expect_identical(hits$cigar, c("23=", "23="))
  expect_identical(substr(fwd, 6, 28), paste0(spacer, "AGG"))
})

test_that("the PAM must match exactly unless allow_pam_edits", {
  spacer <- "ACGTACGTACGT"
  text <- paste0("TTTT", spacer, "AGC", "TTTT") # PAM broken
  expect_equal(nrow(sassy_crispr(text, paste0(spacer, "NGG"), k = 1, rc = FALSE)), 0L)
  h <- sassy_crispr(text, paste0(spacer, "NGG"), k = 1, rc = FALSE, allow_pam_edits = TRUE)
  expect_true(any(h$cost == 1L & h$end == 19L))
  expect_crispr_oracle(h, paste0(spacer, "NGG"), text, 1, 3L, TRUE, 0.2, FALSE)
})

test_that("every qualifying end position is reported", {
  # the site followed by AGGG ends twice: after AGG (cost 0), after GGG (cost 1)
  spacer <- "ACGTTGCAACGT"
  text <- paste0("CCCC", spacer, "AGGG", "CCCC")
  h <- sassy_crispr(text, paste0(spacer, "NGG"), k = 1, rc = FALSE)
  expect_identical(h$end, c(19L, 20L))
  expect_identical(h$cost, c(0L, 1L))
})

test_that("runs of N are dropped by max_n_frac", {
  guide <- "ACGTACGTACGTACGTACGTNGG"
  text <- paste0(strrep("ACGT", 5), strrep("N", 100), "TTGACC")
  h <- sassy_crispr(text, guide, k = 2)
  # the real site ACGT x 5 + NNN (3 N in 23 letters) stays, the run does not
  expect_true(any(h$start == 1L & h$end == 23L & h$cost == 0L))
  expect_lt(nrow(h), 10L)
  regions <- substring(text, h$start, h$end)
  expect_true(all(nchar(gsub("[^N]", "", regions)) / nchar(regions) <= 0.2))
  expect_equal(nrow(sassy_crispr(text, guide, k = 2, max_n_frac = 0)), 0L)
  all <- sassy_crispr(text, guide, k = 2, max_n_frac = 1)
  expect_gt(nrow(all), 100L)
  expect_identical(sassy_crispr(text, guide, k = 2, max_n_frac = NULL), all)
})

test_that("guides of different lengths and PAMs mix in one call", {
  set.seed(3)
  genome <- random_dna(3000)
  substr(genome, 121, 123) <- "TGG"
  substr(genome, 1018, 1020) <- "CAG"
  substr(genome, 2025, 2027) <- "GAG"
  g1 <- paste0(substr(genome, 101, 120), "NGG")
  g2 <- paste0(substr(genome, 1001, 1017), "NAG")
  g3 <- paste0(substr(genome, 2001, 2024), "RRG")
  guides <- c(g1, g2, g3)
  both <- sassy_crispr(genome, guides, k = 2)
  for (i in 1:3) {
    one <- sassy_crispr(genome, guides[[i]], k = 2)
    mine <- both[both$guide == i, ]
    expect_gt(nrow(one), 0L)
    mine$guide <- rep(1L, nrow(mine))
    row.names(mine) <- NULL
    expect_identical(mine, one)
  }
})

test_that("one PAM length per guide mixes SpCas9 and SaCas9 guides", {
  set.seed(4)
  genome <- random_dna(4000)
  substr(genome, 121, 123) <- "TGG"
  substr(genome, 2021, 2026) <- "CAGAAT"
  guides <- c(sp = paste0(substr(genome, 101, 120), "NGG"), sa = paste0(substr(genome, 2000, 2020), "NNGRRT"))
  both <- sassy_crispr(genome, guides, k = 3, pam_length = c(3L, 6L))
  expect_true(all(c(1L, 2L) %in% both$guide[both$cost == 0L]))
  for (i in 1:2) {
    one <- sassy_crispr(genome, guides[[i]], k = 3, pam_length = c(3L, 6L)[[i]])
    mine <- both[both$guide == i, ]
    # the guides' names travel into guide_name
    expect_identical(mine$guide_name, rep(names(guides)[[i]], nrow(mine)))
    mine$guide_name <- NULL
    mine$guide <- rep(1L, nrow(mine))
    row.names(mine) <- NULL
    expect_identical(mine, one)
    expect_crispr_oracle(one, guides[[i]], genome, 3, c(3L, 6L)[[i]])
  }
  e <- expect_error(sassy_crispr(genome, guides, k = 3, pam_length = c(3L, 6L, 3L)),
    class = "ducksassy_input_error")
  expect_identical(e$arg, "pam_length")
  e <- expect_error(sassy_crispr(genome, guides, k = 3, pam_length = c(3L, 30L)),
    class = "ducksassy_input_error")
  expect_identical(e$index, 2L)
  expect_match(conditionMessage(e), "pam_length[2]", fixed = TRUE)
  e <- expect_error(sassy_crispr(genome, guides, k = 3, pam_length = c(3L, NA)),
    class = "ducksassy_input_error")
  expect_identical(e$index, 2L)
  # k is checked against each guide's own spacer
  # (spacers of 20 and 21 letters: k = 20 is too large for the first only)
  e <- expect_error(sassy_crispr(genome, guides, k = 20, pam_length = c(3L, 6L)),
    class = "ducksassy_input_error")
  expect_identical(e$index, 1L)
  expect_silent(sassy_crispr(genome, guides[2], k = 20, pam_length = 6L))
})

test_that("texts shorter than the guide or the PAM give empty results", {
  guides <- c("ACGTACGTAGG", "TTTTTGG")
  texts <- c("", "A", "GG", "AGG", "TTTTGG", NA, "NNN")
  for (k in 0:2) {
    # (every text is shorter than every guide: with k = 0 the arguments
    # look swapped, a warning tested in test-regressions.R)
    h <- withCallingHandlers(sassy_crispr(texts, guides, k = k),
      ducksassy_swapped_arguments_warning = function(w) invokeRestart("muffleWarning")
    )
    expect_crispr_oracle(h, guides, texts, k)
  }
  expect_equal(nrow(sassy_crispr(character(), guides, k = 1)), 0L)
  empty <- sassy_crispr(character(), guides, k = 1)
  expect_identical(names(empty), c(
    "record", "guide", "start", "end", "pattern_start", "pattern_end",
    "cost", "strand", "cigar"
  ))
})

test_that("results do not depend on the number of threads", {
  set.seed(5)
  texts <- vapply(1:40, function(i) random_dna(500), "")
  guides <- vapply(1:6, function(i) paste0(substr(texts[[i]], 50, 69), "NGG"), "")
  one <- sassy_crispr(texts, guides, k = 3, threads = 1L)
  expect_gt(nrow(one), 0L)
  expect_identical(sassy_crispr(texts, guides, k = 3, threads = 2L), one)
  expect_identical(sassy_crispr(texts, guides, k = 3, threads = 4L), one)
})

test_that("cigar = FALSE gives NA cigars and the same coordinates", {
  set.seed(8)
  texts <- vapply(1:5, function(i) random_dna(300), "")
  guides <- paste0(substr(texts[[2]], 10, 29), "NGG")
  a <- sassy_crispr(texts, guides, k = 3)
  b <- sassy_crispr(texts, guides, k = 3, cigar = FALSE)
  expect_true(all(is.na(b$cigar)))
  a$cigar <- NA_character_
  expect_identical(a, b)
})

# ---------------------------------------------------------------------------
# E. coli (Debian's bowtie-examples), checked on a window around each hit

ecoli_path <- function() {
  paths <- c(
    "/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz",
    "/usr/share/bowtie-examples/genomes/NC_008253.fna.gz"
  )
  paths[file.exists(paths)][1]
}

test_that("a guide panel on the E. coli genome agrees with the oracle", {
  path <- ecoli_path()
  skip_if(is.na(path), "bowtie-examples E. coli genome not installed")
  lines <- readLines(path)
  genome <- paste(lines[!startsWith(lines, ">")], collapse = "")
  expect_gt(nchar(genome), 4e6)
  # guides: 20-mers followed by NGG in the genome, and mutated copies
  set.seed(42)
  starts <- c(250001L, 1300001L, 2700001L, 4100001L)
  guides <- character()
  for (s in starts) {
    w <- substr(genome, s, s + 200L)
    at <- regexpr("[ACGT]{21}GG", w)
    g <- paste0(substr(w, at, at + 19L), "NGG")
    m <- g
    for (i in sample(20, 2)) substr(m, i, i) <- sample(c("A", "C", "G", "T"), 1)
    guides <- c(guides, g, m)
  }
  k <- 3L
  hits <- sassy_crispr(c(chr = genome), guides, k = k, threads = 2L)
  expect_true(all(hits$cost <= k))
  # the unmutated guides are found exactly
  for (gi in seq(1, length(guides), by = 2)) {
    expect_true(any(hits$guide == gi & hits$cost == 0L), info = guides[[gi]])
  }
  # every hit: the oracle on a window around it agrees on the cost and start
  pad <- 40L
  for (i in seq_len(nrow(hits))) {
    from <- max(1L, hits$start[[i]] - pad)
    to <- min(nchar(genome), hits$end[[i]] + pad)
    win <- substr(genome, from, to)
    h <- hits[i, ]
    g <- guides[[h$guide]]
    if (h$strand == "+") {
      want <- oracle_strand(g, win, k, 3L, FALSE, 0.2)
      e <- h$end - from + 1L
      s <- h$start - from + 1L
    } else {
      want <- oracle_strand(g, revcomp_chr(win), k, 3L, FALSE, 0.2)
      e <- to - h$start + 1L
      s <- to - h$end + 1L
    }
    w <- Filter(function(x) x$end == e, want)
    expect_length(w, 1L)
    expect_equal(w[[1L]]$cost, h$cost)
    expect_true(s %in% w[[1L]]$starts)
  }
  # completeness for substitutions: every Biostrings match of a spacer with
  # at most k mismatches followed by an NGG is a hit (cost <= mismatches)
  skip_if_not_installed("Biostrings")
  dna <- Biostrings::DNAString(genome)
  for (gi in seq_along(guides)) {
    spacer <- substr(guides[[gi]], 1, 20)
    m <- Biostrings::matchPattern(spacer, dna, max.mismatch = k)
    ends <- IRanges::end(m)
    pam_ok <- ends + 3L <= nchar(genome) &
      substr(rep(genome, length(ends)), ends + 2L, ends + 3L) == "GG"
    for (e in ends[pam_ok]) {
      expect_true(any(hits$guide == gi & hits$strand == "+" & hits$end == e + 3L),
        info = paste("guide", gi, "end", e + 3L))
    }
    # the minus strand: the reverse complement of the spacer after CCN
    m <- Biostrings::matchPattern(revcomp_chr(spacer), dna, max.mismatch = k)
    starts <- IRanges::start(m)
    pam_ok <- starts > 3L & substr(rep(genome, length(starts)), starts - 3L, starts - 2L) == "CC"
    for (s in starts[pam_ok]) {
      expect_true(any(hits$guide == gi & hits$strand == "-" & hits$start == s - 3L),
        info = paste("guide", gi, "minus start", s - 3L))
    }
  }
})

# ---------------------------------------------------------------------------
# Files

test_that("sassy_crispr_fastx() gives the hits of sassy_crispr() on the records", {
  path <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  skip_if(path == "", "lambda_virus.fa not installed")
  recs <- sassy_read_fastx(path)
  genome <- recs$sequence[[1L]]
  guides <- c(paste0(substr(genome, 1001, 1020), "NGG"), "ACGTTGCATTGACGATCGAANGG")
  want <- sassy_crispr(stats::setNames(recs$sequence, recs$name), guides, k = 3)
  got <- sassy_crispr_fastx(path, guides, k = 3)
  expect_identical(got, want)
  gz <- tempfile(fileext = ".fa.gz")
  con <- gzfile(gz, "w")
  writeLines(c(">lambda", genome), con)
  close(con)
  two <- sassy_crispr_fastx(c(path, gz), guides, k = 3)
  expect_identical(two$file, rep(c(path, gz), each = nrow(want)))
  expect_error(sassy_crispr_fastx(tempfile(), guides, k = 1), class = "ducksassy_error")
})

test_that("sassy_crispr_table() gives the hits of sassy_crispr() row for row", {
  skip_if_not_installed("DBI")
  skip_if_not_installed("RSQLite")
  set.seed(9)
  seqs <- vapply(1:30, function(i) random_dna(200), "")
  seqs[[7]] <- NA
  guides <- c(paste0(substr(seqs[[3]], 20, 39), "NGG"), paste0(substr(seqs[[20]], 100, 119), "NAG"))
  substr(seqs[[3]], 40, 42) <- "TGG"
  substr(seqs[[20]], 120, 122) <- "CAG"
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con), add = TRUE)
  DBI::dbWriteTable(con, "reads", data.frame(read_id = sprintf("r%02d", 1:30), seq = seqs))
  want <- sassy_crispr(seqs, guides, k = 3)
  expect_gt(nrow(want), 1L)
  got <- sassy_crispr_table(con, "reads", guides, k = 3, column = "seq", id = character(), chunk_rows = 4L)
  expect_identical(got, want)
  by_id <- sassy_crispr_table(con, "reads", guides, k = 3, column = "seq", id = "read_id", chunk_rows = 7L)
  expect_identical(by_id$read_id, sprintf("r%02d", want$record))
  expect_identical(by_id[-1], want[-1])
  n <- sassy_crispr_table(con, "reads", guides, k = 3, column = "seq", id = "read_id", output = "offtargets")
  expect_equal(n, nrow(want))
  expect_equal(DBI::dbReadTable(con, "offtargets"), by_id)
  q <- sassy_crispr_table(con, DBI::SQL("SELECT seq FROM reads WHERE read_id > 'r10'"), guides, k = 3, column = "seq")
  expect_identical(q$record, want$record[want$record > 10] - 10L)
  expect_identical(q$end, want$end[want$record > 10])
  DBI::dbWriteTable(con, "bad", data.frame(sequence = c("ACGT", "ACG-T")))
  e <- expect_error(sassy_crispr_table(con, "bad", guides, k = 1), class = "ducksassy_input_error")
  expect_identical(e$index, 2)
  expect_match(conditionMessage(e), "Row 2")
  withr::local_options(ducksassy.max_hits = 1)
  expect_error(sassy_crispr_table(con, "reads", guides, k = 3, column = "seq", chunk_rows = 4L),
    class = "ducksassy_limit_error")
  expect_error(sassy_crispr_table("con", "reads", guides, k = 3), class = "ducksassy_error")
})

# ---------------------------------------------------------------------------
# Errors

test_that("bad arguments are classed errors naming argument, index and value", {
  g <- c("ACGTACGTNGG", "ACGTACGTAGG")
  expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, pam_length = 0), class = "ducksassy_input_error")
  e <- expect_error(sassy_crispr("ACGTACGTACGTA", c(g, "AGG"), k = 1), class = "ducksassy_input_error")
  expect_identical(e$arg, "pam_length")
  expect_identical(e$index, 3L)
  expect_match(conditionMessage(e), "guides[3]", fixed = TRUE)
  e <- expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, pam_length = 11), class = "ducksassy_input_error")
  expect_identical(e$arg, "pam_length")
  expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, pam_length = 2.5), class = "ducksassy_input_error")
  expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, pam_length = NA), class = "ducksassy_input_error")
  for (bad in list(-0.1, 1.5, NA, "a", c(0.1, 0.2))) {
    e <- expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, max_n_frac = bad), class = "ducksassy_input_error")
    expect_identical(e$arg, "max_n_frac")
  }
  e <- expect_error(sassy_crispr("ACGTACGTACGTA", c(g, "ACGTZCGTNGG"), k = 1), class = "ducksassy_input_error")
  expect_identical(e$arg, "guides")
  expect_identical(e$index, 3L)
  expect_identical(e$value, "ACGTZCGTNGG")
  expect_match(conditionMessage(e), "\"Z\" at position 5", fixed = TRUE)
  expect_error(sassy_crispr("ACGTACGTACGTA", c("ACGTACGTNGG", NA), k = 1), class = "ducksassy_input_error")
  expect_error(sassy_crispr("ACGTACGTACGTA", c("ACGTACGTNGG", ""), k = 1), class = "ducksassy_input_error")
  expect_error(sassy_crispr("ACGTACGTACGTA", character(), k = 1), class = "ducksassy_input_error")
  expect_error(sassy_crispr("ACGTACGTACGTA", list("ACGTACGTNGG"), k = 1), class = "ducksassy_input_error")
  # k must be below the spacer length (8 here), or the guide length with PAM edits
  e <- expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 8), class = "ducksassy_input_error")
  expect_identical(e$arg, "k")
  expect_identical(e$index, 1L)
  expect_silent(sassy_crispr("ACGTACGTACGTA", g, k = 8, allow_pam_edits = TRUE))
  expect_error(sassy_crispr("ACGTACGTACGTA", g, k = -1), class = "ducksassy_input_error")
  expect_error(sassy_crispr("ACGTACGTACGTA", g), "k")
  expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, rc = NA), class = "ducksassy_input_error")
  expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, allow_pam_edits = "yes"), class = "ducksassy_input_error")
  expect_error(sassy_crispr("ACGTACGTACGTA", g, k = 1, threads = 0), class = "ducksassy_input_error")
  # a bad letter in a text names the record
  e <- expect_error(sassy_crispr(c("ACGTACGTACGTA", "ACGT-A"), g, k = 1), class = "ducksassy_input_error")
  expect_identical(e$index, 2L)
  expect_match(conditionMessage(e), "texts", fixed = TRUE)
  # too many hits is an error, never a truncated table
  withr::local_options(ducksassy.max_hits = 3)
  expect_error(
    sassy_crispr(strrep("ACGTACGTAGG", 10), "ACGTACGTNGG", k = 0),
    class = "ducksassy_limit_error"
  )
})

test_that("the Rust side rejects what slips past R", {
  # called directly, the binding validates again and returns an error value
  crispr <- function(guides, k = 1L, pam_length = 3L, max_n_frac = 0.2) {
    ds_crispr("ACGT", new_plan(guides, k, max_n_frac = max_n_frac,
      mode = "hits", all_endpoints = TRUE, pam_length = pam_length), NULL)
  }
  res <- crispr("ACGTAGG", pam_length = 0L)
  expect_s3_class(res, "ducksassy_rust_error")
  expect_identical(res$arg, "pam_length")
  res <- crispr("ACGTAGG", max_n_frac = 2)
  expect_identical(res$arg, "max_n_frac")
  res <- crispr(c("ACGTAGG", "AC!TAGG"))
  expect_identical(res$arg, "guides")
  expect_identical(res$index, 2L)
  res <- crispr("ACGTAGG", k = 4L)
  expect_identical(res$arg, "k")
  # a pam_length of the wrong type is caught by R's shape checks; called
  # directly, the binding names the plan field
  res <- crispr("ACGTAGG", pam_length = "3")
  expect_identical(res$kind, "internal")
  expect_match(res$message, "pam_length", fixed = TRUE)
  res <- crispr(c("ACGTAGG", "ACGTAGG"), pam_length = c(3L, 7L))
  expect_identical(res$arg, "pam_length")
  expect_identical(res$index, 2L)
  res <- crispr("ACGTAGG", pam_length = c(3L, 3L))
  expect_identical(res$arg, "pam_length")
})

test_that("a missing k is a classed error in every CRISPR form", {
  fa <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  expect_error(sassy_crispr("ACGTAGG", "ACGTNGG"), class = "ducksassy_input_error", regexp = "`k` is missing")
  expect_error(sassy_crispr_fastx(fa, "ACGTNGG"), class = "ducksassy_input_error", regexp = "`k` is missing")
  skip_if_not_installed("RSQLite")
  con <- DBI::dbConnect(RSQLite::SQLite())
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "t", data.frame(sequence = "ACGTAGG"))
  expect_error(sassy_crispr_table(con, "t", "ACGTNGG"), class = "ducksassy_input_error", regexp = "`k` is missing")
})

test_that("indels = FALSE: mismatches only, against the Hamming oracle (#17)", {
  # Cas-OFFinder counting: the spacer on the letters just before an exactly
  # matching PAM with at most k mismatches (or, with allow_pam_edits, the
  # whole guide with at most k mismatches), N fraction of the region
  set.seed(1719)
  for (case in 1:30) {
    pam_length <- sample(1:3, 1)
    pam <- switch(pam_length, "G", "AG", "NGG")
    guides <- vapply(1:sample(1:3, 1), function(i) {
      paste0(random_dna(sample(5:10, 1), c("A", "C", "G", "T", "R")), pam)
    }, "")
    allow <- case %% 4 == 0
    min_len <- min(nchar(guides)) - if (allow) 0L else pam_length
    k <- sample(0:min(3, min_len - 1L), 1)
    max_n_frac <- sample(c(0, 0.25, 1), 1)
    texts <- vapply(1:3, function(i) {
      t <- random_dna(sample(0:60, 1), c("A", "C", "G", "T", "A", "C", "G", "T", "N"))
      if (nchar(t) > 20) {
        g <- gsub("[NR]", "A", guides[[1L]])
        if (runif(1) < 0.5) g <- revcomp_chr(g)
        at <- sample(0:(nchar(t) - nchar(g)), 1)
        substr(t, at + 1L, at + nchar(g)) <- g
      }
      t
    }, "")
    texts[sample(3, 1)] <- if (case %% 5 == 0) NA else texts[sample(3, 1)]
    rc <- case %% 3 != 0
    hits <- sassy_crispr(
      guides = guides, texts = texts, k = k, pam_length = pam_length,
      allow_pam_edits = allow, max_n_frac = max_n_frac, rc = rc,
      threads = 2L, indels = FALSE
    )
    want <- do.call(rbind, c(list(data.frame(
      record = integer(), guide = integer(), strand = character(),
      start = integer(), end = integer(), cost = integer()
    )), unlist(lapply(seq_along(guides), function(g) lapply(seq_along(texts), function(r) {
      o <- oracle_hamming_hits(guides[[g]], texts[[r]], k, "iupac", rc,
        max_n_frac = max_n_frac, pam = pam_length, pam_edits = allow
      )
      if (nrow(o) == 0L) return(NULL)
      data.frame(record = r, guide = g, o)
    })), recursive = FALSE)))
    key <- function(d) sort(paste(d$record, d$guide, d$strand, d$start, d$end, d$cost))
    expect_identical(key(hits), key(want), info = paste("case", case))
    for (i in seq_len(nrow(hits))) {
      # one = or X per guide letter, cost X's, the PAM all = unless allow
      ops <- with(cigar_parse(hits$cigar[[i]]), rep(op, n))
      expect_identical(length(ops), nchar(guides[[hits$guide[[i]]]]))
      expect_true(all(ops %in% c("=", "X")))
      expect_identical(sum(ops == "X"), hits$cost[[i]])
      if (!allow) expect_true(all(utils::tail(ops, pam_length) == "="))
    }
  }
})
