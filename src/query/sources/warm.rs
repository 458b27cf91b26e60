//! A warm [`Engine`] for a long-lived process (the MCP server): opened once,
//! reopened when a run (a hook, CI, an `index` call) moved the index, with
//! the loaded model kept across reopenings.
//!
//! Invariants:
//! - The engine is a snapshot: it is replaced as a whole when
//!   `.rag_index_state.json` changes (size or mtime), never mixed with a
//!   half-written run.
//! - A reader never blocks a writer: with the embedded store, a watcher
//!   thread closes the store as soon as an indexer announces that it waits
//!   for it (`qdrant/store.writer-waiting`); the next query reopens it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde::Serialize;

use super::engine::{Engine, SemanticSetup};
use crate::query::answer::{QueryError, QueryResult as Result};
use crate::stores::state::{IndexState, STATE_FILE};
use crate::stores::vector::Backend;

/// The state file's identity when the engine was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp { len: m.len(), modified: m.modified().ok() })
    }
}

struct Loaded {
    engine: Arc<Engine>,
    stamp: Option<Stamp>,
}

#[derive(Default)]
struct Slot {
    loaded: Mutex<Option<Loaded>>,
    stop: AtomicBool,
    /// A warm-up has finished (everything it could open is open).
    warm: AtomicBool,
}

/// What the warm engine has open, for a status report.
#[derive(Debug, Clone, Serialize)]
pub struct WarmStatus {
    pub warm: bool,
    pub engine_open: bool,
    pub engine_commit: Option<String>,
    pub model_loaded: bool,
    pub store_open: bool,
}

/// The engine of one index dir, kept open between queries.
pub struct WarmEngine {
    index_dir: PathBuf,
    semantic: Option<SemanticSetup>,
    slot: Arc<Slot>,
    watcher: Option<std::thread::JoinHandle<()>>,
    /// Events of the work tree, for the engines' work-tree layers.
    worktree: std::sync::OnceLock<Arc<crate::worktree::Watch>>,
}

impl WarmEngine {
    pub fn new(index_dir: PathBuf, semantic: Option<SemanticSetup>) -> WarmEngine {
        let slot = Arc::new(Slot::default());
        let watcher = matches!(semantic.as_ref().map(|s| &s.backend), Some(Backend::Embedded { .. })).then(|| {
            let slot = Arc::clone(&slot);
            let store_dir = index_dir.join("qdrant");
            std::thread::spawn(move || watch_writers(&slot, &store_dir))
        });
        WarmEngine { index_dir, semantic, slot, watcher, worktree: std::sync::OnceLock::new() }
    }

    /// Lets every engine from now on trust `watch` to say when the work
    /// tree moved (instead of comparing it with the index at each query).
    pub fn watch_worktree(&self, watch: Arc<crate::worktree::Watch>) {
        let _ = self.worktree.set(watch);
    }

    /// The engine for the index as it is now: reopened when a run moved it.
    pub fn current(&self) -> Result<Arc<Engine>> {
        let state_path = self.index_dir.join(STATE_FILE);
        let stamp = Stamp::of(&state_path);
        let mut slot = self.slot.loaded.lock().map_err(|_| QueryError::Poisoned)?;
        if let Some(loaded) = slot.as_ref() {
            if loaded.stamp == stamp {
                return Ok(Arc::clone(&loaded.engine));
            }
        }
        let state = IndexState::load_for_queries(&state_path)?
            .filter(|s| s.last_commit.is_some())
            .ok_or_else(|| QueryError::NoIndex { dir: self.index_dir.display().to_string() })?;
        let mut engine = Engine::open(&self.index_dir, state, self.semantic.clone())?;
        if let Some(watch) = self.worktree.get() {
            engine.layers = crate::worktree::LayerCache::watching(Arc::clone(watch));
        }
        if let Some(old) = slot.take() {
            // The model is the same file whatever the index: keep it loaded.
            if let Some(model) = old.engine.embedder() {
                engine.adopt_embedder(model);
            }
            old.engine.release_store();
        }
        let engine = Arc::new(engine);
        *slot = Some(Loaded { engine: Arc::clone(&engine), stamp });
        Ok(engine)
    }

    /// Opens the index, the graph and the model now, so that the first query
    /// costs search time only. Problems are returned, not fatal.
    pub fn warm(&self) -> Vec<String> {
        let problems = match self.current() {
            Ok(e) => e.warm(),
            Err(e) => vec![e.to_string()],
        };
        self.slot.warm.store(true, Ordering::Relaxed);
        problems
    }

    /// Closes the vector store (an indexer in this process is about to write it).
    pub fn release_store(&self) {
        if let Ok(slot) = self.slot.loaded.lock() {
            if let Some(l) = slot.as_ref() {
                l.engine.release_store();
            }
        }
    }

    pub fn status(&self) -> WarmStatus {
        let loaded = self.slot.loaded.lock().ok().and_then(|l| l.as_ref().map(|l| Arc::clone(&l.engine)));
        WarmStatus {
            warm: self.slot.warm.load(Ordering::Relaxed),
            engine_open: loaded.is_some(),
            engine_commit: loaded.as_ref().and_then(|e| e.state().last_commit.map(|c| c.to_string())),
            model_loaded: loaded.as_ref().is_some_and(|e| e.embedder().is_some()),
            store_open: loaded.as_ref().is_some_and(|e| e.store_open()),
        }
    }
}

impl Drop for WarmEngine {
    fn drop(&mut self) {
        self.slot.stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }
}

/// Closes the embedded store whenever an indexer waits to write it.
fn watch_writers(slot: &Slot, store_dir: &Path) {
    while !slot.stop.load(Ordering::Relaxed) {
        if crate::stores::vector::edge::writer_waiting(store_dir) {
            if let Ok(loaded) = slot.loaded.try_lock() {
                if let Some(l) = loaded.as_ref() {
                    l.engine.release_store();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}
