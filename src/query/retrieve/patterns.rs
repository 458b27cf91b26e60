//! Project patterns (conventions) as hits: by words of the query, or by
//! dense similarity in the PATTERNS collection.

use crate::query::base::parameters::PATTERN_USES;
use std::collections::HashSet;

use crate::query::answer::Hit;
use crate::stores::vector::{Collection, Filter, VectorStore};

pub fn pattern_hit(p: &crate::analysis::patterns::Pattern, rank: usize) -> Option<Hit> {
    let ex = p.examples.first()?;
    Some(Hit {
        tie: 0,
        explain: None,
        name_match: false,
        rank,
        path: ex.path.clone(),
        start_line: ex.start_line,
        end_line: ex.end_line,
        symbol: Some(p.key.clone()),
        kind: crate::analysis::kind::Kind::Pattern,
        language: crate::analysis::lang::Language::from_name(&ex.language).unwrap_or_default(),
        score: 0.0,
        content: format!("{} (used {} times in {} files)\n{}", p.description, p.count, p.files, ex.snippet),
        signals: crate::query::answer::Signals { patterns: Some(rank), ..Default::default() },
        source: Default::default(),
        chunk_id: Some(format!("pattern:{}", p.key)),
    })
}

/// Patterns whose description shares words with the query, best first.
pub fn pattern_keyword(patterns: &[crate::analysis::patterns::Pattern], text: &str, limit: usize) -> Vec<Hit> {
    let query: HashSet<String> = token_set(text).into_iter().filter(|t| t.len() > 2).collect();
    let mut scored: Vec<(f32, &crate::analysis::patterns::Pattern)> = patterns
        .iter()
        .map(|p| {
            let terms = token_set(&format!("{} {}", p.description, p.key));
            let overlap = query.iter().filter(|q| terms.iter().any(|t| t.starts_with(q.as_str()) || q.starts_with(t.as_str()) && t.len() > 2)).count();
            (overlap as f32 + (p.count as f32).ln_1p() * PATTERN_USES, p)
        })
        .filter(|(s, _)| *s >= 1.0)
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.key.cmp(&b.1.key)));
    scored.into_iter().take(limit).enumerate().filter_map(|(i, (_, p))| pattern_hit(p, i + 1)).collect()
}

pub fn pattern_dense(store: &dyn VectorStore, vector: &[f32], limit: usize) -> std::result::Result<Vec<Hit>, crate::stores::vector::StoreError> {
    let hits = store.search(Collection::Patterns, vector, &Filter::default(), limit)?;
    Ok(hits
        .into_iter()
        .enumerate()
        .filter_map(|(i, h)| {
            let p: crate::analysis::patterns::Pattern = serde_json::from_value(serde_json::Value::Object(pattern_from_payload(&h.payload)?)).ok()?;
            pattern_hit(&p, i + 1)
        })
        .collect())
}

pub fn pattern_from_payload(p: &serde_json::Map<String, serde_json::Value>) -> Option<serde_json::Map<String, serde_json::Value>> {
    let mut m = serde_json::Map::new();
    for k in ["key", "category", "description", "count", "files", "examples"] {
        m.insert(k.to_string(), p.get(k)?.clone());
    }
    Some(m)
}

/// The code terms of a text, as a set (how alike two texts are).
pub fn token_set(text: &str) -> HashSet<String> {
    crate::stores::keyword::code_terms(text).into_iter().map(|t| t.text).collect()
}
