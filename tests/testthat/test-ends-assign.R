# Both ends of a read (issue 38): combine_ends() on hand-made assignments,
# and assign_read_ends() on planted reads of known barcodes and orientation.

end_assignment <- function(pattern, pattern_name, status, strand = "+") {
  n <- length(pattern)
  data.frame(
    record = seq_len(n), name = NA_character_, pattern = pattern, pattern_name = pattern_name,
    cost = ifelse(is.na(pattern), NA_integer_, 1L), start = ifelse(is.na(pattern), NA_integer_, 5L),
    end = ifelse(is.na(pattern), NA_integer_, 30L), strand = ifelse(is.na(pattern), NA_character_, strand),
    other_cost = NA_integer_, status = factor(status, levels = c("assigned", "ambiguous", "unassigned")),
    stringsAsFactors = FALSE
  )
}

test_that("combine_ends() applies each policy and gives a reason for every unassigned read", {
  # reads: 1 both a; 2 front a only; 3 a / b; 4 none; 5 front ambiguous, rear a
  front <- end_assignment(c(1L, 1L, 1L, NA, 2L), c("a", "a", "a", NA, "b"),
    c("assigned", "assigned", "assigned", "unassigned", "ambiguous"))
  rear <- end_assignment(c(1L, NA, 2L, NA, 1L), c("a", NA, "b", NA, "a"),
    c("assigned", "unassigned", "assigned", "unassigned", "assigned"), strand = "-")
  e <- ducksassy:::combine_ends(front, rear, policy = "either")
  expect_identical(e$sample, c("a", "a", NA, NA, NA))
  expect_identical(as.character(e$status), c("assigned", "assigned", "unassigned", "unassigned", "ambiguous"))
  expect_identical(e$reason, c(NA, NA, "ends disagree", "no hit", "ambiguous"))
  expect_identical(e$front_barcode, c("a", "a", "a", NA, NA))
  expect_identical(e$rear_barcode, c("a", NA, "b", NA, "a"))
  expect_identical(e$rear_strand, c("-", NA, "-", NA, "-"))
  b <- ducksassy:::combine_ends(front, rear, policy = "both")
  expect_identical(b$sample, c("a", NA, NA, NA, NA))
  expect_identical(b$reason, c(NA, "one end only", "ends disagree", "no hit", "ambiguous"))
  sheet <- data.frame(front = c("a", "a"), rear = c("a", "b"), sample = c("s_aa", "s_ab"))
  s <- ducksassy:::combine_ends(front, rear, policy = "samples", samples = sheet)
  expect_identical(s$sample, c("s_aa", NA, "s_ab", NA, NA))
  expect_identical(s$reason, c(NA, "pair not in sample sheet", NA, "no hit", "ambiguous"))
  # a single-ended sheet row (rear NA) takes the front barcode alone
  s1 <- ducksassy:::combine_ends(front, rear, policy = "samples",
    samples = data.frame(front = "a", rear = NA_character_, sample = "s_a"))
  expect_identical(s1$sample, c("s_a", "s_a", "s_a", NA, NA))
  expect_error(ducksassy:::combine_ends(front, rear, policy = "samples", samples = data.frame(x = 1)),
    class = "ducksassy_input_error")
})

test_that("assign_read_ends() finds each end's barcode and the read's orientation", {
  set.seed(3838)
  dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, replace = TRUE), collapse = "")
  rc <- function(x) chartr("ACGT", "TGCA", paste(rev(strsplit(x, "")[[1L]]), collapse = ""))
  # a PCR-like design: the front primer differs from the rear one
  bcs <- c(b1 = dna(24), b2 = dna(24), b3 = dna(24))
  f5 <- dna(10)
  front3 <- dna(16)
  rear3 <- dna(16)
  set <- sassy_barcodes(c(bcs, bcs), flank5 = f5, flank3 = rep(c(front3, rear3), each = 3L),
    ends = rep(c("front", "rear"), each = 3L))
  n <- 30
  fb <- sample(names(bcs), n, replace = TRUE)
  rb <- sample(names(bcs), n, replace = TRUE)
  minus <- seq_len(n) %% 3L == 0L
  reads <- vapply(seq_len(n), function(i) {
    read <- paste0(dna(15), f5, bcs[[fb[i]]], front3, dna(600), rc(paste0(f5, bcs[[rb[i]]], rear3)), dna(15))
    if (minus[i]) rc(read) else read
  }, "")
  sheet <- expand.grid(front = names(bcs), rear = names(bcs), stringsAsFactors = FALSE)
  sheet$sample <- paste0(sheet$front, "-", sheet$rear)
  e <- ducksassy:::assign_read_ends(reads, set, k = 4L, end_length = 150L, policy = "samples", samples = sheet)
  # on a reverse read, the rear construct comes first
  expect_identical(e$front_barcode, ifelse(minus, rb, fb))
  expect_identical(e$rear_barcode, ifelse(minus, fb, rb))
  expect_identical(e$orientation, ifelse(minus, "-", "+"))
  expect_identical(as.character(e$status), rep("assigned", n))
  # the sample of the molecule, whichever strand was read
  expect_identical(e$sample, paste0(fb, "-", rb))
})
