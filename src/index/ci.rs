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

use serde::Serialize;

use super::record::{RunRecord, ServerRecord};
use crate::analysis::chunk::ChunkOptions;
use crate::git::{Repo, TreeFile};
use crate::progress::{millis, Progress};
use crate::semantic::embed::{EmbedOptions, LazyEmbedder, ModelIdentity, ModelSource};
use crate::stores::server_state::{ServerFile, ServerState, SERVER_STATE_VERSION};
use crate::stores::vector::server::{ServerOptions, ServerStore};

#[derive(Debug, thiserror::Error)]
pub enum CiError {
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    Store(#[from] crate::stores::vector::StoreError),
    #[error(transparent)]
    Vectors(#[from] crate::semantic::sync::VectorsError),
    #[error("CI indexing needs the embedding model: {0}. Run `git rag model install` first")]
    Model(crate::semantic::embed::EmbedError),
    #[error(transparent)]
    State(#[from] crate::stores::server_state::ServerStateError),
    #[error("the repository has no commits to index")]
    NoCommits,
    #[error(transparent)]
    PathRules(#[from] crate::index::paths::PathRulesError),
}

pub type Result<T> = std::result::Result<T, CiError>;

/// What `git rag index --ci` was asked to do.
#[derive(Debug, Clone)]
pub struct CiOptions {
    pub rev: Option<String>,
    pub full: bool,
    pub chunk: ChunkOptions,
    pub server: ServerOptions,
    pub model: ModelSource,
    pub embed: EmbedOptions,
    /// `rag.include` / `rag.exclude`; the commit's `.gitattributes` count too.
    pub paths: crate::index::paths::PathRules,
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
    /// Files whose git object could not be read, and why: not recorded, so
    /// every later run tries them again.
    pub pending: BTreeMap<String, String>,
    pub embedded: usize,
    pub reused: usize,
    pub took_ms: f64,
}

/// Brings the server's collections for `opts.server.prefix` to the target commit.
pub fn run(repo: &Repo, opts: &CiOptions, progress: &dyn Progress) -> Result<CiReport> {
    let started = Instant::now();
    let target = match &opts.rev {
        Some(rev) => repo.resolve(rev)?,
        None => repo.head_commit()?.ok_or(CiError::NoCommits)?,
    };
    let manifest: ModelIdentity = opts.model.identify().map_err(CiError::Model)?;
    let store = ServerStore::connect(opts.server.clone(), manifest.dims, &manifest.id)?;
    let hash = crate::index::config_hash(&opts.chunk);

    let record = ServerRecord { store: &store };
    let previous = record.load()?;
    let previous_commit = previous.as_ref().and_then(|p| p.last_commit.map(|c| c.to_string()));
    let full_reason = full_reason(previous.as_ref(), opts.full, &hash, &manifest);
    let full = full_reason.is_some();
    let mut state = match (&previous, full) {
        (Some(p), false) => p.clone(),
        _ => ServerState::default(),
    };

    let (tree, cleared, to_index) = plan_by_blobs(repo, &target, &state, full, &opts.paths)?;
    if !full && cleared.is_empty() {
        if state.last_commit != Some(target) {
            state.last_commit = Some(target);
            state.updated_at = crate::stores::state::now_secs();
            record.commit(&state)?;
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
            pending: BTreeMap::new(),
            embedded: 0,
            reused: 0,
            took_ms: millis(started),
        });
    }
    if let Some(reason) = &full_reason {
        progress.note(&format!("full run into {}: {reason}", opts.server.prefix));
    }

    // Journal: what this run is about to change, before any collection changes.
    record.journal(&state, &target.to_string(), full, &cleared)?;
    crate::env::failpoint("ci-after-journal");

    // Parse and chunk the files to index (in parallel), then sync the vectors.
    for p in &cleared {
        state.files.remove(p);
    }
    let (docs, files_indexed, pending) = analyze_into(repo, to_index, opts, &manifest.id, &mut state, progress)?;
    let files_deleted = cleared.iter().filter(|p| !tree.contains_key(*p) && previous.as_ref().is_some_and(|s| s.files.contains_key(*p))).count();
    let patterns = crate::analysis::patterns::aggregate(state.files.values().flat_map(|f| f.patterns.iter()), crate::graph::MIN_PATTERN_COUNT);
    let pattern_docs = crate::semantic::docs::pattern_documents(&patterns, &manifest.id);
    let mut embedder = LazyEmbedder::new(&opts.model, opts.embed);
    let cleared_list: Vec<String> = cleared.iter().cloned().collect();
    let changes = crate::semantic::sync::Changes { full, cleared: &cleared_list, docs, patterns: pattern_docs, model_id: &manifest.id, pending: None };
    // CI writes the server's cache itself: nothing to borrow.
    let report = crate::semantic::sync::sync(&store, &mut embedder, changes, None, progress)?;
    crate::env::failpoint("ci-before-state");

    state.version = SERVER_STATE_VERSION;
    state.last_commit = Some(target);
    state.config_hash = hash;
    state.model = manifest.id.clone();
    state.dims = manifest.dims;
    state.recipe = crate::semantic::docs::RECIPE;
    state.pending.clear();
    state.pending_full = false;
    state.updated_at = crate::stores::state::now_secs();
    record.commit(&state)?;
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
        pending,
        embedded: report.embedded,
        reused: report.reused,
        took_ms: millis(started),
    })
}

/// Why this run must be full, if it must.
fn full_reason(previous: Option<&ServerState>, forced: bool, hash: &str, manifest: &ModelIdentity) -> Option<String> {
    match previous {
        _ if forced => Some("--full was given".to_string()),
        None => Some("the server holds no index for this prefix yet".to_string()),
        Some(p) if p.version != SERVER_STATE_VERSION => Some("the server's state is from another version of git-rag".to_string()),
        Some(p) if p.pending_full => Some("the previous full run was interrupted".to_string()),
        Some(p) if p.config_hash != hash => Some("indexing options changed since the last run".to_string()),
        Some(p) if p.model != manifest.id || p.dims != manifest.dims => Some(format!("the model changed (was {})", p.model)),
        Some(p) if p.recipe != crate::semantic::docs::RECIPE => {
            Some(format!("what is embedded changed (recipe {} -> {})", p.recipe, crate::semantic::docs::RECIPE))
        }
        Some(_) => None,
    }
}

/// Analyzes the files (the shared step) and records each in the server
/// state; returns the texts to embed, how many files were read, and those
/// that could not be (after fetching what a partial clone left out).
fn analyze_into(
    repo: &Repo,
    files: Vec<TreeFile>,
    opts: &CiOptions,
    model_id: &str,
    state: &mut ServerState,
    progress: &dyn Progress,
) -> Result<(Vec<crate::semantic::docs::Doc>, usize, BTreeMap<String, String>)> {
    let derive = |f: &TreeFile, chunks: crate::analysis::chunk::FileChunks| -> Result<_> {
        Ok((crate::semantic::docs::documents(&f.path, &f.id.to_string(), &chunks, model_id), chunks.patterns))
    };
    let mut docs = Vec::new();
    let mut files_indexed = 0;
    let mut unreadable = Vec::new();
    let mut take = |parsed: Vec<(TreeFile, Result<super::analyze::FileOutcome<_>>)>, unreadable: &mut Vec<(TreeFile, String)>| -> Result<()> {
        for (f, outcome) in parsed {
            let patterns = match outcome? {
                super::analyze::FileOutcome::Indexed { product: (file_docs, patterns), .. } => {
                    files_indexed += 1;
                    docs.extend(file_docs);
                    patterns
                }
                // Skipped, as locally, and remembered so it is not read again each run.
                super::analyze::FileOutcome::Binary => Vec::new(),
                // Not remembered: the next run tries it again.
                super::analyze::FileOutcome::Unreadable(reason) => {
                    unreadable.push((f, reason));
                    continue;
                }
            };
            state.files.insert(f.path, ServerFile { blob: f.id.to_string(), patterns });
        }
        Ok(())
    };
    take(super::analyze::analyze(repo, files, &opts.chunk, progress, derive), &mut unreadable)?;
    if let (false, Some(remote)) = (unreadable.is_empty(), repo.promisor_remote()) {
        progress.note(&format!("fetching {} objects this partial clone left out from `{remote}`", unreadable.len()));
        let ids: Vec<gix::ObjectId> = unreadable.iter().map(|(f, _)| f.id).collect();
        match repo.fetch_promised(&remote, &ids) {
            Ok(()) => {
                let again: Vec<TreeFile> = std::mem::take(&mut unreadable).into_iter().map(|(f, _)| f).collect();
                take(super::analyze::analyze(&repo.reopened()?, again, &opts.chunk, progress, derive), &mut unreadable)?;
            }
            Err(e) => progress.note(&format!("{e}; the files stay pending")),
        }
    }
    let pending = unreadable.into_iter().map(|(f, reason)| (f.path, format!("blob {}: {reason}", f.id))).collect();
    Ok((docs, files_indexed, pending))
}

/// What the target tree holds (by path), the paths to clear (changed,
/// vanished or pending) and the files to index again: blob ids compared with
/// the server's record, so no history is needed.
/// Paths the rules (`rag.include`/`rag.exclude`, `.gitattributes`) leave
/// out are not in the tree: their old points are cleared like a deleted file's.
fn plan_by_blobs(
    repo: &Repo,
    target: &gix::ObjectId,
    state: &ServerState,
    full: bool,
    rules: &crate::index::paths::PathRules,
) -> Result<(BTreeMap<String, TreeFile>, BTreeSet<String>, Vec<TreeFile>)> {
    let listed = repo.list_files(target)?;
    let filter = crate::index::paths::filter_of_tree(repo, &listed, rules)?;
    let tree: BTreeMap<String, TreeFile> = super::analyze::select(listed, &mut Default::default())
        .into_iter()
        .filter(|f| filter.excluded(&f.path).is_none())
        .map(|f| (f.path.clone(), f))
        .collect();
    let mut cleared: BTreeSet<String> = state.pending.clone();
    let mut to_index: Vec<TreeFile> = Vec::new();
    for (path, f) in &tree {
        let same = state.files.get(path).is_some_and(|s| crate::git::names_object(&s.blob, &f.id));
        if full || !same || state.pending.contains(path) {
            cleared.insert(path.clone());
            to_index.push(f.clone());
        }
    }
    cleared.extend(state.files.keys().filter(|p| !tree.contains_key(*p)).cloned());
    Ok((tree, cleared, to_index))
}
