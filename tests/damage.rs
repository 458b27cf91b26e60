//! Any store file damaged the ways a full disk, a cache copied while it was
//! written or bit rot damage one — bytes flipped in its second half, the
//! file cut to half its length, zero-filled, deleted — on a real index of a
//! small project: no command panics (`query`, `status`, `serve`, `index`),
//! every error line says what is damaged and the command that fixes it
//! within 200 characters, and the next `git rag index` gives back the
//! answers a fresh index gives.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::json;

use crate::common::mcp::Mcp;
use crate::common::{rag_in, require_model, stderr, TestRepo};

/// The longest an error or notice line may run before its details (the
/// parenthesis that holds paths and a dependency's words).
const LINE_BEFORE_DETAILS: usize = 200;

#[derive(Debug, Clone, Copy)]
enum Damage {
    /// 64 bytes of the second half inverted.
    Flip,
    Truncate,
    Zero,
    Delete,
}

const DAMAGES: [Damage; 4] = [Damage::Flip, Damage::Truncate, Damage::Zero, Damage::Delete];

fn damage(path: &Path, how: Damage) {
    if let Damage::Delete = how {
        std::fs::remove_file(path).unwrap();
        return;
    }
    let mut bytes = std::fs::read(path).unwrap();
    let n = bytes.len();
    match how {
        Damage::Flip if n > 0 => {
            // Positions from a small generator seeded by the length: the same every run.
            let mut x = n as u64 | 1;
            for _ in 0..64.min(n.div_ceil(2)) {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let at = n / 2 + (x >> 33) as usize % (n - n / 2);
                bytes[at] ^= 0xFF;
            }
        }
        Damage::Truncate => bytes.truncate(n / 2),
        Damage::Zero => bytes.iter_mut().for_each(|b| *b = 0),
        _ => {}
    }
    std::fs::write(path, bytes).unwrap();
}

const MONEY: &str = r#"from .rates import lookup_rate


class Wallet:
    """Holds amounts in one currency."""

    def __init__(self, currency):
        self.currency = currency
        self.amounts = []

    def add(self, amount):
        self.amounts.append(amount)

    def total_in(self, currency):
        rate = lookup_rate(self.currency, currency)
        return sum(self.amounts) * rate


def convert_currency(amount, rate):
    """Convert an amount with an exchange rate."""
    return amount * rate
"#;

const RATES: &str = r#"RATES = {("EUR", "USD"): 1.1, ("USD", "EUR"): 0.9}


def lookup_rate(source, target):
    """The exchange rate from one currency to another."""
    if source == target:
        return 1.0
    return RATES[(source, target)]
"#;

const SLUG: &str = r#"function slugify(text) {
  return text.toLowerCase().trim().replace(/[^a-z0-9]+/g, '-');
}

function titleCase(text) {
  return text.split(' ').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');
}

module.exports = { slugify, titleCase };
"#;

const CACHE: &str = r#"use std::collections::HashMap;

/// A cache that forgets the oldest entry when it is full.
pub struct LruCache {
    capacity: usize,
    entries: HashMap<String, (u64, String)>,
    clock: u64,
}

impl LruCache {
    pub fn get(&mut self, key: &str) -> Option<&String> {
        self.clock += 1;
        let clock = self.clock;
        self.entries.get_mut(key).map(|e| {
            e.0 = clock;
            &e.1
        })
    }

    pub fn evict_oldest(&mut self) {
        if let Some(k) = self.entries.iter().min_by_key(|(_, v)| v.0).map(|(k, _)| k.clone()) {
            self.entries.remove(&k);
        }
    }
}
"#;

const QUERIES: [&str; 3] = ["convert an amount between currencies", "slugify", "evict the oldest cache entry"];

/// A small project indexed in two runs (two commits): segments, deletes and
/// a graph updated in place, as a real index holds them.
fn project(semantic: bool) -> TestRepo {
    let repo = TestRepo::new();
    if !semantic {
        repo.git(&["config", "rag.semantic", "false"]);
    }
    repo.write("money/wallet.py", MONEY);
    repo.write("money/rates.py", RATES);
    repo.write("web/slug.js", SLUG);
    repo.commit("first");
    repo.rag_ok(&["index", "-q"]);
    repo.write("cache/lru.rs", CACHE);
    repo.write("README.md", "# Tools\n\nMoney conversion, slugs and a cache.\n\n## Money\n\nWallets convert with `lookup_rate`.\n");
    repo.write("web/slug.js", SLUG.replace("trim()", "trim().normalize('NFKD')"));
    repo.commit("second");
    repo.rag_ok(&["index", "-q"]);
    repo
}

type Answers = Vec<Result<Vec<(String, u64, u64)>, String>>;

/// Each query's hits, then the history's answer to one question (commit ids as paths).
fn answers(dir: &Path, extra: &[&str]) -> Answers {
    let mut all: Answers = QUERIES
        .iter()
        .map(|q| {
            let mut args = vec!["query", q, "--json", "-n", "8"];
            args.extend_from_slice(extra);
            let out = rag_in(dir, &args);
            if !out.status.success() {
                return Err(stderr(&out));
            }
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string())?;
            Ok(v["results"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|h| (h["path"].as_str().unwrap_or_default().to_string(), h["start_line"].as_u64().unwrap_or(0), h["end_line"].as_u64().unwrap_or(0)))
                .collect())
        })
        .collect();
    let out = rag_in(dir, &["history", "normalize the slug", "--json"]);
    all.push(if out.status.success() {
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).map_err(|e| e.to_string()).unwrap_or_default();
        Ok(v["commits"].as_array().into_iter().flatten().map(|c| (c["id"].as_str().unwrap_or_default().to_string(), 0, 0)).collect())
    } else {
        Err(stderr(&out))
    });
    all
}

/// What is wrong with how a command ended: a panic, an error line too long
/// before its details.
fn problems(what: &str, out: &Output) -> Vec<String> {
    let err = stderr(out);
    let mut found = Vec::new();
    if out.status.code() == Some(101) || err.contains("panicked at") {
        found.push(format!("{what} panicked: {}", err.lines().take(3).collect::<Vec<_>>().join(" / ")));
    }
    for line in err.lines() {
        let before = line.split(" (").next().unwrap_or(line);
        if before.chars().count() > LINE_BEFORE_DETAILS {
            found.push(format!("{what}: a line of {} characters before its details: {line}", before.chars().count()));
        }
    }
    found
}

/// The store files of an index: all but locks and the last run's report.
fn store_files(index_dir: &Path, under: &str) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![index_dir.join(under)];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
                continue;
            }
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_string();
            if name.ends_with(".lock") || name == "last_run.json" || p.starts_with(index_dir.join("vectors")) {
                continue;
            }
            files.push(p.strip_prefix(index_dir).unwrap().to_path_buf());
        }
    }
    files.sort();
    files
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// One damaged file: every command run on it, then the next index; what went wrong.
fn case(work: &Path, pristine: &Path, file: &Path, how: Damage, fresh: &Answers, query_extra: &[&str]) -> Vec<String> {
    let index_dir = work.join(".git/rag");
    let _ = std::fs::remove_dir_all(&index_dir);
    copy_dir(pristine, &index_dir);
    damage(&index_dir.join(file), how);
    let label = format!("{} {how:?}", file.display());
    let mut found = Vec::new();
    for args in [vec!["query", QUERIES[0], "--json"], vec!["status"]] {
        found.extend(problems(&format!("{label}: {args:?}"), &rag_in(work, &args)));
    }
    // A server meets the damage as a query does: an answer or a tool error, then a clean exit.
    let mut mcp = Mcp::start_in(work, &[], &[]);
    mcp.handshake();
    let r = mcp.request("tools/call", json!({"name": "search", "arguments": {"query": QUERIES[2]}}));
    if r.get("result").is_none() && r.get("error").is_none() {
        found.push(format!("{label}: serve answered neither a result nor an error: {r}"));
    }
    mcp.finish();
    let out = rag_in(work, &["index"]);
    found.extend(problems(&format!("{label}: index"), &out));
    if !out.status.success() {
        found.push(format!("{label}: index failed: {}", stderr(&out)));
    }
    let after = answers(work, query_extra);
    if &after != fresh {
        found.push(format!("{label}: after `git rag index` the answers differ from a fresh index's: {after:?}"));
    }
    found
}

/// Runs every (file, damage) case on two copies of the project at once.
fn run_cases(repo: &TestRepo, files: &[PathBuf], fresh: &Answers, query_extra: &[&str]) -> (usize, Vec<String>) {
    let pristine_root = tempfile::tempdir().unwrap();
    let pristine = pristine_root.path().join("rag");
    copy_dir(&repo.default_index_dir(), &pristine);
    let cases: Vec<(PathBuf, Damage)> = files.iter().flat_map(|f| DAMAGES.iter().map(move |d| (f.clone(), *d))).collect();
    let workers = 2;
    let found = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (cases, pristine) = (&cases, &pristine);
                s.spawn(move || {
                    let copy = tempfile::tempdir().unwrap();
                    copy_dir(repo.path(), copy.path());
                    cases.iter().skip(w).step_by(workers).flat_map(|(f, d)| case(copy.path(), pristine, f, *d, fresh, query_extra)).collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().expect("a worker")).collect::<Vec<_>>()
    });
    (cases.len(), found)
}

#[test]
fn any_file_of_the_keyword_graph_and_state_stores_damaged_any_way_heals_on_the_next_index() {
    let repo = project(false);
    let fresh = answers(repo.path(), &[]);
    assert!(fresh.iter().all(|a| a.as_ref().is_ok_and(|hits| !hits.is_empty())), "{fresh:?}");
    let files = store_files(&repo.default_index_dir(), "");
    for store in [".rag_index_state.json", "files.redb", "graph/graph.redb", "keyword/chunks/meta.json", "keyword/symbols/meta.json", "history/meta.json"] {
        assert!(files.iter().any(|f| f == Path::new(store)), "{store} not among {files:?}");
    }
    assert!(files.iter().filter(|f| f.starts_with("keyword/chunks")).count() >= 8, "{files:?}");
    let (cases, found) = run_cases(&repo, &files, &fresh, &[]);
    eprintln!("damage: {} files × {} ways = {cases} cases; {} problems", files.len(), DAMAGES.len(), found.len());
    assert!(found.is_empty(), "{} of {cases} cases went wrong:\n{}", found.len(), found.join("\n"));
}

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn any_file_of_the_vector_store_damaged_any_way_is_filled_again_from_the_cache() {
    require_model();
    let repo = project(true);
    let fresh = answers(repo.path(), &["--mode", "semantic"]);
    assert!(fresh.iter().all(|a| a.as_ref().is_ok_and(|hits| !hits.is_empty())), "{fresh:?}");
    // The collection of chunk vectors: every file of its segment and of one
    // payload field's index (each field's index has the same files; the
    // other three collections are shards of the same kind).
    let files: Vec<PathBuf> = store_files(&repo.default_index_dir(), "qdrant/semantic")
        .into_iter()
        .filter(|f| !f.to_string_lossy().contains("payload_index") || f.to_string_lossy().contains("-path-"))
        .collect();
    assert!(files.iter().any(|f| f.ends_with("mutable_id_tracker.mappings")) && files.iter().any(|f| f.ends_with("edge_config.json")), "{files:?}");
    let (cases, found) = run_cases(&repo, &files, &fresh, &["--mode", "semantic"]);
    eprintln!("damage: {} vector store files × {} ways = {cases} cases; {} problems", files.len(), DAMAGES.len(), found.len());
    assert!(found.is_empty(), "{} of {cases} cases went wrong:\n{}", found.len(), found.join("\n"));
}

#[test]
fn a_heal_killed_midway_is_redone_by_the_next_run() {
    let repo = project(false);
    let fresh = answers(repo.path(), &[]);
    let index_dir = repo.default_index_dir();
    damage(&index_dir.join("graph/graph.redb"), Damage::Zero);
    // A heal marked under way and never finished: the graph and keyword stores count as damaged.
    std::fs::write(index_dir.join("heal.json"), br#"{"stores":["keyword","graph"]}"#).unwrap();
    let v = status_of_damaged(&repo, &[]);
    let damaged: Vec<&str> = v["damaged"].as_array().unwrap().iter().map(|d| d["store"].as_str().unwrap()).collect();
    assert_eq!(damaged, ["keyword", "graph"], "{v}");
    let out = rag_in(repo.path(), &["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("the keyword index is damaged (a rebuild of it was interrupted): rebuilding it"), "{err}");
    assert!(err.contains("the code graph is damaged (a rebuild of it was interrupted): rebuilding it"), "{err}");
    assert!(!index_dir.join("heal.json").exists());
    assert_eq!(answers(repo.path(), &[]), fresh);
    assert!(repo.status(&[])["damaged"].as_array().unwrap().is_empty());
}

#[test]
fn damage_that_keeps_a_files_length_and_time_is_found_by_status_verify_and_healed_by_the_next_index() {
    let repo = project(false);
    let fresh = answers(repo.path(), &[]);
    let index_dir = repo.default_index_dir();
    assert!(index_dir.join("stamps.json").exists(), "a run records the stamps of what it left");
    // An index run checks in full only the stores whose files changed since
    // git-rag left them; bit rot under the file system changes neither length
    // nor time: `status --verify` reads everything.
    let segment = store_files(&index_dir, "keyword/chunks")
        .into_iter()
        .filter(|f| f.extension().is_some_and(|e| e == "idx"))
        .max_by_key(|f| std::fs::metadata(index_dir.join(f)).unwrap().len())
        .unwrap();
    let path = index_dir.join(&segment);
    let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
    damage(&path, Damage::Flip);
    std::fs::File::options().write(true).open(&path).unwrap().set_modified(modified).unwrap();
    let v = status_of_damaged(&repo, &["--verify"]);
    let damaged: Vec<&str> = v["damaged"].as_array().unwrap().iter().map(|d| d["store"].as_str().unwrap()).collect();
    assert_eq!(damaged, ["keyword"], "{v}");
    let out = rag_in(repo.path(), &["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("the keyword index is damaged"), "what a check found is rebuilt by the next run: {}", stderr(&out));
    assert_eq!(answers(repo.path(), &[]), fresh);
    assert!(repo.status(&["--verify"])["damaged"].as_array().unwrap().is_empty());
}

/// `git rag status --json` on an index with damaged stores: it fails (exit
/// 1) with one error line, and its JSON lists them.
fn status_of_damaged(repo: &TestRepo, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["status", "--json"];
    args.extend_from_slice(extra);
    let out = rag_in(repo.path(), &args);
    assert_eq!(out.status.code(), Some(1), "status with damaged stores exits 1: {}", stderr(&out));
    let err = stderr(&out);
    assert!(err.starts_with("git-rag: error: ") && err.trim().lines().count() == 1 && !err.contains("panicked"), "{err}");
    serde_json::from_slice(&out.stdout).expect("status json")
}

#[test]
fn status_lists_a_damaged_files_store_and_fails_instead_of_stopping_at_it() {
    let repo = project(false);
    let fresh = answers(repo.path(), &[]);
    let index_dir = repo.default_index_dir();
    damage(&index_dir.join("files.redb"), Damage::Zero);
    let v = status_of_damaged(&repo, &[]);
    let damaged: Vec<&str> = v["damaged"].as_array().unwrap().iter().map(|d| d["store"].as_str().unwrap()).collect();
    assert_eq!(damaged, ["files"], "{v}");
    assert_eq!(v["counts"]["files"], 0, "nothing is counted from records that do not read back: {v}");
    // The text form lists it too, with the remedy, and fails.
    let out = rag_in(repo.path(), &["status"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.contains("damaged:  the store of per-file records (files.redb) is damaged; run `git rag index` to rebuild the index"), "{text}");
    assert!(text.contains("HEAD:"), "the rest of the status is said: {text}");
    let out = rag_in(repo.path(), &["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(answers(repo.path(), &[]), fresh);
    assert!(repo.status(&[])["damaged"].as_array().unwrap().is_empty());
}
