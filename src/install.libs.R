# src/install.libs.R: what R CMD INSTALL runs instead of its default copy of
# src/*.so into libs/ (R-exts, "Package subdirectories"). It does that copy
# (the dispatcher ducksassy.so and every backend ducksassy_<backend>.so), and
# installs the DuckDB extension file next to them (see
# src/duckdb/extension.c), with DuckDB's 534-byte metadata footer appended:
#   22 bytes: 00 93 04 10, "duckdb_signature", 80 04;
#   eight NUL-padded 32-byte fields: "", "", "", "C_STRUCT", the extension
#   version, the C API version ("v1.2.0"), the platform, "4";
#   256 zero bytes (the signature: the file is unsigned, which is why the
#   database must allow unsigned extensions, see sassy_duckdb()).
# The footer is written here, not in Makevars, so it needs no tool beyond R.
# Its platform is DuckDB's name for this system (PRAGMA platform); set
# DUCKSASSY_DUCKDB_PLATFORM to override the guess below.

files <- Sys.glob(paste0("*", SHLIB_EXT))
dest <- file.path(R_PACKAGE_DIR, paste0("libs", R_ARCH))
dir.create(dest, recursive = TRUE, showWarnings = FALSE)
file.copy(files, dest, overwrite = TRUE)
if (file.exists("symbols.rds")) {
  file.copy("symbols.rds", dest, overwrite = TRUE)
}

duckdb_platform <- function() {
  env <- Sys.getenv("DUCKSASSY_DUCKDB_PLATFORM")
  if (nzchar(env)) {
    return(env)
  }
  machine <- tolower(Sys.info()[["machine"]])
  arch <- if (machine %in% c("x86_64", "amd64", "x64")) {
    "amd64"
  } else if (machine %in% c("aarch64", "arm64")) {
    "arm64"
  } else {
    machine
  }
  sys <- tolower(Sys.info()[["sysname"]])
  if (sys == "darwin") {
    paste0("osx_", arch)
  } else if (.Platform$OS.type == "windows") {
    paste0("windows_", arch, "_mingw")
  } else {
    paste0(sys, "_", arch)
  }
}

duckdb_footer <- function(version, platform) {
  field <- function(s) {
    b <- charToRaw(s)
    if (length(b) > 32L) stop("DuckDB extension footer field too long: ", s)
    c(b, raw(32L - length(b)))
  }
  out <- c(
    as.raw(c(0x00, 0x93, 0x04, 0x10)), charToRaw("duckdb_signature"),
    as.raw(c(0x80, 0x04)),
    field(""), field(""), field(""), field("C_STRUCT"), field(version),
    field("v1.2.0"), field(platform), field("4"),
    raw(256L)
  )
  stopifnot(length(out) == 534L)
  out
}

# Debug information is most of the file (R's CFLAGS have -g): strip a copy,
# before the footer goes on (stripping after would cut it off). Where strip
# is missing or fails, the file is installed as built.
stripped_copy <- function(path) {
  strip <- Sys.which("strip")
  if (!nzchar(strip) || .Platform$OS.type == "windows") {
    return(path)
  }
  tmp <- tempfile(fileext = ".duckdb_extension")
  file.copy(path, tmp)
  args <- if (Sys.info()[["sysname"]] == "Darwin") "-x" else "--strip-unneeded"
  ok <- tryCatch(
    system2(strip, c(args, shQuote(tmp)), stdout = FALSE, stderr = FALSE) == 0L,
    error = function(e) FALSE
  )
  if (ok && file.size(tmp) > 0) tmp else path
}

ext <- "ducksassy.duckdb_extension"
if (file.exists(ext)) {
  version <- read.dcf(file.path(R_PACKAGE_SOURCE, "DESCRIPTION"), "Version")[1, 1]
  built <- stripped_copy(ext)
  bytes <- readBin(built, "raw", file.size(built))
  target <- file.path(dest, ext)
  con <- file(target, "wb")
  writeBin(c(bytes, duckdb_footer(paste0("v", version), duckdb_platform())), con)
  close(con)
}
