//! The binding of `sassy_demultiplex_fastx()`: R values in, one
//! `ducksassy_core::fastx::demux::demultiplex` call, the records written
//! to each output out.

use crate::fastx::{check_gzip_level, fastx_result, path_strings};
use ducksassy_core::ends_policy::{EndsRule, Policy, RowEnd};
use ducksassy_core::fastx::demux::{self, DemuxSpec};
use ducksassy_core::fastx::demux_ends::EndsSpec;
use ducksassy_core::fastx::demux_report::DemuxReport;
use ducksassy_core::fastx::FastxError;
use ducksassy_core::{Control, CoreError};
use extendr_api::prelude::*;

/// Demultiplex `paths` into the outputs of `demux`, R's
/// new_demux_spec() (R/plan.R; see [`demux_spec`]): `plan` is an assign plan
/// (with its `margin`), `read` the reading options, `progress` the progress
/// callback. Returns the records (pairs) written to each output, as
/// doubles.
#[extendr]
fn ds_fastx_demultiplex(paths: Robj, plan: Robj, read: Robj, progress: Robj, demux: Robj) -> Robj {
    // a SIGTERM during the run: R removes the folders it created, then
    // raises it again (R's demultiplex_fastx(), the attribute `sigterm`)
    let sigterm = std::cell::Cell::new(false);
    crate::guard(|| with_sigterm(&sigterm, fastx_result((|| -> Result<Robj, FastxError> {
        let margin = crate::plan::margin(&plan)?;
        let plan = crate::plan::search_plan(&plan)?;
        let read = crate::plan::read_options(&read, plan.threads)?;
        let paths = path_strings(&paths, "paths")?;
        let (spec, mates) = demux_spec(&demux, margin)?;
        let ctl = Control::new();
        let all: Vec<String> = paths.iter().chain(mates.iter().flatten()).cloned().collect();
        let total = crate::progress::files_size(&all);
        let mut progress = crate::progress::Progress::new(&progress);
        // a SIGTERM stops the run as Ctrl-C does (its temporary files
        // removed); R ends the process once it has cleaned up
        let watch = crate::sigterm::SigtermWatch::begin();
        let mut poll = || watch.pending() || progress.poll(|| crate::progress::file_bytes_searched(&ctl, total));
        let counts = demux::demultiplex(&plan, &paths, mates.as_deref(), &spec, read.batch, &ctl, &mut poll);
        sigterm.set(watch.end_deferred());
        let counts = counts?;
        Ok(Doubles::from_values(counts.iter().map(|&c| c as f64)).into())
    })())))
}

/// The outputs of a run from R's new_demux_spec() list (read by name):
/// `mates` (`NULL` for single reads), `outputs`, `mate_outputs` (`NULL`),
/// `sample` (the 0-based output of each pattern), `unassigned` and
/// `ambiguous` (0-based outputs), `trim`, `gzip_level` (1 to 9, for the
/// outputs named `.gz`), `report` (`NULL` or `list(path, output_names,
/// pattern_names)`: a per-read TSV) and `ends` (`NULL`, or the both-ends
/// mode, see [`ends_spec`]). Returns the spec and the mates' files.
fn demux_spec(demux: &Robj, margin: i32) -> Result<(DemuxSpec, Option<Vec<String>>), FastxError> {
    let f = crate::plan::Fields::new(demux, "demultiplexing spec")?;
    let mates = f.get("mates")?;
    let mates = if mates.is_null() { None } else { Some(path_strings(mates, "mates")?) };
    let outputs = path_strings(f.get("outputs")?, "output")?;
    let mate_outputs = f.get("mate_outputs")?;
    let mate_outputs = if mate_outputs.is_null() { None } else { Some(path_strings(mate_outputs, "output")?) };
    let index = |name: &str| -> Result<Vec<usize>, CoreError> {
        let v = f.whole_numbers_or_null(name)?.ok_or_else(|| CoreError::Internal(format!("the demultiplexing spec's `{name}` is NULL")))?;
        v.into_iter().map(|i| usize::try_from(i).map_err(|_| CoreError::Internal(format!("a negative output index in `{name}`")))).collect()
    };
    let one = |name: &str| -> Result<usize, CoreError> {
        match index(name)?.as_slice() {
            [i] => Ok(*i),
            _ => Err(CoreError::Internal(format!("the demultiplexing spec's `{name}` is not one index"))),
        }
    };
    let gzip_level = f.number("gzip_level")?;
    let gzip_level = check_gzip_level(if gzip_level.fract() == 0.0 && gzip_level.abs() < 1e6 { gzip_level as i32 } else { -1 })?;
    let spec = DemuxSpec {
        outputs,
        mate_outputs,
        sample_of_pattern: index("sample")?,
        unassigned: one("unassigned")?,
        ambiguous: one("ambiguous")?,
        margin,
        trim: f.flag("trim")?,
        gzip_level,
        report: report_spec(f.get("report")?)?,
        ends: ends_spec(f.get("ends")?)?,
    };
    Ok((spec, mates))
}

/// The result, with the attribute `sigterm` (`TRUE`) when one came.
fn with_sigterm(sigterm: &std::cell::Cell<bool>, mut out: Robj) -> Robj {
    if sigterm.get() {
        let _ = out.set_attrib("sigterm", true);
    }
    out
}

/// The report's path and names from R's `list(path, output_names,
/// pattern_names)`, or none for `NULL`.
fn report_spec(report: &Robj) -> Result<Option<DemuxReport>, FastxError> {
    if report.is_null() {
        return Ok(None);
    }
    let bad = || FastxError::from(CoreError::Internal("`report` is not list(path, output_names, pattern_names)".into()));
    let list = report.as_list().ok_or_else(bad)?;
    let strings = |i: usize| -> Result<Vec<String>, FastxError> {
        let v = list.elt(i).map_err(|_| bad())?;
        let s = v.as_str_vector().ok_or_else(bad)?;
        Ok(s.iter().map(|x| x.to_string()).collect())
    };
    let path = strings(0)?.into_iter().next().ok_or_else(bad)?;
    Ok(Some(DemuxReport { path, output_names: strings(1)?, pattern_names: strings(2)? }))
}

/// The both-ends mode from R's list (demux_ends_outputs()`$spec`): `end_length`,
/// `policy`, `barcode` (0-based, of each pattern), `row_end` (of each
/// pattern), `sheet_front`, `sheet_rear` (`NA`: any), `sheet_sample`
/// (0-based), `output_of_sample`, `output_of_reason` (0-based outputs),
/// `flank_plans` (a list of plans), `chimeras`, `chimera_k`, `split`, `barcode_names`,
/// `sample_names`, `barcode_cap` (of each pattern, or empty: no cap; the
/// plan has the barcodes' letters), `spacer_plan` (an assign plan, or `NULL`) and
/// `barcode_price` (of each pattern, with a spacer plan); or none for `NULL`. R builds it: anything else is an
/// internal error.
fn ends_spec(ends: &Robj) -> Result<Option<EndsSpec>, FastxError> {
    if ends.is_null() {
        return Ok(None);
    }
    let bad = |what: &str| FastxError::from(CoreError::Internal(format!("both ends: {what}")));
    let list = ends.as_list().ok_or_else(|| bad("not a list"))?;
    let get = |name: &str| -> Result<Robj, FastxError> { list.iter().find(|(n, _)| *n == name).map(|(_, v)| v).ok_or_else(|| bad(name)) };
    let ints = |name: &str| -> Result<Vec<Option<u32>>, FastxError> {
        let v = get(name)?;
        let s = v.as_integer_slice().ok_or_else(|| bad(name))?;
        s.iter().map(|&i| if i == i32::MIN { Ok(None) } else { u32::try_from(i).map(Some).map_err(|_| bad(name)) }).collect()
    };
    let some = |name: &str| -> Result<Vec<u32>, FastxError> { ints(name)?.into_iter().map(|i| i.ok_or_else(|| bad(name))).collect() };
    let strings = |name: &str| -> Result<Vec<String>, FastxError> {
        let v = get(name)?;
        if v.len() == 0 {
            return Ok(Vec::new());
        }
        Ok(v.as_str_vector().ok_or_else(|| bad(name))?.iter().map(|x| x.to_string()).collect())
    };
    let end_length = some("end_length")?.first().copied().ok_or_else(|| bad("end_length"))? as usize;
    let policy = strings("policy")?.first().and_then(|p| Policy::parse(p)).ok_or_else(|| bad("policy"))?;
    let row_end = strings("row_end")?.iter().map(|r| RowEnd::parse(r).ok_or_else(|| bad("row_end"))).collect::<Result<Vec<_>, _>>()?;
    let (front, rear, sample) = (some("sheet_front")?, ints("sheet_rear")?, some("sheet_sample")?);
    if front.len() != rear.len() || front.len() != sample.len() {
        return Err(bad("the sample sheet's columns differ in length"));
    }
    let sheet: Vec<(u32, Option<u32>, u32)> = (0..front.len()).map(|i| (front[i], rear[i], sample[i])).collect();
    let rule = EndsRule::new(policy, some("barcode")?, row_end, &sheet).map_err(|e| bad(&e))?;
    let output_of_reason: [usize; 7] = some("output_of_reason")?.iter().map(|&o| o as usize).collect::<Vec<_>>().try_into().map_err(|_| bad("output_of_reason"))?;
    let flanks = get("flank_plans")?;
    let flank_list = flanks.as_list().ok_or_else(|| bad("flank_plans"))?;
    let flank_plans = flank_list.values().map(|p| crate::plan::search_plan(&p)).collect::<Result<Vec<_>, _>>()?;
    let chimeras = get("chimeras")?.as_bool().ok_or_else(|| bad("chimeras"))?;
    let chimera_k = some("chimera_k")?.first().copied().ok_or_else(|| bad("chimera_k"))? as usize;
    let split = get("split")?.as_bool().ok_or_else(|| bad("split"))?;
    let barcode_caps = some("barcode_cap")?;
    // the flanks with nothing between them: an assign plan, or NULL
    let spacer = get("spacer_plan")?;
    let spacer_plan = if spacer.is_null() { None } else { Some(crate::plan::search_plan(&spacer)?) };
    Ok(Some(EndsSpec {
        end_length,
        rule,
        output_of_sample: some("output_of_sample")?.iter().map(|&o| o as usize).collect(),
        output_of_reason,
        flank_plans,
        chimeras,
        chimera_k,
        split,
        barcode_caps,
        spacer_plan,
        barcode_price: some("barcode_price")?,
        barcode_names: strings("barcode_names")?,
        sample_names: strings("sample_names")?,
    }))
}

extendr_module! {
    mod demux;
    fn ds_fastx_demultiplex;
}
