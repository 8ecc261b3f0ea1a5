# The package against the brute-force DP oracle (helper-oracle.R) on random
# inputs of every alphabet and both strands. Each check collects what is
# wrong into a character vector, so a failure shows the offending inputs.

# Everything the package says about one random input set, checked against
# the oracle. Returns a character vector of problems (empty when all agree).
oracle_problems <- function(texts, patterns, k, alphabet, rc,
                            ignore_case = FALSE, overhang = NULL,
                            threads = 2L, max_report = 5L) {
  problems <- character()
  report <- function(...) problems <<- c(problems, sprintf(...))
  args <- list(
    texts = texts, patterns = patterns, k = k, alphabet = alphabet, rc = rc,
    ignore_case = ignore_case, overhang = overhang, threads = threads
  )
  n_t <- length(texts)
  n_p <- length(patterns)
  alpha <- if (is.null(overhang)) 0 else overhang
  label <- function(r, p) {
    sprintf(
      "[%s rc=%s ic=%s oh=%s k=%d] pattern %d %s, text %d %s",
      alphabet, rc, ignore_case, format(overhang), k, p, patterns[[p]], r,
      encodeString(texts[[r]], quote = "\"")
    )
  }

  # 1. contains == some alignment with cost <= k exists.
  got <- matrix(do.call(sassy_contains, args), n_t, n_p)
  for (p in seq_len(n_p)) for (r in seq_len(n_t)) {
    want <- oracle_contains(patterns[[p]], texts[[r]], k, alphabet, rc, ignore_case, overhang)
    if (!identical(got[r, p], want)) {
      report("contains %s: got %s, oracle %s", label(r, p), got[r, p], want)
    }
  }

  # 2. count(all_endpoints = TRUE) == number of end positions with cost <= k.
  got <- matrix(do.call(sassy_count, c(args, all_endpoints = TRUE)), n_t, n_p)
  for (p in seq_len(n_p)) for (r in seq_len(n_t)) {
    want <- oracle_count_all_endpoints(
      patterns[[p]], texts[[r]], k, alphabet, rc, ignore_case, overhang
    )
    if (!identical(got[r, p], want)) {
      report("all-endpoint count %s: got %s, oracle %s", label(r, p), got[r, p], want)
    }
  }

  # 3. Every hit, local minima and all end points: the CIGAR turns the
  # (aligned part of the) pattern into the region, reverse complemented on
  # "-", with exactly the reported cost; the hits are where the oracle says.
  for (all_endpoints in c(FALSE, TRUE)) {
    hits <- do.call(sassy_search, c(args, all_endpoints = all_endpoints))
    if (!identical(hits, order_hits(hits))) {
      report("hits are not ordered by record, pattern, start, end, strand")
    }
    for (h in seq_len(nrow(hits))) {
      r <- hits$record[[h]]
      p <- hits$pattern[[h]]
      text <- texts[[r]]
      m <- nchar(patterns[[p]])
      ps <- hits$pattern_start[[h]]
      pe <- hits$pattern_end[[h]]
      if (is.na(text) || hits$start[[h]] < 1L || hits$end[[h]] > nchar(text) ||
        hits$end[[h]] < hits$start[[h]] - 1L || ps < 1L || pe > m || pe < ps - 1L ||
        hits$cost[[h]] > k) {
        report("hit %d out of range: %s", h, paste(format(hits[h, ]), collapse = " "))
        next
      }
      region <- substr(text, hits$start[[h]], hits$end[[h]])
      if (hits$strand[[h]] == "-") region <- oracle_revcomp(region)
      ok <- cigar_apply(substr(patterns[[p]], ps, pe), region, hits$cigar[[h]], alphabet, ignore_case)
      if (!isTRUE(ok)) {
        report("hit %d %s strand %s region %s: %s", h, label(r, p), hits$strand[[h]], region, ok)
        next
      }
      cost <- cigar_cost(hits$cigar[[h]]) + floor(alpha * (ps - 1L)) + floor(alpha * (m - pe))
      if (cost != hits$cost[[h]]) {
        report(
          "hit %d %s: CIGAR %s (+ overhang) costs %d, reported %d", h, label(r, p),
          hits$cigar[[h]], cost, hits$cost[[h]]
        )
      }
    }
    # Where the hits are: "+" hits by end, "-" hits by start.
    got <- data.frame(
      record = hits$record, pattern = hits$pattern, strand = hits$strand,
      anchor = ifelse(hits$strand == "+", hits$end, hits$start),
      cost = hits$cost, pattern_end = hits$pattern_end
    )
    want <- do.call(rbind, c(
      list(got[0, ]),
      unlist(lapply(seq_len(n_p), function(p) lapply(seq_len(n_t), function(r) {
        o <- oracle_hits(patterns[[p]], texts[[r]], k, alphabet, rc, ignore_case, all_endpoints, overhang)
        if (nrow(o) == 0L) return(NULL)
        data.frame(record = r, pattern = p, o)
      })), recursive = FALSE)
    ))
    key <- function(d) {
      sort(paste(d$record, d$pattern, d$strand, d$anchor, d$cost, d$pattern_end))
    }
    extra <- setdiff(key(got), key(want))
    missing <- setdiff(key(want), key(got))
    if (length(extra) || length(missing) || nrow(got) != nrow(want)) {
      report(
        "[%s rc=%s ic=%s oh=%s k=%d all_endpoints=%s] hit positions (record pattern strand anchor cost pattern_end) differ: extra {%s}, missing {%s}, %d rows vs oracle %d",
        alphabet, rc, ignore_case, format(overhang), k, all_endpoints,
        paste(utils::head(extra, 5), collapse = "; "),
        paste(utils::head(missing, 5), collapse = "; "), nrow(got), nrow(want)
      )
    }
  }
  if (length(problems) > max_report) {
    problems <- c(utils::head(problems, max_report), sprintf("... and %d more", length(problems) - max_report))
  }
  problems
}

random_case <- function(letters, n_texts = 20L, max_len = 40L, pattern_lens = 4:9,
                        equal_length = FALSE, n_patterns = 6L, prob = NULL,
                        pattern_letters = letters) {
  if (equal_length) {
    len <- max(pattern_lens)
    patterns <- oracle_random_strings(n_patterns, len, len, pattern_letters)
  } else {
    patterns <- vapply(seq_len(n_patterns), function(i) {
      oracle_random_strings(1L, sample(pattern_lens, 1L), max(pattern_lens), pattern_letters)
    }, "")
  }
  texts <- oracle_random_strings(n_texts, 0L, max_len, letters, prob)
  texts <- oracle_plant(texts, patterns, letters)
  texts[sample(n_texts, 2L)] <- NA
  list(texts = texts, patterns = unique(patterns))
}

mixed_case <- function(x) {
  vapply(x, function(s) {
    if (is.na(s)) return(NA_character_)
    ch <- oracle_chars(s)
    low <- runif(length(ch)) < 0.3
    ch[low] <- tolower(ch[low])
    paste(ch, collapse = "")
  }, "", USE.NAMES = FALSE)
}

test_that("dna: contains, counts and hits agree with the oracle on both strands", {
  set.seed(101)
  for (equal_length in c(FALSE, TRUE)) for (rc in c(TRUE, FALSE)) {
    case <- random_case(c("A", "C", "G", "T"), equal_length = equal_length, n_patterns = if (equal_length) 10L else 6L)
    texts <- mixed_case(case$texts)
    for (k in c(0L, 2L)) {
      expect_identical(oracle_problems(texts, case$patterns, k, "dna", rc), character())
    }
  }
})

test_that("iupac: contains, counts and hits agree with the oracle on both strands", {
  set.seed(202)
  text_letters <- c("A", "C", "G", "T", "N", "R", "Y", "S", "W", "K", "M", "B", "D", "H", "V", "U")
  prob <- c(rep(10, 4), rep(0.5, 12))
  pattern_letters <- c("A", "C", "G", "T", "A", "C", "G", "T", "N", "R", "Y", "U", "W")
  for (equal_length in c(FALSE, TRUE)) for (rc in c(TRUE, FALSE)) {
    case <- random_case(text_letters,
      equal_length = equal_length, prob = prob,
      pattern_letters = pattern_letters, n_patterns = if (equal_length) 10L else 6L
    )
    texts <- mixed_case(case$texts)
    patterns <- mixed_case(case$patterns)
    for (k in c(0L, 2L)) {
      expect_identical(oracle_problems(texts, patterns, k, "iupac", rc), character())
    }
  }
})

test_that("ascii: contains, counts and hits agree with the oracle, with and without case", {
  set.seed(303)
  letters <- c("a", "b", "c", "A", "B", "C", " ", ".", "{", "}", "\\", "\"")
  for (equal_length in c(FALSE, TRUE)) for (ignore_case in c(FALSE, TRUE)) {
    case <- random_case(letters, equal_length = equal_length, n_patterns = if (equal_length) 10L else 6L)
    for (k in c(0L, 2L)) {
      expect_identical(
        oracle_problems(case$texts, case$patterns, k, "ascii", rc = FALSE, ignore_case = ignore_case),
        character()
      )
    }
  }
})

test_that("iupac with overhang agrees with the oracle", {
  set.seed(404)
  for (alpha in c(0.5, 0.25, 1)) for (rc in c(TRUE, FALSE)) {
    case <- random_case(c("A", "C", "G", "T"), n_texts = 20L, max_len = 30L, pattern_lens = 5:8)
    for (k in if (alpha == 0.5) c(1L, 2L) else 1L) {
      expect_identical(
        oracle_problems(case$texts, case$patterns, k, "iupac", rc, overhang = alpha),
        character()
      )
    }
  }
})

test_that("long texts: hits across SIMD lanes and chunk borders agree with the oracle", {
  set.seed(505)
  # One long text is split into chunks searched in parallel lanes (64-letter
  # blocks); plant matches on every 64-letter border and around it.
  patterns <- c("ACGTTGCAACGGTACT", "GGATCCTTAGCA")
  text <- oracle_chars(oracle_random_strings(1L, 3000L, 3000L, c("A", "C", "G", "T")))
  for (pos in c(seq(64L, 2900L, by = 64L) - 8L, 700L, 1500L, 2990L)) {
    p <- oracle_chars(patterns[[1L + (pos %% 2L)]])
    if (pos %% 3L == 0L) p[3] <- "A"
    if (pos %% 5L == 0L) p <- p[-5]
    text[pos + seq_along(p) - 1L] <- p
  }
  text <- paste(text[seq_len(3000L)], collapse = "")
  texts <- c(text, substr(text, 1L, 1000L), substr(text, 17L, 2100L))
  for (k in c(1L, 3L)) {
    expect_identical(oracle_problems(texts, patterns, k, "dna", rc = TRUE, threads = 3L), character())
  }
})

test_that("records longer than a window (2^18 letters) agree with the oracle", {
  set.seed(606)
  # Long records are cut into overlapping windows searched in parallel; plant
  # matches (both orientations, with edits) across the window borders.
  dna <- c("A", "C", "G", "T")
  patterns <- c("ACGTTGCAACGGTACT", "GGATCCTTAGCATTGA")
  n <- 300000L
  text <- oracle_chars(oracle_random_strings(1L, n, n, dna))
  border <- 2^18
  at <- c(1L, border - 40L, border - 17L, border - 8L, border - 1L, border, border + 3L, 150000L, n - 15L)
  for (i in seq_along(at)) {
    p <- patterns[[1L + i %% 2L]]
    if (i %% 3L == 0L) p <- oracle_revcomp(p)
    p <- oracle_chars(p)
    if (i %% 4L == 1L) p[7L] <- "A"
    if (i %% 5L == 2L) p <- p[-9L]
    text[at[[i]] + seq_along(p) - 1L] <- p
  }
  text <- paste(text[seq_len(n)], collapse = "")
  expect_identical(
    oracle_problems(c(text, "ACGTTGCAACGGTACT"), patterns, 2L, "dna", rc = TRUE, threads = 4L),
    character()
  )
})

test_that("overhang at both ends agrees with the oracle, short and empty texts (#17)", {
  # small alphas let the pattern hang far past the right end, where sassy
  # alone stops after ceiling((k + alpha) / alpha) letters
  set.seed(1717)
  for (alpha in c(0, 0.125, 0.25)) for (rc in c(TRUE, FALSE)) {
    case <- random_case(c("A", "C", "G", "T"), n_texts = 20L, max_len = 12L, pattern_lens = 2:7)
    case$texts <- c(case$texts, "", "A", "AC")
    for (k in 0:1) {
      expect_identical(
        oracle_problems(case$texts, case$patterns, k, "iupac", rc, overhang = alpha),
        character()
      )
    }
  }
})

# sassy_search(indels = FALSE) against the Hamming oracle: positions, costs,
# CIGARs of =/X that turn the pattern into the region, counts and contains.
hamming_problems <- function(texts, patterns, k, alphabet, rc, ignore_case = FALSE,
                             max_n_frac = NULL) {
  problems <- character()
  args <- list(
    texts = texts, patterns = patterns, k = k, alphabet = alphabet, rc = rc,
    ignore_case = ignore_case, max_n_frac = max_n_frac, indels = FALSE
  )
  hits <- do.call(sassy_search, args)
  want <- do.call(rbind, c(list(data.frame(
    record = integer(), pattern = integer(), strand = character(),
    start = integer(), end = integer(), cost = integer()
  )), unlist(lapply(seq_along(patterns), function(p) lapply(seq_along(texts), function(r) {
    o <- oracle_hamming_hits(patterns[[p]], texts[[r]], k, alphabet, rc, ignore_case, max_n_frac)
    if (nrow(o) == 0L) return(NULL)
    data.frame(record = r, pattern = p, o)
  })), recursive = FALSE)))
  key <- function(d) sort(paste(d$record, d$pattern, d$strand, d$start, d$end, d$cost))
  if (!identical(key(hits), key(want))) {
    problems <- c(problems, sprintf(
      "[%s rc=%s ic=%s k=%d] extra {%s} missing {%s}", alphabet, rc, ignore_case, k,
      paste(utils::head(setdiff(key(hits), key(want)), 5), collapse = "; "),
      paste(utils::head(setdiff(key(want), key(hits)), 5), collapse = "; ")
    ))
  }
  for (h in seq_len(nrow(hits))) {
    region <- substr(texts[[hits$record[[h]]]], hits$start[[h]], hits$end[[h]])
    if (hits$strand[[h]] == "-") region <- oracle_revcomp(region)
    ok <- cigar_apply(patterns[[hits$pattern[[h]]]], region, hits$cigar[[h]], alphabet, ignore_case)
    if (!isTRUE(ok) || grepl("[ID]", hits$cigar[[h]]) || cigar_cost(hits$cigar[[h]]) != hits$cost[[h]]) {
      problems <- c(problems, sprintf("hit %d: cigar %s region %s: %s", h, hits$cigar[[h]], region, ok))
    }
  }
  n <- matrix(0L, length(texts), length(patterns))
  for (i in seq_len(nrow(want))) n[want$record[[i]], want$pattern[[i]]] <- n[want$record[[i]], want$pattern[[i]]] + 1L
  n[is.na(texts), ] <- NA
  got <- unname(matrix(do.call(sassy_count, args[names(args) != "cigar"]), length(texts), length(patterns)))
  if (!identical(got, n)) problems <- c(problems, "counts differ")
  got <- unname(matrix(do.call(sassy_contains, args), length(texts), length(patterns)))
  if (!identical(got, n > 0L)) problems <- c(problems, "contains differs")
  if (!identical(do.call(sassy_search, c(args, all_endpoints = TRUE)), hits)) {
    problems <- c(problems, "all_endpoints changed the hits")
  }
  problems
}

test_that("indels = FALSE agrees with the Hamming oracle (#17)", {
  set.seed(1718)
  for (rc in c(TRUE, FALSE)) {
    case <- random_case(c("A", "C", "G", "T"), n_texts = 15L, max_len = 40L, pattern_lens = 3:8)
    case$texts <- c(case$texts, "", "AC", NA)
    for (k in 0:2) {
      expect_identical(hamming_problems(case$texts, case$patterns, k, "dna", rc), character())
    }
    # IUPAC codes and N in texts and patterns, with and without the N filter
    case <- random_case(c("A", "C", "G", "T", "N", "R", "Y", "X"),
      n_texts = 15L, max_len = 30L, pattern_lens = 3:7,
      prob = c(4, 4, 4, 4, 2, 1, 1, 1)
    )
    for (k in 0:2) {
      expect_identical(hamming_problems(case$texts, case$patterns, k, "iupac", rc), character())
      expect_identical(
        hamming_problems(case$texts, case$patterns, k, "iupac", rc, max_n_frac = 0.25),
        character()
      )
    }
  }
  # many equal-length patterns (batched in the edit search), ascii and case
  case <- random_case(c("a", "b", "A", "B", "c"), n_texts = 10L, max_len = 30L,
    pattern_lens = 4L, n_patterns = 8L, equal_length = TRUE
  )
  for (ic in c(FALSE, TRUE)) {
    expect_identical(hamming_problems(case$texts, case$patterns, 1L, "ascii", FALSE, ic), character())
  }
})
