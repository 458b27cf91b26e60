//! A local (embedded) index that borrows the team's vectors from a Qdrant
//! server's cache (`git config rag.vectorCache server`), and queries answered
//! from the server alone with hybrid retrieval. The server tests run when
//! `QDRANT_URL` is set (a real server on loopback; see the README) and print
//! ignored otherwise; the unreachable-server test always runs.

use std::path::Path;

use crate::common::mcp::{comparable, Mcp};
use crate::common::{clone, git_in, json_ok, rag_env, require_model, stderr, stdout, unique, TestRepo};
use serde_json::{json, Value};

/// A repository of real code: some of this project's own files.
fn origin() -> TestRepo {
    let repo = TestRepo::new();
    let root = crate::common::root();
    // (where the test repository has it, where this project keeps it)
    for (f, from) in [
        ("src/semantic/api.rs", "src/semantic/api.rs"),
        ("src/index/paths.rs", "src/index/paths.rs"),
        ("scripts/embed-server.py", "scripts/embed-server.py"),
        ("src/query/fusion.rs", "src/query/rank/fusion.rs"),
    ] {
        repo.write(f, std::fs::read(root.join(from)).expect("source file"));
    }
    repo.commit("code");
    repo
}

/// `git rag index --ci` of `dir` into the server under `prefix`.
fn ci_index(dir: &Path, url: &str, prefix: &str) -> Value {
    git_in(dir, &["config", "rag.qdrantPrefix", prefix]);
    json_ok(dir, &["index", "--ci", "--json", "-q", "--branch", "main"], &[("QDRANT_URL", url)])
}

const QUESTIONS: [&str; 5] = [
    "retry a request after a 429 with Retry-After",
    "which paths are indexed include exclude gitattributes",
    "weighted reciprocal rank fusion",
    "fn dedup_overlaps",
    "serve embeddings over http",
];

fn answers(dir: &Path) -> Vec<Vec<(String, u64)>> {
    QUESTIONS
        .iter()
        .map(|q| {
            let v = json_ok(dir, &["query", q, "--json", "-n", "5"], &[]);
            v["results"]
                .as_array()
                .expect("results")
                .iter()
                .map(|h| (h["path"].as_str().unwrap_or("").to_string(), h["start_line"].as_u64().unwrap_or(0)))
                .collect()
        })
        .collect()
}

/// CI indexed the commit; a developer's local index of it borrows every
/// vector and embeds nothing, and equals an index that embedded everything
/// itself. A commit half new to the team embeds only its new texts.
#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn a_local_index_borrows_what_ci_embedded() {
    let (url, _server) = crate::common::require_server();
    let origin = origin();
    let scratch = tempfile::tempdir().expect("tempdir");
    let ci = clone(origin.path(), &scratch.path().join("ci"), &["--depth", "1"]);
    let ci_report = ci_index(&ci, &url, &unique("team_borrow"));
    assert!(ci_report["files_indexed"].as_u64().unwrap_or(0) >= 4, "{ci_report}");

    let dev = clone(origin.path(), &scratch.path().join("dev"), &[]);
    git_in(&dev, &["config", "rag.vectorCache", "server"]);
    let report = json_ok(&dev, &["index", "--json", "-q"], &[("QDRANT_URL", &url)]);
    assert_eq!(report["embedded"], 0, "every text was in the team's cache: {report}");
    assert!(report["borrowed"].as_u64().unwrap_or(0) > 50, "most texts came from the team's cache: {report}");
    assert!(report["vectors_behind"].is_null(), "{report}");

    let own = clone(origin.path(), &scratch.path().join("own"), &[]);
    let own_report = json_ok(&own, &["index", "--json", "-q"], &[]);
    assert_eq!(own_report["embedded"], report["borrowed"], "what was borrowed is what an index of its own embeds");
    assert_eq!(json_ok(&dev, &["dump-vectors"], &[]), json_ok(&own, &["dump-vectors"], &[]), "borrowed vectors make the same store");
    assert_eq!(answers(&dev), answers(&own), "and the same answers");

    // The team (CI) indexes one new file; the developer adds another on top.
    let shared_text = "def shared_helper(x):\n    \"\"\"Round x to the nearest even number, for the billing report.\"\"\"\n    return round(x / 2) * 2\n";
    origin.write("billing/round.py", shared_text);
    origin.commit("billing");
    ci_index(&clone(origin.path(), &scratch.path().join("ci2"), &["--depth", "1"]), &url, &unique("team_borrow2"));
    for dir in [&dev, &own] {
        git_in(dir, &["pull", "-q", "--ff-only"]);
        std::fs::write(dir.join("local.py"), "def only_here():\n    \"\"\"A function the team has never seen, about tide tables.\"\"\"\n    return 'tide'\n")
            .expect("write");
        git_in(dir, &["add", "local.py"]);
        git_in(dir, &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "local"]);
    }
    let report = json_ok(&dev, &["index", "--json", "-q"], &[("QDRANT_URL", &url)]);
    let own_report = json_ok(&own, &["index", "--json", "-q"], &[]);
    let embedded = report["embedded"].as_u64().expect("embedded");
    assert!(embedded > 0 && report["borrowed"].as_u64().unwrap_or(0) > 0, "{report}");
    assert!(embedded < own_report["embedded"].as_u64().expect("embedded"), "only the texts new to the team are embedded: {report} vs {own_report}");
    assert_eq!(embedded + report["borrowed"].as_u64().expect("borrowed"), own_report["embedded"].as_u64().expect("embedded"), "{report} vs {own_report}");
    assert_eq!(json_ok(&dev, &["dump-vectors"], &[]), json_ok(&own, &["dump-vectors"], &[]));

    // Writing back is a choice. Nothing of the developer's own commit reached
    // the team by default: a clone of it embeds those texts again.
    let borrow_all = |label: &str| -> Value {
        let third = clone(&dev, &scratch.path().join(label), &[]);
        git_in(&third, &["config", "rag.vectorCache", "server"]);
        json_ok(&third, &["index", "--json", "-q"], &[("QDRANT_URL", &url)])
    };
    let before = borrow_all("third0");
    assert!(before["embedded"].as_u64().unwrap_or(0) > 0, "local.py was not shared: {before}");
    // Text of its own (the server outlives test runs, and keeps what was shared).
    let run = unique("team_tides");
    std::fs::write(
        dev.join("tides.py"),
        format!("def high_water(day):\n    \"\"\"The hour of high water at the harbour on a given day ({run}).\"\"\"\n    return (day * 50) % 1440\n"),
    )
    .expect("write");
    git_in(&dev, &["add", "tides.py"]);
    git_in(&dev, &["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-q", "-m", "tides"]);
    let shared = json_ok(&dev, &["index", "--share-vectors", "--json", "-q"], &[("QDRANT_URL", &url)]);
    assert!(shared["embedded"].as_u64().unwrap_or(0) > 0, "{shared}");
    assert_eq!(shared["semantic"]["shared"], shared["embedded"], "everything embedded was offered to the team: {shared}");
    let after = borrow_all("third1");
    assert!(after["embedded"].as_u64() <= before["embedded"].as_u64(), "the shared file's texts are borrowed, not embedded: {after} vs {before}");
    assert!(after["borrowed"].as_u64() > before["borrowed"].as_u64(), "{after} vs {before}");
}

/// The team's cache out of reach: the run embeds here, says why, and the
/// index is whole (not degraded: the cache is only a cache).
#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn an_unreachable_team_cache_embeds_here() {
    require_model();
    let repo = origin();
    repo.git(&["config", "rag.vectorCache", "server"]);
    let out = rag_env(repo.path(), &["index", "--json"], &[("QDRANT_URL", "http://127.0.0.1:9")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("did not answer") && stderr(&out).contains("embedding here"), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert!(report["embedded"].as_u64().unwrap_or(0) > 50, "{report}");
    assert_eq!(report["borrowed"], 0);
    assert!(report["vectors_behind"].is_null(), "{report}");
    assert!(report["semantic"]["shared_cache_error"].as_str().is_some_and(|e| e.contains("127.0.0.1:9")), "{report}");
    // The index lives here: status is not degraded, queries answer with vectors.
    let v = json_ok(repo.path(), &["query", "weighted reciprocal rank fusion", "--json", "--mode", "semantic"], &[]);
    assert_eq!(v["results"][0]["path"], "src/query/fusion.rs", "{v}");
    // Writing back without a cache configured is refused with the fix.
    let plain = origin();
    let out = rag_env(plain.path(), &["index", "--share-vectors"], &[]);
    assert!(!out.status.success() && stderr(&out).contains("rag.vectorCache server"), "{}", stderr(&out));
}

/// Without a local index, the server answers every mode but graph, with
/// hybrid results at least as good as dense alone on plain questions.
#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn server_only_queries_are_hybrid() {
    let (url, _server) = crate::common::require_server();
    let origin = origin();
    let scratch = tempfile::tempdir().expect("tempdir");
    let ci = clone(origin.path(), &scratch.path().join("ci"), &["--depth", "1"]);
    let prefix = unique("team_only");
    ci_index(&ci, &url, &prefix);
    let dev = clone(origin.path(), &scratch.path().join("dev"), &["--depth", "1"]);
    git_in(&dev, &["config", "rag.qdrantPrefix", &prefix]);
    let env = [("QDRANT_URL", url.as_str())];
    let first = |args: &[&str]| -> Value {
        let v = json_ok(&dev, args, &env);
        v["results"][0].clone()
    };
    // Keyword (the server's BM25), symbol (a name filter), hybrid.
    let hit = first(&["query", "Retry-After", "--mode", "keyword", "--json", "--branch", "main"]);
    assert_eq!(hit["path"], "src/semantic/api.rs", "{hit}");
    let hit = first(&["query", "dedup_overlaps", "--mode", "symbol", "--json", "--branch", "main"]);
    assert_eq!((hit["path"].as_str(), hit["symbol"].as_str()), (Some("src/query/fusion.rs"), Some("dedup_overlaps")), "{hit}");
    let hit = first(&["query", "DEDUP_OVERLAPS", "--mode", "symbol", "--json", "--branch", "main"]);
    assert_eq!(hit["symbol"], "dedup_overlaps", "names match in any case: {hit}");
    let hit = first(&["query", "where are dedup_overlaps results merged", "--json", "--branch", "main"]);
    assert_eq!(hit["path"], "src/query/fusion.rs", "{hit}");
    // The same stage as a local index: files ranked by their evidence, parents, diversity.
    let v = json_ok(&dev, &["query", "where are dedup_overlaps results merged", "--files", "--json", "--branch", "main"], &env);
    assert_eq!(v["files"][0]["path"], "src/query/fusion.rs", "{v}");
    assert_eq!(v["analysis"]["intent"], "mixed", "{v}");
    let v = json_ok(&dev, &["query", "dedup_overlaps", "--expand", "parent", "--diversity", "0.5", "--json", "--branch", "main"], &env);
    assert!(v["results"].as_array().is_some_and(|r| !r.is_empty()), "{v}");
    let v = json_ok(&dev, &["query", "include exclude globs gitattributes", "--json", "--branch", "main", "--lang", "python"], &env);
    assert!(v["results"].as_array().expect("results").iter().all(|h| h["language"] == "python"), "filters apply: {v}");
    // A context from the server's answer: the code read from this clone by blob id, cited.
    let out = rag_env(&dev, &["query", "weighted reciprocal rank fusion", "--context", "--budget", "1500", "--branch", "main"], &env);
    assert!(out.status.success(), "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("src/query/fusion.rs:") && md.contains("pub fn fuse("), "{md}");
    let ctx: Value = json_ok(&dev, &["query", "weighted reciprocal rank fusion", "--context", "--budget", "1500", "--json", "--branch", "main"], &env);
    assert!(ctx["tokens"].as_u64().is_some_and(|t| t > 0 && t <= 1500), "{ctx}");
    let out = rag_env(&dev, &["query", "who calls fuse", "--mode", "graph", "--branch", "main"], &env);
    assert!(!out.status.success() && stderr(&out).contains("needs a local index"), "{}", stderr(&out));

    // MCP without a local index answers from the server too, through the same
    // entry point as the CLI: the same answers, mode by mode.
    let mut mcp = Mcp::start_in(&dev, &["--lazy", "--branch", "main"], &env);
    mcp.handshake();
    let cases: [(&str, &[&str], Value); 5] = [
        ("where are dedup_overlaps results merged", &[], json!({"query": "where are dedup_overlaps results merged"})),
        ("Retry-After", &["--mode", "keyword"], json!({"query": "Retry-After", "mode": "keyword"})),
        ("dedup_overlaps", &["--mode", "symbol", "-n", "3"], json!({"query": "dedup_overlaps", "mode": "symbol", "limit": 3})),
        ("weighted reciprocal rank fusion", &["--mode", "semantic"], json!({"query": "weighted reciprocal rank fusion", "mode": "semantic"})),
        (
            "include exclude globs gitattributes",
            &["--files", "--lang", "rust"],
            json!({"query": "include exclude globs gitattributes", "files": true, "language": "rust"}),
        ),
    ];
    for (text, flags, args) in cases {
        let mut cli_args = vec!["query", text, "--json", "--branch", "main"];
        cli_args.extend_from_slice(flags);
        let cli = json_ok(&dev, &cli_args, &env);
        assert!(cli["results"].as_array().is_some_and(|r| !r.is_empty()), "{text}: {cli}");
        assert_eq!(comparable(cli), comparable(mcp.tool("search", args)), "{text} {flags:?}");
    }
    let ctx = mcp.tool("context", json!({"query": "weighted reciprocal rank fusion", "budget": 1500}));
    assert!(ctx["markdown"].as_str().is_some_and(|md| md.contains("pub fn fuse(")), "{ctx}");
    let err = mcp.tool_error("callers", json!({"symbol": "fuse"}));
    assert!(err.contains("needs a local index"), "{err}");
    mcp.finish();
}

/// Without a local index, a server out of reach is a clear error naming it.
#[test]
fn a_server_only_query_of_an_unreachable_server_is_a_clear_error() {
    let repo = TestRepo::new();
    repo.write("a.py", "def f():\n    return 1\n");
    repo.commit("one");
    let out = rag_env(repo.path(), &["query", "what does f return", "--branch", "main"], &[("QDRANT_URL", "http://127.0.0.1:9")]);
    assert!(!out.status.success(), "{}", stdout(&out));
    assert!(stderr(&out).contains("cannot reach the Qdrant server at http://127.0.0.1:9"), "{}", stderr(&out));
}
