#' Number of worker threads ducksassy uses by default
#'
#' The default for the `threads` argument of [sassy_search()] and friends.
#' It is looked up, in order, from
#'
#' 1. the option `ducksassy.threads` (e.g. `options(ducksassy.threads = 4)`),
#' 2. the environment variable `DUCKSASSY_THREADS`,
#' 3. the number of logical cores, [parallel::detectCores()] (1 if unknown),
#'
#' and the result is capped at 2 when the environment variable
#' `_R_CHECK_LIMIT_CORES_` is set to anything other than `""` or `"false"`, as
#' `R CMD check --as-cran` does.
#'
#' Thread pools are built once per size and reused, so changing the number
#' between calls is cheap after the first call with each size.
#'
#' @return A single integer >= 1.
#' @section Errors:
#' A `ducksassy_input_error` if the option or the environment variable is set
#' but is not a whole number between 1 and 1024.
#' @seealso [sassy_search()]
#' @export
#' @examples
#' sassy_threads()
#' old <- options(ducksassy.threads = 2)
#' sassy_threads()
#' options(old)
sassy_threads <- function() {
  call <- rlang::current_env()
  n <- getOption("ducksassy.threads")
  if (!is.null(n)) {
    n <- check_threads(n, call = call, arg = "getOption(\"ducksassy.threads\")")
  } else {
    env <- Sys.getenv("DUCKSASSY_THREADS", "")
    if (nzchar(env)) {
      value <- suppressWarnings(as.numeric(env))
      if (is.na(value)) {
        value <- env
      }
      n <- check_threads(value, call = call, arg = "DUCKSASSY_THREADS")
    } else {
      n <- parallel::detectCores()
      if (length(n) != 1L || is.na(n) || n < 1) {
        n <- 1L
      }
      n <- min(as.integer(n), max_threads)
    }
  }
  if (limit_cores()) {
    n <- min(n, 2L)
  }
  as.integer(n)
}

# TRUE under `R CMD check --as-cran` (or whenever the variable is set).
limit_cores <- function() {
  chk <- Sys.getenv("_R_CHECK_LIMIT_CORES_", "")
  nzchar(chk) && tolower(chk) != "false"
}
