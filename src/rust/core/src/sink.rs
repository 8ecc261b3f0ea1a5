//! What one record's search feeds: every hit (traced, sorted, columnar), a
//! count per pattern (no traceback), or presence per pattern (stops at the
//! first hit). One engine drives all three.
//!
//! A record may be searched whole or as one window of it ([`Window`]): the
//! searched slice has context on both sides, and only hits the window owns
//! are kept, so that the windows of a record together give each hit once.

use crate::engine::Stop;
use crate::error::CoreError;
use crate::hits::HitBuffer;
use crate::options::{PatternGroup, SearchPlan};
use crate::profile::{AnyEncoded, ProfileKind};
use crate::worker::Worker;
use sassy::Match;

/// `NA_integer_` in R; used for counts and presence of `NA` texts.
pub const NA_INT: i32 = i32::MIN;

/// Encoded forms of the batched groups: (forward, complement) per group, `None`
/// for single-pattern groups.
pub type Encoded = Vec<Option<(AnyEncoded, Option<AnyEncoded>)>>;

/// Per-task output.
pub enum Sink {
    Hits(HitBuffer),
    /// Record-major values (`records x patterns` of the task), counts or 0/1.
    Values(Vec<i32>),
}

/// Which part of a record is searched and which hits it keeps. Coordinates
/// are in the whole record. A forward hit is owned if its end lies in
/// `(own_from, own_to]`, a reverse-complement hit if its start lies in
/// `[own_from, own_to)`: each is the end position on its own strand, so the
/// windows partition the end positions of both strands.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// Start of the searched slice.
    pub lo: usize,
    /// End of the searched slice.
    pub hi: usize,
    pub own_from: usize,
    pub own_to: usize,
    /// `false` for a whole record: keep everything sassy reports.
    pub windowed: bool,
    /// Length of the whole record: the first and last windows also own the
    /// empty alignments of a pattern hanging entirely over the record's ends.
    pub n: usize,
}

impl Window {
    pub fn whole(n: usize) -> Self {
        Window { lo: 0, hi: n, own_from: 0, own_to: n, windowed: false, n }
    }

    /// Owned range `[from, to)` of a record of length `n` with `overlap`
    /// letters of context on each side.
    pub fn part(n: usize, from: usize, to: usize, overlap: usize) -> Self {
        Window { lo: from.saturating_sub(overlap), hi: (to + overlap).min(n), own_from: from, own_to: to, windowed: true, n }
    }

    /// Keep a forward hit ending at `end` (slice coordinates)?
    pub(crate) fn keeps_fwd(&self, end: usize) -> bool {
        let e = self.lo + end;
        !self.windowed || (self.own_from < e && e <= self.own_to) || (e == 0 && self.own_from == 0)
    }

    /// Keep a reverse-complement hit whose end on the reversed slice is
    /// `rev_end`, i.e. that starts at `len - rev_end` of the slice?
    pub(crate) fn keeps_rc(&self, rev_end: usize) -> bool {
        let s = self.hi - rev_end;
        !self.windowed || (self.own_from <= s && s < self.own_to) || (s == self.n && self.own_to == self.n)
    }
}

/// Search `text[win.lo..win.hi]` of record `rec` for the groups `groups` and
/// append every owned hit to `out`, ordered by pattern, start, end, strand.
/// Hits are counted against the limit and the stop flag is checked after
/// every sassy call; on an error `out` is left as it was.
#[allow(clippy::too_many_arguments)]
pub fn record_hits(
    plan: &SearchPlan,
    enc: &Encoded,
    groups: std::ops::Range<usize>,
    skip: &[bool],
    rec: u32,
    text: &[u8],
    win: &Window,
    w: &mut Worker,
    out: &mut HitBuffer,
    stop: &Stop,
) -> Result<(), CoreError> {
    w.with_text(&text[win.lo..win.hi], plan.fold_case(), |text, w| {
        if plan.rc {
            w.set_reversed(text);
        }
        let mut staging = std::mem::take(&mut w.staging);
        staging.clear();
        let r = slice_hits(plan, enc, groups, skip, rec, text, win, w, &mut staging, stop);
        if r.is_ok() {
            if staging.is_sorted() {
                out.extend_all(&staging);
            } else {
                staging.sort_order(&mut w.order);
                out.extend_ordered(&staging, &w.order);
            }
        }
        w.staging = staging;
        r
    })
}

/// The hits of each group in `staging`, in sassy's order.
#[allow(clippy::too_many_arguments)]
fn slice_hits(
    plan: &SearchPlan,
    enc: &Encoded,
    groups: std::ops::Range<usize>,
    skip: &[bool],
    rec: u32,
    text: &[u8],
    win: &Window,
    w: &mut Worker,
    staging: &mut HitBuffer,
    stop: &Stop,
) -> Result<(), CoreError> {
    let kind = ProfileKind::of(plan);
    let mut keep = Keep { rec, win, cigar: plan.cigar, n: text.len(), out: staging, counted: 0 };
    for gi in groups {
        if skipped(skip, gi) {
            continue;
        }
        stop.check()?;
        match &plan.groups[gi] {
            // CRISPR plans: the guide's spacer, then its PAM (crispr.rs)
            PatternGroup::Single(pi) if plan.crispr.is_some() => {
                let c = plan.crispr.as_ref().expect("checked");
                crate::crispr::guide_hits(plan, c, *pi, text, w, &mut keep)
            }
            PatternGroup::Single(pi) => single_hits(plan, kind, *pi, text, w, &mut keep, stop)?,
            PatternGroup::Batch(idx) if text.is_empty() => {
                // sassy's batched search cannot take an empty text
                for &pi in idx {
                    single_hits(plan, kind, pi, text, w, &mut keep, stop)?;
                }
            }
            PatternGroup::Batch(idx) => {
                let Some((fwd, comp)) = &enc[gi] else { unreachable!("batched group without encoding") };
                let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                s.configure(true, plan.max_n_frac);
                for m in s.search_encoded(fwd, text, plan.k, plan.all_endpoints) {
                    keep.fwd(idx[m.pattern_idx], m);
                }
                keep.report(stop)?;
                if let Some(comp) = comp {
                    let rev = std::mem::take(&mut w.rev);
                    let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                    for m in s.search_encoded(comp, &rev, plan.k, plan.all_endpoints) {
                        keep.rc(idx[m.pattern_idx], m);
                    }
                    w.rev = rev;
                }
            }
        }
        keep.report(stop)?;
    }
    Ok(())
}

/// Whether group `gi` is left out here (searched in text lanes instead,
/// see `lanes.rs`); an empty `skip` leaves out nothing.
fn skipped(skip: &[bool], gi: usize) -> bool {
    skip.get(gi).copied().unwrap_or(false)
}

/// Moves owned matches of one slice into a hit buffer in record coordinates.
/// (`pub(crate)` for `crispr.rs`, which hands it its own matches.)
pub(crate) struct Keep<'a> {
    rec: u32,
    win: &'a Window,
    cigar: bool,
    /// Length of the searched slice.
    n: usize,
    out: &'a mut HitBuffer,
    /// Rows of `out` already counted against the hit limit.
    counted: usize,
}

impl Keep<'_> {
    /// Count the hits kept since the last report against the limit.
    pub(crate) fn report(&mut self, stop: &Stop) -> Result<(), CoreError> {
        let n = self.out.len() - self.counted;
        self.counted = self.out.len();
        stop.add_hits(n)
    }

    pub(crate) fn window(&self) -> &Window {
        self.win
    }

    pub(crate) fn fwd(&mut self, pattern: usize, m: &Match) {
        if self.win.keeps_fwd(m.text_end) {
            let lo = self.win.lo;
            self.out.push_match(self.rec, pattern as u32, lo + m.text_start, lo + m.text_end, m, false, self.cigar);
        }
    }

    /// `m` is on the reversed slice; it becomes forward coordinates here.
    pub(crate) fn rc(&mut self, pattern: usize, m: &Match) {
        if self.win.keeps_rc(m.text_end) {
            let (lo, n) = (self.win.lo, self.n);
            self.out.push_match(self.rec, pattern as u32, lo + n - m.text_end, lo + n - m.text_start, m, true, self.cigar);
        }
    }
}

/// Hits of pattern `pi` alone, both strands.
fn single_hits(plan: &SearchPlan, kind: ProfileKind, pi: usize, text: &[u8], w: &mut Worker, keep: &mut Keep, stop: &Stop) -> Result<(), CoreError> {
    if !plan.indels {
        return crate::hamming::single_hits(plan, pi, text, w, keep, stop);
    }
    if in_steps(plan, pi) {
        let win = keep.win;
        single_in_steps(plan, kind, &plan.patterns[pi], text, w, stop, |e| win.keeps_fwd(e), |ms| {
            ms.iter().for_each(|m| keep.fwd(pi, m));
            keep.report(stop)
        })?;
        if plan.rc {
            let rev = std::mem::take(&mut w.rev);
            let r = single_in_steps(plan, kind, &plan.complements[pi], &rev, w, stop, |e| win.keeps_rc(e), |ms| {
                ms.iter().for_each(|m| keep.rc(pi, m));
                keep.report(stop)
            });
            w.rev = rev;
            r?;
        }
        return Ok(());
    }
    let s = w.searcher(kind, plan.overhang);
    s.configure(true, plan.max_n_frac);
    for m in s.search(&plan.patterns[pi], text, plan.k, plan.all_endpoints) {
        keep.fwd(pi, &m);
    }
    if plan.rc {
        keep.report(stop)?;
        let rev = std::mem::take(&mut w.rev);
        let s = w.searcher(kind, plan.overhang);
        for m in s.search(&plan.complements[pi], &rev, plan.k, plan.all_endpoints) {
            keep.rc(pi, &m);
        }
        w.rev = rev;
    }
    Ok(())
}

/// Whether pattern `pi` is traced in steps (see `stepwise.rs`); always with
/// overhang, whose DP pass runs at a larger `k` than its traces (`overhang.rs`).
fn in_steps(plan: &SearchPlan, pi: usize) -> bool {
    plan.overhang.is_some() || crate::stepwise::trace_blocks(plan.patterns[pi].len(), plan.k) >= plan.step_trace_blocks
}

/// One strand's traced search of `pattern` in steps: the stop flag is checked
/// before every batch of traces, `emit` gets the owned traced matches.
#[allow(clippy::too_many_arguments)]
fn single_in_steps(
    plan: &SearchPlan,
    kind: ProfileKind,
    pattern: &[u8],
    text: &[u8],
    w: &mut Worker,
    stop: &Stop,
    keep_end: impl Fn(usize) -> bool,
    mut emit: impl FnMut(&[Match]) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    let (s, cms) = w.searcher_and_matrices(kind, plan.overhang);
    s.configure(false, plan.max_n_frac);
    stop.check()?;
    s.search_in_steps(cms, pattern, text, plan.k, plan.all_endpoints, plan.overhang, plan.max_n_frac, keep_end, |ms| {
        emit(ms)?;
        stop.check()
    })
}

/// Number of owned hits of each pattern in the window, into `out[pattern]`.
/// No traceback unless the N-fraction filter needs it (see `needs_trace`);
/// without it sassy still reports each match's end, which decides ownership.
/// Batched groups use sassy's batched search (it traces its hits, but for
/// many patterns it is still far less work than one search per pattern).
#[allow(clippy::too_many_arguments)]
pub fn record_counts(plan: &SearchPlan, enc: &Encoded, groups: std::ops::Range<usize>, skip: &[bool], text: &[u8], win: &Window, w: &mut Worker, out: &mut [i32], stop: &Stop) -> Result<(), CoreError> {
    w.with_text(&text[win.lo..win.hi], plan.fold_case(), |text, w| slice_tally(plan, enc, groups, skip, text, win, w, out, false, stop))
}

/// 1 if a pattern has an owned hit in the window, else 0, into `out[pattern]`.
/// The reverse strand is searched only when the forward strand left a
/// pattern without a hit.
#[allow(clippy::too_many_arguments)]
pub fn record_contains(plan: &SearchPlan, enc: &Encoded, groups: std::ops::Range<usize>, skip: &[bool], text: &[u8], win: &Window, w: &mut Worker, out: &mut [i32], stop: &Stop) -> Result<(), CoreError> {
    w.with_text(&text[win.lo..win.hi], plan.fold_case(), |text, w| slice_tally(plan, enc, groups, skip, text, win, w, out, true, stop))
}

/// Count (or, with `contains`, flag) owned hits per pattern of `groups`,
/// checking the stop flag between groups.
#[allow(clippy::too_many_arguments)]
fn slice_tally(plan: &SearchPlan, enc: &Encoded, groups: std::ops::Range<usize>, skip: &[bool], text: &[u8], win: &Window, w: &mut Worker, out: &mut [i32], contains: bool, stop: &Stop) -> Result<(), CoreError> {
    let mut rev_ready = false;
    for gi in groups {
        if skipped(skip, gi) {
            continue;
        }
        stop.check()?;
        match &plan.groups[gi] {
            PatternGroup::Single(pi) => tally_single(plan, *pi, text, win, w, out, contains, &mut rev_ready, stop)?,
            PatternGroup::Batch(idx) if text.is_empty() => {
                for &pi in idx {
                    tally_single(plan, pi, text, win, w, out, contains, &mut rev_ready, stop)?;
                }
            }
            PatternGroup::Batch(idx) => {
                let Some((fwd, comp)) = &enc[gi] else { unreachable!("batched group without encoding") };
                for &pi in idx {
                    out[pi] = 0;
                }
                let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                s.configure(true, plan.max_n_frac);
                for m in s.search_encoded(fwd, text, plan.k, plan.all_endpoints) {
                    if win.keeps_fwd(m.text_end) {
                        out[idx[m.pattern_idx]] += 1;
                    }
                }
                let done = contains && idx.iter().all(|&pi| out[pi] > 0);
                if let (Some(comp), false) = (comp, done) {
                    let rev = reversed(text, w, &mut rev_ready);
                    let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                    for m in s.search_encoded(comp, &rev, plan.k, plan.all_endpoints) {
                        if win.keeps_rc(m.text_end) {
                            out[idx[m.pattern_idx]] += 1;
                        }
                    }
                    w.rev = rev;
                }
                for &pi in idx {
                    out[pi] = if contains { (out[pi] > 0) as i32 } else { out[pi] };
                }
            }
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn tally_single(plan: &SearchPlan, pi: usize, text: &[u8], win: &Window, w: &mut Worker, out: &mut [i32], contains: bool, rev_ready: &mut bool, stop: &Stop) -> Result<(), CoreError> {
    if !plan.indels {
        crate::hamming::tally_single(plan, pi, text, win, w, out, contains, |w| reversed(text, w, rev_ready));
        return Ok(());
    }
    let kind = ProfileKind::of(plan);
    // traced counts (the N filter) of a long pattern: in steps, like hits
    let steps = plan.needs_trace() && in_steps(plan, pi);
    let mut n = 0;
    if steps {
        single_in_steps(plan, kind, &plan.patterns[pi], text, w, stop, |e| win.keeps_fwd(e), |ms| {
            n += ms.len();
            Ok(())
        })?;
    } else {
        let s = w.searcher(kind, plan.overhang);
        s.configure(plan.needs_trace(), plan.max_n_frac);
        n = crate::overhang::search(s, plan, &plan.patterns[pi], text).iter().filter(|m| win.keeps_fwd(m.text_end)).count();
    }
    if plan.rc && !(contains && n > 0) {
        stop.check()?;
        let rev = reversed(text, w, rev_ready);
        let r = if steps {
            single_in_steps(plan, kind, &plan.complements[pi], &rev, w, stop, |e| win.keeps_rc(e), |ms| {
                n += ms.len();
                Ok(())
            })
        } else {
            let s = w.searcher(kind, plan.overhang);
            s.configure(plan.needs_trace(), plan.max_n_frac);
            n += crate::overhang::search(s, plan, &plan.complements[pi], &rev).iter().filter(|m| win.keeps_rc(m.text_end)).count();
            Ok(())
        };
        w.rev = rev;
        r?;
    }
    out[pi] = if contains { (n > 0) as i32 } else { n.min(i32::MAX as usize) as i32 };
    Ok(())
}

/// The worker's reversed-text buffer, filled once per slice on first use;
/// the caller puts it back into `w.rev`.
fn reversed(text: &[u8], w: &mut Worker, ready: &mut bool) -> Vec<u8> {
    if !*ready {
        w.set_reversed(text);
        *ready = true;
    }
    std::mem::take(&mut w.rev)
}
