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

/// Runs `git-rag` in `dir`, asserts success, returns its stdout.
pub fn rag_ok_in(dir: &Path, args: &[&str]) -> String {
    let out = rag_in(dir, args);
    assert!(out.status.success(), "git-rag {args:?} failed\nstdout: {}\nstderr: {}", stdout(&out), stderr(&out));
    stdout(&out)
}

/// Lines of `data` as an editor counts them (a last line without a newline counts; none for empty).
pub fn line_count(data: &[u8]) -> usize {
    let newlines = data.iter().filter(|&&b| b == b'\n').count();
    newlines + usize::from(!data.is_empty() && !data.ends_with(b"\n"))
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).to_string()
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).to_string()
}

/// Whether the embedding model is installed (a test that runs either way).
pub fn model_ready() -> bool {
    git_rag::semantic::model::installed()
}

/// For a test that needs the model: such tests are `#[ignore = "needs …"]`,
/// so a plain `cargo test` counts them as ignored rather than passing them
/// unrun; run (`scripts/test.sh`, `-- --include-ignored`) without it, they fail.
pub fn require_model() {
    assert!(git_rag::semantic::model::installed(), "this test needs the embedding model: run `git rag model install` (scripts/test.sh does)");
}

/// For a test that needs the eval kit's corpora (`GIT_RAG_EVAL_CORPORA`,
/// which scripts/test.sh builds): ignored unless asked for, then required.
pub fn require_corpora() -> std::ffi::OsString {
    std::env::var_os("GIT_RAG_EVAL_CORPORA").expect("this test needs GIT_RAG_EVAL_CORPORA (scripts/test.sh builds the pydantic-chain corpus and sets it)")
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

/// The Qdrant server of the server tests (`QDRANT_URL`, gRPC; scripts/test.sh
/// starts one). Those tests are `#[ignore = "needs a Qdrant server …"]`: a
/// plain `cargo test` counts them as ignored; run, they fail without it.
/// They also need the model.
fn require_qdrant_url() -> String {
    let url = std::env::var("QDRANT_URL").ok().filter(|u| !u.is_empty());
    let url = url.expect("this test needs a Qdrant server: set QDRANT_URL (scripts/test.sh starts ../shared/qdrant/qdrant)");
    require_model();
    url
}

/// A Qdrant server binary a test may start and kill itself (`GIT_RAG_TEST_QDRANT_BIN`).
pub fn require_qdrant_binary() -> PathBuf {
    let binary = std::env::var_os("GIT_RAG_TEST_QDRANT_BIN").map(PathBuf::from).filter(|p| p.is_file());
    let binary = binary.expect("this test needs GIT_RAG_TEST_QDRANT_BIN naming a Qdrant server binary (scripts/test.sh sets it)");
    require_model();
    binary
}

/// Tests that write to the shared server hold this for reading; `git rag gc`,
/// which reads the whole server and deletes what no index references, holds
/// it for writing, so that no other test writes meanwhile.
static SHARED_SERVER: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// The shared server, held for a test that writes to it (see [`SHARED_SERVER`]).
pub fn require_server() -> (String, std::sync::RwLockReadGuard<'static, ()>) {
    (require_qdrant_url(), SHARED_SERVER.read().unwrap_or_else(|e| e.into_inner()))
}

/// The shared server, with no other test using it until the guard drops.
pub fn require_server_alone() -> (String, std::sync::RwLockWriteGuard<'static, ()>) {
    (require_qdrant_url(), SHARED_SERVER.write().unwrap_or_else(|e| e.into_inner()))
}
