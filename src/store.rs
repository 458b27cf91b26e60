//! The vector store: Qdrant's own engine, embedded in-process (`qdrant-edge`),
//! one shard on disk per collection (FILES, SYMBOLS, SEMANTIC, PATTERNS,
//! plus the vector cache).
//!
//! Every collection has one named dense vector ([`DENSE`]) and keyword
//! payload indexes on the fields it is filtered by. Point ids are 64 bits of
//! a content-derived id, so re-running an update upserts the same points.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use qdrant_edge::{
    Condition, Distance, EdgeConfigBuilder, EdgeShard, EdgeVectorParamsBuilder, FieldCondition, FieldIndexOperations, Filter,
    JsonPath, Match, NamedQuery, Payload, PayloadFieldSchema, PayloadSchemaType, PointId, PointInsertOperations, PointOperations,
    PointStructPersisted, QueryEnum, QueryRequestBuilder, RetrieveRequestBuilder, ScoringQuery, UpdateOperation, ValueVariants,
    VectorInternal, VectorStructInternal, VectorStructPersisted, WithPayloadInterface, WithVector,
};

/// Name of the dense vector in every collection.
pub const DENSE: &str = "dense";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("vector store {path}: {message}")]
    Engine { path: PathBuf, message: String },
    #[error("vector store {path}: {message}; rebuild with `git rag index --full`")]
    Schema { path: PathBuf, message: String },
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// A point to upsert.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub id: u64,
    pub vector: Vec<f32>,
    pub payload: serde_json::Map<String, serde_json::Value>,
}

/// A search hit.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredHit {
    pub id: u64,
    pub score: f32,
    pub payload: serde_json::Map<String, serde_json::Value>,
}

/// One collection: an embedded Qdrant shard.
pub struct Collection {
    shard: EdgeShard,
    path: PathBuf,
    dims: usize,
}

impl Collection {
    /// Opens the shard in `dir`, creating it (with its payload indexes) if absent.
    pub fn open_or_create(dir: &Path, dims: usize, keyword_fields: &[&str]) -> Result<Collection> {
        let engine = |e: &dyn std::fmt::Display| StoreError::Engine { path: dir.to_path_buf(), message: e.to_string() };
        let exists = dir.join("edge_config.json").exists() || std::fs::read_dir(dir).map(|mut d| d.next().is_some()).unwrap_or(false);
        let shard = if exists {
            EdgeShard::load(dir, None).map_err(|e| engine(&e))?
        } else {
            std::fs::create_dir_all(dir).map_err(|e| engine(&e))?;
            let config = EdgeConfigBuilder::new().vector(DENSE, EdgeVectorParamsBuilder::new(dims, Distance::Cosine).build()).build();
            let shard = EdgeShard::new(dir, config).map_err(|e| engine(&e))?;
            for field in keyword_fields {
                let field_name: JsonPath = field.parse().map_err(|_| engine(&format!("bad field name {field}")))?;
                shard
                    .update(UpdateOperation::FieldIndexOperation(FieldIndexOperations::CreateIndex(qdrant_edge::CreateIndex {
                        field_name,
                        field_schema: Some(PayloadFieldSchema::FieldType(PayloadSchemaType::Keyword)),
                    })))
                    .map_err(|e| engine(&e))?;
            }
            shard
        };
        let configured = shard.config().vectors.get(DENSE).map(|v| v.size);
        if configured != Some(dims) {
            return Err(StoreError::Schema {
                path: dir.to_path_buf(),
                message: format!("holds {configured:?}-dimensional vectors, the model gives {dims}"),
            });
        }
        Ok(Collection { shard, path: dir.to_path_buf(), dims })
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError::Engine { path: self.path.clone(), message: e.to_string() }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Inserts or replaces points.
    pub fn upsert(&self, points: Vec<Point>) -> Result<()> {
        if points.is_empty() {
            return Ok(());
        }
        let mut list = Vec::with_capacity(points.len());
        for p in points {
            if p.vector.len() != self.dims {
                return Err(self.err(format!("point {} has {} dimensions, not {}", p.id, p.vector.len(), self.dims)));
            }
            let vector = VectorStructPersisted::from(VectorStructInternal::Named(HashMap::from([(DENSE.to_string(), VectorInternal::from(p.vector))])));
            list.push(PointStructPersisted { id: PointId::NumId(p.id), vector, payload: Some(Payload::from(p.payload)) });
        }
        self.shard
            .update(UpdateOperation::PointOperation(PointOperations::UpsertPoints(PointInsertOperations::PointsList(list))))
            .map_err(|e| self.err(e))
    }

    /// Deletes every point whose keyword `field` equals `value`.
    pub fn delete_where(&self, field: &str, value: &str) -> Result<()> {
        let filter = self.filter(&[(field, value)])?;
        self.shard.update(UpdateOperation::PointOperation(PointOperations::DeletePointsByFilter(filter))).map_err(|e| self.err(e))
    }

    fn filter(&self, conditions: &[(&str, &str)]) -> Result<Filter> {
        let mut must = Vec::new();
        for (field, value) in conditions {
            let key: JsonPath = field.parse().map_err(|_| self.err(format!("bad field name {field}")))?;
            must.push(Condition::Field(FieldCondition::new_match(key, Match::new_value(ValueVariants::String((*value).to_string())))));
        }
        Ok(Filter { must: Some(must), ..Default::default() })
    }

    /// The `limit` nearest points to `vector` among those matching every condition.
    pub fn search(&self, vector: &[f32], conditions: &[(&str, &str)], limit: usize) -> Result<Vec<ScoredHit>> {
        let query = ScoringQuery::Vector(QueryEnum::Nearest(NamedQuery::new(VectorInternal::from(vector.to_vec()), DENSE.to_string())));
        let mut builder = QueryRequestBuilder::new(limit.max(1)).query(query).with_payload(WithPayloadInterface::Bool(true));
        if !conditions.is_empty() {
            builder = builder.filter(self.filter(conditions)?);
        }
        let hits = self.shard.query(builder.build()).map_err(|e| self.err(e))?;
        Ok(hits
            .into_iter()
            .filter_map(|h| match h.id {
                PointId::NumId(id) => Some(ScoredHit { id, score: h.score, payload: h.payload.map(payload_map).unwrap_or_default() }),
                _ => None,
            })
            .collect())
    }

    /// Stored vectors of the given points (those that exist).
    pub fn vectors(&self, ids: &[u64]) -> Result<HashMap<u64, Vec<f32>>> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        let request = RetrieveRequestBuilder::new(ids.iter().map(|&i| PointId::NumId(i)).collect())
            .with_vector(WithVector::Bool(true))
            .with_payload(WithPayloadInterface::Bool(false))
            .build();
        let records = self.shard.retrieve(request).map_err(|e| self.err(e))?;
        let mut out = HashMap::new();
        for r in records {
            let PointId::NumId(id) = r.id else { continue };
            if let Some(VectorStructInternal::Named(mut named)) = r.vector {
                if let Some(VectorInternal::Dense(v)) = named.remove(DENSE) {
                    out.insert(id, v);
                }
            }
        }
        Ok(out)
    }

    /// Exact number of points.
    pub fn count(&self) -> Result<usize> {
        let request = qdrant_edge::CountRequestBuilder::new().exact(true).build();
        self.shard.count(request).map_err(|e| self.err(e))
    }

    /// Makes everything written so far durable.
    pub fn flush(&self) -> Result<()> {
        self.shard.flush().map_err(|e| self.err(e))
    }

    /// Builds indexes over what was written (no background workers in the embedded engine).
    pub fn optimize(&self) -> Result<()> {
        self.shard.optimize().map(|_| ()).map_err(|e| self.err(e))
    }
}

fn payload_map(p: Payload) -> serde_json::Map<String, serde_json::Value> {
    serde_json::to_value(p).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(id: u64, v: [f32; 4], path: &str) -> Point {
        let mut payload = serde_json::Map::new();
        payload.insert("path".into(), path.into());
        payload.insert("kind".into(), "function".into());
        Point { id, vector: v.to_vec(), payload }
    }

    #[test]
    fn upsert_search_filter_delete_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let shard_dir = dir.path().join("semantic");
        {
            let c = Collection::open_or_create(&shard_dir, 4, &["path", "kind"]).unwrap();
            c.upsert(vec![point(1, [1.0, 0.0, 0.0, 0.0], "a.py"), point(2, [0.0, 1.0, 0.0, 0.0], "b.py"), point(3, [0.9, 0.1, 0.0, 0.0], "b.py")])
                .unwrap();
            assert_eq!(c.count().unwrap(), 3);
            let hits = c.search(&[1.0, 0.0, 0.0, 0.0], &[], 2).unwrap();
            assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![1, 3]);
            assert_eq!(hits[0].payload["path"], "a.py");
            let hits = c.search(&[1.0, 0.0, 0.0, 0.0], &[("path", "b.py")], 5).unwrap();
            assert_eq!(hits.iter().map(|h| h.id).collect::<Vec<_>>(), vec![3, 2]);
            // Upserting the same id replaces the point.
            c.upsert(vec![point(3, [0.0, 0.0, 1.0, 0.0], "b.py")]).unwrap();
            assert_eq!(c.count().unwrap(), 3);
            c.delete_where("path", "b.py").unwrap();
            assert_eq!(c.count().unwrap(), 1);
            let v = c.vectors(&[1, 2]).unwrap();
            assert_eq!(v.len(), 1);
            assert!((v[&1][0] - 1.0).abs() < 1e-6);
            c.flush().unwrap();
        }
        let c = Collection::open_or_create(&shard_dir, 4, &["path", "kind"]).unwrap();
        assert_eq!(c.count().unwrap(), 1, "points survive a reopen");
        // The shard's WAL is locked while it is open, even within one process.
        let busy = Collection::open_or_create(&shard_dir, 4, &["path"]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(busy.contains("WAL"), "{busy}");
        drop(c);
        let err = Collection::open_or_create(&shard_dir, 8, &["path"]).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(err.contains("git rag index --full"), "{err}");
    }
}
