//! The analyze step every run shares (local and `--ci`): which tree entries
//! are indexed at all, then, in parallel (rayon), read each blob, skip
//! binaries, parse and chunk it, and derive what each store needs. The
//! caller's `derive` runs on the worker thread: it writes a file's chunks
//! where they go (the local keyword index) and keeps only what the run needs
//! later, so a full run never holds every file's chunks at once.

use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::chunk::{self, ChunkOptions, FileChunks};
use crate::analysis::lang;
use crate::git::{BlobReader, EntryKind, Repo, TreeFile};
use crate::progress::{Progress, Step};

/// Tree entries and blobs that are not indexed, by reason.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Skipped {
    pub binary: usize,
    pub symlink: usize,
    pub submodule: usize,
    pub generated: usize,
    /// Left out by `rag.include` / `rag.exclude` or `.gitattributes`.
    pub excluded: usize,
    /// Blobs that could not be read (CI runs; a local run keeps them pending).
    pub unreadable: usize,
}

/// Keeps the entries that are indexed (blobs, not generated files) and counts the others.
pub fn select(files: Vec<TreeFile>, skipped: &mut Skipped) -> Vec<TreeFile> {
    let mut kept = Vec::with_capacity(files.len());
    for f in files {
        match f.kind {
            EntryKind::Symlink => skipped.symlink += 1,
            EntryKind::Submodule => skipped.submodule += 1,
            EntryKind::Blob if crate::analysis::role::is_generated(&f.path) => skipped.generated += 1,
            EntryKind::Blob => kept.push(f),
        }
    }
    kept
}

/// What became of one file: the caller's product of its chunks, or why it was skipped.
pub enum FileOutcome<T> {
    Indexed {
        product: T,
        bytes: u64,
    },
    Binary,
    /// The blob could not be read: why.
    Unreadable(String),
}

/// Analyzes `files` in parallel: `derive` turns each parsed file into what
/// the caller keeps (and may write it to a store on the way; it may fail the
/// file). Results come in input order.
pub fn analyze<T: Send, E: Send>(
    repo: &Repo,
    files: Vec<TreeFile>,
    chunk_opts: &ChunkOptions,
    progress: &dyn Progress,
    derive: impl Fn(&TreeFile, FileChunks) -> Result<T, E> + Sync,
) -> Vec<(TreeFile, Result<FileOutcome<T>, E>)> {
    progress.begin(Step::Analyze, files.len() as u64);
    let results = files
        .into_par_iter()
        .map_init(
            || BlobReader::new(repo),
            |reader, file| {
                let outcome = analyze_one(reader, &file, chunk_opts, progress, &derive);
                progress.advance(1);
                (file, outcome)
            },
        )
        .collect();
    progress.end();
    results
}

fn analyze_one<T, E>(
    reader: &BlobReader,
    file: &TreeFile,
    chunk_opts: &ChunkOptions,
    progress: &dyn Progress,
    derive: &impl Fn(&TreeFile, FileChunks) -> Result<T, E>,
) -> Result<FileOutcome<T>, E> {
    let data = match reader.read(&file.id) {
        Ok(data) => data,
        // The object id is recorded beside the reason: keep gix's words only.
        Err(crate::git::GitError::Object { message, .. }) => return Ok(FileOutcome::Unreadable(message)),
        Err(e) => return Ok(FileOutcome::Unreadable(e.to_string())),
    };
    if lang::looks_binary(&data) {
        return Ok(FileOutcome::Binary);
    }
    if data.len() > chunk_opts.max_parse_bytes && lang::Language::detect(&file.path, &data).grammar().is_some() {
        progress.note(&format!(
            "{}: {} bytes is over rag.maxFileBytes ({}): indexed as text windows, without symbols or graph edges (raise `git config rag.maxFileBytes` to parse it)",
            file.path,
            data.len(),
            chunk_opts.max_parse_bytes
        ));
    }
    let chunks = chunk::chunk_file(&file.path, &data, chunk_opts);
    if chunks.parse_too_costly {
        progress.note(&format!(
            "{}: its grammar's parse cost more than its {} bytes allow (it read over {}× them, or its parse or its tags query ran past {} µs of CPU per byte): indexed as text windows, without symbols or graph edges",
            file.path,
            data.len(),
            crate::analysis::tags::PARSE_READ_FACTOR,
            crate::analysis::tags::PARSE_TIME_PER_BYTE.as_secs_f64() * 1e6
        ));
    }
    Ok(FileOutcome::Indexed { product: derive(file, chunks)?, bytes: data.len() as u64 })
}
