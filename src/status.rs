//! What `git rag status` and the MCP `status` tool report: one collection,
//! rendered by each frontend.

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::worktree::{LayerFile, LayerOptions};

use crate::git::Repo;
use crate::hooks::RunnerStatus;
use crate::stores::state::{IndexLock, IndexState, LastRun, PendingRun, SyntaxErrors, STATE_FILE};
use crate::stores::vector::edge::Access;
use crate::stores::vector::{Backend, Collection};

#[derive(Debug, thiserror::Error)]
pub enum StatusError {
    #[error(transparent)]
    State(#[from] crate::stores::state::StateError),
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
}

#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub index_dir: String,
    pub indexed_commit: Option<String>,
    pub head: Option<String>,
    pub stale: bool,
    /// A run holds the index lock now.
    pub indexing: bool,
    /// The commit a run was heading for when it stopped (the next run finishes it).
    pub interrupted_run: Option<String>,
    pub counts: Counts,
    /// Files of the indexed commit not indexed yet (their blob could not be read), and why.
    pub pending: std::collections::BTreeMap<String, crate::stores::state::PendingFile>,
    /// Degraded: the vector store could not follow the last runs, and what it lacks.
    pub vectors_behind: Option<crate::stores::state::VectorsBehind>,
    /// The indexed files with syntax errors: how much of them was analysed, the worst by name.
    pub syntax_errors: Option<SyntaxErrors>,
    pub last_run: Option<LastRun>,
    /// The semantic layer: model, store, and points per collection.
    pub semantic: Option<SemanticStatus>,
    /// With the semantic layer: how many of the indexed files have their vectors.
    pub vector_coverage: Option<VectorCoverage>,
    /// Background updates started by git hooks: in progress, last run.
    pub hook: Option<RunnerStatus>,
    /// How far back the history store reaches (`None`: none is kept yet).
    pub history: Option<crate::query::history::Reach>,
    /// The work tree's files that differ from the indexed commit: queries
    /// answer them from the work tree (`None` when not asked or nothing indexed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub worktree: Option<WorktreeStatus>,
    /// The stores that cannot be read as they are (the next `git rag index`
    /// rebuilds them): checked as a query opens them, or every byte with
    /// `verify` ([`crate::stores::health`]). A damaged state file or
    /// `files.redb` comes first; the counts above are then 0.
    pub damaged: Vec<crate::stores::health::StoreDamaged>,
}

/// Indexed files whose vectors are in the store, of all indexed files: less
/// while a run is still embedding or after the store could not be written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VectorCoverage {
    pub files: usize,
    pub with_vectors: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct Counts {
    pub files: usize,
    pub chunks: usize,
    pub symbols: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SemanticStatus {
    pub model: String,
    pub dims: usize,
    pub store: String,
    /// Points per collection, when they were counted.
    pub counts: Option<std::collections::BTreeMap<String, usize>>,
    /// Why they could not be counted.
    pub error: Option<String>,
}

/// Collects the status of the index in `index_dir`. `count_vectors` opens the
/// vector store (briefly, read-only) to count its points.
pub fn collect(
    repo: &Repo,
    index_dir: &Path,
    backend: &Backend,
    count_vectors: bool,
    worktree: Option<&LayerOptions>,
    verify: bool,
) -> Result<Status, StatusError> {
    // A state (or per-file records) that does not read back is one of the
    // damaged stores listed, not the end of the status: the rest is checked
    // and said as well.
    let (state, unreadable) = match IndexState::load(&index_dir.join(STATE_FILE)) {
        Ok(state) => (state, None),
        Err(crate::stores::state::StateError::Corrupt { damage, .. }) => (None, Some(damage)),
        Err(e) => return Err(e.into()),
    };
    let depth = if verify { crate::stores::health::Depth::Full } else { crate::stores::health::Depth::Open };
    let mut damaged = match (&state, &unreadable) {
        (None, None) => Vec::new(),
        _ => crate::index::heal::damaged_stores(index_dir, depth, state.as_ref(), None),
    };
    if let Some(first) = unreadable {
        damaged.retain(|d| d.store != first.store);
        damaged.insert(0, first);
    }
    let head = repo.head_commit()?.map(|h| h.to_string());
    let indexed = state.as_ref().and_then(|s| s.last_commit.map(|c| c.to_string()));
    let semantic = state.as_ref().and_then(|s| s.semantic.as_ref()).map(|sem| {
        let counts = count_vectors.then(|| {
            backend.open(index_dir, sem.dims, &sem.model, Access::Read, Duration::from_secs(1)).and_then(|store| {
                Collection::TREE.iter().map(|c| Ok((c.name().to_string(), store.count(*c)?))).collect::<Result<std::collections::BTreeMap<_, _>, _>>()
            })
        });
        SemanticStatus {
            model: sem.model.clone(),
            dims: sem.dims,
            store: sem.store.clone(),
            error: counts.as_ref().and_then(|c| c.as_ref().err()).map(|e| e.to_string()),
            counts: counts.and_then(Result::ok),
        }
    });
    let vector_coverage = state.as_ref().filter(|s| s.semantic.is_some()).map(|s| {
        let files = s.files.len();
        let behind = match &s.vectors_behind {
            None => 0,
            Some(b) if b.all => files,
            Some(b) => b.paths.iter().filter(|p| s.files.contains_key(p.as_str())).count(),
        };
        VectorCoverage { files, with_vectors: files - behind }
    });
    Ok(Status {
        index_dir: index_dir.display().to_string(),
        stale: indexed != head,
        indexed_commit: indexed,
        head,
        indexing: IndexLock::is_held(index_dir),
        interrupted_run: PendingRun::load(index_dir).map(|p| p.target),
        counts: Counts {
            files: state.as_ref().map_or(0, |s| s.files.len()),
            chunks: state.as_ref().map_or(0, IndexState::chunk_count),
            symbols: state.as_ref().map_or(0, IndexState::symbol_count),
        },
        pending: state.as_ref().map(|s| s.pending.clone()).unwrap_or_default(),
        vectors_behind: state.as_ref().and_then(|s| s.vectors_behind.clone()),
        syntax_errors: state.as_ref().and_then(|s| SyntaxErrors::of(&s.files)),
        last_run: LastRun::load(index_dir),
        semantic,
        vector_coverage,
        hook: crate::hooks::runner_status(index_dir),
        history: crate::query::history::reach(index_dir),
        worktree: match (worktree, state.as_ref().filter(|s| s.last_commit.is_some())) {
            (Some(opts), Some(state)) => Some(WorktreeStatus::of(crate::worktree::changes(repo, state, opts))),
            _ => None,
        },
        damaged,
    })
}

/// What the work tree lays over the index.
#[derive(Debug, Clone, Serialize)]
pub struct WorktreeStatus {
    pub files: Vec<LayerFile>,
    /// Differing files that are not searched, and why (their indexed version is hidden too).
    pub skipped: Vec<SkippedFile>,
    /// Differing files past the layer's limit (they answer from the index).
    pub over_cap: usize,
    /// Why the work tree could not be compared, if it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

impl WorktreeStatus {
    fn of(changes: Result<crate::worktree::Changes, crate::worktree::WorktreeError>) -> WorktreeStatus {
        match changes {
            Ok(c) => WorktreeStatus {
                files: c.listing(),
                skipped: c.skipped.into_iter().map(|(path, reason)| SkippedFile { path, reason }).collect(),
                over_cap: c.over_cap,
                error: None,
            },
            Err(e) => WorktreeStatus { files: Vec::new(), skipped: Vec::new(), over_cap: 0, error: Some(e.to_string()) },
        }
    }
}
