//! Alphabet checks of texts and patterns. sassy silently mis-encodes letters
//! outside its alphabet (with DNA an `N` reads as `G`), so every sequence is
//! checked first; the SIMD `valid_seq` of sassy's profiles does the fast pass
//! and a scalar scan finds the offending letter only when there is one.

use crate::alphabet::{Alphabet, IUPAC_AZ_MASK};
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

/// Whether every letter of `seq` is in `alphabet`, except at most
/// `n_extra` letters `extra` (the separators of joined records, lanes.rs,
/// which may lie outside the alphabet: a record with an `extra` letter of
/// its own then makes one too many). One branch-free pass over blocks,
/// which the compiler turns into SIMD compares: for a chunk of joined short
/// records, where a call per record of [`first_invalid_letter`] cost as
/// much as the search's own setup.
pub fn all_valid(alphabet: Alphabet, seq: &[u8], extra: u8, n_extra: usize) -> bool {
    let (all, extras) = match alphabet {
        Alphabet::Dna => blocks_valid(seq, extra, |b| {
            let l = b | 0x20;
            (l == b'a') | (l == b'c') | (l == b'g') | (l == b't')
        }),
        // sassy's own check (vector shuffles) when the separator is an IUPAC
        // letter, as X is: then nothing is extra
        Alphabet::Iupac if letter_ok(Alphabet::Iupac, extra) => (Iupac::valid_seq(seq), 0),
        Alphabet::Iupac => blocks_valid(seq, extra, |b| {
            // the IUPAC letters as bits of a..z (| 0x20 lower-cases
            // letters; every other byte lands outside a..z)
            const SET: u32 = IUPAC_AZ_MASK;
            let i = (b | 0x20).wrapping_sub(b'a');
            (i < 26) & ((SET >> (i & 31)) & 1 == 1)
        }),
        Alphabet::Ascii => blocks_valid(seq, extra, |b| b < 128),
    };
    all && extras <= n_extra
}

/// Whether every letter is `ok` or `extra`, and how many are `extra` and
/// not `ok`; generic so that `ok` is inlined into the vectorised loop.
#[inline(always)]
fn blocks_valid(seq: &[u8], extra: u8, ok: impl Fn(u8) -> bool + Copy) -> (bool, usize) {
    // blocks as long as a u8 count allows, a multiple of the widest vector:
    // the per-block reductions are what costs, not the compares
    const BLOCK: usize = 192;
    let mut extras = 0usize;
    for c in seq.chunks(BLOCK) {
        let mut bad = 0u8;
        let mut n = 0u8;
        for &b in c {
            let (good, sep) = (ok(b), b == extra);
            bad |= !(good | sep) as u8;
            n += (sep & !good) as u8;
        }
        if bad != 0 {
            return (false, extras);
        }
        extras += n as usize;
    }
    (true, extras)
}

fn letter_ok(alphabet: Alphabet, c: u8) -> bool {
    alphabet.has_letter(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_block_check_agrees_with_the_letter_check() {
        for a in [Alphabet::Dna, Alphabet::Iupac, Alphabet::Ascii] {
            for b in 0..=255u8 {
                for extra in [0u8, b'X'] {
                    let want = letter_ok(a, b) || b == extra;
                    // alone, and inside a longer block of valid letters
                    assert_eq!(all_valid(a, &[b], extra, 1), want, "{a:?} {b} extra {extra}");
                    let mut long = vec![b'A'; 150];
                    long[97] = b;
                    assert_eq!(all_valid(a, &long, extra, 1), want, "{a:?} {b} in a block");
                    // with every allowed extra used by separators, one more is an error
                    long[3] = extra;
                    let extras = (b == extra && !letter_ok(a, b)) as usize + !letter_ok(a, extra) as usize;
                    let want = (letter_ok(a, b) || b == extra) && extras <= 1;
                    assert_eq!(all_valid(a, &long, extra, 1), want, "{a:?} {b} with a separator");
                }
            }
        }
    }

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
