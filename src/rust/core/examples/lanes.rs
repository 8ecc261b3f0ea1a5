//! Side-by-side CPU time of the strategies for short records (lanes.rs), in
//! one process, on random data generated here: the measurement behind the
//! boundaries in `lanes.rs` (record length, group size, pattern lanes vs
//! text lanes). Not a benchmark for claims: it interleaves the strategies
//! rep by rep so that a shared machine's load hits them alike, and prints
//! ratios.
//!
//! ```text
//! cargo run --release --offline --example lanes -- \
//!   --bytes 20000000 --lengths 50,100,150,300,1000,5000 \
//!   --patterns 1 --k 2 --mode count --hit-frac 0.01 --reps 3
//! ```
//! `--patterns N` searches N random 20-mers (N >= 4 are searched with
//! sassy's pattern tiling by default; this also times them as single
//! patterns in text lanes). `--groups 4,16,64,256` times lane group sizes;
//! `--only lanes,one_text` times only those (the ratio column is then to the
//! first of them).
//! Prints one line per (length, strategy): CPU seconds (min over reps), MB/s
//! of text, and the ratio to the one-by-one engine.

mod common;
use common::*;
use ducksassy_core::options::PatternGroup;
use ducksassy_core::{hits, run, Control, Mode, Output, SearchOptions, SearchPlan};
use rand::{Rng, SeedableRng};

fn random_acgt(r: &mut rand::rngs::StdRng, n: usize) -> Vec<u8> {
    (0..n).map(|_| b"ACGT"[r.random_range(0..4)]).collect()
}

fn cpu(reps: usize, mut f: impl FnMut() -> u64) -> (f64, u64) {
    let mut best = f64::INFINITY;
    let mut v = 0;
    for _ in 0..reps {
        let c = process_cpu_seconds();
        v = std::hint::black_box(f());
        best = best.min(process_cpu_seconds() - c);
    }
    (best, v)
}

fn engine(plan: &SearchPlan, texts: &[Option<&[u8]>]) -> u64 {
    match run(plan, texts, &Control::new(), None).expect("search") {
        Output::Hits(b) => {
            let n = b.iter().map(|b| b.len() as u64).sum();
            hits::recycle(b);
            n
        }
        Output::Values(v) => v.iter().map(|&x| x.max(0) as u64).sum(),
        Output::Best(b) => b.iter().filter(|b| b.hit.is_some()).count() as u64,
    }
}

fn main() {
    let args = Args::parse();
    let bytes: usize = args.num("bytes", 20_000_000);
    let lengths: Vec<usize> = args.str("lengths", "50,100,150,300,1000,5000").split(',').map(|s| s.parse().expect("length")).collect();
    let n_pat: usize = args.num("patterns", 1);
    let k: i64 = args.num("k", 2);
    let mode = Mode::parse(&args.str("mode", "count")).unwrap_or_else(|e| die(&e.to_string()));
    let hit_frac: f64 = args.num("hit-frac", 0.01);
    let reps: usize = args.num("reps", 3);
    let groups: Vec<usize> = args.str("groups", "").split(',').filter(|s| !s.is_empty()).map(|s| s.parse().expect("group")).collect();
    // `--only lanes,one_text`: time just these (and one_by_one, the reference), e.g. under perf
    let only: Vec<String> = args.str("only", "").split(',').filter(|s| !s.is_empty()).map(String::from).collect();
    let mut r = rand::rngs::StdRng::seed_from_u64(12);
    let patterns: Vec<Vec<u8>> = (0..n_pat).map(|_| random_acgt(&mut r, 20)).collect();
    let pats: Vec<&[u8]> = patterns.iter().map(|p| p.as_slice()).collect();
    let opts = SearchOptions { k, mode, rc: true, threads: 1, ..Default::default() };
    println!("len\tstrategy\tcpu_s\tMB_s\tratio_to_one_by_one\tvalue");
    for &len in &lengths {
        let n = (bytes / len).max(1);
        let reads: Vec<Vec<u8>> = (0..n)
            .map(|_| {
                let mut t = random_acgt(&mut r, len);
                if r.random_bool(hit_frac) && len >= 20 {
                    let at = r.random_range(0..=len - 20);
                    t[at..at + 20].copy_from_slice(&patterns[r.random_range(0..n_pat)]);
                }
                t
            })
            .collect();
        let views: Vec<Option<&[u8]>> = reads.iter().map(|t| Some(t.as_slice())).collect();
        let pasted: Vec<u8> = reads.concat();
        let one: Vec<Option<&[u8]>> = vec![Some(&pasted)];
        let mut plan_on = SearchPlan::new(&SearchOptions { text_lanes: Some(true), ..opts.clone() }, &pats).unwrap();
        plan_on.lane_max_len = usize::MAX;
        let plan_off = SearchPlan::new(&SearchOptions { text_lanes: Some(false), ..opts.clone() }, &pats).unwrap();
        // pattern groups as single patterns: text lanes instead of pattern tiling
        let mut plan_single = plan_on.clone();
        plan_single.groups = (0..n_pat).map(PatternGroup::Single).collect();
        let mut strategies: Vec<(String, SearchPlan, bool)> = vec![
            ("one_by_one".into(), plan_off.clone(), false),
            ("lanes".into(), plan_on.clone(), false),
            ("one_text".into(), plan_off.clone(), true),
        ];
        // the other choice of the plan's pattern groups, on joined records:
        // pattern tiling from 4 equal-length patterns (as without lanes), or
        // every pattern alone (lanes.rs, JOINED_BATCH_MIN_PATTERNS)
        let batched = |p: &SearchPlan| p.groups.iter().any(|g| matches!(g, PatternGroup::Batch(_)));
        if batched(&plan_off) && plan_off.groups.len() != plan_on.groups.len() {
            let mut tiled = plan_on.clone();
            tiled.groups = plan_off.groups.clone();
            strategies.push(("lanes_tiling".into(), tiled, false));
        }
        if batched(&plan_on) {
            strategies.push(("lanes_no_tiling".into(), plan_single.clone(), false));
        }
        if batched(&plan_off) {
            let mut off_single = plan_off.clone();
            off_single.groups = plan_single.groups.clone();
            strategies.push(("one_by_one_no_tiling".into(), off_single, false));
        }
        for &g in &groups {
            let mut p = plan_on.clone();
            p.lane_group = g;
            strategies.push((format!("lanes_group_{g}"), p, false));
        }
        if !only.is_empty() {
            strategies.retain(|(name, _, _)| only.iter().any(|o| o == name));
        }
        let mut best = vec![f64::INFINITY; strategies.len()];
        let mut vals = vec![0u64; strategies.len()];
        for _ in 0..reps {
            for (i, (_, plan, pasted)) in strategies.iter().enumerate() {
                let (s, v) = cpu(1, || engine(plan, if *pasted { &one } else { &views }));
                best[i] = best[i].min(s);
                vals[i] = v;
            }
        }
        for (i, (name, _, _)) in strategies.iter().enumerate() {
            println!("{len}\t{name}\t{:.3}\t{:.1}\t{:.3}\t{}", best[i], (n * len) as f64 / 1e6 / best[i], best[i] / best[0], vals[i]);
        }
    }
}
