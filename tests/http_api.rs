//! `git rag serve --http` as a child process on a real repository: every
//! endpoint answers as the CLI does, MCP over HTTP, bad requests, tokens,
//! Host/Origin checks, limits, one index run at a time, and a bounded load
//! test whose answers equal the CLI's.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::{stderr, TestRepo};
use crate::mcp::comparable;

struct Http {
    child: Child,
    base: String,
    agent: ureq::Agent,
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Http {
    /// Starts the server on a free loopback port (or `addr`) and waits for its address line.
    fn start(repo: &TestRepo, extra: &[&str], env: &[(&str, &str)]) -> Http {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rag"));
        cmd.args(["serve", "--http", "127.0.0.1:0"])
            .args(extra)
            .current_dir(repo.path())
            .env_remove("GIT_RAG_DIR")
            .env_remove("QDRANT_URL")
            .env_remove("GIT_RAG_HTTP_TOKEN")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("the server starts");
        let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
        let base = loop {
            let line = lines.next().expect("the server printed its address").expect("stderr line");
            if let Some(rest) = line.split("HTTP API on ").nth(1) {
                break rest.split_whitespace().next().expect("an address").to_string();
            }
        };
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || lines.for_each(drop));
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).timeout_global(Some(Duration::from_secs(120))).build().into();
        Http { child, base, agent }
    }

    fn get(&self, path: &str, headers: &[(&str, &str)]) -> (u16, Value) {
        let mut req = self.agent.get(&format!("{}{path}", self.base));
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut r = req.call().expect("GET answered");
        let status = r.status().as_u16();
        let text = r.body_mut().read_to_string().unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    fn post_raw(&self, path: &str, body: &str, headers: &[(&str, &str)]) -> (u16, Value) {
        let mut req = self.agent.post(&format!("{}{path}", self.base)).header("Content-Type", "application/json");
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        let mut r = req.send(body).expect("POST answered");
        let status = r.status().as_u16();
        let text = r.body_mut().with_config().limit(64 << 20).read_to_string().unwrap_or_default();
        (status, serde_json::from_str(&text).unwrap_or(Value::String(text)))
    }

    fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.post_raw(path, &body.to_string(), &[])
    }
}

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "rag.semantic", "false"]);
    repo.write("pkg/sessions.py", "from .auth import check_token\n\n\nclass Session:\n    \"\"\"Keeps cookies and settings across requests.\"\"\"\n\n    def send(self, request):\n        check_token(request.token)\n        return request\n\n\ndef persist_session(session, path):\n    \"\"\"Write the session cookies to disk.\"\"\"\n    with open(path, \"w\") as fh:\n        fh.write(str(session))\n");
    repo.write(
        "pkg/auth.py",
        "def check_token(token):\n    \"\"\"Reject empty tokens.\"\"\"\n    if not token:\n        raise ValueError(\"empty token\")\n    return token\n",
    );
    repo.write("web/routes.js", "function listUsers(req, res) {\n  res.json([]);\n}\n\nmodule.exports = { listUsers };\n");
    repo.commit("first");
    repo
}

fn cli(repo: &TestRepo, args: &[&str]) -> Value {
    serde_json::from_str(&repo.rag_ok(args)).expect("CLI JSON")
}

#[test]
fn every_endpoint_answers_as_the_cli_does() {
    let repo = repo();
    let http = Http::start(&repo, &["--lazy"], &[]);
    // No index yet: health says why, a search is a clear 422.
    let (s, v) = http.get("/health", &[]);
    assert_eq!((s, v["status"].as_str()), (200, Some("degraded")), "{v}");
    assert!(v["reasons"].to_string().contains("no index yet"), "{v}");
    let (s, v) = http.post("/v1/codebase/search", json!({"query": "session"}));
    assert_eq!(s, 422, "{v}");
    assert!(v["error"].as_str().is_some_and(|e| e.contains("no index yet")), "{v}");

    let (s, v) = http.post("/v1/codebase/index", json!({}));
    assert_eq!(s, 200, "{v}");
    let head = repo.git(&["rev-parse", "HEAD"]);
    let (s, v) = http.get("/health", &[]);
    assert_eq!((s, v["status"].as_str(), v["indexed_commit"].as_str()), (200, Some("healthy"), Some(head.as_str())), "{v}");
    let (s, v) = http.get("/v1/codebase/stats", &[]);
    assert_eq!((s, v["indexed_commit"].as_str()), (200, Some(head.as_str())), "{v}");
    assert_eq!(v["counts"], cli(&repo, &["status", "--json"])["counts"]);

    for (body, flags) in [
        (json!({"query": "how are sessions persisted?"}), vec![]),
        (json!({"query": "check_token", "mode": "symbol", "limit": 3}), vec!["--mode", "symbol", "-n", "3"]),
        (json!({"query": "token", "exclude": ["pkg/auth.py"], "language": "python"}), vec!["--exclude", "pkg/auth.py", "--lang", "python"]),
        (json!({"query": "session cookies", "files": true}), vec!["--files"]),
    ] {
        let text = body["query"].as_str().expect("query").to_string();
        let (s, v) = http.post("/v1/codebase/search", body.clone());
        assert_eq!(s, 200, "{v}");
        let mut args = vec!["query", &text, "--json"];
        args.extend(flags);
        assert_eq!(comparable(v), comparable(cli(&repo, &args)), "{body}");
    }
    let (s, v) = http.post("/v1/codebase/context", json!({"query": "how are sessions persisted?", "budget": 1500}));
    assert_eq!(s, 200, "{v}");
    let want = cli(&repo, &["query", "how are sessions persisted?", "--context", "--budget", "1500", "--json"]);
    assert_eq!(v["markdown"], want["markdown"]);
    assert!(v["tokens"].as_u64().is_some_and(|t| t > 0 && t <= 1500), "{v}");

    // What an edit touches, as `git rag impact --json` says.
    repo.write("pkg/auth.py", "def check_token(token):\n    if not token:\n        raise ValueError(\"no token\")\n    return token\n");
    let (s, v) = http.post("/v1/codebase/impact", json!({}));
    assert_eq!(s, 200, "{v}");
    let strip = |mut v: Value| {
        v.as_object_mut().map(|o| o.remove("took_ms"));
        v
    };
    assert_eq!(strip(v.clone()), strip(cli(&repo, &["impact", "--json"])), "{v}");
    assert_eq!(v["impacted"][0]["symbol"], "Session.send", "{v}");
    repo.git(&["checkout", "--", "pkg/auth.py"]);

    // The commits that answer, as `git rag history --json` says.
    let (s, v) = http.post("/v1/codebase/history", json!({"question": "check the token", "limit": 3}));
    assert_eq!(s, 200, "{v}");
    assert_eq!(v, cli(&repo, &["history", "check the token", "-n", "3", "--json"]));
    assert!(!v["commits"].as_array().unwrap().is_empty(), "{v}");
    let (s, v) = http.post("/v1/codebase/history", json!({"question": "x", "until": "not a date at all"}));
    assert_eq!(s, 400, "{v}");

    // MCP's Streamable HTTP transport: the same tools, the same answers.
    let (s, v) = http.post("/mcp", json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
    assert_eq!((s, v["result"]["protocolVersion"].as_str()), (200, Some("2025-06-18")), "{v}");
    let (s, _) = http.post("/mcp", json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    assert_eq!(s, 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": {"query": "check the token"}}});
    let (s, v) = http.post_raw("/mcp", &call.to_string(), &[("MCP-Protocol-Version", "2025-06-18")]);
    assert_eq!(s, 200);
    let (_, rest) = http.post("/v1/codebase/search", json!({"query": "check the token"}));
    assert_eq!(comparable(v["result"]["structuredContent"].clone()), comparable(rest));
    let (s, v) = http.post_raw("/mcp", &call.to_string(), &[("MCP-Protocol-Version", "1999-01-01")]);
    assert_eq!(s, 400, "{v}");
    let (s, _) = http.get("/mcp", &[]);
    assert_eq!(s, 405);

    let (s, v) = http.get("/openapi.json", &[]);
    assert_eq!((s, v["openapi"].as_str()), (200, Some("3.1.0")));
    for p in [
        "/health",
        "/v1/codebase/search",
        "/v1/codebase/context",
        "/v1/codebase/impact",
        "/v1/codebase/history",
        "/v1/codebase/index",
        "/v1/codebase/stats",
        "/mcp",
    ] {
        assert!(v["paths"][p].is_object(), "{p}");
    }
    let search_schema = &v["paths"]["/v1/codebase/search"]["post"]["requestBody"]["content"]["application/json"]["schema"];
    assert!(search_schema["properties"]["query"].is_object() && search_schema["properties"]["exclude"].is_object(), "{search_schema}");
    assert_eq!(http.get("/v2/nothing", &[]).0, 404);

    // A commit, then an index run through the API moves what it answers from.
    repo.write("pkg/cache.py", "def evict_expired(cache):\n    return {k: v for k, v in cache.items() if not v.expired}\n");
    let head = repo.commit("cache");
    assert_eq!(http.post("/v1/codebase/index", json!({})).0, 200);
    let (_, v) = http.post("/v1/codebase/search", json!({"query": "evict_expired", "mode": "symbol"}));
    assert_eq!(v["results"][0]["path"], "pkg/cache.py", "{v}");
    assert_eq!(http.get("/health", &[]).1["indexed_commit"].as_str(), Some(head.as_str()));
}

#[test]
fn bad_requests_get_clear_errors_and_the_server_goes_on() {
    let repo = repo();
    repo.rag_ok(&["index", "-q"]);
    let http = Http::start(&repo, &["--lazy"], &[]);
    let cases: Vec<(&str, String, u16, &str)> = vec![
        ("/v1/codebase/search", "{not json".into(), 400, "not JSON"),
        ("/v1/codebase/search", "[1, 2]".into(), 400, "a JSON object"),
        ("/v1/codebase/search", json!({"query": "x", "colour": "red"}).to_string(), 400, "colour"),
        ("/v1/codebase/search", json!({"query": "x", "limit": 0}).to_string(), 400, "`limit` must be between 1 and 100"),
        ("/v1/codebase/search", json!({"query": 7}).to_string(), 400, "`query`"),
        ("/v1/codebase/search", json!({"query": "x", "language": "cobol"}).to_string(), 400, "cobol"),
        ("/v1/codebase/search", json!({"query": "x".repeat(70_000)}).to_string(), 413, "at most 65536"),
        ("/v1/codebase/index", json!({"path": "../../etc/passwd"}).to_string(), 400, "inside the repository"),
        ("/v1/codebase/context", json!({"query": "   "}).to_string(), 400, "`query` is required"),
    ];
    for (path, body, status, why) in cases {
        let (s, v) = http.post_raw(path, &body, &[]);
        assert_eq!(s, status, "{path} {}: {v}", &body[..body.len().min(80)]);
        assert!(v["error"].as_str().is_some_and(|e| e.contains(why)), "{path}: {v}");
    }
    // A body over the limit (1 MiB) is refused from its Content-Length, before any of it is sent.
    let addr = http.base.trim_start_matches("http://").to_string();
    let mut stream = std::net::TcpStream::connect(&addr).expect("connect");
    let head = format!("POST /v1/codebase/search HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n", 2 << 20);
    std::io::Write::write_all(&mut stream, head.as_bytes()).expect("send the head");
    stream.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let mut answer = Vec::new();
    let mut buf = [0u8; 1024];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match std::io::Read::read(&mut stream, &mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    // DNS rebinding: a foreign Origin or Host is refused, on /mcp and everywhere.
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    for headers in [vec![("Origin", "http://evil.example")], vec![("Host", "evil.example:8765")], vec![("Origin", "null")]] {
        let (s, v) = http.post_raw("/mcp", &ping, &headers);
        assert_eq!(s, 403, "{headers:?}: {v}");
        assert_eq!(http.post_raw("/v1/codebase/search", &json!({"query": "x"}).to_string(), &headers).0, 403, "{headers:?}");
    }
    let (s, v) = http.post_raw("/mcp", &ping, &[("Origin", "http://localhost:3000")]);
    assert_eq!((s, v["result"].clone()), (200, json!({})), "{v}");
    // Still serving.
    assert_eq!(http.post("/v1/codebase/search", json!({"query": "session"})).0, 200);
}

#[test]
fn a_token_guards_every_endpoint_but_health_and_other_addresses_need_one() {
    let repo = repo();
    repo.rag_ok(&["index", "-q"]);
    let http = Http::start(&repo, &["--lazy"], &[("GIT_RAG_HTTP_TOKEN", "s3cret-token")]);
    let body = json!({"query": "session"}).to_string();
    let (s, v) = http.post_raw("/v1/codebase/search", &body, &[]);
    assert_eq!(s, 401, "{v}");
    // Refused before its body was read: the connection is closed, and said
    // so, or a client would send its next request on it.
    let refused = http.agent.post(&format!("{}/v1/codebase/search", http.base)).header("Content-Type", "application/json").send(&body).expect("POST answered");
    assert_eq!(refused.headers().get("connection").and_then(|v| v.to_str().ok()), Some("close"));
    assert_eq!(http.post_raw("/v1/codebase/search", &body, &[("Authorization", "Bearer s3cret-tokeN")]).0, 401);
    assert_eq!(http.post_raw("/v1/codebase/search", &body, &[("Authorization", "Bearer s3cret")]).0, 401);
    assert_eq!(http.post_raw("/mcp", &json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string(), &[]).0, 401);
    assert_eq!(http.post_raw("/v1/codebase/search", &body, &[("Authorization", "Bearer s3cret-token")]).0, 200);
    assert_eq!(http.get("/health", &[]).0, 200);
    drop(http);

    // Anything but loopback without a token: refused, and said why.
    let out = Command::new(env!("CARGO_BIN_EXE_git-rag"))
        .args(["serve", "--http", "0.0.0.0:0"])
        .current_dir(repo.path())
        .env_remove("GIT_RAG_HTTP_TOKEN")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    assert!(stderr(&out).contains("refusing to serve on 0.0.0.0") && stderr(&out).contains("rag.http.token"), "{}", stderr(&out));
    // With a token (from git config) it starts.
    repo.git(&["config", "rag.http.token", "from-config"]);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rag"));
    let mut child = cmd
        .args(["serve", "--http", "0.0.0.0:0", "--lazy"])
        .current_dir(repo.path())
        .env_remove("GIT_RAG_HTTP_TOKEN")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let mut line = String::new();
    BufReader::new(child.stderr.take().expect("stderr")).read_line(&mut line).expect("a line");
    let _ = child.kill();
    let _ = child.wait();
    assert!(line.contains("HTTP API on http://0.0.0.0:") && line.contains("bearer token is required"), "{line}");
}

/// Starts an index run on another thread (asking again while the server
/// is full, 503); sends its status when it ends.
fn index_in_background(base: &str, done: std::sync::mpsc::Sender<u16>) {
    let base = base.to_string();
    std::thread::spawn(move || {
        let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
        let deadline = Instant::now() + Duration::from_secs(20);
        let status = loop {
            let status = agent.post(&format!("{base}/v1/codebase/index")).send(json!({"full": true}).to_string()).map_or(0, |r| r.status().as_u16());
            if status != 503 || Instant::now() > deadline {
                break status;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let _ = done.send(status);
    });
}

/// Holds the index lock as another indexer would, until dropped: a run
/// started through the API waits for it (up to 30 s), so it is surely in flight.
fn hold_index_lock(repo: &TestRepo) -> std::fs::File {
    let lock = std::fs::OpenOptions::new().create(true).truncate(false).write(true).open(repo.default_index_dir().join("index.lock")).expect("the lock file");
    lock.lock().expect("the index lock");
    lock
}

#[test]
fn one_index_run_at_a_time_and_a_bounded_number_in_flight() {
    let repo = repo();
    repo.rag_ok(&["index", "-q"]);
    {
        // Two runs asked for while another indexer holds the lock: whichever
        // arrives first waits for the lock, the other is told 409 at once.
        let http = Http::start(&repo, &["--lazy", "--max-in-flight", "4"], &[]);
        let held = hold_index_lock(&repo);
        let (tx, rx) = std::sync::mpsc::channel();
        index_in_background(&http.base, tx.clone());
        index_in_background(&http.base, tx);
        assert_eq!(rx.recv_timeout(Duration::from_secs(25)), Ok(409), "the second run is refused while the first waits");
        drop(held);
        assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(200), "the first run ends once the lock is free");
        // That run is over: the next may start.
        assert_eq!(http.post("/v1/codebase/index", json!({})).0, 200);
        assert_eq!(http.post("/v1/codebase/search", json!({"query": "check_token", "mode": "symbol"})).1["results"][0]["path"], "pkg/auth.py");
    }
    // One request in flight at most: while a run holds it, others get 503 and when to retry.
    let http = Http::start(&repo, &["--lazy", "--max-in-flight", "1"], &[]);
    let held = hold_index_lock(&repo);
    let (tx, rx) = std::sync::mpsc::channel();
    index_in_background(&http.base, tx);
    let deadline = Instant::now() + Duration::from_secs(20);
    let refused = loop {
        let mut r = http.agent.get(&format!("{}/v1/codebase/stats", http.base)).call().expect("answered");
        if r.status().as_u16() == 503 {
            break (r.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string), r.body_mut().read_to_string().unwrap_or_default());
        }
        assert!(Instant::now() < deadline, "no 503 while the only place was taken");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(refused.0.as_deref(), Some("1"));
    assert!(refused.1.contains("too many requests in flight"), "{}", refused.1);
    drop(held);
    assert_eq!(rx.recv_timeout(Duration::from_secs(60)), Ok(200));
    assert_eq!(http.get("/v1/codebase/stats", &[]).0, 200);
}

#[test]
fn four_clients_for_ten_seconds_get_the_cli_answers() {
    let repo = repo();
    repo.rag_ok(&["index", "-q"]);
    let http = Http::start(&repo, &[], &[]);
    let queries = ["how are sessions persisted?", "check_token", "list users", "empty token error"];
    let want: Vec<Value> = queries.iter().map(|q| comparable(cli(&repo, &["query", q, "--json"]))).collect();
    let deadline = Instant::now() + Duration::from_secs(10);
    let clients: Vec<_> = (0..4)
        .map(|c| {
            let (base, want) = (http.base.clone(), want.clone());
            std::thread::spawn(move || {
                let agent: ureq::Agent = ureq::Agent::config_builder().http_status_as_error(false).build().into();
                let mut times = Vec::new();
                let mut i = c;
                while Instant::now() < deadline {
                    let q = queries[i % queries.len()];
                    let t = Instant::now();
                    let mut r = agent.post(&format!("{base}/v1/codebase/search")).send(json!({"query": q}).to_string()).expect("answered");
                    let status = r.status().as_u16();
                    let v: Value = serde_json::from_str(&r.body_mut().read_to_string().expect("body")).expect("JSON");
                    times.push(t.elapsed().as_secs_f64() * 1000.0);
                    assert_eq!(status, 200, "{v}");
                    assert_eq!(comparable(v), want[i % queries.len()], "{q}");
                    i += 1;
                }
                times
            })
        })
        .collect();
    let mut times: Vec<f64> = clients.into_iter().flat_map(|c| c.join().expect("a client")).collect();
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    eprintln!("HTTP search under 4 clients: {} requests, p50 {:.1} ms, p95 {:.1} ms", times.len(), pct(0.5), pct(0.95));
    assert!(times.len() >= 8, "every client got answers");
}
