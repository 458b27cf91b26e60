//! The semantic layer's part of an index run: take the points of the
//! changed files ([`crate::semantic::docs::documents`]), find their vectors in the
//! cache or embed them, and bring the vector store's collections in line.
//!
//! The unit of work is a path, as for the keyword index: every point under a
//! cleared path is deleted, then the points of the files that exist at the
//! target are upserted. Vectors come from the cache keyed by (model, text),
//! so only text never seen before is embedded.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::progress::{millis, Progress, Step};
use crate::semantic::docs::Doc;
use crate::semantic::embed::LazyEmbedder;
use crate::semantic::shared_cache::{SharedCache, SharedCacheOptions};
use crate::stores::vector::{point_id, Collection, Point, VectorStore};

#[derive(Debug, thiserror::Error)]
pub enum VectorsError {
    #[error(transparent)]
    Store(#[from] crate::stores::vector::StoreError),
    #[error(transparent)]
    Embed(#[from] crate::semantic::embed::EmbedError),
}

impl VectorsError {
    /// A failure of the place vectors go to or come from (a store that
    /// cannot be reached or written, an endpoint gone), which a later run
    /// may not meet: the other layers can go on without the vectors. Not so a
    /// store that needs rebuilding or a model of the wrong size.
    pub fn is_outage(&self) -> bool {
        use crate::semantic::embed::EmbedError;
        use crate::stores::vector::StoreError;
        match self {
            VectorsError::Store(StoreError::Schema { .. }) => false,
            VectorsError::Store(_) => true,
            VectorsError::Embed(e) => matches!(e, EmbedError::Api { .. }),
        }
    }
}

/// What the semantic part of a run did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    /// Distinct texts the model embedded in this run.
    pub embedded: usize,
    /// Points whose vector came from the cache.
    pub reused: usize,
    /// Distinct texts whose vector came from the team's server cache
    /// (`rag.vectorCache = server`) instead of the model.
    pub borrowed: usize,
    /// Vectors this run added to the team's server cache (`--share-vectors`).
    pub shared: usize,
    /// Distinct texts whose vector a query had embedded from the work tree
    /// ([`crate::semantic::pending`]) instead of the model.
    pub from_worktree: usize,
    /// Why the team's server cache could not help this run (unreachable, failed midway).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_cache_error: Option<String>,
    /// Points written, per collection.
    pub points: BTreeMap<String, usize>,
    /// The embedded store's points per collection after the run (what the
    /// state records, [`crate::stores::state::IndexState::vector_points`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub totals: Option<BTreeMap<String, usize>>,
    /// What was embedded, per kind of text, and what the model ran on.
    pub work: EmbedWork,
    /// Where the time went, in ms.
    pub timings: BTreeMap<String, f64>,
}

/// The work of embedding in one run: distinct texts and their characters per
/// collection (the kind of text: chunk, symbol header, file outline,
/// pattern), and, for the in-process model, the tokens it read and the
/// padded cells it computed.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct EmbedWork {
    pub per_kind: BTreeMap<String, KindWork>,
    /// `None` with an embedding endpoint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens: Option<crate::semantic::embed::TokenWork>,
}

#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct KindWork {
    pub texts: usize,
    pub chars: usize,
}

/// Payload field of every tree point: the id of its vector in the cache.
pub const CACHE_ID: &str = "cache_id";

/// The cache id as stored in [`CACHE_ID`] (hex: Qdrant's integers are signed).
pub fn cache_id_text(id: u64) -> String {
    format!("{id:016x}")
}

/// Texts embedded per call; also how often progress is reported.
const EMBED_BATCH: usize = 128;
/// Make freshly embedded vectors durable at least this often, so an
/// interrupted first index does not lose its most expensive work.
const CACHE_FLUSH_EVERY: Duration = Duration::from_secs(60);

/// What a run changes in the tree collections.
pub struct Changes<'a> {
    /// Everything is rebuilt: the tree collections are cleared first.
    pub full: bool,
    /// Paths whose points are deleted first.
    pub cleared: &'a [String],
    /// Points of the files that exist at the target.
    pub docs: Vec<Doc>,
    /// The conventions' points (the collection is replaced every run).
    pub patterns: Vec<Doc>,
    /// The model the documents' cache keys were made for.
    pub model_id: &'a str,
    /// Vectors queries embedded from the work tree, used before the model.
    pub pending: Option<&'a crate::semantic::pending::PendingVectors>,
}

/// Brings the tree collections in line with the run: clears them (`full`) or
/// the cleared paths, then upserts the documents with cached, borrowed
/// (`shared`, the team's server cache) or fresh vectors.
pub fn sync(
    store: &dyn VectorStore,
    embedder: &mut LazyEmbedder,
    changes: Changes,
    shared: Option<&SharedCacheOptions>,
    progress: &dyn Progress,
) -> Result<SyncReport, VectorsError> {
    let mut report = SyncReport::default();
    let t = Instant::now();
    for c in Collection::TREE {
        if changes.full || c == Collection::Patterns {
            // PATTERNS is an aggregate of the whole tree: replaced every run.
            store.clear(c)?;
        } else {
            store.delete_paths(c, changes.cleared)?;
        }
    }
    let model_id = changes.model_id;
    let mut docs = changes.docs;
    docs.extend(changes.patterns);
    report.timings.insert("delete".into(), millis(t));

    // Cache lookup: one request for every distinct key.
    let t = Instant::now();
    let mut unique: Vec<u128> = docs.iter().map(|d| d.key).collect::<HashSet<_>>().into_iter().collect();
    unique.sort_unstable();
    let cache_ids: Vec<u64> = unique.iter().map(|&k| point_id(k)).collect();
    let mut vectors: HashMap<u64, Vec<f32>> = store.vectors(Collection::VectorCache, &cache_ids)?;
    report.reused = docs.iter().filter(|d| vectors.contains_key(&point_id(d.key))).count();
    report.timings.insert("cache_lookup".into(), millis(t));

    let (mut missing, kind_of) = missing_texts(&docs, &vectors);
    if let Some(pending) = changes.pending.filter(|p| !p.is_empty() && !missing.is_empty()) {
        take_pending(store, pending, &mut missing, &mut vectors, &mut report)?;
    }

    // The team's cache next: what it holds is not embedded here.
    let t = Instant::now();
    let team = shared.filter(|_| !missing.is_empty()).and_then(|opts| match SharedCache::connect(opts, store.dims(), model_id) {
        Ok(cache) => Some(cache),
        Err(e) => {
            give_up_on_team(&mut report, &opts.server.url, &e, progress);
            None
        }
    });
    if let Some(team) = &team {
        borrow(store, team, &mut missing, &mut vectors, &mut report, progress)?;
        report.timings.insert("borrow".into(), millis(t));
    }

    // Embed the rest. Similar lengths in one batch: padding costs compute.
    // (Characters are a good enough proxy for tokens here; the embedder
    // sorts each batch again.)
    let t = Instant::now();
    missing.sort_by_key(|(id, t)| (t.len(), *id));
    let total = missing.len();
    if total > 0 {
        progress.note(&format!("embedding {total} new texts ({} points reuse cached vectors)", report.reused));
        progress.begin(Step::Embed, total as u64);
    }
    report.work.per_kind = work_per_kind(&missing, &kind_of);
    let before = embedder.token_work().unwrap_or_default();
    let offer_to = team.as_ref().filter(|_| report.shared_cache_error.is_none());
    embed_missing(store, embedder, &missing, offer_to, &mut vectors, &mut report, progress)?;
    report.work.tokens = embedder.token_work().map(|w| w.since(before));
    if total > 0 {
        progress.end();
    }
    report.timings.insert("embed".into(), millis(t));

    for notice in store.take_notices() {
        progress.note(&notice);
    }

    // Upsert the tree collections.
    let t = Instant::now();
    let mut by_collection: BTreeMap<Collection, Vec<Point>> = BTreeMap::new();
    for d in docs {
        let Some(vector) = vectors.get(&point_id(d.key)) else { continue };
        let text = store.keeps_text().then(|| crate::semantic::docs::bm25_text(&d));
        let mut payload = d.payload;
        // Which cached vector the point uses: what `gc` of a shared server's
        // cache counts as referenced.
        payload.insert(CACHE_ID.into(), cache_id_text(point_id(d.key)).into());
        by_collection.entry(d.collection).or_default().push(Point { id: d.id, vector: vector.clone(), payload, text });
    }
    for (c, points) in by_collection {
        report.points.insert(c.name().to_string(), points.len());
        store.upsert(c, points)?;
    }
    report.timings.insert("upsert".into(), millis(t));
    let t = Instant::now();
    if crate::env::fault("vector-commit") {
        return Err(crate::stores::vector::StoreError::Engine { place: "commit".into(), message: "injected fault (GIT_RAG_FAULT=vector-commit)".into() }.into());
    }
    store.commit(true)?;
    report.timings.insert("commit".into(), millis(t));
    Ok(report)
}

/// Takes from the team's cache what it holds of `missing` into the local
/// cache and `vectors`; `missing` keeps the rest. A failure of the server
/// leaves everything to embed here.
fn borrow(
    store: &dyn VectorStore,
    team: &SharedCache,
    missing: &mut Vec<(u64, &str)>,
    vectors: &mut HashMap<u64, Vec<f32>>,
    report: &mut SyncReport,
    progress: &dyn Progress,
) -> Result<(), VectorsError> {
    let ids: Vec<u64> = missing.iter().map(|(id, _)| *id).collect();
    let found = match team.lookup(&ids) {
        Ok(found) => found,
        Err(e) => {
            give_up_on_team(report, team.url(), &e, progress);
            return Ok(());
        }
    };
    let wanted = missing.len();
    report.borrowed = adopt(store, found, missing, vectors)?;
    if report.borrowed > 0 {
        progress.note(&format!("borrowed {} of {wanted} vectors from the team's cache at {}", report.borrowed, team.url()));
    }
    Ok(())
}

/// Takes the vectors queries embedded from the work tree for `missing`
/// into the cache and `vectors`; `missing` keeps the rest.
fn take_pending(
    store: &dyn VectorStore,
    pending: &crate::semantic::pending::PendingVectors,
    missing: &mut Vec<(u64, &str)>,
    vectors: &mut HashMap<u64, Vec<f32>>,
    report: &mut SyncReport,
) -> Result<(), VectorsError> {
    let ids: Vec<u64> = missing.iter().map(|(id, _)| *id).collect();
    report.from_worktree = adopt(store, pending.lookup(&ids), missing, vectors)?;
    Ok(())
}

/// Vectors found elsewhere than the local cache (the team's, the work
/// tree's) written into it and into `vectors`, those of the wrong size left
/// out; `missing` keeps what is still to embed. Returns how many were taken.
fn adopt(
    store: &dyn VectorStore,
    found: HashMap<u64, Vec<f32>>,
    missing: &mut Vec<(u64, &str)>,
    vectors: &mut HashMap<u64, Vec<f32>>,
) -> Result<usize, VectorsError> {
    let dims = store.dims();
    let found: Vec<Point> =
        found.into_iter().filter(|(_, v)| v.len() == dims).map(|(id, vector)| Point { id, vector, payload: Default::default(), text: None }).collect();
    if found.is_empty() {
        return Ok(0);
    }
    let taken = found.len();
    for p in &found {
        vectors.insert(p.id, p.vector.clone());
    }
    store.upsert(Collection::VectorCache, found)?;
    missing.retain(|(id, _)| !vectors.contains_key(id));
    Ok(taken)
}

/// Notes that the team's cache is out of the run: everything is embedded here.
fn give_up_on_team(report: &mut SyncReport, url: &str, e: &crate::stores::vector::StoreError, progress: &dyn Progress) {
    let message = format!("the team's vector cache at {url} did not answer ({e}); embedding here");
    progress.note(&message);
    report.shared_cache_error = Some(message);
}

/// What the local cache does not hold, once per distinct text, with the
/// collection of each text's first point (its kind, for the accounting).
fn missing_texts<'a>(docs: &'a [Doc], vectors: &HashMap<u64, Vec<f32>>) -> (Vec<(u64, &'a str)>, HashMap<u64, Collection>) {
    let mut missing = Vec::new();
    let mut kind_of = HashMap::new();
    for d in docs {
        let id = point_id(d.key);
        if !vectors.contains_key(&id) && !kind_of.contains_key(&id) {
            kind_of.insert(id, d.collection);
            missing.push((id, d.text.as_str()));
        }
    }
    (missing, kind_of)
}

/// Texts and characters to embed, per kind.
fn work_per_kind(missing: &[(u64, &str)], kind_of: &HashMap<u64, Collection>) -> BTreeMap<String, KindWork> {
    let mut per_kind: BTreeMap<String, KindWork> = BTreeMap::new();
    for (id, text) in missing {
        let w = per_kind.entry(kind_of.get(id).map_or("other", |c| c.name()).to_string()).or_default();
        w.texts += 1;
        w.chars += text.chars().count();
    }
    per_kind
}

/// Embeds the texts the caches lack, in batches, into the local cache and
/// `vectors`, offering each batch to the team's cache when this run may write it.
fn embed_missing(
    store: &dyn VectorStore,
    embedder: &mut LazyEmbedder,
    missing: &[(u64, &str)],
    mut team: Option<&SharedCache>,
    vectors: &mut HashMap<u64, Vec<f32>>,
    report: &mut SyncReport,
    progress: &dyn Progress,
) -> Result<(), VectorsError> {
    let mut last_flush = Instant::now();
    for batch in missing.chunks(EMBED_BATCH) {
        let texts: Vec<String> = batch.iter().map(|(_, t)| (*t).to_string()).collect();
        let embedded = match embedder.get().and_then(|e| e.embed_documents(&texts)) {
            Ok(v) => v,
            Err(e) => {
                // Keep what was embedded so far: the rerun starts from it.
                if report.embedded > 0 {
                    let _ = store.commit(false);
                }
                return Err(e.into());
            }
        };
        let points: Vec<Point> = batch.iter().zip(embedded).map(|((id, _), v)| Point { id: *id, vector: v, payload: Default::default(), text: None }).collect();
        for p in &points {
            vectors.insert(p.id, p.vector.clone());
        }
        if let Some(cache) = team {
            match cache.offer(&points) {
                Ok(n) => report.shared += n,
                Err(e) => {
                    give_up_on_team(report, cache.url(), &e, progress);
                    team = None;
                }
            }
        }
        store.upsert(Collection::VectorCache, points)?;
        report.embedded += batch.len();
        if last_flush.elapsed() > CACHE_FLUSH_EVERY {
            store.commit(false)?;
            last_flush = Instant::now();
        }
        progress.advance(batch.len() as u64);
    }
    Ok(())
}
