//! The work tree as a layer over the commit-keyed index.
//!
//! The index holds one commit and never changes for an edit; what an agent
//! or a person is editing lives here instead: the files of the work tree
//! that differ from the indexed commit (modified, added and not ignored,
//! deleted; staged or not; also the files of commits made since the index
//! ran), analysed by the same code as the indexer into a keyword index in
//! memory. A query searches both and lets the layer win: a path the layer
//! holds hides that path's indexed chunks, a deleted path answers nothing.
//!
//! Invariants: nothing here changes the index (what it writes beside it is
//! the last layer for the next process, [`saved`]); a file is in the
//! layer only as a whole, read when its size and modification time held
//! still across the read; and the path rules of the index (`rag.include`,
//! `rag.exclude`, `.gitattributes`) decide what the layer holds, as they
//! decide what is indexed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use gix::ObjectId;

use crate::analysis::chunk::{self, ChunkOptions};
use crate::analysis::lang;
use crate::git::{BlobReader, Repo};
use crate::index::paths::{is_attributes_file, PathFilter, PathRules};
use crate::stores::keyword::KeywordIndex;
use crate::stores::state::IndexState;

pub mod dense;
mod graph;
mod saved;
mod untracked;
mod watch;
pub use watch::{Moved, Watch};

/// Most work-tree files analysed into the layer; past it (a generated
/// folder, a checkout of another branch) the rest answer from the index.
pub const MAX_FILES: usize = 2_000;

/// Files larger than this are left to the index (a data dump being written).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

const BINARY: &str = "binary";

/// Reads of a file that kept changing before it is left out.
const READ_TRIES: usize = 3;

#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("the work tree of {dir} cannot be compared with the index: {message}")]
    Status { dir: String, message: String },
    #[error(transparent)]
    Keyword(#[from] crate::stores::keyword::KeywordError),
    #[error(transparent)]
    Rules(#[from] crate::index::paths::PathRulesError),
    #[error("cannot watch the work tree {dir}: {message}")]
    Watch { dir: String, message: String },
}

/// How a path of the layer differs from the indexed commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Modified,
    Added,
    Deleted,
}

/// A path the layer holds.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LayerFile {
    pub path: String,
    pub change: Change,
    /// Blob id of the work-tree content (none for a deleted file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blob: Option<String>,
}

/// The work tree's files that differ from the indexed commit, analysed.
pub struct Layer {
    /// The indexed commit the layer lies over.
    pub base: String,
    /// Every path the layer holds, in path order.
    pub files: Vec<LayerFile>,
    /// Paths whose indexed chunks a query leaves out: every path of the layer.
    pub hidden: Arc<BTreeSet<String>>,
    /// Work-tree files that differ but are not searchable, and why (binary,
    /// too large, still being written, unreadable); their indexed version is
    /// hidden too, since it is not what the work tree holds.
    pub skipped: Vec<(String, String)>,
    /// Differing files past [`MAX_FILES`]: they answer from the index.
    pub over_cap: usize,
    /// The layer's chunks and symbols (in memory), scored with the
    /// statistics of the work tree: its own and the index's but the hidden paths.
    pub keyword: KeywordIndex,
    /// The index beneath the layer, scored with the same statistics (its
    /// searches leave the hidden paths out).
    pub beneath: KeywordIndex,
    /// Text of the layer's files, for contexts and citations.
    texts: BTreeMap<String, String>,
    /// The analyses of the layer's files (path, blob id, chunks), for its vectors.
    analyses: Vec<(String, ObjectId, Arc<chunk::FileChunks>)>,
    /// The layer's vectors once a dense query needed them ([`dense`]).
    vectors: std::sync::OnceLock<std::result::Result<Arc<crate::stores::vector::memory::MemoryStore>, String>>,
    /// Why the layer could not be kept for the next process ([`saved`]), if it could not.
    not_kept: Option<String>,
    /// The key the layer is kept under beside the index (opened from there or
    /// written there), for its graph to be kept with it.
    kept: Option<saved::Key>,
    /// The layer's code graph once a question needed it ([`graph`]).
    graph: std::sync::OnceLock<std::result::Result<Option<Arc<crate::graph::Overlay>>, String>>,
    /// Milliseconds spent: comparing with the index, then analysing.
    pub took_ms: (f64, f64),
}

impl Layer {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.skipped.is_empty()
    }

    /// The work-tree text of a file the layer holds.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.texts.get(path).map(String::as_str)
    }

    /// What a user should know about the layer (stderr lines).
    pub fn notices(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.files.is_empty() {
            let base = &self.base[..self.base.len().min(12)];
            out.push(format!("searching the work tree too: {} files differ from the indexed commit {base}", self.files.len()));
        }
        if let Some(why) = &self.not_kept {
            out.push(format!("the work tree's analysis cannot be kept for the next query ({why}); each query analyses it again"));
        }
        for (path, why) in &self.skipped {
            out.push(format!("{path}: not searched ({why}); its indexed version is left out"));
        }
        if self.over_cap > 0 {
            out.push(format!(
                "{} more changed files are past the work tree's limit of {MAX_FILES}: they answer from the index (run `git rag index` after committing)",
                self.over_cap
            ));
        }
        out
    }

    /// Whether the layer decides what `path` holds (its own chunks, or nothing).
    pub fn hides(&self, path: &str) -> bool {
        self.hidden.contains(path)
    }
}

/// What the layer is made with: the index's own analysis options and path rules.
#[derive(Debug, Clone, Default)]
pub struct LayerOptions {
    pub chunk: ChunkOptions,
    pub paths: PathRules,
    /// The index directory: its files are never part of the layer (it may
    /// lie in the work tree: `--index-dir`, `GIT_RAG_DIR`), and the listing
    /// of untracked files is kept there ([`untracked`]).
    pub index_dir: Option<PathBuf>,
}

/// The work tree's files that differ from the indexed commit, read but not
/// analysed (what `git rag status` lists).
pub struct Changes {
    pub base: String,
    /// Path, how it differs, and its text with its blob id (none when deleted).
    pub files: Vec<(String, Change, Option<(Vec<u8>, ObjectId)>)>,
    pub skipped: Vec<(String, String)>,
    pub over_cap: usize,
    /// Milliseconds it took.
    pub took_ms: f64,
}

impl Changes {
    /// The paths and how they differ, for a listing.
    pub fn listing(&self) -> Vec<LayerFile> {
        self.files
            .iter()
            .map(|(path, change, content)| LayerFile { path: path.clone(), change: *change, blob: content.as_ref().map(|(_, id)| id.to_string()) })
            .collect()
    }
}

/// Compares the work tree with the indexed commit of `state`: the files
/// that differ, read whole, as the index's path rules select them.
pub fn changes(repo: &Repo, state: &IndexState, opts: &LayerOptions) -> Result<Changes, WorktreeError> {
    changes_within(repo, state, opts, None, None)
}

/// Git's status of the work tree against a commit, running on a thread of
/// its own: a process that answers one query starts it before it opens the
/// index, so the two overlap ([`LayerCache::comparing`]). Only the paths
/// that may differ; reading and checking them waits for the index state.
pub struct Comparison {
    base: ObjectId,
    paths: std::thread::JoinHandle<Result<BTreeSet<String>, WorktreeError>>,
}

impl Comparison {
    /// Starts comparing the work tree of `repo` with `base`; the index in
    /// `index_dir` keeps the listing of untracked files.
    pub fn start(repo: &Repo, base: ObjectId, index_dir: Option<PathBuf>) -> Comparison {
        let repo = repo.clone();
        Comparison { base, paths: std::thread::spawn(move || changed_paths(&repo, &base, Vec::new(), index_dir.as_deref())) }
    }

    /// The paths, when the comparison was against `base`.
    fn paths_against(self, base: &ObjectId) -> Option<Result<BTreeSet<String>, WorktreeError>> {
        if self.base != *base {
            return None;
        }
        self.paths.join().ok()
    }
}

/// [`changes`] of the paths `moved` names (files or folders) and of the
/// paths in `held` (the previous layer's), when the rest of the tree is
/// known to be as it was: what a watched tree costs after a save.
/// `early`: the comparison of the whole tree, already under way.
fn changes_within(
    repo: &Repo,
    state: &IndexState,
    opts: &LayerOptions,
    scope: Option<(&BTreeSet<String>, &BTreeSet<String>)>,
    early: Option<Comparison>,
) -> Result<Changes, WorktreeError> {
    let started = Instant::now();
    let base = state.last_commit.map(|c| c.to_string()).unwrap_or_default();
    let mut out = Changes { base, files: Vec::new(), skipped: Vec::new(), over_cap: 0, took_ms: 0.0 };
    let workdir = repo.local().workdir().map(Path::to_path_buf);
    let (Some(workdir), Some(base_id)) = (workdir, state.last_commit) else {
        // A bare repository, or nothing indexed: nothing to lay over.
        return Ok(out);
    };
    if !repo.local().index_path().exists() {
        // Never checked out (`clone --no-checkout`, a CI fetch): the empty
        // folder is not an edit of every file.
        return Ok(out);
    }
    let patterns: Vec<gix::bstr::BString> =
        scope.map(|(moved, held)| moved.iter().chain(held).map(|p| format!(":(literal){p}").into()).collect()).unwrap_or_default();
    let mut candidates = match early.filter(|_| scope.is_none()).and_then(|c| c.paths_against(&base_id)) {
        Some(paths) => paths?,
        None => changed_paths(repo, &base_id, patterns, opts.index_dir.as_deref())?,
    };
    if let Some((_, held)) = scope {
        // A file of the layer that went back to its indexed content is read again to drop it.
        candidates.extend(held.iter().cloned());
    }
    let filter = path_filter(repo, state, &workdir, &candidates, &opts.paths)?;
    let workdir = workdir.canonicalize().unwrap_or(workdir);
    for path in candidates {
        let own = opts.index_dir.as_ref().is_some_and(|dir| workdir.join(&path).starts_with(dir));
        if own || filter.excluded(&path).is_some() || crate::analysis::role::is_generated(&path) {
            continue;
        }
        let indexed = state.files.get(&path).map(|f| f.blob.as_str());
        match read_stable(&workdir.join(&path)) {
            // Gone, or no longer a file (a symlink or a folder now): its indexed text is not what the tree holds.
            Read::Missing | Read::NotAFile if indexed.is_some() => out.files.push((path, Change::Deleted, None)),
            Read::Missing | Read::NotAFile => {}
            Read::Text(_, id) if Some(id.to_string().as_str()) == indexed => {}
            Read::Text(data, id) => out.files.push((path, if indexed.is_some() { Change::Modified } else { Change::Added }, Some((data, id)))),
            // A binary file git-rag never indexed (an image, a build output) is no news.
            Read::Skip(why) if why == BINARY && indexed.is_none() => {}
            Read::Skip(why) => out.skipped.push((path, why)),
        }
    }
    if out.files.len() > MAX_FILES {
        out.over_cap = out.files.len() - MAX_FILES;
        out.files.truncate(MAX_FILES);
    }
    out.took_ms = crate::progress::millis(started);
    Ok(out)
}

/// Analyses `changes` with the index's own analysis (in parallel) into a
/// layer over `keyword`.
pub fn analyse(changes: Changes, keyword: &KeywordIndex, opts: &LayerOptions) -> Result<Layer, WorktreeError> {
    analyse_reusing(changes, keyword, opts, &Mutex::new(HashMap::new()), None)
}

/// [`analyse`], reusing the analyses in `known` (by path and blob id) and
/// leaving there those of this layer's files. With `kept_in` (the index
/// folder), the layer kept there for the same files is opened instead, or
/// this one is kept there for the next process ([`saved`]).
fn analyse_reusing(
    changes: Changes,
    keyword: &KeywordIndex,
    opts: &LayerOptions,
    known: &Mutex<Analyses>,
    kept_in: Option<&Path>,
) -> Result<Layer, WorktreeError> {
    let started = Instant::now();
    let files = changes.listing();
    let hidden: Arc<BTreeSet<String>> = Arc::new(files.iter().map(|f| f.path.clone()).chain(changes.skipped.iter().map(|(p, _)| p.clone())).collect());
    let key = saved::Key::of(&opts.chunk, changes.files.iter().filter_map(|(p, _, c)| c.as_ref().map(|(_, id)| (p.as_str(), id))));
    let opened = kept_in.and_then(|dir| saved::open(dir, &key, keyword, Arc::clone(&hidden)));
    let mut kept = None;
    let was_kept = opened.is_some();
    let (layer_keyword, analysed) = match opened {
        Some(found) => found,
        None => {
            if let (Some(dir), Ok(mut k)) = (kept_in, known.lock()) {
                for (at, chunks) in saved::analyses(dir, &key) {
                    k.entry(at).or_insert(chunks);
                }
            }
            let analysed = analyse_files(&changes, opts, known);
            let layer_keyword =
                KeywordIndex::layer_of(keyword, Arc::clone(&hidden), analysed.iter().map(|(path, _, chunks)| (path.as_str(), chunks.as_ref())))?;
            kept = kept_in.map(|dir| saved::keep(dir, &key, &layer_keyword, &analysed));
            (layer_keyword, analysed)
        }
    };
    if let Ok(mut k) = known.lock() {
        *k = analysed.iter().map(|(path, id, chunks)| ((path.clone(), *id), Arc::clone(chunks))).collect();
    }
    let beneath = keyword.beneath(&layer_keyword, Arc::clone(&hidden))?;
    let texts =
        changes.files.into_iter().filter_map(|(path, _, content)| content.map(|(data, _)| (path, String::from_utf8_lossy(&data).into_owned()))).collect();
    Ok(Layer {
        base: changes.base,
        files,
        hidden,
        skipped: changes.skipped,
        over_cap: changes.over_cap,
        keyword: layer_keyword,
        beneath,
        analyses: analysed,
        texts,
        vectors: Default::default(),
        graph: Default::default(),
        kept: (was_kept || matches!(kept, Some(Ok(())))).then_some(key),
        not_kept: kept.and_then(Result::err),
        took_ms: (changes.took_ms, crate::progress::millis(started)),
    })
}

/// The analyses of the files with content, in order: from `known` by path
/// and blob id, else chunked now (in parallel).
fn analyse_files(changes: &Changes, opts: &LayerOptions, known: &Mutex<Analyses>) -> saved::Analysed {
    use rayon::prelude::*;
    let cached = |key: &(String, ObjectId)| known.lock().ok().and_then(|k| k.get(key).cloned());
    changes
        .files
        .par_iter()
        .filter_map(|(path, _, content)| content.as_ref().map(|(data, id)| (path, data, id)))
        .map(|(path, data, id)| {
            let chunks = cached(&(path.clone(), *id)).unwrap_or_else(|| Arc::new(chunk::chunk_file(path, data, &opts.chunk)));
            (path.clone(), *id, chunks)
        })
        .collect()
}

/// [`changes`], then [`analyse`] when anything differs: a layer, or
/// `None` when the work tree holds what the index holds (nothing to analyse),
/// with the milliseconds the comparison took.
pub fn scan(repo: &Repo, state: &IndexState, keyword: &KeywordIndex, opts: &LayerOptions) -> Result<(Option<Layer>, f64), WorktreeError> {
    let changes = changes(repo, state, opts)?;
    let took = changes.took_ms;
    if changes.files.is_empty() && changes.skipped.is_empty() {
        return Ok((None, took));
    }
    Ok((Some(analyse(changes, keyword, opts)?), took))
}

/// Analyses of work-tree files by path and blob id.
type Analyses = HashMap<(String, ObjectId), Arc<chunk::FileChunks>>;

/// What a long-lived process (the MCP server) keeps between queries: the
/// last layer, reused while the work tree differs from the index in the
/// same way (same base, paths and blob ids), and the analyses of its files,
/// reused by blob id when one file of many changes.
#[derive(Default)]
pub struct LayerCache {
    /// The last comparison's outcome (no layer: the tree held what the index holds).
    last: Mutex<Option<(Fingerprint, Option<Arc<Layer>>)>>,
    analyses: Mutex<Analyses>,
    /// Vectors of the work tree's texts embedded in this process, by cache
    /// id (an edit of one file of many embeds only what changed).
    vectors: Mutex<HashMap<u64, Vec<f32>>>,
    /// File-system events: while nothing moved, the last outcome stands
    /// without comparing the tree again.
    watch: Option<Arc<Watch>>,
    /// A comparison of the whole tree started before the index was open,
    /// taken by the next scan that compares the whole tree.
    started: Mutex<Option<Comparison>>,
}

impl LayerCache {
    /// A cache that trusts `watch` to say when the tree moved.
    pub fn watching(watch: Arc<Watch>) -> LayerCache {
        LayerCache { watch: Some(watch), ..LayerCache::default() }
    }

    /// Hands over a comparison started early ([`Comparison::start`]); the
    /// next scan uses it when it was against the indexed commit.
    pub fn comparing(&self, comparison: Comparison) {
        if let Ok(mut slot) = self.started.lock() {
            *slot = Some(comparison);
        }
    }
}

/// The base, and each differing path with its blob id (none: deleted or skipped).
type Fingerprint = (String, Vec<(String, Option<String>)>);

/// [`scan`] through `cache`: the comparison with the index runs every time
/// (it is what notices an edit); the analysis only when something moved.
/// Returns the layer and what comparing and analysing took.
pub fn scan_cached(
    repo: &Repo,
    state: &IndexState,
    keyword: &KeywordIndex,
    opts: &LayerOptions,
    cache: &LayerCache,
    index_dir: &Path,
) -> Result<(Option<Arc<Layer>>, (f64, f64)), WorktreeError> {
    let started = Instant::now();
    let last = cache.last.lock().ok().and_then(|l| l.clone());
    // Asked first, always: it also takes in what happened since the last call.
    let moved = cache.watch.as_ref().map_or(Moved::Everything, |w| w.moved());
    let same_base = last.as_ref().filter(|(f, _)| state.last_commit.is_some_and(|c| crate::git::names_object(&f.0, &c)));
    let changes = match (&moved, same_base) {
        (Moved::Nothing, Some((_, layer))) => return Ok((layer.clone(), (crate::progress::millis(started), 0.0))),
        // Only what moved, and what the layer held, is compared again.
        (Moved::Paths(paths), Some((fingerprint, layer))) if layer.as_ref().is_none_or(|l| l.over_cap == 0) => {
            let held: BTreeSet<String> = fingerprint.1.iter().map(|(p, _)| p.clone()).collect();
            changes_within(repo, state, opts, Some((paths, &held)), None)?
        }
        _ => changes_within(repo, state, opts, None, cache.started.lock().ok().and_then(|mut s| s.take()))?,
    };
    let status_ms = crate::progress::millis(started);
    let listed = changes.listing().into_iter().map(|f| (f.path, f.blob)).chain(changes.skipped.iter().map(|(p, _)| (p.clone(), None)));
    let fingerprint: Fingerprint = (changes.base.clone(), listed.collect());
    if changes.files.is_empty() && changes.skipped.is_empty() {
        if let Ok(mut l) = cache.last.lock() {
            *l = Some((fingerprint, None));
        }
        return Ok((None, (status_ms, 0.0)));
    }
    if let Some((_, Some(layer))) = last.filter(|(f, _)| *f == fingerprint) {
        return Ok((Some(layer), (status_ms, 0.0)));
    }
    // A watching process keeps its layers itself (and a save waits for no write).
    let kept_in = cache.watch.is_none().then_some(index_dir);
    let layer = Arc::new(analyse_reusing(changes, keyword, opts, &cache.analyses, kept_in)?);
    let took = layer.took_ms;
    if let Ok(mut last) = cache.last.lock() {
        *last = Some((fingerprint, Some(Arc::clone(&layer))));
    }
    Ok((Some(layer), (status_ms, took.1)))
}

/// Paths that may differ from `base`: git's status of the work tree
/// against the index file, and of the index file against `base`'s tree
/// (staged edits, and commits made since the index ran). Untracked files
/// that are not ignored count; content decides in the end. For the whole
/// tree with an index folder to keep it in, the untracked files come from
/// the listing kept there ([`untracked`]), on a thread beside git's status.
fn changed_paths(repo: &Repo, base: &ObjectId, patterns: Vec<gix::bstr::BString>, index_dir: Option<&Path>) -> Result<BTreeSet<String>, WorktreeError> {
    let local = repo.local();
    let err = |message: String| WorktreeError::Status { dir: repo.git_dir().display().to_string(), message };
    let tree = local.find_commit(*base).map_err(|e| err(e.to_string()))?.tree_id().map_err(|e| err(e.to_string()))?;
    let listed = index_dir.filter(|_| patterns.is_empty()).zip(local.workdir().map(Path::to_path_buf));
    let untracked = if listed.is_some() { gix::status::UntrackedFiles::None } else { gix::status::UntrackedFiles::Files };
    let status = local
        .status(gix::progress::Discard)
        .map_err(|e| err(e.to_string()))?
        .untracked_files(untracked)
        .index_worktree_rewrites(None)
        .index_worktree_submodules(gix::status::Submodule::Given { ignore: gix::submodule::config::Ignore::All, check_dirty: false })
        .head_tree(tree.detach())
        .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled);
    let index = local.index_or_empty().map_err(|e| err(e.to_string()))?;
    std::thread::scope(|scope| {
        let walk = listed.map(|(dir, workdir)| {
            let (repo, index) = (local.clone(), &index);
            scope.spawn(move || untracked::untracked_files(&repo, index, &workdir, dir))
        });
        let mut paths = BTreeSet::new();
        if index_matches_tree(&index, tree.detach()) {
            // Nothing staged since `base`: only the work tree can differ,
            // and building an index from the tree (every tree object of a
            // large repository) is skipped.
            for item in status.into_index_worktree_iter(patterns).map_err(|e| err(e.to_string()))? {
                paths.insert(item.map_err(|e| err(e.to_string()))?.rela_path().to_string());
            }
        } else {
            for item in status.into_iter(patterns).map_err(|e| err(e.to_string()))? {
                let item = item.map_err(|e| err(e.to_string()))?;
                let path = match &item {
                    gix::status::Item::IndexWorktree(change) => change.rela_path().to_string(),
                    gix::status::Item::TreeIndex(change) => change.location().to_string(),
                };
                paths.insert(path);
            }
        }
        if let Some(walk) = walk {
            let found = walk.join().map_err(|_| err("listing the untracked files failed".to_string()))?;
            paths.extend(found.map_err(err)?);
        }
        Ok(paths)
    })
}

/// Whether git's index file holds exactly `tree`: its cache of tree ids
/// (the `TREE` extension git writes on commit and invalidates on any
/// staging) has a valid root with that id.
fn index_matches_tree(index: &gix::index::State, tree: ObjectId) -> bool {
    index.tree().is_some_and(|root| root.name.is_empty() && root.num_entries.is_some() && root.id == tree)
}

/// The index's path rules with the indexed commit's `.gitattributes` files:
/// what decides, for a tree other than the work tree, which of its paths
/// the index would hold.
pub(crate) fn indexed_path_filter(repo: &Repo, state: &IndexState, rules: &PathRules) -> Result<PathFilter, WorktreeError> {
    path_filter(repo, state, Path::new(""), &BTreeSet::new(), rules)
}

/// The index's path rules with the `.gitattributes` files as the work tree
/// has them (the indexed version where it has not changed).
fn path_filter(repo: &Repo, state: &IndexState, workdir: &Path, changed: &BTreeSet<String>, rules: &PathRules) -> Result<PathFilter, WorktreeError> {
    let reader = BlobReader::new(repo);
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for (path, blob) in &state.attributes {
        let text = ObjectId::from_hex(blob.as_bytes()).ok().and_then(|id| reader.read(&id).ok()).map(|b| String::from_utf8_lossy(&b).into_owned());
        texts.insert(path.clone(), text.unwrap_or_default());
    }
    for path in changed.iter().filter(|p| is_attributes_file(p)) {
        match std::fs::read_to_string(workdir.join(path)) {
            Ok(text) => texts.insert(path.clone(), text),
            Err(_) => texts.remove(path),
        };
    }
    Ok(PathFilter::new(rules, &texts)?)
}

enum Read {
    Missing,
    /// A directory (a submodule), a symlink, a socket: not a file's text.
    NotAFile,
    Text(Vec<u8>, ObjectId),
    Skip(String),
}

/// Reads a work-tree file whole: its size and modification time must hold
/// still across the read (an editor writing it in place is read again).
fn read_stable(path: &PathBuf) -> Read {
    for _ in 0..READ_TRIES {
        let before = match std::fs::symlink_metadata(path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
            Err(e) => return Read::Skip(format!("cannot be read: {e}")),
        };
        if !before.file_type().is_file() {
            return Read::NotAFile;
        }
        if before.len() > MAX_FILE_BYTES {
            return Read::Skip(format!("{} bytes is over the work tree's limit of {MAX_FILE_BYTES}", before.len()));
        }
        let data = match std::fs::read(path) {
            Ok(d) => d,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Read::Missing,
            Err(e) => return Read::Skip(format!("cannot be read: {e}")),
        };
        let after = std::fs::symlink_metadata(path).ok();
        let still = after.is_some_and(|a| a.len() == before.len() && a.len() == data.len() as u64 && a.modified().ok() == before.modified().ok());
        if !still {
            std::thread::sleep(std::time::Duration::from_millis(20));
            continue;
        }
        if lang::looks_binary(&data) {
            return Read::Skip(BINARY.to_string());
        }
        return match gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, &data) {
            Ok(id) => Read::Text(data, id),
            Err(e) => Read::Skip(format!("cannot be hashed: {e}")),
        };
    }
    Read::Skip("it kept changing while it was read".to_string())
}
