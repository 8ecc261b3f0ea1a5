//! Background search of one table chunk, so that R fetches the next chunk
//! while this one is searched (`sassy_search_table()`, R/table.R).
//!
//! `ds_table_submit()` takes the chunk's sequences, either
//!
//! * an Arrow batch (a `nanoarrow_array` external pointer holding a
//!   `struct ArrowArray*`, DuckDB's Arrow stream) and the index and format of
//!   its sequence column: the bytes are read in place from the Arrow buffers,
//!   no R strings are made; or
//! * a character vector (`dbFetch()` of other drivers): the CHARSXPs' bytes
//!   are borrowed, as `ds_search()` does,
//!
//! starts the search in the background and returns a job handle (an
//! external pointer) at once. `ds_table_collect()` waits for the job,
//! polling R interrupts, and returns what `ds_search()` would;
//! `ds_table_cancel()` stops it.
//!
//! Lifetimes. Worker threads read memory that R or the Arrow producer owns,
//! so the job keeps it alive and never outlives it:
//!
//! * the Arrow batch is *moved* into the job (the C data interface's move:
//!   the R object's struct is marked released), so only the job can release
//!   it, and it does so after joining the search (field order of
//!   [`Running`] and its `Drop`), on R's main thread (collect, cancel, or the
//!   external pointer's finalizer; `OwnedArray` is not `Send`);
//! * a character vector is stored in the external pointer's `prot` slot, so
//!   its CHARSXPs (immutable, never moved by R's GC) stay reachable while
//!   the handle is, and during its finalizer;
//! * dropping a job that was not collected cancels and joins it
//!   (`ducksassy_core::background::Job`'s `Drop`), so an R error or
//!   interrupt between submit and collect (R cancels in `on.exit()`), or a
//!   handle that is simply garbage collected, never leaves a thread reading
//!   freed memory.
//!
//! No R API is called off the main thread: the search thread only reads
//! byte slices; all R values are made here, on the main thread.

use crate::{error_value, guard, output_to_r, release_memory};
use ducksassy_core::arrow::{string_views, ArrowArray, OwnedArray, StringLayout};
use ducksassy_core::background::{live_jobs, Job};
use ducksassy_core::{CoreError, SearchPlan};
use extendr_api::prelude::*;
use extendr_ffi as ffi;
use std::cell::RefCell;
use std::sync::Arc;

/// The job behind a handle; `None` once collected or cancelled.
struct TableJob {
    state: RefCell<Option<Running>>,
}

struct Running {
    /// Dropped first: cancels and joins the search.
    job: Option<Job>,
    /// Dropped after the join: releases the Arrow batch the search read.
    array: Option<OwnedArray>,
    plan: Arc<SearchPlan>,
    /// An assignment's margin (`plan::margin`).
    margin: i32,
}

impl Drop for Running {
    fn drop(&mut self) {
        // explicit, not left to field order: join, then release. This may
        // run in the handle's finalizer (an extern "C" function), where a
        // panic would abort R: contain it (neither step is known to panic).
        // If the join failed, the search may still read the batch: leak it.
        let (job, array) = (self.job.take(), self.array.take());
        let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(job))).is_ok();
        if joined {
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(array)));
        } else {
            std::mem::forget(array);
        }
    }
}

/// Start searching a chunk in the background; see the module docs. `seq` is
/// a `nanoarrow_array` (then `column` is the 1-based index of the sequence
/// column in the batch and `format` its Arrow format) or a character vector
/// (then `column` and `format` are ignored); `plan` a `ducksassy_plan`
/// (R/plan.R). Returns the job handle, or an
/// error value of class `ducksassy_rust_error` as `ds_search()` does.
#[extendr]
fn ds_table_submit(seq: Robj, column: i32, format: &str, plan: Robj) -> Robj {
    guard(|| {
        let margin = match crate::plan::margin(&plan) {
            Ok(m) => m,
            Err(e) => return error_value(&e),
        };
        let plan = match crate::plan::search_plan(&plan) {
            Ok(p) => Arc::new(p),
            Err(e) => return error_value(&e),
        };
        let started = match unsafe { ffi::TYPEOF(seq.get()) } {
            ffi::SEXPTYPE::EXTPTRSXP if seq.inherits("nanoarrow_array") => submit_arrow(&seq, column, format, plan, margin),
            ffi::SEXPTYPE::STRSXP => submit_strings(&seq, plan, margin),
            _ => Err(CoreError::Internal("ds_table_submit() needs a nanoarrow_array or a character vector".into())),
        };
        started.unwrap_or_else(|e| error_value(&e))
    })
}

/// Wait for a job (polling R interrupts) and return its result as
/// `ds_search()` does. The batch it read is released before this returns.
#[extendr]
fn ds_table_collect(handle: Robj) -> Robj {
    guard(|| {
        let Some(mut running) = take_running(&handle) else {
            return error_value(&CoreError::Internal("the table search job was already collected".into()));
        };
        let (plan, margin) = (running.plan.clone(), running.margin);
        let job = running.job.take().expect("a running job has its search");
        let mut poll = || crate::interrupt::pending();
        let out = job.wait(&mut poll);
        drop(running);
        // only now: polling may have run R code (and the GC) meanwhile
        clear_prot(&handle);
        match out {
            Ok(out) => output_to_r(out, &plan, margin),
            Err(e) => {
                if matches!(e, CoreError::Interrupted | CoreError::TooManyHits { .. }) {
                    release_memory();
                }
                error_value(&e)
            }
        }
    })
}

/// Cancel a job and wait for its threads to stop (well under a second:
/// workers check once per record); a no-op if it was collected. Returns
/// `TRUE` if there was a job to cancel.
#[extendr]
fn ds_table_cancel(handle: Robj) -> Robj {
    guard(|| {
        let had = take_running(&handle).map(|r| {
            if let Some(j) = &r.job {
                j.cancel();
            }
            drop(r);
            clear_prot(&handle);
        });
        Robj::from(had.is_some())
    })
}

/// Background jobs not yet joined (tests check that none is left behind).
#[extendr]
fn ds_table_live_jobs() -> i32 {
    live_jobs() as i32
}

/// Take the job out of its handle; `None` if there is none. The handle
/// keeps the chunk's R strings until [`clear_prot`], after the join.
fn take_running(handle: &Robj) -> Option<Running> {
    let ptr = <&ExternalPtr<TableJob>>::try_from(handle).ok()?;
    let running = ptr.try_addr().ok()?.state.borrow_mut().take();
    running
}

/// Drop the handle's reference to the chunk's R strings (the job is joined).
fn clear_prot(handle: &Robj) {
    if handle.is_external_pointer() {
        // SAFETY: main thread, an external pointer
        unsafe { ffi::R_SetExternalPtrProtected(handle.get(), ffi::R_NilValue) };
    }
}

fn new_handle(running: Running, prot: &Robj) -> Robj {
    let ptr = ExternalPtr::new(TableJob { state: RefCell::new(Some(running)) });
    let robj: Robj = ptr.into();
    // SAFETY: main thread; keeps `prot` reachable while the handle is
    unsafe { ffi::R_SetExternalPtrProtected(robj.get(), prot.get()) };
    robj
}

/// The Arrow path: move the batch into the job, view its sequence column.
fn submit_arrow(seq: &Robj, column: i32, format: &str, plan: Arc<SearchPlan>, margin: i32) -> Result<Robj, CoreError> {
    let layout = StringLayout::parse(format)
        .ok_or_else(|| CoreError::Internal(format!("ds_table_submit(): unsupported Arrow format \"{format}\"")))?;
    // SAFETY: a nanoarrow_array external pointer holds a `struct ArrowArray*`
    // (R/table-read.R only passes those); `take` checks it is not released.
    let owned = unsafe {
        let ptr = ffi::R_ExternalPtrAddr(seq.get()) as *mut ArrowArray;
        OwnedArray::take(ptr)
    }
    .map_err(arrow_error)?;
    let batch = owned.get();
    let col = owned.child((column.max(1) - 1) as usize).map_err(arrow_error)?;
    // a struct array's offset applies to its children
    let views = unsafe { string_views(col, layout, batch.offset as usize, batch.length as usize) }.map_err(arrow_error)?;
    // SAFETY (the 'static): the views point into buffers that `owned` keeps
    // alive; `Running` drops (joins) the job before it releases `owned`.
    let views: Vec<Option<&'static [u8]>> = unsafe { std::mem::transmute(views) };
    let job = Job::spawn(plan.clone(), views)?;
    Ok(new_handle(Running { job: Some(job), array: Some(owned), plan, margin }, &Robj::from(())))
}

fn arrow_error(msg: String) -> CoreError {
    CoreError::Internal(format!("reading an Arrow batch: {msg}"))
}

/// The character vector path: borrow the CHARSXPs, keep the vector in the
/// handle. An ALTREP vector is first copied into an ordinary one, whose
/// elements are real CHARSXPs that the copy holds.
fn submit_strings(seq: &Robj, plan: Arc<SearchPlan>, margin: i32) -> Result<Robj, CoreError> {
    let keep = unsafe {
        if ffi::ALTREP(seq.get()) != 0 {
            let n = ffi::Rf_xlength(seq.get());
            let copy = Robj::from_sexp(ffi::Rf_allocVector(ffi::SEXPTYPE::STRSXP, n));
            for i in 0..n {
                ffi::SET_STRING_ELT(copy.get(), i, ffi::STRING_ELT(seq.get(), i));
            }
            copy
        } else {
            seq.clone()
        }
    };
    let views = crate::borrow_strings(&keep, "texts")?;
    // SAFETY (the 'static): the CHARSXPs are held by `keep`, which the
    // handle's prot slot keeps reachable until the job is taken out and
    // joined (collect, cancel, finalizer), and R never moves or changes them.
    let views: Vec<Option<&'static [u8]>> = unsafe { std::mem::transmute(views) };
    let job = Job::spawn(plan.clone(), views)?;
    Ok(new_handle(Running { job: Some(job), array: None, plan, margin }, &keep))
}

extendr_module! {
    mod arrow;
    fn ds_table_submit;
    fn ds_table_collect;
    fn ds_table_cancel;
    fn ds_table_live_jobs;
}
