//! Why a result ranks where it does (`git rag query --explain`, `explain:
//! true` over MCP and HTTP): the score it was ordered by, as the sum of
//! named contributions, each a value times its weight — the same numbers
//! the ranking used, recorded while it ran, not recomputed after.
//!
//! Invariant: every [`Explanation`]'s contributions sum to its `score` (to
//! float rounding where a multiplicative prior is written as a term), and
//! each contribution is its `value` times its `weight`.

use serde::Serialize;

/// What put a result where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RankedBy {
    /// One retriever's own score (a mode other than hybrid).
    Retriever,
    /// The fused lists, the priors and the files the question names.
    Fusion,
    /// The ranking stage's fitted table over its features
    /// (`query::base::features`); `fused` explains the fused score it read.
    Stage,
    /// Kept where fusion put it: found by the question's structure alone
    /// (`callees`, `patterns`), which no feature of the stage explains.
    Structure,
}

/// A step that moved a result without scoring it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Moved {
    /// An issue report's chunks, grouped under their files.
    GroupedByFile,
    /// The best answer to an item the question lists, lifted to the top.
    ListedItem,
    /// `--diversity`: placed against its similarity to those above it.
    Diversity,
    /// An issue report's file, placed by what past commits like the report
    /// changed (`history` holds its evidence).
    ByHistory,
}

/// One term of a score.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Contribution {
    /// What it is: a feature's name, `intent_<intent>`,
    /// `list:<retriever>`, `prior:role`, `prior:kind`, `named_by_question`,
    /// `repeat_of_file`.
    pub name: String,
    pub value: f32,
    /// Every term today has one; the JSON leaves out a term without one
    /// (a scorer whose terms are shares of its score rather than products).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<f32>,
    /// `value` × `weight`.
    pub contribution: f32,
    /// A fused list's rank of the result (from 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<usize>,
}

impl Contribution {
    pub fn new(name: impl Into<String>, value: f32, weight: f32) -> Contribution {
        Contribution { name: name.into(), value, weight: Some(weight), contribution: value * weight, rank: None }
    }
}

/// A result's score as named contributions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    pub ranked_by: RankedBy,
    /// The score the result was ordered by. After the stage this is the
    /// stage's score; the result's own `score` stays on the fused scale
    /// (the fused scores handed out in the stage's order), so that
    /// `--min-score` means the same for every question.
    pub score: f32,
    pub contributions: Vec<Contribution>,
    /// The fused score the stage read, explained.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fused: Option<Box<Explanation>>,
    /// Steps that moved the result without scoring it, in order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub moved: Vec<Moved>,
    /// `--explain-features`: the stage's features of a result it did not
    /// score (an issue report's, a graph question's), each with the weight
    /// it would have; not terms of `score`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unscored_features: Vec<Contribution>,
    /// An issue report's file's evidence from past commits like the report
    /// (`query::rank::history`): it placed the file among the others, and
    /// is not a term of `score`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Contribution>,
}

impl Explanation {
    pub fn new(ranked_by: RankedBy) -> Explanation {
        Explanation { ranked_by, score: 0.0, contributions: Vec::new(), fused: None, moved: Vec::new(), unscored_features: Vec::new(), history: None }
    }

    /// Adds a term; `score` grows by it.
    pub fn add(&mut self, c: Contribution) {
        self.score += c.contribution;
        self.contributions.push(c);
    }

    /// A multiplicative prior of `factor` on a score of `before`, as the
    /// term it adds (`before` × (`factor` − 1)); the score becomes `after`,
    /// the product the ranking computed.
    pub fn scale(&mut self, name: &str, before: f32, factor: f32, after: f32) {
        if factor != 1.0 {
            self.contributions.push(Contribution::new(name, before, factor - 1.0));
        }
        self.score = after;
    }

    /// The sum of the contributions, in order (equal to `score`).
    pub fn total(&self) -> f32 {
        self.contributions.iter().map(|c| c.contribution).sum()
    }
}
