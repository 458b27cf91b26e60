//! `git rag hooks`: real git commands with the hooks installed keep the index
//! at HEAD through the background runner. Nothing here runs `git rag index`
//! itself: every update comes from a hook.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common::{rag_in, stderr, stdout, TestRepo};
use serde_json::Value;

/// PATH with the directory of the binary under test first, so the hooks find
/// this `git-rag`.
fn path_with_binary() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_git-rag"));
    let dir = bin.parent().expect("binary dir");
    let rest = std::env::var("PATH").unwrap_or_default();
    format!("{}:{rest}", dir.display())
}

fn git_cmd(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(args).current_dir(dir).env("PATH", path_with_binary()).env_remove("GIT_RAG_DIR").env_remove("QDRANT_URL").env_remove("GIT_RAG_FAILPOINT");
    crate::common::test_git_env(&mut cmd);
    cmd
}

/// Runs git (hooks included) and asserts success; returns stdout.
fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_cmd(dir, args).output().expect("git runs");
    assert!(out.status.success(), "git {args:?} failed\nstdout: {}\nstderr: {}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn write(dir: &Path, rel: &str, content: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, content).expect("write");
}

fn commit(dir: &Path, rel: &str, content: &str, msg: &str) -> String {
    write(dir, rel, content);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", msg]);
    git(dir, &["rev-parse", "HEAD"])
}

use crate::common::rag_ok_in as rag_ok;

fn status(dir: &Path) -> Value {
    serde_json::from_str(&rag_ok(dir, &["status", "--json"])).expect("status json")
}

/// `git rag status` (its arguments after `status`) on an index that may
/// have a damaged store: it exits 1 then, and says the rest all the same.
fn status_of_damaged(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["status"];
    all.extend_from_slice(args);
    let out = rag_in(dir, &all);
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    stdout(&out)
}

/// A repository whose index is keyword-only (no model needed), with one commit.
fn repo() -> TestRepo {
    let r = TestRepo::new();
    r.git(&["config", "rag.semantic", "false"]);
    r.write("app/util.py", "def helper(x):\n    return x + 1\n");
    r.commit("initial");
    r
}

fn install(dir: &Path) -> Value {
    serde_json::from_str(&rag_ok(dir, &["hooks", "install", "--json"])).expect("install json")
}

/// Polls `git rag status --json` until the index is at HEAD and no hook run
/// is in progress or requested. Panics after a minute (not a timing claim:
/// only a bound on a hung test).
fn wait_idle_at_head(dir: &Path) -> Value {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let head = git(dir, &["rev-parse", "HEAD"]);
        let st = status(dir);
        let hook = &st["hook"];
        let idle = st["indexing"] == false && hook["running"] == false && hook["pending"] == false;
        if idle && st["indexed_commit"] == head.as_str() {
            return st;
        }
        if Instant::now() > deadline {
            let log = hook["log"].as_str().and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default();
            panic!("the index did not reach HEAD {head}\nstatus: {st:#}\nhook.log:\n{log}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn indexed_paths(index_dir: &Path) -> Vec<String> {
    let v: Value = git_rag::dump_state(index_dir).expect("state");
    v["files"].as_object().expect("files").keys().cloned().collect()
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(p).expect("metadata").permissions().mode() & 0o7777
}

fn set_mode(p: &Path, m: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).expect("chmod");
}

/// Runs a hook script directly, as git would, with this PATH.
fn run_hook(dir: &Path, hook: &Path, args: &[&str], path: &str, stdin: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(hook)
        .args(args)
        .current_dir(dir)
        .env("PATH", path)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("hook runs");
    child.stdin.take().expect("stdin").write_all(stdin.as_bytes()).expect("write stdin");
    child.wait_with_output().expect("hook output")
}

#[test]
fn commit_checkout_merge_and_rebase_keep_the_index_at_head() {
    let r = repo();
    let dir = r.path();
    let installed = install(dir);
    let actions: Vec<&str> = installed["hooks"].as_array().expect("hooks").iter().map(|h| h["action"].as_str().unwrap_or("")).collect();
    assert_eq!(actions, ["installed"; 4]);
    let st = rag_ok(dir, &["hooks", "status"]);
    for h in ["post-commit", "post-merge", "post-checkout", "post-rewrite"] {
        assert!(st.lines().any(|l| l.starts_with(h) && l.contains("installed")), "{st}");
    }

    // git commit
    commit(dir, "app/models.py", "class User:\n    def name(self):\n        return 'u'\n", "models");
    let st = wait_idle_at_head(dir);
    assert!(st["hook"]["runs"].as_u64().unwrap_or(0) >= 1, "{st:#}");
    assert_eq!(st["hook"]["last_run"]["outcome"], "indexed");
    assert!(indexed_paths(&r.default_index_dir()).contains(&"app/models.py".to_string()));

    // git checkout -b, commits on the branch, git switch back (post-checkout)
    git(dir, &["checkout", "-q", "-b", "feature"]);
    wait_idle_at_head(dir);
    commit(dir, "app/feature.py", "def feature_flag():\n    return True\n", "feature 1");
    commit(dir, "app/feature.py", "def feature_flag():\n    return False\n", "feature 2");
    wait_idle_at_head(dir);
    git(dir, &["switch", "-q", "main"]);
    let st = wait_idle_at_head(dir);
    assert!(!indexed_paths(&r.default_index_dir()).contains(&"app/feature.py".to_string()), "{st:#}");

    // git merge (a real merge commit: post-merge)
    commit(dir, "app/main_only.py", "def on_main():\n    pass\n", "main work");
    git(dir, &["merge", "-q", "--no-edit", "feature"]);
    let st = wait_idle_at_head(dir);
    let paths = indexed_paths(&r.default_index_dir());
    assert!(paths.contains(&"app/feature.py".to_string()) && paths.contains(&"app/main_only.py".to_string()), "{paths:?} {st:#}");

    // git rebase of several commits (post-commit per pick, then post-rewrite)
    git(dir, &["checkout", "-q", "-b", "topic", "HEAD~1"]);
    for i in 0..4 {
        commit(dir, &format!("topic/t{i}.py"), &format!("def topic_{i}():\n    return {i}\n"), &format!("topic {i}"));
    }
    wait_idle_at_head(dir);
    git(dir, &["rebase", "-q", "main"]);
    let head = git(dir, &["rev-parse", "HEAD"]);
    let st = wait_idle_at_head(dir);
    assert_eq!(st["indexed_commit"], head.as_str());
    let paths = indexed_paths(&r.default_index_dir());
    assert!(paths.contains(&"topic/t3.py".to_string()) && paths.contains(&"app/feature.py".to_string()), "{paths:?}");
    assert!(st["hook"]["last_run"]["error"].is_null(), "{st:#}");

    let text = rag_ok(dir, &["status"]);
    assert!(text.contains("hook run: "), "{text}");
    let log = std::fs::read_to_string(r.default_index_dir().join("hook.log")).expect("hook.log");
    assert!(log.lines().any(|l| l.contains("(post-rewrite)") || l.contains("(post-commit)")), "{log}");
}

#[test]
fn an_existing_hook_is_chained_and_restored_byte_for_byte() {
    let r = repo();
    let dir = r.path();
    let hooks = dir.join(".git/hooks");
    let marker = dir.join("user-hook-ran");
    let rewritten = dir.join("user-hook-stdin");
    let post_commit = format!("#!/bin/sh\n# the user's own hook\necho \"post-commit $#\" >> '{}'\nexit 0\n", marker.display());
    let post_rewrite = format!("#!/bin/sh\necho \"post-rewrite $1\" >> '{}'\ncat >> '{}'\nexit 3\n", marker.display(), rewritten.display());
    std::fs::write(hooks.join("post-commit"), &post_commit).expect("write hook");
    set_mode(&hooks.join("post-commit"), 0o750);
    std::fs::write(hooks.join("post-rewrite"), &post_rewrite).expect("write hook");
    set_mode(&hooks.join("post-rewrite"), 0o700);

    let installed = install(dir);
    let actions: Vec<&str> = installed["hooks"].as_array().expect("hooks").iter().map(|h| h["action"].as_str().unwrap_or("")).collect();
    assert_eq!(actions, ["chained", "installed", "installed", "chained"]);
    // Twice: nothing chains itself.
    let again = install(dir);
    assert!(again["hooks"].as_array().expect("hooks").iter().all(|h| h["action"] == "unchanged"), "{again:#}");
    assert!(!hooks.join("post-commit.git-rag-orig.git-rag-orig").exists());
    let st: Value = serde_json::from_str(&rag_ok(dir, &["hooks", "status", "--json"])).expect("status json");
    let states: Vec<&str> = st["hooks"].as_array().expect("hooks").iter().map(|h| h["state"].as_str().unwrap_or("")).collect();
    assert_eq!(states, ["chained", "installed", "installed", "chained"]);

    // The user's hooks still run, with their arguments and stdin.
    commit(dir, "a.py", "def a():\n    pass\n", "a");
    git(dir, &["commit", "-q", "--amend", "-m", "a, amended"]);
    let head = git(dir, &["rev-parse", "HEAD"]);
    wait_idle_at_head(dir);
    let ran = std::fs::read_to_string(&marker).expect("the user's hook ran");
    assert_eq!(ran.lines().filter(|l| *l == "post-commit 0").count(), 2, "{ran}");
    assert!(ran.contains("post-rewrite amend"), "{ran}");
    let stdin = std::fs::read_to_string(&rewritten).expect("post-rewrite stdin");
    assert!(stdin.contains(&head), "post-rewrite got {stdin:?}, HEAD {head}");

    // Our hook exits with the chained hook's status, and passes stdin on.
    let out = run_hook(dir, &hooks.join("post-rewrite"), &["rebase"], &path_with_binary(), "x y\n");
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(std::fs::read_to_string(&rewritten).expect("stdin file").ends_with("x y\n"));
    wait_idle_at_head(dir);

    let removed: Value = serde_json::from_str(&rag_ok(dir, &["hooks", "uninstall", "--json"])).expect("uninstall json");
    let actions: Vec<&str> = removed["hooks"].as_array().expect("hooks").iter().map(|h| h["action"].as_str().unwrap_or("")).collect();
    assert_eq!(actions, ["restored", "removed", "removed", "restored"]);
    assert_eq!(std::fs::read(hooks.join("post-commit")).expect("restored"), post_commit.as_bytes());
    assert_eq!(mode(&hooks.join("post-commit")), 0o750);
    assert_eq!(std::fs::read(hooks.join("post-rewrite")).expect("restored"), post_rewrite.as_bytes());
    assert_eq!(mode(&hooks.join("post-rewrite")), 0o700);
    for h in ["post-merge", "post-checkout", "post-commit.git-rag-orig", "post-rewrite.git-rag-orig"] {
        assert!(!hooks.join(h).exists(), "{h} left behind");
    }
    let st: Value = serde_json::from_str(&rag_ok(dir, &["hooks", "status", "--json"])).expect("status json");
    let states: Vec<&str> = st["hooks"].as_array().expect("hooks").iter().map(|h| h["state"].as_str().unwrap_or("")).collect();
    assert_eq!(states, ["foreign", "missing", "missing", "foreign"]);
}

#[test]
fn core_hooks_path_is_respected_relative_to_the_worktree_root() {
    let r = repo();
    let dir = r.path();
    r.git(&["config", "core.hooksPath", ".githooks"]);
    std::fs::create_dir_all(dir.join("sub/dir")).expect("mkdir");
    // Installed from a subdirectory: still relative to the worktree root.
    let installed: Value = serde_json::from_str(&rag_ok(&dir.join("sub/dir"), &["hooks", "install", "--json"])).expect("json");
    let hooks_dir = PathBuf::from(installed["hooks_dir"].as_str().expect("hooks_dir"));
    assert_eq!(hooks_dir.canonicalize().expect("exists"), dir.join(".githooks").canonicalize().expect("exists"));
    assert!(dir.join(".githooks/post-commit").exists());
    assert!(!dir.join(".git/hooks/post-commit").exists());
    let text = rag_ok(dir, &["hooks", "status"]);
    assert!(text.lines().next().is_some_and(|l| l.contains(".githooks")), "{text}");

    commit(&dir.join("sub/dir"), "x.py", "def x():\n    return 1\n", "x");
    wait_idle_at_head(dir);
    assert!(indexed_paths(&r.default_index_dir()).contains(&"sub/dir/x.py".to_string()));
}

#[test]
fn a_linked_worktree_keeps_its_own_index_with_the_shared_hooks() {
    let r = repo();
    let dir = r.path();
    install(dir);
    commit(dir, "main.py", "def on_main():\n    pass\n", "main");
    wait_idle_at_head(dir);

    let wt_parent = tempfile::tempdir().expect("tempdir");
    let wt = wt_parent.path().join("wt");
    git(dir, &["worktree", "add", "-q", "-b", "side", wt.to_str().expect("utf-8 path")]);
    let st: Value = serde_json::from_str(&rag_ok(&wt, &["hooks", "status", "--json"])).expect("json");
    let hooks_dir = PathBuf::from(st["hooks_dir"].as_str().expect("hooks_dir"));
    assert_eq!(hooks_dir.canonicalize().expect("exists"), dir.join(".git/hooks").canonicalize().expect("exists"));
    assert!(st["hooks"].as_array().expect("hooks").iter().all(|h| h["state"] == "installed"), "{st:#}");
    // Installing from the worktree finds the same, already installed hooks.
    assert!(install(&wt)["hooks"].as_array().expect("hooks").iter().all(|h| h["action"] == "unchanged"));

    let side = commit(&wt, "side.py", "def on_side():\n    pass\n", "side");
    let st = wait_idle_at_head(&wt);
    assert_eq!(st["indexed_commit"], side.as_str());
    let wt_index = PathBuf::from(st["index_dir"].as_str().expect("index_dir"));
    assert!(
        wt_index.starts_with(dir.join(".git/worktrees").canonicalize().expect("exists")) || wt_index.starts_with(dir.join(".git/worktrees")),
        "{wt_index:?}"
    );
    assert!(indexed_paths(&wt_index).contains(&"side.py".to_string()));
    // The main worktree's index did not move.
    let main_st = wait_idle_at_head(dir);
    assert!(!indexed_paths(&r.default_index_dir()).contains(&"side.py".to_string()), "{main_st:#}");
    git(dir, &["worktree", "remove", "--force", wt.to_str().expect("utf-8 path")]);
}

#[test]
fn a_burst_of_commits_coalesces_into_fewer_runs_ending_at_the_last_head() {
    let r = repo();
    let dir = r.path();
    install(dir);
    let mut head = String::new();
    for i in 0..30 {
        head = commit(dir, &format!("burst/f{i}.py"), &format!("def f{i}():\n    return {i}\n"), &format!("burst {i}"));
    }
    let st = wait_idle_at_head(dir);
    assert_eq!(st["indexed_commit"], head.as_str());
    let runs = st["hook"]["runs"].as_u64().expect("runs");
    assert!((1..30).contains(&runs), "{runs} index runs for 30 commits\n{st:#}");
    let log = std::fs::read_to_string(r.default_index_dir().join("hook.log")).expect("hook.log");
    assert_eq!(log.lines().filter(|l| l.contains("] run ")).count() as u64, runs, "{log}");
    assert_eq!(indexed_paths(&r.default_index_dir()).iter().filter(|p| p.starts_with("burst/")).count(), 30);
}

#[test]
fn hooks_exit_zero_when_the_index_dir_is_unusable_or_git_rag_is_missing() {
    let r = repo();
    let dir = r.path();
    install(dir);
    let hook = dir.join(".git/hooks/post-commit");

    // git-rag not on PATH: nothing, silently.
    if !git_rag::hooks::on_path("git-rag") {
        let out = run_hook(dir, &hook, &[], "/usr/bin:/bin", "");
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        assert!(out.stdout.is_empty() && out.stderr.is_empty(), "{out:?}");
        assert!(!r.default_index_dir().exists(), "nothing was started");
    }

    // A checkout of paths (flag 0) asks for nothing.
    let out = run_hook(dir, &dir.join(".git/hooks/post-checkout"), &["a", "a", "0"], &path_with_binary(), "");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!r.default_index_dir().join("hook.requested").exists());

    // The index dir cannot be created: under a regular file.
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, "x").expect("write");
    let bad = blocker.join("rag");
    r.git(&["config", "rag.indexDir", bad.to_str().expect("utf-8 path")]);
    let out = git_cmd(dir, &["commit", "-q", "--allow-empty", "-m", "still commits"]).output().expect("git runs");
    assert!(out.status.success(), "{out:?}");
    let out = run_hook(dir, &hook, &[], &path_with_binary(), "");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(!bad.exists());
}

#[test]
fn status_shows_a_run_in_progress_and_the_last_failure() {
    let r = repo();
    let dir = r.path();
    install(dir);
    commit(dir, "a.py", "def a():\n    pass\n", "a");
    wait_idle_at_head(dir);

    // Hold the index lock: the hook's run waits for it, visibly.
    let lock = std::fs::OpenOptions::new().write(true).open(r.default_index_dir().join("index.lock")).expect("lock file");
    lock.lock().expect("lock");
    commit(dir, "b.py", "def b():\n    pass\n", "b");
    let deadline = Instant::now() + Duration::from_secs(60);
    let st = loop {
        let st = status(dir);
        if st["hook"]["running"] == true && st["hook"]["pending"] == false {
            break st;
        }
        assert!(Instant::now() < deadline, "no run in progress: {st:#}");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(st["hook"]["pid"].as_u64().is_some(), "{st:#}");
    assert_eq!(st["stale"], true);
    let text = rag_ok(dir, &["status"]);
    assert!(text.contains("hook:     updating the index in the background (pid "), "{text}");
    lock.unlock().expect("unlock");
    drop(lock);
    wait_idle_at_head(dir);

    // A run that fails is reported by status, text and JSON: the code graph's
    // directory replaced by a file cannot be written.
    let graph = r.default_index_dir().join("graph");
    std::fs::remove_dir_all(&graph).expect("rm graph");
    std::fs::write(&graph, "in the way").expect("write");
    commit(dir, "c.py", "def c():\n    pass\n", "c");
    let deadline = Instant::now() + Duration::from_secs(60);
    let st = loop {
        let st: Value = serde_json::from_str(&status_of_damaged(dir, &["--json"])).expect("status json");
        let hook = &st["hook"];
        if hook["running"] == false && hook["pending"] == false && hook["last_run"]["outcome"] == "failed" {
            break st;
        }
        assert!(Instant::now() < deadline, "the failed run was not reported: {st:#}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(st["hook"]["last_run"]["error"].as_str().is_some_and(|e| !e.is_empty()), "{st:#}");
    assert_eq!(st["hook"]["last_run"]["commit"], git(dir, &["rev-parse", "HEAD"]).as_str());
    assert_eq!(st["stale"], true);
    assert!(st["damaged"].as_array().is_some_and(|d| d.iter().any(|d| d["store"] == "graph")), "the graph in the way is listed: {st:#}");
    let text = status_of_damaged(dir, &[]);
    assert!(text.contains("hook run: failed at "), "{text}");
    let log = std::fs::read_to_string(r.default_index_dir().join("hook.log")).expect("hook.log");
    assert!(log.lines().any(|l| l.contains("failed:")), "{log}");
}
