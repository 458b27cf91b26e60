//! Real clones with objects missing: a blobless partial clone (served over
//! `file://` with `uploadpack.allowFilter`, online and offline) and a loose
//! object deleted from the object database, and a corrupt pack entry. A run finishes, names what it
//! could not read, keeps those files pending, and a later run that can read
//! them equals a fresh index.

use std::path::{Path, PathBuf};

use crate::common::{git_in, rag_in, stderr, stdout, TestRepo};
use serde_json::Value;

fn origin() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app/models.py", "class Invoice:\n    \"\"\"A bill.\"\"\"\n    def total(self):\n        return sum_lines(self.lines)\n");
    repo.write("app/lines.py", "def sum_lines(lines):\n    return sum(l.amount for l in lines)\n");
    repo.write("web/routes.js", "function renderInvoice(req, res) {\n  res.send(total());\n}\nmodule.exports = renderInvoice;\n");
    repo.write("README.md", "# Billing\n\nInvoices and their lines.\n");
    repo.commit("first");
    repo.write("app/tax.py", "def apply_tax(amount, rate):\n    return amount * (1 + rate)\n");
    repo.commit("second");
    repo.git(&["config", "uploadpack.allowFilter", "true"]);
    repo.git(&["config", "uploadpack.allowAnySHA1InWant", "true"]);
    repo
}

fn blobless_clone(origin: &Path, into: &Path) -> PathBuf {
    let url = format!("file://{}", origin.display());
    git_in(into, &["clone", "-q", "--filter=blob:none", "--no-checkout", &url, "clone"]);
    into.join("clone")
}

fn status(dir: &Path, index_dir: &Path) -> Value {
    let out = rag_in(dir, &["--index-dir", &index_dir.display().to_string(), "status", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).expect("status json")
}

/// The per-file records and the keyword answers of an index.
fn contents(dir: &Path, index_dir: &Path) -> (Value, Vec<Value>) {
    let state: Value = git_rag::dump_state(index_dir).expect("state");
    let answers = ["invoice total", "sum_lines", "apply_tax", "renderInvoice"]
        .iter()
        .map(|q| {
            let out = rag_in(dir, &["--index-dir", &index_dir.display().to_string(), "query", q, "--json", "--mode", "keyword", "--at-commit"]);
            let v: Value = serde_json::from_str(&stdout(&out)).expect("query json");
            v["results"].clone()
        })
        .collect();
    (state["files"].clone(), answers)
}

fn index(dir: &Path, index_dir: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--index-dir".to_string(), index_dir.display().to_string(), "index".into(), "--no-semantic".into()];
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    rag_in(dir, &args)
}

#[test]
fn a_blobless_clone_fetches_what_it_lacks_and_indexes_every_file() {
    let origin = origin();
    let tmp = tempfile::tempdir().unwrap();
    let clone = blobless_clone(origin.path(), tmp.path());
    let idx = tmp.path().join("idx");
    let out = index(&clone, &idx, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("partial clone"), "{}", stderr(&out));
    assert!(stdout(&out).contains("5 files indexed"), "{}", stdout(&out));
    let s = status(&clone, &idx);
    assert_eq!(s["counts"]["files"], 5);
    assert_eq!(s["pending"].as_object().map(|p| p.len()), Some(0));
    // The same as an index of the full repository.
    let full_idx = tmp.path().join("full");
    assert!(index(origin.path(), &full_idx, &[]).status.success());
    assert_eq!(contents(&clone, &idx), contents(origin.path(), &full_idx));
}

#[test]
fn an_offline_partial_clone_keeps_files_pending_until_their_blobs_arrive() {
    let origin = origin();
    let tmp = tempfile::tempdir().unwrap();
    let clone = blobless_clone(origin.path(), tmp.path());
    // The promisor remote goes away.
    let away = tmp.path().join("away");
    std::fs::rename(origin.path(), &away).unwrap();
    let idx = tmp.path().join("idx");
    let out = index(&clone, &idx, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("5 files are pending") && err.contains("app/models.py (blob ") && err.contains("git fsck"), "{err}");
    let s = status(&clone, &idx);
    assert_eq!(s["pending"].as_object().map(|p| p.len()), Some(5), "{s}");
    // A run at the same commit, still offline, tries again and says so again.
    let out = index(&clone, &idx, &[]);
    assert!(stderr(&out).contains("5 files are pending"), "{}", stderr(&out));
    // Back online: the pending files are indexed, the index equals a fresh one.
    std::fs::rename(&away, origin.path()).unwrap();
    let out = index(&clone, &idx, &[]);
    assert!(out.status.success() && !stderr(&out).contains("pending"), "{}", stderr(&out));
    assert!(stdout(&out).contains("5 files indexed"), "{}", stdout(&out));
    assert_eq!(status(&clone, &idx)["pending"].as_object().map(|p| p.len()), Some(0));
    let fresh = tmp.path().join("fresh");
    assert!(index(&clone, &fresh, &["--full"]).status.success());
    assert_eq!(contents(&clone, &idx), contents(&clone, &fresh));
}

fn loose_object_path(repo: &TestRepo, spec: &str) -> (String, PathBuf) {
    let id = repo.git(&["rev-parse", spec]);
    let path = repo.path().join(".git/objects").join(&id[..2]).join(&id[2..]);
    assert!(path.exists(), "{spec} is a loose object");
    (id, path)
}

#[test]
fn a_deleted_loose_object_leaves_its_file_pending_and_the_run_finishes() {
    let repo = origin();
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    assert!(index(repo.path(), &idx, &[]).status.success());
    // A rename (detection reads both blobs) and an edit, then the renamed
    // file's new blob is lost.
    repo.git(&["mv", "app/lines.py", "app/line_items.py"]);
    repo.write("app/line_items.py", "def sum_lines(lines):\n    return sum(l.amount for l in lines)\n\n\ndef count_lines(lines):\n    return len(lines)\n");
    repo.write("app/tax.py", "def apply_tax(amount, rate):\n    return round(amount * (1 + rate), 2)\n");
    repo.commit("rename and edit");
    let (id, object) = loose_object_path(&repo, "HEAD:app/line_items.py");
    let saved = std::fs::read(&object).unwrap();
    std::fs::remove_file(&object).unwrap();

    let out = index(repo.path(), &idx, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("app/line_items.py (blob {id})")) && err.contains("git fsck"), "{err}");
    let s = status(repo.path(), &idx);
    assert_eq!(s["pending"]["app/line_items.py"]["blob"], Value::String(id.clone()), "{s}");
    // The rest of the commit is in: the edit, and the old path is gone.
    let files = repo.state_files(&idx);
    assert!(files.get("app/lines.py").is_none() && files.get("app/line_items.py").is_none(), "{files}");
    assert!(files.get("app/tax.py").is_some());

    // The object is back: the next run indexes the file and equals a fresh index.
    std::fs::write(&object, saved).unwrap();
    let out = index(repo.path(), &idx, &[]);
    assert!(out.status.success() && stdout(&out).contains("1 files indexed"), "{}\n{}", stdout(&out), stderr(&out));
    let fresh = tmp.path().join("fresh");
    assert!(index(repo.path(), &fresh, &["--full"]).status.success());
    assert_eq!(contents(repo.path(), &idx), contents(repo.path(), &fresh));
}

#[test]
fn a_corrupt_pack_entry_leaves_its_file_pending_and_the_run_finishes() {
    let repo = origin();
    // A file no other blob resembles, so its pack entry is not a delta.
    let body: String = (0..200).map(|i| format!("def unique_{i}(x):\n    return x * {}\n", i * 7919 % 1000)).collect();
    repo.write("app/unique.py", &body);
    repo.commit("unique");
    repo.git(&["gc", "-q", "--prune=now"]);
    let id = repo.git(&["rev-parse", "HEAD:app/unique.py"]);
    let pack_dir = repo.path().join(".git/objects/pack");
    let idx_file = std::fs::read_dir(&pack_dir).unwrap().map(|e| e.unwrap().path()).find(|p| p.extension().is_some_and(|e| e == "idx")).expect("a pack");
    let pack = idx_file.with_extension("pack");
    // `git verify-pack -v`: "<id> blob <size> <size in pack> <offset>" for a whole (non-delta) entry.
    let listing = repo.git(&["verify-pack", "-v", &idx_file.display().to_string()]);
    let entry: Vec<&str> = listing.lines().find(|l| l.starts_with(&id)).expect("the blob is packed").split_whitespace().collect();
    assert_eq!(entry.len(), 5, "not a delta: {entry:?}");
    let (in_pack, offset): (usize, usize) = (entry[3].parse().unwrap(), entry[4].parse().unwrap());
    let saved = std::fs::read(&pack).unwrap();
    let mut broken = saved.clone();
    for b in &mut broken[offset + in_pack / 2..offset + in_pack / 2 + 16] {
        *b ^= 0x5a;
    }
    // git writes packs read-only: make this one writable for its owner.
    use std::os::unix::fs::PermissionsExt;
    let mut perms = std::fs::metadata(&pack).unwrap().permissions();
    perms.set_mode(perms.mode() | 0o200);
    std::fs::set_permissions(&pack, perms).unwrap();
    std::fs::write(&pack, &broken).unwrap();

    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    let out = index(repo.path(), &idx, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("app/unique.py (blob {id})")), "{err}");
    let files = repo.state_files(&idx);
    assert!(files.get("app/unique.py").is_none() && files.get("app/models.py").is_some(), "{files}");

    // The pack repaired (re-fetched): the next run indexes the file and equals a fresh index.
    std::fs::write(&pack, saved).unwrap();
    let out = index(repo.path(), &idx, &[]);
    assert!(out.status.success() && stdout(&out).contains("1 files indexed"), "{}\n{}", stdout(&out), stderr(&out));
    let fresh = tmp.path().join("fresh");
    assert!(index(repo.path(), &fresh, &["--full"]).status.success());
    assert_eq!(contents(repo.path(), &idx), contents(repo.path(), &fresh));
}
