//! The history store: one tantivy document per commit of the indexed
//! commit's first-parent chain (`<index dir>/history/`), newest
//! [`Stamp::depth`] of them — who, when, the message, the files changed
//! (as named at the commit; renames kept so today's names can be told), and
//! the lines the commit added or removed. Written by `index::history`, read
//! by `git rag history` and by the ranking's history evidence.
//!
//! Invariant: the commit payload ([`Stamp`]) names the head the documents
//! were read from; documents and stamp are committed together, so a killed
//! update leaves the last whole history. Each document carries `seq`, its
//! place along the chain (higher is newer): only the order of `seq` is
//! meaningful, not its value (an appended history numbers on from its
//! newest, a rebuilt one from 1).

use std::ops::Bound;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::{AllQuery, BooleanQuery, BoostQuery, Occur, Query, RangeQuery, RegexQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, Value, FAST, INDEXED, STORED, STRING};
use tantivy::{DocAddress, Index, IndexReader, IndexWriter, Order, ReloadPolicy, Searcher, TantivyDocument, Term};

use crate::stores::health::{Depth, Store, StoreDamaged};
use crate::stores::keyword::{analyzer, code_text, TOKENIZER};

/// Bump when what a document holds changes: a store of another format is rebuilt.
pub const FORMAT: u32 = 1;

/// The folder of the history store in an index directory.
pub const HISTORY_DIR: &str = "history";

#[derive(Debug, thiserror::Error)]
pub enum HistoryStoreError {
    #[error("history store at {path}: {source}")]
    Tantivy { path: PathBuf, source: tantivy::TantivyError },
    #[error("history store at {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("no history store at {path}; run `git rag index` to build it")]
    Missing { path: PathBuf },
    #[error("{0}")]
    Damaged(#[from] StoreDamaged),
}

pub type Result<T> = std::result::Result<T, HistoryStoreError>;

/// What the store holds, as its last commit recorded it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    pub format: u32,
    /// The commit whose first-parent chain the documents are.
    pub head: String,
    /// The most commits kept (`rag.historyDepth`).
    pub depth: usize,
    pub commits: usize,
    /// The `seq` of the newest document (0 when empty).
    pub newest_seq: u64,
    /// Commit time (seconds) of the oldest and newest commit kept.
    pub oldest_time: Option<i64>,
    pub newest_time: Option<i64>,
    /// The chain ended before `depth` (the root, or a shallow clone's edge).
    pub reaches_root: bool,
}

/// A commit as the store keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CommitDoc {
    pub id: String,
    pub seq: u64,
    pub parents: u64,
    pub author: String,
    pub author_time: i64,
    pub commit_time: i64,
    pub subject: String,
    pub body: String,
    /// Every file it changed, as named at the commit, sorted.
    pub paths: Vec<String>,
    /// (old path, new path) of each file it renamed.
    pub renames: Vec<(String, String)>,
    /// Lines it removed (`-`) or added (`+`), as far as the update keeps them.
    pub lines: Vec<String>,
}

#[derive(Clone, Copy)]
struct Fields {
    id: Field,
    seq: Field,
    parents: Field,
    author: Field,
    author_time: Field,
    commit_time: Field,
    subject: Field,
    body: Field,
    path: Field,
    path_text: Field,
    rename: Field,
    renamed: Field,
    lines: Field,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let f = Fields {
        id: b.add_text_field("id", STRING | STORED),
        seq: b.add_u64_field("seq", INDEXED | FAST | STORED),
        parents: b.add_u64_field("parents", STORED),
        author: b.add_text_field("author", STORED),
        author_time: b.add_i64_field("author_time", STORED),
        commit_time: b.add_i64_field("commit_time", INDEXED | FAST | STORED),
        subject: b.add_text_field("subject", code_text(true)),
        body: b.add_text_field("body", code_text(true)),
        path: b.add_text_field("path", STRING | STORED),
        path_text: b.add_text_field("path_text", code_text(false)),
        rename: b.add_text_field("rename", STORED),
        renamed: b.add_text_field("renamed", STRING),
        lines: b.add_text_field("lines", code_text(true)),
    };
    (b.build(), f)
}

/// The text fields a question's words are looked for in, with how much a match counts.
#[derive(Debug, Clone, Copy)]
pub struct FieldWeights {
    pub subject: f32,
    pub body: f32,
    pub lines: f32,
    pub paths: f32,
}

/// A search of the store: words (as [`crate::stores::keyword::analyze`]
/// gives them) and filters. No words: the newest commits the filters keep.
#[derive(Debug, Clone, Default)]
pub struct Search {
    pub terms: Vec<String>,
    /// Each term's weight (same length as `terms`; missing ones weigh 1).
    pub term_weights: Vec<f32>,
    /// Files or folders (as named at each commit): a commit touching any is kept.
    pub paths: Vec<String>,
    /// Commit time bounds, seconds, inclusive.
    pub since: Option<i64>,
    pub until: Option<i64>,
    /// A term that must be among the changed lines' words.
    pub changed_term: Option<String>,
    pub limit: usize,
}

/// The history store, open.
pub struct HistoryStore {
    index: Index,
    fields: Fields,
    dir: PathBuf,
    reader: std::sync::OnceLock<IndexReader>,
}

impl HistoryStore {
    /// Opens the store in `dir`, creating an empty one if there is none.
    pub fn open_or_create(dir: &Path) -> Result<HistoryStore> {
        Self::open_impl(dir, true)
    }

    /// Opens the store to read; [`HistoryStoreError::Missing`] if there is none.
    pub fn open(dir: &Path) -> Result<HistoryStore> {
        Self::open_impl(dir, false)
    }

    fn open_impl(dir: &Path, create: bool) -> Result<HistoryStore> {
        let (schema, fields) = schema();
        let open = || -> Result<HistoryStore> {
            let exists = dir.join("meta.json").exists();
            if !exists && !create {
                return Err(HistoryStoreError::Missing { path: dir.to_path_buf() });
            }
            let tantivy_err = |source: tantivy::TantivyError| damaged_or(dir, source, create);
            if !exists {
                create_whole(dir, &schema).map_err(tantivy_err)?;
            }
            let directory = MmapDirectory::open(dir).map_err(|e| tantivy_err(e.into()))?;
            let index = Index::open(directory).map_err(tantivy_err)?;
            if index.schema() != schema {
                return Err(StoreDamaged::new(Store::History, dir, "written by another version of git-rag").into());
            }
            index.tokenizers().register(TOKENIZER, analyzer());
            let store = HistoryStore { index, fields, dir: dir.to_path_buf(), reader: std::sync::OnceLock::new() };
            if !create {
                store.searcher()?;
            }
            Ok(store)
        };
        crate::stores::panic_guard::guard(open, |panic| StoreDamaged::new(Store::History, dir, panic).into())
    }

    /// Checks the store in `dir` ([`crate::stores::health`]); `None` when
    /// sound or absent (an absent store is built by the next run).
    pub fn verify(dir: &Path, depth: Depth) -> Option<StoreDamaged> {
        if !dir.exists() {
            return None;
        }
        let check = || -> std::result::Result<(), String> {
            if !dir.join("meta.json").exists() {
                return Err("meta.json is missing".into());
            }
            let directory = MmapDirectory::open(dir).map_err(|e| e.to_string())?;
            let index = Index::open(directory).map_err(|e| e.to_string())?;
            if index.schema() != schema().0 {
                // Rebuilt by the next run like damage: it holds nothing this version reads.
                return Err("written by another version of git-rag".into());
            }
            for segment in index.searchable_segments().map_err(|e| e.to_string())? {
                tantivy::SegmentReader::open(&segment).map_err(|e| e.to_string())?;
            }
            if depth == Depth::Full {
                let failed = index.validate_checksum().map_err(|e| e.to_string())?;
                if let Some(file) = failed.iter().next() {
                    return Err(format!("{} fails its checksum", file.display()));
                }
            }
            Ok(())
        };
        crate::stores::panic_guard::guard(check, |panic| panic).err().map(|cause| StoreDamaged::new(Store::History, dir, cause))
    }

    /// Removes the store in `dir` (before a rebuild): moved aside first, so
    /// that a reader never sees it half removed.
    pub fn destroy(dir: &Path) -> Result<()> {
        let aside = beside(dir, "old");
        let io = |source: std::io::Error| HistoryStoreError::Io { path: dir.to_path_buf(), source };
        remove_if_there(&aside).map_err(io)?;
        match std::fs::rename(dir, &aside) {
            Ok(()) => remove_if_there(&aside).map_err(io),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(io(source)),
        }
    }

    fn searcher(&self) -> Result<Searcher> {
        if let Some(reader) = self.reader.get() {
            return Ok(reader.searcher());
        }
        let reader = self.index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|e| damaged_or(&self.dir, e, false))?;
        Ok(self.reader.get_or_init(|| reader).searcher())
    }

    /// What the last commit recorded; `None` for a store never committed
    /// (or one whose stamp this version cannot read: rebuilt).
    pub fn stamp(&self) -> Result<Option<Stamp>> {
        let metas = self.index.load_metas().map_err(|e| damaged_or(&self.dir, e, false))?;
        Ok(metas.payload.and_then(|p| serde_json::from_str::<Stamp>(&p).ok()).filter(|s| s.format == FORMAT))
    }

    /// A writer; nothing it does is seen until [`HistoryWriter::commit`].
    pub fn writer(&self, heap_bytes: usize) -> Result<HistoryWriter<'_>> {
        let writer = self.index.writer_with_num_threads(1, heap_bytes).map_err(|e| self.err(e))?;
        Ok(HistoryWriter { store: self, writer })
    }

    fn err(&self, source: tantivy::TantivyError) -> HistoryStoreError {
        HistoryStoreError::Tantivy { path: self.dir.clone(), source }
    }

    /// The commits that match `search`, best first: by the BM25 of its
    /// terms in the weighted fields, ties (and a search without terms) newest first.
    pub fn search(&self, search: &Search, weights: FieldWeights) -> Result<Vec<(f32, CommitDoc)>> {
        let read = || -> Result<Vec<(f32, CommitDoc)>> {
            let searcher = self.searcher()?;
            let f = self.fields;
            let mut must: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            if !search.paths.is_empty() {
                let mut any: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                for p in &search.paths {
                    let p = p.trim_end_matches('/');
                    let pattern = format!("{}(/.*)?", regex::escape(p));
                    let q = RegexQuery::from_pattern(&pattern, f.path).map_err(|e| self.err(e))?;
                    any.push((Occur::Should, Box::new(q)));
                }
                must.push((Occur::Must, Box::new(BooleanQuery::new(any))));
            }
            if search.since.is_some() || search.until.is_some() {
                let bound = |t: Option<i64>| t.map_or(Bound::Unbounded, |t| Bound::Included(Term::from_field_i64(f.commit_time, t)));
                must.push((Occur::Must, Box::new(RangeQuery::new(bound(search.since), bound(search.until)))));
            }
            if let Some(term) = &search.changed_term {
                must.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(f.lines, term), IndexRecordOption::Basic))));
            }
            let limit = search.limit.max(1);
            let mut scored: Vec<(f32, u64, DocAddress)> = Vec::new();
            if search.terms.is_empty() {
                let query: Box<dyn Query> = if must.is_empty() { Box::new(AllQuery) } else { Box::new(BooleanQuery::new(must)) };
                let top = TopDocs::with_limit(limit).order_by_fast_field::<u64>("seq", Order::Desc);
                for (seq, addr) in searcher.search(&query, &top).map_err(|e| damaged_or(&self.dir, e, false))? {
                    scored.push((0.0, seq.unwrap_or(0), addr));
                }
            } else {
                let mut should: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                for (i, term) in search.terms.iter().enumerate() {
                    let w = search.term_weights.get(i).copied().unwrap_or(1.0);
                    for (field, weight) in [(f.subject, weights.subject), (f.body, weights.body), (f.lines, weights.lines), (f.path_text, weights.paths)] {
                        let q = TermQuery::new(Term::from_field_text(field, term), IndexRecordOption::WithFreqs);
                        should.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), weight * w))));
                    }
                }
                let mut clauses = must;
                clauses.push((Occur::Must, Box::new(BooleanQuery::new(should))));
                let query = BooleanQuery::new(clauses);
                // Ties are broken newest first below: collect past the limit so a tie at its edge is whole.
                let top = TopDocs::with_limit(limit * 2 + 8).order_by_score();
                for (score, addr) in searcher.search(&query, &top).map_err(|e| damaged_or(&self.dir, e, false))? {
                    let seq = searcher.segment_reader(addr.segment_ord).fast_fields().u64("seq").ok().and_then(|c| c.first(addr.doc_id)).unwrap_or(0);
                    scored.push((score, seq, addr));
                }
                scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)));
                scored.truncate(limit);
            }
            scored.into_iter().map(|(score, _, addr)| Ok((score, self.read_doc(&searcher, addr)?))).collect()
        };
        crate::stores::panic_guard::guard(read, |panic| StoreDamaged::new(Store::History, &self.dir, panic).into())
    }

    /// Every rename the kept commits made: (seq, old path, new path), newest first.
    pub fn renames(&self) -> Result<Vec<(u64, String, String)>> {
        let read = || -> Result<Vec<(u64, String, String)>> {
            let searcher = self.searcher()?;
            let query = TermQuery::new(Term::from_field_text(self.fields.renamed, "1"), IndexRecordOption::Basic);
            let n = searcher.search(&query, &tantivy::collector::Count).map_err(|e| damaged_or(&self.dir, e, false))?;
            let mut out = Vec::new();
            if n == 0 {
                return Ok(out);
            }
            let top = TopDocs::with_limit(n).order_by_fast_field::<u64>("seq", Order::Desc);
            for (_, addr) in searcher.search(&query, &top).map_err(|e| damaged_or(&self.dir, e, false))? {
                let doc = self.read_doc(&searcher, addr)?;
                out.extend(doc.renames.into_iter().map(|(from, to)| (doc.seq, from, to)));
            }
            Ok(out)
        };
        crate::stores::panic_guard::guard(read, |panic| StoreDamaged::new(Store::History, &self.dir, panic).into())
    }

    /// The commit time of the document numbered `seq`, if one is.
    pub fn commit_time_of(&self, seq: u64) -> Result<Option<i64>> {
        let searcher = self.searcher()?;
        let query = TermQuery::new(Term::from_field_u64(self.fields.seq, seq), IndexRecordOption::Basic);
        let hits = searcher.search(&query, &TopDocs::with_limit(1).order_by_score()).map_err(|e| damaged_or(&self.dir, e, false))?;
        match hits.first() {
            Some((_, addr)) => Ok(Some(self.read_doc(&searcher, *addr)?.commit_time)),
            None => Ok(None),
        }
    }

    /// Every kept commit's id, newest first (for checks: incremental equals full).
    pub fn ids(&self) -> Result<Vec<String>> {
        let searcher = self.searcher()?;
        let n = searcher.num_docs() as usize;
        if n == 0 {
            return Ok(Vec::new());
        }
        let top = TopDocs::with_limit(n).order_by_fast_field::<u64>("seq", Order::Desc);
        let hits = searcher.search(&AllQuery, &top).map_err(|e| damaged_or(&self.dir, e, false))?;
        hits.into_iter().map(|(_, addr)| Ok(self.read_doc(&searcher, addr)?.id)).collect()
    }

    fn read_doc(&self, searcher: &Searcher, addr: DocAddress) -> Result<CommitDoc> {
        let doc: TantivyDocument = searcher.doc(addr).map_err(|e| damaged_or(&self.dir, e, false))?;
        let f = self.fields;
        let text = |field: Field| doc.get_first(field).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        let texts = |field: Field| doc.get_all(field).filter_map(|v| v.as_str().map(str::to_string)).collect::<Vec<_>>();
        let lines = text(f.lines);
        Ok(CommitDoc {
            id: text(f.id),
            seq: doc.get_first(f.seq).and_then(|v| v.as_u64()).unwrap_or(0),
            parents: doc.get_first(f.parents).and_then(|v| v.as_u64()).unwrap_or(0),
            author: text(f.author),
            author_time: doc.get_first(f.author_time).and_then(|v| v.as_i64()).unwrap_or(0),
            commit_time: doc.get_first(f.commit_time).and_then(|v| v.as_i64()).unwrap_or(0),
            subject: text(f.subject),
            body: text(f.body),
            paths: texts(f.path),
            renames: texts(f.rename).into_iter().filter_map(|r| r.split_once('\t').map(|(a, b)| (a.to_string(), b.to_string()))).collect(),
            lines: lines.lines().map(str::to_string).collect(),
        })
    }
}

/// Creates an empty store in a directory beside `dir` and renames it into
/// place, so that a reader (`status`, `verify` during an index run) never
/// sees `dir` without its `meta.json`. What a crash left at `dir` without
/// one is replaced.
fn create_whole(dir: &Path, schema: &Schema) -> tantivy::Result<()> {
    let fresh = beside(dir, "new");
    let io = tantivy::TantivyError::from;
    remove_if_there(&fresh).map_err(io)?;
    std::fs::create_dir_all(&fresh).map_err(io)?;
    Index::create(MmapDirectory::open(&fresh)?, schema.clone(), Default::default())?;
    remove_if_there(dir).map_err(io)?;
    std::fs::rename(&fresh, dir).map_err(io)
}

/// `<dir>.<suffix>`, beside `dir`.
fn beside(dir: &Path, suffix: &str) -> PathBuf {
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{suffix}"));
    dir.with_file_name(name)
}

fn remove_if_there(dir: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(dir) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// A tantivy error reading the store: damage where tantivy found its files
/// not as it wrote them; opened to write (`create`), tantivy's own error.
fn damaged_or(dir: &Path, source: tantivy::TantivyError, create: bool) -> HistoryStoreError {
    use tantivy::TantivyError as E;
    match source {
        E::OpenReadError(_) | E::DataCorruption(_) | E::OpenDirectoryError(_) | E::SchemaError(_) if !create => {
            StoreDamaged::new(Store::History, dir, source.to_string()).into()
        }
        source => HistoryStoreError::Tantivy { path: dir.to_path_buf(), source },
    }
}

/// Writes to the history store; nothing is visible until [`HistoryWriter::commit`].
pub struct HistoryWriter<'s> {
    store: &'s HistoryStore,
    writer: IndexWriter,
}

impl HistoryWriter<'_> {
    pub fn delete_all(&mut self) -> Result<()> {
        self.writer.delete_all_documents().map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Deletes the commits whose `seq` is at most `seq` (the oldest, past the depth).
    pub fn delete_up_to(&mut self, seq: u64) -> Result<()> {
        let q = RangeQuery::new(Bound::Unbounded, Bound::Included(Term::from_field_u64(self.store.fields.seq, seq)));
        self.writer.delete_query(Box::new(q)).map_err(|e| self.store.err(e))?;
        Ok(())
    }

    pub fn add(&self, c: &CommitDoc) -> Result<()> {
        let f = self.store.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.id, &c.id);
        doc.add_u64(f.seq, c.seq);
        doc.add_u64(f.parents, c.parents);
        doc.add_text(f.author, &c.author);
        doc.add_i64(f.author_time, c.author_time);
        doc.add_i64(f.commit_time, c.commit_time);
        doc.add_text(f.subject, &c.subject);
        doc.add_text(f.body, &c.body);
        for p in &c.paths {
            doc.add_text(f.path, p);
            doc.add_text(f.path_text, p);
        }
        for (from, to) in &c.renames {
            doc.add_text(f.rename, format!("{from}\t{to}"));
        }
        if !c.renames.is_empty() {
            doc.add_text(f.renamed, "1");
        }
        doc.add_text(f.lines, c.lines.join("\n"));
        self.writer.add_document(doc).map_err(|e| self.store.err(e))?;
        Ok(())
    }

    /// Makes the writes visible with `stamp` as the store's record, and waits for merges.
    pub fn commit(mut self, stamp: &Stamp) -> Result<()> {
        let payload = serde_json::to_string(stamp).map_err(|e| HistoryStoreError::Io { path: self.store.dir.clone(), source: std::io::Error::other(e) })?;
        let mut prepared = self.writer.prepare_commit().map_err(|e| self.store.err(e))?;
        prepared.set_payload(&payload);
        prepared.commit().map_err(|e| self.store.err(e))?;
        self.writer.wait_merging_threads().map_err(|e| self.store.err(e))?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_appears_whole_and_what_a_crashed_creation_left_is_replaced() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("history");
        // A folder without `meta.json`: what an older version left when killed mid-creation.
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("leftover"), b"x").unwrap();
        assert!(HistoryStore::verify(&dir, Depth::Open).is_some());
        HistoryStore::open_or_create(&dir).unwrap();
        assert!(HistoryStore::verify(&dir, Depth::Open).is_none());
        assert!(!dir.join("leftover").exists() && !tmp.path().join("history.new").exists());
        HistoryStore::destroy(&dir).unwrap();
        assert!(!dir.exists() && !tmp.path().join("history.old").exists());
        HistoryStore::destroy(&dir).unwrap();
    }
}
