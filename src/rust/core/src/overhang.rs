//! Overhang at the right end of a text, as far as at the left end.
//!
//! sassy 0.3.0 lets the pattern hang over the left end of a text by any
//! number of letters `o` (cost `floor(alpha * o)`), but over the right end
//! by at most `ceil((k + alpha) / alpha)` letters (`get_overhang_steps`: it
//! pads the text with that many `N` and stops there). That cap is too small
//! whenever `alpha < 1`: with `alpha = 0.1` and `k = 0` a pattern may hang
//! 9 letters over the left end at cost 0, but only 1 over the right end
//! (and with `alpha = 0`, `k = 0`, none at all). Hits are then missed, and
//! in the default mode the last capped position can be reported as a local
//! minimum although the cost keeps falling beyond it.
//!
//! What we search instead is sassy without the cap: the right end may be
//! passed by up to the whole pattern, at the same cost as the left end.
//! The cap grows with `k`, so we ask sassy for `k' >= k` large enough that
//! the cap reaches the longest overhang that can cost `<= k`
//! ([`search_k`]; often `k' = k`) and keep the matches of cost `<= k`.
//! That is exact, in both modes:
//!
//! - the DP costs do not depend on `k`; with `all_endpoints` sassy reports
//!   every end with cost `<= k'`, of which those `<= k` are ours;
//! - the rightmost-local-minimum rule decides from the costs alone whether a
//!   position is a minimum (`k` is only the final `cost <= k` test), so the
//!   minima `<= k'` filtered to `<= k` are the minima `<= k`.
//!
//! Only the untraced DP pass sees `k'`: the matches kept are traced as usual
//! (`stepwise.rs`, with the real `k`), so no trace is wasted on a match of
//! cost above `k`. Texts shorter than their windows' context and windows of
//! long records need nothing else: a window's slice is searched like a
//! whole text, and only the last window owns hits at the record's end.
//!
//! The one case where `k'` must reach the pattern length: `alpha = 0` with
//! a one-letter pattern (`k = 0` gives sassy's cap `ceil(0 / 0) = 0`, so
//! `k' = 1`). sassy takes `k = m` there (with overhang every position has
//! an alignment of cost at most `m`); the plan still refuses `k >= m` from
//! the caller, where sassy can fail.

use sassy::Match;

/// Overhang letters sassy allows past the right end of the text for a
/// pattern of length `m`, at `k`: `sassy::search::get_overhang_steps`
/// (private), computed the same way in single precision.
pub fn sassy_right_cap(m: usize, k: usize, alpha: f32) -> usize {
    let steps = ((k as f32 + alpha) / alpha).ceil();
    // `as` saturates (inf -> usize::MAX) and maps NaN (0 / 0) to 0, as in sassy
    m.min(steps as usize)
}

/// The most letters a pattern of length `m` can hang over one end at cost
/// `<= k`: the largest `o <= m` with `floor(alpha * o) <= k` (sassy's
/// single-precision arithmetic).
pub fn useful_overhang(m: usize, k: usize, alpha: f32) -> usize {
    let fits = |o: usize| (alpha * o as f32).floor() as usize <= k;
    if alpha <= 0.0 || fits(m) {
        return m;
    }
    // floor(alpha * o) <= k  <=>  o < (k + 1) / alpha (up to rounding)
    let mut o = (((k + 1) as f32 / alpha).ceil() as usize).min(m);
    while o > 0 && !fits(o) {
        o -= 1;
    }
    while o < m && fits(o + 1) {
        o += 1;
    }
    o
}

/// The `k` to give sassy so that a pattern of length `m` may hang over the
/// right end as far as over the left end: the smallest `k' >= k` whose cap
/// reaches [`useful_overhang`] (`k` itself when sassy's cap already does, as
/// for `alpha >= 0.5` mostly, and without overhang; `k' <= m`).
///
/// The cap need not go further: past the useful overhang every position
/// costs more than `k`, so nothing is reported there, and at the last
/// position sassy's rule ("the last position, if the costs were still
/// falling") decides as the uncapped rule does (the next cost is above `k`,
/// hence higher).
pub fn search_k(m: usize, k: usize, alpha: Option<f32>) -> usize {
    let Some(alpha) = alpha else { return k };
    let need = useful_overhang(m, k, alpha);
    if m == 0 || sassy_right_cap(m, k, alpha) >= need {
        return k;
    }
    // cap(k') >= need  <=>  k' >= alpha * (need - 1) (up to rounding): start
    // just below that and step up in sassy's own arithmetic
    let guess = ((alpha * need.saturating_sub(1) as f32).floor() as usize).saturating_sub(1).max(k);
    (guess..=m).find(|&kk| sassy_right_cap(m, kk, alpha) >= need).unwrap_or(m)
}

/// Keep the matches of cost `<= k` of a search run at [`search_k`].
pub fn keep_cost(matches: &mut Vec<Match>, k: usize) {
    matches.retain(|m| m.cost <= k as i32);
}
