//! The baseline of benchmarks/barcodes.Rmd (issue 23): sassy's batched
//! search called directly, one searcher, one thread, no R and no ducksassy
//! engine. The many barcodes are encoded once (`encode_patterns`); then each
//! read is searched with `search_encoded_patterns` on the forward strand and,
//! with `--rc true` (the default), on its reverse complement (built per read
//! into a reused buffer, as part of the timed loop), IUPAC profile, rightmost
//! local minima with cost <= k.
//!
//! With `--new_rc true` (and `--rc true`), the other way to search both
//! strands (issue 39's baseline, what another R wrapper of sassy does): one
//! searcher made with `Searcher::new_rc()`, the barcodes encoded with their
//! reverse complements (`encode_patterns` of an rc searcher tiles both),
//! and one batched `search_encoded_patterns` call per read that reports
//! both strands. Its reverse-strand hits are the rightmost local minima of
//! each reverse complement along the read (sassy's rc convention), where
//! ducksassy's are those of the complement along the reversed read: hit
//! counts can differ by the odd hit, so the summary says which it is.
//!
//! `--input`: one read per line; `--patterns_file`: one barcode per line
//! (or `--patterns A,B,...`), all of one length (sassy's batched search).
//! Reverse-strand hits are reported in forward coordinates (start =
//! read length - end on the reverse complement), so the summary compares
//! with `sassy_search()`'s.
//!
//! ```text
//! cargo run --release --offline --example sassy_barcodes -- \
//!   --input reads.txt --patterns_file barcodes.txt --k 3 --rc true \
//!   --reps 1 --warmup 1 [--new_rc true]
//! ```
//! Prints one `key=value` line per timed repetition (see common/mod.rs),
//! plus `reads_with_hits`: reads with at least one hit.

mod common;
use common::*;
use sassy::profiles::Iupac;
use sassy::Searcher;

/// IUPAC complement of one letter (case kept; other bytes unchanged).
fn complement(c: u8) -> u8 {
    match c {
        b'A' => b'T',
        b'T' | b'U' => b'A',
        b'C' => b'G',
        b'G' => b'C',
        b'R' => b'Y',
        b'Y' => b'R',
        b'K' => b'M',
        b'M' => b'K',
        b'B' => b'V',
        b'V' => b'B',
        b'D' => b'H',
        b'H' => b'D',
        b'a' => b't',
        b't' | b'u' => b'a',
        b'c' => b'g',
        b'g' => b'c',
        other => other,
    }
}

fn main() {
    let args = Args::parse();
    let texts = read_lines(&args.required("input"));
    let patterns: Vec<Vec<u8>> = match args.str("patterns_file", "").as_str() {
        "" => args
            .required("patterns")
            .split(',')
            .map(|p| p.as_bytes().to_vec())
            .collect(),
        path => read_lines(path)
            .into_iter()
            .filter(|l| !l.is_empty())
            .collect(),
    };
    let k: usize = args.num("k", 3);
    let rc = args.flag("rc", true);
    let new_rc = rc && args.flag("new_rc", false);
    let reps: usize = args.num("reps", 3);
    let warmup: usize = args.num("warmup", 1);
    if patterns.is_empty() {
        die("no patterns");
    }
    let m = patterns[0].len();
    if patterns.iter().any(|p| p.len() != m) {
        die("the batched search needs patterns of one length");
    }
    if m <= k {
        die("every pattern must be longer than k");
    }
    if texts.iter().any(|t| t.is_empty()) {
        die("empty reads are not searched (sassy's batched search underflows on them)");
    }

    let mut reads_with_hits = 0u64;
    let (secs, s) = if new_rc {
        // both strands in one batched call per read (sassy's rc tiling);
        // hits of both strands are in forward coordinates
        let mut searcher = Searcher::<Iupac>::new_rc();
        let encoded = searcher.encode_patterns(&patterns);
        time_reps(warmup, reps, || {
            let mut s = Summary::default();
            reads_with_hits = 0;
            for text in &texts {
                let before = s.hits;
                for mt in searcher.search_encoded_patterns(&encoded, text, k) {
                    s.add(mt.text_start, mt.cost, mt.strand == sassy::Strand::Rc, cigar_text_len(&mt.cigar));
                }
                reads_with_hits += (s.hits > before) as u64;
            }
            s
        })
    } else {
        // forward-only searcher: the reverse strand is searched as a text of its own
        let mut searcher = Searcher::<Iupac>::new_fwd();
        let encoded = searcher.encode_patterns(&patterns);
        let mut rc_buf: Vec<u8> = Vec::new();
        time_reps(warmup, reps, || {
            let mut s = Summary::default();
            reads_with_hits = 0;
            for text in &texts {
                let before = s.hits;
                for mt in searcher.search_encoded_patterns(&encoded, text, k) {
                    s.add(mt.text_start, mt.cost, false, cigar_text_len(&mt.cigar));
                }
                if rc {
                    rc_buf.clear();
                    rc_buf.extend(text.iter().rev().map(|&c| complement(c)));
                    let n = text.len();
                    for mt in searcher.search_encoded_patterns(&encoded, &rc_buf, k) {
                        s.add(n - mt.text_end, mt.cost, true, cigar_text_len(&mt.cigar));
                    }
                }
                reads_with_hits += (s.hits > before) as u64;
            }
            s
        })
    };
    let path = if new_rc {
        "sassy_barcodes_new_rc"
    } else if rc {
        "sassy_barcodes"
    } else {
        "sassy_barcodes_forward"
    };
    for (i, t) in secs.iter().enumerate() {
        println!(
            "path={path} threads=1 rep={} records={} patterns={} seconds={:.6} cpu_seconds={:.2} hits={} cost_sum={} cigar_bytes={} start_sum={} minus={} reads_with_hits={reads_with_hits}",
            i + 1,
            texts.len(),
            patterns.len(),
            t.seconds,
            t.cpu_seconds,
            s.hits,
            s.cost_sum,
            s.cigar_bytes,
            s.start_sum,
            s.minus
        );
    }
}
