//! A query answered from a Qdrant server's collections alone, without a
//! local index: what `git rag index --ci` built, as a [`Source`] of the one
//! query pipeline ([`super::source`]) — the server's sparse BM25 vectors
//! (the keyword retriever), definitions whose name the query says (a
//! payload filter on SYMBOLS, ranked by meaning), chunks holding a literal,
//! graph questions answered by name, and the dense vectors. The fusion,
//! priors, `--files`, rerank and context are the local index's.
//! What needs the local graph (graph mode, imports) says so.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use crate::progress::millis;
use crate::query::answer::{Hit, Result as HybridResult, SearchResult, Timings, Unavailable};
use crate::query::options::{Mode, QueryOptions};
use crate::query::question::intent::{GraphAsk, Relation};
use crate::query::question::mentions::Mentions;
use crate::query::question::Question;
use crate::query::retrieve::patterns::{pattern_dense, pattern_from_payload, pattern_hit};
use crate::query::retrieve::{dense, Chunks, Dense, Source, Texts, Walk};
use crate::semantic::docs::bm25_query;
use crate::semantic::embed::{self, EmbedOptions, Embedder, ModelSource};
use crate::stores::keyword::FileTerms;
use crate::stores::server_state::{load_state, ServerStateError};
use crate::stores::vector::server::{ServerOptions, ServerStore};
use crate::stores::vector::{Collection, Filter, ScoredHit, VectorStore};

#[derive(Debug, thiserror::Error)]
pub enum ServerQueryError {
    #[error("a query of the server's vectors embeds the query locally: {0}")]
    Model(#[source] embed::EmbedError),
    #[error(transparent)]
    Store(#[from] crate::stores::vector::StoreError),
    #[error(transparent)]
    State(#[from] ServerStateError),
    #[error(
        "there is no local index, and the Qdrant server holds no index under `{prefix}` (index it with `git rag index --ci`, or pick the branch with --branch)"
    )]
    NoServerIndex { prefix: String },
    #[error("the server's vectors are from model `{server}`, the installed model is `{installed}`")]
    ModelMismatch { server: String, installed: String },
}

/// What the server holds an index of: its commit and every file's blob id.
pub struct ServerIndex {
    pub commit: Option<String>,
    /// Path → blob id.
    pub files: std::collections::BTreeMap<String, String>,
}

impl ServerIndex {
    pub fn paths(&self) -> BTreeSet<String> {
        self.files.keys().cloned().collect()
    }
}

/// A server's index, open for queries: the store, what it indexed, and the
/// model that embeds queries (loaded on first use).
pub struct Server {
    store: ServerStore,
    index: ServerIndex,
    model: ModelSource,
    embedder: OnceLock<Result<Arc<Embedder>, String>>,
    /// The last question's vector (one question is embedded once, however
    /// many of its lists rank by meaning).
    vector: Mutex<Option<(String, Arc<Vec<f32>>)>>,
}

impl Server {
    /// Connects to the server and checks it holds an index of the configured model.
    pub fn connect(server: &ServerOptions, model: &ModelSource) -> Result<Server, ServerQueryError> {
        let manifest = model.identify().map_err(ServerQueryError::Model)?;
        let store = ServerStore::connect(server.clone(), manifest.dims, &manifest.id)?;
        let Some(state) = load_state(&store)? else {
            return Err(ServerQueryError::NoServerIndex { prefix: server.prefix.clone() });
        };
        if state.model != manifest.id {
            return Err(ServerQueryError::ModelMismatch { server: state.model, installed: manifest.id });
        }
        let files = state.files.into_iter().map(|(path, f)| (path, f.blob)).collect();
        let index = ServerIndex { commit: state.last_commit.map(|c| c.to_string()), files };
        Ok(Server { store, index, model: model.clone(), embedder: OnceLock::new(), vector: Mutex::new(None) })
    }

    /// What the server holds an index of.
    pub fn index(&self) -> &ServerIndex {
        &self.index
    }

    /// The question (`dense_text`) embedded with the configured model; the
    /// last one is kept (the name and literal lookups rank by it too).
    fn vector(&self, q: &Question) -> Result<Arc<Vec<f32>>, Unavailable> {
        let text = q.dense_text();
        if let Some((_, v)) = self.vector.lock().map_err(|_| Unavailable::Poisoned)?.as_ref().filter(|(t, _)| t == text) {
            return Ok(Arc::clone(v));
        }
        let v = Arc::new(self.embed(text)?);
        *self.vector.lock().map_err(|_| Unavailable::Poisoned)? = Some((text.to_string(), Arc::clone(&v)));
        Ok(v)
    }

    /// `text` embedded with the configured model (loaded once).
    fn embed(&self, text: &str) -> Result<Vec<f32>, Unavailable> {
        let embedder = self
            .embedder
            .get_or_init(|| {
                Embedder::open(&self.model, EmbedOptions { optimize_graph: false, ..EmbedOptions::default() }).map(Arc::new).map_err(|e| e.to_string())
            })
            .clone()
            .map_err(Unavailable::ModelLoad)?;
        embedder.embed_query_for(text, self.store.dims()).map_err(Unavailable::failed)
    }

    /// The payload filter of the options (`None`: no path can match).
    fn filter(&self, opts: &QueryOptions) -> SearchResult<Option<Filter>> {
        dense::payload_filter(opts, self.index.files.keys())
    }

    /// The hit of the SEMANTIC or FILES point `id`, if the server holds it.
    fn point_hit(&self, collection: Collection, id: u64) -> SearchResult<Option<Hit>> {
        let Some(record) = self.store.retrieve(collection, &[id], false)?.into_iter().next() else { return Ok(None) };
        let Some(chunk_id) = record.payload.get("chunk_id").and_then(|v| v.as_str()).map(str::to_string) else { return Ok(None) };
        Ok(dense::dense_hits(&self.store, vec![(chunk_id, 0.0, record.payload)])?.into_iter().next())
    }

    /// Conventions by the server's BM25 over their descriptions, each with
    /// its first example's lines (the example's text as the hit's content).
    pub(crate) fn conventions(&self, text: &str, limit: usize) -> SearchResult<Vec<(Hit, String)>> {
        let mut out = Vec::new();
        for (i, hit) in self.store.sparse_search(Collection::Patterns, &bm25_query(text), &Filter::default(), limit)?.into_iter().enumerate() {
            let Some(p) = pattern_from_payload(&hit.payload)
                .and_then(|m| serde_json::from_value::<crate::analysis::patterns::Pattern>(serde_json::Value::Object(m)).ok())
            else {
                continue;
            };
            let Some(mut h) = pattern_hit(&p, i + 1) else { continue };
            h.content = p.examples.first().map(|e| e.snippet.clone()).unwrap_or_default();
            out.push((h, format!("{} (used {} times in {} files)", p.description, p.count, p.files)));
        }
        Ok(out)
    }
}

/// The server's files (read from this clone's objects by the blob ids the
/// server recorded; a file the clone lacks stands for itself by the chunk
/// text the server stores) and conventions, for a context. The call graph
/// only a local index has.
pub(crate) struct ServerTexts<'a> {
    pub server: &'a Server,
    pub reader: crate::git::BlobReader,
}

impl Texts for ServerTexts<'_> {
    fn file_text(&self, path: &str) -> Option<String> {
        let id = gix::ObjectId::from_hex(self.server.index.files.get(path)?.as_bytes()).ok()?;
        self.reader.read(&id).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    fn graph(&self) -> Option<HybridResult<crate::graph::Neighbourhood<'_>>> {
        None
    }

    fn conventions(&self, query: &str) -> HybridResult<Vec<(Hit, String)>> {
        Ok(self.server.conventions(query, 4)?)
    }
}

impl Source for Server {
    fn hidden(&self) -> Arc<BTreeSet<String>> {
        Arc::default()
    }

    fn mentions(&self, q: &Question) -> Mentions {
        Mentions::new(q.analysis.signals.as_ref(), self.index.files.keys())
    }

    fn single(&self, q: &Question, opts: &QueryOptions) -> HybridResult<Vec<Hit>> {
        match opts.mode {
            Mode::Symbol => self.names(q, &Mentions::default(), opts),
            _ => self.bm25(q, opts),
        }
    }

    fn bm25(&self, q: &Question, opts: &QueryOptions) -> HybridResult<Vec<Hit>> {
        let Some(filter) = self.filter(opts)? else { return Ok(Vec::new()) };
        Ok(sparse_list(&self.store, &q.text, &filter, opts.limit)?)
    }

    fn names(&self, q: &Question, _mentions: &Mentions, opts: &QueryOptions) -> HybridResult<Vec<Hit>> {
        let Some(filter) = self.filter(opts)? else { return Ok(Vec::new()) };
        let vector = self.vector(q)?;
        Ok(name_list(&self.store, &q.text, &vector, &filter, opts)?)
    }

    fn literals(&self, q: &Question, opts: &QueryOptions) -> HybridResult<Vec<Hit>> {
        let Some(filter) = self.filter(opts)? else { return Ok(Vec::new()) };
        let vector = self.vector(q)?;
        Ok(literal_list(&self.store, &q.analysis.literals, &vector, &filter, opts.limit)?)
    }

    fn related(&self, q: &Question, ask: &GraphAsk, walk: Walk, opts: &QueryOptions) -> Result<(Vec<Hit>, Vec<String>), Unavailable> {
        if walk.with_subject {
            return Err(Unavailable::NeedsLocalIndex { what: "--mode graph" });
        }
        let Some(filter) = self.filter(opts).map_err(Unavailable::failed)? else { return Ok((Vec::new(), Vec::new())) };
        let vector = self.vector(q)?;
        Ok((graph_list(&self.store, ask, &vector, &filter, opts.limit).map_err(Unavailable::failed)?, Vec::new()))
    }

    fn callees(&self, _seeds: &[Hit], _opts: &QueryOptions) -> Result<Vec<Hit>, Unavailable> {
        // The server's graph answers go by name (payload `calls`); the
        // resolved call graph this list walks is the local index's. Said in
        // the answer's fallbacks, not left out silently.
        Err(Unavailable::NeedsLocalIndex { what: "the `callees` list" })
    }

    fn dense_ready(&self) -> Result<(), Option<String>> {
        Ok(())
    }

    fn start_dense(&self, q: &Question, opts: &QueryOptions, patterns: bool) -> Dense {
        let search = || {
            let mut timings = Timings::new();
            let t = Instant::now();
            let vector = self.vector(q)?;
            let title = q.dense_title().map(|t| self.embed(t)).transpose()?;
            timings.insert("embed_query", millis(t));
            let t = Instant::now();
            let nearest = |v: &[f32]| dense::semantic_search(&self.store, v, q, opts, self.index.files.keys()).map(|a| a.results).map_err(Unavailable::failed);
            let mut hits = nearest(&vector)?;
            if let Some(title) = &title {
                // A document's title is searched apart ([`Question::dense_title`]).
                hits = crate::query::rank::fusion::fuse_dense(hits, nearest(title)?, opts.limit);
            }
            let patterns = if patterns { pattern_dense(&self.store, &vector, opts.limit.min(10)).unwrap_or_default() } else { Vec::new() };
            timings.insert("vector_search", millis(t));
            Ok((hits, patterns, timings))
        };
        Dense::Done(search())
    }

    fn patterns_by_words(&self, q: &Question, limit: usize) -> HybridResult<Vec<Hit>> {
        Ok(self.conventions(&q.text, limit)?.into_iter().map(|(h, _)| h).collect())
    }

    fn history_index(&self) -> Option<&std::path::Path> {
        // A server's collections hold the code CI indexed, not its history.
        None
    }
}

impl Chunks for Server {
    fn paths(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.index.files.keys().map(String::as_str))
    }

    fn file_terms(&self, _paths: &[&str], _terms: &[String]) -> SearchResult<Option<FileTerms>> {
        // The collection holds each chunk's text, not an index of its words.
        Ok(None)
    }

    fn fill_content(&self, _hits: &mut [Hit]) -> SearchResult<()> {
        // Hits carry their content (from the payload).
        Ok(())
    }

    fn file_hit(&self, path: &str) -> SearchResult<Option<Hit>> {
        self.point_hit(Collection::Files, crate::stores::vector::point_id_of(&[path]))
    }

    fn parent(&self, hit: &Hit) -> SearchResult<Option<Hit>> {
        let Some(id) = hit.chunk_id.as_deref().and_then(crate::stores::state::ChunkId::parse) else { return Ok(None) };
        let Some(record) = self.store.retrieve(Collection::Semantic, &[crate::stores::vector::point_id(id.0)], false)?.into_iter().next() else {
            return Ok(None);
        };
        match record.payload.get("parent_id").and_then(|v| v.as_str()).and_then(crate::stores::state::ChunkId::parse) {
            Some(parent) => self.point_hit(Collection::Semantic, crate::stores::vector::point_id(parent.0)),
            None => Ok(None),
        }
    }
}

/// Chunks by the server's BM25 vectors (SEMANTIC holds every chunk's text).
fn sparse_list(store: &ServerStore, text: &str, filter: &crate::stores::vector::Filter, limit: usize) -> SearchResult<Vec<Hit>> {
    let hits = store.sparse_search(Collection::Semantic, &bm25_query(text), filter, limit)?;
    let ranked = hits.into_iter().filter_map(|h| Some((h.payload.get("chunk_id")?.as_str()?.to_string(), h.score, h.payload))).collect();
    dense::dense_hits(store, ranked)
}

/// Most literals of a query matched.
const MAX_LITERALS: usize = 4;
/// As the local literal retriever: a literal in more chunks of code than
/// this is common; at most this many matches are read.
const RARE_LITERAL: usize = 20;
const LITERAL_SCAN: usize = 200;

/// Chunks holding a literal of the query as written (a quoted message, an
/// option name, a short query whole), nearest in meaning first.
fn literal_list(
    store: &ServerStore,
    literals: &[crate::query::question::literals::Literal],
    vector: &[f32],
    filter: &Filter,
    limit: usize,
) -> SearchResult<Vec<Hit>> {
    use crate::analysis::role::Role;
    let mut hits: Vec<ScoredHit> = Vec::new();
    for literal in literals.iter().take(MAX_LITERALS) {
        // A token that names a definition is the symbol retriever's.
        if literal.is_a_string_value()
            && !store.search(Collection::Symbols, vector, &filter.clone().any_of("name_lower", vec![literal.text.to_lowercase()]), 1)?.is_empty()
        {
            continue;
        }
        let found = store.search_containing(Collection::Semantic, vector, filter, "content", &literal.text, LITERAL_SCAN + 1)?;
        // A literal common in the project's code says little about where to look.
        let path_of = |h: &ScoredHit| h.payload.get("path").and_then(|v| v.as_str()).unwrap_or("").to_string();
        let code = found.iter().filter(|h| Role::of(&path_of(h)) == Role::Code).count();
        if found.len() > LITERAL_SCAN || code > RARE_LITERAL || (code == 0 && found.len() > RARE_LITERAL) {
            continue;
        }
        hits.extend(found.into_iter().take(limit));
    }
    let ranked = hits.into_iter().filter_map(|h| Some((h.payload.get("chunk_id")?.as_str()?.to_string(), h.score, h.payload))).collect();
    dense::dense_hits(store, ranked)
}

/// A graph question answered by name, without the resolved graph: the
/// definitions named like the subject (the first subject word any
/// definition has), then those whose calls name it (callers), those it
/// calls (callees) or those that extend it (implementers). Imports need the
/// local graph (module paths are resolved there): nothing.
fn graph_list(store: &ServerStore, ask: &GraphAsk, vector: &[f32], filter: &Filter, limit: usize) -> SearchResult<Vec<Hit>> {
    let mut subject: Vec<ScoredHit> = Vec::new();
    let mut name = String::new();
    for word in ask.subject.iter().take(4) {
        let last = crate::analysis::name::own_part(word).to_lowercase();
        subject = store.search(Collection::Symbols, vector, &filter.clone().any_of("name_lower", vec![last.clone()]), 8)?;
        // The definition named as written (`Command.execute`, not `Execute`) first.
        let written = word.to_lowercase();
        subject.sort_by_key(|h| {
            let get = |k: &str| h.payload.get(k).and_then(|v| v.as_str()).unwrap_or("");
            let qualified = get("qualified_name").to_lowercase().replace("::", ".");
            (!qualified.ends_with(&written), !word.ends_with(get("name")))
        });
        if !subject.is_empty() {
            name = last;
            break;
        }
    }
    if subject.is_empty() {
        return Ok(Vec::new());
    }
    let mut hits = match ask.relation {
        Relation::Callers => store.search(Collection::Symbols, vector, &filter.clone().any_of("calls", vec![name]), limit)?,
        Relation::Implementers => store.search(Collection::Symbols, vector, &filter.clone().any_of("bases", vec![name]), limit)?,
        Relation::Callees => {
            // What the best-matching definition of that name calls.
            let calls: Vec<String> = subject[0]
                .payload
                .get("calls")
                .and_then(|v| v.as_array())
                .map(|a| a.iter().filter_map(|c| c.as_str().map(str::to_string)).collect())
                .unwrap_or_default();
            if calls.is_empty() {
                return Ok(Vec::new());
            }
            let mut callees = store.search(Collection::Symbols, vector, &filter.clone().any_of("name_lower", calls), limit)?;
            // What a function does is in the callees that do work, not in its one-line helpers.
            let size = |h: &ScoredHit| {
                let line = |k: &str| h.payload.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
                line("end_line").saturating_sub(line("start_line"))
            };
            callees.sort_by_key(|h| std::cmp::Reverse(size(h)));
            callees
        }
        Relation::Importers | Relation::Imports => return Ok(Vec::new()),
    };
    let subject_ids: BTreeSet<u64> = subject.iter().map(|h| h.id).collect();
    hits.retain(|h| !subject_ids.contains(&h.id));
    // Tests last, as in the local graph answers.
    hits.sort_by_key(|h| h.payload.get("path").and_then(|v| v.as_str()).is_some_and(|p| crate::analysis::role::Role::of(p).is_test_side()));
    symbol_hits(store, hits)
}

/// Hits of SYMBOLS points, each standing for its chunk (a definition
/// without one stands for its own lines), in their order.
fn symbol_hits(store: &ServerStore, hits: Vec<ScoredHit>) -> SearchResult<Vec<Hit>> {
    let ranked = hits
        .into_iter()
        .map(|h| {
            let own = format!("symbol:{}", h.id);
            let id = h.payload.get("chunk_id").and_then(|v| v.as_str()).map_or(own, str::to_string);
            (id, h.score, h.payload)
        })
        .collect();
    dense::dense_hits(store, ranked)
}

/// Most names looked up per query.
const MAX_NAMES: usize = 64;

/// Definitions whose name (any case) is a word of the query, nearest in
/// meaning first; each stands for its chunk.
fn name_list(store: &ServerStore, text: &str, vector: &[f32], filter: &crate::stores::vector::Filter, opts: &QueryOptions) -> SearchResult<Vec<Hit>> {
    let names: BTreeSet<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .filter(|w| !crate::query::question::words::is_stopword(w))
        .take(MAX_NAMES)
        .collect();
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut filter = filter.clone().any_of("name_lower", names.into_iter().collect());
    if let Some(k) = opts.kind {
        filter = filter.any_of("kind", vec![k.as_str().to_string()]);
    }
    let hits = store.search(Collection::Symbols, vector, &filter, opts.limit)?;
    symbol_hits(store, hits)
}
