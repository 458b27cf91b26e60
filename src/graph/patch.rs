//! Applying `graph.log` records to the stored graph before it becomes a
//! petgraph: nodes are found by binary search in `graph.bin`'s sorted nodes
//! (building a key index of every node would cost a graph question ~40 ms)
//! and the edges are filtered once, whatever the number of records.
//!
//! The result is what applying the records one after another to the graph
//! would give: a touched file's nodes and out-edges become the record's;
//! a node that goes loses every edge into it, for good (a node of that key
//! coming back later starts without them); stubs and externals left
//! without edges go.

use std::collections::HashSet;

use rustc_hash::FxHashMap;

use super::record_log::FileView;
use super::view::StoredGraph;
use super::{EdgeKind, NodeData, NodeKey};

struct Patch {
    nodes: Vec<NodeData>,
    /// How many of `nodes` are `graph.bin`'s, sorted by key.
    sorted: usize,
    alive: Vec<bool>,
    /// Nodes that went at some point: edges of `graph.bin` into them went too.
    died: Vec<bool>,
    /// Nodes whose out-edges of `graph.bin` a record replaced.
    replaced: Vec<bool>,
    /// Nodes the records added, by key.
    added: FxHashMap<NodeKey, u32>,
    /// Edges the records added (source, target, kind, reference as written).
    fresh: Vec<(u32, u32, EdgeKind, String)>,
}

impl Patch {
    fn find(&self, key: &NodeKey) -> Option<u32> {
        match self.nodes[..self.sorted].binary_search_by(|n| n.key.cmp(key)) {
            Ok(i) => Some(i as u32),
            Err(_) => self.added.get(key).copied(),
        }
    }

    fn push(&mut self, node: NodeData) -> u32 {
        let pos = self.nodes.len() as u32;
        self.added.insert(node.key.clone(), pos);
        self.nodes.push(node);
        self.alive.push(true);
        self.died.push(false);
        self.replaced.push(false);
        pos
    }

    /// The live nodes of `path`: its file node and its symbols'.
    fn file_nodes(&self, path: &str) -> Vec<u32> {
        let mut out = Vec::new();
        out.extend(self.find(&NodeKey::File(path.to_string())));
        let start = NodeKey::Symbol { path: path.to_string(), qualified_name: String::new() };
        let from = self.nodes[..self.sorted].partition_point(|n| n.key < start);
        let base = self.nodes[from..self.sorted].iter().take_while(|n| matches!(&n.key, NodeKey::Symbol { path: p, .. } if p == path));
        out.extend((from..).zip(base).map(|(i, _)| i as u32));
        out.extend(self.added.iter().filter(|(k, _)| matches!(k, NodeKey::Symbol { path: p, .. } if p == path)).map(|(_, pos)| *pos));
        out.retain(|pos| self.alive[*pos as usize]);
        out.sort_unstable();
        out.dedup();
        out
    }

    fn record(&mut self, files: Vec<(String, Option<FileView>)>) {
        let mut edges = Vec::new();
        for (path, view) in files {
            let old = self.file_nodes(&path);
            let keep: HashSet<&NodeKey> = view.iter().flat_map(|v| v.nodes.iter().map(|n| &n.key)).collect();
            let old_set: HashSet<u32> = old.iter().copied().collect();
            for &pos in &old {
                self.replaced[pos as usize] = true;
                if !keep.contains(&self.nodes[pos as usize].key) {
                    self.alive[pos as usize] = false;
                    self.died[pos as usize] = true;
                }
            }
            self.fresh.retain(|(a, ..)| !old_set.contains(a));
            let Some(view) = view else { continue };
            for n in view.nodes {
                match self.find(&n.key) {
                    Some(pos) => {
                        self.nodes[pos as usize] = n;
                        self.alive[pos as usize] = true;
                    }
                    None => {
                        self.push(n);
                    }
                }
            }
            edges.extend(view.edges);
        }
        let alive = &self.alive;
        self.fresh.retain(|(_, b, ..)| alive[*b as usize]);
        for (source, target, kind, raw) in edges {
            let Some(a) = self.find(&source).filter(|a| self.alive[*a as usize]) else { continue };
            let b = match self.find(&target) {
                Some(b) if self.alive[b as usize] => b,
                // A symbol of a file the graph lacks: not an edge a build makes.
                _ if matches!(target, NodeKey::Symbol { .. }) => continue,
                Some(b) => {
                    self.alive[b as usize] = true;
                    b
                }
                None => {
                    let (node_kind, lines) = match &target {
                        NodeKey::File(_) => ("file", 1),
                        NodeKey::External(_) => ("external", 1),
                        _ => ("stub", 0),
                    };
                    self.push(NodeData { key: target, kind: node_kind.into(), start_line: lines, end_line: lines })
                }
            };
            self.fresh.push((a, b, kind, raw));
        }
    }
}

/// The stored graph with `records` applied, in order.
pub(super) fn apply(stored: StoredGraph, records: impl Iterator<Item = Vec<(String, Option<FileView>)>>) -> StoredGraph {
    let mut records = records.peekable();
    if records.peek().is_none() {
        return stored;
    }
    let StoredGraph { id, nodes, edges, raws, .. } = stored;
    let n = nodes.len();
    let mut p = Patch { nodes, sorted: n, alive: vec![true; n], died: vec![false; n], replaced: vec![false; n], added: FxHashMap::default(), fresh: Vec::new() };
    for files in records {
        p.record(files);
    }
    // graph.bin's edges that stand: their source's out-edges were not
    // replaced and neither end ever went. Filtered in place (a copy of
    // 700k edges was a fifth of a graph question's load).
    let standing = |a: u32, b: u32| {
        let (a, b) = (a as usize, b as usize);
        !p.replaced[a] && !p.died[a] && !p.died[b] && p.alive[a] && p.alive[b]
    };
    let mut edges = edges;
    let mut raws = raws;
    match raws.as_mut() {
        Some(list) => {
            let mut keep = edges.iter().map(|(a, b, _)| standing(*a, *b));
            list.retain(|_| keep.next().unwrap_or(false));
            edges.retain(|(a, b, _)| standing(*a, *b));
            list.extend(p.fresh.iter().map(|f| f.3.clone()));
        }
        None => edges.retain(|(a, b, _)| standing(*a, *b)),
    }
    edges.extend(p.fresh.iter().map(|(a, b, kind, _)| (*a, *b, *kind)));
    // Stubs and externals without edges go, as do removed nodes: marked,
    // not moved (moving 560k nodes was a tenth of a graph question's load).
    let mut linked = vec![false; p.nodes.len()];
    for (a, b, _) in &edges {
        linked[*a as usize] = true;
        linked[*b as usize] = true;
    }
    let gone: Vec<bool> = p.nodes.iter().enumerate().map(|(i, node)| !p.alive[i] || (matches!(node.key, NodeKey::Stub(_) | NodeKey::External(_)) && !linked[i])).collect();
    StoredGraph { id, nodes: p.nodes, edges, raws, gone }
}
