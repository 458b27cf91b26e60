//! Property tests of parse + chunk, one set per language (.py, .js, .ts,
//! .tsx and an extension git-rag does not know): over arbitrary bytes and over
//! real source (the chunker fixtures) mutated at random — cut, truncated,
//! duplicated, spliced with syntax fragments, invalid UTF-8, CR/LF, BOMs —
//! `chunk_file` never panics and everything it reports lies inside the file:
//!
//! - chunks: 1 ≤ start_line ≤ end_line ≤ lines, start_line is the line of
//!   start_byte, start_byte ≤ end_byte ≤ len; ids are 32 hex digits, unique;
//!   every parent id is another chunk of the file;
//! - symbols: span, body and doc start inside the file, body inside the span,
//!   the doc before the span, parent index pointing at the named parent;
//! - imports and pattern examples on lines of the file;
//! - the same bytes always give the same chunks (ids included).
//!
//! `lines` is the number of lines of the file as an editor shows them: a final
//! newline does not open another line, and an empty file has one line.

use std::collections::HashSet;

use git_rag::analysis::chunk::{chunk_file, ChunkOptions};
use proptest::prelude::*;

/// Real source per language (the chunker fixtures, broken ones included).
const PY: &[&str] =
    &[include_str!("fixtures/chunker/http_session.py"), include_str!("fixtures/chunker/status_codes.py"), include_str!("fixtures/chunker/broken_settings.py")];
const JS: &[&str] = &[
    include_str!("fixtures/chunker/middleware.js"),
    include_str!("fixtures/chunker/router.js"),
    include_str!("fixtures/chunker/broken_queue.js"),
    include_str!("fixtures/chunker/store.mjs"),
    include_str!("fixtures/chunker/TodoList.jsx"),
];
const TS: &[&str] = &[include_str!("fixtures/chunker/cache.ts"), include_str!("fixtures/chunker/broken_client.ts")];
const TSX: &[&str] = &[include_str!("fixtures/chunker/UserTable.tsx"), include_str!("fixtures/chunker/broken_panel.tsx")];
const OTHER: &[&str] = &[include_str!("fixtures/chunker/NOTES.txt"), include_str!("fixtures/chunker/GUIDE.md")];

/// Fragments that open, close or confuse syntax in one of the languages.
const FRAGMENTS: &[&[u8]] = &[
    b"def ",
    b"class ",
    b"async def f(",
    b"@decorator\n",
    b"lambda: ",
    b"\"\"\"",
    b"'''",
    b"#",
    b"\\\n",
    b":\n    ",
    b"    ",
    b"\t",
    b"function ",
    b"=> {",
    b"export default ",
    b"export ",
    b"module.exports = ",
    b"import ",
    b"from '",
    b"require(",
    b"`${",
    b"/*",
    b"*/",
    b"//",
    b"interface I<T> {",
    b"type T = ",
    b"enum E {",
    b"<div>",
    b"</div>",
    b"/>",
    b"{",
    b"}",
    b"(",
    b")",
    b"[",
    b"]",
    b";",
    b",",
    b"\n",
    b"\r\n",
    b"\r",
    b"\n\n\n",
    b"\xef\xbb\xbf",
    b"\xff\xfe",
    b"\xc3",
    b"\xe2\x80",
    b"\x00",
    "é".as_bytes(),
    "…".as_bytes(),
    "𝔘".as_bytes(),
];

/// Lines as an editor counts them (≥ 1).
/// Lines of `data`, at least one (an empty file is one empty line to the chunker).
fn line_count(data: &[u8]) -> usize {
    crate::common::line_count(data).max(1)
}

/// 1-based line of a byte offset (a newline belongs to the line it ends).
fn line_of(data: &[u8], byte: usize) -> usize {
    data[..byte.min(data.len())].iter().filter(|b| **b == b'\n').count() + 1
}

fn check(path: &str, data: &[u8], opts: &ChunkOptions) -> Result<(), TestCaseError> {
    let out = chunk_file(path, data, opts);
    let lines = line_count(data);
    let len = data.len();
    let mut ids = HashSet::new();
    for c in &out.chunks {
        prop_assert!(
            c.start_line >= 1 && c.start_line <= c.end_line && c.end_line <= lines,
            "{path}: {} chunk lines {}-{} of {lines}",
            c.kind.as_str(),
            c.start_line,
            c.end_line
        );
        prop_assert!(c.start_byte <= c.end_byte && c.end_byte <= len, "{path}: {} chunk bytes {}-{} of {len}", c.kind.as_str(), c.start_byte, c.end_byte);
        if c.start_byte < len {
            prop_assert_eq!(c.start_line, line_of(data, c.start_byte), "{}: {} chunk at byte {} starts on the wrong line", path, c.kind.as_str(), c.start_byte);
        }
        prop_assert!(c.id.len() == 32 && c.id.bytes().all(|b| b.is_ascii_hexdigit()), "{path}: chunk id {:?}", c.id);
        prop_assert!(ids.insert(c.id.clone()), "{path}: chunk id {} repeated", c.id);
    }
    for c in &out.chunks {
        if let Some(p) = &c.parent_id {
            prop_assert!(p != &c.id && ids.contains(p), "{path}: parent {p} of chunk {} is not another chunk", c.id);
        }
    }
    for (i, s) in out.symbols.iter().enumerate() {
        let sp = &s.span;
        let what = format!("{path}: symbol {} ({})", s.qualified_name, s.kind.as_str());
        prop_assert!(sp.start_line >= 1 && sp.start_line <= sp.end_line && sp.end_line <= lines, "{what}: lines {}-{} of {lines}", sp.start_line, sp.end_line);
        prop_assert!(sp.start_byte <= sp.end_byte && sp.end_byte <= len, "{what}: bytes {}-{} of {len}", sp.start_byte, sp.end_byte);
        if let Some(b) = &s.body {
            prop_assert!(
                b.start_byte >= sp.start_byte && b.end_byte <= sp.end_byte && b.start_byte <= b.end_byte,
                "{what}: body bytes {}-{} outside the span {}-{}",
                b.start_byte,
                b.end_byte,
                sp.start_byte,
                sp.end_byte
            );
            prop_assert!(
                b.start_line >= 1 && b.start_line <= b.end_line && b.end_line <= lines,
                "{what}: body lines {}-{} of {lines}",
                b.start_line,
                b.end_line
            );
        }
        if let Some((byte, line)) = s.doc_start {
            prop_assert!(byte <= sp.start_byte && line >= 1 && line <= sp.start_line, "{what}: doc starts at byte {byte} line {line}, after the span");
        }
        if let Some(p) = s.parent_index {
            prop_assert!(p < i, "{what}: parent index {p} is not an earlier symbol");
            prop_assert_eq!(Some(&out.symbols[p].qualified_name), s.parent.as_ref(), "{}: parent index and parent name disagree", what);
        }
    }
    for imp in &out.imports {
        prop_assert!(imp.line >= 1 && imp.line <= lines, "{path}: import of {} on line {} of {lines}", imp.module, imp.line);
    }
    for p in &out.patterns {
        prop_assert!(
            p.start_line >= 1 && p.start_line <= p.end_line && p.end_line <= lines,
            "{path}: pattern {} lines {}-{} of {lines}",
            p.key,
            p.start_line,
            p.end_line
        );
    }
    Ok(())
}

/// Default options, or small ones so that splitting, merging, line windows
/// and the parse cap run on small inputs.
fn options() -> impl Strategy<Value = ChunkOptions> {
    prop_oneof![
        2 => Just(ChunkOptions::default()),
        3 => (1usize..300, 1usize..12, prop_oneof![Just(1_000_000usize), 0usize..3000])
            .prop_map(|(budget, max_window_lines, max_parse_bytes)| ChunkOptions { budget, max_parse_bytes, max_window_lines }),
    ]
}

#[derive(Debug, Clone)]
enum Edit {
    Delete(prop::sample::Index, usize),
    Insert(prop::sample::Index, Vec<u8>),
    Fragment(prop::sample::Index, prop::sample::Index),
    Duplicate(prop::sample::Index, usize),
    Truncate(prop::sample::Index),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (any::<prop::sample::Index>(), 1usize..80).prop_map(|(at, n)| Edit::Delete(at, n)),
        2 => (any::<prop::sample::Index>(), proptest::collection::vec(any::<u8>(), 1..12)).prop_map(|(at, b)| Edit::Insert(at, b)),
        4 => (any::<prop::sample::Index>(), any::<prop::sample::Index>()).prop_map(|(at, f)| Edit::Fragment(at, f)),
        1 => (any::<prop::sample::Index>(), 1usize..400).prop_map(|(at, n)| Edit::Duplicate(at, n)),
        1 => any::<prop::sample::Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(src: &str, edits: &[Edit]) -> Vec<u8> {
    let mut data = src.as_bytes().to_vec();
    for e in edits {
        let n = data.len() + 1;
        match e {
            Edit::Delete(at, len) => {
                let s = at.index(n);
                let end = (s + len).min(data.len());
                data.drain(s..end);
            }
            Edit::Insert(at, bytes) => {
                let s = at.index(n);
                data.splice(s..s, bytes.iter().copied());
            }
            Edit::Fragment(at, f) => {
                let s = at.index(n);
                data.splice(s..s, FRAGMENTS[f.index(FRAGMENTS.len())].iter().copied());
            }
            Edit::Duplicate(at, len) => {
                let s = at.index(n);
                let end = (s + len).min(data.len());
                let copy = data[s..end].to_vec();
                data.splice(end..end, copy);
            }
            Edit::Truncate(at) => data.truncate(at.index(n)),
        }
    }
    data
}

/// Mostly the language's own sources, sometimes another language's.
fn source(own: &'static [&'static str]) -> impl Strategy<Value = &'static str> {
    let all: Vec<&'static str> = [PY, JS, TS, TSX, OTHER].concat();
    prop_oneof![4 => prop::sample::select(own), 1 => prop::sample::select(all)]
}

/// Bytes that are mostly syntax fragments, so that parsers see plausible
/// token soup rather than only noise.
fn soup() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(
        prop_oneof![
            3 => prop::sample::select(FRAGMENTS).prop_map(|f| f.to_vec()),
            2 => "[a-zA-Z_][a-zA-Z0-9_]{0,8}".prop_map(|s| s.into_bytes()),
            1 => proptest::collection::vec(any::<u8>(), 1..4),
        ],
        0..120,
    )
    .prop_map(|parts| parts.concat())
}

fn arbitrary_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![proptest::collection::vec(any::<u8>(), 0..700), soup()]
}

/// `GIT_RAG_FUZZ_CASES` sets the cases per property (default 500).
fn config() -> ProptestConfig {
    let cases = std::env::var("GIT_RAG_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(500);
    ProptestConfig { cases, failure_persistence: None, max_shrink_iters: 2000, ..ProptestConfig::default() }
}

macro_rules! language_properties {
    ($module:ident, $path:expr, $own:expr) => {
        mod $module {
            use super::*;

            proptest! {
                #![proptest_config(config())]

                #[test]
                fn arbitrary_bytes_stay_in_range(data in arbitrary_bytes(), opts in options()) {
                    check($path, &data, &opts)?;
                }

                #[test]
                fn mutated_real_source_stays_in_range(src in source($own), edits in proptest::collection::vec(edit(), 1..10), opts in options()) {
                    let data = apply(src, &edits);
                    check($path, &data, &opts)?;
                    let (a, b) = (chunk_file($path, &data, &opts), chunk_file($path, &data, &opts));
                    let ids = |c: &git_rag::analysis::chunk::FileChunks| c.chunks.iter().map(|c| (c.id.clone(), c.start_line, c.end_line)).collect::<Vec<_>>();
                    prop_assert_eq!(ids(&a), ids(&b), "the same bytes gave other chunks");
                }
            }
        }
    };
}

language_properties!(python, "pkg/mod.py", PY);
language_properties!(javascript, "web/app.js", JS);
language_properties!(typescript, "src/cache.ts", TS);
language_properties!(tsx, "ui/Panel.tsx", TSX);
language_properties!(unknown_extension, "data/notes.xyz", OTHER);

/// Each unmutated fixture passes too (a sanity check of the checker itself).
#[test]
fn the_fixtures_themselves() {
    for (path, srcs) in [("a.py", PY), ("a.js", JS), ("a.ts", TS), ("a.tsx", TSX), ("a.xyz", OTHER)] {
        for src in srcs {
            for opts in [ChunkOptions::default(), ChunkOptions { budget: 40, max_parse_bytes: 1_000_000, max_window_lines: 3 }] {
                let out = chunk_file(path, src.as_bytes(), &opts);
                assert!(!out.chunks.is_empty(), "{path}: no chunks");
                if let Err(e) = check(path, src.as_bytes(), &opts) {
                    panic!("{e}");
                }
            }
        }
    }
}
