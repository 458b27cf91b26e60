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

use crate::semantic::embed::LazyEmbedder;
use crate::progress::{millis, Progress, Step};
use crate::semantic::docs::Doc;
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
    /// Points written, per collection.
    pub points: BTreeMap<String, usize>,
    /// Where the time went, in ms.
    pub timings: BTreeMap<String, f64>,
}

/// Texts embedded per call; also how often progress is reported.
const EMBED_BATCH: usize = 128;
/// Make freshly embedded vectors durable at least this often, so an
/// interrupted first index does not lose its most expensive work.
const CACHE_FLUSH_EVERY: Duration = Duration::from_secs(60);

/// Brings the tree collections in line with the run: clears them (`full`) or
/// the given paths, then upserts `docs` with cached or fresh vectors.
pub fn sync(
    store: &dyn VectorStore,
    embedder: &mut LazyEmbedder,
    full: bool,
    cleared: &[String],
    mut docs: Vec<Doc>,
    patterns: Vec<Doc>,
    progress: &dyn Progress,
) -> Result<SyncReport, VectorsError> {
    let mut report = SyncReport::default();
    let t = Instant::now();
    for c in Collection::TREE {
        if full || c == Collection::Patterns {
            // PATTERNS is an aggregate of the whole tree: replaced every run.
            store.clear(c)?;
        } else {
            store.delete_paths(c, cleared)?;
        }
    }
    docs.extend(patterns);
    report.timings.insert("delete".into(), millis(t));

    // Cache lookup: one request for every distinct key.
    let t = Instant::now();
    let mut unique: Vec<u128> = docs.iter().map(|d| d.key).collect::<HashSet<_>>().into_iter().collect();
    unique.sort_unstable();
    let cache_ids: Vec<u64> = unique.iter().map(|&k| point_id(k)).collect();
    let mut vectors: HashMap<u64, Vec<f32>> = store.vectors(Collection::VectorCache, &cache_ids)?;
    report.reused = docs.iter().filter(|d| vectors.contains_key(&point_id(d.key))).count();
    report.timings.insert("cache_lookup".into(), millis(t));

    // Embed what the cache does not hold, once per distinct text.
    let t = Instant::now();
    let mut missing: Vec<(u64, &str)> = Vec::new();
    let mut queued = HashSet::new();
    for d in &docs {
        let id = point_id(d.key);
        if !vectors.contains_key(&id) && queued.insert(id) {
            missing.push((id, d.text.as_str()));
        }
    }
    // Similar lengths in one batch: padding costs compute. (Characters are
    // a good enough proxy for tokens here; the embedder sorts each batch again.)
    missing.sort_by_key(|(id, t)| (t.len(), *id));
    let total = missing.len();
    if total > 0 {
        progress.note(&format!("embedding {total} new texts ({} points reuse cached vectors)", report.reused));
        progress.begin(Step::Embed, total as u64);
    }
    embed_missing(store, embedder, &missing, &mut vectors, &mut report, progress)?;
    if total > 0 {
        progress.end();
    }
    report.timings.insert("embed".into(), millis(t));

    // Upsert the tree collections.
    let t = Instant::now();
    let mut by_collection: BTreeMap<Collection, Vec<Point>> = BTreeMap::new();
    for d in docs {
        let Some(vector) = vectors.get(&point_id(d.key)) else { continue };
        by_collection.entry(d.collection).or_default().push(Point { id: d.id, vector: vector.clone(), payload: d.payload, text: Some(d.text) });
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

/// Embeds the texts the cache lacks, in batches, into the cache and `vectors`.
fn embed_missing(
    store: &dyn VectorStore,
    embedder: &mut LazyEmbedder,
    missing: &[(u64, &str)],
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
        let points: Vec<Point> = batch
            .iter()
            .zip(embedded)
            .map(|((id, _), v)| Point { id: *id, vector: v, payload: Default::default(), text: None })
            .collect();
        for p in &points {
            vectors.insert(p.id, p.vector.clone());
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
