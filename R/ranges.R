#' Hit tables as GRanges and IRanges
#'
#' @description
#' Turn a hit table of [sassy_search()], [sassy_crispr()],
#' [sassy_search_fastx()] or [sassy_search_table()] into Bioconductor ranges,
#' and back:
#'
#' * `as_granges()`: a `GenomicRanges::GRanges` with the texts' names as
#'   `seqnames`, `start`-`end` as ranges, the hit's `strand`, and every other
#'   column as metadata columns (`mcols()`).
#' * `as_iranges()`: an `IRanges::IRanges` with `start`-`end`, the texts'
#'   names as `names()`, every other column as metadata columns.
#' * `as_hits()`: the hit table again from either, with the columns in their
#'   original order: `as_hits(as_granges(hits))` is identical to `hits`.
#'
#' Coordinates need no arithmetic: hits are 1-based and inclusive, as ranges
#' in Bioconductor are (an empty region, possible only with `overhang`, has
#' `end = start - 1` and width 0).
#'
#' @section Sequence names:
#' `seqnames` come from the `name` column (the names of `texts`, the FASTA
#' ids). Without one (unnamed texts) they are the record numbers, as text
#' (`"1"`, `"2"`, ...). A hit table of [sassy_search_table()] has neither:
#' its rows are identified by the table's `id` columns, so name the column
#' to use with `seqnames = "chrom"`; several columns are pasted with `":"`
#' (`seqnames = c("sample", "read")` gives `"s1:r7"`) and also kept as
#' metadata columns. Without a column to name the sequences by it is an
#' error that lists the table's columns. `seqinfo` adds the sequence lengths
#' (and fixes the order of the levels): a `Seqinfo` object, a named vector of
#' lengths, or the `XStringSet` that was searched, whose names and widths are
#' used. Every name in the hits must be in it. Without it, the lengths of
#' the named texts or file records that were searched are used when the hit
#' table carries them (its attribute `"seqlengths"`), so that the ranges can
#' be exported (e.g. `rtracklayer::export(gr, "hits.bed")`) and viewed in a
#' genome browser.
#'
#' Hits of several files ([sassy_search_fastx()] with several `paths`) keep
#' their `file` column as metadata, but `seqnames` are names only: a record
#' name that occurs in two files (`chr1` of two assemblies) becomes one
#' sequence. `as_granges()` warns (class `ducksassy_warning`) when that
#' happens; convert the files' hits one by one (`split(hits, hits$file)`).
#' In the same way, texts (or records of one file) that share a name become
#' one sequence, whose length is unknown when theirs differ: `as_granges()`
#' warns (class `ducksassy_duplicate_names_warning`, a `ducksassy_warning`;
#' its `names` field lists the names); make the names unique
#' ([make.unique()]) or give `seqnames = "record"`.
#'
#' @param hits A hit table: a data frame with (at least) the columns
#'   `start`, `end`, and for `as_granges()` `strand` and `name` or `record`.
#' @param seqinfo `NULL` (default): the sequence lengths the hit table
#'   carries, when it comes from named texts or from files (the lengths of
#'   the sequences with hits), else none. Or a `GenomeInfoDb::Seqinfo`, a
#'   named numeric vector of sequence lengths, or a Biostrings `XStringSet`.
#' @param seqnames `NULL` (default: the `name` column, else `record`), or the
#'   name(s) of the column(s) of `hits` that name the sequences, e.g. the `id`
#'   column of a [sassy_search_table()] result; see *Sequence names*.
#' @param ... Not used: an unknown argument is an error naming it and the
#'   argument meant, as for [sassy_search()].
#' @param x A `GRanges` or `IRanges` made by `as_granges()` or
#'   `as_iranges()` (or any with `start`, `end` and metadata columns).
#'
#' @return `as_granges()`: a `GRanges`, one range per hit, in the order of
#'   the rows. `as_iranges()`: an `IRanges`. `as_hits()`: a data frame.
#'   The column order of the hit table is kept in the ranges' `metadata()`
#'   as `ducksassy_columns`.
#' @section Errors:
#' Without the suggested package (GenomicRanges for `as_granges()`, IRanges
#' for `as_iranges()`) an error of class `ducksassy_dependency_error` says
#' how to install it. A `hits` that is not a data frame, lacks a needed
#' column, has a missing name, or has a column whose name the ranges reserve
#' (`seqnames`, `ranges`, `width`, ...) is a `ducksassy_input_error` naming
#' the column.
#' @seealso [sassy_search()], [sassy_crispr()]
#' @export
#' @examples
#' texts <- c(chr1 = "AAAATTGAAAGGATCGA", chr2 = "CCCATCACCC")
#' hits <- sassy_search(texts, "ATCG", k = 1)
#' if (requireNamespace("GenomicRanges", quietly = TRUE)) {
#'   gr <- as_granges(hits, seqinfo = nchar(texts))
#'   gr
#'   identical(as_hits(gr), hits)
#' }
#' if (requireNamespace("IRanges", quietly = TRUE)) {
#'   as_iranges(hits)
#' }
as_granges <- function(hits, seqinfo = NULL, seqnames = NULL, ...) {
  call <- rlang::current_env()
  check_full_arg_names(sys.call(), parent.frame(), .fn = "as_granges", .call = call)
  check_no_extra_args(..., .fn = "as_granges", .call = call)
  check_suggested("GenomicRanges", "for `as_granges()`", call = call)
  check_hit_table(hits, c("start", "end", "strand"), call = call)
  by <- seqnames_column(hits, seqnames, call = call)
  seqnames <- if (length(by) == 1L) {
    as.character(hits[[by]])
  } else {
    do.call(paste, c(lapply(hits[by], as.character), sep = ":"))
  }
  warn_names_across_files(hits, seqnames, call = call)
  if (identical(by, "name")) {
    warn_duplicate_names(hits, seqnames, call = call)
  }
  strand <- check_strand_column(hits$strand, call = call)
  if (is.null(seqinfo) && identical(by, "name")) {
    # the lengths of the texts or file records searched, when known
    seqinfo <- known_seqlengths(hits, seqnames)
  }
  seqinfo <- as_seqinfo(seqinfo, seqnames, call = call)
  levels <- if (is.null(seqinfo)) unique(seqnames) else GenomeInfoDb_seqnames(seqinfo)
  # several columns stay as metadata: the pasted name cannot give them back
  rest <- setdiff(names(hits), c(if (length(by) == 1L) by, "start", "end", "strand"))
  check_reserved(rest, c("seqnames", "ranges", "strand", "seqinfo", "seqlengths",
    "start", "end", "width", "element", "names"), call = call)
  args <- list(
    seqnames = factor(seqnames, levels = levels),
    ranges = IRanges::IRanges(start = as.integer(hits$start), end = as.integer(hits$end)),
    strand = strand
  )
  if (!is.null(seqinfo)) {
    args$seqinfo <- seqinfo
  }
  gr <- do.call(GenomicRanges::GRanges, c(args, as.list(hits)[rest]))
  gr@metadata <- list(
    ducksassy_columns = names(hits),
    ducksassy_seqnames = if (length(by) == 1L) by,
    ducksassy_seqnames_type = if (length(by) == 1L) typeof(hits[[by]]),
    ducksassy_seqlengths = attr(hits, "seqlengths")
  )
  gr
}

#' @rdname as_granges
#' @export
as_iranges <- function(hits, ...) {
  call <- rlang::current_env()
  check_full_arg_names(sys.call(), parent.frame(), .fn = "as_iranges", .call = call)
  check_no_extra_args(..., .fn = "as_iranges", .call = call)
  check_suggested("IRanges", "for `as_iranges()`", call = call)
  check_hit_table(hits, c("start", "end"), call = call)
  seq_names <- NULL
  rest <- setdiff(names(hits), c("start", "end"))
  if ("name" %in% names(hits)) {
    seq_names <- as.character(hits$name)
    rest <- setdiff(rest, "name")
  }
  check_reserved(rest, c("start", "end", "width", "names"), call = call)
  ir <- do.call(IRanges::IRanges, c(
    list(start = as.integer(hits$start), end = as.integer(hits$end), names = seq_names),
    as.list(hits)[rest]
  ))
  ir@metadata <- list(
    ducksassy_columns = names(hits),
    ducksassy_seqnames = if (!is.null(seq_names)) "name",
    ducksassy_seqlengths = attr(hits, "seqlengths")
  )
  ir
}

#' @rdname as_granges
#' @export
as_hits <- function(x) {
  call <- rlang::current_env()
  if (!isS4(x) || !(inherits(x, "GRanges") || inherits(x, "IRanges"))) {
    ducksassy_abort(
      c(
        "`x` must be a GRanges or IRanges object.",
        x = paste0("`x` is ", describe_type(x), ".")
      ),
      arg = "x",
      call = call
    )
  }
  # the slots of S4Vectors' Vector and DataFrame (their accessors are not
  # exported by the packages ducksassy suggests)
  meta <- x@metadata
  mc <- x@elementMetadata
  cols <- if (is.null(mc)) list() else mc@listData
  cols$start <- as.integer(BiocGenerics_start(x))
  cols$end <- as.integer(BiocGenerics_end(x))
  by <- meta$ducksassy_seqnames
  if (inherits(x, "GRanges")) {
    check_suggested("GenomicRanges", "for `as_hits()`", call = call)
    cols$strand <- as.character(GenomicRanges::strand(x))
    seqnames <- as.character(GenomicRanges::seqnames(x))
    type <- meta$ducksassy_seqnames_type
    if (identical(by, "record")) {
      cols$record <- as.integer(seqnames)
    } else if (is.character(by) && length(by) == 1L &&
      is.character(type) && type %in% c("integer", "double", "logical")) {
      # a column named by `seqnames =` (a table's id), back in its type
      cols[[by]] <- switch(type,
        integer = as.integer(seqnames),
        double = as.double(seqnames),
        logical = as.logical(seqnames)
      )
    } else if (is.character(by) && length(by) == 1L) {
      cols[[by]] <- seqnames
    } else if (!"ducksassy_seqnames" %in% names(meta)) {
      cols$name <- seqnames
    }
  } else if (!is.null(names(x))) {
    cols$name <- names(x)
  }
  order <- meta$ducksassy_columns
  if (is.character(order) && setequal(order, names(cols))) {
    cols <- cols[order]
  }
  out <- new_data_frame(cols, length(cols$start))
  if (!is.null(meta$ducksassy_seqlengths)) {
    attr(out, "seqlengths") <- meta$ducksassy_seqlengths
  }
  out
}

#' The `seqlengths` attribute of a hit table (see with_text_lengths()) when
#' it names every sequence with hits; else NULL
#' @noRd
known_seqlengths <- function(hits, seqnames) {
  sl <- attr(hits, "seqlengths", exact = TRUE)
  if (!is.numeric(sl) || is.null(names(sl)) || !all(unique(seqnames) %in% names(sl))) {
    return(NULL)
  }
  sl
}

# ---------------------------------------------------------------------------
# Helpers

check_hit_table <- function(hits, needed, call) {
  if (!is.data.frame(hits)) {
    ducksassy_abort(
      c(
        "`hits` must be a data frame of hits.",
        x = paste0("`hits` is ", describe_type(hits), ".")
      ),
      arg = "hits",
      call = call
    )
  }
  missing <- setdiff(needed, names(hits))
  if (length(missing) > 0L) {
    ducksassy_abort(
      c(
        "`hits` must have the columns of a hit table.",
        x = paste0("`hits` has no column `", missing[[1L]], "`.")
      ),
      arg = "hits",
      value = missing[[1L]],
      call = call
    )
  }
  for (col in intersect(c("start", "end"), needed)) {
    v <- hits[[col]]
    if (!is.numeric(v) || anyNA(v)) {
      bad <- if (is.numeric(v)) which(is.na(v))[[1L]]
      ducksassy_abort(
        c(
          paste0("`hits$", col, "` must be whole numbers without `NA`."),
          x = if (is.null(bad)) {
            paste0("`hits$", col, "` is ", describe_type(v), ".")
          } else {
            paste0("`hits$", col, "[", bad, "]` is NA.")
          }
        ),
        arg = "hits",
        index = bad,
        value = col,
        call = call
      )
    }
  }
  invisible(hits)
}

# The column(s) that name the sequences: `seqnames` when given, else `name`,
# else `record`.
seqnames_column <- function(hits, seqnames, call) {
  if (!is.null(seqnames)) {
    if (!is.character(seqnames) || length(seqnames) == 0L || anyNA(seqnames) ||
      any(seqnames == "")) {
      abort_scalar("seqnames", "NULL or the names of columns of `hits`", seqnames, call)
    }
    missing <- setdiff(seqnames, names(hits))
    if (length(missing) > 0L) {
      ducksassy_abort(
        c(
          "`seqnames` must name columns of `hits`.",
          x = paste0("`hits` has no column ", format_value(missing[[1L]]), "."),
          i = paste0("Its columns are ", paste0("`", cli_escape(names(hits)), "`", collapse = ", "), ".")
        ),
        arg = "seqnames",
        value = missing[[1L]],
        call = call
      )
    }
    by <- unique(as.vector(seqnames))
  } else {
    by <- if ("name" %in% names(hits)) "name" else if ("record" %in% names(hits)) "record"
  }
  if (is.null(by)) {
    ducksassy_abort(
      c(
        "`hits` must have a `name` or a `record` column to name the sequences, or `seqnames` must name the column(s) to use.",
        i = paste0(
          "A hit table of `sassy_search_table()` has the table's id columns instead: e.g. `as_granges(hits, seqnames = \"",
          cli_escape(c(setdiff(names(hits), c(hit_columns, "file")), "id")[[1L]]), "\")`."
        ),
        i = paste0("The columns of `hits` are ", paste0("`", cli_escape(names(hits)), "`", collapse = ", "), ".")
      ),
      arg = "hits",
      call = call
    )
  }
  for (col in by) {
    check_seqnames_values(hits, col, call)
  }
  by
}

check_seqnames_values <- function(hits, by, call) {
  bad <- which(is.na(hits[[by]]) | as.character(hits[[by]]) == "")
  if (length(bad) > 0L) {
    i <- bad[[1L]]
    ducksassy_abort(
      c(
        paste0("`hits$", by, "` must not be missing or empty: it names the sequence."),
        x = paste0("`hits$", by, "[", i, "]` is ", format_value(hits[[by]][[i]]), "."),
        more_bullet(bad)
      ),
      arg = "hits",
      index = i,
      value = hits[[by]][[i]],
      call = call
    )
  }
  by
}

check_strand_column <- function(strand, call) {
  strand <- as.character(strand)
  bad <- which(is.na(strand) | !(strand %in% c("+", "-", "*")))
  if (length(bad) > 0L) {
    i <- bad[[1L]]
    ducksassy_abort(
      c(
        "`hits$strand` must be \"+\", \"-\" or \"*\".",
        x = paste0("`hits$strand[", i, "]` is ", format_value(strand[[i]]), ".")
      ),
      arg = "hits",
      index = i,
      value = strand[[i]],
      call = call
    )
  }
  strand
}

check_reserved <- function(cols, reserved, call) {
  bad <- intersect(cols, reserved)
  if (length(bad) > 0L) {
    ducksassy_abort(
      c(
        paste0("`hits` has a column named `", bad[[1L]], "`, a name the ranges reserve."),
        i = "Rename the column first."
      ),
      arg = "hits",
      value = bad[[1L]],
      call = call
    )
  }
}

#' `seqinfo` as a Seqinfo (or NULL), checked against the hits' seqnames
#' @noRd
as_seqinfo <- function(seqinfo, seqnames, call) {
  if (is.null(seqinfo)) {
    return(NULL)
  }
  if (is_xstringset(seqinfo)) {
    lengths <- Biostrings::width(seqinfo)
    names(lengths) <- names(seqinfo)
    seqinfo <- lengths
  }
  if (is.numeric(seqinfo) && !isS4(seqinfo)) {
    nm <- names(seqinfo)
    if (is.null(nm) || anyNA(nm) || any(nm == "") || anyDuplicated(nm) ||
      anyNA(seqinfo) || any(seqinfo < 0)) {
      ducksassy_abort(
        c(
          "`seqinfo` must be a Seqinfo, or sequence lengths named by sequence (unique, non-missing names).",
          x = "`seqinfo` has missing, empty or repeated names, or missing or negative lengths."
        ),
        arg = "seqinfo",
        call = call
      )
    }
    seqinfo <- GenomeInfoDb_Seqinfo(nm, as.integer(seqinfo))
  }
  if (!isS4(seqinfo) || !inherits(seqinfo, "Seqinfo")) {
    ducksassy_abort(
      c(
        "`seqinfo` must be NULL, a Seqinfo, named sequence lengths or an XStringSet.",
        x = paste0("`seqinfo` is ", describe_type(seqinfo), ".")
      ),
      arg = "seqinfo",
      call = call
    )
  }
  known <- GenomeInfoDb_seqnames(seqinfo)
  bad <- setdiff(unique(seqnames), known)
  if (length(bad) > 0L) {
    ducksassy_abort(
      c(
        "`seqinfo` must name every sequence that has hits.",
        x = paste0("Sequence ", format_value(bad[[1L]]), " is not in `seqinfo`."),
        if (length(bad) > 1L) c(i = paste0("And ", length(bad) - 1L, " more."))
      ),
      arg = "seqinfo",
      value = bad[[1L]],
      call = call
    )
  }
  seqinfo
}

# GenomeInfoDb is a dependency of GenomicRanges (always there when it is);
# reached through getExportedValue() so that it need not be declared.
GenomeInfoDb_Seqinfo <- function(seqnames, seqlengths) {
  getExportedValue("GenomeInfoDb", "Seqinfo")(seqnames = seqnames, seqlengths = seqlengths)
}

GenomeInfoDb_seqnames <- function(seqinfo) {
  getExportedValue("GenomeInfoDb", "seqnames")(seqinfo)
}

# start() and end() are BiocGenerics generics, exported by IRanges.
BiocGenerics_start <- function(x) IRanges::start(x)
BiocGenerics_end <- function(x) IRanges::end(x)

#' Warn when one name is given to several texts (records of one file)
#'
#' `as_granges()` names the sequences by the `name` column, so two texts
#' named alike (`c(a = "...", a = "...")`, a FASTA file with a repeated id)
#' become one sequence; their lengths, when they differ, are then unknown.
#' The multi-file case is warn_names_across_files()'s.
#' @noRd
warn_duplicate_names <- function(hits, seqnames, call) {
  record <- hits[["record"]]
  if (is.null(record) || length(record) < 2L) {
    return(invisible())
  }
  file <- hits[["file"]]
  file <- if (is.null(file)) rep("", length(record)) else as.character(file)
  pairs <- unique(data.frame(name = seqnames, file = file, record = record))
  dup <- duplicated(pairs[c("name", "file")])
  shared <- unique(pairs$name[dup])
  if (length(shared) == 0L) {
    return(invisible())
  }
  cli::cli_warn(
    c(
      "{length(shared)} sequence name{?s} {?is/are} given to several texts and become{?s/} one sequence each: {.val {utils::head(shared, 5)}}{if (length(shared) > 5) ', ...'}.",
      x = "Their hits are merged into one sequence, whose length is unknown when the texts' lengths differ.",
      i = "The {.field record} column is kept as metadata; to keep the texts apart, make the names unique ({.code make.unique(names(texts))}) or use {.code seqnames = \"record\"}."
    ),
    class = c("ducksassy_duplicate_names_warning", "ducksassy_warning"),
    names = shared,
    call = call
  )
}

#' Warn when the same sequence name comes from several files
#'
#' seqnames cannot say which file a hit came from, so equal record names of
#' different files (say `chr1` of two assemblies) would silently become one
#' sequence in the ranges.
#' @noRd
warn_names_across_files <- function(hits, seqnames, call) {
  file <- hits[["file"]]
  if (is.null(file) || length(unique(file)) < 2L) {
    return(invisible())
  }
  pairs <- unique(data.frame(name = seqnames, file = as.character(file)))
  shared <- unique(pairs$name[duplicated(pairs$name)])
  if (length(shared) == 0L) {
    return(invisible())
  }
  cli::cli_warn(
    c(
      "{length(shared)} sequence name{?s} occur{?s/} in several files and become one sequence each: {.val {utils::head(shared, 5)}}{if (length(shared) > 5) ', ...'}.",
      i = "The {.field file} column is kept as metadata; to keep the files apart, convert each file's hits on its own: {.code lapply(split(hits, hits$file), as_granges)}."
    ),
    class = "ducksassy_warning",
    call = call
  )
}
