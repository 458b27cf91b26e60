//! What a query asks for: the mode, the filters and the hybrid search's
//! knobs. Values only (and the path globs they compile to).

use std::collections::BTreeSet;
use std::time::Duration;

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::Serialize;

use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::query::answer::{SearchError, SearchResult as Result};
use crate::query::question::intent::Relation;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every retriever, weighted by what the query looks like, fused with RRF.
    Hybrid,
    Keyword,
    Symbol,
    /// Dense vectors: SEMANTIC chunks, SYMBOLS headers and FILES outlines.
    Semantic,
    /// The code graph: callers, callees, importers of what the query names.
    Graph,
}

impl Mode {
    /// The mode's name, as `--mode` takes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Keyword => "keyword",
            Mode::Symbol => "symbol",
            Mode::Semantic => "semantic",
            Mode::Graph => "graph",
        }
    }
}

#[derive(Debug, Clone)]
pub struct QueryOptions {
    pub mode: Mode,
    pub limit: usize,
    pub lang: Option<Language>,
    /// Only paths matching this glob (see [`compile_glob`]).
    pub path: Option<String>,
    /// No path matching any of these globs.
    pub exclude: Vec<String>,
    /// Only results of this kind (one of [`Kind::searchable`]: [`kind_named`]).
    pub kind: Option<Kind>,
    /// Drop results whose score (in hybrid mode the fused score, after the
    /// priors) is below this.
    pub min_score: Option<f32>,
    /// Paths whose indexed chunks are left out: the work tree holds another
    /// version of them, or none (see [`crate::worktree`]).
    pub hide: std::sync::Arc<BTreeSet<String>>,
}

impl QueryOptions {
    /// `limit` results of `mode`, with no filters.
    pub fn new(mode: Mode, limit: usize) -> QueryOptions {
        QueryOptions { mode, limit, lang: None, path: None, exclude: Vec::new(), kind: None, min_score: None, hide: Default::default() }
    }
}

/// What `--kind` may name: the kinds of chunks and of definitions.
pub fn kinds() -> Vec<&'static str> {
    Kind::searchable().into_iter().map(Kind::as_str).collect()
}

/// The kind `--kind` names, in any letter case; an error that lists the
/// kinds for one no result can have (a typo would answer nothing, silently).
pub fn kind_named(name: &str) -> Result<Kind> {
    Kind::from_name(&name.to_lowercase())
        .filter(|k| Kind::searchable().contains(k))
        .ok_or_else(|| SearchError::UnknownKind { kind: name.to_string(), known: kinds().join(", ") })
}

impl QueryOptions {
    /// Checks what the query asks for that a search would not notice: a
    /// kind no result can have (`Kind::External`).
    pub fn validate(&self) -> Result<()> {
        match self.kind {
            Some(kind) if !Kind::searchable().contains(&kind) => Err(SearchError::UnknownKind { kind: kind.as_str().to_string(), known: kinds().join(", ") }),
            _ => Ok(()),
        }
    }
}

/// `--path` and `--exclude`, compiled: which paths a query may answer from.
#[derive(Debug, Clone, Default)]
pub struct PathFilter {
    include: Option<GlobMatcher>,
    exclude: Option<GlobSet>,
}

impl PathFilter {
    pub fn new(opts: &QueryOptions) -> Result<PathFilter> {
        let include = opts.path.as_deref().map(compile_glob).transpose()?;
        let exclude = if opts.exclude.is_empty() {
            None
        } else {
            let mut set = GlobSetBuilder::new();
            for g in &opts.exclude {
                set.add(glob_of(g)?);
            }
            Some(set.build().map_err(|e| SearchError::BadGlob { glob: opts.exclude.join(" "), message: e.to_string() })?)
        };
        Ok(PathFilter { include, exclude })
    }

    /// Whether a `--path` glob restricts the paths.
    pub fn has_include(&self) -> bool {
        self.include.is_some()
    }

    /// Whether every path passes.
    pub fn is_empty(&self) -> bool {
        self.include.is_none() && self.exclude.is_none()
    }

    pub fn matches(&self, path: &str) -> bool {
        self.include.as_ref().is_none_or(|g| g.is_match(path)) && !self.excluded(path)
    }

    pub fn excluded(&self, path: &str) -> bool {
        self.exclude.as_ref().is_some_and(|set| set.is_match(path))
    }
}

pub fn compile_glob(glob: &str) -> Result<GlobMatcher> {
    Ok(glob_of(glob)?.compile_matcher())
}

/// A path glob: a pattern without `/` matches a file name at any depth, as
/// in .gitignore; `**` crosses directories, `*` does not.
fn glob_of(glob: &str) -> Result<globset::Glob> {
    let pattern = if glob.contains('/') { glob.to_string() } else { format!("**/{glob}") };
    GlobBuilder::new(&pattern).literal_separator(true).build().map_err(|e| SearchError::BadGlob { glob: glob.to_string(), message: e.to_string() })
}

/// Candidates each retriever contributes to the fusion.
pub const DEFAULT_WINDOW: usize = 50;

#[derive(Debug, Clone)]
pub struct HybridOptions {
    pub query: QueryOptions,
    /// Candidates per retriever.
    pub window: usize,
    /// MMR trade-off λ in [0, 1] (1 = relevance only); `None` leaves the order alone.
    pub diversity: Option<f32>,
    /// Return the enclosing class or function of each hit instead.
    pub expand_parent: bool,
    /// How far graph answers walk (1 = direct callers/callees).
    pub depth: usize,
    /// Force a graph relation instead of reading it from the query.
    pub relation: Option<Relation>,
    /// How long the slowest retriever (dense: model load, store open) may
    /// take before the answer goes ahead without it.
    pub timeout: Duration,
    /// Rank files by their aggregated evidence (`limit` files, each with
    /// its best chunks) instead of chunks.
    pub files: bool,
    /// Explain each result's score as named contributions (`--explain`).
    pub explain: bool,
    /// With `explain`: the stage's features of the candidates of a question
    /// the stage does not score too (`Explanation::unscored_features`; the
    /// fitting script's data for issue reports and graph questions).
    pub explain_features: bool,
    /// The project's own name ([`crate::git::Repo::project_name`]), which a
    /// question says to name the project rather than a file in it; the
    /// query sets it from the repository it answers for.
    pub project: Option<String>,
}

impl HybridOptions {
    pub fn new(query: QueryOptions) -> HybridOptions {
        HybridOptions {
            query,
            window: DEFAULT_WINDOW,
            diversity: None,
            expand_parent: false,
            depth: 1,
            relation: None,
            timeout: Duration::from_secs(10),
            files: false,
            explain: false,
            explain_features: false,
            project: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_without_slash_match_anywhere() {
        let g = compile_glob("*.py").unwrap();
        assert!(g.is_match("src/a/b.py"));
        let g = compile_glob("src/*.py").unwrap();
        assert!(g.is_match("src/b.py"));
        assert!(!g.is_match("src/a/b.py"));
    }
}
