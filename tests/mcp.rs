//! `git rag serve --mcp` as a child process on a real repository: the
//! handshake, the tool list, every tool, bad input, and a server that follows
//! the index when another process moves it.

use std::time::{Duration, Instant};

pub(crate) use crate::common::mcp::{comparable, Mcp};
use crate::common::{model_ready, require_model, TestRepo};
use serde_json::{json, Value};

const SESSIONS: &str = r#"from .auth import check_token


class Session:
    """Keeps cookies and settings across requests."""

    def send(self, request):
        check_token(request.token)
        return self.adapter(request)

    def adapter(self, request):
        return request


def persist_session(session, path):
    """Write the session cookies to disk."""
    with open(path, "w") as fh:
        fh.write(str(session))
"#;

const AUTH: &str = r#"def check_token(token):
    """Reject empty tokens."""
    if not token:
        raise ValueError("empty token")
    return token
"#;

const ROUTES: &str = r#"const express = require('express');
const router = express.Router();

function listUsers(req, res) {
  res.json([]);
}

router.get('/users', listUsers);
module.exports = router;
"#;

fn repo_with_code(semantic: bool) -> TestRepo {
    let repo = TestRepo::new();
    if !semantic {
        repo.git(&["config", "rag.semantic", "false"]);
    }
    repo.write("pkg/sessions.py", SESSIONS);
    repo.write("pkg/auth.py", AUTH);
    repo.write("web/routes.js", ROUTES);
    repo.commit("first");
    repo
}

fn paths(results: &Value) -> Vec<String> {
    results.as_array().expect("results").iter().map(|r| r["path"].as_str().unwrap_or_default().to_string()).collect()
}

fn symbols(results: &Value) -> Vec<String> {
    results.as_array().expect("results").iter().filter_map(|r| r["symbol"].as_str().map(str::to_string)).collect()
}

#[test]
fn handshake_tools_and_every_tool_on_a_real_repo() {
    let repo = repo_with_code(false);
    repo.rag_ok(&["index", "-q"]);
    let mut mcp = Mcp::start(&repo, &[]);

    let init = mcp.handshake();
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "git-rag");

    let tools = mcp.request("tools/list", json!({}));
    let names: Vec<&str> = tools["result"]["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["search", "context", "symbols", "callers", "callees", "impact", "history", "status", "index"]);
    // The language filter offers every language, from the list `--lang` uses.
    let search_schema = &tools["result"]["tools"][0]["inputSchema"]["properties"];
    let offered: Vec<&str> = search_schema["language"]["enum"].as_array().expect("an enum of languages").iter().filter_map(Value::as_str).collect();
    assert_eq!(offered, git_rag::Language::ALL.map(git_rag::Language::name), "{search_schema}");
    assert_eq!(search_schema["exclude"]["type"], "array", "{search_schema}");
    assert!(mcp.tool_error("search", json!({"query": "x", "language": "cobol"})).contains("lua"));

    // search: hybrid by default, and each forced mode that needs no vectors.
    let s = mcp.tool("search", json!({"query": "write cookies to disk"}));
    assert_eq!(s["results"][0]["symbol"], "persist_session", "{s}");
    assert!(s["results"][0]["signals"].is_object());
    let s = mcp.tool("search", json!({"query": "listUsers", "mode": "keyword", "limit": 3, "language": "javascript"}));
    let found = paths(&s["results"]);
    assert!(!found.is_empty() && found.iter().all(|p| p == "web/routes.js"), "{s}");
    let s = mcp.tool("search", json!({"query": "check_token", "path": "pkg/*.py", "kind": "function"}));
    assert!(symbols(&s["results"]).contains(&"check_token".to_string()), "{s}");
    // Grouped by file: `files` ranks files (limit counts them), the results
    // are their chunks, file by file.
    let s = mcp.tool("search", json!({"query": "send a request with a checked token", "files": true, "limit": 2}));
    let files = s["files"].as_array().expect("files");
    assert!(!files.is_empty() && files.len() <= 2, "{s}");
    let order: Vec<String> = files.iter().map(|f| f["path"].as_str().unwrap_or_default().to_string()).collect();
    let mut grouped = paths(&s["results"]);
    grouped.dedup();
    assert_eq!(grouped, order, "{s}");
    assert!(files.iter().all(|f| f["chunks"].as_array().is_some_and(|c| !c.is_empty() && c.len() <= 3)), "{s}");
    assert!(mcp.tool("search", json!({"query": "check_token"}))["files"].is_null());

    // symbols: name → definitions.
    let d = mcp.tool("symbols", json!({"name": "Session.send"}));
    let defs = d["definitions"].as_array().expect("definitions");
    assert_eq!(defs[0]["symbol"], "Session.send", "{d}");
    assert_eq!(defs[0]["path"], "pkg/sessions.py");
    assert_eq!(defs[0]["citation"], format!("pkg/sessions.py:{}-{}", defs[0]["start_line"], defs[0]["end_line"]));
    assert!(defs[0]["signature"].as_str().unwrap_or("").starts_with("def send(self, request)"), "{d}");
    let none = mcp.tool("symbols", json!({"name": "no_such_symbol_anywhere"}));
    assert_eq!(none["definitions"], json!([]));

    // callers / callees from the code graph.
    let c = mcp.tool("callers", json!({"symbol": "check_token"}));
    assert!(symbols(&c["callers"]).contains(&"Session.send".to_string()), "{c}");
    let c = mcp.tool("callees", json!({"symbol": "Session.send"}));
    let callees = symbols(&c["callees"]);
    assert!(callees.contains(&"check_token".to_string()) && callees.contains(&"Session.adapter".to_string()), "{c}");
    let e = mcp.tool_error("callers", json!({"symbol": "nothing_is_called_this"}));
    assert!(e.contains("no symbol named"), "{e}");

    // impact: an edit of the work tree, its callers and tests.
    let auth = std::fs::read_to_string(repo.path().join("pkg/auth.py")).expect("auth.py");
    repo.write("pkg/auth.py", format!("{auth}\n"));
    let i = mcp.tool("impact", json!({}));
    assert!(i["changed"].as_array().is_some_and(|c| c.is_empty()), "a blank line at the end changes no definition: {i}");
    repo.write("pkg/auth.py", auth.replacen("(token)", "(token, strict=False)", 1));
    let i = mcp.tool("impact", json!({"depth": 1}));
    assert_eq!(i["changed"][0]["symbol"], "check_token", "{i}");
    assert_eq!(i["changed"][0]["change"], "signature", "{i}");
    assert!(symbols(&i["impacted"]).contains(&"Session.send".to_string()), "{i}");
    assert!(mcp.tool_error("impact", json!({"rev": "HEAD", "staged": true})).contains("--staged"));
    repo.write("pkg/auth.py", &auth);

    // context: Markdown within the budget, every piece cited.
    let ctx = mcp.tool("context", json!({"query": "how are sessions persisted?", "budget": 600}));
    assert!(ctx["tokens"].as_u64().expect("tokens") <= 600, "{ctx}");
    let md = ctx["markdown"].as_str().expect("markdown");
    assert!(md.contains("pkg/sessions.py:"), "{md}");
    for piece in ctx["pieces"].as_array().expect("pieces") {
        let cite = format!("{}:{}-{}", piece["path"].as_str().unwrap_or(""), piece["start_line"], piece["end_line"]);
        assert!(md.contains(&cite), "{cite} not cited in {md}");
    }

    // status, then a new commit brought in by the `index` tool.
    let st = mcp.tool("status", json!({}));
    assert_eq!(st["stale"], false, "{st}");
    assert_eq!(st["counts"]["files"], 3);
    repo.write("pkg/cache.py", "def evict_stale_entries(cache):\n    \"\"\"Drop expired entries.\"\"\"\n    return cache\n");
    let head = repo.commit("cache");
    assert_eq!(mcp.tool("status", json!({}))["stale"], true);
    let run = mcp.tool("index", json!({}));
    assert_eq!(run["commit"], head, "{run}");
    let st = mcp.tool("status", json!({}));
    assert_eq!(st["indexed_commit"], head);
    assert_eq!(st["stale"], false);
    let s = mcp.tool("search", json!({"query": "evict_stale_entries"}));
    assert_eq!(s["results"][0]["path"], "pkg/cache.py", "{s}");
    // Re-index one path (unchanged): it is indexed again.
    let run = mcp.tool("index", json!({"path": "pkg/auth.py"}));
    assert_eq!(run["files_indexed"], 1, "{run}");
    let e = mcp.tool_error("index", json!({"path": "../outside"}));
    assert!(e.contains("inside the repository"), "{e}");

    // Bad input: JSON-RPC errors, and the server keeps serving.
    mcp.send_line("{\"jsonrpc\": \"2.0\", \"id\": 99, \"method\": ");
    assert_eq!(mcp.read()["error"]["code"], -32700);
    let r = mcp.request("tools/call", json!({"name": "drop_tables", "arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "{r}");
    let r = mcp.request("resources/list", json!({}));
    assert_eq!(r["error"]["code"], -32601, "{r}");
    let e = mcp.tool_error("search", json!({"query": ""}));
    assert!(e.contains("`query`"), "{e}");
    let e = mcp.tool_error("search", json!({"query": "x", "mode": "psychic"}));
    assert!(e.contains("`mode`") && e.contains("psychic") && e.contains("hybrid"), "{e}");
    assert_eq!(mcp.request("ping", json!({}))["result"], json!({}));
    mcp.finish();
}

/// Another process moves the index (as a hook would): the server answers
/// from the new commit without a restart.
#[test]
fn follows_the_index_when_another_process_moves_it() {
    let repo = repo_with_code(false);
    repo.rag_ok(&["index", "-q"]);
    let mut mcp = Mcp::start(&repo, &[]);
    mcp.handshake();
    // The background warm-up finishes and says so.
    let deadline = Instant::now() + Duration::from_secs(60);
    while mcp.tool("status", json!({}))["server"]["warm"] != true {
        assert!(Instant::now() < deadline, "the server never reported itself warm");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(mcp.tool("status", json!({}))["server"]["engine_open"], true);
    assert_eq!(mcp.tool("symbols", json!({"name": "rotate_keys"}))["definitions"], json!([]));
    repo.write("pkg/keys.py", "def rotate_keys(store):\n    return store\n");
    let head = repo.commit("keys");
    repo.rag_ok(&["index", "-q"]);
    let d = mcp.tool("symbols", json!({"name": "rotate_keys"}));
    assert_eq!(d["definitions"][0]["path"], "pkg/keys.py", "{d}");
    assert_eq!(mcp.tool("status", json!({}))["server"]["engine_commit"], head);
    // A file deleted by the next commit disappears from answers.
    repo.remove("pkg/keys.py");
    repo.commit("no keys");
    repo.rag_ok(&["index", "-q"]);
    assert_eq!(mcp.tool("symbols", json!({"name": "rotate_keys"}))["definitions"], json!([]));
    mcp.finish();
}

/// With the semantic layer the server holds the embedded vector store open;
/// an indexer in another process must still get to write it, and the server
/// then answers from the new vectors with the model still loaded.
#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_warm_server_does_not_block_the_indexer() {
    require_model();
    let repo = repo_with_code(true);
    repo.rag_ok(&["index", "-q"]);
    let mut mcp = Mcp::start(&repo, &[]);
    mcp.handshake();
    let s = mcp.tool("search", json!({"query": "where do we save cookies to a file", "mode": "semantic"}));
    assert!(paths(&s["results"]).contains(&"pkg/sessions.py".to_string()), "{s}");
    let st = mcp.tool("status", json!({}));
    assert_eq!(st["server"]["store_open"], true, "{st}");
    assert_eq!(st["server"]["model_loaded"], true, "{st}");

    repo.write("pkg/retry.py", "def backoff_delay(attempt):\n    \"\"\"Exponential backoff between retries.\"\"\"\n    return 2 ** attempt\n");
    let head = repo.commit("retry");
    // The indexer waits at most 10 s for the store; the server lets go at once.
    let out = repo.rag(&["index", "-q", "--wait", "10"]);
    assert!(out.status.success(), "the indexer was blocked by the server: {}", crate::common::stderr(&out));
    let s = mcp.tool("search", json!({"query": "exponential backoff between retries", "mode": "semantic"}));
    assert_eq!(s["results"][0]["path"], "pkg/retry.py", "{s}");
    let st = mcp.tool("status", json!({}));
    assert_eq!(st["server"]["engine_commit"], head);
    // The `index` tool in the server itself writes the store too.
    repo.write("pkg/retry.py", "def backoff_delay(attempt):\n    \"\"\"Linear backoff between retries.\"\"\"\n    return attempt\n");
    let head = repo.commit("linear");
    assert_eq!(mcp.tool("index", json!({}))["commit"], head);
    let s = mcp.tool("search", json!({"query": "linear backoff between retries", "mode": "hybrid"}));
    assert_eq!(s["results"][0]["path"], "pkg/retry.py", "{s}");
    mcp.finish();
}

#[test]
fn the_cli_and_mcp_search_give_the_same_answer() {
    // Both frontends call the library's one query entry point; every mode
    // and option the two share must answer alike (rerank off: none installed).
    let repo = repo_with_code(model_ready());
    repo.rag_ok(&["index", "-q"]);
    let mut mcp = Mcp::start(&repo, &["--lazy"]);
    mcp.handshake();
    let cases: [(&str, &[&str], Value); 8] = [
        ("how are sessions persisted?", &[], json!({"query": "how are sessions persisted?"})),
        (
            "check the token of a request",
            &["--exclude", "pkg/auth.py", "--exclude", "web/**"],
            json!({"query": "check the token of a request", "exclude": ["pkg/auth.py", "web/**"]}),
        ),
        ("session cookies", &["--mode", "keyword", "--min-score", "1.5"], json!({"query": "session cookies", "mode": "keyword", "min_score": 1.5})),
        ("list users", &["--lang", "js"], json!({"query": "list users", "language": "js"})),
        ("check_token", &["--mode", "symbol", "-n", "3"], json!({"query": "check_token", "mode": "symbol", "limit": 3})),
        ("session cookies", &["--mode", "keyword", "--path", "pkg/*.py"], json!({"query": "session cookies", "mode": "keyword", "path": "pkg/*.py"})),
        ("who calls check_token", &["--kind", "method"], json!({"query": "who calls check_token", "kind": "method"})),
        ("list users route", &["--lang", "javascript"], json!({"query": "list users route", "language": "javascript"})),
    ];
    for (text, flags, args) in cases {
        let mut cli_args = vec!["query", text, "--json"];
        cli_args.extend_from_slice(flags);
        let cli: Value = serde_json::from_str(&repo.rag_ok(&cli_args)).expect("CLI JSON");
        let via_mcp = mcp.tool("search", args);
        assert_eq!(comparable(cli), comparable(via_mcp), "{text} {flags:?}");
    }
    // The work tree laid over the index: an edited file and a new one answer alike.
    let auth = std::fs::read_to_string(repo.path().join("pkg/auth.py")).expect("pkg/auth.py");
    repo.write("pkg/auth.py", format!("{auth}\n\ndef rotate_signing_key(store):\n    return store.rotate()\n"));
    repo.write("pkg/audit.py", "def audit_trail(events):\n    return [e for e in events if e.user]\n");
    for text in ["rotate_signing_key", "audit trail of events", "check_token"] {
        let cli: Value = serde_json::from_str(&repo.rag_ok(&["query", text, "--json"])).expect("CLI JSON");
        assert!(cli["results"].as_array().is_some_and(|r| r.iter().any(|h| h["source"] == "worktree")), "{cli}");
        assert_eq!(comparable(cli), comparable(mcp.tool("search", json!({"query": text}))), "{text} (work tree)");
    }
    // A later edit reaches the same server: its layer follows the tree.
    repo.write("pkg/audit.py", "def audit_trail(events):\n    return events\n\n\ndef purge_audit_log(days):\n    return days\n");
    let v = mcp.tool("search", json!({"query": "purge_audit_log"}));
    assert_eq!((v["results"][0]["path"].as_str(), v["results"][0]["source"].as_str()), (Some("pkg/audit.py"), Some("worktree")), "{v}");
    mcp.finish();
}

/// One `search` call through a fresh `git rag serve --mcp` (for other test
/// modules that compare it with the CLI).
pub(crate) fn search_via_mcp(repo: &TestRepo, args: Value) -> Value {
    let mut mcp = Mcp::start(repo, &["--lazy"]);
    mcp.handshake();
    let answer = mcp.tool("search", args);
    mcp.finish();
    answer
}

/// A client that hangs up while the server still warms up (the model
/// loading on another thread) finds that it exited cleanly. `exit`'s
/// handlers ran ONNX Runtime's static destructors under that thread: a
/// SIGSEGV after the last answer, in 18 of 90 such runs three at a time.
#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_server_left_while_it_warms_up_exits_cleanly() {
    require_model();
    let repo = repo_with_code(true);
    repo.rag_ok(&["index", "-q"]);
    // Three at a time, as on a loaded machine, where the warm-up is slowest.
    for _ in 0..8 {
        let servers: Vec<Mcp> = (0..3)
            .map(|_| {
                let mut mcp = Mcp::start(&repo, &[]);
                assert!(mcp.handshake()["result"]["serverInfo"].is_object());
                mcp
            })
            .collect();
        servers.into_iter().for_each(Mcp::finish);
    }
}
