//! Allocations per record of the core engine in steady state
//! (benchmarks/memory.Rmd).
//!
//! A counting `#[global_allocator]` wraps the system allocator and counts
//! every `alloc`/`alloc_zeroed`/`realloc` call on every thread. The engine
//! (`ducksassy_core::run`, the path `sassy_search()` takes below R) searches
//! random DNA records that contain no hit of the pattern, after a warm-up
//! call that builds the thread pool, the per-worker searchers and buffers.
//! Each measured call is made on N and on 2N records: the difference divided
//! by N is the allocations per record (what grows with the input), the rest
//! is the fixed cost of a call (task list, per-task outputs, merge). Then the
//! same with records that each carry one hit, per hit.
//!
//! ```text
//! cargo run --release --offline --example alloc_count -- \
//!   --records 20000 --length 256 --threads 1,2 --trace 3
//! ```
//! `--trace R` records the call stack of every allocation of one call on R
//! records and prints the stacks seen at least R times (the per-record
//! sources), when there are allocations per record. Prints one `key=value`
//! line per (mode, threads, workload).

mod common;
use common::*;
use ducksassy_core::{hits, run, Control, Mode, Output, SearchOptions, SearchPlan};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

struct Counting;

static ALLOCS: AtomicU64 = AtomicU64::new(0);
static BYTES: AtomicU64 = AtomicU64::new(0);
/// While set, the first `TRACE_LEFT` allocations record their call stacks.
static TRACING: AtomicBool = AtomicBool::new(false);
static TRACE_LEFT: AtomicUsize = AtomicUsize::new(0);
static TRACES: Mutex<Vec<String>> = Mutex::new(Vec::new());

thread_local! {
    static IN_HOOK: Cell<bool> = const { Cell::new(false) };
}

fn note(size: usize) {
    ALLOCS.fetch_add(1, Relaxed);
    BYTES.fetch_add(size as u64, Relaxed);
    if TRACING.load(Relaxed) && TRACE_LEFT.load(Relaxed) > 0 {
        // the backtrace allocates: do not trace the tracer
        let _ = IN_HOOK.try_with(|h| {
            if !h.get() {
                h.set(true);
                if TRACE_LEFT.fetch_sub(1, Relaxed) > 0 {
                    let bt = std::backtrace::Backtrace::force_capture().to_string();
                    if let Ok(mut t) = TRACES.lock() {
                        t.push(bt);
                    }
                }
                h.set(false);
            }
        });
    }
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        note(l.size());
        System.alloc(l)
    }
    unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
        note(l.size());
        System.alloc_zeroed(l)
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        note(new);
        System.realloc(p, l, new)
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        System.dealloc(p, l)
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// xorshift64*: a fixed, dependency-free random sequence.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn dna(&mut self, n: usize) -> Vec<u8> {
        (0..n)
            .map(|_| b"ACGT"[(self.next() >> 62) as usize])
            .collect()
    }
}

/// Allocations (calls, bytes) made by one `run` of `plan` on `texts`, and
/// the hits or summed values it returned.
fn measure(plan: &SearchPlan, texts: &[Vec<u8>]) -> (u64, u64, u64) {
    let views: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
    let ctl = Control::new();
    let (a0, b0) = (ALLOCS.load(Relaxed), BYTES.load(Relaxed));
    let out = run(plan, &views, &ctl, None).unwrap_or_else(|e| die(&e.to_string()));
    let (a1, b1) = (ALLOCS.load(Relaxed), BYTES.load(Relaxed));
    let n = match out {
        Output::Hits(bufs) => {
            let n = bufs.iter().map(|b| b.len() as u64).sum();
            hits::recycle(bufs);
            n
        }
        Output::Values(v) => v.iter().map(|&x| x.max(0) as u64).sum(),
        Output::Best(b) => b.iter().filter(|b| b.hit.is_some()).count() as u64,
    };
    drop(views);
    (a1 - a0, b1 - b0, n)
}

/// The frames of a backtrace between the allocator and the engine, innermost
/// first, joined by " < ": where an allocation comes from.
fn short_stack(bt: &str) -> String {
    let frames: Vec<&str> = bt
        .lines()
        .filter_map(|l| l.trim().split_once(": ").map(|(_, f)| f))
        .filter(|f| {
            !f.starts_with("alloc_count::")
                && !f.starts_with("std::")
                && !f.starts_with("<alloc_count::")
                && !f.starts_with("__rust")
                && !f.starts_with("core::")
                && !f.contains("alloc::alloc::")
                && !f.contains("raw_vec")
        })
        .collect();
    let end = frames
        .iter()
        .position(|f| f.starts_with("ducksassy_core::engine"))
        .map_or(frames.len(), |i| i + 1);
    frames[..end.min(6)]
        .iter()
        .map(|f| f.split("::h").next().unwrap_or(f))
        .collect::<Vec<_>>()
        .join(" < ")
}

fn main() {
    let args = Args::parse();
    let n: usize = args.num("records", 20_000);
    let len: usize = args.num("length", 256);
    let k: i64 = args.num("k", 2);
    let pattern = args.str("pattern", "GACGCTCAGTAATGTGACGA").into_bytes();
    let trace: usize = args.num("trace", 0);
    let threads: Vec<usize> = args
        .str("threads", "1,2")
        .split(',')
        .map(|t| {
            t.parse()
                .unwrap_or_else(|_| die("--threads: a comma-separated list of numbers"))
        })
        .collect();

    // records without hits: random DNA, checked below (the engine reports
    // the hits it finds; a random 20-mer at k = 2 is rarely there)
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let clean: Vec<Vec<u8>> = (0..2 * n).map(|_| rng.dna(len)).collect();
    // records with exactly one planted copy of the pattern each
    let planted: Vec<Vec<u8>> = clean
        .iter()
        .map(|t| {
            let mut t = t.clone();
            let at = (rng.next() as usize) % (len - pattern.len());
            t[at..at + pattern.len()].copy_from_slice(&pattern);
            t
        })
        .collect();

    for &t in &threads {
        for mode in [Mode::Hits, Mode::Count, Mode::Contains] {
            let opts = SearchOptions {
                k,
                threads: t,
                mode,
                ..Default::default()
            };
            let plan = SearchPlan::new(&opts, &[pattern.as_slice()])
                .unwrap_or_else(|e| die(&e.to_string()));
            for (workload, texts) in [("no_hits", &clean), ("one_hit_each", &planted)] {
                if workload == "one_hit_each" && mode != Mode::Hits {
                    continue;
                }
                // warm-up: pool, worker searchers, spare hit buffers
                for _ in 0..3 {
                    measure(&plan, &texts[..2 * n]);
                }
                let (a1, b1, h1) = measure(&plan, &texts[..n]);
                let (a2, b2, h2) = measure(&plan, &texts[..2 * n]);
                let per_record = (a2 as f64 - a1 as f64) / n as f64;
                let per_hit = if h2 > h1 {
                    (a2 as f64 - a1 as f64) / (h2 - h1) as f64
                } else {
                    f64::NAN
                };
                println!(
                    "mode={} threads={t} workload={workload} records_n={n} records_2n={} allocs_n={a1} allocs_2n={a2} bytes_n={b1} bytes_2n={b2} hits_n={h1} hits_2n={h2} allocs_per_record={per_record:.4} allocs_per_hit={per_hit:.4} fixed_allocs_per_call={:.1}",
                    format!("{mode:?}").to_lowercase(),
                    2 * n,
                    a1 as f64 - per_record * n as f64,
                );
                if trace > 0 && t == threads[0] && per_record > 0.0 {
                    // call stacks of every allocation of one call on `trace`
                    // records, grouped: those seen about once per record (or
                    // per hit) are the per-record sources
                    TRACES.lock().unwrap().clear();
                    TRACE_LEFT.store(usize::MAX, Relaxed);
                    let some = &texts[..trace];
                    TRACING.store(true, Relaxed);
                    measure(&plan, some);
                    TRACING.store(false, Relaxed);
                    let mut groups: std::collections::BTreeMap<String, usize> = Default::default();
                    for s in TRACES.lock().unwrap().iter() {
                        *groups.entry(short_stack(s)).or_default() += 1;
                    }
                    let mut groups: Vec<_> = groups.into_iter().collect();
                    groups.sort_by_key(|g| std::cmp::Reverse(g.1));
                    for (stack, count) in groups.iter().filter(|(_, c)| *c >= trace) {
                        println!(
                            "source mode={} threads={t} workload={workload} records={trace} allocs={count} per_record={:.2} stack={stack}",
                            format!("{mode:?}").to_lowercase(),
                            *count as f64 / trace as f64
                        );
                    }
                }
            }
        }
    }
}
