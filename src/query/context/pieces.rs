//! Context candidates for the assembler: the answer's code, the definitions
//! it relies on, each file's import header labelled with its outline and
//! import neighbours, and the project's patterns.

use std::collections::{HashMap, HashSet};

use petgraph::Direction;

use crate::analysis::kind::Kind;
use crate::graph::{EdgeKind, Neighbourhood, NodeData, NodeKey};
use crate::query::answer::{Answer, Hit, Result};
use crate::query::retrieve::Texts;

/// Lines `start..=end` (1-based) of a text, clamped to it; `None` when empty.
pub(crate) fn lines_of(text: &str, start: usize, end: usize) -> Option<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let start = start.max(1);
    let end = end.min(lines.len());
    if start > end {
        return None;
    }
    Some((start, end, lines[start - 1..end].join("\n")))
}

/// The header of a file: leading imports, `require`s, docstring and comments.
pub(crate) fn import_header(text: &str) -> Option<usize> {
    let mut last = 0;
    for (i, line) in text.lines().take(120).enumerate() {
        let t = line.trim_start();
        let is_import = t.starts_with("import ")
            || t.starts_with("from ") && t.contains(" import")
            || t.contains("require(")
            || (t.starts_with("export ") && t.contains(" from "))
            || t.starts_with("'use strict'")
            || t.starts_with("\"use strict\"");
        if is_import {
            last = i + 1;
        }
    }
    (last > 0).then_some(last)
}

/// One line about a file for the context's file section: its outline (the
/// top-level definitions with their lines) and its neighbours in the import
/// graph, each list capped so the label stays a line.
fn file_note(nb: &mut Neighbourhood, path: &str) -> crate::graph::Result<String> {
    const OUTLINE: usize = 12;
    const RELATED: usize = 5;
    let Some(file) = nb.node(&NodeKey::File(path.to_string()))? else { return Ok(String::new()) };
    let mut related = |direction: Direction| nb.walk(&[file], &[EdgeKind::Imports], direction, 1);
    let (imports, imported_by) = (related(Direction::Outgoing)?, related(Direction::Incoming)?);
    let graph = nb.graph();
    let capped = |mut items: Vec<String>, cap: usize| -> Option<String> {
        if items.is_empty() {
            return None;
        }
        let more = items.len().saturating_sub(cap);
        items.truncate(cap);
        let mut s = items.join(", ");
        if more > 0 {
            s.push_str(&format!(" (+{more} more)"));
        }
        Some(s)
    };
    let mut defs: Vec<&NodeData> = graph.walk(&[file], &[EdgeKind::Contains], Direction::Outgoing, 1).into_iter().map(|(n, _)| &graph.graph[n]).collect();
    defs.sort_by_key(|d| (d.start_line, d.end_line));
    let outline: Vec<String> = defs
        .iter()
        .filter_map(|d| match &d.key {
            NodeKey::Symbol { qualified_name, .. } => Some(format!("{} {qualified_name} {}-{}", d.kind, d.start_line, d.end_line)),
            _ => None,
        })
        .collect();
    let files_of = |reached: Vec<(petgraph::stable_graph::NodeIndex, usize)>| -> Vec<String> {
        let mut v: Vec<String> = reached
            .into_iter()
            .filter_map(|(n, _)| match &graph.graph[n].key {
                NodeKey::File(p) if p != path => Some(p.clone()),
                _ => None,
            })
            .collect();
        v.sort();
        v.dedup();
        v
    };
    let mut parts = Vec::new();
    if let Some(s) = capped(outline, OUTLINE) {
        parts.push(format!("defines: {s}"));
    }
    if let Some(s) = capped(files_of(imports), RELATED) {
        parts.push(format!("imports: {s}"));
    }
    if let Some(s) = capped(files_of(imported_by), RELATED) {
        parts.push(format!("imported by: {s}"));
    }
    Ok(parts.join(" · "))
}

/// The first lines of a definition, up to the end of its signature.
fn signature_lines(text: &str, start: usize, end: usize) -> Option<(usize, usize, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut stop = start;
    for n in start..=end.min(lines.len()).min(start + 5) {
        stop = n;
        let l = lines[n - 1].trim_end();
        if l.ends_with(':') || l.ends_with('{') || l.ends_with("=>") || l.ends_with(';') || l.contains(") {") {
            break;
        }
    }
    lines_of(text, start, stop)
}

/// Candidates for the context assembler, from an answer: the code of the
/// results; the signatures of what that code calls and of the classes that
/// hold it (definitions before uses); the import header of each file; the
/// project's conventions that match the query. Text is read from the
/// source ([`Texts::file_text`]); a hit whose file cannot be read there
/// stands for itself (its own content).
pub(crate) fn context_pieces(source: &dyn Texts, answer: &Answer) -> Result<Vec<super::Piece>> {
    use super::{Piece, Section};
    let mut files: HashMap<String, Option<String>> = HashMap::new();
    let mut text_of = |path: &str| -> Option<String> { files.entry(path.to_string()).or_insert_with(|| source.file_text(path)).clone() };
    let mut pieces = Vec::new();
    let piece = Piece::of_hit;
    let results: Vec<&Hit> = answer.response.results.iter().filter(|h| h.kind != Kind::Pattern).collect();
    let in_results: HashSet<(String, String)> = results.iter().filter_map(|h| Some((h.path.clone(), h.symbol.clone()?))).collect();

    // Relevant code, best first.
    for h in &results {
        if h.kind == Kind::File {
            continue;
        }
        let range = match text_of(&h.path) {
            Some(text) => lines_of(&text, h.start_line, h.end_line),
            None => own_lines(h),
        };
        if let Some(range) = range.filter(|r| !r.2.trim().is_empty()) {
            pieces.push(piece(Section::Code, h, range, None));
        }
    }

    // Definitions the code relies on: callees and enclosing classes, most referenced first.
    // One view of the graph for the whole context (what a step loads, the next reuses).
    let mut nb = source.graph().transpose()?;
    if let Some(nb) = nb.as_mut() {
        for ix in relied_on(nb, &results)? {
            let node = &nb.graph().graph[ix];
            let NodeKey::Symbol { path, qualified_name } = &node.key else { continue };
            if in_results.contains(&(path.clone(), qualified_name.clone())) {
                continue;
            }
            let Some(text) = text_of(path) else { continue };
            let Some(range) = signature_lines(&text, node.start_line, node.end_line) else { continue };
            let language = crate::analysis::lang::Language::from_path(path);
            let h = Hit {
                tie: 0,
                explain: None,
                name_match: false,
                rank: 0,
                path: path.clone(),
                start_line: node.start_line,
                end_line: node.end_line,
                symbol: Some(qualified_name.clone()),
                kind: node.kind,
                language,
                score: 0.0,
                content: String::new(),
                signals: Default::default(),
                source: Default::default(),
                chunk_id: None,
            };
            pieces.push(piece(Section::Definitions, &h, range, None));
        }
    }

    // Surrounding file context, in result order: the import header of each
    // file, labelled with its outline and the files it is linked to.
    let mut seen_files = HashSet::new();
    for h in &results {
        if !seen_files.insert(h.path.clone()) {
            continue;
        }
        let Some(text) = text_of(&h.path) else { continue };
        if let Some(end) = import_header(&text) {
            if let Some(range) = lines_of(&text, 1, end) {
                let mut fh = (*h).clone();
                fh.kind = Kind::Imports;
                fh.symbol = None;
                let note = match nb.as_mut() {
                    Some(nb) => file_note(nb, &h.path)?,
                    None => String::new(),
                };
                let note = if note.is_empty() { "imports".into() } else { note };
                pieces.push(piece(Section::FileContext, &fh, range, Some(note)));
            }
        }
    }

    // Project conventions that match the query (or the most common ones).
    for (h, note) in source.conventions(&answer.response.query)? {
        let range = match text_of(&h.path) {
            Some(text) => lines_of(&text, h.start_line, h.end_line),
            None => own_lines(&h),
        };
        if let Some(range) = range {
            pieces.push(piece(Section::Patterns, &h, range, Some(note)));
        }
    }
    Ok(pieces)
}

/// A hit's lines from its own content (a file the source cannot read).
fn own_lines(h: &Hit) -> Option<(usize, usize, String)> {
    (!h.content.is_empty()).then(|| (h.start_line, h.start_line + h.content.lines().count().max(1) - 1, h.content.clone()))
}

/// Definitions the top results rely on (what they call or inherit, and
/// their enclosing classes), most referenced first.
fn relied_on(nb: &mut Neighbourhood, results: &[&Hit]) -> crate::graph::Result<Vec<petgraph::stable_graph::NodeIndex>> {
    let mut counts: HashMap<petgraph::stable_graph::NodeIndex, (usize, usize)> = HashMap::new();
    for (rank, h) in results.iter().take(8).enumerate() {
        let Some(sym) = &h.symbol else { continue };
        let Some(ix) = nb.node(&NodeKey::Symbol { path: h.path.clone(), qualified_name: sym.clone() })? else { continue };
        let mut related: Vec<_> = nb.walk(&[ix], &[EdgeKind::Calls, EdgeKind::Inherits], Direction::Outgoing, 1)?.into_iter().map(|(n, _)| n).collect();
        related.extend(nb.walk(&[ix], &[EdgeKind::Contains], Direction::Incoming, 1)?.into_iter().map(|(n, _)| n));
        for n in related {
            let e = counts.entry(n).or_insert((0, rank));
            e.0 += 1;
        }
    }
    let graph = nb.graph();
    let mut defs: Vec<_> = counts.into_iter().collect();
    defs.sort_by(|a, b| b.1 .0.cmp(&a.1 .0).then(a.1 .1.cmp(&b.1 .1)).then_with(|| graph.graph[a.0].key.cmp(&graph.graph[b.0].key)));
    Ok(defs.into_iter().take(24).map(|(ix, _)| ix).collect())
}
