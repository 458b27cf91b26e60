//! A vector store in memory, searched exhaustively: the work tree's layer
//! (a few hundred points at most) next to the index's store. It keeps the
//! store contract of the others — cosine similarity, payload filters that
//! match a value or any element of an array field — so the dense retriever
//! runs on it unchanged.

use std::collections::{BTreeMap, HashMap};
use std::sync::RwLock;

use serde_json::Value;

use super::{Collection, Filter, Point, Record, Result, ScoredHit, StoreError, VectorStore};

#[derive(Default)]
pub struct MemoryStore {
    dims: usize,
    points: RwLock<BTreeMap<Collection, HashMap<u64, Point>>>,
}

impl MemoryStore {
    pub fn new(dims: usize) -> MemoryStore {
        MemoryStore { dims, points: RwLock::default() }
    }

    fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, BTreeMap<Collection, HashMap<u64, Point>>>> {
        self.points.read().map_err(|_| poisoned())
    }

    fn write(&self) -> Result<std::sync::RwLockWriteGuard<'_, BTreeMap<Collection, HashMap<u64, Point>>>> {
        self.points.write().map_err(|_| poisoned())
    }
}

fn poisoned() -> StoreError {
    StoreError::Engine { place: "memory".into(), message: "a writer panicked".into() }
}

/// Whether a payload field holds one of `values` (itself, or an element of it).
fn holds(payload: &serde_json::Map<String, Value>, field: &str, values: &[String]) -> bool {
    let is_one = |v: &Value| v.as_str().is_some_and(|s| values.iter().any(|x| x == s));
    match payload.get(field) {
        Some(Value::Array(items)) => items.iter().any(is_one),
        Some(v) => is_one(v),
        None => false,
    }
}

fn matches(filter: &Filter, payload: &serde_json::Map<String, Value>) -> bool {
    filter.must.iter().all(|(f, v)| holds(payload, f, v)) && !filter.must_not.iter().any(|(f, v)| holds(payload, f, v))
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let (mut dot, mut na, mut nb) = (0.0f32, 0.0f32, 0.0f32);
    for (x, y) in a.iter().zip(b) {
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    dot / (na.sqrt() * nb.sqrt())
}

impl VectorStore for MemoryStore {
    fn describe(&self) -> String {
        "memory".to_string()
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn upsert(&self, c: Collection, points: Vec<Point>) -> Result<()> {
        if let Some(p) = points.iter().find(|p| p.vector.len() != self.dims) {
            return Err(StoreError::Engine {
                place: "memory".into(),
                message: format!("point {} has {} dimensions, the store {}", p.id, p.vector.len(), self.dims),
            });
        }
        let mut all = self.write()?;
        let collection = all.entry(c).or_default();
        for p in points {
            collection.insert(p.id, p);
        }
        Ok(())
    }

    fn delete_paths(&self, c: Collection, paths: &[String]) -> Result<()> {
        if let Some(points) = self.write()?.get_mut(&c) {
            points.retain(|_, p| !holds(&p.payload, "path", paths));
        }
        Ok(())
    }

    fn delete_ids(&self, c: Collection, ids: &[u64]) -> Result<()> {
        if let Some(points) = self.write()?.get_mut(&c) {
            for id in ids {
                points.remove(id);
            }
        }
        Ok(())
    }

    fn clear(&self, c: Collection) -> Result<()> {
        self.write()?.remove(&c);
        Ok(())
    }

    fn search(&self, c: Collection, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<ScoredHit>> {
        let all = self.read()?;
        let Some(points) = all.get(&c) else { return Ok(Vec::new()) };
        let mut hits: Vec<ScoredHit> = points
            .values()
            .filter(|p| matches(filter, &p.payload))
            .map(|p| ScoredHit { id: p.id, score: cosine(vector, &p.vector), payload: p.payload.clone() })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.id.cmp(&b.id)));
        hits.truncate(limit);
        Ok(hits)
    }

    fn retrieve(&self, c: Collection, ids: &[u64], with_vectors: bool) -> Result<Vec<Record>> {
        let all = self.read()?;
        let Some(points) = all.get(&c) else { return Ok(Vec::new()) };
        Ok(ids
            .iter()
            .filter_map(|id| points.get(id))
            .map(|p| Record { id: p.id, vector: with_vectors.then(|| p.vector.clone()), payload: p.payload.clone() })
            .collect())
    }

    fn scroll_all(&self, c: Collection, with_vectors: bool) -> Result<Vec<Record>> {
        let all = self.read()?;
        let mut out: Vec<Record> = all
            .get(&c)
            .into_iter()
            .flat_map(|points| points.values())
            .map(|p| Record { id: p.id, vector: with_vectors.then(|| p.vector.clone()), payload: p.payload.clone() })
            .collect();
        out.sort_by_key(|r| r.id);
        Ok(out)
    }

    fn count(&self, c: Collection) -> Result<usize> {
        Ok(self.read()?.get(&c).map_or(0, HashMap::len))
    }

    fn commit(&self, _optimize: bool) -> Result<()> {
        Ok(())
    }
}
