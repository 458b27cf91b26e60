//! The fitted stage's features ([`crate::query::rank::stage`]): each one a variant of
//! [`Feature`] with its name (the one the JSON, `--explain` and
//! `scripts/fit-ranking.py` use), whether it speaks of a chunk or of its
//! whole file, and what it measures; its value is computed by
//! [`crate::query::rank::stage`]'s `Feature::value`, one arm per feature. Values and
//! weights are kept by feature ([`PerFeature`]), never by position.
//!
//! Adding a feature: a line here, its arm in `Feature::value`, and a weight
//! in [`super::parameters`] (0 until the fitting script gives it one).

use std::ops::{Index, IndexMut};

/// What a feature speaks of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// One candidate chunk.
    Chunk,
    /// The candidate's whole file: kept on the file's best candidate only
    /// (lifting the file once, as one result, not all its chunks).
    File,
}

macro_rules! features {
    ($($(#[doc = $doc:literal])+ $variant:ident = $name:literal, $scope:ident;)+) => {
        /// A feature of the fitted stage: see the module's documentation.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Feature {
            $($(#[doc = $doc])+ $variant,)+
        }

        impl Feature {
            /// Every feature, in the order of [`PerFeature`]'s slots.
            pub const ALL: &'static [Feature] = &[$(Feature::$variant),+];
            /// How many features there are.
            pub const COUNT: usize = Feature::ALL.len();

            /// The feature's name, as the JSON and the fitting script write it.
            pub const fn name(self) -> &'static str {
                match self {
                    $(Feature::$variant => $name,)+
                }
            }

            /// What the feature measures, in one line.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Feature::$variant => concat!($($doc),+),)+
                }
                .trim()
            }

            /// Whether it speaks of a chunk or of its file.
            pub const fn scope(self) -> Scope {
                match self {
                    $(Feature::$variant => Scope::$scope,)+
                }
            }
        }
    };
}

features! {
    /// 1/rank in the fused list (alone: the fused order).
    Position = "position", Chunk;
    /// The fused score, over the best one's.
    Score = "score", Chunk;
    /// 1/rank in the BM25 list (0: not in it).
    Bm25 = "bm25", Chunk;
    /// 1/rank in the symbol list.
    Symbol = "symbol", Chunk;
    /// 1/rank in the dense (vector) list.
    Dense = "dense", Chunk;
    /// 1/rank in the exact-literal list.
    Exact = "exact", Chunk;
    /// 1/rank in the graph list.
    Graph = "graph", Chunk;
    /// 1/rank in the best of the feedback, callees and patterns lists.
    OtherLists = "other_lists", Chunk;
    /// The file's second chunk in the list.
    SecondOfFile = "second_of_file", Chunk;
    /// The file's third chunk or a later one.
    ThirdOfFile = "third_of_file", Chunk;
    /// How many of the file's chunks are candidates (up to 5).
    FileSupport = "file_support", Chunk;
    /// Share of the question's words in the path.
    PathWords = "path_words", Chunk;
    /// Share of the question's words in the file name.
    StemWords = "stem_words", Chunk;
    /// The definition's own name is one of the question's words.
    SymbolWord = "symbol_word", Chunk;
    /// A file outline or a whole module.
    Outline = "outline", Chunk;
    /// A Markdown section or a paragraph of text.
    Prose = "prose", Chunk;
    /// A class, interface, enum or type.
    TypeDecl = "type_decl", Chunk;
    /// Test code, by its path.
    Test = "test", Chunk;
    /// Examples, demos, shims, vendored code, `.d.ts`.
    Aside = "aside", Chunk;
    /// How many lines the chunk shows (log scale, 1 at 200).
    Span = "span", Chunk;
    /// Share of the question's words that are (prefixes of) the parts of the file's and its folder's names.
    NameParts = "name_parts", Chunk;
    /// Share of the question's words the chunk holds.
    ChunkWords = "chunk_words", Chunk;
    /// Share of the question's words the chunk's file holds, in any of its chunks.
    FileWords = "file_words", Chunk;
    /// The question writes the definition's name, letter case and all: its own name or its qualified name (`Invoice.tax`, not the class `Invoice`).
    NameAsWritten = "name_as_written", Chunk;
    /// The file's name (without extensions) is a word of the question: `Request` -> Request.php, "the router" -> router.js.
    FileNamed = "file_named", Chunk;
    /// 1/rank among the files the question's words name, whose outline joined the candidates.
    Named = "named", Chunk;
    /// The question writes a code-shaped name (`snake_case`, `camelCase`, `Foo::bar`) that this candidate defines, and no other file of the pool does.
    CodeName = "code_name", Chunk;
    /// In a version folder the code has moved on from (`v1/` beside `v2/` or the current code), not asked for.
    Superseded = "superseded", Chunk;
    /// A header, stub or interface whose implementation's file is in the pool too (`connect.h` beside `connect.c`).
    DeclaresOther = "declares_other", Chunk;
    /// A short topical question's first word (not the project's name) is the file's name (`Job interface and its lifecycle` -> Job.kt), on the file's first candidate.
    LeadFile = "lead_file", Chunk;
    /// A short topical question's subject names the file's folder and a later word the file (`engine configuration and load paths` -> engine/configuration.rb), on the file's first candidate.
    PhrasePath = "phrase_path", Chunk;
    /// Of the several files of the pool that define the bare name a question is, the one the symbol list puts first (nearer the root, the most used).
    FirstDefinition = "first_definition", Chunk;
    /// Every part of the file's own name is one a question word (not the project's name) names, loosely (`routing` -> Router.php), times file_words; not a name several folders of the pool share.
    WholeName = "whole_name", File;
    /// A short topical question: its file's BM25 as a whole file over the pool's best.
    TopicFile = "topic_file", File;
}

impl Feature {
    /// The feature named `name`, if there is one.
    pub fn named(name: &str) -> Option<Feature> {
        Feature::ALL.iter().copied().find(|f| f.name() == name)
    }
}

/// What the feature named `name` measures, if it is one.
pub fn meaning_of(name: &str) -> Option<&'static str> {
    Feature::named(name).map(Feature::meaning)
}

/// One value per feature, kept by feature: a candidate's values, or the
/// stage's weights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerFeature([f32; Feature::COUNT]);

impl PerFeature {
    /// Every value 0.
    pub const ZERO: PerFeature = PerFeature([0.0; Feature::COUNT]);

    /// A table written by name, every feature once: a feature left out or
    /// named twice fails to compile where the table is a constant.
    pub const fn by_name(pairs: &[(Feature, f32)]) -> PerFeature {
        let mut values = [0.0; Feature::COUNT];
        let mut seen = [false; Feature::COUNT];
        let mut i = 0;
        while i < pairs.len() {
            let slot = pairs[i].0 as usize;
            assert!(!seen[slot], "a feature is weighed twice");
            seen[slot] = true;
            values[slot] = pairs[i].1;
            i += 1;
        }
        let mut j = 0;
        while j < Feature::COUNT {
            assert!(seen[j], "a feature has no weight");
            j += 1;
        }
        PerFeature(values)
    }

    /// Each feature with its value, in [`Feature::ALL`]'s order.
    pub fn iter(&self) -> impl Iterator<Item = (Feature, f32)> + '_ {
        Feature::ALL.iter().copied().zip(self.0.iter().copied())
    }

    /// The sum of value × weight over the features of `scope` (every one
    /// with `None`), in [`Feature::ALL`]'s order: the order fixes the
    /// float sum, so an explanation adds up to the very score ranked by.
    pub fn weighed(&self, weights: &PerFeature, scope: Option<Scope>) -> f32 {
        self.iter().filter(|(f, _)| scope.is_none_or(|s| f.scope() == s)).map(|(f, v)| v * weights[f]).sum()
    }
}

impl Index<Feature> for PerFeature {
    type Output = f32;
    fn index(&self, feature: Feature) -> &f32 {
        &self.0[feature as usize]
    }
}

impl IndexMut<Feature> for PerFeature {
    fn index_mut(&mut self, feature: Feature) -> &mut f32 {
        &mut self.0[feature as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_feature_has_a_distinct_snake_case_name_and_a_meaning() {
        let mut names: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
        for (f, name) in Feature::ALL.iter().zip(&names) {
            assert!(name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'), "{name}");
            assert!(!f.meaning().is_empty() && f.meaning().ends_with('.'), "{name}: {}", f.meaning());
            assert_eq!(Feature::named(name), Some(*f));
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Feature::COUNT);
    }
}
