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
}

impl Control {
    pub fn new() -> Self {
        Control { first_failed: AtomicUsize::new(usize::MAX), ..Default::default() }
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

