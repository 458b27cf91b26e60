//! What every source's answer goes through once its retrievers have run:
//! file priors, overlap removal, the files the query names, each listed
//! item's answer near the top, diversity,
//! `--min-score`, parent expansion, the file ranking (`--files`), the final
//! cut, and an issue report's files placed by past commits like it. The local index and a Qdrant server alone (`crate::query::sources::server`)
//! differ in how they find candidates, not in what is made of them, so this
//! is written once. A source answers the few questions it needs through
//! [`Chunks`].

use super::files::{apply_priors, chunks_by_file, grouped_by_file, lift_mentioned, rank_files};
use super::fusion::{credit, dedup_overlaps, mmr};
use super::history::FileEvidence;
use crate::query::answer::explain::{Contribution, Explanation, RankedBy};
use crate::query::answer::{FileHit, Hit, SearchResult as Result};
use crate::query::base::parameters::{CHUNKS_PER_FILE, RRF_K, STAGE_POOL};
use crate::query::options::{HybridOptions, Mode, QueryOptions};
use crate::query::question::mentions::Mentions;
use crate::query::question::Question;
use crate::query::retrieve::Chunks;

/// Options for the lists a source's retrievers return: `window` candidates
/// each in hybrid mode, enough chunks per file with `--files`.
pub fn list_options(opts: &HybridOptions) -> QueryOptions {
    let limit = opts.query.limit;
    let mut list = opts.query.clone();
    list.limit = match opts.query.mode {
        Mode::Hybrid => opts.window.max(limit),
        // Files are ranked from every candidate, not from the first `limit`.
        _ if opts.files => opts.window.max(limit).max(limit * CHUNKS_PER_FILE),
        _ => limit,
    };
    list
}

/// The answer's results (and files, with `--files`) from a source's
/// ranked candidates: fused ones in hybrid mode, one retriever's otherwise.
/// `history`: an issue report's evidence from past commits, which reorders
/// the files of the answer after the first ([`super::history`]).
pub fn finish(
    source: &dyn Chunks,
    q: &Question,
    mentions: &Mentions,
    mut results: Vec<Hit>,
    opts: &HybridOptions,
    history: Option<&FileEvidence>,
) -> Result<(Vec<Hit>, Option<Vec<FileHit>>)> {
    let limit = opts.query.limit;
    if opts.explain && opts.query.mode != Mode::Hybrid {
        for h in &mut results {
            h.explain = Some(Box::new(retriever_score(h.score, opts.query.mode)));
        }
    }
    if opts.query.mode == Mode::Hybrid {
        apply_priors(&mut results, &q.about, q.document);
        results = dedup_overlaps(results);
        if opts.files {
            add_mentioned_files(source, &mut results, mentions)?;
        } else {
            lift_mentioned(&mut results, mentions);
            if q.document {
                // Dense search reads an issue's title and first 256 tokens as
                // one meaning: evidence of which file, not of where in it.
                // Within a file, chunks are placed without its credit (SWE-bench
                // dev with vectors: line Acc@10 0.702 -> 0.723, function Acc@5
                // 0.544 -> 0.587; placed with it, vectors lost function Acc@5
                // to the keyword layers alone).
                let dense = q.analysis.weights.dense;
                results = grouped_by_file(results, |h| h.score - h.signals.dense.map_or(0.0, |rank| credit(dense, rank, RRF_K)));
            } else if !q.parts.is_empty() {
                let pool = results.len().min(super::listed::POOL);
                source.fill_content(&mut results[..pool])?;
                results = super::listed::covering(results, &q.parts);
            }
            if !q.document && super::stage::applies(q) {
                let mut pool = results.len().min(STAGE_POOL);
                // (An issue report's named files are lifted already: `lift_mentioned`.)
                pool += add_named_files(source, q, &mut results, pool, &opts.query)?;
                source.fill_content(&mut results[..pool])?;
                let evidence = super::stage::Evidence::read(source, &results[..pool], q)?;
                results = super::stage::rerank(results, pool, q, &evidence, &crate::query::base::parameters::STAGE, opts.explain);
            } else if opts.explain_features {
                // The fitting script's data for a question the stage leaves
                // alone (an issue report, a graph question): what it would read.
                let pool = results.len().min(STAGE_POOL);
                source.fill_content(&mut results[..pool])?;
                let evidence = super::stage::Evidence::read(source, &results[..pool], q)?;
                super::stage::note_features(&mut results[..pool], q, &evidence, &crate::query::base::parameters::STAGE);
            }
        }
        if let Some(lambda) = opts.diversity {
            source.fill_content(&mut results)?;
            results = mmr(results, lambda, limit);
        }
    }
    if let Some(min) = opts.query.min_score {
        results.retain(|h| h.score >= min);
    }
    if opts.expand_parent {
        results = expand_parent(source, results)?;
    }
    let mut files = None;
    if opts.files {
        let mut ranked = rank_files(&results, mentions);
        ranked.truncate(limit);
        if let Some(evidence) = history {
            ranked = evidence.reorder_files(ranked);
        }
        results = chunks_by_file(results, &ranked);
        files = Some(ranked);
    } else {
        results.truncate(limit);
        // Among the files the answer shows: history orders, it finds nothing.
        if let Some(evidence) = history {
            results = evidence.reorder_chunks(results);
        }
    }
    source.fill_content(&mut results)?;
    for (i, h) in results.iter_mut().enumerate() {
        h.rank = i + 1;
    }
    Ok((results, files))
}

/// A result of one retriever: its score is that retriever's own.
fn retriever_score(score: f32, mode: Mode) -> Explanation {
    let mut e = Explanation::new(RankedBy::Retriever);
    e.add(Contribution::new(format!("retriever:{}", mode.as_str()), score, 1.0));
    e
}

/// Files a document names (a path, a stack frame) that no retriever
/// found: their outline joins the candidates, so the file can be ranked.
fn add_mentioned_files(source: &dyn Chunks, results: &mut Vec<Hit>, mentions: &Mentions) -> Result<()> {
    for path in mentions.paths() {
        if results.iter().any(|h| &h.path == path) {
            continue;
        }
        if let Some(mut h) = source.file_hit(path)? {
            h.score = 0.0;
            results.push(h);
        }
    }
    Ok(())
}

/// The outlines of the files the question's words name
/// ([`crate::query::retrieve::paths`]) that none of the first `pool`
/// candidates is from, put after them (moved up if further down); how
/// many. A bare name is looked up as a definition, not as a file. (Their
/// rank marked on their chunks already among the candidates too lifted
/// whole files: held out, semble 0.785 and the kit unchanged at best,
/// every weight above 0 lower.)
fn add_named_files(source: &dyn Chunks, q: &Question, results: &mut Vec<Hit>, pool: usize, opts: &QueryOptions) -> Result<usize> {
    use crate::query::retrieve::paths::{content_words, named_files, NAMED_FILES};
    if q.analysis.intent == crate::query::question::intent::Intent::Identifier {
        return Ok(0);
    }
    // What the query's filters keep, as every retriever's list does.
    let rule = crate::query::options::PathFilter::new(opts)?;
    let kept = |h: &Hit| rule.matches(&h.path) && opts.lang.is_none_or(|l| l == h.language) && opts.kind.is_none_or(|k| k == h.kind);
    let named = named_files(source.paths(), &content_words(&q.text), NAMED_FILES);
    let mut added = 0;
    for (rank, path) in named.iter().enumerate() {
        if results[..pool].iter().any(|h| &h.path == path) {
            continue;
        }
        let Some(mut hit) = source.file_hit(path)?.filter(|h| kept(h)) else { continue };
        let below = results.iter().skip(pool + added).position(|h| h.path == hit.path && h.start_line == hit.start_line && h.end_line == hit.end_line);
        if let Some(at) = below {
            hit = results.remove(pool + added + at);
        } else {
            hit.score = 0.0;
        }
        hit.signals.named = Some(rank + 1);
        results.insert(pool + added, hit);
        added += 1;
    }
    Ok(added)
}

/// Each hit replaced by its enclosing definition (rank, score and signals
/// kept), without repeats.
fn expand_parent(source: &dyn Chunks, hits: Vec<Hit>) -> Result<Vec<Hit>> {
    let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
    let mut seen = std::collections::HashSet::new();
    for h in hits {
        let mut h2 = match source.parent(&h)? {
            Some(mut p) => {
                p.rank = h.rank;
                p.score = h.score;
                p.signals = h.signals.clone();
                p
            }
            None => h,
        };
        let key = h2.chunk_id.clone().unwrap_or_else(|| format!("{}:{}-{}", h2.path, h2.start_line, h2.end_line));
        if seen.insert(key) {
            h2.rank = out.len() + 1;
            out.push(h2);
        }
    }
    Ok(out)
}
