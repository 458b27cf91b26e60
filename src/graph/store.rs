//! [`GraphStore`]: the facts and graph as an index run updates them, and
//! the files under `<index>/graph/`: `graph.redb` (the per-file store, see
//! [`db`](super::db), which questions read through [`reader`](super::reader))
//! and `patterns.json`.
//!
//! A full run resolves everything in memory and writes both anew (a fresh
//! store takes what follows from the facts while the references resolve,
//! then their edges, in one transaction). An
//! incremental run loads from `graph.redb` only the changed files, the files
//! whose references name what changed, and what resolving those asks for
//! (noted as missing and loaded on another pass), updates that part of the
//! graph exactly as a full run would, and writes back the touched records.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::db::{Db, FileChange};
use super::modules::parent_dir;
use super::resolve::*;
use super::spill::FactsSpill;
use super::*;

/// The index's facts and graph, as the indexer updates them.
pub struct GraphStore {
    dir: PathBuf,
    /// Every file's facts (a full run; with a spill, only their
    /// conventions), or those loaded (an incremental one).
    facts: BTreeMap<String, FileFacts>,
    graph: Graph,
    /// The per-file store an incremental run reads and writes; `None` in a
    /// full run (everything is in memory, and written anew).
    db: Option<Db>,
    /// An incremental run's view of what it did not load.
    universe: Option<Universe>,
    missing: Missing,
    /// Paths an incremental update changed, with the facts stored before.
    changed: BTreeMap<String, Option<FileFacts>>,
    /// Paths whose references were resolved again (their records are rewritten).
    touched: BTreeSet<String>,
    /// A full run's facts not yet resolved ([`Self::add_all`]): `save`
    /// resolves them file by file as it writes, without the graph in memory.
    deferred: bool,
    /// Where a full run's files' facts are (the facts above keep only conventions).
    spill: Option<FactsSpill>,
}

/// Files a full write resolves and encodes at a time, and the batches that
/// may wait for the store's writer: what a full run holds of the edges.
const FILES_PER_BATCH: usize = 1024;
const BATCHES_IN_FLIGHT: usize = 4;

pub(super) fn graph_dir(index_dir: &Path) -> PathBuf {
    index_dir.join("graph")
}

/// Whether the index has a code graph this git-rag can update (an index
/// from before the graph, or of another format, needs a full run).
pub fn exists(index_dir: &Path) -> bool {
    let dir = graph_dir(index_dir);
    matches!(Db::open(&dir), Ok(Some(_)))
}

/// Checks `graph.redb` ([`crate::stores::health::check_redb`]); `None`
/// when sound or absent.
pub fn verify(index_dir: &Path, depth: crate::stores::health::Depth) -> Option<crate::stores::health::StoreDamaged> {
    crate::stores::health::check_redb(crate::stores::health::Store::Graph, &graph_dir(index_dir).join(super::db::DB_FILE), depth)
}

impl GraphStore {
    /// Opens the index's store for an incremental update; with none (or one
    /// of another format), an empty store: the caller runs in full.
    pub fn open(index_dir: &Path) -> Result<GraphStore> {
        let mut store = GraphStore::empty(index_dir);
        store.db = Db::open(&store.dir)?;
        Ok(store)
    }

    /// A store with nothing in it, for a full run (whatever is on disk, even damaged, is replaced).
    pub fn empty(index_dir: &Path) -> GraphStore {
        GraphStore {
            dir: graph_dir(index_dir),
            facts: BTreeMap::new(),
            graph: Graph::empty(),
            db: None,
            universe: None,
            missing: Missing::default(),
            changed: BTreeMap::new(),
            touched: BTreeSet::new(),
            deferred: false,
            spill: None,
        }
    }

    /// A store for a full run whose facts come as their conventions alone,
    /// the rest being in `spill` ([`FactsSpill::keep`]).
    pub fn spilled(index_dir: &Path, spill: FactsSpill) -> GraphStore {
        GraphStore { spill: Some(spill), ..GraphStore::empty(index_dir) }
    }

    #[cfg(test)]
    pub fn graph(&self) -> &Graph {
        assert!(!self.deferred, "a full store's graph is built by `materialize`");
        &self.graph
    }

    /// Builds the graph in memory from the facts a full run added (which
    /// `save` would resolve as it writes): before a second update, and for
    /// tests that compare with it.
    pub(super) fn materialize(&mut self) -> Result<()> {
        if !std::mem::take(&mut self.deferred) {
            return Ok(());
        }
        if let Some(spill) = self.spill.take() {
            for (p, f) in self.facts.iter_mut() {
                if let Some((whole, _)) = spill.facts(p)? {
                    *f = whole;
                }
            }
        }
        for (p, f) in &self.facts {
            add_file_nodes(&mut self.graph, p, f);
        }
        let (facts, graph) = (&self.facts, &mut self.graph);
        let lookups = Lookups::new(facts, None);
        let jobs: Vec<(&str, Scope)> = facts.keys().map(|p| (p.as_str(), Scope::All)).collect();
        resolve_in_parallel(graph, &lookups, &jobs);
        Ok(())
    }

    /// The project's conventions: pattern instances of every file, grouped.
    pub(super) fn patterns(&self) -> Vec<crate::analysis::patterns::Pattern> {
        crate::analysis::patterns::aggregate(self.facts.values().flat_map(|f| f.patterns.iter()), MIN_PATTERN_COUNT)
    }

    /// Replaces the facts of `removed` paths and `added` files, and re-resolves
    /// what they affect. An incremental store takes one update per [`save`](Self::save).
    pub fn update(&mut self, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>) -> Result<()> {
        let Some(db) = self.db.clone() else { return self.update_loaded(removed, added) };
        // Every pass reads this one snapshot.
        let snapshot = db.snapshot()?;
        let stored_paths = snapshot.paths()?;
        let changed: BTreeSet<String> = removed.iter().cloned().chain(added.iter().map(|(p, _)| p.clone())).collect();
        let mut paths: BTreeSet<String> = stored_paths.into_iter().collect();
        for p in removed {
            paths.remove(p);
        }
        paths.extend(added.iter().map(|(p, _)| p.clone()));
        let mut files = changed.clone();
        let mut names: BTreeSet<String> = BTreeSet::new();
        // Records read so far, decoded once: a pass reads only what the
        // last one found missing.
        let (mut read_files, mut read_names) = (BTreeSet::new(), BTreeSet::new());
        let (mut stored_facts, mut stored_outs) = (BTreeMap::new(), BTreeMap::new());
        self.universe = Some(Universe { paths, defs: BTreeMap::new(), changed: changed.clone() });
        // Each pass loads what the last one found missing; it ends when
        // nothing new is (the loaded part then holds every file the
        // update reads, and it resolves as a full run would).
        loop {
            let unread: Vec<String> = files.difference(&read_files).cloned().collect();
            stored_facts.extend(snapshot.facts(&unread)?);
            stored_outs.extend(snapshot.out_edges(&unread)?);
            read_files.extend(unread);
            let defs = snapshot.definitions(names.difference(&read_names))?;
            read_names.extend(names.iter().cloned());
            if let Some(u) = self.universe.as_mut() {
                u.defs.extend(defs);
            }
            // The pass works on a copy: it changes the facts it updates.
            let facts: BTreeMap<String, FileFacts> = stored_facts.clone();
            self.changed = changed.iter().map(|p| (p.clone(), facts.get(p).cloned())).collect();
            self.graph = partial_graph(&facts, &stored_outs);
            self.facts = facts;
            self.touched.clear();
            self.update_loaded(removed, added.clone())?;
            let (more_files, more_names) = self.missing.take();
            let before = (files.len(), names.len());
            files.extend(more_files);
            names.extend(more_names);
            if (files.len(), names.len()) == before {
                return Ok(());
            }
        }
    }

    /// The update on the loaded facts and graph: all of them, or those a
    /// partial update loaded (it then notes in `self.missing` what else it
    /// needed, and runs again with it).
    fn update_loaded(&mut self, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>) -> Result<()> {
        self.materialize()?;
        self.touched.extend(removed.iter().cloned());
        self.touched.extend(added.iter().map(|(p, _)| p.clone()));
        // Files changed inside their definitions only: nothing another file
        // resolves against moved, so they are updated in place (see `reshaped`).
        let (in_place, added): (Vec<(String, FileFacts)>, Vec<(String, FileFacts)>) =
            added.into_iter().partition(|(p, f)| removed.contains(p) && self.facts.get(p).is_some_and(|old| same_interface(old, f)));
        let removed: BTreeSet<String> = removed.iter().filter(|p| !in_place.iter().any(|(q, _)| q == *p)).cloned().collect();
        let in_place_paths: Vec<String> = in_place.iter().map(|(p, _)| p.clone()).collect();
        let mut before: Vec<(String, FileFacts)> = Vec::new();
        for (p, f) in in_place {
            update_lines(&mut self.graph, &p, &f);
            if let Some(old) = self.facts.insert(p.clone(), f) {
                before.push((p, old));
            }
        }
        let reshaped = self.reshape(&removed, added, &in_place_paths)?;
        // Their own references against the facts as they are now: those of
        // the definitions whose calls changed, and those naming what the
        // rest of the update changed (all of them when paths moved).
        if !in_place_paths.is_empty() {
            let lookups = Lookups::new(&self.facts, self.universe.as_ref().map(|u| (u, &self.missing)));
            let jobs: Vec<(&str, Scope)> = before
                .iter()
                .map(|(p, old)| (p.as_str(), if reshaped.paths_moved { Scope::All } else { Scope::edited(old, &self.facts[p], &reshaped.names) }))
                .collect();
            resolve_in_parallel(&mut self.graph, &lookups, &jobs);
        }
        drop_orphan_stubs(&mut self.graph);
        Ok(())
    }

    /// The general update: files whose definitions or imports changed, or
    /// that appeared or vanished. `skip`: files updated in place, whose
    /// references the caller resolves again (with what this returns).
    fn reshape(&mut self, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>, skip: &[String]) -> Result<Reshaped> {
        if removed.is_empty() && added.is_empty() {
            return Ok(Reshaped::default());
        }
        if self.facts.is_empty() && self.universe.is_none() {
            self.add_all(added)?;
            return Ok(Reshaped::default());
        }
        let added_paths: BTreeSet<String> = added.iter().map(|(p, _)| p.clone()).collect();
        let mut changed_paths: BTreeSet<String> = removed.clone();
        changed_paths.extend(added_paths.iter().cloned());
        let (mut names, chain_paths, modified) = changed_names(&self.facts, &changed_paths, &added);
        // Paths that appeared or vanished change what imports resolve to.
        let existed: BTreeSet<String> = changed_paths.iter().filter(|p| self.facts.contains_key(*p)).cloned().collect();
        let exists_after: BTreeSet<String> = added_paths.clone();
        let moved_stems: HashSet<String> = existed.symmetric_difference(&exists_after).flat_map(|p| module_names(p)).collect();
        // `self.x` in an unchanged subclass resolves through the bases of a
        // changed class: the members along those base chains, before and after.
        let missing = self.universe.as_ref().map(|_| &self.missing);
        names.extend(inherited_member_names(&self.graph, &chain_paths, &self.facts, missing));

        let new_facts: BTreeMap<String, FileFacts> = added.into_iter().collect();
        // A file there before and after whose imports find what they found
        // (no path appeared or vanished) keeps the edges of its definitions
        // that did not change, but those naming a changed name (see below).
        let paths_moved = existed != exists_after;
        let no_names = HashSet::new();
        let mut edited: Vec<(String, Scope)> = Vec::new();
        for p in &changed_paths {
            if let Some(f) = self.facts.remove(p) {
                match new_facts.get(p) {
                    Some(new) if modified.contains(p) => {
                        replace_file_nodes(&mut self.graph, p, &f, new);
                        if !paths_moved {
                            edited.push((p.clone(), Scope::edited(&f, new, &no_names)));
                        }
                    }
                    _ => remove_file_nodes(&mut self.graph, p, &f, added_paths.contains(p)),
                }
            }
        }
        self.facts.extend(new_facts);
        for p in &added_paths {
            add_file_nodes(&mut self.graph, p, &self.facts[p]);
        }
        for p in &modified {
            attach_to_parents(&mut self.graph, p, &self.facts[p]);
        }
        let lookups = Lookups::new(&self.facts, self.universe.as_ref().map(|u| (u, &self.missing)));
        let mut jobs: Vec<(&str, Scope)> = Vec::new();
        for p in &added_paths {
            match edited.iter().position(|(q, _)| q == p) {
                Some(i) => jobs.push((p.as_str(), std::mem::replace(&mut edited[i].1, Scope::All))),
                None => jobs.push((p.as_str(), Scope::All)),
            }
        }
        resolve_in_parallel(&mut self.graph, &lookups, &jobs);
        let missing = self.universe.as_ref().map(|_| &self.missing);
        names.extend(inherited_member_names(&self.graph, &chain_paths, &self.facts, missing));
        // References from unchanged files that may now resolve elsewhere.
        let partial_store = self.db.as_ref().filter(|_| self.universe.is_some());
        let after: Vec<&str> = match &self.universe {
            Some(u) => u.paths.iter().map(String::as_str).collect(),
            None => self.facts.keys().map(String::as_str).collect(),
        };
        let moved = Moved::new(&after, &existed, &exists_after, moved_stems);
        let change = Change { names: &names, moved: &moved, changed: &changed_paths, skip, new_facts: &self.facts, after: &after };
        let unchanged = unchanged_candidates(&self.facts, partial_store, &self.missing, &change)?;
        // The edited files' other references, as an unchanged file's.
        let mut jobs: Vec<(&str, Scope)> = edited.iter().map(|(p, _)| (p.as_str(), Scope::Names(&names))).collect();
        for (p, f, reaches) in unchanged {
            // A partial update asks whether an import now finds another file;
            // in memory (the tests' reference) any import naming a moved stem
            // counts too: a segment of a Rust path or a C include's file name.
            let stems_moved = partial_store.is_none()
                && f.imports.iter().any(|i| moved.stems.contains(&import_stem(&i.module)) || import_segments(&i.module).any(|s| moved.stems.contains(&s)));
            let imports_moved = stems_moved || moved.imports_move(p, f);
            let touches = |raw: &str| names.contains(ref_name(raw).as_ref());
            let refs_changed =
                reaches && (f.symbols.iter().any(|s| s.calls.iter().chain(&s.bases).any(|c| touches(c))) || f.module_calls.iter().any(|c| touches(c)));
            if imports_moved || refs_changed {
                jobs.push((p, if imports_moved { Scope::All } else { Scope::Names(&names) }));
            }
        }
        self.touched.extend(jobs.iter().map(|(p, _)| p.to_string()));
        resolve_in_parallel(&mut self.graph, &lookups, &jobs);
        drop(jobs);
        Ok(Reshaped { names, paths_moved })
    }

    /// A store that held nothing (a full run) takes every file: each is
    /// resolved once, when `save` writes it (or `materialize` builds the
    /// graph), and there is no unchanged file whose references could move,
    /// so none of the names that changed are gathered.
    fn add_all(&mut self, added: Vec<(String, FileFacts)>) -> Result<()> {
        self.facts.extend(added);
        self.deferred = true;
        Ok(())
    }

    /// The update of `removed` and `added` (as [`update`](Self::update)
    /// takes them) as an overlay of the index's store, nothing written;
    /// `None` when the index has no store to lay it over.
    pub fn overlay(index_dir: &Path, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>) -> Result<Option<super::Overlay>> {
        let mut store = GraphStore::open(index_dir)?;
        let Some(db) = store.db.clone() else { return Ok(None) };
        store.update(removed, added)?;
        let changes: Vec<super::overlay::Replaced> =
            store.changed.iter().map(|(p, old)| super::overlay::Replaced { path: p, old: old.as_ref(), new: store.facts.get(p) }).collect();
        let outs = store.touched.iter().map(|p| (p.clone(), store.facts.get(p).map(|f| out_edges(&store.graph, p, f)))).collect();
        let moved = changes.iter().any(|c| c.old.is_some() != c.new.is_some());
        let paths = store.universe.as_ref().filter(|_| moved).map(|u| u.paths.iter().cloned().collect());
        super::Overlay::of(&db.snapshot()?, &changes, outs, paths).map(Some)
    }

    fn create_dir(&self) -> Result<()> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| GraphError::Write { path: self.dir.clone(), source: crate::stores::fs::at("cannot create", &self.dir)(e).into() })
    }

    /// Writes the run: in full, the store and the conventions anew;
    /// incrementally, the touched records in one transaction, and the
    /// conventions if a changed file's differ.
    /// Returns the conventions when it wrote them. The store is closed
    /// (another can open it at once); its memory is freed off the caller's
    /// path (millions of small strings after a full run).
    pub fn save(mut self, generation: &str) -> Result<Option<Vec<crate::analysis::patterns::Pattern>>> {
        let saved = self.write(generation);
        drop(self.db.take());
        std::thread::spawn(move || drop(self));
        saved
    }

    fn write(&mut self, generation: &str) -> Result<Option<Vec<crate::analysis::patterns::Pattern>>> {
        self.create_dir()?;
        let Some(db) = &self.db else { return self.save_whole(generation).map(Some) };
        let changes: Vec<FileChange> = self.changed.iter().map(|(p, old)| FileChange { path: p, old: old.as_ref(), new: self.facts.get(p) }).collect();
        let out: BTreeMap<String, Option<db::OutEdges>> =
            self.touched.iter().map(|p| (p.clone(), self.facts.get(p).map(|f| out_edges(&self.graph, p, f)))).collect();
        let paths_moved = changes.iter().any(|c| c.old.is_some() != c.new.is_some());
        let paths: Option<Vec<String>> = self.universe.as_ref().filter(|_| paths_moved).map(|u| u.paths.iter().cloned().collect());
        let patterns = db.write(generation, &changes, &out, paths.as_deref(), |patterns| write_patterns(&self.dir, patterns))?;
        self.changed.clear();
        self.touched.clear();
        Ok(patterns)
    }

    /// A full run's save: the store is written under another name and moved
    /// in place, then the conventions. A run whose facts are in a spill
    /// resolves them a batch at a time against the store ([`super::batched`]).
    fn save_whole(&mut self, generation: &str) -> Result<Vec<crate::analysis::patterns::Pattern>> {
        let fresh = Db::create_fresh(&self.dir)?;
        match &self.spill {
            Some(spill) => super::batched::write_from_spill(&fresh, &self.facts, spill, generation)?,
            None => self.write_from_memory(&fresh, generation)?,
        }
        fresh.publish(&self.dir)?;
        // What queries read before they read `graph.redb` (format 7).
        for old in ["graph.bin", "graph.log"] {
            let _ = std::fs::remove_file(self.dir.join(old));
        }
        let patterns = self.patterns();
        write_patterns(&self.dir, &patterns)?;
        self.changed.clear();
        self.touched.clear();
        Ok(patterns)
    }

    /// [`save_whole`](Self::save_whole) of facts held in memory (a full run's
    /// are in its spill): resolved here unless the graph is built already.
    /// A thread of its own writes what follows from the facts alone while
    /// the references resolve (serial inserts: run after the resolution,
    /// they kept a core idle), then the resolved edges batch by batch as
    /// they come: what is held of them is a few batches.
    fn write_from_memory(&self, fresh: &Db, generation: &str) -> Result<()> {
        use rayon::prelude::*;
        let (facts, graph) = (&self.facts, &self.graph);
        let lookups = self.deferred.then(|| Lookups::new(facts, None));
        let files: Vec<(&String, &FileFacts)> = facts.iter().collect();
        std::thread::scope(|s| {
            let (batches, received) = std::sync::mpsc::sync_channel::<Vec<db::EncodedOut>>(BATCHES_IN_FLIGHT);
            let writer = s.spawn(move || {
                let mut write = fresh.begin_full(facts, None)?;
                for batch in received {
                    fresh.write_out(&mut write, batch)?;
                }
                Ok::<_, GraphError>(write)
            });
            for chunk in files.chunks(FILES_PER_BATCH) {
                let batch = chunk
                    .par_iter()
                    .map_init(
                        || lookups.as_ref().map(Resolver::new),
                        |resolver, (p, f)| {
                            let out = match resolver {
                                Some(r) => resolve_references(r, f, p, &Scope::All).into_out_edges(),
                                None => out_edges(graph, p, f),
                            };
                            fresh.encode_out(p, f, &out)
                        },
                    )
                    .collect::<Result<Vec<_>>>()?;
                // A writer that stopped says why when joined.
                if batches.send(batch).is_err() {
                    break;
                }
            }
            drop(batches);
            let write = writer.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            fresh.finish_full(write, generation, facts)
        })
    }
}

/// A file's resolved references as the store keeps them: from its node and
/// its symbols' (the first definition of a name owns it), `contains` left out.
fn out_edges(graph: &Graph, path: &str, facts: &FileFacts) -> db::OutEdges {
    let mut seen = HashSet::new();
    let file = graph.node(&NodeKey::File(path.to_string()));
    let symbols = facts.symbols.iter().filter(|s| seen.insert(s.qualified_name.as_str())).filter_map(|s| graph.node(&symbol_key(path, &s.qualified_name)));
    let mut edges: db::OutEdges = Vec::new();
    for ix in file.into_iter().chain(symbols) {
        let source = match &graph.graph[ix].key {
            NodeKey::Symbol { qualified_name, .. } => Some(qualified_name.clone()),
            _ => None,
        };
        for e in graph.graph.edges_directed(ix, Direction::Outgoing).filter(|e| e.weight().kind != EdgeKind::Contains) {
            edges.push((source.clone(), graph.graph[e.target()].key.clone(), e.weight().kind, e.weight().raw.clone()));
        }
    }
    edges.sort();
    edges
}

/// The whole graph of the store in `dir` (`None`: there is none): every
/// file's nodes and stored edges (`git rag dump-graph`, tests).
pub(super) fn whole_graph(dir: &Path) -> Result<Option<Graph>> {
    let Some(db) = Db::open(dir)? else { return Ok(None) };
    let snapshot = db.snapshot()?;
    let paths = snapshot.paths()?;
    Ok(Some(partial_graph(&snapshot.facts(&paths)?, &snapshot.out_edges(&paths)?)))
}

/// The paths an update made appear or vanish, and the module trees before
/// and after it (built only when there are such paths).
struct Moved<'a> {
    /// The names imports may give those paths (see `module_names`).
    stems: HashSet<String>,
    trees: Option<(super::modules::Tree<'a>, super::modules::Tree<'a>)>,
}

impl<'a> Moved<'a> {
    fn new(after: &[&'a str], existed: &'a BTreeSet<String>, exists_after: &BTreeSet<String>, stems: HashSet<String>) -> Moved<'a> {
        if existed == exists_after {
            return Moved { stems, trees: None };
        }
        let before = after.iter().copied().filter(|p| !exists_after.contains(*p)).chain(existed.iter().map(String::as_str));
        let mut before: Vec<&str> = before.collect();
        before.sort_unstable();
        before.dedup();
        let trees = (super::modules::Tree::new(before.into_iter()), super::modules::Tree::new(after.iter().copied()));
        Moved { stems, trees: Some(trees) }
    }

    /// Whether an import of `f` now finds another file (or none, or one).
    fn imports_move(&self, path: &str, f: &FileFacts) -> bool {
        self.trees.as_ref().is_some_and(|(before, after)| imports_move(before, after, path, f))
    }
}

/// What an update changed, as the files it did not change see it.
struct Change<'c, 'a> {
    /// Names whose definitions changed (and members along changed base chains).
    names: &'c HashSet<String>,
    moved: &'c Moved<'a>,
    changed: &'c BTreeSet<String>,
    /// Files the caller resolves again anyway.
    skip: &'c [String],
    /// The changed files' facts after the update (a removed file has none).
    new_facts: &'c BTreeMap<String, FileFacts>,
    /// Every path after the update.
    after: &'c [&'a str],
}

/// The unchanged files (not changed, not skipped) whose references may now
/// resolve elsewhere, each with whether it can reach a changed file (else
/// only its imports are to be checked). With a partial store, those its
/// lookup tables name (a file not loaded yet is noted missing); otherwise
/// every loaded file, which the caller filters.
fn unchanged_candidates<'f>(
    facts: &'f BTreeMap<String, FileFacts>,
    partial_store: Option<&Db>,
    missing: &Missing,
    change: &Change,
) -> Result<Vec<(&'f String, &'f FileFacts, bool)>> {
    let wanted = |p: &String| !change.changed.contains(p) && !change.skip.contains(p);
    let Some(db) = partial_store else { return Ok(facts.iter().filter(|(p, _)| wanted(p)).map(|(p, f)| (p, f, true)).collect()) };
    let affected = files_affected(&db.snapshot()?, change)?;
    Ok(affected
        .reaching
        .union(&affected.importing)
        .filter(|p| wanted(p))
        .filter_map(|p| {
            let f = facts.get_key_value(p);
            if f.is_none() {
                missing.file(p);
            }
            f.map(|(p, f)| (p, f, affected.reaching.contains(p)))
        })
        .collect())
}

/// The unchanged files an update looks at again (see [`files_affected`]).
struct Affected {
    /// Those that can reach a changed file and reference a changed name.
    reaching: BTreeSet<String>,
    /// Those whose imports may now find another file (paths moved).
    importing: BTreeSet<String>,
}

/// The files whose resolution can depend on what changed, by the resolver's
/// rules (see [`Resolver::resolve`](super::resolve::Resolver::resolve)):
/// - those with an edge into a changed file (an import of it, a reference to
///   one of its definitions) — or, in Go, into its package;
/// - those importing a changed file's stem as a name (`from . import utils`);
/// - those calling `self.x`/`this.x` for a changed name (a base class may
///   define it);
/// - those referencing a changed name that is defined at most twice before
///   or after the change (the fallback to a name's unique definition);
/// - when paths appeared or vanished, those whose imports name their stems
///   (or have no segment, `from . import x`, below a moved file's directory).
///
/// Any other file resolves its references as before: its own definitions
/// and imports did not change, and a name defined three times or more
/// never resolves to a definition it does not import.
fn files_affected(snapshot: &super::db::Snapshot, change: &Change) -> Result<Affected> {
    let mut targets: BTreeSet<String> = change.changed.clone();
    for p in change.changed.iter().filter(|p| Language::from_path(p) == Language::Go) {
        let dir = parent_dir(p);
        let siblings = change.after.iter().filter(|s| parent_dir(s) == dir && Language::from_path(s) == Language::Go);
        targets.extend(siblings.map(|s| s.to_string()));
    }
    let mut reaching = snapshot.edges_into(&targets)?;
    let stems: BTreeSet<String> = change.changed.iter().map(|p| module_stem(p)).collect();
    reaching.extend(snapshot.importing_names(&stems)?);
    let members: Vec<String> = change.names.iter().map(|n| format!("self.{n}")).collect();
    reaching.extend(snapshot.referencing(&members)?);
    reaching.extend(snapshot.referencing(&contested_names(snapshot, change)?)?);
    // Of those, the files with a reference to a changed name (the others
    // have nothing to redo): loading them is most of an update's cost.
    let naming = snapshot.referencing(change.names.iter())?;
    let reaching: BTreeSet<String> = reaching.into_iter().filter(|p| naming.contains(p)).collect();
    let mut found = BTreeSet::new();
    if change.moved.trees.is_some() {
        let keys: Vec<String> = change.moved.stems.iter().cloned().collect();
        found.extend(snapshot.importing_names(&keys)?);
        found.extend(snapshot.importing(&keys)?);
        // An import without a segment (`from .. import x`, `require('.')`)
        // names a directory at or above the importing file's: it can only
        // find a moved file from below that file's directory.
        let dirs: Vec<&str> = change.changed.iter().map(|p| parent_dir(p)).collect();
        let below = |f: &String| dirs.iter().any(|d| d.is_empty() || f.strip_prefix(d).is_some_and(|rest| rest.starts_with('/')));
        found.extend(snapshot.importing([&super::db::RELATIVE_IMPORT.to_string()])?.into_iter().filter(below));
    }
    Ok(Affected { reaching, importing: found })
}

/// The changed names defined at most twice before or after the update: a
/// reference to one of them may resolve to its unique definition.
fn contested_names(snapshot: &super::db::Snapshot, change: &Change) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for (name, stored) in snapshot.definitions(change.names.iter())? {
        let kept = stored.iter().filter(|(p, _)| !change.changed.contains(p)).count();
        let mut added: Vec<(&str, &str)> = change
            .changed
            .iter()
            .filter_map(|p| change.new_facts.get(p).map(|f| (p, f)))
            .flat_map(|(p, f)| f.symbols.iter().filter(|s| s.name == name).map(move |s| (p.as_str(), s.qualified_name.as_str())))
            .collect();
        added.sort_unstable();
        added.dedup();
        if stored.len().min(kept + added.len()) <= 2 {
            out.push(name);
        }
    }
    Ok(out)
}

fn write_patterns(dir: &Path, patterns: &[crate::analysis::patterns::Pattern]) -> Result<()> {
    let path = dir.join(PATTERNS_FILE);
    crate::stores::state::write_atomic(&path, &serde_json::to_vec(patterns).unwrap_or_default()).map_err(|e| GraphError::Write { path, source: e })
}

/// The loaded files' part of the graph: their nodes, and their stored
/// out-edges to nodes anywhere (a node of a file not loaded stands in by key).
fn partial_graph(facts: &BTreeMap<String, FileFacts>, outs: &BTreeMap<String, db::OutEdges>) -> Graph {
    let mut g = Graph::empty();
    for (path, f) in facts {
        add_file_nodes(&mut g, path, f);
    }
    for (path, edges) in outs {
        let Some(file) = g.node(&NodeKey::File(path.clone())) else { continue };
        for (source, target, kind, raw) in edges {
            let from = match source {
                None => file,
                Some(q) => match g.node(&symbol_key(path, q)) {
                    Some(ix) => ix,
                    None => continue,
                },
            };
            let to = match g.node(target) {
                Some(ix) => ix,
                None => {
                    let (node_kind, lines) = match target {
                        NodeKey::File(_) => (Kind::File, 1),
                        NodeKey::External(_) => (Kind::External, 1),
                        NodeKey::Stub(_) => (Kind::Stub, 0),
                        NodeKey::Symbol { .. } => (Kind::NotLoaded, 0),
                    };
                    g.ensure(NodeData { key: target.clone(), kind: node_kind, start_line: lines, end_line: lines })
                }
            };
            g.graph.add_edge(from, to, EdgeData { kind: *kind, raw: raw.clone() });
        }
    }
    g
}

/// Resolves each job's file (within its scope) on every core, then puts the
/// results in the graph in the jobs' order (the graph is the same whatever
/// the threads did).
fn resolve_in_parallel(graph: &mut Graph, lookups: &Lookups, jobs: &[(&str, Scope)]) {
    use rayon::prelude::*;
    let resolved: Vec<Option<References>> = jobs
        .par_iter()
        .map_init(|| Resolver::new(lookups), |resolver, (path, scope)| lookups.facts().get(*path).map(|f| resolve_references(resolver, f, path, scope)))
        .collect();
    for ((path, scope), refs) in jobs.iter().zip(resolved) {
        if let Some(refs) = refs {
            apply_references(graph, path, scope, refs);
        }
    }
}

/// What [`GraphStore::reshape`] changed, for the files updated in place.
#[derive(Default)]
struct Reshaped {
    /// Names whose definitions changed (and members along changed base chains).
    names: HashSet<String>,
    /// Whether a path appeared or vanished (imports may find other files).
    paths_moved: bool,
}

/// Whether two versions of a file look the same to every other file's name
/// resolution: the same definitions (names, kinds, nesting, bases, in
/// order) and the same imports (modules and names; resolution never reads
/// their lines). What differs then is inside bodies (calls, lines), which
/// only the file's own references depend on.
fn same_interface(old: &FileFacts, new: &FileFacts) -> bool {
    let imports = |f: &FileFacts| f.imports.iter().map(|i| (i.module.clone(), i.names.clone())).collect::<Vec<_>>();
    old.language == new.language
        && imports(old) == imports(new)
        && old.symbols.len() == new.symbols.len()
        && old.symbols.iter().zip(&new.symbols).all(|(a, b)| same_definition(a, b))
}

/// Names whose definitions an update changed: in a file there before and
/// after (`modified`), those of the definitions that differ (the others
/// keep their nodes and the edges into them); else every name it defines,
/// before or after. With them, the files whose class chains may have changed.
fn changed_names(
    facts: &BTreeMap<String, FileFacts>,
    changed_paths: &BTreeSet<String>,
    added: &[(String, FileFacts)],
) -> (HashSet<String>, BTreeSet<String>, BTreeSet<String>) {
    let mut names: HashSet<String> = HashSet::new();
    let mut chain_paths: BTreeSet<String> = BTreeSet::new();
    let mut modified: BTreeSet<String> = BTreeSet::new();
    let added: BTreeMap<&str, &FileFacts> = added.iter().map(|(p, f)| (p.as_str(), f)).collect();
    for p in changed_paths {
        match (facts.get(p), added.get(p.as_str())) {
            (Some(old), Some(new)) => {
                let diff = changed_definitions(old, new);
                if diff.iter().any(|d| !d.bases.is_empty()) {
                    chain_paths.insert(p.clone());
                }
                names.extend(diff.into_iter().map(|d| d.name.clone()));
                modified.insert(p.clone());
            }
            (old, new) => {
                for f in old.into_iter().chain(new.copied()) {
                    names.extend(f.symbols.iter().map(|s| s.name.clone()));
                }
                chain_paths.insert(p.clone());
            }
        }
    }
    (names, chain_paths, modified)
}

/// Definitions of `old` and `new` whose group ([`Groups`]) is not the same
/// in the other version.
fn changed_definitions<'a>(old: &'a FileFacts, new: &'a FileFacts) -> Vec<&'a SymbolFact> {
    let (before, after) = (Groups::of(old), Groups::of(new));
    let gone = old.symbols.iter().filter(|a| !before.kept_in(a, &after));
    let came = new.symbols.iter().filter(|b| !after.kept_in(b, &before));
    gone.chain(came).collect()
}

/// Every edge of the code graph in `index_dir`, sorted (`git rag dump-graph`,
/// to compare two indexes).
pub fn dump_graph(index_dir: &Path) -> Result<Vec<String>> {
    Ok(Graph::load(index_dir)?.ok_or(GraphError::Missing)?.dump())
}

/// The project's conventions as of the last run (empty when there are none yet).
pub fn load_patterns(index_dir: &Path) -> Result<Vec<crate::analysis::patterns::Pattern>> {
    let path = graph_dir(index_dir).join(PATTERNS_FILE);
    match std::fs::read(&path) {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| GraphError::Decode { path, message: e.to_string() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(GraphError::Read { path, source: e }),
    }
}
