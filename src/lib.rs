//! git-rag: a retrieval index of a git repository that follows its commits.
//!
//! See `ARCHITECTURE.md` for the code map. In short: [`git`] reads trees and
//! blobs, [`parse`] and [`chunk`] turn files into symbols and chunks,
//! [`keyword`] stores them in tantivy, [`index`] drives an update from the
//! last indexed commit to the target, [`state`] records what the index
//! holds, [`search`] answers queries and [`config`] resolves options.
//! [`embed`] runs an ONNX embedding model; [`model`] installs the default one.
//! [`semantic`] decides what is embedded, [`vectors`] embeds what the cache
//! lacks and writes the [`store`] (Qdrant, embedded or on a server).
//! [`hooks`] installs the git hooks and runs their background index updates.

pub mod chunk;
pub mod ci;
pub mod config;
pub mod context;
pub mod embed;
pub mod git;
pub mod graph;
pub mod hooks;
pub mod hybrid;
pub mod index;
pub mod intent;
pub mod keyword;
pub mod lang;
pub mod mcp;
pub mod model;
pub mod parse;
pub mod patterns;
pub mod rerank;
pub mod search;
pub mod semantic;
pub mod state;
pub mod store;
pub mod vectors;
