//! Helpers for integration tests: real git repositories in temp dirs, and the
//! real `git-rag` binary run against them.
#![allow(dead_code)]

pub mod http;
pub mod mcp;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

pub struct TestRepo {
    pub dir: tempfile::TempDir,
}

/// The repository's root: the tests are the `frontend` crate's, one folder
/// below it, and read its scripts, fixtures and documents.
pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// A fixed identity and date and no user or system config, for any command
/// that runs git (commits are then the same on every machine).
pub fn test_git_env(cmd: &mut Command) -> &mut Command {
    cmd.env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Test")
        .env("GIT_AUTHOR_EMAIL", "test@example.invalid")
        .env("GIT_COMMITTER_NAME", "Test")
        .env("GIT_COMMITTER_EMAIL", "test@example.invalid")
        .env("GIT_AUTHOR_DATE", "2001-01-01T00:00:00Z")
        .env("GIT_COMMITTER_DATE", "2001-01-01T00:00:00Z")
}

/// Runs git with a fixed identity and no user or system config.
pub fn git_in(dir: &Path, args: &[&str]) -> String {
    let out = test_git_env(Command::new("git").args(args).current_dir(dir)).output().expect("git runs");
    assert!(out.status.success(), "git {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

impl TestRepo {
    pub fn new() -> TestRepo {
        let dir = tempfile::tempdir().expect("tempdir");
        git_in(dir.path(), &["init", "-q", "-b", "main"]);
        TestRepo { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn git(&self, args: &[&str]) -> String {
        git_in(self.path(), args)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) {
        let p = self.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, content).expect("write");
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path().join(rel)).expect("remove");
    }

    /// Stages everything and commits; returns the commit id.
    pub fn commit(&self, msg: &str) -> String {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", msg]);
        self.git(&["rev-parse", "HEAD"])
    }

    pub fn default_index_dir(&self) -> PathBuf {
        self.path().join(".git").join("rag")
    }

    /// Runs `git-rag` in the repository.
    pub fn rag(&self, args: &[&str]) -> Output {
        rag_in(self.path(), args)
    }

    /// Runs `git-rag` and asserts success; returns stdout.
    pub fn rag_ok(&self, args: &[&str]) -> String {
        let out = self.rag(args);
        assert!(
            out.status.success(),
            "git-rag {args:?} failed\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    }

    pub fn status(&self, extra: &[&str]) -> Value {
        let mut args = vec!["status", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&self.rag_ok(&args)).expect("status json")
    }

    /// Query results as JSON, without the timing.
    pub fn query(&self, text: &str, extra: &[&str]) -> Value {
        let mut args = vec!["query", text, "--json"];
        args.extend_from_slice(extra);
        let mut v: Value = serde_json::from_str(&self.rag_ok(&args)).expect("query json");
        if let Some(o) = v.as_object_mut() {
            o.remove("took_ms");
            o.remove("timings");
        }
        v
    }

    /// `git rag impact --json` with `args`, without its timing and target
    /// description (what two forms of one change share).
    pub fn impact(&self, args: &[&str]) -> Value {
        let mut all = vec!["impact", "--json"];
        all.extend_from_slice(args);
        let mut v: Value = serde_json::from_str(&self.rag_ok(&all)).expect("impact json");
        if let Some(o) = v.as_object_mut() {
            o.remove("took_ms");
            o.remove("target");
        }
        v
    }

    /// (path, start_line, end_line, symbol) of each result.
    pub fn hits(&self, text: &str, extra: &[&str]) -> Vec<(String, u64, u64, Option<String>)> {
        let v = self.query(text, extra);
        v["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| {
                (
                    r["path"].as_str().unwrap_or_default().to_string(),
                    r["start_line"].as_u64().unwrap_or(0),
                    r["end_line"].as_u64().unwrap_or(0),
                    r["symbol"].as_str().map(str::to_string),
                )
            })
            .collect()
    }

    pub fn paths_of(&self, text: &str, extra: &[&str]) -> Vec<String> {
        let mut p: Vec<String> = self.hits(text, extra).into_iter().map(|h| h.0).collect();
        p.dedup();
        p
    }

    /// The per-file part of the state file.
    pub fn state_files(&self, index_dir: &Path) -> Value {
        git_rag::dump_state(index_dir).expect("state")["files"].clone()
    }
}

pub fn rag_in(dir: &Path, args: &[&str]) -> Output {
    rag_env(dir, args, &[])
}

/// Runs `git-rag` with extra environment variables. `QDRANT_URL` is removed
/// unless given: tests use the embedded store unless they ask for a server.
pub fn rag_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rag"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("GIT_RAG_DIR")
        .env_remove("QDRANT_URL")
        .env_remove("GIT_RAG_FAILPOINT")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("git-rag runs")
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Whether the embedding model is installed. Under GIT_RAG_REQUIRE_MODEL (CI)
/// a missing model fails the test instead of skipping it.
pub fn model_ready() -> bool {
    if git_rag::semantic::model::installed() {
        return true;
    }
    assert!(std::env::var_os("GIT_RAG_REQUIRE_MODEL").is_none(), "GIT_RAG_REQUIRE_MODEL is set but the model is not installed");
    eprintln!("skipped: no embedding model installed (run `git rag model install`)");
    false
}

/// Runs `git-rag` with `env`, asserts success and parses its stdout as JSON.
pub fn json_ok(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Value {
    let out = rag_env(dir, args, env);
    assert!(out.status.success(), "git rag {args:?} failed: {}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| panic!("git rag {args:?}: {e}: {}", stdout(&out)))
}

/// `git clone -q <extra> file://<origin> <into>` without user or system config.
pub fn clone(origin: &Path, into: &Path, extra: &[&str]) -> PathBuf {
    let url = format!("file://{}", origin.display());
    let out = test_git_env(Command::new("git").args(["clone", "-q"]).args(extra).arg(&url).arg(into)).output().expect("git clone");
    assert!(out.status.success(), "clone: {}", String::from_utf8_lossy(&out.stderr));
    into.to_path_buf()
}

/// A name no other run of the tests uses (collection prefixes on a shared server).
pub fn unique(label: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() % 1_000_000_000);
    format!("git_rag_{label}_{}_{nanos}", std::process::id())
}

/// Whether this is a CI run (`CI=true`), where a test that would skip for
/// want of a server must fail instead: a skipped server test checks nothing.
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn skip_or_fail(what: &str) {
    assert!(!in_ci(), "CI=true but {what}: the server tests must run in CI (scripts/test.sh starts ../shared/qdrant/qdrant)");
    eprintln!("skipped: {what}");
}

/// The Qdrant server of the server tests (`QDRANT_URL`, gRPC). Without one
/// they skip with a message, or fail under `CI=true`. They also need the model.
pub fn qdrant_url() -> Option<String> {
    match std::env::var("QDRANT_URL") {
        Ok(u) if !u.is_empty() => {
            assert!(git_rag::semantic::model::installed(), "the server tests need the embedding model: run `git rag model install`");
            Some(u)
        }
        _ => {
            skip_or_fail("no QDRANT_URL");
            None
        }
    }
}

/// A Qdrant server binary the tests may start and kill themselves
/// (`GIT_RAG_TEST_QDRANT_BIN`); skipped without, or failed under `CI=true`.
pub fn qdrant_binary() -> Option<PathBuf> {
    match std::env::var_os("GIT_RAG_TEST_QDRANT_BIN") {
        Some(p) if Path::new(&p).is_file() => {
            assert!(git_rag::semantic::model::installed(), "the server tests need the embedding model: run `git rag model install`");
            Some(PathBuf::from(p))
        }
        _ => {
            skip_or_fail("GIT_RAG_TEST_QDRANT_BIN does not name a Qdrant server binary");
            None
        }
    }
}

/// Tests that write to the shared server hold this for reading; `git rag gc`,
/// which reads the whole server and deletes what no index references, holds
/// it for writing, so that no other test writes meanwhile.
static SHARED_SERVER: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// The shared server, held for a test that writes to it (see [`SHARED_SERVER`]).
pub fn shared_server() -> Option<(String, std::sync::RwLockReadGuard<'static, ()>)> {
    let url = qdrant_url()?;
    Some((url, SHARED_SERVER.read().unwrap_or_else(|e| e.into_inner())))
}

/// The shared server, with no other test using it until the guard drops.
pub fn shared_server_alone() -> Option<(String, std::sync::RwLockWriteGuard<'static, ()>)> {
    let url = qdrant_url()?;
    Some((url, SHARED_SERVER.write().unwrap_or_else(|e| e.into_inner())))
}
