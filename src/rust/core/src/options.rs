//! Raw search options and their validation into an immutable [`SearchPlan`].
//!
//! Everything sassy would panic on (empty pattern, `k` not below the pattern
//! length, overhang out of range or with a non-IUPAC alphabet, letters outside
//! the alphabet) is rejected here with a typed error, before any search.

pub use crate::alphabet::Alphabet;
use crate::alphabet::complement;
use crate::error::{CoreError, Part, Rule, Value};
use crate::validate::first_invalid_letter;

/// What a search produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every hit with coordinates, cost, strand and (optionally) CIGAR.
    Hits,
    /// Number of hits per (record, pattern); no traceback.
    Count,
    /// Whether a (record, pattern) has any hit; stops at the first.
    Contains,
    /// The best pattern of each record (`assign.rs`): hits are traced
    /// (cost, start) and reduced per record, never collected.
    Assign,
}

/// The names of the modes, as `Mode::parse` reads them.
pub const MODE_NAMES: &[&str] = &["hits", "count", "contains", "assign"];

impl Mode {
    pub fn parse(s: &str) -> Result<Self, CoreError> {
        match s {
            "hits" => Ok(Mode::Hits),
            "count" => Ok(Mode::Count),
            "contains" => Ok(Mode::Contains),
            "assign" => Ok(Mode::Assign),
            other => Err(CoreError::invalid("mode", None, other, Rule::OneOf(MODE_NAMES))),
        }
    }
}

/// Options as they come from the caller, not yet checked.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Maximum edit distance; `0 <= k < len(pattern)` for every pattern.
    pub k: i64,
    pub alphabet: Alphabet,
    /// ASCII only: compare letters case-insensitively.
    pub ignore_case: bool,
    /// Also search the reverse complement (not with ASCII).
    pub rc: bool,
    /// Report every end position with cost <= k, not only rightmost local minima.
    pub all_endpoints: bool,
    /// Overhang cost per overhanging letter in [0, 1] (IUPAC only).
    pub overhang: Option<f64>,
    /// Drop matches whose fraction of `N` exceeds this, in [0, 1] (IUPAC).
    pub max_n_frac: Option<f64>,
    /// Format CIGAR strings (hits mode).
    pub cigar: bool,
    /// Worker threads, >= 1.
    pub threads: usize,
    pub mode: Mode,
    /// Largest number of hits held in memory before failing; `None` = no limit.
    pub max_hits: Option<u64>,
    /// `false`: substitutions only, every placement of the whole pattern with
    /// at most `k` mismatches (see `hamming.rs`); no overhang then.
    pub indels: bool,
    /// Records longer than this many letters are cut into overlapping windows
    /// of this length, searched in parallel (see `engine`). >= 1.
    pub window: usize,
    /// Search short records in sassy's text lanes (see `lanes.rs`): `None`
    /// reads the environment variable `DUCKSASSY_LANES` (`off` turns them
    /// off; for testing and benchmarking), once, when the plan is built.
    pub text_lanes: Option<bool>,
    /// Search only the first `.0` and the last `.1` letters of each record,
    /// each as a text of its own (`ends.rs`); `None`: whole records.
    pub ends: Option<(usize, usize)>,
    /// The sample of each pattern (assignments): the margin rule compares
    /// samples, so two patterns of one sample never make a record
    /// ambiguous (`assign.rs`). `None`: each pattern is its own sample.
    pub samples: Option<Vec<u32>>,
    /// Filter the reverse strand of batched groups (see
    /// [`SearchPlan::rc_filter`]): `None` reads `DUCKSASSY_RC_FILTER`.
    pub rc_filter: Option<bool>,
}

/// Default window length: long enough that the overlap is negligible, short
/// enough that a bacterial genome gives every core several windows.
pub const DEFAULT_WINDOW: usize = 1 << 18;

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            k: 0,
            alphabet: Alphabet::Iupac,
            ignore_case: false,
            rc: true,
            all_endpoints: false,
            overhang: None,
            max_n_frac: None,
            cigar: true,
            threads: 1,
            mode: Mode::Hits,
            max_hits: None,
            indels: true,
            window: DEFAULT_WINDOW,
            text_lanes: None,
            ends: None,
            samples: None,
            rc_filter: None,
        }
    }
}

// ---------------------------------------------------------------------------
// Tuning of the strategies, fixed in the plan (lanes.rs and stepwise.rs
// explain them; they live here so that the plan sits below the strategies)

/// Whole records of at most this many letters are joined.
///
/// Measured with examples/lanes.rs on the development machine (AVX-512
/// build, one thread, count, one random 20-mer, k = 2, both strands, 80 MB
/// of random ACGT reads per length, 1% carrying the pattern; CPU seconds,
/// min of 3-5 reps, 10 ms timer), joined records / one record at a time /
/// the same reads as one text: 50 bases 0.14 / 1.75 / 0.08 s; 150: 0.10 /
/// 0.62 / 0.07; 300: 0.09 / 0.34 / 0.08; 1,000: 0.09 / 0.15 / 0.08; 2,000:
/// 0.09 / 0.11 / 0.07; 5,000: 0.10 / 0.09 / 0.08. Joining wins clearly up to
/// a few kilobases; beyond, sassy's single-text search fills its SIMD lanes
/// from one record and the copy into the joined text is pure cost. The
/// bound does not depend on the thread count. (sassy's `search_texts`, one
/// record per lane, tried first: 0.15 s at 150 bases, 2.1 times one text;
/// the joined text is 1.4 times.)
pub const LANE_MAX_LEN: usize = 2048;

/// Fewest equal-length patterns searched together with sassy's pattern
/// tiling when records are joined (otherwise `options::BATCH_MIN_PATTERNS`,
/// 4, where tiling amortises the per-record calls). On a joined text each
/// pattern alone is faster up to about a dozen patterns (examples/lanes.rs
/// as above, 10 MB of 150-base reads, count, each pattern alone / tiling:
/// 4 patterns 0.05 / 0.15 s; 8: 0.10 / 0.16; 12: 0.12 / 0.14; 16: 0.19 /
/// 0.16; 24: 0.24 / 0.14; 32: 0.29 / 0.14; 1,000-base reads alike). From
/// 16 patterns on, tiling a joined text is as fast as tiling each record
/// (0.14-0.16 s either way), so groups that large stay tiled.
pub const JOINED_BATCH_MIN_PATTERNS: usize = 14;

/// Most records joined into one text: the stop flag is checked between
/// texts, and the hits of one text are held at once (the hit-limit bound
/// of tests/stop.rs). The size hardly matters for speed (64, 256, 1,024,
/// 4,096 and 16,384 records of 150 bases: 0.11-0.13 s, within the timer's
/// noise): sassy splits a text of 256 reads (38 kB) into its SIMD lanes
/// with an overlap of m + k letters each.
pub const LANE_GROUP: usize = 256;

/// Whether the environment allows text lanes (`DUCKSASSY_LANES` unset or
/// anything but `off`, `false`, `0`, `no`).
pub fn enabled_by_env() -> bool {
    match std::env::var("DUCKSASSY_LANES") {
        Ok(v) => !matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "false" | "0" | "no"),
        Err(_) => true,
    }
}

/// Whether the environment allows the reverse-strand filter
/// (`DUCKSASSY_RC_FILTER` unset or anything but `off`, `false`, `0`, `no`).
pub fn rc_filter_by_env() -> bool {
    match std::env::var("DUCKSASSY_RC_FILTER") {
        Ok(v) => !matches!(v.trim().to_ascii_lowercase().as_str(), "off" | "false" | "0" | "no"),
        Err(_) => true,
    }
}

/// DP blocks per trace from which a pattern is traced in steps. Below it, a
/// whole window's traces (every position a match, both strands) take well
/// under a second; at it (a 256-letter pattern) a trace is ~1 us.
pub const STEP_TRACE_BLOCKS: usize = 1 << 10;

/// Patterns of one length searched together with sassy's batched (pattern
/// tiling) search, or a single pattern searched alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatternGroup {
    Single(usize),
    /// Indices of equal-length patterns (<= 64 letters), in ascending order.
    Batch(Vec<usize>),
}

impl PatternGroup {
    /// Indices of the patterns in this group.
    pub fn patterns(&self) -> &[usize] {
        match self {
            PatternGroup::Single(p) => std::slice::from_ref(p),
            PatternGroup::Batch(v) => v,
        }
    }
}

/// Patterns of at most this length can use the batched search.
pub const BATCH_MAX_LEN: usize = 64;
/// Most patterns in one batched group: sassy's batched search of a group is
/// one call that cannot be stopped, and holds all of its matches at once; with
/// 100,000 patterns on a long record that is seconds and millions of hits.
/// Larger groups are split into the fewest parts of at most this many, of
/// nearly equal size.
pub const BATCH_MAX_PATTERNS: usize = 1024;
/// Fewest equal-length patterns for which the batched search is used; below
/// this, one-by-one search is as fast (sassy's pattern tiling packs many
/// patterns per SIMD vector, so small groups waste lanes).
pub const BATCH_MIN_PATTERNS: usize = 4;

/// The validated CRISPR part of a [`SearchPlan`] (built by
/// `crispr::plan()`, which checks it).
#[derive(Debug, Clone, PartialEq)]
pub struct CrisprPlan {
    /// PAM length of each guide.
    pub pam_length: Vec<usize>,
    pub allow_pam_edits: bool,
    pub max_n_frac: f64,
}

/// Validated, immutable search configuration shared by all workers.
#[derive(Debug, Clone)]
pub struct SearchPlan {
    pub k: usize,
    pub alphabet: Alphabet,
    pub ignore_case: bool,
    pub rc: bool,
    pub all_endpoints: bool,
    pub overhang: Option<f32>,
    pub max_n_frac: Option<f32>,
    pub cigar: bool,
    pub threads: usize,
    pub mode: Mode,
    pub max_hits: Option<u64>,
    /// `false`: Hamming hits only (`hamming.rs`).
    pub indels: bool,
    pub window: usize,
    /// Letters of context on each side of a window: every alignment with cost
    /// <= k ending in a window's own range lies within it, with exact costs.
    pub window_overlap: usize,
    /// Patterns as searched: upper case and `U` -> `T` for DNA/IUPAC.
    pub patterns: Vec<Vec<u8>>,
    /// Complement (not reversed) of each pattern, for searching the reversed
    /// text: that is how the reverse-complement strand is searched.
    pub complements: Vec<Vec<u8>>,
    pub groups: Vec<PatternGroup>,
    /// Patterns whose traceback fills at least this many DP blocks per match
    /// are traced in steps, so that a search can be stopped between matches
    /// (see `stepwise.rs`); tests set 0 to send every pattern that way.
    pub step_trace_blocks: usize,
    /// Set only by [`crate::crispr::plan`]: each guide is searched as a spacer
    /// followed by its PAM (see `crispr.rs`); `None` for every other search.
    pub crispr: Option<CrisprPlan>,
    /// Whole records of at most this many letters are searched in sassy's
    /// text lanes, several records per scan (see `lanes.rs`); 0 = never.
    /// Tests set other values to mix both paths in one call.
    pub lane_max_len: usize,
    /// Most records per text-lane call (the stop flag is checked between
    /// calls); see `lanes.rs`.
    pub lane_group: usize,
    /// With `threads == 1` and no poll, search on the calling thread instead
    /// of the 1-thread pool: for callers that bring their own threads (the
    /// SQL functions, called from DuckDB's workers). `false` from `new()`;
    /// the caller sets it.
    pub inline: bool,
    /// Search only the ends of records (see [`SearchOptions::ends`]).
    pub ends: Option<(usize, usize)>,
    /// An end of one read in the both-ends mode (issue 52), with `ends`
    /// `(L, 0)` (the front) or `(0, L)` (the rear): a best hit nearer the
    /// record's other end (by its middle: `start + end > n` for the front,
    /// `<= n` for the rear; only in records shorter than `2L`, whose two
    /// ends overlap) is the other end's site, and the end is searched again
    /// without it and the letters beyond (`engine.rs`), until its best hit
    /// is its own or none. So the rear end of a short read does not find
    /// the front end's site again. `false` from `new()`; the caller sets it.
    pub halves: bool,
    /// The sample of each pattern (see [`SearchOptions::samples`]), one
    /// per pattern; by default each pattern's own index.
    pub samples: Vec<u32>,
    /// Batched groups of a both-strand search find the patterns that can
    /// have a reverse-strand hit in a text with an exact k-mer filter and
    /// search the reverse strand of those alone (`rc_filter.rs`,
    /// `strategy.rs`), not the whole group again. Not with overhang (the
    /// filter models whole-pattern alignments) nor Hamming search, and off
    /// with `DUCKSASSY_RC_FILTER=off` (for testing and benchmarking).
    pub rc_filter: bool,
    /// The barcode letters of each pattern of a barcode set
    /// (`barcode_edits.rs`): an assignment's best hit then carries its
    /// edits there. Empty (from `new()`) for none; set it with
    /// [`SearchPlan::set_barcode_spans`], which turns `cigar` on.
    pub barcode_spans: Vec<crate::barcode_edits::Span>,
    /// An assignment whose patterns hang over the records' own ends only
    /// (`edge_overhang.rs`): this plan searches without overhang, `edges`
    /// (hits, with overhang) the strips at the records' ends. `None` from
    /// `new()`.
    pub edges: Option<Box<Edges>>,
}

/// The strips' search of an assignment with overhang at the records' own
/// ends ([`SearchPlan::edges`], `edge_overhang.rs`).
#[derive(Debug, Clone)]
pub struct Edges {
    /// Hits, with overhang and CIGARs.
    pub plan: SearchPlan,
    /// The assignment's margin: records it calls are not searched again.
    pub margin: i32,
}

impl SearchPlan {
    /// Check `opts` and `patterns` and build the plan.
    pub fn new(opts: &SearchOptions, patterns: &[&[u8]]) -> Result<Self, CoreError> {
        let alphabet = opts.alphabet;
        if opts.threads < 1 {
            return Err(CoreError::invalid("threads", None, opts.threads, Rule::WholeAtLeast(1)));
        }
        if opts.window < 1 {
            return Err(CoreError::invalid("window", None, opts.window, Rule::WholeAtLeast(1)));
        }
        if opts.k < 0 {
            return Err(CoreError::invalid("k", None, opts.k, Rule::WholeAtLeast(0)));
        }
        let k = opts.k as usize;
        if patterns.is_empty() {
            // no pattern groups: the engine would index a group that is not there
            return Err(CoreError::invalid("patterns", None, Value::Length(0), Rule::NotEmpty));
        }
        if let Some(i) = patterns.iter().position(|p| p.is_empty()) {
            return Err(CoreError::invalid("patterns", Some(i), "", Rule::NonEmptyString));
        }
        if let Some(e) = k_below_lengths(k, patterns, |i| patterns[i].len(), "patterns", Part::Whole) {
            return Err(e);
        }
        const NUCLEOTIDES: &[Alphabet] = &[Alphabet::Dna, Alphabet::Iupac];
        if opts.rc && !alphabet.is_nucleotide() {
            // ascii has no reverse complement
            return Err(CoreError::invalid("rc", None, true, Rule::NeedsAlphabet { allowed: NUCLEOTIDES, alphabet }));
        }
        if let Some(a) = opts.overhang {
            if !(0.0..=1.0).contains(&a) {
                return Err(CoreError::invalid("overhang", None, a, Rule::Fraction));
            }
            if alphabet != Alphabet::Iupac {
                return Err(CoreError::invalid("overhang", None, a, Rule::NeedsAlphabet { allowed: &[Alphabet::Iupac], alphabet }));
            }
        }
        if let Some(f) = opts.max_n_frac {
            if !(0.0..=1.0).contains(&f) {
                return Err(CoreError::invalid("max_n_frac", None, f, Rule::Fraction));
            }
            // it counts the letters N/n of the matched text; in free ASCII
            // text that is not what anybody means, so it is refused
            if !alphabet.is_nucleotide() {
                return Err(CoreError::invalid("max_n_frac", None, f, Rule::NeedsAlphabet { allowed: NUCLEOTIDES, alphabet }));
            }
        }
        if let (Some(a), false) = (opts.overhang, opts.indels) {
            // a Hamming hit is the whole pattern inside the text
            return Err(CoreError::invalid("overhang", None, a, Rule::UnsetWith { other: "indels", value: Value::Flag(false) }));
        }
        let samples = match &opts.samples {
            None => (0..patterns.len() as u32).collect(),
            Some(s) if s.len() == patterns.len() => s.clone(),
            Some(s) => return Err(CoreError::Internal(format!("{} samples for {} patterns", s.len(), patterns.len()))),
        };
        let mut normalized = Vec::with_capacity(patterns.len());
        for (i, p) in patterns.iter().enumerate() {
            if let Some((pos, letter)) = first_invalid_letter(alphabet, p) {
                return Err(CoreError::InvalidLetter {
                    arg: "patterns",
                    index: i,
                    position: pos,
                    letter,
                    alphabet: alphabet.name(),
                });
            }
            if opts.overhang.is_some() {
                // sassy 0.3.0 pads the text ends with N for overhang; a masked
                // X in the pattern mismatches that padding in the search but
                // not in the traceback, which then fails its cost assertion
                // (found by tests/proptest.rs)
                if let Some(pos) = p.iter().position(|c| c.eq_ignore_ascii_case(&b'X')) {
                    return Err(CoreError::invalid("patterns", Some(i), *p, Rule::NoMaskWithOverhang { position: pos, letter: p[pos] }));
                }
            }
            normalized.push(normalize_pattern(alphabet, opts.ignore_case, p));
        }
        let complements = if opts.rc {
            normalized.iter().map(|p| complement(p)).collect()
        } else {
            Vec::new()
        };
        // Hamming searches take each pattern alone (hamming.rs)
        let text_lanes = opts.text_lanes.unwrap_or_else(enabled_by_env);
        let joined = text_lanes && opts.overhang.is_none() && opts.indels;
        let min_batch = if joined { JOINED_BATCH_MIN_PATTERNS } else { BATCH_MIN_PATTERNS };
        let groups = group_patterns(&normalized, alphabet, opts.overhang.is_some() || !opts.indels, min_batch);
        Ok(SearchPlan {
            k,
            alphabet,
            ignore_case: opts.ignore_case,
            rc: opts.rc,
            all_endpoints: opts.all_endpoints,
            overhang: opts.overhang.map(|a| a as f32),
            max_n_frac: opts.max_n_frac.map(|f| f as f32),
            cigar: opts.cigar,
            threads: opts.threads,
            mode: opts.mode,
            max_hits: opts.max_hits,
            indels: opts.indels,
            window: opts.window,
            window_overlap: 2 * (normalized.iter().map(|p| p.len()).max().unwrap_or(0) + k) + 64,
            patterns: normalized,
            complements,
            groups,
            step_trace_blocks: STEP_TRACE_BLOCKS,
            crispr: None,
            lane_max_len: if text_lanes { LANE_MAX_LEN } else { 0 },
            lane_group: LANE_GROUP,
            inline: false,
            ends: opts.ends,
            halves: false,
            samples,
            rc_filter: opts.rc && opts.overhang.is_none() && opts.indels && opts.rc_filter.unwrap_or_else(rc_filter_by_env),
            barcode_spans: Vec::new(),
            edges: None,
        })
    }

    /// Whether matches must be traced back: hits need start and CIGAR, and
    /// sassy's exact N-fraction filter runs on the traced alignment, so count
    /// and contains trace too when `max_n_frac` is set (to agree with hits).
    /// ASCII with `ignore_case` searches lower-cased texts with the
    /// case-sensitive profile: sassy 0.3.0's case-insensitive ASCII profile
    /// folds pattern bytes like `[` (0x5B) to `{` but leaves text bytes
    /// alone, so it misses or invents matches (and its traceback can panic).
    pub fn fold_case(&self) -> bool {
        self.alphabet == Alphabet::Ascii && self.ignore_case
    }

    /// Whether the result is a `records x patterns` matrix.
    pub fn values(&self) -> bool {
        matches!(self.mode, Mode::Count | Mode::Contains)
    }

    /// Give an assignment the barcode letters of each pattern
    /// ([`SearchPlan::barcode_spans`]); the count reads the hits' CIGARs.
    pub fn set_barcode_spans(&mut self, spans: Vec<crate::barcode_edits::Span>) {
        self.cigar |= !spans.is_empty();
        self.barcode_spans = spans;
    }

    pub fn needs_trace(&self) -> bool {
        matches!(self.mode, Mode::Hits | Mode::Assign) || self.max_n_frac.is_some()
    }
}

/// The error for `k` not below the length (as `len` measures it) of every
/// one of `seqs` (argument `of`): the first such sequence, and the others.
pub(crate) fn k_below_lengths(k: usize, seqs: &[&[u8]], len: impl Fn(usize) -> usize, of: &'static str, part: Part) -> Option<CoreError> {
    let mut bad = (0..seqs.len()).filter(|&i| k >= len(i));
    let first = bad.next()?;
    Some(CoreError::invalid(
        "k",
        None,
        k,
        Rule::BelowLength { of, index: first, seq: String::from_utf8_lossy(seqs[first]).into_owned(), length: len(first), part, more: bad.collect() },
    ))
}

/// Upper case, and `U` read as `T`, for the nucleotide alphabets: sassy's
/// complement tables do not map lower case DNA or `U`. Lower case for ASCII
/// with `ignore_case`, whose texts are folded the same way (see `fold_case`).
fn normalize_pattern(alphabet: Alphabet, ignore_case: bool, p: &[u8]) -> Vec<u8> {
    match alphabet {
        Alphabet::Ascii if ignore_case => p.to_ascii_lowercase(),
        Alphabet::Ascii => p.to_vec(),
        Alphabet::Dna | Alphabet::Iupac => p
            .iter()
            .map(|&c| match c.to_ascii_uppercase() {
                b'U' => b'T',
                u => u,
            })
            .collect(),
    }
}

/// Batched search pays off for several equal-length nucleotide patterns, in
/// every mode (measured: 64 20-mers on 20,000 150-bp reads, 7x faster than
/// one search per pattern). With overhang, sassy 0.3.0's batched search
/// reports other end positions than its one-by-one search (our equivalence
/// test), so it is off.
/// `min_batch`: the fewest equal-length patterns batched (see
/// [`BATCH_MIN_PATTERNS`] and, where records are joined, `lanes.rs`).
fn group_patterns(patterns: &[Vec<u8>], alphabet: Alphabet, overhang: bool, min_batch: usize) -> Vec<PatternGroup> {
    let batchable = alphabet.is_nucleotide() && !overhang;
    let mut by_len: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    if batchable {
        for (i, p) in patterns.iter().enumerate() {
            if p.len() <= BATCH_MAX_LEN {
                by_len.entry(p.len()).or_default().push(i);
            }
        }
    }
    let mut in_batch = vec![false; patterns.len()];
    let mut groups = Vec::new();
    for idx in by_len.into_values() {
        if idx.len() >= min_batch {
            for &i in &idx {
                in_batch[i] = true;
            }
            let parts = idx.len().div_ceil(BATCH_MAX_PATTERNS);
            let size = idx.len().div_ceil(parts);
            groups.extend(idx.chunks(size).map(|c| PatternGroup::Batch(c.to_vec())));
        }
    }
    groups.extend((0..patterns.len()).filter(|&i| !in_batch[i]).map(PatternGroup::Single));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(opts: SearchOptions, pats: &[&str]) -> Result<SearchPlan, CoreError> {
        let p: Vec<&[u8]> = pats.iter().map(|s| s.as_bytes()).collect();
        SearchPlan::new(&opts, &p)
    }

    #[test]
    fn rejects_what_sassy_would_panic_on() {
        let base = SearchOptions { k: 1, ..Default::default() };
        assert!(matches!(plan(base.clone(), &[""]), Err(CoreError::InvalidArgument { arg: "patterns", index: Some(0), .. })));
        assert!(matches!(plan(base.clone(), &["A"]), Err(CoreError::InvalidArgument { arg: "k", .. })));
        let e = plan(SearchOptions { alphabet: Alphabet::Dna, ..base.clone() }, &["ACGN"]).unwrap_err();
        assert_eq!(e, CoreError::InvalidLetter { arg: "patterns", index: 0, position: 3, letter: b'N', alphabet: "dna" });
        assert!(plan(SearchOptions { overhang: Some(1.5), ..base.clone() }, &["ACGT"]).is_err());
        assert!(plan(SearchOptions { overhang: Some(0.5), alphabet: Alphabet::Dna, ..base.clone() }, &["ACGT"]).is_err());
        assert!(plan(SearchOptions { alphabet: Alphabet::Ascii, ..base.clone() }, &["ACGT"]).is_err());
        assert!(plan(SearchOptions { threads: 0, ..base.clone() }, &["ACGT"]).is_err());
        assert!(plan(SearchOptions { k: -1, ..base }, &["ACGT"]).is_err());
    }

    #[test]
    fn normalizes_and_complements() {
        let p = plan(SearchOptions::default(), &["acgun"]).unwrap();
        assert_eq!(p.patterns[0], b"ACGTN");
        assert_eq!(p.complements[0], b"TGCAN");
    }

    #[test]
    fn groups_equal_length_patterns() {
        // without joined records (lanes.rs), from BATCH_MIN_PATTERNS on
        let no_lanes = SearchOptions { text_lanes: Some(false), ..Default::default() };
        let p = plan(no_lanes.clone(), &["ACGT", "CCGT", "GGGT", "TTTT", "ACGTA"]).unwrap();
        assert_eq!(p.groups.len(), 2);
        assert!(matches!(&p.groups[0], PatternGroup::Batch(v) if v == &vec![0, 1, 2, 3]));
        assert!(matches!(p.groups[1], PatternGroup::Single(4)));
        // with them, from JOINED_BATCH_MIN_PATTERNS on (all-endpoints
        // searches too); substitution-only searches are not joined
        let lanes = SearchOptions { text_lanes: Some(true), ..Default::default() };
        let four = ["ACGT", "CCGT", "GGGT", "TTTT"];
        assert!(plan(lanes.clone(), &four).unwrap().groups.iter().all(|g| matches!(g, PatternGroup::Single(_))));
        assert!(plan(SearchOptions { all_endpoints: true, ..lanes.clone() }, &four).unwrap().groups.iter().all(|g| matches!(g, PatternGroup::Single(_))));
        assert_eq!(plan(SearchOptions { indels: false, ..lanes.clone() }, &four).unwrap().groups.len(), 4);
        let many: Vec<String> = (0..JOINED_BATCH_MIN_PATTERNS).map(|i| format!("{:06b}", i).replace('0', "A").replace('1', "C")).collect();
        let refs: Vec<&str> = many.iter().map(|s| s.as_str()).collect();
        assert!(matches!(&plan(lanes, &refs).unwrap().groups[..], [PatternGroup::Batch(v)] if v.len() == refs.len()));
        let c = plan(SearchOptions { overhang: Some(0.5), ..Default::default() }, &["ACGT", "CCGT", "GGGT", "TTTT"]).unwrap();
        assert!(c.groups.iter().all(|g| matches!(g, PatternGroup::Single(_))));
    }

    #[test]
    fn large_batches_are_split_into_equal_groups() {
        // 2,500 equal-length patterns: 3 groups of 834, 834, 832, in order
        let pats: Vec<String> = (0..2500).map(|i| format!("{:012b}", i).replace('0', "A").replace('1', "C")).collect();
        let refs: Vec<&str> = pats.iter().map(|s| s.as_str()).collect();
        let p = plan(SearchOptions::default(), &refs).unwrap();
        let sizes: Vec<usize> = p.groups.iter().map(|g| g.patterns().len()).collect();
        assert_eq!(sizes, vec![834, 834, 832]);
        assert!(sizes.iter().all(|&n| n <= BATCH_MAX_PATTERNS));
        let all: Vec<usize> = p.groups.iter().flat_map(|g| g.patterns().to_vec()).collect();
        assert_eq!(all, (0..2500).collect::<Vec<_>>());
    }
}
