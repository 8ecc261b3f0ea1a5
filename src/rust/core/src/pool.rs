//! Rayon pools, built once per thread count and kept for the process.

use rayon::{ThreadPool, ThreadPoolBuilder};
use std::sync::{Arc, Mutex};

/// The pools of the process `pid`.
struct Pools {
    pid: u32,
    list: Vec<(usize, Arc<ThreadPool>)>,
}

static POOLS: Mutex<Pools> = Mutex::new(Pools { pid: 0, list: Vec::new() });

/// The pool with `threads` workers, built on first use.
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
    if let Some((_, p)) = pools.list.iter().find(|(n, _)| *n == threads) {
        return Ok(p.clone());
    }
    let pool = ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(move |i| format!("ducksassy-{threads}-{i}"))
        .build()
        .map_err(|e| format!("could not start {threads} worker threads: {e}"))?;
    let pool = Arc::new(pool);
    pools.list.push((threads, pool.clone()));
    Ok(pool)
}

/// Thread counts that have a pool (for tests of reuse).
pub fn sizes() -> Vec<usize> {
    let pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    pools.list.iter().map(|(n, _)| *n).collect()
}
