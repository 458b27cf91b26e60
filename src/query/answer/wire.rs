//! The JSON contract of a result (`git rag query --json`, MCP, HTTP): the
//! serializable counterpart of the internal [`Hit`], written field by field
//! so that what the ranking keeps on a hit (its fusion key, its tie order)
//! never leaks into the contract, and a field of the contract is added
//! here, on purpose.

use serde::Serialize;

use super::explain::Explanation;
use super::{Hit, Origin, Signals};
use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;

/// One result as the JSON contract writes it. Lines are 1-based and
/// inclusive; `score` is the mode's own (hybrid: the fused scale).
#[derive(Debug, Serialize)]
pub struct WireHit<'a> {
    pub rank: usize,
    pub path: &'a str,
    pub start_line: usize,
    pub end_line: usize,
    pub symbol: Option<&'a str>,
    pub kind: Kind,
    pub language: Language,
    pub score: f32,
    pub content: &'a str,
    /// Its rank in each retriever's list.
    pub signals: &'a Signals,
    pub source: Origin,
    /// Symbol mode: a definition whose name the question writes.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub name_match: bool,
    /// `--explain`: the score it was ordered by, as named contributions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<&'a Explanation>,
}

impl<'a> From<&'a Hit> for WireHit<'a> {
    fn from(h: &'a Hit) -> WireHit<'a> {
        WireHit {
            rank: h.rank,
            path: &h.path,
            start_line: h.start_line,
            end_line: h.end_line,
            symbol: h.symbol.as_deref(),
            kind: h.kind,
            language: h.language,
            score: h.score,
            content: &h.content,
            signals: &h.signals,
            source: h.source,
            name_match: h.name_match,
            explain: h.explain.as_deref(),
        }
    }
}
