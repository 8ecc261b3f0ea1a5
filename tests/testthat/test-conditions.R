# The abort helper and the conversion of error values from the binding.

# An error value as the binding returns it (src/rust/src/error.rs): the
# typed fields of the core's error, indices 1-based, no message.
rust_error <- function(.kind, ...) {
  structure(list(kind = .kind, ...), class = "ducksassy_rust_error")
}

test_that("ducksassy_abort() raises a classed error with fields", {
  cnd <- tryCatch(
    ducksassy_abort("`x` is bad.", arg = "x", index = 2L, value = "y", call = NULL),
    error = function(e) e
  )
  expect_s3_class(cnd, c("ducksassy_input_error", "ducksassy_error", "rlang_error", "error", "condition"), exact = TRUE)
  expect_identical(cnd$arg, "x")
  expect_identical(cnd$index, 2L)
  expect_identical(cnd$value, "y")
  expect_error(ducksassy_abort("a", class = "ducksassy_limit_error"), class = "ducksassy_limit_error")
})

test_that("user text with braces or long values is shown literally", {
  expect_identical(format_value("{x}"), "\"{{x}}\"")
  expect_match(format_value(strrep("A", 100)), "^\"A{40}\"\\.\\.\\.$")
  expect_identical(format_value(NULL), "NULL")
  expect_identical(format_value(NA), "NA (logical)")
  expect_identical(format_value(NA_character_), "NA")
  expect_identical(format_value(1:3), "an integer vector of length 3")
  expect_identical(format_value(factor("a")), "a factor")
  # A pattern with braces in an error message does not break cli.
  cnd <- tryCatch(sassy_search("a{b}c", c("{b}", "ab"), k = 3, alphabet = "ascii"), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_input_error")
  expect_match(conditionMessage(cnd), "{b}", fixed = TRUE)
})

test_that("Rust error values become conditions of their class", {
  err <- rust_error("invalid_letter",
    arg = "texts", index = 3L, position = 4L, letter = 78L, alphabet = "dna"
  )
  cnd <- tryCatch(rust_condition(err, call = NULL), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_input_error")
  expect_s3_class(cnd, "ducksassy_error")
  expect_identical(cnd$arg, "texts")
  expect_identical(cnd$index, 3L)
  expect_identical(cnd$value, "\"N\"")
  expect_match(conditionMessage(cnd), "`texts`[3] has letter \"N\" at position 4", fixed = TRUE)
  expect_match(conditionMessage(cnd), "alphabet = \"iupac\"", fixed = TRUE)
  # the record of a chunk is offset to the record of the whole input, in
  # the message and the field (never by rewriting message text)
  cnd <- tryCatch(rust_condition(err, call = NULL, offset = 10), error = function(e) e)
  expect_identical(cnd$index, 13L)
  expect_match(conditionMessage(cnd), "`texts`[13]", fixed = TRUE)
  # a table search names the row in scan order
  cnd <- tryCatch(rust_condition(err, call = NULL, rows = list(offset = 100, column = "seq")),
    error = function(e) e
  )
  expect_identical(cnd$arg, "column")
  expect_identical(cnd$index, 103)
  expect_match(conditionMessage(cnd), "Row 103 (column \"seq\") has letter \"N\"", fixed = TRUE)

  # User text with braces is shown literally.
  cnd <- tryCatch(
    rust_condition(rust_error("invalid_argument", arg = "patterns", index = 2L,
      value = "{x}", rule = "one_of", choices = c("a", "b")), call = NULL),
    error = function(e) e
  )
  expect_match(conditionMessage(cnd), "`patterns[2]` is \"{x}\"", fixed = TRUE)

  # Interrupts and limits keep their class.
  # an interrupt is R's kind of condition, not an error: try() and
  # tryCatch(error = ) must not swallow a Ctrl-C inside a loop of searches
  intr <- function() rust_condition(rust_error("interrupted"))
  cnd <- tryCatch(intr(), ducksassy_interrupt = function(e) e)
  expect_s3_class(cnd, c("ducksassy_interrupt", "ducksassy_error", "interrupt", "condition"), exact = TRUE)
  expect_identical(conditionMessage(cnd), "The search was interrupted.")
  expect_identical(tryCatch(try(intr(), silent = TRUE), interrupt = function(e) "passed through try()"),
                   "passed through try()")
  expect_identical(tryCatch(tryCatch(intr(), error = function(e) "caught as error"), interrupt = function(e) "not an error"),
                   "not an error")
  expect_error(rust_condition(rust_error("too_many_hits", limit = 5)), class = "ducksassy_limit_error")
  # Anything unexpected is an internal error, never silently ignored.
  expect_error(rust_condition(rust_error("weird")), class = "ducksassy_internal_error")
  expect_error(rust_condition(list()), class = "ducksassy_internal_error")
})

test_that("every kind of error value has a stable message", {
  # the binding's own values where a call makes them, else hand-made ones
  # of the same fields
  expect_snapshot(error = TRUE, {
    rust_result(ds_test_panic("main", 1L), call = NULL)
    rust_condition(rust_error("too_many_hits", limit = 1e6), call = NULL)
    rust_condition(rust_error("too_many_hits", limit = 10), call = NULL, limit_context = "fastx")
    rust_condition(rust_error("too_large", records = 2^22, patterns = 2^17), call = NULL)
    rust_condition(rust_error("trace_memory", pattern_length = 1e7, k = 10, bytes = 2.5e13), call = NULL)
    rust_condition(rust_error("resource", message = "could not start 8 threads: out of memory"), call = NULL)
    rust_condition(rust_error("invalid_letter", arg = "texts", index = 2L, position = 4L,
      letter = 9L, alphabet = "iupac"), call = NULL)
  })
})

test_that("every rule of the core has a stable message", {
  check <- function(...) rust_result(ds_check_plan(new_plan(...)), call = NULL)
  expect_snapshot(error = TRUE, {
    # what R's shape checks leave to the core
    sassy_search("ACGTACGT", c("ACGTA", "ACG", "AC"), k = 3)
    sassy_search("hello", "ell", alphabet = "ascii", rc = TRUE)
    sassy_search("ACGT", "ACG", overhang = 0.5, alphabet = "dna")
    sassy_search("ACGT", "ACG", max_n_frac = 0.1, alphabet = "ascii")
    sassy_search("ACGT", "ACG", overhang = 0.5, indels = FALSE)
    sassy_search("ACGT", "AXG", overhang = 0.5)
    sassy_search("ACGT", c("ACG", "AZG"))
    sassy_crispr("ACGTACGTACGTA", c("ACGTACGTNGG", "AGG"), k = 1)
    sassy_crispr("ACGTACGTACGTA", c("ACGTACGTNGG", "ACGTACGTAGG"), k = 8)
    sassy_crispr("ACGTACGTACGTA", "ACGTACGTNGG", k = 11, allow_pam_edits = TRUE)
    sassy_crispr("ACGTACGTACGTA", "ACGTZCGTNGG", k = 1)
    # what R's shape checks catch first, from a plan made by hand
    check("ACGT", -1L)
    check("ACGT", 1L, alphabet = "rna")
    check(character(), 1L)
    check(c("ACGT", NA), 1L)
    check(c("ACGT", ""), 1L)
    check("ACGT", 1L, overhang = 2)
    check("ACGT", 1L, mode = "all")
    check(c("ACGTAGG", "ACGTAGG"), 1L, pam_length = c(3L, 3L, 3L))
    check("ACGTAGG", 1L, pam_length = 3L, overhang = 0.5)
  })
})

test_that("result builders reject malformed binding output", {
  expect_error(new_hits(list(record = 1L)), class = "ducksassy_internal_error")
  expect_error(new_counts(1:3, c("a", "b"), "p"), class = "ducksassy_internal_error")
})
