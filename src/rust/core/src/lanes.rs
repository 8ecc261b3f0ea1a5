//! Short records searched as one joined text.
//!
//! sassy's `Searcher::search` splits one text into as many chunks as its SIMD
//! vector has lanes (4 with AVX2, 8 with AVX-512), each with an overlap of
//! `m + k` letters: a 150-letter read is then mostly overlap and per-call
//! setup, and costs several times as much per letter as a genome. The
//! engine therefore joins the whole records of a task that are at most
//! [`LANE_MAX_LEN`] letters long, [`LANE_GROUP`] at a time, into one text,
//! each record followed by `k + 1` separator letters that match no pattern
//! letter, searches that text (and its reverse, for the other strand) with
//! one sassy call per pattern, and maps the hits back to their records.
//! The other groups, longer records and windows are searched one record at
//! a time as before; the task's hits are sorted into the same order, so the
//! result is that of the one-by-one search.
//!
//! Why the joined search gives exactly the one-by-one result:
//! - No alignment of cost <= k spans two records: it would have to cover
//!   the `k + 1` separators between them, each at cost 1 (a substitution or
//!   an insertion, since a separator matches nothing).
//! - A record's DP column starts as on a fresh text: entering a record, the
//!   cost of any prefix of i <= k + 1 pattern letters is i on both, and
//!   costs above k differ only above k, which decides no hit (a reported
//!   end has cost <= k, and so has every cell of its traceback).
//! - Two places where the neighbourhood does matter are detected and the
//!   record searched on its own instead (rare: a hit must touch the
//!   record's end): an end in the separators after a record (sassy reports
//!   the rightmost end of a run of equal costs, and the cost can stay level
//!   for up to k letters into the separators, where the one-by-one search
//!   reports the record's last letter), and, traced, a start in the
//!   separators before a record (an equal-cost traceback that substitutes
//!   separators instead of deleting pattern letters). On the reverse
//!   strand the same two cases, on the reversed text.
//! - With `all_endpoints` (and in CRISPR plans, which report every end
//!   position) there is no rightmost-of-a-run rule: every end of cost <= k
//!   is reported on its own, so an end in the separators is simply not a
//!   record's and is dropped; the ends in the record are those of the
//!   one-by-one search (their costs are). A traced start in the separators
//!   still sends the record to the one-by-one search.
//! - CRISPR guides (`crispr.rs`): the spacer's end positions are filtered
//!   by the PAM letters after them; past a record's end those are
//!   separators, `X`, which match no PAM letter, as the end of a lone text
//!   matches none. The N-fraction bound read before traceback lies inside
//!   the record for every end of cost <= k (the alignment covers at least
//!   `m - k` letters before it).
//! - DNA uses sassy's IUPAC profile here (see [`joined_kind`]).
//! - Groups of equal-length patterns (`PatternGroup::Batch`) are searched
//!   with sassy's pattern tiling on the joined text, by the same rules; the
//!   plan forms them from [`JOINED_BATCH_MIN_PATTERNS`] patterns on.
//! tests/lanes.rs checks the equality for every alphabet and option with
//! hits planted at record ends, against the one-by-one search and the
//! brute-force oracle.
//!
//! Why not sassy's own `Searcher::search_texts` (one record per SIMD lane,
//! tried first): it still pays sassy's per-call setup (pattern encoding,
//! buffers) for every 4 or 8 records and runs each scan to the longest
//! record of its lanes (see [`LANE_MAX_LEN`] for the numbers).
//!
//! The alphabet check of joined records is part of the copy into the joined
//! text (`validate::copy_valid`) instead of a call per record; on an error the
//! records are checked one by one for the first bad letter in order.
//!
//! Where the joined search is not used, and why (each checked by
//! tests/lanes.rs, CRISPR by tests/crispr.rs):
//! - patterns traced in steps (`stepwise.rs`): they need their own
//!   per-record loop.
//! - `overhang`: a pattern may hang over a record's ends, which in the
//!   joined text are separators (and sassy caps the overhang at a text's
//!   right end; the per-record path works around it, `overhang.rs`).
//! - `indels = false` (Hamming hits, `hamming.rs`): candidates come from an
//!   all-endpoints search.
//! - empty texts: nothing to scan; the one-by-one search handles them.
//! - batched groups whose reverse strand is filtered (`rc_filter.rs`), where
//!   the records are long (a mean over [`FILTER_LANES_MAX_MEAN`] letters):
//!   over a joined text most patterns would be candidates, so each
//!   record's reverse strand is filtered on its own instead. Short records
//!   (Illumina reads, the ends of reads) are joined even so: there the
//!   joined search of both strands beats the filter (benchmarks/strategies.md:
//!   150-letter reads and 96 patterns, 0.085 s joined against 0.111 s
//!   filtered; ONT-like reads of 500-6,000 letters, the filter wins).
//!
//! The switch: `DUCKSASSY_LANES=off` in the environment turns this off for
//! every plan built while it is set (read once per plan, in
//! `SearchPlan::new`): for testing that both paths agree and for benchmarks.

pub use crate::options::{enabled_by_env, JOINED_BATCH_MIN_PATTERNS, LANE_GROUP, LANE_MAX_LEN};
use crate::control::Stop;
use crate::error::CoreError;
use crate::options::{Mode, PatternGroup, SearchPlan};
use crate::profile::ProfileKind;
use crate::sink::{Encoded, GroupEncoding, Sink, Window};
use crate::strategy::Scope;
use crate::worker::Worker;
use sassy::Match;





/// For each pattern group of `plan`, whether it is searched in text lanes
/// (for the records [`lane_record`] accepts). See the module notes.
pub fn lane_groups(plan: &SearchPlan, mean_len: usize) -> Vec<bool> {
    let off = plan.lane_max_len == 0 || plan.overhang.is_some() || !plan.indels;
    plan.groups
        .iter()
        .map(|g| match g {
            PatternGroup::Single(pi) if !off => {
                crate::stepwise::trace_blocks(plan.patterns[*pi].len(), plan.k) < plan.step_trace_blocks
            }
            // pattern tiling on the joined text: sassy's pattern lanes over
            // one long text instead of a call per record
            // (not where the reverse strand is filtered, unless the records
            // are short: see the module notes; from 14 patterns on tiling
            // joined or single records costs the same, see
            // options::JOINED_BATCH_MIN_PATTERNS)
            PatternGroup::Batch(idx) => !off && (mean_len <= FILTER_LANES_MAX_MEAN || !crate::rc_filter::RcFilter::applies(plan, idx)),
            _ => false,
        })
        .collect()
}

/// The mean record length up to which batched groups with a reverse-strand
/// filter are searched in text lanes all the same (see the module notes).
pub const FILTER_LANES_MAX_MEAN: usize = 300;

/// The mean length of the texts that are there (0 for none).
pub fn mean_len(texts: &[Option<&[u8]>]) -> usize {
    let (n, sum) = texts.iter().flatten().fold((0usize, 0usize), |(n, s), t| (n + 1, s + t.len()));
    if n == 0 { 0 } else { sum / n }
}

/// Whether a whole (not windowed) record goes to text lanes.
pub fn lane_record(plan: &SearchPlan, text: &[u8]) -> bool {
    !text.is_empty() && text.len() <= plan.lane_max_len
}

/// Search the records `recs` (indices into `texts`, all present) for the
/// groups of `sc` that its `lanes` marks, into `sink`, whose rows (values)
/// or record numbers (hits) start at record `first`. Hits are appended
/// unsorted; the caller sorts the task's buffer.
pub(crate) fn search(sc: &Scope, texts: &[Option<&[u8]>], recs: &[u32], first: usize, w: &mut Worker, sink: &mut Sink) -> Result<(), CoreError> {
    let plan = sc.plan;
    let mut joined = Joined {
        fwd: std::mem::take(&mut w.lane_fwd),
        rev: std::mem::take(&mut w.lane_rev),
        starts: std::mem::take(&mut w.lane_starts),
        redo: std::mem::take(&mut w.lane_redo),
        placed: Vec::new(),
    };
    let mut r = Ok(());
    let size = plan.lane_group.max(1);
    for from in (0..recs.len()).step_by(size) {
        let to = (from + size).min(recs.len());
        // the records after the chunk are prefetched while it is joined, so
        // that they arrive while sassy searches it
        let next = &recs[to..(to + PREFETCH_AHEAD).min(recs.len())];
        let records = Records { texts, chunk: &recs[from..to], next, first };
        r = search_chunk(sc, &records, w, sink, &mut joined);
        if r.is_err() {
            break;
        }
    }
    w.lane_fwd = joined.fwd;
    w.lane_rev = joined.rev;
    w.lane_starts = joined.starts;
    w.lane_redo = joined.redo;
    r
}

/// One chunk of records joined into one text (and its reverse), with the
/// start of each record in it; `redo`: the chunk indices of records whose
/// hits of the current pattern must come from the one-by-one search.
struct Joined {
    fwd: Vec<u8>,
    rev: Vec<u8>,
    starts: Vec<usize>,
    redo: Vec<usize>,
    placed: Vec<Placed>,
}

/// Where a match of the joined text lies: in record `i` of the chunk, at
/// `start..end` of its forward strand; or reaching into separators, with
/// its end after record `i` or (traced) its start before record `i`.
enum Place {
    In(usize, usize, usize),
    EndAfter(usize),
    StartBefore(usize),
}

/// A match (index `mi` in the forward or reverse matches) placed in record
/// `i` of the chunk, at `start..end` of that record's forward strand.
struct Placed {
    i: usize,
    start: usize,
    end: usize,
    mi: usize,
    minus: bool,
}

/// The profile of the joined search: IUPAC for DNA too (the DNA profile
/// packs letters in two bits and has no letter that matches nothing; on
/// ACGT texts and patterns the two profiles are the same relation, as the
/// batched search already relies on, see `profile.rs`).
fn joined_kind(plan: &SearchPlan) -> ProfileKind {
    match ProfileKind::of(plan) {
        ProfileKind::Dna => ProfileKind::Iupac,
        k => k,
    }
}

/// The separator letter: one that matches no pattern letter. IUPAC `X`
/// encodes to the empty base set in sassy (it matches nothing, `N`
/// included); no R string holds a NUL byte, so 0 matches no ASCII pattern
/// letter.
fn separator(kind: ProfileKind) -> u8 {
    match kind {
        ProfileKind::Ascii => 0,
        _ => b'X',
    }
}

/// The records of one joined chunk: `chunk` (indices into `texts`), the
/// records after it (`next`, prefetched), and the first record of the
/// task (rows of values are counted from it).
struct Records<'a, 't> {
    texts: &'a [Option<&'t [u8]>],
    chunk: &'a [u32],
    next: &'a [u32],
    first: usize,
}

fn search_chunk(sc: &Scope, recs: &Records, w: &mut Worker, sink: &mut Sink, j: &mut Joined) -> Result<(), CoreError> {
    let (plan, enc, lanes, stop) = (sc.plan, sc.enc, sc.lanes, sc.stop);
    let Records { texts, chunk, next, first } = *recs;
    let groups = sc.groups.clone();
    let text = |r: u32| texts[r as usize].expect("lane records are present");
    let sep = separator(joined_kind(plan));
    // the alphabet check of the chunk's records is part of the join (a call
    // per 150-letter read cost as much as the join); records that the
    // one-by-one search also sees were checked there
    let check = !others_checked(lanes, &groups);
    if !join(plan, (chunk, next), &text, sep, check, j) {
        return Err(first_invalid(plan, texts, chunk).expect("a letter failed the check"));
    }
    let n_pat = plan.patterns.len();
    for gi in groups {
        if !lanes[gi] {
            continue;
        }
        let (fwd, rev, traced) = group_matches(plan, enc, gi, w, j, stop)?;
        // each match placed once: in its record, or the record into
        // `j.redo`, searched one by one instead (see the module notes)
        j.placed.clear();
        j.redo.clear();
        for (ms, minus) in [(&fwd, false), (&rev, true)] {
            for (mi, m) in ms.iter().enumerate() {
                let placed = if minus { place_rev(&j.starts, chunk, &text, j.fwd.len(), m, traced) } else { place(&j.starts, chunk, &text, m, traced) };
                match placed {
                    Place::In(i, start, end) => j.placed.push(Placed { i, start, end, mi, minus }),
                    // every end reported on its own: one in the separators
                    // is no record's (see the module notes)
                    Place::EndAfter(_) if plan.all_endpoints => {}
                    Place::EndAfter(i) | Place::StartBefore(i) => j.redo.push(i),
                }
            }
        }
        j.redo.sort_unstable();
        j.redo.dedup();
        let kept = j.placed.iter().filter(|p| j.redo.binary_search(&p.i).is_err());
        let group = plan.groups[gi].patterns();
        match sink {
            Sink::Hits(out) => {
                let before = out.len();
                for p in kept {
                    let m = if p.minus { &rev[p.mi] } else { &fwd[p.mi] };
                    out.push_match(chunk[p.i], m.pattern_idx as u32, p.start, p.end, m, p.minus, plan.cigar);
                }
                stop.add_hits(out.len() - before)?;
                for &i in &j.redo {
                    let r = chunk[i];
                    let t = text(r);
                    crate::strategy::record_hits(&sc.only(gi..gi + 1), r, t, &Window::whole(t.len()), w, out)?;
                }
            }
            Sink::Best(b) => {
                // each hit reduced into its record's assignment (assign.rs)
                for p in kept {
                    let m = if p.minus { &rev[p.mi] } else { &fwd[p.mi] };
                    let span = sc.plan.barcode_spans.get(m.pattern_idx);
                    let barcode_edits = span.map_or(0, |&s| crate::barcode_edits::of_cigar(&m.cigar, m.pattern_start as u32, s));
                    let hit = crate::assign::BestHit { cost: m.cost, pattern: m.pattern_idx as u32, start: p.start as u32, end: p.end as u32, minus: p.minus, sample: sc.plan.samples[m.pattern_idx], barcode_edits };
                    let cell = &mut b[chunk[p.i] as usize - first];
                    *cell = cell.merge(crate::assign::Best { hit: Some(hit), ..Default::default() });
                }
                let mut hits = std::mem::take(&mut w.assign_hits);
                for &i in &j.redo {
                    let r = chunk[i];
                    let t = text(r);
                    hits.clear();
                    let res = crate::strategy::record_hits(&sc.only(gi..gi + 1), r, t, &Window::whole(t.len()), w, &mut hits);
                    let cell = &mut b[r as usize - first];
                    *cell = cell.merge(crate::assign::Best::of(&hits, &sc.plan.samples, &sc.plan.barcode_spans));
                    if res.is_err() {
                        w.assign_hits = hits;
                        return res;
                    }
                }
                w.assign_hits = hits;
            }
            Sink::Values(v) => {
                for p in kept {
                    let m = if p.minus { &rev[p.mi] } else { &fwd[p.mi] };
                    v[(chunk[p.i] as usize - first) * n_pat + m.pattern_idx] += 1;
                }
                let mut row = vec![0i32; if j.redo.is_empty() { 0 } else { n_pat }];
                for &i in &j.redo {
                    let r = chunk[i];
                    let t = text(r);
                    let win = Window::whole(t.len());
                    if plan.mode == Mode::Contains {
                        crate::strategy::record_contains(&sc.only(gi..gi + 1), t, &win, w, &mut row)?;
                    } else {
                        crate::strategy::record_counts(&sc.only(gi..gi + 1), t, &win, w, &mut row)?;
                    }
                    for &p in group {
                        v[(r as usize - first) * n_pat + p] = row[p];
                    }
                }
                if plan.mode == Mode::Contains {
                    for &r in chunk {
                        for &p in group {
                            let c = &mut v[(r as usize - first) * n_pat + p];
                            *c = (*c > 0) as i32;
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// Whether the engine checked these records' letters itself: it does when
/// some of the task's groups are searched one record at a time.
fn others_checked(lanes: &[bool], groups: &std::ops::Range<usize>) -> bool {
    groups.clone().any(|g| !lanes[g])
}

/// The letter error of the first record of `recs` (in their order) with a
/// letter outside the plan's alphabet.
pub(crate) fn first_invalid(plan: &SearchPlan, texts: &[Option<&[u8]>], recs: &[u32]) -> Option<CoreError> {
    recs.iter().find_map(|&r| {
        let (position, letter) = crate::validate::first_invalid_letter(plan.alphabet, texts[r as usize]?)?;
        Some(CoreError::InvalidLetter { arg: "texts", index: r as usize, position, letter, alphabet: plan.alphabet.name() })
    })
}

/// The matches of pattern group `gi` in the joined text and in its reverse
/// (complemented patterns; empty without `rc`), `pattern_idx` set to the
/// plan's pattern index, and whether they were traced (their starts known).
fn group_matches(plan: &SearchPlan, enc: &Encoded, gi: usize, w: &mut Worker, j: &Joined, stop: &Stop) -> Result<(Vec<Match>, Vec<Match>, bool), CoreError> {
    stop.check()?;
    match &plan.groups[gi] {
        PatternGroup::Single(pi) if plan.crispr.is_some() => {
            let c = plan.crispr.as_ref().expect("checked");
            let (fwd, rev) = crate::crispr::guide_matches(plan, c, *pi, &j.fwd, &j.rev, w);
            Ok((fwd, rev, true))
        }
        PatternGroup::Single(pi) => {
            let traced = plan.needs_trace();
            let s = w.searcher(joined_kind(plan), None);
            s.configure(traced, plan.max_n_frac);
            let mut fwd = s.search(&plan.patterns[*pi], &j.fwd, plan.k, plan.all_endpoints);
            let mut rev = Vec::new();
            if plan.rc {
                stop.check()?;
                rev = s.search(&plan.complements[*pi], &j.rev, plan.k, plan.all_endpoints);
            }
            fwd.iter_mut().chain(rev.iter_mut()).for_each(|m| m.pattern_idx = *pi);
            Ok((fwd, rev, traced))
        }
        PatternGroup::Batch(idx) => {
            // sassy's pattern tiling, which always traces (sink.rs)
            let Some(GroupEncoding { fwd: f, comp: c, .. }) = &enc[gi] else { unreachable!("batched group without encoding") };
            let s = w.searcher(ProfileKind::Iupac, None);
            s.configure(true, plan.max_n_frac);
            let relabel = |ms: &[Match]| -> Vec<Match> {
                ms.iter().map(|m| Match { pattern_idx: idx[m.pattern_idx], ..m.clone() }).collect()
            };
            let fwd = relabel(s.search_encoded(f, &j.fwd, plan.k, plan.all_endpoints));
            let mut rev = Vec::new();
            if let Some(c) = c {
                stop.check()?;
                rev = relabel(s.search_encoded(c, &j.rev, plan.k, plan.all_endpoints));
            }
            Ok((fwd, rev, true))
        }
    }
}

/// Join the chunk's records into `j.fwd`, each followed by `k + 1`
/// separators (lower-cased for ASCII with `ignore_case`), and `j.rev`, its
/// reverse when both strands are searched.
/// `next`: the records after the chunk, prefetched at its end. With
/// `check`, whether every letter of the records is in the plan's alphabet
/// (true without).
fn join<'t>(plan: &SearchPlan, (chunk, next): (&[u32], &[u32]), text: &impl Fn(u32) -> &'t [u8], sep: u8, check: bool, j: &mut Joined) -> bool {
    j.fwd.clear();
    j.starts.clear();
    let gap = plan.k + 1;
    j.fwd.reserve(chunk.iter().map(|&r| text(r).len() + gap).sum());
    let fold = plan.fold_case();
    let mut valid = true;
    for (n, &r) in chunk.iter().enumerate() {
        let ahead = n + PREFETCH_AHEAD;
        if let Some(&a) = chunk.get(ahead).or_else(|| next.get(ahead - chunk.len())) {
            prefetch(text(a));
        }
        j.starts.push(j.fwd.len());
        let t = text(r);
        if check {
            valid &= crate::validate::copy_valid(plan.alphabet, fold, t, &mut j.fwd);
        } else if fold {
            j.fwd.extend(t.iter().map(u8::to_ascii_lowercase));
        } else {
            j.fwd.extend_from_slice(t);
        }
        // a few letters: pushes into the reserved space, not a memset call
        for _ in 0..gap {
            j.fwd.push(sep);
        }
    }
    j.rev.clear();
    if plan.rc {
        // one pass (vector shuffles), not a copy and a reversal in place
        j.rev.extend(j.fwd.iter().rev());
    }
    valid
}

/// Records ahead of the one being copied whose letters are fetched into the
/// cache. The join is the first to read a record's letters, each in its own
/// R allocation: copied one after another, every record waited for memory
/// (the copy was half the time of sassy's scan of 150-base reads, by perf).
const PREFETCH_AHEAD: usize = 8;

/// Ask the CPU to fetch `t`'s cache lines (a hint: it never faults): every
/// 64-byte line that holds a letter of `t`, counted from the line of its
/// first letter, so that the line of the last letter is fetched too.
#[inline]
fn prefetch(t: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    {
        let skew = t.as_ptr() as usize % 64;
        let line = t.as_ptr().wrapping_sub(skew);
        for off in (0..skew + t.len()).step_by(64) {
            // SAFETY: a prefetch only (an address in the cache lines of a live
            // slice); SSE is part of x86-64, so every backend has it
            unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line.wrapping_add(off) as *const i8) }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = t;
}

/// The record (chunk index) of a forward match in the joined text and its
/// start and end in that record, or where it reaches into the separators.
/// Untraced, the start is not known and not checked (it is 0).
fn place<'t>(starts: &[usize], chunk: &[u32], text: &impl Fn(u32) -> &'t [u8], m: &Match, traced: bool) -> Place {
    // the record whose start is the last one before the match's last letter
    let i = starts.partition_point(|&s| s < m.text_end) - 1;
    let (s, n) = (starts[i], text(chunk[i]).len());
    if m.text_end > s + n {
        return Place::EndAfter(i);
    }
    if traced && m.text_start < s {
        return Place::StartBefore(i);
    }
    let start = if traced { m.text_start - s } else { 0 };
    Place::In(i, start, m.text_end - s)
}

/// [`place`] for a match of the complemented pattern in the reversed joined
/// text (`total` letters): the record is found in forward coordinates,
/// where the match's end on the reversed text is a start; returns the
/// match's start and end on the record's forward strand.
fn place_rev<'t>(
    starts: &[usize],
    chunk: &[u32],
    text: &impl Fn(u32) -> &'t [u8],
    total: usize,
    m: &Match,
    traced: bool,
) -> Place {
    // forward letters [total - end, total - start): the match's last letter
    // on the reversed text is its first forward letter
    let fwd_first = total - m.text_end;
    let i = starts.partition_point(|&s| s <= fwd_first) - 1;
    let (s, n) = (starts[i], text(chunk[i]).len());
    if fwd_first >= s + n {
        // in the separators after record i, which on the reversed text
        // follow record i + 1
        return Place::EndAfter((i + 1).min(chunk.len() - 1));
    }
    let start = fwd_first - s;
    let end = if traced {
        let fwd_end = total - m.text_start;
        if fwd_end > s + n {
            return Place::StartBefore(i);
        }
        fwd_end - s
    } else {
        0
    };
    Place::In(i, start, end)
}
