//! The parallel engine: cut the records into tasks, run them on the pool for
//! the plan's thread count with per-worker state, merge the task outputs in
//! task order. Results are the same on any number of threads.
//!
//! The calling thread never searches when a `poll` callback is given: it waits
//! for the workers and calls `poll` every [`POLL_INTERVAL`], so the caller (R's
//! main thread) can notice Ctrl-C and cancel. Workers check the cancel flag
//! and count the hits they hold against `max_hits` ([`Stop`]) after every
//! sassy call (between records, groups of records in text lanes (`lanes.rs`),
//! windows, pattern groups and patterns, and
//! between batches of traces for long patterns, see `stepwise.rs`), so a
//! stop takes effect within one short call and the hits held at a limit
//! error exceed the limit by at most one call's hits per thread.

pub use crate::control::{Control, Stop, POLL_INTERVAL};
use crate::assign::Best;
use crate::error::{CoreError, Rule, Value};
use crate::hits::HitBuffer;
use crate::options::{Mode, PatternGroup, SearchPlan};
use crate::profile::{AnySearcher, ProfileKind};
use crate::rc_filter::RcFilter;
use crate::sink::{Encoded, GroupEncoding, Sink, Window, NA_INT};
use crate::strategy::{self, Scope};
use crate::validate::first_invalid_letter;
use crate::worker::with_worker;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicI32, Ordering::Relaxed};
use std::sync::mpsc;

/// Below this much work (DP blocks, an upper bound, see `work_estimate`) a
/// call runs without the polling thread (which costs a thread start, tens of
/// microseconds): it finishes faster than anyone can press Ctrl-C.
const SMALL_WORK: u64 = 1 << 22;
/// Tasks per thread: enough for balance when records differ in length.
const TASKS_PER_THREAD: usize = 16;
/// Smallest task, in text bytes x patterns, to keep scheduling overhead low.
const MIN_TASK_WORK: u64 = 1 << 16;
/// Most records x patterns of a count or contains task (4 MB of values):
/// a worker holds one task's rows at a time and keeps the buffer for the
/// next task and call (tasks of 1,000 patterns are still 1,000 records).
const MAX_TASK_CELLS: usize = 1 << 20;

/// The result of a search.
#[derive(Debug)]
pub enum Output {
    /// Hit buffers whose concatenation is in (record, pattern, start, end,
    /// strand) order.
    Hits(Vec<HitBuffer>),
    /// `records x patterns` values in column-major order (record fastest):
    /// counts, or 0/1 for contains; [`NA_INT`] for missing texts.
    Values(Vec<i32>),
    /// One assignment per record (`assign.rs`).
    Best(Vec<Best>),
}

impl Output {
    pub fn n_hits(&self) -> usize {
        match self {
            Output::Hits(b) => b.iter().map(|b| b.len()).sum(),
            Output::Values(_) | Output::Best(_) => 0,
        }
    }
}

/// A unit of work: a range of records searched for a range of pattern
/// groups, or one window of one long record.
#[derive(Debug, Clone)]
struct Task {
    records: Range<usize>,
    groups: Range<usize>,
    /// Owned range of a long record's window (then `records` is that record).
    window: Option<(usize, usize)>,
    bytes: u64,
}

/// Search `texts` (`None` = missing) as `plan` says. `poll`, called from this
/// thread while the workers run, returns `true` to cancel.
pub fn run(
    plan: &SearchPlan,
    texts: &[Option<&[u8]>],
    ctl: &Control,
    poll: Option<&mut dyn FnMut() -> bool>,
) -> Result<Output, CoreError> {
    check_texts(texts)?;
    if let Some(ends) = plan.ends {
        return run_ends(plan, ends, texts, ctl, poll);
    }
    if plan.values() {
        // every cell is written (run_values); in test builds a poison value
        // instead of zeros lets the oracle tests catch a cell left out,
        // which in R's uninitialised vector would be garbage
        let fill = if cfg!(debug_assertions) { POISON } else { 0 };
        let mut values = vec![fill; value_cells(plan, texts.len())?];
        run_values(plan, texts, ctl, poll, &mut values)?;
        return Ok(Output::Values(values));
    }
    let mut poll = poll;
    let tasks = plan_tasks(plan, texts);
    let results = execute(plan, texts, &tasks, ctl, reborrow(&mut poll), None)?;
    let out = if plan.mode == Mode::Assign { merge_best(texts.len(), &tasks, results) } else { merge(plan, &tasks, results) };
    let out = with_edges(plan, None, texts, out?, ctl, poll);
    // the workers may have passed their last check before the cancel came
    interrupted_wins(ctl.cancel.load(Relaxed), out)
}

/// The poll callback again, for a second search of one call.
fn reborrow<'a>(poll: &'a mut Option<&mut dyn FnMut() -> bool>) -> Option<&'a mut dyn FnMut() -> bool> {
    match poll {
        Some(p) => Some(&mut **p),
        None => None,
    }
}

/// An assignment with overhang at the records' own ends only: the strips'
/// hits merged in (`edge_overhang.rs`).
fn with_edges(plan: &SearchPlan, ends: Option<(usize, usize)>, texts: &[Option<&[u8]>], out: Output, ctl: &Control, poll: Option<&mut dyn FnMut() -> bool>) -> Result<Output, CoreError> {
    with_edges_of(plan, ends, false, texts, out, ctl, poll)
}

/// [`with_edges`]; `own_side`: the texts are parts of records, whose only
/// record end is that of the side `ends` searches ([`claim_ends`]).
fn with_edges_of(plan: &SearchPlan, ends: Option<(usize, usize)>, own_side: bool, texts: &[Option<&[u8]>], out: Output, ctl: &Control, poll: Option<&mut dyn FnMut() -> bool>) -> Result<Output, CoreError> {
    match (&plan.edges, out) {
        (Some(edges), Output::Best(mut b)) if plan.mode == Mode::Assign => {
            let (strips, info) = crate::edge_overhang::strips_to_search(edges, ends, own_side, texts, &b);
            if strips.is_empty() {
                return Ok(Output::Best(b));
            }
            let Output::Hits(bufs) = run(&edges.plan, &strips, ctl, poll)? else {
                return Err(CoreError::Internal("edge overhang: the strips' search returned no hits".into()));
            };
            crate::edge_overhang::merge_edges(edges, &bufs, &info, &plan.samples, &mut b);
            crate::hits::recycle(bufs);
            Ok(Output::Best(b))
        }
        (_, out) => Ok(out),
    }
}

/// [`run`] of the ends of the records (`ends.rs`): the slices are searched
/// as texts, their results become the records'.
fn run_ends(plan: &SearchPlan, ends: (usize, usize), texts: &[Option<&[u8]>], ctl: &Control, poll: Option<&mut dyn FnMut() -> bool>) -> Result<Output, CoreError> {
    let mut poll = poll;
    let (slices, out) = search_ends(plan, ends, texts, ctl, reborrow(&mut poll))?;
    let out = match out {
        Output::Hits(bufs) => Output::Hits(slices.hits(bufs)),
        Output::Values(v) => {
            let mut out = vec![0; value_cells(plan, texts.len())?];
            slices.values(&v, plan.patterns.len(), plan.mode == Mode::Count, &mut out);
            Output::Values(out)
        }
        Output::Best(b) => Output::Best(slices.best(b, texts.len())),
    };
    let out = with_edges(plan, Some(ends), texts, out, ctl, reborrow(&mut poll))?;
    match out {
        Output::Best(b) if plan.halves && plan.mode == Mode::Assign => claim_ends(plan, ends, texts, b, ctl, poll).map(Output::Best),
        out => Ok(out),
    }
}

/// The side an end plan searches ([`SearchPlan::halves`]): `Some(true)`
/// for the front (`ends = (L, 0)`), `Some(false)` for the rear.
fn end_side(ends: (usize, usize)) -> Option<bool> {
    match ends {
        (h, 0) if h > 0 => Some(true),
        (0, t) if t > 0 => Some(false),
        _ => None,
    }
}

/// [`SearchPlan::halves`]: while an end's best hit lies nearer the
/// record's other end (its middle past the record's middle), it is the
/// other end's site: the end is searched again in the letters before it
/// (the front) or after it (the rear), which are fewer each time.
fn claim_ends(plan: &SearchPlan, ends: (usize, usize), texts: &[Option<&[u8]>], mut best: Vec<Best>, ctl: &Control, poll: Option<&mut dyn FnMut() -> bool>) -> Result<Vec<Best>, CoreError> {
    let Some(front) = end_side(ends) else {
        return Ok(best);
    };
    let mut poll = poll;
    // each record's letters [lo, hi) still searched
    let mut window: Vec<(usize, usize)> = texts.iter().map(|t| (0, t.map_or(0, |t| t.len()))).collect();
    let plain = SearchPlan { halves: false, ..plan.clone() };
    loop {
        let mut again = Vec::new();
        for (r, b) in best.iter_mut().enumerate() {
            let (Some(t), Some(h)) = (texts[r], b.hit) else { continue };
            let (start, end) = (h.start as usize, h.end as usize);
            if (start + end > t.len()) != front {
                continue;
            }
            let w = window[r];
            let cut = if front { (w.0, start.clamp(w.0, w.1)) } else { (end.clamp(w.0, w.1), w.1) };
            if cut == w {
                // (a hit of no letters at the window's edge: nothing is left)
                *b = Best { missing: b.missing, ..Best::default() };
                continue;
            }
            window[r] = cut;
            again.push(r);
        }
        if again.is_empty() {
            return Ok(best);
        }
        let parts: Vec<Option<&[u8]>> = again.iter().map(|&r| texts[r].map(|t| &t[window[r].0..window[r].1])).collect();
        let (_, out) = search_ends(&plain, ends, &parts, ctl, reborrow(&mut poll))?;
        let Output::Best(b) = out else {
            return Err(CoreError::Internal("the ends' search again returned no assignments".into()));
        };
        let b = match with_edges_of(&plain, Some(ends), true, &parts, Output::Best(b), ctl, reborrow(&mut poll))? {
            Output::Best(b) => b,
            _ => return Err(CoreError::Internal("the ends' search again returned no assignments".into())),
        };
        for (j, &r) in again.iter().enumerate() {
            let lo = window[r].0 as u32;
            let mut x = b[j];
            x = x.shifted(lo);
            if let Some(o) = &mut x.other {
                o.start += lo;
                o.end += lo;
            }
            best[r] = x;
        }
    }
}

/// The end slices of `texts` and the search of them as whole texts, with
/// errors about a slice made errors about its record.
fn search_ends<'t>(
    plan: &SearchPlan,
    ends: (usize, usize),
    texts: &[Option<&'t [u8]>],
    ctl: &Control,
    poll: Option<&mut dyn FnMut() -> bool>,
) -> Result<(crate::ends::Slices<'t>, Output), CoreError> {
    let slices = crate::ends::slices(texts, ends);
    // (the records' edges are searched after, on the records)
    let whole = SearchPlan { ends: None, edges: None, ..plan.clone() };
    let out = run(&whole, &slices.texts, ctl, poll).map_err(|e| slices.error(e))?;
    Ok((slices, out))
}

/// Count or contains (`plan.mode`) into `out`, the `records x patterns`
/// matrix in column-major order (record fastest; see [`Output::Values`]),
/// of [`value_cells`] cells, which need not be initialised: every cell is
/// written. The caller allocates it so that the matrix is written once,
/// where it is read: the R binding passes R's own vector. (Writing it
/// through a separate `Vec` and copying cost a fresh 51 MB and its page
/// faults for 100,000 records x 128 patterns, a tenth of the search; issue
/// 17.) On an error, `out` holds partial values.
pub fn run_values(
    plan: &SearchPlan,
    texts: &[Option<&[u8]>],
    ctl: &Control,
    poll: Option<&mut dyn FnMut() -> bool>,
    out: &mut [i32],
) -> Result<(), CoreError> {
    check_texts(texts)?;
    if !plan.values() || out.len() != value_cells(plan, texts.len())? {
        return Err(CoreError::Internal("run_values needs a count or contains plan and a records x patterns matrix".into()));
    }
    if let Some(ends) = plan.ends {
        // straight into `out`, without a records x patterns copy
        let (slices, v) = search_ends(plan, ends, texts, ctl, poll)?;
        let Output::Values(v) = v else { unreachable!("a values plan") };
        slices.values(&v, plan.patterns.len(), plan.mode == Mode::Count, out);
        return Ok(());
    }
    let tasks = plan_tasks(plan, texts);
    let results = {
        let matrix = Matrix::new(out, texts.len());
        execute(plan, texts, &tasks, ctl, poll, Some(&matrix))?
    };
    merge_windows(plan, texts.len(), &tasks, results, out)?;
    // as interrupted_wins(): a cancel that came after the last check still ends the call
    if ctl.cancel.load(Relaxed) {
        return Err(CoreError::Interrupted);
    }
    Ok(())
}

/// What test builds fill the matrix with before a search (see [`run`]).
const POISON: i32 = -7;

/// Cells of the `records x patterns` matrix of a count or contains search;
/// `TooLarge` when it could not be allocated (a failed allocation would
/// abort the process, and R with it, so callers ask here first).
pub fn value_cells(plan: &SearchPlan, n_records: usize) -> Result<usize, CoreError> {
    match n_records.checked_mul(plan.patterns.len()) {
        Some(c) if Vec::<i32>::new().try_reserve_exact(c).is_ok() => Ok(c),
        _ => Err(CoreError::TooLarge { records: n_records, patterns: plan.patterns.len() }),
    }
}

/// Record count and lengths the engine's coordinates can hold.
fn check_texts(texts: &[Option<&[u8]>]) -> Result<(), CoreError> {
    if texts.len() > u32::MAX as usize {
        return Err(CoreError::invalid("texts", None, Value::Length(texts.len()), Rule::Below { limit: 1 << 32, unit: "records" }));
    }
    for (i, t) in texts.iter().enumerate() {
        if let Some(t) = t {
            if t.len() >= i32::MAX as usize {
                return Err(CoreError::invalid("texts", Some(i), Value::Length(t.len()), Rule::Below { limit: i32::MAX as u64, unit: "letters" }));
            }
        }
    }
    Ok(())
}

/// Run `tasks` on the pool, polling when the work is large enough; with a
/// `matrix`, whole-record tasks write their values into it directly. An
/// `inline` plan with one thread and no `poll` runs them on the calling
/// thread, with its own per-thread worker state (the SQL functions: each
/// DuckDB thread searches its chunks itself).
fn execute(
    plan: &SearchPlan,
    texts: &[Option<&[u8]>],
    tasks: &[Task],
    ctl: &Control,
    poll: Option<&mut dyn FnMut() -> bool>,
    matrix: Option<&Matrix>,
) -> Result<Vec<Result<Sink, CoreError>>, CoreError> {
    let enc = encoded(plan, ctl);
    let enc: &Encoded = &enc;
    let lanes = crate::lanes::lane_groups(plan, crate::lanes::mean_len(texts));
    let call = Call { plan, enc, lanes: &lanes, texts, ctl, matrix };
    let work = work_estimate(plan, tasks);
    // progress: done_bytes counts from here to this total
    ctl.done_bytes.store(0, Relaxed);
    ctl.total_bytes.store(tasks.iter().map(|t| t.bytes).sum(), Relaxed);

    let job = || -> Vec<Result<Sink, CoreError>> {
        tasks.par_iter().enumerate().map(|(ti, t)| run_task(&call, t, ti)).collect()
    };
    if plan.inline && plan.threads == 1 && poll.is_none() {
        // Inline on the calling thread: a caller that brings its own threads
        // (DuckDB's workers calling the SQL functions, one chunk each) must
        // not funnel them all through the one thread of a 1-thread pool.
        // Only on request: other callers without a poll (background.rs) run
        // on a fresh helper thread per call, and the pool's thread keeps its
        // searchers and buffers across calls. Sequential, not par_iter
        // (outside a pool that is rayon's global pool).
        return catch(|| tasks.iter().enumerate().map(|(ti, t)| run_task(&call, t, ti)).collect());
    }
    let pool = crate::pool::get(plan.threads).map_err(CoreError::Resource)?;
    match poll {
        Some(poll) if work > SMALL_WORK => run_polled(&pool, job, ctl, poll),
        _ => catch(|| pool.install(job)),
    }
}

/// The output matrix shared by the workers. Whole-record tasks write
/// disjoint cells (their records x their groups' patterns); relaxed atomic
/// stores are plain stores on x86-64 and aarch64, and make that sharing
/// safe without a lock.
struct Matrix<'a> {
    cells: &'a [AtomicI32],
    n_records: usize,
}

impl<'a> Matrix<'a> {
    fn new(out: &'a mut [i32], n_records: usize) -> Self {
        // SAFETY: AtomicI32 has the size and alignment of i32, and the
        // exclusive borrow of `out` lasts as long as the matrix
        let cells = unsafe { &*(out as *mut [i32] as *const [AtomicI32]) };
        Matrix { cells, n_records }
    }

    /// Scatter a task's record-major rows (`v`, `n_pat` per record) into
    /// the columns of its groups' patterns, in tiles of TILE records: a
    /// tile's rows (TILE x n_pat values) stay in L1 while every pattern's
    /// column takes its TILE cells, so reads and writes touch each cache
    /// line once. Record by record the writes would jump a column (n_records
    /// x 4 bytes) per pattern, a cache and TLB miss per cell, which made
    /// counting 128 patterns cost 1.37x the search (issue 17).
    fn scatter(&self, plan: &SearchPlan, task: &Task, v: &[i32]) {
        const TILE: usize = 16;
        let n_pat = plan.patterns.len();
        let n_task = task.records.len();
        let mut j0 = 0;
        while j0 < n_task {
            let j1 = (j0 + TILE).min(n_task);
            for &p in task.groups.clone().flat_map(|g| plan.groups[g].patterns()) {
                let base = p * self.n_records + task.records.start;
                for j in j0..j1 {
                    self.cells[base + j].store(v[j * n_pat + p], Relaxed);
                }
            }
            j0 = j1;
        }
    }
}

/// Once the search was cancelled, the call ends interrupted, even when the
/// workers had already passed their last check and finished: the cancel
/// usually comes from `poll`, which consumed the caller's interrupt (R
/// clears it when it reports it), so a result returned now would lose that
/// Ctrl-C and the caller would carry on.
pub(crate) fn interrupted_wins(interrupted: bool, out: Result<Output, CoreError>) -> Result<Output, CoreError> {
    match out {
        Ok(output) if interrupted => {
            if let Output::Hits(bufs) = output {
                crate::hits::recycle(bufs);
            }
            Err(CoreError::Interrupted)
        }
        other => other,
    }
}


/// An upper bound of the work of a search in DP blocks (64 text letters x 1
/// pattern letter), for the choice to poll: the DP pass, plus a traceback
/// and an output row for every end position that could be a hit (every
/// text letter, pattern and strand: hit-dense searches, e.g. `N`-rich texts
/// with `all_endpoints`, spend nearly all their time there; issue 17);
/// `u64::MAX` when a pattern is traced in steps (one short record can then
/// take minutes, see `stepwise.rs`). Below [`SMALL_WORK`] even that worst
/// case ends within a few hundredths of a second.
fn work_estimate(plan: &SearchPlan, tasks: &[Task]) -> u64 {
    let in_steps = |p: &Vec<u8>| crate::stepwise::trace_blocks(p.len(), plan.k) >= plan.step_trace_blocks;
    if plan.needs_trace() && plan.patterns.iter().any(in_steps) {
        return u64::MAX;
    }
    let strands = if plan.rc { 2 } else { 1 };
    let per_letter: u64 = plan
        .patterns
        .iter()
        .map(|p| {
            let dp = p.len().div_ceil(64) as u64;
            let trace = if plan.needs_trace() { crate::stepwise::trace_blocks(p.len(), plan.k) as u64 } else { 0 };
            dp + strands * (trace + HIT_BLOCKS)
        })
        .sum();
    tasks.iter().map(|t| t.bytes).sum::<u64>().saturating_mul(per_letter)
}

/// What one hit costs to report and keep, in DP blocks (a `Match`, its
/// CIGAR, a hit row): a generous round figure.
const HIT_BLOCKS: u64 = 16;

/// Run `job` on the pool from a helper thread while this thread polls.
fn run_polled<T: Send>(
    pool: &rayon::ThreadPool,
    job: impl FnOnce() -> T + Send,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<T, CoreError> {
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        let handle = scope.spawn(move || {
            let r = pool.install(job);
            let _ = tx.send(());
            r
        });
        loop {
            match rx.recv_timeout(POLL_INTERVAL) {
                Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if !ctl.cancel.load(Relaxed) && poll() {
                        ctl.cancel.store(true, Relaxed);
                    }
                }
            }
        }
        handle.join().map_err(|p| CoreError::Internal(panic_message(p)))
    })
}

/// Run `f`, turning a panic into an error.
fn catch<T>(f: impl FnOnce() -> T) -> Result<T, CoreError> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| CoreError::Internal(panic_message(p)))
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a worker panicked".to_string())
}

/// What the encoding of the batched groups depends on, and that encoding:
/// kept on the control ([`Control::kept`]) between runs.
struct EncodedOnce {
    key: EncodedKey,
    encoded: std::sync::Arc<Encoded>,
}

#[derive(PartialEq)]
struct EncodedKey {
    patterns: Vec<Vec<u8>>,
    complements: Vec<Vec<u8>>,
    groups: Vec<PatternGroup>,
    rc: bool,
    overhang: Option<f32>,
    k: usize,
    rc_filter: bool,
}

impl EncodedKey {
    fn of(plan: &SearchPlan) -> Self {
        EncodedKey {
            patterns: plan.patterns.clone(),
            complements: if plan.rc { plan.complements.clone() } else { Vec::new() },
            groups: plan.groups.clone(),
            rc: plan.rc,
            overhang: plan.overhang,
            k: plan.k,
            rc_filter: plan.rc_filter,
        }
    }
}

/// The encoded batched groups of `plan`: those of the last run on `ctl` when
/// they are of the same patterns, else encoded now (and kept in `ctl`).
fn encoded(plan: &SearchPlan, ctl: &Control) -> std::sync::Arc<Encoded> {
    let key = EncodedKey::of(plan);
    let mut slot = ctl.kept.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(e) = slot.as_ref().and_then(|k| k.downcast_ref::<EncodedOnce>()).filter(|e| e.key == key) {
        return e.encoded.clone();
    }
    let encoded = std::sync::Arc::new(encode_groups(plan));
    *slot = Some(Box::new(EncodedOnce { key, encoded: encoded.clone() }));
    encoded
}

/// Encode each batched group, forward and complement.
fn encode_groups(plan: &SearchPlan) -> Encoded {
    let enc_searcher = AnySearcher::new(ProfileKind::Iupac, plan.overhang);
    plan.groups
        .iter()
        .map(|g| match g {
            PatternGroup::Single(_) => None,
            PatternGroup::Batch(idx) => {
                let fwd: Vec<Vec<u8>> = idx.iter().map(|&i| plan.patterns[i].clone()).collect();
                let f = enc_searcher.encode(&fwd)?;
                let comp = if plan.rc {
                    let comp: Vec<Vec<u8>> = idx.iter().map(|&i| plan.complements[i].clone()).collect();
                    enc_searcher.encode(&comp)
                } else {
                    None
                };
                Some(GroupEncoding { fwd: f, comp, rc_filter: RcFilter::build(plan, idx) })
            }
        })
        .collect()
}

/// Cut records into tasks of similar work: runs of short records, and one
/// task per window of each record longer than `plan.window`. With fewer tasks
/// than threads, also split the pattern groups so every thread has work.
fn plan_tasks(plan: &SearchPlan, texts: &[Option<&[u8]>]) -> Vec<Task> {
    let len = |i: usize| texts[i].map_or(0, |t| t.len());
    let n_pat = plan.patterns.len() as u64;
    let n_groups = plan.groups.len().max(1);
    let total: u64 = (0..texts.len()).map(|i| len(i) as u64).sum();
    let target = (total * n_pat / (plan.threads * TASKS_PER_THREAD) as u64).max(MIN_TASK_WORK);
    let long = |i: usize| len(i) > plan.window + 2 * plan.window_overlap;
    let values = plan.values();
    let mut tasks = Vec::new();
    let mut start = 0;
    let mut bytes = 0u64;
    let flush = |tasks: &mut Vec<Task>, start: usize, end: usize, bytes: u64| {
        if end > start {
            tasks.push(Task { records: start..end, groups: 0..n_groups, window: None, bytes });
        }
    };
    for r in 0..texts.len() {
        if long(r) {
            flush(&mut tasks, start, r, bytes);
            let n = len(r);
            for from in (0..n).step_by(plan.window) {
                let to = (from + plan.window).min(n);
                tasks.push(Task { records: r..r + 1, groups: 0..n_groups, window: Some((from, to)), bytes: (to - from) as u64 });
            }
            start = r + 1;
            bytes = 0;
            continue;
        }
        // +1 so that many empty or missing texts still form bounded tasks
        bytes += len(r) as u64 + 1;
        let cells_full = values && (r + 1 - start) * n_pat as usize >= MAX_TASK_CELLS;
        if bytes * n_pat >= target || cells_full {
            flush(&mut tasks, start, r + 1, bytes);
            start = r + 1;
            bytes = 0;
        }
    }
    flush(&mut tasks, start, texts.len(), bytes);
    if plan.threads > 1 && tasks.len() < plan.threads * 2 && n_groups > 1 {
        let per = n_groups.div_ceil(plan.threads * 4).max(1);
        tasks = tasks
            .into_iter()
            .flat_map(|t| {
                (0..n_groups).step_by(per).map(move |g| Task { groups: g..(g + per).min(n_groups), ..t.clone() })
            })
            .collect();
    }
    tasks
}

/// What every task of one call shares: the plan, its encoded groups, the
/// groups searched in text lanes, the texts, the control, and (count or
/// contains) the output matrix.
struct Call<'a> {
    plan: &'a SearchPlan,
    enc: &'a Encoded,
    lanes: &'a [bool],
    texts: &'a [Option<&'a [u8]>],
    ctl: &'a Control,
    matrix: Option<&'a Matrix<'a>>,
}

fn run_task(call: &Call, task: &Task, task_index: usize) -> Result<Sink, CoreError> {
    let Call { plan, enc, lanes, texts, ctl, matrix } = *call;
    let r = with_worker(|w| {
        let n_pat = plan.patterns.len();
        // values of whole records go straight into the matrix, through the
        // worker's reused rows; a window's values are combined after the run
        let direct = matrix.filter(|_| task.window.is_none());
        let mut sink = match plan.mode {
            Mode::Hits => Sink::Hits(crate::hits::take_buffer()),
            Mode::Assign => Sink::Best(vec![Best::default(); task.records.len()]),
            _ if direct.is_some() => {
                let mut rows = std::mem::take(&mut w.task_values);
                rows.clear();
                rows.resize(task.records.len() * n_pat, 0);
                Sink::Values(rows)
            }
            _ => Sink::Values(vec![0; task.records.len() * n_pat]),
        };
        // an assignment holds no hits: no hit limit
        let max_hits = if plan.mode == Mode::Assign { None } else { plan.max_hits };
        let stop = Stop::new(ctl, task_index, max_hits);
        // whole records go to text lanes for the groups `lanes` marks; the
        // others are searched one record at a time (see `lanes.rs`)
        let lanes_here = task.window.is_none() && task.groups.clone().any(|g| lanes[g]);
        let others = task.groups.clone().any(|g| !lanes[g]);
        let mut lane_recs = std::mem::take(&mut w.lane_recs);
        lane_recs.clear();
        let r = (|| {
            for (j, rec) in task.records.clone().enumerate() {
                let Some(text) = texts[rec] else {
                    match &mut sink {
                        Sink::Values(v) => v[j * n_pat..(j + 1) * n_pat].fill(NA_INT),
                        Sink::Best(b) => b[j] = Best::MISSING,
                        Sink::Hits(_) => {}
                    }
                    continue;
                };
                let in_lanes = lanes_here && crate::lanes::lane_record(plan, text);
                if in_lanes && !others {
                    // checked a chunk at a time where they are joined (lanes.rs)
                    lane_recs.push(rec as u32);
                    continue;
                }
                // before a search here (lane records are searched, and the
                // flag checked, a chunk at a time)
                stop.check()?;
                // a window task checks only its own range; together they cover the record
                let checked = task.window.map_or(text, |(from, to)| &text[from..to]);
                if let Some((position, letter)) = first_invalid_letter(plan.alphabet, checked) {
                    // the first bad record in order: an earlier one may wait in lanes
                    if let Some(e) = crate::lanes::first_invalid(plan, texts, &lane_recs) {
                        return Err(e);
                    }
                    let position = position + task.window.map_or(0, |(from, _)| from);
                    return Err(CoreError::InvalidLetter { arg: "texts", index: rec, position, letter, alphabet: plan.alphabet.name() });
                }
                let skip: &[bool] = if in_lanes {
                    lane_recs.push(rec as u32);
                    lanes
                } else {
                    &[]
                };
                let sc = Scope { plan, enc, groups: task.groups.clone(), lanes: skip, stop: &stop };
                let win = match task.window {
                    Some((from, to)) => Window::part(text.len(), from, to, plan.window_overlap),
                    None => Window::whole(text.len()),
                };
                match &mut sink {
                    Sink::Hits(out) => strategy::record_hits(&sc, rec as u32, text, &win, w, out)?,
                    Sink::Best(b) => {
                        // one record's hits at a time, reduced at once (assign.rs)
                        let mut hits = std::mem::take(&mut w.assign_hits);
                        hits.clear();
                        let r = strategy::record_hits(&sc, rec as u32, text, &win, w, &mut hits);
                        b[j] = b[j].merge(Best::of(&hits, &plan.samples, &plan.barcode_spans));
                        w.assign_hits = hits;
                        r?
                    }
                    Sink::Values(v) => {
                        let out = &mut v[j * n_pat..(j + 1) * n_pat];
                        if plan.mode == Mode::Count {
                            strategy::record_counts(&sc, text, &win, w, out)?;
                        } else {
                            strategy::record_contains(&sc, text, &win, w, out)?;
                        }
                    }
                }
            }
            if !lane_recs.is_empty() {
                let sc = Scope { plan, enc, groups: task.groups.clone(), lanes, stop: &stop };
                crate::lanes::search(&sc, texts, &lane_recs, task.records.start, w, &mut sink)?;
                if let Sink::Hits(out) = &mut sink {
                    if !out.is_sorted() {
                        out.sort_order(&mut w.order);
                        let mut sorted = crate::hits::take_buffer();
                        sorted.clear();
                        sorted.extend_ordered(out, &w.order);
                        crate::hits::recycle(vec![std::mem::replace(out, sorted)]);
                    }
                }
            }
            Ok(())
        })();
        w.lane_recs = lane_recs;
        if let Err(e) = r {
            recycle_sinks(vec![sink]);
            return Err(e);
        }
        if let (Some(m), Sink::Values(rows)) = (direct, &mut sink) {
            m.scatter(plan, task, rows);
            w.task_values = std::mem::take(rows);
            // a bounded task keeps this small (plan_tasks), but a worker
            // outlives the call: do not hold on to an outsized buffer
            if w.task_values.capacity() > MAX_TASK_CELLS {
                w.task_values = Vec::new();
            }
        }
        ctl.done_bytes.fetch_add(task.bytes, Relaxed);
        Ok(sink)
    });
    if r.is_err() {
        ctl.first_failed.fetch_min(task_index, Relaxed);
    }
    r
}

/// Concatenate hit buffers in task order (sorting only when tasks split a
/// record's pattern groups or windows).
fn merge(plan: &SearchPlan, tasks: &[Task], results: Vec<Result<Sink, CoreError>>) -> Result<Output, CoreError> {
    let sinks = collect_sinks(results)?;
    let bufs: Vec<HitBuffer> = sinks.into_iter().filter_map(|s| if let Sink::Hits(b) = s { Some(b) } else { None }).collect();
    let whole_records = tasks.iter().all(|t| t.window.is_none() && t.groups.len() == plan.groups.len().max(1));
    if whole_records {
        return Ok(Output::Hits(bufs));
    }
    let mut all = HitBuffer::default();
    for b in &bufs {
        all.extend_all(b);
    }
    crate::hits::recycle(bufs);
    let mut order = Vec::new();
    all.sort_order(&mut order);
    let mut sorted = crate::hits::take_buffer();
    sorted.extend_ordered(&all, &order);
    Ok(Output::Hits(vec![sorted]))
}

/// One assignment per record from the tasks' (a record split into windows
/// or pattern groups has one per task: they merge).
fn merge_best(n_records: usize, tasks: &[Task], results: Vec<Result<Sink, CoreError>>) -> Result<Output, CoreError> {
    let sinks = collect_sinks(results)?;
    let mut out = vec![Best::default(); n_records];
    for (t, s) in tasks.iter().zip(sinks) {
        let Sink::Best(b) = s else { return Err(CoreError::Internal("an assignment task without assignments".into())) };
        for (j, best) in b.into_iter().enumerate() {
            let r = t.records.start + j;
            out[r] = out[r].merge(best);
        }
    }
    Ok(Output::Best(out))
}

/// The task outputs, or the first error (in task order) after returning the
/// buffers of the tasks that finished.
fn collect_sinks(results: Vec<Result<Sink, CoreError>>) -> Result<Vec<Sink>, CoreError> {
    let mut sinks = Vec::with_capacity(results.len());
    for r in results {
        match r {
            Ok(s) => sinks.push(s),
            Err(e) => {
                recycle_sinks(sinks);
                return Err(e);
            }
        }
    }
    Ok(sinks)
}

/// Windows of one long record add up (count) or combine with "or"
/// (contains) into the record's row of `out`; whole-record tasks wrote
/// theirs during the run.
fn merge_windows(plan: &SearchPlan, n_records: usize, tasks: &[Task], results: Vec<Result<Sink, CoreError>>, out: &mut [i32]) -> Result<(), CoreError> {
    let sinks = collect_sinks(results)?;
    let n_pat = plan.patterns.len();
    let count = plan.mode == Mode::Count;
    let mut cleared = usize::MAX;
    for (t, s) in tasks.iter().zip(sinks) {
        let (Some(_), Sink::Values(v)) = (t.window, s) else { continue };
        let r = t.records.start;
        // windows of a record are consecutive tasks: start its row at zero
        if cleared != r {
            for p in 0..n_pat {
                out[p * n_records + r] = 0;
            }
            cleared = r;
        }
        for &p in t.groups.clone().flat_map(|g| plan.groups[g].patterns()) {
            let cell = &mut out[p * n_records + r];
            *cell = if count { cell.saturating_add(v[p]) } else { (*cell).max(v[p]) };
        }
    }
    Ok(())
}

fn recycle_sinks(sinks: Vec<Sink>) {
    crate::hits::recycle(sinks.into_iter().filter_map(|s| if let Sink::Hits(b) = s { Some(b) } else { None }).collect());
}
