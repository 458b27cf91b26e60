//! Heal on index: before a run plans, the stores are checked — in full
//! ([`Depth::Full`]) where their files changed since git-rag last left them
//! ([`Stamps`]), as an open checks them otherwise — and a damaged one is rebuilt
//! from what is intact, at the commit the state records; the run then goes
//! on as it would have. What each is rebuilt from:
//! - the keyword index: the per-file records (which files) and the
//!   repository (their content at that commit), analysed again;
//! - the code graph: the facts of the same analysis, written as a full run
//!   writes them;
//! - the vector store: emptied and marked behind in full; the run fills it
//!   from the vector cache (what the cache holds is not embedded again);
//! - the history store: removed; the run's history step reads it again
//!   from the repository.
//!
//! The state file and the per-file records are not rebuilt apart from the
//! rest: without them nothing says what the other stores hold, so either
//! damaged means a full run ([`load_previous`]).
//!
//! Invariant: a heal is recorded ([`HEAL_FILE`]) before it removes a store
//! and cleared after the store committed, so a heal killed midway is redone
//! by the next run, never read as a store that is whole.

use std::collections::BTreeSet;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::analyze::{self, FileOutcome};
use super::{IndexOptions, Result};
use crate::git::Repo;
use crate::progress::Progress;
use crate::stores::health::{Depth, Stamps, Store, StoreDamaged};
use crate::stores::history::{HistoryStore, HISTORY_DIR};
use crate::stores::keyword::KeywordIndex;
use crate::stores::state::{IndexState, StateError, VectorsBehind};

/// The stores a heal under way is rebuilding.
pub const HEAL_FILE: &str = "heal.json";

#[derive(Debug, Default, Serialize, Deserialize)]
struct HealUnderWay {
    stores: BTreeSet<Store>,
}

/// The state of the last run, or `None` (a full run follows) when the state
/// file or the per-file records are damaged: said in one notice line.
pub(super) fn load_previous(record: &super::record::LocalRecord, progress: &dyn Progress) -> Result<Option<IndexState>> {
    use super::record::RunRecord;
    match record.load() {
        Ok(state) => Ok(state),
        Err(StateError::Corrupt { path, message, .. }) => {
            let store = if path.ends_with(crate::stores::files_store::FILES_STORE) { Store::Files } else { Store::State };
            let damaged = StoreDamaged::new(store, &path, message);
            progress.note(&format!("{} is damaged ({}): rebuilding the index in full", store.what(), damaged.cause));
            Ok(None)
        }
        Err(e) => Err(e.into()),
    }
}

/// Every store of the index at `index_dir` that is damaged (or whose
/// rebuild was interrupted), checked to `depth` — or only as an open checks
/// it where its files are as `since` recorded them.
pub fn damaged_stores(index_dir: &Path, depth: Depth, state: Option<&IndexState>, since: Option<&Stamps>) -> Vec<StoreDamaged> {
    let now = since.map(|_| Stamps::take(index_dir, &store_files(index_dir)));
    let depth_of = |store: Store| match (since, &now) {
        (Some(then), Some(now)) if then.unchanged(now, store) => Depth::Open,
        _ => depth,
    };
    let mut damaged = Vec::new();
    let under_way = read_marker(index_dir);
    for store in &under_way.stores {
        damaged.push(StoreDamaged::new(*store, &index_dir.join(HEAL_FILE), "a rebuild of it was interrupted"));
    }
    let mut add = |d: Option<StoreDamaged>| {
        if let Some(d) = d.filter(|d| !under_way.stores.contains(&d.store)) {
            damaged.push(d);
        }
    };
    add(crate::stores::health::check_redb(Store::Files, &index_dir.join(crate::stores::files_store::FILES_STORE), depth_of(Store::Files)));
    if index_dir.join("keyword").is_dir() {
        add(KeywordIndex::verify(&index_dir.join("keyword"), depth_of(Store::Keyword)));
    }
    add(crate::graph::verify(index_dir, depth_of(Store::Graph)));
    add(crate::stores::vector::edge::verify(&index_dir.join("qdrant"), depth_of(Store::Vectors), state.and_then(|s| s.vector_points.as_ref())));
    add(HistoryStore::verify(&index_dir.join(HISTORY_DIR), depth_of(Store::History)));
    if !damaged.is_empty() {
        // Whoever found it (`status --verify` included), the next run checks
        // in full and so rebuilds it; a file left behind only costs that.
        let _ = std::fs::remove_file(index_dir.join(crate::stores::health::STAMPS_FILE));
    }
    damaged
}

/// The files and folders of each store [`damaged_stores`] checks.
fn store_files(index_dir: &Path) -> Vec<(Store, Vec<std::path::PathBuf>)> {
    vec![
        (Store::Files, vec![index_dir.join(crate::stores::files_store::FILES_STORE)]),
        (Store::Keyword, vec![index_dir.join("keyword")]),
        (Store::Graph, vec![index_dir.join("graph")]),
        (Store::Vectors, vec![index_dir.join("qdrant")]),
        (Store::History, vec![index_dir.join(HISTORY_DIR)]),
    ]
}

/// Records the stores as they are now as git-rag left them (after a run
/// wrote them, or a check found them sound): the next run checks them in
/// full only where they changed since. Best effort: without the record the
/// next run checks everything in full.
pub(super) fn record_stamps(index_dir: &Path, progress: &dyn Progress) {
    if let Err(e) = Stamps::take(index_dir, &store_files(index_dir)).save(index_dir) {
        progress.note(&format!("cannot record the stores' stamps in {} ({e}): the next run checks them in full", index_dir.display()));
    }
}

/// Rebuilds the damaged stores of the index `state` describes (see the
/// module docs); returns which it rebuilt. `state` comes back marked when
/// its vectors are to be filled again.
pub(super) fn heal(repo: &Repo, index_dir: &Path, state: &mut IndexState, opts: &IndexOptions, progress: &dyn Progress) -> Result<BTreeSet<Store>> {
    let Some(commit) = state.last_commit else { return Ok(BTreeSet::new()) };
    // After a killed run the vectors may hold its target's points: they are
    // counted again only once a run completes.
    let counted = if crate::stores::state::PendingRun::load(index_dir).is_some() { None } else { Some(&*state) };
    let mut damaged = damaged_stores(index_dir, Depth::Full, counted, Some(&Stamps::load(index_dir)));
    if !crate::graph::exists(index_dir) && !damaged.iter().any(|d| d.store == Store::Graph) {
        damaged.push(StoreDamaged::new(Store::Graph, &index_dir.join("graph"), "missing, or written by another version of git-rag"));
    }
    let stores: BTreeSet<Store> =
        damaged.iter().map(|d| d.store).filter(|s| matches!(s, Store::Keyword | Store::Graph | Store::Vectors | Store::History)).collect();
    if stores.is_empty() {
        return Ok(stores);
    }
    for d in damaged.iter().filter(|d| stores.contains(&d.store)) {
        progress.note(&format!("{} is damaged ({}): rebuilding it", d.store.what(), d.cause));
    }
    write_marker(index_dir, &stores)?;
    let keyword = stores.contains(&Store::Keyword);
    let graph = stores.contains(&Store::Graph);
    if keyword || graph {
        rebuild_from_analysis(repo, index_dir, state, &commit, keyword, graph, opts, progress)?;
    }
    if stores.contains(&Store::History) {
        // Read again from the repository by the run's history step.
        let dir = index_dir.join(HISTORY_DIR);
        HistoryStore::destroy(&dir)?;
    }
    if stores.contains(&Store::Vectors) {
        let dir = index_dir.join("qdrant");
        crate::stores::vector::edge::destroy(&dir).map_err(|e| StateError::from(crate::stores::fs::at("cannot remove", &dir)(e)))?;
        if state.semantic.is_some() {
            state.vectors_behind =
                Some(VectorsBehind { all: true, paths: BTreeSet::new(), reason: "the vector store was damaged and is being filled again".into() });
            state.vector_points = None;
        }
    }
    // Saved before the marker goes (a run killed now still refills the
    // vectors), and a new state tells a long-lived server to reopen the
    // stores. The journal stays: it still says what a killed run touched.
    state.updated_at = crate::stores::state::now_secs();
    state.save(&index_dir.join(crate::stores::state::STATE_FILE))?;
    clear_marker(index_dir)?;
    Ok(stores)
}

/// The keyword index and/or the code graph, rebuilt from the files the
/// state records, read from the repository at `commit`.
#[allow(clippy::too_many_arguments)]
fn rebuild_from_analysis(
    repo: &Repo,
    index_dir: &Path,
    state: &IndexState,
    commit: &gix::ObjectId,
    keyword: bool,
    graph: bool,
    opts: &IndexOptions,
    progress: &dyn Progress,
) -> Result<()> {
    let keyword_dir = index_dir.join("keyword");
    let index = if keyword {
        KeywordIndex::destroy(&keyword_dir)?;
        Some(KeywordIndex::open_or_create(&keyword_dir)?)
    } else {
        None
    };
    let mut writer = index.as_ref().map(|k| k.writer(rayon::current_num_threads(), opts.memory.keyword_heap_bytes)).transpose()?;
    let spill = graph.then(|| crate::graph::FactsSpill::create(index_dir, opts.memory.graph())).transpose()?;
    let files: Vec<_> = repo.list_files(commit)?.into_iter().filter(|f| state.files.contains_key(&f.path)).collect();
    let derive = |file: &crate::git::TreeFile, chunks: crate::analysis::chunk::FileChunks| -> Result<Option<crate::graph::FileFacts>> {
        if let Some(w) = &writer {
            w.add_file(&file.path, &chunks)?;
        }
        match &spill {
            Some(spill) => Ok(Some(spill.keep(&file.path, crate::graph::FileFacts::of(&chunks))?)),
            None => Ok(None),
        }
    };
    let mut facts = Vec::new();
    for (file, outcome) in analyze::analyze(repo, files, &opts.chunk, progress, derive) {
        match outcome? {
            FileOutcome::Indexed { product: Some(f), .. } => facts.push((file.path, f)),
            FileOutcome::Indexed { product: None, .. } | FileOutcome::Binary => {}
            // Recorded as indexed, yet unreadable now: its next change brings it back.
            FileOutcome::Unreadable(reason) => progress.note(&format!("{}: not rebuilt: {reason}", file.path)),
        }
    }
    if let Some(spill) = spill {
        let mut store = crate::graph::GraphStore::spilled(index_dir, spill);
        store.update(&BTreeSet::new(), facts)?;
        store.save(&commit.to_string())?;
    }
    if let Some(w) = writer.take() {
        w.commit(&commit.to_string())?;
    }
    Ok(())
}

fn read_marker(index_dir: &Path) -> HealUnderWay {
    match std::fs::read(index_dir.join(HEAL_FILE)) {
        // A marker that does not parse still says a heal was under way: of everything it can heal.
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or(HealUnderWay { stores: [Store::Keyword, Store::Graph, Store::Vectors, Store::History].into() }),
        Err(_) => HealUnderWay::default(),
    }
}

fn write_marker(index_dir: &Path, stores: &BTreeSet<Store>) -> Result<()> {
    let path = index_dir.join(HEAL_FILE);
    let json = serde_json::to_vec(&HealUnderWay { stores: stores.clone() }).map_err(|e| StateError::corrupt(&path, e.to_string()))?;
    crate::stores::state::write_atomic(&path, &json)?;
    Ok(())
}

fn clear_marker(index_dir: &Path) -> Result<()> {
    let path = index_dir.join(HEAL_FILE);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(StateError::from(crate::stores::fs::at("cannot remove", &path)(e)).into()),
    }
}
