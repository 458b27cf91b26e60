//! Tests that talk about what the change talks about: the identifiers of
//! the changed lines, and the changed definitions' names, as one BM25 query
//! over the index's chunks (the query's own keyword retriever); each test
//! file ranked by its best chunk. The value of the k-th file is `1 / k`.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::tests_to_run::is_test_file;
use super::weights::{LEXICAL_TERMS, LEXICAL_WINDOW};
use crate::query::options::{Mode, QueryOptions};
use crate::query::question::Question;
use crate::stores::keyword::KeywordIndex;

/// The query's text: the identifiers of `lines` (three characters or
/// more), each once, the rarer-looking (longer) first, at most [`LEXICAL_TERMS`].
pub(crate) fn query_text(names: &[&str], lines: &[String]) -> String {
    let mut seen: HashSet<String> = HashSet::new();
    let mut words: Vec<String> = Vec::new();
    let idents = lines.iter().flat_map(|l| l.split(|c: char| !(c.is_alphanumeric() || c == '_')).map(str::to_string).collect::<Vec<_>>());
    for w in names.iter().map(|n| n.to_string()).chain(idents) {
        if w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()) && seen.insert(w.clone()) {
            words.push(w);
        }
    }
    let (named, rest) = words.split_at(names.len().min(words.len()));
    let mut rest = rest.to_vec();
    rest.sort_by_key(|w| std::cmp::Reverse(w.len()));
    named.iter().cloned().chain(rest).take(LEXICAL_TERMS).collect::<Vec<_>>().join(" ")
}

/// How a test file matches the change's words.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LexicalMatch {
    /// Its place among the test files (1: the best).
    pub rank: usize,
    /// Its best chunk's BM25 score.
    pub score: f32,
    /// The best score of the changed code's own chunks (of the window's
    /// first chunk where none is in it): what a chunk that says all the
    /// change says scores.
    pub reference: f32,
}

impl LexicalMatch {
    /// The signal's value: `1 / rank`.
    pub fn value(&self) -> f32 {
        1.0 / self.rank as f32
    }
}

/// Test files by the best BM25 score of their chunks for `text`, beside
/// what the chunks of `changed_paths` score.
pub(crate) fn tests_like(index_dir: &Path, text: &str, changed_paths: &[String]) -> Result<BTreeMap<String, LexicalMatch>, String> {
    let mut out = BTreeMap::new();
    if text.trim().is_empty() {
        return Ok(out);
    }
    let index = KeywordIndex::open(&index_dir.join("keyword")).map_err(|e| e.to_string())?;
    let window = crate::query::retrieve::bm25::bm25_window(&index, &Question::new(text), &QueryOptions::new(Mode::Keyword, LEXICAL_WINDOW))
        .map_err(|e| e.to_string())?;
    let top = window.iter().map(|c| c.raw()).fold(0.0f32, f32::max);
    let own = window.iter().filter(|c| changed_paths.contains(&c.hit().path)).map(|c| c.raw()).fold(0.0f32, f32::max);
    let reference = if own > 0.0 { own } else { top };
    let mut best: Vec<(f32, String)> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut ranked: Vec<(f32, String)> = window.iter().filter(|c| is_test_file(&c.hit().path)).map(|c| (c.raw(), c.hit().path.clone())).collect();
    ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    for (score, path) in ranked {
        if seen.insert(path.clone()) {
            best.push((score, path));
        }
    }
    for (k, (score, path)) in best.into_iter().enumerate() {
        out.insert(path, LexicalMatch { rank: k + 1, score, reference });
    }
    Ok(out)
}
