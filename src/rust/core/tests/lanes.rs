//! The every-strategy tester for text lanes (`lanes.rs`): random inputs of
//! every alphabet and option, records of 0 to a few thousand letters mixed in
//! one call (some missing, some shorter than the patterns, some with planted
//! copies), searched with lanes off (the reference: one record at a time,
//! one thread, records whole), and with lanes on at random record-length
//! bounds and group sizes, on 1, 2 or 4 threads, with windows on or off,
//! with the reverse-strand filter of batched groups on or off: the
//! hit tables, counts and contains must be identical, contains must equal the
//! brute-force oracle, and every hit's cost must be the oracle's cost at its
//! end position (without overhang). All cases run on the same pools, so the
//! workers (and their lane buffers) are reused across cases.
//!
//! `PROPTEST_CASES=<n>` runs more cases.

mod common;
use common::*;
use ducksassy_core::options::DEFAULT_WINDOW;
use ducksassy_core::{run, Alphabet, Control, HitBuffer, Mode, Output, SearchOptions, SearchPlan};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use rand::Rng;

const CASES: u32 = 48;
const SEED: u64 = 0x1A4E_5EED;

fn config(cases: u32) -> ProptestConfig {
    let base = ProptestConfig::default();
    let from_env = std::env::var_os("PROPTEST_CASES").is_some();
    ProptestConfig {
        cases: if from_env { base.cases } else { cases },
        rng_seed: if base.rng_seed == RngSeed::Random { RngSeed::Fixed(SEED) } else { base.rng_seed },
        max_shrink_iters: 1024,
        failure_persistence: None,
        ..base
    }
}

/// How a case is searched.
#[derive(Debug, Clone, Copy)]
struct Way {
    /// Records of at most this length go to lanes; 0 = lanes off.
    lane_max_len: usize,
    lane_group: usize,
    threads: usize,
    window: usize,
    /// The reverse-strand filter of batched groups (`rc_filter.rs`).
    rc_filter: bool,
}

const REFERENCE: Way = Way { lane_max_len: 0, lane_group: 1, threads: 1, window: DEFAULT_WINDOW, rc_filter: false };

#[derive(Clone, Debug)]
struct Case {
    opts: SearchOptions,
    patterns: Vec<Vec<u8>>,
    texts: Vec<Option<Vec<u8>>>,
    ways: Vec<Way>,
}

fn letters(a: Alphabet) -> &'static [u8] {
    match a {
        Alphabet::Dna => b"ACGTACGTacgt",
        Alphabet::Iupac => b"ACGTACGTACGTACGTacgtNNNnRYSWKMBDHVUuX",
        Alphabet::Ascii => b"abcabcABC .,![]{}@`_^~\t\x01\x7f",
    }
}

fn seq(a: Alphabet, len: std::ops::RangeInclusive<usize>) -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(letters(a)), len)
}

fn way() -> impl proptest::strategy::Strategy<Value = Way> {
    let max_len = prop_oneof![Just(0usize), 1usize..=64, 65usize..=600, Just(1024), Just(usize::MAX)];
    let group = prop_oneof![1usize..=9, 10usize..=300];
    let window = prop_oneof![2 => Just(DEFAULT_WINDOW), 1 => 1usize..=64, 1 => 65usize..=700];
    (max_len, group, prop::sample::select(vec![1usize, 2, 4]), window, any::<bool>())
        .prop_map(|(lane_max_len, lane_group, threads, window, rc_filter)| Way { lane_max_len, lane_group, threads, window, rc_filter })
}

/// Text lengths: mostly reads, some empty or shorter than a pattern, a few
/// long enough to be windowed or to be above the lane bound.
fn text_len() -> impl proptest::strategy::Strategy<Value = usize> {
    prop_oneof![1 => Just(0usize), 2 => 1usize..=30, 6 => 31usize..=300, 2 => 301usize..=1200, 1 => 1201usize..=3000]
}

fn case() -> impl proptest::strategy::Strategy<Value = Case> {
    let alphabet = prop_oneof![Just(Alphabet::Dna), Just(Alphabet::Iupac), Just(Alphabet::Ascii)];
    let pattern_len = prop_oneof![3 => 2usize..=12, 3 => 13usize..=40, 1 => 41usize..=200];
    // a few patterns, or a panel of one length and A, C, G, T (barcodes: a
    // batched group, whose reverse strand the filter may search)
    let n_pat = prop_oneof![3 => 1usize..=5, 2 => 14usize..=20];
    (alphabet, pattern_len, n_pat, any::<bool>())
        .prop_flat_map(|(a, m, n_pat, same_len)| {
            let panel = n_pat >= 14 && a != Alphabet::Ascii;
            let pat = if panel {
                prop::collection::vec(prop::sample::select(&b"ACGTACGTacgt"[..]), m.clamp(20, 40)..=m.clamp(20, 40)).boxed()
            } else if same_len {
                seq(a, m..=m).boxed()
            } else {
                seq(a, 1..=m).boxed()
            };
            (Just(a), prop::collection::vec(pat, n_pat))
        })
        .prop_flat_map(|(a, patterns)| {
            let min_len = patterns.iter().map(|p| p.len()).min().unwrap();
            let nucleotide = a != Alphabet::Ascii;
            // panels: mostly small k, both strands and texts of A, C, G, T
            // only, where the filter applies (it leaves texts with other
            // letters to the batched search)
            let panel = patterns.len() >= 14 && nucleotide;
            let k = 0..min_len.min(if panel { 4 } else { 8 });
            let both = if panel { 0.85 } else { 0.5 };
            let text_alphabet = if panel { prop_oneof![3 => Just(Alphabet::Dna), 1 => Just(a)].boxed() } else { Just(a).boxed() };
            let texts = prop::collection::vec(
                prop::option::weighted(0.92, ((text_len(), text_alphabet).prop_flat_map(|(n, ta)| seq(ta, n..=n)), any::<u64>(), 0usize..3)),
                0..=40,
            );
            let overhang = if a == Alphabet::Iupac {
                prop_oneof![3 => Just(None), 1 => Just(Some(0.0)), 1 => Just(Some(1.0)), 2 => (0.0..1.0f64).prop_map(Some)].boxed()
            } else {
                Just(None).boxed()
            };
            let max_n_frac = if nucleotide {
                prop_oneof![3 => Just(None), 1 => Just(Some(0.0)), 2 => (0.0..=1.0f64).prop_map(Some)].boxed()
            } else {
                Just(None).boxed()
            };
            (
                Just(a),
                Just(patterns),
                k,
                texts,
                prop::bool::weighted(both).prop_map(move |b| b && nucleotide),
                any::<bool>().prop_map(move |b| b && !nucleotide),
                prop::bool::weighted(0.25),
                overhang,
                max_n_frac,
                prop::collection::vec(way(), 2..=3),
            )
        })
        .prop_map(|(alphabet, mut patterns, k, raw, rc, ignore_case, all_endpoints, overhang, max_n_frac, ways)| {
            if overhang.is_some() {
                for p in &mut patterns {
                    p.iter_mut().filter(|c| c.eq_ignore_ascii_case(&b'X')).for_each(|c| *c = b'N');
                }
            }
            let texts = raw
                .into_iter()
                .map(|t| {
                    t.map(|(mut text, seed, plants)| {
                        let mut r = rng(seed);
                        for i in 0..plants {
                            let p = &patterns[(seed as usize + i) % patterns.len()];
                            let p = if rc && i % 2 == 1 { revcomp(p) } else { p.clone() };
                            let e = (seed as usize >> 8) % (k + 1);
                            plant(&mut r, &mut text, &p, e);
                        }
                        // copies flush against the record's ends, where the
                        // joined search hands a record to the one-by-one
                        // search (lanes.rs)
                        for at_end in [false, true] {
                            if r.random_bool(0.3) {
                                let p = &patterns[r.random_range(0..patterns.len())];
                                let p = if rc && r.random_bool(0.5) { revcomp(p) } else { p.clone() };
                                let e = r.random_range(0..=k);
                                let q = edited(&mut r, &p, e);
                                if q.len() <= text.len() {
                                    let at = if at_end { text.len() - q.len() } else { 0 };
                                    text.splice(at..at + q.len(), q);
                                }
                            }
                        }
                        text
                    })
                })
                .collect();
            let opts = SearchOptions { k: k as i64, alphabet, ignore_case, rc, all_endpoints, overhang, max_n_frac, cigar: true, ..Default::default() };
            Case { opts, patterns, texts, ways }
        })
}

fn search(c: &Case, s: Way, mode: Mode) -> Output {
    let pats: Vec<&[u8]> = c.patterns.iter().map(|p| p.as_slice()).collect();
    let opts = SearchOptions { mode, threads: s.threads, window: s.window, rc_filter: Some(s.rc_filter), ..c.opts.clone() };
    let mut plan = SearchPlan::new(&opts, &pats).expect("valid plan");
    plan.lane_max_len = s.lane_max_len;
    plan.lane_group = s.lane_group;
    let t: Vec<Option<&[u8]>> = c.texts.iter().map(|t| t.as_deref()).collect();
    run(&plan, &t, &Control::new(), None).expect("search ok")
}

fn hit_table(c: &Case, s: Way) -> HitBuffer {
    match search(c, s, Mode::Hits) {
        Output::Hits(bufs) => {
            let mut all = HitBuffer::default();
            for b in &bufs {
                all.extend_all(b);
            }
            all
        }
        _ => unreachable!(),
    }
}

fn values(c: &Case, s: Way, mode: Mode) -> Vec<i32> {
    match search(c, s, mode) {
        Output::Values(v) => v,
        _ => unreachable!(),
    }
}


fn check(c: &Case) -> Result<(), TestCaseError> {
    let want = hit_table(c, REFERENCE);
    let want_count = values(c, REFERENCE, Mode::Count);
    let want_contains = values(c, REFERENCE, Mode::Contains);
    // the reference against the oracle
    let n = c.texts.len();
    let (a, ic, k) = (c.opts.alphabet, c.opts.ignore_case, c.opts.k as usize);
    if c.opts.overhang.is_none() && c.opts.max_n_frac.is_none() {
        for (pi, p) in c.patterns.iter().enumerate() {
            for (ti, t) in c.texts.iter().enumerate() {
                if let Some(t) = t {
                    let oracle = oracle_contains(a, ic, p, t, k, c.opts.rc);
                    prop_assert_eq!(want_contains[pi * n + ti] == 1, oracle, "contains vs oracle: pattern {} text {}", pi, ti);
                }
            }
        }
        for i in 0..want.len() {
            let (t, p) = (c.texts[want.record[i] as usize].as_ref().unwrap(), &c.patterns[want.pattern[i] as usize]);
            let (text, end) = if want.minus[i] { (revcomp(t), t.len() - want.start[i] as usize) } else { (t.clone(), want.end[i] as usize) };
            prop_assert_eq!(end_costs(a, ic, p, &text)[end], want.cost[i], "hit cost vs oracle: {}", rows(&want)[i]);
        }
    }
    for &s in &c.ways {
        let got = hit_table(c, s);
        prop_assert_eq!(rows(&got), rows(&want), "hits with {:?}", s);
        prop_assert_eq!(&got, &want);
        prop_assert_eq!(values(c, s, Mode::Count), want_count.clone(), "count with {:?}", s);
        prop_assert_eq!(values(c, s, Mode::Contains), want_contains.clone(), "contains with {:?}", s);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(CASES))]

    #[test]
    fn lanes_give_the_results_of_one_record_at_a_time(c in case()) {
        check(&c)?;
    }
}

/// Many short reads, one pattern: the common case, lanes against one by one
/// on every option combination, with the planted hits found.
#[test]
fn reads_in_lanes_equal_one_by_one_for_every_option() {
    let mut r = rng(7);
    let pat = random_acgt(&mut r, 20);
    let pats = vec![pat.clone(), random_acgt(&mut r, 24)];
    for alphabet in [Alphabet::Dna, Alphabet::Iupac] {
        for rc in [false, true] {
            for (overhang, all_endpoints) in [(None, false), (Some(0.5), false), (None, true)] {
                for max_n_frac in [None, Some(0.3)] {
                    if alphabet == Alphabet::Dna && (overhang.is_some() || max_n_frac.is_some()) {
                        continue;
                    }
                    let mut texts = planted_texts(&mut r, alphabet, &pats, rc, 2, 300, 400, 3);
                    texts.push(None);
                    texts.push(Some(Vec::new()));
                    texts.push(Some(pat[..10].to_vec()));
                    let opts = SearchOptions { k: 2, alphabet, rc, overhang, max_n_frac, all_endpoints, ..Default::default() };
                    let c = Case { opts, patterns: pats.clone(), texts, ways: vec![] };
                    let on = Way { lane_max_len: 1024, lane_group: 256, threads: 1, window: DEFAULT_WINDOW, rc_filter: true };
                    let want = hit_table(&c, REFERENCE);
                    assert!(want.len() >= 100, "planted hits found: {}", want.len());
                    assert_eq!(rows(&hit_table(&c, on)), rows(&want), "{alphabet:?} rc={rc} overhang={overhang:?} max_n_frac={max_n_frac:?} all_endpoints={all_endpoints}");
                    for mode in [Mode::Count, Mode::Contains] {
                        assert_eq!(values(&c, on, mode), values(&c, REFERENCE, mode), "{mode:?} {alphabet:?} rc={rc}");
                    }
                }
            }
        }
    }
}

/// The switch: `text_lanes: Some(false)` (what `DUCKSASSY_LANES=off` gives)
/// builds a plan without lanes; `Some(true)` one with them.
#[test]
fn the_switch_turns_lanes_off_in_the_plan() {
    let p: Vec<&[u8]> = vec![b"ACGTACGT"];
    let off = SearchPlan::new(&SearchOptions { text_lanes: Some(false), ..Default::default() }, &p).unwrap();
    assert_eq!(off.lane_max_len, 0);
    let on = SearchPlan::new(&SearchOptions { text_lanes: Some(true), ..Default::default() }, &p).unwrap();
    assert_eq!(on.lane_max_len, ducksassy_core::lanes::LANE_MAX_LEN);
}

/// Joined records are checked for their alphabet a chunk at a time
/// (lanes.rs): the error must still name the first bad record in order, at
/// the position the one-by-one search names, whether the bad letters are in
/// joined records, in records searched alone (long, windowed) or both, and
/// for DNA `X`, the separator letter that is not in the DNA alphabet.
#[test]
fn a_bad_letter_is_reported_as_one_record_at_a_time_would() {
    let mut r = rng(11);
    for (alphabet, bad) in [(Alphabet::Dna, b'X'), (Alphabet::Dna, b'N'), (Alphabet::Iupac, b'Z'), (Alphabet::Ascii, 0xC3)] {
        for case in 0..40 {
            let mut texts: Vec<Option<Vec<u8>>> = (0..60)
                .map(|i| {
                    let len = if i % 17 == 5 { 3000 } else { r.random_range(0..300) };
                    Some(random_seq(&mut r, alphabet, len))
                })
                .collect();
            for _ in 0..1 + case % 3 {
                let i = r.random_range(0..texts.len());
                let t = texts[i].as_mut().unwrap();
                if !t.is_empty() {
                    let at = r.random_range(0..t.len());
                    t[at] = bad;
                }
            }
            let opts = SearchOptions { k: 2, alphabet, rc: alphabet != Alphabet::Ascii, ..Default::default() };
            let pats: Vec<&[u8]> = vec![b"ACGTACGTAC"];
            let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
            let err = |way: Way, mode: Mode| {
                let mut plan = SearchPlan::new(&SearchOptions { mode, threads: way.threads, window: way.window, ..opts.clone() }, &pats).unwrap();
                plan.lane_max_len = way.lane_max_len;
                plan.lane_group = way.lane_group;
                run(&plan, &t, &Control::new(), None).err().map(|e| format!("{e:?}"))
            };
            for mode in [Mode::Hits, Mode::Count, Mode::Contains] {
                let want = err(REFERENCE, mode);
                for way in [Way { lane_max_len: 1024, lane_group: 7, threads: 1, window: 1000, rc_filter: true }, Way { lane_max_len: 1024, lane_group: 256, threads: 2, window: DEFAULT_WINDOW, rc_filter: false }] {
                    assert_eq!(err(way, mode), want, "{alphabet:?} bad {bad} case {case} {mode:?}");
                }
            }
        }
    }
}
