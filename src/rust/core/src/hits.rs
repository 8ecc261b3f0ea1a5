//! Columnar hit output: one vector per result column and all CIGARs in one
//! byte buffer with offsets, so no hit owns a heap string. Coordinates are
//! 0-based, end-exclusive (as sassy reports them); the binding converts them.

use pa_types::{Cigar, CigarOp};
use sassy::Match;

/// Hits in columns. Row `i`'s CIGAR is `cigar_bytes[cigar_ends[i-1]..cigar_ends[i]]`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HitBuffer {
    pub record: Vec<u32>,
    pub pattern: Vec<u32>,
    pub start: Vec<u32>,
    pub end: Vec<u32>,
    pub pattern_start: Vec<u32>,
    pub pattern_end: Vec<u32>,
    pub cost: Vec<i32>,
    /// `true` for the reverse-complement strand.
    pub minus: Vec<bool>,
    pub cigar_bytes: Vec<u8>,
    /// End offset of each row's CIGAR in `cigar_bytes` (empty if CIGARs are off).
    pub cigar_ends: Vec<usize>,
    /// Optional column: the matched text region of each row (forward
    /// strand, `text[start..end]`), captured where the text is not in R
    /// (files); row `i`'s is `region_bytes[region_ends[i-1]..region_ends[i]]`.
    /// Empty unless asked for (`push_region`).
    pub region_bytes: Vec<u8>,
    pub region_ends: Vec<usize>,
}

/// One hit, with its position in the text's forward coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct HitKey {
    pub record: u32,
    pub pattern: u32,
    pub start: u32,
    pub end: u32,
    pub minus: bool,
    /// Ties on the above happen with overhang (ends past the text clamp to its
    /// length); the pattern range breaks them.
    pub pattern_start: u32,
    pub pattern_end: u32,
}

impl HitBuffer {
    pub fn len(&self) -> usize {
        self.record.len()
    }

    pub fn is_empty(&self) -> bool {
        self.record.is_empty()
    }

    /// Empty the columns, keeping their capacity for reuse.
    pub fn clear(&mut self) {
        self.record.clear();
        self.pattern.clear();
        self.start.clear();
        self.end.clear();
        self.pattern_start.clear();
        self.pattern_end.clear();
        self.cost.clear();
        self.minus.clear();
        self.cigar_bytes.clear();
        self.cigar_ends.clear();
        self.region_bytes.clear();
        self.region_ends.clear();
    }

    /// Append the region of the next row without one (rows get their
    /// regions in order, after `push_match`).
    pub fn push_region(&mut self, region: &[u8]) {
        self.region_bytes.extend_from_slice(region);
        self.region_ends.push(self.region_bytes.len());
    }

    /// Whether every row has its region.
    pub fn has_region(&self) -> bool {
        self.region_ends.len() == self.record.len() && !self.record.is_empty()
    }

    /// Region of row `i` (empty when regions were not kept).
    pub fn region(&self, i: usize) -> &[u8] {
        if self.region_ends.len() != self.record.len() {
            return &[];
        }
        let from = if i == 0 { 0 } else { self.region_ends[i - 1] };
        &self.region_bytes[from..self.region_ends[i]]
    }

    pub fn has_cigar(&self) -> bool {
        self.cigar_ends.len() == self.record.len() && !self.record.is_empty()
    }

    /// CIGAR of row `i` (empty when CIGARs were not kept).
    pub fn cigar(&self, i: usize) -> &[u8] {
        if self.cigar_ends.len() != self.record.len() {
            return &[];
        }
        let from = if i == 0 { 0 } else { self.cigar_ends[i - 1] };
        &self.cigar_bytes[from..self.cigar_ends[i]]
    }

    pub fn key(&self, i: usize) -> HitKey {
        HitKey {
            record: self.record[i],
            pattern: self.pattern[i],
            start: self.start[i],
            end: self.end[i],
            minus: self.minus[i],
            pattern_start: self.pattern_start[i],
            pattern_end: self.pattern_end[i],
        }
    }

    /// Append a sassy match with its forward-strand coordinates `start..end`.
    #[allow(clippy::too_many_arguments)]
    pub fn push_match(&mut self, record: u32, pattern: u32, start: usize, end: usize, m: &Match, minus: bool, cigar: bool) {
        self.record.push(record);
        self.pattern.push(pattern);
        self.start.push(start as u32);
        self.end.push(end as u32);
        self.pattern_start.push(m.pattern_start as u32);
        self.pattern_end.push(m.pattern_end as u32);
        self.cost.push(m.cost);
        self.minus.push(minus);
        if cigar {
            write_cigar(&m.cigar, &mut self.cigar_bytes);
            self.cigar_ends.push(self.cigar_bytes.len());
        }
    }

    /// Whether rows are already in (record, pattern, start, end, strand) order.
    pub fn is_sorted(&self) -> bool {
        (1..self.len()).all(|i| self.key(i - 1) <= self.key(i))
    }

    /// Append all rows of `other`.
    pub fn extend_all(&mut self, other: &HitBuffer) {
        let base = self.cigar_bytes.len();
        self.record.extend_from_slice(&other.record);
        self.pattern.extend_from_slice(&other.pattern);
        self.start.extend_from_slice(&other.start);
        self.end.extend_from_slice(&other.end);
        self.pattern_start.extend_from_slice(&other.pattern_start);
        self.pattern_end.extend_from_slice(&other.pattern_end);
        self.cost.extend_from_slice(&other.cost);
        self.minus.extend_from_slice(&other.minus);
        self.cigar_bytes.extend_from_slice(&other.cigar_bytes);
        self.cigar_ends.extend(other.cigar_ends.iter().map(|e| e + base));
        let base = self.region_bytes.len();
        self.region_bytes.extend_from_slice(&other.region_bytes);
        self.region_ends.extend(other.region_ends.iter().map(|e| e + base));
    }

    /// Append row `i` of `other`.
    pub fn push_row(&mut self, other: &HitBuffer, i: usize) {
        self.record.push(other.record[i]);
        self.pattern.push(other.pattern[i]);
        self.start.push(other.start[i]);
        self.end.push(other.end[i]);
        self.pattern_start.push(other.pattern_start[i]);
        self.pattern_end.push(other.pattern_end[i]);
        self.cost.push(other.cost[i]);
        self.minus.push(other.minus[i]);
        if other.cigar_ends.len() == other.record.len() {
            self.cigar_bytes.extend_from_slice(other.cigar(i));
            self.cigar_ends.push(self.cigar_bytes.len());
        }
        if other.region_ends.len() == other.record.len() {
            self.push_region(other.region(i));
        }
    }

    /// Append the rows of `other` in the order given by `order`.
    pub fn extend_ordered(&mut self, other: &HitBuffer, order: &[u32]) {
        for &i in order {
            self.push_row(other, i as usize);
        }
    }

    /// Row indices sorted by (record, pattern, start, end, strand, pattern
    /// range); stable, so rows with equal keys keep sassy's order.
    pub fn sort_order(&self, order: &mut Vec<u32>) {
        order.clear();
        order.extend(0..self.len() as u32);
        order.sort_by_key(|&i| self.key(i as usize));
    }
}

/// Format a CIGAR (`3=1X2=`) straight into `out`, without a temporary String.
pub fn write_cigar(cigar: &Cigar, out: &mut Vec<u8>) {
    let mut buf = itoa::Buffer::new();
    for e in &cigar.ops {
        out.extend_from_slice(buf.format(e.cnt).as_bytes());
        out.push(match e.op {
            CigarOp::Match => b'=',
            CigarOp::Sub => b'X',
            CigarOp::Ins => b'I',
            CigarOp::Del => b'D',
        });
    }
}

/// Buffers kept for reuse across calls: the caller hands them back with
/// [`recycle`] after copying their contents out, so steady-state calls do not
/// reallocate their columns. Taken and returned once per task, not per hit.
static SPARE: std::sync::Mutex<Vec<HitBuffer>> = std::sync::Mutex::new(Vec::new());
/// Spare buffers kept, and the largest row capacity worth keeping.
const SPARE_MAX: usize = 256;
const SPARE_MAX_ROWS: usize = 1 << 20;
/// Most heap bytes all spare buffers together may keep: without a total
/// bound, 256 buffers of 2^20 rows could keep gigabytes after one big (or
/// interrupted) search for the rest of the R session.
pub const SPARE_MAX_BYTES: usize = 64 << 20;

impl HitBuffer {
    /// Heap bytes reserved by the columns (capacity, not length).
    pub fn heap_bytes(&self) -> usize {
        4 * (self.record.capacity()
            + self.pattern.capacity()
            + self.start.capacity()
            + self.end.capacity()
            + self.pattern_start.capacity()
            + self.pattern_end.capacity()
            + self.cost.capacity())
            + self.minus.capacity()
            + self.cigar_bytes.capacity()
            + std::mem::size_of::<usize>() * self.cigar_ends.capacity()
            + self.region_bytes.capacity()
            + std::mem::size_of::<usize>() * self.region_ends.capacity()
    }
}

/// An empty buffer, reused when one is spare.
pub fn take_buffer() -> HitBuffer {
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    spare.pop().unwrap_or_default()
}

/// Return buffers for reuse (cleared; very large ones are dropped, and so is
/// any that would take the spares over [`SPARE_MAX_BYTES`]).
pub fn recycle(bufs: Vec<HitBuffer>) {
    let mut spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    let mut kept: usize = spare.iter().map(HitBuffer::heap_bytes).sum();
    for mut b in bufs {
        let bytes = b.heap_bytes();
        if spare.len() < SPARE_MAX && b.record.capacity() <= SPARE_MAX_ROWS && kept + bytes <= SPARE_MAX_BYTES {
            b.clear();
            kept += bytes;
            spare.push(b);
        }
    }
}

/// Heap bytes held by the spare buffers now (for tests of the bound).
pub fn spare_bytes() -> usize {
    let spare = SPARE.lock().unwrap_or_else(|e| e.into_inner());
    spare.iter().map(HitBuffer::heap_bytes).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cigar_is_formatted_like_pa_types() {
        for s in ["3=1X2=", "12=", "1I4=2D1X", "100="] {
            let c = Cigar::from_string(s);
            let mut out = Vec::new();
            write_cigar(&c, &mut out);
            assert_eq!(out, s.as_bytes());
            assert_eq!(String::from_utf8(out).unwrap(), c.to_string());
        }
    }
}
