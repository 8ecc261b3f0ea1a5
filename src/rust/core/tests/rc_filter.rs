//! The reverse-strand filter of batched groups (`rc_filter.rs`, used by
//! `strategy.rs`) against the batched search of both strands, on random
//! panels: 1 to 200 patterns of one length or of several, `k` from 0 to half
//! the shortest pattern, reverse complements planted with about `k` edits
//! (one more, one fewer, or any number up to `k`), some flush against the
//! record's ends, forward copies beside them, records from empty to several
//! windows long, in lower case, with `N` and other IUPAC letters, missing
//! records, small windows, text lanes on and off, 1 or 2 threads,
//! `all_endpoints`, `max_n_frac` and `ends`: hits, counts, flags and
//! assignments with the filter on (`rc_filter: Some(true)`) must be those
//! with it off (`Some(false)`). The panel is also checked to reach the
//! filter's paths: groups it applies to, records where it searches a few
//! patterns alone, records where it finds none, records it leaves to the
//! batched search (too many candidates, or a letter other than ACGT).
//!
//! Fixed seeds; `DUCKSASSY_TEST_SCALE` scales the number of panels.

mod common;
use common::*;
use ducksassy_core::options::{PatternGroup, DEFAULT_WINDOW};
use ducksassy_core::rc_filter::{RcFilter, RcScratch};
use ducksassy_core::{Alphabet, Mode, Output, SearchOptions, SearchPlan};
use rand::rngs::StdRng;
use rand::Rng;

struct Panel {
    opts: SearchOptions,
    patterns: Vec<Vec<u8>>,
    texts: Vec<Option<Vec<u8>>>,
}

fn panel(r: &mut StdRng) -> Panel {
    let alphabet = if r.random_bool(0.6) { Alphabet::Iupac } else { Alphabet::Dna };
    let n_pat = match r.random_range(0..10) {
        0..=1 => r.random_range(1..=3),
        2..=4 => r.random_range(4..=20),
        _ => r.random_range(21..=200),
    };
    // one length (the usual barcode panel) or two or three
    let lengths: Vec<usize> = match r.random_range(0..3) {
        0 | 1 => vec![r.random_range(12..=64)],
        _ => (0..r.random_range(2..=3)).map(|_| r.random_range(8..=70)).collect(),
    };
    let mut patterns: Vec<Vec<u8>> = (0..n_pat).map(|i| random_acgt(r, lengths[i % lengths.len()])).collect();
    if alphabet == Alphabet::Iupac && r.random_bool(0.1) {
        // a pattern the filter cannot take: its group is searched batched
        let p = &mut patterns[r.random_range(0..n_pat)];
        let at = r.random_range(0..p.len());
        p[at] = b"NRY"[r.random_range(0..3)];
    }
    if r.random_bool(0.2) {
        let p = &mut patterns[r.random_range(0..n_pat)];
        p.make_ascii_lowercase();
    }
    let min_len = patterns.iter().map(|p| p.len()).min().unwrap();
    // mostly small k, where the filter applies; up to half the shortest
    let k = if r.random_bool(0.7) { r.random_range(0..=4.min(min_len / 2)) } else { r.random_range(0..=min_len / 2) };
    let n_texts = r.random_range(1..=25);
    let mut texts = Vec::with_capacity(n_texts);
    for _ in 0..n_texts {
        if r.random_bool(0.05) {
            texts.push(None);
            continue;
        }
        let len = match r.random_range(0..20) {
            0 => 0,
            1..=9 => r.random_range(1..=200),
            10..=16 => r.random_range(200..=2500),
            _ => r.random_range(2500..=9000),
        };
        let mut t = random_acgt(r, len);
        // planted copies: reverse complements with edits near k, and forward ones
        for _ in 0..r.random_range(0..=4) {
            let p = &patterns[r.random_range(0..n_pat)];
            let q = if r.random_bool(0.75) { revcomp(p) } else { p.to_ascii_uppercase() };
            let e = match r.random_range(0..4) {
                0 => r.random_range(0..=k),
                1 => k.saturating_sub(1),
                2 => k + 1,
                _ => k,
            };
            let q = edited(r, &q, e);
            let at = match r.random_range(0..4) {
                0 => 0,
                1 => t.len(),
                _ => r.random_range(0..=t.len()),
            };
            t.splice(at..at, q);
        }
        match r.random_range(0..10) {
            0 => t.make_ascii_lowercase(),
            1 if !t.is_empty() => {
                // a lower-case stretch
                let a = r.random_range(0..t.len());
                let b = r.random_range(a..=t.len().min(a + 300));
                t[a..b].make_ascii_lowercase();
            }
            2 | 3 if alphabet == Alphabet::Iupac && !t.is_empty() => {
                // letters the filter cannot model: the batched search
                for _ in 0..r.random_range(1..=3) {
                    let at = r.random_range(0..t.len());
                    t[at] = b"NNnRY"[r.random_range(0..5)];
                }
            }
            _ => {}
        }
        texts.push(Some(t));
    }
    let max_n_frac = (alphabet == Alphabet::Iupac && r.random_bool(0.2)).then(|| r.random_range(0.0..=1.0));
    let ends = r.random_bool(0.15).then(|| (r.random_range(0..=300), r.random_range(0..=300)));
    let window = if r.random_bool(0.7) { DEFAULT_WINDOW } else { r.random_range(64..=700) };
    let opts = SearchOptions {
        k: k as i64,
        alphabet,
        rc: true,
        all_endpoints: r.random_bool(0.2),
        max_n_frac,
        cigar: true,
        threads: r.random_range(1..=2),
        window,
        text_lanes: Some(r.random_bool(0.5)),
        ends,
        ..Default::default()
    };
    Panel { opts, patterns, texts }
}

/// What one panel covered of the filter's paths (whole records, as the
/// strategy sees them without windows, ends or lanes).
#[derive(Default, Debug)]
struct Reach {
    /// Groups the filter applies to.
    groups: usize,
    /// Records where it searches a few patterns alone.
    singles: usize,
    /// Records where no pattern can have a reverse-strand hit.
    none: usize,
    /// Records it leaves to the batched search.
    batched: usize,
}

fn reach(p: &Panel, plan: &SearchPlan) -> Reach {
    let mut out = Reach::default();
    let (mut s, mut cand) = (RcScratch::default(), Vec::new());
    for g in &plan.groups {
        let PatternGroup::Batch(idx) = g else { continue };
        let Some(f) = RcFilter::build(plan, idx) else { continue };
        out.groups += 1;
        for t in p.texts.iter().flatten() {
            // the rule of strategy::reverse_plan
            match (f.candidates(t, &mut s, &mut cand, idx.len() / 16, |_| false), cand.is_empty()) {
                (false, _) => out.batched += 1,
                (true, true) => out.none += 1,
                (true, false) => out.singles += 1,
            }
        }
    }
    out
}

fn run_mode(p: &Panel, filter: bool, mode: Mode) -> Output {
    let opts = SearchOptions { rc_filter: Some(filter), mode, ..p.opts.clone() };
    search(&opts, &p.patterns, &p.texts)
}

fn check(p: &Panel, what: &str) {
    let on = hits(&SearchOptions { rc_filter: Some(true), ..p.opts.clone() }, &p.patterns, &p.texts);
    let off = hits(&SearchOptions { rc_filter: Some(false), ..p.opts.clone() }, &p.patterns, &p.texts);
    assert_eq!(rows(&on), rows(&off), "hits, {what}");
    assert_eq!(on, off, "hit columns, {what}");
    for mode in [Mode::Count, Mode::Contains, Mode::Assign] {
        match (run_mode(p, true, mode), run_mode(p, false, mode)) {
            (Output::Values(a), Output::Values(b)) => assert_eq!(a, b, "{mode:?}, {what}"),
            (Output::Best(a), Output::Best(b)) => assert_eq!(a, b, "{mode:?}, {what}"),
            _ => unreachable!("{mode:?}"),
        }
    }
}

#[test]
fn the_filter_gives_the_results_of_the_batched_search_on_random_panels() {
    let mut total = Reach::default();
    let mut rc_hits = 0;
    let rounds = scaled(80);
    for round in 0..rounds {
        let mut r = rng(0x7C_F117 + round as u64);
        let p = panel(&mut r);
        let what = format!(
            "round {round}: {} patterns of lengths {:?}, {} texts, {:?}",
            p.patterns.len(),
            p.patterns.iter().map(|q| q.len()).collect::<std::collections::BTreeSet<_>>(),
            p.texts.len(),
            p.opts
        );
        let pats: Vec<&[u8]> = p.patterns.iter().map(|q| q.as_slice()).collect();
        let plan = SearchPlan::new(&SearchOptions { rc_filter: Some(true), ..p.opts.clone() }, &pats).unwrap();
        let got = reach(&p, &plan);
        total.groups += got.groups;
        total.singles += got.singles;
        total.none += got.none;
        total.batched += got.batched;
        check(&p, &what);
        if got.singles > 0 {
            let on = hits(&SearchOptions { rc_filter: Some(true), ..p.opts.clone() }, &p.patterns, &p.texts);
            rc_hits += (0..on.len()).filter(|&i| on.minus[i]).count();
        }
    }
    eprintln!("{rounds} panels: {total:?}, {rc_hits} reverse-strand hits where the filter searched alone");
    // the panel reaches every path of the filter, and finds planted hits
    // there (at full scale: valgrind runs a tenth of the panels)
    let rounds_f = rounds as f64;
    if rounds < 50 {
        return;
    }
    assert!(total.groups as f64 >= 0.3 * rounds_f, "{total:?}");
    assert!(total.singles as f64 >= 1.0 * rounds_f, "{total:?}");
    assert!(total.none as f64 >= 0.5 * rounds_f, "{total:?}");
    assert!(total.batched as f64 >= 0.2 * rounds_f, "{total:?}");
    assert!(rc_hits as f64 >= 2.0 * rounds_f, "reverse-strand hits where the filter searched alone: {rc_hits}");
}

/// The ONT-like shape of issue 39 (96 barcodes of 24, k = 3, reads of
/// 500-6,000 letters with a barcode at each end, the second reverse
/// complemented), where nearly every record takes the filter's
/// one-pattern path: both strands, every mode, 1 and 2 threads, windows.
#[test]
fn barcoded_reads_equal_with_and_without_the_filter() {
    let mut r = rng(39);
    let barcodes: Vec<Vec<u8>> = (0..96).map(|_| random_acgt(&mut r, 24)).collect();
    let texts: Vec<Option<Vec<u8>>> = (0..40)
        .map(|_| {
            let len = r.random_range(500..=6000);
            let b = &barcodes[r.random_range(0..barcodes.len())];
            let mut t = random_acgt(&mut r, len);
            let e = r.random_range(0..=3);
            let fwd = edited(&mut r, b, e);
            let at = r.random_range(20..=60);
            t.splice(at..at, fwd);
            let e = r.random_range(0..=3);
            let rev = edited(&mut r, &revcomp(b), e);
            let at = t.len() - r.random_range(60..=100);
            t.splice(at..at, rev);
            Some(t)
        })
        .collect();
    for (threads, window, lanes) in [(1, DEFAULT_WINDOW, true), (2, DEFAULT_WINDOW, false), (1, 700, true)] {
        let opts = SearchOptions { k: 3, rc: true, threads, window, text_lanes: Some(lanes), ..Default::default() };
        let p = Panel { opts, patterns: barcodes.clone(), texts: texts.clone() };
        let pats: Vec<&[u8]> = p.patterns.iter().map(|q| q.as_slice()).collect();
        let plan = SearchPlan::new(&SearchOptions { rc_filter: Some(true), ..p.opts.clone() }, &pats).unwrap();
        let got = reach(&p, &plan);
        assert_eq!(got.groups, 1);
        assert!(got.singles * 10 >= texts.len() * 9, "{got:?}");
        check(&p, &format!("threads {threads} window {window} lanes {lanes}"));
        let on = hits(&SearchOptions { rc_filter: Some(true), ..p.opts.clone() }, &p.patterns, &p.texts);
        assert!((0..on.len()).filter(|&i| on.minus[i]).count() * 10 >= texts.len() * 9);
    }
}

/// The switch: `rc_filter: Some(false)` turns it off in the plan, and so do
/// one strand, overhang and substitutions only.
#[test]
fn the_switch_and_the_options_that_turn_the_filter_off() {
    let p: Vec<&[u8]> = vec![b"ACGTACGTACGTACGTACGTACGT"; 1];
    let plan = |o: SearchOptions| SearchPlan::new(&o, &p).unwrap().rc_filter;
    let base = SearchOptions { k: 2, alphabet: Alphabet::Iupac, rc: true, ..Default::default() };
    assert!(plan(SearchOptions { rc_filter: Some(true), ..base.clone() }));
    assert!(!plan(SearchOptions { rc_filter: Some(false), ..base.clone() }));
    assert!(!plan(SearchOptions { rc_filter: Some(true), rc: false, ..base.clone() }));
    assert!(!plan(SearchOptions { rc_filter: Some(true), overhang: Some(0.5), ..base.clone() }));
    assert!(!plan(SearchOptions { rc_filter: Some(true), indels: false, ..base.clone() }));
}
