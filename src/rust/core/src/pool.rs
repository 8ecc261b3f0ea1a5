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

/// Most recently used last.
static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// The pool with `threads` workers, built on first use (or again after it
/// was dropped). Starting the threads can fail (the system's limit on
/// threads or memory): that is an error, never a panic.
pub fn get(threads: usize) -> Result<Arc<ThreadPool>, String> {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(i) = pools.iter().position(|(n, _)| *n == threads) {
        let entry = pools.remove(i);
        let pool = entry.1.clone();
        pools.push(entry);
        return Ok(pool);
    }
    // drop the least recently used first, so its threads can go before new
    // ones start
    while pools.len() >= MAX_POOLS {
        pools.remove(0);
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("ducksassy-{threads}-{i}"))
        .build()
        .map_err(|e| format!("could not start {threads} worker threads ({e}); use fewer `threads`"))?;
    let pool = Arc::new(pool);
    pools.push((threads, pool.clone()));
    Ok(pool)
}

/// Thread counts that have a pool, least recently used first (for tests).
pub fn sizes() -> Vec<usize> {
    let pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.iter().map(|(n, _)| *n).collect()
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
