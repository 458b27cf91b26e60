//! The integration tests, in one binary (as ripgrep keeps them): every file
//! named here is a module, and they share `common/`. One binary links
//! tantivy, qdrant-edge, ort and gix once instead of once per file.
//!
//! The server tests (`ci_index`, `server`, `server_faults`, `server_gc`,
//! `store`, `team_cache`: CI indexing, borrowing the team's vectors, server
//! gc, a server that dies mid-run, the server store's contract) run against a
//! real Qdrant server: `scripts/test.sh` starts one from
//! `../shared/qdrant/qdrant` and sets `QDRANT_URL` and
//! `GIT_RAG_TEST_QDRANT_BIN`. Tests that need the server, the model or the
//! eval corpus are `#[ignore = "needs …"]`: a plain `cargo test` counts them
//! as ignored, never as passed; `scripts/test.sh` runs them
//! (`--include-ignored`), and they fail when what they need is missing.

mod common;

mod architecture;
mod ask;
mod bad_input;
mod chunker;
mod ci_index;
mod cli;
mod damage;
mod embed;
mod embed_api;
mod explain;
mod faults;
mod fuzz_chunk;
mod fuzz_parse_chunk;
mod git_history;
mod history;
mod hooks;
mod http_api;
mod hybrid;
mod impact;
mod impact_languages;
mod incremental;
mod languages;
mod linked_worktrees;
mod mcp;
mod mcp_install;
mod missing_objects;
mod package;
mod path_rules;
mod rerank_api;
mod semantic;
mod server;
mod server_faults;
mod server_gc;
mod state_schema;
mod store;
mod team_cache;
mod worktree;
