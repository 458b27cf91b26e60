//! The server backend: a Qdrant server over gRPC (`qdrant-client`).
//!
//! Same collections and payloads as the embedded store, named
//! `<prefix>_<collection>` (one prefix per repository). Each tree collection
//! also carries a sparse BM25 vector ([`SPARSE`], IDF modifier) computed by
//! the server from the embedded text (`qdrant/bm25` inference), so the server
//! can answer hybrid prefetch + RRF queries on its own. The vector cache is
//! one collection per model shared by every repository on the server
//! (`git_rag_vector_cache_<model>_<dims>`): identical text is embedded once.
//!
//! Writes are batched and retried with backoff; every write waits for the
//! server to apply it, so a finished run means a durable index.

use std::collections::HashMap;
use std::future::Future;
use std::time::Duration;

use qdrant_client::qdrant::{
    point_id::PointIdOptions, Condition, CountPointsBuilder, CreateCollectionBuilder, CreateFieldIndexCollectionBuilder, DeletePointsBuilder, Distance,
    Document, FieldType, Filter as QFilter, GetPointsBuilder, Modifier, NamedVectors, PointId, PointStruct, QueryPointsBuilder, ScrollPointsBuilder,
    SparseVectorParamsBuilder, SparseVectorsConfigBuilder, UpsertPointsBuilder, VectorParamsBuilder, VectorsConfigBuilder,
};
use qdrant_client::{Payload, Qdrant};
use serde_json::{Map, Value};

use super::{Collection, Filter, Point, Record, Result, ScoredHit, StoreError, VectorStore, DENSE, SPARSE};

/// Oldest server this backend is tested against (server-side BM25 inference).
const MIN_SERVER: (u64, u64) = (1, 15);
const BATCH: usize = 256;
/// `<prefix>_state`: the index state kept in the server (CI indexing).
pub const STATE_COLLECTION: &str = "state";
const STATE_HEADER_ID: u64 = 0;
/// Bytes of state text per point.
const STATE_PART: usize = 1 << 20;

fn state_part_id(generation: u64, part: u64) -> u64 {
    1 + generation * 65_536 + part
}
const ATTEMPTS: u32 = 4;

/// Where the server is, and how to name the collections.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub url: String,
    /// From `QDRANT_API_KEY`; never printed.
    pub api_key: Option<String>,
    /// Prefix of this repository's collections.
    pub prefix: String,
    pub timeout: Duration,
}

pub struct ServerStore {
    client: Qdrant,
    runtime: tokio::runtime::Runtime,
    opts: ServerOptions,
    dims: usize,
    model: String,
    version: String,
}

impl ServerStore {
    /// The size of the vectors it holds.
    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Connects, checks the server version and creates missing collections.
    pub fn connect(opts: ServerOptions, dims: usize, model: &str) -> Result<ServerStore> {
        let store = ServerStore::open(opts, dims, model)?;
        for c in Collection::TREE.into_iter().chain([Collection::VectorCache]) {
            store.ensure(c)?;
        }
        Ok(store)
    }

    /// Connects for the vector cache of `model` alone (a local index that
    /// borrows the team's vectors): no tree collection is created, and the
    /// cache only when `create`. `Ok(None)`: the server holds no cache of
    /// this model and size.
    pub fn connect_cache(opts: ServerOptions, dims: usize, model: &str, create: bool) -> Result<Option<ServerStore>> {
        let store = ServerStore::open(opts, dims, model)?;
        let c = Collection::VectorCache;
        let name = store.collection_name(c);
        if !create && !store.call(c, "checking the collection", || store.client.collection_exists(name.clone()))? {
            return Ok(None);
        }
        store.ensure(c)?;
        Ok(Some(store))
    }

    /// A client of a server of a supported version; creates nothing.
    pub fn open(opts: ServerOptions, dims: usize, model: &str) -> Result<ServerStore> {
        let unreachable = |message: String| StoreError::Unreachable { url: opts.url.clone(), message };
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| unreachable(e.to_string()))?;
        let mut builder = Qdrant::from_url(&opts.url).timeout(opts.timeout).connect_timeout(Duration::from_secs(5)).skip_compatibility_check();
        if let Some(key) = &opts.api_key {
            builder = builder.api_key(key.clone());
        }
        let client = builder.build().map_err(|e| unreachable(e.to_string()))?;
        let health = runtime.block_on(client.health_check()).map_err(|e| unreachable(short_error(&e.to_string())))?;
        let version = health.version;
        let mut parts = version.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
        let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        if (major, minor) < MIN_SERVER {
            return Err(StoreError::Engine {
                place: opts.url.clone(),
                message: format!("Qdrant server {version} is too old; git-rag needs {}.{} or newer", MIN_SERVER.0, MIN_SERVER.1),
            });
        }
        Ok(ServerStore { client, runtime, opts, dims, model: model.to_string(), version })
    }

    pub fn version(&self) -> &str {
        &self.version
    }

    /// The name of a collection on the server.
    pub fn collection_name(&self, c: Collection) -> String {
        match c {
            // Per model and size, shared by every repository on the server.
            Collection::VectorCache => format!("git_rag_{}_{}_{}", c.name(), super::sanitize(&self.model), self.dims),
            _ => format!("{}_{}", self.opts.prefix, c.name()),
        }
    }

    fn err(&self, c: Collection, message: impl std::fmt::Display) -> StoreError {
        StoreError::Engine { place: format!("{} collection {}", self.opts.url, self.collection_name(c)), message: short_error(&message.to_string()) }
    }

    /// Runs a request, retrying with backoff when it fails.
    fn call<T, F, Fut>(&self, c: Collection, what: &str, request: F) -> Result<T>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = std::result::Result<T, qdrant_client::QdrantError>>,
    {
        self.retrying(request).map_err(|e| self.err(c, format!("{what} failed: {e}")))
    }

    /// Runs a request, retrying with backoff while it fails in a way that may pass.
    fn retrying<T, F, Fut>(&self, mut request: F) -> std::result::Result<T, qdrant_client::QdrantError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = std::result::Result<T, qdrant_client::QdrantError>>,
    {
        let mut delay = Duration::from_millis(200);
        let mut attempt = 1;
        loop {
            match self.runtime.block_on(request()) {
                Err(e) if attempt < ATTEMPTS && retryable(&e) => {
                    std::thread::sleep(delay);
                    delay *= 2;
                    attempt += 1;
                }
                done => return done,
            }
        }
    }

    /// The size of the dense vectors of the collection `name` (`None`: it has none).
    pub fn dense_size(&self, name: &str) -> Result<Option<u64>> {
        let info = self.retrying(|| self.client.collection_info(name)).map_err(|e| self.named_err(name, format!("reading the collection failed: {e}")))?;
        Ok(info.result.and_then(|r| r.config).and_then(|cfg| cfg.params).and_then(|p| p.vectors_config).and_then(|v| match v.config {
            Some(qdrant_client::qdrant::vectors_config::Config::ParamsMap(m)) => m.map.get(DENSE).map(|p| p.size),
            _ => None,
        }))
    }

    fn ensure(&self, c: Collection) -> Result<()> {
        let name = self.collection_name(c);
        let exists = self.call(c, "checking the collection", || self.client.collection_exists(name.clone()))?;
        if exists {
            let size = self.dense_size(&name)?;
            if size != Some(self.dims as u64) {
                return Err(StoreError::Schema {
                    place: format!("{} collection {name}", self.opts.url),
                    message: format!("holds {size:?}-dimensional `{DENSE}` vectors, the model gives {}", self.dims),
                });
            }
            return Ok(());
        }
        let mut vectors = VectorsConfigBuilder::default();
        vectors.add_named_vector_params(DENSE, VectorParamsBuilder::new(self.dims as u64, Distance::Cosine));
        let mut create = CreateCollectionBuilder::new(name.clone()).vectors_config(vectors);
        if c != Collection::VectorCache {
            let mut sparse = SparseVectorsConfigBuilder::default();
            sparse.add_named_vector_params(SPARSE, SparseVectorParamsBuilder::default().modifier(Modifier::Idf));
            create = create.sparse_vectors_config(sparse);
        }
        match self.runtime.block_on(self.client.create_collection(create)) {
            Ok(_) => {}
            // Another indexer created it meanwhile.
            Err(e) if e.to_string().contains("already exists") => return Ok(()),
            Err(e) => return Err(self.err(c, format!("creating the collection failed: {e}"))),
        }
        for field in c.keyword_fields() {
            self.call(c, "creating a payload index", || {
                self.client.create_field_index(CreateFieldIndexCollectionBuilder::new(name.clone(), *field, FieldType::Keyword).wait(true))
            })?;
        }
        Ok(())
    }

    /// The collection that holds this prefix's index state (see [`ServerStore::save_state`]).
    pub fn state_collection(&self) -> String {
        format!("{}_{STATE_COLLECTION}", self.opts.prefix)
    }

    fn state_err(&self, what: &str, e: impl std::fmt::Display) -> StoreError {
        StoreError::Engine { place: format!("{} collection {}", self.opts.url, self.state_collection()), message: short_error(&format!("{what} failed: {e}")) }
    }

    fn state_call<T, Fut>(&self, what: &str, request: impl FnMut() -> Fut) -> Result<T>
    where
        Fut: Future<Output = std::result::Result<T, qdrant_client::QdrantError>>,
    {
        self.retrying(request).map_err(|e| self.state_err(what, e))
    }

    /// The index state stored beside the collections (`None` when there is
    /// none yet). Kept as text split into parts of at most [`STATE_PART`]
    /// bytes under a header point, so big repositories stay under gRPC's
    /// message limit.
    pub fn load_state(&self) -> Result<Option<String>> {
        let name = self.state_collection();
        if !self.state_call("checking the collection", || self.client.collection_exists(name.clone()))? {
            return Ok(None);
        }
        let header = self.state_call("reading the state", || {
            self.client.get_points(GetPointsBuilder::new(name.clone(), vec![PointId::from(STATE_HEADER_ID)]).with_payload(true))
        })?;
        let Some(header) = header.result.into_iter().next() else { return Ok(None) };
        let header = to_json(header.payload);
        let (Some(generation), Some(parts)) = (header.get("generation").and_then(Value::as_u64), header.get("parts").and_then(Value::as_u64)) else {
            return Err(self.state_err("reading the state", "the header point has no generation/parts"));
        };
        let ids: Vec<PointId> = (0..parts).map(|i| PointId::from(state_part_id(generation, i))).collect();
        let got = self.state_call("reading the state", || self.client.get_points(GetPointsBuilder::new(name.clone(), ids.clone()).with_payload(true)))?;
        let mut pieces: Vec<(u64, String)> = got
            .result
            .into_iter()
            .filter_map(|p| {
                let payload = to_json(p.payload);
                Some((payload.get("part")?.as_u64()?, payload.get("text")?.as_str()?.to_string()))
            })
            .collect();
        if pieces.len() as u64 != parts {
            return Err(self.state_err("reading the state", format!("{} of {parts} parts of generation {generation} are there", pieces.len())));
        }
        pieces.sort_by_key(|(i, _)| *i);
        Ok(Some(pieces.into_iter().map(|(_, t)| t).collect()))
    }

    /// Replaces the stored state. The parts of the new generation are written
    /// first and the header last, so a run that dies midway leaves the old
    /// state whole; the old generation's parts are deleted afterwards.
    pub fn save_state(&self, text: &str) -> Result<()> {
        let name = self.state_collection();
        if !self.state_call("checking the collection", || self.client.collection_exists(name.clone()))? {
            let mut vectors = VectorsConfigBuilder::default();
            vectors.add_named_vector_params(DENSE, VectorParamsBuilder::new(1, Distance::Dot));
            match self.runtime.block_on(self.client.create_collection(CreateCollectionBuilder::new(name.clone()).vectors_config(vectors))) {
                Ok(_) => {}
                Err(e) if e.to_string().contains("already exists") => {}
                Err(e) => return Err(self.state_err("creating the collection", e)),
            }
        }
        let old = self
            .state_call("reading the state", || {
                self.client.get_points(GetPointsBuilder::new(name.clone(), vec![PointId::from(STATE_HEADER_ID)]).with_payload(true))
            })?
            .result
            .into_iter()
            .next()
            .map(|p| to_json(p.payload))
            .and_then(|h| Some((h.get("generation")?.as_u64()?, h.get("parts")?.as_u64()?)));
        let generation = old.map_or(1, |(g, _)| g + 1);
        let mut parts = Vec::new();
        let mut rest = text;
        while !rest.is_empty() || parts.is_empty() {
            let mut cut = rest.len().min(STATE_PART);
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            parts.push(&rest[..cut]);
            rest = &rest[cut..];
        }
        let vector = || NamedVectors::default().add_vector(DENSE, vec![0.0f32]);
        for (i, part) in parts.iter().enumerate() {
            let payload: Map<String, Value> = [("part".to_string(), Value::from(i as u64)), ("text".to_string(), Value::from(*part))].into_iter().collect();
            let point = PointStruct::new(state_part_id(generation, i as u64), vector(), Payload::from(payload));
            self.state_call("writing the state", || self.client.upsert_points(UpsertPointsBuilder::new(name.clone(), vec![point.clone()]).wait(true)))?;
        }
        let header: Map<String, Value> =
            [("generation".to_string(), Value::from(generation)), ("parts".to_string(), Value::from(parts.len() as u64))].into_iter().collect();
        let point = PointStruct::new(STATE_HEADER_ID, vector(), Payload::from(header));
        self.state_call("writing the state", || self.client.upsert_points(UpsertPointsBuilder::new(name.clone(), vec![point.clone()]).wait(true)))?;
        if let Some((g, n)) = old {
            let ids: Vec<PointId> = (0..n).map(|i| PointId::from(state_part_id(g, i))).collect();
            // Best effort: leftovers of an old generation are never read.
            let _ = self.runtime.block_on(self.client.delete_points(DeletePointsBuilder::new(name.clone()).points(ids).wait(true)));
        }
        Ok(())
    }

    /// The `limit` points of `c` that best match `text` by the server's
    /// sparse BM25 vectors (the query's BM25 vector is made by the server,
    /// with the same `qdrant/bm25` inference the points were stored with).
    pub fn sparse_search(&self, c: Collection, text: &str, filter: &Filter, limit: usize) -> Result<Vec<ScoredHit>> {
        let name = self.collection_name(c);
        let query = qdrant_client::qdrant::Query::new_nearest(Document::new(text.to_string(), "qdrant/bm25"));
        let mut q = QueryPointsBuilder::new(name).query(query).using(SPARSE).limit(limit.max(1) as u64).with_payload(true);
        if !filter.is_empty() {
            q = q.filter(Self::filter(filter));
        }
        let response = self.call(c, "sparse query", || self.client.query(q.clone()))?;
        Ok(scored(response))
    }

    /// Like [`VectorStore::search`], among the points whose string payload
    /// `field` holds `text` as written (the field has no full-text index, so
    /// Qdrant matches the exact substring).
    pub fn search_containing(&self, c: Collection, vector: &[f32], filter: &Filter, field: &str, text: &str, limit: usize) -> Result<Vec<ScoredHit>> {
        let name = self.collection_name(c);
        let mut q_filter = Self::filter(filter);
        q_filter.must.push(Condition::matches_text(field, text));
        let q = QueryPointsBuilder::new(name).query(vector.to_vec()).using(DENSE).limit(limit.max(1) as u64).with_payload(true).filter(q_filter);
        let response = self.call(c, "query", || self.client.query(q.clone()))?;
        Ok(scored(response))
    }

    /// Names of every collection on the server (for `gc`).
    pub fn collection_names(&self) -> Result<Vec<String>> {
        let response = self.retrying(|| self.client.list_collections()).map_err(|e| self.named_err("*", format!("listing the collections failed: {e}")))?;
        Ok(response.collections.into_iter().map(|c| c.name).collect())
    }

    fn named_err(&self, name: &str, message: impl std::fmt::Display) -> StoreError {
        StoreError::Engine { place: format!("{} collection {name}", self.opts.url), message: short_error(&message.to_string()) }
    }

    /// Every point id of the collection `name`, with the value of one string
    /// payload `field` where the point has it (for `gc`).
    pub fn scroll_field(&self, name: &str, field: &str) -> Result<Vec<(u64, Option<String>)>> {
        let mut out = Vec::new();
        let mut offset: Option<PointId> = None;
        loop {
            let mut request = ScrollPointsBuilder::new(name)
                .limit(4096)
                .with_payload(qdrant_client::qdrant::PayloadIncludeSelector { fields: vec![field.to_string()] })
                .with_vectors(false);
            if let Some(o) = offset.take() {
                request = request.offset(o);
            }
            let response = self.retrying(|| self.client.scroll(request.clone())).map_err(|e| self.named_err(name, format!("scroll failed: {e}")))?;
            out.extend(response.result.into_iter().filter_map(|p| {
                let value = p.payload.get(field).and_then(|v| v.as_str().map(|s| s.to_string()));
                Some((num_id(p.id)?, value))
            }));
            match response.next_page_offset {
                Some(next) => offset = Some(next),
                None => return Ok(out),
            }
        }
    }

    /// Deletes these points of the collection `name` (for `gc`).
    pub fn delete_ids_in(&self, name: &str, ids: &[u64]) -> Result<()> {
        for batch in ids.chunks(4096) {
            let list = qdrant_client::qdrant::PointsIdsList { ids: batch.iter().map(|&i| i.into()).collect() };
            self.retrying(|| self.client.delete_points(DeletePointsBuilder::new(name).points(list.clone()).wait(true)))
                .map_err(|e| self.named_err(name, format!("delete failed: {e}")))?;
        }
        Ok(())
    }

    /// Deletes the collection `name` (for `gc`).
    pub fn drop_collection(&self, name: &str) -> Result<()> {
        self.retrying(|| self.client.delete_collection(name)).map_err(|e| self.named_err(name, format!("deleting the collection failed: {e}")))?;
        Ok(())
    }

    fn filter(filter: &Filter) -> QFilter {
        let conditions = |of: &[(String, Vec<String>)]| of.iter().map(|(field, values)| Condition::matches(field.clone(), values.clone())).collect::<Vec<_>>();
        QFilter { must: conditions(&filter.must), must_not: conditions(&filter.must_not), ..Default::default() }
    }
}

impl VectorStore for ServerStore {
    fn describe(&self) -> String {
        format!("Qdrant server {} ({}, collections {}_*)", self.version, self.opts.url, self.opts.prefix)
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn keeps_text(&self) -> bool {
        true
    }

    fn upsert(&self, c: Collection, points: Vec<Point>) -> Result<()> {
        let name = self.collection_name(c);
        for batch in points.chunks(BATCH) {
            let mut structs = Vec::with_capacity(batch.len());
            for p in batch {
                if p.vector.len() != self.dims {
                    return Err(self.err(c, format!("point {} has {} dimensions, not {}", p.id, p.vector.len(), self.dims)));
                }
                let mut vectors = NamedVectors::default().add_vector(DENSE, p.vector.clone());
                if let (Some(text), true) = (&p.text, c != Collection::VectorCache) {
                    vectors = vectors.add_vector(SPARSE, Document::new(text.clone(), "qdrant/bm25"));
                }
                structs.push(PointStruct::new(p.id, vectors, Payload::from(p.payload.clone())));
            }
            self.call(c, "upsert", || self.client.upsert_points(UpsertPointsBuilder::new(name.clone(), structs.clone()).wait(true)))?;
        }
        Ok(())
    }

    fn delete_paths(&self, c: Collection, paths: &[String]) -> Result<()> {
        let name = self.collection_name(c);
        for batch in paths.chunks(BATCH) {
            let filter = Self::filter(&Filter::default().any_of("path", batch.to_vec()));
            self.call(c, "delete", || self.client.delete_points(DeletePointsBuilder::new(name.clone()).points(filter.clone()).wait(true)))?;
        }
        Ok(())
    }

    fn delete_ids(&self, c: Collection, ids: &[u64]) -> Result<()> {
        let name = self.collection_name(c);
        for batch in ids.chunks(4096) {
            let list = qdrant_client::qdrant::PointsIdsList { ids: batch.iter().map(|&i| i.into()).collect() };
            self.call(c, "delete", || self.client.delete_points(DeletePointsBuilder::new(name.clone()).points(list.clone()).wait(true)))?;
        }
        Ok(())
    }

    fn clear(&self, c: Collection) -> Result<()> {
        let name = self.collection_name(c);
        self.call(c, "delete", || self.client.delete_points(DeletePointsBuilder::new(name.clone()).points(QFilter::default()).wait(true)))?;
        Ok(())
    }

    fn search(&self, c: Collection, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<ScoredHit>> {
        let name = self.collection_name(c);
        let mut q = QueryPointsBuilder::new(name).query(vector.to_vec()).using(DENSE).limit(limit.max(1) as u64).with_payload(true);
        if !filter.is_empty() {
            q = q.filter(Self::filter(filter));
        }
        let response = self.call(c, "query", || self.client.query(q.clone()))?;
        Ok(scored(response))
    }

    fn retrieve(&self, c: Collection, ids: &[u64], with_vectors: bool) -> Result<Vec<Record>> {
        let name = self.collection_name(c);
        let mut out = Vec::new();
        for batch in ids.chunks(1024) {
            let point_ids: Vec<PointId> = batch.iter().map(|&i| PointId::from(i)).collect();
            let request = GetPointsBuilder::new(name.clone(), point_ids).with_vectors(with_vectors).with_payload(!with_vectors);
            let response = self.call(c, "retrieve", || self.client.get_points(request.clone()))?;
            out.extend(response.result.into_iter().filter_map(|p| {
                let vector = p.vectors.as_ref().and_then(dense_of);
                Some(Record { id: num_id(p.id)?, vector, payload: to_json(p.payload) })
            }));
        }
        Ok(out)
    }

    fn scroll_all(&self, c: Collection, with_vectors: bool) -> Result<Vec<Record>> {
        let name = self.collection_name(c);
        let mut out = Vec::new();
        let mut offset: Option<PointId> = None;
        loop {
            let mut request = ScrollPointsBuilder::new(name.clone()).limit(1024).with_payload(true);
            if with_vectors {
                request = request.with_vectors(qdrant_client::qdrant::VectorsSelector { names: vec![DENSE.to_string()] });
            }
            if let Some(o) = offset.take() {
                request = request.offset(o);
            }
            let response = self.call(c, "scroll", || self.client.scroll(request.clone()))?;
            out.extend(response.result.into_iter().filter_map(|p| {
                let vector = p.vectors.as_ref().and_then(dense_of);
                Some(Record { id: num_id(p.id)?, vector, payload: to_json(p.payload) })
            }));
            match response.next_page_offset {
                Some(next) => offset = Some(next),
                None => return Ok(out),
            }
        }
    }

    fn count(&self, c: Collection) -> Result<usize> {
        let name = self.collection_name(c);
        let response = self.call(c, "count", || self.client.count(CountPointsBuilder::new(name.clone()).exact(true)))?;
        Ok(response.result.map_or(0, |r| r.count as usize))
    }

    fn commit(&self, _optimize: bool) -> Result<()> {
        // Every write waited for the server; it indexes in the background.
        Ok(())
    }
}

/// The hits of a query's answer (points with a numeric id).
fn scored(response: qdrant_client::qdrant::QueryResponse) -> Vec<ScoredHit> {
    response.result.into_iter().filter_map(|p| Some(ScoredHit { id: num_id(p.id)?, score: p.score, payload: to_json(p.payload) })).collect()
}

fn retryable(e: &qdrant_client::QdrantError) -> bool {
    match e {
        // gRPC codes Unknown, DeadlineExceeded, ResourceExhausted, Aborted, Unavailable.
        qdrant_client::QdrantError::ResponseError { status } => {
            matches!(status.code() as i32, 2 | 4 | 8 | 10 | 14) || (status.code() as i32 == 13 && shards_not_ready(status.message()))
        }
        _ => false,
    }
}

/// Qdrant's answer about a collection another client has just created and
/// whose shards are not loaded yet ("Service internal error: 0 of 0 read
/// operations failed"): it passes once they are (seen with two indexers
/// creating the shared vector cache at once).
fn shards_not_ready(message: &str) -> bool {
    message.contains("0 of 0 read operations failed")
}

/// Keeps the first line of a gRPC error: tonic appends metadata dumps.
fn short_error(s: &str) -> String {
    let line = s.lines().next().unwrap_or(s);
    line.chars().take(400).collect()
}

fn dense_of(v: &qdrant_client::qdrant::VectorsOutput) -> Option<Vec<f32>> {
    match v.get_vector_by_name(DENSE)? {
        qdrant_client::qdrant::vector_output::Vector::Dense(d) => Some(d.data),
        _ => None,
    }
}

fn num_id(id: Option<PointId>) -> Option<u64> {
    match id?.point_id_options? {
        PointIdOptions::Num(n) => Some(n),
        PointIdOptions::Uuid(_) => None,
    }
}

fn to_json(payload: HashMap<String, qdrant_client::qdrant::Value>) -> Map<String, Value> {
    payload.into_iter().map(|(k, v)| (k, v.into_json())).collect()
}
