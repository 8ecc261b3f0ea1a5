//! CPU time per read of the searches a both-ends demultiplexing makes on
//! real reads, each alone, in one process (one thread): the measurement
//! behind the speed row of benchmarks/kits.md (where the time of a
//! demultiplexing goes, and the least a search of every pattern of a kit
//! over both ends costs with sassy). Not a benchmark for claims.
//!
//! ```text
//! cargo run --release --offline --example kit_ends -- \
//!   --reads reads.txt --patterns patterns.txt --k 13 --ends 250 \
//!   --flank5 TATTGCT --flank3 GTTTTCGCATTTATCG --reps 3
//! ```
//! The inputs, one read and one pattern (flank5 + barcode + flank3) per
//! line; for the qcat-examples reads and SQK-RBK001:
//! `writeLines(sassy_read_fastx(barcode_1k.fastq.gz and nobarcode_1k.fastq.gz)$sequence, "reads.txt")`,
//! `writeLines(ducksassy:::set_patterns(sassy_kit("SQK-RBK001")), "patterns.txt")`.
//! `--copies N` searches the reads N times over (default 20, as the
//! benchmark's copies). Prints microseconds per read (best of `--reps`).

mod common;
use common::*;
use ducksassy_core::{run, Control, Mode, Output, SearchOptions, SearchPlan};

/// The reverse complement (the library's complement, reversed).
fn revcomp(p: &[u8]) -> Vec<u8> {
    let mut c = ducksassy_core::alphabet::complement(p);
    c.reverse();
    c
}

fn main() {
    let args = Args::parse();
    let reads = read_lines(&args.required("reads"));
    let patterns = read_lines(&args.required("patterns"));
    let k: i64 = args.num("k", 13);
    let l: usize = args.num("ends", 250);
    let reps: usize = args.num("reps", 3);
    let copies: usize = args.num("copies", 20);
    let (f5, f3) = (args.str("flank5", ""), args.str("flank3", ""));
    let texts: Vec<Option<&[u8]>> = (0..copies).flat_map(|_| reads.iter().map(|r| Some(r.as_slice()))).collect();
    let n = texts.len() as f64;
    let time = |name: &str, pats: &[Vec<u8>], k: i64, mode: Mode, rc: bool, ends: (usize, usize)| {
        let refs: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
        let opts = SearchOptions { k, mode, rc, threads: 1, cigar: false, ends: Some(ends), ..Default::default() };
        let plan = SearchPlan::new(&opts, &refs).unwrap_or_else(|e| die(&e.to_string()));
        let mut best = f64::INFINITY;
        let mut found = 0;
        for _ in 0..reps {
            let c = process_cpu_seconds();
            found = match run(&plan, &texts, &Control::new(), None).unwrap_or_else(|e| die(&e.to_string())) {
                Output::Best(b) => b.iter().filter(|b| b.hit.is_some()).count(),
                Output::Values(v) => v.iter().filter(|&&x| x > 0).count(),
                Output::Hits(b) => b.iter().map(|b| b.len()).sum(),
            };
            best = best.min(process_cpu_seconds() - c);
        }
        println!("{name}\t{:.2}\t{found}", best / n * 1e6);
    };
    println!("search\tus_per_read\trecords_found");
    time("front: patterns, both strands (assign)", &patterns, k, Mode::Assign, true, (l, 0));
    time("rear: patterns, both strands (assign)", &patterns, k, Mode::Assign, true, (0, l));
    // the strands as patterns of their own: one forward search, sassy's
    // pattern tiling full (the cheapest pass over an end we found)
    let both: Vec<Vec<u8>> = patterns.iter().cloned().chain(patterns.iter().map(|p| revcomp(p))).collect();
    time("front: patterns and complements, forward (assign)", &both, k, Mode::Assign, false, (l, 0));
    time("front: one pattern, both strands, k = 0 (count)", &patterns[..1], 0, Mode::Count, true, (l, 0));
    if !f5.is_empty() || !f3.is_empty() {
        let fk = |f: usize| ((0.75 * 0.27 * f as f64).ceil() as i64).min(f as i64 - 1);
        let letters = f5.len() + f3.len();
        let slot = format!("{f5}{}{f3}", "N".repeat(patterns[0].len() - letters));
        time("both ends: flanks without barcode (contains)", &[format!("{f5}{f3}").into_bytes(), slot.into_bytes()], fk(letters), Mode::Contains, true, (l, l));
        let alone: Vec<Vec<u8>> = [&f5, &f3].iter().filter(|f| f.len() >= 14).map(|f| f.as_bytes().to_vec()).collect();
        if let Some(f) = alone.first() {
            time("both ends: a flank of 14+ alone, k = 0.27 / 2 of it (contains)", &alone, (0.27 * f.len() as f64 / 2.0).floor() as i64, Mode::Contains, true, (l, l));
        }
        time("both ends: the old rule, the longer flank alone, k = 0.27 of it (contains)", &[if f5.len() >= f3.len() { f5.clone() } else { f3.clone() }.into_bytes()], ((0.27 * f5.len().max(f3.len()) as f64).ceil()) as i64, Mode::Contains, true, (l, l));
    }
}
