//! A full run's facts on disk while it analyses: each file's facts go to an
//! unnamed temporary file as they are made, and the run keeps only their
//! conventions in memory (on the Linux kernel the facts of every file were
//! 1 GB held until the graph was written). The store's full write reads the
//! lookup tables' keys and the facts back from it, then resolves against
//! the store a batch at a time.
//!
//! The spill holds each record as `graph.redb`'s `facts` table stores it
//! (bincode, LZ4), so the full write stores those bytes as they are. The file
//! has no name (`O_TMPFILE` where the system has it): a killed run leaves
//! nothing behind.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rustc_hash::FxHashMap;

use super::{Batches, FileFacts, GraphError, Result};

/// Where the facts of a full run's files are kept until the graph is written.
pub struct FactsSpill {
    dir: PathBuf,
    batches: Batches,
    file: Mutex<SpillFile>,
}

struct SpillFile {
    writer: std::io::BufWriter<std::fs::File>,
    end: u64,
    /// Path → (offset, length) of its record.
    at: FxHashMap<String, (u64, u32)>,
    /// Whether the writer's buffer reached the file since the last write.
    flushed: bool,
}

impl FactsSpill {
    /// A spill in the index's directory (on the index's disk, not `/tmp`),
    /// read back within `bounds`.
    pub fn create(index_dir: &Path, batches: Batches) -> Result<FactsSpill> {
        let dir = index_dir.to_path_buf();
        let file = tempfile::tempfile_in(&dir).map_err(|source| GraphError::Read { path: dir.clone(), source })?;
        Ok(FactsSpill {
            dir,
            batches,
            file: Mutex::new(SpillFile { writer: std::io::BufWriter::with_capacity(1 << 20, file), end: 0, at: FxHashMap::default(), flushed: true }),
        })
    }

    pub(super) fn batches(&self) -> Batches {
        self.batches
    }

    /// The index directory the spill (and its sorted runs) live in.
    pub(super) fn dir(&self) -> &Path {
        &self.dir
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, SpillFile> {
        // A panic while holding it fails the run anyway; the records written stay whole.
        self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn io_error(&self) -> impl Fn(std::io::Error) -> GraphError + '_ {
        |source| GraphError::Read { path: self.dir.clone(), source }
    }

    /// Writes `facts` of `path` to the spill and returns what the run keeps
    /// in memory: its language and conventions.
    pub fn keep(&self, path: &str, facts: FileFacts) -> Result<FileFacts> {
        let record = super::db::encode_value(&self.dir, &facts)?;
        {
            let mut spill = self.lock();
            spill.writer.write_all(&record).map_err(self.io_error())?;
            let at = (spill.end, record.len() as u32);
            spill.end += record.len() as u64;
            spill.flushed = false;
            spill.at.insert(path.to_string(), at);
        }
        Ok(FileFacts { language: facts.language, patterns: facts.patterns, ..FileFacts::default() })
    }

    /// The record of `path` as `graph.redb` stores it; `None` for a path never kept.
    pub(super) fn record(&self, path: &str) -> Result<Option<Vec<u8>>> {
        let mut spill = self.lock();
        let Some(&(offset, len)) = spill.at.get(path) else { return Ok(None) };
        if !std::mem::replace(&mut spill.flushed, true) {
            spill.writer.flush().map_err(self.io_error())?;
        }
        let end = spill.end;
        let file = spill.writer.get_mut();
        let mut record = vec![0; len as usize];
        file.seek(SeekFrom::Start(offset)).map_err(self.io_error())?;
        file.read_exact(&mut record).map_err(self.io_error())?;
        // The next record is written where the last one ended.
        file.seek(SeekFrom::Start(end)).map_err(self.io_error())?;
        Ok(Some(record))
    }

    /// The whole facts of `path` (calls included), as [`keep`](Self::keep) wrote them.
    pub(super) fn facts(&self, path: &str) -> Result<Option<(FileFacts, Vec<u8>)>> {
        let Some(record) = self.record(path)? else { return Ok(None) };
        Ok(Some((super::db::decode_value(&self.dir, &record)?, record)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_kept_is_read_back_whole_and_memory_keeps_only_conventions() {
        let dir = tempfile::tempdir().unwrap();
        let spill = FactsSpill::create(dir.path(), crate::index::MemoryBounds::default().graph()).unwrap();
        let mut facts = FileFacts { module_calls: vec!["main".into()], ..FileFacts::default() };
        facts.symbols.push(crate::graph::SymbolFact {
            qualified_name: "f".into(),
            name: "f".into(),
            kind: crate::analysis::kind::Kind::Function,
            parent: None,
            start_line: 1,
            end_line: 3,
            calls: vec!["g".into(), "h".into()],
            bases: Vec::new(),
        });
        let mut other = facts.clone();
        other.symbols[0].name = "other".into();
        let slim = spill.keep("a.c", facts.clone()).unwrap();
        assert!(slim.module_calls.is_empty() && slim.symbols.is_empty() && slim.imports.is_empty());
        // Reads between writes see every record written so far.
        assert_eq!(spill.facts("a.c").unwrap().unwrap().0, facts);
        spill.keep("b.c", other.clone()).unwrap();
        assert_eq!(spill.facts("b.c").unwrap().unwrap().0, other);
        assert_eq!(spill.facts("a.c").unwrap().unwrap().0, facts);
        assert!(spill.facts("c.c").unwrap().is_none());
        // Nothing is left in the directory: the file has no name.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
