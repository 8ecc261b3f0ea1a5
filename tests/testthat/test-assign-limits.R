# sassy_assign() reduces each record's hits as they are found (issue 23):
# no hit table is built, so the hit limit, which bounds the hits held in
# memory, does not apply to it.

test_that("#23 assign holds no hit table: the hit limit does not apply", {
  set.seed(11)
  texts <- vapply(1:50, function(i) strrep("ACGT", 250), "")
  pats <- c(a = "ACGTACGT", b = "CGTACGTA", c = "TTTTTTTT", d = "GTACGTAC")
  withr::local_options(ducksassy.max_hits = 100)
  expect_error(sassy_search(texts, pats, k = 1), class = "ducksassy_limit_error")
  a <- sassy_assign(texts, pats, k = 1)
  expect_equal(nrow(a), 50)
  # every text has exact hits of a, b and d: ties, so ambiguous
  expect_true(all(a$status == "ambiguous"))
  expect_true(all(a$cost == 0L & a$other_cost == 0L))
  expect_identical(a$pattern, rep(1L, 50))
  expect_identical(a$start, rep(1L, 50))
})
