//! The extendr binding: R values in, one core call, R values out. Nothing
//! else lives here. Text and pattern bytes are borrowed in place from R's
//! CHARSXPs (no copy); R objects are only touched on this (R's main) thread.

mod arrow;
mod assign;
mod cigar;
mod crispr;
mod demux;
mod error;
mod fastx;
mod interrupt;
mod plan;
mod progress;
mod sigterm;

// the DuckDB extension's C ABI, linked into every backend library (src/rust/sql)
pub use ducksassy_sql::ducksassy_sql_api;

use ducksassy_core::{run, Control, CoreError, HitBuffer, Mode, Output, SearchPlan};
pub(crate) use error::error_value;
use extendr_api::prelude::*;
use extendr_ffi as ffi;
use std::os::raw::c_int;

/// Search texts for patterns; see `sassy_search()` in R for the contract.
/// `plan` is a `ducksassy_plan` list (R/plan.R, read by `plan.rs`).
/// Returns the hit columns (1-based), a count/contains vector, or an error
/// value of class `ducksassy_rust_error` that R turns into a condition.
#[extendr]
fn ds_search(texts: Robj, plan: Robj, progress: Robj, attrs: Robj) -> Robj {
    guard(|| match search(texts, &plan, &progress) {
        Ok(r) => set_attrs(r, &attrs),
        Err(e) => {
            if matches!(e, CoreError::Interrupted | CoreError::TooManyHits { .. }) {
                // the dropped buffers of a big search, back to the system now
                release_memory();
            }
            error_value(&e)
        }
    })
}

/// Check a plan's domain rules in the core (`check_plan()` in R, once per
/// call, before any file or table is read): `NULL`, or the error value.
#[extendr]
fn ds_check_plan(plan: Robj) -> Robj {
    guard(|| match plan::search_plan(&plan) {
        Ok(_) => Robj::from(()),
        Err(e) => error_value(&e),
    })
}

/// Set the attributes of a named list (`NULL`: none) on a fresh result, in
/// list order (`dim` before `dimnames`). Done here because R would
/// duplicate the result to change its attributes once R code holds it
/// twice: a second records x patterns matrix for `sassy_count()` (issue 17).
fn set_attrs(mut r: Robj, attrs: &Robj) -> Robj {
    if let Some(list) = attrs.as_list() {
        for (name, value) in list.iter() {
            if r.set_attrib(name, value).is_err() {
                return error_value(&CoreError::Internal(format!("could not set the attribute `{name}` of a result")));
            }
        }
    }
    r
}

/// Run an entry point's body; a panic (a bug: validation should make them
/// impossible) becomes an error value of class `ducksassy_internal_error`,
/// so R gets a classed condition, the session goes on and the next call
/// works. (extendr would catch it too, but as an unclassed R error.)
pub(crate) fn guard(f: impl FnOnce() -> Robj) -> Robj {
    interrupt::reset();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            release_memory();
            error_value(&CoreError::Internal(msg))
        }
    }
}

/// Return freed memory to the operating system (glibc keeps the freed pages
/// of the worker threads' arenas otherwise, and RSS stays at its peak after
/// an interrupted or failed search). A no-op elsewhere.
pub(crate) fn release_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        extern "C" {
            fn malloc_trim(pad: usize) -> c_int;
        }
        // SAFETY: glibc's malloc_trim only walks the allocator's own arenas.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// Test hook (tests/testthat/test-safety-matrix.R), never on a search's
/// path: `where = "main"` panics on R's main thread and `where = "worker"`
/// in a worker of the thread pool of a `threads`-thread search, to check
/// that either becomes a classed R error and that the next call works.
#[extendr]
fn ds_test_panic(r#where: &str, threads: i32) -> Robj {
    guard(|| match r#where {
        "main" => panic!("test panic on the main thread"),
        "worker" => match ducksassy_core::pool::get(threads.max(1) as usize) {
            // install() runs the closure on a worker and re-raises its panic here
            Ok(pool) => {
                pool.install(|| -> () { panic!("test panic in a worker thread") });
                Robj::from(())
            }
            Err(e) => error_value(&CoreError::Resource(e)),
        },
        other => error_value(&CoreError::Internal(format!("ds_test_panic(): no place \"{other}\""))),
    })
}

/// Version of the bundled sassy crate.
#[extendr]
fn ds_sassy_version() -> &'static str {
    ducksassy_core::SASSY_VERSION
}

/// SIMD level this library was compiled for, as Rust sees it.
#[extendr]
fn ds_rust_simd() -> &'static str {
    if cfg!(target_feature = "avx512f") {
        "avx512"
    } else if cfg!(target_feature = "avx2") {
        "avx2"
    } else if cfg!(target_feature = "neon") {
        "neon"
    } else {
        "scalar"
    }
}

fn search(texts: Robj, plan: &Robj, progress: &Robj) -> std::result::Result<Robj, CoreError> {
    let margin = plan::margin(plan)?;
    let plan = plan::search_plan(plan)?;
    let texts = borrow_strings(&texts, "texts")?;
    let ctl = Control::new();
    let mut progress = progress::Progress::new(progress);
    let mut poll = || progress.poll(|| progress::bytes_searched(&ctl));
    if plan.values() {
        // counts and flags are written by the workers straight into the R
        // vector (no second copy of a records x patterns matrix)
        let cells = ducksassy_core::engine::value_cells(&plan, texts.len())?;
        return values_with(cells, plan.mode == Mode::Contains, |out| {
            ducksassy_core::engine::run_values(&plan, &texts, &ctl, Some(&mut poll), out)
        });
    }
    let out = run(&plan, &texts, &ctl, Some(&mut poll))?;
    Ok(output_to_r(out, &plan, margin))
}

/// An integer (or logical) R vector of `n` cells filled by `fill`, which
/// gets them uninitialised and must write every one (R's logicals are
/// `int`s, `NA` is `i32::MIN` in both). The vector is protected while
/// `fill` runs (it may call R, e.g. the progress bar).
fn values_with<E>(n: usize, logical: bool, fill: impl FnOnce(&mut [i32]) -> std::result::Result<(), E>) -> std::result::Result<Robj, E> {
    unsafe {
        let t = if logical { ffi::SEXPTYPE::LGLSXP } else { ffi::SEXPTYPE::INTSXP };
        let r = Robj::from_sexp(ffi::Rf_allocVector(t, n as ffi::R_xlen_t));
        let ptr = if logical { ffi::LOGICAL(r.get()) } else { ffi::INTEGER(r.get()) };
        if n > 0 {
            fill(std::slice::from_raw_parts_mut(ptr, n))?;
        } else {
            fill(&mut [])?;
        }
        Ok(r)
    }
}

/// A search's output as R values: the hit columns, or counts / flags.
pub(crate) fn output_to_r(out: Output, plan: &SearchPlan, margin: i32) -> Robj {
    match out {
        Output::Hits(bufs) => {
            let r = hits_to_r(&bufs, plan.cigar);
            ducksassy_core::hits::recycle(bufs);
            r
        }
        Output::Values(v) => values_to_r(&v, plan.mode == Mode::Contains),
        Output::Best(b) => assign::best_to_r(&b, margin, !plan.barcode_spans.is_empty()),
    }
}

/// Borrow the bytes of a character vector's elements; `NA` is `None`.
pub(crate) fn borrow_strings<'a>(x: &'a Robj, arg: &'static str) -> std::result::Result<Vec<Option<&'a [u8]>>, CoreError> {
    let sexp = unsafe { x.get() };
    if unsafe { ffi::TYPEOF(sexp) } != ffi::SEXPTYPE::STRSXP {
        // R's shape checks pass character vectors only: a bug there
        return Err(CoreError::Internal(format!("`{arg}` is not a character vector but {:?}", x.rtype())));
    }
    let n = unsafe { ffi::Rf_xlength(sexp) } as usize;
    if n == 0 {
        return Ok(Vec::new());
    }
    // the element array once, and LENGTH() of each element: STRING_ELT()
    // and Rf_xlength() per element cost as much as the joined search's
    // alphabet check on 150-letter reads (lanes.rs)
    let elts = unsafe { std::slice::from_raw_parts(ffi::STRING_PTR_RO(sexp), n) };
    let na = unsafe { ffi::R_NaString };
    Ok(elts
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            // each element is its own allocation: fetch the header (with its
            // length) of one further on while this one is read, so that the
            // cache misses overlap instead of queueing
            if let Some(&ahead) = elts.get(i + 16) {
                prefetch_sexp(ahead);
            }
            (s != na).then(|| unsafe {
                // SAFETY: the CHARSXP is protected by `x` (a .Call argument)
                // for the whole call, and R does not run while workers read it.
                std::slice::from_raw_parts(ffi::R_CHAR(s) as *const u8, ffi::LENGTH(s) as usize)
            })
        })
        .collect())
}

/// A cache hint for the header of an R object (it never faults): its first
/// and its 33rd byte, since the header (48 bytes on 64-bit R, the length at
/// byte 32) straddles two cache lines for half of the objects.
#[inline]
fn prefetch_sexp(s: ffi::SEXP) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only; SSE is part of x86-64
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(s as *const i8);
        _mm_prefetch::<_MM_HINT_T0>((s as *const i8).wrapping_add(32));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = s;
}

/// The hit columns as an R list, converting to 1-based inclusive here (and
/// only here): start + 1; sassy's exclusive end is the inclusive 1-based end.
fn hits_to_r(bufs: &[HitBuffer], cigar: bool) -> Robj {
    let n: usize = bufs.iter().map(|b| b.len()).sum();
    let col = |f: &dyn Fn(&HitBuffer, usize) -> i32| -> Robj {
        unsafe {
            let v = Robj::from_sexp(ffi::Rf_allocVector(ffi::SEXPTYPE::INTSXP, n as ffi::R_xlen_t));
            let dst = ffi::INTEGER(v.get());
            let mut j = 0;
            for b in bufs {
                for i in 0..b.len() {
                    *dst.add(j) = f(b, i);
                    j += 1;
                }
            }
            v
        }
    };
    let record = col(&|b, i| b.record[i] as i32 + 1);
    let pattern = col(&|b, i| b.pattern[i] as i32 + 1);
    let start = col(&|b, i| b.start[i] as i32 + 1);
    let end = col(&|b, i| b.end[i] as i32);
    let pattern_start = col(&|b, i| b.pattern_start[i] as i32 + 1);
    let pattern_end = col(&|b, i| b.pattern_end[i] as i32);
    let cost = col(&|b, i| b.cost[i]);
    let strand = strings(n, bufs, |b, i| if b.minus[i] { Some(b"-") } else { Some(b"+") });
    let cigars = strings(n, bufs, |b, i| if cigar { Some(b.cigar(i)) } else { None });
    list!(
        record = record,
        pattern = pattern,
        start = start,
        end = end,
        pattern_start = pattern_start,
        pattern_end = pattern_end,
        cost = cost,
        strand = strand,
        cigar = cigars
    )
    .into()
}

/// A character vector from per-row byte slices (`None` = `NA`). Repeated
/// single-letter values reuse one CHARSXP (R caches short strings anyway).
fn strings<'b>(n: usize, bufs: &'b [HitBuffer], f: impl Fn(&'b HitBuffer, usize) -> Option<&'b [u8]>) -> Robj {
    unsafe {
        let v = Robj::from_sexp(ffi::Rf_allocVector(ffi::SEXPTYPE::STRSXP, n as ffi::R_xlen_t));
        let sexp = v.get();
        let mut j = 0;
        for b in bufs {
            for i in 0..b.len() {
                let s = match f(b, i) {
                    Some(bytes) => ffi::Rf_mkCharLenCE(bytes.as_ptr() as *const _, bytes.len() as c_int, ffi::cetype_t::CE_UTF8),
                    None => ffi::R_NaString,
                };
                ffi::SET_STRING_ELT(sexp, j, s);
                j += 1;
            }
        }
        v
    }
}

/// Counts as an integer vector, or presence as a logical vector; `NA` is
/// `i32::MIN` in both, as in R.
fn values_to_r(v: &[i32], logical: bool) -> Robj {
    let r: std::result::Result<Robj, ()> = values_with(v.len(), logical, |cells| {
        cells.copy_from_slice(v);
        Ok(())
    });
    r.expect("copying cannot fail")
}

extendr_module! {
    mod ducksassy;
    use arrow;
    use cigar;
    use crispr;
    use demux;
    use fastx;
    fn ds_search;
    fn ds_check_plan;
    fn ds_test_panic;
    fn ds_sassy_version;
    fn ds_rust_simd;
}
