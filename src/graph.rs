//! The code graph: files and symbols as nodes; contains, imports, calls and
//! inherits as edges, in a petgraph `StableDiGraph`.
//!
//! Two files live in `<index>/graph/`:
//! - `facts.bin`: what each file says about itself (symbols with their raw
//!   calls and bases, imports). Facts are the source of truth: the graph can
//!   always be rebuilt from them, and a file's facts change only when it does.
//! - `graph.bin`: the resolved graph, which queries load.
//!
//! An update replaces the facts of the changed files, removes their nodes and
//! re-resolves only the references that could now point elsewhere: every
//! reference from a changed file, and references from other files whose last
//! name segment is a name defined (before or after) in a changed file, or whose
//! import names a module whose path appeared or vanished. A change inside a
//! function body therefore touches that file's nodes and the few references
//! to its names, never the whole graph. Resolution depends only on the facts,
//! so an incremental update equals a fresh build (tests compare [`Graph::dump`]).
//!
//! Name resolution, in order: the enclosing class and its bases for
//! `self.x`/`this.x`; nested and same-file definitions; what the file
//! imports; a unique definition of that name anywhere. What stays unresolved
//! is kept as a named stub node, not dropped.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use petgraph::Direction;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::chunk::FileChunks;
use crate::lang::Language;
use crate::parse::{Import, SymbolKind};

/// Version of `facts.bin` and `graph.bin`. Bumped when either format or the
/// way names resolve changes: an index of another version is rebuilt in full
/// on its next run (a graph resolved by other rules cannot be updated in place).
/// 3: a bare name no longer resolves to a member of the enclosing class or object.
const FORMAT_VERSION: u32 = 3;
/// The pseudo-symbol module-level calls are resolved from.
const MODULE_CALLER: &str = "<module>";
const FACTS_FILE: &str = "facts.bin";
const GRAPH_FILE: &str = "graph.bin";
const PATTERNS_FILE: &str = "patterns.json";
/// A convention is something seen at least this often.
pub const MIN_PATTERN_COUNT: usize = 2;

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("cannot read the code graph {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("the code graph {path} is damaged or from another version ({message}); run `git rag index --full`")]
    Decode { path: PathBuf, message: String },
    #[error("cannot write the code graph {path}: {source}")]
    Write { path: PathBuf, source: crate::state::StateError },
}

pub type Result<T> = std::result::Result<T, GraphError>;

/// One definition as the graph needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SymbolFact {
    pub qualified_name: String,
    pub name: String,
    pub kind: String,
    pub parent: Option<String>,
    pub start_line: usize,
    pub end_line: usize,
    pub calls: Vec<String>,
    pub bases: Vec<String>,
}

/// What one file says about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileFacts {
    pub language: String,
    pub symbols: Vec<SymbolFact>,
    pub imports: Vec<Import>,
    /// Conventions seen in this file; aggregated over the repository into PATTERNS.
    pub patterns: Vec<crate::patterns::PatternInstance>,
    /// Calls outside any definition: edges from the file itself.
    pub module_calls: Vec<String>,
}

impl FileFacts {
    pub fn of(chunks: &FileChunks) -> FileFacts {
        FileFacts {
            language: chunks.language.name().to_string(),
            symbols: chunks
                .symbols
                .iter()
                .map(|s| SymbolFact {
                    qualified_name: s.qualified_name.clone(),
                    name: s.name.clone(),
                    kind: s.kind.as_str().to_string(),
                    parent: s.parent.clone(),
                    start_line: s.span.start_line,
                    end_line: s.span.end_line,
                    calls: s.calls.clone(),
                    bases: s.bases.clone(),
                })
                .collect(),
            imports: chunks.imports.clone(),
            patterns: chunks.patterns.clone(),
            module_calls: chunks.module_calls.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NodeKey {
    File(String),
    Symbol { path: String, qualified_name: String },
    /// A call or base that resolved to nothing (or to more than one thing).
    Stub(String),
    /// An import of something outside the repository.
    External(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeData {
    pub key: NodeKey,
    pub kind: String,
    pub start_line: usize,
    pub end_line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EdgeKind {
    Contains,
    Imports,
    Calls,
    Inherits,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Contains => "contains",
            EdgeKind::Imports => "imports",
            EdgeKind::Calls => "calls",
            EdgeKind::Inherits => "inherits",
        }
    }
}

/// An edge and the reference as written, so it can be resolved again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeData {
    pub kind: EdgeKind,
    pub raw: String,
}

#[derive(Serialize, Deserialize)]
struct StoredGraph {
    version: u32,
    generation: String,
    nodes: Vec<NodeData>,
    edges: Vec<(u32, u32, EdgeData)>,
}

#[derive(Serialize, Deserialize)]
struct StoredFacts {
    version: u32,
    generation: String,
    files: BTreeMap<String, FileFacts>,
}

/// The resolved graph, as loaded for queries.
pub struct Graph {
    pub graph: StableDiGraph<NodeData, EdgeData>,
    /// Node by key, built on first use: a callers/callees question never
    /// needs it, and building it was a sixth of loading a big graph. Fx
    /// hashing: SipHash cost ~8% more, and these keys come from our own index.
    nodes: std::sync::OnceLock<FxHashMap<NodeKey, NodeIndex>>,
    /// Symbol nodes by the lowercase last segment of their qualified name,
    /// built on first lookup (a scan of every node per lookup costs ~10 ms on
    /// a big repository); dropped whenever a node is added or removed.
    by_name: std::sync::OnceLock<FxHashMap<String, Vec<NodeIndex>>>,
}

/// The index's facts and graph, as the indexer updates them.
pub struct GraphStore {
    dir: PathBuf,
    facts: BTreeMap<String, FileFacts>,
    graph: Graph,
}

fn graph_dir(index_dir: &Path) -> PathBuf {
    index_dir.join("graph")
}

fn read<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Option<T>> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(GraphError::Read { path: path.to_path_buf(), source: e }),
    };
    bincode::serde::decode_from_slice(&bytes, bincode::config::standard())
        .map(|(v, _)| Some(v))
        .map_err(|e| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() })
}

fn write<T: Serialize>(path: &Path, value: &T) -> Result<()> {
    let bytes = bincode::serde::encode_to_vec(value, bincode::config::standard())
        .map_err(|e| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() })?;
    crate::state::write_atomic(path, &bytes).map_err(|e| GraphError::Write { path: path.to_path_buf(), source: e })
}

/// Whether the index has a code graph at all (an index from before the graph
/// existed needs a full run to get one).
pub fn exists(index_dir: &Path) -> bool {
    let dir = graph_dir(index_dir);
    // Facts of another format cannot be updated in place: they count as absent.
    let version = std::fs::read(dir.join(FACTS_FILE))
        .ok()
        .and_then(|b| bincode::decode_from_slice::<u32, _>(&b, bincode::config::standard()).ok().map(|(v, _)| v));
    version == Some(FORMAT_VERSION) && dir.join(GRAPH_FILE).is_file()
}

impl Graph {
    fn empty() -> Graph {
        Graph { graph: StableDiGraph::new(), nodes: std::sync::OnceLock::new(), by_name: std::sync::OnceLock::new() }
    }

    /// Loads the graph for queries; `None` when the index has none.
    pub fn load(index_dir: &Path) -> Result<Option<Graph>> {
        let path = graph_dir(index_dir).join(GRAPH_FILE);
        let Some(stored) = read::<StoredGraph>(&path)? else { return Ok(None) };
        if stored.version != FORMAT_VERSION {
            return Err(GraphError::Decode { path, message: format!("format {}, this git-rag reads {FORMAT_VERSION}", stored.version) });
        }
        Ok(Some(Graph::from_stored(stored)))
    }

    fn from_stored(stored: StoredGraph) -> Graph {
        let mut g = Graph::empty();
        // Sized up front: growing these by doubling was a third of loading a
        // big graph (copies and page faults).
        g.graph = StableDiGraph::with_capacity(stored.nodes.len(), stored.edges.len());
        let mut index = Vec::with_capacity(stored.nodes.len());
        for n in stored.nodes {
            index.push(g.graph.add_node(n));
        }
        for (a, b, e) in stored.edges {
            if let (Some(&a), Some(&b)) = (index.get(a as usize), index.get(b as usize)) {
                g.graph.add_edge(a, b, e);
            }
        }
        g
    }

    fn to_stored(&self, generation: &str) -> StoredGraph {
        let mut order: Vec<NodeIndex> = self.graph.node_indices().collect();
        // A canonical order keeps the file identical for identical graphs.
        order.sort_by(|a, b| self.graph[*a].key.cmp(&self.graph[*b].key));
        let position: HashMap<NodeIndex, u32> = order.iter().enumerate().map(|(i, ix)| (*ix, i as u32)).collect();
        let nodes = order.iter().map(|ix| self.graph[*ix].clone()).collect();
        let mut edges: Vec<(u32, u32, EdgeData)> =
            self.graph.edge_references().map(|e| (position[&e.source()], position[&e.target()], e.weight().clone())).collect();
        edges.sort_by(|a, b| (a.0, a.1, a.2.kind, &a.2.raw).cmp(&(b.0, b.1, b.2.kind, &b.2.raw)));
        StoredGraph { version: FORMAT_VERSION, generation: generation.to_string(), nodes, edges }
    }

    pub fn node(&self, key: &NodeKey) -> Option<NodeIndex> {
        self.key_index().get(key).copied()
    }

    fn key_index(&self) -> &FxHashMap<NodeKey, NodeIndex> {
        self.nodes.get_or_init(|| {
            let mut m = FxHashMap::default();
            m.reserve(self.graph.node_count());
            for ix in self.graph.node_indices() {
                m.insert(self.graph[ix].key.clone(), ix);
            }
            m
        })
    }

    fn key_index_mut(&mut self) -> &mut FxHashMap<NodeKey, NodeIndex> {
        self.key_index();
        self.nodes.get_mut().expect("the key index was built just above")
    }

    fn ensure(&mut self, data: NodeData) -> NodeIndex {
        if let Some(&ix) = self.key_index().get(&data.key) {
            return ix;
        }
        let key = data.key.clone();
        let ix = self.graph.add_node(data);
        self.key_index_mut().insert(key, ix);
        self.by_name = std::sync::OnceLock::new();
        ix
    }

    fn remove(&mut self, key: &NodeKey) {
        if let Some(ix) = self.key_index_mut().remove(key) {
            self.graph.remove_node(ix);
            self.by_name = std::sync::OnceLock::new();
        }
    }

    /// Every edge as text, sorted: two graphs are equal when their dumps are.
    pub fn dump(&self) -> Vec<String> {
        let name = |ix: NodeIndex| {
            let n = &self.graph[ix];
            match &n.key {
                NodeKey::File(p) => format!("file:{p}"),
                NodeKey::Symbol { path, qualified_name } => format!("{}:{path}#{qualified_name}@{}-{}", n.kind, n.start_line, n.end_line),
                NodeKey::Stub(s) => format!("stub:{s}"),
                NodeKey::External(m) => format!("external:{m}"),
            }
        };
        let mut out: Vec<String> = self
            .graph
            .edge_references()
            .map(|e| format!("{} -{}({})-> {}", name(e.source()), e.weight().kind.as_str(), e.weight().raw, name(e.target())))
            .collect();
        // Nodes without edges count too.
        for ix in self.graph.node_indices() {
            if self.graph.neighbors_undirected(ix).next().is_none() {
                out.push(name(ix));
            }
        }
        out.sort();
        out
    }

    pub fn node_count(&self) -> usize {
        self.graph.node_count()
    }

    pub fn edge_count(&self) -> usize {
        self.graph.edge_count()
    }

    /// Builds the key index and the name lookup now (for a long-lived
    /// process, so its first questions do not pay for them).
    pub fn prepare(&self) {
        self.key_index();
        let _ = self.find_symbols("");
    }

    /// Symbols whose name or qualified name is `name` (case-insensitive), or
    /// that end with it after a dot.
    pub fn find_symbols(&self, name: &str) -> Vec<NodeIndex> {
        let lc = name.to_lowercase();
        let by_name = self.by_name.get_or_init(|| {
            let mut m: FxHashMap<String, Vec<NodeIndex>> = FxHashMap::default();
            for ix in self.graph.node_indices() {
                if let NodeKey::Symbol { qualified_name, .. } = &self.graph[ix].key {
                    let last = qualified_name.rsplit('.').next().unwrap_or(qualified_name);
                    m.entry(last.to_lowercase()).or_default().push(ix);
                }
            }
            m
        });
        let last = lc.rsplit('.').next().unwrap_or(&lc);
        let dotted = format!(".{lc}");
        let mut out: Vec<NodeIndex> = by_name
            .get(last)
            .into_iter()
            .flatten()
            .copied()
            .filter(|ix| match &self.graph[*ix].key {
                NodeKey::Symbol { qualified_name, .. } => {
                    let q = qualified_name.to_lowercase();
                    q == lc || q.ends_with(&dotted)
                }
                _ => false,
            })
            .collect();
        out.sort_by(|a, b| self.graph[*a].key.cmp(&self.graph[*b].key));
        out
    }

    /// Nodes reached from `start` over `kinds` edges in `direction`, with the
    /// depth at which each was first reached (breadth first, deterministic).
    pub fn walk(&self, start: &[NodeIndex], kinds: &[EdgeKind], direction: Direction, depth: usize) -> Vec<(NodeIndex, usize)> {
        let mut seen: HashSet<NodeIndex> = start.iter().copied().collect();
        let mut out = Vec::new();
        let mut queue: VecDeque<(NodeIndex, usize)> = start.iter().map(|s| (*s, 0)).collect();
        while let Some((ix, d)) = queue.pop_front() {
            if d >= depth {
                continue;
            }
            let mut next: Vec<(NodeIndex, usize)> = self
                .graph
                .edges_directed(ix, direction)
                .filter(|e| kinds.contains(&e.weight().kind))
                .map(|e| if direction == Direction::Outgoing { e.target() } else { e.source() })
                .map(|n| (n, d + 1))
                .collect();
            next.sort_by(|a, b| self.graph[a.0].key.cmp(&self.graph[b.0].key));
            next.dedup();
            for (n, nd) in next {
                if seen.insert(n) {
                    out.push((n, nd));
                    queue.push_back((n, nd));
                }
            }
        }
        out
    }

    /// Nested definitions of a symbol (closures and methods), which act on its behalf.
    pub fn descendants(&self, ix: NodeIndex) -> Vec<NodeIndex> {
        self.walk(&[ix], &[EdgeKind::Contains], Direction::Outgoing, usize::MAX).into_iter().map(|(n, _)| n).collect()
    }
}

impl GraphStore {
    /// Opens the index's facts and graph; a missing or stale graph is rebuilt
    /// from the facts, missing facts give an empty store (the caller runs in full).
    pub fn open(index_dir: &Path) -> Result<GraphStore> {
        let dir = graph_dir(index_dir);
        let stored_facts = read::<StoredFacts>(&dir.join(FACTS_FILE))?;
        let (facts, generation) = match stored_facts {
            Some(f) if f.version == FORMAT_VERSION => (f.files, Some(f.generation)),
            _ => (BTreeMap::new(), None),
        };
        let stored_graph = read::<StoredGraph>(&dir.join(GRAPH_FILE)).ok().flatten();
        let mut store = GraphStore { dir, facts, graph: Graph::empty() };
        match stored_graph {
            Some(g) if g.version == FORMAT_VERSION && Some(&g.generation) == generation.as_ref() => {
                store.graph = Graph::from_stored(g);
            }
            // A crash between the two writes: the facts are newer, rebuild from them.
            _ => store.rebuild(),
        }
        Ok(store)
    }

    /// A store with nothing in it, for a full run (whatever is on disk, even damaged, is replaced).
    pub fn empty(index_dir: &Path) -> GraphStore {
        GraphStore { dir: graph_dir(index_dir), facts: BTreeMap::new(), graph: Graph::empty() }
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The project's conventions: pattern instances of every file, grouped.
    pub fn patterns(&self) -> Vec<crate::patterns::Pattern> {
        crate::patterns::aggregate(self.facts.values().flat_map(|f| f.patterns.iter()), MIN_PATTERN_COUNT)
    }

    /// Resolves everything from the facts.
    fn rebuild(&mut self) {
        self.graph = Graph::empty();
        let all: BTreeSet<String> = self.facts.keys().cloned().collect();
        let mut resolver = Resolver::new(&self.facts);
        for path in &all {
            add_file_nodes(&mut self.graph, path, &self.facts[path]);
        }
        for path in &all {
            resolve_file(&mut self.graph, &mut resolver, &self.facts, path, None);
        }
    }

    /// Replaces the facts of `removed` paths and `added` files, and re-resolves
    /// what they affect.
    pub fn update(&mut self, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>) {
        let added_paths: BTreeSet<String> = added.iter().map(|(p, _)| p.clone()).collect();
        // Names defined before or after in the changed files.
        let mut names: HashSet<String> = HashSet::new();
        let mut changed_paths: BTreeSet<String> = removed.clone();
        changed_paths.extend(added_paths.iter().cloned());
        for p in &changed_paths {
            if let Some(f) = self.facts.get(p) {
                names.extend(f.symbols.iter().map(|s| s.name.clone()));
            }
        }
        for (_, f) in &added {
            names.extend(f.symbols.iter().map(|s| s.name.clone()));
        }
        // Paths that appeared or vanished change what imports resolve to.
        let existed: BTreeSet<String> = changed_paths.iter().filter(|p| self.facts.contains_key(*p)).cloned().collect();
        let exists_after: BTreeSet<String> = added_paths.clone();
        let moved_stems: HashSet<String> = existed.symmetric_difference(&exists_after).map(|p| module_stem(p)).collect();
        // `self.x` in an unchanged subclass resolves through the bases of a
        // changed class: the members along those base chains, before and after.
        names.extend(inherited_member_names(&self.graph, &changed_paths, &self.facts));

        for p in &changed_paths {
            if let Some(f) = self.facts.remove(p) {
                remove_file_nodes(&mut self.graph, p, &f, added_paths.contains(p));
            }
        }
        for (p, f) in added {
            self.facts.insert(p, f);
        }
        for p in &added_paths {
            add_file_nodes(&mut self.graph, p, &self.facts[p]);
        }
        let mut resolver = Resolver::new(&self.facts);
        for p in &added_paths {
            resolve_file(&mut self.graph, &mut resolver, &self.facts, p, None);
        }
        names.extend(inherited_member_names(&self.graph, &added_paths, &self.facts));
        // References from unchanged files that may now resolve elsewhere.
        let unchanged: Vec<String> = self.facts.keys().filter(|p| !changed_paths.contains(*p)).cloned().collect();
        for p in unchanged {
            let f = &self.facts[&p];
            let imports_moved = f.imports.iter().any(|i| moved_stems.contains(&import_stem(&i.module)));
            let touches = |raw: &str| names.contains(&ref_name(raw));
            let refs_changed = f.symbols.iter().any(|s| s.calls.iter().chain(&s.bases).any(|c| touches(c))) || f.module_calls.iter().any(|c| touches(c));
            if imports_moved || refs_changed {
                let scope = if imports_moved { None } else { Some(&names) };
                resolve_file(&mut self.graph, &mut resolver, &self.facts, &p, scope);
            }
        }
        drop_orphan_stubs(&mut self.graph);
    }

    /// Writes facts, then the graph, both atomically and with one generation
    /// (a crash between them is noticed and repaired by [`GraphStore::open`]).
    pub fn save(&self, generation: &str) -> Result<()> {
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| GraphError::Write { path: self.dir.clone(), source: crate::state::StateError::Io { action: "cannot create", path: self.dir.clone(), source: e } })?;
        let facts = StoredFacts { version: FORMAT_VERSION, generation: generation.to_string(), files: self.facts.clone() };
        write(&self.dir.join(FACTS_FILE), &facts)?;
        write(&self.dir.join(GRAPH_FILE), &self.graph.to_stored(generation))?;
        let patterns = serde_json::to_vec(&self.patterns()).unwrap_or_default();
        let path = self.dir.join(PATTERNS_FILE);
        crate::state::write_atomic(&path, &patterns).map_err(|e| GraphError::Write { path, source: e })
    }
}

/// The project's conventions as of the last run (empty when there are none yet).
pub fn load_patterns(index_dir: &Path) -> Result<Vec<crate::patterns::Pattern>> {
    let path = graph_dir(index_dir).join(PATTERNS_FILE);
    match std::fs::read(&path) {
        Ok(b) => serde_json::from_slice(&b).map_err(|e| GraphError::Decode { path, message: e.to_string() }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(GraphError::Read { path, source: e }),
    }
}

fn symbol_key(path: &str, qualified_name: &str) -> NodeKey {
    NodeKey::Symbol { path: path.to_string(), qualified_name: qualified_name.to_string() }
}

fn add_file_nodes(g: &mut Graph, path: &str, facts: &FileFacts) {
    let file = g.ensure(NodeData { key: NodeKey::File(path.to_string()), kind: "file".into(), start_line: 1, end_line: 1 });
    // Several definitions may share a qualified name (a redefinition): the first one owns the node.
    for s in &facts.symbols {
        let key = symbol_key(path, &s.qualified_name);
        if g.node(&key).is_some() {
            continue;
        }
        let ix = g.ensure(NodeData { key, kind: s.kind.clone(), start_line: s.start_line, end_line: s.end_line });
        let parent = s.parent.as_ref().and_then(|p| g.node(&symbol_key(path, p))).unwrap_or(file);
        g.graph.add_edge(parent, ix, EdgeData { kind: EdgeKind::Contains, raw: String::new() });
    }
}

/// Removes a file's symbols; the file node itself only when the file is gone,
/// so imports of a file that changed in place stay attached.
fn remove_file_nodes(g: &mut Graph, path: &str, facts: &FileFacts, keep_file: bool) {
    for s in &facts.symbols {
        g.remove(&symbol_key(path, &s.qualified_name));
    }
    if !keep_file {
        g.remove(&NodeKey::File(path.to_string()));
    }
}

fn drop_orphan_stubs(g: &mut Graph) {
    let orphans: Vec<NodeKey> = g
        .graph
        .node_indices()
        .filter(|ix| matches!(g.graph[*ix].key, NodeKey::Stub(_) | NodeKey::External(_)))
        .filter(|ix| g.graph.neighbors_undirected(*ix).next().is_none())
        .map(|ix| g.graph[ix].key.clone())
        .collect();
    for k in orphans {
        g.remove(&k);
    }
}

/// Resolves the references of one file. With `scope`, only references whose
/// last name segment is in it are redone; otherwise all of them (and imports).
fn resolve_file(g: &mut Graph, resolver: &mut Resolver, facts: &BTreeMap<String, FileFacts>, path: &str, scope: Option<&HashSet<String>>) {
    let Some(f) = facts.get(path) else { return };
    let Some(file_ix) = g.node(&NodeKey::File(path.to_string())) else { return };
    let in_scope = |raw: &str| scope.is_none_or(|s| s.contains(&ref_name(raw)));
    if scope.is_none() {
        remove_edges(g, file_ix, |e| e.kind == EdgeKind::Imports);
        let mut targets: Vec<(String, NodeKey)> = Vec::new();
        for imp in &f.imports {
            let key = match resolver.module_file(path, &imp.module) {
                Some(p) => NodeKey::File(p),
                None => NodeKey::External(imp.module.clone()),
            };
            targets.push((imp.module.clone(), key));
        }
        targets.sort();
        targets.dedup();
        for (raw, key) in targets {
            let kind = if matches!(key, NodeKey::File(_)) { "file" } else { "external" };
            let to = g.ensure(NodeData { key, kind: kind.into(), start_line: 1, end_line: 1 });
            g.graph.add_edge(file_ix, to, EdgeData { kind: EdgeKind::Imports, raw });
        }
    }
    // Module-level calls: edges from the file node.
    remove_edges(g, file_ix, |e| e.kind == EdgeKind::Calls && in_scope(&e.raw));
    let module = SymbolFact {
        qualified_name: MODULE_CALLER.to_string(),
        name: MODULE_CALLER.to_string(),
        kind: "module".into(),
        parent: None,
        start_line: 1,
        end_line: 1,
        calls: Vec::new(),
        bases: Vec::new(),
    };
    let mut edges: Vec<(String, NodeKey)> = Vec::new();
    for raw in f.module_calls.iter().filter(|r| in_scope(r)) {
        let target = resolver
            .resolve(path, &module, raw)
            .map(|(p, q)| symbol_key(&p, &q))
            .unwrap_or_else(|| NodeKey::Stub(ref_name(raw)));
        edges.push((raw.clone(), target));
    }
    edges.sort();
    edges.dedup();
    for (raw, key) in edges {
        let to = match g.node(&key) {
            Some(t) => t,
            None => g.ensure(NodeData { key, kind: "stub".into(), start_line: 0, end_line: 0 }),
        };
        g.graph.add_edge(file_ix, to, EdgeData { kind: EdgeKind::Calls, raw });
    }

    let mut seen_symbols = HashSet::new();
    for s in &f.symbols {
        if !seen_symbols.insert(&s.qualified_name) {
            continue;
        }
        let Some(ix) = g.node(&symbol_key(path, &s.qualified_name)) else { continue };
        remove_edges(g, ix, |e| matches!(e.kind, EdgeKind::Calls | EdgeKind::Inherits) && in_scope(&e.raw));
        let mut edges: Vec<(EdgeKind, String, NodeKey)> = Vec::new();
        for (kind, raws) in [(EdgeKind::Calls, &s.calls), (EdgeKind::Inherits, &s.bases)] {
            for raw in raws.iter().filter(|r| in_scope(r)) {
                let target = resolver
                    .resolve(path, s, raw)
                    .map(|(p, q)| symbol_key(&p, &q))
                    .unwrap_or_else(|| NodeKey::Stub(ref_name(raw)));
                edges.push((kind, raw.clone(), target));
            }
        }
        edges.sort();
        edges.dedup();
        for (kind, raw, key) in edges {
            let to = match g.node(&key) {
                Some(t) => t,
                None => g.ensure(NodeData { key, kind: "stub".into(), start_line: 0, end_line: 0 }),
            };
            g.graph.add_edge(ix, to, EdgeData { kind, raw });
        }
    }
}

/// Names of the members of every class reached by `inherits` edges from a
/// class defined in `paths`.
fn inherited_member_names(g: &Graph, paths: &BTreeSet<String>, facts: &BTreeMap<String, FileFacts>) -> HashSet<String> {
    let mut start = Vec::new();
    for p in paths {
        let Some(f) = facts.get(p) else { continue };
        start.extend(f.symbols.iter().filter(|s| !s.bases.is_empty()).filter_map(|s| g.node(&symbol_key(p, &s.qualified_name))));
    }
    let mut names = HashSet::new();
    for (base, _) in g.walk(&start, &[EdgeKind::Inherits], Direction::Outgoing, 8) {
        for edge in g.graph.edges_directed(base, Direction::Outgoing).filter(|e| e.weight().kind == EdgeKind::Contains) {
            if let NodeKey::Symbol { qualified_name, .. } = &g.graph[edge.target()].key {
                names.insert(qualified_name.rsplit('.').next().unwrap_or(qualified_name).to_string());
            }
        }
    }
    names
}

fn remove_edges(g: &mut Graph, from: NodeIndex, mut pred: impl FnMut(&EdgeData) -> bool) {
    let ids: Vec<_> = g.graph.edges_directed(from, Direction::Outgoing).filter(|e| pred(e.weight())).map(|e| e.id()).collect();
    for id in ids {
        g.graph.remove_edge(id);
    }
}

/// `this.foo`, `new Foo`, `await x.y` → the dotted name called.
fn normalize_call(raw: &str) -> String {
    let mut s = raw.trim();
    for prefix in ["new ", "await "] {
        if let Some(rest) = s.strip_prefix(prefix) {
            s = rest.trim();
        }
    }
    // Drop call arguments and generic parameters inside the callee (`a(b).c`).
    let mut out = String::with_capacity(s.len());
    let mut depth = 0usize;
    for c in s.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.trim_start_matches("?.").replace("?.", ".").replace("!.", ".")
}

/// The name a reference is looked up and scoped by: the last segment of the
/// callee without arguments or subscripts (`copy(x).dump` → `dump`,
/// `RootModel[int]` → `RootModel`). Incremental updates re-resolve a reference
/// when this name is defined in a changed file, so it must agree with
/// [`Resolver::resolve`].
fn ref_name(raw: &str) -> String {
    last_segment(&normalize_call(raw)).to_string()
}

pub fn last_segment(raw: &str) -> &str {
    let s = raw.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'));
    let s = s.split('(').next().unwrap_or(s);
    s.rsplit('.').next().unwrap_or(s).trim()
}

/// The name an import of a file would use: `pkg/utils.py` → `utils`,
/// `lib/router/index.js` → `router`.
fn module_stem(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    if matches!(stem, "index" | "__init__") {
        let mut parts = path.rsplit('/');
        parts.next();
        return parts.next().unwrap_or(stem).to_lowercase();
    }
    stem.to_lowercase()
}

fn import_stem(module: &str) -> String {
    let m = module.trim_end_matches('/');
    let last = m.rsplit(['/', '.']).find(|s| !s.is_empty()).unwrap_or(m);
    let last = if matches!(last, "js" | "ts" | "tsx" | "jsx" | "mjs" | "cjs") {
        m.trim_end_matches(&format!(".{last}")).rsplit(['/', '.']).find(|s| !s.is_empty()).unwrap_or(m)
    } else {
        last
    };
    if last == "index" {
        let trimmed = m.trim_end_matches("/index").trim_end_matches("/index.js").trim_end_matches("/index.ts");
        return trimmed.rsplit('/').next().unwrap_or(last).to_lowercase();
    }
    last.to_lowercase()
}

/// Lookups shared by every resolution in one update.
struct Resolver<'a> {
    facts: &'a BTreeMap<String, FileFacts>,
    /// name → (path, qualified name) of every definition with that name.
    by_name: HashMap<&'a str, Vec<(&'a str, &'a str)>>,
    modules: HashMap<(String, String), Option<String>>,
}

impl<'a> Resolver<'a> {
    fn new(facts: &'a BTreeMap<String, FileFacts>) -> Resolver<'a> {
        let mut by_name: HashMap<&str, Vec<(&str, &str)>> = HashMap::new();
        for (path, f) in facts {
            for s in &f.symbols {
                by_name.entry(s.name.as_str()).or_default().push((path.as_str(), s.qualified_name.as_str()));
            }
        }
        for v in by_name.values_mut() {
            v.sort();
            v.dedup();
        }
        Resolver { facts, by_name, modules: HashMap::new() }
    }

    fn has(&self, path: &str, qualified: &str) -> bool {
        self.facts.get(path).is_some_and(|f| f.symbols.iter().any(|s| s.qualified_name == qualified))
    }

    fn symbol(&self, path: &str, qualified: &str) -> Option<&'a crate::graph::SymbolFact> {
        self.facts.get(path).and_then(|f| f.symbols.iter().find(|s| s.qualified_name == qualified))
    }

    /// The file an import refers to, if it is in the repository.
    fn module_file(&mut self, from: &str, module: &str) -> Option<String> {
        let key = (from.to_string(), module.to_string());
        if let Some(hit) = self.modules.get(&key) {
            return hit.clone();
        }
        let found = self.find_module(from, module);
        self.modules.insert(key, found.clone());
        found
    }

    fn find_module(&self, from: &str, module: &str) -> Option<String> {
        let dir: Vec<&str> = {
            let mut parts: Vec<&str> = from.split('/').collect();
            parts.pop();
            parts
        };
        let language = Language::from_path(from);
        if language == Language::Python {
            let dots = module.chars().take_while(|c| *c == '.').count();
            let rest = &module[dots..];
            let rel: Vec<&str> = rest.split('.').filter(|s| !s.is_empty()).collect();
            let candidates = |base: &[&str]| {
                let mut p: Vec<&str> = base.to_vec();
                p.extend(&rel);
                let joined = p.join("/");
                let prefix = if joined.is_empty() { String::new() } else { format!("{joined}/") };
                [format!("{joined}.py"), format!("{prefix}__init__.py")]
            };
            if dots > 0 {
                let up = dots - 1;
                if up > dir.len() {
                    return None;
                }
                let base = &dir[..dir.len() - up];
                return candidates(base).into_iter().find(|c| self.facts.contains_key(c));
            }
            // Absolute: the module path may sit under any source root; prefer the
            // one closest to the importing file.
            let [file, package] = candidates(&[]);
            let mut matches: Vec<&String> = self
                .facts
                .keys()
                .filter(|p| *p == &file || p.ends_with(&format!("/{file}")) || *p == &package || p.ends_with(&format!("/{package}")))
                .collect();
            matches.sort_by_key(|p| (std::cmp::Reverse(common_prefix(p, from)), p.len(), (*p).clone()));
            return matches.first().map(|p| (*p).clone());
        }
        if !module.starts_with('.') {
            return None;
        }
        let mut parts: Vec<&str> = dir.clone();
        for seg in module.split('/') {
            match seg {
                "." | "" => {}
                ".." => {
                    parts.pop()?;
                }
                s => parts.push(s),
            }
        }
        let base = parts.join("/");
        let stripped = base.trim_end_matches(".js").trim_end_matches(".mjs").trim_end_matches(".cjs").to_string();
        let exts = ["", ".ts", ".tsx", ".js", ".jsx", ".mjs", ".cjs", ".d.ts", "/index.ts", "/index.tsx", "/index.js", "/index.jsx"];
        for b in [&base, &stripped] {
            for ext in exts {
                let c = format!("{b}{ext}");
                if self.facts.contains_key(&c) {
                    return Some(c);
                }
            }
        }
        None
    }

    /// Resolves one reference made from `caller` in `path`.
    fn resolve(&mut self, path: &str, caller: &SymbolFact, raw: &str) -> Option<(String, String)> {
        let name = normalize_call(raw);
        let segs: Vec<&str> = name.split('.').filter(|s| !s.is_empty()).collect();
        let last = *segs.last()?;
        let first = segs[0];
        let receiver_is_self = segs.len() == 2 && matches!(first, "self" | "this" | "cls" | "super");
        let ancestors = ancestors(&caller.qualified_name);

        if receiver_is_self {
            // The enclosing class or object, then its bases.
            for anc in &ancestors[1..] {
                let q = format!("{anc}.{last}");
                if self.has(path, &q) {
                    return Some((path.to_string(), q));
                }
                if let Some(found) = self.in_bases(path, anc, last, 0) {
                    return Some(found);
                }
                for proto in [format!("{anc}.prototype.{last}")] {
                    if self.has(path, &proto) {
                        return Some((path.to_string(), proto));
                    }
                }
            }
        } else {
            // Nested definitions, then the same file: `next()` inside
            // `proto.handle` is `proto.handle.next`; `res.send` is `res.send`.
            for anc in &ancestors {
                // A bare name is looked up in lexical scopes: the caller and
                // the functions around it, not the class or object it is a
                // member of (`sendfile()` inside `res.sendFile` is the
                // module's `sendfile`, not the method `res.sendfile`; a
                // Python method cannot call a sibling method by bare name).
                if segs.len() == 1 && !self.symbol(path, anc).is_some_and(|s| is_callable(&s.kind)) {
                    continue;
                }
                let q = format!("{anc}.{name}");
                if self.has(path, &q) {
                    return Some((path.to_string(), q));
                }
            }
            if let Some(local) = self.symbol(path, &name) {
                // `var compile = require('./utils').compile` defines a local
                // name for an import: follow it to the definition.
                if matches!(local.kind.as_str(), "variable" | "const") {
                    if let Some(found) = self.via_imports(path, &segs) {
                        return Some(found);
                    }
                }
                return Some((path.to_string(), name.clone()));
            }
            for wrapper in ["exports", "module.exports"] {
                let q = format!("{wrapper}.{name}");
                if self.has(path, &q) {
                    return Some((path.to_string(), q));
                }
            }
            // What the file imports.
            if let Some(found) = self.via_imports(path, &segs) {
                return Some(found);
            }
        }
        // A unique definition of that name anywhere (not the caller itself).
        let defs: Vec<(&str, &str)> = self
            .by_name
            .get(last)
            .map(|v| v.iter().copied().filter(|(p, q)| !(*p == path && *q == caller.qualified_name)).collect())
            .unwrap_or_default();
        match defs.as_slice() {
            [(p, q)] => Some((p.to_string(), q.to_string())),
            [] => None,
            many => {
                // Several: the ones in this file win if there is exactly one.
                let local: Vec<&(&str, &str)> = many.iter().filter(|(p, _)| *p == path).collect();
                match local.as_slice() {
                    [(p, q)] => Some((p.to_string(), q.to_string())),
                    _ => None,
                }
            }
        }
    }

    fn in_bases(&mut self, path: &str, class: &str, member: &str, depth: usize) -> Option<(String, String)> {
        if depth > 4 {
            return None;
        }
        let bases = self.symbol(path, class)?.bases.clone();
        for base in bases {
            let caller = self.symbol(path, class)?.clone();
            let Some((bp, bq)) = self.resolve_base(path, &caller, &base) else { continue };
            let q = format!("{bq}.{member}");
            if self.has(&bp, &q) {
                return Some((bp, q));
            }
            if let Some(found) = self.in_bases(&bp, &bq, member, depth + 1) {
                return Some(found);
            }
        }
        None
    }

    fn resolve_base(&mut self, path: &str, class: &SymbolFact, base: &str) -> Option<(String, String)> {
        let name = normalize_call(base);
        if self.has(path, &name) {
            return Some((path.to_string(), name));
        }
        let segs: Vec<&str> = name.split('.').collect();
        if let Some(found) = self.via_imports(path, &segs) {
            return Some(found);
        }
        let last = *segs.last()?;
        let defs: Vec<(&str, &str)> =
            self.by_name.get(last).map(|v| v.iter().copied().filter(|(p, q)| !(*p == path && *q == class.qualified_name)).collect()).unwrap_or_default();
        match defs.as_slice() {
            [(p, q)] => Some((p.to_string(), q.to_string())),
            _ => None,
        }
    }

    /// `get_netrc_auth` with `from .utils import get_netrc_auth`; `utils.foo`
    /// with `import utils` or `require('./utils')`; a name defined once among
    /// the files this file imports.
    fn via_imports(&mut self, path: &str, segs: &[&str]) -> Option<(String, String)> {
        let facts = self.facts.get(path)?;
        let last = *segs.last()?;
        let first = segs[0];
        let imports = facts.imports.clone();
        let mut candidates: Vec<(String, String)> = Vec::new();
        for imp in &imports {
            let Some(file) = self.module_file(path, &imp.module) else {
                // `from . import utils` then `utils.foo()`: the module is a name.
                if imp.names.iter().any(|n| n == first) && segs.len() >= 2 {
                    let sub = format!("{}.{first}", imp.module);
                    if let Some(file) = self.module_file(path, &sub) {
                        if let Some(q) = self.top_level(&file, last) {
                            return Some((file, q));
                        }
                    }
                }
                continue;
            };
            let named = imp.names.iter().any(|n| n == first || n == last);
            let module_named = import_stem(&imp.module) == first.to_lowercase();
            if named || (segs.len() >= 2 && module_named) {
                if let Some(q) = self.top_level(&file, last) {
                    return Some((file, q));
                }
                if segs.len() >= 2 && imp.names.iter().any(|n| n == first) {
                    // `from .models import Request` then `Request.prepare()`.
                    let q = format!("{first}.{last}");
                    if self.has(&file, &q) {
                        return Some((file, q));
                    }
                }
                // `from . import utils` then `utils.foo()`.
                if imp.names.iter().any(|n| n == first) && segs.len() >= 2 {
                    let sub = format!("{}.{first}", imp.module.trim_end_matches('.'));
                    let sub = if imp.module.chars().all(|c| c == '.') { format!("{}{first}", imp.module) } else { sub };
                    if let Some(file) = self.module_file(path, &sub) {
                        if let Some(q) = self.top_level(&file, last) {
                            return Some((file, q));
                        }
                    }
                }
            }
            if let Some(q) = self.top_level(&file, last) {
                candidates.push((file, q));
            }
        }
        candidates.sort();
        candidates.dedup();
        match candidates.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// A definition a module exports under `name`.
    fn top_level(&self, path: &str, name: &str) -> Option<String> {
        let f = self.facts.get(path)?;
        let exported = [name.to_string(), format!("exports.{name}"), format!("module.exports.{name}")];
        f.symbols.iter().find(|s| exported.contains(&s.qualified_name)).map(|s| s.qualified_name.clone())
    }
}

/// `a.b.c` → [`a.b.c`, `a.b`, `a`].
fn ancestors(qualified: &str) -> Vec<String> {
    let mut out = vec![qualified.to_string()];
    let mut cur = qualified;
    while let Some((head, _)) = cur.rsplit_once('.') {
        out.push(head.to_string());
        cur = head;
    }
    out
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y).count()
}

/// Whether a symbol kind is a callable whose body calls things.
pub fn is_callable(kind: &str) -> bool {
    kind == SymbolKind::Function.as_str() || kind == SymbolKind::Method.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{chunk_file, ChunkOptions};

    fn facts(files: &[(&str, &str)]) -> Vec<(String, FileFacts)> {
        files.iter().map(|(p, src)| (p.to_string(), FileFacts::of(&chunk_file(p, src.as_bytes(), &ChunkOptions::default())))).collect()
    }

    fn build(files: &[(&str, &str)]) -> GraphStore {
        let dir = tempfile::tempdir().unwrap();
        let mut g = GraphStore::empty(dir.path());
        g.update(&BTreeSet::new(), facts(files));
        g
    }

    fn callers(g: &Graph, name: &str) -> Vec<String> {
        let start = g.find_symbols(name);
        g.walk(&start, &[EdgeKind::Calls], Direction::Incoming, 1)
            .into_iter()
            .filter_map(|(ix, _)| match &g.graph[ix].key {
                NodeKey::Symbol { qualified_name, .. } => Some(qualified_name.clone()),
                _ => None,
            })
            .collect()
    }

    const UTILS: &str = "def get_auth(url):\n    return helper(url)\n\ndef helper(u):\n    return u\n";
    const SESSIONS: &str = "from .utils import get_auth\n\nclass Mixin:\n    def rebuild(self):\n        return get_auth('x')\n\nclass Session(Mixin):\n    def send(self):\n        self.rebuild()\n        return self.adapter()\n    def adapter(self):\n        return unknown_thing()\n";

    #[test]
    fn resolves_imports_self_and_bases() {
        let g = build(&[("pkg/utils.py", UTILS), ("pkg/sessions.py", SESSIONS)]);
        let g = g.graph();
        assert_eq!(callers(g, "get_auth"), vec!["Mixin.rebuild"]);
        assert_eq!(callers(g, "helper"), vec!["get_auth"]);
        // self.rebuild() in Session.send resolves through the base class.
        assert_eq!(callers(g, "Mixin.rebuild"), vec!["Session.send"]);
        assert_eq!(callers(g, "Session.adapter"), vec!["Session.send"]);
        // Unresolved calls stay as stubs.
        assert!(g.node(&NodeKey::Stub("unknown_thing".into())).is_some());
        let dump = g.dump();
        assert!(dump.iter().any(|l| l.contains("-imports(.utils)-> file:pkg/utils.py")), "{dump:#?}");
        assert!(dump.iter().any(|l| l.contains("-inherits(Mixin)-> class:pkg/sessions.py#Mixin")), "{dump:#?}");
    }

    #[test]
    fn a_bare_name_is_not_a_member_of_the_enclosing_class_or_object() {
        let js = "var res = module.exports = {};\nres.sendFile = function sendFile(p) { return sendfile(this, p); };\nres.sendfile = function (p) { return this.sendFile(p); };\nfunction sendfile(res, p) { return res; }\n";
        let py = "def helper():\n    return 1\n\nclass A:\n    def helper(self):\n        return 2\n    def run(self):\n        def inner():\n            return 3\n        inner()\n        return helper()\n";
        let g = build(&[("lib/response.js", js), ("pkg/a.py", py)]);
        let g = g.graph();
        let into = |q: &str| -> Vec<String> {
            g.dump().into_iter().filter(|l| l.contains(&format!("#{q}@")) && l.contains("-calls(")).collect()
        };
        let send_file = into("res.sendFile");
        assert!(send_file.iter().any(|l| l.contains("-calls(sendfile)-> function:lib/response.js#sendfile@")), "{send_file:#?}");
        let run = into("A.run");
        assert!(run.iter().any(|l| l.contains("-calls(helper)-> function:pkg/a.py#helper@")), "{run:#?}");
        assert!(run.iter().any(|l| l.contains("-calls(inner)-> function:pkg/a.py#A.run.inner@")), "{run:#?}");
        assert!(!run.iter().any(|l| l.contains("#A.helper@")), "{run:#?}");
    }

    #[test]
    fn js_require_and_this() {
        let util = "exports.compile = function compile(v) { return v; };\n";
        let app = "var compile = require('./utils').compile;\nvar app = exports = module.exports = {};\napp.set = function set(v) { this.get(v); return compile(v); };\napp.get = function get(v) { return v; };\n";
        let g = build(&[("lib/utils.js", util), ("lib/app.js", app)]);
        let g = g.graph();
        assert_eq!(callers(g, "exports.compile"), vec!["app.set"]);
        assert_eq!(callers(g, "app.get"), vec!["app.set"]);
        // A module-level call is an edge from the file.
        let g2 = build(&[("lib/utils.js", util), ("lib/main.js", "var u = require('./utils');\nu.compile(1);\n")]);
        let start = g2.graph().find_symbols("exports.compile");
        let from: Vec<NodeKey> = g2.graph().walk(&start, &[EdgeKind::Calls], Direction::Incoming, 1).into_iter().map(|(ix, _)| g2.graph().graph[ix].key.clone()).collect();
        assert_eq!(from, vec![NodeKey::File("lib/main.js".into())]);
    }

    #[test]
    fn incremental_equals_full() {
        let v1 = [("pkg/utils.py", UTILS), ("pkg/sessions.py", SESSIONS)];
        let mut g = build(&v1);
        // Move get_auth to a new module, delete utils, edit a body.
        let auth = "def get_auth(url):\n    return url\n";
        let sessions2 = SESSIONS.replace("from .utils import get_auth", "from .auth import get_auth").replace("unknown_thing()", "get_auth(1)");
        let mut removed = BTreeSet::new();
        removed.insert("pkg/utils.py".to_string());
        removed.insert("pkg/sessions.py".to_string());
        g.update(&removed, facts(&[("pkg/auth.py", auth), ("pkg/sessions.py", &sessions2)]));
        let fresh = build(&[("pkg/auth.py", auth), ("pkg/sessions.py", &sessions2)]);
        assert_eq!(g.graph().dump(), fresh.graph().dump());
        assert_eq!(callers(g.graph(), "get_auth"), vec!["Mixin.rebuild", "Session.adapter"]);
        // A body-only change in one file.
        let mut removed = BTreeSet::new();
        removed.insert("pkg/auth.py".to_string());
        let auth2 = "def get_auth(url):\n    x = 1\n    return url\n";
        g.update(&removed, facts(&[("pkg/auth.py", auth2)]));
        let fresh = build(&[("pkg/auth.py", auth2), ("pkg/sessions.py", &sessions2)]);
        assert_eq!(g.graph().dump(), fresh.graph().dump());
    }

    /// References whose text is not a plain dotted name (subscripted bases,
    /// calls on call results) and `self.x` through a base chain that changed
    /// elsewhere are re-resolved like a fresh build would.
    #[test]
    fn incremental_equals_full_for_complex_references() {
        let models = "class Root:\n    def dump_json(self):\n        return 1\n";
        let user = "from .models import Root\n\nclass Model(Root[int]):\n    pass\n\ndef use():\n    return make(Model(a=1), b={'c': 2}).dump_json()\n";
        let mut g = build(&[("pkg/user.py", user)]);
        g.update(&BTreeSet::new(), facts(&[("pkg/models.py", models)]));
        let fresh = build(&[("pkg/user.py", user), ("pkg/models.py", models)]);
        assert_eq!(g.graph().dump(), fresh.graph().dump());
        assert!(g.graph().dump().iter().any(|l| l.contains("-inherits(Root[int])-> class:pkg/models.py#Root")), "{:#?}", g.graph().dump());

        // A(B) unchanged; B gains a base C that defines what A's method calls.
        let a = "from .b import B\n\nclass A(B):\n    def run(self):\n        return self.helper()\n";
        let b1 = "class B:\n    pass\n";
        let b2 = "from .c import C\n\nclass B(C):\n    pass\n";
        let c = "class C:\n    def helper(self):\n        return 1\n";
        let mut g = build(&[("pkg/a.py", a), ("pkg/b.py", b1), ("pkg/c.py", c)]);
        let mut removed = BTreeSet::new();
        removed.insert("pkg/b.py".to_string());
        g.update(&removed, facts(&[("pkg/b.py", b2)]));
        let fresh = build(&[("pkg/a.py", a), ("pkg/b.py", b2), ("pkg/c.py", c)]);
        assert_eq!(g.graph().dump(), fresh.graph().dump());
        assert_eq!(callers(g.graph(), "C.helper"), vec!["A.run"]);
        // And back: the edge goes away again.
        g.update(&removed, facts(&[("pkg/b.py", b1)]));
        let fresh = build(&[("pkg/a.py", a), ("pkg/b.py", b1), ("pkg/c.py", c)]);
        assert_eq!(g.graph().dump(), fresh.graph().dump());
    }

    #[test]
    fn save_and_load_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut g = GraphStore::open(dir.path()).unwrap();
        g.update(&BTreeSet::new(), facts(&[("pkg/utils.py", UTILS), ("pkg/sessions.py", SESSIONS)]));
        g.save("gen1").unwrap();
        let loaded = Graph::load(dir.path()).unwrap().unwrap();
        assert_eq!(loaded.dump(), g.graph().dump());
        let reopened = GraphStore::open(dir.path()).unwrap();
        assert_eq!(reopened.graph().dump(), g.graph().dump());
        // A damaged graph file is rebuilt from the facts by the indexer.
        std::fs::write(dir.path().join("graph").join(GRAPH_FILE), b"garbage").unwrap();
        assert!(Graph::load(dir.path()).is_err());
        let repaired = GraphStore::open(dir.path()).unwrap();
        assert_eq!(repaired.graph().dump(), g.graph().dump());
    }

    #[test]
    fn stems() {
        assert_eq!(module_stem("lib/router/index.js"), "router");
        assert_eq!(module_stem("src/requests/utils.py"), "utils");
        assert_eq!(import_stem("./router"), "router");
        assert_eq!(import_stem("./router/index.js"), "router");
        assert_eq!(import_stem(".utils"), "utils");
        assert_eq!(import_stem("requests.compat"), "compat");
        assert_eq!(last_segment("this.foo"), "foo");
    }
}
