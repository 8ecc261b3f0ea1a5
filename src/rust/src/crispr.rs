//! The extendr binding of CRISPR off-target search: R values in, one
//! `ducksassy_core` call (`crispr::plan`, then the engine or the FASTX
//! reader), R values out. See `sassy_crispr()` in R for the contract and
//! `core/src/crispr.rs` for the definition. Errors come back as values of
//! class `ducksassy_rust_error`, like the other entry points; a panic (a
//! bug) becomes one too, through `crate::guard`.

use ducksassy_core::crispr::{self, CrisprOptions};
use ducksassy_core::fastx::{self, FastxError, SearchOutput};
use ducksassy_core::{run, Control, CoreError, Output, SearchOptions, SearchPlan};
use extendr_api::prelude::*;

/// CRISPR search of texts (a character vector) for guides (PAM included);
/// returns the hit columns (1-based, as `ds_search()`) or an error value.
#[extendr]
#[allow(clippy::too_many_arguments)]
fn ds_crispr(
    texts: Robj,
    guides: Robj,
    k: i32,
    pam_length: Robj,
    allow_pam_edits: bool,
    max_n_frac: f64,
    rc: bool,
    cigar: bool,
    threads: i32,
    max_hits: f64,
    indels: bool,
    progress: Robj,
) -> Robj {
    crate::guard(|| match search_texts(texts, guides, k, pam_length, allow_pam_edits, max_n_frac, rc, cigar, threads, max_hits, indels, &progress) {
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

/// CRISPR search of FASTA/FASTQ files (a record range of each: `skip`,
/// `n_records` as for `ds_fastx_search()`), streamed in batches by the FASTX
/// reader; returns `list(hits, file, name)` as `ds_fastx_search()` does for
/// hits, or an error value (file errors with `path`, `record`, `line`).
#[extendr]
#[allow(clippy::too_many_arguments)]
fn ds_crispr_fastx(
    paths: Robj,
    guides: Robj,
    k: i32,
    pam_length: Robj,
    allow_pam_edits: bool,
    max_n_frac: f64,
    rc: bool,
    cigar: bool,
    threads: i32,
    max_hits: f64,
    batch_bytes: f64,
    batch_records: f64,
    skip: f64,
    n_records: f64,
    region: bool,
    indels: bool,
    progress: Robj,
) -> Robj {
    crate::guard(|| {
        let plan = crispr_plan(&guides, k, pam_length, allow_pam_edits, max_n_frac, rc, cigar, threads, max_hits, indels);
        let found = plan.and_then(|plan| Ok((plan, crate::fastx::record_range(skip, n_records)?)));
        match found.map_err(FastxError::from).and_then(|(plan, range)| search_files(&plan, &paths, range, cigar, batch_bytes, batch_records, region, &progress)) {
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

#[allow(clippy::too_many_arguments)]
fn search_texts(
    texts: Robj,
    guides: Robj,
    k: i32,
    pam_length: Robj,
    allow_pam_edits: bool,
    max_n_frac: f64,
    rc: bool,
    cigar: bool,
    threads: i32,
    max_hits: f64,
    indels: bool,
    progress: &Robj,
) -> std::result::Result<Robj, CoreError> {
    let texts = crate::borrow_strings(&texts, "texts")?;
    let plan = crispr_plan(&guides, k, pam_length, allow_pam_edits, max_n_frac, rc, cigar, threads, max_hits, indels)?;
    let ctl = Control::new();
    let mut progress = crate::progress::Progress::new(progress);
    let mut poll = || progress.poll(|| crate::progress::bytes_searched(&ctl));
    match run(&plan, &texts, &ctl, Some(&mut poll))? {
        Output::Hits(bufs) => {
            let r = crate::hits_to_r(&bufs, cigar);
            ducksassy_core::hits::recycle(bufs);
            Ok(r)
        }
        Output::Values(_) => Err(CoreError::Internal("a CRISPR search returned counts".into())),
    }
}

#[allow(clippy::too_many_arguments)]
fn search_files(
    plan: &SearchPlan,
    paths: &Robj,
    range: fastx::RecordRange,
    cigar: bool,
    batch_bytes: f64,
    batch_records: f64,
    region: bool,
    progress: &Robj,
) -> std::result::Result<Robj, FastxError> {
    let paths = crate::fastx::path_strings(paths, "paths")?;
    let size = crate::fastx::batch_size(batch_bytes, batch_records, plan.threads);
    let ctl = Control::new();
    let total = crate::progress::files_size(&paths);
    let mut progress = crate::progress::Progress::new(progress);
    let mut poll = || progress.poll(|| crate::progress::file_bytes_read(&ctl, total));
    match fastx::search_regions(plan, &paths, range, size, region, &ctl, &mut poll)? {
        SearchOutput::Hits(h) => {
            let r = crate::fastx::hits_to_r(&h, cigar);
            ducksassy_core::hits::recycle(h.bufs);
            r
        }
        SearchOutput::Values(_) => Err(CoreError::Internal("a CRISPR search returned counts".into()).into()),
    }
}

/// The validated plan (`NaN` = no limit for `max_hits`; `NA` integers become
/// invalid values that the core rejects with a message naming them).
/// `pam_length` is an integer vector: one value, or one per guide.
#[allow(clippy::too_many_arguments)]
fn crispr_plan(
    guides: &Robj,
    k: i32,
    pam_length: Robj,
    allow_pam_edits: bool,
    max_n_frac: f64,
    rc: bool,
    cigar: bool,
    threads: i32,
    max_hits: f64,
    indels: bool,
) -> std::result::Result<SearchPlan, CoreError> {
    let Some(pam) = pam_length.as_integer_slice() else {
        return Err(CoreError::InvalidArgument {
            arg: "pam_length",
            index: None,
            value: format!("{:?}", pam_length.rtype()),
            expected: "an integer vector".into(),
        });
    };
    let mut pam_lengths = Vec::with_capacity(pam.len());
    for (i, &p) in pam.iter().enumerate() {
        if p < 1 {
            let v = if p == i32::MIN { "NA".to_string() } else { p.to_string() };
            let index = (pam.len() > 1).then_some(i);
            return Err(CoreError::InvalidArgument { arg: "pam_length", index, value: v, expected: "a whole number >= 1".into() });
        }
        pam_lengths.push(p as usize);
    }
    let opts = SearchOptions {
        k: if k == i32::MIN { -1 } else { k as i64 },
        rc,
        cigar,
        threads: threads.max(0) as usize,
        max_hits: (!max_hits.is_nan()).then(|| max_hits.max(0.0) as u64),
        indels,
        ..Default::default()
    };
    let c = CrisprOptions { pam_length: pam_lengths, allow_pam_edits, max_n_frac };
    let g = crate::borrow_strings(guides, "guides")?;
    let mut bytes = Vec::with_capacity(g.len());
    for (i, s) in g.iter().enumerate() {
        bytes.push(s.ok_or_else(|| CoreError::InvalidArgument {
            arg: "guides",
            index: Some(i),
            value: "NA".into(),
            expected: "a non-missing string".into(),
        })?);
    }
    crispr::plan(&opts, &bytes, &c)
}

extendr_module! {
    mod crispr;
    fn ds_crispr;
    fn ds_crispr_fastx;
}
