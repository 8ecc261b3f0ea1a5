//! Errors as data: every core error (and file error) becomes ONE kind of R
//! value, a named list of class `ducksassy_rust_error` holding the error's
//! typed fields. Indices and positions become 1-based here, and only here
//! (as hit coordinates do in `hits_to_r`). No message is written here: R
//! words every message and picks the condition class from these fields
//! (`rust_condition()` in R/conditions.R).
//!
//! Fields: `kind` always; then, as the kind has them, `arg`, `index`,
//! `value` (an R scalar; a vector's `length` instead), `rule` and the rule's
//! own fields (`min`, `choices`, `of`, `of_index`, `seq`, `seq_length`,
//! `part`, `more`, `allowed`, `alphabet`, `other`, `other_value`,
//! `position`, `letter`, `n`, `limit`, `unit`), `records`, `patterns`,
//! `pattern_length`, `k`, `bytes`, `message` (a system's or a parser's own
//! words), `path`, `record`, `line`, `name`, `parse_kind`.

use ducksassy_core::error::{Part, Rule, Value};
use ducksassy_core::fastx::FastxError;
use ducksassy_core::CoreError;
use extendr_api::prelude::*;

/// The fields of one error value, in order.
struct Fields(Vec<(&'static str, Robj)>);

impl Fields {
    fn new(kind: &str) -> Self {
        Fields(vec![("kind", Robj::from(kind))])
    }

    fn set(&mut self, name: &'static str, value: impl Into<Robj>) -> &mut Self {
        self.0.push((name, value.into()));
        self
    }

    /// A 0-based index or position, 1-based for R (a double past R's
    /// integers).
    fn one_based(&mut self, name: &'static str, i: usize) -> &mut Self {
        self.set(name, count(i as u64 + 1))
    }

    fn value(&mut self, name: &'static str, v: &Value) -> &mut Self {
        match v {
            Value::Int(x) if *x >= i32::MIN as i64 + 1 && *x <= i32::MAX as i64 => self.set(name, *x as i32),
            Value::Int(x) => self.set(name, *x as f64),
            Value::Num(x) => self.set(name, *x),
            Value::Flag(x) => self.set(name, *x),
            Value::Text(x) => self.set(name, x.as_str()),
            Value::Missing => self.set(name, Rbool::na()),
            Value::Length(n) => self.set("length", count(*n as u64)),
        }
    }

    fn into_robj(self) -> Robj {
        let mut l: Robj = List::from_pairs(self.0).into();
        let _ = l.set_class(&["ducksassy_rust_error"]);
        l
    }
}

/// A count as R holds it: an integer, or a double past 2^31 - 1.
fn count(n: u64) -> Robj {
    if n <= i32::MAX as u64 {
        Robj::from(n as i32)
    } else {
        Robj::from(n as f64)
    }
}

/// The R value of a core error.
pub(crate) fn error_value(e: &CoreError) -> Robj {
    core_fields(e).into_robj()
}

fn core_fields(e: &CoreError) -> Fields {
    match e {
        CoreError::InvalidArgument { arg, index, value, rule } => {
            let mut f = Fields::new("invalid_argument");
            f.set("arg", *arg);
            if let Some(i) = index {
                f.one_based("index", *i);
            }
            f.value("value", value);
            rule_fields(&mut f, rule);
            f
        }
        CoreError::InvalidLetter { arg, index, position, letter, alphabet } => {
            let mut f = Fields::new("invalid_letter");
            f.set("arg", *arg).one_based("index", *index).one_based("position", *position);
            f.set("letter", *letter as i32).set("alphabet", *alphabet);
            f
        }
        CoreError::TooManyHits { limit } => {
            let mut f = Fields::new("too_many_hits");
            f.set("limit", *limit as f64);
            f
        }
        CoreError::TooLarge { records, patterns } => {
            let mut f = Fields::new("too_large");
            f.set("records", *records as f64).set("patterns", *patterns as f64);
            f
        }
        CoreError::TraceMemory { pattern_length, k, bytes } => {
            let mut f = Fields::new("trace_memory");
            f.set("pattern_length", *pattern_length as f64).set("k", *k as f64).set("bytes", *bytes as f64);
            f
        }
        CoreError::Resource(message) => {
            let mut f = Fields::new("resource");
            f.set("message", message.as_str());
            f
        }
        CoreError::Interrupted => match crate::interrupt::take_error() {
            // R raised an error while we polled: a time limit (interrupt.rs)
            Some(message) => {
                let mut f = Fields::new("time_limit");
                f.set("message", message.as_str());
                f
            }
            None => Fields::new("interrupted"),
        },
        CoreError::Internal(message) => {
            let mut f = Fields::new("internal");
            f.set("message", message.as_str());
            f
        }
    }
}

fn rule_fields(f: &mut Fields, rule: &Rule) {
    let name = match rule {
        Rule::WholeAtLeast(min) => {
            f.set("min", *min as f64);
            "whole_at_least"
        }
        Rule::Fraction => "fraction",
        Rule::OneOf(choices) => {
            f.set("choices", choices.to_vec());
            "one_of"
        }
        Rule::NotEmpty => "not_empty",
        Rule::NonEmptyString => "non_empty_string",
        Rule::NotMissing => "not_missing",
        Rule::BelowLength { of, index, seq, length, part, more } => {
            f.set("of", *of).one_based("of_index", *index).set("seq", seq.as_str()).set("seq_length", count(*length as u64));
            f.set("part", if *part == Part::Spacer { "spacer" } else { "whole" });
            f.set("more", more.iter().map(|&i| (i + 1) as f64).collect::<Vec<f64>>());
            "below_length"
        }
        Rule::NeedsAlphabet { allowed, alphabet } => {
            f.set("allowed", allowed.iter().map(|a| a.name()).collect::<Vec<&str>>()).set("alphabet", alphabet.name());
            "needs_alphabet"
        }
        Rule::UnsetWith { other, value } => {
            f.set("other", *other).value("other_value", value);
            "unset_with"
        }
        Rule::NoMaskWithOverhang { position, letter } => {
            f.one_based("position", *position).set("letter", *letter as i32);
            "no_mask_with_overhang"
        }
        Rule::OneOrOnePer { of, n } => {
            f.set("of", *of).set("n", count(*n as u64));
            "one_or_one_per"
        }
        Rule::Below { limit, unit } => {
            f.set("limit", *limit as f64).set("unit", *unit);
            "below"
        }
        Rule::CrisprFixed => "crispr_fixed",
    };
    f.set("rule", name);
}

/// The R value of a file error: a core error's fields, or the file's
/// (`path`, 1-based `record` and `line` as doubles, and for a letter outside
/// the alphabet `name`, `position`, `letter`, `alphabet`).
pub(crate) fn fastx_error_value(e: &FastxError) -> Robj {
    let mut f = match e {
        FastxError::Core(c) => return error_value(c),
        FastxError::Open { message, .. } => {
            let mut f = Fields::new("file_open");
            f.set("message", message.as_str());
            f
        }
        FastxError::Parse { message, kind, .. } => {
            let mut f = Fields::new("file_parse");
            f.set("message", message.as_str()).set("parse_kind", format!("{kind:?}"));
            f
        }
        FastxError::Letter { name, position, letter, alphabet, .. } => {
            let mut f = Fields::new("file_letter");
            f.set("name", name.as_str()).one_based("position", *position).set("letter", *letter as i32).set("alphabet", *alphabet);
            f
        }
        FastxError::TooManyRecords { limit, .. } => {
            let mut f = Fields::new("file_too_many_records");
            f.set("limit", *limit as f64);
            f
        }
        FastxError::Write { message, .. } => {
            let mut f = Fields::new("file_write");
            f.set("message", message.as_str());
            f
        }
    };
    if let Some(p) = e.path() {
        f.set("path", p);
    }
    if let Some(r) = e.record() {
        f.set("record", r as f64);
    }
    if let Some(l) = e.line() {
        f.set("line", l as f64);
    }
    f.into_robj()
}
