//! The literal retriever: chunks holding a text of the question as written
//! (a quoted message, an option name, a short query whole), by phrase on the
//! exact-form field.

use crate::query::base::parameters::TEST_WEIGHT;
use tantivy::query::{PhraseQuery, Query, TermQuery};
use tantivy::schema::IndexRecordOption;
use tantivy::{Searcher, Term};

use super::keyword::{filters, hit_of_chunk, kind_weight, with_filters};
use crate::analysis::kind::Kind;
use crate::analysis::role::Role;
use crate::query::answer::{Hit, SearchResult as Result};
use crate::query::options::{PathFilter, QueryOptions};
use crate::query::question::literals::{self, Literal};
use crate::stores::keyword::{get_kind, get_str, KeywordIndex};

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
            if !Role::of(&path).is_test_side() && hidden.is_none_or(|h| !h.contains(&path)) {
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
        roles.push(Role::of(&get_str(&index.doc(&searcher, addr)?, cf.path).unwrap_or_default()));
    }
    Ok(roles)
}

pub(super) fn literal_hits(
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
            let role = Role::of(&get_str(&doc, cf.path).unwrap_or_default());
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
            if get_kind(&doc, cf.kind) == Kind::File {
                continue;
            }
            let id = get_str(&doc, cf.id).unwrap_or_default();
            match found.iter_mut().find(|f| f.3.chunk_id.as_deref() == Some(id.as_str())) {
                Some(f) => f.0 += 1,
                None => {
                    let mut h = hit_of_chunk(index, &doc, &id);
                    h.tie = tie;
                    let weight = kind_weight(h.kind) * if role == Role::Code { 1.0 } else { TEST_WEIGHT };
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
