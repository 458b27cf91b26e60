//! Every number that orders results, each with why it has its value: the
//! retrievers' scores, the lists each kind of question calls for and their
//! weights, fusion, the priors, the files a question names, the graph's
//! subjects and the fitted stage. The architecture test holds every other
//! file of `src/query/` to no float literal but 0 and 1.
//!
//! `question/` says what a question is; this file decides what that weighs.
//! It (and [`super::features`]) is the base layer of `src/query/`: every
//! layer may read it, and it reads nothing of them.
//!
//! The fitted stage's weights (the block between the `fitted stage` marks)
//! are written by `scripts/fit-ranking.py fit --write`, by feature name: do
//! not edit that block by hand, rerun the script. Everything else here was
//! set by hand, and says what it was measured with ("the kit": the dev
//! kit's corpora; "the Rust/Go corpora": two more it had then; "SWE-bench
//! dev": its development split of issue reports).

use std::ops::RangeInclusive;

use serde::Serialize;

use super::features::{Feature, PerFeature};
use crate::stores::history::FieldWeights;

// ------------------------------------------------------------ the lists a question calls for

/// Weight of each retriever's list in the fusion, by what the question is
/// (`question::intent::classify` picks the row).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Weights {
    pub bm25: f32,
    pub symbol: f32,
    pub dense: f32,
    pub graph: f32,
}

/// BM25 is the strongest single retriever on code; the others are weighted
/// by how much the question's form says they can add. A name looked up:
/// the symbol list counts as much as BM25.
pub const IDENTIFIER_LISTS: Weights = Weights { bm25: 1.0, symbol: 1.0, dense: 0.3, graph: 0.0 };
/// A few plain words.
pub const KEYWORD_LISTS: Weights = Weights { bm25: 1.0, symbol: 0.3, dense: 0.35, graph: 0.0 };
/// A question in words: meaning (vectors) counts as much as words.
pub const CONCEPT_LISTS: Weights = Weights { bm25: 1.0, symbol: 0.2, dense: 1.0, graph: 0.0 };
/// Words and code together.
pub const MIXED_LISTS: Weights = Weights { bm25: 1.0, symbol: 0.6, dense: 0.5, graph: 0.0 };
/// A graph question: its walk is the answer ([`ANSWER_K`]); the word lists
/// only reorder it where it is flat.
pub const GRAPH_LISTS: Weights = Weights { bm25: 0.5, symbol: 0.3, dense: 0.3, graph: 20.0 };
/// An issue report: its words and meaning; the names it writes only when
/// it writes some ([`DOCUMENT_SYMBOL_LIST`]).
pub const DOCUMENT_LISTS: Weights = Weights { bm25: 1.0, symbol: 0.0, dense: 0.5, graph: 0.0 };
/// The symbol list of an issue report that names code.
pub const DOCUMENT_SYMBOL_LIST: f32 = 0.5;

/// The weight of chunks holding a literal of the query as written: a
/// verbatim match outranks what every other retriever agrees on.
pub const EXACT_WEIGHT: f32 = 3.0;
/// An issue report quotes messages it saw, some of which the code formats
/// from parts: one list among the others.
pub const EXACT_DOCUMENT_WEIGHT: f32 = 1.0;
/// The project's conventions, when the question asks for them ("how does
/// this project log errors"): the answer itself.
pub const PATTERNS_ASKED: f32 = 2.0;
/// Conventions matched by a concept question's meaning, not asked for.
pub const PATTERNS_UNASKED: f32 = 0.3;

/// A concept question's best candidates (fused from every other list) whose
/// callees are counted, and the weight of that list. Measured on the kit
/// and the Rust/Go corpora (hybrid nDCG@10, concept / multi-part questions):
/// 0.601 / 0.497 -> 0.618 / 0.515, all 273 queries 0.740 -> 0.749; 5 or 15
/// seeds and weights 0.3 / 0.7 gained less or the same; ordered by how
/// often, then by callers' rank instead of size: less. Keyword-like
/// questions and issue reports lose with it (kit keyword type mixed, SWE-bench
/// dev line Acc@10 0.681 -> 0.617): concept questions only.
pub const CALLEE_SEEDS: usize = 10;
pub const CALLEE_WEIGHT: f32 = 0.5;
/// Callees listed at most: fusion reads the first ten of a list weighted
/// 0.5 (20 or 30 measured the same on the kit; each costs a lookup).
pub const CALLEE_DEPTH: usize = 20;

/// The best candidate of a concept question, when it calls at least two of
/// the first [`STEPS_POOL`] others, drives what the question asks about; the
/// list holds it, then them in their fused order. Measured on the kit and
/// the Rust/Go corpora (hybrid nDCG@10, weight 1.0): concept 0.653 ->
/// 0.656, multi-part 0.619 -> 0.631. Weights 0.3 / 0.5 / 2.0 gained less;
/// the driver sought among the best two or five, or a pool of 20: less, or
/// a loss.
pub const STEPS_POOL: usize = 40;
pub const STEPS_WEIGHT: f32 = 1.0;

/// A concept question's first dense result, when it stands out from the
/// second by more than [`SURE_MARGIN`] in cosine similarity, is a list of
/// its own weighing up to [`SURE_WEIGHT`] (full at [`SURE_MARGIN`] +
/// [`SURE_RAMP`]). RRF weighs a rank the same whatever the gap behind it,
/// and the gap is calibrated evidence: on the kit and the Rust/Go corpora
/// (semantic mode, concept and multi-part questions) the first was
/// relevant for 88% of those with a gap of 0.08 or more and 25% under 0.01,
/// where hybrid's first was relevant for 76%. Measured (hybrid nDCG@10):
/// concept 0.660 -> 0.668, all 273 queries 0.787 -> 0.790. A margin of
/// 0.05 gained less (concept 0.664); applied to questions listing items
/// too, multi-part fell 0.631 -> 0.626.
pub const SURE_MARGIN: f32 = 0.04;
pub const SURE_RAMP: f32 = 0.05;
pub const SURE_WEIGHT: f32 = 1.0;
/// The sure list's weight goes in these steps (tenths): the last bits of a
/// cosine differ between ONNX Runtime sessions (the CLI's and the MCP
/// server's), and the answer must not.
pub const SURE_WEIGHT_STEPS: f32 = 10.0;

/// The weight of a looked-up name's direct callers: after the definition
/// itself, where it is used is what the reader wants next.
pub const USAGE_WEIGHT: f32 = 0.3;
/// Callers of a looked-up name fused at most.
pub const USAGE_DEPTH: usize = 5;

/// Definitions whose names a concept question's expansion takes from the
/// dense list (pseudo-relevance feedback). Measured on the kit and the
/// Rust/Go corpora (hybrid nDCG@10): concept up on all five corpora
/// (+0.002…+0.051), overall 0.725 -> 0.739; 2 or 3 names gained less.
pub const FEEDBACK_NAMES: usize = 4;

// ------------------------------------------------------------ fusion

/// RRF's k: ranks deep in a list still count, but the top dominates.
pub const RRF_K: f32 = 60.0;
/// Extra credit for each retriever's first result. With k = 60, rank 1 is
/// worth barely more than rank 5, so a chunk one retriever was sure of lost
/// to chunks two retrievers placed mid-list (measured on the kit: +0.008
/// nDCG@10, +0.018 MRR, recall unchanged).
pub const TOP_RANK_BONUS: f32 = 0.5;
/// RRF's k for the list that answers the question (a graph question's walk,
/// nearest first): its order is the answer's, which the other lists should
/// reorder only where it is flat. With k = 60 a test that calls the subject
/// and matches its name in every keyword list rose above the production
/// callers (graph questions of the kit and the Rust/Go corpora: hybrid
/// nDCG@10 0.937 -> 0.940, and no query below graph mode alone; k from 3 to
/// 30 measured the same).
pub const ANSWER_K: f32 = 20.0;
/// The shortest list a retriever contributes, however light its weight (a
/// list weighted below 1 contributes that share of its depth: its deep
/// ranks are weak evidence that would otherwise add up across lists).
pub const MIN_LIST: usize = 10;
/// A result whose lines repeat this share of a better one's of the same
/// file (of the smaller of the two) is dropped.
pub const DUPLICATE_OVERLAP: f32 = 0.5;
/// `--diversity`: what two chunks of one file count as similar beyond
/// their words.
pub const MMR_SAME_FILE: f32 = 0.2;
/// `--diversity`: the least best score relevance is scaled by (a list of
/// zero scores).
pub const MMR_MIN_SCALE: f32 = 1e-9;

// ------------------------------------------------------------ priors

/// A result's weight by its file's role against an issue report (prose
/// about code: prose files match its words without being its answer).
pub const DOCUMENT_TEST_FILE: f32 = 0.5;
pub const DOCUMENT_DOCS_FILE: f32 = 0.5;
/// Changelogs, issue templates, CI, configuration and vendored code
/// against an issue report.
pub const DOCUMENT_OTHER_FILE: f32 = 0.3;
/// Configuration against a short question (tests and docs are weighed
/// inside its lists).
pub const CONFIG_FILE: f32 = 0.8;
/// Changelogs, templates, CI and vendored code against a short question.
pub const OTHER_FILE: f32 = 0.6;

/// What a result that describes rather than does weighs against a question
/// about behaviour (test code, type declarations). Of the first 20 results
/// on the kit and the Rust/Go corpora, test code was 0 of 207 relevant ones
/// for concept questions and 0 of 103 for keyword ones, types 2 of 135 and
/// 0 of 59. Measured (hybrid nDCG@10): concept 0.634 -> 0.652, multi-part
/// 0.607 -> 0.614, keyword 0.854 -> 0.875, symbol 0.950 -> 0.951, all 273
/// queries 0.768 -> 0.780.
pub const DESCRIBES_WEIGHT: f32 = 0.5;

// ------------------------------------------------------------ the files a question names

/// Chunks of a file that count towards its score (`--files`), best first;
/// the next ones are worth [`FILE_CHUNK_DECAY`] each, so they only break
/// ties. Summing a file's chunks favoured big files that match everywhere:
/// on SWE-bench dev, ranking files by their best chunk gave file Acc@1 0.64
/// against 0.53 for a sum halving each next chunk.
pub const COUNTED_CHUNKS: usize = 3;
pub const FILE_CHUNK_DECAY: f32 = 0.01;
/// Chunks shown per file (`--files`; an issue report's chunks grouped by file).
pub const CHUNKS_PER_FILE: usize = 3;
/// A file the query names (a path, a stack frame) gains this many times the
/// best file's own evidence.
pub const MENTION_WEIGHT: f32 = 1.0;
/// Chunks of a named file lifted in a list of chunks (each file's best few).
pub const LIFTED_PER_FILE: usize = 2;
/// How surely a mention that shares only the file's name names a file in a
/// folder (a bare `main.py` for `src/_pytest/main.py`; a shared folder too: 1).
pub const NAME_ONLY_MENTION: f32 = 0.5;
/// Stack frames in the repository, innermost first, count this much less
/// each (the innermost is where the error was raised), down to the floor.
pub const FRAME_DECAY: f32 = 0.2;
pub const FRAME_FLOOR: f32 = 0.4;
/// A dotted module name (`sphinx.ext.napoleon`) names its file less surely
/// than a path.
pub const MODULE_STRENGTH: f32 = 0.5;
/// How surely an issue report names an identifier, by where it writes it:
/// a code-shaped name in a code span, a plain word in one, a code-shaped
/// name in its prose, one in its pasted code (a reproduction uses the API
/// the issue is about, and much else).
pub const CODE_SPAN_NAME: f32 = 0.9;
pub const CODE_SPAN_WORD: f32 = 0.7;
pub const PROSE_NAME: f32 = 0.6;
pub const FENCED_NAME: f32 = 0.4;
/// What a file's folder counts, against its own name, when a question's
/// word names a part of it (`retrieve::paths::named_files`).
pub const FOLDER_PART: f32 = 0.5;

// ------------------------------------------------------------ the retrievers' own scores

/// BM25's field weights: a word in a definition's name says more than one
/// in its body, one in the path less.
pub const SYMBOL_TEXT_BOOST: f32 = 2.0;
pub const PATH_TEXT_BOOST: f32 = 0.5;
/// A question word that is a symbol's whole name: code-shaped, or the
/// question's only word.
pub const CODE_NAME_BOOST: f32 = 8.0;
/// A plain word of several that is a symbol's whole name.
pub const WORD_NAME_BOOST: f32 = 1.5;
/// Test code in the keyword lists, unless the question asks about tests.
pub const TEST_WEIGHT: f32 = 0.6;
/// A whole-file chunk (an outline) in the keyword lists: useful, rarely the answer.
pub const OUTLINE_WEIGHT: f32 = 0.5;
/// Prose (Markdown sections, text) answers fewer questions about code.
pub const PROSE_WEIGHT: f32 = 0.8;
/// Prose chunks against an issue report: its words are mostly prose too,
/// so docs and changelogs would outrank the code it is about.
pub const DOCUMENT_PROSE_WEIGHT: f32 = 0.4;
/// The weight of a document's term that appears only in its code fences
/// (a reproduction, a log, a listing): measured on SWE-bench dev,
/// 0.4–0.7 all gain over 1.0 (file Acc@5 0.83 -> 0.85, function Acc@5 0.41 -> 0.50).
pub const FENCED_TERM_WEIGHT: f32 = 0.5;
/// The BM25 weight of a chunk that is mostly imports, against a document.
pub const IMPORT_BLOCK_WEIGHT: f32 = 0.5;
/// The BM25 weight of a chunk of minified code.
pub const MINIFIED_WEIGHT: f32 = 0.3;
/// A line longer than this is generated, not written.
pub const MINIFIED_LINE: usize = 500;

/// How much a hit from each dense collection counts: a chunk is the answer
/// itself; a symbol header points at its definition; a file outline is a
/// broad match.
pub const SEMANTIC_WEIGHT: f32 = 1.0;
pub const SYMBOL_WEIGHT: f32 = 0.97;
pub const FILE_WEIGHT: f32 = 0.9;
/// Tests and prose weigh less in the dense list unless the query asks about
/// them (as in keyword mode, scaled to cosine similarities).
pub const DENSE_TEST_WEIGHT: f32 = 0.93;
pub const DENSE_PROSE_WEIGHT: f32 = 0.93;

/// The symbol list's scores, by how a definition's name matches a word: its
/// qualified name in any case, its own name in any case, the last part of a
/// dotted word, its qualified name as written, or a prefix. An exact name
/// scores at least [`SYMBOL_NAME_MATCH`]; prefix and token matches below.
pub const QUALIFIED_ANY_CASE: f32 = 100.0;
pub const NAME_ANY_CASE: f32 = 60.0;
pub const SYMBOL_NAME_MATCH: f32 = 30.0;
pub const QUALIFIED_AS_WRITTEN: f32 = 20.0;
pub const NAME_PREFIX: f32 = 20.0;

/// A convention's uses, beside the words it shares with the question: a
/// tie breaker (log scale).
pub const PATTERN_USES: f32 = 0.05;

/// BM25's parameters for a whole file in the stage (`topic_file`), as
/// tantivy's for chunks.
pub const BM25_K1: f32 = 1.2;
pub const BM25_B: f32 = 0.75;
/// The smoothing of a term's rarity among a listing's candidates (BM25's idf).
pub const IDF_SMOOTHING: f32 = 0.5;

// ------------------------------------------------------------ the graph's subjects

/// A graph question's subject, by how a definition matches its word: a file
/// it names, the qualified name as written, in another case, the own name,
/// a looser match; the best tier wins. Each other word of the question in
/// the path or name adds 1, test code loses 1, and a definition of the kind
/// the relation walks (a callable for callers, a type for implementers)
/// gains [`SUBJECT_FITS_RELATION`].
pub const SUBJECT_FILE: f32 = 5.0;
pub const SUBJECT_QUALIFIED: f32 = 3.0;
pub const SUBJECT_ANY_CASE: f32 = 2.5;
pub const SUBJECT_OWN_NAME: f32 = 2.0;
pub const SUBJECT_LOOSE: f32 = 1.5;
pub const SUBJECT_FITS_RELATION: f32 = 0.5;

// ------------------------------------------------------------ the stage's features

/// Candidates the stage re-scores (the fused list's head, and the files the
/// question names); the rest follow.
pub const STAGE_POOL: usize = 40;

// The gates inside the stage's features, each kept for what removing it
// costs leave one repository out (2026-12-02: the features collected with
// the gate removed, the weights of the features it gates refitted on the
// other repositories from the shipped table, each repository scored with
// the weights of the others; nDCG@10 kit without vectors / with vectors /
// semble's dev split, kept -> removed; SWE-bench dev's issue reports skip the
// stage). A gate whose removal changed no question was removed: a
// `deprecated/`, `legacy/`, `obsolete/` or `old/` folder as superseded.
//
// - `TOPICAL_WORDS` (a topical phrase of 3 to 6 content words, not a name):
//   0.758 / 0.813 / 0.863 -> 0.754 / 0.807 / 0.854.
// - the project's own name names no file (`lead_file`, `phrase_path`,
//   `whole_name`): 0.758 / 0.813 / 0.863 -> 0.758 / 0.810 / 0.841.
// - a version folder beside a newer one or the current code is superseded:
//   semble 0.864 -> 0.859 (zod 0.701 -> 0.588, pydantic 0.726 -> 0.718: the
//   two dev repositories with such folders), the kit unchanged.
// - `lead_file` and `phrase_path` on a file's first candidate only:
//   0.758 / 0.813 / 0.863 -> 0.758 / 0.812 / 0.859.
// - `whole_name` not for a name files of several folders share:
//   0.758 / 0.813 / 0.864 -> 0.758 / 0.810 / 0.864.
// - `first_definition` for a bare name only (whose symbol list is ordered
//   so): 0.758 / 0.813 / 0.864 -> 0.757 / 0.810 / 0.859.
// - `code_name` for a code-shaped name only: 0.759 / 0.812 / 0.865 ->
//   0.756 / 0.812 / 0.865; and only where one file of the pool defines it:
//   semble 0.865 -> 0.862, the kit unchanged.

/// A short topical phrase (not one identifier, not a long description of
/// one behaviour) has this many content words: `lead_file`, `phrase_path`
/// and `topic_file` read only such a question (kept: above).
pub const TOPICAL_WORDS: RangeInclusive<usize> = 3..=6;
/// `span` is 1 at this many lines (log scale).
pub const SPAN_FULL_LINES: f32 = 200.0;
/// `file_support` counts a file's other candidates up to this many.
pub const FILE_SUPPORT_CAP: usize = 4;

/// The stage's parameters, all fitted (`fit-ranking.py`).
pub struct Table {
    /// One weight per feature.
    pub weights: PerFeature,
    /// What a candidate loses for each chunk of its file placed above it in
    /// the new order: a short question's ten results should not all be one
    /// file's, yet a file that answers twice may show it.
    pub repeat_of_file: f32,
}

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

// ------------------------------------------------------------ the history (`git rag history`)

/// Where a question's words are looked for in a commit, and how much a
/// match counts. The subject is the author's one-line summary: a word there
/// says more than one in the body; the body (the why) and the changed lines
/// (the what: constants, names, messages) count alike; a path's words as
/// much, since users name the file or module. Set by hand, before the
/// history kit (`scripts/history-kit/`) was scored.
pub const HISTORY_FIELDS: FieldWeights = FieldWeights { subject: 2.0, body: 1.0, lines: 1.0, paths: 1.0 };
/// A commit's files shown (the answer says how many it changed).
pub const HISTORY_FILES_SHOWN: usize = 30;
/// Changed lines shown per commit: enough to see the change's words in context.
pub const HISTORY_LINES_SHOWN: usize = 8;
/// A message body is cut here (a pull request's template can run to pages).
pub const HISTORY_BODY_CHARS: usize = 1_200;

// The history as evidence of an issue report's files (`query::rank::history`).
// Fitted on change notes mined from repositories no benchmark holds (a
// note a fix added, asked of the repository; its answer the fix's code
// files), held out by repository, by `scripts/fit-history-evidence.py`.

/// The past commits read: the first ones the history store ranks. Chosen
/// with the two below from 10, 20 or 50 commits, weights 0 to 0.08 and
/// breadths 0, 0.5 and 1 (2,412 notes of 26 repositories; 14 of the 26
/// held-out fits chose these three).
pub const HISTORY_EVIDENCE_COMMITS: usize = 20;
/// How much a file's evidence (its summed shares: 1 for the best commit's
/// only file) counts against its place, 1/(RRF_K + rank), which falls by
/// 0.0002 to 0.0003 a place in the first ten: the best commit's only file
/// moves up about eight places.
pub const HISTORY_EVIDENCE_WEIGHT: f32 = 0.002;
/// A commit's share is divided by its file count to this power: a commit
/// of many files says less of each.
pub const HISTORY_EVIDENCE_BREADTH: f32 = 0.5;
