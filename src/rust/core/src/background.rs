//! A search that runs in the background while the caller does something
//! else (R fetching the next chunk of a table), then is waited for.
//!
//! [`Job::spawn`] starts [`crate::engine::run`] on a helper thread (which
//! hands the work to the rayon pool) and returns at once. [`Job::wait`]
//! blocks, polling the caller's interrupt check, and returns the output.
//! Dropping a job that has not been waited for cancels it and joins the
//! helper thread, so when `drop` returns no thread of the job is running and
//! nothing reads the texts any more. That is the whole safety contract for
//! the borrowed texts: they must outlive the `Job` value.

use crate::engine::{interrupted_wins, run, Control, Output, POLL_INTERVAL};
use crate::error::CoreError;
use crate::options::SearchPlan;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;

/// Jobs spawned and not yet joined (for tests: none may be left behind).
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// Number of background jobs whose helper thread has not been joined.
pub fn live_jobs() -> usize {
    LIVE.load(Ordering::SeqCst)
}

type Outcome = Result<Output, CoreError>;

/// A running background search; see the module docs.
pub struct Job {
    ctl: Arc<Control>,
    done: mpsc::Receiver<()>,
    handle: Option<JoinHandle<Outcome>>,
}

impl Job {
    /// Start searching `texts` as `plan` says.
    ///
    /// The texts are `'static` here because they cross to another thread;
    /// a caller that borrows them from memory it owns (R strings, an Arrow
    /// batch) must keep that memory alive until the job is waited for or
    /// dropped, both of which join the thread.
    pub fn spawn(plan: Arc<SearchPlan>, texts: Vec<Option<&'static [u8]>>) -> Result<Job, CoreError> {
        let ctl = Arc::new(Control::new());
        let (tx, done) = mpsc::channel();
        let worker_ctl = ctl.clone();
        let handle = std::thread::Builder::new()
            .name("ducksassy-table".into())
            .spawn(move || {
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run(&plan, &texts, &worker_ctl, None)
                }))
                .unwrap_or_else(|p| Err(CoreError::Internal(panic_message(p))));
                let _ = tx.send(());
                r
            })
            .map_err(|e| CoreError::Internal(format!("could not start the background search thread: {e}")))?;
        LIVE.fetch_add(1, Ordering::SeqCst);
        Ok(Job { ctl, done, handle: Some(handle) })
    }

    /// Ask the search to stop (each worker checks once per record).
    pub fn cancel(&self) {
        self.ctl.cancel.store(true, Ordering::Relaxed);
    }

    /// Wait for the output. `poll` is called every [`POLL_INTERVAL`] while
    /// the search runs; when it returns `true` the search is cancelled (and
    /// then reports [`CoreError::Interrupted`]).
    pub fn wait(mut self, poll: &mut dyn FnMut() -> bool) -> Outcome {
        let mut interrupted = false;
        loop {
            match self.done.recv_timeout(POLL_INTERVAL) {
                Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if !self.ctl.cancel.load(Ordering::Relaxed) && poll() {
                        interrupted = true;
                        self.cancel();
                    }
                }
            }
        }
        let out = self.join().unwrap_or_else(|| Err(CoreError::Internal("the background search was already collected".into())));
        interrupted_wins(interrupted, out)
    }

    /// Join the helper thread once; `None` if it was joined before.
    fn join(&mut self) -> Option<Outcome> {
        let h = self.handle.take()?;
        let r = h.join().unwrap_or_else(|p| Err(CoreError::Internal(panic_message(p))));
        LIVE.fetch_sub(1, Ordering::SeqCst);
        Some(r)
    }
}

impl Drop for Job {
    /// Cancel and join: after this nothing of the job reads the texts.
    fn drop(&mut self) {
        if self.handle.is_some() {
            self.cancel();
            if let Some(Ok(Output::Hits(bufs))) = self.join() {
                crate::hits::recycle(bufs);
            }
        }
    }
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the background search panicked".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{Mode, SearchOptions};
    use std::sync::Mutex;

    /// The tests that count live jobs run one at a time.
    static SERIAL: Mutex<()> = Mutex::new(());

    fn plan(mode: Mode) -> Arc<SearchPlan> {
        let opts = SearchOptions { k: 1, threads: 2, mode, ..Default::default() };
        Arc::new(SearchPlan::new(&opts, &[b"ACGTAC".as_slice()]).unwrap())
    }

    fn texts(n: usize) -> Vec<Option<&'static [u8]>> {
        // one text for every test, held by a static (not leaked: memcheck
        // counts a leaked box as a definite leak)
        static TEXT: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
        let s: &'static [u8] = TEXT.get_or_init(|| b"TTACGTACTTTTACGAACTTTTGTACGTTT".repeat(50));
        (0..n).map(|i| if i % 7 == 3 { None } else { Some(s) }).collect()
    }

    fn values(o: Outcome) -> Vec<i32> {
        match o.unwrap() {
            Output::Values(v) => v,
            Output::Hits(_) | Output::Best(_) => panic!("hits"),
        }
    }

    #[test]
    fn an_interrupt_the_poll_consumed_is_never_lost() {
        let ok = || Ok(Output::Values(vec![1, 2]));
        assert!(matches!(interrupted_wins(true, ok()), Err(CoreError::Interrupted)));
        assert!(matches!(interrupted_wins(false, ok()), Ok(Output::Values(v)) if v == vec![1, 2]));
        let hits = Ok(Output::Hits(vec![crate::hits::take_buffer()]));
        assert!(matches!(interrupted_wins(true, hits), Err(CoreError::Interrupted)));
        let failed = Err(CoreError::TooManyHits { limit: 3 });
        assert!(matches!(interrupted_wins(true, failed), Err(CoreError::TooManyHits { limit: 3 })));
    }

    #[test]
    fn background_equals_foreground() {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let p = plan(Mode::Count);
        let t = texts(500);
        let direct = values(run(&p, &t, &Control::new(), None));
        let job = Job::spawn(p.clone(), t.clone()).unwrap();
        let bg = values(job.wait(&mut || false));
        assert_eq!(direct, bg);
        assert!(direct.iter().any(|&v| v > 0));
    }

    #[test]
    fn drop_cancels_and_joins() {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let before = live_jobs();
        let job = Job::spawn(plan(Mode::Hits), texts(20_000)).unwrap();
        drop(job);
        assert_eq!(live_jobs(), before);
    }

    #[test]
    fn poll_cancels() {
        let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let job = Job::spawn(plan(Mode::Hits), texts(200_000)).unwrap();
        let r = job.wait(&mut || true);
        // cancelled before the end, or finished before the first poll
        assert!(matches!(r, Err(CoreError::Interrupted) | Ok(_)));
    }
}
