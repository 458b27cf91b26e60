//! The embedded backend: Qdrant's own engine in-process (`qdrant-edge`), one
//! shard on disk per collection under `<index>/qdrant/`.
//!
//! The vector cache is not a shard: it is a [`VectorCache`] in its own
//! directory (shared by the worktrees of a repository), which several
//! processes read and write at once without this store's lock.
//!
//! Concurrency: the shards are created without a WAL, because an open WAL
//! holds an exclusive lock that would stop a `git rag query` while
//! `git rag index` runs (and two queries at once). Instead `store.lock` is a
//! reader/writer file lock: queries hold it shared while they read, the
//! indexer holds it exclusive only while it writes and flushes. Without a WAL
//! an update is durable once flushed; a crash before that loses it, and the
//! run journal (see `index.rs`) makes the next run redo those paths.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use qdrant_edge::{
    AnyVariants, Condition, Distance, EdgeConfigBuilder, EdgeOptimizersConfig, EdgeShard, EdgeVectorParamsBuilder, FieldCondition, FieldIndexOperations,
    Filter as EdgeFilter, JsonPath, Match, NamedQuery, Payload, PayloadFieldSchema, PayloadSchemaType, PointId, PointInsertOperations, PointOperations,
    PointStructPersisted, QueryEnum, QueryRequestBuilder, RetrieveRequestBuilder, ScoringQuery, ScrollRequestBuilder, UpdateOperation, ValueVariants,
    VectorInternal, VectorStructInternal, VectorStructPersisted, WithPayloadInterface, WithVector,
};
use serde_json::{Map, Value};

use crate::stores::fs::{FileLock, LockError, LockKind};
use crate::stores::health::{Depth, Store as HealthStore, StoreDamaged};

use super::cache::VectorCache;
use super::{Collection, Filter, Point, Record, Result, ScoredHit, StoreError, VectorStore, DENSE};

pub const LOCK_FILE: &str = "store.lock";
/// Present while a writer waits for readers to let go of the store, so that
/// a long-lived reader (the MCP server) can close it.
pub const WRITER_WAITING_FILE: &str = "store.writer-waiting";

/// Whether an indexer is waiting to write the store in `dir`.
pub fn writer_waiting(dir: &Path) -> bool {
    dir.join(WRITER_WAITING_FILE).exists()
}

/// Whether the store is opened to read (shared) or to write (exclusive).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// The embedded store: a directory of shards.
pub struct EdgeStore {
    dir: PathBuf,
    dims: usize,
    model: String,
    access: Access,
    shards: Mutex<HashMap<Collection, Arc<Shard>>>,
    cache: VectorCache,
    _lock: FileLock,
}

impl EdgeStore {
    /// Opens (with `Access::Write`, creates) the store in `dir` for vectors of
    /// `dims` dimensions from `model`, waiting up to `wait` for the lock; its
    /// vector cache is under `cache_root`.
    pub fn open(dir: &Path, cache_root: &Path, dims: usize, model: &str, access: Access, wait: Duration) -> Result<EdgeStore> {
        let place = dir.display().to_string();
        let engine = |message: String| StoreError::Engine { place: place.clone(), message };
        if access == Access::Write {
            std::fs::create_dir_all(dir).map_err(|e| engine(format!("cannot create the directory: {e}")))?;
        } else if !dir.is_dir() {
            return Err(engine("there is no vector store here yet; run `git rag index`".into()));
        }
        let lock_path = dir.join(LOCK_FILE);
        let waiting = dir.join(WRITER_WAITING_FILE);
        let mut announced = false;
        let kind = if access == Access::Write { LockKind::Exclusive } else { LockKind::Shared };
        let outcome = FileLock::acquire(&lock_path, kind, wait, Duration::from_millis(20), || {
            if access == Access::Write {
                // Best effort: without it a long-lived reader only lets go when idle.
                announced = std::fs::write(&waiting, std::process::id().to_string()).is_ok();
            }
        });
        if announced {
            let _ = std::fs::remove_file(&waiting);
        }
        let lock = outcome.map_err(|e| match e {
            LockError::Busy => StoreError::Busy { place: place.clone(), waited_ms: wait.as_millis() },
            LockError::Io(e) => engine(format!("cannot lock {}: {e}", lock_path.display())),
        })?;
        let cache = VectorCache::new(cache_root, model, dims);
        let store = EdgeStore { dir: dir.to_path_buf(), dims, model: model.to_string(), access, shards: Mutex::new(HashMap::new()), cache, _lock: lock };
        if access == Access::Write {
            store.adopt_legacy_cache()?;
            if let Some(index_dir) = dir.parent() {
                store.cache.register_user(index_dir)?;
            }
        }
        Ok(store)
    }

    /// Where this model's vector cache lives.
    pub fn cache_dir(&self) -> PathBuf {
        self.cache.dir().to_path_buf()
    }

    /// The vector cache itself.
    pub fn cache(&self) -> &VectorCache {
        &self.cache
    }

    fn shard_dir(&self, c: Collection) -> PathBuf {
        self.dir.join(c.name())
    }

    /// Where an index made before the cache moved out kept this model's
    /// vectors: a shard beside the collections.
    pub fn legacy_cache_dir(&self) -> PathBuf {
        self.dir.join(format!("{}_{}_{}", Collection::VectorCache.name(), super::sanitize(&self.model), self.dims))
    }

    /// Moves the vectors of a pre-shared-cache index into the cache (once:
    /// its shard is removed after), so upgrading embeds nothing again.
    fn adopt_legacy_cache(&self) -> Result<()> {
        let legacy = self.legacy_cache_dir();
        if !legacy.join("edge_config.json").exists() {
            return Ok(());
        }
        let shard = Shard::open_or_create(&legacy, self.dims, Collection::VectorCache)?;
        let points = shard.scroll_all(true)?.into_iter().filter_map(|r| r.vector.map(|v| (r.id, v)));
        self.cache.add(points)?;
        self.cache.flush()?;
        drop(shard);
        std::fs::remove_dir_all(&legacy).map_err(|e| self.err(&format!("cannot remove {}: {e}", legacy.display())))
    }

    /// The shard of a collection; `None` when reading one that was never written.
    fn shard(&self, c: Collection) -> Result<Option<Arc<Shard>>> {
        let mut shards = self.shards.lock().map_err(|_| self.err("a previous store operation panicked"))?;
        if let Some(s) = shards.get(&c) {
            return Ok(Some(s.clone()));
        }
        let dir = self.shard_dir(c);
        if self.access == Access::Read && !dir.join("edge_config.json").exists() {
            return Ok(None);
        }
        let shard = Arc::new(Shard::open_or_create(&dir, self.dims, c)?);
        shards.insert(c, shard.clone());
        Ok(Some(shard))
    }

    /// Loads the shards of `collections` that are not loaded yet, each on
    /// its own thread: a shard's load is mostly waiting on its files.
    fn load_shards(&self, collections: &[Collection]) -> Result<()> {
        let missing: Vec<Collection> = {
            let shards = self.shards.lock().map_err(|_| self.err("a previous store operation panicked"))?;
            collections.iter().copied().filter(|c| *c != Collection::VectorCache && !shards.contains_key(c)).collect()
        };
        let loaded: Vec<Result<Option<(Collection, Shard)>>> = std::thread::scope(|s| {
            let handles: Vec<_> = missing
                .iter()
                .map(|&c| {
                    let dir = self.shard_dir(c);
                    s.spawn(move || -> Result<Option<(Collection, Shard)>> {
                        if self.access == Access::Read && !dir.join("edge_config.json").exists() {
                            return Ok(None);
                        }
                        Ok(Some((c, Shard::open_or_create(&dir, self.dims, c)?)))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(self.err("loading a shard panicked")))).collect()
        });
        let mut shards = self.shards.lock().map_err(|_| self.err("a previous store operation panicked"))?;
        for r in loaded {
            if let Some((c, shard)) = r? {
                shards.entry(c).or_insert_with(|| Arc::new(shard));
            }
        }
        Ok(())
    }

    fn writable(&self, c: Collection) -> Result<Arc<Shard>> {
        if self.access != Access::Write {
            return Err(self.err("opened to read, not to write"));
        }
        self.shard(c)?.ok_or_else(|| self.err("collection missing"))
    }

    fn err(&self, message: &str) -> StoreError {
        StoreError::Engine { place: self.dir.display().to_string(), message: message.to_string() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl VectorStore for EdgeStore {
    fn preload(&self, collections: &[Collection]) -> Result<()> {
        self.load_shards(collections)
    }

    fn describe(&self) -> String {
        format!("embedded Qdrant ({})", self.dir.display())
    }

    fn dims(&self) -> usize {
        self.dims
    }

    fn take_notices(&self) -> Vec<String> {
        self.cache.take_notices()
    }

    fn upsert(&self, c: Collection, points: Vec<Point>) -> Result<()> {
        if c == Collection::VectorCache {
            if self.access != Access::Write {
                return Err(self.err("opened to read, not to write"));
            }
            return self.cache.add(points.into_iter().map(|p| (p.id, p.vector)));
        }
        self.writable(c)?.upsert(points)
    }

    fn delete_paths(&self, c: Collection, paths: &[String]) -> Result<()> {
        if paths.is_empty() {
            return Ok(());
        }
        let shard = self.writable(c)?;
        for batch in paths.chunks(512) {
            shard.delete(&Filter::default().any_of("path", batch.to_vec()))?;
        }
        Ok(())
    }

    fn delete_ids(&self, c: Collection, ids: &[u64]) -> Result<()> {
        if ids.is_empty() {
            return Ok(());
        }
        if c == Collection::VectorCache {
            if self.access != Access::Write {
                return Err(self.err("opened to read, not to write"));
            }
            return self.cache.remove(&ids.iter().copied().collect(), Duration::from_secs(30)).map(|_| ());
        }
        let shard = self.writable(c)?;
        for batch in ids.chunks(4096) {
            shard.delete_ids(batch)?;
        }
        Ok(())
    }

    fn clear(&self, c: Collection) -> Result<()> {
        if self.access != Access::Write {
            return Err(self.err("opened to read, not to write"));
        }
        if c == Collection::VectorCache {
            let all = self.cache.ids()?;
            return self.delete_ids(c, &all);
        }
        {
            let mut shards = self.shards.lock().map_err(|_| self.err("a previous store operation panicked"))?;
            shards.remove(&c);
            let dir = self.shard_dir(c);
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(self.err(&format!("cannot remove {}: {e}", dir.display()))),
            }
        }
        // Recreate it empty, with its schema, so that every collection exists.
        self.writable(c).map(|_| ())
    }

    fn search(&self, c: Collection, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<ScoredHit>> {
        if c == Collection::VectorCache {
            return Err(self.err("the vector cache is read by id, not searched"));
        }
        match self.shard(c)? {
            Some(s) => s.search(vector, filter, limit),
            None => Ok(Vec::new()),
        }
    }

    fn retrieve(&self, c: Collection, ids: &[u64], with_vectors: bool) -> Result<Vec<Record>> {
        if c == Collection::VectorCache {
            let found = self.cache.get(ids)?;
            return Ok(found.into_iter().map(|(id, v)| Record { id, vector: with_vectors.then_some(v), payload: Map::new() }).collect());
        }
        match self.shard(c)? {
            Some(s) => s.retrieve(ids, with_vectors),
            None => Ok(Vec::new()),
        }
    }

    fn scroll_all(&self, c: Collection, with_vectors: bool) -> Result<Vec<Record>> {
        if c == Collection::VectorCache {
            let records = if with_vectors {
                self.cache.all()?.into_iter().map(|(id, v)| Record { id, vector: Some(v), payload: Map::new() }).collect()
            } else {
                self.cache.ids()?.into_iter().map(|id| Record { id, vector: None, payload: Map::new() }).collect()
            };
            return Ok(records);
        }
        match self.shard(c)? {
            Some(s) => s.scroll_all(with_vectors),
            None => Ok(Vec::new()),
        }
    }

    fn count(&self, c: Collection) -> Result<usize> {
        if c == Collection::VectorCache {
            return Ok(self.cache.ids()?.len());
        }
        match self.shard(c)? {
            Some(s) => s.count(),
            None => Ok(0),
        }
    }

    fn commit(&self, optimize: bool) -> Result<()> {
        if self.access != Access::Write {
            return Ok(());
        }
        // The cache first: the collections may refer to its vectors.
        self.cache.flush()?;
        let shards: Vec<Arc<Shard>> = self.shards.lock().map_err(|_| self.err("a previous store operation panicked"))?.values().cloned().collect();
        for s in shards {
            if optimize {
                s.optimize()?;
            }
            s.flush()?;
        }
        Ok(())
    }
}

/// How far from 1 a stored vector's length may be: Qdrant keeps cosine
/// vectors normalised, so a vector of another length (zeros, flipped bits)
/// was not written by it. f32 rounding over 1,024 dimensions stays far below.
const UNIT_LENGTH_SLACK: f32 = 1e-3;

/// Checks the embedded store under `dir` ([`crate::stores::health`]): every
/// collection that was created loads (Qdrant reads its segments' configs,
/// id trackers and payload storage); at [`Depth::Full`] every stored vector
/// is read and must be of unit length, and each collection must hold the
/// points `expected` says the last run left (a cut id tracker reads back as
/// fewer). Qdrant keeps no checksums of its vector files: a damaged byte that
/// still decodes to a unit vector is not found. `None` when sound or absent.
pub fn verify(dir: &Path, depth: Depth, expected: Option<&std::collections::BTreeMap<String, usize>>) -> Option<StoreDamaged> {
    if !dir.is_dir() {
        return None;
    }
    for c in Collection::TREE {
        let shard_dir = dir.join(c.name());
        if !shard_dir.exists() {
            continue;
        }
        let check = || -> std::result::Result<(), String> {
            if !shard_dir.join("edge_config.json").exists() {
                return Err("edge_config.json is missing".into());
            }
            check_id_trackers(&shard_dir)?;
            let shard = EdgeShard::load(&shard_dir, None).map_err(|e| e.to_string())?;
            if depth == Depth::Full {
                let probe = Shard { shard, path: shard_dir.clone(), dims: 0 };
                let records = probe.scroll_all(true).map_err(|e| e.to_string())?;
                if let Some(want) = expected.and_then(|e| e.get(c.name())).filter(|&&want| want != records.len()) {
                    return Err(format!("holds {} points, the last run left {want}", records.len()));
                }
                for r in records {
                    // Every point git-rag writes names its file.
                    if !r.payload.get("path").is_some_and(|p| p.is_string()) {
                        return Err(format!("point {} has no path in its payload", r.id));
                    }
                    let length = r.vector.as_deref().map(|v| v.iter().map(|x| x * x).sum::<f32>().sqrt());
                    match length {
                        Some(l) if (l - 1.0).abs() <= UNIT_LENGTH_SLACK => {}
                        Some(l) => return Err(format!("point {} has a vector of length {l}, not 1", r.id)),
                        None => return Err(format!("point {} has no vector", r.id)),
                    }
                }
            }
            Ok(())
        };
        if let Err(cause) = crate::stores::panic_guard::guard(check, |panic| panic) {
            return Some(StoreDamaged::new(HealthStore::Vectors, &shard_dir, cause));
        }
    }
    None
}

/// What a segment's id tracker (`mutable_id_tracker.mappings`: a log of
/// 1-byte change type, point id, and for an insert its u32 offset) may say
/// before Qdrant replays it: a damaged offset makes the replay size its
/// tables by it, gigabytes for one flipped byte. Offsets are given out from
/// 0, one per insert; twice that and a margin is far above any it gives.
fn check_id_trackers(shard_dir: &Path) -> std::result::Result<(), String> {
    const OFFSET_MARGIN: u64 = 4096;
    let Ok(segments) = std::fs::read_dir(shard_dir.join("segments")) else { return Ok(()) };
    for segment in segments.flatten() {
        let path = segment.path().join("mutable_id_tracker.mappings");
        let Ok(log) = std::fs::read(&path) else { continue };
        let (mut at, mut inserts, mut largest) = (0usize, 0u64, 0u64);
        while at < log.len() {
            let (id_bytes, has_offset) = match log[at] {
                1 => (8, true),
                2 => (16, true),
                3 => (8, false),
                4 => (16, false),
                other => return Err(format!("{}: change type {other:#04x} at byte {at} is not one Qdrant writes", path.display())),
            };
            let end = at + 1 + id_bytes + if has_offset { 4 } else { 0 };
            // A cut last entry is Qdrant's to drop (it does, on load).
            let Some(entry) = log.get(at..end) else { break };
            if has_offset {
                let offset = u32::from_le_bytes([entry[1 + id_bytes], entry[2 + id_bytes], entry[3 + id_bytes], entry[4 + id_bytes]]);
                inserts += 1;
                largest = largest.max(u64::from(offset));
            }
            at = end;
        }
        if largest > 2 * inserts + OFFSET_MARGIN {
            return Err(format!("{}: point offset {largest} after {inserts} inserts", path.display()));
        }
    }
    Ok(())
}

/// Removes the collections under `dir` (a damaged store, before it is filled again).
pub fn destroy(dir: &Path) -> std::io::Result<()> {
    for c in Collection::TREE {
        match std::fs::remove_dir_all(dir.join(c.name())) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// One collection: an embedded Qdrant shard.
pub struct Shard {
    shard: EdgeShard,
    path: PathBuf,
    dims: usize,
}

impl Shard {
    /// Opens the shard in `dir`, creating it (with its payload indexes) if
    /// absent. A shard that does not load (Qdrant's error, or its panic on a
    /// damaged file) is [`StoreError::Damaged`].
    pub fn open_or_create(dir: &Path, dims: usize, c: Collection) -> Result<Shard> {
        let damaged = |cause: String| StoreError::Damaged(StoreDamaged::new(HealthStore::Vectors, dir, cause));
        crate::stores::panic_guard::guard(|| Self::open_or_create_unguarded(dir, dims, c), damaged)
    }

    fn open_or_create_unguarded(dir: &Path, dims: usize, c: Collection) -> Result<Shard> {
        let damaged = |cause: String| StoreError::Damaged(StoreDamaged::new(HealthStore::Vectors, dir, cause));
        let engine = |e: &dyn std::fmt::Display| StoreError::Engine { place: dir.display().to_string(), message: e.to_string() };
        let shard = if dir.join("edge_config.json").exists() {
            check_id_trackers(dir).map_err(damaged)?;
            EdgeShard::load(dir, None).map_err(|e| damaged(e.to_string()))?
        } else {
            // A directory without a config is a creation that died half-way.
            if dir.exists() {
                std::fs::remove_dir_all(dir).map_err(|e| engine(&e))?;
            }
            std::fs::create_dir_all(dir).map_err(|e| engine(&e))?;
            let mut config = EdgeConfigBuilder::new().vector(DENSE, EdgeVectorParamsBuilder::new(dims, Distance::Cosine).build()).wal_enabled(false);
            if c == Collection::VectorCache {
                // (A legacy cache shard.) Only read by id: no HNSW graph to build.
                config = config.optimizers(EdgeOptimizersConfig { indexing_threshold: Some(usize::MAX / 1024), ..Default::default() });
            }
            let shard = EdgeShard::new(dir, config.build()).map_err(|e| engine(&e))?;
            for field in c.keyword_fields() {
                let field_name: JsonPath = field.parse().map_err(|_| engine(&format!("bad field name {field}")))?;
                shard
                    .update(UpdateOperation::FieldIndexOperation(FieldIndexOperations::CreateIndex(qdrant_edge::CreateIndex {
                        field_name,
                        field_schema: Some(PayloadFieldSchema::FieldType(PayloadSchemaType::Keyword)),
                    })))
                    .map_err(|e| engine(&e))?;
            }
            shard.flush().map_err(|e| engine(&e))?;
            shard
        };
        let configured = shard.config().vectors.get(DENSE).map(|v| v.size);
        if configured != Some(dims) {
            return Err(StoreError::Schema {
                place: dir.display().to_string(),
                message: format!("holds {configured:?}-dimensional vectors, the model gives {dims}"),
            });
        }
        Ok(Shard { shard, path: dir.to_path_buf(), dims })
    }

    fn err(&self, e: impl std::fmt::Display) -> StoreError {
        StoreError::Engine { place: self.path.display().to_string(), message: e.to_string() }
    }

    pub fn upsert(&self, points: Vec<Point>) -> Result<()> {
        for batch in points.chunks(1024) {
            let mut list = Vec::with_capacity(batch.len());
            for p in batch {
                if p.vector.len() != self.dims {
                    return Err(self.err(format!("point {} has {} dimensions, not {}", p.id, p.vector.len(), self.dims)));
                }
                let vector =
                    VectorStructPersisted::from(VectorStructInternal::Named(HashMap::from([(DENSE.to_string(), VectorInternal::from(p.vector.clone()))])));
                list.push(PointStructPersisted { id: PointId::NumId(p.id), vector, payload: Some(Payload::from(p.payload.clone())) });
            }
            self.shard
                .update(UpdateOperation::PointOperation(PointOperations::UpsertPoints(PointInsertOperations::PointsList(list))))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    pub fn delete_ids(&self, ids: &[u64]) -> Result<()> {
        let ids = ids.iter().map(|&i| PointId::NumId(i)).collect();
        self.shard.update(UpdateOperation::PointOperation(PointOperations::DeletePoints { ids })).map_err(|e| self.err(e))
    }

    pub fn delete(&self, filter: &Filter) -> Result<()> {
        let filter = self.filter(filter)?;
        self.shard.update(UpdateOperation::PointOperation(PointOperations::DeletePointsByFilter(filter))).map_err(|e| self.err(e))
    }

    fn filter(&self, filter: &Filter) -> Result<EdgeFilter> {
        let conditions = |of: &[(String, Vec<String>)]| -> Result<Vec<Condition>> {
            let mut out = Vec::new();
            for (field, values) in of {
                let key: JsonPath = field.parse().map_err(|_| self.err(format!("bad field name {field}")))?;
                let m = match values.as_slice() {
                    [one] => Match::new_value(ValueVariants::String(one.clone())),
                    many => Match::new_any(AnyVariants::Strings(many.iter().cloned().collect())),
                };
                out.push(Condition::Field(FieldCondition::new_match(key, m)));
            }
            Ok(out)
        };
        let must_not = conditions(&filter.must_not)?;
        Ok(EdgeFilter { must: Some(conditions(&filter.must)?), must_not: (!must_not.is_empty()).then_some(must_not), ..Default::default() })
    }

    pub fn search(&self, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<ScoredHit>> {
        let query = ScoringQuery::Vector(QueryEnum::Nearest(NamedQuery::new(VectorInternal::from(vector.to_vec()), DENSE.to_string())));
        let mut builder = QueryRequestBuilder::new(limit.max(1)).query(query).with_payload(WithPayloadInterface::Bool(true));
        if !filter.is_empty() {
            builder = builder.filter(self.filter(filter)?);
        }
        let hits = self.read(|| self.shard.query(builder.build()).map_err(|e| self.err(e)))?;
        Ok(hits
            .into_iter()
            .filter_map(|h| match h.id {
                PointId::NumId(id) => Some(ScoredHit { id, score: h.score, payload: h.payload.map(payload_map).unwrap_or_default() }),
                _ => None,
            })
            .collect())
    }

    pub fn retrieve(&self, ids: &[u64], with_vectors: bool) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        for batch in ids.chunks(4096) {
            let request = RetrieveRequestBuilder::new(batch.iter().map(|&i| PointId::NumId(i)).collect())
                .with_vector(WithVector::Bool(with_vectors))
                .with_payload(WithPayloadInterface::Bool(!with_vectors))
                .build();
            let records = self.read(|| self.shard.retrieve(request).map_err(|e| self.err(e)))?;
            out.extend(records.into_iter().filter_map(record));
        }
        Ok(out)
    }

    pub fn scroll_all(&self, with_vectors: bool) -> Result<Vec<Record>> {
        let mut out = Vec::new();
        let mut offset = None;
        loop {
            let mut b = ScrollRequestBuilder::new().limit(1024).with_payload(WithPayloadInterface::Bool(true)).with_vector(WithVector::Bool(with_vectors));
            if let Some(o) = offset {
                b = b.offset(o);
            }
            let (records, next) = self.read(|| self.shard.scroll(b.build()).map_err(|e| self.err(e)))?;
            out.extend(records.into_iter().filter_map(record));
            match next {
                Some(n) => offset = Some(n),
                None => return Ok(out),
            }
        }
    }

    pub fn count(&self) -> Result<usize> {
        let request = qdrant_edge::CountRequestBuilder::new().exact(true).build();
        self.read(|| self.shard.count(request).map_err(|e| self.err(e)))
    }

    /// Runs a read of the shard's files: Qdrant panics on some damaged
    /// ones (a status file cut short), which is [`StoreError::Damaged`].
    fn read<T>(&self, read: impl FnOnce() -> Result<T>) -> Result<T> {
        crate::stores::panic_guard::guard(read, |panic| StoreError::Damaged(StoreDamaged::new(HealthStore::Vectors, &self.path, panic)))
    }

    pub fn flush(&self) -> Result<()> {
        self.shard.flush().map_err(|e| self.err(e))
    }

    /// Builds indexes over what was written (no background workers in the embedded engine).
    pub fn optimize(&self) -> Result<()> {
        self.shard.optimize().map(|_| ()).map_err(|e| self.err(e))
    }
}

fn record(r: qdrant_edge::Record) -> Option<Record> {
    let PointId::NumId(id) = r.id else { return None };
    let vector = match r.vector {
        Some(VectorStructInternal::Named(mut named)) => match named.remove(DENSE) {
            Some(VectorInternal::Dense(v)) => Some(v),
            _ => None,
        },
        _ => None,
    };
    Some(Record { id, vector, payload: r.payload.map(payload_map).unwrap_or_default() })
}

fn payload_map(p: Payload) -> Map<String, Value> {
    serde_json::to_value(p).ok().and_then(|v| v.as_object().cloned()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(id: u64, v: [f32; 4], path: &str) -> Point {
        let mut payload = Map::new();
        payload.insert("path".into(), path.into());
        payload.insert("kind".into(), "function".into());
        Point { id, vector: v.to_vec(), payload, text: None }
    }

    #[test]
    fn readers_share_writers_exclude() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("qdrant");
        {
            let w = EdgeStore::open(&d, &dir.path().join("vectors"), 4, "m", Access::Write, Duration::ZERO).unwrap();
            w.upsert(Collection::Semantic, vec![point(1, [1.0, 0.0, 0.0, 0.0], "a.py")]).unwrap();
            let busy = EdgeStore::open(&d, &dir.path().join("vectors"), 4, "m", Access::Read, Duration::from_millis(50))
                .err()
                .map(|e| e.to_string())
                .unwrap_or_default();
            assert!(busy.contains("busy"), "{busy}");
            w.commit(true).unwrap();
        }
        // A reopen waits: a process another test forks while the lock is held
        // shares the lock until it execs.
        let reopen_wait = Duration::from_secs(10);
        let r1 = EdgeStore::open(&d, &dir.path().join("vectors"), 4, "m", Access::Read, reopen_wait).unwrap();
        let r2 = EdgeStore::open(&d, &dir.path().join("vectors"), 4, "m", Access::Read, reopen_wait).unwrap();
        assert_eq!(r1.count(Collection::Semantic).unwrap(), 1);
        assert_eq!(r2.count(Collection::Semantic).unwrap(), 1, "two readers at once");
        assert_eq!(r1.count(Collection::Files).unwrap(), 0, "a collection never written reads as empty");
        assert!(EdgeStore::open(&d, &dir.path().join("vectors"), 4, "m", Access::Write, Duration::from_millis(50)).is_err(), "a writer waits for readers");
        drop((r1, r2));
        let err = EdgeStore::open(&d, &dir.path().join("vectors"), 8, "m", Access::Read, reopen_wait)
            .unwrap()
            .count(Collection::Semantic)
            .err()
            .map(|e| e.to_string());
        assert!(err.unwrap_or_default().contains("git rag index --full"));
    }
}
