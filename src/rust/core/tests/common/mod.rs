//! Test helpers: a brute-force semi-global edit-distance oracle written
//! independently of the engine, random inputs, and a one-call search driver.
#![allow(dead_code)]

use ducksassy_core::{run, Alphabet, Control, HitBuffer, Mode, Output, SearchOptions, SearchPlan};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

/// How many random cases a test runs: `n` times `DUCKSASSY_TEST_SCALE`
/// (default 1), at least 1. tools/memcheck.sh lowers the scale: under
/// valgrind (20-50x slower) what matters is that every code path runs, not
/// how many random cases do, and the full counts run in `cargo test`.
pub fn scaled(n: usize) -> usize {
    let scale = std::env::var("DUCKSASSY_TEST_SCALE").ok().and_then(|v| v.parse::<f64>().ok()).unwrap_or(1.0);
    ((n as f64 * scale).round() as usize).max(1)
}

/// Bases each IUPAC code stands for, as a bit set (A=1, C=2, G=4, T=8).
pub fn iupac_bits(c: u8) -> u8 {
    match c.to_ascii_uppercase() {
        b'A' => 1,
        b'C' => 2,
        b'G' => 4,
        b'T' | b'U' => 8,
        b'R' => 1 | 4,
        b'Y' => 2 | 8,
        b'S' => 2 | 4,
        b'W' => 1 | 8,
        b'K' => 4 | 8,
        b'M' => 1 | 2,
        b'B' => 2 | 4 | 8,
        b'D' => 1 | 4 | 8,
        b'H' => 1 | 2 | 8,
        b'V' => 1 | 2 | 4,
        b'N' => 15,
        _ => 0, // X and anything else matches nothing
    }
}

/// Whether pattern letter `p` matches text letter `t`.
pub fn letters_match(alphabet: Alphabet, ignore_case: bool, p: u8, t: u8) -> bool {
    match alphabet {
        Alphabet::Dna => p.eq_ignore_ascii_case(&t),
        Alphabet::Iupac => iupac_bits(p) & iupac_bits(t) != 0,
        Alphabet::Ascii => if ignore_case { p.eq_ignore_ascii_case(&t) } else { p == t },
    }
}

/// Reverse complement (IUPAC), upper case.
pub fn revcomp(s: &[u8]) -> Vec<u8> {
    s.iter().rev().map(|&c| ducksassy_core::alphabet::complement_base(c.to_ascii_uppercase())).collect()
}

/// Minimal cost of aligning the whole pattern to a text substring ending at
/// each position `0..=n` (semi-global: free start in the text).
pub fn end_costs(alphabet: Alphabet, ignore_case: bool, pattern: &[u8], text: &[u8]) -> Vec<i32> {
    let (m, n) = (pattern.len(), text.len());
    let mut prev: Vec<i32> = vec![0; n + 1];
    let mut cur = vec![0; n + 1];
    for i in 1..=m {
        cur[0] = i as i32;
        for j in 1..=n {
            let sub = prev[j - 1] + !letters_match(alphabet, ignore_case, pattern[i - 1], text[j - 1]) as i32;
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev
}

/// Oracle presence: some alignment with cost <= k on either searched strand.
pub fn oracle_contains(alphabet: Alphabet, ic: bool, pattern: &[u8], text: &[u8], k: usize, rc: bool) -> bool {
    let fwd = end_costs(alphabet, ic, pattern, text).iter().any(|&c| c <= k as i32);
    fwd || (rc && end_costs(alphabet, ic, pattern, &revcomp(text)).iter().any(|&c| c <= k as i32))
}

/// Oracle count of end positions with cost <= k; on the minus strand the end
/// positions are those in the reverse-complement text.
pub fn oracle_count_all(alphabet: Alphabet, ic: bool, pattern: &[u8], text: &[u8], k: usize, rc: bool) -> usize {
    let count = |t: &[u8]| end_costs(alphabet, ic, pattern, t).iter().filter(|&&c| c <= k as i32).count();
    count(text) + if rc { count(&revcomp(text)) } else { 0 }
}

/// Apply a CIGAR to the pattern against `region` (pattern direction); returns
/// the edit cost, or an error if it does not describe an alignment.
pub fn cigar_cost(alphabet: Alphabet, ic: bool, cigar: &[u8], pattern: &[u8], region: &[u8]) -> Result<i32, String> {
    let (mut i, mut j, mut cost) = (0usize, 0usize, 0i32);
    let mut num = 0usize;
    for &c in cigar {
        if c.is_ascii_digit() {
            num = num * 10 + (c - b'0') as usize;
            continue;
        }
        if num == 0 {
            return Err("zero-length op".into());
        }
        for _ in 0..num {
            match c {
                b'=' | b'X' => {
                    let (p, t) = (*pattern.get(i).ok_or("pattern overrun")?, *region.get(j).ok_or("text overrun")?);
                    let eq = letters_match(alphabet, ic, p, t);
                    if eq != (c == b'=') {
                        return Err(format!("op {} at pattern {i} text {j}: {} vs {}", c as char, p as char, t as char));
                    }
                    cost += (c == b'X') as i32;
                    i += 1;
                    j += 1;
                }
                b'I' => { i += 1; cost += 1; }
                b'D' => { j += 1; cost += 1; }
                _ => return Err(format!("bad op {}", c as char)),
            }
        }
        num = 0;
    }
    if i != pattern.len() || j != region.len() {
        return Err(format!("consumed pattern {i}/{} text {j}/{}", pattern.len(), region.len()));
    }
    Ok(cost)
}

pub fn random_seq(r: &mut StdRng, alphabet: Alphabet, len: usize) -> Vec<u8> {
    const DNA: &[u8] = b"ACGTacgt";
    const IUPAC: &[u8] = b"ACGTACGTACGTACGTacgtNRYSWKMBDHVn";
    const ASCII: &[u8] = b"abcdeABCDE .![{@`_^";
    let set = match alphabet { Alphabet::Dna => DNA, Alphabet::Iupac => IUPAC, Alphabet::Ascii => ASCII };
    (0..len).map(|_| set[r.random_range(0..set.len())]).collect()
}

/// Random sequence over `ACGT` only (still valid for every alphabet).
pub fn random_acgt(r: &mut StdRng, len: usize) -> Vec<u8> {
    (0..len).map(|_| b"ACGT"[r.random_range(0..4)]).collect()
}

/// Copy `pattern` into `text` at a random place with up to `edits` random edits.
pub fn plant(r: &mut StdRng, text: &mut Vec<u8>, pattern: &[u8], edits: usize) {
    let p = edited(r, pattern, edits);
    if text.len() >= p.len() {
        let at = r.random_range(0..=text.len() - p.len());
        text.splice(at..at + p.len(), p);
    }
}

/// A copy of `pattern` with `edits` random substitutions, deletions or
/// insertions (of ACGT letters).
pub fn edited(r: &mut StdRng, pattern: &[u8], edits: usize) -> Vec<u8> {
    let mut p = pattern.to_vec();
    for _ in 0..edits {
        if p.is_empty() { break; }
        let i = r.random_range(0..p.len());
        match r.random_range(0..3) {
            0 => p[i] = b"ACGT"[r.random_range(0..4)],
            1 => { p.remove(i); }
            _ => p.insert(i, b"ACGT"[r.random_range(0..4)]),
        }
    }
    p
}

/// `n` random texts of up to `max_len` letters, each with a copy of a random
/// pattern (reverse complemented half the time when `rc`) and up to `k`
/// edits planted for every `every` letters: the inputs of the tests that
/// compare two ways of searching.
#[allow(clippy::too_many_arguments)]
pub fn planted_texts(r: &mut StdRng, alphabet: Alphabet, pats: &[Vec<u8>], rc: bool, k: usize, n: usize, max_len: usize, every: usize) -> Vec<Option<Vec<u8>>> {
    (0..n)
        .map(|_| {
            let len = r.random_range(0..max_len);
            let mut t = random_seq(r, alphabet, len);
            for _ in 0..len / every {
                let p = pats[r.random_range(0..pats.len())].clone();
                let p = if rc && r.random_bool(0.5) { revcomp(&p) } else { p };
                let e = r.random_range(0..=k);
                plant(r, &mut t, &p, e);
            }
            Some(t)
        })
        .collect()
}

pub fn search(opts: &SearchOptions, patterns: &[Vec<u8>], texts: &[Option<Vec<u8>>]) -> Output {
    let pats: Vec<&[u8]> = patterns.iter().map(|p| p.as_slice()).collect();
    let plan = SearchPlan::new(opts, &pats).expect("valid plan");
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| t.as_deref()).collect();
    run(&plan, &t, &Control::new(), None).expect("search ok")
}

pub fn hits(opts: &SearchOptions, patterns: &[Vec<u8>], texts: &[Option<Vec<u8>>]) -> HitBuffer {
    let o = SearchOptions { mode: Mode::Hits, ..opts.clone() };
    match search(&o, patterns, texts) {
        Output::Hits(bufs) => {
            let mut all = HitBuffer::default();
            for b in &bufs { all.extend_all(b); }
            all
        }
        _ => unreachable!(),
    }
}

pub fn values(opts: &SearchOptions, mode: Mode, patterns: &[Vec<u8>], texts: &[Option<Vec<u8>>]) -> Vec<i32> {
    match search(&SearchOptions { mode, ..opts.clone() }, patterns, texts) {
        Output::Values(v) => v,
        _ => unreachable!(),
    }
}

/// sassy's overhang cost of `o` pattern letters beyond one end of the text,
/// in its single-precision arithmetic.
pub fn overhang_cost(alpha: f32, o: usize) -> i32 {
    (alpha * o as f32).floor() as i32
}

/// [`end_costs`] (IUPAC) with overhang `alpha` at both ends: a pattern prefix
/// of `i` letters before the text costs `floor(alpha * i)`, and an end
/// position `n + o` past the text (`o <= m`, the pattern's last `o` letters
/// beyond the end) costs the alignment to the text padded with `o` letters
/// `N`, plus `floor(alpha * o)`. Positions `0..=n + m`. The same at both
/// ends, as the docs define it (no cap at the right end).
pub fn end_costs_overhang(pattern: &[u8], text: &[u8], alpha: f32) -> Vec<i32> {
    let (m, n) = (pattern.len(), text.len());
    let mut t = text.to_vec();
    t.extend(std::iter::repeat_n(b'N', m));
    let mut prev: Vec<i32> = vec![0; n + m + 1];
    let mut cur = vec![0; n + m + 1];
    for i in 1..=m {
        cur[0] = overhang_cost(alpha, i);
        for j in 1..=n + m {
            let sub = prev[j - 1] + !letters_match(Alphabet::Iupac, false, pattern[i - 1], t[j - 1]) as i32;
            cur[j] = sub.min(prev[j] + 1).min(cur[j - 1] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    for o in 1..=m {
        prev[n + o] += overhang_cost(alpha, o);
    }
    prev
}

/// sassy's rightmost-end-of-each-local-minimum rule over end costs (element
/// `j` is position `j`), positions with cost <= k: the last position of a run
/// of equal costs that was entered downwards (or is the first run) and is
/// left upwards (or is the last run).
pub fn local_minima(costs: &[i32], k: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut entered_down = true;
    let mut j = 0;
    while j < costs.len() {
        let mut last = j;
        while last + 1 < costs.len() && costs[last + 1] == costs[j] {
            last += 1;
        }
        let left_up = last + 1 == costs.len() || costs[last + 1] > costs[j];
        if costs[j] <= k as i32 && entered_down && left_up && !(j == 0 && costs.len() == 1) {
            out.push(last);
        }
        if last + 1 < costs.len() {
            entered_down = costs[last + 1] < costs[j];
        }
        j = last + 1;
    }
    out
}

/// The hits a search with overhang `alpha` (IUPAC) should report, as sorted
/// `(minus, anchor, cost, pattern_end)`: the anchor is the 0-based end on
/// the forward strand and the 0-based start on the reverse strand (the end
/// position on its own strand, mapped back); an end `n + o` past the text is
/// reported at `n` with `pattern_end = m - o`.
pub fn oracle_overhang_hits(pattern: &[u8], text: &[u8], k: usize, alpha: f32, rc: bool, all_endpoints: bool) -> Vec<(bool, u32, i32, u32)> {
    let (m, n) = (pattern.len(), text.len());
    let mut out = Vec::new();
    let strands: &[bool] = if rc { &[false, true] } else { &[false] };
    for &minus in strands {
        let t = if minus { revcomp(text) } else { text.to_ascii_uppercase() };
        let costs = end_costs_overhang(pattern, &t, alpha);
        let ends: Vec<usize> = if all_endpoints {
            (0..costs.len()).filter(|&e| costs[e] <= k as i32).collect()
        } else {
            local_minima(&costs, k)
        };
        for e in ends {
            let end = e.min(n);
            let anchor = if minus { n - end } else { end };
            out.push((minus, anchor as u32, costs[e], (m - e.saturating_sub(n)) as u32));
        }
    }
    out.sort();
    out
}

/// Every placement of the whole pattern on `m` consecutive text letters with
/// at most `k` mismatches (Hamming), sorted `(minus, start, end, cost)` in
/// forward 0-based coordinates; on the reverse strand the pattern is compared
/// with the reverse complement. `max_n` drops windows with a larger fraction
/// of `N`; `pam` (CRISPR): the last `pam` letters must match and count no
/// mismatch.
#[allow(clippy::too_many_arguments)]
pub fn oracle_hamming(alphabet: Alphabet, ic: bool, pattern: &[u8], text: &[u8], k: usize, rc: bool, max_n: Option<f64>, pam: usize) -> Vec<(bool, u32, u32, i32)> {
    let (m, n) = (pattern.len(), text.len());
    let mut out = Vec::new();
    if n < m {
        return out;
    }
    let strands: &[bool] = if rc { &[false, true] } else { &[false] };
    for &minus in strands {
        let t = if minus { revcomp(text) } else { text.to_vec() };
        for s in 0..=n - m {
            let w = &t[s..s + m];
            let ok: Vec<bool> = pattern.iter().zip(w).map(|(&p, &c)| letters_match(alphabet, ic, p, c)).collect();
            if !ok[m - pam..].iter().all(|&b| b) {
                continue;
            }
            let cost = ok[..m - pam].iter().filter(|&&b| !b).count();
            let n_count = w.iter().filter(|c| c.eq_ignore_ascii_case(&b'N')).count();
            if cost > k || max_n.is_some_and(|f| n_count as f64 / m as f64 > f) {
                continue;
            }
            let start = if minus { n - s - m } else { s };
            out.push((minus, start as u32, (start + m) as u32, cost as i32));
        }
    }
    out.sort();
    out
}

/// One readable line per hit row, for assertion messages and comparisons.
pub fn rows(h: &HitBuffer) -> Vec<String> {
    (0..h.len())
        .map(|i| {
            format!(
                "rec={} pat={} {}..{} {} p{}..{} cost={} {}",
                h.record[i],
                h.pattern[i],
                h.start[i],
                h.end[i],
                if h.minus[i] { '-' } else { '+' },
                h.pattern_start[i],
                h.pattern_end[i],
                h.cost[i],
                String::from_utf8_lossy(h.cigar(i))
            )
        })
        .collect()
}

/// Pseudo-random bases (xorshift) from a fixed seed: reproducible without
/// `rand`'s generator.
pub struct XorShift(pub u64);
impl XorShift {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn bases(&mut self, n: usize) -> String {
        (0..n).map(|_| b"ACGT"[(self.next() % 4) as usize] as char).collect()
    }
}
