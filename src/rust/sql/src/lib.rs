//! C ABI of the ducksassy core for the DuckDB extension (`sassy_count()`,
//! `sassy_contains()`, `sassy_hits()`, `sassy_crispr_hits()`,
//! `sassy_assign()` in SQL).
//!
//! Why here and like this: the extension file itself is a small C shim
//! (src/duckdb/extension.c) compiled without SIMD flags. The search code
//! lives in this crate, which the binding crate links into every SIMD
//! backend library (`ducksassy_<backend>.so`), so the SQL functions run the
//! backend the R session already chose for this CPU (src/entrypoint.c): the
//! package's SIMD policy holds for them without another build. The shim finds
//! [`ducksassy_sql_api`] in the loaded backend and calls [`Api::run`].
//!
//! One call per DuckDB data chunk (up to 2048 rows): the shim passes each
//! row's arguments as borrowed byte slices ([`Row`]); consecutive rows with
//! the same pattern(s) and options (a constant pattern: the whole chunk) are
//! one engine call, with a validated [`SearchPlan`] cached per thread, so a
//! constant pattern is not validated again for every chunk. The engine runs
//! with one thread, no poll and `plan.inline`: on the calling thread
//! (`engine::execute`): DuckDB's own threads give the parallelism, each with
//! its own per-thread searchers and buffers (`worker.rs`).
//!
//! No panic crosses the C boundary: every entry point catches them and
//! reports an error message, which the shim hands to DuckDB
//! (`duckdb_scalar_function_set_error`: the query fails, the connection
//! stays usable).

use ducksassy_core::assign::{Best, Status};
use ducksassy_core::crispr::{self, CrisprOptions};
use ducksassy_core::{engine, Alphabet, Control, CoreError, Mode, Output, SearchOptions, SearchPlan};
use ducksassy_core::alphabet::ALPHABET_NAMES;
use ducksassy_core::error::{Part, Rule, Value};
use std::cell::RefCell;
use std::os::raw::c_char;
use std::rc::Rc;

/// Version of [`Api`] and [`Row`]/[`ChunkOut`]; the shim refuses others (a
/// stale extension file next to a newer backend).
pub const ABI: u32 = 2;

/// What a call computes.
pub const FUN_COUNT: i32 = 0;
pub const FUN_CONTAINS: i32 = 1;
pub const FUN_HITS: i32 = 2;
pub const FUN_CRISPR_HITS: i32 = 3;
/// The best pattern of each row (`sassy_assign()`): one [`ChunkOut`] entry
/// per row in the hit arrays, with `other_cost` and `status`.
pub const FUN_ASSIGN: i32 = 4;
/// Or-ed into `fun` when the pattern argument is a list (`VARCHAR[]`): only
/// the messages differ (`patterns`[i] instead of `pattern`).
pub const FUN_PANEL: i32 = 0x100;

/// A borrowed string; `ptr == NULL` is SQL's NULL (or an argument not given).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct DsStr {
    pub ptr: *const u8,
    pub len: usize,
}

impl DsStr {
    /// SAFETY: `ptr` points at `len` readable bytes for the call's duration.
    unsafe fn bytes<'a>(self) -> Option<&'a [u8]> {
        if self.ptr.is_null() {
            None
        } else if self.len == 0 {
            Some(&[])
        } else {
            Some(std::slice::from_raw_parts(self.ptr, self.len))
        }
    }
}

/// "Not given" of `margin` and of the elements of `ends` (any negative value
/// a user gives is an error, so no value of theirs can mean "not given").
pub const UNSET: i64 = i64::MIN;

/// One row's arguments. Optional arguments not given have their "default"
/// value (a NULL string, -1, NaN, [`UNSET`]): the SQL functions' defaults
/// are the R functions'.
#[repr(C)]
pub struct Row {
    /// 0 when any argument of the row is NULL: the result is NULL.
    pub valid: i32,
    pub text: DsStr,
    /// The pattern (one) or the pattern panel (a `VARCHAR[]`'s elements).
    pub patterns: *const DsStr,
    pub n_patterns: usize,
    pub k: i64,
    /// NULL pointer: `"iupac"`.
    pub alphabet: DsStr,
    /// -1: not given (TRUE, or FALSE for `"ascii"`); 0 or 1.
    pub rc: i32,
    /// -1: not given (FALSE); 0 or 1.
    pub all_endpoints: i32,
    /// NaN: not given (no overhang).
    pub overhang: f64,
    /// NaN: not given (none; 0.2 for CRISPR).
    pub max_n_frac: f64,
    /// -1: not given (3).
    pub pam_length: i64,
    /// -1: not given (FALSE).
    pub allow_pam_edits: i32,
    /// `ends` of `sassy_assign()`: the list's `n_ends` elements ([`UNSET`]
    /// for a NULL element); `ptr == NULL`: not given (whole records).
    pub ends: *const i64,
    pub n_ends: usize,
    /// [`UNSET`]: not given (0).
    pub margin: i64,
}

/// A chunk's results, in buffers of the calling thread that stay valid until
/// its next call. Row `i`'s values (one per pattern) or hits are
/// `off[i]..off[i + 1]`; 1-based inclusive coordinates, as in R.
#[repr(C)]
#[derive(Debug)]
pub struct ChunkOut {
    pub row_null: *const u8,
    pub off: *const u64,
    /// Count or contains (0/1), one per pattern, pattern order.
    pub values: *const i64,
    pub n_hits: usize,
    pub pattern: *const i32,
    pub start: *const i32,
    pub end: *const i32,
    pub pattern_start: *const i32,
    pub pattern_end: *const i32,
    pub cost: *const i32,
    /// 1 for the reverse-complement strand (`"-"`).
    pub minus: *const u8,
    /// Hit `j`'s CIGAR is `cigar[cigar_off[j]..cigar_off[j + 1]]`.
    pub cigar_off: *const u64,
    pub cigar: *const u8,
    /// `FUN_ASSIGN`: row `i`'s best hit is hit `i` of the arrays above
    /// (`n_hits` is the number of rows; placeholders where there is none),
    /// `other_cost[i]` the runner-up's cost ([`NO_COST`]: none) and
    /// `status[i]` one of `STATUS_*`.
    pub other_cost: *const i32,
    pub status: *const u8,
}

/// `other_cost` of a row without another pattern's hit (SQL NULL).
pub const NO_COST: i32 = i32::MIN;
/// `status` of an assignment; [`STATUS_NULL`]: a NULL row.
pub const STATUS_ASSIGNED: u8 = 0;
pub const STATUS_AMBIGUOUS: u8 = 1;
pub const STATUS_UNASSIGNED: u8 = 2;
pub const STATUS_NULL: u8 = 3;

/// The functions the shim calls.
#[repr(C)]
pub struct Api {
    pub abi: u32,
    /// Search `n` rows for `fun` (`FUN_*`); 0 and `*out` filled, or 1 and a
    /// NUL-terminated message in `err` (`err_len` bytes).
    pub run: unsafe extern "C" fn(fun: i32, rows: *const Row, n: usize, out: *mut ChunkOut, err: *mut c_char, err_len: usize) -> i32,
    /// The SIMD code this backend was compiled for (a static C string).
    pub simd: extern "C" fn() -> *const c_char,
}

static API: Api = Api { abi: ABI, run: ds_sql_run, simd: ds_sql_simd };

/// The entry point the shim looks up (through src/backend.c, which also
/// keeps this crate linked into the backend library).
#[no_mangle]
pub extern "C" fn ducksassy_sql_api() -> *const Api {
    &API
}

extern "C" fn ds_sql_simd() -> *const c_char {
    let s: &'static [u8] = if cfg!(target_feature = "avx512f") {
        b"avx512\0"
    } else if cfg!(target_feature = "avx2") {
        b"avx2\0"
    } else if cfg!(target_feature = "neon") {
        b"neon\0"
    } else {
        b"scalar\0"
    };
    s.as_ptr() as *const c_char
}

unsafe extern "C" fn ds_sql_run(fun: i32, rows: *const Row, n: usize, out: *mut ChunkOut, err: *mut c_char, err_len: usize) -> i32 {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let rows = if n == 0 { &[][..] } else { std::slice::from_raw_parts(rows, n) };
        BUFS.with(|b| {
            let mut b = b.borrow_mut();
            run_chunk(fun, rows, &mut b).map(|()| b.out())
        })
    }));
    let msg = match r {
        Ok(Ok(o)) => {
            *out = o;
            return 0;
        }
        Ok(Err(m)) => m,
        Err(p) => {
            let m = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            format!("{}(): internal error in ducksassy: {m}", fun_name(fun))
        }
    };
    write_message(&msg, err, err_len);
    1
}

/// Copy `msg` into the caller's buffer, cut at a character boundary.
unsafe fn write_message(msg: &str, err: *mut c_char, err_len: usize) {
    if err.is_null() || err_len == 0 {
        return;
    }
    let mut n = msg.len().min(err_len - 1);
    while n > 0 && !msg.is_char_boundary(n) {
        n -= 1;
    }
    std::ptr::copy_nonoverlapping(msg.as_ptr(), err as *mut u8, n);
    *err.add(n) = 0;
}

fn fun_name(fun: i32) -> &'static str {
    match fun & !FUN_PANEL {
        FUN_COUNT => "sassy_count",
        FUN_CONTAINS => "sassy_contains",
        FUN_HITS => "sassy_hits",
        FUN_ASSIGN => "sassy_assign",
        _ => "sassy_crispr_hits",
    }
}

/// The calling thread's output buffers, reused across chunks.
#[derive(Default)]
struct Bufs {
    row_null: Vec<u8>,
    off: Vec<u64>,
    values: Vec<i64>,
    cells: Vec<i32>,
    pattern: Vec<i32>,
    start: Vec<i32>,
    end: Vec<i32>,
    pattern_start: Vec<i32>,
    pattern_end: Vec<i32>,
    cost: Vec<i32>,
    minus: Vec<u8>,
    cigar_off: Vec<u64>,
    cigar: Vec<u8>,
    other_cost: Vec<i32>,
    status: Vec<u8>,
}

/// Buffers above this are given back after a chunk with many hits, so that
/// one odd chunk does not pin its memory in every DuckDB thread.
const KEEP_BYTES: usize = 64 << 20;

impl Bufs {
    fn clear(&mut self) {
        if self.cigar.capacity() > KEEP_BYTES || self.start.capacity() * 4 > KEEP_BYTES {
            *self = Bufs::default();
        }
        self.row_null.clear();
        self.off.clear();
        self.values.clear();
        self.pattern.clear();
        self.start.clear();
        self.end.clear();
        self.pattern_start.clear();
        self.pattern_end.clear();
        self.cost.clear();
        self.minus.clear();
        self.cigar_off.clear();
        self.cigar.clear();
        self.cigar_off.push(0);
        self.other_cost.clear();
        self.status.clear();
    }

    fn out(&self) -> ChunkOut {
        ChunkOut {
            row_null: self.row_null.as_ptr(),
            off: self.off.as_ptr(),
            values: self.values.as_ptr(),
            n_hits: self.start.len(),
            pattern: self.pattern.as_ptr(),
            start: self.start.as_ptr(),
            end: self.end.as_ptr(),
            pattern_start: self.pattern_start.as_ptr(),
            pattern_end: self.pattern_end.as_ptr(),
            cost: self.cost.as_ptr(),
            minus: self.minus.as_ptr(),
            cigar_off: self.cigar_off.as_ptr(),
            cigar: self.cigar.as_ptr(),
            other_cost: self.other_cost.as_ptr(),
            status: self.status.as_ptr(),
        }
    }

    /// Row `i`'s assignment (`FUN_ASSIGN`), 1-based inclusive coordinates.
    fn push_best(&mut self, b: &Best, margin: i32) {
        let h = b.hit;
        self.pattern.push(h.map_or(0, |h| h.pattern as i32 + 1));
        self.start.push(h.map_or(0, |h| h.start as i32 + 1));
        self.end.push(h.map_or(0, |h| h.end as i32));
        self.pattern_start.push(0);
        self.pattern_end.push(0);
        self.cost.push(h.map_or(0, |h| h.cost));
        self.minus.push(h.is_some_and(|h| h.minus) as u8);
        self.other_cost.push(b.other_cost().unwrap_or(NO_COST));
        self.status.push(match b.status(margin) {
            Status::Assigned => STATUS_ASSIGNED,
            Status::Ambiguous => STATUS_AMBIGUOUS,
            Status::Unassigned => STATUS_UNASSIGNED,
            Status::Missing => STATUS_NULL,
        });
        self.row_null.push((b.status(margin) == Status::Missing) as u8);
        self.mark(FUN_ASSIGN);
    }

    /// Where row `i`'s results end (values or hits so far).
    fn mark(&mut self, fun: i32) {
        let fun = fun & !FUN_PANEL;
        let n = if fun == FUN_COUNT || fun == FUN_CONTAINS { self.values.len() } else { self.start.len() };
        self.off.push(n as u64);
    }
}

thread_local! {
    static BUFS: RefCell<Bufs> = RefCell::new(Bufs::default());
    /// Plans of this thread, most recently used last.
    static PLANS: RefCell<Vec<Cached>> = const { RefCell::new(Vec::new()) };
}

/// Plans kept per thread (a query rarely has more than a few distinct
/// pattern/option combinations in a row; a join of guides against
/// references cycles through them, and then each is still one validation
/// per run of rows).
const MAX_PLANS: usize = 16;

/// A validated plan and what it was built from.
struct Cached {
    fun: i32,
    key: Key,
    plan: Rc<SearchPlan>,
}

/// Everything of a row but its text.
#[derive(PartialEq)]
struct Key {
    patterns: Vec<Vec<u8>>,
    k: i64,
    alphabet: Option<Vec<u8>>,
    rc: i32,
    all_endpoints: i32,
    overhang: u64,
    max_n_frac: u64,
    pam_length: i64,
    allow_pam_edits: i32,
    ends: Option<Vec<i64>>,
    margin: i64,
}

/// The row's `ends` list, borrowed; `None`: not given. SAFETY: as
/// [`DsStr::bytes`].
unsafe fn ends_of<'a>(r: &Row) -> Option<&'a [i64]> {
    if r.ends.is_null() {
        None
    } else if r.n_ends == 0 {
        Some(&[])
    } else {
        Some(std::slice::from_raw_parts(r.ends, r.n_ends))
    }
}

/// The row's patterns, borrowed. SAFETY: as [`DsStr::bytes`].
unsafe fn patterns_of<'a>(r: &Row) -> &'a [DsStr] {
    if r.n_patterns == 0 || r.patterns.is_null() {
        &[]
    } else {
        std::slice::from_raw_parts(r.patterns, r.n_patterns)
    }
}

/// Whether `a` and `b` have the same arguments but the text.
unsafe fn same_args(a: &Row, b: &Row) -> bool {
    a.k == b.k
        && a.rc == b.rc
        && a.all_endpoints == b.all_endpoints
        && a.overhang.to_bits() == b.overhang.to_bits()
        && a.max_n_frac.to_bits() == b.max_n_frac.to_bits()
        && a.pam_length == b.pam_length
        && a.allow_pam_edits == b.allow_pam_edits
        && a.margin == b.margin
        && ends_of(a) == ends_of(b)
        && a.alphabet.bytes() == b.alphabet.bytes()
        && a.n_patterns == b.n_patterns
        && (a.patterns == b.patterns || patterns_of(a).iter().zip(patterns_of(b)).all(|(x, y)| x.bytes() == y.bytes()))
}

impl Key {
    unsafe fn matches(&self, r: &Row) -> bool {
        self.k == r.k
            && self.rc == r.rc
            && self.all_endpoints == r.all_endpoints
            && self.overhang == r.overhang.to_bits()
            && self.max_n_frac == r.max_n_frac.to_bits()
            && self.pam_length == r.pam_length
            && self.allow_pam_edits == r.allow_pam_edits
            && self.margin == r.margin
            && self.ends.as_deref() == ends_of(r)
            && self.alphabet.as_deref() == r.alphabet.bytes()
            && self.patterns.len() == r.n_patterns
            && self.patterns.iter().zip(patterns_of(r)).all(|(x, y)| Some(x.as_slice()) == y.bytes())
    }

    unsafe fn of(r: &Row) -> Key {
        Key {
            patterns: patterns_of(r).iter().map(|p| p.bytes().unwrap_or_default().to_vec()).collect(),
            k: r.k,
            alphabet: r.alphabet.bytes().map(|a| a.to_vec()),
            rc: r.rc,
            all_endpoints: r.all_endpoints,
            overhang: r.overhang.to_bits(),
            max_n_frac: r.max_n_frac.to_bits(),
            pam_length: r.pam_length,
            allow_pam_edits: r.allow_pam_edits,
            ends: ends_of(r).map(|e| e.to_vec()),
            margin: r.margin,
        }
    }
}

/// The plan for `r`'s arguments: this thread's cached one, or a new one
/// (then cached; errors are not, they end the query anyway).
unsafe fn plan_for(fun: i32, r: &Row) -> Result<Rc<SearchPlan>, String> {
    PLANS.with(|c| {
        let mut c = c.borrow_mut();
        if let Some(i) = c.iter().position(|p| p.fun == fun && p.key.matches(r)) {
            let e = c.remove(i);
            let plan = e.plan.clone();
            c.push(e);
            return Ok(plan);
        }
        let ends = sql_ends(fun, r)?;
        let mut plan = new_plan(fun, r, ends).map_err(|e| message(fun, &e, None))?;
        // on the DuckDB thread that calls (see the module docs)
        plan.inline = true;
        let plan = Rc::new(plan);
        if c.len() >= MAX_PLANS {
            c.remove(0);
        }
        c.push(Cached { fun, key: Key::of(r), plan: plan.clone() });
        Ok(plan)
    })
}

fn flag(x: i32, default: bool) -> bool {
    if x < 0 {
        default
    } else {
        x != 0
    }
}

fn finite(x: f64) -> Option<f64> {
    (!x.is_nan()).then_some(x)
}

/// The `ends` of `sassy_assign()` (`None`: whole records), checked as R's
/// check_ends(): one or two whole numbers >= 0 (one for both ends), not both 0.
unsafe fn sql_ends(fun: i32, r: &Row) -> Result<Option<(usize, usize)>, String> {
    let Some(e) = ends_of(r) else { return Ok(None) };
    let bad = |why: &str| format!("{}(): `ends` must be {why}", fun_name(fun));
    let shown = |e: &[i64]| {
        let v: Vec<String> = e.iter().map(|&x| if x == UNSET { "NULL".to_string() } else { x.to_string() }).collect();
        format!("[{}]", v.join(", "))
    };
    let ok = |x: i64| (0..=i32::MAX as i64).contains(&x);
    let (head, tail) = match e {
        [a] if ok(*a) => (*a, *a),
        [a, b] if ok(*a) && ok(*b) => (*a, *b),
        _ => return Err(bad(&format!("NULL, or a list of one or two whole numbers >= 0 (the letters searched at the start and at the end of each record), not {}", shown(e)))),
    };
    if head + tail == 0 {
        return Err(bad(&format!("a list that searches some letters: at least one end above 0, not {}", shown(e))));
    }
    Ok(Some((head as usize, tail as usize)))
}

/// The `margin` of a row (checked in [`plan_for`], before the plan is cached).
fn margin_of(r: &Row) -> i32 {
    if r.margin == UNSET {
        0
    } else {
        r.margin.clamp(0, i32::MAX as i64) as i32
    }
}

/// Validate a row's arguments into a plan (the core's checks, the R
/// functions' defaults).
unsafe fn new_plan(fun: i32, r: &Row, ends: Option<(usize, usize)>) -> Result<SearchPlan, CoreError> {
    let fun = fun & !FUN_PANEL;
    let alphabet = match r.alphabet.bytes() {
        None => Alphabet::Iupac,
        Some(a) => {
            let name = String::from_utf8_lossy(a);
            Alphabet::parse(&name).ok_or_else(|| CoreError::invalid("alphabet", None, name.as_ref(), Rule::OneOf(ALPHABET_NAMES)))?
        }
    };
    let pats: Vec<&[u8]> = patterns_of(r)
        .iter()
        .enumerate()
        .map(|(i, p)| {
            p.bytes().ok_or_else(|| CoreError::invalid("patterns", Some(i), Value::Missing, Rule::NotMissing))
        })
        .collect::<Result<_, _>>()?;
    let mut opts = SearchOptions {
        k: r.k,
        alphabet,
        rc: flag(r.rc, alphabet.is_nucleotide()),
        all_endpoints: flag(r.all_endpoints, false),
        overhang: finite(r.overhang),
        max_n_frac: finite(r.max_n_frac),
        cigar: fun == FUN_HITS || fun == FUN_CRISPR_HITS,
        threads: 1,
        mode: match fun {
            FUN_COUNT => Mode::Count,
            FUN_CONTAINS => Mode::Contains,
            FUN_ASSIGN => Mode::Assign,
            _ => Mode::Hits,
        },
        ends,
        ..Default::default()
    };
    if fun == FUN_ASSIGN && r.margin != UNSET && !(0..=i32::MAX as i64).contains(&r.margin) {
        return Err(CoreError::invalid("margin", None, r.margin, Rule::WholeAtLeast(0)));
    }
    if fun != FUN_CRISPR_HITS {
        return SearchPlan::new(&opts, &pats);
    }
    opts.rc = flag(r.rc, true);
    opts.max_n_frac = None;
    if r.pam_length < -1 || r.pam_length > u32::MAX as i64 {
        return Err(CoreError::invalid("pam_length", None, r.pam_length, Rule::WholeAtLeast(1)));
    }
    let c = CrisprOptions {
        pam_length: vec![if r.pam_length < 0 { 3 } else { r.pam_length as usize }],
        allow_pam_edits: flag(r.allow_pam_edits, false),
        max_n_frac: finite(r.max_n_frac).unwrap_or(0.2),
    };
    crispr::plan(&opts, &pats, &c)
}

/// The message DuckDB shows: the function, then the core's message with the
/// SQL argument names (`pattern` for a single pattern, `guide`); a bad text
/// letter names the text (its beginning) instead of an index in the chunk.
fn message(fun: i32, e: &CoreError, text: Option<&[u8]>) -> String {
    let name = fun_name(fun);
    if let (CoreError::InvalidLetter { arg: "texts", position, letter, alphabet, .. }, Some(t)) = (e, text) {
        let shown: String = String::from_utf8_lossy(&t[..t.len().min(30)]).chars().map(|c| if c.is_control() { '?' } else { c }).collect();
        let more = if t.len() > 30 { "..." } else { "" };
        return format!(
            "{name}(): `text` \"{shown}{more}\" has letter {} at position {} that is not in the {alphabet} alphabet",
            ducksassy_core::error::fmt_letter(*letter),
            position + 1
        );
    }
    let m = wording(e);
    // the SQL argument's name: `pattern` (`guide`) for one, the core's
    // `patterns`[i] (`guides`[i]) for a list
    let (one, many) = if fun & !FUN_PANEL == FUN_CRISPR_HITS { ("`guide`", "`guides`") } else { ("`pattern`", "`patterns`") };
    let m = if fun & FUN_PANEL == 0 {
        m.replace(&format!("{many}[1]"), one).replace("`patterns`", one).replace("`guides`", one)
    } else {
        m.replace("`guides`", "`guide`")
    };
    format!("{name}(): {m}")
}

/// The core's error in words (the core gives data, each caller words it:
/// R in R/conditions.R, SQL here), with the core's argument names
/// (`patterns`[i], 1-based); `message` puts in the SQL ones.
fn wording(e: &CoreError) -> String {
    let value = |v: &Value| match v {
        Value::Int(x) => x.to_string(),
        Value::Num(x) => x.to_string(),
        Value::Flag(x) => x.to_string(),
        Value::Text(x) => format!("{x:?}"),
        Value::Missing => "NULL".to_string(),
        Value::Length(n) => format!("{n} values"),
    };
    let quoted = |names: &[&str]| {
        let q: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        match q.split_last() {
            Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
            _ => q.join(""),
        }
    };
    match e {
        CoreError::InvalidArgument { arg, index, value: v, rule } => {
            let at = index.map(|i| format!("[{}]", i + 1)).unwrap_or_default();
            let expected = match rule {
                Rule::WholeAtLeast(n) => format!("a whole number >= {n}"),
                Rule::Fraction => "a number in [0, 1]".to_string(),
                Rule::OneOf(names) => format!("one of {}", quoted(names)),
                Rule::NotEmpty => "at least one element".to_string(),
                Rule::NonEmptyString => "a non-empty string".to_string(),
                Rule::NotMissing => "a string".to_string(),
                Rule::BelowLength { of, index, length, part, .. } => {
                    let what = if *part == Part::Spacer { "the spacer length (guide minus PAM)" } else { "the length" };
                    format!("less than {what} of `{of}`[{}] ({length})", index + 1)
                }
                Rule::NeedsAlphabet { allowed, alphabet } => {
                    let names: Vec<&str> = allowed.iter().map(|a| a.name()).collect();
                    format!("unset with the \"{}\" alphabet (it needs {})", alphabet.name(), quoted(&names))
                }
                Rule::UnsetWith { other, value: o } => format!("unset when `{other}` is {}", value(o)),
                Rule::NoMaskWithOverhang { .. } => "free of the masking letter X when `overhang` is set".to_string(),
                Rule::OneOrOnePer { of, n } => format!("one value or one per element of `{of}` ({n})"),
                Rule::Below { limit, unit } => format!("fewer than {limit} {unit}"),
                Rule::CrisprFixed => "unset for a CRISPR search".to_string(),
            };
            format!("`{arg}`{at} must be {expected}, not {}", value(v))
        }
        CoreError::InvalidLetter { arg, index, position, letter, alphabet } => format!(
            "`{arg}`[{}] has letter {} at position {} that is not in the {alphabet} alphabet",
            index + 1,
            ducksassy_core::error::fmt_letter(*letter),
            position + 1
        ),
        CoreError::TooManyHits { limit } => format!("the search found more than {limit} hits"),
        CoreError::TooLarge { records, patterns } => format!("a result of {records} records x {patterns} patterns is too large for memory"),
        CoreError::TraceMemory { pattern_length, k, bytes } => format!(
            "aligning a {pattern_length}-letter pattern at k = {k} needs {:.1} GB of memory per match and thread, more than this machine can give",
            *bytes as f64 / 1e9
        ),
        CoreError::Resource(m) => m.clone(),
        CoreError::Interrupted => STOP_HOOK
            .get()
            .and_then(|h| (h.reason)())
            .unwrap_or_else(|| "the search was interrupted".to_string()),
        CoreError::Internal(m) => format!("internal error in ducksassy: {m}"),
    }
}

/// How a search inside DuckDB learns that it must stop: the engine runs on
/// DuckDB's thread (no waiting thread polls R), and DuckDB's own interrupt
/// only acts between chunks, which on long rows (chromosomes) can be
/// minutes apart. The binding, which knows R, sets this once
/// ([`set_stop_hook`]); without it (cargo test) nothing stops a search.
#[derive(Clone, Copy)]
pub struct StopHook {
    /// A chunk of rows begins on this thread (the baseline of `wanted`).
    pub begin: fn(),
    /// Whether to stop now; cheap, called once per sassy call from any of
    /// DuckDB's threads.
    pub wanted: fn() -> bool,
    /// Why the search stopped, when not an interrupt (R's time limit): the
    /// query's error message. Asked on the thread that stopped.
    pub reason: fn() -> Option<String>,
}

static STOP_HOOK: std::sync::OnceLock<StopHook> = std::sync::OnceLock::new();

/// Install the stop check of every later SQL search (the first call wins).
pub fn set_stop_hook(hook: StopHook) {
    let _ = STOP_HOOK.set(hook);
}

/// Search `rows` into `b`.
unsafe fn run_chunk(fun: i32, rows: &[Row], b: &mut Bufs) -> Result<(), String> {
    if let Some(h) = STOP_HOOK.get() {
        (h.begin)();
    }
    b.clear();
    b.off.push(0);
    let mut i = 0;
    while i < rows.len() {
        if rows[i].valid == 0 || rows[i].text.ptr.is_null() {
            if fun & !FUN_PANEL == FUN_ASSIGN {
                b.push_best(&Best::MISSING, 0);
            } else {
                b.row_null.push(1);
                b.mark(fun);
            }
            i += 1;
            continue;
        }
        let mut j = i + 1;
        while j < rows.len() && rows[j].valid != 0 && !rows[j].text.ptr.is_null() && same_args(&rows[i], &rows[j]) {
            j += 1;
        }
        let plan = plan_for(fun, &rows[i])?;
        let texts: Vec<Option<&[u8]>> = rows[i..j].iter().map(|r| r.text.bytes()).collect();
        search_run(fun, &plan, margin_of(&rows[i]), &texts, b).map_err(|e| {
            let text = match &e {
                CoreError::InvalidLetter { arg: "texts", index, .. } => texts.get(*index).copied().flatten(),
                _ => None,
            };
            message(fun, &e, text)
        })?;
        i = j;
    }
    Ok(())
}

/// One engine call for a run of rows with the same plan; appends their
/// results (and row ends) to `b`.
fn search_run(fun: i32, plan: &SearchPlan, margin: i32, texts: &[Option<&[u8]>], b: &mut Bufs) -> Result<(), CoreError> {
    let mut ctl = Control::new();
    ctl.watch = STOP_HOOK.get().map(|h| h.wanted);
    let n = texts.len();
    let n_pat = plan.patterns.len();
    if plan.mode == Mode::Assign {
        let Output::Best(best) = engine::run(plan, texts, &ctl, None)? else {
            return Err(CoreError::Internal("an assignment returned no assignments".into()));
        };
        if best.len() != n {
            return Err(CoreError::Internal(format!("{} assignments for {n} rows", best.len())));
        }
        for x in &best {
            b.push_best(x, margin);
        }
        return Ok(());
    }
    if plan.mode != Mode::Hits {
        let cells = engine::value_cells(plan, n)?;
        b.cells.clear();
        b.cells.resize(cells, 0);
        engine::run_values(plan, texts, &ctl, None, &mut b.cells)?;
        // column-major (record fastest) -> each row's values in pattern order
        for r in 0..n {
            b.row_null.push(0);
            for p in 0..n_pat {
                b.values.push(b.cells[p * n + r] as i64);
            }
            b.mark(fun);
        }
        return Ok(());
    }
    let Output::Hits(bufs) = engine::run(plan, texts, &ctl, None)? else {
        return Err(CoreError::Internal("a hits search returned values".into()));
    };
    // hits come in record order: close each row as its hits end
    let mut row = 0usize;
    for h in &bufs {
        for i in 0..h.len() {
            let rec = h.record[i] as usize;
            while row < rec {
                b.row_null.push(0);
                b.mark(fun);
                row += 1;
            }
            b.pattern.push(h.pattern[i] as i32 + 1);
            b.start.push(h.start[i] as i32 + 1);
            b.end.push(h.end[i] as i32);
            b.pattern_start.push(h.pattern_start[i] as i32 + 1);
            b.pattern_end.push(h.pattern_end[i] as i32);
            b.cost.push(h.cost[i]);
            b.minus.push(h.minus[i] as u8);
            if h.has_cigar() {
                b.cigar.extend_from_slice(h.cigar(i));
            }
            b.cigar_off.push(b.cigar.len() as u64);
        }
    }
    while row < n {
        b.row_null.push(0);
        b.mark(fun);
        row += 1;
    }
    ducksassy_core::hits::recycle(bufs);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &[u8]) -> DsStr {
        DsStr { ptr: x.as_ptr(), len: x.len() }
    }
    const NULL: DsStr = DsStr { ptr: std::ptr::null(), len: 0 };

    fn row(text: DsStr, pats: &[DsStr], k: i64) -> Row {
        Row {
            valid: 1,
            text,
            patterns: pats.as_ptr(),
            n_patterns: pats.len(),
            k,
            alphabet: NULL,
            rc: -1,
            all_endpoints: -1,
            overhang: f64::NAN,
            max_n_frac: f64::NAN,
            pam_length: -1,
            allow_pam_edits: -1,
            ends: std::ptr::null(),
            n_ends: 0,
            margin: UNSET,
        }
    }

    fn call(fun: i32, rows: &[Row]) -> Result<ChunkOut, String> {
        let mut out = std::mem::MaybeUninit::<ChunkOut>::uninit();
        let mut err = [0 as c_char; 512];
        let rc = unsafe { ds_sql_run(fun, rows.as_ptr(), rows.len(), out.as_mut_ptr(), err.as_mut_ptr(), err.len()) };
        if rc == 0 {
            Ok(unsafe { out.assume_init() })
        } else {
            Err(unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) }.to_string_lossy().into_owned())
        }
    }

    /// Counts per row equal the engine's on the same texts, NULL rows are
    /// NULL, and a change of pattern between rows starts a new run.
    #[test]
    fn counts_follow_rows_and_patterns() {
        let p1 = [s(b"ACGTACGT")];
        let p2 = [s(b"TTTTGGGG")];
        let texts: [&[u8]; 4] = [b"AAACGTACGTAA", b"CCCC", b"TTTTGGGGTTTTGGGG", b"ACGAACGT"];
        let rows = [
            row(s(texts[0]), &p1, 1),
            row(NULL, &p1, 1),
            row(s(texts[1]), &p1, 1),
            row(s(texts[2]), &p2, 0),
            row(s(texts[3]), &p1, 1),
        ];
        let out = call(FUN_COUNT, &rows).unwrap();
        let off = unsafe { std::slice::from_raw_parts(out.off, 6) };
        let nulls = unsafe { std::slice::from_raw_parts(out.row_null, 5) };
        let vals = unsafe { std::slice::from_raw_parts(out.values, off[5] as usize) };
        assert_eq!(nulls, &[0, 1, 0, 0, 0]);
        assert_eq!(off, &[0, 1, 1, 2, 3, 4]);
        let want = |t: &[u8], p: &[u8], k: i64| {
            let plan = SearchPlan::new(&SearchOptions { k, mode: Mode::Count, ..Default::default() }, &[p]).unwrap();
            match engine::run(&plan, &[Some(t)], &Control::new(), None).unwrap() {
                Output::Values(v) => v[0] as i64,
                _ => unreachable!(),
            }
        };
        assert_eq!(vals, &[want(texts[0], b"ACGTACGT", 1), want(texts[1], b"ACGTACGT", 1), want(texts[2], b"TTTTGGGG", 0), want(texts[3], b"ACGTACGT", 1)]);
        assert!(vals[0] >= 1 && vals[2] == 2, "{vals:?}");
    }

    #[test]
    fn bad_input_is_a_message_and_the_next_call_works() {
        let p = [s(b"ACGT")];
        let e = call(FUN_COUNT, &[row(s(b"ACGZ"), &p, 0)]).unwrap_err();
        assert!(e.starts_with("sassy_count(): `text` \"ACGZ\" has letter \"Z\" at position 4"), "{e}");
        let e = call(FUN_HITS, &[row(s(b"ACGT"), &p, 4)]).unwrap_err();
        assert!(e.contains("`k`") && e.contains("length of `pattern` (4)"), "{e}");
        let e = call(FUN_HITS | FUN_PANEL, &[row(s(b"ACGT"), &p, 4)]).unwrap_err();
        assert!(e.starts_with("sassy_hits(): ") && e.contains("`patterns`[1]"), "{e}");
        let out = call(FUN_CONTAINS, &[row(s(b"ACGT"), &p, 0)]).unwrap();
        assert_eq!(unsafe { *out.values }, 1);
    }

    #[test]
    fn hits_are_grouped_by_row_with_one_based_coordinates() {
        let p = [s(b"ACGTT")];
        let rows = [row(s(b"GGACGTTGG"), &p, 0), row(s(b"GGGG"), &p, 0), row(s(b"ACGTTACGTT"), &p, 0)];
        let out = call(FUN_HITS, &rows).unwrap();
        let off = unsafe { std::slice::from_raw_parts(out.off, 4) };
        assert_eq!(off, &[0, 1, 1, 3]);
        let start = unsafe { std::slice::from_raw_parts(out.start, 3) };
        let end = unsafe { std::slice::from_raw_parts(out.end, 3) };
        assert_eq!((start, end), (&[3, 1, 6][..], &[7, 5, 10][..]));
        let co = unsafe { std::slice::from_raw_parts(out.cigar_off, 4) };
        let cig = unsafe { std::slice::from_raw_parts(out.cigar, co[3] as usize) };
        assert_eq!(&cig[..co[1] as usize], b"5=");
    }

    /// The assignment of each row, as the engine's Assign mode gives it for
    /// the same texts: `(pattern, cost, start, end, minus, other_cost, status)`.
    fn assignments(out: &ChunkOut, n: usize) -> Vec<(i32, i32, i32, i32, u8, i32, u8)> {
        assert_eq!(out.n_hits, n);
        let sl = |p: *const i32| unsafe { std::slice::from_raw_parts(p, n) };
        let (pat, cost, start, end, oc) = (sl(out.pattern), sl(out.cost), sl(out.start), sl(out.end), sl(out.other_cost));
        let minus = unsafe { std::slice::from_raw_parts(out.minus, n) };
        let status = unsafe { std::slice::from_raw_parts(out.status, n) };
        let nulls = unsafe { std::slice::from_raw_parts(out.row_null, n) };
        (0..n)
            .map(|i| {
                assert_eq!(nulls[i] == 1, status[i] == STATUS_NULL);
                (pat[i], cost[i], start[i], end[i], minus[i], oc[i], status[i])
            })
            .collect()
    }

    #[test]
    fn assign_gives_one_best_hit_per_row() {
        // bc1 exact at 5..16 of row 0; row 1 has bc2's reverse complement;
        // row 2 none; row 3 NULL; row 4 both barcodes exactly: a tie
        let p = [s(b"ACGTACGTACGT"), s(b"TTGCAATTGCCA")];
        let t: [&[u8]; 4] = [b"CCCCACGTACGTACGTCCCC", b"GGGGTGGCAATTGCAAGGGG", b"AAAAAAAAAAAAAAAAAAAA", b"ACGTACGTACGTTTGCAATTGCCA"];
        let rows = [row(s(t[0]), &p, 1), row(s(t[1]), &p, 1), row(s(t[2]), &p, 1), row(NULL, &p, 1), row(s(t[3]), &p, 0)];
        let out = call(FUN_ASSIGN | FUN_PANEL, &rows).unwrap();
        let got = assignments(&out, 5);
        assert_eq!(got[0], (1, 0, 5, 16, 0, NO_COST, STATUS_ASSIGNED));
        assert_eq!((got[1].0, got[1].1, got[1].2, got[1].3, got[1].4, got[1].6), (2, 0, 5, 16, 1, STATUS_ASSIGNED));
        assert_eq!((got[2].5, got[2].6), (NO_COST, STATUS_UNASSIGNED));
        assert_eq!(got[3].6, STATUS_NULL);
        assert_eq!((got[4].0, got[4].1, got[4].5, got[4].6), (1, 0, 0, STATUS_AMBIGUOUS));
    }

    #[test]
    fn assign_margin_and_ends() {
        let p = [s(b"ACGTACGTACGT"), s(b"TTGCAATTGCCA")];
        // bc1 exactly, bc2 with one substitution: assigned at margin 0,
        // ambiguous at margin 1
        let t = b"ACGTACGTACGTGGGGGGGGGGGGGGGGTTGCAATAGCCA";
        let mut r = row(s(t), &p, 2);
        let st = |r: &Row| assignments(&call(FUN_ASSIGN | FUN_PANEL, std::slice::from_ref(r)).unwrap(), 1)[0];
        assert_eq!((st(&r).1, st(&r).5, st(&r).6), (0, 1, STATUS_ASSIGNED));
        r.margin = 1;
        assert_eq!(st(&r).6, STATUS_AMBIGUOUS);
        // only the last 14 letters: bc2 alone, in the whole text's coordinates
        let ends = [0i64, 14];
        r.ends = ends.as_ptr();
        r.n_ends = 2;
        let a = st(&r);
        assert_eq!((a.0, a.1, a.2, a.3, a.5, a.6), (2, 1, 29, 40, NO_COST, STATUS_ASSIGNED));
        // one number: both ends
        let one = [14i64];
        r.ends = one.as_ptr();
        r.n_ends = 1;
        assert_eq!(st(&r).6, STATUS_AMBIGUOUS);
        // bad ends and margin are messages
        for bad in [&[][..], &[1, 2, 3][..], &[-1][..], &[0, 0][..], &[UNSET][..]] {
            r.ends = bad.as_ptr();
            r.n_ends = bad.len();
            let e = call(FUN_ASSIGN | FUN_PANEL, std::slice::from_ref(&r)).unwrap_err();
            assert!(e.starts_with("sassy_assign(): `ends` must be "), "{e}");
        }
        r.ends = std::ptr::null();
        r.margin = -1;
        let e = call(FUN_ASSIGN | FUN_PANEL, std::slice::from_ref(&r)).unwrap_err();
        assert_eq!(e, "sassy_assign(): `margin` must be a whole number >= 0, not -1");
    }

    /// Many rows with random patterns planted: every row's assignment is
    /// the engine's, whatever the runs of rows with the same arguments.
    #[test]
    fn assign_equals_the_engine() {
        let mut seed = 0x9E3779B97F4A7C15u64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let dna = |len: usize, next: &mut dyn FnMut(u64) -> u64| -> Vec<u8> { (0..len).map(|_| b"ACGT"[next(4) as usize]).collect() };
        let pats: Vec<Vec<u8>> = (0..6).map(|_| dna(12, &mut next)).collect();
        let texts: Vec<Vec<u8>> = (0..300)
            .map(|i| {
                let mut t = dna(40 + next(100) as usize, &mut next);
                if i % 3 != 0 {
                    let p = &pats[next(6) as usize];
                    let at = next(t.len() as u64 - 12) as usize;
                    t[at..at + 12].copy_from_slice(p);
                    if i % 5 == 0 {
                        t[at + 3] = b'A';
                    }
                    if i % 2 == 0 {
                        t.reverse();
                        for c in t.iter_mut() {
                            *c = match *c { b'A' => b'T', b'C' => b'G', b'G' => b'C', _ => b'A' };
                        }
                    }
                }
                t
            })
            .collect();
        let ps: Vec<DsStr> = pats.iter().map(|p| s(p)).collect();
        let prefs: Vec<&[u8]> = pats.iter().map(|p| p.as_slice()).collect();
        for margin in [UNSET, 0, 1] {
            let rows: Vec<Row> = texts.iter().map(|t| Row { margin, ..row(s(t), &ps, 2) }).collect();
            let got = assignments(&call(FUN_ASSIGN | FUN_PANEL, &rows).unwrap(), rows.len());
            let plan = SearchPlan::new(&SearchOptions { k: 2, mode: Mode::Assign, ..Default::default() }, &prefs).unwrap();
            let tx: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
            let Output::Best(want) = engine::run(&plan, &tx, &Control::new(), None).unwrap() else { unreachable!() };
            let mut b = Bufs::default();
            b.clear();
            b.off.push(0);
            for w in &want {
                b.push_best(w, margin_of(&rows[0]));
            }
            let want = assignments(&b.out(), rows.len());
            assert_eq!(got, want);
            assert!(got.iter().filter(|g| g.6 == STATUS_ASSIGNED).count() > 100);
            assert!(got.iter().any(|g| g.4 == 1));
        }
    }
}
