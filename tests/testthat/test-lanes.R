# Short records are searched in sassy's text lanes (several records per
# scan); DUCKSASSY_LANES=off turns that off. Both must give identical
# results for every option, on reads of mixed lengths with NA, empty and
# too-short texts, and the planted hits must be found.

lanes_reads <- function(n, alphabet = c("A", "C", "G", "T"), seed = 1) {
  set.seed(seed)
  lens <- sample(c(0:30, 100:300, 900:1100, 2000:2500), n, TRUE)
  x <- vapply(lens, function(l) paste(sample(alphabet, l, TRUE), collapse = ""), "")
  x[sample.int(n, 3)] <- NA
  x
}

plant_in <- function(x, p, every = 5) {
  i <- which(!is.na(x) & nchar(x) > nchar(p))
  i <- i[seq(1, length(i), by = every)]
  substr(x[i], 2, 1 + nchar(p)) <- p
  x
}

revcomp_dna <- function(x) paste(rev(strsplit(chartr("ACGT", "TGCA", x), "")[[1]]), collapse = "")

lanes_off <- function(expr) withr::with_envvar(c(DUCKSASSY_LANES = "off"), expr)

test_that("text lanes and one-by-one search give identical hits, counts and contains (DUCKSASSY_LANES)", {
  p <- c("ACGTTGCAACGTTGCAAC", "GGGCCCAATTGGCCAA", "TTGACCATGG")
  reads <- plant_in(lanes_reads(600), p[1])
  reads <- plant_in(reads, revcomp_dna(p[2]), every = 7)
  for (args in list(
    list(k = 2L),
    list(k = 2L, rc = FALSE),
    list(k = 1L, alphabet = "dna"),
    list(k = 3L, overhang = 0.5),
    list(k = 2L, max_n_frac = 0.2),
    list(k = 2L, all_endpoints = TRUE),
    list(k = 2L, threads = 2L)
  )) {
    info <- paste(names(args), args, collapse = ", ")
    on <- do.call(sassy_search, c(list(reads, p), args))
    off <- lanes_off(do.call(sassy_search, c(list(reads, p), args)))
    expect_identical(on, off, info = info)
    expect_gt(nrow(on), 100)
    for (f in list(sassy_count, sassy_contains)) {
      expect_identical(do.call(f, c(list(reads, p), args)), lanes_off(do.call(f, c(list(reads, p), args))), info = info)
    }
  }
})

test_that("text lanes agree with one-by-one search for IUPAC and ASCII texts", {
  iupac <- plant_in(lanes_reads(300, c("A", "C", "G", "T", "N", "R", "y", "u"), seed = 2), "ACGTNACGTTTGA")
  p <- c("ACGTNACGTTTGA", "RYACGTT")
  expect_identical(sassy_search(iupac, p, k = 2L), lanes_off(sassy_search(iupac, p, k = 2L)))
  expect_identical(sassy_count(iupac, p, k = 2L, max_n_frac = 0.1), lanes_off(sassy_count(iupac, p, k = 2L, max_n_frac = 0.1)))
  ascii <- plant_in(lanes_reads(300, c("a", "b", "C", "[", "{", " "), seed = 3), "ab[{ C")
  for (ic in c(FALSE, TRUE)) {
    s <- sassy_search(ascii, c("ab[{ C", "AB{"), k = 1L, alphabet = "ascii", rc = FALSE, ignore_case = ic)
    expect_identical(s, lanes_off(sassy_search(ascii, c("ab[{ C", "AB{"), k = 1L, alphabet = "ascii", rc = FALSE, ignore_case = ic)))
    expect_gt(nrow(s), 10)
  }
})

test_that("CRISPR searches of short reads give the same hits with and without text lanes", {
  guides <- c("GACGTTGCAACGTTGCAACT", "TTGGCCAATTGGGCCCATGA")
  site <- c(paste0(guides[1], "TGG"), paste0(guides[2], "AGG"))
  reads <- plant_in(lanes_reads(600), site[1])
  reads <- plant_in(reads, revcomp_dna(site[2]), every = 7)
  # sites flush against the read ends, where lanes hand a read back to the
  # one-by-one search
  ends <- which(!is.na(reads) & nchar(reads) > 40)[1:40]
  substr(reads[ends], nchar(reads[ends]) - 22, nchar(reads[ends])) <- site[1]
  for (args in list(list(k = 3L), list(k = 2L, allow_pam_edits = TRUE), list(k = 3L, rc = FALSE, max_n_frac = 0))) {
    info <- paste(names(args), args, collapse = ", ")
    on <- do.call(sassy_crispr, c(list(reads, guides), args))
    off <- lanes_off(do.call(sassy_crispr, c(list(reads, guides), args)))
    expect_identical(on, off, info = info)
    expect_gt(nrow(on), 100)
  }
})
