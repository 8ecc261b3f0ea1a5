//! Substitutions only (`indels = false`, issue 17): every search against a
//! brute-force Hamming oracle, on both strands, in every alphabet, with `N`
//! and IUPAC codes, windows of long records, several threads, count and
//! contains, and CRISPR guides.

mod common;
use common::*;
use ducksassy_core::crispr::{self, CrisprOptions};
use ducksassy_core::{run, Alphabet, Control, CoreError, HitBuffer, Mode, Output, SearchOptions, SearchPlan};
use rand::Rng;

/// `(minus, start, end, cost)` of each hit of `pattern` in `rec`, sorted,
/// after checking the hit's other columns and its `=`/`X` CIGAR.
fn found(h: &HitBuffer, rec: u32, pattern: u32, m: usize) -> Vec<(bool, u32, u32, i32)> {
    let mut v = Vec::new();
    for i in 0..h.len() {
        if h.record[i] != rec || h.pattern[i] != pattern {
            continue;
        }
        assert_eq!((h.pattern_start[i], h.pattern_end[i]), (0, m as u32));
        let c = String::from_utf8(h.cigar(i).to_vec()).unwrap();
        let ops = expand_cigar(&c);
        assert_eq!(ops.len(), m, "cigar {c}");
        assert!(ops.iter().all(|&o| o == b'=' || o == b'X'), "cigar {c}");
        assert_eq!(ops.iter().filter(|&&o| o == b'X').count() as i32, h.cost[i], "cigar {c}");
        v.push((h.minus[i], h.start[i], h.end[i], h.cost[i]));
    }
    v.sort();
    v
}

fn expand_cigar(c: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let mut n = 0usize;
    for b in c.bytes() {
        if b.is_ascii_digit() {
            n = n * 10 + (b - b'0') as usize;
        } else {
            out.extend(std::iter::repeat_n(b, n));
            n = 0;
        }
    }
    out
}

#[test]
fn regression_indels_false_gives_exactly_the_hamming_hits() {
    // "ACGT" in "ACGGT": the edit search has a hit with one deletion; the
    // placements are ACGG (1 mismatch) and CGGT (3 mismatches)
    let opts = SearchOptions { k: 1, rc: false, indels: false, ..Default::default() };
    let h = hits(&opts, &[b"ACGT".to_vec()], &[Some(b"ACGGT".to_vec())]);
    assert_eq!(found(&h, 0, 0, 4), vec![(false, 0, 4, 1)]);
    assert_eq!(h.cigar(0), b"3=1X");
    // every placement, not only local minima; all_endpoints changes nothing
    for all_endpoints in [false, true] {
        let opts = SearchOptions { k: 1, rc: false, indels: false, all_endpoints, ..Default::default() };
        let h = hits(&opts, &[b"AAA".to_vec()], &[Some(b"AAAAAA".to_vec())]);
        assert_eq!(h.start, vec![0, 1, 2, 3]);
    }
    // overhang has no meaning without indels
    let p: Vec<&[u8]> = vec![b"ACGT"];
    let e = SearchPlan::new(&SearchOptions { indels: false, overhang: Some(0.5), ..Default::default() }, &p).unwrap_err();
    assert!(matches!(e, CoreError::InvalidArgument { arg: "overhang", .. }), "{e:?}");
}

#[test]
fn hamming_hits_counts_and_contains_equal_the_oracle() {
    let mut r = rng(1718);
    for round in 0..120 {
        let alphabet = [Alphabet::Dna, Alphabet::Iupac, Alphabet::Ascii][round % 3];
        let rc = alphabet != Alphabet::Ascii && r.random_bool(0.6);
        let ic = alphabet == Alphabet::Ascii && r.random_bool(0.5);
        let n_pat = r.random_range(1..7);
        // equal lengths often: the edit search batches those
        let len = r.random_range(3..12);
        let pats: Vec<Vec<u8>> = (0..n_pat)
            .map(|_| {
                let l = if r.random_bool(0.5) { len } else { r.random_range(3..12) };
                random_seq(&mut r, alphabet, l)
            })
            .collect();
        let k = r.random_range(0..3.min(pats.iter().map(|p| p.len()).min().unwrap()));
        let mut texts = planted_texts(&mut r, alphabet, &pats, rc, k, 8, 120, 30);
        texts.push(Some(Vec::new()));
        texts.push(None);
        let window = if round % 4 == 0 { 40 } else { 1 << 18 };
        if window == 40 {
            texts.push(Some(random_seq(&mut r, alphabet, 500)));
        }
        let max_n_frac = (alphabet != Alphabet::Ascii && round % 5 == 1).then_some(0.25);
        let opts = SearchOptions {
            k: k as i64,
            alphabet,
            rc,
            ignore_case: ic,
            indels: false,
            all_endpoints: r.random_bool(0.5),
            max_n_frac,
            threads: r.random_range(1..4),
            window,
            ..Default::default()
        };
        let h = hits(&opts, &pats, &texts);
        let counts = values(&opts, Mode::Count, &pats, &texts);
        let contains = values(&opts, Mode::Contains, &pats, &texts);
        let nt = texts.len();
        for (pi, p) in pats.iter().enumerate() {
            for (ti, t) in texts.iter().enumerate() {
                let what = format!("round {round} {alphabet:?} rc {rc} ic {ic} k {k} pattern {} text {ti}", String::from_utf8_lossy(p));
                let Some(t) = t else {
                    assert_eq!(found(&h, ti as u32, pi as u32, p.len()), vec![], "{what}");
                    assert_eq!(counts[pi * nt + ti], i32::MIN, "{what}");
                    continue;
                };
                // the plan folds ASCII case for ignore_case: the oracle compares case-insensitively
                let want = oracle_hamming(alphabet, ic, p, t, k, rc, max_n_frac, 0);
                assert_eq!(found(&h, ti as u32, pi as u32, p.len()), want, "{what}");
                assert_eq!(counts[pi * nt + ti] as usize, want.len(), "count, {what}");
                assert_eq!(contains[pi * nt + ti], !want.is_empty() as i32, "contains, {what}");
            }
        }
    }
}

fn crispr_hits(opts: &SearchOptions, c: &CrisprOptions, guides: &[Vec<u8>], texts: &[Option<Vec<u8>>]) -> HitBuffer {
    let g: Vec<&[u8]> = guides.iter().map(|p| p.as_slice()).collect();
    let plan = crispr::plan(opts, &g, c).expect("valid plan");
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
    match run(&plan, &t, &Control::new(), None).expect("search ok") {
        Output::Hits(bufs) => {
            let mut all = HitBuffer::default();
            for b in &bufs {
                all.extend_all(b);
            }
            all
        }
        _ => unreachable!("CRISPR plans return hits"),
    }
}

#[test]
fn crispr_guides_with_mismatches_only_equal_the_oracle() {
    let mut r = rng(1719);
    for round in 0..80 {
        let pam: &[u8] = [&b"NGG"[..], b"AG", b"G", b"NNGRRT"][round % 4];
        let allow = round % 5 == 0;
        let guides: Vec<Vec<u8>> = (0..r.random_range(1..4))
            .map(|_| {
                let len = r.random_range(8..20);
                let mut g = random_seq(&mut r, Alphabet::Iupac, len);
                g.iter_mut().for_each(|c| if *c == b'X' || *c == b'x' { *c = b'A' });
                g.extend_from_slice(pam);
                g
            })
            .collect();
        let rc = round % 3 != 0;
        let k = r.random_range(0..4);
        let acgt: Vec<Vec<u8>> = guides.iter().map(|g| g.iter().map(|&c| if b"ACGT".contains(&c.to_ascii_uppercase()) { c } else { b'A' }).collect()).collect();
        let mut texts = planted_texts(&mut r, Alphabet::Dna, &acgt, rc, k, 6, 300, 40);
        // runs of N
        for t in texts.iter_mut().flatten() {
            if t.len() > 40 && r.random_bool(0.3) {
                let at = r.random_range(0..t.len() - 20);
                t[at..at + 15].fill(b'N');
            }
        }
        texts.push(None);
        let max_n_frac = [0.2, 0.0, 1.0][round % 3];
        let c = CrisprOptions { pam_length: vec![pam.len()], allow_pam_edits: allow, max_n_frac };
        let window = if round % 4 == 1 { 60 } else { 1 << 18 };
        if window == 60 {
            texts.push(Some(random_acgt(&mut r, 700)));
        }
        let opts = SearchOptions { k: k as i64, rc, indels: false, threads: 1 + round % 3, window, ..Default::default() };
        let h = crispr_hits(&opts, &c, &guides, &texts);
        for (gi, g) in guides.iter().enumerate() {
            for (ti, t) in texts.iter().enumerate() {
                let want = t.as_ref().map_or(vec![], |t| oracle_hamming(Alphabet::Iupac, false, g, t, k, rc, Some(max_n_frac), if allow { 0 } else { pam.len() }));
                let got = found(&h, ti as u32, gi as u32, g.len());
                assert_eq!(got, want, "round {round} guide {} text {ti} k {k} allow {allow}", String::from_utf8_lossy(g));
            }
        }
    }
}
