//! The layer's vectors: the points an index run would make of its files
//! (the same documents, texts and cache keys), each vector taken from what
//! this process embedded before, the index's vector cache (a text an edit
//! left as it was), the vectors earlier queries embedded from the work tree
//! ([`crate::semantic::pending`]), or embedded now — and then kept there, so
//! that the commit of the edit embeds nothing again. They are held in a
//! store in memory beside the index's, searched by the same dense retriever.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use super::{Layer, LayerCache};
use crate::semantic::docs::{documents, Doc};
use crate::semantic::embed::Embedder;
use crate::semantic::pending::PendingVectors;
use crate::stores::vector::memory::MemoryStore;
use crate::stores::vector::{point_id, Collection, Point, VectorStore};

/// Texts embedded per call.
const BATCH: usize = 64;
/// Most vectors a process keeps of the work tree's texts.
const MEMO_CAP: usize = 20_000;

/// Where the layer's vectors come from.
pub struct VectorSources<'a> {
    /// The index's store (its vector cache is read).
    pub cache: &'a dyn VectorStore,
    pub embedder: &'a Embedder,
    /// The index folder (the work tree's pending vectors).
    pub index_dir: &'a Path,
    /// This process's vectors of work-tree texts.
    pub memo: &'a LayerCache,
}

impl Layer {
    /// The layer's points with their vectors, in a store in memory; made on
    /// the first dense query of this layer and kept with it.
    pub fn vectors(&self, from: &VectorSources) -> Result<Arc<MemoryStore>, String> {
        self.vectors.get_or_init(|| layer_store(self, from).map(Arc::new)).clone()
    }

    /// Whether the layer holds files with content (not only deletions).
    pub fn has_content(&self) -> bool {
        !self.analyses.is_empty()
    }

    /// The paths of the layer's files with content.
    pub fn content_paths(&self) -> impl Iterator<Item = &String> {
        self.analyses.iter().map(|(path, _, _)| path)
    }
}

fn layer_store(layer: &Layer, from: &VectorSources) -> Result<MemoryStore, String> {
    let model = from.embedder.model_id();
    let docs: Vec<Doc> = layer.analyses.iter().flat_map(|(path, id, chunks)| documents(path, &id.to_string(), chunks, &model)).collect();
    let vectors = vectors_of(&docs, &model, from)?;
    let store = MemoryStore::new(from.cache.dims());
    let mut by_collection: BTreeMap<Collection, Vec<Point>> = BTreeMap::new();
    for d in docs {
        let Some(vector) = vectors.get(&point_id(d.key)) else { continue };
        by_collection.entry(d.collection).or_default().push(Point { id: d.id, vector: vector.clone(), payload: d.payload, text: None });
    }
    for (c, points) in by_collection {
        store.upsert(c, points).map_err(|e| e.to_string())?;
    }
    Ok(store)
}

/// The vector of every document's text, by cache id, from the first source that has it.
fn vectors_of(docs: &[Doc], model: &str, from: &VectorSources) -> Result<HashMap<u64, Vec<f32>>, String> {
    let mut texts: BTreeMap<u64, &str> = BTreeMap::new();
    for d in docs {
        texts.entry(point_id(d.key)).or_insert(d.text.as_str());
    }
    let mut found: HashMap<u64, Vec<f32>> = HashMap::new();
    if let Ok(memo) = from.memo.vectors.lock() {
        found.extend(texts.keys().filter_map(|id| memo.get(id).map(|v| (*id, v.clone()))));
    }
    let missing = |found: &HashMap<u64, Vec<f32>>| -> Vec<u64> { texts.keys().filter(|id| !found.contains_key(id)).copied().collect() };
    let ids = missing(&found);
    if !ids.is_empty() {
        found.extend(from.cache.vectors(Collection::VectorCache, &ids).map_err(|e| e.to_string())?);
    }
    let mut pending = PendingVectors::load(from.index_dir, model);
    found.extend(pending.lookup(&missing(&found)));
    let ids = missing(&found);
    let mut embedded = Vec::with_capacity(ids.len());
    for batch in ids.chunks(BATCH) {
        let batch_texts: Vec<String> = batch.iter().map(|id| texts[id].to_string()).collect();
        let vectors = from.embedder.embed_documents(&batch_texts).map_err(|e| format!("embedding the work tree's texts: {e}"))?;
        embedded.extend(batch.iter().copied().zip(vectors));
    }
    found.extend(embedded.iter().cloned());
    // A cache: a failed write costs a later query (or the commit) this embedding again.
    let _ = pending.add(embedded);
    if let Ok(mut memo) = from.memo.vectors.lock() {
        if memo.len() + found.len() > MEMO_CAP {
            memo.clear();
        }
        memo.extend(found.iter().map(|(id, v)| (*id, v.clone())));
    }
    Ok(found)
}
