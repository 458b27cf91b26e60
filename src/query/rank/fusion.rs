//! Fusing ranked lists: weighted Reciprocal Rank Fusion, overlap dedup and
//! MMR diversification.

use crate::query::base::parameters::{ANSWER_K, DUPLICATE_OVERLAP, MIN_LIST, MMR_MIN_SCALE, MMR_SAME_FILE, RRF_K, TOP_RANK_BONUS};
use std::collections::{HashMap, HashSet};

use crate::query::answer::explain::{Contribution, Explanation, RankedBy};
use crate::query::answer::{Hit, Retriever};
use crate::query::retrieve::patterns::token_set;

pub fn hit_key(h: &Hit) -> String {
    h.chunk_id.clone().unwrap_or_else(|| format!("{}:{}-{}", h.path, h.start_line, h.end_line))
}

/// Weighted Reciprocal Rank Fusion: each list adds `weight / (k + rank)` to
/// the results it holds (`answer`'s list with [`ANSWER_K`]). A result keeps the form (lines, content) of the list
/// that credited it most, and its rank in every list as signals.
pub fn fuse(lists: &[(Retriever, f32, Vec<Hit>)], k: f32, answer: Option<Retriever>) -> Vec<Hit> {
    fuse_explained(lists, k, answer, false)
}

/// [`fuse`], each result's score explained as its lists' credits when
/// `explain` ([`Explanation`]).
pub fn fuse_explained(lists: &[(Retriever, f32, Vec<Hit>)], k: f32, answer: Option<Retriever>, explain: bool) -> Vec<Hit> {
    let mut fused: HashMap<String, (f32, f32, Hit)> = HashMap::new();
    let mut explained: HashMap<String, Explanation> = HashMap::new();
    for (name, weight, hits) in lists {
        // A retriever weighted below 1 contributes a shorter list: its deep
        // ranks are weak evidence that would otherwise add up across lists.
        let depth = if *weight >= 1.0 { hits.len() } else { ((hits.len() as f32 * weight).round() as usize).max(MIN_LIST) };
        // A list credits each result once, at its best rank (several symbol
        // hits may stand for one chunk).
        let mut credited = HashSet::new();
        let mut rank = 0;
        for h in hits {
            if !credited.insert(hit_key(h)) {
                continue;
            }
            rank += 1;
            if rank > depth {
                break;
            }
            let k = if Some(*name) == answer { ANSWER_K } else { k };
            let contribution = credit(*weight, rank, k);
            // Signals are ranks in these lists only: a list's hits may carry
            // their retriever's own (BM25 of the expanded question marks its
            // `bm25` rank), which would claim a list the result is not in.
            let entry = fused.entry(hit_key(h)).or_insert_with(|| {
                let mut first = h.clone();
                first.signals = Default::default();
                // A symbol list's mark, meant for symbol mode's answer alone.
                first.name_match = false;
                (0.0, -1.0, first)
            });
            entry.0 += contribution;
            if explain {
                let terms = explained.entry(hit_key(h)).or_insert_with(|| Explanation::new(RankedBy::Fusion));
                let bonus = if rank == 1 { 1.0 + TOP_RANK_BONUS } else { 1.0 };
                // `credit`'s product, in its order: the term is the very number added.
                terms.add(Contribution {
                    name: format!("list:{}", name.as_str()),
                    value: bonus / (k + rank as f32),
                    weight: Some(*weight),
                    contribution,
                    rank: Some(rank),
                });
            }
            if contribution > entry.1 {
                let signals = entry.2.signals.clone();
                entry.2 = h.clone();
                entry.2.signals = signals;
                entry.2.name_match = false;
                entry.1 = contribution;
            }
            let s = &mut entry.2.signals;
            let slot = match name {
                Retriever::Bm25 => &mut s.bm25,
                Retriever::Symbol => &mut s.symbol,
                Retriever::Dense => &mut s.dense,
                Retriever::Graph => &mut s.graph,
                Retriever::Patterns => &mut s.patterns,
                Retriever::Exact => &mut s.exact,
                Retriever::Feedback => &mut s.feedback,
                Retriever::Callees => &mut s.callees,
                Retriever::Rerank => continue,
            };
            *slot = Some(rank);
        }
    }
    let mut out: Vec<(String, f32, Hit)> = fused.into_iter().map(|(k, (score, _, h))| (k, score, h)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out.into_iter()
        .enumerate()
        .map(|(i, (key, score, mut h))| {
            h.rank = i + 1;
            h.score = score;
            h.explain = explained.remove(&key).map(Box::new);
            h
        })
        .collect()
}

/// What a list of weight `weight` adds to its result at `rank` (from 1).
pub fn credit(weight: f32, rank: usize, k: f32) -> f32 {
    let bonus = if rank == 1 { 1.0 + TOP_RANK_BONUS } else { 1.0 };
    weight * bonus / (k + rank as f32)
}

/// Two dense lists of one question (its text and its title), fused by rank
/// with equal weight: their similarities come from different vectors and
/// do not compare. Scores are the fused ones.
pub fn fuse_dense(text: Vec<Hit>, title: Vec<Hit>, limit: usize) -> Vec<Hit> {
    let mut out = fuse(&[(Retriever::Dense, 1.0, text), (Retriever::Dense, 1.0, title)], RRF_K, None);
    out.truncate(limit);
    for h in &mut out {
        h.signals.dense = Some(h.rank);
    }
    out
}

/// Drops a result whose lines mostly repeat a better-ranked result of the same file.
pub fn dedup_overlaps(hits: Vec<Hit>) -> Vec<Hit> {
    let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        let repeats = !h.kind.is_outline()
            && kept.iter().any(|k| {
                if k.path != h.path || k.kind.is_outline() {
                    return false;
                }
                let lo = k.start_line.max(h.start_line);
                let hi = k.end_line.min(h.end_line);
                if lo > hi {
                    return false;
                }
                let overlap = (hi - lo + 1) as f32;
                let smaller = ((k.end_line - k.start_line + 1).min(h.end_line - h.start_line + 1)) as f32;
                overlap / smaller.max(1.0) >= DUPLICATE_OVERLAP
            });
        if !repeats {
            kept.push(h);
        }
    }
    kept
}

/// Maximal Marginal Relevance over the fused list: each pick trades its
/// relevance (normalised fused score) against its similarity to what is
/// already picked (Jaccard over code terms; the same file counts extra).
pub fn mmr(hits: Vec<Hit>, lambda: f32, limit: usize) -> Vec<Hit> {
    let lambda = lambda.clamp(0.0, 1.0);
    if hits.len() <= 1 || lambda >= 1.0 {
        return hits;
    }
    let max = hits.iter().map(|h| h.score).fold(f32::MIN, f32::max).max(MMR_MIN_SCALE);
    let terms: Vec<HashSet<String>> = hits.iter().map(|h| token_set(&h.content)).collect();
    let mut remaining: Vec<usize> = (0..hits.len()).collect();
    let mut picked: Vec<usize> = Vec::new();
    while !remaining.is_empty() && picked.len() < limit.max(1) {
        let (pos, _) = remaining
            .iter()
            .enumerate()
            .map(|(pos, &i)| {
                let sim = picked
                    .iter()
                    .map(|&j| {
                        let inter = terms[i].intersection(&terms[j]).count() as f32;
                        let union = terms[i].union(&terms[j]).count().max(1) as f32;
                        let same_file = if hits[i].path == hits[j].path { MMR_SAME_FILE } else { 0.0 };
                        (inter / union + same_file).min(1.0)
                    })
                    .fold(0.0, f32::max);
                (pos, lambda * hits[i].score / max - (1.0 - lambda) * sim)
            })
            .fold((0, f32::MIN), |best, cur| if cur.1 > best.1 { cur } else { best });
        picked.push(remaining.remove(pos));
    }
    picked.extend(remaining);
    let mut slots: Vec<Option<Hit>> = hits.into_iter().map(Some).collect();
    picked
        .into_iter()
        .enumerate()
        .filter_map(|(at, i)| slots[i].take().map(|h| super::files::moved_if(h, at != i, crate::query::answer::explain::Moved::Diversity)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::answer::Signals;

    fn hit(path: &str, s: usize, e: usize, kind: &str, id: &str) -> Hit {
        Hit {
            tie: 0,
            explain: None,
            name_match: false,
            rank: 0,
            path: path.into(),
            start_line: s,
            end_line: e,
            symbol: None,
            kind: crate::analysis::kind::Kind::from_name(kind).expect("a kind"),
            language: crate::analysis::lang::Language::Python,
            score: 0.0,
            content: format!("{path} {s}"),
            signals: Signals::default(),
            source: Default::default(),
            chunk_id: Some(id.into()),
        }
    }

    #[test]
    fn a_list_credit_is_what_it_added() {
        let bm25 = vec![hit("a.py", 1, 5, "function", "x"), hit("b.py", 1, 5, "function", "y"), hit("c.py", 1, 5, "function", "z")];
        let dense = vec![hit("c.py", 1, 5, "function", "z"), hit("a.py", 1, 5, "function", "x")];
        let both = fuse(&[(Retriever::Bm25, 1.0, bm25.clone()), (Retriever::Dense, 0.5, dense)], RRF_K, None);
        let alone = fuse(&[(Retriever::Bm25, 1.0, bm25)], RRF_K, None);
        for h in &both {
            let without = h.score - h.signals.dense.map_or(0.0, |rank| credit(0.5, rank, RRF_K));
            let want = alone.iter().find(|a| a.path == h.path).map(|a| a.score);
            assert!(want.is_some_and(|w| (w - without).abs() < 1e-6), "{}: {without} vs {want:?}", h.path);
        }
    }

    #[test]
    fn rrf_adds_weighted_ranks_and_keeps_signals() {
        let a = vec![hit("a.py", 1, 5, "function", "x"), hit("b.py", 1, 5, "function", "y")];
        let b = vec![hit("b.py", 1, 5, "function", "y"), hit("c.py", 1, 5, "function", "z")];
        let fused = fuse(&[(Retriever::Bm25, 1.0, a), (Retriever::Dense, 1.0, b)], RRF_K, None);
        assert_eq!(fused[0].path, "b.py");
        assert_eq!(fused[0].signals.bm25, Some(2));
        assert_eq!(fused[0].signals.dense, Some(1));
        assert!((fused[0].score - (1.0 / 62.0 + (1.0 + TOP_RANK_BONUS) / 61.0)).abs() < 1e-6);
        // A heavier list wins ties of rank.
        let fused = fuse(
            &[(Retriever::Bm25, 1.0, vec![hit("a.py", 1, 5, "function", "x")]), (Retriever::Dense, 2.0, vec![hit("c.py", 1, 5, "function", "z")])],
            RRF_K,
            None,
        );
        assert_eq!(fused[0].path, "c.py");
        // One retriever's first answer beats a second place seconded by a
        // light retriever.
        let sure = vec![hit("s.py", 1, 5, "function", "s"), hit("t.py", 1, 5, "function", "t")];
        let fused = fuse(&[(Retriever::Bm25, 1.0, sure), (Retriever::Dense, 0.3, vec![hit("t.py", 1, 5, "function", "t")])], RRF_K, None);
        assert_eq!(fused[0].path, "s.py");
    }

    #[test]
    fn signals_name_only_the_lists_a_result_is_in() {
        // BM25 of an expanded question marks its hits' `bm25` rank itself.
        let mut expanded = hit("a.py", 1, 5, "function", "x");
        expanded.signals.bm25 = Some(2);
        let fused = fuse(
            &[(Retriever::Feedback, 1.0, vec![hit("b.py", 1, 5, "function", "y"), expanded]), (Retriever::Bm25, 1.0, vec![hit("c.py", 1, 5, "function", "z")])],
            RRF_K,
            None,
        );
        let a = fused.iter().find(|h| h.path == "a.py").unwrap();
        assert_eq!((a.signals.feedback, a.signals.bm25), (Some(2), None));
    }

    #[test]
    fn the_answering_list_keeps_its_order() {
        let walk = vec![hit("a.py", 1, 5, "function", "a"), hit("b.py", 1, 5, "function", "b"), hit("t.py", 1, 5, "function", "t")];
        let words = vec![hit("t.py", 1, 5, "function", "t")];
        let lists = [(Retriever::Graph, 20.0, walk), (Retriever::Bm25, 1.0, words)];
        let order = |fused: Vec<Hit>| fused.into_iter().map(|h| h.path).collect::<Vec<_>>();
        // As evidence among others, a keyword match lifts the third above the second…
        assert_eq!(order(fuse(&lists, RRF_K, None)), ["a.py", "t.py", "b.py"]);
        // …as the answer, its order stands.
        assert_eq!(order(fuse(&lists, RRF_K, Some(Retriever::Graph))), ["a.py", "b.py", "t.py"]);
    }

    #[test]
    fn overlaps_keep_the_better_ranked() {
        let hits = vec![
            hit("a.py", 10, 30, "function", "1"),
            hit("a.py", 12, 28, "block", "2"),
            hit("a.py", 1, 100, "class", "3"),
            hit("a.py", 40, 50, "method", "4"),
        ];
        let kept: Vec<String> = dedup_overlaps(hits).into_iter().map(|h| h.chunk_id.unwrap()).collect();
        assert_eq!(kept, vec!["1", "3", "4"]);
    }

    #[test]
    fn mmr_spreads_near_duplicates() {
        let mut a = hit("a.py", 1, 5, "function", "1");
        a.content = "def load_config(path): return json.load(path)".into();
        a.score = 1.0;
        let mut b = hit("a.py", 10, 15, "function", "2");
        b.content = "def load_config_file(path): return json.load(path)".into();
        b.score = 0.9;
        let mut c = hit("b.py", 1, 5, "function", "3");
        c.content = "def send_request(session, url): pass".into();
        c.score = 0.8;
        let order: Vec<String> = mmr(vec![a.clone(), b.clone(), c.clone()], 0.5, 3).into_iter().map(|h| h.chunk_id.unwrap()).collect();
        assert_eq!(order, vec!["1", "3", "2"]);
        let order: Vec<String> = mmr(vec![a, b, c], 1.0, 3).into_iter().map(|h| h.chunk_id.unwrap()).collect();
        assert_eq!(order, vec!["1", "2", "3"]);
    }
}
