//! The reader thread: parse FASTA/FASTQ files (decompressing by content) with
//! needletail and send batches of records down a bounded channel.

use super::{Batch, FastxError, Format, HeaderKeep, ParseKind, ReadOptions, Spares};
use crossbeam_channel::Sender;
use needletail::parser::{LineEnding, SequenceRecord};
use std::io::Read;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// What travels from the reader to the consumer.
pub(crate) type Msg = Result<Batch, FastxError>;

/// Read every file in turn; stop at the first error (sent as the last
/// message), when `stop` is set, or when the receiver is gone. `read` counts
/// the file bytes read (before decompression), for progress bars.
pub(crate) fn read_all(paths: &[String], opts: &ReadOptions, spares: Option<&Spares>, tx: &Sender<Msg>, stop: &AtomicBool, read: &AtomicU64) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        for (fi, path) in paths.iter().enumerate() {
            match read_file(fi, path, opts, spares, tx, stop, read) {
                Ok(true) => {}
                Ok(false) => return,
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
    }));
    if let Err(p) = r {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the FASTA/FASTQ reader panicked".into());
        let _ = tx.send(Err(FastxError::Core(crate::CoreError::Internal(msg))));
    }
}

/// Read one file; `Ok(false)` when the consumer is gone or asked to stop.
fn read_file(fi: usize, path: &str, opts: &ReadOptions, spares: Option<&Spares>, tx: &Sender<Msg>, stop: &AtomicBool, read: &AtomicU64) -> Result<bool, FastxError> {
    let file = std::fs::File::open(path).map_err(|e| FastxError::open(path, &e))?;
    if file.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(FastxError::Open { path: path.to_string(), message: "it is a directory".into() });
    }
    // decompressed here, not by needletail, so FASTA can be closed with line
    // breaks (see decompress.rs); needletail then sees plain text
    let file = Counted { inner: file, read };
    let plain = super::decompress::plain_text(file, opts.threads).map_err(|e| FastxError::parse(path, &e.into(), 0))?;
    if plain.bam {
        return read_bam(fi, path, plain.text, opts, spares, tx, stop, read);
    }
    let mut batch = super::fresh_batch(spares, fi, 0);
    if plain.empty {
        // no bytes, or only blank and comment lines: zero records (as
        // Biostrings reads it; empty demultiplexed samples are routine), an
        // empty batch of no format
        batch.read_to = read.load(Relaxed);
        return Ok(tx.send(Ok(batch)).is_ok());
    }
    let skipped = plain.lines_skipped;
    // needletail numbers lines from the first one it sees
    let shift = |mut err: FastxError| {
        if let FastxError::Parse { line: Some(l), .. } = &mut err {
            *l += skipped;
        }
        err
    };
    let mut reader = needletail::parse_fastx_reader(plain.text).map_err(|e| {
        let mut err = FastxError::parse(path, &e, 0);
        if let FastxError::Parse { kind: ParseKind::Empty, message, .. } = &mut err {
            *message = empty_message(path);
        }
        shift(err)
    })?;
    // 0-based number of the next record within the file
    let mut n: u64 = 0;
    // one past the last record to keep
    let end = opts.n_max.map(|m| opts.skip.saturating_add(m));
    let mut sent = false;
    loop {
        if end.is_some_and(|e| n >= e) && batch.format.is_some() {
            break;
        }
        if stop.load(Relaxed) {
            return Ok(false);
        }
        let rec = match reader.next() {
            None => break,
            Some(Err(e)) => return Err(shift(FastxError::parse(path, &e, n))),
            Some(Ok(rec)) => rec,
        };
        let format = match rec.format() {
            needletail::parser::Format::Fasta => Format::Fasta,
            needletail::parser::Format::Fastq => Format::Fastq,
        };
        batch.format.get_or_insert(format);
        if opts.n_max == Some(0) {
            // the first record was parsed only to learn the format
            break;
        }
        if n < opts.skip {
            // before the range: parsed (errors count), not kept; the batch
            // is still empty, so it starts at the next record
            n += 1;
            batch.first = n;
            continue;
        }
        push_record(&mut batch, &rec, opts, path, n)?;
        n += 1;
        if !send_when_full(&mut batch, opts, spares, fi, n, tx, read, &mut sent) {
            return Ok(false);
        }
    }
    Ok(send_last(batch, sent, tx, read))
}

/// Read one BAM file (`bam.rs`): its records (those `samtools fastq`
/// writes) as FASTQ records, numbered, skipped, kept and batched as
/// [`read_file`] does; the record text kept for writing is FASTQ.
#[allow(clippy::too_many_arguments)]
fn read_bam(
    fi: usize,
    path: &str,
    text: Box<dyn Read + Send + '_>,
    opts: &ReadOptions,
    spares: Option<&Spares>,
    tx: &Sender<Msg>,
    stop: &AtomicBool,
    read: &AtomicU64,
) -> Result<bool, FastxError> {
    use super::bam::{BamError, Reader};
    // 0-based number of the next record within the file
    let mut n: u64 = 0;
    let err = |e: BamError, n: u64| match e {
        BamError::Io(e) => FastxError::Parse {
            path: path.to_string(),
            record: Some(n + 1),
            line: None,
            kind: ParseKind::Io,
            message: format!("reading or decompressing failed ({e}); the file is probably truncated or corrupt"),
        },
        BamError::Format(m) => FastxError::Parse { path: path.to_string(), record: Some(n + 1), line: None, kind: ParseKind::Bam, message: m },
    };
    let mut reader = Reader::new(text).map_err(|e| {
        let mut e = err(e, 0);
        if let FastxError::Parse { record, .. } = &mut e {
            // the header, not a record
            *record = None;
        }
        e
    })?;
    let keep = &opts.keep;
    let mut batch = Batch { format: Some(Format::Fastq), ..super::fresh_batch(spares, fi, 0) };
    let end = opts.n_max.map(|m| opts.skip.saturating_add(m));
    // qualities not kept but written in the record text
    let mut qual = Vec::new();
    let mut sent = false;
    loop {
        if stop.load(Relaxed) {
            return Ok(false);
        }
        if end.is_some_and(|e| n >= e) {
            break;
        }
        let rec = match reader.next_record() {
            Ok(None) => break,
            Ok(Some(rec)) if rec.skipped() => continue,
            Ok(Some(rec)) => rec,
            Err(e) => return Err(err(e, n)),
        };
        if n < opts.skip {
            n += 1;
            batch.first = n;
            continue;
        }
        let from = batch.seq.bytes.len();
        rec.seq_into(&mut batch.seq.bytes);
        batch.seq.ends.push(batch.seq.bytes.len());
        match keep.header {
            HeaderKeep::None => {}
            // a read name has no spaces (SAM's QNAME) and no tags are kept
            HeaderKeep::Name | HeaderKeep::Full => batch.header.push(rec.name),
        }
        let q = if keep.qual {
            let q0 = batch.qual.bytes.len();
            rec.qual_into(&mut batch.qual.bytes);
            if memchr::memchr(0, &batch.qual.bytes[q0..]).is_some() {
                return Err(FastxError::Parse {
                    path: path.to_string(),
                    record: Some(n + 1),
                    line: None,
                    kind: ParseKind::NulByte,
                    message: "its quality contains a NUL byte (a score of 223), so it cannot become an R string".into(),
                });
            }
            batch.qual.ends.push(batch.qual.bytes.len());
            q0
        } else if keep.raw {
            qual.clear();
            rec.qual_into(&mut qual);
            usize::MAX
        } else {
            usize::MAX
        };
        if keep.raw {
            let raw = &mut batch.raw.bytes;
            raw.push(b'@');
            raw.extend_from_slice(rec.name);
            raw.push(b'\n');
            raw.extend_from_slice(&batch.seq.bytes[from..]);
            raw.extend_from_slice(b"\n+\n");
            raw.extend_from_slice(if q == usize::MAX { &qual } else { &batch.qual.bytes[q..] });
            raw.push(b'\n');
            batch.raw.ends.push(raw.len());
        }
        n += 1;
        if !send_when_full(&mut batch, opts, spares, fi, n, tx, read, &mut sent) {
            return Ok(false);
        }
    }
    Ok(send_last(batch, sent, tx, read))
}

/// Send `batch` once it holds a batch's worth (records or bytes), the
/// next one starting at record `n`; `false` when the receiver is gone.
#[allow(clippy::too_many_arguments)]
fn send_when_full(batch: &mut Batch, opts: &ReadOptions, spares: Option<&Spares>, fi: usize, n: u64, tx: &Sender<Msg>, read: &AtomicU64, sent: &mut bool) -> bool {
    if batch.len() < opts.batch_records.max(1) && batch.bytes() < opts.batch_bytes.max(1) {
        return true;
    }
    let next = Batch { format: batch.format, ..super::fresh_batch(spares, fi, n) };
    batch.read_to = read.load(Relaxed);
    if tx.send(Ok(std::mem::replace(batch, next))).is_err() {
        return false;
    }
    *sent = true;
    true
}

/// Send the last batch of a file (an empty one when none was sent, so the
/// file is seen); `false` when the receiver is gone.
fn send_last(mut batch: Batch, sent: bool, tx: &Sender<Msg>, read: &AtomicU64) -> bool {
    batch.read_to = read.load(Relaxed);
    !((!batch.is_empty() || !sent) && tx.send(Ok(batch)).is_err())
}

/// needletail calls a file "empty" when fewer than 2 bytes can be read from
/// it, after decompression: say which case it is.
fn empty_message(path: &str) -> String {
    use std::io::Read;
    let mut head = Vec::new();
    let n = std::fs::File::open(path).and_then(|f| f.take(2).read_to_end(&mut head)).unwrap_or(0);
    let compressed = super::decompress::is_compressed(&head);
    if n == 0 {
        "the file is empty (0 bytes)".into()
    } else if compressed {
        "the file is compressed but holds no records: its compressed data is empty, or truncated or corrupt before the first record".into()
    } else {
        "the file has fewer than 2 bytes, so it is neither FASTA nor FASTQ".into()
    }
}

/// Append one record's fields (as `opts.keep` says) to the batch; `n` is the
/// 0-based record number within the file.
fn push_record(batch: &mut Batch, rec: &SequenceRecord<'_>, opts: &ReadOptions, path: &str, n: u64) -> Result<(), FastxError> {
    let keep = &opts.keep;
    let nul = |what: &str| FastxError::Parse {
        path: path.to_string(),
        record: Some(n + 1),
        line: None,
        kind: ParseKind::NulByte,
        message: format!("its {what} contains a NUL byte, so this is not a text FASTA/FASTQ file"),
    };
    // sequence, without the line breaks of multi-line FASTA
    let raw = rec.raw_seq();
    if keep.seq_strings && memchr::memchr(0, raw).is_some() {
        return Err(nul("sequence"));
    }
    strip_line_breaks(raw, &mut batch.seq.bytes);
    batch.seq.ends.push(batch.seq.bytes.len());
    match keep.header {
        HeaderKeep::None => {}
        HeaderKeep::Name | HeaderKeep::Full => {
            let h = rec.id();
            if memchr::memchr(0, h).is_some() {
                return Err(nul("header"));
            }
            let h = if keep.header == HeaderKeep::Name { super::split_header(h).0 } else { h };
            batch.header.push(h);
        }
    }
    if keep.qual {
        let q = rec.qual().unwrap_or(&[]);
        if memchr::memchr(0, q).is_some() {
            return Err(nul("quality"));
        }
        batch.qual.push(q);
    }
    if keep.raw {
        push_record_text(rec, &mut batch.raw.bytes);
        batch.raw.ends.push(batch.raw.bytes.len());
    }
    Ok(())
}

/// The record's text as needletail exposes it (`all()`: the header line
/// through the last sequence or quality line, without the final line break),
/// ending in one line break. FASTA: blank lines after the sequence are
/// dropped. The line break is the record's own (`\r\n` or `\n`); a record at
/// the end of the file without one gets the file's style.
fn push_record_text(rec: &SequenceRecord<'_>, out: &mut Vec<u8>) {
    let all = rec.all();
    let keep = match rec.format() {
        needletail::parser::Format::Fasta => all.iter().rposition(|&b| b != b'\n' && b != b'\r').map_or(0, |p| p + 1),
        // only the `\r` of a `\r\n`: an empty quality line is a line
        needletail::parser::Format::Fastq => all.len() - usize::from(all.last() == Some(&b'\r')),
    };
    let eol: &[u8] = match all.get(keep) {
        Some(b'\r') => b"\r\n",
        Some(_) => b"\n",
        None => match rec.line_ending() {
            LineEnding::Windows => b"\r\n",
            LineEnding::Unix => b"\n",
        },
    };
    out.extend_from_slice(&all[..keep]);
    out.extend_from_slice(eol);
}

/// Append `raw` to `out` without any `\r` or `\n` (as needletail's `seq()`
/// does, without its allocation).
fn strip_line_breaks(raw: &[u8], out: &mut Vec<u8>) {
    let mut rest = raw;
    while let Some(i) = memchr::memchr2(b'\n', b'\r', rest) {
        out.extend_from_slice(&rest[..i]);
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
}

#[cfg(test)]
mod tests {
    use super::strip_line_breaks;

    #[test]
    fn strips_all_line_breaks() {
        let mut out = Vec::new();
        strip_line_breaks(b"AC\r\nGT\n\nA", &mut out);
        assert_eq!(out, b"ACGTA");
        out.clear();
        strip_line_breaks(b"ACGT", &mut out);
        assert_eq!(out, b"ACGT");
    }
}

/// A reader that adds the bytes it reads to a shared counter (one relaxed
/// add per read of the decompressor's or parser's buffer: no measurable cost).
struct Counted<'a, R> {
    inner: R,
    read: &'a AtomicU64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Relaxed);
        Ok(n)
    }
}
