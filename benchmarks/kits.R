# Kits on real reads (issue 38, benchmarks/kits.Rmd): which barcode is each
# read of a real rapid-barcoding run, with sassy_kit("SQK-RBK001") and no k
# given, against qcat, ONT's demultiplexer.
#
# Reads (Debian's qcat-examples, the test data of qcat): barcode_1k.fastq.gz,
# 989 reads of the RBK001 rapid barcoding kit (barcodes 1, 2, 4, 6 and 8)
# with the true barcode in each header (`truebc=N`), and nobarcode_1k.fastq.gz,
# 989 reads of the same chemistry without a barcode. Their headers also hold
# an older basecaller's call (`barcode=...`), which nothing here reads.
#
# Methods, on the same reads (the barcoded and the barcode-free file):
# - kit: sassy_assign_fastx(reads, sassy_kit("SQK-RBK001"), ends = --ends),
#   no k: the kit's default (?sassy_kits, "The default k");
# - kit_whole: the same on the whole reads (ends = NULL);
# - bare_k5: the kit's 12 barcodes alone (no flanks), k = 5, ends = --ends;
# - qcat: `qcat -f reads -k RBK001 --tsv` (Debian's qcat 1.1, its default
#   epi2me mode and minimum score 60).
# For each: among the barcoded reads correct, wrong, unassigned (qcat:
# `none`; ours: status unassigned) and ambiguous; among the barcode-free
# reads, those assigned; a confusion table (truth x call) per method; the
# seconds of each run (one run, not a timing benchmark; load in the receipt).
#
#   Rscript benchmarks/kits.R [--reads=0] [--ends=250] [--error_rate=0]
#     [--threads=1] [--install_qcat=true]
#   --reads=n: only the first n reads of each file (0: all); a smoke run:
#   --reads=50. --error_rate: the kit's (0: sassy_kit()'s default).
#
# Writes benchmarks/data/kits_accuracy.csv, kits_confusion.csv, kits_calls.csv
# (every read's call by every method) and kits_receipt.json.

source("benchmarks/common.R")
args <- bench_args(list(
  reads = 0L, ends = 250L, error_rate = 0, threads = 1L, install_qcat = TRUE
))
load_before <- load_average()

# ---- setup: qcat and its example reads --------------------------------------
need <- c(qcat = "qcat", "qcat-examples" = "qcat-examples")
have_pkg <- function(p) {
  identical(suppressWarnings(system2("dpkg-query", c("-W", shQuote("-f=${Status}"), p),
    stdout = TRUE, stderr = FALSE)), "install ok installed")
}
missing_pkgs <- Filter(Negate(have_pkg), need)
if (length(missing_pkgs) && args$install_qcat) {
  sudo <- if (Sys.info()[["effective_user"]] != "root" && nzchar(Sys.which("sudo"))) "sudo " else ""
  message("installing from Debian: ", paste(missing_pkgs, collapse = " "))
  system(paste0(sudo, "apt-get update -qq && ", sudo,
    "env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ",
    paste(missing_pkgs, collapse = " ")))
}
example_file <- function(name) {
  files <- tryCatch(system2("dpkg", c("-L", "qcat-examples"), stdout = TRUE, stderr = FALSE),
    error = function(e) character(), warning = function(w) character())
  hit <- grep(paste0("/", name, "$"), files, value = TRUE)
  if (!length(hit)) hit <- file.path("/usr/share/doc/qcat/examples/qcat/test/data", name)
  if (!file.exists(hit[[1]])) stop("no ", name, ": apt-get install qcat-examples")
  hit[[1]]
}
qcat_version <- tryCatch(system2("dpkg-query", c("-W", shQuote("-f=${Version}"), "qcat"), stdout = TRUE),
  error = function(e) NA_character_)

# ---- the reads --------------------------------------------------------------
inputs <- c(barcoded = example_file("barcode_1k.fastq.gz"), none = example_file("nobarcode_1k.fastq.gz"))
# plain FASTQ (qcat does not read gzip), the first --reads of each file
inputs <- vapply(names(inputs), function(w) {
  r <- sassy_read_fastx(inputs[[w]], n_max = if (args$reads > 0L) args$reads else Inf)
  out <- bench_cache(sprintf("kits-%s-%d.fastq", w, args$reads))
  writeLines(paste0("@", r$name, " ", r$description, "\n", r$sequence, "\n+\n", r$quality), out)
  out
}, "")
truth_of <- function(path) {
  r <- sassy_read_fastx(path)
  n <- suppressWarnings(as.integer(sub(".*truebc=([0-9]+).*", "\\1", r$description)))
  data.frame(read = r$name, truth = ifelse(is.na(n), NA, sprintf("barcode%02d", n)),
    stringsAsFactors = FALSE)
}
reads <- rbind(
  cbind(set = "barcoded", truth_of(inputs[["barcoded"]])),
  cbind(set = "none", transform(truth_of(inputs[["none"]]), truth = NA_character_))
)

# ---- the methods ------------------------------------------------------------
kit <- if (args$error_rate > 0) sassy_kit("SQK-RBK001", error_rate = args$error_rate) else sassy_kit("SQK-RBK001")
kit_k <- ducksassy:::as_search_patterns(kit)$k
bare <- ducksassy:::set_patterns(sassy_barcodes(stats::setNames(kit$barcode, kit$name)))

ours <- function(method, patterns, ...) {
  t <- timed(function() sassy_assign_fastx(unname(inputs), patterns, threads = args$threads[[1L]], ...))
  a <- t$value
  call <- ifelse(a$status == "assigned", a$pattern_name, ifelse(a$status == "ambiguous", "ambiguous", "none"))
  list(calls = data.frame(method = method, read = sub(" .*", "", a$name), call = call,
    cost = a$cost, barcode_cost = if (is.null(a$barcode_cost)) NA_integer_ else a$barcode_cost,
    stringsAsFactors = FALSE), seconds = t$elapsed)
}
qcat <- function() {
  run <- function(path) {
    out <- tempfile(fileext = ".tsv")
    status <- system2("qcat", c("-f", path, "-k", "RBK001", "--tsv"), stdout = out, stderr = FALSE)
    if (status != 0) stop("qcat failed on ", path)
    q <- utils::read.delim(out, stringsAsFactors = FALSE, colClasses = "character")
    if (!nrow(q)) stop("qcat called no read of ", path)
    q
  }
  t <- timed(function() do.call(rbind, lapply(unname(inputs), run)))
  q <- t$value
  call <- ifelse(q$barcode == "none", "none", sprintf("barcode%02d", suppressWarnings(as.integer(q$barcode))))
  list(calls = data.frame(method = "qcat", read = q$name, call = call, cost = NA_integer_,
    barcode_cost = NA_integer_, stringsAsFactors = FALSE), seconds = t$elapsed)
}

runs <- list(
  kit = ours("kit", kit, ends = args$ends),
  kit_whole = ours("kit_whole", kit),
  bare_k5 = ours("bare_k5", bare, k = 5L, ends = args$ends)
)
if (nzchar(Sys.which("qcat"))) {
  runs$qcat <- qcat()
} else {
  message("qcat is not installed: its rows are missing")
}

# ---- accuracy ---------------------------------------------------------------
calls <- do.call(rbind, lapply(runs, `[[`, "calls"))
calls <- merge(reads, calls, by = "read", sort = FALSE)
if (any(table(calls$method) != nrow(reads))) stop("a method did not call every read")
acc <- do.call(rbind, lapply(names(runs), function(m) {
  d <- calls[calls$method == m, ]
  b <- d[d$set == "barcoded", ]
  n <- d[d$set == "none", ]
  data.frame(
    method = m,
    barcoded = nrow(b),
    correct = sum(b$call == b$truth),
    wrong = sum(grepl("^barcode", b$call) & b$call != b$truth),
    ambiguous = sum(b$call == "ambiguous"),
    unassigned = sum(b$call == "none"),
    no_barcode_reads = nrow(n),
    no_barcode_assigned = sum(grepl("^barcode", n$call)),
    seconds = runs[[m]]$seconds,
    k = if (m == "kit" || m == "kit_whole") kit_k else if (m == "bare_k5") 5L else NA_integer_,
    stringsAsFactors = FALSE
  )
}))
acc$correct_pct <- round(100 * acc$correct / acc$barcoded, 1)
conf <- as.data.frame(table(method = calls$method, truth = ifelse(is.na(calls$truth), "no barcode", calls$truth),
  call = calls$call), stringsAsFactors = FALSE)
conf <- conf[conf$Freq > 0, ]
print(acc)

write_csv(acc, "kits_accuracy")
write_csv(conf, "kits_confusion")
write_csv(calls, "kits_calls")
write_receipt("kits", args, load_before = load_before, extra = list(
  kit_error_rate = attr(kit, "error_rate"),
  kit_pattern_length = max(nchar(ducksassy:::set_patterns(kit))),
  qcat = qcat_version,
  qcat_command = "qcat -f <reads> -k RBK001 --tsv",
  kit_default_k = kit_k,
  inputs = unname(inputs),
  workload = list(barcoded = sum(reads$set == "barcoded"), none = sum(reads$set == "none"),
    truth = as.list(table(reads$truth)))
))
