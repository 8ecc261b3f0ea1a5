# The verbs built from one list of formals (R/arguments.R).

verbs <- c(
  "sassy_search", "sassy_count", "sassy_contains",
  "sassy_search_fastx", "sassy_count_fastx", "sassy_contains_fastx",
  "sassy_search_table", "sassy_count_table", "sassy_contains_table",
  "sassy_filter_fastx", "sassy_crispr", "sassy_crispr_fastx", "sassy_crispr_table"
)

test_that("every built verb names itself and its arguments for an unknown argument", {
  for (fn in verbs) {
    f <- getExportedValue("ducksassy", fn)
    # `...` is checked before any other argument is looked at
    e <- expect_error(f(bogus_arg = 1), class = "ducksassy_unknown_argument_error")
    expect_identical(e$arg, "bogus_arg")
    msg <- conditionMessage(e)
    expect_match(msg, paste0("`", fn, "()` has no argument `bogus_arg`"), fixed = TRUE)
    for (arg in setdiff(names(formals(f)), "...")) {
      expect_match(msg, paste0("`", arg, "`"), fixed = TRUE, label = paste(fn, arg))
    }
  }
})

test_that("`what =` is the removed-argument error of the file and table verbs only", {
  for (fn in verbs) {
    f <- getExportedValue("ducksassy", fn)
    family <- regmatches(fn, regexpr("(fastx|table)$", fn))
    took_what <- length(family) == 1L && !grepl("crispr|filter", fn)
    if (took_what) {
      e <- expect_error(f(what = "count"), class = "ducksassy_deprecated_error")
      expect_identical(e$value, paste0("sassy_count_", family, "()"))
    } else {
      e <- expect_error(f(what = "count"), class = "ducksassy_unknown_argument_error")
      expect_identical(e$arg, "what")
    }
  }
})

test_that("the arguments reach the work as promises", {
  # not evaluated before `...` is checked
  expect_error(
    sassy_search(stop("evaluated"), "ACGT", bogus_arg = 1),
    class = "ducksassy_unknown_argument_error"
  )
  # missing() sees through to the user's call
  e <- expect_error(sassy_crispr("ACGTAGG", "ACGTNGG"), class = "ducksassy_input_error")
  expect_identical(e$arg, "k")
  expect_identical(e$call, quote(sassy_crispr("ACGTAGG", "ACGTNGG")))
})

test_that("the search arguments by name are sassy_search()'s options", {
  expect_setequal(
    ducksassy:::search_arg_names,
    setdiff(names(formals(sassy_search)), c("texts", "patterns", "k", "..."))
  )
})
