//! Where the index lives on disk or on a server: the tantivy keyword index,
//! the vector stores (embedded Qdrant or a server), the history store, and
//! the index state.

pub mod files_store;
pub mod fs;
pub mod health;
pub mod history;
pub mod keyword;
pub mod panic_guard;
pub mod redb_handle;
pub mod server_state;
pub mod state;
pub mod vector;
