//! The vector store: Qdrant collections FILES, SYMBOLS, SEMANTIC, PATTERNS
//! and a vector cache, behind one trait with two backends:
//!
//! - [`edge::EdgeStore`]: Qdrant's own engine in-process (`qdrant-edge`), one
//!   shard per collection under `<index>/qdrant/`. The default.
//! - [`server::ServerStore`]: a Qdrant server over gRPC (`qdrant-client`),
//!   chosen by `--qdrant-url` / `QDRANT_URL` / `git config rag.qdrantUrl`.
//!
//! Both hold the same collections with the same payloads and the same point
//! ids, and run the same tests (`tests/store.rs`).
//!
//! Every collection has one named dense vector ([`DENSE`]) and keyword payload
//! indexes on the fields it is filtered by. Point ids are 64 bits of a
//! content-derived id, so replaying an update upserts the same points. The
//! vector cache is keyed by [`crate::semantic::docs::vector_key`] (model + text), is
//! never pruned by file changes, and is what makes a rename, a revert or a
//! branch switch embed nothing.

pub mod cache;
pub mod edge;
pub mod memory;
pub mod server;

use std::collections::HashMap;

use serde_json::{Map, Value};

/// Name of the dense vector in every collection.
pub const DENSE: &str = "dense";
/// Name of the sparse BM25 vector (server backend; the server computes it).
pub const SPARSE: &str = "bm25";

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("the vector store failed ({place}: {})", crate::stores::health::one_line(message, 240))]
    Engine { place: String, message: String },
    #[error("the vector store holds vectors of another shape; rebuild with `git rag index --full` ({place}: {message})")]
    Schema { place: String, message: String },
    #[error("the vector store at {place} is busy: another process is writing it (waited {waited_ms} ms)")]
    Busy { place: String, waited_ms: u128 },
    #[error("cannot reach the Qdrant server at {url}: {message}")]
    Unreachable { url: String, message: String },
    /// The embedded store's files do not load as Qdrant wrote them.
    #[error("{0}")]
    Damaged(#[from] crate::stores::health::StoreDamaged),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// The collections, with what each one is filtered by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Collection {
    /// One point per file: its outline.
    Files,
    /// One point per definition: its header (kind, name, signature, doc).
    Symbols,
    /// One point per chunk: contextual header plus code.
    Semantic,
    /// Project conventions (mined by a later layer; created with its schema).
    Patterns,
    /// Vectors by (model, text) key; payload-free.
    VectorCache,
}

impl Collection {
    /// The collections that mirror the indexed tree (not the cache).
    pub const TREE: [Collection; 4] = [Collection::Files, Collection::Symbols, Collection::Semantic, Collection::Patterns];

    pub fn name(self) -> &'static str {
        match self {
            Collection::Files => "files",
            Collection::Symbols => "symbols",
            Collection::Semantic => "semantic",
            Collection::Patterns => "patterns",
            Collection::VectorCache => "vector_cache",
        }
    }

    /// Payload fields with a keyword index (the fields filters use).
    pub fn keyword_fields(self) -> &'static [&'static str] {
        match self {
            Collection::Files => &["path", "language", "filename"],
            Collection::Symbols => &["path", "language", "kind", "name", "name_lower", "parent", "calls", "bases"],
            Collection::Semantic => &["path", "language", "kind", "symbol"],
            Collection::Patterns => &["path", "language", "kind", "key"],
            Collection::VectorCache => &[],
        }
    }
}

/// A point to upsert.
#[derive(Debug, Clone, PartialEq)]
pub struct Point {
    pub id: u64,
    pub vector: Vec<f32>,
    pub payload: Map<String, Value>,
    /// Text for the server's sparse BM25 vector, where the collection has one
    /// ([`crate::semantic::docs::bm25_text`]).
    pub text: Option<String>,
}

/// A stored point, as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub id: u64,
    pub vector: Option<Vec<f32>>,
    pub payload: Map<String, Value>,
}

/// A search hit.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredHit {
    pub id: u64,
    pub score: f32,
    pub payload: Map<String, Value>,
}

/// Conditions that all must hold: each field equals one of its values.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// `field ∈ values`, each of them.
    pub must: Vec<(String, Vec<String>)>,
    /// `field ∉ values`, each of them.
    pub must_not: Vec<(String, Vec<String>)>,
}

impl Filter {
    pub fn is_empty(&self) -> bool {
        self.must.is_empty() && self.must_not.is_empty()
    }

    /// Adds `field ∉ values` (nothing when `values` is empty).
    pub fn none_of(mut self, field: &str, values: Vec<String>) -> Filter {
        if !values.is_empty() {
            self.must_not.push((field.to_string(), values));
        }
        self
    }

    /// Adds `field ∈ values`.
    pub fn any_of(mut self, field: &str, values: Vec<String>) -> Filter {
        self.must.push((field.to_string(), values));
        self
    }
}

/// A vector store: the same operations, embedded or on a server.
pub trait VectorStore: Send + Sync {
    /// `embedded (<dir>)` or `server (<url>, prefix <p>)`, for messages.
    fn describe(&self) -> String;
    /// Dimensions of the vectors (the model's).
    fn dims(&self) -> usize;
    /// Inserts or replaces points.
    fn upsert(&self, c: Collection, points: Vec<Point>) -> Result<()>;
    /// Deletes every point whose `path` is one of `paths`.
    fn delete_paths(&self, c: Collection, paths: &[String]) -> Result<()>;
    /// Deletes the points with these ids (those that exist).
    fn delete_ids(&self, c: Collection, ids: &[u64]) -> Result<()>;
    /// Deletes every point of a collection (a full rebuild).
    fn clear(&self, c: Collection) -> Result<()>;
    /// The `limit` nearest points to `vector` that pass `filter`.
    fn search(&self, c: Collection, vector: &[f32], filter: &Filter, limit: usize) -> Result<Vec<ScoredHit>>;
    /// The points with these ids that exist, with or without their vectors.
    fn retrieve(&self, c: Collection, ids: &[u64], with_vectors: bool) -> Result<Vec<Record>>;
    /// Every point of a collection (for checks and dumps; not for large scans in a query).
    fn scroll_all(&self, c: Collection, with_vectors: bool) -> Result<Vec<Record>>;
    /// Exact number of points.
    fn count(&self, c: Collection) -> Result<usize>;
    /// Makes everything written durable; `optimize` also builds the search indexes.
    fn commit(&self, optimize: bool) -> Result<()>;

    /// Whether points' `text` is used (a server's sparse BM25 vectors); when
    /// not, a writer need not make it.
    fn keeps_text(&self) -> bool {
        false
    }

    /// Gets these collections ready to search now (an embedded store loads
    /// its shards on first use; a query loads them beside the model instead).
    fn preload(&self, _collections: &[Collection]) -> Result<()> {
        Ok(())
    }

    /// Stored vectors of the given ids (those that exist).
    fn vectors(&self, c: Collection, ids: &[u64]) -> Result<HashMap<u64, Vec<f32>>> {
        Ok(self.retrieve(c, ids, true)?.into_iter().filter_map(|r| r.vector.map(|v| (r.id, v))).collect())
    }

    /// What the store has to tell the caller since it last asked (a damaged
    /// cache segment skipped, …); the caller reports it.
    fn take_notices(&self) -> Vec<String> {
        Vec::new()
    }
}

/// 64-bit point id from a 128-bit content id (chunk id, vector key).
pub fn point_id(id: u128) -> u64 {
    (id >> 64) as u64 ^ (id as u64)
}

/// 64-bit point id of any key (symbols, files).
pub fn point_id_of(parts: &[&str]) -> u64 {
    let mut h = blake3::Hasher::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update(&[0]);
    }
    let mut b = [0u8; 8];
    b.copy_from_slice(&h.finalize().as_bytes()[..8]);
    u64::from_le_bytes(b)
}

/// A collection-name-safe form of a model id (`all-MiniLM-L6-v2` → `all_minilm_l6_v2`).
pub fn sanitize(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    s.trim_matches('_').to_string()
}

/// The collection prefix of one branch: `<repo prefix>_<branch>`.
pub fn branch_prefix(repo_prefix: &str, branch: &str) -> String {
    sanitize(&format!("{repo_prefix}_{branch}"))
}

/// Which store holds the vectors.
#[derive(Debug, Clone)]
pub enum Backend {
    /// Qdrant embedded, under `<index>/qdrant/`, with its vector cache under
    /// `vector_cache` (`None`: `<index>/vectors`). The worktrees of one
    /// repository share one cache ([`crate::settings::vector_cache_dir`]).
    Embedded { vector_cache: Option<std::path::PathBuf> },
    /// A Qdrant server.
    Server(server::ServerOptions),
}

impl Backend {
    /// What the state file records; a different store means a full rebuild.
    pub fn identity(&self) -> String {
        match self {
            Backend::Embedded { .. } => "embedded".to_string(),
            Backend::Server(o) => format!("server {} {}", o.url, o.prefix),
        }
    }

    /// The embedded store with its cache beside the index.
    pub fn embedded() -> Backend {
        Backend::Embedded { vector_cache: None }
    }

    /// Where the embedded store of the index in `index_dir` keeps its vector
    /// cache; `None` for a server.
    pub fn vector_cache_root(&self, index_dir: &std::path::Path) -> Option<std::path::PathBuf> {
        match self {
            Backend::Embedded { vector_cache } => Some(vector_cache.clone().unwrap_or_else(|| index_dir.join("vectors"))),
            Backend::Server(_) => None,
        }
    }

    /// Opens the store for vectors of `dims` dimensions from `model`.
    /// The embedded store waits up to `wait` for its lock.
    pub fn open(&self, index_dir: &std::path::Path, dims: usize, model: &str, access: edge::Access, wait: std::time::Duration) -> Result<Box<dyn VectorStore>> {
        Ok(match self {
            Backend::Embedded { vector_cache } => {
                let cache_root = vector_cache.clone().unwrap_or_else(|| index_dir.join("vectors"));
                Box::new(edge::EdgeStore::open(&index_dir.join("qdrant"), &cache_root, dims, model, access, wait)?)
            }
            Backend::Server(o) => Box::new(server::ServerStore::connect(o.clone(), dims, model)?),
        })
    }
}
