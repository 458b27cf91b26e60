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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::indexer::LogMergePolicy;
use tantivy::query::{Bm25StatisticsProvider, Query};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value, FAST, STORED, STRING,
};
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};
use tantivy::{DocAddress, DocId, DocSet, Index, IndexReader, IndexWriter, ReloadPolicy, Searcher, SegmentReader, TantivyDocument, Term, TERMINATED};

use crate::analysis::chunk::FileChunks;

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

const TOKENIZER: &str = "code";
const EXACT_TOKENIZER: &str = "exact";

/// Bump when the analyzer or the document layout changes: what is stored
/// differs even though the tantivy schema may not, so indexes are rebuilt.
/// 3: escapes (`\n`) are terms of their own in the exact field.
/// 4: a chunk's symbol, parent and content hash are stored, not indexed.
pub const FORMAT_VERSION: u32 = 4;
const MAX_TOKEN_LEN: usize = 80;

/// Splits source text into searchable terms: every identifier whole
/// (lowercased) and, when it has several parts, each camelCase, PascalCase,
/// snake_case or letter/digit part as well.
pub fn code_terms(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut position = 0;
    let mut iter = text.char_indices().peekable();
    while let Some((start, c)) = iter.next() {
        if !is_ident_char(c) {
            continue;
        }
        let end = ident_run_end(&mut iter, start + c.len_utf8());
        let word = &text[start..end];
        let whole = word.trim_matches(|c| c == '_' || c == '$');
        if whole.is_empty() || whole.len() > MAX_TOKEN_LEN {
            continue;
        }
        let whole_lc = if whole.is_ascii() { whole.to_ascii_lowercase() } else { whole.to_lowercase() };
        let parts = split_identifier(whole);
        out.push(Token { offset_from: start, offset_to: end, position, text: whole_lc.clone(), position_length: 1 });
        position += 1;
        if parts.len() > 1 {
            for part in parts {
                let p = if part.is_ascii() { part.to_ascii_lowercase() } else { part.to_lowercase() };
                if p != whole_lc {
                    out.push(Token { offset_from: start, offset_to: end, position, text: p, position_length: 1 });
                    position += 1;
                }
            }
        }
    }
    out
}

/// Consumes the identifier characters that follow a run's first one; the
/// byte offset where the run ends (`end` is where it ends so far).
fn ident_run_end(iter: &mut std::iter::Peekable<std::str::CharIndices<'_>>, mut end: usize) -> usize {
    while let Some(&(i, c)) = iter.peek() {
        if !is_ident_char(c) {
            break;
        }
        end = i + c.len_utf8();
        iter.next();
    }
    end
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// `parseHTTPHeader2_value` -> [parse, HTTP, Header, 2, value]
pub fn split_identifier(word: &str) -> Vec<&str> {
    if word.is_ascii() {
        split_ascii(word)
    } else {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        split_at_boundaries(word, chars.len(), |k| chars[k])
    }
}

/// Nearly every identifier: split on its bytes, without collecting its
/// characters first.
fn split_ascii(word: &str) -> Vec<&str> {
    let bytes = word.as_bytes();
    split_at_boundaries(word, bytes.len(), |k| (k, bytes[k]))
}

/// A character as identifier splitting sees it: a byte of an ASCII word, or a `char`.
trait WordChar: Copy {
    fn is_separator(self) -> bool;
    fn is_lower(self) -> bool;
    fn is_upper(self) -> bool;
    fn is_letter(self) -> bool;
    fn is_digit(self) -> bool;
}

impl WordChar for u8 {
    fn is_separator(self) -> bool {
        self == b'_' || self == b'$'
    }
    fn is_lower(self) -> bool {
        self.is_ascii_lowercase()
    }
    fn is_upper(self) -> bool {
        self.is_ascii_uppercase()
    }
    fn is_letter(self) -> bool {
        self.is_ascii_alphabetic()
    }
    fn is_digit(self) -> bool {
        self.is_ascii_digit()
    }
}

impl WordChar for char {
    fn is_separator(self) -> bool {
        self == '_' || self == '$'
    }
    fn is_lower(self) -> bool {
        self.is_lowercase()
    }
    fn is_upper(self) -> bool {
        self.is_uppercase()
    }
    fn is_letter(self) -> bool {
        self.is_alphabetic()
    }
    fn is_digit(self) -> bool {
        self.is_numeric()
    }
}

/// Splits `word`, whose `k`th of `len` characters is `at(k)` (byte offset,
/// character), at separators and at case and letter/digit boundaries.
fn split_at_boundaries<C: WordChar>(word: &str, len: usize, at: impl Fn(usize) -> (usize, C)) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start: Option<usize> = None;
    for k in 0..len {
        let (i, c) = at(k);
        if c.is_separator() {
            if let Some(s) = start.take() {
                parts.push(&word[s..i]);
            }
            continue;
        }
        // After a separator (or at the start) a part begins: `prev` below is never one.
        let Some(s) = start else {
            start = Some(i);
            continue;
        };
        let prev = at(k - 1).1;
        let next = (k + 1 < len).then(|| at(k + 1).1);
        let boundary = (prev.is_lower() && c.is_upper())
            || (prev.is_letter() && c.is_digit())
            || (prev.is_digit() && c.is_letter())
            || (prev.is_upper() && c.is_upper() && next.is_some_and(|n| n.is_lower()));
        if boundary {
            parts.push(&word[s..i]);
            start = Some(i);
        }
    }
    if let Some(s) = start {
        parts.push(&word[s..]);
    }
    parts
}

/// The analyzer of every code text field: [`code_terms`], then English
/// stemming, so `sessions` finds `session` and `persisted` finds `persist`.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(StemmedCodeTokenizer::default()).build()
}

/// Query-side terms: exactly what the index holds for the same text.
pub fn analyze(text: &str) -> Vec<String> {
    let mut analyzer = analyzer();
    let mut stream = analyzer.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().text.clone());
    }
    out
}

/// Splits text into its exact form: each run of identifier characters whole,
/// case kept, and every other visible character as a token of its own, so
/// that a phrase of them matches a literal (`--dry-run`, `"%s" is not a
/// valid`, `Connection refused`) as written, whatever the whitespace.
pub fn exact_terms(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut iter = text.char_indices().peekable();
    while let Some((start, c)) = iter.next() {
        if c.is_whitespace() {
            continue;
        }
        // An escape in a string (`"\nDid you mean…"`) is one term, and the
        // word after it starts afresh: not the identifier `nDid`.
        let escape = c == '\\' && iter.peek().is_some_and(|&(_, n)| matches!(n, 'n' | 't' | 'r' | '0' | 'a' | 'b' | 'e' | 'f' | 'v'));
        let end = if escape {
            iter.next().map_or(start + 1, |(i, n)| i + n.len_utf8())
        } else if is_ident_char(c) {
            ident_run_end(&mut iter, start + c.len_utf8())
        } else {
            start + c.len_utf8()
        };
        let word = &text[start..end];
        // A run too long to be a word (a hash, base64) keeps its head.
        let mut cut = word.len().min(MAX_TOKEN_LEN);
        while !word.is_char_boundary(cut) {
            cut -= 1;
        }
        let text = word[..cut].to_string();
        out.push(Token { offset_from: start, offset_to: end, position: out.len(), text, position_length: 1 });
    }
    out
}

/// The exact-form terms of `text`, as the index holds them.
pub fn exact_analyze(text: &str) -> Vec<String> {
    exact_terms(text).into_iter().map(|t| t.text).collect()
}

/// tantivy adapter for [`exact_terms`].
#[derive(Clone, Default)]
pub struct ExactTokenizer;

impl Tokenizer for ExactTokenizer {
    type TokenStream<'a> = CodeTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream {
        CodeTokenStream { tokens: exact_terms(text), index: 0 }
    }
}

pub struct CodeTokenStream {
    tokens: Vec<Token>,
    index: usize,
}

/// [`code_terms`] through English stemming (the Snowball algorithm tantivy's
/// `Stemmer` applies), each word's stem remembered: identifiers repeat, and
/// stemming every occurrence was ~6% of a full index's CPU.
pub struct StemmedCodeTokenizer {
    stemmer: frostem::Stemmer,
    /// word → its stem, `None` when that is the word itself.
    stems: rustc_hash::FxHashMap<Box<str>, Option<Box<str>>>,
}

/// Words a tokenizer remembers the stems of before it starts afresh (each
/// indexing thread has its own: a few tens of MB at most).
const REMEMBERED_STEMS: usize = 1 << 16;

impl Default for StemmedCodeTokenizer {
    fn default() -> Self {
        StemmedCodeTokenizer { stemmer: frostem::Stemmer::new(frostem::Algorithm::English), stems: Default::default() }
    }
}

/// A copy starts with nothing remembered (tantivy copies the analyzer for
/// each segment it writes).
impl Clone for StemmedCodeTokenizer {
    fn clone(&self) -> Self {
        StemmedCodeTokenizer::default()
    }
}

impl Tokenizer for StemmedCodeTokenizer {
    type TokenStream<'a> = CodeTokenStream;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream {
        let mut tokens = code_terms(text);
        if self.stems.len() > REMEMBERED_STEMS {
            self.stems.clear();
        }
        for token in &mut tokens {
            match self.stems.get(token.text.as_str()) {
                Some(Some(stem)) => {
                    token.text.clear();
                    token.text.push_str(stem);
                }
                Some(None) => {}
                None => {
                    let stem = match self.stemmer.stem(&token.text) {
                        std::borrow::Cow::Borrowed(_) => None,
                        std::borrow::Cow::Owned(stem) => Some(stem),
                    };
                    let word: Box<str> = match stem {
                        Some(stem) => std::mem::replace(&mut token.text, stem).into(),
                        None => token.text.as_str().into(),
                    };
                    let remembered = (word.as_ref() != token.text).then(|| token.text.as_str().into());
                    self.stems.insert(word, remembered);
                }
            }
        }
        CodeTokenStream { tokens, index: 0 }
    }
}

impl TokenStream for CodeTokenStream {
    fn advance(&mut self) -> bool {
        if self.index < self.tokens.len() {
            self.index += 1;
            true
        } else {
            false
        }
    }
    fn token(&self) -> &Token {
        &self.tokens[self.index - 1]
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.index - 1]
    }
}

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

fn code_text(stored: bool) -> TextOptions {
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
        id: b.add_text_field("id", STRING | STORED),
        key: b.add_u64_field("key", FAST),
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

    fn open_impl(root: &Path, create: bool) -> Result<KeywordIndex> {
        let (cs, cf) = chunk_schema();
        let (ss, sf) = symbol_schema();
        let chunks = open_one(&root.join("chunks"), cs, create)?;
        let symbols = open_one(&root.join("symbols"), ss, create)?;
        Ok(KeywordIndex { chunks, symbols, cf, sf, root: root.to_path_buf(), readers: std::sync::OnceLock::new() })
    }

    /// Removes everything on disk (used before a full rebuild after a schema change).
    pub fn destroy(root: &Path) -> Result<()> {
        match std::fs::remove_dir_all(root) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(KeywordError::Io { path: root.to_path_buf(), source }),
        }
    }

    fn err(&self, source: tantivy::TantivyError) -> KeywordError {
        KeywordError::Tantivy { path: self.root.clone(), source }
    }

    /// A writer; `heap_bytes` is split across `threads`.
    pub fn writer(&self, threads: usize, heap_bytes: usize) -> Result<KeywordWriter<'_>> {
        let threads = threads.max(1);
        let per_thread = (heap_bytes / threads).max(15_000_000);
        let chunks = self.chunks.writer_with_num_threads(threads, per_thread * threads).map_err(|e| self.err(e))?;
        let symbols = self.symbols.writer_with_num_threads(1, 15_000_000).map_err(|e| self.err(e))?;
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

    /// Readers of both indexes as of their first use (see [`KeywordIndex::reload`]).
    pub fn readers(&self) -> Result<(IndexReader, IndexReader)> {
        if let Some(r) = self.readers.get() {
            return Ok(r.clone());
        }
        let c: IndexReader = self.chunks.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|e| self.err(e))?;
        let s: IndexReader = self.symbols.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().map_err(|e| self.err(e))?;
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
        let c = self.chunks.load_metas().map_err(|e| self.err(e))?.payload;
        let s = self.symbols.load_metas().map_err(|e| self.err(e))?.payload;
        Ok((c, s))
    }

    /// Top documents for `query` under exact statistics, ties broken by the
    /// content-derived key so that equal indexes give equal rankings.
    pub fn top_docs(&self, searcher: &Searcher, query: &dyn Query, limit: usize, key_field: &str) -> Result<Vec<(f32, DocAddress)>> {
        let stats = ExactStats::new(searcher);
        let key_field = key_field.to_string();
        let collector = TopDocs::with_limit(limit.max(1)).tweak_score(move |seg: &SegmentReader| {
            let keys = seg.fast_fields().u64(&key_field).ok().map(|c| c.first_or_default_col(0));
            move |doc: DocId, score: f32| (score, keys.as_ref().map_or(0, |k| k.get_val(doc)))
        });
        let hits = searcher.search_with_statistics_provider(query, &collector, &stats).map_err(|e| self.err(e))?;
        Ok(hits.into_iter().map(|((score, _), addr)| (score, addr)).collect())
    }

    pub fn doc(&self, searcher: &Searcher, addr: DocAddress) -> Result<TantivyDocument> {
        searcher.doc(addr).map_err(|e| self.err(e))
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
        let cf = &self.index.cf;
        let sf = &self.index.sf;
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
                let short = lc.rsplit('.').next().unwrap_or(&lc).to_string();
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
            self.chunks.add_document(doc).map_err(|e| self.index.err(e))?;
        }
        for (i, sym) in file.symbols.iter().enumerate() {
            let mut doc = TantivyDocument::default();
            doc.add_u64(sf.key, key_of(&format!("{path}\0{}\0{i}", sym.qualified_name)));
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

/// BM25 statistics over live documents only (see the module docs).
pub struct ExactStats<'s> {
    searcher: &'s Searcher,
    tokens: Mutex<HashMap<Field, u64>>,
}

impl<'s> ExactStats<'s> {
    pub fn new(searcher: &'s Searcher) -> Self {
        ExactStats { searcher, tokens: Mutex::new(HashMap::new()) }
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
        for seg in self.searcher.segment_readers() {
            let norms = seg.get_fieldnorms_reader(field)?;
            for doc in seg.doc_ids_alive() {
                total += u64::from(norms.fieldnorm(doc));
            }
        }
        if let Ok(mut cache) = self.tokens.lock() {
            cache.insert(field, total);
        }
        Ok(total)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.searcher.num_docs())
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut total = 0u64;
        for seg in self.searcher.segment_readers() {
            let inverted = seg.inverted_index(term.field())?;
            if !seg.has_deletes() {
                total += u64::from(inverted.doc_freq(term)?);
                continue;
            }
            if let Some(mut postings) = inverted.read_postings(term, IndexRecordOption::Basic)? {
                let mut doc = postings.doc();
                while doc != TERMINATED {
                    if !seg.is_deleted(doc) {
                        total += 1;
                    }
                    doc = postings.advance();
                }
            }
        }
        Ok(total)
    }
}

/// Reads a stored text field.
pub fn get_str(doc: &TantivyDocument, field: Field) -> Option<String> {
    doc.get_first(field).and_then(|v| v.as_str()).map(str::to_string)
}

/// Reads a stored u64 field.
pub fn get_u64(doc: &TantivyDocument, field: Field) -> u64 {
    doc.get_first(field).and_then(|v| v.as_u64()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    /// [`code_terms`] as a tantivy tokenizer, for tantivy's own stemmer.
    #[derive(Clone)]
    struct Unstemmed;

    impl tantivy::tokenizer::Tokenizer for Unstemmed {
        type TokenStream<'a> = super::CodeTokenStream;
        fn token_stream<'a>(&'a mut self, text: &'a str) -> super::CodeTokenStream {
            super::CodeTokenStream { tokens: super::code_terms(text), index: 0 }
        }
    }

    /// The remembered stems are tantivy's: the same terms, text after text
    /// (the second time from memory), as its `Stemmer` filter gives.
    #[test]
    fn remembered_stems_equal_tantivys_stemmer() {
        use tantivy::tokenizer::{Language, Stemmer, TextAnalyzer, TokenStream};
        let texts = [
            "def persisted_sessions(self): return self.sessions.persist(running=True)",
            "class ConnectionRefusedError: 'Connection refused' while connecting; connections connected",
            "def persisted_sessions(self): return self.sessions.persist(running=True) # again",
            "parseHTTPHeader2_value généralement ÜBER studies studying studied",
        ];
        let terms = |analyzer: &mut TextAnalyzer, text: &str| {
            let mut stream = analyzer.token_stream(text);
            let mut out = Vec::new();
            while stream.advance() {
                let t = stream.token();
                out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
            }
            out
        };
        let mut ours = super::analyzer();
        let mut theirs = TextAnalyzer::builder(Unstemmed).filter(Stemmer::new(Language::English)).build();
        for text in texts.iter().chain(texts.iter()) {
            let want = terms(&mut theirs, text);
            assert!(want.iter().any(|(t, ..)| t == "session" || t == "connect" || t == "studi"), "{want:?}");
            assert_eq!(terms(&mut ours, text), want, "{text}");
        }
    }

    #[test]
    fn exact_terms_keep_case_and_punctuation() {
        assert_eq!(super::exact_analyze("--dry-run"), ["-", "-", "dry", "-", "run"]);
        assert_eq!(super::exact_analyze("raise ValueError(\"%s is bad\" % x)"), ["raise", "ValueError", "(", "\"", "%", "s", "is", "bad", "\"", "%", "x", ")"]);
        assert_eq!(super::exact_analyze("Connection   refused"), super::exact_analyze("Connection\n refused"));
        assert_eq!(super::exact_analyze(r#""\n\nDid you mean this?\n""#), ["\"", "\\n", "\\n", "Did", "you", "mean", "this", "?", "\\n", "\""]);
    }

    use super::*;

    fn texts(s: &str) -> Vec<String> {
        code_terms(s).into_iter().map(|t| t.text).collect()
    }

    proptest::proptest! {
        /// The ASCII path splits as the general one does.
        #[test]
        fn ascii_words_split_as_any_word(word in "[A-Za-z0-9_$]{0,24}") {
            let chars: Vec<(usize, char)> = word.char_indices().collect();
            proptest::prop_assert_eq!(split_ascii(&word), split_at_boundaries(&word, chars.len(), |k| chars[k]));
        }
    }

    #[test]
    fn splits_identifiers_and_keeps_the_whole() {
        assert_eq!(texts("getHTTPResponse2"), vec!["gethttpresponse2", "get", "http", "response", "2"]);
        assert_eq!(texts("parse_header_links"), vec!["parse_header_links", "parse", "header", "links"]);
        assert_eq!(texts("__init__"), vec!["init"]);
        assert_eq!(texts("CaseInsensitiveDict x"), vec!["caseinsensitivedict", "case", "insensitive", "dict", "x"]);
        assert_eq!(texts("res.sendFile('a b')"), vec!["res", "sendfile", "send", "file", "a", "b"]);
        // Beyond ASCII: the same rules on characters.
        assert_eq!(texts("naïveÉtat2_größe"), vec!["naïveétat2_größe", "naïve", "état", "2", "größe"]);
    }
}
