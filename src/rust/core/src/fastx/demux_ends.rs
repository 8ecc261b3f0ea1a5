//! Demultiplexing by both ends of a read (issue 38): the front end (the
//! first `L` letters) and the rear end (the last `L`) are each assigned on
//! their own, as `ends = (L, 0)` and `ends = (0, L)` search them (a read no
//! longer than `L` whole for each), with `halves` (`SearchPlan::halves`: in
//! a read shorter than `2L` an end's best hit nearer the other end is the
//! other end's site, and that end is searched again without it), and
//! combined by the rule
//! of `ends_policy.rs` into a sample or a reason, each with its output.
//!
//! Two searches beside the ends, on the records that need them:
//! - chimeras (`chimeras = "set_aside"`): a read longer than `2L` is
//!   searched whole with the set's patterns for a hit that lies wholly in
//!   its middle `[L, n - L)` (R's chimera_keys(), one rule), at the
//!   chimera k (lower than the ends': a barcode inside a read is whole, not
//!   cut by the read's end, and a long middle gives chance hits at k many
//!   chances); a hit there sets the read aside as chimeric;
//! - flanks: a read with no barcode at either end (reason "no hit") whose
//!   ends hold the set's flanks without a barcode (the flank patterns R's
//!   `flank_patterns()` makes, a contains plan per `k`) is "flank without
//!   barcode".
//!
//! Paired mates (Illumina): the front end is the first `L` letters of the
//! read (R1), the rear end the first `L` of its mate (R2), which starts at
//! the other end of the fragment; each mate's middle is searched for
//! chimeras and both mates' ends for flanks.
//!
//! The barcode cap (a set with flanks): an end whose best hit has more
//! edits on the barcode's own letters (`barcode_edits.rs`) than its
//! pattern's cap names no barcode: the flanks matched, the barcode did not
//! (a flank with no barcode, or a barcode the set does not have). Such an
//! end counts as a flank without barcode, and a hit in a read's middle so
//! capped is no chimera.

use super::{Batch, FastxError, ParseKind};
use crate::assign::Best;
use crate::engine::{self, Control, Output};
use crate::ends_policy::{EndStatus, EndsCall, EndsRule, Reason};
use crate::error::{CoreError, Value};
use crate::options::{Mode, SearchPlan};

/// The both-ends mode of a demultiplexing.
#[derive(Debug, Clone)]
pub struct EndsSpec {
    /// `L`: the letters of each end.
    pub end_length: usize,
    pub rule: EndsRule,
    /// The output of each sample of the rule.
    pub output_of_sample: Vec<usize>,
    /// The output of each reason ([`Reason::index`]).
    pub output_of_reason: [usize; 7],
    /// The flank patterns' plans (contains plans, one per `k`; assign
    /// plans are read as presence too); empty: no flank search.
    pub flank_plans: Vec<SearchPlan>,
    /// Search the middle of the reads for chimeras, at this `k` (below the
    /// ends' k: see R's chimera_k()); with `split`, a chimeric read is
    /// split at its middle barcode ([`Split`]), not set aside.
    pub chimeras: bool,
    pub split: bool,
    pub chimera_k: usize,
    /// The most edits on its barcode's letters (the plan's barcode spans)
    /// a hit may have to name its barcode (the cap), of each pattern;
    /// empty: no cap.
    pub barcode_caps: Vec<u32>,
    /// The set's flanks with nothing between them (an adapter without
    /// barcode) and around a slot of N (a barcode the set lacks): an
    /// assign plan whose best hit in an end, where its cost plus the price
    /// of the barcode's letters as letters of no barcode (`barcode_price`
    /// of the hit's pattern) is at most the end's barcode hit plus the
    /// margin, takes the end's barcode away (R's no_barcode_between());
    /// `None`: no such check.
    pub spacer_plan: Option<SearchPlan>,
    /// That price, of each pattern (with `spacer_plan`).
    pub barcode_price: Vec<u32>,
    /// For the report: the name of each barcode and of each sample.
    pub barcode_names: Vec<String>,
    pub sample_names: Vec<String>,
}

/// One record's (pair's) both-ends assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndsRecord {
    pub front: Best,
    pub rear: Best,
    /// The status of each end (front, rear): by the margin and the cap.
    pub ends: [EndStatus; 2],
    pub call: EndsCall,
    /// The output it goes to; with `split`, none: its parts go to theirs.
    pub output: usize,
    /// A chimeric read split at its middle barcode (`chimeras = "split"`):
    /// written as its two parts ([`Split`]), not as itself.
    pub split: bool,
}

/// The parts of a read split at its middle barcode: the letters before
/// the hit and those after it, each assigned by both of its ends as a read
/// (its hits in the part's coordinates). Written as records of their own,
/// the read's name with `_1` and `_2` (as porechop names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Split {
    /// The read (its index in the batch).
    pub record: usize,
    /// Each part: its letters `[from, to)` in the read, and its assignment.
    pub parts: [(usize, usize, EndsRecord); 2],
}

impl EndsRecord {
    /// The end whose hit the report's columns describe: the front end's
    /// when it is assigned, else the rear's when it is, else the front's
    /// when it is ambiguous, else the rear's (R's deciding_columns()).
    pub fn deciding(&self) -> &Best {
        match (self.ends[0], self.ends[1]) {
            (EndStatus::Assigned(_), _) => &self.front,
            (_, EndStatus::Assigned(_)) => &self.rear,
            (EndStatus::Ambiguous, _) => &self.front,
            _ => &self.rear,
        }
    }

    /// The letters a trimmed pair keeps: of the read (R1, `n1` letters)
    /// after the front end's hit, of its mate (R2) after the rear end's,
    /// of each end assigned to a barcode, for an assigned pair.
    pub fn kept_mates(&self, n1: usize, n2: usize) -> ((usize, usize), (usize, usize)) {
        if self.call.sample.is_none() {
            return ((0, n1), (0, n2));
        }
        let after = |b: &Best, e: EndStatus, n: usize| match (e, b.hit) {
            (EndStatus::Assigned(_), Some(h)) => ((h.end as usize).min(n), n),
            _ => (0, n),
        };
        (after(&self.front, self.ends[0], n1), after(&self.rear, self.ends[1], n2))
    }

    /// The letters `[from, to)` of a record of `n` letters that a trimmed
    /// record keeps: after the front end's hit and before the rear end's,
    /// of each end assigned to a barcode, for an assigned record. Two
    /// hits that overlap (a short read searched whole for each end finds
    /// one site twice) are one site, cut as the single assignment cuts it:
    /// up to its end on the forward strand, from its start on the reverse.
    pub fn kept(&self, n: usize) -> (usize, usize) {
        if self.call.sample.is_none() {
            return (0, n);
        }
        let hit = |b: &Best, e: EndStatus| match e {
            EndStatus::Assigned(_) => b.hit,
            _ => None,
        };
        let (f, r) = (hit(&self.front, self.ends[0]), hit(&self.rear, self.ends[1]));
        match (f, r) {
            (Some(f), Some(r)) if r.start < f.end => {
                if f.minus {
                    (0, (f.start as usize).min(n))
                } else {
                    ((f.end as usize).min(n), n)
                }
            }
            _ => {
                let from = f.map_or(0, |h| (h.end as usize).min(n));
                let to = r.map_or(n, |h| (h.start as usize).min(n));
                (from, to.max(from))
            }
        }
    }
}

/// The plans of the searches of a both-ends demultiplexing, from the
/// verb's assign plan.
pub struct EndsSearch<'s> {
    pub spec: &'s EndsSpec,
    front: SearchPlan,
    rear: SearchPlan,
    /// The first `L` letters of a read or its mate (paired mates: two
    /// reads, whose ends share no letter), without halves.
    start: SearchPlan,
    whole: SearchPlan,
    flanks: Vec<SearchPlan>,
    /// The spacer plan of each end (front, rear).
    spacers: Option<(SearchPlan, SearchPlan)>,
    margin: i32,
}

impl<'s> EndsSearch<'s> {
    pub fn new(plan: &SearchPlan, spec: &'s EndsSpec, margin: i32) -> Result<EndsSearch<'s>, CoreError> {
        let l = spec.end_length;
        if l == 0 {
            return Err(CoreError::Internal("both ends: an end length of 0".into()));
        }
        if spec.rule.barcode_of_pattern.len() != plan.patterns.len() {
            return Err(CoreError::Internal("both ends: a barcode per pattern needed".into()));
        }
        if spec.output_of_sample.len() < spec.rule.n_samples {
            return Err(CoreError::Internal("both ends: an output per sample needed".into()));
        }
        if spec.spacer_plan.is_some() && spec.barcode_price.len() != plan.patterns.len() {
            return Err(CoreError::Internal("both ends: a barcode price per pattern needed".into()));
        }
        if !spec.barcode_caps.is_empty() && (plan.barcode_spans.len() != plan.patterns.len() || spec.barcode_caps.len() != plan.patterns.len()) {
            return Err(CoreError::Internal("both ends: a barcode span and cap per pattern needed".into()));
        }
        let with_ends = |p: &SearchPlan, e| SearchPlan { ends: e, halves: false, ..p.clone() };
        // an end does not take the other end's site (SearchPlan::halves)
        let half = |e| SearchPlan { halves: true, ..with_ends(plan, Some(e)) };
        Ok(EndsSearch {
            spec,
            front: half((l, 0)),
            rear: half((0, l)),
            start: with_ends(plan, Some((l, 0))),
            // the whole read, for hits wholly in its middle (R's chimera
            // search, chimera_keys()): hits with their CIGARs (the cap), no
            // overhang (a middle is no read's end)
            whole: SearchPlan { mode: Mode::Hits, cigar: true, max_hits: None, overhang: None, edges: None, k: spec.chimera_k.min(plan.k), ..with_ends(plan, None) },
            flanks: spec.flank_plans.iter().map(|p| with_ends(p, Some((l, l)))).collect(),
            spacers: spec.spacer_plan.as_ref().map(|p| (with_ends(p, Some((l, 0))), with_ends(p, Some((0, l))))),
            margin,
        })
    }

    /// The output of a combined call.
    pub fn output(&self, call: &EndsCall) -> usize {
        match (call.sample, call.reason) {
            (Some(s), _) => self.spec.output_of_sample[s as usize],
            (None, r) => self.spec.output_of_reason[r.unwrap_or(Reason::NoHit).index()],
        }
    }

    /// The status of an end by the margin, then the cap: `true` with it
    /// when the cap took its barcode away (an assigned or an ambiguous
    /// end: a best hit over the cap is no barcode, nor a tie of two).
    pub fn status(&self, b: &Best) -> (EndStatus, bool) {
        match (EndStatus::of(b, self.margin, !self.front.barcode_spans.is_empty()), b.hit) {
            (EndStatus::Assigned(_) | EndStatus::Ambiguous, Some(h)) if self.over_cap(h.pattern, h.barcode_edits) => (EndStatus::Unassigned, true),
            (s, _) => (s, false),
        }
    }

    fn over_cap(&self, pattern: u32, edits: u32) -> bool {
        self.spec.barcode_caps.get(pattern as usize).is_some_and(|&cap| edits > cap)
    }

    /// Assign the records of one batch (read from `path`) by both ends;
    /// with `mates` (their batch and file), the pairs: the rear end is the
    /// start of each mate. With `split`, the parts of the chimeric reads.
    pub fn assign(&self, batch: &Batch, path: &str, mates: Option<(&Batch, &str)>, ctl: &Control, poll: &mut dyn FnMut() -> bool) -> Result<(Vec<EndsRecord>, Vec<Split>), FastxError> {
        let texts: Vec<Option<&[u8]>> = batch.seq.iter().map(Some).collect();
        let mut middle = self.chimeric(batch, path, ctl, poll)?;
        if let Some((b, p)) = mates {
            for (c, m) in middle.iter_mut().zip(self.chimeric(b, p, ctl, poll)?) {
                *c = c.or(m);
            }
        }
        let chimeric: Vec<bool> = middle.iter().map(Option::is_some).collect();
        let mate_texts: Option<Vec<Option<&[u8]>>> = mates.map(|(b, _)| b.seq.iter().map(Some).collect());
        let mates_of = mate_texts.as_deref().zip(mates).map(|(t, (b, p))| (t, b, p));
        let mut recs = self.call_texts(&texts, &|i| (i, 0), batch, path, mates_of, &chimeric, ctl, poll)?;
        let mut splits = Vec::new();
        if self.spec.split && mates.is_none() {
            // the parts of each chimeric read: before and after its middle hit
            let cut: Vec<(usize, usize, usize)> = middle.iter().enumerate().filter_map(|(i, m)| m.map(|(s, e)| (i, s, e))).collect();
            let mut parts: Vec<(usize, usize, usize)> = Vec::with_capacity(2 * cut.len());
            for &(i, s, e) in &cut {
                parts.push((i, 0, s));
                parts.push((i, e, batch.seq.get(i).len()));
            }
            let part_texts: Vec<Option<&[u8]>> = parts.iter().map(|&(i, from, to)| Some(&batch.seq.get(i)[from..to])).collect();
            let origin = |j: usize| (parts[j].0, parts[j].1);
            let called = self.call_texts(&part_texts, &origin, batch, path, None, &vec![false; parts.len()], ctl, poll)?;
            for (k, &(i, ..)) in cut.iter().enumerate() {
                recs[i].split = true;
                let part = |j: usize| (parts[j].1, parts[j].2, called[j]);
                splits.push(Split { record: i, parts: [part(2 * k), part(2 * k + 1)] });
            }
        }
        Ok((recs, splits))
    }

    /// The both-ends assignment of `texts` (record `origin(j)`'s letters from
    /// its offset, in `batch` read from `path`), the rear ends those of
    /// `mates` (texts, batch, path) where given; `chimeric` texts are set
    /// aside.
    #[allow(clippy::too_many_arguments)]
    fn call_texts(
        &self,
        texts: &[Option<&[u8]>],
        origin: &dyn Fn(usize) -> (usize, usize),
        batch: &Batch,
        path: &str,
        mates: Option<(&[Option<&[u8]>], &Batch, &str)>,
        chimeric: &[bool],
        ctl: &Control,
        poll: &mut dyn FnMut() -> bool,
    ) -> Result<Vec<EndsRecord>, FastxError> {
        let (front, rear) = match mates {
            None => (
                bests(search(&self.front, texts, batch, path, origin, ctl, poll)?, texts.len())?,
                bests(search(&self.rear, texts, batch, path, origin, ctl, poll)?, texts.len())?,
            ),
            Some((t, b, p)) => (
                bests(search(&self.start, texts, batch, path, origin, ctl, poll)?, texts.len())?,
                bests(search(&self.start, t, b, p, origin, ctl, poll)?, t.len())?,
            ),
        };
        let mut status: Vec<[(EndStatus, bool); 2]> = front.iter().zip(&rear).map(|(f, r)| [self.status(f), self.status(r)]).collect();
        // the flanks with nothing (or a slot) between them, in the ends that
        // name a barcode
        if let Some((sf, sr)) = &self.spacers {
            let ends = [(&front, sf, texts, batch, path, 0usize), (&rear, sr, texts, batch, path, 1usize)];
            for (bests_of, plan, t, bt, p, side) in ends {
                // with mates, the rear end is the start of the mate
                let (plan, t, bt, p) = match (side, mates) {
                    (1, Some((mt, mb, mp))) => (sf, mt, mb, mp),
                    _ => (plan, t, bt, p),
                };
                let called: Vec<usize> = (0..t.len()).filter(|&i| matches!(status[i][side].0, EndStatus::Assigned(_) | EndStatus::Ambiguous) && bests_of[i].hit.is_some()).collect();
                if called.is_empty() {
                    continue;
                }
                let sub: Vec<Option<&[u8]>> = called.iter().map(|&i| t[i]).collect();
                let sub_origin = |j: usize| origin(called[j]);
                let spacer = bests(search(plan, &sub, bt, p, &sub_origin, ctl, poll)?, sub.len())?;
                for (j, &i) in called.iter().enumerate() {
                    let price = |p: u32| self.spec.barcode_price.get(p as usize).map(|&u| u as i32);
                    if let (Some(s), Some(h)) = (spacer[j].hit, bests_of[i].hit) {
                        if price(h.pattern).is_some_and(|u| s.cost + u <= h.cost + self.margin) {
                            status[i][side] = (EndStatus::Unassigned, true);
                        }
                    }
                }
            }
        }
        let mut calls: Vec<EndsCall> = status.iter().map(|[f, r]| self.spec.rule.combine(f.0, r.0)).collect();
        // an end whose barcode the cap took away had its flanks
        let mut flank: Vec<bool> = status.iter().map(|[f, r]| f.1 || r.1).collect();
        if !self.flanks.is_empty() {
            let none: Vec<usize> = (0..texts.len()).filter(|&i| !chimeric[i] && !flank[i] && calls[i].reason == Some(Reason::NoHit)).collect();
            if !none.is_empty() {
                let sub_origin = |j: usize| origin(none[j]);
                let mut sides = vec![(texts, batch, path)];
                sides.extend(mates);
                for (t, bt, p) in sides {
                    let sub: Vec<Option<&[u8]>> = none.iter().map(|&i| t[i]).collect();
                    for plan in &self.flanks {
                        let found = presence(search(plan, &sub, bt, p, &sub_origin, ctl, poll)?, sub.len(), plan.patterns.len())?;
                        for (j, found) in found.into_iter().enumerate() {
                            flank[none[j]] |= found;
                        }
                    }
                }
            }
        }
        for (i, c) in calls.iter_mut().enumerate() {
            *c = c.finish(chimeric[i], flank[i]);
        }
        Ok((0..texts.len())
            .map(|i| EndsRecord { front: front[i], rear: rear[i], ends: [status[i][0].0, status[i][1].0], call: calls[i], output: self.output(&calls[i]), split: false })
            .collect())
    }
}

impl EndsSearch<'_> {
    /// The middle hit `[start, end)` (in the read) of each record of
    /// `batch` that is chimeric (`chimeras`): of the reads longer than `2L`,
    /// searched whole, the best hit (by the assignment's order) of those
    /// that lie wholly in the middle `[L, n - L)`, when it is within the
    /// barcode cap. One rule with R's chimera_keys() (issue 52): a site
    /// that straddles letter `L` (or `n - L`) is no middle hit.
    fn chimeric(&self, batch: &Batch, path: &str, ctl: &Control, poll: &mut dyn FnMut() -> bool) -> Result<Vec<Option<(usize, usize)>>, FastxError> {
        let mut chimeric = vec![None; batch.len()];
        if !self.spec.chimeras {
            return Ok(chimeric);
        }
        let l = self.spec.end_length;
        let long: Vec<usize> = (0..batch.len()).filter(|&i| batch.seq.get(i).len() > 2 * l).collect();
        let texts: Vec<Option<&[u8]>> = long.iter().map(|&i| Some(batch.seq.get(i))).collect();
        if long.is_empty() {
            return Ok(chimeric);
        }
        let origin = |j: usize| (long[j], 0);
        let bufs = match search(&self.whole, &texts, batch, path, &origin, ctl, poll)? {
            Output::Hits(b) => b,
            _ => return Err(CoreError::Internal("both ends: the chimera search returned no hits".into()).into()),
        };
        let mut best: Vec<Option<crate::assign::BestHit>> = vec![None; long.len()];
        for b in &bufs {
            for i in 0..b.len() {
                let j = b.record[i] as usize;
                let n = batch.seq.get(long[j]).len();
                let (start, end) = (b.start[i] as usize, b.end[i] as usize);
                if start < l || end > n - l {
                    continue;
                }
                let p = b.pattern[i];
                let edits = self.whole.barcode_spans.get(p as usize).map_or(0, |&span| crate::barcode_edits::of_text(b.cigar(i), b.pattern_start[i], span).unwrap_or(0));
                let hit = crate::assign::BestHit { cost: b.cost[i], pattern: p, start: b.start[i], end: b.end[i], minus: b.minus[i], sample: p, barcode_edits: edits };
                if best[j].is_none_or(|h| hit < h) {
                    best[j] = Some(hit);
                }
            }
        }
        for (j, h) in best.into_iter().enumerate() {
            chimeric[long[j]] = h.filter(|h| !self.over_cap(h.pattern, h.barcode_edits)).map(|h| (h.start as usize, h.end as usize));
        }
        Ok(chimeric)
    }
}

/// Search `texts` (record `origin(j)`'s letters from its offset) with
/// `plan`; an error names the file, the record and the position in it.
fn search(
    plan: &SearchPlan,
    texts: &[Option<&[u8]>],
    batch: &Batch,
    path: &str,
    origin: &dyn Fn(usize) -> (usize, usize),
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<Output, FastxError> {
    if texts.is_empty() {
        return Ok(Output::Best(Vec::new()));
    }
    engine::run(plan, texts, ctl, Some(poll)).map_err(|e| match e {
        CoreError::InvalidLetter { index, position, letter, alphabet, .. } => {
            let (rec, offset) = origin(index);
            FastxError::Letter {
                path: path.to_string(),
                record: batch.first + rec as u64 + 1,
                name: String::from_utf8_lossy(batch.name(rec)).into_owned(),
                position: position + offset,
                letter,
                alphabet,
            }
        }
        CoreError::InvalidArgument { arg: "texts", index: Some(i), value: Value::Length(n), .. } => FastxError::Parse {
            path: path.to_string(),
            record: Some(batch.first + origin(i).0 as u64 + 1),
            line: None,
            kind: ParseKind::TooLong,
            message: format!("the sequence has {n} letters, more than 2^31 - 1"),
        },
        e => FastxError::Core(e),
    })
}

/// The assignment of each of `n` texts, from an assign plan's [`search`].
fn bests(out: Output, n: usize) -> Result<Vec<Best>, FastxError> {
    match out {
        Output::Best(b) if b.len() == n => Ok(b),
        _ => Err(CoreError::Internal("both ends: the search returned no assignments".into()).into()),
    }
}

/// Whether any of `n_pat` patterns is in each of `n` texts, from a
/// contains plan's [`search`] (as the flank plans are) or an assign plan's.
fn presence(out: Output, n: usize, n_pat: usize) -> Result<Vec<bool>, FastxError> {
    match out {
        Output::Best(b) if b.len() == n => Ok(b.iter().map(|b| b.hit.is_some()).collect()),
        // records x patterns, column-major: 1 where present (NA: missing)
        Output::Values(v) if v.len() == n * n_pat => Ok((0..n).map(|i| v.iter().skip(i).step_by(n).any(|&x| x == 1)).collect()),
        _ => Err(CoreError::Internal("both ends: the flank search returned no presence".into()).into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assign::BestHit;
    use crate::ends_policy::{Policy, RowEnd};

    fn best(pattern: u32, start: u32, end: u32, minus: bool) -> Best {
        Best { hit: Some(BestHit { cost: 0, pattern, start, end, minus, sample: pattern, barcode_edits: 0 }), other: None, missing: false }
    }

    fn record(front: Best, rear: Best) -> EndsRecord {
        let rule = EndsRule::new(Policy::Either, vec![0, 1], vec![RowEnd::Both; 2], &[]).unwrap();
        let ends = [EndStatus::of(&front, 0, false), EndStatus::of(&rear, 0, false)];
        let call = rule.combine(ends[0], ends[1]);
        EndsRecord { front, rear, ends, call, output: 0, split: false }
    }

    #[test]
    fn trimming_keeps_what_lies_between_the_two_ends_hits() {
        // front hit [5, 20), rear hit [80, 95) of a read of 100
        assert_eq!(record(best(0, 5, 20, false), best(0, 80, 95, true)).kept(100), (20, 80));
        // one end only: that end is cut
        assert_eq!(record(best(0, 5, 20, false), Best::default()).kept(100), (20, 100));
        assert_eq!(record(Best::default(), best(1, 80, 95, true)).kept(100), (0, 80));
        // a short read searched whole for both ends: one site, cut by its strand
        assert_eq!(record(best(0, 5, 20, false), best(0, 5, 20, false)).kept(30), (20, 30));
        assert_eq!(record(best(0, 5, 20, true), best(0, 5, 20, true)).kept(30), (0, 5));
        // not assigned (the ends disagree): kept whole
        assert_eq!(record(best(0, 5, 20, false), best(1, 80, 95, true)).kept(100), (0, 100));
    }

    #[test]
    fn the_deciding_end_is_the_front_when_assigned() {
        let r = record(best(0, 5, 20, false), best(0, 80, 95, true));
        assert_eq!(r.deciding().hit.unwrap().start, 5);
        let r = record(Best::default(), best(0, 80, 95, true));
        assert_eq!(r.deciding().hit.unwrap().start, 80);
    }
}
