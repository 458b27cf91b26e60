//! The code graph: files and symbols as nodes; contains, imports, calls and
//! inherits as edges, in a petgraph `StableDiGraph`.
//!
//! Under `<index>/graph/`:
//! - `graph.redb`: per file, what it says about itself (its facts: symbols
//!   with their raw calls and bases, imports) and what its references
//!   resolved to, with lookup tables by name; what an update reads and
//!   writes. Facts are the source of truth: the graph can always be rebuilt
//!   from them, and a file's facts change only when it does. Questions read
//!   it too, loading only the files they walk ([`GraphReader`]).
//!
//! An update replaces the facts of the changed files, removes their nodes and
//! re-resolves only the references that could now point elsewhere: every
//! reference from a changed file, and, in the files that can reach a changed
//! file (an edge or import into it, `self.x` through a base, a name defined
//! at most twice), those whose last name segment is a name it defines (before
//! or after); a file whose import now finds another file is redone whole. A change inside a
//! function body therefore touches that file's nodes and the few references
//! to its names, never the whole graph. Resolution depends only on the facts,
//! so an incremental update equals a fresh build (tests compare [`Graph::dump`]).
//!
//! Name resolution, in order: the enclosing class and its bases for
//! `self.x`/`this.x`; nested and same-file definitions; what the file
//! imports; a unique definition of that name anywhere. What stays unresolved
//! is kept as a named stub node, not dropped.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use petgraph::Direction;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

mod batched;
mod db;
mod facts;
mod modules;
mod overlay;
mod reader;
mod resolve;
mod sorted_runs;
mod spill;
mod store;

pub use facts::{FileFacts, SymbolFact};
pub use overlay::Overlay;
pub use reader::{GraphReader, Neighbourhood};
pub(crate) use resolve::import_stem;
pub use spill::FactsSpill;
use store::graph_dir;
pub use store::{dump_graph, exists, load_patterns, verify, GraphStore};

use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::analysis::role::Role;

/// Version of the graph's store. Bumped when either format or the
/// way names resolve changes: an index of another version is rebuilt in full
/// on its next run (a graph resolved by other rules cannot be updated in place).
/// 3: a bare name no longer resolves to a member of the enclosing class or object.
/// 4: names compared in canonical form (`Type::method` is `Type.method`); imports of
/// Rust, Go, Java, C/C++, Ruby and Lua resolve to files.
/// 5: `graph.bin` in sections, the edges packed, the references as written last.
/// 6: `facts.bin` has an id, which `facts.log` records name.
/// 7: the facts and resolved references per file in `graph.redb`; `graph.bin` has
/// an id, which `graph.log` records name.
/// 8: `graph.redb` has the `names` lookup; questions read it (no more `graph.bin`, `graph.log`).
/// 9: `graph.redb` has `into` (who points into a file) and `import_names`; `refs` has `self.x`.
/// 10: the lookup tables are sets of `key\0value` keys, not redb multimaps.
/// 11: a bare name resolves to a member of the enclosing module or interface
/// (Perl's `package`, an Elixir or Rust module); a qualified one to the
/// imported module's definition of that full name.
/// 12: among several definitions of a name, `T.m` (as written, or a call
/// through a receiver whose type the analysis knew) resolves to `T`'s member.
const FORMAT_VERSION: u32 = 12;
/// The pseudo-symbol module-level calls are resolved from.
const MODULE_CALLER: &str = "<module>";
const PATTERNS_FILE: &str = "patterns.json";
/// A convention is something seen at least this often.
pub const MIN_PATTERN_COUNT: usize = 2;

/// How a full run's facts are read back from its spill: the files resolved
/// together, and the lookup tables' entries sorted in one run before they go
/// to disk. Smaller takes less memory and more time; neither changes the graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Batches {
    pub files: usize,
    pub sort_run_bytes: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("cannot read the code graph {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("the code graph is damaged; run `git rag index` to rebuild it ({}: {})", path.display(), crate::stores::health::one_line(message, 160))]
    Decode { path: PathBuf, message: String },
    #[error("cannot write the code graph {path}: {source}")]
    Write { path: PathBuf, source: crate::stores::state::StateError },
    #[error("the code graph cannot be read; run `git rag index` to rebuild it ({}: {})", path.display(), crate::stores::health::one_line(message, 160))]
    Store { path: PathBuf, message: String },
    #[error("the index has no code graph; run `git rag index`")]
    Missing,
}

pub type Result<T> = std::result::Result<T, GraphError>;

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NodeKey {
    File(String),
    Symbol {
        path: String,
        qualified_name: String,
    },
    /// A call or base that resolved to nothing (or to more than one thing).
    Stub(String),
    /// An import of something outside the repository.
    External(String),
}

impl NodeKey {
    /// What the code a node stands for is for ([`Role::of_code`]: a Rust
    /// `mod tests` member is a test); a stub or an external name is no
    /// file's, and counts as code.
    pub fn role(&self) -> Role {
        match self {
            NodeKey::Symbol { path, qualified_name } => Role::of_code(path, Some(qualified_name)),
            NodeKey::File(path) => Role::of(path),
            NodeKey::Stub(_) | NodeKey::External(_) => Role::Code,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NodeData {
    pub key: NodeKey,
    pub kind: Kind,
    pub start_line: usize,
    pub end_line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EdgeKind {
    Contains = 0,
    Imports = 1,
    Calls = 2,
    Inherits = 3,
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

impl Graph {
    fn empty() -> Graph {
        Graph { graph: StableDiGraph::new(), nodes: std::sync::OnceLock::new(), by_name: std::sync::OnceLock::new() }
    }

    /// The whole graph from the index's store (references as written
    /// included); `None` when the index has none. Questions read only what
    /// they walk, through [`GraphReader`].
    pub fn load(index_dir: &Path) -> Result<Option<Graph>> {
        store::whole_graph(&graph_dir(index_dir))
    }

    /// Every node, in key order (tests compare two graphs' lines with it).
    #[cfg(test)]
    fn nodes_by_key(&self) -> Vec<&NodeData> {
        let mut nodes: Vec<&NodeData> = self.graph.node_weights().collect();
        nodes.sort_by(|a, b| a.key.cmp(&b.key));
        nodes
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

    /// Symbols whose name or qualified name is `name` (case-insensitive), or
    /// that end with it after a dot.
    pub fn find_symbols(&self, name: &str) -> Vec<NodeIndex> {
        let by_name = self.by_name.get_or_init(|| {
            let mut m: FxHashMap<String, Vec<NodeIndex>> = FxHashMap::default();
            for ix in self.graph.node_indices() {
                if let NodeKey::Symbol { qualified_name, .. } = &self.graph[ix].key {
                    m.entry(lookup_name(qualified_name)).or_default().push(ix);
                }
            }
            m
        });
        let (last, matches) = name_matcher(name);
        let mut out: Vec<NodeIndex> = by_name
            .get(&last)
            .into_iter()
            .flatten()
            .copied()
            .filter(|ix| matches!(&self.graph[*ix].key, NodeKey::Symbol { qualified_name, .. } if matches(qualified_name)))
            .collect();
        out.sort_by(|a, b| self.graph[*a].key.cmp(&self.graph[*b].key));
        out
    }

    /// Nodes reached from `start` over `kinds` edges in `direction`, with the
    /// depth at which each was first reached (breadth first, deterministic).
    pub fn walk(&self, start: &[NodeIndex], kinds: &[EdgeKind], direction: Direction, depth: usize) -> Vec<(NodeIndex, usize)> {
        let mut walk = Walk::new(start);
        while let Some(frontier) = walk.frontier(depth) {
            walk.step(self, &frontier, kinds, direction);
        }
        walk.reached
    }

    /// Nested definitions of a symbol (closures and methods), which act on its behalf.
    pub fn descendants(&self, ix: NodeIndex) -> Vec<NodeIndex> {
        self.walk(&[ix], &[EdgeKind::Contains], Direction::Outgoing, usize::MAX).into_iter().map(|(n, _)| n).collect()
    }
}

/// A breadth-first walk a level at a time, so a caller can load what the
/// next level reads before it is taken ([`reader`]).
struct Walk {
    seen: HashSet<NodeIndex>,
    reached: Vec<(NodeIndex, usize)>,
    frontier: Vec<NodeIndex>,
    depth: usize,
}

impl Walk {
    fn new(start: &[NodeIndex]) -> Walk {
        Walk { seen: start.iter().copied().collect(), reached: Vec::new(), frontier: start.to_vec(), depth: 0 }
    }

    /// The nodes the next level leaves from; `None` once the walk is `max` deep or has nowhere to go.
    fn frontier(&self, max: usize) -> Option<Vec<NodeIndex>> {
        (self.depth < max && !self.frontier.is_empty()).then(|| self.frontier.clone())
    }

    /// Takes one level: each node's neighbours in key order, the first time each is seen.
    fn step(&mut self, g: &Graph, frontier: &[NodeIndex], kinds: &[EdgeKind], direction: Direction) {
        self.depth += 1;
        let mut next_frontier = Vec::new();
        for &ix in frontier {
            let mut next: Vec<NodeIndex> = g
                .graph
                .edges_directed(ix, direction)
                .filter(|e| kinds.contains(&e.weight().kind))
                .map(|e| if direction == Direction::Outgoing { e.target() } else { e.source() })
                .collect();
            next.sort_by(|a, b| g.graph[*a].key.cmp(&g.graph[*b].key));
            next.dedup();
            for n in next {
                if self.seen.insert(n) {
                    self.reached.push((n, self.depth));
                    next_frontier.push(n);
                }
            }
        }
        self.frontier = next_frontier;
    }
}

/// A definition's name as questions look it up: the last segment of its
/// canonical qualified name, lowercase (`graph.redb`'s `names` keys).
pub(crate) fn lookup_name(qualified: &str) -> String {
    lookup_name_of(qualified).into_owned()
}

/// [`lookup_name`], borrowed from `qualified` where folding changes nothing
/// (most names of a full build: what its lookup tables hold at once).
pub(crate) fn lookup_name_of(qualified: &str) -> std::borrow::Cow<'_, str> {
    use std::borrow::Cow;
    let canonical = crate::analysis::name::canonical(qualified);
    if let Cow::Borrowed(canonical) = canonical {
        let short = crate::analysis::name::last_dotted(canonical);
        if short.is_ascii() && !short.bytes().any(|b| b.is_ascii_uppercase()) {
            return Cow::Borrowed(short);
        }
    }
    let short = crate::analysis::name::last_dotted(&canonical);
    Cow::Owned(if short.is_ascii() {
        short.to_ascii_lowercase()
    } else {
        // `str::to_lowercase`, as the lookup lowercases (a final sigma differs).
        short.to_lowercase()
    })
}

/// For a name a question asks about: the [`lookup_name`] its definitions
/// are under, and whether a qualified name answers to it (case-insensitive:
/// the whole name, or its end after a dot).
fn name_matcher(name: &str) -> (String, impl Fn(&str) -> bool) {
    let lc = crate::analysis::name::canonical(&name.to_lowercase()).into_owned();
    let last = crate::analysis::name::last_dotted(&lc).to_string();
    let dotted = format!(".{lc}");
    let matches = move |qualified: &str| {
        let q = crate::analysis::name::canonical(qualified).to_lowercase();
        q == lc || q.ends_with(&dotted)
    };
    (last, matches)
}

#[cfg(test)]
mod tests {
    use super::resolve::{import_stem, last_segment, module_stem};
    use super::*;
    use crate::analysis::chunk::{chunk_file, ChunkOptions};
    use std::collections::BTreeSet;

    fn facts(files: &[(&str, &str)]) -> Vec<(String, FileFacts)> {
        files.iter().map(|(p, src)| (p.to_string(), FileFacts::of(&chunk_file(p, src.as_bytes(), &ChunkOptions::default())))).collect()
    }

    /// A graph built in memory and the same graph in a store on disk, each
    /// update applied to both: the store's (a partial update, then the
    /// queries' graph with the log applied) must equal the one in memory.
    struct Both {
        mem: GraphStore,
        dir: tempfile::TempDir,
        generation: usize,
    }

    impl Both {
        fn graph(&self) -> &Graph {
            self.mem.graph()
        }

        fn update(&mut self, removed: &BTreeSet<String>, added: Vec<(String, FileFacts)>) {
            self.mem.update(removed, added.clone()).unwrap();
            // The update laid over the store before it reads as the store after it.
            let overlay = GraphStore::overlay(self.dir.path(), removed, added.clone()).unwrap().expect("a store");
            assert_reader_matches_over(self.dir.path(), Some(std::sync::Arc::new(overlay)), self.mem.graph());
            let mut stored = GraphStore::open(self.dir.path()).unwrap();
            stored.update(removed, added).unwrap();
            self.generation += 1;
            stored.save(&format!("gen{}", self.generation)).unwrap();
            let view = Graph::load(self.dir.path()).unwrap().unwrap();
            assert_eq!(view.dump(), self.mem.graph().dump(), "the store updated in part equals the graph in memory");
            assert_eq!(view.nodes_by_key(), self.mem.graph().nodes_by_key(), "and so do its nodes' lines");
            assert_eq!(load_patterns(self.dir.path()).unwrap(), self.mem.patterns(), "and its conventions");
            assert_reader_matches(self.dir.path(), self.mem.graph());
        }
    }

    /// Every walk a question can take from every file and symbol, as the
    /// reader loads it from the store, equals the walk over the whole graph
    /// in memory: the nodes, their order, depth and lines.
    fn assert_reader_matches(dir: &Path, graph: &Graph) {
        assert_reader_matches_over(dir, None, graph)
    }

    /// [`assert_reader_matches`] with `overlay` laid over the store.
    fn assert_reader_matches_over(dir: &Path, overlay: Option<std::sync::Arc<Overlay>>, graph: &Graph) {
        let reader = GraphReader::open(dir).unwrap().expect("a store");
        let seen = |g: &Graph, walk: Vec<(NodeIndex, usize)>| -> Vec<(NodeKey, usize, Kind, usize, usize)> {
            walk.into_iter().map(|(n, d)| (g.graph[n].key.clone(), d, g.graph[n].kind, g.graph[n].start_line, g.graph[n].end_line)).collect()
        };
        for ix in graph.graph.node_indices() {
            let key = &graph.graph[ix].key;
            if !matches!(key, NodeKey::File(_) | NodeKey::Symbol { .. }) {
                continue;
            }
            for kind in [EdgeKind::Calls, EdgeKind::Imports, EdgeKind::Inherits, EdgeKind::Contains] {
                for direction in [Direction::Incoming, Direction::Outgoing] {
                    let want = seen(graph, graph.walk(&[ix], &[kind], direction, 2));
                    let mut nb = reader.question_over(overlay.clone()).unwrap();
                    let start = nb.node(key).unwrap().expect("the node is in the store");
                    let got = nb.walk(&[start], &[kind], direction, 2).unwrap();
                    assert_eq!(seen(nb.graph(), got), want, "{key:?} {kind:?} {direction:?}");
                }
            }
            // Its callers read in order, stopping early: a prefix of all of them.
            let place = |g: &Graph, n: NodeIndex| (node_key_path(&g.graph[n].key), g.graph[n].start_line, g.graph[n].key.clone());
            let mut all: Vec<_> = graph.walk(&[ix], &[EdgeKind::Calls], Direction::Incoming, 1).into_iter().map(|(n, _)| place(graph, n)).collect();
            all.sort();
            for k in [1, 2, 3, usize::MAX] {
                let mut nb = reader.question_over(overlay.clone()).unwrap();
                let start = nb.node(key).unwrap().expect("the node is in the store");
                let (found, complete) = nb.incoming_in_order(&[start], &[EdgeKind::Calls], |p| p.to_string(), |_, found| found.len() >= k).unwrap();
                let got: Vec<_> = found.iter().map(|n| place(nb.graph(), *n)).collect();
                assert!(got.len() >= k.min(all.len()) && got[..] == all[..got.len()], "{key:?} first {k}: {got:?} of {all:?}");
                assert!(!complete || got == all, "{key:?}: {got:?} vs {all:?}");
            }
            if let NodeKey::Symbol { qualified_name, .. } = key {
                let name = qualified_name.rsplit('.').next().unwrap_or(qualified_name);
                let mut nb = reader.question_over(overlay.clone()).unwrap();
                let found = nb.find_symbols(name).unwrap();
                let found: Vec<NodeKey> = found.into_iter().map(|n| nb.graph().graph[n].key.clone()).collect();
                let want: Vec<NodeKey> = graph.find_symbols(name).into_iter().map(|n| graph.graph[n].key.clone()).collect();
                assert_eq!(found, want, "symbols named {name}");
            }
        }
    }

    fn node_key_path(key: &NodeKey) -> String {
        match key {
            NodeKey::File(p) | NodeKey::Symbol { path: p, .. } => p.clone(),
            _ => String::new(),
        }
    }

    fn build(files: &[(&str, &str)]) -> Both {
        let dir = tempfile::tempdir().unwrap();
        let mut mem = GraphStore::empty(dir.path());
        mem.update(&BTreeSet::new(), facts(files)).unwrap();
        // The reference: the same facts resolved into a graph in memory
        // (the store's full write resolves them file by file as it writes).
        mem.materialize().unwrap();
        let mut stored = GraphStore::empty(dir.path());
        stored.update(&BTreeSet::new(), facts(files)).unwrap();
        stored.save("gen0").unwrap();
        assert_reader_matches(dir.path(), mem.graph());
        Both { mem, dir, generation: 0 }
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
        let into = |q: &str| -> Vec<String> { g.dump().into_iter().filter(|l| l.contains(&format!("#{q}@")) && l.contains("-calls(")).collect() };
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
        let from: Vec<NodeKey> =
            g2.graph().walk(&start, &[EdgeKind::Calls], Direction::Incoming, 1).into_iter().map(|(ix, _)| g2.graph().graph[ix].key.clone()).collect();
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
        // In one update: a file whose every definition moves down (updated in
        // place) beside one that gains a definition its neighbour now calls.
        let sessions3 = format!("# moved\n\n\n{}", sessions2.replace("get_auth(1)", "get_auth(1) or helper()"));
        let auth3 = "def get_auth(url):\n    return url\n\ndef helper():\n    return get_auth(0)\n";
        let removed: BTreeSet<String> = ["pkg/auth.py", "pkg/sessions.py"].iter().map(|s| s.to_string()).collect();
        g.update(&removed, facts(&[("pkg/auth.py", auth3), ("pkg/sessions.py", &sessions3)]));
        let fresh = build(&[("pkg/auth.py", auth3), ("pkg/sessions.py", &sessions3)]);
        assert_eq!(g.graph().dump(), fresh.graph().dump());
        assert_eq!(g.graph().nodes_by_key(), fresh.graph().nodes_by_key(), "lines moved with the definitions");
    }

    /// A file whose definitions partly change keeps the nodes (and the edges
    /// other files resolved into them) of the ones that did not; the result
    /// equals a fresh build through added members, changed bases, a renamed
    /// parent and a removed definition.
    #[test]
    fn changed_definitions_keep_the_others_and_equal_a_fresh_build() {
        let user = "from .lib import Base, run\n\nclass Child(Base):\n    def go(self):\n        return self.get() + run() + self.put()\n";
        let versions = [
            "class Base:\n    def get(self):\n        return 1\n\ndef run():\n    return 2\n",
            // New imports, a member added, a body changed, a function added, every line moved.
            "import os\n\nclass Base:\n    def get(self):\n        return os.sep\n    def put(self):\n        return 0\n\ndef run():\n    return 3\n\ndef added():\n    return run()\n",
            // Base gains a base that defines get; put is gone.
            "import os\n\nclass Mixin:\n    def get(self):\n        return 5\n\nclass Base(Mixin):\n    def helper(self):\n        return os.sep\n\ndef run():\n    return 3\n\ndef added():\n    return run()\n",
            // Base's bases change again; its member stays (and keeps its parent).
            "import os\n\nclass Mixin:\n    def get(self):\n        return 5\n\nclass Base(Mixin, object):\n    def helper(self):\n        return os.sep\n\ndef run():\n    return 3\n\ndef added():\n    return run()\n",
            // The class is renamed: its members move with it; run is removed.
            "import os\n\nclass Mixin:\n    def get(self):\n        return 5\n\nclass Base2(Mixin):\n    def helper(self):\n        return os.sep\n\ndef added():\n    return 1\n",
        ];
        let mut g = build(&[("pkg/lib.py", versions[0]), ("pkg/user.py", user)]);
        for lib in &versions[1..] {
            let removed: BTreeSet<String> = ["pkg/lib.py".to_string()].into_iter().collect();
            g.update(&removed, facts(&[("pkg/lib.py", lib)]));
            let fresh = build(&[("pkg/lib.py", lib), ("pkg/user.py", user)]);
            assert_eq!(g.graph().dump(), fresh.graph().dump(), "after {lib}");
            assert_eq!(g.graph().nodes_by_key(), fresh.graph().nodes_by_key(), "after {lib}");
        }
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

    /// The conventions a partial update writes (groups updated by
    /// difference, examples from each group's first files) equal those
    /// aggregated from every file: through moved lines, a file removed, one
    /// added, and a group falling under the minimum count.
    #[test]
    fn conventions_follow_partial_updates() {
        let test_file = |name: &str| {
            format!("import logging\n\nclass Test{name}:\n    def test_{name}(self):\n        try:\n            run()\n        except ValueError:\n            logging.error('x')\n            raise\n")
        };
        let names = ["a", "b", "c", "d"];
        let sources: Vec<(String, String)> = names.iter().map(|n| (format!("tests/test_{n}.py"), test_file(n))).collect();
        let list: Vec<(&str, &str)> = sources.iter().map(|(p, s)| (p.as_str(), s.as_str())).collect();
        let mut g = build(&list);
        assert!(!g.mem.patterns().is_empty(), "the test files make conventions");
        let one = |path: &str| -> BTreeSet<String> { [path.to_string()].into_iter().collect() };
        // Every line of the first file moves down (its examples move).
        g.update(&one("tests/test_a.py"), facts(&[("tests/test_a.py", &format!("# moved\n\n{}", test_file("a")))]));
        // A file goes; another comes, first in path order.
        g.update(&one("tests/test_b.py"), Vec::new());
        g.update(&BTreeSet::new(), facts(&[("tests/test_0.py", &test_file("0"))]));
        // The error handling leaves all but one file: its group drops under the minimum.
        for n in ["0", "a", "c"] {
            let path = format!("tests/test_{n}.py");
            g.update(&one(&path), facts(&[(&path, &format!("class Test{n}:\n    def test_{n}(self):\n        run()\n"))]));
        }
    }

    /// `from . import tools` then `tools.newfn()`: the importing file has no
    /// edge into `tools.py` while it lacks `newfn`, and `newfn` is defined
    /// elsewhere too often to be found by name; the import's name leads there.
    #[test]
    fn a_module_imported_by_name_gains_a_definition() {
        let g_file = "def newfn():\n    return 0\n";
        let imp = "from . import tools\n\ndef use():\n    return tools.newfn()\n";
        let files = |tools: &'static str| {
            vec![("g/a.py", g_file), ("g/b.py", g_file), ("g/c.py", g_file), ("pkg/__init__.py", ""), ("pkg/imp.py", imp), ("pkg/tools.py", tools)]
        };
        let mut g = build(&files("def other():\n    return 1\n"));
        let removed: BTreeSet<String> = ["pkg/tools.py".to_string()].into_iter().collect();
        let tools = "def newfn():\n    return 1\n";
        g.update(&removed, facts(&[("pkg/tools.py", tools)]));
        assert_eq!(g.graph().dump(), build(&files(tools)).graph().dump());
        assert_eq!(callers(g.graph(), "newfn").len(), 1, "{:#?}", g.graph().dump());
    }

    /// Random edits to a small repository that exercises every way a file's
    /// resolution depends on another (imports by path and by name, a
    /// package's `__init__.py`, `self.x` through bases in other files, names
    /// defined once, twice and three times, a Go package's files, a JS
    /// `index.js`): after every update the store (which re-resolves only what
    /// its lookup tables say can change) equals the graph in memory (which
    /// considers every file) and a fresh build.
    #[test]
    fn random_edits_equal_a_fresh_build() {
        // `get`, `helper`, `newfn`, `m` and `Extra` are defined three times
        // or more in any version (the `g` files), so no reference finds
        // them as a unique name: only imports, edges and base chains lead
        // there. `solo` is defined at most twice.
        const G: &str =
            "def get(a):\n    return a\n\ndef helper():\n    return 0\n\ndef newfn():\n    return 0\n\ndef m():\n    return 0\n\ndef Extra():\n    return 0\n";
        let variants: &[(&str, &[Option<&str>])] = &[
            ("g/g1.py", &[Some(G)]),
            ("g/g2.py", &[Some(G)]),
            ("g/g3.py", &[Some(G)]),
            ("pkg/__init__.py", &[None, Some(""), Some("from .utils import helper\n"), Some("def helper():\n    return 0\n")]),
            ("pkg/utils.py", &[None, Some("def helper():\n    return 1\n\ndef get(x):\n    return x\n"), Some("def get(x):\n    return 2\n"), Some("def helper():\n    return 3\n\ndef newfn():\n    return 4\n\nclass Base:\n    def get(self):\n        return 1\n")]),
            ("pkg/user.py", &[Some("from . import utils\nfrom .base import Base\n\nclass User(Base):\n    def run(self):\n        return utils.helper() + utils.newfn() + self.get() + get(1) + helper() + solo()\n"), None, Some("# every line moves down\nfrom . import utils\nfrom .base import Base\n\nclass User(Base):\n    def run(self):\n        return utils.helper() + utils.newfn() + self.get() + get(1) + helper() + solo()\n")]),
            ("pkg/base.py", &[None, Some("class Base:\n    pass\n"), Some("class Base:\n    def get(self):\n        return 5\n"), Some("class Mid:\n    def get(self):\n        return 6\n\nclass Base(Mid):\n    pass\n"), Some("from .utils import Base as Mid\n\nclass Base(Mid):\n    def put(self):\n        return self.get()\n")]),
            ("pkg/other.py", &[None, Some("def get(y):\n    return y\n"), Some("def helper():\n    return 9\n\ndef solo(q):\n    return q\n")]),
            ("pkg/more.py", &[None, Some("def solo(z):\n    return z\n\ndef newfn():\n    return 1\n")]),
            ("pkg/sub/x.py", &[Some("from .. import utils\nfrom ..utils import get\n\ndef f():\n    return utils.helper() + get(2) + newfn() + solo()\n"), None]),
            ("pkg/sub/__init__.py", &[None, Some("from . import x\n\ndef g():\n    return x.f()\n")]),
            ("pkg/imp.py", &[Some("from . import tools\n\ndef use():\n    return tools.newfn()\n")]),
            // Changed around a definition that is not: `run`'s references
            // find what the change defined (the edited file's own, or
            // another's in the same update); `a` stays while `b` changes
            // inside its body only.
            ("pkg/edited.py", &[Some("def run():\n    return solo() + helper()\n"), Some("def run():\n    return solo() + helper()\n\ndef solo():\n    return 1\n"), Some("def run():\n    return solo() + helper()\n\nclass helper:\n    pass\n")]),
            // A name defined twice (the first owns the node), kept, changed or gone.
            ("pkg/twice.py", &[Some("def twice():\n    return solo()\n\ndef twice():\n    return helper()\n\ndef other():\n    return get(1)\n"), Some("def twice():\n    return solo()\n\ndef twice():\n    return helper()\n\ndef other():\n    return get(1)\n\ndef more():\n    return twice()\n"), Some("def twice():\n    return helper()\n\ndef other():\n    return twice()\n"), Some("def other():\n    return twice()\n\ndef twice():\n    return newfn()\n\ndef twice():\n    return solo()\n")]),
            ("pkg/in_place.py", &[Some("def a():\n    return solo() + newfn()\n\ndef b():\n    return 1\n"), Some("def a():\n    return solo() + newfn()\n\ndef b():\n    return get(2)\n")]),
            ("pkg/tools.py", &[None, Some("def other():\n    return 1\n"), Some("def newfn():\n    return 1\n")]),
            ("pkg/chain_a.py", &[Some("from .chain_b import B\n\nclass A(B):\n    def run(self):\n        return self.m() + self.get()\n")]),
            ("pkg/chain_b.py", &[Some("from .chain_c import C\n\nclass B(C):\n    pass\n"), Some("class B:\n    def get(self):\n        return 1\n")]),
            ("pkg/chain_c.py", &[None, Some("class C:\n    pass\n"), Some("class C:\n    def m(self):\n        return 1\n"), Some("class C:\n    def get(self):\n        return self.m()\n")]),
            ("lib/a.js", &[Some("const u = require('./u');\nfunction run() { return u.helper() + get() + solo(); }\nmodule.exports = { run };\n"), None, Some("// moved\n\nconst u = require('./u');\nfunction run() { return u.helper() + get() + solo(); }\nmodule.exports = { run };\n")]),
            ("lib/u.js", &[None, Some("function helper() { return 1; }\nfunction get() { return 2; }\nmodule.exports = { helper, get };\n"), Some("function helper() { return 3; }\nmodule.exports = { helper };\n")]),
            ("lib/index.js", &[None, Some("const a = require('./a');\nfunction get() { return a.run(); }\nmodule.exports = a;\n")]),
            ("app/main.js", &[Some("const lib = require('../lib');\nfunction start() { return lib.run() + get(); }\n"), None]),
            ("go/pkg/a.go", &[None, Some("package pkg\n\nfunc Helper() int { return 1 }\n"), Some("package pkg\n\nfunc Other() int { return Get() }\n")]),
            ("go/pkg/b.go", &[Some("package pkg\n\nfunc Get() int { return Helper() }\n"), Some("package pkg\n\nfunc Get() int { return 2 }\n\nfunc Extra() int { return 3 }\n"), None]),
            ("go/main/main.go", &[Some("package main\n\nimport \"example.com/m/go/pkg\"\n\nfunc main() { pkg.Helper(); pkg.Extra(); Other() }\n")]),
        ];
        for seed in [1u64, 7, 42, 1234, 99991] {
            let mut state = seed;
            let mut next = |n: usize| -> usize {
                // xorshift64: deterministic, no dependency.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state % n as u64) as usize
            };
            let mut current: Vec<usize> = vec![0; variants.len()];
            let files =
                |current: &[usize]| -> Vec<(&str, &str)> { variants.iter().zip(current).filter_map(|((p, v), i)| v[*i].map(|src| (*p, src))).collect() };
            let mut g = build(&files(&current));
            for step in 0..40 {
                let mut removed = BTreeSet::new();
                let mut added = Vec::new();
                let before = current.clone();
                for _ in 0..1 + next(2) {
                    let f = next(variants.len());
                    let (path, options) = variants[f];
                    if options[current[f]].is_some() && !removed.contains(path) {
                        removed.insert(path.to_string());
                    }
                    current[f] = next(options.len());
                }
                for (f, (path, options)) in variants.iter().enumerate() {
                    if let Some(src) = options[current[f]].filter(|_| removed.contains(*path) || options[before[f]].is_none()) {
                        added.push((*path, src));
                    }
                }
                g.update(&removed, facts(&added));
                let fresh = build(&files(&current));
                assert_eq!(g.graph().dump(), fresh.graph().dump(), "seed {seed} step {step}: {removed:?} {added:?}");
                assert_eq!(g.graph().nodes_by_key(), fresh.graph().nodes_by_key(), "seed {seed} step {step}");
            }
        }
    }

    #[test]
    fn save_and_load_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let files = [("pkg/utils.py", UTILS), ("pkg/sessions.py", SESSIONS)];
        let mut g = GraphStore::open(dir.path()).unwrap();
        g.update(&BTreeSet::new(), facts(&files)).unwrap();
        // The save resolves as it writes; the same facts resolved in memory are the reference.
        let mut mem = GraphStore::empty(dir.path());
        mem.update(&BTreeSet::new(), facts(&files)).unwrap();
        mem.materialize().unwrap();
        let dump = mem.graph().dump();
        assert!(dump.iter().any(|l| l.contains("-calls(")), "{dump:#?}");
        g.save("gen1").unwrap();
        let loaded = Graph::load(dir.path()).unwrap().unwrap();
        assert_eq!(loaded.dump(), dump);
        assert!(exists(dir.path()));
        // A damaged store is an error that says what to do.
        std::fs::write(dir.path().join("graph").join(db::DB_FILE), b"garbage").unwrap();
        let err = GraphStore::open(dir.path()).err().expect("a damaged store does not open").to_string();
        assert!(err.contains("run `git rag index` to rebuild it"), "{err}");
        assert!(!exists(dir.path()));
    }

    /// A full run that kept its calls on disk writes the store a run with
    /// every fact in memory writes: the same graph, and lookup tables from
    /// which the same incremental update follows.
    #[test]
    fn a_full_write_from_spilled_facts_equals_one_from_memory() {
        let files = [("pkg/utils.py", UTILS), ("pkg/sessions.py", SESSIONS)];
        let (whole, spilled) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut g = GraphStore::empty(whole.path());
        g.update(&BTreeSet::new(), facts(&files)).unwrap();
        g.save("gen1").unwrap();
        let dump = |dir: &Path| Graph::load(dir).unwrap().unwrap().dump();
        let entries = |dir: &Path| db::all_entries(&graph_dir(dir));
        // Held at once, and one file per batch with every entry a sorted run of its own.
        for bounds in [crate::index::MemoryBounds::default().graph(), Batches { files: 1, sort_run_bytes: 1 }] {
            let spill = FactsSpill::create(spilled.path(), bounds).unwrap();
            let slim: Vec<(String, FileFacts)> = facts(&files)
                .into_iter()
                .map(|(p, f)| {
                    let kept = spill.keep(&p, f).unwrap();
                    (p, kept)
                })
                .collect();
            assert!(slim.iter().all(|(_, f)| f.symbols.is_empty() && f.imports.is_empty()));
            let mut g = GraphStore::spilled(spilled.path(), spill);
            g.update(&BTreeSet::new(), slim).unwrap();
            g.save("gen1").unwrap();
            assert!(dump(spilled.path()).iter().any(|l| l.contains("-calls(")));
            assert_eq!(dump(spilled.path()), dump(whole.path()), "{bounds:?}");
            // Every table, record by record: facts, out-edges, lookups, conventions.
            assert!(entries(spilled.path()).iter().any(|l| l.starts_with("lookup 1 ")));
            assert_eq!(entries(spilled.path()), entries(whole.path()), "{bounds:?}");
        }
        // `get_auth` gains a definition: which callers re-resolve comes from the `refs` table.
        let auth = "def get_auth(url):\n    return url\n";
        for dir in [whole.path(), spilled.path()] {
            let mut g = GraphStore::open(dir).unwrap();
            g.update(&BTreeSet::new(), facts(&[("pkg/auth.py", auth)])).unwrap();
            g.save("gen2").unwrap();
        }
        assert_eq!(dump(spilled.path()), dump(whole.path()));
    }

    /// A full run's batch reads the files its references reach, not the repository.
    #[test]
    fn a_batch_reads_only_the_files_its_references_reach() {
        let other = "def unrelated(x):\n    return x\n";
        let files = [("pkg/utils.py", UTILS), ("pkg/sessions.py", SESSIONS), ("pkg/other.py", other)];
        let dir = tempfile::tempdir().unwrap();
        let spill = FactsSpill::create(dir.path(), crate::index::MemoryBounds::default().graph()).unwrap();
        let slim: Vec<(String, FileFacts)> = facts(&files)
            .into_iter()
            .map(|(p, f)| {
                let kept = spill.keep(&p, f).unwrap();
                (p, kept)
            })
            .collect();
        let mut g = GraphStore::spilled(dir.path(), spill);
        g.update(&BTreeSet::new(), slim).unwrap();
        g.save("gen1").unwrap();
        let db = db::Db::open(&graph_dir(dir.path())).unwrap().unwrap();
        let snapshot = db.snapshot().unwrap();
        let paths: BTreeSet<String> = files.iter().map(|(p, _)| p.to_string()).collect();
        let mut universe = resolve::Universe { paths, defs: Default::default(), changed: BTreeSet::new() };
        let sessions = "pkg/sessions.py".to_string();
        let (resolved, read) = batched::resolve_batch(&snapshot, &mut universe, &[&sessions]).unwrap();
        assert_eq!(read, vec!["pkg/sessions.py".to_string(), "pkg/utils.py".to_string()]);
        // The edges are those the full write stored.
        let stored = snapshot.out_edges([&sessions]).unwrap();
        assert_eq!(resolved, vec![(sessions.clone(), stored[&sessions].clone())]);
        assert!(resolved[0]
            .1
            .iter()
            .any(|(_, to, kind, _)| *kind == EdgeKind::Calls && *to == NodeKey::Symbol { path: "pkg/utils.py".into(), qualified_name: "get_auth".into() }));
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
