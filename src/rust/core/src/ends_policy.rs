//! Both ends of a read (issue 38): the front end and the rear end are each
//! assigned on their own ([`crate::assign::Best`] of the first and of the
//! last letters), then combined by a policy into the read's sample, or the
//! reason it has none, and its orientation.
//!
//! The rule is R's `combine_ends()` (R/ends-assign.R), the reference:
//! - an end names a barcode when its status is assigned (by the margin
//!   rule of its own search); the barcode is its best pattern's
//!   (`barcode_of_pattern`: patterns of one name are one barcode);
//! - orientation: `+` when the front end is assigned to a pattern of a row
//!   of the set's front, `-` to one of its rear; when that does not tell
//!   (no front barcode, or a row of both ends), the rear end: `+` for a
//!   rear row, `-` for a front row; none otherwise;
//! - on a `-` read the design's front barcode is at the read's rear: the
//!   two are swapped before the policy looks at them;
//! - an ambiguous end leaves the read without sample ("ambiguous"),
//!   whatever the policy;
//! - `Either`: the front barcode, else the rear one; two that differ are
//!   "ends disagree"; `Both`: the two must agree ("one end only" when one
//!   is missing); `Samples`: the pair (front, rear) in the sample sheet,
//!   else a sheet row of the front barcode with any rear ("pair not in
//!   sample sheet" when neither is there); where the orientation is not
//!   known (a symmetric set) the pair is also looked up the other way
//!   round, and two different samples so found are "ambiguous";
//! - "no hit" when nothing else applies; "ambiguous" before "one end only",
//!   "pair not in sample sheet" and "no hit", "ends disagree" before all.
//!
//! What the demultiplexing adds on top ([`EndsCall::finish`]): "chimeric"
//! (a barcode in the middle of the read) before every other reason, and
//! "flank without barcode" in place of "no hit".

use std::collections::HashMap;

/// How the two ends name the sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    Either,
    Both,
    Samples,
}

impl Policy {
    pub fn parse(s: &str) -> Option<Policy> {
        match s {
            "either" => Some(Policy::Either),
            "both" => Some(Policy::Both),
            "samples" => Some(Policy::Samples),
            _ => None,
        }
    }
}

/// Which read end a row of the barcode set belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowEnd {
    Front,
    Rear,
    Both,
}

impl RowEnd {
    pub fn parse(s: &str) -> Option<RowEnd> {
        match s {
            "front" => Some(RowEnd::Front),
            "rear" => Some(RowEnd::Rear),
            "both" => Some(RowEnd::Both),
            _ => None,
        }
    }
}

/// Why a read has no sample, in the order of precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    Chimeric,
    Ambiguous,
    EndsDisagree,
    OneEndOnly,
    PairNotInSheet,
    FlankWithoutBarcode,
    NoHit,
}

impl Reason {
    pub const ALL: [Reason; 7] = [Reason::Chimeric, Reason::Ambiguous, Reason::EndsDisagree, Reason::OneEndOnly, Reason::PairNotInSheet, Reason::FlankWithoutBarcode, Reason::NoHit];

    /// As R writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Chimeric => "chimeric",
            Reason::Ambiguous => "ambiguous",
            Reason::EndsDisagree => "ends disagree",
            Reason::OneEndOnly => "one end only",
            Reason::PairNotInSheet => "pair not in sample sheet",
            Reason::FlankWithoutBarcode => "flank without barcode",
            Reason::NoHit => "no hit",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    /// The status of a read of this reason.
    pub fn status(self) -> &'static str {
        match self {
            Reason::Chimeric => "chimeric",
            Reason::Ambiguous => "ambiguous",
            _ => "unassigned",
        }
    }
}

/// The status of one end, as [`crate::assign::Best::status`] says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndStatus {
    /// Assigned to the pattern.
    Assigned(u32),
    Ambiguous,
    Unassigned,
}

impl EndStatus {
    /// `by_barcode`: the margin compares barcode edits (a plan with
    /// barcode spans, [`crate::assign::Best::status_with`]).
    pub fn of(best: &crate::assign::Best, margin: i32, by_barcode: bool) -> EndStatus {
        use crate::assign::Status;
        match (best.status_with(margin, by_barcode), best.hit) {
            (Status::Assigned, Some(h)) => EndStatus::Assigned(h.pattern),
            (Status::Ambiguous, _) => EndStatus::Ambiguous,
            _ => EndStatus::Unassigned,
        }
    }
}

/// The combination of a read's two ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndsCall {
    /// The barcode assigned at the read's front end and at its rear end
    /// (as found on the read, not swapped by orientation).
    pub front_barcode: Option<u32>,
    pub rear_barcode: Option<u32>,
    /// `Some(false)`: `+`; `Some(true)`: `-`; `None`: not told.
    pub minus: Option<bool>,
    /// The sample (an index of the rule's samples), or the reason there is none.
    pub sample: Option<u32>,
    pub reason: Option<Reason>,
}

impl EndsCall {
    /// The reasons found beside the ends: a barcode in the middle of the
    /// read sets it aside (before any other reason, a sample too); a flank
    /// without barcode explains "no hit".
    pub fn finish(mut self, chimeric: bool, flank: bool) -> EndsCall {
        if chimeric {
            self.sample = None;
            self.reason = Some(Reason::Chimeric);
        } else if flank && self.reason == Some(Reason::NoHit) {
            self.reason = Some(Reason::FlankWithoutBarcode);
        }
        self
    }

    /// The status as R writes it.
    pub fn status(&self) -> &'static str {
        match (self.sample, self.reason) {
            (Some(_), _) => "assigned",
            (None, Some(r)) => r.status(),
            (None, None) => "unassigned",
        }
    }
}

/// The rule: the barcode and set row of each pattern, the policy, and
/// (policy samples) the sample sheet.
#[derive(Debug, Clone)]
pub struct EndsRule {
    pub policy: Policy,
    /// The barcode (0-based, dense) of each pattern.
    pub barcode_of_pattern: Vec<u32>,
    /// The read end of each pattern's row.
    pub row_end: Vec<RowEnd>,
    /// Policy samples: (front barcode, rear barcode or any) -> sample; the
    /// first row of a pair wins, as R's `match()`.
    sheet: HashMap<(u32, Option<u32>), u32>,
    /// The number of samples: barcodes (either, both), or the sheet's.
    pub n_samples: usize,
}

impl EndsRule {
    /// `sheet`: rows (front, rear, sample), barcodes and samples 0-based,
    /// `rear` `None` for any rear end; used with [`Policy::Samples`] only.
    pub fn new(policy: Policy, barcode_of_pattern: Vec<u32>, row_end: Vec<RowEnd>, sheet: &[(u32, Option<u32>, u32)]) -> Result<EndsRule, String> {
        if barcode_of_pattern.len() != row_end.len() {
            return Err(format!("{} barcodes for {} row ends", barcode_of_pattern.len(), row_end.len()));
        }
        let n_barcodes = barcode_of_pattern.iter().map(|&b| b as usize + 1).max().unwrap_or(0);
        let mut map = HashMap::new();
        let mut n_samples = n_barcodes;
        if policy == Policy::Samples {
            if sheet.is_empty() {
                return Err("an empty sample sheet".into());
            }
            for &(f, r, s) in sheet {
                if f as usize >= n_barcodes || r.is_some_and(|r| r as usize >= n_barcodes) {
                    return Err("a sample sheet barcode out of range".into());
                }
                map.entry((f, r)).or_insert(s);
            }
            n_samples = sheet.iter().map(|&(_, _, s)| s as usize + 1).max().unwrap_or(0);
        }
        Ok(EndsRule { policy, barcode_of_pattern, row_end, sheet: map, n_samples })
    }

    fn row_of(&self, end: EndStatus) -> Option<RowEnd> {
        match end {
            EndStatus::Assigned(p) => self.row_end.get(p as usize).copied(),
            _ => None,
        }
    }

    fn barcode(&self, end: EndStatus) -> Option<u32> {
        match end {
            EndStatus::Assigned(p) => self.barcode_of_pattern.get(p as usize).copied(),
            _ => None,
        }
    }

    /// Combine the ends of one read (see the module's rule).
    pub fn combine(&self, front: EndStatus, rear: EndStatus) -> EndsCall {
        let (f, r) = (self.barcode(front), self.barcode(rear));
        let minus = match self.row_of(front) {
            Some(RowEnd::Front) => Some(false),
            Some(RowEnd::Rear) => Some(true),
            _ => match self.row_of(rear) {
                Some(RowEnd::Rear) => Some(false),
                Some(RowEnd::Front) => Some(true),
                _ => None,
            },
        };
        // the design's front and rear
        let (fb, rb) = if minus == Some(true) { (r, f) } else { (f, r) };
        let any_ambiguous = front == EndStatus::Ambiguous || rear == EndStatus::Ambiguous;
        let (sample, reason) = match self.policy {
            Policy::Samples => {
                let lookup = |a: Option<u32>, b: Option<u32>| a.and_then(|a| self.sheet.get(&(a, b)).or_else(|| self.sheet.get(&(a, None))).copied());
                let s1 = lookup(fb, rb);
                // the orientation unknown: the pair either way round
                let s2 = if minus.is_none() { lookup(rb, fb) } else { None };
                let two = matches!((s1, s2), (Some(x), Some(y)) if x != y);
                match s1.or(s2) {
                    _ if any_ambiguous || two => (None, Some(Reason::Ambiguous)),
                    Some(s) => (Some(s), None),
                    None if fb.is_none() && rb.is_none() => (None, Some(Reason::NoHit)),
                    None => (None, Some(Reason::PairNotInSheet)),
                }
            }
            Policy::Either | Policy::Both => match (fb, rb) {
                (Some(a), Some(b)) if a != b => (None, Some(Reason::EndsDisagree)),
                (Some(a), Some(_)) => (Some(a), None),
                _ if any_ambiguous => (None, Some(Reason::Ambiguous)),
                (Some(a), None) | (None, Some(a)) => match self.policy {
                    Policy::Either => (Some(a), None),
                    _ => (None, Some(Reason::OneEndOnly)),
                },
                (None, None) => (None, Some(Reason::NoHit)),
            },
        };
        EndsCall { front_barcode: f, rear_barcode: r, minus, sample, reason }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use EndStatus::{Ambiguous as Amb, Assigned as A, Unassigned as U};

    /// Patterns 0, 1, 2: barcodes a, b, c at both ends.
    fn symmetric(policy: Policy, sheet: &[(u32, Option<u32>, u32)]) -> EndsRule {
        EndsRule::new(policy, vec![0, 1, 2], vec![RowEnd::Both; 3], sheet).unwrap()
    }

    /// The cases of tests/testthat/test-ends-assign.R's combine_ends() test:
    /// 1 both a; 2 front a only; 3 a / b; 4 none; 5 front ambiguous, rear a.
    const CASES: [(EndStatus, EndStatus); 5] = [(A(0), A(0)), (A(0), U), (A(0), A(1)), (U, U), (Amb, A(0))];

    fn samples_and_reasons(rule: &EndsRule) -> Vec<(Option<u32>, Option<Reason>)> {
        CASES.iter().map(|&(f, r)| rule.combine(f, r)).map(|c| (c.sample, c.reason)).collect()
    }

    #[test]
    fn either_takes_one_end_and_refuses_disagreement_and_ambiguity() {
        let got = samples_and_reasons(&symmetric(Policy::Either, &[]));
        assert_eq!(got, vec![(Some(0), None), (Some(0), None), (None, Some(Reason::EndsDisagree)), (None, Some(Reason::NoHit)), (None, Some(Reason::Ambiguous))]);
        // a rear end alone suffices too
        assert_eq!(symmetric(Policy::Either, &[]).combine(U, A(2)).sample, Some(2));
    }

    #[test]
    fn both_needs_two_ends_that_agree() {
        let got = samples_and_reasons(&symmetric(Policy::Both, &[]));
        assert_eq!(got, vec![(Some(0), None), (None, Some(Reason::OneEndOnly)), (None, Some(Reason::EndsDisagree)), (None, Some(Reason::NoHit)), (None, Some(Reason::Ambiguous))]);
        // ambiguous before "one end only"
        assert_eq!(symmetric(Policy::Both, &[]).combine(A(1), Amb).reason, Some(Reason::Ambiguous));
    }

    #[test]
    fn samples_looks_up_the_pair_then_the_front_alone() {
        // s_aa = (a, a), s_ab = (a, b)
        let rule = symmetric(Policy::Samples, &[(0, Some(0), 0), (0, Some(1), 1)]);
        let got = samples_and_reasons(&rule);
        assert_eq!(got, vec![(Some(0), None), (None, Some(Reason::PairNotInSheet)), (Some(1), None), (None, Some(Reason::NoHit)), (None, Some(Reason::Ambiguous))]);
        // a symmetric set does not tell the orientation: the pair either way round
        assert_eq!(rule.combine(A(1), A(0)).sample, Some(1));
        let swapped = symmetric(Policy::Samples, &[(0, Some(1), 0), (1, Some(0), 1)]);
        assert_eq!(swapped.combine(A(0), A(1)).reason, Some(Reason::Ambiguous));
        // an ambiguous end: no sample, even when the sheet has the other's
        let single_a = symmetric(Policy::Samples, &[(0, None, 0)]);
        assert_eq!(single_a.combine(A(0), Amb).reason, Some(Reason::Ambiguous));
        // a single-ended row: any rear end, or none
        let single = symmetric(Policy::Samples, &[(0, None, 0)]);
        let got = samples_and_reasons(&single);
        assert_eq!(got.iter().map(|g| g.0).collect::<Vec<_>>(), vec![Some(0), Some(0), Some(0), None, None]);
        // a rear barcode alone: the front of the other orientation
        assert_eq!(single.combine(U, A(0)).sample, Some(0));
        assert_eq!(single.combine(U, A(1)).reason, Some(Reason::PairNotInSheet));
        // the exact pair before the single-ended row, whatever the order
        let both = symmetric(Policy::Samples, &[(0, None, 0), (0, Some(1), 1)]);
        assert_eq!((both.combine(A(0), A(1)).sample, both.combine(A(0), A(2)).sample), (Some(1), Some(0)));
        // the first row of a pair wins
        let dup = symmetric(Policy::Samples, &[(0, Some(0), 3), (0, Some(0), 1)]);
        assert_eq!(dup.combine(A(0), A(0)).sample, Some(3));
        assert_eq!(dup.n_samples, 4);
    }

    #[test]
    fn orientation_comes_from_the_rows_and_swaps_the_design_ends() {
        // patterns 0-2: barcodes a-c of the front rows; 3-5: of the rear rows
        let ends = [[RowEnd::Front; 3], [RowEnd::Rear; 3]].concat();
        let sheet = [(0, Some(1), 0)]; // sample 0 = front a, rear b
        let rule = EndsRule::new(Policy::Samples, vec![0, 1, 2, 0, 1, 2], ends, &sheet).unwrap();
        // + read: a's front row at the front, b's rear row at the rear
        let plus = rule.combine(A(0), A(4));
        assert_eq!((plus.minus, plus.sample, plus.front_barcode, plus.rear_barcode), (Some(false), Some(0), Some(0), Some(1)));
        // - read: b's rear row first, a's front row last: the same sample
        let minus = rule.combine(A(4), A(0));
        assert_eq!((minus.minus, minus.sample, minus.front_barcode, minus.rear_barcode), (Some(true), Some(0), Some(1), Some(0)));
        // the rear end tells when the front does not
        assert_eq!(rule.combine(U, A(0)).minus, Some(true));
        assert_eq!(rule.combine(Amb, A(3)).minus, Some(false));
        // ... and a - read of the front barcode alone has it at its rear:
        // single-ended rows look up the design front
        let single = EndsRule::new(Policy::Samples, vec![0, 1, 2, 0, 1, 2], [[RowEnd::Front; 3], [RowEnd::Rear; 3]].concat(), &[(2, None, 0)]).unwrap();
        assert_eq!(single.combine(U, A(2)).sample, Some(0));
        assert_eq!(single.combine(A(2), U).sample, Some(0));
        assert_eq!(single.combine(A(5), U).sample, None);
        // rows of both ends tell nothing
        assert_eq!(symmetric(Policy::Either, &[]).combine(A(0), A(0)).minus, None);
        // the front's row first: front row at the front, a front row at the rear too
        assert_eq!(rule.combine(A(0), A(1)).minus, Some(false));
    }

    #[test]
    fn chimeric_comes_first_and_a_flank_explains_no_hit() {
        let rule = symmetric(Policy::Either, &[]);
        let c = rule.combine(A(0), A(0)).finish(true, true);
        assert_eq!((c.sample, c.reason, c.status()), (None, Some(Reason::Chimeric), "chimeric"));
        let f = rule.combine(U, U).finish(false, true);
        assert_eq!((f.reason, f.status()), (Some(Reason::FlankWithoutBarcode), "unassigned"));
        // a flank does not change another reason
        assert_eq!(rule.combine(A(0), A(1)).finish(false, true).reason, Some(Reason::EndsDisagree));
        assert_eq!(rule.combine(Amb, U).finish(false, true).status(), "ambiguous");
        assert_eq!(rule.combine(A(1), U).finish(false, true).status(), "assigned");
    }

    #[test]
    fn bad_rules_are_errors() {
        assert!(EndsRule::new(Policy::Either, vec![0], vec![], &[]).is_err());
        assert!(EndsRule::new(Policy::Samples, vec![0], vec![RowEnd::Both], &[]).is_err());
        assert!(EndsRule::new(Policy::Samples, vec![0], vec![RowEnd::Both], &[(1, None, 0)]).is_err());
        assert!(EndsRule::new(Policy::Samples, vec![0], vec![RowEnd::Both], &[(0, Some(3), 0)]).is_err());
    }
}
