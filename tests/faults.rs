//! Faults during `git rag index`, each followed by the comparison that
//! matters: the index after recovery equals a fresh `--full` index of the same
//! commit (state and chunk ids, `dump-graph`, `patterns --json`, with the
//! semantic layer `dump-vectors`, and query answers), with 0 differences.
//!
//! - kill -9 (SIGKILL) at random moments of full, `--full` and incremental
//!   runs of a real corpus (the pydantic release chain of the eval kit under
//!   `$GIT_RAG_EVAL_CORPORA`; a generated history otherwise, and the test says
//!   so), sometimes a second kill in the recovery run, sometimes a recovery to
//!   another commit than the killed run's; a few trials with the semantic layer
//!   on a small repository when the model is installed;
//! - a full disk: `ulimit -f` (EFBIG, every platform) and, when mounts are
//!   permitted, a size-limited tmpfs in a private mount namespace (ENOSPC);
//! - permission denied: the index dir or a store directory not writable by
//!   the (unprivileged) user running the indexer;
//! - two index runs at once on one index dir.
//!
//! Replay: `GIT_RAG_FAULT_SEED=<n>`; more or fewer kills: `GIT_RAG_FAULT_TRIALS=<n>`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{git_in, require_model, stderr, stdout};
use serde_json::Value;

// ---- helpers -------------------------------------------------------------------

/// splitmix64: a seeded, dependency-free RNG.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

fn seed() -> u64 {
    std::env::var("GIT_RAG_FAULT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64 ^ u64::from(std::process::id()))
    })
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

use crate::common::rag_ok_in as rag_ok;

fn index_args(rev: &str, dir: &Path, semantic: bool, full: bool) -> Vec<String> {
    let mut args: Vec<String> = ["index", "-q", "--rev", rev, "--index-dir", s(dir), "--wait", "120"].iter().map(|a| a.to_string()).collect();
    if !semantic {
        args.push("--no-semantic".into());
    }
    if full {
        args.push("--full".into());
    }
    args
}

fn rag_cmd(repo: &Path, args: &[String]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_git-rag"));
    cmd.args(args)
        .current_dir(repo)
        .env_remove("GIT_RAG_DIR")
        .env_remove("QDRANT_URL")
        .env_remove("GIT_RAG_FAILPOINT")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null");
    cmd
}

fn index(repo: &Path, args: &[String]) -> Duration {
    let t = Instant::now();
    let out = rag_cmd(repo, args).output().expect("git-rag runs");
    // The status says a signal when the process said nothing (`-q`).
    assert!(out.status.success(), "git-rag {args:?} failed ({}): {}", out.status, stderr(&out));
    t.elapsed()
}

/// Starts a run and sends it SIGKILL after `delay` (`Child::kill`); returns
/// `Ok(())` when it was still running then, or `Err(how long it ran)` when it
/// had finished first.
fn run_and_kill(repo: &Path, args: &[String], delay: Duration) -> Result<(), Duration> {
    let started = Instant::now();
    let mut child = rag_cmd(repo, args).stdout(Stdio::null()).stderr(Stdio::null()).spawn().expect("git-rag starts");
    let deadline = started + delay;
    loop {
        if let Ok(Some(_)) = child.try_wait() {
            return Err(started.elapsed());
        }
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        std::thread::sleep((deadline - now).min(Duration::from_millis(2)));
    }
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    use std::os::unix::process::ExitStatusExt;
    if status.signal() == Some(9) {
        Ok(())
    } else {
        Err(started.elapsed())
    }
}

fn copy_dir(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let ok = Command::new("cp").arg("-a").arg(from).arg(to).status().expect("cp");
    assert!(ok.success(), "cp -a {} {}", from.display(), to.display());
}

/// Queries compared between indexes, with the mode they run in.
const QUERIES: &[(&str, &str)] = &[
    ("validate", "keyword"),
    ("BaseModel", "symbol"),
    ("what calls validate", "graph"),
    ("model_dump_json serialize to json", "hybrid"),
    ("parse config file", "hybrid"),
];

/// Everything that must be equal between two indexes of one commit, as
/// (what, text) pairs.
fn snapshot(repo: &Path, dir: &Path, semantic: bool) -> Vec<(String, String)> {
    let d = s(dir);
    let mut out = Vec::new();
    out.push(("journal left behind".to_string(), dir.join(".rag_index_pending.json").exists().to_string()));
    let state: Value = git_rag::dump_state(dir).expect("state");
    for key in ["last_commit", "config_hash", "semantic", "schema_version"] {
        out.push((format!("state {key}"), state[key].to_string()));
    }
    out.push(("state files and chunk ids".to_string(), state["files"].to_string()));
    out.push(("dump-graph".to_string(), rag_ok(repo, &["dump-graph", "--index-dir", d])));
    out.push(("patterns --json".to_string(), rag_ok(repo, &["patterns", "--json", "--index-dir", d])));
    if semantic {
        let v: Value = serde_json::from_str(&rag_ok(repo, &["dump-vectors", "--index-dir", d])).expect("dump-vectors json");
        for c in ["files", "symbols", "semantic", "patterns"] {
            out.push((format!("dump-vectors {c}"), v[c].to_string()));
        }
    }
    for (q, mode) in QUERIES {
        let mut v: Value =
            serde_json::from_str(&rag_ok(repo, &["query", q, "--json", "-n", "10", "--mode", mode, "--index-dir", d, "--at-commit"])).expect("query json");
        if let Some(o) = v.as_object_mut() {
            o.remove("took_ms");
            o.remove("timings");
        }
        out.push((format!("query --mode {mode} {q:?}"), v.to_string()));
    }
    out
}

/// The names of the parts that differ.
fn differences(a: &[(String, String)], b: &[(String, String)]) -> Vec<String> {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).filter(|((_, x), (_, y))| x != y).map(|((what, _), _)| what.clone()).collect()
}

/// A small Python + JS history: adds, edits, a rename, a delete.
fn generated_history(dir: &Path, files: usize, functions: usize) -> Vec<String> {
    std::fs::create_dir_all(dir).expect("mkdir");
    git_in(dir, &["init", "-q", "-b", "main"]);
    let mut revs = Vec::new();
    for step in 0..3 {
        for f in 0..files {
            if step == 2 && f % 7 == 3 {
                continue; // edited less often
            }
            let body: String = (0..functions)
                .map(|i| {
                    format!(
                        "@register\ndef handle_{f}_{i}(request):\n    \"\"\"Handle request {i} of step {step}.\"\"\"\n    try:\n        return validate(request.body) + {i}\n    except ValueError as err:\n        log.error('bad request %s', err)\n        raise\n\n\n"
                    )
                })
                .collect();
            std::fs::create_dir_all(dir.join("pkg")).expect("mkdir");
            std::fs::write(
                dir.join(format!("pkg/mod{f}.py")),
                format!("import logging\nfrom .base import validate, register\n\nlog = logging.getLogger(__name__)\n\n\n{body}"),
            )
            .expect("write");
        }
        std::fs::write(
            dir.join("pkg/base.py"),
            format!("class BaseModel:\n    \"\"\"Base of every model.\"\"\"\n\n    def model_dump_json(self):\n        return str(self.__dict__) * {step}\n\n\ndef validate(value):\n    return BaseModel() if value else None\n\n\ndef register(fn):\n    return fn\n"),
        )
        .expect("write");
        std::fs::write(dir.join("web/app.js").tap_mkdir(), format!("function parseConfigFile(path) {{\n  return require('fs').readFileSync(path, 'utf8').split('{step}');\n}}\nmodule.exports = {{ parseConfigFile }};\n")).expect("write");
        git_in(dir, &["add", "-A"]);
        if step == 1 {
            git_in(dir, &["mv", "pkg/mod1.py", "pkg/renamed.py"]);
            git_in(dir, &["rm", "-q", "-f", "pkg/mod2.py"]);
        }
        git_in(dir, &["commit", "-q", "-m", &format!("step {step}")]);
        revs.push(git_in(dir, &["rev-parse", "HEAD"]));
    }
    revs
}

trait TapMkdir {
    fn tap_mkdir(self) -> Self;
}
impl TapMkdir for PathBuf {
    fn tap_mkdir(self) -> Self {
        std::fs::create_dir_all(self.parent().expect("parent")).expect("mkdir");
        self
    }
}

/// The repository and revisions (oldest first) to index, and what they are.
fn corpus(scratch: &Path) -> (PathBuf, Vec<String>, String) {
    if let Some(root) = std::env::var_os("GIT_RAG_EVAL_CORPORA") {
        let chain = Path::new(&root).join("pydantic-chain");
        if chain.join(".git").exists() {
            let mut tags: Vec<(u64, String)> =
                git_in(&chain, &["tag"]).lines().map(|t| (git_in(&chain, &["log", "-1", "--format=%ct", t]).parse().unwrap_or(0), t.to_string())).collect();
            tags.sort();
            // The first three releases (85, 246 and 256 files): a rewrite
            // (v1 to v2), then a release's worth of edits, adds, deletes and a
            // rename; the later, larger ones add time, not cases.
            let revs: Vec<String> = tags.iter().take(3).map(|(_, t)| t.clone()).collect();
            let what = format!("the pydantic release chain ({}) from $GIT_RAG_EVAL_CORPORA", revs.join(", "));
            return (chain, revs, what);
        }
        eprintln!("$GIT_RAG_EVAL_CORPORA has no pydantic-chain; using a generated history");
    }
    let dir = scratch.join("generated");
    let revs = generated_history(&dir, 60, 12);
    (dir, revs, "a generated history of 60 files (no $GIT_RAG_EVAL_CORPORA)".into())
}

// ---- kill -9 -------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    /// A first index into an empty directory.
    Fresh,
    /// `--full` over an index of another revision.
    Full,
    /// An incremental run from an index of another revision (either direction).
    Incremental,
}

struct Trials<'a> {
    repo: &'a Path,
    revs: &'a [String],
    scratch: &'a Path,
    semantic: bool,
    fresh: Vec<Vec<(String, String)>>,
    /// How long each kind of run takes, measured with as many runs at once
    /// as there will be workers, and shortened whenever a trial's run
    /// finishes before its kill (the setup may have run beside other tests
    /// on a busy machine, the trials on an idle one).
    spans: std::sync::Mutex<Spans>,
}

#[derive(Clone, Debug)]
struct Spans {
    /// A first index of each revision.
    fresh: Vec<Duration>,
    /// `--full` over an index of another revision, and incremental, oldest to newest.
    full: Duration,
    inc: Duration,
}

impl Trials<'_> {
    /// Builds fresh indexes of every revision and measures each kind of run,
    /// `workers` runs at a time (as the trials will run).
    fn setup<'a>(repo: &'a Path, revs: &'a [String], scratch: &'a Path, semantic: bool, workers: usize) -> Trials<'a> {
        let mut t = Trials {
            repo,
            revs,
            scratch,
            semantic,
            fresh: Vec::new(),
            spans: std::sync::Mutex::new(Spans { fresh: Vec::new(), full: Duration::ZERO, inc: Duration::ZERO }),
        };
        // `workers` index runs at a time; their durations.
        let batch = |jobs: Vec<(String, PathBuf, bool)>| -> Vec<Duration> {
            jobs.chunks(workers)
                .flat_map(|group| {
                    std::thread::scope(|sc| {
                        let handles: Vec<_> =
                            group.iter().map(|(rev, dir, full)| sc.spawn(move || index(repo, &index_args(rev, dir, semantic, *full)))).collect();
                        handles.into_iter().map(|h| h.join().expect("index run")).collect::<Vec<_>>()
                    })
                })
                .collect()
        };
        let fresh_times = batch(revs.iter().enumerate().map(|(i, rev)| (rev.clone(), t.fresh_dir(i), true)).collect());
        t.fresh = (0..revs.len()).map(|i| snapshot(repo, &t.fresh_dir(i), semantic)).collect();
        // A `--full` run over an index of another revision and an incremental
        // run, oldest to newest (and checked: without a fault they equal a
        // fresh index).
        let last = revs.len() - 1;
        let (full_dir, inc_dir) = (scratch.join("measure-full"), scratch.join("measure-inc"));
        copy_dir(&t.fresh_dir(0), &full_dir);
        copy_dir(&t.fresh_dir(0), &inc_dir);
        let times = batch(vec![(revs[last].clone(), full_dir.clone(), true), (revs[last].clone(), inc_dir.clone(), false)]);
        let spans = Spans { fresh: fresh_times, full: times[0], inc: times[1] };
        for dir in [&full_dir, &inc_dir] {
            let diff = differences(&snapshot(repo, dir, semantic), &t.fresh[last]);
            assert!(diff.is_empty(), "an uninterrupted run in {} differs from a fresh index: {diff:?}", dir.display());
            let _ = std::fs::remove_dir_all(dir);
        }
        eprintln!(
            "  runs take {:?} (first index of each revision), {:?} (--full over an index), {:?} (incremental): kill delays are drawn from those spans",
            spans.fresh, spans.full, spans.inc
        );
        t.spans = std::sync::Mutex::new(spans);
        t
    }

    fn fresh_dir(&self, i: usize) -> PathBuf {
        self.scratch.join(format!("fresh{i}{}", if self.semantic { "-sem" } else { "" }))
    }

    /// A delay in `0..span`.
    fn delay(rng: &mut Rng, span: Duration) -> Duration {
        Duration::from_millis(rng.below(span.as_millis() as u64 + 1))
    }

    /// Trial `n` in `dir`; returns (killed mid-run, a description, the parts that differ).
    fn trial(&self, n: usize, seed: u64, dir: &Path) -> (bool, String, Vec<String>) {
        // One RNG per trial: a trial replays alone, whatever ran beside it.
        let mut rng = Rng(seed ^ (n as u64 + 1).wrapping_mul(0xa076_1d64_78bd_642f));
        let revs = self.revs.len() as u64;
        let kind = match rng.below(3) {
            0 => Kind::Fresh,
            1 => Kind::Full,
            _ => Kind::Incremental,
        };
        let target = rng.below(revs) as usize;
        let from = (target + 1 + rng.below(revs - 1) as usize) % revs as usize;
        // The span of this run: revisions differ in size, and an incremental
        // run does at most what a first index of its target does.
        let spans = self.spans.lock().expect("spans").clone();
        let span = match kind {
            Kind::Fresh => {
                let _ = std::fs::remove_dir_all(dir);
                spans.fresh[target]
            }
            Kind::Full => {
                copy_dir(&self.fresh_dir(from), dir);
                spans.fresh[target]
            }
            Kind::Incremental => {
                copy_dir(&self.fresh_dir(from), dir);
                spans.inc.min(spans.fresh[target])
            }
        };
        let delay = Self::delay(&mut rng, span);
        let outcome = run_and_kill(self.repo, &index_args(&self.revs[target], dir, self.semantic, kind == Kind::Full), delay);
        if let Err(ran) = outcome {
            // It finished first, in `ran` where `span` was expected: the
            // machine is faster now than when the spans were measured, so
            // every span shrinks by that ratio.
            if ran < span {
                let ratio = ran.as_secs_f64() / span.as_secs_f64();
                let mut guard = self.spans.lock().expect("spans");
                let spans = &mut *guard;
                for d in spans.fresh.iter_mut().chain([&mut spans.full, &mut spans.inc]) {
                    *d = d.mul_f64(ratio);
                }
            }
        }
        let killed = outcome.is_ok();
        let mut what = format!(
            "trial {n}: {kind:?} run {}-> #{target} killed after {delay:?}{}",
            if kind == Kind::Fresh { String::new() } else { format!("#{from} ") },
            if killed { "" } else { " (it had finished)" }
        );
        // Sometimes the recovery run is killed too.
        if rng.chance(4) {
            let d2 = Self::delay(&mut rng, spans.fresh[target]);
            let again = run_and_kill(self.repo, &index_args(&self.revs[target], dir, self.semantic, false), d2).is_ok();
            what.push_str(&format!(", recovery killed after {d2:?}{}", if again { "" } else { " (it had finished)" }));
        }
        // Sometimes the recovery goes to another commit than the killed run's
        // (the journal's target and the new target differ).
        let recover_to = if rng.chance(4) { rng.below(revs) as usize } else { target };
        what.push_str(&format!(", recovered to #{recover_to}"));
        index(self.repo, &index_args(&self.revs[recover_to], dir, self.semantic, false));
        let diff = differences(&snapshot(self.repo, dir, self.semantic), &self.fresh[recover_to]);
        (killed, what, diff)
    }

    /// Runs the trials on `workers` threads, each in its own index dir.
    fn run(&self, trials: usize, seed: u64, workers: usize) {
        let results = std::sync::Mutex::new(Vec::new());
        std::thread::scope(|sc| {
            for w in 0..workers {
                let results = &results;
                sc.spawn(move || {
                    let dir = self.scratch.join(format!("trial{w}{}", if self.semantic { "-sem" } else { "" }));
                    for n in (w..trials).step_by(workers) {
                        let (killed, what, diff) = self.trial(n, seed, &dir);
                        eprintln!("  {what}: {} differences", diff.len());
                        results.lock().expect("results").push((killed, what, diff));
                    }
                });
            }
        });
        let results = results.into_inner().expect("results");
        assert_eq!(results.len(), trials, "a trial did not finish");
        let killed = results.iter().filter(|r| r.0).count();
        let failures: Vec<String> = results.iter().filter(|r| !r.2.is_empty()).map(|(_, what, diff)| format!("{what}: {diff:?}")).collect();
        eprintln!("{trials} trials, {killed} killed mid-run, {} with differences", failures.len());
        assert!(failures.is_empty(), "after kill -9 and a rerun the index differs from a fresh one:\n{}", failures.join("\n"));
        assert!(killed * 2 >= trials, "most kills must land while the run works ({killed} of {trials})");
    }
}

#[test]
fn kill_9_at_random_moments_then_rerun_equals_a_fresh_index() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let (repo, revs, what) = corpus(scratch.path());
    let trials = std::env::var("GIT_RAG_FAULT_TRIALS").ok().and_then(|s| s.parse().ok()).unwrap_or(20);
    let seed = seed();
    eprintln!("kill -9 trials (keyword + graph) on {what}: {trials} trials, 2 at a time, GIT_RAG_FAULT_SEED={seed}");
    let t = Trials::setup(&repo, &revs, scratch.path(), false, 2);
    t.run(trials, seed, 2);
}

/// The same with the semantic layer, on a small repository (embedding is
/// slow on small machines): the embedded vector store, its cache and the
/// PATTERNS collection survive a kill at any point, embedding included.
#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn kill_9_with_the_semantic_layer() {
    require_model();
    let scratch = tempfile::tempdir().expect("tempdir");
    let repo = scratch.path().join("small");
    let revs = generated_history(&repo, 12, 5);
    let seed = seed();
    let trials = 5;
    eprintln!("kill -9 trials with the semantic layer on a generated 14-file history: {trials} trials, GIT_RAG_FAULT_SEED={seed}");
    let t = Trials::setup(&repo, &revs, scratch.path(), true, 1);
    t.run(trials, seed, 1);
}

// ---- full disk, permission denied ---------------------------------------------

/// A repository indexed at its first commit, with a second commit that adds
/// enough to make every store write: (repo, first, second).
fn two_commits(scratch: &Path) -> (PathBuf, String, String) {
    let repo = scratch.join("repo");
    std::fs::create_dir_all(repo.join("pkg")).expect("mkdir");
    git_in(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("pkg/auth.py"), "def check_token(token):\n    \"\"\"Reject empty tokens.\"\"\"\n    return bool(token)\n").expect("write");
    git_in(&repo, &["add", "-A"]);
    git_in(&repo, &["commit", "-q", "-m", "one"]);
    let first = git_in(&repo, &["rev-parse", "HEAD"]);
    for f in 0..80 {
        let body: String = (0..25)
            .map(|i| {
                format!("def handler_{f}_{i}(request):\n    try:\n        return check_token(request.token) and {i}\n    except KeyError:\n        raise\n\n\n")
            })
            .collect();
        std::fs::write(repo.join(format!("pkg/h{f}.py")), format!("from .auth import check_token\n\n\n{body}")).expect("write");
    }
    git_in(&repo, &["add", "-A"]);
    git_in(&repo, &["commit", "-q", "-m", "two"]);
    let second = git_in(&repo, &["rev-parse", "HEAD"]);
    (repo, first, second)
}

/// What the previous index answers; must not change while a run fails.
fn answers(repo: &Path, dir: &Path) -> Vec<String> {
    let d = s(dir);
    let status: Value = serde_json::from_str(&rag_ok(repo, &["status", "--json", "--index-dir", d])).expect("status json");
    let mut out = vec![format!("{} {}", status["indexed_commit"], status["counts"])];
    let state: Value = git_rag::dump_state(dir).expect("state");
    out.push(state["last_commit"].to_string());
    out.push(state["files"].to_string());
    for (q, mode) in [("check_token", "symbol"), ("check_token", "keyword"), ("reject empty tokens", "hybrid")] {
        let mut v: Value = serde_json::from_str(&rag_ok(repo, &["query", q, "--json", "--mode", mode, "--index-dir", d, "--at-commit"])).expect("json");
        let o = v.as_object_mut().expect("object");
        o.remove("took_ms");
        o.remove("timings");
        out.push(v.to_string());
    }
    // The graph may already hold the new commit's facts (it is written
    // first; the journal makes the next run redo it): it must answer.
    rag_ok(repo, &["query", "what calls check_token", "--mode", "graph", "--json", "--index-dir", d, "--at-commit"]);
    out
}

/// Temp files a failed write left in the index dir.
fn leftovers(dir: &Path) -> Vec<String> {
    let out = Command::new("find").arg(dir).args(["-name", "*.tmp.*"]).output().expect("find");
    stdout(&out).lines().map(str::to_string).collect()
}

/// Asserts a failed run said what went wrong, clearly (no panic, no backtrace).
fn assert_clear_error(out: &Output, expect: &[&str], label: &str) {
    let err = stderr(out);
    assert!(!out.status.success(), "{label}: the run succeeded\n{err}");
    assert_eq!(out.status.code(), Some(1), "{label}: exit status {:?} (a signal or a panic?)\n{err}", out.status);
    assert!(err.contains("git-rag: error:"), "{label}: no error message\n{err}");
    assert!(!err.contains("panicked at") && !err.contains("stack backtrace"), "{label}: a panic\n{err}");
    assert!(expect.iter().any(|e| err.contains(e)), "{label}: the error does not say {expect:?}\n{err}");
}

fn fresh_snapshot(repo: &Path, rev: &str, scratch: &Path) -> Vec<(String, String)> {
    let dir = scratch.join(format!("fresh-{}", rev.chars().filter(char::is_ascii_alphanumeric).take(12).collect::<String>()));
    if !dir.exists() {
        index(repo, &index_args(rev, &dir, false, true));
    }
    snapshot(repo, &dir, false)
}

#[test]
fn a_full_disk_fails_clearly_and_the_previous_index_still_answers() {
    let scratch = tempfile::tempdir().expect("tempdir");
    let (repo, first, second) = two_commits(scratch.path());
    let fresh = fresh_snapshot(&repo, &second, scratch.path());
    let base = scratch.path().join("base");
    index(&repo, &index_args(&first, &base, false, false));

    // RLIMIT_FSIZE: any write past the limit fails with EFBIG (SIGXFSZ
    // ignored, as a shell that traps it would). Limits in 512-byte blocks
    // (dash) or KiB (bash): each fails at another file of the run.
    let mut failed = 0;
    for limit in [8, 64, 400] {
        let dir = scratch.path().join(format!("ulimit{limit}"));
        copy_dir(&base, &dir);
        let before = answers(&repo, &dir);
        let script = format!("trap '' XFSZ; ulimit -f {limit} && exec \"$0\" \"$@\"");
        let mut args = vec!["-c".to_string(), script, env!("CARGO_BIN_EXE_git-rag").to_string()];
        args.extend(index_args(&second, &dir, false, false).into_iter().filter(|a| a != "-q"));
        let out = Command::new("sh").args(&args).current_dir(&repo).env("GIT_CONFIG_NOSYSTEM", "1").env("GIT_CONFIG_GLOBAL", "/dev/null").output().expect("sh");
        if out.status.success() {
            eprintln!("ulimit -f {limit}: the run fit");
            continue;
        }
        failed += 1;
        let label = format!("ulimit -f {limit}");
        assert_clear_error(&out, &["File too large", "disk full"], &label);
        eprintln!("{label}: {}", stderr(&out).lines().find(|l| l.contains("error:")).unwrap_or_default());
        assert_eq!(answers(&repo, &dir), before, "{label}: the previous index answers differently after the failed run");
        assert_eq!(leftovers(&dir), Vec::<String>::new(), "{label}: the failed run left temp files");
        // Room again: the next run completes and equals a fresh index.
        index(&repo, &index_args(&second, &dir, false, false));
        let diff = differences(&snapshot(&repo, &dir, false), &fresh);
        assert!(diff.is_empty(), "{label}: after the failure and a rerun the index differs: {diff:?}");
    }
    assert!(failed >= 2, "the file size limits should make most runs fail ({failed} of 3)");

    // A real ENOSPC: the index on a tmpfs just larger than the previous
    // index, in a private mount namespace (needs CAP_SYS_ADMIN; skipped, and
    // said, where mounts are not permitted).
    let probe = Command::new("unshare").args(["-m", "--propagation", "private", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"]).output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        eprintln!("tmpfs ENOSPC: skipped, mounts are not permitted here (ulimit -f covered the full disk)");
        return;
    }
    let used_kib: u64 =
        stdout(&Command::new("du").args(["-sk"]).arg(&base).output().expect("du")).split_whitespace().next().and_then(|n| n.parse().ok()).expect("du -sk");
    for margin_kib in [16, 256, 768, 1024, 1536, 2048] {
        let label = format!("tmpfs with {margin_kib} KiB free");
        let mnt = scratch.path().join(format!("mnt{margin_kib}"));
        let out_dir = scratch.path().join(format!("tmpfs{margin_kib}"));
        std::fs::create_dir_all(&mnt).expect("mkdir");
        let before = answers(&repo, &base);
        // In the namespace: mount, copy the previous index in, run the
        // failing index, query it, list temp files, copy it back out.
        let idx = mnt.join("idx");
        let bin = env!("CARGO_BIN_EXE_git-rag");
        let script = format!(
            "set -u; mount -t tmpfs -o size={}k tmpfs '{m}' || exit 90; cp -a '{base}' '{idx}' || exit 91; \
             '{bin}' index --no-semantic --rev {second} --index-dir '{idx}' --wait 60 2> '{o}.err'; echo $? > '{o}.rc'; \
             '{bin}' query check_token --mode symbol --json --index-dir '{idx}' --at-commit > '{o}.q1'; \
             '{bin}' query check_token --mode keyword --json --index-dir '{idx}' --at-commit > '{o}.q2'; \
             find '{idx}' -name '*.tmp.*' > '{o}.tmp'; cp -a '{idx}' '{o}'",
            used_kib + margin_kib,
            m = s(&mnt),
            base = s(&base),
            idx = s(&idx),
            o = s(&out_dir),
        );
        let out = Command::new("unshare")
            .args(["-m", "--propagation", "private", "sh", "-c", &script])
            .current_dir(&repo)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .expect("unshare");
        assert!(out.status.success(), "{label}: the namespace script failed: {}", stderr(&out));
        let read = |ext: &str| std::fs::read_to_string(format!("{}.{ext}", s(&out_dir))).expect("output file");
        let err = read("err");
        if read("rc").trim() == "0" {
            eprintln!("{label}: the run fit");
            continue;
        }
        assert_eq!(read("rc").trim(), "1", "{label}: exit status\n{err}");
        assert!(
            err.contains("git-rag: error:") && (err.contains("No space left on device") || err.contains("disk full")) && !err.contains("panicked at"),
            "{label}: unclear error\n{err}"
        );
        eprintln!("{label}: {}", err.lines().find(|l| l.contains("error:")).unwrap_or_default());
        let strip = |t: String| -> String {
            let mut v: Value = serde_json::from_str(&t).expect("query json");
            let o = v.as_object_mut().expect("object");
            o.remove("took_ms");
            o.remove("timings");
            v.to_string()
        };
        assert_eq!(strip(read("q1")), before[3], "{label}: symbol answers changed after the failed run");
        assert_eq!(strip(read("q2")), before[4], "{label}: keyword answers changed after the failed run");
        assert_eq!(read("tmp").trim(), "", "{label}: the failed run left temp files");
        // Room again (the index copied out to the disk): rerun, compare.
        index(&repo, &index_args(&second, &out_dir, false, false));
        let diff = differences(&snapshot(&repo, &out_dir, false), &fresh);
        assert!(diff.is_empty(), "{label}: after the failure and a rerun the index differs: {diff:?}");
    }
}

/// Tests run as root, for whom permission bits deny nothing: the indexer
/// runs as `nobody` (setpriv) over an index dir it owns, with one directory
/// made read-only.
#[test]
fn permission_denied_fails_clearly_and_the_previous_index_still_answers() {
    let is_root = stdout(&Command::new("id").arg("-u").output().expect("id")).trim() == "0";
    let setpriv = Command::new("setpriv").arg("--version").output().is_ok_and(|o| o.status.success());
    if !is_root || !setpriv {
        eprintln!("permission denied: skipped (needs root, to run the indexer as another user, and setpriv)");
        return;
    }
    let scratch = tempfile::tempdir().expect("tempdir");
    // `nobody` must read the repository and reach the index dir.
    let chmod = |mode: &str, p: &Path| assert!(Command::new("chmod").arg(mode).arg(p).status().expect("chmod").success());
    chmod("0755", scratch.path());
    let (repo, first, second) = two_commits(scratch.path());
    let fresh = fresh_snapshot(&repo, &second, scratch.path());
    let base = scratch.path().join("base");
    index(&repo, &index_args(&first, &base, false, false));
    let home = scratch.path().join("home");
    std::fs::create_dir_all(&home).expect("mkdir");
    for (sub, expect_where) in [("", "index.lock"), ("graph", "graph"), ("keyword/chunks", "keyword")] {
        let label = format!("read-only {}", if sub.is_empty() { "index dir" } else { sub });
        let dir = scratch.path().join(format!("perm-{}", if sub.is_empty() { "root" } else { &sub[..5] }));
        copy_dir(&base, &dir);
        assert!(Command::new("chown").args(["-R", "65534:65534"]).arg(&dir).status().expect("chown").success());
        chmod("0777", &home);
        let before = answers(&repo, &dir);
        let target = if sub.is_empty() { dir.clone() } else { dir.join(sub) };
        if sub.is_empty() {
            // The lock file the indexer must open for writing is root's.
            assert!(Command::new("chown").arg("0:0").arg(dir.join("index.lock")).status().expect("chown").success());
        }
        chmod("0555", &target);
        let mut args = vec!["--reuid=65534".to_string(), "--regid=65534".into(), "--clear-groups".into(), env!("CARGO_BIN_EXE_git-rag").into()];
        args.extend(index_args(&second, &dir, false, false).into_iter().filter(|a| a != "-q"));
        let out = Command::new("setpriv")
            .args(&args)
            .current_dir(&repo)
            .env("HOME", &home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_RAG_DIR")
            .output()
            .expect("setpriv");
        assert_clear_error(&out, &["Permission denied", "not writable"], &label);
        let err = stderr(&out);
        assert!(err.contains(expect_where), "{label}: the error does not name where ({expect_where})\n{err}");
        eprintln!("{label}: {}", err.lines().find(|l| l.contains("error:")).unwrap_or_default());
        chmod("0755", &target);
        assert_eq!(answers(&repo, &dir), before, "{label}: the previous index answers differently after the failed run");
        // Writable again: the next run completes and equals a fresh index.
        index(&repo, &index_args(&second, &dir, false, false));
        let diff = differences(&snapshot(&repo, &dir, false), &fresh);
        assert!(diff.is_empty(), "{label}: after the failure and a rerun the index differs: {diff:?}");
    }
}

// ---- two runs at once ------------------------------------------------------------

#[test]
fn two_concurrent_runs_are_serialized_by_the_lock() {
    let scratch = tempfile::tempdir().expect("tempdir");
    // A generated history: the runs take long enough to overlap, and the
    // kill trials already spend the time of the real corpus.
    let repo = scratch.path().join("generated");
    let revs = generated_history(&repo, 60, 12);
    let (a, b) = (&revs[0], &revs[revs.len() - 1]);

    // Waiting: both runs end OK, one after the other; the index equals a
    // fresh one of whichever commit was indexed last.
    let dir = scratch.path().join("both");
    let start = |rev: &str, dir: &Path, wait: &str| {
        let mut args = index_args(rev, dir, false, false);
        let w = args.iter().position(|x| x == "--wait").expect("--wait") + 1;
        args[w] = wait.to_string();
        args.push("--json".into());
        rag_cmd(&repo, &args).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("git-rag starts")
    };
    let (p1, p2) = (start(a, &dir, "300"), start(b, &dir, "300"));
    let (o1, o2) = (p1.wait_with_output().expect("wait"), p2.wait_with_output().expect("wait"));
    assert!(o1.status.success() && o2.status.success(), "with --wait both runs end OK:\n{}\n{}", stderr(&o1), stderr(&o2));
    let state: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(".rag_index_state.json")).expect("state")).expect("json");
    let last = state["last_commit"].as_str().expect("last commit").to_string();
    let rev_of = |r: &str| git_in(&repo, &["rev-parse", &format!("{r}^{{commit}}")]);
    let last_rev = if last == rev_of(a) { a } else { b };
    assert_eq!(last, rev_of(last_rev));
    // The second run to take the lock started from the first one's commit.
    let reports: Vec<Value> = [&o1, &o2].iter().map(|o| serde_json::from_str(&stdout(o)).expect("index json")).collect();
    let (first_run, second_run) = if reports[0]["commit"] == last { (&reports[1], &reports[0]) } else { (&reports[0], &reports[1]) };
    assert_eq!(first_run["full"], true, "the first run to take the lock indexes the empty dir in full: {first_run}");
    assert_eq!(second_run["full"], false, "the second run waited, then updated incrementally: {second_run}");
    assert_eq!(second_run["previous"], first_run["commit"], "the second run started from the first one's finished state");
    eprintln!("with --wait: both OK, the second ({last_rev}) incremental from the first's commit");
    let fresh = fresh_snapshot(&repo, last_rev, scratch.path());
    let diff = differences(&snapshot(&repo, &dir, false), &fresh);
    assert!(diff.is_empty(), "after two concurrent runs the index differs from a fresh one: {diff:?}");

    // Not waiting: the run that finds the lock taken says so and changes
    // nothing; the other ends OK and equals a fresh index.
    let dir = scratch.path().join("nowait");
    let _ = std::fs::remove_dir_all(&dir);
    let (p1, p2) = (start(a, &dir, "0"), start(b, &dir, "0"));
    let (o1, o2) = (p1.wait_with_output().expect("wait"), p2.wait_with_output().expect("wait"));
    let ok: Vec<bool> = vec![o1.status.success(), o2.status.success()];
    assert!(ok.iter().any(|x| *x), "one run must end OK:\n{}\n{}", stderr(&o1), stderr(&o2));
    for o in [&o1, &o2] {
        if !o.status.success() {
            assert_clear_error(o, &["another `git rag index` is running"], "the run that found the lock taken");
            eprintln!("without --wait: {}", stderr(o).trim());
        }
    }
    let winner = if o1.status.success() && !o2.status.success() {
        a
    } else if o2.status.success() && !o1.status.success() {
        b
    } else {
        // Both succeeded: the second started after the first had finished.
        eprintln!("without --wait: both ran (no overlap)");
        let state: Value = serde_json::from_str(&std::fs::read_to_string(dir.join(".rag_index_state.json")).expect("state")).expect("json");
        if state["last_commit"].as_str() == Some(rev_of(a).as_str()) {
            a
        } else {
            b
        }
    };
    let fresh = fresh_snapshot(&repo, winner, scratch.path());
    let diff = differences(&snapshot(&repo, &dir, false), &fresh);
    assert!(diff.is_empty(), "after a refused concurrent run the index differs from a fresh one: {diff:?}");
}
