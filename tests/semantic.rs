//! The semantic layer end to end: the real default model through the real
//! ONNX Runtime, the real embedded Qdrant engine, real git repositories.
//! They need the model: ignored by a plain `cargo test` (counted so), run by
//! `scripts/test.sh`, which installs it first.

use crate::common::{require_model, stderr, stdout, TestRepo};
use serde_json::Value;

const SESSIONS: &str = r#"import json


class SessionStore:
    """Keeps user sessions between runs."""

    def save_to_disk(self, path):
        """Write every session's cookies to a JSON file."""
        with open(path, "w") as fh:
            json.dump(self.cookies, fh)

    def load_from_disk(self, path):
        with open(path) as fh:
            self.cookies = json.load(fh)
"#;

const RETRY: &str = r#"import time


def call_with_backoff(fn, attempts=5):
    """Call fn again after a failure, waiting twice as long each time."""
    for i in range(attempts):
        try:
            return fn()
        except IOError:
            time.sleep(2 ** i)
    raise RuntimeError("gave up")
"#;

const HTML: &str = r#"/**
 * Replace the characters that have a meaning in HTML.
 */
function escapeHtml(text) {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

module.exports = { escapeHtml };
"#;

const DATES: &str = r#"export function parseIsoDate(value: string): Date {
  const [y, m, d] = value.split('-').map(Number);
  return new Date(y, m - 1, d);
}
"#;

fn sample_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app/sessions.py", SESSIONS);
    repo.write("app/retry.py", RETRY);
    repo.write("web/escape.js", HTML);
    repo.write("web/dates.ts", DATES);
    repo.write("README.md", "# Demo\n\nA small app with sessions, retries and HTML escaping.\n");
    repo.commit("initial");
    repo
}

/// `embedded N, reused M` from the index summary line.
fn embedded_reused(out: &str) -> (usize, usize) {
    let num = |key: &str| -> usize {
        let at = out.find(key).unwrap_or_else(|| panic!("no `{key}` in {out}"));
        out[at + key.len()..].trim_start().chars().take_while(char::is_ascii_digit).collect::<String>().parse().expect("number")
    };
    (num("embedded"), num("reused"))
}

fn dump(repo: &TestRepo) -> Value {
    serde_json::from_str(&repo.rag_ok(&["dump-vectors"])).expect("dump json")
}

fn paths_in(dump: &Value, collection: &str) -> Vec<String> {
    let mut p: Vec<String> = dump[collection].as_array().expect("points").iter().filter_map(|p| p["payload"]["path"].as_str().map(str::to_string)).collect();
    p.sort();
    p.dedup();
    p
}

fn semantic_hits(repo: &TestRepo, text: &str, extra: &[&str]) -> Vec<(String, Option<String>)> {
    let mut args = vec!["--mode", "semantic"];
    args.extend_from_slice(extra);
    repo.hits(text, &args).into_iter().map(|(p, _, _, s)| (p, s)).collect()
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn plain_words_find_the_function_they_describe() {
    require_model();
    let repo = sample_repo();
    let out = repo.rag_ok(&["index"]);
    let (embedded, reused) = embedded_reused(&out);
    assert!(embedded > 0 && reused == 0, "{out}");

    let cases = [
        ("write the cookies of the sessions into a file", "app/sessions.py", "SessionStore.save_to_disk"),
        ("try the call again and wait longer after every failure", "app/retry.py", "call_with_backoff"),
        ("make text safe to put inside a web page", "web/escape.js", "escapeHtml"),
        ("turn a string into a calendar date", "web/dates.ts", "parseIsoDate"),
    ];
    for (query, path, symbol) in cases {
        let hits = semantic_hits(&repo, query, &["-n", "3"]);
        assert!(!hits.is_empty(), "{query}: no results");
        assert_eq!(hits[0].0, path, "{query}: {hits:?}");
        assert!(hits.iter().any(|h| h.1.as_deref() == Some(symbol)), "{query}: {symbol} not in {hits:?}");
    }

    // The JSON contract: dense rank in `signals`, lines, content.
    let v = repo.query("turn a string into a calendar date", &["--mode", "semantic", "-n", "2"]);
    let first = &v["results"][0];
    assert_eq!(first["signals"]["dense"], 1);
    assert!(first["start_line"].as_u64().unwrap_or(0) >= 1);
    assert!(first["content"].as_str().unwrap_or("").contains("parseIsoDate"), "{first}");

    // Filters are payload filters.
    let js = semantic_hits(&repo, "turn a string into a calendar date", &["--lang", "javascript"]);
    assert!(!js.is_empty() && js.iter().all(|h| h.0.ends_with(".js")), "{js:?}");
    let app = semantic_hits(&repo, "escape html", &["--path", "app/**"]);
    assert!(!app.is_empty() && app.iter().all(|h| h.0.starts_with("app/")), "{app:?}");
    assert!(semantic_hits(&repo, "escape html", &["--path", "nothing/**"]).is_empty());
    let v = repo.query("sessions", &["--mode", "semantic", "--kind", "method"]);
    let kinds: Vec<&str> = v["results"].as_array().expect("results").iter().filter_map(|r| r["kind"].as_str()).collect();
    assert!(!kinds.is_empty() && kinds.iter().all(|k| *k == "method"), "{kinds:?}");

    // Status reports the layer and its counts.
    let st = repo.status(&[]);
    assert!(st["semantic"]["model"].as_str().unwrap_or("").starts_with("all-MiniLM-L6-v2"), "{st}");
    assert!(st["semantic"]["counts"]["semantic"].as_u64().unwrap_or(0) > 0, "{st}");
    assert!(st["last_run"]["embedded"].as_u64().unwrap_or(0) > 0, "{st}");
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn renames_and_reverts_embed_nothing_and_deletes_leave_no_points() {
    require_model();
    let repo = sample_repo();
    repo.rag_ok(&["index"]);

    // A pure rename: every vector comes from the cache.
    repo.git(&["mv", "app/retry.py", "app/backoff.py"]);
    repo.commit("rename");
    let out = repo.rag_ok(&["index"]);
    let (embedded, reused) = embedded_reused(&out);
    assert_eq!(embedded, 0, "a rename embeds nothing: {out}");
    assert!(reused > 0, "{out}");
    let d = dump(&repo);
    for c in ["files", "symbols", "semantic"] {
        let paths = paths_in(&d, c);
        assert!(paths.contains(&"app/backoff.py".to_string()) && !paths.contains(&"app/retry.py".to_string()), "{c}: {paths:?}");
    }
    let hits = semantic_hits(&repo, "try the call again and wait longer after every failure", &["-n", "1"]);
    assert_eq!(hits[0].0, "app/backoff.py");

    // An edit embeds something; reverting it embeds nothing.
    repo.write("web/dates.ts", format!("{DATES}\nexport function formatIsoDate(d: Date): string {{\n  return d.toISOString().slice(0, 10);\n}}\n"));
    repo.commit("edit");
    let (embedded, _) = embedded_reused(&repo.rag_ok(&["index"]));
    assert!(embedded > 0, "an edit embeds its new text");
    repo.git(&["revert", "--no-edit", "HEAD"]);
    let out = repo.rag_ok(&["index"]);
    assert_eq!(embedded_reused(&out).0, 0, "a revert embeds nothing: {out}");

    // Deleting a file removes its points from every collection.
    repo.remove("web/escape.js");
    repo.commit("delete");
    repo.rag_ok(&["index"]);
    let d = dump(&repo);
    for c in ["files", "symbols", "semantic", "patterns"] {
        assert!(!paths_in(&d, c).contains(&"web/escape.js".to_string()), "{c} still holds web/escape.js");
    }
    assert!(!paths_in(&d, "semantic").is_empty());
    let hits = semantic_hits(&repo, "make text safe to put inside a web page", &[]);
    assert!(hits.iter().all(|h| h.0 != "web/escape.js"), "{hits:?}");
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_crash_between_the_vector_and_keyword_commits_is_repaired() {
    require_model();
    let repo = sample_repo();
    repo.rag_ok(&["index"]);
    repo.git(&["mv", "web/escape.js", "web/html.js"]);
    repo.remove("app/sessions.py");
    repo.write("app/new.py", "def brand_new():\n    \"\"\"Something never seen before.\"\"\"\n    return 42\n");
    repo.commit("several changes");
    let out = crate::common::rag_env(repo.path(), &["index"], &[("GIT_RAG_FAILPOINT", "after-vector-commit")]);
    assert!(!out.status.success(), "the failpoint aborts the run");
    // The next commit, then a run that must finish the interrupted one too.
    repo.write("app/retry.py", format!("{RETRY}\n\ndef another():\n    return 1\n"));
    let head = repo.commit("more");
    repo.rag_ok(&["index"]);
    let scratch = tempfile::tempdir().expect("tempdir");
    let fresh = scratch.path().join("fresh");
    repo.rag_ok(&["index", "--full", "--rev", &head, "--index-dir", fresh.to_str().expect("utf-8")]);
    let a = dump(&repo);
    let b: Value = serde_json::from_str(&repo.rag_ok(&["dump-vectors", "--index-dir", fresh.to_str().expect("utf-8")])).expect("json");
    assert_eq!(a, b, "after the crash and a rerun the vector store equals a fresh index");
}

#[test]
fn an_index_built_without_vectors_by_choice_does_not_ask_for_a_model() {
    let repo = sample_repo();
    repo.rag_ok(&["index", "--no-semantic"]);
    let out = repo.rag(&["query", "how are dates parsed"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("model install") && !stderr(&out).contains("without dense"), "{}", stderr(&out));
    assert!(!stdout(&out).is_empty());
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_missing_model_is_a_clear_error_and_keyword_search_keeps_working() {
    require_model();
    let empty_cache = tempfile::tempdir().expect("tempdir");
    let cache = empty_cache.path().to_str().expect("utf-8");

    // No model and no semantic index yet: index keyword-only, say so.
    let repo = sample_repo();
    let out = crate::common::rag_env(repo.path(), &["index"], &[("GIT_RAG_CACHE", cache)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("semantic layer off") && stderr(&out).contains("git rag model install"), "{}", stderr(&out));
    assert!(stdout(&out).contains("semantic layer off"), "{}", stdout(&out));
    assert!(!repo.paths_of("call_with_backoff", &[]).is_empty(), "keyword search works");
    let out = crate::common::rag_env(repo.path(), &["query", "dates", "--mode", "semantic"], &[("GIT_RAG_CACHE", cache)]);
    assert!(!out.status.success() && stderr(&out).contains("no semantic layer"), "{}", stderr(&out));
    let out = crate::common::rag_env(repo.path(), &["query", "how are dates parsed"], &[("GIT_RAG_CACHE", cache)]);
    assert!(out.status.success() && stderr(&out).contains("without dense") && stderr(&out).contains("git rag model install"), "{}", stderr(&out));

    // With the model the next run builds the semantic layer in full.
    let out = repo.rag_ok(&["index"]);
    assert!(embedded_reused(&out).0 > 0, "{out}");

    // The model disappears while the index holds its vectors: an error that
    // names the fix, and nothing is lost.
    repo.write("app/other.py", "def other():\n    return 2\n");
    repo.commit("other");
    let out = crate::common::rag_env(repo.path(), &["index"], &[("GIT_RAG_CACHE", cache)]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("all-MiniLM-L6-v2") && err.contains("git rag model install") && err.contains("--no-semantic"), "{err}");
    let out = crate::common::rag_env(repo.path(), &["query", "dates", "--mode", "semantic"], &[("GIT_RAG_CACHE", cache)]);
    assert!(!out.status.success() && stderr(&out).contains("git rag model install"), "{}", stderr(&out));
    assert!(!repo.paths_of("call_with_backoff", &[]).is_empty(), "keyword search still works");
    assert!(!semantic_hits(&repo, "turn a string into a calendar date", &[]).is_empty(), "the semantic layer is intact");

    // --no-semantic drops the layer on purpose.
    let out = repo.rag_ok(&["index", "--no-semantic"]);
    assert!(out.contains("semantic layer off"), "{out}");
    assert!(repo.status(&[])["semantic"].is_null());
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn an_unreachable_qdrant_server_holds_back_only_the_vectors() {
    require_model();
    let repo = sample_repo();
    repo.rag_ok(&["index", "--no-semantic"]);
    repo.write("app/more.py", "def more_sessions_helper():\n    return 3\n");
    let head = repo.commit("more");
    let out = repo.rag(&["index", "--qdrant-url", "http://127.0.0.1:9"]);
    assert!(out.status.success(), "keyword, symbol and graph layers go on: {}", stderr(&out));
    assert!(stderr(&out).contains("cannot reach the Qdrant server at http://127.0.0.1:9"), "{}", stderr(&out));
    assert!(stderr(&out).contains("every file's vectors are not"), "{}", stderr(&out));
    let st = repo.status(&["--qdrant-url", "http://127.0.0.1:9"]);
    assert_eq!(st["indexed_commit"], head.as_str(), "{st}");
    assert_eq!(st["vectors_behind"]["all"], true, "status says degraded: {st}");
    assert!(!repo.paths_of("more_sessions_helper", &["--qdrant-url", "http://127.0.0.1:9"]).is_empty(), "the new file is searchable");
    let out = repo.rag(&["query", "sessions", "--mode", "semantic", "--qdrant-url", "http://127.0.0.1:9"]);
    assert!(stderr(&out).contains("the vectors are behind the index"), "{}", stderr(&out));
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_failed_vector_commit_holds_back_only_the_vectors_and_the_next_run_catches_up() {
    require_model();
    let repo = sample_repo();
    repo.rag_ok(&["index"]);
    let fault = [("GIT_RAG_FAULT", "vector-commit")];

    // Two commits whose vector writes fail: the other layers follow each.
    repo.write("app/retry.py", format!("{RETRY}\n\ndef jittered_backoff_delay(i):\n    \"\"\"Random wait before the next attempt.\"\"\"\n    return 2 ** i\n"));
    repo.write("app/new.py", "def brand_new_feature():\n    \"\"\"Something never seen before.\"\"\"\n    return 42\n");
    repo.commit("first change");
    let out = crate::common::rag_env(repo.path(), &["index", "--quiet"], &fault);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the vector store could not be written") && stderr(&out).contains("injected fault"),
        "said even with --quiet: {}",
        stderr(&out)
    );
    repo.remove("web/dates.ts");
    let head = repo.commit("second change");
    let out = crate::common::rag_env(repo.path(), &["index"], &fault);
    assert!(out.status.success(), "{}", stderr(&out));
    let st = repo.status(&[]);
    assert_eq!(st["indexed_commit"], head.as_str(), "{st}");
    assert_eq!(st["vectors_behind"]["all"], false, "{st}");
    let behind: Vec<&str> = st["vectors_behind"]["paths"].as_array().expect("paths").iter().filter_map(Value::as_str).collect();
    assert_eq!(behind, ["app/new.py", "app/retry.py", "web/dates.ts"], "{st}");
    assert!(repo.paths_of("jittered_backoff_delay", &["--mode", "keyword"]).contains(&"app/retry.py".to_string()));
    let dense: Vec<String> = semantic_hits(&repo, "retry after waiting, and a brand new feature", &[]).into_iter().map(|(p, _)| p).collect();
    assert!(!dense.is_empty() && dense.iter().all(|p| !behind.contains(&p.as_str())), "stale vectors are left out: {dense:?}");
    let human = repo.rag_ok(&["status"]);
    assert!(human.contains("degraded: vectors behind for 3 files"), "{human}");
    // Two of the indexed files lack vectors (the third behind is deleted).
    let files = st["counts"]["files"].as_u64().expect("files");
    assert_eq!(st["vector_coverage"], serde_json::json!({"files": files, "with_vectors": files - 2}), "{st}");
    assert!(human.contains(&format!("coverage: {} of {files} files have their vectors", files - 2)), "{human}");

    // The next run that can write catches up, even at the same commit, and equals a fresh index.
    let out = repo.rag_ok(&["index"]);
    assert!(!out.contains("already at"), "{out}");
    let st = repo.status(&[]);
    assert_eq!(st["vectors_behind"], Value::Null);
    assert_eq!(st["vector_coverage"]["with_vectors"], st["counts"]["files"], "{st}");
    let scratch = tempfile::tempdir().expect("tempdir");
    let fresh = scratch.path().join("fresh");
    repo.rag_ok(&["index", "--index-dir", fresh.to_str().expect("utf-8")]);
    let b: Value = serde_json::from_str(&repo.rag_ok(&["dump-vectors", "--index-dir", fresh.to_str().expect("utf-8")])).expect("json");
    assert_eq!(dump(&repo), b, "after catching up the vector store equals a fresh index");
    assert_eq!(repo.query("retry after waiting", &[]), repo.query("retry after waiting", &["--index-dir", fresh.to_str().expect("utf-8")]));
}

fn gc_report(repo: &TestRepo, extra: &[&str]) -> Value {
    let mut args = vec!["gc", "--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&repo.rag_ok(&args)).expect("gc json")
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn gc_keeps_exactly_the_referenced_vectors_and_answers_do_not_change() {
    require_model();
    let repo = sample_repo();
    repo.rag_ok(&["index"]);
    // History leaves vectors in the cache: an edited file, a deleted one, a deleted branch.
    repo.write("app/retry.py", format!("{RETRY}\n\ndef extra_helper():\n    return 7\n"));
    repo.remove("web/dates.ts");
    repo.commit("edit and delete");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("app/feature.py", "def feature_only():\n    \"\"\"Only on the feature branch.\"\"\"\n    return 1\n");
    repo.commit("feature");
    repo.rag_ok(&["index"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["branch", "-q", "-D", "feature"]);
    repo.rag_ok(&["index"]);
    let answers_before = repo.query("retry after waiting", &[]);
    let vectors_before = dump(&repo);

    // A dry run counts and deletes nothing.
    let dry = gc_report(&repo, &[]);
    assert_eq!(dry["applied"], false, "{dry}");
    assert!(dry["unreferenced"].as_u64().unwrap_or(0) >= 3, "old texts of three files: {dry}");
    assert_eq!(gc_report(&repo, &[])["cached"], dry["cached"], "the dry run deleted nothing");
    assert!(repo.rag_ok(&["gc"]).contains("run `git rag gc --yes`"));

    let done = gc_report(&repo, &["--yes"]);
    assert_eq!(done["applied"], true, "{done}");
    let after = gc_report(&repo, &[]);
    assert_eq!(after["unreferenced"], 0, "{after}");
    assert_eq!(after["cached"].as_u64(), Some(dry["cached"].as_u64().unwrap_or(0) - dry["unreferenced"].as_u64().unwrap_or(0)), "{after}");

    // Exactly the vectors a fresh index of the commit caches, and the same answers.
    let scratch = tempfile::tempdir().expect("tempdir");
    let fresh = scratch.path().join("fresh");
    let f = fresh.to_str().expect("utf-8");
    repo.rag_ok(&["index", "--index-dir", f]);
    let fresh_gc = gc_report(&repo, &["--index-dir", f]);
    assert_eq!((after["cached"].clone(), after["referenced"].clone()), (fresh_gc["cached"].clone(), fresh_gc["cached"].clone()), "{after} vs {fresh_gc}");
    assert_eq!(repo.query("retry after waiting", &[]), answers_before);
    assert_eq!(dump(&repo), vectors_before, "gc touches the cache only");

    // The next change still reuses what is cached.
    repo.write("web/escape2.js", HTML);
    repo.commit("copy");
    let (embedded, reused) = embedded_reused(&repo.rag_ok(&["index"]));
    assert_eq!(embedded, 0, "a copy of an indexed file embeds nothing after gc (reused {reused})");
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_first_index_answers_before_its_vectors_and_a_kill_while_embedding_is_completed() {
    require_model();
    let repo = sample_repo();
    let head = repo.git(&["rev-parse", "HEAD"]);
    // Killed after keyword, symbol and graph were committed, before any vector.
    let out = crate::common::rag_env(repo.path(), &["index"], &[("GIT_RAG_FAILPOINT", "before-vectors")]);
    assert!(!out.status.success(), "the failpoint aborts the run");
    assert!(stderr(&out).contains("keyword, symbol and graph search are at"), "{}", stderr(&out));
    let st = repo.status(&[]);
    assert_eq!(st["indexed_commit"], head.as_str(), "searchable at the commit: {st}");
    assert_eq!(st["vectors_behind"]["all"], true, "{st}");
    assert!(repo.paths_of("call_with_backoff", &[]).contains(&"app/retry.py".to_string()));
    let out = repo.rag(&["query", "save sessions to a file", "--mode", "semantic"]);
    assert!(stderr(&out).contains("the vectors are behind the index"), "{}", stderr(&out));

    // The next run, at the same commit, embeds everything and equals a fresh index.
    let report: Value = serde_json::from_str(&repo.rag_ok(&["index", "--json"])).expect("json");
    assert_eq!(report["files_indexed"], 0, "only the vectors: {report}");
    assert_eq!(report["vectors_behind"], Value::Null, "{report}");
    let scratch = tempfile::tempdir().expect("tempdir");
    let fresh = scratch.path().join("fresh");
    let f = fresh.to_str().expect("utf-8");
    let fresh_report: Value = serde_json::from_str(&repo.rag_ok(&["index", "--json", "--index-dir", f])).expect("json");
    let (searchable, took) = (fresh_report["searchable_ms"].as_f64().unwrap_or(-1.0), fresh_report["took_ms"].as_f64().unwrap_or(-1.0));
    assert!(searchable > 0.0 && searchable <= took, "search answered before the vectors were in: {fresh_report}");
    let b: Value = serde_json::from_str(&repo.rag_ok(&["dump-vectors", "--index-dir", f])).expect("json");
    assert_eq!(dump(&repo), b);
    assert_eq!(semantic_hits(&repo, "save sessions to a file", &[]), semantic_hits(&repo, "save sessions to a file", &["--index-dir", f]));
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn the_index_summary_accounts_for_what_was_embedded() {
    require_model();
    let repo = sample_repo();
    let report: Value = serde_json::from_str(&repo.rag_ok(&["index", "--json"])).expect("json");
    let semantic = &report["semantic"];
    let work = &semantic["work"];
    let kinds = work["per_kind"].as_object().expect("per kind");
    // The sample's definitions are short: their headers share their chunks' vectors (no `symbols` texts).
    assert!(kinds.contains_key("semantic") && kinds.contains_key("files"), "{work}");
    let texts: u64 = kinds.values().map(|k| k["texts"].as_u64().unwrap_or(0)).sum();
    assert_eq!(texts, semantic["embedded"].as_u64().expect("embedded"), "every embedded text is counted under one kind: {work}");
    assert!(kinds.values().all(|k| k["chars"].as_u64().unwrap_or(0) >= k["texts"].as_u64().unwrap_or(0)), "{work}");
    let tokens = &work["tokens"];
    let (real, padded, batches) =
        (tokens["tokens"].as_u64().unwrap_or(0), tokens["padded_tokens"].as_u64().unwrap_or(0), tokens["batches"].as_u64().unwrap_or(0));
    // At least one token per text ([CLS] and [SEP] alone are two), never more than the padded cells.
    assert!(real >= 2 * texts && padded >= real && batches >= 1, "{work}");

    // A rename embeds nothing, so there is no work to account for.
    repo.git(&["mv", "app/retry.py", "app/backoff.py"]);
    repo.commit("rename");
    let report: Value = serde_json::from_str(&repo.rag_ok(&["index", "--json"])).expect("json");
    assert_eq!(report["semantic"]["work"]["per_kind"], serde_json::json!({}), "{report}");
    assert!(report["semantic"]["work"]["tokens"].is_null(), "the model was not even loaded: {report}");
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn an_index_of_another_recipe_is_re_embedded_once_and_keeps_its_other_layers() {
    require_model();
    let repo = sample_repo();
    repo.write("tests/test_retry.py", "from app.retry import call_with_backoff\n\n\ndef test_gives_up():\n    \"\"\"Five failures raise.\"\"\"\n    assert call_with_backoff(lambda: 1) == 1\n");
    repo.commit("a test");
    let dirs = tempfile::tempdir().expect("tempdir");
    let (old, fresh) = (dirs.path().join("old"), dirs.path().join("fresh"));
    let (old, fresh) = (old.to_str().expect("utf-8"), fresh.to_str().expect("utf-8"));
    repo.rag_ok(&["index", "--json", "--index-dir", old]);

    // The state of an index written before the recipe was recorded.
    let state_path = std::path::Path::new(old).join(".rag_index_state.json");
    let mut state: Value = serde_json::from_str(&std::fs::read_to_string(&state_path).expect("state")).expect("json");
    state["semantic"].as_object_mut().expect("semantic state").remove("recipe");
    std::fs::write(&state_path, serde_json::to_vec(&state).expect("json")).expect("write state");

    let out = repo.rag(&["index", "--json", "--index-dir", old]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("recipe 0") && stderr(&out).contains("re-embedding every file; keyword, symbol and graph layers are kept"),
        "{}",
        stderr(&out)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!((report["full"].as_bool(), report["files_indexed"].as_u64()), (Some(false), Some(0)), "{report}");
    // Texts the cache holds are not embedded again.
    assert_eq!(report["embedded"], 0, "{report}");
    let again: Value = serde_json::from_str(&repo.rag_ok(&["index", "--json", "--index-dir", old])).expect("json");
    assert_eq!(again["mode"], "up_to_date", "once only: {again}");

    // The test's symbol shares its chunk's vector; the rest have their own.
    repo.rag_ok(&["index", "--json", "--index-dir", fresh]);
    let dumped = |d: &str| -> Value { serde_json::from_str(&repo.rag_ok(&["dump-vectors", "--index-dir", d])).expect("dump json") };
    assert_eq!(dumped(old), dumped(fresh));
}
