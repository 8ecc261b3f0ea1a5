# Checks the pkgdown site in docs/ (`make site` runs it after the build):
#
#   Rscript tools/check-site.R [--docs=docs] [--screenshots=DIR]
#
# 1. Headless Chromium (Debian's `chromium`) loads the home page, one article
#    and the reference index from the files, runs their JavaScript and dumps
#    the DOM: each must have its title, and the reference index must list
#    every function the package exports (read from NAMESPACE).
# 2. Chromium takes a screenshot of the home page and of the article (into
#    --screenshots, default a temporary folder), to look at: the check
#    fails when one is missing or empty.
# 3. Every local link and image of every page (href and src in
#    docs/**/*.html: a, link, img, script, source) must point at a file
#    of the site; links to other sites are not followed (the site must work
#    offline).
#
# Exits with status 1 and a list of what failed.

args <- commandArgs(trailingOnly = TRUE)
arg <- function(name, default) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(hit)) sub(paste0("^--", name, "="), "", hit[[1]]) else default
}
docs <- normalizePath(arg("docs", "docs"), mustWork = TRUE)
shots <- arg("screenshots", file.path(tempdir(), "site-screenshots"))
dir.create(shots, showWarnings = FALSE, recursive = TRUE)
shots <- normalizePath(shots)
if (!requireNamespace("xml2", quietly = TRUE)) stop("the site check needs the R package xml2")

failures <- character()
fail <- function(...) {
  msg <- paste0(...)
  failures <<- c(failures, msg)
  cat("FAIL:", msg, "\n")
}
ok <- function(...) cat("ok:  ", ..., "\n")

chromium <- Sys.which(c("chromium", "chromium-browser", "google-chrome"))
chromium <- chromium[nzchar(chromium)][1]
if (is.na(chromium)) {
  stop("the site check needs Chromium (Debian: apt-get install chromium)")
}
profile <- tempfile("chromium-profile-")
chrome <- function(...) {
  out <- tempfile(fileext = ".txt")
  status <- system2("timeout", c("120", shQuote(chromium), "--headless", "--no-sandbox",
                                 "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                                 paste0("--user-data-dir=", profile), ...),
                    stdout = out, stderr = FALSE)
  list(status = status, stdout = if (file.exists(out)) readLines(out, warn = FALSE) else character())
}
url_of <- function(page) paste0("file://", file.path(docs, page))

# --- 1. pages rendered by Chromium -------------------------------------------
rendered <- function(page) {
  r <- chrome("--virtual-time-budget=5000", "--dump-dom", url_of(page))
  dom <- paste(r$stdout, collapse = "\n")
  if (r$status != 0 || !nzchar(dom)) {
    fail(page, ": Chromium gave no DOM (exit status ", r$status, ")")
    return(NULL)
  }
  xml2::read_html(dom)
}
title_of <- function(html) xml2::xml_text(xml2::xml_find_first(html, "//title"))

pages <- list(
  list(page = "index.html", title = "ducksassy", heading = "ducksassy"),
  list(page = "articles/crispr.html", title = "CRISPR off-targets and GRanges",
       heading = "CRISPR off-targets and GRanges"),
  list(page = "reference/index.html", title = "Function reference", heading = NULL)
)
doms <- list()
for (p in pages) {
  if (!file.exists(file.path(docs, p$page))) {
    fail(p$page, ": missing")
    next
  }
  html <- rendered(p$page)
  if (is.null(html)) next
  doms[[p$page]] <- html
  t <- title_of(html)
  if (is.na(t) || !grepl(p$title, t, fixed = TRUE)) {
    fail(p$page, ": title '", t, "' lacks '", p$title, "'")
  } else {
    ok(p$page, "renders, title:", t)
  }
  if (!is.null(p$heading)) {
    h1 <- xml2::xml_text(xml2::xml_find_all(html, "//h1"))
    if (!any(grepl(p$heading, h1, fixed = TRUE))) {
      fail(p$page, ": no <h1> with '", p$heading, "' (found: ", paste(h1, collapse = " | "), ")")
    }
  }
  # pkgdown's navbar is on every page
  if (length(xml2::xml_find_all(html, "//nav//a[contains(@href, 'reference/index.html')]")) == 0L) {
    fail(p$page, ": no navbar link to the reference index")
  }
}

ref <- doms[["reference/index.html"]]
if (!is.null(ref)) {
  ns <- readLines(file.path(dirname(docs), "NAMESPACE"))
  exports <- sub("^export\\((.*)\\)$", "\\1", grep("^export\\(", ns, value = TRUE))
  listed <- xml2::xml_text(xml2::xml_find_all(ref, "//main//a"))
  listed <- sub("\\(\\)$", "", trimws(listed))
  missing <- setdiff(exports, listed)
  if (length(missing)) {
    fail("reference/index.html does not list: ", paste(missing, collapse = ", "))
  } else {
    ok("reference/index.html lists all", length(exports), "exported functions")
  }
  internal <- xml2::xml_find_all(ref, "//main//h2[contains(translate(., 'INTERNAL', 'internal'), 'internal')]")
  if (length(internal)) fail("reference/index.html has a section called internal")
}

# --- 2. screenshots ------------------------------------------------------------
for (p in c("index.html", "articles/crispr.html")) {
  png <- file.path(shots, paste0(gsub("[/.]", "_", sub("\\.html$", "", p)), ".png"))
  unlink(png)
  chrome("--window-size=1280,1600", "--virtual-time-budget=5000",
         paste0("--screenshot=", png), url_of(p))
  if (!file.exists(png) || file.size(png) < 10000) {
    fail(p, ": no screenshot (", png, ")")
  } else {
    ok(p, "screenshot:", png)
  }
}

# --- 3. local links and images ---------------------------------------------------
html_files <- list.files(docs, pattern = "\\.html$", recursive = TRUE)
broken <- character()
checked <- 0L
for (f in html_files) {
  html <- xml2::read_html(file.path(docs, f))
  nodes <- xml2::xml_find_all(html, "//a[@href] | //link[@href] | //img[@src] | //script[@src] | //source[@src]")
  refs <- ifelse(is.na(xml2::xml_attr(nodes, "href")), xml2::xml_attr(nodes, "src"), xml2::xml_attr(nodes, "href"))
  refs <- unique(refs[!is.na(refs)])
  # file:// URLs (Debian's rmarkdown points MathJax at /usr/share/javascript)
  # must exist on this machine
  for (r in refs[startsWith(refs, "file://")]) {
    checked <- checked + 1L
    if (!file.exists(utils::URLdecode(sub("^file://", "", sub("[?#].*$", "", r))))) {
      broken <- c(broken, sprintf("%s: %s", f, r))
    }
  }
  external <- grepl("^[a-zA-Z][a-zA-Z0-9+.-]*:", refs) | startsWith(refs, "//")
  for (r in refs[!external]) {
    target <- sub("[?#].*$", "", r)
    if (!nzchar(target)) next # a fragment of this page
    checked <- checked + 1L
    if (startsWith(target, "/")) {
      broken <- c(broken, sprintf("%s: %s (absolute path: not offline)", f, r))
      next
    }
    path <- file.path(docs, dirname(f), utils::URLdecode(target))
    if (dir.exists(path)) path <- file.path(path, "index.html")
    if (!file.exists(path)) broken <- c(broken, sprintf("%s: %s", f, r))
  }
}
if (length(broken)) {
  fail(length(broken), " broken local link(s) or image(s):\n  ", paste(broken, collapse = "\n  "))
} else {
  ok(checked, "local links and images in", length(html_files), "pages, none broken")
}

unlink(profile, recursive = TRUE)
if (length(failures)) {
  cat("\nThe site check failed:", length(failures), "problem(s).\n")
  quit(status = 1)
}
cat("\nThe site check passed. Screenshots in", shots, "\n")
