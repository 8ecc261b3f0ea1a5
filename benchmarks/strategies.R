# No strategy may make a workload slower than with it off (issue 39,
# benchmarks/strategies.Rmd): each of ducksassy's switchable search
# strategies timed on and off on a panel of shapes.
#
# Strategies (each switched off by its environment variable, read when a
# search starts):
#   lanes      short records joined into one text (src/rust/core/src/lanes.rs;
#              DUCKSASSY_LANES=off)
#   rc_filter  the reverse strand of a batched group searched only for the
#              patterns an exact k-mer filter finds in a record
#              (src/rust/core/src/rc_filter.rs; DUCKSASSY_RC_FILTER=off);
#              both strands only
# Configurations: `all_on` (the default), each strategy off alone, and all
# off; every one must give the same hits (checked here: the run stops if
# not).
#
# Shapes: reads `short` (`--short_reads` reads of 150 bases) and `long`
# (`--long_reads` ONT-like reads of 500-6,000 bases), both from
# benchmarks/barcodes_data.R (a barcode near the start and its reverse
# complement near the end of 90% of the reads, 0-3 edits each); patterns:
# the first 1 or 96 (`--patterns`) of its 24-base barcodes; strands:
# forward only (rc = FALSE) and both; k = `--k`; one thread;
# sassy_search() (every hit, with CIGARs).
#
# Every repetition times every (shape, configuration) once, the
# configurations of one shape back to back in an order rotated from one
# repetition to the next, so that each ratio on / off pairs two calls made
# seconds apart.
#
#   Rscript benchmarks/strategies.R [--short_reads=20000] [--long_reads=3000]
#     [--patterns=1,96] [--k=3] [--reps=10] [--seed=39]
#   Small smoke run: --short_reads=500 --long_reads=50 --reps=2
#
# Writes benchmarks/data/strategies.csv and strategies_receipt.json.

source("benchmarks/common.R")
source("benchmarks/barcodes_data.R")
args <- bench_args(list(
  short_reads = 20000L, long_reads = 3000L, patterns = c(1L, 96L), k = 3L, reps = 10L, seed = 39L
))
load_before <- load_average()

# ---- the shapes ---------------------------------------------------------------
long <- make_barcode_data(reads = args$long_reads, barcodes = max(args$patterns), seed = args$seed)
short <- make_barcode_data(reads = args$short_reads, barcodes = max(args$patterns), min_length = 150L,
                           max_length = 150L, start_offset = c(5L, 20L), end_offset = c(5L, 20L),
                           seed = args$seed)
# one panel of barcodes for both read shapes
barcodes <- long$barcodes
short_reads <- unname(short$reads)
# the short reads carry the long reads' barcodes (same seed, same panel)
stopifnot(identical(short$barcodes, barcodes))
reads <- list(short = short_reads, long = unname(long$reads))
message(sprintf("short: %d reads (%.1f Mbp); long: %d reads (%.1f Mbp); patterns %s; k = %d",
                length(reads$short), sum(nchar(reads$short)) / 1e6, length(reads$long),
                sum(as.numeric(nchar(reads$long))) / 1e6, paste(args$patterns, collapse = "/"), args$k))

strategies <- c(lanes = "DUCKSASSY_LANES", rc_filter = "DUCKSASSY_RC_FILTER")
#' The configurations of a shape: name -> the strategies switched off.
configs <- function(rc) {
  s <- if (rc) names(strategies) else setdiff(names(strategies), "rc_filter")
  c(list(all_on = character()), stats::setNames(as.list(s), paste0(s, "_off")), list(all_off = s))
}
#' `f()` with the strategies `off` switched off.
with_off <- function(off, f) {
  vars <- unname(strategies[off])
  old <- Sys.getenv(vars, unset = NA, names = TRUE)
  if (length(vars)) do.call(Sys.setenv, as.list(stats::setNames(rep("off", length(vars)), vars)))
  on.exit(for (v in vars) if (is.na(old[[v]])) Sys.unsetenv(v) else do.call(Sys.setenv, stats::setNames(list(old[[v]]), v)))
  f()
}

shapes <- expand.grid(reads = names(reads), patterns = args$patterns, rc = c(FALSE, TRUE),
                      stringsAsFactors = FALSE)
shapes$shape <- sprintf("%s_%dp_%s", shapes$reads, shapes$patterns, ifelse(shapes$rc, "both", "fwd"))
call_of <- function(i) {
  s <- shapes[i, ]
  x <- reads[[s$reads]]
  p <- barcodes[seq_len(s$patterns)]
  function() sassy_search(x, p, k = args$k, rc = s$rc, threads = 1L)
}

# ---- timing ---------------------------------------------------------------------
rows <- list()
reference <- list()
for (i in seq_len(nrow(shapes))) {
  # warm-up, and the hits every configuration must give
  f <- call_of(i)
  for (cn in names(configs(shapes$rc[i]))) {
    h <- hit_summary(with_off(configs(shapes$rc[i])[[cn]], f))
    if (is.null(reference[[shapes$shape[i]]])) reference[[shapes$shape[i]]] <- h
    if (!identical(h, reference[[shapes$shape[i]]])) {
      stop(shapes$shape[i], ": ", cn, " gives other hits than all_on")
    }
  }
}
for (rep in seq_len(args$reps)) {
  for (i in seq_len(nrow(shapes))) {
    f <- call_of(i)
    cf <- configs(shapes$rc[i])
    cn <- names(cf)
    cn <- cn[(seq_along(cn) + rep - 2L) %% length(cn) + 1L]
    for (o in seq_along(cn)) {
      gc(verbose = FALSE)
      t0 <- proc.time()
      h <- with_off(cf[[cn[o]]], f)
      d <- proc.time() - t0
      same <- identical(hit_summary(h), reference[[shapes$shape[i]]])
      if (!same) stop(shapes$shape[i], ": ", cn[o], " gives other hits than all_on (rep ", rep, ")")
      rows[[length(rows) + 1L]] <- data.frame(
        shape = shapes$shape[i], reads = shapes$reads[i], records = length(reads[[shapes$reads[i]]]),
        bases = sum(as.numeric(nchar(reads[[shapes$reads[i]]]))), patterns = shapes$patterns[i],
        strands = if (shapes$rc[i]) "both" else "forward", config = cn[o],
        off = paste(cf[[cn[o]]], collapse = "+"), rep = rep, order = o,
        seconds = d[["elapsed"]], cpu_seconds = d[["user.self"]] + d[["sys.self"]],
        hits = nrow(h), load1 = load_average()[1], stringsAsFactors = FALSE
      )
      message(sprintf("rep %d %-16s %-14s %.3f s, %d hits", rep, shapes$shape[i], cn[o], d[["elapsed"]], nrow(h)))
    }
  }
}
write_csv(do.call(rbind, rows), "strategies")
write_receipt("strategies", args, load_before = load_before, extra = list(
  workload = list(
    short_reads = length(reads$short), short_bases = sum(nchar(reads$short)),
    long_reads = length(reads$long), long_bases = sum(as.numeric(nchar(reads$long))),
    barcode_length = unname(nchar(barcodes[1])), generator = "benchmarks/barcodes_data.R", seed = args$seed
  ),
  strategies = as.list(strategies)
))
