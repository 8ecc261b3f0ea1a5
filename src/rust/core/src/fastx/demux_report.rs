//! The per-read report of a demultiplexing: one TSV line per record (pair)
//! with its assignment and the output it went to, written by the writer
//! thread beside the records and committed with the outputs (one
//! transaction), so users need not assign the reads a second time.

use super::{writer, Batch, FastxError};
use crate::assign::{Best, Status};

/// Where the report goes and the names it writes.
#[derive(Debug, Clone)]
pub struct DemuxReport {
    /// The report file (gzip by extension, as the outputs).
    pub path: String,
    /// The name of each output (the samples, `unassigned`, `ambiguous`).
    pub output_names: Vec<String>,
    /// The name of each pattern.
    pub pattern_names: Vec<String>,
}

/// The report's columns (its first line).
pub const HEADER: &[u8] = b"file\trecord\tname\toutput\tpattern\tpattern_name\tcost\tstart\tend\tstrand\tother_cost\tstatus\n";

/// The report's columns in the both-ends mode: the hit columns describe
/// the deciding end (the front end's when it is assigned, else the
/// rear's), then the ends' barcodes, the orientation, the sample, the
/// status of the read and the reason it has no sample.
pub const HEADER_ENDS: &[u8] = b"file\trecord\tname\toutput\tpattern\tpattern_name\tcost\tstart\tend\tstrand\tother_cost\tfront_barcode\trear_barcode\torientation\tsample\tstatus\treason\n";

impl DemuxReport {
    /// The lines of the records of `batch` in the both-ends mode; a read
    /// split at a middle barcode has a line for each part (its name with
    /// `_1`, `_2`, as written; its hits in the part's coordinates).
    pub fn write_ends(
        &self,
        out: &mut writer::Output,
        file: &str,
        batch: &Batch,
        recs: &[super::demux_ends::EndsRecord],
        splits: &[super::demux_ends::Split],
        spec: &super::demux_ends::EndsSpec,
    ) -> Result<(), FastxError> {
        let mut line = Vec::with_capacity(160);
        let mut num = itoa::Buffer::new();
        let mut splits = splits.iter();
        for (i, r) in recs.iter().enumerate() {
            let name = record_name(batch.header.get(i));
            let record = batch.first + i as u64 + 1;
            if r.split {
                if let Some(s) = splits.next() {
                    for (j, (_, _, p)) in s.parts.iter().enumerate() {
                        let part_name = [name, if j == 0 { b"_1" } else { b"_2" }].concat();
                        self.write_end_line(out, &mut line, &mut num, file, record, &part_name, p, spec)?;
                    }
                }
                continue;
            }
            self.write_end_line(out, &mut line, &mut num, file, record, name, r, spec)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn write_end_line(
        &self,
        out: &mut writer::Output,
        line: &mut Vec<u8>,
        num: &mut itoa::Buffer,
        file: &str,
        record: u64,
        name: &[u8],
        r: &super::demux_ends::EndsRecord,
        spec: &super::demux_ends::EndsSpec,
    ) -> Result<(), FastxError> {
        let label = |names: &[String], i: Option<u32>| -> Vec<u8> {
            match i.and_then(|i| names.get(i as usize)) {
                Some(s) => s.as_bytes().to_vec(),
                None => b"NA".to_vec(),
            }
        };
        line.clear();
        field(line, file.as_bytes());
        field(line, num.format(record).as_bytes());
        field(line, name);
        field(line, self.output_names.get(r.output).map_or(&b""[..], |s| s.as_bytes()));
        hit_fields(line, r.deciding(), &self.pattern_names, num);
        field(line, &label(&spec.barcode_names, r.call.front_barcode));
        field(line, &label(&spec.barcode_names, r.call.rear_barcode));
        field(line, match r.call.minus {
            Some(false) => b"+",
            Some(true) => b"-",
            None => b"NA",
        });
        field(line, &label(&spec.sample_names, r.call.sample));
        field(line, r.call.status().as_bytes());
        line.extend_from_slice(r.call.reason.map_or(&b"NA"[..], |x| x.as_str().as_bytes()));
        line.push(b'\n');
        out.write_all(line)
    }

    /// The lines of the records of `batch` (read from `file`): each
    /// record's (pair's) assignment `best`, status by `margin`, and
    /// output `route`. Coordinates 1-based and inclusive, as R's.
    pub fn write(&self, out: &mut writer::Output, file: &str, batch: &Batch, best: &[Best], route: &[(usize, Option<u32>)], margin: i32) -> Result<(), FastxError> {
        let mut line = Vec::with_capacity(128);
        let mut num = itoa::Buffer::new();
        for (i, (b, &(o, _))) in best.iter().zip(route).enumerate() {
            line.clear();
            field(&mut line, file.as_bytes());
            field(&mut line, num.format(batch.first + i as u64 + 1).as_bytes());
            field(&mut line, record_name(batch.header.get(i)));
            field(&mut line, self.output_names.get(o).map_or(&b""[..], |s| s.as_bytes()));
            hit_fields(&mut line, b, &self.pattern_names, &mut num);
            line.extend_from_slice(match b.status(margin) {
                Status::Assigned => b"assigned",
                Status::Ambiguous => b"ambiguous",
                Status::Unassigned | Status::Missing => b"unassigned",
            });
            line.push(b'\n');
            out.write_all(&line)?;
        }
        Ok(())
    }
}

/// The columns `pattern` to `other_cost` of an assignment.
fn hit_fields(line: &mut Vec<u8>, b: &Best, pattern_names: &[String], num: &mut itoa::Buffer) {
    match b.hit {
        Some(h) => {
            field(line, num.format(h.pattern + 1).as_bytes());
            field(line, pattern_names.get(h.pattern as usize).map_or(&b"NA"[..], |s| s.as_bytes()));
            field(line, num.format(h.cost).as_bytes());
            field(line, num.format(h.start + 1).as_bytes());
            field(line, num.format(h.end).as_bytes());
            field(line, if h.minus { b"-" } else { b"+" });
        }
        None => {
            for _ in 0..6 {
                field(line, b"NA");
            }
        }
    }
    match b.other_cost() {
        Some(c) => field(line, num.format(c).as_bytes()),
        None => field(line, b"NA"),
    }
}

/// `value` and a tab; tabs and line breaks inside it (a file name could
/// hold one) become spaces, so that every record is one line.
fn field(line: &mut Vec<u8>, value: &[u8]) {
    line.extend(value.iter().map(|&c| if c == b'\t' || c == b'\n' || c == b'\r' { b' ' } else { c }));
    line.push(b'\t');
}

/// The record's name: its header up to the first space or tab.
fn record_name(header: &[u8]) -> &[u8] {
    let end = header.iter().position(|&c| c == b' ' || c == b'\t').unwrap_or(header.len());
    &header[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::assign::BestHit;

    #[test]
    fn one_line_per_record_with_1_based_coordinates() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.tsv").to_string_lossy().into_owned();
        let rep = DemuxReport { path: path.clone(), output_names: vec!["s".into(), "unassigned".into(), "ambiguous".into()], pattern_names: vec!["bc1".into(), "bc2".into()] };
        let mut b = Batch { first: 4, ..Default::default() };
        for h in [&b"r5 desc"[..], b"r6", b"r7\tx"] {
            b.header.push(h);
            b.seq.push(b"A");
            b.raw.push(b">x\nA\n");
        }
        let hit = |pattern, cost, minus| Some(BestHit { cost, pattern, start: 9, end: 29, minus, sample: pattern, barcode_edits: 0 });
        let best = [Best { hit: hit(1, 2, true), other: None, missing: false }, Best::default(), Best { hit: hit(0, 1, false), other: hit(1, 1, false), missing: false }];
        let route = [(0, Some(1)), (1, None), (2, None)];
        let mut out = writer::Output::create(&path, None, 1024).unwrap();
        out.write_all(HEADER).unwrap();
        rep.write(&mut out, "in\tput.fq", &b, &best, &route, 0).unwrap();
        out.commit().unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(
            text,
            "file\trecord\tname\toutput\tpattern\tpattern_name\tcost\tstart\tend\tstrand\tother_cost\tstatus\n\
             in put.fq\t5\tr5\ts\t2\tbc2\t2\t10\t29\t-\tNA\tassigned\n\
             in put.fq\t6\tr6\tunassigned\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tunassigned\n\
             in put.fq\t7\tr7\tambiguous\t1\tbc1\t1\t10\t29\t+\t1\tambiguous\n"
        );
    }
}
