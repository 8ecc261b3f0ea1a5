//! Demultiplexing: every record of the input goes, exactly once, to the
//! file of its best pattern (`assign.rs`), or to the `unassigned` or
//! `ambiguous` file. Paired files (R1/R2) are read in step, and both mates
//! go to the sample of the pair.
//!
//! Records stream through: a reader thread per input (mates: a second one)
//! parses batches, this thread assigns each batch with the engine and a
//! writer thread writes each record straight from the batch to its output
//! (gzip outputs: into blocks compressed on threads of their own,
//! `gzip_blocks.rs`), then hands the batch back to the reader to fill
//! again (`Spares`: fresh buffers cost a page fault per page, more than
//! the search of the ends of reads). Every output is written under
//! a temporary name next to it and renamed only when the whole run
//! succeeded (`writer.rs`): an interrupted or failed run leaves no file
//! that looks complete, and an existing output untouched.
//!
//! Without trimming a record is written as it was read, byte for byte (as
//! `filter` does). With `trim`, the matched pattern and what precedes it
//! on its strand are cut away: on the forward strand everything up to the
//! hit's end, on the reverse strand everything from the hit's start (the
//! pattern's reverse complement and what follows it). A trimmed record is
//! written on single lines: header, sequence, and for FASTQ `+` and the
//! quality.

use super::{reader, writer, Batch, BatchSize, Column, FastxError, Format, HeaderKeep, ReadOptions, RecordParts, CHANNEL_CAPACITY};
use crate::assign::{Best, Status};
use crate::engine::{Control, Output, POLL_INTERVAL};
use crate::error::CoreError;
use crate::options::{Mode, SearchPlan};
use crossbeam_channel::{Receiver, RecvTimeoutError, SendTimeoutError};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

/// Where the records go.
#[derive(Debug, Clone)]
pub struct DemuxSpec {
    /// The output files (of the reads, R1).
    pub outputs: Vec<String>,
    /// The mates' output files (R2), parallel to `outputs`, for paired input.
    pub mate_outputs: Option<Vec<String>>,
    /// The output (index into `outputs`) of each pattern's records.
    pub sample_of_pattern: Vec<usize>,
    pub unassigned: usize,
    pub ambiguous: usize,
    pub margin: i32,
    pub trim: bool,
    /// A per-read report (`demux_report.rs`), or none.
    pub report: Option<super::demux_report::DemuxReport>,
    /// The compression level (1 to 9) of the outputs whose name ends in
    /// `.gz`, compressed on `plan.threads` threads of their own.
    pub gzip_level: u32,
    /// The both-ends mode (`demux_ends.rs`): each end assigned on its own
    /// and combined by a policy; `sample_of_pattern`, `unassigned` and
    /// `ambiguous` are then unused. `None`: the single assignment.
    pub ends: Option<super::demux_ends::EndsSpec>,
}

/// Records (pairs, for paired input) written to each output.
pub type DemuxCounts = Vec<u64>;

/// Demultiplex the records of `reads` (and, paired, of `mates`, file by
/// file in step with them) as `spec` says. `plan` is an assign plan.
pub fn demultiplex(
    plan: &SearchPlan,
    reads: &[String],
    mates: Option<&[String]>,
    spec: &DemuxSpec,
    size: BatchSize,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<DemuxCounts, FastxError> {
    check_spec(plan, reads, mates, spec)?;
    let ends = match &spec.ends {
        Some(e) => Some(super::demux_ends::EndsSearch::new(plan, e, spec.margin)?),
        None => None,
    };
    let ends = ends.as_ref();
    // mates need their names, to check that the pairs agree
    // split reads are written cut, with their names changed
    let cut = spec.trim || spec.ends.as_ref().is_some_and(|e| e.split);
    let header = if cut {
        HeaderKeep::Full
    } else if mates.is_some() || spec.report.is_some() {
        HeaderKeep::Name
    } else {
        HeaderKeep::None
    };
    let keep = RecordParts { raw: true, header, qual: cut, seq_strings: false };
    let mut opts = ReadOptions::new(size, keep);
    opts.threads = plan.threads;
    let is_gz = |p: &String| is_gzip_path(p);
    let gzip = match spec.outputs.iter().chain(spec.mate_outputs.iter().flatten()).chain(spec.report.iter().map(|r| &r.path)).any(is_gz) {
        true => Some(writer::gzip(spec.gzip_level, plan.threads)?),
        false => None,
    };
    let gz = |p: &String| gzip.as_ref().filter(|_| is_gz(p));
    let mut outs = Vec::new();
    for p in &spec.outputs {
        outs.push(writer::Output::create(p, gz(p), writer::BUF_MANY)?);
    }
    let mut mate_outs = Vec::new();
    for p in spec.mate_outputs.iter().flatten() {
        mate_outs.push(writer::Output::create(p, gz(p), writer::BUF_MANY)?);
    }
    // the report is the last output: committed with the others
    let mut report = None;
    if let Some(r) = &spec.report {
        let mut o = writer::Output::create(&r.path, gz(&r.path), writer::BUF_MANY)?;
        o.write_all(if ends.is_some() { super::demux_report::HEADER_ENDS } else { super::demux_report::HEADER })?;
        report = Some(o);
    }
    let n_out = spec.outputs.len();
    let spares = super::Spares::new();
    std::thread::scope(|s| {
        // the writer (and compression) runs beside the search, straight
        // from the batches' record texts into the outputs, mates' outputs
        // after the reads'; it hands the batches back to the readers
        let (wtx, wrx) = crossbeam_channel::bounded::<Routed>(CHANNEL_CAPACITY);
        let spares_ref = &spares;
        let writer = s.spawn(move || -> Result<Vec<writer::Output>, FastxError> {
            let mut all: Vec<writer::Output> = outs.into_iter().chain(mate_outs).collect();
            let mut report = report;
            for r in wrx {
                if ctl.cancel.load(Relaxed) {
                    return Err(CoreError::Interrupted.into());
                }
                r.write(&mut all, n_out, spec.trim)?;
                if let (Some(out), Some(rep), Some(e), Some(es)) = (report.as_mut(), spec.report.as_ref(), &r.ends, spec.ends.as_ref()) {
                    rep.write_ends(out, &reads[r.a.file], &r.a, e, &r.splits, es)?;
                } else if let (Some(out), Some(rep)) = (report.as_mut(), spec.report.as_ref()) {
                    let best: Vec<Best> = match &r.best_b {
                        None => r.best_a.clone(),
                        Some(bb) => r.best_a.iter().zip(bb).map(|(a, b)| a.merge(*b)).collect(),
                    };
                    rep.write(out, &reads[r.a.file], &r.a, &best, &r.route, spec.margin)?;
                }
                r.recycle(spares_ref);
            }
            all.extend(report);
            Ok(all)
        });
        let mut counts = vec![0u64; n_out];
        let mut writer_gone = false;
        // the writer (gzip) can be slower than the search: while this
        // thread waits for it, R's interrupts and time limits are polled
        let mut send = |mut routed: Routed, poll: &mut dyn FnMut() -> bool| -> Result<(), FastxError> {
            loop {
                match wtx.send_timeout(routed, POLL_INTERVAL) {
                    Ok(()) => return Ok(()),
                    Err(SendTimeoutError::Timeout(r)) => {
                        routed = r;
                        if stop_asked(ctl, poll) {
                            return Err(CoreError::Interrupted.into());
                        }
                    }
                    Err(SendTimeoutError::Disconnected(_)) => {
                        writer_gone = true;
                        return Err(FastxError::Write { path: spec.outputs[0].clone(), message: "the writer stopped".into() });
                    }
                }
            }
        };
        let mut on_pair = |a: Batch, b: Option<Batch>, poll: &mut dyn FnMut() -> bool| -> Result<(), FastxError> {
            if let (Some(b), Some(m)) = (&b, mates) {
                check_mate_names(&a, b, &reads[a.file], &m[b.file])?;
            }
            if let Some(e) = ends {
                let m = b.as_ref().zip(mates).map(|(b, m)| (b, m[b.file].as_str()));
                let (recs, splits) = e.assign(&a, &reads[a.file], m, ctl, poll)?;
                for r in recs.iter().filter(|r| !r.split) {
                    counts[r.output] += 1;
                }
                for p in splits.iter().flat_map(|s| &s.parts) {
                    counts[p.2.output] += 1;
                }
                return send(Routed { a, b, best_a: Vec::new(), best_b: None, route: Vec::new(), ends: Some(recs), splits }, poll);
            }
            let best_a = assign_batch(plan, &a, &reads[a.file], ctl, poll)?;
            let best_b = match &b {
                Some(b) => Some(assign_batch(plan, b, &mates.expect("paired")[b.file], ctl, poll)?),
                None => None,
            };
            let route: Vec<(usize, Option<u32>)> = (0..a.len())
                .map(|i| route(spec, &best_b.as_ref().map_or(best_a[i], |bb| best_a[i].merge(bb[i]))))
                .collect();
            for &(o, _) in &route {
                counts[o] += 1;
            }
            send(Routed { a, b, best_a, best_b, route, ends: None, splits: Vec::new() }, poll)
        };
        let r = match mates {
            None => super::stream_with(reads, &opts, Some(&spares), ctl, poll, &mut |batch, poll| on_pair(batch, None, poll)),
            Some(m) => stream_pairs(reads, m, &opts, ctl, poll, &mut on_pair),
        };
        drop(wtx);
        if r.is_err() {
            ctl.cancel.store(true, Relaxed);
        }
        // the writer may still have batches to write (and compress): wait,
        // polling R, which may ask to stop
        while !writer.is_finished() {
            if r.is_ok() && stop_asked(ctl, &mut *poll) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let w = writer.join().unwrap_or_else(|_| Err(CoreError::Internal("the FASTA/FASTQ writer panicked".into()).into()));
        let r = if r.is_ok() && ctl.cancel.load(Relaxed) { Err(CoreError::Interrupted.into()) } else { r };
        match (r, w) {
            (Ok(()), Ok(all)) => {
                // one transaction: every output complete (flushed, gzip
                // trailer written, closed) before the first rename, so a
                // failure (a full disk) leaves every earlier file as it was
                // and the renames one too: an output that cannot replace its
                // file (a folder now, an immutable file) puts every file back
                let closed = all.into_iter().map(|o| o.close(false)).collect::<Result<Vec<_>, _>>()?;
                super::writer::rename_all(closed)?;
                Ok(counts)
            }
            (Err(_), Err(we)) if writer_gone => Err(we),
            // the outputs are dropped: their temporary files removed
            (Err(e), _) => Err(e),
            (Ok(()), Err(we)) => Err(we),
        }
    })
}

/// Whether the output path is written gzip-compressed: it ends in `.gz` or
/// `.gzip`, in any case.
pub fn is_gzip_path(p: &str) -> bool {
    let p = p.to_ascii_lowercase();
    p.ends_with(".gz") || p.ends_with(".gzip")
}

/// Whether the run must stop: cancelled, or R asks (an interrupt, a time
/// limit, a SIGTERM), which then cancels it for every thread.
fn stop_asked(ctl: &Control, poll: &mut dyn FnMut() -> bool) -> bool {
    if ctl.cancel.load(Relaxed) {
        return true;
    }
    if poll() {
        ctl.cancel.store(true, Relaxed);
        return true;
    }
    false
}

/// The name of a mate as paired reads are matched (as cutadapt does): the
/// header up to the first space or tab, without a final `/1` or `/2`.
fn mate_name(header: &[u8]) -> &[u8] {
    let end = header.iter().position(|&c| c == b' ' || c == b'\t').unwrap_or(header.len());
    let name = &header[..end];
    match name {
        [rest @ .., b'/', b'1' | b'2'] => rest,
        _ => name,
    }
}

/// Paired reads must be mates: the first pair of a batch whose names
/// differ is an error naming both.
fn check_mate_names(a: &Batch, b: &Batch, read_path: &str, mate_path: &str) -> Result<(), FastxError> {
    for i in 0..a.len().min(b.len()) {
        let (x, y) = (mate_name(a.header.get(i)), mate_name(b.header.get(i)));
        if x != y {
            let record = a.first + i as u64 + 1;
            return Err(FastxError::Parse {
                path: mate_path.to_string(),
                record: Some(record),
                line: None,
                kind: super::ParseKind::Mates,
                message: format!(
                    "record {record} is `{}` in `{read_path}` and `{}` in its mates' file: the mates must be in the same order, with the same names (up to `/1` and `/2` and the description)",
                    String::from_utf8_lossy(x),
                    String::from_utf8_lossy(y)
                ),
            });
        }
    }
    Ok(())
}

/// A batch (a pair of batches) with the assignment of its records and the
/// output of each: what the writer needs.
struct Routed {
    a: Batch,
    b: Option<Batch>,
    best_a: Vec<Best>,
    best_b: Option<Vec<Best>>,
    /// The output of each record (pair), and the pattern it was assigned to.
    route: Vec<(usize, Option<u32>)>,
    /// The both-ends mode: each record's assignment (`best_a` is empty),
    /// and the parts of the reads split at a middle barcode, in order.
    ends: Option<Vec<super::demux_ends::EndsRecord>>,
    splits: Vec<super::demux_ends::Split>,
}

impl Routed {
    /// Write every record to its output (`all`: the reads' `n_out` outputs,
    /// then the mates').
    fn write(&self, all: &mut [writer::Output], n_out: usize, trim: bool) -> Result<(), FastxError> {
        if let Some(ends) = &self.ends {
            let mut splits = self.splits.iter();
            for (i, e) in ends.iter().enumerate() {
                if e.split {
                    let s = splits.next().filter(|s| s.record == i).ok_or_else(|| CoreError::Internal("demultiplex: a split read without its parts".into()))?;
                    for (j, (from, to, p)) in s.parts.iter().enumerate() {
                        let (f, t) = if trim && p.call.sample.is_some() { p.kept(to - from) } else { (0, to - from) };
                        write_part(&self.a, i, from + f, from + t, j + 1, &mut all[p.output])?;
                    }
                    continue;
                }
                let cut = trim && e.call.sample.is_some();
                match &self.b {
                    None if cut => {
                        let (from, to) = e.kept(self.a.seq.get(i).len());
                        write_cut(&self.a, i, from, to, &mut all[e.output])?;
                    }
                    None => all[e.output].put(self.a.raw.get(i))?,
                    // mates: the pair to the output and its mate's
                    Some(b) if cut => {
                        let ((f1, t1), (f2, t2)) = e.kept_mates(self.a.seq.get(i).len(), b.seq.get(i).len());
                        write_cut(&self.a, i, f1, t1, &mut all[e.output])?;
                        write_cut(b, i, f2, t2, &mut all[n_out + e.output])?;
                    }
                    Some(b) => {
                        all[e.output].put(self.a.raw.get(i))?;
                        all[n_out + e.output].put(b.raw.get(i))?;
                    }
                }
            }
            return Ok(());
        }
        for (i, &(o, pattern)) in self.route.iter().enumerate() {
            write_record(&self.a, i, &self.best_a[i], pattern, trim, &mut all[o])?;
            if let (Some(b), Some(bb)) = (&self.b, &self.best_b) {
                write_record(b, i, &bb[i], pattern, trim, &mut all[n_out + o])?;
            }
        }
        Ok(())
    }

    fn recycle(self, spares: &super::Spares) {
        spares.give(self.a);
        if let Some(b) = self.b {
            spares.give(b);
        }
    }
}

fn check_spec(plan: &SearchPlan, reads: &[String], mates: Option<&[String]>, spec: &DemuxSpec) -> Result<(), FastxError> {
    let n_out = spec.outputs.len();
    let bad = |what: &str| Err(CoreError::Internal(format!("demultiplex: {what}")).into());
    if plan.mode != Mode::Assign {
        return bad("needs an assign plan");
    }
    if mates.map(|m| m.len()) != mates.map(|_| reads.len()) || spec.mate_outputs.as_ref().map(|m| m.len()) != mates.map(|_| n_out) {
        return bad("mates and their outputs must match the reads'");
    }
    if let Some(e) = &spec.ends {
        if e.output_of_sample.iter().chain(&e.output_of_reason).any(|&o| o >= n_out) {
            return bad("an output index is out of range");
        }
        return Ok(());
    }
    if spec.sample_of_pattern.len() != plan.patterns.len() || spec.sample_of_pattern.iter().chain([&spec.unassigned, &spec.ambiguous]).any(|&o| o >= n_out) {
        return bad("an output index is out of range");
    }
    Ok(())
}

/// The output of a record (pair) and the pattern it was assigned to.
fn route(spec: &DemuxSpec, best: &Best) -> (usize, Option<u32>) {
    match (best.status(spec.margin), best.hit) {
        (Status::Assigned, Some(h)) => (spec.sample_of_pattern[h.pattern as usize], Some(h.pattern)),
        (Status::Ambiguous, _) => (spec.ambiguous, None),
        _ => (spec.unassigned, None),
    }
}

/// Assign one batch's records, naming the file and record in an error.
fn assign_batch(plan: &SearchPlan, batch: &Batch, path: &str, ctl: &Control, poll: &mut dyn FnMut() -> bool) -> Result<Vec<Best>, FastxError> {
    match super::run_batch(plan, batch, path, ctl, poll)? {
        Output::Best(b) => Ok(b),
        _ => Err(CoreError::Internal("demultiplex: the search returned no assignments".into()).into()),
    }
}

/// Write record `i` of `batch` to `out`: as read, or trimmed of its own
/// best hit when that is a hit of the record's (pair's) `pattern`.
fn write_record(batch: &Batch, i: usize, best: &Best, pattern: Option<u32>, trim: bool, out: &mut impl Put) -> Result<(), FastxError> {
    let hit = best.hit.filter(|h| trim && Some(h.pattern) == pattern);
    let Some(h) = hit else {
        return out.put(batch.raw.get(i));
    };
    let n = batch.seq.get(i).len();
    let (from, to) = if h.minus { (0, (h.start as usize).min(n)) } else { ((h.end as usize).min(n), n) };
    write_cut(batch, i, from, to, out)
}

/// Write record `i` of `batch` to `out` with the letters `[from, to)` of
/// its sequence (and quality), on single lines.
fn write_cut(batch: &Batch, i: usize, from: usize, to: usize, out: &mut impl Put) -> Result<(), FastxError> {
    write_piece(batch, i, from, to, None, out)
}

/// [`write_cut`] of part `part` (1 or 2) of a split read: its name gets
/// `_1` or `_2` (before the description).
fn write_part(batch: &Batch, i: usize, from: usize, to: usize, part: usize, out: &mut impl Put) -> Result<(), FastxError> {
    write_piece(batch, i, from, to, Some(part), out)
}

fn write_piece(batch: &Batch, i: usize, from: usize, to: usize, part: Option<usize>, out: &mut impl Put) -> Result<(), FastxError> {
    let seq = batch.seq.get(i);
    let fastq = batch.format == Some(Format::Fastq);
    // the line breaks of the record as read (CRLF files stay CRLF)
    let eol: &[u8] = if batch.raw.get(i).ends_with(b"\r\n") { b"\r\n" } else { b"\n" };
    out.put(if fastq { b"@" } else { b">" })?;
    let header = batch.header.get(i);
    match part {
        None => out.put(header)?,
        Some(p) => {
            let name_end = header.iter().position(|&c| c == b' ' || c == b'\t').unwrap_or(header.len());
            out.put(&header[..name_end])?;
            out.put(if p == 1 { b"_1" } else { b"_2" })?;
            out.put(&header[name_end..])?;
        }
    }
    out.put(eol)?;
    out.put(&seq[from..to])?;
    out.put(eol)?;
    if fastq {
        out.put(b"+")?;
        out.put(eol)?;
        out.put(&batch.qual.get(i)[from..to])?;
        out.put(eol)?;
    }
    Ok(())
}

/// Where [`write_record`] writes: an output file, or (in tests) bytes.
trait Put {
    fn put(&mut self, bytes: &[u8]) -> Result<(), FastxError>;
}

impl Put for writer::Output {
    fn put(&mut self, bytes: &[u8]) -> Result<(), FastxError> {
        self.write_all(bytes)
    }
}

impl Put for Vec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), FastxError> {
        self.extend_from_slice(bytes);
        Ok(())
    }
}

/// The first `n` records of `b`, taken out of it.
fn split_front(b: &mut Batch, n: usize) -> Batch {
    let take = |c: &mut Column| -> Column {
        if c.is_empty() || n == 0 {
            return Column::default();
        }
        let cut = c.ends[n - 1];
        let front = Column { bytes: c.bytes[..cut].to_vec(), ends: c.ends[..n].to_vec() };
        c.bytes.drain(..cut);
        c.ends = c.ends[n..].iter().map(|e| e - cut).collect();
        front
    };
    let front = Batch {
        file: b.file,
        first: b.first,
        format: b.format,
        seq: take(&mut b.seq),
        header: take(&mut b.header),
        qual: take(&mut b.qual),
        raw: take(&mut b.raw),
        read_to: b.read_to,
    };
    b.first += n as u64;
    front
}

type OnPair<'a> = dyn FnMut(Batch, Option<Batch>, &mut dyn FnMut() -> bool) -> Result<(), FastxError> + 'a;

/// [`super::stream`] of two lists of files in step: `on_pair` gets batches
/// of the same records (file, numbers) of both. Files that differ in their
/// number of records are an error.
fn stream_pairs(reads: &[String], mates: &[String], opts: &ReadOptions, ctl: &Control, poll: &mut dyn FnMut() -> bool, on_pair: &mut OnPair<'_>) -> Result<(), FastxError> {
    let stop = AtomicBool::new(false);
    let stop_ref = &stop;
    std::thread::scope(|s| {
        let (tx1, rx1) = crossbeam_channel::bounded::<reader::Msg>(CHANNEL_CAPACITY);
        let (tx2, rx2) = crossbeam_channel::bounded::<reader::Msg>(CHANNEL_CAPACITY);
        let read = &ctl.read_bytes;
        s.spawn(move || reader::read_all(reads, opts, None, &tx1, stop_ref, read));
        s.spawn(move || reader::read_all(mates, opts, None, &tx2, stop_ref, read));
        let mut last_poll = Instant::now();
        let next = |rx: &Receiver<reader::Msg>, poll: &mut dyn FnMut() -> bool, last_poll: &mut Instant| -> Result<Option<Batch>, FastxError> {
            loop {
                if ctl.cancel.load(Relaxed) {
                    return Err(CoreError::Interrupted.into());
                }
                if last_poll.elapsed() >= POLL_INTERVAL {
                    *last_poll = Instant::now();
                    if poll() {
                        ctl.cancel.store(true, Relaxed);
                        return Err(CoreError::Interrupted.into());
                    }
                }
                match rx.recv_timeout(POLL_INTERVAL) {
                    Ok(Ok(b)) if b.is_empty() => continue,
                    Ok(Ok(b)) => return Ok(Some(b)),
                    Ok(Err(e)) => return Err(e),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return Ok(None),
                }
            }
        };
        let r = (|| -> Result<(), FastxError> {
            let (mut a, mut b): (Option<Batch>, Option<Batch>) = (None, None);
            loop {
                if a.as_ref().is_none_or(|x| x.is_empty()) {
                    a = next(&rx1, &mut *poll, &mut last_poll)?;
                }
                if b.as_ref().is_none_or(|x| x.is_empty()) {
                    b = next(&rx2, &mut *poll, &mut last_poll)?;
                }
                match (&mut a, &mut b) {
                    (None, None) => return Ok(()),
                    (Some(x), Some(y)) if x.file == y.file && x.first == y.first => {
                        let n = x.len().min(y.len());
                        let (fa, fb) = (split_front(x, n), split_front(y, n));
                        // progress, as `stream` keeps it: both readers count
                        // into `read_bytes`, so the later of the two batches
                        let to = fa.read_to.max(fb.read_to);
                        ctl.done_bytes.store(0, Relaxed);
                        ctl.total_bytes.store(0, Relaxed);
                        ctl.batch_read_to.store(to, Relaxed);
                        on_pair(fa, Some(fb), &mut *poll)?;
                        ctl.searched_bytes.store(to, Relaxed);
                    }
                    (x, y) => {
                        // one list ran out of records, or went on to its next file, first
                        let file = x.as_ref().map(|x| x.file).into_iter().chain(y.as_ref().map(|y| y.file)).min().unwrap_or(0);
                        return Err(FastxError::Parse {
                            path: mates[file].clone(),
                            record: None,
                            line: None,
                            kind: super::ParseKind::Mates,
                            message: format!("`{}` and its mates' file `{}` have different numbers of records", reads[file], mates[file]),
                        });
                    }
                }
            }
        })();
        stop.store(true, Relaxed);
        drop(rx1);
        drop(rx2);
        r
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_front_takes_the_first_records() {
        let mut b = Batch { file: 1, first: 10, ..Default::default() };
        for (s, r) in [(&b"AC"[..], &b"@a\nAC\n+\nII\n"[..]), (b"G", b"@b\nG\n+\nI\n"), (b"TTT", b"@c\nTTT\n+\nIII\n")] {
            b.seq.push(s);
            b.raw.push(r);
        }
        let f = split_front(&mut b, 2);
        assert_eq!((f.file, f.first, f.len(), b.first, b.len()), (1, 10, 2, 12, 1));
        assert_eq!(f.seq.iter().collect::<Vec<_>>(), vec![&b"AC"[..], b"G"]);
        assert_eq!(f.raw.get(1), b"@b\nG\n+\nI\n");
        assert_eq!((b.seq.get(0), b.raw.get(0)), (&b"TTT"[..], &b"@c\nTTT\n+\nIII\n"[..]));
        assert!(f.qual.is_empty() && b.qual.is_empty());
        let rest = split_front(&mut b, 1);
        assert_eq!((rest.len(), b.len(), b.first), (1, 0, 13));
    }

    #[test]
    fn trimming_cuts_the_barcode_and_what_precedes_it_on_its_strand() {
        let mut b = Batch { format: Some(Format::Fastq), ..Default::default() };
        b.seq.push(b"AAACCCGGGTTT");
        b.qual.push(b"abcdefghijkl");
        b.header.push(b"r1 x");
        b.raw.push(b"@r1 x\nAAACCCGGGTTT\n+\nabcdefghijkl\n");
        let hit = |minus| Best { hit: Some(crate::assign::BestHit { cost: 0, pattern: 2, start: 3, end: 6, minus, sample: 2, barcode_edits: 0 }), ..Default::default() };
        let mut out = Vec::new();
        write_record(&b, 0, &hit(false), Some(2), true, &mut out).unwrap();
        assert_eq!(out, b"@r1 x\nGGGTTT\n+\nghijkl\n");
        out.clear();
        write_record(&b, 0, &hit(true), Some(2), true, &mut out).unwrap();
        assert_eq!(out, b"@r1 x\nAAA\n+\nabc\n");
        out.clear();
        // another pattern's hit, or no trimming: the record as read
        write_record(&b, 0, &hit(false), Some(1), true, &mut out).unwrap();
        write_record(&b, 0, &hit(false), Some(2), false, &mut out).unwrap();
        assert_eq!(out, [b.raw.get(0), b.raw.get(0)].concat());
    }

    #[test]
    fn trimmed_records_keep_the_line_breaks_they_were_read_with() {
        let mut b = Batch { format: Some(Format::Fastq), ..Default::default() };
        b.seq.push(b"AAACCCGGGTTT");
        b.qual.push(b"abcdefghijkl");
        b.header.push(b"r1");
        b.raw.push(b"@r1\r\nAAACCCGGGTTT\r\n+\r\nabcdefghijkl\r\n");
        let best = Best { hit: Some(crate::assign::BestHit { cost: 0, pattern: 0, start: 3, end: 6, minus: false, sample: 0, barcode_edits: 0 }), ..Default::default() };
        let mut out = Vec::new();
        write_record(&b, 0, &best, Some(0), true, &mut out).unwrap();
        assert_eq!(out, b"@r1\r\nGGGTTT\r\n+\r\nghijkl\r\n");
    }

    #[test]
    fn mates_are_matched_by_name_without_the_read_number_and_description() {
        assert_eq!(mate_name(b"r1/1 some description"), b"r1");
        assert_eq!(mate_name(b"r1/2"), b"r1");
        assert_eq!(mate_name(b"r1\tx"), b"r1");
        assert_eq!(mate_name(b"r1/3"), b"r1/3");
        assert_eq!(mate_name(b"a:b:c 1:N:0:ACGT"), b"a:b:c");
        let batch = |names: &[&[u8]]| {
            let mut b = Batch { first: 10, ..Default::default() };
            for n in names {
                b.header.push(n);
                b.seq.push(b"A");
                b.raw.push(b">x\nA\n");
            }
            b
        };
        let (a, b) = (batch(&[b"x/1", b"y/1"]), batch(&[b"x/2", b"y/2 d"]));
        assert!(check_mate_names(&a, &b, "r1.fq", "r2.fq").is_ok());
        let c = batch(&[b"x/2", b"z/2"]);
        let e = check_mate_names(&a, &c, "r1.fq", "r2.fq").unwrap_err().to_string();
        assert!(e.contains("record 12") && e.contains("`y`") && e.contains("`z`"), "{e}");
    }
}
