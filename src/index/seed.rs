//! A worktree's first index starts from the nearest index another worktree
//! of the same repository holds: its keyword, symbol, graph, vector and
//! history layers are copied, and the run goes on as an incremental one from that
//! index's commit (the vectors themselves are already shared through the
//! repository's vector cache). Incremental equals full, so the result is
//! the index a full rebuild would make, in the time of a diff.
//!
//! Only an index in its default place (`<git-dir>/rag`) is seeded, only from
//! the default indexes of the repository's other worktrees, only from one
//! that is complete (no interrupted run), whose vectors live in its own
//! folder (not on a server) and whose commit this repository has.

use std::path::{Path, PathBuf};
use std::time::Duration;

use gix::ObjectId;

use crate::git::Repo;
use crate::progress::Progress;
use crate::stores::state::{IndexLock, IndexState, PendingRun, STATE_FILE};

/// What an index folder holds that a seed copies; the state file goes last,
/// so a copy cut short leaves no state (the next run seeds again, or
/// rebuilds).
const LAYERS: [&str; 5] = ["files.redb", "graph", "history", "keyword", "qdrant"];

/// An index copied from another worktree's.
#[derive(Debug, Clone)]
pub struct Seeded {
    pub from: PathBuf,
}

/// Copies the nearest index of another worktree into `index_dir` (which has
/// none and whose lock the caller holds). `None`: nothing to start from.
pub fn seed(repo: &Repo, index_dir: &Path, target: &ObjectId, lock_wait: Duration, progress: &dyn Progress) -> Option<Seeded> {
    if index_dir.join(STATE_FILE).exists() || !same_dir(index_dir, &repo.git_dir().join("rag")) {
        return None;
    }
    let mut best: Option<(usize, PathBuf, ObjectId)> = None;
    for dir in sibling_indexes(repo, index_dir) {
        let Some(commit) = usable(repo, &dir) else { continue };
        let Ok(changes) = repo.diff(&commit, target) else { continue };
        if best.as_ref().is_none_or(|(n, _, _)| changes.len() < *n) {
            best = Some((changes.len(), dir, commit));
        }
    }
    let (changed, from, commit) = best?;
    // The other index does not change while it is copied.
    let Ok(_lock) = IndexLock::acquire(&from, lock_wait) else {
        progress.note(&format!("the index of {} is busy (being indexed); indexing in full instead of starting from it", from.display()));
        return None;
    };
    if usable(repo, &from) != Some(commit) {
        return None;
    }
    match copy_layers(&from, index_dir) {
        Ok(()) => {
            progress.note(&format!("starting from the index of {} at {} ({changed} files differ)", from.display(), commit.to_hex_with_len(12)));
            Some(Seeded { from })
        }
        Err(e) => {
            // Nothing half-copied stays: without a state file the run rebuilds.
            let _ = std::fs::remove_file(index_dir.join(STATE_FILE));
            progress.note(&format!("could not start from the index of {}: {e}; indexing in full", from.display()));
            None
        }
    }
}

/// The default index folders of the repository's worktrees other than
/// `own`: the main worktree's `<common-dir>/rag` and each linked one's
/// `<common-dir>/worktrees/<name>/rag`.
fn sibling_indexes(repo: &Repo, own: &Path) -> Vec<PathBuf> {
    let common = repo.common_dir();
    let mut out = vec![common.join("rag")];
    if let Ok(entries) = std::fs::read_dir(common.join("worktrees")) {
        let mut linked: Vec<PathBuf> = entries.filter_map(|e| e.ok()).map(|e| e.path().join("rag")).collect();
        linked.sort();
        out.extend(linked);
    }
    out.retain(|d| !same_dir(d, own) && d.join(STATE_FILE).exists());
    // `<git-dir>/../../rag` as the path it is.
    out.into_iter().map(|d| d.canonicalize().unwrap_or(d)).collect()
}

/// The commit a complete index holds, when it can seed: no interrupted
/// run, vectors (if any) in its own folder, a commit this repository has.
fn usable(repo: &Repo, dir: &Path) -> Option<ObjectId> {
    if PendingRun::load(dir).is_some() {
        return None;
    }
    let state = IndexState::load(&dir.join(STATE_FILE)).ok()??;
    if state.semantic.as_ref().is_some_and(|s| s.store != "embedded") {
        return None;
    }
    let commit = state.last_commit?;
    repo.has_commit(&commit).then_some(commit)
}

fn copy_layers(from: &Path, to: &Path) -> std::io::Result<()> {
    for name in LAYERS {
        let (src, dst) = (from.join(name), to.join(name));
        if dst.is_dir() {
            std::fs::remove_dir_all(&dst)?;
        } else if dst.exists() {
            std::fs::remove_file(&dst)?;
        }
        if src.is_dir() {
            copy_dir(&src, &dst)?;
        } else if src.exists() {
            std::fs::copy(&src, &dst)?;
        }
    }
    // Last: with it, the copy is an index.
    let tmp = to.join(format!("{STATE_FILE}.seed"));
    std::fs::copy(from.join(STATE_FILE), &tmp)?;
    std::fs::rename(&tmp, to.join(STATE_FILE))
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            copy_dir(&src, &dst)?;
        } else if entry.file_type()?.is_file() {
            std::fs::copy(&src, &dst)?;
        }
    }
    Ok(())
}

fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
