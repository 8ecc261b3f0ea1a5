# dorado's custom barcode arrangements (issue 46): the arrangement file
# (TOML) and the barcode sequences (FASTA) that `dorado demux
# --barcode-arrangement --barcode-sequences` takes, read into a barcode set
# by the rows of dorado_kit_rows() (R/kits.R), as dorado's own kits are.

#' A barcode set from dorado's custom barcode arrangement files
#'
#' Reads the two files a custom kit gives dorado, `dorado demux
#' --barcode-arrangement arrangement.toml --barcode-sequences
#' sequences.fasta`, into a barcode set for the assign and demultiplex
#' verbs: the arrangement's flanks, barcodes and ends as dorado arranges
#' them (see [sassy_kits()], *The kits and their sources*).
#'
#' @section The arrangement file:
#' Its `[arrangement]` table, as dorado's documentation
#' (`documentation/CustomBarcodes.md`) describes it:
#' - `name`: the arrangement's name, which dorado's sample names begin
#'   with (`name_barcode01`; the set's `kit` attribute), `kit` its class;
#' - `mask1_front`, `mask1_rear`: the flanks before and after the front
#'   barcode, `barcode1_pattern` (`"BC%02i"`) its barcodes' names, numbered
#'   `first_index` to `last_index`;
#' - `mask2_front`, `mask2_rear`, `barcode2_pattern` (all three, or none):
#'   a double-ended arrangement, the rear barcode and its flanks, written
#'   on the strand where it reads forward (the read's end shows their
#'   reverse complement). Where they equal the front's, the rows are
#'   `ends = "both"`; else a `"front"` and a `"rear"` row per barcode, under
#'   one name;
#' - `rear_only_barcodes = true`: a single-ended arrangement whose barcode
#'   is at the read's 3' end, reading forward (RNA kits): its rows are
#'   `"rear"`, reverse complemented.
#'
#' Its `[scoring]` table is dorado's own scoring and is not used (the
#' verbs' `k`, `margin` and the set's `error_rate` decide). The reader
#' knows the TOML that these files use: tables (`[name]`), `key = value`
#' lines with a string (`"..."` or `'...'`), a whole number, a number or
#' `true`/`false`, and `#` comments; anything else is an error.
#'
#' @section The sequences:
#' A FASTA (or FASTQ) file of barcodes, named as the patterns name them
#' (`>MY-BC01`). A name of the arrangement that the file lacks is looked up
#' in dorado's own barcodes (`BC01`, `NB01`, ..., shipped with the package
#' from dorado's source), so an arrangement of dorado's barcodes needs no
#' file (`sequences = NULL`).
#'
#' @param arrangement The path of the arrangement file (TOML).
#' @param sequences The path of the barcode sequences (FASTA or FASTQ,
#'   may be gzipped), or `NULL`: dorado's barcodes only.
#' @param error_rate,flank_length As in [sassy_kit()].
#' @return A barcode set (see [sassy_kits()]) whose names are dorado's
#'   (`barcode01`: `barcode` and the digits that end the barcode's name),
#'   with attribute `kit` the arrangement's `name`.
#' @seealso [sassy_kit()] for dorado's built-in kits; the `names` argument
#'   of the assign and demultiplex verbs.
#' @export
#' @examples
#' toml <- tempfile(fileext = ".toml")
#' writeLines(c(
#'   "[arrangement]",
#'   "name = \"my_kit\"",
#'   "kit = \"MY\"",
#'   "mask1_front = \"GGTGCTGAAC\"",
#'   "mask1_rear = \"CCTTAACCGG\"",
#'   "barcode1_pattern = \"MY-BC%02i\"",
#'   "first_index = 1",
#'   "last_index = 2"
#' ), toml)
#' fasta <- tempfile(fileext = ".fasta")
#' writeLines(c(">MY-BC01", "ACGTACGTACGTACGT", ">MY-BC02", "TTGCAATTGCAAGGCC"), fasta)
#' set <- sassy_barcodes_dorado(toml, fasta)
#' set
#' reads <- paste0("GGTGCTGAAC", "TTGCAATTGCAAGGCC", "CCTTAACCGG", strrep("A", 60))
#' sassy_assign(reads, set, ends = 40, names = "dorado")[, c("sample", "status")]
sassy_barcodes_dorado <- function(arrangement, sequences = NULL, error_rate = 0.27,
                                  flank_length = 16L) {
  call <- rlang::current_env()
  check_path_arg(arrangement, "arrangement", call)
  if (!is.null(sequences)) check_path_arg(sequences, "sequences", call)
  error_rate <- check_error_rate(error_rate, call)
  if (!is.numeric(flank_length) || length(flank_length) != 1L || is.na(flank_length) || flank_length < 0) {
    abort_scalar("flank_length", "a single number >= 0 (`Inf` for the whole flanks)", flank_length, call)
  }
  toml <- read_toml_subset(arrangement, call)
  a <- toml[["arrangement"]]
  bad_file <- function(what) {
    ducksassy_abort(
      c(
        "`arrangement` must be a dorado barcode arrangement file.",
        x = paste0(format_value(arrangement), " ", what, "."),
        i = "See dorado's documentation/CustomBarcodes.md, or `?sassy_barcodes_dorado`."
      ),
      class = c("ducksassy_arrangement_error", "ducksassy_input_error"),
      arg = "arrangement", value = arrangement, call = call
    )
  }
  if (is.null(a)) bad_file("has no [arrangement] table")
  str_key <- function(key, required = TRUE) {
    v <- a[[key]]
    if (is.null(v)) {
      if (required) bad_file(paste0("has no `", key, "`"))
      return(NULL)
    }
    if (!is.character(v)) bad_file(paste0("has a `", key, "` that is not a string"))
    v
  }
  int_key <- function(key) {
    v <- a[[key]]
    if (is.null(v)) bad_file(paste0("has no `", key, "`"))
    if (!is.numeric(v) || v != round(v)) bad_file(paste0("has a `", key, "` that is not a whole number"))
    as.integer(v)
  }
  name <- str_key("name")
  first <- int_key("first_index")
  last <- int_key("last_index")
  if (first > last) bad_file("has `first_index` > `last_index`")
  pattern_names <- function(p) {
    if (!grepl("^[^%]*%[0-9]*i$", p)) {
      bad_file(paste0("has a barcode pattern ", format_value(p), " not of the form prefix%02i"))
    }
    sprintf(p, seq(first, last))
  }
  b1p <- str_key("barcode1_pattern")
  tf <- toupper(str_key("mask1_front"))
  tr <- toupper(str_key("mask1_rear"))
  second <- c("mask2_front", "mask2_rear", "barcode2_pattern")
  has2 <- second %in% names(a)
  if (any(has2) && !all(has2)) bad_file("sets some of mask2_front, mask2_rear and barcode2_pattern, not all three")
  rear_only <- isTRUE(a[["rear_only_barcodes"]])
  b1 <- pattern_names(b1p)
  k <- list(
    kit = name, arrangement = str_key("kit", FALSE) %||% name, double_ends = all(has2), ends_different = FALSE,
    rear_only_barcodes = rear_only, top_front_flank = tf, top_rear_flank = tr,
    bottom_front_flank = "", bottom_rear_flank = "", barcodes = paste(b1, collapse = ","), barcodes2 = "",
    source = paste0("dorado arrangement ", basename(arrangement))
  )
  if (all(has2)) {
    b2p <- str_key("barcode2_pattern")
    k$bottom_front_flank <- toupper(str_key("mask2_front"))
    k$bottom_rear_flank <- toupper(str_key("mask2_rear"))
    k$barcodes2 <- paste(pattern_names(b2p), collapse = ",")
    k$ends_different <- k$bottom_front_flank != tf || k$bottom_rear_flank != tr || b2p != b1p
  }
  for (f in c("top_front_flank", "top_rear_flank", "bottom_front_flank", "bottom_rear_flank")) {
    if (!grepl("^[ACGTURYSWKMBDHVN]*$", k[[f]])) bad_file(paste0("has a flank that is not DNA or IUPAC letters: ", format_value(k[[f]])))
  }
  # the sequences: the file's, then dorado's own
  known <- dorado_table()$barcodes[c("barcode", "sequence")]
  if (!is.null(sequences)) {
    r <- sassy_read_fastx(sequences)
    own <- data.frame(barcode = sub("[[:space:]].*", "", r$name), sequence = toupper(r$sequence), stringsAsFactors = FALSE)
    known <- rbind(own, known[!known$barcode %in% own$barcode, , drop = FALSE])
  }
  wanted <- unique(c(b1, strsplit(k$barcodes2, ",", fixed = TRUE)[[1L]]))
  missing <- setdiff(wanted, known$barcode)
  if (length(missing)) {
    ducksassy_abort(
      c(
        "Every barcode of the arrangement must have a sequence.",
        x = paste0(cli_escape(paste(utils::head(missing, 3L), collapse = ", ")),
          if (length(missing) > 3L) ", ...", " ", if (length(missing) == 1L) "is" else "are",
          " neither in `sequences` nor among dorado's barcodes."),
        i = "Barcode names are the patterns' names numbered first_index to last_index (`BC%02i`: BC01, BC02, ...)."
      ),
      class = c("ducksassy_arrangement_error", "ducksassy_input_error"),
      arg = "sequences", value = missing[[1L]], call = call
    )
  }
  rows <- dorado_kit_rows(k, known)
  bad <- which(!grepl("^[ACGTURYSWKMBDHVN]+$", rows$sequence))
  if (length(bad)) {
    abort_value("sequences", "The barcodes must be DNA or IUPAC letters.", rows$sequence[[bad[[1L]]]], call)
  }
  new_barcodes(
    rows$barcode, rows$sequence, keep_flanks(rows$flank5, flank_length, TRUE),
    keep_flanks(rows$flank3, flank_length, FALSE), rows$ends, error_rate, kit = name
  )
}

check_path_arg <- function(x, arg, call) {
  if (!is.character(x) || length(x) != 1L || is.na(x) || !nzchar(x)) {
    abort_scalar(arg, "the path of one file", x, call)
  }
  if (!file.exists(x) || dir.exists(x)) {
    ducksassy_abort(
      c(paste0("`", arg, "` must be the path of a file."), x = paste0("There is no file ", format_value(x), ".")),
      class = c("ducksassy_file_error", "ducksassy_input_error"), arg = arg, value = x, call = call
    )
  }
}

#' The TOML of dorado's arrangement files: `[table]` headers, `key =
#' value` lines (a basic or literal string, an integer, a float, a
#' boolean) and `#` comments
#' @return A list of tables, each a named list of values (keys before any
#'   header go to the table `""`).
#' @noRd
read_toml_subset <- function(path, call) {
  lines <- readLines(path, warn = FALSE, encoding = "UTF-8")
  out <- list()
  table <- ""
  bad <- function(i, what) {
    ducksassy_abort(
      c(
        "`arrangement` must be a TOML file of tables and `key = value` lines.",
        x = paste0("Line ", i, " of ", format_value(path), " ", what, ": ", format_value(lines[[i]], 60L), ".")
      ),
      class = c("ducksassy_arrangement_error", "ducksassy_input_error"),
      arg = "arrangement", value = path, call = call
    )
  }
  for (i in seq_along(lines)) {
    l <- trimws(lines[[i]])
    if (!nzchar(l) || startsWith(l, "#")) next
    if (grepl("^\\[[^]]*\\]([[:space:]]*#.*)?$", l)) {
      table <- trimws(sub("^\\[([^]]*)\\].*$", "\\1", l))
      if (grepl("^\\[", table)) bad(i, "is an array of tables, which arrangement files do not use")
      out[[table]] <- out[[table]] %||% list()
      next
    }
    m <- regmatches(l, regexec("^([A-Za-z0-9_-]+|\"[^\"]*\")[[:space:]]*=[[:space:]]*(.*)$", l))[[1L]]
    if (length(m) != 3L) bad(i, "is not `key = value`")
    key <- gsub("\"", "", m[[2L]])
    v <- m[[3L]]
    value <- if (grepl("^\"(([^\"\\\\]|\\\\.)*)\"[[:space:]]*(#.*)?$", v)) {
      s <- sub("^\"(([^\"\\\\]|\\\\.)*)\".*$", "\\1", v)
      gsub("\\\\(.)", "\\1", s)
    } else if (grepl("^'([^']*)'[[:space:]]*(#.*)?$", v)) {
      sub("^'([^']*)'.*$", "\\1", v)
    } else {
      v <- trimws(sub("#.*$", "", v))
      if (v %in% c("true", "false")) {
        v == "true"
      } else if (grepl("^[+-]?[0-9][0-9_]*$", v)) {
        as.numeric(gsub("_", "", v))
      } else if (grepl("^[+-]?[0-9][0-9_]*(\\.[0-9_]+)?([eE][+-]?[0-9]+)?$", v)) {
        as.numeric(gsub("_", "", v))
      } else {
        bad(i, "has a value that is not a string, a number or true/false")
      }
    }
    if (!is.null(out[[table]][[key]])) bad(i, paste0("repeats the key `", key, "`"))
    if (is.null(out[[table]])) out[[table]] <- list()
    out[[table]][[key]] <- value
  }
  out
}

# ---------------------------------------------------------------------------
# dorado's sample names (`names = "dorado"` of the assign and demultiplex
# verbs): a kit's barcode is `<kit>_barcode01`, a read without sample
# `unclassified`.

#' `names`: `"ducksassy"` (default, the formals' vector) or `"dorado"`
#' @noRd
check_names_style <- function(names, call) {
  if (identical(names, c("ducksassy", "dorado"))) {
    return("ducksassy")
  }
  if (!is.character(names) || length(names) != 1L || is.na(names) || !names %in% c("ducksassy", "dorado")) {
    abort_scalar("names", "\"ducksassy\" or \"dorado\"", names, call)
  }
  names
}

#' dorado's names apply to the both-ends mode (a barcode set, a `policy`
#' or `samples`), whose samples are barcodes or a sheet's
#' @noRd
check_dorado_mode <- function(patterns, policy, samples, call) {
  if (!is_barcode_set(patterns) && is.null(policy) && is.null(samples)) {
    abort_value("names",
      "`names = \"dorado\"` names the samples of the both-ends mode.",
      "dorado", call,
      hint = "Give a barcode set (`sassy_kit()`, `sassy_barcodes_dorado()`) as `patterns`, or a `policy`."
    )
  }
}

#' dorado's names of barcodes: `<kit>_<barcode>`, the kit that of the set
#' (`attr(set, "kit")`, one kit or arrangement; otherwise the barcode's
#' name alone)
#' @noRd
dorado_sample_names <- function(x, set) {
  kit <- attr(set, "kit")
  if (length(kit) == 1L && !is.na(kit) && nzchar(kit)) paste0(kit, "_", x) else x
}

#' An assignment's samples as dorado names them: a barcode's sample
#' `<kit>_<barcode>` (a sample sheet's names are kept), no sample
#' `"unclassified"`
#' @noRd
as_dorado_names <- function(res, patterns, samples) {
  if (!is.data.frame(res) || is.null(res$sample)) {
    return(res)
  }
  set <- if (is_barcode_set(patterns)) patterns
  s <- as.character(res$sample)
  has <- !is.na(s)
  if (is.null(samples)) {
    s[has] <- dorado_sample_names(s[has], set)
  }
  s[!has] <- "unclassified"
  res$sample <- s
  res
}

#' The assign verbs' work with `names`: assign_vector(), assign_fastx(),
#' assign_table() (assign.R), their samples renamed for `names = "dorado"`
#' @noRd
assign_named <- function(impl, args, names, call) {
  names <- check_names_style(names, call)
  if (names == "dorado") {
    check_dorado_mode(args$patterns, args$policy, args$samples, call)
    if (!is.null(args$output)) {
      abort_value("names", "`names = \"dorado\"` renames the samples of a result; not with `output`.",
        "dorado", call)
    }
  }
  out <- do.call(impl, c(args, list(call = call)))
  if (names == "dorado") as_dorado_names(out, args$patterns, args$samples) else out
}

assign_vector_named <- function(texts, patterns, k, alphabet, rc, all_endpoints,
                                overhang, max_n_frac, ignore_case, ends, threads,
                                indels, margin, policy, samples, chimeras, names, call) {
  args <- list(texts = texts, patterns = patterns, k = k, alphabet = alphabet, rc = rc,
    all_endpoints = all_endpoints, overhang = overhang, max_n_frac = max_n_frac,
    ignore_case = ignore_case, ends = ends, threads = threads, indels = indels,
    margin = margin, policy = policy, samples = samples, chimeras = chimeras)
  assign_named(assign_vector, args, names, call)
}

assign_fastx_named <- function(paths, patterns, k, args, BPPARAM, margin,
                               policy, samples, chimeras, mates, names, call) {
  a <- list(paths = paths, patterns = patterns, k = k, args = args, BPPARAM = BPPARAM,
    margin = margin, policy = policy, samples = samples, chimeras = chimeras, mates = mates)
  assign_named(assign_fastx, a, names, call)
}

assign_table_named <- function(con, table, patterns, k, column, id, args,
                               chunk_rows, output, BPPARAM, margin,
                               policy, samples, chimeras, names, call) {
  a <- list(con = con, table = table, patterns = patterns, k = k, column = column, id = id,
    args = args, chunk_rows = chunk_rows, output = output, BPPARAM = BPPARAM, margin = margin,
    policy = policy, samples = samples, chimeras = chimeras)
  assign_named(assign_table, a, names, call)
}
