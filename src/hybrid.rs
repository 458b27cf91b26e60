//! Hybrid retrieval: the query is analysed ([`crate::intent`]), the
//! retrievers that exist run side by side (BM25 and symbol lookup on tantivy,
//! dense vectors on Qdrant, the code graph, project patterns), their ranked
//! lists are fused with weighted Reciprocal Rank Fusion, then overlapping
//! results are merged, optionally diversified (MMR) and lifted to their
//! enclosing definition.
//!
//! [`Engine`] holds what a query needs and opens the expensive parts (the
//! model, the vector store, the graph) only when a query uses them, so a
//! long-lived process (the MCP server) pays for them once.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use petgraph::Direction;
use serde::Serialize;

use crate::embed::{EmbedOptions, Embedder};
use crate::graph::{EdgeKind, Graph, NodeData, NodeKey};
use crate::intent::{Analysis, GraphAsk, Intent, Relation};
use crate::keyword::KeywordIndex;
use crate::search::{self, Hit, Mode, QueryOptions, Response};
use crate::state::IndexState;
use crate::store::edge::Access;
use crate::store::{Backend, Collection, Filter, VectorStore};

#[derive(Debug, thiserror::Error)]
pub enum HybridError {
    #[error(transparent)]
    Search(#[from] search::SearchError),
    #[error(transparent)]
    Graph(#[from] crate::graph::GraphError),
    #[error("{0}")]
    Unavailable(String),
}

pub type Result<T> = std::result::Result<T, HybridError>;

/// RRF's k: ranks deep in a list still count, but the top dominates.
pub const RRF_K: f32 = 60.0;
/// Extra credit for each retriever's first result. With k = 60, rank 1 is
/// worth barely more than rank 5, so a chunk one retriever was sure of lost
/// to chunks two retrievers placed mid-list (measured on the dev kit: +0.008
/// nDCG@10, +0.018 MRR, recall unchanged).
pub const TOP_RANK_BONUS: f32 = 0.5;
/// Candidates each retriever contributes to the fusion.
pub const DEFAULT_WINDOW: usize = 50;
/// The shortest list a retriever contributes, however light its weight.
const MIN_LIST: usize = 10;

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
}

impl HybridOptions {
    pub fn new(query: QueryOptions) -> HybridOptions {
        HybridOptions { query, window: DEFAULT_WINDOW, diversity: None, expand_parent: false, depth: 1, relation: None, timeout: Duration::from_secs(10) }
    }
}

/// Milliseconds per step of a query.
pub type Timings = std::collections::BTreeMap<&'static str, f64>;

fn millis(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}

/// A query's answer with how it was reached.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    #[serde(flatten)]
    pub response: Response,
    pub analysis: Analysis,
    /// Retrievers that ran.
    pub retrievers: Vec<&'static str>,
    /// Retrievers that were wanted but missing, and why.
    pub fallbacks: Vec<String>,
    /// The graph subject(s) the query resolved to.
    pub subjects: Vec<String>,
    /// Milliseconds per step of this query (`model_load` and `store_open`
    /// only when this query opened them): where `took_ms` went.
    pub timings: Timings,
}

/// What the semantic layer needs to be opened.
#[derive(Debug, Clone)]
pub struct SemanticSetup {
    pub backend: Backend,
    pub model_dir: PathBuf,
    pub wait: Duration,
    /// One query, then exit (`git rag query`): load the model without graph
    /// optimization, which costs more than it saves for a single input.
    pub one_shot: bool,
}

struct Dense {
    embedder: Arc<Embedder>,
    store: Box<dyn VectorStore>,
    /// Milliseconds it took to load the model (0 when a loaded one was
    /// adopted) and to open the store; they overlap.
    opened_ms: (f64, f64),
}

/// Open index resources for answering queries.
pub struct Engine {
    dir: PathBuf,
    state: IndexState,
    keyword: KeywordIndex,
    semantic: Option<SemanticSetup>,
    /// The model and the vector store once opened. Failures are not kept: a
    /// store that was busy (an indexer writing) is tried again next time.
    dense: Mutex<Option<Arc<Dense>>>,
    /// Kept apart from the store so that releasing the store (for a writer)
    /// or reopening the index keeps the model loaded.
    embedder: Mutex<Option<Arc<Embedder>>>,
    graph: OnceLock<std::result::Result<Option<Graph>, String>>,
    patterns: OnceLock<Vec<crate::patterns::Pattern>>,
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
    fn dense(&self) -> std::result::Result<Arc<Dense>, String> {
        self.dense_fresh().map(|(d, _)| d)
    }

    /// Like [`Engine::dense`], and whether this call opened them.
    fn dense_fresh(&self) -> std::result::Result<(Arc<Dense>, bool), String> {
        let mut slot = self.dense.lock().map_err(|_| "a previous dense search panicked".to_string())?;
        if let Some(d) = slot.as_ref() {
            return Ok((Arc::clone(d), false));
        }
        let d = Arc::new(self.open_dense()?);
        *slot = Some(Arc::clone(&d));
        Ok((d, true))
    }

    fn open_dense(&self) -> std::result::Result<Dense, String> {
        let Some(sem) = &self.state.semantic else {
            return Err("the index has no semantic layer (built without an embedding model)".into());
        };
        let Some(setup) = &self.semantic else { return Err("the semantic layer is turned off".into()) };
        let loaded = self.embedder();
        // The model and the store open in parallel: both take a few hundred ms.
        let (embedder, store, opened_ms) = std::thread::scope(|s| {
            let e = s.spawn(|| {
                let t = Instant::now();
                let e = match &loaded {
                    Some(e) => Ok(Arc::clone(e)),
                    None => Embedder::load(&setup.model_dir, EmbedOptions { optimize_graph: !setup.one_shot, ..EmbedOptions::default() }).map(Arc::new),
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
            Ok(Err(e)) => return Err(format!("the embedding model cannot be loaded: {e}")),
            Err(_) => return Err("loading the embedding model panicked".into()),
        };
        if embedder.manifest().id != sem.model {
            return Err(format!(
                "the index holds vectors of model `{}` but `{}` is configured; run `git rag index` to re-embed",
                sem.model,
                embedder.manifest().id
            ));
        }
        self.adopt_embedder(Arc::clone(&embedder));
        let store = store.map_err(|e| e.to_string())?;
        Ok(Dense { embedder, store, opened_ms })
    }

    /// The code graph, loaded on first use.
    pub fn graph(&self) -> std::result::Result<&Graph, String> {
        match self.graph.get_or_init(|| Graph::load(&self.dir).map_err(|e| e.to_string())) {
            Ok(Some(g)) => Ok(g),
            Ok(None) => Err("the index has no code graph yet; run `git rag index`".into()),
            Err(e) => Err(e.clone()),
        }
    }

    pub fn patterns(&self) -> &[crate::patterns::Pattern] {
        self.patterns.get_or_init(|| crate::graph::load_patterns(&self.dir).unwrap_or_default())
    }

    /// Opens everything now (for a long-lived process).
    pub fn warm(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if let Err(e) = self.dense() {
            problems.push(format!("semantic: {e}"));
        }
        match self.graph() {
            Ok(g) => g.prepare(),
            Err(e) => problems.push(format!("graph: {e}")),
        }
        self.patterns();
        problems
    }

    /// Answers a query in the mode asked for.
    pub fn search(self: &Arc<Self>, text: &str, opts: &HybridOptions) -> Result<Answer> {
        let started = Instant::now();
        let mut analysis = crate::intent::analyze(text);
        if let Some(r) = opts.relation {
            let ask = crate::intent::graph_ask(text).unwrap_or(GraphAsk { relation: r, subject: identifier_subjects(text), context: Vec::new() });
            analysis.graph = Some(GraphAsk { relation: r, ..ask });
        }
        let mut answer = Answer {
            response: Response { query: text.to_string(), took_ms: 0.0, results: Vec::new() },
            analysis: analysis.clone(),
            retrievers: Vec::new(),
            fallbacks: Vec::new(),
            subjects: Vec::new(),
            timings: Default::default(),
        };
        let limit = opts.query.limit;
        let window = opts.window.max(limit);
        let mut list_opts = opts.query.clone();
        list_opts.limit = window;

        let results = match opts.query.mode {
            Mode::Keyword | Mode::Symbol => {
                answer.retrievers.push(if opts.query.mode == Mode::Keyword { "bm25" } else { "symbol" });
                search::search(&self.keyword, text, &opts.query)?.results
            }
            Mode::Semantic => {
                let (dense, fresh) = self.dense_fresh().map_err(HybridError::Unavailable)?;
                if fresh {
                    answer.timings.insert("model_load", dense.opened_ms.0);
                    answer.timings.insert("store_open", dense.opened_ms.1);
                }
                answer.retrievers.push("dense");
                self.dense_list(&dense, text, &opts.query, &mut answer.timings)?
            }
            Mode::Graph => {
                let graph = self.graph().map_err(HybridError::Unavailable)?;
                answer.retrievers.push("graph");
                let ask = analysis.graph.clone().unwrap_or(GraphAsk { relation: Relation::Callers, subject: identifier_subjects(text), context: Vec::new() });
                let neighbours = analysis.graph.is_none() && opts.relation.is_none();
                let (hits, subjects) = self.graph_list(graph, &ask, neighbours, true, opts.depth, &opts.query)?;
                answer.subjects = subjects;
                hits
            }
            Mode::Hybrid => self.hybrid(text, &analysis, opts, &list_opts, &mut answer)?,
        };
        let mut results = results;
        if opts.query.mode == Mode::Hybrid {
            results = dedup_overlaps(results);
            if let Some(lambda) = opts.diversity {
                search::fill_content(&self.keyword, &mut results)?;
                results = mmr(results, lambda, limit);
            }
        }
        if opts.expand_parent {
            results = self.expand_parent(results)?;
        }
        results.truncate(limit);
        search::fill_content(&self.keyword, &mut results)?;
        for (i, h) in results.iter_mut().enumerate() {
            h.rank = i + 1;
        }
        answer.response.results = results;
        answer.response.took_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(answer)
    }

    fn hybrid(self: &Arc<Self>, text: &str, analysis: &Analysis, opts: &HybridOptions, list_opts: &QueryOptions, answer: &mut Answer) -> Result<Vec<Hit>> {
        let w = analysis.weights;
        let dense_wanted = w.dense > 0.0 && self.state.semantic.is_some() && self.semantic.is_some();
        if w.dense > 0.0 && !dense_wanted {
            answer.fallbacks.push(if self.state.semantic.is_none() {
                "dense: the index has no semantic layer (run `git rag model install`, then `git rag index`)".to_string()
            } else {
                "dense: the semantic layer is turned off".to_string()
            });
        }
        // The dense retriever (model load, store open, embedding) runs beside
        // the others, on its own thread so a slow one can be left behind.
        let dense_rx = dense_wanted.then(|| {
            let (tx, rx) = std::sync::mpsc::channel();
            let me = Arc::clone(self);
            let (text, list_opts) = (text.to_string(), list_opts.clone());
            let wants_patterns = analysis.wants_patterns || analysis.intent == Intent::Concept;
            std::thread::spawn(move || {
                let run = || -> std::result::Result<(Vec<Hit>, Vec<Hit>, Timings), String> {
                    let mut timings = Timings::new();
                    let (d, fresh) = me.dense_fresh()?;
                    if fresh {
                        timings.insert("model_load", d.opened_ms.0);
                        timings.insert("store_open", d.opened_ms.1);
                    }
                    let t = Instant::now();
                    let vector = d.embedder.embed_query(&text).map_err(|e| e.to_string())?;
                    timings.insert("embed_query", millis(t));
                    let t = Instant::now();
                    let hits = search::semantic_search(d.store.as_ref(), &vector, &text, &list_opts, me.state.files.keys()).map_err(|e| e.to_string())?;
                    let patterns = if wants_patterns { pattern_dense(d.store.as_ref(), &vector, list_opts.limit.min(10)).unwrap_or_default() } else { Vec::new() };
                    timings.insert("vector_search", millis(t));
                    Ok((hits.results, patterns, timings))
                };
                let _ = tx.send(run());
            });
            rx
        });
        let started = Instant::now();
        let mut lists: Vec<(&'static str, f32, Vec<Hit>)> = Vec::new();
        for (name, weight, mode) in [("bm25", w.bm25, Mode::Keyword), ("symbol", w.symbol, Mode::Symbol)] {
            if weight > 0.0 {
                let t = Instant::now();
                let mut o = list_opts.clone();
                o.mode = mode;
                // Only name matches (exact or prefix) are symbol evidence; a
                // symbol list of loose token matches would only add noise.
                let hits = if mode == Mode::Symbol { search::symbol_name_matches(&self.keyword, text, &o)? } else { search::search(&self.keyword, text, &o)?.results };
                answer.timings.insert(name, millis(t));
                lists.push((name, weight, hits));
            }
        }
        let t = Instant::now();
        let graph_part = match (&analysis.graph, w.graph > 0.0) {
            (Some(ask), true) => Some(match self.graph() {
                // The subject itself comes from the other retrievers (it is their
                // best match); the graph list holds only what it relates to.
                Ok(g) => self.graph_list(g, ask, false, false, opts.depth, list_opts).map_err(|e| e.to_string()),
                Err(e) => Err(e),
            }),
            _ => None,
        };
        if graph_part.is_some() {
            answer.timings.insert("graph", millis(t));
        }
        let t = Instant::now();
        let dense = dense_rx.map(|rx| {
            let left = opts.timeout.saturating_sub(started.elapsed());
            match rx.recv_timeout(left) {
                Ok(r) => r,
                Err(std::sync::mpsc::RecvTimeoutError::Timeout) => Err(format!("timed out after {:.1}s", opts.timeout.as_secs_f64())),
                Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => Err("the dense retriever failed".into()),
            }
        });
        if dense.is_some() {
            // What the dense thread still cost after the others were done.
            answer.timings.insert("dense_wait", millis(t));
        }
        match dense {
            Some(Ok((hits, patterns, timings))) => {
                answer.timings.extend(timings);
                lists.push(("dense", w.dense, hits));
                if !patterns.is_empty() {
                    lists.push(("patterns", if analysis.wants_patterns { 2.0 } else { 0.3 }, patterns));
                }
            }
            Some(Err(e)) => answer.fallbacks.push(format!("dense: {e}")),
            None => {}
        }
        match graph_part {
            Some(Ok((hits, subjects))) => {
                answer.subjects = subjects;
                lists.push(("graph", w.graph, hits));
            }
            Some(Err(e)) => answer.fallbacks.push(format!("graph: {e}")),
            None => {}
        }
        if analysis.wants_patterns && !lists.iter().any(|(n, _, _)| *n == "patterns") {
            // Without vectors, patterns are matched on their descriptions.
            let hits = pattern_keyword(self.patterns(), text, 10);
            if !hits.is_empty() {
                lists.push(("patterns", 2.0, hits));
            }
        }
        answer.retrievers = lists.iter().map(|(n, _, _)| *n).collect();
        Ok(fuse(&lists, RRF_K))
    }

    fn dense_list(&self, dense: &Dense, text: &str, opts: &QueryOptions, timings: &mut Timings) -> Result<Vec<Hit>> {
        let t = Instant::now();
        let vector = dense.embedder.embed_query(text).map_err(|e| HybridError::Unavailable(e.to_string()))?;
        timings.insert("embed_query", millis(t));
        let t = Instant::now();
        let hits = search::semantic_search(dense.store.as_ref(), &vector, text, opts, self.state.files.keys())?.results;
        timings.insert("vector_search", millis(t));
        Ok(hits)
    }

    /// The graph's answer: the subject's callers or callees (or importers),
    /// nearest first, then the subject itself for context.
    fn graph_list(&self, graph: &Graph, ask: &GraphAsk, neighbours: bool, with_subject: bool, depth: usize, opts: &QueryOptions) -> Result<(Vec<Hit>, Vec<String>)> {
        let subjects = pick_subjects(graph, ask);
        let names: Vec<String> = subjects.iter().map(|ix| describe(graph, *ix)).collect();
        let depth = depth.max(1);
        let mut reached: Vec<(petgraph::stable_graph::NodeIndex, usize)> = Vec::new();
        let relations: Vec<Relation> = if neighbours { vec![Relation::Callers, Relation::Callees] } else { vec![ask.relation] };
        for relation in relations {
            match relation {
                Relation::Callers => reached.extend(graph.walk(&subjects, &[EdgeKind::Calls], Direction::Incoming, depth)),
                Relation::Callees => {
                    // A function acts through its nested helpers too.
                    let mut from = subjects.clone();
                    for s in &subjects {
                        from.extend(graph.descendants(*s).into_iter().filter(|d| crate::graph::is_callable(&graph.graph[*d].kind)));
                    }
                    reached.extend(graph.walk(&from, &[EdgeKind::Calls], Direction::Outgoing, depth));
                }
                Relation::Importers | Relation::Imports => {
                    let files: Vec<_> = subjects.iter().filter_map(|s| file_of(graph, *s)).collect();
                    let dir = if relation == Relation::Importers { Direction::Incoming } else { Direction::Outgoing };
                    reached.extend(graph.walk(&files, &[EdgeKind::Imports], dir, depth));
                }
            }
        }
        // Nearest first; within a depth, the subject's own file first, then by place.
        let subject_paths: HashSet<String> = subjects.iter().filter_map(|s| node_path(graph, *s)).collect();
        reached.sort_by_cached_key(|(ix, depth)| {
            let p = node_path(graph, *ix).unwrap_or_default();
            (*depth, !subject_paths.contains(&p), search::is_test_path(&p), p, graph.graph[*ix].start_line)
        });
        let mut order: Vec<petgraph::stable_graph::NodeIndex> = Vec::new();
        let first_depth_end = reached.iter().position(|(_, d)| *d > 1).unwrap_or(reached.len());
        order.extend(reached[..first_depth_end].iter().map(|(n, _)| *n));
        if with_subject {
            order.extend(subjects.iter().copied());
        }
        order.extend(reached[first_depth_end..].iter().map(|(n, _)| *n));
        let glob = opts.path.as_deref().map(search::compile_glob).transpose()?;
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        for ix in order {
            if !seen.insert(ix) || hits.len() >= opts.limit {
                continue;
            }
            let hit = match &graph.graph[ix].key {
                NodeKey::Symbol { path, qualified_name } => search::symbol_hit(&self.keyword, path, qualified_name)?,
                NodeKey::File(path) => search::file_hit(&self.keyword, path)?,
                _ => None,
            };
            let Some(mut hit) = hit else { continue };
            if glob.as_ref().is_some_and(|g| !g.is_match(&hit.path))
                || opts.lang.as_ref().is_some_and(|l| crate::lang::Language::from_name(l).is_none_or(|l| l.name() != hit.language))
                || opts.kind.as_ref().is_some_and(|k| !k.eq_ignore_ascii_case(&hit.kind))
            {
                continue;
            }
            hit.rank = hits.len() + 1;
            hit.score = 1.0 / hit.rank as f32;
            hit.signals.graph = Some(hit.rank);
            hits.push(hit);
        }
        Ok((hits, names))
    }

    fn expand_parent(&self, hits: Vec<Hit>) -> Result<Vec<Hit>> {
        let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
        let mut seen = HashSet::new();
        for h in hits {
            let lifted = match &h.chunk_id {
                Some(id) => match search::chunk_hit(&self.keyword, id)? {
                    Some((_, Some(parent))) => search::chunk_hit(&self.keyword, &parent)?.map(|(p, _)| p),
                    _ => None,
                },
                None => None,
            };
            let mut h2 = match lifted {
                Some(mut p) => {
                    p.rank = h.rank;
                    p.score = h.score;
                    p.signals = h.signals.clone();
                    p
                }
                None => h,
            };
            let key = h2.chunk_id.clone().unwrap_or_else(|| format!("{}:{}-{}", h2.path, h2.start_line, h2.end_line));
            if seen.insert(key) {
                h2.rank = out.len() + 1;
                out.push(h2);
            }
        }
        Ok(out)
    }
}

/// Code-shaped words of a query, as graph subjects when no relation was asked.
fn identifier_subjects(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split_whitespace()
        .filter(|w| crate::intent::looks_like_code(w))
        .map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.')).split('(').next().unwrap_or("").to_string())
        .filter(|w| !w.is_empty())
        .collect();
    if out.is_empty() {
        out = text.split_whitespace().map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_')).to_string()).filter(|w| w.len() > 2).collect();
    }
    out
}

fn node_path(graph: &Graph, ix: petgraph::stable_graph::NodeIndex) -> Option<String> {
    match &graph.graph[ix].key {
        NodeKey::File(p) | NodeKey::Symbol { path: p, .. } => Some(p.clone()),
        _ => None,
    }
}

fn file_of(graph: &Graph, ix: petgraph::stable_graph::NodeIndex) -> Option<petgraph::stable_graph::NodeIndex> {
    graph.node(&NodeKey::File(node_path(graph, ix)?))
}

fn describe(graph: &Graph, ix: petgraph::stable_graph::NodeIndex) -> String {
    match &graph.graph[ix].key {
        NodeKey::File(p) => p.clone(),
        NodeKey::Symbol { path, qualified_name } => format!("{qualified_name} ({path}:{})", graph.graph[ix].start_line),
        NodeKey::Stub(s) | NodeKey::External(s) => s.clone(),
    }
}

/// The definitions a graph question is about. Each candidate word is matched
/// against symbol names; candidates score for an exact match and for the
/// other words of the query appearing in their path or name; the best tier wins.
pub fn pick_subjects(graph: &Graph, ask: &GraphAsk) -> Vec<petgraph::stable_graph::NodeIndex> {
    let mut scored: Vec<(f32, petgraph::stable_graph::NodeIndex)> = Vec::new();
    let all_words: Vec<String> = ask.subject.iter().chain(&ask.context).map(|w| w.to_lowercase()).collect();
    for word in &ask.subject {
        // A file: `app/utils.py`, or just `utils.py`.
        if crate::lang::Language::from_path(word) != crate::lang::Language::Text || word.contains('/') {
            let suffix = format!("/{word}");
            for ix in graph.graph.node_indices() {
                if let NodeKey::File(p) = &graph.graph[ix].key {
                    if p == word || p.ends_with(&suffix) {
                        scored.push((5.0, ix));
                    }
                }
            }
        }
        for ix in graph.find_symbols(word) {
            let NodeKey::Symbol { path, qualified_name } = &graph.graph[ix].key else { continue };
            let mut score = if qualified_name == word {
                3.0
            } else if qualified_name.eq_ignore_ascii_case(word) {
                2.5
            } else if qualified_name.rsplit('.').next().is_some_and(|n| n == word) {
                2.0
            } else {
                1.5
            };
            let haystack = format!("{} {}", path.to_lowercase(), qualified_name.to_lowercase());
            for other in all_words.iter().filter(|w| !w.eq_ignore_ascii_case(word)) {
                let stem = other.trim_end_matches('s');
                if stem.len() >= 3 && haystack.contains(stem) {
                    score += 1.0;
                }
            }
            if search::is_test_path(path) {
                score -= 1.0;
            }
            if crate::graph::is_callable(&graph.graph[ix].kind) || matches!(ask.relation, Relation::Importers | Relation::Imports) {
                score += 0.5;
            }
            scored.push((score, ix));
        }
    }
    let Some(best) = scored.iter().map(|(s, _)| *s).reduce(f32::max) else { return Vec::new() };
    let mut out: Vec<_> = scored.into_iter().filter(|(s, _)| *s >= best).map(|(_, ix)| ix).collect();
    out.sort_by(|a, b| graph.graph[*a].key.cmp(&graph.graph[*b].key));
    out.dedup();
    out
}

fn hit_key(h: &Hit) -> String {
    h.chunk_id.clone().unwrap_or_else(|| format!("{}:{}-{}", h.path, h.start_line, h.end_line))
}

/// Weighted Reciprocal Rank Fusion: each list adds `weight / (k + rank)` to
/// the results it holds. A result keeps the form (lines, content) of the list
/// that credited it most, and its rank in every list as signals.
pub fn fuse(lists: &[(&'static str, f32, Vec<Hit>)], k: f32) -> Vec<Hit> {
    let mut fused: HashMap<String, (f32, f32, Hit)> = HashMap::new();
    for (name, weight, hits) in lists {
        // A retriever weighted below 1 contributes a shorter list: its deep
        // ranks are weak evidence that would otherwise add up across lists.
        let depth = if *weight >= 1.0 { hits.len() } else { ((hits.len() as f32 * weight).round() as usize).max(MIN_LIST) };
        // A list credits each result once, at its best rank (several symbol
        // hits may stand for one chunk).
        let mut credited = HashSet::new();
        let mut rank = 0;
        for h in hits {
            if !credited.insert(hit_key(h)) {
                continue;
            }
            rank += 1;
            if rank > depth {
                break;
            }
            let bonus = if rank == 1 { 1.0 + TOP_RANK_BONUS } else { 1.0 };
            let contribution = weight * bonus / (k + rank as f32);
            let entry = fused.entry(hit_key(h)).or_insert_with(|| (0.0, -1.0, h.clone()));
            entry.0 += contribution;
            if contribution > entry.1 {
                let signals = entry.2.signals.clone();
                entry.2 = h.clone();
                entry.2.signals = signals;
                entry.1 = contribution;
            }
            let s = &mut entry.2.signals;
            match *name {
                "bm25" => s.bm25 = Some(rank),
                "symbol" => s.symbol = Some(rank),
                "dense" => s.dense = Some(rank),
                "graph" => s.graph = Some(rank),
                "patterns" => s.patterns = Some(rank),
                _ => {}
            }
        }
    }
    let mut out: Vec<(String, f32, Hit)> = fused.into_iter().map(|(k, (score, _, h))| (k, score, h)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.into_iter()
        .enumerate()
        .map(|(i, (_, score, mut h))| {
            h.rank = i + 1;
            h.score = score;
            h
        })
        .collect()
}

/// Outlines (file, class) elide their members' bodies, so they do not repeat
/// the members' lines.
fn is_outline(kind: &str) -> bool {
    matches!(kind, "file" | "class" | "interface" | "enum" | "pattern")
}

/// Drops a result whose lines mostly repeat a better-ranked result of the same file.
pub fn dedup_overlaps(hits: Vec<Hit>) -> Vec<Hit> {
    let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        let repeats = !is_outline(&h.kind)
            && kept.iter().any(|k| {
                if k.path != h.path || is_outline(&k.kind) {
                    return false;
                }
                let lo = k.start_line.max(h.start_line);
                let hi = k.end_line.min(h.end_line);
                if lo > hi {
                    return false;
                }
                let overlap = (hi - lo + 1) as f32;
                let smaller = ((k.end_line - k.start_line + 1).min(h.end_line - h.start_line + 1)) as f32;
                overlap / smaller.max(1.0) >= 0.5
            });
        if !repeats {
            kept.push(h);
        }
    }
    kept
}

fn token_set(text: &str) -> HashSet<String> {
    crate::keyword::code_terms(text).into_iter().map(|t| t.text).collect()
}

/// Maximal Marginal Relevance over the fused list: each pick trades its
/// relevance (normalised fused score) against its similarity to what is
/// already picked (Jaccard over code terms; the same file counts extra).
pub fn mmr(hits: Vec<Hit>, lambda: f32, limit: usize) -> Vec<Hit> {
    let lambda = lambda.clamp(0.0, 1.0);
    if hits.len() <= 1 || lambda >= 1.0 {
        return hits;
    }
    let max = hits.iter().map(|h| h.score).fold(f32::MIN, f32::max).max(1e-9);
    let terms: Vec<HashSet<String>> = hits.iter().map(|h| token_set(&h.content)).collect();
    let mut remaining: Vec<usize> = (0..hits.len()).collect();
    let mut picked: Vec<usize> = Vec::new();
    while !remaining.is_empty() && picked.len() < limit.max(1) {
        let (pos, _) = remaining
            .iter()
            .enumerate()
            .map(|(pos, &i)| {
                let sim = picked
                    .iter()
                    .map(|&j| {
                        let inter = terms[i].intersection(&terms[j]).count() as f32;
                        let union = terms[i].union(&terms[j]).count().max(1) as f32;
                        let same_file = if hits[i].path == hits[j].path { 0.2 } else { 0.0 };
                        (inter / union + same_file).min(1.0)
                    })
                    .fold(0.0, f32::max);
                (pos, lambda * hits[i].score / max - (1.0 - lambda) * sim)
            })
            .fold((0, f32::MIN), |best, cur| if cur.1 > best.1 { cur } else { best });
        picked.push(remaining.remove(pos));
    }
    picked.extend(remaining);
    let mut slots: Vec<Option<Hit>> = hits.into_iter().map(Some).collect();
    picked.into_iter().filter_map(|i| slots[i].take()).collect()
}

fn pattern_hit(p: &crate::patterns::Pattern, rank: usize) -> Option<Hit> {
    let ex = p.examples.first()?;
    Some(Hit {
        rank,
        path: ex.path.clone(),
        start_line: ex.start_line,
        end_line: ex.end_line,
        symbol: Some(p.key.clone()),
        kind: "pattern".into(),
        language: ex.language.clone(),
        score: 0.0,
        content: format!("{} (used {} times in {} files)\n{}", p.description, p.count, p.files, ex.snippet),
        signals: search::Signals { patterns: Some(rank), ..Default::default() },
        chunk_id: Some(format!("pattern:{}", p.key)),
    })
}

/// Patterns whose description shares words with the query, best first.
pub fn pattern_keyword(patterns: &[crate::patterns::Pattern], text: &str, limit: usize) -> Vec<Hit> {
    let query: HashSet<String> = token_set(text).into_iter().filter(|t| t.len() > 2).collect();
    let mut scored: Vec<(f32, &crate::patterns::Pattern)> = patterns
        .iter()
        .map(|p| {
            let terms = token_set(&format!("{} {}", p.description, p.key));
            let overlap = query.iter().filter(|q| terms.iter().any(|t| t.starts_with(q.as_str()) || q.starts_with(t.as_str()) && t.len() > 2)).count();
            (overlap as f32 + (p.count as f32).ln_1p() * 0.05, p)
        })
        .filter(|(s, _)| *s >= 1.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.key.cmp(&b.1.key)));
    scored.into_iter().take(limit).enumerate().filter_map(|(i, (_, p))| pattern_hit(p, i + 1)).collect()
}

fn pattern_dense(store: &dyn VectorStore, vector: &[f32], limit: usize) -> std::result::Result<Vec<Hit>, crate::store::StoreError> {
    let hits = store.search(Collection::Patterns, vector, &Filter::default(), limit)?;
    Ok(hits
        .into_iter()
        .enumerate()
        .filter_map(|(i, h)| {
            let p: crate::patterns::Pattern = serde_json::from_value(serde_json::Value::Object(pattern_from_payload(&h.payload)?)).ok()?;
            pattern_hit(&p, i + 1)
        })
        .collect())
}

fn pattern_from_payload(p: &serde_json::Map<String, serde_json::Value>) -> Option<serde_json::Map<String, serde_json::Value>> {
    let mut m = serde_json::Map::new();
    for k in ["key", "category", "description", "count", "files", "examples"] {
        m.insert(k.to_string(), p.get(k)?.clone());
    }
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Signals;

    fn hit(path: &str, s: usize, e: usize, kind: &str, id: &str) -> Hit {
        Hit {
            rank: 0,
            path: path.into(),
            start_line: s,
            end_line: e,
            symbol: None,
            kind: kind.into(),
            language: "python".into(),
            score: 0.0,
            content: format!("{path} {s}"),
            signals: Signals::default(),
            chunk_id: Some(id.into()),
        }
    }

    #[test]
    fn rrf_adds_weighted_ranks_and_keeps_signals() {
        let a = vec![hit("a.py", 1, 5, "function", "x"), hit("b.py", 1, 5, "function", "y")];
        let b = vec![hit("b.py", 1, 5, "function", "y"), hit("c.py", 1, 5, "function", "z")];
        let fused = fuse(&[("bm25", 1.0, a), ("dense", 1.0, b)], RRF_K);
        assert_eq!(fused[0].path, "b.py");
        assert_eq!(fused[0].signals.bm25, Some(2));
        assert_eq!(fused[0].signals.dense, Some(1));
        assert!((fused[0].score - (1.0 / 62.0 + (1.0 + TOP_RANK_BONUS) / 61.0)).abs() < 1e-6);
        // A heavier list wins ties of rank.
        let fused = fuse(&[("bm25", 1.0, vec![hit("a.py", 1, 5, "function", "x")]), ("dense", 2.0, vec![hit("c.py", 1, 5, "function", "z")])], RRF_K);
        assert_eq!(fused[0].path, "c.py");
        // One retriever's first answer beats a second place seconded by a
        // light retriever.
        let sure = vec![hit("s.py", 1, 5, "function", "s"), hit("t.py", 1, 5, "function", "t")];
        let fused = fuse(&[("bm25", 1.0, sure), ("dense", 0.3, vec![hit("t.py", 1, 5, "function", "t")])], RRF_K);
        assert_eq!(fused[0].path, "s.py");
    }

    #[test]
    fn overlaps_keep_the_better_ranked() {
        let hits = vec![hit("a.py", 10, 30, "function", "1"), hit("a.py", 12, 28, "block", "2"), hit("a.py", 1, 100, "class", "3"), hit("a.py", 40, 50, "method", "4")];
        let kept: Vec<String> = dedup_overlaps(hits).into_iter().map(|h| h.chunk_id.unwrap()).collect();
        assert_eq!(kept, vec!["1", "3", "4"]);
    }

    #[test]
    fn mmr_spreads_near_duplicates() {
        let mut a = hit("a.py", 1, 5, "function", "1");
        a.content = "def load_config(path): return json.load(path)".into();
        a.score = 1.0;
        let mut b = hit("a.py", 10, 15, "function", "2");
        b.content = "def load_config_file(path): return json.load(path)".into();
        b.score = 0.9;
        let mut c = hit("b.py", 1, 5, "function", "3");
        c.content = "def send_request(session, url): pass".into();
        c.score = 0.8;
        let order: Vec<String> = mmr(vec![a.clone(), b.clone(), c.clone()], 0.5, 3).into_iter().map(|h| h.chunk_id.unwrap()).collect();
        assert_eq!(order, vec!["1", "3", "2"]);
        let order: Vec<String> = mmr(vec![a, b, c], 1.0, 3).into_iter().map(|h| h.chunk_id.unwrap()).collect();
        assert_eq!(order, vec!["1", "2", "3"]);
    }
}

/// Lines `start..=end` (1-based) of a text, clamped to it; `None` when empty.
fn lines_of(text: &str, start: usize, end: usize) -> Option<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = start.max(1);
    let end = end.min(lines.len());
    if start > end {
        return None;
    }
    Some((start, end, lines[start - 1..end].join("\n")))
}

/// The header of a file: leading imports, `require`s, docstring and comments.
fn import_header(text: &str) -> Option<usize> {
    let mut last = 0;
    for (i, line) in text.lines().take(120).enumerate() {
        let t = line.trim_start();
        let is_import = t.starts_with("import ")
            || t.starts_with("from ") && t.contains(" import")
            || t.contains("require(")
            || (t.starts_with("export ") && t.contains(" from "))
            || t.starts_with("'use strict'")
            || t.starts_with("\"use strict\"");
        if is_import {
            last = i + 1;
        }
    }
    (last > 0).then_some(last)
}

/// One line about a file for the context's file section: its outline (the
/// top-level definitions with their lines) and its neighbours in the import
/// graph, each list capped so the label stays a line.
fn file_note(graph: &Graph, path: &str) -> String {
    const OUTLINE: usize = 12;
    const RELATED: usize = 5;
    let Some(file) = graph.node(&NodeKey::File(path.to_string())) else { return String::new() };
    let capped = |mut items: Vec<String>, cap: usize| -> Option<String> {
        if items.is_empty() {
            return None;
        }
        let more = items.len().saturating_sub(cap);
        items.truncate(cap);
        let mut s = items.join(", ");
        if more > 0 {
            s.push_str(&format!(" (+{more} more)"));
        }
        Some(s)
    };
    let mut defs: Vec<&NodeData> = graph.walk(&[file], &[EdgeKind::Contains], Direction::Outgoing, 1).into_iter().map(|(n, _)| &graph.graph[n]).collect();
    defs.sort_by_key(|d| (d.start_line, d.end_line));
    let outline: Vec<String> = defs
        .iter()
        .filter_map(|d| match &d.key {
            NodeKey::Symbol { qualified_name, .. } => Some(format!("{} {qualified_name} {}-{}", d.kind, d.start_line, d.end_line)),
            _ => None,
        })
        .collect();
    let files_of = |direction: Direction| -> Vec<String> {
        let mut v: Vec<String> = graph
            .walk(&[file], &[EdgeKind::Imports], direction, 1)
            .into_iter()
            .filter_map(|(n, _)| match &graph.graph[n].key {
                NodeKey::File(p) if p != path => Some(p.clone()),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let mut parts = Vec::new();
    if let Some(s) = capped(outline, OUTLINE) {
        parts.push(format!("defines: {s}"));
    }
    if let Some(s) = capped(files_of(Direction::Outgoing), RELATED) {
        parts.push(format!("imports: {s}"));
    }
    if let Some(s) = capped(files_of(Direction::Incoming), RELATED) {
        parts.push(format!("imported by: {s}"));
    }
    parts.join(" · ")
}

/// The first lines of a definition, up to the end of its signature.
fn signature_lines(text: &str, start: usize, end: usize) -> Option<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut stop = start;
    for n in start..=end.min(lines.len()).min(start + 5) {
        stop = n;
        let l = lines[n - 1].trim_end();
        if l.ends_with(':') || l.ends_with('{') || l.ends_with("=>") || l.ends_with(';') || l.contains(") {") {
            break;
        }
    }
    lines_of(text, start, stop)
}

/// Candidates for the context assembler, from an answer: the code of the
/// results; the signatures of what that code calls and of the classes that
/// hold it (definitions before uses); the import header of each file; the
/// project's conventions that match the query. Text is read from the indexed
/// blobs (`read_file`), so every citation is verbatim.
pub fn context_pieces(engine: &Engine, answer: &Answer, read_file: &dyn Fn(&str) -> Option<String>) -> Result<Vec<crate::context::Piece>> {
    use crate::context::{Piece, Section};
    let mut files: HashMap<String, Option<String>> = HashMap::new();
    let mut text_of = |path: &str| -> Option<String> { files.entry(path.to_string()).or_insert_with(|| read_file(path)).clone() };
    let mut pieces = Vec::new();
    let piece = |section: Section, h: &Hit, range: (usize, usize, String), note: Option<String>| Piece {
        section,
        path: h.path.clone(),
        start_line: range.0,
        end_line: range.1,
        symbol: h.symbol.clone(),
        kind: h.kind.clone(),
        language: h.language.clone(),
        content: range.2,
        note,
    };
    let results: Vec<&Hit> = answer.response.results.iter().filter(|h| h.kind != "pattern").collect();
    let in_results: HashSet<(String, String)> = results.iter().filter_map(|h| Some((h.path.clone(), h.symbol.clone()?))).collect();

    // Relevant code, best first.
    for h in &results {
        if h.kind == "file" {
            continue;
        }
        if let Some(range) = text_of(&h.path).and_then(|t| lines_of(&t, h.start_line, h.end_line)) {
            pieces.push(piece(Section::Code, h, range, None));
        }
    }

    // Definitions the code relies on: callees and enclosing classes, most referenced first.
    if let Ok(graph) = engine.graph() {
        let mut counts: HashMap<petgraph::stable_graph::NodeIndex, (usize, usize)> = HashMap::new();
        for (rank, h) in results.iter().take(8).enumerate() {
            let Some(sym) = &h.symbol else { continue };
            let Some(ix) = graph.node(&NodeKey::Symbol { path: h.path.clone(), qualified_name: sym.clone() }) else { continue };
            let mut related: Vec<_> = graph.walk(&[ix], &[EdgeKind::Calls, EdgeKind::Inherits], Direction::Outgoing, 1).into_iter().map(|(n, _)| n).collect();
            related.extend(graph.walk(&[ix], &[EdgeKind::Contains], Direction::Incoming, 1).into_iter().map(|(n, _)| n));
            for n in related {
                let e = counts.entry(n).or_insert((0, rank));
                e.0 += 1;
            }
        }
        let mut defs: Vec<_> = counts.into_iter().collect();
        defs.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.cmp(&b.1 .1)).then_with(|| graph.graph[a.0].key.cmp(&graph.graph[b.0].key)));
        for (ix, _) in defs.into_iter().take(24) {
            let node = &graph.graph[ix];
            let NodeKey::Symbol { path, qualified_name } = &node.key else { continue };
            if in_results.contains(&(path.clone(), qualified_name.clone())) {
                continue;
            }
            let Some(text) = text_of(path) else { continue };
            let Some(range) = signature_lines(&text, node.start_line, node.end_line) else { continue };
            let language = crate::lang::Language::from_path(path).name().to_string();
            let h = Hit {
                rank: 0,
                path: path.clone(),
                start_line: node.start_line,
                end_line: node.end_line,
                symbol: Some(qualified_name.clone()),
                kind: node.kind.clone(),
                language,
                score: 0.0,
                content: String::new(),
                signals: Default::default(),
                chunk_id: None,
            };
            pieces.push(piece(Section::Definitions, &h, range, None));
        }
    }

    // Surrounding file context, in result order: the import header of each
    // file, labelled with its outline and the files it is linked to.
    let graph = engine.graph().ok();
    let mut seen_files = HashSet::new();
    for h in &results {
        if !seen_files.insert(h.path.clone()) {
            continue;
        }
        let Some(text) = text_of(&h.path) else { continue };
        if let Some(end) = import_header(&text) {
            if let Some(range) = lines_of(&text, 1, end) {
                let mut fh = (*h).clone();
                fh.kind = "imports".into();
                fh.symbol = None;
                let note = graph.map(|g| file_note(g, &h.path)).filter(|n| !n.is_empty()).unwrap_or_else(|| "imports".into());
                pieces.push(piece(Section::FileContext, &fh, range, Some(note)));
            }
        }
    }

    // Project conventions that match the query (or the most common ones).
    let patterns = engine.patterns();
    let mut hits = pattern_keyword(patterns, &answer.response.query, 4);
    if hits.is_empty() {
        hits = patterns.iter().take(3).enumerate().filter_map(|(i, p)| pattern_hit(p, i + 1)).collect();
    }
    for h in hits {
        let Some(p) = patterns.iter().find(|p| Some(&p.key) == h.symbol.as_ref()) else { continue };
        let Some(text) = text_of(&h.path) else { continue };
        if let Some(range) = lines_of(&text, h.start_line, h.end_line) {
            let note = format!("{} (used {} times in {} files)", p.description, p.count, p.files);
            pieces.push(piece(Section::Patterns, &h, range, Some(note)));
        }
    }
    Ok(pieces)
}
