//! The integration tests that need no Qdrant server, in one binary (as
//! ripgrep keeps them): every file named here is a module, and they share
//! `common/`. One binary links tantivy, qdrant-edge, ort and gix once instead
//! of once per file. The server tests are the `qdrant` binary (`qdrant.rs`).

mod common;

mod architecture;
mod ask;
mod bad_input;
mod chunker;
mod cli;
mod embed;
mod embed_api;
mod faults;
mod fuzz_chunk;
mod fuzz_parse_chunk;
mod git_history;
mod hooks;
mod http_api;
mod hybrid;
mod incremental;
mod languages;
mod linked_worktrees;
mod mcp;
mod missing_objects;
mod path_rules;
mod rerank_api;
mod semantic;
mod state_schema;
mod worktree;
