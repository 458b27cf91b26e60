//! The fitted ranking stage's weights ([`super::stage`]), one per feature
//! ([`super::stage::FEATURES`]: position, score, bm25, symbol, dense, exact, graph, other_lists, second_of_file, third_of_file, file_support, path_words, stem_words, symbol_word, outline, prose, type_decl, test, aside, span, name_parts, chunk_words, file_words, name_as_written, file_named, named, code_name, superseded, declares_other, lead_file, phrase_path, first_definition, whole_name, topic_file).
//! Written by `scripts/fit-ranking.py fit --write`; do not edit by hand: rerun the script.
//!
//! Fitted at commit dc3891be2211 on rank1.jsonl (from the previous table, moving whole_name,file_named): semble's development split
//! (keyword layers) and the dev kit's five corpora (with and without vectors).
//! nDCG@10 in-sample: kit-novec 0.758, kit-vec 0.813, semble 0.864, semble-vec 0.871;
//! leave one repository out: kit-novec 0.756, kit-vec 0.811, semble 0.864, semble-vec 0.871.

use super::stage::Table;

#[rustfmt::skip]
pub const TABLE: Table = Table {
    weights: [1.000, 1.000, 0.500, -0.700, 0.300, 0.800, -0.600, 0.000, 0.300, 0.000, 0.250, 0.000, -0.050, -0.900, -0.700, -4.000, -0.700, -4.000, -2.000, 0.500, 2.150, 2.000, 1.100, 1.450, 0.350, 3.250, 3.000, -6.000, -2.000, 3.400, 4.800, 1.500, 2.000, 1.350],
    repeat_of_file: 0.000,
};
