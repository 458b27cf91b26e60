//! Which paths are indexed: `git config rag.include` / `rag.exclude` and the
//! commit's `.gitattributes` (`linguist-generated`, `linguist-vendored`,
//! `-diff`). A change of either re-indexes only the paths whose decision
//! flipped, and the result equals a fresh index made with the new rules.

use std::path::Path;

use crate::common::{rag_in, stderr, stdout, TestRepo};
use serde_json::Value;

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("src/billing.py", "def invoice_total(lines):\n    return sum(lines)\n");
    repo.write("vendor/left_pad.py", "def left_pad(text, n):\n    return text.rjust(n)\n");
    repo.write("gen/schema_pb2.py", "def generated_descriptor():\n    return None\n");
    repo.write("docs/guide.md", "# Guide\n\nHow invoices are totalled.\n");
    repo.write("assets/data.txt", "opaque data blob\n");
    repo.write(".gitattributes", "vendor/** linguist-vendored\ngen/*_pb2.py linguist-generated=true\n*.txt -diff\n");
    repo.commit("first");
    repo
}

fn index(dir: &Path, index_dir: &Path, extra: &[&str]) -> String {
    let idx = index_dir.display().to_string();
    let mut args = vec!["--index-dir", idx.as_str(), "index", "--no-semantic"];
    args.extend_from_slice(extra);
    let out = rag_in(dir, &args);
    assert!(out.status.success(), "{}", stderr(&out));
    format!("{}{}", stdout(&out), stderr(&out))
}

fn indexed_paths(index_dir: &Path) -> Vec<String> {
    let state: Value = git_rag::dump_state(index_dir).expect("state");
    state["files"].as_object().expect("files").keys().cloned().collect()
}

/// The state's file records and keyword answers, to compare with a fresh index.
fn contents(dir: &Path, index_dir: &Path) -> (Value, Vec<Value>) {
    let state: Value = git_rag::dump_state(index_dir).expect("state");
    let idx = index_dir.display().to_string();
    let answers = ["invoice total", "left_pad", "generated_descriptor", "guide", "opaque data"]
        .iter()
        .map(|q| {
            let out = rag_in(dir, &["--index-dir", &idx, "query", q, "--json", "--mode", "keyword", "--at-commit"]);
            serde_json::from_str::<Value>(&stdout(&out)).expect("query json")["results"].clone()
        })
        .collect();
    (state["files"].clone(), answers)
}

fn assert_equals_fresh(repo: &TestRepo, idx: &Path, scratch: &Path, label: &str) {
    let fresh = scratch.join(format!("fresh-{label}"));
    index(repo.path(), &fresh, &["--full"]);
    assert_eq!(contents(repo.path(), idx), contents(repo.path(), &fresh), "{label}");
}

#[test]
fn gitattributes_and_settings_decide_and_changes_reindex_only_what_flipped() {
    let repo = repo();
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let out = index(repo.path(), &idx, &[]);
    assert!(out.contains("3 excluded"), "{out}");
    assert_eq!(indexed_paths(&idx), [".gitattributes", "docs/guide.md", "src/billing.py"]);

    // A setting: docs are left out; only that path is touched.
    repo.git(&["config", "rag.exclude", "docs/"]);
    let out = index(repo.path(), &idx, &[]);
    assert!(out.contains("0 files indexed, 0 deleted") || out.contains("0 files indexed"), "{out}");
    assert_eq!(indexed_paths(&idx), [".gitattributes", "src/billing.py"]);
    assert_equals_fresh(&repo, &idx, tmp.path(), "exclude");

    // Several values, and include: only src/ and the attribute file.
    repo.git(&["config", "--add", "rag.include", "src/"]);
    repo.git(&["config", "--add", "rag.include", ".gitattributes"]);
    index(repo.path(), &idx, &[]);
    assert_eq!(indexed_paths(&idx), [".gitattributes", "src/billing.py"]);
    repo.git(&["config", "--unset-all", "rag.include"]);

    // A commit that changes .gitattributes: vendor/ comes in, the rest stays.
    repo.write(".gitattributes", "gen/*_pb2.py linguist-generated=true\n*.txt -diff\n");
    repo.commit("vendor is ours now");
    let out = index(repo.path(), &idx, &[]);
    assert!(out.contains("2 files indexed"), "{out}");
    assert_eq!(indexed_paths(&idx), [".gitattributes", "src/billing.py", "vendor/left_pad.py"]);
    assert_equals_fresh(&repo, &idx, tmp.path(), "attributes");

    // The setting removed: docs come back.
    repo.git(&["config", "--unset-all", "rag.exclude"]);
    index(repo.path(), &idx, &[]);
    assert_eq!(indexed_paths(&idx), [".gitattributes", "docs/guide.md", "src/billing.py", "vendor/left_pad.py"]);
    assert_equals_fresh(&repo, &idx, tmp.path(), "unset");
}

#[test]
fn a_bad_glob_is_a_clear_error_that_changes_nothing() {
    let repo = repo();
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    index(repo.path(), &idx, &[]);
    let before = indexed_paths(&idx);
    repo.git(&["config", "rag.exclude", "src/[oops"]);
    let out = rag_in(repo.path(), &["--index-dir", &idx.display().to_string(), "index", "--no-semantic"]);
    assert!(!out.status.success() && stderr(&out).contains("rag.exclude") && stderr(&out).contains("src/[oops"), "{}", stderr(&out));
    assert_eq!(indexed_paths(&idx), before);
}
