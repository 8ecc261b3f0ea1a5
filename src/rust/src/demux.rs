//! The binding of `sassy_demultiplex_fastx()`: R values in, one
//! `ducksassy_core::fastx::demux::demultiplex` call, the records written
//! to each output out.

use crate::fastx::{fastx_result, path_strings};
use ducksassy_core::fastx::demux::{self, DemuxSpec};
use ducksassy_core::fastx::demux_report::DemuxReport;
use ducksassy_core::fastx::FastxError;
use ducksassy_core::{Control, CoreError};
use extendr_api::prelude::*;

/// Demultiplex `paths` (and the mates' files `mates`, `NULL` for single
/// reads) into `outputs` (and `mate_outputs`). `sample` is the 0-based
/// output of each pattern, `unassigned` and `ambiguous` the outputs of
/// those records; `gzip_level` the compression level (1 to 9) of the
/// outputs named `.gz`; `plan` an assign plan (with its `margin`); `report`
/// `NULL` or `list(path, output_names, pattern_names)` (a per-read TSV).
/// Returns the records (pairs) written to each output, as doubles.
#[extendr]
#[allow(clippy::too_many_arguments)]
fn ds_fastx_demultiplex(paths: Robj, mates: Robj, outputs: Robj, mate_outputs: Robj, sample: Robj, unassigned: i32, ambiguous: i32, trim: bool, gzip_level: i32, plan: Robj, read: Robj, progress: Robj, report: Robj) -> Robj {
    crate::guard(|| fastx_result((|| -> Result<Robj, FastxError> {
        let margin = crate::plan::margin(&plan)?;
        let plan = crate::plan::search_plan(&plan)?;
        let read = crate::plan::read_options(&read, plan.threads)?;
        let paths = path_strings(&paths, "paths")?;
        let mates = if mates.is_null() { None } else { Some(path_strings(&mates, "mates")?) };
        let outputs = path_strings(&outputs, "output")?;
        let mate_outputs = if mate_outputs.is_null() { None } else { Some(path_strings(&mate_outputs, "output")?) };
        let index = |i: i32| usize::try_from(i).map_err(|_| CoreError::Internal("a negative output index".into()));
        let sample_of_pattern = sample
            .as_integer_slice()
            .ok_or_else(|| CoreError::Internal("`sample` is not an integer vector".into()))?
            .iter()
            .map(|&i| index(i))
            .collect::<Result<Vec<_>, _>>()?;
        let gzip_level = check_gzip_level(gzip_level)?;
        let report = report_spec(&report)?;
        let spec = DemuxSpec { outputs, mate_outputs, sample_of_pattern, unassigned: index(unassigned)?, ambiguous: index(ambiguous)?, margin, trim, gzip_level, report };
        let ctl = Control::new();
        let all: Vec<String> = paths.iter().chain(mates.iter().flatten()).cloned().collect();
        let total = crate::progress::files_size(&all);
        let mut progress = crate::progress::Progress::new(&progress);
        // a SIGTERM stops the run as Ctrl-C does (its temporary files
        // removed), then ends the process when `watch` is dropped
        let watch = crate::sigterm::SigtermWatch::begin();
        let mut poll = || watch.pending() || progress.poll(|| crate::progress::file_bytes_searched(&ctl, total));
        let counts = demux::demultiplex(&plan, &paths, mates.as_deref(), &spec, read.batch, &ctl, &mut poll)?;
        Ok(Doubles::from_values(counts.iter().map(|&c| c as f64)).into())
    })()))
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

/// A gzip compression level from R (checked there: 1 to 9).
pub(crate) fn check_gzip_level(level: i32) -> Result<u32, CoreError> {
    u32::try_from(level)
        .ok()
        .filter(|l| ducksassy_core::fastx::GZIP_LEVELS.contains(l))
        .ok_or_else(|| CoreError::Internal(format!("a gzip compression level of {level}")))
}

extendr_module! {
    mod demux;
    fn ds_fastx_demultiplex;
}
