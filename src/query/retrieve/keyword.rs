//! Query the index: keyword (BM25 over chunks, with symbol-name boosts) and
//! symbol (exact, case-insensitive and prefix lookup of definitions).

use std::collections::BTreeSet;
use std::time::Instant;

use tantivy::query::{BooleanQuery, BoostQuery, ConstScoreQuery, Occur, PhraseQuery, Query, RegexQuery, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use crate::analysis::lang::{is_test_code, is_test_path};
use crate::query::answer::{Hit, Response, SearchResult as Result, Signals};
use crate::query::options::{Mode, PathFilter, QueryOptions};
use crate::query::question::about::{role, Role};
use crate::query::question::intent::Intent;
use crate::query::question::literals::{self, Literal};
use crate::query::question::words::is_stopword;
use crate::query::question::{Question, Word};
use crate::stores::keyword::{analyze, get_str, get_u64, KeywordError, KeywordIndex};

/// Runs a query against the keyword index.
pub fn search(index: &KeywordIndex, q: &Question, opts: &QueryOptions) -> Result<Response> {
    let started = Instant::now();
    let paths = PathFilter::new(opts)?;
    let (chunk_reader, symbol_reader) = index.readers()?;
    let chunks = chunk_reader.searcher();
    let results = match opts.mode {
        Mode::Keyword | Mode::Semantic | Mode::Hybrid | Mode::Graph => keyword_search(index, &chunks, q, opts, &paths, true)?,
        Mode::Symbol => symbol_search(index, &symbol_reader.searcher(), &chunks, &q.words, opts, &paths, None)?,
    };
    Ok(Response { query: q.asked.clone(), took_ms: crate::progress::millis(started), results })
}


/// The least score of a symbol hit whose name (or its last segment) equals a
/// query word; prefix and token matches score below it.
pub const SYMBOL_NAME_MATCH: f32 = 30.0;

/// Filters as clauses that match without scoring: what a result must be
/// (language, kind, a path `--path` keeps) and must not be (a path `--exclude` drops).
fn filters(searcher: &Searcher, path_field: Field, lang_field: Field, kind_field: Field, opts: &QueryOptions, rule: &PathFilter) -> Result<Vec<(Occur, Box<dyn Query>)>> {
    let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if let Some(l) = opts.lang {
        out.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(lang_field, l.name()), IndexRecordOption::Basic))));
    }
    if let Some(k) = &opts.kind {
        out.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(kind_field, &k.to_lowercase()), IndexRecordOption::Basic))));
    }
    if !opts.hide.is_empty() {
        let terms: Vec<Term> = opts.hide.iter().map(|p| Term::from_field_text(path_field, p)).collect();
        out.push((Occur::MustNot, Box::new(TermSetQuery::new(terms))));
    }
    if !rule.is_empty() {
        // Expand the globs against the paths in the index.
        let (mut keep, mut drop) = (BTreeSet::new(), BTreeSet::new());
        for seg in searcher.segment_readers() {
            let inverted = seg.inverted_index(path_field).map_err(|e| KeywordError::Tantivy { path: "path".into(), source: e })?;
            let mut stream = inverted.terms().stream().map_err(|e| KeywordError::Io { path: "path".into(), source: e })?;
            while stream.advance() {
                if let Ok(p) = std::str::from_utf8(stream.key()) {
                    if rule.excluded(p) {
                        drop.insert(p.to_string());
                    } else if rule.matches(p) {
                        keep.insert(p.to_string());
                    }
                }
            }
        }
        let terms = |paths: BTreeSet<String>| -> Box<dyn Query> { Box::new(TermSetQuery::new(paths.iter().map(|p| Term::from_field_text(path_field, p)).collect::<Vec<_>>())) };
        if rule.has_include() {
            out.push((Occur::Must, terms(keep)));
        }
        if !drop.is_empty() {
            out.push((Occur::MustNot, terms(drop)));
        }
    }
    Ok(out)
}

fn with_filters(main: Box<dyn Query>, filters: Vec<(Occur, Box<dyn Query>)>) -> Box<dyn Query> {
    if filters.is_empty() {
        return main;
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, main)];
    for (occur, f) in filters {
        clauses.push((occur, Box::new(ConstScoreQuery::new(f, 0.0))));
    }
    Box::new(BooleanQuery::new(clauses))
}

/// How much a chunk kind is worth in a ranking: whole-file chunks are
/// outlines, useful but rarely the answer.
const TEST_WEIGHT: f32 = 0.6;

/// Prose chunks against a document-like query (an issue report): its
/// words are mostly prose too, so docs and changelogs would outrank the code
/// it is about.
const DOCUMENT_PROSE_WEIGHT: f32 = 0.4;

fn is_prose(kind: &str) -> bool {
    matches!(kind, "window" | "section" | "text")
}

/// `(lowercase name, boost)` of the query words that may name a symbol.
fn symbol_name_boosts(q: &Question) -> Vec<(String, f32)> {
    if let Some(signals) = q.analysis.signals.as_ref().filter(|_| q.document) {
        let mut out: Vec<(String, f32)> = Vec::new();
        for id in &signals.identifiers {
            let lc = id.name.to_lowercase();
            let short = lc.rsplit('.').next().unwrap_or(&lc).to_string();
            for name in [lc, short] {
                if !out.iter().any(|(n, _)| *n == name) {
                    out.push((name, 8.0 * id.confidence));
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
        out.push((lc, if w.looks_like_code || single { 8.0 } else { 1.5 }));
    }
    out
}

/// The weight of a document's term that appears only in its code fences
/// (a reproduction, a log, a listing): measured on the SWE-bench dev split,
/// 0.4–0.7 all gain over 1.0 (file Acc@5 0.83 → 0.85, function Acc@5 0.41 → 0.50).
const FENCED_TERM_WEIGHT: f32 = 0.5;

/// The BM25 weight of a chunk that is mostly imports, against a document.
const IMPORT_BLOCK_WEIGHT: f32 = 0.5;

/// Whether most of a chunk's statements import (`import`, `from … import`,
/// `use`, `#include`, `require(…)`).
fn is_import_block(content: &str) -> bool {
    let (mut imports, mut code) = (0usize, 0usize);
    for line in content.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') && !line.starts_with("#include") || line.starts_with("//") || line.starts_with('"') || line.starts_with('\'') {
            continue;
        }
        code += 1;
        let import = ["import ", "from ", "use ", "#include", "require ", "using ", "extern crate "].iter().any(|p| line.starts_with(p))
            || line.contains("require(")
            || line.starts_with(')') || line.starts_with("} from ");
        if import {
            imports += 1;
        }
    }
    code > 0 && imports * 2 > code
}

/// The BM25 weight of a chunk of minified code.
const MINIFIED_WEIGHT: f32 = 0.3;
/// A line longer than this is generated, not written.
const MINIFIED_LINE: usize = 500;

/// Whether a chunk is minified code: few lines, one of them very long.
fn is_minified(content: &str) -> bool {
    content.len() > MINIFIED_LINE && content.lines().count() <= 3 && content.lines().any(|l| l.len() > MINIFIED_LINE)
}

fn kind_weight(kind: &str) -> f32 {
    match kind {
        "file" | "fallback" => 0.5,
        // Prose (Markdown sections, text) answers fewer questions about code.
        "window" | "section" | "text" => 0.8,
        _ => 1.0,
    }
}


/// A literal matching more chunks of code than this says little about where
/// to look (a common phrase); it is left out.
const RARE_LITERAL: usize = 20;
/// Matches of a literal read at most (code or not) before it is called common.
const LITERAL_SCAN: usize = 200;

/// Chunks that hold one of `literals` as written (a phrase on the exact-form
/// field), those with the most literals first, code before tests and prose.
/// Literals matching more than [`RARE_LITERAL`] chunks are left out.
/// `document`: the literals are an issue report's (see [`literals::variants`]).
pub fn literal_matches(index: &KeywordIndex, literals: &[Literal], document: bool, opts: &QueryOptions) -> Result<Vec<Hit>> {
    if literals.is_empty() {
        return Ok(Vec::new());
    }
    let paths = PathFilter::new(opts)?;
    let searcher = index.readers()?.0.searcher();
    literal_hits(index, &searcher, literals, document, opts, &paths)
}

/// Whether code outside tests defines a symbol called `name` (a test named
/// after a value, `def test_no_proxy`, is not its definition).
/// With the work tree laid over the index, both sides are asked (less the
/// paths the other side replaces).
fn names_a_symbol(index: &KeywordIndex, searcher: &Searcher, name: &str) -> Result<bool> {
    let query = TermQuery::new(Term::from_field_text(index.cf.symbol_names, &name.to_lowercase()), IndexRecordOption::Basic);
    let other = index.other_side();
    let sides = std::iter::once((searcher, None)).chain(other.as_ref().map(|(s, hidden)| (s, Some(hidden))));
    for (searcher, hidden) in sides {
        for (_, addr) in index.top_docs(searcher, &query, LITERAL_SCAN, "key")? {
            let path = get_str(&index.doc(searcher, addr)?, index.cf.path).unwrap_or_default();
            if !is_test_path(&path) && hidden.is_none_or(|h| !h.contains(&path)) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

/// The roles of the chunks on the other side of the work tree laid over the
/// index that hold `terms` as a phrase (its replaced paths left out): a
/// literal's form and rarity are decided on the whole tree.
fn other_side_roles(index: &KeywordIndex, phrase: &dyn Fn() -> Box<dyn Query>, opts: &QueryOptions, paths: &PathFilter) -> Result<Vec<Role>> {
    let Some((searcher, hidden)) = index.other_side() else { return Ok(Vec::new()) };
    let cf = index.cf;
    let mut o = opts.clone();
    o.hide = hidden;
    let query = with_filters(phrase(), filters(&searcher, cf.path, cf.language, cf.kind, &o, paths)?);
    let mut roles = Vec::new();
    for (_, addr) in index.top_docs(&searcher, query.as_ref(), LITERAL_SCAN + 1, "key")? {
        roles.push(role(&get_str(&index.doc(&searcher, addr)?, cf.path).unwrap_or_default()));
    }
    Ok(roles)
}

fn literal_hits(
    index: &KeywordIndex,
    searcher: &Searcher,
    literals: &[Literal],
    document: bool,
    opts: &QueryOptions,
    paths: &PathFilter,
) -> Result<Vec<Hit>> {
    let cf = index.cf;
    // (literals matched, weight, order of first match, hit)
    let mut found: Vec<(usize, f32, usize, Hit)> = Vec::new();
    for literal in literals {
        // The first form of the literal that some chunks hold; every form of
        // an option name.
        let every_form = literal.source == literals::Source::OptionName || literal.is_a_string_value();
        // A token that names a symbol is the symbol lookup's to answer: a
        // registry or an `__all__` list quoting the name is not its definition.
        if literal.is_a_string_value() && names_a_symbol(index, searcher, &literal.text)? {
            continue;
        }
        let mut top: Vec<(f32, u64, tantivy::DocAddress)> = Vec::new();
        let mut elsewhere: Vec<Role> = Vec::new();
        for form in literals::variants(literal, document) {
            let terms: Vec<Term> = crate::stores::keyword::exact_analyze(&form).iter().map(|t| Term::from_field_text(cf.exact, t)).collect();
            let phrase = || -> Box<dyn Query> {
                match terms.len() {
                    1 => Box::new(TermQuery::new(terms[0].clone(), IndexRecordOption::Basic)),
                    _ => Box::new(PhraseQuery::new(terms.clone())),
                }
            };
            if terms.is_empty() {
                continue;
            }
            let query = with_filters(phrase(), filters(searcher, cf.path, cf.language, cf.kind, opts, paths)?);
            let found_here = index.top_docs_keyed(searcher, query.as_ref(), LITERAL_SCAN + 1, "key")?;
            for (score, key, addr) in found_here {
                if !top.iter().any(|(_, _, a)| *a == addr) {
                    top.push((score, key, addr));
                }
            }
            elsewhere.extend(other_side_roles(index, &phrase, opts, paths)?);
            if (!top.is_empty() || !elsewhere.is_empty()) && !every_form {
                break;
            }
        }
        if top.len() + elsewhere.len() > LITERAL_SCAN {
            continue;
        }
        let mut matched = Vec::with_capacity(top.len());
        for (score, key, addr) in top {
            let doc = index.doc(searcher, addr)?;
            let role = role(&get_str(&doc, cf.path).unwrap_or_default());
            matched.push((doc, role, phrase_tie(score, key)));
        }
        // Rarity is counted in the project's code: translation catalogs,
        // docs and tests repeat a message many times.
        let is_code = |r: &Role| *r == Role::Code;
        let code = matched.iter().filter(|(_, r, _)| is_code(r)).count() + elsewhere.iter().filter(|r| is_code(r)).count();
        if code > RARE_LITERAL || (code == 0 && matched.len() + elsewhere.len() > RARE_LITERAL) {
            continue;
        }
        for (doc, role, tie) in matched {
            // A question's plain words found verbatim in a changelog or the
            // docs say nothing about where the code is; a quoted literal
            // was meant as written, wherever it is.
            if literal.source == literals::Source::WholeQuery && role != Role::Code {
                continue;
            }
            // A file's outline repeats lines of its code chunks.
            if get_str(&doc, cf.kind).as_deref() == Some("file") {
                continue;
            }
            let id = get_str(&doc, cf.id).unwrap_or_default();
            match found.iter_mut().find(|f| f.3.chunk_id.as_deref() == Some(id.as_str())) {
                Some(f) => f.0 += 1,
                None => {
                    let mut h = hit_of_chunk(index, &doc, &id);
                    h.tie = tie;
                    let weight = kind_weight(&h.kind) * if role == Role::Code { 1.0 } else { TEST_WEIGHT };
                    let order = found.len();
                    found.push((1, weight, order, h));
                }
            }
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    Ok(found
        .into_iter()
        .take(opts.limit)
        .enumerate()
        .map(|(i, (n, w, _, mut h))| {
            h.rank = i + 1;
            h.score = n as f32 * w;
            h
        })
        .collect())
}

/// A literal match's place among equal scores: its phrase score, then its key.
fn phrase_tie(score: f32, key: u64) -> u64 {
    (u64::from(score.max(0.0).to_bits()) << 32) | (key >> 32)
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
        clauses.push(term_q(cf.symbol_text, 2.0));
        clauses.push(term_q(cf.path_text, 0.5));
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
        let kind = get_str(&doc, cf.kind).unwrap_or_default();
        let id = get_str(&doc, cf.id).unwrap_or_default();
        let path = get_str(&doc, cf.path).unwrap_or_default();
        let symbol = get_str(&doc, cf.symbol);
        let kind_w = if document && is_prose(&kind) { DOCUMENT_PROSE_WEIGHT } else { kind_weight(&kind) };
        let content = get_str(&doc, cf.content).unwrap_or_default();
        // An issue names modules its imports name too: a file's import block
        // matches it without being where anything happens.
        let import_w = if document && is_import_block(&content) { IMPORT_BLOCK_WEIGHT } else { 1.0 };
        // A minified bundle's line holds every word of any question.
        let import_w = if is_minified(&content) { MINIFIED_WEIGHT * import_w } else { import_w };
        let weight = import_w * kind_w * if is_test_code(&path, symbol.as_deref()) { test_weight } else { 1.0 };
        let hit = Hit {
            tie: crate::stores::keyword::key_of(&id),
            features: None,
            rank: 0,
            path,
            start_line: get_u64(&doc, cf.start_line) as usize,
            end_line: get_u64(&doc, cf.end_line) as usize,
            symbol,
            kind,
            language: get_str(&doc, cf.language).unwrap_or_default(),
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

fn keyword_search(index: &KeywordIndex, searcher: &Searcher, q: &Question, opts: &QueryOptions, paths: &PathFilter, literals_first: bool) -> Result<Vec<Hit>> {
    let bm25 = bm25_ranked(bm25_window_in(index, searcher, q, opts, paths)?, opts.limit);
    // A document's literals are weaker evidence: the hybrid fusion weighs them.
    let literals = if q.document || !literals_first { Vec::new() } else { literal_hits(index, searcher, &q.literals, false, opts, paths)? };
    Ok(keyword_list(bm25, literals, opts.limit))
}

/// Symbol lookup keeping only name matches (score ≥ [`SYMBOL_NAME_MATCH`]):
/// the symbol list of hybrid retrieval. Looser matches are never read from
/// the document store, and the hits' `content` is left empty when they have a
/// chunk, for [`fill_content`] to read once the fusion has picked its results
/// (reading every candidate's chunk is most of a lookup's cost on a big index).
pub fn symbol_name_matches(index: &KeywordIndex, words: &[Word], opts: &QueryOptions) -> Result<Vec<Hit>> {
    let paths = PathFilter::new(opts)?;
    let (chunk_reader, symbol_reader) = index.readers()?;
    symbol_search(index, &symbol_reader.searcher(), &chunk_reader.searcher(), words, opts, &paths, Some(SYMBOL_NAME_MATCH))
}

/// Reads the content of hits that [`symbol_name_matches`] left empty.
pub fn fill_content(index: &KeywordIndex, hits: &mut [Hit]) -> Result<()> {
    let mut chunks = None;
    for h in hits.iter_mut().filter(|h| h.content.is_empty()) {
        let Some(id) = h.chunk_id.clone() else { continue };
        if chunks.is_none() {
            chunks = Some(index.readers()?.0.searcher());
        }
        let Some(searcher) = chunks.as_ref() else { continue };
        if let Some(c) = chunk_content(index, searcher, &id, h.start_line, h.end_line)? {
            h.content = c;
        }
    }
    Ok(())
}

fn symbol_search(
    index: &KeywordIndex,
    searcher: &Searcher,
    chunks: &Searcher,
    words: &[Word],
    opts: &QueryOptions,
    paths: &PathFilter,
    min_score: Option<f32>,
) -> Result<Vec<Hit>> {
    let sf = index.sf;
    let code_words: Vec<&String> = words.iter().filter(|w| w.looks_like_code).map(|w| &w.text).collect();
    // Prefer words that look like code; otherwise every meaningful word.
    let candidates: Vec<String> = if code_words.is_empty() {
        words.iter().map(|w| w.text.clone()).filter(|w| !is_stopword(&w.to_lowercase())).collect()
    } else {
        code_words.into_iter().cloned().collect()
    };
    if candidates.is_empty() {
        return Ok(Vec::new());
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    let konst = |q: Box<dyn Query>, score: f32| -> (Occur, Box<dyn Query>) { (Occur::Should, Box::new(ConstScoreQuery::new(q, score))) };
    for c in &candidates {
        let lc = c.to_lowercase();
        let term = |f: Field, v: &str| Box::new(TermQuery::new(Term::from_field_text(f, v), IndexRecordOption::Basic)) as Box<dyn Query>;
        clauses.push(konst(term(sf.qualified, c), 20.0));
        clauses.push(konst(term(sf.qualified_lc, &lc), 100.0));
        clauses.push(konst(term(sf.name_lc, &lc), 60.0));
        if let Some(last) = lc.rsplit('.').next().filter(|l| *l != lc) {
            clauses.push(konst(term(sf.name_lc, last), 30.0));
        }
        if lc.chars().count() >= 3 {
            if let Ok(q) = RegexQuery::from_pattern(&format!("{}.*", regex_escape(&lc)), sf.name_lc) {
                clauses.push(konst(Box::new(q), 20.0));
            }
        }
        for t in analyze(c) {
            let q = TermQuery::new(Term::from_field_text(sf.name_text, &t), IndexRecordOption::WithFreqs);
            clauses.push((Occur::Should, Box::new(q)));
        }
    }
    let main: Box<dyn Query> = Box::new(BooleanQuery::new(clauses));
    let query = with_filters(main, filters(searcher, sf.path, sf.language, sf.kind, opts, paths)?);
    let top = index.top_docs_keyed(searcher, query.as_ref(), opts.limit, "key")?;
    let mut hits = Vec::with_capacity(top.len());
    for (i, (score, tie, addr)) in top.into_iter().enumerate() {
        if min_score.is_some_and(|m| score < m) {
            break; // sorted by score: the rest are lower
        }
        let doc = index.doc(searcher, addr)?;
        let start_line = get_u64(&doc, sf.start_line) as usize;
        let end_line = get_u64(&doc, sf.end_line) as usize;
        let chunk_id = get_str(&doc, sf.chunk_id);
        let content = match &chunk_id {
            // Name matches only (hybrid): the content is read for the results kept.
            Some(_) if min_score.is_some() => Some(String::new()),
            Some(id) => chunk_content(index, chunks, id, start_line, end_line)?,
            None => None,
        };
        let content = content.unwrap_or_else(|| {
            let sig = get_str(&doc, sf.signature).unwrap_or_default();
            match get_str(&doc, sf.doc) {
                Some(d) => format!("{sig}\n{d}"),
                None => sig,
            }
        });
        hits.push(Hit {
            tie,
            features: None,
            rank: i + 1,
            path: get_str(&doc, sf.path).unwrap_or_default(),
            start_line,
            end_line,
            symbol: get_str(&doc, sf.qualified),
            kind: get_str(&doc, sf.kind).unwrap_or_default(),
            language: get_str(&doc, sf.language).unwrap_or_default(),
            score,
            content,
            signals: Signals { symbol: Some(i + 1), ..Signals::default() },
            source: Default::default(),
            chunk_id,
        });
    }
    Ok(hits)
}

/// The text of the chunk holding a symbol, cut to the symbol's lines when the
/// chunk is verbatim source that spans more than the symbol.
fn chunk_content(index: &KeywordIndex, chunks: &Searcher, id: &str, start: usize, end: usize) -> Result<Option<String>> {
    let cf = index.cf;
    let Some(doc) = index.chunk_doc(chunks, id)? else { return Ok(None) };
    let content = get_str(&doc, cf.content).unwrap_or_default();
    let kind = get_str(&doc, cf.kind).unwrap_or_default();
    let c_start = get_u64(&doc, cf.start_line) as usize;
    let c_end = get_u64(&doc, cf.end_line) as usize;
    if kind == "code" && (c_start < start || c_end > end) && start >= c_start {
        let lines: Vec<&str> = content.lines().collect();
        let from = start - c_start;
        let to = (end - c_start + 1).min(lines.len());
        if from < to {
            return Ok(Some(lines[from..to].join("\n")));
        }
    }
    Ok(Some(content))
}

/// The definition `qualified` in `path`, as a hit; its `content` (its lines,
/// cut from its chunk) is left for [`fill_content`].
pub fn symbol_hit(index: &KeywordIndex, path: &str, qualified: &str) -> Result<Option<Hit>> {
    let (_, symbol_reader) = index.readers()?;
    let symbols = symbol_reader.searcher();
    let sf = index.sf;
    let q = BooleanQuery::new(vec![
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(sf.qualified, qualified), IndexRecordOption::Basic)) as Box<dyn Query>),
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(sf.path, path), IndexRecordOption::Basic))),
    ]);
    let top = index.top_docs(&symbols, &q, 1, "key")?;
    let Some((_, addr)) = top.first() else { return Ok(None) };
    let doc = index.doc(&symbols, *addr)?;
    let start_line = get_u64(&doc, sf.start_line) as usize;
    let end_line = get_u64(&doc, sf.end_line) as usize;
    let chunk_id = get_str(&doc, sf.chunk_id);
    // The chunk's text is read by `fill_content` for the hits that are kept.
    let content = if chunk_id.is_some() { String::new() } else { get_str(&doc, sf.signature).unwrap_or_default() };
    Ok(Some(Hit {
        tie: 0,
        features: None,
        rank: 0,
        path: path.to_string(),
        start_line,
        end_line,
        symbol: Some(qualified.to_string()),
        kind: get_str(&doc, sf.kind).unwrap_or_default(),
        language: get_str(&doc, sf.language).unwrap_or_default(),
        score: 0.0,
        content,
        signals: Signals::default(),
        source: Default::default(),
        chunk_id,
    }))
}

/// A chunk by id, with the id of its parent chunk (the enclosing class or function).
pub fn chunk_hit(index: &KeywordIndex, id: &str) -> Result<Option<(Hit, Option<String>)>> {
    let (chunk_reader, _) = index.readers()?;
    let chunks = chunk_reader.searcher();
    let cf = index.cf;
    let Some(doc) = index.chunk_doc(&chunks, id)? else { return Ok(None) };
    Ok(Some((hit_of_chunk(index, &doc, id), get_str(&doc, cf.parent))))
}

/// The outline chunk (imports and top-level definitions) of a file.
pub fn file_hit(index: &KeywordIndex, path: &str) -> Result<Option<Hit>> {
    let (chunk_reader, _) = index.readers()?;
    let chunks = chunk_reader.searcher();
    let cf = index.cf;
    let q = BooleanQuery::new(vec![
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(cf.path, path), IndexRecordOption::Basic)) as Box<dyn Query>),
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(cf.kind, "file"), IndexRecordOption::Basic))),
    ]);
    let top = index.top_docs(&chunks, &q, 1, "key")?;
    let Some((_, addr)) = top.first() else { return Ok(None) };
    let doc = index.doc(&chunks, *addr)?;
    let id = get_str(&doc, cf.id).unwrap_or_default();
    Ok(Some(hit_of_chunk(index, &doc, &id)))
}

fn hit_of_chunk(index: &KeywordIndex, doc: &tantivy::TantivyDocument, id: &str) -> Hit {
    let cf = index.cf;
    Hit {
        tie: 0,
        features: None,
        rank: 0,
        path: get_str(doc, cf.path).unwrap_or_default(),
        start_line: get_u64(doc, cf.start_line) as usize,
        end_line: get_u64(doc, cf.end_line) as usize,
        symbol: get_str(doc, cf.symbol),
        kind: get_str(doc, cf.kind).unwrap_or_default(),
        language: get_str(doc, cf.language).unwrap_or_default(),
        score: 0.0,
        content: get_str(doc, cf.content).unwrap_or_default(),
        signals: Signals::default(),
        source: Default::default(),
        chunk_id: Some(id.to_string()),
    }
}

fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~\"@<>".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
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
