//! sassy's searcher is generic over the alphabet profile; this is the one
//! place where it becomes a plain enum the engine can hold.

use crate::error::CoreError;
use crate::options::{Alphabet, SearchPlan};
use crate::stepwise::Matrices;
use sassy::profiles::{CaseSensitiveAscii, Dna, Iupac};
use sassy::{EncodedPatterns, Match, Searcher};

/// Which sassy profile a plan needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProfileKind {
    Dna,
    Iupac,
    /// Case-sensitive; `ignore_case` folds texts and patterns instead.
    Ascii,
}

impl ProfileKind {
    pub fn of(plan: &SearchPlan) -> Self {
        match plan.alphabet {
            Alphabet::Dna => ProfileKind::Dna,
            Alphabet::Iupac => ProfileKind::Iupac,
            Alphabet::Ascii => ProfileKind::Ascii,
        }
    }
}

/// A forward-only sassy searcher for one profile and overhang. The reverse
/// complement strand is searched by the engine itself (complemented pattern
/// on the reversed text), as sassy does internally, so that the complement is
/// computed once per call and the reversed text lives in a reused buffer.
pub enum AnySearcher {
    Dna(Searcher<Dna>),
    Iupac(Searcher<Iupac>),
    Ascii(Searcher<CaseSensitiveAscii>),
}

/// Patterns encoded once per call for sassy's batched search. Always the IUPAC
/// profile: sassy 0.3.0's batched search with the DNA profile fails its
/// traceback or misses hits (our equivalence tests caught it), and for ACGT
/// input IUPAC matching is the same relation.
pub type AnyEncoded = EncodedPatterns<Iupac>;

macro_rules! each {
    ($self:expr, $s:ident => $body:expr) => {
        match $self {
            AnySearcher::Dna($s) => $body,
            AnySearcher::Iupac($s) => $body,
            AnySearcher::Ascii($s) => $body,
        }
    };
}

impl AnySearcher {
    pub fn new(kind: ProfileKind, overhang: Option<f32>) -> Self {
        // Overhang was validated to be iupac-only and in [0, 1] by the plan.
        match kind {
            ProfileKind::Dna => AnySearcher::Dna(Searcher::new(false, None)),
            ProfileKind::Iupac => AnySearcher::Iupac(Searcher::new(false, overhang)),
            ProfileKind::Ascii => AnySearcher::Ascii(Searcher::new(false, None)),
        }
    }

    /// Set the per-call switches (cheap field writes).
    pub fn configure(&mut self, trace: bool, max_n_frac: Option<f32>) {
        each!(self, s => {
            s.set_trace(trace);
            // sassy treats 1.0 as "no filter"
            s.set_max_n_frac(max_n_frac.unwrap_or(1.0));
        })
    }

    /// Rightmost local minima (or every end position) with cost <= k.
    pub fn search(&mut self, pattern: &[u8], text: &[u8], k: usize, all_endpoints: bool) -> Vec<Match> {
        each!(self, s => if all_endpoints { s.search_all(pattern, text, k) } else { s.search(pattern, text, k) })
    }

    /// [`crate::stepwise::search`]: like [`AnySearcher::search`] with tracing,
    /// but traced a batch at a time so that `emit` can stop it.
    pub fn search_in_steps(
        &mut self,
        cms: &mut Matrices,
        pattern: &[u8],
        text: &[u8],
        q: &crate::stepwise::StepQuery,
        keep_end: impl Fn(usize) -> bool,
        mut emit: impl FnMut(&[Match]) -> Result<(), CoreError>,
    ) -> Result<(), CoreError> {
        each!(self, s => crate::stepwise::search(s, cms, pattern, text, q, &keep_end, &mut emit))
    }

    /// Encode equal-length patterns for [`AnySearcher::search_encoded`]
    /// (IUPAC searchers only; see [`AnyEncoded`]).
    pub fn encode(&self, patterns: &[Vec<u8>]) -> Option<AnyEncoded> {
        match self {
            AnySearcher::Iupac(s) => Some(s.encode_patterns(patterns)),
            _ => None,
        }
    }

    /// Batched search of encoded patterns; `pattern_idx` of each match is the
    /// index within the encoded group. Texts must not be empty (sassy 0.3.0
    /// underflows on them).
    pub fn search_encoded(&mut self, enc: &AnyEncoded, text: &[u8], k: usize, all_endpoints: bool) -> &[Match] {
        match self {
            AnySearcher::Iupac(s) => {
                if all_endpoints { s.search_all_encoded_patterns(enc, text, k) } else { s.search_encoded_patterns(enc, text, k) }
            }
            _ => unreachable!("batched search needs the IUPAC profile"),
        }
    }
}
