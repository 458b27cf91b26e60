//! cAST chunking: the syntax tree, cut into retrieval units.
//!
//! Every function, method, class, interface, enum and type alias gets a
//! chunk of its own (file ▶ class ▶ method). A class chunk is its outline:
//! header, docstring, fields and member signatures, with member bodies
//! elided, because each member has its own chunk. A definition larger than
//! the budget keeps a summary chunk and its body is cut into `block` chunks
//! that point at it. Everything between definitions (imports, constants,
//! module code) is merged greedily into `code` chunks up to the budget, and a
//! single statement over the budget is split along its children, recursively.
//! Sizes count non-whitespace characters, so indentation style does not
//! change where a cut falls.
//!
//! Files without a grammar are cut into Markdown sections or paragraphs;
//! files over the size cap into line windows.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::analysis::embedded;
use crate::analysis::lang::Language;
use crate::analysis::parse::{self, ParsedFile, Symbol, SymbolKind};
use crate::analysis::tags::NotParsed;

/// Chunking options. `budget` is in non-whitespace characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ChunkOptions {
    pub budget: usize,
    /// Files larger than this (bytes) are not parsed, only cut into line
    /// windows (the index run says which). 4 MB keeps the symbols of big
    /// generated modules (a 2 MB Python file of 60,000 functions: 60,000
    /// symbols, ~9 s and ~420 MB in a debug build); past it a file costs
    /// more time and memory than one file should.
    pub max_parse_bytes: usize,
    /// Line windows never hold more lines than this.
    pub max_window_lines: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions { budget: 2000, max_parse_bytes: 4_000_000, max_window_lines: 120 }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChunkKind {
    /// Imports and outline of a whole file.
    File,
    Class,
    Interface,
    Enum,
    /// A namespace's outline (Rust `mod`, C++/C# `namespace`, Ruby `module`).
    Module,
    Type,
    Function,
    Method,
    /// A part of a definition over the budget.
    Block,
    /// Module-level code between definitions.
    Code,
    /// A Markdown section.
    Section,
    /// Paragraphs of a plain text file.
    Text,
    /// Lines of a file over the parse cap.
    Window,
    /// The whole text of a file that did not parse cleanly.
    Fallback,
}

impl ChunkKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChunkKind::File => "file",
            ChunkKind::Class => "class",
            ChunkKind::Interface => "interface",
            ChunkKind::Enum => "enum",
            ChunkKind::Module => "module",
            ChunkKind::Type => "type",
            ChunkKind::Function => "function",
            ChunkKind::Method => "method",
            ChunkKind::Block => "block",
            ChunkKind::Code => "code",
            ChunkKind::Section => "section",
            ChunkKind::Text => "text",
            ChunkKind::Window => "window",
            ChunkKind::Fallback => "fallback",
        }
    }

    pub fn all() -> &'static [ChunkKind] {
        use ChunkKind::*;
        &[File, Class, Interface, Enum, Module, Type, Function, Method, Block, Code, Section, Text, Window, Fallback]
    }

    pub fn from_symbol(kind: SymbolKind) -> ChunkKind {
        match kind {
            SymbolKind::Class => ChunkKind::Class,
            SymbolKind::Interface => ChunkKind::Interface,
            SymbolKind::Enum => ChunkKind::Enum,
            SymbolKind::Module => ChunkKind::Module,
            SymbolKind::Type => ChunkKind::Type,
            SymbolKind::Function => ChunkKind::Function,
            SymbolKind::Method => ChunkKind::Method,
            SymbolKind::Variable | SymbolKind::Const | SymbolKind::Key => ChunkKind::Code,
        }
    }
}

/// One retrieval unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    /// Hash of (path, symbol path, content); stable across runs.
    pub id: String,
    /// Hash of the content alone, for reusing work on identical text.
    pub content_hash: String,
    pub kind: ChunkKind,
    /// The symbol this chunk is about (qualified), if any.
    pub symbol: Option<String>,
    /// Every symbol defined in this chunk (qualified), for symbol lookup.
    pub symbols: Vec<String>,
    pub parent_id: Option<String>,
    pub start_line: usize,
    pub end_line: usize,
    pub start_byte: usize,
    pub end_byte: usize,
    pub content: String,
}

/// Everything derived from one file (serialized: the work tree's last
/// layer is kept for the next process, `crate::worktree`).
#[derive(Serialize, Deserialize)]
pub struct FileChunks {
    #[serde(with = "crate::analysis::lang::by_name")]
    pub language: Language,
    pub chunks: Vec<Chunk>,
    pub symbols: Vec<Symbol>,
    pub imports: Vec<parse::Import>,
    pub has_errors: bool,
    /// The file's lines, and how many lie inside syntax errors (both 0 when
    /// it was not parsed).
    pub lines: usize,
    pub error_lines: usize,
    /// Convention instances mined from the tree (empty when not parsed).
    pub patterns: Vec<crate::analysis::patterns::PatternInstance>,
    /// Calls made outside any definition (module level), for the code graph.
    pub module_calls: Vec<String>,
    /// The grammar's parse was given up as too costly
    /// ([`crate::analysis::tags::PARSE_READ_FACTOR`]): chunked as text windows.
    #[serde(default)]
    pub parse_too_costly: bool,
}

/// Chunks one file. `data` is the blob; callers skip binary files first.
pub fn chunk_file(path: &str, data: &[u8], opts: &ChunkOptions) -> FileChunks {
    let language = Language::detect(path, data);
    let mut builder = Builder::new(data, opts);
    let mut symbols = Vec::new();
    let mut imports = Vec::new();
    let mut has_errors = false;
    let (mut lines, mut error_lines) = (0, 0);
    let mut patterns = Vec::new();
    let mut module_calls = Vec::new();
    let parsed = if data.len() > opts.max_parse_bytes { Err(NotParsed::TooCostly) } else { parse::parse(language, data) };
    let parse_too_costly = data.len() <= opts.max_parse_bytes && parsed.as_ref().err() == Some(&NotParsed::TooCostly);
    if let Err(NotParsed::TooCostly) = parsed {
        builder.line_windows(0, data.len(), ChunkKind::Window, None, None);
    } else if let Ok(parsed) = parsed {
        has_errors = parsed.has_errors;
        error_lines = parsed.error_lines;
        lines = line_count(data);
        builder.code_file(path, &parsed);
        patterns = crate::analysis::patterns::mine(path, &parsed, data);
        symbols = parsed.symbols;
        imports = parsed.imports;
        module_calls = parsed.module_calls;
    } else if language == Language::Markdown {
        builder.markdown();
        module_calls = crate::analysis::tags::fenced_calls(data);
    } else {
        builder.paragraphs(0, data.len(), ChunkKind::Text, None);
    }
    let chunks = builder.finish(path);
    FileChunks { language, chunks, symbols, imports, has_errors, lines, error_lines, patterns, module_calls, parse_too_costly }
}

/// Lines of a text, the last one counted whether or not a newline ends it.
fn line_count(data: &[u8]) -> usize {
    let newlines = data.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(data.last().is_some_and(|&b| b != b'\n'))
}

/// Counts what the budget counts.
pub fn non_ws_len(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| !b.is_ascii_whitespace()).count()
}

/// A chunk before its id is known; `parent` indexes `Builder::chunks`.
struct Draft {
    kind: ChunkKind,
    symbol: Option<String>,
    symbols: Vec<String>,
    parent: Option<usize>,
    start_byte: usize,
    end_byte: usize,
    start_line: usize,
    end_line: usize,
    content: String,
}

struct Builder<'a> {
    src: &'a [u8],
    opts: &'a ChunkOptions,
    /// Byte offset of the start of each line.
    line_starts: Vec<usize>,
    chunks: Vec<Draft>,
    /// How many oversized nodes [`Builder::merge_siblings`] is inside now.
    split_depth: usize,
}

/// How deep an oversized node is opened to find children that fit the
/// budget; deeper, it is cut into line windows. Code worth its own chunk sits
/// a few levels down; 20,000 nested brackets (generated data) would
/// otherwise recurse 20,000 deep (past a thread's stack) and measure the
/// same bytes once per level.
const MAX_SPLIT_DEPTH: usize = 64;

impl<'a> Builder<'a> {
    fn new(src: &'a [u8], opts: &'a ChunkOptions) -> Self {
        let mut line_starts = vec![0];
        for (i, b) in src.iter().enumerate() {
            if *b == b'\n' && i + 1 < src.len() {
                line_starts.push(i + 1);
            }
        }
        Builder { src, opts, line_starts, chunks: Vec::new(), split_depth: 0 }
    }

    /// 1-based line of a byte offset.
    fn line_of(&self, byte: usize) -> usize {
        match self.line_starts.binary_search(&byte) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// 1-based line of the last byte before `end` (exclusive end offset).
    fn end_line_of(&self, start: usize, end: usize) -> usize {
        if end <= start {
            return self.line_of(start);
        }
        // Trailing newlines do not extend a chunk onto the next line.
        let mut last = end - 1;
        while last > start && matches!(self.src[last], b'\n' | b'\r') {
            last -= 1;
        }
        self.line_of(last)
    }

    fn text(&self, start: usize, end: usize) -> String {
        String::from_utf8_lossy(&self.src[start..end]).into_owned()
    }

    fn push(&mut self, draft: Draft) -> usize {
        self.chunks.push(draft);
        self.chunks.len() - 1
    }

    fn push_range(&mut self, kind: ChunkKind, start: usize, end: usize, symbol: Option<String>, symbols: Vec<String>, parent: Option<usize>) -> usize {
        let content = self.text(start, end);
        self.push_content(kind, start, end, symbol, symbols, parent, content)
    }

    /// A chunk covering `start..end` whose text is not the verbatim source
    /// (an outline, or the head of a definition over the budget).
    #[allow(clippy::too_many_arguments)]
    fn push_content(
        &mut self,
        kind: ChunkKind,
        start: usize,
        end: usize,
        symbol: Option<String>,
        symbols: Vec<String>,
        parent: Option<usize>,
        content: String,
    ) -> usize {
        self.push(Draft {
            kind,
            symbol,
            symbols,
            parent,
            start_byte: start,
            end_byte: end,
            start_line: self.line_of(start),
            end_line: self.end_line_of(start, end),
            content,
        })
    }

    // ---- code ---------------------------------------------------------------

    fn code_file(&mut self, path: &str, parsed: &ParsedFile) {
        let file_idx = self.file_chunk(path, parsed);
        let root = parsed.tree.root_node();
        // Chunk index of each symbol's own chunk, so members can point at it.
        let mut chunk_of_symbol: HashMap<usize, usize> = HashMap::new();
        let owned: HashSet<usize> =
            parsed.defs_by_node.iter().filter(|(_, defs)| defs.iter().any(|&d| parsed.symbols[d].owns_chunk())).map(|(&node, _)| node).collect();
        let def_nodes = owned_in_order(root, parsed, &owned);
        // Each container's members' bodies, elided from its outline: found in
        // one pass (a pass over every symbol per container was quadratic in a
        // file of thousands of small classes).
        let mut member_bodies: Vec<Vec<(usize, usize)>> = vec![Vec::new(); parsed.symbols.len()];
        for m in parsed.symbols.iter().filter(|m| m.owns_chunk()) {
            if let (Some(p), Some(b)) = (m.parent_index, m.body) {
                if let Some(bodies) = member_bodies.get_mut(p) {
                    bodies.push((b.start_byte, b.end_byte));
                }
            }
        }
        #[cfg(debug_assertions)]
        assert!(def_nodes == every_owned_in_order(root, parsed, &owned), "the pruned walk missed a definition");
        // The last definition's chunk, for clauses that continue it.
        let mut last: Option<(usize, usize)> = None;
        for (node, d) in def_nodes {
            let sym = &parsed.symbols[d];
            if let Some((prev, idx)) = last.filter(|_| parsed.language.defines_by_clauses()) {
                if self.continues(&parsed.symbols[prev], sym, idx, node.end_byte()) {
                    self.extend_to(idx, node.end_byte());
                    chunk_of_symbol.insert(d, idx);
                    continue;
                }
            }
            let parent = match sym.parent_index {
                Some(p) => chunk_of_symbol.get(&p).copied().or(Some(file_idx)),
                None => Some(file_idx),
            };
            let idx = self.definition(node, sym, &member_bodies[d], parsed, &owned, parent);
            chunk_of_symbol.insert(d, idx);
            last = Some((d, idx));
        }
        // Module-level code between definitions.
        let mut cursor = root.walk();
        let top: Vec<Node> = root.named_children(&mut cursor).collect();
        self.merge_siblings(&top, parsed, &owned, ChunkKind::Code, None, Some(file_idx));
        // A component's markup around its scripts (template, style).
        if let Some(scripts) = embedded::code_ranges(parsed.language, self.src) {
            let mut at = 0;
            for script in scripts.iter().map(Some).chain([None]) {
                let end = script.map_or(self.src.len(), |r| r.start);
                if at < end {
                    self.paragraphs(at, end, ChunkKind::Code, None);
                }
                at = script.map_or(at, |r| r.end);
            }
        }
        if parsed.has_errors {
            self.fallback(file_idx);
        }
    }

    /// Whether `next` is a further clause of the function `prev` whose
    /// verbatim chunk is `idx` (a Haskell signature and its equations, an
    /// Elixir function's heads): same name and scope, and the chunk grown to
    /// `end` still within the budget.
    fn continues(&self, prev: &Symbol, next: &Symbol, idx: usize, end: usize) -> bool {
        let chunk = &self.chunks[idx];
        prev.qualified_name == next.qualified_name
            && prev.parent_index == next.parent_index
            && !prev.kind.is_container()
            && chunk.symbol.as_deref() == Some(prev.qualified_name.as_str())
            && chunk.content == self.text(chunk.start_byte, chunk.end_byte)
            && non_ws_len(&self.src[chunk.start_byte..end]) <= self.opts.budget
    }

    /// Grows a verbatim chunk to end at `end`.
    fn extend_to(&mut self, idx: usize, end: usize) {
        let start = self.chunks[idx].start_byte;
        let (end_line, content) = (self.end_line_of(start, end), self.text(start, end));
        let chunk = &mut self.chunks[idx];
        (chunk.end_byte, chunk.end_line, chunk.content) = (end, end_line, content);
    }

    /// The file chunk: its path, its import statements as written and an
    /// outline of the definitions (each one's signature line, indented by
    /// its depth).
    fn file_chunk(&mut self, path: &str, parsed: &ParsedFile) -> usize {
        let mut content = format!("// file: {path}\n");
        for statement in import_statements(self.src, parsed.imports.iter().map(|i| i.line)) {
            content.push_str(&statement);
            content.push('\n');
        }
        for sym in &parsed.symbols {
            let dots = |q: &str| crate::analysis::name::canonical(q).matches('.').count();
            let depth = dots(&sym.qualified_name).min(sym.parent.as_ref().map_or(0, |p| dots(p) + 1));
            content.push_str(&"  ".repeat(depth));
            content.push_str(&sym.signature);
            content.push('\n');
        }
        let content = truncate_to_budget(&content, self.opts.budget);
        let end = self.src.len();
        self.push(Draft {
            kind: ChunkKind::File,
            symbol: None,
            symbols: Vec::new(),
            parent: None,
            start_byte: 0,
            end_byte: end,
            start_line: 1,
            end_line: self.end_line_of(0, end).max(1),
            content,
        })
    }

    /// The chunk(s) of one definition; returns the index of its main chunk.
    fn definition(
        &mut self,
        node: Node,
        sym: &Symbol,
        members: &[(usize, usize)],
        parsed: &ParsedFile,
        owned: &HashSet<usize>,
        parent: Option<usize>,
    ) -> usize {
        let (start, _) = sym.chunk_start();
        let end = node.end_byte();
        let kind = ChunkKind::from_symbol(sym.kind);
        let symbol = Some(sym.qualified_name.clone());
        let symbols = vec![sym.qualified_name.clone()];
        let size = non_ws_len(&self.src[start..end]);

        if sym.kind.is_container() {
            // The outline: member bodies elided, since members have their own chunks.
            let outline = elide(self.src, start, end, members, parsed.language == Language::Python);
            let fits = non_ws_len(outline.as_bytes()) <= self.opts.budget;
            let content = if fits { outline } else { truncate_to_budget(&outline, self.opts.budget) };
            let idx = self.push_content(kind, start, end, symbol.clone(), symbols, parent, content);
            if !fits {
                // Fields and other non-member parts that did not fit the outline.
                if let Some(body) = body_node(node, sym) {
                    let mut cursor = body.walk();
                    let children: Vec<Node> = body.named_children(&mut cursor).collect();
                    self.merge_siblings(&children, parsed, owned, ChunkKind::Block, symbol, Some(idx));
                }
            }
            return idx;
        }

        if size <= self.opts.budget {
            return self.push_range(kind, start, end, symbol, symbols, parent);
        }
        // Over budget: a summary chunk for the whole definition, and its body in
        // blocks (a TOML table has no body node: its keys are its children).
        let head = truncate_to_budget(&self.text(start, end), self.opts.budget);
        let idx = self.push_content(kind, start, end, symbol.clone(), symbols, parent, head);
        match body_node(node, sym).or_else(|| (sym.kind == SymbolKind::Key).then_some(node)) {
            Some(body) => {
                let mut cursor = body.walk();
                let children: Vec<Node> = body.named_children(&mut cursor).collect();
                if children.is_empty() {
                    self.line_windows(body.start_byte(), body.end_byte(), ChunkKind::Block, symbol, Some(idx));
                } else {
                    self.merge_siblings(&children, parsed, owned, ChunkKind::Block, symbol, Some(idx));
                }
            }
            None => self.line_windows(start, end, ChunkKind::Block, symbol, Some(idx)),
        }
        idx
    }

    /// Greedy merge of adjacent siblings up to the budget; statements that own
    /// a chunk are skipped (they have theirs), oversized ones are split.
    fn merge_siblings(&mut self, nodes: &[Node], parsed: &ParsedFile, owned: &HashSet<usize>, kind: ChunkKind, symbol: Option<String>, parent: Option<usize>) {
        let budget = self.opts.budget;
        // (start, end, size, symbols) of the run being built.
        let mut run: Option<(usize, usize, usize, Vec<String>)> = None;
        // Leading comments of owned definitions belong to their chunk.
        let doc_starts: HashMap<usize, usize> = nodes
            .iter()
            .filter(|n| owned.contains(&n.id()))
            .filter_map(|n| {
                let defs = parsed.defs_by_node.get(&n.id())?;
                let (b, _) = parsed.symbols[defs[0]].chunk_start();
                Some((n.id(), b))
            })
            .collect();
        let mut doc_ranges: Vec<(usize, usize)> = nodes.iter().filter_map(|n| doc_starts.get(&n.id()).map(|&b| (b, n.start_byte()))).collect();
        doc_ranges.sort_unstable();
        // Siblings come in order, so the doc ranges starting at or before a
        // node are a growing prefix: the node lies in one of them when the
        // furthest end among them reaches past it (a scan of every range per
        // node was quadratic in a file of thousands of documented definitions).
        let (mut opened, mut furthest_doc_end) = (0, 0);

        for node in nodes {
            let (s, e) = (node.start_byte(), node.end_byte());
            while let Some(&(_, de)) = doc_ranges.get(opened).filter(|&&(ds, _)| ds <= s) {
                furthest_doc_end = furthest_doc_end.max(de);
                opened += 1;
            }
            let in_doc = opened > 0 && e <= furthest_doc_end;
            if owned.contains(&node.id()) || in_doc {
                self.flush_run(&mut run, kind, &symbol, parent);
                continue;
            }
            let size = non_ws_len(&self.src[s..e]);
            let names: Vec<String> =
                parsed.defs_by_node.get(&node.id()).map(|defs| defs.iter().map(|&d| parsed.symbols[d].qualified_name.clone()).collect()).unwrap_or_default();
            // A configuration file's keys lie inside its document and
            // mapping: those are opened down to the keys that own chunks.
            if size > budget || (parsed.language.is_config() && holds_owned(*node, parsed, owned)) {
                self.flush_run(&mut run, kind, &symbol, parent);
                let first_piece = self.chunks.len();
                let mut cursor = node.walk();
                let children: Vec<Node> = node.named_children(&mut cursor).collect();
                if children.is_empty() || self.split_depth >= MAX_SPLIT_DEPTH {
                    self.line_windows(s, e, kind, symbol.clone(), parent);
                } else {
                    // The parts of the node before its first and after its last
                    // child (keywords, brackets) are small; the children carry the content.
                    self.split_depth += 1;
                    self.merge_siblings(&children, parsed, owned, kind, symbol.clone(), parent);
                    self.split_depth -= 1;
                }
                // The names the statement defines stay findable: on its first piece.
                if let Some(first) = self.chunks.get_mut(first_piece) {
                    if first.symbol.is_none() {
                        first.symbol = names.first().cloned();
                    }
                    first.symbols.extend(names);
                }
                continue;
            }
            // Measure the run as the text it will hold, separators included:
            // what it holds plus what lies between its end and this node's
            // (a count over the whole run per sibling cost a string of
            // thousands of escapes thousands of times its budget).
            let grown = run.as_ref().map(|(_, re, rsize, _)| rsize + non_ws_len(&self.src[*re..e.max(*re)]));
            match &mut run {
                Some((_, re, rsize, rnames)) if grown.is_some_and(|g| g <= budget) => {
                    *re = e;
                    *rsize = grown.unwrap_or(*rsize);
                    rnames.extend(names);
                }
                _ => {
                    self.flush_run(&mut run, kind, &symbol, parent);
                    run = Some((s, e, size, names));
                }
            }
        }
        self.flush_run(&mut run, kind, &symbol, parent);
    }

    fn flush_run(&mut self, run: &mut Option<(usize, usize, usize, Vec<String>)>, kind: ChunkKind, symbol: &Option<String>, parent: Option<usize>) {
        if let Some((s, e, size, names)) = run.take() {
            if size == 0 {
                return;
            }
            let sym = symbol.clone().or_else(|| names.first().cloned());
            self.push_range(kind, s, e, sym, names, parent);
        }
    }

    fn fallback(&mut self, file_idx: usize) {
        let len = self.src.len();
        if non_ws_len(self.src) <= self.opts.budget {
            self.push_range(ChunkKind::Fallback, 0, len, None, Vec::new(), Some(file_idx));
        } else {
            self.line_windows(0, len, ChunkKind::Fallback, None, Some(file_idx));
        }
    }

    // ---- text -----------------------------------------------------------------

    /// Consecutive lines up to the budget (or the line cap) per chunk.
    fn line_windows(&mut self, start: usize, end: usize, kind: ChunkKind, symbol: Option<String>, parent: Option<usize>) {
        let budget = self.opts.budget;
        let max_lines = self.opts.max_window_lines;
        let mut win_start = start;
        let mut size = 0;
        let mut lines = 0;
        let mut pos = start;
        while pos < end {
            let line_end = self.src[pos..end].iter().position(|&b| b == b'\n').map_or(end, |i| pos + i + 1);
            let line_size = non_ws_len(&self.src[pos..line_end]);
            if lines > 0 && (size + line_size > budget || lines >= max_lines) {
                self.push_window(win_start, pos, kind, &symbol, parent, size);
                win_start = pos;
                size = 0;
                lines = 0;
            }
            // A single line over the budget (minified code) is cut by bytes.
            if line_size > budget {
                let mut cut = pos;
                while cut < line_end {
                    let mut next = (cut + budget).min(line_end);
                    while next < line_end && !is_char_boundary(self.src, next) {
                        next += 1;
                    }
                    let chunk_size = non_ws_len(&self.src[cut..next]);
                    self.push_window(cut, next, kind, &symbol, parent, chunk_size);
                    cut = next;
                }
                win_start = line_end;
                pos = line_end;
                continue;
            }
            size += line_size;
            lines += 1;
            pos = line_end;
        }
        if win_start < end {
            self.push_window(win_start, end, kind, &symbol, parent, size);
        }
    }

    fn push_window(&mut self, start: usize, end: usize, kind: ChunkKind, symbol: &Option<String>, parent: Option<usize>, size: usize) {
        if size > 0 {
            self.push_range(kind, start, end, symbol.clone(), Vec::new(), parent);
        }
    }

    /// Paragraphs (blank-line separated) merged up to the budget.
    fn paragraphs(&mut self, start: usize, end: usize, kind: ChunkKind, symbol: Option<String>) {
        let budget = self.opts.budget;
        let mut run: Option<(usize, usize, usize)> = None;
        for (ps, pe) in paragraph_ranges(self.src, start, end) {
            let size = non_ws_len(&self.src[ps..pe]);
            if size > budget {
                if let Some((rs, re, _)) = run.take() {
                    self.push_range(kind, rs, re, symbol.clone(), Vec::new(), None);
                }
                self.line_windows(ps, pe, kind, symbol.clone(), None);
                continue;
            }
            match &mut run {
                Some((_, re, rsize)) if *rsize + size <= budget => {
                    *re = pe;
                    *rsize += size;
                }
                _ => {
                    if let Some((rs, re, _)) = run.take() {
                        self.push_range(kind, rs, re, symbol.clone(), Vec::new(), None);
                    }
                    run = Some((ps, pe, size));
                }
            }
        }
        if let Some((rs, re, _)) = run {
            self.push_range(kind, rs, re, symbol, Vec::new(), None);
        }
    }

    /// Markdown: one chunk per heading section, paragraphs when a section is too big.
    fn markdown(&mut self) {
        let mut sections: Vec<(usize, Option<String>)> = vec![(0, None)];
        let mut in_fence = false;
        let mut pos = 0;
        while pos < self.src.len() {
            let line_end = self.src[pos..].iter().position(|&b| b == b'\n').map_or(self.src.len(), |i| pos + i + 1);
            let line = String::from_utf8_lossy(&self.src[pos..line_end]);
            let trimmed = line.trim_start();
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                in_fence = !in_fence;
            } else if !in_fence && trimmed.starts_with('#') && line.len() - trimmed.len() < 4 {
                let title = trimmed.trim_start_matches('#').trim().to_string();
                if pos == 0 {
                    sections[0].1 = Some(title);
                } else {
                    sections.push((pos, Some(title)));
                }
            }
            pos = line_end;
        }
        for i in 0..sections.len() {
            let (s, ref title) = sections[i];
            let title = title.clone();
            let e = sections.get(i + 1).map_or(self.src.len(), |n| n.0);
            let size = non_ws_len(&self.src[s..e]);
            if size == 0 {
                continue;
            }
            if size <= self.opts.budget {
                self.push_range(ChunkKind::Section, s, e, title, Vec::new(), None);
            } else {
                self.paragraphs(s, e, ChunkKind::Section, title);
            }
        }
    }

    /// Assigns ids: hash of (path, symbol path, content), made unique within the file.
    fn finish(self, path: &str) -> Vec<Chunk> {
        let mut seen: HashMap<String, usize> = HashMap::new();
        let mut ids = Vec::with_capacity(self.chunks.len());
        for d in &self.chunks {
            let symbol_path = d.symbol.as_deref().unwrap_or("");
            let mut hasher = blake3::Hasher::new();
            hasher.update(path.as_bytes());
            hasher.update(&[0]);
            hasher.update(symbol_path.as_bytes());
            hasher.update(&[0]);
            hasher.update(d.content.as_bytes());
            let base = hex16(hasher.finalize().as_bytes());
            let n = seen.entry(base.clone()).or_insert(0);
            let id = if *n == 0 { base.clone() } else { hex16(blake3::hash(format!("{base}#{n}").as_bytes()).as_bytes()) };
            *n += 1;
            ids.push(id);
        }
        self.chunks
            .into_iter()
            .enumerate()
            .map(|(i, d)| Chunk {
                id: ids[i].clone(),
                content_hash: hex16(blake3::hash(d.content.as_bytes()).as_bytes()),
                kind: d.kind,
                symbol: d.symbol,
                symbols: d.symbols,
                parent_id: d.parent.map(|p| ids[p].clone()),
                start_line: d.start_line,
                end_line: d.end_line,
                start_byte: d.start_byte,
                end_byte: d.end_byte,
                content: d.content,
            })
            .collect()
    }
}

fn body_node<'t>(node: Node<'t>, sym: &Symbol) -> Option<Node<'t>> {
    let body = sym.body?;
    node.descendant_for_byte_range(body.start_byte, body.end_byte).filter(|n| n.start_byte() == body.start_byte && n.end_byte() == body.end_byte)
}

/// Source text of `start..end` with the given byte ranges replaced by `...` / `{ … }`.
fn elide(src: &[u8], start: usize, end: usize, ranges: &[(usize, usize)], python: bool) -> String {
    let mut ranges: Vec<(usize, usize)> = ranges.iter().copied().filter(|&(s, e)| s >= start && e <= end).collect();
    ranges.sort();
    let mut out = String::new();
    let mut pos = start;
    for (s, e) in ranges {
        if s < pos {
            continue; // nested inside an elided range
        }
        out.push_str(&String::from_utf8_lossy(&src[pos..s]));
        out.push_str(if python { "..." } else { "{ … }" });
        pos = e;
    }
    out.push_str(&String::from_utf8_lossy(&src[pos..end]));
    out
}

/// Cuts text at the line where the non-whitespace count passes the budget.
fn truncate_to_budget(text: &str, budget: usize) -> String {
    let mut size = 0;
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let n = non_ws_len(line.as_bytes());
        if size + n > budget && !out.is_empty() {
            break;
        }
        if size + n > budget {
            // A single huge first line: cut it by characters.
            let mut count = 0;
            for c in line.chars() {
                if !c.is_whitespace() {
                    count += 1;
                }
                if count > budget {
                    break;
                }
                out.push(c);
            }
            break;
        }
        size += n;
        out.push_str(line);
    }
    out
}

fn paragraph_ranges(src: &[u8], start: usize, end: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut para_start: Option<usize> = None;
    let mut pos = start;
    while pos < end {
        let line_end = src[pos..end].iter().position(|&b| b == b'\n').map_or(end, |i| pos + i + 1);
        let blank = src[pos..line_end].iter().all(|b| b.is_ascii_whitespace());
        match (blank, para_start) {
            (true, Some(ps)) => {
                out.push((ps, pos));
                para_start = None;
            }
            (false, None) => para_start = Some(pos),
            _ => {}
        }
        pos = line_end;
    }
    if let Some(ps) = para_start {
        out.push((ps, end));
    }
    out
}

fn is_char_boundary(src: &[u8], i: usize) -> bool {
    i >= src.len() || (src[i] as i8) >= -0x40
}

fn hex16(bytes: &[u8]) -> String {
    bytes[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// Every statement that owns a chunk, with each of its definitions that
/// does, in source order: a pre-order walk that enters a node only when an
/// owned node lies inside it (bodies without definitions, most of a file,
/// are skipped; walking every node was ~4% of a full index).
fn owned_in_order<'t>(root: Node<'t>, parsed: &ParsedFile, owned: &HashSet<usize>) -> Vec<(Node<'t>, usize)> {
    let mut ranges: Vec<(usize, usize, usize)> = owned.iter().filter_map(|id| parsed.def_node_ranges.get(id).map(|&(s, e)| (s, e, *id))).collect();
    ranges.sort_unstable();
    let holds_owned = |node: Node| {
        let (start, end) = (node.start_byte(), node.end_byte());
        let from = ranges.partition_point(|r| r.0 < start);
        ranges[from..].iter().take_while(|r| r.0 <= end).any(|r| r.1 <= end && r.2 != node.id())
    };
    let mut out = Vec::new();
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        push_owned(node, parsed, owned, &mut out);
        if holds_owned(node) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// Whether `node` holds, below it, a definition with a chunk of its own.
fn holds_owned(node: Node, parsed: &ParsedFile, owned: &HashSet<usize>) -> bool {
    let (start, end) = (node.start_byte(), node.end_byte());
    owned.iter().any(|id| *id != node.id() && parsed.def_node_ranges.get(id).is_some_and(|&(s, e)| start <= s && e <= end))
}

fn push_owned<'t>(node: Node<'t>, parsed: &ParsedFile, owned: &HashSet<usize>, out: &mut Vec<(Node<'t>, usize)>) {
    if !owned.contains(&node.id()) {
        return;
    }
    for &d in parsed.defs_by_node.get(&node.id()).into_iter().flatten() {
        if parsed.symbols[d].owns_chunk() {
            out.push((node, d));
        }
    }
}

/// [`owned_in_order`] by visiting every named node (what debug builds check it against).
#[cfg(debug_assertions)]
fn every_owned_in_order<'t>(root: Node<'t>, parsed: &ParsedFile, owned: &HashSet<usize>) -> Vec<(Node<'t>, usize)> {
    let mut stack = vec![root];
    let mut out = Vec::new();
    while let Some(node) = stack.pop() {
        push_owned(node, parsed, owned, &mut out);
        let mut cursor = node.walk();
        let children: Vec<Node> = node.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    out
}

/// Lines an import statement may span in a file chunk (a longer one is cut there).
const IMPORT_STATEMENT_LINES: usize = 20;

/// The import statements starting on `lines` (1-based, each once, in
/// order) as the file writes them: from its line until its brackets close
/// (`from x import (` … `)`, `use a::{` … `};`), at most
/// [`IMPORT_STATEMENT_LINES`] lines.
fn import_statements(src: &[u8], lines: impl Iterator<Item = usize>) -> Vec<String> {
    let mut wanted: Vec<usize> = lines.collect();
    wanted.sort_unstable();
    wanted.dedup();
    let text = String::from_utf8_lossy(src);
    let all: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut covered = 0;
    for line in wanted {
        let first = line.saturating_sub(1);
        if first < covered || first >= all.len() {
            continue;
        }
        let mut open = 0i32;
        let mut end = first;
        for (at, l) in all.iter().enumerate().skip(first).take(IMPORT_STATEMENT_LINES) {
            end = at;
            open += l
                .chars()
                .map(|c| match c {
                    '(' | '[' | '{' => 1,
                    ')' | ']' | '}' => -1,
                    _ => 0,
                })
                .sum::<i32>();
            if open <= 0 && !l.trim_end().ends_with('\\') {
                break;
            }
        }
        out.push(all[first..=end].iter().map(|l| l.trim_end()).collect::<Vec<_>>().join("\n"));
        covered = end + 1;
    }
    out
}

#[cfg(test)]
mod import_tests {
    use super::import_statements;

    #[test]
    fn import_statements_are_the_files_own_lines() {
        let rust = "use std::path::Path;\nuse a::{\n    b,\n    c,\n};\n\nfn main() {}\n";
        assert_eq!(import_statements(rust.as_bytes(), [1, 2].into_iter()), ["use std::path::Path;", "use a::{\n    b,\n    c,\n};"]);
        let python = "import os, sys\nfrom x import (\n    a,\n    b)\n";
        assert_eq!(import_statements(python.as_bytes(), [1, 1, 2].into_iter()), ["import os, sys", "from x import (\n    a,\n    b)"]);
        let go = "import (\n\t\"fmt\"\n\t\"os\"\n)\n";
        assert_eq!(import_statements(go.as_bytes(), [2, 3].into_iter()), ["\t\"fmt\"", "\t\"os\""]);
    }
}
