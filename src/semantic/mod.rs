//! The semantic layer: the embedding model (install, load, embed; or an
//! OpenAI-compatible endpoint), what is
//! embedded for each chunk / symbol / file, syncing vectors into a store
//! through the (model, text) cache, and the optional reranker (an endpoint or
//! a local cross-encoder).

pub mod api;
pub mod docs;
pub mod dump;
pub mod embed;
pub mod integer_graph;
pub mod model;
pub mod pending;
pub mod rerank;
mod rerank_api;
pub mod shared_cache;
pub mod sync;
