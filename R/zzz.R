#' @keywords internal
#' @useDynLib ducksassy, .registration = TRUE
"_PACKAGE"

# Loading. src/entrypoint.c checks at load time that this CPU has the SIMD
# backend the Rust library was compiled for, and only then registers the Rust
# entry points. If it refused, no Rust code can run, and loading stops here
# with a classed error that says what to do, instead of R dying of an
# illegal instruction on the first search.
.onLoad <- function(libname, pkgname) {
  check_backend_loaded(backend_info_raw(), rust_loaded())
  invisible()
}

#' Stop unless the Rust library was loaded
#'
#' @param info The list from `backend_info_raw()`.
#' @param loaded `TRUE` if the Rust entry points are registered.
#' @return `NULL`, invisibly, or an error of class `ducksassy_cpu_error`
#'   (this CPU lacks the compiled backend) or `ducksassy_internal_error`.
#' @noRd
check_backend_loaded <- function(info, loaded) {
  if (isTRUE(loaded)) {
    return(invisible(NULL))
  }
  compiled <- info$compiled
  requires <- info$requires
  cpu <- if (is.na(info$cpu)) "this CPU" else paste0("this CPU (", info$cpu, ")")
  level <- switch(requires,
    "x86-64-v4" = "x86-64-v4: AVX-512",
    "x86-64-v3" = "x86-64-v3: AVX2, BMI2, FMA",
    requires
  )
  if (!isTRUE(info$supported)) {
    fake <- Sys.getenv("DUCKSASSY_FAKE_CPU_UNSUPPORTED")
    ducksassy_abort(
      c(
        "ducksassy was compiled for the {.val {compiled}} SIMD backend ({level}), but {cpu} does not support it.",
        "i" = "The Rust code was not run, so that R does not crash with an illegal instruction.",
        "i" = "Fix: reinstall ducksassy from source on this machine (for example {.code R CMD INSTALL ducksassy_*.tar.gz}); the build then picks a backend this CPU has.",
        "i" = "Or build a library that runs on any CPU: set {.envvar DUCKSASSY_SIMD=scalar} (or {.val avx2}) in the environment before installing.",
        if (nzchar(fake)) c("!" = "{.envvar DUCKSASSY_FAKE_CPU_UNSUPPORTED} is set (a test hook); unset it to load normally.")
      ),
      class = "ducksassy_cpu_error",
      compiled = compiled,
      requires = requires,
      cpu = info$cpu,
      call = NULL
    )
  }
  ducksassy_abort(
    c(
      "ducksassy could not register its Rust entry points (backend {.val {compiled}}).",
      "i" = "This is a bug in ducksassy; please report it with the output of {.code sessionInfo()}."
    ),
    class = "ducksassy_internal_error",
    call = NULL
  )
}
