//! `max_n_frac` keeps exactly the hits whose text region passes the rule
//! (issue 24, "max_n_frac with overhang drops hits that contain no N"): the
//! hits, counts and presence with the filter equal those without it, less the
//! hits whose region `text[start..end]` has more than `max_n_frac` of `N`
//! (an empty region passes), with and without overhang, on both strands,
//! every strategy (one pattern, batched, lanes, windows, substitutions only),
//! on random texts with N near both ends; and a test that tells us when
//! sassy's own pre-trace N filter becomes a bound with overhang.

mod common;
use common::*;
use ducksassy_core::{Alphabet, HitBuffer, Mode, SearchOptions};
use rand::rngs::StdRng;
use rand::Rng;

fn n_ok(region: &[u8], f: f64) -> bool {
    region.is_empty() || region.iter().filter(|c| c.eq_ignore_ascii_case(&b'N')).count() as f32 / region.len() as f32 <= f as f32
}

/// Rows of `h` (one line each) that pass the region rule on `texts`.
fn passing(h: &HitBuffer, texts: &[Option<Vec<u8>>], f: f64) -> Vec<String> {
    let all = rows(h);
    (0..h.len())
        .filter(|&i| {
            let t = texts[h.record[i] as usize].as_deref().unwrap_or(b"");
            n_ok(&t[h.start[i] as usize..h.end[i] as usize], f)
        })
        .map(|i| all[i].clone())
        .collect()
}

fn with_n_near_ends(r: &mut StdRng, len: usize) -> Vec<u8> {
    let mut t = random_acgt(r, len);
    for _ in 0..r.random_range(0..4) {
        let at = if r.random_bool(0.5) { r.random_range(0..4.min(len)) } else { len - 1 - r.random_range(0..4.min(len)) };
        t[at] = if r.random_bool(0.8) { b'N' } else { b'n' };
    }
    if r.random_bool(0.3) {
        let at = r.random_range(0..len);
        t[at] = b'N';
    }
    t
}

fn random_pattern(r: &mut StdRng, m: usize) -> Vec<u8> {
    let mut p = random_acgt(r, m);
    if r.random_bool(0.5) {
        let at = if r.random_bool(0.5) { 0 } else { m - 1 };
        p[at] = b'N';
    }
    p
}

/// Check the property for one case, every mode; returns the number of hits
/// the filter dropped (so that the test can insist some cases drop some).
fn check(opts: &SearchOptions, pats: &[Vec<u8>], texts: &[Option<Vec<u8>>], f: f64, ctx: &str) -> usize {
    let without = hits(opts, pats, texts);
    let want = passing(&without, texts, f);
    let filtered = SearchOptions { max_n_frac: Some(f), ..opts.clone() };
    let got = rows(&hits(&filtered, pats, texts));
    assert_eq!(got, want, "{ctx}: hits with max_n_frac = {f}");
    // counts and presence per (record, pattern), from the filtered hits;
    // column-major as the engine returns them (record fastest)
    let n = texts.len();
    let mut counts = vec![0i32; n * pats.len()];
    let h = hits(&filtered, pats, texts);
    for i in 0..h.len() {
        counts[h.pattern[i] as usize * n + h.record[i] as usize] += 1;
    }
    let contains: Vec<i32> = counts.iter().map(|&c| (c > 0) as i32).collect();
    assert_eq!(values(&filtered, Mode::Count, pats, texts), counts, "{ctx}: counts");
    assert_eq!(values(&filtered, Mode::Contains, pats, texts), contains, "{ctx}: contains");
    without.len() - want.len()
}

#[test]
fn regression_max_n_frac_with_overhang_keeps_hits_without_n() {
    // the two examples (texts "NACGT", "GGTTAN"): the hits on the
    // regions ACGT and GTTA (no N) stay
    let t = vec![Some(b"NACGT".to_vec())];
    let o = SearchOptions { k: 2, overhang: Some(0.5), rc: false, max_n_frac: Some(0.0), ..Default::default() };
    let h = hits(&o, &[b"ACGTAAAA".to_vec()], &t);
    assert!(rows(&h).iter().any(|r| r.contains("1..5 + p0..4 cost=2")), "{:?}", rows(&h));
    let no = SearchOptions { max_n_frac: None, ..o.clone() };
    check(&no, &[b"ACGTAAAA".to_vec()], &t, 0.0, "forward example");
    let t = vec![Some(b"GGTTAN".to_vec())];
    let o = SearchOptions { k: 2, overhang: Some(0.5), max_n_frac: Some(0.0), ..Default::default() };
    let h = hits(&o, &[b"CAACCAGG".to_vec()], &t);
    assert!((0..h.len()).any(|i| h.minus[i]), "{:?}", rows(&h));
    let no = SearchOptions { max_n_frac: None, ..o.clone() };
    check(&no, &[b"CAACCAGG".to_vec()], &t, 0.0, "rc example");
}

#[test]
fn max_n_frac_keeps_exactly_the_hits_whose_region_passes() {
    let mut r = rng(24);
    let mut dropped = 0;
    for case in 0..scaled(300) {
        let m = r.random_range(4..14);
        let k = r.random_range(0..m / 2 + 1);
        let np = if r.random_bool(0.3) { r.random_range(2..6) } else { 1 };
        let pats: Vec<Vec<u8>> = (0..np).map(|_| random_pattern(&mut r, m)).collect();
        let texts: Vec<Option<Vec<u8>>> = (0..r.random_range(1..5)).map(|_| { let len = r.random_range(m..60); Some(with_n_near_ends(&mut r, len)) }).collect();
        let overhang = match case % 3 {
            0 => None,
            _ => Some([0.0, 0.25, 0.5, 1.0][r.random_range(0..4)]),
        };
        let indels = overhang.is_some() || !r.random_bool(0.2);
        let opts = SearchOptions {
            k: k as i64,
            overhang,
            indels,
            rc: r.random_bool(0.7),
            all_endpoints: r.random_bool(0.3),
            window: if r.random_bool(0.2) { r.random_range(m + k + 1..40) } else { ducksassy_core::options::DEFAULT_WINDOW },
            text_lanes: Some(r.random_bool(0.5)),
            alphabet: Alphabet::Iupac,
            ..Default::default()
        };
        let f = [0.0, 0.1, 0.2, 0.34, 0.5][r.random_range(0..5)];
        let ctx = format!("case {case}: pats {:?} texts {:?} {opts:?}", pats.iter().map(|p| String::from_utf8_lossy(p).into_owned()).collect::<Vec<_>>(), texts.iter().map(|t| String::from_utf8_lossy(t.as_deref().unwrap()).into_owned()).collect::<Vec<_>>());
        dropped += check(&opts, &pats, &texts, f, &ctx);
    }
    assert!(dropped > 0, "no case dropped a hit: the test checks nothing");
}

/// sassy 0.3.0's N filter before traceback counts N over the `m - k` text
/// letters before a match's end, a bound only when the whole pattern lies in
/// the text; with overhang it drops hits without N, so `strategy.rs` leaves it
/// off there. When this fails, sassy's filter is right with overhang.
#[test]
fn upstream_sassy_n_filter_still_drops_overhang_hits() {
    let mut s = sassy::Searcher::<sassy::profiles::Iupac>::new(false, Some(0.5)).with_max_n_frac(0.0);
    let ours = |m: &sassy::Match| m.text_start == 1 && m.text_end == 5 && m.cost == 2;
    let with = s.search(b"ACGTAAAA", b"NACGT", 2).iter().filter(|m| ours(m)).count();
    assert_eq!(with, 0, "sassy now keeps the overhang hit on ACGT with max_n_frac = 0");
    let mut s = sassy::Searcher::<sassy::profiles::Iupac>::new(false, Some(0.5));
    let without = s.search(b"ACGTAAAA", b"NACGT", 2).iter().filter(|m| ours(m)).count();
    assert_eq!(without, 1);
}
