# The SIMD backends: sassy_backend_info(), the dispatcher in src/entrypoint.c
# (which backend it loads, DUCKSASSY_BACKEND, the refusal path) with R/zzz.R,
# and identical results on every backend this CPU supports.

# Is ducksassy installed (not loaded with pkgload::load_all())? Subprocess
# tests load the installed copy, so they only make sense then.
installed_ducksassy <- function() {
  path <- tryCatch(find.package("ducksassy"), error = function(e) "")
  nzchar(path) && file.exists(file.path(path, "Meta", "package.rds"))
}

# x86-64 levels this CPU has, from /proc/cpuinfo's flags: an oracle for the
# dispatcher's __builtin_cpu_supports() (NULL where there is no cpuinfo).
cpuinfo_levels <- function() {
  if (!file.exists("/proc/cpuinfo")) return(NULL)
  l <- grep("^flags", readLines("/proc/cpuinfo", warn = FALSE), value = TRUE)
  if (length(l) == 0) return(NULL)
  flags <- strsplit(sub("^flags\\s*:\\s*", "", l[1]), "\\s+")[[1]]
  v3 <- all(c("avx2", "bmi2", "fma", "popcnt", "movbe") %in% flags)
  v4 <- v3 && all(c("avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd") %in% flags)
  c(scalar = TRUE, avx2 = v3, avx512 = v4)
}

# Runs `fun` in a fresh R with `env` added; returns its value.
# (DUCKSASSY_BACKEND and the test hook unset unless `env` sets them)
in_subprocess <- function(fun, env = character(), args = list()) {
  e <- c(callr::rcmd_safe_env(), DUCKSASSY_BACKEND = "", DUCKSASSY_FAKE_CPU_UNSUPPORTED = "")
  e[names(env)] <- env
  callr::r(fun, args = args, env = e)
}

test_that("sassy_backend_info() lists the compiled backends and the one in use", {
  info <- sassy_backend_info()
  expect_s3_class(info, "data.frame")
  expect_named(
    info,
    c("backend", "supported", "in_use", "forced", "simd", "cpu", "sassy_version")
  )
  expect_gte(nrow(info), 1L)
  expect_type(info$backend, "character")
  expect_type(info$supported, "logical")
  expect_type(info$in_use, "logical")
  expect_type(info$forced, "logical")
  expect_type(info$simd, "character")
  expect_type(info$cpu, "character")
  expect_true(all(info$backend %in% c("scalar", "avx2", "avx512", "neon", "native")))
  expect_false(anyDuplicated(info$backend) > 0)
  # exactly one backend is loaded, and the CPU supports it
  expect_identical(sum(info$in_use), 1L)
  used <- info[info$in_use, ]
  expect_true(used$supported)
  expect_true(all(is.na(info$simd[!info$in_use])))
  expect_identical(info$sassy_version, rep("0.3.0", nrow(info)))
  # the C side (which file was loaded) and the Rust side (the target
  # features rustc compiled that file with) agree
  if (used$backend != "native") {
    expect_identical(used$simd, used$backend)
  }

  levels <- cpuinfo_levels()
  x86 <- grepl("x86_64|amd64", R.version$arch)
  if (x86 && !is.null(levels)) {
    known <- info$backend[info$backend %in% names(levels)]
    expect_identical(info$supported[match(known, info$backend)], unname(levels[known]))
  }
  # without DUCKSASSY_BACKEND, the best supported backend is loaded
  if (!nzchar(Sys.getenv("DUCKSASSY_BACKEND")) &&
      !nzchar(Sys.getenv("DUCKSASSY_FAKE_CPU_UNSUPPORTED"))) {
    expect_identical(used$backend, utils::tail(info$backend[info$supported], 1))
    expect_false(used$forced)
  }
})

test_that("the default install on x86-64 has all three backends", {
  skip_if_not(grepl("x86_64|amd64", R.version$arch), "not x86-64")
  skip_if(nzchar(Sys.getenv("DUCKSASSY_SIMD")) && Sys.getenv("DUCKSASSY_SIMD") != "auto",
          "installed with DUCKSASSY_SIMD (one backend)")
  dir <- dirname(getLoadedDLLs()[["ducksassy"]][["path"]])
  have <- sub("^ducksassy_(.*)\\.so$", "\\1", list.files(dir, "^ducksassy_.*\\.so$"))
  if (!setequal(have, c("scalar", "avx2", "avx512"))) {
    skip(paste("single-backend install:", paste(have, collapse = ", ")))
  }
  expect_identical(sassy_backend_info()$backend, c("scalar", "avx2", "avx512"))
})

test_that("the dispatcher's outcomes become classed conditions", {
  base <- list(
    backends = c("scalar", "avx2", "avx512"),
    requires = c("none", "x86-64-v3", "x86-64-v4"),
    supported = c(TRUE, TRUE, FALSE), in_use = "avx2", forced = FALSE,
    requested = "", request_status = "unset", load_error = NA_character_,
    cpu = "Test CPU 3000", fake_cpu = FALSE
  )
  expect_null(check_backend_loaded(base, TRUE))

  # a typo in DUCKSASSY_BACKEND: nothing loaded, an error naming it
  bad <- utils::modifyList(base, list(requested = "avx1024", request_status = "unknown", in_use = NA_character_))
  cnd <- expect_error(check_backend_loaded(bad, FALSE), class = "ducksassy_backend_error")
  expect_s3_class(cnd, "ducksassy_error")
  expect_match(conditionMessage(cnd), "avx1024", fixed = TRUE)
  expect_match(conditionMessage(cnd), "DUCKSASSY_BACKEND", fixed = TRUE)
  expect_identical(cnd$requested, "avx1024")

  # a backend the CPU lacks: warned, another one in use
  lacks <- utils::modifyList(base, list(requested = "avx512", request_status = "not_supported"))
  w <- expect_warning(check_backend_loaded(lacks, TRUE), class = "ducksassy_backend_warning")
  expect_match(conditionMessage(w), "x86-64-v4", fixed = TRUE)
  expect_match(conditionMessage(w), "Test CPU 3000", fixed = TRUE)
  expect_identical(w$in_use, "avx2")
  # one that is not compiled in
  absent <- utils::modifyList(base, list(requested = "neon", request_status = "not_compiled"))
  w <- expect_warning(check_backend_loaded(absent, TRUE), "not compiled", class = "ducksassy_backend_warning")

  # a better backend's library failed to load: warned, a lower one in use
  fell <- utils::modifyList(base, list(in_use = "scalar", load_error = "avx2: file not found"))
  w <- expect_warning(check_backend_loaded(fell, TRUE), "file not found", class = "ducksassy_backend_warning")
  expect_identical(w$in_use, "scalar")

  # a CPU without any compiled backend (a DUCKSASSY_SIMD=avx512 install)
  none <- utils::modifyList(base, list(
    backends = "avx512", requires = "x86-64-v4", supported = FALSE, in_use = NA_character_
  ))
  cnd <- expect_error(check_backend_loaded(none, FALSE), class = "ducksassy_cpu_error")
  msg <- conditionMessage(cnd)
  expect_match(msg, "avx512", fixed = TRUE)
  expect_match(msg, "Test CPU 3000", fixed = TRUE)
  expect_match(msg, "DUCKSASSY_SIMD=scalar", fixed = TRUE)
  expect_identical(cnd$compiled, "avx512")
  none$cpu <- NA_character_
  expect_error(check_backend_loaded(none, FALSE), "this CPU does not support",
               class = "ducksassy_cpu_error")

  # a supported backend that failed to load is an internal error with the reason
  broken <- utils::modifyList(base, list(in_use = NA_character_, load_error = "avx2: file not found"))
  expect_error(check_backend_loaded(broken, FALSE), "file not found",
               class = "ducksassy_internal_error")
})

test_that("every supported backend gives identical hits, counts and CRISPR results", {
  skip_if_not_installed("callr")
  skip_if_not(installed_ducksassy(), "ducksassy is not installed")
  info <- sassy_backend_info()
  backends <- info$backend[info$supported]
  skip_if(length(backends) < 2, "only one backend runs on this CPU")

  # random DNA with planted, mutated copies of the patterns, so that every
  # search has hits with edits on both strands
  set.seed(14)
  rdna <- function(n) paste(sample(c("A", "C", "G", "T"), n, TRUE), collapse = "")
  patterns <- vapply(c(20, 23, 32, 64, 7), rdna, "")
  texts <- vapply(1:40, function(i) {
    s <- strsplit(rdna(3000), "")[[1]]
    p <- strsplit(patterns[1 + i %% 4], "")[[1]]
    p[sample(length(p), 2)] <- "A"
    at <- sample(2500, 1)
    s[at:(at + length(p) - 1)] <- p
    paste(s, collapse = "")
  }, "")
  texts[3] <- paste0(texts[3], "NNNNRYKM")
  # two guides taken from the texts, with their PAMs planted after them, and
  # a copy of the first with two substitutions elsewhere
  substr(texts[5], 120, 122) <- "AGG"
  substr(texts[9], 2020, 2022) <- "CAG"
  guides <- c(g1 = paste0(substr(texts[5], 100, 119), "NGG"),
              g2 = paste0(substr(texts[9], 2000, 2019), "NRG"))
  site <- substr(texts[5], 100, 122)
  substr(site, 3, 3) <- if (substr(site, 3, 3) == "A") "C" else "A"
  substr(site, 11, 11) <- if (substr(site, 11, 11) == "T") "G" else "T"
  substr(texts[12], 500, 522) <- site

  run <- function(texts, patterns, guides) {
    library(ducksassy)
    bi <- sassy_backend_info()
    list(
      backend = bi$backend[bi$in_use],
      simd = bi$simd[bi$in_use],
      forced = bi$forced[bi$in_use],
      hits = sassy_search(texts, patterns, k = 3, rc = TRUE),
      hits_iupac = sassy_search(texts, c("ACGTNNRYACGT", "TTGCAKMTT"), k = 1,
                                alphabet = "iupac"),
      counts = sassy_count(texts, patterns, k = 4),
      contains = sassy_contains(texts, patterns, k = 2),
      crispr = sassy_crispr(texts, guides, k = 3)
    )
  }
  res <- lapply(backends, function(b) {
    in_subprocess(run, env = c(DUCKSASSY_BACKEND = b),
                  args = list(texts = texts, patterns = patterns, guides = guides))
  })
  names(res) <- backends
  for (b in backends) {
    expect_identical(res[[b]]$backend, b)
    expect_identical(res[[b]]$simd, if (b == "native") res[[b]]$simd else b)
    expect_true(res[[b]]$forced)
  }
  ref <- res[[1]]
  # the searches found something, so identical results mean something
  expect_gt(nrow(ref$hits), 40)
  expect_gte(nrow(ref$crispr), 3)
  expect_gt(sum(ref$counts), 40)
  for (b in backends[-1]) {
    for (what in c("hits", "hits_iupac", "counts", "contains", "crispr")) {
      expect_identical(res[[b]][[what]], ref[[what]], label = paste(b, what))
    }
  }
})

test_that("DUCKSASSY_BACKEND: a typo stops loading, a lower backend is honoured", {
  skip_if_not_installed("callr")
  skip_if_not(installed_ducksassy(), "ducksassy is not installed")

  res <- in_subprocess(function() {
    cnd <- tryCatch({
      library(ducksassy)
      NULL
    }, error = function(e) e)
    routines <- getDLLRegisteredRoutines("ducksassy")$.Call
    list(msg = conditionMessage(cnd), parent = class(cnd$parent),
         routines = names(routines))
  }, env = c(DUCKSASSY_BACKEND = "avx1024"))
  expect_match(res$msg, "load failed", fixed = TRUE)
  expect_match(res$msg, "avx1024", fixed = TRUE)
  # no Rust routine was registered: nothing was loaded
  expect_setequal(res$routines, c("ducksassy_backend_info_c", "ducksassy_rust_loaded_c"))

  # "auto" is the default
  auto <- in_subprocess(function() {
    library(ducksassy)
    sassy_backend_info()
  }, env = c(DUCKSASSY_BACKEND = "auto"))
  expect_identical(auto$backend[auto$in_use], utils::tail(auto$backend[auto$supported], 1))
  expect_false(any(auto$forced))
})

test_that("a CPU without SIMD gets the scalar backend, or a clean refusal (test hook)", {
  skip_if_not_installed("callr")
  skip_if_not(installed_ducksassy(), "ducksassy is not installed")
  skip_if_not(grepl("x86_64|amd64", R.version$arch), "not x86-64")

  # DUCKSASSY_FAKE_CPU_UNSUPPORTED=1 makes src/entrypoint.c report every SIMD
  # level unsupported. Asking for avx512 then warns and falls back.
  res <- in_subprocess(function() {
    w <- NULL
    out <- tryCatch(
      withCallingHandlers(
        {
          library(ducksassy)
          sassy_backend_info()
        },
        warning = function(cnd) {
          w <<- cnd
          invokeRestart("muffleWarning")
        }
      ),
      error = function(e) conditionMessage(e)
    )
    info <- .Call(getNativeSymbolInfo("ducksassy_backend_info_c", "ducksassy"))
    list(out = out, warning = if (!is.null(w)) class(w), info = info,
         routines = names(getDLLRegisteredRoutines("ducksassy")$.Call))
  }, env = c(DUCKSASSY_FAKE_CPU_UNSUPPORTED = "1", DUCKSASSY_BACKEND = "avx512"))

  expect_identical(res$info$supported, res$info$backends == "scalar")
  if ("scalar" %in% res$info$backends) {
    expect_s3_class(res$out, "data.frame")
    expect_identical(res$out$backend[res$out$in_use], "scalar")
    expect_identical(res$out$simd[res$out$in_use], "scalar")
    expect_false(any(res$out$forced))
    if ("avx512" %in% res$info$backends) {
      expect_true("ducksassy_backend_warning" %in% res$warning)
    }
  } else {
    # a single-backend install: loading stops, no Rust code registered
    expect_match(res$out, "load failed", fixed = TRUE)
    expect_match(res$out, "does not support", fixed = TRUE)
    expect_match(res$out, "DUCKSASSY_FAKE_CPU_UNSUPPORTED", fixed = TRUE)
    expect_setequal(res$routines, c("ducksassy_backend_info_c", "ducksassy_rust_loaded_c"))
    expect_identical(res$info$in_use, NA_character_)
  }
})

test_that("on a CPU without AVX-512 no AVX-512 code runs (valgrind)", {
  # valgrind's simulated CPU has AVX2 but no AVX-512 and stops with SIGILL on
  # the first AVX-512 instruction: a real test that the dispatcher asks the
  # CPU before loading, and loads avx2 (or, in a DUCKSASSY_SIMD=avx512
  # install, refuses) without running AVX-512 code.
  skip_on_cran()
  skip_on_os(c("windows", "mac"))
  skip_if_not("avx512" %in% sassy_backend_info()$backend, "no avx512 backend")
  skip_if_not(nzchar(Sys.which("valgrind")), "valgrind is not installed")
  skip_if_not(installed_ducksassy(), "ducksassy is not installed")

  expr <- paste0(
    "msg <- tryCatch({library(ducksassy); bi <- sassy_backend_info(); ",
    "n <- sassy_count('ACGTACGTTTGACCAGTACGGA', 'TTGACCAGTA', k = 1); ",
    "paste('loaded', bi$backend[bi$in_use], n)}, ",
    "error = function(e) conditionMessage(e)); ",
    "cat(msg, '\\nR-SURVIVED\\n')"
  )
  out <- suppressWarnings(system2(
    file.path(R.home("bin"), "R"),
    c("-d", shQuote("valgrind -q"), "--vanilla", "--slave", "-e", shQuote(expr)),
    stdout = TRUE, stderr = TRUE,
    env = c(
      paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = ":"))),
      "DUCKSASSY_FAKE_CPU_UNSUPPORTED=", "DUCKSASSY_BACKEND="
    )
  ))
  out <- paste(out, collapse = "\n")
  expect_match(out, "R-SURVIVED", fixed = TRUE)
  expect_no_match(out, "SIGILL|Illegal", perl = TRUE)
  if ("avx2" %in% sassy_backend_info()$backend) {
    expect_match(out, "loaded avx2 1", fixed = TRUE)
  } else {
    expect_match(out, "does not support", fixed = TRUE)
  }
})
