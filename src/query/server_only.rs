//! A query answered from a Qdrant server's collections alone, without a
//! local index: the dense retriever over what `git rag index --ci` built.

use std::time::Instant;

use super::retrievers::{self, Mode, Response};
use crate::progress::millis;
use crate::semantic::embed::{self, EmbedOptions, Embedder, ModelSource};
use crate::stores::server_state::{load_state, ServerStateError};
use crate::stores::vector::server::{ServerOptions, ServerStore};

#[derive(Debug, thiserror::Error)]
pub enum ServerQueryError {
    #[error("{what} needs a local index (`git rag index`); without one only the server's vectors answer (--mode semantic or hybrid)")]
    NeedsLocalIndex { what: &'static str },
    #[error("a query of the server's vectors embeds the query locally: {0}")]
    Model(#[source] embed::EmbedError),
    #[error(transparent)]
    Store(#[from] crate::stores::vector::StoreError),
    #[error(transparent)]
    State(#[from] ServerStateError),
    #[error(
        "there is no local index, and the Qdrant server holds no index under `{prefix}` (index it with `git rag index --ci`, or pick the branch with --branch)"
    )]
    NoServerIndex { prefix: String },
    #[error("the server's vectors are from model `{server}`, the installed model is `{installed}`")]
    ModelMismatch { server: String, installed: String },
    #[error(transparent)]
    Embed(#[from] embed::EmbedError),
    #[error(transparent)]
    Search(#[from] retrievers::SearchError),
}

/// Fails early for what only a local index can do (`what` names the option).
pub fn check_supported(mode: Mode, context: bool) -> Result<(), ServerQueryError> {
    let what = match mode {
        Mode::Hybrid | Mode::Semantic if context => "--context",
        Mode::Hybrid | Mode::Semantic => return Ok(()),
        Mode::Keyword => "--mode keyword",
        Mode::Symbol => "--mode symbol",
        Mode::Graph => "--mode graph",
    };
    Err(ServerQueryError::NeedsLocalIndex { what })
}

/// Connects to the server and checks it holds an index of the configured model;
/// returns the store and the indexed commit.
pub fn connect(server: &ServerOptions, model: &ModelSource) -> Result<(ServerStore, Option<String>, std::collections::BTreeSet<String>), ServerQueryError> {
    let manifest = model.identify().map_err(ServerQueryError::Model)?;
    let store = ServerStore::connect(server.clone(), manifest.dims, &manifest.id)?;
    let Some(state) = load_state(&store)? else {
        return Err(ServerQueryError::NoServerIndex { prefix: server.prefix.clone() });
    };
    if state.model != manifest.id {
        return Err(ServerQueryError::ModelMismatch { server: state.model, installed: manifest.id });
    }
    Ok((store, state.last_commit, state.files.into_keys().collect()))
}

/// Dense retrieval over the server's collections for `query` (its mode is
/// taken as semantic).
pub fn search(store: &ServerStore, paths: &std::collections::BTreeSet<String>, text: &str, query: &retrievers::QueryOptions, model: &ModelSource) -> Result<Response, ServerQueryError> {
    let started = Instant::now();
    let embedder = Embedder::open(model, EmbedOptions { optimize_graph: false, ..EmbedOptions::default() })?;
    let vector = embedder.embed_query_for(text, store.dims())?;
    let mut query = query.clone();
    query.mode = Mode::Semantic;
    let mut response = retrievers::semantic_search(store, &vector, text, &query, paths.iter())?;
    response.took_ms = millis(started);
    Ok(response)
}
