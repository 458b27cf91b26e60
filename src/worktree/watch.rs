//! Whether the work tree may have changed since the last look, without
//! walking it: file-system events (`notify`) for a long-lived process.
//!
//! Invariant: a save that finished before [`Watch::moved`] is called is
//! seen by that call. Events of one watcher arrive in order, so `moved`
//! writes a fence — a new file of its own in the git directory — and waits
//! for the fence's event: every event of an earlier write has been handled
//! by then. When the fence does not come back in time, or the watcher
//! reports an error or an overflow, the answer is "moved" (the caller then
//! compares the whole tree, as without a watcher).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};

use super::WorktreeError;

/// How long a fence may take to come back before the tree counts as moved.
const FENCE_WAIT: Duration = Duration::from_millis(500);

const FENCE_PREFIX: &str = "rag-watch-fence-";

/// Most paths remembered between two looks; past it, everything counts as moved.
const MAX_PATHS: usize = 10_000;

/// What moved since the previous look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moved {
    Nothing,
    /// These paths of the work tree (relative, `/`-separated; files or folders).
    Paths(std::collections::BTreeSet<String>),
    /// Unknown or too much: compare the whole tree.
    Everything,
}

/// What the event handler (on the watcher's thread) leaves for queries.
#[derive(Default)]
struct Seen {
    /// Everything moved (an overflow, an error, the git config or ignore rules).
    moved: AtomicBool,
    paths: Mutex<std::collections::BTreeSet<String>>,
    /// The highest fence number whose event came back.
    fence: Mutex<u64>,
    arrived: Condvar,
}

/// A watcher of the work tree (and of the git directory's config and ignore
/// rules, which decide what the layer holds).
pub struct Watch {
    _watcher: notify::RecommendedWatcher,
    seen: Arc<Seen>,
    git_dir: PathBuf,
    workdir: PathBuf,
    next_fence: AtomicU64,
    /// Serialises fences (two queries at once).
    fencing: Mutex<()>,
}

impl Watch {
    /// Watches `workdir` recursively (and `git_dir`, when it lies outside).
    pub fn start(workdir: &Path, git_dir: &Path) -> Result<Watch, WorktreeError> {
        let err = |e: notify::Error| WorktreeError::Watch { dir: workdir.display().to_string(), message: e.to_string() };
        // Events name paths under what was watched: compare them in one (absolute) form.
        let io = |e: std::io::Error| WorktreeError::Watch { dir: workdir.display().to_string(), message: e.to_string() };
        let (workdir, git_dir) = (&workdir.canonicalize().map_err(io)?, &git_dir.canonicalize().map_err(io)?);
        let seen = Arc::new(Seen::default());
        let handler_seen = Arc::clone(&seen);
        let (git, work) = (git_dir.to_path_buf(), workdir.to_path_buf());
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| handle(&handler_seen, &git, &work, event)).map_err(err)?;
        watcher.watch(workdir, RecursiveMode::Recursive).map_err(err)?;
        if !git_dir.starts_with(workdir) {
            watcher.watch(git_dir, RecursiveMode::NonRecursive).map_err(err)?;
        }
        // Anything before the first look counts.
        seen.moved.store(true, Ordering::SeqCst);
        Ok(Watch {
            _watcher: watcher,
            seen,
            git_dir: git_dir.to_path_buf(),
            workdir: workdir.to_path_buf(),
            next_fence: AtomicU64::new(1),
            fencing: Mutex::new(()),
        })
    }

    /// What moved since the previous call (everything the first time, and
    /// whenever unsure).
    pub fn moved(&self) -> Moved {
        let _one = self.fencing.lock();
        let n = self.next_fence.fetch_add(1, Ordering::SeqCst);
        let fence = self.git_dir.join(format!("{FENCE_PREFIX}{n}"));
        if std::fs::write(&fence, b"").is_err() {
            return Moved::Everything;
        }
        let came_back = match self.seen.fence.lock() {
            Ok(guard) => self.seen.arrived.wait_timeout_while(guard, FENCE_WAIT, |seen| *seen < n).map(|(g, _)| *g >= n).unwrap_or(false),
            Err(_) => false,
        };
        let _ = std::fs::remove_file(&fence);
        // Swapped after the fence: what came before it is in; what comes
        // after counts for the next call.
        let everything = self.seen.moved.swap(false, Ordering::SeqCst);
        let paths = self.seen.paths.lock().map(|mut p| std::mem::take(&mut *p));
        match paths {
            _ if everything || !came_back => Moved::Everything,
            Ok(p) if p.is_empty() => Moved::Nothing,
            Ok(p) if p.len() <= MAX_PATHS => Moved::Paths(p),
            _ => Moved::Everything,
        }
    }

    /// The work tree watched (absolute).
    pub fn workdir(&self) -> &Path {
        &self.workdir
    }
}

/// Runs on the watcher's thread for every event.
fn handle(seen: &Seen, git_dir: &Path, workdir: &Path, event: notify::Result<notify::Event>) {
    let event = match event {
        Ok(e) => e,
        Err(_) => return seen.moved.store(true, Ordering::SeqCst),
    };
    if event.need_rescan() {
        return seen.moved.store(true, Ordering::SeqCst);
    }
    if matches!(event.kind, EventKind::Access(_)) {
        return;
    }
    for path in &event.paths {
        if let Some(n) = fence_number(path, git_dir) {
            if matches!(event.kind, EventKind::Create(_)) {
                if let Ok(mut f) = seen.fence.lock() {
                    *f = (*f).max(n);
                }
                seen.arrived.notify_all();
            }
            continue;
        }
        match path.strip_prefix(git_dir) {
            Ok(inner) if inner == Path::new("config") || inner == Path::new("info/exclude") => seen.moved.store(true, Ordering::SeqCst),
            // Objects, refs and the index file do not change what the work tree holds.
            Ok(_) => {}
            Err(_) => match path.strip_prefix(workdir).ok().and_then(|p| p.to_str()) {
                Some(rel) if !rel.is_empty() => {
                    if let Ok(mut paths) = seen.paths.lock() {
                        if paths.len() <= MAX_PATHS {
                            paths.insert(rel.replace(std::path::MAIN_SEPARATOR, "/"));
                        }
                    }
                }
                _ => seen.moved.store(true, Ordering::SeqCst),
            },
        }
    }
}

fn fence_number(path: &Path, git_dir: &Path) -> Option<u64> {
    if path.parent() != Some(git_dir) {
        return None;
    }
    path.file_name()?.to_str()?.strip_prefix(FENCE_PREFIX)?.parse().ok()
}
