#' @keywords internal
#' @useDynLib ducksassy, .registration = TRUE
"_PACKAGE"

# Loading. src/entrypoint.c (ducksassy.so, no SIMD code) asks the CPU which
# of the compiled SIMD backends it supports, honours DUCKSASSY_BACKEND, and
# loads the best backend library (ducksassy_<backend>.so), registering its
# Rust entry points. Here the outcome becomes R conditions: a warning when
# DUCKSASSY_BACKEND asked for a backend that could not be used (another one
# was loaded), an error when nothing could be loaded (no Rust code ran, so
# R does not die of an illegal instruction on the first search).
.onLoad <- function(libname, pkgname) {
  check_backend_loaded(backend_info_raw(), rust_loaded())
  invisible()
}

# Names of the x86-64 levels, for messages.
backend_level <- function(requires) {
  unname(vapply(requires, function(r) switch(r,
    "x86-64-v4" = "x86-64-v4: AVX-512",
    "x86-64-v3" = "x86-64-v3: AVX2, BMI2, FMA",
    "none" = "no SIMD requirement",
    r
  ), character(1)))
}

#' Turn the dispatcher's outcome into R conditions
#'
#' @param info The list from `backend_info_raw()`.
#' @param loaded `TRUE` if the Rust entry points are registered.
#' @return `NULL`, invisibly; a warning of class `ducksassy_backend_warning`
#'   when `DUCKSASSY_BACKEND` named a backend that is not compiled in or not
#'   supported by this CPU (the best one was loaded instead), or when a
#'   better backend's library failed to load (a lower one is in use); an error of
#'   class `ducksassy_backend_error` (`DUCKSASSY_BACKEND` names no backend),
#'   `ducksassy_cpu_error` (this CPU supports none of the compiled backends)
#'   or `ducksassy_internal_error` (a supported backend failed to load).
#' @noRd
check_backend_loaded <- function(info, loaded) {
  compiled <- info$backends
  cpu <- if (is.na(info$cpu)) "this CPU" else paste0("this CPU (", info$cpu, ")")
  requested <- info$requested
  if (identical(info$request_status, "unknown")) {
    ducksassy_abort(
      c(
        "The environment variable {.envvar DUCKSASSY_BACKEND} is {.val {requested}}, which names no SIMD backend.",
        "i" = "Use {.val auto} (or leave it unset) for the best backend, or one of the backends compiled in: {.val {compiled}}.",
        "i" = "No Rust code was loaded."
      ),
      class = "ducksassy_backend_error",
      requested = requested,
      compiled = compiled,
      call = NULL
    )
  }
  if (isTRUE(loaded) && info$request_status %in% c("not_compiled", "not_supported")) {
    why <- if (info$request_status == "not_compiled") {
      "is not compiled into this installation (compiled: {.val {compiled}})"
    } else {
      lev <- backend_level(info$requires[match(requested, compiled)])
      "needs {lev}, which {cpu} does not support"
    }
    cli::cli_warn(
      c(
        paste0("{.envvar DUCKSASSY_BACKEND} asks for the {.val {requested}} SIMD backend, which ", why, "."),
        "i" = "Using the {.val {info$in_use}} backend instead (the results are the same)."
      ),
      class = c("ducksassy_backend_warning", "ducksassy_warning"),
      requested = requested,
      in_use = info$in_use
    )
  }
  if (isTRUE(loaded) && !is.na(info$load_error)) {
    # a better backend is compiled in and supported but its library did not
    # load (a file missing from libs/, say): a lower one is in use
    cli::cli_warn(
      c(
        "ducksassy could not load a faster SIMD backend library and uses {.val {info$in_use}} instead.",
        "x" = "{info$load_error}",
        "i" = "Reinstalling ducksassy should fix this."
      ),
      class = c("ducksassy_backend_warning", "ducksassy_warning"),
      in_use = info$in_use
    )
  }
  if (isTRUE(loaded)) {
    return(invisible(NULL))
  }
  fake <- isTRUE(info$fake_cpu)
  if (!any(info$supported)) {
    level <- backend_level(info$requires)
    ducksassy_abort(
      c(
        "ducksassy was compiled only for the {.val {compiled}} SIMD backend{?s} ({level}), but {cpu} does not support {?it/any of them}.",
        "i" = "The Rust code was not run, so that R does not crash with an illegal instruction.",
        "i" = "Fix: reinstall ducksassy from source without {.envvar DUCKSASSY_SIMD} (the default build contains a backend for every x86-64 CPU), or on this machine.",
        "i" = "Or build a library that runs on any CPU: set {.envvar DUCKSASSY_SIMD=scalar} in the environment before installing.",
        if (fake) c("!" = "{.envvar DUCKSASSY_FAKE_CPU_UNSUPPORTED} is set (a test hook); unset it to load normally.")
      ),
      class = "ducksassy_cpu_error",
      compiled = compiled,
      requires = info$requires,
      cpu = info$cpu,
      call = NULL
    )
  }
  load_error <- if (is.na(info$load_error)) "unknown" else info$load_error
  ducksassy_abort(
    c(
      "ducksassy could not load its Rust library (backends {.val {compiled}}).",
      "x" = "{load_error}",
      "i" = "Reinstall ducksassy; if this persists, please report it with the output of {.code sessionInfo()}."
    ),
    class = "ducksassy_internal_error",
    call = NULL
  )
}
