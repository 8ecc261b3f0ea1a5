//! Assignment (Mode::Assign) against the best-hit rule applied to the hits
//! of the same search, and the ends of records (`ends`) against searching
//! the end substrings and shifting the coordinates, over every strategy:
//! batched and single patterns, text lanes on and off, windows, threads,
//! overhang, all end points, substitutions only.

mod common;
use common::*;
use ducksassy_core::assign::Best;
use ducksassy_core::{Alphabet, HitBuffer, Mode, Output, SearchOptions};
use rand::rngs::StdRng;
use rand::Rng;

fn assignments(opts: &SearchOptions, pats: &[Vec<u8>], texts: &[Option<Vec<u8>>]) -> Vec<Best> {
    match search(&SearchOptions { mode: Mode::Assign, ..opts.clone() }, pats, texts) {
        Output::Best(b) => b,
        _ => unreachable!(),
    }
}

/// The rule written out on the hits: lowest (cost, pattern, start, end,
/// strand), and the lowest cost of another pattern.
fn rule(h: &HitBuffer, n: usize) -> Vec<(Option<(i32, u32, u32, u32, bool)>, Option<i32>)> {
    (0..n as u32)
        .map(|rec| {
            let mut rows: Vec<(i32, u32, u32, u32, bool)> =
                (0..h.len()).filter(|&i| h.record[i] == rec).map(|i| (h.cost[i], h.pattern[i], h.start[i], h.end[i], h.minus[i])).collect();
            rows.sort();
            let best = rows.first().copied();
            let other = best.and_then(|b| rows.iter().filter(|r| r.1 != b.1).map(|r| r.0).min());
            (best, other)
        })
        .collect()
}

fn flat(b: &[Best]) -> Vec<(Option<(i32, u32, u32, u32, bool)>, Option<i32>)> {
    b.iter().map(|b| (b.hit.map(|h| (h.cost, h.pattern, h.start, h.end, h.minus)), b.other_cost())).collect()
}

fn random_opts(r: &mut StdRng, alphabet: Alphabet, m: usize, round: usize) -> SearchOptions {
    let k = r.random_range(0..m.min(5));
    let mut opts = SearchOptions {
        k: k as i64,
        alphabet,
        rc: alphabet != Alphabet::Ascii && r.random_bool(0.7),
        all_endpoints: round % 3 == 0,
        text_lanes: Some(round % 2 == 0),
        threads: r.random_range(1..4),
        ..Default::default()
    };
    if alphabet == Alphabet::Iupac && round % 4 == 1 {
        opts.overhang = Some(r.random_range(0.0..1.0));
    } else if round % 7 == 3 {
        opts.indels = false;
    }
    opts
}

fn random_input(r: &mut StdRng, alphabet: Alphabet, opts: &SearchOptions, m: usize) -> (Vec<Vec<u8>>, Vec<Option<Vec<u8>>>) {
    // 4+ patterns of one length are batched, fewer are searched one by one
    let pats: Vec<Vec<u8>> = (0..r.random_range(1..20)).map(|_| random_seq(r, alphabet, m)).collect();
    let n = r.random_range(1..25);
    let mut texts = planted_texts(r, alphabet, &pats, opts.rc, opts.k as usize, n, 400, 60);
    for t in texts.iter_mut() {
        if r.random_bool(0.08) {
            *t = None;
        }
    }
    (pats, texts)
}

#[test]
fn assignments_equal_the_best_hit_rule_on_every_strategy() {
    let mut r = rng(23);
    for alphabet in [Alphabet::Dna, Alphabet::Iupac, Alphabet::Ascii] {
        for round in 0..scaled(80) {
            let m = r.random_range(3..30);
            let opts = random_opts(&mut r, alphabet, m, round);
            let (pats, texts) = random_input(&mut r, alphabet, &opts, m);
            let expect = rule(&hits(&opts, &pats, &texts), texts.len());
            for (window, threads) in [(usize::MAX >> 2, opts.threads), (50, 3), (7, 2)] {
                let o = SearchOptions { window, threads, ..opts.clone() };
                let got = assignments(&o, &pats, &texts);
                assert_eq!(flat(&got), expect, "window={window} threads={threads} {opts:?}");
                for (b, t) in got.iter().zip(&texts) {
                    assert_eq!(b.missing, t.is_none());
                }
            }
        }
    }
}

/// The end slices of `texts` as the issue defines them, cut here by hand:
/// (slice, record, offset).
fn end_slices(texts: &[Option<Vec<u8>>], head: usize, tail: usize) -> Vec<(Option<Vec<u8>>, u32, u32)> {
    let mut out = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        match t {
            Some(t) if t.len() > head + tail => {
                if head > 0 {
                    out.push((Some(t[..head].to_vec()), i as u32, 0));
                }
                if tail > 0 {
                    out.push((Some(t[t.len() - tail..].to_vec()), i as u32, (t.len() - tail) as u32));
                }
            }
            t => out.push((t.clone(), i as u32, 0)),
        }
    }
    out
}

#[test]
fn ends_equal_searching_the_end_substrings() {
    let mut r = rng(150);
    for alphabet in [Alphabet::Dna, Alphabet::Iupac, Alphabet::Ascii] {
        for round in 0..scaled(80) {
            let m = r.random_range(3..20);
            let opts = random_opts(&mut r, alphabet, m, round);
            let (pats, texts) = random_input(&mut r, alphabet, &opts, m);
            let (head, tail) = match round % 4 {
                0 => (r.random_range(0..120), 0),
                1 => (0, r.random_range(1..120)),
                _ => (r.random_range(1..120), r.random_range(1..120)),
            };
            let slices = end_slices(&texts, head, tail);
            let slice_texts: Vec<Option<Vec<u8>>> = slices.iter().map(|s| s.0.clone()).collect();
            // the reference: today's search of the substrings, shifted
            let sh = hits(&opts, &pats, &slice_texts);
            let mut rows: Vec<(u32, u32, u32, u32, bool, u32, u32, i32)> = (0..sh.len())
                .map(|i| {
                    let (_, rec, off) = slices[sh.record[i] as usize];
                    (rec, sh.pattern[i], sh.start[i] + off, sh.end[i] + off, sh.minus[i], sh.pattern_start[i], sh.pattern_end[i], sh.cost[i])
                })
                .collect();
            rows.sort();
            let o = SearchOptions { ends: Some((head, tail)), cigar: false, ..opts.clone() };
            let got = hits(&o, &pats, &texts);
            let got_rows: Vec<_> = (0..got.len())
                .map(|i| (got.record[i], got.pattern[i], got.start[i], got.end[i], got.minus[i], got.pattern_start[i], got.pattern_end[i], got.cost[i]))
                .collect();
            assert_eq!(got_rows, rows, "hits, ends=({head}, {tail}) {opts:?}");
            // counts add up over a record's slices; contains is "any"
            let n = texts.len();
            let sc = values(&opts, Mode::Count, &pats, &slice_texts);
            let count = values(&o, Mode::Count, &pats, &texts);
            let contains = values(&o, Mode::Contains, &pats, &texts);
            for p in 0..pats.len() {
                for rec in 0..n {
                    let mine: Vec<i32> = (0..slices.len()).filter(|&s| slices[s].1 == rec as u32).map(|s| sc[p * slices.len() + s]).collect();
                    let want = if texts[rec].is_none() { i32::MIN } else { mine.iter().sum() };
                    assert_eq!(count[p * n + rec], want, "count p={p} rec={rec}");
                    let want = if texts[rec].is_none() { i32::MIN } else { (want > 0) as i32 };
                    assert_eq!(contains[p * n + rec], want, "contains p={p} rec={rec}");
                }
            }
            // assignments: the rule on the shifted hits
            let mut shifted = HitBuffer::default();
            for &(rec, p, s, e, minus, ..) in &rows {
                shifted.record.push(rec);
                shifted.pattern.push(p);
                shifted.start.push(s);
                shifted.end.push(e);
                shifted.minus.push(minus);
            }
            shifted.cost = rows.iter().map(|r| r.7).collect();
            let got = assignments(&SearchOptions { window: 30, ..o.clone() }, &pats, &texts);
            assert_eq!(flat(&got), rule(&shifted, n), "assign, ends=({head}, {tail})");
        }
    }
}

#[test]
fn ends_name_the_record_of_a_bad_letter() {
    let pats = vec![b"ACGT".to_vec()];
    let texts = vec![Some(b"ACGTACGTAC".to_vec()), Some(b"AAAAAAAAAAAAAAAAAAAQAA".to_vec())];
    let o = SearchOptions { k: 1, alphabet: Alphabet::Dna, ends: Some((5, 5)), ..Default::default() };
    let p: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
    let plan = ducksassy_core::SearchPlan::new(&o, &p).unwrap();
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
    let e = ducksassy_core::run(&plan, &t, &ducksassy_core::Control::new(), None).unwrap_err();
    match e {
        ducksassy_core::CoreError::InvalidLetter { index, position, .. } => assert_eq!((index, position), (1, 19)),
        e => panic!("{e:?}"),
    }
}

/// The edits on pattern letters `[a, b)` of a CIGAR that starts at pattern
/// letter `from`, counted column by column of the alignment: a column of a
/// pattern letter in the span that is not `=`, a text letter alone (`D`)
/// with span letters on both sides of it, and a span letter in no column
/// (over the text's edge).
fn span_edits_by_columns(cigar: &[u8], from: u32, (a, b): (u32, u32)) -> u32 {
    let text = String::from_utf8(cigar.to_vec()).unwrap();
    let mut cols: Vec<(Option<u32>, char)> = Vec::new();
    let mut p = from;
    let mut n = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            n.push(c);
            continue;
        }
        for _ in 0..n.parse::<u32>().unwrap() {
            if c == 'D' {
                cols.push((None, c));
            } else {
                cols.push((Some(p), c));
                p += 1;
            }
        }
        n.clear();
    }
    let inside = |i: u32| i >= a && i < b;
    let mut edits = (a..b).filter(|&i| cols.iter().all(|c| c.0 != Some(i))).count() as u32;
    for (j, &(letter, op)) in cols.iter().enumerate() {
        match letter {
            Some(i) => edits += (inside(i) && op != '=') as u32,
            None => {
                let before = cols[..j].iter().rev().find_map(|c| c.0).map_or(from as i64 - 1, |i| i as i64);
                let after = cols[j + 1..].iter().find_map(|c| c.0).map_or(p as i64, |i| i as i64);
                edits += (before >= a as i64 && after < b as i64) as u32;
            }
        }
    }
    edits
}

#[test]
fn the_best_hit_carries_the_edits_on_its_barcode_letters() {
    let mut r = rng(380);
    for alphabet in [Alphabet::Dna, Alphabet::Iupac] {
        for round in 0..scaled(60) {
            let m = r.random_range(6..30);
            let opts = random_opts(&mut r, alphabet, m, round);
            let opts = SearchOptions { indels: true, ..opts };
            let (pats, texts) = random_input(&mut r, alphabet, &opts, m);
            let spans: Vec<(u32, u32)> = pats
                .iter()
                .map(|p| {
                    let a = r.random_range(0..p.len() as u32);
                    (a, r.random_range(a..=p.len() as u32))
                })
                .collect();
            let h = hits(&SearchOptions { cigar: true, ..opts.clone() }, &pats, &texts);
            // the oracle: the rule's best row, and its CIGAR's edits column by column
            let expect: Vec<Option<u32>> = (0..texts.len() as u32)
                .map(|rec| {
                    let best = (0..h.len()).filter(|&i| h.record[i] == rec).min_by_key(|&i| (h.cost[i], h.pattern[i], h.start[i], h.end[i], h.minus[i]));
                    best.map(|i| span_edits_by_columns(h.cigar(i), h.pattern_start[i], spans[h.pattern[i] as usize]))
                })
                .collect();
            for (window, threads) in [(usize::MAX >> 2, opts.threads), (50, 3)] {
                let o = SearchOptions { window, threads, mode: Mode::Assign, ..opts.clone() };
                let p: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
                let mut plan = ducksassy_core::SearchPlan::new(&o, &p).unwrap();
                plan.set_barcode_spans(spans.clone());
                let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
                let got = match ducksassy_core::run(&plan, &t, &ducksassy_core::Control::new(), None).unwrap() {
                    Output::Best(b) => b,
                    _ => unreachable!(),
                };
                let got: Vec<Option<u32>> = got.iter().map(|b| b.hit.map(|h| h.barcode_edits)).collect();
                assert_eq!(got, expect, "window={window} threads={threads} {opts:?}");
            }
        }
    }
}

/// The hits of `b` (records of `texts`) that hang over a record's first or
/// last letter and lie within its searched ends.
fn overhanging_at_record_ends(b: &HitBuffer, pats: &[Vec<u8>], texts: &[Option<Vec<u8>>], ends: (usize, usize)) -> Vec<usize> {
    (0..b.len())
        .filter(|&i| {
            let n = texts[b.record[i] as usize].as_ref().unwrap().len();
            let m = pats[b.pattern[i] as usize].len() as u32;
            let (first, last) = (b.pattern_start[i] > 0, b.pattern_end[i] < m);
            let (left, right) = if b.minus[i] { (last, first) } else { (first, last) };
            let whole = n <= ends.0 + ends.1;
            let in_head = whole || (b.end[i] as usize) <= ends.0;
            let in_tail = whole || (b.start[i] as usize) >= n - ends.1;
            (left || right) && (!left || (b.start[i] == 0 && in_head)) && (!right || (b.end[i] as usize == n && in_tail))
        })
        .collect()
}

#[test]
fn overhang_at_the_records_own_ends_is_the_union_of_two_searches() {
    let mut r = rng(391);
    for round in 0..scaled(60) {
        let m = r.random_range(6..30);
        let opts = random_opts(&mut r, Alphabet::Iupac, m, round);
        let opts = SearchOptions { overhang: Some([0.5, 0.3, 1.0][round % 3]), indels: true, ..opts };
        let (pats, mut texts) = random_input(&mut r, Alphabet::Iupac, &opts, m);
        // records that start or end inside a pattern
        for t in texts.iter_mut().flatten() {
            let p = &pats[r.random_range(0..pats.len())];
            let cut = r.random_range(1..p.len());
            if r.random_bool(0.5) {
                t.splice(0..0, p[cut..].iter().copied());
            } else {
                t.extend_from_slice(&p[..cut]);
            }
        }
        let ends = match round % 3 {
            0 => (r.random_range(20..80), r.random_range(20..80)),
            1 => (r.random_range(20..80), 0),
            _ => (r.random_range(5..20), r.random_range(5..20)),
        };
        let p: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
        let o = SearchOptions { mode: Mode::Assign, ends: Some(ends), ..opts.clone() };
        let margin = (round % 2) as i32;
        let plan = ducksassy_core::edge_overhang::plan(&o, &p, Vec::new(), margin).unwrap();
        let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
        let got = match ducksassy_core::run(&plan, &t, &ducksassy_core::Control::new(), None).unwrap() {
            Output::Best(b) => b,
            _ => unreachable!(),
        };
        // the oracle: the rule on the ends' hits without overhang, and for
        // the records that leaves without a call (by the margin), the whole
        // records' hits with overhang that hang over their ends
        let plain = hits(&SearchOptions { overhang: None, ends: Some(ends), ..opts.clone() }, &pats, &texts);
        let over = hits(&SearchOptions { ends: None, ..opts.clone() }, &pats, &texts);
        let first = rule(&plain, texts.len());
        let called = |rec: u32| matches!(first[rec as usize], (Some(b), o) if o.is_none_or(|o| o > b.0 + margin));
        let mut union = plain.clone();
        for i in overhanging_at_record_ends(&over, &pats, &texts, ends).into_iter().filter(|&i| !called(over.record[i])) {
            union.push_row(&over, i);
        }
        assert_eq!(flat(&got), rule(&union, texts.len()), "ends={ends:?} {opts:?}");
    }
}

/// Issue 52: the ends of one read (`SearchPlan::halves`) do not take each
/// other's site: in a read shorter than both ends, an end's best hit nearer
/// the other end is searched past; reads of at least `2L` are unchanged.
#[test]
fn an_end_does_not_take_the_other_ends_site() {
    let mut r = rng(52);
    let p = random_acgt(&mut r, 20);
    let q = random_acgt(&mut r, 20);
    let mut p1 = p.clone();
    p1[10] = if p1[10] == b'A' { b'C' } else { b'A' };
    let x = |r: &mut StdRng, n| random_acgt(r, n);
    let cat = |parts: &[&[u8]]| parts.concat();
    let texts: Vec<Option<Vec<u8>>> = vec![
        // P alone near the front (65 letters)
        Some(cat(&[&x(&mut r, 5), &p, &x(&mut r, 40)])),
        // P at the front, Q at the rear (80)
        Some(cat(&[&x(&mut r, 5), &p, &x(&mut r, 30), &q, &x(&mut r, 5)])),
        // P with an edit at the front, Q exact at the rear: the front's
        // best, Q, is the rear's
        Some(cat(&[&x(&mut r, 5), &p1, &x(&mut r, 30), &q, &x(&mut r, 5)])),
        // Q alone near the rear
        Some(cat(&[&x(&mut r, 40), &q, &x(&mut r, 5)])),
        // long: 250 letters, P and Q at its ends
        Some(cat(&[&x(&mut r, 5), &p, &x(&mut r, 200), &q, &x(&mut r, 5)])),
        None,
    ];
    let pats = vec![p.clone(), q.clone()];
    let l = 100;
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
    let pr: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
    let run = |ends, halves| {
        let o = SearchOptions { k: 2, rc: false, mode: Mode::Assign, ends: Some(ends), ..Default::default() };
        let mut plan = ducksassy_core::SearchPlan::new(&o, &pr).unwrap();
        plan.halves = halves;
        match ducksassy_core::run(&plan, &t, &ducksassy_core::Control::new(), None).unwrap() {
            Output::Best(b) => b.iter().map(|b| b.hit.map(|h| (h.pattern, h.start, h.cost))).collect::<Vec<_>>(),
            _ => unreachable!(),
        }
    };
    let front = run((l, 0), true);
    let rear = run((0, l), true);
    assert_eq!(front, vec![Some((0, 5, 0)), Some((0, 5, 0)), Some((0, 5, 1)), None, Some((0, 5, 0)), None]);
    assert_eq!(rear, vec![None, Some((1, 55, 0)), Some((1, 55, 0)), Some((1, 40, 0)), Some((1, 225, 0)), None]);
    // without halves each end of a short read is the whole read
    assert_eq!(run((0, l), false)[0], Some((0, 5, 0)));
    // a long read's ends are the same with and without
    assert_eq!(run((l, 0), false)[4], front[4]);
    assert_eq!(run((0, l), false)[4], rear[4]);
}
