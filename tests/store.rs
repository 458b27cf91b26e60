//! One contract for both vector stores: the embedded Qdrant engine always,
//! and a Qdrant server when `QDRANT_URL` is set (start one on loopback as the
//! README says). Without it the server runs are ignored (they need it).

use std::time::Duration;

use git_rag::stores::vector::edge::{Access, EdgeStore};
use git_rag::stores::vector::server::{ServerOptions, ServerStore};
use git_rag::stores::vector::{Collection, Filter, Point, VectorStore};
use serde_json::{json, Map, Value};

fn point(id: u64, v: [f32; 4], path: &str, kind: &str, lang: &str) -> Point {
    let mut payload = Map::new();
    payload.insert("path".into(), path.into());
    payload.insert("kind".into(), kind.into());
    payload.insert("language".into(), lang.into());
    payload.insert("start_line".into(), json!(3));
    Point { id, vector: v.to_vec(), payload, text: Some(format!("{kind} in {path}")) }
}

fn ids(hits: &[git_rag::stores::vector::ScoredHit]) -> Vec<u64> {
    hits.iter().map(|h| h.id).collect()
}

/// The contract every backend meets.
fn contract(store: &dyn VectorStore) {
    for c in Collection::TREE {
        store.clear(c).expect("clear");
    }
    assert_eq!(store.dims(), 4);
    let s = Collection::Semantic;
    store
        .upsert(
            s,
            vec![
                point(1, [1.0, 0.0, 0.0, 0.0], "a.py", "function", "python"),
                point(2, [0.0, 1.0, 0.0, 0.0], "b.py", "class", "python"),
                point(3, [0.9, 0.1, 0.0, 0.0], "b.py", "function", "python"),
                point(4, [0.8, 0.0, 0.2, 0.0], "c.js", "function", "javascript"),
            ],
        )
        .expect("upsert");
    store.commit(true).expect("commit");
    assert_eq!(store.count(s).expect("count"), 4);

    // Nearest first; payload comes back as JSON.
    let hits = store.search(s, &[1.0, 0.0, 0.0, 0.0], &Filter::default(), 3).expect("search");
    assert_eq!(ids(&hits), vec![1, 3, 4]);
    assert_eq!(hits[0].payload["path"], "a.py");
    assert_eq!(hits[0].payload["start_line"], json!(3));
    assert!(hits[0].score > hits[1].score);

    // Payload filters: one value, any of several, several fields.
    let f = Filter::default().any_of("path", vec!["b.py".into()]);
    assert_eq!(ids(&store.search(s, &[1.0, 0.0, 0.0, 0.0], &f, 10).expect("search")), vec![3, 2]);
    let f = Filter::default().any_of("path", vec!["b.py".into(), "c.js".into()]).any_of("kind", vec!["function".into()]);
    assert_eq!(ids(&store.search(s, &[1.0, 0.0, 0.0, 0.0], &f, 10).expect("search")), vec![3, 4]);
    let f = Filter::default().any_of("language", vec!["javascript".into()]);
    assert_eq!(ids(&store.search(s, &[0.0, 1.0, 0.0, 0.0], &f, 10).expect("search")), vec![4]);

    // Upserting an id replaces the point.
    store.upsert(s, vec![point(3, [0.0, 0.0, 1.0, 0.0], "b.py", "function", "python")]).expect("upsert");
    assert_eq!(store.count(s).expect("count"), 4);
    let v = store.vectors(s, &[3, 99]).expect("vectors");
    assert_eq!(v.len(), 1, "unknown ids are left out");
    assert!((v[&3][2] - 1.0).abs() < 1e-5, "{:?}", v[&3]);

    // Retrieve with payloads; scroll everything.
    let r = store.retrieve(s, &[1, 4], false).expect("retrieve");
    let mut paths: Vec<Value> = r.iter().map(|r| r.payload["path"].clone()).collect();
    paths.sort_by_key(|p| p.to_string());
    assert_eq!(paths, vec![json!("a.py"), json!("c.js")]);
    let all = store.scroll_all(s, true).expect("scroll");
    assert_eq!(all.len(), 4);
    assert!(all.iter().all(|r| r.vector.as_ref().is_some_and(|v| v.len() == 4)));

    // Delete by path, in one collection only.
    store.upsert(Collection::Files, vec![point(10, [1.0, 1.0, 0.0, 0.0], "b.py", "file", "python")]).expect("upsert");
    store.delete_paths(s, &["b.py".into(), "nothing.py".into()]).expect("delete");
    assert_eq!(store.count(s).expect("count"), 2);
    assert_eq!(store.count(Collection::Files).expect("count"), 1);
    store.delete_paths(Collection::Files, &["b.py".into()]).expect("delete");
    assert_eq!(store.count(Collection::Files).expect("count"), 0);

    // The cache holds payload-free vectors by id.
    store.upsert(Collection::VectorCache, vec![Point { id: 77, vector: vec![0.5, 0.5, 0.5, 0.5], payload: Map::new(), text: None }]).expect("cache");
    assert_eq!(store.vectors(Collection::VectorCache, &[77]).expect("cache").len(), 1);

    // Wrong dimensions are refused, not stored.
    assert!(store.upsert(s, vec![Point { id: 5, vector: vec![1.0; 3], payload: Map::new(), text: None }]).is_err());

    // Clearing empties a collection.
    store.clear(s).expect("clear");
    store.commit(false).expect("commit");
    assert_eq!(store.count(s).expect("count"), 0);
}

/// The work tree's layer keeps its vectors in memory, under the same contract.
#[test]
fn memory_store_meets_the_contract() {
    contract(&git_rag::stores::vector::memory::MemoryStore::new(4));
}

/// How long a reopen waits for the lock its own earlier open let go of. A
/// file lock is shared with every process forked while it was held, until that
/// process execs: another test of this binary spawning `git` at that moment
/// keeps it a little longer than the drop.
const REOPEN_WAIT: Duration = Duration::from_secs(10);

#[test]
fn embedded_store_meets_the_contract_and_survives_a_reopen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path().join("qdrant");
    {
        let store = EdgeStore::open(&d, &dir.path().join("vectors"), 4, "test-model", Access::Write, Duration::ZERO).expect("open");
        contract(&store);
        store.upsert(Collection::Symbols, vec![point(8, [0.0, 0.0, 0.0, 1.0], "s.py", "function", "python")]).expect("upsert");
        store.commit(true).expect("commit");
    }
    let store = EdgeStore::open(&d, &dir.path().join("vectors"), 4, "test-model", Access::Read, REOPEN_WAIT).expect("reopen");
    assert_eq!(store.count(Collection::Symbols).expect("count"), 1, "points survive a reopen");
    assert_eq!(store.vectors(Collection::VectorCache, &[77]).expect("cache").len(), 1);
    assert!(store.upsert(Collection::Symbols, vec![]).is_err(), "a reader cannot write");
}

fn server_opts(url: &str, prefix: &str) -> ServerOptions {
    ServerOptions { url: url.to_string(), api_key: std::env::var("QDRANT_API_KEY").ok(), prefix: prefix.to_string(), timeout: Duration::from_secs(30) }
}

#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn server_store_meets_the_contract() {
    let (url, _server) = crate::common::require_server();
    let prefix = format!("git_rag_test_{}", std::process::id());
    let store = ServerStore::connect(server_opts(&url, &prefix), 4, "test-model").expect("connect");
    contract(&store);
    assert!(store.collection_name(Collection::Semantic).starts_with(&prefix));
    // A second model size against the same collections is a clear error.
    let err = ServerStore::connect(server_opts(&url, &prefix), 8, "test-model").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("git rag index --full"), "{err}");
}

#[test]
fn an_unreachable_server_is_a_clear_error() {
    // Nothing listens on port 9 of loopback (discard); no QDRANT_URL needed.
    let err = ServerStore::connect(server_opts("http://127.0.0.1:9", "x"), 4, "m").err().map(|e| e.to_string()).unwrap_or_default();
    assert!(err.contains("cannot reach the Qdrant server at http://127.0.0.1:9"), "{err}");
}
