//! CRISPR search against a brute-force oracle of its definition (crispr.rs):
//! edit distance over guide + PAM with the PAM letters aligned to text letters
//! without edits (unless `allow_pam_edits`), the N fraction of the reported
//! region at most `max_n_frac`, every qualifying end position reported, on
//! both strands. Random genomes, short texts, windows and thread counts, and
//! the E. coli genome of Debian's bowtie-examples when it is installed.

mod common;
use common::*;
use ducksassy_core::crispr::{self, CrisprOptions};
use ducksassy_core::{run, Control, HitBuffer, Output, SearchOptions};
use rand::rngs::StdRng;
use rand::Rng;
use std::collections::BTreeMap;
use std::io::Read;

/// What the oracle says about one end position on one strand.
#[derive(Debug, Clone)]
struct Expect {
    cost: i32,
    /// Starts (on the strand's text) of every alignment with that cost.
    starts: Vec<usize>,
    /// `Some(true)`: must be reported (every optimal region passes the N
    /// filter); `Some(false)`: must not be (none does); `None`: either, the
    /// traceback's choice of region decides.
    must: Option<bool>,
}

/// Key of a hit: (minus strand, end position on that strand's text).
type Key = (bool, usize);

fn n_frac_ok(region: &[u8], max: f64) -> bool {
    let n = region.iter().filter(|&&c| c == b'N' || c == b'n').count();
    region.is_empty() || n as f64 / region.len() as f64 <= max
}

fn matches(p: u8, t: u8) -> bool {
    iupac_bits(p) & iupac_bits(t) != 0
}

/// Cost of aligning all of `pat` to `text[end - j..end]` for every `j` up to
/// `pat.len() + k` (beyond, the cost exceeds `k`), anchored at `end`, with a
/// band and an early exit once a whole row exceeds `k`. Returns (best cost,
/// the `j`s that reach it) or `None` if the best exceeds `k`.
fn anchored(pat: &[u8], text: &[u8], end: usize, k: usize) -> Option<(i32, Vec<usize>)> {
    let m = pat.len();
    let w = (m + k).min(end);
    let inf = i32::MAX / 2;
    // prev[j]: cost of the last i pattern letters against the last j text letters
    let mut prev: Vec<i32> = (0..=w as i32).collect();
    let mut cur = vec![inf; w + 1];
    for i in 1..=m {
        cur[0] = i as i32;
        let mut row_min = cur[0];
        for j in 1..=w {
            let sub = prev[j - 1] + !matches(pat[m - i], text[end - j]) as i32;
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
            row_min = row_min.min(cur[j]);
        }
        if row_min > k as i32 {
            return None;
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let best = *prev.iter().min().unwrap();
    (best <= k as i32).then(|| (best, (0..=w).filter(|&j| prev[j] == best).collect()))
}

/// Every end position of `guide` on one strand's text `t` that qualifies.
fn oracle_strand(guide: &[u8], t: &[u8], k: usize, p: usize, c: &CrisprOptions, minus: bool, out: &mut BTreeMap<Key, Expect>) {
    let (searched, pam) = if c.allow_pam_edits { (guide, &guide[guide.len()..]) } else { guide.split_at(guide.len() - p) };
    for e in pam.len()..=t.len() {
        let sp_end = e - pam.len();
        if !pam.iter().zip(&t[sp_end..e]).all(|(&a, &b)| matches(a, b)) {
            continue;
        }
        let Some((cost, js)) = anchored(searched, t, sp_end, k) else { continue };
        let starts: Vec<usize> = js.iter().map(|j| sp_end - j).collect();
        let pass: Vec<bool> = starts.iter().map(|&s| n_frac_ok(&t[s..e], c.max_n_frac)).collect();
        let must = if pass.iter().all(|&x| x) {
            Some(true)
        } else if pass.iter().all(|&x| !x) {
            Some(false)
        } else {
            None
        };
        out.insert((minus, e), Expect { cost, starts, must });
    }
}

fn oracle(guide: &[u8], text: &[u8], k: usize, rc: bool, pam_length: usize, c: &CrisprOptions) -> BTreeMap<Key, Expect> {
    let mut out = BTreeMap::new();
    oracle_strand(guide, text, k, pam_length, c, false, &mut out);
    if rc {
        oracle_strand(guide, &revcomp(text), k, pam_length, c, true, &mut out);
    }
    out
}

fn crispr_hits(opts: &SearchOptions, c: &CrisprOptions, guides: &[Vec<u8>], texts: &[Option<Vec<u8>>]) -> HitBuffer {
    crispr_hits_lanes(opts, c, guides, texts, None)
}

/// [`crispr_hits`] with text lanes set: `Some((lane_max_len, lane_group))`
/// (0 = one record at a time), `None` as the plan has them.
fn crispr_hits_lanes(opts: &SearchOptions, c: &CrisprOptions, guides: &[Vec<u8>], texts: &[Option<Vec<u8>>], lanes: Option<(usize, usize)>) -> HitBuffer {
    let g: Vec<&[u8]> = guides.iter().map(|p| p.as_slice()).collect();
    let mut plan = crispr::plan(opts, &g, c).expect("valid plan");
    if let Some((max_len, group)) = lanes {
        plan.lane_max_len = max_len;
        plan.lane_group = group;
    }
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

/// Check every hit of (`record`, `guide`) against the oracle, and that every
/// end position the oracle requires is there. Returns the number of hits.
#[allow(clippy::too_many_arguments)]
fn check_record(
    hits: &HitBuffer,
    rows: &[usize],
    guide: &[u8],
    text: &[u8],
    k: usize,
    rc: bool,
    pam_length: usize,
    c: &CrisprOptions,
    ctx: &str,
) {
    let want = oracle(guide, text, k, rc, pam_length, c);
    let n = text.len();
    let rctext = revcomp(text);
    let mut seen = std::collections::BTreeSet::new();
    for &i in rows {
        let minus = hits.minus[i];
        let (s, e) = (hits.start[i] as usize, hits.end[i] as usize);
        let key = if minus { (true, n - s) } else { (false, e) };
        assert!(seen.insert(key), "{ctx}: end position reported twice: {key:?}");
        let Some(x) = want.get(&key) else {
            panic!("{ctx}: hit {key:?} (start {s}, cost {}) is not a qualifying end position", hits.cost[i]);
        };
        assert_ne!(x.must, Some(false), "{ctx}: hit {key:?} should have been dropped by max_n_frac");
        assert_eq!(hits.cost[i], x.cost, "{ctx}: cost at {key:?}");
        let (strand_start, region) = if minus { (n - e, &rctext[n - e..n - s]) } else { (s, &text[s..e]) };
        assert!(x.starts.contains(&strand_start), "{ctx}: start {strand_start} at {key:?} is not optimal ({:?})", x.starts);
        assert!(n_frac_ok(region, c.max_n_frac), "{ctx}: region of {key:?} has too many N");
        assert_eq!((hits.pattern_start[i], hits.pattern_end[i] as usize), (0, guide.len()), "{ctx}: pattern range");
        let cigar = hits.cigar(i);
        let cost = cigar_cost(ducksassy_core::Alphabet::Iupac, false, cigar, guide, region)
            .unwrap_or_else(|err| panic!("{ctx}: bad CIGAR {} at {key:?}: {err}", String::from_utf8_lossy(cigar)));
        assert_eq!(cost, x.cost, "{ctx}: CIGAR {} cost", String::from_utf8_lossy(cigar));
        if !c.allow_pam_edits {
            assert!(ends_with_matches(cigar) >= pam_length, "{ctx}: PAM not all matches in {}", String::from_utf8_lossy(cigar));
        }
    }
    for (key, x) in &want {
        if x.must == Some(true) {
            assert!(seen.contains(key), "{ctx}: missing hit at {key:?} with cost {} (starts {:?})", x.cost, x.starts);
        }
    }
}

/// Length of the final run of `=` in a CIGAR.
fn ends_with_matches(cigar: &[u8]) -> usize {
    let s = std::str::from_utf8(cigar).unwrap();
    if !s.ends_with('=') {
        return 0;
    }
    let body = &s[..s.len() - 1];
    let digits: String = body.chars().rev().take_while(|c| c.is_ascii_digit()).collect::<Vec<_>>().into_iter().rev().collect();
    digits.parse().unwrap_or(0)
}

/// Compare all hits of a search with the oracle, record by record and guide
/// by guide; also check the row order.
fn check_all(hits: &HitBuffer, opts: &SearchOptions, c: &CrisprOptions, guides: &[Vec<u8>], texts: &[Option<Vec<u8>>], ctx: &str) {
    assert!(hits.is_sorted(), "{ctx}: rows out of order");
    let mut rows: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
    for i in 0..hits.len() {
        rows.entry((hits.record[i], hits.pattern[i])).or_default().push(i);
    }
    for (ti, t) in texts.iter().enumerate() {
        for (gi, g) in guides.iter().enumerate() {
            let r = rows.remove(&(ti as u32, gi as u32)).unwrap_or_default();
            match t {
                None => assert!(r.is_empty(), "{ctx}: hits in a missing text"),
                Some(t) => {
                    let ctx = format!(
                        "{ctx} text {ti} ({}) guide {gi} ({})",
                        String::from_utf8_lossy(&t[..t.len().min(80)]),
                        String::from_utf8_lossy(g)
                    );
                    let pam_length = if c.pam_length.len() == 1 { c.pam_length[0] } else { c.pam_length[gi] };
                    check_record(hits, &r, g, t, opts.k as usize, opts.rc, pam_length, c, &ctx)
                }
            }
        }
    }
    assert!(rows.is_empty(), "{ctx}: hits for records or guides that do not exist");
}

const PAMS: [&[u8]; 6] = [b"NGG", b"NAG", b"TTTV", b"G", b"NNGRRT", b"YG"];

/// Guides with a PAM of `pam_length` letters each, or of random lengths
/// (returned) when `pam_length` is 0.
fn random_guides(r: &mut StdRng, pam_length: usize) -> (Vec<Vec<u8>>, Vec<usize>) {
    let mut lengths = Vec::new();
    let guides = (0..r.random_range(1..5))
        .map(|_| {
            let pam_length = if pam_length == 0 { r.random_range(1..7) } else { pam_length };
            lengths.push(pam_length);
            let spacer_len = r.random_range(3..14);
            let mut g = if r.random_bool(0.8) { random_acgt(r, spacer_len) } else { random_seq(r, ducksassy_core::Alphabet::Iupac, spacer_len) };
            // a PAM of the right length: a known one cut or padded, or random IUPAC
            let pam: Vec<u8> = match PAMS.iter().find(|p| p.len() == pam_length) {
                Some(p) if r.random_bool(0.7) => p.to_vec(),
                _ => random_seq(r, ducksassy_core::Alphabet::Iupac, pam_length),
            };
            g.extend(pam);
            g
        })
        .collect();
    (guides, lengths)
}

/// Options, CRISPR options, guides and texts of one random case.
type Case = (SearchOptions, CrisprOptions, Vec<Vec<u8>>, Vec<Option<Vec<u8>>>);

fn random_case(r: &mut StdRng) -> Case {
    // one PAM length for all guides, or one per guide (0)
    let pam_length = if r.random_bool(0.3) { 0 } else { r.random_range(1..5) };
    let (guides, lengths) = random_guides(r, pam_length);
    let allow_pam_edits = r.random_bool(0.25);
    let min_searched = guides.iter().zip(&lengths).map(|(g, p)| if allow_pam_edits { g.len() } else { g.len() - p }).min().unwrap();
    let k = r.random_range(0..min_searched.min(4));
    let max_n_frac = [0.0, 0.1, 0.2, 0.34, 0.5, 1.0][r.random_range(0..6)];
    let rc = r.random_bool(0.7);
    let texts = (0..r.random_range(1..10))
        .map(|_| {
            if r.random_bool(0.05) {
                return None;
            }
            let len = r.random_range(0..80);
            let mut t = if r.random_bool(0.5) { random_acgt(r, len) } else { random_seq(r, ducksassy_core::Alphabet::Iupac, len) };
            for _ in 0..r.random_range(0..3) {
                let g = guides[r.random_range(0..guides.len())].clone();
                // plant the guide with its PAM letters resolved to bases
                let g: Vec<u8> = g.iter().map(|&c| resolve(r, c)).collect();
                let g = if rc && r.random_bool(0.5) { revcomp(&g) } else { g };
                let e = r.random_range(0..=k + 1);
                plant(r, &mut t, &g, e);
            }
            if r.random_bool(0.2) && !t.is_empty() {
                // a run of N
                let a = r.random_range(0..t.len());
                let b = (a + r.random_range(1..12)).min(t.len());
                t[a..b].fill(b'N');
            }
            Some(t)
        })
        .collect();
    let opts = SearchOptions { k: k as i64, rc, threads: r.random_range(1..4), ..Default::default() };
    let pam_length = if pam_length == 0 { lengths } else { vec![pam_length] };
    (opts, CrisprOptions { pam_length, allow_pam_edits, max_n_frac }, guides, texts)
}

/// A base that IUPAC code `c` stands for.
fn resolve(r: &mut StdRng, c: u8) -> u8 {
    let bits = iupac_bits(c);
    let bases: Vec<u8> = [(1, b'A'), (2, b'C'), (4, b'G'), (8, b'T')].iter().filter(|(b, _)| bits & b != 0).map(|&(_, l)| l).collect();
    if bases.is_empty() { b'A' } else { bases[r.random_range(0..bases.len())] }
}

#[test]
fn random_cases_equal_the_oracle() {
    let mut r = rng(2024);
    for case in 0..scaled(1500) {
        let (opts, c, guides, texts) = random_case(&mut r);
        // text lanes (lanes.rs) at random group sizes, against the oracle
        // and against one record at a time
        let lanes = (ducksassy_core::lanes::LANE_MAX_LEN, r.random_range(1..8));
        let hits = crispr_hits_lanes(&opts, &c, &guides, &texts, Some(lanes));
        let ctx = format!("case {case} k={} rc={} lanes={lanes:?} {c:?}", opts.k, opts.rc);
        check_all(&hits, &opts, &c, &guides, &texts, &ctx);
        let alone = crispr_hits_lanes(&opts, &c, &guides, &texts, Some((0, 1)));
        assert_eq!(rows(&hits), rows(&alone), "{ctx}: lanes against one record at a time");
        assert_eq!(hits, alone, "{ctx}");
    }
}

#[test]
fn random_genomes_with_windows_and_threads_equal_the_oracle() {
    let mut r = rng(7);
    for case in 0..scaled(12).max(3) {
        let len = r.random_range(2_000..12_000);
        let mut genome = random_acgt(&mut r, len);
        if case % 3 == 0 {
            // a gap of N, as assemblies have
            let a = r.random_range(0..len - 300);
            genome[a..a + 300].fill(b'N');
        }
        // guides from the genome itself (with a PAM at their end) and mutated copies
        let pam = [&b"NGG"[..], b"NAG", b"TTTV"][case % 3];
        let mut guides = Vec::new();
        for _ in 0..4 {
            let at = r.random_range(0..len - 30);
            let mut g = genome[at..at + 20].to_vec();
            g.extend_from_slice(pam);
            guides.push(g.clone());
            let mut m = g.clone();
            for _ in 0..2 {
                let i = r.random_range(0..20);
                m[i] = b"ACGT"[r.random_range(0..4)];
            }
            guides.push(m);
        }
        // plant near copies so there is something to find on both strands
        for g in guides.clone() {
            let g: Vec<u8> = g.iter().map(|&c| resolve(&mut r, c)).collect();
            let g = if r.random_bool(0.5) { revcomp(&g) } else { g };
            let e = r.random_range(0..4);
            plant(&mut r, &mut genome, &g, e);
        }
        let c = CrisprOptions { pam_length: vec![pam.len()], allow_pam_edits: case % 4 == 1, max_n_frac: 0.2 };
        let k = 1 + case % 4;
        let texts = vec![Some(genome)];
        let base = SearchOptions { k: k as i64, threads: 1, ..Default::default() };
        let hits = crispr_hits(&base, &c, &guides, &texts);
        check_all(&hits, &base, &c, &guides, &texts, &format!("genome case {case}"));
        // windows of a long record and any thread count give identical output
        for (threads, window) in [(2, 500), (3, 1_000), (1, 64), (2, 5_000)] {
            let o = SearchOptions { threads, window, ..base.clone() };
            let h = crispr_hits(&o, &c, &guides, &texts);
            assert_eq!(h, hits, "genome case {case}: threads {threads} window {window} differ");
        }
    }
}

#[test]
fn texts_shorter_than_guide_or_pam_give_correct_empty_results() {
    let c = CrisprOptions::default();
    let guides = vec![b"ACGTACGTAGG".to_vec(), b"TTTTTGG".to_vec()];
    let texts: Vec<Option<Vec<u8>>> =
        vec![Some(vec![]), Some(b"A".to_vec()), Some(b"GG".to_vec()), Some(b"AGG".to_vec()), Some(b"TTTTGG".to_vec()), None, Some(b"NNN".to_vec())];
    for k in 0..3 {
        let opts = SearchOptions { k, ..Default::default() };
        let hits = crispr_hits(&opts, &c, &guides, &texts);
        check_all(&hits, &opts, &c, &guides, &texts, &format!("short k={k}"));
        let allow = CrisprOptions { allow_pam_edits: true, ..c.clone() };
        let hits = crispr_hits(&opts, &allow, &guides, &texts);
        check_all(&hits, &opts, &allow, &guides, &texts, &format!("short allow k={k}"));
    }
    // k = 4 on the 7-letter guide (spacer 4) is refused, not searched
    let g: Vec<&[u8]> = guides.iter().map(|g| g.as_slice()).collect();
    assert!(crispr::plan(&SearchOptions { k: 4, ..Default::default() }, &g, &c).is_err());
}

#[test]
fn pam_must_match_exactly_unless_allowed() {
    // guide ACGTACGT + NGG; text has the spacer followed by AGC (PAM broken)
    let guides = vec![b"ACGTACGTNGG".to_vec()];
    let texts = vec![Some(b"TTTTACGTACGTAGCTTTT".to_vec()), Some(b"TTTTACGTACGTAGGTTTT".to_vec())];
    let opts = SearchOptions { k: 1, rc: false, ..Default::default() };
    let c = CrisprOptions::default();
    let h = crispr_hits(&opts, &c, &guides, &texts);
    assert!(h.record.iter().all(|&r| r == 1), "no hit where the PAM is broken: {h:?}");
    assert!(h.cost.contains(&0));
    let allow = CrisprOptions { allow_pam_edits: true, ..c };
    let h = crispr_hits(&opts, &allow, &guides, &texts);
    assert!(h.record.contains(&0), "with PAM edits the broken PAM costs one edit");
    check_all(&h, &opts, &allow, &guides, &texts, "allow");
}

#[test]
fn n_runs_are_dropped_by_max_n_frac() {
    // a run of N matches any guide at cost 0; max_n_frac keeps it out
    let guides = vec![b"ACGTACGTACGTACGTACGTNGG".to_vec()];
    let mut t = b"ACGT".repeat(10);
    t.extend(std::iter::repeat_n(b'N', 200));
    t.extend(b"TTGACCA");
    let texts = vec![Some(t)];
    let opts = SearchOptions { k: 2, ..Default::default() };
    for max in [0.0, 0.2, 0.5, 1.0] {
        let c = CrisprOptions { max_n_frac: max, ..Default::default() };
        let h = crispr_hits(&opts, &c, &guides, &texts);
        check_all(&h, &opts, &c, &guides, &texts, &format!("N run max {max}"));
        if max < 1.0 {
            assert!(h.len() < 40, "N run reported with max_n_frac {max}: {} hits", h.len());
        } else {
            assert!(h.len() > 300, "every end position in the N run with max_n_frac 1");
        }
    }
}

#[test]
fn one_worker_reused_across_cases() {
    // the same thread's searcher state runs CRISPR and plain searches in turn
    let mut r = rng(99);
    for case in 0..scaled(200) {
        let (opts, c, guides, texts) = random_case(&mut r);
        let opts = SearchOptions { threads: 1, ..opts };
        let a = crispr_hits(&opts, &c, &guides, &texts);
        let _plain = hits(&SearchOptions { k: 0, ..Default::default() }, &guides, &texts);
        let b = crispr_hits(&opts, &c, &guides, &texts);
        assert_eq!(a, b, "case {case}: state leaked between calls");
    }
}

/// Debian's bowtie-examples E. coli genome (NC_008253), if installed.
fn ecoli() -> Option<Vec<u8>> {
    let paths = [
        "/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz",
        "/usr/share/bowtie-examples/genomes/NC_008253.fna.gz",
        "/usr/share/bowtie/examples/genomes/NC_008253.fna.gz",
    ];
    let path = paths.iter().find(|p| std::path::Path::new(p).exists())?;
    let mut s = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).ok()?).read_to_string(&mut s).ok()?;
    let seq: Vec<u8> = s.lines().filter(|l| !l.starts_with('>')).flat_map(|l| l.trim().bytes()).collect();
    Some(seq)
}

#[test]
fn ecoli_guide_panel_equals_the_oracle() {
    let Some(genome) = ecoli() else {
        eprintln!("skipped: bowtie-examples E. coli genome not installed");
        return;
    };
    assert!(genome.len() > 4_000_000);
    // guides: 20-mers followed by NGG taken from the genome at fixed places
    // (both strands), and copies with 1-3 substitutions
    let mut r = rng(5);
    let mut guides = Vec::new();
    let mut at = 100_000;
    // scaled down (memcheck): two guide pairs, one per strand, and the genome
    // up to just past them
    let n_guides = if scaled(8) < 8 { 4 } else { 8 };
    let mut last_end = 0;
    while guides.len() < n_guides {
        let w = &genome[at..at + 23];
        let acgt = w.iter().all(|c| b"ACGT".contains(c));
        // every other guide targets the minus strand: CCN + protospacer there
        let minus = guides.len() % 4 == 2;
        let g = if !acgt {
            None
        } else if !minus && w[21] == b'G' && w[22] == b'G' {
            Some(w[..20].to_vec())
        } else if minus && w[0] == b'C' && w[1] == b'C' {
            Some(revcomp(&w[3..]))
        } else {
            None
        };
        if let Some(mut g) = g {
            g.extend(b"NGG");
            let mut m = g.clone();
            for _ in 0..(1 + guides.len() % 3) {
                let i = r.random_range(0..20);
                m[i] = b"ACGT"[r.random_range(0..4)];
            }
            guides.push(g);
            guides.push(m);
            last_end = at + 23;
            at += 531_003;
        } else {
            at += 1;
        }
    }
    let used = if n_guides < 8 { (last_end + 50_000).min(genome.len()) } else { genome.len() };
    let texts = vec![Some(genome[..used].to_vec())];
    let c = CrisprOptions::default();
    for k in [2usize, 4] {
        let opts = SearchOptions { k: k as i64, threads: 2, ..Default::default() };
        let hits = crispr_hits(&opts, &c, &guides, &texts);
        check_all(&hits, &opts, &c, &guides, &texts, &format!("E. coli k={k}"));
        // the guides taken from the genome are found where they came from
        for gi in (0..guides.len()).step_by(2) {
            assert!((0..hits.len()).any(|i| hits.pattern[i] == gi as u32 && hits.cost[i] == 0), "guide {gi} not found exactly");
        }
    }
}
