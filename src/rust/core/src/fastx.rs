//! FASTA/FASTQ files, streamed: read (plain, gzip, bzip2, xz or zstd, the
//! compression detected from the content by needletail), searched with the
//! engine, filtered into a new file, or read into memory.
//! Unaligned BAM files (BGZF or plain, detected by content) are read as the
//! FASTQ records `samtools fastq` writes of them (`fastx/bam.rs`): every
//! consumer sees FASTQ, and writes FASTQ text for them.
//!
//! A reader thread parses the files and sends batches of consecutive records
//! (at most [`BatchSize::bytes`] bytes or [`BatchSize::records`] records each)
//! down a bounded channel of [`CHANNEL_CAPACITY`] batches, while the calling
//! thread searches the previous batch with [`engine::run`]: reading overlaps
//! searching, and memory is bounded by a few batches plus the results, not by
//! the file size. Record numbers are 1-based within each file, across
//! batches. Results do not depend on the batch size or the thread count.
//!
//! The calling thread polls `poll` (e.g. R's interrupt check) about every
//! [`engine::POLL_INTERVAL`], while it waits for the reader and (through the
//! engine) while it searches; `true` cancels the call with
//! [`CoreError::Interrupted`].
//!
//! Every problem is an error naming the file and, where there is one, the
//! record: a missing or unreadable file, truncated or corrupt compressed data,
//! a FASTQ record whose quality differs in length from its sequence, a file
//! that is neither FASTA nor FASTQ. A failed call never returns a partial
//! result, and a failed filter leaves no output file behind. An empty file (0
//! bytes, a compressed stream of nothing, only blank or `;` comment lines) is
//! zero records, as Biostrings reads it: empty demultiplexed samples are
//! routine.
//!
//! needletail 0.7 behaviours this module relies on or works around (each has
//! a test in `tests/fastx.rs`):
//! - truncated or corrupt gzip/bzip2/xz/zstd data is an I/O error from the
//!   decoder, reported at the record being read when it happened;
//! - a file with fewer than 2 bytes (after decompression) is "empty" (we
//!   hand it no file with no records: `decompress.rs` sees those first);
//! - the first byte must be `>` or `@`, and a FASTA line starting with `;`
//!   would be sequence: leading blank lines and `;` comment lines, and FASTA
//!   comment lines anywhere, are dropped before needletail sees them, as
//!   Biostrings ignores them (error line numbers count the dropped leading
//!   lines);
//! - the last FASTA record cannot be a header alone (`">id\n"` at the end of
//!   the file): needletail reports an unexpected end. We decompress before
//!   needletail (`fastx/decompress.rs`) and close every FASTA stream with
//!   `\n\n`, so such a record is read as an empty sequence, like a
//!   header-only record elsewhere; [`ParseKind::HeaderOnlyLastRecord`] is
//!   kept for a parser that still reports it;
//! - blank lines between FASTQ records are an error; trailing blank lines at
//!   the end of a FASTQ file are ignored;
//! - a FASTA header's id (`SequenceRecord::id()`) is the whole header line;
//!   [`split_header`] cuts it into name and description.

mod bam;
mod bgzf_reader;
mod decompress;
pub mod demux;
pub mod demux_ends;
pub mod demux_report;
mod error;
mod gzip_blocks;
mod reader;
mod writer;

pub use error::{FastxError, ParseKind};
pub use gzip_blocks::LEVELS as GZIP_LEVELS;
pub use writer::DEFAULT_LEVEL as GZIP_DEFAULT_LEVEL;

use crate::engine::{self, Control, Output, POLL_INTERVAL};
use crate::error::{CoreError, Value};
use crate::hits::HitBuffer;
use crate::options::{Mode, SearchPlan};
use crossbeam_channel::RecvTimeoutError;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::Instant;

/// Batches in flight between the reader thread and the consumer (besides the
/// one being read and the one being searched).
pub const CHANNEL_CAPACITY: usize = 2;
/// Most records a search can number (record numbers are R integers).
pub const MAX_RECORDS: u64 = i32::MAX as u64;

/// File format, as detected from the first byte (after decompression).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Fasta,
    Fastq,
}

/// Bounds on one batch of records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchSize {
    /// Bytes kept per batch (sequence plus whatever else is kept: names,
    /// qualities, record text). A single record larger than this is a batch
    /// of its own.
    pub bytes: usize,
    /// Records per batch.
    pub records: usize,
}

impl BatchSize {
    /// The default for a search on `threads` threads: 1 MiB per thread,
    /// at least 2 MiB and at most 64 MiB, and one record per 64 bytes of
    /// that. Each thread then gets many tasks per batch, while the batches in
    /// flight (about four) stay small next to a result with one row per
    /// record. Larger batches are not faster: a batch is searched while the
    /// next ones are read.
    pub fn for_threads(threads: usize) -> Self {
        let bytes = (threads.max(1) << 20).clamp(2 << 20, 64 << 20);
        BatchSize { bytes, records: bytes / 64 }
    }
}

impl Default for BatchSize {
    /// [`BatchSize::for_threads`] of 1 (2 MiB, 32,768 records).
    fn default() -> Self {
        BatchSize::for_threads(1)
    }
}

/// How much of each header to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HeaderKeep {
    #[default]
    None,
    /// The name (id up to the first space or tab).
    Name,
    /// The whole header line after `>`/`@`.
    Full,
}

/// What the reader keeps of each record besides its sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordParts {
    pub header: HeaderKeep,
    /// FASTQ quality lines.
    pub qual: bool,
    /// The record's text, for writing it back unchanged (see [`filter`]).
    pub raw: bool,
    /// Sequences will become R strings: refuse NUL bytes in them.
    pub seq_strings: bool,
}

/// Batches a consumer is done with, handed back to the reader to fill
/// again. A batch's buffers are megabytes: allocated afresh for every batch,
/// each page of them is a page fault when first written, which costs a
/// streaming demultiplexer more than its search (ends of reads).
pub(crate) struct Spares {
    tx: crossbeam_channel::Sender<Batch>,
    rx: crossbeam_channel::Receiver<Batch>,
}

impl Spares {
    /// Room for as many batches as can be in flight; more are dropped.
    pub(crate) fn new() -> Self {
        let (tx, rx) = crossbeam_channel::bounded(CHANNEL_CAPACITY + 2);
        Spares { tx, rx }
    }

    /// A spare batch emptied for `file` from record `first`, or a new one.
    pub(crate) fn take(&self, file: usize, first: u64) -> Batch {
        self.rx.try_recv().map_or_else(|_| Batch::new(file, first), |b| b.reuse(file, first))
    }

    /// Keep `b` for a later batch (dropped when there is no room).
    pub(crate) fn give(&self, b: Batch) {
        let _ = self.tx.try_send(b);
    }
}

/// A new batch, or a spare one when the stream has spares.
fn fresh_batch(spares: Option<&Spares>, file: usize, first: u64) -> Batch {
    spares.map_or_else(|| Batch::new(file, first), |s| s.take(file, first))
}

/// Options of the reader.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ReadOptions {
    pub batch_bytes: usize,
    pub batch_records: usize,
    pub keep: RecordParts,
    /// Read at most this many records per file (`None`: all), after `skip`.
    pub n_max: Option<u64>,
    /// Records at the start of each file that are parsed (so that a broken
    /// file is still an error) but neither kept nor searched; the records
    /// after them keep their numbers within the file. With `n_max`, this
    /// reads a record range `skip + 1 ..= skip + n_max` of each file, so
    /// that a process can search its own shard of a file.
    pub skip: u64,
    /// Threads that inflate BGZF input (BAM, `bgzip`): the search's count.
    pub threads: usize,
}

impl ReadOptions {
    pub fn new(size: BatchSize, keep: RecordParts) -> Self {
        ReadOptions { batch_bytes: size.bytes, batch_records: size.records, keep, n_max: None, skip: 0, threads: 1 }
    }
}

/// A range of records of each file: skip the first `skip`, then read at
/// most `n` (`None`: to the end). Record numbers stay those of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RecordRange {
    pub skip: u64,
    pub n: Option<u64>,
}

impl RecordRange {
    /// Every record.
    pub const ALL: RecordRange = RecordRange { skip: 0, n: None };
}

/// Byte strings stored end to end; string `i` is `bytes[ends[i-1]..ends[i]]`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Column {
    pub bytes: Vec<u8>,
    pub ends: Vec<usize>,
}

impl Column {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn get(&self, i: usize) -> &[u8] {
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.bytes[from..self.ends[i]]
    }

    pub fn push(&mut self, s: &[u8]) {
        self.bytes.extend_from_slice(s);
        self.ends.push(self.bytes.len());
    }

    /// Append all strings of `other` (moving them when `self` is empty).
    pub fn append(&mut self, other: Column) {
        if self.ends.is_empty() {
            *self = other;
            return;
        }
        let base = self.bytes.len();
        self.bytes.extend_from_slice(&other.bytes);
        self.ends.extend(other.ends.iter().map(|e| e + base));
    }

    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        (0..self.len()).map(move |i| self.get(i))
    }
}

/// Consecutive records of one file.
#[derive(Debug, Default, Clone)]
pub struct Batch {
    /// 0-based index of the file in the list of paths.
    pub file: usize,
    /// 0-based number, within the file, of the first record of the batch.
    pub first: u64,
    /// Detected from the first record; `None` only in the empty batch of an
    /// empty read (never in a batch with records).
    pub format: Option<Format>,
    /// Sequences, without the line breaks of multi-line FASTA.
    pub seq: Column,
    /// Names or whole headers (see [`RecordParts::header`]), or empty.
    pub header: Column,
    /// Qualities (FASTQ, when kept), or empty.
    pub qual: Column,
    /// Record texts ending in a line break (when kept), or empty.
    pub raw: Column,
    /// The file bytes read (`Control::read_bytes`, over all files) when the
    /// batch was complete: for progress, the bytes searched once this batch
    /// is (see [`stream`]).
    pub read_to: u64,
}

impl Batch {
    fn new(file: usize, first: u64) -> Self {
        Batch { file, first, ..Default::default() }
    }

    /// This batch emptied, to hold the records of `file` from `first` on:
    /// its buffers keep their capacity.
    fn reuse(mut self, file: usize, first: u64) -> Self {
        for c in [&mut self.seq, &mut self.header, &mut self.qual, &mut self.raw] {
            c.bytes.clear();
            c.ends.clear();
        }
        Batch { file, first, format: None, read_to: 0, ..self }
    }

    pub fn len(&self) -> usize {
        self.seq.len()
    }

    pub fn is_empty(&self) -> bool {
        self.seq.is_empty()
    }

    /// Bytes held by the batch's strings.
    pub fn bytes(&self) -> usize {
        self.seq.bytes.len() + self.header.bytes.len() + self.qual.bytes.len() + self.raw.bytes.len()
    }

    /// The name of record `i` (batch-local), from the kept header or record
    /// text; empty if neither was kept.
    pub fn name(&self, i: usize) -> &[u8] {
        if !self.header.is_empty() {
            return split_header(self.header.get(i)).0;
        }
        if !self.raw.is_empty() {
            let r = self.raw.get(i);
            let line = &r[1.min(r.len())..memchr::memchr(b'\n', r).unwrap_or(r.len())];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            return split_header(line).0;
        }
        &[]
    }
}

/// Split a header line (without `>`/`@`) at its first space or tab into the
/// name and the description (`None` when there is no space or tab).
pub fn split_header(h: &[u8]) -> (&[u8], Option<&[u8]>) {
    match memchr::memchr2(b' ', b'\t', h) {
        Some(i) => (&h[..i], Some(&h[i + 1..])),
        None => (h, None),
    }
}

/// What [`stream`] calls with each batch, and the poll to pass on to the
/// engine.
pub type OnBatch<'a> = dyn FnMut(Batch, &mut dyn FnMut() -> bool) -> Result<(), FastxError> + 'a;

/// Read `paths` in batches on a reader thread and hand each batch, in order,
/// to `on_batch` on this thread (with `poll`, to pass on to the engine).
pub fn stream(
    paths: &[String],
    opts: &ReadOptions,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
    on_batch: &mut OnBatch<'_>,
) -> Result<(), FastxError> {
    stream_with(paths, opts, None, ctl, poll, on_batch)
}

/// [`stream`], whose reader fills the batches given to `spares` again.
pub(crate) fn stream_with(
    paths: &[String],
    opts: &ReadOptions,
    spares: Option<&Spares>,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
    on_batch: &mut OnBatch<'_>,
) -> Result<(), FastxError> {
    let stop = AtomicBool::new(false);
    let stop_ref = &stop;
    std::thread::scope(|s| {
        let (tx, rx) = crossbeam_channel::bounded::<reader::Msg>(CHANNEL_CAPACITY);
        let read = &ctl.read_bytes;
        s.spawn(move || reader::read_all(paths, opts, spares, &tx, stop_ref, read));
        let mut consume = || -> Result<(), FastxError> {
            let mut last_poll = Instant::now();
            loop {
                if ctl.cancel.load(Relaxed) {
                    return Err(CoreError::Interrupted.into());
                }
                if last_poll.elapsed() >= POLL_INTERVAL {
                    last_poll = Instant::now();
                    if poll() {
                        ctl.cancel.store(true, Relaxed);
                        return Err(CoreError::Interrupted.into());
                    }
                }
                match rx.recv_timeout(POLL_INTERVAL) {
                    Ok(Ok(batch)) => {
                        // progress: the bytes read up to this batch are
                        // searched once it is; the engine's counters (reset
                        // here, set by its run) tell how far it is
                        let to = batch.read_to;
                        ctl.done_bytes.store(0, Relaxed);
                        ctl.total_bytes.store(0, Relaxed);
                        ctl.batch_read_to.store(to, Relaxed);
                        on_batch(batch, &mut *poll)?;
                        ctl.searched_bytes.store(to, Relaxed);
                    }
                    Ok(Err(e)) => return Err(e),
                    Err(RecvTimeoutError::Timeout) => {}
                    Err(RecvTimeoutError::Disconnected) => return Ok(()),
                }
            }
        };
        let result = consume();
        // the reader stops at its next record or its next send
        stop.store(true, Relaxed);
        drop(rx);
        result
    })
}

/// Hits over files. `bufs` concatenated are in (file, record, pattern, start,
/// end, strand) order; their `record` is the 0-based record number within the
/// file `buf_file[i]` (0-based index into the paths).
#[derive(Debug, Default)]
pub struct FastxHits {
    pub bufs: Vec<HitBuffer>,
    pub buf_file: Vec<u32>,
    /// The name of each record that has hits, in hit order: one entry per
    /// change of (file, record) along the hits.
    pub names: Column,
    /// The length of each record that has hits, parallel to `names` (for
    /// `seqinfo` in R).
    pub lengths: Vec<u64>,
    /// Records searched in each file (in the range), with or without hits.
    pub records_per_file: Vec<u64>,
    /// With [`HitKeep::all_names`], the name of every record searched (all
    /// files, in order); `None` otherwise.
    pub all_names: Option<Column>,
}

/// What a search of files in hits mode keeps besides the hits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct HitKeep {
    /// Each hit's matched text region (forward strand, `seq[start..end]`).
    pub region: bool,
    /// The name of every record, with hits or not (counts tabulated from
    /// the hits, as `sassy_count_fastx(sparse = TRUE)` does: one name per
    /// record, not one count per record and pattern).
    pub all_names: bool,
}

impl FastxHits {
    pub fn len(&self) -> usize {
        self.bufs.iter().map(|b| b.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Counts (or 0/1 for contains) per record and pattern, over files.
#[derive(Debug, Default)]
pub struct FastxValues {
    /// One vector per pattern with a value per record (all files, in order).
    pub values: Vec<Vec<i32>>,
    /// Records in each file.
    pub records_per_file: Vec<u64>,
    /// The name of each record.
    pub names: Column,
}

/// The best pattern of each record, over files (an assign plan).
#[derive(Debug, Default)]
pub struct FastxBest {
    /// One per record (all files, in order).
    pub best: Vec<crate::assign::Best>,
    /// Records in each file.
    pub records_per_file: Vec<u64>,
    /// The name of each record.
    pub names: Column,
}

/// The result of [`search`].
#[derive(Debug)]
pub enum SearchOutput {
    Hits(FastxHits),
    Values(FastxValues),
    Best(FastxBest),
}

/// Search every record of every file in `paths` as `plan` says (its mode:
/// hits, count or contains).
pub fn search(
    plan: &SearchPlan,
    paths: &[String],
    size: BatchSize,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<SearchOutput, FastxError> {
    search_range(plan, paths, RecordRange::ALL, size, ctl, poll)
}

/// [`search`] of a record range of each file: records before `range.skip`
/// are parsed but not searched; hits keep the records' numbers within the
/// file, and for counts `records_per_file` counts the records in the range.
pub fn search_range(
    plan: &SearchPlan,
    paths: &[String],
    range: RecordRange,
    size: BatchSize,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<SearchOutput, FastxError> {
    search_regions(plan, paths, range, size, false, ctl, poll)
}

/// [`search_range`], and with `region` each hit's matched text region
/// (forward strand, `seq[start..end]`) kept in the hit buffers' region
/// column, captured here while the record is in memory.
pub fn search_regions(
    plan: &SearchPlan,
    paths: &[String],
    range: RecordRange,
    size: BatchSize,
    region: bool,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<SearchOutput, FastxError> {
    search_keep(plan, paths, range, size, HitKeep { region, all_names: false }, ctl, poll)
}

/// [`search_range`], keeping in hits mode what `keep` says: each hit's
/// matched region, and the name of every record searched.
pub fn search_keep(
    plan: &SearchPlan,
    paths: &[String],
    range: RecordRange,
    size: BatchSize,
    keep: HitKeep,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<SearchOutput, FastxError> {
    let region = keep.region;
    let mut opts = ReadOptions::new(size, RecordParts { header: HeaderKeep::Name, ..Default::default() });
    opts.threads = plan.threads;
    opts.skip = range.skip;
    opts.n_max = range.n;
    let n_pat = plan.patterns.len();
    let mut hits = FastxHits {
        records_per_file: vec![0; paths.len()],
        all_names: keep.all_names.then(Column::default),
        ..Default::default()
    };
    let mut vals = FastxValues { values: vec![Vec::new(); n_pat], records_per_file: vec![0; paths.len()], names: Column::default() };
    let mut best = FastxBest { records_per_file: vec![0; paths.len()], ..Default::default() };
    let r = stream(paths, &opts, ctl, poll, &mut |batch, poll| {
        let path = &paths[batch.file];
        let nb = batch.len();
        if batch.first + nb as u64 > MAX_RECORDS {
            return Err(FastxError::TooManyRecords { path: path.clone(), limit: MAX_RECORDS });
        }
        let out = run_batch(plan, &batch, path, ctl, poll)?;
        match out {
            Output::Hits(bufs) => {
                hits.records_per_file[batch.file] += nb as u64;
                if let Some(all) = hits.all_names.as_mut() {
                    for i in 0..nb {
                        all.push(batch.name(i));
                    }
                }
                let mut last: Option<u32> = None;
                for mut b in bufs {
                    if b.is_empty() {
                        crate::hits::recycle(vec![b]);
                        continue;
                    }
                    if region {
                        for i in 0..b.len() {
                            let seq = batch.seq.get(b.record[i] as usize);
                            // overhang hits may reach past the text: clamp
                            let end = (b.end[i] as usize).min(seq.len());
                            let start = (b.start[i] as usize).min(end);
                            b.push_region(&seq[start..end]);
                        }
                    }
                    for r in b.record.iter_mut() {
                        let local = *r;
                        if last != Some(local) {
                            hits.names.push(batch.name(local as usize));
                            hits.lengths.push(batch.seq.get(local as usize).len() as u64);
                            last = Some(local);
                        }
                        // fits: batch.first + nb <= MAX_RECORDS
                        *r = local + batch.first as u32;
                    }
                    hits.buf_file.push(batch.file as u32);
                    hits.bufs.push(b);
                }
            }
            Output::Values(v) => {
                for (p, col) in vals.values.iter_mut().enumerate() {
                    col.extend_from_slice(&v[p * nb..(p + 1) * nb]);
                }
                vals.records_per_file[batch.file] += nb as u64;
                for i in 0..nb {
                    vals.names.push(batch.name(i));
                }
            }
            Output::Best(b) => {
                best.best.extend_from_slice(&b);
                best.records_per_file[batch.file] += nb as u64;
                for i in 0..nb {
                    best.names.push(batch.name(i));
                }
            }
        }
        Ok(())
    });
    match r {
        Ok(()) if plan.mode == Mode::Hits => Ok(SearchOutput::Hits(hits)),
        Ok(()) if plan.mode == Mode::Assign => Ok(SearchOutput::Best(best)),
        Ok(()) => Ok(SearchOutput::Values(vals)),
        Err(e) => {
            crate::hits::recycle(hits.bufs);
            Err(e)
        }
    }
}

/// Search one batch, naming the file and record in a letter error.
fn run_batch(plan: &SearchPlan, batch: &Batch, path: &str, ctl: &Control, poll: &mut dyn FnMut() -> bool) -> Result<Output, FastxError> {
    let texts: Vec<Option<&[u8]>> = batch.seq.iter().map(Some).collect();
    engine::run(plan, &texts, ctl, Some(poll)).map_err(|e| match e {
        CoreError::InvalidLetter { index, position, letter, alphabet, .. } => FastxError::Letter {
            path: path.to_string(),
            record: batch.first + index as u64 + 1,
            name: String::from_utf8_lossy(batch.name(index)).into_owned(),
            position,
            letter,
            alphabet,
        },
        CoreError::InvalidArgument { arg: "texts", index: Some(i), value: Value::Length(n), .. } => FastxError::Parse {
            path: path.to_string(),
            record: Some(batch.first + i as u64 + 1),
            line: None,
            kind: ParseKind::TooLong,
            message: format!("the sequence has {n} letters, more than 2^31 - 1"),
        },
        e => FastxError::Core(e),
    })
}

/// Records read and written by [`filter`].
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FilterCounts {
    pub read: u64,
    pub written: u64,
}

/// Write the records of `path` that have a hit of any pattern (with `invert`,
/// those that have none) to `output`, gzip-compressed at level `gzip` (1
/// to 9) when it is given, on `plan.threads` threads of their own.
///
/// Records are written as they are in the input: the header line, the
/// sequence lines (multi-line FASTA keeps its line breaks), and for FASTQ the
/// `+` line and the quality line, byte for byte, each record ending in one
/// line break in the input's style (`\n` or `\r\n`, as needletail detects it
/// from the first record). What can differ: blank lines after a record are
/// not written, and a last record without a final line break gets one.
///
/// The plan's mode must be count or contains (contains is fastest).
#[allow(clippy::too_many_arguments)]
pub fn filter(
    plan: &SearchPlan,
    path: &str,
    output: &str,
    gzip: Option<u32>,
    invert: bool,
    size: BatchSize,
    ctl: &Control,
    poll: &mut dyn FnMut() -> bool,
) -> Result<FilterCounts, FastxError> {
    if !plan.values() {
        return Err(CoreError::Internal("fastx::filter needs a count or contains plan".into()).into());
    }
    let mut opts = ReadOptions::new(size, RecordParts { raw: true, ..Default::default() });
    opts.threads = plan.threads;
    let gz = gzip.map(|level| writer::gzip(level, plan.threads)).transpose()?;
    let out = writer::Output::create(output, gz.as_ref(), writer::BUF)?;
    let n_pat = plan.patterns.len();
    let paths = [path.to_string()];
    std::thread::scope(|s| {
        let (wtx, wrx) = crossbeam_channel::bounded::<Vec<u8>>(CHANNEL_CAPACITY);
        // the writer (and gzip compression) runs beside the search
        let writer = s.spawn(move || -> Result<writer::Output, FastxError> {
            let mut out = out;
            for chunk in wrx {
                out.write_all(&chunk)?;
            }
            Ok(out)
        });
        let mut counts = FilterCounts::default();
        let mut writer_gone = false;
        let r = stream(&paths, &opts, ctl, poll, &mut |batch, poll| {
            let nb = batch.len();
            let Output::Values(v) = run_batch(plan, &batch, path, ctl, poll)? else {
                return Err(CoreError::Internal("fastx::filter got hits".into()).into());
            };
            let mut chunk = Vec::with_capacity(batch.raw.bytes.len());
            for i in 0..nb {
                let hit = (0..n_pat).any(|p| v[p * nb + i] > 0);
                if hit != invert {
                    chunk.extend_from_slice(batch.raw.get(i));
                    counts.written += 1;
                }
            }
            counts.read += nb as u64;
            if !chunk.is_empty() && wtx.send(chunk).is_err() {
                writer_gone = true;
                return Err(FastxError::Write { path: output.to_string(), message: "the writer stopped".into() });
            }
            Ok(())
        });
        drop(wtx);
        let w = writer
            .join()
            .unwrap_or_else(|_| Err(CoreError::Internal("the FASTA/FASTQ writer panicked".into()).into()));
        match (r, w) {
            (Ok(()), Ok(out)) => {
                out.commit()?;
                Ok(counts)
            }
            (Err(_), Err(we)) if writer_gone => Err(we),
            (Err(e), _) => Err(e), // the output (if any) is dropped: its file removed
            (Ok(()), Err(we)) => Err(we),
        }
    })
}

/// Records read into memory by [`read`].
#[derive(Debug, Default)]
pub struct Records {
    pub format: Option<Format>,
    /// Whole header lines (split them with [`split_header`]).
    pub header: Column,
    pub seq: Column,
    /// Qualities (FASTQ only; empty for FASTA).
    pub qual: Column,
}

/// Read the records of `path` (at most `n_max`) into memory. With
/// `n_max = Some(0)` the first record is still parsed, for the format.
pub fn read(path: &str, n_max: Option<u64>, size: BatchSize, ctl: &Control, poll: &mut dyn FnMut() -> bool) -> Result<Records, FastxError> {
    let mut opts = ReadOptions::new(size, RecordParts { header: HeaderKeep::Full, qual: true, seq_strings: true, ..Default::default() });
    opts.n_max = n_max;
    let mut recs = Records::default();
    let paths = [path.to_string()];
    stream(&paths, &opts, ctl, poll, &mut |batch, _| {
        recs.format = recs.format.or(batch.format);
        recs.header.append(batch.header);
        recs.seq.append(batch.seq);
        if batch.format == Some(Format::Fastq) {
            recs.qual.append(batch.qual);
        }
        Ok(())
    })?;
    Ok(recs)
}

/// The number of records in each file, parsing every record (and
/// decompressing) without keeping any: the sizes for splitting files into
/// record ranges. Errors as for [`search`] (a broken file is an error).
pub fn count(paths: &[String], ctl: &Control, poll: &mut dyn FnMut() -> bool) -> Result<Vec<u64>, FastxError> {
    let mut opts = ReadOptions::new(BatchSize::default(), RecordParts::default());
    // nothing is kept: skip every record, so only the parse is paid for
    opts.skip = u64::MAX;
    let mut counts = vec![0u64; paths.len()];
    stream(paths, &opts, ctl, poll, &mut |batch, _| {
        counts[batch.file] = counts[batch.file].max(batch.first);
        Ok(())
    })?;
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_headers() {
        assert_eq!(split_header(b"r1 desc here"), (&b"r1"[..], Some(&b"desc here"[..])));
        assert_eq!(split_header(b"r1\tx"), (&b"r1"[..], Some(&b"x"[..])));
        assert_eq!(split_header(b"r1"), (&b"r1"[..], None));
        assert_eq!(split_header(b" x"), (&b""[..], Some(&b"x"[..])));
        assert_eq!(split_header(b""), (&b""[..], None));
    }

    #[test]
    fn columns_append() {
        let mut a = Column::default();
        a.push(b"ab");
        let mut b = Column::default();
        b.push(b"");
        b.push(b"cde");
        a.append(b);
        assert_eq!(a.iter().collect::<Vec<_>>(), vec![&b"ab"[..], b"", b"cde"]);
    }

    #[test]
    fn batch_name_from_raw() {
        let mut b = Batch::default();
        b.raw.push(b">r1 desc\r\nACGT\r\n");
        b.raw.push(b"@r2\nAC\n+\nII\n");
        b.seq.push(b"ACGT");
        b.seq.push(b"AC");
        assert_eq!(b.name(0), b"r1");
        assert_eq!(b.name(1), b"r2");
    }
}
