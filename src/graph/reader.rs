//! The code graph as questions read it: straight from `graph.redb`, one
//! question at a time, loading only the files a question reaches. A graph
//! question on a 9,000-file repository reads a few hundred records instead
//! of decoding the whole graph (~560k nodes) first.
//!
//! A [`Neighbourhood`] starts empty. Finding a subject loads the files that
//! define its name (the `names` lookup); a walk, before each level, loads
//! the edges that level follows:
//! - out of a node: its file's stored out-edges, and the files they point into;
//! - into a symbol: the out-edges of the files whose references end in its
//!   name (the `refs` lookup: a reference resolves to a definition of the
//!   name it ends in, the rule incremental updates rely on too);
//! - into a file: the out-edges of the files whose imports name its stem or
//!   its directory (the `import_segments` lookup).
//!
//! Invariant: for every node in the neighbourhood whose edges in a direction
//! were loaded, those are exactly its edges in the whole graph
//! (`graph::tests` compares every node against the graph in memory).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::analysis::kind::Kind;

use super::db::{Db, Snapshot};
use super::resolve::{add_file_nodes, import_stem, symbol_key};
use super::{graph_dir, lookup_name, name_matcher, EdgeData, EdgeKind, FileFacts, Graph, NodeData, NodeKey, Result, Walk};

/// The index's code graph, opened for questions.
pub struct GraphReader {
    db: Db,
}

impl GraphReader {
    /// `None` when the index has no graph (or one of another format).
    pub fn open(index_dir: &Path) -> Result<Option<GraphReader>> {
        Ok(Db::open(&graph_dir(index_dir))?.map(|db| GraphReader { db }))
    }

    /// A question's view of the graph: nothing loaded yet, every load from one commit.
    pub fn question(&self) -> Result<Neighbourhood<'_>> {
        self.question_over(None)
    }

    /// [`question`](Self::question) with `overlay`'s files in place of the index's.
    pub fn question_over(&self, overlay: Option<std::sync::Arc<super::Overlay>>) -> Result<Neighbourhood<'_>> {
        Ok(Neighbourhood {
            snapshot: self.db.snapshot_over(overlay)?,
            graph: Graph::empty(),
            facts: HashMap::new(),
            outs: HashMap::new(),
            loaded: HashSet::new(),
            paths: None,
        })
    }
}

/// The part of the graph one question has loaded.
pub struct Neighbourhood<'r> {
    snapshot: Snapshot<'r>,
    graph: Graph,
    /// Files whose nodes are in the graph (`None`: the store has no such file).
    facts: HashMap<String, Option<FileFacts>>,
    /// Files' stored out-edges, each with whether it is in the graph yet.
    outs: HashMap<String, Vec<(OutEdge, bool)>>,
    /// Nodes whose edges in a direction are all in the graph.
    loaded: HashSet<(NodeIndex, bool)>,
    paths: Option<Vec<String>>,
}

type OutEdge = (Option<String>, NodeKey, EdgeKind, String);

/// Files [`Neighbourhood::incoming_in_order`] reads at a time (the tests'
/// small graphs read a few, to stop between reads).
const FILES_PER_READ: usize = if cfg!(test) { 2 } else { 64 };

impl Neighbourhood<'_> {
    /// What is loaded so far.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Symbols whose name or qualified name is `name` (case-insensitive), or
    /// that end with it after a dot; as [`Graph::find_symbols`].
    pub fn find_symbols(&mut self, name: &str) -> Result<Vec<NodeIndex>> {
        let (last, matches) = name_matcher(name);
        let defs: Vec<(String, String)> = self.snapshot.named(&last)?.into_iter().filter(|(_, q)| matches(q)).collect();
        self.load_files(defs.iter().map(|(p, _)| p.clone()).collect())?;
        let mut out: Vec<NodeIndex> = defs.iter().filter_map(|(p, q)| self.graph.node(&symbol_key(p, q))).collect();
        out.sort_by(|a, b| self.graph.graph[*a].key.cmp(&self.graph.graph[*b].key));
        out.dedup();
        Ok(out)
    }

    /// How many definitions the index holds whose own name is `name`
    /// exactly, read from the name index without loading their files (a
    /// name defined in thousands of files costs one read).
    pub fn count_definitions(&self, name: &str) -> Result<usize> {
        Ok(self.snapshot.named(&lookup_name(name))?.iter().filter(|(_, q)| crate::analysis::name::own_part(q) == name).count())
    }

    /// Symbols whose [`lookup_name`] is that of `name` (a wider net than
    /// [`find_symbols`](Self::find_symbols): every definition of the name, any case).
    pub fn load_definitions_of(&mut self, name: &str) -> Result<()> {
        let defs = self.snapshot.named(&lookup_name(name))?;
        self.load_files(defs.into_iter().map(|(p, _)| p).collect())
    }

    /// The node standing for the calls of `name` that resolved to no
    /// definition or to several (a `Stub`): their edges are read as its
    /// incoming edges, as any node's.
    pub fn unresolved(&mut self, name: &str) -> NodeIndex {
        self.graph.ensure(NodeData { key: NodeKey::Stub(name.to_string()), kind: Kind::Stub, start_line: 0, end_line: 0 })
    }

    /// The node of `key` (its file loaded first); `None` when the graph has none.
    pub fn node(&mut self, key: &NodeKey) -> Result<Option<NodeIndex>> {
        self.load_files(key_path(key).map(str::to_string).into_iter().collect())?;
        Ok(self.graph.node(key))
    }

    /// File nodes whose path is `word` or ends with `/word`.
    pub fn files_named(&mut self, word: &str) -> Result<Vec<NodeIndex>> {
        if self.paths.is_none() {
            self.paths = Some(self.snapshot.paths()?);
        }
        let suffix = format!("/{word}");
        let found: BTreeSet<String> = self.paths.iter().flatten().filter(|p| *p == word || p.ends_with(&suffix)).cloned().collect();
        self.load_files(found.iter().cloned().collect())?;
        Ok(found.into_iter().filter_map(|p| self.graph.node(&NodeKey::File(p))).collect())
    }

    /// For each of `paths`, how many other files use it (import it, or
    /// call, extend or name what it defines; edges resolved at index time),
    /// up to `cap`.
    pub fn dependents(&self, paths: &[&str], cap: usize) -> Result<Vec<usize>> {
        paths.iter().map(|p| self.snapshot.dependents(p, cap)).collect()
    }

    /// The facts of `path` as the store (and overlay) holds them, its nodes
    /// loaded; `None` when the graph has no such file.
    pub fn facts_of(&mut self, path: &str) -> Result<Option<&FileFacts>> {
        self.load_files(vec![path.to_string()])?;
        Ok(self.facts.get(path).and_then(Option::as_ref))
    }

    /// Files with a reference (a call or a base, resolved or not) whose last
    /// name is one of `names`, as written.
    pub fn referencing(&self, names: &[String]) -> Result<BTreeSet<String>> {
        self.snapshot.referencing(names)
    }

    /// Every path of the graph, in order.
    pub fn paths(&mut self) -> Result<&[String]> {
        if self.paths.is_none() {
            self.paths = Some(self.snapshot.paths()?);
        }
        Ok(self.paths.as_deref().unwrap_or_default())
    }

    /// [`Graph::walk`] over the whole graph, loading each level's edges first.
    pub fn walk(&mut self, start: &[NodeIndex], kinds: &[EdgeKind], direction: Direction, depth: usize) -> Result<Vec<(NodeIndex, usize)>> {
        let mut walk = Walk::new(start);
        while let Some(frontier) = walk.frontier(depth) {
            // `contains` edges come with a file's nodes.
            if kinds.iter().any(|k| *k != EdgeKind::Contains) {
                self.load_edges(&frontier, direction)?;
            }
            walk.step(&self.graph, &frontier, kinds, direction);
        }
        Ok(walk.reached)
    }

    /// The nodes with an edge of one of `kinds` into `start` (one level,
    /// each once), read file by file in the order `file_order` gives the
    /// files that may hold them (a file's nodes by line), until `enough`
    /// says those found suffice: whoever wants the first few callers in
    /// that order need not read every caller of a much-called name (the
    /// Linux kernel's `kfree`: ~8,000 files). Returns them, and whether every
    /// file was read (only then are they all of them, and `start`'s incoming
    /// edges marked loaded).
    pub fn incoming_in_order<K: Ord>(
        &mut self,
        start: &[NodeIndex],
        kinds: &[EdgeKind],
        file_order: impl Fn(&str) -> K,
        mut enough: impl FnMut(&Graph, &[NodeIndex]) -> bool,
    ) -> Result<(Vec<NodeIndex>, bool)> {
        let keys: HashSet<NodeKey> = start.iter().map(|ix| self.graph.graph[*ix].key.clone()).collect();
        let mut files: Vec<String> = self.sources_of(&keys)?.into_iter().collect();
        files.sort_by_cached_key(|p| file_order(p));
        let mut found: Vec<NodeIndex> = Vec::new();
        let mut seen: HashSet<NodeIndex> = HashSet::new();
        for chunk in files.chunks(FILES_PER_READ) {
            let fresh: Vec<&String> = chunk.iter().filter(|p| !self.outs.contains_key(*p)).collect();
            for (path, edges) in self.snapshot.out_edges(fresh)? {
                self.outs.insert(path, edges.into_iter().map(|e| (e, false)).collect());
            }
            let mut wanted: Vec<(String, usize)> = Vec::new();
            for path in chunk {
                for (i, ((_, target, _, _), added)) in self.outs.get(path).into_iter().flatten().enumerate() {
                    if keys.contains(target) && !added {
                        wanted.push((path.clone(), i));
                    }
                }
            }
            self.add_edges(&wanted)?;
            let g = &self.graph.graph;
            let mut new: Vec<NodeIndex> = start
                .iter()
                .flat_map(|s| g.edges_directed(*s, Direction::Incoming))
                .filter(|e| kinds.contains(&e.weight().kind))
                .map(|e| e.source())
                .filter(|n| seen.insert(*n))
                .collect();
            new.sort_by_cached_key(|n| (key_path(&g[*n].key).map(&file_order), g[*n].start_line, g[*n].key.clone()));
            found.extend(new);
            if enough(&self.graph, &found) && chunk.as_ptr_range().end != files.as_ptr_range().end {
                return Ok((found, false));
            }
        }
        self.loaded.extend(start.iter().map(|ix| (*ix, true)));
        Ok((found, true))
    }

    /// Puts in the graph every edge of `nodes` in `direction`.
    fn load_edges(&mut self, nodes: &[NodeIndex], direction: Direction) -> Result<()> {
        let incoming = direction == Direction::Incoming;
        let todo: Vec<NodeIndex> = nodes.iter().copied().filter(|ix| !self.loaded.contains(&(*ix, incoming))).collect();
        let keys: HashSet<NodeKey> = todo.iter().map(|ix| self.graph.graph[*ix].key.clone()).collect();
        // The files whose out-edges may hold them.
        let files: BTreeSet<String> = if incoming { self.sources_of(&keys)? } else { keys.iter().filter_map(|k| key_path(k).map(str::to_string)).collect() };
        let fresh: Vec<&String> = files.iter().filter(|p| !self.outs.contains_key(*p)).collect();
        for (path, edges) in self.snapshot.out_edges(fresh)? {
            self.outs.insert(path, edges.into_iter().map(|e| (e, false)).collect());
        }
        let mut wanted: Vec<(String, usize)> = Vec::new();
        for path in &files {
            for (i, ((source, target, _, _), added)) in self.outs.get(path).into_iter().flatten().enumerate() {
                let hit = match incoming {
                    true => keys.contains(target),
                    false => keys.contains(&source_key(path, source.as_deref())),
                };
                if hit && !added {
                    wanted.push((path.clone(), i));
                }
            }
        }
        self.add_edges(&wanted)?;
        self.loaded.extend(todo.into_iter().map(|ix| (ix, incoming)));
        Ok(())
    }

    /// Files that may have an edge into one of `keys`: for a file, those the
    /// store lists as pointing into it; for a symbol, those of them whose
    /// references end in its name (a reference resolves only to a definition
    /// of that name); for a stub, those with a reference of its name; for an
    /// external module, those whose imports name its stem.
    fn sources_of(&mut self, keys: &HashSet<NodeKey>) -> Result<BTreeSet<String>> {
        let mut files: BTreeSet<String> = BTreeSet::new();
        let mut names: BTreeSet<String> = BTreeSet::new();
        let mut segments: BTreeSet<String> = BTreeSet::new();
        // Symbols by name: the definitions of one name share its (often
        // long: `kfree`, ~8,000 files) list of referencing files, read once.
        let mut defined: HashMap<String, BTreeSet<String>> = HashMap::new();
        for key in keys {
            match key {
                NodeKey::File(path) => {
                    files.extend(self.snapshot.edges_into([path])?);
                }
                NodeKey::Symbol { path, qualified_name } => {
                    let facts = self.facts.get(path).and_then(Option::as_ref);
                    let Some(name) = facts.and_then(|f| f.symbols.iter().find(|s| &s.qualified_name == qualified_name)).map(|s| s.name.clone()) else {
                        continue;
                    };
                    defined.entry(name).or_default().insert(path.clone());
                }
                NodeKey::Stub(name) => {
                    names.insert(name.clone());
                }
                NodeKey::External(module) => {
                    segments.insert(import_stem(module));
                }
            }
        }
        for (name, paths) in &defined {
            let naming = self.snapshot.referencing([name])?;
            // The files' own references into them, and those from files pointing into them.
            let pointing = self.snapshot.edges_into(paths)?;
            files.extend(naming.into_iter().filter(|f| paths.contains(f) || pointing.contains(f)));
        }
        files.extend(self.snapshot.referencing(&names)?);
        files.extend(self.snapshot.importing(&segments)?);
        Ok(files)
    }

    /// Adds stored out-edges (file, position) with the nodes at both ends.
    fn add_edges(&mut self, edges: &[(String, usize)]) -> Result<()> {
        let mut files: Vec<String> = Vec::new();
        for (path, i) in edges {
            files.push(path.clone());
            files.extend(key_path(&self.outs[path][*i].0 .1).map(str::to_string));
        }
        self.load_files(files)?;
        for (path, i) in edges {
            let ((source, target, kind, raw), added) = &mut self.outs.get_mut(path).expect("loaded above")[*i];
            if *added {
                continue;
            }
            *added = true;
            let Some(from) = self.graph.node(&source_key(path, source.as_deref())) else { continue };
            let to = match self.graph.node(target) {
                Some(ix) => ix,
                None => {
                    let (node_kind, line) = match target {
                        NodeKey::External(_) => (Kind::External, 1),
                        NodeKey::Stub(_) => (Kind::Stub, 0),
                        // A file the store does not have (a dangling record).
                        NodeKey::File(_) | NodeKey::Symbol { .. } => (Kind::NotLoaded, 0),
                    };
                    self.graph.ensure(NodeData { key: target.clone(), kind: node_kind, start_line: line, end_line: line })
                }
            };
            self.graph.graph.add_edge(from, to, EdgeData { kind: *kind, raw: raw.clone() });
        }
        Ok(())
    }

    /// Puts the nodes (and `contains` edges) of `paths` in the graph.
    fn load_files(&mut self, paths: Vec<String>) -> Result<()> {
        let fresh: BTreeSet<String> = paths.into_iter().filter(|p| !self.facts.contains_key(p)).collect();
        let mut found = self.snapshot.facts(&fresh)?;
        for path in fresh {
            let facts = found.remove(&path);
            if let Some(f) = &facts {
                add_file_nodes(&mut self.graph, &path, f);
            }
            self.facts.insert(path, facts);
        }
        Ok(())
    }
}

/// The node an out-edge leaves from: the file (`None`) or one of its symbols.
fn source_key(path: &str, source: Option<&str>) -> NodeKey {
    match source {
        None => NodeKey::File(path.to_string()),
        Some(q) => symbol_key(path, q),
    }
}

/// The file a node is in (files and symbols).
fn key_path(key: &NodeKey) -> Option<&str> {
    match key {
        NodeKey::File(p) | NodeKey::Symbol { path: p, .. } => Some(p),
        NodeKey::Stub(_) | NodeKey::External(_) => None,
    }
}
