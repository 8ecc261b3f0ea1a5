#' SIMD backend of the installed ducksassy
#'
#' Reports which SIMD instruction set the package's Rust library was
#' compiled for, and whether this CPU supports it.
#'
#' The backend is chosen when the package is built from source (by
#' `tools/config`, run by `configure`): on x86-64 the building CPU is asked
#' what it supports, and the library is compiled for x86-64-v4 (`"avx512"`),
#' x86-64-v3 (`"avx2"`) or without SIMD (`"scalar"`); on ARM64 NEON is always
#' there (`"neon"`). The environment variable `DUCKSASSY_SIMD` (`avx512`,
#' `avx2`, `scalar` or `native`) overrides the choice at build time, e.g.
#' `DUCKSASSY_SIMD=scalar` for a library that runs on any CPU.
#'
#' When the package is loaded, compiled C code checks the CPU before any
#' Rust code runs; on a CPU that lacks the compiled backend, loading stops
#' with an error of class `ducksassy_cpu_error` instead of crashing.
#'
#' @return A data frame with one row and the columns:
#'   * `compiled` (character): the backend compiled in: `"avx512"`,
#'     `"avx2"`, `"scalar"`, `"neon"` or `"native"`
#'     (`-C target-cpu=native`).
#'   * `supported` (logical): whether this CPU supports that backend.
#'   * `in_use` (character): the SIMD code the loaded Rust library runs, as
#'     the Rust compiler saw it (`"avx512"`, `"avx2"`, `"neon"` or
#'     `"scalar"`; a `"native"` build shows its level here); `NA` when the
#'     Rust library is not loaded.
#'   * `cpu` (character): the CPU model, from `/proc/cpuinfo` on Linux; `NA`
#'     when unknown.
#'   * `sassy_version` (character): version of the bundled `sassy` crate.
#'   * `rust_loaded` (logical): whether the Rust entry points are
#'     registered (always `TRUE` in a loaded package).
#' @export
#' @examples
#' sassy_backend_info()
sassy_backend_info <- function() {
  info <- backend_info_raw()
  loaded <- rust_loaded()
  data.frame(
    compiled = info$compiled,
    supported = info$supported,
    in_use = if (loaded) ds_rust_simd() else NA_character_,
    cpu = info$cpu,
    sassy_version = if (loaded) ds_sassy_version() else NA_character_,
    rust_loaded = loaded,
    stringsAsFactors = FALSE
  )
}

# list(compiled, supported, in_use, cpu, requires) from src/entrypoint.c;
# works whether or not the Rust library was loaded.
backend_info_raw <- function() {
  .Call(ducksassy_backend_info_c)
}

rust_loaded <- function() {
  .Call(ducksassy_rust_loaded_c)
}
