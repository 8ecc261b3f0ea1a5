# Which barcode is this read? Assignment and demultiplexing of ONT-like
# reads (issue 23, benchmarks/barcodes.Rmd).
#
# Workload (benchmarks/barcodes_data.R, seeded): `--reads` reads of
# 500-6,000 random bases, `--barcodes` random 24-base barcodes; 90% of the
# reads carry one barcode 20-60 bases after the start and, reverse-
# complemented, the same barcode 60-100 bases before the end, 0-3 random
# edits each copy; k = `--k`, one thread unless said otherwise.
#
# (a) search: sassy_search(reads, barcodes, k) (both strands) vs
#     `sassy_barcodes`, a Rust loop calling sassy's batched search directly
#     (src/rust/core/examples/sassy_barcodes.rs: encode_patterns once, then
#     search_encoded_patterns per read on the read and on its reverse
#     complement); and both forward only (rc = FALSE, --rc false). And
#     `sassy_barcodes_new_rc` (issue 39's baseline): the same loop with
#     sassy's own both-strand batched search, `Searcher::new_rc()`, one
#     call per read (--new_rc true); `r_search_no_rc_filter` and
#     `r_search_no_lanes`: sassy_search() of both strands with
#     DUCKSASSY_RC_FILTER=off or DUCKSASSY_LANES=off (each strategy off).
# (b) assign: sassy_assign(reads, barcodes, k, ends = `--ends`) vs
#     sassy_search() of the whole reads (and sassy_assign() of the whole
#     reads, ends = NULL).
# (c) demultiplex: sassy_demultiplex_fastx(fastq, barcodes, output =
#     "<dir>/{name}.fastq", k, ends, threads = 1) of the FASTQ of all reads
#     vs cutadapt (Debian's 4.2; `-j 1 -e k -O 20 -g file:barcodes.fasta
#     --revcomp --action=none -o {name}.fastq`) on the first
#     `--cutadapt_reads` reads (it is slow), compared per read; the
#     demultiplexing of that subset too, for accuracy on the same reads;
#     and cutadapt on the first read alone (`cutadapt_one`: its start-up,
#     which the report also shows subtracted).
# (d) threads: sassy_demultiplex_fastx() of all reads with each of
#     `--threads` (ratios to 1 thread).
# Every repetition runs every path once, in an order rotated from one
# repetition to the next (paired ratios; the Rust binary reads its input
# and makes one untimed warm-up call before its timed call). Accuracy
# against the generator's truth: for each method, among the barcoded reads
# correct, wrong, ambiguous, unassigned; among the reads without one,
# those assigned. cutadapt's assignment is read from its output files
# (unknown.fastq: unassigned), ducksassy's from sassy_assign()'s status and
# pattern_name, or its demultiplexed files. A function the installed
# ducksassy lacks (sassy_assign(), sassy_demultiplex_fastx()) gives rows of
# NA with a note, and the other parts still run.
#
# Setup: cutadapt is installed from Debian (apt-get update; apt-get install
# -y cutadapt) when it is missing, unless --install_cutadapt=false.
#
#   Rscript benchmarks/barcodes.R [--reads=3000] [--barcodes=96] [--k=3]
#     [--ends=150] [--reps=10] [--cutadapt_reads=300] [--cutadapt_reps=6]
#     [--threads=1,2] [--seed=23] [--install_cutadapt=true]
#   Small smoke run: --reads=300 --reps=2 --cutadapt_reads=30 --cutadapt_reps=1
#
# Writes benchmarks/data/barcodes.csv (times), barcodes_accuracy.csv and
# barcodes_receipt.json; the inputs go to $DUCKSASSY_BENCH_CACHE/barcodes-*.

source("benchmarks/common.R")
source("benchmarks/barcodes_data.R")
args <- bench_args(list(
  reads = 3000L, barcodes = 96L, k = 3L, ends = 150L, reps = 10L,
  cutadapt_reads = 300L, cutadapt_reps = 6L, threads = c(1L, 2L), seed = 23L,
  install_cutadapt = TRUE
))
load_before <- load_average()
threads <- unique(c(1L, args$threads))

# ---- setup: cutadapt --------------------------------------------------------
cutadapt_bin <- function() unname(Sys.which("cutadapt"))
if (!nzchar(cutadapt_bin()) && args$install_cutadapt) {
  sudo <- if (Sys.info()[["effective_user"]] != "root" && nzchar(Sys.which("sudo"))) "sudo " else ""
  message("installing cutadapt from Debian")
  system(paste0(sudo, "apt-get update -qq && ", sudo,
                "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cutadapt"))
}
cutadapt_why <- NULL
cutadapt_version <- NA_character_
if (!nzchar(cutadapt_bin())) {
  cutadapt_why <- "cutadapt is not installed"
} else {
  cutadapt_version <- system2(cutadapt_bin(), "--version", stdout = TRUE)[1]
}

has <- function(fn) exists(fn, envir = asNamespace("ducksassy"), inherits = FALSE)
missing_fns <- Filter(Negate(has), c("sassy_assign", "sassy_demultiplex_fastx"))
for (fn in missing_fns) message("the installed ducksassy has no ", fn, "(): its rows are NA")

# ---- the workload -------------------------------------------------------------
data <- make_barcode_data(reads = args$reads, barcodes = args$barcodes, seed = args$seed)
dir <- bench_cache(sprintf("barcodes-%d-%d-%d", args$reads, args$barcodes, args$seed))
paths <- write_barcode_data(dir, data)
reads <- unname(data$reads)
barcodes <- data$barcodes
truth <- data$truth
n_sub <- min(args$cutadapt_reads, length(reads))
sub_fastq <- file.path(dir, sprintf("reads-first%d.fastq", n_sub))
if (!file.exists(sub_fastq)) writeLines(readLines(paths$fastq, n = 4L * n_sub), sub_fastq)
one_fastq <- file.path(dir, "reads-first1.fastq")
if (!file.exists(one_fastq)) writeLines(readLines(paths$fastq, n = 4L), one_fastq)
bases <- sum(as.numeric(nchar(reads)))
message(sprintf("%d reads (%.1f Mbp; %d with a barcode), %d barcodes, k = %d; cutadapt on the first %d",
                length(reads), bases / 1e6, sum(!is.na(truth$barcode)), length(barcodes), args$k, n_sub))

bin <- rust_examples()
rust_args <- function(rc, new_rc = FALSE) {
  c("--input", paths$txt, "--patterns_file", paths$barcodes_txt, "--k", args$k,
    "--rc", tolower(rc), "--new_rc", tolower(new_rc), "--reps", 1, "--warmup", 1)
}
#' `expr` with one of ducksassy's strategies switched off (read when a
#' search starts).
strategy_off <- function(var, expr) {
  old <- Sys.getenv(var, unset = NA)
  do.call(Sys.setenv, stats::setNames(list("off"), var))
  on.exit(if (is.na(old)) Sys.unsetenv(var) else do.call(Sys.setenv, stats::setNames(list(old), var)))
  expr
}

out_root <- bench_cache("barcodes-out")
unlink(out_root, recursive = TRUE)
dir.create(out_root, recursive = TRUE)
#' The output folder of file path `pn`, emptied (before its timed call).
clear_dir <- function(pn) {
  d <- file.path(out_root, pn)
  unlink(d, recursive = TRUE)
  dir.create(d, recursive = TRUE)
  d
}

#' Read names of every FASTQ in `d`, as a data frame name -> file stem
#' (the assignment a demultiplexer made: one file per barcode).
assignment_from_files <- function(d) {
  files <- list.files(d, pattern = "\\.fastq$", full.names = TRUE)
  per <- lapply(files, function(f) {
    l <- readLines(f)
    nm <- l[seq_along(l) %% 4L == 1L]
    nm <- sub("[[:space:]].*$", "", substring(nm, 2L))
    data.frame(name = nm, output = rep(sub("\\.fastq$", "", basename(f)), length(nm)),
               stringsAsFactors = FALSE)
  })
  do.call(rbind, c(list(data.frame(name = character(), output = character())), per))
}

# ---- the paths --------------------------------------------------------------
# each returns its raw value (hits, assignments, the Rust binary's report);
# summarise() reads it after the timed call
search_paths <- list(
  r_search = function() sassy_search(reads, barcodes, k = args$k, threads = 1L),
  r_search_forward = function() sassy_search(reads, barcodes, k = args$k, rc = FALSE, threads = 1L),
  r_search_no_rc_filter = function() strategy_off("DUCKSASSY_RC_FILTER", sassy_search(reads, barcodes, k = args$k, threads = 1L)),
  r_search_no_lanes = function() strategy_off("DUCKSASSY_LANES", sassy_search(reads, barcodes, k = args$k, threads = 1L)),
  r_assign_ends = if (has("sassy_assign")) function() {
    sassy_assign(reads, barcodes, k = args$k, ends = args$ends, threads = 1L)
  },
  r_assign_whole = if (has("sassy_assign")) function() sassy_assign(reads, barcodes, k = args$k, threads = 1L),
  sassy_barcodes = function() run_example(bin, "sassy_barcodes", rust_args(TRUE)),
  sassy_barcodes_forward = function() run_example(bin, "sassy_barcodes", rust_args(FALSE)),
  sassy_barcodes_new_rc = function() run_example(bin, "sassy_barcodes", rust_args(TRUE, new_rc = TRUE))
)

demux <- function(fastq, th, tag, ends = args$ends) {
  out <- file.path(out_root, tag)
  res <- sassy_demultiplex_fastx(fastq, barcodes, output = file.path(out, "{name}.fastq"),
                                 k = args$k, ends = ends, threads = th)
  list(out = out, res = res)
}
cutadapt <- function(fastq, tag) {
  out <- file.path(out_root, tag)
  log <- file.path(out_root, paste0(tag, ".log"))
  status <- system2(cutadapt_bin(), c(
    "-j", "1", "-e", args$k, "-O", "20", "-g", paste0("file:", normalizePath(paths$fasta)),
    "--revcomp", "--action=none", "-o", shQuote(file.path(out, "{name}.fastq")), shQuote(fastq)
  ), stdout = log, stderr = log)
  if (status != 0) stop("cutadapt failed (status ", status, "): ", paste(utils::tail(readLines(log), 5), collapse = "\n"))
  list(out = out)
}
file_paths <- c(
  if (has("sassy_demultiplex_fastx")) stats::setNames(lapply(threads, function(th) {
    force(th)
    function() demux(paths$fastq, th, paste0("demux_threads", th))
  }), paste0("demux_threads", threads)),
  if (has("sassy_demultiplex_fastx")) list(demux_subset = function() demux(sub_fastq, 1L, "demux_subset")),
  # the whole reads searched (no `ends`): where the search, not reading
  # and writing the files, takes the time
  if (has("sassy_demultiplex_fastx")) stats::setNames(lapply(threads, function(th) {
    force(th)
    function() demux(paths$fastq, th, paste0("wdemux_threads", th), ends = NULL)
  }), paste0("wdemux_threads", threads)),
  if (is.null(cutadapt_why)) list(cutadapt_subset = function() cutadapt(sub_fastq, "cutadapt_subset"),
                                  cutadapt_one = function() cutadapt(one_fastq, "cutadapt_one"))
)
path_records <- function(pn) {
  if (pn %in% c("demux_subset", "cutadapt_subset")) n_sub else if (pn == "cutadapt_one") 1L else length(reads)
}
path_bases <- function(pn) sum(as.numeric(nchar(reads[seq_len(path_records(pn))])))
path_threads <- function(pn) if (grepl("^w?demux_threads", pn)) as.integer(sub("^w?demux_threads", "", pn)) else 1L

# ---- timing ---------------------------------------------------------------------
rows <- list()
add <- function(part, pn, rep, order, seconds, cpu, v = list(), note = "") {
  get <- function(f) if (is.numeric(v[[f]])) v[[f]][[1]] else NA_real_
  hits <- get("hits")
  rows[[length(rows) + 1L]] <<- data.frame(
    part = part, path = pn, workload = "ont_like", records = path_records(pn),
    bases = path_bases(pn),
    threads = path_threads(pn), rep = rep, order = order, seconds = seconds, cpu_seconds = cpu,
    seconds_per_read = seconds / path_records(pn), hits = hits, cost_sum = get("cost_sum"),
    start_sum = get("start_sum"), minus = get("minus"), cigar_bytes = get("cigar_bytes"),
    reads_with_hits = get("reads_with_hits"),
    note = note, load1 = load_average()[1], stringsAsFactors = FALSE
  )
  message(sprintf("%-8s %-22s rep=%d %s%s", part, pn, rep,
                  if (is.na(seconds)) "NA" else sprintf("%.3f s", seconds),
                  if (!is.na(hits)) sprintf(", %s hits", format(hits)) else ""))
}
#' Time one call: elapsed and CPU seconds of this process and its children
#' (cutadapt); the Rust binary reports its own timed call.
time_call <- function(f) {
  gc(verbose = FALSE)
  t0 <- proc.time()
  v <- f()
  d <- proc.time() - t0
  list(elapsed = d[["elapsed"]], cpu = sum(d[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE),
       value = v)
}
na_rows <- function(rep) {
  if (has("sassy_assign") && has("sassy_demultiplex_fastx")) return(invisible())
  if (!has("sassy_assign")) for (pn in c("r_assign_ends", "r_assign_whole")) {
    add("assign", pn, rep, NA_integer_, NA_real_, NA_real_, note = "missing: sassy_assign()")
  }
  if (!has("sassy_demultiplex_fastx")) for (pn in c(paste0("demux_threads", threads), "demux_subset")) {
    add(if (startsWith(pn, "demux_threads") && pn != "demux_threads1") "threads" else "demux", pn, rep,
        NA_integer_, NA_real_, NA_real_, note = "missing: sassy_demultiplex_fastx()")
  }
}
part_of <- function(pn) {
  if (pn %in% c("r_assign_ends", "r_assign_whole")) "assign"
  else if (grepl("^w?demux_threads", pn) && pn != "demux_threads1") "threads"
  else if (pn %in% c("demux_threads1", "demux_subset", "cutadapt_subset", "cutadapt_one")) "demux"
  else "search"
}

#' The numbers a path's value gives for the CSV: the hit summary of
#' sassy_search() (as the Rust binary prints it), the reads assigned (or
#' ambiguous) by sassy_assign() or written to a barcode's (or the
#' ambiguous) file by the demultiplexing.
summarise <- function(pn, v) {
  if (pn %in% c("r_search", "r_search_forward", "r_search_no_rc_filter", "r_search_no_lanes")) {
    return(c(hit_summary(v), list(reads_with_hits = length(unique(v$record)))))
  }
  if (pn %in% c("r_assign_ends", "r_assign_whole") && is.data.frame(v) && !is.null(v$status)) {
    return(list(reads_with_hits = sum(v$status != "unassigned")))
  }
  if (startsWith(pn, "demux") && is.data.frame(v$res) && !is.null(v$res$reads)) {
    nm <- if (!is.null(v$res$output)) v$res$output else v$res$name
    if (!is.null(nm)) return(list(reads_with_hits = sum(v$res$reads[sub("\\.f(ast)?q.*$", "", basename(nm)) != "unassigned"])))
  }
  list()
}
search_paths <- Filter(Negate(is.null), search_paths)
# warm-up (and the values the accuracy below uses)
last <- lapply(search_paths, function(f) f())
for (pn in setdiff(names(file_paths), c("cutadapt_subset", "cutadapt_one"))) {
  clear_dir(pn)
  invisible(file_paths[[pn]]())
}

all_paths <- c(search_paths, file_paths)
for (rep in seq_len(args$reps)) {
  names_rep <- names(all_paths)
  if (rep > args$cutadapt_reps) names_rep <- setdiff(names_rep, c("cutadapt_subset", "cutadapt_one"))
  # rotate the order, so that no path always runs first or after the same one
  names_rep <- names_rep[(seq_along(names_rep) + rep - 2L) %% length(names_rep) + 1L]
  for (i in seq_along(names_rep)) {
    pn <- names_rep[[i]]
    if (pn %in% c("sassy_barcodes", "sassy_barcodes_forward", "sassy_barcodes_new_rc")) {
      v <- all_paths[[pn]]()
      add(part_of(pn), pn, rep, i, v$seconds, v$cpu_seconds, as.list(v))
      next
    }
    if (pn %in% names(file_paths)) clear_dir(pn)
    r <- time_call(all_paths[[pn]])
    add(part_of(pn), pn, rep, i, r$elapsed, r$cpu, summarise(pn, r$value))
  }
  na_rows(rep)
}
write_csv(do.call(rbind, rows), "barcodes")

# ---- accuracy -------------------------------------------------------------------
#' Counts of one method's labels (barcode name, "ambiguous", "unassigned",
#' one per read of `truth_rows`) against the truth.
score <- function(method, set, label, t) {
  stopifnot(length(label) == nrow(t))
  label[is.na(label)] <- "unassigned"
  bc <- !is.na(t$barcode)
  data.frame(
    method = method, set = set, reads = nrow(t), barcoded = sum(bc),
    correct = sum(bc & label == t$barcode, na.rm = TRUE),
    wrong = sum(bc & !label %in% c("ambiguous", "unassigned") & label != t$barcode, na.rm = TRUE),
    ambiguous = sum(bc & label == "ambiguous"),
    unassigned = sum(bc & label == "unassigned"),
    no_barcode = sum(!bc),
    no_barcode_assigned = sum(!bc & !label %in% c("ambiguous", "unassigned")),
    no_barcode_ambiguous = sum(!bc & label == "ambiguous"),
    note = "", stringsAsFactors = FALSE
  )
}
na_score <- function(method, set, n, note) {
  t <- truth[seq_len(n), ]
  data.frame(method = method, set = set, reads = n, barcoded = sum(!is.na(t$barcode)),
             correct = NA_real_, wrong = NA_real_, ambiguous = NA_real_, unassigned = NA_real_,
             no_barcode = sum(is.na(t$barcode)), no_barcode_assigned = NA_real_,
             no_barcode_ambiguous = NA_real_, note = note, stringsAsFactors = FALSE)
}
label_of_assign <- function(a) {
  best <- if (!is.null(a$pattern_name)) as.character(a$pattern_name) else names(barcodes)[a$pattern]
  ifelse(a$status == "assigned", best,
         ifelse(a$status == "ambiguous", "ambiguous", "unassigned"))
}
#' The best-per-read rule on sassy_search()'s hits of the whole reads (the
#' reference sassy_assign() must equal, margin 0): the lowest cost; two
#' patterns at that cost are ambiguous.
label_of_search <- function(h, n) {
  lab <- rep("unassigned", n)
  if (!nrow(h)) return(lab)
  best <- stats::aggregate(cost ~ record, h, min)
  hb <- merge(h[c("record", "pattern", "cost")], best, by = c("record", "cost"))
  per <- tapply(hb$pattern, hb$record, function(p) unique(p))
  rec <- as.integer(names(per))
  lab[rec] <- vapply(per, function(p) if (length(p) == 1L) names(barcodes)[p] else "ambiguous", "")
  lab
}
label_of_files <- function(d, names_in, rename = c(unknown = "unassigned")) {
  a <- assignment_from_files(d)
  a$output[a$output %in% names(rename)] <- rename[a$output[a$output %in% names(rename)]]
  if (anyDuplicated(a$name)) warning(d, ": a read is in more than one file")
  stopifnot(setequal(a$name, names_in))
  a$output[match(names_in, a$name)]
}

acc <- list()
acc[[length(acc) + 1L]] <- score("search_best", "all", label_of_search(last$r_search, length(reads)), truth)
for (pn in c("r_assign_ends", "r_assign_whole")) {
  acc[[length(acc) + 1L]] <- if (!is.null(last[[pn]])) {
    score(pn, "all", label_of_assign(last[[pn]]), truth)
  } else {
    na_score(pn, "all", length(reads), "missing: sassy_assign()")
  }
}
if (has("sassy_demultiplex_fastx")) {
  acc[[length(acc) + 1L]] <- score("demux", "all", label_of_files(file.path(out_root, "demux_threads1"), truth$name), truth)
  acc[[length(acc) + 1L]] <- score("demux", "subset",
                                   label_of_files(file.path(out_root, "demux_subset"), truth$name[seq_len(n_sub)]),
                                   truth[seq_len(n_sub), ])
} else {
  acc[[length(acc) + 1L]] <- na_score("demux", "all", length(reads), "missing: sassy_demultiplex_fastx()")
  acc[[length(acc) + 1L]] <- na_score("demux", "subset", n_sub, "missing: sassy_demultiplex_fastx()")
}
acc[[length(acc) + 1L]] <- if (is.null(cutadapt_why)) {
  score("cutadapt", "subset", label_of_files(file.path(out_root, "cutadapt_subset"), truth$name[seq_len(n_sub)]),
        truth[seq_len(n_sub), ])
} else {
  na_score("cutadapt", "subset", n_sub, cutadapt_why)
}
write_csv(do.call(rbind, acc), "barcodes_accuracy")

write_receipt("barcodes", args, load_before = load_before, extra = list(
  workload = list(
    reads = length(reads), bases = bases, barcodes = length(barcodes),
    barcode_length = unname(nchar(barcodes[1])), read_length = c(BARCODE_DEFAULTS$min_length, BARCODE_DEFAULTS$max_length),
    start_offset = BARCODE_DEFAULTS$start_offset, end_offset = BARCODE_DEFAULTS$end_offset,
    max_edits = BARCODE_DEFAULTS$max_edits, no_barcode = BARCODE_DEFAULTS$no_barcode,
    barcoded = sum(!is.na(truth$barcode)), seed = args$seed, cutadapt_subset = n_sub,
    cutadapt_subset_bases = sum(as.numeric(nchar(reads[seq_len(n_sub)]))),
    generator = "benchmarks/barcodes_data.R", inputs = dir
  ),
  cutadapt = if (is.null(cutadapt_why)) cutadapt_version else paste("not run:", cutadapt_why),
  cutadapt_command = sprintf("cutadapt -j 1 -e %d -O 20 -g file:barcodes.fasta --revcomp --action=none -o {name}.fastq reads.fastq", args$k),
  missing_functions = if (length(missing_fns)) paste0(missing_fns, "()") else "none",
  rust_binaries = bin
))
unlink(out_root, recursive = TRUE)
