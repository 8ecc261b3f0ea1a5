# sassy_detect_kit() (issue 51): the kit of a run named from its reads, on
# reads built here from a kit's own rows (the truth is the kit they were
# built from), and the warning when a kit's set is given reads of another.

# Reads of `set`'s first `nb` barcodes as its rows place them: a front row's
# construct at the 5' end, a rear row's at the 3' end, a both row's at the
# 5' end and reverse complemented at the 3' end; half of the reads reverse
# complemented, 4% substitutions, 10% without a barcode.
detect_reads <- function(set, n, nb = 6L, seed = 1L) {
  set.seed(seed)
  rdna <- function(k) paste(sample(c("A", "C", "G", "T"), k, TRUE), collapse = "")
  rc <- function(x) chartr("ACGT", "TGCA", paste(rev(strsplit(x, "")[[1]]), collapse = ""))
  mutate <- function(x) {
    l <- strsplit(x, "")[[1]]
    at <- which(stats::runif(length(l)) < 0.04)
    l[at] <- sample(c("A", "C", "G", "T"), length(at), TRUE)
    paste(l, collapse = "")
  }
  names <- utils::head(unique(set$name), nb)
  truth <- character(n)
  reads <- vapply(seq_len(n), function(i) {
    b <- sample(names, 1L)
    r <- set[set$name == b, , drop = FALSE]
    front <- rear <- ""
    for (j in seq_len(nrow(r))) {
      con <- paste0(r$flank5[[j]], r$barcode[[j]], r$flank3[[j]])
      if (r$ends[[j]] %in% c("front", "both")) front <- con
      if (r$ends[[j]] == "both") rear <- rc(con)
      if (r$ends[[j]] == "rear") rear <- con
    }
    if (stats::runif(1) < 0.1) {
      front <- rear <- ""
      b <- "none"
    }
    truth[[i]] <<- b
    x <- paste0(rdna(sample.int(20L, 1L)), front, rdna(300 + sample.int(400L, 1L)), rear, rdna(sample.int(20L, 1L)))
    mutate(if (stats::runif(1) < 0.5) rc(x) else x)
  }, "")
  structure(reads, truth = truth, used = names)
}

test_that("#51 the kit of a run is named from its reads, for each kit design", {
  for (kit in c("SQK-NBD114-96", "SQK-RBK114-96", "SQK-PCB114-24", "SQK-16S114-24")) {
    set <- sassy_kit(kit)
    reads <- detect_reads(set, 600)
    d <- sassy_detect_kit(reads, threads = 1L)
    expect_s3_class(d, "ducksassy_kit_detection")
    expect_gte(nrow(d), 1L)
    # the kit the reads were made of is one of the first row's names
    expect_true(kit %in% d$kits[[1]], info = kit)
    expect_true(d$kit[[1]] %in% d$kits[[1]], info = kit)
    # ... and the barcodes found are those used, counted right
    found <- d$barcodes[[1]]
    used <- attr(reads, "used")
    expect_setequal(names(found), used)
    truth <- table(attr(reads, "truth"))[used]
    expect_true(all(found[used] <= truth[used] & found[used] >= 0.8 * truth[used]), info = kit)
    expect_identical(d$ends[[1]], if (length(unique(set$ends)) == 1L) set$ends[[1]] else "both", info = kit)
    expect_equal(d$reads[[1]] / 600, d$fraction[[1]])
    # nearly every barcoded read is explained, no other arrangement is
    expect_gt(d$reads[[1]], 0.85 * sum(attr(reads, "truth") != "none"))
    expect_identical(nrow(d), 1L, info = kit)
    expect_identical(attr(d, "sampled"), 600L)
  }
})

test_that("#51 kits with one arrangement are one row; its kit is the smallest that holds the barcodes", {
  set <- sassy_kit("SQK-NBD114-96")
  d <- sassy_detect_kit(detect_reads(set, 400, nb = 6L), threads = 1L)
  kits <- sassy_kits()
  # barcodes 1-6: every kit of native barcoding holds them
  expect_true(all(c("SQK-NBD114-24", "SQK-NBD114-96", "SQK-NBD111-24", "EXP-NBD104") %in% d$kits[[1]]))
  size <- kits$barcodes[match(d$kits[[1]], kits$kit)]
  expect_identical(kits$barcodes[match(d$kit[[1]], kits$kit)], min(size))
  # the kit found gives the set to demultiplex with, cut to the barcodes found
  found <- sassy_kit(d$kit[[1]])
  found <- found[found$name %in% names(d$barcodes[[1]]), ]
  expect_setequal(found$name, names(d$barcodes[[1]]))
})

test_that("#51 reads of a custom kit, or none, give no row, and the print says what to do", {
  set.seed(4)
  rdna <- function(k) paste(sample(c("A", "C", "G", "T"), k, TRUE), collapse = "")
  custom <- sassy_barcodes(stats::setNames(vapply(1:4, function(i) rdna(24), ""), paste0("c", 1:4)),
    flank5 = rdna(20), flank3 = rdna(20), ends = "both")
  d <- sassy_detect_kit(detect_reads(custom, 400), threads = 1L)
  expect_identical(nrow(d), 0L)
  expect_output(print(d), "sassy_barcodes")
  expect_identical(nrow(sassy_detect_kit(vapply(1:200, function(i) rdna(800), ""), threads = 1L)), 0L)
})

test_that("#51 files, plain or gzip, and Biostrings sets give the vector's answer; n samples the first", {
  set <- sassy_kit("SQK-RBK114-24")
  reads <- detect_reads(set, 300)
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fq.gz")
  con <- gzfile(fq, "w")
  writeLines(paste0("@r", seq_along(reads), "\n", reads, "\n+\n", strrep("I", nchar(reads))), con)
  close(con)
  fa <- file.path(dir, "r.fa")
  writeLines(paste0(">r", seq_along(reads), "\n", reads), fa)
  want <- sassy_detect_kit(reads, threads = 1L)
  expect_identical(sassy_detect_kit(fq, threads = 1L), want)
  expect_identical(sassy_detect_kit(fa, threads = 2L), want)
  # two files are read in order until n
  expect_identical(sassy_detect_kit(c(fa, fq), n = 300, threads = 1L), want)
  expect_identical(sassy_detect_kit(reads[1:100], threads = 1L), sassy_detect_kit(fq, n = 100, threads = 1L))
  skip_if_not_installed("Biostrings")
  expect_identical(sassy_detect_kit(Biostrings::DNAStringSet(reads), threads = 1L), want)
})

test_that("#51 bad input to sassy_detect_kit() is a classed error naming the argument", {
  dir <- withr::local_tempdir()
  empty <- file.path(dir, "empty.fq")
  file.create(empty)
  reads <- "ACGTACGTAC"
  for (bad in list(0, 1.5, -1, NA, "a", c(1, 2), Inf)) {
    expect_error(sassy_detect_kit(reads, n = bad), class = "ducksassy_input_error")
    e <- tryCatch(sassy_detect_kit(reads, n = bad), error = identity)
    expect_identical(e$arg, "n")
  }
  e <- tryCatch(sassy_detect_kit(empty), error = identity)
  expect_s3_class(e, "ducksassy_input_error")
  expect_identical(e$arg, "paths")
  e <- tryCatch(sassy_detect_kit(file.path(dir, "nope.fq")), error = identity)
  expect_s3_class(e, "ducksassy_input_error")
  expect_identical(e$arg, "paths")
  expect_error(sassy_detect_kit(reads, ends = 0), class = "ducksassy_input_error")
  expect_error(sassy_detect_kit(reads, min_fraction = 0), class = "ducksassy_input_error")
  expect_error(sassy_detect_kit(reads, error_rate = 1), class = "ducksassy_input_error")
  expect_error(sassy_detect_kit(reads, threads = 0), class = "ducksassy_input_error")
})

test_that("#51 a kit's set on reads of another arrangement warns, by the flanks; never for custom sets", {
  reads <- detect_reads(sassy_kit("SQK-PCB114-24"), 400)
  dir <- withr::local_tempdir()
  fq <- file.path(dir, "r.fq")
  writeLines(paste0("@r", seq_along(reads), "\n", reads, "\n+\n", strrep("I", nchar(reads))), fq)
  w <- NULL
  a <- withCallingHandlers(
    sassy_assign_fastx(fq, sassy_kit("SQK-RBK114-24"), ends = 150, threads = 1L),
    ducksassy_kit_warning = function(cnd) {
      w <<- cnd
      invokeRestart("muffleWarning")
    }
  )
  expect_s3_class(w, "ducksassy_kit_warning")
  expect_true(w$detected %in% sassy_detect_kit(reads, threads = 1L)$kits[[1]])
  expect_identical(w$kit, "SQK-RBK114-24")
  expect_gt(w$shares[["detected"]], 0.5)
  expect_match(conditionMessage(w), "SQK-RBK114-24")
  expect_identical(nrow(a), 400L)
  expect_warning(
    sassy_demultiplex_fastx(fq, sassy_kit("SQK-RBK114-24"), output = file.path(dir, "o", "{name}.fq"),
      ends = 150, threads = 1L),
    class = "ducksassy_kit_warning"
  )
  # the right kit, the option off, a custom set: no warning
  expect_no_warning(sassy_assign_fastx(fq, sassy_kit("SQK-PCB114-24"), ends = 150, threads = 1L))
  withr::with_options(list(ducksassy.kit_check = FALSE), {
    expect_no_warning(sassy_assign_fastx(fq, sassy_kit("SQK-RBK114-24"), ends = 150, threads = 1L))
  })
  custom <- sassy_kit("SQK-RBK114-24")
  custom <- sassy_barcodes(stats::setNames(custom$barcode, custom$name), custom$flank5, custom$flank3)
  expect_no_warning(sassy_assign_fastx(fq, custom, ends = 150, threads = 1L))
})
