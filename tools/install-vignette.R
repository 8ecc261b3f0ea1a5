# Render the vignette with the installed package and give it to the
# installed copy, so that vignette("ducksassy") works after `make install`
# (R CMD INSTALL of a source directory installs only vignettes that
# R CMD build has rendered: inst/doc plus build/vignette.rds). Renders again
# only when the vignette's source is newer than its output. Usage (from the
# package root, after R CMD INSTALL):  Rscript tools/install-vignette.R
pkg_dir <- normalizePath(".")
vigns <- tools::pkgVignettes(dir = pkg_dir)
if (length(vigns$docs) == 0L) quit(save = "no")
out_dir <- file.path(pkg_dir, "inst", "doc")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
outputs <- file.path(out_dir, paste0(tools::file_path_sans_ext(basename(vigns$docs)), ".html"))
if (!all(file.exists(outputs)) || any(file.mtime(vigns$docs) > file.mtime(outputs))) {
  message("rendering the vignette (", paste(basename(vigns$docs), collapse = ", "), ")")
  built <- tools::buildVignettes(dir = pkg_dir, tangle = TRUE, quiet = TRUE)
  made <- file.path(pkg_dir, "vignettes", basename(unlist(built$outputs)))
  tangled <- file.path(pkg_dir, "vignettes", basename(unlist(built$sources)))
  invisible(file.copy(c(vigns$docs, made, tangled), out_dir, overwrite = TRUE))
  unlink(setdiff(c(made, tangled), vigns$docs))
}
vigns$outputs <- outputs
vigns$sources <- stats::setNames(
  as.list(file.path(out_dir, paste0(tools::file_path_sans_ext(basename(vigns$docs)), ".R"))),
  vigns$docs
)
index <- tools:::.build_vignette_index(vigns)
lib <- dirname(system.file(package = "ducksassy", mustWork = TRUE))
inst <- file.path(lib, "ducksassy")
dir.create(file.path(inst, "doc"), showWarnings = FALSE)
invisible(file.copy(list.files(out_dir, full.names = TRUE), file.path(inst, "doc"), overwrite = TRUE))
saveRDS(index, file.path(inst, "Meta", "vignette.rds"))
unlink(file.path(inst, "doc", "index.html"))
tools:::.writeVignetteHtmlIndex("ducksassy", file.path(inst, "doc", "index.html"), index)
found <- utils::vignette(package = "ducksassy", lib.loc = lib)$results[, "Item"]
if (!"ducksassy" %in% found) stop("the vignette was not installed")
message("installed the vignette: vignette(\"ducksassy\")")
