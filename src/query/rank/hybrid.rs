//! One query pipeline over sources. A [`Source`] is where a query's
//! candidates come from: the local index with the work tree laid over it
//! (`crate::query::sources::local::Local`) or a Qdrant server's collections alone
//! (`crate::query::sources::server::Server`). [`answer`] decides which retrievers
//! the mode and the question call for, runs them on the source (dense on
//! its own thread, beside the others), fuses their lists and sends the
//! result through the shared stage ([`super::pipeline::finish`]).
//!
//! Invariant: sources differ in how a retriever finds its candidates, never
//! in what is made of them — which lists run, their weights, the fusion,
//! priors, `--files`, parents and diversity are written once, here and in
//! the pipeline.

use crate::query::base::parameters::{
    CALLEE_SEEDS, CALLEE_WEIGHT, EXACT_DOCUMENT_WEIGHT, EXACT_WEIGHT, FEEDBACK_NAMES, PATTERNS_ASKED, PATTERNS_UNASKED, RRF_K, STEPS_POOL, STEPS_WEIGHT,
    SURE_MARGIN, SURE_RAMP, SURE_WEIGHT, SURE_WEIGHT_STEPS, USAGE_DEPTH, USAGE_WEIGHT,
};
use std::time::Instant;

use super::fusion::{fuse, fuse_explained};
use super::history::{FileEvidence, PendingEvidence};
use crate::analysis::role::Role;
use crate::progress::millis;
use crate::query::answer::{Answer, Hit, HybridError, Response, Result, Retriever, Timings, Unavailable};
use crate::query::options::{HybridOptions, Mode, QueryOptions};
use crate::query::question::intent::{identifier_subjects, GraphAsk, Intent, Relation};
use crate::query::question::literals::{Literal, Source as LiteralSource};
use crate::query::question::mentions::Mentions;
use crate::query::question::Question;
use crate::query::retrieve::{Source, Walk};

/// Answers `text` from `source` in the mode `opts` asks for.
pub fn answer(source: &dyn Source, text: &str, opts: &HybridOptions) -> Result<Answer> {
    let started = Instant::now();
    let q = question(text, opts);
    let mut answer = Answer {
        response: Response { query: q.asked.clone(), took_ms: 0.0, results: Vec::new() },
        analysis: q.analysis.clone(),
        retrievers: Vec::new(),
        fallbacks: Vec::new(),
        subjects: Vec::new(),
        timings: Default::default(),
        files: None,
    };
    let mut list_opts = super::pipeline::list_options(opts);
    list_opts.hide = source.hidden();
    let mentions = source.mentions(&q);
    // An issue report's history evidence, searched beside the retrievers.
    let history = match (opts.query.mode, q.document, source.history_index()) {
        (Mode::Hybrid, true, Some(dir)) => Some(PendingEvidence::start(dir, &q.asked)),
        _ => None,
    };
    let results = match opts.query.mode {
        Mode::Keyword | Mode::Symbol => {
            answer.retrievers.push(if opts.query.mode == Mode::Keyword { Retriever::Bm25 } else { Retriever::Symbol });
            source.single(&q, &list_opts)?
        }
        Mode::Semantic => {
            let (hits, _, timings) = source.start_dense(&q, &list_opts, false).wait(None).map_err(HybridError::Unavailable)?;
            answer.timings.extend(timings);
            answer.retrievers.push(Retriever::Dense);
            hits
        }
        Mode::Graph => {
            let ask = q.analysis.graph.clone().unwrap_or(GraphAsk { relation: Relation::Callers, subject: identifier_subjects(text), context: Vec::new() });
            let walk = Walk { neighbours: q.analysis.graph.is_none() && opts.relation.is_none(), with_subject: true, depth: opts.depth };
            let t = Instant::now();
            let (hits, subjects) = source.related(&q, &ask, walk, &list_opts).map_err(HybridError::Unavailable)?;
            answer.timings.insert("graph", millis(t));
            answer.retrievers.push(Retriever::Graph);
            answer.subjects = subjects;
            hits
        }
        Mode::Hybrid => hybrid(source, &q, &mentions, opts, &list_opts, &mut answer)?,
    };
    let history = history.and_then(|pending| past_commits(pending, &mut answer));
    let t = Instant::now();
    let (results, files) = super::pipeline::finish(source, &q, &mentions, results, opts, history.as_ref())?;
    if opts.query.mode == Mode::Hybrid {
        answer.timings.insert("rank", millis(t));
    }
    answer.files = files;
    answer.response.results = results;
    answer.response.took_ms = millis(started);
    Ok(answer)
}

/// An issue report's evidence from the past commits most like it; none
/// where the source has no history (a damaged store is said, not fatal).
fn past_commits(pending: PendingEvidence, answer: &mut Answer) -> Option<FileEvidence> {
    let (evidence, ms) = pending.wait();
    answer.timings.insert("history", ms);
    evidence.unwrap_or_else(|why| {
        answer.fallbacks.push(format!("history: {why}"));
        None
    })
}

/// The question, with the graph relation `--relation` forces and the
/// project's name.
fn question(text: &str, opts: &HybridOptions) -> Question {
    let mut q = Question::new(text);
    q.project = opts.project.as_deref().map(crate::query::question::name_words).unwrap_or_default();
    if let Some(r) = opts.relation {
        let ask = crate::query::question::intent::graph_ask(text).unwrap_or(GraphAsk { relation: r, subject: identifier_subjects(text), context: Vec::new() });
        q.analysis.graph = Some(GraphAsk { relation: r, ..ask });
    }
    q
}

/// Every retriever the question's weights call for, fused.
fn hybrid(source: &dyn Source, q: &Question, mentions: &Mentions, opts: &HybridOptions, list_opts: &QueryOptions, answer: &mut Answer) -> Result<Vec<Hit>> {
    let analysis = &q.analysis;
    let w = analysis.weights;
    let wants_patterns = analysis.wants_patterns || analysis.intent == Intent::Concept;
    let dense = match (w.dense > 0.0).then(|| source.dense_ready()) {
        Some(Ok(())) => Some(source.start_dense(q, list_opts, wants_patterns)),
        Some(Err(why)) => {
            answer.fallbacks.extend(why.map(|why| format!("dense: {why}")));
            None
        }
        None => None,
    };
    let started = Instant::now();
    let mut lists = keyword_lists(source, q, mentions, list_opts, &mut answer.timings)?;
    let t = Instant::now();
    let graph = match (&analysis.graph, w.graph > 0.0) {
        (Some(ask), true) => Some(source.related(q, ask, Walk { neighbours: false, with_subject: false, depth: opts.depth }, list_opts)),
        _ => None,
    };
    if graph.is_some() {
        answer.timings.insert("graph", millis(t));
    }
    let t = Instant::now();
    let usages = (analysis.intent == Intent::Identifier).then(|| usages(source, q, list_opts));
    if usages.is_some() {
        answer.timings.insert("usages", millis(t));
    }
    let t = Instant::now();
    let dense = dense.map(|d| d.wait(Some(opts.timeout.saturating_sub(started.elapsed()))));
    if dense.is_some() {
        // What the dense thread still cost after the others were done.
        answer.timings.insert("dense_wait", millis(t));
    }
    match dense {
        Some(Ok((hits, patterns, timings))) => {
            answer.timings.extend(timings);
            if analysis.intent == Intent::Concept {
                let t = Instant::now();
                if let Some(expanded) = feedback(q, &hits) {
                    lists.push((Retriever::Feedback, w.dense, source.bm25(&expanded, list_opts)?));
                    answer.timings.insert(Retriever::Feedback.as_str(), millis(t));
                }
            }
            if analysis.intent == Intent::Concept && q.parts.is_empty() {
                if let Some(sure) = sure_nearest(&hits) {
                    lists.push((Retriever::Dense, sure.0, sure.1));
                }
            }
            lists.push((Retriever::Dense, w.dense, hits));
            if !patterns.is_empty() {
                lists.push((Retriever::Patterns, if analysis.wants_patterns { PATTERNS_ASKED } else { PATTERNS_UNASKED }, patterns));
            }
        }
        Some(Err(e)) => answer.fallbacks.push(format!("dense: {e}")),
        None => {}
    }
    match graph {
        Some(Ok((hits, subjects))) => {
            answer.subjects = subjects;
            lists.push((Retriever::Graph, w.graph, hits));
        }
        Some(Err(e)) => answer.fallbacks.push(format!("graph: {e}")),
        None => {}
    }
    match usages {
        Some(Ok(hits)) if !hits.is_empty() => lists.push((Retriever::Graph, USAGE_WEIGHT, hits)),
        Some(Err(e)) => answer.fallbacks.push(format!("graph: {e}")),
        _ => {}
    }
    if analysis.wants_patterns && !lists.iter().any(|(n, _, _)| *n == Retriever::Patterns) {
        // Without vectors, patterns are matched on their descriptions.
        let hits = source.patterns_by_words(q, 10)?;
        if !hits.is_empty() {
            lists.push((Retriever::Patterns, PATTERNS_ASKED, hits));
        }
    }
    if analysis.intent == Intent::Concept {
        let t = Instant::now();
        let seeds: Vec<Hit> = fuse(&lists, RRF_K, None).into_iter().take(CALLEE_SEEDS).collect();
        match source.callees(&seeds, list_opts) {
            Ok(hits) => {
                if !hits.is_empty() {
                    lists.push((Retriever::Callees, CALLEE_WEIGHT, hits));
                }
                match steps_of_the_best(source, &fuse(&lists, RRF_K, None), list_opts) {
                    Ok(Some(steps)) => lists.push((Retriever::Callees, STEPS_WEIGHT, steps)),
                    Ok(None) => {}
                    Err(e) => answer.fallbacks.push(format!("callees: {e}")),
                }
            }
            Err(e) => answer.fallbacks.push(format!("callees: {e}")),
        }
        answer.timings.insert(Retriever::Callees.as_str(), millis(t));
    }
    answer.retrievers = lists.iter().map(|(n, _, _)| *n).collect();
    answer.retrievers.dedup();
    let answering = (analysis.intent == Intent::Graph).then_some(Retriever::Graph);
    Ok(fuse_explained(&lists, RRF_K, answering, opts.explain))
}

/// The best candidate of a concept question when it calls at least two of
/// the first [`STEPS_POOL`] others: it drives what the question asks about
/// (`resolve_redirects` for "how are redirects followed", `ExecuteC` for
/// running a command), and the candidates it calls are its steps. The list
/// holds it, then them in their fused order. Measured on the dev kit and
/// the Rust/Go corpora (hybrid nDCG@10, weight 1.0): concept 0.653 ->
/// 0.656, multi-part 0.619 -> 0.631. Weights 0.3 / 0.5 / 2.0 gained less;
/// the driver sought among the best two or five, or a pool of 20: less, or
/// a loss (a best-five driver: concept and multi-part together 0.646 -> 0.640).
fn steps_of_the_best(source: &dyn Source, fused: &[Hit], opts: &QueryOptions) -> std::result::Result<Option<Vec<Hit>>, Unavailable> {
    let Some(best) = fused.first() else { return Ok(None) };
    let pool: std::collections::HashMap<String, usize> =
        fused.iter().take(STEPS_POOL).enumerate().skip(1).map(|(i, h)| (super::fusion::hit_key(h), i)).collect();
    let mut called: Vec<usize> =
        source.callees(std::slice::from_ref(best), opts)?.iter().filter_map(|c| pool.get(&super::fusion::hit_key(c)).copied()).collect();
    called.sort_unstable();
    called.dedup();
    if called.len() < 2 {
        return Ok(None);
    }
    Ok(Some(std::iter::once(best.clone()).chain(called.into_iter().map(|i| fused[i].clone())).collect()))
}

/// Of a concept question's dense list, the first when it stands out from
/// the second by more than [`SURE_MARGIN`] in cosine similarity, as a list
/// of its own weighing up to [`SURE_WEIGHT`] (full at [`SURE_MARGIN`] +
/// [`SURE_RAMP`]). RRF weighs a rank the same whatever the gap behind it,
/// and the gap is calibrated evidence: on the dev kit and the Rust/Go
/// corpora (semantic mode, concept and multi-part questions) the first was
/// relevant for 88% of those with a gap of 0.08 or more and 25% under 0.01,
/// where hybrid's first was relevant for 76%. Measured (hybrid nDCG@10):
/// concept 0.660 -> 0.668 (cobra 0.551 -> 0.601, now above semantic mode's
/// 0.556), all 273 queries 0.787 -> 0.790. A margin of 0.05 gained less
/// (concept 0.664); applied to questions listing items too, multi-part
/// fell 0.631 -> 0.626 (a list's items are several answers, none sure).
/// The weight goes in tenths: the last bits of a cosine differ between
/// ONNX Runtime sessions (the CLI's and the MCP server's), and the answer
/// must not.
fn sure_nearest(dense: &[Hit]) -> Option<(f32, Vec<Hit>)> {
    let [first, second, ..] = dense else { return None };
    let ramp = ((first.score - second.score - SURE_MARGIN) / SURE_RAMP).clamp(0.0, 1.0);
    let weight = SURE_WEIGHT * (ramp * SURE_WEIGHT_STEPS).round() / SURE_WEIGHT_STEPS;
    (weight > 0.0).then(|| (weight, vec![first.clone()]))
}

/// A name looked up: the code that calls it, nearest first — after the
/// definition itself, where it is used is what the reader wants next (its
/// tests are not: they are found by name when asked for).
fn usages(source: &dyn Source, q: &Question, opts: &QueryOptions) -> std::result::Result<Vec<Hit>, Unavailable> {
    let ask = GraphAsk { relation: Relation::Callers, subject: identifier_subjects(&q.text), context: Vec::new() };
    let walk = Walk { neighbours: false, with_subject: false, depth: 1 };
    // The first few callers are enough unless tests took some of their
    // places (then as many as the list takes): each hit is an index lookup,
    // and a much-called name has thousands of callers.
    let few = QueryOptions { limit: USAGE_DEPTH.min(opts.limit), ..opts.clone() };
    let first = source.related(q, &ask, walk, &few)?.0;
    let mut hits = match first.len() < few.limit || first.iter().all(|h| !Role::of(&h.path).is_test_side()) {
        true => first,
        false => source.related(q, &ask, walk, opts)?.0,
    };
    hits.retain(|h| !Role::of(&h.path).is_test_side());
    hits.truncate(USAGE_DEPTH);
    Ok(hits)
}

/// A concept question says in words what the code says in names: the
/// question with the names of the definitions nearest in meaning added
/// (pseudo-relevance feedback), so that BM25 finds the code that defines
/// and uses them. Measured on the dev kit and the Rust/Go corpora (hybrid
/// nDCG@10): concept up on all five corpora (+0.002…+0.051), overall 0.725 →
/// 0.739; 2 or 3 names gained less. `None` when no dense hit names a definition.
fn feedback(q: &Question, dense: &[Hit]) -> Option<Question> {
    let names: Vec<&str> = dense.iter().filter_map(|h| h.symbol.as_deref()).take(FEEDBACK_NAMES).map(crate::analysis::name::own_part).collect();
    (!names.is_empty()).then(|| Question::new(&format!("{} {}", q.text, names.join(" "))))
}

/// The keyword side's lists (BM25, names, literals).
fn keyword_lists(
    source: &dyn Source,
    q: &Question,
    mentions: &Mentions,
    list_opts: &QueryOptions,
    timings: &mut Timings,
) -> Result<Vec<(Retriever, f32, Vec<Hit>)>> {
    let (analysis, w) = (&q.analysis, q.analysis.weights);
    let mut lists: Vec<(Retriever, f32, Vec<Hit>)> = Vec::new();
    for (name, weight) in [(Retriever::Bm25, w.bm25), (Retriever::Symbol, w.symbol)] {
        if weight > 0.0 {
            let t = Instant::now();
            let hits = match name {
                Retriever::Bm25 => source.bm25(q, list_opts)?,
                _ => source.names(q, mentions, list_opts)?,
            };
            timings.insert(name.as_str(), millis(t));
            lists.push((name, weight, hits));
        }
    }
    if !analysis.literals.is_empty() {
        let t = Instant::now();
        // A document's quotes may pair up across pasted code and weigh less;
        // its `> quoted` lines are what the reporter saw, meant as written
        // like a short question's literals.
        let (seen, rest): (Vec<Literal>, Vec<Literal>) = analysis.literals.iter().cloned().partition(|l| l.source == LiteralSource::BlockQuote);
        let document_weight = if analysis.intent == Intent::Document { EXACT_DOCUMENT_WEIGHT } else { EXACT_WEIGHT };
        for (literals, weight) in [(seen, EXACT_WEIGHT), (rest, document_weight)] {
            if literals.is_empty() {
                continue;
            }
            let mut asked = q.clone();
            asked.analysis.literals = literals;
            let hits = source.literals(&asked, list_opts)?;
            if !hits.is_empty() {
                lists.push((Retriever::Exact, weight, hits));
            }
        }
        timings.insert(Retriever::Exact.as_str(), millis(t));
    }
    Ok(lists)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scored(score: f32) -> Hit {
        Hit { score, ..Hit::default() }
    }

    #[test]
    fn only_a_first_that_stands_out_is_sure() {
        assert!(sure_nearest(&[scored(0.50), scored(0.48)]).is_none());
        assert!(sure_nearest(&[scored(0.50)]).is_none());
        let (weight, list) = sure_nearest(&[scored(0.50), scored(0.435)]).unwrap();
        assert!((weight - 0.5).abs() < 1e-3 && list.len() == 1);
        assert_eq!(sure_nearest(&[scored(0.60), scored(0.30)]).unwrap().0, SURE_WEIGHT);
    }
}
