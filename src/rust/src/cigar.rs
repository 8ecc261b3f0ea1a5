//! The extendr binding of CIGAR conversion (`cigar = "sam"`, see
//! `core/src/cigar.rs`): vectors in, vector out, on R's thread.

use extendr_api::prelude::*;
use extendr_ffi as ffi;
use std::os::raw::c_int;

/// SAM CIGARs from sassy's: `cigar` a character vector (`NA` stays `NA`),
/// `minus` a logical vector, `clip_start` / `clip_end` integer vectors
/// (pattern letters outside the aligned part), all of the same length. A
/// string that is not a CIGAR gives `NA` (R checks for that: it is a bug).
#[extendr]
fn ds_cigar_sam(cigar: Robj, minus: Robj, clip_start: Robj, clip_end: Robj) -> Robj {
    crate::guard(|| {
        let (Some(m), Some(l), Some(r)) = (minus.as_logical_slice(), clip_start.as_integer_slice(), clip_end.as_integer_slice()) else {
            return crate::error_value(&ducksassy_core::CoreError::Internal("ds_cigar_sam() got columns of the wrong type".into()));
        };
        let c = match crate::borrow_strings(&cigar, "cigar") {
            Ok(c) => c,
            Err(e) => return crate::error_value(&e),
        };
        let n = c.len();
        if m.len() != n || l.len() != n || r.len() != n {
            return crate::error_value(&ducksassy_core::CoreError::Internal("ds_cigar_sam() got columns of unequal length".into()));
        }
        let mut buf = Vec::new();
        unsafe {
            let v = Robj::from_sexp(ffi::Rf_allocVector(ffi::SEXPTYPE::STRSXP, n as ffi::R_xlen_t));
            let sexp = v.get();
            for i in 0..n {
                buf.clear();
                let ok = c[i].and_then(|s| {
                    let minus = m[i].is_true();
                    ducksassy_core::cigar::sam_cigar(s, minus, l[i].max(0) as u64, r[i].max(0) as u64, &mut buf)
                });
                let s = match ok {
                    Some(()) => ffi::Rf_mkCharLenCE(buf.as_ptr() as *const _, buf.len() as c_int, ffi::cetype_t::CE_UTF8),
                    None => ffi::R_NaString,
                };
                ffi::SET_STRING_ELT(sexp, i as ffi::R_xlen_t, s);
            }
            v
        }
    })
}

extendr_module! {
    mod cigar;
    fn ds_cigar_sam;
}
