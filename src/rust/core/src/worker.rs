//! Per-worker state kept between calls: sassy searchers (their DP buffers are
//! reused), the reversed-text buffer and the staging hit buffer. Each rayon
//! worker thread owns one, so the search loop takes no lock.

use crate::hits::HitBuffer;
use crate::profile::{AnySearcher, ProfileKind};
use crate::stepwise::Matrices;
use std::cell::RefCell;

/// Reusable state of one worker thread.
#[derive(Default)]
pub struct Worker {
    searchers: Vec<(ProfileKind, Option<u32>, AnySearcher)>,
    /// Reversed text of the current record (the reverse-complement strand is
    /// searched as the complemented pattern on the reversed text).
    pub rev: Vec<u8>,
    /// Hits of the current record before they are sorted into the task output.
    pub staging: HitBuffer,
    /// Sort permutation of `staging`.
    pub order: Vec<u32>,
    /// Lower-cased text for ASCII with `ignore_case`.
    pub folded: Vec<u8>,
    /// Cost matrices of the traceback in steps (long patterns).
    pub matrices: Matrices,
    /// Text lanes (`lanes.rs`): the task's lane records sorted by length,
    /// and the lower-cased and reversed texts of one group of them.
    pub lane_recs: Vec<u32>,
    pub lane_fwd: Vec<u8>,
    pub lane_rev: Vec<u8>,
    pub lane_starts: Vec<usize>,
    pub lane_redo: Vec<usize>,
    /// A count or contains task's record-major values, before they are
    /// scattered into the output matrix (engine.rs).
    pub task_values: Vec<i32>,
    /// One record's hits of an assignment, reduced at once (engine.rs).
    pub assign_hits: HitBuffer,
    /// The reverse-strand filter's buffers and candidates (`rc_filter.rs`).
    pub rc_scratch: crate::rc_filter::RcScratch,
    pub rc_candidates: Vec<crate::rc_filter::Candidate>,
    /// One reversed part of the slice searched for a candidate.
    pub rc_part: Vec<u8>,
}

impl Worker {
    /// The cached searcher for this profile and overhang, built on first use.
    pub fn searcher(&mut self, kind: ProfileKind, overhang: Option<f32>) -> &mut AnySearcher {
        let key = overhang.map(f32::to_bits);
        let pos = match self.searchers.iter().position(|(k, o, _)| *k == kind && *o == key) {
            Some(p) => p,
            None => {
                self.searchers.push((kind, key, AnySearcher::new(kind, overhang)));
                self.searchers.len() - 1
            }
        };
        &mut self.searchers[pos].2
    }

    /// The cached searcher (see [`Worker::searcher`]) and the cost matrices
    /// for tracing in steps, borrowed together.
    pub fn searcher_and_matrices(&mut self, kind: ProfileKind, overhang: Option<f32>) -> (&mut AnySearcher, &mut Matrices) {
        self.searcher(kind, overhang);
        let pos = self.searchers.iter().position(|(k, o, _)| *k == kind && *o == overhang.map(f32::to_bits)).expect("just built");
        (&mut self.searchers[pos].2, &mut self.matrices)
    }

    /// Fill `rev` with `text` reversed.
    pub fn set_reversed(&mut self, text: &[u8]) {
        self.rev.clear();
        self.rev.extend(text.iter().rev());
    }

    /// Run `f` on `text`, lower-cased into a reused buffer when `fold`.
    pub fn with_text<R>(&mut self, text: &[u8], fold: bool, f: impl FnOnce(&[u8], &mut Worker) -> R) -> R {
        if !fold {
            return f(text, self);
        }
        let mut buf = std::mem::take(&mut self.folded);
        buf.clear();
        buf.extend(text.iter().map(u8::to_ascii_lowercase));
        let r = f(&buf, self);
        self.folded = buf;
        r
    }

    /// Number of searchers cached (for tests of reuse).
    pub fn cached_searchers(&self) -> usize {
        self.searchers.len()
    }
}

thread_local! {
    static WORKER: RefCell<Worker> = RefCell::new(Worker::default());
}

/// Run `f` with this thread's worker state. Re-entrant use (which the engine
/// never does) gets a fresh temporary state instead of a borrow panic.
pub fn with_worker<R>(f: impl FnOnce(&mut Worker) -> R) -> R {
    WORKER.with(|cell| match cell.try_borrow_mut() {
        Ok(mut w) => f(&mut w),
        Err(_) => f(&mut Worker::default()),
    })
}
