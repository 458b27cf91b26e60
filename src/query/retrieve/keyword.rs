//! The keyword index as the retrievers read it ([`super::bm25`],
//! [`super::literals`], [`super::symbols`]): the filters every query on it takes
//! (`--lang`, `--kind`, `--path`, `--exclude`, the work tree's paths), the
//! kind of a chunk as evidence, and a chunk read back as a hit.

use crate::query::base::parameters::{OUTLINE_WEIGHT, PROSE_WEIGHT};
use std::collections::BTreeSet;

use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, Term};

use crate::analysis::kind::Kind;
use crate::query::answer::{Hit, SearchResult as Result, Signals};
use crate::query::options::{PathFilter, QueryOptions};
use crate::stores::keyword::{get_kind, get_language, get_str, get_u64, FileTerms, KeywordError, KeywordIndex};

/// Filters as clauses that match without scoring: what a result must be
/// (language, kind, a path `--path` keeps) and must not be (a path `--exclude` drops).
pub(super) fn filters(
    searcher: &Searcher,
    path_field: Field,
    lang_field: Field,
    kind_field: Field,
    opts: &QueryOptions,
    rule: &PathFilter,
) -> Result<Vec<(Occur, Box<dyn Query>)>> {
    let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if let Some(l) = opts.lang {
        out.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(lang_field, l.name()), IndexRecordOption::Basic))));
    }
    if let Some(k) = opts.kind {
        out.push((Occur::Must, Box::new(TermQuery::new(Term::from_field_text(kind_field, k.as_str()), IndexRecordOption::Basic))));
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
        let terms = |paths: BTreeSet<String>| -> Box<dyn Query> {
            Box::new(TermSetQuery::new(paths.iter().map(|p| Term::from_field_text(path_field, p)).collect::<Vec<_>>()))
        };
        if rule.has_include() {
            out.push((Occur::Must, terms(keep)));
        }
        if !drop.is_empty() {
            out.push((Occur::MustNot, terms(drop)));
        }
    }
    Ok(out)
}

pub(super) fn with_filters(main: Box<dyn Query>, filters: Vec<(Occur, Box<dyn Query>)>) -> Box<dyn Query> {
    if filters.is_empty() {
        return main;
    }
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, main)];
    for (occur, f) in filters {
        clauses.push((occur, Box::new(ConstScoreQuery::new(f, 0.0))));
    }
    Box::new(BooleanQuery::new(clauses))
}

pub(super) fn is_prose(kind: Kind) -> bool {
    matches!(kind, Kind::Window | Kind::Section | Kind::Text)
}

/// How much a chunk kind is worth in a keyword list: whole-file chunks are
/// outlines, useful but rarely the answer; prose answers fewer questions.
pub(super) fn kind_weight(kind: Kind) -> f32 {
    match kind {
        Kind::File | Kind::Fallback => OUTLINE_WEIGHT,
        Kind::Window | Kind::Section | Kind::Text => PROSE_WEIGHT,
        _ => 1.0,
    }
}

/// Reads the content of hits that [`super::symbols::symbol_name_matches`] left empty.
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

/// The text of the chunk holding a symbol, cut to the symbol's lines when the
/// chunk is verbatim source that spans more than the symbol.
pub(super) fn chunk_content(index: &KeywordIndex, chunks: &Searcher, id: &str, start: usize, end: usize) -> Result<Option<String>> {
    let cf = index.cf;
    let Some(doc) = index.chunk_doc(chunks, id)? else { return Ok(None) };
    let content = get_str(&doc, cf.content).unwrap_or_default();
    let kind = get_kind(&doc, cf.kind);
    let c_start = get_u64(&doc, cf.start_line) as usize;
    let c_end = get_u64(&doc, cf.end_line) as usize;
    if kind == Kind::Code && (c_start < start || c_end > end) && start >= c_start {
        let lines: Vec<&str> = content.lines().collect();
        let from = start - c_start;
        let to = (end - c_start + 1).min(lines.len());
        if from < to {
            return Ok(Some(lines[from..to].join("\n")));
        }
    }
    Ok(Some(content))
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
        (Occur::Must, Box::new(TermQuery::new(Term::from_field_text(cf.kind, Kind::File.as_str()), IndexRecordOption::Basic))),
    ]);
    // Not scored: BM25's statistics of the path and kind fields cost a pass
    // over every document's norms (~2 ms each on the Linux kernel's 2.2 M chunks).
    let q = ConstScoreQuery::new(Box::new(q), 1.0);
    let top = index.top_docs(&chunks, &q, 1, "key")?;
    let Some((_, addr)) = top.first() else { return Ok(None) };
    let doc = index.doc(&chunks, *addr)?;
    let id = get_str(&doc, cf.id).unwrap_or_default();
    Ok(Some(hit_of_chunk(index, &doc, &id)))
}

/// The chunk of a document (a file without an outline: Markdown, text)
/// that names `names` most, by BM25 within the file: where a README's
/// example calls a function. `None` when no chunk of it names any.
pub fn chunk_naming(index: &KeywordIndex, path: &str, names: &[String]) -> Result<Option<Hit>> {
    let (chunk_reader, _) = index.readers()?;
    let chunks = chunk_reader.searcher();
    let cf = index.cf;
    let terms: Vec<(Occur, Box<dyn Query>)> = names
        .iter()
        .flat_map(|n| crate::stores::keyword::analyze(n).into_iter().next())
        .map(|t| (Occur::Should, Box::new(TermQuery::new(Term::from_field_text(cf.content, &t), IndexRecordOption::WithFreqs)) as Box<dyn Query>))
        .collect();
    if terms.is_empty() {
        return Ok(None);
    }
    let q = BooleanQuery::new(vec![
        (
            Occur::Must,
            Box::new(ConstScoreQuery::new(Box::new(TermQuery::new(Term::from_field_text(cf.path, path), IndexRecordOption::Basic)), 0.0)) as Box<dyn Query>,
        ),
        (Occur::Must, Box::new(BooleanQuery::new(terms))),
    ]);
    let top = index.top_docs(&chunks, &q, 1, "key")?;
    let Some((_, addr)) = top.first() else { return Ok(None) };
    let doc = index.doc(&chunks, *addr)?;
    let id = get_str(&doc, cf.id).unwrap_or_default();
    Ok(Some(hit_of_chunk(index, &doc, &id)))
}

/// For each of `paths`, how often its chunks hold each of `terms` ([`KeywordIndex::file_terms`]).
pub fn file_terms(index: &KeywordIndex, paths: &[&str], terms: &[String]) -> Result<FileTerms> {
    let chunks = index.readers()?.0.searcher();
    Ok(index.file_terms(&chunks, paths, terms)?)
}

pub(super) fn hit_of_chunk(index: &KeywordIndex, doc: &tantivy::TantivyDocument, id: &str) -> Hit {
    let cf = index.cf;
    Hit {
        tie: 0,
        explain: None,
        name_match: false,
        rank: 0,
        path: get_str(doc, cf.path).unwrap_or_default(),
        start_line: get_u64(doc, cf.start_line) as usize,
        end_line: get_u64(doc, cf.end_line) as usize,
        symbol: get_str(doc, cf.symbol),
        kind: get_kind(doc, cf.kind),
        language: get_language(doc, cf.language),
        score: 0.0,
        content: get_str(doc, cf.content).unwrap_or_default(),
        signals: Signals::default(),
        source: Default::default(),
        chunk_id: Some(id.to_string()),
    }
}

pub(super) fn regex_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~\"@<>".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
