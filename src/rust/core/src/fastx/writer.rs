//! Output of `filter` and `demultiplex`: records are written to a temporary
//! file next to the output, plain or gzip-compressed, and renamed onto the
//! output only when everything succeeded, so a failed or interrupted run
//! leaves no partial output (and an existing output file untouched).
//!
//! gzip outputs are compressed in blocks on threads of their own
//! (`gzip_blocks.rs`): the outputs of a run share one [`Gzip`].

use super::gzip_blocks::{self, Deflater, Stream};
use super::FastxError;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where the records go; call [`Output::commit`] to finish, or drop it to
/// remove the temporary file.
pub struct Output {
    path: String,
    tmp: PathBuf,
    sink: Option<Sink>,
    committed: bool,
}

// one per filter call: the size difference of the variants does not matter
#[allow(clippy::large_enum_variant)]
enum Sink {
    Plain(BufWriter<File>),
    Gzip(Stream<File>),
}

/// The compression of a run's gzip outputs (level, threads, the blocks in
/// flight), shared by them.
pub type Gzip = Deflater<File>;

/// The compression level of gzip outputs when none is given (R's default
/// too): the fastest (zlib-rs's quick deflate, 75% of real nanopore FASTQ),
/// which keeps a run with gzip outputs within 3 times one with plain
/// outputs on two cores (issue 39, `benchmarks/runs.md`); level 2 writes
/// 55% at about 1.3 times its time (see `gzip_blocks.rs` for the ladder).
pub const DEFAULT_LEVEL: u32 = 1;

/// The compression of gzip outputs at `level` (1-9) on `threads` threads.
pub fn gzip(level: u32, threads: usize) -> Result<Gzip, FastxError> {
    Deflater::new(level, threads).map_err(|m| crate::error::CoreError::Internal(m).into())
}

/// The write buffer of a single output (a filter's).
pub const BUF: usize = 1 << 20;
/// The write buffer of each of many outputs (a demultiplexer's): 1 MiB each
/// for a hundred outputs would hold most of their data until the end (to be
/// written then, on one thread) and cost a page fault per page.
pub const BUF_MANY: usize = 64 << 10;

impl Output {
    /// Create the temporary file for `path` (in the same folder), written
    /// through a buffer of `buf` bytes, or compressed by `gzip`.
    pub fn create(path: &str, gzip: Option<&Gzip>, buf: usize) -> Result<Self, FastxError> {
        let target = Path::new(path);
        let name = target
            .file_name()
            .ok_or_else(|| FastxError::Write { path: path.to_string(), message: "it is not a file name".into() })?;
        let mut tmp_name = std::ffi::OsString::from(".");
        tmp_name.push(name);
        tmp_name.push(format!(".ducksassy-{}.tmp", std::process::id()));
        let tmp = target.with_file_name(tmp_name);
        let file = File::create(&tmp).map_err(|e| write_error(path, &e))?;
        let sink = match gzip {
            // (whole members, each written once: no buffer)
            Some(g) => Sink::Gzip(g.stream(file, path)),
            None => Sink::Plain(BufWriter::with_capacity(buf, file)),
        };
        Ok(Output { path: path.to_string(), tmp, sink: Some(sink), committed: false })
    }

    pub fn write_all(&mut self, bytes: &[u8]) -> Result<(), FastxError> {
        match self.sink.as_mut() {
            Some(Sink::Plain(w)) => w.write_all(bytes).map_err(|e| write_error(&self.path, &e)),
            Some(Sink::Gzip(w)) => w.write_all(bytes).map_err(block_error),
            None => Ok(()),
        }
    }

    /// Flush (compress and write the last blocks of a gzip output), sync
    /// and move the file onto the output. Every failure to write (a full
    /// disk) is an error here, none is lost.
    pub fn commit(self) -> Result<(), FastxError> {
        self.finish(true)
    }

    /// [`Output::commit`] without the sync to disk: the renamed file is
    /// complete for every reader (the kernel has all its bytes), only not
    /// yet durable against a power loss. For the many outputs of a
    /// demultiplexing, where a sync each (98 of them for 96 barcodes) cost
    /// more than the search.
    pub fn commit_unsynced(self) -> Result<(), FastxError> {
        self.finish(false)
    }

    fn finish(self, sync: bool) -> Result<(), FastxError> {
        self.close(sync)?.rename()
    }

    /// Flush, finish the gzip stream and close the temporary file (synced
    /// to disk with `sync`), without renaming it: the first half of a
    /// commit. Outputs that belong together (a demultiplexing's) are all
    /// closed first and renamed only when every one closed, so a failure
    /// (a full disk, say) replaces none of an earlier run's files.
    pub fn close(mut self, sync: bool) -> Result<Closed, FastxError> {
        let file = match self.sink.take() {
            Some(Sink::Plain(w)) => w.into_inner().map_err(|e| write_error(&self.path, e.error()))?,
            Some(Sink::Gzip(w)) => w.finish().map_err(block_error)?,
            None => return Err(write_error(&self.path, &std::io::Error::other("the output was closed before"))),
        };
        if sync {
            file.sync_all().map_err(|e| write_error(&self.path, &e))?;
        }
        drop(file);
        // the temporary file now belongs to the `Closed`
        self.committed = true;
        Ok(Closed { path: std::mem::take(&mut self.path), tmp: std::mem::take(&mut self.tmp), renamed: false })
    }
}

/// A complete output under its temporary name (see [`Output::close`]):
/// [`Closed::rename`] moves it onto the output; dropped, it is removed.
pub struct Closed {
    path: String,
    tmp: PathBuf,
    renamed: bool,
}

impl Closed {
    pub fn rename(mut self) -> Result<(), FastxError> {
        std::fs::rename(&self.tmp, &self.path).map_err(|e| write_error(&self.path, &e))?;
        self.renamed = true;
        Ok(())
    }
}

/// Rename every closed output onto its path, as one transaction (issue 52):
/// the files already at the paths are first moved aside (a destination
/// that is a folder is refused before anything moves), then the outputs
/// renamed; a failure at any step puts every earlier file back where it
/// was (the new outputs removed), so a failed run replaces nothing.
pub fn rename_all(closed: Vec<Closed>) -> Result<(), FastxError> {
    for c in &closed {
        if std::fs::symlink_metadata(&c.path).is_ok_and(|m| m.is_dir()) {
            return Err(write_error(&c.path, &std::io::Error::other("the output is a folder")));
        }
    }
    // (path, its earlier file's name aside, if it had one)
    let mut aside: Vec<(&str, Option<PathBuf>)> = Vec::with_capacity(closed.len());
    let undo = |aside: &[(&str, Option<PathBuf>)]| {
        for (path, old) in aside.iter().rev() {
            match old {
                Some(old) => {
                    let _ = std::fs::rename(old, path);
                }
                None => {
                    let _ = std::fs::remove_file(path);
                }
            }
        }
    };
    for c in &closed {
        let old = if std::fs::symlink_metadata(&c.path).is_ok() { Some(aside_name(&c.tmp)) } else { None };
        if let Some(o) = &old {
            if let Err(e) = std::fs::rename(&c.path, o) {
                undo(&aside);
                return Err(write_error(&c.path, &e));
            }
        }
        aside.push((&c.path, old));
    }
    // every earlier file is aside: the outputs go in
    let mut done: Vec<(&str, Option<PathBuf>)> = Vec::with_capacity(closed.len());
    for (i, c) in closed.iter().enumerate() {
        if let Err(e) = std::fs::rename(&c.tmp, &c.path) {
            // the ones renamed are removed and their earlier files restored;
            // the rest get theirs back
            undo(&done);
            for (path, old) in aside[i..].iter() {
                if let Some(old) = old {
                    let _ = std::fs::rename(old, path);
                }
            }
            return Err(write_error(&c.path, &e));
        }
        done.push(aside[i].clone());
    }
    for (_, old) in &aside {
        if let Some(old) = old {
            let _ = std::fs::remove_file(old);
        }
    }
    let mut closed = closed;
    for c in &mut closed {
        c.renamed = true;
    }
    Ok(())
}

/// The name an earlier file is moved aside to while a run's outputs are
/// renamed: its temporary file's, with `.old`.
fn aside_name(tmp: &Path) -> PathBuf {
    let mut name = tmp.as_os_str().to_owned();
    name.push(".old");
    PathBuf::from(name)
}

impl Drop for Closed {
    fn drop(&mut self) {
        if !self.renamed {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        if !self.committed {
            drop(self.sink.take());
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

fn write_error(path: &str, e: &std::io::Error) -> FastxError {
    let mut message = e.to_string();
    if e.raw_os_error() == Some(EMFILE) {
        // one open file per output (and mate output): with hundreds of
        // samples the process's limit of open files is reached
        message.push_str("; every output is an open file: raise the limit of open files (`ulimit -n` in the shell that starts R, e.g. `ulimit -n 4096`), or demultiplex fewer samples per run");
    }
    FastxError::Write { path: path.to_string(), message }
}

/// "Too many open files" (Linux and macOS).
const EMFILE: i32 = 24;

/// (the output that failed may be another of the run's: its blocks are
/// written as the queue goes)
fn block_error(e: gzip_blocks::WriteError) -> FastxError {
    write_error(&e.label, &e.error)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed(path: &Path, text: &[u8]) -> Closed {
        let mut o = Output::create(path.to_str().unwrap(), None, BUF).unwrap();
        o.write_all(text).unwrap();
        o.close(false).unwrap()
    }

    #[test]
    fn the_outputs_replace_their_files_all_or_none() {
        // issue 52: an output that is a folder now fails the run before a
        // file is replaced; one whose rename fails puts every file back
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (dir.path().join("a.fq"), dir.path().join("b.fq"), dir.path().join("c.fq"));
        std::fs::write(&a, b"old a").unwrap();
        std::fs::create_dir(&b).unwrap();
        let run = vec![closed(&a, b"new a"), closed(&b, b"new b"), closed(&c, b"new c")];
        assert!(rename_all(run).is_err());
        assert_eq!(std::fs::read(&a).unwrap(), b"old a");
        assert!(b.is_dir() && !c.exists());
        // only the earlier files and the folder are left
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // a rename that fails (a folder at the destination, made after the
        // check) restores the files moved aside
        std::fs::remove_dir(&b).unwrap();
        std::fs::write(&b, b"old b").unwrap();
        let run = vec![closed(&a, b"new a"), closed(&b, b"new b")];
        let (ca, cb) = (run[0].tmp.clone(), run[1].tmp.clone());
        // b's temporary file is gone: its rename fails after a's
        std::fs::remove_file(&cb).unwrap();
        assert!(ca.exists());
        assert!(rename_all(run).is_err());
        assert_eq!(std::fs::read(&a).unwrap(), b"old a");
        assert_eq!(std::fs::read(&b).unwrap(), b"old b");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
        // and all well: every file replaced, nothing aside left
        let run = vec![closed(&a, b"new a"), closed(&b, b"new b"), closed(&c, b"new c")];
        rename_all(run).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"new a");
        assert_eq!(std::fs::read(&b).unwrap(), b"new b");
        assert_eq!(std::fs::read(&c).unwrap(), b"new c");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    }
}
