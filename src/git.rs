//! The git side, through gix: find the repository, resolve revisions, list
//! and diff trees, read blobs. Everything is read from the object database,
//! never from the work tree, so the index reflects commits only.

use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;
use gix::ObjectId;

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("not inside a git repository ({path}): {message}")]
    NotARepo { path: PathBuf, message: String },
    #[error("cannot resolve revision `{rev}`: {message}")]
    BadRevision { rev: String, message: String },
    #[error("git object {id}: {message}")]
    Object { id: String, message: String },
    #[error("git: {0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, GitError>;

fn other(e: impl std::fmt::Display) -> GitError {
    GitError::Other(e.to_string())
}

/// What a tree entry is, as far as indexing cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Blob,
    Symlink,
    Submodule,
}

/// A file in a commit's tree.
/// Whether `hex` (an id as the state stores it) names the object `id`,
/// without writing `id` out.
pub fn names_object(hex: &str, id: &ObjectId) -> bool {
    ObjectId::from_hex(hex.as_bytes()).is_ok_and(|parsed| parsed == *id)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeFile {
    pub path: String,
    pub id: ObjectId,
    pub kind: EntryKind,
}

/// A change between two trees. Renames carry both paths.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added(TreeFile),
    Deleted(TreeFile),
    Modified { old: TreeFile, new: TreeFile },
    Renamed { old: TreeFile, new: TreeFile },
}

impl Change {
    /// Every path the change touches (both sides of a rename).
    pub fn paths(&self) -> Vec<&str> {
        match self {
            Change::Added(f) | Change::Deleted(f) => vec![f.path.as_str()],
            Change::Modified { new, .. } => vec![new.path.as_str()],
            Change::Renamed { old, new } => vec![old.path.as_str(), new.path.as_str()],
        }
    }
}

/// A repository opened with gix; a clone shares the open repository.
#[derive(Clone)]
pub struct Repo {
    repo: gix::ThreadSafeRepository,
}

fn entry_kind(mode: gix::object::tree::EntryMode) -> Option<EntryKind> {
    if mode.is_link() {
        Some(EntryKind::Symlink)
    } else if mode.is_commit() {
        Some(EntryKind::Submodule)
    } else if mode.is_blob() {
        Some(EntryKind::Blob)
    } else {
        None
    }
}

/// How a repository is opened at a trust level: gix's defaults, with the
/// settings of `git -c` (GIT_CONFIG_PARAMETERS) over its configuration.
fn open_options(trust: gix::sec::Trust) -> gix::open::Options {
    use gix::sec::trust::DefaultForLevel;
    gix::open::Options::default_for_level(trust).cli_overrides(crate::env::git_config_parameters())
}

impl Repo {
    /// Finds the repository containing `path`.
    /// Settings given on git's command line (`git -c key=value rag …`)
    /// apply, as they do to every git subcommand.
    pub fn discover(path: &Path) -> Result<Repo> {
        let mapping = gix::sec::trust::Mapping { full: open_options(gix::sec::Trust::Full), reduced: open_options(gix::sec::Trust::Reduced) };
        let repo = gix::ThreadSafeRepository::discover_opts(path, Default::default(), mapping)
            .map_err(|e| GitError::NotARepo { path: path.to_path_buf(), message: e.to_string() })?;
        Ok(Repo { repo })
    }

    /// The same repository opened again, with a fresh view of the object
    /// database: readers of the old handle, in several threads at once, can
    /// miss a pack another process (`git fetch`) has just written.
    pub fn reopened(&self) -> Result<Repo> {
        let dir = self.git_dir();
        let repo = gix::ThreadSafeRepository::open_opts(&dir, open_options(gix::sec::Trust::Full))
            .map_err(|e| GitError::NotARepo { path: dir, message: e.to_string() })?;
        Ok(Repo { repo })
    }

    pub fn local(&self) -> gix::Repository {
        self.repo.to_thread_local()
    }

    /// The repository's git dir (per worktree).
    pub fn git_dir(&self) -> PathBuf {
        self.repo.git_dir().to_path_buf()
    }

    /// The directory every worktree of the repository shares (the main
    /// worktree's git dir): objects, refs, and git-rag's vector cache.
    pub fn common_dir(&self) -> PathBuf {
        self.repo.to_thread_local().common_dir().to_path_buf()
    }

    /// The project's name as its checkout says it: the folder of the main
    /// work tree (shared by every linked worktree), or a bare repository's
    /// folder less `.git`. `None` when the folder has no name.
    pub fn project_name(&self) -> Option<String> {
        let common = self.common_dir();
        let common = common.canonicalize().unwrap_or(common);
        let folder = if common.file_name()? == ".git" { common.parent()?.file_name()? } else { common.file_name()? };
        let name = folder.to_str()?;
        Some(name.strip_suffix(".git").unwrap_or(name).to_string()).filter(|n| !n.is_empty())
    }

    /// The work tree's root, `None` for a bare repository.
    pub fn workdir(&self) -> Option<PathBuf> {
        self.repo.work_dir().map(|p| p.to_path_buf())
    }

    /// The commit HEAD points at, or `None` in a repository without commits.
    pub fn head_commit(&self) -> Result<Option<ObjectId>> {
        let repo = self.local();
        let head = repo.head().map_err(other)?;
        if head.is_unborn() {
            return Ok(None);
        }
        match head.id() {
            Some(id) => {
                let commit = id.object().map_err(other)?.peel_to_commit().map_err(other)?;
                Ok(Some(commit.id))
            }
            None => Ok(None),
        }
    }

    /// Resolves a revision (`main`, `HEAD~2`, a tag, a sha) to a commit.
    pub fn resolve(&self, rev: &str) -> Result<ObjectId> {
        let repo = self.local();
        let bad = |message: String| GitError::BadRevision { rev: rev.to_string(), message };
        let id = repo.rev_parse_single(rev).map_err(|e| bad(e.to_string()))?;
        let commit = id.object().map_err(|e| bad(e.to_string()))?.peel_to_commit().map_err(|e| bad(e.to_string()))?;
        Ok(commit.id)
    }

    /// Whether `id` names a commit that is still in the object database.
    pub fn has_commit(&self, id: &ObjectId) -> bool {
        let repo = self.local();
        let found = repo.find_object(*id).ok().and_then(|o| o.peel_to_commit().ok()).is_some();
        found
    }

    pub fn is_shallow(&self) -> bool {
        self.local().is_shallow().unwrap_or(false)
    }

    fn tree_of<'r>(repo: &'r gix::Repository, commit: &ObjectId) -> Result<gix::Tree<'r>> {
        let obj_err = |e: &dyn std::fmt::Display| GitError::Object { id: commit.to_string(), message: e.to_string() };
        let commit_obj = repo.find_object(*commit).map_err(|e| obj_err(&e))?.peel_to_commit().map_err(|e| obj_err(&e))?;
        commit_obj.tree().map_err(|e| obj_err(&e))
    }

    /// Every file of the commit's tree (blobs, symlinks, submodule entries).
    pub fn list_files(&self, commit: &ObjectId) -> Result<Vec<TreeFile>> {
        let repo = self.local();
        let tree = Self::tree_of(&repo, commit)?;
        let mut recorder = gix::traverse::tree::Recorder::default();
        tree.traverse().breadthfirst(&mut recorder).map_err(other)?;
        let mut files: Vec<TreeFile> = recorder
            .records
            .into_iter()
            .filter_map(|e| {
                let kind = entry_kind(e.mode)?;
                Some(TreeFile { path: e.filepath.to_str_lossy().into_owned(), id: e.oid, kind })
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// Changes from `old` to `new`, with rename detection (50% similarity).
    /// Rename detection reads blobs; when one cannot be read (a partial
    /// clone, a lost object) the changes are given without it: a rename is
    /// then a deletion and an addition, which indexes the same.
    pub fn diff(&self, old: &ObjectId, new: &ObjectId) -> Result<Vec<Change>> {
        match self.diff_with(old, new, true) {
            Ok(changes) => Ok(changes),
            Err(GitError::Other(_)) => self.diff_with(old, new, false),
            Err(e) => Err(e),
        }
    }

    fn diff_with(&self, old: &ObjectId, new: &ObjectId, renames: bool) -> Result<Vec<Change>> {
        use gix::object::tree::diff::ChangeDetached as C;
        let repo = self.local();
        let old_tree = Self::tree_of(&repo, old)?;
        let new_tree = Self::tree_of(&repo, new)?;
        let mut opts = gix::diff::Options::default();
        opts.track_path().track_rewrites(renames.then(rename_tracking));
        let changes = repo.diff_tree_to_tree(Some(&old_tree), Some(&new_tree), Some(opts)).map_err(other)?;
        let file = |path: &gix::bstr::BString, id: ObjectId, mode: gix::object::tree::EntryMode| {
            entry_kind(mode).map(|kind| TreeFile { path: path.to_str_lossy().into_owned(), id, kind })
        };
        let mut out = Vec::new();
        for change in changes {
            let c = match change {
                C::Addition { location, entry_mode, id, .. } => file(&location, id, entry_mode).map(Change::Added),
                C::Deletion { location, entry_mode, id, .. } => file(&location, id, entry_mode).map(Change::Deleted),
                C::Modification { location, previous_entry_mode, previous_id, entry_mode, id } => {
                    match (file(&location, previous_id, previous_entry_mode), file(&location, id, entry_mode)) {
                        (Some(old), Some(new)) => Some(Change::Modified { old, new }),
                        (None, Some(new)) => Some(Change::Added(new)),
                        (Some(old), None) => Some(Change::Deleted(old)),
                        (None, None) => None,
                    }
                }
                C::Rewrite { source_location, source_entry_mode, source_id, entry_mode, location, id, copy, .. } => {
                    match (file(&source_location, source_id, source_entry_mode), file(&location, id, entry_mode)) {
                        (Some(_), Some(new)) if copy => Some(Change::Added(new)),
                        (Some(old), Some(new)) => Some(Change::Renamed { old, new }),
                        (None, Some(new)) => Some(Change::Added(new)),
                        (Some(old), None) => Some(Change::Deleted(old)),
                        (None, None) => None,
                    }
                }
            };
            out.extend(c);
        }
        Ok(out)
    }

    /// The blob id at `path` in `commit`, if it is a file there.
    pub fn file_at(&self, commit: &ObjectId, path: &str) -> Result<Option<TreeFile>> {
        let repo = self.local();
        let tree = Self::tree_of(&repo, commit)?;
        let entry = tree.lookup_entry_by_path(path).map_err(other)?;
        Ok(entry.and_then(|e| {
            let mode = e.mode();
            entry_kind(mode).map(|kind| TreeFile { path: path.to_string(), id: e.object_id(), kind })
        }))
    }
}

impl Repo {
    /// The first parent of `commit`; `None` for a root commit (or one whose
    /// parents a shallow clone cut off).
    pub fn first_parent(&self, commit: &ObjectId) -> Result<Option<ObjectId>> {
        let repo = self.local();
        let obj_err = |e: &dyn std::fmt::Display| GitError::Object { id: commit.to_string(), message: e.to_string() };
        let c = repo.find_object(*commit).map_err(|e| obj_err(&e))?.peel_to_commit().map_err(|e| obj_err(&e))?;
        let parent = c.parent_ids().next().map(|id| id.detach());
        Ok(parent.filter(|p| self.has_commit(p)))
    }

    /// Every file git's index (the staging area) holds at stage 0, as a
    /// commit of it would: path and blob id.
    pub fn staged_files(&self) -> Result<Vec<TreeFile>> {
        let repo = self.local();
        let index = repo.index_or_empty().map_err(other)?;
        let mut files: Vec<TreeFile> = index
            .entries()
            .iter()
            .filter(|e| e.stage_raw() == 0)
            .filter_map(|e| {
                let kind = entry_kind(e.mode.to_tree_entry_mode()?)?;
                Some(TreeFile { path: e.path(&index).to_str_lossy().into_owned(), id: e.id, kind })
            })
            .collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(files)
    }

    /// The best common ancestor of two commits (`A...B`), if they have one.
    pub fn merge_base(&self, one: &ObjectId, two: &ObjectId) -> Result<Option<ObjectId>> {
        let repo = self.local();
        repo.merge_base(*one, *two).map(|id| id.map(|i| i.detach())).map_err(other)
    }

    /// Up to `limit` commits from `head` back along first parents, newest
    /// first, each with what it changed against its first parent (a renamed
    /// file under its new path, and the rename apart); `None` for a merge or
    /// root commit. The walk stops early at `stop` (a commit already read)
    /// and where history is cut off (a shallow clone).
    /// Also says whether the walk met `stop`.
    pub fn first_parent_history(&self, head: &ObjectId, limit: usize, stop: Option<&ObjectId>) -> Result<(Vec<(ObjectId, Option<CommitChanges>)>, bool)> {
        let repo = self.local();
        let walk = repo.rev_walk([*head]).first_parent_only().all().map_err(other)?;
        let mut commits: Vec<(ObjectId, bool)> = Vec::new();
        let mut met = false;
        for info in walk {
            let Ok(info) = info else { break };
            if Some(&info.id) == stop {
                met = true;
                break;
            }
            if commits.len() >= limit {
                break;
            }
            commits.push((info.id, info.parent_ids.len() == 1));
        }
        use rayon::prelude::*;
        let chunks: Vec<Vec<(ObjectId, Option<CommitChanges>)>> = commits
            .par_chunks(64)
            .map(|chunk| {
                let repo = self.local();
                chunk.iter().map(|(id, single)| (*id, single.then(|| changed_against_parent(&repo, id)).flatten())).collect()
            })
            .collect();
        Ok((chunks.into_iter().flatten().collect(), met))
    }
}

impl Repo {
    /// The first line of each message on the first-parent chain from
    /// `head` back to `stop` (not included), newest first, at most `limit`.
    pub fn subjects(&self, head: &ObjectId, stop: Option<&ObjectId>, limit: usize) -> Result<Vec<String>> {
        let repo = self.local();
        let (ids, _) = self.first_parent_ids(head, limit, stop)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let object_err = |e: &dyn std::fmt::Display| GitError::Object { id: id.to_string(), message: e.to_string() };
            let commit = repo.find_object(id).map_err(|e| object_err(&e))?.try_into_commit().map_err(|e| object_err(&e))?;
            let message = commit.message_raw_sloppy().to_str_lossy().into_owned();
            out.push(message.lines().find(|l| !l.trim().is_empty()).unwrap_or_default().trim().to_string());
        }
        Ok(out)
    }

    /// The first-parent chain from `head`, newest first: at most `limit`
    /// commits, ending before `stop` (and saying whether it was met). A
    /// shallow clone's chain ends where its history does.
    pub fn first_parent_ids(&self, head: &ObjectId, limit: usize, stop: Option<&ObjectId>) -> Result<(Vec<ObjectId>, bool)> {
        let repo = self.local();
        let walk = repo.rev_walk([*head]).first_parent_only().all().map_err(other)?;
        let mut ids = Vec::new();
        for info in walk {
            let Ok(info) = info else { break };
            if Some(&info.id) == stop {
                return Ok((ids, true));
            }
            if ids.len() >= limit {
                break;
            }
            ids.push(info.id);
        }
        Ok((ids, false))
    }
}

/// A commit as the history store keeps it: who, when, what it says, and
/// what it changed against its first parent (the pull request a merge
/// stands for; everything, for a root commit).
#[derive(Debug, Clone)]
pub struct CommitRecord {
    pub id: ObjectId,
    pub parents: usize,
    pub author: String,
    /// Seconds since the epoch.
    pub author_time: i64,
    pub commit_time: i64,
    pub message: String,
    /// Sorted by path; blobs only (no submodules). Empty when the first
    /// parent is missing (the edge of a shallow clone).
    pub files: Vec<FileChange>,
}

/// A file a commit changed, with the blobs of both sides (`None`: added or deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    /// The path it had before, for a rename.
    pub renamed_from: Option<String>,
    pub old: Option<ObjectId>,
    pub new: Option<ObjectId>,
}

/// Reads `id` as a [`CommitRecord`] from `repo` (one per thread: gix
/// repositories are not `Sync`).
pub fn commit_record(repo: &gix::Repository, id: &ObjectId) -> Result<CommitRecord> {
    let object_err = |e: &dyn std::fmt::Display| GitError::Object { id: id.to_string(), message: e.to_string() };
    let commit = repo.find_object(*id).map_err(|e| object_err(&e))?.try_into_commit().map_err(|e| object_err(&e))?;
    let decoded = commit.decode().map_err(|e| object_err(&e))?;
    let author = decoded.author().map_err(|e| object_err(&e))?;
    let mut record = CommitRecord {
        id: *id,
        parents: decoded.parents().count(),
        author: author.name.to_str_lossy().trim().to_string(),
        author_time: author.seconds(),
        commit_time: decoded.committer().map_err(|e| object_err(&e))?.seconds(),
        message: decoded.message.to_str_lossy().into_owned(),
        files: Vec::new(),
    };
    let parent = match commit.parent_ids().next() {
        Some(p) => match p.object().ok().and_then(|o| o.peel_to_commit().ok()) {
            Some(parent) => Some(parent.tree().map_err(|e| object_err(&e))?),
            // A shallow clone's last commit: what it changed is unknown, its message is not.
            None => return Ok(record),
        },
        None => None,
    };
    let tree = commit.tree().map_err(|e| object_err(&e))?;
    let mut opts = gix::diff::Options::default();
    opts.track_path().track_rewrites(Some(rename_tracking()));
    let changes = repo.diff_tree_to_tree(parent.as_ref(), Some(&tree), Some(opts)).map_err(|e| object_err(&e))?;
    use gix::object::tree::diff::ChangeDetached as C;
    for change in changes {
        let file = |path: &gix::bstr::BStr, from: Option<&gix::bstr::BStr>, old: Option<ObjectId>, new: Option<ObjectId>| FileChange {
            path: path.to_str_lossy().into_owned(),
            renamed_from: from.map(|f| f.to_str_lossy().into_owned()),
            old,
            new,
        };
        match change {
            C::Addition { location, entry_mode, id, .. } if entry_mode.is_blob() => record.files.push(file(location.as_ref(), None, None, Some(id))),
            C::Deletion { location, entry_mode, id, .. } if entry_mode.is_blob() => record.files.push(file(location.as_ref(), None, Some(id), None)),
            C::Modification { location, entry_mode, previous_id, id, .. } if entry_mode.is_blob() => {
                record.files.push(file(location.as_ref(), None, Some(previous_id), Some(id)))
            }
            C::Rewrite { source_location, location, source_id, id, entry_mode, copy, .. } if entry_mode.is_blob() => {
                let from = (!copy).then_some(source_location.as_ref());
                // A copy is told by how it differs from its source too.
                record.files.push(file(location.as_ref(), from, Some(source_id), Some(id)))
            }
            _ => {}
        }
    }
    record.files.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(record)
}

/// Renames as git finds them by default: 50% similar content, no copies,
/// at most 1,000 candidates a side.
fn rename_tracking() -> gix::diff::Rewrites {
    gix::diff::Rewrites { copies: None, percentage: Some(0.5), limit: 1000, track_empty: false }
}

/// What a commit changed against its only parent.
#[derive(Debug, Default)]
pub struct CommitChanges {
    /// The files it touched, sorted; a renamed one under its new path.
    pub paths: Vec<String>,
    /// (old path, new path) of each file it renamed.
    pub renames: Vec<(String, String)>,
}

/// What `commit` changed against its only parent (`None` when a tree cannot be read).
fn changed_against_parent(repo: &gix::Repository, commit: &ObjectId) -> Option<CommitChanges> {
    let c = repo.find_object(*commit).ok()?.peel_to_commit().ok()?;
    let parent = c.parent_ids().next()?.object().ok()?.peel_to_commit().ok()?;
    let (old, new) = (parent.tree().ok()?, c.tree().ok()?);
    let mut opts = gix::diff::Options::default();
    opts.track_path().track_rewrites(Some(rename_tracking()));
    let changes = repo.diff_tree_to_tree(Some(&old), Some(&new), Some(opts)).ok()?;
    use gix::object::tree::diff::ChangeDetached as C;
    let mut out = CommitChanges::default();
    for change in changes {
        match change {
            C::Addition { location, entry_mode, .. } | C::Deletion { location, entry_mode, .. } | C::Modification { location, entry_mode, .. } => {
                if entry_mode.is_blob() {
                    out.paths.push(location.to_str_lossy().into_owned());
                }
            }
            C::Rewrite { source_location, location, copy, .. } => {
                let to = location.to_str_lossy().into_owned();
                if !copy {
                    out.renames.push((source_location.to_str_lossy().into_owned(), to.clone()));
                }
                out.paths.push(to);
            }
        }
    }
    out.paths.sort();
    out.paths.dedup();
    Some(out)
}

impl Repo {
    /// The remote that promises the objects a partial clone left out
    /// (`remote.<name>.promisor = true`), if this is a partial clone.
    pub fn promisor_remote(&self) -> Option<String> {
        let repo = self.local();
        let config = repo.config_snapshot();
        let names: Vec<String> = repo.remote_names().iter().map(|n| n.to_string()).collect();
        names.into_iter().find(|name| config.boolean(format!("remote.{name}.promisor").as_str()) == Some(true))
    }

    /// The branch names `remote` has now (`git ls-remote --heads`: asks the
    /// remote, not the remote-tracking refs, which keep branches deleted there).
    pub fn remote_branches(&self, remote: &str) -> Result<Vec<String>> {
        let out = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(self.git_dir())
            .args(["ls-remote", "--heads", remote])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| GitError::Other(format!("cannot run `git ls-remote`: {e}")))?;
        if !out.status.success() {
            return Err(GitError::Other(format!("`git ls-remote --heads {remote}` failed: {}", String::from_utf8_lossy(&out.stderr).trim())));
        }
        Ok(String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| l.split_once("\trefs/heads/").map(|(_, b)| b.to_string())).collect())
    }

    /// Fetches `ids` from the promisor remote in one request, the way git
    /// does when a command needs objects a partial clone left out.
    pub fn fetch_promised(&self, remote: &str, ids: &[ObjectId]) -> Result<()> {
        use std::io::Write;
        let mut child = std::process::Command::new("git")
            .arg("--git-dir")
            .arg(self.git_dir())
            .args([
                "-c",
                "fetch.negotiationAlgorithm=noop",
                "fetch",
                remote,
                "--no-tags",
                "--no-write-fetch-head",
                "--recurse-submodules=no",
                "--filter=blob:none",
                "--stdin",
                "--quiet",
            ])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| GitError::Other(format!("cannot run `git fetch` for missing objects: {e}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            let list: String = ids.iter().map(|id| format!("{id}\n")).collect();
            stdin.write_all(list.as_bytes()).map_err(|e| GitError::Other(format!("`git fetch` of missing objects: {e}")))?;
        }
        let out = child.wait_with_output().map_err(|e| GitError::Other(format!("`git fetch` of missing objects: {e}")))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(GitError::Other(format!("`git fetch {remote}` of {} missing objects failed: {}", ids.len(), String::from_utf8_lossy(&out.stderr).trim())))
        }
    }
}

/// Reads blobs; one per thread (gix repositories are not `Sync`).
pub struct BlobReader {
    repo: gix::Repository,
}

impl BlobReader {
    pub fn new(repo: &Repo) -> BlobReader {
        BlobReader { repo: repo.local() }
    }

    pub fn read(&self, id: &ObjectId) -> Result<Vec<u8>> {
        let blob = self.repo.find_blob(*id).map_err(|e| GitError::Object { id: id.to_string(), message: e.to_string() })?;
        Ok(blob.data.clone())
    }
}

/// Object ids as the state file and the server keep them: hex strings
/// (`#[serde(with = "crate::git::hex_id")]`, or `hex_id::option`), checked
/// when read, so a commit id is parsed once, where it enters.
pub mod hex_id {
    use gix::ObjectId;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(id: &ObjectId, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(id)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<ObjectId, D::Error> {
        let hex = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        ObjectId::from_hex(hex.as_bytes()).map_err(|e| serde::de::Error::custom(format!("`{hex}` is not an object id: {e}")))
    }

    pub mod option {
        use gix::ObjectId;
        use serde::{Deserialize, Deserializer, Serializer};

        pub fn serialize<S: Serializer>(id: &Option<ObjectId>, s: S) -> Result<S::Ok, S::Error> {
            match id {
                Some(id) => s.collect_str(id),
                None => s.serialize_none(),
            }
        }

        pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ObjectId>, D::Error> {
            match <Option<std::borrow::Cow<'de, str>>>::deserialize(d)? {
                Some(hex) => ObjectId::from_hex(hex.as_bytes()).map(Some).map_err(|e| serde::de::Error::custom(format!("`{hex}` is not an object id: {e}"))),
                None => Ok(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) {
        let out = Command::new("git").current_dir(dir).args(args).output().expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }

    #[test]
    fn a_project_is_named_by_its_main_checkout() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let main = tmp.path().join("telescope.nvim");
        std::fs::create_dir(&main).expect("mkdir");
        git(&main, &["init", "-q"]);
        git(&main, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"]);
        std::fs::create_dir(main.join("lua")).expect("mkdir");
        let name = |path: &Path| Repo::discover(path).expect("repo").project_name();
        assert_eq!(name(&main.join("lua")).as_deref(), Some("telescope.nvim"));
        // A linked worktree is the same project, whatever its folder.
        git(&main, &["worktree", "add", "-q", "-b", "feature", tmp.path().join("feature-x").to_str().expect("utf-8")]);
        assert_eq!(name(&tmp.path().join("feature-x")).as_deref(), Some("telescope.nvim"));
        // A bare clone: its folder less `.git`.
        git(tmp.path(), &["clone", "-q", "--bare", "telescope.nvim", "zls.git"]);
        assert_eq!(name(&tmp.path().join("zls.git")).as_deref(), Some("zls"));
    }
}
