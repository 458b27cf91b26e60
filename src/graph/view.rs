//! The queries' graph: `graph.bin`, the whole resolved graph as of some
//! run, and `graph.log`, what each later run changed in it (the touched
//! files' nodes and out-edges, see [`record_log`]). Loading reads the
//! first and applies the second; the indexer folds the log into a new
//! `graph.bin` when it outgrows a quarter of it.

use std::collections::HashSet;
use std::io::Read;
use std::path::Path;

use petgraph::stable_graph::NodeIndex;
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use super::record_log::{self, Delta, FileView};
use super::resolve::symbol_key;
use super::*;

pub(super) const GRAPH_FILE: &str = "graph.bin";

/// The resolved graph as `graph.bin` holds it: nodes in a canonical order,
/// edges by node position, and the references as written, one per edge
/// (`None` when loaded for queries, which never read them).
pub(super) struct StoredGraph {
    /// Random, new with every `graph.bin`: what `graph.log` records extend.
    pub(super) id: u64,
    pub(super) nodes: Vec<NodeData>,
    pub(super) edges: Vec<(u32, u32, EdgeKind)>,
    pub(super) raws: Option<Vec<String>>,
    /// Nodes a log record removed, by position (empty: none).
    pub(super) gone: Vec<bool>,
}

/// What [`write_graph`] writes, borrowed from the graph in memory.
pub(super) struct GraphParts<'a> {
    pub(super) nodes: Vec<&'a NodeData>,
    pub(super) edges: Vec<(u32, u32, EdgeKind)>,
    pub(super) raws: Vec<&'a str>,
}

/// Bytes of one packed edge: source and target positions (u32 LE), kind.
const PACKED_EDGE: usize = 9;

fn damaged(path: &Path, message: &str) -> GraphError {
    GraphError::Decode { path: path.to_path_buf(), message: message.to_string() }
}

/// `graph.bin`: the format version (a bincode varint), then four sections,
/// each a little-endian u64 length and its bytes: bincode of (generation,
/// id); bincode of the nodes; the edges packed ([`PACKED_EDGE`] bytes each,
/// decoded without allocating per edge); bincode of the references as
/// written. A query stops before the last; a generation check reads the first.
pub(super) fn write_graph(path: &Path, generation: &str, id: u64, g: &GraphParts) -> Result<()> {
    let encode_error = |e: bincode::error::EncodeError| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() };
    let config = bincode::config::standard();
    let mut out = bincode::encode_to_vec(FORMAT_VERSION, config).map_err(encode_error)?;
    let head = bincode::serde::encode_to_vec((generation, id), config).map_err(encode_error)?;
    let nodes = bincode::serde::encode_to_vec(&g.nodes, config).map_err(encode_error)?;
    let mut edges = Vec::with_capacity(g.edges.len() * PACKED_EDGE);
    for (a, b, kind) in &g.edges {
        edges.extend_from_slice(&a.to_le_bytes());
        edges.extend_from_slice(&b.to_le_bytes());
        edges.push(*kind as u8);
    }
    let raws = bincode::serde::encode_to_vec(&g.raws, config).map_err(encode_error)?;
    for section in [head, nodes, edges, raws] {
        out.extend_from_slice(&(section.len() as u64).to_le_bytes());
        out.extend_from_slice(&section);
    }
    crate::stores::state::write_atomic(path, &out).map_err(|e| GraphError::Write { path: path.to_path_buf(), source: e })
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

/// The sections of a graph file, in order.
struct Sections<'b> {
    path: &'b Path,
    rest: &'b [u8],
}

impl<'b> Sections<'b> {
    fn new(path: &'b Path, bytes: &'b [u8]) -> Result<Sections<'b>> {
        let at = check_version(path, bytes)?;
        Ok(Sections { path, rest: &bytes[at..] })
    }

    fn next(&mut self) -> Result<&'b [u8]> {
        let (len, tail) = self.rest.split_first_chunk::<8>().ok_or_else(|| damaged(self.path, "truncated"))?;
        let len = usize::try_from(u64::from_le_bytes(*len)).map_err(|_| damaged(self.path, "bad section length"))?;
        if tail.len() < len {
            return Err(damaged(self.path, "truncated"));
        }
        let (body, next) = tail.split_at(len);
        self.rest = next;
        Ok(body)
    }
}

fn decode<T: for<'de> serde::Deserialize<'de>>(path: &Path, bytes: &[u8]) -> Result<T> {
    bincode::serde::decode_from_slice(bytes, bincode::config::standard()).map(|(v, _)| v).map_err(|e| damaged(path, &e.to_string()))
}

fn read_bytes(path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(b)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(GraphError::Read { path: path.to_path_buf(), source: e }),
    }
}

/// Reads `graph.bin` ([`write_graph`]); `Ok(None)` when there is none.
pub(super) fn read_graph(path: &Path, with_raws: bool) -> Result<Option<StoredGraph>> {
    let Some(bytes) = read_bytes(path)? else { return Ok(None) };
    let mut sections = Sections::new(path, &bytes)?;
    let (_generation, id): (String, u64) = decode(path, sections.next()?)?;
    let nodes: Vec<NodeData> = decode(path, sections.next()?)?;
    let packed = sections.next()?;
    let mut edges = Vec::with_capacity(packed.len() / PACKED_EDGE);
    for e in packed.chunks(PACKED_EDGE) {
        let [a0, a1, a2, a3, b0, b1, b2, b3, kind] = e else { return Err(damaged(path, "truncated edge")) };
        let kind = match kind {
            0 => EdgeKind::Contains,
            1 => EdgeKind::Imports,
            2 => EdgeKind::Calls,
            3 => EdgeKind::Inherits,
            _ => return Err(damaged(path, "unknown edge kind")),
        };
        edges.push((u32::from_le_bytes([*a0, *a1, *a2, *a3]), u32::from_le_bytes([*b0, *b1, *b2, *b3]), kind));
    }
    let raws = if with_raws { Some(decode(path, sections.next()?)?) } else { None };
    Ok(Some(StoredGraph { id, nodes, edges, raws, gone: Vec::new() }))
}

/// The generation and id of `graph.bin`, from its first bytes.
fn read_head(path: &Path) -> Result<Option<(String, u64)>> {
    let mut head = Vec::new();
    match std::fs::File::open(path).and_then(|f| f.take(64 * 1024).read_to_end(&mut head)) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(GraphError::Read { path: path.to_path_buf(), source: e }),
    }
    let mut sections = Sections::new(path, &head)?;
    Ok(Some(decode(path, sections.next()?)?))
}

/// Where the queries' graph stands.
pub(super) struct ViewState {
    /// The generation after the last intact record (or of `graph.bin`).
    pub(super) generation: String,
    /// The id of `graph.bin`, its length, and the length of the log's intact part.
    id: u64,
    base_len: u64,
    log_len: u64,
}

/// Where the queries' graph in `dir` stands; `None` when it has no `graph.bin`.
pub(super) fn state(dir: &Path) -> Result<Option<ViewState>> {
    let path = dir.join(GRAPH_FILE);
    let Some((generation, id)) = read_head(&path)? else { return Ok(None) };
    let (records, log_len) = record_log::read(&dir.join(record_log::GRAPH_LOG), id)?;
    let generation = records.into_iter().last().map_or(generation, |r| r.generation);
    let base_len = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    Ok(Some(ViewState { generation, id, base_len, log_len }))
}

/// Loads the queries' graph in `dir`: `graph.bin` with the records of
/// `graph.log` applied; `None` when there is no `graph.bin`.
pub(super) fn load(dir: &Path, with_raws: bool) -> Result<Option<Graph>> {
    Ok(load_stored(dir, with_raws, None)?.map(Graph::from_stored))
}

/// `graph.bin` with the log's records applied, and `extra` after them.
fn load_stored(dir: &Path, with_raws: bool, extra: Option<Vec<(String, Option<FileView>)>>) -> Result<Option<StoredGraph>> {
    let Some(stored) = read_graph(&dir.join(GRAPH_FILE), with_raws)? else { return Ok(None) };
    let (records, _) = record_log::read(&dir.join(record_log::GRAPH_LOG), stored.id)?;
    let files = records.into_iter().map(|r| r.files).chain(extra);
    Ok(Some(super::patch::apply(stored, files)))
}

/// Writes `graph` as a new `graph.bin` (a new id) and drops the log, which
/// it took in (a log left behind names the old id: it is never applied).
pub(super) fn write_whole(dir: &Path, generation: &str, graph: &Graph) -> Result<()> {
    write_graph(&dir.join(GRAPH_FILE), generation, record_log::new_base_id(), &graph.parts())?;
    record_log::remove(&dir.join(record_log::GRAPH_LOG))
}

/// Records one run's changes: appended to `graph.log`, or, once the log
/// would outgrow a quarter of `graph.bin`, folded with it into a new one.
pub(super) fn record(dir: &Path, at: &ViewState, generation: &str, files: Vec<(String, Option<FileView>)>) -> Result<()> {
    let log = dir.join(record_log::GRAPH_LOG);
    let delta = Delta { base: at.id, generation: generation.to_string(), files };
    let record = record_log::record(&log, &delta)?;
    if at.log_len + record.len() as u64 <= at.base_len / 4 {
        record_log::append(&log, at.log_len, &record)?;
        return Ok(());
    }
    let stored = load_stored(dir, true, Some(delta.files))?.ok_or(GraphError::Missing)?;
    write_whole(dir, generation, &Graph::from_stored(stored))
}

/// A file's part of `graph`, as a log record carries it.
pub(super) fn file_view(graph: &Graph, path: &str, facts: &FileFacts) -> FileView {
    let nodes: Vec<NodeIndex> = file_nodes(graph, path, facts);
    let mut edges: Vec<(NodeKey, NodeKey, EdgeKind, String)> = nodes
        .iter()
        .flat_map(|ix| graph.graph.edges_directed(*ix, Direction::Outgoing))
        .map(|e| (graph.graph[e.source()].key.clone(), graph.graph[e.target()].key.clone(), e.weight().kind, e.weight().raw.clone()))
        .collect();
    edges.sort();
    FileView { nodes: nodes.iter().map(|ix| graph.graph[*ix].clone()).collect(), edges }
}

/// A file's resolved references in `graph` (every out-edge but `contains`).
pub(super) fn out_edges(graph: &Graph, path: &str, facts: &FileFacts) -> super::db::OutEdges {
    let mut edges: super::db::OutEdges = Vec::new();
    for ix in file_nodes(graph, path, facts) {
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

/// The file's node, then its symbols' (the first definition of a name owns it).
fn file_nodes(graph: &Graph, path: &str, facts: &FileFacts) -> Vec<NodeIndex> {
    let mut seen = HashSet::new();
    let file = graph.node(&NodeKey::File(path.to_string()));
    let symbols = facts.symbols.iter().filter(|s| seen.insert(s.qualified_name.as_str())).filter_map(|s| graph.node(&symbol_key(path, &s.qualified_name)));
    file.into_iter().chain(symbols).collect()
}
