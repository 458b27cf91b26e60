//! The fitted ranking stage's weights ([`super::stage`]), one per feature
//! ([`super::stage::FEATURES`]: position, score, bm25, symbol, dense, exact, graph, other_lists, second_of_file, third_of_file, file_support, path_words, stem_words, symbol_word, outline, prose, type_decl, test, aside, span, name_parts, chunk_words, file_words).
//! Written by `scripts/fit-ranking.py fit --write`; do not edit by hand: rerun the script.
//!
//! Fitted at commit 87465a6440a3 on rank-e.jsonl: semble's development split
//! (keyword layers) and the dev kit's five corpora (with and without vectors).
//! nDCG@10 in-sample: kit-novec 0.750, kit-vec 0.813, semble 0.773;
//! leave one repository out: kit-novec 0.746, kit-vec 0.803, semble 0.755.

use super::stage::Features;

#[rustfmt::skip]
pub const WEIGHTS: Features = [1.000, 0.900, 1.000, -0.300, 0.250, 0.150, -0.100, 0.000, 0.000, -0.400, 0.200, 0.950, 0.800, -0.200, -1.000, -4.000, -1.000, -4.000, 0.000, 0.500, 0.550, 1.000, 2.000];
