//! Alphabet checks of texts and patterns. sassy silently mis-encodes letters
//! outside its alphabet (with DNA an `N` reads as `G`), so every sequence is
//! checked first; the SIMD `valid_seq` of sassy's profiles does the fast pass
//! (joined short records: [`copy_valid`], in the copy that joins them) and a
//! scalar scan finds the offending letter only when there is one.

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

/// Append `src` to `dst` (lower-cased if `fold`) and tell whether every
/// letter of `src` is in `alphabet`: the alphabet check of joined records
/// (lanes.rs) in the pass that copies them, so that each letter is read
/// once. The join reserves room for a whole chunk first, so that `dst`
/// does not grow record by record.
#[inline]
pub fn copy_valid(alphabet: Alphabet, fold: bool, src: &[u8], dst: &mut Vec<u8>) -> bool {
    match (alphabet, fold) {
        (Alphabet::Dna, _) => copy_blocks(src, dst, |b| b, dna_ok),
        (Alphabet::Iupac, _) => copy_blocks(src, dst, |b| b, iupac_ok),
        // std's copy and is_ascii (word at a time): the blocks' per-lane
        // flags ran at a third of that speed on ASCII text (perf: 2 KB
        // records, lanes twice as slow as one record at a time)
        (Alphabet::Ascii, false) => {
            dst.extend_from_slice(src);
            src.is_ascii()
        }
        (Alphabet::Ascii, true) => {
            let start = dst.len();
            dst.extend_from_slice(src);
            dst[start..].make_ascii_lowercase();
            src.is_ascii()
        }
    }
}

#[inline(always)]
fn dna_ok(b: u8) -> bool {
    let l = b | 0x20;
    (l == b'a') | (l == b'c') | (l == b'g') | (l == b't')
}

/// An IUPAC letter: in a..z after `| 0x20` (which lower-cases letters and
/// sends every other byte outside a..z) and none of the letters of a..z
/// that are not IUPAC codes. Compares of bytes only: a bit test in a mask
/// (`IUPAC_AZ_MASK >> i`) needs 32-bit lanes, four times the vector work
/// of the copy it is folded into.
#[inline(always)]
fn iupac_ok(b: u8) -> bool {
    let l = b | 0x20;
    let mut ok = l.wrapping_sub(b'a') < 26;
    for e in NOT_IUPAC {
        ok &= l != e;
    }
    ok
}

/// The letters of a..z that are not IUPAC codes (e, f, i, j, l, o, p, q, z).
const NOT_IUPAC: [u8; 26 - IUPAC_AZ_MASK.count_ones() as usize] = {
    let mut t = [0u8; 26 - IUPAC_AZ_MASK.count_ones() as usize];
    let (mut i, mut n) = (0, 0);
    while i < 26 {
        if IUPAC_AZ_MASK >> i & 1 == 0 {
            t[n] = b'a' + i as u8;
            n += 1;
        }
        i += 1;
    }
    t
};

/// [`copy_valid`] in blocks of 32 letters, which the compiler turns into
/// vector loads, compares and stores; the last block of a record of at
/// least 32 letters is the record's last 32 letters (overlapping the one
/// before), so that a 150-letter read has no letter-by-letter tail.
#[inline(always)]
fn copy_blocks(src: &[u8], dst: &mut Vec<u8>, map: impl Fn(u8) -> u8 + Copy, ok: impl Fn(u8) -> bool + Copy) -> bool {
    const B: usize = 32;
    let n = src.len();
    let start = dst.len();
    dst.reserve(n);
    let out = &mut dst.spare_capacity_mut()[..n];
    // a flag per lane of the block, reduced once per record: a reduction
    // per block cost more than the copy
    let mut bad = [0u8; B];
    let mut block = |from: usize, out: &mut [std::mem::MaybeUninit<u8>]| {
        let (s, o) = (&src[from..from + B], &mut out[from..from + B]);
        for i in 0..B {
            o[i].write(map(s[i]));
            bad[i] |= !ok(s[i]) as u8;
        }
    };
    if n >= B {
        for from in (0..n - B).step_by(B) {
            block(from, out);
        }
        block(n - B, out);
    } else {
        for (i, (o, &b)) in out.iter_mut().zip(src).enumerate() {
            o.write(map(b));
            bad[i] |= !ok(b) as u8;
        }
    }
    // SAFETY: the n letters after `start` were all written above
    unsafe { dst.set_len(start + n) };
    bad == [0u8; B]
}

fn letter_ok(alphabet: Alphabet, c: u8) -> bool {
    alphabet.has_letter(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_copy_copies_and_agrees_with_the_letter_check() {
        for a in [Alphabet::Dna, Alphabet::Iupac, Alphabet::Ascii] {
            for fold in [false, true] {
                for b in 0..=255u8 {
                    // every length around the block size, the bad letter at
                    // the start, in an overlapped block and at the end
                    for n in [1usize, 5, 31, 32, 33, 63, 64, 65, 150] {
                        for at in [0, n / 2, n - 1] {
                            let mut src: Vec<u8> = (0..n).map(|i| b"ACGTacgt"[i % 8]).collect();
                            src[at] = b;
                            let mut dst = b"xy".to_vec();
                            let ok = copy_valid(a, fold, &src, &mut dst);
                            assert_eq!(ok, letter_ok(a, b), "{a:?} fold {fold} byte {b} n {n} at {at}");
                            let want: Vec<u8> = src.iter().map(|&c| if fold && a == Alphabet::Ascii { c.to_ascii_lowercase() } else { c }).collect();
                            assert_eq!(&dst[..2], b"xy");
                            assert_eq!(&dst[2..], &want[..], "{a:?} fold {fold} n {n}");
                        }
                    }
                }
            }
        }
        let mut dst = Vec::new();
        assert!(copy_valid(Alphabet::Dna, false, b"", &mut dst) && dst.is_empty());
    }

    #[test]
    fn the_letters_that_are_not_iupac() {
        assert_eq!(&NOT_IUPAC, b"efijlopqz");
        for b in 0..=255u8 {
            assert_eq!(iupac_ok(b), letter_ok(Alphabet::Iupac, b), "byte {b}");
            assert_eq!(dna_ok(b), letter_ok(Alphabet::Dna, b), "byte {b}");
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
