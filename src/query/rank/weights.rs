//! The fitted ranking stage's weights ([`super::stage`]), one per feature
//! ([`super::stage::FEATURES`]: position, score, bm25, symbol, dense, exact, graph, other_lists, second_of_file, third_of_file, file_support, path_words, stem_words, symbol_word, outline, prose, type_decl, test, aside, span, name_parts, chunk_words, file_words, name_as_written).
//! Written by `scripts/fit-ranking.py fit --write`; do not edit by hand: rerun the script.
//!
//! Fitted at commit 6b175749e4ae on rank-h.jsonl: semble's development split
//! (keyword layers) and the dev kit's five corpora (with and without vectors).
//! nDCG@10 in-sample: kit-novec 0.755, kit-vec 0.812, semble 0.777;
//! leave one repository out: kit-novec 0.748, kit-vec 0.806, semble 0.755.

use super::stage::Features;

#[rustfmt::skip]
pub const WEIGHTS: Features = [1.000, 0.900, 0.800, -0.600, 0.950, 0.150, -0.400, 0.000, 0.500, -0.050, 0.200, 0.950, 0.950, -0.450, -0.950, -2.000, -0.600, -4.000, 0.000, 0.500, 0.500, 1.000, 2.000, 1.100];
