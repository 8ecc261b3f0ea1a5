# Small helpers shared by every family.

# The first `n` elements of `x` (utils::head() without importing utils).
utils_head <- function(x, n) {
  x[seq_len(min(length(x), n))]
}
