//! CI indexing (`scripts/ci-index`, `git rag index --ci`) into a real Qdrant
//! server: shallow clones, the state kept in the server, incremental runs
//! equal to full ones, two branches side by side, an interrupted run, and a
//! developer's query of what CI built. Runs when `QDRANT_URL` is set (see the
//! README for a server on loopback); ignored by a plain `cargo test` (they need it).

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{clone, git_in, rag_env, stderr, stdout, unique, TestRepo};
use serde_json::Value;

/// A shallow clone (`--depth 1`) of `branch` of the origin, as a CI checkout.
fn shallow_clone(origin: &Path, branch: &str, into: &Path) -> PathBuf {
    let clone = clone(origin, into, &["--depth", "1", "--branch", branch]);
    assert_eq!(git_in(&clone, &["rev-parse", "--is-shallow-repository"]), "true");
    clone
}

/// `scripts/ci-index` in `dir`, as a CI job runs it; returns its JSON report.
fn ci_index(dir: &Path, url: &str, branch: &str, extra: &[&str]) -> Value {
    let script = crate::common::root().join("scripts/ci-index");
    let out = Command::new("bash")
        .arg(script)
        .args(["--json", "-q"])
        .args(extra)
        .current_dir(dir)
        .env("QDRANT_URL", url)
        .env("GIT_RAG_BIN", env!("CARGO_BIN_EXE_git-rag"))
        .env("GIT_RAG_BRANCH", branch)
        .env_remove("GITHUB_REF_NAME")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .output()
        .expect("ci-index runs");
    assert!(out.status.success(), "ci-index failed: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("report json")
}

fn dump(dir: &Path, url: &str, branch: &str) -> Value {
    let out = rag_env(dir, &["dump-vectors", "--branch", branch], &[("QDRANT_URL", url)]);
    assert!(out.status.success(), "dump-vectors: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("dump json")
}

fn assert_same_vectors(a: &Value, b: &Value, label: &str) {
    for c in ["files", "symbols", "semantic", "patterns"] {
        assert_eq!(a[c], b[c], "{label}: collection {c} differs");
    }
    assert!(!a["semantic"].as_array().expect("points").is_empty(), "{label}: nothing indexed");
}

/// Each step is pushed, checked out shallow and indexed by CI; the result
/// equals a fresh full index of the same commit in other collections.
#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn shallow_ci_runs_are_incremental_and_equal_a_full_index() {
    let (url, _server) = crate::common::require_server();
    let origin = TestRepo::new();
    origin.write("pkg/retry.py", "import time\n\n\ndef call_with_backoff(fn, attempts=5):\n    \"\"\"Call fn again after a failure, waiting longer each time.\"\"\"\n    for i in range(attempts):\n        try:\n            return fn()\n        except IOError:\n            time.sleep(2 ** i)\n");
    origin.write("pkg/escape.py", "def escape_html(text):\n    \"\"\"Replace the characters that mean something in HTML.\"\"\"\n    return text.replace('&', '&amp;').replace('<', '&lt;')\n");
    origin.write("web/app.js", "function startServer(port) {\n  console.log('listening on ' + port);\n}\nmodule.exports = { startServer };\n");
    origin.commit("one");
    let scratch = tempfile::tempdir().expect("tempdir");
    let prefix = unique("ci_inc");
    let steps: Vec<Box<dyn Fn(&TestRepo)>> = vec![
        Box::new(|_| {}),
        // An edit, an add.
        Box::new(|r| {
            r.write("pkg/escape.py", "def escape_html(text):\n    \"\"\"Make text safe inside an HTML page.\"\"\"\n    return text.replace('&', '&amp;')\n");
            r.write("pkg/cache.py", "def evict_expired(cache, now):\n    \"\"\"Drop entries whose time is up.\"\"\"\n    return {k: v for k, v in cache.items() if v.expires > now}\n");
        }),
        // A rename and a delete.
        Box::new(|r| {
            r.git(&["mv", "pkg/retry.py", "pkg/backoff.py"]);
            r.remove("web/app.js");
        }),
    ];
    for (i, step) in steps.iter().enumerate() {
        step(&origin);
        let head = origin.commit(&format!("step {i}"));
        let ci = shallow_clone(origin.path(), "main", &scratch.path().join(format!("ci{i}")));
        git_in(&ci, &["config", "rag.qdrantPrefix", &prefix]);
        let report = ci_index(&ci, &url, "main", &[]);
        assert_eq!(report["commit"], head, "{report}");
        match i {
            0 => assert_eq!(report["full"], true, "{report}"),
            1 => {
                assert_eq!(report["full"], false, "{report}");
                assert_eq!(report["files_indexed"], 2, "only the edited and the added file: {report}");
            }
            _ => {
                assert_eq!(report["full"], false, "{report}");
                assert_eq!(report["files_indexed"], 1, "the renamed file: {report}");
                assert_eq!(report["files_deleted"], 2, "both sides gone: the old name and the deleted file: {report}");
                assert_eq!(report["embedded"], 0, "a rename embeds nothing: {report}");
            }
        }
        // Running again changes nothing.
        assert_eq!(ci_index(&ci, &url, "main", &[])["up_to_date"], true);
        let fresh = shallow_clone(origin.path(), "main", &scratch.path().join(format!("fresh{i}")));
        git_in(&fresh, &["config", "rag.qdrantPrefix", &unique(&format!("fresh{i}"))]);
        assert_eq!(ci_index(&fresh, &url, "main", &["--full"])["full"], true);
        assert_same_vectors(&dump(&ci, &url, "main"), &dump(&fresh, &url, "main"), &format!("step {i}"));
    }

    // A developer's clone with no local index queries what CI built.
    let dev = shallow_clone(origin.path(), "main", &scratch.path().join("dev"));
    git_in(&dev, &["config", "rag.qdrantPrefix", &prefix]);
    let out = rag_env(&dev, &["query", "remove cache entries that expired", "--json", "--branch", "main", "-n", "3"], &[("QDRANT_URL", &url)]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("no local index"), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["results"][0]["path"], "pkg/cache.py", "{v}");
    let out = rag_env(&dev, &["query", "evict_expired", "--mode", "keyword", "--json", "--branch", "main"], &[("QDRANT_URL", &url)]);
    assert!(out.status.success(), "keyword search runs on the server's BM25 vectors: {}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["results"][0]["path"], "pkg/cache.py", "{v}");
    let out = rag_env(&dev, &["query", "who calls evict_expired", "--mode", "graph", "--branch", "main"], &[("QDRANT_URL", &url)]);
    assert!(!out.status.success() && stderr(&out).contains("needs a local index"), "{}", stderr(&out));
}

/// Two branches into one server: each has its collections; indexing one
/// leaves the other as it was; identical content is embedded once.
#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn two_branches_do_not_clobber_each_other() {
    let (url, _server) = crate::common::require_server();
    let origin = TestRepo::new();
    origin.write(
        "pkg/auth.py",
        "def check_token(token):\n    \"\"\"Reject empty or expired tokens.\"\"\"\n    if not token:\n        raise ValueError('empty')\n    return token\n",
    );
    origin.commit("main");
    origin.git(&["checkout", "-q", "-b", "feature"]);
    origin.write("pkg/export.py", "def export_invoices_csv(invoices, path):\n    \"\"\"Write invoices to a CSV file.\"\"\"\n    with open(path, 'w') as fh:\n        fh.write('\\n'.join(map(str, invoices)))\n");
    origin.commit("feature");
    origin.git(&["checkout", "-q", "main"]);
    let scratch = tempfile::tempdir().expect("tempdir");
    let prefix = unique("ci_branches");
    let main = shallow_clone(origin.path(), "main", &scratch.path().join("main"));
    git_in(&main, &["config", "rag.qdrantPrefix", &prefix]);
    let feature = shallow_clone(origin.path(), "feature", &scratch.path().join("feature"));
    git_in(&feature, &["config", "rag.qdrantPrefix", &prefix]);

    let r = ci_index(&main, &url, "main", &[]);
    assert!(r["prefix"].as_str().unwrap_or("").ends_with("_main"), "{r}");
    let before = dump(&main, &url, "main");
    let r = ci_index(&feature, &url, "feature", &[]);
    assert!(r["prefix"].as_str().unwrap_or("").ends_with("_feature"), "{r}");
    assert!(r["reused"].as_u64().unwrap_or(0) > 0, "pkg/auth.py's vectors come from the shared cache: {r}");
    assert_eq!(dump(&main, &url, "main"), before, "indexing `feature` changed `main`");

    let query = |dir: &Path, branch: &str| -> Vec<String> {
        let out = rag_env(dir, &["query", "write invoices to a csv file", "--json", "--branch", branch, "-n", "5"], &[("QDRANT_URL", &url)]);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
        v["results"].as_array().expect("results").iter().map(|h| h["path"].as_str().unwrap_or_default().to_string()).collect()
    };
    assert!(query(&feature, "feature").contains(&"pkg/export.py".to_string()));
    assert!(!query(&main, "main").contains(&"pkg/export.py".to_string()));
}

/// A run that dies after it recorded its plan, or after writing the vectors
/// but before the state, is redone by the next run; an unreachable server is a
/// clear error that changes nothing.
#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn an_interrupted_or_unreachable_ci_run_loses_nothing() {
    let (url, _server) = crate::common::require_server();
    let origin = TestRepo::new();
    origin.write("pkg/a.py", "def parse_header(line):\n    \"\"\"Split a header line into name and value.\"\"\"\n    return line.split(':', 1)\n");
    origin.commit("one");
    let scratch = tempfile::tempdir().expect("tempdir");
    let prefix = unique("ci_crash");
    let ci = shallow_clone(origin.path(), "main", &scratch.path().join("ci"));
    git_in(&ci, &["config", "rag.qdrantPrefix", &prefix]);
    ci_index(&ci, &url, "main", &[]);

    let out = rag_env(&ci, &["index", "--ci", "--branch", "main"], &[("QDRANT_URL", "http://127.0.0.1:9")]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("cannot reach the Qdrant server"), "{}", stderr(&out));

    for (i, failpoint) in ["ci-after-journal", "ci-before-state"].iter().enumerate() {
        origin.write("pkg/a.py", format!("def parse_header(line):\n    \"\"\"Split a header line (version {i}).\"\"\"\n    return line.split(':', 1)\n"));
        origin.write(&format!("pkg/new{i}.py"), format!("def helper_{i}():\n    return {i}\n"));
        origin.commit(&format!("change {i}"));
        let ci = shallow_clone(origin.path(), "main", &scratch.path().join(format!("ci-crash{i}")));
        git_in(&ci, &["config", "rag.qdrantPrefix", &prefix]);
        let out = rag_env(&ci, &["index", "--ci", "--branch", "main", "-q"], &[("QDRANT_URL", &url), ("GIT_RAG_FAILPOINT", failpoint)]);
        assert!(!out.status.success(), "the failpoint {failpoint} kills the run");
        let report = ci_index(&ci, &url, "main", &[]);
        assert_eq!(report["up_to_date"], false, "{report}");
        let fresh = shallow_clone(origin.path(), "main", &scratch.path().join(format!("fresh{i}")));
        git_in(&fresh, &["config", "rag.qdrantPrefix", &unique(&format!("crashfresh{i}"))]);
        ci_index(&fresh, &url, "main", &["--full"]);
        assert_same_vectors(&dump(&ci, &url, "main"), &dump(&fresh, &url, "main"), failpoint);
    }
}
