//! CIGARs in SAM's convention. sassy writes a hit's CIGAR in the pattern's
//! direction: on the minus strand it aligns the pattern to the reverse
//! complement of the text region. SAM writes it along the reference (here
//! the text) on its forward strand, for the read as it lies there: on the
//! minus strand the reverse complement of the pattern. Both use `I` for a
//! letter of the pattern (query) missing from the text (reference) and `D`
//! for a letter of the text missing from the pattern, and reverse
//! complementing both sequences keeps each operation's kind; so the SAM
//! CIGAR of a minus-strand hit is sassy's with its operations in reverse
//! order. Pattern letters outside the aligned part (overhang) become soft
//! clips (`S`), so the CIGAR spells the whole pattern, as SAM requires.

/// Write the SAM CIGAR of a hit to `out`: `cigar` is sassy's (e.g.
/// `3=1X2=`), `minus` its strand, `clip_start` and `clip_end` the pattern
/// letters before and after the aligned part, in the pattern's direction.
/// `None` when `cigar` is not a CIGAR of `=`, `X`, `I`, `D` runs.
pub fn sam_cigar(cigar: &[u8], minus: bool, clip_start: u64, clip_end: u64, out: &mut Vec<u8>) -> Option<()> {
    let mut ops: Vec<(&[u8], u8)> = Vec::new();
    let mut from = 0;
    for (i, &c) in cigar.iter().enumerate() {
        if c.is_ascii_digit() {
            continue;
        }
        if !matches!(c, b'=' | b'X' | b'I' | b'D') || i == from {
            return None;
        }
        ops.push((&cigar[from..i], c));
        from = i + 1;
    }
    if from != cigar.len() {
        return None;
    }
    let (left, right) = if minus { (clip_end, clip_start) } else { (clip_start, clip_end) };
    let mut buf = itoa::Buffer::new();
    if left > 0 {
        out.extend_from_slice(buf.format(left).as_bytes());
        out.push(b'S');
    }
    let mut push = |(n, op): &(&[u8], u8)| {
        out.extend_from_slice(n);
        out.push(*op);
    };
    if minus {
        ops.iter().rev().for_each(&mut push);
    } else {
        ops.iter().for_each(&mut push);
    }
    if right > 0 {
        out.extend_from_slice(buf.format(right).as_bytes());
        out.push(b'S');
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sam(c: &str, minus: bool, l: u64, r: u64) -> Option<String> {
        let mut out = Vec::new();
        sam_cigar(c.as_bytes(), minus, l, r, &mut out).map(|_| String::from_utf8(out).unwrap())
    }

    #[test]
    fn plus_is_unchanged_minus_is_reversed_clips_swap() {
        assert_eq!(sam("3=1I2=1D1X", false, 0, 0).unwrap(), "3=1I2=1D1X");
        assert_eq!(sam("3=1I2=1D1X", true, 0, 0).unwrap(), "1X1D2=1I3=");
        assert_eq!(sam("10=", false, 2, 1).unwrap(), "2S10=1S");
        assert_eq!(sam("10=", true, 2, 1).unwrap(), "1S10=2S");
        assert_eq!(sam("", false, 0, 0).unwrap(), "");
    }

    #[test]
    fn malformed_cigars_are_refused() {
        for c in ["3", "=", "3=2", "3M", "3=X"] {
            assert_eq!(sam(c, false, 0, 0), None, "{c}");
        }
    }
}
