//! The edits of a hit that fall on a barcode's own letters (issue 38): a
//! barcode set's pattern is flank5 + barcode + flank3, and the cost of its
//! hit mixes the flanks' edits with the barcode's. The barcode's edits
//! alone tell a barcode read with errors from a flank with no barcode
//! behind it (the cap of `fastx/demux_ends.rs`), and are R's
//! `barcode_cost` (R/kits.R, `barcode_edits()`, counted the same way).
//!
//! Counted along sassy's CIGAR, which is in the pattern's direction on both
//! strands and starts at the pattern letter `pattern_start`:
//! - `X` (substitution) and `I` (a pattern letter missing from the text) at
//!   a barcode letter count one each;
//! - `D` (a text letter the pattern lacks) counts when it falls between two
//!   barcode letters; one before the barcode's first letter or after its
//!   last is the flank's;
//! - a barcode letter that hangs over the text's edge (overhang: before
//!   `pattern_start`, or after the CIGAR's last pattern letter) counts one,
//!   as a missing letter does: the read does not show it, so it is no
//!   evidence of the barcode (a barcode cut off by a read's end names no
//!   barcode by its flank alone).

use pa_types::{Cigar, CigarOp};

/// The barcode letters of a pattern: `[from, to)` in the pattern's
/// direction, 0-based.
pub type Span = (u32, u32);

/// Edits on `span` of an alignment given as runs `(count, op)` with op one
/// of `=`, `X`, `I`, `D`, starting at pattern letter `pattern_start`.
pub fn count(runs: impl Iterator<Item = (u32, u8)>, pattern_start: u32, span: Span) -> u32 {
    let (a, b) = span;
    let mut p = pattern_start; // pattern letters consumed
    // the barcode letters before the aligned part
    let mut edits = pattern_start.min(b).saturating_sub(a);
    for (n, op) in runs {
        match op {
            b'D' => {
                if p > a && p < b {
                    edits += n;
                }
            }
            _ => {
                if op != b'=' {
                    edits += (p + n).min(b).saturating_sub(p.max(a));
                }
                p += n;
            }
        }
    }
    // ... and after it
    edits + b.saturating_sub(p.max(a))
}

/// [`count`] of a sassy CIGAR.
pub fn of_cigar(cigar: &Cigar, pattern_start: u32, span: Span) -> u32 {
    let runs = cigar.ops.iter().map(|e| {
        let op = match e.op {
            CigarOp::Match => b'=',
            CigarOp::Sub => b'X',
            CigarOp::Ins => b'I',
            CigarOp::Del => b'D',
        };
        (e.cnt as u32, op)
    });
    count(runs, pattern_start, span)
}

/// [`count`] of a CIGAR written as text (`hits::write_cigar()`); `None`
/// when it is not one.
pub fn of_text(cigar: &[u8], pattern_start: u32, span: Span) -> Option<u32> {
    let mut runs = Vec::new();
    let mut n: u32 = 0;
    let mut digits = false;
    for &c in cigar {
        if c.is_ascii_digit() {
            n = n.checked_mul(10)?.checked_add(u32::from(c - b'0'))?;
            digits = true;
        } else if matches!(c, b'=' | b'X' | b'I' | b'D') && digits {
            runs.push((n, c));
            n = 0;
            digits = false;
        } else {
            return None;
        }
    }
    if digits {
        return None;
    }
    Some(count(runs.into_iter(), pattern_start, span))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_are_counted_on_the_barcode_letters_only() {
        // pattern FFFF BBBB FFFF: barcode letters [4, 8)
        let span = (4, 8);
        assert_eq!(of_text(b"12=", 0, span), Some(0));
        // a substitution in each flank, one in the barcode
        assert_eq!(of_text(b"1X4=1X5=1X", 0, span), Some(1));
        // a run of X across the flank/barcode border: only its barcode part
        assert_eq!(of_text(b"2=4X6=", 0, span), Some(2));
        // a missing pattern letter (I) on the barcode counts
        assert_eq!(of_text(b"5=2I5=", 0, span), Some(2));
        // an extra text letter (D) between barcode letters counts, at the
        // border it is the flank's
        assert_eq!(of_text(b"6=3D6=", 0, span), Some(3));
        assert_eq!(of_text(b"4=1D8=", 0, span), Some(0));
        assert_eq!(of_text(b"8=1D4=", 0, span), Some(0));
    }

    #[test]
    fn overhanging_letters_shift_the_alignment_along_the_pattern() {
        // the first 3 pattern letters hang over the text's start: the CIGAR
        // starts at pattern letter 3, so its second letter is the barcode's
        // first (counted from 0 it would be a flank's)
        assert_eq!(of_text(b"1=1X7=", 3, (4, 8)), Some(1));
        assert_eq!(of_text(b"1=1X7=", 0, (4, 8)), Some(0));
        // X at letters 3 and 8: both the flanks'
        assert_eq!(of_text(b"1X4=1X3=", 3, (4, 8)), Some(0));
        // barcode letters over the edge count: 2 before the text's start
        // (pattern letters 4, 5), 3 after its end (letters 5, 6, 7)
        assert_eq!(of_text(b"6=", 6, (4, 8)), Some(2));
        assert_eq!(of_text(b"1X4=", 0, (4, 8)), Some(3));
        // the whole barcode over an edge: all of its letters
        assert_eq!(of_text(b"4=", 8, (4, 8)), Some(4));
        assert_eq!(of_text(b"3=1X", 0, (4, 8)), Some(4));
    }

    #[test]
    fn text_that_is_no_cigar_is_refused() {
        assert_eq!(of_text(b"3=X", 0, (0, 4)), None);
        assert_eq!(of_text(b"3=4", 0, (0, 4)), None);
        assert_eq!(of_text(b"3M", 0, (0, 4)), None);
    }

    #[test]
    fn a_sassy_cigar_counts_as_its_text() {
        let text = b"2=1X3=1I1D2=";
        let mut c = Cigar::default();
        c.push_matches(2);
        c.push(CigarOp::Sub);
        c.push_matches(3);
        c.push(CigarOp::Ins);
        c.push(CigarOp::Del);
        c.push_matches(2);
        let mut written = Vec::new();
        crate::hits::write_cigar(&c, &mut written);
        assert_eq!(&written[..], &text[..]);
        for span in [(0, 3), (2, 7), (5, 9), (6, 7)] {
            assert_eq!(Some(of_cigar(&c, 0, span)), of_text(text, 0, span), "{span:?}");
        }
    }
}
