//! The local index as a [`Source`]: BM25, names and literals on tantivy
//! with the work tree laid over the index ([`super::layered`]), dense
//! vectors in the configured store, the code graph, the project's patterns.

use std::sync::Arc;
use std::time::Instant;

use super::engine::Engine;
use super::layered::Keyword;
use crate::progress::millis;
use crate::query::answer::{Answer, Hit, Origin, Result, SearchResult, Timings, Unavailable};
use crate::query::options::{HybridOptions, Mode, QueryOptions};
use crate::query::question::document::Signals;
use crate::query::question::intent::{GraphAsk, Intent};
use crate::query::question::mentions::Mentions;
use crate::query::question::Question;
use crate::query::retrieve::paths::PathEnds;
use crate::query::retrieve::patterns::{pattern_dense, pattern_hit, pattern_keyword};
use crate::query::retrieve::{dense, literals, symbols, Chunks, Dense, DenseOutcome, Source, Texts, Walk};
use crate::stores::keyword::FileTerms;
use crate::worktree::dense::VectorSources;
use crate::worktree::{Change, Layer};

/// An engine's index with the work tree (if any) over it.
pub(crate) struct Local<'a> {
    engine: &'a Arc<Engine>,
    keyword: Keyword<'a>,
    layer: Option<&'a Arc<Layer>>,
}

impl<'a> Local<'a> {
    pub fn new(engine: &'a Arc<Engine>, layer: Option<&'a Arc<Layer>>) -> Local<'a> {
        Local { engine, keyword: Keyword { base: &engine.keyword, layer: layer.map(|l| l.as_ref()) }, layer }
    }

    /// Definitions a document names, surest name first: each name's best
    /// few matches, interleaved so one common name cannot fill the list.
    fn signal_symbols(&self, signals: &Signals, mentions: &Mentions, opts: &QueryOptions) -> Result<Vec<Hit>> {
        const PER_NAME: usize = 3;
        let mut per_name = Vec::new();
        for id in &signals.identifiers {
            let words = Question::new(&id.name).words;
            let mut hits = self.keyword.list(opts, |index, o| symbols::symbol_name_matches(index, &words, o))?;
            // A stack frame names its file: its definition there first.
            hits.sort_by(|a, b| mentions.of(&b.path).total_cmp(&mentions.of(&a.path)));
            hits.truncate(PER_NAME);
            per_name.push(hits);
        }
        let mut out: Vec<Hit> = Vec::new();
        for round in 0..PER_NAME {
            for hits in &per_name {
                if let Some(h) = hits.get(round) {
                    if !out.iter().any(|o| o.chunk_id == h.chunk_id && o.path == h.path && o.start_line == h.start_line) {
                        out.push(h.clone());
                    }
                }
            }
        }
        out.truncate(opts.limit);
        Ok(out)
    }
}

/// How many of a symbol lookup's matches are read to order a tie among
/// the first (a name defined in many places: the kernel's `kfree`, 8).
const TIE_WINDOW: usize = 40;

/// A file's uses are counted up to this many: past it, one file is as
/// central as another.
const USES_COUNTED: usize = 200;

impl Local<'_> {
    /// `hits` (name matches, best first) with each run of equal scores in
    /// the order a bare name is meant: a file that copies another
    /// ([`PathEnds::copies`]) after the rest, a prototype after a definition, a file
    /// nearer the root first, then the file most used
    /// ([`crate::graph::Neighbourhood::dependents`]). The kernel's
    /// `kmalloc` in `include/linux/slab.h` before its copies under `tools/`;
    /// laravel's `Request` in `Http/` before `Http/Client/`'s; of two
    /// `models.py` side by side, the one other files import. (The symbol
    /// mode's order, and a bare name's list in hybrid mode; a question's
    /// name list keeps the index's: 2026-11-29, `docs/experiments.md`.)
    fn definitions_first(&self, hits: &mut [Hit]) -> Result<()> {
        let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
        let mut start = 0;
        while start < hits.len() {
            let score = hits[start].score;
            let end = start + hits[start..].iter().take_while(|h| h.score == score).count();
            if end - start > 1 {
                runs.push(start..end);
            }
            start = end;
        }
        if runs.is_empty() {
            return Ok(());
        }
        let mut paths: Vec<&str> = runs.iter().flat_map(|r| hits[r.clone()].iter().map(|h| h.path.as_str())).collect();
        paths.sort_unstable();
        paths.dedup();
        let ends = self.engine.path_ends.get_or_init(|| PathEnds::of(self.engine.state.files.keys()));
        let copied: std::collections::HashSet<String> = ends.copies(&paths).into_iter().map(str::to_string).collect();
        // A graph that cannot be read leaves the uses out (the graph's own lists report it).
        let used: Vec<usize> = match question(self.engine, self.layer.map(|l| l.as_ref())) {
            Ok(nb) => nb.dependents(&paths, USES_COUNTED).map_err(crate::query::answer::SearchError::from)?,
            Err(_) => vec![0; paths.len()],
        };
        let uses: std::collections::HashMap<String, usize> = paths.iter().map(|p| p.to_string()).zip(used).collect();
        for run in runs {
            // A prototype stays after a definition (the symbol key's top bit).
            hits[run].sort_by_key(|h| {
                (copied.contains(&h.path), h.tie >> 63 == 0, h.path.matches('/').count(), std::cmp::Reverse(uses.get(&h.path).copied().unwrap_or(0)))
            });
        }
        for (i, h) in hits.iter_mut().enumerate() {
            h.rank = i + 1;
            h.signals.symbol = h.signals.symbol.map(|_| i + 1);
        }
        Ok(())
    }
}

/// How a query is answered from the open index: its retrievers over the
/// index (and the work tree laid over it), ranked by the one stage. Only
/// `query::run` calls it (I12: one query path for every frontend).
impl Engine {
    /// Answers a query from the indexed commit with `layer` (the work tree)
    /// over it: the layer's paths answer from the layer alone.
    pub(crate) fn search_over(self: &Arc<Self>, text: &str, opts: &HybridOptions, layer: Option<&Arc<Layer>>) -> Result<Answer> {
        crate::query::rank::hybrid::answer(&Local::new(self, layer), text, opts)
    }
}

impl Source for Local<'_> {
    fn hidden(&self) -> Arc<std::collections::BTreeSet<String>> {
        self.keyword.layer.map(|l| Arc::clone(&l.hidden)).unwrap_or_default()
    }

    fn mentions(&self, q: &Question) -> Mentions {
        // Indexed files, and files new in the work tree.
        let new_files = self.keyword.layer.into_iter().flat_map(|l| l.files.iter()).filter(|f| f.change == Change::Added).map(|f| &f.path);
        Mentions::new(q.analysis.signals.as_ref(), self.engine.state.files.keys().chain(new_files))
    }

    fn single(&self, q: &Question, opts: &QueryOptions) -> Result<Vec<Hit>> {
        match opts.mode {
            Mode::Symbol => {
                // A tie runs past the first few: order it whole, then cut.
                let wide = QueryOptions { limit: opts.limit.max(TIE_WINDOW), ..opts.clone() };
                let mut hits = self.keyword.list(&wide, |index, o| Ok(crate::query::retrieve::search(index, q, o)?.results))?;
                self.definitions_first(&mut hits)?;
                hits.truncate(opts.limit);
                Ok(hits)
            }
            _ => Ok(self.keyword.bm25(q, opts, true)?),
        }
    }

    fn bm25(&self, q: &Question, opts: &QueryOptions) -> Result<Vec<Hit>> {
        let o = QueryOptions { mode: Mode::Keyword, ..opts.clone() };
        Ok(self.keyword.bm25(q, &o, false)?)
    }

    fn names(&self, q: &Question, mentions: &Mentions, opts: &QueryOptions) -> Result<Vec<Hit>> {
        let o = QueryOptions { mode: Mode::Symbol, ..opts.clone() };
        // Only name matches (exact or prefix) are symbol evidence; a symbol
        // list of loose token matches would only add noise.
        match &q.analysis.signals {
            // A document names its code among many words: look the names up one by one.
            Some(signals) => self.signal_symbols(signals, mentions, &o),
            None => {
                let mut hits = self.keyword.list(&o, |index, o| symbols::symbol_name_matches(index, &q.words, o))?;
                // A bare name's ties in the symbol mode's order; a question's
                // stay in the index's (ordered, semble's split lost 0.0017:
                // fmtlib, circe; 2026-11-29).
                if q.analysis.intent == Intent::Identifier {
                    self.definitions_first(&mut hits)?;
                }
                Ok(hits)
            }
        }
    }

    fn literals(&self, q: &Question, opts: &QueryOptions) -> Result<Vec<Hit>> {
        let document = q.analysis.intent == Intent::Document;
        Ok(self.keyword.list(opts, |index, o| literals::literal_matches(index, &q.analysis.literals, document, o))?)
    }

    fn related(&self, _q: &Question, ask: &GraphAsk, walk: Walk, opts: &QueryOptions) -> std::result::Result<(Vec<Hit>, Vec<String>), Unavailable> {
        graph_read(self.engine, || {
            let nb = question(self.engine, self.layer.map(|l| l.as_ref()))?;
            super::graph::graph_list(nb, &self.keyword, ask, walk, opts).map_err(Unavailable::failed)
        })
    }

    fn callees(&self, seeds: &[Hit], opts: &QueryOptions) -> std::result::Result<Vec<Hit>, Unavailable> {
        graph_read(self.engine, || {
            let nb = question(self.engine, self.layer.map(|l| l.as_ref()))?;
            super::graph::callee_votes(nb, &self.keyword, seeds, opts).map_err(Unavailable::failed)
        })
    }

    fn dense_ready(&self) -> std::result::Result<(), Option<String>> {
        let e = self.engine;
        match (&e.state.semantic, &e.semantic) {
            (Some(_), Some(_)) => Ok(()),
            // Off by the user's choice: nothing to suggest.
            _ if e.state.semantic_off => Err(None),
            (None, _) => Err(Some("the index has no semantic layer (run `git rag model install`, then `git rag index`)".to_string())),
            (Some(_), None) => Err(Some("the semantic layer is turned off".to_string())),
        }
    }

    fn start_dense(&self, q: &Question, opts: &QueryOptions, patterns: bool) -> Dense {
        // The model load, store open, embedding and search run on their own
        // thread, so that a slow one can be left behind.
        let (tx, rx) = std::sync::mpsc::channel();
        let engine = Arc::clone(self.engine);
        let (q, opts, layer) = (q.clone(), opts.clone(), self.layer.cloned());
        std::thread::spawn(move || {
            let _ = tx.send(dense_search(&engine, layer.as_deref(), &q, &opts, patterns));
        });
        Dense::Running(rx)
    }

    fn patterns_by_words(&self, q: &Question, limit: usize) -> Result<Vec<Hit>> {
        Ok(pattern_keyword(self.engine.patterns(), &q.text, limit))
    }

    fn history_index(&self) -> Option<&std::path::Path> {
        // The history is the repository's: the work tree's layer changes no commit.
        Some(&self.engine.dir)
    }
}

/// The dense retriever on the engine's store: the question embedded, the
/// nearest chunks (less those whose vectors lag the index) and, when asked,
/// the nearest patterns. A document's title is searched apart and the two
/// lists fused by rank ([`Question::dense_title`]).
fn dense_search(engine: &Engine, layer: Option<&Layer>, q: &Question, opts: &QueryOptions, patterns: bool) -> DenseOutcome {
    let mut timings = Timings::new();
    let (d, fresh) = engine.dense_fresh()?;
    if fresh {
        timings.insert("model_load", d.opened_ms.0);
        timings.insert("store_open", d.opened_ms.1);
    }
    let dims = engine.state.semantic.as_ref().map_or(0, |s| s.dims);
    let t = Instant::now();
    let vector = d.embedder.embed_query_for(q.dense_text(), dims).map_err(Unavailable::failed)?;
    let title = q.dense_title().map(|t| d.embedder.embed_query_for(t, dims)).transpose().map_err(Unavailable::failed)?;
    timings.insert("embed_query", millis(t));
    let t = Instant::now();
    let mut hits = nearest(engine, &d, layer, &vector, q, opts, &mut timings)?;
    if let Some(title) = &title {
        let by_title = nearest(engine, &d, layer, title, q, opts, &mut timings)?;
        hits = crate::query::rank::fusion::fuse_dense(hits, by_title, opts.limit);
    }
    let patterns = if patterns { pattern_dense(d.store.as_ref(), &vector, opts.limit.min(10)).unwrap_or_default() } else { Vec::new() };
    timings.insert("vector_search", millis(t));
    Ok((hits, patterns, timings))
}

/// The chunks nearest `vector`, less those whose vectors lag the index.
/// With the work tree laid over the index, the layer's paths answer from
/// the layer's vectors: both sides' hits merge by similarity (the same
/// measure on both).
fn nearest(
    engine: &Engine,
    d: &super::engine::Dense,
    layer: Option<&Layer>,
    vector: &[f32],
    q: &Question,
    opts: &QueryOptions,
    timings: &mut Timings,
) -> std::result::Result<Vec<Hit>, Unavailable> {
    let mut hits = dense::semantic_search(d.store.as_ref(), vector, q, opts, engine.state.files.keys()).map_err(Unavailable::failed)?.results;
    engine.drop_stale(&mut hits);
    let Some(layer) = layer.filter(|l| l.has_content()) else { return Ok(hits) };
    let t = Instant::now();
    let sources = VectorSources { cache: d.store.as_ref(), embedder: &d.embedder, index_dir: &engine.dir, memo: &engine.layers };
    let store = layer.vectors(&sources).map_err(Unavailable::Failed)?;
    let own = QueryOptions { hide: Default::default(), ..opts.clone() };
    let mut from_layer = dense::semantic_search(store.as_ref(), vector, q, &own, layer.content_paths()).map_err(Unavailable::failed)?.results;
    for h in &mut from_layer {
        h.source = Origin::Worktree;
    }
    *timings.entry("worktree_vectors").or_default() += millis(t);
    Ok(by_similarity(hits, from_layer, opts.limit))
}

/// Runs a read of the code graph: redb panics on some damaged pages (a key
/// that is not UTF-8), which leaves the graph out of this answer, saying so.
fn graph_read<T>(engine: &Engine, read: impl FnOnce() -> std::result::Result<T, Unavailable>) -> std::result::Result<T, Unavailable> {
    let store = engine.dir.join("graph");
    crate::stores::panic_guard::guard(read, |panic| {
        Unavailable::failed(crate::stores::health::StoreDamaged::new(crate::stores::health::Store::Graph, &store, panic))
    })
}

/// A graph question's view: the index's graph with the layer's over it.
fn question<'e>(engine: &'e Engine, layer: Option<&Layer>) -> std::result::Result<crate::graph::Neighbourhood<'e>, Unavailable> {
    let graph = engine.graph()?;
    let overlay = layer.map(|l| l.graph(&engine.dir)).transpose().map_err(Unavailable::Failed)?.flatten();
    graph.question_over(overlay).map_err(Unavailable::failed)
}

/// Two dense lists, each most similar first, as one (the index's first on a tie).
fn by_similarity(base: Vec<Hit>, layer: Vec<Hit>, limit: usize) -> Vec<Hit> {
    let mut out: Vec<Hit> = base.into_iter().chain(layer).collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out.truncate(limit);
    for (i, h) in out.iter_mut().enumerate() {
        h.rank = i + 1;
    }
    out
}

impl Chunks for Local<'_> {
    fn fill_content(&self, hits: &mut [Hit]) -> SearchResult<()> {
        self.keyword.fill_content(hits)
    }

    fn file_hit(&self, path: &str) -> SearchResult<Option<Hit>> {
        self.keyword.file_hit(path)
    }

    fn parent(&self, hit: &Hit) -> SearchResult<Option<Hit>> {
        self.keyword.parent(hit)
    }

    fn file_terms(&self, paths: &[&str], terms: &[String]) -> SearchResult<Option<FileTerms>> {
        self.keyword.file_terms(paths, terms)
    }

    fn paths(&self) -> Box<dyn Iterator<Item = &str> + '_> {
        Box::new(self.engine.state.files.keys().map(String::as_str))
    }
}

/// The local index's files (the work tree's where the layer holds them),
/// graph and patterns, for a context.
pub(crate) struct LocalTexts<'a> {
    pub engine: &'a Engine,
    pub layer: Option<&'a Layer>,
    pub reader: crate::git::BlobReader,
}

impl Texts for LocalTexts<'_> {
    fn file_text(&self, path: &str) -> Option<String> {
        if let Some(layer) = self.layer.filter(|l| l.hides(path)) {
            return layer.text(path).map(str::to_string);
        }
        // The indexed commit's blob, never the work tree's file.
        let blob = self.engine.state.files.get(path)?;
        let id = gix::ObjectId::from_hex(blob.blob.as_bytes()).ok()?;
        self.reader.read(&id).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    fn graph(&self) -> Option<Result<crate::graph::Neighbourhood<'_>>> {
        // No graph in the index: a context without the graph's parts.
        self.engine.graph().ok()?;
        Some(question(self.engine, self.layer).map_err(Into::into))
    }

    fn conventions(&self, query: &str) -> Result<Vec<(Hit, String)>> {
        let patterns = self.engine.patterns();
        let mut hits = pattern_keyword(patterns, query, 4);
        if hits.is_empty() {
            hits = patterns.iter().take(3).enumerate().filter_map(|(i, p)| pattern_hit(p, i + 1)).collect();
        }
        Ok(hits
            .into_iter()
            .filter_map(|mut h| {
                let p = patterns.iter().find(|p| Some(&p.key) == h.symbol.as_ref())?;
                h.content = p.examples.first().map(|e| e.snippet.clone()).unwrap_or_default();
                Some((h, format!("{} (used {} times in {} files)", p.description, p.count, p.files)))
            })
            .collect())
    }
}
