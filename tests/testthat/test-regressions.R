# Regression tests: one test per bug found, named after the bug (issue or
# report number and a short description), with the smallest input that
# showed it and a comment saying what went wrong and what is expected:
#
#   test_that("#12: - strand hit lost at a 64-letter block border", {
#     # got no hit, expected start 60, end 71 on "-"
#     ...
#   })
#
# Tests are added here when a bug is fixed and never removed.
