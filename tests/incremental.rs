//! Incremental equals full: after every commit of a history, the index that
//! was updated step by step answers every query exactly like a fresh full
//! index of the same commit, and holds the same files and chunks.

use std::path::Path;

use crate::common::TestRepo;
use serde_json::Value;

const QUERIES: &[&str] = &[
    "session",
    "parse config file",
    "cache entry expires",
    "handler",
    "compute_total",
    "fetchUser",
    "retry with backoff",
    "render template",
    "Invoice",
    "validate",
    "how are errors logged",
    "module.exports",
    "what calls validate",
    "who uses compute_total",
];

use crate::common::rag_ok_in as rag_ok;

/// Every query of the fixed set, in every mode, against one index dir
/// (`--at-commit`: the index's own answers, without the work tree over it).
fn answers(repo_dir: &Path, index_dir: &Path, semantic: bool) -> Vec<Value> {
    let dir = index_dir.to_str().expect("utf-8 path");
    // Hybrid runs the dense retriever when the index has vectors (the same
    // code as `--mode semantic`), so every retriever is compared.
    let _ = semantic;
    let modes: &[&str] = &["keyword", "symbol", "graph", "hybrid"];
    let mut out = Vec::new();
    for q in QUERIES {
        for mode in modes {
            let text = rag_ok(repo_dir, &["query", q, "--json", "--limit", "15", "--mode", mode, "--index-dir", dir, "--at-commit"]);
            let mut v: Value = serde_json::from_str(&text).expect("json");
            let o = v.as_object_mut().expect("object");
            o.remove("took_ms");
            o.remove("timings");
            out.push(v);
        }
    }
    out
}

fn state_files(index_dir: &Path) -> Value {
    git_rag::dump_state(index_dir).expect("state")["files"].clone()
}

/// Compares the incremental index in `inc` with a fresh full index of `rev`:
/// state, every point of the vector store (ids, payloads, vectors) and the
/// answers of every query mode.
fn assert_same_as_full(repo_dir: &Path, inc: &Path, rev: &str, scratch: &Path, label: &str, semantic: bool) {
    let full = scratch.join(format!("full-{label}"));
    let full_s = full.to_str().expect("utf-8");
    let mut args = vec!["index", "--full", "--rev", rev, "-q", "--index-dir", full_s];
    if !semantic {
        args.push("--no-semantic");
    }
    rag_ok(repo_dir, &args);
    assert_eq!(state_files(inc), state_files(&full), "{label}: indexed files and chunk ids differ");
    let graph = |d: &Path| rag_ok(repo_dir, &["dump-graph", "--index-dir", d.to_str().expect("utf-8")]);
    let (ga, gb) = (graph(inc), graph(&full));
    assert!(ga.lines().count() > 0, "{label}: the code graph is empty");
    assert_eq!(ga, gb, "{label}: the code graph differs");
    let patterns = |d: &Path| rag_ok(repo_dir, &["patterns", "--json", "--index-dir", d.to_str().expect("utf-8")]);
    assert_eq!(patterns(inc), patterns(&full), "{label}: the project patterns differ");
    if semantic {
        let dump =
            |d: &Path| -> Value { serde_json::from_str(&rag_ok(repo_dir, &["dump-vectors", "--index-dir", d.to_str().expect("utf-8")])).expect("dump json") };
        let (a, b) = (dump(inc), dump(&full));
        for c in ["files", "symbols", "semantic", "patterns"] {
            assert_eq!(a[c], b[c], "{label}: vector collection {c} differs");
        }
        assert!(!a["semantic"].as_array().expect("points").is_empty(), "{label}: the semantic layer is empty");
    }
    let a = answers(repo_dir, inc, semantic);
    let b = answers(repo_dir, &full, semantic);
    let modes = 4;
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        assert_eq!(x, y, "{label}: query {} (mode #{}) answers differ", QUERIES[i / modes], i % modes);
    }
    let _ = std::fs::remove_dir_all(&full);
}

/// A tiny deterministic generator (no dependency, same history every run).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn pick(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const WORDS: &[&str] = &["session", "cache", "invoice", "user", "config", "template", "retry", "token", "order", "report"];

fn python_file(rng: &mut Lcg, n: usize) -> String {
    let mut s = String::from("import logging\n\nlog = logging.getLogger(__name__)\n\n");
    for i in 0..n {
        let w = WORDS[rng.pick(WORDS.len())];
        match rng.pick(3) {
            0 => s.push_str(&format!(
                "def compute_total_{w}_{i}(items):\n    \"\"\"Compute the total of {w} items.\"\"\"\n    total = 0\n    for it in items:\n        total += it.amount\n    return total\n\n"
            )),
            1 => s.push_str(&format!(
                "class {}{i}:\n    \"\"\"A {w} with retry with backoff.\"\"\"\n\n    def validate(self, value):\n        if not value:\n            log.error(\"invalid {w}\")\n            raise ValueError(value)\n        return value\n\n    def handler(self, request):\n        return self.validate(request.{w})\n\n",
                capitalize(w)
            )),
            _ => s.push_str(&format!("def parse_{w}_config_{i}(path):\n    with open(path) as fh:\n        return fh.read().split(\"{w}\")\n\n")),
        }
    }
    s
}

fn js_file(rng: &mut Lcg, n: usize) -> String {
    let mut s = String::from("'use strict';\n\n");
    for i in 0..n {
        let w = WORDS[rng.pick(WORDS.len())];
        match rng.pick(3) {
            0 => s.push_str(&format!("/** Fetch a {w}. */\nasync function fetchUser{i}(id) {{\n  const res = await fetch('/{w}/' + id);\n  return res.json();\n}}\n\n")),
            1 => s.push_str(&format!("exports.render{i} = function render(template, {w}) {{\n  return template.replace('{{{{{w}}}}}', {w});\n}};\n\n")),
            _ => s.push_str(&format!("const handler{i} = (req, res) => {{\n  console.error('{w} failed');\n  res.status(500).send('{w}');\n}};\nmodule.exports.handler{i} = handler{i};\n\n")),
        }
    }
    s
}

fn ts_file(rng: &mut Lcg, n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        let w = WORDS[rng.pick(WORDS.len())];
        match rng.pick(2) {
            0 => s.push_str(&format!("export interface {}Entry{i} {{\n  value: string;\n  expiresAt: number;\n}}\n\n", capitalize(w))),
            _ => s.push_str(&format!(
                "export class {}Cache{i} {{\n  private entries = new Map<string, number>();\n  get(key: string): number | undefined {{\n    return this.entries.get(key);\n  }}\n  validate = (v: number) => v > 0;\n}}\n\n",
                capitalize(w)
            )),
        }
    }
    s
}

/// A file in one of the languages parsed through tags queries, with calls
/// to names other files define (`validate`, `compute_*`) so the graph spans files.
fn tagged_file(rng: &mut Lcg, n: usize, ext: &str) -> String {
    let mut s = String::new();
    for i in 0..n {
        let w = WORDS[rng.pick(WORDS.len())];
        let c = capitalize(w);
        let k = rng.pick(2);
        s.push_str(&match (ext, k) {
            ("rs", 0) => format!("/// A {w}.\npub struct {c}{i} {{ value: u32 }}\n\nimpl {c}{i} {{\n    pub fn validate(&self) -> Result<u32, String> {{\n        let v = compute_{w}(self.value)?;\n        Ok(v)\n    }}\n}}\n\n"),
            ("rs", _) => format!("pub fn compute_{w}(v: u32) -> Result<u32, String> {{\n    if v == 0 {{ return Err(\"{w}\".into()); }}\n    Ok(v * {i})\n}}\n\n"),
            ("go", 0) => format!("// {c}{i} holds a {w}.\ntype {c}{i} struct {{ Base; n int }}\n\nfunc (x *{c}{i}) Validate() error {{\n\tif err := Compute{c}(x.n); err != nil {{\n\t\treturn err\n\t}}\n\treturn nil\n}}\n\n"),
            ("go", _) => format!("func Compute{c}(n int) error {{\n\treturn check{i}(n)\n}}\n\n"),
            ("java", _) => format!("class {c}{i} extends Base {{\n  int validate(int v) {{ return compute{c}(v) + {i}; }}\n  static int compute{c}(int v) {{ return v; }}\n}}\n\n"),
            ("c" | "h", 0) => format!("/* A {w}. */\nint compute_{w}(int v) {{ return validate(v) + {i}; }}\n\n"),
            ("c" | "h", _) => format!("typedef struct {w}_{i} {{ int v; }} {w}_{i}_t;\nint validate(int v);\n\n"),
            ("cpp", _) => format!("namespace {w} {{\nclass {c}{i} : public Base {{\n public:\n  int validate(int v);\n}};\nint {c}{i}::validate(int v) {{ return compute_{w}(v); }}\n}}\n\n"),
            ("cs", _) => format!("namespace App.{c} {{\n  public class {c}{i} : IBase {{\n    public int Validate(int v) {{ return Compute{c}(v); }}\n  }}\n}}\n\n"),
            ("rb", _) => format!("class {c}{i} < Base\n  # Validates a {w}.\n  def validate(v)\n    compute_{w}(v)\n  rescue ArgumentError => e\n    log(e)\n  end\nend\n\n"),
            _ => format!("local M{i} = {{}}\n-- Computes a {w}.\nfunction M{i}.compute_{w}(v)\n  return validate(v)\nend\nfunction M{i}:validate(v) return self.compute_{w}(v) end\n\n"),
        });
    }
    match ext {
        "go" => format!("package pkg\n\nimport \"fmt\"\n\n{s}"),
        "java" => format!("package pkg;\nimport java.util.List;\n\n{s}"),
        "rs" => format!("use crate::pkg1::mod3;\n\n{s}"),
        "c" | "cpp" => format!("#include \"mod7.h\"\n\n{s}"),
        "rb" => format!("require_relative 'mod10'\n\n{s}"),
        "lua" => format!("local shared = require(\"pkg1.mod11\")\n\n{s}"),
        _ => s,
    }
}

fn capitalize(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn new_content(rng: &mut Lcg, path: &str) -> String {
    let n = 1 + rng.pick(5);
    if path.ends_with(".py") {
        python_file(rng, n)
    } else if path.ends_with(".js") {
        js_file(rng, n)
    } else if path.ends_with(".ts") {
        ts_file(rng, n)
    } else {
        tagged_file(rng, n, path.rsplit('.').next().unwrap_or(""))
    }
}

#[test]
fn generated_history_incremental_equals_full() {
    // The semantic layer too, when the model is installed (CI requires it).
    let semantic = git_rag::semantic::model::installed();
    assert!(semantic || std::env::var_os("GIT_RAG_REQUIRE_MODEL").is_none(), "GIT_RAG_REQUIRE_MODEL is set but no model is installed");
    let no_sem: &[&str] = if semantic { &[] } else { &["--no-semantic"] };
    let repo = TestRepo::new();
    let scratch = tempfile::tempdir().expect("tempdir");
    let inc = scratch.path().join("incremental");
    let inc_s = inc.to_str().expect("utf-8").to_string();
    let mut rng = Lcg(42);
    let mut files: Vec<String> = Vec::new();
    // Every parsed language: walked by hand (Python, JS, TS) or through tags queries.
    let exts = ["py", "js", "ts", "rs", "go", "java", "c", "h", "cpp", "cs", "rb", "lua"];
    for (i, ext) in exts.iter().enumerate() {
        let path = format!("pkg{}/mod{i}.{ext}", i % 2);
        repo.write(&path, new_content(&mut rng, &path));
        files.push(path);
    }
    repo.commit("initial");
    rag_ok(repo.path(), &[&["index", "-q", "--index-dir", &inc_s][..], no_sem].concat());

    let mut serial = 100;
    for step in 0..18 {
        // One to three operations per commit.
        for _ in 0..1 + rng.pick(3) {
            serial += 1;
            match rng.pick(6) {
                0 | 1 if !files.is_empty() => {
                    // Modify: rewrite or append.
                    let path = files[rng.pick(files.len())].clone();
                    let mut text = std::fs::read_to_string(repo.path().join(&path)).expect("read");
                    if rng.pick(2) == 0 {
                        text.push_str(&new_content(&mut rng, &path));
                    } else {
                        text = new_content(&mut rng, &path);
                    }
                    repo.write(&path, text);
                }
                2 if files.len() > 2 => {
                    let path = files.remove(rng.pick(files.len()));
                    repo.remove(&path);
                }
                3 if !files.is_empty() => {
                    // Pure rename.
                    let i = rng.pick(files.len());
                    let ext = files[i].rsplit('.').next().expect("ext").to_string();
                    let to = format!("moved/f{serial}.{ext}");
                    std::fs::create_dir_all(repo.path().join("moved")).expect("mkdir");
                    repo.git(&["mv", &files[i], &to]);
                    files[i] = to;
                }
                4 if !files.is_empty() => {
                    // Rename with a small edit.
                    let i = rng.pick(files.len());
                    let ext = files[i].rsplit('.').next().expect("ext").to_string();
                    let to = format!("renamed/g{serial}.{ext}");
                    std::fs::create_dir_all(repo.path().join("renamed")).expect("mkdir");
                    repo.git(&["mv", &files[i], &to]);
                    let mut text = std::fs::read_to_string(repo.path().join(&to)).expect("read");
                    text.push_str("\n// edited\n");
                    repo.write(&to, text);
                    files[i] = to;
                }
                _ => {
                    let path = format!("pkg{}/new{serial}.{}", serial % 3, exts[rng.pick(exts.len())]);
                    repo.write(&path, new_content(&mut rng, &path));
                    files.push(path);
                }
            }
        }
        let head = repo.commit(&format!("step {step}"));
        rag_ok(repo.path(), &[&["index", "-q", "--index-dir", &inc_s][..], no_sem].concat());
        assert_same_as_full(repo.path(), &inc, &head, scratch.path(), &format!("step{step}"), semantic);
    }
}

/// The real pydantic release chain from the eval kit, first tag to last.
/// Needs `GIT_RAG_EVAL_CORPORA` pointing at corpora built with
/// `shared/eval/corpus.py` (`scripts/test.sh` builds it).
#[test]
#[ignore = "needs the pydantic-chain corpus (GIT_RAG_EVAL_CORPORA); scripts/test.sh builds it and runs it"]
fn pydantic_chain_incremental_equals_full() {
    let root = crate::common::require_corpora();
    let corpus = Path::new(&root).join("pydantic-chain");
    assert!(corpus.join(".git").exists(), "no pydantic-chain corpus at {}", corpus.display());
    let tags = crate::common::git_in(&corpus, &["tag", "--sort=creatordate"]);
    let mut tags: Vec<&str> = tags.lines().collect();
    // Creation dates are fixed one day apart, so this is release order.
    tags.sort_by_key(|t| crate::common::git_in(&corpus, &["log", "-1", "--format=%ct", t]).parse::<u64>().unwrap_or(0));
    assert_eq!(tags.len(), 5, "{tags:?}");
    let scratch = tempfile::tempdir().expect("tempdir");
    let inc = scratch.path().join("incremental");
    let inc_s = inc.to_str().expect("utf-8").to_string();
    for tag in tags {
        // Keyword and symbol layers only: embedding five releases would take
        // most of the CI budget; the generated history covers the vectors.
        let out = rag_ok(&corpus, &["index", "-q", "--no-semantic", "--rev", tag, "--index-dir", &inc_s]);
        eprintln!("{tag}: {}", out.trim());
        assert_same_as_full(&corpus, &inc, tag, scratch.path(), tag, false);
    }
}
