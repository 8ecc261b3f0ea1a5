//! Overhang means the same at both ends of a text (issue 17, "Overhang at the
//! right end of a text is capped, so hits are missed"): every search with
//! overhang against a brute-force oracle that lets the pattern hang over the
//! right end as far as over the left end, and a test that tells us when
//! sassy drops its cap (then `overhang.rs` can go).

mod common;
use common::*;
use ducksassy_core::{Alphabet, Mode, SearchOptions};
use rand::Rng;

/// `(minus, anchor, cost, pattern_end)` of each hit, sorted (the anchor as in
/// [`oracle_overhang_hits`]).
fn found(h: &ducksassy_core::HitBuffer, rec: u32, pattern: u32, n: usize) -> Vec<(bool, u32, i32, u32)> {
    let mut v: Vec<_> = (0..h.len())
        .filter(|&i| h.record[i] == rec && h.pattern[i] == pattern)
        .map(|i| (h.minus[i], if h.minus[i] { h.start[i] } else { h.end[i].min(n as u32) }, h.cost[i], h.pattern_end[i]))
        .collect();
    v.sort();
    v
}

#[test]
fn regression_overhang_at_the_right_end_is_not_capped() {
    // the example: the mirror image of the left-end hit is found
    let texts = vec![Some(b"GTCCCCCC".to_vec()), Some(b"CCCCCCAC".to_vec())];
    let opts = SearchOptions { k: 0, overhang: Some(0.1), rc: false, ..Default::default() };
    let h = hits(&opts, &[b"ACGT".to_vec()], &texts);
    // (the pattern wholly outside each text, at cost floor(0.1 * 4) = 0, is
    // a hit at both ends too; the partly aligned hits are the point here)
    let partial: Vec<usize> = (0..h.len()).filter(|&i| h.pattern_start[i] < h.pattern_end[i]).collect();
    let rows: Vec<_> = partial.iter().map(|&i| (h.record[i], h.start[i], h.end[i], h.pattern_start[i], h.pattern_end[i], h.cost[i])).collect();
    assert_eq!(rows, vec![(0, 0, 2, 2, 4, 0), (1, 6, 8, 0, 2, 0)]);
    assert_eq!(h.cigar(partial[0]), b"2=");
    assert_eq!(h.cigar(partial[1]), b"2=");
    let whole: Vec<_> = (0..h.len()).filter(|&i| h.pattern_start[i] == h.pattern_end[i]).map(|i| (h.record[i], h.pattern_end[i])).collect();
    assert_eq!(whole, vec![(0, 4), (0, 0), (1, 4), (1, 0)]);
    // alpha = 0, k = 0: sassy allows no right overhang at all
    let opts = SearchOptions { k: 0, overhang: Some(0.0), rc: false, all_endpoints: true, ..Default::default() };
    let h = hits(&opts, &[b"ACGT".to_vec()], &[Some(b"TTTTAC".to_vec())]);
    let right: Vec<_> = (0..h.len()).filter(|&i| h.pattern_end[i] < 4).map(|i| (h.end[i], h.pattern_end[i], h.cost[i])).collect();
    assert_eq!(right, vec![(6, 2, 0), (6, 0, 0)], "{right:?}");
}

/// sassy 0.3.0 caps the right overhang at ceil((k + alpha) / alpha) letters.
/// When this fails, sassy no longer caps it: `overhang.rs` can go.
#[test]
fn upstream_sassy_still_caps_the_right_overhang() {
    let mut s = sassy::Searcher::<sassy::profiles::Iupac>::new(false, Some(0.25));
    // "AC" + "GT" hanging: 2 letters at floor(0.25 * 2) = 0; the cap is 1
    let right = s.search_all(b"ACGT", b"CCCCCCAC", 0).iter().filter(|m| m.pattern_end < 4).count();
    assert_eq!(right, 0, "sassy now lets the pattern hang 2 letters over the right end");
    // the left end has no cap
    let left = s.search_all(b"ACGT", b"GTCCCCCC", 0).iter().filter(|m| m.pattern_start == 2).count();
    assert_eq!(left, 1);
    assert_eq!(ducksassy_core::overhang::sassy_right_cap(4, 0, 0.25), 1);
}

#[test]
fn search_k_lifts_the_cap_to_the_useful_overhang() {
    use ducksassy_core::overhang::{sassy_right_cap, search_k, useful_overhang};
    for m in 1..200usize {
        for k in [0, 1, 3, 10] {
            if k >= m {
                continue;
            }
            for a in [0.0f32, 0.01, 0.1, 0.25, 1.0 / 3.0, 0.5, 0.9, 1.0] {
                // the longest overhang at cost <= k, by brute force
                let need = (0..=m).filter(|&o| (a * o as f32).floor() as usize <= k).max().unwrap();
                assert_eq!(useful_overhang(m, k, a), need, "m {m} k {k} a {a}");
                let sk = search_k(m, k, Some(a));
                // below the pattern length, except alpha = 0 with one letter
                assert!(sk >= k && (sk < m || (a == 0.0 && m == 1 && sk == 1)), "m {m} k {k} a {a}: {sk}");
                assert!(sassy_right_cap(m, sk, a) >= need, "m {m} k {k} a {a}: {sk}");
                // the smallest such k'
                assert!(sk == k || sassy_right_cap(m, sk - 1, a) < need, "m {m} k {k} a {a}: {sk}");
            }
        }
    }
    assert_eq!(search_k(20, 2, None), 2);
    // alpha = 1: an overhang of o costs o, sassy's cap k + 1 is enough
    assert_eq!(search_k(20, 2, Some(1.0)), 2);
    // alpha = 0.1, k = 0: 9 letters may hang at cost 0, the cap is 1
    assert!(search_k(20, 0, Some(0.1)) > 0);
}

#[test]
fn overhang_at_both_ends_equals_the_oracle() {
    let mut r = rng(1717);
    for case in 0..800 {
        // one-letter patterns often: alpha = 0 makes sassy's k' = m there
        let m = if case % 8 == 0 { 1 } else { r.random_range(1..=9) };
        let k = r.random_range(0..m);
        let alpha = [0.0f32, 0.1, 0.25, 0.5, 0.75, 1.0][r.random_range(0..6)];
        let rc = r.random_bool(0.5);
        let all_endpoints = r.random_bool(0.5);
        let pattern = random_seq(&mut r, Alphabet::Iupac, m).iter().map(|c| if *c == b'X' { b'A' } else { c.to_ascii_uppercase() }).collect::<Vec<u8>>();
        let texts: Vec<Option<Vec<u8>>> = (0..6)
            .map(|_| {
                let len = [0, 1, 2, m, m + 3, r.random_range(0..40)][r.random_range(0..6)];
                Some(random_acgt(&mut r, len))
            })
            .collect();
        // small windows too: long records are cut, the last window owns the end
        let window = if r.random_bool(0.3) { 20 } else { 1 << 18 };
        let texts: Vec<Option<Vec<u8>>> = if window == 20 {
            texts.into_iter().chain([Some(random_acgt(&mut r, 300))]).collect()
        } else {
            texts
        };
        let opts = SearchOptions { k: k as i64, overhang: Some(alpha as f64), rc, all_endpoints, window, ..Default::default() };
        let pats = vec![pattern.clone()];
        let h = hits(&opts, &pats, &texts);
        let counts = values(&opts, Mode::Count, &pats, &texts);
        let contains = values(&opts, Mode::Contains, &pats, &texts);
        for (i, t) in texts.iter().enumerate() {
            let t = t.as_ref().unwrap();
            let want = oracle_overhang_hits(&pattern, t, k, alpha, rc, all_endpoints);
            let what = format!("case {case}: pattern {} text {} k {k} alpha {alpha} rc {rc} all {all_endpoints} window {window}", String::from_utf8_lossy(&pattern), String::from_utf8_lossy(t));
            assert_eq!(found(&h, i as u32, 0, t.len()), want, "{what}");
            assert_eq!(counts[i] as usize, want.len(), "count, {what}");
            assert_eq!(contains[i], !want.is_empty() as i32, "contains, {what}");
        }
    }
}
