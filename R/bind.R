# Binding result columns: the one place that puts pieces of a result (the
# chunks of a table scan, the shards of a sharded search) together by rows,
# and that puts the columns that locate a hit (a table's id columns, a
# file's `file`, `record` and `name`) before the hit columns.

#' The key columns of each hit, then the hit columns of sassy_search()
#'
#' @param keys A named list of columns, one value per hit, that take the
#'   place of `hits`' `record` and `name` columns.
#' @param hits A hit data frame (new_hits()).
#' @return A named list of columns.
#' @noRd
with_hit_columns <- function(keys, hits) {
  for (col in setdiff(names(hits), c("record", "name"))) {
    keys[[col]] <- hits[[col]]
  }
  keys
}

#' Bind the chunks' columns into one data frame
#'
#' Column by column, dropping each column of the pieces once it has been
#' copied, so that the pieces and the result are not held twice over.
#' @noRd
combine_pieces <- function(pieces, template) {
  if (length(pieces) == 0L) {
    return(template)
  }
  n <- sum(vapply(pieces, function(p) length(p[[1L]]), numeric(1)))
  out <- vector("list", length(template))
  names(out) <- names(template)
  for (j in seq_along(template)) {
    parts <- vector("list", length(pieces))
    for (p in seq_along(pieces)) {
      parts[p] <- list(pieces[[p]][[j]])
      pieces[[p]][j] <- list(NULL)
    }
    out[[j]] <- combine_column(parts)
    rm(parts)
  }
  new_data_frame(out, n)
}

combine_column <- function(parts) {
  if (length(parts) == 1L) {
    return(parts[[1L]])
  }
  first <- parts[[1L]]
  if (is.data.frame(first)) {
    return(do.call(rbind, unname(parts)))
  }
  x <- do.call(c, unname(parts))
  if (!identical(class(x), class(first)) && is.object(first)) {
    # c() without a method for the class (a list column, say) drops it
    keep <- setdiff(names(attributes(first)), c("names", "dim", "dimnames"))
    attributes(x)[keep] <- attributes(first)[keep]
  }
  names(x) <- NULL
  x
}

# Column names of the patterns in count and contains results, the same for
# vectors, files and tables: their names, pattern_<i> where unnamed, made
# unique.
pattern_columns <- function(patterns) {
  fastx_pattern_columns(patterns, character())
}

# Column names of the patterns: their samples (pattern_samples()) made
# unique against each other and the id columns before them, as
# make.unique(sep = "_") does (`a`, `a_1`). The same names in every verb:
# count columns, assign's `pattern_name` (DESIGN.md, fourth stage).
fastx_pattern_columns <- function(patterns, id_columns) {
  nm <- pattern_samples(patterns)
  all <- make.unique(c(id_columns, nm), sep = "_")
  all[length(id_columns) + seq_along(nm)]
}

# The sample of each pattern: its name, `pattern_<i>` where it has none.
# Patterns of one name are one sample (several barcodes of one sample):
# assignment compares samples, demultiplexing writes one file per sample.
# check_pattern_names() refuses a given name equal to a generated one.
pattern_samples <- function(patterns) {
  nm <- names(patterns)
  if (is.null(nm)) {
    nm <- rep("", length(patterns))
  }
  blank <- is.na(nm) | nm == ""
  nm[blank] <- paste0("pattern_", seq_along(patterns))[blank]
  nm
}

# The 0-based sample of each pattern, as the core's assign plan takes it.
assign_samples <- function(patterns) {
  s <- pattern_samples(patterns)
  match(s, s) - 1L
}
