//! Progress bars of long calls, fed from the core's counters. The core calls
//! the binding's poll on R's main thread about every 50 ms while workers
//! search (`engine::POLL_INTERVAL`); the poll checks for Ctrl-C and, at most
//! every [`PROGRESS_INTERVAL`], calls the R callback `fn(done, total)` made
//! by `progress_callback()` (R/progress.R), which updates a cli progress
//! bar. The call runs under `R_ToplevelExec()` (backend.c), so an R error
//! or an interrupt inside it cannot longjmp over Rust frames. Without a
//! callback (`NULL`: progress off, non-interactive) the poll is the interrupt
//! check alone, as before.

use ducksassy_core::Control;
use extendr_api::prelude::*;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

extern "C" {
    /// Defined in backend.c: `fn(done, total)` under R_ToplevelExec; 0
    /// when it completed, 1 after an interrupt, 2 after an R error.
    /// (`f` is a SEXP, passed as a plain pointer: R's SEXPREC is opaque.)
    fn ducksassy_progress(f: *mut c_void, done: f64, total: f64) -> c_int;
}

/// How often the R callback runs at most: often enough for a smooth bar,
/// rarely enough that its cost (tens of microseconds) is not measurable.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_millis(200);

/// The poll of one call: interrupt check plus, when R asked for it, progress.
pub(crate) struct Progress<'a> {
    callback: Option<&'a Robj>,
    last: Option<Instant>,
}

impl<'a> Progress<'a> {
    /// `callback` is an R function, or anything else (`NULL`) for none.
    pub(crate) fn new(callback: &'a Robj) -> Self {
        Progress { callback: callback.is_function().then_some(callback), last: None }
    }

    /// The core's poll: `true` cancels the call (a pending Ctrl-C, or one
    /// consumed by the callback). `counters` reads (done, total) only when
    /// the callback is due; a total of `None` is unknown (R gets `NaN`).
    pub(crate) fn poll(&mut self, counters: impl FnOnce() -> (u64, Option<u64>)) -> bool {
        if crate::interrupt::pending() {
            return true;
        }
        let Some(cb) = self.callback else { return false };
        if self.last.is_some_and(|t| t.elapsed() < PROGRESS_INTERVAL) {
            return false;
        }
        self.last = Some(Instant::now());
        let (done, total) = counters();
        let total = total.map_or(f64::NAN, |t| t as f64);
        // SAFETY: on R's main thread (the core polls from the calling
        // thread); `cb` is a .Call argument, protected for the whole call.
        crate::interrupt::stopped(unsafe { ducksassy_progress(cb.get() as *mut c_void, done as f64, total) })
    }
}

/// Progress of an in-memory search: text bytes searched of the total.
pub(crate) fn bytes_searched(ctl: &Control) -> (u64, Option<u64>) {
    (ctl.done_bytes.load(Relaxed), Some(ctl.total_bytes.load(Relaxed)))
}

/// Progress of a file search: file bytes searched (compressed bytes for
/// compressed files; `Control::file_bytes_searched`, not the bytes read
/// ahead) of the files' sizes (`None` when one is unknown).
pub(crate) fn file_bytes_searched(ctl: &Control, total: Option<u64>) -> (u64, Option<u64>) {
    (ctl.file_bytes_searched(), total)
}

/// The summed size of `paths` on disk, or `None` when one is unknown.
pub(crate) fn files_size(paths: &[String]) -> Option<u64> {
    paths.iter().map(|p| std::fs::metadata(p).ok().filter(|m| m.is_file()).map(|m| m.len())).sum()
}
