//! Errors of FASTA/FASTQ reading, searching and filtering. Each names the
//! file and, where there is one, the 1-based record number (within that file)
//! and line, as data; the binding hands the fields to R, which words the
//! message (R/conditions.R).

use crate::error::{fmt_letter, CoreError};
use needletail::errors::{ParseError, ParseErrorKind};
use needletail::parser::Format as NtFormat;

/// What is wrong with a file's content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseKind {
    /// Fewer than two bytes (after decompression) that are not blank or
    /// comment lines (those, or no bytes at all, are zero records).
    Empty,
    /// The first byte (after decompression) is neither `>` nor `@`.
    UnknownFormat,
    /// Reading or decompressing failed: truncated or corrupt compressed data,
    /// or an I/O error.
    Io,
    /// The file ends inside a FASTQ record.
    Truncated,
    /// A FASTQ record whose quality length differs from its sequence length.
    UnequalLengths,
    /// A record does not start with `>` / `@` (e.g. a blank line in FASTQ).
    InvalidStart,
    /// A FASTQ separator line that does not start with `+`.
    InvalidSeparator,
    /// The last FASTA record has a header line and nothing after it, which
    /// needletail 0.7 cannot read (it reports an unexpected end).
    HeaderOnlyLastRecord,
    /// A NUL byte in text that would become an R string.
    NulByte,
    /// A sequence too long to search or to become an R string (2^31 letters).
    TooLong,
    /// Paired files (R1/R2) whose numbers of records differ.
    Mates,
    /// A BAM file that is truncated or corrupt (its gzip data is fine).
    Bam,
}

/// A FASTA/FASTQ error, or an error of the search itself.
#[derive(Debug, Clone, PartialEq)]
pub enum FastxError {
    /// The file could not be opened (missing, a directory, no permission).
    Open { path: String, message: String },
    /// The content is not valid FASTA/FASTQ or could not be decompressed.
    /// `record` is 1-based within the file (`None`: the whole file).
    Parse { path: String, record: Option<u64>, line: Option<u64>, kind: ParseKind, message: String },
    /// A sequence letter outside the search alphabet; `position` 0-based.
    Letter { path: String, record: u64, name: String, position: usize, letter: u8, alphabet: &'static str },
    /// More records in one file than an R integer can number.
    TooManyRecords { path: String, limit: u64 },
    /// The output of a filter could not be written.
    Write { path: String, message: String },
    /// An error of the search (invalid options, too many hits, interrupt, bug).
    Core(CoreError),
}

impl From<CoreError> for FastxError {
    fn from(e: CoreError) -> Self {
        FastxError::Core(e)
    }
}

impl std::fmt::Display for FastxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FastxError::Open { path, message } => write!(f, "Can't open file \"{path}\": {message}."),
            FastxError::Parse { path, record, line, message, .. } => {
                write!(f, "Can't read file \"{path}\"")?;
                match (record, line) {
                    (Some(r), Some(l)) => write!(f, " at record {r} (line {l})")?,
                    (Some(r), None) => write!(f, " at record {r}")?,
                    (None, Some(l)) => write!(f, " at line {l}")?,
                    (None, None) => {}
                }
                write!(f, ": {message}.")
            }
            FastxError::Letter { path, record, name, position, letter, alphabet } => write!(
                f,
                "Record {record} (\"{}\") of file \"{path}\" has letter {} at position {} that is not in the {alphabet} alphabet.",
                name,
                fmt_letter(*letter),
                position + 1
            ),
            FastxError::TooManyRecords { path, limit } => {
                write!(f, "File \"{path}\" has more than {limit} records, more than an R integer can number.")
            }
            FastxError::Write { path, message } => write!(f, "Can't write file \"{path}\": {message}."),
            FastxError::Core(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for FastxError {}

impl FastxError {
    /// The file the error is about, if any.
    pub fn path(&self) -> Option<&str> {
        match self {
            FastxError::Open { path, .. }
            | FastxError::Parse { path, .. }
            | FastxError::Letter { path, .. }
            | FastxError::TooManyRecords { path, .. }
            | FastxError::Write { path, .. } => Some(path),
            FastxError::Core(_) => None,
        }
    }

    /// 1-based record number within the file, if any.
    pub fn record(&self) -> Option<u64> {
        match self {
            FastxError::Parse { record, .. } => *record,
            FastxError::Letter { record, .. } => Some(*record),
            _ => None,
        }
    }

    /// 1-based line number, if known.
    pub fn line(&self) -> Option<u64> {
        match self {
            FastxError::Parse { line, .. } => *line,
            _ => None,
        }
    }

    /// The kind of a parse error.
    pub fn parse_kind(&self) -> Option<ParseKind> {
        match self {
            FastxError::Parse { kind, .. } => Some(*kind),
            _ => None,
        }
    }

    pub(crate) fn open(path: &str, e: &std::io::Error) -> Self {
        let message = match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
            _ => e.to_string(),
        };
        FastxError::Open { path: path.to_string(), message }
    }

    /// Translate needletail's error for the record after `records_read`
    /// records of `path` (or for the whole file when it is empty or of unknown
    /// format).
    pub(crate) fn parse(path: &str, e: &ParseError, records_read: u64) -> Self {
        let line = (e.position.line > 0).then_some(e.position.line);
        let record = Some(records_read + 1);
        let (kind, message, record, line) = match e.kind {
            ParseErrorKind::EmptyFile => {
                (ParseKind::Empty, "the file is empty (no FASTA or FASTQ records), or has fewer than 2 bytes after decompression".to_string(), None, None)
            }
            ParseErrorKind::UnknownFormat => (
                ParseKind::UnknownFormat,
                format!("it is neither FASTA nor FASTQ (after decompression, if compressed): {}", strip_dot(&e.msg)),
                record,
                Some(1),
            ),
            ParseErrorKind::Io => (
                ParseKind::Io,
                format!("reading or decompressing failed ({}); the file is probably truncated or corrupt", strip_dot(&e.msg)),
                record,
                None,
            ),
            ParseErrorKind::UnexpectedEnd if e.format == Some(NtFormat::Fasta) => (
                ParseKind::HeaderOnlyLastRecord,
                "the last FASTA record is a header line with no line after it, which the FASTA parser (needletail 0.7) cannot read; add a line break after that header or remove it".to_string(),
                record,
                line,
            ),
            ParseErrorKind::UnexpectedEnd => {
                (ParseKind::Truncated, "the file ends inside a FASTQ record (is it truncated?)".to_string(), record, line)
            }
            // needletail gives the record's first (header) line; the quality
            // line is the record's fourth (FASTQ records are four lines)
            ParseErrorKind::UnequalLengths => (
                ParseKind::UnequalLengths,
                format!("the quality line and the sequence differ in length ({})", lower(&e.msg)),
                record,
                line.map(|l| l + 3),
            ),
            ParseErrorKind::InvalidStart => (
                ParseKind::InvalidStart,
                format!("a record must start with '>' (FASTA) or '@' (FASTQ) ({}); blank lines between FASTQ records are not allowed", lower(&e.msg)),
                record,
                line,
            ),
            ParseErrorKind::InvalidSeparator => {
                (ParseKind::InvalidSeparator, format!("the third line of a FASTQ record must start with '+' ({})", lower(&e.msg)), record, line)
            }
        };
        FastxError::Parse { path: path.to_string(), record, line, kind, message }
    }
}

fn strip_dot(s: &str) -> &str {
    s.trim_end_matches('.')
}


fn lower(s: &str) -> String {
    let s = strip_dot(s);
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}
