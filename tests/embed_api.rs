//! Embeddings from an OpenAI-compatible endpoint: a real local HTTP server
//! (`scripts/embed-server.py`) serving the bundled MiniLM through Python's
//! onnxruntime, against the in-process model through the Rust runtime.
//!
//! `scripts/test.sh` makes a virtualenv with onnxruntime, tokenizers and numpy,
//! exports GIT_RAG_TEST_PYTHON and runs these (ignored by a plain `cargo test`);
//! run without it, they fail.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::common::{require_model, stderr, TestRepo};
use git_rag::stores::vector::edge::{Access, EdgeStore};
use git_rag::stores::vector::{Collection, VectorStore};
use serde_json::Value;

/// A running `scripts/embed-server.py`; killed on drop.
struct EmbedServer {
    child: Child,
    url: String,
}

impl EmbedServer {
    /// Needs the model and `GIT_RAG_TEST_PYTHON` (the tests that start one are ignored unless asked for).
    fn start(flags: &[&str]) -> EmbedServer {
        require_model();
        let python = std::env::var_os("GIT_RAG_TEST_PYTHON")
            .expect("GIT_RAG_TEST_PYTHON (a Python with onnxruntime, tokenizers, numpy) is not set: run scripts/test.sh");
        let script = crate::common::root().join("scripts/embed-server.py");
        let mut child = Command::new(python)
            .arg(script)
            .args(["--port", "0", "--served-name", "all-MiniLM-L6-v2"])
            .args(flags)
            .env("EMBED_SERVER_THREADS", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the embedding server starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("the server says where it listens");
        let url = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("unexpected first line {line:?}")).to_string();
        EmbedServer { child, url }
    }
}

impl Drop for EmbedServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A repository of real code: a few of this project's own files.
fn code_repo() -> TestRepo {
    let repo = TestRepo::new();
    let root = crate::common::root();
    for f in ["src/semantic/api.rs", "src/settings.rs", "scripts/embed-server.py", "src/index/paths.rs"] {
        repo.write(f, std::fs::read(root.join(f)).expect("source file"));
    }
    repo.commit("code");
    repo
}

fn use_endpoint(repo: &TestRepo, server: &EmbedServer, extra: &[(&str, &str)]) {
    repo.git(&["config", "rag.embed.url", &server.url]);
    repo.git(&["config", "rag.embed.model", "all-MiniLM-L6-v2"]);
    for (k, v) in extra {
        repo.git(&["config", k, v]);
    }
}

fn use_in_process(repo: &TestRepo) {
    for key in ["rag.embed.url", "rag.embed.model"] {
        repo.git(&["config", "--unset", key]);
    }
}

fn index(repo: &TestRepo, dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["index", "--json", "--index-dir", dir.to_str().expect("utf-8")];
    args.extend_from_slice(extra);
    serde_json::from_str(&repo.rag_ok(&args)).expect("index report json")
}

/// Every point of the tree collections: id → (payload, vector).
fn points(dir: &Path) -> BTreeMap<(String, u64), (Value, Vec<f32>)> {
    let state: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(".rag_index_state.json")).expect("state")).expect("json");
    let sem = &state["semantic"];
    let dims = sem["dims"].as_u64().expect("dims") as usize;
    let store = EdgeStore::open(&dir.join("qdrant"), &dir.join("vectors"), dims, sem["model"].as_str().expect("model"), Access::Read, Duration::from_secs(10))
        .expect("store opens");
    let mut out = BTreeMap::new();
    for c in Collection::TREE {
        for mut r in store.scroll_all(c, true).expect("scroll") {
            // The cache id is of (model, text): the endpoint's model id differs by design.
            assert!(r.payload.remove("cache_id").is_some(), "every tree point names its cached vector");
            out.insert((c.name().to_string(), r.id), (serde_json::to_value(&r.payload).expect("payload"), r.vector.expect("vector")));
        }
    }
    out
}

/// The same points with the same payloads, and vectors within `tol`.
fn assert_same_vectors(a: &Path, b: &Path, tol: f32) {
    let (pa, pb) = (points(a), points(b));
    assert!(!pa.is_empty(), "no points in {}", a.display());
    assert_eq!(pa.keys().collect::<Vec<_>>(), pb.keys().collect::<Vec<_>>(), "different points");
    let (mut worst, mut least_cosine, mut off) = (0f32, 1f32, 0);
    for (k, (payload, va)) in &pa {
        let (payload_b, vb) = &pb[k];
        assert_eq!(payload, payload_b, "payload of {k:?}");
        assert_eq!(va.len(), vb.len(), "dims of {k:?}");
        let d = va.iter().zip(vb).map(|(x, y)| (x - y).abs()).fold(0f32, f32::max);
        worst = worst.max(d);
        off += usize::from(d > tol);
        least_cosine = least_cosine.min(git_rag::semantic::embed::cosine(va, vb));
    }
    assert!(worst <= tol, "vectors differ by up to {worst} (> {tol}); {off} of {} points; least cosine {least_cosine}", pa.len());
    eprintln!("{} points, largest difference {worst:e}", pa.len());
}

const QUESTIONS: [&str; 6] = [
    "retry a request after the server says too many requests",
    "which paths are indexed and which are excluded",
    "where does the index directory come from",
    "mean pooling of token vectors",
    "gitattributes linguist generated",
    "normalize a git remote url",
];

fn answers(repo: &TestRepo, dir: &Path) -> Vec<Value> {
    let d = dir.to_str().expect("utf-8");
    QUESTIONS
        .iter()
        .map(|q| {
            let v = repo.query(q, &["--index-dir", d, "-n", "8"]);
            let hits: Vec<Value> =
                v["results"].as_array().expect("results").iter().map(|r| serde_json::json!([r["path"], r["start_line"], r["end_line"]])).collect();
            Value::Array(hits)
        })
        .collect()
}

fn tmp(name: &str, root: &tempfile::TempDir) -> PathBuf {
    root.path().join(name)
}

#[test]
#[ignore = "needs the model and a Python with onnxruntime (GIT_RAG_TEST_PYTHON); scripts/test.sh runs it"]
fn endpoint_vectors_equal_the_in_process_model_and_a_switch_re_embeds_only() {
    let server = EmbedServer::start(&[]);
    let repo = code_repo();
    let dirs = tempfile::tempdir().expect("tempdir");
    let (local, switched, fresh) = (tmp("local", &dirs), tmp("switched", &dirs), tmp("fresh", &dirs));

    // In-process: one index to keep, one to switch to the endpoint.
    index(&repo, &local, &[]);
    index(&repo, &switched, &[]);
    let local_answers = answers(&repo, &local);

    use_endpoint(&repo, &server, &[]);
    let status: Value = serde_json::from_str(&repo.rag_ok(&["model", "status", "--json"])).expect("json");
    assert_eq!(status["provider"], "api", "{status}");
    assert_eq!(status["dims"], 384, "{status}");
    assert_eq!(status["model"], "api:all-MiniLM-L6-v2", "{status}");

    // The switch re-embeds every file and re-indexes none.
    let out = repo.rag(&["index", "--json", "--index-dir", switched.to_str().expect("utf-8")]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("re-embedding every file; keyword, symbol and graph layers are kept"), "{}", stderr(&out));
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(report["full"], false, "{report}");
    assert_eq!(report["files_indexed"], 0, "{report}");
    assert!(report["embedded"].as_u64().unwrap_or(0) > 100, "{report}");

    // Python's onnxruntime behind HTTP gives the vectors the in-process runtime gives.
    assert_same_vectors(&local, &switched, 1e-4);
    let fresh_report = index(&repo, &fresh, &[]);
    assert_eq!(fresh_report["full"], true);
    assert_same_vectors(&switched, &fresh, 1e-4);

    // And the same answers, the query embedded through the endpoint too.
    assert_eq!(answers(&repo, &switched), local_answers);
    assert_eq!(answers(&repo, &fresh), local_answers);

    // Back to the in-process model: vectors only, again.
    use_in_process(&repo);
    let back = index(&repo, &switched, &[]);
    assert_eq!(back["files_indexed"], 0, "{back}");
    assert_same_vectors(&local, &switched, 1e-6);
}

#[test]
#[ignore = "needs the model and a Python with onnxruntime (GIT_RAG_TEST_PYTHON); scripts/test.sh runs it"]
fn a_server_that_stops_mid_run_holds_back_only_the_vectors_and_the_rerun_equals_a_fresh_index() {
    let healthy = EmbedServer::start(&[]);
    let repo = code_repo();
    let dirs = tempfile::tempdir().expect("tempdir");
    let (dir, fresh) = (tmp("index", &dirs), tmp("fresh", &dirs));
    let d = dir.to_str().expect("utf-8");
    use_endpoint(&repo, &healthy, &[("rag.embed.batchSize", "8"), ("rag.embed.inFlight", "2"), ("rag.embed.retries", "2")]);
    let first = index(&repo, &dir, &[]);
    let first_commit = first["commit"].as_str().expect("commit").to_string();

    // A second commit whose vectors need many requests; the server answers two, then dies.
    let root = crate::common::root();
    for f in ["src/git.rs", "src/index/mod.rs"] {
        repo.write(f, std::fs::read(root.join(f)).expect("source"));
    }
    repo.commit("more code");
    let dying = EmbedServer::start(&["--exit-after", "2"]);
    use_endpoint(&repo, &dying, &[]);
    let out = repo.rag(&["index", "--index-dir", d]);
    let err = stderr(&out);
    assert!(out.status.success(), "keyword, symbol and graph layers go on without the vectors: {err}");
    assert!(err.contains(&dying.url) && err.contains("gave up after 3 attempts"), "the warning names the endpoint and the retries: {err}");

    // Nothing lost: the new commit answers from the keyword layers, the old vectors still serve the rest.
    let status = repo.status(&["--index-dir", d]);
    assert_ne!(status["indexed_commit"], first_commit.as_str(), "{status}");
    assert_eq!(status["vectors_behind"]["paths"], serde_json::json!(["src/git.rs", "src/index/mod.rs"]), "{status}");
    use_endpoint(&repo, &healthy, &[]);
    assert!(!repo.hits("retry a request after too many requests", &["--index-dir", d]).is_empty());

    // The rerun completes and equals a fresh index of the second commit.
    let rerun = index(&repo, &dir, &[]);
    assert_ne!(rerun["commit"], first["commit"]);
    assert_eq!(rerun["vectors_behind"], Value::Null, "{rerun}");
    index(&repo, &fresh, &[]);
    assert_same_vectors(&dir, &fresh, 1e-4);
    assert_eq!(answers(&repo, &dir), answers(&repo, &fresh));
}

#[test]
#[ignore = "needs the model and a Python with onnxruntime (GIT_RAG_TEST_PYTHON); scripts/test.sh runs it"]
fn rate_limits_are_retried_and_a_wrong_size_is_a_clear_error() {
    let throttled = EmbedServer::start(&["--throttle-every", "2"]);
    let repo = code_repo();
    let dirs = tempfile::tempdir().expect("tempdir");
    let (dir, odd) = (tmp("index", &dirs), tmp("odd", &dirs));
    let d = dir.to_str().expect("utf-8");

    // Every second request answers 429 with Retry-After: the run still completes.
    // One request at a time, so that the 429s fall on every other request exactly.
    use_endpoint(&repo, &throttled, &[("rag.embed.batchSize", "8"), ("rag.embed.inFlight", "1"), ("rag.embed.retries", "2")]);
    let report = index(&repo, &dir, &[]);
    assert!(report["embedded"].as_u64().unwrap_or(0) > 50, "{report}");
    assert!(!repo.hits("retry a request after too many requests", &["--index-dir", d]).is_empty());

    // A model of another size: the run stops with a clear error.
    let small = EmbedServer::start(&["--dims", "100"]);
    use_endpoint(&repo, &small, &[("rag.embed.dims", "384")]);
    let out = repo.rag(&["index", "--index-dir", odd.to_str().expect("utf-8")]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("100-dimensional") && err.contains("384") && err.contains("rag.embed.dims"), "{err}");

    // A query of the 384-dims index through it: a clear message, keyword answers still come.
    let out = repo.rag(&["query", "retry a request after too many requests", "--index-dir", d, "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("100-dimensional"), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert!(!v["results"].as_array().expect("results").is_empty());
}
