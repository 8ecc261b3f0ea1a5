//! Decompression by content, before needletail sees the bytes.
//!
//! needletail 0.7 detects and decompresses gzip, bzip2, xz and zstd itself,
//! but it cannot read a FASTA file whose last record is a header line with
//! nothing after it (`>a\nACGT\n>b\n`: an "unexpected end"), although such a
//! record is valid FASTA with an empty sequence. Closing a FASTA stream with
//! two line breaks makes that record readable (the header line ends and one
//! empty sequence line follows) and changes nothing else: needletail drops
//! line breaks from sequences, and the raw record text we write back is
//! trimmed of trailing line breaks. Appending has to happen after
//! decompression, so we decompress here, with the same decoders and the same
//! magic bytes as needletail, and hand it plain text. (needletail still
//! checks the magic bytes of what we hand it, so a file compressed twice
//! reads as its content; FASTA and FASTQ never start with those bytes.)
//!
//! BAM (`bam.rs`) is recognised here too, by the first four bytes of the
//! decompressed content (`BAM\1`; BGZF is multi-member gzip), and handed
//! on as a decompressed stream for the BAM reader instead of needletail.

use std::io::{self, BufRead, Cursor, Read};

const GZ_MAGIC: [u8; 2] = [0x1F, 0x8B];
const BZ_MAGIC: [u8; 2] = [0x42, 0x5A];
const XZ_MAGIC: [u8; 2] = [0xFD, 0x37];
const ZST_MAGIC: [u8; 2] = [0x28, 0xB5];

/// Whether the first two bytes of a file mark a compressed stream we read.
pub(crate) fn is_compressed(head: &[u8]) -> bool {
    matches!(head, [0x1F, 0x8B] | [0x42, 0x5A] | [0xFD, 0x37] | [0x28, 0xB5])
}

/// The plain text of a file, ready for needletail.
pub(crate) struct Plain<'a> {
    pub text: Box<dyn Read + Send + 'a>,
    /// Nothing but blank lines and `;` comment lines (or no bytes at all):
    /// zero records, as Biostrings reads it, not an error.
    pub empty: bool,
    /// Lines dropped before the first record (blank or `;` comment lines);
    /// needletail numbers lines from what it is handed, so its line numbers
    /// are shifted by this much.
    pub lines_skipped: u64,
    /// The content is BAM (`bam.rs`): `text` is the decompressed stream
    /// from its magic bytes on, for `bam::Reader`, not for needletail.
    pub bam: bool,
}

/// The plain text of `raw` (decompressed when its first bytes say so):
/// leading blank lines and `;` comment lines are dropped, as Biostrings'
/// `readDNAStringSet()` drops them (needletail wants `>` or `@` as the first
/// byte); FASTA (the first byte left is `>`) has its `;` comment lines
/// dropped everywhere and `\n\n` appended.
///
/// BGZF (gzip in blocks that say their size: BAM, `bgzip`) is inflated on
/// `threads` threads (`bgzf_reader.rs`), other compressions on this one.
pub(crate) fn plain_text<'a, R: Read + Send + 'a>(mut raw: R, threads: usize) -> io::Result<Plain<'a>> {
    // (a BGZF header is 18 bytes; the extra field may hold more subfields)
    let head = read_up_to(&mut raw, 64)?;
    let magic = [head.first().copied().unwrap_or(0), head.get(1).copied().unwrap_or(0)];
    let bgzf = super::bgzf_reader::is_bgzf(&head);
    let raw = Cursor::new(head).chain(raw);
    let mut text: Box<dyn Read + Send + 'a> = match magic {
        GZ_MAGIC if bgzf => Box::new(super::bgzf_reader::BgzfReader::new(raw, threads)?),
        GZ_MAGIC => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        BZ_MAGIC => Box::new(bzip2::read::BzDecoder::new(raw)),
        XZ_MAGIC => Box::new(liblzma::read::XzDecoder::new(raw)),
        ZST_MAGIC => Box::new(zstd::stream::read::Decoder::new(raw)?),
        _ => Box::new(raw),
    };
    // (compressed data cut before its first byte of text is an I/O error
    // here, "truncated or corrupt"; a valid stream of nothing is empty)
    // BAM (BGZF is multi-member gzip; or uncompressed) by its magic bytes,
    // which no FASTA/FASTQ text starts with
    let head = read_up_to(&mut text, 4)?;
    let bam = head == super::bam::MAGIC;
    let text = Cursor::new(head).chain(text);
    if bam && bgzf {
        // (the BGZF reader hands out whole inflated batches: no more buffering)
        return Ok(Plain { text: Box::new(text), empty: false, lines_skipped: 0, bam: true });
    }
    let mut text = io::BufReader::with_capacity(1 << 16, text);
    if bam {
        return Ok(Plain { text: Box::new(text), empty: false, lines_skipped: 0, bam: true });
    }
    let (first, lines_skipped) = skip_leading_lines(&mut text)?;
    Ok(match first {
        None => Plain { text: Box::new(io::empty()), empty: true, lines_skipped, bam: false },
        Some(b'>') => Plain {
            text: Box::new(CommentFilter { inner: text, line_start: true, skipping: false }.chain(Cursor::new(b"\n\n".as_slice()))),
            empty: false,
            lines_skipped,
            bam: false,
        },
        Some(_) => Plain { text: Box::new(text), empty: false, lines_skipped, bam: false },
    })
}

/// Consume the blank lines (only spaces, tabs, `\r`) and `;` comment lines
/// at the start of `r`; the first byte after them (not consumed), or `None`
/// at the end, and the number of lines consumed.
fn skip_leading_lines<R: BufRead>(r: &mut R) -> io::Result<(Option<u8>, u64)> {
    let mut lines = 0u64;
    // inside a comment line (skip to its end) or at a line's start
    let mut comment = false;
    loop {
        let buf = r.fill_buf()?;
        if buf.is_empty() {
            return Ok((None, lines));
        }
        let mut used = 0;
        for &b in buf {
            if b == b'\n' {
                lines += 1;
                comment = false;
            } else if !comment {
                match b {
                    b' ' | b'\t' | b'\r' => {}
                    b';' => comment = true,
                    _ => {
                        r.consume(used);
                        return Ok((Some(b), lines));
                    }
                }
            }
            used += 1;
        }
        r.consume(used);
    }
}

/// FASTA text without its `;` comment lines (Biostrings ignores them
/// anywhere in a FASTA file; to needletail they would be sequence letters).
struct CommentFilter<R> {
    inner: R,
    line_start: bool,
    skipping: bool,
}

impl<R: BufRead> Read for CommentFilter<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        if out.is_empty() {
            return Ok(0);
        }
        loop {
            let buf = self.inner.fill_buf()?;
            if buf.is_empty() {
                return Ok(0);
            }
            let (mut i, mut o) = (0, 0);
            while i < buf.len() && o < out.len() {
                if self.line_start {
                    self.skipping = buf[i] == b';';
                    self.line_start = false;
                }
                // up to and including the next line break
                let end = memchr::memchr(b'\n', &buf[i..]).map_or(buf.len(), |p| i + p + 1);
                let n = if self.skipping { end - i } else { (end - i).min(out.len() - o) };
                if !self.skipping {
                    out[o..o + n].copy_from_slice(&buf[i..i + n]);
                    o += n;
                }
                i += n;
                self.line_start = buf[i - 1] == b'\n';
            }
            self.inner.consume(i);
            if o > 0 {
                return Ok(o);
            }
        }
    }
}

/// Up to `n` bytes from the start of `r` (fewer only at its end): a single
/// `read` may return less than is there.
fn read_up_to<R: Read>(r: &mut R, n: usize) -> io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(n);
    r.by_ref().take(n as u64).read_to_end(&mut buf)?;
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn all(r: impl Read + Send) -> Vec<u8> {
        let mut out = Vec::new();
        plain_text(r, 1).unwrap().text.read_to_end(&mut out).unwrap();
        out
    }

    #[test]
    fn fasta_gets_two_line_breaks_other_text_is_unchanged() {
        assert_eq!(all(&b">a\nAC"[..]), b">a\nAC\n\n");
        assert_eq!(all(&b"@r\nAC\n+\nII\n"[..]), b"@r\nAC\n+\nII\n");
        assert_eq!(all(&b""[..]), b"");
        assert_eq!(all(&b">"[..]), b">\n\n");
        assert_eq!(all(&b"x"[..]), b"x");
    }

    #[test]
    fn leading_blank_and_comment_lines_are_dropped_and_fasta_comments_everywhere() {
        let p = plain_text(&b"\n \r\n;c\n>a\nAC\n;x\nGT\n;y"[..], 1).unwrap();
        assert_eq!((p.empty, p.lines_skipped), (false, 3));
        let mut out = Vec::new();
        // one byte at a time: a comment line split over many reads
        let mut text = p.text;
        let mut b = [0u8; 1];
        while text.read(&mut b).unwrap() == 1 {
            out.push(b[0]);
        }
        assert_eq!(out, b">a\nAC\nGT\n\n\n");
        // FASTQ: only the leading blank lines go; ';' is a quality letter
        assert_eq!(all(&b"\n@r\nAC\n+\n;;\n"[..]), b"@r\nAC\n+\n;;\n");
        for empty in [&b""[..], b"\n\n", b" \t\r\n", b";only\n;comments"] {
            let p = plain_text(empty, 1).unwrap();
            assert!(p.empty, "{empty:?}");
        }
        assert!(!plain_text(&b"x"[..], 1).unwrap().empty);
    }

    #[test]
    fn gzip_is_decompressed_before_the_line_breaks() {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b">a\nACGT\n>b").unwrap();
        let gz = enc.finish().unwrap();
        assert!(is_compressed(&gz[..2]));
        assert_eq!(all(Cursor::new(gz)), b">a\nACGT\n>b\n\n");
    }

    #[test]
    fn reads_that_return_one_byte_at_a_time_still_see_the_magic() {
        struct Trickle(Vec<u8>, usize);
        impl Read for Trickle {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                if self.1 >= self.0.len() || buf.is_empty() {
                    return Ok(0);
                }
                buf[0] = self.0[self.1];
                self.1 += 1;
                Ok(1)
            }
        }
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(b">a\nAC\n").unwrap();
        assert_eq!(all(Trickle(enc.finish().unwrap(), 0)), b">a\nAC\n\n\n");
    }
}
