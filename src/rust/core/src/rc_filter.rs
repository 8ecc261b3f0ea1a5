//! An exact candidate filter for the reverse strand of a batched group: which
//! of its patterns can have a reverse-strand hit in a text, and where. Only
//! those are then searched, one by one and only in that part of the text
//! (`strategy.rs`), instead of a second batched search as costly as the
//! forward one (sassy's own reverse-complement search, `Searcher::new_rc`,
//! costs about as much, and its hits differ).
//!
//! Why it is exact. A reverse-strand hit of pattern P is an alignment of its
//! reverse complement Q (length m) to a text substring S with at most k
//! edits. Cut Q into j = k/2 + 1 disjoint pieces: the edits of the alignment
//! are shared among them, so one piece aligns to a substring of S with at
//! most k / j < 2, that is at most one, edit. The filter holds every string
//! within one edit of every piece (exact, one substitution, deletion or
//! insertion) as a key of its first `l` letters (`l` < piece length, so even
//! a piece with a deletion has `l` letters). Each text position whose `l`
//! letters are a key is then checked: the window around it that any such
//! alignment must lie in is aligned to Q (Myers' bit-parallel edit distance,
//! pattern whole, text free), and Q is a candidate if its best cost there is
//! at most k. So no pattern with a hit is left out, and a pattern is kept
//! only if it has an alignment of cost <= k, which sassy then reports.
//!
//! It applies to groups of ACGT patterns of at most 64 letters whose pieces
//! are long enough that keys are rare in random text, and to texts of ACGT
//! letters only (either case): in IUPAC matching an N or other code of the
//! text matches several letters, which the keys do not model, so a text
//! with one is searched without the filter.
//!
//! The rest of the argument, option by option (checked by tests/rc_filter.rs
//! and the every-strategy tester tests/lanes.rs, filter on against off):
//! - `k = 0`: one piece, the whole reverse complement; its key is the first
//!   `l` letters of an exact copy or a copy with one edit (a superset).
//! - Windows: the slice searched is a record or a window of one; a
//!   candidate's part of it is searched as a window of its own with the
//!   engine's overlap ([`crate::sink::Window::part`]), whose owned hits are
//!   those of the whole slice, and those the slice's window owns are kept as
//!   before. `all_endpoints` is owned by the same rule (the start on the
//!   forward strand, known without a traceback).
//! - Text lanes: a filtered group is not joined (`lanes.rs`): its records
//!   are searched one by one.
//! - `max_n_frac`: texts with N are refused, so no hit's N fraction changes.
//! - Overhang and substitutions only: the plan turns the filter off (a hit
//!   may hang over the text's ends, or is found by another search).
//! - The candidates are searched with the same single-pattern search as a
//!   pattern of its own, whose hits the batched search equals
//!   (tests/engine.rs).

use crate::options::SearchPlan;

/// Longest key, in letters: a bitmap of 4^12 bits is 2 MiB.
const MAX_KEY: usize = 12;
/// Most keys per possible key value (1 / this), so that random text rarely
/// hits one: beyond it the filter would check nearly every position.
const MAX_DENSITY: usize = 32;

/// The filter of one batched group (see the module notes).
pub struct RcFilter {
    /// Key length.
    l: usize,
    /// Pattern length.
    m: usize,
    k: usize,
    /// One bit per possible key value: set if it is a key.
    bits: Vec<u64>,
    /// The keys in buckets by the high `bucket_bits` bits of their value:
    /// bucket `b` is `keys[start[b]..start[b + 1]]`. Small (4 bytes a key),
    /// so that it stays in cache between the texts.
    start: Vec<u32>,
    /// `low bits of the value << 16 | pattern (index in the group) << 6 |
    /// piece`, sorted.
    keys: Vec<u32>,
    /// Bits of a key value that choose its bucket.
    bucket_bits: u32,
    /// Letters per piece.
    piece: usize,
    /// Myers' match vectors of each reverse complement, per 2-bit code.
    peq: Vec<[u64; 4]>,
}

/// Reusable buffer of [`RcFilter::candidates`], one per worker.
#[derive(Default)]
pub struct RcScratch {
    /// Per pattern of the group: 1 + its index in the candidates, 0 if none.
    seen: Vec<u32>,
}

/// One scan of [`RcFilter::candidates`]: its text, what it found, and how
/// much it may find.
struct Pass<'a> {
    text: &'a [u8],
    seen: &'a mut Vec<u32>,
    cand: &'a mut Vec<Candidate>,
    max: usize,
}

/// A pattern that can have a reverse-strand hit in the text, and where: the
/// forward-strand start of each of its alignments with cost <= k lies in
/// `[from, to)` (text coordinates).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    /// Index in the group.
    pub pattern: usize,
    pub from: usize,
    pub to: usize,
}

/// 2-bit code of A, C, G, T in either case (A 0, C 1, T 2, G 3: bits 1-2
/// of the ASCII letter, no table).
#[inline(always)]
fn code(b: u8) -> u8 {
    (b >> 1) & 3
}

/// Whether `b` is one of ACGTacgt.
#[inline(always)]
fn is_acgt(b: u8) -> bool {
    matches!(b | 0x20, b'a' | b'c' | b'g' | b't')
}

/// Number of pieces, their length and the key length for patterns of length
/// `m` at `k`, if the filter applies to `n` such patterns.
fn shape(m: usize, k: usize, n: usize) -> Option<(usize, usize, usize)> {
    let j = k / 2 + 1;
    let piece = m / j;
    // (pattern and piece indices must fit a key's 10 and 6 bits)
    if m > 64 || piece < 2 || n > 1 << 10 {
        return None;
    }
    let l = (piece - 1).min(MAX_KEY);
    // keys per piece: exact, 3 substitutions and 1 deletion per letter,
    // 4 insertions per gap
    let per_piece = 1 + 4 * piece + 4 * (piece + 1);
    let space = 1usize << (2 * l);
    (n * j * per_piece * MAX_DENSITY <= space).then_some((j, piece, l))
}

impl RcFilter {
    /// Whether the plan filters the reverse strand of the batched group of
    /// patterns `idx` (all of one length; see [`SearchPlan::rc_filter`]).
    pub fn applies(plan: &SearchPlan, idx: &[usize]) -> bool {
        let Some(&first) = idx.first() else { return false };
        plan.rc_filter
            && idx.iter().all(|&i| plan.patterns[i].iter().all(|&c| is_acgt(c)))
            && shape(plan.patterns[first].len(), plan.k, idx.len()).is_some()
    }

    /// The filter of group `idx`, if it applies.
    pub fn build(plan: &SearchPlan, idx: &[usize]) -> Option<RcFilter> {
        if !RcFilter::applies(plan, idx) {
            return None;
        }
        let m = plan.patterns[idx[0]].len();
        let (j, piece, l) = shape(m, plan.k, idx.len())?;
        let mut keys = Vec::new();
        let mut peq = Vec::with_capacity(idx.len());
        for (li, &pi) in idx.iter().enumerate() {
            // the reverse complement: the complement, reversed
            let q: Vec<u8> = plan.complements[pi].iter().rev().map(|&c| code(c)).collect();
            peq.push(match_vectors(&q));
            for p in 0..j {
                let offset = p * piece;
                for_each_neighbour(&q[offset..offset + piece], l, |kmer| keys.push((kmer, (li as u32) << 6 | p as u32)));
            }
        }
        keys.sort_unstable();
        keys.dedup();
        let mut bits = vec![0u64; (1usize << (2 * l)).div_ceil(64)];
        for &(kmer, _) in &keys {
            bits[kmer as usize / 64] |= 1 << (kmer % 64);
        }
        // about two keys a bucket; the value's low bits must fit 16
        let space = 2 * l as u32;
        let bucket_bits = (usize::BITS - keys.len().leading_zeros()).saturating_sub(1).clamp(space.saturating_sub(16), space);
        let low = space - bucket_bits;
        let mut start = vec![0u32; (1 << bucket_bits) + 1];
        for &(kmer, _) in &keys {
            start[(kmer >> low) as usize + 1] += 1;
        }
        for b in 1..start.len() {
            start[b] += start[b - 1];
        }
        let keys = keys.iter().map(|&(kmer, rest)| (kmer & ((1 << low) - 1)) << 16 | rest).collect();
        Some(RcFilter { l, m, k: plan.k, bits, start, keys, bucket_bits, piece, peq })
    }

    /// The patterns (ascending) whose reverse complement aligns to `text`
    /// with cost <= k, and where, into `cand`, leaving out those `skip`
    /// names; `false` when the filter cannot tell (a letter other than ACGT)
    /// or more than `max` patterns are candidates, in which case `cand` is
    /// meaningless and the caller searches the whole group.
    pub fn candidates(&self, text: &[u8], s: &mut RcScratch, cand: &mut Vec<Candidate>, max: usize, skip: impl Fn(usize) -> bool) -> bool {
        cand.clear();
        // branch-free, so that it vectorises
        if text.iter().fold(false, |bad, &b| bad | !is_acgt(b)) {
            return false;
        }
        if text.len() < self.l {
            return true;
        }
        s.seen.clear();
        s.seen.resize(self.peq.len(), 0);
        let mut pass = Pass { text, seen: &mut s.seen, cand, max };
        let mask = (1u64 << (2 * self.l)) - 1;
        // the rolling key in 64 bits, masked only for the lookup: one
        // shift-add per letter on the dependency chain
        let l = self.l;
        let mut kmer = text[..l - 1].iter().fold(0u64, |a, &b| (a << 2) + code(b) as u64);
        for (i, &b) in text[l - 1..].iter().enumerate() {
            kmer = (kmer << 2) + code(b) as u64;
            let km = (kmer & mask) as usize;
            if self.bits[km >> 6] >> (km & 63) & 1 != 0 && !self.check(km as u32, i, &mut pass, &skip) {
                return false;
            }
        }
        pass.cand.sort_unstable_by_key(|c| c.pattern);
        true
    }

    /// Check the keys of value `kmer` found at `at`: every alignment through
    /// its piece lies in a window around it. `false` if there are more than
    /// `max` candidates then.
    #[inline(never)]
    fn check(&self, kmer: u32, at: usize, p: &mut Pass, skip: &impl Fn(usize) -> bool) -> bool {
        let (m, k) = (self.m, self.k);
        let (text, cand) = (p.text, &mut *p.cand);
        let low = 2 * self.l as u32 - self.bucket_bits;
        let b = (kmer >> low) as usize;
        let want = kmer & ((1 << low) - 1);
        for &key in &self.keys[self.start[b] as usize..self.start[b + 1] as usize] {
            if key >> 16 != want {
                continue;
            }
            let (li, off) = ((key >> 6 & 0x3ff) as usize, (key & 0x3f) as usize * self.piece);
            if skip(li) {
                continue;
            }
            // the alignment's start lies within k of at - off, its end
            // within k of that plus m
            let lo = at.saturating_sub(off + k);
            let hi = (at + m - off + k).min(text.len());
            let to = (at + k + 1).saturating_sub(off).min(text.len());
            let known = p.seen[li] as usize;
            if known > 0 && cand[known - 1].from <= lo && to <= cand[known - 1].to {
                continue;
            }
            if aligns(&self.peq[li], m, &text[lo..hi], k) {
                if known > 0 {
                    let c = &mut cand[known - 1];
                    (c.from, c.to) = (c.from.min(lo), c.to.max(to));
                } else {
                    cand.push(Candidate { pattern: li, from: lo, to });
                    p.seen[li] = cand.len() as u32;
                }
            }
        }
        cand.len() <= p.max
    }
}

/// Myers' match vectors of a pattern of 2-bit codes.
fn match_vectors(q: &[u8]) -> [u64; 4] {
    let mut peq = [0u64; 4];
    for (i, &c) in q.iter().enumerate() {
        peq[c as usize] |= 1 << i;
    }
    peq
}

/// Whether the pattern of `peq` (length `m` <= 64) aligns whole to some
/// substring of `text` (ACGT letters) with at most `k` edits (Myers 1999,
/// the text's start free: no carry into the first row).
fn aligns(peq: &[u64; 4], m: usize, text: &[u8], k: usize) -> bool {
    if m <= k {
        return true;
    }
    let high = 1u64 << (m - 1);
    let (mut pv, mut mv) = (u64::MAX, 0u64);
    let mut score = m;
    for (j, &c) in text.iter().enumerate() {
        let eq = peq[code(c) as usize];
        let xv = eq | mv;
        let xh = ((eq & pv).wrapping_add(pv) ^ pv) | eq;
        let mut ph = mv | !(xh | pv);
        let mut mh = pv & xh;
        if ph & high != 0 {
            score += 1;
        } else if mh & high != 0 {
            score -= 1;
        }
        ph <<= 1;
        mh <<= 1;
        pv = mh | !(xv | ph);
        mv = ph & xv;
        if score <= k {
            return true;
        }
        // the score falls by at most one a letter
        if score > k + (text.len() - j - 1) {
            return false;
        }
    }
    false
}

/// Call `f` with the first `l` letters (packed, first letter highest) of
/// `piece` and of every string one edit away from it (`l` < its length).
fn for_each_neighbour(piece: &[u8], l: usize, mut f: impl FnMut(u32)) {
    let pack = |s: &mut dyn Iterator<Item = u8>| s.take(l).fold(0u32, |a, c| (a << 2) | c as u32);
    let n = piece.len();
    f(pack(&mut piece.iter().copied()));
    for i in 0..n.min(l) {
        for c in 0..4u8 {
            if c != piece[i] {
                // substitution at i
                f(pack(&mut piece.iter().enumerate().map(|(p, &x)| if p == i { c } else { x })));
            }
        }
        // deletion of letter i
        f(pack(&mut piece.iter().enumerate().filter(|&(p, _)| p != i).map(|(_, &x)| x)));
    }
    for i in 0..=n.min(l) {
        for c in 0..4u8 {
            // insertion of c before letter i
            f(pack(&mut piece[..i].iter().copied().chain(std::iter::once(c)).chain(piece[i..].iter().copied())));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(s: &[u8]) -> Vec<u8> {
        s.iter().map(|&b| code(b)).collect()
    }

    /// Semi-global edit distance by the textbook DP.
    fn best_cost(q: &[u8], t: &[u8]) -> usize {
        let mut prev: Vec<usize> = (0..=q.len()).collect();
        let mut best = prev[q.len()];
        for &c in t {
            let mut cur = vec![0; q.len() + 1];
            for i in 1..=q.len() {
                cur[i] = (prev[i - 1] + (q[i - 1] != c) as usize).min(prev[i] + 1).min(cur[i - 1] + 1);
            }
            best = best.min(cur[q.len()]);
            prev = cur;
        }
        best
    }

    #[test]
    fn myers_equals_the_dp() {
        let mut next = xorshift(12345);
        for _ in 0..3000 {
            let m = 1 + (next() % 30) as usize;
            let n = (next() % 40) as usize;
            let q: Vec<u8> = (0..m).map(|_| b"ACGT"[(next() % 4) as usize]).collect();
            let t: Vec<u8> = (0..n).map(|_| b"ACGTacgt"[(next() % 8) as usize]).collect();
            let best = best_cost(&codes(&q), &codes(&t));
            for k in 0..6 {
                assert_eq!(aligns(&match_vectors(&codes(&q)), m, &t, k), best <= k, "q {q:?} t {t:?} k {k}");
            }
        }
    }

    #[test]
    fn neighbours_are_every_string_within_one_edit() {
        let piece = codes(b"ACGTA");
        let mut got = Vec::new();
        for_each_neighbour(&piece, 4, |k| got.push(k));
        got.sort_unstable();
        got.dedup();
        // independently: every 4-letter string that is the prefix of a string at
        // distance <= 1 from the piece (lengths 4, 5, 6)
        let mut want = Vec::new();
        for len in 4..=6usize {
            for v in 0..(1u32 << (2 * len)) {
                let s: Vec<u8> = (0..len).rev().map(|i| ((v >> (2 * i)) & 3) as u8).collect();
                let d = crate::rc_filter::tests::global(&piece, &s);
                if d <= 1 {
                    want.push(s[..4].iter().fold(0u32, |a, &c| (a << 2) | c as u32));
                }
            }
        }
        want.sort_unstable();
        want.dedup();
        assert_eq!(got, want);
    }

    fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    fn revcomp(p: &[u8]) -> Vec<u8> {
        p.iter().rev().map(|&c| match c { b'A' => b'T', b'C' => b'G', b'G' => b'C', _ => b'A' }).collect()
    }

    /// The candidates are exactly the patterns whose reverse complement
    /// aligns to the text with cost <= k (brute force), with reverse
    /// complements planted with up to k edits anywhere, at the text's very
    /// ends too, in either case; texts with another letter are refused.
    #[test]
    fn candidates_are_the_patterns_with_a_reverse_strand_alignment() {
        let mut next = xorshift(99);
        let mut filtered = 0;
        for round in 0..400 {
            let k = (next() % 4) as usize;
            let m = 14 + (next() % 30) as usize;
            let n_pat = 1 + (next() % 60) as usize;
            let pats: Vec<Vec<u8>> = (0..n_pat).map(|_| (0..m).map(|_| b"ACGT"[(next() % 4) as usize]).collect()).collect();
            let refs: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
            let opts = crate::options::SearchOptions { k: k as i64, rc_filter: Some(true), ..Default::default() };
            let plan = SearchPlan::new(&opts, &refs).unwrap();
            let idx: Vec<usize> = (0..n_pat).collect();
            let Some(f) = RcFilter::build(&plan, &idx) else { continue };
            filtered += 1;
            let len = (next() % 300) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b"ACGT"[(next() % 4) as usize]).collect();
            for _ in 0..(next() % 4) {
                let mut q = revcomp(&pats[(next() % n_pat as u64) as usize]);
                for _ in 0..(next() % (k as u64 + 1)) {
                    let at = (next() % q.len() as u64) as usize;
                    match next() % 3 {
                        0 => q[at] = b"ACGT"[(next() % 4) as usize],
                        1 => { q.remove(at); }
                        _ => q.insert(at, b"ACGT"[(next() % 4) as usize]),
                    }
                }
                let at = match next() % 3 { 0 => 0, 1 => text.len(), _ => (next() % (text.len() as u64 + 1)) as usize };
                text.splice(at..at, q);
            }
            if round % 3 == 0 {
                text.make_ascii_lowercase();
            }
            let t = codes(&text);
            let want: Vec<usize> = (0..n_pat).filter(|&i| best_cost(&codes(&revcomp(&pats[i])), &t) <= k).collect();
            let (mut s, mut cand) = (RcScratch::default(), Vec::new());
            assert!(f.candidates(&text, &mut s, &mut cand, n_pat, |_| false));
            assert_eq!(cand.iter().map(|c| c.pattern).collect::<Vec<_>>(), want, "round {round} k {k} m {m}");
            // every alignment of cost <= k starts where its candidate says
            for c in &cand {
                let q = codes(&revcomp(&pats[c.pattern]));
                for start in 0..t.len() {
                    let fits = (start..=t.len().min(start + m + k)).any(|end| global(&q, &t[start..end]) <= k);
                    assert!(!fits || (c.from <= start && start < c.to), "round {round}: start {start} outside {c:?}");
                }
            }
            // skipped patterns are left out
            assert!(f.candidates(&text, &mut s, &mut cand, n_pat, |li| li % 2 == 0));
            assert_eq!(cand.iter().map(|c| c.pattern).collect::<Vec<_>>(), want.iter().copied().filter(|li| li % 2 == 1).collect::<Vec<_>>());
            // too many, or a letter the filter cannot model
            if want.len() > 1 {
                assert!(!f.candidates(&text, &mut s, &mut cand, want.len() - 1, |_| false));
            }
            let mut with_n = text.clone();
            with_n.insert(with_n.len() / 2, b'N');
            assert!(!f.candidates(&with_n, &mut s, &mut cand, n_pat, |_| false));
        }
        assert!(filtered > 200, "{filtered}");
    }

    /// Global edit distance.
    fn global(a: &[u8], b: &[u8]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for i in 1..=a.len() {
            let mut cur = vec![i; b.len() + 1];
            for j in 1..=b.len() {
                cur[j] = (prev[j - 1] + (a[i - 1] != b[j - 1]) as usize).min(prev[j] + 1).min(cur[j - 1] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }
}
