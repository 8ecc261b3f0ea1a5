# This file is part of the standard setup for testthat.
# It is recommended that you do not modify it.
#
# Where should you do additional testing?
# Please refer to testthat.R's documentation:
# * https://testthat.r-lib.org/reference/test_package.html#special-files
# * https://testthat.r-lib.org/articles/special-files.html

library(testthat)
library(ducksassy)

test_check("ducksassy")
