//! Unaligned BAM (dorado's default output), read as FASTQ records.
//!
//! A BAM file is BGZF: gzip members of at most 64 KiB, which together are
//! one valid multi-member gzip stream, so `decompress.rs` inflates it with
//! the same `MultiGzDecoder` as any gzip file and recognises BAM by the
//! first four bytes of what comes out, `BAM\1` (an uncompressed BAM, as
//! `samtools view -u` writes it, starts with them directly). What follows
//! is the layout of the SAM/BAM specification (section 4.2), little-endian:
//!
//! - the header: `l_text` (i32), the SAM header text, `n_ref` (i32), and per
//!   reference `l_name` (u32), its name, `l_ref` (u32): read and skipped;
//! - records: `block_size` (u32, the bytes that follow), `refID`, `pos`
//!   (i32 each), `l_read_name` (u8), `mapq` (u8), `bin` (u16), `n_cigar_op`
//!   (u16), `flag` (u16), `l_seq` (u32), `next_refID`, `next_pos`, `tlen`
//!   (i32 each): 32 bytes; then the read name (`l_read_name` bytes with its
//!   NUL), the CIGAR (`n_cigar_op` u32), the sequence (4 bits a base, high
//!   nibble first, codes into `=ACMGRSVTWYHKDBN`), the qualities (`l_seq`
//!   bytes of Phred scores; all `0xFF` when absent) and the tags.
//!
//! A record becomes what `samtools fastq` writes of it by default: the read
//! name (no tags, no `/1` `/2`: unaligned nanopore reads are not paired),
//! the sequence and the qualities (Phred + 33), both turned back to the
//! read's own orientation when the record is reversed (flag `0x10`:
//! sequence reverse-complemented, qualities reversed); secondary (`0x100`)
//! and supplementary (`0x800`) records are skipped. A record without
//! qualities gets Phred 1 (`"`) on every base, the `-v` default of
//! `samtools fastq`. Everything else of a record (alignment, tags) is
//! ignored. Every length is checked against the bytes there are: a
//! truncated or corrupt file is an error, never a panic or a huge
//! allocation.

use std::io::{self, Read};

/// The magic bytes at the start of a (decompressed) BAM file.
pub(crate) const MAGIC: &[u8; 4] = b"BAM\x01";

/// Flags of records `samtools fastq` skips by default (`-F 0x900`).
const SKIP_FLAGS: u16 = 0x100 | 0x800;
/// Flag of a record stored reverse-complemented.
const REVERSE: u16 = 0x10;
/// Quality written where a record has none (Phred 1 + 33).
pub(crate) const NO_QUAL: u8 = b'"';
/// Fixed part of a record after `block_size`.
const FIXED: usize = 32;
/// Records up to this size are read into a buffer of their size at once;
/// larger ones grow it as their bytes arrive (a corrupt size then costs no
/// more memory than the bytes that are really there).
const DIRECT: usize = 64 << 20;

/// What is wrong with a BAM stream.
#[derive(Debug)]
pub(crate) enum BamError {
    /// Reading or decompressing failed (truncated or corrupt gzip data).
    Io(io::Error),
    /// The BAM data itself is truncated or inconsistent.
    Format(String),
}

impl From<io::Error> for BamError {
    fn from(e: io::Error) -> Self {
        BamError::Io(e)
    }
}

/// One BAM record, borrowed from the reader's buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record<'a> {
    /// The read name, without its NUL.
    pub name: &'a [u8],
    pub flag: u16,
    /// Bases, 4 bits each (`(l_seq + 1) / 2` bytes).
    pub packed: &'a [u8],
    pub l_seq: usize,
    /// `l_seq` Phred scores, or `0xFF`s when absent.
    pub qual: &'a [u8],
}

impl Record<'_> {
    /// Whether `samtools fastq` skips this record by default.
    pub fn skipped(&self) -> bool {
        self.flag & SKIP_FLAGS != 0
    }

    pub fn reversed(&self) -> bool {
        self.flag & REVERSE != 0
    }

    /// Append the sequence, in the read's orientation, to `out`.
    pub fn seq_into(&self, out: &mut Vec<u8>) {
        decode_seq(self.packed, self.l_seq, self.reversed(), out);
    }

    /// Append the qualities as FASTQ letters, in the read's orientation.
    pub fn qual_into(&self, out: &mut Vec<u8>) {
        if self.qual.first() == Some(&0xFF) {
            out.resize(out.len() + self.l_seq, NO_QUAL);
        } else if self.reversed() {
            out.extend(self.qual.iter().rev().map(|q| q.wrapping_add(33)));
        } else {
            out.extend(self.qual.iter().map(|q| q.wrapping_add(33)));
        }
    }
}

/// Reads the records of a decompressed BAM stream, one at a time.
pub(crate) struct Reader<R> {
    inner: R,
    buf: Vec<u8>,
}

impl<R: Read> Reader<R> {
    /// Read the header (magic, SAM text, references) of `inner`.
    pub fn new(mut inner: R) -> Result<Self, BamError> {
        let mut magic = [0u8; 4];
        if read_full(&mut inner, &mut magic)? < 4 || &magic != MAGIC {
            return Err(BamError::Format("it does not start with the BAM magic bytes".into()));
        }
        let l_text = read_len(&mut inner, "the header's text length")?;
        skip(&mut inner, l_text)?;
        let n_ref = read_len(&mut inner, "the number of reference sequences")?;
        for _ in 0..n_ref {
            let l_name = read_len(&mut inner, "a reference name's length")?;
            // the name, then the reference's length (u32)
            skip(&mut inner, l_name + 4)?;
        }
        Ok(Reader { inner, buf: Vec::new() })
    }

    /// The next record (skipped ones included), `None` at the end.
    pub fn next_record(&mut self) -> Result<Option<Record<'_>>, BamError> {
        let mut size = [0u8; 4];
        match read_full(&mut self.inner, &mut size)? {
            0 => return Ok(None),
            4 => {}
            _ => return Err(truncated()),
        }
        let size = u32::from_le_bytes(size) as usize;
        if size < FIXED || size > i32::MAX as usize {
            return Err(BamError::Format(format!("a record's size ({size} bytes) is impossible; the file is corrupt")));
        }
        if size <= DIRECT {
            // (grown, never shrunk: no zeroing of the buffer per record)
            if self.buf.len() < size {
                self.buf.resize(size, 0);
            }
            if read_full(&mut self.inner, &mut self.buf[..size])? < size {
                return Err(truncated());
            }
        } else {
            self.buf.clear();
            if (&mut self.inner).take(size as u64).read_to_end(&mut self.buf)? < size {
                return Err(truncated());
            }
        }
        parse_record(&self.buf[..size]).map(Some)
    }
}

/// A record's fields from its bytes after `block_size`, every length checked.
fn parse_record(b: &[u8]) -> Result<Record<'_>, BamError> {
    let u16_at = |i: usize| u16::from_le_bytes([b[i], b[i + 1]]);
    let l_read_name = b[8] as usize;
    let n_cigar = u16_at(12) as usize;
    let flag = u16_at(14);
    let l_seq = u32::from_le_bytes([b[16], b[17], b[18], b[19]]) as usize;
    let name_end = FIXED + l_read_name;
    let seq_from = name_end + 4 * n_cigar;
    let qual_from = seq_from + l_seq.div_ceil(2);
    let end = qual_from + l_seq;
    if end > b.len() {
        return Err(BamError::Format(format!(
            "a record's fields ({end} bytes: a name of {l_read_name}, {n_cigar} CIGAR operations, {l_seq} bases) are longer than the record ({} bytes); the file is corrupt",
            b.len()
        )));
    }
    let name = &b[FIXED..name_end];
    // the name ends in a NUL (counted in l_read_name)
    let name = &name[..memchr::memchr(0, name).unwrap_or(name.len())];
    Ok(Record { name, flag, packed: &b[seq_from..qual_from], l_seq, qual: &b[qual_from..end] })
}

fn truncated() -> BamError {
    BamError::Format("the file ends inside a BAM record or its header (is it truncated?)".into())
}

/// A non-negative i32 length from the header.
fn read_len<R: Read>(r: &mut R, what: &str) -> Result<usize, BamError> {
    let mut b = [0u8; 4];
    if read_full(r, &mut b)? < 4 {
        return Err(truncated());
    }
    let n = i32::from_le_bytes(b);
    usize::try_from(n).map_err(|_| BamError::Format(format!("{what} in the BAM header is negative ({n}); the file is corrupt")))
}

/// Skip `n` bytes of `r`; fewer there is a truncated header.
fn skip<R: Read>(r: &mut R, n: usize) -> Result<(), BamError> {
    let got = io::copy(&mut r.take(n as u64), &mut io::sink())?;
    if got < n as u64 {
        return Err(truncated());
    }
    Ok(())
}

/// Fill `buf` from `r` as far as `r` has bytes; the number read (less than
/// `buf.len()` only at the end). Errors of `r` (decompression) pass through.
pub(crate) fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The letters of the 4-bit codes.
const NT16: &[u8; 16] = b"=ACMGRSVTWYHKDBN";
/// The code of each code's complement (`=` and `N` their own; `A`-`T`,
/// `C`-`G`, `M`-`K`, `R`-`Y`, `S`, `W`, `V`-`B`, `H`-`D`): the bits reversed.
const COMP: [u8; 16] = [0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15];

/// The two letters of each packed byte, high nibble first.
static PAIRS: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [NT16[i >> 4], NT16[i & 15]];
        i += 1;
    }
    t
};

/// The complements of each packed byte's letters, low nibble first (the
/// byte's two bases reverse-complemented).
static RC_PAIRS: [[u8; 2]; 256] = {
    let mut t = [[0u8; 2]; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = [NT16[COMP[i & 15] as usize], NT16[COMP[i >> 4] as usize]];
        i += 1;
    }
    t
};

/// Append the `n` bases of `packed` as letters, reverse-complemented when
/// `reverse`.
pub(crate) fn decode_seq(packed: &[u8], n: usize, reverse: bool, out: &mut Vec<u8>) {
    out.reserve(n);
    let full = &packed[..n / 2];
    if !reverse {
        for &b in full {
            out.extend_from_slice(&PAIRS[b as usize]);
        }
        if n % 2 == 1 {
            out.push(NT16[(packed[n / 2] >> 4) as usize]);
        }
    } else {
        if n % 2 == 1 {
            out.push(NT16[COMP[(packed[n / 2] >> 4) as usize] as usize]);
        }
        for &b in full.iter().rev() {
            out.extend_from_slice(&RC_PAIRS[b as usize]);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A record's bytes (with `block_size`) from its fields; `qual` `None`:
    /// absent (`0xFF`s).
    pub(crate) fn record(name: &str, flag: u16, seq: &str, qual: Option<&[u8]>, cigar: u16) -> Vec<u8> {
        let mut body = Vec::new();
        body.extend_from_slice(&(-1i32).to_le_bytes()); // refID
        body.extend_from_slice(&(-1i32).to_le_bytes()); // pos
        body.push(name.len() as u8 + 1);
        body.push(255); // mapq
        body.extend_from_slice(&4680u16.to_le_bytes()); // bin
        body.extend_from_slice(&cigar.to_le_bytes());
        body.extend_from_slice(&flag.to_le_bytes());
        body.extend_from_slice(&(seq.len() as u32).to_le_bytes());
        body.extend_from_slice(&(-1i32).to_le_bytes());
        body.extend_from_slice(&(-1i32).to_le_bytes());
        body.extend_from_slice(&0i32.to_le_bytes());
        body.extend_from_slice(name.as_bytes());
        body.push(0);
        for _ in 0..cigar {
            body.extend_from_slice(&((seq.len() as u32) << 4).to_le_bytes());
        }
        let codes: Vec<u8> = seq.bytes().map(|c| NT16.iter().position(|&x| x == c).unwrap() as u8).collect();
        for pair in codes.chunks(2) {
            body.push(pair[0] << 4 | pair.get(1).copied().unwrap_or(0));
        }
        match qual {
            Some(q) => body.extend(q.iter().map(|c| c - 33)),
            None => body.resize(body.len() + seq.len(), 0xFF),
        }
        body.extend_from_slice(b"RGZgrp\0qsi\x0a\0\0\0");
        let mut r = (body.len() as u32).to_le_bytes().to_vec();
        r.extend(body);
        r
    }

    /// A header with SAM text and one reference.
    pub(crate) fn header() -> Vec<u8> {
        let text = b"@HD\tVN:1.6\tSO:unknown\n@RG\tID:grp\n";
        let mut h = MAGIC.to_vec();
        h.extend_from_slice(&(text.len() as i32).to_le_bytes());
        h.extend_from_slice(text);
        h.extend_from_slice(&1i32.to_le_bytes());
        h.extend_from_slice(&4u32.to_le_bytes());
        h.extend_from_slice(b"chr\0");
        h.extend_from_slice(&1000u32.to_le_bytes());
        h
    }

    fn fastq(bytes: &[u8]) -> Result<Vec<(Vec<u8>, Vec<u8>, Vec<u8>)>, BamError> {
        let mut r = Reader::new(bytes)?;
        let mut out = Vec::new();
        while let Some(rec) = r.next_record()? {
            if rec.skipped() {
                continue;
            }
            let (mut s, mut q) = (Vec::new(), Vec::new());
            rec.seq_into(&mut s);
            rec.qual_into(&mut q);
            out.push((rec.name.to_vec(), s, q));
        }
        Ok(out)
    }

    #[test]
    fn every_code_decodes_and_complements() {
        let all = "=ACMGRSVTWYHKDBN";
        let mut out = Vec::new();
        for n in 0..=16 {
            out.clear();
            let codes: Vec<u8> = (0..n as u8).collect();
            let packed: Vec<u8> = codes.chunks(2).map(|p| p[0] << 4 | p.get(1).copied().unwrap_or(0)).collect();
            decode_seq(&packed, n, false, &mut out);
            assert_eq!(out, &all.as_bytes()[..n]);
            out.clear();
            decode_seq(&packed, n, true, &mut out);
            let rc: Vec<u8> = all.as_bytes()[..n]
                .iter()
                .rev()
                .map(|&c| match c {
                    b'A' => b'T',
                    b'C' => b'G',
                    b'G' => b'C',
                    b'T' => b'A',
                    b'M' => b'K',
                    b'K' => b'M',
                    b'R' => b'Y',
                    b'Y' => b'R',
                    b'V' => b'B',
                    b'B' => b'V',
                    b'H' => b'D',
                    b'D' => b'H',
                    c => c,
                })
                .collect();
            assert_eq!(out, rc, "{n}");
        }
    }

    #[test]
    fn records_read_as_samtools_fastq_writes_them() {
        let mut bam = header();
        bam.extend(record("r1", 4, "ACGTN", Some(b"!#+5I"), 0));
        // reversed: stored as the reverse complement of the read
        bam.extend(record("r2", 4 | 0x10, "AACGT", Some(b"ABCDE"), 0));
        // secondary and supplementary: skipped
        bam.extend(record("sec", 0x100, "GG", Some(b"II"), 1));
        bam.extend(record("sup", 0x800 | 0x10, "GG", Some(b"II"), 1));
        // absent qualities; an odd length; with a CIGAR
        bam.extend(record("r3", 0, "GAT", None, 2));
        bam.extend(record("empty", 4, "", None, 0));
        let recs = fastq(&bam).unwrap();
        let want: Vec<(&[u8], &[u8], &[u8])> = vec![
            (b"r1", b"ACGTN", b"!#+5I"),
            (b"r2", b"ACGTT", b"EDCBA"),
            (b"r3", b"GAT", b"\"\"\""),
            (b"empty", b"", b""),
        ];
        assert_eq!(recs.len(), want.len());
        for (got, want) in recs.iter().zip(want) {
            assert_eq!((&got.0[..], &got.1[..], &got.2[..]), want);
        }
        // a header without records
        assert!(fastq(&header()).unwrap().is_empty());
    }

    #[test]
    fn truncated_and_corrupt_bam_are_errors() {
        let mut bam = header();
        let h = bam.len();
        bam.extend(record("r1", 4, "ACGTN", Some(b"!#+5I"), 0));
        assert_eq!(fastq(&bam).unwrap().len(), 1);
        // cut anywhere: an error (a cut at the record's start is no record)
        for cut in 0..bam.len() {
            let r = fastq(&bam[..cut]);
            if cut == h {
                assert!(r.unwrap().is_empty());
            } else {
                assert!(matches!(r, Err(BamError::Format(_))), "{cut}");
            }
        }
        // bad magic
        let mut bad = bam.clone();
        bad[3] = 2;
        assert!(matches!(fastq(&bad), Err(BamError::Format(m)) if m.contains("magic")));
        // a huge block_size (no huge allocation: an error once the bytes end)
        for size in [u32::MAX, i32::MAX as u32, (DIRECT + 1) as u32, 100_000, 31] {
            let mut bad = bam.clone();
            bad[h..h + 4].copy_from_slice(&size.to_le_bytes());
            assert!(matches!(fastq(&bad), Err(BamError::Format(_))), "{size}");
        }
        // fields longer than the record
        let mut bad = bam.clone();
        bad[h + 4 + 16] = 200; // l_seq
        assert!(matches!(fastq(&bad), Err(BamError::Format(m)) if m.contains("longer than the record")));
        // a negative header length
        let mut bad = bam.clone();
        bad[4..8].copy_from_slice(&(-5i32).to_le_bytes());
        assert!(matches!(fastq(&bad), Err(BamError::Format(m)) if m.contains("negative")));
    }
}
