//! Benchmark path (b): the ducksassy core engine (`ducksassy_core::run`)
//! from Rust, without R: plan validation, tasks on the rayon pool, per-worker
//! searchers, columnar hits with CIGARs formatted into one byte buffer, the
//! ordered merge. The same workload as `sassy_direct` (benchmarks/overhead.Rmd).
//!
//! ```text
//! cargo run --release --offline --example engine -- \
//!   --input reads.txt --patterns GACGCTCAGTAATGTGACGA --k 2 \
//!   --alphabet iupac --rc true --threads 1 --mode hits --cigar true \
//!   --reps 5 --warmup 1
//! ```
//! Also `--all-endpoints true` and `--step-trace-blocks N` (see stepwise.rs).
//! Prints one `key=value` line per timed repetition (see common/mod.rs); for
//! `--mode count|contains` the summary's `hits` is the sum of the values.

mod common;
use common::*;
use ducksassy_core::{hits, run, Alphabet, Control, Mode, Output, SearchOptions, SearchPlan};

fn main() {
    let args = Args::parse();
    let texts = read_lines(&args.required("input"));
    let patterns: Vec<Vec<u8>> = args
        .required("patterns")
        .split(',')
        .map(|p| p.as_bytes().to_vec())
        .collect();
    let alphabet =
        Alphabet::parse(&args.str("alphabet", "iupac")).unwrap_or_else(|| die("alphabet must be iupac, dna or ascii"));
    let threads: usize = args.num("threads", 1);
    let opts = SearchOptions {
        k: args.num("k", 0),
        alphabet,
        rc: args.flag("rc", alphabet.is_nucleotide()),
        cigar: args.flag("cigar", true),
        threads,
        mode: Mode::parse(&args.str("mode", "hits")).unwrap_or_else(|e| die(&e.to_string())),
        all_endpoints: args.flag("all-endpoints", false),
        ..Default::default()
    };
    let reps: usize = args.num("reps", 3);
    let warmup: usize = args.num("warmup", 1);
    let pats: Vec<&[u8]> = patterns.iter().map(|p| p.as_slice()).collect();
    let mut plan = SearchPlan::new(&opts, &pats).unwrap_or_else(|e| die(&e.to_string()));
    // patterns whose traceback fills this many DP blocks are traced in
    // steps (stepwise.rs); a huge value keeps sassy's own traceback
    plan.step_trace_blocks = args.num("step-trace-blocks", plan.step_trace_blocks);
    let views: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();

    let (secs, s) = time_reps(warmup, reps, || {
        let ctl = Control::new();
        let out = run(&plan, &views, &ctl, None).unwrap_or_else(|e| die(&e.to_string()));
        // the summary is part of what every path does with its result
        let mut s = Summary::default();
        match out {
            Output::Hits(bufs) => {
                for b in &bufs {
                    for i in 0..b.len() {
                        s.add(b.start[i] as usize, b.cost[i], b.minus[i], b.cigar(i).len());
                    }
                }
                // as the R binding does once it has copied the columns out
                hits::recycle(bufs);
            }
            Output::Best(b) => {
                for h in b.iter().filter_map(|b| b.hit) {
                    s.add(h.start as usize, h.cost, h.minus, 0);
                }
            }
            Output::Values(v) => {
                s.hits = v.iter().map(|&x| x.max(0) as u64).sum();
            }
        }
        s
    });
    print_result(
        &format!("engine_{}", args.str("mode", "hits")),
        threads,
        texts.len(),
        &secs,
        &s,
    );
}
