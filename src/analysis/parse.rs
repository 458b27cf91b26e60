//! Symbol extraction with tree-sitter.
//!
//! Parsing never fails: tree-sitter always returns a tree, a syntax error
//! only marks part of it as `ERROR`, and the walk below takes whatever
//! definitions it can still recognise. Callers learn about errors through
//! [`ParsedFile::has_errors`] and add a whole-file fallback chunk.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use tree_sitter::{Node, Parser, Tree};

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
}

impl SymbolKind {
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
        // A node that ends right after a newline ends on the previous line.
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
    pub has_errors: bool,
    /// Conventions a tags query marked (`@pattern.<category>`); the hand
    /// walked languages are mined from the tree instead.
    pub pattern_marks: Vec<PatternMark>,
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

/// Parses `source` as `language`. Returns `None` only for languages without
/// a grammar; a syntax error still gives a tree.
pub fn parse(language: Language, source: &[u8]) -> Option<ParsedFile> {
    if language.tags_query().is_some() {
        return crate::analysis::tags::parse(language, source);
    }
    let grammar = language.grammar()?;
    let mut parser = Parser::new();
    parser.set_language(&grammar).ok()?;
    let tree = parser.parse(source, None)?;
    let mut walker = Walker {
        src: source,
        language,
        symbols: Vec::new(),
        imports: Vec::new(),
        module_calls: Vec::new(),
        defs_by_node: HashMap::new(),
        stack: Vec::new(),
    };
    let root = tree.root_node();
    walker.visit(root, true);
    for sym in &mut walker.symbols {
        dedup_in_order(&mut sym.calls);
    }
    dedup_in_order(&mut walker.module_calls);
    let has_errors = root.has_error();
    Some(ParsedFile {
        language,
        tree,
        symbols: walker.symbols,
        imports: walker.imports,
        module_calls: walker.module_calls,
        defs_by_node: walker.defs_by_node,
        has_errors,
        pattern_marks: Vec::new(),
    })
}

fn dedup_in_order(items: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    items.retain(|c| seen.insert(c.clone()));
}

/// A qualified name or reference with every language's member separator
/// written as `.`: `Type::method`, Ruby's `Class#method`, C's `p->f` and
/// Lua's `obj:m` become `Type.method`, `Class.method`, `p.f`, `obj.m`. A
/// JavaScript private name (`this.#x`) keeps its `#`.
pub fn canonical_name(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.contains([':', '#', '-']) {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len());
    let mut chars = name.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ':' => {
                if chars.peek() == Some(&':') {
                    chars.next();
                }
                out.push('.');
            }
            '#' if !out.is_empty() && !out.ends_with('.') => out.push('.'),
            '-' if chars.peek() == Some(&'>') => {
                chars.next();
                out.push('.');
            }
            _ => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The last segment of a qualified name: `a.B.c`, `a::B::c`, `B#c` → `c`.
pub fn short_name(qualified: &str) -> String {
    let canonical = canonical_name(qualified);
    canonical.rsplit('.').next().unwrap_or(&canonical).to_string()
}

/// The source text of a node, decoded leniently (invalid UTF-8 becomes U+FFFD).
pub fn node_text(src: &[u8], node: Node) -> String {
    String::from_utf8_lossy(&src[node.start_byte()..node.end_byte()]).into_owned()
}

/// A recognised definition before it is registered.
struct Candidate<'t> {
    kind: SymbolKind,
    name: String,
    /// Statement-level node: includes decorators / `export` / the declaration keyword.
    outer: Node<'t>,
    /// The node whose children are walked for nested definitions and calls.
    inner: Node<'t>,
    /// Where the signature ends (start of the body), if there is a body.
    body: Option<Node<'t>>,
    bases: Vec<String>,
    /// The first of the decorators that stand before `outer` as its siblings
    /// (TypeScript class members), which belong to the definition.
    lead: Option<Node<'t>>,
}

struct Walker<'s> {
    src: &'s [u8],
    language: Language,
    symbols: Vec<Symbol>,
    imports: Vec<Import>,
    module_calls: Vec<String>,
    defs_by_node: HashMap<usize, Vec<usize>>,
    /// Indexes of the enclosing symbols.
    stack: Vec<usize>,
}

const MAX_CALL_TEXT: usize = 120;

impl<'s> Walker<'s> {
    fn text(&self, node: Node) -> String {
        node_text(self.src, node)
    }

    fn visit(&mut self, node: Node, module_scope: bool) {
        if node.kind() == "comment" {
            return;
        }
        // Decorators of TypeScript class members are siblings of the member;
        // they are visited with the member they decorate.
        if node.kind() == "decorator" && node.parent().is_some_and(|p| p.kind() == "class_body") {
            return;
        }
        let candidates = if self.language == Language::Python {
            self.python_candidates(node, module_scope)
        } else {
            self.js_candidates(node, module_scope)
        };
        if !candidates.is_empty() {
            let outer_id = candidates[0].outer.id();
            for cand in candidates {
                let inner = cand.inner;
                let outer = cand.outer;
                let cand_lead = cand.lead;
                let idx = self.register(cand);
                self.defs_by_node.entry(outer_id).or_default().push(idx);
                // Decorators and other parts of the statement outside `inner`.
                self.stack.push(idx);
                self.visit_outer_parts(outer, inner);
                let mut lead = cand_lead;
                while let Some(d) = lead.filter(|d| d.kind() == "decorator") {
                    self.note_calls_in(d);
                    lead = d.next_sibling();
                }
                let mut cursor = inner.walk();
                for child in inner.named_children(&mut cursor) {
                    self.visit(child, false);
                }
                self.stack.pop();
            }
            return;
        }
        self.note_import_or_call(node);
        let child_scope = module_scope && is_transparent_scope(node.kind());
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.visit(child, child_scope);
        }
    }

    /// Visits the parts of a definition statement that are not its inner node
    /// (decorators, an `export` keyword, the assignment target), for calls.
    fn visit_outer_parts(&mut self, outer: Node, inner: Node) {
        if outer.id() == inner.id() {
            return;
        }
        let mut cursor = outer.walk();
        for child in outer.named_children(&mut cursor) {
            if child.id() == inner.id() || contains(child, inner) {
                continue;
            }
            if child.kind() == "decorator" {
                self.note_calls_in(child);
            }
        }
    }

    fn note_calls_in(&mut self, node: Node) {
        self.note_import_or_call(node);
        let mut cursor = node.walk();
        for child in node.named_children(&mut cursor) {
            self.note_calls_in(child);
        }
    }

    fn note_import_or_call(&mut self, node: Node) {
        match node.kind() {
            "call" | "call_expression" | "new_expression" => {
                let callee = node.child_by_field_name("function").or_else(|| node.child_by_field_name("constructor"));
                if let Some(callee) = callee {
                    let text: String = self.text(callee).split_whitespace().collect();
                    if callee.kind() == "identifier" && text == "require" {
                        self.note_require(node);
                    } else if !text.is_empty() && text.len() <= MAX_CALL_TEXT {
                        match self.stack.last() {
                            Some(&i) => self.symbols[i].calls.push(text),
                            None => self.module_calls.push(text),
                        }
                    }
                }
            }
            "import_statement" | "import_from_statement" | "future_import_statement" => self.note_import(node),
            "export_statement" if node.child_by_field_name("source").is_some() => self.note_import(node),
            _ => {}
        }
    }

    fn note_require(&mut self, call: Node) {
        if let Some(args) = call.child_by_field_name("arguments") {
            if let Some(first) = args.named_child(0) {
                if first.kind() == "string" {
                    let module = unquote(&self.text(first));
                    self.imports.push(Import { module, names: Vec::new(), line: call.start_position().row + 1 });
                }
            }
        }
    }

    fn note_import(&mut self, node: Node) {
        let line = node.start_position().row + 1;
        if self.language == Language::Python {
            match node.kind() {
                "import_statement" => {
                    let mut cursor = node.walk();
                    for child in node.named_children(&mut cursor) {
                        let module = match child.kind() {
                            "aliased_import" => child.child_by_field_name("name").map(|n| self.text(n)),
                            "dotted_name" => Some(self.text(child)),
                            _ => None,
                        };
                        if let Some(module) = module {
                            self.imports.push(Import { module, names: Vec::new(), line });
                        }
                    }
                }
                _ => {
                    let module = node.child_by_field_name("module_name").map(|n| self.text(n)).unwrap_or_default();
                    let mut names = Vec::new();
                    let mut cursor = node.walk();
                    for child in node.children_by_field_name("name", &mut cursor) {
                        let name = match child.kind() {
                            "aliased_import" => child.child_by_field_name("name").map(|n| self.text(n)),
                            _ => Some(self.text(child)),
                        };
                        names.extend(name);
                    }
                    if names.is_empty() && node.named_child_count() > 1 {
                        names.push("*".to_string());
                    }
                    self.imports.push(Import { module, names, line });
                }
            }
            return;
        }
        let Some(source) = node.child_by_field_name("source") else { return };
        let module = unquote(&self.text(source));
        let mut names = Vec::new();
        collect_import_names(self.src, node, &mut names);
        self.imports.push(Import { module, names, line });
    }

    fn register(&mut self, cand: Candidate) -> usize {
        let parent_index = self.stack.last().copied();
        let parent = parent_index.map(|i| self.symbols[i].qualified_name.clone());
        let qualified_name = match &parent {
            Some(p) => format!("{p}.{}", cand.name),
            None => cand.name.clone(),
        };
        let mut kind = cand.kind;
        if kind == SymbolKind::Function {
            if let Some(p) = parent_index {
                if self.symbols[p].kind.is_container() {
                    kind = SymbolKind::Method;
                }
            }
        }
        let short_name = cand.name.rsplit(['.']).next().unwrap_or(&cand.name).to_string();
        let signature = self.signature(&cand);
        let (doc, doc_start) = self.documentation(&cand);
        let mut span = Span::of(cand.outer);
        if let Some(lead) = cand.lead {
            let l = Span::of(lead);
            span.start_byte = l.start_byte;
            span.start_line = l.start_line;
        }
        let symbol = Symbol {
            name: short_name,
            qualified_name,
            kind,
            parent,
            signature,
            doc,
            span,
            doc_start,
            body: cand.body.map(Span::of),
            calls: Vec::new(),
            bases: cand.bases,
            parent_index,
        };
        self.symbols.push(symbol);
        self.symbols.len() - 1
    }

    /// The declaration up to its body, on one line.
    fn signature(&self, cand: &Candidate) -> String {
        // Skip decorators: the signature starts at the definition keyword.
        let start = if cand.outer.kind() == "decorated_definition" {
            cand.outer.child_by_field_name("definition").map_or(cand.outer.start_byte(), |d| d.start_byte())
        } else {
            first_non_decorator_start(cand.outer)
        };
        signature_text(self.src, start, cand.outer.end_byte(), cand.body.map(|b| b.start_byte()))
    }

    /// Docstring (Python) or the comment block right above the definition.
    fn documentation(&self, cand: &Candidate) -> (Option<String>, Option<(usize, usize)>) {
        let comment = self.leading_comment(cand.lead.unwrap_or(cand.outer));
        let doc_start = comment.as_ref().map(|(_, b, l)| (*b, *l));
        if self.language == Language::Python {
            if let Some(body) = cand.body {
                if let Some(first) = body.named_child(0) {
                    if first.kind() == "expression_statement" {
                        if let Some(s) = first.named_child(0) {
                            if s.kind() == "string" {
                                let doc = clean_docstring(&self.text(s));
                                return (Some(doc).filter(|d| !d.is_empty()), doc_start);
                            }
                        }
                    }
                }
            }
        }
        (comment.map(|(text, _, _)| text).filter(|d| !d.is_empty()), doc_start)
    }

    /// The run of comments that ends on the line right above `node`.
    fn leading_comment(&self, node: Node) -> Option<(String, usize, usize)> {
        let mut first: Option<Node> = None;
        let mut expected_row = node.start_position().row;
        let mut cur = node.prev_sibling();
        while let Some(c) = cur {
            if c.kind() != "comment" {
                break;
            }
            let end = c.end_position();
            let end_row = if end.column == 0 && end.row > c.start_position().row { end.row - 1 } else { end.row };
            if end_row + 1 != expected_row {
                break;
            }
            first = Some(c);
            expected_row = c.start_position().row;
            cur = c.prev_sibling();
        }
        let first = first?;
        let text = String::from_utf8_lossy(&self.src[first.start_byte()..node.start_byte()]);
        Some((clean_comment(&text), first.start_byte(), first.start_position().row + 1))
    }

    // ---- Python -------------------------------------------------------------

    fn python_candidates<'t>(&self, node: Node<'t>, module_scope: bool) -> Vec<Candidate<'t>> {
        match node.kind() {
            "decorated_definition" => {
                let Some(def) = node.child_by_field_name("definition") else { return Vec::new() };
                self.python_def(def, node).into_iter().collect()
            }
            "function_definition" | "class_definition" => self.python_def(node, node).into_iter().collect(),
            "expression_statement" if module_scope => {
                let Some(assign) = node.named_child(0).filter(|n| n.kind() == "assignment") else { return Vec::new() };
                let Some(left) = assign.child_by_field_name("left") else { return Vec::new() };
                if left.kind() != "identifier" {
                    return Vec::new();
                }
                let name = self.text(left);
                let kind = if is_upper_case(&name) { SymbolKind::Const } else { SymbolKind::Variable };
                vec![Candidate { kind, name, outer: node, inner: node, body: None, bases: Vec::new(), lead: None }]
            }
            _ => Vec::new(),
        }
    }

    fn python_def<'t>(&self, def: Node<'t>, outer: Node<'t>) -> Option<Candidate<'t>> {
        let name = self.text(def.child_by_field_name("name")?);
        let body = def.child_by_field_name("body");
        let (kind, bases) = if def.kind() == "class_definition" {
            let mut bases = Vec::new();
            if let Some(args) = def.child_by_field_name("superclasses") {
                let mut cursor = args.walk();
                for arg in args.named_children(&mut cursor) {
                    if matches!(arg.kind(), "identifier" | "attribute" | "subscript") {
                        bases.push(self.text(arg));
                    }
                }
            }
            (SymbolKind::Class, bases)
        } else {
            (SymbolKind::Function, Vec::new())
        };
        Some(Candidate { kind, name, outer, inner: def, body, bases, lead: None })
    }

    // ---- JavaScript / TypeScript -------------------------------------------

    fn js_candidates<'t>(&self, node: Node<'t>, module_scope: bool) -> Vec<Candidate<'t>> {
        match node.kind() {
            "export_statement" => {
                if let Some(decl) = node.child_by_field_name("declaration") {
                    let mut cands = self.js_declaration(decl, true);
                    for c in &mut cands {
                        c.outer = node;
                    }
                    return cands;
                }
                // `export default function () {}` / `export default class {}`
                if let Some(value) = node.child_by_field_name("value") {
                    if let Some(kind) = function_like(value) {
                        let name = value.child_by_field_name("name").map(|n| self.text(n)).unwrap_or_else(|| "default".into());
                        return vec![self.js_function_candidate(kind, name, node, value)];
                    }
                }
                Vec::new()
            }
            "expression_statement" => {
                let Some(expr) = node.named_child(0) else { return Vec::new() };
                if expr.kind() != "assignment_expression" {
                    return Vec::new();
                }
                let (Some(left), Some(right)) = (expr.child_by_field_name("left"), expr.child_by_field_name("right")) else {
                    return Vec::new();
                };
                if !matches!(left.kind(), "member_expression" | "subscript_expression" | "identifier") {
                    return Vec::new();
                }
                let name: String = self.text(left).split_whitespace().collect();
                let value = unwrap_assignment(right);
                if let Some(kind) = function_like(value) {
                    return vec![self.js_function_candidate(kind, name, node, value)];
                }
                // `exports.x = ...` and other member assignments at module level are definitions too.
                if module_scope && left.kind() == "member_expression" {
                    return vec![Candidate {
                        kind: SymbolKind::Variable,
                        name,
                        outer: node,
                        inner: expr,
                        body: None,
                        bases: Vec::new(),
                        lead: None,
                    }];
                }
                Vec::new()
            }
            _ => {
                let mut cands = self.js_declaration(node, module_scope);
                if cands.is_empty() {
                    cands.extend(self.js_member(node));
                }
                cands
            }
        }
    }

    /// Declarations that may stand alone or behind `export`.
    fn js_declaration<'t>(&self, node: Node<'t>, module_scope: bool) -> Vec<Candidate<'t>> {
        match node.kind() {
            "function_declaration" | "generator_function_declaration" => {
                let Some(name) = node.child_by_field_name("name") else { return Vec::new() };
                vec![self.js_function_candidate(SymbolKind::Function, self.text(name), node, node)]
            }
            "class_declaration" | "abstract_class_declaration" => {
                let Some(name) = node.child_by_field_name("name") else { return Vec::new() };
                vec![self.js_function_candidate(SymbolKind::Class, self.text(name), node, node)]
            }
            "interface_declaration" | "enum_declaration" | "type_alias_declaration" => {
                let Some(name) = node.child_by_field_name("name") else { return Vec::new() };
                let kind = match node.kind() {
                    "interface_declaration" => SymbolKind::Interface,
                    "enum_declaration" => SymbolKind::Enum,
                    _ => SymbolKind::Type,
                };
                let body = node.child_by_field_name("body");
                let bases = if kind == SymbolKind::Interface { self.heritage(node) } else { Vec::new() };
                vec![Candidate { kind, name: self.text(name), outer: node, inner: node, body, bases, lead: None }]
            }
            "lexical_declaration" | "variable_declaration" => {
                let is_const = self.text(node).trim_start().starts_with("const");
                let mut out = Vec::new();
                let mut cursor = node.walk();
                for decl in node.named_children(&mut cursor) {
                    if decl.kind() != "variable_declarator" {
                        continue;
                    }
                    let Some(name_node) = decl.child_by_field_name("name") else { continue };
                    if name_node.kind() != "identifier" {
                        continue;
                    }
                    let name = self.text(name_node);
                    let value = decl.child_by_field_name("value").map(unwrap_assignment);
                    match value.and_then(|v| function_like(v).map(|k| (v, k))) {
                        Some((v, kind)) => {
                            let mut cand = self.js_function_candidate(kind, name, node, v);
                            cand.inner = v;
                            out.push(cand);
                        }
                        None if module_scope => {
                            let kind = if is_const { SymbolKind::Const } else { SymbolKind::Variable };
                            out.push(Candidate { kind, name, outer: node, inner: decl, body: None, bases: Vec::new(), lead: None });
                        }
                        None => {}
                    }
                }
                out
            }
            _ => Vec::new(),
        }
    }

    /// Class members and object-literal methods.
    fn js_member<'t>(&self, node: Node<'t>) -> Option<Candidate<'t>> {
        match node.kind() {
            "method_definition" => {
                let name = self.text(node.child_by_field_name("name")?);
                let mut cand = self.js_function_candidate(SymbolKind::Function, name, node, node);
                cand.lead = leading_decorators(node);
                Some(cand)
            }
            "public_field_definition" | "field_definition" => {
                let name_node = node.child_by_field_name("name").or_else(|| node.child_by_field_name("property"))?;
                let value = node.child_by_field_name("value")?;
                function_like(value).filter(|k| *k == SymbolKind::Function)?;
                let mut cand = self.js_function_candidate(SymbolKind::Function, self.text(name_node), node, value);
                cand.inner = value;
                cand.lead = leading_decorators(node);
                Some(cand)
            }
            "pair" => {
                let key = node.child_by_field_name("key")?;
                let value = node.child_by_field_name("value")?;
                function_like(value).filter(|k| *k == SymbolKind::Function)?;
                let name = unquote(&self.text(key));
                let mut cand = self.js_function_candidate(SymbolKind::Function, name, node, value);
                cand.inner = value;
                Some(cand)
            }
            _ => None,
        }
    }

    fn js_function_candidate<'t>(&self, kind: SymbolKind, name: String, outer: Node<'t>, def: Node<'t>) -> Candidate<'t> {
        let body = def.child_by_field_name("body");
        let bases = if kind == SymbolKind::Class { self.heritage(def) } else { Vec::new() };
        Candidate { kind, name, outer, inner: def, body, bases, lead: None }
    }

    /// `extends A implements B, C` -> [A, B, C]
    fn heritage(&self, class: Node) -> Vec<String> {
        let mut bases = Vec::new();
        let mut cursor = class.walk();
        for child in class.named_children(&mut cursor) {
            if matches!(child.kind(), "class_heritage" | "extends_type_clause" | "extends_clause" | "implements_clause") {
                let text = self.text(child);
                for part in text.split([',', ' ', '\n', '\t']) {
                    let part = part.split('<').next().unwrap_or("").trim();
                    if !part.is_empty() && part != "extends" && part != "implements" && part != "{" {
                        bases.push(part.to_string());
                    }
                }
            }
        }
        bases
    }
}

/// Start of a node's text after any leading decorators (TypeScript puts
/// `@sealed` inside the class declaration node, or the `export` statement).
fn first_non_decorator_start(node: Node) -> usize {
    let mut cursor = node.walk();
    let mut start = node.start_byte();
    for child in node.children(&mut cursor) {
        if child.kind() == "decorator" || child.kind() == "comment" {
            start = child.end_byte();
            continue;
        }
        if child.kind() == "class_declaration" || child.kind() == "abstract_class_declaration" {
            return first_non_decorator_start(child).max(start);
        }
        return child.start_byte().max(start);
    }
    start
}

/// The first of the `decorator` siblings right before `node`.
fn leading_decorators(node: Node) -> Option<Node> {
    let mut first = None;
    let mut cur = node.prev_sibling();
    while let Some(c) = cur {
        match c.kind() {
            "decorator" => first = Some(c),
            _ => break,
        }
        cur = c.prev_sibling();
    }
    first
}

/// Scopes through which a statement is still "module level": blocks of
/// `if`/`try` at the top of a module are not, but `export` wrappers are.
fn is_transparent_scope(kind: &str) -> bool {
    matches!(kind, "module" | "program" | "export_statement")
}

fn contains(outer: Node, inner: Node) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

/// `a = b = function () {}` -> the function.
fn unwrap_assignment(mut node: Node) -> Node {
    while node.kind() == "assignment_expression" {
        match node.child_by_field_name("right") {
            Some(r) => node = r,
            None => break,
        }
    }
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

fn function_like(node: Node) -> Option<SymbolKind> {
    match node.kind() {
        "function_expression" | "function" | "arrow_function" | "generator_function" => Some(SymbolKind::Function),
        "class" => Some(SymbolKind::Class),
        _ => None,
    }
}

fn collect_import_names(src: &[u8], node: Node, names: &mut Vec<String>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "import_specifier" | "export_specifier" => {
                if let Some(n) = child.child_by_field_name("name") {
                    names.push(node_text(src, n));
                }
            }
            "identifier" if node.kind() == "import_clause" => names.push(node_text(src, child)),
            "namespace_import" => names.push("*".to_string()),
            "string" => {}
            _ => collect_import_names(src, child, names),
        }
    }
}

fn is_upper_case(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_alphabetic()) && !name.chars().any(|c| c.is_lowercase())
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

fn clean_docstring(raw: &str) -> String {
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
    for line in raw.lines() {
        let l = line.trim();
        let l = l.trim_start_matches("/**").trim_start_matches("/*").trim_end_matches("*/");
        // `///` and `//!` (Rust), `--[[ ]]` and `--` (Lua), `#` (Python, Ruby).
        let l = l.trim_start_matches("///").trim_start_matches("//!").trim_start_matches("//");
        let l = l.trim_start_matches("--[[").trim_end_matches("]]").trim_start_matches("--");
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
    fn syntax_errors_still_yield_symbols() {
        let src = "def ok():\n    return 1\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self): pass\n";
        let parsed = parse(Language::Python, src.as_bytes()).expect("grammar");
        assert!(parsed.has_errors);
        let names: Vec<_> = parsed.symbols.iter().map(|s| s.qualified_name.as_str()).collect();
        assert!(names.contains(&"ok"));
        assert!(names.contains(&"Fine.m"));
    }
}
