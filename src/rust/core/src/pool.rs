//! Rayon pools, built once per thread count and kept for the process.

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::{Arc, Mutex};

static POOLS: Mutex<Vec<(usize, Arc<ThreadPool>)>> = Mutex::new(Vec::new());

/// The pool with `threads` workers, built on first use.
pub fn get(threads: usize) -> Result<Arc<ThreadPool>, String> {
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("ducksassy-{threads}-{i}"))
        .build()
        .map_err(|e| format!("could not start {threads} worker threads: {e}"))?;
    let pool = Arc::new(pool);
    pools.push((threads, pool.clone()));
    Ok(pool)
}

/// Thread counts that have a pool (for tests of reuse).
pub fn sizes() -> Vec<usize> {
    let pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.iter().map(|(n, _)| *n).collect()
}
