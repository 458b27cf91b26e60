//! Symbols, calls and imports from a language's tags query.
//!
//! A language described by data is a grammar plus a query file in
//! `queries/` (the `tags.scm` convention of tree-sitter-tags, GitHub code
//! navigation, Aider and Zed). The captures this module reads:
//!
//! - `@definition.<kind>` on the statement-level node of a definition (its
//!   chunk), with `@name`, optionally `@body`, `@scope` (a qualifier given
//!   by text: a Go receiver type, C++'s `Foo::` in `Foo::bar`, Lua's `M.` in
//!   `function M.f`) and any number of `@base` (superclasses, interfaces,
//!   embedded types). Kinds: function, method, class, interface, type, enum,
//!   const, variable, module.
//! - `@scope.impl` on a block whose members are qualified by `@name` but
//!   which is not a definition itself (Rust's `impl Type`); its `@base`
//!   (the trait) becomes a base of `Type` when the file defines it.
//! - `@reference.call` on a call, with `@callee`: the called expression as
//!   written (or its name, with the receiver as `@callee.object` where the
//!   grammar has no node for `obj.name`). With `@callee.args`, the call is
//!   a name and its parenthesised group among a macro's tokens
//!   ([`token_tree_call`]).
//! - `@import` on an import, with `@import.module` and any `@import.name`.
//! - `@doc` on a docstring; or `(#set! docstring "<statement> <literal>")`
//!   on a definition: a `@body` whose first statement is a `<statement>`
//!   node starting with a `<literal>` node has that literal as its doc
//!   (Python's first string of a body). `@part` on the declarator of a
//!   statement that defines several names.
//! - `@pattern.<category>` on a convention's construct, keyed by the
//!   pattern's `(#set! key "…{}")` and its `@pattern.key` texts; or, for
//!   Python and the JavaScript family, `@convention` on the nodes whose
//!   conventions [`patterns::TreeMarker`] reads.
//! - `(#is? top-level)`: the definition counts only as a child of the root.
//! - `(#is? file-level)`: the definition is named as at the top of the file
//!   even inside another (a C function inside an Objective-C `@implementation`).
//! - `(#is? scopes-following)`: a statement that names what follows it
//!   (Perl's `package X;`, Erlang's `-module(x).`): the definitions after it,
//!   up to the next such statement or the end of the block around it, are
//!   its members.
//! - `@base.enclosing` on a statement naming a base of the definition around
//!   it (Perl's `use parent 'Base';`, Erlang's `-behaviour(gen_server).`).
//!
//! When several patterns capture the same definition node, the first
//! pattern in the file wins. Everything else (nesting, qualified names,
//! methods, doc comments, signatures) is derived here the same way for every
//! language.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator};

/// The most matches a tags query keeps in progress at once (tree-sitter's
/// match limit; Neovim's is 256), and the deepest node a pattern may start
/// at (a definition inside 256 levels of syntax tree: ~30 nested callbacks).
/// The language tests' fixtures are tagged as before.
const QUERY_MATCH_LIMIT: u32 = 256;
const QUERY_MAX_START_DEPTH: u32 = 256;

use crate::analysis::embedded;
use crate::analysis::lang::Language;
use crate::analysis::pace::Pace;
use crate::analysis::parse::{self, Import, ParsedFile, PatternMark, Span, Symbol, SymbolKind};
use crate::analysis::patterns;
use crate::analysis::receivers;
use crate::analysis::siblings::Siblings;

/// A compiled query per language, compiled on first use (the C++ query takes
/// over 100 ms to compile; most processes never need most languages). Each
/// language has its own cell, so two threads compile two languages at once.
fn compiled(language: Language) -> Option<&'static Query> {
    static CELLS: [OnceLock<Option<Query>>; Language::PARSED.len()] = [const { OnceLock::new() }; Language::PARSED.len()];
    let slot = Language::PARSED.iter().position(|l| *l == language)?;
    CELLS[slot]
        .get_or_init(|| {
            let source = language.tags_query()?;
            let grammar = language.grammar()?;
            // A query that does not compile is a defect of this crate, caught by
            // the tests; at run time the file is then indexed as text.
            Query::new(&grammar, source).ok()
        })
        .as_ref()
}

/// Compiles a language's query, reporting the error (for tests).
pub fn check_query(language: Language) -> Result<(), String> {
    let (Some(source), Some(grammar)) = (language.tags_query(), language.grammar()) else {
        return Err(format!("{} has no tags query", language.name()));
    };
    Query::new(&grammar, source).map(|_| ()).map_err(|e| format!("{}: {e}", language.name()))
}

/// One definition or scope as captured.
struct Captured<'t> {
    pattern: usize,
    outer: Node<'t>,
    /// `None` for a `@scope.impl` block.
    kind: Option<SymbolKind>,
    name: Option<Node<'t>>,
    body: Option<Node<'t>>,
    scope: Option<Node<'t>>,
    bases: Vec<Node<'t>>,
    /// A docstring (Python's first string of a body).
    doc: Option<Node<'t>>,
    /// The part of a statement that defines several names that is this
    /// definition's (a declarator of `const a = …, b = …`).
    part: Option<Node<'t>>,
    /// `(#is? file-level)`: not nested in the definition around it.
    file_level: bool,
    /// `(#is? scopes-following)`: owns the definitions after it.
    scopes_following: bool,
}

/// What a definition or scope contributes to the names nested in it.
struct Frame {
    end: usize,
    /// The qualified name members are prefixed with.
    qualified: String,
    /// The symbol, when the frame is one (not a `@scope.impl`).
    symbol: Option<usize>,
    /// Members of a class-like frame are methods.
    class_like: bool,
    /// A type alias, constant or variable: definitions inside it are part of it.
    opaque: bool,
}

const MAX_CALL_TEXT: usize = 120;

/// What the grammar reads instead of `source`, if anything: C and C++ with
/// attribute-like macros blanked ([`crate::analysis::macros`]). Every text
/// is still read from `source` (the offsets are the same).
fn blanked_for_parsing(language: Language, source: &[u8]) -> Option<Vec<u8>> {
    match language {
        Language::C | Language::Cpp => crate::analysis::macros::blank_attribute_macros(source),
        _ => None,
    }
}

/// How much of its input a parse may read, as a multiple of the input's
/// size, plus [`PARSE_READ_SLACK`]. The lexer reads each byte about once,
/// and again where it backtracks; a scanner that rescans the rest of the
/// file reads far more — Julia's, in error recovery, looks for the end of a
/// string or comment up to the end of the file at every error: quadratic,
/// minutes for 1 MB of small broken statements. A parse past the budget is
/// given up and the file chunked as text windows ([`NotParsed::TooCostly`]),
/// which bounds every file's cost by its size. Counted in bytes read, not
/// time: the same file always gets the same chunks. Ordinary code reads
/// under 3.5× (measured on the fixtures of every parsed language and six
/// repositories in seven languages, 22 MB).
pub const PARSE_READ_FACTOR: usize = 16;
/// What any parse may read beyond [`PARSE_READ_FACTOR`] × its size, so that
/// a small file never meets the budget.
const PARSE_READ_SLACK: usize = 1 << 20;
/// The most the parser is handed at once: what it reads is counted in these.
const PARSE_READ_CHUNK: usize = 256;
/// How long a parse may take per byte it has reached (1 s per MB), with
/// [`crate::analysis::pace::TIME_FLOOR_BYTES`]' worth of slack. Some parses read their input
/// once and still cost far more than its size: tree-sitter's error recovery
/// in a file of syntax errors on every line (2.7–16 s per MB in the C
/// family, Go, Java, Dart), one expression of 250,000 terms (Elixir 18 s,
/// Perl 24 s, SQL 40 s per MB). No byte count sees them, so past this time
/// the parse is given up like one past the read budget. Checked at every
/// point of the file, not only its end: such a file shows its pace in its
/// first few hundred KB, and waiting for the whole file's time only to give
/// it up cost that much again. Counted in the thread's CPU time, which a
/// loaded machine barely changes (wall time where the platform has no
/// thread clock). Ordinary code's slowest pace measured here is 0.48 µs per
/// byte (SQL; Dart, HCL and Haskell 0.24–0.31; most languages 0.1–0.2).
pub const PARSE_TIME_PER_BYTE: std::time::Duration = std::time::Duration::from_nanos(1_000);
/// How long a file's tags query may take per byte it has reached, as a
/// parse may ([`PARSE_TIME_PER_BYTE`]). Matching walks the tree once, but a
/// tree of one huge line or of 20,000 nested brackets keeps patterns in
/// progress across it: Clojure's query over 1 MB on one line took 2 s and
/// grew with the file. Past it the file is chunked as text windows, as a
/// parse past its limit is. Ordinary code's slowest query pace measured
/// here is 0.25 µs per byte (C++; most languages 0.05–0.15, on
/// the files over 20 KB of nine repositories in 15 languages).
pub const QUERY_TIME_PER_BYTE: std::time::Duration = std::time::Duration::from_nanos(1_000);

/// Why a file has no parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotParsed {
    /// No grammar or tags query for the language (or the file is markup).
    NoGrammar,
    /// The parse read more than [`PARSE_READ_FACTOR`] times the file, or
    /// took longer than [`PARSE_TIME_PER_BYTE`] allows, or the tags query
    /// longer than [`QUERY_TIME_PER_BYTE`].
    TooCostly,
}

/// Parses `source` with the language's grammar and tags query.
pub fn parse(language: Language, source: &[u8]) -> Result<ParsedFile, NotParsed> {
    // A component's scripts only; none: the file is markup (text).
    match embedded::code_ranges(language, source) {
        Some(ranges) if ranges.is_empty() => Err(NotParsed::NoGrammar),
        Some(ranges) => parse_within(language, source, &ranges),
        None => parse_within(language, source, &[]),
    }
}

/// The syntax tree of `source` alone (no query run over it), parsed as
/// [`parse`] parses it: a component's scripts only, C's attribute macros
/// blanked, within the same budgets.
pub(crate) fn syntax_tree(language: Language, source: &[u8]) -> Result<tree_sitter::Tree, NotParsed> {
    let grammar = language.grammar().ok_or(NotParsed::NoGrammar)?;
    let ranges = match embedded::code_ranges(language, source) {
        Some(ranges) if ranges.is_empty() => return Err(NotParsed::NoGrammar),
        Some(ranges) => embedded::included(source, &ranges),
        None => Vec::new(),
    };
    let blanked = blanked_for_parsing(language, source);
    parse_tree(&grammar, blanked.as_deref().unwrap_or(source), &ranges).map(|(tree, _)| tree)
}

/// What the fenced code blocks of a Markdown text call ([`embedded::fenced_blocks`]),
/// each language's blocks parsed together: the names a document's examples
/// use, so that the code graph lists the document among their callers. The
/// examples' own definitions are not the project's and are left out.
pub fn fenced_calls(source: &[u8]) -> Vec<String> {
    let mut by_language: Vec<(Language, Vec<std::ops::Range<usize>>)> = Vec::new();
    for (language, range) in embedded::fenced_blocks(source) {
        match by_language.iter_mut().find(|(l, _)| *l == language) {
            Some((_, ranges)) => ranges.push(range),
            None => by_language.push((language, vec![range])),
        }
    }
    let mut calls: Vec<String> = Vec::new();
    for (language, ranges) in by_language {
        let Ok(parsed) = parse_within(language, source, &ranges) else { continue };
        let raws = parsed.symbols.into_iter().flat_map(|s| s.calls).chain(parsed.module_calls);
        for raw in raws {
            if !calls.contains(&raw) {
                calls.push(raw);
            }
        }
    }
    calls
}

/// [`parse`] of only `within` (byte ranges of `source`; empty: all of it).
fn parse_within(language: Language, source: &[u8], within: &[std::ops::Range<usize>]) -> Result<ParsedFile, NotParsed> {
    let query = compiled(language).ok_or(NotParsed::NoGrammar)?;
    let grammar = language.grammar().ok_or(NotParsed::NoGrammar)?;
    let blanked = blanked_for_parsing(language, source);
    let (tree, bytes_read) = parse_tree(&grammar, blanked.as_deref().unwrap_or(source), &embedded::included(source, within))?;
    let root = tree.root_node();
    let Matches { mut defs, mut calls, imports, mut pattern_marks, mut convention_nodes, enclosing_bases, bindings } = collect(query, root, source, language)?;
    let siblings = Siblings::around(root, defs.values().map(|d| d.outer.start_byte()).collect());
    if language.is_config() {
        limit_keys(&mut defs, &siblings);
    }
    // A definition's head written as a call (Julia's `f(x) = …`) is not one.
    let heads: HashSet<usize> = defs.values().filter_map(|d| d.name.map(|n| n.start_byte())).collect();
    calls.retain(|(at, _)| !heads.contains(at));
    match language {
        Language::Sql => calls.iter_mut().for_each(|(_, callee)| *callee = unquote_identifiers(callee)),
        // Clojure's `str/join` is the var `join` of the namespace `str`.
        Language::Clojure => calls.iter_mut().for_each(|(_, callee)| *callee = callee.replace('/', ".")),
        // Perl's `URI::Escape::escape_char` is the sub `escape_char` of the package `URI::Escape`.
        Language::Perl => calls.iter_mut().for_each(|(_, callee)| *callee = callee.replace("::", ".")),
        _ => {}
    }
    if patterns::marked_from_tree(language) {
        // In document order, as a walk of the tree would meet them.
        convention_nodes.sort_by_key(|n| (n.start_byte(), std::cmp::Reverse(n.end_byte())));
        convention_nodes.dedup_by_key(|n| n.id());
        let mut marker = patterns::TreeMarker::new(language, source);
        for node in convention_nodes {
            marker.visit(node);
        }
        pattern_marks.extend(marker.finish());
    }

    // One definition per name: a pattern for a whole declaration and one for
    // its inner spec may both match (Go's `type X struct` and `type ( … )`).
    let mut by_name_node: HashMap<usize, Captured> = HashMap::new();
    for d in defs.into_values() {
        let Some(name) = d.name else { continue };
        match by_name_node.get(&name.id()) {
            Some(prev) if prev.pattern < d.pattern => {}
            _ => {
                by_name_node.insert(name.id(), d);
            }
        }
    }
    let mut defs: Vec<Captured> = by_name_node.into_values().collect();
    let name_start = |d: &Captured| d.name.map_or(0, |n| n.start_byte());
    defs.sort_by_cached_key(|d| (d.outer.start_byte(), std::cmp::Reverse(d.outer.end_byte()), name_start(d)));
    // Nesting follows the extents: a definition inside `a` of `const a = …,
    // b = …` comes before `b`.
    let ranges = extents(&defs, &siblings);
    let mut paired: Vec<(Captured, (usize, usize))> = defs.into_iter().zip(ranges).collect();
    paired.sort_by_key(|(d, r)| (r.0, std::cmp::Reverse(r.1), name_start(d)));
    let (defs, ranges): (Vec<Captured>, Vec<(usize, usize)>) = paired.into_iter().unzip();
    let mut out = Extracted {
        src: source,
        siblings,
        language,
        symbols: Vec::new(),
        extents: Vec::new(),
        defs_by_node: HashMap::new(),
        def_node_ranges: HashMap::new(),
        impl_bases: Vec::new(),
        first_named: HashMap::new(),
    };
    out.register_all(&defs, &ranges);
    out.attach_impl_bases();
    out.attach_enclosing_bases(&enclosing_bases);
    let module_calls = out.attach_calls(calls, bindings);

    let mut imports: Vec<ImportEntry> = imports.into_values().collect();
    imports.sort_by_key(|a| (a.0, a.1));
    let imports = imports.into_iter().map(|(line, _, module, names)| Import { module, names, line }).collect();
    let has_errors = root.has_error();
    let error_lines = if has_errors { lines_in_errors(root) } else { 0 };
    let Extracted { symbols, defs_by_node, def_node_ranges, .. } = out;
    Ok(ParsedFile { bytes_read, language, tree, symbols, imports, module_calls, defs_by_node, def_node_ranges, has_errors, error_lines, pattern_marks })
}

/// `input` parsed within `ranges` (empty: all of it) and within the read
/// budget ([`PARSE_READ_FACTOR`]) and the time limit ([`PARSE_TIME_PER_BYTE`]),
/// and the bytes the parse read.
fn parse_tree(grammar: &tree_sitter::Language, input: &[u8], ranges: &[tree_sitter::Range]) -> Result<(tree_sitter::Tree, usize), NotParsed> {
    // One parser per thread, kept between files: its stacks and buffers are
    // reused instead of allocated for each file.
    thread_local! {
        static PARSER: std::cell::RefCell<Parser> = std::cell::RefCell::new(Parser::new());
    }
    let budget = input.len().saturating_mul(PARSE_READ_FACTOR).saturating_add(PARSE_READ_SLACK);
    let read = std::cell::Cell::new(0usize);
    let pace = Pace::start(PARSE_TIME_PER_BYTE);
    let tree = PARSER.with_borrow_mut(|parser| {
        parser.set_language(grammar).ok()?;
        // Empty: the whole file (and what the next file starts from).
        parser.set_included_ranges(ranges).ok()?;
        let mut next_chunk = |at: usize, _: tree_sitter::Point| {
            let piece = input.get(at..).unwrap_or_default();
            // Ended on a character's end: tree-sitter's lexer mishandles a
            // character cut between two pieces (a Dart scanner's column
            // lookup read past a piece and crashed on CJK text).
            let mut end = piece.len().min(PARSE_READ_CHUNK);
            while piece.get(end).is_some_and(|b| b & 0xC0 == 0x80) {
                end += 1;
            }
            let piece = &piece[..end];
            read.set(read.get() + piece.len());
            // Past the budget the input ends (a rescanning scanner stops at
            // once) and the parse is cancelled at its next check.
            if read.get() > budget {
                &[][..]
            } else {
                piece
            }
        };
        // Called every 100 parse actions.
        let mut over_budget = |state: &tree_sitter::ParseState| {
            if read.get() > budget || pace.past(state.current_byte_offset()) {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        };
        let options = tree_sitter::ParseOptions::new().progress_callback(&mut over_budget);
        let tree = parser.parse_with_options(&mut next_chunk, None, Some(options)).filter(|_| read.get() <= budget && !pace.was_late());
        if tree.is_none() || !ranges.is_empty() {
            // Whatever a failed parse left behind must not start the next one.
            parser.reset();
            parser.set_included_ranges(&[]).ok()?;
        }
        tree
    });
    match tree {
        Some(tree) => Ok((tree, read.get())),
        None if read.get() > budget || pace.was_late() => Err(NotParsed::TooCostly),
        None => Err(NotParsed::NoGrammar),
    }
}

/// (line, byte offset of the module, module, names).
type ImportEntry = (usize, usize, String, Vec<String>);

/// What the query captured, grouped by kind.
struct Matches<'t> {
    /// (Definition or scope node id, name node id) → its captures (the first pattern's).
    defs: HashMap<(usize, Option<usize>), Captured<'t>>,
    /// (byte offset, callee text).
    calls: Vec<(usize, String)>,
    /// (Import node id, module) → the import.
    imports: HashMap<(usize, String), ImportEntry>,
    pattern_marks: Vec<PatternMark>,
    /// `@convention` nodes, for [`patterns::TreeMarker`].
    convention_nodes: Vec<Node<'t>>,
    /// `@base.enclosing` nodes: bases of the definition around each.
    enclosing_bases: Vec<Node<'t>>,
    /// Names the code gives a type (`@binding`), for calls through them.
    bindings: Vec<receivers::Binding>,
}

/// A query cursor within the match limit and start depth.
fn bounded_cursor(language: Language) -> QueryCursor {
    let mut cursor = QueryCursor::new();
    // A chain of 250,000 `a + a + …` is a tree as deep: every level keeps a
    // pattern in progress, and tree-sitter orders them all at each step
    // (an Elixir file of 1 MB: over 5 minutes; now 8 s). Past the limit the
    // oldest are dropped, and no pattern starts deeper than the depth.
    cursor.set_match_limit(QUERY_MATCH_LIMIT);
    cursor.set_max_start_depth(Some(QUERY_MAX_START_DEPTH));
    // A configuration query's patterns start at the root: the rest of a
    // large data file is walked only as deep as they reach.
    if language.is_config() {
        cursor.set_max_start_depth(Some(0));
    }
    cursor
}

/// What each pattern of a tags query asks beyond its captures.
struct PatternRules {
    /// Where a pattern's docstring is (`(#set! docstring …)`).
    docstring: Vec<Option<(String, String)>>,
    /// `(#is? top-level)`: the definition counts only as a child of the
    /// file's root (a module-level variable). Checked on each match rather
    /// than written as `(module (…))`: a pattern under the root stays in
    /// progress through the whole file, which made matching a fifth slower.
    top_level_only: Vec<bool>,
    file_level: Vec<bool>,
    scopes_following: Vec<bool>,
}

impl PatternRules {
    fn of(query: &Query) -> Self {
        let is = |key: &str| -> Vec<bool> {
            (0..query.pattern_count()).map(|i| query.property_predicates(i).iter().any(|(p, positive)| *positive && &*p.key == key)).collect()
        };
        PatternRules {
            docstring: (0..query.pattern_count()).map(|i| docstring_rule(query, i)).collect(),
            top_level_only: is("top-level"),
            file_level: is("file-level"),
            scopes_following: is("scopes-following"),
        }
    }
}

/// An import statement's module and the names it imports from it, merged
/// into what the statement already gave (one entry per statement and module).
fn add_import(imports: &mut HashMap<(usize, String), ImportEntry>, source: &[u8], node: Node, module: Node, names: Vec<Node>) {
    let module_text = unquote_path(&dotted_path_text(source, module));
    let entry =
        imports.entry((node.id(), module_text.clone())).or_insert_with(|| (node.start_position().row + 1, module.start_byte(), module_text, Vec::new()));
    for n in names {
        let n = parse::node_text(source, n);
        if !entry.3.contains(&n) {
            entry.3.push(n);
        }
    }
}

/// The query's matches over the tree, or none when the query ran past its
/// pace ([`QUERY_TIME_PER_BYTE`]).
fn collect<'t>(query: &Query, root: Node<'t>, source: &[u8], language: Language) -> Result<Matches<'t>, NotParsed> {
    let names = query.capture_names();
    let mut defs: HashMap<(usize, Option<usize>), Captured> = HashMap::new();
    let mut calls: Vec<(usize, String)> = Vec::new();
    let mut convention_nodes = Vec::new();
    let mut imports: HashMap<(usize, String), ImportEntry> = HashMap::new();
    let mut marks: HashMap<(usize, usize), (PatternMark, Vec<(usize, String)>)> = HashMap::new();
    let rules = PatternRules::of(query);
    // The root's children by id: `Node::parent` searches from the root
    // down, and asking it of each of thousands of top-level definitions
    // was quadratic.
    let root_children: HashSet<usize> = match rules.top_level_only.contains(&true) {
        true => root.children(&mut root.walk()).map(|n| n.id()).collect(),
        false => HashSet::new(),
    };
    let mut enclosing_bases = Vec::new();
    let mut bindings = Vec::new();
    let mut cursor = bounded_cursor(language);
    let pace = Pace::start(QUERY_TIME_PER_BYTE);
    let mut on_time = |state: &tree_sitter::QueryCursorState| {
        if pace.past(state.current_byte_offset()) {
            std::ops::ControlFlow::Break(())
        } else {
            std::ops::ControlFlow::Continue(())
        }
    };
    let options = tree_sitter::QueryCursorOptions::new().progress_callback(&mut on_time);
    let mut matches = cursor.matches_with_options(query, root, source, options);
    while let Some(m) = matches.next() {
        if let Some((id, mark, parts)) = pattern_mark(query, m.captures, source) {
            // A quantified capture (`rescue A, B`) matches once per node: gather the parts.
            let entry = marks.entry((m.pattern_index, id)).or_insert_with(|| (mark, Vec::new()));
            entry.1.extend(parts);
            continue;
        }
        let mut outer: Option<(Node, &str)> = None;
        let (mut name, mut body, mut scope, mut callee, mut module) = (None, None, None, None, None);
        let (mut receiver, mut args, mut doc, mut part) = (None, None, None, None);
        let (mut bound_name, mut bound_type) = (None, None);
        let (mut bases, mut import_names) = (Vec::new(), Vec::new());
        for c in m.captures {
            let capture = names[c.index as usize];
            match capture {
                "name" => name = Some(c.node),
                "body" => body = Some(c.node),
                "scope" => scope = Some(c.node),
                "doc" => doc = Some(c.node),
                "part" => part = Some(c.node),
                "base" => bases.push(c.node),
                "callee" => callee = Some(c.node),
                "callee.object" => receiver = Some(c.node),
                "callee.args" => args = Some(c.node),
                "import.module" => module = Some(c.node),
                "import.name" => import_names.push(c.node),
                "convention" => convention_nodes.push(c.node),
                "base.enclosing" => enclosing_bases.push(c.node),
                "binding.name" => bound_name = Some(c.node),
                "binding.type" => bound_type = Some(c.node),
                _ if capture.starts_with("definition.")
                    || matches!(capture, "scope.impl" | "reference.call" | "import" | "binding" | "binding.member" | "binding.alias") =>
                {
                    outer = Some((c.node, capture));
                }
                _ => {}
            }
        }
        let Some((node, capture)) = outer else { continue };
        match capture {
            "reference.call" => calls.extend(callee.and_then(|callee| captured_call(source, node, callee, receiver, args))),
            "binding" | "binding.member" | "binding.alias" => {
                bindings.extend(receivers::Binding::captured(source, node, receivers::BindingKind::of_capture(capture), bound_name, bound_type))
            }
            "import" => {
                // One statement may import several modules (`import a, b`).
                if let Some(module) = module {
                    add_import(&mut imports, source, node, module, import_names);
                }
            }
            _ => {
                if rules.top_level_only[m.pattern_index] && node.id() != root.id() && !root_children.contains(&node.id()) {
                    continue;
                }
                let kind = capture.strip_prefix("definition.").map(kind_of);
                let doc = doc.or_else(|| rules.docstring[m.pattern_index].as_ref().and_then(|rule| docstring(body?, rule)));
                let (file_level, scopes_following) = (rules.file_level[m.pattern_index], rules.scopes_following[m.pattern_index]);
                let captured = Captured { pattern: m.pattern_index, outer: node, kind, name, body, scope, bases, doc, part, file_level, scopes_following };
                add_definition(&mut defs, captured);
            }
        }
    }
    drop(matches);
    if pace.was_late() {
        return Err(NotParsed::TooCostly);
    }
    let pattern_marks = finish_marks(query, marks);
    Ok(Matches { defs, calls, imports, pattern_marks, convention_nodes, enclosing_bases, bindings })
}

/// The keys a configuration file may define. Past it the file is data (a
/// translation table, a fixture) whose keys would swamp the symbol table
/// and the vectors: the second level goes, and past it again every key.
const MAX_KEYS: usize = 500;

/// Drops a data file's keys ([`MAX_KEYS`]); its chunks stay.
fn limit_keys<'t>(defs: &mut HashMap<(usize, Option<usize>), Captured<'t>>, siblings: &Siblings<'t>) {
    if defs.len() <= MAX_KEYS {
        return;
    }
    let outers: HashSet<usize> = defs.values().map(|d| d.outer.id()).collect();
    defs.retain(|_, d| !std::iter::successors(siblings.parent(d.outer), |n| siblings.parent(*n)).any(|n| outers.contains(&n.id())));
    if defs.len() > MAX_KEYS {
        defs.clear();
    }
}

/// A module's text, with the segments written before it when the grammar
/// gives each segment of a dotted path a node of its own (Scala's `import
/// a.b.C` is `a`, `.`, `b`, `.`, `C`: captured `C`, read `a.b.C`).
fn dotted_path_text(source: &[u8], module: Node) -> String {
    let mut start = module;
    while let Some(dot) = start.prev_sibling().filter(|n| !n.is_named() && n.kind() == ".") {
        match dot.prev_sibling().filter(|n| n.kind() == module.kind()) {
            Some(segment) => start = segment,
            None => break,
        }
    }
    let text = String::from_utf8_lossy(source.get(start.start_byte()..module.end_byte()).unwrap_or_default());
    text.split_whitespace().collect()
}

/// The called expression as written, without whitespace; `None` when empty
/// or too long to be a name. Grammars without a node for `obj.name` (Java,
/// Ruby) give the `receiver` apart.
fn call_text(source: &[u8], callee: Node, receiver: Option<Node>) -> Option<String> {
    let written = match receiver {
        Some(r) => format!("{}.{}", parse::node_text(source, r), parse::node_text(source, callee)),
        None => parse::node_text(source, callee),
    };
    let text: String = written.split_whitespace().collect();
    (!text.is_empty() && text.len() <= MAX_CALL_TEXT).then_some(text)
}

/// A `@reference.call` match as (byte offset, callee text): a call among a
/// macro's tokens when it has `@callee.args`, else the called expression.
fn captured_call(source: &[u8], call: Node, callee: Node, receiver: Option<Node>, args: Option<Node>) -> Option<(usize, String)> {
    match args {
        Some(args) => token_tree_call(source, callee, args),
        None => call_text(source, callee, receiver).map(|text| (call.start_byte(), text)),
    }
}

/// A call written inside a macro's arguments, where the grammar has only
/// tokens (Rust's token trees): `name` touching the parenthesised group
/// after it, read with the path or receiver written before it (`Foo::new`,
/// `self.state.save`), at the byte where that starts. `None` where the
/// group does not touch the name (`x + (y)`, `return (x)`), is not
/// parenthesised (`a[0]`, `S { x }`) or the name is declared (`fn name(…)`
/// in a macro's body).
fn token_tree_call(source: &[u8], name: Node, args: Node) -> Option<(usize, String)> {
    let touching = |a: Node, b: Node| a.end_byte() == b.start_byte();
    if name.next_sibling()?.id() != args.id() || !touching(name, args) || source.get(args.start_byte()) != Some(&b'(') {
        return None;
    }
    let mut start = name;
    while let Some(separator) = start.prev_sibling().filter(|s| matches!(s.kind(), "." | "::") && touching(*s, start)) {
        let segment = separator.prev_sibling().filter(|p| matches!(p.kind(), "identifier" | "self" | "crate" | "super") && touching(*p, separator));
        match segment {
            Some(segment) => start = segment,
            None => break,
        }
    }
    if start.prev_sibling().is_some_and(|p| parse::node_text(source, p) == "fn") {
        return None;
    }
    let written = String::from_utf8_lossy(source.get(start.start_byte()..name.end_byte())?).into_owned();
    (written.len() <= MAX_CALL_TEXT).then_some((start.start_byte(), written))
}

/// A pattern's `(#set! docstring "<statement> <literal>")`.
fn docstring_rule(query: &Query, pattern: usize) -> Option<(String, String)> {
    let setting = query.property_settings(pattern).iter().find(|p| &*p.key == "docstring")?;
    let (statement, literal) = setting.value.as_deref()?.split_once(' ')?;
    Some((statement.to_string(), literal.to_string()))
}

/// How many lines lie inside `ERROR` nodes (an error inside another is
/// counted once; a line shared by two errors, once). A root that is itself
/// an error (tree-sitter gives up on the file as a whole, yet its children
/// are whole functions: the kernel's `sched/core.c`) counts by its children.
fn lines_in_errors(root: Node) -> usize {
    let mut ranges = Vec::new();
    let mut stack = vec![root];
    let mut cursor = root.walk();
    while let Some(node) = stack.pop() {
        if node.is_error() && node.id() != root.id() {
            ranges.push((node.start_position().row, node.end_position().row));
            continue;
        }
        stack.extend(node.children(&mut cursor).filter(|c| c.has_error()));
    }
    ranges.sort_unstable();
    let (mut lines, mut next) = (0, 0);
    for (start, end) in ranges {
        let start = start.max(next);
        if end >= start {
            lines += end - start + 1;
            next = end + 1;
        }
    }
    lines
}

/// The docstring of a body by its definition's rule: the literal that
/// starts its first statement.
fn docstring<'t>(body: Node<'t>, (statement, literal): &(String, String)) -> Option<Node<'t>> {
    let first = body.named_child(0).filter(|n| n.kind() == statement)?;
    first.named_child(0).filter(|n| n.kind() == literal)
}

/// Keeps one capture per (definition node, name): the first pattern's, with
/// the bases of all its matches (a pattern matches once per `@base`).
fn add_definition<'t>(defs: &mut HashMap<(usize, Option<usize>), Captured<'t>>, captured: Captured<'t>) {
    let key = (captured.outer.id(), captured.name.map(|n| n.id()));
    match defs.get(&key) {
        Some(prev) if prev.pattern < captured.pattern => {}
        Some(prev) if prev.pattern == captured.pattern => {
            let mut merged = captured;
            let prev = defs.remove(&key).map(|p| p.bases).unwrap_or_default();
            for b in prev {
                if !merged.bases.iter().any(|x| x.id() == b.id()) {
                    merged.bases.push(b);
                }
            }
            merged.bases.sort_by_key(|b| b.start_byte());
            defs.insert(key, merged);
        }
        _ => {
            defs.insert(key, captured);
        }
    }
}

/// Marks with their keys, in source order.
fn finish_marks(query: &Query, marks: HashMap<(usize, usize), (PatternMark, Vec<(usize, String)>)>) -> Vec<PatternMark> {
    let mut pattern_marks: Vec<PatternMark> = marks
        .into_iter()
        .map(|((pattern, _), (mut mark, mut parts))| {
            parts.sort();
            parts.dedup();
            let setting = |key: &str| query.property_settings(pattern).iter().find(|p| &*p.key == key).and_then(|p| p.value.as_deref());
            let joined = parts.into_iter().map(|(_, text)| text).collect::<Vec<_>>().join(setting("join").unwrap_or("."));
            mark.key = match setting("key") {
                Some(template) => template.replace("{}", &joined),
                None => format!("{}:{joined}", mark.category.as_str()),
            };
            mark
        })
        .collect();
    pattern_marks.sort_by(|a, b| (a.start_byte, a.end_byte, &a.key).cmp(&(b.start_byte, b.end_byte, &b.key)));
    pattern_marks.dedup();
    pattern_marks
}

/// A match of a `@pattern.<category>` capture: the construct's node id, the
/// mark (its key still empty) and the `@pattern.key` texts by position. The
/// key is the pattern's `(#set! key "…")` with `{}` replaced by those texts
/// (joined by `.`, or by the pattern's `(#set! join "…")`), or the category
/// and the texts when the pattern sets no key. An attribute or annotation
/// (`#[test]`) stands for the definition it marks.
fn pattern_mark(query: &Query, captures: &[tree_sitter::QueryCapture], source: &[u8]) -> Option<(usize, PatternMark, Vec<(usize, String)>)> {
    let names = query.capture_names();
    let (construct, category) = captures.iter().find_map(|c| {
        let category = names[c.index as usize].strip_prefix("pattern.")?;
        crate::analysis::patterns::PatternCategory::all().iter().find(|k| k.as_str() == category).map(|k| (c.node, *k))
    })?;
    let parts: Vec<(usize, String)> = captures
        .iter()
        .filter(|c| names[c.index as usize] == "pattern.key")
        .map(|c| (c.node.start_byte(), parse::node_text(source, c.node).split_whitespace().collect::<String>()))
        .collect();
    let mut end = construct.end_byte();
    if is_attribute(construct.kind()) {
        let mut next = construct.next_named_sibling();
        while let Some(n) = next.filter(|n| is_attribute(n.kind()) || is_comment(n.kind())) {
            next = n.next_named_sibling();
        }
        if let Some(def) = next {
            end = def.end_byte();
        }
    }
    let mark = PatternMark { category, key: String::new(), start_byte: construct.start_byte(), end_byte: end };
    Some((construct.id(), mark, parts))
}

fn kind_of(name: &str) -> SymbolKind {
    match name {
        "method" => SymbolKind::Method,
        "class" => SymbolKind::Class,
        "interface" => SymbolKind::Interface,
        "type" => SymbolKind::Type,
        "enum" => SymbolKind::Enum,
        "const" => SymbolKind::Const,
        "variable" => SymbolKind::Variable,
        "module" => SymbolKind::Module,
        "key" => SymbolKind::Key,
        _ => SymbolKind::Function,
    }
}

/// The byte range each definition owns, for nesting and for calls: its
/// statement, or where one statement defines several names (`const a = …,
/// b = …`), the part from its declarator (the first: from the statement's
/// start) to the next one's.
fn extents<'t>(defs: &[Captured<'t>], siblings: &Siblings<'t>) -> Vec<(usize, usize)> {
    let own_start = |d: &Captured| d.part.or(d.name).map_or(d.outer.start_byte(), |n| n.start_byte());
    let mut ranges: Vec<(usize, usize)> = defs.iter().map(|d| (d.outer.start_byte(), d.outer.end_byte())).collect();
    // A statement scoping what follows it: to the next one in the same
    // block (`defs` are in source order), or to that block's end.
    let mut open_scope: HashMap<Option<usize>, usize> = HashMap::new();
    for i in 0..defs.len() {
        let outer = defs[i].outer.id();
        if i > 0 && defs[i - 1].outer.id() == outer {
            ranges[i].0 = own_start(&defs[i]);
        }
        if i + 1 < defs.len() && defs[i + 1].outer.id() == outer {
            ranges[i].1 = own_start(&defs[i + 1]);
        }
        if defs[i].scopes_following {
            let block = siblings.parent(defs[i].outer);
            if let Some(before) = open_scope.insert(block.map(|b| b.id()), i) {
                ranges[before].1 = defs[i].outer.start_byte();
            }
            ranges[i].1 = block.map_or(ranges[i].1, |b| b.end_byte());
        }
    }
    ranges
}

/// For each of `offsets` (ascending), the innermost of `extents` around it,
/// in one sweep (a scan of every symbol per offset was quadratic).
fn innermost_around(extents: &[(usize, usize)], offsets: impl Iterator<Item = usize>) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..extents.len()).collect();
    order.sort_by(|&a, &b| extents[a].0.cmp(&extents[b].0).then(extents[b].1.cmp(&extents[a].1)));
    let mut stack: Vec<usize> = Vec::new();
    let mut next = 0;
    let mut out = Vec::new();
    for at in offsets {
        while next < order.len() && extents[order[next]].0 <= at {
            let s = order[next];
            while stack.last().is_some_and(|&t| extents[t].1 <= extents[s].0) {
                stack.pop();
            }
            stack.push(s);
            next += 1;
        }
        while stack.last().is_some_and(|&t| extents[t].1 <= at) {
            stack.pop();
        }
        out.push(stack.last().copied());
    }
    out
}

/// `"net/http"`, `<stdio.h>`, `'json'` → the path inside.
fn unquote_path(s: &str) -> String {
    s.trim().trim_matches(['"', '\'', '`', '<', '>']).to_string()
}

struct Extracted<'s, 't> {
    src: &'s [u8],
    /// The definitions' neighbours (their comments, their decorators).
    siblings: Siblings<'t>,
    language: Language,
    symbols: Vec<Symbol>,
    /// Each symbol's range from [`extents`].
    extents: Vec<(usize, usize)>,
    defs_by_node: HashMap<usize, Vec<usize>>,
    def_node_ranges: HashMap<usize, (usize, usize)>,
    /// (type name, qualified prefix, base) from `impl Trait for Type`.
    impl_bases: Vec<(String, String)>,
    /// The first symbol of each qualified name: a scope is looked up by name
    /// once per definition, and a scan of every symbol each time was
    /// quadratic in a file of thousands of small scoped definitions.
    first_named: HashMap<String, usize>,
}

impl<'t> Extracted<'_, 't> {
    fn text(&self, node: Node) -> String {
        parse::node_text(self.src, node)
    }

    /// Registers definitions in source order, nesting each in the innermost
    /// definition or scope that contains it.
    fn register_all(&mut self, defs: &[Captured], extents: &[(usize, usize)]) {
        let mut frames: Vec<Frame> = Vec::new();
        for (d, &(start, end)) in defs.iter().zip(extents) {
            while frames.last().is_some_and(|f| f.end <= start) {
                frames.pop();
            }
            if frames.last().is_some_and(|f| f.opaque) {
                // Part of a declaration that is one symbol (C's `typedef struct {…} T`).
                continue;
            }
            let Some(name_node) = d.name else { continue };
            // Named as written: `exports.f = …` is `exports.f`, short name `f`.
            let written = self.written_name(name_node);
            if written.is_empty() {
                continue;
            }
            let name = crate::analysis::name::declared_own_part(&written).to_string();
            let enclosing = if d.file_level { None } else { frames.last() };
            let explicit_scope = d.scope.map(|s| scope_name(&self.text(s)));
            // The prefix this definition's qualified name gets.
            let prefix = match (&explicit_scope, enclosing) {
                (Some(s), Some(f)) => Some(format!("{}{}{}", f.qualified, self.language.scope_separator(), s)),
                (Some(s), None) => Some(s.clone()),
                (None, Some(f)) => Some(f.qualified.clone()),
                (None, None) => None,
            };
            let Some(kind) = d.kind else {
                // A `@scope.impl`: members are qualified by the type it names.
                let type_name = scope_name(&name);
                let qualified = match &prefix {
                    Some(p) => format!("{p}{}{type_name}", self.language.scope_separator()),
                    None => type_name.clone(),
                };
                for b in &d.bases {
                    self.impl_bases.push((qualified.clone(), self.text(*b)));
                }
                frames.push(Frame { end, qualified, symbol: None, class_like: true, opaque: false });
                continue;
            };
            let in_class = (explicit_scope.is_some() && self.language != Language::Lua) || enclosing.is_some_and(|f| f.class_like);
            let kind = if kind == SymbolKind::Function && in_class { SymbolKind::Method } else { kind };
            let qualified_name = match &prefix {
                Some(p) => format!("{p}{}{written}", self.separator(d.outer, kind)),
                None => written.clone(),
            };
            // The enclosing symbol: the frame's, or the file's definition of the scope.
            let parent_index = match (&explicit_scope, enclosing) {
                (None, Some(f)) => f.symbol.or_else(|| self.first_named.get(&f.qualified).copied()),
                _ => prefix.as_ref().and_then(|p| self.first_named.get(p).copied()),
            };
            // Decorators written before a class member (TypeScript) belong to it.
            let lead = self.leading_decorators(d.outer);
            let (comment, doc_start) = self.leading_doc(lead.unwrap_or(d.outer));
            let comment = comment.or_else(|| self.trailing_doc(d.outer));
            let doc = match d.doc {
                Some(docstring) => Some(parse::clean_docstring(&self.text(docstring))).filter(|d| !d.is_empty()),
                None => comment,
            };
            let mut span = Span::of(d.outer);
            if let Some(lead) = lead {
                let l = Span::of(lead);
                (span.start_byte, span.start_line) = (l.start_byte, l.start_line);
            }
            let bases = d.bases.iter().map(|b| self.text(*b).split_whitespace().collect::<String>()).collect();
            let symbol = Symbol {
                name,
                qualified_name: qualified_name.clone(),
                kind,
                parent: prefix,
                signature: self.signature(d.outer, d.body),
                doc,
                span,
                doc_start,
                body: d.body.map(Span::of),
                calls: Vec::new(),
                bases,
                parent_index,
            };
            self.symbols.push(symbol);
            self.extents.push((span.start_byte.min(start), end));
            let idx = self.symbols.len() - 1;
            self.first_named.entry(qualified_name.clone()).or_insert(idx);
            self.defs_by_node.entry(d.outer.id()).or_default().push(idx);
            self.def_node_ranges.insert(d.outer.id(), (d.outer.start_byte(), d.outer.end_byte()));
            // A C type or constant is one symbol with everything in it; a
            // JavaScript value holds functions of its own (`{ f() {} }`).
            let opaque = matches!(kind, SymbolKind::Type | SymbolKind::Const | SymbolKind::Variable) && !self.language.values_hold_definitions();
            if opaque {
                frames.push(Frame { end, qualified: qualified_name, symbol: Some(idx), class_like: false, opaque });
            } else {
                // Ruby's modules hold methods (mixins); a Rust or C++ module
                // holds functions, as does a statement naming what follows it
                // (an Erlang behaviour: its functions are not methods).
                let class_like = (matches!(kind, SymbolKind::Class | SymbolKind::Interface | SymbolKind::Enum)
                    || (kind == SymbolKind::Module && self.language == Language::Ruby))
                    && !d.scopes_following;
                frames.push(Frame { end, qualified: qualified_name, symbol: Some(idx), class_like, opaque });
            }
        }
    }

    /// A definition's name as written, without whitespace (`exports . f`).
    fn written_name(&self, name_node: Node) -> String {
        match name_node.kind() {
            // A quoted key is a name with its spaces (`{ 'space origin': … }`).
            "string_fragment" | "string_content" => self.text(name_node),
            // A configuration key, spaces and all, without its quotes.
            _ if self.language.is_config() => unquote_key(&self.text(name_node)),
            _ if self.language == Language::Sql => unquote_identifiers(&self.text(name_node)).split_whitespace().collect(),
            _ => self.text(name_node).split_whitespace().collect(),
        }
    }

    /// Ruby writes an instance method `Class#method` and a singleton method
    /// `Class.method`; other languages use one separator throughout.
    fn separator(&self, outer: Node, kind: SymbolKind) -> &'static str {
        match (self.language, kind) {
            (Language::Ruby, SymbolKind::Method) if outer.kind() == "method" => "#",
            (Language::Ruby, SymbolKind::Method) => ".",
            (lang, _) => lang.scope_separator(),
        }
    }

    /// `impl Trait for Type` makes `Trait` a base of `Type` when the file defines it.
    fn attach_impl_bases(&mut self) {
        for (type_name, base) in std::mem::take(&mut self.impl_bases) {
            let base: String = base.split_whitespace().collect();
            if let Some(sym) = self.first_named.get(&type_name).and_then(|&i| self.symbols.get_mut(i)) {
                if !sym.bases.contains(&base) {
                    sym.bases.push(base);
                }
            }
        }
    }

    /// Each `@base.enclosing` becomes a base of the innermost class, module
    /// or interface around it.
    fn attach_enclosing_bases(&mut self, bases: &[Node]) {
        let mut at: Vec<(usize, String)> = bases.iter().map(|b| (b.start_byte(), unquote_path(&self.text(*b)))).collect();
        at.sort_by_key(|(offset, _)| *offset);
        let owners = innermost_around(&self.extents, at.iter().map(|(offset, _)| *offset));
        for ((_, base), owner) in at.into_iter().zip(owners) {
            let container = std::iter::successors(owner, |&s| self.symbols[s].parent_index).find(|&s| self.symbols[s].kind.is_container());
            if let Some(sym) = container.map(|s| &mut self.symbols[s]) {
                if !base.is_empty() && !sym.bases.contains(&base) {
                    sym.bases.push(base);
                }
            }
        }
    }

    /// Each call goes to the innermost symbol around it; the rest are the
    /// module's own calls. A call through a receiver whose type `bindings`
    /// state is written with the type (`state.save` → `IndexState.save`).
    fn attach_calls(&mut self, mut calls: Vec<(usize, String)>, mut bindings: Vec<receivers::Binding>) -> Vec<String> {
        calls.sort_by_key(|(at, _)| *at);
        let ext = std::mem::take(&mut self.extents);
        let owners = innermost_around(&ext, calls.iter().map(|(at, _)| *at));
        bindings.sort_by_key(|b| b.at);
        let binding_owners = innermost_around(&ext, bindings.iter().map(|b| b.at));
        let scopes = receivers::Scopes::new(self.language, &self.symbols, &bindings, &binding_owners);
        let mut module_calls = Vec::new();
        for ((_, text), owner) in calls.into_iter().zip(owners) {
            let text = match scopes.is_empty() {
                true => text,
                false => scopes.typed_call(&self.symbols, owner, &text).unwrap_or(text),
            };
            match owner {
                Some(s) => self.symbols[s].calls.push(text),
                None => module_calls.push(text),
            }
        }
        let mut seen = HashSet::new();
        module_calls.retain(|c| seen.insert(c.clone()));
        for s in &mut self.symbols {
            let mut seen = HashSet::new();
            s.calls.retain(|c| seen.insert(c.clone()));
        }
        module_calls
    }

    /// The comments (and attributes, like Rust's `#[derive]`) right above a
    /// definition: the comment text as its doc, and where its chunk starts.
    fn leading_doc(&self, node: Node<'t>) -> (Option<String>, Option<(usize, usize)>) {
        let mut first: Option<Node> = None;
        let mut comments: Vec<Node> = Vec::new();
        let mut expected_row = node.start_position().row;
        let mut cur = self.siblings.prev(node);
        if self.language.is_config() {
            cur = cur.map(|c| trailing_comment(c).unwrap_or(c));
        }
        while let Some(c) = cur {
            // Julia documents a definition with a string right above it.
            let is_comment = is_comment(c.kind()) || (self.language == Language::Julia && c.kind() == "string_literal");
            if !is_comment && !is_attribute(c.kind()) {
                break;
            }
            let end = c.end_position();
            let end_row = if end.column == 0 && end.row > c.start_position().row { end.row - 1 } else { end.row };
            // A block doc comment (`/** … */`: JSDoc, Javadoc, Doxygen) is
            // written for the next definition even with a blank line between
            // (Express's style); a line comment so set apart is not its doc.
            let gap = if first.is_none() && self.is_block_doc(c) { 2 } else { 1 };
            if end_row + gap < expected_row || end_row > expected_row {
                break;
            }
            if is_comment {
                comments.push(c);
            }
            first = Some(c);
            expected_row = c.start_position().row;
            cur = self.siblings.prev(c);
        }
        let Some(first) = first else { return (None, None) };
        comments.reverse();
        let text: Vec<String> = comments.iter().map(|c| self.text(*c)).collect();
        let doc = parse::clean_comment(&text.join("\n"));
        (Some(doc).filter(|d| !d.is_empty()), Some((first.start_byte(), first.start_position().row + 1)))
    }

    /// OCaml's convention (odoc): a `(** … *)` on the line below a
    /// definition (an interface's `val`, a type) documents it when no
    /// comment above does.
    fn trailing_doc(&self, node: Node<'t>) -> Option<String> {
        if !matches!(self.language, Language::OCaml | Language::OCamlInterface) {
            return None;
        }
        let next = self.siblings.next(node).filter(|c| is_comment(c.kind()) && c.start_position().row <= node.end_position().row + 1)?;
        let text = self.text(next);
        text.starts_with("(**").then(|| parse::clean_comment(&text)).filter(|d| !d.is_empty())
    }

    /// The first of the `decorator` siblings right before `node`.
    fn leading_decorators(&self, node: Node<'t>) -> Option<Node<'t>> {
        let mut first = None;
        let mut cur = self.siblings.prev(node);
        while let Some(c) = cur.filter(|c| c.kind() == "decorator") {
            first = Some(c);
            cur = self.siblings.prev(c);
        }
        first
    }

    /// A `/** … */` comment.
    fn is_block_doc(&self, comment: Node) -> bool {
        self.src.get(comment.start_byte()..comment.end_byte()).is_some_and(|t| t.starts_with(b"/**") && t.ends_with(b"*/") && !t.starts_with(b"/**/"))
    }

    /// The declaration up to its body, on one line, from its keyword
    /// (after decorators).
    fn signature(&self, outer: Node, body: Option<Node>) -> String {
        parse::signature_text(self.src, after_decorators(outer), outer.end_byte(), body.map(|b| b.start_byte()))
    }
}

/// Start of a node's text after its leading decorators (Python's decorated
/// definition, TypeScript's `@sealed export class`).
fn after_decorators(node: Node) -> usize {
    let mut cursor = node.walk();
    let mut start = node.start_byte();
    for child in node.children(&mut cursor) {
        match child.kind() {
            "decorator" | "comment" => start = child.end_byte(),
            "class_declaration" | "abstract_class_declaration" | "function_definition" | "class_definition" => {
                return after_decorators(child).max(start);
            }
            _ => return child.start_byte().max(start),
        }
    }
    start
}

/// `comment`, `line_comment`, `multiline_comment`, … Haskell's `haddock`
/// and SQL's `/* … */` (`marginalia`).
fn is_comment(kind: &str) -> bool {
    kind.contains("comment") || kind == "haddock" || kind == "marginalia"
}

/// YAML and TOML keep the comments between two keys in the block above
/// (the previous key's value, the previous table): the comment that block
/// ends with, whose run goes on to the next key.
fn trailing_comment(node: Node) -> Option<Node> {
    let mut n = node;
    loop {
        let last = n.child(u32::try_from(n.child_count().checked_sub(1)?).ok()?)?;
        if is_comment(last.kind()) {
            return Some(last);
        }
        n = last;
    }
}

/// `"a key"` and `'a key'` → `a key`.
fn unquote_key(text: &str) -> String {
    let t = text.trim();
    let inner = t.strip_prefix('"').and_then(|t| t.strip_suffix('"')).or_else(|| t.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')));
    inner.unwrap_or(t).to_string()
}

/// SQL's quoted identifiers as the names they are: `"public"."User"`,
/// `` `orders` `` and `[dbo].[Orders]` are `public.User`, `orders` and
/// `dbo.Orders`, so a definition and its uses match however each is quoted.
fn unquote_identifiers(text: &str) -> String {
    text.chars().filter(|c| !matches!(c, '"' | '`' | '[' | ']')).collect()
}

fn is_attribute(kind: &str) -> bool {
    // Kotlin parses `@Suppress("x")` above a top-level `fun` as a statement of
    // its own; Elixir's `@doc`/`@spec` above a `def` are unary operators.
    matches!(kind, "attribute_item" | "attribute_list" | "annotation" | "marker_annotation" | "annotated_expression" | "unary_operator")
}

/// A scope written as a type: `*Server` → `Server`, `Foo<T>` → `Foo`,
/// `a::b::Foo` stays qualified.
fn scope_name(text: &str) -> String {
    let t: String = text.split_whitespace().collect();
    let t = t.trim_start_matches(['*', '&']);
    let t = t.strip_prefix("mut").filter(|_| text.contains("&mut")).unwrap_or(t);
    match t.find(['<', '[', '(']) {
        Some(i) => t[..i].to_string(),
        None => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles() {
        for &lang in Language::PARSED {
            if lang.tags_query().is_some() {
                check_query(lang).unwrap();
            }
        }
    }

    fn symbols(lang: Language, src: &str) -> Vec<(String, &'static str, Option<String>)> {
        let parsed = parse(lang, src.as_bytes()).expect("parsed");
        parsed.symbols.iter().map(|s| (s.qualified_name.clone(), s.kind.as_str(), s.parent.clone())).collect()
    }

    fn has(syms: &[(String, &'static str, Option<String>)], q: &str, kind: &str) {
        assert!(syms.iter().any(|(n, k, _)| n == q && *k == kind), "no {kind} {q} in {syms:?}");
    }

    #[test]
    fn rust_items_impls_and_modules() {
        let src = "use crate::a::{B, c::D};\nmod tests;\n/// Doc of S.\n#[derive(Debug)]\npub struct S<T> { x: T }\n\nimpl<T: Clone> Display for S<T> {\n    fn fmt(&self) -> R { let y = helper(self.x.clone())?; write!(f, \"{}\", y) }\n}\nimpl S<u8> { pub const N: u8 = 1; pub fn new() -> Self { S::default() } }\ntrait Tr: Base { fn req(&self); fn prov(&self) {} }\nmod inner { pub fn h() {} }\nmacro_rules! m { () => {} }\n";
        let syms = symbols(Language::Rust, src);
        has(&syms, "S", "class");
        has(&syms, "S::fmt", "method");
        has(&syms, "S::new", "method");
        has(&syms, "S::N", "const");
        has(&syms, "Tr", "interface");
        has(&syms, "Tr::req", "method");
        has(&syms, "inner", "module");
        has(&syms, "inner::h", "function");
        has(&syms, "m", "function");
        let parsed = parse(Language::Rust, src.as_bytes()).unwrap();
        let s = parsed.symbols.iter().find(|s| s.qualified_name == "S").unwrap();
        assert_eq!(s.doc.as_deref(), Some("Doc of S."));
        assert_eq!(s.doc_start.map(|(_, l)| l), Some(3), "the chunk starts at the doc comment");
        assert!(s.bases.contains(&"Display".to_string()), "{:?}", s.bases);
        let fmt = parsed.symbols.iter().find(|s| s.qualified_name == "S::fmt").unwrap();
        assert_eq!(fmt.parent.as_deref(), Some("S"));
        assert!(fmt.calls.contains(&"helper".to_string()) && fmt.calls.contains(&"write".to_string()), "{:?}", fmt.calls);
        let imports: Vec<(String, Vec<String>)> = parsed.imports.iter().map(|i| (i.module.clone(), i.names.clone())).collect();
        assert!(imports.contains(&("crate::a".to_string(), vec!["B".to_string(), "D".to_string()])), "{imports:?}");
        assert!(imports.iter().any(|(m, _)| m == "tests"), "{imports:?}");
    }

    #[test]
    fn rust_calls_inside_a_macro_s_arguments() {
        let src = "fn t(state: &mut State) {\n    assert_eq!(parse(\"x\"), Some(1));\n    assert!(\n        state.save(&dir).is_ok(),\n        \"{}\", Foo::new(2).len()\n    );\n    let v = vec![a + (b), c[0], S { x }, self.cache.get(k)];\n}\nmacro_rules! m { () => { fn made(x: u8) {} helper(x) } }\n";
        let parsed = parse(Language::Rust, src.as_bytes()).unwrap();
        let calls = |q: &str| parsed.symbols.iter().find(|s| s.qualified_name == q).map(|s| s.calls.clone()).unwrap_or_default();
        let t = calls("t");
        // `state.save` is `State.save`: the receiver's type is the parameter's (receivers.rs).
        for call in ["assert_eq", "parse", "Some", "assert", "State.save", "is_ok", "Foo::new", "len", "vec", "self.cache.get"] {
            assert!(t.contains(&call.to_string()), "{call} not in {t:?}");
        }
        for not_a_call in ["a", "save", "new", "cache.get", "c", "S"] {
            assert!(!t.contains(&not_a_call.to_string()), "{not_a_call} in {t:?}");
        }
        let m = calls("m");
        assert!(m.contains(&"helper".to_string()) && !m.contains(&"made".to_string()), "{m:?}");
    }

    #[test]
    fn a_block_doc_comment_a_blank_line_above_is_the_definitions_doc() {
        let src = "/**\n * Append a header value.\n */\n\nres.append = function append(field, val) {\n  return this.set(field, val);\n};\n\n// A note, not a doc.\n\nfunction g() {}\n/** Two lines\n    above. */\n\n\nfunction h() {}\n";
        let parsed = parse(Language::JavaScript, src.as_bytes()).unwrap();
        let doc = |q: &str| parsed.symbols.iter().find(|s| s.qualified_name == q).map(|s| (s.doc.clone(), s.doc_start.map(|(_, l)| l)));
        assert_eq!(doc("res.append"), Some((Some("Append a header value.".to_string()), Some(1))), "the chunk starts at the doc comment");
        assert_eq!(doc("g"), Some((None, None)));
        assert_eq!(doc("h"), Some((None, None)));
    }

    #[test]
    fn go_receivers_packages_and_embedding() {
        let src = "package cmd\n\nimport (\n\t\"fmt\"\n\tp \"github.com/o/r/pkg\"\n)\n\n// Server serves.\ntype Server struct {\n\tp.Base\n\tn int\n}\n\ntype (\n\tID int\n\tRunner interface { Run() error }\n)\n\nconst Max = 3\n\nfunc (s *Server) Start() error {\n\tif err := p.Run(s.n); err != nil {\n\t\treturn fmt.Errorf(\"x: %w\", err)\n\t}\n\treturn nil\n}\n\nfunc New() *Server { return &Server{} }\n";
        let syms = symbols(Language::Go, src);
        has(&syms, "Server", "class");
        has(&syms, "Server.Start", "method");
        has(&syms, "New", "function");
        has(&syms, "ID", "type");
        has(&syms, "Runner", "interface");
        has(&syms, "Runner.Run", "method");
        has(&syms, "Max", "const");
        assert_eq!(syms.iter().filter(|(n, _, _)| n == "Server").count(), 1, "{syms:?}");
        let parsed = parse(Language::Go, src.as_bytes()).unwrap();
        let server = parsed.symbols.iter().find(|s| s.qualified_name == "Server").unwrap();
        assert_eq!(server.span.start_line, 9, "the chunk starts at `type`");
        assert_eq!(server.doc.as_deref(), Some("Server serves."));
        assert_eq!(server.bases, vec!["p.Base".to_string()]);
        let start = parsed.symbols.iter().find(|s| s.qualified_name == "Server.Start").unwrap();
        assert_eq!(start.parent.as_deref(), Some("Server"));
        assert!(start.calls.contains(&"p.Run".to_string()) && start.calls.contains(&"fmt.Errorf".to_string()), "{:?}", start.calls);
        let imports: Vec<(String, Vec<String>)> = parsed.imports.iter().map(|i| (i.module.clone(), i.names.clone())).collect();
        assert_eq!(imports, vec![("fmt".to_string(), vec![]), ("github.com/o/r/pkg".to_string(), vec!["p".to_string()])]);
    }

    #[test]
    fn java_classes_members_and_imports() {
        let src = "package org.x;\nimport java.util.List;\nimport org.x.util.Helper;\n/** Doc of A. */\npublic class A<T> extends B implements C, D {\n  private static final int MAX = 3;\n  public A() { super(); }\n  @Override public void f(List<T> l) { try { Helper.g(l); } catch (Exception e) { log.warn(\"x\", e); } }\n  class Inner { int h() { return new Thing().run(); } }\n}\ninterface C extends E { void m(); }\nenum Color { RED; int code() { return 1; } }\n";
        let syms = symbols(Language::Java, src);
        for (q, k) in [
            ("A", "class"),
            ("A.A", "method"),
            ("A.f", "method"),
            ("A.MAX", "const"),
            ("A.Inner", "class"),
            ("A.Inner.h", "method"),
            ("C", "interface"),
            ("C.m", "method"),
            ("Color", "enum"),
            ("Color.code", "method"),
        ] {
            has(&syms, q, k);
        }
        let parsed = parse(Language::Java, src.as_bytes()).unwrap();
        let a = parsed.symbols.iter().find(|s| s.qualified_name == "A").unwrap();
        assert_eq!(a.bases, vec!["B", "C", "D"]);
        assert_eq!(a.doc.as_deref(), Some("Doc of A."));
        let f = parsed.symbols.iter().find(|s| s.qualified_name == "A.f").unwrap();
        assert!(f.calls.contains(&"Helper.g".to_string()), "{:?}", f.calls);
        assert_eq!(parsed.imports.iter().map(|i| i.module.as_str()).collect::<Vec<_>>(), vec!["java.util.List", "org.x.util.Helper"]);
    }

    #[test]
    fn c_and_cpp_definitions_declarations_and_includes() {
        let src = "#include <stdio.h>\n#include \"x.h\"\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n#define LIMIT 10\ntypedef struct node { int v; struct node *next; } node_t;\nint count(node_t *n);\n/* Doc of f. */\nstatic int *f(int a) { return g(a); }\nstruct point { int x; };\nenum color { RED };\n";
        let syms = symbols(Language::C, src);
        for (q, k) in
            [("MAX", "function"), ("LIMIT", "const"), ("node_t", "type"), ("count", "function"), ("f", "function"), ("point", "class"), ("color", "enum")]
        {
            has(&syms, q, k);
        }
        assert!(!syms.iter().any(|(n, _, _)| n == "node" || n.ends_with(".node")), "the struct of a typedef is the typedef: {syms:?}");
        let parsed = parse(Language::C, src.as_bytes()).unwrap();
        assert_eq!(parsed.imports.iter().map(|i| i.module.as_str()).collect::<Vec<_>>(), vec!["stdio.h", "x.h"]);
        let f = parsed.symbols.iter().find(|s| s.qualified_name == "f").unwrap();
        assert_eq!(f.calls, vec!["g"]);
        assert_eq!(f.doc.as_deref(), Some("Doc of f."));

        let src = "#include \"k.hpp\"\nnamespace ns {\nclass K : public Base<int>, private Other {\n public:\n  void m();\n  int inline_one() { return 1; }\n};\nvoid K::m() { helper(1); }\ntemplate <typename T> T id(T x) { return x; }\n}\n";
        let syms = symbols(Language::Cpp, src);
        for (q, k) in [("ns", "module"), ("ns::K", "class"), ("ns::K::m", "method"), ("ns::K::inline_one", "method"), ("ns::id", "function")] {
            has(&syms, q, k);
        }
        let parsed = parse(Language::Cpp, src.as_bytes()).unwrap();
        let k = parsed.symbols.iter().find(|s| s.qualified_name == "ns::K").unwrap();
        assert_eq!(k.bases.len(), 2, "{:?}", k.bases);
        let defined = parsed.symbols.iter().filter(|s| s.qualified_name == "ns::K::m").count();
        assert_eq!(defined, 2, "declared in the class and defined outside: one name, two places");
    }

    #[test]
    fn csharp_ruby_and_lua() {
        let src = "using System;\nusing App.Util;\nnamespace App.Core {\n  /// <summary>Doc.</summary>\n  public class Svc : IBase, IOther {\n    public int P { get; set; }\n    public Svc() {}\n    public void Run() { try { Go(); } catch (Exception e) { Log.Write(e); } }\n  }\n  interface IBase { void Run(); }\n}\n";
        let syms = symbols(Language::CSharp, src);
        for (q, k) in
            [("App.Core", "module"), ("App.Core.Svc", "class"), ("App.Core.Svc.P", "method"), ("App.Core.Svc.Run", "method"), ("App.Core.IBase.Run", "method")]
        {
            has(&syms, q, k);
        }
        let parsed = parse(Language::CSharp, src.as_bytes()).unwrap();
        let run = parsed.symbols.iter().find(|s| s.qualified_name == "App.Core.Svc.Run").unwrap();
        assert!(run.calls.contains(&"Log.Write".to_string()), "{:?}", run.calls);
        assert_eq!(parsed.imports.iter().map(|i| i.module.as_str()).collect::<Vec<_>>(), vec!["System", "App.Util"]);

        let src = "require 'json'\nrequire_relative 'a/b'\nmodule M\n  VERSION = '1'\n  # Doc of K.\n  class K < Base\n    def run(x)\n      go(x)\n    rescue StandardError => e\n      log(e)\n    end\n    def self.make; new; end\n  end\nend\n";
        let syms = symbols(Language::Ruby, src);
        for (q, k) in [("M", "module"), ("M::VERSION", "const"), ("M::K", "class"), ("M::K#run", "method"), ("M::K.make", "method")] {
            has(&syms, q, k);
        }
        let parsed = parse(Language::Ruby, src.as_bytes()).unwrap();
        let k = parsed.symbols.iter().find(|s| s.qualified_name == "M::K").unwrap();
        assert_eq!((k.bases.clone(), k.doc.as_deref()), (vec!["Base".to_string()], Some("Doc of K.")));
        assert_eq!(parsed.imports.iter().map(|i| i.module.as_str()).collect::<Vec<_>>(), vec!["json", "a/b"]);

        let src = "local json = require(\"json\")\nlocal M = {}\n-- Doc of f.\nfunction M.f(a) return json.encode(a) end\nfunction M:g() return self.f(1) end\nlocal function h() pcall(M.f, 2) end\nlocal k = function() end\nreturn M\n";
        let syms = symbols(Language::Lua, src);
        for (q, k) in [("M.f", "function"), ("M.g", "method"), ("h", "function"), ("k", "function")] {
            has(&syms, q, k);
        }
        let parsed = parse(Language::Lua, src.as_bytes()).unwrap();
        let f = parsed.symbols.iter().find(|s| s.qualified_name == "M.f").unwrap();
        assert_eq!((f.calls.clone(), f.doc.as_deref()), (vec!["json.encode".to_string()], Some("Doc of f.")));
        assert_eq!(parsed.imports.iter().map(|i| i.module.as_str()).collect::<Vec<_>>(), vec!["json"]);
    }

    fn marks(lang: Language, src: &str) -> Vec<(String, String)> {
        let parsed = parse(lang, src.as_bytes()).expect("parsed");
        parsed.pattern_marks.iter().map(|m| (m.category.as_str().to_string(), m.key.clone())).collect()
    }

    #[test]
    fn conventions_marked_by_the_queries() {
        let rust = "#[test]\nfn works() { let x = run()?; log::warn!(\"{}\", x); }\n";
        let m = marks(Language::Rust, rust);
        for want in [("test", "test:#[test]"), ("error_handling", "propagate:?"), ("logging", "log:log::warn!:plain")] {
            assert!(m.contains(&(want.0.to_string(), want.1.to_string())), "{want:?} in {m:?}");
        }
        let parsed = parse(Language::Rust, rust.as_bytes()).unwrap();
        let test = parsed.pattern_marks.iter().find(|m| m.key == "test:#[test]").unwrap();
        assert_eq!(test.end_byte, rust.trim_end().len(), "the attribute stands for the function it marks");
        let go = "package x\nimport \"testing\"\nfunc TestRun(t *testing.T) {\n\tif err := run(); err != nil {\n\t\tlog.Printf(\"%v\", err)\n\t}\n}\n";
        let m = marks(Language::Go, go);
        for want in [("test", "test:go"), ("error_handling", "check:err != nil"), ("logging", "log:log.Printf:plain")] {
            assert!(m.contains(&(want.0.to_string(), want.1.to_string())), "{want:?} in {m:?}");
        }
        let java = "class T { @Test void t() { try { f(); } catch (IOException | SQLException e) { log.error(\"x\", e); } } }\n";
        let m = marks(Language::Java, java);
        for want in [("test", "test:@Test"), ("error_handling", "except:IOException|SQLException->other"), ("logging", "log:log.error:plain")] {
            assert!(m.contains(&(want.0.to_string(), want.1.to_string())), "{want:?} in {m:?}");
        }
        let ruby = "describe 'x' do\n  it 'works' do\n    begin\n      go\n    rescue IOError, ArgumentError => e\n      logger.warn(e)\n    end\n  end\nend\n";
        let m = marks(Language::Ruby, ruby);
        for want in
            [("test", "test:describe"), ("test", "test:it"), ("error_handling", "except:IOError|ArgumentError->other"), ("logging", "log:logger.warn:plain")]
        {
            assert!(m.contains(&(want.0.to_string(), want.1.to_string())), "{want:?} in {m:?}");
        }
        assert!(marks(Language::Lua, "local ok, err = pcall(f)\n").contains(&("error_handling".to_string(), "protected:pcall".to_string())));
        assert!(marks(Language::CSharp, "class A { [Fact] public void T() { try { } catch (IOException e) { } } }\n")
            .contains(&("test".to_string(), "test:[Fact]".to_string())));
    }

    #[test]
    fn scope_names_drop_pointers_and_generics() {
        assert_eq!(scope_name("*Server"), "Server");
        assert_eq!(scope_name("Foo<T>"), "Foo");
        assert_eq!(scope_name("a::Foo"), "a::Foo");
    }
}
