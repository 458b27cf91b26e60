//! A query answered from a Qdrant server's collections alone, without a
//! local index: what `git rag index --ci` built, searched three ways and
//! fused like a local hybrid query — the server's sparse BM25 vectors (the
//! keyword retriever), definitions whose name the query says (a payload
//! filter on SYMBOLS, ranked by meaning), and the dense vectors — with the
//! same intent weights, file priors and overlap removal as a local index.
//! The fusion runs here rather than on the server because it is the local
//! one (weights per query intent, file roles), not a second implementation.
//! What needs the local graph or chunk store (graph mode, `--context`) says so.

use std::collections::BTreeSet;
use std::time::Instant;

use super::engine::{Answer, HybridOptions};
use super::files::Mentions;
use super::fusion::{fuse, RRF_K};
use super::retrievers::{self, Hit, Mode, Response, Retriever};
use crate::progress::millis;
use crate::semantic::docs::bm25_query;
use crate::semantic::embed::{self, EmbedOptions, Embedder, ModelSource};
use crate::stores::server_state::{load_state, ServerStateError};
use crate::stores::vector::server::{ServerOptions, ServerStore};
use crate::stores::vector::{Collection, Filter, ScoredHit, VectorStore};
use super::intent::{GraphAsk, Relation};

#[derive(Debug, thiserror::Error)]
pub enum ServerQueryError {
    #[error("{what} needs a local index (`git rag index`); without one only the server's vectors answer (--mode semantic or hybrid)")]
    NeedsLocalIndex { what: &'static str },
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
    #[error(transparent)]
    Embed(#[from] embed::EmbedError),
    #[error(transparent)]
    Search(#[from] retrievers::SearchError),
}

/// Fails early for what only a local index can do (`what` names the option).
pub fn check_supported(mode: Mode) -> Result<(), ServerQueryError> {
    match mode {
        Mode::Graph => Err(ServerQueryError::NeedsLocalIndex { what: "--mode graph" }),
        Mode::Hybrid | Mode::Semantic | Mode::Keyword | Mode::Symbol => Ok(()),
    }
}

/// A token-budgeted context from a server-only answer: the results' code
/// (read from this clone's objects by the blob ids the server recorded, so
/// citations are verbatim; else the chunk text the server stores), each
/// file's import header when this clone has the file, and the conventions
/// that match the query (the server's BM25 over PATTERNS). The definitions
/// the code relies on come from the call graph, which only a local index has.
pub fn context(
    store: &ServerStore,
    index: &ServerIndex,
    repo: &crate::git::Repo,
    response: &Response,
    budget: usize,
) -> Result<crate::query::context::Context, ServerQueryError> {
    use crate::query::context::{assemble, ContextOptions, Piece, Section};
    use crate::query::pieces::{import_header, lines_of};
    let reader = crate::git::BlobReader::new(repo);
    let mut texts: std::collections::HashMap<String, Option<String>> = std::collections::HashMap::new();
    let mut text_of = |path: &str| -> Option<String> {
        texts
            .entry(path.to_string())
            .or_insert_with(|| {
                let id = gix::ObjectId::from_hex(index.files.get(path)?.as_bytes()).ok()?;
                reader.read(&id).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
            })
            .clone()
    };
    let piece = Piece::of_hit;
    let mut pieces = Vec::new();
    let results: Vec<&Hit> = response.results.iter().filter(|h| h.kind != "pattern" && h.kind != "file").collect();
    for h in &results {
        let range = match text_of(&h.path) {
            Some(text) => lines_of(&text, h.start_line, h.end_line),
            None => Some((h.start_line, h.start_line + h.content.lines().count().max(1) - 1, h.content.clone())),
        };
        if let Some(range) = range.filter(|r| !r.2.trim().is_empty()) {
            pieces.push(piece(Section::Code, h, range, None));
        }
    }
    let mut seen = BTreeSet::new();
    for h in &results {
        if !seen.insert(h.path.clone()) {
            continue;
        }
        let Some(text) = text_of(&h.path) else { continue };
        if let Some(range) = import_header(&text).and_then(|end| lines_of(&text, 1, end)) {
            let mut fh = (*h).clone();
            fh.kind = "imports".into();
            fh.symbol = None;
            pieces.push(piece(Section::FileContext, &fh, range, Some("imports".into())));
        }
    }
    for hit in store.sparse_search(Collection::Patterns, &bm25_query(&response.query), &crate::stores::vector::Filter::default(), 4)? {
        let p = &hit.payload;
        let get = |k: &str| p.get(k).and_then(|v| v.as_str()).unwrap_or("").to_string();
        let num = |k: &str| p.get(k).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
        let h = Hit { path: get("path"), start_line: num("start_line").max(1), end_line: num("end_line").max(1), symbol: Some(get("key")), kind: "pattern".into(), language: get("language"), ..Hit::default() };
        let range = match text_of(&h.path) {
            Some(text) => lines_of(&text, h.start_line, h.end_line),
            None => Some((h.start_line, h.end_line, get("content"))),
        };
        if let Some(range) = range {
            let note = format!("{} (used {} times in {} files)", get("description"), num("count"), num("files"));
            pieces.push(piece(Section::Patterns, &h, range, Some(note)));
        }
    }
    Ok(assemble(&response.query, pieces, &ContextOptions { budget }))
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

/// Connects to the server and checks it holds an index of the configured model;
/// returns the store and what it indexed.
pub fn connect(server: &ServerOptions, model: &ModelSource) -> Result<(ServerStore, ServerIndex), ServerQueryError> {
    let manifest = model.identify().map_err(ServerQueryError::Model)?;
    let store = ServerStore::connect(server.clone(), manifest.dims, &manifest.id)?;
    let Some(state) = load_state(&store)? else {
        return Err(ServerQueryError::NoServerIndex { prefix: server.prefix.clone() });
    };
    if state.model != manifest.id {
        return Err(ServerQueryError::ModelMismatch { server: state.model, installed: manifest.id });
    }
    let files = state.files.into_iter().map(|(path, f)| (path, f.blob)).collect();
    Ok((store, ServerIndex { commit: state.last_commit, files }))
}

/// Searches the server's collections for `text` as the mode says: hybrid
/// (sparse + names + dense, fused), keyword (sparse), symbol (names),
/// semantic (dense).
pub fn search(store: &ServerStore, paths: &BTreeSet<String>, text: &str, search: &HybridOptions, model: &ModelSource) -> Result<Answer, ServerQueryError> {
    let started = Instant::now();
    let q = super::question::Question::new(text);
    let analysis = &q.analysis;
    let mode = search.query.mode;
    let list_opts = super::pipeline::list_options(search);
    let Some(filter) = retrievers::payload_filter(&list_opts, paths.iter())? else {
        return Ok(answer(&q, Vec::new(), Vec::new(), None, started));
    };
    let vector = if matches!(mode, Mode::Keyword) {
        Vec::new()
    } else {
        let embedder = Embedder::open(model, EmbedOptions { optimize_graph: false, ..EmbedOptions::default() })?;
        embedder.embed_query_for(q.dense_text(), store.dims())?
    };
    let w = analysis.weights;
    let mut lists: Vec<(Retriever, f32, Vec<Hit>)> = Vec::new();
    if matches!(mode, Mode::Hybrid | Mode::Keyword) && (w.bm25 > 0.0 || mode == Mode::Keyword) {
        lists.push((Retriever::Bm25, w.bm25, sparse_list(store, &q.text, &filter, list_opts.limit)?));
    }
    if matches!(mode, Mode::Hybrid | Mode::Symbol) && (w.symbol > 0.0 || mode == Mode::Symbol) {
        lists.push((Retriever::Symbol, w.symbol, name_list(store, text, &vector, &filter, &list_opts)?));
    }
    if mode == Mode::Hybrid && !analysis.literals.is_empty() {
        let hits = literal_list(store, &analysis.literals, &vector, &filter, list_opts.limit)?;
        if !hits.is_empty() {
            let document = analysis.intent == super::intent::Intent::Document;
            lists.push((Retriever::Exact, if document { super::engine::EXACT_DOCUMENT_WEIGHT } else { super::engine::EXACT_WEIGHT }, hits));
        }
    }
    if let (Mode::Hybrid, Some(ask), true) = (mode, &analysis.graph, w.graph > 0.0) {
        let hits = graph_list(store, ask, &vector, &filter, list_opts.limit)?;
        if !hits.is_empty() {
            lists.push((Retriever::Graph, w.graph, hits));
        }
    }
    if matches!(mode, Mode::Hybrid | Mode::Semantic) && (w.dense > 0.0 || mode == Mode::Semantic) {
        let dense = retrievers::semantic_search(store, &vector, &q, &list_opts, paths.iter())?;
        lists.push((Retriever::Dense, w.dense, dense.results));
    }
    let retrievers: Vec<Retriever> = lists.iter().map(|(r, _, _)| *r).collect();
    let results = match lists.len() {
        1 => lists.pop().map(|(_, _, hits)| hits).unwrap_or_default(),
        _ => fuse(&lists, RRF_K),
    };
    let mentions = Mentions::new(analysis.signals.as_ref(), paths.iter());
    let (results, files) = super::pipeline::finish(&ServerChunks(store), &q, &mentions, results, search)?;
    Ok(answer(&q, retrievers, results, files, started))
}

/// The answer in the local engine's form, so that both sources print and
/// serialise alike.
fn answer(q: &super::question::Question, retrievers: Vec<Retriever>, results: Vec<Hit>, files: Option<Vec<super::files::FileHit>>, started: Instant) -> Answer {
    Answer {
        response: Response { query: q.asked.clone(), took_ms: millis(started), results },
        analysis: q.analysis.clone(),
        retrievers,
        fallbacks: Vec::new(),
        subjects: Vec::new(),
        timings: Default::default(),
        files,
    }
}

/// The server's side of the shared stage: hits carry their content (from
/// the payload); outlines and parents are read by point id.
struct ServerChunks<'a>(&'a ServerStore);

impl ServerChunks<'_> {
    /// The hit of the SEMANTIC or FILES point `id`, if the server holds it.
    fn point_hit(&self, collection: Collection, id: u64) -> retrievers::Result<Option<Hit>> {
        let Some(record) = self.0.retrieve(collection, &[id], false)?.into_iter().next() else { return Ok(None) };
        let Some(chunk_id) = record.payload.get("chunk_id").and_then(|v| v.as_str()).map(str::to_string) else { return Ok(None) };
        Ok(retrievers::dense_hits(self.0, vec![(chunk_id, 0.0, record.payload)])?.into_iter().next())
    }
}

impl super::pipeline::Chunks for ServerChunks<'_> {
    fn fill_content(&self, _hits: &mut [Hit]) -> retrievers::Result<()> {
        Ok(())
    }

    fn file_hit(&self, path: &str) -> retrievers::Result<Option<Hit>> {
        self.point_hit(Collection::Files, crate::stores::vector::point_id_of(&[path]))
    }

    fn parent(&self, hit: &Hit) -> retrievers::Result<Option<Hit>> {
        let Some(id) = hit.chunk_id.as_deref().and_then(crate::stores::state::ChunkId::parse) else { return Ok(None) };
        let Some(record) = self.0.retrieve(Collection::Semantic, &[crate::stores::vector::point_id(id.0)], false)?.into_iter().next() else { return Ok(None) };
        match record.payload.get("parent_id").and_then(|v| v.as_str()).and_then(crate::stores::state::ChunkId::parse) {
            Some(parent) => self.point_hit(Collection::Semantic, crate::stores::vector::point_id(parent.0)),
            None => Ok(None),
        }
    }
}

/// Chunks by the server's BM25 vectors (SEMANTIC holds every chunk's text).
fn sparse_list(store: &ServerStore, text: &str, filter: &crate::stores::vector::Filter, limit: usize) -> Result<Vec<Hit>, ServerQueryError> {
    let hits = store.sparse_search(Collection::Semantic, &bm25_query(text), filter, limit)?;
    let ranked = hits
        .into_iter()
        .filter_map(|h| Some((h.payload.get("chunk_id")?.as_str()?.to_string(), h.score, h.payload)))
        .collect();
    Ok(retrievers::dense_hits(store, ranked)?)
}

/// Most literals of a query matched.
const MAX_LITERALS: usize = 4;
/// As the local literal retriever: a literal in more chunks of code than
/// this is common; at most this many matches are read.
const RARE_LITERAL: usize = 20;
const LITERAL_SCAN: usize = 200;

/// Chunks holding a literal of the query as written (a quoted message, an
/// option name, a short query whole), nearest in meaning first.
fn literal_list(store: &ServerStore, literals: &[super::literals::Literal], vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Hit>, ServerQueryError> {
    use super::literals::Source;
    use super::priors::{role, Role};
    let mut hits: Vec<ScoredHit> = Vec::new();
    for literal in literals.iter().take(MAX_LITERALS) {
        // A token that names a definition is the symbol retriever's.
        if literal.source == Source::Token && !store.search(Collection::Symbols, vector, &filter.clone().any_of("name_lower", vec![literal.text.to_lowercase()]), 1)?.is_empty() {
            continue;
        }
        let found = store.search_containing(Collection::Semantic, vector, filter, "content", &literal.text, LITERAL_SCAN + 1)?;
        // A literal common in the project's code says little about where to look.
        let path_of = |h: &ScoredHit| h.payload.get("path").and_then(|v| v.as_str()).unwrap_or("").to_string();
        let code = found.iter().filter(|h| role(&path_of(h)) == Role::Code).count();
        if found.len() > LITERAL_SCAN || code > RARE_LITERAL || (code == 0 && found.len() > RARE_LITERAL) {
            continue;
        }
        hits.extend(found.into_iter().take(limit));
    }
    let ranked = hits
        .into_iter()
        .filter_map(|h| Some((h.payload.get("chunk_id")?.as_str()?.to_string(), h.score, h.payload)))
        .collect();
    Ok(retrievers::dense_hits(store, ranked)?)
}

/// A graph question answered by name, without the resolved graph: the
/// definitions named like the subject (the first subject word any
/// definition has), then those whose calls name it (callers), those it
/// calls (callees) or those that extend it (implementers). Imports need the
/// local graph (module paths are resolved there): nothing.
fn graph_list(store: &ServerStore, ask: &GraphAsk, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<Hit>, ServerQueryError> {
    let mut subject: Vec<ScoredHit> = Vec::new();
    let mut name = String::new();
    for word in ask.subject.iter().take(4) {
        let last = word.rsplit(['.', ':', '#']).find(|s| !s.is_empty()).unwrap_or(word).to_lowercase();
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
            let calls: Vec<String> = subject[0].payload.get("calls").and_then(|v| v.as_array()).map(|a| a.iter().filter_map(|c| c.as_str().map(str::to_string)).collect()).unwrap_or_default();
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
    hits.sort_by_key(|h| h.payload.get("path").and_then(|v| v.as_str()).is_some_and(super::retrievers::is_test_path));
    symbol_hits(store, hits)
}

/// Hits of SYMBOLS points, each standing for its chunk (a definition
/// without one stands for its own lines), in their order.
fn symbol_hits(store: &ServerStore, hits: Vec<ScoredHit>) -> Result<Vec<Hit>, ServerQueryError> {
    let ranked = hits
        .into_iter()
        .map(|h| {
            let own = format!("symbol:{}", h.id);
            let id = h.payload.get("chunk_id").and_then(|v| v.as_str()).map_or(own, str::to_string);
            (id, h.score, h.payload)
        })
        .collect();
    Ok(retrievers::dense_hits(store, ranked)?)
}

/// Most names looked up per query.
const MAX_NAMES: usize = 64;

/// Definitions whose name (any case) is a word of the query, nearest in
/// meaning first; each stands for its chunk.
fn name_list(store: &ServerStore, text: &str, vector: &[f32], filter: &crate::stores::vector::Filter, opts: &retrievers::QueryOptions) -> Result<Vec<Hit>, ServerQueryError> {
    let names: BTreeSet<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .filter(|w| !retrievers::is_stopword(w))
        .take(MAX_NAMES)
        .collect();
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let mut filter = filter.clone().any_of("name_lower", names.into_iter().collect());
    if let Some(k) = &opts.kind {
        filter = filter.any_of("kind", vec![k.to_lowercase()]);
    }
    let hits = store.search(Collection::Symbols, vector, &filter, opts.limit)?;
    symbol_hits(store, hits)
}
