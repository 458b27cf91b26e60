//! What is embedded, and under which key.
//!
//! Embedding dominates indexing cost on a CPU, so the text is chosen with
//! care: a SEMANTIC chunk is a short contextual header (qualified symbol,
//! kind, docstring) plus its code, cut to about the model's window; a SYMBOL
//! is its header only; a FILE is its outline. Vectors are keyed by (model id,
//! hash of that text), so identical text is embedded once, whatever path or
//! commit it appears at. That is also why no path is embedded: a rename, a
//! revert or a branch switch must re-embed nothing. Paths are matched by the
//! keyword index and filtered as payload.

use serde_json::{json, Map, Value};

use crate::analysis::chunk::{Chunk, ChunkKind, FileChunks};
use crate::analysis::kind::Kind;
use crate::analysis::parse::Symbol;
use crate::analysis::role::Role;
use crate::stores::vector::{point_id, point_id_of, Collection};

/// Version of what is embedded for a file (the texts below). It is stored
/// with the index: a change re-embeds every file once and keeps the
/// keyword, symbol and graph layers.
/// 1: every chunk, symbol header and outline up to the model's window.
/// 2: outlines, module code and parts of long bodies get a quarter of the
///    window, test code its header; test code and short definitions share
///    one vector between chunk and symbol; a docstring inside the body is
///    embedded once: half the tokens on the 1,000-file slice of `large`, no
///    loss on the dev kit.
pub const RECIPE: u32 = 2;

/// About 256 word-piece tokens of code: the model's window.
pub const MAX_CHARS: usize = 1200;

/// Outlines (files, classes, modules), module-level code, parts of long
/// bodies and unparsed text: what they are about is in their first lines.
pub const OUTLINE_CHARS: usize = 320;

/// Test code: its name, docstring and first lines. Questions about
/// behaviour want the code under test (the query side weighs tests down),
/// and a test's body is mostly setup; keyword search still sees all of it.
pub const TEST_CHARS: usize = 120;

/// A definition whose code is at most this long shares its chunk's vector.
pub const SHORT_CHUNK_CHARS: usize = 600;

/// How much of a chunk is embedded, by what it is.
fn chunk_budget(kind: ChunkKind, test: bool) -> usize {
    if test {
        return TEST_CHARS;
    }
    match kind {
        ChunkKind::Class | ChunkKind::Module | ChunkKind::Code | ChunkKind::Block | ChunkKind::Fallback | ChunkKind::File => OUTLINE_CHARS,
        _ => MAX_CHARS,
    }
}

/// The text embedded for a chunk of the file at `path`: a header (symbol,
/// kind, docstring) and the start of its code, within [`chunk_budget`].
pub fn chunk_text(path: &str, chunk: &Chunk, symbol: Option<&Symbol>) -> String {
    let test = Role::of_code(path, chunk.symbol.as_deref()).is_test_side();
    let mut head = String::new();
    if let Some(s) = &chunk.symbol {
        head.push_str(&format!("symbol: {s} ({})\n", chunk.kind.as_str()));
    }
    if let Some(doc) = symbol.and_then(|s| s.doc.as_deref()) {
        // A docstring inside the body (Python) is embedded once, where it is.
        let first_line = doc.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
        if first_line.is_empty() || !chunk.content.contains(first_line) {
            head.push_str(&format!("doc: {}\n", first_chars(doc, 300)));
        }
    }
    let budget = chunk_budget(chunk.kind, test);
    let body_budget = budget.saturating_sub(head.chars().count()).max(budget / 4);
    head.push_str(&first_chars(&chunk.content, body_budget));
    head
}

/// The text embedded for a symbol: its header only.
pub fn symbol_text(sym: &Symbol) -> String {
    let mut t = format!("{} {}\n{}", sym.kind.as_str(), sym.qualified_name, sym.signature);
    if let Some(doc) = &sym.doc {
        t.push('\n');
        t.push_str(&first_chars(doc, 400));
    }
    t
}

/// The text embedded for a file: its outline (the file chunk without its path line).
pub fn file_text(chunks: &[Chunk]) -> String {
    let outline = chunks.iter().find(|c| c.kind == ChunkKind::File).map(|c| c.content.as_str()).unwrap_or("");
    let outline = if outline.starts_with("// file: ") { outline.split_once('\n').map_or("", |(_, rest)| rest) } else { outline };
    first_chars(outline, OUTLINE_CHARS)
}

/// Key of a vector: the model and the exact text embedded.
pub fn vector_key(model_id: &str, text: &str) -> u128 {
    let mut h = blake3::Hasher::new();
    h.update(model_id.as_bytes());
    h.update(&[0]);
    h.update(text.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&h.finalize().as_bytes()[..16]);
    u128::from_le_bytes(b)
}

/// The text of a point's sparse BM25 vector on a Qdrant server: the path,
/// the symbol and the whole content (not the embedded text, which is cut to
/// the model's window), as the terms of the local keyword index — every
/// identifier whole and in parts, stemmed — so that the server's `qdrant/bm25`
/// (which splits on words only) matches `evict_expired` from "expired".
pub fn bm25_text(doc: &Doc) -> String {
    let get = |k: &str| doc.payload.get(k).and_then(|v| v.as_str()).unwrap_or("");
    let symbol = if get("symbol").is_empty() { get("qualified_name") } else { get("symbol") };
    let body = match doc.collection {
        // A symbol's vector may be its chunk's; its terms are its header's.
        Collection::Symbols => format!("{} {} {}", get("kind"), get("signature"), get("doc")),
        _ if !get("content").is_empty() => get("content").to_string(),
        _ => doc.text.clone(),
    };
    bm25_query(&format!("{} {symbol} {body}", get("path")))
}

/// A query for the server's sparse BM25 vectors, in the terms of [`bm25_text`].
pub fn bm25_query(text: &str) -> String {
    crate::stores::keyword::analyze(text).join(" ")
}

/// A point waiting for its vector: what to embed, and what to store with it.
#[derive(Debug, Clone)]
pub struct Doc {
    pub collection: Collection,
    pub id: u64,
    /// The text embedded (the server's BM25 text where there is no `content`).
    pub text: String,
    /// [`vector_key`] of `text`.
    pub key: u128,
    pub payload: Map<String, Value>,
}

/// The points of one file in FILES, SYMBOLS and SEMANTIC. Ids depend on the
/// path and the content only, so a replay or an incremental run produces the
/// same points as a fresh index.
pub fn documents(path: &str, blob: &str, file: &FileChunks, model_id: &str) -> Vec<Doc> {
    let language = file.language.name();
    let mut docs = Vec::new();
    let mut doc = |collection: Collection, id: u64, text: String, payload: Map<String, Value>| {
        if text.trim().is_empty() {
            return;
        }
        let key = vector_key(model_id, &text);
        docs.push(Doc { collection, id, text, key, payload });
    };
    let chunk_of_symbol = |qualified: &str| file.chunks.iter().find(|c| c.symbol.as_deref() == Some(qualified) && c.kind != ChunkKind::Block);

    // SEMANTIC: every chunk but the file outline (that is FILES) and the
    // line windows of files over the parse cap: those are mostly data or
    // generated code, found by keyword, and would cost minutes of embedding.
    let mut texts: std::collections::HashMap<&str, String> = std::collections::HashMap::new();
    for chunk in file.chunks.iter().filter(|c| !matches!(c.kind, ChunkKind::File | ChunkKind::Window)) {
        let Some(chunk_id) = crate::stores::state::ChunkId::parse(&chunk.id) else { continue };
        let symbol = chunk.symbol.as_deref().and_then(|q| file.symbols.iter().find(|s| s.qualified_name == q));
        let text = chunk_text(path, chunk, symbol);
        texts.insert(chunk.id.as_str(), text.clone());
        let payload = object(json!({
            "path": path,
            "chunk_id": chunk.id,
            "parent_id": chunk.parent_id,
            "kind": chunk.kind.as_str(),
            "symbol": chunk.symbol,
            "language": language,
            "start_line": chunk.start_line,
            "end_line": chunk.end_line,
            "tokens": estimate_tokens(&text),
            "content": chunk.content,
        }));
        doc(Collection::Semantic, point_id(chunk_id.0), text, payload);
    }

    // SYMBOLS: the header of every definition.
    let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for sym in &file.symbols {
        let n = seen.entry(sym.qualified_name.as_str()).or_insert(0);
        *n += 1;
        let occurrence = n.to_string();
        let chunk = chunk_of_symbol(&sym.qualified_name);
        let payload = symbol_payload(path, language, sym, chunk);
        // A test's chunk text, or a short definition's, is little more than
        // its header: the symbol shares that chunk's vector. A longer
        // definition's header is a vector of its own, a second view of the
        // code that the dev kit's concept questions need (sharing every
        // header lost 0.05 nDCG in semantic mode; up to 1,000 characters, 0.02).
        let shares = |c: &&Chunk| Role::of_code(path, Some(&sym.qualified_name)).is_test_side() || c.content.chars().count() <= SHORT_CHUNK_CHARS;
        let shared = chunk.filter(shares).and_then(|c| texts.get(c.id.as_str()));
        let text = shared.cloned().unwrap_or_else(|| symbol_text(sym));
        doc(Collection::Symbols, point_id_of(&[path, &sym.qualified_name, &occurrence]), text, payload);
    }

    // FILES: the outline (or the start of the text, for files without one).
    let outline = file.chunks.iter().find(|c| c.kind == ChunkKind::File);
    let text = match outline {
        Some(_) => file_text(&file.chunks),
        None => file.chunks.first().map(|c| first_chars(&c.content, OUTLINE_CHARS)).unwrap_or_default(),
    };
    let end_line = file.chunks.iter().map(|c| c.end_line).max().unwrap_or(1);
    let filename = path.rsplit('/').next().unwrap_or(path);
    let top_level: Vec<&str> = file.symbols.iter().filter(|s| s.parent.is_none()).map(|s| s.name.as_str()).collect();
    let imports: Vec<&str> = file.imports.iter().map(|i| i.module.as_str()).collect();
    let payload = object(json!({
        "path": path,
        "filename": filename,
        "language": language,
        "imports": imports,
        "symbols": top_level,
        "blob": blob,
        "chunk_id": outline.map(|c| c.id.clone()),
        "kind": Kind::File,
        "start_line": 1,
        "end_line": end_line,
        "content": outline.map(|c| c.content.clone()).unwrap_or_else(|| text.clone()),
    }));
    doc(Collection::Files, point_id_of(&[path]), text, payload);
    docs
}

/// The payload of a definition's point; `chunk` is its own chunk (for a
/// class, its outline).
fn symbol_payload(path: &str, language: &str, sym: &Symbol, chunk: Option<&Chunk>) -> Map<String, Value> {
    let source = chunk.map(|c| c.content.as_str()).unwrap_or("");
    object(json!({
        "path": path,
        "name": sym.name,
        // Case-insensitive name lookups by payload filter (server-only queries).
        "name_lower": sym.name.to_lowercase(),
        "qualified_name": sym.qualified_name,
        "kind": sym.kind.as_str(),
        "parent": sym.parent,
        "signature": sym.signature,
        "doc": sym.doc,
        "language": language,
        "start_line": sym.span.start_line,
        "end_line": sym.span.end_line,
        "complexity": complexity(source),
        "chunk_id": chunk.map(|c| c.id.clone()),
        // Names it calls and extends, by last segment, lowercased: a
        // server without the local graph answers callers, callees and
        // implementers by payload filters on them.
        "calls": last_segments(&sym.calls),
        "bases": last_segments(&sym.bases),
    }))
}

/// Most names of calls kept per symbol.
const MAX_CALLS: usize = 200;

/// `self.session.send` → `send`; lowercased, sorted, without repeats.
fn last_segments(names: &[String]) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = names
        .iter()
        .map(|n| crate::analysis::name::own_part(n))
        .map(|s| s.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')).to_lowercase())
        .filter(|s| !s.is_empty())
        .collect();
    set.into_iter().take(MAX_CALLS).collect()
}

fn object(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m.into_iter().filter(|(_, v)| !v.is_null()).collect(),
        _ => Map::new(),
    }
}

/// About four characters per word-piece token, for code and prose alike.
fn estimate_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// Cyclomatic complexity, estimated from the branch points in the source.
pub fn complexity(source: &str) -> usize {
    let mut n = 1;
    for word in source.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if matches!(word, "if" | "elif" | "for" | "while" | "case" | "catch" | "except" | "and" | "or") {
            n += 1;
        }
    }
    n + source.matches("&&").count() + source.matches("||").count() + source.matches(" ? ").count()
}

fn first_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// The points of PATTERNS: one per convention. The embedded text is the
/// description and an example, without counts or paths, so it stays stable
/// (and cached) while the counts move.
pub fn pattern_documents(patterns: &[crate::analysis::patterns::Pattern], model_id: &str) -> Vec<Doc> {
    patterns
        .iter()
        .filter_map(|p| {
            let example = p.examples.first()?;
            let text = crate::analysis::patterns::embed_text(p);
            let payload = object(json!({
                "path": example.path,
                "key": p.key,
                "category": p.category,
                "description": p.description,
                "count": p.count,
                "files": p.files,
                "kind": Kind::Pattern,
                "symbol": p.key,
                "language": example.language,
                "start_line": example.start_line,
                "end_line": example.end_line,
                "content": example.snippet,
                "examples": p.examples,
            }));
            Some(Doc { collection: Collection::Patterns, id: point_id_of(&["pattern", &p.key]), key: vector_key(model_id, &text), text, payload })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_bounded_and_keys_depend_on_model_and_text() {
        let chunk = Chunk {
            id: "0".repeat(32),
            content_hash: "1".repeat(32),
            kind: ChunkKind::Function,
            symbol: Some("Session.send".into()),
            symbols: vec!["Session.send".into()],
            parent_id: None,
            start_line: 1,
            end_line: 2,
            start_byte: 0,
            end_byte: 10,
            content: "x".repeat(5000),
        };
        let t = chunk_text("src/session.py", &chunk, None);
        assert!(t.starts_with("symbol: Session.send (function)\n"));
        assert!(t.chars().count() <= MAX_CHARS);
        assert!(chunk_text("tests/test_session.py", &chunk, None).chars().count() <= TEST_CHARS);
        let outline = Chunk { kind: ChunkKind::Class, ..chunk.clone() };
        assert!(chunk_text("src/session.py", &outline, None).chars().count() <= OUTLINE_CHARS);
        assert_ne!(vector_key("a", "t"), vector_key("b", "t"));
        assert_ne!(vector_key("a", "t"), vector_key("a", "u"));
        assert_eq!(vector_key("a", "t"), vector_key("a", "t"));
    }

    /// Recipe 2: what each kind of code costs, and what is embedded once.
    #[test]
    fn each_text_is_embedded_once_and_tests_by_their_header() {
        let body = "    x = 1\n".repeat(200);
        let src = format!("def send(request):\n    \"\"\"Send a prepared request.\"\"\"\n{body}\n\nclass Session:\n    def close(self):\n        pass\n");
        let docs_of = |path: &str| {
            let file = crate::analysis::chunk::chunk_file(path, src.as_bytes(), &Default::default());
            documents(path, "0", &file, "m")
        };
        let text_of = |docs: &[Doc], collection: Collection, name: &str| {
            let key = if collection == Collection::Symbols { "qualified_name" } else { "symbol" };
            docs.iter().find(|d| d.collection == collection && d.payload.get(key).and_then(|v| v.as_str()) == Some(name)).map(|d| d.text.clone())
        };
        let code = docs_of("src/session.py");
        let send = text_of(&code, Collection::Semantic, "send").expect("a chunk of send");
        // The docstring is in the body: embedded once, in its place.
        assert_eq!(send.matches("Send a prepared request.").count(), 1, "{send}");
        assert!(!send.contains("doc: "), "{send}");
        assert!(send.chars().count() > OUTLINE_CHARS && send.chars().count() <= MAX_CHARS);
        // Outside tests a long definition's header is a second vector of its
        // own; a short one's is its chunk's.
        assert_ne!(text_of(&code, Collection::Symbols, "send"), Some(send));
        assert_eq!(text_of(&code, Collection::Symbols, "Session.close"), text_of(&code, Collection::Semantic, "Session.close"));
        assert!(text_of(&code, Collection::Symbols, "Session.close").is_some());

        let tests = docs_of("tests/test_session.py");
        let send = text_of(&tests, Collection::Semantic, "send").expect("a chunk of send");
        assert!(send.chars().count() <= TEST_CHARS, "{send}");
        assert!(send.starts_with("symbol: send (function)\n"));
        // In test code the header and the chunk are one text: one vector.
        assert_eq!(text_of(&tests, Collection::Symbols, "send"), Some(send));
        let outline = tests.iter().find(|d| d.collection == Collection::Files).expect("the file's outline");
        assert!(outline.text.chars().count() <= OUTLINE_CHARS);
    }
}
