//! SIGTERM during a run that writes files (demultiplexing, filter): handled
//! like an interrupt, then passed on (src/backend.c). A batch scheduler's
//! SIGTERM at a time limit then leaves no temporary files behind.

use std::os::raw::c_int;

extern "C" {
    fn ducksassy_sigterm_begin();
    fn ducksassy_sigterm_pending() -> c_int;
    fn ducksassy_sigterm_end();
    fn ducksassy_sigterm_end_deferred() -> c_int;
}

/// While it lives, a SIGTERM is only noted ([`pending`]); when it is
/// dropped (after the run's outputs are), the previous handler is back and
/// a noted SIGTERM is raised again.
pub(crate) struct SigtermWatch(());

impl SigtermWatch {
    pub(crate) fn begin() -> Self {
        // SAFETY: R's main thread (a .Call); backend.c keeps the state
        unsafe { ducksassy_sigterm_begin() };
        SigtermWatch(())
    }

    /// End the watch without raising a noted SIGTERM: whether one came
    /// (the caller raises it again, once its own cleanup is done).
    pub(crate) fn end_deferred(self) -> bool {
        std::mem::forget(self);
        // SAFETY: R's main thread; backend.c keeps the state
        unsafe { ducksassy_sigterm_end_deferred() != 0 }
    }

    /// Whether a SIGTERM arrived since [`SigtermWatch::begin`].
    pub(crate) fn pending(&self) -> bool {
        // SAFETY: reads a sig_atomic_t flag
        unsafe { ducksassy_sigterm_pending() != 0 }
    }
}

impl Drop for SigtermWatch {
    fn drop(&mut self) {
        // SAFETY: R's main thread; may end the process (the signal's
        // default action), as the sender asked
        unsafe { ducksassy_sigterm_end() };
    }
}
