//! The fitted ranking stage's weights ([`super::stage`]), one per feature
//! ([`super::stage::FEATURES`]: position, score, bm25, symbol, dense, exact, graph, other_lists, second_of_file, third_of_file, file_support, path_words, stem_words, symbol_word, outline, prose, type_decl, test, aside, span).
//! Written by `scripts/fit-ranking.py fit --write`; do not edit by hand: rerun the script.
//!
//! Fitted at commit 6f9b577783e3 on rank-data-clauses.jsonl: semble's development split
//! (keyword layers) and the dev kit's five corpora (with and without vectors).
//! nDCG@10 in-sample: kit-novec 0.741, kit-vec 0.801, semble 0.755;
//! leave one repository out: kit-novec 0.732, kit-vec 0.793, semble 0.733.

use super::stage::Features;

#[rustfmt::skip]
pub const WEIGHTS: Features = [1.000, 1.200, 0.700, -0.500, 0.900, 0.200, 0.000, -0.700, 0.400, -0.050, 0.200, -0.200, 1.000, -0.200, -0.500, -2.000, -0.550, -2.000, -2.000, 1.100];
