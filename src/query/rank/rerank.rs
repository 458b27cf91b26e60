//! Reranking: the first results reordered by a reranker (an endpoint or a
//! local cross-encoder) that reads each as a passage.

use crate::query::answer::Hit;
use crate::semantic::rerank::{RerankError, Reranker};

/// Longest passage sent to a reranker, in characters (a cross-encoder reads
/// 512 tokens; an endpoint need not be sent more).
const MAX_PASSAGE_CHARS: usize = 4000;

/// What a reranker reads of a hit: its path and symbol, then its text.
fn passage(h: &Hit) -> String {
    let head = match &h.symbol {
        Some(s) => format!("{}: {s}", h.path),
        None => h.path.clone(),
    };
    let body = match h.content.char_indices().nth(MAX_PASSAGE_CHARS) {
        Some((i, _)) => &h.content[..i],
        None => &h.content,
    };
    format!("{head}\n{body}")
}

/// Reorders the first `top` hits by the reranker's scores (a hit it left
/// unscored goes after the scored ones, in its fused order); the rest keep
/// their order. On an error the hits are left as they were.
pub fn rerank(reranker: &Reranker, query: &str, hits: &mut [Hit], top: usize) -> Result<(), RerankError> {
    let n = hits.len().min(top);
    let passages: Vec<String> = hits[..n].iter().map(passage).collect();
    let order = reranker.order(query, &passages)?;
    let reordered: Vec<Hit> = order
        .iter()
        .enumerate()
        .map(|(rank, &(i, score))| {
            let mut h = hits[i].clone();
            if let Some(s) = score {
                h.score = s;
            }
            h.rank = rank + 1;
            h
        })
        .collect();
    for (slot, h) in hits[..n].iter_mut().zip(reordered) {
        *slot = h;
    }
    Ok(())
}
