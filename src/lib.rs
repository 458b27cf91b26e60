//! git-rag: a retrieval index of a git repository that follows its commits.
//!
//! The library does the work and never prints; frontends (the `git-rag`
//! binary: CLI, MCP server, hooks runner) parse their input, call what this
//! facade exports, and render. Progress and notices reach the caller through
//! a [`Progress`] sink it passes in. See `ARCHITECTURE.md` for the code map
//! and the dependency direction (bottom up): analysis ← stores ← graph,
//! semantic ← index ← worktree ← query ← ask ← frontends.
//!
//! Public modules are reusable building blocks with their own API (chunking,
//! embedding, the vector stores, git access); everything else is private and
//! reached through the re-exports below.

pub mod analysis;
pub mod ask;
pub mod git;
pub mod semantic;
pub mod stores;

mod endpoint;
mod env;
mod graph;
mod impact;
mod index;
mod progress;
mod query;
mod settings;
mod status;
mod worktree;

pub mod hooks;

pub use analysis::kind::Kind;
pub use analysis::lang::Language;
pub use ask::{AskError, AskRequest, Asked, Citation};
pub use graph::{dump_graph, load_patterns};
pub use impact::{
    run as impact, ChangeKind, ChangedCode, Evidence, Impact, ImpactError, ImpactRequest, ImpactTarget, ImpactedCode, Omitted, Relation as ImpactRelation,
    TestToRun, Tier as TestTier,
};
pub use index::ci::{run as index_ci, CiOptions, CiReport};
pub use index::gc::server::{gc_server, ServerGcReport};
pub use index::gc::{gc, GcReport};
pub use index::history::{HistoryOptions, HistoryReport, DEFAULT_HISTORY_DEPTH};
pub use index::{run as index, IndexError, IndexOptions, MemoryBounds, Outcome as IndexOutcome, Report as IndexReport, SemanticOptions};
pub use progress::{Progress, RunSize, Silent, Step};
pub use query::answer::explain::{Contribution, Explanation, Moved, RankedBy};
pub use query::answer::{Answer, FileChunk, FileHit, Hit, Origin, QueryError, Response};
pub use query::base::features::meaning_of as feature_meaning;
pub use query::context::Context;
pub use query::history::{run as history, CommitAnswer, HistoryAnswer, HistoryError, HistoryRequest, Reach as HistoryReach};
pub use query::options::{kind_named, HybridOptions, Mode, QueryOptions, DEFAULT_WINDOW};
pub use query::question::intent::Relation;
pub use query::sources::engine::{Engine, SemanticSetup};
pub use query::sources::server::{Server as QueryServer, ServerQueryError};
pub use query::sources::warm::{WarmEngine, WarmStatus};
pub use query::{
    compare_worktree_early, index_notices, indexed_state, open_engine, run as query, short, Outcome as QueryOutcome, Output as QueryOutput,
    Request as QueryRequest, Target as QueryTarget,
};
pub use semantic::dump::dump_vectors;
pub use settings::{collection_prefix, Overrides, SettingsError, Workspace};
pub use status::{collect as collect_status, SkippedFile, Status, StatusError, WorktreeStatus};
pub use stores::health::{Store, StoreDamaged};
pub use stores::panic_guard::panic_is_caught;
pub use stores::state::dump_state;
pub use stores::state::now_secs;
pub use stores::vector::server::ServerOptions;
pub use stores::vector::Backend;
pub use worktree::{scan as scan_worktree, Change as WorktreeChange, Comparison as WorktreeComparison, Layer, LayerFile, LayerOptions, Watch, WorktreeError};
