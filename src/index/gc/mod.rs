//! `git rag gc`: the vector cache only ever grows (every version of every
//! text ever embedded, under every model ever used). This finds what the
//! index no longer references and, when asked, deletes it.
//!
//! Referenced = the cache keys of the documents of every indexed file at the
//! indexed commit, plus the conventions' documents: derived again by chunking
//! the files (the stores keep no texts), so the answer cannot drift from what
//! an index run would embed. Caches of other models or sizes are referenced
//! by nothing. The cache is shared by the worktrees of a repository: the
//! references of every index that wrote it count, each read under its own
//! lock, so no run interleaves; when one cannot be read, nothing is deleted.
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
    /// Of those, the ones an index that uses the cache references.
    pub referenced: usize,
    /// Cached vectors nothing references (deleted when `applied`).
    pub unreferenced: usize,
    /// The other indexes sharing the cache (other worktrees) whose references
    /// were counted.
    pub other_indexes: Vec<PathBuf>,
    /// Caches of other models or sizes (removed whole when `applied`).
    pub other_caches: Vec<PathBuf>,
    /// Files whose blob could not be read: gc keeps everything then.
    pub unreadable: usize,
    /// Why nothing was deleted although some vectors look unreferenced (an
    /// index sharing the cache is busy or cannot be read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kept_because: Option<String>,
}

/// An index sharing the cache, as gc sees it.
enum OtherIndex {
    /// Its references, counted.
    Counted { model: String },
    /// Removed since it registered.
    Gone,
    /// Uses the cache but cannot be read now: keep everything.
    Unknown(String),
}

/// Finds unreferenced cached vectors of the index in `index_dir` (embedded
/// store) and of every other index sharing its cache (the repository's other
/// worktrees); deletes them when `apply`.
pub fn gc(
    repo: &Repo,
    index_dir: &Path,
    chunk: &crate::analysis::chunk::ChunkOptions,
    backend: &Backend,
    apply: bool,
    progress: &dyn Progress,
) -> Result<GcReport> {
    let cache_root = match backend {
        Backend::Server(o) => {
            return Err(IndexError::Gc(format!(
                "the vector cache on the Qdrant server {} is shared by every repository and branch on it; gc works on an embedded store only",
                o.url
            )))
        }
        Backend::Embedded { .. } => backend.vector_cache_root(index_dir).unwrap_or_else(|| index_dir.join("vectors")),
    };
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
    let (mut referenced, unreadable) = referenced_keys(repo, index_dir, &state, &sem.model, chunk, progress)?;
    let store = EdgeStore::open(&qdrant, &cache_root, sem.dims, &sem.model, if apply { Access::Write } else { Access::Read }, Duration::from_secs(30))?;
    let cache = store.cache();

    // Every other index that wrote this cache: its references count too.
    let own = std::fs::canonicalize(index_dir).unwrap_or_else(|_| index_dir.to_path_buf());
    let mut report = GcReport { unreadable, ..GcReport::default() };
    let mut models_in_use = HashSet::from([cache_name(&sem.model, sem.dims)]);
    let mut gone = Vec::new();
    let mut _their_locks = Vec::new();
    for other in cache.users().into_iter().filter(|u| *u != own) {
        match other_references(repo, &other, chunk, progress, &mut referenced, &mut _their_locks) {
            OtherIndex::Counted { model } => {
                models_in_use.insert(model);
                report.other_indexes.push(other);
            }
            OtherIndex::Gone => gone.push(other),
            OtherIndex::Unknown(why) => {
                report.kept_because.get_or_insert(format!("{}: {why}", other.display()));
            }
        }
    }
    let cached: Vec<u64> = store.scroll_all(Collection::VectorCache, false)?.into_iter().map(|r| r.id).collect();
    let unreferenced: HashSet<u64> = cached.iter().copied().filter(|id| !referenced.contains(id)).collect();
    report.cached = cached.len();
    report.referenced = cached.len() - unreferenced.len();
    report.unreferenced = unreferenced.len();
    report.other_caches = unused_caches(&cache_root, &store.cache_dir(), &qdrant, &models_in_use);
    if unreadable > 0 {
        // Their texts are unknown: their vectors may be among the "unreferenced".
        progress.note(&format!("{unreadable} indexed files could not be read; nothing is deleted"));
        return Ok(report);
    }
    if let Some(why) = &report.kept_because {
        progress.note(&format!("an index sharing the vector cache cannot be read ({why}); nothing is deleted"));
        return Ok(report);
    }
    if apply {
        cache.remove(&unreferenced, Duration::from_secs(30))?;
        cache.forget_users(&gone)?;
        store.commit(true)?;
        drop(store);
        for dir in &report.other_caches {
            std::fs::remove_dir_all(dir).map_err(|e| IndexError::Gc(format!("cannot remove {}: {e}", dir.display())))?;
        }
        report.applied = true;
    }
    Ok(report)
}

/// Other models' caches under the shared root `cache_root` that no index
/// uses now (`models_in_use`; `current` is this index's own), and the cache
/// shards in `qdrant` of indexes made before the cache moved out.
fn unused_caches(cache_root: &Path, current: &Path, qdrant: &Path, models_in_use: &HashSet<String>) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    if let Ok(entries) = std::fs::read_dir(cache_root) {
        found.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p != current && is_model_cache(p) && !p.file_name().is_some_and(|n| models_in_use.contains(&*n.to_string_lossy()))),
        );
    }
    if let Ok(entries) = std::fs::read_dir(qdrant) {
        found.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with(&format!("{}_", Collection::VectorCache.name())))),
        );
    }
    found.sort();
    found
}

/// Whether `dir` is a model's vector cache (`<model>_<dims>` holding
/// segments or its users list): nothing else under a configured cache
/// directory is ever removed.
fn is_model_cache(dir: &Path) -> bool {
    let named = dir
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.rsplit_once('_'))
        .is_some_and(|(_, dims)| !dims.is_empty() && dims.bytes().all(|b| b.is_ascii_digit()));
    let holds = std::fs::read_dir(dir).map(|entries| {
        entries.flatten().all(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            name.ends_with(".vec") || name == "users" || name == "compact.lock" || (name.starts_with('.') && name.ends_with(".tmp"))
        })
    });
    dir.is_dir() && named && holds.unwrap_or(false)
}

/// The directory name of a model's cache ([`crate::stores::vector::cache::VectorCache`]).
fn cache_name(model: &str, dims: usize) -> String {
    format!("{}_{dims}", crate::stores::vector::sanitize(model))
}

/// Adds the references of another index sharing the cache (another
/// worktree's), holding its lock (kept in `locks`) so that no run of it
/// interleaves.
fn other_references(
    repo: &Repo,
    dir: &Path,
    chunk: &crate::analysis::chunk::ChunkOptions,
    progress: &dyn Progress,
    referenced: &mut HashSet<u64>,
    locks: &mut Vec<IndexLock>,
) -> OtherIndex {
    if !dir.join(STATE_FILE).exists() {
        return OtherIndex::Gone;
    }
    match IndexLock::acquire(dir, Duration::from_secs(10)) {
        Ok(lock) => locks.push(lock),
        Err(e) => return OtherIndex::Unknown(e.to_string()),
    }
    let state = match IndexState::load(&dir.join(STATE_FILE)) {
        Ok(Some(state)) => state,
        Ok(None) => return OtherIndex::Gone,
        Err(e) => return OtherIndex::Unknown(e.to_string()),
    };
    let Some(sem) = state.semantic.as_ref() else { return OtherIndex::Counted { model: String::new() } };
    if state.config_hash != super::config_hash(chunk) {
        return OtherIndex::Unknown("its chunking options differ from this worktree's".into());
    }
    match referenced_keys(repo, dir, &state, &sem.model, chunk, progress) {
        Ok((keys, 0)) => {
            referenced.extend(keys);
            OtherIndex::Counted { model: cache_name(&sem.model, sem.dims) }
        }
        Ok((_, unreadable)) => OtherIndex::Unknown(format!("{unreadable} of its files could not be read")),
        Err(e) => OtherIndex::Unknown(e.to_string()),
    }
}

/// The cache point ids of every document the index holds, and how many
/// indexed files could not be read.
fn referenced_keys(
    repo: &Repo,
    index_dir: &Path,
    state: &IndexState,
    model: &str,
    chunk: &crate::analysis::chunk::ChunkOptions,
    progress: &dyn Progress,
) -> Result<(HashSet<u64>, usize)> {
    let Some(commit) = state.last_commit else { return Ok((HashSet::new(), 0)) };
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
