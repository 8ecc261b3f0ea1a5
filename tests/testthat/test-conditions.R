# The abort helper and the conversion of error values from the binding.

rust_error <- function(class, message, arg = NA_character_, index = NA_integer_,
                       value = NA_character_) {
  structure(
    list(class = class, message = message, arg = arg, index = index, value = value),
    class = "ducksassy_rust_error"
  )
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
  expect_identical(format_value(1:3), "a integer vector of length 3")
  expect_identical(format_value(factor("a")), "a factor")
  # A pattern with braces in an error message does not break cli.
  cnd <- tryCatch(sassy_search("a{b}c", c("{b}", "ab"), k = 3, alphabet = "ascii"), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_input_error")
  expect_match(conditionMessage(cnd), "{b}", fixed = TRUE)
})

test_that("Rust error values become conditions of their class", {
  err <- rust_error(
    "ducksassy_input_error",
    "`texts`[3] has letter \"N\" at position 4 that is not in the dna alphabet",
    arg = "texts", index = 3L, value = "\"N\""
  )
  cnd <- tryCatch(abort_rust_error(err, call = NULL), error = function(e) e)
  expect_s3_class(cnd, "ducksassy_input_error")
  expect_s3_class(cnd, "ducksassy_error")
  expect_identical(cnd$arg, "texts")
  expect_identical(cnd$index, 3L)
  expect_identical(cnd$value, "\"N\"")
  expect_match(conditionMessage(cnd), "`texts`[3] has letter \"N\"", fixed = TRUE)
  expect_match(conditionMessage(cnd), "alphabet = \"iupac\"", fixed = TRUE)

  # A message that does not name the argument gets a location bullet.
  cnd <- tryCatch(
    abort_rust_error(rust_error("ducksassy_input_error", "bad {letter}", "patterns", 2L, "\"}\""), call = NULL),
    error = function(e) e
  )
  expect_match(conditionMessage(cnd), "In `patterns[2]`: \"}\"", fixed = TRUE)
  expect_match(conditionMessage(cnd), "Bad {letter}", fixed = TRUE)

  # Interrupts and limits keep their class.
  # an interrupt is R's kind of condition, not an error: try() and
  # tryCatch(error = ) must not swallow a Ctrl-C inside a loop of searches
  intr <- function() abort_rust_error(rust_error("ducksassy_interrupt", "the search was interrupted"))
  cnd <- tryCatch(intr(), ducksassy_interrupt = function(e) e)
  expect_s3_class(cnd, c("ducksassy_interrupt", "ducksassy_error", "interrupt", "condition"), exact = TRUE)
  expect_identical(conditionMessage(cnd), "The search was interrupted")
  expect_identical(tryCatch(try(intr(), silent = TRUE), interrupt = function(e) "passed through try()"),
                   "passed through try()")
  expect_identical(tryCatch(tryCatch(intr(), error = function(e) "caught as error"), interrupt = function(e) "not an error"),
                   "not an error")
  expect_error(abort_rust_error(rust_error("ducksassy_limit_error", "too many")), class = "ducksassy_limit_error")
  # Anything unexpected is an internal error, never silently ignored.
  expect_error(abort_rust_error(rust_error("weird", "x")), class = "ducksassy_internal_error")
  expect_error(abort_rust_error(list()), class = "ducksassy_internal_error")
  expect_snapshot(error = TRUE, abort_rust_error(rust_error("ducksassy_internal_error", "internal error in ducksassy: boom"), call = NULL))
})

test_that("rust_result() passes ordinary values through", {
  expect_identical(rust_result(1:3), 1:3)
  cnd <- tryCatch(rust_result(rust_error("ducksassy_interrupt", "stop")), condition = identity)
  expect_s3_class(cnd, "ducksassy_interrupt")
})

test_that("result builders reject malformed binding output", {
  expect_error(new_hits(list(record = 1L)), class = "ducksassy_internal_error")
  expect_error(new_counts(1:3, c("a", "b"), "p"), class = "ducksassy_internal_error")
})
