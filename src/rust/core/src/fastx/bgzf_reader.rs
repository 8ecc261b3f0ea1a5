//! BGZF input inflated on several threads: dorado's BAM files, `bgzip`'d
//! FASTQ and our own gzip outputs (`gzip_blocks.rs`) are series of gzip
//! members of at most 64 KiB, each of which says its size in its header (the
//! `BC` extra field, SAM/BAM specification section 4.1). So the members can
//! be cut from the file without inflating them, and inflated independently.
//!
//! The reader thread reads members (cheap: no inflation), groups them into
//! batches of about [`BATCH_BYTES`] and hands each batch to a small pool of
//! its own; the inflated batches come back in order through a queue of at
//! most [`BgzfReader::depth`] in flight, so memory stays bounded and the
//! parsing of one batch overlaps with the inflation of the next ones. Each
//! member's CRC-32 and length are checked as gzip readers check them.
//!
//! A member without the `BC` field (a BGZF file with plain gzip appended)
//! ends the parallel path: the rest of the file is inflated as one
//! multi-member gzip stream, as before.

use flate2::{Crc, Decompress, FlushDecompress, Status};
use rayon::ThreadPool;
use std::collections::VecDeque;
use std::io::{self, Cursor, Read};
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;

use super::bam::read_full;

/// Compressed bytes per batch of members handed to the pool.
const BATCH_BYTES: usize = 1 << 20;
/// The fixed part of a gzip member's header (through XLEN).
const FIXED: usize = 12;
/// The largest BGZF member (its size less one fits in 16 bits) and the
/// largest content of one.
const MAX_MEMBER: usize = 1 << 16;

/// Whether `head` (the first bytes of a file) starts a BGZF member: gzip,
/// deflate, FEXTRA, and a `BC` subfield of 2 bytes in the extra field.
pub(crate) fn is_bgzf(head: &[u8]) -> bool {
    head.len() >= FIXED && bc_size(head).is_some()
}

/// The member size from a header (at least [`FIXED`] bytes, then the extra
/// field if present): `None` unless it is a BGZF header.
fn bc_size(h: &[u8]) -> Option<usize> {
    if h.len() < FIXED || h[0] != 0x1f || h[1] != 0x8b || h[2] != 8 || h[3] & 4 == 0 {
        return None;
    }
    let xlen = u16::from_le_bytes([h[10], h[11]]) as usize;
    let extra = h.get(FIXED..FIXED + xlen)?;
    let mut at = 0;
    while at + 4 <= extra.len() {
        let slen = u16::from_le_bytes([extra[at + 2], extra[at + 3]]) as usize;
        if extra[at] == b'B' && extra[at + 1] == b'C' && slen == 2 && at + 6 <= extra.len() {
            return Some(u16::from_le_bytes([extra[at + 4], extra[at + 5]]) as usize + 1);
        }
        at += 4 + slen;
    }
    None
}

/// An inflated batch, and the buffer of its compressed members, to reuse.
type Inflated = io::Result<(Vec<u8>, Vec<u8>)>;

/// A `Read` of the decompressed content of BGZF `raw`, inflated on `threads`
/// threads.
pub(crate) struct BgzfReader<R: Read> {
    raw: Option<R>,
    pool: Arc<ThreadPool>,
    queue: VecDeque<Receiver<Inflated>>,
    depth: usize,
    current: Cursor<Vec<u8>>,
    /// Buffers of spent batches (inflated and compressed), reused: fresh
    /// megabyte buffers would cost page faults on every batch.
    spare_out: Vec<Vec<u8>>,
    spare_in: Vec<Vec<u8>>,
    /// After a member without `BC`: the rest as one gzip stream.
    rest: Option<flate2::read::MultiGzDecoder<io::Chain<Cursor<Vec<u8>>, R>>>,
    /// A header read but not of a BGZF member, for `rest`.
    pending: Vec<u8>,
}

impl<R: Read> BgzfReader<R> {
    pub fn new(raw: R, threads: usize) -> io::Result<Self> {
        let threads = threads.clamp(1, 64);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("ducksassy-inflate-{i}"))
            .build()
            .map_err(io::Error::other)?;
        Ok(BgzfReader { raw: Some(raw), pool: Arc::new(pool), queue: VecDeque::new(), depth: 2 * threads + 1, current: Cursor::new(Vec::new()), spare_out: Vec::new(), spare_in: Vec::new(), rest: None, pending: Vec::new() })
    }

    /// Read members up to [`BATCH_BYTES`] and send them to the pool; `false`
    /// when the file has no more BGZF members.
    fn submit_batch(&mut self) -> io::Result<bool> {
        let Some(raw) = self.raw.as_mut() else { return Ok(false) };
        // the members one after the other in one buffer, and where each ends
        let mut members = self.spare_in.pop().unwrap_or_default();
        members.clear();
        let mut ends = Vec::new();
        while members.len() < BATCH_BYTES {
            if read_member(raw, &mut members, &mut self.pending)? {
                ends.push(members.len());
            } else {
                // the end, or a member that is not BGZF: the rest of
                // the file (from that header on) as one gzip stream
                let raw = self.raw.take().expect("checked above");
                if !self.pending.is_empty() {
                    let head = std::mem::take(&mut self.pending);
                    self.rest = Some(flate2::read::MultiGzDecoder::new(Cursor::new(head).chain(raw)));
                }
                break;
            }
        }
        if ends.is_empty() {
            return Ok(false);
        }
        let mut out = self.spare_out.pop().unwrap_or_default();
        let (tx, rx) = sync_channel(1);
        self.pool.spawn(move || {
            let r = inflate_all(&members, &ends, &mut out).map(|()| (out, members));
            let _ = tx.send(r);
        });
        self.queue.push_back(rx);
        Ok(true)
    }

    /// The next inflated batch, or `None` at the end of the BGZF members.
    fn next_batch(&mut self) -> io::Result<Option<Vec<u8>>> {
        while self.queue.len() < self.depth && self.submit_batch()? {}
        match self.queue.pop_front() {
            None => Ok(None),
            Some(rx) => {
                let (out, members) = rx.recv().map_err(|_| io::Error::other("the inflation of a BGZF block stopped"))??;
                self.spare_in.push(members);
                Ok(Some(out))
            }
        }
    }
}

impl<R: Read> Read for BgzfReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        loop {
            let n = self.current.read(out)?;
            if n > 0 || out.is_empty() {
                return Ok(n);
            }
            match self.next_batch()? {
                Some(b) => {
                    let spent = std::mem::replace(&mut self.current, Cursor::new(b)).into_inner();
                    self.spare_out.push(spent);
                }
                None => {
                    return match self.rest.as_mut() {
                        Some(r) => r.read(out),
                        None => Ok(0),
                    }
                }
            }
        }
    }
}

/// Append the next whole member of `raw` to `members`; `false` at the end
/// of the file, or when the next member is not BGZF (its bytes read so far
/// left in `pending`).
fn read_member<R: Read>(raw: &mut R, members: &mut Vec<u8>, pending: &mut Vec<u8>) -> io::Result<bool> {
    let at = members.len();
    members.resize(at + FIXED, 0);
    let got = read_full(raw, &mut members[at..])?;
    let not_bgzf = |members: &mut Vec<u8>, pending: &mut Vec<u8>| {
        *pending = members.split_off(at);
        Ok(false)
    };
    if got == 0 {
        members.truncate(at);
        return Ok(false);
    }
    if got < FIXED || members[at + 3] & 4 == 0 {
        members.truncate(at + got);
        return not_bgzf(members, pending);
    }
    let xlen = u16::from_le_bytes([members[at + 10], members[at + 11]]) as usize;
    members.resize(at + FIXED + xlen, 0);
    let got = read_full(raw, &mut members[at + FIXED..])?;
    members.truncate(at + FIXED + got);
    let size = match bc_size(&members[at..]) {
        Some(s) if s >= FIXED + xlen + 8 && s <= MAX_MEMBER => s,
        Some(_) => return Err(corrupt("a BGZF block's size is impossible")),
        None => return not_bgzf(members, pending),
    };
    let have = members.len() - at;
    members.resize(at + size, 0);
    if read_full(raw, &mut members[at + have..])? < size - have {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the last BGZF block is truncated"));
    }
    Ok(true)
}

/// The contents of the members (`members` up to each of `ends`), one after
/// the other, into `out` (cleared first).
fn inflate_all(members: &[u8], ends: &[usize], out: &mut Vec<u8>) -> io::Result<()> {
    out.clear();
    out.reserve(ends.len() * MAX_MEMBER);
    let mut d = Decompress::new(false);
    let mut from = 0;
    for &end in ends {
        inflate_member(&mut d, &members[from..end], out)?;
        from = end;
    }
    Ok(())
}

/// Append the content of one whole BGZF member to `out`, checking its CRC-32
/// and length.
fn inflate_member(d: &mut Decompress, m: &[u8], out: &mut Vec<u8>) -> io::Result<()> {
    let xlen = u16::from_le_bytes([m[10], m[11]]) as usize;
    let body = &m[FIXED + xlen..m.len() - 8];
    let crc = u32::from_le_bytes(m[m.len() - 8..m.len() - 4].try_into().expect("4 bytes"));
    let isize = u32::from_le_bytes(m[m.len() - 4..].try_into().expect("4 bytes")) as usize;
    if isize > MAX_MEMBER {
        return Err(corrupt("a BGZF block's length is impossible"));
    }
    let from = out.len();
    out.reserve(isize);
    d.reset(false);
    loop {
        let before = (d.total_in(), d.total_out());
        let status = d.decompress_vec(&body[d.total_in() as usize..], out, FlushDecompress::Finish).map_err(|e| corrupt(&format!("corrupt deflate stream: {e}")))?;
        if status == Status::StreamEnd {
            break;
        }
        if out.len() - from >= isize || (d.total_in(), d.total_out()) == before {
            return Err(corrupt("a BGZF block's deflate data does not end where its length says"));
        }
        out.reserve(4096);
    }
    let mut c = Crc::new();
    c.update(&out[from..]);
    if out.len() - from != isize || c.sum() != crc {
        return Err(corrupt("a BGZF block fails its CRC-32 or length check"));
    }
    Ok(())
}

fn corrupt(msg: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, msg.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fastx::gzip_blocks::{member, BLOCK, EOF};
    use std::io::Write;

    fn text(n: usize) -> Vec<u8> {
        let mut x = 88172645463325252u64;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i % 61 == 60 { b'\n' } else { b"ACGT"[(x % 4) as usize] }
            })
            .collect()
    }

    fn bgzf(data: &[u8], level: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut m = Vec::new();
        for c in data.chunks(BLOCK) {
            member(c, level, &mut m).unwrap();
            out.extend_from_slice(&m);
        }
        out.extend_from_slice(&EOF);
        out
    }

    fn read_all(bytes: Vec<u8>, threads: usize) -> io::Result<Vec<u8>> {
        let mut r = BgzfReader::new(Cursor::new(bytes), threads)?;
        let mut out = Vec::new();
        r.read_to_end(&mut out)?;
        Ok(out)
    }

    #[test]
    fn bgzf_reads_back_on_any_number_of_threads() {
        // several batches (over BATCH_BYTES compressed), and the end member
        for n in [0, 1, 1000, BLOCK, 3 * BATCH_BYTES + 12345] {
            let data = text(n);
            let file = bgzf(&data, 1);
            assert!(is_bgzf(&file));
            for threads in [1, 2, 5] {
                assert_eq!(read_all(file.clone(), threads).unwrap(), data, "n {n} threads {threads}");
            }
        }
    }

    #[test]
    fn plain_gzip_after_bgzf_is_read_as_gzip() {
        let a = text(200_000);
        let b = text(5_000);
        let mut file = bgzf(&a, 2);
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        gz.write_all(&b).unwrap();
        file.extend_from_slice(&gz.finish().unwrap());
        assert!(!is_bgzf(&file[file.len() - 30..]));
        let mut want = a.clone();
        want.extend_from_slice(&b);
        assert_eq!(read_all(file, 2).unwrap(), want);
    }

    #[test]
    fn truncated_and_corrupt_blocks_are_errors() {
        let data = text(300_000);
        let file = bgzf(&data, 1);
        // cut inside a member
        for cut in [5, 20, file.len() / 2, file.len() - 40] {
            assert!(read_all(file[..cut].to_vec(), 2).is_err(), "cut {cut}");
        }
        // a flipped byte in the deflate data or the CRC
        for at in [40, file.len() / 3, 65000] {
            let mut bad = file.clone();
            bad[at] ^= 0x55;
            assert!(read_all(bad, 2).is_err(), "flip at {at}");
        }
        // an impossible member size
        let mut bad = file.clone();
        bad[16] = 0;
        bad[17] = 0;
        assert!(read_all(bad, 1).is_err());
    }
}
