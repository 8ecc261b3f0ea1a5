//! The alphabets, and the one table of the IUPAC nucleotide codes that
//! everything else derives from: which letters are valid, which bases each
//! stands for (the IUPAC match relation of the CRISPR PAM and the
//! substitutions-only search), and their complements. The bottom layer of
//! the core: it uses nothing else of the crate.

/// The alphabet texts and patterns are compared in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alphabet {
    /// `ACGT` only, case-insensitive.
    Dna,
    /// IUPAC codes (`ACGTU` and `NRYSWKMBDHVX`), case-insensitive, `U` read as `T`.
    Iupac,
    /// Bytes below 128; case-sensitive unless `ignore_case`.
    Ascii,
}

/// The names of the alphabets, as `Alphabet::parse` reads them.
pub const ALPHABET_NAMES: &[&str] = &["iupac", "dna", "ascii"];

impl Alphabet {
    /// The alphabet named `s` (see [`ALPHABET_NAMES`]); `None` for no alphabet.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "dna" => Some(Alphabet::Dna),
            "iupac" => Some(Alphabet::Iupac),
            "ascii" => Some(Alphabet::Ascii),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Alphabet::Dna => "dna",
            Alphabet::Iupac => "iupac",
            Alphabet::Ascii => "ascii",
        }
    }

    /// Whether this alphabet has a reverse complement.
    pub fn is_nucleotide(self) -> bool {
        !matches!(self, Alphabet::Ascii)
    }

    /// Whether `c` is a letter of this alphabet.
    #[inline]
    pub fn has_letter(self, c: u8) -> bool {
        match self {
            Alphabet::Dna => matches!(c | 0x20, b'a' | b'c' | b'g' | b't'),
            Alphabet::Iupac => IUPAC_LETTER[c as usize],
            Alphabet::Ascii => c < 128,
        }
    }
}

/// The IUPAC codes (upper case) and the bases each stands for (A=1, C=2,
/// G=4, T=8); `X`, a masked base, stands for none and matches nothing. The
/// same relation as sassy's IUPAC profile.
const IUPAC_CODES: [(u8, u8); 17] = [
    (b'A', 1),
    (b'C', 2),
    (b'G', 4),
    (b'T', 8),
    (b'U', 8),
    (b'R', 1 | 4),
    (b'Y', 2 | 8),
    (b'S', 2 | 4),
    (b'W', 1 | 8),
    (b'K', 4 | 8),
    (b'M', 1 | 2),
    (b'B', 2 | 4 | 8),
    (b'D', 1 | 4 | 8),
    (b'H', 1 | 2 | 8),
    (b'V', 1 | 2 | 4),
    (b'N', 15),
    (b'X', 0),
];

/// Bases each byte stands for, both cases; 0 for `X` and non-IUPAC bytes.
pub(crate) static IUPAC_BITS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < IUPAC_CODES.len() {
        let (c, bits) = IUPAC_CODES[i];
        t[c as usize] = bits;
        t[c.to_ascii_lowercase() as usize] = bits;
        i += 1;
    }
    t
};

/// Whether each byte is an IUPAC letter (either case).
static IUPAC_LETTER: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < IUPAC_CODES.len() {
        let c = IUPAC_CODES[i].0;
        t[c as usize] = true;
        t[c.to_ascii_lowercase() as usize] = true;
        i += 1;
    }
    t
};

/// The IUPAC letters as bits of `a..z` (bit `c - b'a'` of a lower-case
/// letter), for the branch-free block check of `validate.rs`.
pub(crate) const IUPAC_AZ_MASK: u32 = {
    let mut m = 0u32;
    let mut i = 0;
    while i < IUPAC_CODES.len() {
        m |= 1 << (IUPAC_CODES[i].0.to_ascii_lowercase() - b'a');
        i += 1;
    }
    m
};

/// Complement of each upper-case IUPAC letter (the letter whose bases are
/// the complements: A<->T, C<->G; `U` -> `A`; S, W, N, X are their own);
/// every other byte maps to itself.
static COMPLEMENT: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b as u8;
        b += 1;
    }
    let mut i = 0;
    while i < IUPAC_CODES.len() {
        let (c, bits) = IUPAC_CODES[i];
        // swap A (1) <-> T (8) and C (2) <-> G (4)
        let comp = ((bits & 1) << 3) | ((bits & 8) >> 3) | ((bits & 2) << 1) | ((bits & 4) >> 1);
        // the first code with those bases (T before U)
        let mut j = 0;
        while j < IUPAC_CODES.len() {
            if IUPAC_CODES[j].1 == comp {
                t[c as usize] = IUPAC_CODES[j].0;
                break;
            }
            j += 1;
        }
        i += 1;
    }
    t
};

/// Whether IUPAC letters `p` and `t` match (their sets of bases intersect),
/// case-insensitively: sassy's IUPAC relation.
#[inline]
pub fn iupac_match(p: u8, t: u8) -> bool {
    IUPAC_BITS[p as usize] & IUPAC_BITS[t as usize] != 0
}

/// IUPAC complement of one upper-case letter; other bytes map to themselves.
#[inline]
pub fn complement_base(c: u8) -> u8 {
    COMPLEMENT[c as usize]
}

/// IUPAC complement of an upper-case sequence (not reversed).
pub fn complement(p: &[u8]) -> Vec<u8> {
    p.iter().map(|&c| complement_base(c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complements_as_spelled_out() {
        let pairs = [
            (b'A', b'T'), (b'T', b'A'), (b'U', b'A'), (b'C', b'G'), (b'G', b'C'), (b'R', b'Y'), (b'Y', b'R'), (b'K', b'M'),
            (b'M', b'K'), (b'B', b'V'), (b'V', b'B'), (b'D', b'H'), (b'H', b'D'), (b'S', b'S'), (b'W', b'W'), (b'N', b'N'),
            (b'X', b'X'), (b'a', b'a'), (b'-', b'-'),
        ];
        for (c, want) in pairs {
            assert_eq!(complement_base(c) as char, want as char, "{}", c as char);
        }
    }

    #[test]
    fn letters_of_each_alphabet() {
        let iupac = b"ACGTUNRYSWKMBDHVXacgtunryswkmbdhvx";
        for b in 0..=255u8 {
            assert_eq!(Alphabet::Iupac.has_letter(b), iupac.contains(&b), "{b}");
            assert_eq!(Alphabet::Dna.has_letter(b), b"ACGTacgt".contains(&b), "{b}");
            assert_eq!(Alphabet::Ascii.has_letter(b), b < 128, "{b}");
            let az = (b | 0x20).wrapping_sub(b'a');
            assert_eq!(az < 26 && (IUPAC_AZ_MASK >> az) & 1 == 1, Alphabet::Iupac.has_letter(b), "{b}");
        }
        assert!(iupac_match(b'R', b'g') && !iupac_match(b'R', b'C') && !iupac_match(b'X', b'N') && iupac_match(b'N', b'a'));
    }
}
