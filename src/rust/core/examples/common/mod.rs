//! Shared by the benchmark binaries in `examples/`: argument parsing, the
//! input file (one record per line, as the R benchmark scripts write it), and
//! the summary of a hit set that every benchmark path prints so the paths can
//! be checked against each other (count, cost sum, CIGAR bytes, start sum,
//! minus-strand hits).
#![allow(dead_code)]

use std::collections::HashMap;
use std::time::Instant;

/// `--name value` pairs and bare `--flag`s.
pub struct Args(HashMap<String, String>);

impl Args {
    pub fn parse() -> Self {
        let mut map = HashMap::new();
        let mut it = std::env::args().skip(1).peekable();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                die(&format!(
                    "unexpected argument `{a}` (arguments are --name value)"
                ));
            };
            let value = match it.peek() {
                Some(v) if !v.starts_with("--") => it.next().unwrap(),
                _ => "true".to_string(),
            };
            map.insert(name.to_string(), value);
        }
        Args(map)
    }

    pub fn str(&self, name: &str, default: &str) -> String {
        self.0
            .get(name)
            .cloned()
            .unwrap_or_else(|| default.to_string())
    }

    pub fn required(&self, name: &str) -> String {
        self.0
            .get(name)
            .cloned()
            .unwrap_or_else(|| die(&format!("--{name} is required")))
    }

    pub fn num<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        match self.0.get(name) {
            None => default,
            Some(v) => v
                .parse()
                .unwrap_or_else(|_| die(&format!("--{name}: `{v}` is not a number"))),
        }
    }

    pub fn flag(&self, name: &str, default: bool) -> bool {
        match self.0.get(name).map(String::as_str) {
            None => default,
            Some("true" | "TRUE" | "1" | "yes") => true,
            Some("false" | "FALSE" | "0" | "no") => false,
            Some(v) => die(&format!("--{name}: `{v}` is not true/false")),
        }
    }
}

pub fn die(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2)
}

/// The records of a file with one record per line (`\r\n` tolerated).
pub fn read_lines(path: &str) -> Vec<Vec<u8>> {
    let data = std::fs::read(path).unwrap_or_else(|e| die(&format!("cannot read {path}: {e}")));
    let mut out: Vec<Vec<u8>> = data
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    if out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Order-independent summary of a hit set. `start_sum` uses 1-based starts
/// (as R reports them), so the R paths can compute the same number.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Summary {
    pub hits: u64,
    pub cost_sum: i64,
    pub cigar_bytes: u64,
    pub start_sum: u64,
    pub minus: u64,
}

impl Summary {
    pub fn add(&mut self, start0: usize, cost: i32, minus: bool, cigar_bytes: usize) {
        self.hits += 1;
        self.cost_sum += cost as i64;
        self.cigar_bytes += cigar_bytes as u64;
        self.start_sum += start0 as u64 + 1;
        self.minus += minus as u64;
    }
}

/// Length of a CIGAR as text (`12=1X7=` is 7 bytes), without formatting it.
pub fn cigar_text_len(c: &pa_types::Cigar) -> usize {
    c.ops.iter().map(|e| digits(e.cnt) + 1).sum()
}

fn digits(mut n: i32) -> usize {
    let mut d = 1;
    while n >= 10 {
        n /= 10;
        d += 1;
    }
    d
}

/// CPU seconds (user + system) of this process, all threads, from
/// /proc/self/stat (clock ticks of 1/100 s, Linux's USER_HZ); NaN elsewhere.
pub fn process_cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return f64::NAN;
    };
    // fields after the command name, which is in parentheses
    let Some(rest) = stat.rsplit_once(')').map(|(_, r)| r) else {
        return f64::NAN;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 here
    match (
        f.get(11).and_then(|v| v.parse::<f64>().ok()),
        f.get(12).and_then(|v| v.parse::<f64>().ok()),
    ) {
        (Some(u), Some(s)) => (u + s) / 100.0,
        _ => f64::NAN,
    }
}

/// Wall and CPU seconds of one timed call.
#[derive(Debug, Clone, Copy)]
pub struct Timing {
    pub seconds: f64,
    pub cpu_seconds: f64,
}

/// Time `f` `reps` times after `warmup` untimed calls; returns the timing of
/// each timed call and the last result.
pub fn time_reps<T>(warmup: usize, reps: usize, mut f: impl FnMut() -> T) -> (Vec<Timing>, T) {
    for _ in 0..warmup {
        std::hint::black_box(f());
    }
    let mut secs = Vec::with_capacity(reps);
    let mut last = None;
    for _ in 0..reps.max(1) {
        let c = process_cpu_seconds();
        let t = Instant::now();
        let r = f();
        secs.push(Timing {
            seconds: t.elapsed().as_secs_f64(),
            cpu_seconds: process_cpu_seconds() - c,
        });
        last = Some(r);
    }
    (secs, last.unwrap())
}

/// One `key=value` line per timed repetition, for the R scripts to parse.
pub fn print_result(path: &str, threads: usize, records: usize, secs: &[Timing], s: &Summary) {
    for (i, t) in secs.iter().enumerate() {
        println!(
            "path={path} threads={threads} rep={} records={records} seconds={:.6} cpu_seconds={:.2} hits={} cost_sum={} cigar_bytes={} start_sum={} minus={}",
            i + 1,
            t.seconds,
            t.cpu_seconds,
            s.hits,
            s.cost_sum,
            s.cigar_bytes,
            s.start_sum,
            s.minus
        );
    }
}
