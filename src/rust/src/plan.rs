//! The one place where R's search options become a core [`SearchPlan`].
//!
//! R checks the *shape* of every argument (type, length, `NA`) once and
//! hands the entry points one named list of class `ducksassy_plan`
//! (`new_plan()` in R/plan.R); the file searches add a second small list of
//! reading options (`new_read_options()`). Here the fields are read by name
//! and the core checks the *domain* rules (k below every pattern's length,
//! rc with ascii, overhang with iupac, PAM length, ...) in
//! `SearchPlan::new()` / `crispr::plan()`. An absent optional value is
//! `NULL`. A field that is missing or of the wrong type is a bug in R's
//! shape checks: an internal error naming the field.

use ducksassy_core::crispr::{self, CrisprOptions};
use ducksassy_core::fastx::{BatchSize, RecordRange};
use ducksassy_core::alphabet::ALPHABET_NAMES;
use ducksassy_core::error::{Rule, Value};
use ducksassy_core::{Alphabet, CoreError, Mode, SearchOptions, SearchPlan};
use extendr_api::prelude::*;

/// The fields of a named R list, looked up by name. The names are borrowed
/// from the list `x` (CHARSXPs of its names attribute, protected as long as
/// `x` is: a `.Call` argument, for the whole call), so a `Fields` lives no
/// longer than the borrow of `x`. (extendr's list iterator hands the names
/// out as `&'static str`; the lifetime narrows that to what is true.)
pub(crate) struct Fields<'a> {
    what: &'static str,
    fields: Vec<(&'a str, Robj)>,
}

impl<'a> Fields<'a> {
    pub(crate) fn new(x: &'a Robj, what: &'static str) -> Result<Self, CoreError> {
        let list = x.as_list().ok_or_else(|| CoreError::Internal(format!("the {what} is not a list")))?;
        let fields = list.iter().collect();
        Ok(Fields { what, fields })
    }

    pub(crate) fn get(&self, name: &str) -> Result<&Robj, CoreError> {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
            .ok_or_else(|| CoreError::Internal(format!("the {} has no field `{name}`", self.what)))
    }

    fn bad(&self, name: &str, expected: &str) -> CoreError {
        CoreError::Internal(format!("the {} field `{name}` is not {expected}", self.what))
    }

    /// The field, or `None` when the list has none (fields that older
    /// callers, e.g. the table plans, do not set).
    fn optional(&self, name: &str) -> Option<&Robj> {
        self.fields.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// `TRUE` or `FALSE`.
    pub(crate) fn flag(&self, name: &str) -> Result<bool, CoreError> {
        let x = self.get(name)?;
        match x.as_logical_slice() {
            Some([b]) if !b.is_na() => Ok(b.is_true()),
            _ => Err(self.bad(name, "TRUE or FALSE")),
        }
    }

    /// One number (integer or double, not `NA`), or `None` for `NULL`.
    fn number_or_null(&self, name: &str) -> Result<Option<f64>, CoreError> {
        let x = self.get(name)?;
        if x.is_null() {
            return Ok(None);
        }
        let v = match (x.as_integer_slice(), x.as_real_slice()) {
            (Some([i]), _) if *i != i32::MIN => *i as f64,
            (_, Some([d])) if !d.is_nan() => *d,
            _ => return Err(self.bad(name, "NULL or one number")),
        };
        Ok(Some(v))
    }

    pub(crate) fn number(&self, name: &str) -> Result<f64, CoreError> {
        self.number_or_null(name)?.ok_or_else(|| self.bad(name, "one number"))
    }

    /// One string.
    fn string(&self, name: &str) -> Result<&str, CoreError> {
        let x = self.get(name)?;
        match x.as_str_vector() {
            Some(v) if v.len() == 1 && !x.is_na() => Ok(v[0]),
            _ => Err(self.bad(name, "one string")),
        }
    }

    /// Whole numbers (an integer vector, or doubles with whole values), or
    /// `None` for `NULL`.
    pub(crate) fn whole_numbers_or_null(&self, name: &str) -> Result<Option<Vec<i64>>, CoreError> {
        let x = self.get(name)?;
        if x.is_null() {
            return Ok(None);
        }
        if let Some(v) = x.as_integer_slice() {
            if v.iter().all(|&i| i != i32::MIN) {
                return Ok(Some(v.iter().map(|&i| i as i64).collect()));
            }
        } else if let Some(v) = x.as_real_slice() {
            if v.iter().all(|d| d.is_finite() && d.fract() == 0.0) {
                return Ok(Some(v.iter().map(|&d| d as i64).collect()));
            }
        }
        Err(self.bad(name, "NULL or whole numbers"))
    }
}

/// The options of a `ducksassy_plan` list, and its patterns (guides for a
/// CRISPR plan: those have a `pam_length`) borrowed from R.
/// The barcode letters `[from, to)` of each pattern (`barcode_from`,
/// `barcode_to`, R's with_barcode_spans()), or none: both `NULL`.
fn barcode_spans(f: &Fields, n: usize) -> Result<Vec<ducksassy_core::barcode_edits::Span>, CoreError> {
    match (f.whole_numbers_or_null("barcode_from")?, f.whole_numbers_or_null("barcode_to")?) {
        (None, None) => Ok(Vec::new()),
        (Some(from), Some(to)) if from.len() == n && to.len() == n && from.iter().zip(&to).all(|(&a, &b)| 0 <= a && a <= b && b <= u32::MAX as i64) => {
            Ok(from.iter().zip(&to).map(|(&a, &b)| (a as u32, b as u32)).collect())
        }
        _ => Err(CoreError::Internal("the search plan's barcode spans do not match its patterns".into())),
    }
}

pub(crate) fn search_plan(plan: &Robj) -> Result<SearchPlan, CoreError> {
    let f = Fields::new(plan, "search plan")?;
    let k = f.number("k")?;
    let opts = SearchOptions {
        k: k as i64,
        alphabet: alphabet(f.string("alphabet")?)?,
        ignore_case: f.flag("ignore_case")?,
        rc: f.flag("rc")?,
        all_endpoints: f.flag("all_endpoints")?,
        overhang: f.number_or_null("overhang")?,
        max_n_frac: f.number_or_null("max_n_frac")?,
        cigar: f.flag("cigar")?,
        threads: f.number("threads")?.max(0.0) as usize,
        mode: Mode::parse(f.string("mode")?)?,
        max_hits: f.number_or_null("max_hits")?.map(|m| m.max(0.0) as u64),
        indels: f.flag("indels")?,
        ends: ends(&f)?,
        samples: samples(&f)?,
        // anything newer (e.g. windowing of long records) at its default
        ..Default::default()
    };
    let crispr = f.whole_numbers_or_null("pam_length")?;
    let arg = if crispr.is_some() { "guides" } else { "patterns" };
    let strings = crate::borrow_strings(f.get("patterns")?, arg)?;
    let mut patterns = Vec::with_capacity(strings.len());
    for (i, p) in strings.iter().enumerate() {
        patterns.push(p.ok_or_else(|| CoreError::invalid(arg, Some(i), Value::Missing, Rule::NotMissing))?);
    }
    let spans = barcode_spans(&f, patterns.len())?;
    // the both-ends mode's ends of one read (absent or NULL: not)
    let halves = match f.optional("halves") {
        Some(x) if !x.is_null() => f.flag("halves")?,
        _ => false,
    };
    let with_halves = move |mut p: SearchPlan| {
        p.halves = halves && p.ends.is_some();
        p
    };
    match crispr {
        // a barcode set's patterns hang over the reads' own ends only
        None if !spans.is_empty() && opts.overhang.is_some() && opts.mode == Mode::Assign => ducksassy_core::edge_overhang::plan(&opts, &patterns, spans, margin(plan)?).map(with_halves),
        None => SearchPlan::new(&opts, &patterns).map(|mut plan| {
            plan.set_barcode_spans(spans);
            with_halves(plan)
        }),
        Some(pam) => {
            let c = CrisprOptions {
                // below 1 (or NA, which R refuses first) is the core's error
                pam_length: pam.iter().map(|&p| p.max(0) as usize).collect(),
                allow_pam_edits: f.flag("allow_pam_edits")?,
                max_n_frac: opts.max_n_frac.unwrap_or(1.0),
            };
            let opts = SearchOptions { max_n_frac: None, ..opts };
            crispr::plan(&opts, &patterns, &c)
        }
    }
}

/// `ends`: absent or `NULL` (whole records), or two whole numbers >= 0
/// (R checks the shape and recycles one number to both ends).
fn ends(f: &Fields) -> Result<Option<(usize, usize)>, CoreError> {
    if f.optional("ends").is_none_or(|x| x.is_null()) {
        return Ok(None);
    }
    match f.whole_numbers_or_null("ends")?.as_deref() {
        Some(&[a, b]) if a >= 0 && b >= 0 => Ok(Some((a as usize, b as usize))),
        _ => Err(f.bad("ends", "two whole numbers >= 0")),
    }
}

/// `samples`: absent or `NULL` (each pattern its own sample), or the
/// 0-based sample of each pattern (R's `assign_samples()`); the core checks
/// the length.
fn samples(f: &Fields) -> Result<Option<Vec<u32>>, CoreError> {
    if f.optional("samples").is_none_or(|x| x.is_null()) {
        return Ok(None);
    }
    let v = f.whole_numbers_or_null("samples")?.unwrap_or_default();
    v.iter().map(|&s| u32::try_from(s).map_err(|_| f.bad("samples", "whole numbers >= 0"))).collect::<Result<Vec<_>, _>>().map(Some)
}

/// The `margin` of an assignment plan (absent or `NULL`: 0).
pub(crate) fn margin(plan: &Robj) -> Result<i32, CoreError> {
    let f = Fields::new(plan, "search plan")?;
    if f.optional("margin").is_none_or(|x| x.is_null()) {
        return Ok(0);
    }
    Ok(f.number("margin")?.clamp(0.0, i32::MAX as f64) as i32)
}

fn alphabet(name: &str) -> Result<Alphabet, CoreError> {
    Alphabet::parse(name).ok_or_else(|| CoreError::invalid("alphabet", None, name, Rule::OneOf(ALPHABET_NAMES)))
}

/// How files are read (`new_read_options()` in R): batch sizes (`NULL`: the
/// default for the thread count), the record range of each file,
/// whether the matched region of each hit is captured, and whether the name
/// of every record is kept in hits mode.
pub(crate) struct ReadOptions {
    pub batch: BatchSize,
    pub range: RecordRange,
    pub region: bool,
    /// Keep the name of every record in hits mode (sparse counts).
    pub names: bool,
}

pub(crate) fn read_options(read: &Robj, threads: usize) -> Result<ReadOptions, CoreError> {
    let f = Fields::new(read, "read options")?;
    let d = BatchSize::for_threads(threads);
    let pick = |x: Option<f64>, dflt: usize| match x {
        Some(x) if x >= 1.0 => x.min(usize::MAX as f64) as usize,
        _ => dflt,
    };
    let batch = BatchSize { bytes: pick(f.number_or_null("batch_bytes")?, d.bytes), records: pick(f.number_or_null("batch_records")?, d.records) };
    let skip = f.number("skip")?;
    if !(skip >= 0.0 && skip.fract() == 0.0) {
        return Err(CoreError::invalid("skip", None, skip, Rule::WholeAtLeast(0)));
    }
    let n = match f.number_or_null("n_records")? {
        None => None,
        Some(n) if n == f64::INFINITY => None,
        Some(n) if n >= 0.0 && n.fract() == 0.0 => Some(n as u64),
        Some(n) => return Err(CoreError::invalid("n_records", None, n, Rule::WholeAtLeast(0))),
    };
    Ok(ReadOptions { batch, range: RecordRange { skip: skip as u64, n }, region: f.flag("region")?, names: f.flag("names")? })
}
