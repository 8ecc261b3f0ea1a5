//! Substitutions only (`indels = false`): every placement of the whole
//! pattern with at most `k` mismatches, as Biostrings' `with.indels = FALSE`
//! and Cas-OFFinder-style off-target searches count them.
//!
//! Built on sassy's all-endpoints search: an alignment with `h` mismatches
//! and no gap is an edit alignment of cost `h` ending at the same position,
//! so every end position of a Hamming hit is among the end positions sassy
//! reports with cost `<= k` (untraced: the DP pass only). Each candidate end
//! `e` is then checked directly: the window `text[e - m..e]` is compared
//! letter by letter with the pattern, with the alphabet's own match relation
//! (IUPAC: the sets of bases intersect; DNA: case-insensitive; ASCII: bytes,
//! texts already folded for `ignore_case`), stopping at `k + 1` mismatches.
//!
//! A hit is the window: `start = e - m`, `end = e`, the whole pattern
//! aligned, `cost` = mismatches, CIGAR of `=` and `X` only. Each placement is
//! one hit, so `all_endpoints` changes nothing. `max_n_frac` drops windows
//! with a larger fraction of `N`. Overhang has no meaning here (the plan
//! refuses it). The reverse strand, windows of long records, threads and
//! the hit limit are the engine's, as for edit hits: the sink calls
//! [`single_hits`] / [`tally_single`] for each pattern of a plan with
//! `indels = false`, and `crispr.rs` calls [`guide_strand`] for guides.

use crate::control::Stop;
use crate::error::CoreError;
use crate::options::{Alphabet, SearchPlan};
use crate::profile::ProfileKind;
use crate::sink::{HitSink, Window};
use crate::worker::Worker;
use pa_types::{Cigar, CigarOp};
use sassy::{Match, Strand};

/// Whether pattern letter `p` matches text letter `t` in `alphabet`.
#[inline]
pub fn letters_match(alphabet: Alphabet, p: u8, t: u8) -> bool {
    match alphabet {
        Alphabet::Iupac => crate::alphabet::iupac_match(p, t),
        Alphabet::Dna => p.eq_ignore_ascii_case(&t),
        Alphabet::Ascii => p == t,
    }
}

/// Mismatches of `pattern` against `window` (same length), or `None` once
/// they exceed `k`.
#[inline]
pub fn mismatches(alphabet: Alphabet, pattern: &[u8], window: &[u8], k: usize) -> Option<usize> {
    let mut n = 0;
    for (&p, &t) in pattern.iter().zip(window) {
        if !letters_match(alphabet, p, t) {
            n += 1;
            if n > k {
                return None;
            }
        }
    }
    Some(n)
}

/// `=`/`X` CIGAR of `pattern` against `window`.
pub fn cigar(alphabet: Alphabet, pattern: &[u8], window: &[u8]) -> Cigar {
    let mut c = Cigar::default();
    for (&p, &t) in pattern.iter().zip(window) {
        c.push(if letters_match(alphabet, p, t) { CigarOp::Match } else { CigarOp::Sub });
    }
    c
}

/// `n / len <= max` in sassy's single precision (an empty region passes).
fn n_frac_ok(window: &[u8], max: Option<f32>) -> bool {
    let Some(max) = max else { return true };
    let n = window.iter().filter(|c| c.eq_ignore_ascii_case(&b'N')).count();
    window.is_empty() || n as f32 / window.len() as f32 <= max
}

/// Candidate end positions of `pattern` in `text`: every end with edit cost
/// `<= k`, ascending, each once.
fn candidate_ends(kind: ProfileKind, pattern: &[u8], text: &[u8], k: usize, w: &mut Worker) -> Vec<usize> {
    let s = w.searcher(kind, None);
    s.configure(false, None);
    let mut ends: Vec<usize> = s.search(pattern, text, k, true).iter().map(|m| m.text_end).filter(|&e| e >= pattern.len()).collect();
    ends.sort_unstable();
    ends.dedup();
    ends
}

/// A Hamming hit as sassy would report it (slice coordinates of its strand).
fn hit(alphabet: Alphabet, pattern: &[u8], text: &[u8], end: usize, cost: usize, with_cigar: bool) -> Match {
    let start = end - pattern.len();
    Match {
        pattern_idx: 0,
        text_idx: 0,
        text_start: start,
        text_end: end,
        pattern_start: 0,
        pattern_end: pattern.len(),
        cost: cost as i32,
        strand: Strand::Fwd,
        cigar: if with_cigar { cigar(alphabet, pattern, &text[start..end]) } else { Cigar::default() },
    }
}

/// Ends `e` (ascending) of the Hamming hits of `pattern` in `text` with their
/// mismatches, among the ends `keep_end` accepts.
fn strand_ends(plan: &SearchPlan, pattern: &[u8], text: &[u8], w: &mut Worker, keep_end: impl Fn(usize) -> bool) -> Vec<(usize, usize)> {
    let m = pattern.len();
    candidate_ends(ProfileKind::of(plan), pattern, text, plan.k, w)
        .into_iter()
        .filter(|&e| keep_end(e))
        .filter_map(|e| {
            let window = &text[e - m..e];
            let mm = mismatches(plan.alphabet, pattern, window, plan.k)?;
            n_frac_ok(window, plan.max_n_frac).then_some((e, mm))
        })
        .collect()
}

/// Hamming hits of pattern `pi`, both strands, into `keep` (slice
/// coordinates; `w.rev` holds the reversed slice when `plan.rc`).
pub(crate) fn single_hits(plan: &SearchPlan, pi: usize, text: &[u8], w: &mut Worker, keep: &mut HitSink, stop: &Stop) -> Result<(), CoreError> {
    let win = *keep.window();
    let pattern = &plan.patterns[pi];
    for (e, mm) in strand_ends(plan, pattern, text, w, |e| win.keeps_fwd(e)) {
        keep.fwd(pi, &hit(plan.alphabet, pattern, text, e, mm, plan.cigar));
    }
    if plan.rc {
        keep.report(stop)?;
        let rev = std::mem::take(&mut w.rev);
        let comp = &plan.complements[pi];
        for (e, mm) in strand_ends(plan, comp, &rev, w, |e| win.keeps_rc(e)) {
            keep.rc(pi, &hit(plan.alphabet, comp, &rev, e, mm, plan.cigar));
        }
        w.rev = rev;
    }
    Ok(())
}

/// Number of owned Hamming hits of pattern `pi` (or, with `contains`, 1 if
/// there is one). `rev` gives the reversed slice on demand.
pub(crate) fn tally_single(plan: &SearchPlan, pi: usize, text: &[u8], win: &Window, w: &mut Worker, contains: bool, rev: impl FnOnce(&mut Worker) -> Vec<u8>) -> i32 {
    let mut n = strand_ends(plan, &plan.patterns[pi], text, w, |e| win.keeps_fwd(e)).len();
    if plan.rc && !(contains && n > 0) {
        let r = rev(w);
        n += strand_ends(plan, &plan.complements[pi], &r, w, |e| win.keeps_rc(e)).len();
        w.rev = r;
    }
    if contains { (n > 0) as i32 } else { n.min(i32::MAX as usize) as i32 }
}

/// CRISPR guide hits on one strand's text with substitutions only: the
/// spacer (or, with `allow_pam_edits`, the whole guide) with at most `k`
/// mismatches, the PAM letters matching exactly unless `allow_pam_edits`.
/// `pam_ok(e)` checks the PAM after a spacer ending at `e`; hits go to
/// `emit` with the PAM counted as matches and their CIGAR (the caller
/// checks the N fraction of the region, PAM included).
pub(crate) fn guide_strand(k: usize, searched: &[u8], pam_len: usize, text: &[u8], w: &mut Worker, pam_ok: impl Fn(usize) -> bool, mut emit: impl FnMut(&Match)) {
    let with_cigar = true;
    let s_len = searched.len();
    for e in candidate_ends(ProfileKind::Iupac, searched, text, k, w) {
        if e + pam_len > text.len() || !pam_ok(e) {
            continue;
        }
        let Some(mm) = mismatches(Alphabet::Iupac, searched, &text[e - s_len..e], k) else { continue };
        let mut m = hit(Alphabet::Iupac, searched, text, e, mm, with_cigar);
        if pam_len > 0 {
            m.text_end += pam_len;
            m.pattern_end += pam_len;
            if with_cigar {
                m.cigar.push_matches(pam_len as _);
            }
        }
        emit(&m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatches_stop_above_k_and_follow_the_alphabet() {
        assert_eq!(mismatches(Alphabet::Iupac, b"ACGT", b"ACGT", 0), Some(0));
        assert_eq!(mismatches(Alphabet::Iupac, b"ACGT", b"NCGA", 1), Some(1));
        assert_eq!(mismatches(Alphabet::Iupac, b"ACGT", b"TTTT", 2), None);
        assert_eq!(mismatches(Alphabet::Iupac, b"RYAX", b"GTAA", 3), Some(1));
        assert_eq!(mismatches(Alphabet::Dna, b"ACGT", b"acgt", 0), Some(0));
        assert_eq!(mismatches(Alphabet::Ascii, b"Ab", b"ab", 1), Some(1));
        let mut out = Vec::new();
        crate::hits::write_cigar(&cigar(Alphabet::Iupac, b"ACGTT", b"ACCTN"), &mut out);
        assert_eq!(out, b"2=1X2=");
    }
}
