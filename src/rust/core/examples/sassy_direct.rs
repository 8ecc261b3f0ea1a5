//! Benchmark path (a): the `sassy` crate called directly, one searcher, one
//! thread, no R and no ducksassy engine. The floor the other paths are
//! measured against (benchmarks/overhead.Rmd).
//!
//! Every record of `--input` (one record per line) is searched for each
//! pattern with `Searcher::search` (rightmost local minima with cost <= k;
//! `--rc true` searches the reverse complement too, as sassy does it), and
//! the matches are summarised without formatting their CIGARs (their text
//! length is computed from the operations).
//!
//! ```text
//! cargo run --release --offline --example sassy_direct -- \
//!   --input reads.txt --patterns GACGCTCAGTAATGTGACGA --k 2 \
//!   --alphabet iupac --rc true --reps 5 --warmup 1
//! ```
//! Prints one `key=value` line per timed repetition (see common/mod.rs).

mod common;
use common::*;
use sassy::profiles::{CaseSensitiveAscii, Dna, Iupac, Profile};
use sassy::Searcher;

fn run<P: Profile>(
    rc: bool,
    texts: &[Vec<u8>],
    patterns: &[Vec<u8>],
    k: usize,
    reps: usize,
    warmup: usize,
) -> (Vec<Timing>, Summary) {
    let mut searcher = Searcher::<P>::new(rc, None);
    time_reps(warmup, reps, || {
        let mut s = Summary::default();
        for text in texts {
            for p in patterns {
                for m in searcher.search(p, text, k) {
                    s.add(
                        m.text_start,
                        m.cost,
                        m.strand == sassy::Strand::Rc,
                        cigar_text_len(&m.cigar),
                    );
                }
            }
        }
        s
    })
}

fn main() {
    let args = Args::parse();
    let texts = read_lines(&args.required("input"));
    let patterns: Vec<Vec<u8>> = args
        .required("patterns")
        .split(',')
        .map(|p| p.as_bytes().to_vec())
        .collect();
    let k: usize = args.num("k", 0);
    let alphabet = args.str("alphabet", "iupac");
    let rc = args.flag("rc", alphabet != "ascii");
    let reps: usize = args.num("reps", 3);
    let warmup: usize = args.num("warmup", 1);
    if patterns.iter().any(|p| p.is_empty() || p.len() <= k) {
        die("every pattern must be longer than k");
    }
    let (secs, s) = match alphabet.as_str() {
        "iupac" => run::<Iupac>(rc, &texts, &patterns, k, reps, warmup),
        "dna" => run::<Dna>(rc, &texts, &patterns, k, reps, warmup),
        "ascii" if !rc => run::<CaseSensitiveAscii>(false, &texts, &patterns, k, reps, warmup),
        "ascii" => die("--rc true is not possible with ascii"),
        other => die(&format!("unknown --alphabet {other}")),
    };
    print_result("sassy_direct", 1, texts.len(), &secs, &s);
}
