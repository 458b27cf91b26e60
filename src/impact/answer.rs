//! What `git rag impact` answers (the JSON contract): the definitions a
//! change makes, the code that depends on them with the line that shows it,
//! the tests to run with why, and what a hop left out.

use serde::Serialize;

use crate::analysis::kind::Kind;
use crate::analysis::parse::Symbol;

/// How a definition changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Its body changed, its signature did not.
    Body,
    /// Its signature (the declaration line: parameters, return type) changed.
    Signature,
    Added,
    Deleted,
    /// Renamed from `previous`; its text otherwise (nearly) the same.
    Renamed,
    /// Module-level lines (imports, top-level statements) outside any definition.
    Module,
    /// Only its leading doc comment: it runs as before.
    Doc,
    /// Only comments inside it (or a Python docstring), or, with no symbol,
    /// only the module's comments: it runs as before.
    Comment,
}

impl ChangeKind {
    /// A change of documentation or comments alone: the code runs as before.
    pub fn runs_as_before(self) -> bool {
        matches!(self, ChangeKind::Doc | ChangeKind::Comment)
    }
}

/// A definition (or file, `symbol` null) the change makes.
#[derive(Debug, Clone, Serialize)]
pub struct ChangedCode {
    pub path: String,
    pub symbol: Option<String>,
    pub kind: Kind,
    pub start_line: usize,
    pub end_line: usize,
    pub change: ChangeKind,
    /// A renamed definition's old qualified name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

impl ChangedCode {
    pub(super) fn symbol(path: &str, s: &Symbol, change: ChangeKind) -> ChangedCode {
        ChangedCode {
            path: path.to_string(),
            symbol: Some(s.qualified_name.clone()),
            kind: Kind::from(s.kind),
            start_line: s.span.start_line,
            end_line: s.span.end_line,
            change,
            previous: None,
        }
    }

    pub(super) fn file(path: &str, change: ChangeKind, lines: usize, kind: Kind) -> ChangedCode {
        ChangedCode { path: path.to_string(), symbol: None, kind, start_line: 1, end_line: lines, change, previous: None }
    }

    /// Whether what depends on it is found on the old side (it is gone from the new).
    pub(super) fn gone(&self) -> bool {
        matches!(self.change, ChangeKind::Deleted)
    }
}

/// How impacted code depends on what it reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    Calls,
    Imports,
    Inherits,
    Implements,
    Overrides,
}

impl Relation {
    pub(super) fn weight(self) -> f32 {
        match self {
            Relation::Calls => super::weights::CALLS,
            Relation::Imports => super::weights::IMPORTS,
            Relation::Inherits => super::weights::INHERITS,
            Relation::Implements => super::weights::IMPLEMENTS,
            Relation::Overrides => super::weights::OVERRIDES,
        }
    }
}

/// The line that shows a dependency.
#[derive(Debug, Clone, Serialize)]
pub struct Evidence {
    pub line: usize,
    pub text: String,
}

/// Code the change reaches.
#[derive(Debug, Clone, Serialize)]
pub struct ImpactedCode {
    pub path: String,
    pub symbol: Option<String>,
    pub kind: Kind,
    pub start_line: usize,
    pub end_line: usize,
    pub relation: Relation,
    /// Hops from the changed code (1: it depends on it directly).
    pub depth: usize,
    /// Falls with depth and with the fan-out of what it depends on (0–1).
    pub score: f64,
    /// The changed (or impacted) definition it depends on, one hop nearer.
    pub reaches: String,
    pub evidence: Option<Evidence>,
    /// A call by name: its receiver's type is unknown, and this many
    /// definitions have the name it calls (the score is shared among them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub candidates: Option<usize>,
}

/// Which tests to run now: `run`, the few the evidence is strong for
/// (at least `weights::RUN_TIER_PROBABILITY`; for a configuration-only
/// change, that times `COMMITS_EDITING_A_TEST_CODE / …_CONFIGURATION`), and
/// `maybe`, the rest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Run,
    Maybe,
}

/// A test file to run, with why.
#[derive(Debug, Clone, Serialize)]
pub struct TestToRun {
    pub path: String,
    /// The test function that reaches the change most directly, if one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub score: f64,
    /// The chance (0–1) that this is a test file the change's own commit
    /// would edit, were it to edit one: from its score, its rank and whether
    /// the change is configuration alone, calibrated on mined commits that
    /// edit a test (`weights::TEST_PROBABILITY_*`): of the tests said 0.3, about 30% are.
    pub probability: f64,
    pub tier: Tier,
    pub why: Vec<String>,
    /// Each kind of evidence's value (0–1) before its weight (`impact::weights`):
    /// `in_change`, `reached`, `named_after_file`, `named_after_folder`,
    /// `named_after_definition`, `imports`, `names`, `lexical`, `cochanged`, `cochanged_recently`.
    pub signals: std::collections::BTreeMap<&'static str, f64>,
}

/// A definition with more dependents than a hop lists.
#[derive(Debug, Clone, Serialize)]
pub struct Omitted {
    pub path: String,
    pub symbol: Option<String>,
    /// Dependents listed.
    pub listed: usize,
    /// Dependents left out (at least; counting them all would read them all).
    pub more: usize,
}

/// The answer.
#[derive(Debug, Clone, Serialize)]
pub struct Impact {
    /// What was compared, in words (`work tree against 1a2b3c4d5e6f`).
    pub target: String,
    pub changed: Vec<ChangedCode>,
    /// Every changed file is documentation or a changelog, or changed only
    /// in comments and docstrings ([`ChangeKind::runs_as_before`]): nothing
    /// runs differently, so nothing is impacted and no test is to run.
    pub documentation_only: bool,
    /// Every changed file is configuration (CI workflows, build and tool
    /// files, templates), documentation beside it allowed: no code changed.
    /// Tests are still listed (a configuration change can break any), each
    /// with the probability fitted for such changes.
    pub configuration_only: bool,
    pub impacted: Vec<ImpactedCode>,
    pub tests: Vec<TestToRun>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<Omitted>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    pub took_ms: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<crate::query::context::Context>,
}
