//! What a query answers, in the shape of the JSON contract
//! (`../shared/DESIGN.md`): results ([`Hit`]), the retrievers that found
//! them, why one could not answer ([`Unavailable`]), the files to open, and
//! the errors of a query. The bottom layer of `query/`: it imports nothing
//! of it but the question's analysis, which an answer reports
//! (so [`crate::query::question`] sits below it).

use serde::Serialize;

pub mod explain;
pub mod wire;

use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::query::question::intent::Analysis;
use crate::stores::keyword::KeywordError;

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error(transparent)]
    Keyword(#[from] KeywordError),
    #[error("unknown kind `{kind}`; the kinds are: {known}")]
    UnknownKind { kind: String, known: String },
    #[error("invalid path glob `{glob}`: {message}")]
    BadGlob { glob: String, message: String },
    #[error(transparent)]
    Store(#[from] crate::stores::vector::StoreError),
    #[error(transparent)]
    Graph(#[from] crate::graph::GraphError),
}

/// What a retriever's search returns.
pub type SearchResult<T> = std::result::Result<T, SearchError>;

/// A retriever (or a step) that contributed to an answer; in JSON, its
/// lowercase name (`bm25`, `symbol`, `dense`, `graph`, `patterns`, `rerank`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Retriever {
    Bm25,
    Symbol,
    Dense,
    Graph,
    Patterns,
    /// Chunks holding a literal of the query as written.
    Exact,
    /// BM25 of a concept question with the names of the definitions
    /// nearest in meaning added (pseudo-relevance feedback).
    Feedback,
    /// What a concept question's best candidates call, most called first.
    Callees,
    Rerank,
}

impl Retriever {
    pub fn as_str(self) -> &'static str {
        match self {
            Retriever::Bm25 => "bm25",
            Retriever::Symbol => "symbol",
            Retriever::Dense => "dense",
            Retriever::Graph => "graph",
            Retriever::Patterns => "patterns",
            Retriever::Exact => "exact",
            Retriever::Feedback => "feedback",
            Retriever::Callees => "callees",
            Retriever::Rerank => "rerank",
        }
    }
}

/// Rank of a result in each retriever (1-based), `None` where it did not appear.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Signals {
    pub bm25: Option<usize>,
    pub dense: Option<usize>,
    pub graph: Option<usize>,
    pub symbol: Option<usize>,
    /// Rank among project patterns (PATTERNS), when the query asked about conventions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patterns: Option<usize>,
    /// Rank among chunks holding a literal of the query as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<usize>,
    /// Rank in BM25 of the question with the names dense search found nearest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<usize>,
    /// Rank among what a concept question's best candidates call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub callees: Option<usize>,
    /// Rank among the files the question's words name (`retrieve::paths`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub named: Option<usize>,
}

/// Where a result comes from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The indexed commit.
    #[default]
    Commit,
    /// A file of the work tree that differs from the indexed commit.
    Worktree,
}

/// One result, as the ranking works on it; its JSON is [`wire::WireHit`]'s
/// (the contract), which leaves the internal fields out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Hit {
    pub rank: usize,
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
    pub symbol: Option<String>,
    pub kind: Kind,
    pub language: Language,
    pub score: f32,
    pub content: String,
    pub signals: Signals,
    /// The indexed commit, or the work tree laid over it.
    pub source: Origin,
    /// The chunk this hit stands for, when known: the fusion key.
    pub chunk_id: Option<String>,
    /// How the retriever breaks a tie of scores (the document's content-
    /// derived key, larger first), so that a list merged from the index and
    /// the work tree breaks ties as one index of the work tree would.
    pub tie: u64,
    /// Symbol mode: the definition's name is a word of the question (its
    /// qualified or own name, in any case); looser matches (a prefix, a
    /// word of the name) are suggestions.
    pub name_match: bool,
    /// Why it ranks here, when asked for (`HybridOptions::explain`):
    /// its score as named contributions.
    pub explain: Option<Box<explain::Explanation>>,
}

impl Serialize for Hit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        wire::WireHit::from(self).serialize(s)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Response {
    pub query: String,
    pub took_ms: f64,
    pub results: Vec<Hit>,
}

#[derive(Debug, thiserror::Error)]
pub enum HybridError {
    #[error(transparent)]
    Search(#[from] SearchError),
    #[error(transparent)]
    Graph(#[from] crate::graph::GraphError),
    #[error(transparent)]
    Unavailable(#[from] Unavailable),
}

pub type Result<T> = std::result::Result<T, HybridError>;

/// Why a retriever cannot answer now: its list is left out of the fusion and
/// the answer names it among the fallbacks.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Unavailable {
    #[error("the index has no semantic layer (built without an embedding model)")]
    NoSemanticLayer,
    #[error("the semantic layer is turned off")]
    SemanticOff,
    #[error("the embedding model cannot be loaded: {0}")]
    ModelLoad(String),
    #[error("loading the embedding model panicked")]
    ModelPanicked,
    #[error("the index holds vectors of model `{indexed}` but `{configured}` is configured; run `git rag index` to re-embed")]
    ModelMismatch { indexed: String, configured: String },
    #[error("the vectors are behind the index ({0}); the next `git rag index` that reaches the store brings them in line")]
    VectorsBehind(String),
    #[error("a previous dense search panicked")]
    Poisoned,
    #[error("the index has no code graph yet; run `git rag index`")]
    NoGraph,
    #[error("{what} needs a local index (`git rag index`); a Qdrant server's index alone has no call graph")]
    NeedsLocalIndex { what: &'static str },
    #[error("timed out after {0:.1}s")]
    TimedOut(f64),
    #[error("the dense retriever failed")]
    Gone,
    /// A store, graph or model error, kept as its message (they are not `Clone`).
    #[error("{0}")]
    Failed(String),
}

impl Unavailable {
    pub fn failed(e: impl std::fmt::Display) -> Unavailable {
        Unavailable::Failed(e.to_string())
    }
}

/// Milliseconds per step of a query.
pub type Timings = std::collections::BTreeMap<&'static str, f64>;

/// A query's answer with how it was reached.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    #[serde(flatten)]
    pub response: Response,
    pub analysis: Analysis,
    /// Retrievers that ran.
    pub retrievers: Vec<Retriever>,
    /// Retrievers that were wanted but missing, and why.
    pub fallbacks: Vec<String>,
    /// The graph subject(s) the query resolved to.
    pub subjects: Vec<String>,
    /// Milliseconds per step of this query (`model_load` and `store_open`
    /// only when this query opened them): where `took_ms` went.
    pub timings: Timings,
    /// With [`HybridOptions::files`]: the files to open, best first; the
    /// results are then their chunks, file by file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileHit>>,
}

/// One file to open, with its best chunks.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileHit {
    pub rank: usize,
    pub path: String,
    pub language: Language,
    pub score: f32,
    /// The query names this file (a path or a stack frame).
    pub mentioned: bool,
    /// Its best chunks, best first: where to look in it.
    pub chunks: Vec<FileChunk>,
}

/// A chunk of a [`FileHit`]: its lines and what it defines.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct FileChunk {
    pub start_line: usize,
    pub end_line: usize,
    pub symbol: Option<String>,
    pub kind: Kind,
    pub score: f32,
}

/// Why a query could not be answered.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error(transparent)]
    State(#[from] crate::stores::state::StateError),
    #[error(transparent)]
    Engine(#[from] HybridError),
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
    #[error("there is no index yet at {dir}; call the `index` tool (or run `git rag index`)")]
    NoIndex { dir: String },
    #[error("the engine lock is poisoned (a previous query panicked)")]
    Poisoned,
    #[error("the index at {dir} has no semantic layer (it was built without an embedding model); run `git rag model install`, then `git rag index`")]
    NoSemanticLayer { dir: String },
}

pub type QueryResult<T> = std::result::Result<T, QueryError>;
