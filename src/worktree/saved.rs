//! The last layer, kept beside the index for the next process
//! (`<index>/worktree-layer/`). A `git rag query` is a process of its own:
//! analysing the same 20 edited files again for every query was ~80 ms of a
//! ~140 ms query on `large`. Kept: the layer's key, its files' analyses and
//! its keyword index (tantivy's files); and, once a question needed it, its
//! graph overlay (`graph-<hash>.bin`), which depends on the indexed commit
//! and the deleted paths too, and is named by them.
//!
//! A layer of the same key is opened instead of built; its statistics come
//! from the index beneath at query time, as a built one's do. A layer of
//! another key lends its analyses by path and blob id, so an edit of one
//! file of many chunks that file alone. A layer is written to a folder of
//! its own and moved in place, so a reader finds a whole layer or none;
//! one that cannot be read is built again.
//!
//! Invariant: the key names everything a layer's content depends on —
//! git-rag's version, the index's analysis configuration, each analysed
//! file's path and blob id — so a kept layer is the layer built anew.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use gix::ObjectId;

use crate::analysis::chunk::{ChunkOptions, FileChunks};
use crate::stores::keyword::KeywordIndex;

const DIR: &str = "worktree-layer";
const KEY: &str = "key";
const ANALYSES: &str = "analyses.bin";

/// The analysed files of a layer: path, blob id, analysis.
pub(super) type Analysed = Vec<(String, ObjectId, Arc<FileChunks>)>;

/// What a layer's content depends on: the analysis (first line) and its files (second).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Key {
    analysis: String,
    files: String,
}

impl Key {
    pub fn of<'a>(chunk: &ChunkOptions, files: impl Iterator<Item = (&'a str, &'a ObjectId)>) -> Key {
        let analysis = format!("{}-{}", env!("CARGO_PKG_VERSION"), crate::index::config_hash(chunk));
        let mut h = blake3::Hasher::new();
        for (path, id) in files {
            h.update(path.as_bytes());
            h.update(&[0]);
            h.update(id.as_bytes());
        }
        Key { analysis, files: h.finalize().to_hex().to_string() }
    }

    fn text(&self) -> String {
        format!("{}\n{}\n", self.analysis, self.files)
    }

    fn parse(text: &str) -> Option<Key> {
        let mut lines = text.lines();
        Some(Key { analysis: lines.next()?.to_string(), files: lines.next()?.to_string() })
    }
}

/// The kept layer of `key`, laid over `under` (`None`: none is kept, or it cannot be read).
pub(super) fn open(index_dir: &Path, key: &Key, under: &KeywordIndex, hidden: Arc<std::collections::BTreeSet<String>>) -> Option<(KeywordIndex, Analysed)> {
    let dir = index_dir.join(DIR);
    if read_key(&dir)? != *key {
        return None;
    }
    let analysed = read_analyses(&dir)?;
    let keyword = KeywordIndex::open_layer(under, hidden, &dir).ok()?;
    Some((keyword, analysed))
}

/// The kept layer's analyses by path and blob id, when they were made as
/// `key`'s are (the same version and configuration).
pub(super) fn analyses(index_dir: &Path, key: &Key) -> HashMap<(String, ObjectId), Arc<FileChunks>> {
    let dir = index_dir.join(DIR);
    match read_key(&dir) {
        Some(kept) if kept.analysis == key.analysis => read_analyses(&dir).unwrap_or_default().into_iter().map(|(p, id, c)| ((p, id), c)).collect(),
        _ => HashMap::new(),
    }
}

/// Keeps a layer built in memory for the next process, in place of the last.
pub(super) fn keep(index_dir: &Path, key: &Key, keyword: &KeywordIndex, analysed: &Analysed) -> Result<(), String> {
    let dir = index_dir.join(DIR);
    remove_leftovers(index_dir);
    let fresh = index_dir.join(format!("{DIR}.{}.new", std::process::id()));
    let _ = std::fs::remove_dir_all(&fresh);
    let at = |path: &PathBuf| {
        let path = path.clone();
        move |e: std::io::Error| format!("{}: {e}", path.display())
    };
    std::fs::create_dir_all(&fresh).map_err(at(&fresh))?;
    let written = (|| {
        keyword.persist(&fresh).map_err(|e| e.to_string())?;
        let list: Vec<(&str, String, &FileChunks)> = analysed.iter().map(|(p, id, c)| (p.as_str(), id.to_string(), c.as_ref())).collect();
        let bytes = bincode::serde::encode_to_vec(&list, bincode::config::standard()).map_err(|e| e.to_string())?;
        std::fs::write(fresh.join(ANALYSES), lz4_flex::compress_prepend_size(&bytes)).map_err(at(&fresh.join(ANALYSES)))?;
        // The key last: a folder without it is never opened.
        std::fs::write(fresh.join(KEY), key.text()).map_err(at(&fresh.join(KEY)))?;
        let old = index_dir.join(format!("{DIR}.{}.old", std::process::id()));
        match std::fs::rename(&dir, &old) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(at(&dir)(e)),
        }
        std::fs::rename(&fresh, &dir).map_err(at(&dir))?;
        let _ = std::fs::remove_dir_all(&old);
        Ok(())
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&fresh);
    }
    written
}

/// The file in the kept layer's folder holding its graph over the index at
/// `base` with `hidden` left out of it: named by all three (the key names
/// the files with content, not the deleted ones), so another layer or an
/// index that moved finds none.
fn graph_file(index_dir: &Path, key: &Key, base: &str, hidden: &BTreeSet<String>) -> PathBuf {
    let mut h = blake3::Hasher::new();
    h.update(key.text().as_bytes());
    h.update(base.as_bytes());
    for path in hidden {
        h.update(&[0]);
        h.update(path.as_bytes());
    }
    index_dir.join(DIR).join(format!("graph-{}.bin", &h.finalize().to_hex()[..32]))
}

/// The kept graph overlay of the layer of `key` over the index at `base`
/// (`None`: none is kept, or it is damaged: its checksum comes first).
pub(super) fn graph(index_dir: &Path, key: &Key, base: &str, hidden: &BTreeSet<String>) -> Option<crate::graph::Overlay> {
    let bytes = std::fs::read(graph_file(index_dir, key, base, hidden)).ok()?;
    let (sum, packed) = bytes.split_at_checked(32)?;
    if blake3::hash(packed).as_bytes() != sum {
        return None;
    }
    let plain = lz4_flex::decompress_size_prepended(packed).ok()?;
    bincode::serde::decode_from_slice(&plain, bincode::config::standard()).ok().map(|(o, _)| o)
}

/// Keeps a layer's graph overlay beside its kept files (written aside, then moved in place).
pub(super) fn keep_graph(index_dir: &Path, key: &Key, base: &str, hidden: &BTreeSet<String>, overlay: &crate::graph::Overlay) -> Result<(), String> {
    let path = graph_file(index_dir, key, base, hidden);
    let plain = bincode::serde::encode_to_vec(overlay, bincode::config::standard()).map_err(|e| e.to_string())?;
    let packed = lz4_flex::compress_prepend_size(&plain);
    let mut bytes = blake3::hash(&packed).as_bytes().to_vec();
    bytes.extend_from_slice(&packed);
    let fresh = path.with_extension(format!("{}.new", std::process::id()));
    let written = std::fs::write(&fresh, &bytes).and_then(|()| std::fs::rename(&fresh, &path));
    if written.is_err() {
        let _ = std::fs::remove_file(&fresh);
    }
    written.map_err(|e| format!("{}: {e}", path.display()))
}

/// Folders a process killed while keeping a layer left behind (another
/// process's that is writing now is younger than a minute).
fn remove_leftovers(index_dir: &Path) {
    let prefix = format!("{DIR}.");
    let stale = |e: &std::fs::DirEntry| e.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok()).is_some_and(|age| age.as_secs() > 60);
    for entry in std::fs::read_dir(index_dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(&prefix) && stale(&entry) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn read_key(dir: &Path) -> Option<Key> {
    Key::parse(&std::fs::read_to_string(dir.join(KEY)).ok()?)
}

fn read_analyses(dir: &Path) -> Option<Analysed> {
    let bytes = lz4_flex::decompress_size_prepended(&std::fs::read(dir.join(ANALYSES)).ok()?).ok()?;
    let (list, _): (Vec<(String, String, FileChunks)>, usize) = bincode::serde::decode_from_slice(&bytes, bincode::config::standard()).ok()?;
    list.into_iter().map(|(p, id, c)| Some((p, ObjectId::from_hex(id.as_bytes()).ok()?, Arc::new(c)))).collect()
}
