//! Demultiplexing by both ends (`fastx/demux_ends.rs`): planted reads of
//! each kind go to the output of their sample or reason, every record
//! once; the middle of long reads is searched for chimeras and the ends of
//! reads without a barcode for a flank; trimming cuts both ends; the
//! report names the sample and the reason.

use ducksassy_core::ends_policy::{EndsRule, Policy, Reason, RowEnd};
use ducksassy_core::fastx::demux::{demultiplex, DemuxSpec};
use ducksassy_core::fastx::demux_ends::EndsSpec;
mod common;
use common::XorShift;
use ducksassy_core::fastx::demux_report::DemuxReport;
use ducksassy_core::fastx::BatchSize;
use ducksassy_core::{Control, Mode, SearchOptions, SearchPlan};


fn rc(s: &str) -> String {
    s.bytes()
        .rev()
        .map(|c| match c {
            b'A' => 'T',
            b'C' => 'G',
            b'G' => 'C',
            _ => 'A',
        })
        .collect()
}

fn assign_plan(patterns: &[&str], k: i64) -> SearchPlan {
    plan_of(patterns, k, Mode::Assign)
}

fn plan_of(patterns: &[&str], k: i64, mode: Mode) -> SearchPlan {
    let opts = SearchOptions { k, mode, threads: 2, ..Default::default() };
    let p: Vec<&[u8]> = patterns.iter().map(|s| s.as_bytes()).collect();
    SearchPlan::new(&opts, &p).unwrap()
}

/// The names of the records of a FASTQ file and their sequences.
fn records(path: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    lines.chunks(4).map(|c| (c[0][1..].to_string(), c[1].to_string())).collect()
}

#[test]
fn each_read_goes_to_its_sample_or_reason_and_both_ends_are_trimmed() {
    // the flanks' presence from a contains plan (as R sends it) and from an
    // assign plan
    each_read_with_flank_plans(Mode::Contains);
    each_read_with_flank_plans(Mode::Assign);
}

fn each_read_with_flank_plans(flank_mode: Mode) {
    let mut rng = XorShift(0x3838_3838_dead_beef);
    let bc: Vec<String> = (0..2).map(|_| rng.bases(20)).collect();
    let flank = rng.bases(20);
    let l = 60;
    let insert = rng.bases(100);
    let reads = [
        // r0: barcode 0 at both ends
        format!("{}{}{}{}{}", rng.bases(10), bc[0], insert, rc(&bc[0]), rng.bases(10)),
        // r1: the ends disagree
        format!("{}{}{}{}{}", rng.bases(10), bc[0], rng.bases(100), rc(&bc[1]), rng.bases(10)),
        // r2: nothing
        rng.bases(160),
        // r3: the flank alone
        format!("{}{}{}", rng.bases(10), flank, rng.bases(130)),
        // r4: barcode 1 at both ends, and in the middle: chimeric
        format!("{}{}{}{}{}{}{}", rng.bases(10), bc[1], rng.bases(100), bc[0], rng.bases(100), rc(&bc[1]), rng.bases(10)),
        // r5: shorter than L, barcode 1 once (found by both ends' searches)
        format!("{}{}{}", rng.bases(5), bc[1], "ACGTACGTAC"),
        // r6: reverse complement of r0
        rc(&format!("{}{}{}{}{}", rng.bases(10), bc[0], insert, rc(&bc[0]), rng.bases(10))),
    ];
    let dir = tempfile::tempdir().unwrap();
    let fq = dir.path().join("reads.fq").to_string_lossy().into_owned();
    let text: String = reads.iter().enumerate().map(|(i, s)| format!("@r{i} d\n{s}\n+\n{}\n", "I".repeat(s.len()))).collect();
    std::fs::write(&fq, text).unwrap();
    // outputs: s0, s1, ends_disagree, flank_without_barcode, no_hit, ambiguous, chimeric
    let names = ["s0", "s1", "ends_disagree", "flank_without_barcode", "no_hit", "ambiguous", "chimeric"];
    let outputs: Vec<String> = names.iter().map(|n| dir.path().join(format!("{n}.fq")).to_string_lossy().into_owned()).collect();
    let mut output_of_reason = [4; 7];
    output_of_reason[Reason::Chimeric.index()] = 6;
    output_of_reason[Reason::Ambiguous.index()] = 5;
    output_of_reason[Reason::EndsDisagree.index()] = 2;
    output_of_reason[Reason::FlankWithoutBarcode.index()] = 3;
    let report = dir.path().join("report.tsv").to_string_lossy().into_owned();
    let ends = EndsSpec {
        end_length: l,
        rule: EndsRule::new(Policy::Either, vec![0, 1], vec![RowEnd::Both; 2], &[]).unwrap(),
        output_of_sample: vec![0, 1],
        output_of_reason,
        flank_plans: vec![plan_of(&[&flank], 2, flank_mode)],
        chimeras: true,
        chimera_k: 2,
        split: false,
        barcode_caps: Vec::new(),
        spacer_plan: None,
        barcode_price: Vec::new(),
        barcode_names: vec!["b0".into(), "b1".into()],
        sample_names: vec!["s0".into(), "s1".into()],
    };
    let spec = DemuxSpec {
        outputs: outputs.clone(),
        mate_outputs: None,
        sample_of_pattern: vec![0, 1],
        unassigned: 4,
        ambiguous: 5,
        margin: 0,
        trim: true,
        gzip_level: 2,
        report: Some(DemuxReport { path: report.clone(), output_names: names.iter().map(|s| s.to_string()).collect(), pattern_names: vec!["b0".into(), "b1".into()] }),
        ends: Some(ends),
    };
    let plan = assign_plan(&[&bc[0], &bc[1]], 2);
    // batches of 3 records: the searches of a batch see only its records
    let counts = demultiplex(&plan, &[fq.clone()], None, &spec, BatchSize { bytes: 1 << 20, records: 3 }, &Control::new(), &mut || false).unwrap();
    assert_eq!(counts, vec![2, 1, 1, 1, 1, 0, 1]);
    let got: Vec<Vec<(String, String)>> = outputs.iter().map(|p| records(p)).collect();
    let name_list = |o: usize| got[o].iter().map(|r| r.0.clone()).collect::<Vec<_>>();
    assert_eq!(name_list(0), vec!["r0 d", "r6 d"]);
    assert_eq!(name_list(1), vec!["r5 d"]);
    assert_eq!(name_list(2), vec!["r1 d"]);
    assert_eq!(name_list(3), vec!["r3 d"]);
    assert_eq!(name_list(4), vec!["r2 d"]);
    assert_eq!(name_list(6), vec!["r4 d"]);
    // trimmed: the insert between the two barcodes; the short read after its one site
    assert_eq!(got[0][0].1, insert);
    assert_eq!(got[0][1].1, rc(&insert));
    assert_eq!(got[1][0].1, "ACGTACGTAC");
    // set aside and unassigned records are written as read
    assert_eq!(got[6][0].1, reads[4]);
    assert_eq!(got[2][0].1, reads[1]);
    let rep = std::fs::read_to_string(&report).unwrap();
    let lines: Vec<Vec<&str>> = rep.lines().map(|l| l.split('\t').collect()).collect();
    assert_eq!(lines[0], "file record name output pattern pattern_name cost start end strand other_cost front_barcode rear_barcode orientation sample status reason".split(' ').collect::<Vec<_>>());
    let col = |r: usize, c: &str| lines[r + 1][lines[0].iter().position(|x| *x == c).unwrap()].to_string();
    let rows: Vec<[String; 5]> = (0..7).map(|r| [col(r, "output"), col(r, "sample"), col(r, "status"), col(r, "reason"), col(r, "front_barcode")]).collect();
    let want = [
        ["s0", "s0", "assigned", "NA", "b0"],
        ["ends_disagree", "NA", "unassigned", "ends disagree", "b0"],
        ["no_hit", "NA", "unassigned", "no hit", "NA"],
        ["flank_without_barcode", "NA", "unassigned", "flank without barcode", "NA"],
        ["chimeric", "NA", "chimeric", "chimeric", "b1"],
        ["s1", "s1", "assigned", "NA", "b1"],
        ["s0", "s0", "assigned", "NA", "b0"],
    ];
    for (r, w) in rows.iter().zip(want) {
        assert_eq!(r.iter().map(|s| s.as_str()).collect::<Vec<_>>(), w.to_vec());
    }
    // the hit columns: the front end's, 1-based (r0's barcode at 11..30)
    assert_eq!((col(0, "start"), col(0, "end"), col(0, "strand")), ("11".into(), "30".into(), "+".into()));
    assert_eq!(col(0, "rear_barcode"), "b0");
}
