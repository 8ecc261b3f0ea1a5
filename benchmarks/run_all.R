# Run every benchmark and render every report (`make benchmarks`).
#
#   Rscript benchmarks/run_all.R [--only=scaling,profile,...] [--render_only]
#     [--quick] [--threads=1,2,4,8] [--no_readme] [--single_lib=PATH]
#
# Each script runs in its own R process (so one's memory does not weigh on
# the next) with its default sizes, which are the full workloads of the
# reports; `--quick` runs them on small inputs (a smoke test, minutes), and
# `--threads` is passed to every script that takes thread counts. Then
# every report (benchmarks/*.Rmd) is rendered to .md next to it, and the
# README's benchmarks section (between its markers) is refreshed from
# README.Rmd. The scripts write benchmarks/data/*.csv and *_receipt.json;
# the reports read only those. `--single_lib` is passed to overhead.R (the
# dispatched build against a single-backend one, issue 14).
#
# `kits` also runs benchmarks/kits_sim.R (simulated runs, speed per read)
# and benchmarks/detect_kit.R (the kit named from the reads).
# Takes about 20-30 minutes on a 2-core machine. Set DUCKSASSY_BENCH_LIB to
# benchmark a library other than the default one.

if (!file.exists("benchmarks/run_all.R")) stop("run from the package root")
args <- commandArgs(trailingOnly = TRUE)
opt <- function(name) {
  hit <- grep(paste0("^--", name, "(=|$)"), args, value = TRUE)
  if (!length(hit)) return(NULL)
  v <- sub(paste0("^--", name, "=?"), "", hit[[1]])
  if (nzchar(v)) v else "true"
}
all_reports <- c("scaling", "result_paths", "overhead", "profile", "peers", "memory", "barcodes", "kits", "runs", "strategies")
only <- if (!is.null(opt("only"))) strsplit(opt("only"), ",")[[1]] else all_reports
quick <- !is.null(opt("quick"))
threads <- opt("threads")

quick_args <- list(
  scaling = c("--small=16384", "--balanced=61440", "--reps=2", "--genome_reps=5"),
  result_paths = c("--dna_records=16384", "--ascii_records=2048", "--reps=2"),
  overhead = c("--dna_records=16384", "--ascii_records=2048", "--reps=2"),
  profile = c("--dna_records=32768", "--ascii_records=4096", "--reps=1"),
  peers = c("--k=0,1", "--reps=1", "--datasets=lambda_reads"),
  memory = c("--records=10000", "--fallback_reads=20000"),
  barcodes = c("--reads=300", "--reps=2", "--cutadapt_reads=30", "--cutadapt_reps=1"),
  kits = c("--reads=50"),
  kits_sim = c("--reads=60", "--reps=1", "--copies=2", "--speed_reads=30"),
  runs = c("--copies=1", "--reps=2", "--rss_reps=1"),
  strategies = c("--short_reads=500", "--long_reads=50", "--reps=2")
)
takes_threads <- c("scaling", "result_paths", "overhead", "profile", "peers", "memory", "barcodes", "kits", "runs")

rscript <- file.path(R.home("bin"), "Rscript")
failed <- character()
# The 1-minute load average right after one benchmark still counts it (about
# 1 on this machine): each script waits until it has fallen below 0.3 (at
# most 3 minutes) so that its receipt's load_average_before tells of other
# work, not of the previous script.
wait_quiet <- function(below = 0.3, most = 180) {
  if (!file.exists("/proc/loadavg") || quick) return(invisible())
  t0 <- proc.time()[["elapsed"]]
  load1 <- function() as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  while (load1() >= below && proc.time()[["elapsed"]] - t0 < most) Sys.sleep(5)
  message(sprintf("load average %.2f after waiting %.0f s", load1(), proc.time()[["elapsed"]] - t0))
}
run <- function(script, extra = character()) {
  wait_quiet()
  message("\n==> Rscript ", script, " ", paste(extra, collapse = " "))
  t0 <- proc.time()[["elapsed"]]
  status <- system2(rscript, c(script, extra))
  message(sprintf("<== %s: %s after %.0f s", script, if (status == 0) "done" else paste("FAILED, status", status),
                  proc.time()[["elapsed"]] - t0))
  if (status != 0) failed <<- c(failed, script)
  status == 0
}

if (is.null(opt("render_only"))) {
  for (name in only) {
    if (name == "memory" && !quick) {
      # the streaming-memory measurements of the FASTX and table paths
      # (their own scripts, at their default sizes), whose CSVs memory.Rmd
      # shows; not with --quick, which would overwrite them with small runs
      if (file.exists("benchmarks/fastx_memory.R")) run("benchmarks/fastx_memory.R")
      if (file.exists("benchmarks/table_memory.R")) {
        if (requireNamespace("duckdb", quietly = TRUE)) {
          run("benchmarks/table_memory.R")
        } else {
          message("skipping benchmarks/table_memory.R: the duckdb package is not installed")
        }
      }
    }
    extra <- c(if (quick) quick_args[[name]],
               # perf where it works and callgrind (instruction counts, on an
               # AVX2 build made on first use) for the full report
               if (!quick && name == "profile") "--tool=both",
               if (!is.null(threads) && name %in% takes_threads) paste0("--threads=", threads),
               if (!is.null(opt("single_lib")) && name == "overhead") paste0("--single_lib=", opt("single_lib")))
    run(file.path("benchmarks", paste0(name, ".R")), extra)
    # the simulated runs and the speed per read that kits.Rmd also shows
    if (name == "kits" && file.exists("benchmarks/kits_sim.R")) {
      run("benchmarks/kits_sim.R", if (quick) quick_args$kits_sim)
    }
    # the kit named from the reads (issue 51), also in kits.Rmd
    if (name == "kits" && file.exists("benchmarks/detect_kit.R")) {
      run("benchmarks/detect_kit.R", if (quick) c("--reads=500", "--reps=2"))
    }
  }
}

for (name in only) {
  rmd <- file.path("benchmarks", paste0(name, ".Rmd"))
  if (!file.exists(rmd)) next
  message("\n==> rendering ", rmd)
  ok <- tryCatch({
    rmarkdown::render(rmd, output_format = rmarkdown::github_document(html_preview = FALSE), quiet = TRUE,
                      envir = new.env())
    TRUE
  }, error = function(e) {
    message("rendering ", rmd, " failed: ", conditionMessage(e))
    FALSE
  })
  if (!ok) failed <- c(failed, rmd)
}

# the README's benchmarks section (only the part between its markers)
if (is.null(opt("no_readme"))) {
  message("\n==> README.md: benchmarks section")
  ok <- tryCatch({
    source("benchmarks/readme_section.R")
    update_readme_section(".")
    TRUE
  }, error = function(e) {
    message("updating the README section failed: ", conditionMessage(e))
    FALSE
  })
  if (!ok) failed <- c(failed, "README.md")
}

if (length(failed)) {
  message("\nFailed: ", paste(failed, collapse = ", "))
  quit(status = 1)
}
message("\nAll benchmarks done; reports: ", paste0("benchmarks/", only, ".md", collapse = " "))
