//! `git rag serve --mcp`: a Model Context Protocol server over stdio.
//!
//! JSON-RPC 2.0, one message per line (the MCP stdio transport). The server
//! answers `initialize` (protocol version negotiation), `ping`, `tools/list`
//! and `tools/call`, and ends cleanly when stdin closes. Requests are handled
//! one at a time, in order, on the calling thread.
//!
//! Why not an MCP crate: the protocol surface a tools-only stdio server needs
//! is a handful of methods, the engine is synchronous, and the maintained
//! crates (rmcp) bring an async runtime and schema derivation for it. This
//! layer is small, tested message by message, and never lets one bad message
//! stop the server: malformed JSON, unknown methods and unknown tools get
//! JSON-RPC errors; a tool that fails (or panics) gets an MCP tool error.
//!
//! Warm state: the [`Engine`] (tantivy readers, code graph, patterns, the
//! embedding model and the vector store) stays open between calls. Each call
//! compares the index state file's size and mtime with the ones the engine was
//! opened at; when a run (a hook, CI, the `index` tool) moved the index, the
//! engine is reopened and keeps the loaded model. The embedded vector store is
//! held with a shared lock; a watcher thread closes it as soon as an indexer
//! announces it waits to write (see [`crate::store::edge::writer_waiting`]),
//! so a long-lived server never blocks `git rag index`.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use serde_json::{json, Map, Value};

use crate::git::Repo;
use crate::hybrid::{Engine, HybridOptions, SemanticSetup};
use crate::index::IndexOptions;
use crate::intent::Relation;
use crate::search::{Mode, QueryOptions};
use crate::state::{IndexLock, IndexState, LastRun, PendingRun, STATE_FILE};
use crate::store::Backend;

/// Protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

const MAX_LIMIT: u64 = 100;
const MAX_DEPTH: u64 = 5;

/// What the server serves and how it (re)indexes.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub index_dir: PathBuf,
    /// `None`: the semantic layer is turned off for queries.
    pub semantic: Option<SemanticSetup>,
    /// The options of the `index` tool's runs (progress is always off).
    pub index: IndexOptions,
    /// How long a dense retrieval may take before the others answer alone.
    pub timeout: Duration,
}

/// The state file's identity when the engine was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
}

impl Stamp {
    fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp { len: m.len(), modified: m.modified().ok() })
    }
}

struct Loaded {
    engine: Arc<Engine>,
    stamp: Option<Stamp>,
}

/// The engine slot, shared with the watcher thread.
#[derive(Default)]
struct Shared {
    loaded: Mutex<Option<Loaded>>,
    stop: AtomicBool,
    /// The background warm-up has finished (everything it could open is open).
    warm: AtomicBool,
}

/// An error of a tool call: reported to the client as `isError: true`.
#[derive(Debug)]
struct ToolError(String);

impl<E: std::fmt::Display> From<E> for ToolError {
    fn from(e: E) -> ToolError {
        ToolError(e.to_string())
    }
}

type ToolResult = std::result::Result<Value, ToolError>;

/// A JSON-RPC error answer.
#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError { code, message: message.into() }
    }
}

/// The MCP server. [`Server::handle`] answers one message; [`Server::serve`]
/// runs the stdio loop.
pub struct Server {
    repo: Repo,
    opts: ServeOptions,
    shared: Arc<Shared>,
    protocol: String,
    watcher: Option<std::thread::JoinHandle<()>>,
}

impl Server {
    pub fn new(repo: Repo, opts: ServeOptions) -> Server {
        let shared = Arc::new(Shared::default());
        let watcher = matches!(opts.semantic.as_ref().map(|s| &s.backend), Some(Backend::Embedded)).then(|| {
            let shared = Arc::clone(&shared);
            let store_dir = opts.index_dir.join("qdrant");
            std::thread::spawn(move || watch_writers(&shared, &store_dir))
        });
        Server { repo, opts, shared, protocol: PROTOCOL_VERSIONS[0].to_string(), watcher }
    }

    /// Opens the index and loads the model now, so that the first query
    /// costs search time only. Problems are reported, not fatal: the server
    /// answers with what works.
    pub fn warm(&self) -> Vec<String> {
        warm(&self.shared, &self.opts)
    }

    /// [`Server::warm`] on another thread, so the handshake is not delayed;
    /// a call that comes first waits for what it needs.
    pub fn warm_in_background(&self) {
        let (shared, opts) = (Arc::clone(&self.shared), self.opts.clone());
        std::thread::spawn(move || {
            for problem in warm(&shared, &opts) {
                eprintln!("git-rag: serve: {problem}");
            }
            shared.warm.store(true, Ordering::Relaxed);
        });
    }

    /// Reads messages from `input` until it ends, writing answers to `output`.
    pub fn serve(&mut self, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
        let mut input = input;
        let mut line = Vec::new();
        loop {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                break;
            }
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            if let Some(answer) = self.handle_text(&text) {
                let mut bytes = serde_json::to_vec(&answer).unwrap_or_default();
                bytes.push(b'\n');
                output.write_all(&bytes)?;
                output.flush()?;
            }
        }
        Ok(())
    }

    /// Answers one line of input (a message or a batch); `None` for notifications.
    pub fn handle_text(&mut self, text: &str) -> Option<Value> {
        match serde_json::from_str::<Value>(text) {
            Err(e) => Some(error_response(Value::Null, RpcError::new(PARSE_ERROR, format!("parse error: {e}")))),
            Ok(Value::Array(batch)) => {
                if batch.is_empty() {
                    return Some(error_response(Value::Null, RpcError::new(INVALID_REQUEST, "an empty batch")));
                }
                let answers: Vec<Value> = batch.into_iter().filter_map(|m| self.handle(m)).collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            Ok(message) => self.handle(message),
        }
    }

    /// Answers one JSON-RPC message; `None` for notifications and responses.
    pub fn handle(&mut self, message: Value) -> Option<Value> {
        let Value::Object(obj) = message else {
            return Some(error_response(Value::Null, RpcError::new(INVALID_REQUEST, "a message must be a JSON object")));
        };
        let id = obj.get("id").cloned();
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            // A response from the client (we send no requests), or garbage.
            return match id {
                Some(id) if !obj.contains_key("result") && !obj.contains_key("error") => {
                    Some(error_response(id, RpcError::new(INVALID_REQUEST, "a request needs a `method` string")))
                }
                _ => None,
            };
        };
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return id.map(|id| error_response(id, RpcError::new(INVALID_REQUEST, "`jsonrpc` must be \"2.0\"")));
        }
        let params = obj.get("params").cloned().unwrap_or(Value::Null);
        let Some(id) = id else {
            // Notifications (`notifications/initialized`, `notifications/cancelled`, …) need no answer.
            return None;
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch(method, &params)))
            .unwrap_or_else(|p| Err(RpcError::new(INTERNAL_ERROR, format!("internal error: {}", panic_message(&p)))));
        Some(match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => error_response(id, e),
        })
    }

    fn dispatch(&mut self, method: &str, params: &Value) -> std::result::Result<Value, RpcError> {
        match method {
            "initialize" => Ok(self.initialize(params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": tool_list()})),
            "tools/call" => {
                let name = params.get("name").and_then(Value::as_str).ok_or_else(|| RpcError::new(INVALID_PARAMS, "tools/call needs a `name`"))?;
                if !TOOLS.contains(&name) {
                    return Err(RpcError::new(INVALID_PARAMS, format!("unknown tool `{name}`; the tools are {}", TOOLS.join(", "))));
                }
                let args = match params.get("arguments") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => return Err(RpcError::new(INVALID_PARAMS, "`arguments` must be an object")),
                };
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.call_tool(name, &args)))
                    .unwrap_or_else(|p| Err(ToolError(format!("internal error in `{name}`: {}", panic_message(&p)))));
                Ok(self.tool_result(result))
            }
            other => Err(RpcError::new(METHOD_NOT_FOUND, format!("method not found: `{other}`"))),
        }
    }

    fn initialize(&mut self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSIONS[0]);
        // The client's version when we speak it, else our newest (the client decides whether to go on).
        self.protocol = PROTOCOL_VERSIONS.iter().find(|v| **v == asked).unwrap_or(&PROTOCOL_VERSIONS[0]).to_string();
        json!({
            "protocolVersion": self.protocol,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "git-rag", "title": "git-rag code retrieval", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "Search this git repository's code: `search` for ranked, cited chunks; `context` for a token-budgeted Markdown context; \
                `symbols` for definitions by name; `callers`/`callees` for the call graph; `status` for freshness; `index` to bring the index to HEAD.",
        })
    }

    /// The `tools/call` result: text content (JSON or Markdown), plus the
    /// same data as `structuredContent` for clients of 2025-06-18 and later.
    fn tool_result(&self, result: ToolResult) -> Value {
        match result {
            Ok(value) => {
                let text = match &value {
                    Value::Object(o) if o.get("markdown").is_some_and(Value::is_string) => o["markdown"].as_str().unwrap_or_default().to_string(),
                    v => serde_json::to_string(v).unwrap_or_default(),
                };
                let mut out = json!({"content": [{"type": "text", "text": text}], "isError": false});
                if self.protocol.as_str() >= "2025-06-18" {
                    out["structuredContent"] = value;
                }
                out
            }
            Err(ToolError(message)) => json!({"content": [{"type": "text", "text": message}], "isError": true}),
        }
    }

    fn call_tool(&mut self, name: &str, args: &Map<String, Value>) -> ToolResult {
        match name {
            "search" => self.tool_search(args),
            "context" => self.tool_context(args),
            "symbols" => self.tool_symbols(args),
            "callers" => self.tool_graph(args, Relation::Callers),
            "callees" => self.tool_graph(args, Relation::Callees),
            "status" => self.tool_status(),
            "index" => self.tool_index(args),
            other => Err(ToolError(format!("unknown tool `{other}`"))),
        }
    }

    fn engine(&self) -> std::result::Result<Arc<Engine>, ToolError> {
        current_engine(&self.shared, &self.opts)
    }

    fn hybrid_options(&self, mode: Mode, limit: usize) -> HybridOptions {
        let mut o = HybridOptions::new(QueryOptions { mode, limit, lang: None, path: None, kind: None });
        o.timeout = self.opts.timeout;
        o
    }

    fn tool_search(&mut self, args: &Map<String, Value>) -> ToolResult {
        let query = required_str(args, "query")?;
        let mode = match opt_str(args, "mode")?.as_deref() {
            None | Some("hybrid") => Mode::Hybrid,
            Some("keyword") => Mode::Keyword,
            Some("symbol") => Mode::Symbol,
            Some("semantic") => Mode::Semantic,
            Some("graph") => Mode::Graph,
            Some(other) => return Err(ToolError(format!("unknown mode `{other}`: use hybrid, keyword, symbol, semantic or graph"))),
        };
        let mut opts = self.hybrid_options(mode, limit(args, 10)?);
        opts.query.lang = opt_str(args, "language")?;
        opts.query.path = opt_str(args, "path")?;
        opts.query.kind = opt_str(args, "kind")?;
        let engine = self.engine()?;
        let answer = engine.search(&query, &opts)?;
        Ok(serde_json::to_value(&answer)?)
    }

    fn tool_context(&mut self, args: &Map<String, Value>) -> ToolResult {
        let query = required_str(args, "query")?;
        let budget = opt_u64(args, "budget")?.unwrap_or(8000);
        if !(1..=200_000).contains(&budget) {
            return Err(ToolError(format!("`budget` must be between 1 and 200000 tokens, not {budget}")));
        }
        let engine = self.engine()?;
        let answer = engine.search(&query, &self.hybrid_options(Mode::Hybrid, limit(args, 10)?))?;
        let reader = crate::git::BlobReader::new(&self.repo);
        let pieces = crate::hybrid::context_pieces(&engine, &answer, &|path: &str| {
            let blob = engine.state().files.get(path)?;
            let id = gix::ObjectId::from_hex(blob.blob.as_bytes()).ok()?;
            reader.read(&id).ok().map(|b| String::from_utf8_lossy(&b).into_owned())
        })?;
        let ctx = crate::context::assemble(&query, pieces, &crate::context::ContextOptions { budget: budget as usize });
        Ok(serde_json::to_value(&ctx)?)
    }

    fn tool_symbols(&mut self, args: &Map<String, Value>) -> ToolResult {
        let name = required_str(args, "name")?;
        let mut opts = self.hybrid_options(Mode::Symbol, limit(args, 20)?);
        opts.query.kind = opt_str(args, "kind")?;
        let engine = self.engine()?;
        let answer = engine.search(&name, &opts)?;
        // Definitions are name matches; looser matches are offered as suggestions.
        let (defs, others): (Vec<_>, Vec<_>) = answer.response.results.into_iter().partition(|h| h.score >= crate::search::SYMBOL_NAME_MATCH);
        let definitions: Vec<Value> = defs
            .iter()
            .map(|h| {
                json!({
                    "symbol": h.symbol, "kind": h.kind, "language": h.language,
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

    fn tool_graph(&mut self, args: &Map<String, Value>, relation: Relation) -> ToolResult {
        let symbol = required_str(args, "symbol")?;
        let depth = opt_u64(args, "depth")?.unwrap_or(1);
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(ToolError(format!("`depth` must be between 1 and {MAX_DEPTH}, not {depth}")));
        }
        let mut opts = self.hybrid_options(Mode::Graph, limit(args, 20)?);
        opts.relation = Some(relation);
        opts.depth = depth as usize;
        let engine = self.engine()?;
        let answer = engine.search(&symbol, &opts)?;
        if answer.subjects.is_empty() {
            return Err(ToolError(format!("no symbol named `{symbol}` in the code graph (try the `symbols` tool for the exact name)")));
        }
        let key = if relation == Relation::Callers { "callers" } else { "callees" };
        Ok(json!({"symbol": symbol, "subjects": answer.subjects, "depth": depth, key: answer.response.results}))
    }

    fn tool_status(&mut self) -> ToolResult {
        let dir = &self.opts.index_dir;
        let state = IndexState::load(&dir.join(STATE_FILE))?;
        let head = self.repo.head_commit()?.map(|h| h.to_string());
        let indexed = state.as_ref().and_then(|s| s.last_commit.clone());
        let last = LastRun::load(dir);
        let loaded = self.shared.loaded.lock().ok().and_then(|l| l.as_ref().map(|l| Arc::clone(&l.engine)));
        Ok(json!({
            "index_dir": dir.display().to_string(),
            "indexed_commit": indexed,
            "head": head,
            "stale": indexed != head,
            "indexing": IndexLock::is_held(dir),
            "interrupted_run": PendingRun::load(dir).map(|p| p.target),
            "counts": {
                "files": state.as_ref().map_or(0, |s| s.files.len()),
                "chunks": state.as_ref().map_or(0, |s| s.chunk_count()),
                "symbols": state.as_ref().map_or(0, |s| s.symbol_count()),
            },
            "semantic": state.as_ref().and_then(|s| s.semantic.as_ref()).map(|s| json!({"model": s.model, "dims": s.dims, "store": s.store})),
            "last_run": last,
            "server": {
                "warm": self.shared.warm.load(Ordering::Relaxed),
                "engine_open": loaded.is_some(),
                "engine_commit": loaded.as_ref().and_then(|e| e.state().last_commit.clone()),
                "model_loaded": loaded.as_ref().is_some_and(|e| e.embedder().is_some()),
                "store_open": loaded.as_ref().is_some_and(|e| e.store_open()),
            },
        }))
    }

    fn tool_index(&mut self, args: &Map<String, Value>) -> ToolResult {
        let mut opts = self.opts.index.clone();
        opts.progress = false;
        opts.full = opt_bool(args, "full")?.unwrap_or(false);
        if let Some(path) = opt_str(args, "path")? {
            let path = path.trim().trim_start_matches("./").to_string();
            if path.is_empty() || path.starts_with('/') || path.split('/').any(|s| s == "..") {
                return Err(ToolError(format!("`path` must be a path inside the repository, relative to its root, not `{path}`")));
            }
            opts.reindex = vec![path];
        }
        // Our own shared lock on the vector store would keep the run from writing.
        if let Ok(slot) = self.shared.loaded.lock() {
            if let Some(l) = slot.as_ref() {
                l.engine.release_store();
            }
        }
        let outcome = crate::index::run(&self.repo, &self.opts.index_dir, &opts)?;
        Ok(serde_json::to_value(&outcome)?)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Relaxed);
        if let Some(w) = self.watcher.take() {
            let _ = w.join();
        }
    }
}

fn warm(shared: &Shared, opts: &ServeOptions) -> Vec<String> {
    match current_engine(shared, opts) {
        Ok(e) => e.warm(),
        Err(e) => vec![e.0],
    }
}

/// The engine for the index as it is now: reopened when a run moved it.
fn current_engine(shared: &Shared, opts: &ServeOptions) -> std::result::Result<Arc<Engine>, ToolError> {
    let state_path = opts.index_dir.join(STATE_FILE);
    let stamp = Stamp::of(&state_path);
    let mut slot = shared.loaded.lock().map_err(|_| ToolError("the engine lock is poisoned".into()))?;
    if let Some(loaded) = slot.as_ref() {
        if loaded.stamp == stamp {
            return Ok(Arc::clone(&loaded.engine));
        }
    }
    let state = IndexState::load(&state_path)?.filter(|s| s.last_commit.is_some()).ok_or_else(|| {
        ToolError(format!("there is no index yet at {}; call the `index` tool (or run `git rag index`)", opts.index_dir.display()))
    })?;
    let engine = Engine::open(&opts.index_dir, state, opts.semantic.clone())?;
    if let Some(old) = slot.take() {
        // The model is the same file whatever the index: keep it loaded.
        if let Some(model) = old.engine.embedder() {
            engine.adopt_embedder(model);
        }
        old.engine.release_store();
    }
    let engine = Arc::new(engine);
    *slot = Some(Loaded { engine: Arc::clone(&engine), stamp });
    Ok(engine)
}

/// Closes the embedded store whenever an indexer waits to write it.
fn watch_writers(shared: &Shared, store_dir: &Path) {
    while !shared.stop.load(Ordering::Relaxed) {
        if crate::store::edge::writer_waiting(store_dir) {
            if let Ok(slot) = shared.loaded.try_lock() {
                if let Some(l) = slot.as_ref() {
                    l.engine.release_store();
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

const TOOLS: &[&str] = &["search", "context", "symbols", "callers", "callees", "status", "index"];

fn tool_list() -> Value {
    let limit = |default: u64| json!({"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": default, "description": "Most results to return."});
    let depth = json!({"type": "integer", "minimum": 1, "maximum": MAX_DEPTH, "default": 1, "description": "How many call hops to follow (1 = direct)."});
    let read_only = json!({"readOnlyHint": true, "openWorldHint": false});
    json!([
        {
            "name": "search",
            "title": "Search the code",
            "description": "Hybrid code search over the repository (BM25, symbol names, embeddings and the call graph, fused). \
                Returns ranked chunks with path, line range, symbol, kind, content and per-retriever signals.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "Words, identifiers or a question."},
                    "limit": limit(10),
                    "mode": {"type": "string", "enum": ["hybrid", "keyword", "symbol", "semantic", "graph"], "default": "hybrid",
                             "description": "hybrid fuses every retriever; the others force one."},
                    "language": {"type": "string", "description": "Only this language: python, javascript, typescript, tsx, markdown, text."},
                    "path": {"type": "string", "description": "Only paths matching this glob (`src/**/*.py`; without `/` it matches file names)."},
                    "kind": {"type": "string", "description": "Only this kind: function, method, class, code, file, …"},
                },
                "required": ["query"],
                "additionalProperties": false,
            },
            "annotations": read_only,
        },
        {
            "name": "context",
            "title": "Build a cited context",
            "description": "A token-budgeted Markdown context for a question: definitions, relevant code, file context and project \
                patterns, each piece cited as path:start-end. Tokens counted with cl100k_base; the budget is never exceeded.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The question or task."},
                    "budget": {"type": "integer", "minimum": 1, "maximum": 200000, "default": 8000, "description": "Tokens the context may use."},
                    "limit": limit(10),
                },
                "required": ["query"],
                "additionalProperties": false,
            },
            "annotations": read_only,
        },
        {
            "name": "symbols",
            "title": "Find definitions",
            "description": "Definitions of a symbol by name (`Session`, `Session.send`, `parse_url`): path, lines, kind, signature and code.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "A symbol name, plain or qualified."},
                    "kind": {"type": "string", "description": "Only this kind: function, method, class, interface, type, enum, variable, const."},
                    "limit": limit(20),
                },
                "required": ["name"],
                "additionalProperties": false,
            },
            "annotations": read_only,
        },
        {
            "name": "callers",
            "title": "Who calls this",
            "description": "Functions and modules that call a symbol, from the code graph, up to `depth` hops.",
            "inputSchema": {
                "type": "object",
                "properties": {"symbol": {"type": "string", "description": "The called symbol's name."}, "depth": depth, "limit": limit(20)},
                "required": ["symbol"],
                "additionalProperties": false,
            },
            "annotations": read_only,
        },
        {
            "name": "callees",
            "title": "What this calls",
            "description": "Functions a symbol calls, from the code graph, up to `depth` hops.",
            "inputSchema": {
                "type": "object",
                "properties": {"symbol": {"type": "string", "description": "The calling symbol's name."}, "depth": depth, "limit": limit(20)},
                "required": ["symbol"],
                "additionalProperties": false,
            },
            "annotations": read_only,
        },
        {
            "name": "status",
            "title": "Index status",
            "description": "Which commit the index is at, whether it is behind HEAD, whether a run is in progress, counts and the last run.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "annotations": read_only,
        },
        {
            "name": "index",
            "title": "Update the index",
            "description": "Bring the index to HEAD now (only what changed), or re-index one file or directory, or rebuild in full.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "A file or directory (relative to the repository root) to index again even if unchanged."},
                    "full": {"type": "boolean", "default": false, "description": "Rebuild everything."},
                },
                "additionalProperties": false,
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
        },
    ])
}

fn error_response(id: Value, e: RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "a panic".into())
}

fn required_str(args: &Map<String, Value>, key: &str) -> std::result::Result<String, ToolError> {
    match opt_str(args, key)? {
        Some(s) if !s.trim().is_empty() => Ok(s),
        _ => Err(ToolError(format!("`{key}` is required (a non-empty string)"))),
    }
}

fn opt_str(args: &Map<String, Value>, key: &str) -> std::result::Result<Option<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ToolError(format!("`{key}` must be a string, not {other}"))),
    }
}

fn opt_u64(args: &Map<String, Value>, key: &str) -> std::result::Result<Option<u64>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_u64().map(Some).ok_or_else(|| ToolError(format!("`{key}` must be a positive integer, not {v}"))),
    }
}

fn opt_bool(args: &Map<String, Value>, key: &str) -> std::result::Result<Option<bool>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(other) => Err(ToolError(format!("`{key}` must be true or false, not {other}"))),
    }
}

fn limit(args: &Map<String, Value>, default: u64) -> std::result::Result<usize, ToolError> {
    let n = opt_u64(args, "limit")?.unwrap_or(default);
    if !(1..=MAX_LIMIT).contains(&n) {
        return Err(ToolError(format!("`limit` must be between 1 and {MAX_LIMIT}, not {n}")));
    }
    Ok(n as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> (tempfile::TempDir, Server) {
        let dir = tempfile::tempdir().expect("tempdir");
        let ok = std::process::Command::new("git").args(["init", "-q"]).current_dir(dir.path()).status().expect("git");
        assert!(ok.success());
        let repo = Repo::discover(dir.path()).expect("repo");
        let opts = ServeOptions { index_dir: dir.path().join("idx"), semantic: None, index: IndexOptions::default(), timeout: Duration::from_secs(5) };
        (dir, Server::new(repo, opts))
    }

    fn call(s: &mut Server, text: &str) -> Value {
        s.handle_text(text).expect("an answer")
    }

    #[test]
    fn negotiates_the_protocol_version() {
        let (_d, mut s) = server();
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
        assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
        assert_eq!(r["result"]["serverInfo"]["name"], "git-rag");
        assert!(r["result"]["capabilities"]["tools"].is_object());
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#);
        assert_eq!(r["result"]["protocolVersion"], PROTOCOL_VERSIONS[0]);
        assert!(s.handle_text(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_none());
    }

    #[test]
    fn lists_tools_with_object_schemas() {
        let (_d, mut s) = server();
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#);
        assert_eq!(r["id"], "a");
        let tools = r["result"]["tools"].as_array().expect("tools");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, TOOLS);
        for t in tools {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            for req in t["inputSchema"]["required"].as_array().into_iter().flatten() {
                let key = req.as_str().expect("string");
                assert!(t["inputSchema"]["properties"][key].is_object(), "{t}");
            }
        }
    }

    #[test]
    fn bad_messages_get_errors_and_the_server_goes_on() {
        let (_d, mut s) = server();
        assert_eq!(call(&mut s, "{not json")["error"]["code"], PARSE_ERROR);
        assert_eq!(call(&mut s, "[]")["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&mut s, "42")["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&mut s, r#"{"jsonrpc":"2.0","id":3}"#)["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&mut s, r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#)["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&mut s, r#"{"jsonrpc":"2.0","id":4,"method":"nope"}"#)["error"]["code"], METHOD_NOT_FOUND);
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}"#);
        assert_eq!(r["error"]["code"], INVALID_PARAMS);
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":[1]}}"#);
        assert_eq!(r["error"]["code"], INVALID_PARAMS);
        // Tool argument problems are tool errors the model can read.
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":7}}}"#);
        assert_eq!(r["result"]["isError"], true);
        assert!(r["result"]["content"][0]["text"].as_str().unwrap_or("").contains("`query`"), "{r}");
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","limit":0}}}"#);
        assert_eq!(r["result"]["isError"], true);
        // No index yet: a clear tool error, not a crash.
        let r = call(&mut s, r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}"#);
        assert_eq!(r["result"]["isError"], true);
        assert!(r["result"]["content"][0]["text"].as_str().unwrap_or("").contains("no index yet"), "{r}");
        assert_eq!(call(&mut s, r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#)["result"], json!({}));
        // A batch answers each request, skipping notifications.
        let r = call(&mut s, r#"[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":12,"method":"nope"}]"#);
        assert_eq!(r.as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn serve_reads_lines_until_eof() {
        let (_d, mut s) = server();
        let input = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n\n\xff\xfe garbage\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
        let mut out = Vec::new();
        s.serve(&input[..], &mut out).expect("serve");
        let lines: Vec<Value> = String::from_utf8(out).expect("utf-8").lines().map(|l| serde_json::from_str(l).expect("json")).collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0]["id"], 1);
        assert_eq!(lines[1]["error"]["code"], PARSE_ERROR);
        assert_eq!(lines[2]["id"], 2);
    }
}
