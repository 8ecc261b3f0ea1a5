# sassy_crispr_table(): CRISPR off-target search of a table's sequence
# column, by the table scan of sassy_search_table() (table-scan.R).

#' @rdname sassy_crispr
#' @order 3
#' @param con,table,column,id,chunk_rows,output The table to search and how,
#'   as for [sassy_search_table()]: a DBI connection, a table name,
#'   `DBI::Id()` or `DBI::SQL()` query, the sequence column, the columns that
#'   identify a row in the result (`NULL`: the row number as `record`), rows
#'   read at a time, and optionally a table to append the hits to (then the
#'   number of hits is returned, invisibly).
#' @export
sassy_crispr_table <- crispr_verb("table")

#' The work of sassy_crispr_table() (crispr_verb() in arguments.R)
#' @noRd
crispr_table <- function(con, table, guides, k, column, id, pam_length,
                         allow_pam_edits, max_n_frac, rc, cigar, cigar_style,
                         region, threads, chunk_rows, output, BPPARAM, indels,
                         call) {
  check_dbi_installed(call = call)
  check_connection(con, call = call)
  plan <- new_crispr_plan(
    guides, k, pam_length, allow_pam_edits, max_n_frac, rc, cigar, threads,
    indels = indels, call = call
  )
  plan$cigar_style <- check_cigar_style(cigar_style, call = call)
  plan$region <- check_flag(region, "region", call = call)
  search_table_rows(
    con, table, column, id, chunk_rows, output, BPPARAM,
    crispr_table_engine(plan), "sassy_crispr_table",
    search_args = list(
      guides = guides, k = k, pam_length = pam_length,
      allow_pam_edits = allow_pam_edits, max_n_frac = max_n_frac, rc = rc,
      cigar = cigar, cigar_style = plan$cigar_style, region = plan$region,
      threads = plan$threads, indels = plan$indels
    ),
    patterns = guides, what = "guides", call = call
  )
}

#' The search of a table's chunks for scan_table(), CRISPR's way
#'
#' The binding has no background (submit/collect) entry point for CRISPR,
#' so `submit` is `NULL`: scan_table() searches each chunk at once with
#' `search()`, after fetching the next one (no overlap of fetch and search),
#' and still gives the progress bar, garbage pacing and spooling of the
#' search.
#' @noRd
crispr_table_engine <- function(plan) {
  list(
    mode = "hits",
    plan = plan,
    submit = NULL,
    search = function(texts, limit) {
      ds_crispr(texts, as_plan(plan, max_hits = limit), NULL)
    },
    finish_piece = new_crispr_hits
  )
}
