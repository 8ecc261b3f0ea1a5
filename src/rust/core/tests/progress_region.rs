//! The counters that feed progress bars (`Control::total_bytes`,
//! `done_bytes`, `read_bytes`), the matched-region column of file searches,
//! and the SAM CIGAR conversion checked by walking it over the sequences.

use ducksassy_core::cigar::sam_cigar;
use ducksassy_core::fastx::{self, BatchSize, SearchOutput};
use ducksassy_core::{run, Control, Mode, Output, SearchOptions, SearchPlan};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;

fn extdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../inst/extdata").join(name)
}

fn plan(mode: Mode, patterns: &[&str], k: i64, threads: usize) -> SearchPlan {
    let opts = SearchOptions { k, mode, threads, ..Default::default() };
    let p: Vec<&[u8]> = patterns.iter().map(|s| s.as_bytes()).collect();
    SearchPlan::new(&opts, &p).unwrap()
}

/// A deterministic pseudo-random DNA text.
fn dna(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            b"ACGT"[(x >> 33) as usize % 4]
        })
        .collect()
}

#[test]
fn done_bytes_reaches_total_bytes_after_a_search() {
    // many records and one long record (cut into windows), several threads
    let mut texts: Vec<Vec<u8>> = (0..500).map(|i| dna(100 + i % 37, i as u64)).collect();
    texts.push(dna(3 << 20, 99));
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
    for threads in [1, 3] {
        for patterns in [vec!["ACGTTGCA"], (0..9).map(|_| "ACGTTGCAAC").collect()] {
            let ctl = Control::new();
            let out = run(&plan(Mode::Count, &patterns, 1, threads), &t, &ctl, None).unwrap();
            assert!(matches!(out, Output::Values(_)));
            let total = ctl.total_bytes.load(Relaxed);
            let letters: u64 = texts.iter().map(|t| t.len() as u64).sum();
            assert!(total >= letters, "total {total} < letters {letters}");
            assert_eq!(ctl.done_bytes.load(Relaxed), total);
        }
    }
}

#[test]
fn read_bytes_counts_the_file_bytes_plain_and_compressed() {
    for name in ["lambda_virus.fa", "lambda_reads_1.fq.gz"] {
        let path = extdata(name).to_string_lossy().into_owned();
        let size = std::fs::metadata(&path).unwrap().len();
        let ctl = Control::new();
        let p = plan(Mode::Count, &["ACGTACGTAC"], 1, 2);
        fastx::search(&p, std::slice::from_ref(&path), BatchSize { bytes: 4096, records: 50 }, &ctl, &mut || false).unwrap();
        assert_eq!(ctl.read_bytes.load(Relaxed), size, "{name}");
    }
}

#[test]
fn regions_of_file_hits_are_the_matched_text() {
    let dir = tempfile::tempdir().unwrap();
    let seqs: Vec<Vec<u8>> = (0..40).map(|i| dna(300 + 13 * i, 7 + i as u64)).collect();
    let mut fasta = Vec::new();
    for (i, s) in seqs.iter().enumerate() {
        writeln!(fasta, ">r{i}").unwrap();
        fasta.extend_from_slice(s);
        fasta.push(b'\n');
    }
    let path = dir.path().join("x.fa").to_string_lossy().into_owned();
    std::fs::write(&path, &fasta).unwrap();
    let p = plan(Mode::Hits, &["ACGTAC", "TTGCAG"], 1, 2);
    let range = fastx::RecordRange { skip: 0, n: None };
    for region in [false, true] {
        let out = fastx::search_regions(&p, std::slice::from_ref(&path), range, BatchSize { bytes: 2000, records: 7 }, region, &Control::new(), &mut || false).unwrap();
        let SearchOutput::Hits(h) = out else { panic!() };
        assert!(h.len() > 100);
        assert_eq!(h.lengths.len(), h.names.len());
        for b in &h.bufs {
            assert_eq!(b.has_region(), region && !b.is_empty());
            for i in 0..b.len() {
                let seq = &seqs[b.record[i] as usize];
                if region {
                    assert_eq!(b.region(i), &seq[b.start[i] as usize..b.end[i] as usize]);
                } else {
                    assert!(b.region(i).is_empty());
                }
            }
        }
        // the record lengths
        let mut j = 0;
        let mut last = None;
        for b in &h.bufs {
            for &r in &b.record {
                if last != Some(r) {
                    assert_eq!(h.lengths[j], seqs[r as usize].len() as u64);
                    j += 1;
                    last = Some(r);
                }
            }
        }
    }
}

fn complement(b: u8) -> u8 {
    match b {
        b'A' => b'T',
        b'C' => b'G',
        b'G' => b'C',
        b'T' => b'A',
        x => x,
    }
}

/// Walk a SAM CIGAR over the read (as it lies on the forward strand) and
/// the reference region: it must consume both exactly, `=` on equal
/// letters, `X` on different ones; returns the edits (X, I, D letters).
fn walk(cigar: &str, read: &[u8], reference: &[u8]) -> usize {
    let (mut q, mut r, mut edits, mut n) = (0, 0, 0, 0usize);
    for c in cigar.bytes() {
        if c.is_ascii_digit() {
            n = n * 10 + (c - b'0') as usize;
            continue;
        }
        for _ in 0..n {
            match c {
                b'=' => {
                    assert_eq!(read[q], reference[r], "{cigar}");
                    q += 1;
                    r += 1;
                }
                b'X' => {
                    assert_ne!(read[q], reference[r], "{cigar}");
                    q += 1;
                    r += 1;
                    edits += 1;
                }
                b'I' => {
                    q += 1;
                    edits += 1;
                }
                b'D' => {
                    r += 1;
                    edits += 1;
                }
                b'S' => q += 1,
                _ => panic!("{cigar}"),
            }
        }
        n = 0;
    }
    assert_eq!((q, r), (read.len(), reference.len()), "{cigar} does not spell both");
    edits
}

#[test]
fn sam_cigars_spell_the_read_and_the_reference() {
    // patterns planted with edits on both strands of random texts
    let mut texts = Vec::new();
    let pattern = b"ACGGTCATTGACCTAGGATC".to_vec();
    let rc: Vec<u8> = pattern.iter().rev().map(|&b| complement(b)).collect();
    for (i, planted) in [pattern.clone(), rc.clone()].iter().enumerate() {
        for edit in 0..4 {
            let mut p = planted.clone();
            match edit {
                1 => p[5] = if p[5] == b'A' { b'C' } else { b'A' },
                2 => {
                    p.remove(8);
                }
                3 => p.insert(11, b'T'),
                _ => {}
            }
            let mut t = dna(60, (i * 10 + edit) as u64);
            t.extend_from_slice(&p);
            t.extend(dna(60, 100 + (i * 10 + edit) as u64));
            texts.push(t);
        }
    }
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
    let p = plan(Mode::Hits, &[std::str::from_utf8(&pattern).unwrap()], 2, 1);
    let Output::Hits(bufs) = run(&p, &t, &Control::new(), None).unwrap() else { panic!() };
    let mut seen = [0; 2];
    for b in &bufs {
        for i in 0..b.len() {
            let minus = b.minus[i];
            seen[minus as usize] += 1;
            let text = &texts[b.record[i] as usize];
            let reference = &text[b.start[i] as usize..b.end[i] as usize];
            let read = if minus { &rc } else { &pattern };
            let mut sam = Vec::new();
            sam_cigar(b.cigar(i), minus, b.pattern_start[i] as u64, (pattern.len() as u32 - b.pattern_end[i]) as u64, &mut sam).unwrap();
            let sam = String::from_utf8(sam).unwrap();
            assert_eq!(walk(&sam, read, reference), b.cost[i] as usize, "{sam}");
            // and sassy's own CIGAR spells the pattern against the reverse
            // complement of the region on the minus strand
            let pat_ref: Vec<u8> = if minus { reference.iter().rev().map(|&c| complement(c)).collect() } else { reference.to_vec() };
            assert_eq!(walk(std::str::from_utf8(b.cigar(i)).unwrap(), &pattern, &pat_ref), b.cost[i] as usize);
        }
    }
    assert!(seen[0] >= 4 && seen[1] >= 4, "{seen:?}");
}
