//! Vectors borrowed from a team's Qdrant server (`git config rag.vectorCache
//! server`): a local index asks the server's vector cache for the (model,
//! text) keys its own cache lacks, before embedding anything, and embeds only
//! what nobody on the server has embedded. CI fills that cache on every push
//! (`git rag index --ci`), so a developer's first index of a pushed commit
//! embeds almost nothing.
//!
//! The server cache is a cache: when it cannot be reached, or fails midway,
//! the run embeds locally and says why. It is only written when asked
//! (`--share-vectors` / `rag.vectorCacheWrite`): a laptop's vectors reach the
//! team only by choice.

use std::collections::HashMap;

use crate::stores::vector::server::{ServerOptions, ServerStore};
use crate::stores::vector::{Collection, Point, StoreError, VectorStore};

/// Where the team's cache is, and whether this run may add to it.
#[derive(Debug, Clone)]
pub struct SharedCacheOptions {
    pub server: ServerOptions,
    /// Upsert what this run embedded into the server's cache.
    pub write_back: bool,
}

/// A connection to the server's cache of one model and size.
pub struct SharedCache {
    /// `None`: the server holds no cache of this model yet (and this run does
    /// not write one).
    store: Option<ServerStore>,
    write_back: bool,
    url: String,
}

impl SharedCache {
    /// Connects; creates the server's cache only when writing back.
    pub fn connect(opts: &SharedCacheOptions, dims: usize, model: &str) -> Result<SharedCache, StoreError> {
        let store = ServerStore::connect_cache(opts.server.clone(), dims, model, opts.write_back)?;
        Ok(SharedCache { store, write_back: opts.write_back, url: opts.server.url.clone() })
    }

    /// The server, for messages.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The vectors the server holds of these cache ids (batched requests).
    pub fn lookup(&self, ids: &[u64]) -> Result<HashMap<u64, Vec<f32>>, StoreError> {
        match &self.store {
            Some(store) if !ids.is_empty() => store.vectors(Collection::VectorCache, ids),
            _ => Ok(HashMap::new()),
        }
    }

    /// Adds freshly embedded vectors to the server's cache, when this run may.
    /// Returns how many were written.
    pub fn offer(&self, points: &[Point]) -> Result<usize, StoreError> {
        match &self.store {
            Some(store) if self.write_back && !points.is_empty() => {
                store.upsert(Collection::VectorCache, points.to_vec())?;
                Ok(points.len())
            }
            _ => Ok(0),
        }
    }
}
