//! Assignments (`sassy_assign()`) as R columns: one row per record.

use ducksassy_core::assign::{Best, Status};
use extendr_api::prelude::*;

/// `list(pattern, cost, start, end, strand, other_cost, status)`, one value
/// per record: the best pattern (1-based) and its hit (1-based, inclusive
/// coordinates), `NA` without a hit; the status with `margin`. With
/// `by_barcode` (a plan with barcode spans) also `barcode_cost`, the hit's
/// edits on its barcode, which the margin then compares.
pub(crate) fn best_to_r(best: &[Best], margin: i32, by_barcode: bool) -> Robj {
    let na = |x: Option<i32>| x.map(Rint::from).unwrap_or(Rint::na());
    let col = |f: &dyn Fn(&Best) -> Option<i32>| -> Robj { best.iter().map(|b| na(f(b))).collect::<Integers>().into() };
    let strand: Strings = best.iter().map(|b| b.hit.map(|h| if h.minus { "-" } else { "+" })).map(|s| s.map(Rstr::from).unwrap_or(Rstr::na())).collect();
    let status: Strings = best
        .iter()
        .map(|b| match b.status_with(margin, by_barcode) {
            Status::Assigned => Rstr::from("assigned"),
            Status::Ambiguous => Rstr::from("ambiguous"),
            Status::Unassigned => Rstr::from("unassigned"),
            Status::Missing => Rstr::na(),
        })
        .collect();
    let barcode_cost: Robj = if by_barcode { col(&|b| b.hit.map(|h| h.barcode_edits.min(i32::MAX as u32) as i32)) } else { ().into() };
    list!(
        pattern = col(&|b| b.hit.map(|h| h.pattern as i32 + 1)),
        cost = col(&|b| b.hit.map(|h| h.cost)),
        barcode_cost = barcode_cost,
        start = col(&|b| b.hit.map(|h| h.start as i32 + 1)),
        end = col(&|b| b.hit.map(|h| h.end as i32)),
        strand = strand,
        other_cost = col(&|b| b.other_cost()),
        status = status
    )
    .into()
}
