//! Short records in sassy's text lanes.
//!
//! sassy's `Searcher::search` splits one text into as many chunks as its SIMD
//! vector has lanes (4 with AVX2), each with an overlap of `m + k` letters: a
//! 150-letter read is then mostly overlap and per-call setup, and costs about
//! eight times as much per letter as a genome. `Searcher::search_texts` puts
//! one record in each lane instead (the lanes of one scan run to the longest
//! record of the four, so records are sorted by length first). The engine
//! sends the whole records of a task that are at most [`LANE_MAX_LEN`]
//! letters long here, for every pattern group [`lane_groups`] allows, and
//! searches the other groups (and longer records, and windows) one record at
//! a time as before; the hits are mapped back to their records and sorted
//! into the same order, so that the result is that of the one-by-one search.
//!
//! Where lanes are not used, and why (each checked by tests/lanes.rs):
//! - `all_endpoints`: sassy 0.3.0's `search_texts` reports rightmost local
//!   minima only (it has no all-endpoints variant).
//! - pattern groups searched with sassy's pattern tiling (`PatternGroup::Batch`,
//!   several equal-length patterns at once): pattern lanes already fill the
//!   SIMD vector, see [`LANE_MAX_LEN`] for the comparison.
//! - CRISPR plans (a per-hit PAM check, `crispr.rs`) and patterns traced in
//!   steps (`stepwise.rs`): they need their own per-record loops.
//! - `overhang`: sassy caps the overhang at a text's right end; the
//!   per-record path works around it (`overhang.rs`, a first pass at a larger
//!   `k`), which `search_texts` cannot do per lane.
//! - `indels = false` (Hamming hits, `hamming.rs`): candidates come from an
//!   all-endpoints search, which lanes lack.
//! - empty texts: nothing to scan; the one-by-one search handles them (a
//!   pattern may still hang over both ends with overhang).
//!
//! The switch: `DUCKSASSY_LANES=off` in the environment turns lanes off for
//! every plan built while it is set (read once per plan, in
//! `SearchPlan::new`): for testing that both paths agree and for benchmarks.

use crate::engine::Stop;
use crate::error::CoreError;
use crate::options::{Mode, PatternGroup, SearchPlan};
use crate::profile::ProfileKind;
use crate::sink::Sink;
use crate::worker::Worker;

/// Whole records of at most this many letters go to text lanes.
///
/// Measured on the shared development machine (AVX-512, 8 lanes), CPU time
/// side by side in one process, one thread, random ACGT reads, one 20-mer,
/// k = 2, both strands, min of 2-3 reps. `sassy_count()` from R, 40 MB of
/// reads per length, lanes vs `DUCKSASSY_LANES=off`: 2.29x faster at 150
/// bases (0.18 vs 0.42 s; one pasted text 0.05 s), 2.42x at 256 (0.13 vs
/// 0.32 s); `sassy_search()` 2.28x and 2.93x. examples/lanes.rs (count,
/// 30 MB): lanes take 0.70 of one-by-one at 1,000 bases, 0.88 at 2,000 and
/// 1.00 at 5,000 (10 ms timer: the last two are within noise). Lanes win
/// clearly up to about a kilobase; beyond, sassy's own single-text search
/// fills its lanes from one record and the gain is gone, and a scan of
/// records of different lengths wastes more (the sassy-only
/// measurement: slower than the loop at 1,000 bases when half the reads
/// hit). The bound does not depend on the thread count.
///
/// Many patterns (examples/lanes.rs, 150- and 1,000-base reads, count):
/// equal-length patterns from `BATCH_MIN_PATTERNS` (4) on use sassy's
/// pattern tiling (`PatternGroup::Batch`), which stays: at 8 patterns it
/// takes 0.09 s against 0.13 s for the same patterns one at a time in text
/// lanes (both far ahead of one record and pattern at a time, 0.76 s); at 6
/// they are even (0.11 vs 0.14 s at 150 bases, 0.09 vs 0.07 s at 1,000);
/// at 4, text lanes were faster (0.07 vs 0.11 s). So the plan keeps pattern
/// tiling for groups of 4 or more, and single patterns (and groups below 4)
/// go to text lanes; lowering the tiling threshold for 4-7 patterns is
/// left for a quieter measurement.
pub const LANE_MAX_LEN: usize = 1024;

/// Most records per `search_texts` call: the stop flag is checked between
/// calls, and the hits of one call are held at once (the hit-limit bound of
/// tests/stop.rs). 256 records of up to [`LANE_MAX_LEN`] letters are well
/// under a millisecond per pattern; sassy loops over them 8 (or 4) at a
/// time, so larger groups gain nothing but our own per-group setup (one
/// `Vec` of slices, the reversed texts), which 256 records amortise.
pub const LANE_GROUP: usize = 256;

/// Whether the environment allows text lanes (`DUCKSASSY_LANES` unset or
/// anything but `off`, `false`, `0`, `no`).
pub fn enabled_by_env() -> bool {
    match std::env::var("DUCKSASSY_LANES") {
        Ok(v) => !matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "false" | "0" | "no"),
        Err(_) => true,
    }
}

/// For each pattern group of `plan`, whether it is searched in text lanes
/// (for the records [`lane_record`] accepts). See the module notes.
pub fn lane_groups(plan: &SearchPlan) -> Vec<bool> {
    let off = plan.lane_max_len == 0
        || plan.all_endpoints
        || plan.crispr.is_some()
        || plan.overhang.is_some()
        || !plan.indels;
    plan.groups
        .iter()
        .map(|g| match g {
            PatternGroup::Single(pi) if !off => {
                crate::stepwise::trace_blocks(plan.patterns[*pi].len(), plan.k) < plan.step_trace_blocks
            }
            _ => false,
        })
        .collect()
}

/// Whether a whole (not windowed) record goes to text lanes.
pub fn lane_record(plan: &SearchPlan, text: &[u8]) -> bool {
    !text.is_empty() && text.len() <= plan.lane_max_len
}

/// Search the records `recs` (indices into `texts`, all present, sorted by
/// length) for the groups in `groups` that `lanes` marks, into `sink`, whose
/// rows (values) or record numbers (hits) start at record `first`. Hits are
/// appended unsorted; the caller sorts the task's buffer.
#[allow(clippy::too_many_arguments)]
pub(crate) fn search(
    plan: &SearchPlan,
    lanes: &[bool],
    groups: std::ops::Range<usize>,
    texts: &[Option<&[u8]>],
    recs: &[u32],
    first: usize,
    w: &mut Worker,
    sink: &mut Sink,
    stop: &Stop,
) -> Result<(), CoreError> {
    let mut fwd_buf = std::mem::take(&mut w.lane_fwd);
    let mut rev_buf = std::mem::take(&mut w.lane_rev);
    let mut r = Ok(());
    for chunk in recs.chunks(plan.lane_group.max(1)) {
        r = search_chunk(plan, lanes, groups.clone(), texts, chunk, first, w, sink, stop, &mut fwd_buf, &mut rev_buf);
        if r.is_err() {
            break;
        }
    }
    w.lane_fwd = fwd_buf;
    w.lane_rev = rev_buf;
    r
}

#[allow(clippy::too_many_arguments)]
fn search_chunk(
    plan: &SearchPlan,
    lanes: &[bool],
    groups: std::ops::Range<usize>,
    texts: &[Option<&[u8]>],
    chunk: &[u32],
    first: usize,
    w: &mut Worker,
    sink: &mut Sink,
    stop: &Stop,
    fwd_buf: &mut Vec<u8>,
    rev_buf: &mut Vec<u8>,
) -> Result<(), CoreError> {
    let text = |r: u32| texts[r as usize].expect("lane records are present");
    let fold = plan.fold_case();
    fwd_buf.clear();
    rev_buf.clear();
    for &r in chunk {
        if fold {
            fwd_buf.extend(text(r).iter().map(u8::to_ascii_lowercase));
        }
        if plan.rc {
            rev_buf.extend(text(r).iter().rev());
        }
    }
    // the slices of this chunk: in the caller's texts, or in the buffers
    let mut fwd: Vec<&[u8]> = Vec::with_capacity(chunk.len());
    let mut rev: Vec<&[u8]> = Vec::with_capacity(if plan.rc { chunk.len() } else { 0 });
    let mut at = 0;
    for &r in chunk {
        let n = text(r).len();
        fwd.push(if fold { &fwd_buf[at..at + n] } else { text(r) });
        if plan.rc {
            rev.push(&rev_buf[at..at + n]);
        }
        at += n;
    }
    let kind = ProfileKind::of(plan);
    let n_pat = plan.patterns.len();
    let contains = plan.mode == Mode::Contains;
    // contains: which chunk records the reverse strand still has to search
    let mut todo: Vec<usize> = Vec::new();
    let mut todo_rev: Vec<&[u8]> = Vec::new();
    for gi in groups {
        if !lanes[gi] {
            continue;
        }
        let pi = plan.groups[gi].patterns()[0];
        stop.check()?;
        let s = w.searcher(kind, plan.overhang);
        s.configure(plan.needs_trace(), plan.max_n_frac);
        let ms = s.search_texts(&plan.patterns[pi], &fwd, plan.k);
        match sink {
            Sink::Hits(out) => {
                for m in &ms {
                    out.push_match(chunk[m.text_idx], pi as u32, m.text_start, m.text_end, m, false, plan.cigar);
                }
                stop.add_hits(ms.len())?;
            }
            Sink::Values(v) => {
                for m in &ms {
                    v[(chunk[m.text_idx] as usize - first) * n_pat + pi] += 1;
                }
            }
        }
        if !plan.rc {
            finish_contains(sink, chunk, first, n_pat, pi, contains);
            continue;
        }
        stop.check()?;
        let cell = |v: &Vec<i32>, i: usize| v[(chunk[i] as usize - first) * n_pat + pi];
        let (rev_texts, map): (&[&[u8]], Option<&[usize]>) = match sink {
            Sink::Values(v) if contains => {
                todo.clear();
                todo.extend((0..chunk.len()).filter(|&i| cell(v, i) == 0));
                todo_rev.clear();
                todo_rev.extend(todo.iter().map(|&i| rev[i]));
                (&todo_rev, Some(&todo))
            }
            _ => (&rev, None),
        };
        if rev_texts.is_empty() {
            finish_contains(sink, chunk, first, n_pat, pi, contains);
            continue;
        }
        let s = w.searcher(kind, plan.overhang);
        let ms = s.search_texts(&plan.complements[pi], rev_texts, plan.k);
        let idx = |m: &sassy::Match| map.map_or(m.text_idx, |t| t[m.text_idx]);
        match sink {
            Sink::Hits(out) => {
                for m in &ms {
                    let r = chunk[idx(m)];
                    let n = text(r).len();
                    out.push_match(r, pi as u32, n - m.text_end, n - m.text_start, m, true, plan.cigar);
                }
                stop.add_hits(ms.len())?;
            }
            Sink::Values(v) => {
                for m in &ms {
                    v[(chunk[idx(m)] as usize - first) * n_pat + pi] += 1;
                }
            }
        }
        finish_contains(sink, chunk, first, n_pat, pi, contains);
    }
    Ok(())
}

/// Contains: the hit counts of pattern `pi` become 0/1.
fn finish_contains(sink: &mut Sink, chunk: &[u32], first: usize, n_pat: usize, pi: usize, contains: bool) {
    if let (Sink::Values(v), true) = (sink, contains) {
        for &r in chunk {
            let c = &mut v[(r as usize - first) * n_pat + pi];
            *c = (*c > 0) as i32;
        }
    }
}
