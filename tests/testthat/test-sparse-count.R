# sassy_count(sparse = TRUE): a Matrix::dgCMatrix of the dense counts
# (issue 23).

# The dense counts a sparse result stands for: an integer matrix, or the
# column vector for one unnamed pattern (the dense shape).
sparse_as_dense <- function(s, dense) {
  m <- as.matrix(s)
  storage.mode(m) <- "integer"
  if (is.null(dim(dense))) m[, 1L] else m
}

random_dna <- function(n, alphabet = c("A", "C", "G", "T")) {
  paste(sample(alphabet, n, replace = TRUE), collapse = "")
}

# Texts built to have hits: random letters with copies of the patterns
# (some mutated) planted, plus empty, short and NA texts.
random_inputs <- function(n_texts, n_patterns, na = TRUE) {
  pats <- vapply(sample(6:10, n_patterns, replace = TRUE), random_dna, "")
  texts <- vapply(seq_len(n_texts), function(i) {
    len <- sample(c(0L, 3L, 20L, 60L, 200L), 1L)
    x <- random_dna(len)
    if (len >= 20L && runif(1) < 0.7) {
      p <- pats[[sample.int(n_patterns, 1L)]]
      if (runif(1) < 0.5) substr(p, 2L, 2L) <- "A"
      at <- sample.int(len - 10L, 1L)
      x <- paste0(substr(x, 1L, at), p, substr(x, at + 1L, len))
    }
    x
  }, "")
  if (na) texts[sample.int(n_texts, 2L)] <- NA_character_
  list(texts = texts, patterns = pats)
}

test_that("#23: sparse counts are a dgCMatrix equal to the dense counts", {
  set.seed(23)
  combos <- list(
    list(k = 0L, rc = TRUE),
    list(k = 1L, rc = TRUE),
    list(k = 2L, rc = FALSE),
    list(k = 1L, rc = TRUE, all_endpoints = TRUE),
    list(k = 1L, rc = FALSE, overhang = 0.5),
    list(k = 2L, rc = TRUE, overhang = 0),
    list(k = 1L, rc = TRUE, max_n_frac = 0.2),
    list(k = 1L, rc = TRUE, indels = FALSE),
    list(k = 1L, rc = TRUE, alphabet = "dna")
  )
  for (opt in combos) {
    inp <- random_inputs(60L, 5L, na = is.null(opt$alphabet))
    if (!is.null(opt$max_n_frac)) {
      inp$texts[1:5] <- strrep("N", 30)
    }
    texts <- inp$texts
    names(texts) <- paste0("r", seq_along(texts))
    for (tx in list(inp$texts, texts)) {
      for (pats in list(inp$patterns, stats::setNames(inp$patterns, paste0("p", 1:5)))) {
        args <- c(list(tx, pats), opt)
        dense <- do.call(sassy_count, args)
        s <- do.call(sassy_count, c(args, sparse = TRUE))
        label <- paste(deparse(opt), collapse = "")
        expect_s4_class(s, "dgCMatrix")
        expect_identical(dim(s), dim(dense), label = label)
        expect_identical(dimnames(s), dimnames(dense), label = label)
        expect_identical(sparse_as_dense(s, dense), dense, label = label)
        expect_gt(sum(s, na.rm = TRUE), 0)
      }
    }
  }
})

test_that("#23: sparse counts keep the dense result's NA rows and shapes", {
  texts <- c(a = "AAAATTGAAA", b = NA, c = "", d = "CCCATCGCCC")
  # one unnamed pattern: the dense result is a named vector, the sparse one
  # a one-column matrix
  dense <- sassy_count(texts, "ATCG", k = 1)
  s <- sassy_count(texts, "ATCG", k = 1, sparse = TRUE)
  expect_null(dim(dense))
  expect_identical(dim(s), c(4L, 1L))
  expect_identical(dimnames(s), list(names(texts), "pattern_1"))
  expect_identical(sparse_as_dense(s, dense), dense)
  expect_true(is.na(s["b", 1]))
  # NA rows are the only stored cells besides the hits
  s2 <- sassy_count(texts, c("ATCG", "GATTACA"), k = 1, sparse = TRUE)
  expect_identical(sum(is.na(s2@x)), 2L)
  expect_identical(sparse_as_dense(s2, sassy_count(texts, c("ATCG", "GATTACA"), k = 1)),
    sassy_count(texts, c("ATCG", "GATTACA"), k = 1))
  # no texts, no hits
  z <- sassy_count(character(), c("ACGT", "TTTT"), sparse = TRUE)
  expect_s4_class(z, "dgCMatrix")
  expect_identical(dim(z), c(0L, 2L))
  none <- sassy_count(c("AAAAAAAA", "CCCCCCCC"), c(p = "GTGTGT"), sparse = TRUE)
  expect_identical(length(none@x), 0L)
  expect_identical(dimnames(none), list(NULL, "p"))
  # all end positions: several hits per occurrence, counted as the dense
  d <- sassy_count("XXXABCXXX", c("ABC", "XAB"), k = 1, alphabet = "ascii",
    all_endpoints = TRUE)
  expect_identical(d[[1]], 3L)
  expect_identical(
    sparse_as_dense(sassy_count("XXXABCXXX", c("ABC", "XAB"), k = 1, alphabet = "ascii",
      all_endpoints = TRUE, sparse = TRUE), d),
    d
  )
})

test_that("#23: sparse counts of Biostrings sets equal the dense counts", {
  skip_if_not_installed("Biostrings")
  set.seed(7)
  inp <- random_inputs(40L, 4L, na = FALSE)
  set <- Biostrings::DNAStringSet(stats::setNames(inp$texts, paste0("s", 1:40)))
  dense <- sassy_count(set, inp$patterns, k = 1)
  s <- sassy_count(set, inp$patterns, k = 1, sparse = TRUE)
  expect_s4_class(s, "dgCMatrix")
  expect_identical(sparse_as_dense(s, dense), dense)
  # searched in chunks of records
  withr::local_options(ducksassy.xstringset_chunk_records = 7L)
  expect_identical(sparse_as_dense(sassy_count(set, inp$patterns, k = 1, sparse = TRUE), dense), dense)
})

test_that("#23: sparse counts check `sparse`", {
  expect_error(sassy_count("ACGT", "ACG", sparse = NA), class = "ducksassy_input_error")
  expect_error(sassy_count("ACGT", "ACG", sparse = "yes"), class = "ducksassy_input_error")
  expect_error(sassy_contains("ACGT", "ACG", sparse = TRUE),
    class = "ducksassy_unknown_argument_error")
})

test_that("#23: sparse counts of 100,000 texts x 1,000 patterns take memory per hit", {
  skip_on_cran()
  set.seed(1)
  n_texts <- 100000L
  n_patterns <- 1000L
  pats <- vapply(rep(12L, n_patterns), random_dna, "")
  texts <- rep("ACGTTGCA", n_texts)
  with_hit <- sample.int(n_texts, 200L)
  texts[with_hit] <- paste0("TT", pats[sample.int(n_patterns, 200L, replace = TRUE)], "TT")
  s <- sassy_count(texts, pats, k = 0, rc = FALSE, sparse = TRUE)
  expect_s4_class(s, "dgCMatrix")
  expect_identical(dim(s), c(n_texts, n_patterns))
  expect_gte(length(s@x), 200L)
  dense_bytes <- 4 * as.double(n_texts) * n_patterns # 400 MB
  expect_lt(as.double(utils::object.size(s)), dense_bytes / 100)
  # the same counts as the dense result, checked on the texts with hits
  expect_identical(
    sparse_as_dense(s[with_hit, ], matrix(0L, 1, 1)),
    sassy_count(texts[with_hit], pats, k = 0, rc = FALSE)
  )
})

test_that("#23: sparse counts are named by the dense result's too-large error", {
  texts <- rep("ACGTACGT", 1e6)
  patterns <- rep("ACGT", 1e6)
  e <- expect_error(sassy_count(texts, patterns), class = "ducksassy_limit_error")
  expect_match(conditionMessage(e), "sparse = TRUE", fixed = TRUE)
})
