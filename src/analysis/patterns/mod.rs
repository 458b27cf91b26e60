//! Project conventions mined from the syntax tree.
//!
//! A *pattern instance* is one occurrence of a recurring construct in one
//! file: a decorator, an exception handler and what it does with the error,
//! a logging call and how its message is formatted, a route registration, a
//! test or fixture, a base class. Each carries a normalised *key*
//! (`except:ValueError->raise`, `log:logger.debug:%`, `route:app.get`) so
//! that the same convention in different files groups together, and the
//! verbatim lines of the construct as an example. [`aggregate`] turns the
//! instances of a whole repository into [`Pattern`]s: the conventions with
//! their counts and a few examples, which is what "how does this project
//! handle errors / log / register routes" questions need.
//!
//! Mining is one iterative walk over the tree per file (no queries to
//! compile, no recursion, so deep or broken trees cannot overflow the stack)
//! plus short walks of exception-handler bodies. Every node access goes
//! through `Option`s and every byte range is clamped to the source, so
//! arbitrary input yields instances or nothing, never a panic.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

mod javascript;
mod python;

use crate::analysis::lang::Language;
use crate::analysis::parse::{ParsedFile, PatternMark, Symbol};

/// What kind of convention an instance belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PatternCategory {
    Decorator,
    ErrorHandling,
    Logging,
    Route,
    Test,
    Fixture,
    BaseClass,
}

impl PatternCategory {
    /// The serialized name (`error_handling`), for payloads and filters.
    pub fn as_str(self) -> &'static str {
        match self {
            PatternCategory::Decorator => "decorator",
            PatternCategory::ErrorHandling => "error_handling",
            PatternCategory::Logging => "logging",
            PatternCategory::Route => "route",
            PatternCategory::Test => "test",
            PatternCategory::Fixture => "fixture",
            PatternCategory::BaseClass => "base_class",
        }
    }

    pub fn all() -> &'static [PatternCategory] {
        use PatternCategory::*;
        &[Decorator, ErrorHandling, Logging, Route, Test, Fixture, BaseClass]
    }
}

/// One occurrence of a convention in one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PatternInstance {
    pub category: PatternCategory,
    /// Normalised grouping key, e.g. `except:ValueError->raise`.
    pub key: String,
    pub path: String,
    /// [`Language::name`].
    pub language: String,
    /// 1-based inclusive: the lines of the example (at most [`MAX_SNIPPET_LINES`]).
    pub start_line: usize,
    pub end_line: usize,
    /// Those lines verbatim (a line over [`MAX_LINE_CHARS`] is cut and ends in `…`).
    pub snippet: String,
    /// Qualified name of the enclosing definition, if any.
    pub symbol: Option<String>,
}

/// A convention: instances grouped by key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pattern {
    pub key: String,
    pub category: PatternCategory,
    /// One sentence without counts, so it (and its embedding) stays stable as counts change.
    pub description: String,
    pub count: usize,
    /// Distinct files.
    pub files: usize,
    /// Up to [`MAX_EXAMPLES`]: distinct files first, ordered by (path, start_line).
    pub examples: Vec<PatternInstance>,
}

/// An example shows the head of its construct: enough to recognise the
/// convention, small enough to embed and to show in a result.
pub const MAX_SNIPPET_LINES: usize = 12;
/// Minified code puts a whole bundle on one line; a snippet line is cut here.
pub const MAX_LINE_CHARS: usize = 240;
/// Examples kept per pattern.
pub const MAX_EXAMPLES: usize = 3;
/// Names longer than this (garbage, generated code) make no key.
const MAX_NAME_LEN: usize = 120;

/// Mines the conventions of one parsed file. `source` must be the bytes the
/// file was parsed from; anything else only yields odd instances, not a panic.
pub fn mine(path: &str, parsed: &ParsedFile, source: &[u8]) -> Vec<PatternInstance> {
    let mut instances = Instances::new(path, parsed, source);
    for mark in &parsed.pattern_marks {
        instances.push(mark.category, mark.key.clone(), mark.start_byte, mark.end_byte);
    }
    if !marked_from_tree(parsed.language) {
        // Base classes come from the symbols (the tree marker reads Python's and JavaScript's).
        for sym in parsed.symbols.iter().filter(|s| s.kind.is_container()) {
            for base in &sym.bases {
                let name = base.split(['<', '[', '(']).next().unwrap_or(base);
                if !name.is_empty() && name.len() <= MAX_NAME_LEN {
                    let head_end = sym.body.map_or(sym.span.end_byte, |b| b.start_byte);
                    instances.push(PatternCategory::BaseClass, format!("base:{name}"), sym.span.start_byte, head_end);
                }
            }
        }
    }
    instances.out
}

/// Python and the JavaScript family: their conventions are read by
/// [`TreeMarker`] from the nodes their queries capture as `@convention`;
/// the other languages' queries mark conventions themselves.
pub(crate) fn marked_from_tree(language: Language) -> bool {
    language == Language::Python || language.is_js_family()
}

/// Groups instances by key, keeps groups with `count >= min_count`, sorted
/// by count (descending), then key. Deterministic whatever the input order.
pub fn aggregate<'a>(instances: impl IntoIterator<Item = &'a PatternInstance>, min_count: usize) -> Vec<Pattern> {
    let mut groups: BTreeMap<(&str, PatternCategory), Vec<&PatternInstance>> = BTreeMap::new();
    for inst in instances {
        groups.entry((inst.key.as_str(), inst.category)).or_default().push(inst);
    }
    let mut patterns: Vec<Pattern> = groups
        .into_iter()
        .filter(|(_, list)| list.len() >= min_count.max(1))
        .map(|((key, category), list)| {
            let files = list.iter().map(|i| i.path.as_str()).collect::<BTreeSet<_>>().len();
            group_pattern(key, category, list.len(), files, list)
        })
        .collect();
    sort_patterns(&mut patterns);
    patterns
}

/// The pattern of one group from its totals (`count` instances in `files`
/// files) and the instances of its first files in path order, at least
/// the first [`MAX_EXAMPLES`] (the examples come from those): what
/// [`aggregate`] makes of the whole group.
pub fn group_pattern(key: &str, category: PatternCategory, count: usize, files: usize, mut first: Vec<&PatternInstance>) -> Pattern {
    first.sort_by(|a, b| example_order(a).cmp(&example_order(b)));
    Pattern { key: key.to_string(), category, description: describe(category, key), count, files, examples: pick_examples(&first) }
}

/// [`aggregate`]'s order: by count (descending), then key and category.
pub fn sort_patterns(patterns: &mut [Pattern]) {
    patterns.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)).then_with(|| a.category.cmp(&b.category)));
}

/// The text embedded for a pattern: its description and the first example's
/// lines. No counts and no paths, so the vector survives both changing.
pub fn embed_text(p: &Pattern) -> String {
    match p.examples.first() {
        Some(ex) => format!("{}\n{}", p.description, ex.snippet),
        None => p.description.clone(),
    }
}

/// A total order on instances, so examples never depend on input order.
fn example_order(i: &PatternInstance) -> (&str, usize, usize, &str, Option<&str>, &str) {
    (i.path.as_str(), i.start_line, i.end_line, i.snippet.as_str(), i.symbol.as_deref(), i.language.as_str())
}

/// The first instance of each file (sorted list) until the quota is met,
/// then the rest in order; the result in (path, start_line) order.
fn pick_examples(sorted: &[&PatternInstance]) -> Vec<PatternInstance> {
    let mut chosen: Vec<usize> = Vec::new();
    let mut last_path: Option<&str> = None;
    for (i, inst) in sorted.iter().enumerate() {
        if chosen.len() == MAX_EXAMPLES {
            break;
        }
        if last_path != Some(inst.path.as_str()) {
            chosen.push(i);
            last_path = Some(inst.path.as_str());
        }
    }
    for i in 0..sorted.len() {
        if chosen.len() >= MAX_EXAMPLES {
            break;
        }
        if !chosen.contains(&i) {
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|i| sorted[i].clone()).collect()
}

// ---- descriptions -------------------------------------------------------------

/// One sentence per pattern, derived from the key alone, with the words
/// people search with (error, exception, log, route, handler, test, fixture,
/// base class, inherit).
fn describe(category: PatternCategory, key: &str) -> String {
    let rest = key.split_once(':').map_or(key, |(_, r)| r);
    match category {
        PatternCategory::Decorator => format!("Decorator `{rest}` applied to definitions (functions, methods, classes)"),
        PatternCategory::ErrorHandling => {
            match key.split_once(':') {
                Some(("propagate", op)) => return format!("Error handling: errors are propagated to the caller with `{op}` (returning a Result)"),
                Some(("check", cond)) => return format!("Error handling: errors are returned as values and checked with `if {cond}`"),
                Some(("protected", call)) => return format!("Error handling: errors are caught by calling through `{call}` (protected call)"),
                _ => {}
            }
            let (caught, action) = match key.split_once(':') {
                Some(("catch", action)) => ("catches an error in a `catch` block".to_string(), action),
                _ => {
                    let (types, action) = rest.rsplit_once("->").unwrap_or((rest, "other"));
                    let caught = if types == "*" {
                        "catches every exception with a bare `except:`".to_string()
                    } else {
                        let names: Vec<String> = types.split('|').map(|t| format!("`{t}`")).collect();
                        format!("catches {} exceptions", join_or(&names))
                    };
                    (caught, action)
                }
            };
            let then = match action {
                "raise" => "then re-raises it",
                "wrap" => "then wraps it in another exception and raises that",
                "log" => "then logs it",
                "return" => "then returns a fallback value",
                "pass" => "then ignores it (pass, continue or an empty handler)",
                "callback" => "then passes it to a callback such as `next(err)`",
                _ => "then handles it in place",
            };
            format!("Error handling: {caught}, {then}")
        }
        PatternCategory::Logging => {
            let (callee, style) = rest.rsplit_once(':').unwrap_or((rest, "plain"));
            let style = match style {
                "%" => "%-style format strings",
                "f" => "f-string messages",
                "template" => "template literal messages",
                "concat" => "messages built by string concatenation",
                _ => "plain messages",
            };
            format!("Logging: log calls with `{callee}` and {style}")
        }
        PatternCategory::Route => format!("Route registration with `{rest}(path, handler)`: HTTP endpoint route handlers"),
        PatternCategory::Test => match rest {
            "function" => "Test functions named `test_*` (pytest-style tests)".to_string(),
            "method" => "Test methods named `test_*` in test classes".to_string(),
            "describe" => "Test suites grouped with `describe(name, fn)` blocks".to_string(),
            "go" => "Test functions named `TestXxx(t *testing.T)` (Go tests)".to_string(),
            marked if marked.starts_with(['#', '@', '[']) => format!("Test functions marked `{marked}`"),
            other => format!("Test cases written as `{other}(name, fn)`"),
        },
        PatternCategory::Fixture => match rest {
            "beforeEach" | "afterEach" | "beforeAll" | "afterAll" | "before" | "after" => {
                format!("Test fixture hook `{rest}(fn)` for setup and teardown")
            }
            "setUp" | "tearDown" | "setUpClass" | "tearDownClass" | "setup_method" | "teardown_method" | "setup_class" | "teardown_class" => {
                format!("Test fixture method `{rest}` in test classes for setup and teardown")
            }
            _ => format!("Test fixtures defined with `@{rest}`"),
        },
        PatternCategory::BaseClass => format!("Classes extending `{rest}` (base class, inherit from `{rest}`)"),
    }
}

/// `a`, `a or b`, `a, b or c`.
fn join_or(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

// ---- the walk -------------------------------------------------------------------

/// What an exception handler does with the error, in priority order (the
/// first that applies names the handler).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Action {
    Callback,
    Wrap,
    Raise,
    Log,
    Return,
    Pass,
    Other,
}

impl Action {
    fn as_str(self) -> &'static str {
        match self {
            Action::Callback => "callback",
            Action::Wrap => "wrap",
            Action::Raise => "raise",
            Action::Log => "log",
            Action::Return => "return",
            Action::Pass => "pass",
            Action::Other => "other",
        }
    }
}

const LOG_LEVELS: &[&str] = &["debug", "info", "warning", "warn", "error", "exception", "critical", "log", "trace", "fatal"];
const CONSOLE_LEVELS: &[&str] = &["log", "error", "warn", "info", "debug"];
const PY_ROUTE_METHODS: &[&str] = &["route", "get", "post", "put", "delete", "patch", "websocket", "head", "options"];
const JS_ROUTE_METHODS: &[&str] = &["get", "post", "put", "delete", "patch", "all", "use", "head", "options"];
const JS_TEST_CALLS: &[&str] = &["describe", "it", "test"];
const JS_TEST_MODIFIERS: &[&str] = &["only", "skip", "todo", "concurrent", "failing"];
const JS_HOOKS: &[&str] = &["beforeEach", "afterEach", "beforeAll", "afterAll", "before", "after"];
const JS_CALLBACKS: &[&str] = &["next", "callback", "cb", "done", "reject"];
const PY_FIXTURE_METHODS: &[&str] = &["setUp", "tearDown", "setUpClass", "tearDownClass", "setup_method", "teardown_method", "setup_class", "teardown_class"];

/// Turns the conventions a file marks into instances: lines, snippet, the
/// enclosing symbol.
struct Instances<'a> {
    path: &'a str,
    language: Language,
    src: &'a [u8],
    symbols: &'a [Symbol],
    /// Symbol indexes sorted by (start asc, end desc), for the enclosing-definition lookup.
    by_start: Vec<usize>,
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
    out: Vec<PatternInstance>,
}

/// Reads Python's and the JavaScript family's conventions from the nodes
/// their tags queries hand over (`@convention`): keys a query cannot
/// compute, like what an exception handler does or how a log message is built.
pub(crate) struct TreeMarker<'a> {
    language: Language,
    src: &'a [u8],
    marks: Vec<PatternMark>,
}

impl<'a> Instances<'a> {
    fn new(path: &'a str, parsed: &'a ParsedFile, src: &'a [u8]) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in src.iter().enumerate() {
            if *b == b'\n' && i + 1 < src.len() {
                line_starts.push(i + 1);
            }
        }
        let symbols = parsed.symbols.as_slice();
        let mut by_start: Vec<usize> = (0..symbols.len()).collect();
        by_start.sort_by(|&a, &b| {
            let (sa, sb) = (&symbols[a].span, &symbols[b].span);
            sa.start_byte.cmp(&sb.start_byte).then(sb.end_byte.cmp(&sa.end_byte))
        });
        Instances { path, language: parsed.language, src, symbols, by_start, line_starts, out: Vec::new() }
    }

    /// 1-based line of a byte offset.
    fn line_of(&self, byte: usize) -> usize {
        match self.line_starts.binary_search(&byte) {
            Ok(i) => i + 1,
            Err(i) => i.max(1),
        }
    }

    /// Records an instance covering `start..end` (bytes), cut to its head.
    fn push(&mut self, category: PatternCategory, key: String, start: usize, end: usize) {
        let len = self.src.len();
        let start = start.min(len);
        let end = end.clamp(start, len);
        let start_line = self.line_of(start);
        // Trailing newlines do not extend the construct onto the next line.
        let mut last = end.saturating_sub(1).max(start);
        while last > start && matches!(self.src.get(last), Some(b'\n' | b'\r')) {
            last -= 1;
        }
        let end_line = self.line_of(last).max(start_line).min(start_line + MAX_SNIPPET_LINES - 1);
        let snippet = self.snippet(start_line, end_line);
        let symbol = self.enclosing(start).map(|i| self.symbols[i].qualified_name.clone());
        self.out.push(PatternInstance {
            category,
            key,
            path: self.path.to_string(),
            language: self.language.name().to_string(),
            start_line,
            end_line,
            snippet,
            symbol,
        });
    }

    fn snippet(&self, start_line: usize, end_line: usize) -> String {
        let mut lines = Vec::with_capacity(end_line + 1 - start_line);
        for line in start_line..=end_line {
            let Some(&s) = self.line_starts.get(line - 1) else { break };
            let e = self.line_starts.get(line).copied().unwrap_or(self.src.len());
            let raw = String::from_utf8_lossy(self.src.get(s..e).unwrap_or_default());
            let raw = raw.trim_end_matches(['\n', '\r']);
            if raw.chars().count() > MAX_LINE_CHARS {
                let mut cut: String = raw.chars().take(MAX_LINE_CHARS).collect();
                cut.push('…');
                lines.push(cut);
            } else {
                lines.push(raw.to_string());
            }
        }
        lines.join("\n")
    }

    /// The innermost symbol whose span contains `byte`: the last one starting
    /// at or before it, or failing that one of that symbol's ancestors
    /// (definitions nest, so whatever contains `byte` contains that symbol).
    fn enclosing(&self, byte: usize) -> Option<usize> {
        let n = self.by_start.partition_point(|&i| self.symbols[i].span.start_byte <= byte);
        let mut cur = self.by_start.get(n.checked_sub(1)?).copied();
        for _ in 0..=self.symbols.len() {
            let i = cur?;
            let span = &self.symbols.get(i)?.span;
            if span.start_byte <= byte && byte < span.end_byte.max(span.start_byte + 1) {
                return Some(i);
            }
            cur = self.symbols[i].parent_index;
        }
        None
    }
}

impl<'a> TreeMarker<'a> {
    pub(crate) fn new(language: Language, src: &'a [u8]) -> Self {
        TreeMarker { language, src, marks: Vec::new() }
    }

    /// The marks, in the order the nodes were visited.
    pub(crate) fn finish(self) -> Vec<PatternMark> {
        self.marks
    }

    /// Marks what `node` (one the query handed over) is an instance of.
    pub(crate) fn visit(&mut self, node: Node) {
        if self.language == Language::Python {
            match node.kind() {
                "decorator" => self.py_decorator(node),
                "except_clause" => self.py_except(node),
                "call" => self.py_logging(node),
                "function_definition" => self.py_test(node),
                "class_definition" => self.py_bases(node),
                _ => {}
            }
        } else if self.language.is_js_family() {
            match node.kind() {
                "decorator" => self.js_decorator(node),
                "catch_clause" => self.js_catch(node),
                "call_expression" => self.js_call(node),
                "class_declaration" | "abstract_class_declaration" | "class" => self.js_bases(node),
                _ => {}
            }
        }
    }

    fn text(&self, node: Node) -> Cow<'a, str> {
        let (s, e) = (node.start_byte().min(self.src.len()), node.end_byte().min(self.src.len()));
        String::from_utf8_lossy(self.src.get(s..e).unwrap_or_default())
    }

    /// The node's text without whitespace (`app . get` → `app.get`), or
    /// `None` when it is too long to be a name.
    fn compact(&self, node: Node) -> Option<String> {
        if node.end_byte().saturating_sub(node.start_byte()) > MAX_NAME_LEN * 4 {
            return None;
        }
        let s: String = self.text(node).split_whitespace().collect();
        (!s.is_empty() && s.len() <= MAX_NAME_LEN).then_some(s)
    }

    /// A dotted name (`a`, `a.b.c`) of identifiers only, compacted.
    fn dotted(&self, node: Node) -> Option<String> {
        // Bounded before recursing: a long chain is no name, and no deep stack.
        if node.end_byte().saturating_sub(node.start_byte()) > MAX_NAME_LEN {
            return None;
        }
        let ok = match node.kind() {
            "identifier" | "property_identifier" | "type_identifier" | "this" => true,
            "attribute" => node.child_by_field_name("object").is_some_and(|o| self.dotted(o).is_some()) && node.child_by_field_name("attribute").is_some(),
            "member_expression" => {
                node.child_by_field_name("object").is_some_and(|o| self.dotted(o).is_some())
                    && node.child_by_field_name("property").is_some_and(|p| p.kind() == "property_identifier")
            }
            _ => false,
        };
        if ok {
            self.compact(node)
        } else {
            None
        }
    }

    /// Marks a convention instance covering `start..end` (bytes).
    fn push(&mut self, category: PatternCategory, key: String, start: usize, end: usize) {
        self.marks.push(PatternMark { category, key, start_byte: start, end_byte: end });
    }

    /// The line of the last non-whitespace byte before `body` (the end of a header).
    fn header_end(&self, node: Node, body: Option<Node>) -> usize {
        let Some(body) = body else { return node.end_byte() };
        let mut b = body.start_byte().min(self.src.len());
        let start = node.start_byte();
        while b > start && self.src.get(b - 1).is_some_and(|c| c.is_ascii_whitespace()) {
            b -= 1;
        }
        b.max(start + 1).min(node.end_byte())
    }

    /// What a handler body does with the caught error (`param`, if named).
    /// Nested functions and classes are not the handler's own code.
    fn handler_action(&self, body: Node, param: Option<&str>) -> Action {
        let mut best = Action::Other;
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            let kind = node.kind();
            if node.id() != body.id() && is_nested_scope(kind) {
                continue;
            }
            let found = match kind {
                "raise_statement" => {
                    let value = named(node).into_iter().find(|c| Some(c.id()) != node.child_by_field_name("cause").map(|n| n.id()));
                    match value {
                        _ if node.child_by_field_name("cause").is_some() => Action::Wrap,
                        None => Action::Raise,
                        Some(v) if self.is_param(v, param) => Action::Raise,
                        Some(_) => Action::Wrap,
                    }
                }
                "throw_statement" => match named(node).into_iter().next() {
                    Some(v) if self.is_param(v, param) => Action::Raise,
                    _ => Action::Wrap,
                },
                "call" if self.is_py_logging_call(node) => Action::Log,
                "call_expression" if self.is_js_logging_call(node) => Action::Log,
                "call_expression" if self.is_js_callback(node, param) => Action::Callback,
                "return_statement" if named(node).is_empty() => Action::Pass,
                "return_statement" => Action::Return,
                "pass_statement" | "continue_statement" | "break_statement" => Action::Pass,
                _ => Action::Other,
            };
            best = best.min(found);
            let mut cursor = node.walk();
            stack.extend(node.named_children(&mut cursor));
        }
        // Nothing but comments: the error is swallowed.
        if best == Action::Other && named(body).is_empty() {
            return Action::Pass;
        }
        best
    }

    fn is_param(&self, node: Node, param: Option<&str>) -> bool {
        node.kind() == "identifier" && param.is_some_and(|p| self.text(node) == p)
    }

    fn is_py_logging_call(&self, call: Node) -> bool {
        let Some(callee) = call.child_by_field_name("function").filter(|f| f.kind() == "attribute") else { return false };
        let (Some(obj), Some(attr)) = (callee.child_by_field_name("object"), callee.child_by_field_name("attribute")) else { return false };
        LOG_LEVELS.contains(&self.text(attr).to_ascii_lowercase().as_str()) && self.dotted(obj).and_then(|r| logger_receiver(&r, false)).is_some()
    }

    fn is_js_logging_call(&self, call: Node) -> bool {
        let Some(callee) = call.child_by_field_name("function").filter(|f| f.kind() == "member_expression") else { return false };
        let (Some(obj), Some(prop)) = (callee.child_by_field_name("object"), callee.child_by_field_name("property")) else { return false };
        let Some(receiver) = self.dotted(obj).and_then(|r| logger_receiver(&r, true)) else { return false };
        let levels = if receiver == "console" { CONSOLE_LEVELS } else { LOG_LEVELS };
        levels.contains(&self.text(prop).to_ascii_lowercase().as_str())
    }

    /// `next(err)`, `callback(err)`, `cb(new X(err))`, `done(err)`, `reject(err)`.
    fn is_js_callback(&self, call: Node, param: Option<&str>) -> bool {
        let Some(callee) = call.child_by_field_name("function").filter(|f| f.kind() == "identifier") else { return false };
        if !JS_CALLBACKS.contains(&&*self.text(callee)) {
            return false;
        }
        let Some(args) = call.child_by_field_name("arguments") else { return false };
        let list = named(args);
        if list.is_empty() {
            return false;
        }
        let Some(param) = param else { return true };
        // The error itself or something built from it.
        let mut stack = list;
        while let Some(n) = stack.pop() {
            if n.kind() == "identifier" && self.text(n) == param {
                return true;
            }
            let mut cursor = n.walk();
            stack.extend(n.named_children(&mut cursor));
        }
        false
    }

    /// How a log message is built: `%`, `f`, `template`, `concat` or `plain`.
    fn message_style(&self, arg: Node) -> &'static str {
        match arg.kind() {
            "string" => {
                let is_f = arg.child(0).is_some_and(|s| s.kind() == "string_start" && self.text(s).contains(['f', 'F']));
                if is_f {
                    "f"
                } else if has_percent_spec(&self.text(arg)) {
                    "%"
                } else {
                    "plain"
                }
            }
            "concatenated_string" => {
                let parts = named(arg);
                if parts.iter().any(|p| self.message_style(*p) == "f") {
                    "f"
                } else if parts.iter().any(|p| self.message_style(*p) == "%") {
                    "%"
                } else {
                    "plain"
                }
            }
            "template_string" => "template",
            "binary_operator" | "binary_expression" => {
                let op = arg.child_by_field_name("operator").map(|o| self.text(o).into_owned()).unwrap_or_default();
                match op.as_str() {
                    "+" => "concat",
                    // Eager `"... %s" % x` formatting is still %-style.
                    "%" if arg.child_by_field_name("left").is_some_and(|l| matches!(l.kind(), "string" | "concatenated_string")) => "%",
                    _ => "plain",
                }
            }
            _ => "plain",
        }
    }
}

/// The logger a receiver stands for: `self._logger` → `logger`, `LOG` →
/// `log`, `logging`; `console` in JavaScript. Other receivers are not loggers.
fn logger_receiver(receiver: &str, js: bool) -> Option<String> {
    if js && receiver == "console" {
        return Some("console".to_string());
    }
    let last = receiver.rsplit('.').next().unwrap_or(receiver);
    let norm = last.trim_start_matches('_').to_ascii_lowercase();
    match norm.as_str() {
        "logger" | "log" => Some(norm),
        "logging" if !js => Some(norm),
        _ => None,
    }
}

/// `%s`, `%d`, `%r`, `%(name)s`, `%-5.2f`... but not `%%` or `50% done`.
fn has_percent_spec(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'%' {
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'%') => {
                i += 2;
                continue;
            }
            Some(b'(') => return true,
            _ => {}
        }
        let mut j = i + 1;
        while j < b.len() && matches!(b[j], b'-' | b'#' | b'0'..=b'9' | b'+' | b'.') {
            j += 1;
        }
        if j < b.len() && b"sdrifxXoOeEgGcj".contains(&b[j]) {
            return true;
        }
        i += 1;
    }
    false
}

/// `test_x` and unittest's `testX`.
fn is_test_name(name: &str) -> bool {
    name.starts_with("test_") || name.strip_prefix("test").and_then(|r| r.chars().next()).is_some_and(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

/// Scopes whose code runs elsewhere: a `throw` in a nested function is not the handler's.
fn is_nested_scope(kind: &str) -> bool {
    matches!(
        kind,
        "function_definition"
            | "lambda"
            | "class_definition"
            | "function_declaration"
            | "function_expression"
            | "function"
            | "arrow_function"
            | "generator_function"
            | "generator_function_declaration"
            | "method_definition"
            | "class"
            | "class_declaration"
    )
}

fn is_js_function(node: Node) -> bool {
    matches!(node.kind(), "arrow_function" | "function_expression" | "function" | "generator_function")
}

/// The name of a function literal's first parameter, if it is a plain identifier.
fn js_first_param(func: Node) -> Option<Node> {
    if let Some(p) = func.child_by_field_name("parameter") {
        return Some(p).filter(|p| p.kind() == "identifier");
    }
    let first = nth_named(func.child_by_field_name("parameters")?, 0)?;
    match first.kind() {
        "identifier" => Some(first),
        // TypeScript: `(err: Error) => ...`
        "required_parameter" | "optional_parameter" => first.child_by_field_name("pattern").filter(|p| p.kind() == "identifier"),
        _ => None,
    }
}

fn named(node: Node) -> Vec<Node> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).filter(|c| c.kind() != "comment").collect()
}

fn first_named(node: Node) -> Option<Node> {
    nth_named(node, 0)
}

/// The n-th named child that is not a comment.
fn nth_named(node: Node, n: usize) -> Option<Node> {
    let mut cursor = node.walk();
    let found = node.named_children(&mut cursor).filter(|c| c.kind() != "comment").nth(n);
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::parse::parse;

    fn mine_src(path: &str, src: &str) -> Vec<PatternInstance> {
        let lang = Language::from_path(path);
        let parsed = parse(lang, src.as_bytes()).expect("grammar");
        mine(path, &parsed, src.as_bytes())
    }

    fn counts(instances: &[PatternInstance]) -> Vec<(String, usize)> {
        aggregate(instances, 1).into_iter().map(|p| (p.key, p.count)).collect::<Vec<_>>()
    }

    fn sorted(mut v: Vec<(String, usize)>) -> Vec<(String, usize)> {
        v.sort();
        v
    }

    fn expect(pairs: &[(&str, usize)]) -> Vec<(String, usize)> {
        sorted(pairs.iter().map(|(k, n)| (k.to_string(), *n)).collect())
    }

    const PY: &str = r#"import logging
import pytest
from flask import Flask

app = Flask(__name__)
logger = logging.getLogger(__name__)


class AppError(Exception):
    """Base error."""


class NotFound(AppError, metaclass=Meta):
    pass


class Invalid(Exception):
    pass


def parse(x):
    try:
        return int(x)
    except ValueError:
        raise


def load(path):
    try:
        return open(path).read()
    except ValueError as e:
        logger.debug("bad %s", path)
        raise e
    except (OSError, KeyError) as e:
        raise AppError("cannot load") from e


def convert(x):
    try:
        return float(x)
    except ValueError:
        raise
    except:
        pass


@app.route("/")
def index():
    logger.debug("index %s", 1)
    return "ok"


@app.route("/items/<id>")
def item(id):
    try:
        return lookup(id)
    except KeyError:
        logger.exception(f"missing {id}")
        return None


@pytest.fixture
def client():
    return app.test_client()


def test_index(client):
    assert client.get("/").status_code == 200


def test_item(client):
    assert client.get("/items/1").status_code == 200
"#;

    #[test]
    fn python_conventions() {
        let inst = mine_src("app/views.py", PY);
        assert_eq!(
            sorted(counts(&inst)),
            expect(&[
                ("base:AppError", 1),
                ("base:Exception", 2),
                ("decorator:@app.route", 2),
                ("decorator:@pytest.fixture", 1),
                ("except:*->pass", 1),
                ("except:KeyError->log", 1),
                ("except:KeyError|OSError->wrap", 1),
                ("except:ValueError->raise", 3),
                ("fixture:pytest.fixture", 1),
                ("log:logger.debug:%", 2),
                ("log:logger.exception:f", 1),
                ("route:app.route", 2),
                ("test:function", 2),
            ])
        );
        // Enclosing definitions and line ranges.
        let raise_e = inst.iter().find(|i| i.key == "except:ValueError->raise" && i.symbol.as_deref() == Some("load")).expect("load handler");
        assert_eq!(raise_e.start_line, 31);
        assert_eq!(raise_e.end_line, 33);
        assert!(raise_e.snippet.starts_with("    except ValueError as e:"));
        let route = inst.iter().find(|i| i.key == "route:app.route").expect("route");
        assert_eq!((route.start_line, route.end_line, route.symbol.as_deref()), (47, 50, Some("index")));
        let base = inst.iter().find(|i| i.key == "base:AppError").expect("base");
        assert_eq!((base.start_line, base.end_line, base.snippet.as_str()), (13, 13, "class NotFound(AppError, metaclass=Meta):"));
        assert!(inst.iter().all(|i| i.language == "python" && i.path == "app/views.py"));
    }

    #[test]
    fn python_test_classes_and_decorator_normalisation() {
        let src = "import unittest\n\nclass Things(unittest.TestCase):\n    def setUp(self):\n        self.x = 1\n\n    def test_a(self):\n        pass\n\n    def testB(self):\n        pass\n\n    def helper(self):\n        pass\n\nclass TestOther:\n    def test_c(self):\n        pass\n\nclass Model:\n    @property\n    def a(self):\n        return 1\n\n    @a.setter\n    def a(self, v):\n        self.LOG.info('set ' + str(v))\n\n    @b.setter\n    def b(self, v):\n        logging.log(logging.INFO, 'x %d', v)\n\ndef nested():\n    def test_inner():\n        pass\n";
        let inst = mine_src("t.py", src);
        assert_eq!(
            sorted(counts(&inst)),
            expect(&[
                ("base:unittest.TestCase", 1),
                ("decorator:@*.setter", 2),
                ("decorator:@property", 1),
                ("fixture:setUp", 1),
                ("log:log.info:concat", 1),
                ("log:logging.log:%", 1),
                ("test:method", 3),
            ])
        );
    }

    const JS: &str = r#"const express = require('express');
const app = express();
const router = express.Router();

app.get('/users', (req, res) => {
  res.json([]);
});

app.get(`/users/:id`, async (req, res, next) => {
  try {
    res.json(await find(req.params.id));
  } catch (err) {
    next(err);
  }
});

router.post('/items', function (req, res, cb) {
  save(req.body).then(() => res.end()).catch(err => cb(err));
});

const cache = new Map();
cache.get('/not-a-route');
app.use(express.json());

function risky() {
  try {
    work();
  } catch (e) {
    console.error('failed: ' + e.message);
  }
  try {
    work();
  } catch (e) {
    throw new Error(`wrapped ${e}`);
  }
  try {
    work();
  } catch {
  }
}

console.error(`boom ${1}`);
console.log('count %d', 3);

class HttpError extends Error {}
class Nested extends errors.Base {}

describe('users', () => {
  beforeEach(() => reset());
  it('lists', () => {});
  it.only('gets', () => {});
  test('x', () => {});
});
"#;

    #[test]
    fn javascript_conventions() {
        let inst = mine_src("server/app.js", JS);
        assert_eq!(
            sorted(counts(&inst)),
            expect(&[
                ("base:Error", 1),
                ("base:errors.Base", 1),
                ("catch:callback", 2),
                ("catch:log", 1),
                ("catch:pass", 1),
                ("catch:wrap", 1),
                ("fixture:beforeEach", 1),
                ("log:console.error:concat", 1),
                ("log:console.error:template", 1),
                ("log:console.log:%", 1),
                ("route:app.get", 2),
                ("route:router.post", 1),
                ("test:describe", 1),
                ("test:it", 2),
                ("test:test", 1),
            ])
        );
        let promise = inst.iter().find(|i| i.key == "catch:callback" && i.start_line == 18).expect("promise catch");
        assert!(promise.snippet.contains("catch(err => cb(err))"));
        let wrap = inst.iter().find(|i| i.key == "catch:wrap").expect("wrap");
        assert_eq!(wrap.symbol.as_deref(), Some("risky"));
        assert_eq!((wrap.start_line, wrap.end_line), (33, 35));
    }

    const TS: &str = r#"import { Injectable, Component } from '@angular/core';

@Injectable()
export class UserService extends BaseService<User> implements OnInit {
  constructor(@Inject(TOKEN) private readonly http: HttpClient, private logger: Logger) {
    super();
  }

  @Input() name: string;

  @HostListener('click')
  onClick(): void {
    this.logger.info(`clicked ${this.name}`);
  }

  async load(id: string): Promise<User> {
    try {
      return await this.http.get(`/users/${id}`);
    } catch (e: unknown) {
      this.logger.error('load failed', e);
      throw e;
    }
  }
}

@Injectable()
export class Other {}

export const fetchAll = () => api.get('/all', handler).catch((err: Error) => { return null; });
"#;

    #[test]
    fn typescript_conventions() {
        let inst = mine_src("src/user.service.ts", TS);
        assert_eq!(
            sorted(counts(&inst)),
            expect(&[
                ("base:BaseService", 1),
                ("catch:raise", 1),
                ("catch:return", 1),
                ("decorator:@HostListener", 1),
                ("decorator:@Inject", 1),
                ("decorator:@Injectable", 2),
                ("decorator:@Input", 1),
                ("log:logger.error:plain", 1),
                ("log:logger.info:template", 1),
                ("route:api.get", 1),
            ])
        );
        let host = inst.iter().find(|i| i.key == "decorator:@HostListener").expect("host");
        assert_eq!((host.start_line, host.end_line, host.symbol.as_deref()), (11, 14, Some("UserService.onClick")));
        let tsx = mine_src("a.tsx", "class A extends React.Component<P> { render() { return <div/>; } }\n");
        assert_eq!(counts(&tsx), vec![("base:React.Component".to_string(), 1)]);
    }

    #[test]
    fn aggregate_groups_orders_and_describes() {
        let mut all = Vec::new();
        for (i, path) in ["b.py", "a.py", "c.py", "a.py"].iter().enumerate() {
            let src = format!("{}def f{i}(x):\n    try:\n        return g(x)\n    except ValueError:\n        raise\n", "\n".repeat(i));
            all.extend(mine_src(path, &src));
        }
        all.extend(mine_src("d.py", "logger.debug('x %s', 1)\n"));
        let shuffled: Vec<PatternInstance> = all.iter().rev().cloned().collect();
        let patterns = aggregate(&all, 1);
        assert_eq!(patterns, aggregate(&shuffled, 1), "independent of input order");
        assert_eq!(patterns.len(), 2);
        let p = &patterns[0];
        assert_eq!((p.key.as_str(), p.category, p.count, p.files), ("except:ValueError->raise", PatternCategory::ErrorHandling, 4, 3));
        let ex: Vec<(&str, usize)> = p.examples.iter().map(|e| (e.path.as_str(), e.start_line)).collect();
        assert_eq!(ex, vec![("a.py", 5), ("b.py", 4), ("c.py", 6)], "distinct files first");
        assert_eq!(p.description, "Error handling: catches `ValueError` exceptions, then re-raises it");
        assert_eq!(patterns[1].description, "Logging: log calls with `logger.debug` and %-style format strings");
        let text = embed_text(p);
        assert!(text.starts_with(&p.description) && text.contains("except ValueError:"));
        assert!(!text.contains("a.py") && !text.contains('4'));
        assert_eq!(aggregate(&all, 2).len(), 1, "min_count");
        let json = serde_json::to_string(&patterns[0].category).expect("json");
        assert_eq!(json, "\"error_handling\"");
        for cat in PatternCategory::all() {
            assert_eq!(serde_json::to_string(cat).expect("json"), format!("\"{}\"", cat.as_str()));
        }
    }

    #[test]
    fn descriptions_cover_every_category() {
        let cases = [
            (PatternCategory::Decorator, "decorator:@pytest.fixture", "Decorator `@pytest.fixture` applied to definitions"),
            (PatternCategory::ErrorHandling, "except:*->pass", "bare `except:`"),
            (PatternCategory::ErrorHandling, "except:KeyError|OSError->wrap", "`KeyError` or `OSError`"),
            (PatternCategory::ErrorHandling, "catch:callback", "passes it to a callback"),
            (PatternCategory::Logging, "log:console.error:template", "template literal"),
            (PatternCategory::Route, "route:app.get", "Route registration with `app.get(path, handler)`"),
            (PatternCategory::Test, "test:function", "Test functions named `test_*`"),
            (PatternCategory::Test, "test:#[test]", "Test functions marked `#[test]`"),
            (PatternCategory::Test, "test:go", "TestXxx"),
            (PatternCategory::ErrorHandling, "propagate:?", "propagated to the caller with `?`"),
            (PatternCategory::ErrorHandling, "check:err != nil", "checked with `if err != nil`"),
            (PatternCategory::ErrorHandling, "protected:pcall", "`pcall`"),
            (PatternCategory::Fixture, "fixture:beforeEach", "fixture"),
            (PatternCategory::BaseClass, "base:Exception", "Classes extending `Exception`"),
        ];
        for (cat, key, want) in cases {
            let d = describe(cat, key);
            assert!(d.contains(want), "{key}: {d}");
            assert!(!d.chars().any(|c| c.is_ascii_digit()), "no counts: {d}");
        }
    }

    #[test]
    fn garbage_never_panics_and_lines_stay_in_file() {
        let mut inputs: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"\xff\xfe\x00\x01@\n\n@(\nexcept:\n".to_vec(),
            b"try:\n  x\nexcept (A, B as e:\n  raise from\n@app.route(\ndef".to_vec(),
            b"try { } catch (e) { next(e) \n app.get('/x', ) console.log(`a${".to_vec(),
            b"class A extends { @Dec( } describe('x' it(".to_vec(),
            "\u{feff}@dé.cor\ndef é(): logger.info('%s' % x)\r\nexcept:\r\n".as_bytes().to_vec(),
            "x".repeat(5000).into_bytes(),
            format!("{}catch (e) {{ {} }}", "(".repeat(3000), "try {".repeat(500)).into_bytes(),
        ];
        // Deterministic pseudo-random bytes, biased towards syntax characters.
        let mut state: u64 = 0x9e3779b97f4a7c15;
        let alphabet = b"@()[]{}:;,.'\"`/\\%\n\r\t tryexceptcatchraisethrowdefclassloggerappget=>+\xc3\xa9\xff";
        for _ in 0..40 {
            let len = (state % 400) as usize;
            let mut v = Vec::with_capacity(len);
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                v.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            inputs.push(v);
        }
        for (n, data) in inputs.iter().enumerate() {
            let lines = data.split(|&b| b == b'\n').count().max(1);
            for lang in [Language::Python, Language::JavaScript, Language::TypeScript, Language::Tsx] {
                let parsed = parse(lang, data).expect("grammar");
                let inst = mine("x", &parsed, data);
                for i in &inst {
                    assert!(i.start_line >= 1 && i.start_line <= i.end_line && i.end_line <= lines, "input {n} {lang:?}: {i:?}");
                    assert!(i.end_line - i.start_line < MAX_SNIPPET_LINES);
                    assert_eq!(i.snippet.lines().count().max(1), i.end_line - i.start_line + 1, "input {n} {lang:?}: {i:?}");
                }
                let _ = aggregate(&inst, 1);
                // A tree mined against the wrong source must not panic either.
                let _ = mine("x", &parsed, b"short");
            }
        }
    }

    #[test]
    fn long_constructs_are_cut_to_the_head() {
        let body = "    x = 1\n".repeat(40);
        let src = format!("def f():\n    try:\n        pass\n    except ValueError:\n{body}        raise\n");
        let inst = mine_src("long.py", &src.replace("\n    x", "\n        x"));
        let h = inst.iter().find(|i| i.category == PatternCategory::ErrorHandling).expect("handler");
        assert_eq!((h.start_line, h.end_line), (4, 4 + MAX_SNIPPET_LINES - 1));
        assert_eq!(h.key, "except:ValueError->raise");
        let long_line = format!("logger.info('{}')\n", "a".repeat(1000));
        let inst = mine_src("l.py", &long_line);
        assert!(inst[0].snippet.chars().count() <= MAX_LINE_CHARS + 1 && inst[0].snippet.ends_with('…'));
    }
}
