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
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use sassy::private::{fill, get_trace, simd_fill, CostMatrix};
use sassy::profiles::Profile;
use sassy::{Match, Searcher};

pub use crate::options::STEP_TRACE_BLOCKS;

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

/// The options of one traced search in steps: at most `k` edits, every end
/// point or the rightmost local minima, the overhang cost `alpha`, and the
/// N-fraction filter `max_n_frac`.
#[derive(Debug, Clone, Copy)]
pub struct StepQuery {
    pub k: usize,
    pub all_endpoints: bool,
    pub alpha: Option<f32>,
    pub max_n_frac: Option<f32>,
}

impl StepQuery {
    pub fn of(plan: &crate::options::SearchPlan) -> Self {
        StepQuery { k: plan.k, all_endpoints: plan.all_endpoints, alpha: plan.overhang, max_n_frac: plan.max_n_frac }
    }
}

/// Search `pattern` in `text` (forward only) like `Searcher::search` /
/// `search_all` with tracing, for the end positions `keep_end` accepts (the
/// clamped `text_end` of the match, as in the traced match). Traced matches
/// go to `emit` a batch at a time; an error from `emit` stops the search.
/// `max_n_frac` is the searcher's N filter (already configured on `s`): sassy
/// applies its pre-trace part in the DP pass, the exact part is applied here
/// after the trace, as sassy does.
pub fn search<P: Profile>(
    s: &mut Searcher<P>,
    cms: &mut Matrices,
    pattern: &[u8],
    text: &[u8],
    q: &StepQuery,
    keep_end: impl Fn(usize) -> bool,
    mut emit: impl FnMut(&[Match]) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    let StepQuery { k, all_endpoints, alpha, .. } = *q;
    s.set_trace(false);
    // with overhang, the DP pass runs at a larger k so that the right end is
    // not capped; only matches of cost <= k are traced (see overhang.rs)
    let sk = crate::overhang::search_k(pattern.len(), k, alpha);
    let ends = if all_endpoints { s.search_all(pattern, text, sk) } else { s.search(pattern, text, sk) };
    // (offset of the traced slice, end position, cost); an untraced match
    // clamps its end to the text and shortens the pattern by the overhang
    let todo: Vec<(usize, usize, i32)> = ends
        .iter()
        .filter(|m| m.cost <= k as i32 && keep_end(m.text_end))
        .map(|m| {
            let end = m.text_end + (pattern.len() - m.pattern_end);
            (end.saturating_sub(pattern.len() + k), end, m.cost)
        })
        .collect();
    drop(ends);
    if todo.is_empty() {
        return Ok(());
    }
    let lanes = lanes_for(pattern.len(), k, cms.0.len());
    let reserved = TraceMemory::reserve(pattern.len(), k, lanes)?;
    let result = trace_batches::<P>(&todo, lanes, pattern, text, q, cms, &mut emit);
    if reserved.bytes > KEEP_BYTES {
        // a worker keeps its matrices across calls: not gigabytes of them
        *cms = Matrices::default();
    }
    result
}

/// Trace the matches `todo` a batch of `lanes` at a time.
fn trace_batches<P: Profile>(
    todo: &[(usize, usize, i32)],
    lanes: usize,
    pattern: &[u8],
    text: &[u8],
    q: &StepQuery,
    cms: &mut Matrices,
    emit: &mut impl FnMut(&[Match]) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    let StepQuery { k, alpha, max_n_frac, .. } = *q;
    let fill_len = pattern.len() + k;
    let mut out = Vec::with_capacity(lanes);
    let out = &mut out;
    for batch in todo.chunks(lanes) {
        let slices: Vec<&[u8]> = batch.iter().map(|&(from, end, _)| &text[from..end.min(text.len())]).collect();
        if batch.len() > 1 {
            let mats = (&mut cms.0[..]).try_into().expect("one cost matrix per SIMD lane");
            simd_fill::<P>(pattern, &slices, fill_len, mats, alpha, None);
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
        emit(out)?;
    }
    Ok(())
}

/// Bytes of sassy's cost matrix for one trace (16 per DP block).
pub fn trace_bytes(m: usize, k: usize) -> usize {
    trace_blocks(m, k).saturating_mul(16)
}

/// Matrices above this size are freed after the call instead of kept.
const KEEP_BYTES: usize = 64 << 20;
/// The SIMD batch is used only while all its matrices fit in this; longer
/// patterns are traced one match at a time (one matrix per worker).
const LANES_BYTES: usize = 256 << 20;

/// How many matches to trace at once: sassy's lanes, or 1 when that many
/// matrices of this pattern's size would be too much memory.
fn lanes_for(m: usize, k: usize, simd_lanes: usize) -> usize {
    if trace_bytes(m, k).saturating_mul(simd_lanes) > LANES_BYTES {
        1
    } else {
        simd_lanes
    }
}

/// Bytes of trace matrices the workers of this process hold right now.
static TRACE_BYTES: AtomicUsize = AtomicUsize::new(0);

/// A worker's share of [`TRACE_BYTES`], given back when dropped.
struct TraceMemory {
    bytes: usize,
}

impl TraceMemory {
    /// Refuse a trace the machine cannot hold, before sassy allocates it:
    /// sassy allocates infallibly, and a failed allocation aborts the
    /// process (and R with it). Too large is more than half of the physical
    /// memory (when it is known) for all workers' matrices together, or an
    /// allocation of this worker's size failing now.
    fn reserve(m: usize, k: usize, lanes: usize) -> Result<Self, CoreError> {
        let bytes = trace_bytes(m, k).saturating_mul(lanes);
        let held = TRACE_BYTES.fetch_add(bytes, Relaxed).saturating_add(bytes);
        let me = TraceMemory { bytes };
        let too_large = physical_memory().is_some_and(|ram| held > ram / 2) || Vec::<u8>::new().try_reserve_exact(bytes).is_err();
        if too_large {
            return Err(CoreError::TraceMemory { pattern_length: m, k, bytes: trace_bytes(m, k) as u64 });
        }
        Ok(me)
    }
}

impl Drop for TraceMemory {
    fn drop(&mut self) {
        TRACE_BYTES.fetch_sub(self.bytes, Relaxed);
    }
}

/// Total physical memory in bytes, where the system says (Linux); read
/// once per process (every traced search in steps asks, and reading
/// `/proc/meminfo` each time was a tenth of a kit's demultiplexing).
fn physical_memory() -> Option<usize> {
    static RAM: std::sync::OnceLock<Option<usize>> = std::sync::OnceLock::new();
    *RAM.get_or_init(read_physical_memory)
}

fn read_physical_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kb.checked_mul(1024)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_patterns_are_traced_one_match_at_a_time() {
        assert_eq!(trace_bytes(4096, 2500), 4097 * 104 * 16);
        assert_eq!(lanes_for(4096, 2500, 8), 8); // 54 MB for 8
        assert_eq!(lanes_for(20_000, 100, 8), 1); // 111 MB each
        assert_eq!(lanes_for(20_000, 100, 1), 1);
    }

    #[test]
    fn a_trace_larger_than_memory_is_an_error_and_holds_nothing() {
        let before = TRACE_BYTES.load(Relaxed);
        // 10^7 letters: 2.5e13 bytes per trace, more than any machine here
        let e = TraceMemory::reserve(10_000_000, 10, 1).err().expect("refused");
        assert!(matches!(e, CoreError::TraceMemory { pattern_length: 10_000_000, k: 10, .. }), "{e:?}");
        // other tests may trace at the same time; what this one reserved is back
        assert!(TRACE_BYTES.load(Relaxed) <= before + trace_bytes(4096, 4096) * 8 * 4);
        let ok = TraceMemory::reserve(300, 10, 8).expect("small traces fit");
        assert_eq!(ok.bytes, trace_bytes(300, 10) * 8);
    }
}
