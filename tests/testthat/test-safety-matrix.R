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
  # A bad value, or a "cannot be built" marker (rep() of a connection, say).
  unbuildable <- structure(list(), class = "unbuildable")
  with_good <- function(expr, good) {
    tryCatch(
      eval(do.call(substitute, list(expr, list(GOOD = good))), env),
      error = function(e) unbuildable
    )
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
    # each row in a fresh working directory (relative output paths)
    wd <- tempfile("wd-")
    dir.create(wd)
    old_wd <- setwd(wd)
    good <- lapply(row$args, eval, envir = env)
    one(fn, "(good call)", "", good)
    for (arg in names(row$args)) {
      vals <- c(values, row$extra[[arg]])
      for (v in setdiff(names(vals), names(row$skip[[arg]]))) {
        value <- with_good(vals[[v]], row$args[[arg]])
        if (inherits(value, "unbuildable")) next
        args <- good
        args[arg] <- list(value)
        one(fn, arg, v, args)
      }
    }
    for (opt in names(row$options)) {
      drop <- row$options[[opt]]
      args <- if (is.na(drop)) good else good[setdiff(names(good), drop)]
      for (v in names(values)) {
        value <- with_good(values[[v]], option_good[[opt]])
        if (inherits(value, "unbuildable")) next
        opts <- list(value)
        names(opts) <- opt
        one(fn, paste0("option ", opt), v, args, opts)
      }
    }
    setwd(old_wd)
  }
  do.call(rbind, out)
}

# What a cell must give: "ok" where the value is valid (see
# helper-bad-inputs.R), else a ducksassy_error.
expected_outcome <- function(matrix, fn, arg, value) {
  if (arg == "(good call)") {
    return("ok")
  }
  if (startsWith(arg, "option ")) {
    opt <- sub("^option ", "", arg)
    valid <- value %in% c("null", "matrix", bad_input_option_ok[[opt]])
    return(if (valid) "ok" else "ducksassy_error")
  }
  row <- matrix[[fn]]
  good <- row$args[[arg]]
  atomic <- is.atomic(good) && !is.null(good)
  valid <- value %in% row$ok[[arg]] ||
    (value == "matrix" && atomic) ||
    (value == "true" && is.logical(good))
  if (valid && !(value %in% row$fail[[arg]])) "ok" else "ducksassy_error"
}

test_that("every exported function and argument has a row in the bad-input matrix", {
  exports <- sort(getNamespaceExports("ducksassy"))
  expect_identical(setdiff(exports, names(bad_input_matrix)), character(),
    info = "add a row for each new exported function to helper-bad-inputs.R"
  )
  for (fn in intersect(exports, names(bad_input_matrix))) {
    formals <- setdiff(names(formals(getExportedValue("ducksassy", fn))), "...")
    expect_identical(as.character(setdiff(formals, names(bad_input_matrix[[fn]]$args))), character(),
      info = paste0("arguments of ", fn, "() missing from its row in helper-bad-inputs.R")
    )
  }
})

# Run the matrix in `n` subprocesses at once (rows split between them);
# returns the combined outcomes, or fails naming the call a subprocess died at.
run_matrix_in_subprocesses <- function(matrix, n = 2L, timeout = 480) {
  groups <- split(names(matrix), rep_len(seq_len(n), length(matrix)))
  procs <- lapply(groups, function(fns) {
    progress <- tempfile("bad-inputs-progress-")
    wd <- tempfile("bad-inputs-wd-")
    dir.create(wd)
    p <- callr::r_bg(
      run_bad_input_matrix,
      args = list(
        matrix = matrix[fns], values = bad_input_values,
        option_good = bad_input_option_good, setup = bad_input_setup,
        progress = progress
      ),
      libpath = .libPaths(),
      env = c(callr::rcmd_safe_env(), DUCKSASSY_THREADS = "1"),
      wd = wd,
      supervise = TRUE
    )
    list(p = p, progress = progress, wd = wd)
  })
  deadline <- Sys.time() + timeout
  out <- list()
  for (x in procs) {
    left <- as.numeric(difftime(deadline, Sys.time(), units = "secs"))
    x$p$wait(max(1, left) * 1000)
    last <- if (file.exists(x$progress)) utils::tail(readLines(x$progress, warn = FALSE), 1L) else "(start)"
    if (x$p$is_alive()) {
      x$p$kill()
      fail(paste0("the bad-input matrix hung (over ", timeout, " s) at: ", last))
      next
    }
    res <- tryCatch(x$p$get_result(), error = function(e) {
      fail(paste0(
        "the bad-input matrix subprocess died (a crash?) at: ", last, "\n",
        conditionMessage(e)
      ))
      NULL
    })
    unlink(c(x$progress, x$wd), recursive = TRUE)
    out <- c(out, list(res))
  }
  do.call(rbind, out)
}

test_that("bad input to any argument is a ducksassy_error or the documented result, never a crash", {
  skip_on_cran()
  skip_if_not_installed("callr")
  res <- run_matrix_in_subprocesses(bad_input_matrix)
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
  skipped <- unlist(lapply(names(bad_input_matrix), function(fn) {
    s <- bad_input_matrix[[fn]]$skip
    unlist(lapply(names(s), function(arg) paste0(fn, "(", arg, " = ", names(s[[arg]]), "): ", s[[arg]])))
  }))
  if (length(skipped) > 0L) {
    message("Bad-input cells not run (known bugs):\n", paste0("  ", skipped, collapse = "\n"))
  }
  # every row ran, and no single call took long (a near-hang)
  expect_gt(nrow(res), 2000L)
  slow <- res[res$seconds > 10, c("fn", "arg", "value", "seconds"), drop = FALSE]
  expect(nrow(slow) == 0L, paste0(
    "bad-input calls that took over 10 s:\n",
    paste(utils::capture.output(print(slow, row.names = FALSE)), collapse = "\n")
  ))
})

test_that("a panic in the native code is a ducksassy_internal_error and the session goes on", {
  skip_on_cran()
  skip_if_not_installed("callr")
  # ds_test_panic() (a test-only entry point, off the search path) panics on
  # R's main thread or in a worker of a 2-thread pool; in a subprocess, so
  # that a failure cannot take this session with it.
  out <- callr::r(function() {
    suppressPackageStartupMessages(library(ducksassy))
    panic <- function(where) {
      tryCatch(ducksassy:::rust_result(ducksassy:::ds_test_panic(where, 2L)), error = function(e) e)
    }
    list(
      main = panic("main"),
      worker = panic("worker"),
      again = panic("worker"),
      after = sassy_search(c("AAAATTGAAA", "CCCATCACCC"), "ATCG", k = 1L, threads = 2L)
    )
  }, libpath = .libPaths(), env = callr::rcmd_safe_env())
  for (e in out[c("main", "worker", "again")]) {
    expect_s3_class(e, "ducksassy_internal_error")
    expect_s3_class(e, "ducksassy_error")
    expect_match(conditionMessage(e), "test panic")
    expect_match(conditionMessage(e), "bug in ducksassy")
  }
  expect_identical(out$after, sassy_search(c("AAAATTGAAA", "CCCATCACCC"), "ATCG", k = 1L))
})
