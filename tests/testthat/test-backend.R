# The SIMD backend report and the refusal path of src/entrypoint.c + R/zzz.R.

# Is ducksassy installed (not loaded with pkgload::load_all())? Subprocess
# tests load the installed copy, so they only make sense then.
installed_ducksassy <- function() {
  path <- tryCatch(find.package("ducksassy"), error = function(e) "")
  nzchar(path) && file.exists(file.path(path, "Meta", "package.rds"))
}

test_that("sassy_backend_info() returns one row with the documented columns", {
  info <- sassy_backend_info()
  expect_s3_class(info, "data.frame")
  expect_identical(nrow(info), 1L)
  expect_named(
    info,
    c("compiled", "supported", "in_use", "cpu", "sassy_version", "rust_loaded")
  )
  expect_type(info$compiled, "character")
  expect_type(info$supported, "logical")
  expect_type(info$in_use, "character")
  expect_type(info$cpu, "character")
  expect_type(info$sassy_version, "character")
  expect_type(info$rust_loaded, "logical")

  expect_true(info$compiled %in% c("avx512", "avx2", "scalar", "neon", "native"))
  # a loaded package has passed the CPU check and registered the Rust code
  expect_true(info$supported)
  expect_true(info$rust_loaded)
  expect_true(info$in_use %in% c("avx512", "avx2", "scalar", "neon"))
  # the C side (configure's choice) and the Rust side (the target features
  # rustc compiled with) agree
  if (info$compiled %in% c("avx512", "avx2") ||
      (info$compiled == "scalar" && grepl("x86_64|amd64", R.version$arch))) {
    expect_identical(info$in_use, info$compiled)
  }
  expect_identical(info$sassy_version, "0.3.0")
})

test_that("a CPU without the compiled backend gets a classed error", {
  info <- list(
    compiled = "avx512", supported = FALSE, in_use = NA_character_,
    cpu = "Test CPU 3000", requires = "x86-64-v4"
  )
  cnd <- expect_error(
    check_backend_loaded(info, FALSE),
    class = "ducksassy_cpu_error"
  )
  expect_true(all(
    c("ducksassy_cpu_error", "ducksassy_error", "error", "condition") %in%
      class(cnd)
  ))
  msg <- conditionMessage(cnd)
  expect_match(msg, "avx512", fixed = TRUE)
  expect_match(msg, "Test CPU 3000", fixed = TRUE)
  expect_match(msg, "reinstall", fixed = TRUE)
  expect_match(msg, "DUCKSASSY_SIMD=scalar", fixed = TRUE)
  expect_identical(cnd$compiled, "avx512")

  # an unknown CPU model is described, not printed as NA
  info$cpu <- NA_character_
  expect_error(check_backend_loaded(info, FALSE), "this CPU does not support",
               class = "ducksassy_cpu_error")

  # a supported CPU where registration failed is an internal error
  info$supported <- TRUE
  expect_error(check_backend_loaded(info, FALSE),
               class = "ducksassy_internal_error")
  expect_null(check_backend_loaded(info, TRUE))
})

test_that("library() refuses cleanly when the CPU lacks the backend (test hook)", {
  skip_if_not_installed("callr")
  skip_if_not(installed_ducksassy(), "ducksassy is not installed")

  # DUCKSASSY_FAKE_CPU_UNSUPPORTED=1 makes src/entrypoint.c report an
  # unsupported CPU: no Rust code is registered or run, and .onLoad stops.
  res <- callr::r(
    function() {
      msg <- tryCatch(
        {
          library(ducksassy)
          "loaded"
        },
        error = function(e) conditionMessage(e)
      )
      # the C routines still answer; the Rust ones were never registered
      routines <- getDLLRegisteredRoutines("ducksassy")$.Call
      info <- .Call(getNativeSymbolInfo("ducksassy_backend_info_c", "ducksassy"))
      list(msg = msg, routines = names(routines), info = info)
    },
    env = c(callr::rcmd_safe_env(), DUCKSASSY_FAKE_CPU_UNSUPPORTED = "1")
  )
  expect_match(res$msg, "load failed", fixed = TRUE)
  expect_match(res$msg, "was compiled for the", fixed = TRUE)
  expect_match(res$msg, "DUCKSASSY_SIMD=scalar", fixed = TRUE)
  expect_match(res$msg, "DUCKSASSY_FAKE_CPU_UNSUPPORTED", fixed = TRUE)
  expect_setequal(
    res$routines,
    c("ducksassy_backend_info_c", "ducksassy_rust_loaded_c")
  )
  expect_false(res$info$supported)
  expect_identical(res$info$in_use, NA_character_)

  # without the hook the same installed copy loads
  ok <- callr::r(
    function() {
      library(ducksassy)
      sassy_backend_info()$rust_loaded
    },
    env = c(callr::rcmd_safe_env(), DUCKSASSY_FAKE_CPU_UNSUPPORTED = "")
  )
  expect_true(ok)
})

test_that("an avx512 build loads on a CPU without AVX-512 without running it (valgrind)", {
  # valgrind's simulated CPU has AVX2 but no AVX-512 and stops with SIGILL on
  # the first AVX-512 instruction, so this is a real test that loading runs
  # no AVX-512 code before the CPU check refuses.
  skip_on_cran()
  skip_on_os(c("windows", "mac"))
  skip_if_not(sassy_backend_info()$compiled == "avx512", "not an avx512 build")
  skip_if_not(nzchar(Sys.which("valgrind")), "valgrind is not installed")
  skip_if_not(installed_ducksassy(), "ducksassy is not installed")

  expr <- paste0(
    "msg <- tryCatch({library(ducksassy); 'loaded'}, ",
    "error = function(e) conditionMessage(e)); ",
    "cat(msg, '\\nR-SURVIVED\\n')"
  )
  out <- suppressWarnings(system2(
    file.path(R.home("bin"), "R"),
    c("-d", shQuote("valgrind -q"), "--vanilla", "--slave", "-e", shQuote(expr)),
    stdout = TRUE, stderr = TRUE,
    env = c(
      paste0("R_LIBS=", shQuote(paste(.libPaths(), collapse = ":"))),
      "DUCKSASSY_FAKE_CPU_UNSUPPORTED="
    )
  ))
  out <- paste(out, collapse = "\n")
  expect_match(out, "R-SURVIVED", fixed = TRUE)
  expect_match(out, "was compiled for the", fixed = TRUE)
  expect_no_match(out, "SIGILL|Illegal", perl = TRUE)
})
