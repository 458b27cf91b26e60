//! Name resolution: from the raw references in the facts (calls, bases,
//! imports) to the symbols they name, and the edits an update makes to the
//! graph's nodes and edges.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use petgraph::stable_graph::NodeIndex;
use rustc_hash::FxHashMap;

use super::*;
use crate::analysis::kind::Kind;
use crate::analysis::name::{canonical as canonical_name, canonical_own_part as short_name};

pub(super) fn symbol_key(path: &str, qualified_name: &str) -> NodeKey {
    NodeKey::Symbol { path: path.to_string(), qualified_name: qualified_name.to_string() }
}

pub(super) fn add_file_nodes(g: &mut Graph, path: &str, facts: &FileFacts) {
    let file = g.ensure(NodeData { key: NodeKey::File(path.to_string()), kind: Kind::File, start_line: 1, end_line: 1 });
    // Several definitions may share a qualified name (a redefinition): the first one owns the node.
    for s in &facts.symbols {
        let key = symbol_key(path, &s.qualified_name);
        if g.node(&key).is_some() {
            continue;
        }
        let ix = g.ensure(NodeData { key, kind: s.kind, start_line: s.start_line, end_line: s.end_line });
        let parent = s.parent.as_ref().and_then(|p| g.node(&symbol_key(path, p))).unwrap_or(file);
        g.graph.add_edge(parent, ix, EdgeData { kind: EdgeKind::Contains, raw: String::new() });
    }
}

/// Moves a file's symbol nodes to their new lines (a file whose definitions
/// are the same, see `same_interface`): the first definition of a
/// qualified name owns the node, as in [`add_file_nodes`].
pub(super) fn update_lines(g: &mut Graph, path: &str, facts: &FileFacts) {
    let mut seen = HashSet::new();
    for s in &facts.symbols {
        if !seen.insert(&s.qualified_name) {
            continue;
        }
        if let Some(ix) = g.node(&symbol_key(path, &s.qualified_name)) {
            g.graph[ix].start_line = s.start_line;
            g.graph[ix].end_line = s.end_line;
        }
    }
}

/// A file's definitions as name resolution tells them apart: grouped by
/// canonical qualified name (a lookup finds a group's first; a file may
/// define a name twice, as C does under `#ifdef`), each group in file order.
pub(super) struct Groups<'f>(HashMap<std::borrow::Cow<'f, str>, Vec<&'f SymbolFact>>);

impl<'f> Groups<'f> {
    pub(super) fn of(f: &'f FileFacts) -> Groups<'f> {
        let mut groups: HashMap<std::borrow::Cow<'f, str>, Vec<&'f SymbolFact>> = HashMap::new();
        for s in &f.symbols {
            groups.entry(canonical_name(&s.qualified_name)).or_default().push(s);
        }
        Groups(groups)
    }

    /// Whether `s`'s group is the same in `other`: the same definitions in
    /// the same order (qualified names, names, kinds, parents, bases; lines aside).
    pub(super) fn kept_in(&self, s: &SymbolFact, other: &Groups) -> bool {
        let key = canonical_name(&s.qualified_name);
        match (self.0.get(&key), other.0.get(&key)) {
            (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_definition(x, y)),
            _ => false,
        }
    }
}

/// Whether two definitions look the same to name resolution: qualified
/// name, name, kind, parent and bases (lines and calls aside).
pub(super) fn same_definition(a: &SymbolFact, b: &SymbolFact) -> bool {
    a.qualified_name == b.qualified_name && a.name == b.name && a.kind == b.kind && a.parent == b.parent && a.bases == b.bases
}

/// Replaces the symbol nodes of a file that is there before and after:
/// nodes of definitions whose group ([`Groups`]) is gone or changed go, with
/// their edges; the others stay, with the edges other files resolved into
/// them, and move to their new lines (those of the first definition of
/// their qualified name, which owns the node). [`add_file_nodes`] then adds
/// the new ones, [`attach_to_parents`] re-links what lost its parent.
pub(super) fn replace_file_nodes(g: &mut Graph, path: &str, old: &FileFacts, new: &FileFacts) {
    let (before, after) = (Groups::of(old), Groups::of(new));
    let mut seen = HashSet::new();
    for a in &old.symbols {
        if !seen.insert(a.qualified_name.as_str()) {
            continue;
        }
        match new.symbols.iter().find(|b| b.qualified_name == a.qualified_name).filter(|_| before.kept_in(a, &after)) {
            Some(b) => {
                if let Some(ix) = g.node(&symbol_key(path, &b.qualified_name)) {
                    g.graph[ix].start_line = b.start_line;
                    g.graph[ix].end_line = b.end_line;
                }
            }
            None => g.remove(&symbol_key(path, &a.qualified_name)),
        }
    }
}

/// Gives every symbol node of `path` its `contains` edge from its parent (or
/// the file) when it has none: a kept definition whose parent was replaced.
pub(super) fn attach_to_parents(g: &mut Graph, path: &str, facts: &FileFacts) {
    let Some(file) = g.node(&NodeKey::File(path.to_string())) else { return };
    for s in &facts.symbols {
        let Some(ix) = g.node(&symbol_key(path, &s.qualified_name)) else { continue };
        if g.graph.edges_directed(ix, Direction::Incoming).any(|e| e.weight().kind == EdgeKind::Contains) {
            continue;
        }
        let parent = s.parent.as_ref().and_then(|p| g.node(&symbol_key(path, p))).unwrap_or(file);
        g.graph.add_edge(parent, ix, EdgeData { kind: EdgeKind::Contains, raw: String::new() });
    }
}

/// Removes a file's symbols; the file node itself only when the file is gone,
/// so imports of a file that changed in place stay attached.
pub(super) fn remove_file_nodes(g: &mut Graph, path: &str, facts: &FileFacts, keep_file: bool) {
    for s in &facts.symbols {
        g.remove(&symbol_key(path, &s.qualified_name));
    }
    if !keep_file {
        g.remove(&NodeKey::File(path.to_string()));
    }
}

pub(super) fn drop_orphan_stubs(g: &mut Graph) {
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

/// Which of a file's references a resolution redoes (and its edges replace).
pub(super) enum Scope<'s> {
    /// All of them, imports included.
    All,
    /// Those whose name (last segment) is in the set: a file whose
    /// definitions and imports did not change, where only what those names
    /// resolve to may have.
    Names(&'s HashSet<String>),
    /// A file that changed but kept its imports: every reference of the
    /// definitions in `redo` (new, or with other calls or bases; by
    /// qualified name) and of the module level when `module` is set; of the
    /// others, those whose name is in `names`, as for an unchanged file.
    Edited { names: &'s HashSet<String>, redo: HashSet<String>, module: bool },
}

impl Scope<'_> {
    /// Whether the file's imports are redone.
    fn imports(&self) -> bool {
        matches!(self, Scope::All)
    }

    /// Whether the reference `raw` of the definition `qualified` (`None`:
    /// the module level) is redone.
    fn takes(&self, qualified: Option<&str>, raw: &str) -> bool {
        let named = |names: &HashSet<String>| names.contains(ref_name(raw).as_ref());
        match self {
            Scope::All => true,
            Scope::Names(names) => named(names),
            Scope::Edited { names, redo, module } => match qualified {
                None => *module || named(names),
                Some(q) => redo.contains(q) || named(names),
            },
        }
    }

    /// The scope of a file changed from `old` to `new` whose references
    /// other than those redone in full resolve as before unless they name
    /// one of `names` (the caller's reason: its imports and, when paths
    /// moved, what they find are the same). A definition is redone when
    /// the definitions of its qualified name differ in anything but lines.
    pub(super) fn edited<'s>(old: &FileFacts, new: &FileFacts, names: &'s HashSet<String>) -> Scope<'s> {
        fn imports(f: &FileFacts) -> Vec<(&String, &Vec<String>)> {
            f.imports.iter().map(|i| (&i.module, &i.names)).collect()
        }
        if old.language != new.language || imports(old) != imports(new) {
            return Scope::All;
        }
        type Shape<'f> = Vec<(&'f str, Kind, Option<&'f String>, &'f [String], &'f [String])>;
        fn by_name(f: &FileFacts) -> HashMap<&str, Shape<'_>> {
            let mut m: HashMap<&str, Shape> = HashMap::new();
            for s in &f.symbols {
                m.entry(s.qualified_name.as_str()).or_default().push((s.name.as_str(), s.kind, s.parent.as_ref(), &s.calls, &s.bases));
            }
            m
        }
        let (before, after) = (by_name(old), by_name(new));
        let mut redo: HashSet<String> = after.iter().filter(|(q, shape)| before.get(*q) != Some(*shape)).map(|(q, _)| q.to_string()).collect();
        // A definition whose node was replaced (its group changed) has no edges left.
        let (old_groups, new_groups) = (Groups::of(old), Groups::of(new));
        redo.extend(new.symbols.iter().filter(|s| !new_groups.kept_in(s, &old_groups)).map(|s| s.qualified_name.clone()));
        Scope::Edited { names, redo, module: old.module_calls != new.module_calls }
    }
}

/// A file's references, resolved: what [`apply_references`] puts in the
/// graph. With a scope, only the references it takes are redone (and
/// imports only with [`Scope::All`]). Computed apart from the graph so that files resolve in parallel.
pub(super) struct References {
    /// `None` when imports are not redone (a scoped resolution).
    imports: Option<Vec<(String, NodeKey)>>,
    module_calls: Vec<(String, NodeKey)>,
    /// Per symbol: the calls and bases of every definition of its name in
    /// the file (overloads; a Haskell signature and its equations).
    symbols: Vec<(String, Vec<(EdgeKind, String, NodeKey)>)>,
}

impl References {
    /// The edges these references (resolved unscoped) make from the file's
    /// nodes, as the store keeps them: what [`apply_references`] puts in a
    /// graph and the store's `out_edges` reads back, without the graph (a
    /// full build writes them as it resolves).
    pub(super) fn into_out_edges(self) -> super::db::OutEdges {
        let mut edges: super::db::OutEdges = Vec::new();
        edges.extend(self.imports.into_iter().flatten().map(|(raw, key)| (None, key, EdgeKind::Imports, raw)));
        edges.extend(self.module_calls.into_iter().map(|(raw, key)| (None, key, EdgeKind::Calls, raw)));
        for (qualified, list) in self.symbols {
            edges.extend(list.into_iter().map(|(kind, raw, key)| (Some(qualified.clone()), key, kind, raw)));
        }
        edges.sort();
        edges
    }
}

/// The references of `path`, whose facts are `f` (calls included), resolved within `scope`.
pub(super) fn resolve_references(resolver: &mut Resolver, f: &FileFacts, path: &str, scope: &Scope) -> References {
    let imports = scope.imports().then(|| {
        let mut targets: Vec<(String, NodeKey)> = f
            .imports
            .iter()
            .map(|imp| match resolver.module_file(path, &imp.module) {
                Some(p) => (imp.module.clone(), NodeKey::File(p)),
                None => (imp.module.clone(), NodeKey::External(imp.module.clone())),
            })
            .collect();
        targets.sort();
        targets.dedup();
        targets
    });
    // Module-level calls: edges from the file node.
    let module = SymbolFact {
        qualified_name: MODULE_CALLER.to_string(),
        name: MODULE_CALLER.to_string(),
        kind: Kind::Module,
        parent: None,
        start_line: 1,
        end_line: 1,
        calls: Vec::new(),
        bases: Vec::new(),
    };
    let mut target = |caller: &SymbolFact, raw: &str| {
        resolver.resolve(path, caller, raw).map(|(p, q)| symbol_key(&p, &q)).unwrap_or_else(|| NodeKey::Stub(ref_name(raw).into_owned()))
    };
    let mut module_calls: Vec<(String, NodeKey)> =
        f.module_calls.iter().filter(|r| scope.takes(None, r)).map(|raw| (raw.clone(), target(&module, raw))).collect();
    module_calls.sort();
    module_calls.dedup();
    let mut slot_of: HashMap<&str, usize> = HashMap::new();
    let mut symbols: Vec<(String, Vec<(EdgeKind, String, NodeKey)>)> = Vec::new();
    for s in &f.symbols {
        let slot = *slot_of.entry(&s.qualified_name).or_insert_with(|| {
            symbols.push((s.qualified_name.clone(), Vec::new()));
            symbols.len() - 1
        });
        for (kind, raws) in [(EdgeKind::Calls, &s.calls), (EdgeKind::Inherits, &s.bases)] {
            for raw in raws.iter().filter(|r| scope.takes(Some(&s.qualified_name), r)) {
                symbols[slot].1.push((kind, raw.clone(), target(s, raw)));
            }
        }
    }
    for (_, edges) in &mut symbols {
        edges.sort();
        edges.dedup();
    }
    References { imports, module_calls, symbols }
}

/// Replaces a file's resolved edges (those in `scope`) with `refs`.
pub(super) fn apply_references(g: &mut Graph, path: &str, scope: &Scope, refs: References) {
    let Some(file_ix) = g.node(&NodeKey::File(path.to_string())) else { return };
    let add = |g: &mut Graph, from: NodeIndex, kind: EdgeKind, raw: String, key: NodeKey| {
        let to = match g.node(&key) {
            Some(t) => t,
            None => {
                let node_kind = match key {
                    NodeKey::File(_) => Kind::File,
                    NodeKey::External(_) => Kind::External,
                    _ => Kind::Stub,
                };
                let lines = if node_kind == Kind::Stub { 0 } else { 1 };
                g.ensure(NodeData { key, kind: node_kind, start_line: lines, end_line: lines })
            }
        };
        g.graph.add_edge(from, to, EdgeData { kind, raw });
    };
    if let Some(imports) = refs.imports {
        remove_edges(g, file_ix, |e| e.kind == EdgeKind::Imports);
        for (raw, key) in imports {
            add(g, file_ix, EdgeKind::Imports, raw, key);
        }
    }
    remove_edges(g, file_ix, |e| e.kind == EdgeKind::Calls && scope.takes(None, &e.raw));
    for (raw, key) in refs.module_calls {
        add(g, file_ix, EdgeKind::Calls, raw, key);
    }
    for (qualified, edges) in refs.symbols {
        let Some(ix) = g.node(&symbol_key(path, &qualified)) else { continue };
        remove_edges(g, ix, |e| matches!(e.kind, EdgeKind::Calls | EdgeKind::Inherits) && scope.takes(Some(&qualified), &e.raw));
        for (kind, raw, key) in edges {
            add(g, ix, kind, raw, key);
        }
    }
}

/// Names of the members of every class reached by `inherits` edges from a
/// class defined in `paths`. A partial update notes in `missing` the files
/// of classes it reached but had not loaded.
pub(super) fn inherited_member_names(g: &Graph, paths: &BTreeSet<String>, facts: &BTreeMap<String, FileFacts>, missing: Option<&Missing>) -> HashSet<String> {
    let mut start = Vec::new();
    for p in paths {
        let Some(f) = facts.get(p) else { continue };
        start.extend(f.symbols.iter().filter(|s| !s.bases.is_empty()).filter_map(|s| g.node(&symbol_key(p, &s.qualified_name))));
    }
    let mut names = HashSet::new();
    for (base, _) in g.walk(&start, &[EdgeKind::Inherits], Direction::Outgoing, 8) {
        if let (Some(missing), NodeKey::Symbol { path, .. }) = (missing, &g.graph[base].key) {
            if !facts.contains_key(path) {
                missing.file(path);
            }
        }
        for edge in g.graph.edges_directed(base, Direction::Outgoing).filter(|e| e.weight().kind == EdgeKind::Contains) {
            if let NodeKey::Symbol { qualified_name, .. } = &g.graph[edge.target()].key {
                names.insert(short_name(qualified_name));
            }
        }
    }
    names
}

pub(super) fn remove_edges(g: &mut Graph, from: NodeIndex, mut pred: impl FnMut(&EdgeData) -> bool) {
    let ids: Vec<_> = g.graph.edges_directed(from, Direction::Outgoing).filter(|e| pred(e.weight())).map(|e| e.id()).collect();
    for id in ids {
        g.graph.remove_edge(id);
    }
}

/// `this.foo`, `new Foo`, `await x.y` → the dotted name called.
pub(super) fn normalize_call(raw: &str) -> String {
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
    let out = out.trim_start_matches("?.").replace("?.", ".").replace("!.", ".");
    canonical_name(&out).into_owned()
}

/// The name a reference is looked up and scoped by: the last segment of the
/// callee without arguments or subscripts (`copy(x).dump` → `dump`,
/// `RootModel[int]` → `RootModel`). Incremental updates re-resolve a reference
/// when this name is defined in a changed file, so it must agree with
/// [`Resolver::resolve`].
pub(super) fn ref_name(raw: &str) -> std::borrow::Cow<'_, str> {
    // A plain dotted name (most references) normalizes to itself: no copies.
    if raw.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')) {
        return std::borrow::Cow::Borrowed(last_segment(raw));
    }
    std::borrow::Cow::Owned(last_segment(&normalize_call(raw)).to_string())
}

/// How code names its own object or class: `self` (Python, Rust, Swift,
/// Zig), `this`, `cls`, `super`, and PHP's `$this`, `static`, `parent`.
const SELF_RECEIVERS: [&str; 7] = ["self", "this", "cls", "super", "$this", "static", "parent"];

/// The member a reference names on the caller's own class or object
/// (`self.x`, `this.x`, `cls.x`, `super().x` → `x`): the references that
/// resolve through base classes (see [`Resolver::resolve`]).
pub(super) fn self_member(raw: &str) -> Option<String> {
    if !SELF_RECEIVERS.iter().any(|r| raw.contains(r)) {
        return None;
    }
    let name = normalize_call(raw);
    let segs: Vec<&str> = name.split('.').filter(|s| !s.is_empty()).collect();
    match segs.as_slice() {
        [receiver, member] if SELF_RECEIVERS.contains(receiver) => Some(member.to_string()),
        _ => None,
    }
}

pub fn last_segment(raw: &str) -> &str {
    let s = raw.trim_end_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'));
    let s = s.split('(').next().unwrap_or(s);
    s.rsplit('.').next().unwrap_or(s).trim()
}

/// The name an import of a file would use: `pkg/utils.py` → `utils`,
/// `lib/router/index.js` → `router`.
pub(super) fn module_stem(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    let stem = file.split('.').next().unwrap_or(file);
    if matches!(stem, "index" | "__init__") {
        let mut parts = path.rsplit('/');
        parts.next();
        return parts.next().unwrap_or(stem).to_lowercase();
    }
    stem.to_lowercase()
}

/// The names an import may give a file by: its stem, and in languages
/// whose imports can name a directory (a Go package, Rust's `mod.rs`, Lua's
/// `init.lua`) its directory's. Python and the JavaScript family name a
/// directory by its `__init__.py` or `index` file, whose stem is the directory's.
pub(super) fn module_names(path: &str) -> Vec<String> {
    let mut names = vec![module_stem(path)];
    let language = Language::from_path(path);
    let file_based = language == Language::Python || language.is_js_family();
    if !file_based {
        names.extend(path.rsplit('/').nth(1).map(str::to_lowercase));
    }
    names
}

/// Every name segment of an import as written (`crate::a::b`, `x/y.h`,
/// `a.b.C`), lowercased.
pub(super) fn import_segments(module: &str) -> impl Iterator<Item = String> + '_ {
    module.split(['/', '.', ':', '\\']).filter(|s| !s.is_empty()).map(str::to_lowercase)
}

pub(crate) fn import_stem(module: &str) -> String {
    let m = module.trim_end_matches('/');
    let last = m.rsplit(['/', '.', '\\']).find(|s| !s.is_empty()).unwrap_or(m);
    let last = if matches!(last, "js" | "ts" | "tsx" | "jsx" | "mjs" | "cjs" | "vue" | "svelte") {
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

/// The repository as a partial store sees it: every path, and the
/// definitions of the names fetched so far (as the store held them, before
/// the update). What resolution asks for beyond the files and names loaded
/// is noted in [`Missing`]; the update then loads it and runs again.
pub(super) struct Universe {
    /// Every path after the update.
    pub(super) paths: BTreeSet<String>,
    /// name → (path, qualified name) of every definition, as stored.
    pub(super) defs: BTreeMap<String, Vec<(String, String)>>,
    /// Paths whose stored definitions are stale: their facts are loaded.
    pub(super) changed: BTreeSet<String>,
}

/// Files and names a partial update needed but had not loaded.
#[derive(Default)]
pub(super) struct Missing {
    pub(super) files: std::sync::Mutex<BTreeSet<String>>,
    pub(super) names: std::sync::Mutex<BTreeSet<String>>,
}

thread_local! {
    /// Whether a lookup on this thread went unanswered ([`Missing::missed_here`]).
    static MISSED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl Missing {
    /// Whether a lookup made on this thread since the last call went
    /// unanswered (noted here); clears it. A file resolves on one thread, so
    /// called before and after its resolution this says whether it missed.
    pub(super) fn missed_here() -> bool {
        MISSED.with(|m| m.replace(false))
    }

    pub(super) fn file(&self, path: &str) {
        MISSED.with(|m| m.set(true));
        if let Ok(mut m) = self.files.lock() {
            m.insert(path.to_string());
        }
    }

    fn name(&self, name: &str) {
        MISSED.with(|m| m.set(true));
        if let Ok(mut m) = self.names.lock() {
            m.insert(name.to_string());
        }
    }

    pub(super) fn take(&self) -> (BTreeSet<String>, BTreeSet<String>) {
        let files = self.files.lock().map(|mut m| std::mem::take(&mut *m)).unwrap_or_default();
        let names = self.names.lock().map(|mut m| std::mem::take(&mut *m)).unwrap_or_default();
        (files, names)
    }
}

/// A file's definitions by a name, the first in the file for each name: a
/// sorted list searched by halves (a hash map per file held its entries
/// with ~1.5× room, on the kernel's 3.8 M definitions in 78 k files).
pub(super) struct FirstByName<'a, K> {
    entries: Vec<(K, &'a crate::graph::SymbolFact)>,
}

impl<'a, K: std::borrow::Borrow<str>> FirstByName<'a, K> {
    /// `entries` in the file's order.
    fn new(mut entries: Vec<(K, &'a crate::graph::SymbolFact)>) -> Self {
        // A stable sort: of one name's entries, the file's first stays first.
        entries.sort_by(|a, b| a.0.borrow().cmp(b.0.borrow()));
        entries.dedup_by(|later, earlier| later.0.borrow() == earlier.0.borrow());
        entries.shrink_to_fit();
        FirstByName { entries }
    }

    fn get(&self, name: &str) -> Option<&'a crate::graph::SymbolFact> {
        self.entries.binary_search_by(|(k, _)| k.borrow().cmp(name)).ok().map(|i| self.entries[i].1)
    }
}

/// What name resolution looks up, built once per update and shared
/// (read-only) by every resolution in it, across threads.
pub(super) struct Lookups<'a> {
    facts: &'a BTreeMap<String, FileFacts>,
    tree: super::modules::Tree<'a>,
    /// name → (path, qualified name) of every definition with that name.
    by_name: FxHashMap<&'a str, Vec<(&'a str, &'a str)>>,
    /// path → canonical qualified name → its first definition in the file.
    by_qualified: FxHashMap<&'a str, FirstByName<'a, std::borrow::Cow<'a, str>>>,
    /// path → name → the first definition the file exports under it: its
    /// qualified name is the name, `exports.name` or `module.exports.name`.
    exported: FxHashMap<&'a str, FirstByName<'a, &'a str>>,
    /// `None`: `facts` is every file. Otherwise the files loaded, within this.
    partial: Option<(&'a Universe, &'a Missing)>,
}

impl<'a> Lookups<'a> {
    /// Lookups over `facts`: every file of the repository, or (`partial`)
    /// the files a partial update loaded.
    pub(super) fn new(facts: &'a BTreeMap<String, FileFacts>, partial: Option<(&'a Universe, &'a Missing)>) -> Lookups<'a> {
        let mut by_name: FxHashMap<&str, Vec<(&str, &str)>> = FxHashMap::default();
        let mut by_qualified: FxHashMap<&str, FirstByName<std::borrow::Cow<str>>> = FxHashMap::default();
        let mut exported: FxHashMap<&str, FirstByName<&str>> = FxHashMap::default();
        if let Some((universe, _)) = partial {
            for (name, defs) in &universe.defs {
                let list = by_name.entry(name.as_str()).or_default();
                list.extend(defs.iter().filter(|(p, _)| !universe.changed.contains(p)).map(|(p, q)| (p.as_str(), q.as_str())));
            }
        }
        for (path, f) in facts {
            let (mut qualified, mut exports) = (Vec::with_capacity(f.symbols.len()), Vec::with_capacity(f.symbols.len()));
            let names_here = partial.is_none_or(|(u, _)| u.changed.contains(path));
            for s in &f.symbols {
                if names_here && partial.is_none_or(|(u, _)| u.defs.contains_key(&s.name)) {
                    by_name.entry(s.name.as_str()).or_default().push((path.as_str(), s.qualified_name.as_str()));
                }
                qualified.push((canonical_name(&s.qualified_name), s));
                let q = s.qualified_name.as_str();
                for name in [Some(q), q.strip_prefix("exports."), q.strip_prefix("module.exports.")].into_iter().flatten() {
                    exports.push((name, s));
                }
            }
            by_qualified.insert(path.as_str(), FirstByName::new(qualified));
            exported.insert(path.as_str(), FirstByName::new(exports));
        }
        for v in by_name.values_mut() {
            v.sort();
            v.dedup();
            // Most names have one definition: a list grown by pushes holds four.
            v.shrink_to_fit();
        }
        let tree = match partial {
            Some((u, _)) => super::modules::Tree::new(u.paths.iter().map(String::as_str)),
            None => super::modules::Tree::new(facts.keys().map(String::as_str)),
        };
        Lookups { facts, tree, by_name, by_qualified, exported, partial }
    }

    pub(super) fn facts(&self) -> &'a BTreeMap<String, FileFacts> {
        self.facts
    }

    /// Notes a file that exists but was not loaded.
    fn unloaded(&self, path: &str) {
        if let Some((u, missing)) = self.partial {
            if u.paths.contains(path) {
                missing.file(path);
            }
        }
    }

    fn file(&self, path: &str) -> Option<&'a FileFacts> {
        let f = self.facts.get(path);
        if f.is_none() {
            self.unloaded(path);
        }
        f
    }

    fn qualified(&self, path: &str) -> Option<&FirstByName<'a, std::borrow::Cow<'a, str>>> {
        let q = self.by_qualified.get(path);
        if q.is_none() {
            self.unloaded(path);
        }
        q
    }

    fn exports(&self, path: &str) -> Option<&FirstByName<'a, &'a str>> {
        let e = self.exported.get(path);
        if e.is_none() {
            self.unloaded(path);
        }
        e
    }

    fn named(&self, name: &str) -> Option<&Vec<(&'a str, &'a str)>> {
        let found = self.by_name.get(name);
        if let (None, Some((u, missing))) = (found, self.partial) {
            if !u.defs.contains_key(name) {
                missing.name(name);
            }
        }
        found
    }
}

/// One thread's resolutions: the shared lookups and a cache of the files
/// imports name (a file's references ask for the same imports again and again).
pub(super) struct Resolver<'l, 'a> {
    lookups: &'l Lookups<'a>,
    /// importing file → module as written → the file it names (keyed in two
    /// levels so that a lookup borrows its strings).
    modules: FxHashMap<String, FxHashMap<String, Option<String>>>,
}

impl<'l, 'a> Resolver<'l, 'a> {
    pub(super) fn new(lookups: &'l Lookups<'a>) -> Resolver<'l, 'a> {
        Resolver { lookups, modules: FxHashMap::default() }
    }

    /// Whether `path` defines `qualified` (compared in canonical form: the
    /// resolver builds names with `.` whatever the language writes).
    pub(super) fn has(&self, path: &str, qualified: &str) -> bool {
        self.symbol(path, qualified).is_some()
    }

    pub(super) fn symbol(&self, path: &str, qualified: &str) -> Option<&'a crate::graph::SymbolFact> {
        self.lookups.qualified(path)?.get(canonical_name(qualified).as_ref())
    }

    /// The file an import refers to, if it is in the repository.
    pub(super) fn module_file(&mut self, from: &str, module: &str) -> Option<String> {
        if let Some(hit) = self.modules.get(from).and_then(|m| m.get(module)) {
            return hit.clone();
        }
        let found = self.find_module(from, module);
        self.modules.entry(from.to_string()).or_default().insert(module.to_string(), found.clone());
        found
    }

    pub(super) fn find_module(&self, from: &str, module: &str) -> Option<String> {
        find_module(&self.lookups.tree, from, module)
    }

    /// Resolves one reference made from `caller` in `path`, to the target's
    /// path and qualified name as the target's language writes it.
    pub(super) fn resolve(&mut self, path: &str, caller: &SymbolFact, raw: &str) -> Option<(String, String)> {
        let (p, q) = self.resolve_canonical(path, caller, raw)?;
        let native = self.symbol(&p, &q).map_or(q, |s| s.qualified_name.clone());
        Some((p, native))
    }

    fn resolve_canonical(&mut self, path: &str, caller: &SymbolFact, raw: &str) -> Option<(String, String)> {
        let name = normalize_call(raw);
        let segs: Vec<&str> = name.split('.').filter(|s| !s.is_empty()).collect();
        let last = *segs.last()?;
        let first = segs[0];
        let receiver_is_self = segs.len() == 2 && SELF_RECEIVERS.contains(&first);
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
                // A bare name is looked up in lexical scopes: the caller, the
                // functions around it and the module or interface it is in
                // (Perl's `package`, an Elixir or Rust module, a Java default
                // method's interface), not the class or object it is a member
                // of (`sendfile()` inside `res.sendFile` is the module's
                // `sendfile`, not the method `res.sendfile`; a Python method
                // cannot call a sibling method by bare name).
                let lexical = |s: &SymbolFact| s.kind.is_callable() || matches!(s.kind, Kind::Module | Kind::Interface);
                if segs.len() == 1 && !self.symbol(path, anc).is_some_and(lexical) {
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
                if matches!(local.kind, Kind::Variable | Kind::Const) {
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
        let mut defs: Vec<(&str, &str)> =
            self.lookups.named(last).map(|v| v.iter().copied().filter(|(p, q)| !(*p == path && *q == caller.qualified_name)).collect()).unwrap_or_default();
        // Overloads, and a Haskell signature with its equations, are one
        // name in one file: one definition to point at.
        defs.sort_unstable();
        defs.dedup();
        match defs.as_slice() {
            [(p, q)] => Some((p.to_string(), q.to_string())),
            [] => None,
            many => {
                // Several: the ones in this file win if there is exactly one.
                let local: Vec<&(&str, &str)> = many.iter().filter(|(p, _)| *p == path).collect();
                if let [(p, q)] = local.as_slice() {
                    return Some((p.to_string(), q.to_string()));
                }
                // `Type.m` (written so, or a receiver whose type the analysis
                // knew: `state.save` → `IndexState.save`): the members of that type.
                let receiver = segs.len().checked_sub(2).map(|i| segs[i]);
                let members: Vec<(&str, &str)> = many.iter().copied().filter(|(_, q)| member_of(q, receiver)).collect();
                match members.as_slice() {
                    [(p, q)] => Some((p.to_string(), q.to_string())),
                    [] => declared_and_defined(many).or_else(|| in_terraform_module(path, many)),
                    several => declared_and_defined(several),
                }
            }
        }
    }

    pub(super) fn in_bases(&mut self, path: &str, class: &str, member: &str, depth: usize) -> Option<(String, String)> {
        if depth > 4 {
            return None;
        }
        let caller = self.symbol(path, class)?;
        for base in &caller.bases {
            let Some((bp, bq)) = self.resolve_base(path, caller, base) else { continue };
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

    pub(super) fn resolve_base(&mut self, path: &str, class: &SymbolFact, base: &str) -> Option<(String, String)> {
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
            self.lookups.named(last).map(|v| v.iter().copied().filter(|(p, q)| !(*p == path && *q == class.qualified_name)).collect()).unwrap_or_default();
        match defs.as_slice() {
            [(p, q)] => Some((p.to_string(), q.to_string())),
            _ => None,
        }
    }

    /// `get_netrc_auth` with `from .utils import get_netrc_auth`; `utils.foo`
    /// with `import utils` or `require('./utils')`; a name defined once among
    /// the files this file imports.
    pub(super) fn via_imports(&mut self, path: &str, segs: &[&str]) -> Option<(String, String)> {
        let facts = self.lookups.file(path)?;
        let last = *segs.last()?;
        let first = segs[0];
        let mut candidates: Vec<(String, String)> = Vec::new();
        for imp in &facts.imports {
            let Some(file) = self.module_file(path, &imp.module) else {
                // `from . import utils` then `utils.foo()`: the module is a name.
                if imp.names.iter().any(|n| n == first) && segs.len() >= 2 {
                    let sub = format!("{}.{first}", imp.module);
                    if let Some(file) = self.module_file(path, &sub) {
                        if let Some(found) = self.top_level(&file, last) {
                            return Some(found);
                        }
                    }
                }
                continue;
            };
            // The module's definition named in full (Perl's `URI::Escape::escape_char`).
            if segs.len() >= 2 {
                let full = segs.join(".");
                if self.has(&file, &full) {
                    return Some((file, full));
                }
            }
            let named = imp.names.iter().any(|n| n == first || n == last);
            let module_named = import_stem(&imp.module) == first.to_lowercase();
            if named || (segs.len() >= 2 && module_named) {
                if let Some(found) = self.top_level(&file, last) {
                    return Some(found);
                }
                if segs.len() >= 2 && (module_named || imp.names.iter().any(|n| n == first)) {
                    // `from .models import Request` then `Request.prepare()`;
                    // Java's `import a.b.Request` then `Request.prepare()`.
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
                        if let Some(found) = self.top_level(&file, last) {
                            return Some(found);
                        }
                    }
                }
            }
            if let Some(found) = self.top_level(&file, last) {
                candidates.push(found);
            }
        }
        candidates.sort();
        candidates.dedup();
        match candidates.as_slice() {
            [one] => Some(one.clone()),
            _ => None,
        }
    }

    /// A definition a module exports under `name`. A Go import names a
    /// package, whose definitions are spread over its directory's files:
    /// the found file then stands in for the package.
    pub(super) fn top_level(&self, path: &str, name: &str) -> Option<(String, String)> {
        for file in super::modules::package_files(&self.lookups.tree, path) {
            if let Some(s) = self.lookups.exports(file).and_then(|names| names.get(name)) {
                return Some((file.to_string(), s.qualified_name.clone()));
            }
        }
        None
    }
}

/// Whether the definition `qualified` is a member of a type named `receiver`
/// (`IndexState.save`, `state::IndexState::save` of `IndexState`).
fn member_of(qualified: &str, receiver: Option<&str>) -> bool {
    let canonical = canonical_name(qualified);
    let parent = crate::analysis::name::parent(&canonical);
    receiver.is_some_and(|r| parent.is_some_and(|p| crate::analysis::name::own_part(p) == r))
}

/// One qualified name in files of one stem is a declaration and its
/// definition (`Price.h` and `Price.m`, `price.mli` and `price.ml`): the
/// first (the header) stands for both, as a C prototype does.
fn declared_and_defined(defs: &[(&str, &str)]) -> Option<(String, String)> {
    let stem = |p: &str| match p.rsplit_once('.') {
        Some((s, ext)) if !ext.contains('/') => s.len(),
        _ => p.len(),
    };
    let (p0, q0) = *defs.first()?;
    let same = defs.iter().all(|(p, q)| *q == q0 && p.get(..stem(p)) == p0.get(..stem(p0)));
    same.then(|| (p0.to_string(), q0.to_string()))
}

/// Terraform: a module is its directory, and `var.x`, `local.x` and
/// `module.x` name the one of its files that defines x.
fn in_terraform_module(path: &str, defs: &[(&str, &str)]) -> Option<(String, String)> {
    if Language::from_path(path) != Language::Hcl {
        return None;
    }
    let dir = super::modules::parent_dir(path);
    let mut here = defs.iter().filter(|(p, _)| super::modules::parent_dir(p) == dir);
    match (here.next(), here.next()) {
        (Some((p, q)), None) => Some((p.to_string(), q.to_string())),
        _ => None,
    }
}

/// The file an import names, in the repository `tree`.
pub(super) fn find_module(tree: &super::modules::Tree, from: &str, module: &str) -> Option<String> {
    if let Some(found) = super::modules::find(tree, from, module) {
        return found;
    }
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
            return candidates(base).into_iter().find(|c| tree.contains(c));
        }
        // Absolute: the module path may sit under any source root; prefer the
        // one closest to the importing file.
        let [file, package] = candidates(&[]);
        return super::modules::closest(tree.ending_with(&file).chain(tree.ending_with(&package)), from);
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
            if tree.contains(&c) {
                return Some(c);
            }
        }
    }
    None
}

/// The modules an import may name, as [`Resolver::via_imports`] looks them
/// up: the import's own, and for each name it brings in, that name as a
/// module below it (`from . import utils` → `.utils`).
pub(super) fn modules_named(imp: &crate::analysis::parse::Import) -> Vec<String> {
    let mut out = vec![imp.module.clone()];
    for n in &imp.names {
        out.push(format!("{}.{n}", imp.module));
        out.push(format!("{}.{n}", imp.module.trim_end_matches('.')));
        if imp.module.chars().all(|c| c == '.') {
            out.push(format!("{}{n}", imp.module));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether any module an import of `f` (in `path`) names is found in
/// another file in `after` than in `before` (paths appeared or vanished).
pub(super) fn imports_move(before: &super::modules::Tree, after: &super::modules::Tree, path: &str, f: &FileFacts) -> bool {
    f.imports.iter().flat_map(modules_named).any(|m| find_module(before, path, &m) != find_module(after, path, &m))
}

/// `a.b.c` → [`a.b.c`, `a.b`, `a`].
pub(super) fn ancestors(qualified: &str) -> Vec<String> {
    let qualified = canonical_name(qualified);
    let mut out = vec![qualified.to_string()];
    let mut cur: &str = &qualified;
    while let Some((head, _)) = cur.rsplit_once('.') {
        out.push(head.to_string());
        cur = head;
    }
    out
}

pub(super) fn common_prefix(a: &str, b: &str) -> usize {
    a.split('/').zip(b.split('/')).take_while(|(x, y)| x == y).count()
}
