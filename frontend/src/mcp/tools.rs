//! The tools, declared once in [`TOOLS`]: MCP lists and calls them from the
//! table, and the HTTP API routes the ones with an [`Endpoint`] and describes
//! them in its OpenAPI document from the same rows. Each tool's arguments are
//! a typed struct, deserialized with serde (the error names the field) and
//! described by a JSON Schema that schemars generates from the same struct,
//! so the two cannot drift apart. Each tool calls the library and returns
//! its JSON. Adding one: its arguments struct, its function, its row.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{Server, ToolError, ToolResult};
use crate::args::ModeArg;
use git_rag::{HybridOptions, Language, Mode, QueryOptions, QueryOutput, QueryRequest, Relation};

/// One tool: what MCP clients see, how it runs, and where HTTP serves it.
pub struct Tool {
    pub name: &'static str,
    title: &'static str,
    description: &'static str,
    /// Reads only (an MCP annotation); the one that is not updates the index.
    read_only: bool,
    /// The JSON Schema of its arguments.
    pub schema: fn() -> Value,
    run: fn(&Server, Map<String, Value>) -> ToolResult,
    /// Served over HTTP too, at this endpoint.
    pub http: Option<Endpoint>,
}

/// Where the HTTP API serves a tool.
pub struct Endpoint {
    pub path: &'static str,
    /// GET takes no body (every argument keeps its default); POST takes the
    /// tool's arguments as its JSON body.
    pub get: bool,
    pub summary: &'static str,
    /// What a 200 answer holds.
    pub answers: &'static str,
    /// An index run: no deadline, and one at a time (another gets 409).
    pub long_running: bool,
}

/// The tools, in the order `tools/list` gives them.
pub const TOOLS: &[Tool] = &[
    Tool {
        name: "search",
        title: "Search the code",
        description: "Hybrid code search over the repository (BM25, symbol names, embeddings and the call graph, fused). \
             Returns ranked chunks with path, line range, symbol, kind, content and per-retriever signals.",
        read_only: true,
        schema: schema::<SearchArgs>,
        run: |server, args| search(server, parse(args)?),
        http: Some(Endpoint {
            path: "/v1/codebase/search",
            get: false,
            summary: "ranked, cited chunks (the MCP `search` tool)",
            answers: "the answer of `git rag query --json`",
            long_running: false,
        }),
    },
    Tool {
        name: "context",
        title: "Build a cited context",
        description: "A token-budgeted Markdown context for a question: definitions, relevant code, file context and project \
             patterns, each piece cited as path:start-end. Tokens counted with cl100k_base; the budget is never exceeded.",
        read_only: true,
        schema: schema::<ContextArgs>,
        run: |server, args| context(server, parse(args)?),
        http: Some(Endpoint {
            path: "/v1/codebase/context",
            get: false,
            summary: "a token-budgeted, cited context (the MCP `context` tool)",
            answers: "the answer of `git rag query --context --json`",
            long_running: false,
        }),
    },
    Tool {
        name: "symbols",
        title: "Find definitions",
        description: "Definitions of a symbol by name (`Session`, `Session.send`, `parse_url`): path, lines, kind, signature and code.",
        read_only: true,
        schema: schema::<SymbolsArgs>,
        run: |server, args| symbols(server, parse(args)?),
        http: None,
    },
    Tool {
        name: "callers",
        title: "Who calls this",
        description: "Functions and modules that call a symbol, from the code graph, up to `depth` hops.",
        read_only: true,
        schema: schema::<GraphArgs>,
        run: |server, args| graph(server, parse(args)?, Relation::Callers),
        http: None,
    },
    Tool {
        name: "callees",
        title: "What this calls",
        description: "Functions a symbol calls, from the code graph, up to `depth` hops.",
        read_only: true,
        schema: schema::<GraphArgs>,
        run: |server, args| graph(server, parse(args)?, Relation::Callees),
        http: None,
    },
    Tool {
        name: "impact",
        title: "What a change touches",
        description: "For the work tree's edits against the indexed commit (or `rev`: a commit, `A..B`, `A...B`; or the staged files): \
             the definitions the change makes, the code that depends on them (callers, importers, subclasses, implementations, \
             overrides; with depth, evidence line and score) and the ranked tests to run, each with why.",
        read_only: true,
        schema: schema::<ImpactArgs>,
        run: |server, args| impact(server, parse(args)?),
        http: Some(Endpoint {
            path: "/v1/codebase/impact",
            get: false,
            summary: "what a change touches and the tests to run (the MCP `impact` tool)",
            answers: "the answer of `git rag impact --json`",
            long_running: false,
        }),
    },
    Tool {
        name: "history",
        title: "Ask the history",
        description: "The commits that answer a question about the past (\"when did we stop retrying on 503?\", \"why does \
             merge_cookies copy the jar?\"), best first, from the indexed first-parent history: id, subject, body, date, author, \
             the files each changed (today's names) and the changed lines holding the question's words. Filters: path, since, \
             until (dates as git reads them), symbol. No question: the newest commits the filters keep.",
        read_only: true,
        schema: schema::<HistoryArgs>,
        run: |server, args| history(server, parse(args)?),
        http: Some(Endpoint {
            path: "/v1/codebase/history",
            get: false,
            summary: "the commits that answer a question about the past (the MCP `history` tool)",
            answers: "the answer of `git rag history --json`",
            long_running: false,
        }),
    },
    Tool {
        name: "status",
        title: "Index status",
        description: "Which commit the index is at, whether it is behind HEAD, whether a run is in progress, counts and the last run.",
        read_only: true,
        schema: schema::<StatusArgs>,
        run: |server, args| status(server, parse(args)?),
        http: Some(Endpoint {
            path: "/v1/codebase/stats",
            get: true,
            summary: "what `git rag status --json` says, with the warm engine",
            answers: "status",
            long_running: false,
        }),
    },
    Tool {
        name: "index",
        title: "Update the index",
        description: "Bring the index to HEAD now (only what changed), or re-index one file or directory, or rebuild in full.",
        read_only: false,
        schema: schema::<IndexArgs>,
        run: |server, args| index(server, parse(args)?),
        http: Some(Endpoint {
            path: "/v1/codebase/index",
            get: false,
            summary: "bring the index to HEAD (one run at a time)",
            answers: "the run's outcome, as `git rag index --json`",
            long_running: true,
        }),
    },
];

/// The tool named `name`.
pub fn find(name: &str) -> Option<&'static Tool> {
    TOOLS.iter().find(|t| t.name == name)
}

/// The tools' names, in the table's order.
pub fn names() -> Vec<&'static str> {
    TOOLS.iter().map(|t| t.name).collect()
}

const MAX_LIMIT: u64 = 100;
const MAX_DEPTH: u64 = 5;

fn ten() -> u64 {
    10
}
fn twenty() -> u64 {
    20
}
fn one() -> u64 {
    1
}
fn two() -> u64 {
    2
}
fn fifty() -> u64 {
    50
}
fn default_budget() -> u64 {
    8000
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words, identifiers or a question.
    query: String,
    /// Most results to return.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    limit: u64,
    /// hybrid fuses every retriever; the others force one.
    #[serde(default)]
    mode: ModeArg,
    /// Only this language.
    language: Option<Language>,
    /// Only paths matching this glob (`src/**/*.py`; without `/` it matches file names).
    path: Option<String>,
    /// No paths matching any of these globs.
    #[serde(default)]
    exclude: Vec<String>,
    /// Drop results scoring below this (hybrid: the fused score, ~0.01–0.1).
    min_score: Option<f32>,
    /// Only this kind: function, method, class, code, file, …
    kind: Option<String>,
    /// Rerank the top results (the configured rerank endpoint or cross-encoder).
    #[serde(default)]
    rerank: bool,
    /// Group by file: `files` ranks the files to open by all their evidence
    /// (limit counts files), each with its best chunks; `results` are then
    /// those chunks, file by file.
    #[serde(default)]
    files: bool,
    /// Explain each result's rank: `explain` on each result holds the
    /// score it was ordered by as named contributions (feature × weight,
    /// fused lists with their ranks, priors) that sum to it.
    #[serde(default)]
    explain: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ContextArgs {
    /// The question or task.
    query: String,
    /// Tokens the context may use.
    #[serde(default = "default_budget")]
    #[schemars(range(min = 1, max = 200000))]
    budget: u64,
    /// Most results to build the context from.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    limit: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SymbolsArgs {
    /// A symbol name, plain or qualified.
    name: String,
    /// Only this kind: function, method, class, interface, type, enum, variable, const.
    kind: Option<String>,
    /// Most results to return.
    #[serde(default = "twenty")]
    #[schemars(range(min = 1, max = 100))]
    limit: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GraphArgs {
    /// The symbol's name.
    symbol: String,
    /// How many call hops to follow (1 = direct).
    #[serde(default = "one")]
    #[schemars(range(min = 1, max = 5))]
    depth: u64,
    /// Most results to return.
    #[serde(default = "twenty")]
    #[schemars(range(min = 1, max = 100))]
    limit: u64,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ImpactArgs {
    /// A commit (against its first parent), `A..B` or `A...B`; none: the work tree against the indexed commit.
    rev: Option<String>,
    /// The staged files against HEAD.
    #[serde(default)]
    staged: bool,
    /// Hops of dependents to follow.
    #[serde(default = "two")]
    #[schemars(range(min = 1, max = 5))]
    depth: u64,
    /// Most impacted definitions and tests listed.
    #[serde(default = "fifty")]
    #[schemars(range(min = 1, max = 500))]
    limit: u64,
    /// A review context of this many tokens, in the answer's `context`.
    #[schemars(range(min = 1, max = 200000))]
    budget: Option<u64>,
    /// What the change is for, in words (a commit message, the issue it fixes): tests it names rank higher. A commit or range reads its commits' subjects.
    message: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct HistoryArgs {
    /// The question (words, a symbol, an error message); empty lists the newest commits.
    #[serde(default)]
    question: String,
    /// Most commits to return.
    #[serde(default = "ten")]
    #[schemars(range(min = 1, max = 100))]
    limit: u64,
    /// Only commits that changed this file or folder (under any name it had).
    path: Option<String>,
    /// Only commits made on or after this date (`2024-05-01`, `2 weeks ago`).
    since: Option<String>,
    /// Only commits made on or before this date.
    until: Option<String>,
    /// Only commits whose changed lines name this symbol.
    symbol: Option<String>,
    /// A digest of this many tokens, in the answer's `context`.
    #[schemars(range(min = 1, max = 200000))]
    budget: Option<u64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct StatusArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct IndexArgs {
    /// A file or directory (relative to the repository root) to index again even if unchanged.
    path: Option<String>,
    /// Rebuild everything.
    #[serde(default)]
    full: bool,
}

/// Arguments of type `T`; a wrong one is a tool error that names the field.
fn parse<T: DeserializeOwned>(args: Map<String, Value>) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(Value::Object(args)).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            ToolError::invalid(e.into_inner().to_string())
        } else {
            ToolError::invalid(format!("`{path}`: {}", e.into_inner()))
        }
    })
}

fn in_range(key: &str, n: u64, max: u64) -> Result<usize, ToolError> {
    if !(1..=max).contains(&n) {
        return Err(ToolError::invalid(format!("`{key}` must be between 1 and {max}, not {n}")));
    }
    Ok(n as usize)
}

fn non_empty(key: &str, s: String) -> Result<String, ToolError> {
    if s.trim().is_empty() {
        return Err(ToolError::invalid(format!("`{key}` is required (a non-empty string)")));
    }
    Ok(s)
}

/// Runs tool `name` with its arguments.
pub fn call(server: &Server, name: &str, args: Map<String, Value>) -> ToolResult {
    match find(name) {
        Some(tool) => (tool.run)(server, args),
        None => Err(ToolError::invalid(format!("unknown tool `{name}`; the tools are {}", names().join(", ")))),
    }
}

fn options(server: &Server, mode: Mode, limit: usize) -> HybridOptions {
    let mut o = HybridOptions::new(QueryOptions::new(mode, limit));
    o.timeout = server.opts.timeout;
    o
}

/// Runs a request through the library's query entry point, as the CLI does:
/// on the local index, or without one on the Qdrant server's.
fn query(server: &Server, request: &QueryRequest) -> Result<QueryOutput, ToolError> {
    let target = match server.engine.current() {
        Ok(engine) => return Ok(git_rag::query(git_rag::QueryTarget::Local(&engine), &server.ws.repo, &server.ws.reranker, request)?.output),
        Err(e @ git_rag::QueryError::NoIndex { .. }) => server.remote()?.ok_or(e)?,
        Err(e) => return Err(e.into()),
    };
    Ok(git_rag::query(git_rag::QueryTarget::Server(&target), &server.ws.repo, &server.ws.reranker, request)?.output)
}

/// The answer to `text` over the work tree, through the same entry point
/// as `search` (a definition written since the index ran is found; the
/// graph answers for the indexed commit with the edited files left out).
fn answer(server: &Server, text: &str, search: HybridOptions) -> Result<git_rag::Answer, ToolError> {
    let request = QueryRequest { text: text.to_string(), search, rerank: false, context_budget: None, worktree: Some(server.ws.layer_options()) };
    match query(server, &request)? {
        QueryOutput::Answer(answer) => Ok(*answer),
        QueryOutput::Context(_) => Err(ToolError::new("a query without a context budget answered with a context".to_string())),
    }
}

fn search(server: &Server, a: SearchArgs) -> ToolResult {
    let mut search = options(server, a.mode.into(), in_range("limit", a.limit, MAX_LIMIT)?);
    search.query.lang = a.language;
    search.query.path = a.path;
    search.query.exclude = a.exclude;
    search.query.min_score = a.min_score;
    search.query.kind = a.kind.as_deref().map(git_rag::kind_named).transpose().map_err(|e| ToolError::invalid(e.to_string()))?;
    search.files = a.files;
    search.explain = a.explain;
    let request =
        QueryRequest { text: non_empty("query", a.query)?, search, rerank: a.rerank, context_budget: None, worktree: Some(server.ws.layer_options()) };
    Ok(serde_json::to_value(query(server, &request)?)?)
}

fn context(server: &Server, a: ContextArgs) -> ToolResult {
    let budget = in_range("budget", a.budget, 200_000)?;
    let search = options(server, Mode::Hybrid, in_range("limit", a.limit, MAX_LIMIT)?);
    let request =
        QueryRequest { text: non_empty("query", a.query)?, search, rerank: false, context_budget: Some(budget), worktree: Some(server.ws.layer_options()) };
    Ok(serde_json::to_value(query(server, &request)?)?)
}

fn symbols(server: &Server, a: SymbolsArgs) -> ToolResult {
    let name = non_empty("name", a.name)?;
    let mut search = options(server, Mode::Symbol, in_range("limit", a.limit, MAX_LIMIT)?);
    search.query.kind = a.kind.as_deref().map(git_rag::kind_named).transpose().map_err(|e| ToolError::invalid(e.to_string()))?;
    let answer = answer(server, &name, search)?;
    // Definitions are name matches; looser matches are offered as suggestions.
    let (defs, others): (Vec<_>, Vec<_>) = answer.response.results.into_iter().partition(|h| h.name_match);
    let definitions: Vec<Value> = defs
        .iter()
        .map(|h| {
            json!({
                "symbol": h.symbol, "kind": h.kind, "language": h.language, "source": h.source,
                "path": h.path, "start_line": h.start_line, "end_line": h.end_line,
                "citation": format!("{}:{}-{}", h.path, h.start_line, h.end_line),
                "signature": h.content.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim(),
                "content": h.content,
            })
        })
        .collect();
    let suggestions: Vec<&str> = others.iter().filter_map(|h| h.symbol.as_deref()).take(5).collect();
    Ok(json!({"name": name, "definitions": definitions, "suggestions": suggestions}))
}

fn graph(server: &Server, a: GraphArgs, relation: Relation) -> ToolResult {
    let symbol = non_empty("symbol", a.symbol)?;
    let depth = in_range("depth", a.depth, MAX_DEPTH)?;
    let mut search = options(server, Mode::Graph, in_range("limit", a.limit, MAX_LIMIT)?);
    search.relation = Some(relation);
    search.depth = depth;
    let answer = answer(server, &symbol, search)?;
    if answer.subjects.is_empty() {
        return Err(ToolError::new(format!("no symbol named `{symbol}` in the code graph (try the `symbols` tool for the exact name)")));
    }
    let key = if relation == Relation::Callers { "callers" } else { "callees" };
    Ok(json!({"symbol": symbol, "subjects": answer.subjects, "depth": depth, key: answer.response.results}))
}

fn impact(server: &Server, a: ImpactArgs) -> ToolResult {
    let target = git_rag::ImpactTarget::parse(a.rev.as_deref().filter(|r| !r.trim().is_empty()), a.staged).map_err(|e| ToolError::invalid(e.to_string()))?;
    let context_budget = a.budget.map(|b| in_range("budget", b, 200_000)).transpose()?;
    let request = git_rag::ImpactRequest {
        target,
        depth: in_range("depth", a.depth, MAX_DEPTH)?,
        limit: in_range("limit", a.limit, 500)?,
        context_budget,
        message: a.message.filter(|m| !m.trim().is_empty()),
        layer: server.ws.layer_options(),
    };
    let impact = git_rag::impact(&server.ws.repo, &server.opts.index_dir, &request).map_err(|e| ToolError::new(e.to_string()))?;
    Ok(serde_json::to_value(impact)?)
}

fn history(server: &Server, a: HistoryArgs) -> ToolResult {
    let request = git_rag::HistoryRequest {
        question: a.question,
        limit: in_range("limit", a.limit, MAX_LIMIT)?,
        path: a.path.filter(|p| !p.trim().is_empty()),
        since: a.since.filter(|d| !d.trim().is_empty()),
        until: a.until.filter(|d| !d.trim().is_empty()),
        symbol: a.symbol.filter(|s| !s.trim().is_empty()),
        context_budget: a.budget.map(|b| in_range("budget", b, 200_000)).transpose()?,
    };
    let answer = git_rag::history(&server.opts.index_dir, &request).map_err(|e| match e {
        git_rag::HistoryError::BadDate { .. } => ToolError::invalid(e.to_string()),
        e => ToolError::new(e.to_string()),
    })?;
    Ok(serde_json::to_value(answer)?)
}

fn status(server: &Server, _: StatusArgs) -> ToolResult {
    let status = git_rag::collect_status(&server.ws.repo, &server.opts.index_dir, &server.ws.backend, false, Some(&server.ws.layer_options()), false)?;
    let mut value = serde_json::to_value(status)?;
    value["server"] = serde_json::to_value(server.engine.status())?;
    Ok(value)
}

fn index(server: &Server, a: IndexArgs) -> ToolResult {
    let mut opts = server.opts.index.clone();
    opts.full = a.full;
    if let Some(path) = a.path {
        let path = path.trim().trim_start_matches("./").to_string();
        if path.is_empty() || path.starts_with('/') || path.split('/').any(|s| s == "..") {
            return Err(ToolError::invalid(format!("`path` must be a path inside the repository, relative to its root, not `{path}`")));
        }
        opts.reindex = vec![path];
    }
    // Our own shared lock on the vector store would keep the run from writing.
    server.engine.release_store();
    let outcome = git_rag::index(&server.ws.repo, &server.opts.index_dir, &opts, &git_rag::Silent)?;
    Ok(serde_json::to_value(&outcome)?)
}

/// The JSON Schema of a tool's arguments (an object schema, subschemas inline).
fn schema<T: JsonSchema>() -> Value {
    let mut schema =
        schemars::generate::SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true).into_generator().into_root_schema_for::<T>().to_value();
    if let Value::Object(o) = &mut schema {
        o.remove("$schema");
        o.remove("title");
        o.entry("properties").or_insert_with(|| json!({}));
    }
    schema
}

/// The `tools/list` answer: each tool's description, its input schema
/// generated from its arguments' struct.
pub fn list() -> Value {
    let described = TOOLS.iter().map(|t| {
        let annotations = if t.read_only {
            json!({"readOnlyHint": true, "openWorldHint": false})
        } else {
            json!({"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
        };
        json!({"name": t.name, "title": t.title, "description": t.description, "inputSchema": (t.schema)(), "annotations": annotations})
    });
    Value::Array(described.collect())
}
