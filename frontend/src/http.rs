//! `git rag serve --http [ADDR]`: the HTTP API for tools that are not MCP
//! stdio clients.
//!
//! - `GET /health`: `healthy`, or `degraded` with the reasons (no index, behind
//!   HEAD, vectors behind, a vector store that does not answer).
//! - `POST /v1/codebase/search`, `POST /v1/codebase/context`: the MCP
//!   `search` / `context` arguments as the JSON body; the same JSON as
//!   `git rag query --json` (`--context --json`), since both go through the
//!   MCP server's tools and the library's one query entry point.
//! - `POST /v1/codebase/index`: an index run (one at a time; another gets 409).
//! - `GET /v1/codebase/stats`: what `git rag status --json` says, plus the warm engine.
//! - `/mcp`: MCP's Streamable HTTP transport (JSON answers; no server-sent stream).
//! - `GET /openapi.json`: this API described, its bodies' schemas generated
//!   from the same structs that parse them.
//!
//! Security: loopback by default; any other address needs a token
//! (`rag.http.token` or `GIT_RAG_HTTP_TOKEN`), sent as `Authorization:
//! Bearer` and compared in constant time. `Host` must name the loopback
//! address when bound to it, and a browser's `Origin` must be a loopback
//! origin (or one `rag.http.allowOrigin` names): DNS rebinding gets 403.
//! Bodies are capped, each request has a deadline, and past a bounded number
//! of requests in flight the answer is 503 with `Retry-After`.

use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context as _, Result};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Map, Value};
use tokio::sync::Semaphore;

use crate::mcp::{self, tools, ToolError};

/// How the HTTP server runs.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    /// `HOST:PORT` (`127.0.0.1:8765`; port 0 picks a free one, printed on stderr).
    pub addr: String,
    /// Required on every endpoint but `/health` when set; required to bind
    /// anything but loopback.
    pub token: Option<String>,
    /// Origins besides loopback ones that may call (`https://app.example`).
    pub allow_origins: Vec<String>,
    /// Requests in flight at once; more get 503.
    pub max_in_flight: usize,
    /// Deadline of one request (index runs excepted).
    pub timeout: Duration,
    /// Largest request body, in bytes; larger gets 413.
    pub max_body: usize,
}

/// Longest query text a search or context request may carry, in characters.
const MAX_QUERY_CHARS: usize = 65_536;

struct App {
    mcp: mcp::Server,
    max_body: usize,
    token: Option<String>,
    allow_origins: Vec<String>,
    /// Bound to loopback: `Host` must say so too.
    loopback: bool,
    permits: Arc<Semaphore>,
    indexing: AtomicBool,
    timeout: Duration,
}

/// Binds, says where on stderr, and serves until SIGINT/SIGTERM.
pub fn serve(server: mcp::Server, opts: HttpOptions) -> Result<()> {
    let addrs: Vec<SocketAddr> = opts.addr.to_socket_addrs().with_context(|| format!("`{}` is not an address to listen on (HOST:PORT)", opts.addr))?.collect();
    let addr = *addrs.first().with_context(|| format!("`{}` resolves to no address", opts.addr))?;
    let loopback = addrs.iter().all(|a| a.ip().is_loopback());
    if !loopback && opts.token.as_deref().is_none_or(str::is_empty) {
        anyhow::bail!(
            "refusing to serve on {addr} without a token: anyone who can reach it could read this repository's code; \
             set `git config rag.http.token` or GIT_RAG_HTTP_TOKEN (clients send `Authorization: Bearer <token>`), or bind 127.0.0.1"
        );
    }
    let app = Arc::new(App {
        mcp: server,
        max_body: opts.max_body,
        token: opts.token.filter(|t| !t.is_empty()),
        allow_origins: opts.allow_origins,
        loopback,
        permits: Arc::new(Semaphore::new(opts.max_in_flight.max(1))),
        indexing: AtomicBool::new(false),
        timeout: opts.timeout,
    });
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().context("starting the HTTP runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await.with_context(|| format!("cannot listen on {addr}"))?;
        let local = listener.local_addr().context("the bound address")?;
        eprintln!(
            "git-rag: HTTP API on http://{local} (MCP at /mcp, OpenAPI at /openapi.json){}",
            if app.token.is_some() { "; a bearer token is required" } else { "" }
        );
        axum::serve(listener, router(app, opts.max_body)).with_graceful_shutdown(shutdown()).await.context("serving HTTP")
    })
}

fn router(app: Arc<App>, max_body: usize) -> Router {
    let mut router = Router::new().route("/health", get(health)).route("/openapi.json", get(openapi));
    // The tools' endpoints, from the tools' table.
    for tool in tools::TOOLS {
        let Some(endpoint) = &tool.http else { continue };
        router = if endpoint.get {
            router.route(endpoint.path, get(move |State(app): State<Arc<App>>| run_tool(app, tool, Bytes::new())))
        } else {
            router.route(endpoint.path, post(move |State(app): State<Arc<App>>, body: Bytes| run_tool(app, tool, body)))
        };
    }
    router
        .route("/mcp", post(mcp_post).get(mcp_no_stream).delete(mcp_no_stream))
        .fallback(|| async { error(StatusCode::NOT_FOUND, "no such endpoint; see /openapi.json") })
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .layer(DefaultBodyLimit::max(max_body))
        .with_state(app)
}

/// The tool an endpoint serves, if `path` is one.
fn endpoint_at(path: &str) -> Option<&'static tools::Endpoint> {
    tools::TOOLS.iter().filter_map(|t| t.http.as_ref()).find(|e| e.path == path)
}

async fn shutdown() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        () = interrupt => {},
        () = terminate => {},
    }
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], json!({"error": message.into()}).to_string()).into_response()
}

/// A request refused before its body was read: the connection is closed
/// after the answer (the unread body would be taken for the next request),
/// and said so, so that a client does not send its next request on it.
fn refused(status: StatusCode, message: impl Into<String>) -> Response {
    let mut r = error(status, message);
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

fn ok_json(value: &Value) -> Response {
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], value.to_string()).into_response()
}

/// Host, Origin, token, then a place among the requests in flight, then the deadline.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let headers = req.headers();
    if app.loopback && !headers.get(header::HOST).and_then(|h| h.to_str().ok()).is_some_and(is_loopback_host) {
        return refused(StatusCode::FORBIDDEN, "the Host header must name the loopback address this server listens on (DNS rebinding protection)");
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or_default();
        if !origin_allowed(origin, &app.allow_origins) {
            return refused(StatusCode::FORBIDDEN, format!("origin `{origin}` may not call this server (rag.http.allowOrigin lists others)"));
        }
    }
    // Refused from its length, before it is read (a body without one is cut at the limit as it is read).
    let length = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if length.is_some_and(|n| n > app.max_body as u64) {
        return refused(StatusCode::PAYLOAD_TOO_LARGE, format!("the body is over {} bytes", app.max_body));
    }
    let path = req.uri().path().to_string();
    if let (Some(token), false) = (&app.token, path == "/health") {
        if !bearer_matches(headers, token) {
            let mut r = refused(StatusCode::UNAUTHORIZED, "a bearer token is required (Authorization: Bearer <rag.http.token>)");
            r.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return r;
        }
    }
    let Ok(_permit) = app.permits.clone().try_acquire_owned() else {
        let mut r = refused(StatusCode::SERVICE_UNAVAILABLE, "too many requests in flight; try again");
        r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return r;
    };
    if endpoint_at(&path).is_some_and(|e| e.long_running) {
        return next.run(req).await;
    }
    match tokio::time::timeout(app.timeout, next.run(req)).await {
        Ok(response) => response,
        Err(_) => error(StatusCode::SERVICE_UNAVAILABLE, format!("no answer within {} s", app.timeout.as_secs_f32())),
    }
}

/// `localhost`, `127.0.0.1`, `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    let host = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://"));
    host.is_some_and(is_loopback_host) || allowed.iter().any(|a| a.trim_end_matches('/') == origin.trim_end_matches('/'))
}

/// `Authorization: Bearer <token>`, compared without an early exit.
fn bearer_matches(headers: &HeaderMap, token: &str) -> bool {
    let given = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer ")).unwrap_or_default();
    constant_time_eq(given.trim().as_bytes(), token.as_bytes())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let mut diff = a.len() ^ b.len();
    for (i, &x) in a.iter().enumerate() {
        diff |= usize::from(x ^ b.get(i % b.len().max(1)).copied().unwrap_or(0));
    }
    diff == 0
}

/// Runs blocking work (the engine, an index run) off the async workers.
async fn blocking<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, Response> {
    tokio::task::spawn_blocking(work).await.map_err(|e| error(StatusCode::INTERNAL_SERVER_ERROR, format!("internal error: {e}")))
}

/// The body as a JSON object (an empty body is `{}`).
fn object(body: &Bytes) -> Result<Map<String, Value>, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(_) => Err("the body must be a JSON object".into()),
        Err(e) => Err(format!("the body is not JSON: {e}")),
    }
}

/// An MCP tool run for an endpoint: 200 with its JSON, 400 when the
/// arguments were at fault, 422 when they were fine but there is no answer
/// (no index yet, no such symbol).
async fn call_tool(app: Arc<App>, name: &'static str, body: Bytes) -> Response {
    let args = match object(&body) {
        Ok(a) => a,
        Err(why) => return error(StatusCode::BAD_REQUEST, why),
    };
    if let Some(q) = args.get("query").and_then(Value::as_str).filter(|q| q.chars().count() > MAX_QUERY_CHARS) {
        return error(StatusCode::PAYLOAD_TOO_LARGE, format!("`query` is {} characters; at most {MAX_QUERY_CHARS}", q.chars().count()));
    }
    let outcome = blocking(move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tools::call(&app.mcp, name, args)))
            .unwrap_or_else(|_| Err(ToolError::new(format!("internal error in `{name}`"))))
    })
    .await;
    match outcome {
        Err(r) => r,
        Ok(Ok(v)) => ok_json(&v),
        Ok(Err(ToolError { message, invalid: true })) => error(StatusCode::BAD_REQUEST, message),
        Ok(Err(ToolError { message, invalid: false })) => error(StatusCode::UNPROCESSABLE_ENTITY, message),
    }
}

/// A tool's endpoint; a long-running one (an index run) one at a time.
async fn run_tool(app: Arc<App>, tool: &'static tools::Tool, body: Bytes) -> Response {
    if !tool.http.as_ref().is_some_and(|e| e.long_running) {
        return call_tool(app, tool.name, body).await;
    }
    if app.indexing.swap(true, Ordering::SeqCst) {
        return error(StatusCode::CONFLICT, "an index run started through this server is in progress; try again when it ends");
    }
    /// Lets the next run start however this one ends.
    struct Done(Arc<App>);
    impl Drop for Done {
        fn drop(&mut self) {
            self.0.indexing.store(false, Ordering::SeqCst);
        }
    }
    let _done = Done(app.clone());
    call_tool(app, tool.name, body).await
}

async fn health(State(app): State<Arc<App>>) -> Response {
    let status = blocking(move || tools::call(&app.mcp, "status", Map::new())).await;
    let mut reasons: Vec<String> = Vec::new();
    let body = match status {
        Err(r) => return r,
        Ok(Err(ToolError { message, .. })) => {
            reasons.push(message);
            Value::Null
        }
        Ok(Ok(s)) => {
            if s["indexed_commit"].is_null() {
                reasons.push("no index yet: run `git rag index` or POST /v1/codebase/index".into());
            } else if s["stale"] == true {
                reasons.push("the index is behind HEAD".into());
            }
            if let Some(b) = s.get("vectors_behind").filter(|b| !b.is_null()) {
                reasons.push(format!("vectors are behind: {}", b["reason"].as_str().unwrap_or("see /v1/codebase/stats")));
            }
            if let Some(e) = s["semantic"]["error"].as_str() {
                reasons.push(format!("the vector store: {e}"));
            }
            s
        }
    };
    let state = if reasons.is_empty() { "healthy" } else { "degraded" };
    ok_json(&json!({"status": state, "reasons": reasons, "indexed_commit": body["indexed_commit"], "head": body["head"]}))
}

/// MCP Streamable HTTP: one JSON-RPC message (or batch) per POST, answered
/// with JSON; notifications and responses get 202 with no body.
async fn mcp_post(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let protocol = headers.get("mcp-protocol-version").and_then(|v| v.to_str().ok()).map(str::to_string);
    if let Some(p) = protocol.as_deref().filter(|p| !mcp::PROTOCOL_VERSIONS.contains(p)) {
        return error(StatusCode::BAD_REQUEST, format!("unsupported MCP-Protocol-Version `{p}`; this server speaks {}", mcp::PROTOCOL_VERSIONS.join(", ")));
    }
    let text = String::from_utf8_lossy(&body).into_owned();
    // Without the header, the version the transport's first revision assumed.
    let protocol = protocol.unwrap_or_else(|| "2025-03-26".to_string());
    match blocking(move || app.mcp.handle_text_as(&text, Some(&protocol))).await {
        Err(r) => r,
        Ok(Some(answer)) => ok_json(&answer),
        Ok(None) => StatusCode::ACCEPTED.into_response(),
    }
}

/// This server opens no server-sent stream and keeps no sessions.
async fn mcp_no_stream() -> Response {
    let mut r = error(StatusCode::METHOD_NOT_ALLOWED, "POST JSON-RPC messages to /mcp; this server sends no event stream");
    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

async fn openapi() -> Response {
    ok_json(&openapi_document())
}

/// The OpenAPI 3.1 description of this API.
pub fn openapi_document() -> Value {
    let error = json!({"description": "what went wrong", "content": {"application/json": {"schema": {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}}}});
    let answer = |what: &str| json!({"description": what, "content": {"application/json": {"schema": {"type": "object"}}}});
    let body = |schema: Value| json!({"required": false, "content": {"application/json": {"schema": schema}}});
    let common = |ok: Value| {
        json!({
            "200": ok, "400": error, "401": error, "403": error, "413": error, "422": error, "503": error,
        })
    };
    let mut paths = Map::new();
    paths.insert("/health".into(), json!({"get": {"summary": "healthy, or degraded with the reasons", "security": [], "responses": {"200": answer("{status, reasons, indexed_commit, head}")}}}));
    for tool in tools::TOOLS {
        let Some(e) = &tool.http else { continue };
        let operation = if e.get {
            json!({"get": {"summary": e.summary, "responses": common(answer(e.answers))}})
        } else if e.long_running {
            json!({"post": {"summary": e.summary, "requestBody": body((tool.schema)()), "responses": {"200": answer(e.answers), "409": error, "400": error, "401": error, "422": error}}})
        } else {
            json!({"post": {"summary": e.summary, "requestBody": body((tool.schema)()), "responses": common(answer(e.answers))}})
        };
        paths.insert(e.path.into(), operation);
    }
    paths.insert("/mcp".into(), json!({"post": {"summary": "MCP Streamable HTTP: a JSON-RPC message or batch, answered with JSON", "responses": {"200": answer("JSON-RPC answer"), "202": {"description": "a notification, accepted"}, "403": error}}}));
    json!({
        "openapi": "3.1.0",
        "info": {"title": "git-rag", "version": env!("CARGO_PKG_VERSION"), "description": "Code retrieval over a git repository's index: the JSON of `git rag query --json`."},
        "components": {"securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}}},
        "security": [{"bearer": []}],
        "paths": paths,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_origins() {
        for h in ["localhost", "localhost:8765", "127.0.0.1:1", "[::1]:8765", "LOCALHOST"] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in ["evil.example", "evil.example:8765", "10.0.0.1:8765", "localhost.evil.example"] {
            assert!(!is_loopback_host(h), "{h}");
        }
        assert!(origin_allowed("http://localhost:3000", &[]));
        assert!(!origin_allowed("http://evil.example", &[]));
        assert!(origin_allowed("https://app.example", &["https://app.example/".into()]));
        assert!(!origin_allowed("null", &[]));
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"secret", b"secret"));
        assert!(!constant_time_eq(b"secre", b"secret"));
        assert!(!constant_time_eq(b"secret!", b"secret"));
        assert!(!constant_time_eq(b"", b"secret"));
        assert!(!constant_time_eq(b"Secret", b"secret"));
    }
}
