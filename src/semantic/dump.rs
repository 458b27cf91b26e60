//! `git rag dump-vectors`: every point of the vector store's tree
//! collections, sorted, with vectors as short digests, to compare two indexes.

use std::path::Path;
use std::time::Duration;

use crate::semantic::embed;
use crate::stores::server_state::{load_state, ServerStateError};
use crate::stores::state::{IndexState, StateError, STATE_FILE};
use crate::stores::vector::edge::Access;
use crate::stores::vector::server::ServerStore;
use crate::stores::vector::{Backend, Collection, StoreError, VectorStore};

#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error(transparent)]
    State(#[from] StateError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    ServerState(#[from] ServerStateError),
    #[error(transparent)]
    Model(#[from] embed::EmbedError),
    #[error("the Qdrant server holds no index under `{0}`")]
    NoServerIndex(String),
    #[error("the index has no semantic layer")]
    NoSemanticLayer,
}

/// The points of the index in `index_dir` (or, without a local index, of
/// what `git rag index --ci` keeps in the server), as a JSON object of
/// collection name → sorted points.
pub fn dump_vectors(index_dir: &Path, backend: &Backend) -> Result<serde_json::Value, DumpError> {
    let state = IndexState::load(&index_dir.join(STATE_FILE))?;
    let store: Box<dyn VectorStore> = match (state.and_then(|s| s.semantic), backend) {
        (Some(sem), _) => backend.open(index_dir, sem.dims, &sem.model, Access::Read, Duration::from_secs(30))?,
        (None, Backend::Server(server)) => {
            let manifest = embed::ModelSource::default_onnx().identify()?;
            let store = ServerStore::connect(server.clone(), manifest.dims, &manifest.id)?;
            if load_state(&store)?.is_none() {
                return Err(DumpError::NoServerIndex(server.prefix.clone()));
            }
            Box::new(store)
        }
        (None, Backend::Embedded { .. }) => return Err(DumpError::NoSemanticLayer),
    };
    let mut out = serde_json::Map::new();
    for c in Collection::TREE {
        let mut records = store.scroll_all(c, true)?;
        records.sort_by_key(|r| r.id);
        let list: Vec<serde_json::Value> = records
            .into_iter()
            .map(|r| {
                // Vectors rounded to 4 decimals, then hashed: equal embeddings compare equal.
                let digest = r.vector.map(|v| {
                    let text: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
                    blake3::hash(text.join(",").as_bytes()).to_hex()[..16].to_string()
                });
                serde_json::json!({"id": r.id, "vector": digest, "payload": r.payload})
            })
            .collect();
        out.insert(c.name().to_string(), list.into());
    }
    Ok(serde_json::Value::Object(out))
}
