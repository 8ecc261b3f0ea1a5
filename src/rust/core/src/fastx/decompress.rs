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

use std::io::{self, Cursor, Read};

const GZ_MAGIC: [u8; 2] = [0x1F, 0x8B];
const BZ_MAGIC: [u8; 2] = [0x42, 0x5A];
const XZ_MAGIC: [u8; 2] = [0xFD, 0x37];
const ZST_MAGIC: [u8; 2] = [0x28, 0xB5];

/// Whether the first two bytes of a file mark a compressed stream we read.
pub(crate) fn is_compressed(head: &[u8]) -> bool {
    matches!(head, [0x1F, 0x8B] | [0x42, 0x5A] | [0xFD, 0x37] | [0x28, 0xB5])
}

/// The plain text of `raw` (decompressed when its first bytes say so), with
/// `\n\n` appended when it is FASTA (its first byte is `>`).
pub(crate) fn plain_text<'a, R: Read + Send + 'a>(mut raw: R) -> io::Result<Box<dyn Read + Send + 'a>> {
    let head = read_up_to(&mut raw, 2)?;
    let magic = [head.first().copied().unwrap_or(0), head.get(1).copied().unwrap_or(0)];
    let raw = Cursor::new(head).chain(raw);
    let mut text: Box<dyn Read + Send + 'a> = match magic {
        GZ_MAGIC => Box::new(flate2::read::MultiGzDecoder::new(raw)),
        BZ_MAGIC => Box::new(bzip2::read::BzDecoder::new(raw)),
        XZ_MAGIC => Box::new(liblzma::read::XzDecoder::new(raw)),
        ZST_MAGIC => Box::new(zstd::stream::read::Decoder::new(raw)?),
        _ => Box::new(raw),
    };
    let first = match read_up_to(&mut text, 1) {
        // as needletail does: compressed data that ends before its first byte
        // of text is an empty file, not an I/O error
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(Box::new(io::empty())),
        r => r?,
    };
    let fasta = first.first() == Some(&b'>');
    let text = Cursor::new(first).chain(text);
    Ok(if fasta { Box::new(text.chain(Cursor::new(b"\n\n".as_slice()))) } else { Box::new(text) })
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
        plain_text(r).unwrap().read_to_end(&mut out).unwrap();
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
