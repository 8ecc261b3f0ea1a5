# A brute-force oracle for approximate search, in plain R and independent of
# the package: semi-global unit-cost edit distance by dynamic programming.
#
# For a pattern P (length m) and text T (length n):
#   D[0, j] = 0 for all j           (the match may start anywhere in T)
#   D[i, 0] = i                      (every pattern letter must be aligned)
#   D[i, j] = min(D[i-1, j-1] + (P[i] does not match T[j]),
#                 D[i-1, j] + 1,     (P[i] not in the text:  "I")
#                 D[i, j-1] + 1)     (T[j] not in the pattern: "D")
# and D[m, j] is the *end cost* at text position j (j = 0..n).
#
# Letters match per alphabet:
#   dna   A, C, G, T, case-insensitive
#   iupac IUPAC codes (U = T), two codes match if their base sets intersect
#         (N matches everything, X nothing), case-insensitive
#   ascii bytes, exactly or ignoring the case of A-Z/a-z
#
# The oracle is tested on hand-worked cases in test-helper-oracle.R.

# Base sets as bit masks: A = 1, C = 2, G = 4, T = 8.
oracle_iupac_bits <- c(
  A = 1L, C = 2L, G = 4L, T = 8L, U = 8L,
  R = 5L, Y = 10L, S = 6L, W = 9L, K = 12L, M = 3L,
  B = 14L, D = 13L, H = 11L, V = 7L, N = 15L, X = 0L
)

oracle_complement_map <- c(
  A = "T", C = "G", G = "C", T = "A", U = "A",
  R = "Y", Y = "R", S = "S", W = "W", K = "M", M = "K",
  B = "V", V = "B", D = "H", H = "D", N = "N", X = "X"
)

oracle_chars <- function(x) {
  if (is.na(x) || !nzchar(x)) {
    return(character())
  }
  strsplit(x, "", useBytes = TRUE)[[1L]]
}

oracle_ascii_lower <- function(x) {
  chartr("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz", x)
}

oracle_check_letters <- function(chars, alphabet) {
  up <- toupper(chars)
  ok <- switch(alphabet,
    dna = up %in% c("A", "C", "G", "T"),
    iupac = up %in% names(oracle_iupac_bits),
    ascii = vapply(chars, function(ch) all(as.integer(charToRaw(ch)) < 128L), TRUE)
  )
  if (!all(ok)) {
    stop("oracle: letter ", chars[!ok][1L], " is not in the ", alphabet, " alphabet")
  }
  invisible(TRUE)
}

# Elementwise: does letter a[i] match letter b[i]?
oracle_letters_match <- function(a, b, alphabet = "dna", ignore_case = FALSE) {
  switch(alphabet,
    dna = toupper(a) == toupper(b),
    iupac = bitwAnd(
      oracle_iupac_bits[toupper(a)], oracle_iupac_bits[toupper(b)]
    ) > 0L,
    ascii = if (ignore_case) {
      oracle_ascii_lower(a) == oracle_ascii_lower(b)
    } else {
      a == b
    },
    stop("oracle: unknown alphabet ", alphabet)
  )
}

# Letters as integer codes such that two letters match iff
# bitwAnd(code_a, code_b) > 0 (iupac) or code_a == code_b (otherwise).
oracle_codes <- function(chars, alphabet, ignore_case) {
  switch(alphabet,
    dna = match(toupper(chars), c("A", "C", "G", "T")),
    iupac = unname(oracle_iupac_bits[toupper(chars)]),
    ascii = {
      if (ignore_case) chars <- oracle_ascii_lower(chars)
      vapply(chars, function(ch) as.integer(charToRaw(ch)), 0L, USE.NAMES = FALSE)
    }
  )
}

# m x n logical matrix: pattern letter i matches text letter j.
oracle_match_matrix <- function(p, t, alphabet, ignore_case) {
  pc <- oracle_codes(p, alphabet, ignore_case)
  tc <- oracle_codes(t, alphabet, ignore_case)
  out <- matrix(FALSE, length(p), length(t))
  for (i in seq_along(p)) {
    out[i, ] <- if (alphabet == "iupac") bitwAnd(tc, pc[[i]]) > 0L else tc == pc[[i]]
  }
  out
}

#' Minimum edit cost of the pattern ending at each text position 0..n.
#' Returns an integer vector of length nchar(text) + 1; element j + 1 is the
#' end cost at position j.
#'
#' With `overhang = alpha` (iupac only; pass `k` too) the pattern may hang
#' over either text end by up to all of its letters, at the same cost:
#' D[i, 0] = floor(alpha * i) (a pattern prefix of length i before the
#' text), the text is padded on the right with m letters N, and an end
#' position n + o beyond the text costs floor(alpha * o) more. The result
#' then has length n + m + 1. (sassy itself caps the right end at
#' ceiling((k + alpha) / alpha) letters; the package lifts the cap, issue
#' 17.) Use alphas that are exact in binary (0, 0.25, 0.5, ...), as sassy
#' rounds in single precision.
oracle_end_costs <- function(pattern, text, alphabet = "dna", ignore_case = FALSE,
                             overhang = NULL, k = NULL) {
  p <- oracle_chars(pattern)
  t <- oracle_chars(text)
  oracle_check_letters(p, alphabet)
  oracle_check_letters(t, alphabet)
  m <- length(p)
  n <- length(t)
  if (m == 0L) stop("oracle: empty pattern")
  steps <- 0L
  if (!is.null(overhang)) {
    if (alphabet != "iupac" || is.null(k)) stop("oracle: overhang needs iupac and k")
    steps <- m
    t <- c(t, rep("N", steps))
  }
  n_all <- n + steps
  M <- oracle_match_matrix(p, t, alphabet, ignore_case)
  idx <- 0:n_all
  prev <- integer(n_all + 1L) # row 0: all zero
  for (i in seq_len(m)) {
    diag <- prev[seq_len(n_all)] + as.integer(!M[i, ])
    up <- prev[seq_len(n_all) + 1L] + 1L
    first <- if (is.null(overhang)) i else floor(overhang * i)
    e <- c(first, pmin(diag, up))
    # Horizontal moves: D[i, j] = min over l <= j of e[l] + (j - l).
    prev <- as.integer(cummin(e - idx) + idx)
  }
  if (steps > 0L) {
    o <- seq_len(steps)
    prev[n + 1L + o] <- prev[n + 1L + o] + as.integer(floor(overhang * o))
  }
  prev
}

#' Reverse complement for dna/iupac, keeping case.
oracle_revcomp <- function(x) {
  ch <- oracle_chars(x)
  up <- toupper(ch)
  comp <- unname(oracle_complement_map[up])
  if (anyNA(comp)) stop("oracle: cannot complement ", ch[is.na(comp)][1L])
  lower <- ch != up
  comp[lower] <- tolower(comp[lower])
  paste(rev(comp), collapse = "")
}

# End costs per strand: "+" on the text, "-" on its reverse complement.
# (Memoised: the tests ask for the same costs for contains, counts and hits.)
oracle_cache <- new.env(hash = TRUE, parent = emptyenv())

oracle_strand_costs <- function(pattern, text, alphabet = "dna",
                                rc = alphabet != "ascii", ignore_case = FALSE,
                                overhang = NULL, k = NULL) {
  # Keys are short (environment names are limited); the text is compared in
  # full on a hit.
  key <- paste(
    pattern, nchar(text, type = "bytes"), substr(text, 1L, 100L), alphabet,
    rc, ignore_case, if (is.null(overhang)) "" else paste(overhang, k),
    sep = "\r"
  )
  hit <- oracle_cache[[key]]
  if (!is.null(hit) && identical(hit$text, text)) {
    return(hit$out)
  }
  out <- list(`+` = oracle_end_costs(pattern, text, alphabet, ignore_case, overhang, k))
  if (rc) {
    out[["-"]] <- oracle_end_costs(
      pattern, oracle_revcomp(text), alphabet, ignore_case, overhang, k
    )
  }
  assign(key, list(text = text, out = out), envir = oracle_cache)
  out
}

#' Is there an alignment of cost <= k on some searched strand? NA for NA text.
oracle_contains <- function(pattern, text, k, alphabet = "dna",
                            rc = alphabet != "ascii", ignore_case = FALSE,
                            overhang = NULL) {
  if (is.na(text)) {
    return(NA)
  }
  costs <- oracle_strand_costs(pattern, text, alphabet, rc, ignore_case, overhang, k)
  any(vapply(costs, function(cost) any(cost <= k), TRUE))
}

#' Number of end positions 1..n with cost <= k, summed over strands (on "-",
#' positions in the reverse-complement text). End position 0 would need
#' cost m <= k, which k < nchar(pattern) rules out -- except with overhang,
#' where the whole pattern may hang over the start at cost floor(alpha * m),
#' so position 0 counts there (and positions past the text end). NA for NA
#' text.
oracle_count_all_endpoints <- function(pattern, text, k, alphabet = "dna",
                                       rc = alphabet != "ascii",
                                       ignore_case = FALSE, overhang = NULL) {
  if (is.na(text)) {
    return(NA_integer_)
  }
  costs <- oracle_strand_costs(pattern, text, alphabet, rc, ignore_case, overhang, k)
  as.integer(sum(vapply(costs, function(cost) {
    if (is.null(overhang)) sum(cost[-1L] <= k) else sum(cost <= k)
  }, 0L)))
}

#' sassy's "rightmost end of each local minimum" rule over end costs
#' (element j + 1 is position j). Returns end positions in 1..n (0 only with
#' overhang).
#'
#' sassy walks the positions with `decreasing = TRUE` at position 0 and, at
#' each step, reports the previous position when the cost rises after a
#' non-increasing stretch that ended <= k; the last position is reported when
#' the costs were still non-increasing there. In runs of equal costs that is:
#' report the last position of a run with cost <= k when the run was entered
#' downwards (or is the first run) and is left upwards (or is the last run).
oracle_local_minima <- function(costs, k) {
  n <- length(costs) - 1L
  if (n == 0L) {
    return(integer())
  }
  runs <- rle(as.integer(costs))
  v <- runs$values
  last_pos <- cumsum(runs$lengths) - 1L
  r <- length(v)
  entered_down <- c(TRUE, v[-1L] < v[-r])
  left_up <- c(v[-1L] > v[-r], TRUE)
  as.integer(last_pos[v <= k & entered_down & left_up])
}

#' The hits sassy_search() should report for one text and pattern, as a
#' data frame of strand, anchor, cost and pattern_end, where the anchor is
#' `end` on "+" and `start` on "-" (the "-" strand's end position in the
#' reverse complement, mapped back to the forward text). With
#' all_endpoints = TRUE every position with cost <= k is listed instead of
#' the local minima. With overhang, an end position e past the text end
#' (e > n) is reported at n, with pattern_end = m - (e - n).
oracle_hits <- function(pattern, text, k, alphabet = "dna",
                        rc = alphabet != "ascii", ignore_case = FALSE,
                        all_endpoints = FALSE, overhang = NULL) {
  empty <- data.frame(
    strand = character(), anchor = integer(), cost = integer(),
    pattern_end = integer()
  )
  if (is.na(text)) {
    return(empty)
  }
  n <- nchar(text, type = "bytes")
  m <- nchar(pattern, type = "bytes")
  costs <- oracle_strand_costs(pattern, text, alphabet, rc, ignore_case, overhang, k)
  rows <- lapply(names(costs), function(strand) {
    cost <- costs[[strand]]
    ends <- if (all_endpoints) {
      first <- if (is.null(overhang)) 1L else 0L
      which(cost <= k & seq_along(cost) > first) - 1L
    } else {
      oracle_local_minima(cost, k)
    }
    end <- pmin(ends, n)
    anchor <- if (strand == "+") end else n - end + 1L
    data.frame(
      strand = rep(strand, length(ends)),
      anchor = as.integer(anchor),
      cost = as.integer(cost[ends + 1L]),
      pattern_end = as.integer(m - pmax(ends - n, 0L))
    )
  })
  do.call(rbind, c(list(empty), rows))
}

# ---------------------------------------------------------------------------
# CIGAR checks

#' Parse a CIGAR string into counts and operations; errors if malformed.
#' The empty string is the empty alignment (with overhang, a pattern that
#' lies wholly outside the text aligns no letters).
cigar_parse <- function(cigar) {
  if (identical(cigar, "")) {
    return(data.frame(n = integer(), op = character()))
  }
  if (is.na(cigar) || !grepl("^([0-9]+[=XID])+$", cigar)) {
    stop("oracle: malformed CIGAR ", cigar)
  }
  parts <- regmatches(cigar, gregexpr("[0-9]+[=XID]", cigar))[[1L]]
  data.frame(
    n = as.integer(substr(parts, 1L, nchar(parts) - 1L)),
    op = substr(parts, nchar(parts), nchar(parts))
  )
}

#' Edit cost of a CIGAR: the number of X, I and D.
cigar_cost <- function(cigar) {
  ops <- cigar_parse(cigar)
  sum(ops$n[ops$op %in% c("X", "I", "D")])
}

#' Does the CIGAR turn `pattern` into `region`? `=` and `X` consume a letter
#' of both (which must match, respectively must not match, under the
#' alphabet), `I` a pattern letter only, `D` a text letter only; both must be
#' used up exactly. Returns TRUE, or a string saying what is wrong.
cigar_apply <- function(pattern, region, cigar, alphabet = "dna", ignore_case = FALSE) {
  p <- oracle_chars(pattern)
  t <- oracle_chars(region)
  ops <- tryCatch(cigar_parse(cigar), error = function(e) NULL)
  if (is.null(ops)) {
    return(paste0("malformed CIGAR ", cigar))
  }
  i <- 0L
  j <- 0L
  for (r in seq_len(nrow(ops))) {
    op <- ops$op[[r]]
    for (step in seq_len(ops$n[[r]])) {
      if (op %in% c("=", "X")) {
        if (i >= length(p) || j >= length(t)) {
          return(paste0("CIGAR ", cigar, " runs past the pattern or region"))
        }
        same <- oracle_letters_match(p[[i + 1L]], t[[j + 1L]], alphabet, ignore_case)
        if (op == "=" && !same) {
          return(sprintf(
            "CIGAR %s: '=' at pattern %d (%s) vs region %d (%s), which differ",
            cigar, i + 1L, p[[i + 1L]], j + 1L, t[[j + 1L]]
          ))
        }
        if (op == "X" && same) {
          return(sprintf(
            "CIGAR %s: 'X' at pattern %d (%s) vs region %d (%s), which match",
            cigar, i + 1L, p[[i + 1L]], j + 1L, t[[j + 1L]]
          ))
        }
        i <- i + 1L
        j <- j + 1L
      } else if (op == "I") {
        if (i >= length(p)) {
          return(paste0("CIGAR ", cigar, " inserts past the pattern end"))
        }
        i <- i + 1L
      } else {
        if (j >= length(t)) {
          return(paste0("CIGAR ", cigar, " deletes past the region end"))
        }
        j <- j + 1L
      }
    }
  }
  if (i != length(p) || j != length(t)) {
    return(sprintf(
      "CIGAR %s uses %d of %d pattern letters and %d of %d region letters",
      cigar, i, length(p), j, length(t)
    ))
  }
  TRUE
}

# ---------------------------------------------------------------------------
# Random inputs

oracle_random_strings <- function(n, min_len, max_len, letters, prob = NULL) {
  vapply(seq_len(n), function(i) {
    len <- if (max_len > min_len) sample(min_len:max_len, 1L) else min_len
    paste(sample(letters, len, replace = TRUE, prob = prob), collapse = "")
  }, "")
}

# Copy substrings of the patterns, with a few random edits, into the texts so
# that there are hits to find.
oracle_plant <- function(texts, patterns, letters, n_edits = 2L) {
  for (r in seq_along(texts)) {
    if (is.na(texts[[r]]) || runif(1) < 0.3) next
    p <- oracle_chars(sample(patterns, 1L))
    for (e in seq_len(sample(0:n_edits, 1L))) {
      pos <- sample(seq_len(length(p)), 1L)
      kind <- sample(c("sub", "ins", "del"), 1L)
      if (kind == "sub") p[pos] <- sample(letters, 1L)
      if (kind == "ins") p <- append(p, sample(letters, 1L), after = pos)
      if (kind == "del" && length(p) > 1L) p <- p[-pos]
    }
    t <- oracle_chars(texts[[r]])
    at <- sample(0:length(t), 1L)
    texts[[r]] <- paste(append(t, p, after = at), collapse = "")
  }
  texts
}

# ---------------------------------------------------------------------------
# Substitutions only (indels = FALSE)

#' Every placement of the whole pattern on nchar(pattern) consecutive letters
#' of the text with at most k mismatches (Hamming distance), as a data frame
#' of strand, start, end (1-based, on the forward text) and cost. On "-" the
#' pattern is compared with the reverse complement of the text. With
#' `max_n_frac`, placements whose window has a larger fraction of N are
#' dropped. `pam` (CRISPR): the last `pam` letters of the pattern must match
#' exactly (and count no mismatch), unless `pam_edits`.
oracle_hamming_hits <- function(pattern, text, k, alphabet = "dna",
                                rc = alphabet != "ascii", ignore_case = FALSE,
                                max_n_frac = NULL, pam = 0L,
                                pam_edits = FALSE) {
  empty <- data.frame(
    strand = character(), start = integer(), end = integer(),
    cost = integer()
  )
  if (is.na(text)) {
    return(empty)
  }
  p <- oracle_chars(pattern)
  m <- length(p)
  n <- nchar(text, type = "bytes")
  if (n < m) {
    return(empty)
  }
  strands <- if (rc) c("+", "-") else "+"
  rows <- lapply(strands, function(strand) {
    t <- oracle_chars(if (strand == "+") text else oracle_revcomp(text))
    out <- empty
    for (s in seq_len(n - m + 1L)) {
      w <- t[s:(s + m - 1L)]
      ok <- oracle_letters_match(p, w, alphabet, ignore_case)
      spacer <- seq_len(m - if (pam_edits) 0L else pam)
      if (!all(ok[-spacer])) next
      cost <- sum(!ok[spacer])
      if (cost > k) next
      if (!is.null(max_n_frac) && mean(toupper(w) == "N") > max_n_frac) next
      start <- if (strand == "+") s else n - (s + m - 1L) + 1L
      out <- rbind(out, data.frame(
        strand = strand, start = as.integer(start),
        end = as.integer(start + m - 1L), cost = as.integer(cost)
      ))
    }
    out
  })
  do.call(rbind, c(list(empty), rows))
}
