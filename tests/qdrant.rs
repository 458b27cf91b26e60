//! The tests of the team features against a real Qdrant server: CI indexing,
//! borrowing the team's vectors, server gc, a server that dies mid-run, the
//! server store's contract. `scripts/test.sh` starts one from
//! `../shared/qdrant/qdrant` and sets `QDRANT_URL` and
//! `GIT_RAG_TEST_QDRANT_BIN`; without them these tests say "skipped", and
//! under `CI=true` they fail instead (see `common::qdrant_url`).

mod common;

mod ci_index;
mod server;
mod server_faults;
mod server_gc;
mod store;
mod team_cache;
