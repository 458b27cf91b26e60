//! The indexing pipeline: bring every store from `last_commit` to the target
//! commit, then record the new state.
//!
//! Invariants:
//! - The unit of work is a path: delete everything indexed under it, then
//!   index it again if it exists at the target. Replaying a run is harmless.
//! - A journal (`PendingRun`: target commit, full or not) is written before
//!   any store changes and removed after the final state write. A run that
//!   died leaves each store at either `last_commit` or the journal's target;
//!   the next run re-indexes the paths of both diffs, which brings every
//!   store to the new target whatever it held (an interrupted full rebuild
//!   is simply redone).
//! - The state file is written last, atomically, after every store committed.

pub mod analyze;
pub mod ci;
pub mod gc;
pub mod heal;
pub mod history;
pub mod paths;
mod record;
pub mod seed;

use record::{LocalRecord, RunRecord};

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gix::ObjectId;
use serde::Serialize;

use crate::analysis::chunk::ChunkOptions;
use crate::git::{Change, Repo, TreeFile};
use crate::progress::{millis, Progress, RunSize};
use crate::semantic::docs::Doc;
use crate::semantic::embed::{EmbedOptions, ModelIdentity, ModelSource};
use crate::semantic::sync::SyncReport;
use crate::stores::keyword::KeywordIndex;
use crate::stores::state::{
    ChunkId, ErrorLines, FileState, IndexLock, IndexState, LastRun, PendingFile, PendingRun, SemanticState, SyntaxErrors, VectorsBehind,
};
use crate::stores::vector::edge::Access;
use crate::stores::vector::Backend;
use analyze::FileOutcome;
pub use analyze::Skipped;

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    State(#[from] crate::stores::state::StateError),
    #[error(transparent)]
    Keyword(#[from] crate::stores::keyword::KeywordError),
    #[error("cannot create the index directory {path}: {source}")]
    IndexDir { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Vectors(#[from] crate::semantic::sync::VectorsError),
    #[error(transparent)]
    Store(#[from] crate::stores::vector::StoreError),
    #[error(transparent)]
    Graph(#[from] crate::graph::GraphError),
    #[error(transparent)]
    PathRules(#[from] paths::PathRulesError),
    #[error(transparent)]
    History(#[from] crate::stores::history::HistoryStoreError),
    #[error("gc: {0}")]
    Gc(String),
    #[error("the index holds embeddings of model `{model}`, but the model cannot be used: {source}. Install it (`git rag model install`), or rebuild without the semantic layer (`git rag index --full --no-semantic`)")]
    ModelGone { model: String, source: crate::semantic::embed::EmbedError },
}

pub type Result<T> = std::result::Result<T, IndexError>;

/// What `git rag index` was asked to do.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Ignore the state file and rebuild everything.
    pub full: bool,
    /// Index this revision instead of HEAD.
    pub rev: Option<String>,
    pub chunk: ChunkOptions,
    /// How long to wait for another indexer to finish.
    pub lock_wait: Duration,
    pub semantic: SemanticOptions,
    /// Paths (files or directories) to index again even if unchanged.
    pub reindex: Vec<String>,
    /// Which paths are indexed (`rag.include` / `rag.exclude`).
    pub paths: paths::PathRules,
    /// How much history the history store keeps.
    pub history: history::HistoryOptions,
    /// How much a run holds in memory at once.
    pub memory: MemoryBounds,
}

/// How much an index run holds in memory at once, past a small record per
/// file: the keyword writer's arena (full when it writes a segment), the
/// code graph's files resolved together, and the graph's lookup entries
/// sorted in one run before they go to disk. Smaller takes less memory and
/// more time; none changes what is indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryBounds {
    pub keyword_heap_bytes: usize,
    pub graph_files_per_batch: usize,
    pub graph_sort_run_bytes: usize,
}

impl Default for MemoryBounds {
    /// The Linux kernel (78,600 files) in ~1.3 GB: its files' headers are
    /// shared within a batch; its largest lookup table, 3.8 M definitions,
    /// is a few runs.
    fn default() -> Self {
        MemoryBounds { keyword_heap_bytes: 256_000_000, graph_files_per_batch: 4096, graph_sort_run_bytes: 64 << 20 }
    }
}

impl MemoryBounds {
    pub(crate) fn graph(&self) -> crate::graph::Batches {
        crate::graph::Batches { files: self.graph_files_per_batch, sort_run_bytes: self.graph_sort_run_bytes }
    }
}

/// The semantic layer of a run: which model, which store.
#[derive(Debug, Clone)]
pub struct SemanticOptions {
    /// `false`: keyword and symbol index only (`--no-semantic`, `rag.semantic=false`).
    pub enabled: bool,
    pub model: ModelSource,
    pub backend: Backend,
    pub embed: EmbedOptions,
    /// A team's Qdrant server whose vector cache this index borrows from
    /// (`rag.vectorCache = server`; embedded store).
    pub shared_cache: Option<crate::semantic::shared_cache::SharedCacheOptions>,
}

impl Default for SemanticOptions {
    fn default() -> Self {
        SemanticOptions { enabled: true, model: ModelSource::default_onnx(), backend: Backend::embedded(), embed: EmbedOptions::default(), shared_cache: None }
    }
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            full: false,
            rev: None,
            chunk: ChunkOptions::default(),
            lock_wait: Duration::from_secs(10),
            semantic: SemanticOptions::default(),
            reindex: Vec::new(),
            paths: paths::PathRules::default(),
            history: history::HistoryOptions::default(),
            memory: MemoryBounds::default(),
        }
    }
}

/// Hash of everything that changes what ends up in the index.
pub fn config_hash(chunk: &ChunkOptions) -> String {
    let key = format!(
        "schema={};keyword={};analysis={};chunk={};max_parse={};window={}",
        crate::stores::state::SCHEMA_VERSION,
        crate::stores::keyword::FORMAT_VERSION,
        crate::analysis::VERSION,
        chunk.budget,
        chunk.max_parse_bytes,
        chunk.max_window_lines
    );
    blake3::hash(key.as_bytes()).to_hex()[..16].to_string()
}

/// How the run went.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum Outcome {
    /// The repository has no commits: nothing to index.
    Empty,
    UpToDate {
        commit: String,
        /// The history step (`None`: no history store is kept, or it failed: `history_error`).
        history: Option<history::HistoryReport>,
        #[serde(skip_serializing_if = "Option::is_none")]
        history_error: Option<String>,
    },
    Indexed(Box<Report>),
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub commit: String,
    /// The history step (`None`: no history store is kept, or it failed: `history_error`).
    pub history: Option<history::HistoryReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history_error: Option<String>,
    pub previous: Option<String>,
    pub full: bool,
    /// Why a full rebuild happened, if it did.
    pub full_reason: Option<String>,
    /// The other worktree's index this first run started from ([`seed`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seeded_from: Option<String>,
    pub files_indexed: usize,
    pub files_deleted: usize,
    pub bytes_indexed: u64,
    pub renamed: usize,
    pub chunks_added: usize,
    pub files_total: usize,
    pub chunks_total: usize,
    pub symbols_total: usize,
    pub skipped: Skipped,
    /// Files not indexed because their blob could not be read, by path: the
    /// index is at `commit` but for these; every later run retries them.
    pub pending: BTreeMap<String, PendingFile>,
    pub files_with_syntax_errors: usize,
    /// This run's files with syntax errors: the share of their lines still
    /// analysed, the worst of them by name.
    pub syntax_errors: Option<SyntaxErrors>,
    /// The vector store could not be written this run (a server or an
    /// endpoint out of reach): what it lacks; the next run catches up.
    pub vectors_behind: Option<VectorsBehind>,
    /// Milliseconds from the start until keyword, symbol and graph search
    /// answered at the commit (before the vectors, when there were many).
    pub searchable_ms: f64,
    /// The semantic layer's work, when it is on.
    pub semantic: Option<SyncReport>,
    /// Texts embedded by the model in this run.
    pub embedded: usize,
    /// Points whose vectors came from the cache.
    pub reused: usize,
    /// Texts whose vectors came from the team's server cache.
    pub borrowed: usize,
    pub took_ms: f64,
    /// Where the time went, in ms.
    pub timings: BTreeMap<String, f64>,
    /// The process's peak resident memory after each step, in MB (Linux).
    pub peak_rss_mb: BTreeMap<String, f64>,
}

/// Work for one run: paths to clear, and files to (re)index.
struct Plan {
    full: bool,
    full_reason: Option<String>,
    /// The semantic layer changed (another model, provider or store): every
    /// file's vectors are made again; keyword, symbols and graph follow `index`.
    vectors_full: bool,
    /// Paths whose vectors a run that could not reach the vector store left
    /// behind: made again although their files did not change.
    vectors_redo: BTreeSet<String>,
    clear: BTreeSet<String>,
    index: Vec<TreeFile>,
    renamed: usize,
}

/// Brings the index in `index_dir` to the target commit.
pub fn run(repo: &Repo, index_dir: &Path, opts: &IndexOptions, progress: &dyn Progress) -> Result<Outcome> {
    let started = Instant::now();
    // Most runs are a commit's few files: said from the start (the state is
    // read before the run knows its size); the plan then says what it is.
    progress.run_size(if opts.full { RunSize::Large } else { RunSize::Small });
    let target = match &opts.rev {
        Some(rev) => Some(repo.resolve(rev)?),
        None => repo.head_commit()?,
    };
    let Some(target) = target else { return Ok(Outcome::Empty) };
    std::fs::create_dir_all(index_dir).map_err(|source| IndexError::IndexDir { path: index_dir.to_path_buf(), source })?;
    let _lock = IndexLock::acquire(index_dir, opts.lock_wait)?;
    let seeded = if opts.full { None } else { seed::seed(repo, index_dir, &target, opts.lock_wait, progress) };

    let result = run_locked(repo, index_dir, opts, target, started, progress).map(|outcome| match outcome {
        Outcome::Indexed(mut r) => {
            r.seeded_from = seeded.map(|s| s.from.display().to_string());
            (r.history, r.history_error) = history_step(repo, index_dir, &target, opts, progress);
            Outcome::Indexed(r)
        }
        Outcome::UpToDate { commit, .. } => {
            let (history, history_error) = history_step(repo, index_dir, &target, opts, progress);
            Outcome::UpToDate { commit, history, history_error }
        }
        other => other,
    });
    let last = match &result {
        Ok(Outcome::Indexed(r)) => Some(LastRun {
            finished_at: crate::stores::state::now_secs(),
            commit: Some(r.commit.clone()),
            mode: if r.full { "full".into() } else { "incremental".into() },
            files_indexed: r.files_indexed,
            files_deleted: r.files_deleted,
            chunks: r.chunks_added,
            embedded: r.embedded,
            reused: r.reused,
            took_ms: r.took_ms,
            error: None,
        }),
        Ok(_) => None,
        Err(e) => Some(LastRun {
            finished_at: crate::stores::state::now_secs(),
            commit: Some(target.to_string()),
            mode: "failed".into(),
            error: Some(e.to_string()),
            took_ms: millis(started),
            ..LastRun::default()
        }),
    };
    if let Some(last) = last {
        // Best effort: the record of a run must not turn success into failure.
        let _ = last.save(index_dir);
    }
    result
}

/// The history store brought to `target` (under the run's lock). Its
/// failure fails no run: the other stores are at `target`; it is said, and
/// the next run tries again.
fn history_step(
    repo: &Repo,
    index_dir: &Path,
    target: &ObjectId,
    opts: &IndexOptions,
    progress: &dyn Progress,
) -> (Option<history::HistoryReport>, Option<String>) {
    match history::update(repo, index_dir, target, &opts.history, opts.full, progress) {
        Ok(report) => (report, None),
        Err(e) => {
            progress.note(&format!("the history store was not updated ({e}); `git rag history` answers from the commits it held; the next run tries again"));
            (None, Some(e.to_string()))
        }
    }
}

/// A run after planning: what it starts from and what it will do.
struct Prepared {
    previous: Option<IndexState>,
    /// The state being built: the previous one (incremental) or a new one.
    state: IndexState,
    plan: Plan,
    keyword: KeywordIndex,
    manifest: Option<ModelIdentity>,
    semantic: Option<SemanticState>,
    hash: String,
    paths: paths::Decided,
}

/// What the analyze step produced for the stores and the state.
#[derive(Default)]
struct Collected {
    files: HashMap<String, FileState>,
    docs: Vec<Doc>,
    facts: Vec<(String, crate::graph::FileFacts)>,
    skipped: Skipped,
    pending: BTreeMap<String, PendingFile>,
    files_with_syntax_errors: usize,
    /// Summed before the files move into the state.
    syntax_errors: Option<SyntaxErrors>,
    bytes: u64,
}

/// Where a run's time went, and the process's peak memory after each step
/// (what raised it: `--json` of a big repository's run says).
#[derive(Default)]
struct Timings {
    ms: BTreeMap<String, f64>,
    peak_rss_mb: BTreeMap<String, f64>,
}

impl Timings {
    fn insert(&mut self, step: String, ms: f64) {
        if let Some(mb) = peak_rss_mb() {
            self.peak_rss_mb.insert(step.clone(), mb);
        }
        self.ms.insert(step, ms);
    }
}

/// The process's peak resident set so far, in MB (Linux's `VmHWM`; `None`
/// elsewhere).
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kb: f64 = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?.trim().trim_end_matches("kB").trim().parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// A run indexing at most this many files is small (a commit's files): one
/// keyword writer thread with a small arena, and small pages.
const SMALL_RUN_FILES: usize = 200;

/// The keyword writer's threads and arena for a run (a quarter of it the
/// symbol writer's: a small run's 45 MB are 30 for chunks, 15 for symbols;
/// a large run's is `heap`), told to `progress` as the run's size.
fn size_run(plan: &Plan, heap: usize, progress: &dyn Progress) -> (usize, usize) {
    let small = !plan.full && plan.index.len() <= SMALL_RUN_FILES;
    progress.run_size(if small { RunSize::Small } else { RunSize::Large });
    if small {
        (1, heap.min(45_000_000))
    } else {
        (rayon::current_num_threads(), heap)
    }
}

fn run_locked(repo: &Repo, index_dir: &Path, opts: &IndexOptions, target: ObjectId, started: Instant, progress: &dyn Progress) -> Result<Outcome> {
    let mut timings = Timings::default();
    let Some(mut run) = prepare(repo, index_dir, opts, target, progress, &mut timings)? else {
        heal::record_stamps(index_dir, progress);
        return Ok(Outcome::UpToDate { commit: target.to_string(), history: None, history_error: None });
    };

    let t = Instant::now();
    let mut writer = open_writer(&run.keyword, &run.plan, opts, progress)?;
    timings.insert("open_writer".into(), millis(t));

    let t = Instant::now();
    let spill = run.plan.full.then(|| crate::graph::FactsSpill::create(index_dir, opts.memory.graph())).transpose()?;
    let mut collected = collect(repo, std::mem::take(&mut run.plan.index), opts, run.manifest.as_ref(), &writer, spill.as_ref(), progress)?;
    collected.skipped.excluded = run.paths.excluded;
    if let (true, Some(m)) = (run.plan.vectors_full || !run.plan.vectors_redo.is_empty(), &run.manifest) {
        collected.docs.extend(unchanged_docs(repo, &run, &collected, target, opts, m, progress)?);
    }
    timings.insert("parse_chunk_add".into(), millis(t));

    // A full run's calls wait in `spill` until their files' references resolve.
    let (patterns, prepared) = graph_beside_keyword_write(index_dir, &run, std::mem::take(&mut collected.facts), spill, target, &mut writer, &mut timings)?;

    // A run with much to embed commits the other layers first (search now,
    // vectors next; the state says which vectors are not in yet). Otherwise
    // the vector store, then the keyword index: either may hold the target or
    // the last commit after a crash; the journal makes the next run redo both.
    let docs = std::mem::take(&mut collected.docs);
    let search_first = run.manifest.is_some() && (run.plan.full || run.plan.vectors_full || docs.len() > SEARCH_FIRST_DOCS);
    let (mut docs, mut vectors) = (Some(docs), None);
    if !search_first {
        vectors = Some(vectors_step(index_dir, opts, &run, docs.take().unwrap_or_default(), &patterns, &mut timings, progress)?);
        crate::env::failpoint("after-vector-commit");
    }

    crate::env::failpoint("before-keyword-commit");
    let t = Instant::now();
    prepared.commit(&target.to_string())?;
    writer.wait_merges()?;
    crate::env::failpoint("after-keyword-commit");
    timings.insert("commit".into(), millis(t));

    let chunks_added = collected.files.values().map(|f| f.chunks.len()).sum();
    let files_indexed = collected.files.len();
    let behind = match &vectors {
        Some((_, behind)) => behind.clone(),
        None => Some(vectors_left_behind(&run, "not embedded yet: the run that indexed them was still embedding".into())),
    };
    let (mut state, files_deleted) = next_state(&mut run, &mut collected, target, opts, behind);
    state.vector_points = vectors.as_ref().and_then(points_left);
    state.updated_at = crate::stores::state::now_secs();
    let t = Instant::now();
    LocalRecord::new(index_dir).commit(&state)?;
    timings.insert("state".into(), millis(t));
    let searchable_ms = millis(started);
    if let Some(docs) = docs.take() {
        progress.note(&format!("keyword, symbol and graph search are at {}; now the vectors", &target.to_string()[..12]));
        crate::env::failpoint("before-vectors");
        let done = vectors_step(index_dir, opts, &run, docs, &patterns, &mut timings, progress)?;
        crate::env::failpoint("after-vector-commit");
        state.vectors_behind = done.1.clone();
        state.vector_points = points_left(&done);
        LocalRecord::new(index_dir).commit(&state)?;
        vectors = Some(done);
    }
    let sync_report = vectors.and_then(|(report, _)| report);
    heal::record_stamps(index_dir, progress);

    Ok(Outcome::Indexed(Box::new(Report {
        commit: target.to_string(),
        history: None,
        history_error: None,
        previous: run.previous.as_ref().and_then(|p| p.last_commit.map(|c| c.to_string())),
        full: run.plan.full,
        full_reason: run.plan.full_reason,
        seeded_from: None,
        files_indexed,
        files_deleted,
        bytes_indexed: collected.bytes,
        renamed: run.plan.renamed,
        chunks_added,
        files_total: state.files.len(),
        chunks_total: state.chunk_count(),
        symbols_total: state.symbol_count(),
        skipped: collected.skipped,
        pending: state.pending.clone(),
        files_with_syntax_errors: collected.files_with_syntax_errors,
        syntax_errors: collected.syntax_errors.take(),
        vectors_behind: state.vectors_behind.clone(),
        searchable_ms,
        embedded: sync_report.as_ref().map_or(0, |r| r.embedded),
        reused: sync_report.as_ref().map_or(0, |r| r.reused),
        borrowed: sync_report.as_ref().map_or(0, |r| r.borrowed),
        semantic: sync_report,
        took_ms: millis(started),
        timings: timings.ms,
        peak_rss_mb: timings.peak_rss_mb,
    })))
}

/// The keyword writer of a run, with everything the run replaces deleted.
fn open_writer<'k>(keyword: &'k KeywordIndex, plan: &Plan, opts: &IndexOptions, progress: &dyn Progress) -> Result<crate::stores::keyword::KeywordWriter<'k>> {
    let (writer_threads, heap) = size_run(plan, opts.memory.keyword_heap_bytes, progress);
    let mut writer = keyword.writer(writer_threads, heap)?;
    if plan.full {
        writer.delete_all()?;
    }
    for path in &plan.clear {
        writer.delete_path(path);
    }
    Ok(writer)
}

/// The code graph: replaces the changed files' facts, re-resolves what they
/// touch, and is saved first (a replayed run rebuilds it from scratch).
/// Meanwhile the keyword indexes write their segments, not yet visible: the
/// two are the last big steps of a full run and each leaves a core idle part
/// of the time (redb's single writer, tantivy's per-segment serialization).
fn graph_beside_keyword_write<'w>(
    index_dir: &Path,
    run: &Prepared,
    facts: Vec<(String, crate::graph::FileFacts)>,
    spill: Option<crate::graph::FactsSpill>,
    target: ObjectId,
    writer: &'w mut crate::stores::keyword::KeywordWriter<'_>,
    timings: &mut Timings,
) -> Result<(Vec<crate::analysis::patterns::Pattern>, crate::stores::keyword::PreparedKeyword<'w>)> {
    let t = Instant::now();
    let (graph, prepared) = std::thread::scope(|s| {
        let graph = s.spawn(|| {
            let t = Instant::now();
            update_graph(index_dir, &run.plan, facts, spill, target, run.manifest.is_some()).map(|p| (p, millis(t)))
        });
        let prepared = writer.prepare();
        (graph.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)), prepared)
    });
    let (patterns, graph_ms) = graph?;
    timings.insert("graph".into(), graph_ms);
    let prepared = prepared?;
    timings.insert("graph_and_keyword_write".into(), millis(t));
    Ok((patterns, prepared))
}

/// Replaces the changed files' facts in the code graph, saves it at
/// `target`, and returns the project's conventions it now holds (read back
/// when they did not change, and only if the vectors need them).
fn update_graph(
    index_dir: &Path,
    plan: &Plan,
    facts: Vec<(String, crate::graph::FileFacts)>,
    spill: Option<crate::graph::FactsSpill>,
    target: ObjectId,
    need_patterns: bool,
) -> Result<Vec<crate::analysis::patterns::Pattern>> {
    let mut graph = match spill {
        Some(spill) => crate::graph::GraphStore::spilled(index_dir, spill),
        None if plan.full => crate::graph::GraphStore::empty(index_dir),
        None => crate::graph::GraphStore::open(index_dir)?,
    };
    graph.update(&plan.clear, facts)?;
    Ok(match graph.save(&target.to_string())? {
        Some(patterns) => patterns,
        None if need_patterns => crate::graph::load_patterns(index_dir)?,
        None => Vec::new(),
    })
}

/// The state after this run: the previous one (or a new one) with the
/// cleared paths removed and what the run indexed added; and how many of the
/// cleared paths were deletions.
fn next_state(run: &mut Prepared, collected: &mut Collected, target: ObjectId, opts: &IndexOptions, behind: Option<VectorsBehind>) -> (IndexState, usize) {
    let files_deleted = run.plan.clear.iter().filter(|p| !collected.files.contains_key(*p) && run.state.files.contains_key(*p)).count();
    let mut state = std::mem::replace(&mut run.state, IndexState::new(String::new()));
    for path in &run.plan.clear {
        state.files.remove(path);
        state.pending.remove(path);
        state.changed_records.note(path);
    }
    for path in collected.files.keys() {
        state.changed_records.note(path);
    }
    collected.syntax_errors = SyntaxErrors::of(&collected.files);
    state.files.extend(std::mem::take(&mut collected.files));
    state.pending.extend(std::mem::take(&mut collected.pending));
    state.last_commit = Some(target);
    state.config_hash = std::mem::take(&mut run.hash);
    state.semantic = run.semantic.clone();
    state.semantic_off = !opts.semantic.enabled;
    state.path_rules = std::mem::take(&mut run.paths.fingerprint);
    state.attributes = std::mem::take(&mut run.paths.attributes);
    state.vectors_behind = behind;
    (state, files_deleted)
}

/// Runs with more vector documents than this commit the other layers before embedding.
const SEARCH_FIRST_DOCS: usize = 512;

/// Brings the vector store in line with the run (when the semantic layer
/// is on). A store or endpoint out of reach holds back the vectors only
/// (`Some` of what they lack).
fn vectors_step(
    index_dir: &Path,
    opts: &IndexOptions,
    run: &Prepared,
    docs: Vec<Doc>,
    patterns: &[crate::analysis::patterns::Pattern],
    timings: &mut Timings,
    progress: &dyn Progress,
) -> Result<(Option<crate::semantic::sync::SyncReport>, Option<VectorsBehind>)> {
    let Some(m) = &run.manifest else { return Ok((None, None)) };
    let t = Instant::now();
    let synced = opts
        .semantic
        .backend
        .open(index_dir, m.dims, &m.id, Access::Write, opts.lock_wait.max(Duration::from_secs(60)))
        .map_err(crate::semantic::sync::VectorsError::from)
        .and_then(|store| {
            let mut embedder = crate::semantic::embed::LazyEmbedder::new(&opts.semantic.model, opts.semantic.embed);
            let cleared: Vec<String> = run.plan.clear.union(&run.plan.vectors_redo).cloned().collect();
            let pattern_docs = crate::semantic::docs::pattern_documents(patterns, &m.id);
            let full = run.plan.full || run.plan.vectors_full;
            // What queries embedded from the work tree: this run's texts need not be embedded again.
            let pending = crate::semantic::pending::PendingVectors::load(index_dir, &m.id);
            let changes = crate::semantic::sync::Changes { full, cleared: &cleared, docs, patterns: pattern_docs, model_id: &m.id, pending: Some(&pending) };
            let mut report = crate::semantic::sync::sync(store.as_ref(), &mut embedder, changes, opts.semantic.shared_cache.as_ref(), progress)?;
            if matches!(opts.semantic.backend, crate::stores::vector::Backend::Embedded { .. }) {
                let mut totals = BTreeMap::new();
                for c in crate::stores::vector::Collection::TREE {
                    totals.insert(c.name().to_string(), store.count(c)?);
                }
                report.totals = Some(totals);
            }
            // Taken into the cache (or not needed): a later query embeds what is still uncommitted.
            if let Err(e) = pending.clear() {
                progress.note(&format!("could not remove {} ({e}); it is only a cache", crate::semantic::pending::FILE));
            }
            Ok(report)
        });
    timings.insert("vectors".into(), millis(t));
    match synced {
        Ok(report) => Ok((Some(report), None)),
        Err(e) if e.is_outage() => Ok((None, Some(vectors_left_behind(run, e.to_string())))),
        Err(e) => Err(e.into()),
    }
}

/// The embedded store's points per collection after a vectors step that
/// brought every vector in (what the next run checks the store still holds).
fn points_left((report, behind): &(Option<crate::semantic::sync::SyncReport>, Option<VectorsBehind>)) -> Option<BTreeMap<String, usize>> {
    report.as_ref().and_then(|r| r.totals.clone()).filter(|_| behind.is_none())
}

/// What the vector store lacks after a run that could not write it: what
/// earlier runs left behind, and everything this run changed.
fn vectors_left_behind(run: &Prepared, reason: String) -> VectorsBehind {
    let before = run.previous.as_ref().and_then(|p| p.vectors_behind.clone()).unwrap_or_default();
    let all = before.all || run.plan.full || run.plan.vectors_full;
    let paths = if all {
        BTreeSet::new()
    } else {
        before.paths.into_iter().chain(run.plan.clear.iter().cloned()).chain(run.plan.vectors_redo.iter().cloned()).collect()
    };
    VectorsBehind { all, paths, reason }
}

/// Loads the previous state, plans the run, opens the keyword index and
/// writes the journal; `None` when the index is already at `target`.
fn prepare(repo: &Repo, index_dir: &Path, opts: &IndexOptions, target: ObjectId, progress: &dyn Progress, timings: &mut Timings) -> Result<Option<Prepared>> {
    let hash = config_hash(&opts.chunk);
    let t = Instant::now();
    let record = LocalRecord::new(index_dir);
    let mut previous = if opts.full { None } else { heal::load_previous(&record, progress)? };
    timings.insert("load_state".into(), millis(t));
    // A damaged store (or a code graph missing or of another version) is
    // rebuilt at the indexed commit before the run plans (`heal.rs`).
    let t = Instant::now();
    if let Some(prev) = previous.as_mut() {
        heal::heal(repo, index_dir, prev, opts, progress)?;
    }
    timings.insert("verify_heal".into(), millis(t));
    let pending = record.pending();
    let keyword_dir = index_dir.join("keyword");
    let manifest = semantic_model(opts, previous.as_ref(), progress)?;
    let semantic = manifest.as_ref().map(|m| SemanticState {
        model: m.id.clone(),
        dims: m.dims,
        store: opts.semantic.backend.identity(),
        recipe: crate::semantic::docs::RECIPE,
    });

    let t = Instant::now();
    let mut plan = match plan(repo, previous.as_ref(), pending.as_ref(), &hash, semantic.as_ref(), target, opts.full, progress)? {
        Some(p) => p,
        None if opts.reindex.is_empty() && !previous.as_ref().is_some_and(|p| paths::changed_since(p, &opts.paths)) => return Ok(None),
        None => {
            Plan { full: false, full_reason: None, vectors_full: false, vectors_redo: BTreeSet::new(), clear: BTreeSet::new(), index: Vec::new(), renamed: 0 }
        }
    };
    if !plan.full && !opts.reindex.is_empty() {
        add_reindexed(repo, &mut plan, previous.as_ref(), &opts.reindex, &target)?;
    }
    timings.insert("plan".into(), millis(t));
    let keyword = match KeywordIndex::open_or_create(&keyword_dir) {
        Ok(k) => k,
        Err(crate::stores::keyword::KeywordError::SchemaMismatch { .. }) => {
            plan.full = true;
            plan.full_reason = Some("the keyword index was made by another version of git-rag".into());
            KeywordIndex::destroy(&keyword_dir)?;
            KeywordIndex::open_or_create(&keyword_dir)?
        }
        Err(e) => return Err(e.into()),
    };
    if plan.full {
        // A full plan lists the whole tree.
        plan.index = repo.list_files(&target)?;
        plan.clear.clear();
    }
    let paths = paths::apply(repo, &mut plan, previous.as_ref(), &opts.paths, &target)?;
    if let Some(reason) = &plan.full_reason {
        progress.note(&format!("full rebuild: {reason}"));
    }

    let state = match (previous.as_mut(), plan.full) {
        // The records move to the new state (nothing reads them from
        // `previous` after planning); the rest is small.
        (Some(prev), false) => {
            let files = std::mem::take(&mut prev.files);
            let changed = std::mem::take(&mut prev.changed_records);
            IndexState { files, changed_records: changed, ..prev.clone() }
        }
        _ => IndexState::new(hash.clone()),
    };
    // Record the run before touching any store (see the module docs).
    let t = Instant::now();
    record.journal(&state, &target.to_string(), plan.full, &plan.clear)?;
    timings.insert("journal".into(), millis(t));
    Ok(Some(Prepared { previous, state, plan, keyword, manifest, semantic, hash, paths }))
}

/// Analyzes the files (in parallel), adding each to the keyword writer, and
/// gathers what the graph, the vectors and the state need. Blobs a partial
/// clone left out are fetched from its promisor remote in one batch and the
/// files analyzed again; what still cannot be read is kept pending.
fn collect(
    repo: &Repo,
    files: Vec<TreeFile>,
    opts: &IndexOptions,
    manifest: Option<&ModelIdentity>,
    writer: &crate::stores::keyword::KeywordWriter<'_>,
    spill: Option<&crate::graph::FactsSpill>,
    progress: &dyn Progress,
) -> Result<Collected> {
    let mut out = Collected::default();
    let files = analyze::select(files, &mut out.skipped);
    let derive = |file: &TreeFile, chunks: crate::analysis::chunk::FileChunks| -> Result<_> {
        writer.add_file(&file.path, &chunks)?;
        let docs = manifest.map(|m| crate::semantic::docs::documents(&file.path, &file.id.to_string(), &chunks, &m.id)).unwrap_or_default();
        let state = FileState {
            blob: file.id.to_string(),
            language: chunks.language.name().to_string(),
            chunks: chunks.chunks.iter().filter_map(|c| ChunkId::parse(&c.id)).collect(),
            symbols: chunks.symbols.len(),
            syntax_errors: chunks.has_errors.then_some(ErrorLines { lines: chunks.lines, error_lines: chunks.error_lines }),
        };
        let facts = crate::graph::FileFacts::of(&chunks);
        let facts = match spill {
            Some(spill) => spill.keep(&file.path, facts)?,
            None => facts,
        };
        Ok((state, docs, facts, chunks.has_errors))
    };
    let mut unreadable = out.gather(analyze::analyze(repo, files, &opts.chunk, progress, derive))?;
    if !unreadable.is_empty() {
        if let Some(remote) = repo.promisor_remote() {
            progress.note(&format!("fetching {} objects this partial clone left out from `{remote}`", unreadable.len()));
            let ids: Vec<ObjectId> = unreadable.iter().map(|(f, _)| f.id).collect();
            match repo.fetch_promised(&remote, &ids) {
                Ok(()) => {
                    let again: Vec<TreeFile> = unreadable.into_iter().map(|(f, _)| f).collect();
                    unreadable = out.gather(analyze::analyze(&repo.reopened()?, again, &opts.chunk, progress, derive))?;
                }
                Err(e) => progress.note(&format!("{e}; the files stay pending")),
            }
        }
    }
    for (file, reason) in unreadable {
        out.pending.insert(file.path, PendingFile { blob: file.id.to_string(), reason });
    }
    Ok(out)
}

type Product = (FileState, Vec<Doc>, crate::graph::FileFacts, bool);

/// The vector documents of the indexed files this run leaves alone, for a
/// run that re-embeds everything (the semantic layer changed): chunked
/// again, nothing else touched. A file that cannot be read now is reported
/// and keeps its keyword entry; its vectors come with its next change.
fn unchanged_docs(
    repo: &Repo,
    run: &Prepared,
    collected: &Collected,
    target: ObjectId,
    opts: &IndexOptions,
    model: &ModelIdentity,
    progress: &dyn Progress,
) -> Result<Vec<Doc>> {
    let unchanged: Vec<TreeFile> = repo
        .list_files(&target)?
        .into_iter()
        .filter(|f| run.plan.vectors_full || run.plan.vectors_redo.contains(&f.path))
        .filter(|f| run.state.files.contains_key(&f.path) && !run.plan.clear.contains(&f.path) && !collected.files.contains_key(&f.path))
        .collect();
    let derive = |file: &TreeFile, chunks: crate::analysis::chunk::FileChunks| -> Result<Vec<Doc>> {
        Ok(crate::semantic::docs::documents(&file.path, &file.id.to_string(), &chunks, &model.id))
    };
    let mut docs = Vec::new();
    for (file, outcome) in analyze::analyze(repo, unchanged, &opts.chunk, progress, derive) {
        match outcome? {
            FileOutcome::Indexed { product, .. } => docs.extend(product),
            FileOutcome::Binary => {}
            FileOutcome::Unreadable(reason) => progress.note(&format!("{}: no vectors this run: {reason}", file.path)),
        }
    }
    Ok(docs)
}

impl Collected {
    /// Keeps what the analysis produced; returns the files it could not read.
    fn gather(&mut self, results: Vec<(TreeFile, Result<FileOutcome<Product>>)>) -> Result<Vec<(TreeFile, String)>> {
        let mut unreadable = Vec::new();
        for (file, r) in results {
            match r? {
                FileOutcome::Indexed { product: (state, docs, facts, has_errors), bytes } => {
                    self.files_with_syntax_errors += usize::from(has_errors);
                    self.bytes += bytes;
                    self.facts.push((file.path.clone(), facts));
                    self.files.insert(file.path, state);
                    self.docs.extend(docs);
                }
                FileOutcome::Binary => self.skipped.binary += 1,
                FileOutcome::Unreadable(reason) => unreadable.push((file, reason)),
            }
        }
        Ok(unreadable)
    }
}

/// The model of this run's semantic layer, or `None` when it is off. A model
/// that is missing while the index holds its vectors is an error: going on
/// would silently drop the semantic layer.
fn semantic_model(opts: &IndexOptions, previous: Option<&IndexState>, progress: &dyn Progress) -> Result<Option<ModelIdentity>> {
    if !opts.semantic.enabled {
        return Ok(None);
    }
    match opts.semantic.model.identify() {
        Ok(m) => Ok(Some(m)),
        Err(source) => match previous.and_then(|p| p.semantic.as_ref()) {
            Some(prev) => Err(IndexError::ModelGone { model: prev.model.clone(), source }),
            None => {
                progress.note(&format!("semantic layer off: {source}; keyword and symbol search work"));
                Ok(None)
            }
        },
    }
}

/// Adds the files under `paths` (as of `target`) to an incremental plan, and
/// clears what the index held under them.
fn add_reindexed(repo: &Repo, plan: &mut Plan, previous: Option<&IndexState>, paths: &[String], target: &ObjectId) -> Result<()> {
    let wanted =
        |p: &str| paths.iter().map(|r| r.trim_matches('/')).any(|r| r.is_empty() || p == r || p.strip_prefix(r).is_some_and(|rest| rest.starts_with('/')));
    let queued: BTreeSet<String> = plan.index.iter().map(|f| f.path.clone()).collect();
    for f in repo.list_files(target)? {
        if wanted(&f.path) && !queued.contains(&f.path) {
            plan.clear.insert(f.path.clone());
            plan.index.push(f);
        }
    }
    if let Some(prev) = previous {
        plan.clear.extend(prev.files.keys().filter(|p| wanted(p)).cloned());
    }
    Ok(())
}

/// Decides between a full rebuild, an incremental update and nothing to do.
// What a run knows when it plans, from its one caller: a struct of them
// would be built only to be taken apart here.
#[allow(clippy::too_many_arguments)]
fn plan(
    repo: &Repo,
    previous: Option<&IndexState>,
    pending: Option<&PendingRun>,
    hash: &str,
    semantic: Option<&SemanticState>,
    target: ObjectId,
    forced: bool,
    progress: &dyn Progress,
) -> Result<Option<Plan>> {
    let full = |reason: &str| {
        Ok(Some(Plan {
            full: true,
            full_reason: Some(reason.to_string()),
            vectors_full: false,
            vectors_redo: BTreeSet::new(),
            clear: BTreeSet::new(),
            index: Vec::new(),
            renamed: 0,
        }))
    };
    if forced {
        return full("--full was given");
    }
    let Some(prev) = previous else { return full("no index yet") };
    if prev.config_hash != hash {
        return full("indexing options changed since the last run");
    }
    let semantic_changed = prev.semantic.as_ref() != semantic;
    if semantic_changed {
        let describe = |s: Option<&SemanticState>| s.map_or("none".to_string(), |s| format!("{} in {}, recipe {}", s.model, s.store, s.recipe));
        let what = if semantic.is_some() { "re-embedding every file; keyword, symbol and graph layers are kept" } else { "dropping it" };
        progress.note(&format!("the semantic layer changed (was: {}; now: {}): {what}", describe(prev.semantic.as_ref()), describe(semantic)));
    }
    let Some(last_id) = prev.last_commit else { return full("the previous index never completed") };
    if !repo.has_commit(&last_id) {
        progress.note(&format!(
            "the last indexed commit {last_id} is no longer in the repository (history rewritten and collected, or a shallow clone); rebuilding the index in full"
        ));
        return full("last indexed commit is gone");
    }
    let parse = |s: &str| ObjectId::from_hex(s.as_bytes()).ok();
    let pending_id = match pending {
        None => None,
        Some(p) if p.full => return full("the previous full rebuild was interrupted"),
        Some(p) => match parse(&p.target).filter(|id| repo.has_commit(id)) {
            Some(id) => Some(id),
            None => return full("an interrupted run targeted a commit that is gone"),
        },
    };
    let behind = prev.vectors_behind.as_ref().filter(|_| semantic.is_some());
    let vectors_full = semantic.is_some() && (semantic_changed || behind.is_some_and(|b| b.all));
    let vectors_redo = match behind {
        Some(b) if !vectors_full => b.paths.clone(),
        _ => BTreeSet::new(),
    };
    if behind.is_some() {
        progress.note("bringing the vectors that the last runs could not write in line");
    }
    if last_id == target && pending_id.is_none() && prev.pending.is_empty() && !semantic_changed && prev.vectors_behind.is_none() {
        return Ok(None);
    }
    let mut changes = repo.diff(&last_id, &target)?;
    if let Some(p) = pending_id {
        // A previous run died on its way to `p`: its paths may hold either version.
        changes.extend(repo.diff(&p, &target)?);
    }
    let mut clear = BTreeSet::new();
    let mut index: BTreeMap<String, TreeFile> = BTreeMap::new();
    let mut renamed = 0;
    for change in &changes {
        for p in change.paths() {
            clear.insert(p.to_string());
        }
        match change {
            Change::Added(f) | Change::Modified { new: f, .. } => {
                index.insert(f.path.clone(), f.clone());
            }
            Change::Renamed { new, .. } => {
                renamed += 1;
                index.insert(new.path.clone(), new.clone());
            }
            Change::Deleted(_) => {}
        }
    }
    // Files a previous run could not read are tried again, as they are now.
    for path in prev.pending.keys() {
        if index.contains_key(path) {
            continue;
        }
        clear.insert(path.clone());
        if let Some(f) = repo.file_at(&target, path)? {
            index.insert(path.clone(), f);
        }
    }
    Ok(Some(Plan { full: false, full_reason: None, vectors_full, vectors_redo, clear, index: index.into_values().collect(), renamed }))
}
