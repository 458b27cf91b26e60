//! kill -9 at random moments: an index run is killed with SIGKILL after a
//! random delay, run again, and compared with a fresh full index of the same
//! commit (state, code graph, patterns, answers, and with the semantic layer
//! every vector point). Zero differences allowed.
//!
//! The corpus is the real pydantic release chain of the eval kit when
//! `GIT_RAG_EVAL_CORPORA` is set (scripts/test.sh sets it): full runs of a
//! release and incremental runs from one release to the next, killed anywhere
//! in parsing, the graph, the keyword commit or the state write. Otherwise a
//! generated history stands in (and says so). A few more trials with the
//! semantic layer on a small repository cover the vector store.
//! `GIT_RAG_KILL_SEED` replays a run; `GIT_RAG_KILL_TRIALS` sets the count.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{git_in, model_ready, rag_in, stderr, stdout, TestRepo};
use serde_json::Value;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn seed() -> u64 {
    std::env::var("GIT_RAG_KILL_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(7, |d| d.as_nanos() as u64)
    })
}

fn index_args<'a>(rev: &'a str, dir: &'a str, semantic: bool) -> Vec<&'a str> {
    let mut args = vec!["index", "-q", "--rev", rev, "--index-dir", dir, "--wait", "60"];
    if !semantic {
        args.push("--no-semantic");
    }
    args
}

fn rag_ok(repo: &Path, args: &[&str]) -> String {
    let out = rag_in(repo, args);
    assert!(out.status.success(), "git-rag {args:?}: {}", stderr(&out));
    stdout(&out)
}

/// Starts an index run and kills it with SIGKILL after `delay`; returns
/// whether it was still running when killed.
fn run_and_kill(repo: &Path, args: &[&str], delay: Duration) -> bool {
    let mut child = Command::new(env!("CARGO_BIN_EXE_git-rag"))
        .args(args)
        .current_dir(repo)
        .env_remove("GIT_RAG_DIR")
        .env_remove("QDRANT_URL")
        .env_remove("GIT_RAG_FAILPOINT")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("git-rag starts");
    let deadline = Instant::now() + delay;
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill(); // SIGKILL
    let _ = child.wait();
    true
}

const QUERIES: &[&str] = &["validate", "BaseModel", "model_dump_json", "parse config file", "what calls validate", "handler"];

/// Everything that must be equal between two indexes of one commit.
fn snapshot(repo: &Path, dir: &Path, semantic: bool) -> Vec<(String, String)> {
    let d = dir.to_str().expect("utf-8");
    let state: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(".rag_index_state.json")).expect("state")).expect("json");
    let mut out = vec![
        ("state".to_string(), format!("{} {}", state["last_commit"], state["files"])),
        ("graph".to_string(), rag_ok(repo, &["dump-graph", "--index-dir", d])),
        ("patterns".to_string(), rag_ok(repo, &["patterns", "--json", "--index-dir", d])),
    ];
    assert!(!dir.join(".rag_index_pending.json").exists(), "a finished run leaves no journal");
    if semantic {
        out.push(("vectors".to_string(), rag_ok(repo, &["dump-vectors", "--index-dir", d])));
    }
    let modes: &[&str] = if semantic { &["keyword", "symbol", "graph", "hybrid"] } else { &["keyword", "symbol", "graph"] };
    for q in QUERIES {
        for m in modes {
            let text = rag_ok(repo, &["query", q, "--json", "-n", "10", "--mode", m, "--index-dir", d]);
            let mut v: Value = serde_json::from_str(&text).expect("json");
            if let Some(o) = v.as_object_mut() {
                o.remove("took_ms");
            }
            out.push((format!("query {m} {q}"), v.to_string()));
        }
    }
    out
}

fn assert_same(a: &[(String, String)], b: &[(String, String)], label: &str) {
    assert_eq!(a.len(), b.len(), "{label}");
    for ((what, x), (_, y)) in a.iter().zip(b) {
        assert!(x == y, "{label}: {what} differs from a fresh full index");
    }
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let ok = Command::new("cp").arg("-a").arg(from).arg(to).status().expect("cp");
    assert!(ok.success());
}

/// The revisions to index, oldest first, and what the corpus is.
fn corpus(scratch: &Path) -> (PathBuf, Vec<String>, String) {
    if let Some(root) = std::env::var_os("GIT_RAG_EVAL_CORPORA") {
        let chain = Path::new(&root).join("pydantic-chain");
        if chain.join(".git").exists() {
            let tags = git_in(&chain, &["tag"]);
            let mut tags: Vec<String> = tags.lines().map(str::to_string).collect();
            tags.sort_by_key(|t| git_in(&chain, &["log", "-1", "--format=%ct", t]).parse::<u64>().unwrap_or(0));
            return (chain, tags, "the pydantic release chain".into());
        }
    }
    // A generated history: adds, edits, a rename and a delete.
    let dir = scratch.join("generated");
    std::fs::create_dir_all(&dir).expect("mkdir");
    git_in(&dir, &["init", "-q", "-b", "main"]);
    let mut revs = Vec::new();
    for step in 0..4 {
        for f in 0..40 {
            let body: String = (0..20).map(|i| format!("def f_{step}_{f}_{i}(x):\n    return validate(x) + {i}\n\n")).collect();
            std::fs::write(dir.join(format!("m{f}.py")), format!("from .base import validate\n\n{body}")).expect("write");
        }
        std::fs::write(dir.join("base.py"), format!("def validate(x):\n    return x * {step}\n")).expect("write");
        if step == 2 {
            git_in(&dir, &["add", "-A"]);
            git_in(&dir, &["mv", "m1.py", "renamed.py"]);
            std::fs::remove_file(dir.join("m2.py")).expect("rm");
        }
        git_in(&dir, &["add", "-A"]);
        git_in(&dir, &["commit", "-q", "-m", &format!("step {step}")]);
        revs.push(git_in(&dir, &["rev-parse", "HEAD"]));
    }
    (dir, revs, "a generated history (no GIT_RAG_EVAL_CORPORA)".into())
}

#[test]
fn kill_9_at_random_moments_then_rerun_equals_a_fresh_full_index() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let (repo, revs, what) = corpus(scratch.path());
    let trials: u64 = std::env::var("GIT_RAG_KILL_TRIALS").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    let seed = seed();
    eprintln!("kill trials on {what}: {trials} trials, GIT_RAG_KILL_SEED={seed}");
    let mut rng = Rng(seed);

    // Fresh full indexes of every revision, and how long each kind of run
    // takes (the kill delays are drawn within that).
    let mut fresh = Vec::new();
    let mut full_ms = Vec::new();
    let mut inc_ms = vec![0u64];
    for (i, rev) in revs.iter().enumerate() {
        let dir = scratch.path().join(format!("fresh{i}"));
        let t = Instant::now();
        rag_ok(&repo, &index_args(rev, dir.to_str().expect("utf-8"), false));
        full_ms.push(t.elapsed().as_millis() as u64);
        fresh.push(snapshot(&repo, &dir, false));
        if i > 0 {
            let probe = scratch.path().join("probe");
            copy_dir(&scratch.path().join(format!("fresh{}", i - 1)), &probe);
            let t = Instant::now();
            rag_ok(&repo, &index_args(rev, probe.to_str().expect("utf-8"), false));
            inc_ms.push(t.elapsed().as_millis() as u64);
        }
    }
    let mut killed = 0;
    for trial in 0..trials {
        let i = rng.below(revs.len() as u64) as usize;
        let dir = scratch.path().join("trial");
        // Half the trials kill a full run, half an incremental run from the previous revision.
        let incremental = i > 0 && rng.below(2) == 0;
        if incremental {
            copy_dir(&scratch.path().join(format!("fresh{}", i - 1)), &dir);
        } else {
            let _ = std::fs::remove_dir_all(&dir);
        }
        let run_ms = if incremental { inc_ms[i] } else { full_ms[i] };
        let delay = Duration::from_millis(rng.below(run_ms + 1));
        let d = dir.to_str().expect("utf-8");
        let was_running = run_and_kill(&repo, &index_args(&revs[i], d, false), delay);
        killed += usize::from(was_running);
        // A second kill sometimes lands in the recovery run itself.
        if rng.below(4) == 0 {
            run_and_kill(&repo, &index_args(&revs[i], d, false), Duration::from_millis(rng.below(run_ms + 1)));
        }
        rag_ok(&repo, &index_args(&revs[i], d, false));
        let label = format!("trial {trial} (seed {seed}): {} run to revision #{i} killed after {delay:?}", if incremental { "incremental" } else { "full" });
        assert_same(&snapshot(&repo, &dir, false), &fresh[i], &label);
    }
    eprintln!("{trials} trials, {killed} killed mid-run, 0 differences");
    // Delays are drawn within a run's measured length; on a loaded machine
    // runs take longer, so most kills land mid-run. A handful is the floor.
    assert!(killed * 4 >= trials as usize, "too few kills landed while the run worked ({killed} of {trials})");
}

/// The same with the semantic layer: the embedded vector store, the vector
/// cache and the PATTERNS collection survive a kill at any point.
#[test]
fn kill_9_with_the_semantic_layer() {
    if !model_ready() {
        return;
    }
    let repo = TestRepo::new();
    for f in 0..12 {
        repo.write(
            &format!("pkg/m{f}.py"),
            format!("import logging\n\nlog = logging.getLogger(__name__)\n\n\ndef load_{f}(path):\n    \"\"\"Read record {f} from disk.\"\"\"\n    try:\n        return open(path).read()\n    except OSError:\n        log.error('cannot read %s', path)\n        raise\n"),
        );
    }
    let first = repo.commit("one");
    for f in 0..4 {
        repo.write(&format!("pkg/m{f}.py"), format!("def load_{f}(path, retries=3):\n    \"\"\"Read record {f}, retrying.\"\"\"\n    return open(path).read()\n"));
    }
    repo.write("web/app.js", "function startServer(port) {\n  console.log('listening on ' + port);\n}\nmodule.exports = { startServer };\n");
    let second = repo.commit("two");
    let scratch = tempfile::tempdir().expect("tempdir");
    let revs = [first, second];
    let mut fresh = Vec::new();
    let mut full_ms = 0u64;
    for (i, rev) in revs.iter().enumerate() {
        let dir = scratch.path().join(format!("fresh{i}"));
        let t = Instant::now();
        rag_ok(repo.path(), &index_args(rev, dir.to_str().expect("utf-8"), true));
        full_ms = full_ms.max(t.elapsed().as_millis() as u64);
        fresh.push(snapshot(repo.path(), &dir, true));
    }
    let seed = seed();
    let mut rng = Rng(seed ^ 0x5eed);
    let trials = 4;
    eprintln!("semantic kill trials: {trials}, GIT_RAG_KILL_SEED={seed}");
    for trial in 0..trials {
        let i = trial % 2;
        let dir = scratch.path().join("trial");
        if i == 1 {
            copy_dir(&scratch.path().join("fresh0"), &dir);
        } else {
            let _ = std::fs::remove_dir_all(&dir);
        }
        let delay = Duration::from_millis(rng.below(full_ms + 1));
        let d = dir.to_str().expect("utf-8");
        run_and_kill(repo.path(), &index_args(&revs[i], d, true), delay);
        rag_ok(repo.path(), &index_args(&revs[i], d, true));
        assert_same(&snapshot(repo.path(), &dir, true), &fresh[i], &format!("semantic trial {trial} (seed {seed}), killed after {delay:?}"));
    }
}

/// A disk that fills up (writes fail with EFBIG under `ulimit -f`, the way
/// ENOSPC would): the run fails with a clear error, the previous index still
/// answers, and the next run completes and equals a fresh index.
#[test]
fn a_failing_disk_leaves_the_previous_index_answering() {
    let repo = TestRepo::new();
    repo.write("pkg/auth.py", "def check_token(token):\n    \"\"\"Reject empty tokens.\"\"\"\n    return bool(token)\n");
    repo.commit("one");
    let scratch = tempfile::tempdir().expect("tempdir");
    let dir = scratch.path().join("idx");
    let d = dir.to_str().expect("utf-8");
    rag_ok(repo.path(), &["index", "-q", "--no-semantic", "--index-dir", d]);
    let before = rag_ok(repo.path(), &["query", "check_token", "--mode", "symbol", "--json", "--index-dir", d]);
    // A big change, so every store has more to write than the limit allows.
    for f in 0..60 {
        let body: String = (0..30).map(|i| format!("def handler_{f}_{i}(request):\n    return check_token(request.token) and {i}\n\n")).collect();
        repo.write(&format!("web/h{f}.py"), body);
    }
    let head = repo.commit("two");
    let script = format!(
        "trap '' XFSZ; ulimit -f 64; exec '{}' index -q --no-semantic --index-dir '{}'",
        env!("CARGO_BIN_EXE_git-rag"),
        d
    );
    let out = Command::new("sh").args(["-c", &script]).current_dir(repo.path()).env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").output().expect("sh");
    assert!(!out.status.success(), "the run cannot have succeeded with a full disk: {}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("git-rag: error:") && (err.contains("disk full") || err.contains("File too large")), "{err}");
    // The previous index still answers, from the previous commit.
    assert_eq!(rag_ok(repo.path(), &["query", "check_token", "--mode", "symbol", "--json", "--index-dir", d]).replace(|c: char| c.is_ascii_digit(), ""), before.replace(|c: char| c.is_ascii_digit(), ""));
    // Space again: the next run completes and equals a fresh index.
    rag_ok(repo.path(), &["index", "-q", "--no-semantic", "--index-dir", d]);
    let fresh = scratch.path().join("fresh");
    rag_ok(repo.path(), &["index", "-q", "--no-semantic", "--index-dir", fresh.to_str().expect("utf-8")]);
    assert_same(&snapshot(repo.path(), &dir, false), &snapshot(repo.path(), &fresh, false), "after a failed write");
    let state: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(".rag_index_state.json")).expect("state")).expect("json");
    assert_eq!(state["last_commit"], head);
}
