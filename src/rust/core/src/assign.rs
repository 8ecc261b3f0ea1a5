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
//! - the runner-up (`other`) is the best hit, by the same order, of a
//!   *different* pattern (sample); `other_cost` is its cost, the lowest
//!   cost of any hit of a different pattern;
//! - the record is [`Status::Unassigned`] without hits, [`Status::Ambiguous`]
//!   when `other_cost <= cost + margin` (with `margin = 0`, a tie), otherwise
//!   [`Status::Assigned`];
//! - with barcode spans (a barcode set with flanks), the margin applies to
//!   the edits on the barcodes' letters too ([`Best::status_with`]): also
//!   ambiguous when the runner-up's barcode has at most `margin` edits more
//!   than the best's, so fewer edits in the flanks (the same flanks for
//!   every barcode) cannot make up for a barcode that is no better.

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
    /// The runner-up: the best hit of another sample than `hit`'s (of
    /// another pattern, when each pattern is a sample of its own).
    pub other: Option<BestHit>,
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
    pub const MISSING: Best = Best { hit: None, other: None, missing: true };

    /// The lowest cost of a hit of another sample than `hit`'s.
    pub fn other_cost(&self) -> Option<i32> {
        self.other.map(|o| o.cost)
    }

    /// The assignment of the hits in `buf` (any order, any records: the
    /// caller passes one record's); `samples` is the sample of each pattern,
    /// `spans` the barcode letters of each (empty: none; then the buffer
    /// needs no CIGARs), whose edits the best hit carries.
    pub fn of(buf: &HitBuffer, samples: &[u32], spans: &[crate::barcode_edits::Span]) -> Best {
        let sample = |p: u32| samples.get(p as usize).copied().unwrap_or(p);
        let edits = |(mut h, i): (BestHit, usize)| {
            if let Some(&span) = spans.get(h.pattern as usize) {
                h.barcode_edits = crate::barcode_edits::of_text(buf.cigar(i), buf.pattern_start[i], span).unwrap_or(0);
            }
            h
        };
        let best = (0..buf.len()).map(|i| (row(buf, i, sample(buf.pattern[i])), i)).min();
        let other = best.and_then(|(h, _)| (0..buf.len()).map(|i| (row(buf, i, sample(buf.pattern[i])), i)).filter(|(o, _)| o.sample != h.sample).min());
        Best { hit: best.map(edits), other: other.map(edits), missing: false }
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
        // and then b's runner-up is of another sample than a's (b's best
        // precedes all of b's hits, so no other of b's can be a's runner-up)
        let b_other = if hb.sample != ha.sample { Some(hb) } else { b.other };
        let other = match (a.other, b_other) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        Best { hit: a.hit, other, missing }
    }

    /// Shift the hit by `offset` letters (a slice of the record that starts there).
    pub fn shifted(mut self, offset: u32) -> Best {
        if let Some(h) = &mut self.hit {
            h.start += offset;
            h.end += offset;
        }
        self
    }

    /// The status by the margin on the costs.
    pub fn status(&self, margin: i32) -> Status {
        self.status_with(margin, false)
    }

    /// The status by the margin on the costs, and with `by_barcode` (a plan
    /// with barcode spans) on the edits of the barcodes' letters as well:
    /// close on either is ambiguous.
    pub fn status_with(&self, margin: i32, by_barcode: bool) -> Status {
        let m = margin as i64;
        let close = |h: BestHit, o: BestHit| o.cost as i64 <= h.cost as i64 + m || (by_barcode && o.barcode_edits as i64 <= h.barcode_edits as i64 + m);
        match (self.missing, self.hit, self.other) {
            (true, _, _) => Status::Missing,
            (false, None, _) => Status::Unassigned,
            (false, Some(h), Some(o)) if close(h, o) => Status::Ambiguous,
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
        assert_eq!(b.other_cost(), Some(1));
        assert_eq!(b.status(0), Status::Ambiguous);
    }

    #[test]
    fn other_cost_is_of_another_pattern() {
        let b = Best::of(&buf(&[(3, 0, 10, false), (3, 1, 40, true), (5, 2, 7, false)]), ONE_EACH, &[]);
        assert_eq!(b.hit.unwrap().pattern, 3);
        assert_eq!(b.other_cost(), Some(2));
        assert_eq!(b.status(0), Status::Assigned);
        assert_eq!(b.status(1), Status::Assigned);
        assert_eq!(b.status(2), Status::Ambiguous);
        assert_eq!(Best::of(&buf(&[(3, 0, 10, false), (3, 1, 40, true)]), ONE_EACH, &[]).other_cost(), None);
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
        assert_eq!((b.hit.unwrap().pattern, b.hit.unwrap().sample, b.other_cost()), (0, 0, None));
        assert_eq!(b.status(0), Status::Assigned);
        let three = buf(&[(1, 0, 10, false), (0, 1, 50, false), (2, 2, 70, true)]);
        let b = Best::of(&three, &samples, &[]);
        assert_eq!((b.hit.unwrap().pattern, b.other_cost()), (1, Some(2)));
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

    #[test]
    fn the_margin_compares_barcode_edits_with_barcode_spans() {
        let hit = |pattern, cost, barcode_edits| BestHit { cost, pattern, start: 0, end: 10, minus: false, sample: pattern, barcode_edits };
        // the best (cost 2) has 3 barcode edits; the runner-up costs 4 (its
        // flanks worse) but has 2 on its barcode
        let b = Best { hit: Some(hit(0, 2, 3)), other: Some(hit(1, 4, 2)), missing: false };
        assert_eq!(b.status_with(0, false), Status::Assigned);
        assert_eq!(b.status_with(0, true), Status::Ambiguous);
        // costs 2 apart, barcodes 1 apart: margin 1 is ambiguous by the
        // barcodes alone, margin 2 by both
        let c = Best { hit: Some(hit(0, 3, 1)), other: Some(hit(1, 5, 2)), missing: false };
        assert_eq!(c.status_with(0, true), Status::Assigned);
        assert_eq!(c.status_with(1, false), Status::Assigned);
        assert_eq!(c.status_with(1, true), Status::Ambiguous);
        assert_eq!(c.status_with(2, false), Status::Ambiguous);
        // a close cost is ambiguous whatever the barcodes
        let d = Best { hit: Some(hit(0, 3, 0)), other: Some(hit(1, 3, 5)), missing: false };
        assert_eq!(d.status_with(0, true), Status::Ambiguous);
        assert_eq!(d.status(1), d.status_with(1, false));
    }

    #[test]
    fn the_runner_up_carries_its_own_barcode_edits() {
        // rows: pattern 0 at cost 1 ("1=1X1="), pattern 1 at cost 1 ("3="),
        // pattern 1 again at cost 2; barcode letters [1, 2) of each
        let mut b = buf(&[(0, 1, 10, false), (1, 1, 20, false), (1, 2, 30, false)]);
        b.pattern_start = vec![0; 3];
        b.pattern_end = vec![3; 3];
        for c in ["1=1X1=", "3=", "1X2="] {
            b.cigar_bytes.extend_from_slice(c.as_bytes());
            b.cigar_ends.push(b.cigar_bytes.len());
        }
        let best = Best::of(&b, ONE_EACH, &[(1, 2), (1, 2)]);
        assert_eq!(best.hit.map(|h| (h.pattern, h.barcode_edits)), Some((0, 1)));
        assert_eq!(best.other.map(|h| (h.pattern, h.start, h.barcode_edits)), Some((1, 20, 0)));
        assert_eq!(best.status_with(0, true), Status::Ambiguous);
        assert_eq!(best.status_with(0, false), Status::Ambiguous);
        // without spans no edits are counted
        assert_eq!(Best::of(&b, ONE_EACH, &[]).hit.map(|h| h.barcode_edits), Some(0));
    }
}
