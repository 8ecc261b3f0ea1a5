//! Where the hits of one record's search go, whatever strategy found them
//! (`strategy.rs`, `hamming.rs`, `crispr.rs`, `lanes.rs`): the per-task
//! output ([`Sink`]: hit columns, or counts / flags), the part of a record a
//! search owns ([`Window`]), and [`HitSink`], which moves the owned matches
//! of one searched slice into a hit buffer in record coordinates.
//!
//! A record may be searched whole or as one window of it: the searched
//! slice has context on both sides, and only hits the window owns are kept,
//! so that the windows of a record together give each hit once.

use crate::control::Stop;
use crate::error::CoreError;
use crate::hits::HitBuffer;
use crate::profile::AnyEncoded;
use crate::rc_filter::RcFilter;
use sassy::Match;

/// `NA_integer_` in R; used for counts and presence of `NA` texts.
pub const NA_INT: i32 = i32::MIN;

/// Encoded forms of the batched groups, `None` for single-pattern groups.
pub type Encoded = Vec<Option<GroupEncoding>>;

/// One batched group, prepared once per call.
pub struct GroupEncoding {
    /// The patterns, for sassy's pattern tiling on the text.
    pub fwd: AnyEncoded,
    /// Their complements, on the reversed text (both strands).
    pub comp: Option<AnyEncoded>,
    /// Which patterns can have a reverse-strand hit (`rc_filter.rs`), where
    /// the plan filters this group.
    pub rc_filter: Option<RcFilter>,
}

/// Per-task output.
pub enum Sink {
    Hits(HitBuffer),
    /// Record-major values (`records x patterns` of the task), counts or 0/1.
    Values(Vec<i32>),
    /// One assignment per record of the task (`assign.rs`).
    Best(Vec<crate::assign::Best>),
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

/// Moves owned matches of one slice into a hit buffer in record coordinates.
/// Every strategy writes into one (`strategy.rs`, `hamming.rs`, `crispr.rs`).
pub struct HitSink<'a> {
    pub(crate) rec: u32,
    pub(crate) win: &'a Window,
    pub(crate) cigar: bool,
    /// Length of the searched slice.
    pub(crate) n: usize,
    pub(crate) out: &'a mut HitBuffer,
    /// Rows of `out` already counted against the hit limit.
    pub(crate) counted: usize,
}

impl HitSink<'_> {
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

