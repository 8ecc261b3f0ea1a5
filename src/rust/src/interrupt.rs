//! Why R asked a call to stop. R_CheckUserInterrupt() reports two things:
//! a Ctrl-C (an R interrupt) and a time limit of `setTimeLimit()` (an R
//! error). Both cancel the core's work the same way (`CoreError::
//! Interrupted`), but R must see them as they are: the interrupt as
//! `ducksassy_interrupt` (a condition, not an error), the time limit as an
//! error (`ducksassy_time_limit`) that `try()` and `tryCatch(error = )`
//! catch. The C side (src/backend.c) catches the error as a condition, so
//! R's default handler prints nothing; its message waits here until the
//! call's error value is made (`error.rs`).

use std::cell::RefCell;
use std::ffi::CStr;
use std::os::raw::{c_char, c_int};

extern "C" {
    /// Defined in backend.c: R_CheckUserInterrupt under R_tryCatchError and
    /// R_ToplevelExec. 0 nothing pending, 1 an interrupt, 2 an R error.
    fn ducksassy_check_interrupt() -> c_int;
    /// The message of the R error last reported with 2 (UTF-8).
    fn ducksassy_stop_message() -> *const c_char;
}

thread_local! {
    // only R's main thread polls; the message of this call's R error
    static STOP_ERROR: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether R asks the running call to stop; polled on R's main thread.
pub(crate) fn pending() -> bool {
    // SAFETY: main thread (the core polls from the calling thread)
    stopped(unsafe { ducksassy_check_interrupt() })
}

/// A code of backend.c's `ducksassy_check_interrupt()` or
/// `ducksassy_progress()` as a stop: a 2 keeps R's error message.
pub(crate) fn stopped(code: c_int) -> bool {
    if code == 2 {
        // SAFETY: a NUL-terminated static buffer of backend.c
        let msg = unsafe { CStr::from_ptr(ducksassy_stop_message()) }.to_string_lossy().into_owned();
        STOP_ERROR.with(|e| *e.borrow_mut() = Some(msg));
    }
    code != 0
}

/// Forget a stop reason left by an earlier call (at the start of each call).
pub(crate) fn reset() {
    STOP_ERROR.with(|e| e.borrow_mut().take());
}

/// The message of the R error (a time limit) that stopped this call, if R
/// raised one rather than an interrupt; taken once.
pub(crate) fn take_error() -> Option<String> {
    STOP_ERROR.with(|e| e.borrow_mut().take())
}

// ---- the SQL functions' stop check (ducksassy_sql::StopHook) ----

extern "C" {
    /// R's flag of a Ctrl-C not yet handled (R_ext/GraphicsDevice.h); set
    /// by R's signal handler, cleared when R raises the interrupt.
    static R_interrupts_pending: c_int;
    /// Defined in backend.c: 1 on R's main thread.
    fn ducksassy_on_main_thread() -> c_int;
    /// Defined in backend.c: R's time limits alone, as an error (2).
    fn ducksassy_check_time_limit() -> c_int;
    /// Defined in backend.c: puts a counting SIGINT handler in front of
    /// duckdb's while a query runs; returns the count so far.
    fn ducksassy_sigint_watch() -> std::ffi::c_uint;
    /// Defined in backend.c: SIGINTs counted so far.
    fn ducksassy_sigint_count() -> std::ffi::c_uint;
}

/// How often the main thread asks R about its time limits from inside a
/// query: often enough to stop within a second, rarely enough to cost
/// nothing next to the searches between.
const TIME_LIMIT_INTERVAL: std::time::Duration = std::time::Duration::from_millis(100);

thread_local! {
    /// SIGINTs counted when this thread's chunk began ([`sql_chunk_begins`]).
    static SIGINT_BASELINE: std::cell::Cell<Option<std::ffi::c_uint>> = const { std::cell::Cell::new(None) };
    static LAST_TIME_CHECK: std::cell::Cell<Option<std::time::Instant>> = const { std::cell::Cell::new(None) };
}

/// A chunk of rows begins on this thread: make sure a Ctrl-C during it is
/// counted (duckdb's R package swaps R's SIGINT handler for its own while a
/// query runs, which leaves R's flag unset; backend.c chains a counting one
/// in front) and take the count to compare with.
fn sql_chunk_begins() {
    // SAFETY: sigaction under a mutex and an atomic load (backend.c)
    let seen = unsafe { ducksassy_sigint_watch() };
    SIGINT_BASELINE.with(|b| b.set(Some(seen)));
}

/// Whether a Ctrl-C came since this thread's chunk began.
fn sigint_since_chunk_began() -> bool {
    SIGINT_BASELINE.with(|b| b.get()).is_some_and(|base| {
        // SAFETY: an atomic load (backend.c)
        let now = unsafe { ducksassy_sigint_count() };
        now != base
    })
}

/// Whether a search inside DuckDB must stop: a Ctrl-C during the chunk
/// (counted by backend.c's handler, or R's pending flag when R's handler is
/// in place; either way left for duckdb or R to raise when the query
/// returns) or, on R's main thread, a time limit that passed.
fn sql_stop_wanted() -> bool {
    if sigint_since_chunk_began() {
        return true;
    }
    // SAFETY: a plain int that R's signal handler sets; a racy read is at
    // worst one check late
    if unsafe { std::ptr::read_volatile(&raw const R_interrupts_pending) } != 0 {
        return true;
    }
    // SAFETY: pthread calls only
    if unsafe { ducksassy_on_main_thread() } == 0 {
        return false;
    }
    let due = LAST_TIME_CHECK.with(|t| {
        let now = std::time::Instant::now();
        let due = t.get().is_none_or(|last| now.duration_since(last) >= TIME_LIMIT_INTERVAL);
        if due {
            t.set(Some(now));
        }
        due
    });
    // SAFETY: on R's main thread, under R_ToplevelExec (backend.c)
    due && stopped(unsafe { ducksassy_check_time_limit() })
}

/// Called once by backend.c when the backend is registered (R's main
/// thread): the SQL functions get their stop check.
#[no_mangle]
pub extern "C" fn ducksassy_binding_init() {
    ducksassy_sql::set_stop_hook(ducksassy_sql::StopHook {
        begin: sql_chunk_begins,
        wanted: sql_stop_wanted,
        reason: take_error,
    });
}
