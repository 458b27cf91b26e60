//! A review context of an impact: the changed definitions as the change
//! leaves them (a deleted one as it was), the code that depends on them,
//! then the tests that reach them, best first — through the query's own
//! assembler, so the budget (cl100k_base) is never exceeded and every
//! piece is cited as `path:start-end`.

use super::side::{Side, Sources};
use super::Impact;
use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::query::context::{assemble, Context, ContextOptions, Piece, Section};

pub(crate) fn context(impact: &Impact, old: &Side, new: &Side, src: &Sources, budget: usize) -> Context {
    let mut pieces = Vec::new();
    for c in &impact.changed {
        let side = if c.gone() { old } else { new };
        let note = match &c.previous {
            Some(p) => format!("changed: renamed from {p}"),
            None => format!("changed: {}", serde_json::to_value(c.change).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()),
        };
        pieces.extend(piece(Section::Definitions, side, src, (&c.path, c.symbol.as_deref(), c.kind), (c.start_line, c.end_line), note));
    }
    for r in &impact.impacted {
        let at = r.evidence.as_ref().map(|e| format!(" at line {}", e.line)).unwrap_or_default();
        let note = format!(
            "{} {}{at} (depth {})",
            serde_json::to_value(r.relation).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
            r.reaches,
            r.depth
        );
        pieces.extend(piece(Section::Code, new, src, (&r.path, r.symbol.as_deref(), r.kind), (r.start_line, r.end_line), note));
    }
    for t in &impact.tests {
        let Some(symbol) = &t.symbol else { continue };
        let Some(span) =
            new.chunks(&t.path, src).and_then(|c| c.symbols.iter().find(|s| &s.qualified_name == symbol).map(|s| (s.span.start_line, s.span.end_line)))
        else {
            continue;
        };
        pieces.extend(piece(Section::FileContext, new, src, (&t.path, Some(symbol), Kind::Function), span, format!("test: {}", t.why.join("; "))));
    }
    assemble(&format!("impact of the {}", impact.target), pieces, &ContextOptions { budget })
}

fn piece(
    section: Section,
    side: &Side,
    src: &Sources,
    (path, symbol, kind): (&str, Option<&str>, Kind),
    (start, end): (usize, usize),
    note: String,
) -> Option<Piece> {
    let text = side.text(path, src)?;
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = (start.max(1), end.min(lines.len()));
    if start > end {
        return None;
    }
    Some(Piece {
        section,
        path: path.to_string(),
        start_line: start,
        end_line: end,
        symbol: symbol.map(str::to_string),
        kind,
        language: Language::from_path(path),
        content: lines[start - 1..end].join("\n"),
        note: Some(note),
    })
}
