//! Stopping a search: tracing long patterns in steps gives sassy's own
//! matches; cancel set from another thread stops even one heavy record
//! quickly; the hits held at a `max_hits` error are bounded by one sassy
//! call's hits per thread.

mod common;
use common::*;
use ducksassy_core::{run, Alphabet, Control, CoreError, HitBuffer, Mode, Output, SearchOptions, SearchPlan};
use rand::Rng;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

fn plan(opts: &SearchOptions, patterns: &[Vec<u8>]) -> SearchPlan {
    let pats: Vec<&[u8]> = patterns.iter().map(|p| p.as_slice()).collect();
    SearchPlan::new(opts, &pats).expect("valid plan")
}

fn run_plan(plan: &SearchPlan, texts: &[Option<Vec<u8>>]) -> Output {
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
    run(plan, &t, &Control::new(), None).expect("search ok")
}

fn all_hits(out: Output) -> HitBuffer {
    let Output::Hits(bufs) = out else { panic!("not hits") };
    let mut all = HitBuffer::default();
    for b in &bufs {
        all.extend_all(b);
    }
    all
}

fn rows(h: &HitBuffer) -> Vec<(ducksassy_core::hits::HitKey, i32, String)> {
    (0..h.len()).map(|i| (h.key(i), h.cost[i], String::from_utf8_lossy(h.cigar(i)).into_owned())).collect()
}

/// Every pattern traced in steps (threshold 0) gives the hits, counts and
/// presence of sassy's own traceback, with overhang, the N filter, windows
/// and all end points, and the hits pass the oracle's checks.
#[test]
fn traceback_in_steps_equals_sassys_own() {
    let mut r = rng(71);
    for alphabet in [Alphabet::Dna, Alphabet::Iupac, Alphabet::Ascii] {
        for round in 0..120 {
            let m = r.random_range(1..40);
            let k = r.random_range(0..m.min(8));
            let rc = alphabet != Alphabet::Ascii && r.random_bool(0.7);
            let pats: Vec<Vec<u8>> = (0..r.random_range(1..4)).map(|_| random_seq(&mut r, alphabet, m)).collect();
            let n = r.random_range(1..5);
            let texts = planted_texts(&mut r, alphabet, &pats, rc, k, n, 400, 30);
            let mut opts = SearchOptions {
                k: k as i64,
                alphabet,
                rc,
                all_endpoints: round % 2 == 0,
                ignore_case: alphabet == Alphabet::Ascii && round % 3 == 0,
                threads: 1 + round % 3,
                window: if round % 5 == 0 { 50 } else { 1 << 18 },
                ..Default::default()
            };
            if alphabet == Alphabet::Iupac {
                if round % 4 == 1 && !pats.iter().any(|p| p.contains(&b'X') || p.contains(&b'x')) {
                    opts.overhang = Some(r.random_range(0.0..1.0));
                }
                if round % 3 == 1 {
                    opts.max_n_frac = Some(r.random_range(0.0..1.0));
                }
            }
            for mode in [Mode::Hits, Mode::Count, Mode::Contains] {
                let o = SearchOptions { mode, ..opts.clone() };
                let sassy = plan(&o, &pats);
                let mut steps = sassy.clone();
                steps.step_trace_blocks = 0;
                let (a, b) = (run_plan(&sassy, &texts), run_plan(&steps, &texts));
                match (a, b) {
                    (Output::Values(a), Output::Values(b)) => assert_eq!(a, b, "{mode:?} {o:?}"),
                    (a, b) => {
                        let (a, b) = (all_hits(a), all_hits(b));
                        assert_eq!(rows(&a), rows(&b), "{o:?}");
                        for i in 0..b.len() {
                            assert!(b.cost[i] <= k as i32);
                            if opts.overhang.is_some() {
                                continue; // the CIGAR then covers part of the pattern
                            }
                            let t = texts[b.record[i] as usize].as_ref().unwrap();
                            let p = &pats[b.pattern[i] as usize];
                            let region = &t[b.start[i] as usize..b.end[i] as usize];
                            let region = if b.minus[i] { revcomp(region) } else { region.to_vec() };
                            let c = cigar_cost(alphabet, opts.ignore_case, b.cigar(i), p, &region).expect("valid CIGAR");
                            assert_eq!(c, b.cost[i]);
                        }
                    }
                }
            }
        }
    }
}

/// A 4,096-letter pattern at k = 2,500 in a 200,000-letter record: ~20,000
/// local minima, each a multi-millisecond traceback (over a minute in one
/// sassy call). Cancel from another thread must stop it within a second.
fn heavy_case() -> (SearchPlan, Vec<u8>) {
    let mut r = rng(4096);
    let p = random_acgt(&mut r, 4096);
    let text = random_acgt(&mut r, 200_000);
    let opts = SearchOptions { k: 2500, alphabet: Alphabet::Dna, rc: true, threads: 2, ..Default::default() };
    (plan(&opts, &[p]), text)
}

fn cancel_after(plan: &SearchPlan, text: &[u8], after: Duration, polled: bool) -> (Result<Output, CoreError>, Duration) {
    let ctl = Control::new();
    let texts = [Some(text)];
    std::thread::scope(|scope| {
        let t0 = Instant::now();
        let (r, cancelled_at) = if polled {
            // as the R binding does: the caller's poll says "cancel"
            let mut poll = || t0.elapsed() >= after;
            let r = run(plan, &texts, &ctl, Some(&mut poll));
            (r, t0 + after)
        } else {
            scope.spawn(|| {
                std::thread::sleep(after);
                ctl.cancel.store(true, Relaxed);
            });
            (run(plan, &texts, &ctl, None), t0 + after)
        };
        (r, Instant::now().saturating_duration_since(cancelled_at))
    })
}

#[test]
fn cancel_stops_one_heavy_record_within_a_second() {
    let (plan, text) = heavy_case();
    for polled in [false, true] {
        let (r, latency) = cancel_after(&plan, &text, Duration::from_millis(500), polled);
        assert!(matches!(r, Err(CoreError::Interrupted)), "polled = {polled}: {:?}", r.map(|o| o.n_hits()));
        eprintln!("heavy record (polled = {polled}): stopped {latency:?} after the cancel");
        assert!(latency < Duration::from_secs(1), "stopped {latency:?} after the cancel (polled = {polled})");
    }
    // counting with the N filter traces too, and stops the same way
    let mut counting = plan.clone();
    counting.mode = Mode::Count;
    counting.max_n_frac = Some(0.5);
    let (r, latency) = cancel_after(&counting, &text, Duration::from_millis(500), false);
    assert!(matches!(r, Err(CoreError::Interrupted)), "{:?}", r.map(|o| o.n_hits()));
    assert!(latency < Duration::from_secs(1), "count stopped {latency:?} after the cancel");
    // and the next search on the same pool is correct: the planted copy
    let mut r = rng(7);
    let p = plan.patterns[0].clone();
    let mut t = random_acgt(&mut r, 20_000);
    t[5000..5000 + p.len()].copy_from_slice(&p);
    let small = SearchPlan { k: 10, ..plan.clone() };
    let h = all_hits(run_plan(&small, &[Some(t)]));
    assert_eq!(h.len(), 1);
    assert_eq!((h.start[0], h.end[0], h.cost[0], h.minus[0]), (5000, 5000 + 4096, 0, false));
}

/// `max_hits` is checked after every sassy call against the hits all
/// workers hold: at the error they hold more than the limit, and at most
/// one call's hits more per thread.
#[test]
fn hits_held_at_the_limit_error_are_bounded_by_one_call_per_thread() {
    // 3 forward hits per record, 100,000 records, 4 threads
    let texts: Vec<Option<Vec<u8>>> = vec![Some(b"ACGTTTACGTTTACGT".to_vec()); 100_000];
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
    // one sassy call: one record, or a group of records in text lanes
    for (lanes, per_call) in [(false, 1u64), (true, ducksassy_core::lanes::LANE_GROUP as u64)] {
        for threads in [1, 2, 4] {
            for limit in [0u64, 1000, 99_999] {
                let opts = SearchOptions { alphabet: Alphabet::Dna, rc: false, threads, max_hits: Some(limit), text_lanes: Some(lanes), ..Default::default() };
                let plan = plan(&opts, &[b"ACGT".to_vec()]);
                let ctl = Control::new();
                let e = run(&plan, &t, &ctl, None).unwrap_err();
                assert_eq!(e, CoreError::TooManyHits { limit });
                let held = ctl.hits.load(Relaxed);
                let most = limit + 3 * per_call * threads as u64;
                assert!(held > limit && held <= most, "held {held} hits at the limit {limit} with {threads} threads (lanes {lanes})");
            }
        }
    }
    for threads in [1, 2, 4] {
        // exactly at the limit: no error, all hits
        let opts = SearchOptions { alphabet: Alphabet::Dna, rc: false, threads, max_hits: Some(300_000), ..Default::default() };
        let out = run(&plan(&opts, &[b"ACGT".to_vec()]), &t, &Control::new(), None).unwrap();
        assert_eq!(out.n_hits(), 300_000);
    }
}

#[test]
fn hits_held_at_the_limit_error_in_one_long_record_are_bounded_by_one_window_per_thread() {
    // every end position of an N run matches: 2 million hits per strand
    let text = vec![b'N'; 2_000_000];
    let t = [Some(text.as_slice())];
    let window = 1 << 14;
    for threads in [1, 4] {
        let opts = SearchOptions { k: 2, all_endpoints: true, cigar: false, threads, window, max_hits: Some(50_000), ..Default::default() };
        let plan = plan(&opts, &[b"NNNNNNNNNNNNNNNNACGT".to_vec()]);
        let ctl = Control::new();
        assert_eq!(run(&plan, &t, &ctl, None).unwrap_err(), CoreError::TooManyHits { limit: 50_000 });
        let held = ctl.hits.load(Relaxed);
        // one call is one strand of one window: at most `window` owned hits
        assert!(held > 50_000 && held <= 50_000 + (threads * window) as u64, "held {held} with {threads} threads");
    }
    // a long pattern (traced in steps) adds one batch of traces at a time
    let mut r = rng(3);
    let p: Vec<u8> = (0..300).map(|i| if i % 50 == 0 { b"ACGT"[r.random_range(0..4)] } else { b'N' }).collect();
    let opts = SearchOptions { k: 8, all_endpoints: true, cigar: false, threads: 2, max_hits: Some(1000), ..Default::default() };
    let plan = plan(&opts, &[p]);
    let ctl = Control::new();
    assert_eq!(run(&plan, &t, &ctl, None).unwrap_err(), CoreError::TooManyHits { limit: 1000 });
    let held = ctl.hits.load(Relaxed);
    assert!(held > 1000 && held <= 1000 + 2 * 8, "held {held} (long pattern)");
}

