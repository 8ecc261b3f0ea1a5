# The headline figures of the benchmark reports, as markdown for the
# README's "Benchmarks" section (README.Rmd sources this file from the
# package root). Every number is read from benchmarks/data/*.csv and the
# receipts; a report whose data is missing is left out.

readme_benchmarks <- function(dir = "benchmarks", href = function(name) sprintf("benchmarks/%s.md", name)) {
  source(file.path(dir, "report_helpers.R"), local = TRUE) # paired()
  rd <- function(name) {
    p <- file.path(dir, "data", paste0(name, ".csv"))
    if (file.exists(p)) utils::read.csv(p, stringsAsFactors = FALSE) else NULL
  }
  rc <- function(name) {
    p <- file.path(dir, "data", paste0(name, "_receipt.json"))
    if (file.exists(p)) jsonlite::read_json(p, simplifyVector = TRUE) else NULL
  }
  med <- function(df, by, value) {
    stats::aggregate(stats::as.formula(paste(value, "~", paste(by, collapse = "+"))), df, stats::median)
  }
  f <- function(x, d = 2) formatC(x, digits = d, format = "f", big.mark = ",")
  link <- function(name, text = name) sprintf("[%s](%s)", text, href(name))
  out <- character()

  r <- rc("scaling")
  if (!is.null(r)) {
    out <- c(out, sprintf(
      "Measured on %s (%d cores, shared with other jobs: see each report's load average), ducksassy %s, sassy %s, SIMD `%s`. Every number below comes from the CSVs under `benchmarks/data/`; `make benchmarks` reruns and re-renders them all.",
      r$cpu_model, as.integer(r$cores), r$package_version, r$sassy_version, r$simd_in_use), "")
  }

  ov <- rd("overhead")
  if (!is.null(ov)) {
    m <- med(ov, c("workload", "path", "threads"), "seconds")
    mc <- med(ov, c("workload", "path", "threads"), "cpu_seconds")
    g <- function(tab, wl, p, th = 1) tab[[ncol(tab)]][tab$workload == wl & tab$path == p & tab$threads == th]
    keys <- c("hits", "cost_sum", "cigar_bytes", "start_sum", "minus")
    same <- all(vapply(split(ov[, keys], ov$workload), function(x) nrow(unique(x)) == 1L, TRUE))
    has_table <- any(ov$path == "duckdb_table")
    out <- c(out, sprintf(
      "- **Overhead** (%s): on one thread, `sassy_search()` from R takes %s times (CPU %s times) as long as calling the sassy crate directly from Rust, for %s DNA reads of 256 bases (20-mer, k = 2, both strands); the core engine alone %s times. For dense ASCII hits (every hit a data-frame row with a CIGAR) R takes %s times. %s%s",
      link("overhead"), f(g(m, "dna", "r_search") / g(m, "dna", "sassy_direct")),
      f(g(mc, "dna", "r_search") / g(mc, "dna", "sassy_direct")),
      formatC(unique(ov$records[ov$workload == "dna"]), format = "d", big.mark = ","),
      f(g(m, "dna", "engine") / g(m, "dna", "sassy_direct")),
      f(g(m, "ascii", "r_search") / g(m, "ascii", "sassy_direct")),
      if (same) "All paths return identical hits (count, cost sum, CIGAR bytes, starts, strands)." else "**Paths disagree: see the report.**",
      if (!has_table) {
        " The DuckDB path was not measured in this run."
      } else if (any(ov$path == "duckdb_table_serial")) {
        sprintf(" Through DuckDB (`sassy_search_table()`, each chunk searched in its Arrow batch while the next is fetched): %s times; %s times with `options(ducksassy.table_overlap = FALSE)`.",
          f(g(m, "dna", "duckdb_table") / g(m, "dna", "sassy_direct")),
          f(g(m, "dna", "duckdb_table_serial") / g(m, "dna", "sassy_direct")))
      } else {
        sprintf(" Through DuckDB (`sassy_search_table()`): %s times.", f(g(m, "dna", "duckdb_table") / g(m, "dna", "sassy_direct")))
      }
    ))
  }

  if (!is.null(ov) && any(ov$path == "r_dispatched")) {
    pd <- paired(ov, "r_dispatched", "r_single")
    pg <- paired(ov, "r_search_progress_default", "r_search")
    out <- c(out, sprintf(
      "- **SIMD dispatch and progress** (%s): the default install (a C dispatcher that loads the best backend) against a single-backend build of the same commit, paired per repetition: median %s-%s times the time; `sassy_search()` with progress on as users have it, against off: median %s-%s.",
      link("overhead"), f(min(pd$median), 3), f(max(pd$median), 3), f(min(pg$median), 3), f(max(pg$median), 3)
    ))
  }

  ln <- rd("overhead_lanes")
  if (!is.null(ln)) {
    m <- med(ln, c("workload", "length", "path"), "cpu_seconds")
    g <- function(p) m$cpu_seconds[m$workload == "reads150" & m$path == p]
    sw <- m[m$workload == "sweep", ]
    sw <- merge(sw, unique(ln[ln$workload == "sweep", c("length", "records")]))
    sw$mb <- sw$records * sw$length / 1e6 / sw$cpu_seconds
    lens <- sort(unique(sw$length))
    mb <- function(p) paste(f(sw$mb[sw$path == p][match(lens, sw$length[sw$path == p])], 0), collapse = "/")
    out <- c(out, sprintf(
      "- **Short records** (%s): %s random 150-base reads, one 20-mer, k = 2, both strands, one thread: `sassy_count()` with the records joined takes %s of the CPU time of sassy's own per-record loop and %s times that of one text of the same reads (one record at a time: %s of sassy's loop). MB/s per CPU second at %s bases: joined %s, one at a time %s, one long text %s.",
      link("overhead"), formatC(unique(ln$records[ln$workload == "reads150"]), format = "d", big.mark = ","),
      f(g("lanes") / g("sassy_direct")), f(g("lanes") / g("one_text")), f(g("one_by_one") / g("sassy_direct")),
      paste(formatC(lens, format = "d", big.mark = ","), collapse = "/"), mb("lanes"), mb("one_by_one"), mb("one_text")
    ))
  }

  pe <- rd("peers")
  ag <- rd("peers_agreement")
  if (!is.null(pe)) {
    m <- med(pe, c("dataset", "k", "comparison", "tool", "threads"), "seconds")
    ds <- m[m$tool == "ducksassy" & m$threads == 1, ]
    m <- merge(m[m$tool != "ducksassy", ], ds[, c("dataset", "k", "comparison", "seconds")],
               by = c("dataset", "k", "comparison"), suffixes = c("", "_ds"))
    m$ratio <- m$seconds / m$seconds_ds
    rng <- function(tool) {
      x <- m$ratio[m$tool == tool]
      if (!length(x)) return(NULL)
      sprintf("%s %s-%s", c(Biostrings = "Biostrings `vcountPattern(with.indels = TRUE)`", agrepl = "`agrepl()`", grepl = "`grepl(fixed = TRUE)`")[[tool]],
              f(min(x), 1), f(max(x), 1))
    }
    agree <- if (!is.null(ag)) sprintf(" Records found agree in %d of %d comparisons.", sum(ag$only_ducksassy == 0 & ag$only_peer == 0), nrow(ag)) else ""
    out <- c(out, sprintf(
      "- **Peers** (%s): on real sequences (lambda phage reads, Drosophila upstream regions), k = %s, each tool on one thread, time relative to ducksassy's (above 1: ducksassy is faster): %s.%s",
      link("peers"), paste(sort(unique(pe$k)), collapse = ", "),
      paste(unlist(lapply(c("Biostrings", "agrepl", "grepl"), rng)), collapse = "; "), agree
    ))
  }

  sc <- rd("scaling")
  if (!is.null(sc)) {
    m <- merge(med(sc, c("workload", "threads"), "seconds"), med(sc, c("workload", "threads"), "cpu_seconds"))
    top <- max(m$threads)
    s1 <- m[m$threads == 1, ]
    s1 <- s1[order(match(s1$workload, c("small", "large", "balanced", "ecoli"))), ]
    st <- m[m$threads == top, ]
    st <- st[match(s1$workload, st$workload), ]
    out <- c(out, sprintf(
      "- **Scaling** (%s): on %d threads, wall-clock speedup %s, with %s cores actually given to the process by this shared, oversubscribed machine; CPU time on %d threads is %s of that on one (the work added by running in parallel).",
      link("scaling"), top,
      paste(sprintf("%s (%s)", f(s1$seconds / st$seconds), s1$workload), collapse = ", "),
      paste(f(st$cpu_seconds / st$seconds), collapse = ", "),
      top, paste(sprintf("%s%%", f(100 * st$cpu_seconds / s1$cpu_seconds, 0)), collapse = ", ")
    ))
  }

  rp <- rd("result_paths")
  if (!is.null(rp)) {
    m <- med(rp, c("workload", "path", "threads"), "cpu_seconds")
    g <- function(wl, p) m$cpu_seconds[m$workload == wl & m$path == p & m$threads == 1]
    out <- c(out, sprintf(
      "- **Result paths** (%s): `sassy_count()` / `sassy_contains()` use %s / %s of the CPU time of `sassy_search()` on DNA reads and %s / %s on dense ASCII hits (no traceback, no data frame).",
      link("result_paths"), f(g("dna", "count") / g("dna", "search")), f(g("dna", "contains") / g("dna", "search")),
      f(g("ascii", "count") / g("ascii", "search")), f(g("ascii", "contains") / g("ascii", "search"))
    ))
  }

  ps <- rd("result_paths_patterns")
  if (!is.null(ps)) {
    m <- med(ps, c("patterns", "path"), "cpu_seconds")
    np <- sort(unique(m$patterns))
    ratio <- function(p) {
      paste(f(m$cpu_seconds[m$path == p][match(np, m$patterns[m$path == p])] /
              m$cpu_seconds[m$path == "search"][match(np, m$patterns[m$path == "search"])]), collapse = "/")
    }
    out <- c(out, sprintf(
      "- **Many patterns** (%s): %s 150-base reads, one thread, %s random 20-mers: `sassy_count()` takes %s and `sassy_contains()` %s of the CPU time of `sassy_search()`.",
      link("result_paths"), formatC(unique(ps$records), format = "d", big.mark = ","),
      paste(formatC(np, format = "d", big.mark = ","), collapse = "/"), ratio("count"), ratio("contains")
    ))
  }

  pr <- rd("profile")
  if (!is.null(pr)) {
    tool <- pr$tool[1]
    g <- function(wl, cat) sum(pr$percent[pr$tool == tool & pr$workload == wl & pr$threads == 1 & pr$category == cat])
    out <- c(out, sprintf(
      "- **Profile** (%s, %s): sassy's search and traceback take %s%% of a warm DNA search on one thread; on dense ASCII hits, allocation %s%% and R's data frame %s%%.",
      link("profile"), tool, f(g("dna", "sassy search + traceback"), 0),
      f(g("ascii", "allocation (malloc/free)"), 0),
      f(g("ascii", "R: interpreter, GC, data.frame (libR)") + g("ascii", "R objects: binding (Rust columns to R vectors)"), 0)
    ))
  }

  bc <- rd("barcodes")
  acc <- rd("barcodes_accuracy")
  if (!is.null(bc) && !is.null(acc)) {
    # paired by repetition, as in barcodes.Rmd: the median of time(a) / time(b)
    pr <- function(a, b, col = "seconds") {
      x <- merge(bc[bc$path == a & !is.na(bc[[col]]), c("rep", col)], bc[bc$path == b & !is.na(bc[[col]]), c("rep", col)],
                 by = "rep", suffixes = c("_a", "_b"))
      if (nrow(x)) stats::median(x[[paste0(col, "_a")]] / x[[paste0(col, "_b")]]) else NA_real_
    }
    ac <- function(m) acc[acc$method == m & acc$set == "all", ][1, ]
    dm <- ac("demux")
    out <- c(out, sprintf(
      "- **Barcodes** (%s): %s ONT-like reads, 96 random 24-base barcodes, k = 3, one thread: `sassy_assign(ends = 150)` is %s times as fast as `sassy_search()` of the whole reads, and `sassy_demultiplex_fastx()` takes 1/%s of cutadapt's time per read, with %s of %s barcoded reads assigned correctly and %s wrong. Both strands cost %s times the forward strand (sassy's own batched search from Rust: %s times); 2 threads demultiplex %s times as fast as one (%s times for whole reads).",
      link("barcodes"), formatC(unique(bc$records[bc$path == "r_search"]), format = "d", big.mark = ","),
      f(pr("r_search", "r_assign_ends"), 1), f(pr("cutadapt_subset", "demux_threads1", "seconds_per_read"), 0),
      formatC(dm$correct, format = "d", big.mark = ","), formatC(dm$barcoded, format = "d", big.mark = ","),
      formatC(dm$wrong, format = "d", big.mark = ","),
      f(pr("r_search", "r_search_forward")), f(pr("sassy_barcodes", "sassy_barcodes_forward")),
      f(pr("demux_threads1", "demux_threads2")), f(pr("wdemux_threads1", "wdemux_threads2"))
    ))
  }

  fx <- rd("fastx_memory")
  tb <- rd("table_memory")
  al <- rd("memory_allocs")
  own <- rd("memory_rss")
  own_tb <- if (!is.null(own)) own[own$path == "table", ] else NULL
  if (!is.null(fx) || !is.null(tb) || !is.null(al)) {
    parts <- c(
      if (!is.null(fx)) sprintf("peak memory of a FASTQ count grows %s x for 4x the reads", f(fx$ratio_to_1x[fx$label == "4x"])),
      if (!is.null(tb)) {
        sprintf("of a DuckDB table count %s x for 4x the rows", f(tb$rss_ratio_to_1x[tb$mode == "count" & tb$label == "4x"]))
      } else if (!is.null(own_tb) && nrow(own_tb) == 2L) {
        sprintf("of a DuckDB table count %s x for 4x the rows (%s rows at 1x, measured by memory.R)",
                f(own_tb$peak_kb[own_tb$size == "4x"] / own_tb$peak_kb[own_tb$size == "1x"]),
                formatC(own_tb$records[own_tb$size == "1x"], format = "d", big.mark = ","))
      },
      if (!is.null(al)) {
        src <- rd("memory_alloc_sources")
        src <- src[src$workload == "no_hits", ]
        in_sassy <- !is.null(src) && nrow(src) > 0 && all(grepl("^<?sassy::", src$stack))
        sprintf("the core makes %s allocations per record without hits in steady state%s",
                paste(f(unique(al$allocs_per_record[al$workload == "no_hits"]), 0), collapse = "/"),
                if (in_sassy) ", all inside the vendored sassy (it encodes the pattern on every call)" else "")
      }
    )
    out <- c(out, sprintf("- **Memory** (%s): %s.", link("memory"), paste(parts, collapse = "; ")))
  }
  out
}

#' The README's short table of headline figures, as markdown lines: one row
#' per question, each figure read from benchmarks/data/*.csv (the same
#' arithmetic as readme_benchmarks(), whose longer list the "How it works"
#' article shows). A report whose data is missing gives no row.
readme_headline <- function(dir = "benchmarks", href = function(name) sprintf("benchmarks/%s.md", name),
                            index = "benchmarks/README.md") {
  source(file.path(dir, "report_helpers.R"), local = TRUE) # paired()
  rd <- function(name) {
    p <- file.path(dir, "data", paste0(name, ".csv"))
    if (file.exists(p)) utils::read.csv(p, stringsAsFactors = FALSE) else NULL
  }
  med <- function(df, by, value) {
    stats::aggregate(stats::as.formula(paste(value, "~", paste(by, collapse = "+"))), df, stats::median)
  }
  f <- function(x, d = 2) formatC(x, digits = d, format = "f", big.mark = ",")
  n <- function(x) formatC(x, format = "d", big.mark = ",")
  link <- function(name) sprintf("[%s](%s)", name, href(name))
  rows <- character()
  row <- function(what, figure, report) rows <<- c(rows, sprintf("| %s | %s | %s |", what, figure, link(report)))

  pe <- rd("peers")
  ag <- rd("peers_agreement")
  if (!is.null(pe)) {
    m <- med(pe, c("dataset", "k", "comparison", "tool", "threads"), "seconds")
    ds <- m[m$tool == "ducksassy" & m$threads == 1, ]
    m <- merge(m[m$tool != "ducksassy", ], ds[, c("dataset", "k", "comparison", "seconds")],
               by = c("dataset", "k", "comparison"), suffixes = c("", "_ds"))
    r <- m$seconds / m$seconds_ds
    rng <- function(tool) paste0(f(min(r[m$tool == tool]), 0), "-", f(max(r[m$tool == tool]), 0), " times as fast")
    row(sprintf("Approximate search of real reads and promoters (k = %s, one thread) against Biostrings `vcountPattern(with.indels = TRUE)` / `agrepl()`",
                paste(sort(unique(pe$k)), collapse = ", ")),
        sprintf("%s / %s%s", rng("Biostrings"), rng("agrepl"),
                if (!is.null(ag)) sprintf("; same records found in %d of %d comparisons", sum(ag$only_ducksassy == 0 & ag$only_peer == 0), nrow(ag)) else ""),
        "peers")
  }

  bc <- rd("barcodes")
  acc <- rd("barcodes_accuracy")
  if (!is.null(bc) && !is.null(acc)) {
    x <- merge(bc[bc$path == "cutadapt_subset", c("rep", "seconds_per_read")],
               bc[bc$path == "demux_threads1", c("rep", "seconds_per_read")], by = "rep")
    dm <- acc[acc$method == "demux" & acc$set == "all", ][1, ]
    row(sprintf("Demultiplexing %s ONT-like reads by 96 barcodes (k = 3, one thread) against cutadapt",
                n(unique(bc$records[bc$path == "r_search"]))),
        sprintf("%s times as fast per read; %s of %s barcoded reads right, %s wrong",
                f(stats::median(x[[2]] / x[[3]]), 0), n(dm$correct), n(dm$barcoded), n(dm$wrong)),
        "barcodes")
  }

  ov <- rd("overhead")
  if (!is.null(ov)) {
    m <- med(ov, c("workload", "path", "threads"), "seconds")
    g <- function(p) m$seconds[m$workload == "dna" & m$path == p & m$threads == 1]
    row(sprintf("`sassy_search()` from R on %s reads of 256 bases (20-mer, k = 2, one thread) against a Rust loop calling sassy per read",
                n(unique(ov$records[ov$workload == "dna"]))),
        sprintf("%s times the time", f(g("r_search") / g("sassy_direct"))),
        "overhead")
  }

  ln <- rd("overhead_lanes")
  if (!is.null(ln)) {
    m <- med(ln, c("workload", "length", "path"), "cpu_seconds")
    sw <- m[m$workload == "sweep" & m$path == "lanes" & m$length == 150, ]
    recs <- unique(ln$records[ln$workload == "sweep" & ln$length == 150])
    if (nrow(sw) == 1L && length(recs) == 1L) {
      row("Counting a 20-mer (k = 2, both strands) in 150-base reads",
          sprintf("%s MB of reads per CPU second", f(recs * 150 / 1e6 / sw$cpu_seconds, 0)),
          "overhead")
    }
  }

  sc <- rd("scaling")
  if (!is.null(sc)) {
    m <- med(sc, c("workload", "threads"), "seconds")
    top <- max(m$threads)
    s1 <- m[m$threads == 1, ]
    st <- m[m$threads == top, ][match(s1$workload, m$workload[m$threads == top]), ]
    sp <- s1$seconds / st$seconds
    row(sprintf("%d threads against one (reads, a genome)", top),
        sprintf("%s-%s times as fast", f(min(sp)), f(max(sp))), "scaling")
  }

  fx <- rd("fastx_memory")
  if (!is.null(fx) && any(fx$label == "4x")) {
    row("Peak memory of a FASTQ count, 4 times the reads",
        sprintf("%s times the memory", f(fx$ratio_to_1x[fx$label == "4x"])), "memory")
  }

  if (!length(rows)) return(character())
  sc_r <- file.path(dir, "data", "scaling_receipt.json")
  machine <- if (file.exists(sc_r)) {
    r <- jsonlite::read_json(sc_r, simplifyVector = TRUE)
    sprintf(" Measured on %s (%d cores), SIMD backend `%s`.", r$cpu_model, as.integer(r$cores), r$simd_in_use)
  } else ""
  c(sprintf("Headline figures from the reports in [`benchmarks/`](%s), each read from its CSV.%s", index, machine),
    "", "| question | result | report |", "|---|---|---|", rows)
}

#' Render README.Rmd into a temporary directory and copy only the part
#' between `<!-- benchmarks:start -->` and `<!-- benchmarks:end -->` into
#' README.md (the rest of README.md is left as it is). Where README.md has
#' no markers yet, the body of its "## Benchmarks" section is replaced.
update_readme_section <- function(root = ".") {
  start <- "<!-- benchmarks:start -->"
  end <- "<!-- benchmarks:end -->"
  tmp <- tempfile("readme-")
  dir.create(tmp)
  on.exit(unlink(tmp, recursive = TRUE), add = TRUE)
  out <- rmarkdown::render(file.path(root, "README.Rmd"), output_dir = tmp, intermediates_dir = tmp,
                           knit_root_dir = normalizePath(root), quiet = TRUE, envir = new.env())
  rendered <- readLines(out)
  a <- which(rendered == start)
  b <- which(rendered == end)
  if (length(a) != 1L || length(b) != 1L) stop("the rendered README has no single benchmarks section")
  section <- rendered[a:b]
  md_path <- file.path(root, "README.md")
  md <- readLines(md_path)
  a <- which(md == start)
  b <- which(md == end)
  if (length(a) == 1L && length(b) == 1L) {
    md <- c(md[seq_len(a - 1L)], section, md[-seq_len(b)])
  } else {
    h <- which(md == "## Benchmarks")
    if (length(h) != 1L) stop("README.md has neither the markers nor one '## Benchmarks' heading")
    nxt <- which(startsWith(md, "## ") & seq_along(md) > h)
    nxt <- if (length(nxt)) nxt[[1]] else length(md) + 1L
    md <- c(md[seq_len(h)], "", section, "", md[-seq_len(nxt - 1L)])
  }
  writeLines(md, md_path)
  invisible(md_path)
}
