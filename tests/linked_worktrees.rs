//! The worktrees of one repository share one vector cache (in git's common
//! directory): a vector is computed once, whichever worktree needs it first;
//! two worktrees index at the same moment without losing a vector or
//! meeting a lock; `gc` in one keeps what the others reference; an index
//! made before the cache was shared hands its vectors over on the next run;
//! a new worktree's first index starts from the nearest index of another,
//! and holds the repository's history as a fresh index would.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::*;

const FILES: &[(&str, &str)] = &[
    ("app/sessions.py", "class SessionStore:\n    \"\"\"Keeps user sessions between runs.\"\"\"\n\n    def save_to_disk(self, path):\n        \"\"\"Write every session's cookies to a JSON file.\"\"\"\n        return path\n"),
    ("app/retry.py", "def call_with_backoff(fn, attempts=5):\n    \"\"\"Call fn again after a failure, waiting twice as long each time.\"\"\"\n    return fn()\n"),
    ("web/escape.js", "/** Replace the characters that have a meaning in HTML. */\nfunction escapeHtml(text) {\n  return text.replace(/&/g, '&amp;');\n}\n"),
];

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    for (path, text) in FILES {
        repo.write(path, text);
    }
    repo.commit("initial");
    repo
}

fn index(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["index", "--json", "-q"];
    args.extend_from_slice(extra);
    json_ok(dir, &args, &[])
}

fn embedded(report: &Value) -> u64 {
    report["embedded"].as_u64().unwrap_or_else(|| panic!("no embedded count: {report}"))
}

/// `git worktree add -b <branch> <path>` of `repo`.
fn add_worktree(repo: &TestRepo, scratch: &Path, name: &str) -> PathBuf {
    let path = scratch.join(name);
    repo.git(&["worktree", "add", "-q", "-b", name, path.to_str().expect("utf-8")]);
    path
}

fn commit_file(dir: &Path, path: &str, text: &str) {
    let p = dir.join(path);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
    git_in(dir, &["add", path]);
    git_in(dir, &["commit", "-q", "-m", path]);
}

/// Answers without their scores' last digits (the same vectors give the same order).
fn answers(dir: &Path) -> Vec<(String, u64)> {
    let v = json_ok(dir, &["query", "write the sessions to a file", "--json", "-n", "5", "--at-commit"], &[]);
    v["results"].as_array().expect("results").iter().map(|h| (h["path"].as_str().unwrap_or("").to_string(), h["start_line"].as_u64().unwrap_or(0))).collect()
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn a_linked_worktree_embeds_only_what_its_repository_never_embedded() {
    require_model();
    let repo = repo();
    let main = index(repo.path(), &[]);
    assert!(embedded(&main) > 0, "{main}");
    assert!(repo.path().join(".git/rag-vectors").is_dir(), "the cache lives in git's common directory");

    // Same commit, another worktree: the main worktree's index is copied,
    // nothing is indexed or embedded.
    let scratch = tempfile::tempdir().expect("tempdir");
    let wt = add_worktree(&repo, scratch.path(), "feature");
    let first = index(&wt, &[]);
    assert_eq!(first["mode"], "up_to_date", "{first}");
    assert_eq!(json_ok(&wt, &["dump-vectors"], &[]), json_ok(repo.path(), &["dump-vectors"], &[]), "the same vectors, the same store");
    assert_eq!(answers(&wt), answers(repo.path()));

    // A branch that moves on embeds only its own new texts, once for the repository.
    let text = "def export_invoices_csv(invoices, path):\n    \"\"\"Write invoices to a CSV file.\"\"\"\n    return path\n";
    commit_file(&wt, "app/export.py", text);
    let moved = index(&wt, &[]);
    assert!(embedded(&moved) > 0 && embedded(&moved) <= 4, "one small new file: {moved}");
    repo.git(&["merge", "-q", "--ff-only", "feature"]);
    let merged = index(repo.path(), &[]);
    assert_eq!(embedded(&merged), 0, "the worktree embedded these already: {merged}");
    // A rebuild from nothing embeds nothing either.
    assert_eq!(embedded(&index(&wt, &["--full"])), 0);
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn two_worktrees_index_at_the_same_moment_and_lose_nothing() {
    require_model();
    let repo = repo();
    let scratch = tempfile::tempdir().expect("tempdir");
    let a = add_worktree(&repo, scratch.path(), "a");
    let b = add_worktree(&repo, scratch.path(), "b");
    commit_file(&a, "a/ledger.py", "def close_the_ledger(month):\n    \"\"\"Close the books for a month.\"\"\"\n    return month\n");
    commit_file(&b, "b/tides.py", "def tide_table(port):\n    \"\"\"High and low water times for a port.\"\"\"\n    return port\n");
    let runs: Vec<std::process::Output> = std::thread::scope(|s| {
        let handles: Vec<_> = [&a, &b].into_iter().map(|dir| s.spawn(move || rag_in(dir, &["index", "--json", "-q"]))).collect();
        handles.into_iter().map(|h| h.join().expect("thread")).collect()
    });
    for out in &runs {
        assert!(out.status.success(), "no lock error: {}", stderr(out));
    }
    // Everything both embedded is in the one cache: the main worktree, with
    // both branches merged, embeds nothing.
    repo.git(&["merge", "-q", "--no-edit", "a", "b"]);
    let merged = index(repo.path(), &[]);
    assert_eq!(embedded(&merged), 0, "{merged}");
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn gc_in_one_worktree_keeps_what_another_references() {
    require_model();
    let repo = repo();
    index(repo.path(), &[]);
    let scratch = tempfile::tempdir().expect("tempdir");
    let wt = add_worktree(&repo, scratch.path(), "feature");
    commit_file(&wt, "app/only_here.py", "def only_on_the_branch():\n    \"\"\"Exists on the feature branch only.\"\"\"\n    return 1\n");
    index(&wt, &[]);
    // Two edits in the main worktree leave the middle version unreferenced
    // (the first is still the branch's).
    for (round, doc) in ["Call fn once more after a failure.", "Call fn twice more after a failure."].iter().enumerate() {
        repo.write("app/retry.py", format!("def call_with_backoff(fn):\n    \"\"\"{doc}\"\"\"\n    return fn()\n"));
        repo.commit(&format!("edit {round}"));
        index(repo.path(), &[]);
    }

    // Another model's cache goes; whatever else is in the folder stays.
    let root = repo.path().join(".git/rag-vectors");
    let other = git_rag::stores::vector::cache::VectorCache::new(&root, "an-old-model", 4);
    other.add([(7, vec![1.0, 0.0, 0.0, 0.0])]).expect("add");
    other.flush().expect("flush");
    std::fs::create_dir_all(root.join("notes_1")).expect("mkdir");
    std::fs::write(root.join("notes_1/readme.txt"), "not a cache").expect("write");

    let done = json_ok(repo.path(), &["gc", "--yes", "--json"], &[]);
    assert!(!other.dir().exists(), "{done}");
    assert!(root.join("notes_1/readme.txt").exists(), "{done}");
    assert_eq!(done["applied"], true, "{done}");
    assert!(done["unreferenced"].as_u64().unwrap_or(0) >= 1, "the middle retry.py: {done}");
    assert_eq!(done["other_indexes"].as_array().map(Vec::len), Some(1), "the worktree's index was counted: {done}");
    assert_eq!(embedded(&index(&wt, &["--full"])), 0, "the branch's vectors were kept");
    assert_eq!(json_ok(repo.path(), &["gc", "--json"], &[])["unreferenced"], 0);

    // A removed worktree is forgotten; what only it used goes at the next gc.
    git_in(repo.path(), &["worktree", "remove", "--force", wt.to_str().expect("utf-8")]);
    let after = json_ok(repo.path(), &["gc", "--yes", "--json"], &[]);
    assert!(after["unreferenced"].as_u64().unwrap_or(0) >= 1, "{after}");
    assert_eq!(after["other_indexes"].as_array().map(Vec::len), Some(0), "{after}");
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn an_index_from_before_the_shared_cache_hands_its_vectors_over() {
    require_model();
    use git_rag::stores::vector::cache::VectorCache;
    use git_rag::stores::vector::edge::Shard;
    use git_rag::stores::vector::{Collection, Point};
    let repo = repo();
    let scratch = tempfile::tempdir().expect("tempdir");
    let dir = scratch.path().join("idx");
    let d = dir.to_str().expect("utf-8");
    let first = index(repo.path(), &["--index-dir", d]);
    assert!(embedded(&first) > 0);
    // Put the vectors where an older git-rag kept them: a cache shard beside the collections.
    let state: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(".rag_index_state.json")).expect("state")).expect("json");
    let (model, dims) = (state["semantic"]["model"].as_str().expect("model").to_string(), state["semantic"]["dims"].as_u64().expect("dims") as usize);
    let cache = VectorCache::new(&dir.join("vectors"), &model, dims);
    let vectors = cache.all().expect("cache");
    assert!(!vectors.is_empty());
    let legacy = dir.join("qdrant").join(format!("vector_cache_{}_{dims}", git_rag::stores::vector::sanitize(&model)));
    {
        let shard = Shard::open_or_create(&legacy, dims, Collection::VectorCache).expect("shard");
        shard.upsert(vectors.iter().map(|(id, v)| Point { id: *id, vector: v.clone(), payload: Default::default(), text: None }).collect()).expect("upsert");
        shard.flush().expect("flush");
    }
    std::fs::remove_dir_all(dir.join("vectors")).expect("rm");

    let again = index(repo.path(), &["--index-dir", d, "--full"]);
    assert_eq!(embedded(&again), 0, "the old cache's vectors were reused: {again}");
    assert!(!legacy.exists(), "and the old cache removed");
    assert_eq!(VectorCache::new(&dir.join("vectors"), &model, dims).all().expect("cache"), vectors);
}

#[test]
fn a_new_worktree_starts_from_the_nearest_index_and_equals_a_full_one() {
    let repo = repo();
    index(repo.path(), &["--no-semantic"]);
    let scratch = tempfile::tempdir().expect("tempdir");
    let wt = add_worktree(&repo, scratch.path(), "feature");
    commit_file(&wt, "app/export.py", "from app.sessions import SessionStore\n\n\ndef export_sessions(path):\n    return SessionStore().save_to_disk(path)\n");
    let first = index(&wt, &["--no-semantic"]);
    assert_eq!((first["mode"].as_str(), first["full"].as_bool(), first["files_indexed"].as_u64()), (Some("indexed"), Some(false), Some(1)), "{first}");
    let from = first["seeded_from"].as_str().unwrap_or_else(|| panic!("not seeded: {first}"));
    assert!(Path::new(from).ends_with(".git/rag"), "from the main worktree's index: {first}");

    // What a full rebuild of the same commit makes.
    let full = scratch.path().join("full-index");
    let d = full.to_str().expect("utf-8");
    json_ok(&wt, &["index", "--json", "-q", "--no-semantic", "--full", "--index-dir", d], &[]);
    let seeded = wt_git_dir(&wt).join("rag");
    for (what, a, b) in [
        ("state", git_rag::dump_state(&seeded).expect("state")["files"].to_string(), git_rag::dump_state(&full).expect("state")["files"].to_string()),
        ("graph", stdout(&rag_in(&wt, &["dump-graph"])), stdout(&rag_in(&wt, &["dump-graph", "--index-dir", d]))),
    ] {
        assert_eq!(a, b, "{what} of the seeded index differs from a full one");
    }
    for q in ["who calls save_to_disk", "export sessions to a file", "SessionStore"] {
        let run = |extra: &[&str]| {
            let mut v = json_ok(&wt, &[&["query", q, "--json", "-n", "10", "--at-commit"][..], extra].concat(), &[]);
            v.as_object_mut().map(|o| (o.remove("took_ms"), o.remove("timings")));
            v
        };
        assert_eq!(run(&[]), run(&["--index-dir", d]), "{q}");
    }
    assert!(stdout(&rag_in(&wt, &["query", "who calls save_to_disk", "--mode", "graph"])).contains("export_sessions"));
    // The history is the repository's: the worktree's holds its whole chain,
    // the main worktree's commits included, as a fresh read of it does.
    let history = |extra: &[&str]| -> Vec<String> {
        let v = json_ok(&wt, &[&["history", "--json", "-n", "10"][..], extra].concat(), &[]);
        v["commits"].as_array().expect("commits").iter().map(|c| c["subject"].as_str().unwrap_or("").to_string()).collect()
    };
    assert_eq!(history(&[]), vec!["app/export.py".to_string(), "initial".to_string()]);
    assert_eq!(history(&[]), history(&["--index-dir", d]));

    // The main worktree's index was not touched, and a worktree with an
    // interrupted run's journal is no seed.
    let main_state = git_rag::dump_state(&repo.path().join(".git/rag")).expect("state");
    assert!(main_state["files"].get("app/export.py").is_none());
    std::fs::write(seeded.join(".rag_index_pending.json"), br#"{"target":"","full":true}"#).expect("journal");
    std::fs::write(repo.path().join(".git/rag/.rag_index_pending.json"), br#"{"target":"","full":true}"#).expect("journal");
    let other = add_worktree(&repo, scratch.path(), "other");
    let cold = index(&other, &["--no-semantic"]);
    assert!(cold["seeded_from"].is_null() && cold["full"] == true, "{cold}");
}

/// A linked worktree's own git directory (`<common>/worktrees/<name>`).
fn wt_git_dir(wt: &Path) -> PathBuf {
    let dir = git_in(wt, &["rev-parse", "--absolute-git-dir"]);
    PathBuf::from(dir.trim())
}
