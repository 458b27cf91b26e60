//! Where a run's record lives, behind one small trait: the local state file
//! with its journal (`.rag_index_state.json`, `.rag_index_pending.json`), or
//! the state collection in the Qdrant server (`git rag index --ci`). Both
//! pipelines use it the same way around the stores: `load` at the start, the
//! journal before any store changes, `commit` after every store committed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::stores::server_state::{load_state, save_state, ServerState, ServerStateError, SERVER_STATE_VERSION};
use crate::stores::state::{IndexState, PendingRun, StateError, STATE_FILE};
use crate::stores::vector::server::ServerStore;

/// The record of the index: its state, and the journal of a run under way.
pub trait RunRecord {
    type State;
    type Error;
    /// The state of the last completed run, and whether a run was interrupted.
    fn load(&self) -> Result<Option<Self::State>, Self::Error>;
    /// Records, before any store changes, that a run heading for `target`
    /// is about to change `paths` (everything, when `full`).
    fn journal(&self, previous: &Self::State, target: &str, full: bool, paths: &BTreeSet<String>) -> Result<(), Self::Error>;
    /// Writes the new state, atomically, and drops the journal.
    fn commit(&self, state: &Self::State) -> Result<(), Self::Error>;
}

/// The local index dir's record.
pub struct LocalRecord {
    dir: PathBuf,
}

impl LocalRecord {
    pub fn new(index_dir: &Path) -> LocalRecord {
        LocalRecord { dir: index_dir.to_path_buf() }
    }

    /// The interrupted run's journal, if one is there.
    pub fn pending(&self) -> Option<PendingRun> {
        PendingRun::load(&self.dir)
    }
}

impl RunRecord for LocalRecord {
    type State = IndexState;
    type Error = StateError;

    fn load(&self) -> Result<Option<IndexState>, StateError> {
        IndexState::load(&self.dir.join(STATE_FILE))
    }

    /// The local journal holds the target only: the next run re-derives the
    /// paths from the two tree diffs (see ARCHITECTURE.md, invariant 3).
    fn journal(&self, _previous: &IndexState, target: &str, full: bool, _paths: &BTreeSet<String>) -> Result<(), StateError> {
        PendingRun { target: target.to_string(), full }.save(&self.dir)
    }

    fn commit(&self, state: &IndexState) -> Result<(), StateError> {
        state.save(&self.dir.join(STATE_FILE))?;
        PendingRun::clear(&self.dir)
    }
}

/// The server's record of one collection prefix. There is no history to
/// diff on a CI clone, so its journal holds the paths themselves.
pub struct ServerRecord<'a> {
    pub store: &'a ServerStore,
}

impl RunRecord for ServerRecord<'_> {
    type State = ServerState;
    type Error = ServerStateError;

    fn load(&self) -> Result<Option<ServerState>, ServerStateError> {
        load_state(self.store)
    }

    fn journal(&self, previous: &ServerState, _target: &str, full: bool, paths: &BTreeSet<String>) -> Result<(), ServerStateError> {
        let mut journal = previous.clone();
        journal.version = SERVER_STATE_VERSION;
        journal.pending = paths.clone();
        journal.pending_full = full;
        save_state(self.store, &journal)
    }

    fn commit(&self, state: &ServerState) -> Result<(), ServerStateError> {
        save_state(self.store, state)
    }
}
