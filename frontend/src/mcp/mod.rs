//! `git rag serve --mcp`: a Model Context Protocol server over stdio.
//!
//! JSON-RPC 2.0, one message per line (the MCP stdio transport). The server
//! answers `initialize` (protocol version negotiation), `ping`, `tools/list`
//! and `tools/call`, and ends cleanly when stdin closes. Requests are handled
//! one at a time, in order, on the calling thread.
//!
//! Why not the `rmcp` crate: a tools-only stdio server needs a handful of
//! methods; the engine is synchronous (rmcp is async throughout and would
//! put a runtime around every call); we negotiate four protocol versions
//! ourselves and need the warm engine's watcher beside the loop. What rmcp
//! would add that matters, tool arguments as typed structs with generated
//! JSON Schemas, comes from `serde` + `schemars` directly ([`tools`]). This
//! layer never lets one bad message stop the server: malformed JSON, unknown
//! methods and unknown tools get JSON-RPC errors; a tool that fails (or
//! panics) gets an MCP tool error.
//!
//! Warm state: the library's [`WarmEngine`] keeps the engine (tantivy
//! readers, code graph, patterns, model, vector store) open between calls,
//! reopens it when a run moved the index, and lets go of the embedded store
//! whenever an indexer waits for it.

pub(crate) mod install;
pub(crate) mod tools;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Map, Value};

use git_rag::{IndexOptions, SemanticSetup, WarmEngine, Workspace};

/// Protocol versions this server speaks, newest first.
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;

/// What the server serves and how it (re)indexes.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    pub index_dir: PathBuf,
    /// `None`: the semantic layer is turned off for queries.
    pub semantic: Option<SemanticSetup>,
    /// The options of the `index` tool's runs.
    pub index: IndexOptions,
    /// How long a dense retrieval may take before the others answer alone.
    pub timeout: Duration,
}

/// An error of a tool call: reported to the client as `isError: true`
/// (over HTTP: 400 when the arguments were at fault, else 422).
#[derive(Debug)]
pub struct ToolError {
    pub message: String,
    /// The arguments were at fault (a wrong type, a limit out of range, an empty query).
    pub invalid: bool,
}

impl ToolError {
    pub fn new(message: String) -> ToolError {
        ToolError { message, invalid: false }
    }

    pub fn invalid(message: String) -> ToolError {
        ToolError { message, invalid: true }
    }
}

impl<E: std::fmt::Display> From<E> for ToolError {
    fn from(e: E) -> ToolError {
        ToolError::new(e.to_string())
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
    ws: Workspace,
    opts: ServeOptions,
    engine: Arc<WarmEngine>,
    /// Without a local index: the Qdrant server's (`git rag index --ci`),
    /// connected on the first query that needs it.
    remote: Mutex<Option<Arc<git_rag::QueryServer>>>,
    /// The version `initialize` agreed on (stdio: one client per process).
    protocol: Mutex<String>,
}

impl Server {
    pub fn new(ws: Workspace, opts: ServeOptions) -> Server {
        let engine = Arc::new(WarmEngine::new(opts.index_dir.clone(), opts.semantic.clone()));
        // Queries see the work tree as it is; events spare them a walk of it when nothing moved.
        if let Some(workdir) = ws.repo.workdir() {
            match git_rag::Watch::start(&workdir, &ws.repo.git_dir()) {
                Ok(watch) => engine.watch_worktree(Arc::new(watch)),
                Err(e) => eprintln!("git-rag: {e}; each query compares the work tree with the index instead"),
            }
        }
        Server { ws, opts, engine, remote: Mutex::new(None), protocol: Mutex::new(PROTOCOL_VERSIONS[0].to_string()) }
    }

    /// The server's index, for queries when there is no local one; `None`
    /// when the vectors are not on a server.
    fn remote(&self) -> Result<Option<Arc<git_rag::QueryServer>>, ToolError> {
        let git_rag::Backend::Server(options) = &self.ws.backend else { return Ok(None) };
        let mut slot = self.remote.lock().map_err(|_| ToolError::new("the server connection lock is poisoned".to_string()))?;
        if slot.is_none() {
            *slot = Some(Arc::new(git_rag::QueryServer::connect(options, &self.ws.model)?));
        }
        Ok(slot.clone())
    }

    /// Opens the index and loads the model on another thread, so the
    /// handshake is not delayed; a call that comes first waits for what it needs.
    pub fn warm_in_background(&self) {
        let engine = Arc::clone(&self.engine);
        std::thread::spawn(move || {
            for problem in engine.warm() {
                eprintln!("git-rag: serve: {problem}");
            }
        });
    }

    /// Reads messages from `input` until it ends, writing answers to `output`.
    pub fn serve(&self, input: impl BufRead, mut output: impl Write) -> std::io::Result<()> {
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
    pub fn handle_text(&self, text: &str) -> Option<Value> {
        self.handle_text_as(text, None)
    }

    /// As [`Server::handle_text`], for a client that names its protocol
    /// version on each request (MCP over HTTP's `MCP-Protocol-Version`)
    /// instead of the one `initialize` agreed on.
    pub fn handle_text_as(&self, text: &str, protocol: Option<&str>) -> Option<Value> {
        match serde_json::from_str::<Value>(text) {
            Err(e) => Some(error_response(Value::Null, RpcError::new(PARSE_ERROR, format!("parse error: {e}")))),
            Ok(Value::Array(batch)) => {
                if batch.is_empty() {
                    return Some(error_response(Value::Null, RpcError::new(INVALID_REQUEST, "an empty batch")));
                }
                let answers: Vec<Value> = batch.into_iter().filter_map(|m| self.handle(m, protocol)).collect();
                (!answers.is_empty()).then_some(Value::Array(answers))
            }
            Ok(message) => self.handle(message, protocol),
        }
    }

    /// Answers one JSON-RPC message; `None` for notifications and responses.
    pub fn handle(&self, message: Value, protocol: Option<&str>) -> Option<Value> {
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
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch(method, &params, protocol)))
            .unwrap_or_else(|p| Err(RpcError::new(INTERNAL_ERROR, format!("internal error: {}", panic_message(&p)))));
        Some(match outcome {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => error_response(id, e),
        })
    }

    fn dispatch(&self, method: &str, params: &Value, protocol: Option<&str>) -> std::result::Result<Value, RpcError> {
        match method {
            "initialize" => Ok(self.initialize(params)),
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": tools::list()})),
            "tools/call" => {
                let name = params.get("name").and_then(Value::as_str).ok_or_else(|| RpcError::new(INVALID_PARAMS, "tools/call needs a `name`"))?;
                if tools::find(name).is_none() {
                    return Err(RpcError::new(INVALID_PARAMS, format!("unknown tool `{name}`; the tools are {}", tools::names().join(", "))));
                }
                let args = match params.get("arguments") {
                    None | Some(Value::Null) => Map::new(),
                    Some(Value::Object(m)) => m.clone(),
                    Some(_) => return Err(RpcError::new(INVALID_PARAMS, "`arguments` must be an object")),
                };
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tools::call(self, name, args)))
                    .unwrap_or_else(|p| Err(ToolError::new(format!("internal error in `{name}`: {}", panic_message(&p)))));
                let protocol = protocol.map_or_else(|| self.protocol(), str::to_string);
                Ok(tool_result(result, &protocol))
            }
            other => Err(RpcError::new(METHOD_NOT_FOUND, format!("method not found: `{other}`"))),
        }
    }

    fn initialize(&self, params: &Value) -> Value {
        let asked = params.get("protocolVersion").and_then(Value::as_str).unwrap_or(PROTOCOL_VERSIONS[0]);
        // The client's version when we speak it, else our newest (the client decides whether to go on).
        let agreed = PROTOCOL_VERSIONS.iter().find(|v| **v == asked).unwrap_or(&PROTOCOL_VERSIONS[0]).to_string();
        if let Ok(mut p) = self.protocol.lock() {
            *p = agreed.clone();
        }
        json!({
            "protocolVersion": agreed,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {"name": "git-rag", "title": "git-rag code retrieval", "version": env!("CARGO_PKG_VERSION")},
            "instructions": "Search this git repository's code: `search` for ranked, cited chunks; `context` for a token-budgeted Markdown context; \
                `symbols` for definitions by name; `callers`/`callees` for the call graph; `status` for freshness; `index` to bring the index to HEAD.",
        })
    }

    /// The protocol version agreed on.
    fn protocol(&self) -> String {
        self.protocol.lock().map(|p| p.clone()).unwrap_or_else(|_| PROTOCOL_VERSIONS[0].to_string())
    }
}

/// The `tools/call` result: text content (JSON or Markdown), plus the
/// same data as `structuredContent` for clients of 2025-06-18 and later.
fn tool_result(result: ToolResult, protocol: &str) -> Value {
    match result {
        Ok(value) => {
            let text = match &value {
                Value::Object(o) if o.get("markdown").is_some_and(Value::is_string) => o["markdown"].as_str().unwrap_or_default().to_string(),
                v => serde_json::to_string(v).unwrap_or_default(),
            };
            let mut out = json!({"content": [{"type": "text", "text": text}], "isError": false});
            if protocol >= "2025-06-18" {
                out["structuredContent"] = value;
            }
            out
        }
        Err(ToolError { message, .. }) => json!({"content": [{"type": "text", "text": message}], "isError": true}),
    }
}

fn error_response(id: Value, e: RpcError) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| p.downcast_ref::<String>().cloned()).unwrap_or_else(|| "a panic".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> (tempfile::TempDir, Server) {
        let dir = tempfile::tempdir().expect("tempdir");
        let ok = std::process::Command::new("git").args(["init", "-q"]).current_dir(dir.path()).status().expect("git");
        assert!(ok.success());
        let mut ws = Workspace::resolve(git_rag::git::Repo::discover(dir.path()).expect("repo"), &Default::default());
        // Vectors in the index folder whatever QDRANT_URL says (the test
        // script sets it for the server tests): without an index, no server to ask.
        ws.backend = git_rag::Backend::embedded();
        let opts = ServeOptions {
            index_dir: dir.path().join("idx"),
            semantic: None,
            index: ws.index_options(Duration::from_secs(5)),
            timeout: Duration::from_secs(5),
        };
        (dir, Server::new(ws, opts))
    }

    fn call(s: &Server, text: &str) -> Value {
        s.handle_text(text).expect("an answer")
    }

    #[test]
    fn negotiates_the_protocol_version() {
        let (_d, s) = server();
        let r = call(
            &s,
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        );
        assert_eq!(r["result"]["protocolVersion"], "2025-03-26");
        assert_eq!(r["result"]["serverInfo"]["name"], "git-rag");
        assert!(r["result"]["capabilities"]["tools"].is_object());
        let r = call(&s, r#"{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"1999-01-01"}}"#);
        assert_eq!(r["result"]["protocolVersion"], PROTOCOL_VERSIONS[0]);
        assert!(s.handle_text(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).is_none());
    }

    #[test]
    fn lists_tools_with_object_schemas() {
        let (_d, s) = server();
        let r = call(&s, r#"{"jsonrpc":"2.0","id":"a","method":"tools/list"}"#);
        assert_eq!(r["id"], "a");
        let tools = r["result"]["tools"].as_array().expect("tools");
        let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
        assert_eq!(names, tools::names());
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
        let (_d, s) = server();
        assert_eq!(call(&s, "{not json")["error"]["code"], PARSE_ERROR);
        assert_eq!(call(&s, "[]")["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&s, "42")["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&s, r#"{"jsonrpc":"2.0","id":3}"#)["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&s, r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#)["error"]["code"], INVALID_REQUEST);
        assert_eq!(call(&s, r#"{"jsonrpc":"2.0","id":4,"method":"nope"}"#)["error"]["code"], METHOD_NOT_FOUND);
        let r = call(&s, r#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}"#);
        assert_eq!(r["error"]["code"], INVALID_PARAMS);
        let r = call(&s, r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":[1]}}"#);
        assert_eq!(r["error"]["code"], INVALID_PARAMS);
        // Tool argument problems are tool errors the model can read.
        let r = call(&s, r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":7}}}"#);
        assert_eq!(r["result"]["isError"], true);
        assert!(r["result"]["content"][0]["text"].as_str().unwrap_or("").contains("`query`"), "{r}");
        let r = call(&s, r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"search","arguments":{"query":"x","limit":0}}}"#);
        assert_eq!(r["result"]["isError"], true);
        // No index yet: a clear tool error, not a crash.
        let r = call(&s, r#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}"#);
        assert_eq!(r["result"]["isError"], true);
        assert!(r["result"]["content"][0]["text"].as_str().unwrap_or("").contains("no index yet"), "{r}");
        assert_eq!(call(&s, r#"{"jsonrpc":"2.0","id":10,"method":"ping"}"#)["result"], json!({}));
        // A batch answers each request, skipping notifications.
        let r =
            call(&s, r#"[{"jsonrpc":"2.0","id":11,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":12,"method":"nope"}]"#);
        assert_eq!(r.as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn serve_reads_lines_until_eof() {
        let (_d, s) = server();
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
