//! Side-by-side CPU time of the switchable strategies (text lanes,
//! `lanes.rs`; the reverse-strand filter, `rc_filter.rs`) on and off, in one
//! process, on ONT-like data generated here (a barcode near the start of a
//! read and its reverse complement near the end, 0-3 edits each): the quick
//! check behind benchmarks/strategies.Rmd, which times the same panel from
//! R. It interleaves the configurations rep by rep so that a shared
//! machine's load hits them alike, prints the minimum CPU seconds per
//! configuration and the ratio to all strategies off, and stops if any
//! configuration gives other hits.
//!
//! ```text
//! cargo run --release --offline --example strategies -- \
//!   --short 20000 --long 3000 --patterns 1,96 --k 3 --reps 5
//! ```

mod common;
use common::*;
use ducksassy_core::{run, Control, Output, SearchOptions, SearchPlan};
use rand::{Rng, SeedableRng};

fn random_acgt(r: &mut rand::rngs::StdRng, n: usize) -> Vec<u8> {
    (0..n).map(|_| b"ACGT"[r.random_range(0..4)]).collect()
}

fn revcomp(p: &[u8]) -> Vec<u8> {
    p.iter()
        .rev()
        .map(|&c| match c {
            b'A' => b'T',
            b'C' => b'G',
            b'G' => b'C',
            _ => b'A',
        })
        .collect()
}

fn edited(r: &mut rand::rngs::StdRng, p: &[u8]) -> Vec<u8> {
    let mut p = p.to_vec();
    for _ in 0..r.random_range(0..=3) {
        let i = r.random_range(0..p.len());
        match r.random_range(0..3) {
            0 => p[i] = b"ACGT"[r.random_range(0..4)],
            1 => {
                p.remove(i);
            }
            _ => p.insert(i, b"ACGT"[r.random_range(0..4)]),
        }
    }
    p
}

/// `n` reads of `lo..=hi` letters, 90% with a barcode of `barcodes`.
fn reads(r: &mut rand::rngs::StdRng, n: usize, lo: usize, hi: usize, barcodes: &[Vec<u8>]) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let len = r.random_range(lo..=hi);
            let mut t = random_acgt(r, len);
            if r.random_bool(0.9) && len >= 100 {
                let b = &barcodes[r.random_range(0..barcodes.len())];
                let fwd = edited(r, b);
                let at = r.random_range(5..=20);
                t.splice(at..at, fwd);
                let rev = edited(r, &revcomp(b));
                let at = t.len() - r.random_range(5..=20);
                t.splice(at..at, rev);
            }
            t
        })
        .collect()
}

fn summary(out: Output) -> Summary {
    let mut s = Summary::default();
    if let Output::Hits(bufs) = out {
        for b in &bufs {
            for i in 0..b.len() {
                s.add(b.start[i] as usize, b.cost[i], b.minus[i], b.cigar(i).len());
            }
        }
    }
    s
}

fn main() {
    let args = Args::parse();
    let n_short: usize = args.num("short", 20000);
    let n_long: usize = args.num("long", 3000);
    let k: i64 = args.num("k", 3);
    let reps: usize = args.num("reps", 5);
    let n_pats: Vec<usize> = args.str("patterns", "1,96").split(',').map(|s| s.parse().expect("patterns")).collect();
    let mut r = rand::rngs::StdRng::seed_from_u64(39);
    let max_pat = n_pats.iter().copied().max().unwrap_or(1);
    let barcodes: Vec<Vec<u8>> = (0..max_pat).map(|_| random_acgt(&mut r, 24)).collect();
    let sets = [("short", reads(&mut r, n_short, 150, 150, &barcodes)), ("long", reads(&mut r, n_long, 500, 6000, &barcodes))];
    println!("shape\tconfig\tcpu_s\tratio_to_all_off\thits");
    for (name, texts) in &sets {
        let views: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
        for &np in &n_pats {
            let pats: Vec<&[u8]> = barcodes[..np].iter().map(|p| p.as_slice()).collect();
            for rc in [false, true] {
                let shape = format!("{name}_{np}p_{}", if rc { "both" } else { "fwd" });
                let mut configs: Vec<(&str, bool, bool)> = vec![("all_off", false, false), ("all_on", true, true), ("lanes_off", false, true)];
                if rc {
                    configs.push(("rc_filter_off", true, false));
                }
                let plans: Vec<SearchPlan> = configs
                    .iter()
                    .map(|&(_, lanes, filter)| {
                        let o = SearchOptions { k, rc, threads: 1, text_lanes: Some(lanes), rc_filter: Some(filter), ..Default::default() };
                        SearchPlan::new(&o, &pats).unwrap_or_else(|e| die(&e.to_string()))
                    })
                    .collect();
                let mut best = vec![f64::INFINITY; plans.len()];
                let mut sums = vec![Summary::default(); plans.len()];
                for rep in 0..reps {
                    for j in 0..plans.len() {
                        let i = (j + rep) % plans.len();
                        let c = process_cpu_seconds();
                        let s = summary(run(&plans[i], &views, &Control::new(), None).unwrap_or_else(|e| die(&e.to_string())));
                        best[i] = best[i].min(process_cpu_seconds() - c);
                        sums[i] = s;
                    }
                }
                for (i, (cn, _, _)) in configs.iter().enumerate() {
                    if sums[i] != sums[0] {
                        die(&format!("{shape}: {cn} gives other hits than all_off"));
                    }
                    println!("{shape}\t{cn}\t{:.3}\t{:.3}\t{}", best[i], best[i] / best[0], sums[i].hits);
                }
            }
        }
    }
}
