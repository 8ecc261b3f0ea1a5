//! The extendr binding of CRISPR off-target search: R values in, one
//! `ducksassy_core` call (the plan from `plan.rs`, then the engine or the
//! FASTX reader), R values out. See `sassy_crispr()` in R for the contract and
//! `core/src/crispr.rs` for the definition. Errors come back as values of
//! class `ducksassy_rust_error`, like the other entry points; a panic (a
//! bug) becomes one too, through `crate::guard`.

use ducksassy_core::fastx::{self, FastxError, SearchOutput};
use ducksassy_core::{run, Control, CoreError, Output, SearchPlan};
use extendr_api::prelude::*;

/// CRISPR search of texts (a character vector) for the guides (PAM
/// included) of `plan`, a `ducksassy_plan` with a `pam_length` (R/plan.R);
/// returns the hit columns (1-based, as `ds_search()`) or an error value.
#[extendr]
fn ds_crispr(texts: Robj, plan: Robj, progress: Robj) -> Robj {
    crate::guard(|| match search_texts(texts, &plan, &progress) {
        Ok(r) => r,
        Err(e) => {
            if matches!(e, CoreError::Interrupted | CoreError::TooManyHits { .. }) {
                // the dropped buffers of a big search, back to the system now
                crate::release_memory();
            }
            crate::error_value(&e)
        }
    })
}

/// CRISPR search of FASTA/FASTQ files, streamed in batches by the FASTX
/// reader; `read` is the reading options (a record range of each file, as
/// for `ds_fastx_search()`). Returns `list(hits, file, name)` as
/// `ds_fastx_search()` does for hits, or an error value (file errors with
/// `path`, `record`, `line`).
#[extendr]
fn ds_crispr_fastx(paths: Robj, plan: Robj, read: Robj, progress: Robj) -> Robj {
    crate::guard(|| {
        let found = crate::plan::search_plan(&plan).and_then(|plan| {
            let read = crate::plan::read_options(&read, plan.threads)?;
            Ok((plan, read))
        });
        match found.map_err(FastxError::from).and_then(|(plan, read)| search_files(&plan, &paths, &read, &progress)) {
            Ok(r) => r,
            Err(e) => {
                if matches!(e, FastxError::Core(CoreError::Interrupted | CoreError::TooManyHits { .. })) {
                    crate::release_memory();
                }
                crate::fastx::fastx_error_value(&e)
            }
        }
    })
}

fn search_texts(texts: Robj, plan: &Robj, progress: &Robj) -> std::result::Result<Robj, CoreError> {
    let texts = crate::borrow_strings(&texts, "texts")?;
    let plan = crate::plan::search_plan(plan)?;
    if plan.crispr.is_none() {
        return Err(CoreError::Internal("ds_crispr() got a plan without `pam_length`".into()));
    }
    let ctl = Control::new();
    let mut progress = crate::progress::Progress::new(progress);
    let mut poll = || progress.poll(|| crate::progress::bytes_searched(&ctl));
    match run(&plan, &texts, &ctl, Some(&mut poll))? {
        Output::Hits(bufs) => {
            let r = crate::hits_to_r(&bufs, plan.cigar);
            ducksassy_core::hits::recycle(bufs);
            Ok(r)
        }
        Output::Values(_) | Output::Best(_) => Err(CoreError::Internal("a CRISPR search returned counts".into())),
    }
}

fn search_files(plan: &SearchPlan, paths: &Robj, read: &crate::plan::ReadOptions, progress: &Robj) -> std::result::Result<Robj, FastxError> {
    if plan.crispr.is_none() {
        return Err(CoreError::Internal("ds_crispr_fastx() got a plan without `pam_length`".into()).into());
    }
    let paths = crate::fastx::path_strings(paths, "paths")?;
    let ctl = Control::new();
    let total = crate::progress::files_size(&paths);
    let mut progress = crate::progress::Progress::new(progress);
    let mut poll = || progress.poll(|| crate::progress::file_bytes_searched(&ctl, total));
    match fastx::search_regions(plan, &paths, read.range, read.batch, read.region, &ctl, &mut poll)? {
        SearchOutput::Hits(h) => {
            let r = crate::fastx::hits_to_r(&h, plan.cigar);
            ducksassy_core::hits::recycle(h.bufs);
            r
        }
        SearchOutput::Values(_) | SearchOutput::Best(_) => Err(CoreError::Internal("a CRISPR search returned counts".into()).into()),
    }
}

extendr_module! {
    mod crispr;
    fn ds_crispr;
    fn ds_crispr_fastx;
}
