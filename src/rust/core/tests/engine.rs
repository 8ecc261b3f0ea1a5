//! The engine against the brute-force oracle, and its equivalences: count and
//! contains agree with hits, batched equals one-by-one, any thread count gives
//! identical output.

mod common;
use common::*;
use ducksassy_core::{Alphabet, Mode, SearchOptions, SearchPlan};
use rand::Rng;

const ALPHABETS: [Alphabet; 3] = [Alphabet::Dna, Alphabet::Iupac, Alphabet::Ascii];

fn random_case(r: &mut rand::rngs::StdRng, alphabet: Alphabet) -> (SearchOptions, Vec<Vec<u8>>, Vec<Option<Vec<u8>>>) {
    let m = r.random_range(1..14);
    let k = r.random_range(0..m.min(4));
    let rc = alphabet != Alphabet::Ascii && r.random_bool(0.7);
    let n_pat = r.random_range(1..6);
    let patterns: Vec<Vec<u8>> = (0..n_pat).map(|_| random_seq(r, alphabet, m)).collect();
    let texts = (0..r.random_range(1..8))
        .map(|_| {
            if r.random_bool(0.1) { return None; }
            let len = r.random_range(0..60);
            let mut t = random_seq(r, alphabet, len);
            if alphabet != Alphabet::Ascii && r.random_bool(0.5) {
                let p = patterns[r.random_range(0..n_pat)].clone();
                let p = if rc && r.random_bool(0.5) { revcomp(&p) } else { p };
                let e = r.random_range(0..=k);
                plant(r, &mut t, &p, e);
            }
            Some(t)
        })
        .collect();
    let opts = SearchOptions {
        k: k as i64,
        alphabet,
        rc,
        ignore_case: alphabet == Alphabet::Ascii && r.random_bool(0.5),
        threads: r.random_range(1..4),
        ..Default::default()
    };
    (opts, patterns, texts)
}

#[test]
fn contains_and_all_endpoint_counts_equal_the_oracle() {
    let mut r = rng(1);
    for alphabet in ALPHABETS {
        for _ in 0..scaled(300) {
            let (opts, pats, texts) = random_case(&mut r, alphabet);
            let contains = values(&opts, Mode::Contains, &pats, &texts);
            let counts = values(&SearchOptions { all_endpoints: true, ..opts.clone() }, Mode::Count, &pats, &texts);
            let n = texts.len();
            for (pi, p) in pats.iter().enumerate() {
                for (ti, t) in texts.iter().enumerate() {
                    let (c, a) = (contains[pi * n + ti], counts[pi * n + ti]);
                    match t {
                        None => assert_eq!((c, a), (i32::MIN, i32::MIN)),
                        Some(t) => {
                            let want = oracle_contains(alphabet, opts.ignore_case, p, t, opts.k as usize, opts.rc);
                            assert_eq!(c == 1, want, "contains {alphabet:?} k={} rc={} p={:?} t={:?}", opts.k, opts.rc, String::from_utf8_lossy(p), String::from_utf8_lossy(t));
                            let want = oracle_count_all(alphabet, opts.ignore_case, p, t, opts.k as usize, opts.rc);
                            assert_eq!(a as usize, want, "count(all) {alphabet:?} k={} rc={} p={:?} t={:?}", opts.k, opts.rc, String::from_utf8_lossy(p), String::from_utf8_lossy(t));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn every_hit_cigar_turns_the_pattern_into_the_region_at_its_cost() {
    let mut r = rng(2);
    for alphabet in ALPHABETS {
        for _ in 0..scaled(300) {
            let (mut opts, pats, texts) = random_case(&mut r, alphabet);
            opts.all_endpoints = r.random_bool(0.3);
            let h = hits(&opts, &pats, &texts);
            for i in 0..h.len() {
                let t = texts[h.record[i] as usize].as_ref().unwrap();
                let p = &pats[h.pattern[i] as usize];
                let region = &t[h.start[i] as usize..h.end[i] as usize];
                let region = if h.minus[i] { revcomp(region) } else { region.to_vec() };
                assert!(h.cost[i] <= opts.k as i32);
                let cost = cigar_cost(alphabet, opts.ignore_case, h.cigar(i), p, &region)
                    .unwrap_or_else(|e| panic!("{e}: cigar {} p={:?} region={:?}", String::from_utf8_lossy(h.cigar(i)), String::from_utf8_lossy(p), String::from_utf8_lossy(&region)));
                assert_eq!(cost, h.cost[i]);
                // the alignment is optimal for that region: nothing cheaper exists
                let best = end_costs(alphabet, opts.ignore_case, p, &region);
                assert!(*best.last().unwrap() <= cost);
            }
            assert!(h.is_sorted(), "rows in (record, pattern, start, end, strand) order");
        }
    }
}

#[test]
fn count_and_contains_agree_with_hits() {
    let mut r = rng(3);
    for alphabet in ALPHABETS {
        for _ in 0..scaled(200) {
            let (mut opts, pats, texts) = random_case(&mut r, alphabet);
            opts.all_endpoints = r.random_bool(0.3);
            if alphabet == Alphabet::Iupac && r.random_bool(0.3) {
                opts.max_n_frac = Some(r.random_range(0.0..1.0));
            }
            let h = hits(&opts, &pats, &texts);
            let counts = values(&opts, Mode::Count, &pats, &texts);
            let contains = values(&opts, Mode::Contains, &pats, &texts);
            let n = texts.len();
            for pi in 0..pats.len() {
                for ti in 0..n {
                    let nh = (0..h.len()).filter(|&i| h.record[i] as usize == ti && h.pattern[i] as usize == pi).count() as i32;
                    if texts[ti].is_none() {
                        assert_eq!(counts[pi * n + ti], i32::MIN);
                        continue;
                    }
                    assert_eq!(counts[pi * n + ti], nh);
                    assert_eq!(contains[pi * n + ti], (nh > 0) as i32);
                }
            }
        }
    }
}

#[test]
fn batched_patterns_equal_one_by_one_and_threads_do_not_matter() {
    let mut r = rng(4);
    for alphabet in [Alphabet::Dna, Alphabet::Iupac] {
        for round in 0..scaled(60) {
            let m = r.random_range(4..40);
            let k = r.random_range(0..m.min(5));
            let pats: Vec<Vec<u8>> = (0..r.random_range(4..20)).map(|_| random_seq(&mut r, alphabet, m)).collect();
            let texts: Vec<Option<Vec<u8>>> = (0..r.random_range(1..30))
                .map(|_| {
                    let len = r.random_range(0..300);
                    let mut t = random_seq(&mut r, alphabet, len);
                    for _ in 0..3 {
                        let p = pats[r.random_range(0..pats.len())].clone();
                        let p = if r.random_bool(0.5) { revcomp(&p) } else { p };
                        let e = r.random_range(0..=k);
                        plant(&mut r, &mut t, &p, e);
                    }
                    Some(t)
                })
                .collect();
            let mut opts = SearchOptions { k: k as i64, alphabet, rc: r.random_bool(0.7), all_endpoints: round % 3 == 0, ..Default::default() };
            if alphabet == Alphabet::Iupac && round % 4 == 1 {
                opts.overhang = Some(r.random_range(0.0..1.0));
            }
            if alphabet == Alphabet::Iupac && round % 5 == 2 {
                opts.max_n_frac = Some(r.random_range(0.0..1.0));
            }
            let batched = hits(&opts, &pats, &texts);
            // one pattern per call never batches
            let mut expect = ducksassy_core::HitBuffer::default();
            let mut per_pattern: Vec<ducksassy_core::HitBuffer> = pats.iter().map(|p| hits(&opts, &[p.clone()], &texts)).collect();
            let mut keyed: Vec<(u32, u32, u32, u32, bool, u32, u32, usize, usize)> = Vec::new();
            for (pi, h) in per_pattern.iter_mut().enumerate() {
                for i in 0..h.len() {
                    h.pattern[i] = pi as u32;
                    keyed.push((h.record[i], pi as u32, h.start[i], h.end[i], h.minus[i], h.pattern_start[i], h.pattern_end[i], pi, i));
                }
            }
            keyed.sort();
            for &(.., pi, i) in &keyed { expect.push_row(&per_pattern[pi], i); }
            assert_same(&batched, &expect, &format!("batched vs single, {alphabet:?} m={m} k={k} opts={opts:?}"));
            for threads in [2, 3, 8] {
                let t = hits(&SearchOptions { threads, ..opts.clone() }, &pats, &texts);
                assert_same(&t, &batched, &format!("threads={threads}"));
            }
        }
    }
}

#[test]
fn hand_checked_examples() {
    // sassy's README example: ATCG in AAAATTGAAA with k = 1 matches ATTG at 3..7
    let opts = SearchOptions { k: 1, rc: false, ..Default::default() };
    let h = hits(&opts, &[b"ATCG".to_vec()], &[Some(b"AAAATTGAAA".to_vec())]);
    assert_eq!((h.len(), h.start[0], h.end[0], h.cost[0]), (1, 3, 7, 1));
    assert_eq!(h.cigar(0), b"2=1X1=");
    // minus strand: rc(AACCG) = CGGTT sits at 2..7 of TTCGGTTAA, exact
    let opts = SearchOptions { k: 0, rc: true, ..Default::default() };
    let h = hits(&opts, &[b"AACCG".to_vec()], &[Some(b"TTCGGTTAA".to_vec())]);
    assert_eq!(h.len(), 1);
    assert_eq!((h.start[0], h.end[0], h.minus[0], h.cigar(0)), (2, 7, true, &b"5="[..]));
    // a deletion from the text: GATTACA vs GATTTACA (one extra T in the text)
    let opts = SearchOptions { k: 1, rc: false, alphabet: Alphabet::Dna, ..Default::default() };
    let h = hits(&opts, &[b"GATTACA".to_vec()], &[Some(b"CCGATTTACACC".to_vec())]);
    assert_eq!(h.len(), 1);
    assert_eq!((h.start[0], h.end[0], h.cost[0]), (2, 10, 1));
    assert_eq!(cigar_cost(Alphabet::Dna, false, h.cigar(0), b"GATTACA", b"GATTTACA"), Ok(1));
    // lower case pattern and text, both strands
    let opts = SearchOptions { k: 0, rc: true, alphabet: Alphabet::Dna, ..Default::default() };
    let h = hits(&opts, &[b"aaccg".to_vec()], &[Some(b"ttcggttaa".to_vec())]);
    assert_eq!((h.len(), h.start[0], h.end[0], h.minus[0]), (1, 2, 7, true));
}

#[test]
fn short_and_empty_texts_are_not_errors() {
    let opts = SearchOptions { k: 2, ..Default::default() };
    let texts = vec![Some(vec![]), Some(b"AC".to_vec()), None, Some(b"ACGTAC".to_vec())];
    let c = values(&opts, Mode::Count, &[b"ACGTACGT".to_vec()], &texts);
    assert_eq!(c[0], 0);
    assert_eq!(c[2], i32::MIN);
    let h = hits(&opts, &[b"ACGTACGT".to_vec()], &texts);
    assert!(h.record.iter().all(|&r| r == 3 || r == 1));
}

#[test]
fn invalid_text_letters_name_the_first_bad_record() {
    let pats = vec![b"ACGT".to_vec()];
    let texts: Vec<Option<Vec<u8>>> = (0..5000).map(|i| Some(if i == 4321 || i == 4999 { b"ACGNT".to_vec() } else { b"ACGTT".to_vec() })).collect();
    for threads in [1, 2, 4] {
        let plan = ducksassy_core::SearchPlan::new(&SearchOptions { alphabet: Alphabet::Dna, threads, ..Default::default() }, &[&pats[0]]).unwrap();
        let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
        let e = ducksassy_core::run(&plan, &t, &ducksassy_core::Control::new(), None).unwrap_err();
        assert_eq!(e, ducksassy_core::CoreError::InvalidLetter { arg: "texts", index: 4321, position: 3, letter: b'N', alphabet: "dna" });
    }
    // 150-letter reads, checked in the blocks of the joined copy: the bad
    // letter in the last (overlapping) block and in the first
    for (alphabet, bad, name) in [(Alphabet::Dna, b'N', "dna"), (Alphabet::Iupac, b'E', "iupac"), (Alphabet::Iupac, b'-', "iupac")] {
        for position in [0, 140, 149] {
            let read = |i: usize| {
                let mut t: Vec<u8> = (0..150).map(|j| b"ACGT"[(i + j) % 4]).collect();
                if i == 3001 || i == 4000 {
                    t[position] = bad;
                }
                Some(t)
            };
            let texts: Vec<Option<Vec<u8>>> = (0..5000).map(read).collect();
            let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
            let plan = ducksassy_core::SearchPlan::new(&SearchOptions { alphabet, ..Default::default() }, &[&pats[0]]).unwrap();
            let e = ducksassy_core::run(&plan, &t, &ducksassy_core::Control::new(), None).unwrap_err();
            assert_eq!(e, ducksassy_core::CoreError::InvalidLetter { arg: "texts", index: 3001, position, letter: bad, alphabet: name });
        }
    }
}

/// Compare two hit tables, reporting the first differing row (not the tables).
fn assert_same(a: &ducksassy_core::HitBuffer, b: &ducksassy_core::HitBuffer, what: &str) {
    let row = |h: &ducksassy_core::HitBuffer, i: usize| (h.key(i), h.cost[i], h.pattern_start[i], h.pattern_end[i], String::from_utf8_lossy(h.cigar(i)).to_string());
    for i in 0..a.len().min(b.len()) {
        assert_eq!(row(a, i), row(b, i), "{what}: row {i}");
    }
    assert_eq!(a.len(), b.len(), "{what}: number of rows");
}

#[test]
fn windowed_long_records_equal_whole_records() {
    let mut r = rng(5);
    for alphabet in ALPHABETS {
        for round in 0..scaled(50) {
            let m = r.random_range(3..30);
            let k = r.random_range(0..m.min(5));
            let rc = alphabet != Alphabet::Ascii && r.random_bool(0.7);
            let pats: Vec<Vec<u8>> = (0..r.random_range(1..7)).map(|_| random_seq(&mut r, alphabet, m)).collect();
            let n = r.random_range(1..4);
            let texts = planted_texts(&mut r, alphabet, &pats, rc, k, n, 1500, 40);
            let mut opts = SearchOptions { k: k as i64, alphabet, rc, all_endpoints: round % 2 == 0, ignore_case: alphabet == Alphabet::Ascii && round % 3 == 0, ..Default::default() };
            if alphabet == Alphabet::Iupac && round % 4 == 1 {
                opts.overhang = Some(r.random_range(0.0..1.0));
            }
            let whole = hits(&opts, &pats, &texts);
            let whole_count = values(&opts, Mode::Count, &pats, &texts);
            let whole_contains = values(&opts, Mode::Contains, &pats, &texts);
            for (window, threads) in [(3, 2), (64, 3), (1000, 4)] {
                let o = SearchOptions { window, threads, ..opts.clone() };
                assert_same(&hits(&o, &pats, &texts), &whole, &format!("window={window} threads={threads} {opts:?}"));
                assert_eq!(values(&o, Mode::Count, &pats, &texts), whole_count, "count window={window}");
                assert_eq!(values(&o, Mode::Contains, &pats, &texts), whole_contains, "contains window={window}");
            }
        }
    }
}

/// Regression: sassy 0.3.0's case-insensitive ASCII profile folds pattern `[`
/// to `{` but not the text, so "a[b" missed itself and matched "a{b".
#[test]
fn regression_ascii_ignore_case_punctuation() {
    let opts = SearchOptions { k: 0, alphabet: Alphabet::Ascii, rc: false, ignore_case: true, ..Default::default() };
    let texts = vec![Some(b"xxA[Bxx".to_vec()), Some(b"a{b".to_vec())];
    assert_eq!(values(&opts, Mode::Count, &[b"a[b".to_vec()], &texts), vec![1, 0]);
    let h = hits(&SearchOptions { k: 1, ..opts }, &[b"ab|cd".to_vec()], &[Some(b"b\\c".to_vec())]);
    for i in 0..h.len() {
        assert!(h.cost[i] <= 1);
    }
}

/// An `inline` plan with one thread and no poll runs on the caller's thread
/// (the SQL functions: DuckDB's own threads each search their chunks), with
/// that thread's worker state, and gives what a pool gives; a plan that is
/// not `inline` runs on the pool.
#[test]
fn inline_plans_run_on_the_calling_thread() {
    use ducksassy_core::{engine, Control, Output, SearchPlan};
    let pats: Vec<&[u8]> = vec![b"ACGTACGTAC"];
    let texts: Vec<Option<&[u8]>> = vec![Some(b"TTACGTACGTACTT"), None, Some(b"GTACGTTCGTAC")];
    let opts = SearchOptions { k: 1, alphabet: Alphabet::Dna, rc: true, ..Default::default() };
    let hits_of = |out: Output| match out {
        Output::Hits(b) => {
            let mut all = ducksassy_core::HitBuffer::default();
            for x in &b { all.extend_all(x); }
            all
        }
        _ => unreachable!(),
    };
    let (inline, pooled, cached_inline, cached_pooled) = std::thread::spawn(move || {
        let mut plan = SearchPlan::new(&opts, &pats).unwrap();
        let pooled = hits_of(engine::run(&plan, &texts, &Control::new(), None).unwrap());
        let cached_pooled = ducksassy_core::worker::with_worker(|w| w.cached_searchers());
        plan.inline = true;
        let inline = hits_of(engine::run(&plan, &texts, &Control::new(), None).unwrap());
        let cached_inline = ducksassy_core::worker::with_worker(|w| w.cached_searchers());
        (inline, pooled, cached_inline, cached_pooled)
    })
    .join()
    .unwrap();
    assert_eq!(cached_pooled, 0, "a plan that is not inline searched on the pool");
    assert!(cached_inline > 0, "the inline plan searched on the calling thread");
    assert_same(&inline, &pooled, "inline vs pool");
    // records 1 and 3 hold the pattern within one edit; record 2 is missing
    assert!(inline.record.contains(&0) && inline.record.contains(&2) && !inline.record.contains(&1));
}

/// One control serves several runs (a file search: one per batch) and keeps
/// the encoded patterns of the last: runs of other patterns, strands or
/// overhang on the same control must not use them.
#[test]
fn runs_of_different_plans_on_one_control_equal_fresh_controls() {
    use ducksassy_core::{run, Control, Output, SearchPlan};
    let mut r = rng(41);
    let shared = Control::new();
    for _ in 0..scaled(200) {
        let m = r.random_range(4..20);
        // batched groups (their encoding is what the control keeps) from 4
        // patterns without text lanes, more with them
        let n_pat = r.random_range(2..40);
        let mut patterns: Vec<Vec<u8>> = (0..n_pat).map(|_| random_acgt(&mut r, m)).collect();
        // a run of the same patterns with one changed letter, or another length
        if r.random_bool(0.3) {
            let i = r.random_range(0..m);
            patterns[0][i] = if patterns[0][i] == b'A' { b'C' } else { b'A' };
        }
        let texts = planted_texts(&mut r, Alphabet::Dna, &patterns, true, 2, 6, 120, 2);
        let opts = SearchOptions {
            k: r.random_range(0..3),
            rc: r.random_bool(0.5),
            overhang: if r.random_bool(0.2) { Some(0.5) } else { None },
            text_lanes: Some(r.random_bool(0.3)),
            mode: Mode::Hits,
            threads: 1,
            ..Default::default()
        };
        let pats: Vec<&[u8]> = patterns.iter().map(|p| p.as_slice()).collect();
        let plan = SearchPlan::new(&opts, &pats).expect("valid plan");
        let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
        let rows_of = |o: Output| match o {
            Output::Hits(bufs) => bufs.iter().flat_map(rows).collect::<Vec<_>>(),
            _ => unreachable!(),
        };
        let fresh = rows_of(run(&plan, &t, &Control::new(), None).expect("search ok"));
        let again = rows_of(run(&plan, &t, &shared, None).expect("search ok"));
        assert_eq!(again, fresh, "patterns {:?} opts {:?}", patterns.iter().map(|p| String::from_utf8_lossy(p)).collect::<Vec<_>>(), opts);
    }
}

/// The reverse-strand filter of batched groups (candidates from k-mer
/// neighbourhoods, then the reverse strand of those patterns alone, or the
/// group batched where there are many or a text has letters other than
/// ACGT) gives exactly the hits, counts, flags and assignments of the
/// batched search of both strands.
#[test]
fn the_reverse_strand_filter_equals_the_batched_search() {
    let mut r = rng(1023);
    let mut applied = 0;
    for round in 0..scaled(150) {
        let m = r.random_range(14..40);
        let k = r.random_range(0..4);
        // few or many planted patterns: singles or the batched fallback
        let n_pat = r.random_range(14..(if round % 2 == 0 { 120 } else { 30 }));
        let pats: Vec<Vec<u8>> = (0..n_pat).map(|_| random_acgt(&mut r, m)).collect();
        let n = r.random_range(1..20);
        let every = if round % 3 == 0 { 20 } else { 150 };
        let mut texts = planted_texts(&mut r, Alphabet::Dna, &pats, true, k, n, 700, every);
        let alphabet = if round % 2 == 0 { Alphabet::Dna } else { Alphabet::Iupac };
        for t in texts.iter_mut().flatten() {
            match r.random_range(0..8) {
                0 => t.make_ascii_lowercase(),
                // (a letter the filter cannot model: the batched search)
                1 if !t.is_empty() && alphabet == Alphabet::Iupac => {
                    let at = r.random_range(0..t.len());
                    t[at] = b'N';
                }
                _ => {}
            }
        }
        if round % 7 == 0 {
            texts.push(None);
        }
        let base = SearchOptions {
            k: k as i64,
            alphabet,
            rc: true,
            all_endpoints: round % 4 == 0,
            threads: r.random_range(1..3),
            window: if round % 5 == 0 { 64 } else { ducksassy_core::options::DEFAULT_WINDOW },
            text_lanes: Some(round % 6 != 1),
            ..Default::default()
        };
        let on = SearchOptions { rc_filter: Some(true), ..base.clone() };
        let off = SearchOptions { rc_filter: Some(false), ..base.clone() };
        let refs: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
        let plan = SearchPlan::new(&on, &refs).unwrap();
        applied += plan.groups.iter().any(|g| match g {
            ducksassy_core::options::PatternGroup::Batch(idx) => ducksassy_core::rc_filter::RcFilter::applies(&plan, idx),
            _ => false,
        }) as usize;
        assert_same(&hits(&on, &pats, &texts), &hits(&off, &pats, &texts), &format!("hits {base:?}"));
        for mode in [Mode::Count, Mode::Contains] {
            assert_eq!(values(&on, mode, &pats, &texts), values(&off, mode, &pats, &texts), "{mode:?} {base:?}");
        }
        let best = |o: &SearchOptions| match search(&SearchOptions { mode: Mode::Assign, ..o.clone() }, &pats, &texts) {
            ducksassy_core::Output::Best(b) => b,
            _ => unreachable!(),
        };
        assert_eq!(best(&on), best(&off), "assign {base:?}");
    }
    assert!(applied * 2 > scaled(150), "the filter applied in {applied} rounds");
}
