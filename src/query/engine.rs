//! Hybrid retrieval: the query is analysed ([`crate::query::intent`]), the
//! retrievers that exist run side by side (BM25 and symbol lookup on tantivy,
//! dense vectors on Qdrant, the code graph, project patterns), their ranked
//! lists are fused with weighted Reciprocal Rank Fusion, then overlapping
//! results are merged, optionally diversified (MMR) and lifted to their
//! enclosing definition.
//!
//! [`Engine`] holds what a query needs and opens the expensive parts (the
//! model, the vector store, the graph) only when a query uses them, so a
//! long-lived process (the MCP server) pays for them once.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::progress::millis;
use crate::semantic::embed::{EmbedOptions, Embedder, ModelSource};
use crate::graph::GraphReader;

use crate::query::intent::{Analysis, Relation};
use crate::worktree::Layer;
use crate::stores::keyword::KeywordIndex;
use crate::query::retrievers::{self as search, Hit, QueryOptions, Response, Retriever};
use crate::stores::state::IndexState;
use crate::stores::vector::edge::Access;
use crate::stores::vector::{Backend, Collection, VectorStore};

use super::files::FileHit;

#[derive(Debug, thiserror::Error)]
pub enum HybridError {
    #[error(transparent)]
    Search(#[from] search::SearchError),
    #[error(transparent)]
    Graph(#[from] crate::graph::GraphError),
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
}

pub type Result<T> = std::result::Result<T, HybridError>;

/// Why a retriever cannot answer now: its list is left out of the fusion and
/// the answer names it among the fallbacks.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Unavailable {
    #[error("the index has no semantic layer (built without an embedding model)")]
    NoSemanticLayer,
    #[error("the semantic layer is turned off")]
    SemanticOff,
    #[error("the embedding model cannot be loaded: {0}")]
    ModelLoad(String),
    #[error("loading the embedding model panicked")]
    ModelPanicked,
    #[error("the index holds vectors of model `{indexed}` but `{configured}` is configured; run `git rag index` to re-embed")]
    ModelMismatch { indexed: String, configured: String },
    #[error("the vectors are behind the index ({0}); the next `git rag index` that reaches the store brings them in line")]
    VectorsBehind(String),
    #[error("a previous dense search panicked")]
    Poisoned,
    #[error("the index has no code graph yet; run `git rag index`")]
    NoGraph,
    #[error("{what} needs a local index (`git rag index`); a Qdrant server's index alone has no call graph")]
    NeedsLocalIndex { what: &'static str },
    #[error("timed out after {0:.1}s")]
    TimedOut(f64),
    #[error("the dense retriever failed")]
    Gone,
    /// A store, graph or model error, kept as its message (they are not `Clone`).
    #[error("{0}")]
    Failed(String),
}

impl Unavailable {
    pub(super) fn failed(e: impl std::fmt::Display) -> Unavailable {
        Unavailable::Failed(e.to_string())
    }
}

/// The weight of chunks holding a literal of the query as written: a
/// verbatim match outranks what every other retriever agrees on.
pub(super) const EXACT_WEIGHT: f32 = 3.0;
/// An issue report quotes messages it saw, some of which the code formats
/// from parts: one list among the others.
pub(super) const EXACT_DOCUMENT_WEIGHT: f32 = 1.0;

/// Candidates each retriever contributes to the fusion.
pub const DEFAULT_WINDOW: usize = 50;

#[derive(Debug, Clone)]
pub struct HybridOptions {
    pub query: QueryOptions,
    /// Candidates per retriever.
    pub window: usize,
    /// MMR trade-off λ in [0, 1] (1 = relevance only); `None` leaves the order alone.
    pub diversity: Option<f32>,
    /// Return the enclosing class or function of each hit instead.
    pub expand_parent: bool,
    /// How far graph answers walk (1 = direct callers/callees).
    pub depth: usize,
    /// Force a graph relation instead of reading it from the query.
    pub relation: Option<Relation>,
    /// How long the slowest retriever (dense: model load, store open) may
    /// take before the answer goes ahead without it.
    pub timeout: Duration,
    /// Rank files by their aggregated evidence (`limit` files, each with
    /// its best chunks) instead of chunks.
    pub files: bool,
}

impl HybridOptions {
    pub fn new(query: QueryOptions) -> HybridOptions {
        HybridOptions { query, window: DEFAULT_WINDOW, diversity: None, expand_parent: false, depth: 1, relation: None, timeout: Duration::from_secs(10), files: false }
    }
}

/// Milliseconds per step of a query.
pub type Timings = std::collections::BTreeMap<&'static str, f64>;


/// A query's answer with how it was reached.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    #[serde(flatten)]
    pub response: Response,
    pub analysis: Analysis,
    /// Retrievers that ran.
    pub retrievers: Vec<Retriever>,
    /// Retrievers that were wanted but missing, and why.
    pub fallbacks: Vec<String>,
    /// The graph subject(s) the query resolved to.
    pub subjects: Vec<String>,
    /// Milliseconds per step of this query (`model_load` and `store_open`
    /// only when this query opened them): where `took_ms` went.
    pub timings: Timings,
    /// With [`HybridOptions::files`]: the files to open, best first; the
    /// results are then their chunks, file by file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileHit>>,
}

/// What the semantic layer needs to be opened.
#[derive(Debug, Clone)]
pub struct SemanticSetup {
    pub backend: Backend,
    pub model: ModelSource,
    pub wait: Duration,
    /// One query, then exit (`git rag query`): load the model without graph
    /// optimization, which costs more than it saves for a single input.
    pub one_shot: bool,
}

pub(super) struct Dense {
    pub(super) embedder: Arc<Embedder>,
    pub(super) store: Box<dyn VectorStore>,
    /// Milliseconds it took to load the model (0 when a loaded one was
    /// adopted) and to open the store; they overlap.
    pub(super) opened_ms: (f64, f64),
}

/// Open index resources for answering queries.
pub struct Engine {
    pub(super) dir: PathBuf,
    pub(super) state: IndexState,
    pub(super) keyword: KeywordIndex,
    pub(super) semantic: Option<SemanticSetup>,
    /// The model and the vector store once opened. Failures are not kept: a
    /// store that was busy (an indexer writing) is tried again next time.
    pub(super) dense: Mutex<Option<Arc<Dense>>>,
    /// Kept apart from the store so that releasing the store (for a writer)
    /// or reopening the index keeps the model loaded.
    pub(super) embedder: Mutex<Option<Arc<Embedder>>>,
    pub(super) graph: OnceLock<std::result::Result<Option<GraphReader>, Unavailable>>,
    pub(super) patterns: OnceLock<Vec<crate::analysis::patterns::Pattern>>,
    /// The work tree laid over this index by the last query (a long-lived
    /// process reuses it while the tree stays as it is).
    pub(super) layers: crate::worktree::LayerCache,
}

impl Engine {
    pub fn open(dir: &Path, state: IndexState, semantic: Option<SemanticSetup>) -> Result<Engine> {
        let keyword = KeywordIndex::open(&dir.join("keyword")).map_err(search::SearchError::from)?;
        Ok(Engine {
            dir: dir.to_path_buf(),
            state,
            keyword,
            semantic,
            dense: Mutex::new(None),
            embedder: Mutex::new(None),
            graph: OnceLock::new(),
            patterns: OnceLock::new(),
            layers: Default::default(),
        })
    }

    pub fn keyword(&self) -> &KeywordIndex {
        &self.keyword
    }

    pub fn state(&self) -> &IndexState {
        &self.state
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The loaded embedding model, to hand to the engine of a newer index.
    pub fn embedder(&self) -> Option<Arc<Embedder>> {
        self.embedder.lock().ok().and_then(|e| e.clone())
    }

    /// Uses an already loaded model instead of loading one.
    pub fn adopt_embedder(&self, embedder: Arc<Embedder>) {
        if let Ok(mut slot) = self.embedder.lock() {
            *slot = Some(embedder);
        }
    }

    /// Closes the vector store (and gives up its shared lock, so an indexer
    /// can write) unless a query is opening it right now. The model stays
    /// loaded; the next query reopens the store. Returns whether it was open.
    pub fn release_store(&self) -> bool {
        match self.dense.try_lock() {
            Ok(mut slot) => slot.take().is_some(),
            Err(_) => false,
        }
    }

    /// Whether the vector store is open now.
    pub fn store_open(&self) -> bool {
        self.dense.lock().map(|d| d.is_some()).unwrap_or(false)
    }

    /// The model and the vector store, opened on first use.
    fn dense(&self) -> std::result::Result<Arc<Dense>, Unavailable> {
        self.dense_fresh().map(|(d, _)| d)
    }

    /// Like [`Engine::dense`], and whether this call opened them.
    pub(super) fn dense_fresh(&self) -> std::result::Result<(Arc<Dense>, bool), Unavailable> {
        let mut slot = self.dense.lock().map_err(|_| Unavailable::Poisoned)?;
        if let Some(d) = slot.as_ref() {
            return Ok((Arc::clone(d), false));
        }
        let d = Arc::new(self.open_dense()?);
        *slot = Some(Arc::clone(&d));
        Ok((d, true))
    }

    /// Leaves out dense hits on paths whose vectors lag the index (a run
    /// that could not reach the vector store): their lines may have moved.
    pub(super) fn drop_stale(&self, hits: &mut Vec<Hit>) {
        if let Some(behind) = &self.state.vectors_behind {
            hits.retain(|h| !behind.covers(&h.path));
        }
    }

    fn open_dense(&self) -> std::result::Result<Dense, Unavailable> {
        let Some(sem) = &self.state.semantic else {
            return Err(Unavailable::NoSemanticLayer);
        };
        let Some(setup) = &self.semantic else { return Err(Unavailable::SemanticOff) };
        if let Some(behind) = self.state.vectors_behind.as_ref().filter(|b| b.all) {
            return Err(Unavailable::VectorsBehind(behind.reason.clone()));
        }
        let loaded = self.embedder();
        // The model and the store open in parallel: both take a few hundred ms.
        let (embedder, store, opened_ms) = std::thread::scope(|s| {
            let e = s.spawn(|| {
                let t = Instant::now();
                let e = match &loaded {
                    Some(e) => Ok(Arc::clone(e)),
                    None => Embedder::open(&setup.model, EmbedOptions { optimize_graph: !setup.one_shot, ..EmbedOptions::default() }).map(Arc::new),
                };
                (e, millis(t))
            });
            let t = Instant::now();
            // Open the collections a query searches now, while the model loads.
            let store = setup.backend.open(&self.dir, sem.dims, &sem.model, Access::Read, setup.wait).and_then(|store| {
                store.preload(&[Collection::Semantic, Collection::Symbols, Collection::Files, Collection::Patterns])?;
                Ok(store)
            });
            let store_ms = millis(t);
            match e.join() {
                Ok((e, model_ms)) => (Ok(e), store, (model_ms, store_ms)),
                Err(p) => (Err(p), store, (0.0, store_ms)),
            }
        });
        let embedder = match embedder {
            Ok(Ok(e)) => e,
            Ok(Err(e)) => return Err(Unavailable::ModelLoad(e.to_string())),
            Err(_) => return Err(Unavailable::ModelPanicked),
        };
        if embedder.model_id() != sem.model {
            return Err(Unavailable::ModelMismatch { indexed: sem.model.clone(), configured: embedder.model_id() });
        }
        self.adopt_embedder(Arc::clone(&embedder));
        let store = store.map_err(Unavailable::failed)?;
        Ok(Dense { embedder, store, opened_ms })
    }

    /// The code graph, opened on first use (a question loads what it reads).
    pub fn graph(&self) -> std::result::Result<&GraphReader, Unavailable> {
        match self.graph.get_or_init(|| GraphReader::open(&self.dir).map_err(Unavailable::failed)) {
            Ok(Some(g)) => Ok(g),
            Ok(None) => Err(Unavailable::NoGraph),
            Err(e) => Err(e.clone()),
        }
    }

    pub fn patterns(&self) -> &[crate::analysis::patterns::Pattern] {
        self.patterns.get_or_init(|| crate::graph::load_patterns(&self.dir).unwrap_or_default())
    }

    /// Opens everything now (for a long-lived process).
    pub fn warm(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if let Err(e) = self.dense() {
            problems.push(format!("semantic: {e}"));
        }
        if let Err(e) = self.graph() {
            problems.push(format!("graph: {e}"));
        }
        self.patterns();
        problems
    }

    /// Answers a query in the mode asked for, from the indexed commit.
    pub fn search(self: &Arc<Self>, text: &str, opts: &HybridOptions) -> Result<Answer> {
        self.search_over(text, opts, None)
    }

    /// Answers a query from the indexed commit with `layer` (the work tree)
    /// over it: the layer's paths answer from the layer alone.
    pub fn search_over(self: &Arc<Self>, text: &str, opts: &HybridOptions, layer: Option<&Arc<Layer>>) -> Result<Answer> {
        super::source::answer(&super::local::Local::new(self, layer), text, opts)
    }
}
