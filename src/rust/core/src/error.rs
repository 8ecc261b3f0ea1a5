//! Typed errors. Every message names the argument, the (0-based here) index
//! and the offending value; the binding turns them into R conditions.

/// What went wrong, with enough detail for a useful R error message.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CoreError {
    /// An argument value is out of its domain.
    #[error("`{arg}`{} must be {expected}, not {value}", fmt_index(*.index))]
    InvalidArgument {
        arg: &'static str,
        /// 0-based element index for vector arguments.
        index: Option<usize>,
        value: String,
        expected: String,
    },
    /// A letter outside the alphabet in a text or pattern.
    #[error("`{arg}`[{}] has letter {} at position {} that is not in the {alphabet} alphabet", .index + 1, fmt_letter(*.letter), .position + 1)]
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
    #[error("the search found more than {limit} hits (the `max_hits` limit)")]
    TooManyHits { limit: u64 },
    /// The result (a records x patterns matrix of counts) cannot be
    /// allocated: refused before the search instead of aborting the process.
    #[error("the result would be too large for memory: {what}")]
    TooLarge { what: String },
    /// The machine cannot give what the search needs (memory for one
    /// alignment, worker threads): refused before anything is allocated.
    #[error("{0}")]
    Resource(String),
    /// The caller asked to stop (Ctrl-C in R).
    #[error("the search was interrupted")]
    Interrupted,
    /// A bug: a panic inside the engine, caught before it could reach R.
    #[error("internal error in ducksassy: {0}")]
    Internal(String),
}

impl CoreError {
    /// The R condition class the binding should use.
    pub fn class(&self) -> &'static str {
        match self {
            CoreError::InvalidArgument { .. } | CoreError::InvalidLetter { .. } => {
                "ducksassy_input_error"
            }
            CoreError::TooManyHits { .. } | CoreError::TooLarge { .. } | CoreError::Resource(_) => "ducksassy_limit_error",
            CoreError::Interrupted => "ducksassy_interrupt",
            CoreError::Internal(_) => "ducksassy_internal_error",
        }
    }

    /// Name of the offending argument, if any.
    pub fn arg(&self) -> Option<&'static str> {
        match self {
            CoreError::InvalidArgument { arg, .. } | CoreError::InvalidLetter { arg, .. } => {
                Some(arg)
            }
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

    /// The offending value, printed.
    pub fn value(&self) -> Option<String> {
        match self {
            CoreError::InvalidArgument { value, .. } => Some(value.clone()),
            CoreError::InvalidLetter { letter, .. } => Some(fmt_letter(*letter)),
            _ => None,
        }
    }

    pub(crate) fn invalid(
        arg: &'static str,
        index: Option<usize>,
        value: impl ToString,
        expected: impl ToString,
    ) -> Self {
        CoreError::InvalidArgument {
            arg,
            index,
            value: value.to_string(),
            expected: expected.to_string(),
        }
    }
}

fn fmt_index(index: Option<usize>) -> String {
    index.map(|i| format!("[{}]", i + 1)).unwrap_or_default()
}

/// Printable letters as `"N"`, a space as `" " (a space)`, others as their
/// byte value and what it is (`0xC3 (a byte of a non-ASCII character)`).
pub fn fmt_letter(b: u8) -> String {
    match b {
        _ if b.is_ascii_graphic() => format!("\"{}\"", b as char),
        b' ' => "\" \" (a space)".to_string(),
        b'\t' => "0x09 (a tab)".to_string(),
        b'\r' | b'\n' => format!("0x{b:02X} (a line break)"),
        0x80.. => format!("0x{b:02X} (a byte of a non-ASCII character)"),
        _ => format!("0x{b:02X} (a control character)"),
    }
}

#[cfg(test)]
mod tests {
    use super::fmt_letter;

    #[test]
    fn letters_that_do_not_print_say_what_they_are() {
        assert_eq!(fmt_letter(b'N'), "\"N\"");
        assert_eq!(fmt_letter(b' '), "\" \" (a space)");
        assert_eq!(fmt_letter(b'\t'), "0x09 (a tab)");
        assert_eq!(fmt_letter(b'\r'), "0x0D (a line break)");
        assert_eq!(fmt_letter(0xC3), "0xC3 (a byte of a non-ASCII character)");
        assert_eq!(fmt_letter(0x01), "0x01 (a control character)");
    }
}
