//! Alphabet checks of texts and patterns. sassy silently mis-encodes letters
//! outside its alphabet (with DNA an `N` reads as `G`), so every sequence is
//! checked first; the SIMD `valid_seq` of sassy's profiles does the fast pass
//! and a scalar scan finds the offending letter only when there is one.

use crate::options::Alphabet;
use sassy::profiles::{Dna, Iupac, Profile};

/// `Some((position, letter))` of the first letter of `seq` outside `alphabet`.
pub fn first_invalid_letter(alphabet: Alphabet, seq: &[u8]) -> Option<(usize, u8)> {
    let ok = match alphabet {
        Alphabet::Dna => Dna::valid_seq(seq),
        Alphabet::Iupac => Iupac::valid_seq(seq),
        Alphabet::Ascii => seq.is_ascii(),
    };
    if ok {
        return None;
    }
    seq.iter()
        .position(|&c| !letter_ok(alphabet, c))
        .map(|i| (i, seq[i]))
}

fn letter_ok(alphabet: Alphabet, c: u8) -> bool {
    match alphabet {
        Alphabet::Dna => matches!(c.to_ascii_uppercase(), b'A' | b'C' | b'G' | b'T'),
        Alphabet::Iupac => matches!(
            c.to_ascii_uppercase(),
            b'A' | b'C' | b'G' | b'T' | b'U' | b'N' | b'R' | b'Y' | b'S' | b'W' | b'K' | b'M'
                | b'B' | b'D' | b'H' | b'V' | b'X'
        ),
        Alphabet::Ascii => c < 128,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_bad_letter() {
        assert_eq!(first_invalid_letter(Alphabet::Dna, b"ACGTacgt"), None);
        assert_eq!(first_invalid_letter(Alphabet::Dna, b"ACGTN"), Some((4, b'N')));
        assert_eq!(first_invalid_letter(Alphabet::Iupac, b"acgtunrysWKMBDHVx"), None);
        assert_eq!(first_invalid_letter(Alphabet::Iupac, b"ACGTZ"), Some((4, b'Z')));
        assert_eq!(first_invalid_letter(Alphabet::Iupac, b"AC-GT"), Some((2, b'-')));
        assert_eq!(first_invalid_letter(Alphabet::Ascii, "ACé".as_bytes()), Some((2, 0xC3)));
        // long inputs go through sassy's SIMD path; the scalar table must agree
        let mut long = vec![b'A'; 100];
        long[70] = b'E';
        assert_eq!(first_invalid_letter(Alphabet::Iupac, &long), Some((70, b'E')));
        for c in 0u8..=255 {
            let s = [c; 40];
            assert_eq!(first_invalid_letter(Alphabet::Iupac, &s).is_none(), letter_ok(Alphabet::Iupac, c), "byte {c}");
            assert_eq!(first_invalid_letter(Alphabet::Dna, &s).is_none(), letter_ok(Alphabet::Dna, c), "byte {c}");
        }
    }
}
