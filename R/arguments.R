# The arguments of the exported verbs, written once.
#
# Every family (character vectors, files, tables, and the CRISPR search of
# each) takes the same search options with the same defaults, in the same
# order; what differs is the source in front (`texts`, `paths`, `con` and
# `table`), a few family arguments, and which verb it is. So each verb is
# built here from its family's formals and one generated body, which checks
# `...` (dots.R) and hands every argument by name to the family's function
# that does the work, e.g.
#
#   sassy_count_table <- search_verb("count", "table")
#
# is `function(con, table, patterns, k = 0L, column = "sequence", id = NULL,
# alphabet = c("iupac", "dna", "ascii"), ...)` whose body calls
# `search_table("count", con = con, ...)`. (Adding a search option: see
# plan.R.)
#
# This file is collated first (its name sorts before the family files),
# which call these constructors when the package is built.

#' The search options of sassy_search(), as every family takes them
#'
#' @param except Names to leave out (`sassy_filter_fastx()` has no
#'   `all_endpoints`).
#' @return A list of formals: unevaluated defaults, as `alist()` gives them.
#' @noRd
search_option_formals <- function(except = NULL) {
  f <- alist(
    alphabet = c("iupac", "dna", "ascii"),
    rc = NULL,
    all_endpoints = FALSE,
    overhang = NULL,
    max_n_frac = NULL,
    ignore_case = FALSE
  )
  f[setdiff(names(f), except)]
}

# The CRISPR searches' options in place of search_option_formals(): the
# PAM, and other defaults for `max_n_frac` (assemblies have runs of N) and
# `rc` (the alphabet is always IUPAC).
crispr_option_formals <- function() {
  alist(pam_length = 3L, allow_pam_edits = FALSE, max_n_frac = 0.2, rc = TRUE)
}

# The options of the verbs that return hits (not counts or presence).
hit_formals <- function() {
  alist(cigar = TRUE, cigar_style = c("pattern", "sam"), region = FALSE)
}

#' The formals of a verb, but `...`
#'
#' @param source `"vector"`, `"fastx"` or `"table"`.
#' @param hits Whether the verb returns hits (it then takes hit_formals()).
#' @param crispr A CRISPR verb: `guides` and a `k` without default in place
#'   of `patterns` and `k = 0L`, and crispr_option_formals().
#' @param sparse Add `sparse = FALSE` last (the count verbs).
#' @noRd
verb_formals <- function(source, hits, crispr = FALSE, sparse = FALSE) {
  table <- source == "table"
  tail <- switch(source,
    vector = NULL,
    fastx = alist(BPPARAM = NULL),
    table = alist(chunk_rows = 100000L, output = NULL, BPPARAM = NULL)
  )
  # `indels` came last, when it was added; sassy_*_table() had it before
  # the table's own arguments
  indels <- alist(indels = TRUE)
  c(
    switch(source,
      vector = alist(texts = ),
      fastx = alist(paths = ),
      table = alist(con = , table = )
    ),
    if (crispr) alist(guides = , k = ) else alist(patterns = , k = 0L),
    if (table) alist(column = "sequence", id = NULL),
    if (crispr) crispr_option_formals() else search_option_formals(),
    if (hits) hit_formals(),
    alist(threads = sassy_threads()),
    if (table && !crispr) c(indels, tail) else c(tail, indels),
    # the count verbs' `sparse`, added last
    if (sparse) alist(sparse = FALSE),
    # the best hit per site (sassy_crispr() only)
    if (crispr && source == "vector") alist(best = FALSE),
    # the ends of records (issue 23), added last so that calls by position
    # keep their meaning; not for the CRISPR searches
    if (!crispr) end_formals()
  )
}

# `ends` (issue 23): last, after every older argument.
end_formals <- function() {
  alist(ends = NULL)
}

# The search arguments, by the names of sassy_search()'s: the file and table
# verbs take those that apply to them (the count verbs all but the hit-only
# `cigar`, `cigar_style` and `region`), with sassy_search()'s defaults.
search_arg_names <- names(c(
  search_option_formals(), hit_formals(), alist(threads = , indels = ),
  end_formals()
))

#' The search arguments of a verb's call, by name
#'
#' @param env The verb's frame (`rlang::current_env()`).
#' @return A named list of the values of those of `search_arg_names` that
#'   the verb takes.
#' @noRd
search_args_of <- function(env) {
  mget(intersect(search_arg_names, ls(env)), envir = env)
}

#' An exported verb
#'
#' The function has `formals` and `...` last. Its body checks that `...` is
#' empty (check_no_extra_args(), after check_removed_what() for a family
#' that had `what = `) and calls `impl` with `lead`, then every argument
#' by name, then `call`, the verb's frame, for the errors: they name the
#' user's call. The arguments are passed as promises, so they are
#' evaluated where `impl` first uses them, and `missing(k)` sees through.
#'
#' @param name The verb's name: the unknown-argument error names it and
#'   lists its formals.
#' @param impl Name of the function that does the work.
#' @param lead Constant arguments of `impl`, first (the mode).
#' @param options_as_list Pass the search options (`search_arg_names`) as
#'   one list `args = search_args_of(call)` instead of one by one.
#' @param removed_what `NULL`, or the family (`"table"`, `"fastx"`) whose
#'   `what = ` is an error naming the verb to use instead.
#' @noRd
new_verb <- function(name, formals, impl, lead = list(),
                     options_as_list = FALSE, removed_what = NULL) {
  pass <- names(formals)
  if (options_as_list) {
    pass <- setdiff(pass, search_arg_names)
  }
  work <- rlang::call2(
    impl, !!!lead, !!!rlang::syms(rlang::set_names(pass)),
    !!!if (options_as_list) list(args = quote(search_args_of(call))),
    call = quote(call)
  )
  # `fn(..., <args>, .call = call)`; the verb's dots as `quote(...)`, which
  # codetools would take for new_verb()'s own in a literal call (and not
  # with rlang::call2(), whose own `.fn` is check_no_extra_args()'s)
  check_dots <- function(fn, ...) {
    as.call(c(as.name(fn), quote(...), list(...), .call = quote(call)))
  }
  body <- c(
    quote(`{`),
    quote(call <- rlang::current_env()),
    if (!is.null(removed_what)) {
      check_dots("check_removed_what", .family = removed_what)
    },
    as.call(list(
      as.name("check_full_arg_names"), quote(sys.call()), quote(parent.frame()),
      .fn = name, .call = quote(call)
    )),
    check_dots("check_no_extra_args", .fn = name),
    work
  )
  rlang::new_function(
    c(formals, alist(... = )),
    as.call(body),
    env = topenv(environment())
  )
}

#' A search verb: `sassy_<verb>[_<source>]()`
#'
#' @param mode `"hits"` (the verb `search`), `"count"` or `"contains"`.
#' @param source `"vector"`, `"fastx"` or `"table"`; the work is done by
#'   `search_<source>()` (search.R, fastx.R, table.R).
#' @noRd
search_verb <- function(mode, source) {
  files_or_table <- source != "vector"
  new_verb(
    verb_name(mode, source),
    verb_formals(source, hits = mode == "hits",
      sparse = mode == "count"
    ),
    paste0("search_", source),
    lead = list(mode),
    options_as_list = files_or_table,
    removed_what = if (files_or_table) source
  )
}

#' A CRISPR verb: `sassy_crispr[_<source>]()`, done by `crispr_<source>()`
#' (crispr.R, crispr-table.R)
#' @noRd
crispr_verb <- function(source) {
  new_verb(
    paste0("sassy_crispr", if (source != "vector") paste0("_", source)),
    verb_formals(source, hits = TRUE, crispr = TRUE),
    paste0("crispr_", source)
  )
}

#' The name of a search verb
#'
#' @param mode `"hits"`, `"count"` or `"contains"`.
#' @param source `"vector"` (no suffix), `"fastx"` or `"table"`.
#' @noRd
verb_name <- function(mode, source) {
  paste0(
    "sassy_", if (mode == "hits") "search" else mode,
    if (source != "vector") paste0("_", source)
  )
}
