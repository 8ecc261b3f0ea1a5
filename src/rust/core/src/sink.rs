//! What one record's search feeds: every hit (traced, sorted, columnar), a
//! count per pattern (no traceback), or presence per pattern (stops at the
//! first hit). One engine drives all three.

use crate::hits::HitBuffer;
use crate::options::{PatternGroup, SearchPlan};
use crate::profile::{AnyEncoded, ProfileKind};
use crate::worker::Worker;

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

/// Search `text` (record `rec`) for the groups `groups` and append every hit to
/// `out`, ordered by pattern, start, end, strand.
pub fn record_hits(
    plan: &SearchPlan,
    enc: &Encoded,
    groups: std::ops::Range<usize>,
    rec: u32,
    text: &[u8],
    w: &mut Worker,
    out: &mut HitBuffer,
) {
    let kind = ProfileKind::of(plan);
    let (k, all, cigar) = (plan.k, plan.all_endpoints, plan.cigar);
    if plan.rc {
        w.set_reversed(text);
    }
    let mut staging = std::mem::take(&mut w.staging);
    staging.clear();
    let n = text.len();
    for gi in groups {
        match &plan.groups[gi] {
            PatternGroup::Single(pi) => single_hits(plan, kind, *pi, rec, text, w, &mut staging),
            PatternGroup::Batch(idx) if n == 0 => {
                // sassy's batched search cannot take an empty text
                for &pi in idx {
                    single_hits(plan, kind, pi, rec, text, w, &mut staging);
                }
            }
            PatternGroup::Batch(idx) => {
                let Some((fwd, comp)) = &enc[gi] else { unreachable!("batched group without encoding") };
                let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                s.configure(true, plan.max_n_frac);
                for m in s.search_encoded(fwd, text, k, all) {
                    staging.push_match(rec, idx[m.pattern_idx] as u32, m.text_start, m.text_end, m, false, cigar);
                }
                if let Some(comp) = comp {
                    let rev = std::mem::take(&mut w.rev);
                    let s = w.searcher(ProfileKind::Iupac, plan.overhang);
                    for m in s.search_encoded(comp, &rev, k, all) {
                        staging.push_match(rec, idx[m.pattern_idx] as u32, n - m.text_end, n - m.text_start, m, true, cigar);
                    }
                    w.rev = rev;
                }
            }
        }
    }
    if staging.is_sorted() {
        out.extend_all(&staging);
    } else {
        staging.sort_order(&mut w.order);
        out.extend_ordered(&staging, &w.order);
    }
    w.staging = staging;
}

/// Hits of pattern `pi` alone, both strands, into `staging`.
fn single_hits(plan: &SearchPlan, kind: ProfileKind, pi: usize, rec: u32, text: &[u8], w: &mut Worker, staging: &mut HitBuffer) {
    let (k, all, cigar, n) = (plan.k, plan.all_endpoints, plan.cigar, text.len());
    let s = w.searcher(kind, plan.overhang);
    s.configure(true, plan.max_n_frac);
    for m in s.search(&plan.patterns[pi], text, k, all) {
        staging.push_match(rec, pi as u32, m.text_start, m.text_end, &m, false, cigar);
    }
    if plan.rc {
        let rev = std::mem::take(&mut w.rev);
        let s = w.searcher(kind, plan.overhang);
        for m in s.search(&plan.complements[pi], &rev, k, all) {
            staging.push_match(rec, pi as u32, n - m.text_end, n - m.text_start, &m, true, cigar);
        }
        w.rev = rev;
    }
}

/// Number of hits of each pattern in `text`, written to `out[pattern]`. No
/// traceback unless the N-fraction filter needs it (see `needs_trace`).
pub fn record_counts(plan: &SearchPlan, text: &[u8], w: &mut Worker, out: &mut [i32]) {
    let kind = ProfileKind::of(plan);
    if plan.rc {
        w.set_reversed(text);
    }
    let rev = std::mem::take(&mut w.rev);
    let s = w.searcher(kind, plan.overhang);
    s.configure(plan.needs_trace(), plan.max_n_frac);
    for (pi, p) in plan.patterns.iter().enumerate() {
        let mut n = s.search(p, text, plan.k, plan.all_endpoints).len();
        if plan.rc {
            n += s.search(&plan.complements[pi], &rev, plan.k, plan.all_endpoints).len();
        }
        out[pi] = n.min(i32::MAX as usize) as i32;
    }
    w.rev = rev;
}

/// 1 if a pattern has any hit in `text`, else 0, into `out[pattern]`. The
/// reverse strand is searched only when the forward strand has no hit.
pub fn record_contains(plan: &SearchPlan, text: &[u8], w: &mut Worker, out: &mut [i32]) {
    let kind = ProfileKind::of(plan);
    let mut rev_ready = false;
    for (pi, p) in plan.patterns.iter().enumerate() {
        let s = w.searcher(kind, plan.overhang);
        s.configure(plan.needs_trace(), plan.max_n_frac);
        let mut hit = !s.search(p, text, plan.k, plan.all_endpoints).is_empty();
        if !hit && plan.rc {
            if !rev_ready {
                w.set_reversed(text);
                rev_ready = true;
            }
            let rev = std::mem::take(&mut w.rev);
            let s = w.searcher(kind, plan.overhang);
            hit = !s.search(&plan.complements[pi], &rev, plan.k, plan.all_endpoints).is_empty();
            w.rev = rev;
        }
        out[pi] = hit as i32;
    }
}
