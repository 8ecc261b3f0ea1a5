//! Searching only the ends of records (`ends = (head, tail)`): barcodes and
//! primers sit in the first and last ~150 letters of a read, and the middle
//! need not be searched.
//!
//! Each end is a slice searched as a text of its own: `[0, head)` and
//! `[n - tail, n)` of a record of length `n`. A record no longer than
//! `head + tail` is searched once, whole (its ends would overlap). The
//! engine searches the slices as ordinary texts; here their results go back
//! to the records: hits get the record's number and coordinates (shifted by
//! the slice's start), the counts of a record's slices add up, presence
//! combines with "or", assignments merge ([`crate::assign::Best::merge`]).
//! So the result is that of searching the end substrings and shifting the
//! coordinates. Letters outside the ends are neither searched nor checked.

use crate::assign::Best;
use crate::error::CoreError;
use crate::hits::HitBuffer;
use crate::sink::NA_INT;

/// The searched slices of the records.
pub struct Slices<'a> {
    pub texts: Vec<Option<&'a [u8]>>,
    /// For each slice, its record and where it starts in the record.
    pub origin: Vec<(u32, u32)>,
}

/// The slices of `texts` for `ends = (head, tail)`; a missing text stays one
/// missing slice.
pub fn slices<'a>(texts: &[Option<&'a [u8]>], (head, tail): (usize, usize)) -> Slices<'a> {
    let mut out = Slices { texts: Vec::with_capacity(texts.len() * 2), origin: Vec::with_capacity(texts.len() * 2) };
    for (r, t) in texts.iter().enumerate() {
        let r = r as u32;
        match t {
            Some(t) if t.len() > head.saturating_add(tail) => {
                if head > 0 {
                    out.texts.push(Some(&t[..head]));
                    out.origin.push((r, 0));
                }
                if tail > 0 {
                    let from = t.len() - tail;
                    out.texts.push(Some(&t[from..]));
                    out.origin.push((r, from as u32));
                }
            }
            t => {
                out.texts.push(*t);
                out.origin.push((r, 0));
            }
        }
    }
    out
}

impl Slices<'_> {
    /// Hits of the slices (buffers in slice order) as hits of the records,
    /// in (record, pattern, start, end, strand) order.
    pub fn hits(&self, mut bufs: Vec<HitBuffer>) -> Vec<HitBuffer> {
        for b in &mut bufs {
            for i in 0..b.len() {
                let (rec, offset) = self.origin[b.record[i] as usize];
                b.record[i] = rec;
                b.start[i] += offset;
                b.end[i] += offset;
            }
        }
        if bufs.iter().all(|b| b.is_sorted()) && sorted_across(&bufs) {
            return bufs;
        }
        // a record's tail hits follow all of its head's: sort
        let mut all = crate::hits::take_buffer();
        all.clear();
        for b in &bufs {
            all.extend_all(b);
        }
        crate::hits::recycle(bufs);
        let mut order = Vec::new();
        all.sort_order(&mut order);
        let mut sorted = crate::hits::take_buffer();
        sorted.clear();
        sorted.extend_ordered(&all, &order);
        crate::hits::recycle(vec![all]);
        vec![sorted]
    }

    /// The `records x patterns` values (column-major) of the records from
    /// those of the slices, `values` (`slices x patterns`), into `out`.
    pub fn values(&self, values: &[i32], n_pat: usize, count: bool, out: &mut [i32]) {
        let (n_s, n_r) = (self.texts.len(), out.len() / n_pat.max(1));
        for p in 0..n_pat {
            let mut last = u32::MAX;
            for s in 0..n_s {
                let (r, _) = self.origin[s];
                let v = values[p * n_s + s];
                let cell = &mut out[p * n_r + r as usize];
                if r != last || v == NA_INT {
                    *cell = v;
                } else if count {
                    *cell = cell.saturating_add(v);
                } else {
                    *cell = (*cell).max(v);
                }
                last = r;
            }
        }
    }

    /// The assignments of the records from those of the slices.
    pub fn best(&self, slices: Vec<Best>, n_records: usize) -> Vec<Best> {
        let mut out = vec![Best::default(); n_records];
        for (s, b) in slices.into_iter().enumerate() {
            let (r, offset) = self.origin[s];
            out[r as usize] = out[r as usize].merge(b.shifted(offset));
        }
        out
    }

    /// An error about a slice, about its record instead.
    pub fn error(&self, e: CoreError) -> CoreError {
        match e {
            CoreError::InvalidLetter { arg: "texts", index, position, letter, alphabet } => {
                let (rec, offset) = self.origin[index];
                CoreError::InvalidLetter { arg: "texts", index: rec as usize, position: position + offset as usize, letter, alphabet }
            }
            CoreError::TooLarge { patterns, .. } => CoreError::TooLarge { records: self.origin.last().map_or(0, |o| o.0 as usize + 1), patterns },
            e => e,
        }
    }
}

/// Whether consecutive buffers are in order at their seams.
fn sorted_across(bufs: &[HitBuffer]) -> bool {
    let mut last = None;
    for b in bufs.iter().filter(|b| !b.is_empty()) {
        if last.is_some_and(|k| k > b.key(0)) {
            return false;
        }
        last = Some(b.key(b.len() - 1));
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_of_long_short_and_missing_records() {
        let a = b"AAAACCCCGGGG".as_slice();
        let texts = [Some(a), Some(&b"ACGT"[..]), None, Some(&b""[..])];
        let s = slices(&texts, (3, 2));
        assert_eq!(s.texts, vec![Some(&b"AAA"[..]), Some(&b"GG"[..]), Some(&b"ACGT"[..]), None, Some(&b""[..])]);
        assert_eq!(s.origin, vec![(0, 0), (0, 10), (1, 0), (2, 0), (3, 0)]);
        // the start only; a record of exactly head + tail letters is whole
        let s = slices(&texts, (4, 0));
        assert_eq!(s.texts[..2], [Some(&b"AAAA"[..]), Some(&b"ACGT"[..])]);
        let s = slices(&[Some(a)], (0, 5));
        assert_eq!((s.texts[0], s.origin[0]), (Some(&b"CGGGG"[..]), (0, 7)));
    }

    #[test]
    fn values_add_up_per_record() {
        let a = b"AAAACCCCGGGG".as_slice();
        let texts = [Some(a), None, Some(a)];
        let s = slices(&texts, (3, 2));
        // slices: r0 head, r0 tail, r1 (NA), r2 head, r2 tail; two patterns
        let v = [1, 2, NA_INT, 0, 5, 0, 1, NA_INT, 1, 0];
        let mut out = [0; 6];
        s.values(&v, 2, true, &mut out);
        assert_eq!(out, [3, NA_INT, 5, 1, NA_INT, 1]);
        s.values(&v, 2, false, &mut out);
        assert_eq!(out, [2, NA_INT, 5, 1, NA_INT, 1]);
    }
}
