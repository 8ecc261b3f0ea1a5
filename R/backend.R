#' SIMD backends of the installed ducksassy
#'
#' Lists the SIMD backends compiled into this installation, which of them
#' this CPU supports, and which one is in use.
#'
#' sassy is fastest with the widest SIMD registers, but code compiled for
#' AVX-512 or AVX2 crashes on a CPU without them. ducksassy's Rust library is
#' therefore compiled once per backend, into separate libraries: on x86-64
#' `"scalar"` (no SIMD, any CPU), `"avx2"` (x86-64-v3) and `"avx512"`
#' (x86-64-v4); on ARM64 `"neon"`. When the package is loaded, a small C
#' dispatcher compiled without SIMD asks the CPU what it supports and loads
#' the best backend, before any SIMD code runs. Every backend gives the same
#' results; only the speed differs. The SQL functions of the DuckDB extension
#' (see [sassy_duckdb()]) run the backend in use here (the SQL function
#' `sassy_backend()` names it).
#'
#' The environment variable `DUCKSASSY_BACKEND`, read when the package is
#' loaded, asks for a backend (`"scalar"`, `"avx2"`, `"avx512"`, `"neon"`,
#' `"native"`, or `"auto"` for the default), e.g. a lower one for tests or
#' for identical timings across the nodes of a cluster. A backend that is not
#' compiled in or that this CPU lacks is not used: loading warns (class
#' `ducksassy_backend_warning`) and uses the best one. A value that names no
#' backend stops loading with an error of class `ducksassy_backend_error`.
#'
#' At install time, the environment variable `DUCKSASSY_SIMD` (`avx512`,
#' `avx2`, `scalar` or `native`) builds just that one backend: a smaller,
#' quicker install for one machine. On a CPU without it, loading stops with
#' an error of class `ducksassy_cpu_error` instead of crashing.
#'
#' @return A data frame with one row per backend compiled in (lowest first)
#'   and the columns:
#'   * `backend` (character): `"scalar"`, `"avx2"`, `"avx512"`, `"neon"` or
#'     `"native"` (`-C target-cpu=native`).
#'   * `supported` (logical): whether this CPU supports it.
#'   * `in_use` (logical): `TRUE` for the backend loaded.
#'   * `forced` (logical): `TRUE` for the backend loaded when
#'     `DUCKSASSY_BACKEND` chose it.
#'   * `simd` (character): for the backend in use, the SIMD code the Rust
#'     compiler generated (`"avx512"`, `"avx2"`, `"neon"` or `"scalar"`; a
#'     `"native"` build shows its level here); `NA` in the other rows.
#'   * `cpu` (character): the CPU model, from `/proc/cpuinfo` on Linux; `NA`
#'     when unknown.
#'   * `sassy_version` (character): version of the bundled `sassy` crate.
#' @export
#' @examples
#' sassy_backend_info()
#' # the backend in use
#' with(sassy_backend_info(), backend[in_use])
sassy_backend_info <- function() {
  info <- backend_info_raw()
  loaded <- rust_loaded()
  in_use <- !is.na(info$in_use) & info$backends == info$in_use
  data.frame(
    backend = info$backends,
    supported = info$supported,
    in_use = in_use,
    forced = in_use & isTRUE(info$forced),
    simd = ifelse(in_use & loaded, if (loaded) ds_rust_simd() else NA_character_,
                  NA_character_),
    cpu = rep(info$cpu, length(info$backends)),
    sassy_version = rep(if (loaded) ds_sassy_version() else NA_character_,
                        length(info$backends)),
    stringsAsFactors = FALSE
  )
}

# list(backends, requires, supported, in_use, forced, requested,
# request_status, load_error, cpu, fake_cpu) from src/entrypoint.c; works
# whether or not a backend was loaded.
backend_info_raw <- function() {
  .Call(ducksassy_backend_info_c)
}

rust_loaded <- function() {
  .Call(ducksassy_rust_loaded_c)
}
