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
# - `ducksassy_time_limit`: a time limit of `setTimeLimit()` passed during
#   a search. An error, as R's own time limit is.
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

#' "a logical", "an integer": the type of `x` with its article
#' @noRd
a_type <- function(x) {
  type <- typeof(x)
  paste0(if (substr(type, 1L, 1L) %in% c("a", "e", "i", "o", "u")) "an " else "a ", type)
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
    paste0(a_type(x), " vector of length ", length(x))
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

#' Raise the condition of an error value returned by the Rust binding
#'
#' The binding never throws: on bad input, a limit, an interrupt or a bug
#' it returns ONE kind of value, a list of class `"ducksassy_rust_error"`
#' with the typed fields of the core's error (src/rust/src/lib.rs,
#' `error_value()`): `kind`, and as the kind has them `arg`, `index`
#' (1-based: the binding converts, as it does for hit coordinates), `value`,
#' `rule` and the rule's fields, `position` (1-based), `letter` (a byte),
#' `limit`, `path`, `record`, `line`, ... This is the one function that words
#' every message and picks every condition class from those fields; no
#' message text is ever parsed.
#'
#' The context of the call adds what the core does not know:
#' @param limit_context The family, for the advice of a hit-limit error
#'   (`limit_hint()`).
#' @param offset Added to the index of a `texts` error (a chunk of the
#'   texts: Biostrings sets are searched in chunks).
#' @param rows A table search: `list(offset, column, ids = function(i))`;
#'   a `texts` error then names the row in scan order (and `ids(i)`, bullets
#'   with the id values of the chunk's row `i`).
#' @param paths,output,path_arg A file search: the paths as the user gave
#'   them (a file error names those) and their argument.
#' @param patterns The patterns (or guides) searched: a letter error in one
#'   carries it as its value.
#' @noRd
rust_condition <- function(err, call = rlang::caller_env(),
                           limit_context = "vector", offset = 0,
                           rows = NULL, paths = NULL, output = NULL,
                           path_arg = "paths", patterns = NULL) {
  f <- function(name) {
    x <- err[[name]]
    if (is.null(x) || length(x) == 0L || (length(x) == 1L && is.na(x))) NULL else x
  }
  kind <- f("kind")
  if (!is.character(kind) || length(kind) != 1L) {
    kind <- "internal"
  }
  arg <- f("arg")
  index <- f("index")
  if (identical(arg, "texts") && !is.null(index) && offset != 0) {
    index <- index + offset
    if (index <= .Machine$integer.max) index <- as.integer(index)
  }
  raise <- function(bullets, class = "ducksassy_input_error", ...,
                    .arg = arg, .index = index, .value = f("value")) {
    ducksassy_abort(bullets, class = class, ..., arg = .arg, index = .index,
      value = .value, call = call)
  }
  n_hint <- function(letter) {
    if (!is.null(letter) && letter %in% c(78L, 110L)) {
      c(i = "Use `alphabet = \"iupac\"` for sequences with N.")
    }
  }
  switch(kind,
    invalid_argument = raise(argument_bullets(err, arg, index),
      # a rule about another vector's element names that element
      .index = if (identical(f("rule"), "below_length")) f("of_index") else index
    ),
    invalid_letter = {
      letter <- f("letter")
      where <- paste0("`", arg, "`[", plain_number(index), "]")
      ids <- NULL
      value <- format_letter(letter)
      if (!is.null(rows) && identical(arg, "texts")) {
        row <- rows$offset + index
        where <- paste0("Row ", format(row, scientific = FALSE), " (column \"", rows$column, "\")")
        ids <- if (is.function(rows$ids)) rows$ids(index)
        return(raise(
          c(cli_escape(letter_message(where, err)), ids, n_hint(letter)),
          .arg = "column", .index = row, .value = value, row = row,
          # the data it was worded from, for a caller that knows more
          # (a shard of a table adds the rows before it: shard-table.R)
          rust_error = err, rows_context = rows
        ))
      }
      if (!is.null(patterns) && arg %in% c("patterns", "guides")) {
        value <- patterns[[index]]
      }
      raise(c(cli_escape(letter_message(where, err)), n_hint(letter)), .value = value)
    },
    too_many_hits = abort_too_many_hits(f("limit"), limit_context, call),
    too_large = {
      cells <- as.double(f("records")) * as.double(f("patterns"))
      raise(
        c(
          paste0(
            "The result would have ", format(cells, big.mark = ",", scientific = FALSE),
            " cells (", format(f("records"), big.mark = ","), " texts x ",
            format(f("patterns"), big.mark = ","), " patterns), more than this machine's memory holds."
          ),
          i = "Count fewer texts or patterns per call and combine the parts."
        ),
        class = "ducksassy_limit_error", .value = cells
      )
    },
    trace_memory = raise(
      c(
        paste0(
          "Aligning a ", plain_number(f("pattern_length")), "-letter pattern at k = ", plain_number(f("k")), " needs ",
          format(f("bytes") / 1e9, digits = 2, nsmall = 1), " GB of memory per match and worker ",
          "thread (its DP matrix grows with the square of the pattern length), ",
          "more than this machine can give."
        ),
        i = paste0(
          "Use fewer `threads`, count or test for hits without alignments ",
          "(`sassy_count()`, `sassy_contains()`, without `max_n_frac`), or search shorter patterns."
        )
      ),
      class = "ducksassy_limit_error"
    ),
    resource = raise(cli_escape(capitalise(paste0(f("message") %||% "a resource is exhausted", "."))),
      class = "ducksassy_limit_error"
    ),
    interrupted = signal_interrupt("The search was interrupted.", call),
    # R's time limit (setTimeLimit()), met while the search polled: an error
    # in R, so it stays one (caught as `error`, nothing printed on the way)
    time_limit = abort_time_limit(f("message"), call),
    file_open = , file_parse = , file_letter = , file_too_many_records = ,
    file_write = abort_file_error(err, f, paths, output, path_arg, call),
    raise(
      c(
        cli_escape(paste0("Internal error in ducksassy: ", f("message") %||% "an error value without a kind", ".")),
        i = "This is a bug in ducksassy; please report it with a reproducible example."
      ),
      class = "ducksassy_internal_error"
    )
  )
}

# "a", "b" or "c"
or_list <- function(x) {
  if (length(x) < 2L) x else paste(paste(x[-length(x)], collapse = ", "), "or", x[[length(x)]])
}

# A whole number as digits (never 1e+05).
plain_number <- function(x) format(x, scientific = FALSE, trim = TRUE)

# "`texts`[2] has letter "N" at position 4 that is not in the dna alphabet"
letter_message <- function(where, err) {
  paste0(
    where, " has letter ", format_letter(err$letter), " at position ",
    plain_number(err$position), " that is not in the ", err$alphabet, " alphabet"
  )
}

#' A byte as an error message shows it
#'
#' Printable letters as `"N"`, a space as `" " (a space)`, others as their
#' byte value and what it is (`0xC3 (a byte of a non-ASCII character)`).
#' @noRd
format_letter <- function(b) {
  if (is.null(b) || is.na(b)) {
    return("an unknown letter")
  }
  hex <- sprintf("0x%02X", as.integer(b))
  if (b > 32L && b < 127L) {
    paste0("\"", rawToChar(as.raw(b)), "\"")
  } else if (b == 32L) {
    "\" \" (a space)"
  } else if (b == 9L) {
    paste0(hex, " (a tab)")
  } else if (b %in% c(10L, 13L)) {
    paste0(hex, " (a line break)")
  } else if (b >= 128L) {
    paste0(hex, " (a byte of a non-ASCII character)")
  } else {
    paste0(hex, " (a control character)")
  }
}

# The bullets of an `invalid_argument` error, from its rule and fields.
argument_bullets <- function(err, arg, index) {
  value <- err$value
  shown <- if (identical(err$rule, "not_missing")) {
    "NA"
  } else if (!is.null(err$length)) {
    paste0("a vector of length ", format(err$length, big.mark = ",", scientific = FALSE))
  } else {
    format_value(value)
  }
  where <- paste0("`", arg, if (!is.null(index)) paste0("[", plain_number(index), "]"), "`")
  located <- c(x = paste0(where, " is ", shown, "."))
  singular <- function(x) sub("s$", "", x)
  switch(err$rule %||% "",
    whole_at_least = c(paste0("`", arg, "` must be a whole number >= ", err$min, "."), located),
    fraction = c(paste0("`", arg, "` must be a number between 0 and 1."), located),
    one_of = c(
      paste0("`", arg, "` must be one of ", or_list(paste0("\"", err$choices, "\"")), "."),
      located
    ),
    not_empty = c(
      paste0("`", arg, "` must contain at least one ", singular(arg), "."),
      x = paste0("`", arg, "` has length 0.")
    ),
    non_empty_string = c(paste0("`", arg, "` must not contain empty strings."), located),
    not_missing = c(paste0("`", arg, "` must not contain missing values."), located),
    below_length = {
      noun <- singular(err$of)
      spacer <- identical(err$part, "spacer")
      what <- if (spacer) "spacer (guide without its PAM)" else noun
      c(
        paste0("`", arg, "` must be less than the length of every ", what, "."),
        x = paste0(
          where, " is ", shown, ", but `", err$of, "[", plain_number(err$of_index), "]` (",
          format_value(err$seq), ") has ",
          if (spacer) "a spacer length of " else if (err$of == "guides" && arg == "k") "a length of " else "length ",
          plain_number(err$seq_length), "."
        ),
        if (arg == "pam_length") {
          c(i = "Each guide ends with its PAM: the spacer comes first, then `pam_length` PAM letters.")
        },
        more_bullet(c(err$of_index, err$more))
      )
    },
    needs_alphabet = if (arg == "rc") {
      c(
        paste0("`rc = TRUE` is not allowed with `alphabet = \"", err$alphabet, "\"`."),
        x = paste0(
          "`rc` is TRUE; reverse complements exist only for ",
          paste0("\"", err$allowed, "\"", collapse = " and "), "."
        )
      )
    } else if (length(err$allowed) == 1L) {
      c(
        paste0("`", arg, "` is only supported with `alphabet = \"", err$allowed, "\"`."),
        x = paste0("`", arg, "` is ", shown, " and `alphabet` is \"", err$alphabet, "\".")
      )
    } else {
      c(paste0("`", arg, "` is not supported with `alphabet = \"", err$alphabet, "\"`."), located)
    },
    unset_with = c(
      paste0("`", arg, "` must be `NULL` with `", err$other, " = ", format_value(err$other_value), "`."),
      if (arg == "overhang" && identical(err$other, "indels")) {
        c(i = "A substitutions-only hit is the whole pattern inside the text.")
      } else {
        located
      }
    ),
    no_mask_with_overhang = c(
      paste0("`", arg, "` must be free of the masking letter X when `overhang` is set."),
      x = paste0(where, " has ", format_letter(err$letter), " at position ", err$position, ".")
    ),
    one_or_one_per = c(
      paste0("`", arg, "` must be one value, or one per ", singular(err$of), " (", err$n, ")."),
      located
    ),
    below = c(
      paste0(where, " must have fewer than ", format(err$limit, big.mark = ",", scientific = FALSE), " ", err$unit, "."),
      x = paste0(where, " has ", format(err$length, big.mark = ",", scientific = FALSE), " ", err$unit, ".")
    ),
    crispr_fixed = c(paste0("`", arg, "` can't be set for a CRISPR search."), located),
    c(paste0("`", arg, "` is not valid."), located)
  )
}

#' Stop because a search found more hits than `max_hits`
#'
#' The one wording of the hit-limit error, wherever it is noticed (the
#' core's buffers, the chunks of an XStringSet or a table, the shards).
#' @param per_chunk The limit holds per chunk of rows (a table search with
#'   `output`).
#' @noRd
abort_too_many_hits <- function(limit, context = "vector", call = rlang::caller_env(),
                                per_chunk = FALSE) {
  ducksassy_abort(
    c(
      paste0(
        "The search found more than ", format(limit, big.mark = ",", scientific = FALSE),
        " hits (the `max_hits` limit, `getOption(\"ducksassy.max_hits\")`)",
        if (per_chunk) " in one chunk of rows", "."
      ),
      limit_hint(context)
    ),
    class = "ducksassy_limit_error",
    value = limit,
    call = call
  )
}

#' A file error (`kind` `file_*`): names the file as the user gave it
#' @noRd
abort_file_error <- function(err, f, paths, output, arg, call) {
  as_count <- function(x) {
    if (is.null(x)) NULL else if (x <= .Machine$integer.max) as.integer(x) else x
  }
  path <- f("path")
  index <- NA_integer_
  if (!is.null(output) && identical(path, path.expand(output))) {
    arg <- "output"
    path <- output
  } else if (!is.null(paths)) {
    index <- match(path, path.expand(paths))
    if (!is.na(index)) {
      path <- paths[[index]]
    }
  }
  file <- paste0("\"", cli_escape(path), "\"")
  record <- f("record")
  line <- f("line")
  reason <- cli_escape(f("message") %||% "")
  at <- if (!is.null(record) && !is.null(line)) {
    paste0("At record ", plain_number(record), " (line ", plain_number(line), "): ")
  } else if (!is.null(record)) {
    paste0("At record ", plain_number(record), ": ")
  } else if (!is.null(line)) {
    paste0("At line ", plain_number(line), ": ")
  } else {
    ""
  }
  kind <- err$kind
  bullets <- switch(kind,
    file_open = c(paste0("Can't open file ", file, "."), x = paste0(capitalise(reason), ".")),
    file_parse = c(
      paste0("Can't read file ", file, "."),
      x = paste0(if (nzchar(at)) paste0(at, reason) else capitalise(reason), ".")
    ),
    file_write = c(paste0("Can't write file ", file, "."), x = paste0(capitalise(reason), ".")),
    file_too_many_records = paste0(
      "File ", file, " has more than ", format(f("limit"), scientific = FALSE),
      " records, more than an R integer can number."
    ),
    file_letter = c(
      paste0(
        "Record ", plain_number(record), " (\"", cli_escape(f("name")), "\") of file ", file,
        " has a letter that is not in the ", f("alphabet"), " alphabet."
      ),
      x = paste0("It is ", cli_escape(format_letter(f("letter"))), " at position ", plain_number(f("position")), "."),
      if (isTRUE(f("letter") %in% c(78L, 110L))) c(i = "Use `alphabet = \"iupac\"` for sequences with N.")
    )
  )
  class <- if (kind == "file_letter") {
    "ducksassy_input_error"
  } else {
    c("ducksassy_file_error", "ducksassy_input_error")
  }
  ducksassy_abort(
    bullets,
    class = class,
    arg = arg,
    index = if (is.na(index) || length(paths) == 1L) NULL else index,
    value = path,
    path = path,
    record = as_count(record),
    line = as_count(line),
    name = f("name"),
    position = f("position"),
    letter = if (!is.null(f("letter"))) format_letter(f("letter")),
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

#' Check a value returned by the binding; raise it if it is an error
#'
#' `...`: the call's context for `rust_condition()`.
#' @noRd
rust_result <- function(res, call = rlang::caller_env(), ...) {
  if (inherits(res, "ducksassy_rust_error")) {
    rust_condition(res, call = call, ...)
  }
  res
}

`%||%` <- function(x, y) if (is.null(x)) y else x

# R's words for its time limits (R_ProcessEvents()).
time_limit_words <- "reached (session )?(elapsed|CPU) time limit"

#' Stop because R's time limit passed during a search
#'
#' `setTimeLimit()` makes R raise an error once the limit passes; the
#' search notices it where it polls for Ctrl-C and stops. It stays an error
#' (class `ducksassy_time_limit`), so `try()` and `tryCatch(error = )`
#' catch it, as R's own.
#' @param message R's message (`reached elapsed time limit`), or `NULL`.
#' @noRd
abort_time_limit <- function(message, call) {
  message <- message %||% "reached a time limit"
  # duckdb wraps the message of a query's error in its own words
  m <- regmatches(message, regexpr(time_limit_words, message))
  ducksassy_abort(
    c(
      cli_escape(capitalise(paste0(if (length(m)) m else message, "."))),
      i = "The search was stopped by the time limit that `setTimeLimit()` set."
    ),
    class = "ducksassy_time_limit", call = call
  )
}

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

# A package that a feature needs is not installed: the `headline` says
# which, `install` how to install it.
abort_dependency <- function(headline, install, call) {
  ducksassy_abort(c(headline, i = install), class = "ducksassy_dependency_error", call = call)
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
