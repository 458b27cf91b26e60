//! `--rerank` by a rerank endpoint (`git config rag.rerank.url`), against
//! real HTTP servers on loopback that score documents themselves: both
//! request shapes (Cohere/Jina/vLLM/llama.cpp and TEI), a busy server (429),
//! and servers that are slow, refuse, hang up or answer nonsense, where the
//! fused order stands and the answer says why.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common::http::{Reply, Request, Server};
use crate::common::{rag_env, stderr, stdout, TestRepo};

const QUERY: &str = "parse the port number from the config";

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app/config.py", "def load_config(path):\n    \"\"\"Read the config file.\"\"\"\n    with open(path) as f:\n        return parse(f.read())\n\n\ndef parse(text):\n    return dict(line.split('=') for line in text.splitlines())\n");
    repo.write("app/net.py", "def parse_port(value):\n    \"\"\"The port number from a config value.\"\"\"\n    port = int(value)\n    if not 0 < port < 65536:\n        raise ValueError(f'bad port {port}')\n    return port\n");
    repo.write("app/server.py", "from app.config import load_config\nfrom app.net import parse_port\n\n\ndef start(path):\n    config = load_config(path)\n    return serve(parse_port(config['port']))\n\n\ndef serve(port):\n    print('listening on', port)\n");
    repo.write(
        "app/numbers.py",
        "def parse_number(text):\n    \"\"\"A number from text.\"\"\"\n    return float(text)\n\n\ndef format_number(n):\n    return f'{n:.2f}'\n",
    );
    repo.write("docs/config.md", "# Config\n\nThe config file holds `port = 8080` and the data path.\n\n## Port\n\nThe port number must be below 65536.\n");
    repo.commit("app");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    repo
}

/// The scoring a test rerank server does: how often the query's words occur
/// in the document (a real relevance, if a crude one).
fn relevance(query: &str, doc: &str) -> f32 {
    let doc = doc.to_lowercase();
    query.split_whitespace().filter(|w| w.len() > 3).map(|w| doc.matches(&w.to_lowercase()).count() as f32).sum::<f32>() + 1.0 / (1.0 + doc.len() as f32)
}

/// A rerank server of the Cohere shape (`{model, query, documents, top_n}`
/// → `{results: [{index, relevance_score}]}`, best first, `top_n` of them).
fn cohere_answer(req: &Request) -> Reply {
    let body = req.json();
    let query = body["query"].as_str().unwrap_or_default();
    let docs: Vec<&str> = body["documents"].as_array().map(|d| d.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let top_n = body["top_n"].as_u64().map_or(docs.len(), |n| n as usize);
    let mut scored: Vec<(usize, f32)> = docs.iter().enumerate().map(|(i, d)| (i, relevance(query, d))).collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let results: Vec<Value> = scored.into_iter().take(top_n).map(|(i, s)| json!({"index": i, "relevance_score": s})).collect();
    Reply::json(200, &json!({"id": "rr-1", "results": results, "meta": {"billed_units": {"search_units": 1}}}))
}

/// A rerank server of TEI's shape (`{query, texts}` → `[{index, score}]`).
fn tei_answer(req: &Request) -> Reply {
    let body = req.json();
    let query = body["query"].as_str().unwrap_or_default();
    let docs: Vec<&str> = body["texts"].as_array().map(|d| d.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
    let mut scored: Vec<(usize, f32)> = docs.iter().enumerate().map(|(i, d)| (i, relevance(query, d))).collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    Reply::json(200, &Value::Array(scored.into_iter().map(|(i, s)| json!({"index": i, "score": s})).collect()))
}

fn query(repo: &TestRepo, extra: &[&str], env: &[(&str, &str)]) -> (Value, String) {
    let mut args = vec!["query", QUERY, "--json"];
    args.extend_from_slice(extra);
    let out = rag_env(repo.path(), &args, env);
    assert!(out.status.success(), "{}", stderr(&out));
    (serde_json::from_str(&stdout(&out)).expect("query json"), stderr(&out))
}

/// `path: symbol` (or the path), the first line of what a reranker is sent for a hit.
fn head(r: &Value) -> String {
    match r["symbol"].as_str() {
        Some(s) => format!("{}: {s}", r["path"].as_str().unwrap_or_default()),
        None => r["path"].as_str().unwrap_or_default().to_string(),
    }
}

fn results(v: &Value) -> Vec<Value> {
    v["results"].as_array().cloned().unwrap_or_default()
}

/// (path, start, end) of each result: the order a test compares.
fn places(v: &Value) -> Vec<(String, u64, u64)> {
    results(v)
        .iter()
        .map(|r| (r["path"].as_str().unwrap_or_default().into(), r["start_line"].as_u64().unwrap_or(0), r["end_line"].as_u64().unwrap_or(0)))
        .collect()
}

#[test]
fn an_endpoint_of_either_shape_reorders_the_fused_results_by_its_scores() {
    let repo = repo();
    let (fused, _) = query(&repo, &[], &[]);
    let fused_heads: Vec<String> = results(&fused).iter().map(head).collect();
    assert!(fused_heads.len() >= 4, "{fused}");
    for (shape, server) in [("cohere", Server::start(|r, _| cohere_answer(r))), ("tei", Server::start(|r, _| tei_answer(r)))] {
        let base = if shape == "cohere" { format!("{}/v1", server.url) } else { server.url.clone() };
        repo.git(&["config", "rag.rerank.url", &base]);
        repo.git(&["config", "rag.rerank.model", "rr-test"]);
        repo.git(&["config", "rag.rerank.api", shape]);
        let (v, err) = query(&repo, &["--rerank"], &[("GIT_RAG_RERANK_API_KEY", "sk-test-key")]);
        assert!(!err.contains("sk-test-key"), "{err}");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1, "{shape}: one request");
        let req = &reqs[0];
        let body = req.json();
        assert_eq!(req.method, "POST");
        assert_eq!(req.header("authorization"), Some("Bearer sk-test-key"));
        assert_eq!(body["query"], QUERY);
        let docs_key = match shape {
            "cohere" => {
                assert_eq!(req.path, "/v1/rerank");
                assert_eq!(body["model"], "rr-test");
                assert_eq!(body["top_n"].as_u64(), Some(fused_heads.len() as u64));
                "documents"
            }
            _ => {
                assert_eq!(req.path, "/rerank");
                assert!(body.get("model").is_none(), "TEI serves one model: {body}");
                "texts"
            }
        };
        let docs: Vec<String> = body[docs_key].as_array().expect("documents").iter().filter_map(|d| d.as_str().map(str::to_string)).collect();
        // The fused results, in the fused order, each as its path and symbol, then its text.
        let sent_heads: Vec<String> = docs.iter().map(|d| d.lines().next().unwrap_or_default().to_string()).collect();
        assert_eq!(sent_heads, fused_heads, "{shape}");
        // Reordered by the server's scores, which the results now carry.
        let mut want: Vec<(usize, f32)> = docs.iter().enumerate().map(|(i, d)| (i, relevance(QUERY, d))).collect();
        want.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let got = results(&v);
        assert_eq!(got.iter().map(head).collect::<Vec<_>>(), want.iter().map(|(i, _)| sent_heads[*i].clone()).collect::<Vec<_>>(), "{shape}");
        for (r, (_, s)) in got.iter().zip(&want) {
            assert!((r["score"].as_f64().unwrap_or(f64::NAN) - f64::from(*s)).abs() < 1e-4, "{shape}: {r}");
        }
        assert_ne!(places(&v), places(&fused), "{shape}: the test server's scores reorder these results");
        assert!(v["retrievers"].as_array().expect("retrievers").contains(&json!("rerank")), "{v}");
        assert_eq!(v["fallbacks"], json!([]), "{shape}");
    }
}

#[test]
fn a_busy_endpoint_is_asked_again_after_its_retry_after() {
    let repo = repo();
    let server = Server::start(|r, n| if n == 0 { Reply::text(429, "slow down").with_header("Retry-After", "0") } else { cohere_answer(r) });
    repo.git(&["config", "rag.rerank.url", &server.url]);
    let (v, _) = query(&repo, &["--rerank"], &[]);
    assert_eq!(server.requests().len(), 2);
    assert!(v["retrievers"].as_array().expect("retrievers").contains(&json!("rerank")), "{v}");
    assert_eq!(v["fallbacks"], json!([]));
    // No model configured: none is sent (llama.cpp and TEI serve one).
    assert!(server.requests()[1].json().get("model").is_none());
}

#[test]
fn a_slow_broken_or_refusing_endpoint_leaves_the_fused_order_and_says_why() {
    let repo = repo();
    let (fused, _) = query(&repo, &[], &[]);
    let cases: Vec<(&str, Server, &str, usize)> = vec![
        ("slow", Server::start(|r, _| Reply::After(Duration::from_secs(4), Box::new(cohere_answer(r)))), "timeout", 1),
        ("nonsense", Server::start(|_, _| Reply::json(200, &json!({"embeddings": [[0.1, 0.2]]}))), "neither the Cohere nor the TEI rerank shape", 1),
        ("refusing", Server::start(|_, _| Reply::text(401, "invalid api key")), "HTTP 401: invalid api key", 1),
        ("out of range", Server::start(|_, _| Reply::json(200, &json!({"results": [{"index": 99, "relevance_score": 1.0}]}))), "scored document 99", 1),
        // A dying server is asked again (retries = 1 here), then given up on.
        ("hanging up", Server::start(|_, _| Reply::Hangup), "gave up after 2 attempts", 2),
        (
            "always busy",
            Server::start(|_, _| Reply::text(503, "overloaded").with_header("Retry-After", "0")),
            "HTTP 503: overloaded (gave up after 2 attempts)",
            2,
        ),
    ];
    repo.git(&["config", "rag.rerank.timeoutSecs", "1"]);
    repo.git(&["config", "rag.rerank.retries", "1"]);
    for (name, server, why, attempts) in cases {
        repo.git(&["config", "rag.rerank.url", &server.url]);
        let (v, err) = query(&repo, &["--rerank"], &[]);
        assert_eq!(places(&v), places(&fused), "{name}: the fused order stands");
        let fallbacks = v["fallbacks"].to_string();
        assert!(fallbacks.contains("rerank") && fallbacks.contains(&format!("{}/rerank", server.url)) && fallbacks.contains(why), "{name}: {fallbacks}");
        assert!(err.contains("without rerank"), "{name}: {err}");
        assert!(!v["retrievers"].as_array().expect("retrievers").contains(&json!("rerank")), "{name}");
        assert_eq!(server.requests().len(), attempts, "{name}");
    }
    // A shape git-rag does not speak is named, and the search still answers.
    repo.git(&["config", "rag.rerank.api", "openai"]);
    let (v, _) = query(&repo, &["--rerank"], &[]);
    assert!(v["fallbacks"].to_string().contains("rag.rerank.api is `openai`"), "{v}");
    assert_eq!(places(&v), places(&fused));
}

#[test]
fn mcp_search_reranks_through_the_same_endpoint() {
    let repo = repo();
    let server = Server::start(|r, _| tei_answer(r));
    repo.git(&["config", "rag.rerank.url", &server.url]);
    repo.git(&["config", "rag.rerank.api", "tei"]);
    let (cli, _) = query(&repo, &["--rerank"], &[]);
    let mcp = crate::mcp::search_via_mcp(&repo, json!({"query": QUERY, "rerank": true}));
    assert_eq!(places(&mcp), places(&cli));
    assert_eq!(server.requests().len(), 2, "one request for each");
}
