//! The search strategies of one record (or window of one): for each pattern
//! group of the plan, sassy one pattern at a time, sassy's batched search
//! (pattern tiling), traced in steps (`stepwise.rs`), substitutions only
//! (`hamming.rs`) or CRISPR guides (`crispr.rs`), feeding every hit
//! (traced, sorted, columnar), a count per pattern (no traceback), or
//! presence per pattern (stops at the first hit) into the record's sink
//! (`sink.rs`). The engine calls these for each record of a task; text
//! lanes (`lanes.rs`) call them for records they do not join.

use crate::control::Stop;
use crate::error::CoreError;
use crate::hits::HitBuffer;
use crate::options::{PatternGroup, SearchPlan};
use crate::profile::{AnyEncoded, AnySearcher, ProfileKind};
use crate::stepwise::StepQuery;
use crate::sink::{Encoded, GroupEncoding, HitSink, Window};
use crate::worker::Worker;
use sassy::Match;
use std::ops::Range;

/// What one strategy call searches besides the text: the plan, its encoded
/// groups, the range of pattern groups, the groups searched in text lanes
/// (`lanes.rs`: the one-record strategies leave them out, the lanes search
/// only them; empty: none) and the stop check. One value, so that a new
/// sink or strategy does not add arguments to every function.
#[derive(Clone)]
pub struct Scope<'a> {
    pub plan: &'a SearchPlan,
    pub enc: &'a Encoded,
    pub groups: Range<usize>,
    pub lanes: &'a [bool],
    pub stop: &'a Stop<'a>,
}

impl<'a> Scope<'a> {
    /// The same search of the groups `groups` only, none in lanes.
    pub fn only(&self, groups: Range<usize>) -> Scope<'a> {
        Scope { groups, lanes: &[], ..self.clone() }
    }

    /// Whether group `gi` is left out here (searched in text lanes instead).
    fn skipped(&self, gi: usize) -> bool {
        self.lanes.get(gi).copied().unwrap_or(false)
    }
}

/// Search `text[win.lo..win.hi]` of record `rec` for the groups of `sc` and
/// append every owned hit to `out`, ordered by pattern, start, end, strand.
/// Hits are counted against the limit and the stop flag is checked after
/// every sassy call; on an error `out` is left as it was.
pub fn record_hits(sc: &Scope, rec: u32, text: &[u8], win: &Window, w: &mut Worker, out: &mut HitBuffer) -> Result<(), CoreError> {
    let plan = sc.plan;
    w.with_text(&text[win.lo..win.hi], plan.fold_case(), |text, w| {
        // the reversed slice, unless every group filters its reverse strand
        // (which then reverses only the parts it searches, or the slice when
        // it cannot filter)
        let mut rev_ready = plan.rc && !all_filtered(sc);
        if rev_ready {
            w.set_reversed(text);
        }
        let mut staging = std::mem::take(&mut w.staging);
        staging.clear();
        let r = slice_hits(sc, rec, text, win, w, &mut staging, &mut rev_ready);
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

/// Whether every group `sc` searches here is batched with a reverse-strand
/// filter.
fn all_filtered(sc: &Scope) -> bool {
    sc.groups.clone().filter(|&gi| !sc.skipped(gi)).all(|gi| sc.enc[gi].as_ref().is_some_and(|g| g.rc_filter.is_some()))
}

/// The hits of each group in `staging`, in sassy's order. `rev_ready`:
/// whether `w.rev` holds the reversed slice yet.
fn slice_hits(sc: &Scope, rec: u32, text: &[u8], win: &Window, w: &mut Worker, staging: &mut HitBuffer, rev_ready: &mut bool) -> Result<(), CoreError> {
    let (plan, enc, stop) = (sc.plan, sc.enc, sc.stop);
    let kind = ProfileKind::of(plan);
    let mut keep = HitSink { rec, win, cigar: plan.cigar, n: text.len(), out: staging, counted: 0 };
    for gi in sc.groups.clone() {
        if sc.skipped(gi) {
            continue;
        }
        stop.check()?;
        match &plan.groups[gi] {
            // CRISPR plans: the guide's spacer, then its PAM (crispr.rs)
            PatternGroup::Single(pi) if plan.crispr.is_some() => {
                let c = plan.crispr.as_ref().expect("checked");
                crate::crispr::guide_hits(plan, c, *pi, text, w, &mut keep)
            }
            PatternGroup::Single(pi) => single_hits(sc, kind, *pi, text, w, &mut keep)?,
            PatternGroup::Batch(idx) if text.is_empty() => {
                // sassy's batched search cannot take an empty text
                if plan.rc && !*rev_ready {
                    w.set_reversed(text);
                    *rev_ready = true;
                }
                for &pi in idx {
                    single_hits(sc, kind, pi, text, w, &mut keep)?;
                }
            }
            PatternGroup::Batch(idx) => {
                let Some(g) = &enc[gi] else { unreachable!("batched group without encoding") };
                let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                s.configure(true, plan.max_n_frac);
                for m in s.search_encoded(&g.fwd, text, plan.k, plan.all_endpoints) {
                    keep.fwd(idx[m.pattern_idx], m);
                }
                keep.report(stop)?;
                match reverse_plan(g, idx, text, w, |_| false) {
                    Reverse::None => {}
                    Reverse::Batched(comp) => {
                        let rev = reversed(text, w, rev_ready);
                        let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                        for m in s.search_encoded(comp, &rev, plan.k, plan.all_endpoints) {
                            keep.rc(idx[m.pattern_idx], m);
                        }
                        w.rev = rev;
                    }
                    Reverse::Singles => candidate_matches(sc, idx, text, w, true, |pi, m| keep.rc(pi, m))?,
                }
            }
        }
        keep.report(stop)?;
    }
    Ok(())
}

/// How the reverse strand of a batched group is searched in one slice.
enum Reverse<'e> {
    /// Not at all: one strand only, or no pattern can have a hit there.
    None,
    /// The group's complements, batched on the reversed text.
    Batched(&'e AnyEncoded),
    /// Each pattern in `w.rc_candidates` (indices in the group) alone.
    Singles,
}

/// A group's reverse-strand candidates may be at most this fraction of its
/// patterns (1 / this) to be searched one by one; with more, the group is
/// searched batched. One pattern alone costs about a tenth of a batch of 96
/// (sassy's pattern tiling shares the text's profile and SIMD lanes).
const RC_SINGLES_MAX_SHARE: usize = 16;

/// How to search the reverse strand of group `g` (patterns `idx`) in `text`,
/// leaving out the patterns (indices in the group) that `skip` names: with
/// a filter (`rc_filter.rs`), only the patterns that can have a hit there,
/// one by one, unless there are many or the text has letters other than
/// ACGT. The hits of each come from the same search of its complement on
/// the reversed text as for a single pattern, so they are exactly those of
/// every other path (tests/engine.rs compares them).
fn reverse_plan<'e>(g: &'e GroupEncoding, idx: &[usize], text: &[u8], w: &mut Worker, skip: impl Fn(usize) -> bool) -> Reverse<'e> {
    let Some(comp) = &g.comp else { return Reverse::None };
    let Some(f) = &g.rc_filter else { return Reverse::Batched(comp) };
    let mut cand = std::mem::take(&mut w.rc_candidates);
    let known = f.candidates(text, &mut w.rc_scratch, &mut cand, idx.len() / RC_SINGLES_MAX_SHARE, skip);
    let empty = cand.is_empty();
    w.rc_candidates = cand;
    match (known, empty) {
        (false, _) => Reverse::Batched(comp),
        (true, true) => Reverse::None,
        (true, false) => Reverse::Singles,
    }
}

/// The reverse-strand matches of each candidate in `w.rc_candidates`
/// (patterns `idx[c.pattern]`), to `emit(pattern, match)` with coordinates
/// on the whole reversed slice. Each pattern is searched alone, only in the
/// part of the slice its alignments can lie in, as a window with the
/// engine's overlap ([`Window::part`], [`SearchPlan::window_overlap`]): the
/// owned hits of windows are those of the whole text (tests/engine.rs).
fn candidate_matches(sc: &Scope, idx: &[usize], text: &[u8], w: &mut Worker, trace: bool, mut emit: impl FnMut(usize, &Match)) -> Result<(), CoreError> {
    let plan = sc.plan;
    let n = text.len();
    let cand = std::mem::take(&mut w.rc_candidates);
    let mut part = std::mem::take(&mut w.rc_part);
    let r = cand.iter().try_for_each(|c| {
        sc.stop.check()?;
        let sub = Window::part(n, c.from, c.to, plan.window_overlap);
        part.clear();
        part.extend(text[sub.lo..sub.hi].iter().rev());
        let s = w.searcher(ProfileKind::of(plan), plan.overhang);
        s.configure(trace, plan.max_n_frac);
        let shift = n - sub.hi;
        for m in s.search(&plan.complements[idx[c.pattern]], &part, plan.k, plan.all_endpoints) {
            if sub.keeps_rc(m.text_end) {
                // (untraced matches have no start)
                let text_start = if trace { m.text_start + shift } else { m.text_start };
                emit(idx[c.pattern], &Match { text_start, text_end: m.text_end + shift, ..m });
            }
        }
        Ok(())
    });
    w.rc_candidates = cand;
    w.rc_part = part;
    r
}

/// Hits of pattern `pi` alone, both strands.
fn single_hits(sc: &Scope, kind: ProfileKind, pi: usize, text: &[u8], w: &mut Worker, keep: &mut HitSink) -> Result<(), CoreError> {
    let (plan, stop) = (sc.plan, sc.stop);
    if !plan.indels {
        return crate::hamming::single_hits(plan, pi, text, w, keep, stop);
    }
    if in_steps(plan, pi) {
        let win = keep.win;
        single_in_steps(sc, kind, &plan.patterns[pi], text, w, |e| win.keeps_fwd(e), |ms| {
            ms.iter().for_each(|m| keep.fwd(pi, m));
            keep.report(stop)
        })?;
        if plan.rc {
            let rev = std::mem::take(&mut w.rev);
            let r = single_in_steps(sc, kind, &plan.complements[pi], &rev, w, |e| win.keeps_rc(e), |ms| {
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
fn single_in_steps(
    sc: &Scope,
    kind: ProfileKind,
    pattern: &[u8],
    text: &[u8],
    w: &mut Worker,
    keep_end: impl Fn(usize) -> bool,
    mut emit: impl FnMut(&[Match]) -> Result<(), CoreError>,
) -> Result<(), CoreError> {
    let (plan, stop) = (sc.plan, sc.stop);
    let (s, cms) = w.searcher_and_matrices(kind, plan.overhang);
    // sassy's N filter before the trace counts the N of the m - k letters
    // before each end: a bound only when the whole pattern lies in the text,
    // so with overhang it drops hits without an N (issue 24). The exact rule
    // on the traced region (stepwise::traced_n_frac_ok) is applied anyway.
    let prefilter = if plan.overhang.is_some() { None } else { plan.max_n_frac };
    s.configure(false, prefilter);
    stop.check()?;
    s.search_in_steps(cms, pattern, text, &StepQuery::of(plan), keep_end, |ms| {
        emit(ms)?;
        stop.check()
    })
}

/// Number of owned hits of each pattern in the window, into `out[pattern]`.
/// No traceback unless the N-fraction filter needs it (see `needs_trace`);
/// without it sassy still reports each match's end, which decides ownership.
/// Batched groups use sassy's batched search (it traces its hits, but for
/// many patterns it is still far less work than one search per pattern).
pub fn record_counts(sc: &Scope, text: &[u8], win: &Window, w: &mut Worker, out: &mut [i32]) -> Result<(), CoreError> {
    w.with_text(&text[win.lo..win.hi], sc.plan.fold_case(), |text, w| slice_tally(sc, text, win, w, &mut Tally { out, contains: false, rev_ready: false }))
}

/// 1 if a pattern has an owned hit in the window, else 0, into `out[pattern]`.
/// The reverse strand is searched only when the forward strand left a
/// pattern without a hit.
pub fn record_contains(sc: &Scope, text: &[u8], win: &Window, w: &mut Worker, out: &mut [i32]) -> Result<(), CoreError> {
    w.with_text(&text[win.lo..win.hi], sc.plan.fold_case(), |text, w| slice_tally(sc, text, win, w, &mut Tally { out, contains: true, rev_ready: false }))
}

/// Where a count or contains search of one slice goes: the values per
/// pattern, whether they are 0/1 flags, and whether `w.rev` holds the
/// slice's reverse yet (it is filled once, on first use).
struct Tally<'o> {
    out: &'o mut [i32],
    contains: bool,
    rev_ready: bool,
}

/// Count (or, with `contains`, flag) owned hits per pattern of `groups`,
/// checking the stop flag between groups.
fn slice_tally(sc: &Scope, text: &[u8], win: &Window, w: &mut Worker, t: &mut Tally) -> Result<(), CoreError> {
    let (plan, enc) = (sc.plan, sc.enc);
    for gi in sc.groups.clone() {
        if sc.skipped(gi) {
            continue;
        }
        sc.stop.check()?;
        match &plan.groups[gi] {
            PatternGroup::Single(pi) => tally_single(sc, *pi, text, win, w, t)?,
            PatternGroup::Batch(idx) if text.is_empty() => {
                for &pi in idx {
                    tally_single(sc, pi, text, win, w, t)?;
                }
            }
            PatternGroup::Batch(idx) => {
                let Some(g) = &enc[gi] else { unreachable!("batched group without encoding") };
                let contains = t.contains;
                for &pi in idx {
                    t.out[pi] = 0;
                }
                let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                s.configure(true, plan.max_n_frac);
                for m in s.search_encoded(&g.fwd, text, plan.k, plan.all_endpoints) {
                    if win.keeps_fwd(m.text_end) {
                        t.out[idx[m.pattern_idx]] += 1;
                    }
                }
                let done = contains && idx.iter().all(|&pi| t.out[pi] > 0);
                if !done {
                    let out = &*t.out;
                    let found = |li: usize| contains && out[idx[li]] > 0;
                    match reverse_plan(g, idx, text, w, found) {
                        Reverse::None => {}
                        Reverse::Batched(comp) => {
                            let rev = reversed(text, w, &mut t.rev_ready);
                            let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                            for m in s.search_encoded(comp, &rev, plan.k, plan.all_endpoints) {
                                if win.keeps_rc(m.text_end) {
                                    t.out[idx[m.pattern_idx]] += 1;
                                }
                            }
                            w.rev = rev;
                        }
                        Reverse::Singles => {
                            let out = &mut *t.out;
                            candidate_matches(sc, idx, text, w, plan.needs_trace(), |pi, m| {
                                if win.keeps_rc(m.text_end) {
                                    out[pi] = out[pi].saturating_add(1);
                                }
                            })?;
                        }
                    }
                }
                for &pi in idx {
                    t.out[pi] = if contains { (t.out[pi] > 0) as i32 } else { t.out[pi] };
                }
            }
        }
    }
    Ok(())
}

fn tally_single(sc: &Scope, pi: usize, text: &[u8], win: &Window, w: &mut Worker, t: &mut Tally) -> Result<(), CoreError> {
    let (plan, stop, contains) = (sc.plan, sc.stop, t.contains);
    if !plan.indels {
        let rev_ready = &mut t.rev_ready;
        let n = crate::hamming::tally_single(plan, pi, text, win, w, contains, |w| reversed(text, w, rev_ready));
        t.out[pi] = n;
        return Ok(());
    }
    let kind = ProfileKind::of(plan);
    // traced counts (the N filter) of a long pattern: in steps, like hits
    let steps = plan.needs_trace() && in_steps(plan, pi);
    let mut n = 0;
    if steps {
        single_in_steps(sc, kind, &plan.patterns[pi], text, w, |e| win.keeps_fwd(e), |ms| {
            n += ms.len();
            Ok(())
        })?;
    } else {
        let s = w.searcher(kind, plan.overhang);
        s.configure(plan.needs_trace(), plan.max_n_frac);
        n = overhang_search(s, plan, &plan.patterns[pi], text).iter().filter(|m| win.keeps_fwd(m.text_end)).count();
    }
    if plan.rc && !(contains && n > 0) {
        stop.check()?;
        let rev = reversed(text, w, &mut t.rev_ready);
        let r = if steps {
            single_in_steps(sc, kind, &plan.complements[pi], &rev, w, |e| win.keeps_rc(e), |ms| {
                n += ms.len();
                Ok(())
            })
        } else {
            let s = w.searcher(kind, plan.overhang);
            s.configure(plan.needs_trace(), plan.max_n_frac);
            n += overhang_search(s, plan, &plan.complements[pi], &rev).iter().filter(|m| win.keeps_rc(m.text_end)).count();
            Ok(())
        };
        w.rev = rev;
        r?;
    }
    t.out[pi] = if contains { (n > 0) as i32 } else { n.min(i32::MAX as usize) as i32 };
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

/// (moved from `overhang.rs`, which is arithmetic only)
/// `s.search` of one pattern as the plan says, at `overhang::search_k`, keeping the
/// matches of cost `<= plan.k` (the untraced count path; traced searches
/// with overhang go through `stepwise.rs`, which does the same).
fn overhang_search(s: &mut AnySearcher, plan: &SearchPlan, pattern: &[u8], text: &[u8]) -> Vec<Match> {
    let sk = crate::overhang::search_k(pattern.len(), plan.k, plan.overhang);
    let mut out = s.search(pattern, text, sk, plan.all_endpoints);
    if sk > plan.k {
        crate::overhang::keep_cost(&mut out, plan.k);
    }
    out
}
