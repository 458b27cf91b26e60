//! `graph.redb`: the indexer's store of the graph, one record per file, so
//! that a run reads and writes what its change touches and not the
//! repository (a redb database: B-trees, ACID transactions, crash safe).
//!
//! Tables:
//! - `facts`: path → the file's [`FileFacts`], pattern instances included;
//! - `out`: path → the edges its references resolved to ([`OutEdges`]); the
//!   `contains` edges follow from the facts and are not stored;
//! - `pattern_files`: `group\0path` → that file's instances of the group (a
//!   group is `category\0key`), so a group's first files are a range scan;
//! - `pattern_groups`: group → its instance and file counts and its
//!   [`Pattern`] (what `patterns.json` lists) when it has enough instances;
//! - `defs` (a lookup table: see [`Lookup`]): definition name → `path\0qualified name`, sorted as
//!   the resolver's name lookup is;
//! - `refs` (lookup): the name a reference ends in → paths that make it;
//!   a reference to a member of the caller's own class (`self.x`, `this.x`)
//!   also under `self.x`;
//! - `import_segments` (lookup): each segment and stem of an import → paths
//!   (an import without a segment, `from . import x`, under `.`);
//! - `import_names` (lookup): each name an import brings in, lowercase →
//!   paths (`from . import utils` may name the module `utils.py`);
//! - `into` (lookup): a path → the other paths with a resolved edge into
//!   it or its symbols (what an update re-resolves when the file changes);
//! - `names` (lookup): a definition's name as questions look it up
//!   ([`lookup_name`](super::lookup_name): last segment, lowercase) →
//!   `path\0qualified name`;
//! - `meta`: the format version, the generation, every path (the module tree
//!   is built from them).
//!
//! Invariant: after every committed transaction the tables describe the
//! same set of files and the generation says which commit.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};

use super::overlay::Overlay;
use super::resolve::{import_segments, import_stem, ref_name, self_member};
use super::{EdgeKind, FileFacts, GraphError, NodeKey, Result, FORMAT_VERSION};
use crate::analysis::patterns::{Pattern, PatternInstance};

pub(super) const DB_FILE: &str = "graph.redb";
/// redb's page cache (its default, 1 GiB, is what a full build's writes
/// would fill; an incremental run reads a few pages).
const CACHE_BYTES: usize = 32 << 20;

const META: TableDefinition<&str, &[u8]> = TableDefinition::new("meta");
const FACTS: TableDefinition<&str, &[u8]> = TableDefinition::new("facts");
const OUT: TableDefinition<&str, &[u8]> = TableDefinition::new("out");
const PATTERN_FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("pattern_files");
const PATTERN_GROUPS: TableDefinition<&str, &[u8]> = TableDefinition::new("pattern_groups");
/// A lookup table: a multimap kept as the set of its `key\0value` entries,
/// a key's values a range scan. (redb's own multimap rewrites a key's
/// inline list of values on every insert: a full build's ~700k entries
/// took ~1.5 s of one core; sorted composite keys are appended.) Keys hold
/// no `\0`: names, segments and paths do not.
type Lookup = TableDefinition<'static, &'static str, ()>;
const DEFS: Lookup = TableDefinition::new("defs");
const REFS: Lookup = TableDefinition::new("refs");
const IMPORTS: Lookup = TableDefinition::new("import_segments");
const NAMES: Lookup = TableDefinition::new("names");
const IMPORT_NAMES: Lookup = TableDefinition::new("import_names");
const INTO: Lookup = TableDefinition::new("into");
/// Every lookup table: [`IndexKeys`]' five in its order, then `into`; a
/// table is named by its place here (the overlay keeps its changes by it).
pub(super) const LOOKUPS: [Lookup; 6] = [DEFS, REFS, IMPORTS, NAMES, IMPORT_NAMES, INTO];
const AT_DEFS: usize = 0;
const AT_REFS: usize = 1;
const AT_IMPORTS: usize = 2;
const AT_NAMES: usize = 3;
const AT_IMPORT_NAMES: usize = 4;
pub(super) const AT_INTO: usize = 5;

/// A lookup table's entry for `value` under `key`.
pub(super) fn entry(key: &str, value: &str) -> String {
    format!("{key}\0{value}")
}

/// A file's resolved references: (the source symbol's qualified name, or
/// `None` for the file itself; the target; the kind; the reference as written).
pub(super) type OutEdges = Vec<(Option<String>, NodeKey, EdgeKind, String)>;

/// One file's change as [`Db::write`] applies it.
pub(super) struct FileChange<'a> {
    pub(super) path: &'a str,
    /// What the store holds now (`None`: nothing).
    pub(super) old: Option<&'a FileFacts>,
    /// What it holds after (`None`: the file is gone).
    pub(super) new: Option<&'a FileFacts>,
}

#[derive(Clone)]
pub(super) struct Db {
    db: std::sync::Arc<Database>,
    path: PathBuf,
}

/// One read transaction: the reads made through it all see one commit
/// (a question's loads, while a run in another process commits).
pub(super) struct Snapshot<'d> {
    db: &'d Db,
    txn: redb::ReadTransaction,
    /// Files replaced in memory: reads see the store as if they were written.
    overlay: Option<std::sync::Arc<Overlay>>,
}

fn bincode_config() -> bincode::config::Configuration {
    bincode::config::standard()
}

/// A value as the store keeps it: bincode, LZ4-compressed (`path` names
/// the store, or the spill, in errors).
pub(super) fn encode_value<T: serde::Serialize>(path: &Path, value: &T) -> Result<Vec<u8>> {
    let bytes = bincode::serde::encode_to_vec(value, bincode_config()).map_err(|e| GraphError::Decode { path: path.to_path_buf(), message: e.to_string() })?;
    Ok(lz4_flex::compress_prepend_size(&bytes))
}

pub(super) fn decode_value<T: for<'de> serde::Deserialize<'de>>(path: &Path, bytes: &[u8]) -> Result<T> {
    let damaged = |message: String| GraphError::Decode { path: path.to_path_buf(), message };
    let bytes = lz4_flex::decompress_size_prepended(bytes).map_err(|e| damaged(e.to_string()))?;
    bincode::serde::decode_from_slice(&bytes, bincode_config()).map(|(v, _)| v).map_err(|e| damaged(e.to_string()))
}

impl Db {
    fn error(&self) -> impl Fn(redb::Error) -> GraphError + '_ {
        |e| GraphError::Store { path: self.path.clone(), message: e.to_string() }
    }

    /// Values are bincode, LZ4-compressed (the store is a third the size;
    /// page fragmentation grows with the values).
    fn decode<T: for<'de> serde::Deserialize<'de>>(&self, bytes: &[u8]) -> Result<T> {
        decode_value(&self.path, bytes)
    }

    fn encode<T: serde::Serialize>(&self, value: &T) -> Result<Vec<u8>> {
        encode_value(&self.path, value)
    }

    /// Opens the store in `dir` (the process's handle, shared with its
    /// queries); `Ok(None)` when there is none or it is of another format
    /// (the caller then builds in full).
    pub(super) fn open(dir: &Path) -> Result<Option<Db>> {
        let path = dir.join(DB_FILE);
        let store_error = |e: redb::DatabaseError| GraphError::Store { path: path.clone(), message: e.to_string() };
        let Some(db) = crate::stores::redb_handle::open(&path, CACHE_BYTES, false).map_err(store_error)? else { return Ok(None) };
        let db = Db { db, path };
        match db.snapshot()?.meta("version")? {
            Some(v) if v == FORMAT_VERSION.to_le_bytes() => Ok(Some(db)),
            _ => Ok(None),
        }
    }

    /// A new, empty store at `dir`'s path for it, written under a temporary
    /// name: [`Db::publish`] moves it in place.
    pub(super) fn create_fresh(dir: &Path) -> Result<Db> {
        let path = dir.join(format!("{DB_FILE}.new"));
        let _ = std::fs::remove_file(&path);
        let db = Database::builder().set_cache_size(CACHE_BYTES).create(&path).map_err(|e| GraphError::Store { path: path.clone(), message: e.to_string() })?;
        Ok(Db { db: std::sync::Arc::new(db), path })
    }

    /// Moves a store made by [`Db::create_fresh`] in place of the old one.
    pub(super) fn publish(self, dir: &Path) -> Result<()> {
        let target = dir.join(DB_FILE);
        let from = self.path.clone();
        drop(self.db);
        std::fs::rename(&from, &target)
            .map_err(|e| GraphError::Write { path: target.clone(), source: crate::stores::fs::at("cannot rename", &target)(e).into() })?;
        crate::stores::redb_handle::forget(&target);
        Ok(())
    }

    pub(super) fn snapshot(&self) -> Result<Snapshot<'_>> {
        self.snapshot_over(None)
    }

    /// A snapshot whose reads see `overlay`'s files in place of the store's.
    pub(super) fn snapshot_over(&self, overlay: Option<std::sync::Arc<Overlay>>) -> Result<Snapshot<'_>> {
        Ok(Snapshot { db: self, txn: self.db.begin_read().map_err(|e| self.error()(e.into()))?, overlay })
    }

    /// The project's conventions in `groups`: every group's pattern, in
    /// [`aggregate`](crate::analysis::patterns::aggregate)'s order.
    fn conventions(&self, groups: &impl ReadableTable<&'static str, &'static [u8]>) -> Result<Vec<Pattern>> {
        let mut out = Vec::new();
        for row in groups.iter().map_err(|e| self.error()(e.into()))? {
            let (_, v) = row.map_err(|e| self.error()(e.into()))?;
            let (_, _, pattern): GroupRecord = self.decode(v.value())?;
            out.extend(pattern);
        }
        crate::analysis::patterns::sort_patterns(&mut out);
        Ok(out)
    }

    /// Applies one run in one transaction: the changed files' facts and
    /// what the lookups index of them, the out-edges of every file whose
    /// references were resolved again (`None`: the file is gone), the paths
    /// and the generation. When the conventions changed, they go to
    /// `publish` before the commit (a crash between leaves them ahead of a
    /// store the journal's replay brings to the same point) and are returned.
    pub(super) fn write(
        &self,
        generation: &str,
        changes: &[FileChange],
        out: &BTreeMap<String, Option<OutEdges>>,
        paths: Option<&[String]>,
        publish: impl FnOnce(&[Pattern]) -> Result<()>,
    ) -> Result<Option<Vec<Pattern>>> {
        let e = self.error();
        let txn = self.db.begin_write().map_err(|x| e(x.into()))?;
        {
            let mut facts = txn.open_table(FACTS).map_err(|x| e(x.into()))?;
            // The lookup tables, in `IndexKeys::entries`' order.
            let mut lookups = Vec::with_capacity(5);
            for table in [DEFS, REFS, IMPORTS, NAMES, IMPORT_NAMES] {
                lookups.push(txn.open_table(table).map_err(|x| e(x.into()))?);
            }
            for c in changes {
                // Only the entries that differ (a big file's edit keeps most).
                let keys = |f: Option<&FileFacts>| -> BTreeSet<(usize, String)> {
                    f.map(|f| IndexKeys::of(c.path, f).entries().into_iter().collect()).unwrap_or_default()
                };
                let (before, after) = (keys(c.old), keys(c.new));
                for (t, k) in before.difference(&after) {
                    lookups[*t].remove(k.as_str()).map_err(|x| e(x.into()))?;
                }
                for (t, k) in after.difference(&before) {
                    lookups[*t].insert(k.as_str(), ()).map_err(|x| e(x.into()))?;
                }
                match c.new {
                    Some(new) => {
                        facts.insert(c.path, self.encode(new)?.as_slice()).map_err(|x| e(x.into()))?;
                    }
                    None => {
                        facts.remove(c.path).map_err(|x| e(x.into()))?;
                    }
                }
            }
            let mut out_table = txn.open_table(OUT).map_err(|x| e(x.into()))?;
            let mut into = txn.open_table(INTO).map_err(|x| e(x.into()))?;
            for (path, edges) in out {
                let old: Option<OutEdges> = match out_table.get(path.as_str()).map_err(|x| e(x.into()))? {
                    Some(v) => Some(self.decode(v.value())?),
                    None => None,
                };
                let before = old.map(|o| edge_targets(path, &o)).unwrap_or_default();
                let after = edges.as_ref().map(|o| edge_targets(path, o)).unwrap_or_default();
                for target in before.difference(&after) {
                    into.remove(entry(target, path).as_str()).map_err(|x| e(x.into()))?;
                }
                for target in after.difference(&before) {
                    into.insert(entry(target, path).as_str(), ()).map_err(|x| e(x.into()))?;
                }
                match edges {
                    Some(edges) => out_table.insert(path.as_str(), self.encode(edges)?.as_slice()).map(|_| ()),
                    None => out_table.remove(path.as_str()).map(|_| ()),
                }
                .map_err(|x| e(x.into()))?;
            }
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            meta.insert("version", FORMAT_VERSION.to_le_bytes().as_slice()).map_err(|x| e(x.into()))?;
            meta.insert("generation", generation.as_bytes()).map_err(|x| e(x.into()))?;
            if let Some(paths) = paths {
                meta.insert("paths", self.encode(&paths)?.as_slice()).map_err(|x| e(x.into()))?;
            }
        }
        let patterns = match self.update_groups(&txn, changes)? {
            true => {
                let patterns = self.conventions(&txn.open_table(PATTERN_GROUPS).map_err(|x| e(x.into()))?)?;
                publish(&patterns)?;
                Some(patterns)
            }
            false => None,
        };
        txn.commit().map_err(|x| e(x.into()))?;
        Ok(patterns)
    }

    /// Moves the changed files' pattern instances between groups and
    /// recomputes each group they were or are in: counts by difference,
    /// examples from the group's first files. Whether a group's pattern changed.
    fn update_groups(&self, txn: &redb::WriteTransaction, changes: &[FileChange]) -> Result<bool> {
        let e = self.error();
        let mut files = txn.open_table(PATTERN_FILES).map_err(|x| e(x.into()))?;
        let mut groups = txn.open_table(PATTERN_GROUPS).map_err(|x| e(x.into()))?;
        // group → (instances, files) added (negative: removed).
        let mut delta: BTreeMap<String, (i64, i64, &PatternInstance)> = BTreeMap::new();
        for c in changes {
            for (sign, f) in [(-1, c.old), (1, c.new)] {
                for (group, list) in by_group(f.map_or(&[][..], |f| &f.patterns)) {
                    let key = format!("{group}\0{}", c.path);
                    if sign < 0 {
                        files.remove(key.as_str()).map_err(|x| e(x.into()))?;
                    } else {
                        let owned: Vec<&PatternInstance> = list.clone();
                        files.insert(key.as_str(), self.encode(&owned)?.as_slice()).map_err(|x| e(x.into()))?;
                    }
                    let d = delta.entry(group).or_insert((0, 0, list[0]));
                    d.0 += sign * list.len() as i64;
                    d.1 += sign;
                }
            }
        }
        let mut changed = false;
        for (group, (instances, in_files, sample)) in delta {
            let before: Option<GroupRecord> = match groups.get(group.as_str()).map_err(|x| e(x.into()))? {
                Some(v) => Some(self.decode(v.value())?),
                None => None,
            };
            let (count, file_count) = before.as_ref().map_or((0, 0), |b| (b.0 as i64, b.1 as i64));
            let (count, file_count) = ((count + instances).max(0) as u64, (file_count + in_files).max(0) as u64);
            let pattern = if count as usize >= super::MIN_PATTERN_COUNT.max(1) {
                let first = self.first_files(&files, &group)?;
                Some(crate::analysis::patterns::group_pattern(&sample.key, sample.category, count as usize, file_count as usize, first.iter().collect()))
            } else {
                None
            };
            changed |= before.and_then(|b| b.2) != pattern;
            if count == 0 {
                groups.remove(group.as_str()).map_err(|x| e(x.into()))?;
            } else {
                groups.insert(group.as_str(), self.encode(&(count, file_count, pattern))?.as_slice()).map_err(|x| e(x.into()))?;
            }
        }
        Ok(changed)
    }

    /// The instances of a group's first files in path order (enough for its examples).
    fn first_files(&self, files: &impl ReadableTable<&'static str, &'static [u8]>, group: &str) -> Result<Vec<PatternInstance>> {
        let e = self.error();
        let prefix = format!("{group}\0");
        let mut out = Vec::new();
        for row in files.range::<&str>(prefix.as_str()..).map_err(|x| e(x.into()))?.take(crate::analysis::patterns::MAX_EXAMPLES) {
            let (k, v) = row.map_err(|x| e(x.into()))?;
            if !k.value().starts_with(&prefix) {
                break;
            }
            out.extend(self.decode::<Vec<PatternInstance>>(v.value())?);
        }
        Ok(out)
    }

    /// The first part of filling a fresh store with every file (a full
    /// run): the lookup tables and conventions, written on the calling
    /// thread while rayon's pool resolves the first batches. Keys are
    /// inserted in order (the B-trees grow at their ends). [`Db::write_out`]
    /// then takes each batch's facts and edges (encoded on every core) and
    /// [`Db::finish_full`] writes the rest and commits.
    /// `spill`: where the files' facts are, when `files` holds only their
    /// conventions; the `facts` table is then written here, from it.
    pub(super) fn begin_full(&self, files: &BTreeMap<String, FileFacts>, spill: Option<&super::spill::FactsSpill>) -> Result<FullWrite> {
        let e = self.error();
        let txn = self.db.begin_write().map_err(|x| e(x.into()))?;
        {
            let listed: Vec<(&String, &FileFacts)> = files.iter().collect();
            for (t, def) in [DEFS, REFS, IMPORTS, NAMES, IMPORT_NAMES].into_iter().enumerate() {
                let mut table = txn.open_table(def).map_err(|x| e(x.into()))?;
                let insert = |k: &str| table.insert(k, ()).map(drop).map_err(|x| e(x.into()));
                match spill {
                    Some(spill) => spilled_entries(t, &listed, spill, insert)?,
                    None if t == AT_DEFS || t == AT_NAMES => sorted_definitions(t, &listed, insert)?,
                    None => sorted_entries(&listed, |(_, f)| Ok(file_keys(t, f)), insert)?,
                }
            }
            let mut pattern_files = txn.open_table(PATTERN_FILES).map_err(|x| e(x.into()))?;
            let mut pattern_groups = txn.open_table(PATTERN_GROUPS).map_err(|x| e(x.into()))?;
            for (group, record, per_file) in all_groups(files) {
                for (path, list) in per_file {
                    pattern_files.insert(format!("{group}\0{path}").as_str(), self.encode(&list)?.as_slice()).map_err(|x| e(x.into()))?;
                }
                pattern_groups.insert(group.as_str(), self.encode(&record)?.as_slice()).map_err(|x| e(x.into()))?;
            }
            if let Some(spill) = spill {
                let mut facts = txn.open_table(FACTS).map_err(|x| e(x.into()))?;
                for path in files.keys() {
                    if let Some(record) = spill.record(path)? {
                        facts.insert(path.as_str(), record.as_slice()).map_err(|x| e(x.into()))?;
                    }
                }
            }
        }
        Ok(FullWrite { txn, into: Vec::new() })
    }

    /// A second write into a fresh store whose facts are committed: the
    /// out-edges, through [`Db::write_out`] and [`Db::finish_full`].
    pub(super) fn begin_out(&self) -> Result<FullWrite> {
        let txn = self.db.begin_write().map_err(|x| self.error()(x.into()))?;
        Ok(FullWrite { txn, into: Vec::new() })
    }

    /// A file's facts and resolved references (`out_edges`), encoded (on
    /// any thread) for [`Db::write_out`].
    pub(super) fn encode_out(&self, path: &str, facts: &FileFacts, out: &OutEdges) -> Result<EncodedOut> {
        Ok(EncodedOut { facts: Some(self.encode(facts)?), ..self.encode_edges(path, out)? })
    }

    /// A file's resolved references alone (its facts are in the store already).
    pub(super) fn encode_edges(&self, path: &str, out: &OutEdges) -> Result<EncodedOut> {
        Ok(EncodedOut { path: path.to_string(), facts: None, out: self.encode(out)?, targets: edge_targets(path, out) })
    }

    /// Writes a batch of files' facts and out-edges into a full write, in
    /// path order (after the previous batch's): the `facts` and `out` tables
    /// are written as the references resolve, the `into` entries kept for
    /// [`Db::finish_full`].
    pub(super) fn write_out(&self, write: &mut FullWrite, batch: Vec<EncodedOut>) -> Result<()> {
        let e = self.error();
        let mut facts = write.txn.open_table(FACTS).map_err(|x| e(x.into()))?;
        let mut out = write.txn.open_table(OUT).map_err(|x| e(x.into()))?;
        for file in batch {
            if let Some(record) = &file.facts {
                facts.insert(file.path.as_str(), record.as_slice()).map_err(|x| e(x.into()))?;
            }
            out.insert(file.path.as_str(), file.out.as_slice()).map_err(|x| e(x.into()))?;
            write.into.extend(file.targets.iter().map(|t| entry(t, &file.path)));
        }
        Ok(())
    }

    /// The end of a full write: the `into` table, then the meta and the commit.
    pub(super) fn finish_full(&self, write: FullWrite, generation: &str, files: &BTreeMap<String, FileFacts>) -> Result<()> {
        use rayon::prelude::*;
        let FullWrite { txn, mut into } = write;
        into.par_sort_unstable();
        let e = self.error();
        {
            // Made even when no file was written (a run with nothing to analyse).
            txn.open_table(FACTS).map_err(|x| e(x.into()))?;
            txn.open_table(OUT).map_err(|x| e(x.into()))?;
            let mut table = txn.open_table(INTO).map_err(|x| e(x.into()))?;
            for k in &into {
                table.insert(k.as_str(), ()).map_err(|x| e(x.into()))?;
            }
            let mut meta = txn.open_table(META).map_err(|x| e(x.into()))?;
            meta.insert("version", FORMAT_VERSION.to_le_bytes().as_slice()).map_err(|x| e(x.into()))?;
            meta.insert("generation", generation.as_bytes()).map_err(|x| e(x.into()))?;
            let paths: Vec<&String> = files.keys().collect();
            meta.insert("paths", self.encode(&paths)?.as_slice()).map_err(|x| e(x.into()))?;
        }
        txn.commit().map_err(|x| e(x.into()))
    }
}

/// A file's facts and out-edges encoded for a full write, with the other
/// files the edges point into.
pub(super) struct EncodedOut {
    path: String,
    /// `None`: the store has them.
    facts: Option<Vec<u8>>,
    out: Vec<u8>,
    targets: BTreeSet<String>,
}

/// A full write under way ([`Db::begin_full`]): its open transaction and
/// the `into` entries of the out-edges written so far.
pub(super) struct FullWrite {
    txn: redb::WriteTransaction,
    into: Vec<String>,
}

impl Snapshot<'_> {
    fn meta(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let table = match self.txn.open_table(META) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(None),
            Err(e) => return Err(self.db.error()(e.into())),
        };
        Ok(table.get(key).map_err(|e| self.db.error()(e.into()))?.map(|v| v.value().to_vec()))
    }

    /// Every path the store has facts for, sorted.
    pub(super) fn paths(&self) -> Result<Vec<String>> {
        if let Some(paths) = self.overlay.as_ref().and_then(|o| o.paths.clone()) {
            return Ok(paths);
        }
        match self.meta("paths")? {
            Some(b) => self.db.decode(&b),
            None => Ok(Vec::new()),
        }
    }

    /// The values of `table` under each of `paths` it has.
    fn per_path<'p, T: for<'de> serde::Deserialize<'de>>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        paths: impl IntoIterator<Item = &'p String>,
    ) -> Result<BTreeMap<String, T>> {
        let table = self.txn.open_table(table).map_err(|e| self.db.error()(e.into()))?;
        let mut out = BTreeMap::new();
        for p in paths {
            if let Some(v) = table.get(p.as_str()).map_err(|e| self.db.error()(e.into()))? {
                out.insert(p.clone(), self.db.decode(v.value())?);
            }
        }
        Ok(out)
    }

    /// The facts of those of `paths` the store has.
    pub(super) fn facts<'p>(&self, paths: impl IntoIterator<Item = &'p String>) -> Result<BTreeMap<String, FileFacts>> {
        self.overlaid(FACTS, paths, |o| &o.facts)
    }

    /// The stored out-edges of each of `paths` that has facts.
    pub(super) fn out_edges<'p>(&self, paths: impl IntoIterator<Item = &'p String>) -> Result<BTreeMap<String, OutEdges>> {
        self.overlaid(OUT, paths, |o| &o.outs)
    }

    /// [`per_path`](Self::per_path), the overlay's records (`replaced`) in place of the store's.
    fn overlaid<'p, T: Clone + for<'de> serde::Deserialize<'de>>(
        &self,
        table: TableDefinition<&str, &[u8]>,
        paths: impl IntoIterator<Item = &'p String>,
        replaced: impl Fn(&Overlay) -> &BTreeMap<String, Option<T>>,
    ) -> Result<BTreeMap<String, T>> {
        let Some(overlay) = self.overlay.as_deref() else { return self.per_path(table, paths) };
        let replaced = replaced(overlay);
        let (mine, stored): (Vec<&String>, Vec<&String>) = paths.into_iter().partition(|p| replaced.contains_key(*p));
        let mut out = self.per_path(table, stored)?;
        out.extend(mine.into_iter().filter_map(|p| Some((p.clone(), replaced.get(p)?.clone()?))));
        Ok(out)
    }

    /// name → (path, qualified name) of every definition of each of `names`.
    pub(super) fn definitions<'n>(&self, names: impl IntoIterator<Item = &'n String>) -> Result<BTreeMap<String, Vec<(String, String)>>> {
        names.into_iter().map(|name| Ok((name.clone(), self.definitions_in(AT_DEFS, name)?))).collect()
    }

    /// The values lookup table `t` (of [`LOOKUPS`], open as `table`) holds
    /// under `key`, in order, each given to `each`.
    fn values(&self, t: usize, table: &redb::ReadOnlyTable<&'static str, ()>, key: &str, mut each: impl FnMut(&str)) -> Result<()> {
        if let Some(overlay) = self.overlay.as_deref() {
            let mut stored = Vec::new();
            self.stored_values(table, key, |v| stored.push(v.to_string()))?;
            overlay.values(t, key, stored).iter().for_each(|v| each(v));
            return Ok(());
        }
        self.stored_values(table, key, each)
    }

    fn stored_values(&self, table: &redb::ReadOnlyTable<&'static str, ()>, key: &str, mut each: impl FnMut(&str)) -> Result<()> {
        let prefix = entry(key, "");
        for row in table.range::<&str>(prefix.as_str()..).map_err(|e| self.db.error()(e.into()))? {
            let (k, _) = row.map_err(|e| self.db.error()(e.into()))?;
            match k.value().strip_prefix(prefix.as_str()) {
                Some(value) => each(value),
                None => break,
            }
        }
        Ok(())
    }

    /// The (path, qualified name) values `table` holds under `key`.
    fn definitions_in(&self, t: usize, key: &str) -> Result<Vec<(String, String)>> {
        let table = self.txn.open_table(LOOKUPS[t]).map_err(|e| self.db.error()(e.into()))?;
        let mut out = Vec::new();
        self.values(t, &table, key, |v| {
            if let Some((p, q)) = v.split_once('\0') {
                out.push((p.to_string(), q.to_string()));
            }
        })?;
        Ok(out)
    }

    fn lookup<'k>(&self, t: usize, keys: impl IntoIterator<Item = &'k String>) -> Result<BTreeSet<String>> {
        let table = self.txn.open_table(LOOKUPS[t]).map_err(|e| self.db.error()(e.into()))?;
        let mut out = BTreeSet::new();
        for key in keys {
            self.values(t, &table, key, |v| {
                out.insert(v.to_string());
            })?;
        }
        Ok(out)
    }

    /// Paths with a reference whose name (see `ref_name`) is one of `names`.
    pub(super) fn referencing<'k>(&self, names: impl IntoIterator<Item = &'k String>) -> Result<BTreeSet<String>> {
        self.lookup(AT_REFS, names)
    }

    /// Paths with an import that has one of `segments` as a segment or stem.
    pub(super) fn importing<'k>(&self, segments: impl IntoIterator<Item = &'k String>) -> Result<BTreeSet<String>> {
        self.lookup(AT_IMPORTS, segments)
    }

    /// Paths with an import that brings in one of `names` (lowercase).
    pub(super) fn importing_names<'k>(&self, names: impl IntoIterator<Item = &'k String>) -> Result<BTreeSet<String>> {
        self.lookup(AT_IMPORT_NAMES, names)
    }

    /// Paths with a resolved edge into one of `paths` (or their symbols).
    pub(super) fn edges_into<'k>(&self, paths: impl IntoIterator<Item = &'k String>) -> Result<BTreeSet<String>> {
        self.lookup(AT_INTO, paths)
    }

    /// How many other files have a resolved edge into `path` (or its
    /// symbols), counted up to `cap` (the kernel's `slab.h`: ~9,000).
    pub(super) fn dependents(&self, path: &str, cap: usize) -> Result<usize> {
        let table = self.txn.open_table(LOOKUPS[AT_INTO]).map_err(|e| self.db.error()(e.into()))?;
        if self.overlay.is_some() {
            let mut n = 0;
            self.values(AT_INTO, &table, path, |v| n += usize::from(v != path))?;
            return Ok(n.min(cap));
        }
        let prefix = entry(path, "");
        let mut n = 0;
        for row in table.range::<&str>(prefix.as_str()..).map_err(|e| self.db.error()(e.into()))? {
            let (k, _) = row.map_err(|e| self.db.error()(e.into()))?;
            match k.value().strip_prefix(prefix.as_str()) {
                Some(v) => n += usize::from(v != path),
                None => break,
            }
            if n >= cap {
                break;
            }
        }
        Ok(n)
    }

    /// (path, qualified name) of every definition whose name, as
    /// [`lookup_name`](super::lookup_name) folds it, is `key`.
    pub(super) fn named(&self, key: &str) -> Result<Vec<(String, String)>> {
        self.definitions_in(AT_NAMES, key)
    }
}

/// Every table's entries and values of the store in `dir`, a line each
/// (tests compare two stores with it).
#[cfg(test)]
pub(super) fn all_entries(dir: &Path) -> Vec<String> {
    let db = Db::open(dir).expect("a store").expect("of this format");
    let txn = db.db.begin_read().expect("a read");
    let mut lines = Vec::new();
    for (t, table) in LOOKUPS.into_iter().enumerate() {
        for row in txn.open_table(table).expect("the table").iter().expect("its rows") {
            lines.push(format!("lookup {t} {:?}", row.expect("a row").0.value()));
        }
    }
    for table in [META, FACTS, OUT, PATTERN_FILES, PATTERN_GROUPS] {
        for row in txn.open_table(table).expect("the table").iter().expect("its rows") {
            let (k, v) = row.expect("a row");
            lines.push(format!("{} {:?} {:?}", redb::TableHandle::name(&table), k.value(), v.value()));
        }
    }
    lines
}

/// A pattern group's record: instances, files, and its pattern when it has enough instances.
type GroupRecord = (u64, u64, Option<Pattern>);

/// The pattern group of an instance: its category and key.
fn group_of(i: &PatternInstance) -> String {
    format!("{}\0{}", i.category.as_str(), i.key)
}

/// A file's instances by group, each list in the file's order.
fn by_group(instances: &[PatternInstance]) -> BTreeMap<String, Vec<&PatternInstance>> {
    let mut out: BTreeMap<String, Vec<&PatternInstance>> = BTreeMap::new();
    for i in instances {
        out.entry(group_of(i)).or_default().push(i);
    }
    out
}

/// Every group of every file (a full run): its record and its instances per file, in path order.
fn all_groups(files: &BTreeMap<String, FileFacts>) -> Vec<(String, GroupRecord, Vec<(&str, Vec<&PatternInstance>)>)> {
    let mut groups: BTreeMap<String, Vec<(&str, Vec<&PatternInstance>)>> = BTreeMap::new();
    for (path, f) in files {
        for (group, list) in by_group(&f.patterns) {
            groups.entry(group).or_default().push((path.as_str(), list));
        }
    }
    groups
        .into_iter()
        .map(|(group, per_file)| {
            let count: usize = per_file.iter().map(|(_, l)| l.len()).sum();
            let sample = per_file[0].1[0];
            let pattern = (count >= super::MIN_PATTERN_COUNT.max(1)).then(|| {
                let first: Vec<&PatternInstance> = per_file.iter().take(crate::analysis::patterns::MAX_EXAMPLES).flat_map(|(_, l)| l.iter().copied()).collect();
                crate::analysis::patterns::group_pattern(&sample.key, sample.category, count, per_file.len(), first)
            });
            (group, (count as u64, per_file.len() as u64, pattern), per_file)
        })
        .collect()
}

/// The `import_segments` key of imports with no segment (`from . import x`).
pub(super) const RELATIVE_IMPORT: &str = ".";

/// The other files a file's resolved edges point into.
pub(super) fn edge_targets(path: &str, edges: &OutEdges) -> BTreeSet<String> {
    edges
        .iter()
        .filter_map(|(_, target, _, _)| match target {
            NodeKey::File(p) | NodeKey::Symbol { path: p, .. } if p != path => Some(p.clone()),
            _ => None,
        })
        .collect()
}

/// One file's keys in lookup table `t` (as [`LOOKUPS`] numbers them), each
/// with the definition (its place in the file's symbols) whose qualified
/// name the entry holds after the path (defs and names; [`NO_SYMBOL`] for
/// the others), unsorted and possibly repeated. The entry is
/// `key\0path[\0qualified]`.
fn file_keys(t: usize, f: &FileFacts) -> Vec<(Cow<'_, str>, u32)> {
    let symbols = || f.symbols.iter().zip(0u32..);
    match t {
        AT_DEFS => symbols().map(|(s, i)| (Cow::Borrowed(s.name.as_str()), i)).collect(),
        AT_REFS => {
            let raws = f.symbols.iter().flat_map(|s| s.calls.iter().chain(&s.bases)).chain(&f.module_calls);
            raws.flat_map(|r| [Some(ref_name(r)), self_member(r).map(|m| Cow::Owned(format!("self.{m}")))]).flatten().map(|k| (k, NO_SYMBOL)).collect()
        }
        AT_IMPORTS => {
            let mut keys: Vec<(Cow<str>, u32)> = f
                .imports
                .iter()
                .flat_map(|i| std::iter::once(import_stem(&i.module)).chain(import_segments(&i.module)))
                .map(|k| (Cow::Owned(k), NO_SYMBOL))
                .collect();
            if f.imports.iter().any(|i| import_segments(&i.module).next().is_none()) {
                keys.push((Cow::Borrowed(RELATIVE_IMPORT), NO_SYMBOL));
            }
            keys
        }
        AT_NAMES => symbols().map(|(s, i)| (super::lookup_name_of(&s.qualified_name), i)).collect(),
        _ => f.imports.iter().flat_map(|i| i.names.iter().map(|n| (Cow::Owned(n.to_lowercase()), NO_SYMBOL))).collect(),
    }
}

/// [`sorted_entries`] for a table with an entry per definition, whose keys
/// mostly differ: one flat list sorted (a map with a list per key took
/// three times the memory on the kernel's 3.8 M definitions).
fn sorted_definitions(t: usize, files: &[(&String, &FileFacts)], mut each: impl FnMut(&str) -> Result<()>) -> Result<()> {
    let mut entries: Vec<(Cow<str>, u32, u32)> = Vec::with_capacity(files.iter().map(|(_, f)| f.symbols.len()).sum());
    for (i, (_, f)) in (0u32..).zip(files) {
        let mut keys = file_keys(t, f);
        keys.sort_unstable();
        keys.dedup();
        entries.extend(keys.into_iter().map(|(k, symbol)| (k, i, symbol)));
    }
    // The order of `sorted_entries`: by key, then file, then definition.
    entries.sort_unstable();
    for (k, i, symbol) in &entries {
        let (path, f) = files[*i as usize];
        each(&key_entry(k, path, f, *symbol))?;
    }
    Ok(())
}

/// Lookup table `t`'s entries of every file in `spill`, made whole as each
/// file is read back (a qualified name is in a definition's entry), then
/// sorted in runs ([`SortedRuns`]): memory holds a run and a batch of files,
/// not the table (the kernel's `defs`: 3.8 M entries, ~0.3 GB).
fn spilled_entries(t: usize, files: &[(&String, &FileFacts)], spill: &super::spill::FactsSpill, each: impl FnMut(&str) -> Result<()>) -> Result<()> {
    use rayon::prelude::*;
    let batches = spill.batches();
    let mut runs = super::sorted_runs::SortedRuns::new(spill.dir(), batches.sort_run_bytes);
    for batch in files.chunks(batches.files.max(1)) {
        let per_file: Vec<Vec<String>> = batch
            .par_iter()
            .map(|(path, _)| {
                let Some((f, _)) = spill.facts(path)? else { return Ok(Vec::new()) };
                Ok(file_keys(t, &f).into_iter().map(|(k, i)| key_entry(&k, path, &f, i)).collect())
            })
            .collect::<Result<_>>()?;
        for entry in per_file.into_iter().flatten() {
            runs.push(entry)?;
        }
    }
    runs.drain_sorted(each)
}

/// [`file_keys`]' mark of an entry that names no definition.
const NO_SYMBOL: u32 = u32::MAX;

fn key_entry(key: &str, path: &str, f: &FileFacts, symbol: u32) -> String {
    match f.symbols.get(symbol as usize) {
        Some(s) => format!("{key}\0{path}\0{}", s.qualified_name),
        None => entry(key, path),
    }
}

/// What the lookup tables hold for one file: each table's entries.
pub(super) struct IndexKeys {
    tables: [BTreeSet<String>; 5],
}

impl IndexKeys {
    /// (table, as [`LOOKUPS`] numbers them; entry as stored) of every entry.
    pub(super) fn entries(&self) -> Vec<(usize, String)> {
        self.tables.iter().enumerate().flat_map(|(t, set)| set.iter().map(move |k| (t, k.clone()))).collect()
    }

    pub(super) fn of(path: &str, f: &FileFacts) -> IndexKeys {
        IndexKeys { tables: std::array::from_fn(|t| file_keys(t, f).into_iter().map(|(k, i)| key_entry(&k, path, f, i)).collect()) }
    }
}

/// Lookup table `t`'s entries for every file (in path order) to `each`,
/// sorted but for the qualified names under one key and path: gathered as
/// key → (file, definition) so that they come out in order without being
/// held as strings (on the Linux kernel the five tables' strings took 2.3 GB
/// at once). `\0` sorts before any other byte, so (key, path) order is the
/// entries' order. An entry may come twice (a name defined twice).
/// `keys_of` gives a file's (key, definition) pairs; it runs on every core,
/// a slice of the files at a time.
fn sorted_entries<'f>(
    files: &[(&'f String, &'f FileFacts)],
    keys_of: impl Fn(&(&'f String, &'f FileFacts)) -> Result<Vec<(Cow<'f, str>, u32)>> + Sync,
    mut each: impl FnMut(&str) -> Result<()>,
) -> Result<()> {
    use rayon::prelude::*;
    const FILES_AT_ONCE: usize = 4096;
    let mut by_key: BTreeMap<Cow<str>, Vec<(u32, u32)>> = BTreeMap::new();
    for (n, slice) in files.chunks(FILES_AT_ONCE).enumerate() {
        let keyed: Vec<Vec<(Cow<str>, u32)>> = slice
            .par_iter()
            .map(|file| {
                let mut keys = keys_of(file)?;
                keys.sort_unstable();
                keys.dedup();
                Ok(keys)
            })
            .collect::<Result<_>>()?;
        for (i, keys) in (n * FILES_AT_ONCE..).zip(keyed) {
            for (k, symbol) in keys {
                by_key.entry(k).or_default().push((i as u32, symbol));
            }
        }
    }
    for (k, list) in &by_key {
        for (i, symbol) in list {
            let (path, f) = files[*i as usize];
            each(&key_entry(k, path, f, *symbol))?;
        }
    }
    Ok(())
}
