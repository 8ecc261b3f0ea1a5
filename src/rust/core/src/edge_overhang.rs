//! Overhang at the records' own ends only, for the assignments of barcode
//! sets with flanks (issue 38): a read may start or end inside its adapter,
//! so a set's pattern may hang over the read's first or last letter; it
//! may not hang over the inner edge of an end slice (`ends`), which is no
//! end of the read.
//!
//! sassy 0.3.0 searches with overhang one pattern at a time (its batched
//! search reports other end positions with overhang: `options.rs`), which
//! made the both-ends assignment of a kit five times slower on real reads.
//! And sassy's search of one pattern is slow on short texts (its SIMD lanes
//! split the text with an overlap of the pattern's length). So the search
//! is split:
//! - the end slices are searched without overhang, batched, as any
//!   assignment (every hit that lies wholly in the record);
//! - a record whose assignment is then not a call (not assigned by the
//!   margin, on the costs and, with barcode spans, the barcode edits) is
//!   searched again at each of its own ends, in a strip of `m + k + 2`
//!   letters (`m` the longest pattern: an alignment that hangs over an edge
//!   covers at most `m - 1 + k` letters), with overhang, one pattern at a
//!   time; the hits that hang over a record's end (and over no other edge
//!   of the strip) join its assignment ([`crate::assign::Best::merge`],
//!   exact for any split of the hits).
//!
//! So overhang rescues the reads that start or end inside their adapter,
//! and costs little where the plain search already calls the barcode (the
//! simulated native run of `benchmarks/kits.md`: 1.7 times the plain
//! search; real reads of a rapid kit, whose rear ends and reads without
//! barcode are all searched again: 3.7 times).
//! The assignment of a record searched again is that of the union of the
//! two sets of hits; it differs from a search of the whole slice with
//! overhang only in which end positions near a record's end are reported
//! (the rightmost local minimum of each run is decided within each
//! search), never in the costs.

use crate::assign::{Best, BestHit};
use crate::error::CoreError;
use crate::hits::HitBuffer;
use crate::options::{Edges, Mode, SearchOptions, SearchPlan};

/// The plan of an assignment with overhang at the records' own ends: the
/// plan without overhang, its `edges` the strips' plan (hits, with overhang
/// and CIGARs). `opts` has the overhang; `spans` the barcode letters of each
/// pattern (empty: none).
/// `margin` is the assignment's: the records it does not call are searched
/// again.
pub fn plan(opts: &SearchOptions, patterns: &[&[u8]], spans: Vec<crate::barcode_edits::Span>, margin: i32) -> Result<SearchPlan, CoreError> {
    if opts.overhang.is_none() || opts.mode != Mode::Assign {
        return Err(CoreError::Internal("edge overhang: an assignment with overhang needed".into()));
    }
    let mut edges = SearchPlan::new(&SearchOptions { mode: Mode::Hits, ends: None, cigar: true, max_hits: None, ..opts.clone() }, patterns)?;
    edges.set_barcode_spans(spans.clone());
    let mut main = SearchPlan::new(&SearchOptions { overhang: None, ..opts.clone() }, patterns)?;
    main.set_barcode_spans(spans);
    main.edges = Some(Box::new(Edges { plan: edges, margin }));
    Ok(main)
}


/// A strip of a record: its letters from `offset`, and which of its edges
/// are the record's own ends.
pub struct Strip {
    record: u32,
    offset: u32,
    left_end: bool,
    right_end: bool,
}

/// The strips of the searched parts of `texts` (`ends`, or whole records):
/// `len` letters at each of a record's ends that is searched. With
/// `own_side` (the texts are parts of records cut where another end's
/// site starts or ends: [`crate::options::SearchPlan::halves`]), only the
/// edge of the side `ends` searches, the head's left or the tail's right,
/// is a record's end.
fn strips<'t>(texts: &[Option<&'t [u8]>], ends: Option<(usize, usize)>, own_side: bool, len: usize) -> (Vec<Option<&'t [u8]>>, Vec<Strip>) {
    let mut out = Vec::with_capacity(texts.len() * 2);
    let mut info = Vec::with_capacity(texts.len() * 2);
    for (r, t) in texts.iter().enumerate() {
        let Some(t) = t else { continue };
        let n = t.len();
        if let (true, Some((head, _))) = (own_side, ends) {
            let l = len.min(n);
            if head > 0 {
                out.push(Some(&t[..l]));
                info.push(Strip { record: r as u32, offset: 0, left_end: true, right_end: false });
            } else {
                out.push(Some(&t[n - l..]));
                info.push(Strip { record: r as u32, offset: (n - l) as u32, left_end: false, right_end: true });
            }
            continue;
        }
        let (head, tail) = match ends {
            Some((h, tl)) if n > h.saturating_add(tl) => (h, tl),
            _ => (n, n),
        };
        let mut push = |from: usize, to: usize| {
            out.push(Some(&t[from..to]));
            info.push(Strip { record: r as u32, offset: from as u32, left_end: from == 0, right_end: to == n });
        };
        let (l, r_len) = (len.min(head).min(n), len.min(tail).min(n));
        if l + r_len >= n && head >= n {
            // one strip holds both ends (a record searched whole, short)
            push(0, n);
            continue;
        }
        if l > 0 {
            push(0, l);
        }
        if r_len > 0 {
            push(n - r_len, n);
        }
    }
    (out, info)
}

/// The strips to search again (the engine searches them with `e.plan`):
/// at the ends of the records of `texts` that `best` (one per record) does
/// not call.
pub fn strips_to_search<'t>(e: &Edges, ends: Option<(usize, usize)>, own_side: bool, texts: &[Option<&'t [u8]>], best: &[Best]) -> (Vec<Option<&'t [u8]>>, Vec<Strip>) {
    let edges = &e.plan;
    let by_barcode = !edges.barcode_spans.is_empty();
    let again: Vec<Option<&[u8]>> =
        texts.iter().zip(best.iter()).map(|(t, b)| t.filter(|_| b.status_with(e.margin, by_barcode) != crate::assign::Status::Assigned)).collect();
    let m = edges.patterns.iter().map(Vec::len).max().unwrap_or(0);
    strips(&again, ends, own_side, m + edges.k + 2)
}

/// Merge into `best` the hits of the strips (`bufs`, the search of
/// [`strips_to_search`]'s texts) that hang over a record's own end.
pub fn merge_edges(e: &Edges, bufs: &[HitBuffer], info: &[Strip], samples: &[u32], best: &mut [Best]) {
    for b in bufs {
        merge_buffer(&e.plan, b, info, samples, best);
    }
}

fn merge_buffer(edges: &SearchPlan, b: &HitBuffer, info: &[Strip], samples: &[u32], best: &mut [Best]) {
    for i in 0..b.len() {
        let s = &info[b.record[i] as usize];
        let p = b.pattern[i] as usize;
        let m = edges.patterns[p].len() as u32;
        // pattern letters missing before the pattern's first aligned letter
        // lie beyond the text's start on the forward strand, beyond its end
        // on the reverse (the complement is aligned to the reversed text)
        let (clip_first, clip_last) = (b.pattern_start[i] > 0, b.pattern_end[i] < m);
        let (over_left, over_right) = if b.minus[i] { (clip_last, clip_first) } else { (clip_first, clip_last) };
        let keep = (over_left || over_right) && (!over_left || s.left_end) && (!over_right || s.right_end);
        if !keep {
            continue;
        }
        let barcode_edits = edges.barcode_spans.get(p).map_or(0, |&span| crate::barcode_edits::of_text(b.cigar(i), b.pattern_start[i], span).unwrap_or(0));
        let hit = BestHit {
            cost: b.cost[i],
            pattern: p as u32,
            start: b.start[i] + s.offset,
            end: b.end[i] + s.offset,
            minus: b.minus[i],
            sample: samples.get(p).copied().unwrap_or(p as u32),
            barcode_edits,
        };
        let r = s.record as usize;
        best[r] = best[r].merge(Best { hit: Some(hit), ..Default::default() });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_lie_at_the_records_own_ends_within_the_searched_ends() {
        let t: Vec<u8> = vec![b'A'; 100];
        let s: Vec<u8> = vec![b'A'; 8];
        let texts = [Some(&t[..]), None, Some(&s[..])];
        let (st, info) = strips(&texts, Some((30, 5)), false, 10);
        let got: Vec<(u32, u32, usize, bool, bool)> = info.iter().zip(&st).map(|(i, t)| (i.record, i.offset, t.unwrap().len(), i.left_end, i.right_end)).collect();
        // record 0: [0, 10) and [95, 100) (the tail is 5 letters); record 2
        // (8 letters, no longer than the ends): one strip, both ends
        assert_eq!(got, vec![(0, 0, 10, true, false), (0, 95, 5, false, true), (2, 0, 8, true, true)]);
        // a front end only: no strip at the rear
        let (_, info) = strips(&texts[..1], Some((30, 0)), false, 10);
        assert_eq!(info.iter().map(|i| (i.offset, i.right_end)).collect::<Vec<_>>(), vec![(0, false)]);
        // whole records: both ends
        let (_, info) = strips(&texts[..1], None, false, 10);
        assert_eq!(info.iter().map(|i| (i.offset, i.left_end, i.right_end)).collect::<Vec<_>>(), vec![(0, true, false), (90, false, true)]);
    }
}
