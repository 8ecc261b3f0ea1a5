# Issue 52: a break-it trial of the demultiplexing and assignment verbs.
# One regression test per defect, named after it. Reads are built by hand
# from random letters (a seed each), so what each read holds, and so its
# answer, is known without the package.

i52_dna <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")
i52_rc <- function(x) chartr("ACGT", "TGCA", paste(rev(strsplit(x, "")[[1L]]), collapse = ""))
# one substitution at letter `at` of s
i52_sub <- function(s, at) {
  l <- strsplit(s, "")[[1L]]
  l[[at]] <- setdiff(c("A", "C", "G", "T"), l[[at]])[[1L]]
  paste(l, collapse = "")
}
i52_fastq <- function(reads, path, ids = names(reads)) {
  writeLines(paste0("@", ids, "\n", reads, "\n+\n", strrep("I", nchar(reads))), path)
  path
}

# 16-letter flanks and 24-letter barcodes A, B, C: a site is 56 letters
i52_world <- function(seed = 52) {
  set.seed(seed)
  f5 <- i52_dna(16)
  f3 <- i52_dna(16)
  bc <- c(A = i52_dna(24), B = i52_dna(24), C = i52_dna(24))
  list(
    set = sassy_barcodes(bc, flank5 = f5, flank3 = f3), f5 = f5, f3 = f3,
    site = function(b) paste0(f5, bc[[b]], f3)
  )
}

# the vector, file and table paths of sassy_assign*(), row for row
i52_three_paths <- function(reads, set, ...) {
  v <- sassy_assign(reads, set, ...)
  fq <- i52_fastq(reads, withr::local_tempfile(fileext = ".fastq"))
  f <- sassy_assign_fastx(fq, set, ...)
  cols <- c("front_barcode", "front_start", "rear_barcode", "rear_start", "sample", "status", "reason")
  expect_identical(as.data.frame(f)[cols], as.data.frame(v)[cols])
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "reads", data.frame(seq = unname(reads)))
  t <- sassy_assign_table(con, "reads", set, column = "seq", ...)
  expect_identical(as.data.frame(t)[cols], as.data.frame(v)[cols])
  v
}

test_that("#52 defect 1: the rear end of a short read does not take the front end's site", {
  skip_if_not_installed("RSQLite")
  w <- i52_world()
  set.seed(1)
  reads <- c(
    # one barcode, 246 letters: within one end's 250
    one = paste0(i52_dna(10), w$site("A"), i52_dna(180)),
    # A at the front, B (one substitution) at the rear, 232 letters
    ab = paste0(i52_dna(10), w$site("A"), i52_dna(100), i52_rc(i52_sub(w$site("B"), 30)), i52_dna(10)),
    # the same with A the worse one: the front must still find A
    ab2 = paste0(i52_dna(10), i52_sub(w$site("A"), 30), i52_dna(100), i52_rc(w$site("B")), i52_dna(10)),
    # a long read, as a check: 546 letters
    long = paste0(i52_dna(10), w$site("A"), i52_dna(414), i52_rc(w$site("B")), i52_dna(10))
  )
  both <- i52_three_paths(reads, w$set, policy = "both")
  expect_identical(both$front_barcode, c("A", "A", "A", "A"))
  expect_identical(both$front_start, c(11L, 11L, 11L, 11L))
  expect_identical(both$rear_barcode, c(NA, "B", "B", "B"))
  expect_identical(both$rear_start, c(NA, 167L, 167L, 481L))
  expect_identical(both$reason, c("one end only", "ends disagree", "ends disagree", "ends disagree"))
  either <- sassy_assign(reads, w$set, policy = "either")
  expect_identical(either$sample, c("A", NA, NA, NA))
  sheet <- data.frame(front = "A", rear = "B", sample = "s1")
  s <- i52_three_paths(reads, w$set, samples = sheet)
  expect_identical(s$sample, c(NA, "s1", "s1", "s1"))
  expect_identical(s$reason, c("pair not in sample sheet", NA, NA, NA))
  # the demultiplexer says the same of each read
  dir <- withr::local_tempdir()
  fq <- i52_fastq(reads, file.path(dir, "r.fastq"))
  res <- sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, "o", "{name}.fastq"), samples = sheet)
  expect_identical(sassy_read_fastx(res$path[res$name == "s1"])$name, c("ab", "ab2", "long"))
  expect_identical(sassy_read_fastx(res$path[res$name == "unassigned"])$name, "one")
})

test_that("#52 defect 2: trimming a short read cuts its rear site too", {
  w <- i52_world()
  set.seed(2)
  insert <- i52_dna(60)
  # 192 letters: A at both ends around a 60-letter insert
  read <- c(r1 = paste0(i52_dna(10), w$site("A"), insert, i52_rc(w$site("A")), i52_dna(10)))
  dir <- withr::local_tempdir()
  fq <- i52_fastq(read, file.path(dir, "r.fastq"))
  res <- sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, "o", "{name}.fastq"),
    policy = "both", trim = TRUE)
  a <- sassy_read_fastx(res$path[res$name == "A"])
  expect_identical(a$sequence, insert)
})

test_that("#52 defect 3: sassy_assign_table() keys records on their rows, not on `id`", {
  skip_if_not_installed("RSQLite")
  w <- i52_world()
  set.seed(3)
  reads <- c(
    # a chimera: A at both ends, B in the middle of a long read
    paste0(i52_dna(10), w$site("A"), i52_dna(300), w$site("B"), i52_dna(300), i52_rc(w$site("A")), i52_dna(10)),
    # A at both ends
    paste0(i52_dna(10), w$site("A"), i52_dna(700), i52_rc(w$site("A")), i52_dna(10)),
    # A at the front only
    paste0(i52_dna(10), w$site("A"), i52_dna(700), i52_dna(70)),
    # the flanks without a barcode
    paste0(i52_dna(10), w$f5, w$f3, i52_dna(700), i52_dna(70)),
    i52_dna(800)
  )
  v <- sassy_assign(reads, w$set, chimeras = "set_aside", ends = 150)
  expect_identical(v$reason, c("chimeric", NA, NA, "flank without barcode", "no hit"))
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  # `run` is the same for every row
  DBI::dbWriteTable(con, "reads", data.frame(run = 1L, seq = reads))
  cols <- c("sample", "status", "reason", "front_barcode", "rear_barcode")
  for (id in list(NULL, "run", character())) {
    t <- sassy_assign_table(con, "reads", w$set, column = "seq", id = id, chimeras = "set_aside", ends = 150)
    expect_identical(as.data.frame(t)[cols], as.data.frame(v)[cols])
    expect_identical(names(t)[[1L]], if (length(id) || is.null(id)) "run" else "record")
    expect_false(any(grepl("ducksassy", names(t))))
  }
})

test_that("#52 defect 4: a table column named as a result column is refused, by name", {
  skip_if_not_installed("RSQLite")
  w <- i52_world()
  con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
  on.exit(DBI::dbDisconnect(con))
  DBI::dbWriteTable(con, "t", data.frame(seq = paste0(w$site("A"), i52_dna(100)), status = "x", sample = "y"))
  for (id in list(NULL, "status", "sample")) {
    e <- expect_error(sassy_assign_table(con, "t", w$set, column = "seq", id = id), class = "ducksassy_input_error")
    expect_match(conditionMessage(e), "`id` column \"(status|sample)\"")
    bare <- c(A = w$site("A"))
    e <- expect_error(sassy_assign_table(con, "t", bare, column = "seq", id = id, k = 2), class = "ducksassy_input_error")
    expect_match(conditionMessage(e), "`id` column \"(status|sample)\"")
  }
  # with other id columns all is well
  expect_identical(as.character(sassy_assign_table(con, "t", w$set, column = "seq", id = character())$sample), "A")
})

test_that("#52 defect 5: barcode names in sample-sheet errors are shown, never evaluated", {
  w <- i52_world()
  reads <- paste0(w$site("A"), i52_dna(100))
  f <- withr::local_tempfile()
  code <- paste0("{writeLines('ran', '", f, "')}")
  for (bad in c(code, "a{", "}")) {
    sheet <- data.frame(front = bad, rear = NA, sample = "s")
    e <- expect_error(sassy_assign(reads, w$set, samples = sheet), class = "ducksassy_samples_error")
    expect_true(grepl(if (bad == code) "writeLines('ran'," else bad, conditionMessage(e), fixed = TRUE))
    expect_false(file.exists(f))
  }
  # names of the set in the list of its barcodes, and a repeated pair
  bc <- c(A = "ACGTACGTACGTACGTACGTAGCA", B = "TTGCAAGGCCTTAAGGCTAGCATG")
  names(bc) <- c(code, "b{")
  set <- sassy_barcodes(bc, flank5 = "GGTGCTGAACCATGCA", flank3 = "CCTTAACCGGTACGAT")
  e <- expect_error(sassy_assign(reads, set, samples = data.frame(front = "x", rear = NA, sample = "s")),
    class = "ducksassy_samples_error")
  expect_true(grepl("writeLines('ran',", conditionMessage(e), fixed = TRUE))
  expect_false(file.exists(f))
  sheet <- data.frame(front = c(code, code), rear = c("b{", "b{"), sample = c("s", "t"))
  e <- expect_error(sassy_assign(reads, set, samples = sheet), class = "ducksassy_samples_error")
  expect_true(grepl("b{", conditionMessage(e), fixed = TRUE))
  expect_false(file.exists(f))
})

test_that("#52 defect 6: a run that cannot replace one output replaces none", {
  w <- i52_world()
  set.seed(6)
  dir <- withr::local_tempdir()
  reads <- c(a = paste0(w$site("A"), i52_dna(100)), b = paste0(w$site("B"), i52_dna(100)), n = i52_dna(150))
  fq <- i52_fastq(reads, file.path(dir, "r.fastq"))
  bare <- c(a = w$site("A"), b = w$site("B"))
  out <- file.path(dir, "o", "{name}.fastq")
  first <- sassy_demultiplex_fastx(fq, bare, output = out, k = 4)
  before <- tools::md5sum(first$path[1:2])
  # a second run of other reads, while `unassigned` has become a folder
  fq2 <- i52_fastq(rev(reads), file.path(dir, "r2.fastq"), ids = c("n2", "b2", "a2"))
  un <- first$path[first$name == "unassigned"]
  unlink(un)
  dir.create(un)
  expect_error(sassy_demultiplex_fastx(fq2, bare, output = out, k = 4, overwrite = TRUE), class = "ducksassy_error")
  expect_identical(tools::md5sum(first$path[1:2]), before)
  expect_true(dir.exists(un))
  # no file of the failed run is left beside them
  expect_setequal(list.files(file.path(dir, "o"), all.files = TRUE, no.. = TRUE),
    c("a.fastq", "b.fastq", "unassigned.fastq", "ambiguous.fastq", ".demultiplex-outputs.tsv"))
})

test_that("#52 defect 7: one chimera rule: a site straddling letter `ends` is no middle site", {
  w <- i52_world()
  set.seed(7)
  L <- 150L
  reads <- c(
    # B from letter 146 to 201: over letter L = 150 by 5 letters
    straddle = paste0(i52_dna(10), w$site("A"), i52_dna(79), w$site("B"), i52_dna(300), i52_rc(w$site("A")), i52_dna(10)),
    # B wholly in the middle
    middle = paste0(i52_dna(10), w$site("A"), i52_dna(200), w$site("B"), i52_dna(200), i52_rc(w$site("A")), i52_dna(10))
  )
  a <- sassy_assign(reads, w$set, chimeras = "set_aside", ends = L)
  expect_identical(a$reason, c(NA, "chimeric"))
  dir <- withr::local_tempdir()
  fq <- i52_fastq(reads, file.path(dir, "r.fastq"))
  res <- sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, "o", "{name}.fastq"),
    chimeras = "set_aside", ends = L)
  expect_identical(sassy_read_fastx(res$path[res$name == "A"])$name, "straddle")
  expect_identical(sassy_read_fastx(res$path[res$name == "chimeric"])$name, "middle")
})

test_that("#52 defect 8: a barcode named \"NA\" is no missing rear end", {
  w <- i52_world()
  set.seed(8)
  bc <- c(A = i52_dna(24), "NA" = i52_dna(24))
  f5 <- i52_dna(16)
  f3 <- i52_dna(16)
  set <- sassy_barcodes(bc, flank5 = f5, flank3 = f3)
  read <- c(r = paste0(i52_dna(10), f5, bc[["A"]], f3, i52_dna(600)))
  sheet <- data.frame(front = "A", rear = "NA", sample = "s")
  a <- sassy_assign(read, set, samples = sheet)
  expect_identical(a$reason, "pair not in sample sheet")
  dir <- withr::local_tempdir()
  fq <- i52_fastq(read, file.path(dir, "r.fastq"))
  res <- sassy_demultiplex_fastx(fq, set, output = file.path(dir, "o", "{name}.fastq"), samples = sheet)
  expect_identical(res$records[res$name == "s"], 0)
  # the real NA takes any rear end; it and "NA" are two rows
  sheet2 <- data.frame(front = c("A", "A"), rear = c("NA", NA), sample = c("s", "t"))
  expect_identical(sassy_assign(read, set, samples = sheet2)$sample, "t")
})

test_that("#52 defect 9: no sample's output is the runs' manifest", {
  dir <- withr::local_tempdir()
  fq <- i52_fastq(c(r = "ACGTACGTACGTAAAAAAAAAAAA"), file.path(dir, "r.fastq"))
  bc <- c(".demultiplex-outputs.tsv" = "ACGTACGTACGT")
  expect_error(sassy_demultiplex_fastx(fq, bc, output = file.path(dir, "{name}"), k = 0),
    class = "ducksassy_sample_name_error")
  expect_false(file.exists(file.path(dir, ".demultiplex-outputs.tsv")))
  # up to case too
  bc <- c(".Demultiplex-Outputs.TSV" = "ACGTACGTACGT")
  expect_error(sassy_demultiplex_fastx(fq, bc, output = file.path(dir, "{name}"), k = 0),
    class = "ducksassy_sample_name_error")
})

test_that("#52 defect 10: sassy_assign_fastx() refuses mates out of order", {
  w <- i52_world()
  set.seed(10)
  dir <- withr::local_tempdir()
  r1 <- c(paste0(w$site("A"), i52_dna(100)), paste0(w$site("B"), i52_dna(100)))
  r2 <- c(paste0(w$site("A"), i52_dna(100)), paste0(w$site("B"), i52_dna(100)))
  f1 <- i52_fastq(r1, file.path(dir, "r1.fastq"), ids = c("p1/1", "p2/1"))
  f2 <- i52_fastq(rev(r2), file.path(dir, "r2.fastq"), ids = c("p2/2", "p1/2"))
  e <- expect_error(sassy_assign_fastx(f1, w$set, mates = f2), class = "ducksassy_mates_error")
  expect_match(conditionMessage(e), "p1")
  # in order, with /1 and /2 and descriptions, they are mates
  f3 <- i52_fastq(r2, file.path(dir, "r3.fastq"), ids = c("p1/2 x=1", "p2/2 x=2"))
  a <- sassy_assign_fastx(f1, w$set, mates = f3)
  expect_identical(a$sample, c("A", "B"))
})

test_that("#52 defect 13: a run of N is no barcode", {
  w <- i52_world()
  set.seed(13)
  reads <- c(
    n30 = paste0(i52_dna(10), w$site("A"), i52_dna(400), strrep("N", 30), i52_dna(20)),
    n45 = paste0(i52_dna(10), w$site("A"), i52_dna(400), strrep("N", 45), i52_dna(20)),
    n60 = paste0(i52_dna(10), w$site("A"), i52_dna(400), strrep("N", 60), i52_dna(20)),
    allN = strrep("N", 300)
  )
  a <- sassy_assign(reads, w$set)
  expect_identical(a$sample, c("A", "A", "A", NA))
  expect_identical(a$reason, c(NA, NA, NA, "no hit"))
  # the same as with the guard given
  g <- sassy_assign(reads, w$set, max_n_frac = 0.2)
  expect_identical(a$reason, g$reason)
  # a larger max_n_frac, given, is the user's
  expect_identical(sassy_assign(reads[["allN"]], w$set, max_n_frac = 1)$status, factor("ambiguous", levels(a$status)))
  dir <- withr::local_tempdir()
  fq <- i52_fastq(reads, file.path(dir, "r.fastq"))
  res <- sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, "o", "{name}.fastq"))
  expect_identical(sassy_read_fastx(res$path[res$name == "A"])$name, c("n30", "n45", "n60"))
  expect_identical(sassy_read_fastx(res$path[res$name == "unassigned"])$name, "allN")
})

test_that("#52 defect 11: a SIGTERM removes the folders the run created, then ends R", {
  skip_on_os("windows")
  skip_if_not_installed("processx")
  dir <- withr::local_tempdir()
  set.seed(11)
  reads <- stats::setNames(vapply(1:40, function(i) i52_dna(25000), ""), paste0("r", 1:40))
  fq <- i52_fastq(reads, file.path(dir, "long.fastq"))
  out <- file.path(dir, "o", "a", "b")
  script <- file.path(dir, "run.R")
  writeLines(c(
    "suppressPackageStartupMessages(library(ducksassy))",
    sprintf("p <- %s", deparse(i52_dna(1000))),
    sprintf(
      "sassy_demultiplex_fastx(%s, c(a = p), output = file.path(%s, '{name}.fastq'), k = 600, threads = 1)",
      deparse(fq), deparse(out)
    ),
    "cat('finished\\n')"
  ), script)
  px <- processx::process$new(
    file.path(R.home("bin"), "Rscript"), script,
    env = c("current", R_LIBS = paste(.libPaths(), collapse = ":")),
    stdout = "|", stderr = "|"
  )
  on.exit(px$kill(), add = TRUE)
  deadline <- Sys.time() + 60
  while (Sys.time() < deadline && px$is_alive() &&
    !any(grepl("ducksassy", list.files(out, all.files = TRUE)))) {
    Sys.sleep(0.05)
  }
  expect_true(px$is_alive(), info = "the run ended before SIGTERM: make it longer")
  px$signal(tools::SIGTERM)
  px$wait(20000)
  expect_false(px$is_alive())
  expect_identical(px$get_exit_status(), -tools::SIGTERM)
  expect_false(grepl("finished", px$read_all_output()))
  # the folders it created are gone, as after Ctrl-C
  expect_false(dir.exists(file.path(dir, "o")))
})

test_that("#52 rough edges: argument errors name their argument; sample sheets name what is wrong", {
  w <- i52_world()
  set.seed(52)
  dir <- withr::local_tempdir()
  reads <- c(a = paste0(w$site("A"), i52_dna(100)))
  fq <- i52_fastq(reads, file.path(dir, "r.fastq"))
  out <- file.path(dir, "o", "{name}.fastq")
  # `report` errors are about `report`
  e <- expect_error(sassy_demultiplex_fastx(fq, w$set, output = out, report = file.path(dir, "rep.tsv.bz2")),
    class = "ducksassy_input_error")
  expect_identical(e$arg, "report")
  expect_match(conditionMessage(e), "`report`")
  # reason_files outside the both-ends mode, as chimeras there
  e <- expect_error(sassy_demultiplex_fastx(fq, c(a = w$site("A")), output = out, k = 2, reason_files = TRUE),
    class = "ducksassy_input_error")
  expect_identical(e$arg, "reason_files")
  # a sheet without a column names it; a bad row is named
  e <- expect_error(sassy_assign(reads, w$set, samples = data.frame(front = "A", sample = "s")),
    class = "ducksassy_samples_error")
  expect_match(conditionMessage(e), "no column `rear`")
  e <- expect_error(sassy_assign(reads, w$set, samples = data.frame(front = c("A", NA), rear = NA, sample = c("s", "t"))),
    class = "ducksassy_input_error")
  expect_match(conditionMessage(e), "Row 2")
  # a row given twice is one row
  sheet <- data.frame(front = c("A", "A"), rear = c(NA, NA), sample = c("s", "s"))
  expect_identical(sassy_assign(reads, w$set, samples = sheet)$sample, "s")
  # a kit of one end's rows with policy = "both": a warning
  front_only <- sassy_barcodes(c(A = i52_dna(24)), flank5 = w$f5, flank3 = w$f3, ends = "front")
  expect_warning(sassy_assign(reads, front_only, policy = "both"), class = "ducksassy_policy_warning")
  # the reads' file as its own mates
  e <- expect_error(sassy_assign_fastx(fq, w$set, mates = fq), class = "ducksassy_input_error")
  expect_identical(e$arg, "mates")
  # the reserved names, each once
  r <- ducksassy:::demux_reserved_names()
  expect_identical(r, unique(r))
  # an output under a regular file: the error, no warning of dir.create()
  file.create(file.path(dir, "plain"))
  expect_no_warning(expect_error(
    sassy_demultiplex_fastx(fq, w$set, output = file.path(dir, "plain", "sub", "{name}.fastq")),
    class = "ducksassy_error"
  ))
})
