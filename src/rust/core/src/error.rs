//! Typed errors, as data: which argument, which element (0-based), which
//! value, and which rule it breaks. No wording of any caller's language is
//! in here (R builds its messages from these fields in R/conditions.R);
//! `Display` is a plain English summary for Rust callers and test failures.

use crate::alphabet::Alphabet;

/// What went wrong, with enough detail for a caller to explain it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CoreError {
    /// An argument value breaks a rule.
    #[error("{arg}{} is {value}: it must be {rule}", fmt_index(*.index))]
    InvalidArgument {
        arg: &'static str,
        /// 0-based element index for vector arguments.
        index: Option<usize>,
        value: Value,
        rule: Rule,
    },
    /// A letter outside the alphabet in a text or pattern.
    #[error("{arg}[{index}] has letter {} at position {position} (0-based) that is not in the {alphabet} alphabet", fmt_letter(*.letter))]
    InvalidLetter {
        arg: &'static str,
        /// 0-based record or pattern index.
        index: usize,
        /// 0-based byte position within that sequence.
        position: usize,
        letter: u8,
        alphabet: &'static str,
    },
    /// More hits than the configured limit would be held in memory.
    #[error("the search found more than {limit} hits")]
    TooManyHits { limit: u64 },
    /// The records x patterns matrix of counts cannot be allocated: refused
    /// before the search instead of aborting the process.
    #[error("a result of {records} records x {patterns} patterns is too large for memory")]
    TooLarge { records: usize, patterns: usize },
    /// Aligning one pattern needs more memory per match and worker than the
    /// machine can give (sassy's DP matrix grows with the square of the
    /// pattern length): refused before anything is allocated.
    #[error("aligning a {pattern_length}-letter pattern at k = {k} needs {bytes} bytes per match and worker")]
    TraceMemory { pattern_length: usize, k: usize, bytes: u64 },
    /// The system refused a resource (worker threads); its own message.
    #[error("{0}")]
    Resource(String),
    /// The caller asked to stop.
    #[error("the search was interrupted")]
    Interrupted,
    /// A bug: a panic inside the engine, caught before it could reach the caller.
    #[error("internal error: {0}")]
    Internal(String),
}

/// An offending value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Num(f64),
    Flag(bool),
    Text(String),
    /// A missing element.
    Missing,
    /// A vector, by its length.
    Length(usize),
}

impl From<i64> for Value {
    fn from(x: i64) -> Self {
        Value::Int(x)
    }
}
impl From<usize> for Value {
    fn from(x: usize) -> Self {
        Value::Int(x as i64)
    }
}
impl From<f64> for Value {
    fn from(x: f64) -> Self {
        Value::Num(x)
    }
}
impl From<bool> for Value {
    fn from(x: bool) -> Self {
        Value::Flag(x)
    }
}
impl From<&str> for Value {
    fn from(x: &str) -> Self {
        Value::Text(x.to_string())
    }
}
impl From<&[u8]> for Value {
    fn from(x: &[u8]) -> Self {
        Value::Text(String::from_utf8_lossy(x).into_owned())
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Int(x) => write!(f, "{x}"),
            Value::Num(x) => write!(f, "{x}"),
            Value::Flag(x) => write!(f, "{x}"),
            Value::Text(x) => write!(f, "{x:?}"),
            Value::Missing => write!(f, "missing"),
            Value::Length(n) => write!(f, "of length {n}"),
        }
    }
}

/// Which part of a guide `k` is compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The whole sequence.
    Whole,
    /// A CRISPR guide without its PAM.
    Spacer,
}

/// The rule an argument breaks.
#[derive(Debug, Clone, PartialEq)]
pub enum Rule {
    /// A whole number >= this.
    WholeAtLeast(i64),
    /// A number in [0, 1].
    Fraction,
    /// One of these names.
    OneOf(&'static [&'static str]),
    /// A vector of at least one element.
    NotEmpty,
    /// A non-empty string.
    NonEmptyString,
    /// Not missing.
    NotMissing,
    /// Less than the length of element `index` (0-based) of `of`, whose
    /// text is `seq` and whose length (of `part`) is `length`; `more` are
    /// the other elements (0-based) that break the rule too.
    BelowLength { of: &'static str, index: usize, seq: String, length: usize, part: Part, more: Vec<usize> },
    /// Set only with one of the `allowed` alphabets; the search's is `alphabet`.
    NeedsAlphabet { allowed: &'static [Alphabet], alphabet: Alphabet },
    /// Unset when `other` is `value` (e.g. `overhang` with `indels` false).
    UnsetWith { other: &'static str, value: Value },
    /// Free of the masking letter X when `overhang` is set; the first one
    /// is at `position` (0-based).
    NoMaskWithOverhang { position: usize, letter: u8 },
    /// One value, or one per element of `of` (`n` elements).
    OneOrOnePer { of: &'static str, n: usize },
    /// Below this many (records, or letters of one record).
    Below { limit: u64, unit: &'static str },
    /// What a CRISPR search requires of an option it sets itself.
    CrisprFixed,
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rule::WholeAtLeast(n) => write!(f, "a whole number >= {n}"),
            Rule::Fraction => write!(f, "a number in [0, 1]"),
            Rule::OneOf(names) => write!(f, "one of {names:?}"),
            Rule::NotEmpty => write!(f, "of length >= 1"),
            Rule::NonEmptyString => write!(f, "a non-empty string"),
            Rule::NotMissing => write!(f, "not missing"),
            Rule::BelowLength { of, index, length, part, .. } => write!(f, "less than the {part:?} length of {of}[{index}] ({length})"),
            Rule::NeedsAlphabet { allowed, alphabet } => write!(f, "unset with alphabet {} (allowed: {allowed:?})", alphabet.name()),
            Rule::UnsetWith { other, value } => write!(f, "unset when {other} is {value}"),
            Rule::NoMaskWithOverhang { position, .. } => write!(f, "free of X with overhang (one at {position})"),
            Rule::OneOrOnePer { of, n } => write!(f, "one value or one per {of} ({n})"),
            Rule::Below { limit, unit } => write!(f, "fewer than {limit} {unit}"),
            Rule::CrisprFixed => write!(f, "unset for a CRISPR search"),
        }
    }
}

impl CoreError {
    /// An [`CoreError::InvalidArgument`].
    pub fn invalid(arg: &'static str, index: Option<usize>, value: impl Into<Value>, rule: Rule) -> Self {
        CoreError::InvalidArgument { arg, index, value: value.into(), rule }
    }

    /// Name of the offending argument, if any.
    pub fn arg(&self) -> Option<&'static str> {
        match self {
            CoreError::InvalidArgument { arg, .. } | CoreError::InvalidLetter { arg, .. } => Some(arg),
            _ => None,
        }
    }

    /// 0-based index of the offending element, if any.
    pub fn index(&self) -> Option<usize> {
        match self {
            CoreError::InvalidArgument { index, .. } => *index,
            CoreError::InvalidLetter { index, .. } => Some(*index),
            _ => None,
        }
    }

    /// The same error about argument `arg` (a search of guides reports its
    /// pattern errors as `guides`).
    pub fn renamed(self, from: &'static str, to: &'static str) -> Self {
        match self {
            CoreError::InvalidArgument { arg, index, value, rule } if arg == from => CoreError::InvalidArgument { arg: to, index, value, rule },
            CoreError::InvalidLetter { arg, index, position, letter, alphabet } if arg == from => {
                CoreError::InvalidLetter { arg: to, index, position, letter, alphabet }
            }
            other => other,
        }
    }
}

fn fmt_index(index: Option<usize>) -> String {
    index.map(|i| format!("[{i}]")).unwrap_or_default()
}

/// Printable letters as `"N"`, others as their byte value (for `Display`).
pub fn fmt_letter(b: u8) -> String {
    if b.is_ascii_graphic() {
        format!("\"{}\"", b as char)
    } else {
        format!("0x{b:02X}")
    }
}
