# ducksassy developer commands. The two that matter:
#   make demo   build and install the package, then run the main job on real
#               data (inst/scripts/demo.R)
#   make test   cargo test of the Rust core, R CMD build + R CMD check
#               (fails on any ERROR or WARNING), then make memcheck (valgrind;
#               fails on an invalid access or a definite leak in our code)
# Others: setup, document, install, check, build, wrappers, readme, site,
# benchmarks, clean.
#
# The package builds one Rust library per SIMD backend (scalar, avx2, avx512
# on x86-64) and picks one at load time; DUCKSASSY_SIMD=avx512|avx2|scalar|native
# builds just that one (much quicker: use it for development installs).
# cargo test (rust-test) builds the best backend for this CPU, or the one
# DUCKSASSY_SIMD names. DUCKSASSY_BACKEND=scalar|avx2|avx512 at load time
# forces a lower backend.

SHELL := /bin/bash
R ?= R
RSCRIPT ?= Rscript
PKG := ducksassy
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
TARBALL := $(PKG)_$(VERSION).tar.gz
NPROC := $(shell nproc 2>/dev/null || echo 2)
RUST_DIR := src/rust

.PHONY: all setup document install demo test rust-vendor rust-test build \
        check wrappers readme site site-check benchmarks memcheck clean distclean

all: install

# Debian packages, CRAN packages (DBI, nanoarrow, duckdb); idempotent.
setup:
	bash tools/setup

# NAMESPACE and man/ from the roxygen comments. The R files are sourced, not
# loaded with pkgload: that would compile the Rust library (three backends)
# only to read the documentation.
document:
	$(RSCRIPT) -e 'roxygen2::roxygenise(load_code = roxygen2::load_source)'

# In-place install; keeps src/rust/target so rebuilds are incremental.
# Then renders the vignette (when its source changed) and installs it
# (R CMD INSTALL of a directory installs no vignette of its own).
install: setup document
	DUCKSASSY_KEEP_BUILD=true CARGO_BUILD_JOBS=$(NPROC) $(R) CMD INSTALL --no-multiarch .
	$(RSCRIPT) tools/install-vignette.R

demo: install
	$(RSCRIPT) inst/scripts/demo.R

# Unpacked crates and the cargo source replacement, for cargo calls made
# outside R CMD INSTALL (the package build does the same in src/Makevars).
rust-vendor:
	@cd $(RUST_DIR) && \
	if [ ! -f vendor/sassy/Cargo.toml ]; then \
	  echo "unpacking $(RUST_DIR)/vendor.tar.xz"; rm -rf vendor; tar -xJf vendor.tar.xz; \
	fi && \
	if ! grep -q vendored-sources .cargo/config.toml 2>/dev/null; then \
	  mkdir -p .cargo && \
	  printf '%s\n' '[source.crates-io]' 'replace-with = "vendored-sources"' '' \
	    '[source.vendored-sources]' 'directory = "vendor"' > .cargo/config.toml; \
	fi

# cargo test of the pure-Rust core and of the SQL functions' crate, with the
# same SIMD flags as the package (and --target, so that they reach no build
# script: tools/config); then tools/check-host-flags reads the flags cargo
# recorded for the build scripts it ran.
rust-test: rust-vendor
	@set -euo pipefail; \
	eval "$$(sh tools/config)"; \
	cd $(RUST_DIR)/core; \
	echo "cargo test (backend $$DS_BACKEND, RUSTFLAGS='$$DS_RUSTFLAGS' $$DS_CARGO_FLAGS)"; \
	sh "$(CURDIR)/tools/check-host-flags" --prepare "$(CURDIR)/$(RUST_DIR)/target"; \
	env -u CARGO_ENCODED_RUSTFLAGS -u CARGO_TARGET_DIR CARGO_HOME="$(CURDIR)/$(RUST_DIR)/cargo-home" \
	  RUSTFLAGS="$$DS_RUSTFLAGS" cargo test --offline $$DS_CARGO_FLAGS; \
	echo "cargo test of the SQL functions' C ABI (src/rust/sql)"; \
	cd ../sql; \
	env -u CARGO_ENCODED_RUSTFLAGS -u CARGO_TARGET_DIR CARGO_HOME="$(CURDIR)/$(RUST_DIR)/cargo-home" \
	  RUSTFLAGS="$$DS_RUSTFLAGS" cargo test --offline $$DS_CARGO_FLAGS; \
	echo "the backend's flags reach no build script (tools/check-host-flags)"; \
	sh "$(CURDIR)/tools/check-host-flags" "$(CURDIR)/$(RUST_DIR)/target"

# R CMD build installs the package only to render the vignette: one backend
# (the one for this CPU) is enough there, and saves two of the three Rust
# builds. The tarball holds sources only; R CMD check builds every backend.
build: document
	rm -f $(TARBALL)
	DUCKSASSY_SIMD=$${DUCKSASSY_SIMD:-native} $(R) CMD build .

# R CMD check of the tarball; fails on any ERROR or WARNING (NOTEs pass).
# NOT_CRAN=true so that tests marked skip_on_cran() run too.
check: build
	rm -rf $(PKG).Rcheck
	_R_CHECK_FORCE_SUGGESTS_=false NOT_CRAN=true $(R) CMD check --no-manual $(TARBALL) || true
	@log=$(PKG).Rcheck/00check.log; \
	test -f $$log || { echo "make check: $$log is missing"; exit 1; }; \
	status=$$(grep '^Status:' $$log || echo "Status: unknown"); \
	echo "R CMD check $$status"; \
	if echo "$$status" | grep -qE 'ERROR|WARNING|unknown'; then \
	  grep -nE '\.\.\. (ERROR|WARNING)' -A 25 $$log || true; \
	  for f in $(PKG).Rcheck/tests/*.Rout.fail; do [ -f "$$f" ] && tail -n 60 "$$f"; done; \
	  exit 1; \
	fi

# memcheck last: it takes ~10 minutes, and the quick failures come first
test: setup rust-test check memcheck

# R/extendr-wrappers.R from the metadata of the installed library.
wrappers: install
	$(RSCRIPT) tools/extendr-wrappers.R

readme: install
	$(RSCRIPT) -e 'rmarkdown::render("README.Rmd", quiet = TRUE)'
	rm -f README.html

# The pkgdown site in docs/ (not committed): reference, articles
# (vignettes/ and vignettes/articles/), NEWS and the benchmark reports, built
# from the installed package (tools/build-site.R; fails on any warning), then
# checked in headless Chromium (tools/check-site.R: titles, the reference
# index, no broken local link or image; screenshots in $(SITE_SHOTS)).
# Not part of make test: CI stays under its time limit without it.
SITE_SHOTS ?= /tmp/ducksassy-site-screenshots
site: install
	bash tools/setup --site
	rm -rf docs
	$(RSCRIPT) tools/build-site.R
	$(MAKE) site-check

site-check:
	$(RSCRIPT) tools/check-site.R --docs=docs --screenshots=$(SITE_SHOTS)

# valgrind memcheck of the core's tests and a search from R (an AVX2 build:
# valgrind cannot run AVX-512); fails on invalid access or a definite leak.
memcheck: setup rust-vendor
	bash tools/memcheck.sh all

benchmarks: install
	@if [ -f benchmarks/run_all.R ]; then \
	  $(RSCRIPT) benchmarks/run_all.R; \
	else \
	  echo "benchmarks/run_all.R does not exist yet"; \
	fi

clean:
	rm -rf $(PKG).Rcheck $(PKG)_*.tar.gz src/*.o src/*.so src/Makevars \
	  $(RUST_DIR)/target $(RUST_DIR)/cargo-home README.html docs

# also the unpacked crates and the cargo source replacement
distclean: clean
	rm -rf $(RUST_DIR)/vendor $(RUST_DIR)/.cargo
