//! `graph.log`: what each run changed in the queries' graph (the touched
//! files' nodes and out-edges), appended after `graph.bin` instead of
//! rewriting it (29 MB on a big repository, for a one-file commit). A
//! query applies the records to the graph it loads; `GraphStore::save`
//! folds the log into a new `graph.bin` when it outgrows a quarter of it.
//!
//! Crash safety: a record is its length, a checksum and its body, appended
//! and synced; a torn or damaged record (a crash mid-append) ends the log,
//! and the next append cuts it off first. Each record names the `graph.bin`
//! it extends by that file's random id, so a log left behind by a crash
//! between writing a new `graph.bin` and removing the log is never applied
//! to it.

use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{EdgeKind, GraphError, NodeData, NodeKey, Result};

pub(super) const GRAPH_LOG: &str = "graph.log";

/// One run's changes to the queries' graph.
#[derive(Serialize, Deserialize)]
pub(super) struct Delta {
    /// The id of the `graph.bin` this record extends.
    pub(super) base: u64,
    /// The generation of the graph after this record.
    pub(super) generation: String,
    /// Each touched path's part of the graph now; `None`: the file is gone.
    pub(super) files: Vec<(String, Option<FileView>)>,
}

/// A file's part of the graph: its nodes (the file's, then its symbols')
/// and every edge out of them (source and target by key).
#[derive(Serialize, Deserialize)]
pub(super) struct FileView {
    pub(super) nodes: Vec<NodeData>,
    pub(super) edges: Vec<(NodeKey, NodeKey, EdgeKind, String)>,
}

/// Length (u64 LE) and checksum (u64 LE) before each record's bytes.
const HEADER: usize = 16;

fn checksum(body: &[u8]) -> u64 {
    let hash = blake3::hash(body);
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(first)
}

/// The records that extend the `graph.bin` with id `base`, in order, and
/// the length of the log's intact part (where the next record goes).
pub(super) fn read(path: &Path, base: u64) -> Result<(Vec<Delta>, u64)> {
    let mut bytes = Vec::new();
    match std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)) {
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(GraphError::Read { path: path.to_path_buf(), source: e }),
    }
    let mut deltas = Vec::new();
    let mut at = 0usize;
    while let Some(header) = bytes.get(at..at + HEADER) {
        let (len, sum) = header.split_at(8);
        let len = u64::from_le_bytes(len.try_into().unwrap_or_default());
        let sum = u64::from_le_bytes(sum.try_into().unwrap_or_default());
        let Some(body) = usize::try_from(len).ok().and_then(|len| bytes.get(at + HEADER..at + HEADER + len)) else { break };
        if checksum(body) != sum {
            break;
        }
        let Ok((delta, _)) = bincode::serde::decode_from_slice::<Delta, _>(body, bincode::config::standard()) else { break };
        at += HEADER + body.len();
        if delta.base == base {
            deltas.push(delta);
        }
    }
    Ok((deltas, at as u64))
}

/// A record of `delta` as [`append`] writes it.
pub(super) fn record(path: &Path, delta: &Delta) -> Result<Vec<u8>> {
    let body = bincode::serde::encode_to_vec(delta, bincode::config::standard()).map_err(|e| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() })?;
    let mut record = Vec::with_capacity(HEADER + body.len());
    record.extend_from_slice(&(body.len() as u64).to_le_bytes());
    record.extend_from_slice(&checksum(&body).to_le_bytes());
    record.extend_from_slice(&body);
    Ok(record)
}

/// Appends a [`record`] where the intact log ends (`intact`), synced;
/// returns the log's new length.
pub(super) fn append(path: &Path, intact: u64, record: &[u8]) -> Result<u64> {
    let write_error = |e: std::io::Error| GraphError::Write { path: path.to_path_buf(), source: crate::stores::fs::at("cannot write", path)(e).into() };
    let mut f = std::fs::OpenOptions::new().create(true).truncate(false).read(true).write(true).open(path).map_err(write_error)?;
    f.set_len(intact).map_err(write_error)?;
    f.seek(SeekFrom::Start(intact)).map_err(write_error)?;
    f.write_all(record).map_err(write_error)?;
    f.sync_all().map_err(write_error)?;
    Ok(intact + record.len() as u64)
}

/// Removes the log (after a new `graph.bin` took it in).
pub(super) fn remove(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(GraphError::Write { path: path.to_path_buf(), source: crate::stores::fs::at("cannot remove", path)(e).into() }),
    }
}

/// A fresh id for a new `graph.bin`.
pub(super) fn new_base_id() -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let hash = blake3::hash(format!("{nanos} {}", std::process::id()).as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash.as_bytes()[..8]);
    u64::from_le_bytes(first)
}
