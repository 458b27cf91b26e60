//! The symbol retriever: exact, case-insensitive and prefix lookup of
//! definitions by name.

use crate::query::base::parameters::{NAME_ANY_CASE, NAME_PREFIX, QUALIFIED_ANY_CASE, QUALIFIED_AS_WRITTEN, SYMBOL_NAME_MATCH};
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, RegexQuery, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use super::keyword::{filters, regex_escape, with_filters};
use crate::query::answer::{Hit, SearchResult as Result, Signals};
use crate::query::options::{PathFilter, QueryOptions};
use crate::query::question::words::is_stopword;
use crate::query::question::Word;
use crate::stores::keyword::{analyze, get_kind, get_language, get_str, get_u64, KeywordIndex};

/// Symbol lookup keeping only name matches (score ≥ [`SYMBOL_NAME_MATCH`]):
/// the symbol list of hybrid retrieval. Looser matches are never read from
/// the document store. Every lookup leaves the `content` of hits that have a
/// chunk empty, for [`super::keyword::fill_content`] to read once the results are picked
/// (reading every candidate's chunk is most of a lookup's cost on a big index).
pub fn symbol_name_matches(index: &KeywordIndex, words: &[Word], opts: &QueryOptions) -> Result<Vec<Hit>> {
    let paths = PathFilter::new(opts)?;
    let (_, symbol_reader) = index.readers()?;
    symbol_search(index, &symbol_reader.searcher(), words, opts, &paths, Some(SYMBOL_NAME_MATCH))
}

pub(super) fn symbol_search(
    index: &KeywordIndex,
    searcher: &Searcher,
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
        clauses.push(konst(term(sf.qualified, c), QUALIFIED_AS_WRITTEN));
        clauses.push(konst(term(sf.qualified_lc, &lc), QUALIFIED_ANY_CASE));
        clauses.push(konst(term(sf.name_lc, &lc), NAME_ANY_CASE));
        if let Some(last) = Some(crate::analysis::name::last_dotted(&lc)).filter(|l| *l != lc) {
            clauses.push(konst(term(sf.name_lc, last), SYMBOL_NAME_MATCH));
        }
        if lc.chars().count() >= 3 {
            if let Ok(q) = RegexQuery::from_pattern(&format!("{}.*", regex_escape(&lc)), sf.name_lc) {
                clauses.push(konst(Box::new(q), NAME_PREFIX));
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
        // A definition's lines are read from its chunk for the results kept
        // (`fill_content`); one without a chunk shows its signature and doc.
        let content = match &chunk_id {
            Some(_) => String::new(),
            None => {
                let sig = get_str(&doc, sf.signature).unwrap_or_default();
                match get_str(&doc, sf.doc) {
                    Some(d) => format!("{sig}\n{d}"),
                    None => sig,
                }
            }
        };
        hits.push(Hit {
            tie,
            explain: None,
            name_match: score >= SYMBOL_NAME_MATCH,
            rank: i + 1,
            path: get_str(&doc, sf.path).unwrap_or_default(),
            start_line,
            end_line,
            symbol: get_str(&doc, sf.qualified),
            kind: get_kind(&doc, sf.kind),
            language: get_language(&doc, sf.language),
            score,
            content,
            signals: Signals { symbol: Some(i + 1), ..Signals::default() },
            source: Default::default(),
            chunk_id,
        });
    }
    Ok(hits)
}

/// The definition `qualified` in `path`, as a hit; its `content` (its lines,
/// cut from its chunk) is left for [`super::keyword::fill_content`].
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
        explain: None,
        name_match: false,
        rank: 0,
        path: path.to_string(),
        start_line,
        end_line,
        symbol: Some(qualified.to_string()),
        kind: get_kind(&doc, sf.kind),
        language: get_language(&doc, sf.language),
        score: 0.0,
        content,
        signals: Signals::default(),
        source: Default::default(),
        chunk_id,
    }))
}
