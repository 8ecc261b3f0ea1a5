//! Unaligned BAM input (issue 39): a BAM file (BGZF blocks, as htslib
//! writes them, or uncompressed) reads, searches, filters and
//! demultiplexes exactly as the FASTQ file `samtools fastq` would write of
//! it; a truncated or corrupt BAM file is an error naming the file.
//! The BAM bytes are built here from the specification's layout; the R
//! tests check the same against Debian's samtools on real reads.

use ducksassy_core::fastx::demux::{demultiplex, DemuxSpec};
use ducksassy_core::fastx::{self, BatchSize, FastxError, Format, ParseKind, RecordRange, SearchOutput};
use ducksassy_core::{Control, Mode, SearchOptions, SearchPlan};
use std::io::Write;
use std::path::Path;

const NT16: &[u8; 16] = b"=ACMGRSVTWYHKDBN";

fn revcomp(s: &[u8]) -> Vec<u8> {
    s.iter()
        .rev()
        .map(|&c| match c {
            b'A' => b'T',
            b'C' => b'G',
            b'G' => b'C',
            b'T' => b'A',
            c => c,
        })
        .collect()
}

/// A read: name, sequence and qualities as `samtools fastq` writes them.
#[derive(Clone)]
struct Read {
    name: String,
    seq: Vec<u8>,
    qual: Vec<u8>,
}

/// A BAM record of `r` with `flag`: reversed ones stored reverse-complemented.
fn record(r: &Read, flag: u16) -> Vec<u8> {
    let rev = flag & 0x10 != 0;
    let seq = if rev { revcomp(&r.seq) } else { r.seq.clone() };
    let mut qual: Vec<u8> = r.qual.iter().map(|q| q - 33).collect();
    if rev {
        qual.reverse();
    }
    let mut b = Vec::new();
    for v in [-1i32, -1] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.push(r.name.len() as u8 + 1);
    b.push(0);
    b.extend_from_slice(&4680u16.to_le_bytes());
    b.extend_from_slice(&0u16.to_le_bytes());
    b.extend_from_slice(&flag.to_le_bytes());
    b.extend_from_slice(&(seq.len() as u32).to_le_bytes());
    for v in [-1i32, -1, 0] {
        b.extend_from_slice(&v.to_le_bytes());
    }
    b.extend_from_slice(r.name.as_bytes());
    b.push(0);
    let codes: Vec<u8> = seq.iter().map(|c| NT16.iter().position(|x| x == c).unwrap() as u8).collect();
    for p in codes.chunks(2) {
        b.push(p[0] << 4 | p.get(1).copied().unwrap_or(0));
    }
    b.extend(qual);
    // tags, as dorado writes some
    b.extend_from_slice(b"qsf\0\0\x20\x41chi\x05\0\0\0");
    let mut out = (b.len() as u32).to_le_bytes().to_vec();
    out.extend(b);
    out
}

fn header() -> Vec<u8> {
    let text = b"@HD\tVN:1.6\tSO:unknown\n@PG\tID:basecaller\tPN:dorado\n";
    let mut h = b"BAM\x01".to_vec();
    h.extend_from_slice(&(text.len() as i32).to_le_bytes());
    h.extend_from_slice(text);
    h.extend_from_slice(&0i32.to_le_bytes());
    h
}

/// Uncompressed BAM bytes of `reads` (every third one stored reversed),
/// with a secondary and a supplementary record after the first.
fn bam_bytes(reads: &[Read]) -> Vec<u8> {
    let mut b = header();
    for (i, r) in reads.iter().enumerate() {
        b.extend(record(r, if i % 3 == 1 { 0x10 | 4 } else { 4 }));
        if i == 0 {
            b.extend(record(r, 0x100));
            b.extend(record(r, 0x800 | 0x10));
        }
    }
    b
}

/// BGZF: gzip members with the `BC` extra field of at most `block` bytes
/// of data each, and the empty end-of-file member.
fn bgzf(data: &[u8], block: usize) -> Vec<u8> {
    let mut out = Vec::new();
    for chunk in data.chunks(block).chain([&b""[..]]) {
        let mut e = flate2::GzBuilder::new().extra(vec![b'B', b'C', 2, 0, 0, 0]).write(Vec::new(), flate2::Compression::default());
        e.write_all(chunk).unwrap();
        let mut m = e.finish().unwrap();
        // BSIZE: the member's size - 1 (what htslib checks; flate2 ignores)
        let bsize = (m.len() - 1) as u16;
        m[16..18].copy_from_slice(&bsize.to_le_bytes());
        out.extend(m);
    }
    out
}

fn fastq_bytes(reads: &[Read]) -> Vec<u8> {
    let mut t = Vec::new();
    for r in reads {
        t.push(b'@');
        t.extend_from_slice(r.name.as_bytes());
        t.push(b'\n');
        t.extend_from_slice(&r.seq);
        t.extend_from_slice(b"\n+\n");
        t.extend_from_slice(&r.qual);
        t.push(b'\n');
    }
    t
}

/// Reads of 0 to 300 bases with barcodes `ACGTACGTAC` (forward) or
/// `TTGGCCAATT` (either strand) in some, from a fixed seed.
fn reads(n: usize) -> Vec<Read> {
    let mut x: u64 = 0x9E3779B97F4A7C15;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let len = (next() % 300) as usize;
            let mut seq: Vec<u8> = (0..len).map(|_| b"ACGT"[(next() % 4) as usize]).collect();
            if len > 40 {
                match i % 4 {
                    0 => seq[5..15].copy_from_slice(b"ACGTACGTAC"),
                    1 => seq[20..30].copy_from_slice(b"TTGGCCAATT"),
                    2 => seq[len - 15..len - 5].copy_from_slice(&revcomp(b"TTGGCCAATT")),
                    _ => {}
                }
            }
            if i == 7 && len > 0 {
                seq[0] = b'N';
            }
            let qual = (0..len).map(|_| 33 + (next() % 60) as u8).collect();
            Read { name: format!("read_{i}-{:x}", next() % 65536), seq, qual }
        })
        .collect()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

fn plan(mode: Mode, patterns: &[&str], k: i64) -> SearchPlan {
    let opts = SearchOptions { k, mode, threads: 2, rc: true, ..Default::default() };
    let p: Vec<&[u8]> = patterns.iter().map(|s| s.as_bytes()).collect();
    SearchPlan::new(&opts, &p).unwrap()
}

fn read_all(path: &str, size: BatchSize) -> Result<fastx::Records, FastxError> {
    fastx::read(path, None, size, &Control::new(), &mut || false)
}

/// A dir with the same reads as FASTQ, BGZF BAM and uncompressed BAM.
fn inputs(n: usize) -> (tempfile::TempDir, Vec<Read>, String, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let rs = reads(n);
    let fq = write(dir.path(), "reads.fastq", &fastq_bytes(&rs));
    let bam = write(dir.path(), "reads.bam", &bgzf(&bam_bytes(&rs), 4000));
    let ubam = write(dir.path(), "reads.ubam", &bam_bytes(&rs));
    (dir, rs, fq, bam, ubam)
}

#[test]
fn bam_reads_as_the_fastq_samtools_writes() {
    let (_d, rs, fq, bam, ubam) = inputs(200);
    for path in [&bam, &ubam] {
        for size in [BatchSize { bytes: 1, records: 1 }, BatchSize { bytes: 5000, records: 7 }, BatchSize::default()] {
            let r = read_all(path, size).unwrap();
            assert_eq!(r.format, Some(Format::Fastq));
            assert_eq!(r.seq.len(), rs.len());
            for (i, want) in rs.iter().enumerate() {
                assert_eq!(r.header.get(i), want.name.as_bytes());
                assert_eq!(r.seq.get(i), &want.seq[..], "{i}");
                assert_eq!(r.qual.get(i), &want.qual[..], "{i}");
            }
        }
    }
    let f = read_all(&fq, BatchSize::default()).unwrap();
    let b = read_all(&bam, BatchSize::default()).unwrap();
    assert_eq!((f.header, f.seq, f.qual), (b.header, b.seq, b.qual));
    // n_max, ranges and record counts as for the FASTQ
    let b = fastx::read(&bam, Some(3), BatchSize::default(), &Control::new(), &mut || false).unwrap();
    assert_eq!(b.seq.iter().collect::<Vec<_>>(), rs[..3].iter().map(|r| &r.seq[..]).collect::<Vec<_>>());
    let counts = fastx::count(&[bam.clone(), fq.clone(), ubam.clone()], &Control::new(), &mut || false).unwrap();
    assert_eq!(counts, vec![200, 200, 200]);
}

fn values(out: SearchOutput) -> (Vec<Vec<i32>>, Vec<u64>, Vec<Vec<u8>>) {
    let SearchOutput::Values(v) = out else { panic!("values") };
    (v.values, v.records_per_file, v.names.iter().map(|n| n.to_vec()).collect())
}

#[test]
fn searches_of_bam_and_fastq_agree() {
    let (_d, _rs, fq, bam, ubam) = inputs(150);
    let pats = ["ACGTACGTAC", "TTGGCCAATT"];
    for size in [BatchSize { bytes: 3000, records: 11 }, BatchSize::default()] {
        let ctl = Control::new();
        let p = plan(Mode::Count, &pats, 1);
        let f = values(fastx::search(&p, std::slice::from_ref(&fq), size, &ctl, &mut || false).unwrap());
        assert!(f.0.iter().flatten().filter(|&&c| c > 0).count() > 50);
        for path in [&bam, &ubam] {
            let b = values(fastx::search(&p, std::slice::from_ref(path), size, &ctl, &mut || false).unwrap());
            assert_eq!(f, b);
        }
        // hits, in a record range
        let range = RecordRange { skip: 10, n: Some(100) };
        let p = plan(Mode::Hits, &pats, 1);
        let hits = |path: &String| {
            let SearchOutput::Hits(h) = fastx::search_range(&p, std::slice::from_ref(path), range, size, &ctl, &mut || false).unwrap() else { panic!() };
            let rows: Vec<_> = h.bufs.iter().flat_map(|b| (0..b.len()).map(move |i| (b.record[i], b.pattern[i], b.start[i], b.end[i], b.minus[i]))).collect();
            (rows, h.names, h.records_per_file)
        };
        let hf = hits(&fq);
        assert!(!hf.0.is_empty());
        assert_eq!(hf, hits(&bam));
        // assign
        let p = plan(Mode::Assign, &pats, 1);
        let best = |path: &String| {
            let SearchOutput::Best(b) = fastx::search(&p, std::slice::from_ref(path), size, &ctl, &mut || false).unwrap() else { panic!() };
            (b.best.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>(), b.names)
        };
        assert_eq!(best(&fq), best(&bam));
    }
}

#[test]
fn filtering_and_demultiplexing_a_bam_write_its_fastq() {
    let (d, _rs, fq, bam, _ubam) = inputs(120);
    let ctl = Control::new();
    let p = plan(Mode::Contains, &["ACGTACGTAC", "TTGGCCAATT"], 1);
    let size = BatchSize { bytes: 2000, records: 9 };
    for invert in [false, true] {
        let out_f = d.path().join(format!("f{invert}.fastq")).to_string_lossy().into_owned();
        let out_b = d.path().join(format!("b{invert}.fastq")).to_string_lossy().into_owned();
        let cf = fastx::filter(&p, &fq, &out_f, None, invert, size, &ctl, &mut || false).unwrap();
        let cb = fastx::filter(&p, &bam, &out_b, None, invert, size, &ctl, &mut || false).unwrap();
        assert_eq!(cf, cb);
        assert!(cf.written > 0);
        assert_eq!(std::fs::read(&out_f).unwrap(), std::fs::read(&out_b).unwrap());
    }
    let p = plan(Mode::Assign, &["ACGTACGTAC", "TTGGCCAATT"], 1);
    for trim in [false, true] {
        let outs = |tag: &str| -> Vec<String> {
            ["s1.fastq", "s2.fastq.gz", "un.fastq", "amb.fastq"].iter().map(|n| d.path().join(format!("{tag}{trim}_{n}")).to_string_lossy().into_owned()).collect()
        };
        let run = |input: &String, tag: &str| {
            let spec = DemuxSpec { outputs: outs(tag), mate_outputs: None, sample_of_pattern: vec![0, 1], unassigned: 2, ambiguous: 3, margin: 0, trim, gzip_level: 2, report: None, ends: None };
            let counts = demultiplex(&p, std::slice::from_ref(input), None, &spec, size, &ctl, &mut || false).unwrap();
            let texts: Vec<Vec<u8>> = outs(tag)
                .iter()
                .map(|o| {
                    let raw = std::fs::read(o).unwrap();
                    if o.ends_with(".gz") {
                        let mut t = Vec::new();
                        std::io::Read::read_to_end(&mut flate2::read::MultiGzDecoder::new(&raw[..]), &mut t).unwrap();
                        t
                    } else {
                        raw
                    }
                })
                .collect();
            (counts, texts)
        };
        let (cf, tf) = run(&fq, "f");
        let (cb, tb) = run(&bam, "b");
        assert_eq!(cf, cb);
        assert!(cf[0] > 0 && cf[1] > 0 && cf[2] > 0, "{cf:?}");
        assert_eq!(tf, tb);
    }
}

fn error(bytes: &[u8]) -> FastxError {
    let d = tempfile::tempdir().unwrap();
    let path = write(d.path(), "bad.bam", bytes);
    let e = read_all(&path, BatchSize { bytes: 100, records: 2 }).unwrap_err();
    assert_eq!(e.path(), Some(path.as_str()), "{e}");
    // every verb that reads: the same error
    let p = plan(Mode::Count, &["ACGT"], 0);
    let e2 = fastx::search(&p, std::slice::from_ref(&path), BatchSize { bytes: 100, records: 2 }, &Control::new(), &mut || false).unwrap_err();
    assert_eq!(e, e2);
    e
}

#[test]
fn truncated_and_corrupt_bam_files_are_errors_naming_the_file() {
    let rs = reads(40);
    let raw = bam_bytes(&rs);
    let h = header().len();
    // cut inside the header, inside a record: uncompressed, and cut BGZF
    // data at the same place, compressed in whole blocks (clean gzip)
    for cut in [6, h - 2, h + 3, h + 50, raw.len() - 1] {
        for bytes in [raw[..cut].to_vec(), bgzf(&raw[..cut], 1000)] {
            let e = error(&bytes);
            assert_eq!(e.parse_kind(), Some(ParseKind::Bam), "{cut}: {e}");
            assert!(e.to_string().contains("truncated"), "{e}");
        }
    }
    // BGZF cut in the middle of a block: a gzip (I/O) error
    let z = bgzf(&raw, 1000);
    for cut in [z.len() / 2, z.len() - 40] {
        let e = error(&z[..cut]);
        assert!(matches!(e.parse_kind(), Some(ParseKind::Io | ParseKind::Bam)), "{e}");
    }
    // records before the error are not returned: the error is at the record
    let e = error(&bgzf(&raw[..raw.len() - 1], 1000));
    assert_eq!(e.record(), Some(40));
    // a bad magic number is not BAM: neither FASTA nor FASTQ
    let mut bad = raw.clone();
    bad[3] = 2;
    assert_eq!(error(&bgzf(&bad, 1000)).parse_kind(), Some(ParseKind::UnknownFormat));
    // a huge block_size (no allocation of it), one below the fixed part
    for size in [u32::MAX, 0x7FFF_FFFF, 0x1000_0000, 31] {
        let mut bad = raw.clone();
        bad[h..h + 4].copy_from_slice(&size.to_le_bytes());
        let e = error(&bgzf(&bad, 1000));
        assert_eq!((e.parse_kind(), e.record()), (Some(ParseKind::Bam), Some(1)), "{e}");
    }
    // a header whose length is negative
    let mut bad = raw.clone();
    bad[4..8].copy_from_slice(&(-1i32).to_le_bytes());
    let e = error(&bad);
    assert_eq!((e.parse_kind(), e.record()), (Some(ParseKind::Bam), None), "{e}");
}
