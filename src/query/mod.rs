//! Answering queries. The modules are layers, bottom up; each imports only
//! the layers before it (`tests/architecture.rs` holds this):
//!
//! 0. [`base`]: the ranking stage's features and every number that orders
//!    results, each named with its reason; it reads no other layer.
//! 1. [`question`] reads the question once: intent, literals, document
//!    signals, listed items, the files it names, what it is about.
//! 2. [`answer`] is what a query returns (the JSON contract) and its errors;
//!    [`options`] is what a query asks for.
//! 3. [`retrieve`]: the retrievers, and the `Source` trait a place to
//!    search implements.
//! 4. [`rank`]: the one ranking stage (which lists run, fusion, priors,
//!    files, reranking).
//! 5. [`sources`]: the places searched (the local index and its work-tree
//!    layer, its graph, a Qdrant server alone, a warm engine).
//! 6. [`context`]: a token-budgeted context from an answer.
//! 7. [`history`]: `git rag history`, the commits that answer a question
//!    about the past (its digest counts tokens as [`context`] does).
//!
//! [`run`] is the one entry point the frontends share: the CLI's
//! `git rag query` (on the local index, or a Qdrant server's alone) and
//! every MCP tool call it with the same [`Request`], so they answer alike
//! (rerank, expand, diversity and context included).

pub mod answer;
pub mod base;
pub mod context;
pub mod history;
pub mod options;
pub mod question;
pub mod rank;
pub mod retrieve;
pub mod sources;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use crate::git::{BlobReader, Repo};
use crate::progress::millis;
use crate::semantic::rerank::{Reranker, RerankerSource};
use crate::stores::state::{IndexState, STATE_FILE};
use crate::worktree::LayerOptions;
use answer::{Answer, Retriever};
pub use answer::{QueryError, QueryResult as Result};
use options::{HybridOptions, Mode};
use sources::engine::{Engine, SemanticSetup};
use sources::{local, server};

/// One query: what to search, and what to make of the results.
#[derive(Debug, Clone)]
pub struct Request {
    pub text: String,
    pub search: HybridOptions,
    /// Rerank the top results (an endpoint or a cross-encoder), when one is configured.
    pub rerank: bool,
    /// `Some(budget)`: assemble a token-budgeted context instead of a list.
    pub context_budget: Option<usize>,
    /// Search the work tree too, laid over the index (`None`: the indexed
    /// commit alone, `--at-commit`).
    pub worktree: Option<LayerOptions>,
}

/// The answer to a [`Request`]; as JSON, the answer's or the context's.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(untagged)]
pub enum Output {
    Answer(Box<Answer>),
    Context(Box<context::Context>),
}

/// A query's answer with what the user should know about how it was reached
/// (a stale index, a missing reranker); the frontend decides how to show them.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub output: Output,
    pub notices: Vec<String>,
}

/// Reads the index state for queries (each file's blob id and language,
/// [`IndexState::load_for_queries`]): `None` when nothing was indexed yet.
pub fn indexed_state(index_dir: &Path) -> Result<Option<IndexState>> {
    Ok(IndexState::load_for_queries(&index_dir.join(STATE_FILE))?.filter(|s| s.last_commit.is_some()))
}

/// Opens an engine on an index state (see [`indexed_state`]).
pub fn open_engine(index_dir: &Path, state: IndexState, semantic: Option<SemanticSetup>) -> Result<Engine> {
    Ok(Engine::open(index_dir, state, semantic)?)
}

/// Starts comparing the work tree with the commit indexed in `index_dir`
/// (read from the state file alone, not its per-file records), for a
/// process that answers one query: git's status then runs while the index
/// opens. Hand it to the engine with [`Engine::comparing`]. `None` when
/// nothing is indexed or the state does not read (opening reports it).
pub fn compare_worktree_early(repo: &Repo, index_dir: &Path) -> Option<crate::worktree::Comparison> {
    let commit = IndexState::indexed_commit(&index_dir.join(STATE_FILE))?;
    Some(crate::worktree::Comparison::start(repo, commit, Some(index_dir.to_path_buf())))
}

/// Warnings about the index itself: behind HEAD, or empty.
pub fn index_notices(repo: &Repo, state: &IndexState) -> Vec<String> {
    let mut notices = Vec::new();
    if let (Some(indexed), Ok(Some(head))) = (state.last_commit, repo.head_commit()) {
        if indexed != head {
            notices.push(format!("warning: the index is at {} but HEAD is {}; run `git rag index`", short(&indexed.to_string()), short(&head.to_string())));
        }
    }
    if state.files.is_empty() {
        notices.push("the index is empty (the indexed commit has no files git-rag reads)".to_string());
    }
    if let Some(b) = state.vectors_behind.as_ref().filter(|b| !b.all && !b.paths.is_empty()) {
        notices.push(format!(
            "the vectors of {} files are not in yet ({}); dense search leaves them out until `git rag index` catches up",
            b.paths.len(),
            b.reason
        ));
    }
    notices
}

/// What a query reads: the local index (with the work tree laid over it
/// when the request asks) or, without one, a Qdrant server's index alone.
#[derive(Clone, Copy)]
pub enum Target<'a> {
    Local(&'a Arc<Engine>),
    Server(&'a server::Server),
}

/// Answers `req` from `target`: search, rerank, and (when asked) the context.
pub fn run(target: Target, repo: &Repo, reranker: &RerankerSource, req: &Request) -> Result<Outcome> {
    req.search.query.validate().map_err(answer::HybridError::from)?;
    let mut search = req.search.clone();
    search.project = search.project.or_else(|| repo.project_name());
    let mut notices = Vec::new();
    if let (Mode::Semantic, Target::Local(engine)) = (req.search.query.mode, target) {
        if engine.state().semantic.is_none() {
            return Err(QueryError::NoSemanticLayer { dir: engine.dir().display().to_string() });
        }
    }
    if req.rerank && req.search.files {
        // The reranker scores chunks one by one; files are ranked from all their chunks.
        notices.push("--rerank does not apply to --files (files are ranked by all their evidence); answering without it".to_string());
    }
    let rerank = req.rerank && !req.search.files;
    let source = reranker;
    let reranker = if rerank { Reranker::open(source) } else { None };
    if rerank && reranker.is_none() {
        notices.push(Reranker::missing(source));
    }
    let (mut answer, layer) = match target {
        Target::Local(engine) => {
            let (layer, scan_ms) = worktree_layer(engine, repo, req, &mut notices);
            let mut answer = engine.search_over(&req.text, &search, layer.as_ref())?;
            if let Some((status, analyse)) = scan_ms {
                answer.timings.insert("worktree_status", status);
                answer.timings.insert("worktree_analyse", analyse);
            }
            (answer, layer)
        }
        Target::Server(server) => (rank::hybrid::answer(server, &req.text, &search)?, None),
    };
    if let Some(r) = reranker {
        let t = Instant::now();
        match r.and_then(|r| rank::rerank::rerank(&r, &req.text, &mut answer.response.results, 20)) {
            Ok(()) => answer.retrievers.push(Retriever::Rerank),
            Err(e) => answer.fallbacks.push(format!("rerank: {e}")),
        }
        answer.timings.insert("rerank", millis(t));
    }
    notices.extend(answer.fallbacks.iter().map(|f| format!("without {f}")));
    if !answer.fallbacks.is_empty() && !answer.retrievers.is_empty() {
        let names: Vec<&str> = answer.retrievers.iter().map(|r| r.as_str()).collect();
        notices.push(format!("answered with: {}", names.join(", ")));
    }
    let output = match req.context_budget {
        None => Output::Answer(Box::new(answer)),
        Some(budget) => {
            let reader = BlobReader::new(repo);
            let pieces = match target {
                Target::Local(engine) => context::pieces::context_pieces(&local::LocalTexts { engine, layer: layer.as_deref(), reader }, &answer)?,
                Target::Server(server) => context::pieces::context_pieces(&server::ServerTexts { server, reader }, &answer)?,
            };
            Output::Context(Box::new(context::assemble(&req.text, pieces, &context::ContextOptions { budget })))
        }
    };
    Ok(Outcome { output, notices })
}

/// The work tree laid over the index, when the request asks for it and it
/// differs from the indexed commit; and what comparing (and analysing) took.
/// A work tree that cannot be compared is a notice, not an error.
fn worktree_layer(engine: &Engine, repo: &Repo, req: &Request, notices: &mut Vec<String>) -> (Option<Arc<crate::worktree::Layer>>, Option<(f64, f64)>) {
    let Some(opts) = &req.worktree else { return (None, None) };
    match crate::worktree::scan_cached(repo, engine.state(), engine.keyword(), opts, &engine.layers, &engine.dir) {
        Ok((layer, took)) => {
            if let Some(l) = &layer {
                notices.extend(l.notices());
            }
            (layer, Some(took))
        }
        Err(e) => {
            notices.push(format!("the work tree is not searched ({e}); answering from the index alone"));
            (None, None)
        }
    }
}

/// The first 12 hex digits of a commit id.
pub fn short(id: &str) -> &str {
    &id[..id.len().min(12)]
}
