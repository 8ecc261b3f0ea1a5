//! Pure-Rust core of ducksassy: no R in here.
//!
//! Approximate (edit-distance) search of many patterns in many texts with the
//! `sassy` crate (Beeloo & Groot Koerkamp, "Sassy: fuzzy searching DNA
//! sequences using SIMD", Bioinformatics 2026; "Sassy2: batch searching of
//! short DNA patterns", bioRxiv 2026), run in parallel on reusable rayon pools
//! with per-worker searchers and buffers, with columnar output.
//!
//! Flow: raw [`options::SearchOptions`] + patterns are validated once into an
//! immutable [`options::SearchPlan`]; [`engine::run`] cuts the texts into
//! tasks, each worker runs them with its own [`worker::Worker`] state; the
//! search strategies ([`strategy`]) feed a [`sink::Sink`] (hits, count or
//! contains); outputs are merged in task order, so results do not depend on the thread count.
//!
//! Coordinates stay 0-based, end-exclusive here, as sassy reports them.

pub mod alphabet;
pub mod arrow;
pub mod assign;
pub mod background;
pub mod barcode_edits;
pub mod cigar;
pub mod control;
pub mod crispr;
pub mod edge_overhang;
pub mod ends;
pub mod ends_policy;
pub mod engine;
pub mod error;
pub mod fastx;
pub mod hamming;
pub mod hits;
pub mod lanes;
pub mod options;
pub mod overhang;
pub mod pool;
pub mod profile;
pub mod rc_filter;
pub mod sink;
pub mod stepwise;
pub mod strategy;
pub mod validate;
pub mod worker;

pub use control::{Control, Stop};
pub use engine::{run, Output};
pub use error::CoreError;
pub use hits::HitBuffer;
pub use alphabet::Alphabet;
pub use options::{Mode, SearchOptions, SearchPlan};

/// Version of the sassy crate this core is built against.
pub const SASSY_VERSION: &str = "0.3.0";
