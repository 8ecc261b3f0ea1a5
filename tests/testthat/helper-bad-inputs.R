# The bad-input matrix, as data: test-safety-matrix.R feeds every bad value
# below to every argument of every exported function, one at a time, with
# the other arguments at the good values of the function's row, in a
# subprocess (so that a crash fails the test instead of killing it).
#
# Each call must give a `ducksassy_error` or, where the value is valid there,
# succeed with its documented result: values the row lists under `ok` for
# that argument, a 1-row `matrix` of an atomic good value (the same values
# with a dim attribute), `true` where the good value is a flag, and for an
# option `null` (unset: the default), `matrix` and the values listed in
# `bad_input_option_ok`. Anything else (another error class, a
# crash, a hang) fails the test.
#
# A new exported function joins by adding a row to `bad_input_matrix`; the
# test fails for an exported function without one. Everything is quoted: it
# is evaluated in the subprocess, after `bad_input_setup` has made the
# fixtures (files, a database connection, hit tables).

# Values fed to every argument. `GOOD` stands for the argument's good value.
bad_input_values <- list(
  null = quote(NULL),
  na = quote(NA),
  na_character = quote(NA_character_),
  na_real = quote(NA_real_),
  nan = quote(NaN),
  true = quote(TRUE),
  number = quote(3.5),
  string = quote("ACGT"),
  complex = quote(1i),
  raw_nul = quote(as.raw(c(0x41, 0x00, 0x43))), # R strings cannot hold NUL
  env = quote(globalenv()), # not a vector (functions, environments, ...)
  wrong_length = quote(rep(GOOD, 2L)),
  empty = quote(GOOD[0L]),
  negative = quote(-1L),
  huge_int = quote(.Machine$integer.max),
  huge_double = quote(1e300),
  inf = quote(Inf),
  empty_string = quote(""),
  empty_list = quote(list()),
  utf8 = quote("\u00c4CGT\u00e9\U0001F600"),
  latin1 = quote(iconv("\u00c4CGT", "UTF-8", "latin1")),
  long_string = quote(strrep("ACGT", 2500L)),
  factor = quote(factor(GOOD)),
  list = quote(as.list(GOOD)),
  nested_list = quote(list(GOOD)),
  matrix = quote(matrix(GOOD, 1L))
)

# Built once in the subprocess before the matrix runs; `bad_input_matrix`
# rows refer to these names. Optional fixtures are NULL when their package is
# missing (the rows that need them are skipped).
bad_input_setup <- quote({
  dir <- tempfile("bad-inputs-")
  dir.create(dir)
  fq <- file.path(dir, "reads.fq")
  writeLines(c(
    "@r1 first", "AAAATTGAAA", "+", "IIIIIIIIII",
    "@r2", "CCCATCGCCC", "+", "IIIIIIIIII"
  ), fq)
  fa <- file.path(dir, "genome.fa")
  genome <- "TTTTACGTACGTACGTACGTACGTTGGTTTTTTCCAACGTACGTACGTACGTACGTTTTT"
  writeLines(c(">chr1", genome), fa)
  out <- file.path(dir, "out.fq")
  # files that are bad in themselves, for the path arguments
  nul_fq <- file.path(dir, "nul.fq")
  writeBin(c(charToRaw("@r1\nAC"), as.raw(0), charToRaw("GT\n+\nIIIII\n")), nul_fq)
  junk <- file.path(dir, "junk.bin")
  writeBin(as.raw(c(0x1f, 0x8b, 0x08, 0x00, 0xff, 0x00, 0x13)), junk)
  empty_file <- file.path(dir, "empty.fq")
  file.create(empty_file)
  # a custom dorado arrangement and its barcode sequences
  toml <- file.path(dir, "arrangement.toml")
  writeLines(c(
    "[arrangement]", "name = \"MY\"", "kit = \"MY\"",
    "mask1_front = \"GGTGCTGAAC\"", "mask1_rear = \"CCTTAACCGG\"",
    "barcode1_pattern = \"MY-BC%02i\"", "first_index = 1", "last_index = 2"
  ), toml)
  bc_fasta <- file.path(dir, "barcodes.fasta")
  writeLines(c(">MY-BC01", "ACGTACGTACGTACGT", ">MY-BC02", "TTGCAATTGCAAGGCC"), bc_fasta)
  guide <- "ACGTACGTACGTACGTACGTNGG"
  hits <- sassy_search(c(chr1 = genome), "ACGTACGTAC", k = 1L, threads = 1L)
  con <- if (requireNamespace("DBI", quietly = TRUE) &&
    requireNamespace("RSQLite", quietly = TRUE)) {
    con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
    DBI::dbWriteTable(con, "reads", data.frame(
      id = 1:2, sequence = c("AAAATTGAAA", "CCCATCGCCC")
    ))
    con
  }
  closed_con <- if (!is.null(con)) {
    closed_con <- DBI::dbConnect(RSQLite::SQLite(), ":memory:")
    DBI::dbDisconnect(closed_con)
    closed_con
  }
  duck_con <- if (requireNamespace("DBI", quietly = TRUE) &&
    requireNamespace("duckdb", quietly = TRUE)) {
    DBI::dbConnect(suppressMessages(sassy_duckdb()))
  }
  plain_duck_con <- if (!is.null(duck_con)) {
    DBI::dbConnect(suppressMessages(duckdb::duckdb()))
  }
  granges <- if (requireNamespace("GenomicRanges", quietly = TRUE)) {
    as_granges(hits)
  }
})

# Good values of the options in the rows' `options`, for `GOOD`.
bad_input_option_good <- list(
  ducksassy.max_hits = quote(1000),
  ducksassy.threads = quote(1L),
  ducksassy.fastx_batch_bytes = quote(1e6),
  ducksassy.fastx_batch_records = quote(100)
)

# Bad values that are valid for an option (besides `null` and `matrix`).
bad_input_option_ok <- list(
  ducksassy.max_hits = "huge_int",
  ducksassy.fastx_batch_bytes = c("huge_int", "huge_double"),
  ducksassy.fastx_batch_records = c("huge_int", "huge_double")
)

# Arguments shared by the search functions: good value and the bad values
# that are documented to work.
search_args <- function(...) {
  c(
    list(
      k = quote(1L),
      alphabet = quote("iupac"),
      rc = quote(TRUE),
      all_endpoints = quote(FALSE),
      overhang = quote(0.5),
      max_n_frac = quote(0.5),
      ignore_case = quote(FALSE),
      threads = quote(1L),
      # with overhang = 0.5 in the good call, indels = FALSE is an error too
      indels = quote(TRUE),
      # the first and last 5 letters (issue 23)
      ends = quote(5L)
    ),
    list(...)
  )
}
# BPPARAM: NULL (good) searches in-process; rep(NULL, 2) and NULL[0] are
# NULL too. Every other value is not a BiocParallel parameter object.
bpparam_ok <- c("null", "wrong_length", "empty")

# NULL is the documented "off"/default for these.
search_ok <- list(
  rc = "null",
  overhang = "null",
  max_n_frac = "null",
  # one or two whole numbers >= 0 (up to the largest integer)
  ends = c("null", "huge_int", "wrong_length")
)

# One row per exported function:
#   args     named list of quoted good values (the call that must work)
#   ok       per argument, names of bad values that are valid there
#   fail     per argument, values that must be errors even where the
#            general rules above would accept them
#   extra    per argument, more bad values (quoted) just for it
#   options  options fed the same bad values, each with the argument that
#            overrides it left out of the good call (`NA`: none)
#   needs    fixtures that must not be NULL, else the row is skipped
#   skip     per argument, bad values not run, named by value, with the
#            reason (a known bug, reported; the test prints them)
bad_input_matrix <- list(
  sassy_search = list(
    args = c(
      list(texts = quote(c(r1 = "AAAATTGAAA", r2 = "CCCATCGCCC")), patterns = quote("ATCG")),
      search_args(cigar = quote(TRUE), cigar_style = quote("sam"), region = quote(TRUE))
    ),
    ok = c(search_ok, list(
      # NA texts and empty texts are searched (no hits); any character vector
      # is a set of texts, a character matrix too
      texts = c("na_character", "string", "wrong_length", "empty", "empty_string", "long_string", "matrix"),
      patterns = c("string", "wrong_length", "long_string", "matrix")
    )),
    options = c(ducksassy.max_hits = NA, ducksassy.threads = "threads")
  ),
  sassy_count = list(
    args = c(
      list(texts = quote(c(r1 = "AAAATTGAAA", r2 = "CCCATCGCCC")), patterns = quote("ATCG")),
      search_args(sparse = quote(FALSE))
    ),
    ok = c(search_ok, list(
      texts = c("na_character", "string", "wrong_length", "empty", "empty_string", "long_string", "matrix"),
      patterns = c("string", "wrong_length", "long_string", "matrix")
    )),
    options = c(ducksassy.threads = "threads")
  ),
  sassy_contains = list(
    args = c(
      list(texts = quote(c(r1 = "AAAATTGAAA", r2 = "CCCATCGCCC")), patterns = quote("ATCG")),
      search_args()
    ),
    ok = c(search_ok, list(
      texts = c("na_character", "string", "wrong_length", "empty", "empty_string", "long_string", "matrix"),
      patterns = c("string", "wrong_length", "long_string", "matrix")
    )),
    options = c(ducksassy.threads = "threads")
  ),
  sassy_search_fastx = list(
    args = c(
      list(paths = quote(fq), patterns = quote("ATCG")),
      search_args(cigar = quote(TRUE), cigar_style = quote("sam"), region = quote(TRUE)),
      list(BPPARAM = NULL)
    ),
    ok = c(search_ok, list(
      # an empty file is zero records (issue 17, "Empty inputs")
      paths = c("wrong_length", "matrix", "empty_file"),
      patterns = c("string", "wrong_length", "long_string", "matrix"),
      BPPARAM = bpparam_ok
    )),
    extra = list(paths = list(
      folder = quote(dir), nul_file = quote(nul_fq), junk_file = quote(junk),
      empty_file = quote(empty_file), missing_file = quote(file.path(dir, "nope.fq"))
    )),
    options = c(ducksassy.max_hits = NA, ducksassy.fastx_batch_bytes = NA, ducksassy.fastx_batch_records = NA)
  ),
  sassy_filter_fastx = list(
    args = list(
      path = quote(fq), output = quote(out), patterns = quote("ATCG"),
      k = quote(1L), invert = quote(FALSE), alphabet = quote("iupac"),
      rc = quote(TRUE), overhang = quote(0.5), max_n_frac = quote(0.5),
      ignore_case = quote(FALSE), threads = quote(1L), indels = quote(TRUE),
      ends = quote(5L), compression_level = quote(2L)
    ),
    ok = c(search_ok, list(
      path = c("matrix", "empty_file"),
      # a relative path in the working directory (the matrix runs each row
      # in a fresh temporary one)
      output = c("matrix", "string", "utf8", "latin1"),
      patterns = c("string", "wrong_length", "long_string", "matrix")
    )),
    extra = list(
      path = list(
        folder = quote(dir), nul_file = quote(nul_fq), junk_file = quote(junk),
        empty_file = quote(empty_file), missing_file = quote(file.path(dir, "nope.fq"))
      ),
      output = list(
        folder = quote(dir), same_as_input = quote(fq),
        in_missing_folder = quote(file.path(dir, "nope", "out.fq")),
        bz2 = quote(file.path(dir, "out.fq.bz2"))
      )
    ),
    options = c(ducksassy.fastx_batch_bytes = NA, ducksassy.fastx_batch_records = NA)
  ),
  sassy_read_fastx = list(
    args = list(path = quote(fq), n_max = quote(Inf)),
    ok = list(
      path = c("matrix", "empty_file"),
      # any whole number >= 0 reads that many records at most
      n_max = c("huge_int", "huge_double", "inf", "matrix")
    ),
    extra = list(path = list(
      folder = quote(dir), nul_file = quote(nul_fq), junk_file = quote(junk),
      empty_file = quote(empty_file), missing_file = quote(file.path(dir, "nope.fq"))
    )),
    options = c(ducksassy.fastx_batch_bytes = NA, ducksassy.fastx_batch_records = NA)
  ),
  sassy_search_table = list(
    args = c(
      list(con = quote(con), table = quote("reads"), patterns = quote("ATCG")),
      search_args(cigar = quote(TRUE), cigar_style = quote("sam"), region = quote(TRUE)),
      list(
        column = quote("sequence"), id = quote("id"),
        chunk_rows = quote(1L), output = quote("hits_out"), BPPARAM = NULL
      )
    ),
    ok = c(search_ok, list(
      BPPARAM = bpparam_ok,
      # no id columns (the row number is used)
      id = "null",
      patterns = c("string", "wrong_length", "long_string", "matrix"),
      # any whole number >= 1 of rows per chunk
      chunk_rows = "huge_int",
      # NULL returns the hits; any other name is a table to append them to
      output = c("null", "string", "utf8", "latin1", "long_string"),
      # NULL: sassy_threads()
      threads = "null"
    )),
    # table and output names must be plain strings
    fail = list(table = "matrix", output = "matrix"),
    extra = list(
      con = list(closed = quote(closed_con)),
      table = list(missing = quote("no_such_table"), injection = quote("reads; DROP TABLE reads"))
    ),
    options = c(ducksassy.max_hits = NA),
    needs = "con"
  ),
  sassy_crispr = list(
    args = list(
      guides = quote(guide), texts = quote(c(chr1 = genome)), k = quote(1L),
      pam_length = quote(3L), allow_pam_edits = quote(FALSE),
      max_n_frac = quote(0.2), rc = quote(TRUE), cigar = quote(TRUE),
      cigar_style = quote("sam"), region = quote(TRUE),
      threads = quote(1L), indels = quote(TRUE), best = quote(FALSE)
    ),
    ok = list(
      texts = c("na_character", "string", "wrong_length", "empty", "empty_string", "long_string", "matrix"),
      guides = c("wrong_length", "matrix", "long_string"),
      max_n_frac = "null"
    ),
    options = c(ducksassy.max_hits = NA, ducksassy.threads = "threads")
  ),
  sassy_crispr_fastx = list(
    args = list(
      paths = quote(fa), guides = quote(guide), k = quote(1L),
      pam_length = quote(3L), allow_pam_edits = quote(FALSE),
      max_n_frac = quote(0.2), rc = quote(TRUE), cigar = quote(TRUE),
      cigar_style = quote("sam"), region = quote(TRUE),
      threads = quote(1L), indels = quote(TRUE), BPPARAM = NULL
    ),
    ok = list(
      BPPARAM = bpparam_ok,
      # an empty file is zero records (issue 17, "Empty inputs")
      paths = c("wrong_length", "matrix", "empty_file"),
      guides = c("wrong_length", "matrix", "long_string"),
      max_n_frac = "null"
    ),
    extra = list(paths = list(
      folder = quote(dir), nul_file = quote(nul_fq), junk_file = quote(junk),
      empty_file = quote(empty_file)
    )),
    options = c(ducksassy.max_hits = NA)
  ),
  sassy_crispr_table = list(
    args = list(
      con = quote(con), table = quote("reads"), guides = quote(guide),
      k = quote(1L), column = quote("sequence"), id = quote("id"),
      pam_length = quote(3L), allow_pam_edits = quote(FALSE),
      max_n_frac = quote(0.2), rc = quote(TRUE), cigar = quote(TRUE),
      cigar_style = quote("sam"), region = quote(TRUE),
      threads = quote(1L), chunk_rows = quote(1L), output = quote("crispr_out"),
      BPPARAM = NULL, indels = quote(TRUE)
    ),
    ok = list(
      BPPARAM = bpparam_ok,
      # NULL: every column but `column` (character(0), the row number, is
      # valid too, but its columns do not fit the output table)
      id = "null",
      guides = c("wrong_length", "matrix", "long_string"),
      # NULL: no N filter
      max_n_frac = "null",
      chunk_rows = "huge_int",
      output = c("null", "string", "utf8", "latin1", "long_string")
    ),
    fail = list(table = "matrix", output = "matrix"),
    extra = list(
      con = list(closed = quote(closed_con)),
      table = list(missing = quote("no_such_table"), injection = quote("reads; DROP TABLE reads"))
    ),
    options = c(ducksassy.max_hits = NA),
    needs = "con"
  ),
  as_granges = list(
    args = list(hits = quote(hits), seqinfo = quote(NULL), seqnames = quote(NULL)),
    ok = list(
      hits = "zero_rows",
      # NULL is the default; rep() and [0] of NULL are NULL
      seqinfo = c("null", "wrong_length", "empty"),
      seqnames = c("null", "wrong_length", "empty")
    ),
    extra = list(hits = list(zero_rows = quote(hits[0L, ]))),
    needs = "granges"
  ),
  as_iranges = list(
    args = list(hits = quote(hits)),
    ok = list(hits = "zero_rows"),
    extra = list(hits = list(zero_rows = quote(hits[0L, ]))),
    needs = "granges"
  ),
  as_hits = list(
    args = list(x = quote(granges)),
    # a GRanges twice as long, or with no ranges
    ok = list(x = c("wrong_length", "empty")),
    needs = "granges"
  ),
  sassy_threads = list(
    args = list(),
    options = c(ducksassy.threads = NA)
  ),
  sassy_kits = list(
    # NULL (rep(NULL, 2), NULL[0]): every source
    args = list(from = quote(NULL)),
    ok = list(from = bpparam_ok)
  ),
  sassy_kit = list(
    args = list(
      name = quote("SQK-RBK001"), error_rate = quote(0.27), flank_length = quote(16L),
      from = quote(NULL)
    ),
    ok = list(
      # NULL (rep(NULL, 2), NULL[0]): every source
      from = bpparam_ok,
      # several kits (the same one twice is one)
      name = "wrong_length",
      # any number >= 0 of flank letters (more than the flanks have: all)
      flank_length = c("number", "huge_int", "huge_double", "inf")
    )
  ),
  sassy_detect_kit = list(
    args = list(
      paths = quote(fq), n = quote(10L), ends = quote(150L), min_fraction = quote(0.05),
      error_rate = quote(0.2), threads = quote(1L)
    ),
    ok = list(
      # letters only: the reads themselves; two files are read in order
      paths = c("string", "long_string", "wrong_length", "matrix"),
      # all the records
      n = "huge_int",
      ends = "huge_int"
    ),
    options = c(ducksassy.fastx_batch_bytes = NA, ducksassy.fastx_batch_records = NA)
  ),
  sassy_barcodes_dorado = list(
    args = list(
      arrangement = quote(toml), sequences = quote(bc_fasta), error_rate = quote(0.27),
      flank_length = quote(16L)
    ),
    ok = list(
      # a 1 x 1 matrix is one path
      arrangement = "matrix", sequences = "matrix",
      # any number >= 0 of flank letters (more than the flanks have: all)
      flank_length = c("number", "huge_int", "huge_double", "inf")
    )
  ),
  sassy_barcodes = list(
    args = list(
      barcodes = quote(c(s1 = "ACGTACGT", s2 = "TTGCAATT")), flank5 = quote("GGTGCTG"),
      flank3 = quote("TTAACCT"), ends = quote("both"), error_rate = quote(0.27)
    ),
    ok = list(
      # any barcodes of IUPAC letters, one or many
      barcodes = c("string", "long_string", "wrong_length", "matrix"),
      # a flank of IUPAC letters, or none; one for all barcodes or one each
      flank5 = c("string", "empty_string", "long_string", "wrong_length"),
      flank3 = c("string", "empty_string", "long_string", "wrong_length"),
      # one per barcode
      ends = "wrong_length"
    )
  ),
  sassy_backend_info = list(
    args = list()
  ),
  sassy_duckdb = list(
    args = list(dbdir = quote(":memory:"), config = quote(list())),
    ok = list(
      # any string names a database file (made in the subprocess's folder);
      # "" is an in-memory database, as for duckdb::duckdb()
      dbdir = c("string", "utf8", "latin1", "empty_string"),
      # NULL and empty lists: no settings
      config = c("null", "empty_list", "list", "wrong_length", "empty", "matrix")
    ),
    needs = "duck_con"
  ),
  sassy_register = list(
    args = list(con = quote(duck_con)),
    extra = list(con = list(
      # a duckdb database without allow_unsigned_extensions
      plain = quote(plain_duck_con),
      sqlite = quote(con)
    )),
    needs = "duck_con"
  )
)

# The count and presence verbs of files and tables take the arguments of the
# hit verb but the hit-only ones (`cigar`, `cigar_style`, `region`), and get
# the same bad values; the table verbs write to tables of their own.
without_hit_args <- function(row, output = NULL) {
  hit_only <- c("cigar", "cigar_style", "region")
  row$args <- row$args[setdiff(names(row$args), hit_only)]
  row$ok <- row$ok[setdiff(names(row$ok), hit_only)]
  if (!is.null(output)) {
    row$args$output <- output
  }
  row
}
bad_input_matrix$sassy_count_fastx <- without_hit_args(bad_input_matrix$sassy_search_fastx)
bad_input_matrix$sassy_count_fastx$args$sparse <- quote(FALSE)
bad_input_matrix$sassy_contains_fastx <- without_hit_args(bad_input_matrix$sassy_search_fastx)
# The names of the table verbs' bad `output` values are tables of hits by
# then (sassy_search_table()'s row writes them), which counts do not fit;
# two patterns' counts do not fit the good call's one-pattern table.
without_hit_args_table <- function(row, output) {
  row <- without_hit_args(row, output)
  taken <- c("string", "utf8", "latin1", "long_string")
  row$fail$output <- c(row$fail$output, taken)
  row$fail$patterns <- c(row$fail$patterns, "wrong_length")
  row
}
bad_input_matrix$sassy_count_table <- without_hit_args_table(bad_input_matrix$sassy_search_table, quote("counts_out"))
bad_input_matrix$sassy_count_table$args$sparse <- quote(FALSE)
# the good call writes to `output`, which sparse counts can't
bad_input_matrix$sassy_count_table$fail$sparse <- "true"
bad_input_matrix$sassy_contains_table <- without_hit_args_table(bad_input_matrix$sassy_search_table, quote("contains_out"))

# sassy_assign() and its file and table forms (issue 23): the count verbs'
# arguments (BPPARAM too), and `margin` (any whole number >= 0).
as_assign_row <- function(row, output = NULL) {
  row <- without_hit_args(row, output)
  row$args$margin <- quote(0L)
  row$ok$margin <- "huge_int"
  # the both-ends mode (issue 38): off at these good values; NULL,
  # rep(NULL, 2) and NULL[0] leave it off
  # (`[<-` with list(NULL): `$<-` with NULL would remove the element)
  row$args["policy"] <- list(NULL)
  row$args["samples"] <- list(NULL)
  row$args$chimeras <- quote("ignore")
  row$ok$policy <- bpparam_ok
  row$ok$samples <- bpparam_ok
  # (issue 46) the samples' names: ours (the formals' vector) or dorado's
  row$args$names <- quote("ducksassy")
  row
}
bad_input_matrix$sassy_assign <- as_assign_row(bad_input_matrix$sassy_count)
bad_input_matrix$sassy_assign$args$sparse <- NULL
bad_input_matrix$sassy_assign_fastx <- as_assign_row(bad_input_matrix$sassy_search_fastx)
# (mates: the both-ends mode's R2 files; with the good call's bare pattern
# only NULL, rep(NULL, 2) and NULL[0] are right)
bad_input_matrix$sassy_assign_fastx$args["mates"] <- list(NULL)
bad_input_matrix$sassy_assign_fastx$ok$mates <- bpparam_ok
# (no hits are held: the limit on them does not apply)
bad_input_matrix$sassy_assign_fastx$options <- bad_input_matrix$sassy_assign_fastx$options[
  names(bad_input_matrix$sassy_assign_fastx$options) != "ducksassy.max_hits"
]
# (the table names of the bad `output` values hold other results by then;
# every number of patterns gives the same columns)
bad_input_matrix$sassy_assign_table <- as_assign_row(bad_input_matrix$sassy_search_table, quote("assign_out"))
bad_input_matrix$sassy_assign_table$fail$output <- c(
  bad_input_matrix$sassy_assign_table$fail$output, "string", "utf8", "latin1", "long_string"
)

# sassy_demultiplex_fastx() (issue 23): the filter's files, an output
# template with `{name}` (in a folder it creates), `margin`, `trim` and
# `mates` (NULL: single reads).
bad_input_matrix$sassy_demultiplex_fastx <- list(
  args = list(
    paths = quote(fq), patterns = quote("ATCG"),
    output = quote(file.path(dir, "demux", "{name}.fq")), k = quote(1L),
    ends = quote(5L), margin = quote(0L), alphabet = quote("iupac"),
    rc = quote(TRUE), overhang = quote(0.5), max_n_frac = quote(0.5),
    ignore_case = quote(FALSE), threads = quote(1L), indels = quote(TRUE),
    trim = quote(FALSE), mates = quote(NULL),
    # TRUE: the rows write different samples into one folder, one after
    # the other (FALSE would refuse the earlier rows' files)
    overwrite = quote(TRUE), report = quote(NULL),
    compression_level = quote(2L),
    # (issue 38) NULL: today's single assignment of bare patterns
    policy = quote(NULL), samples = quote(NULL), chimeras = quote("ignore"),
    reason_files = quote(FALSE), names = quote("ducksassy")
  ),
  ok = c(search_ok, list(
    # NULL (rep(NULL, 2), NULL[0]): no policy, no sample sheet
    policy = bpparam_ok,
    samples = bpparam_ok,
    # NULL (rep(NULL, 2), NULL[0]) or a file path, relative here
    report = c("null", "wrong_length", "empty", "string", "utf8", "latin1"),
    # several files are read one after the other
    paths = c("matrix", "empty_file", "wrong_length"),
    # unnamed patterns name their files by index
    patterns = c("string", "wrong_length", "long_string", "matrix"),
    margin = "huge_int",
    output = "matrix",
    # NULL, rep(NULL, 2) and NULL[0]: single reads
    mates = bpparam_ok
  )),
  extra = list(
    paths = list(
      folder = quote(dir), nul_file = quote(nul_fq), junk_file = quote(junk),
      empty_file = quote(empty_file), missing_file = quote(file.path(dir, "nope.fq"))
    ),
    # fewer records than the reads, two files for one
    mates = list(empty_file = quote(empty_file), longer = quote(c(fq, fq))),
    output = list(
      no_name = quote(file.path(dir, "out.fq")),
      with_mate = quote(file.path(dir, "{name}_{mate}.fq")),
      bz2 = quote(file.path(dir, "{name}.fq.bz2"))
    )
  ),
  # reason files apply in the both-ends mode only (policy = NULL here)
  fail = list(reason_files = "true"),
  options = c(ducksassy.fastx_batch_bytes = NA, ducksassy.fastx_batch_records = NA)
)
