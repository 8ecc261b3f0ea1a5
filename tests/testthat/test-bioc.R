# Biostrings inputs: every search function takes XStringSets and XStrings
# for texts and patterns, with the set's names as `name`; text sets are
# converted and searched in chunks (bioc.R), with the same result as the
# character vector.

skip_if_not_installed("Biostrings")

dm3_upstream <- function(n = 300L) {
  path <- system.file("extdata", "dm3_upstream2000.fa.gz", package = "Biostrings")
  Biostrings::readDNAStringSet(path)[seq_len(n)]
}

# Small chunks, so that the chunked path runs with many chunks.
local_small_chunks <- function(records = 7L, letters = 3000, env = parent.frame()) {
  withr::local_options(
    ducksassy.xstringset_chunk_records = records,
    ducksassy.xstringset_chunk_letters = letters,
    .local_envir = env
  )
}

test_that("a DNAStringSet gives the hits, counts and flags of its character vector", {
  set <- dm3_upstream(200L)
  chr <- as.character(set)
  pats <- c(tata = "TATAAA", gaga = "GAGAGAG", ebox = "CACGTG")
  expect_identical(sassy_search(set, pats, k = 1), sassy_search(chr, pats, k = 1))
  expect_identical(sassy_count(set, pats, k = 1), sassy_count(chr, pats, k = 1))
  expect_identical(sassy_contains(set, pats, k = 1), sassy_contains(chr, pats, k = 1))
  expect_identical(sassy_count(set, pats[[1]], k = 1), sassy_count(chr, pats[[1]], k = 1))
  hits <- sassy_search(set, pats, k = 1)
  expect_identical(hits$name, names(set)[hits$record])
})

test_that("chunked search equals the whole set, record numbers offset", {
  set <- dm3_upstream(60L)
  chr <- as.character(set)
  pats <- c("TATAAA", "GAGAGAG", "CACGTG", "ACGTNNNACGT")
  whole <- sassy_search(chr, pats, k = 1)
  counts <- sassy_count(chr, pats, k = 1)
  flags <- sassy_contains(chr, pats, k = 1)
  local_small_chunks()
  expect_gt(length(xset_chunks(set)), 5L)
  expect_identical(sassy_search(set, pats, k = 1), whole)
  expect_identical(sassy_count(set, pats, k = 1), counts)
  expect_identical(sassy_contains(set, pats, k = 1), flags)
  expect_identical(sassy_search(set, pats, k = 1, threads = 1L), whole)
  # one record longer than the letter budget is a chunk of its own
  withr::local_options(ducksassy.xstringset_chunk_letters = 100)
  expect_identical(lengths(lapply(xset_chunks(set), function(r) r[1]:r[2])), rep(1L, 60L))
  expect_identical(sassy_search(set, pats, k = 1), whole)
})

test_that("chunks cover the set exactly", {
  set <- Biostrings::DNAStringSet(vapply(c(5, 1, 300, 2, 2, 2, 0, 40), function(n) strrep("A", n), ""))
  withr::local_options(ducksassy.xstringset_chunk_records = 3L, ducksassy.xstringset_chunk_letters = 10)
  ch <- xset_chunks(set)
  idx <- unlist(lapply(ch, function(r) r[1]:r[2]))
  expect_identical(idx, seq_along(set))
  expect_identical(xset_chunks(set[0]), list())
})

test_that("an error in a later chunk names the record in the whole set", {
  seqs <- rep("ACGTACGT", 20)
  seqs[[17]] <- "ACGTAXGT"
  set <- Biostrings::BStringSet(seqs)
  local_small_chunks(records = 5L)
  e <- expect_error(sassy_search(set, "ACGT", alphabet = "dna"), class = "ducksassy_input_error")
  expect_identical(e$index, 17L)
  expect_match(conditionMessage(e), "`texts`[17]", fixed = TRUE)
  # (texts shorter than the guide: the swapped-arguments warning is muffled)
  e <- expect_error(
    withCallingHandlers(
      sassy_crispr(Biostrings::BStringSet(sub("X", "-", seqs)), "ACGTACGTAGG", k = 1),
      ducksassy_swapped_arguments_warning = function(w) invokeRestart("muffleWarning")
    ),
    class = "ducksassy_input_error")
  expect_identical(e$index, 17L)
})

test_that("the hit limit counts the hits of every chunk", {
  set <- Biostrings::DNAStringSet(rep("ACGTACGT", 30))
  local_small_chunks(records = 4L)
  withr::local_options(ducksassy.max_hits = 50)
  expect_error(sassy_search(set, "ACGT", rc = FALSE), class = "ducksassy_limit_error")
  withr::local_options(ducksassy.max_hits = 60)
  expect_equal(nrow(sassy_search(set, "ACGT", rc = FALSE)), 60L)
})

test_that("RNAStringSet reads U as T, also with the dna alphabet", {
  rna <- Biostrings::RNAStringSet(c(r1 = "AAAUUGAAAGGAUCGA", r2 = "CCCAUCACCC"))
  dna <- c(r1 = "AAATTGAAAGGATCGA", r2 = "CCCATCACCC")
  expect_identical(sassy_search(rna, "ATCG", k = 1), sassy_search(dna, "ATCG", k = 1))
  expect_identical(
    sassy_search(rna, "ATCG", k = 1, alphabet = "dna"),
    sassy_search(dna, "ATCG", k = 1, alphabet = "dna")
  )
  # RNA patterns too
  expect_identical(
    sassy_count(dna, Biostrings::RNAStringSet(c(p = "AUCG")), k = 1, alphabet = "dna"),
    sassy_count(dna, c(p = "ATCG"), k = 1, alphabet = "dna")
  )
})

test_that("BStringSet and BString work with the ascii alphabet", {
  b <- Biostrings::BStringSet(c(a = "Say Hallo World", b = "hello there"))
  expect_identical(
    sassy_search(b, "hello", k = 1, alphabet = "ascii"),
    sassy_search(c(a = "Say Hallo World", b = "hello there"), "hello", k = 1, alphabet = "ascii")
  )
  expect_identical(
    sassy_count(Biostrings::BString("hello hello"), "hello", alphabet = "ascii"),
    2L
  )
})

test_that("a DNAString is one text without a name", {
  s <- Biostrings::DNAString("AAAATTGAAAGGATCGA")
  expect_identical(
    sassy_search(s, "ATCG", k = 1),
    sassy_search("AAAATTGAAAGGATCGA", "ATCG", k = 1)
  )
  expect_identical(sassy_search("AAAATTGAAAGGATCGA", Biostrings::DNAString("ATCG"), k = 1),
    sassy_search("AAAATTGAAAGGATCGA", "ATCG", k = 1))
})

test_that("pattern sets keep their names for count matrices", {
  pats <- Biostrings::DNAStringSet(c(p1 = "ATCG", p2 = "GATTACA"))
  texts <- c(t1 = "AAAATCGA", t2 = "GATTACA")
  expect_identical(
    sassy_count(texts, pats, k = 1),
    sassy_count(texts, c(p1 = "ATCG", p2 = "GATTACA"), k = 1)
  )
  expect_identical(colnames(sassy_contains(texts, pats)), c("p1", "p2"))
})

test_that("empty and unnamed sets", {
  expect_identical(
    sassy_search(Biostrings::DNAStringSet(), "ACGT"),
    sassy_search(character(), "ACGT")
  )
  expect_identical(sassy_count(Biostrings::DNAStringSet(), "ACGT"), integer())
  unnamed <- Biostrings::DNAStringSet(c("ACGTT", "TTACG"))
  h <- sassy_search(unnamed, "ACGT", k = 1)
  expect_false("name" %in% names(h))
  expect_error(sassy_search("ACGT", Biostrings::DNAStringSet()), class = "ducksassy_input_error")
})

test_that("sassy_crispr takes DNAStringSet texts and guides", {
  set <- dm3_upstream(40L)
  chr <- as.character(set)
  guides <- Biostrings::DNAStringSet(c(
    g1 = paste0(substr(chr[[3]], 101, 120), "NGG"),
    g2 = paste0(substr(chr[[9]], 501, 520), "NGG")
  ))
  want <- sassy_crispr(chr, as.character(guides), k = 3)
  expect_identical(sassy_crispr(set, guides, k = 3), want)
  local_small_chunks()
  expect_identical(sassy_crispr(set, guides, k = 3), want)
})

test_that("table and file searches take pattern sets", {
  path <- system.file("extdata", "lambda_virus.fa", package = "ducksassy")
  skip_if(path == "")
  pats <- Biostrings::DNAStringSet(c(a = "GGGCGGCGACCT", b = "ACGTTGCA"))
  expect_identical(
    sassy_search_fastx(path, pats, k = 1),
    sassy_search_fastx(path, as.character(pats), k = 1)
  )
})

test_that("missing suggested packages are a classed error", {
  e <- expect_error(check_suggested("ducksassyNoSuchPackage", "for this"), class = "ducksassy_dependency_error")
  expect_match(conditionMessage(e), "ducksassyNoSuchPackage")
  expect_s3_class(e, "ducksassy_error")
})
