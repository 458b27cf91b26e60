//! Persistence of the graph: `facts.bin`, `graph.bin` and `patterns.json`
//! under `<index>/graph/` (bincode, atomic writes), and [`GraphStore`], the
//! facts and graph as an index run updates them.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::resolve::*;
use super::*;
use super::facts_log;

/// The resolved graph as `graph.bin` holds it: nodes in a canonical order,
/// edges by node position, and the references as written, one per edge
/// (`None` when loaded for queries, which never read them).
pub(super) struct StoredGraph {
    pub(super) generation: String,
    pub(super) nodes: Vec<NodeData>,
    pub(super) edges: Vec<(u32, u32, EdgeKind)>,
    pub(super) raws: Option<Vec<String>>,
}

/// What [`write_graph`] writes, borrowed from the graph in memory.
pub(super) struct GraphParts<'a> {
    pub(super) nodes: Vec<&'a NodeData>,
    pub(super) edges: Vec<(u32, u32, EdgeKind)>,
    pub(super) raws: Vec<&'a str>,
}

/// Bytes of one packed edge: source and target positions (u32 LE), kind.
const PACKED_EDGE: usize = 9;

/// `graph.bin`: the format version (a bincode varint, as every graph file
/// starts), then three sections, each a little-endian u64 length and its
/// bytes: bincode of (generation, nodes); the edges packed
/// ([`PACKED_EDGE`] bytes each, decoded without allocating per edge); bincode
/// of the references as written. A query stops before the third.
pub(super) fn write_graph(path: &Path, generation: &str, g: &GraphParts) -> Result<()> {
    let encode_error = |e: bincode::error::EncodeError| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() };
    let config = bincode::config::standard();
    let mut out = bincode::encode_to_vec(FORMAT_VERSION, config).map_err(encode_error)?;
    let head = bincode::serde::encode_to_vec((generation, &g.nodes), config).map_err(encode_error)?;
    let mut edges = Vec::with_capacity(g.edges.len() * PACKED_EDGE);
    for (a, b, kind) in &g.edges {
        edges.extend_from_slice(&a.to_le_bytes());
        edges.extend_from_slice(&b.to_le_bytes());
        edges.push(*kind as u8);
    }
    let raws = bincode::serde::encode_to_vec(&g.raws, config).map_err(encode_error)?;
    for section in [head, edges, raws] {
        out.extend_from_slice(&(section.len() as u64).to_le_bytes());
        out.extend_from_slice(&section);
    }
    crate::stores::state::write_atomic(path, &out).map_err(|e| GraphError::Write { path: path.to_path_buf(), source: e })
}

/// Reads `graph.bin` ([`write_graph`]); `Ok(None)` when there is none.
pub(super) fn read_graph(path: &Path, with_raws: bool) -> Result<Option<StoredGraph>> {
    let Some(bytes) = read_bytes(path)? else { return Ok(None) };
    let damaged = |message: &str| GraphError::Decode { path: path.to_path_buf(), message: message.to_string() };
    let decode_error = |e: bincode::error::DecodeError| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() };
    let mut rest = &bytes[check_version(path, &bytes)?..];
    let mut section = || -> Result<&[u8]> {
        let (len, tail) = rest.split_first_chunk::<8>().ok_or_else(|| damaged("truncated"))?;
        let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| damaged("bad section length"))?;
        if tail.len() < len {
            return Err(damaged("truncated"));
        }
        let (body, next) = tail.split_at(len);
        rest = next;
        Ok(body)
    };
    let config = bincode::config::standard();
    let ((generation, nodes), _): ((String, Vec<NodeData>), _) = bincode::serde::decode_from_slice(section()?, config).map_err(decode_error)?;
    let packed = section()?;
    let mut edges = Vec::with_capacity(packed.len() / PACKED_EDGE);
    for e in packed.chunks(PACKED_EDGE) {
        let [a0, a1, a2, a3, b0, b1, b2, b3, kind] = e else { return Err(damaged("truncated edge")) };
        let kind = match kind {
            0 => EdgeKind::Contains,
            1 => EdgeKind::Imports,
            2 => EdgeKind::Calls,
            3 => EdgeKind::Inherits,
            _ => return Err(damaged("unknown edge kind")),
        };
        edges.push((u32::from_le_bytes([*a0, *a1, *a2, *a3]), u32::from_le_bytes([*b0, *b1, *b2, *b3]), kind));
    }
    let raws = if with_raws { Some(bincode::serde::decode_from_slice::<Vec<String>, _>(section()?, config).map_err(decode_error)?.0) } else { None };
    Ok(Some(StoredGraph { generation, nodes, edges, raws }))
}

#[derive(Serialize, Deserialize)]
pub(super) struct StoredFacts {
    pub(super) version: u32,
    pub(super) generation: String,
    /// Random, new with every rewrite: what `facts.log` records extend.
    pub(super) id: u64,
    pub(super) files: BTreeMap<String, FileFacts>,
}

/// The index's facts and graph, as the indexer updates them.
pub struct GraphStore {
    dir: PathBuf,
    facts: BTreeMap<String, FileFacts>,
    graph: Graph,
    /// The `facts.bin` on disk these facts extend (its id and size), and how
    /// long the intact part of `facts.log` after it is; `None`: there is
    /// none to extend, the next save writes `facts.bin`.
    base: Option<(u64, u64)>,
    log_len: u64,
    /// Paths whose facts changed since the last save.
    changed: BTreeSet<String>,
}

pub(super) fn graph_dir(index_dir: &Path) -> PathBuf {
    index_dir.join("graph")
}

fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(GraphError::Read { path: path.to_path_buf(), source: e }),
    }
}

/// Checks that a graph file starts with this git-rag's format version
/// (another version's layout would not decode); returns its length in bytes.
fn check_version(path: &Path, bytes: &[u8]) -> Result<usize> {
    match bincode::decode_from_slice::<u32, _>(bytes, bincode::config::standard()) {
        Ok((FORMAT_VERSION, len)) => Ok(len),
        found => {
            let found = found.map_or_else(|_| "unknown".to_string(), |(v, _)| v.to_string());
            Err(GraphError::Decode { path: path.to_path_buf(), message: format!("format {found}, this git-rag reads {FORMAT_VERSION}") })
        }
    }
}

/// Reads a bincode file of the graph, which starts with the format version.
pub(super) fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>> {
    let Some(bytes) = read_bytes(path)? else { return Ok(None) };
    check_version(path, &bytes)?;
    bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
        .map(|(v, _)| Some(v))
        .map_err(|e| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() })
}

pub(super) fn write<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let bytes = bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() })?;
    crate::stores::state::write_atomic(path, &bytes).map_err(|e| GraphError::Write { path: path.to_path_buf(), source: e })
}

/// Whether the index has a code graph at all (an index from before the graph
/// existed needs a full run to get one).
pub fn exists(index_dir: &Path) -> bool {
    let dir = graph_dir(index_dir);
    // Facts of another format cannot be updated in place: they count as absent.
    // The version is the file's first bytes (a varint): read only those.
    let mut head = [0u8; 8];
    let read = std::fs::File::open(dir.join(FACTS_FILE)).and_then(|mut f| std::io::Read::read(&mut f, &mut head)).unwrap_or(0);
    let version = bincode::decode_from_slice::<u32, _>(&head[..read], bincode::config::standard()).ok().map(|(v, _)| v);
    version == Some(FORMAT_VERSION) && dir.join(GRAPH_FILE).is_file()
}

impl GraphStore {
    /// Opens the index's facts and graph; a missing or stale graph is rebuilt
    /// from the facts, missing facts give an empty store (the caller runs in full).
    pub fn open(index_dir: &Path) -> Result<GraphStore> {
        let dir = graph_dir(index_dir);
        // The two files decode side by side.
        let (stored_facts, stored_graph) = rayon::join(|| read::<StoredFacts>(&dir.join(FACTS_FILE)), || read_graph(&dir.join(GRAPH_FILE), true).ok().flatten());
        // Facts of another format count as absent (the caller runs in full).
        let stored_facts = match stored_facts {
            Err(GraphError::Decode { message, .. }) if message.starts_with("format ") => None,
            other => other?,
        };
        let mut store = GraphStore::empty(index_dir);
        let mut generation = None;
        if let Some(f) = stored_facts.filter(|f| f.version == FORMAT_VERSION) {
            // What later runs appended, in order.
            let (deltas, log_len) = facts_log::read(&dir.join(facts_log::FACTS_LOG), f.id)?;
            let base_len = std::fs::metadata(dir.join(FACTS_FILE)).map(|m| m.len()).unwrap_or(0);
            store.facts = f.files;
            generation = Some(f.generation);
            for delta in deltas {
                for (path, facts) in delta.files {
                    match facts {
                        Some(facts) => store.facts.insert(path, facts),
                        None => store.facts.remove(&path),
                    };
                }
                generation = Some(delta.generation);
            }
            store.base = Some((f.id, base_len));
            store.log_len = log_len;
        }
        match stored_graph {
            Some(g) if Some(&g.generation) == generation.as_ref() => {
                store.graph = Graph::from_stored(g);
            }
            // A crash between the two writes: the facts are newer, rebuild from them.
            _ => store.rebuild(),
        }
        Ok(store)
    }

    /// A store with nothing in it, for a full run (whatever is on disk, even damaged, is replaced).
    pub fn empty(index_dir: &Path) -> GraphStore {
        GraphStore { dir: graph_dir(index_dir), facts: BTreeMap::new(), graph: Graph::empty(), base: None, log_len: 0, changed: BTreeSet::new() }
    }

    #[cfg(test)]
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The project's conventions: pattern instances of every file, grouped.
    pub fn patterns(&self) -> Vec<crate::analysis::patterns::Pattern> {
        crate::analysis::patterns::aggregate(self.facts.values().flat_map(|f| f.patterns.iter()), MIN_PATTERN_COUNT)
    }

    /// Resolves everything from the facts.
    fn rebuild(&mut self) {
        self.graph = Graph::empty();
        for (path, f) in &self.facts {
            add_file_nodes(&mut self.graph, path, f);
        }
        let lookups = Lookups::new(&self.facts);
        let all: Vec<(&str, Option<&HashSet<String>>)> = self.facts.keys().map(|p| (p.as_str(), None)).collect();
        resolve_in_parallel(&mut self.graph, &lookups, &all);
    }

    /// Replaces the facts of `removed` paths and `added` files, and re-resolves
    /// what they affect.
    pub fn update(&mut self, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>) {
        self.changed.extend(removed.iter().cloned());
        self.changed.extend(added.iter().map(|(p, _)| p.clone()));
        // Files changed inside their definitions only: nothing another file
        // resolves against moved, so they are updated in place (see `reshaped`).
        let (in_place, added): (Vec<(String, FileFacts)>, Vec<(String, FileFacts)>) =
            added.into_iter().partition(|(p, f)| removed.contains(p) && self.facts.get(p).is_some_and(|old| same_interface(old, f)));
        let removed: BTreeSet<String> = removed.iter().filter(|p| !in_place.iter().any(|(q, _)| q == *p)).cloned().collect();
        let in_place_paths: Vec<String> = in_place.iter().map(|(p, _)| p.clone()).collect();
        for (p, f) in in_place {
            update_lines(&mut self.graph, &p, &f);
            self.facts.insert(p, f);
        }
        self.reshape(&removed, added, &in_place_paths);
        // Their own references, all of them, against the facts as they are now.
        if !in_place_paths.is_empty() {
            let lookups = Lookups::new(&self.facts);
            let jobs: Vec<(&str, Option<&HashSet<String>>)> = in_place_paths.iter().map(|p| (p.as_str(), None)).collect();
            resolve_in_parallel(&mut self.graph, &lookups, &jobs);
        }
        drop_orphan_stubs(&mut self.graph);
    }

    /// The general update: files whose definitions or imports changed, or
    /// that appeared or vanished. `skip`: files updated in place, whose
    /// references the caller resolves again anyway.
    fn reshape(&mut self, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>, skip: &[String]) {
        if removed.is_empty() && added.is_empty() {
            return;
        }
        let added_paths: BTreeSet<String> = added.iter().map(|(p, _)| p.clone()).collect();
        let mut changed_paths: BTreeSet<String> = removed.clone();
        changed_paths.extend(added_paths.iter().cloned());
        // Names whose definitions changed: in a file there before and after,
        // those of the definitions that differ (the others keep their nodes
        // and the edges into them); else every name it defines, before or after.
        let mut names: HashSet<String> = HashSet::new();
        // Files whose class chains may have changed (see below).
        let mut chain_paths: BTreeSet<String> = BTreeSet::new();
        let mut modified: BTreeSet<String> = BTreeSet::new();
        for p in &changed_paths {
            let old = self.facts.get(p);
            let new = added.iter().find(|(q, _)| q == p).map(|(_, f)| f);
            match (old, new) {
                (Some(old), Some(new)) if !has_duplicates(old) && !has_duplicates(new) => {
                    let diff = changed_definitions(old, new);
                    if diff.iter().any(|d| !d.bases.is_empty()) {
                        chain_paths.insert(p.clone());
                    }
                    names.extend(diff.into_iter().map(|d| d.name.clone()));
                    modified.insert(p.clone());
                }
                _ => {
                    for f in old.into_iter().chain(new) {
                        names.extend(f.symbols.iter().map(|s| s.name.clone()));
                    }
                    chain_paths.insert(p.clone());
                }
            }
        }
        // Paths that appeared or vanished change what imports resolve to.
        let existed: BTreeSet<String> = changed_paths.iter().filter(|p| self.facts.contains_key(*p)).cloned().collect();
        let exists_after: BTreeSet<String> = added_paths.clone();
        // A file stands for its module by its stem, and for its directory (a Go
        // package, Rust's `mod.rs`, Lua's `init.lua`): both count as moved.
        let moved_stems: HashSet<String> = existed
            .symmetric_difference(&exists_after)
            .flat_map(|p| [Some(module_stem(p)), p.rsplit('/').nth(1).map(str::to_lowercase)])
            .flatten()
            .collect();
        // `self.x` in an unchanged subclass resolves through the bases of a
        // changed class: the members along those base chains, before and after.
        names.extend(inherited_member_names(&self.graph, &chain_paths, &self.facts));

        let new_facts: BTreeMap<String, FileFacts> = added.into_iter().collect();
        for p in &changed_paths {
            if let Some(f) = self.facts.remove(p) {
                match new_facts.get(p) {
                    Some(new) if modified.contains(p) => replace_file_nodes(&mut self.graph, p, &f, new),
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
        let lookups = Lookups::new(&self.facts);
        let jobs: Vec<(&str, Option<&HashSet<String>>)> = added_paths.iter().map(|p| (p.as_str(), None)).collect();
        resolve_in_parallel(&mut self.graph, &lookups, &jobs);
        names.extend(inherited_member_names(&self.graph, &chain_paths, &self.facts));
        // References from unchanged files that may now resolve elsewhere.
        let mut jobs: Vec<(&str, Option<&HashSet<String>>)> = Vec::new();
        for (p, f) in self.facts.iter().filter(|(p, _)| !changed_paths.contains(*p) && !skip.contains(p)) {
            // Any segment of the import: a Rust path resolves to its longest
            // prefix that is a file, a C include `x.h` to the file `x`.
            let imports_moved = f.imports.iter().any(|i| moved_stems.contains(&import_stem(&i.module)) || import_segments(&i.module).any(|s| moved_stems.contains(&s)));
            let touches = |raw: &str| names.contains(ref_name(raw).as_ref());
            let refs_changed = f.symbols.iter().any(|s| s.calls.iter().chain(&s.bases).any(|c| touches(c))) || f.module_calls.iter().any(|c| touches(c));
            if imports_moved || refs_changed {
                jobs.push((p, if imports_moved { None } else { Some(&names) }));
            }
        }
        resolve_in_parallel(&mut self.graph, &lookups, &jobs);
    }

    /// Writes facts, then the graph, both atomically and with one generation
    /// (a crash between them is noticed and repaired by [`GraphStore::open`]),
    /// then the project's conventions, which it returns. The facts of the
    /// changed files go to `facts.log` while it stays under a quarter of
    /// `facts.bin`; otherwise `facts.bin` is written anew and the log dropped.
    pub fn save(&mut self, generation: &str) -> Result<Vec<crate::analysis::patterns::Pattern>> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| GraphError::Write { path: self.dir.clone(), source: crate::stores::fs::at("cannot create", &self.dir)(e).into() })?;
        let log = self.dir.join(facts_log::FACTS_LOG);
        let mut appended = false;
        if let Some((id, base_len)) = self.base {
            let files = self.changed.iter().map(|p| (p.clone(), self.facts.get(p).cloned())).collect();
            let record = facts_log::record(&log, &facts_log::Delta { base: id, generation: generation.to_string(), files })?;
            if self.log_len + record.len() as u64 <= base_len / 4 {
                self.log_len = facts_log::append(&log, self.log_len, &record)?;
                appended = true;
            }
        }
        if !appended {
            // The same encoding as `StoredFacts`, without copying the facts.
            #[derive(Serialize)]
            struct Borrowed<'a> {
                version: u32,
                generation: &'a str,
                id: u64,
                files: &'a BTreeMap<String, FileFacts>,
            }
            let id = facts_log::new_base_id();
            let path = self.dir.join(FACTS_FILE);
            write(&path, &Borrowed { version: FORMAT_VERSION, generation, id, files: &self.facts })?;
            // Records of the old file name its id: harmless if this removal never happens.
            facts_log::remove(&log)?;
            self.base = Some((id, std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0)));
            self.log_len = 0;
        }
        self.changed.clear();
        write_graph(&self.dir.join(GRAPH_FILE), generation, &self.graph.parts())?;
        let patterns = self.patterns();
        let path = self.dir.join(PATTERNS_FILE);
        crate::stores::state::write_atomic(&path, &serde_json::to_vec(&patterns).unwrap_or_default()).map_err(|e| GraphError::Write { path, source: e })?;
        Ok(patterns)
    }
}

/// Resolves each job's file (within its scope) on every core, then puts the
/// results in the graph in the jobs' order (the graph is the same whatever
/// the threads did).
fn resolve_in_parallel(graph: &mut Graph, lookups: &Lookups, jobs: &[(&str, Option<&HashSet<String>>)]) {
    use rayon::prelude::*;
    let resolved: Vec<Option<References>> =
        jobs.par_iter().map_init(|| Resolver::new(lookups), |resolver, (path, scope)| resolve_references(resolver, lookups.facts(), path, *scope)).collect();
    for ((path, scope), refs) in jobs.iter().zip(resolved) {
        if let Some(refs) = refs {
            apply_references(graph, path, *scope, refs);
        }
    }
}

/// Whether two versions of a file look the same to every other file's name
/// resolution: the same definitions (names, kinds, nesting, bases, in
/// order) and the same imports. What differs then is inside bodies (calls,
/// lines), which only the file's own references depend on.
fn same_interface(old: &FileFacts, new: &FileFacts) -> bool {
    old.language == new.language
        && old.imports == new.imports
        && old.symbols.len() == new.symbols.len()
        && old.symbols.iter().zip(&new.symbols).all(|(a, b)| a.qualified_name == b.qualified_name && a.name == b.name && a.kind == b.kind && a.parent == b.parent && a.bases == b.bases)
}

/// Whether a file defines one qualified name twice (a redefinition: the
/// first owns the node, so a change of either is handled as a whole file).
fn has_duplicates(f: &FileFacts) -> bool {
    let mut seen = HashSet::new();
    !f.symbols.iter().all(|s| seen.insert(crate::analysis::parse::canonical_name(&s.qualified_name)))
}

/// Definitions of `old` and `new` (each without duplicates) that are not in
/// the other with the same name, kind, parent and bases.
fn changed_definitions<'a>(old: &'a FileFacts, new: &'a FileFacts) -> Vec<&'a SymbolFact> {
    let same = |a: &SymbolFact, b: &SymbolFact| a.name == b.name && a.kind == b.kind && a.parent == b.parent && a.bases == b.bases;
    let index = |f: &'a FileFacts| -> HashMap<&'a str, &'a SymbolFact> { f.symbols.iter().map(|s| (s.qualified_name.as_str(), s)).collect() };
    let (o, n) = (index(old), index(new));
    let gone = old.symbols.iter().filter(|a| !n.get(a.qualified_name.as_str()).is_some_and(|b| same(a, b)));
    let came = new.symbols.iter().filter(|b| !o.get(b.qualified_name.as_str()).is_some_and(|a| same(a, b)));
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
