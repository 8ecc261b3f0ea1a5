# Builds the package's pkgdown site into docs/ (`make site`), from the root
# of the source tree, with the ducksassy installed in .libPaths() (make
# site installs it first; R_LIBS=... picks another library):
#
#   Rscript tools/build-site.R
#
# pkgdown is run in this process on the installed package (install = FALSE,
# devel = FALSE): its own install, or pkgload::load_all(), would compile the
# Rust library again (three SIMD backends). Articles are knitted by pkgdown
# in fresh R processes that load the same installed package.
#
# Then the benchmark reports (benchmarks/*.md, rendered by their .Rmd files,
# with their figures) become pages of the site under docs/benchmarks/, in
# the site's layout, so the navbar's "Benchmarks" and the links of the home
# page and of the "How it works" article work offline. The README's links
# to the articles (vignettes/articles/NAME.Rmd, which work on a repository
# host) are pointed at the articles' pages.
#
# Any warning (pkgdown's, or one of an article's chunks) fails the build:
# the site must build without warnings.

stopifnot(file.exists("_pkgdown.yml"), file.exists("DESCRIPTION"))
root <- normalizePath(".")
# --pages-only: only the benchmark pages and the home page's links, on a
# site pkgdown has built already (for working on them)
pages_only <- "--pages-only" %in% commandArgs(trailingOnly = TRUE)
for (p in c("pkgdown", "xml2")) {
  if (!requireNamespace(p, quietly = TRUE)) {
    stop("make site needs the R package ", p, " (Debian: r-cran-", p, "; `make setup`)")
  }
}
src_version <- read.dcf("DESCRIPTION", fields = "Version")[[1]]
inst <- tryCatch(as.character(utils::packageVersion("ducksassy")), error = function(e) NA)
if (is.na(inst)) stop("ducksassy is not installed in ", paste(.libPaths(), collapse = ":"), ": run `make install` first")
if (inst != src_version) {
  stop("the installed ducksassy is ", inst, ", the source is ", src_version, ": run `make install` first")
}

# No network: pkgdown would otherwise ask CRAN and Bioconductor whether the
# package is published there (for a sidebar link), and fail offline.
options(pkgdown.internet = FALSE)

warnings_seen <- character()
keep_warning <- function(w) {
  warnings_seen <<- c(warnings_seen, conditionMessage(w))
}

if (!pages_only) withCallingHandlers({
  pkg <- pkgdown::as_pkgdown(root)
  pkgdown::check_pkgdown(pkg)
  pkgdown::build_site(pkg, install = FALSE, new_process = FALSE, devel = FALSE,
                      preview = FALSE)
}, warning = keep_warning)
setwd(root)

# --- the benchmark reports -------------------------------------------------
# benchmarks/README.md is the index; each NAME.md becomes NAME.html next to
# it, with links between reports (NAME.md) pointed at the pages, and the
# figures (benchmarks/figures, benchmarks/*_files) copied.
pkg <- pkgdown::as_pkgdown(root)
dst <- file.path(pkg$dst_path, "benchmarks")
dir.create(dst, showWarnings = FALSE, recursive = TRUE)
reports <- list.files(file.path(root, "benchmarks"), pattern = "\\.md$", full.names = TRUE)
report_page <- function(md) {
  name <- sub("\\.md$", "", basename(md))
  out <- if (name == "README") "index" else name
  body <- pkgdown:::markdown_body(md, strip_header = TRUE) # nolint: pkgdown 2.0.7 has no exported one
  html <- xml2::read_html(paste0("<div>", body, "</div>"))
  title <- attr(body, "title") %||% name
  for (a in xml2::xml_find_all(html, ".//a[@href]")) {
    href <- xml2::xml_attr(a, "href")
    if (grepl("^[a-zA-Z][a-zA-Z0-9+.-]*:", href) || startsWith(href, "#")) next
    if (href == "README.md") {
      href <- "index.html"
    } else if (grepl("\\.md(#.*)?$", href)) {
      href <- sub("\\.md(#.*)?$", ".html\\1", href)
    } else if (grepl("^\\.\\./", href) || grepl("\\.(R|Rmd|rs)$", href) || grepl("/$", href)) {
      # a script or a folder of the source tree: not on the site; keep the
      # text, drop the link
      xml2::xml_set_name(a, "code")
      xml2::xml_set_attr(a, "href", NULL)
      next
    }
    xml2::xml_set_attr(a, "href", href)
  }
  div <- xml2::xml_find_first(html, "//body/div")
  body <- paste(vapply(xml2::xml_contents(div), as.character, ""), collapse = "\n")
  pkgdown::render_page(pkg, "title-body",
    data = list(pagetitle = title, body = body, source = ""),
    path = file.path("benchmarks", paste0(out, ".html")), quiet = TRUE)
}
`%||%` <- function(a, b) if (is.null(a)) b else a
withCallingHandlers({
  for (md in reports) report_page(md)
}, warning = keep_warning)
for (d in c(file.path(root, "benchmarks", "figures"),
            list.files(file.path(root, "benchmarks"), pattern = "_files$", full.names = TRUE))) {
  if (dir.exists(d)) file.copy(d, dst, recursive = TRUE, overwrite = TRUE)
}
cat("Wrote", length(reports), "benchmark pages to", dst, "\n")

# --- the home page's links to the articles -----------------------------------
index <- file.path(pkg$dst_path, "index.html")
html <- xml2::read_html(index)
for (a in xml2::xml_find_all(html, ".//a[@href]")) {
  href <- xml2::xml_attr(a, "href")
  new <- sub("^vignettes/articles/([^/]+)\\.Rmd$", "articles/\\1.html", href)
  new <- sub("^vignettes/([^/]+)\\.Rmd$", "articles/\\1.html", new)
  new <- sub("^benchmarks/README\\.html$", "benchmarks/index.html", new)
  if (new != href) xml2::xml_set_attr(a, "href", new)
}
xml2::write_html(html, index, options = character())

if (length(warnings_seen)) {
  stop("the site was built with ", length(warnings_seen), " warning(s):\n",
       paste0("- ", unique(warnings_seen), collapse = "\n"))
}
cat("Site built in", normalizePath(pkg$dst_path), "\n")
