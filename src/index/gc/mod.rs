//! `git rag gc`: the vector cache only ever grows (every version of every
//! text ever embedded, under every model ever used). This finds what the
//! index no longer references and, when asked, deletes it.
//!
//! Referenced = the cache keys of the documents of every indexed file at the
//! indexed commit, plus the conventions' documents: derived again by chunking
//! the files (the stores keep no texts), so the answer cannot drift from what
//! an index run would embed. Caches of other models or sizes are referenced
//! by nothing. The index lock is held throughout, so no run interleaves.
//! Embedded store only: a server's cache is shared by every repository and
//! branch on it, which one clone cannot see.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::git::Repo;
use crate::progress::Progress;
use crate::semantic::docs::{pattern_documents, Doc};
use crate::stores::state::{IndexLock, IndexState, STATE_FILE};
use crate::stores::vector::edge::{Access, EdgeStore};
use crate::stores::vector::{point_id, Backend, Collection, VectorStore};

use super::analyze::{self, FileOutcome};
use super::{IndexError, Result};

pub mod server;

/// What gc found, and what it deleted.
#[derive(Debug, Clone, Default, Serialize)]
pub struct GcReport {
    /// Deleted (`--yes`), or only counted (a dry run).
    pub applied: bool,
    /// Cached vectors of the index's model.
    pub cached: usize,
    /// Of those, the ones the index references.
    pub referenced: usize,
    /// Cached vectors nothing references (deleted when `applied`).
    pub unreferenced: usize,
    /// Caches of other models or sizes (removed whole when `applied`).
    pub other_caches: Vec<PathBuf>,
    /// Files whose blob could not be read: gc keeps everything then.
    pub unreadable: usize,
}

/// Finds unreferenced cached vectors of the index in `index_dir` (embedded
/// store); deletes them when `apply`.
pub fn gc(repo: &Repo, index_dir: &Path, chunk: &crate::analysis::chunk::ChunkOptions, backend: &Backend, apply: bool, progress: &dyn Progress) -> Result<GcReport> {
    if let Backend::Server(o) = backend {
        return Err(IndexError::Gc(format!(
            "the vector cache on the Qdrant server {} is shared by every repository and branch on it; gc works on an embedded store only",
            o.url
        )));
    }
    let _lock = IndexLock::acquire(index_dir, Duration::from_secs(10))?;
    let state = IndexState::load(&index_dir.join(STATE_FILE))?.ok_or_else(|| IndexError::Gc("no index here yet: nothing to collect".into()))?;
    if state.config_hash != super::config_hash(chunk) {
        return Err(IndexError::Gc("the chunking options changed since the last run: run `git rag index` first".into()));
    }
    let qdrant = index_dir.join("qdrant");
    let Some(sem) = state.semantic.as_ref() else {
        // Vectors of an index that has none any more.
        let mut report = GcReport { applied: apply, ..GcReport::default() };
        if qdrant.exists() {
            report.other_caches.push(qdrant.clone());
            if apply {
                std::fs::remove_dir_all(&qdrant).map_err(|e| IndexError::Gc(format!("cannot remove {}: {e}", qdrant.display())))?;
            }
        }
        return Ok(report);
    };
    let (referenced, unreadable) = referenced_keys(repo, index_dir, &state, &sem.model, chunk, progress)?;
    let store = EdgeStore::open(&qdrant, sem.dims, &sem.model, if apply { Access::Write } else { Access::Read }, Duration::from_secs(30))?;
    let cached: Vec<u64> = store.scroll_all(Collection::VectorCache, false)?.into_iter().map(|r| r.id).collect();
    let unreferenced: Vec<u64> = cached.iter().copied().filter(|id| !referenced.contains(id)).collect();
    let current = store.cache_dir();
    let other_caches: Vec<PathBuf> = std::fs::read_dir(&qdrant)
        .map_err(|e| IndexError::Gc(format!("cannot list {}: {e}", qdrant.display())))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&format!("{}_", Collection::VectorCache.name()))) && *p != current)
        .collect();
    let mut report = GcReport {
        applied: apply && unreadable == 0,
        cached: cached.len(),
        referenced: cached.len() - unreferenced.len(),
        unreferenced: unreferenced.len(),
        other_caches,
        unreadable,
    };
    if unreadable > 0 {
        // Their texts are unknown: their vectors may be among the "unreferenced".
        progress.note(&format!("{unreadable} indexed files could not be read; nothing is deleted"));
        return Ok(report);
    }
    if apply {
        store.delete_ids(Collection::VectorCache, &unreferenced)?;
        store.commit(true)?;
        drop(store);
        for dir in &report.other_caches {
            std::fs::remove_dir_all(dir).map_err(|e| IndexError::Gc(format!("cannot remove {}: {e}", dir.display())))?;
        }
    } else {
        report.applied = false;
    }
    Ok(report)
}

/// The cache point ids of every document the index holds, and how many
/// indexed files could not be read.
fn referenced_keys(repo: &Repo, index_dir: &Path, state: &IndexState, model: &str, chunk: &crate::analysis::chunk::ChunkOptions, progress: &dyn Progress) -> Result<(HashSet<u64>, usize)> {
    let Some(commit) = state.last_commit.as_deref() else { return Ok((HashSet::new(), 0)) };
    let commit = repo.resolve(commit)?;
    let files: Vec<_> = repo.list_files(&commit)?.into_iter().filter(|f| state.files.contains_key(&f.path)).collect();
    let derive = |file: &crate::git::TreeFile, chunks: crate::analysis::chunk::FileChunks| -> Result<Vec<Doc>> {
        Ok(crate::semantic::docs::documents(&file.path, &file.id.to_string(), &chunks, model))
    };
    let mut keys = HashSet::new();
    let mut unreadable = 0;
    for (_, outcome) in analyze::analyze(repo, files, chunk, progress, derive) {
        match outcome? {
            FileOutcome::Indexed { product, .. } => keys.extend(product.iter().map(|d| point_id(d.key))),
            FileOutcome::Binary => {}
            FileOutcome::Unreadable(_) => unreadable += 1,
        }
    }
    let patterns = crate::graph::load_patterns(index_dir)?;
    keys.extend(pattern_documents(&patterns, model).iter().map(|d| point_id(d.key)));
    Ok((keys, unreadable))
}
