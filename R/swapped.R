# Swapped arguments.
#
# Every function takes the texts first and the patterns (or guides) second,
# as sassy_search(texts, patterns) does; Biostrings' matchPattern(pattern,
# subject) and earlier versions of sassy_crispr(guides, texts) put the
# pattern first. Swapped, a search of long texts for short patterns becomes
# a search of short "texts" for long "patterns", which runs and silently
# finds nothing. So:
#
# - vectors (sassy_search(), sassy_count(), sassy_contains(), sassy_crispr()):
#   when every text is shorter than every pattern, a classed warning
#   (`ducksassy_swapped_arguments_warning`) says they look swapped;
# - files and tables: swapped arguments fail anyway (the "paths" or "table"
#   do not exist), and the error says so when the patterns name files or
#   tables that do.

#' Warn when the texts look like the patterns and the other way round
#'
#' Every non-missing text shorter than the shortest pattern by more than
#' `k` letters (so that no text can have a hit), and at least one text not
#' empty (texts that are all empty or missing are not a sign of anything).
#' @noRd
warn_if_swapped <- function(texts, patterns, fn, what = "patterns",
                            call = rlang::caller_env(), overhang = NA, k = 0L) {
  # with overhang, texts shorter than the patterns are a use, not a sign
  if (length(texts) == 0L || length(patterns) == 0L || !is.na(overhang)) {
    return(invisible(FALSE))
  }
  shortest <- min(nchar(patterns, type = "bytes"))
  lengths_of <- function(x) {
    if (is_xstringset(x)) Biostrings::width(x) else nchar(x, type = "bytes", keepNA = TRUE)
  }
  # the usual case, a long text among the first ones, costs nothing: no
  # vector the size of the input (millions of reads) is made
  first <- lengths_of(texts[seq_len(min(length(texts), 100L))])
  if (any(first >= shortest - k, na.rm = TRUE)) {
    return(invisible(FALSE))
  }
  longest <- suppressWarnings(max(lengths_of(texts), na.rm = TRUE))
  if (!is.finite(longest)) {
    return(invisible(FALSE))
  }
  # a text `k` letters shorter than a pattern can still hold a hit (with
  # deletions): only where no text can have one is it a sign
  if (longest < 1 || longest >= shortest - k) {
    return(invisible(FALSE))
  }
  one <- sub("s$", "", what)
  cli::cli_warn(
    c(
      paste0(
        "Every text is shorter than every ", one, " (the longest text has ",
        longest, " letter", if (longest != 1) "s", ", the shortest ", one, " ",
        shortest, "): are `texts` and `", what, "` swapped?"
      ),
      i = paste0(
        "The texts come first: `", fn, "(texts, ", what, ", ...)`. ",
        "(Biostrings' `matchPattern()` puts the pattern first.)"
      )
    ),
    class = c("ducksassy_swapped_arguments_warning", "ducksassy_warning"),
    call = call
  )
  invisible(TRUE)
}

#' A hint for the error of a missing file or table, when the patterns look
#' like what was meant
#'
#' @param exists A function telling whether one pattern names an existing
#'   file or table.
#' @noRd
swapped_hint <- function(patterns, exists, fn, first, what = "patterns") {
  if (!is.character(patterns) || length(patterns) == 0L || anyNA(patterns)) {
    return(NULL)
  }
  found <- tryCatch(
    any(vapply(utils_head(patterns, 10L), function(p) isTRUE(exists(p)), logical(1))),
    error = function(e) FALSE
  )
  if (!found) {
    return(NULL)
  }
  c(i = paste0(
    "`", what, "` names ", if (first == "paths") "a file" else "a table",
    " that exists: are `", first, "` and `", what, "` swapped? ",
    "The call is `", fn, "(", if (first == "table") "con, ", first, ", ", what, ", ...)`."
  ))
}
