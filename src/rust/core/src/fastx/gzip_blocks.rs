//! gzip output compressed on several threads: the bytes of each output are
//! cut into blocks of [`BLOCK`] bytes, each block is compressed on its own
//! (a complete gzip member) on a small pool of threads, and the members are
//! written to their file in order. A file of concatenated gzip members is
//! one gzip file for every reader (`gzip -d`, zlib's `gzread`, R's
//! `gzfile()`, flate2's `MultiGzDecoder`, htslib).
//!
//! The members are BGZF blocks (the SAM/BAM specification, section 4.1):
//! at most [`BLOCK`] bytes of input each (htslib's own block size), with
//! the `BC` extra field giving the member's size, and the file ends with
//! BGZF's empty end-of-file member ([`EOF`]). htslib's tools (`bgzip -d`,
//! `samtools faidx`, `htsfile`) then read the outputs as BGZF, and can
//! index them. An output with no bytes is just that end member: a valid gzip
//! file that decompresses to nothing.
//!
//! Order and memory: all outputs of a run share one [`Deflater`], which
//! keeps the blocks in flight in one queue, in the order they were
//! submitted, at most [`Deflater::max_in_flight`] of them: submitting one
//! more first writes the oldest (waiting for its compression). The outputs'
//! members are written in that order, so each file gets its own in order,
//! and memory is bounded by the queue and one unfilled block per output,
//! whatever the size of the input.
//!
//! Compression runs on a pool of its own (`threads` threads, the search's
//! thread count), not on the search's pool: the search and the compression
//! then overlap even with one thread each, as the single writer thread and
//! the search did before.

use flate2::{Compress, Compression, Crc, FlushCompress, Status};
use miniz_oxide::deflate::core::{compress, create_comp_flags_from_zip_params, CompressorOxide, TDEFLFlush, TDEFLStatus};
use rayon::ThreadPool;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::{Arc, Mutex};

/// Bytes of input per member: htslib's `BGZF_BLOCK_SIZE` (0xff00). Even
/// stored (incompressible) such a block fits in a BGZF member (64 KiB).
pub const BLOCK: usize = 0xff00;
/// The largest BGZF member: its size less one must fit in 16 bits.
const MAX_MEMBER: usize = 1 << 16;
/// The header of a BGZF member: gzip magic, deflate, FEXTRA, no mtime, no
/// extra flags, OS unknown (255), XLEN 6, then the `BC` subfield of 2
/// bytes (the member's size less one, filled in per member).
const HEADER: [u8; 18] = [0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0, 0, 0];
/// BGZF's end-of-file marker: an empty member (the SAM/BAM specification,
/// 4.1.2), written at the end of every output.
pub const EOF: [u8; 28] = [
    0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0, 0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// Compression levels accepted: gzip's 1 (fastest) to 9 (smallest).
pub const LEVELS: std::ops::RangeInclusive<u32> = 1..=9;

thread_local! {
    /// The compressor of this thread (and its level), reused from block to
    /// block: making one allocates some 300 KiB.
    static DEFLATE: RefCell<Option<(u32, Deflate)>> = const { RefCell::new(None) };
}

/// A deflate compressor of one level. The levels are a ladder of speed
/// against size, measured on real nanopore FASTQ (Debian's `qcat-examples`,
/// in blocks, one core): 1 is zlib-rs's level 1, its "quick" strategy
/// (static Huffman codes only: 75% of the input, the fastest); 2 is
/// miniz_oxide's fast level (greedy one-probe matching with dynamic codes:
/// 55%, at about 70% of level 1's speed, where zlib-rs's own level 2 writes
/// 51% at about 55%); 3 to 9 are zlib-rs's (50% to 49%, slower still).
/// Every level writes standard raw deflate: the same gzip for every reader.
enum Deflate {
    Miniz(Box<CompressorOxide>),
    Zlib(Compress),
}

impl Deflate {
    fn new(level: u32) -> Deflate {
        if level == 2 {
            // negative window bits: raw deflate, no zlib header
            let flags = create_comp_flags_from_zip_params(1, -15, 0);
            Deflate::Miniz(Box::new(CompressorOxide::new(flags)))
        } else {
            Deflate::Zlib(Compress::new(Compression::new(level), false))
        }
    }

    /// The raw deflate of `data`, appended to `out`.
    fn deflate(&mut self, data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
        match self {
            Deflate::Zlib(c) => zlib_deflate(c, data, out),
            Deflate::Miniz(c) => miniz_deflate(c, data, out),
        }
    }
}

/// Compress `data` (at most [`BLOCK`] bytes) into one BGZF member in `out`
/// (cleared first).
pub fn member(data: &[u8], level: u32, out: &mut Vec<u8>) -> io::Result<()> {
    debug_assert!(data.len() <= BLOCK);
    DEFLATE.with(|d| {
        let mut d = d.borrow_mut();
        if d.as_ref().is_none_or(|(l, _)| *l != level) {
            *d = Some((level, Deflate::new(level)));
        }
        let (_, c) = d.as_mut().expect("set above");
        deflate_member(c, data, out)?;
        if out.len() > MAX_MEMBER {
            // (not on BLOCK bytes of any level; stored always fits)
            let mut stored = Deflate::Zlib(Compress::new(Compression::none(), false));
            deflate_member(&mut stored, data, out)?;
        }
        Ok(())
    })
}

fn deflate_member(c: &mut Deflate, data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    out.clear();
    out.reserve(HEADER.len() + data.len() + data.len() / 8 + 64);
    out.extend_from_slice(&HEADER);
    c.deflate(data, out)?;
    let mut crc = Crc::new();
    crc.update(data);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    let size = (out.len() - 1) as u16;
    out[16..18].copy_from_slice(&size.to_le_bytes());
    Ok(())
}

fn zlib_deflate(c: &mut Compress, data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    c.reset();
    loop {
        let done = c.total_in() as usize;
        match c.compress_vec(&data[done..], out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => return Ok(()),
            Ok(_) => out.reserve(out.capacity().max(4096)),
            Err(e) => return Err(io::Error::other(e)),
        }
    }
}

fn miniz_deflate(c: &mut CompressorOxide, mut data: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    c.reset();
    let mut at = out.len();
    // the capacity member() reserved fits any block
    out.resize(out.capacity().max(at + 4096), 0);
    loop {
        let (status, used, wrote) = compress(c, data, &mut out[at..], TDEFLFlush::Finish);
        at += wrote;
        data = &data[used.min(data.len())..];
        match status {
            TDEFLStatus::Done => {
                out.truncate(at);
                return Ok(());
            }
            TDEFLStatus::Okay => {
                if out.len() - at < 4096 {
                    out.resize(out.len() * 2, 0);
                }
            }
            other => {
                out.truncate(at);
                return Err(io::Error::other(format!("deflate failed ({other:?})")));
            }
        }
    }
}

/// A failure to write an output: its label (the path) and the error.
#[derive(Debug)]
pub struct WriteError {
    pub label: String,
    pub error: io::Error,
}

/// What a compression job sends back: the member (and the input's buffer,
/// for reuse), or why there is none.
type Done = Result<(Vec<u8>, Vec<u8>), String>;

/// The compression of a run's gzip outputs, shared by them (clone it for
/// each): the pool, the level and the queue of blocks in flight.
pub struct Deflater<W: Write + Send + 'static> {
    queue: Arc<Mutex<Queue<W>>>,
    pool: Arc<ThreadPool>,
    level: u32,
}

impl<W: Write + Send + 'static> Clone for Deflater<W> {
    fn clone(&self) -> Self {
        Deflater { queue: self.queue.clone(), pool: self.pool.clone(), level: self.level }
    }
}

struct Queue<W> {
    /// Each output's writer (`None` once finished or dropped) and label.
    sinks: Vec<(Option<W>, String)>,
    /// Blocks in flight, oldest first: the output and the job's answer.
    fifo: VecDeque<(usize, crossbeam_channel::Receiver<Done>)>,
    max_in_flight: usize,
    /// Buffers to reuse (inputs and members).
    spare: Vec<Vec<u8>>,
}

impl<W: Write + Send + 'static> Deflater<W> {
    /// Compression at `level` (1 to 9) on `threads` threads.
    pub fn new(level: u32, threads: usize) -> Result<Self, String> {
        if !LEVELS.contains(&level) {
            return Err(format!("the gzip compression level must be 1 to 9, not {level}"));
        }
        let threads = threads.max(1);
        let pool = pool(threads)?;
        let queue = Queue { sinks: Vec::new(), fifo: VecDeque::new(), max_in_flight: Self::max_in_flight(threads), spare: Vec::new() };
        Ok(Deflater { queue: Arc::new(Mutex::new(queue)), pool, level })
    }

    /// Blocks in flight at most (compressing, or compressed and waiting to
    /// be written), on `threads` threads: enough to keep every thread busy
    /// while the oldest is waited for. Each holds its input and its member
    /// (up to 64 KiB each).
    pub fn max_in_flight(threads: usize) -> usize {
        4 * threads.max(1) + 2
    }

    /// A new output written to `sink` (`label` names it in errors).
    pub fn stream(&self, sink: W, label: &str) -> Stream<W> {
        let mut q = lock(&self.queue);
        q.sinks.push((Some(sink), label.to_string()));
        Stream { deflater: self.clone(), id: q.sinks.len() - 1, pending: Vec::new() }
    }

    /// Send `block` of output `id` to be compressed, after writing the
    /// finished blocks at the head of the queue, and waiting for the oldest
    /// while the queue is full.
    fn submit(&self, id: usize, block: Vec<u8>) -> Result<(), WriteError> {
        let mut q = lock(&self.queue);
        q.write_ready()?;
        while q.fifo.len() >= q.max_in_flight {
            q.write_oldest()?;
        }
        let (tx, rx) = crossbeam_channel::bounded::<Done>(1);
        let mut out = q.spare.pop().unwrap_or_default();
        let level = self.level;
        self.pool.spawn(move || {
            // a panic in a rayon job would abort the process
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| member(&block, level, &mut out)));
            let done = match r {
                Ok(Ok(())) => Ok((out, block)),
                Ok(Err(e)) => Err(e.to_string()),
                Err(_) => Err("the gzip compression panicked".to_string()),
            };
            let _ = tx.send(done);
        });
        q.fifo.push_back((id, rx));
        Ok(())
    }

    /// Write every block of output `id` still in flight (and those before
    /// them), then the end member, and give back its writer.
    fn finish(&self, id: usize) -> Result<W, WriteError> {
        let mut q = lock(&self.queue);
        while q.fifo.iter().any(|(i, _)| *i == id) {
            q.write_oldest()?;
        }
        let (sink, label) = &mut q.sinks[id];
        let mut w = sink.take().expect("an output is finished once");
        w.write_all(&EOF).and_then(|()| w.flush()).map_err(|error| WriteError { label: label.clone(), error })?;
        Ok(w)
    }

    /// An empty buffer for the next block (one of those given back).
    fn buffer(&self) -> Vec<u8> {
        let mut b = lock(&self.queue).spare.pop().unwrap_or_default();
        b.clear();
        b.reserve(BLOCK);
        b
    }
}

impl<W: Write> Queue<W> {
    /// Write the blocks at the head of the queue whose compression is done.
    fn write_ready(&mut self) -> Result<(), WriteError> {
        while let Some((_, rx)) = self.fifo.front() {
            if rx.is_empty() {
                return Ok(());
            }
            self.write_oldest()?;
        }
        Ok(())
    }

    /// Wait for the oldest block in flight and write it to its output (not
    /// when that output was dropped).
    fn write_oldest(&mut self) -> Result<(), WriteError> {
        let Some((id, rx)) = self.fifo.pop_front() else { return Ok(()) };
        let done = rx.recv().unwrap_or_else(|_| Err("the gzip compression stopped".to_string()));
        let (sink, label) = &mut self.sinks[id];
        let (out, block) = done.map_err(|m| WriteError { label: label.clone(), error: io::Error::other(m) })?;
        if let Some(w) = sink.as_mut() {
            w.write_all(&out).map_err(|error| WriteError { label: label.clone(), error })?;
        }
        self.spare.push(out);
        self.spare.push(block);
        // (the buffers of the blocks in flight and one per output's pending
        // block are all there are; keep no more than that)
        self.spare.truncate(2 * self.max_in_flight);
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// One gzip output: buffers its bytes into blocks for its [`Deflater`].
/// [`Stream::finish`] writes the rest and returns the writer; dropped
/// unfinished, its writer is dropped (its blocks in flight discarded).
pub struct Stream<W: Write + Send + 'static> {
    deflater: Deflater<W>,
    id: usize,
    pending: Vec<u8>,
}

impl<W: Write + Send + 'static> Stream<W> {
    pub fn write_all(&mut self, mut bytes: &[u8]) -> Result<(), WriteError> {
        while !bytes.is_empty() {
            if self.pending.capacity() == 0 {
                self.pending = self.deflater.buffer();
            }
            let take = (BLOCK - self.pending.len()).min(bytes.len());
            self.pending.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.pending.len() == BLOCK {
                let block = std::mem::take(&mut self.pending);
                self.deflater.submit(self.id, block)?;
            }
        }
        Ok(())
    }

    /// Compress and write the last block, the blocks still in flight and
    /// the end member; the writer, flushed.
    pub fn finish(mut self) -> Result<W, WriteError> {
        if !self.pending.is_empty() {
            let block = std::mem::take(&mut self.pending);
            self.deflater.submit(self.id, block)?;
        }
        self.deflater.finish(self.id)
    }
}

impl<W: Write + Send + 'static> Drop for Stream<W> {
    fn drop(&mut self) {
        // (finished: already taken) unfinished: its writer goes, and its
        // blocks in flight are written nowhere
        lock(&self.deflater.queue).sinks[self.id].0 = None;
    }
}

/// The compression pool of `threads` threads: the last one made, kept for
/// the next run (a fresh one per process, as `pool.rs` explains).
fn pool(threads: usize) -> Result<Arc<ThreadPool>, String> {
    static POOL: Mutex<Option<(u32, usize, Arc<ThreadPool>)>> = Mutex::new(None);
    let mut p = lock(&POOL);
    let pid = std::process::id();
    match p.take() {
        Some((id, n, pool)) if id == pid && n == threads => {
            *p = Some((id, n, pool.clone()));
            return Ok(pool);
        }
        // another process's (a forked child's parent): its threads are not here
        Some(other) if other.0 != pid => std::mem::forget(other),
        _ => {}
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("ducksassy-gzip-{i}"))
        .build()
        .map_err(|e| format!("could not start {threads} compression threads ({e}); use fewer `threads`"))?;
    let pool = Arc::new(pool);
    *p = Some((pid, threads, pool.clone()));
    Ok(pool)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gunzip(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes).read_to_end(&mut out).unwrap();
        out
    }

    /// Bytes that compress a little: FASTQ-like text of pseudo-random letters.
    fn text(n: usize, seed: u64) -> Vec<u8> {
        let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 81 == 80 { b'\n' } else { b"ACGT!#5?I"[(x % 9) as usize] }
            })
            .collect()
    }

    /// The members of a BGZF file: each one's size from its `BC` field,
    /// checked against the gzip header.
    fn members(bytes: &[u8]) -> Vec<&[u8]> {
        let mut out = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let m = &bytes[at..];
            assert_eq!(&m[..4], &[0x1f, 0x8b, 8, 4]);
            assert_eq!(&m[10..16], &[6, 0, b'B', b'C', 2, 0]);
            let size = u16::from_le_bytes([m[16], m[17]]) as usize + 1;
            let isize = u32::from_le_bytes(m[size - 4..size].try_into().unwrap()) as usize;
            assert!(isize <= BLOCK && size <= MAX_MEMBER);
            out.push(&m[..size]);
            at += size;
        }
        out
    }

    #[test]
    fn a_member_is_a_bgzf_block_of_its_bytes() {
        for (n, level) in [(0, 1), (1, 9), (1000, 4), (BLOCK, 1), (BLOCK, 6)] {
            let data = text(n, n as u64);
            let mut out = Vec::new();
            member(&data, level, &mut out).unwrap();
            assert_eq!(members(&out).len(), 1);
            assert_eq!(gunzip(&out), data);
        }
        // incompressible bytes (stored) still fit
        let mut x = 1u32;
        let noise: Vec<u8> = (0..BLOCK)
            .map(|_| {
                x = x.wrapping_mul(1103515245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        let mut out = Vec::new();
        member(&noise, 9, &mut out).unwrap();
        assert!(out.len() <= MAX_MEMBER);
        assert_eq!(gunzip(&out), noise);
        // the end marker is an empty member
        assert_eq!(members(&EOF).len(), 1);
        assert!(gunzip(&EOF).is_empty());
        let mut empty = Vec::new();
        member(b"", 6, &mut empty).unwrap();
        assert_eq!(gunzip(&empty), b"");
    }

    #[test]
    fn level_2_uses_dynamic_codes() {
        // 9 letters drawn about evenly: some 3.2 bits of 8 (40%). Level 2
        // (miniz_oxide, dynamic Huffman codes) and level 3 get near it;
        // level 1 (zlib's "quick", static codes: 8 or 9 bits a literal,
        // only its matches save) writes some 75%.
        let data = text(BLOCK, 7);
        let size = |level| {
            let mut out = Vec::new();
            member(&data, level, &mut out).unwrap();
            assert_eq!(gunzip(&out), data);
            out.len() as f64 / data.len() as f64
        };
        assert!(size(2) < 0.6 && size(3) < 0.6, "{} {}", size(2), size(3));
        assert!(size(1) > 0.65, "{}", size(1));
        // blocks of every size through the reused compressor
        let mut out = Vec::new();
        for n in [0, 1, 17, 4095, 4096, 4097, BLOCK] {
            member(&text(n, n as u64 + 3), 2, &mut out).unwrap();
            assert_eq!(gunzip(&out), text(n, n as u64 + 3));
        }
    }

    #[test]
    fn levels_outside_1_to_9_are_refused() {
        assert!(Deflater::<Vec<u8>>::new(0, 1).is_err());
        assert!(Deflater::<Vec<u8>>::new(10, 1).is_err());
        assert!(Deflater::<Vec<u8>>::new(9, 1).is_ok());
    }

    #[test]
    fn many_outputs_written_in_pieces_keep_their_order() {
        // 97 outputs written in turns, in pieces of every size (one larger
        // than a block), through a queue much shorter than the blocks
        for threads in [1, 3] {
            let d = Deflater::<Vec<u8>>::new(1, threads).unwrap();
            let n = 97;
            let mut streams: Vec<_> = (0..n).map(|i| d.stream(Vec::new(), &format!("out{i}"))).collect();
            let mut want = vec![Vec::new(); n];
            let data = text(3 * BLOCK + 12345, 7);
            let mut at = 0;
            let mut turn = 0usize;
            while at < data.len() {
                let len = [1, 100, 5000, BLOCK + 17, 40000][turn % 5].min(data.len() - at);
                let o = (turn * 31) % n;
                if o % 10 != 9 {
                    // every tenth output gets nothing
                    streams[o].write_all(&data[at..at + len]).unwrap();
                    want[o].extend_from_slice(&data[at..at + len]);
                }
                at += len;
                turn += 1;
            }
            for (i, s) in streams.into_iter().enumerate() {
                let bytes = s.finish().unwrap();
                assert_eq!(gunzip(&bytes), want[i], "output {i}");
                let m = members(&bytes);
                assert_eq!(*m.last().unwrap(), &EOF[..]);
                assert_eq!(m.len(), want[i].len().div_ceil(BLOCK) + 1);
                if want[i].is_empty() {
                    assert_eq!(bytes, EOF);
                }
            }
        }
    }

    /// A writer that fails after `room` bytes, as a full disk does.
    #[derive(Debug)]
    struct Full {
        room: usize,
    }
    impl Write for Full {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            if b.len() > self.room {
                return Err(io::Error::new(io::ErrorKind::StorageFull, "No space left on device"));
            }
            self.room -= b.len();
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_disk_is_an_error_of_its_output() {
        let d = Deflater::<Full>::new(1, 2).unwrap();
        // room for nothing: the end member fails at finish
        let s = d.stream(Full { room: 0 }, "empty.gz");
        let e = s.finish().unwrap_err();
        assert_eq!((e.label.as_str(), e.error.kind()), ("empty.gz", io::ErrorKind::StorageFull));
        // room for some blocks only: an error while writing or at finish
        let mut s = d.stream(Full { room: 100_000 }, "big.gz");
        let data = text(8 * BLOCK, 3);
        let r = s.write_all(&data).and_then(|()| s.finish().map(|_| ()));
        let e = r.unwrap_err();
        assert_eq!((e.label.as_str(), e.error.kind()), ("big.gz", io::ErrorKind::StorageFull));
    }

    #[test]
    fn a_dropped_output_leaves_the_others_whole() {
        let d = Deflater::<Vec<u8>>::new(2, 2).unwrap();
        let mut a = d.stream(Vec::new(), "a");
        let mut b = d.stream(Vec::new(), "b");
        let data = text(5 * BLOCK, 9);
        a.write_all(&data[..2 * BLOCK + 5]).unwrap();
        b.write_all(&data).unwrap();
        a.write_all(&data[2 * BLOCK + 5..]).unwrap();
        drop(b);
        assert_eq!(gunzip(&a.finish().unwrap()), data);
    }
}
