//! CI indexing: the pushed commit into a Qdrant server, with the index state
//! kept in the server beside the collections (`git rag index --ci`,
//! `scripts/ci-index`).
//!
//! A CI job starts from a fresh, often shallow clone (`fetch-depth: 1`): there
//! is no local index and the last indexed commit is usually not in the object
//! database, so nothing can be diffed. Instead the server keeps, per
//! collection prefix, the last indexed commit and every file's blob id (plus
//! its pattern instances, so PATTERNS can be aggregated without parsing the
//! unchanged files). A run lists the target tree, compares blob ids, and
//! re-indexes only the paths whose blob changed, appeared or vanished. That
//! needs no history at all, and it is exactly the path-level unit of work of
//! a local run (invariant 2 in ARCHITECTURE.md).
//!
//! Branches: each branch gets its own collection prefix (`<repo prefix>_<branch>`,
//! see [`branch_prefix`]), so branches never clobber each other; the vector
//! cache is one collection per model on the server, so identical content on
//! two branches is embedded once.
//!
//! Crash safety: before touching a collection the run saves the state with
//! the paths it is about to change as `pending` (a full run: `pending_full`);
//! the next run redoes them. The state write itself is atomic (new parts
//! first, header last; see `ServerStore::save_state`).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::chunk::{self, ChunkOptions};
use crate::embed::{EmbedOptions, LazyEmbedder, ModelManifest};
use crate::git::{BlobReader, EntryKind, Repo};
use crate::lang;
use crate::patterns::PatternInstance;
use crate::store::server::{ServerOptions, ServerStore};

/// Version of [`ServerState`]; another version means a full run.
pub const SERVER_STATE_VERSION: u32 = 1;

#[derive(Debug, thiserror::Error)]
pub enum CiError {
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Vectors(#[from] crate::vectors::VectorsError),
    #[error("CI indexing needs the embedding model: {0}. Run `git rag model install` first")]
    Model(crate::embed::EmbedError),
    #[error("the index state in the Qdrant server ({collection}) cannot be read: {message}. Re-index in full with `--full`")]
    BadState { collection: String, message: String },
    #[error("the repository has no commits to index")]
    NoCommits,
}

pub type Result<T> = std::result::Result<T, CiError>;

/// The state kept in the server for one collection prefix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerState {
    pub version: u32,
    pub last_commit: Option<String>,
    /// [`crate::index::config_hash`] of the chunking options.
    pub config_hash: String,
    pub model: String,
    pub dims: usize,
    pub files: BTreeMap<String, ServerFile>,
    /// Paths a run was changing when it stopped: the next run redoes them.
    #[serde(default)]
    pub pending: BTreeSet<String>,
    /// A full run was interrupted: the next run is full too.
    #[serde(default)]
    pub pending_full: bool,
    pub updated_at: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFile {
    pub blob: String,
    #[serde(default)]
    pub patterns: Vec<PatternInstance>,
}

/// What `git rag index --ci` was asked to do.
#[derive(Debug, Clone)]
pub struct CiOptions {
    pub rev: Option<String>,
    pub full: bool,
    pub chunk: ChunkOptions,
    pub server: ServerOptions,
    pub model_dir: std::path::PathBuf,
    pub embed: EmbedOptions,
    pub progress: bool,
}

/// What a run did.
#[derive(Debug, Clone, Serialize)]
pub struct CiReport {
    pub commit: String,
    /// The commit the server held before (if any).
    pub previous_commit: Option<String>,
    pub full: bool,
    pub full_reason: Option<String>,
    pub up_to_date: bool,
    pub prefix: String,
    pub files_indexed: usize,
    pub files_deleted: usize,
    pub files_total: usize,
    pub embedded: usize,
    pub reused: usize,
    pub took_ms: f64,
}

/// The collection prefix of one branch: `<repo prefix>_<branch>`.
pub fn branch_prefix(repo_prefix: &str, branch: &str) -> String {
    crate::store::sanitize(&format!("{repo_prefix}_{branch}"))
}

/// Reads the state kept in the server (`None` when there is none).
pub fn load_state(store: &ServerStore) -> Result<Option<ServerState>> {
    let Some(text) = store.load_state()? else { return Ok(None) };
    serde_json::from_str(&text).map(Some).map_err(|e| CiError::BadState { collection: store.state_collection(), message: e.to_string() })
}

fn save_state(store: &ServerStore, state: &ServerState) -> Result<()> {
    let text = serde_json::to_string(state).map_err(|e| CiError::BadState { collection: store.state_collection(), message: e.to_string() })?;
    Ok(store.save_state(&text)?)
}

/// Brings the server's collections for `opts.server.prefix` to the target commit.
pub fn run(repo: &Repo, opts: &CiOptions) -> Result<CiReport> {
    let started = Instant::now();
    let target = match &opts.rev {
        Some(rev) => repo.resolve(rev)?,
        None => repo.head_commit()?.ok_or(CiError::NoCommits)?,
    };
    let manifest: ModelManifest = crate::embed::check_installed(&opts.model_dir).map_err(CiError::Model)?;
    let store = ServerStore::connect(opts.server.clone(), manifest.dims, &manifest.id)?;
    let hash = crate::index::config_hash(&opts.chunk);

    let previous = load_state(&store)?;
    let previous_commit = previous.as_ref().and_then(|p| p.last_commit.clone());
    let full_reason = match &previous {
        _ if opts.full => Some("--full was given".to_string()),
        None => Some("the server holds no index for this prefix yet".to_string()),
        Some(p) if p.version != SERVER_STATE_VERSION => Some("the server's state is from another version of git-rag".to_string()),
        Some(p) if p.pending_full => Some("the previous full run was interrupted".to_string()),
        Some(p) if p.config_hash != hash => Some("indexing options changed since the last run".to_string()),
        Some(p) if p.model != manifest.id || p.dims != manifest.dims => Some(format!("the model changed (was {})", p.model)),
        Some(_) => None,
    };
    let full = full_reason.is_some();
    let mut state = match (&previous, full) {
        (Some(p), false) => p.clone(),
        _ => ServerState::default(),
    };

    // What the target tree holds, and what differs from the server's record.
    let tree: BTreeMap<String, crate::git::TreeFile> = repo
        .list_files(&target)?
        .into_iter()
        .filter(|f| f.kind == EntryKind::Blob && !lang::is_generated(&f.path))
        .map(|f| (f.path.clone(), f))
        .collect();
    let mut cleared: BTreeSet<String> = state.pending.clone();
    let mut to_index: Vec<crate::git::TreeFile> = Vec::new();
    for (path, f) in &tree {
        let same = state.files.get(path).is_some_and(|s| s.blob == f.id.to_string());
        if full || !same || state.pending.contains(path) {
            cleared.insert(path.clone());
            to_index.push(f.clone());
        }
    }
    cleared.extend(state.files.keys().filter(|p| !tree.contains_key(*p)).cloned());
    if !full && cleared.is_empty() {
        if state.last_commit.as_deref() != Some(&target.to_string()) {
            state.last_commit = Some(target.to_string());
            state.updated_at = crate::state::now_secs();
            save_state(&store, &state)?;
        }
        return Ok(CiReport {
            commit: target.to_string(),
            previous_commit,
            full: false,
            full_reason: None,
            up_to_date: true,
            prefix: opts.server.prefix.clone(),
            files_indexed: 0,
            files_deleted: 0,
            files_total: state.files.len(),
            embedded: 0,
            reused: 0,
            took_ms: started.elapsed().as_secs_f64() * 1000.0,
        });
    }
    if let (Some(reason), true) = (&full_reason, opts.progress) {
        eprintln!("git-rag: full run into {}: {reason}", opts.server.prefix);
    }

    // Journal: what this run is about to change, before any collection changes.
    let mut journal = state.clone();
    journal.version = SERVER_STATE_VERSION;
    journal.pending = cleared.clone();
    journal.pending_full = full;
    save_state(&store, &journal)?;
    crate::index::failpoint("ci-after-journal");

    // Parse and chunk the files to index (in parallel), then sync the vectors.
    let chunk_opts = opts.chunk;
    let parsed: Vec<(String, String, Option<(Vec<crate::semantic::Doc>, Vec<PatternInstance>)>)> = to_index
        .into_par_iter()
        .map_init(
            || BlobReader::new(repo),
            |reader, f| {
                let blob = f.id.to_string();
                let out = reader.read(&f.id).ok().filter(|d| !lang::looks_binary(d)).map(|data| {
                    let chunks = chunk::chunk_file(&f.path, &data, &chunk_opts);
                    (crate::semantic::documents(&f.path, &blob, &chunks, &manifest.id), chunks.patterns.clone())
                });
                (f.path, blob, out)
            },
        )
        .collect();
    for p in &cleared {
        state.files.remove(p);
    }
    let mut docs = Vec::new();
    let mut files_indexed = 0;
    for (path, blob, out) in parsed {
        // Binary or unreadable: skipped, as locally, but remembered so it is not retried each run.
        let read = out.is_some();
        let (file_docs, patterns) = out.unwrap_or_default();
        files_indexed += usize::from(read);
        docs.extend(file_docs);
        state.files.insert(path, ServerFile { blob, patterns });
    }
    let files_deleted = cleared.iter().filter(|p| !tree.contains_key(*p) && previous.as_ref().is_some_and(|s| s.files.contains_key(*p))).count();
    let patterns = crate::patterns::aggregate(state.files.values().flat_map(|f| f.patterns.iter()), crate::graph::MIN_PATTERN_COUNT);
    let pattern_docs = crate::semantic::pattern_documents(&patterns, &manifest.id);
    let mut embedder = LazyEmbedder::new(&opts.model_dir, opts.embed);
    let cleared_list: Vec<String> = cleared.iter().cloned().collect();
    let report = crate::vectors::sync(&store, &mut embedder, full, &cleared_list, docs, pattern_docs, opts.progress)?;
    crate::index::failpoint("ci-before-state");

    state.version = SERVER_STATE_VERSION;
    state.last_commit = Some(target.to_string());
    state.config_hash = hash;
    state.model = manifest.id.clone();
    state.dims = manifest.dims;
    state.pending.clear();
    state.pending_full = false;
    state.updated_at = crate::state::now_secs();
    save_state(&store, &state)?;
    Ok(CiReport {
        commit: target.to_string(),
        previous_commit,
        full,
        full_reason,
        up_to_date: false,
        prefix: opts.server.prefix.clone(),
        files_indexed,
        files_deleted,
        files_total: state.files.len(),
        embedded: report.embedded,
        reused: report.reused,
        took_ms: started.elapsed().as_secs_f64() * 1000.0,
    })
}
