//! Every number that orders results, each with why it has its value.
//!
//! `question/` says what a question is; this file decides what that weighs.
//! The fitted stage's weights (the block between the `fitted stage` marks)
//! are written by `scripts/fit-ranking.py fit --write`, by feature name: do
//! not edit that block by hand, rerun the script. Everything else here was
//! set by hand, and says what it was measured with.

use super::features::{Feature, PerFeature};
use super::stage::Table;

// ------------------------------------------------------------ fitted stage
// Written by `scripts/fit-ranking.py fit --write` at commit dc3891be2211 on
// rank1.jsonl (from the previous table, moving whole_name,file_named):
// semble's development split (keyword layers) and the dev kit's five
// corpora (with and without vectors).
// nDCG@10 in-sample: kit-novec 0.758, kit-vec 0.813, semble 0.864, semble-vec 0.871;
// leave one repository out: kit-novec 0.756, kit-vec 0.811, semble 0.864, semble-vec 0.871.
// Each weight multiplies its feature's value (`features.rs` says what each measures).
#[rustfmt::skip]
pub const STAGE: Table = Table {
    weights: PerFeature::by_name(&[
        (Feature::Position, 1.000),
        (Feature::Score, 1.000),
        (Feature::Bm25, 0.500),
        (Feature::Symbol, -0.700),
        (Feature::Dense, 0.300),
        (Feature::Exact, 0.800),
        (Feature::Graph, -0.600),
        (Feature::OtherLists, 0.000),
        (Feature::SecondOfFile, 0.300),
        (Feature::ThirdOfFile, 0.000),
        (Feature::FileSupport, 0.250),
        (Feature::PathWords, 0.000),
        (Feature::StemWords, -0.050),
        (Feature::SymbolWord, -0.900),
        (Feature::Outline, -0.700),
        (Feature::Prose, -4.000),
        (Feature::TypeDecl, -0.700),
        (Feature::Test, -4.000),
        (Feature::Aside, -2.000),
        (Feature::Span, 0.500),
        (Feature::NameParts, 2.150),
        (Feature::ChunkWords, 2.000),
        (Feature::FileWords, 1.100),
        (Feature::NameAsWritten, 1.450),
        (Feature::FileNamed, 0.350),
        (Feature::Named, 3.250),
        (Feature::CodeName, 3.000),
        (Feature::Superseded, -6.000),
        (Feature::DeclaresOther, -2.000),
        (Feature::LeadFile, 3.400),
        (Feature::PhrasePath, 4.800),
        (Feature::FirstDefinition, 1.500),
        (Feature::WholeName, 2.000),
        (Feature::TopicFile, 1.350),
    ]),
    repeat_of_file: 0.000,
};
// ------------------------------------------------------------ end of fitted stage
