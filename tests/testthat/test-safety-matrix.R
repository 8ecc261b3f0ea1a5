# Every argument of every exported function fed every bad value of
# helper-bad-inputs.R: a `ducksassy_error` or the documented result, never a
# crash or another kind of error. The matrix runs in a subprocess so that a
# crash fails this test (naming the call) instead of killing the test run.

# Runs in the subprocess: the good call of each row, then each argument (and
# option) replaced by each bad value. Returns one row per call.
run_bad_input_matrix <- function(matrix, values, option_good, setup, progress) {
  suppressPackageStartupMessages(library(ducksassy))
  env <- new.env(parent = globalenv())
  eval(setup, env)
  log <- file(progress, open = "w")
  on.exit(close(log))
  out <- list()
  one <- function(fn, arg, value, args, opts = NULL) {
    writeLines(paste(fn, arg, value), log)
    flush(log)
    warnings <- character()
    if (!is.null(opts)) {
      old <- options(opts)
      on.exit(options(old), add = TRUE)
    }
    f <- getExportedValue("ducksassy", fn)
    t0 <- proc.time()[["elapsed"]]
    outcome <- tryCatch(
      withCallingHandlers(
        {
          do.call(f, args)
          "ok"
        },
        warning = function(w) {
          warnings <<- c(warnings, conditionMessage(w))
          invokeRestart("muffleWarning")
        }
      ),
      ducksassy_error = function(e) paste0("ducksassy_error:", class(e)[[1L]]),
      error = function(e) {
        paste0("error:", class(e)[[1L]], ": ", substr(conditionMessage(e), 1L, 200L))
      }
    )
    out[[length(out) + 1L]] <<- data.frame(
      fn = fn, arg = arg, value = value, outcome = outcome,
      warning = paste(warnings, collapse = " | "),
      seconds = proc.time()[["elapsed"]] - t0
    )
  }
  with_good <- function(expr, good) {
    eval(do.call(substitute, list(expr, list(GOOD = good))), env)
  }
  for (fn in names(matrix)) {
    row <- matrix[[fn]]
    missing <- Filter(function(n) is.null(env[[n]]), row$needs)
    if (length(missing) > 0L) {
      out[[length(out) + 1L]] <- data.frame(
        fn = fn, arg = "(skipped)", value = paste(missing, collapse = ","),
        outcome = "skipped", warning = "", seconds = 0
      )
      next
    }
    good <- lapply(row$args, eval, envir = env)
    one(fn, "(good call)", "", good)
    for (arg in names(row$args)) {
      vals <- c(values, row$extra[[arg]])
      for (v in names(vals)) {
        args <- good
        args[arg] <- list(with_good(vals[[v]], row$args[[arg]]))
        one(fn, arg, v, args)
      }
    }
    for (opt in row$options) {
      for (v in names(values)) {
        opts <- list(with_good(values[[v]], option_good[[opt]]))
        names(opts) <- opt
        one(fn, paste0("option ", opt), v, good, opts)
      }
    }
  }
  do.call(rbind, out)
}

# What a cell must give: "ok" where the row lists the value, else an error.
expected_outcome <- function(matrix, fn, arg, value) {
  if (arg == "(good call)") {
    return("ok")
  }
  ok <- matrix[[fn]]$ok[[sub("^option ", "", arg)]]
  if (value %in% ok) "ok" else "ducksassy_error"
}

test_that("every exported function and argument has a row in the bad-input matrix", {
  exports <- sort(getNamespaceExports("ducksassy"))
  expect_identical(setdiff(exports, names(bad_input_matrix)), character(),
    info = "add a row for each new exported function to helper-bad-inputs.R"
  )
  for (fn in intersect(exports, names(bad_input_matrix))) {
    formals <- setdiff(names(formals(getExportedValue("ducksassy", fn))), "...")
    expect_identical(setdiff(formals, names(bad_input_matrix[[fn]]$args)), character(),
      info = paste0("arguments of ", fn, "() missing from its row in helper-bad-inputs.R")
    )
  }
})

test_that("bad input to any argument is a ducksassy_error or the documented result, never a crash", {
  skip_if_not_installed("callr")
  progress <- tempfile("bad-inputs-progress-")
  res <- tryCatch(
    callr::r(
      run_bad_input_matrix,
      args = list(
        matrix = bad_input_matrix, values = bad_input_values,
        option_good = bad_input_option_good, setup = bad_input_setup,
        progress = progress
      ),
      libpath = .libPaths(),
      env = c(callr::rcmd_safe_env(), DUCKSASSY_THREADS = "1"),
      timeout = 300
    ),
    error = function(e) {
      last <- if (file.exists(progress)) utils::tail(readLines(progress), 1L) else "(none)"
      fail(paste0(
        "the bad-input matrix subprocess died (a crash or a hang) at: ", last,
        "\n", conditionMessage(e)
      ))
      NULL
    }
  )
  if (is.null(res)) {
    return(invisible())
  }
  res <- res[res$outcome != "skipped", , drop = FALSE]
  want <- mapply(expected_outcome, fn = res$fn, arg = res$arg, value = res$value,
    MoreArgs = list(matrix = bad_input_matrix)
  )
  got <- ifelse(startsWith(res$outcome, "ducksassy_error"), "ducksassy_error", res$outcome)
  bad <- res[got != want, , drop = FALSE]
  bad$expected <- want[got != want]
  expect(
    nrow(bad) == 0L,
    paste0(
      nrow(bad), " of ", nrow(res), " bad-input calls did not give what they should:\n",
      paste(utils::capture.output(print(
        bad[, c("fn", "arg", "value", "expected", "outcome")],
        row.names = FALSE, right = FALSE
      )), collapse = "\n")
    )
  )
  # every function was exercised, and no single call took long (a hang)
  expect_gt(nrow(res), 1000L)
  slow <- res[res$seconds > 10, c("fn", "arg", "value", "seconds"), drop = FALSE]
  expect_identical(nrow(slow), 0L, info = paste(utils::capture.output(print(slow)), collapse = "\n"))
})
