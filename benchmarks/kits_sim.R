# Kits on simulated runs (issue 38, "Numbers"; shown by benchmarks/kits.Rmd):
# each read's sample by ducksassy's both-ends mode, cutadapt and qcat, on
# simulated nanopore-like runs whose truth the generator wrote in every read
# name; and the time per read of demultiplexing, against qcat and cutadapt,
# on the real reads of benchmarks/kits.R and on a simulated run.
#
# The runs (benchmarks/simulate_reads.R, seeded; --reads reads per design):
# - native: symmetric native barcoding, sassy_kit("EXP-NBD104")'s 12
#   barcodes with the kit's flanks, the same barcode at both ends;
# - dual: a front and a rear barcode (EXP-NBD104's barcodes 1-4 at the
#   front, 5-7 at the rear, the kit's flanks), the sample named by the pair:
#   12 samples, a sample sheet;
# - rapid: front only, sassy_kit("SQK-RBK004")'s 12 barcodes and flanks;
# - kit14_native: Kit 14 native barcoding as dorado arranges it (issue 46),
#   12 of sassy_kit("SQK-NBD114-96")'s barcodes at both ends, the set
#   searched all 96;
# - kit14_rapid: Kit 14 rapid barcoding, front only, 12 of
#   sassy_kit("SQK-RBK114-96")'s barcodes, the set all 96.
# with about 6% substitutions, insertions and deletions and homopolymer
# length errors, half of the reads reverse complemented, truncated ends,
# --none of the reads without a barcode (default 10%), --flank_only of all
# reads (default 2%, of those) with the adapter and flanks but no barcode
# between them, and 5% chimeras.
#
# Methods, on each run:
# - ours_assign: sassy_assign_fastx(run, set, ends = --ends, policy = ,
#   samples = , chimeras = "set_aside") (the both-ends mode of
#   ../ENDS-SPEC / issue 38; policy "either" for native and rapid, the sample
#   sheet for dual), threads 1. Where the installed package's verbs do not
#   have `policy` yet, the internal ducksassy:::assign_read_ends() (the
#   reference of the both-ends mode) and a whole-read search of the middle
#   of each read for chimeras stand in (`api` column: "fallback");
# - ours_demux: sassy_demultiplex_fastx() with the same arguments, each
#   read's call read back from its output file. Without `policy`: today's
#   verb with the set and `ends` (native and rapid; `api` "today"), not run
#   for dual;
# - ours_overhang: ours_assign with `overhang = --overhang, alphabet =
#   "iupac"` (a pattern may hang over a read's end, each letter beyond it
#   costing --overhang: finds the constructs of truncated ends); not run
#   with --overhang=0;
# - cutadapt: `cutadapt -j 1 -e 0.15 --revcomp --action=none -O <o>` with
#   the set's patterns (flank5 + barcode + flank3, as ours searches them) as
#   5' adapters (`-g file:`), for dual one linked adapter per sample
#   (`front;required...rc(rear);required`), `{name}` outputs; -O is the
#   barcode and the inner flank (a partial adapter at a read end must hold
#   the whole barcode);
# - cutadapt_O3: the same with cutadapt's default -O 3;
# - qcat: `qcat -f run -k <kit> --tsv` (native: NBD103/NBD104, rapid:
#   RBK004; no dual kit of these barcodes in qcat).
#
# Speed (paired repetitions, --reps; per read): qcat (-k RBK001 on the real
# reads of qcat-examples, -k NBD103/NBD104 on the simulated native run),
# cutadapt (as above, with the kit's patterns) and ours
# (sassy_demultiplex_fastx(), both-ends mode when the verb has it, else
# today's, threads 1) on the same reads; ours on --copies copies of them to
# amortise its start-up; qcat and cutadapt also on the first read alone
# (their start-up, subtracted in the "net" ratios).
#
#   Rscript benchmarks/kits_sim.R [--reads=2000] [--seed=38] [--error=0.06]
#     [--homopolymer=0.1] [--ends=250] [--none=0.1] [--flank_only=0.02]
#     [--designs=native,dual,rapid,kit14_native,kit14_rapid]
#     [--reps=6] [--copies=20] [--speed_reads=0] [--overhang=0.5] [--speed=true]
#     [--cutadapt=true] [--qcat=true] [--install=true]
#   smoke run (well under a minute): --reads=60 --reps=1 --copies=2 --speed_reads=30
#
# Writes benchmarks/data/kits_sim_accuracy.csv, kits_sim_confusion.csv,
# kits_sim_reasons.csv, kits_sim_calls.csv, kits_sim_speed.csv and
# kits_sim_receipt.json; the simulated FASTQ files go to the bench cache
# (DUCKSASSY_BENCH_CACHE, default /tmp/ducksassy-bench).

source("benchmarks/common.R")
source("benchmarks/simulate_reads.R")
args <- bench_args(list(
  reads = 2000L, seed = 38L, error = 0.06, homopolymer = 0.10, ends = 250L,
  none = 0.10, flank_only = 0.02,
  designs = c("native", "dual", "rapid", "kit14_native", "kit14_rapid"), reps = 6L, copies = 20L, speed_reads = 0L,
  overhang = 0.5, speed = TRUE, cutadapt = TRUE, qcat = TRUE, install = TRUE
))
load_before <- load_average()
L <- args$ends[[1L]]
TH <- 1L

# ---- setup: cutadapt, qcat, qcat-examples -----------------------------------
have_pkg <- function(p) {
  identical(suppressWarnings(system2("dpkg-query", c("-W", shQuote("-f=${Status}"), p),
    stdout = TRUE, stderr = FALSE)), "install ok installed")
}
need <- c(if (args$cutadapt) "cutadapt", if (args$qcat) c("qcat", "qcat-examples"), "bowtie-examples")
missing_pkgs <- Filter(Negate(have_pkg), need)
if (length(missing_pkgs) && args$install && nzchar(Sys.which("apt-get"))) {
  sudo <- if (Sys.info()[["effective_user"]] != "root" && nzchar(Sys.which("sudo"))) "sudo " else ""
  message("installing from Debian: ", paste(missing_pkgs, collapse = " "))
  system(paste0(sudo, "apt-get update -qq && ", sudo,
    "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ",
    paste(missing_pkgs, collapse = " ")))
}
tool <- function(name, wanted) if (wanted && nzchar(Sys.which(name))) unname(Sys.which(name)) else ""
cutadapt_bin <- tool("cutadapt", args$cutadapt)
qcat_bin <- tool("qcat", args$qcat)
version_of <- function(pkg) {
  v <- tryCatch(suppressWarnings(system2("dpkg-query", c("-W", shQuote("-f=${Version}"), pkg), stdout = TRUE,
    stderr = FALSE)), error = function(e) character())
  if (length(v) && nzchar(v[[1]])) v[[1]] else NA_character_
}

# ---- the both-ends API, or its stand-in -------------------------------------
has_args <- function(f, a) all(a %in% names(formals(f)))
ends_api_assign <- has_args(sassy_assign_fastx, c("policy", "samples", "chimeras"))
ends_api_demux <- has_args(sassy_demultiplex_fastx, c("policy", "samples", "chimeras"))
message(sprintf("both-ends mode: sassy_assign_fastx %s, sassy_demultiplex_fastx %s",
  if (ends_api_assign) "has it" else "lacks it (fallback: assign_read_ends())",
  if (ends_api_demux) "has it" else "lacks it (today's verb)"))

#' Reads whose middle [L, len - L) holds a hit of the set's patterns (cost <=
#' the set's k): the chimeras of ENDS-SPEC's "chimeric", for the fallback.
middle_hits <- function(texts, set, L) {
  sp <- ducksassy:::as_search_patterns(set)
  long <- which(nchar(texts) > 2L * L)
  out <- rep(FALSE, length(texts))
  if (!length(long)) return(out)
  mid <- substr(texts[long], L + 1L, nchar(texts[long]) - L)
  h <- sassy_search(mid, sp$patterns, k = sp$k, threads = TH)
  out[long[unique(h$record)]] <- TRUE
  out
}

#' One call per read: the sample, or "ambiguous", "unassigned", "chimeric".
ours_assign <- function(path, set, policy, samples, ...) {
  if (ends_api_assign) {
    a <- sassy_assign_fastx(path, set, ends = L, policy = policy, samples = samples,
      chimeras = "set_aside", threads = TH, ...)
    id <- sub("[[:space:]].*", "", a$name)
    status <- as.character(a$status)
    sample <- as.character(a$sample)
    reason <- as.character(a$reason)
  } else {
    r <- sassy_read_fastx(path)
    a <- ducksassy:::assign_read_ends(r$sequence, set, k = NULL, end_length = L, policy = policy,
      samples = samples, threads = TH, ...)
    id <- r$name
    status <- as.character(a$status)
    sample <- as.character(a$sample)
    reason <- as.character(a$reason)
    chim <- middle_hits(r$sequence, set, L)
    status[chim] <- "chimeric"
    reason[chim] <- "chimeric"
    sample[chim] <- NA_character_
  }
  data.frame(id = id, call = ifelse(status == "assigned", sample, status), reason = reason,
    stringsAsFactors = FALSE)
}

#' Each read's output file (its name without .fastq) in a folder of
#' demultiplexed FASTQ files.
calls_from_files <- function(dir, samples) {
  files <- list.files(dir, pattern = "\\.f(ast)?q$", full.names = TRUE)
  per <- lapply(files, function(f) {
    l <- readLines(f)
    nm <- l[seq_along(l) %% 4L == 1L]
    data.frame(id = sub("[[:space:]].*$", "", substring(nm, 2L)),
      file = rep(sub("\\.f(ast)?q$", "", basename(f)), length(nm)), stringsAsFactors = FALSE)
  })
  x <- do.call(rbind, c(list(data.frame(id = character(), file = character())), per))
  x$call <- ifelse(x$file %in% samples, x$file,
    ifelse(x$file %in% c("ambiguous", "chimeric"), x$file, "unassigned"))
  x
}

ours_demux <- function(path, set, policy, samples, dir, sample_names) {
  unlink(dir, recursive = TRUE)
  out <- file.path(dir, "{name}.fastq")
  if (ends_api_demux) {
    sassy_demultiplex_fastx(path, set, output = out, ends = L, policy = policy, samples = samples,
      chimeras = "set_aside", threads = TH, overwrite = TRUE)
  } else if (is.null(samples)) {
    sassy_demultiplex_fastx(path, set, output = out, ends = L, threads = TH, overwrite = TRUE)
  } else {
    return(NULL)
  }
  x <- calls_from_files(dir, sample_names)
  x[c("id", "call")]
}

#' cutadapt's adapters for a set: each row's flank5 + barcode + flank3; for
#' a sample sheet with rear barcodes, one linked adapter per sample.
cutadapt_fasta <- function(set, sheet, path) {
  pat <- stats::setNames(paste0(set$flank5, set$barcode, set$flank3), set$name)
  lines <- if (all(is.na(sheet$rear)) || identical(sheet$front, sheet$rear)) {
    paste0(">", names(pat), "\n", pat)
  } else {
    paste0(">", sheet$sample, "\n", pat[sheet$front], ";required...", sim_rc(pat[sheet$rear]), ";required")
  }
  writeLines(lines, path)
  path
}
cutadapt_args <- function(fasta, min_overlap, out, input) {
  c("-j", "1", "-e", "0.15", "--revcomp", "--action=none", if (!is.null(min_overlap)) c("-O", min_overlap),
    "-g", paste0("file:", fasta), "-o", shQuote(out), shQuote(input))
}
run_cutadapt <- function(input, fasta, min_overlap, dir, sample_names = NULL) {
  unlink(dir, recursive = TRUE)
  dir.create(dir, recursive = TRUE, showWarnings = FALSE)
  log <- paste0(dir, ".log")
  status <- system2(cutadapt_bin, cutadapt_args(fasta, min_overlap, file.path(dir, "{name}.fastq"), input),
    stdout = log, stderr = log)
  if (status != 0) stop("cutadapt failed (status ", status, "): ", paste(utils::tail(readLines(log), 5), collapse = "\n"))
  if (is.null(sample_names)) return(invisible(dir))
  calls_from_files(dir, sample_names)[c("id", "call")]
}
run_qcat <- function(input, kit, sample_names = NULL) {
  out <- tempfile(fileext = ".tsv")
  status <- system2(qcat_bin, c("-f", shQuote(input), "-k", shQuote(kit), "--tsv"), stdout = out, stderr = FALSE)
  if (status != 0) stop("qcat failed on ", input)
  if (is.null(sample_names)) return(invisible(out))
  q <- utils::read.delim(out, stringsAsFactors = FALSE, colClasses = "character")
  n <- suppressWarnings(as.integer(q$barcode))
  data.frame(id = q$name, call = ifelse(is.na(n), "unassigned", sprintf("barcode%02d", n)), stringsAsFactors = FALSE)
}

# ---- the designs ------------------------------------------------------------
genome <- ecoli_genome()
inserts <- sim_insert_source(genome)
# the kits' rows with their whole flanks (the reads), and the sets searched
whole <- function(kit) {
  s <- sassy_kit(kit, flank_length = Inf)
  data.frame(name = s$name, barcode = s$barcode, flank5 = s$flank5, flank3 = s$flank3, stringsAsFactors = FALSE)
}
native_kit <- sassy_kit("EXP-NBD104")
rapid_kit <- sassy_kit("SQK-RBK004")
sub_set <- function(set, rows, ends) {
  sassy_barcodes(stats::setNames(set$barcode[rows], set$name[rows]), flank5 = set$flank5[rows],
    flank3 = set$flank3[rows], ends = ends, error_rate = attr(set, "error_rate"))
}
designs <- list(
  native = list(kit_rows = whole("EXP-NBD104"), set = native_kit, policy = "either", use_sheet = FALSE,
    qcat_kit = "NBD103/NBD104", what = "symmetric native: EXP-NBD104's barcodes 1-12, the same at both ends"),
  dual = list(kit_rows = whole("EXP-NBD104"), set = sub_set(native_kit, 1:7, rep(c("front", "rear"), c(4L, 3L))),
    policy = "samples", use_sheet = TRUE, qcat_kit = NA_character_,
    what = "dual: EXP-NBD104's barcodes 1-4 at the front, 5-7 at the rear, 12 samples named by the pair"),
  rapid = list(kit_rows = whole("SQK-RBK004"), set = rapid_kit, policy = "either", use_sheet = FALSE,
    qcat_kit = "RBK004", what = "front only: SQK-RBK004's barcodes 1-12"),
  # Kit 14, as dorado 1.4 arranges it (issue 46): the reads of 12 barcodes
  # (the simulator's samples), the set of all 96
  kit14_native = list(kit_rows = whole("SQK-NBD114-96"), set = sassy_kit("SQK-NBD114-96"), policy = "either",
    use_sheet = FALSE, qcat_kit = NA_character_, sim = "native",
    what = "Kit 14 native: SQK-NBD114-96 (dorado 1.4), reads of its barcodes 1-12 at both ends, the set all 96"),
  kit14_rapid = list(kit_rows = whole("SQK-RBK114-96"), set = sassy_kit("SQK-RBK114-96"), policy = "either",
    use_sheet = FALSE, qcat_kit = NA_character_, sim = "rapid",
    what = "Kit 14 rapid, front only: SQK-RBK114-96 (dorado 1.4), reads of its barcodes 1-12, the set all 96")
)
designs <- designs[intersect(args$designs, names(designs))]
work <- bench_cache("kits-sim")
dir.create(work, recursive = TRUE, showWarnings = FALSE)

runs <- list()
for (dn in names(designs)) {
  d <- designs[[dn]]
  sd <- sim_design(d$kit_rows, d$sim %||% dn)
  bad <- sim_self_check(sd)
  if (bad > 0L) stop("the simulator's check failed for ", dn, " (", bad, " reads)")
  # --flank_only of all reads: that share of the reads without barcode
  t <- timed(function() simulate_run(sd, args$reads, seed = args$seed + match(dn, c("native", "dual", "rapid", "kit14_native", "kit14_rapid")),
    insert_source = inserts, error = args$error, homopolymer = args$homopolymer,
    p_none = args$none, p_flank_only = min(1, args$flank_only / args$none)))
  run <- t$value
  path <- file.path(work, sprintf("%s-%d-%d.fastq", dn, args$reads, args$seed))
  write_sim_fastq(run, path)
  # the truth as the tools see it: from the headers of the written file
  hdr <- readLines(path)
  truth <- sim_truth_from_headers(hdr[seq_along(hdr) %% 4L == 1L])
  stopifnot(identical(truth$truth, run$reads$truth))
  # full reads: neither end cut into, the rear construct there (the
  # issue's "full reads")
  truth$full <- run$reads$kind == "barcoded" & run$reads$trunc_front == 0L &
    (run$reads$rear_end %in% "full" | (sd$design == "rapid" & run$reads$rear_end %in% "none"))
  runs[[dn]] <- list(design = sd, path = path, truth = truth, reads = run$reads, params = run$params,
    seconds = t$elapsed)
  message(sprintf("%s: %d reads simulated in %.1f s (%s)", dn, nrow(run$reads), t$elapsed, path))
}

# ---- accuracy ---------------------------------------------------------------
calls <- list()
meta <- list()
add_calls <- function(dn, method, api, f, command) {
  t <- timed(f)
  v <- t$value
  if (is.null(v)) {
    meta[[length(meta) + 1L]] <<- data.frame(design = dn, method = method, api = api, seconds = NA_real_,
      command = command, note = "not run: needs the both-ends verbs", stringsAsFactors = FALSE)
    return(invisible())
  }
  v$reason <- if (is.null(v$reason)) NA_character_ else v$reason
  calls[[length(calls) + 1L]] <<- cbind(design = dn, method = method, v[c("id", "call", "reason")],
    stringsAsFactors = FALSE)
  meta[[length(meta) + 1L]] <<- data.frame(design = dn, method = method, api = api, seconds = t$elapsed,
    command = command, note = "", stringsAsFactors = FALSE)
  message(sprintf("%-6s %-12s %.2f s", dn, method, t$elapsed))
}
for (dn in names(runs)) {
  r <- runs[[dn]]
  d <- designs[[dn]]
  sheet <- r$design$sheet
  samples <- if (d$use_sheet) sheet else NULL
  sample_names <- unique(sheet$sample)
  set_call <- sprintf("%s, ends = %d, policy = \"%s\"%s, chimeras = \"set_aside\"",
    if (dn == "dual") "the dual set" else sprintf("sassy_kit(\"%s\")", attr(d$set, "kit")), L, d$policy,
    if (d$use_sheet) ", samples = sheet" else "")
  add_calls(dn, "ours_assign", if (ends_api_assign) "ends" else "fallback",
    function() ours_assign(r$path, d$set, d$policy, samples),
    if (ends_api_assign) paste0("sassy_assign_fastx(run, ", set_call, ")")
    else paste0("ducksassy:::assign_read_ends(reads, set, end_length = ", L, ", policy = \"", d$policy,
      "\") + a search of each read's middle for chimeras"))
  if (args$overhang > 0) {
    add_calls(dn, "ours_overhang", if (ends_api_assign) "ends" else "fallback",
      function() ours_assign(r$path, d$set, d$policy, samples, overhang = args$overhang, alphabet = "iupac"),
      sprintf("ours_assign's call with overhang = %s, alphabet = \"iupac\"", args$overhang))
  }
  add_calls(dn, "ours_demux", if (ends_api_demux) "ends" else "today",
    function() ours_demux(r$path, d$set, d$policy, samples, file.path(work, paste0(dn, "-demux")), sample_names),
    if (ends_api_demux) paste0("sassy_demultiplex_fastx(run, ", set_call, ", output = \"{name}.fastq\")")
    else sprintf("sassy_demultiplex_fastx(run, set, ends = %d, output = \"{name}.fastq\") (no policy: today's verb)", L))
  if (nzchar(cutadapt_bin)) {
    fa <- cutadapt_fasta(d$set, sheet, file.path(work, paste0(dn, "-adapters.fasta")))
    o <- nchar(d$set$barcode[[1L]]) + nchar(d$set$flank3[[1L]])
    for (m in c("cutadapt", "cutadapt_O3")) {
      ov <- if (m == "cutadapt") o else NULL
      add_calls(dn, m, "", function() run_cutadapt(r$path, fa, ov, file.path(work, paste0(dn, "-", m)), sample_names),
        paste("cutadapt", paste(cutadapt_args(basename(fa), ov, "{name}.fastq", "run.fastq"), collapse = " ")))
    }
  }
  if (nzchar(qcat_bin) && !is.na(d$qcat_kit)) {
    add_calls(dn, "qcat", "", function() run_qcat(r$path, d$qcat_kit, sample_names),
      sprintf("qcat -f run.fastq -k %s --tsv", d$qcat_kit))
  }
}
calls <- do.call(rbind, calls)
meta <- do.call(rbind, meta)
truth_all <- do.call(rbind, lapply(names(runs), function(dn) cbind(design = dn, runs[[dn]]$truth, stringsAsFactors = FALSE)))
calls <- merge(truth_all, calls, by = c("design", "id"), sort = FALSE)
chk <- stats::aggregate(id ~ design + method, calls, length)
if (any(chk$id != args$reads)) {
  print(chk)
  stop("a method did not call every read exactly once")
}

score <- function(x) {
  bc <- x$kind == "barcoded"
  named <- !x$call %in% c("unassigned", "ambiguous", "chimeric")
  ch <- x$kind == "chimera"
  data.frame(
    reads = nrow(x), barcoded = sum(bc),
    correct = sum(bc & x$call == x$truth), wrong = sum(bc & named & x$call != x$truth),
    unassigned = sum(bc & x$call == "unassigned"), ambiguous = sum(bc & x$call == "ambiguous"),
    chimeric_called = sum(bc & x$call == "chimeric"),
    full = sum(bc & x$full), full_correct = sum(bc & x$full & x$call == x$truth),
    no_barcode = sum(x$kind == "none"), no_barcode_assigned = sum(x$kind == "none" & named),
    no_barcode_flanks_assigned = sum(x$kind == "none" & x$flanks %in% "yes" & named),
    chimeras = sum(ch), chimeras_found = sum(ch & x$call == "chimeric"),
    chimeras_assigned = sum(ch & named),
    chimeras_assigned_first = sum(ch & named & x$call == x$first)
  )
}
keys <- unique(calls[c("design", "method")])
acc <- do.call(rbind, lapply(seq_len(nrow(keys)), function(i) {
  x <- calls[calls$design == keys$design[i] & calls$method == keys$method[i], ]
  cbind(keys[i, ], score(x))
}))
acc <- merge(acc, meta, by = c("design", "method"), all = TRUE, sort = FALSE)
acc$correct_pct <- round(100 * acc$correct / acc$barcoded, 2)
acc$wrong_pct <- round(100 * acc$wrong / acc$barcoded, 2)
acc$wrong_pct_of_assigned <- round(100 * acc$wrong / (acc$correct + acc$wrong), 2)
# the issue's numbers (issue 46): wrong of all reads (a barcoded read named
# another sample, a read without barcode named one; chimeras apart), and
# correct of the full reads
acc$wrong_of_all_pct <- round(100 * (acc$wrong + acc$no_barcode_assigned) / acc$reads, 3)
acc$full_correct_pct <- round(100 * acc$full_correct / acc$full, 2)
acc <- acc[order(match(acc$design, names(designs)),
  match(acc$method, c("ours_assign", "ours_overhang", "ours_demux", "cutadapt", "cutadapt_O3", "qcat"))), ]
print(acc[c("design", "method", "api", "barcoded", "correct_pct", "wrong", "no_barcode_assigned",
  "no_barcode_flanks_assigned", "wrong_of_all_pct", "full_correct_pct", "chimeras", "chimeras_found", "seconds")],
  row.names = FALSE)

truth_label <- ifelse(calls$kind == "none", "no barcode", ifelse(calls$kind == "chimera", "chimera", calls$truth))
conf <- as.data.frame(table(design = calls$design, method = calls$method, truth = truth_label, call = calls$call),
  stringsAsFactors = FALSE)
conf <- conf[conf$Freq > 0, ]
ours <- calls[calls$method == "ours_assign", ]
reasons <- as.data.frame(table(design = ours$design,
  kind = ifelse(ours$kind == "none", paste0("none, ", ifelse(ours$flanks %in% "yes", "with", "without"), " the flanks"), ours$kind),
  reason = ifelse(is.na(ours$reason), "(assigned)", ours$reason)), stringsAsFactors = FALSE)
reasons <- reasons[reasons$Freq > 0, ]

write_csv(acc, "kits_sim_accuracy")
write_csv(conf, "kits_sim_confusion")
write_csv(reasons, "kits_sim_reasons")
write_csv(calls[c("design", "method", "id", "kind", "truth", "strand", "flanks", "call", "reason")], "kits_sim_calls")

# ---- speed per read ---------------------------------------------------------
speed_rows <- list()
speed_sets <- list()
if (args$speed) {
  head_fastq <- function(path, n, out) {
    l <- readLines(path)
    if (n > 0L) l <- l[seq_len(min(length(l), 4L * n))]
    writeLines(l, out)
    out
  }
  copies_of <- function(path, copies, out) {
    l <- readLines(path)
    writeLines(rep(l, copies), out)
    out
  }
  # the real reads (as benchmarks/kits.R finds them), plain FASTQ
  example_file <- function(name) {
    files <- tryCatch(suppressWarnings(system2("dpkg", c("-L", "qcat-examples"), stdout = TRUE, stderr = FALSE)),
      error = function(e) character())
    hit <- grep(paste0("/", name, "$"), files, value = TRUE)
    if (!length(hit)) hit <- file.path("/usr/share/doc/qcat/examples/qcat/test/data", name)
    if (file.exists(hit[[1]])) hit[[1]] else NA_character_
  }
  real_in <- c(example_file("barcode_1k.fastq.gz"), example_file("nobarcode_1k.fastq.gz"))
  if (!anyNA(real_in)) {
    rr <- do.call(rbind, lapply(real_in, function(p) sassy_read_fastx(p)))
    real_path <- file.path(work, "real.fastq")
    writeLines(paste0("@", rr$name, " ", rr$description, "\n", rr$sequence, "\n+\n", rr$quality), real_path)
    kit <- sassy_kit("SQK-RBK001")
    speed_sets$real <- list(path = real_path, set = kit, qcat_kit = "RBK001",
      what = "qcat-examples: barcode_1k + nobarcode_1k (RBK001)")
  } else {
    message("qcat-examples is not installed: no speed rows on the real reads")
  }
  if ("native" %in% names(runs)) {
    speed_sets$sim_native <- list(path = runs$native$path, set = native_kit, qcat_kit = "NBD103/NBD104",
      what = "the simulated native run (EXP-NBD104)")
  }
  for (sn in names(speed_sets)) {
    s <- speed_sets[[sn]]
    s$sub <- head_fastq(s$path, args$speed_reads, file.path(work, paste0("speed-", sn, "-sub.fastq")))
    s$one <- head_fastq(s$path, 1L, file.path(work, paste0("speed-", sn, "-one.fastq")))
    s$copies <- copies_of(s$sub, args$copies, file.path(work, paste0("speed-", sn, "-copies.fastq")))
    s$n_sub <- length(readLines(s$sub)) %/% 4L
    s$fasta <- cutadapt_fasta(s$set, data.frame(front = s$set$name, rear = NA_character_, sample = s$set$name),
      file.path(work, paste0("speed-", sn, "-adapters.fasta")))
    s$o <- nchar(s$set$barcode[[1L]]) + nchar(s$set$flank3[[1L]])
    speed_sets[[sn]] <- s
  }
  demux_speed <- function(s, sn, overhang = NULL) {
    dir <- file.path(work, paste0("speed-", sn, "-ours"))
    unlink(dir, recursive = TRUE)
    out <- file.path(dir, "{name}.fastq")
    if (ends_api_demux) {
      sassy_demultiplex_fastx(s$copies, s$set, output = out, ends = L, policy = "either", threads = TH,
        overwrite = TRUE, overhang = overhang)
    } else {
      sassy_demultiplex_fastx(s$copies, s$set, output = out, ends = L, threads = TH, overwrite = TRUE)
    }
  }
  # the floor of any demultiplexer that writes the reads: one pattern of 24
  # letters, exact, in the first 24 letters of each read (next to no
  # search), every read read, parsed and written to one of two files
  io_floor <- function(s, sn) {
    dir <- file.path(work, paste0("speed-", sn, "-floor"))
    unlink(dir, recursive = TRUE)
    sassy_demultiplex_fastx(s$copies, c(x = strrep("ACGT", 6L)), k = 0L, ends = 24L, threads = TH,
      output = file.path(dir, "{name}.fastq"), overwrite = TRUE)
  }
  # the searches of the ends alone (in R, the reads already there): the
  # kit's patterns over the first and the last L letters of each read, at
  # the kit's k (what a demultiplexing searches, besides the flanks of the
  # reads without a barcode), and at k = 0, the least any search of every
  # pattern over both ends costs with sassy (its rows stop soonest)
  end_windows <- function(path) {
    x <- sassy_read_fastx(path)$sequence
    n <- nchar(x)
    c(substr(x, 1L, L), substr(x, pmax(1L, n - L + 1L), n))
  }
  for (sn in names(speed_sets)) speed_sets[[sn]]$windows <- end_windows(speed_sets[[sn]]$copies)
  search_ends <- function(s, k) {
    sassy_assign(s$windows, ducksassy:::set_patterns(s$set), k = k %||% ducksassy:::default_set_k(s$set), threads = TH)
  }
  tools <- c("ours", if (args$overhang > 0) "ours_overhang", "io_floor", "search_ends", "search_ends_k0",
    if (nzchar(qcat_bin)) c("qcat", "qcat_one"), if (nzchar(cutadapt_bin)) c("cutadapt", "cutadapt_one"))
  call_of <- function(tl, s, sn) {
    switch(tl,
      ours = function() demux_speed(s, sn),
      ours_overhang = function() demux_speed(s, sn, overhang = args$overhang),
      io_floor = function() io_floor(s, sn),
      search_ends = function() search_ends(s, NULL),
      search_ends_k0 = function() search_ends(s, 0L),
      qcat = function() run_qcat(s$sub, s$qcat_kit),
      qcat_one = function() run_qcat(s$one, s$qcat_kit),
      cutadapt = function() run_cutadapt(s$sub, s$fasta, s$o, file.path(work, paste0("speed-", sn, "-cutadapt"))),
      cutadapt_one = function() run_cutadapt(s$one, s$fasta, s$o, file.path(work, paste0("speed-", sn, "-cutadapt1"))))
  }
  records_of <- function(tl, s) switch(tl, ours = , ours_overhang = , io_floor = , search_ends = , search_ends_k0 = s$n_sub * args$copies,
    qcat = , cutadapt = s$n_sub, 1L)
  # warm-up (file caches, the first load of each program)
  for (sn in names(speed_sets)) for (tl in tools) invisible(call_of(tl, speed_sets[[sn]], sn)())
  for (rep in seq_len(args$reps)) {
    for (sn in names(speed_sets)) {
      s <- speed_sets[[sn]]
      # rotate the order, so that no tool always runs first
      order <- tools[(seq_along(tools) + rep - 2L) %% length(tools) + 1L]
      for (i in seq_along(order)) {
        tl <- order[[i]]
        f <- call_of(tl, s, sn)
        gc(verbose = FALSE)
        t0 <- proc.time()
        f()
        dt <- proc.time() - t0
        n <- records_of(tl, s)
        speed_rows[[length(speed_rows) + 1L]] <- data.frame(set = sn, tool = tl, rep = rep, order = i,
          records = n, seconds = dt[["elapsed"]],
          cpu_seconds = sum(dt[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE),
          seconds_per_read = dt[["elapsed"]] / n, api = if (tl %in% c("ours", "ours_overhang")) (if (ends_api_demux) "ends" else "today") else "",
          load1 = load_average()[1], stringsAsFactors = FALSE)
        message(sprintf("speed %-10s %-12s rep=%d %.3f s (%d reads)", sn, tl, rep, dt[["elapsed"]], n))
      }
    }
  }
}
speed <- if (length(speed_rows)) do.call(rbind, speed_rows) else
  data.frame(set = character(), tool = character(), rep = integer(), order = integer(), records = integer(),
    seconds = numeric(), cpu_seconds = numeric(), seconds_per_read = numeric(), api = character(), load1 = numeric())
write_csv(speed, "kits_sim_speed")

write_receipt("kits_sim", args, load_before = load_before, extra = list(
  ends_api_assign = ends_api_assign,
  ends_api_demux = ends_api_demux,
  cutadapt = if (nzchar(cutadapt_bin)) system2(cutadapt_bin, "--version", stdout = TRUE)[1] else NA_character_,
  qcat = if (nzchar(qcat_bin)) version_of("qcat") else NA_character_,
  designs = lapply(names(runs), function(dn) list(
    design = dn, what = designs[[dn]]$what, policy = designs[[dn]]$policy,
    samples = nrow(runs[[dn]]$design$sheet),
    k = ducksassy:::as_search_patterns(designs[[dn]]$set)$k,
    pattern_length = max(nchar(ducksassy:::set_patterns(designs[[dn]]$set))),
    kinds = as.list(table(factor(runs[[dn]]$reads$kind, levels = c("barcoded", "none", "chimera")))),
    strand_minus = sum(runs[[dn]]$reads$strand == "-"),
    trunc_front = sum(runs[[dn]]$reads$trunc_front > 0),
    rear_end = as.list(table(runs[[dn]]$reads$rear_end)),
    error_events_per_base = sum(as.numeric(runs[[dn]]$reads$errors)) / sum(as.numeric(runs[[dn]]$reads$length)),
    mean_length = mean(runs[[dn]]$reads$length),
    simulate_seconds = runs[[dn]]$seconds,
    path = runs[[dn]]$path)),
  simulation = runs[[1L]]$params,
  speed_sets = lapply(speed_sets, function(s) list(what = s$what, reads = s$n_sub, copies = args$copies,
    qcat_kit = s$qcat_kit, cutadapt_min_overlap = s$o)),
  speed_commands = list(
    ours = sprintf("sassy_demultiplex_fastx(copies, kit, ends = %d%s, threads = 1, output = \"{name}.fastq\")", L,
      if (ends_api_demux) ", policy = \"either\"" else ""),
    ours_overhang = sprintf("the same with overhang = %s", args$overhang),
    io_floor = "sassy_demultiplex_fastx(copies, c(x = strrep(\"ACGT\", 6)), k = 0, ends = 24, threads = 1, output = \"{name}.fastq\")",
    search_ends = sprintf("sassy_assign(windows, set_patterns(kit), k = <the kit's>, threads = 1), windows: the first and the last %d letters of each read of the copies, already in R", L),
    search_ends_k0 = "the same with k = 0",
    qcat = "qcat -f reads.fastq -k <kit> --tsv",
    cutadapt = paste("cutadapt", paste(cutadapt_args("adapters.fasta", "<o>", "{name}.fastq", "reads.fastq"), collapse = " ")))
))
