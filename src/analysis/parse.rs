//! What parsing a file yields (symbols, imports, calls, convention marks)
//! and the text helpers shared by the extractor ([`crate::analysis::tags`],
//! which reads each language's query file).
//!
//! Parsing never fails: tree-sitter always returns a tree, a syntax error
//! only marks part of it as `ERROR`, and the queries still match whatever
//! definitions they can recognise. Callers learn about errors through
//! [`ParsedFile::has_errors`] and add a whole-file fallback chunk.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Tree};

use crate::analysis::lang::Language;

/// What kind of definition a symbol is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SymbolKind {
    Function,
    Method,
    Class,
    Interface,
    Type,
    Enum,
    Variable,
    Const,
    /// A namespace: Rust `mod`, C++/C# `namespace`, Ruby `module`.
    Module,
    /// A key of a configuration file (YAML, TOML, JSON), named by its
    /// dotted path: `jobs.build`, `dependencies.serde`.
    Key,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 10] = [
        SymbolKind::Function,
        SymbolKind::Method,
        SymbolKind::Class,
        SymbolKind::Interface,
        SymbolKind::Type,
        SymbolKind::Enum,
        SymbolKind::Variable,
        SymbolKind::Const,
        SymbolKind::Module,
        SymbolKind::Key,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            SymbolKind::Function => "function",
            SymbolKind::Method => "method",
            SymbolKind::Class => "class",
            SymbolKind::Interface => "interface",
            SymbolKind::Type => "type",
            SymbolKind::Enum => "enum",
            SymbolKind::Variable => "variable",
            SymbolKind::Const => "const",
            SymbolKind::Module => "module",
            SymbolKind::Key => "key",
        }
    }

    /// Containers get an outline chunk and their members get their own chunks.
    pub fn is_container(self) -> bool {
        matches!(self, SymbolKind::Class | SymbolKind::Interface | SymbolKind::Enum | SymbolKind::Module)
    }

    /// Definitions that always get a chunk of their own. Variables and
    /// constants are merged with their neighbours instead.
    pub fn owns_chunk(self) -> bool {
        !matches!(self, SymbolKind::Variable | SymbolKind::Const)
    }
}

/// A byte and line range; lines are 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_line: usize,
    pub end_line: usize,
}

impl Span {
    pub fn of(node: Node) -> Span {
        let start = node.start_position();
        let end = node.end_position();
        // A node that ends right after a newline ends on the previous line;
        // an empty one right after a newline (a body cut off at the end of
        // the file) lies on the previous line too, not on one past the last.
        if start.column == 0 && start.row > 0 && node.start_byte() == node.end_byte() {
            return Span { start_byte: node.start_byte(), end_byte: node.end_byte(), start_line: start.row, end_line: start.row };
        }
        let end_line = if end.column == 0 && end.row > start.row { end.row } else { end.row + 1 };
        Span { start_byte: node.start_byte(), end_byte: node.end_byte(), start_line: start.row + 1, end_line }
    }
}

/// One definition found in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Symbol {
    pub name: String,
    /// Dotted path through the enclosing definitions, e.g. `Session.send`.
    pub qualified_name: String,
    pub kind: SymbolKind,
    /// Qualified name of the enclosing definition.
    pub parent: Option<String>,
    pub signature: String,
    pub doc: Option<String>,
    /// The definition itself: decorators, `export` and the assignment target
    /// included, leading comments excluded.
    pub span: Span,
    /// Where the definition's leading doc comment starts, if it has one.
    pub doc_start: Option<(usize, usize)>,
    /// The body, if the definition has one (used to elide member bodies in outlines).
    pub body: Option<Span>,
    pub calls: Vec<String>,
    pub bases: Vec<String>,
    /// Index of the enclosing symbol in [`ParsedFile::symbols`].
    #[serde(skip)]
    pub parent_index: Option<usize>,
}

impl Symbol {
    /// Whether the definition gets a chunk of its own. A configuration key
    /// does at the top of its file when it spans lines (a workflow's `jobs`,
    /// a `[dependencies]` table, `scripts`); one-line values and the keys
    /// below are merged with their neighbours, and a top-level key over
    /// the budget is cut at the keys below (`jobs.build`, `jobs.test`).
    pub fn owns_chunk(&self) -> bool {
        match self.kind {
            SymbolKind::Key => self.parent_index.is_none() && self.span.end_line > self.span.start_line,
            kind => kind.owns_chunk(),
        }
    }

    /// The range a chunk of this symbol covers: its leading doc comment too.
    pub fn chunk_start(&self) -> (usize, usize) {
        self.doc_start.unwrap_or((self.span.start_byte, self.span.start_line))
    }
}

/// An import statement: the module as written and the names taken from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Import {
    pub module: String,
    pub names: Vec<String>,
    pub line: usize,
}

/// The result of parsing one file.
pub struct ParsedFile {
    pub language: Language,
    pub tree: Tree,
    pub symbols: Vec<Symbol>,
    pub imports: Vec<Import>,
    /// Calls made outside any definition (module level).
    pub module_calls: Vec<String>,
    /// Statement-level node id -> symbols defined by that statement.
    pub defs_by_node: HashMap<usize, Vec<usize>>,
    /// Each of those nodes' byte range (the chunker walks only the parts of
    /// the tree that hold one).
    pub def_node_ranges: HashMap<usize, (usize, usize)>,
    pub has_errors: bool,
    /// Lines inside syntax errors (tree-sitter's `ERROR` nodes): what the
    /// grammar could not read as code (0 without errors).
    pub error_lines: usize,
    /// Conventions marked while parsing: by the query (`@pattern.<category>`)
    /// or, for Python and the JavaScript family, read from the nodes it
    /// captured as `@convention` (`patterns::TreeMarker`).
    pub pattern_marks: Vec<PatternMark>,
    /// Bytes the grammar's parse read, its input's size counted once and
    /// again where it went back (`tags::PARSE_READ_FACTOR`).
    pub bytes_read: usize,
}

/// One convention instance a query captured: category, grouping key and
/// the byte range of the construct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PatternMark {
    pub category: crate::analysis::patterns::PatternCategory,
    pub key: String,
    pub start_byte: usize,
    pub end_byte: usize,
}

/// Parses `source` as `language` with its grammar and tags query
/// ([`crate::analysis::tags`]). A syntax error still gives a tree; no tree
/// for a language without a grammar, or a parse that reads too much.
pub fn parse(language: Language, source: &[u8]) -> Result<ParsedFile, crate::analysis::tags::NotParsed> {
    crate::analysis::tags::parse(language, source)
}

/// The source text of a node, decoded leniently (invalid UTF-8 becomes U+FFFD).
pub fn node_text(src: &[u8], node: Node) -> String {
    String::from_utf8_lossy(&src[node.start_byte()..node.end_byte()]).into_owned()
}

pub fn unquote(s: &str) -> String {
    s.trim().trim_matches(['"', '\'', '`']).to_string()
}

fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}

pub(crate) fn clean_docstring(raw: &str) -> String {
    let s = raw.trim_start_matches(|c: char| c.is_ascii_alphabetic());
    let s = s.trim_start_matches("\"\"\"").trim_start_matches("'''").trim_end_matches("\"\"\"").trim_end_matches("'''");
    let s = s.trim_matches(['"', '\'']);
    let lines: Vec<&str> = s.lines().map(str::trim).collect();
    truncate_chars(lines.join("\n").trim(), 1000)
}

/// The declaration from `start` up to its body (or its first line when it
/// has none), on one line, without a trailing `{`, `:`, `=` or `=>`.
pub(crate) fn signature_text(src: &[u8], start: usize, end: usize, body_start: Option<usize>) -> String {
    let end = match body_start {
        Some(b) if b > start => b,
        _ => {
            let text = &src[start..end];
            start + text.iter().position(|&b| b == b'\n').unwrap_or(text.len())
        }
    };
    let raw = String::from_utf8_lossy(&src[start..end]);
    let mut sig: String = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    while sig.ends_with(['{', ':', '=']) || sig.ends_with("=>") {
        sig.pop();
        sig = sig.trim_end().to_string();
    }
    truncate_chars(&sig, 240)
}

pub(crate) fn clean_comment(raw: &str) -> String {
    let mut lines = Vec::new();
    // OCaml's `(* … *)` and `(** … *)`: the markers only where the comment opens so.
    let ocaml = raw.trim_start().starts_with("(*");
    for line in raw.lines() {
        let l = line.trim();
        let l = if ocaml { l.strip_prefix("(*").unwrap_or(l).trim_end_matches("*)").trim_end_matches('*') } else { l };
        // Erlang: `%`, `%%`, `%%%` (no other language opens a comment so).
        let l = l.trim_start_matches('%');
        let l = l.trim_start_matches("/**").trim_start_matches("/*").trim_end_matches("*/");
        // `///` and `//!` (Rust), `--[[ ]]` and `--` (Lua), `#` (Python, Ruby).
        let l = l.trim_start_matches("///").trim_start_matches("//!").trim_start_matches("//");
        let l = l.trim_start_matches("--[[").trim_end_matches("]]");
        // Haskell: `-- |`, `-- ^` and `{-| … -}` mark documentation (Haddock).
        let l = match l.strip_prefix("--").or_else(|| l.strip_prefix("{-")) {
            Some(rest) => rest.trim_start().trim_start_matches(['|', '^']),
            None => l,
        };
        let l = l.trim_end_matches("-}");
        // Julia: `#= … =#` comments and `""" … """` docstrings.
        let l = l.trim_start_matches("#=").trim_end_matches("=#").trim_start_matches("\"\"\"").trim_end_matches("\"\"\"");
        // R's roxygen `#'`; Clojure's `;;`.
        let l = l.strip_prefix("#'").unwrap_or(l);
        let l = if l.starts_with(';') { l.trim_start_matches(';') } else { l };
        let l = l.trim_start_matches('#').trim_start_matches('*');
        let l = l.trim();
        if !l.is_empty() {
            lines.push(l);
        }
    }
    truncate_chars(&lines.join("\n"), 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(lang: Language, src: &str) -> Vec<(String, &'static str)> {
        let parsed = parse(lang, src.as_bytes()).expect("grammar");
        parsed.symbols.iter().map(|s| (s.qualified_name.clone(), s.kind.as_str())).collect()
    }

    /// A definition cut off after its header (a file being written): its
    /// empty body sits after the last newline, on no line of the file.
    #[test]
    fn an_empty_body_at_the_end_of_a_file_stays_within_its_lines() {
        for src in [
            "class Session:\n    class Settings:\n        \"\"\"Per-host settings; looked up by the request's\\\n",
            "class Session:\n    class Settings:\n",
            "class Session:\n    class Settings:\n        \"\"\"Doc.\"\"\"\n\n",
            "def f():\n",
        ] {
            let parsed = parse(Language::Python, src.as_bytes()).expect("grammar");
            let lines = src.lines().count();
            for s in &parsed.symbols {
                for span in std::iter::once(&s.span).chain(&s.body) {
                    assert!(
                        span.start_line >= 1 && span.start_line <= span.end_line && span.end_line <= lines,
                        "{src:?}: {} {span:?} of {lines}",
                        s.qualified_name
                    );
                }
            }
        }
    }

    #[test]
    fn python_classes_methods_and_nesting() {
        let src = "import os\nfrom .x import y as z, w\n\nMAX = 3\n\nclass A(Base, metaclass=M):\n    \"\"\"Doc.\"\"\"\n    class Inner:\n        def f(self): pass\n\n    @property\n    def g(self):\n        def helper():\n            return os.path.join()\n        return helper()\n\ndef top(a, b=1) -> int:\n    return a\n";
        let parsed = parse(Language::Python, src.as_bytes()).expect("grammar");
        let got: Vec<_> = parsed.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind)).collect();
        assert_eq!(
            got,
            vec![
                ("MAX", SymbolKind::Const),
                ("A", SymbolKind::Class),
                ("A.Inner", SymbolKind::Class),
                ("A.Inner.f", SymbolKind::Method),
                ("A.g", SymbolKind::Method),
                ("A.g.helper", SymbolKind::Function),
                ("top", SymbolKind::Function),
            ]
        );
        let a = &parsed.symbols[1];
        assert_eq!(a.bases, vec!["Base"]);
        assert_eq!(a.doc.as_deref(), Some("Doc."));
        let g = &parsed.symbols[4];
        assert_eq!(g.span.start_line, 11, "decorator included");
        assert_eq!(g.signature, "def g(self)");
        assert!(parsed.symbols[5].calls.contains(&"os.path.join".to_string()));
        assert_eq!(parsed.symbols[6].signature, "def top(a, b=1) -> int");
        assert_eq!(parsed.imports[0].module, "os");
        assert_eq!(parsed.imports[1].module, ".x");
        assert_eq!(parsed.imports[1].names, vec!["y", "w"]);
    }

    #[test]
    fn javascript_assignments_and_exports() {
        let src = "var debug = require('debug');\n/** Send it. */\nres.send = function send(body) {\n  function next() { go(); }\n  next();\n};\nexports.etag = make({ weak: false });\nmethods.forEach(function (method) {\n  app[method] = function (path) { return this; };\n});\nexport const arrow = (x) => x + 1;\nexport default class Foo extends Bar {\n  #priv() {}\n  static make() {}\n}\n";
        let got = names(Language::JavaScript, src);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, vec!["debug", "res.send", "res.send.next", "exports.etag", "app[method]", "arrow", "Foo", "Foo.#priv", "Foo.make"]);
        let parsed = parse(Language::JavaScript, src.as_bytes()).expect("grammar");
        let send = &parsed.symbols[1];
        assert_eq!(send.doc.as_deref(), Some("Send it."));
        assert_eq!(send.doc_start.map(|d| d.1), Some(2));
        assert_eq!(send.span.start_line, 3);
        assert_eq!(parsed.imports[0].module, "debug");
        assert_eq!(parsed.symbols[6].bases, vec!["Bar"]);
    }

    #[test]
    fn a_named_function_handed_to_a_call_at_module_level() {
        let src = "/** The protocol. */\ndefineGetter(req, 'protocol', function protocol() {\n  return go();\n});\napp.use(function (req, res) {});\nfunction f() {\n  list.forEach(function each(x) {});\n}\n";
        let parsed = parse(Language::JavaScript, src.as_bytes()).expect("grammar");
        let got: Vec<_> = parsed.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind, s.span.start_line, s.span.end_line)).collect();
        // Anonymous functions and those inside a body are not definitions.
        assert_eq!(got, vec![("protocol", SymbolKind::Function, 2, 4), ("f", SymbolKind::Function, 6, 8)]);
        assert_eq!(parsed.symbols[0].doc.as_deref(), Some("The protocol."));
        assert!(parsed.symbols[0].calls.contains(&"go".to_string()));
    }

    #[test]
    fn typescript_declarations() {
        let src = "export interface Opts extends Base { a: string }\nexport type Key = string[];\nenum Color { Red }\nexport function over(a: string): void;\nexport function over(a: any) { return a }\nexport abstract class Q<T> implements R { private x = 1; handler = () => { run() }; abstract go(): void; }\nexport const skipToken = Symbol()\n";
        let got = names(Language::TypeScript, src);
        assert_eq!(
            got,
            vec![
                ("Opts".into(), "interface"),
                ("Key".into(), "type"),
                ("Color".into(), "enum"),
                ("over".into(), "function"),
                ("Q".into(), "class"),
                ("Q.handler".into(), "method"),
                ("skipToken".into(), "const"),
            ]
        );
    }

    #[test]
    fn one_statement_defining_several_names() {
        // Each declarator owns its calls and its nested definitions.
        let src = "const a = () => { go(); function inner() {} }, b = make(), c = function () { stop(); };\nvar d = require('d'), e = 2;\n";
        let parsed = parse(Language::JavaScript, src.as_bytes()).expect("grammar");
        let got: Vec<_> = parsed.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind.as_str(), s.calls.clone())).collect();
        assert_eq!(
            got,
            vec![
                ("a", "function", vec!["go".to_string()]),
                ("a.inner", "function", vec![]),
                ("b", "const", vec!["make".to_string()]),
                ("c", "function", vec!["stop".to_string()]),
                ("d", "variable", vec![]),
                ("e", "variable", vec![]),
            ]
        );
        assert_eq!(parsed.imports.iter().map(|i| i.module.as_str()).collect::<Vec<_>>(), vec!["d"]);
        assert_eq!(parsed.defs_by_node.values().filter(|v| v.len() == 3).count(), 1, "one statement, three definitions");
    }

    #[test]
    fn javascript_odd_names_and_heritage() {
        let src = "const api = { 'space origin': function () {}, [Symbol.iterator]() {} };\nclass T extends /** @type {X} */ (Base.Template) {}\nexport default class extends Y {}\nconst f = /** @type {F} */ (\n  // why\n  (x) => x\n);\n";
        let parsed = parse(Language::JavaScript, src.as_bytes()).expect("grammar");
        let names: Vec<_> = parsed.symbols.iter().map(|s| s.qualified_name.as_str()).collect();
        assert_eq!(names, vec!["api", "api.space origin", "api.[Symbol.iterator]", "T", "default", "f"]);
        assert_eq!(parsed.symbols[3].bases, vec!["Base.Template"]);
        assert_eq!(parsed.symbols[4].bases, vec!["Y"]);
        assert_eq!(parsed.symbols[5].kind, SymbolKind::Function);
    }

    #[test]
    fn python_docstrings_imports_and_module_values() {
        let src = "from __future__ import annotations\nimport a.b as c, d\nfrom x import *\nif X:\n    hidden = 1\nlimit = 3\n\n@dec(1)\nclass K(Base[T], metaclass=M):\n    # not a docstring\n    x = 1\n\n    def m(self):\n        '''Doc of m.'''\n";
        let parsed = parse(Language::Python, src.as_bytes()).expect("grammar");
        let got: Vec<_> = parsed.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind.as_str())).collect();
        assert_eq!(got, vec![("limit", "variable"), ("K", "class"), ("K.m", "method")]);
        let k = &parsed.symbols[1];
        assert_eq!((k.bases.clone(), k.doc.clone(), k.span.start_line), (vec!["Base[T]".to_string()], None, 8));
        assert_eq!(k.calls, vec!["dec"], "a decorator's call belongs to what it decorates");
        assert_eq!(parsed.symbols[2].doc.as_deref(), Some("Doc of m."));
        let imports: Vec<_> = parsed.imports.iter().map(|i| (i.module.as_str(), i.names.join(","))).collect();
        assert_eq!(imports, vec![("__future__", "annotations".to_string()), ("a.b", String::new()), ("d", String::new()), ("x", "*".to_string())]);
    }

    #[test]
    fn syntax_errors_still_yield_symbols() {
        let src = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self): pass\n";
        let parsed = parse(Language::Python, src.as_bytes()).expect("grammar");
        assert!(parsed.has_errors);
        let names: Vec<_> = parsed.symbols.iter().map(|s| s.qualified_name.as_str()).collect();
        assert!(names.contains(&"ok"));
        assert!(names.contains(&"Fine.m"));
    }
}
