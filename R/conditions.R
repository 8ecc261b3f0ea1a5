# Conditions: the one abort helper, the condition classes, and the converter
# for errors that come back from Rust as values.
#
# Every error the package raises goes through `ducksassy_abort()`, so every
# error has class `c(<subclass>, "ducksassy_error", "rlang_error", "error",
# "condition")` and carries the fields `arg`, `index` and `value` for code
# that wants to handle it. Subclasses in use:
#
# - `ducksassy_input_error`: a bad argument or a bad letter in the input.
# - `ducksassy_limit_error`: a limit was hit (never silently truncated).
# - `ducksassy_interrupt`: the user interrupted a long search. Not an error:
#   like R's own interrupt it has class `c("ducksassy_interrupt",
#   "ducksassy_error", "interrupt", "condition")`, so `try()` and
#   `tryCatch(error = )` do not catch it and Ctrl-C stops a loop of searches
#   (see `signal_interrupt()`).
# - `ducksassy_internal_error`: the native code returned something it should
#   not have; a bug in ducksassy, please report it.

#' Raise a ducksassy error
#'
#' @param message A character vector of cli bullets. The first element is the
#'   headline (it should name the argument); later ones are `"x"` / `"i"`
#'   bullets naming the index and the offending value. Text that comes from
#'   the user must be escaped with `cli_escape()` first, or be passed as a
#'   glue variable, because braces are interpolated.
#' @param class The subclass, e.g. `"ducksassy_input_error"`.
#' @param ... Extra fields for the condition object.
#' @param arg,index,value The offending argument name, 1-based index (or
#'   `NULL`) and value, stored in the condition for programmatic use.
#' @param call The call to report, usually the user-facing function's frame.
#' @param .envir Environment in which cli interpolates `message`.
#' @noRd
ducksassy_abort <- function(message,
                            class = "ducksassy_input_error",
                            ...,
                            arg = NULL,
                            index = NULL,
                            value = NULL,
                            call = rlang::caller_env(),
                            .envir = parent.frame()) {
  cli::cli_abort(
    message,
    class = unique(c(class, "ducksassy_error")),
    ...,
    arg = arg,
    index = index,
    value = value,
    call = call,
    .envir = .envir
  )
}

#' Escape text for use inside a cli message
#'
#' cli interpolates `{...}`; user text (an ASCII pattern, say) may contain
#' braces, so they are doubled before the text is pasted into a message.
#' @noRd
cli_escape <- function(x) {
  x <- gsub("{", "{{", x, fixed = TRUE)
  gsub("}", "}}", x, fixed = TRUE)
}

#' Format a value for an error message
#'
#' Strings are quoted and shortened to `width` characters, numbers printed
#' with enough digits to see why they are wrong, `NULL`/`NA` spelled out and
#' anything else described by its type. The result is escaped for cli.
#' @noRd
format_value <- function(x, width = 40L) {
  out <- if (is.null(x)) {
    "NULL"
  } else if (is.factor(x)) {
    "a factor"
  } else if (is.list(x)) {
    "a list"
  } else if (!is.atomic(x)) {
    paste0("an object of type ", typeof(x))
  } else if (length(x) != 1L) {
    paste0("a ", typeof(x), " vector of length ", length(x))
  } else if (is.na(x)) {
    if (is.character(x)) "NA" else paste0("NA (", typeof(x), ")")
  } else if (is.character(x)) {
    s <- x
    if (nchar(s, type = "bytes", allowNA = TRUE) > width ||
      is.na(nchar(s, type = "chars", allowNA = TRUE))) {
      s <- substr_bytes(s, width)
      paste0(encodeString(s, quote = "\""), "...")
    } else {
      encodeString(s, quote = "\"")
    }
  } else if (is.double(x)) {
    format(x, digits = 15)
  } else {
    format(x)
  }
  cli_escape(out)
}

# The first `width` bytes of a string, without splitting a UTF-8 letter.
substr_bytes <- function(s, width) {
  raw <- charToRaw(s)
  if (length(raw) <= width) {
    return(s)
  }
  raw <- raw[seq_len(width)]
  out <- rawToChar(raw)
  Encoding(out) <- Encoding(s)
  # Drop a trailing partial UTF-8 sequence, if any.
  while (length(raw) > 0L && !validUTF8(out) && Encoding(s) == "UTF-8") {
    raw <- raw[-length(raw)]
    out <- rawToChar(raw)
    Encoding(out) <- "UTF-8"
  }
  out
}

# The "x" bullet that names argument, index and value, e.g.
#   `patterns[3]` is "".
locate_bullet <- function(arg, index = NULL, value) {
  where <- if (is.null(index) || is.na(index)) {
    paste0("`", arg, "`")
  } else {
    paste0("`", arg, "[", index, "]`")
  }
  c(x = paste0(where, " is ", format_value(value), "."))
}

#' Turn an error value returned by the Rust binding into an R error
#'
#' The binding never throws: on bad input (a letter outside the alphabet, say)
#' or an interrupt it returns a list of class `"ducksassy_rust_error"` with
#' fields `class`, `message`, `arg`, `index` (1-based) and `value` (already
#' printed, e.g. `"\"N\""`). This re-raises it through `ducksassy_abort()`.
#' The Rust messages name the argument, index and value themselves; a
#' location bullet is added only when the message does not name the argument.
#' @noRd
abort_rust_error <- function(err, call = rlang::caller_env(),
                             limit_context = "vector") {
  field <- function(name) {
    x <- err[[name]]
    if (is.null(x) || length(x) != 1L || is.na(x)) NULL else x
  }
  class <- field("class") %||% "ducksassy_internal_error"
  if (!is.character(class) || !startsWith(class, "ducksassy_")) {
    class <- "ducksassy_internal_error"
  }
  message <- as.character(field("message") %||% "The search failed.")
  arg <- field("arg")
  index <- field("index")
  value <- field("value")

  if (identical(class, "ducksassy_interrupt")) {
    signal_interrupt(capitalise(message), call)
  }
  bullets <- cli_escape(capitalise(message))
  if (!is.null(arg) && !grepl(arg, message, fixed = TRUE)) {
    where <- if (is.null(index)) {
      paste0("`", arg, "`")
    } else {
      paste0("`", arg, "[", index, "]`")
    }
    bullets <- c(bullets, x = cli_escape(paste0(
      "In ", where, if (!is.null(value)) paste0(": ", value), "."
    )))
  }
  if (identical(value, "\"N\"") || identical(value, "\"n\"")) {
    bullets <- c(bullets, i = "Use `alphabet = \"iupac\"` for sequences with N.")
  }
  if (identical(class, "ducksassy_limit_error") && !grepl("memory per match", message, fixed = TRUE)) {
    # (an alignment too large for memory says itself what to do instead)
    bullets <- c(bullets, limit_hint(limit_context))
  }
  if (identical(class, "ducksassy_internal_error")) {
    bullets <- c(
      bullets,
      i = "This is a bug in ducksassy; please report it with a reproducible example."
    )
  }
  ducksassy_abort(
    bullets,
    class = class,
    arg = arg,
    index = index,
    value = value,
    call = call
  )
}

#' What to do when a search finds more hits than `max_hits`
#'
#' Bullets for every `ducksassy_limit_error`: nothing partial is returned,
#' and the ways to get all hits without holding them in memory, for the
#' family the limit was hit in (issue 17, "hit-limit advice"):
#'
#' * `"vector"`: stream the hits of a database table instead, or count;
#' * `"fastx"`: count per record, filter the records with hits into a file,
#'   or search fewer files per call (no database: the input is a file);
#' * `"table"`: write them to `output =`;
#' * `"table_output"`: `output =` is already set and the limit holds for the
#'   hits of one chunk, so a smaller `chunk_rows` (or the option) is the way.
#' @noRd
limit_hint <- function(context = c("vector", "fastx", "table", "table_output")) {
  context <- match.arg(context)
  option <- "raise `options(ducksassy.max_hits = )`"
  c(
    i = "No partial result is returned: the limit guards the memory of this R session.",
    switch(context,
      vector = c(
        i = paste0(
          "To keep every hit, stream them into a database table instead: ",
          "`sassy_search_table(con, table, patterns, output = \"hits\")` ",
          "searches the table chunk by chunk and appends the hits to table \"hits\"."
        ),
        i = paste0(
          "Or count them with `sassy_count()`, narrow the search (smaller `k`, ",
          "fewer texts per call), or ", option, "."
        )
      ),
      fastx = c(
        i = paste0(
          "Count them per record with `sassy_count_fastx()`, keep the records that ",
          "have hits with `sassy_filter_fastx()`, search fewer files per call, ",
          "narrow the search (smaller `k`), or ", option, "."
        )
      ),
      table = c(
        i = paste0(
          "Write them to the database with `output = \"table_name\"` (the limit ",
          "then holds per chunk), count them with `sassy_count_table()`, narrow the ",
          "search (smaller `k`), or ", option, "."
        )
      ),
      table_output = c(
        i = paste0(
          "With `output` the limit holds for the hits of one chunk of rows: ",
          "read fewer rows at a time with a smaller `chunk_rows`, or ", option, "."
        )
      )
    )
  )
}

capitalise <- function(x) {
  paste0(toupper(substr(x, 1L, 1L)), substr(x, 2L, nchar(x)))
}

#' Check a value returned by the binding; re-raise it if it is an error
#' @noRd
rust_result <- function(res, call = rlang::caller_env(),
                        limit_context = "vector") {
  if (inherits(res, "ducksassy_rust_error")) {
    abort_rust_error(res, call = call, limit_context = limit_context)
  }
  res
}

`%||%` <- function(x, y) if (is.null(x)) y else x

#' Stop because the user interrupted a search
#'
#' Ctrl-C during a search is noticed by the Rust workers, which stop and
#' report it; R's own interrupt was consumed on the way. Raising it as an
#' error would let `try()` (or `tryCatch(error = )`, or `purrr::safely()`)
#' swallow it, and a loop of searches would go on after the user pressed
#' Ctrl-C. So, like R's interrupt, the condition is not an error: its class
#' is `c("ducksassy_interrupt", "ducksassy_error", "interrupt",
#' "condition")`. Unhandled, it ends the computation at top level with the
#' message; `tryCatch(interrupt = )` and `tryCatch(ducksassy_interrupt = )`
#' catch it, and `on.exit()` code runs.
#' @noRd
signal_interrupt <- function(message = "The search was interrupted.", call = rlang::caller_env()) {
  if (is.environment(call)) call <- rlang::frame_call(call)
  cnd <- structure(
    class = c("ducksassy_interrupt", "ducksassy_error", "interrupt", "condition"),
    list(message = message, call = call)
  )
  stop(cnd)
}

# An error that only a bug in ducksassy can raise.
abort_internal <- function(what, call) {
  ducksassy_abort(
    c(
      paste0("Internal error: ", what, "."),
      i = "This is a bug in ducksassy; please report it with a reproducible example."
    ),
    class = "ducksassy_internal_error",
    call = call
  )
}
