//! The index state of `git rag index --ci`, kept in the Qdrant server beside
//! the collections (`<prefix>_state`): the last indexed commit and every
//! file's blob id and pattern instances. Read by CI runs and by queries that
//! answer from the server alone.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::analysis::patterns::PatternInstance;
use crate::stores::vector::server::ServerStore;

#[derive(Debug, thiserror::Error)]
pub enum ServerStateError {
    #[error(transparent)]
    Store(#[from] crate::stores::vector::StoreError),
    #[error("the index state in the Qdrant server ({collection}) cannot be read: {message}. Re-index in full with `--full`")]
    Bad { collection: String, message: String },
}

/// Version of [`ServerState`]; another version means a full run.
pub const SERVER_STATE_VERSION: u32 = 1;

/// The state kept in the server for one collection prefix.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerState {
    pub version: u32,
    #[serde(with = "crate::git::hex_id::option")]
    pub last_commit: Option<gix::ObjectId>,
    /// [`crate::index::config_hash`] of the chunking options.
    pub config_hash: String,
    pub model: String,
    pub dims: usize,
    /// [`crate::semantic::docs::RECIPE`] of the vectors (0: before it was recorded).
    #[serde(default)]
    pub recipe: u32,
    pub files: BTreeMap<String, ServerFile>,
    /// Paths a run was changing when it stopped: the next run redoes them.
    #[serde(default)]
    pub pending: BTreeSet<String>,
    /// A full run was interrupted: the next run is full too.
    #[serde(default)]
    pub pending_full: bool,
    pub updated_at: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerFile {
    pub blob: String,
    #[serde(default)]
    pub patterns: Vec<PatternInstance>,
}

/// Reads the state kept in the server (`None` when there is none).
pub fn load_state(store: &ServerStore) -> Result<Option<ServerState>, ServerStateError> {
    let Some(text) = store.load_state()? else { return Ok(None) };
    serde_json::from_str(&text).map(Some).map_err(|e| ServerStateError::Bad { collection: store.state_collection(), message: e.to_string() })
}

pub fn save_state(store: &ServerStore, state: &ServerState) -> Result<(), ServerStateError> {
    let text = serde_json::to_string(state).map_err(|e| ServerStateError::Bad { collection: store.state_collection(), message: e.to_string() })?;
    Ok(store.save_state(&text)?)
}
