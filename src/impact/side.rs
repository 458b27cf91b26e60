//! The two sides of a change, each held as the files where it differs from
//! the indexed commit. A side's graph is the index's with those files
//! replaced — the overlay the work-tree layer uses, so the work-tree form
//! and `A..B` of the same diff walk the same graph — and a file's text on a
//! side is its own where it differs, else the indexed blob.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use gix::ObjectId;

use super::ImpactError;
use crate::analysis::chunk::{self, FileChunks};
use crate::analysis::lang;
use crate::git::{BlobReader, Change, EntryKind, Repo, TreeFile};
use crate::graph::{FileFacts, GraphStore, Overlay};
use crate::index::paths::PathFilter;
use crate::stores::state::IndexState;
use crate::worktree::{self, LayerOptions};

/// What a side is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Snapshot {
    /// The commit the index holds.
    Indexed,
    /// A commit's tree.
    Commit(ObjectId),
    /// Nothing: the side before a root commit.
    Empty,
    /// Git's index (the staging area).
    Staged,
    /// The work tree, as the query layer reads it.
    WorkTree,
}

/// A file's bytes on a side; `None`: the side has no such file (or none the
/// index would hold: a binary, a file over the size cap, an excluded path).
pub(crate) type Content = Option<Arc<Vec<u8>>>;

/// One side of the change.
pub(crate) struct Side {
    /// Path → content where the side differs from the indexed commit.
    delta: BTreeMap<String, Content>,
    /// Paths that differ but are not analysed, and why.
    pub skipped: Vec<(String, String)>,
    /// Files of the work tree that differ past its layer's limit, left out.
    pub over_cap: usize,
    chunks: RefCell<HashMap<String, Option<Arc<FileChunks>>>>,
}

/// What the sides read from: the repository, the index, the index's own
/// analysis options and path rules.
pub(crate) struct Sources<'a> {
    pub repo: &'a Repo,
    pub state: &'a IndexState,
    pub index_dir: &'a Path,
    pub layer: &'a LayerOptions,
    blobs: BlobReader,
    indexed: RefCell<HashMap<String, Content>>,
}

impl<'a> Sources<'a> {
    pub fn new(repo: &'a Repo, state: &'a IndexState, index_dir: &'a Path, layer: &'a LayerOptions) -> Sources<'a> {
        Sources { repo, state, index_dir, layer, blobs: BlobReader::new(repo), indexed: RefCell::new(HashMap::new()) }
    }

    /// The indexed commit.
    pub fn indexed_commit(&self) -> Option<ObjectId> {
        self.state.last_commit
    }

    /// A file's content at the indexed commit (read once).
    fn indexed(&self, path: &str) -> Content {
        if let Some(c) = self.indexed.borrow().get(path) {
            return c.clone();
        }
        let blob = self.state.files.get(path).and_then(|f| ObjectId::from_hex(f.blob.as_bytes()).ok());
        let content = blob.and_then(|id| self.blobs.read(&id).ok()).map(Arc::new);
        self.indexed.borrow_mut().insert(path.to_string(), content.clone());
        content
    }

    fn blob(&self, id: &ObjectId) -> Result<Vec<u8>, ImpactError> {
        Ok(self.blobs.read(id)?)
    }
}

impl Side {
    fn new() -> Side {
        Side { delta: BTreeMap::new(), skipped: Vec::new(), over_cap: 0, chunks: RefCell::new(HashMap::new()) }
    }

    /// Reads the side: where it differs from the indexed commit, and how.
    pub fn read(snapshot: Snapshot, src: &Sources) -> Result<Side, ImpactError> {
        let mut side = Side::new();
        match snapshot {
            Snapshot::Indexed => {}
            Snapshot::WorkTree => {
                let changes = worktree::changes(src.repo, src.state, src.layer)?;
                side.over_cap = changes.over_cap;
                for (path, _, content) in changes.files {
                    side.delta.insert(path, content.map(|(data, _)| Arc::new(data)));
                }
                for (path, why) in changes.skipped {
                    side.delta.insert(path.clone(), None);
                    side.skipped.push((path, why));
                }
            }
            Snapshot::Empty => {
                side.delta = src.state.files.keys().map(|p| (p.clone(), None)).collect();
            }
            Snapshot::Commit(commit) => {
                let Some(indexed) = src.indexed_commit() else { return Ok(side) };
                if commit != indexed {
                    let filter = worktree::indexed_path_filter(src.repo, src.state, &src.layer.paths)?;
                    for change in src.repo.diff(&indexed, &commit)? {
                        side.take_change(change, &filter, src)?;
                    }
                }
            }
            Snapshot::Staged => {
                let filter = worktree::indexed_path_filter(src.repo, src.state, &src.layer.paths)?;
                let staged: BTreeMap<String, TreeFile> = src.repo.staged_files()?.into_iter().map(|f| (f.path.clone(), f)).collect();
                for (path, file) in &staged {
                    let same = src.state.files.get(path).is_some_and(|f| crate::git::names_object(&f.blob, &file.id));
                    if !same {
                        side.take_file(file, &filter, src)?;
                    }
                }
                for path in src.state.files.keys().filter(|p| !staged.contains_key(*p)) {
                    side.delta.insert(path.clone(), None);
                }
            }
        }
        Ok(side)
    }

    fn take_change(&mut self, change: Change, filter: &PathFilter, src: &Sources) -> Result<(), ImpactError> {
        match change {
            Change::Added(f) | Change::Modified { new: f, .. } => self.take_file(&f, filter, src),
            Change::Deleted(f) => {
                self.delta.insert(f.path, None);
                Ok(())
            }
            Change::Renamed { old, new } => {
                self.delta.insert(old.path, None);
                self.take_file(&new, filter, src)
            }
        }
    }

    /// A file of a tree, as the indexer would take it.
    fn take_file(&mut self, file: &TreeFile, filter: &PathFilter, src: &Sources) -> Result<(), ImpactError> {
        if file.kind != EntryKind::Blob || filter.excluded(&file.path).is_some() || crate::analysis::role::is_generated(&file.path) {
            self.delta.insert(file.path.clone(), None);
            return Ok(());
        }
        let data = src.blob(&file.id)?;
        let why = if data.len() as u64 > worktree::MAX_FILE_BYTES {
            Some(format!("{} bytes is over the limit of {}", data.len(), worktree::MAX_FILE_BYTES))
        } else {
            lang::looks_binary(&data).then(|| "binary".to_string())
        };
        if let Some(why) = why {
            self.skipped.push((file.path.clone(), why));
            self.delta.insert(file.path.clone(), None);
        } else {
            self.delta.insert(file.path.clone(), Some(Arc::new(data)));
        }
        Ok(())
    }

    /// The paths where this side may differ from the indexed commit.
    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.delta.keys()
    }

    /// A file's content on this side.
    pub fn content(&self, path: &str, src: &Sources) -> Content {
        match self.delta.get(path) {
            Some(c) => c.clone(),
            None => src.indexed(path),
        }
    }

    /// A file's text on this side (lossy UTF-8).
    pub fn text(&self, path: &str, src: &Sources) -> Option<String> {
        self.content(path, src).map(|c| String::from_utf8_lossy(&c).into_owned())
    }

    /// A file's analysis on this side, as the indexer makes it (once).
    pub fn chunks(&self, path: &str, src: &Sources) -> Option<Arc<FileChunks>> {
        if let Some(c) = self.chunks.borrow().get(path) {
            return c.clone();
        }
        let made = self.content(path, src).map(|data| Arc::new(chunk::chunk_file(path, &data, &src.layer.chunk)));
        self.chunks.borrow_mut().insert(path.to_string(), made.clone());
        made
    }

    /// The side's graph as an overlay of the index's (`None`: the side is
    /// the indexed commit). Errors when the index has no graph.
    pub fn graph(&self, src: &Sources) -> Result<Option<Arc<Overlay>>, ImpactError> {
        if self.delta.is_empty() {
            return Ok(None);
        }
        let removed: BTreeSet<String> = self.delta.keys().cloned().collect();
        let added: Vec<(String, FileFacts)> = self.delta.keys().filter_map(|p| self.chunks(p, src).map(|c| (p.clone(), FileFacts::of(&c)))).collect();
        match GraphStore::overlay(src.index_dir, &removed, added)? {
            Some(overlay) => Ok(Some(Arc::new(overlay))),
            None => Err(ImpactError::NoGraph),
        }
    }
}

/// The paths whose content differs between the two sides, in order.
pub(crate) fn changed_paths(old: &Side, new: &Side, src: &Sources) -> Vec<String> {
    let candidates: BTreeSet<&String> = old.paths().chain(new.paths()).collect();
    candidates.into_iter().filter(|p| old.content(p, src) != new.content(p, src)).cloned().collect()
}
