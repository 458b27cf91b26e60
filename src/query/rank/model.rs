//! The learned ranking model: LightGBM's LambdaMART trees, trained by
//! `scripts/train-ranking.py` on questions mined from the git histories of
//! repositories no benchmark holds, and saved in LightGBM's own text format
//! ([`crate::query::base::parameters::RANKING_MODEL`]). It scores a candidate of the
//! stage's pool from the stage's features ([`crate::query::base::features`]) and the
//! question's intent; [`Model::attributed`] says how much of that score each
//! input brought (the change of the tree's expected score at each split on
//! the candidate's path, summed by input: the parts add up to the score).
//!
//! Invariant: [`Model::score`] is what LightGBM's own `predict` gives for the
//! same inputs (a unit test holds it to the predictions the training script
//! wrote beside the model); the model reads only inputs git-rag computes,
//! checked by name when it is read.

use std::sync::LazyLock;

use crate::query::base::features::{Feature, PerFeature};
use crate::query::base::parameters::{MODEL_ZERO, RANKING_MODEL};
use crate::query::question::intent::Intent;

/// What the model reads of a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// One of the stage's features.
    Feature(Feature),
    /// 1 when the question's intent is this one, else 0.
    Intent(Intent),
}

/// The intents the model reads, by the name the training script gives them
/// (`intent_<name>`); a graph question is answered by its walk.
const INTENTS: [(&str, Intent); 5] =
    [("identifier", Intent::Identifier), ("keyword", Intent::Keyword), ("concept", Intent::Concept), ("mixed", Intent::Mixed), ("document", Intent::Document)];

impl Input {
    fn named(name: &str) -> Option<Input> {
        if let Some(intent) = name.strip_prefix("intent_") {
            return INTENTS.iter().find(|(n, _)| *n == intent).map(|(_, i)| Input::Intent(*i));
        }
        Feature::named(name).map(Input::Feature)
    }

    /// Its name, as the model file and the explanations write it.
    pub fn name(self) -> String {
        match self {
            Input::Feature(f) => f.name().to_string(),
            Input::Intent(i) => format!("intent_{}", INTENTS.iter().find(|(_, x)| *x == i).map_or("other", |(n, _)| n)),
        }
    }

    fn value(self, features: &PerFeature, intent: Intent) -> f64 {
        match self {
            Input::Feature(f) => f64::from(features[f]),
            Input::Intent(i) => f64::from(u8::from(i == intent)),
        }
    }
}

/// What went wrong reading a model file.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("no `{0}` line")]
    Missing(&'static str),
    #[error("tree {tree}: {what}")]
    Tree { tree: usize, what: String },
    #[error("the model reads `{0}`, which git-rag does not compute")]
    UnknownInput(String),
}

/// Where a split sends a candidate.
#[derive(Debug, Clone, Copy)]
enum Child {
    Node(usize),
    Leaf(usize),
}

/// How a split treats a missing value (LightGBM's `decision_type` bits 2-3).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Missing {
    None,
    Zero,
    Nan,
}

#[derive(Debug)]
struct Node {
    input: usize,
    threshold: f64,
    default_left: bool,
    missing: Missing,
    left: Child,
    right: Child,
    /// The tree's expected score at this node (LightGBM's `internal_value`).
    value: f64,
}

#[derive(Debug)]
struct Tree {
    nodes: Vec<Node>,
    leaves: Vec<f64>,
}

impl Tree {
    /// The child a split sends `x` to (LightGBM's `NumericalDecision`).
    fn next(node: &Node, x: f64) -> Child {
        let x = if x.is_nan() && node.missing != Missing::Nan { 0.0 } else { x };
        let missing = match node.missing {
            Missing::Zero => x.abs() <= MODEL_ZERO,
            Missing::Nan => x.is_nan(),
            Missing::None => false,
        };
        let left = if missing { node.default_left } else { x <= node.threshold };
        if left {
            node.left
        } else {
            node.right
        }
    }

    /// The leaf `values` reach, calling `split(input, change)` at each split.
    fn walk(&self, values: &[f64], mut split: impl FnMut(usize, f64)) -> f64 {
        if self.nodes.is_empty() {
            return self.leaves.first().copied().unwrap_or(0.0);
        }
        let mut at = 0;
        loop {
            let node = &self.nodes[at];
            let child = Tree::next(node, values[node.input]);
            let (next_value, next) = match child {
                Child::Node(n) => (self.nodes[n].value, Some(n)),
                Child::Leaf(l) => (self.leaves[l], None),
            };
            split(node.input, next_value - node.value);
            match next {
                Some(n) => at = n,
                None => return next_value,
            }
        }
    }

    /// The expected score before any split.
    fn base(&self) -> f64 {
        self.nodes.first().map_or_else(|| self.leaves.first().copied().unwrap_or(0.0), |n| n.value)
    }
}

/// LightGBM's model, as the stage reads it.
#[derive(Debug)]
pub struct Model {
    inputs: Vec<Input>,
    trees: Vec<Tree>,
}

impl Model {
    /// Reads LightGBM's text format (`Booster.save_model`): the feature
    /// names, then each tree's splits and leaves. Numerical splits only.
    pub fn parse(text: &str) -> Result<Model, ModelError> {
        let header = |key: &'static str| text.lines().find_map(|l| l.strip_prefix(key)).ok_or(ModelError::Missing(key));
        let inputs = header("feature_names=")?
            .split_whitespace()
            .map(|n| Input::named(n).ok_or_else(|| ModelError::UnknownInput(n.to_string())))
            .collect::<Result<Vec<_>, _>>()?;
        let mut trees = Vec::new();
        for (t, block) in text.split("\nTree=").skip(1).enumerate() {
            let block = block.split("\nend of trees").next().unwrap_or(block);
            trees.push(parse_tree(t, block, inputs.len())?);
        }
        if trees.is_empty() {
            return Err(ModelError::Missing("Tree="));
        }
        Ok(Model { inputs, trees })
    }

    /// What the model reads, in the order of its inputs.
    pub fn inputs(&self) -> &[Input] {
        &self.inputs
    }

    /// A candidate's inputs, from its features and its question's intent.
    pub fn values(&self, features: &PerFeature, intent: Intent) -> Vec<f64> {
        self.inputs.iter().map(|i| i.value(features, intent)).collect()
    }

    /// The candidate's score: the sum of its leaves.
    pub fn score(&self, values: &[f64]) -> f64 {
        self.trees.iter().map(|t| t.walk(values, |_, _| {})).sum()
    }

    /// The score's parts: the trees' expected score before any split, and
    /// each input's share (what the splits on it changed along the
    /// candidate's paths); they add up to [`Model::score`].
    pub fn attributed(&self, values: &[f64]) -> (f64, Vec<f64>) {
        let mut shares = vec![0.0; self.inputs.len()];
        let mut base = 0.0;
        for t in &self.trees {
            base += t.base();
            t.walk(values, |input, change| shares[input] += change);
        }
        (base, shares)
    }
}

fn parse_tree(t: usize, block: &str, n_inputs: usize) -> Result<Tree, ModelError> {
    let bad = |what: String| ModelError::Tree { tree: t, what };
    let field = |key: &str| -> Option<&str> { block.lines().find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix('='))) };
    let numbers = |key: &str| -> Result<Vec<f64>, ModelError> {
        field(key).map_or(Ok(Vec::new()), |v| v.split_whitespace().map(|x| x.parse::<f64>().map_err(|e| bad(format!("{key}: {e}")))).collect())
    };
    let leaves = numbers("leaf_value")?;
    let n_leaves = field("num_leaves").and_then(|v| v.trim().parse::<usize>().ok()).ok_or_else(|| bad("no num_leaves".into()))?;
    if leaves.len() != n_leaves {
        return Err(bad(format!("{} leaf values for {n_leaves} leaves", leaves.len())));
    }
    if n_leaves == 1 {
        return Ok(Tree { nodes: Vec::new(), leaves });
    }
    let (inputs, thresholds, kinds) = (numbers("split_feature")?, numbers("threshold")?, numbers("decision_type")?);
    let (lefts, rights, values) = (numbers("left_child")?, numbers("right_child")?, numbers("internal_value")?);
    let n = n_leaves - 1;
    if [&inputs, &thresholds, &kinds, &lefts, &rights, &values].iter().any(|v| v.len() != n) {
        return Err(bad(format!("a split field without {n} values")));
    }
    let child = |c: f64| -> Result<Child, ModelError> {
        let c = c as i64;
        let leaf = (-c - 1) as usize;
        match c {
            c if c >= 0 && (c as usize) < n => Ok(Child::Node(c as usize)),
            c if c < 0 && leaf < n_leaves => Ok(Child::Leaf(leaf)),
            c => Err(bad(format!("child {c} out of range"))),
        }
    };
    let mut nodes = Vec::with_capacity(n);
    for i in 0..n {
        let kind = kinds[i] as u32;
        if kind & 1 != 0 {
            return Err(bad("a categorical split".into()));
        }
        let input = inputs[i] as usize;
        if input >= n_inputs {
            return Err(bad(format!("split on input {input} of {n_inputs}")));
        }
        let missing = match (kind >> 2) & 3 {
            0 => Missing::None,
            1 => Missing::Zero,
            _ => Missing::Nan,
        };
        nodes.push(Node {
            input,
            threshold: thresholds[i],
            default_left: kind & 2 != 0,
            missing,
            left: child(lefts[i])?,
            right: child(rights[i])?,
            value: values[i],
        });
    }
    Ok(Tree { nodes, leaves })
}

static MODEL: LazyLock<Result<Model, String>> = LazyLock::new(|| Model::parse(RANKING_MODEL).map_err(|e| e.to_string()));

/// The model built into git-rag, read once.
pub fn ranking_model() -> Result<&'static Model, String> {
    MODEL.as_ref().map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Cases {
        inputs: Vec<String>,
        cases: Vec<Case>,
    }

    #[derive(serde::Deserialize)]
    struct Case {
        inputs: std::collections::HashMap<String, f64>,
        score: f64,
    }

    #[test]
    fn the_built_in_model_scores_as_lightgbm_did_when_it_was_trained() {
        let model = ranking_model().expect("the built-in model reads");
        let cases: Cases = serde_json::from_str(include_str!("ranking-model-cases.json")).expect("cases");
        assert_eq!(model.inputs().iter().map(|i| i.name()).collect::<Vec<_>>(), cases.inputs);
        assert!(cases.cases.len() >= 20);
        for case in &cases.cases {
            let values: Vec<f64> = model.inputs().iter().map(|i| case.inputs[&i.name()]).collect();
            let score = model.score(&values);
            assert!((score - case.score).abs() < 1e-9, "{score} vs LightGBM's {}", case.score);
            let (base, shares) = model.attributed(&values);
            assert!((base + shares.iter().sum::<f64>() - score).abs() < 1e-9);
        }
    }

    #[test]
    fn a_model_that_reads_an_input_git_rag_does_not_compute_is_refused() {
        let text = RANKING_MODEL.replacen("feature_names=position", "feature_names=stars", 1);
        assert!(matches!(Model::parse(&text), Err(ModelError::UnknownInput(n)) if n == "stars"));
        assert!(matches!(Model::parse("tree\nversion=v4\n"), Err(ModelError::Missing(_))));
    }

    #[test]
    fn a_split_sends_a_value_left_when_it_is_at_most_the_threshold() {
        let node = |missing, default_left| Node { input: 0, threshold: 0.5, default_left, missing, left: Child::Leaf(0), right: Child::Leaf(1), value: 0.0 };
        let left = |n: &Node, x: f64| matches!(Tree::next(n, x), Child::Leaf(0));
        assert!(left(&node(Missing::None, false), 0.5) && !left(&node(Missing::None, false), 0.6));
        assert!(!left(&node(Missing::Zero, false), 0.0), "zero is missing: the default side");
        assert!(left(&node(Missing::None, false), f64::NAN), "NaN reads as 0");
    }
}
