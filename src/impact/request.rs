//! What `git rag impact` is asked (which change, how deep, how much) and
//! the errors it answers with.

use std::path::PathBuf;

use crate::worktree::LayerOptions;

#[derive(Debug, thiserror::Error)]
pub enum ImpactError {
    #[error("there is no index yet at {0}; run `git rag index` first")]
    NoIndex(PathBuf),
    #[error("the index has no code graph; run `git rag index`")]
    NoGraph,
    #[error("`--staged` compares the staged files with HEAD; give no revision with it")]
    StagedWithRevision,
    #[error("the repository has no commits: nothing to compare `{0}` with")]
    NoHead(String),
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error(transparent)]
    Graph(#[from] crate::graph::GraphError),
    #[error(transparent)]
    Worktree(#[from] crate::worktree::WorktreeError),
    #[error(transparent)]
    State(#[from] crate::stores::state::StateError),
}

/// Which change to look at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImpactTarget {
    /// The work tree (staged or not) against the indexed commit.
    WorkTree,
    /// The staged files against HEAD.
    Staged,
    /// A commit against its first parent.
    Commit(String),
    /// `from..to`, or with `merge_base` `from...to` (from their merge base).
    Range { from: String, to: String, merge_base: bool },
}

impl ImpactTarget {
    /// From the command line's revision argument and `--staged`.
    pub fn parse(rev: Option<&str>, staged: bool) -> Result<ImpactTarget, ImpactError> {
        match (rev, staged) {
            (Some(_), true) => Err(ImpactError::StagedWithRevision),
            (None, true) => Ok(ImpactTarget::Staged),
            (None, false) => Ok(ImpactTarget::WorkTree),
            (Some(rev), false) => Ok(match rev.split_once("...").map(|(a, b)| (a, b, true)).or_else(|| rev.split_once("..").map(|(a, b)| (a, b, false))) {
                Some((from, to, merge_base)) => {
                    let or_head = |s: &str| if s.is_empty() { "HEAD".to_string() } else { s.to_string() };
                    ImpactTarget::Range { from: or_head(from), to: or_head(to), merge_base }
                }
                None => ImpactTarget::Commit(rev.to_string()),
            }),
        }
    }
}

/// What `impact` is asked.
#[derive(Debug, Clone)]
pub struct ImpactRequest {
    pub target: ImpactTarget,
    /// Hops of dependents walked (at least 1); tests are looked for through at least two.
    pub depth: usize,
    /// Most impacted definitions and tests listed.
    pub limit: usize,
    /// A review context of this many tokens (cl100k_base).
    pub context_budget: Option<usize>,
    /// What the change is for, in words (`--message`: the commit message
    /// to be, the issue it fixes): a test whose name it says is evidence.
    /// `None` reads the subjects of a commit's or a range's commits; a
    /// work-tree or staged change has none of its own.
    pub message: Option<String>,
    /// The index's analysis options and path rules.
    pub layer: LayerOptions,
}
