//! FASTA/FASTQ streaming on the package's real fixtures (lambda phage reads
//! and genome from Debian's bowtie2-examples): reading agrees with an
//! independent parser, file search equals the engine on the same texts for
//! every batch size and thread count, compressed copies give identical
//! results, filtering writes records byte for byte, and every bad input is an
//! error naming the file and the record.

use ducksassy_core::fastx::{self, BatchSize, FastxError, Format, ParseKind, SearchOutput};
use ducksassy_core::{run, Alphabet, Control, CoreError, HitBuffer, Mode, Output, SearchOptions, SearchPlan};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

fn extdata(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../inst/extdata").join(name)
}

fn gunzip(path: &Path) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::MultiGzDecoder::new(std::fs::File::open(path).unwrap()).read_to_end(&mut out).unwrap();
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

/// The plain text of a fixture.
fn fixture_text(name: &str) -> Vec<u8> {
    let p = extdata(name);
    if name.ends_with(".gz") {
        gunzip(&p)
    } else {
        std::fs::read(p).unwrap()
    }
}

/// A record parsed independently of needletail: its text (lines joined with
/// their `\n`), header (after `>`/`@`), sequence, quality.
#[derive(Debug, Clone, PartialEq)]
struct Rec {
    text: Vec<u8>,
    header: Vec<u8>,
    seq: Vec<u8>,
    qual: Option<Vec<u8>>,
}

/// Simple parser for well-formed `\n`-terminated files: FASTQ as 4 lines per
/// record, FASTA as a header line and the lines up to the next header.
fn parse_simple(text: &[u8]) -> Vec<Rec> {
    let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    let lines = &lines[..lines.len() - usize::from(lines.last() == Some(&&b""[..]))];
    let mut recs = Vec::new();
    if text[0] == b'@' {
        for l in lines.chunks(4) {
            let mut t = Vec::new();
            for x in l {
                t.extend_from_slice(x);
                t.push(b'\n');
            }
            recs.push(Rec { text: t, header: l[0][1..].to_vec(), seq: l[1].to_vec(), qual: Some(l[3].to_vec()) });
        }
    } else {
        for l in lines {
            if l.first() == Some(&b'>') {
                recs.push(Rec { text: Vec::new(), header: l[1..].to_vec(), seq: Vec::new(), qual: None });
            } else {
                recs.last_mut().unwrap().seq.extend_from_slice(l);
            }
            let r = recs.last_mut().unwrap();
            r.text.extend_from_slice(l);
            r.text.push(b'\n');
        }
    }
    recs
}

fn tmpdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap()
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_string_lossy().into_owned()
}

fn no_poll() -> impl FnMut() -> bool {
    || false
}

fn plan(mode: Mode, patterns: &[&str], k: i64, threads: usize) -> SearchPlan {
    let opts = SearchOptions { k, mode, threads, ..Default::default() };
    let p: Vec<&[u8]> = patterns.iter().map(|s| s.as_bytes()).collect();
    SearchPlan::new(&opts, &p).unwrap()
}

fn read_all(path: &str) -> fastx::Records {
    fastx::read(path, None, BatchSize::default(), &Control::new(), &mut no_poll()).unwrap()
}

fn search(plan: &SearchPlan, paths: &[String], size: BatchSize) -> Result<SearchOutput, FastxError> {
    fastx::search(plan, paths, size, &Control::new(), &mut no_poll())
}

/// Hits as one buffer with (file, record) made into one 0-based record number
/// over all files, given the record counts of the files.
fn flat_hits(out: SearchOutput, file_offsets: &[u32]) -> (HitBuffer, Vec<Vec<u8>>) {
    let SearchOutput::Hits(h) = out else { panic!("expected hits") };
    let mut all = HitBuffer::default();
    for (b, &f) in h.bufs.iter().zip(&h.buf_file) {
        let mut b = b.clone();
        for r in b.record.iter_mut() {
            *r += file_offsets[f as usize];
        }
        all.extend_all(&b);
    }
    (all, h.names.iter().map(|n| n.to_vec()).collect())
}

fn engine_hits(plan: &SearchPlan, texts: &[Vec<u8>]) -> HitBuffer {
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
    let Output::Hits(bufs) = run(plan, &t, &Control::new(), None).unwrap() else { panic!() };
    let mut all = HitBuffer::default();
    for b in &bufs {
        all.extend_all(b);
    }
    all
}

fn engine_values(plan: &SearchPlan, texts: &[Vec<u8>]) -> Vec<i32> {
    let t: Vec<Option<&[u8]>> = texts.iter().map(|t| Some(t.as_slice())).collect();
    let Output::Values(v) = run(plan, &t, &Control::new(), None).unwrap() else { panic!() };
    v
}

const FASTQ: &str = "lambda_reads_1.fq.gz";
const LONG: &str = "lambda_longreads.fq.gz";
const FASTA: &str = "lambda_virus.fa";

fn path_of(name: &str) -> String {
    extdata(name).to_string_lossy().into_owned()
}

const SIZES: [BatchSize; 5] = [
    BatchSize { bytes: 2 << 20, records: 1 << 15 },
    BatchSize { bytes: 64 << 20, records: 1 << 20 },
    BatchSize { bytes: 1, records: 1 << 16 },
    BatchSize { bytes: 1000, records: 1 << 16 },
    BatchSize { bytes: 8 << 20, records: 7 },
];

#[test]
fn reading_the_fixtures_agrees_with_a_simple_parser() {
    for name in [FASTQ, LONG, FASTA] {
        let want = parse_simple(&fixture_text(name));
        for size in SIZES {
            let got = fastx::read(&path_of(name), None, size, &Control::new(), &mut no_poll()).unwrap();
            assert_eq!(got.format, Some(if name == FASTA { Format::Fasta } else { Format::Fastq }));
            assert_eq!(got.seq.len(), want.len(), "{name}");
            for (i, w) in want.iter().enumerate() {
                assert_eq!(got.header.get(i), &w.header[..]);
                assert_eq!(got.seq.get(i), &w.seq[..]);
                if let Some(q) = &w.qual {
                    assert_eq!(got.qual.get(i), &q[..]);
                }
            }
            if name == FASTA {
                assert!(got.qual.is_empty());
            }
        }
    }
    // the real files: 200 short reads, 30 long reads, 3 records of 2,100 bp
    assert_eq!(read_all(&path_of(FASTQ)).seq.len(), 200);
    assert_eq!(read_all(&path_of(LONG)).seq.len(), 30);
    let fa = read_all(&path_of(FASTA));
    assert_eq!(fa.seq.iter().map(|s| s.len()).collect::<Vec<_>>(), vec![2100; 3]);
}

#[test]
fn n_max_limits_the_records() {
    let p = path_of(FASTQ);
    for n in [0u64, 1, 5, 200, 1000] {
        for size in SIZES {
            let got = fastx::read(&p, Some(n), size, &Control::new(), &mut no_poll()).unwrap();
            assert_eq!(got.seq.len() as u64, n.min(200));
            assert_eq!(got.format, Some(Format::Fastq));
        }
    }
}

#[test]
fn file_search_equals_the_engine_for_every_batch_size_and_thread_count() {
    let names = [FASTQ, LONG, FASTA];
    let paths: Vec<String> = names.iter().map(|n| path_of(n)).collect();
    let recs: Vec<fastx::Records> = paths.iter().map(|p| read_all(p)).collect();
    let texts: Vec<Vec<u8>> = recs.iter().flat_map(|r| r.seq.iter().map(|s| s.to_vec()).collect::<Vec<_>>()).collect();
    let mut offsets = vec![0u32];
    for r in &recs {
        offsets.push(offsets.last().unwrap() + r.seq.len() as u32);
    }
    // 10-mers of reads and of the genome (many hits), a poly-T, and four of
    // equal length (a batched group)
    let pick = |t: &[u8], at: usize| String::from_utf8(t[at..at + 10].to_vec()).unwrap();
    let owned = [
        "GGGCGGCGACCTCGC".to_string(),
        "TTTTTTTTTTTTTTTTTTTTTTTTT".to_string(),
        pick(&texts[0], 20),
        pick(&texts[57], 40),
        pick(&texts[201], 300),
        pick(&texts[231], 1000),
        pick(&texts[3], 3),
    ];
    let patterns: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
    let patterns = &patterns[..];
    for k in [0i64, 2] {
        let want_hits = engine_hits(&plan(Mode::Hits, patterns, k, 1), &texts);
        assert!(want_hits.len() > 20, "the patterns should hit: {}", want_hits.len());
        let want_counts = engine_values(&plan(Mode::Count, patterns, k, 1), &texts);
        let want_contains = engine_values(&plan(Mode::Contains, patterns, k, 1), &texts);
        for threads in [1, 2, 3] {
            for size in SIZES {
                let (got, names) = flat_hits(search(&plan(Mode::Hits, patterns, k, threads), &paths, size).unwrap(), &offsets);
                assert_eq!(got, want_hits, "k={k} threads={threads} size={size:?}");
                // one name per record with hits, in order
                let mut want_names = Vec::new();
                let mut last = None;
                for &r in &want_hits.record {
                    if last != Some(r) {
                        let f = offsets.iter().rposition(|&o| o <= r).unwrap();
                        let hdr = recs[f].header.get((r - offsets[f]) as usize);
                        want_names.push(fastx::split_header(hdr).0.to_vec());
                        last = Some(r);
                    }
                }
                assert_eq!(names, want_names);
                for (mode, want) in [(Mode::Count, &want_counts), (Mode::Contains, &want_contains)] {
                    let SearchOutput::Values(v) = search(&plan(mode, patterns, k, threads), &paths, size).unwrap() else { panic!() };
                    let flat: Vec<i32> = v.values.concat();
                    assert_eq!(&flat, want);
                    assert_eq!(v.records_per_file, recs.iter().map(|r| r.seq.len() as u64).collect::<Vec<_>>());
                    assert_eq!(v.names.len(), texts.len());
                    assert_eq!(v.names.get(0), b"r1");
                }
            }
        }
    }
}

#[test]
fn default_batch_sizes_grow_with_threads() {
    assert_eq!(BatchSize::default(), BatchSize { bytes: 2 << 20, records: 1 << 15 });
    assert_eq!(BatchSize::for_threads(2), BatchSize::default());
    assert_eq!(BatchSize::for_threads(8).bytes, 8 << 20);
    assert_eq!(BatchSize::for_threads(1000).bytes, 64 << 20);
}

#[test]
fn record_numbers_restart_in_each_file() {
    let p = path_of(FASTQ);
    let paths = vec![p.clone(), p];
    let pl = plan(Mode::Hits, &["GGGCGGCGACC", "CCGGCGAACT"], 1, 2);
    let SearchOutput::Hits(h) = search(&pl, &paths, BatchSize { bytes: 2000, records: 1000 }).unwrap() else { panic!() };
    let mut per_file: [Vec<u32>; 2] = Default::default();
    for (b, &f) in h.bufs.iter().zip(&h.buf_file) {
        per_file[f as usize].extend_from_slice(&b.record);
    }
    assert!(!per_file[0].is_empty());
    assert_eq!(per_file[0], per_file[1]);
    assert!(per_file[0].iter().all(|&r| r < 200));
}

/// Every compression needletail supports, made with the command-line tools
/// (skipped, with a note, where a tool is missing).
fn compressed_copies(dir: &Path, name: &str, plain: &[u8]) -> Vec<String> {
    let base = write(dir, name, plain);
    let mut out = vec![base.clone(), write(dir, &format!("{name}.gz"), &gzip(plain))];
    for (tool, ext) in [("bzip2", "bz2"), ("xz", "xz"), ("zstd", "zst")] {
        let target = format!("{base}.{ext}");
        let ok = std::process::Command::new(tool)
            .args(["-k", "-c", &base])
            .stdout(std::fs::File::create(&target).unwrap())
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        if ok {
            out.push(target);
        } else {
            eprintln!("note: `{tool}` is not available; {ext} not tested");
        }
    }
    // no suffix: compression is detected from the content
    let odd = format!("{base}.data");
    std::fs::copy(&out[1], &odd).unwrap();
    out.push(odd);
    out
}

#[test]
fn compressed_copies_give_identical_results() {
    let dir = tmpdir();
    for name in [FASTQ, FASTA] {
        let plain = fixture_text(name);
        let copies = compressed_copies(dir.path(), &format!("x-{}", name.trim_end_matches(".gz")), &plain);
        assert!(copies.len() >= 3);
        let pl = plan(Mode::Hits, &["GGGCGGCGACCTCGC", "CCGGCGAACT"], 2, 2);
        let want = flat_hits(search(&pl, &copies[..1], BatchSize::default()).unwrap(), &[0]);
        assert!(!want.0.is_empty());
        let want_read = read_all(&copies[0]);
        for c in &copies[1..] {
            for size in [BatchSize::default(), BatchSize { bytes: 500, records: 3 }] {
                assert_eq!(flat_hits(search(&pl, std::slice::from_ref(c), size).unwrap(), &[0]), want, "{c}");
            }
            let r = read_all(c);
            assert_eq!((r.header, r.seq, r.qual), (want_read.header.clone(), want_read.seq.clone(), want_read.qual.clone()));
        }
    }
}

fn filter(plan: &SearchPlan, input: &str, output: &str, gz: bool, invert: bool, size: BatchSize) -> Result<fastx::FilterCounts, FastxError> {
    fastx::filter(plan, input, output, gz.then_some(fastx::GZIP_DEFAULT_LEVEL), invert, size, &Control::new(), &mut no_poll())
}

#[test]
fn multi_member_gzip_is_read_whole() {
    // two gzip members one after the other (as BGZF files and `cat a.gz b.gz`)
    let dir = tmpdir();
    let text = fixture_text(FASTQ);
    let half = text.len() / 2;
    let cut = half + text[half..].windows(2).position(|w| w == b"\n@").unwrap() + 1;
    let mut bytes = gzip(&text[..cut]);
    bytes.extend_from_slice(&gzip(&text[cut..]));
    let p = write(dir.path(), "two.fq.gz", &bytes);
    let got = read_all(&p);
    let want = read_all(&path_of(FASTQ));
    assert_eq!((got.seq, got.header, got.qual), (want.seq, want.header, want.qual));
}

#[test]
fn filter_writes_records_byte_for_byte_and_invert_partitions() {
    let dir = tmpdir();
    for name in [FASTQ, LONG, FASTA] {
        let input = path_of(name);
        let recs = parse_simple(&fixture_text(name));
        let texts: Vec<Vec<u8>> = recs.iter().map(|r| r.seq.clone()).collect();
        // 20-mers of two records: those and a few overlapping ones hit
        let pick = |t: &[u8], at: usize| String::from_utf8(t[at..at + 20].to_vec()).unwrap();
        let owned = [pick(&texts[0], 5), pick(&texts[1], 30)];
        let patterns: Vec<&str> = owned.iter().map(|s| s.as_str()).collect();
        let pl = plan(Mode::Contains, &patterns, 1, 2);
        let v = engine_values(&pl, &texts);
        let n = texts.len();
        let hit: Vec<bool> = (0..n).map(|i| (0..patterns.len()).any(|p| v[p * n + i] > 0)).collect();
        assert!(hit.iter().any(|&h| h) && hit.iter().any(|&h| !h), "{name}: the fixture should have both");
        for size in [BatchSize::default(), BatchSize { bytes: 300, records: 5 }] {
            for gz in [false, true] {
                let mut outputs = Vec::new();
                for invert in [false, true] {
                    let out = dir.path().join(format!("out-{invert}.{}", if gz { "gz" } else { "txt" }));
                    let out = out.to_string_lossy().into_owned();
                    let c = filter(&pl, &input, &out, gz, invert, size).unwrap();
                    let want: Vec<u8> = recs.iter().zip(&hit).filter(|(_, &h)| h != invert).flat_map(|(r, _)| r.text.clone()).collect();
                    let got = if gz { gunzip(Path::new(&out)) } else { std::fs::read(&out).unwrap() };
                    assert_eq!(got, want, "{name} invert={invert} gz={gz}");
                    assert_eq!(c.read, n as u64);
                    assert_eq!(c.written, hit.iter().filter(|&&h| h != invert).count() as u64);
                    outputs.push(c.written);
                }
                assert_eq!(outputs[0] + outputs[1], n as u64);
            }
        }
        // nothing but the outputs in the folder: no temporary files left
        for e in std::fs::read_dir(dir.path()).unwrap() {
            let f = e.unwrap().file_name().to_string_lossy().into_owned();
            assert!(f.starts_with("out-"), "left behind: {f}");
        }
    }
}

#[test]
fn filter_keeps_crlf_multiline_fasta_and_descriptions() {
    let dir = tmpdir();
    let cases: [(&[u8], &[u8], &[u8]); 4] = [
        // (input, records with a hit, records without: empty sequences)
        (b">a desc\r\nACGT\r\nAC\r\n>b\r\nGG\r\n", b">a desc\r\nACGT\r\nAC\r\n>b\r\nGG\r\n", b""),
        (
            b"@a x y\r\nACGT\r\n+a x y\r\nIIII\r\n@e\r\n\r\n+\r\n\r\n@b\r\nAC\r\n+\r\nII",
            b"@a x y\r\nACGT\r\n+a x y\r\nIIII\r\n@b\r\nAC\r\n+\r\nII\r\n",
            b"@e\r\n\r\n+\r\n\r\n",
        ),
        (b">a\nACGT\n\nAC\n\n>b\n>c\tdesc\nA\n", b">a\nACGT\n\nAC\n>c\tdesc\nA\n", b">b\n"),
        (b">a\nAC", b">a\nAC\n", b""),
    ];
    for (i, (input, with_hit, without)) in cases.iter().enumerate() {
        let inp = write(dir.path(), &format!("in{i}"), input);
        // "N" matches any base, so every non-empty record has a hit
        let pl = plan(Mode::Contains, &["N"], 0, 1);
        for (invert, want) in [(false, with_hit), (true, without)] {
            let out = dir.path().join(format!("out{i}-{invert}")).to_string_lossy().into_owned();
            filter(&pl, &inp, &out, false, invert, BatchSize::default()).unwrap();
            let got = std::fs::read(&out).unwrap();
            assert_eq!(String::from_utf8_lossy(&got), String::from_utf8_lossy(want), "case {i} invert={invert}");
        }
    }
}

#[test]
fn a_failed_filter_leaves_no_output() {
    let dir = tmpdir();
    let mut bad = fixture_text(FASTQ);
    bad.extend_from_slice(b"@bad\nACGT\n+\nIII\n");
    let inp = write(dir.path(), "bad.fq", &bad);
    let out = dir.path().join("out.fq").to_string_lossy().into_owned();
    let pl = plan(Mode::Contains, &["GGGCGGCGACC"], 1, 2);
    let e = filter(&pl, &inp, &out, false, true, BatchSize { bytes: 100, records: 10 }).unwrap_err();
    assert_eq!(e.record(), Some(201));
    assert!(!Path::new(&out).exists());
    // an existing output is left as it was
    std::fs::write(&out, b"keep me").unwrap();
    filter(&pl, &inp, &out, true, false, BatchSize::default()).unwrap_err();
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    // an output folder that does not exist
    let e = filter(&pl, &path_of(FASTQ), &dir.path().join("no/such/out.fq").to_string_lossy(), false, false, BatchSize::default()).unwrap_err();
    assert!(matches!(e, FastxError::Write { .. }), "{e:?}");
}

/// The error for `bytes` written to a file, from search, read and filter.
fn errors_of(bytes: &[u8]) -> Vec<FastxError> {
    let dir = tmpdir();
    let p = write(dir.path(), "bad", bytes);
    let pl = plan(Mode::Count, &["ACGT"], 0, 2);
    let size = BatchSize { bytes: 64, records: 3 };
    let out = dir.path().join("out").to_string_lossy().into_owned();
    let mut ctl_poll = no_poll();
    vec![
        search(&pl, std::slice::from_ref(&p), size).unwrap_err(),
        fastx::read(&p, None, size, &Control::new(), &mut ctl_poll).unwrap_err(),
        filter(&plan(Mode::Contains, &["ACGT"], 0, 2), &p, &out, false, false, size).unwrap_err(),
    ]
}

fn assert_parse_error(bytes: &[u8], kind: ParseKind, record: Option<u64>) {
    for e in errors_of(bytes) {
        assert_eq!(e.parse_kind(), Some(kind), "{e}");
        assert_eq!(e.record(), record, "{e}");
        assert!(matches!(e, FastxError::Parse { .. }), "{e:?}");
        assert!(e.to_string().contains("bad\""), "{e}");
        if let Some(r) = record {
            assert!(e.to_string().contains(&format!("record {r}")), "{e}");
        }
    }
}

#[test]
fn bad_files_are_errors_naming_file_and_record() {
    let reads = fixture_text(FASTQ);
    // fewer than 2 bytes that are not blank: neither FASTA nor FASTQ
    assert_parse_error(b"x", ParseKind::Empty, None);
    // not FASTA or FASTQ
    assert_parse_error(b"hello world\n", ParseKind::UnknownFormat, Some(1));
    assert_parse_error(&gzip(b"name\tvalue\n1\t2\n"), ParseKind::UnknownFormat, Some(1));
    assert_parse_error(&gzip(&gzip(b"name\tvalue\n")), ParseKind::UnknownFormat, Some(1));
    // compression is detected from the content at each layer (we decompress
    // one, needletail the next), so a doubly compressed file reads as itself
    let dir = tmpdir();
    let twice = read_all(&write(dir.path(), "twice", &gzip(&gzip(&reads))));
    let once = read_all(&write(dir.path(), "once", &reads));
    assert_eq!((twice.seq.len(), twice.seq.bytes.as_slice(), twice.qual.bytes.as_slice()), (200, once.seq.bytes.as_slice(), once.qual.bytes.as_slice()));
    // quality length differs from sequence length, in record 3
    assert_parse_error(b"@a\nAC\n+\nII\n@b\nAC\n+\nII\n@c\nACGT\n+\nIII\n@d\nA\n+\nI\n", ParseKind::UnequalLengths, Some(3));
    // FASTQ cut inside a record
    let cut = &reads[..reads.len() - 200];
    // the cut record follows the complete ones (4 line breaks each)
    let expected_record = (cut.iter().filter(|&&b| b == b'\n').count() / 4) as u64 + 1;
    assert!(expected_record < 200);
    for e in errors_of(cut) {
        assert!(matches!(e.parse_kind(), Some(ParseKind::Truncated) | Some(ParseKind::UnequalLengths) | Some(ParseKind::InvalidSeparator)), "{e}");
        assert_eq!(e.record(), Some(expected_record), "{e}");
    }
    // blank line between FASTQ records
    assert_parse_error(b"@a\nAC\n+\nII\n\n@b\nAC\n+\nII\n", ParseKind::InvalidStart, Some(2));
}

#[test]
fn empty_inputs_are_zero_records_not_errors() {
    // 0 bytes, a gzip stream of nothing, only blank or comment lines: zero
    // records for search, read and filter (issue 17, "Empty inputs")
    let dir = tmpdir();
    for (i, bytes) in [b"".to_vec(), gzip(b""), b"\n\n".to_vec(), b" \r\n;only a comment\n".to_vec(), gzip(b"\n")].iter().enumerate() {
        let p = write(dir.path(), &format!("e{i}"), bytes);
        let r = read_all(&p);
        assert_eq!((r.seq.len(), r.format), (0, None), "case {i}");
        let SearchOutput::Values(v) = search(&plan(Mode::Count, &["ACGT"], 0, 2), std::slice::from_ref(&p), BatchSize::default()).unwrap() else {
            panic!("expected values")
        };
        assert_eq!((v.records_per_file.as_slice(), v.values[0].len()), (&[0u64][..], 0), "case {i}");
        let SearchOutput::Hits(h) = search(&plan(Mode::Hits, &["ACGT"], 0, 2), std::slice::from_ref(&p), BatchSize::default()).unwrap() else {
            panic!("expected hits")
        };
        assert!(h.bufs.iter().all(|b| b.is_empty()), "case {i}");
        // a filter of an empty file writes an empty file, read back as zero records
        let out = dir.path().join(format!("out{i}")).to_string_lossy().into_owned();
        let n = filter(&plan(Mode::Contains, &["ACGT"], 0, 2), &p, &out, i % 2 == 1, false, BatchSize::default()).unwrap();
        assert_eq!((n.read, n.written), (0, 0), "case {i}");
        assert_eq!(read_all(&out).seq.len(), 0, "case {i}");
    }
    // an empty file among others counts for nothing
    let a = write(dir.path(), "a.fa", b">a\nACGT\n");
    let e = write(dir.path(), "e.fa", b"");
    let SearchOutput::Values(v) = search(&plan(Mode::Count, &["ACGT"], 0, 2), &[a.clone(), e, a], BatchSize::default()).unwrap() else {
        panic!("expected values")
    };
    assert_eq!(v.records_per_file, vec![1, 0, 1]);
    assert_eq!(v.values[0], vec![2, 2]);
}

#[test]
fn fasta_leading_blank_lines_and_comment_lines_are_read_as_biostrings_does() {
    // (issue 17) Biostrings skips blank lines before the first record and
    // `;` comment lines anywhere in FASTA
    let dir = tmpdir();
    let want = [(&b"a x"[..], &b"ACGTAC"[..]), (b"b", b"GG")];
    for (i, text) in [
        &b"\n>a x\nACGT\nAC\n>b\nGG\n"[..],
        b"\r\n  \n;comment\n>a x\nACGT\n;inside\nAC\n;between\n>b\nGG",
        b";c1\n;c2\n>a x\r\nACGT\r\n;x\r\nAC\r\n>b\r\nGG\r\n",
    ]
    .iter()
    .enumerate()
    {
        for (j, bytes) in [text.to_vec(), gzip(text)].iter().enumerate() {
            let p = write(dir.path(), &format!("c{i}_{j}"), bytes);
            let r = read_all(&p);
            let got: Vec<_> = (0..r.seq.len()).map(|k| (r.header.get(k), r.seq.get(k))).collect();
            assert_eq!(got, want, "case {i}/{j}");
        }
    }
    // FASTQ: leading blank lines are skipped; `;` is a quality letter there
    let p = write(dir.path(), "q", b"\n\n@r\nACGT\n+\n;;;;\n");
    let r = read_all(&p);
    assert_eq!((r.seq.get(0), r.qual.get(0)), (&b"ACGT"[..], &b";;;;"[..]));
    // line numbers of errors count the skipped lines; the quality-length
    // error names the quality line
    let bad = b"\n\n@a\nAC\n+\nII\n@b\nACG\n+\nII\n";
    for e in errors_of(bad) {
        assert_eq!(e.parse_kind(), Some(ParseKind::UnequalLengths), "{e}");
        assert_eq!((e.record(), e.line()), (Some(2), Some(10)), "{e}");
    }
}

#[test]
fn a_header_only_last_fasta_record_is_an_empty_sequence_plain_or_compressed() {
    // needletail alone reports an unexpected end for these (see decompress.rs)
    let dir = tmpdir();
    for (i, text) in [&b">a x\nACGT\n>b y\n"[..], b">a x\nACGT\n>b y", b">a x\nAC\nGT\n>b y\r\n"].iter().enumerate() {
        for (j, bytes) in [text.to_vec(), gzip(text)].iter().enumerate() {
            let p = write(dir.path(), &format!("h{i}_{j}"), bytes);
            let r = read_all(&p);
            assert_eq!(r.seq.len(), 2, "case {i}/{j}");
            assert_eq!((r.header.get(0), r.header.get(1)), (&b"a x"[..], &b"b y"[..]), "case {i}/{j}");
            assert_eq!((r.seq.get(0), r.seq.get(1)), (&b"ACGT"[..], &b""[..]), "case {i}/{j}");
        }
    }
}

#[test]
fn truncated_and_corrupt_gzip_are_errors_never_partial_results() {
    let gz = std::fs::read(extdata(FASTQ)).unwrap();
    let n = gz.len();
    let mut cases: Vec<Vec<u8>> = [n - 1, n - 4, n - 8, n - 9, n / 2, 100, 20].iter().map(|&c| gz[..c].to_vec()).collect();
    let mut corrupt = gz.clone();
    corrupt[n / 2] ^= 0xff;
    cases.push(corrupt);
    let mut corrupt_crc = gz.clone();
    corrupt_crc[n - 6] ^= 0xff;
    cases.push(corrupt_crc);
    for (i, bytes) in cases.iter().enumerate() {
        for e in errors_of(bytes) {
            assert!(matches!(e, FastxError::Parse { .. }), "case {i}: {e:?}");
            assert!(e.to_string().contains("truncated or corrupt"), "case {i}: {e}");
            // (cut before its first byte decompresses: truncated too, never
            // an empty file of zero records)
            assert_ne!(e.parse_kind(), Some(ParseKind::Empty), "case {i}: {e}");
            let r = e.record().expect("a record number");
            assert!((1..=200).contains(&r), "case {i}: {e}");
        }
    }
    // the tail of a gzip member cut off: the error is at the records that
    // could not be read, after all the earlier ones
    for e in errors_of(&gz[..n - 8]) {
        assert_eq!(e.parse_kind(), Some(ParseKind::Io), "{e}");
        assert!(e.to_string().contains("truncated or corrupt"), "{e}");
    }
}

#[test]
fn missing_files_and_folders_are_errors() {
    let dir = tmpdir();
    let missing = dir.path().join("nope.fq").to_string_lossy().into_owned();
    let pl = plan(Mode::Count, &["ACGT"], 0, 1);
    let e = search(&pl, std::slice::from_ref(&missing), BatchSize::default()).unwrap_err();
    assert!(matches!(&e, FastxError::Open { path, .. } if path == &missing), "{e:?}");
    assert!(e.to_string().contains("no such file"), "{e}");
    // the second of two files
    let e = search(&pl, &[path_of(FASTQ), missing.clone()], BatchSize::default()).unwrap_err();
    assert_eq!(e.path(), Some(missing.as_str()));
    let d = dir.path().to_string_lossy().into_owned();
    let e = fastx::read(&d, None, BatchSize::default(), &Control::new(), &mut no_poll()).unwrap_err();
    assert!(matches!(e, FastxError::Open { .. }), "{e:?}");
}

#[test]
fn letters_outside_the_alphabet_name_file_record_and_position() {
    let dir = tmpdir();
    let mut text = fixture_text(FASTQ);
    text.extend_from_slice(b"@r201 extra\nACGTNACGT\n+\nIIIIIIIII\n");
    let p = write(dir.path(), "n.fq", &text);
    // the lambda reads have N: fine with iupac, not with dna
    let opts = SearchOptions { k: 0, mode: Mode::Count, alphabet: Alphabet::Dna, threads: 2, ..Default::default() };
    let pl = SearchPlan::new(&opts, &[&b"ACGT"[..]]).unwrap();
    for size in SIZES {
        let e = search(&pl, std::slice::from_ref(&p), size).unwrap_err();
        let FastxError::Letter { record, name, letter, position, .. } = &e else { panic!("{e:?}") };
        // r1 is the first read with an N
        assert_eq!((*record, name.as_str(), *letter), (1, "r1", b'N'));
        assert_eq!(*position, 59);
    }
    let mut text = fixture_text(FASTA);
    text.extend_from_slice(b">x\nACGU\nAC-GT\n");
    let p = write(dir.path(), "gap.fa", &text);
    let e = search(&plan(Mode::Hits, &["ACGT"], 0, 1), &[p], BatchSize { bytes: 10, records: 1 }).unwrap_err();
    let FastxError::Letter { record, name, letter, position, .. } = &e else { panic!("{e:?}") };
    assert_eq!((*record, name.as_str(), *letter, *position), (4, "x", b'-', 6));
    assert!(e.to_string().contains("Record 4 (\"x\")"), "{e}");
}

#[test]
fn nul_bytes_are_refused_where_they_would_become_r_strings() {
    let dir = tmpdir();
    let p = write(dir.path(), "nul.fq", b"@a\0b\nACGT\n+\nIIII\n");
    let e = fastx::read(&p, None, BatchSize::default(), &Control::new(), &mut no_poll()).unwrap_err();
    assert_eq!(e.parse_kind(), Some(ParseKind::NulByte), "{e}");
    assert_eq!(e.record(), Some(1));
    let e = search(&plan(Mode::Count, &["ACGT"], 0, 1), std::slice::from_ref(&p), BatchSize::default()).unwrap_err();
    assert_eq!(e.parse_kind(), Some(ParseKind::NulByte), "{e}");
    // filter writes the record as it is (no R strings are made)
    let out = dir.path().join("out").to_string_lossy().into_owned();
    filter(&plan(Mode::Contains, &["ACGT"], 0, 1), &p, &out, false, false, BatchSize::default()).unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"@a\0b\nACGT\n+\nIIII\n");
    let p = write(dir.path(), "nul.fa", b">a\nAC\0GT\n");
    let e = fastx::read(&p, None, BatchSize::default(), &Control::new(), &mut no_poll()).unwrap_err();
    assert_eq!(e.parse_kind(), Some(ParseKind::NulByte));
    // the search rejects it as a letter
    let e = search(&plan(Mode::Count, &["ACGT"], 0, 1), &[p], BatchSize::default()).unwrap_err();
    assert!(matches!(e, FastxError::Letter { letter: 0, .. }), "{e:?}");
}

#[test]
fn polling_true_interrupts_and_stops_the_reader() {
    let dir = tmpdir();
    // enough records that the reader is still busy when the poll fires
    let reads = fixture_text(LONG);
    let mut big = Vec::new();
    for _ in 0..200 {
        big.extend_from_slice(&reads);
    }
    let p = write(dir.path(), "big.fq", &big);
    let pl = plan(Mode::Count, &["GGGCGGCGACCTCGC"], 3, 1);
    let mut calls = 0;
    let mut poll = || {
        calls += 1;
        true
    };
    let t = std::time::Instant::now();
    let e = fastx::search(&pl, std::slice::from_ref(&p), BatchSize { bytes: 1000, records: 2 }, &Control::new(), &mut poll).unwrap_err();
    assert_eq!(e, FastxError::Core(CoreError::Interrupted));
    assert!(calls >= 1);
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
    // a cancel flag set beforehand stops it too
    let ctl = Control::new();
    ctl.cancel.store(true, std::sync::atomic::Ordering::Relaxed);
    let e = fastx::search(&pl, &[p], BatchSize::default(), &ctl, &mut no_poll()).unwrap_err();
    assert_eq!(e, FastxError::Core(CoreError::Interrupted));
}

#[test]
fn too_many_hits_is_an_error_across_batches() {
    let opts = SearchOptions { k: 0, mode: Mode::Hits, max_hits: Some(10), threads: 1, ..Default::default() };
    let pl = SearchPlan::new(&opts, &[&b"ACG"[..]]).unwrap();
    let e = search(&pl, &[path_of(FASTQ)], BatchSize { bytes: 1 << 20, records: 1 }).unwrap_err();
    assert_eq!(e, FastxError::Core(CoreError::TooManyHits { limit: 10 }));
}

// ---------------------------------------------------------------------------
// Record ranges (shards of a file searched by separate processes)

fn search_range(plan: &SearchPlan, paths: &[String], range: fastx::RecordRange, size: BatchSize) -> Result<SearchOutput, FastxError> {
    fastx::search_range(plan, paths, range, size, &Control::new(), &mut no_poll())
}

/// Hits of one file as (0-based record, pattern, start, end, strand) rows
/// and the name of each record with hits.
fn hit_rows(out: SearchOutput) -> (Vec<(u32, u32, u32, u32, bool)>, Vec<Vec<u8>>) {
    let SearchOutput::Hits(h) = out else { panic!("expected hits") };
    let mut rows = Vec::new();
    for b in &h.bufs {
        for i in 0..b.len() {
            rows.push((b.record[i], b.pattern[i], b.start[i], b.end[i], b.minus[i]));
        }
    }
    (rows, h.names.iter().map(|n| n.to_vec()).collect())
}

#[test]
fn record_ranges_concatenate_to_the_whole_file() {
    for (name, n_rec) in [(FASTQ, 200u64), (LONG, 30), (FASTA, 3)] {
        let p = vec![path_of(name)];
        let texts: Vec<Vec<u8>> = read_all(&p[0]).seq.iter().map(|s| s.to_vec()).collect();
        assert_eq!(texts.len() as u64, n_rec);
        let pat = String::from_utf8(texts[1][10..22].to_vec()).unwrap();
        let pats = [pat.as_str(), "GGGCGGCGACCTCGC"];
        let hits_plan = plan(Mode::Hits, &pats, 2, 2);
        let count_plan = plan(Mode::Count, &pats, 2, 2);
        let (want, want_names) = hit_rows(search(&hits_plan, &p, BatchSize::default()).unwrap());
        assert!(!want.is_empty());
        let SearchOutput::Values(want_counts) = search(&count_plan, &p, BatchSize::default()).unwrap() else { panic!() };
        for cuts in [vec![0, n_rec], vec![0, 1, n_rec], vec![0, n_rec / 3, 2 * n_rec / 3 + 1, n_rec], (0..=n_rec).collect::<Vec<_>>()] {
            for size in [BatchSize::default(), BatchSize { bytes: 1000, records: 7 }] {
                let (mut got, mut got_names) = (Vec::new(), Vec::new());
                let mut got_counts: Vec<Vec<i32>> = vec![Vec::new(); pats.len()];
                let mut got_count_names = Vec::new();
                for w in cuts.windows(2) {
                    // the last range runs to the end of the file
                    let n = if w[1] == n_rec { None } else { Some(w[1] - w[0]) };
                    let range = fastx::RecordRange { skip: w[0], n };
                    let (rows, names) = hit_rows(search_range(&hits_plan, &p, range, size).unwrap());
                    // record numbers are those of the file, inside the range
                    assert!(rows.iter().all(|r| (r.0 as u64) >= w[0] && (r.0 as u64) < w[1]), "{name} {w:?}");
                    got.extend(rows);
                    got_names.extend(names);
                    let SearchOutput::Values(v) = search_range(&count_plan, &p, range, size).unwrap() else { panic!() };
                    assert_eq!(v.records_per_file, vec![w[1] - w[0]], "{name} {w:?}");
                    for (c, col) in got_counts.iter_mut().zip(&v.values) {
                        c.extend_from_slice(col);
                    }
                    got_count_names.extend(v.names.iter().map(|n| n.to_vec()));
                }
                assert_eq!(got, want, "{name} {cuts:?} {size:?}");
                assert_eq!(got_names, want_names, "{name} {cuts:?}");
                assert_eq!(got_counts, want_counts.values, "{name} {cuts:?}");
                assert_eq!(got_count_names, want_counts.names.iter().map(|n| n.to_vec()).collect::<Vec<_>>());
            }
        }
        // a range past the end, and an empty range, hold no records
        for range in [fastx::RecordRange { skip: n_rec + 5, n: None }, fastx::RecordRange { skip: 1, n: Some(0) }] {
            let SearchOutput::Values(v) = search_range(&count_plan, &p, range, BatchSize::default()).unwrap() else { panic!() };
            assert_eq!(v.records_per_file, vec![0]);
            assert!(v.values.iter().all(|c| c.is_empty()));
        }
    }
}

#[test]
fn counting_records_parses_every_record() {
    let paths: Vec<String> = [FASTQ, LONG, FASTA, FASTQ].iter().map(|n| path_of(n)).collect();
    let got = fastx::count(&paths, &Control::new(), &mut no_poll()).unwrap();
    let want: Vec<u64> = paths.iter().map(|p| read_all(p).seq.len() as u64).collect();
    assert_eq!(got, want);
    assert_eq!(got, vec![200, 30, 3, 200]);
    // a broken file is an error naming it and the record, as in a search
    let dir = tmpdir();
    let p = write(dir.path(), "bad", b"@a\nAC\n+\nII\n@b\nAC\n+\nII\n@c\nACGT\n+\nIII\n");
    let e = fastx::count(&[p], &Control::new(), &mut no_poll()).unwrap_err();
    assert_eq!((e.parse_kind(), e.record()), (Some(ParseKind::UnequalLengths), Some(3)), "{e}");
}

#[test]
fn record_ranges_report_errors_with_file_record_numbers() {
    let dir = tmpdir();
    let opts = SearchOptions { k: 0, mode: Mode::Count, alphabet: Alphabet::Dna, threads: 2, ..Default::default() };
    let pl = SearchPlan::new(&opts, &[&b"ACGT"[..]]).unwrap();
    let text = b"@a\nACGT\n+\nIIII\n@b\nACNT\n+\nIIII\n@c\nACGT\n+\nIIII\n@d\nACGA\n+\nII\n";
    let p = vec![write(dir.path(), "r.fq", text)];
    // the N of record 2 is not in the dna alphabet: an error only for the
    // range that holds record 2, named by its number in the file
    let e = search_range(&pl, &p, fastx::RecordRange { skip: 1, n: Some(1) }, BatchSize::default()).unwrap_err();
    assert!(matches!(&e, FastxError::Letter { record: 2, .. }), "{e:?}");
    let SearchOutput::Values(v) = search_range(&pl, &p, fastx::RecordRange { skip: 2, n: Some(1) }, BatchSize::default()).unwrap() else { panic!() };
    // ACGT is its own reverse complement: a hit on each strand
    assert_eq!(v.values, vec![vec![2]]);
    // a broken record after the range is not read; one before it still is
    assert!(search_range(&pl, &p, fastx::RecordRange { skip: 2, n: Some(1) }, BatchSize::default()).is_ok());
    let e = search_range(&pl, &p, fastx::RecordRange { skip: 4, n: None }, BatchSize::default()).unwrap_err();
    assert_eq!((e.parse_kind(), e.record()), (Some(ParseKind::UnequalLengths), Some(4)), "{e}");
}

/// Hits with every record's name kept (`sassy_count_fastx(sparse = TRUE)`):
/// the names and per-file record counts are those of the count mode, and
/// the hits tallied per record and pattern are its counts, over several
/// files, record ranges and batch sizes.
#[test]
fn hits_with_all_names_tally_to_the_counts() {
    let paths = vec![path_of(FASTQ), path_of(FASTA), path_of(FASTQ)];
    let texts: Vec<Vec<u8>> = read_all(&paths[0]).seq.iter().map(|s| s.to_vec()).collect();
    let pat = String::from_utf8(texts[1][10..22].to_vec()).unwrap();
    let pats = [pat.as_str(), "GGGCGGCGACCTCGC", "ACGTACGTACGT"];
    let hits_plan = plan(Mode::Hits, &pats, 2, 2);
    let count_plan = plan(Mode::Count, &pats, 2, 2);
    for range in [fastx::RecordRange::ALL, fastx::RecordRange { skip: 3, n: Some(50) }] {
        for size in [BatchSize::default(), BatchSize { bytes: 1000, records: 7 }] {
            let SearchOutput::Values(want) = search_range(&count_plan, &paths, range, size).unwrap() else { panic!() };
            let keep = fastx::HitKeep { region: false, all_names: true };
            let out = fastx::search_keep(&hits_plan, &paths, range, size, keep, &Control::new(), &mut no_poll()).unwrap();
            let SearchOutput::Hits(h) = out else { panic!("expected hits") };
            assert_eq!(h.records_per_file, want.records_per_file);
            let all = h.all_names.as_ref().expect("all names kept");
            assert_eq!(all, &want.names);
            let n = want.names.len();
            let offsets: Vec<u64> = std::iter::once(0).chain(want.records_per_file.iter().scan(0, |s, &c| { *s += c; Some(*s) })).collect();
            let mut got = vec![vec![0i32; n]; pats.len()];
            for (b, &f) in h.bufs.iter().zip(&h.buf_file) {
                for i in 0..b.len() {
                    let row = offsets[f as usize] + b.record[i] as u64 - range.skip;
                    got[b.pattern[i] as usize][row as usize] += 1;
                }
            }
            assert_eq!(got, want.values, "{range:?} {size:?}");
            assert!(got.iter().flatten().any(|&c| c > 0));
            // without the option: no names beyond those of records with hits
            let out = fastx::search_range(&hits_plan, &paths, range, size, &Control::new(), &mut no_poll()).unwrap();
            let SearchOutput::Hits(h) = out else { panic!("expected hits") };
            assert!(h.all_names.is_none());
            assert_eq!(h.records_per_file, want.records_per_file);
        }
    }
}
