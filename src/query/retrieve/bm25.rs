//! The BM25 retriever: the question's terms over the chunks, with symbol-name
//! boosts, a document's terms weighed, imports and minified code weighed down.

use crate::query::base::parameters::{
    CODE_NAME_BOOST, DOCUMENT_PROSE_WEIGHT, FENCED_TERM_WEIGHT, IMPORT_BLOCK_WEIGHT, MINIFIED_LINE, MINIFIED_WEIGHT, PATH_TEXT_BOOST, SYMBOL_TEXT_BOOST,
    TEST_WEIGHT, WORD_NAME_BOOST,
};
use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use super::keyword::{filters, is_prose, kind_weight, with_filters};
use super::literals::literal_hits;
use crate::analysis::role::Role;
use crate::query::answer::{Hit, SearchResult as Result, Signals};
use crate::query::options::{PathFilter, QueryOptions};
use crate::query::question::intent::Intent;
use crate::query::question::words::is_stopword;
use crate::query::question::Question;
use crate::stores::keyword::{analyze, get_kind, get_language, get_str, get_u64, KeywordIndex};

/// `(lowercase name, boost)` of the query words that may name a symbol.
fn symbol_name_boosts(q: &Question) -> Vec<(String, f32)> {
    if let Some(signals) = q.analysis.signals.as_ref().filter(|_| q.document) {
        let mut out: Vec<(String, f32)> = Vec::new();
        for id in &signals.identifiers {
            let lc = id.name.to_lowercase();
            let short = crate::analysis::name::last_dotted(&lc).to_string();
            for name in [lc, short] {
                if !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, CODE_NAME_BOOST * id.confidence));
                }
            }
        }
        return out;
    }
    // A concept question is in words (it names no code): a word that is
    // also a symbol's whole name (`retry`, `handle`) says nothing of which
    // (dev kit and the Rust/Go corpora, hybrid nDCG@10 without the boost:
    // concept 0.656 -> 0.660, multi-part 0.631 -> 0.632).
    if q.analysis.intent == Intent::Concept {
        return Vec::new();
    }
    let single = q.words.len() == 1;
    let mut out = Vec::new();
    for w in &q.words {
        let lc = w.text.to_lowercase();
        if is_stopword(&lc) || (!w.looks_like_code && !single && lc.len() < 4) {
            continue;
        }
        out.push((lc, if w.looks_like_code || single { CODE_NAME_BOOST } else { WORD_NAME_BOOST }));
    }
    out
}

/// Whether most of a chunk's statements import (`import`, `from … import`,
/// `use`, `#include`, `require(…)`).
fn is_import_block(content: &str) -> bool {
    let (mut imports, mut code) = (0usize, 0usize);
    for line in content.lines().map(str::trim) {
        if line.is_empty()
            || line.starts_with('#') && !line.starts_with("#include")
            || line.starts_with("//")
            || line.starts_with('"')
            || line.starts_with('\'')
        {
            continue;
        }
        code += 1;
        let import = ["import ", "from ", "use ", "#include", "require ", "using ", "extern crate "].iter().any(|p| line.starts_with(p))
            || line.contains("require(")
            || line.starts_with(')')
            || line.starts_with("} from ");
        if import {
            imports += 1;
        }
    }
    code > 0 && imports * 2 > code
}

/// Whether a chunk is minified code: few lines, one of them very long.
fn is_minified(content: &str) -> bool {
    content.len() > MINIFIED_LINE && content.lines().count() <= 3 && content.lines().any(|l| l.len() > MINIFIED_LINE)
}

/// The query's terms as the index holds them, each with its weight: a
/// document's words outside its prose (pasted code, logs) count less.
fn weighted_terms(q: &Question) -> Vec<(String, f32)> {
    let mut terms: Vec<String> = Vec::new();
    for w in q.text.split_whitespace() {
        let lw = w.to_lowercase();
        // `__all__` or `_all` is a name, not the English word.
        if is_stopword(lw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))) {
            continue;
        }
        for t in analyze(w) {
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
    }
    let prose_terms: Option<std::collections::HashSet<String>> = q.prose.as_ref().map(|p| p.split_whitespace().flat_map(analyze).collect());
    terms
        .into_iter()
        .map(|t| {
            let w = match &prose_terms {
                Some(prose) if !prose.contains(&t) => FENCED_TERM_WEIGHT,
                _ => 1.0,
            };
            (t, w)
        })
        .collect()
}

/// One chunk of BM25's window: its raw score, which orders the window and
/// is comparable across the two sides of a query over the work tree (both
/// score with the statistics of the tree as a whole), and the weight the
/// list re-ranks it by.
pub struct Bm25Candidate {
    raw: f32,
    weight: f32,
    hit: Hit,
}

impl Bm25Candidate {
    /// The raw BM25 score, before any weight.
    pub fn raw(&self) -> f32 {
        self.raw
    }

    pub fn hit(&self) -> &Hit {
        &self.hit
    }

    pub fn hit_mut(&mut self) -> &mut Hit {
        &mut self.hit
    }
}

/// How many chunks, by raw BM25, a list of `limit` re-weights and cuts again.
fn bm25_window_size(limit: usize) -> usize {
    limit * 3 + 20
}

/// BM25's window on one index: the best raw scores, each with its weight;
/// [`bm25_ranked`] turns the windows of one or more sides into a list.
pub fn bm25_window(index: &KeywordIndex, q: &Question, opts: &QueryOptions) -> Result<Vec<Bm25Candidate>> {
    let paths = PathFilter::new(opts)?;
    let searcher = index.readers()?.0.searcher();
    bm25_window_in(index, &searcher, q, opts, &paths)
}

fn bm25_window_in(index: &KeywordIndex, searcher: &Searcher, q: &Question, opts: &QueryOptions, paths: &PathFilter) -> Result<Vec<Bm25Candidate>> {
    let cf = index.cf;
    let terms = weighted_terms(q);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for (t, tw) in &terms {
        let term_q = |field: Field, boost: f32| -> (Occur, Box<dyn Query>) {
            let q = TermQuery::new(Term::from_field_text(field, t), IndexRecordOption::WithFreqs);
            (Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost * tw)))
        };
        clauses.push(term_q(cf.content, 1.0));
        clauses.push(term_q(cf.symbol_text, SYMBOL_TEXT_BOOST));
        clauses.push(term_q(cf.path_text, PATH_TEXT_BOOST));
    }
    // A word naming a symbol exactly is strong evidence; in a document,
    // only the names its signals are sure of (a pasted example names much else).
    let document = q.document;
    for (name, boost) in symbol_name_boosts(q) {
        let q = TermQuery::new(Term::from_field_text(cf.symbol_names, &name), IndexRecordOption::Basic);
        clauses.push((Occur::Should, Box::new(ConstScoreQuery::new(Box::new(q), boost))));
    }
    let main: Box<dyn Query> = Box::new(BooleanQuery::new(clauses));
    let query = with_filters(main, filters(searcher, cf.path, cf.language, cf.kind, opts, paths)?);
    let top = index.top_docs(searcher, query.as_ref(), bm25_window_size(opts.limit), "key")?;
    // An issue report says "test" of the failing test it shows.
    let test_weight = if q.about_tests() { 1.0 } else { TEST_WEIGHT };
    let mut window = Vec::with_capacity(top.len());
    for (raw, addr) in top {
        let doc = index.doc(searcher, addr)?;
        let kind = get_kind(&doc, cf.kind);
        let id = get_str(&doc, cf.id).unwrap_or_default();
        let path = get_str(&doc, cf.path).unwrap_or_default();
        let symbol = get_str(&doc, cf.symbol);
        let kind_w = if document && is_prose(kind) { DOCUMENT_PROSE_WEIGHT } else { kind_weight(kind) };
        let content = get_str(&doc, cf.content).unwrap_or_default();
        // An issue names modules its imports name too: a file's import block
        // matches it without being where anything happens.
        let import_w = if document && is_import_block(&content) { IMPORT_BLOCK_WEIGHT } else { 1.0 };
        // A minified bundle's line holds every word of any question.
        let import_w = if is_minified(&content) { MINIFIED_WEIGHT * import_w } else { import_w };
        let weight = import_w * kind_w * if Role::of_code(&path, symbol.as_deref()).is_test_side() { test_weight } else { 1.0 };
        let hit = Hit {
            tie: crate::stores::keyword::key_of(&id),
            explain: None,
            name_match: false,
            rank: 0,
            path,
            start_line: get_u64(&doc, cf.start_line) as usize,
            end_line: get_u64(&doc, cf.end_line) as usize,
            symbol,
            kind,
            language: get_language(&doc, cf.language),
            score: 0.0,
            content,
            signals: Signals::default(),
            source: Default::default(),
            chunk_id: Some(id),
        };
        window.push(Bm25Candidate { raw, weight, hit });
    }
    Ok(window)
}

/// The BM25 list of the windows of one or more sides (a side's alone, or
/// the index's and the work tree's): the best window of them all by raw
/// score, as one index would have taken it, re-weighted; best first, not cut
/// to a limit. Each hit's `score` is its weighted score.
pub fn bm25_ranked(mut candidates: Vec<Bm25Candidate>, limit: usize) -> Vec<Hit> {
    candidates.sort_by(|a, b| b.raw.total_cmp(&a.raw).then(b.hit.tie.cmp(&a.hit.tie)));
    candidates.truncate(bm25_window_size(limit));
    let mut hits: Vec<Hit> = candidates
        .into_iter()
        .map(|c| {
            let mut h = c.hit;
            h.score = c.raw * c.weight;
            h
        })
        .collect();
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(b.tie.cmp(&a.tie)));
    hits
}

/// Keyword mode's list: chunks holding a literal of the question as written
/// first, scored above the best BM25 hit (1 without one) and marked as exact
/// matches; then the BM25 list ([`bm25_ranked`]) less those; `limit` of them.
pub fn keyword_list(mut bm25: Vec<Hit>, literals: Vec<Hit>, limit: usize) -> Vec<Hit> {
    if !literals.is_empty() {
        bm25.retain(|h| !literals.iter().any(|l| l.chunk_id == h.chunk_id));
        let top = bm25.first().map_or(1.0, |h| h.score);
        let mut first: Vec<Hit> = literals
            .into_iter()
            .enumerate()
            .map(|(i, mut h)| {
                h.signals.exact = Some(i + 1);
                h.score += top;
                h
            })
            .collect();
        first.append(&mut bm25);
        bm25 = first;
    }
    bm25.truncate(limit);
    for (i, h) in bm25.iter_mut().enumerate() {
        h.rank = i + 1;
        h.signals.bm25 = Some(i + 1);
    }
    bm25
}

pub(super) fn keyword_search(
    index: &KeywordIndex,
    searcher: &Searcher,
    q: &Question,
    opts: &QueryOptions,
    paths: &PathFilter,
    literals_first: bool,
) -> Result<Vec<Hit>> {
    let bm25 = bm25_ranked(bm25_window_in(index, searcher, q, opts, paths)?, opts.limit);
    // A document's literals are weaker evidence: the hybrid fusion weighs them.
    let literals = if q.document || !literals_first { Vec::new() } else { literal_hits(index, searcher, &q.literals, false, opts, paths)? };
    Ok(keyword_list(bm25, literals, opts.limit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_concept_question_boosts_no_names() {
        assert!(symbol_name_boosts(&Question::new("how are redirects followed from start to finish")).is_empty());
        let names: Vec<String> = symbol_name_boosts(&Question::new("redirect retry limit")).into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["redirect", "retry", "limit"]);
    }

    #[test]
    fn minified_code_is_told_from_code() {
        assert!(is_minified(&format!("!function(e){{{}}}", "var a=1;".repeat(100))));
        assert!(!is_minified(&"def f():\n    return 1\n".repeat(40)));
        assert!(!is_minified("x = 1"));
    }

    #[test]
    fn import_blocks_are_told_from_code() {
        assert!(is_import_block("\"\"\"Utilities.\"\"\"\n\nimport os\nfrom typing import (\n    Any,\n)\n\nlogger = getLogger(__name__)\n"));
        assert!(is_import_block("use std::fs;\nuse crate::x::{a, b};\n"));
        assert!(is_import_block("const fs = require('fs');\nimport { a } from './a';\n"));
        assert!(!is_import_block("import os\n\ndef f():\n    x = os.getcwd()\n    return x\n"));
        assert!(!is_import_block(""));
    }
}
