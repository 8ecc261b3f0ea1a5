//! Rayon pools, built once per thread count and reused across calls.
//!
//! A pool's threads keep their per-thread search state (`worker.rs`), so the
//! pools of the thread counts in use are kept. Only a few: a session that
//! tries many `threads` values (a loop over 1..64, say) would otherwise hold
//! every pool's threads until it ends, thousands of idle OS threads. The
//! least recently used pool beyond [`MAX_POOLS`] is dropped; rayon ends its
//! threads once the last search still holding it has finished.

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::{Arc, Mutex};

/// Pools kept at once.
pub const MAX_POOLS: usize = 4;

/// The pools of the process `pid`, most recently used last.
struct Pools {
    pid: u32,
    list: Vec<(usize, Arc<ThreadPool>)>,
}

static POOLS: Mutex<Pools> = Mutex::new(Pools { pid: 0, list: Vec::new() });

/// The pool with `threads` workers, built on first use (or again after it
/// was dropped). Starting the threads can fail (the system's limit on
/// threads or memory): that is an error, never a panic.
///
/// A forked child (R's `parallel::mclapply()`, BiocParallel's
/// `MulticoreParam()`) inherits the parent's pools but not their threads:
/// a job sent to them would wait forever. So the pools are per process id;
/// the inherited ones are forgotten (dropping one would signal threads that
/// are not there) and the child builds its own.
pub fn get(threads: usize) -> Result<Arc<ThreadPool>, String> {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    let pid = std::process::id();
    if pools.pid != pid {
        for p in pools.list.drain(..) {
            std::mem::forget(p);
        }
        pools.pid = pid;
    }
    if let Some(i) = pools.list.iter().position(|(n, _)| *n == threads) {
        let entry = pools.list.remove(i);
        let pool = entry.1.clone();
        pools.list.push(entry);
        return Ok(pool);
    }
    // drop the least recently used first, so its threads can go before new
    // ones start
    while pools.list.len() >= MAX_POOLS {
        pools.list.remove(0);
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("ducksassy-{threads}-{i}"))
        .build()
        .map_err(|e| format!("could not start {threads} worker threads ({e}); use fewer `threads`"))?;
    let pool = Arc::new(pool);
    pools.list.push((threads, pool.clone()));
    Ok(pool)
}

/// Thread counts that have a pool in this process, least recently used
/// first (for tests).
pub fn sizes() -> Vec<usize> {
    let pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if pools.pid != std::process::id() {
        return Vec::new();
    }
    pools.list.iter().map(|(n, _)| *n).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_most_recently_used_pools_are_kept() {
        // thread counts no other test uses; other tests may build pools at
        // the same time, which only makes older pools go sooner
        for t in 101..=(100 + MAX_POOLS + 2) {
            assert_eq!(get(t).unwrap().current_num_threads(), t);
            assert!(sizes().len() <= MAX_POOLS);
            assert!(sizes().contains(&t));
        }
        assert!(!sizes().contains(&101) && !sizes().contains(&102), "{:?}", sizes());
        // a pool in use is reused, the same pool
        let p = get(100 + MAX_POOLS + 2).unwrap();
        assert!(Arc::ptr_eq(&p, &get(100 + MAX_POOLS + 2).unwrap()));
    }
}
