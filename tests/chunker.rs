//! The chunker on realistic source files: symbols and their ranges, the
//! file ▶ class ▶ method chunk tree, class outlines, oversized definitions,
//! merged module code, syntax errors, and the non-code paths (Markdown,
//! plain text, files over the parse cap).
//!
//! Fixtures live in `tests/fixtures/chunker/`. Line numbers are 1-based and
//! inclusive, as in [`git_rag::analysis::parse::Span`].

use std::collections::HashSet;

use git_rag::analysis::chunk::{self, Chunk, ChunkKind, ChunkOptions, FileChunks};
use git_rag::analysis::lang::Language;
use git_rag::analysis::parse::{Symbol, SymbolKind};

const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/chunker");

/// Every fixture, with the language it must be detected as.
const FIXTURES: &[(&str, Language)] = &[
    ("http_session.py", Language::Python),
    ("status_codes.py", Language::Python),
    ("broken_settings.py", Language::Python),
    ("router.js", Language::JavaScript),
    ("middleware.js", Language::JavaScript),
    ("store.mjs", Language::JavaScript),
    ("TodoList.jsx", Language::JavaScript),
    ("broken_queue.js", Language::JavaScript),
    ("cache.ts", Language::TypeScript),
    ("broken_client.ts", Language::TypeScript),
    ("UserTable.tsx", Language::Tsx),
    ("broken_panel.tsx", Language::Tsx),
    ("GUIDE.md", Language::Markdown),
    ("NOTES.txt", Language::Text),
];

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURE_DIR}/{name}")).unwrap_or_else(|e| panic!("fixture {name}: {e}"))
}

fn small(budget: usize) -> ChunkOptions {
    ChunkOptions { budget, ..Default::default() }
}

fn chunk_fixture(name: &str, opts: &ChunkOptions) -> (Vec<u8>, FileChunks) {
    let data = fixture(name);
    let fc = chunk::chunk_file(name, &data, opts);
    (data, fc)
}

// ---- helpers ----------------------------------------------------------------

use crate::common::line_count;

/// The text of 1-based line `n`, without its newline.
fn line(data: &[u8], n: usize) -> &str {
    let text = std::str::from_utf8(data).expect("fixtures are UTF-8");
    text.lines().nth(n - 1).unwrap_or_else(|| panic!("no line {n}"))
}

fn is_blank_line(data: &[u8], n: usize) -> bool {
    line(data, n).trim().is_empty()
}

/// 1-based line of a byte offset.
fn line_of_byte(data: &[u8], byte: usize) -> usize {
    1 + data[..byte].iter().filter(|&&b| b == b'\n').count()
}

/// 1-based line of the last byte of `start..end`, trailing newlines excluded.
fn end_line_of(data: &[u8], start: usize, end: usize) -> usize {
    let mut last = end;
    while last > start + 1 && matches!(data[last - 1], b'\n' | b'\r') {
        last -= 1;
    }
    line_of_byte(data, last.max(start + 1) - 1)
}

fn symbol<'a>(fc: &'a FileChunks, qualified: &str) -> &'a Symbol {
    let found: Vec<&Symbol> = fc.symbols.iter().filter(|s| s.qualified_name == qualified).collect();
    assert_eq!(found.len(), 1, "expected exactly one symbol {qualified:?}, symbols are {:?}", names(fc));
    found[0]
}

fn names(fc: &FileChunks) -> Vec<&str> {
    fc.symbols.iter().map(|s| s.qualified_name.as_str()).collect()
}

/// The chunk a definition owns (not its blocks, not a merged code chunk).
fn chunk_of<'a>(fc: &'a FileChunks, qualified: &str) -> &'a Chunk {
    let found: Vec<&Chunk> =
        fc.chunks.iter().filter(|c| c.symbol.as_deref() == Some(qualified) && !matches!(c.kind, ChunkKind::Block | ChunkKind::Code)).collect();
    assert_eq!(found.len(), 1, "expected exactly one chunk for {qualified:?}, got {:#?}", found);
    found[0]
}

fn by_id<'a>(fc: &'a FileChunks, id: &str) -> &'a Chunk {
    fc.chunks.iter().find(|c| c.id == id).unwrap_or_else(|| panic!("no chunk with id {id}"))
}

fn file_chunk(fc: &FileChunks) -> &Chunk {
    let files: Vec<&Chunk> = fc.chunks.iter().filter(|c| c.kind == ChunkKind::File).collect();
    assert_eq!(files.len(), 1, "one file chunk");
    files[0]
}

fn of_kind(fc: &FileChunks, kind: ChunkKind) -> Vec<&Chunk> {
    fc.chunks.iter().filter(|c| c.kind == kind).collect()
}

fn slice(data: &[u8], c: &Chunk) -> String {
    String::from_utf8_lossy(&data[c.start_byte..c.end_byte]).into_owned()
}

/// Asserts (qualified name, kind, first line, last line) of the listed symbols.
fn assert_symbols(fc: &FileChunks, expected: &[(&str, SymbolKind, usize, usize)]) {
    for &(qualified, kind, start, end) in expected {
        let s = symbol(fc, qualified);
        assert_eq!(s.kind, kind, "kind of {qualified}");
        assert_eq!((s.span.start_line, s.span.end_line), (start, end), "lines of {qualified}");
    }
}

/// Asserts that `chunks` (in order) cover `data[from..to]` byte for byte,
/// and that their line ranges take every non-blank line exactly once.
fn assert_tiles(data: &[u8], chunks: &[&Chunk], from: usize, to: usize) {
    assert!(!chunks.is_empty());
    let mut pos = from;
    for c in chunks {
        assert_eq!(c.start_byte, pos, "chunks are contiguous: {c:#?}");
        assert_eq!(c.content, slice(data, c), "content is the source text");
        pos = c.end_byte;
    }
    assert_eq!(pos, to, "chunks reach the end");
    let (first_line, last_line) = (line_of_byte(data, from), end_line_of(data, from, to));
    let text = String::from_utf8_lossy(data);
    let lines: Vec<&str> = text.lines().collect();
    let mut holders = vec![0usize; last_line + 1];
    for c in chunks {
        for h in &mut holders[c.start_line..=c.end_line] {
            *h += 1;
        }
    }
    for n in first_line..=last_line {
        if lines[n - 1].trim().is_empty() {
            assert!(holders[n] <= 1, "blank line {n} is in {} chunks", holders[n]);
        } else {
            assert_eq!(holders[n], 1, "line {n} ({:?}) is in {} chunks", lines[n - 1], holders[n]);
        }
    }
    for w in chunks.windows(2) {
        assert!(w[0].end_line < w[1].start_line, "chunks in order: {}-{} then {}-{}", w[0].start_line, w[0].end_line, w[1].start_line, w[1].end_line);
    }
}

/// Properties every chunk of every file must have.
fn assert_well_formed(name: &str, data: &[u8], fc: &FileChunks, opts: &ChunkOptions) {
    let lines = line_count(data);
    assert!(!fc.chunks.is_empty(), "{name}: no chunks");
    let mut ids = HashSet::new();
    for c in &fc.chunks {
        let what = format!("{name}: {:?} {:?} {}-{}", c.kind, c.symbol, c.start_line, c.end_line);
        assert!(ids.insert(c.id.as_str()), "{what}: duplicate id {}", c.id);
        assert!(!c.content.trim().is_empty(), "{what}: empty content");
        assert!(1 <= c.start_line && c.start_line <= c.end_line && c.end_line <= lines, "{what}: lines outside 1..={lines}");
        assert!(c.start_byte < c.end_byte && c.end_byte <= data.len(), "{what}: bytes outside the file");
        assert_eq!(c.start_line, line_of_byte(data, c.start_byte), "{what}: start_line does not match start_byte");
        assert_eq!(c.end_line, end_line_of(data, c.start_byte, c.end_byte), "{what}: end_line does not match end_byte");
        if let Some(p) = &c.parent_id {
            let parent = by_id(fc, p);
            assert!(
                parent.start_byte <= c.start_byte && c.end_byte <= parent.end_byte,
                "{what}: outside its parent {:?} {:?} {}-{}",
                parent.kind,
                parent.symbol,
                parent.start_line,
                parent.end_line
            );
        }
        let text = slice(data, c);
        match c.kind {
            // Outlines and the file summary are not verbatim source.
            ChunkKind::File | ChunkKind::Class | ChunkKind::Interface | ChunkKind::Enum => {}
            // Definitions: verbatim when they fit, else a summary (their head).
            ChunkKind::Function | ChunkKind::Method | ChunkKind::Type => {
                if chunk::non_ws_len(text.as_bytes()) <= opts.budget {
                    assert_eq!(c.content, text, "{what}: content is not the source of its range");
                } else {
                    assert!(text.starts_with(&c.content), "{what}: summary is not a prefix of the source");
                    assert!(chunk::non_ws_len(c.content.as_bytes()) <= opts.budget, "{what}: summary over budget");
                }
            }
            // Everything else is a verbatim range (sizes are checked in the tests
            // about each kind).
            _ => assert_eq!(c.content, text, "{what}: content is not the source of its range"),
        }
    }
    if fc.language == Language::Markdown || fc.language == Language::Text || data.len() > opts.max_parse_bytes {
        assert!(of_kind(fc, ChunkKind::File).is_empty(), "{name}: unparsed files have no file chunk");
    } else {
        let file = file_chunk(fc);
        assert_eq!(file.parent_id, None);
        assert!(file.content.starts_with(&format!("// file: {name}\n")), "{name}: file chunk header");
        for c in &fc.chunks {
            if c.kind != ChunkKind::File {
                assert!(c.parent_id.is_some(), "{name}: {:?} {:?} has no parent", c.kind, c.symbol);
            }
        }
    }
}

// ---- every fixture --------------------------------------------------------------

#[test]
fn fixtures_have_realistic_sizes() {
    for &(name, _) in FIXTURES {
        if name.ends_with(".md") || name.ends_with(".txt") {
            continue;
        }
        let n = line_count(&fixture(name));
        assert!((60..=200).contains(&n), "{name} has {n} lines");
    }
}

#[test]
fn every_fixture_chunks_are_well_formed() {
    for opts in [ChunkOptions::default(), small(300), small(120)] {
        for &(name, language) in FIXTURES {
            let (data, fc) = chunk_fixture(name, &opts);
            assert_eq!(fc.language, language, "{name}");
            assert_well_formed(name, &data, &fc, &opts);
        }
    }
}

#[test]
fn chunk_ids_are_unique_and_stable() {
    for opts in [ChunkOptions::default(), small(300)] {
        for &(name, _) in FIXTURES {
            let data = fixture(name);
            let a = chunk::chunk_file(name, &data, &opts);
            let b = chunk::chunk_file(name, &data, &opts);
            assert_eq!(a.chunks, b.chunks, "{name}: chunking twice differs");
            assert_eq!(a.symbols, b.symbols, "{name}: symbols differ");
            assert_eq!(a.imports, b.imports, "{name}: imports differ");
            let ids: HashSet<&str> = a.chunks.iter().map(|c| c.id.as_str()).collect();
            assert_eq!(ids.len(), a.chunks.len(), "{name}: ids are not unique");
            // The id covers the path; the content hash does not.
            let moved = chunk::chunk_file(&format!("moved/{name}"), &data, &opts);
            assert_eq!(moved.chunks.len(), a.chunks.len());
            for (x, y) in a.chunks.iter().zip(&moved.chunks) {
                if x.kind != ChunkKind::File {
                    assert_eq!(x.content_hash, y.content_hash, "{name}: content hash depends on the path");
                }
                assert_ne!(x.id, y.id, "{name}: id does not depend on the path");
            }
        }
    }
}

#[test]
fn every_definition_owns_one_chunk_in_the_tree() {
    for &(name, _) in FIXTURES {
        let (_, fc) = chunk_fixture(name, &ChunkOptions::default());
        let file_id = fc.chunks.iter().find(|c| c.kind == ChunkKind::File).map(|c| c.id.clone());
        for s in &fc.symbols {
            if !s.kind.owns_chunk() {
                // Variables and constants are listed by the code chunk that holds them.
                assert!(
                    fc.chunks.iter().any(|c| c.kind == ChunkKind::Code && c.symbols.contains(&s.qualified_name)),
                    "{name}: {} is in no code chunk",
                    s.qualified_name
                );
                continue;
            }
            let c = chunk_of(&fc, &s.qualified_name);
            assert_eq!(c.kind, ChunkKind::from_symbol(s.kind), "{name}: chunk kind of {}", s.qualified_name);
            assert_eq!(c.symbols, vec![s.qualified_name.clone()]);
            assert_eq!(c.start_line, s.chunk_start().1, "{name}: chunk of {} starts at its doc comment or itself", s.qualified_name);
            assert_eq!(c.end_line, s.span.end_line, "{name}: chunk of {} ends with it", s.qualified_name);
            // The parent chunk is the enclosing definition's, or the file's.
            let expected_parent = match &s.parent {
                Some(p) if symbol(&fc, p).kind.owns_chunk() => Some(chunk_of(&fc, p).id.clone()),
                _ => file_id.clone(),
            };
            assert_eq!(c.parent_id, expected_parent, "{name}: parent of {}", s.qualified_name);
            if s.kind == SymbolKind::Method {
                let class = by_id(&fc, c.parent_id.as_deref().unwrap());
                assert_eq!(class.kind, ChunkKind::Class, "{name}: method {} hangs off a class chunk", s.qualified_name);
                assert_eq!(class.symbol, s.parent, "{name}: method {} hangs off its own class", s.qualified_name);
            }
        }
    }
}

// ---- Python -------------------------------------------------------------------------

#[test]
fn python_nested_classes_and_decorators() {
    let (data, fc) = chunk_fixture("http_session.py", &ChunkOptions::default());
    assert!(!fc.has_errors);
    use SymbolKind::*;
    let got: Vec<(&str, SymbolKind)> = fc.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind)).collect();
    assert_eq!(
        got,
        vec![
            ("log", Variable),
            ("DEFAULT_TIMEOUT", Const),
            ("MAX_RETRIES", Const),
            ("RETRY_STATUSES", Const),
            ("TransportError", Class),
            ("retry", Function),
            ("retry.decorate", Function),
            ("retry.decorate.wrapper", Function),
            ("traced", Function),
            ("traced.wrapper", Function),
            ("Response", Class),
            ("Response.ok", Method),
            ("Response.json", Method),
            ("Session", Class),
            ("Session.Settings", Class),
            ("Session.Settings.__init__", Method),
            ("Session.Settings.Proxy", Class),
            ("Session.Settings.Proxy.__init__", Method),
            ("Session.Settings.Proxy.applies_to", Method),
            ("Session.__init__", Method),
            ("Session.from_env", Method),
            ("Session.merge_headers", Method),
            ("Session.request", Method),
            ("Session.get", Method),
            ("Session.post", Method),
            ("Session._cookie_header", Method),
            ("Session._store_cookies", Method),
            ("fetch_json", Function),
            ("download_all", Function),
        ]
    );
    // Decorators are part of the definition: the range starts at the first one.
    assert_symbols(
        &fc,
        &[
            ("Response", Class, 52, 63),                  // @dataclass
            ("Response.ok", Method, 58, 60),              // @property
            ("Session.from_env", Method, 91, 94),         // @classmethod
            ("Session.request", Method, 103, 113),        // @traced + @retry(times=5, backoff=0.1)
            ("fetch_json", Function, 132, 136),           // @traced + @retry(times=2, backoff=1.0)
            ("retry.decorate.wrapper", Function, 25, 36), // @wraps(fn)
            ("Session", Class, 66, 129),
            ("Session.Settings", Class, 69, 83),
            ("Session.Settings.Proxy", Class, 78, 83),
            ("Session.Settings.Proxy.applies_to", Method, 82, 83),
            ("download_all", Function, 139, 166),
        ],
    );
    assert_eq!(line(&data, 103).trim(), "@traced");
    assert_eq!(line(&data, 104).trim(), "@retry(times=5, backoff=0.1)");

    let request = chunk_of(&fc, "Session.request");
    assert_eq!((request.start_line, request.end_line), (103, 113));
    assert!(
        request.content.starts_with("@traced\n    @retry(times=5, backoff=0.1)\n    def request(self, method, path, headers=None, body=None):\n"),
        "stacked decorators lead the method chunk: {}",
        request.content
    );
    let fetch = chunk_of(&fc, "fetch_json");
    assert!(fetch.content.starts_with("@traced\n@retry(times=2, backoff=1.0)\ndef fetch_json(session, path):"));
    assert!(fetch.content.ends_with("return session.get(path).json()"));

    // The signature is the definition line without decorators; a decorator
    // with arguments is a call made by the decorated definition.
    let req = symbol(&fc, "Session.request");
    assert_eq!(req.signature, "def request(self, method, path, headers=None, body=None)");
    assert!(req.calls.contains(&"retry".to_string()), "calls: {:?}", req.calls);
    assert!(req.calls.contains(&"urljoin".to_string()));
    assert_eq!(symbol(&fc, "Session").doc.as_deref(), Some("Keeps cookies and settings across requests."));
    assert_eq!(symbol(&fc, "Session.Settings.Proxy").parent.as_deref(), Some("Session.Settings"));

    // The chunk tree follows the nesting: file ▶ Session ▶ Settings ▶ Proxy ▶ applies_to.
    let file = file_chunk(&fc);
    let session = chunk_of(&fc, "Session");
    let settings = chunk_of(&fc, "Session.Settings");
    let proxy = chunk_of(&fc, "Session.Settings.Proxy");
    let applies_to = chunk_of(&fc, "Session.Settings.Proxy.applies_to");
    assert_eq!(session.parent_id.as_ref(), Some(&file.id));
    assert_eq!(settings.parent_id.as_ref(), Some(&session.id));
    assert_eq!(proxy.parent_id.as_ref(), Some(&settings.id));
    assert_eq!(applies_to.parent_id.as_ref(), Some(&proxy.id));
    assert_eq!(applies_to.kind, ChunkKind::Method);
    assert_eq!(applies_to.content, "def applies_to(self, host):\n                return urlsplit(self.url).hostname != host");
    // Functions nested in functions hang off their enclosing function.
    assert_eq!(chunk_of(&fc, "retry.decorate.wrapper").parent_id.as_ref(), Some(&chunk_of(&fc, "retry.decorate").id));
    assert_eq!(chunk_of(&fc, "retry.decorate.wrapper").kind, ChunkKind::Function);

    // The file chunk lists imports and an indented outline.
    assert!(file.content.contains("from urllib.parse import urljoin, urlsplit\n"), "{}", file.content);
    assert!(file.content.contains("\n  def request(self, method, path, headers=None, body=None)\n"), "{}", file.content);
    let modules: Vec<&str> = fc.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(modules, ["json", "logging", "time", "dataclasses", "functools", "urllib.parse", "sys"]);
}

#[test]
fn python_class_chunk_is_an_outline() {
    let (_, fc) = chunk_fixture("http_session.py", &ChunkOptions::default());
    let session = chunk_of(&fc, "Session");
    assert_eq!(session.kind, ChunkKind::Class);
    assert_eq!((session.start_line, session.end_line), (66, 129));
    let outline = &session.content;
    assert!(outline.starts_with("class Session:\n    \"\"\"Keeps cookies and settings across requests.\"\"\"\n"), "{outline}");
    // Every member's signature (with its decorators) is there, its body is not.
    for sig in [
        "    class Settings:\n        ...\n",
        "    def __init__(self, base_url, transport):\n        ...\n",
        "    @classmethod\n    def from_env(cls, environ, transport):\n        ...\n",
        "    @staticmethod\n    def merge_headers(*layers):\n        ...\n",
        "    @traced\n    @retry(times=5, backoff=0.1)\n    def request(self, method, path, headers=None, body=None):\n        ...\n",
        "    def get(self, path, **kwargs):\n        ...\n",
        "    def post(self, path, payload, **kwargs):\n        ...\n",
        "    def _cookie_header(self):\n        ...\n",
        "    def _store_cookies(self, response):\n        ...",
    ] {
        assert!(outline.contains(sig), "outline lacks {sig:?}:\n{outline}");
    }
    for body in ["urljoin(self.base_url, path)", "self.cookies[name] =", "timeout = DEFAULT_TIMEOUT", "class Proxy", "environ.get("] {
        assert!(!outline.contains(body), "outline has a member body ({body:?}):\n{outline}");
    }
    // A nested class has its own outline, fields kept.
    let settings = chunk_of(&fc, "Session.Settings");
    assert!(settings.content.contains("timeout = DEFAULT_TIMEOUT"), "{}", settings.content);
    assert!(settings.content.contains("def __init__(self, verify=True, proxies=None):\n            ...\n"), "{}", settings.content);
    assert!(settings.content.contains("class Proxy:\n            ..."), "{}", settings.content);
    assert!(!settings.content.contains("self.proxies"), "{}", settings.content);
    // Dataclass fields stay in the outline.
    let response = chunk_of(&fc, "Response");
    assert!(response.content.starts_with("@dataclass\nclass Response:\n    status: int\n"), "{}", response.content);
    assert!(response.content.contains("    @property\n    def ok(self):\n        ...\n"), "{}", response.content);
    assert!(!response.content.contains("json.loads"));
}

#[test]
fn python_module_statements_merge_into_code_chunks() {
    let (data, fc) = chunk_fixture("http_session.py", &ChunkOptions::default());
    let code = of_kind(&fc, ChunkKind::Code);
    let ranges: Vec<(usize, usize)> = code.iter().map(|c| (c.start_line, c.end_line)).collect();
    // The module docstring, imports and constants before the first class are
    // one chunk; the `__main__` block after the last function is another.
    assert_eq!(ranges, vec![(1, 14), (169, 173)]);
    assert_eq!(code[0].symbols, ["log", "DEFAULT_TIMEOUT", "MAX_RETRIES", "RETRY_STATUSES"]);
    assert_eq!(code[0].symbol.as_deref(), Some("log"));
    assert!(code[0].content.contains("from urllib.parse import urljoin, urlsplit"));
    assert!(code[1].content.starts_with("if __name__ == \"__main__\":"));
    for c in &code {
        assert!(chunk::non_ws_len(c.content.as_bytes()) <= 2000);
        assert_eq!(c.parent_id.as_ref(), Some(&file_chunk(&fc).id));
    }
    // With a small budget the same statements are still merged greedily: no
    // two neighbouring pieces would have fitted together.
    let budget = 120;
    let (_, fc) = chunk_fixture("http_session.py", &small(budget));
    let head: Vec<&Chunk> = fc.chunks.iter().filter(|c| c.kind == ChunkKind::Code && c.end_line <= 14).collect();
    assert!(head.len() >= 2, "{head:#?}");
    assert!(head.len() < 10, "statements were merged: {head:#?}");
    for c in &head {
        assert!(chunk::non_ws_len(c.content.as_bytes()) <= budget, "over budget: {c:#?}");
    }
    for w in head.windows(2) {
        let together = chunk::non_ws_len(w[0].content.as_bytes()) + chunk::non_ws_len(w[1].content.as_bytes());
        assert!(together > budget, "{:?} and {:?} would have fitted in one chunk", w[0].content, w[1].content);
    }
    // The pieces still hold every statement of the prelude.
    let joined: String = head.iter().map(|c| c.content.as_str()).collect::<Vec<_>>().join("\n");
    for n in 1..=14 {
        let l = line(&data, n).trim();
        if !l.is_empty() {
            assert!(joined.contains(l), "line {n} {l:?} is in no code chunk");
        }
    }
    let listed: Vec<&String> = head.iter().flat_map(|c| c.symbols.iter()).collect();
    assert_eq!(listed, ["log", "DEFAULT_TIMEOUT", "MAX_RETRIES", "RETRY_STATUSES"]);
}

#[test]
fn oversized_function_gets_a_summary_and_blocks() {
    let budget = 300;
    let (data, fc) = chunk_fixture("http_session.py", &small(budget));
    let text = String::from_utf8(data.clone()).unwrap();
    let summary = chunk_of(&fc, "download_all");
    assert_eq!(summary.kind, ChunkKind::Function);
    assert_eq!((summary.start_line, summary.end_line), (139, 166), "the summary spans the whole function");
    assert!(chunk::non_ws_len(&data[summary.start_byte..summary.end_byte]) > budget, "fixture function is oversized");
    assert!(summary.content.starts_with("def download_all(session, paths, retries=MAX_RETRIES):\n"));
    assert!(chunk::non_ws_len(summary.content.as_bytes()) <= budget);
    assert!(text[summary.start_byte..summary.end_byte].starts_with(&summary.content));

    let blocks: Vec<&Chunk> = fc.chunks.iter().filter(|c| c.parent_id.as_deref() == Some(summary.id.as_str())).collect();
    assert!(blocks.len() >= 3, "{blocks:#?}");
    for b in &blocks {
        assert_eq!(b.kind, ChunkKind::Block);
        assert_eq!(b.symbol.as_deref(), Some("download_all"));
        assert!(b.symbols.is_empty());
        assert!(140 <= b.start_line && b.end_line <= 166, "block {}-{} outside the body", b.start_line, b.end_line);
        assert!(summary.start_byte < b.start_byte && b.end_byte <= summary.end_byte);
        assert!(chunk::non_ws_len(b.content.as_bytes()) <= budget, "block over budget: {b:#?}");
    }
    for w in blocks.windows(2) {
        assert!(w[0].end_byte <= w[1].start_byte, "blocks in order, not overlapping");
    }
    // Together the blocks hold the whole body.
    for n in 140..=166 {
        if !is_blank_line(&data, n) {
            assert!(blocks.iter().any(|b| b.start_line <= n && n <= b.end_line), "body line {n} {:?} is in no block", line(&data, n));
        }
    }
    assert!(blocks[0].content.starts_with("\"\"\"Fetches every path"));
    assert!(blocks.last().unwrap().content.ends_with("return results"));

    // The same for a method over the budget: its blocks point at the method chunk.
    let request = chunk_of(&fc, "Session.request");
    assert_eq!(request.kind, ChunkKind::Method);
    assert_eq!(request.parent_id.as_ref(), Some(&chunk_of(&fc, "Session").id));
    let blocks: Vec<&Chunk> = fc.chunks.iter().filter(|c| c.parent_id.as_deref() == Some(request.id.as_str())).collect();
    assert!(!blocks.is_empty());
    for b in &blocks {
        assert_eq!(b.kind, ChunkKind::Block);
        assert!(106 <= b.start_line && b.end_line <= 113, "block {}-{} outside the body of request", b.start_line, b.end_line);
    }

    // And for a JavaScript arrow assigned to `exports.json`.
    let (_, fc) = chunk_fixture("middleware.js", &small(budget));
    let json = chunk_of(&fc, "exports.json");
    let blocks: Vec<&Chunk> = fc.chunks.iter().filter(|c| c.parent_id.as_deref() == Some(json.id.as_str())).collect();
    assert!(!blocks.is_empty());
    for b in &blocks {
        assert_eq!(b.kind, ChunkKind::Block);
        assert!(json.start_line < b.start_line && b.end_line < json.end_line);
        assert!(chunk::non_ws_len(b.content.as_bytes()) <= budget);
    }
}

#[test]
fn oversized_module_constant_is_split_into_code_pieces() {
    let budget = 300;
    let (data, fc) = chunk_fixture("status_codes.py", &small(budget));
    assert_symbols(&fc, &[("REASONS", SymbolKind::Const, 5, 48), ("RETRYABLE", SymbolKind::Const, 50, 50)]);
    let file = file_chunk(&fc);
    let pieces: Vec<&Chunk> = fc.chunks.iter().filter(|c| c.kind == ChunkKind::Code && c.start_line >= 5 && c.end_line <= 48).collect();
    assert!(pieces.len() >= 3, "{pieces:#?}");
    for p in &pieces {
        assert_eq!(p.parent_id.as_ref(), Some(&file.id));
    }
    // Every entry of the table is in exactly one piece.
    for n in 6..=47 {
        let holders = pieces.iter().filter(|p| p.start_line <= n && n <= p.end_line).count();
        assert_eq!(holders, 1, "entry on line {n} {:?}", line(&data, n));
    }
}

/// Regression: when a statement over the budget is split along its children,
/// a run is measured as the text it spans (separators between children
/// included), so no piece goes over the budget.
#[test]
fn split_statement_pieces_stay_within_budget() {
    let mut problems = Vec::new();
    // Minimal case: twelve 10-digit numbers, budget 100.
    let fc = chunk::chunk_file("ids.py", IDS_PY.as_bytes(), &small(100));
    for c in of_kind(&fc, ChunkKind::Code) {
        let size = chunk::non_ws_len(c.content.as_bytes());
        if size > 100 {
            problems.push(format!("ids.py (budget 100): code chunk {:?} has {size} non-whitespace chars", c.content));
        }
    }
    let budget = 300;
    let (_, fc) = chunk_fixture("status_codes.py", &small(budget));
    for c in &fc.chunks {
        let size = chunk::non_ws_len(c.content.as_bytes());
        if matches!(c.kind, ChunkKind::Code | ChunkKind::Block) && size > budget {
            problems.push(format!("status_codes.py (budget {budget}): {:?} chunk {}-{} has {size} non-whitespace chars", c.kind, c.start_line, c.end_line));
        }
    }
    assert!(problems.is_empty(), "chunks over the budget:\n{}", problems.join("\n"));
}

const IDS_PY: &str =
    "IDS = [1000000001, 1000000002, 1000000003, 1000000004, 1000000005, 1000000006, 1000000007, 1000000008, 1000000009, 1000000010, 1000000011, 1000000012]\n";

/// Regression: a module-level constant over the budget is split into pieces,
/// and the first piece lists it in `symbols`, so the symbol stays findable.
#[test]
fn split_constant_is_still_listed_by_a_chunk() {
    let listing = |fc: &FileChunks| fc.chunks.iter().map(|c| (c.kind, c.start_line, c.end_line, c.symbols.clone())).collect::<Vec<_>>();
    let mut problems = Vec::new();
    let fc = chunk::chunk_file("ids.py", IDS_PY.as_bytes(), &small(100));
    assert_eq!(names(&fc), ["IDS"]);
    if !fc.chunks.iter().any(|c| c.symbols.iter().any(|s| s == "IDS")) {
        problems.push(format!("ids.py (budget 100): no chunk lists IDS: {:?}", listing(&fc)));
    }
    let (_, fc) = chunk_fixture("status_codes.py", &small(300));
    if !fc.chunks.iter().any(|c| c.symbols.iter().any(|s| s == "REASONS")) {
        problems.push(format!("status_codes.py (budget 300): no chunk lists REASONS: {:?}", listing(&fc)));
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---- JavaScript -----------------------------------------------------------------

#[test]
fn javascript_commonjs_exports() {
    let (data, fc) = chunk_fixture("router.js", &ChunkOptions::default());
    use SymbolKind::*;
    let got: Vec<(&str, SymbolKind)> = fc.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind)).collect();
    // Anonymous callbacks (`(_, key) => …`, `(key, i) => …`, `(req, res) => …`)
    // are not symbols; named definitions inside them are.
    assert_eq!(
        got,
        vec![
            ("http", Const),
            ("METHODS", Const),
            ("routeCount", Variable),
            ("compilePath", Function),
            ("Route", Function),
            ("Route.prototype.match", Function),
            ("Router", Class),
            ("Router.constructor", Method),
            ("Router.route", Method),
            ("Router.use", Method),
            ("Router.handle", Method),
            ("Router.handle.next", Function),
            ("Router.prototype[method]", Function),
            ("runChain", Function),
            ("runChain.step", Function),
            ("createServer", Function),
            ("module.exports", Function),
            ("module.exports.Router", Variable),
            ("module.exports.Route", Variable),
            ("module.exports.createServer", Variable),
        ]
    );
    assert_symbols(
        &fc,
        &[
            ("Route.prototype.match", Function, 33, 46),
            ("Router.prototype[method]", Function, 87, 89),
            ("module.exports", Function, 117, 119),
            ("module.exports.Router", Variable, 121, 121),
        ],
    );
    // `module.exports = function createRouter…`: the assignment target is part of the chunk.
    let exported = chunk_of(&fc, "module.exports");
    assert_eq!(exported.kind, ChunkKind::Function);
    assert_eq!((exported.start_line, exported.end_line), (117, 119));
    assert!(exported.content.starts_with("module.exports = function createRouter(options) {"));
    assert_eq!(symbol(&fc, "module.exports").name, "exports");
    let match_ = chunk_of(&fc, "Route.prototype.match");
    assert!(match_.content.starts_with("Route.prototype.match = function match(method, pathname) {"));
    assert!(match_.content.ends_with("};"));
    // A method added inside a callback at module level.
    let added = chunk_of(&fc, "Router.prototype[method]");
    assert_eq!(added.parent_id.as_ref(), Some(&file_chunk(&fc).id));
    assert!(added.content.starts_with("Router.prototype[method] = function (path, ...handlers) {"));

    // Module-level statements: requires and constants in one chunk, the
    // `forEach` call in another, the `module.exports.x = …` tail in a third.
    let code: Vec<(usize, usize, Vec<String>)> = of_kind(&fc, ChunkKind::Code).iter().map(|c| (c.start_line, c.end_line, c.symbols.clone())).collect();
    assert_eq!(
        code,
        vec![
            (1, 12, vec!["http".to_string(), "METHODS".into(), "routeCount".into()]),
            (86, 90, vec![]),
            (121, 123, vec!["module.exports.Router".to_string(), "module.exports.Route".into(), "module.exports.createServer".into()]),
        ]
    );
    let modules: Vec<&str> = fc.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(modules, ["http", "url"]);
    assert_eq!(line(&data, 117), "module.exports = function createRouter(options) {");

    // `exports.x = …` with a named function, an arrow, an anonymous function, and plain values.
    let (_, fc) = chunk_fixture("middleware.js", &ChunkOptions::default());
    assert_symbols(
        &fc,
        &[
            ("DEFAULT_LIMIT", Const, 7, 7),
            ("exports.VERSION", Variable, 9, 9),
            ("exports.logger", Function, 11, 21),
            ("exports.json", Function, 23, 49),
            ("exports.cors", Function, 51, 65),
            ("isJson", Function, 67, 69),
            ("exports.isJson", Variable, 71, 71),
        ],
    );
    assert_eq!(fc.symbols.len(), 7, "no symbols for the returned middleware closures: {:?}", names(&fc));
    assert_eq!(symbol(&fc, "exports.logger").name, "logger");
    assert!(chunk_of(&fc, "exports.logger").content.starts_with("exports.logger = function logger(options) {"));
    assert!(chunk_of(&fc, "exports.json").content.starts_with("exports.json = (options = {}) => {"));
    assert!(chunk_of(&fc, "exports.cors").content.starts_with("exports.cors = function (allowed) {"));
    let code = of_kind(&fc, ChunkKind::Code);
    assert!(code.iter().any(|c| c.symbols == ["DEFAULT_LIMIT", "exports.VERSION"]), "{code:#?}");
    assert!(code.iter().any(|c| c.symbols == ["exports.isJson"] && c.content == "exports.isJson = isJson;"), "{code:#?}");
}

#[test]
fn javascript_es_module_exports() {
    let (data, fc) = chunk_fixture("store.mjs", &ChunkOptions::default());
    use SymbolKind::*;
    assert_symbols(
        &fc,
        &[
            ("INIT", Const, 6, 6),
            ("DEFAULT_STATE", Const, 8, 8),
            ("identity", Function, 10, 10),
            ("combineReducers", Function, 16, 27),
            ("applyMiddleware", Function, 29, 35),
            ("Store", Class, 37, 71),
            ("Store.constructor", Method, 41, 45),
            ("Store.state", Method, 47, 49),
            ("Store.dispatch", Method, 51, 61),
            ("Store.subscribe", Method, 63, 66),
            ("Store.fromSnapshot", Method, 68, 70),
            ("logger", Function, 73, 78),
            ("snapshotPath", Function, 80, 82),
            ("createStore", Function, 84, 86),
        ],
    );
    // `export` is part of every exported definition's range.
    for name in ["INIT", "DEFAULT_STATE", "combineReducers", "applyMiddleware", "Store", "logger", "snapshotPath", "createStore"] {
        let s = symbol(&fc, name);
        assert!(line(&data, s.span.start_line).starts_with("export "), "{name} starts at {:?}", line(&data, s.span.start_line));
        assert!(data[s.span.start_byte..].starts_with(b"export "), "{name}: span bytes start at `export`");
    }
    assert!(chunk_of(&fc, "createStore").content.starts_with("export default function createStore(reducer, initial) {"));
    assert!(chunk_of(&fc, "Store").content.starts_with("export class Store extends EventEmitter {"));
    assert!(chunk_of(&fc, "snapshotPath").content.starts_with("export function snapshotPath(dir, name) {"));
    assert_eq!(symbol(&fc, "Store").bases, ["EventEmitter"]);
    // A JSDoc comment right above a definition belongs to its chunk, not to its span.
    let combine = symbol(&fc, "combineReducers");
    assert_eq!(combine.doc_start.map(|d| d.1), Some(12));
    assert!(combine.doc.as_deref().unwrap_or("").starts_with("Builds one reducer out of a map of reducers"));
    let chunk = chunk_of(&fc, "combineReducers");
    assert_eq!((chunk.start_line, chunk.end_line), (12, 27));
    assert!(chunk.content.starts_with("/**\n * Builds one reducer"));
    assert!(chunk.content.contains("*/\nexport function combineReducers(reducers) {"));
    // Constants share a code chunk with the imports, and the doc comment is not in it.
    let code = of_kind(&fc, ChunkKind::Code);
    assert_eq!(code.len(), 1, "{code:#?}");
    assert_eq!((code[0].start_line, code[0].end_line), (1, 8));
    assert_eq!(code[0].symbols, ["INIT", "DEFAULT_STATE"]);
    let modules: Vec<(&str, Vec<String>)> = fc.imports.iter().map(|i| (i.module.as_str(), i.names.clone())).collect();
    assert_eq!(modules, vec![("node:events", vec!["EventEmitter".to_string()]), ("node:path", vec!["*".to_string()])]);
}

#[test]
fn javascript_arrow_functions() {
    use SymbolKind::*;
    let (_, fc) = chunk_fixture("router.js", &ChunkOptions::default());
    // A const arrow at module level is a function; its chunk starts at `const`.
    assert_symbols(&fc, &[("compilePath", Function, 14, 23), ("Router.handle", Method, 63, 83), ("Router.handle.next", Function, 67, 81)]);
    let compile = chunk_of(&fc, "compilePath");
    assert!(compile.content.starts_with("const compilePath = (path) => {"));
    assert!(compile.content.ends_with("};"));
    // A class field arrow is a method of the class, with its own chunk.
    let handle = chunk_of(&fc, "Router.handle");
    assert_eq!(handle.kind, ChunkKind::Method);
    assert_eq!(handle.parent_id.as_ref(), Some(&chunk_of(&fc, "Router").id));
    assert!(handle.content.starts_with("handle = (req, res, done) => {"));
    assert_eq!(symbol(&fc, "Router.handle").signature, "handle = (req, res, done)");
    // An arrow nested in it hangs off it.
    let next = chunk_of(&fc, "Router.handle.next");
    assert_eq!(next.kind, ChunkKind::Function);
    assert_eq!(next.parent_id.as_ref(), Some(&handle.id));
    // Calls made inside anonymous callbacks belong to the enclosing definition.
    let server = symbol(&fc, "createServer");
    for call in ["http.createServer", "router.handle", "res.end"] {
        assert!(server.calls.contains(&call.to_string()), "createServer calls {:?}", server.calls);
    }
    assert!(symbol(&fc, "Route.prototype.match").calls.contains(&"decodeURIComponent".to_string()));

    let (_, fc) = chunk_fixture("store.mjs", &ChunkOptions::default());
    // Curried arrows are one function; the inner arrows are anonymous.
    let logger = chunk_of(&fc, "logger");
    assert_eq!((logger.start_line, logger.end_line), (73, 78));
    assert!(logger.content.starts_with("export const logger = (api) => (next) => (action) => {"));
    assert!(!names(&fc).iter().any(|n| n.starts_with("logger.")), "{:?}", names(&fc));
    // An arrow in an object literal inside an arrow.
    assert_symbols(&fc, &[("applyMiddleware.dispatch", Function, 31, 31), ("Store.subscribe", Method, 63, 66)]);
    assert_eq!(chunk_of(&fc, "applyMiddleware.dispatch").parent_id.as_ref(), Some(&chunk_of(&fc, "applyMiddleware").id));
    let subscribe = chunk_of(&fc, "Store.subscribe");
    assert_eq!(subscribe.kind, ChunkKind::Method);
    assert_eq!(subscribe.parent_id.as_ref(), Some(&chunk_of(&fc, "Store").id));
}

#[test]
fn javascript_class_chunk_is_an_outline() {
    let (_, fc) = chunk_fixture("router.js", &ChunkOptions::default());
    let router = chunk_of(&fc, "Router");
    assert_eq!(router.kind, ChunkKind::Class);
    assert_eq!((router.start_line, router.end_line), (48, 84));
    assert_eq!(
        router.content,
        "class Router {\n  constructor(options = {}) { … }\n\n  route(method, path, ...handlers) { … }\n\n  use(...handlers) { … }\n\n  handle = (req, res, done) => { … };\n}"
    );
    for method in ["Router.constructor", "Router.route", "Router.use", "Router.handle"] {
        let c = chunk_of(&fc, method);
        assert_eq!(c.kind, ChunkKind::Method);
        assert_eq!(c.parent_id.as_ref(), Some(&router.id), "{method}");
    }

    let (_, fc) = chunk_fixture("store.mjs", &ChunkOptions::default());
    let store = &chunk_of(&fc, "Store").content;
    for sig in [
        "  #state;\n  #reducer;\n",
        "  constructor(reducer = identity, initial = DEFAULT_STATE) { … }",
        "  get state() { … }",
        "  dispatch(action) { … }",
        "  subscribe = (listener) => { … };",
        "  static fromSnapshot(json, reducer) { … }",
    ] {
        assert!(store.contains(sig), "outline lacks {sig:?}:\n{store}");
    }
    for body in ["throw new TypeError", "this.emit('change'", "JSON.parse(json)"] {
        assert!(!store.contains(body), "outline has a method body ({body:?}):\n{store}");
    }
}

#[test]
fn jsx_component_file() {
    let (_, fc) = chunk_fixture("TodoList.jsx", &ChunkOptions::default());
    assert_eq!(fc.language, Language::JavaScript);
    assert!(!fc.has_errors);
    use SymbolKind::*;
    assert_symbols(
        &fc,
        &[
            ("FILTERS", Const, 4, 8),
            ("TodoItem", Function, 10, 20),
            ("TodoItem.propTypes", Variable, 22, 26),
            ("FilterBar", Function, 28, 36),
            ("ErrorBoundary", Class, 38, 58),
            ("ErrorBoundary.getDerivedStateFromError", Method, 41, 43),
            ("ErrorBoundary.reset", Method, 45, 45),
            ("ErrorBoundary.render", Method, 47, 57),
            ("TodoList", Function, 60, 97),
            ("TodoList.submit", Function, 75, 82),
        ],
    );
    let list = chunk_of(&fc, "TodoList");
    assert!(list.content.starts_with("export default function TodoList({ initial = [] }) {"));
    assert!(list.content.contains("<FilterBar current={filter} onChange={setFilter} />"));
    assert!(chunk_of(&fc, "FilterBar").content.starts_with("export const FilterBar = ({ current, onChange }) => ("));
    // A class field ends before its `;` in the JavaScript grammar.
    assert_eq!(chunk_of(&fc, "ErrorBoundary.reset").content, "reset = () => this.setState({ error: null })");
    let outline = &chunk_of(&fc, "ErrorBoundary").content;
    assert!(outline.contains("  state = { error: null };"), "{outline}");
    assert!(outline.contains("  reset = () => { … };"), "{outline}");
    assert!(outline.contains("  render() { … }"), "{outline}");
    assert!(!outline.contains("Something went wrong"), "{outline}");
    assert_eq!(symbol(&fc, "ErrorBoundary").bases, ["React.Component"]);
}

// ---- TypeScript ---------------------------------------------------------------------

#[test]
fn typescript_declarations_and_class_decorator() {
    let (data, fc) = chunk_fixture("cache.ts", &ChunkOptions::default());
    assert!(!fc.has_errors);
    use SymbolKind::*;
    assert_symbols(
        &fc,
        &[
            ("CacheOptions", Interface, 8, 12),
            ("Loader", Type, 14, 14),
            ("EvictionReason", Enum, 16, 20),
            ("Entry", Interface, 22, 25),
            ("sealed", Function, 29, 32),
            ("memoize", Function, 34, 50),
            ("LruCache", Class, 52, 121),
            ("LruCache.constructor", Method, 57, 60),
            ("LruCache.size", Method, 62, 64),
            ("LruCache.set", Method, 82, 91),
            ("LruCache.getOrLoad", Method, 93, 101),
            ("LruCache.evict", Method, 109, 115),
            ("LruCache.onEvict", Method, 117, 120),
            ("createCache", Function, 131, 132),
        ],
    );
    for (name, kind) in
        [("CacheOptions", ChunkKind::Interface), ("Loader", ChunkKind::Type), ("EvictionReason", ChunkKind::Enum), ("Entry", ChunkKind::Interface)]
    {
        assert_eq!(chunk_of(&fc, name).kind, kind, "{name}");
    }
    // The class decorator and `export` are part of the class.
    assert_eq!(line(&data, 52), "@sealed");
    let class = chunk_of(&fc, "LruCache");
    assert_eq!((class.start_line, class.end_line), (52, 121));
    assert!(class.content.starts_with("@sealed\nexport class LruCache<K, V> extends EventEmitter {\n"), "{}", class.content);
    assert_eq!(symbol(&fc, "LruCache").bases, ["EventEmitter"]);
    assert!(chunk_of(&fc, "CacheOptions").content.starts_with("export interface CacheOptions {"));
    assert!(chunk_of(&fc, "createCache").content.starts_with("export const createCache = <K, V>("));
    // Field arrow with types is a method.
    assert!(chunk_of(&fc, "LruCache.onEvict")
        .content
        .starts_with("onEvict = (listener: (key: K, value: V, reason: EvictionReason) => void): (() => void) => {"));
    let modules: Vec<(&str, Vec<String>)> = fc.imports.iter().map(|i| (i.module.as_str(), i.names.clone())).collect();
    assert_eq!(modules, vec![("events", vec!["EventEmitter".to_string()]), ("./clock", vec!["Clock".to_string()])]);
}

#[test]
fn typescript_overloads() {
    let (data, fc) = chunk_fixture("cache.ts", &ChunkOptions::default());
    // Overload signatures create no symbols of their own.
    let all = names(&fc);
    let unique: HashSet<&&str> = all.iter().collect();
    assert_eq!(unique.len(), all.len(), "duplicate symbols: {all:?}");
    assert_eq!(all.iter().filter(|n| **n == "cacheKey").count(), 1);
    assert_eq!(all.iter().filter(|n| **n == "LruCache.get").count(), 1);

    // Top-level function: the chunk is the implementation's.
    assert_eq!(line(&data, 124), "export function cacheKey(parts: string[]): string;");
    let key = symbol(&fc, "cacheKey");
    assert_eq!(key.kind, SymbolKind::Function);
    assert_eq!((key.span.start_line, key.span.end_line), (126, 129));
    assert_eq!(key.signature, "export function cacheKey(first: string[] | string, ...rest: string[]): string");
    let chunk = chunk_of(&fc, "cacheKey");
    assert_eq!(chunk.kind, ChunkKind::Function);
    assert_eq!((chunk.start_line, chunk.end_line), (126, 129));
    assert!(chunk.content.starts_with("export function cacheKey(first: string[] | string, ...rest: string[]): string {"));
    assert!(!chunk.content.contains("cacheKey(parts: string[]): string;"));
    // The overload signatures are not lost: they are module code.
    assert!(
        of_kind(&fc, ChunkKind::Code).iter().any(|c| c.content.contains("export function cacheKey(...parts: string[]): string;")),
        "overload signatures are in no code chunk"
    );

    // Method overloads: one method chunk, the implementation's; the class outline keeps the signatures.
    let get = symbol(&fc, "LruCache.get");
    assert_eq!(get.kind, SymbolKind::Method);
    assert_eq!((get.span.start_line, get.span.end_line), (68, 80));
    let chunk = chunk_of(&fc, "LruCache.get");
    assert_eq!((chunk.start_line, chunk.end_line), (68, 80));
    assert!(chunk.content.starts_with("get(key: K, fallback?: V): V | undefined {"));
    assert_eq!(chunk.parent_id.as_ref(), Some(&chunk_of(&fc, "LruCache").id));
    let outline = &chunk_of(&fc, "LruCache").content;
    assert!(outline.contains("  get(key: K): V | undefined;\n  get(key: K, fallback: V): V;\n  get(key: K, fallback?: V): V | undefined { … }\n"), "{outline}");
}

#[test]
fn typescript_class_chunk_is_an_outline() {
    let (_, fc) = chunk_fixture("cache.ts", &ChunkOptions::default());
    let outline = &chunk_of(&fc, "LruCache").content;
    for part in [
        "  private readonly entries = new Map<K, Entry<V>>();\n  private readonly clock: Clock;\n",
        "  constructor(private readonly options: CacheOptions) { … }",
        "  get size(): number { … }",
        "  set(key: K, value: V): this { … }",
        "  async getOrLoad(key: K, load: Loader<K, V>): Promise<V> { … }",
        "  @memoize(1000)\n  stats(): { size: number; max: number } { … }",
        "  private evict(key: K, reason: EvictionReason): void { … }",
        "  onEvict = (listener: (key: K, value: V, reason: EvictionReason) => void): (() => void) => { … };",
    ] {
        assert!(outline.contains(part), "outline lacks {part:?}:\n{outline}");
    }
    for body in ["this.entries.delete(key);", "await load(key)", "this.emit('evict'", "this.off('evict'"] {
        assert!(!outline.contains(body), "outline has a method body ({body:?}):\n{outline}");
    }
}

/// Regression: in the TypeScript grammar a method decorator is a sibling of
/// `method_definition` inside `class_body` (unlike JavaScript and Python,
/// where it is part of the definition); the method's span and chunk must
/// still start at its decorators, and the decorator call is the method's.
#[test]
fn typescript_method_decorator_is_part_of_the_method() {
    let (data, fc) = chunk_fixture("cache.ts", &ChunkOptions::default());
    assert_eq!(line(&data, 104), "  @memoize(1000)");
    assert_eq!(line(&data, 105), "  stats(): { size: number; max: number } {");
    let stats = symbol(&fc, "LruCache.stats");
    assert_eq!(stats.kind, SymbolKind::Method);
    assert_eq!(stats.span.end_line, 107);
    assert_eq!(stats.signature, "stats(): { size: number; max: number }");
    let chunk = chunk_of(&fc, "LruCache.stats");
    let mut problems = Vec::new();
    if stats.span.start_line != 104 {
        problems.push(format!("span starts on line {}, not on its decorator's line 104", stats.span.start_line));
    }
    if !chunk.content.contains("@memoize(1000)\n  stats()") {
        problems.push(format!("chunk does not hold the decorator: {:?}", chunk.content));
    }
    if !stats.calls.contains(&"memoize".to_string()) {
        problems.push(format!(
            "decorator call is not the method's: LruCache.stats calls {:?}, LruCache calls {:?}",
            stats.calls,
            symbol(&fc, "LruCache").calls
        ));
    }
    assert!(problems.is_empty(), "LruCache.stats (decorated with @memoize(1000)):\n{}", problems.join("\n"));
}

/// Regression, same cause: the doc comment above a decorated TypeScript
/// method (above its decorators) is the symbol's doc and is in its chunk.
#[test]
fn typescript_doc_comment_above_decorated_method() {
    let (data, fc) = chunk_fixture("cache.ts", &ChunkOptions::default());
    assert_eq!(line(&data, 103), "  /** Size and capacity, recomputed at most once a second. */");
    let stats = symbol(&fc, "LruCache.stats");
    let chunk = chunk_of(&fc, "LruCache.stats");
    let got = (stats.doc.as_deref(), stats.doc_start.map(|d| d.1), chunk.start_line, chunk.end_line);
    assert_eq!(got, (Some("Size and capacity, recomputed at most once a second."), Some(103), 103, 107), "(doc, doc line, chunk lines)");
}

#[test]
fn tsx_component_file() {
    let (data, fc) = chunk_fixture("UserTable.tsx", &ChunkOptions::default());
    assert_eq!(fc.language, Language::Tsx);
    assert!(!fc.has_errors);
    use SymbolKind::*;
    let got: Vec<(&str, SymbolKind)> = fc.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind)).collect();
    assert_eq!(
        got,
        vec![
            ("User", Interface),
            ("SortKey", Type),
            ("Column", Type),
            ("COLUMNS", Const),
            ("COLUMNS.render", Function),
            ("UserTableProps", Interface),
            ("useSorted", Function),
            ("RoleBadge", Function),
            ("Pager", Class),
            ("Pager.prev", Method),
            ("Pager.next", Method),
            ("Pager.render", Method),
            ("UserTable", Function),
            ("UserTable.sortBy", Function),
        ]
    );
    assert_symbols(
        &fc,
        &[
            ("User", Interface, 4, 9),
            ("SortKey", Type, 11, 11),
            ("Column", Type, 13, 17),
            ("useSorted", Function, 31, 36),
            ("RoleBadge", Function, 38, 40),
            ("Pager", Class, 42, 63),
            ("Pager.prev", Method, 43, 43),
            ("Pager.render", Method, 47, 62),
            ("UserTable", Function, 65, 119),
            ("UserTable.sortBy", Function, 87, 90),
        ],
    );
    let table = chunk_of(&fc, "UserTable");
    assert!(table.content.starts_with("export const UserTable: React.FC<UserTableProps> = ({ fetchUsers, onSelect, pageSize = 20 }) => {"));
    assert!(table.content.ends_with("};"));
    assert_eq!(chunk_of(&fc, "UserTable.sortBy").parent_id.as_ref(), Some(&table.id));
    assert_eq!(chunk_of(&fc, "User").content, std::str::from_utf8(&data[symbol(&fc, "User").span.start_byte..symbol(&fc, "User").span.end_byte]).unwrap());
    let pager = chunk_of(&fc, "Pager");
    assert!(pager.content.contains("  prev = () => { … };"), "{}", pager.content);
    assert!(pager.content.contains("  render() { … }"), "{}", pager.content);
    assert!(!pager.content.contains("className=\"pager\""), "{}", pager.content);
    // `export default UserTable;` is module code at the end.
    let last = of_kind(&fc, ChunkKind::Code).into_iter().last().unwrap();
    assert_eq!((last.start_line, last.content.as_str()), (121, "export default UserTable;"));
}

// ---- syntax errors ----------------------------------------------------------------

#[test]
fn syntax_errors_keep_parsed_symbols_and_add_a_fallback() {
    use SymbolKind::*;
    let expected: &[(&str, &[(&str, SymbolKind, usize, usize)])] = &[
        (
            "broken_settings.py",
            &[
                ("ENV_PREFIX", Const, 6, 6),
                ("load_defaults", Function, 10, 11),
                ("parse_bool", Function, 14, 15),
                ("Settings", Class, 18, 39),
                ("Settings.__init__", Method, 21, 23),
                ("Settings.get", Method, 25, 29),
                ("Settings.get_int", Method, 31, 36),
                ("merge", Function, 47, 54),
                ("main", Function, 57, 60),
            ],
        ),
        (
            "broken_queue.js",
            &[
                ("delay", Function, 7, 9),
                ("JobQueue", Class, 11, 39),
                ("JobQueue.push", Method, 19, 23),
                ("JobQueue.pump", Method, 25, 38),
                ("retry", Function, 45, 57),
                ("module.exports", Variable, 59, 59),
            ],
        ),
        (
            "broken_client.ts",
            &[
                ("ApiError", Interface, 3, 6),
                ("Query", Type, 8, 8),
                ("buildQuery", Function, 10, 15),
                ("ApiClient", Class, 17, 43),
                ("ApiClient.get", Method, 28, 34),
                ("isApiError", Function, 46, 48),
                ("withRetry", Function, 52, 59),
            ],
        ),
        (
            "broken_panel.tsx",
            &[
                ("PanelProps", Interface, 5, 9),
                ("Panel", Function, 11, 19),
                ("PanelGroup", Function, 28, 36),
                ("PanelStore", Class, 38, 51),
                ("PanelStore.toggle", Method, 41, 48),
                ("PanelStore.isOpen", Method, 50, 50),
                ("usePanelStore", Function, 53, 60),
            ],
        ),
    ];
    for &(name, symbols) in expected {
        let (data, fc) = chunk_fixture(name, &ChunkOptions::default());
        assert!(fc.has_errors, "{name}: has_errors");
        assert_symbols(&fc, symbols);
        for &(qualified, kind, start, end) in symbols {
            if kind.owns_chunk() {
                let c = chunk_of(&fc, qualified);
                assert_eq!((c.start_line, c.end_line), (start, end), "{name}: chunk of {qualified}");
            }
        }
        // One fallback chunk: the whole text, under the file chunk.
        let fallback = of_kind(&fc, ChunkKind::Fallback);
        assert_eq!(fallback.len(), 1, "{name}: {fallback:#?}");
        let f = fallback[0];
        assert_eq!(f.content.as_bytes(), &data[..], "{name}: fallback is the whole text");
        assert_eq!((f.start_byte, f.end_byte), (0, data.len()));
        assert_eq!((f.start_line, f.end_line), (1, line_count(&data)));
        assert_eq!(f.parent_id.as_ref(), Some(&file_chunk(&fc).id), "{name}");
        assert_eq!(f.symbol, None);

        // Over the budget, the fallback is cut into windows that cover the text once.
        let budget = 300;
        let (data, fc) = chunk_fixture(name, &small(budget));
        assert!(fc.has_errors);
        let windows = of_kind(&fc, ChunkKind::Fallback);
        assert!(windows.len() >= 2, "{name}: {windows:#?}");
        assert_tiles(&data, &windows, 0, data.len());
        for w in &windows {
            assert!(chunk::non_ws_len(w.content.as_bytes()) <= budget, "{name}: fallback window over budget");
        }
    }
    // A file that parses cleanly has no fallback.
    for clean in ["http_session.py", "router.js", "store.mjs", "TodoList.jsx", "cache.ts", "UserTable.tsx"] {
        let (_, fc) = chunk_fixture(clean, &ChunkOptions::default());
        assert!(!fc.has_errors, "{clean}");
        assert!(of_kind(&fc, ChunkKind::Fallback).is_empty(), "{clean}");
    }
}

// ---- files without a grammar --------------------------------------------------------

#[test]
fn markdown_gets_a_section_per_heading() {
    let (data, fc) = chunk_fixture("GUIDE.md", &ChunkOptions::default());
    assert_eq!(fc.language, Language::Markdown);
    assert!(fc.symbols.is_empty() && fc.imports.is_empty() && !fc.has_errors);
    let sections: Vec<(Option<&str>, usize, usize)> = fc.chunks.iter().map(|c| (c.symbol.as_deref(), c.start_line, c.end_line)).collect();
    // `# a comment inside a fence` is code, not a heading.
    assert_eq!(
        sections,
        vec![
            (Some("git-rag guide"), 1, 4),
            (Some("Installing"), 6, 13),
            (Some("Indexing"), 15, 19),
            (Some("Ignoring files"), 21, 23),
            (Some("Searching"), 25, 28),
        ]
    );
    let chunks: Vec<&Chunk> = fc.chunks.iter().collect();
    for c in &chunks {
        assert_eq!(c.kind, ChunkKind::Section);
        assert_eq!(c.parent_id, None);
        assert!(c.content.starts_with('#'), "a section starts at its heading: {:?}", c.content);
    }
    assert!(chunks[1].content.contains("# a comment inside a fence is not a heading"));
    assert_tiles(&data, &chunks, 0, data.len());

    // A section over the budget is cut into paragraphs that keep its title.
    let budget = 80;
    let (data, fc) = chunk_fixture("GUIDE.md", &small(budget));
    let indexing: Vec<&Chunk> = fc.chunks.iter().filter(|c| c.symbol.as_deref() == Some("Indexing")).collect();
    assert!(indexing.len() >= 2, "{indexing:#?}");
    for c in &fc.chunks {
        assert_eq!(c.kind, ChunkKind::Section);
        assert!(chunk::non_ws_len(c.content.as_bytes()) <= budget, "{c:#?}");
        assert_eq!(c.content, slice(&data, c));
    }
    for n in 1..=line_count(&data) {
        if !is_blank_line(&data, n) {
            let holders = fc.chunks.iter().filter(|c| c.start_line <= n && n <= c.end_line).count();
            assert_eq!(holders, 1, "line {n} {:?}", line(&data, n));
        }
    }
}

#[test]
fn plain_text_gets_text_chunks() {
    let (data, fc) = chunk_fixture("NOTES.txt", &ChunkOptions::default());
    assert_eq!(fc.language, Language::Text);
    assert!(fc.symbols.is_empty() && !fc.has_errors);
    // Small paragraphs are merged up to the budget: here, all of them.
    assert_eq!(fc.chunks.len(), 1);
    let c = &fc.chunks[0];
    assert_eq!(c.kind, ChunkKind::Text);
    assert_eq!((c.start_line, c.end_line), (1, 10));
    assert_eq!(c.content.as_bytes(), &data[..]);

    // With a small budget: several chunks, each a run of whole paragraphs.
    let budget = 150;
    let (data, fc) = chunk_fixture("NOTES.txt", &small(budget));
    assert!(fc.chunks.len() >= 3, "{:#?}", fc.chunks);
    let chunks: Vec<&Chunk> = fc.chunks.iter().collect();
    for c in &chunks {
        assert_eq!(c.kind, ChunkKind::Text);
        assert_eq!(c.symbol, None);
        assert!(chunk::non_ws_len(c.content.as_bytes()) <= budget);
        assert!(!c.content.starts_with('\n') && !c.content.starts_with(' '), "a chunk starts at a paragraph: {:?}", c.content);
    }
    for n in 1..=line_count(&data) {
        let holders = chunks.iter().filter(|c| c.start_line <= n && n <= c.end_line).count();
        if !is_blank_line(&data, n) {
            assert_eq!(holders, 1, "line {n} {:?}", line(&data, n));
        }
    }
    // "Release checklist" and the paragraph after it fit together.
    assert!(chunks[0].content.starts_with("Release checklist\n\nBefore tagging"), "{:?}", chunks[0].content);
}

#[test]
fn files_over_the_parse_cap_get_line_windows() {
    // A small cap, so a real fixture is over it.
    let opts = ChunkOptions { max_parse_bytes: 1024, max_window_lines: 30, ..Default::default() };
    let (data, fc) = chunk_fixture("http_session.py", &opts);
    assert!(data.len() > opts.max_parse_bytes);
    assert_eq!(fc.language, Language::Python);
    assert!(fc.symbols.is_empty() && fc.imports.is_empty() && !fc.has_errors, "not parsed");
    let windows: Vec<&Chunk> = fc.chunks.iter().collect();
    assert!(windows.len() >= 173 / 30, "{}", windows.len());
    for w in &windows {
        assert_eq!(w.kind, ChunkKind::Window);
        assert_eq!((w.parent_id.as_deref(), w.symbol.as_deref()), (None, None));
        assert!(w.end_line - w.start_line < opts.max_window_lines, "window {}-{} over the line cap", w.start_line, w.end_line);
        assert!(w.content.lines().count() <= opts.max_window_lines);
    }
    assert_eq!(windows[0].start_line, 1);
    assert_eq!(windows.last().unwrap().end_line, line_count(&data));
    assert_tiles(&data, &windows, 0, data.len());

    // The default cap (4 MB) with default windows.
    let opts = ChunkOptions::default();
    let unit = fixture("router.js");
    let mut big = Vec::new();
    while big.len() <= opts.max_parse_bytes {
        big.extend_from_slice(&unit);
    }
    let fc = chunk::chunk_file("bundle.js", &big, &opts);
    assert!(fc.symbols.is_empty() && !fc.has_errors);
    let windows: Vec<&Chunk> = fc.chunks.iter().collect();
    for w in &windows {
        assert_eq!(w.kind, ChunkKind::Window);
        assert!(w.end_line - w.start_line < opts.max_window_lines);
        assert!(chunk::non_ws_len(w.content.as_bytes()) <= opts.budget);
    }
    assert_eq!(windows[0].start_line, 1);
    assert_eq!(windows.last().unwrap().end_line, line_count(&big));
    assert_tiles(&big, &windows, 0, big.len());
    let ids: HashSet<&str> = windows.iter().map(|w| w.id.as_str()).collect();
    assert_eq!(ids.len(), windows.len(), "repeated windows still get unique ids");
}

/// A JSON object whose `keys` long keys each hold `escapes` escape sequences
/// (the shape of a cache of LLM prompts: `\n` and `\"` all through), with
/// values of the same kind, in `bytes` or so.
fn escaped_json(keys: usize, escapes: usize) -> Vec<u8> {
    let piece = |i: usize, j: usize| format!("line {i} {j} of a prompt\\n\\\"quoted\\\"");
    let mut out = String::from("{\n");
    for i in 0..keys {
        let key: String = (0..escapes).map(|j| piece(i, j)).collect();
        let value: String = (0..escapes).map(|j| piece(j, i)).collect();
        out.push_str(&format!("    \"{key}\": \"{value}\"{}\n", if i + 1 < keys { "," } else { "" }));
    }
    out.push_str("}\n");
    out.into_bytes()
}

/// The same size of JSON with short keys and plain values.
fn plain_json(bytes: usize) -> Vec<u8> {
    let mut out = String::from("{\n");
    let mut i = 0;
    while out.len() < bytes {
        out.push_str(&format!("    \"key_{i}\": \"{}\",\n", "plain words of a value ".repeat(8)));
        i += 1;
    }
    out.push_str("    \"last\": 0\n}\n");
    out.into_bytes()
}

fn median_chunking_secs(path: &str, data: &[u8]) -> f64 {
    let mut times: Vec<f64> = (0..3)
        .map(|_| {
            let t = std::time::Instant::now();
            std::hint::black_box(chunk::chunk_file(path, data, &ChunkOptions::default()));
            t.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[1]
}

/// Keys with thousands of escapes used to cost time quadratic in them: the
/// JSON query captured each `string_content` piece of a key, one match per
/// piece (a 328 KB fixture of cached LLM prompts took 17 s). Held against a
/// plain file of the same size, a ratio a quadratic path cannot meet.
#[test]
fn json_keys_full_of_escapes_cost_what_plain_json_of_their_size_costs() {
    let escaped = escaped_json(40, 300);
    let plain = plain_json(escaped.len());
    let fc = chunk::chunk_file("cache.json", &escaped, &ChunkOptions::default());
    assert_eq!(fc.symbols.len(), 40, "every key is one definition, named whole");
    assert!(fc.symbols[0].name.starts_with("line 0 0 of a prompt\\n") && fc.symbols[0].name.len() > 1000, "{}", &fc.symbols[0].name[..60]);
    let (e, p) = (median_chunking_secs("cache.json", &escaped), median_chunking_secs("plain.json", &plain));
    assert!(e < 8.0 * p + 0.05, "{} bytes of escaped keys took {e:.3} s, the same size of plain JSON {p:.3} s", escaped.len());
}

/// Brackets nested 30,000 deep (generated data, a fuzzer's file) in every
/// parsed language, chunked on a thread with the stack an index worker has
/// (2 MiB): the chunker opened each oversized node's children by recursion,
/// one frame per level, and the process died of a stack overflow. Every
/// line stays covered, and the file costs what a flat one of its size costs.
#[test]
fn brackets_nested_thirty_thousand_deep_are_chunked_on_a_worker_stack_in_every_language() {
    const DEPTH: usize = 30_000;
    let nested = format!("x = {}1{}\n", "(".repeat(DEPTH), ")".repeat(DEPTH));
    let flat = format!("x = {}1\n", "1 + ".repeat(DEPTH / 2));
    let languages: Vec<(&str, &str)> = vec![
        ("python", "deep.py"),
        ("javascript", "deep.js"),
        ("rust", "deep.rs"),
        ("go", "deep.go"),
        ("java", "Deep.java"),
        ("c", "deep.c"),
        ("ruby", "deep.rb"),
        ("json", "deep.json"),
        ("bash", "deep.sh"),
        ("lua", "deep.lua"),
        ("php", "deep.php"),
        ("kotlin", "deep.kt"),
    ];
    for (name, path) in languages {
        let (path, nested, flat) = (path.to_string(), nested.clone(), flat.clone());
        let worker = std::thread::Builder::new().stack_size(2 << 20).spawn(move || {
            let fc = chunk::chunk_file(&path, nested.as_bytes(), &ChunkOptions::default());
            let covered: usize = fc.chunks.iter().map(|c| c.end_line - c.start_line + 1).max().unwrap_or(0);
            assert!(covered >= 1 && !fc.chunks.is_empty(), "{path}: no chunks");
            (median_chunking_secs(&path, nested.as_bytes()), median_chunking_secs(&path, flat.as_bytes()))
        });
        let (n, f) = worker.expect("spawn").join().unwrap_or_else(|_| panic!("{name}: chunking panicked"));
        assert!(n < 8.0 * f + 0.05, "{name}: {DEPTH} nested brackets took {n:.3} s, a flat file of their size {f:.3} s");
    }
}

/// Julia broken into thousands of small statements (`x 0= 1`) made its
/// grammar's scanner look for the end of a string or comment up to the end
/// of the file at every error: quadratic, minutes for 1 MB. A parse that
/// reads more than `tags::PARSE_READ_FACTOR` times its input is given up
/// and the file chunked as text windows: held against valid Julia of the
/// same size, a ratio a quadratic path cannot meet.
#[test]
fn a_grammar_rescanning_the_file_at_every_error_costs_what_a_valid_file_of_its_size_costs() {
    let lines = |line: &dyn Fn(usize) -> String| {
        (0..)
            .map(line)
            .scan(0, |len, l| {
                *len += l.len();
                (*len < 192 << 10).then_some(l)
            })
            .collect::<String>()
    };
    let broken = lines(&|i| format!("x {i}= 1\n"));
    let valid = lines(&|i| format!("function f{i}(x) x end\n"));
    let fc = chunk::chunk_file("broken.jl", broken.as_bytes(), &ChunkOptions::default());
    assert!(fc.parse_too_costly && fc.symbols.is_empty(), "the parse is given up");
    let covered: usize = fc.chunks.iter().map(|c| c.end_line - c.start_line + 1).sum();
    assert_eq!(covered, broken.lines().count(), "every line is in a text window");
    let fv = chunk::chunk_file("valid.jl", valid.as_bytes(), &ChunkOptions::default());
    assert!(!fv.parse_too_costly && fv.symbols.len() > 5000, "valid code is parsed: {} symbols", fv.symbols.len());
    let (b, v) = (median_chunking_secs("broken.jl", broken.as_bytes()), median_chunking_secs("valid.jl", valid.as_bytes()));
    assert!(b < 8.0 * v + 0.05, "{} bytes of broken Julia took {b:.3} s, valid Julia of its size {v:.3} s", broken.len());
}

/// The parse budget leaves ordinary code alone: each fixture of every parsed
/// language (`tests/fixtures/languages/`) reads less than half of it.
#[test]
fn ordinary_code_of_every_parsed_language_reads_well_within_the_parse_budget() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/languages");
    let mut checked = 0;
    for dir in std::fs::read_dir(root).unwrap().flatten().filter(|e| e.path().is_dir()) {
        for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let path = file.path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let code = std::fs::read(&path).unwrap();
            let language = Language::detect(&name, &code);
            if language.grammar().is_none() || name.starts_with("LICENSE") {
                continue;
            }
            let Ok(parsed) = git_rag::analysis::parse::parse(language, &code) else { continue };
            let ratio = parsed.bytes_read as f64 / code.len() as f64;
            assert!(ratio < git_rag::analysis::tags::PARSE_READ_FACTOR as f64 / 2.0, "{}: its parse read {ratio:.1}× its size", path.display());
            checked += 1;
        }
    }
    assert!(checked >= 40, "{checked} fixtures");
}

/// Thousands of small definitions in one file (generated bindings, tables
/// of handlers): a container's outline looked for its members among every
/// symbol of the file, a sibling for its leading comment among every other,
/// and a scoped definition for its scope by a scan of every symbol — each
/// quadratic in the count (1 MB of `class C0 { int F() … }` took 3.4 s, of
/// HCL `resource` blocks 3.9 s). Four times the definitions cost about four
/// times as much; a quadratic path costs sixteen.
#[test]
fn four_times_the_small_definitions_cost_about_four_times_as_much() {
    let numbered = |template: &str, count: usize| -> String { (0..count).map(|i| template.replace("{i}", &i.to_string()) + "\n").collect() };
    for (path, template) in [
        ("Gen.cs", "/// C{i}\nclass C{i} { int F(int x) { return x + {i}; } }"),
        ("gen.tf", "resource \"a\" \"r{i}\" { x = {i} }"),
        ("Gen.java", "class C{i} { int f(int x) { return x + {i}; } }"),
    ] {
        let (small, big) = (numbered(template, 5_000), numbered(template, 20_000));
        let fc = chunk::chunk_file(path, big.as_bytes(), &ChunkOptions::default());
        assert!(fc.symbols.len() >= 20_000, "{path}: {} definitions", fc.symbols.len());
        let (s, b) = (median_chunking_secs(path, small.as_bytes()), median_chunking_secs(path, big.as_bytes()));
        assert!(b < 8.0 * s + 0.05, "{path}: 20,000 definitions took {b:.3} s, 5,000 took {s:.3} s");
    }
}

/// A C++ file with a syntax error on every line (`x 0= 1`, 256 KB) reads its
/// input once, yet tree-sitter's error recovery takes 10–17 s per MB over it
/// (measured on this machine), which no byte count sees: past
/// `tags::PARSE_TIME_PER_BYTE` of the bytes it has reached (0.26 s plus 1 µs
/// a byte, a tenth of what it would take) the parse is given up and the file
/// is text windows.
#[test]
fn a_parse_that_reads_little_but_runs_long_is_given_up_for_text_windows() {
    let mut broken = String::new();
    for i in 0.. {
        if broken.len() >= 256 << 10 {
            break;
        }
        broken.push_str(&format!("x {i}= 1\n"));
    }
    let fc = chunk::chunk_file("broken.cpp", broken.as_bytes(), &ChunkOptions::default());
    assert!(fc.parse_too_costly, "the parse finished within its time");
    assert!(fc.symbols.is_empty() && !fc.chunks.is_empty(), "text windows, no symbols");
    let last_line = fc.chunks.iter().map(|c| c.end_line).max().unwrap_or(0);
    assert_eq!(last_line, broken.lines().count(), "every line covered");
}
