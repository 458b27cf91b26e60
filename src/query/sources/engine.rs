//! The open index: [`Engine`] holds what a query needs and opens the
//! expensive parts (the model, the vector store, the graph) only when a
//! query uses them, so a long-lived process (the MCP server) pays for them
//! once. It holds resources only; how a query is answered from them is
//! [`super::local`] (the retrievers) and [`crate::query::rank`] (the ranking).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::graph::GraphReader;
use crate::progress::millis;
use crate::query::answer::{Hit, Result, SearchError, Unavailable};
use crate::semantic::embed::{EmbedOptions, Embedder, ModelSource};
use crate::stores::keyword::KeywordIndex;
use crate::stores::state::IndexState;
use crate::stores::vector::edge::Access;
use crate::stores::vector::{Backend, Collection, VectorStore};

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

pub(crate) struct Dense {
    pub(crate) embedder: Arc<Embedder>,
    pub(crate) store: Box<dyn VectorStore>,
    /// Milliseconds it took to load the model (0 when a loaded one was
    /// adopted) and to open the store; they overlap.
    pub(crate) opened_ms: (f64, f64),
}

/// Open index resources for answering queries.
pub struct Engine {
    pub(crate) dir: PathBuf,
    pub(crate) state: IndexState,
    pub(crate) keyword: KeywordIndex,
    pub(crate) semantic: Option<SemanticSetup>,
    /// The model and the vector store once opened. Failures are not kept: a
    /// store that was busy (an indexer writing) is tried again next time.
    pub(crate) dense: Mutex<Option<Arc<Dense>>>,
    /// Kept apart from the store so that releasing the store (for a writer)
    /// or reopening the index keeps the model loaded.
    pub(crate) embedder: Mutex<Option<Arc<Embedder>>>,
    pub(crate) graph: OnceLock<std::result::Result<Option<GraphReader>, Unavailable>>,
    pub(crate) patterns: OnceLock<Vec<crate::analysis::patterns::Pattern>>,
    /// The indexed paths' folder-and-name endings, built on first use.
    pub(crate) path_ends: OnceLock<crate::query::retrieve::paths::PathEnds>,
    /// The work tree laid over this index by the last query (a long-lived
    /// process reuses it while the tree stays as it is).
    pub(crate) layers: crate::worktree::LayerCache,
}

impl Engine {
    pub fn open(dir: &Path, state: IndexState, semantic: Option<SemanticSetup>) -> Result<Engine> {
        let keyword = KeywordIndex::open(&dir.join("keyword")).map_err(SearchError::from)?;
        Ok(Engine {
            dir: dir.to_path_buf(),
            state,
            keyword,
            semantic,
            dense: Mutex::new(None),
            embedder: Mutex::new(None),
            graph: OnceLock::new(),
            patterns: OnceLock::new(),
            path_ends: OnceLock::new(),
            layers: Default::default(),
        })
    }

    /// Takes over a comparison of the work tree started before the engine
    /// opened ([`crate::query::compare_worktree_early`]).
    pub fn comparing(&self, comparison: crate::worktree::Comparison) {
        self.layers.comparing(comparison);
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
    pub(crate) fn dense_fresh(&self) -> std::result::Result<(Arc<Dense>, bool), Unavailable> {
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
    pub(crate) fn drop_stale(&self, hits: &mut Vec<Hit>) {
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
        let open = || {
            let store = self.dir.join("graph");
            let damaged = |panic| crate::graph::GraphError::Store { path: store.clone(), message: panic };
            crate::stores::panic_guard::guard(|| GraphReader::open(&self.dir), damaged).map_err(Unavailable::failed)
        };
        match self.graph.get_or_init(open) {
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
}
