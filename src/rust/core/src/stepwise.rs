//! Traceback in steps, for long patterns, so that a search can be stopped.
//!
//! sassy traces every match of one call before it returns, and one trace
//! costs about `(m + 1) * ceil((m + k) / 64)` DP blocks: a 4,096-letter
//! pattern at k = 2,500 takes ~4 ms per match, and a 200,000-letter record
//! has ~20,000 matches (local minima), over a minute inside one call that no
//! cancel flag can reach. For such patterns the engine asks sassy for the end
//! positions and costs only (its DP pass, fast), keeps those the window owns,
//! and traces them itself with sassy's own `fill`/`simd_fill` and `get_trace`,
//! a batch of sassy's SIMD lanes at a time: the steps sassy's
//! `process_matches` takes, with a check of the stop flag and the hit limit
//! between batches. The matches are the ones sassy returns with tracing on
//! (tests/engine.rs compares both paths on random inputs).

use crate::error::CoreError;
use sassy::private::{fill, get_trace, simd_fill, CostMatrix};
use sassy::profiles::Profile;
use sassy::{Match, Searcher};

/// DP blocks per trace from which a pattern is traced in steps. Below it, a
/// whole window's traces (every position a match, both strands) take well
/// under a second; at it (a 256-letter pattern) a trace is ~1 us.
pub const STEP_TRACE_BLOCKS: usize = 1 << 10;

/// DP blocks (64 text letters x 1 pattern letter) that one trace fills.
pub fn trace_blocks(m: usize, k: usize) -> usize {
    (m + 1).saturating_mul((m + k).div_ceil(64))
}

/// Cost matrices for one batch of traces: sassy's number of SIMD lanes (4 or
/// 8), reused across calls by the worker.
pub struct Matrices(Vec<CostMatrix>);

impl Default for Matrices {
    fn default() -> Self {
        // sassy's lane count is private; `simd_fill`'s signature fixes the
        // array length by inference (the call never runs)
        let mut lanes = std::array::from_fn(|_| CostMatrix::default());
        if false {
            simd_fill::<sassy::profiles::Dna>(b"", &[], 0, &mut lanes, None, None);
        }
        Matrices(lanes.into_iter().collect())
    }
}

/// Search `pattern` in `text` (forward only) like `Searcher::search` /
/// `search_all` with tracing, for the end positions `keep_end` accepts (the
/// clamped `text_end` of the match, as in the traced match). Traced matches
/// go to `emit` a batch at a time; an error from `emit` stops the search.
/// `max_n_frac` is the searcher's N filter (already configured on `s`): sassy
/// applies its pre-trace part in the DP pass, the exact part is applied here
/// after the trace, as sassy does.
#[allow(clippy::too_many_arguments)]
pub fn search<P: Profile>(
    s: &mut Searcher<P>,
    cms: &mut Matrices,
    pattern: &[u8],
    text: &[u8],
    k: usize,
    all_endpoints: bool,
    alpha: Option<f32>,
    max_n_frac: Option<f32>,
    keep_end: impl Fn(usize) -> bool,
    mut emit: impl FnMut(&[Match]) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    s.set_trace(false);
    let ends = if all_endpoints { s.search_all(pattern, text, k) } else { s.search(pattern, text, k) };
    // (offset of the traced slice, end position, cost); an untraced match
    // clamps its end to the text and shortens the pattern by the overhang
    let todo: Vec<(usize, usize, i32)> = ends
        .iter()
        .filter(|m| keep_end(m.text_end))
        .map(|m| {
            let end = m.text_end + (pattern.len() - m.pattern_end);
            (end.saturating_sub(pattern.len() + k), end, m.cost)
        })
        .collect();
    drop(ends);
    let fill_len = pattern.len() + k;
    let mut out = Vec::with_capacity(cms.0.len());
    for batch in todo.chunks(cms.0.len()) {
        let slices: Vec<&[u8]> = batch.iter().map(|&(from, end, _)| &text[from..end.min(text.len())]).collect();
        if batch.len() > 1 {
            let lanes = (&mut cms.0[..]).try_into().expect("one cost matrix per SIMD lane");
            simd_fill::<P>(pattern, &slices, fill_len, lanes, alpha, None);
        } else {
            fill::<P>(pattern, slices[0], fill_len, &mut cms.0[0], alpha, None);
        }
        out.clear();
        for (i, &(from, end, cost)) in batch.iter().enumerate() {
            let m = get_trace::<P>(pattern, from, end, slices[i], &cms.0[i], alpha, None);
            // the checks sassy makes after its own traces
            assert!(m.cost <= cost && m.cost <= k as i32, "traced cost {} above the expected {cost} (k = {k})", m.cost);
            if max_n_frac.is_none_or(|f| traced_n_frac_ok(&m, text, f)) {
                out.push(m);
            }
        }
        emit(&out)?;
    }
    Ok(())
}

/// sassy's exact N filter on a traced match: the fraction of `N` in the
/// matched text (the part inside the text, with overhang) is at most `f`.
fn traced_n_frac_ok(m: &Match, text: &[u8], f: f32) -> bool {
    if m.text_start >= text.len() {
        return true;
    }
    let slice = &text[m.text_start..m.text_end.min(text.len())];
    if slice.is_empty() {
        return true;
    }
    let n = slice.iter().filter(|c| c.eq_ignore_ascii_case(&b'N')).count();
    n as f32 / slice.len() as f32 <= f
}
