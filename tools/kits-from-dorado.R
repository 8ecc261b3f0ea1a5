#!/usr/bin/env Rscript
# Builds inst/extdata/dorado-kits.tsv and inst/extdata/dorado-barcodes.tsv,
# the barcoding kits that dorado (Oxford Nanopore's basecaller and
# demultiplexer) defines, from its kit definitions
# (dorado/utils/barcode_kits.cpp). The two tables ship in the package;
# the source file is needed only to rebuild them:
#
#   Rscript tools/kits-from-dorado.R [barcode_kits.cpp] [version]
#
# The file defaults to ../shared/reference/dorado-1.4-barcode_kits.cpp (the
# file of dorado 1.4), the version to "dorado 1.4".
#
# What the file holds, and what the tables keep of it:
# - the flanks (`const std::string NAME = "..."`) and the barcode lists
#   (`const std::vector<std::string> NAME = {...}`) that kits share;
# - `kit_info_map`: each kit name with its KitInfo, written in place or as
#   a shared `const KitInfo`: name of the arrangement, double_ends,
#   ends_different, rear_only_barcodes, rna_barcodes, the four flanks
#   (top_front, top_rear: around the front barcode; bottom_front,
#   bottom_rear: around the rear barcode, both as the strand where the
#   barcode reads forward), the front barcodes' names, the rear barcodes'
#   names (empty: the front's), and its scoring parameters (not kept);
# - `barcodes`: each barcode name with its sequence.
# dorado-kits.tsv has one row per kit (the barcode lists as names joined by
# ","), dorado-barcodes.tsv one row per barcode. R/kits.R turns a kit into
# the rows of a barcode set (dorado_kit_rows()).

args <- commandArgs(trailingOnly = TRUE)
file <- if (length(args) >= 1L) args[[1L]] else "../shared/reference/dorado-1.4-barcode_kits.cpp"
version <- if (length(args) >= 2L) args[[2L]] else "dorado 1.4"
out_dir <- "inst/extdata"
if (!file.exists(file)) stop("no dorado barcode_kits.cpp at ", file)
source_label <- paste0(version, ", dorado/utils/barcode_kits.cpp")

# ---- tokens: string literals, names, numbers, punctuation ------------------
text <- paste(readLines(file, warn = FALSE), collapse = "\n")
text <- gsub("//[^\n]*", "", text) # comments
tok <- regmatches(text, gregexpr('"[^"]*"|[A-Za-z_][A-Za-z0-9_:]*|-?[0-9][0-9.]*f?|[][{}=,;<>()&*.]', text))[[1L]]

is_str <- function(t) startsWith(t, "\"")
unq <- function(t) substr(t, 2L, nchar(t) - 1L)

# A value from token i: a string, a name, a number, or a brace group (a list
# of values). Returns list(value, next).
value_at <- function(i) {
  t <- tok[[i]]
  if (t == "{") {
    items <- list()
    i <- i + 1L
    while (tok[[i]] != "}") {
      v <- value_at(i)
      items[[length(items) + 1L]] <- v$value
      i <- v$i
      if (tok[[i]] == ",") i <- i + 1L
    }
    return(list(value = items, i = i + 1L))
  }
  if (is_str(t)) return(list(value = structure(unq(t), class = "lit"), i = i + 1L))
  # a designated initializer (.field = value): the value
  if (t == "." ) return(value_at(i + 3L))
  list(value = structure(t, class = "name"), i = i + 1L)
}

# `const TYPE NAME = VALUE;` definitions, and `... NAME = {` maps
defs <- list()
for (i in which(tok == "=")) {
  name <- tok[[i - 1L]]
  if (i + 1L > length(tok)) next
  if (tok[[i - 2L]] %in% c("std::string", "KitInfo") || (tok[[i - 2L]] == ">" && tok[[i + 1L]] == "{")) {
    defs[[name]] <- value_at(i + 1L)$value
  }
}

resolve <- function(v) {
  if (inherits(v, "name")) {
    n <- unclass(v)
    if (n %in% c("true", "false")) return(n == "true")
    if (!is.null(defs[[n]])) return(resolve(defs[[n]]))
    return(n)
  }
  if (inherits(v, "lit")) return(unclass(v))
  if (is.list(v)) {
    if (length(v) == 0L) return(character())
    r <- lapply(v, resolve)
    if (all(vapply(r, function(x) is.character(x) && length(x) == 1L, NA))) return(unlist(r))
    return(r)
  }
  v
}

# ---- barcodes ---------------------------------------------------------------
bc <- defs[["barcodes"]]
barcodes <- data.frame(
  barcode = vapply(bc, function(p) unclass(p[[1L]]), ""),
  sequence = vapply(bc, function(p) unclass(p[[2L]]), ""),
  source = source_label,
  stringsAsFactors = FALSE
)
stopifnot(nrow(barcodes) > 0L, !anyDuplicated(barcodes$barcode), all(grepl("^[ACGT]+$", barcodes$sequence)))

# ---- kits -------------------------------------------------------------------
fields <- c("arrangement", "double_ends", "ends_different", "rear_only_barcodes", "rna_barcodes",
  "top_front_flank", "top_rear_flank", "bottom_front_flank", "bottom_rear_flank",
  "barcodes", "barcodes2")
kits <- do.call(rbind, lapply(defs[["kit_info_map"]], function(entry) {
  kit <- unclass(entry[[1L]])
  info <- resolve(entry[[2L]])
  if (length(info) < length(fields)) stop(kit, ": a KitInfo of ", length(info), " fields")
  info <- stats::setNames(info[seq_along(fields)], fields)
  row <- lapply(info, function(x) if (is.logical(x)) x else paste(x, collapse = ","))
  data.frame(kit = kit, row, source = source_label, stringsAsFactors = FALSE)
}))
kits <- kits[order(kits$kit), , drop = FALSE]
flank_ok <- function(x) all(grepl("^[ACGT]*$", x))
stopifnot(
  !anyDuplicated(kits$kit),
  flank_ok(kits$top_front_flank), flank_ok(kits$top_rear_flank),
  flank_ok(kits$bottom_front_flank), flank_ok(kits$bottom_rear_flank)
)
for (col in c("barcodes", "barcodes2")) {
  used <- unlist(strsplit(kits[[col]], ",", fixed = TRUE))
  if (length(setdiff(used, barcodes$barcode))) stop("barcodes without sequence: ", paste(setdiff(used, barcodes$barcode), collapse = ", "))
}

write.table(kits, file.path(out_dir, "dorado-kits.tsv"), sep = "\t", quote = FALSE, row.names = FALSE)
write.table(barcodes, file.path(out_dir, "dorado-barcodes.tsv"), sep = "\t", quote = FALSE, row.names = FALSE)
cat("wrote", nrow(kits), "kits and", nrow(barcodes), "barcodes to", out_dir, "\n")
