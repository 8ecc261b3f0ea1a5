//! What the caller and the workers of one search share: the cancel flag,
//! progress counters and the hit limit ([`Control`]), and what a worker
//! checks after every sassy call ([`Stop`]). A bottom layer: every search
//! strategy checks a `Stop`, the engine makes them.

use crate::error::CoreError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::time::Duration;

/// How often the waiting caller polls for an interrupt.
pub const POLL_INTERVAL: Duration = Duration::from_millis(50);
/// Shared between the caller and the workers: cancellation and progress.
/// Workers read `cancel` after every sassy call and add to `hits` as they
/// produce them (see [`Stop`]); `done_bytes` grows per task.
#[derive(Default)]
pub struct Control {
    pub cancel: AtomicBool,
    /// Text bytes searched so far (updated per task).
    pub done_bytes: AtomicU64,
    /// What `done_bytes` reaches when the last `run()` call on this control
    /// finishes (its tasks' bytes), for progress bars; set by `run()`.
    pub total_bytes: AtomicU64,
    /// File bytes read so far (compressed bytes for compressed files), for
    /// the progress of file searches; counted by the FASTX reader.
    pub read_bytes: AtomicU64,
    /// File bytes searched: `read_bytes` as it was when the last batch
    /// whose search finished was read (the FASTX stream sets it).
    pub searched_bytes: AtomicU64,
    /// `read_bytes` as it was when the batch now searched was read; the
    /// engine's `done_bytes` of `total_bytes` tell how far into it the
    /// search is.
    pub batch_read_to: AtomicU64,
    /// Hits produced and held so far (updated after every sassy call that
    /// found some), against `max_hits`. After a limit error it tells how many
    /// hits were held when the workers stopped.
    pub hits: AtomicU64,
    /// Lowest index of a task that failed, so later tasks stop early while
    /// earlier ones finish: the error reported is always the first in order.
    pub(crate) first_failed: AtomicUsize,
    /// Asked at every check when set: whether the caller wants the search
    /// stopped. For callers that cannot poll from a waiting thread because
    /// the search runs on theirs (`plan.inline`: the SQL functions inside
    /// DuckDB); it must be cheap, as it runs once per sassy call.
    pub watch: Option<fn() -> bool>,
    /// What the engine keeps from one `run()` on this control for the next
    /// (opaque here: the encoded patterns of the batched groups). A file
    /// search runs once per batch, and encoding 96 barcodes per batch cost a
    /// demultiplexer 5% of its time.
    pub(crate) kept: std::sync::Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

impl Control {
    pub fn new() -> Self {
        Control { first_failed: AtomicUsize::new(usize::MAX), ..Default::default() }
    }

    /// File bytes searched, for the progress of a file search: not
    /// `read_bytes`, since the reader runs batches ahead of the search (a
    /// file of one long record is read long before it is searched), but the
    /// bytes of the batches searched and, of the batch now searched, the
    /// share the engine did (per task: a window of a long record).
    pub fn file_bytes_searched(&self) -> u64 {
        searched_of(
            self.searched_bytes.load(Relaxed),
            self.batch_read_to.load(Relaxed),
            self.done_bytes.load(Relaxed),
            self.total_bytes.load(Relaxed),
        )
    }
}

/// `searched` (file bytes of the batches done) plus the part of the batch
/// now searched (file bytes `searched..batch_to`) that the engine did:
/// `done` of `total` text bytes (nothing while `total` is 0).
fn searched_of(searched: u64, batch_to: u64, done: u64, total: u64) -> u64 {
    let span = batch_to.saturating_sub(searched);
    if total == 0 || span == 0 {
        return searched;
    }
    let frac = done.min(total) as f64 / total as f64;
    searched + (span as f64 * frac) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_bytes_searched_counts_the_batch_searched_by_its_share() {
        // nothing searched yet, a batch of 6 MB read: 0, not 6 MB
        assert_eq!(searched_of(0, 6_000_000, 0, 0), 0);
        assert_eq!(searched_of(0, 6_000_000, 0, 5_999_990), 0);
        // a quarter of its windows done
        assert_eq!(searched_of(0, 6_000_000, 1_500_000, 6_000_000), 1_500_000);
        // batches before it done, half of it
        assert_eq!(searched_of(1_000, 3_000, 50, 100), 2_000);
        // the engine's count never takes it past the batch
        assert_eq!(searched_of(1_000, 3_000, 500, 100), 3_000);
        // between batches (the engine's counters reset)
        assert_eq!(searched_of(3_000, 3_000, 0, 0), 3_000);
        let ctl = Control::new();
        ctl.searched_bytes.store(10, Relaxed);
        ctl.batch_read_to.store(110, Relaxed);
        ctl.done_bytes.store(3, Relaxed);
        ctl.total_bytes.store(4, Relaxed);
        assert_eq!(ctl.file_bytes_searched(), 85);
    }
}

/// What a worker checks while it searches: the cancel flag, whether an
/// earlier task failed, and the hit limit. Relaxed atomics, once per sassy
/// call: no measurable cost next to the call itself.
pub struct Stop<'a> {
    ctl: &'a Control,
    task_index: usize,
    max_hits: Option<u64>,
}

impl<'a> Stop<'a> {
    /// For the task `task_index` of a search with the limit `max_hits`.
    pub fn new(ctl: &'a Control, task_index: usize, max_hits: Option<u64>) -> Self {
        Stop { ctl, task_index, max_hits }
    }

    /// `Interrupted` once the caller cancelled, or once an earlier task
    /// failed (its error is the one reported); `TooManyHits` once the workers
    /// hold more than the limit (so that tasks before the one that crossed
    /// it stop too, instead of each adding hits).
    pub fn check(&self) -> Result<(), CoreError> {
        if self.ctl.cancel.load(Relaxed) || self.task_index > self.ctl.first_failed.load(Relaxed) {
            return Err(CoreError::Interrupted);
        }
        if self.ctl.watch.is_some_and(|stop_wanted| stop_wanted()) {
            self.ctl.cancel.store(true, Relaxed);
            return Err(CoreError::Interrupted);
        }
        match self.max_hits {
            Some(limit) if self.ctl.hits.load(Relaxed) > limit => Err(CoreError::TooManyHits { limit }),
            _ => Ok(()),
        }
    }

    /// Count `n` more hits held; `TooManyHits` once all workers together hold
    /// more than the limit (the total only grows, so whether a search fails
    /// does not depend on the thread count).
    pub fn add_hits(&self, n: usize) -> Result<(), CoreError> {
        if n == 0 {
            return Ok(());
        }
        let held = self.ctl.hits.fetch_add(n as u64, Relaxed) + n as u64;
        match self.max_hits {
            Some(limit) if held > limit => Err(CoreError::TooManyHits { limit }),
            _ => Ok(()),
        }
    }
}

