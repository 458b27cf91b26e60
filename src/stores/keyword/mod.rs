//! The keyword index: tantivy, BM25 over chunk text with a code tokenizer,
//! plus a symbol table for exact, prefix and case-insensitive lookup.
//!
//! Two tantivy indexes live under `<index dir>/keyword/`: `chunks` (one
//! document per chunk) and `symbols` (one document per definition). Both
//! are keyed by an untokenized `path` term, so re-indexing a file is
//! "delete by path, add again", which is idempotent.
//!
//! Scores are computed with [`ExactStats`]: BM25 statistics over the live
//! documents only. tantivy's own statistics count deleted documents until a
//! merge drops them, so an index that was updated incrementally would rank
//! differently from a fresh one; with exact statistics and a content-derived
//! tie-break, both give the same answers.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tantivy::collector::TopDocs;
use tantivy::directory::{MmapDirectory, RamDirectory};
use tantivy::indexer::LogMergePolicy;
use tantivy::postings::Postings;
use tantivy::query::{Bm25StatisticsProvider, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, FAST, INDEXED, STORED, STRING};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{DocAddress, DocId, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, SegmentReader, TantivyDocument, Term, TERMINATED};

use crate::analysis::chunk::FileChunks;
use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::analysis::parse::SymbolKind;
use crate::stores::health::{Depth, Store, StoreDamaged};

mod norm_sums;
mod tokenize;
pub use tokenize::{analyze, analyzer, code_terms, exact_analyze, exact_terms, split_identifier, ExactTokenizer, StemmedCodeTokenizer};

/// Errors of the keyword store.
#[derive(Debug, thiserror::Error)]
pub enum KeywordError {
    #[error("keyword index at {path}: {source}{}", write_hint(source))]
    Tantivy { path: PathBuf, source: tantivy::TantivyError },
    #[error("keyword index at {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("keyword index at {path} was made by another version of git-rag (schema differs); run `git rag index --full`")]
    SchemaMismatch { path: PathBuf },
    #[error("no keyword index at {path}; run `git rag index` first")]
    Missing { path: PathBuf },
    #[error("{0}")]
    Damaged(#[from] crate::stores::health::StoreDamaged),
}

/// A tantivy error reading an index that was written whole: its files are
/// not what tantivy wrote (damaged), or the error is tantivy's own.
fn read_error(path: &Path, source: tantivy::TantivyError) -> KeywordError {
    use tantivy::TantivyError as E;
    match source {
        E::OpenReadError(_) | E::DataCorruption(_) | E::OpenDirectoryError(_) | E::IoError(_) | E::SchemaError(_) => {
            KeywordError::Damaged(StoreDamaged::new(Store::Keyword, path, root_cause(&source)))
        }
        source => KeywordError::Tantivy { path: path.to_path_buf(), source },
    }
}

/// The innermost of an error's causes (tantivy nests one message in three),
/// with the file it concerns.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    use tantivy::directory::error::OpenReadError;
    let open_read = e.downcast_ref::<OpenReadError>().or_else(|| match e.downcast_ref::<tantivy::TantivyError>() {
        Some(tantivy::TantivyError::OpenReadError(o)) => Some(o),
        _ => None,
    });
    if let Some(OpenReadError::IoError { io_error, filepath }) = open_read {
        return format!("{}: {io_error}", filepath.display());
    }
    let mut e = e;
    while let Some(inner) = e.source() {
        e = inner;
    }
    e.to_string()
}

pub type Result<T> = std::result::Result<T, KeywordError>;

/// tantivy's writer threads report a failed write only as "killed": say what
/// usually causes it. The previous commit of the index stays readable.
fn write_hint(e: &tantivy::TantivyError) -> &'static str {
    match e {
        tantivy::TantivyError::IoError(_) | tantivy::TantivyError::ErrorInThread(_) => {
            " (writing the index failed: is the disk full, or the index directory not writable? The previous index is intact and still answers queries)"
        }
        _ => "",
    }
}

pub(crate) const TOKENIZER: &str = "code";
const EXACT_TOKENIZER: &str = "exact";

/// Bump when the analyzer or the document layout changes: what is stored
/// differs even though the tantivy schema may not, so indexes are rebuilt.
/// 3: escapes (`\n`) are terms of their own in the exact field.
/// 4: a chunk's symbol, parent and content hash are stored, not indexed.
/// 5: a chunk is found by its numeric `key`, its `id` is stored only.
/// 6: a symbol's key (its tie-break) says whether it has a body.
pub const FORMAT_VERSION: u32 = 6;

/// Fields of the chunk index.
#[derive(Clone, Copy)]
pub struct ChunkFields {
    pub id: Field,
    pub key: Field,
    pub path: Field,
    pub path_text: Field,
    pub language: Field,
    pub kind: Field,
    pub symbol: Field,
    /// Lowercased symbol names (short and qualified), untokenized.
    pub symbol_names: Field,
    /// Symbol names through the code tokenizer.
    pub symbol_text: Field,
    pub parent: Field,
    pub start_line: Field,
    pub end_line: Field,
    pub content: Field,
    /// The content in its exact form ([`exact_terms`]), with positions,
    /// for phrase matching of literals.
    pub exact: Field,
    pub content_hash: Field,
}

/// Fields of the symbol index.
#[derive(Clone, Copy)]
pub struct SymbolFields {
    pub key: Field,
    pub path: Field,
    pub name: Field,
    pub qualified: Field,
    pub name_lc: Field,
    pub qualified_lc: Field,
    pub name_text: Field,
    pub kind: Field,
    pub language: Field,
    pub parent: Field,
    pub signature: Field,
    pub doc: Field,
    pub start_line: Field,
    pub end_line: Field,
    pub start_byte: Field,
    pub end_byte: Field,
    pub chunk_id: Field,
    pub calls: Field,
    pub bases: Field,
}

/// A text field through the code analyzer (registered as [`TOKENIZER`]),
/// with term frequencies; the history store's text fields are these too.
pub(crate) fn code_text(stored: bool) -> TextOptions {
    let indexing = TextFieldIndexing::default().set_tokenizer(TOKENIZER).set_index_option(IndexRecordOption::WithFreqs);
    let opts = TextOptions::default().set_indexing_options(indexing);
    if stored {
        opts.set_stored()
    } else {
        opts
    }
}

fn chunk_schema() -> (Schema, ChunkFields) {
    let mut b = Schema::builder();
    let f = ChunkFields {
        // Looked up through `key`: a term per random id made a large FST.
        id: b.add_text_field("id", STORED),
        key: b.add_u64_field("key", FAST | INDEXED),
        path: b.add_text_field("path", STRING | STORED | FAST),
        path_text: b.add_text_field("path_text", code_text(false)),
        language: b.add_text_field("language", STRING | STORED),
        kind: b.add_text_field("kind", STRING | STORED),
        // Read back from the stored document only: no terms to build.
        symbol: b.add_text_field("symbol", STORED),
        symbol_names: b.add_text_field("symbol_names", STRING),
        symbol_text: b.add_text_field("symbol_text", code_text(false)),
        parent: b.add_text_field("parent", STORED),
        start_line: b.add_u64_field("start_line", STORED),
        end_line: b.add_u64_field("end_line", STORED),
        content: b.add_text_field("content", code_text(true)),
        exact: b.add_text_field(
            "exact",
            TextOptions::default()
                .set_indexing_options(TextFieldIndexing::default().set_tokenizer(EXACT_TOKENIZER).set_index_option(IndexRecordOption::WithFreqsAndPositions)),
        ),
        content_hash: b.add_text_field("content_hash", STORED),
    };
    (b.build(), f)
}

fn symbol_schema() -> (Schema, SymbolFields) {
    let mut b = Schema::builder();
    let f = SymbolFields {
        key: b.add_u64_field("key", FAST),
        path: b.add_text_field("path", STRING | STORED | FAST),
        name: b.add_text_field("name", STORED),
        qualified: b.add_text_field("qualified", STRING | STORED),
        name_lc: b.add_text_field("name_lc", STRING),
        qualified_lc: b.add_text_field("qualified_lc", STRING),
        name_text: b.add_text_field("name_text", code_text(false)),
        kind: b.add_text_field("kind", STRING | STORED),
        language: b.add_text_field("language", STRING | STORED),
        parent: b.add_text_field("parent", STORED),
        signature: b.add_text_field("signature", STORED),
        doc: b.add_text_field("doc", STORED),
        start_line: b.add_u64_field("start_line", STORED),
        end_line: b.add_u64_field("end_line", STORED),
        start_byte: b.add_u64_field("start_byte", STORED),
        end_byte: b.add_u64_field("end_byte", STORED),
        chunk_id: b.add_text_field("chunk_id", STORED),
        calls: b.add_text_field("calls", STORED),
        bases: b.add_text_field("bases", STORED),
    };
    (b.build(), f)
}

/// What the live chunks of some files hold of some terms
/// ([`KeywordIndex::file_terms`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileTerms {
    /// For each file, each term's occurrences in its chunks.
    pub counts: Vec<Vec<u32>>,
    /// For each file, the tokens its chunks hold (their field norms summed).
    pub lengths: Vec<u32>,
    /// For each term, how rare it is among all chunks (BM25's inverse
    /// document frequency).
    pub idf: Vec<f32>,
}

/// The keyword store: both tantivy indexes.
pub struct KeywordIndex {
    pub chunks: Index,
    pub symbols: Index,
    pub cf: ChunkFields,
    pub sf: SymbolFields,
    root: PathBuf,
    /// Readers, opened once: opening one reads every segment's metadata,
    /// which costs more than a query on a large index.
    readers: std::sync::OnceLock<(IndexReader, IndexReader)>,
    /// For the work tree laid over the indexed commit: what this index's
    /// BM25 statistics count besides its own documents ([`Scope`]).
    scope: Option<Scope>,
    /// A layer built in memory: its files (chunks, symbols), to keep ([`KeywordIndex::persist`]).
    in_ram: Option<(RamDirectory, RamDirectory)>,
}

/// The statistics of one side of the work tree laid over the indexed
/// commit: this index less the documents of `hidden` paths, plus the
/// `other` index less its `other_hidden` ones — the documents a fresh index
/// of the work tree would hold, so a term scores as it would there.
#[derive(Clone)]
struct Scope {
    hidden: Arc<BTreeSet<String>>,
    other: (IndexReader, IndexReader),
    other_hidden: Arc<BTreeSet<String>>,
}

impl KeywordIndex {
    /// Opens the index under `root`, creating it if absent.
    pub fn open_or_create(root: &Path) -> Result<KeywordIndex> {
        Self::open_impl(root, true)
    }

    /// Opens an existing index (for queries).
    pub fn open(root: &Path) -> Result<KeywordIndex> {
        Self::open_impl(root, false)
    }

    /// For queries (`create` false) the readers are opened here too, which
    /// opens every segment's files: a damaged store is found at open
    /// ([`Depth::Open`]), as [`KeywordError::Damaged`].
    fn open_impl(root: &Path, create: bool) -> Result<KeywordIndex> {
        let (cs, cf) = chunk_schema();
        let (ss, sf) = symbol_schema();
        let open = || -> Result<KeywordIndex> {
            // Opened to read, an index tantivy cannot open is damaged.
            let read = |e| match e {
                KeywordError::Tantivy { path, source } if !create => read_error(&path, source),
                e => e,
            };
            let chunks = open_one(&root.join("chunks"), cs, create).map_err(read)?;
            let symbols = open_one(&root.join("symbols"), ss, create).map_err(read)?;
            norm_sums::load(root);
            let index = KeywordIndex { chunks, symbols, cf, sf, root: root.to_path_buf(), readers: std::sync::OnceLock::new(), scope: None, in_ram: None };
            if !create {
                index.readers()?;
            }
            Ok(index)
        };
        crate::stores::panic_guard::guard(open, |panic| StoreDamaged::new(Store::Keyword, root, panic).into())
    }

    /// Checks the keyword store under `root` ([`crate::stores::health`]):
    /// opening each index reads its meta files and opens every segment's
    /// files (tantivy checks their footers); at [`Depth::Full`] every file
    /// is read against its checksum too. `None` when sound or made by
    /// another schema (a full run follows anyway).
    pub fn verify(root: &Path, depth: Depth) -> Option<StoreDamaged> {
        for (name, schema) in [("chunks", chunk_schema().0), ("symbols", symbol_schema().0)] {
            let dir = root.join(name);
            let check = || -> std::result::Result<(), String> {
                let index = match open_one(&dir, schema, false) {
                    Ok(index) => index,
                    Err(KeywordError::SchemaMismatch { .. }) => return Ok(()),
                    Err(KeywordError::Missing { .. }) => return Err("meta.json is missing".into()),
                    Err(KeywordError::Tantivy { source, .. }) => return Err(root_cause(&source)),
                    Err(e) => return Err(e.to_string()),
                };
                for segment in index.searchable_segments().map_err(|e| root_cause(&e))? {
                    tantivy::SegmentReader::open(&segment).map_err(|e| root_cause(&e))?;
                }
                if depth == Depth::Full {
                    let failed = index.validate_checksum().map_err(|e| root_cause(&e))?;
                    if let Some(file) = failed.iter().next() {
                        return Err(format!("{} fails its checksum", file.display()));
                    }
                }
                Ok(())
            };
            if let Err(cause) = crate::stores::panic_guard::guard(check, |panic| panic) {
                return Some(StoreDamaged::new(Store::Keyword, &dir, cause));
            }
        }
        None
    }

    /// An index in memory of `files`, laid over `under` whose `hidden`
    /// paths it replaces: its BM25 statistics count its own documents and
    /// those of `under` but the hidden ones. Search `under` through
    /// [`KeywordIndex::beneath`] for the same statistics on that side.
    /// Written as one segment, without writer threads: a query builds it.
    pub fn layer_of<'f>(
        under: &KeywordIndex,
        hidden: Arc<BTreeSet<String>>,
        files: impl IntoIterator<Item = (&'f str, &'f FileChunks)>,
    ) -> Result<KeywordIndex> {
        const LAYER_HEAP: usize = 15_000_000;
        let root = PathBuf::from("(work tree, in memory)");
        let tantivy_err = |source| KeywordError::Tantivy { path: root.clone(), source };
        let (cs, cf) = chunk_schema();
        let (ss, sf) = symbol_schema();
        let tokenizers = tantivy::tokenizer::TokenizerManager::default();
        tokenizers.register(TOKENIZER, analyzer());
        tokenizers.register(EXACT_TOKENIZER, TextAnalyzer::builder(ExactTokenizer).build());
        let dirs = (RamDirectory::create(), RamDirectory::create());
        let writer = |schema: Schema, dir: &RamDirectory| {
            Index::builder().schema(schema).tokenizers(tokenizers.clone()).single_segment_index_writer::<TantivyDocument>(dir.clone(), LAYER_HEAP)
        };
        let (mut chunks, mut symbols) = (writer(cs, &dirs.0).map_err(tantivy_err)?, writer(ss, &dirs.1).map_err(tantivy_err)?);
        let mut layer = KeywordIndex {
            chunks: Index::create_in_ram(chunk_schema().0),
            symbols: Index::create_in_ram(symbol_schema().0),
            cf,
            sf,
            root: root.clone(),
            readers: std::sync::OnceLock::new(),
            scope: Some(Scope { hidden: Arc::default(), other: under.readers()?, other_hidden: hidden }),
            in_ram: Some(dirs),
        };
        for (path, file) in files {
            let (c, s) = layer.documents(path, file);
            for doc in c {
                chunks.add_document(doc).map_err(tantivy_err)?;
            }
            for doc in s {
                symbols.add_document(doc).map_err(tantivy_err)?;
            }
        }
        layer.chunks = chunks.finalize().map_err(tantivy_err)?;
        layer.symbols = symbols.finalize().map_err(tantivy_err)?;
        Ok(layer)
    }

    /// Writes a layer built in memory ([`KeywordIndex::layer_of`]) to `dir`
    /// (`chunks/`, `symbols/`), for [`KeywordIndex::open_layer`].
    pub fn persist(&self, dir: &Path) -> Result<()> {
        let Some((chunks, symbols)) = &self.in_ram else { return Err(KeywordError::Missing { path: dir.to_path_buf() }) };
        for (ram, name) in [(chunks, "chunks"), (symbols, "symbols")] {
            let path = dir.join(name);
            std::fs::create_dir_all(&path).map_err(|source| KeywordError::Io { path: path.clone(), source })?;
            let target = MmapDirectory::open(&path).map_err(|e| KeywordError::Tantivy { path: path.clone(), source: e.into() })?;
            ram.persist(&target).map_err(|source| KeywordError::Tantivy { path: path.clone(), source })?;
        }
        Ok(())
    }

    /// A layer [`persist`](KeywordIndex::persist)ed in `dir`, laid over
    /// `under` as [`KeywordIndex::layer_of`] lays it.
    /// Every file's checksum is checked first (a layer is small; a damaged
    /// one is an error here, not at search time).
    pub fn open_layer(under: &KeywordIndex, hidden: Arc<BTreeSet<String>>, dir: &Path) -> Result<KeywordIndex> {
        let mut layer = KeywordIndex::open(dir)?;
        for index in [&layer.chunks, &layer.symbols] {
            let damaged = index.validate_checksum().map_err(|source| KeywordError::Tantivy { path: dir.to_path_buf(), source })?;
            if let Some(file) = damaged.iter().next() {
                let source =
                    tantivy::TantivyError::DataCorruption(tantivy::error::DataCorruption::comment_only(format!("{} fails its checksum", file.display())));
                return Err(KeywordError::Tantivy { path: dir.to_path_buf(), source });
            }
        }
        layer.readers()?;
        layer.scope = Some(Scope { hidden: Arc::default(), other: under.readers()?, other_hidden: hidden });
        Ok(layer)
    }

    /// This index as seen beneath `layer` (see [`KeywordIndex::layer_of`]):
    /// the same documents, scored with the statistics of both less this
    /// one's `hidden` paths. The caller leaves those paths out of the results.
    pub fn beneath(&self, layer: &KeywordIndex, hidden: Arc<BTreeSet<String>>) -> Result<KeywordIndex> {
        let readers = std::sync::OnceLock::new();
        let _ = readers.set(self.readers()?);
        Ok(KeywordIndex {
            chunks: self.chunks.clone(),
            symbols: self.symbols.clone(),
            cf: self.cf,
            sf: self.sf,
            root: self.root.clone(),
            readers,
            scope: Some(Scope { hidden, other: layer.readers()?, other_hidden: Arc::default() }),
            in_ram: None,
        })
    }

    /// For one side of the work tree laid over the index: the chunks of the
    /// other side and the paths of it this side replaces (a question about
    /// the whole tree, such as how rare a literal is, asks both).
    pub fn other_side(&self) -> Option<(Searcher, Arc<BTreeSet<String>>)> {
        self.scope.as_ref().map(|sc| (sc.other.0.searcher(), Arc::clone(&sc.other_hidden)))
    }

    /// Removes everything on disk (used before a full rebuild after a schema change).
    pub fn destroy(root: &Path) -> Result<()> {
        match std::fs::remove_dir_all(root) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(KeywordError::Io { path: root.to_path_buf(), source }),
        }
    }

    /// An error writing the index.
    fn err(&self, source: tantivy::TantivyError) -> KeywordError {
        KeywordError::Tantivy { path: self.root.clone(), source }
    }

    /// An error reading it.
    fn read_err(&self, source: tantivy::TantivyError) -> KeywordError {
        read_error(&self.root, source)
    }

    /// A writer; `heap_bytes` is split across `threads` of the chunk index
    /// and the symbol index's one thread, which gets a quarter: each time a
    /// thread's share fills it writes a segment, and a full run's symbols
    /// in 15 MB made ~27 small segments that were merged again (3% of the
    /// run's CPU).
    pub fn writer(&self, threads: usize, heap_bytes: usize) -> Result<KeywordWriter<'_>> {
        const MIN_THREAD_HEAP: usize = 15_000_000;
        let threads = threads.max(1);
        let symbols_heap = (heap_bytes / 4).max(MIN_THREAD_HEAP);
        let per_thread = (heap_bytes.saturating_sub(symbols_heap) / threads).max(MIN_THREAD_HEAP);
        let chunks = self.chunks.writer_with_num_threads(threads, per_thread * threads).map_err(|e| self.err(e))?;
        let symbols = self.symbols.writer_with_num_threads(1, symbols_heap).map_err(|e| self.err(e))?;
        chunks.set_merge_policy(Box::new(merge_policy()));
        symbols.set_merge_policy(Box::new(merge_policy()));
        // A run killed before its commit leaves files (segments, delete
        // bitsets) that the committed index does not use; the replayed run
        // makes the same operations and would collide with them
        // ("FileAlreadyExists: <segment>.<opstamp>.del"). Remove them first.
        chunks.garbage_collect_files().wait().map_err(|e| self.err(e))?;
        symbols.garbage_collect_files().wait().map_err(|e| self.err(e))?;
        Ok(KeywordWriter { index: self, chunks, symbols })
    }

    /// The documents of one file: its chunks, then its symbols.
    fn documents(&self, path: &str, file: &FileChunks) -> (Vec<TantivyDocument>, Vec<TantivyDocument>) {
        let (cf, sf) = (&self.cf, &self.sf);
        let (mut chunk_docs, mut symbol_docs) = (Vec::with_capacity(file.chunks.len()), Vec::with_capacity(file.symbols.len()));
        let language = file.language.name();
        let mut chunk_of: HashMap<&str, &str> = HashMap::new();
        for chunk in &file.chunks {
            let mut doc = TantivyDocument::default();
            doc.add_text(cf.id, &chunk.id);
            doc.add_u64(cf.key, key_of(&chunk.id));
            doc.add_text(cf.path, path);
            doc.add_text(cf.path_text, path);
            doc.add_text(cf.language, language);
            doc.add_text(cf.kind, chunk.kind.as_str());
            if let Some(sym) = &chunk.symbol {
                doc.add_text(cf.symbol, sym);
            }
            for name in &chunk.symbols {
                chunk_of.entry(name.as_str()).or_insert(chunk.id.as_str());
                let lc = name.to_lowercase();
                let short = crate::analysis::name::last_dotted(&lc).to_string();
                doc.add_text(cf.symbol_names, &lc);
                if short != lc {
                    doc.add_text(cf.symbol_names, &short);
                }
                doc.add_text(cf.symbol_text, name);
            }
            if let Some(p) = &chunk.parent_id {
                doc.add_text(cf.parent, p);
            }
            doc.add_u64(cf.start_line, chunk.start_line as u64);
            doc.add_u64(cf.end_line, chunk.end_line as u64);
            doc.add_text(cf.content, &chunk.content);
            doc.add_text(cf.exact, &chunk.content);
            doc.add_text(cf.content_hash, &chunk.content_hash);
            chunk_docs.push(doc);
        }
        for (i, sym) in file.symbols.iter().enumerate() {
            let mut doc = TantivyDocument::default();
            let declaration = matches!(sym.kind, SymbolKind::Function | SymbolKind::Method) && sym.body.is_none();
            doc.add_u64(sf.key, symbol_key(path, &sym.qualified_name, i, declaration));
            doc.add_text(sf.path, path);
            doc.add_text(sf.name, &sym.name);
            doc.add_text(sf.qualified, &sym.qualified_name);
            doc.add_text(sf.name_lc, sym.name.to_lowercase());
            doc.add_text(sf.qualified_lc, sym.qualified_name.to_lowercase());
            doc.add_text(sf.name_text, &sym.qualified_name);
            doc.add_text(sf.kind, sym.kind.as_str());
            doc.add_text(sf.language, language);
            if let Some(p) = &sym.parent {
                doc.add_text(sf.parent, p);
            }
            doc.add_text(sf.signature, &sym.signature);
            if let Some(d) = &sym.doc {
                doc.add_text(sf.doc, d);
            }
            doc.add_u64(sf.start_line, sym.span.start_line as u64);
            doc.add_u64(sf.end_line, sym.span.end_line as u64);
            doc.add_u64(sf.start_byte, sym.span.start_byte as u64);
            doc.add_u64(sf.end_byte, sym.span.end_byte as u64);
            if let Some(c) = chunk_of.get(sym.qualified_name.as_str()) {
                doc.add_text(sf.chunk_id, c);
            }
            doc.add_text(sf.calls, sym.calls.join("\n"));
            doc.add_text(sf.bases, sym.bases.join("\n"));
            symbol_docs.push(doc);
        }
        (chunk_docs, symbol_docs)
    }

    /// Readers of both indexes as of their first use (see [`KeywordIndex::reload`]).
    pub fn readers(&self) -> Result<(IndexReader, IndexReader)> {
        if let Some(r) = self.readers.get() {
            return Ok(r.clone());
        }
        let c: IndexReader = self.chunks.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|e| read_error(&self.root, e))?;
        let s: IndexReader = self.symbols.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|e| read_error(&self.root, e))?;
        Ok(self.readers.get_or_init(|| (c, s)).clone())
    }

    /// Makes the readers see the latest commit (for a long-lived process).
    pub fn reload(&self) -> Result<()> {
        if let Some((c, s)) = self.readers.get() {
            c.reload().map_err(|e| self.err(e))?;
            s.reload().map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// The commit each index last recorded (its commit payload).
    pub fn committed_payloads(&self) -> Result<(Option<String>, Option<String>)> {
        let c = self.chunks.load_metas().map_err(|e| self.read_err(e))?.payload;
        let s = self.symbols.load_metas().map_err(|e| self.read_err(e))?.payload;
        Ok((c, s))
    }

    /// Top documents for `query` under exact statistics, ties broken by the
    /// content-derived key so that equal indexes give equal rankings.
    pub fn top_docs(&self, searcher: &Searcher, query: &dyn Query, limit: usize, key_field: &str) -> Result<Vec<(f32, DocAddress)>> {
        Ok(self.top_docs_keyed(searcher, query, limit, key_field)?.into_iter().map(|(score, _, addr)| (score, addr)).collect())
    }

    /// [`KeywordIndex::top_docs`] with each document's key.
    pub fn top_docs_keyed(&self, searcher: &Searcher, query: &dyn Query, limit: usize, key_field: &str) -> Result<Vec<(f32, u64, DocAddress)>> {
        let other = self.scope.as_ref().map(|sc| if searcher.schema() == &self.chunks.schema() { sc.other.0.searcher() } else { sc.other.1.searcher() });
        let stats = self.live_stats(searcher, other.as_ref())?;
        let key_field = key_field.to_string();
        let collector = TopDocs::with_limit(limit.max(1)).tweak_score(move |seg: &SegmentReader| {
            let keys = seg.fast_fields().u64(&key_field).ok().map(|c| c.first_or_default_col(0));
            move |doc: DocId, score: f32| (score, keys.as_ref().map_or(0, |k| k.get_val(doc)))
        });
        let hits = self.guarded(|| searcher.search_with_statistics_provider(query, &collector, &stats).map_err(|e| self.read_err(e)))?;
        Ok(hits.into_iter().map(|((score, key), addr)| (score, key, addr)).collect())
    }

    /// BM25 statistics over the live documents `searcher` shows and, in a
    /// scope, the other side's (`other`), less the documents either hides.
    fn live_stats<'s>(&self, searcher: &'s Searcher, other: Option<&'s Searcher>) -> Result<LayeredStats<'s>> {
        Ok(match (&self.scope, other) {
            (Some(sc), Some(other)) => LayeredStats {
                parts: vec![
                    ExactStats::excluding(searcher, &sc.hidden).map_err(|e| self.read_err(e))?,
                    ExactStats::excluding(other, &sc.other_hidden).map_err(|e| self.read_err(e))?,
                ],
            },
            _ => LayeredStats { parts: vec![ExactStats::new(searcher)] },
        })
    }

    pub fn doc(&self, searcher: &Searcher, addr: DocAddress) -> Result<TantivyDocument> {
        self.guarded(|| searcher.doc(addr).map_err(|e| self.read_err(e)))
    }

    /// Runs a read of this index's files: tantivy panics on some damaged
    /// bytes (a posting list's varints), which is [`KeywordError::Damaged`].
    fn guarded<T>(&self, read: impl FnOnce() -> Result<T>) -> Result<T> {
        crate::stores::panic_guard::guard(read, |panic| StoreDamaged::new(Store::Keyword, &self.root, panic).into())
    }

    /// For each of `paths`, how often each of `terms` (as [`analyze`] gives
    /// them) occurs in the live chunks of that file, and how many tokens
    /// those chunks hold: one skip through each term's postings per segment,
    /// over the files' documents in order.
    pub fn file_terms(&self, chunks: &Searcher, paths: &[&str], terms: &[String]) -> Result<FileTerms> {
        self.guarded(|| self.file_terms_unguarded(chunks, paths, terms))
    }

    fn file_terms_unguarded(&self, chunks: &Searcher, paths: &[&str], terms: &[String]) -> Result<FileTerms> {
        let mut out = FileTerms { counts: vec![vec![0; terms.len()]; paths.len()], lengths: vec![0; paths.len()], idf: Vec::with_capacity(terms.len()) };
        // Over live documents, as BM25 counts them: an index built commit
        // by commit gives the same as one built at once.
        let other = self.scope.as_ref().map(|sc| sc.other.0.searcher());
        let stats = self.live_stats(chunks, other.as_ref())?;
        let docs_total = stats.total_num_docs().map_err(|e| self.read_err(e))? as f32;
        for term in terms {
            let df = stats.doc_freq(&Term::from_field_text(self.cf.content, term)).map_err(|e| self.read_err(e))? as f32;
            // BM25's inverse document frequency, over chunks.
            out.idf.push((1.0 + (docs_total - df + 0.5) / (df + 0.5)).ln());
        }
        if terms.is_empty() {
            return Ok(out);
        }
        for seg in chunks.segment_readers() {
            let by_path = seg.inverted_index(self.cf.path).map_err(|e| self.read_err(e))?;
            // (document, the path's place in `paths`), in document order.
            let mut docs: Vec<(DocId, usize)> = Vec::new();
            for (i, p) in paths.iter().enumerate() {
                let postings = by_path.read_postings(&Term::from_field_text(self.cf.path, p), IndexRecordOption::Basic);
                if let Some(mut postings) = postings.map_err(|e| self.io_err(e))? {
                    let mut doc = postings.doc();
                    while doc != TERMINATED {
                        if !seg.is_deleted(doc) {
                            docs.push((doc, i));
                        }
                        doc = postings.advance();
                    }
                }
            }
            if docs.is_empty() {
                continue;
            }
            docs.sort_unstable();
            let norms = seg.get_fieldnorms_reader(self.cf.content).map_err(|e| self.read_err(e))?;
            for &(doc, i) in &docs {
                out.lengths[i] += norms.fieldnorm(doc);
            }
            let content = seg.inverted_index(self.cf.content).map_err(|e| self.read_err(e))?;
            for (t, term) in terms.iter().enumerate() {
                let postings = content.read_postings(&Term::from_field_text(self.cf.content, term), IndexRecordOption::WithFreqs);
                let Some(mut postings) = postings.map_err(|e| self.io_err(e))? else { continue };
                for &(doc, i) in &docs {
                    if postings.doc() == TERMINATED {
                        break;
                    }
                    if postings.doc() <= doc && postings.seek(doc) == doc {
                        out.counts[i][t] += postings.term_freq();
                    }
                }
            }
        }
        Ok(out)
    }

    fn io_err(&self, source: std::io::Error) -> KeywordError {
        KeywordError::Io { path: self.root.clone(), source }
    }

    /// The stored document of the chunk `id`, found by its key (the id is
    /// compared too: two ids could share a key).
    pub fn chunk_doc(&self, chunks: &Searcher, id: &str) -> Result<Option<TantivyDocument>> {
        let q = TermQuery::new(Term::from_field_u64(self.cf.key, key_of(id)), IndexRecordOption::Basic);
        for (_, addr) in self.top_docs(chunks, &q, 4, "key")? {
            let doc = self.doc(chunks, addr)?;
            if doc.get_first(self.cf.id).and_then(|v| v.as_str()) == Some(id) {
                return Ok(Some(doc));
            }
        }
        Ok(None)
    }
}

fn open_one(dir: &Path, schema: Schema, create: bool) -> Result<Index> {
    let tantivy_err = |source| KeywordError::Tantivy { path: dir.to_path_buf(), source };
    let exists = dir.join("meta.json").exists();
    if !exists && !create {
        return Err(KeywordError::Missing { path: dir.to_path_buf() });
    }
    std::fs::create_dir_all(dir).map_err(|source| KeywordError::Io { path: dir.to_path_buf(), source })?;
    let directory = MmapDirectory::open(dir).map_err(|e| tantivy_err(e.into()))?;
    let index = if exists {
        let index = Index::open(directory).map_err(tantivy_err)?;
        if index.schema() != schema {
            return Err(KeywordError::SchemaMismatch { path: dir.to_path_buf() });
        }
        index
    } else {
        Index::create(directory, schema, Default::default()).map_err(tantivy_err)?
    };
    index.tokenizers().register(TOKENIZER, analyzer());
    index.tokenizers().register(EXACT_TOKENIZER, TextAnalyzer::builder(ExactTokenizer).build());
    Ok(index)
}

/// Small segments from incremental runs are merged with each other, but the
/// large segments of a full index are only rewritten once a third of their
/// documents are deleted: an update after a one-file commit must not turn
/// into a rewrite of the whole index.
fn merge_policy() -> LogMergePolicy {
    let mut policy = LogMergePolicy::default();
    policy.set_max_docs_before_merge(50_000);
    policy.set_del_docs_ratio_before_merge(0.3);
    policy
}

/// Writes to both indexes; nothing is visible until [`KeywordWriter::commit`].
pub struct KeywordWriter<'a> {
    index: &'a KeywordIndex,
    chunks: IndexWriter,
    symbols: IndexWriter,
}

impl KeywordWriter<'_> {
    pub fn delete_all(&mut self) -> Result<()> {
        self.chunks.delete_all_documents().map_err(|e| self.index.err(e))?;
        self.symbols.delete_all_documents().map_err(|e| self.index.err(e))?;
        Ok(())
    }

    pub fn delete_path(&self, path: &str) {
        self.chunks.delete_term(Term::from_field_text(self.index.cf.path, path));
        self.symbols.delete_term(Term::from_field_text(self.index.sf.path, path));
    }

    /// Adds every chunk and symbol of one file. Safe to call from several threads.
    pub fn add_file(&self, path: &str, file: &FileChunks) -> Result<()> {
        let (chunks, symbols) = self.index.documents(path, file);
        for doc in chunks {
            self.chunks.add_document(doc).map_err(|e| self.index.err(e))?;
        }
        for doc in symbols {
            self.symbols.add_document(doc).map_err(|e| self.index.err(e))?;
        }
        Ok(())
    }

    /// Commits both indexes with `payload` (the indexed commit) and waits for merges.
    pub fn commit(mut self, payload: &str) -> Result<()> {
        self.prepare()?.commit(payload)?;
        self.wait_merges()
    }

    /// Writes both indexes' new segments (nearly all of a commit's work)
    /// without making them visible: [`PreparedKeyword::commit`] switches.
    /// The two phases let a run do other work (the code graph) while the
    /// segments are written, and leave both indexes at their previous
    /// commit when a write fails (a full disk). Dropped without `commit`,
    /// nothing changes; the unused files go at the next writer's start.
    pub fn prepare(&mut self) -> Result<PreparedKeyword<'_>> {
        let index = self.index;
        let err = |source| KeywordError::Tantivy { path: index.root.clone(), source };
        let KeywordWriter { chunks, symbols, .. } = self;
        // Both at once: mostly serializing and waiting on fsync.
        let (a, b) = std::thread::scope(|s| {
            let other = s.spawn(|| symbols.prepare_commit());
            let a = chunks.prepare_commit();
            let b = other.join().unwrap_or_else(|_| Err(tantivy::TantivyError::InternalError("preparing the symbol index commit panicked".into())));
            (a, b)
        });
        match (a, b) {
            (Ok(chunks), Ok(symbols)) => Ok(PreparedKeyword { index, chunks, symbols }),
            (Err(e), other) | (other, Err(e)) => {
                // Roll back the one that prepared; report the failure.
                if let Ok(prepared) = other {
                    let _ = prepared.abort();
                }
                Err(err(e))
            }
        }
    }

    /// Waits for the merges the last commit started.
    pub fn wait_merges(self) -> Result<()> {
        let KeywordWriter { index, chunks, symbols } = self;
        let err = |source| KeywordError::Tantivy { path: index.root.clone(), source };
        chunks.wait_merging_threads().map_err(err)?;
        symbols.wait_merging_threads().map_err(err)?;
        // The segments are final now. A cache: where it cannot be written,
        // queries compute the sums as they did before it.
        let _ = norm_sums::save(&index.root, [&index.chunks, &index.symbols]);
        Ok(())
    }
}

/// Both indexes' segments written, not yet visible (see [`KeywordWriter::prepare`]).
pub struct PreparedKeyword<'w> {
    index: &'w KeywordIndex,
    chunks: tantivy::indexer::PreparedCommit<'w>,
    symbols: tantivy::indexer::PreparedCommit<'w>,
}

impl PreparedKeyword<'_> {
    /// Makes both indexes' new segments visible, with `payload` (the indexed
    /// commit). A crash between the two switches is what the run journal is for.
    pub fn commit(self, payload: &str) -> Result<()> {
        let PreparedKeyword { index, mut chunks, mut symbols } = self;
        let err = |source| KeywordError::Tantivy { path: index.root.clone(), source };
        chunks.set_payload(payload);
        symbols.set_payload(payload);
        chunks.commit().map_err(err)?;
        symbols.commit().map_err(err)?;
        Ok(())
    }
}

/// 64 bits of a chunk id, for tie-breaking.
pub fn key_of(id: &str) -> u64 {
    let h = blake3::hash(id.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&h.as_bytes()[..8]);
    u64::from_le_bytes(b)
}

/// BM25 statistics over live documents only (see the module docs), less
/// the documents of hidden paths.
pub struct ExactStats<'s> {
    searcher: &'s Searcher,
    tokens: Mutex<HashMap<Field, u64>>,
    /// Per segment, the documents left out (those of hidden paths).
    hidden: Vec<std::collections::HashSet<DocId>>,
}

impl<'s> ExactStats<'s> {
    pub fn new(searcher: &'s Searcher) -> Self {
        ExactStats { searcher, tokens: Mutex::new(HashMap::new()), hidden: Vec::new() }
    }

    /// The statistics without the documents of `paths` (the `path` field).
    fn excluding(searcher: &'s Searcher, paths: &BTreeSet<String>) -> tantivy::Result<Self> {
        let mut stats = ExactStats::new(searcher);
        if paths.is_empty() {
            return Ok(stats);
        }
        let field = searcher.schema().get_field("path")?;
        for seg in searcher.segment_readers() {
            let inverted = seg.inverted_index(field)?;
            let mut docs = std::collections::HashSet::new();
            for p in paths {
                if let Some(mut postings) = inverted.read_postings(&Term::from_field_text(field, p), IndexRecordOption::Basic)? {
                    let mut doc = postings.doc();
                    while doc != TERMINATED {
                        if !seg.is_deleted(doc) {
                            docs.insert(doc);
                        }
                        doc = postings.advance();
                    }
                }
            }
            stats.hidden.push(docs);
        }
        Ok(stats)
    }

    fn hidden_in(&self, segment: usize) -> Option<&std::collections::HashSet<DocId>> {
        self.hidden.get(segment).filter(|h| !h.is_empty())
    }
}

impl Bm25StatisticsProvider for ExactStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        if let Some(&n) = self.tokens.lock().map_err(|_| tantivy::TantivyError::InternalError("stats lock".into()))?.get(&field) {
            return Ok(n);
        }
        // Sum of the (quantized) field lengths of live documents: the same
        // for any two indexes holding the same documents.
        let mut total = 0u64;
        for (i, seg) in self.searcher.segment_readers().iter().enumerate() {
            let norms = seg.get_fieldnorms_reader(field)?;
            total += norm_sums::segment_tokens(seg, field, &norms);
            // Less the hidden documents (all alive): a few, where a lookup
            // per live document cost ~10% of a query over the work tree.
            total -= self.hidden_in(i).into_iter().flatten().map(|doc| u64::from(norms.fieldnorm(*doc))).sum::<u64>();
        }
        if let Ok(mut cache) = self.tokens.lock() {
            cache.insert(field, total);
        }
        Ok(total)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.searcher.num_docs() - self.hidden.iter().map(|h| h.len() as u64).sum::<u64>())
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut total = 0u64;
        for (i, seg) in self.searcher.segment_readers().iter().enumerate() {
            let inverted = seg.inverted_index(term.field())?;
            let hidden = self.hidden_in(i);
            if !seg.has_deletes() {
                total += u64::from(inverted.doc_freq(term)?);
                // Less the hidden documents holding the term: a few, each
                // found by a skip through the postings.
                if let (Some(hidden), Some(mut postings)) = (hidden, inverted.read_postings(term, IndexRecordOption::Basic)?) {
                    let mut docs: Vec<DocId> = hidden.iter().copied().collect();
                    docs.sort_unstable();
                    for d in docs {
                        if postings.doc() <= d && postings.seek(d) == d {
                            total -= 1;
                        }
                    }
                }
                continue;
            }
            if let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? {
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if !seg.is_deleted(doc) && hidden.is_none_or(|h| !h.contains(&doc)) {
                        total += 1;
                    }
                    doc = postings.advance();
                }
            }
        }
        Ok(total)
    }
}

/// The statistics of several indexes as if they were one.
struct LayeredStats<'s> {
    parts: Vec<ExactStats<'s>>,
}

impl Bm25StatisticsProvider for LayeredStats<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.parts.iter().map(|p| p.total_num_tokens(field)).sum()
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.parts.iter().map(|p| p.total_num_docs()).sum()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.parts.iter().map(|p| p.doc_freq(term)).sum()
    }
}

/// Reads a stored text field.
pub fn get_str(doc: &TantivyDocument, field: Field) -> Option<String> {
    doc.get_first(field).and_then(|v| v.as_str()).map(str::to_string)
}

/// Reads a stored u64 field.
/// A symbol's key: a hash of where it is, which breaks ties between equal
/// scores (larger first), with its top bit clear for a function or method
/// declared without a body. So among equally good name matches a function's
/// definition comes before its prototypes (C and C++ headers, forward
/// declarations; on the Linux kernel the prototype was result 1 for 10% of
/// functions asked by name). Other kinds keep their order: a type's body is
/// not captured in every language.
fn symbol_key(path: &str, qualified_name: &str, nth: usize, declaration: bool) -> u64 {
    let hash = key_of(&format!("{path}\0{qualified_name}\0{nth}")) >> 1;
    hash | (u64::from(!declaration) << 63)
}

/// A stored kind; one the store did not record (or this version does not
/// know) reads as [`Kind::Chunk`].
pub fn get_kind(doc: &TantivyDocument, field: Field) -> Kind {
    get_str(doc, field).and_then(|k| Kind::from_name(&k)).unwrap_or(Kind::Chunk)
}

/// A stored language; one this version does not know reads as text.
pub fn get_language(doc: &TantivyDocument, field: Field) -> Language {
    get_str(doc, field).and_then(|l| Language::from_name(&l)).unwrap_or(Language::Text)
}

pub fn get_u64(doc: &TantivyDocument, field: Field) -> u64 {
    doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0)
}
