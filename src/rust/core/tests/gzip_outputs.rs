//! gzip outputs of `filter` and `demultiplex`, compressed in blocks on
//! several threads: they decompress (flate2's `MultiGzDecoder`, every
//! member) to exactly the bytes of the plain outputs of the same run, for
//! every level and thread count; they are BGZF (members of at most 64 KiB,
//! the `BC` field, the end-of-file member last); an empty output is the end
//! member alone; records larger than a block and many outputs (98) keep
//! their order.

use ducksassy_core::fastx::demux::{demultiplex, DemuxSpec};
use ducksassy_core::fastx::{self, BatchSize};
use ducksassy_core::{Control, Mode, SearchOptions, SearchPlan};
use std::io::Read;
use std::path::Path;

mod common;

fn gunzip(path: &str) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap()).read_to_end(&mut out).unwrap();
    out
}

/// BGZF's end-of-file member (the SAM/BAM specification, 4.1.2).
const EOF: [u8; 28] = [0x1f, 0x8b, 8, 4, 0, 0, 0, 0, 0, 0xff, 6, 0, b'B', b'C', 2, 0, 0x1b, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/// The uncompressed sizes of the members of a BGZF file, checking each
/// member's header and `BC` size; the last must be the end member.
fn bgzf_members(path: &str) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    let (mut at, mut sizes) = (0, Vec::new());
    while at < bytes.len() {
        let m = &bytes[at..];
        assert_eq!(&m[..4], &[0x1f, 0x8b, 8, 4], "{path}: a gzip member with extra fields at {at}");
        assert_eq!(&m[10..16], &[6, 0, b'B', b'C', 2, 0], "{path}: the BC field at {at}");
        let size = u16::from_le_bytes([m[16], m[17]]) as usize + 1;
        sizes.push(u32::from_le_bytes(m[size - 4..size].try_into().unwrap()) as usize);
        at += size;
    }
    assert_eq!(at, bytes.len());
    assert!(bytes.ends_with(&EOF), "{path}: no end-of-file member");
    assert!(sizes.iter().all(|&s| s <= 0xff00));
    sizes
}


/// 100 barcodes of 16 bases, and FASTQ reads of 50 to 3,000 bases (a few of
/// 150,000, larger than a block) that carry one of them, or none.
fn workload(dir: &Path) -> (Vec<String>, String, usize) {
    let mut rng = common::XorShift(0x9e3779b97f4a7c15);
    let barcodes: Vec<String> = (0..100).map(|_| rng.bases(16)).collect();
    let mut fq = String::new();
    // (fewer under valgrind: tools/memcheck.sh; still a read of 150,000)
    let n = common::scaled(1500).max(100);
    for i in 0..n {
        let len = if i % 300 == 7 { 150_000 } else { 50 + (rng.next() % 2950) as usize };
        let mut seq = rng.bases(len);
        if i % 10 != 3 {
            let b = &barcodes[(rng.next() % 100) as usize];
            let at = (rng.next() % (len as u64 - 16).min(40)) as usize;
            seq.replace_range(at..at + 16, b);
        }
        let qual: String = (0..len).map(|_| (b'!' + (rng.next() % 40) as u8) as char).collect();
        fq.push_str(&format!("@read{i} some description\n{seq}\n+\n{qual}\n"));
    }
    let p = dir.join("reads.fq");
    std::fs::write(&p, fq).unwrap();
    (barcodes, p.to_string_lossy().into_owned(), n)
}

fn plan(mode: Mode, patterns: &[String], k: i64, threads: usize) -> SearchPlan {
    // (the barcodes are within the first 56 bases: search the ends, fast)
    let opts = SearchOptions { k, mode, threads, ends: Some((100, 100)), ..Default::default() };
    let p: Vec<&[u8]> = patterns.iter().map(|s| s.as_bytes()).collect();
    SearchPlan::new(&opts, &p).unwrap()
}

fn demux(barcodes: &[String], reads: &str, dir: &Path, suffix: &str, threads: usize, level: u32) -> (Vec<String>, Vec<u64>) {
    // pattern i to sample i, then unassigned, ambiguous, and an output no
    // pattern goes to (always empty)
    let n = barcodes.len();
    let outputs: Vec<String> = (0..n + 3).map(|i| dir.join(format!("s{i}.fq{suffix}")).to_string_lossy().into_owned()).collect();
    let spec = DemuxSpec {
        outputs: outputs.clone(),
        mate_outputs: None,
        sample_of_pattern: (0..n).collect(),
        unassigned: n,
        ambiguous: n + 1,
        margin: 0,
        trim: false,
        gzip_level: level,
        report: None,
        ends: None,
    };
    let pl = plan(Mode::Assign, barcodes, 2, threads);
    let counts = demultiplex(&pl, &[reads.to_string()], None, &spec, BatchSize { bytes: 1 << 20, records: 300 }, &Control::new(), &mut || false).unwrap();
    (outputs, counts)
}

#[test]
fn demultiplexed_gzip_outputs_hold_the_plain_outputs_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (barcodes, reads, n) = workload(dir.path());
    let plain_dir = dir.path().join("plain");
    std::fs::create_dir(&plain_dir).unwrap();
    let (plain, want_counts) = demux(&barcodes, &reads, &plain_dir, "", 2, 2);
    assert_eq!(want_counts.iter().sum::<u64>(), n as u64);
    let want: Vec<Vec<u8>> = plain.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert_eq!(want.iter().map(|w| w.len()).sum::<usize>(), std::fs::metadata(&reads).unwrap().len() as usize);
    // the records larger than a block went somewhere, and most outputs got some
    assert!(want.iter().any(|w| w.len() > 3 * 0xff00));
    assert!(want.iter().filter(|w| !w.is_empty()).count() > if n >= 1000 { 90 } else { 10 });
    for (threads, level) in [(1, 2), (2, 2), (3, 1), (2, 6)] {
        let gz_dir = dir.path().join(format!("gz-{threads}-{level}"));
        std::fs::create_dir(&gz_dir).unwrap();
        let (gz, counts) = demux(&barcodes, &reads, &gz_dir, ".gz", threads, level);
        assert_eq!(counts, want_counts, "threads {threads}");
        for (i, p) in gz.iter().enumerate() {
            assert_eq!(gunzip(p), want[i], "{p}");
            let sizes = bgzf_members(p);
            assert_eq!(sizes.iter().sum::<usize>(), want[i].len());
            assert_eq!(sizes.len(), want[i].len().div_ceil(0xff00) + 1, "{p}: full blocks but the last");
        }
        // the output no record went to: the end member alone
        assert_eq!(std::fs::read(gz.last().unwrap()).unwrap(), EOF);
        // no temporary files left
        assert_eq!(std::fs::read_dir(&gz_dir).unwrap().count(), gz.len());
    }
}

#[test]
fn filtered_gzip_output_holds_the_plain_outputs_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (barcodes, reads, n) = workload(dir.path());
    let run = |out: &str, gzip: Option<u32>, threads: usize| {
        let pl = plan(Mode::Contains, &barcodes, 1, threads);
        fastx::filter(&pl, &reads, out, gzip, false, BatchSize { bytes: 1 << 20, records: 200 }, &Control::new(), &mut || false).unwrap()
    };
    let plain = dir.path().join("out.fq").to_string_lossy().into_owned();
    let c = run(&plain, None, 2);
    let want = std::fs::read(&plain).unwrap();
    // (the barcoded reads, a read of 150,000 bases among them)
    assert!(c.written as usize > n / 2 && want.len() > 2 * 0xff00);
    for (threads, level) in [(1, 1), (2, 2), (4, 9)] {
        let gz = dir.path().join(format!("out-{threads}-{level}.fq.gz")).to_string_lossy().into_owned();
        assert_eq!(run(&gz, Some(level), threads), c);
        assert_eq!(gunzip(&gz), want);
        assert_eq!(bgzf_members(&gz).iter().sum::<usize>(), want.len());
    }
    // no record written: a valid gzip file of nothing
    let none = dir.path().join("none.fq.gz").to_string_lossy().into_owned();
    let pl = plan(Mode::Contains, &["ACGTACGTACGTACGTACGTACGTACGTAC".to_string()], 0, 2);
    let c = fastx::filter(&pl, &reads, &none, Some(4), false, BatchSize::default(), &Control::new(), &mut || false).unwrap();
    assert_eq!(c.written, 0);
    assert_eq!(std::fs::read(&none).unwrap(), EOF);
    assert!(gunzip(&none).is_empty());
}

#[test]
fn a_level_outside_1_to_9_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let reads = dir.path().join("r.fq");
    std::fs::write(&reads, "@a\nACGT\n+\nIIII\n").unwrap();
    let out = dir.path().join("o.fq.gz").to_string_lossy().into_owned();
    let pl = plan(Mode::Contains, &["ACGT".to_string()], 0, 1);
    for level in [0, 10] {
        let r = fastx::filter(&pl, &reads.to_string_lossy(), &out, Some(level), false, BatchSize::default(), &Control::new(), &mut || false);
        assert!(r.is_err());
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}
