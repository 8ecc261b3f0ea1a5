# Naming the kit from the reads (issue 51, "Numbers"; shown by
# benchmarks/kits.Rmd): sassy_detect_kit() on simulated runs of five
# arrangements and of a custom kit, its time next to the time to read the
# same records, and the wrong-kit warning.
#
# The runs: each kit's rows as dorado arranges them (ducksassy's kit table,
# the kit's whole flanks), 12 of its barcodes: native barcoding
# (SQK-NBD114-96, both ends), rapid (SQK-RBK114-96, front only), PCR cDNA
# (SQK-PCB114-24, a front and a different rear construct), 16S
# (SQK-16S114-24), rapid PCR (SQK-RPB114-24); and a custom kit (random
# flanks and barcodes, both ends). A read: up to 30 random letters, the
# front construct, 500-3000 random letters, the rear construct, up to 30
# random letters; half reverse complemented; 15% with the front construct
# cut into (up to 20 letters) and 15% without the rear one; 10% without any
# construct; then nanopore-like errors (simulate_reads.R's sim_errors():
# about 6% substitutions, deletions, insertions, homopolymer lengths).
#
# Time (--reps paired repetitions, 2 threads): sassy_read_fastx(path,
# n_max = --reads) against sassy_detect_kit(path, n = --reads) (which reads
# the same records, then searches), back to back, alternating which runs
# first.
#
#   Rscript benchmarks/detect_kit.R [--reads=10000] [--reps=7] [--seed=51]
#   smoke run: --reads=500 --reps=2
#
# Writes benchmarks/data/detect_kit_runs.csv, detect_kit_speed.csv,
# detect_kit_warning.csv and detect_kit_receipt.json.

source("benchmarks/common.R")
source("benchmarks/simulate_reads.R")
suppressMessages(library(ducksassy))
args <- bench_args(list(reads = 10000L, reps = 7L, seed = 51L, threads = 2L))
load_before <- load_average()

kit_rows <- function(kit) {
  tab <- ducksassy:::kit_choice(ducksassy:::kit_table(), NULL)
  tab[tab$kit == kit, , drop = FALSE]
}

sim_kit_run <- function(rows, n, seed, n_barcodes = 12L) {
  set.seed(seed)
  names <- utils::head(unique(rows$barcode), n_barcodes)
  seqs <- character(n)
  truth <- character(n)
  for (i in seq_len(n)) {
    b <- sample(names, 1L)
    r <- rows[rows$barcode == b, , drop = FALSE]
    con <- function(j) paste0(r$flank5[j], r$sequence[j], r$flank3[j])
    front <- rear <- ""
    for (j in seq_len(nrow(r))) {
      if (r$ends[j] %in% c("front", "both")) front <- con(j)
      if (r$ends[j] == "both") rear <- sim_rc(con(j))
      if (r$ends[j] == "rear") rear <- con(j)
    }
    if (stats::runif(1) < 0.10) {
      front <- rear <- ""
      b <- "none"
    }
    if (nzchar(rear) && stats::runif(1) < 0.15) rear <- ""
    if (nzchar(front) && stats::runif(1) < 0.15) front <- substring(front, sample.int(20L, 1L))
    x <- paste0(sim_random_dna(sample.int(30L, 1L)), front, sim_random_dna(499L + sample.int(2501L, 1L)),
      rear, sim_random_dna(sample.int(30L, 1L)))
    if (stats::runif(1) < 0.5) x <- sim_rc(x)
    seqs[[i]] <- sim_errors(x, error = 0.06, homopolymer = 0.10)
    truth[[i]] <- b
  }
  list(sequence = seqs, truth = truth, used = names)
}

custom_rows <- function(seed) {
  set.seed(seed)
  data.frame(
    kit = "custom", barcode = sprintf("bc%02d", 1:12),
    sequence = vapply(1:12, function(i) sim_random_dna(24L), ""),
    flank5 = sim_random_dna(20L), flank3 = sim_random_dna(20L), ends = "both", stringsAsFactors = FALSE
  )
}

designs <- list(
  native = "SQK-NBD114-96", rapid = "SQK-RBK114-96", pcr_cdna = "SQK-PCB114-24",
  s16 = "SQK-16S114-24", rapid_pcr = "SQK-RPB114-24", custom = NA_character_
)
fq_of <- function(name) bench_cache(sprintf("detect_kit_%s_%d_%d.fastq", name, args$reads, args$seed))
runs <- list()
for (dn in names(designs)) {
  kit <- designs[[dn]]
  rows <- if (is.na(kit)) custom_rows(args$seed) else kit_rows(kit)
  run <- sim_kit_run(rows, args$reads, args$seed + match(dn, names(designs)))
  path <- fq_of(dn)
  writeLines(paste0("@", dn, "_", seq_along(run$sequence), " truth=", run$truth, "\n", run$sequence, "\n+\n",
    strrep("5", nchar(run$sequence))), path)
  runs[[dn]] <- list(kit = kit, path = path, run = run)
}

# ---- accuracy: the arrangement named first ------------------------------------
res <- do.call(rbind, lapply(names(runs), function(dn) {
  x <- runs[[dn]]
  d <- sassy_detect_kit(x$path, n = args$reads, threads = args$threads)
  first_kits <- if (nrow(d)) d$kits[[1]] else character()
  found <- if (nrow(d)) names(d$barcodes[[1]]) else character()
  data.frame(
    design = dn, truth_kit = if (is.na(x$kit)) "custom" else x$kit, rows = nrow(d),
    first_kit = if (nrow(d)) d$kit[[1]] else NA_character_,
    first_kits = paste(first_kits, collapse = " "),
    right_first = if (is.na(x$kit)) nrow(d) == 0L else x$kit %in% first_kits,
    first_fraction = if (nrow(d)) d$fraction[[1]] else NA_real_,
    first_ends = if (nrow(d)) d$ends[[1]] else NA_character_,
    barcodes_used = length(x$run$used),
    barcodes_found = length(found),
    barcodes_right = all(found %in% x$run$used) && all(x$run$used %in% found),
    other_rows = paste(if (nrow(d) > 1L) sprintf("%s %.1f%%", d$kit[-1], 100 * d$fraction[-1]) else "", collapse = "; "),
    stringsAsFactors = FALSE
  )
}))
print(res)

# ---- time: detection against reading the same records ---------------------
speed <- list()
for (dn in c("native", "rapid", "pcr_cdna")) {
  p <- runs[[dn]]$path
  invisible(sassy_detect_kit(p, n = args$reads, threads = args$threads))
  for (rep in seq_len(args$reps)) {
    first_read <- rep %% 2L == 1L
    t <- list()
    go <- function(what) {
      if (what == "read") {
        timed(function() sassy_read_fastx(p, n_max = args$reads))$elapsed
      } else {
        timed(function() sassy_detect_kit(p, n = args$reads, threads = args$threads))$elapsed
      }
    }
    for (what in if (first_read) c("read", "detect") else c("detect", "read")) t[[what]] <- go(what)
    speed[[length(speed) + 1L]] <- data.frame(design = dn, rep = rep, read_seconds = t$read,
      detect_seconds = t$detect, ratio = t$detect / t$read)
  }
}
speed <- do.call(rbind, speed)
print(speed)

# ---- the wrong kit given ------------------------------------------------------
warn_rows <- do.call(rbind, lapply(list(
  c("pcr_cdna", "SQK-RBK114-24"), c("rapid", "SQK-NBD114-24"), c("native", "SQK-NBD114-96")
), function(x) {
  w <- NULL
  t <- timed(function() withCallingHandlers(
    sassy_assign_fastx(runs[[x[1]]]$path, sassy_kit(x[2]), ends = 150, threads = args$threads),
    ducksassy_kit_warning = function(cnd) {
      w <<- cnd
      invokeRestart("muffleWarning")
    }
  ))
  t_off <- timed(function() withr::with_options(list(ducksassy.kit_check = FALSE),
    sassy_assign_fastx(runs[[x[1]]]$path, sassy_kit(x[2]), ends = 150, threads = args$threads)))
  a <- t$value
  data.frame(
    design = x[1], given = x[2], warned = !is.null(w),
    detected = if (is.null(w)) NA_character_ else w$detected,
    share_given = if (is.null(w)) NA_real_ else w$shares[["given"]],
    share_detected = if (is.null(w)) NA_real_ else w$shares[["detected"]],
    message = if (is.null(w)) "" else gsub("\n", " ", cli::ansi_strip(conditionMessage(w))),
    assigned_pct = 100 * mean(a$status == "assigned"),
    seconds = t$elapsed, seconds_check_off = t_off$elapsed,
    stringsAsFactors = FALSE
  )
}))
print(warn_rows)

write_csv(res, "detect_kit_runs")
write_csv(speed, "detect_kit_speed")
write_csv(warn_rows, "detect_kit_warning")
write_receipt("detect_kit", args, load_before = load_before, extra = list(
  designs = lapply(names(runs), function(dn) list(design = dn, kit = runs[[dn]]$kit,
    reads = length(runs[[dn]]$run$sequence), none = sum(runs[[dn]]$run$truth == "none"),
    mean_length = mean(nchar(runs[[dn]]$run$sequence)))),
  commands = list(
    detect = sprintf("sassy_detect_kit(path, n = %d, threads = %d)", args$reads, args$threads),
    read = sprintf("sassy_read_fastx(path, n_max = %d)", args$reads)
  )
))
