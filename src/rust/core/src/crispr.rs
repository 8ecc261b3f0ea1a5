//! CRISPR off-target search: guides that end with their PAM, found with up to
//! `k` edits, the PAM matched exactly.
//!
//! # Definition
//!
//! A guide `G` of length `L` is a spacer `S = G[..L - P]` followed by its PAM
//! `G[L - P..]` (`P` = the guide's `pam_length`, IUPAC letters, e.g. `NGG`).
//! A hit ends at text position `e` (0-based, exclusive) when
//!
//! * without `allow_pam_edits`: the PAM matches `text[e - P..e]` letter by
//!   letter (IUPAC sets intersect, no edits), and the spacer aligns to a
//!   substring ending at `e - P` with at most `k` edits. The cost is the
//!   spacer's edit distance (the PAM adds none) and the CIGAR ends with `P=`;
//! * with `allow_pam_edits`: the whole guide aligns to a substring ending at
//!   `e` with at most `k` edits (plain semi-global search);
//!
//! and the reported region `text[start..e]` (PAM included) has an `N`
//! fraction of at most `max_n_frac`. Every such end position is reported
//! (not only local minima), on the forward text and, with `rc`, on the
//! reverse complement, like sassy's own `crispr` command.
//!
//! That command searches the whole guide and keeps the end positions where
//! the text under the PAM matches it. The costs are the same (a trailing pair
//! of matching letters never changes an edit distance, so the guide's cost
//! there equals the spacer's), but here the spacer is searched on its own and
//! the PAM checked right after it, so start and CIGAR always describe an
//! alignment whose PAM letters are matches (the CIGAR ends with `P=`), and
//! the N filter sees the PAM too.
//!
//! # How
//!
//! Each guide is searched alone with sassy's `search_with_fn`: the spacer,
//! every end position, and a filter that runs before traceback and keeps an
//! end position only if the PAM matches the text that follows it (and a
//! cheap lower bound of the N fraction passes). So guides of different
//! lengths, PAMs and PAM lengths mix freely in one plan: nothing is shared
//! between them.
//! The reverse strand is searched as the engine does it: the complemented
//! guide (complemented spacer, then complemented PAM) on the reversed text.
//!
//! The engine ([`crate::engine`]) runs CRISPR plans like any other: tasks,
//! windows of long records, threads, ordered merge, cancellation and the hit
//! limit are the same; [`crate::strategy`] calls [`guide_hits`] for each guide of
//! a plan whose `crispr` field is set. Build such plans with [`plan`] only.

use crate::alphabet::{iupac_match, Alphabet};
use crate::error::{CoreError, Part, Rule, Value};
use crate::options::{k_below_lengths, Mode, PatternGroup, SearchOptions, SearchPlan};
use crate::profile::{AnySearcher, ProfileKind};
use crate::sink::HitSink;
use crate::validate::first_invalid_letter;
use crate::worker::Worker;
use sassy::{Match, Strand};

/// CRISPR options as the caller gives them.
#[derive(Debug, Clone, PartialEq)]
pub struct CrisprOptions {
    /// Letters at the end of each guide that are its PAM: one value for every
    /// guide, or one per guide; `1 <= pam_length < len(guide)`. Default 3
    /// (`NGG`).
    pub pam_length: Vec<usize>,
    /// Allow edits in the PAM: then the whole guide is searched with `k`
    /// edits and nothing is required of the PAM. Default `false`.
    pub allow_pam_edits: bool,
    /// Drop hits whose region (PAM included) has a larger fraction of `N`
    /// letters, in `[0, 1]`; 1 keeps everything. Default 0.2.
    pub max_n_frac: f64,
}

impl Default for CrisprOptions {
    fn default() -> Self {
        CrisprOptions { pam_length: vec![3], allow_pam_edits: false, max_n_frac: 0.2 }
    }
}

pub use crate::options::CrisprPlan;

/// Check the options and `guides` (PAM included) and build a plan for
/// [`crate::run`]: IUPAC alphabet, hits mode, every end position, no overhang;
/// `opts` gives `k`, `rc`, `cigar`, `threads`, `max_hits` and `window`.
/// Errors name `guides`, `pam_length`, `k` or `max_n_frac` and the index of
/// the offending guide.
pub fn plan(opts: &SearchOptions, guides: &[&[u8]], c: &CrisprOptions) -> Result<SearchPlan, CoreError> {
    if guides.is_empty() {
        return Err(CoreError::invalid("guides", None, Value::Length(0), Rule::NotEmpty));
    }
    if let Some(i) = guides.iter().position(|g| g.is_empty()) {
        return Err(CoreError::invalid("guides", Some(i), "", Rule::NonEmptyString));
    }
    if let Some(i) = guides.iter().position(|g| first_invalid_letter(Alphabet::Iupac, g).is_some()) {
        let (position, letter) = first_invalid_letter(Alphabet::Iupac, guides[i]).expect("found above");
        return Err(CoreError::InvalidLetter { arg: "guides", index: i, position, letter, alphabet: Alphabet::Iupac.name() });
    }
    let one = c.pam_length.len() == 1;
    if !one && c.pam_length.len() != guides.len() {
        return Err(CoreError::invalid("pam_length", None, Value::Length(c.pam_length.len()), Rule::OneOrOnePer { of: "guides", n: guides.len() }));
    }
    let pam_of = |i: usize| if one { c.pam_length[0] } else { c.pam_length[i] };
    if let Some(i) = (0..c.pam_length.len()).find(|&i| c.pam_length[i] < 1) {
        return Err(CoreError::invalid("pam_length", (!one).then_some(i), c.pam_length[i], Rule::WholeAtLeast(1)));
    }
    // the PAM below each guide's length: a pam_length error, indexed by
    // the guide (the value is that guide's PAM length)
    let bad_pam: Vec<usize> = (0..guides.len()).filter(|&i| pam_of(i) >= guides[i].len()).collect();
    if let Some((&first, more)) = bad_pam.split_first() {
        return Err(CoreError::invalid(
            "pam_length",
            (!one).then_some(first),
            pam_of(first),
            Rule::BelowLength { of: "guides", index: first, seq: String::from_utf8_lossy(guides[first]).into_owned(), length: guides[first].len(), part: Part::Whole, more: more.to_vec() },
        ));
    }
    if opts.k < 0 {
        return Err(CoreError::invalid("k", None, opts.k, Rule::WholeAtLeast(0)));
    }
    // what is searched with k edits: the spacer, or the whole guide
    let searched = |i: usize| if c.allow_pam_edits { guides[i].len() } else { guides[i].len() - pam_of(i) };
    let part = if c.allow_pam_edits { Part::Whole } else { Part::Spacer };
    if let Some(e) = k_below_lengths(opts.k as usize, guides, searched, "guides", part) {
        return Err(e);
    }
    if !(0.0..=1.0).contains(&c.max_n_frac) {
        return Err(CoreError::invalid("max_n_frac", None, c.max_n_frac, Rule::Fraction));
    }
    if let Some(a) = opts.overhang {
        return Err(CoreError::invalid("overhang", None, a, Rule::CrisprFixed));
    }
    if opts.mode != Mode::Hits {
        return Err(CoreError::invalid("mode", None, format!("{:?}", opts.mode).to_lowercase().as_str(), Rule::CrisprFixed));
    }
    let inner = SearchOptions {
        alphabet: Alphabet::Iupac,
        ignore_case: false,
        all_endpoints: true,
        overhang: None,
        max_n_frac: None,
        mode: Mode::Hits,
        ..opts.clone()
    };
    let mut plan = SearchPlan::new(&inner, guides).map_err(|e| e.renamed("patterns", "guides"))?;
    // each guide alone: the PAM filter is per guide (see the module docs)
    plan.groups = (0..guides.len()).map(PatternGroup::Single).collect();
    plan.crispr = Some(CrisprPlan {
        pam_length: (0..guides.len()).map(pam_of).collect(),
        allow_pam_edits: c.allow_pam_edits,
        max_n_frac: c.max_n_frac,
    });
    Ok(plan)
}

/// Hits of guide `pi` in `text` (one searched slice), both strands, handed
/// to `keep` in slice coordinates. `w.rev` holds the reversed slice when
/// `plan.rc` (the sink sets it).
pub(crate) fn guide_hits(plan: &SearchPlan, c: &CrisprPlan, pi: usize, text: &[u8], w: &mut Worker, keep: &mut HitSink) {
    strand_hits(plan, c, pi, &plan.patterns[pi], text, w, |m| keep.fwd(pi, m));
    if plan.rc {
        let rev = std::mem::take(&mut w.rev);
        // complement of guide = complemented spacer, then complemented PAM,
        // read along the reversed text: the same layout as forward
        strand_hits(plan, c, pi, &plan.complements[pi], &rev, w, |m| keep.rc(pi, m));
        w.rev = rev;
    }
}

/// The matches of guide `pi` in `fwd` and, with `plan.rc`, of its complement
/// in `rev` (the reversed `fwd`), traced, `pattern_idx` set to `pi`: text
/// lanes search a joined text of records this way (`lanes.rs`).
pub(crate) fn guide_matches(plan: &SearchPlan, c: &CrisprPlan, pi: usize, fwd: &[u8], rev: &[u8], w: &mut Worker) -> (Vec<Match>, Vec<Match>) {
    let mut out = (Vec::new(), Vec::new());
    let labelled = |m: &Match| Match { pattern_idx: pi, ..m.clone() };
    strand_hits(plan, c, pi, &plan.patterns[pi], fwd, w, |m| out.0.push(labelled(m)));
    if plan.rc {
        strand_hits(plan, c, pi, &plan.complements[pi], rev, w, |m| out.1.push(labelled(m)));
    }
    out
}

/// Hits of guide `pi` (`guide`: it, or its complement) on one strand's text.
fn strand_hits(plan: &SearchPlan, c: &CrisprPlan, pi: usize, guide: &[u8], text: &[u8], w: &mut Worker, mut emit: impl FnMut(&Match)) {
    let (k, indels, pam_length) = (plan.k, plan.indels, c.pam_length[pi]);
    let (searched, pam) = if c.allow_pam_edits { (guide, &guide[guide.len()..]) } else { guide.split_at(guide.len() - pam_length) };
    let after = pam.len();
    let max_n = c.max_n_frac;
    if !indels {
        let pam_ok = |e: usize| pam_matches(pam, &text[e..e + after]);
        let n_ok = |r: &[u8]| max_n >= 1.0 || n_frac_ok(count_n(r), r.len(), max_n);
        // the N fraction of the whole region, PAM included
        return crate::hamming::guide_strand(k, searched, after, text, w, pam_ok, |m| {
            if n_ok(&text[m.text_start..m.text_end]) {
                emit(m)
            }
        });
    }
    // The alignment's region contains text[e - (len - k)..e] (at most k of the
    // searched letters are deleted) and is at most len + k letters long, PAM
    // included: a lower bound of its N fraction, checked before traceback.
    let min_len = searched.len() - k;
    let max_len = searched.len() + k + after;
    let filter = |_p: &[u8], up_to_end: &[u8], _s: Strand| -> bool {
        let e = up_to_end.len();
        if e + after > text.len() || !pam_matches(pam, &text[e..e + after]) {
            return false;
        }
        max_n >= 1.0 || n_frac_ok(count_n(&text[e.saturating_sub(min_len)..e + after]), max_len, max_n)
    };
    let AnySearcher::Iupac(s) = w.searcher(ProfileKind::Iupac, None) else {
        unreachable!("the IUPAC searcher is built for ProfileKind::Iupac")
    };
    s.set_trace(true);
    // sassy's own N filter would see the spacer only; ours counts the PAM too
    s.set_max_n_frac(1.0);
    for mut m in s.search_with_fn(searched, text, k, true, filter) {
        if after > 0 {
            m.text_end += after;
            m.pattern_end += after;
            m.cigar.push_matches(after as _);
        }
        if max_n >= 1.0 || n_frac_ok(count_n(&text[m.text_start..m.text_end]), m.text_end - m.text_start, max_n) {
            emit(&m);
        }
    }
}

/// `n / len <= max` (an empty region passes).
fn n_frac_ok(n: usize, len: usize, max: f64) -> bool {
    len == 0 || n as f64 / len as f64 <= max
}

fn count_n(s: &[u8]) -> usize {
    s.iter().filter(|&&b| b == b'N' || b == b'n').count()
}

/// Whether every PAM letter matches the text letter under it (IUPAC: the sets
/// of bases intersect; `X` matches nothing), case-insensitively.
fn pam_matches(pam: &[u8], text: &[u8]) -> bool {
    pam.iter().zip(text).all(|(&p, &t)| iupac_match(p, t))
}


#[cfg(test)]
mod tests {
    use super::*;

    fn p(opts: SearchOptions, guides: &[&str], c: CrisprOptions) -> Result<SearchPlan, CoreError> {
        let g: Vec<&[u8]> = guides.iter().map(|s| s.as_bytes()).collect();
        plan(&opts, &g, &c)
    }

    #[test]
    fn validates_guides_and_options() {
        let o = SearchOptions { k: 1, ..Default::default() };
        let c = CrisprOptions::default();
        assert!(p(o.clone(), &["ACGTAGG"], c.clone()).is_ok());
        let e = p(o.clone(), &["ACGTAGG", "ACGTAZG"], c.clone()).unwrap_err();
        assert_eq!(e, CoreError::InvalidLetter { arg: "guides", index: 1, position: 5, letter: b'Z', alphabet: "iupac" });
        let e = p(o.clone(), &["ACGTAGG", "AGG"], c.clone()).unwrap_err();
        assert_eq!(e.arg(), Some("pam_length"));
        assert!(matches!(e, CoreError::InvalidArgument { rule: Rule::BelowLength { index: 1, length: 3, .. }, .. }), "{e:?}");
        assert_eq!(p(o.clone(), &["ACGTAGG"], CrisprOptions { pam_length: vec![0], ..c.clone() }).unwrap_err().arg(), Some("pam_length"));
        // one PAM length per guide
        assert!(p(o.clone(), &["ACGTAGG", "ACGTACGTNNGRRT"], CrisprOptions { pam_length: vec![3, 6], ..c.clone() }).is_ok());
        let e = p(o.clone(), &["ACGTAGG", "ACGTAGG"], CrisprOptions { pam_length: vec![3, 7], ..c.clone() }).unwrap_err();
        assert_eq!((e.arg(), e.index()), (Some("pam_length"), Some(1)));
        assert!(p(o.clone(), &["ACGTAGG", "ACGTAGG"], CrisprOptions { pam_length: vec![3, 3, 3], ..c.clone() }).is_err());
        assert!(p(o.clone(), &["ACGTAGG"], CrisprOptions { pam_length: vec![], ..c.clone() }).is_err());
        assert_eq!(p(o.clone(), &["ACGTAGG"], CrisprOptions { max_n_frac: 1.5, ..c.clone() }).unwrap_err().arg(), Some("max_n_frac"));
        assert_eq!(p(o.clone(), &["ACGTAGG"], CrisprOptions { max_n_frac: f64::NAN, ..c.clone() }).unwrap_err().arg(), Some("max_n_frac"));
        // k must be below the spacer length, or the guide length with PAM edits
        assert_eq!(p(SearchOptions { k: 4, ..o.clone() }, &["ACGTAGG"], c.clone()).unwrap_err().arg(), Some("k"));
        assert!(p(SearchOptions { k: 4, ..o.clone() }, &["ACGTAGG"], CrisprOptions { allow_pam_edits: true, ..c.clone() }).is_ok());
        assert_eq!(p(o.clone(), &[""], c.clone()).unwrap_err().arg(), Some("guides"));
        assert_eq!(p(o.clone(), &[], c.clone()).unwrap_err().arg(), Some("guides"));
        assert!(p(SearchOptions { overhang: Some(0.5), ..o.clone() }, &["ACGTAGG"], c.clone()).is_err());
    }

    #[test]
    fn different_lengths_and_pams_are_single_groups() {
        let pl = p(SearchOptions::default(), &["ACGTAGG", "ACGTACGTTTT", "ACGTTGG", "ACGTCGG", "ACGTGGG"], CrisprOptions::default()).unwrap();
        assert_eq!(pl.groups.len(), 5);
        assert!(pl.groups.iter().all(|g| matches!(g, PatternGroup::Single(_))));
        assert!(pl.crispr.is_some());
    }

    #[test]
    fn pam_letters() {
        assert!(pam_matches(b"NGG", b"aGg"));
        assert!(pam_matches(b"NRG", b"CAG"));
        assert!(!pam_matches(b"NGG", b"AGC"));
        assert!(!pam_matches(b"NGG", b"XGG"));
        assert!(pam_matches(b"TTTV", b"uuuA"));
    }
}
