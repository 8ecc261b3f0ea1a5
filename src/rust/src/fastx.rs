//! The extendr binding of FASTA/FASTQ search, filter and read: R values in,
//! one `ducksassy_core::fastx` call, R values out. Errors come back as values
//! of class `ducksassy_rust_error` (with `path`, `record` and `line` fields
//! for file errors) that R turns into conditions. `path_strings`,
//! `hits_to_r` and `fastx_error_value` are shared with other
//! file-reading entry points of the binding.

use ducksassy_core::fastx::{self, BatchSize, Column, FastxError, FastxHits, FastxValues, Format, SearchOutput};
use ducksassy_core::error::{Rule, Value};
use ducksassy_core::{Control, CoreError, Mode};
pub(crate) use crate::error::fastx_error_value;
use extendr_api::prelude::*;
use extendr_ffi as ffi;
use std::os::raw::c_int;

/// Search FASTA/FASTQ files; see `sassy_search_fastx()` in R. `plan` is a
/// `ducksassy_plan`, `read` the reading options (R/plan.R, `plan.rs`).
/// Returns, for `mode = "hits"`, `list(hits = <hit columns>, file, name)`
/// with one `file` (1-based path index) and `name` per hit; otherwise
/// `list(records_per_file, name, values)`: the record count of each file, a
/// name per record, and a list with one vector per pattern (integer counts,
/// or logical for contains). The read options' `skip` and `n_records`
/// select a record range of each file (`0`, `NULL`: all): records before it
/// are parsed, not searched, and record numbers stay those of the file (for
/// `record_range()` shards).
#[extendr]
fn ds_fastx_search(paths: Robj, plan: Robj, read: Robj, progress: Robj) -> Robj {
    crate::guard(|| fastx_result((|| -> Result<Robj, FastxError> {
        let margin = crate::plan::margin(&plan)?;
        let plan = crate::plan::search_plan(&plan)?;
        let read = crate::plan::read_options(&read, plan.threads)?;
        let paths = path_strings(&paths, "paths")?;
        let ctl = Control::new();
        let total = crate::progress::files_size(&paths);
        let mut progress = crate::progress::Progress::new(&progress);
        let mut poll = || progress.poll(|| crate::progress::file_bytes_searched(&ctl, total));
        let hits = plan.mode == Mode::Hits;
        let keep = fastx::HitKeep { region: read.region && hits, all_names: read.names && hits };
        let out = fastx::search_keep(&plan, &paths, read.range, read.batch, keep, &ctl, &mut poll)?;
        Ok(match out {
            SearchOutput::Hits(h) => {
                let r = hits_to_r(&h, plan.cigar);
                ducksassy_core::hits::recycle(h.bufs);
                r?
            }
            SearchOutput::Values(v) => values_to_r(&v, plan.mode == Mode::Contains)?,
            SearchOutput::Best(b) => best_to_r(&b, margin, !plan.barcode_spans.is_empty())?,
        })
    })()))
}

/// Write the records of `path` with (or, with `invert`, without) a hit to
/// the output of `filter`, R's new_filter_spec() (R/plan.R: `output`,
/// `invert`, `gzip`, the compression level of the output, 1 to 9, or 0 for
/// a plain output); see `sassy_filter_fastx()`. `plan` is a contains plan,
/// `read` the reading options (only the batch sizes are used). Returns
/// `c(read =, written =)` as doubles (files may hold more than 2^31 records).
#[extendr]
fn ds_fastx_filter(path: Robj, plan: Robj, read: Robj, progress: Robj, filter: Robj) -> Robj {
    crate::guard(|| fastx_result((|| -> Result<Robj, FastxError> {
        let plan = crate::plan::search_plan(&plan)?;
        if plan.mode != Mode::Contains {
            return Err(CoreError::Internal("ds_fastx_filter() needs a contains plan".into()).into());
        }
        let read = crate::plan::read_options(&read, plan.threads)?;
        let path = one_path(&path, "path")?;
        let f = crate::plan::Fields::new(&filter, "filter spec")?;
        let output = one_path(f.get("output")?, "output")?;
        let invert = f.flag("invert")?;
        let gzip = f.number("gzip")?;
        // 0 (a plain output) or a level that check_gzip_level() judges
        let gzip = if gzip == 0.0 { 0 } else if gzip.fract() == 0.0 && gzip.abs() < 1e6 { gzip as i32 } else { -1 };
        let ctl = Control::new();
        let total = crate::progress::files_size(std::slice::from_ref(&path));
        let mut progress = crate::progress::Progress::new(&progress);
        let watch = crate::sigterm::SigtermWatch::begin();
        let mut poll = || watch.pending() || progress.poll(|| crate::progress::file_bytes_searched(&ctl, total));
        let gzip = if gzip == 0 { None } else { Some(check_gzip_level(gzip)?) };
        let c = fastx::filter(&plan, &path, &output, gzip, invert, read.batch, &ctl, &mut poll)?;
        let mut v = Doubles::from_values([c.read as f64, c.written as f64]);
        v.set_names(["read", "written"]).map_err(|e| CoreError::Internal(e.to_string()))?;
        Ok(v.into())
    })()))
}

/// Read at most `n_max` records (`Inf`: all) of `path`; see
/// `sassy_read_fastx()`. Returns `list(format, name, description, sequence,
/// quality)`, `quality` `NULL` for FASTA, `description` `NA` where the header
/// has no space or tab.
#[extendr]
fn ds_fastx_read(path: Robj, n_max: f64, batch_bytes: f64, batch_records: f64) -> Robj {
    crate::guard(|| fastx_result((|| -> Result<Robj, FastxError> {
        let path = one_path(&path, "path")?;
        let n_max = if n_max.is_finite() && n_max >= 0.0 { Some(n_max as u64) } else { None };
        let ctl = Control::new();
        let mut poll = || crate::interrupt::pending();
        let recs = fastx::read(&path, n_max, batch_size(batch_bytes, batch_records, 1), &ctl, &mut poll)?;
        let n = recs.seq.len();
        let too_long = |c: &Column| c.iter().position(|s| s.len() > i32::MAX as usize);
        for (what, c) in [("sequence", &recs.seq), ("quality", &recs.qual)] {
            if let Some(i) = too_long(c) {
                return Err(FastxError::Parse {
                    path: path.clone(),
                    record: Some(i as u64 + 1),
                    line: None,
                    kind: fastx::ParseKind::TooLong,
                    message: format!("its {what} is longer than the longest R string (2^31 - 1 letters)"),
                });
            }
        }
        let name = strings_r(n, |i| Some(fastx::split_header(recs.header.get(i)).0));
        let description = strings_r(n, |i| fastx::split_header(recs.header.get(i)).1);
        let sequence = strings_r(n, |i| Some(recs.seq.get(i)));
        let fastq = recs.format == Some(Format::Fastq);
        let quality = if fastq { strings_r(n, |i| Some(recs.qual.get(i))) } else { Robj::from(()) };
        let format = if fastq { "fastq" } else { "fasta" };
        // headers (name and description), and sequences or qualities, that
        // were not UTF-8, for R's message
        let headers = not_utf8((0..n).map(|i| recs.header.get(i)));
        let letters = not_utf8((0..n).map(|i| recs.seq.get(i))) + if fastq { not_utf8((0..n).map(|i| recs.qual.get(i))) } else { 0.0 };
        Ok(list!(format = format, name = name, description = description, sequence = sequence, quality = quality, not_utf8 = headers, letters_not_utf8 = letters).into())
    })()))
}

/// The number of records in each of `paths` (doubles), parsing every record;
/// see `shard_plan_fastx()` in R, which sizes record-range shards with it.
#[extendr]
fn ds_fastx_count(paths: Robj) -> Robj {
    crate::guard(|| fastx_result((|| -> Result<Robj, FastxError> {
        let paths = path_strings(&paths, "paths")?;
        let ctl = Control::new();
        let mut poll = || crate::interrupt::pending();
        let counts = fastx::count(&paths, &ctl, &mut poll)?;
        Ok(Doubles::from_values(counts.iter().map(|&c| c as f64)).into())
    })()))
}

/// The R value of an entry point's result: an error value for R to raise,
/// after giving the memory of an interrupted or over-limit search back.
pub(crate) fn fastx_result(r: Result<Robj, FastxError>) -> Robj {
    r.unwrap_or_else(|e| {
        if matches!(e, FastxError::Core(CoreError::Interrupted | CoreError::TooManyHits { .. })) {
            crate::release_memory();
        }
        fastx_error_value(&e)
    })
}

/// The batch size R asked for, or (`NaN`) the default for the thread count.
/// A gzip compression level from R (checked there: 1 to 9); the filter's and
/// the demultiplexer's outputs.
pub(crate) fn check_gzip_level(level: i32) -> Result<u32, CoreError> {
    u32::try_from(level)
        .ok()
        .filter(|l| ducksassy_core::fastx::GZIP_LEVELS.contains(l))
        .ok_or_else(|| CoreError::Internal(format!("a gzip compression level of {level}")))
}

pub(crate) fn batch_size(bytes: f64, records: f64, threads: usize) -> BatchSize {
    let d = BatchSize::for_threads(threads);
    let pick = |x: f64, dflt: usize| if x.is_finite() && x >= 1.0 { x.min(usize::MAX as f64) as usize } else { dflt };
    BatchSize { bytes: pick(bytes, d.bytes), records: pick(records, d.records) }
}

/// File paths from a character vector (UTF-8 or ASCII; no `NA`).
pub(crate) fn path_strings(x: &Robj, arg: &'static str) -> Result<Vec<String>, CoreError> {
    let s = crate::borrow_strings(x, arg)?;
    s.iter()
        .enumerate()
        .map(|(i, p)| {
            let p = p.ok_or_else(|| CoreError::invalid(arg, Some(i), Value::Missing, Rule::NotMissing))?;
            // R passes paths in UTF-8 (or ASCII); anything else is a bug there
            std::str::from_utf8(p).map(str::to_string).map_err(|_| CoreError::Internal(format!("`{arg}`[{}] is not valid UTF-8", i + 1)))
        })
        .collect()
}

fn one_path(x: &Robj, arg: &'static str) -> Result<String, CoreError> {
    let mut v = path_strings(x, arg)?;
    if v.len() != 1 {
        return Err(CoreError::Internal(format!("`{arg}` has {} paths, not one", v.len())));
    }
    Ok(v.remove(0))
}

/// One CHARSXP. Bytes come from the reader, which refuses NUL bytes in what
/// becomes a string (R would raise an error through the Rust frames); ASCII
/// and valid UTF-8 are marked as such. Anything else (a header written in
/// Latin-1, say) is read as Latin-1 and converted to UTF-8, each byte one
/// letter, so that R can work with it (`nchar()`, `toupper()` fail on strings
/// marked as bytes); `not_utf8()` counts such strings for R's message.
unsafe fn mkchar(b: &[u8]) -> ffi::SEXP {
    debug_assert!(memchr_nul(b).is_none());
    let b = match memchr_nul(b) {
        Some(i) => &b[..i],
        None => b,
    };
    if b.is_ascii() {
        ffi::Rf_mkCharLenCE(b.as_ptr() as *const _, b.len() as c_int, ffi::cetype_t::CE_NATIVE)
    } else if std::str::from_utf8(b).is_ok() {
        ffi::Rf_mkCharLenCE(b.as_ptr() as *const _, b.len() as c_int, ffi::cetype_t::CE_UTF8)
    } else {
        let s = latin1_to_utf8(b);
        ffi::Rf_mkCharLenCE(s.as_ptr() as *const _, s.len() as c_int, ffi::cetype_t::CE_UTF8)
    }
}

/// The UTF-8 of `b` read as Latin-1 (ISO 8859-1: byte `x` is U+00xx).
fn latin1_to_utf8(b: &[u8]) -> String {
    b.iter().map(|&c| c as char).collect()
}

/// How many of `strings` are not valid UTF-8 (and so come back converted
/// from Latin-1 by `mkchar()`).
fn not_utf8<'a>(strings: impl Iterator<Item = &'a [u8]>) -> f64 {
    strings.filter(|b| !b.is_ascii() && std::str::from_utf8(b).is_err()).count() as f64
}

fn memchr_nul(b: &[u8]) -> Option<usize> {
    b.iter().position(|&c| c == 0)
}

/// A character vector of `n` strings (`None` = `NA`).
fn strings_r<'a>(n: usize, f: impl Fn(usize) -> Option<&'a [u8]>) -> Robj {
    unsafe {
        let v = Robj::from_sexp(ffi::Rf_allocVector(ffi::SEXPTYPE::STRSXP, n as ffi::R_xlen_t));
        let sexp = v.get();
        for i in 0..n {
            let s = match f(i) {
                Some(b) => mkchar(b),
                None => ffi::R_NaString,
            };
            ffi::SET_STRING_ELT(sexp, i as ffi::R_xlen_t, s);
        }
        v
    }
}

fn ints_r(n: usize, mut f: impl FnMut(usize) -> i32) -> Robj {
    unsafe {
        let v = Robj::from_sexp(ffi::Rf_allocVector(ffi::SEXPTYPE::INTSXP, n as ffi::R_xlen_t));
        let dst = ffi::INTEGER(v.get());
        for i in 0..n {
            *dst.add(i) = f(i);
        }
        v
    }
}

/// Hit columns (converted to 1-based in the main binding's `hits_to_r`), the
/// 1-based file index, the record name and length of each hit, (`NULL`
/// unless captured) the matched region of each hit, and (`NULL` unless
/// kept) the name of every record and the records of each file.
pub(crate) fn hits_to_r(h: &FastxHits, cigar: bool) -> Result<Robj, FastxError> {
    let n = h.len();
    let cols = crate::hits_to_r(&h.bufs, cigar);
    // file and record of each hit, in order
    let mut file = Vec::with_capacity(n);
    let mut name_idx = Vec::with_capacity(n);
    let mut last: Option<(u32, u32)> = None;
    let mut next_name = 0usize;
    for (b, &f) in h.bufs.iter().zip(&h.buf_file) {
        for &r in &b.record {
            if last != Some((f, r)) {
                last = Some((f, r));
                next_name += 1;
            }
            file.push(f as i32 + 1);
            name_idx.push(next_name - 1);
        }
    }
    if next_name != h.names.len() {
        return Err(CoreError::Internal(format!("{} record names for {} records with hits", h.names.len(), next_name)).into());
    }
    if h.lengths.len() != h.names.len() {
        return Err(CoreError::Internal("record lengths and names disagree".into()).into());
    }
    let file = ints_r(n, |i| file[i]);
    let name = strings_r(n, |i| Some(h.names.get(name_idx[i])));
    let length = Doubles::from_values(name_idx.iter().map(|&j| h.lengths[j] as f64));
    let region = if h.bufs.iter().all(|b| b.is_empty() || b.has_region()) && h.bufs.iter().any(|b| b.has_region()) {
        let rows: Vec<&[u8]> = h.bufs.iter().flat_map(|b| (0..b.len()).map(move |i| b.region(i))).collect();
        strings_r(n, |i| Some(rows[i]))
    } else {
        Robj::from(())
    };
    // with every record's name kept, those are the headers R gets
    let (not_utf8, all_names, records_per_file) = match &h.all_names {
        Some(all) => {
            if all.len() as u64 != h.records_per_file.iter().sum::<u64>() {
                return Err(CoreError::Internal("record names and record counts disagree".into()).into());
            }
            let per_file = Doubles::from_values(h.records_per_file.iter().map(|&c| c as f64));
            (not_utf8(all.iter()), strings_r(all.len(), |i| Some(all.get(i))), Robj::from(per_file))
        }
        None => (not_utf8((0..h.names.len()).map(|i| h.names.get(i))), Robj::from(()), Robj::from(())),
    };
    Ok(list!(
        hits = cols,
        file = file,
        name = name,
        length = length,
        region = region,
        not_utf8 = not_utf8,
        all_names = all_names,
        records_per_file = records_per_file
    )
    .into())
}

/// The number of records of each file (doubles), the name of each record,
/// and one value vector per pattern (integer counts, or logical), so that R
/// makes the record numbers (`seq_len()` is compact for one file) and the
/// columns without copies.
/// `list(records_per_file, name, best)`: as [`values_to_r`], with the
/// assignment columns of every record (`assign::best_to_r`).
fn best_to_r(b: &fastx::FastxBest, margin: i32, by_barcode: bool) -> Result<Robj, FastxError> {
    let n = b.names.len();
    if b.records_per_file.iter().sum::<u64>() != n as u64 || b.best.len() != n {
        return Err(CoreError::Internal("record counts disagree".into()).into());
    }
    let records_per_file = Doubles::from_values(b.records_per_file.iter().map(|&c| c as f64));
    let name = strings_r(n, |i| Some(b.names.get(i)));
    Ok(list!(records_per_file = records_per_file, name = name, best = crate::assign::best_to_r(&b.best, margin, by_barcode)).into())
}

fn values_to_r(v: &FastxValues, logical: bool) -> Result<Robj, FastxError> {
    let n = v.names.len();
    if v.records_per_file.iter().sum::<u64>() != n as u64 || v.values.iter().any(|c| c.len() != n) {
        return Err(CoreError::Internal("record counts disagree".into()).into());
    }
    let records_per_file = Doubles::from_values(v.records_per_file.iter().map(|&c| c as f64));
    let name = strings_r(n, |i| Some(v.names.get(i)));
    let columns: Vec<Robj> = v
        .values
        .iter()
        .map(|col| unsafe {
            let t = if logical { ffi::SEXPTYPE::LGLSXP } else { ffi::SEXPTYPE::INTSXP };
            let r = Robj::from_sexp(ffi::Rf_allocVector(t, n as ffi::R_xlen_t));
            let dst = if logical { ffi::LOGICAL(r.get()) } else { ffi::INTEGER(r.get()) };
            if n > 0 {
                std::ptr::copy_nonoverlapping(col.as_ptr(), dst, n);
            }
            r
        })
        .collect();
    let values = List::from_values(columns);
    let not_utf8 = not_utf8((0..n).map(|i| v.names.get(i)));
    Ok(list!(records_per_file = records_per_file, name = name, values = values, not_utf8 = not_utf8).into())
}

extendr_module! {
    mod fastx;
    fn ds_fastx_search;
    fn ds_fastx_filter;
    fn ds_fastx_read;
    fn ds_fastx_count;
}
