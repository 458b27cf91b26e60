//! Dense retrieval: the question's embedding against the vector store's
//! chunks (SEMANTIC), definition headers (SYMBOLS) and file outlines (FILES).

use crate::query::base::parameters::{DENSE_PROSE_WEIGHT, DENSE_TEST_WEIGHT, FILE_WEIGHT, SEMANTIC_WEIGHT, SYMBOL_WEIGHT};
use std::collections::HashMap;
use std::time::Instant;

use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::analysis::role::Role;
use crate::query::answer::{Hit, Response, SearchResult as Result, Signals};
use crate::query::options::{PathFilter, QueryOptions};
use crate::query::question::Question;
use crate::stores::vector::{point_id, Collection, Filter, VectorStore};

/// Candidates taken from each collection before fusion.
const DENSE_WINDOW: usize = 50;

/// Runs a query against the vector store: the query's embedding is matched
/// against SEMANTIC, SYMBOLS and FILES, and each hit counts for the chunk it
/// stands for (a symbol for its definition's chunk, a file for its outline).
/// `paths` are the indexed paths, against which `--path` is expanded.
pub fn semantic_search<'a>(
    store: &dyn VectorStore,
    query_vector: &[f32],
    q: &Question,
    opts: &QueryOptions,
    paths: impl Iterator<Item = &'a String>,
) -> Result<Response> {
    let started = Instant::now();
    let Some(filter) = payload_filter(opts, paths)? else {
        return Ok(Response { query: q.asked.clone(), took_ms: crate::progress::millis(started), results: Vec::new() });
    };
    let with_kind = |f: &Filter| match opts.kind {
        Some(k) => f.clone().any_of("kind", vec![k.as_str().to_string()]),
        None => f.clone(),
    };
    let window = DENSE_WINDOW.max(opts.limit * 2);
    let test_weight = if q.about_tests() { 1.0 } else { DENSE_TEST_WEIGHT };

    // (chunk id) -> (score, payload of the hit that gave it, its content if known)
    let mut best: HashMap<String, (f32, serde_json::Map<String, serde_json::Value>)> = HashMap::new();
    let mut consider = |chunk_id: Option<&str>, score: f32, payload: &serde_json::Map<String, serde_json::Value>| {
        let Some(id) = chunk_id else { return };
        let path = payload.get("path").and_then(|v| v.as_str()).unwrap_or("");
        let symbol = payload.get("symbol").or_else(|| payload.get("qualified_name")).and_then(|v| v.as_str());
        let score = if Role::of_code(path, symbol).is_test_side() { score * test_weight } else { score };
        // Prose: a changelog entry is near in meaning to many questions.
        let prose = payload.get("kind").and_then(|v| v.as_str()).and_then(Kind::from_name).is_some_and(Kind::is_prose);
        let score = if prose { score * DENSE_PROSE_WEIGHT } else { score };
        match best.get_mut(id) {
            Some(b) if b.0 >= score => {}
            Some(b) => {
                b.0 = score;
                if payload.contains_key("content") {
                    b.1 = payload.clone();
                }
            }
            None => {
                best.insert(id.to_string(), (score, payload.clone()));
            }
        }
    };
    for hit in store.search(Collection::Semantic, query_vector, &with_kind(&filter), window)? {
        consider(hit.payload.get("chunk_id").and_then(|v| v.as_str()), hit.score * SEMANTIC_WEIGHT, &hit.payload);
    }
    for hit in store.search(Collection::Symbols, query_vector, &with_kind(&filter), window)? {
        // A definition without a chunk of its own (a constant inside module
        // code) stands for its own lines.
        let own = format!("symbol:{}", hit.id);
        let id = hit.payload.get("chunk_id").and_then(|v| v.as_str()).unwrap_or(&own).to_string();
        consider(Some(&id), hit.score * SYMBOL_WEIGHT, &hit.payload);
    }
    if opts.kind.is_none_or(|k| k == Kind::File) {
        for hit in store.search(Collection::Files, query_vector, &filter, window / 2)? {
            consider(hit.payload.get("chunk_id").and_then(|v| v.as_str()), hit.score * FILE_WEIGHT, &hit.payload);
        }
    }

    let mut ranked: Vec<(String, f32, serde_json::Map<String, serde_json::Value>)> = best.into_iter().map(|(id, (s, p))| (id, s, p)).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    ranked.truncate(opts.limit);

    let results = dense_hits(store, ranked)?;
    Ok(Response { query: q.asked.clone(), took_ms: crate::progress::millis(started), results })
}

/// The payload filter of `--lang`, `--path` and `--exclude` (globs, matched
/// against the indexed `paths`); `None` when no indexed path passes.
pub fn payload_filter<'a>(opts: &QueryOptions, paths: impl Iterator<Item = &'a String>) -> Result<Option<Filter>> {
    let mut filter = Filter::default();
    if let Some(lang) = opts.lang {
        filter = filter.any_of("language", vec![lang.name().to_string()]);
    }
    let rule = PathFilter::new(opts)?;
    if !rule.is_empty() {
        let (mut keep, mut drop) = (Vec::new(), Vec::new());
        for p in paths {
            if rule.matches(p) {
                keep.push(p.clone());
            } else if rule.excluded(p) {
                drop.push(p.clone());
            }
        }
        if keep.is_empty() {
            return Ok(None);
        }
        // Only --exclude: name the few paths it drops, not the many it keeps.
        filter = if !rule.has_include() { filter.none_of("path", drop) } else { filter.any_of("path", keep) };
    }
    Ok(Some(filter.none_of("path", opts.hide.iter().cloned().collect())))
}

/// Hits of the ranked dense results; symbol hits carry no chunk text, so
/// it is read from SEMANTIC.
pub fn dense_hits(store: &dyn VectorStore, ranked: Vec<(String, f32, serde_json::Map<String, serde_json::Value>)>) -> Result<Vec<Hit>> {
    let need: Vec<u64> = ranked
        .iter()
        .filter(|(_, _, p)| !p.contains_key("content"))
        .filter_map(|(id, _, _)| crate::stores::state::ChunkId::parse(id).map(|c| point_id(c.0)))
        .collect();
    let fetched: HashMap<u64, serde_json::Map<String, serde_json::Value>> =
        store.retrieve(Collection::Semantic, &need, false)?.into_iter().map(|r| (r.id, r.payload)).collect();

    let mut results = Vec::with_capacity(ranked.len());
    for (id, score, payload) in ranked {
        let payload = match crate::stores::state::ChunkId::parse(&id).and_then(|c| fetched.get(&point_id(c.0))) {
            Some(p) if !payload.contains_key("content") => p.clone(),
            _ => payload,
        };
        let get = |k: &str| payload.get(k).and_then(|v| v.as_str()).map(str::to_string);
        let line = |k: &str| payload.get(k).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
        let rank = results.len() + 1;
        results.push(Hit {
            tie: 0,
            explain: None,
            name_match: false,
            rank,
            path: get("path").unwrap_or_default(),
            start_line: line("start_line").max(1),
            end_line: line("end_line").max(1),
            symbol: get("symbol").or_else(|| get("qualified_name")),
            kind: get("kind").and_then(|k| Kind::from_name(&k)).unwrap_or(Kind::Chunk),
            language: get("language").and_then(|l| Language::from_name(&l)).unwrap_or_default(),
            score,
            content: get("content").or_else(|| get("signature")).unwrap_or_default(),
            signals: Signals { dense: Some(rank), ..Signals::default() },
            source: Default::default(),
            chunk_id: if id.starts_with("symbol:") { None } else { Some(id.clone()) },
        });
    }
    Ok(results)
}
