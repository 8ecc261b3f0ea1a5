//! Best-pattern assignment: which pattern is this record? One [`Best`] per
//! record, reduced from the hits of one record (or window, or slice, or
//! pattern group) at a time in the worker (`engine.rs`), so no hit table is
//! built: memory does not grow with the number of hits.
//!
//! The rule (cutadapt's "best adapter", with splitcode's margin):
//! - the best hit is the one of lowest cost; among equal costs, the one of
//!   the lowest pattern index, then the leftmost (start, end), forward strand
//!   first. That is a total order, so the result does not depend on how the
//!   record was cut into tasks, windows or ends;
//! - `other_cost` is the lowest cost of any hit of a *different* pattern;
//! - the record is [`Status::Unassigned`] without hits, [`Status::Ambiguous`]
//!   when `other_cost <= cost + margin` (with `margin = 0`, a tie), otherwise
//!   [`Status::Assigned`].

use crate::hits::HitBuffer;

/// The best hit of a record: the fields are in the order of the rule, so
/// the derived ordering is the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct BestHit {
    pub cost: i32,
    pub pattern: u32,
    /// Forward-strand coordinates in the record, 0-based, end-exclusive.
    pub start: u32,
    pub end: u32,
    /// `true` for the reverse-complement strand.
    pub minus: bool,
    /// The sample of `pattern` (`SearchPlan::samples`): after the rule's
    /// fields, so that it does not change the order (it is a function of
    /// `pattern`).
    pub sample: u32,
    /// The edits on the pattern's barcode letters (`barcode_edits.rs`),
    /// when the plan has barcode spans; 0 otherwise. Last: a function of
    /// the hit.
    pub barcode_edits: u32,
}

/// The assignment of one record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Best {
    /// `None`: no hit.
    pub hit: Option<BestHit>,
    /// Lowest cost of a hit of another sample than `hit`'s (of another
    /// pattern, when each pattern is a sample of its own).
    pub other_cost: Option<i32>,
    /// The record is missing (`NA`).
    pub missing: bool,
}

/// What [`Best::status`] says of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Assigned,
    Ambiguous,
    Unassigned,
    /// A missing record.
    Missing,
}

impl Best {
    pub const MISSING: Best = Best { hit: None, other_cost: None, missing: true };

    /// The assignment of the hits in `buf` (any order, any records: the
    /// caller passes one record's); `samples` is the sample of each pattern,
    /// `spans` the barcode letters of each (empty: none; then the buffer
    /// needs no CIGARs), whose edits the best hit carries.
    pub fn of(buf: &HitBuffer, samples: &[u32], spans: &[crate::barcode_edits::Span]) -> Best {
        let sample = |p: u32| samples.get(p as usize).copied().unwrap_or(p);
        let best = (0..buf.len()).map(|i| (row(buf, i, sample(buf.pattern[i])), i)).min();
        let hit = best.map(|(mut h, i)| {
            if let Some(&span) = spans.get(h.pattern as usize) {
                h.barcode_edits = crate::barcode_edits::of_text(buf.cigar(i), buf.pattern_start[i], span).unwrap_or(0);
            }
            h
        });
        let other_cost = hit.and_then(|h| (0..buf.len()).filter(|&i| sample(buf.pattern[i]) != h.sample).map(|i| buf.cost[i]).min());
        Best { hit, other_cost, missing: false }
    }

    /// The assignment of a record from those of two parts of it (windows,
    /// ends, pattern groups), as if its hits had been reduced together.
    pub fn merge(self, b: Best) -> Best {
        let missing = self.missing || b.missing;
        let (a, b) = match (self.hit, b.hit) {
            (None, _) => return Best { missing, ..b },
            (_, None) => return Best { missing, ..self },
            (Some(x), Some(y)) if x <= y => (self, b),
            _ => (b, self),
        };
        let (ha, hb) = (a.hit.expect("some"), b.hit.expect("some"));
        // a wins; b's best is another sample's hit unless it is a's sample,
        // and then b's other cost is of another sample than a's
        let b_other = if hb.sample != ha.sample { Some(hb.cost) } else { b.other_cost };
        let other_cost = match (a.other_cost, b_other) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        Best { hit: a.hit, other_cost, missing }
    }

    /// Shift the hit by `offset` letters (a slice of the record that starts there).
    pub fn shifted(mut self, offset: u32) -> Best {
        if let Some(h) = &mut self.hit {
            h.start += offset;
            h.end += offset;
        }
        self
    }

    pub fn status(&self, margin: i32) -> Status {
        match (self.missing, self.hit, self.other_cost) {
            (true, _, _) => Status::Missing,
            (false, None, _) => Status::Unassigned,
            (false, Some(h), Some(o)) if o as i64 <= h.cost as i64 + margin as i64 => Status::Ambiguous,
            _ => Status::Assigned,
        }
    }
}

fn row(buf: &HitBuffer, i: usize, sample: u32) -> BestHit {
    BestHit { cost: buf.cost[i], pattern: buf.pattern[i], start: buf.start[i], end: buf.end[i], minus: buf.minus[i], sample, barcode_edits: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each of the patterns 0..8 a sample of its own.
    const ONE_EACH: &[u32] = &[0, 1, 2, 3, 4, 5, 6, 7];

    fn buf(rows: &[(u32, i32, u32, bool)]) -> HitBuffer {
        let mut b = HitBuffer::default();
        for &(p, cost, start, minus) in rows {
            b.record.push(0);
            b.pattern.push(p);
            b.start.push(start);
            b.end.push(start + 5);
            b.pattern_start.push(0);
            b.pattern_end.push(5);
            b.cost.push(cost);
            b.minus.push(minus);
        }
        b
    }

    #[test]
    fn best_is_lowest_cost_then_pattern_then_position() {
        let b = Best::of(&buf(&[(2, 1, 10, false), (1, 1, 30, true), (1, 1, 20, true), (0, 2, 0, false)]), ONE_EACH, &[]);
        let h = b.hit.unwrap();
        assert_eq!((h.pattern, h.cost, h.start, h.minus), (1, 1, 20, true));
        assert_eq!(b.other_cost, Some(1));
        assert_eq!(b.status(0), Status::Ambiguous);
    }

    #[test]
    fn other_cost_is_of_another_pattern() {
        let b = Best::of(&buf(&[(3, 0, 10, false), (3, 1, 40, true), (5, 2, 7, false)]), ONE_EACH, &[]);
        assert_eq!(b.hit.unwrap().pattern, 3);
        assert_eq!(b.other_cost, Some(2));
        assert_eq!(b.status(0), Status::Assigned);
        assert_eq!(b.status(1), Status::Assigned);
        assert_eq!(b.status(2), Status::Ambiguous);
        assert_eq!(Best::of(&buf(&[(3, 0, 10, false), (3, 1, 40, true)]), ONE_EACH, &[]).other_cost, None);
        assert_eq!(Best::of(&buf(&[]), ONE_EACH, &[]).status(0), Status::Unassigned);
        assert_eq!(Best::MISSING.status(0), Status::Missing);
    }

    /// Two patterns of one sample never make a record ambiguous: the other
    /// cost is that of the best hit of another sample (issue 37, defect 3).
    #[test]
    fn other_cost_is_of_another_sample() {
        // patterns 0 and 1 are sample 0, pattern 2 sample 1
        let samples = [0, 0, 1];
        let tie = buf(&[(0, 1, 10, false), (1, 1, 50, false)]);
        assert_eq!(Best::of(&tie, ONE_EACH, &[]).status(0), Status::Ambiguous);
        let b = Best::of(&tie, &samples, &[]);
        assert_eq!((b.hit.unwrap().pattern, b.hit.unwrap().sample, b.other_cost), (0, 0, None));
        assert_eq!(b.status(0), Status::Assigned);
        let three = buf(&[(1, 0, 10, false), (0, 1, 50, false), (2, 2, 70, true)]);
        let b = Best::of(&three, &samples, &[]);
        assert_eq!((b.hit.unwrap().pattern, b.other_cost), (1, Some(2)));
        assert_eq!((b.status(1), b.status(2)), (Status::Assigned, Status::Ambiguous));
        // merged from parts: the same
        let (x, y) = (Best::of(&buf(&[(1, 0, 10, false)]), &samples, &[]), Best::of(&buf(&[(0, 1, 50, false), (2, 2, 70, true)]), &samples, &[]));
        assert_eq!(x.merge(y), b);
        assert_eq!(y.merge(x), b);
    }

    /// Merging the reductions of any split of the hits equals the reduction
    /// of all of them, with each pattern its own sample or patterns grouped.
    #[test]
    fn merge_equals_reducing_together() {
        let mut seed = 0x2545F4914F6CDD1Du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for _ in 0..2000 {
            let n = next(7) as usize;
            let rows: Vec<(u32, i32, u32, bool)> = (0..n).map(|_| (next(3) as u32, next(3) as i32, next(4) as u32, next(2) == 1)).collect();
            let cut = next(n as u64 + 1) as usize;
            for samples in [ONE_EACH, &[0, 1, 0], &[1, 1, 1]] {
                let whole = Best::of(&buf(&rows), samples, &[]);
                let (a, b) = (Best::of(&buf(&rows[..cut]), samples, &[]), Best::of(&buf(&rows[cut..]), samples, &[]));
                assert_eq!(a.merge(b), whole, "{rows:?} cut at {cut}, samples {samples:?}");
                assert_eq!(b.merge(a), whole, "{rows:?} cut at {cut}, swapped, samples {samples:?}");
            }
        }
    }
}
