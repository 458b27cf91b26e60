//! Sorting more strings than a run should hold: they are gathered up to a
//! size, sorted, and written to an unnamed temporary file (a sorted run);
//! reading them back merges the runs. A full run's lookup tables are sorted
//! this way (on the Linux kernel the `defs` table alone is 3.8 M entries,
//! ~0.3 GB as strings), so that their sort takes memory by the run, not by
//! the repository. Strings that fit one run are never written.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{BufRead, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{GraphError, Result};

/// What a string costs in a run besides its bytes (its `String`).
const PER_STRING: usize = std::mem::size_of::<String>();

pub(super) struct SortedRuns {
    dir: PathBuf,
    run_bytes: usize,
    buffer: Vec<String>,
    buffered: usize,
    runs: Vec<std::fs::File>,
}

impl SortedRuns {
    /// Runs of at most `run_bytes`, written (when there is more than one)
    /// as unnamed files in `dir`.
    pub(super) fn new(dir: &Path, run_bytes: usize) -> SortedRuns {
        SortedRuns { dir: dir.to_path_buf(), run_bytes: run_bytes.max(1), buffer: Vec::new(), buffered: 0, runs: Vec::new() }
    }

    fn io_error(&self) -> impl Fn(std::io::Error) -> GraphError + '_ {
        |source| GraphError::Read { path: self.dir.clone(), source }
    }

    pub(super) fn push(&mut self, s: String) -> Result<()> {
        self.buffered += s.len() + PER_STRING;
        self.buffer.push(s);
        if self.buffered >= self.run_bytes {
            self.write_run()?;
        }
        Ok(())
    }

    /// The buffer, sorted and without repeats: each string as its length
    /// (4 bytes, little-endian) and its bytes.
    fn write_run(&mut self) -> Result<()> {
        let mut run = std::mem::take(&mut self.buffer);
        self.buffered = 0;
        run.par_sort_unstable();
        run.dedup();
        let file = tempfile::tempfile_in(&self.dir).map_err(self.io_error())?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        for s in &run {
            let len = u32::try_from(s.len()).map_err(|_| self.io_error()(std::io::Error::other("a lookup entry over 4 GB")))?;
            out.write_all(&len.to_le_bytes()).and_then(|_| out.write_all(s.as_bytes())).map_err(self.io_error())?;
        }
        let mut file = out.into_inner().map_err(|e| self.io_error()(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(self.io_error())?;
        self.runs.push(file);
        Ok(())
    }

    /// Every string pushed, in order, each once, to `each`.
    pub(super) fn drain_sorted(mut self, mut each: impl FnMut(&str) -> Result<()>) -> Result<()> {
        if self.runs.is_empty() {
            self.buffer.par_sort_unstable();
            self.buffer.dedup();
            return self.buffer.iter().try_for_each(|s| each(s));
        }
        if !self.buffer.is_empty() {
            self.write_run()?;
        }
        let dir = self.dir.clone();
        let mut readers: Vec<RunReader> = self.runs.into_iter().map(|f| RunReader { input: BufReader::with_capacity(1 << 16, f), dir: dir.clone() }).collect();
        // The smallest next string of every run, with the run it came from.
        let mut heads: BinaryHeap<Reverse<(String, usize)>> = BinaryHeap::new();
        for (i, r) in readers.iter_mut().enumerate() {
            if let Some(s) = r.next()? {
                heads.push(Reverse((s, i)));
            }
        }
        let mut last: Option<String> = None;
        while let Some(Reverse((s, i))) = heads.pop() {
            if let Some(next) = readers[i].next()? {
                heads.push(Reverse((next, i)));
            }
            if last.as_deref() != Some(s.as_str()) {
                each(&s)?;
                last = Some(s);
            }
        }
        Ok(())
    }
}

struct RunReader {
    input: BufReader<std::fs::File>,
    dir: PathBuf,
}

impl RunReader {
    fn next(&mut self) -> Result<Option<String>> {
        let error = |source| GraphError::Read { path: self.dir.clone(), source };
        if self.input.fill_buf().map_err(error)?.is_empty() {
            return Ok(None);
        }
        let mut len = [0u8; 4];
        self.input.read_exact(&mut len).map_err(error)?;
        let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
        self.input.read_exact(&mut bytes).map_err(error)?;
        String::from_utf8(bytes).map(Some).map_err(|e| error(std::io::Error::new(std::io::ErrorKind::InvalidData, e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(strings: &[&str], run_bytes: usize) -> Vec<String> {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut runs = SortedRuns::new(dir.path(), run_bytes);
        for s in strings {
            runs.push(s.to_string()).expect("push");
        }
        let mut out = Vec::new();
        runs.drain_sorted(|s| {
            out.push(s.to_string());
            Ok(())
        })
        .expect("drain");
        assert_eq!(std::fs::read_dir(dir.path()).expect("dir").count(), 0, "a run left a named file");
        out
    }

    #[test]
    fn runs_merge_into_one_sorted_list_without_repeats() {
        let words: Vec<String> = (0..500).map(|i| format!("k{}\0p{}", (i * 7919) % 211, i % 3)).collect();
        let words: Vec<&str> = words.iter().map(String::as_str).collect();
        let mut expected: Vec<String> = words.iter().map(|s| s.to_string()).collect();
        expected.sort();
        expected.dedup();
        // One run in memory, and many on disk (a few strings each), give the same.
        assert_eq!(sorted(&words, usize::MAX), expected);
        assert_eq!(sorted(&words, 100), expected);
        assert_eq!(sorted(&[], 100), Vec::<String>::new());
    }
}
