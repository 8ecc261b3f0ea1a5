# Unknown arguments.
#
# Every user-facing function takes `...` last and checks that it is empty,
# so that a misspelt or foreign argument (`max.mismatch = 1` from
# Biostrings' matchPattern(), `thread = 2`, `reverse_complement = TRUE`) is a
# classed error that names it and, where there is one, the argument meant,
# instead of R's plain "unused argument" (as rlang's dots checks do). A name
# that partially matches a formal would be matched by R before it gets
# here (`indel = FALSE` taken for `indels = FALSE`), so the verbs also check
# the names of their call: options match by full name only
# (check_full_arg_names()).

# Arguments of other tools (Biostrings, vmatchPattern(), agrep(), common
# spellings) and the argument of ours that means the same; a suggestion is
# made only when that argument is one of the function's.
foreign_arguments <- c(
  max.mismatch = "k", max_mismatch = "k", max.mismatches = "k",
  max_mismatches = "k", mismatches = "k", mismatch = "k",
  max.distance = "k", max_distance = "k", max.dist = "k", max_dist = "k",
  max_edits = "k", edits = "k", max.edits = "k", distance = "k",
  max_errors = "k", errors = "k",
  with.indels = "indels", with_indels = "indels",
  fixed = "alphabet",
  reverse_complement = "rc", reverse.complement = "rc", revcomp = "rc",
  both_strands = "rc", strand = "rc",
  ignore.case = "ignore_case", ignorecase = "ignore_case", case = "ignore_case",
  nthreads = "threads", n_threads = "threads", num_threads = "threads",
  ncores = "threads", cores = "threads", mc.cores = "threads",
  n_cores = "threads", workers = "threads",
  pattern = "patterns", subject = "texts", text = "texts", seqs = "texts",
  sequences = "texts", x = "texts", guide = "guides", file = "paths",
  files = "paths", path = "paths"
)

#' Stop when `...` is not empty
#'
#' @param ... The caller's `...`.
#' @param .fn The caller's name, for the message; its formal arguments are
#'   the suggestions.
#' @noRd
check_no_extra_args <- function(..., .fn, .call = rlang::caller_env()) {
  n <- ...length()
  if (n == 0L) {
    return(invisible())
  }
  nms <- ...names()
  if (is.null(nms)) {
    nms <- rep("", n)
  }
  nms[is.na(nms)] <- ""
  known <- names(formals(get(.fn, envir = topenv(), mode = "function")))
  abort_extra_args(nms, setdiff(known, "..."), .fn, .call)
}

#' Stop when an argument of the call is named by a prefix of a formal
#'
#' R matches `indel = FALSE` to `indels` (partial matching); the options of
#' the exported functions match by full name only. Names forwarded through
#' the caller's `...` (a wrapper `function(...) sassy_search(...)`) are
#' seen with `...names()`, which evaluates nothing.
#'
#' @param expr The call as written (`sys.call()` of the function).
#' @param caller The caller's frame (`parent.frame()`), for a `...` in `expr`.
#' @param .fn The function's name; its formals are the full names.
#' @noRd
check_full_arg_names <- function(expr, caller, .fn, .call = rlang::caller_env()) {
  args <- as.list(expr)[-1L]
  nms <- names(args)
  if (is.null(nms)) {
    nms <- rep("", length(args))
  }
  dots <- vapply(args, identical, logical(1), quote(...))
  if (any(dots)) {
    forwarded <- tryCatch(
      eval(quote(...names()), caller),
      error = function(e) NULL
    )
    nms <- c(nms[!dots], forwarded)
  }
  nms <- nms[!is.na(nms) & nzchar(nms)]
  known <- setdiff(names(formals(get(.fn, envir = topenv(), mode = "function"))), "...")
  for (nm in setdiff(nms, known)) {
    meant <- known[startsWith(known, nm)]
    if (length(meant) > 0L) {
      ducksassy_abort(
        c(
          paste0("`", .fn, "()` has no argument `", cli_escape(nm), "`."),
          x = "Arguments are matched by their full name only.",
          i = paste0(
            "Did you mean ",
            paste0("`", meant, " = `", collapse = " or "), "?"
          )
        ),
        class = c(
          "ducksassy_partial_argument_error",
          "ducksassy_unknown_argument_error", "ducksassy_input_error"
        ),
        arg = nm,
        value = meant[[1L]],
        call = .call
      )
    }
  }
  invisible()
}

#' The error for arguments in `nms` that `fn` does not take
#'
#' @param nms Names of the extra arguments (`""` for unnamed ones).
#' @param known The argument names `fn` does take (for suggestions).
#' @noRd
abort_extra_args <- function(nms, known, fn, call,
                             what = paste0("`", fn, "()`")) {
  named <- which(nms != "")
  if (length(named) > 0L) {
    bad <- nms[[named[[1L]]]]
    meant <- closest_argument(bad, known)
    ducksassy_abort(
      c(
        paste0(what, " has no argument `", cli_escape(bad), "`."),
        if (!is.null(meant)) c(i = paste0("Did you mean `", meant, " = `?")),
        if (length(named) > 1L) {
          c(i = paste0(
            "Also unknown: ",
            paste0("`", cli_escape(nms[named[-1L]]), "`", collapse = ", "), "."
          ))
        },
        i = paste0(
          "Its arguments are ", paste0("`", known, "`", collapse = ", "), "."
        )
      ),
      class = c("ducksassy_unknown_argument_error", "ducksassy_input_error"),
      arg = bad,
      value = meant,
      call = call
    )
  }
  i <- which(nms == "")[[1L]]
  ducksassy_abort(
    c(
      paste0(what, " was given more arguments by position than it takes."),
      x = paste0(
        n_extra(length(nms)), " without a name after the ones it takes",
        " (the first is extra argument ", i, ")."
      ),
      i = "Name the search arguments, e.g. `k = 1`, `alphabet = \"dna\"`.",
      i = paste0("Its arguments are ", paste0("`", known, "`", collapse = ", "), ".")
    ),
    class = c("ducksassy_unknown_argument_error", "ducksassy_input_error"),
    arg = "...",
    index = i,
    call = call
  )
}

n_extra <- function(n) {
  if (n == 1L) "One argument" else paste(n, "arguments")
}

#' The argument probably meant by `bad`, or NULL
#'
#' A known foreign spelling (`max.mismatch` is `k`), the same name with `.`
#' for `_` or in another case, or the nearest name by edit distance (at most
#' 2 edits, and fewer than a third of its letters).
#' @noRd
closest_argument <- function(bad, known) {
  if (length(known) == 0L) {
    return(NULL)
  }
  key <- tolower(bad)
  mapped <- unname(foreign_arguments[key])
  if (!is.na(mapped) && mapped %in% known) {
    return(mapped)
  }
  norm <- function(x) gsub(".", "_", tolower(x), fixed = TRUE)
  same <- known[norm(known) == norm(bad)]
  if (length(same) > 0L) {
    return(same[[1L]])
  }
  d <- vapply(norm(known), edit_distance, numeric(1), b = norm(bad))
  best <- which.min(d)
  if (length(best) == 1L && d[[best]] <= min(2, max(1, nchar(bad) %/% 3))) {
    return(known[[best]])
  }
  # a name that starts like one of ours (`thread`, `all_end`)
  pre <- known[startsWith(norm(known), norm(bad)) | startsWith(norm(bad), norm(known))]
  if (length(pre) == 1L) {
    return(pre)
  }
  NULL
}

# Levenshtein distance of two short strings (argument names).
edit_distance <- function(a, b) {
  a <- strsplit(a, "")[[1L]]
  b <- strsplit(b, "")[[1L]]
  prev <- seq.int(0L, length(b))
  for (i in seq_along(a)) {
    cur <- c(i, integer(length(b)))
    for (j in seq_along(b)) {
      cur[j + 1L] <- min(prev[j + 1L] + 1L, cur[j] + 1L, prev[j] + (a[i] != b[j]))
    }
    prev <- cur
  }
  prev[length(b) + 1L]
}

#' Stop when `...` has `what = `, removed from the file and table functions
#'
#' The three verbs (`sassy_search_*()`, `sassy_count_*()`,
#' `sassy_contains_*()`) took the place of `what = "hits"`, `"count"` and
#' `"contains"`, as for character vectors. The error names the function to
#' call instead.
#' @param ... The caller's `...`.
#' @param .family `"table"` or `"fastx"`.
#' @noRd
check_removed_what <- function(..., .family, .call = rlang::caller_env()) {
  nms <- ...names()
  i <- match("what", nms)
  if (is.na(i)) {
    return(invisible())
  }
  what <- tryCatch(...elt(i), error = function(e) NULL)
  verb <- if (is.character(what) && length(what) == 1L && !is.na(what) &&
    what %in% c("count", "contains")) {
    what
  } else {
    "search"
  }
  fn <- paste0("sassy_", verb, "_", .family, "()")
  shown <- if (is.character(what) && length(what) == 1L) {
    paste0("`what = ", format_value(what), "`")
  } else {
    "`what`"
  }
  ducksassy_abort(
    c(
      paste0(shown, " was removed: use `", fn, "`."),
      i = paste0(
        "`sassy_search_", .family, "()`, `sassy_count_", .family,
        "()` and `sassy_contains_", .family, "()` give hits, counts and ",
        "presence, as `sassy_search()`, `sassy_count()` and `sassy_contains()` do."
      )
    ),
    class = c("ducksassy_deprecated_error", "ducksassy_input_error"),
    arg = "what",
    value = fn,
    call = .call
  )
}
