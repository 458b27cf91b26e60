//! The work tree laid over the index (`crate::worktree`): what an agent is
//! editing answers from the work tree, the index itself never changes, and
//! `--at-commit` answers from the indexed commit alone.

use serde_json::Value;

use crate::common::*;

fn results(v: &Value) -> Vec<Value> {
    v["results"].as_array().cloned().unwrap_or_default()
}

/// (path, source, start line) of each result for `text`.
fn sources(repo: &TestRepo, text: &str, extra: &[&str]) -> Vec<(String, String, u64)> {
    results(&repo.query(text, extra))
        .iter()
        .map(|r| (r["path"].as_str().unwrap_or("").to_string(), r["source"].as_str().unwrap_or("").to_string(), r["start_line"].as_u64().unwrap_or(0)))
        .collect()
}

fn indexed_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write(".gitignore", "build/\n");
    repo.write("src/alpha.py", "def alpha_parser(text):\n    \"\"\"Parse the alpha header.\"\"\"\n    return text.split(':')\n");
    repo.write("src/beta.py", "def beta_renderer(tree):\n    return str(tree)\n");
    repo.write("src/data.txt", "plain notes about the quarterly ledger\n");
    repo.commit("base");
    repo.rag_ok(&["index", "-q"]);
    repo
}

#[test]
fn edits_new_files_and_deletions_answer_from_the_work_tree() {
    let repo = indexed_repo();
    let state_before = repo.state_files(&repo.default_index_dir());
    // Edited: a new function below two new lines; deleted; new and untracked; ignored.
    repo.write(
        "src/alpha.py",
        "import re\n\n\ndef alpha_parser(text):\n    \"\"\"Parse the alpha header.\"\"\"\n    return text.split(':')\n\n\ndef gamma_tokenizer(text):\n    return re.findall(r'\\w+', text)\n",
    );
    repo.remove("src/beta.py");
    repo.write("src/delta.py", "def delta_scheduler(jobs):\n    return sorted(jobs)\n");
    repo.write("build/out.py", "def ignored_builder():\n    return 1\n");

    let gamma = sources(&repo, "gamma_tokenizer", &[]);
    assert_eq!(gamma.first().map(|h| (h.0.as_str(), h.1.as_str(), h.2)), Some(("src/alpha.py", "worktree", 9)), "{gamma:?}");
    // Lines of an edited file are the work tree's.
    let alpha = sources(&repo, "alpha_parser", &[]);
    assert_eq!(alpha.first().map(|h| (h.0.as_str(), h.2)), Some(("src/alpha.py", 4)), "{alpha:?}");
    assert!(sources(&repo, "beta_renderer", &[]).iter().all(|h| h.0 != "src/beta.py"), "a deleted file answers nothing");
    let delta = sources(&repo, "delta_scheduler", &[]);
    assert_eq!(delta.first().map(|h| (h.0.as_str(), h.1.as_str())), Some(("src/delta.py", "worktree")), "{delta:?}");
    assert!(sources(&repo, "ignored_builder", &[]).iter().all(|h| h.0 != "build/out.py"), "ignored files are not searched");
    // An unchanged file answers from the index.
    let data = sources(&repo, "quarterly ledger", &[]);
    assert_eq!(data.first().map(|h| (h.0.as_str(), h.1.as_str())), Some(("src/data.txt", "commit")), "{data:?}");
    // Every mode sees the layer; symbol lookups too.
    let sym = sources(&repo, "gamma_tokenizer", &["--mode", "symbol"]);
    assert_eq!(sym.first().map(|h| h.1.as_str()), Some("worktree"), "{sym:?}");
    let files = repo.query("gamma_tokenizer", &["--files"]);
    assert_eq!(files["files"][0]["path"], "src/alpha.py", "{files}");

    // --at-commit: the indexed commit alone.
    let at = sources(&repo, "beta_renderer", &["--at-commit"]);
    assert_eq!(at.first().map(|h| (h.0.as_str(), h.1.as_str())), Some(("src/beta.py", "commit")), "{at:?}");
    let at = sources(&repo, "gamma_tokenizer", &["--at-commit"]);
    assert!(at.iter().all(|h| h.1 == "commit") && !at.iter().any(|h| h.0 == "src/alpha.py" && h.2 == 9), "{at:?}");

    // Text output marks work-tree results; stderr says what the layer holds.
    let out = repo.rag(&["query", "gamma_tokenizer"]);
    assert!(stdout(&out).lines().next().is_some_and(|l| l.starts_with("src/alpha.py:9-") && l.contains("work tree")), "{}", stdout(&out));
    assert!(stderr(&out).contains("searching the work tree too: 3 files differ"), "{}", stderr(&out));
    // `git rag status` lists the layer.
    let listed: Vec<(String, String)> = repo.status(&[])["worktree"]["files"]
        .as_array()
        .expect("worktree files")
        .iter()
        .map(|f| (f["path"].as_str().unwrap_or("").to_string(), f["change"].as_str().unwrap_or("").to_string()))
        .collect();
    let want = [("src/alpha.py", "modified"), ("src/beta.py", "deleted"), ("src/delta.py", "added")];
    assert_eq!(listed, want.map(|(p, c)| (p.to_string(), c.to_string())));
    // The index itself did not move.
    assert_eq!(repo.state_files(&repo.default_index_dir()), state_before);
    assert_eq!(repo.status(&[])["indexed_commit"], repo.git(&["rev-parse", "HEAD"]));
}

/// The layer a query analysed is kept beside the index for the next
/// process: the next query opens it (the same answers), an edit makes
/// another, and a damaged one is built again without a word of difference.
#[test]
fn the_analysed_layer_is_kept_for_the_next_query_and_rebuilt_when_damaged() {
    let repo = indexed_repo();
    repo.write("src/alpha.py", "def alpha_parser(text):\n    return gamma_tokenizer(text)\n\n\ndef gamma_tokenizer(text):\n    return text.split()\n");
    repo.write("src/delta.py", "def delta_scheduler(jobs):\n    return sorted(jobs)\n");
    let kept = repo.default_index_dir().join("worktree-layer");
    let answers = |repo: &TestRepo| -> Vec<Value> {
        let mut all: Vec<Value> = ["gamma_tokenizer", "delta scheduler jobs", "alpha header"].iter().flat_map(|q| results(&repo.query(q, &[]))).collect();
        all.extend(results(&repo.query("who calls gamma_tokenizer", &["--mode", "graph", "--relation", "callers"])));
        all
    };
    let first = answers(&repo);
    assert!(first.iter().any(|r| r["symbol"] == "alpha_parser" && r["source"] == "worktree"), "{first:?}");
    let key = std::fs::read_to_string(kept.join("key")).expect("the layer is kept");
    // The layer's graph is kept with it.
    let graph_files = |kept: &std::path::Path| -> Vec<std::path::PathBuf> {
        std::fs::read_dir(kept)
            .expect("kept")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("graph-")))
            .collect()
    };
    assert_eq!(graph_files(&kept).len(), 1);
    assert_eq!(answers(&repo), first, "the kept layer answers as the one built");
    assert_eq!(std::fs::read_to_string(kept.join("key")).expect("key"), key, "and is not written again");
    // A damaged graph is made again.
    for path in graph_files(&kept) {
        let mut bytes = std::fs::read(&path).expect("read");
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&path, bytes).expect("damage");
    }
    assert_eq!(answers(&repo), first, "a damaged kept graph is made again");
    // An edit: another layer, kept in place of the last.
    repo.write("src/delta.py", "def delta_scheduler(jobs):\n    return sorted(jobs, reverse=True)\n");
    let edited = answers(&repo);
    assert_ne!(std::fs::read_to_string(kept.join("key")).expect("key"), key);
    // Damaged analyses, then damaged index files: built again, the same answers.
    std::fs::write(kept.join("analyses.bin"), b"not an analysis").expect("damage");
    assert_eq!(answers(&repo), edited);
    // A segment's files, not the list of them: the layer still opens, its checksums fail.
    for entry in std::fs::read_dir(kept.join("chunks")).expect("chunks").flatten().filter(|e| !e.file_name().to_string_lossy().ends_with(".json")) {
        let mut bytes = std::fs::read(entry.path()).expect("read");
        if bytes.is_empty() {
            continue;
        }
        let middle = bytes.len() / 2;
        bytes[middle] ^= 0xff;
        std::fs::write(entry.path(), bytes).expect("damage");
    }
    assert_eq!(answers(&repo), edited);
    assert!(
        std::fs::read_dir(repo.default_index_dir()).expect("index").flatten().all(|e| !e.file_name().to_string_lossy().ends_with(".new")),
        "no half-written layer is left"
    );
}

/// Graph questions over the layer: a caller written in the work tree is a
/// caller, one deleted is not, a new function's callees and an edited
/// file's imports are the work tree's; `--at-commit` answers from the
/// indexed commit's graph; a context cites the work tree's definitions.
#[test]
fn graph_questions_follow_the_work_tree() {
    let repo = TestRepo::new();
    repo.write("lib/core.py", "def target_fn(x):\n    return x + 1\n\n\ndef old_caller():\n    return target_fn(2)\n");
    repo.write("lib/user.py", "from lib.core import target_fn\n\n\ndef b_user():\n    return target_fn(3)\n");
    repo.commit("base");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let graph = |text: &str, extra: &[&str]| -> Vec<(String, String, String)> {
        results(&repo.query(text, &[&["--mode", "graph"][..], extra].concat()))
            .iter()
            .map(|r| {
                (r["path"].as_str().unwrap_or("").to_string(), r["symbol"].as_str().unwrap_or("").to_string(), r["source"].as_str().unwrap_or("").to_string())
            })
            .collect()
    };
    let callers = |extra: &[&str]| -> Vec<String> {
        graph("who calls target_fn", &[&["--relation", "callers"][..], extra].concat()).into_iter().map(|h| h.1).filter(|s| s != "target_fn").collect()
    };
    assert_eq!(callers(&[]), ["old_caller", "b_user"]);

    // A new file calls it; the old user no longer does; a new helper in the edited file.
    repo.write("lib/extra.py", "from lib.core import target_fn\n\n\ndef new_caller():\n    return target_fn(4) + helper()\n\n\ndef helper():\n    return 0\n");
    repo.write("lib/user.py", "def b_user():\n    return 3\n");
    assert_eq!(callers(&[]), ["old_caller", "new_caller"]);
    let callees = graph("what does new_caller call", &["--relation", "callees"]);
    let names: Vec<(&str, &str)> = callees.iter().map(|h| (h.1.as_str(), h.2.as_str())).collect();
    assert!(names.contains(&("target_fn", "commit")) && names.contains(&("helper", "worktree")), "{callees:?}");
    let importers = graph("who imports core.py", &["--relation", "importers"]);
    assert_eq!(importers.iter().map(|h| h.0.as_str()).filter(|p| *p != "lib/core.py").collect::<Vec<_>>(), ["lib/extra.py"], "{importers:?}");
    // A context's definitions and file notes come from the layer's graph.
    let context = repo.rag_ok(&["query", "new_caller", "--context"]);
    let definitions = context.split("## Definitions").nth(1).and_then(|s| s.split("\n## ").next()).unwrap_or("");
    assert!(definitions.contains("`lib/extra.py:8-8` — `helper`") && definitions.contains("`target_fn`"), "{context}");
    assert!(context.contains("imports: lib/core.py"), "{context}");
    // The indexed commit's graph, as it was.
    assert_eq!(callers(&["--at-commit"]), ["old_caller", "b_user"]);
    // A deleted file's definitions leave the graph with it.
    repo.remove("lib/core.py");
    assert!(graph("who calls target_fn", &["--relation", "callers"]).is_empty());
}

/// Dense search over the layer: what the work tree holds is found by
/// meaning with the similarities a fresh index of the same tree gives, and
/// the commit of those edits embeds nothing again.
/// A result: path, start and end line, score to 4 digits.
type Located = (String, u64, u64, String);
/// A question's results and where each came from (`commit`, `worktree`).
type Answer = (Vec<Located>, Vec<String>);

#[test]
#[ignore = "needs the embedding model (`git rag model install`); scripts/test.sh runs it"]
fn the_layer_is_searched_by_meaning_and_its_vectors_are_kept_for_the_commit() {
    require_model();
    let repo = indexed_repo();
    repo.write("src/export.py", "def export_invoices_csv(invoices, path):\n    \"\"\"Write invoices to a CSV file.\"\"\"\n    with open(path, 'w') as fh:\n        fh.write('\\n'.join(map(str, invoices)))\n");
    repo.write("src/alpha.py", "def alpha_parser(text):\n    \"\"\"Parse the alpha header into its name and value.\"\"\"\n    name, value = text.split(':', 1)\n    return name.strip(), value.strip()\n");
    repo.remove("src/beta.py");
    // A damaged file of kept vectors is only a cache: read as empty, then rewritten.
    std::fs::write(repo.default_index_dir().join("worktree-vectors.bin"), b"\x01not bincode").expect("write");
    let questions = ["write invoices to a csv file", "split a header into name and value", "render a tree as text"];
    // (path, lines, similarity to 4 digits) of each answer, and its sources.
    let answers = |mode: &str| -> Vec<Answer> {
        questions
            .iter()
            .map(|q| {
                let rs = results(&repo.query(q, &["--mode", mode, "-n", "5"]));
                let hits = rs
                    .iter()
                    .map(|r| {
                        (
                            r["path"].as_str().unwrap_or("").to_string(),
                            r["start_line"].as_u64().unwrap_or(0),
                            r["end_line"].as_u64().unwrap_or(0),
                            format!("{:.4}", r["score"].as_f64().unwrap_or(0.0)),
                        )
                    })
                    .collect();
                (hits, rs.iter().map(|r| r["source"].as_str().unwrap_or("").to_string()).collect())
            })
            .collect()
    };
    let semantic = answers("semantic");
    let hybrid = answers("hybrid");
    let (first, sources) = &semantic[0];
    assert_eq!((first[0].0.as_str(), sources[0].as_str()), ("src/export.py", "worktree"), "{semantic:?}");
    assert!(semantic.iter().all(|(hits, _)| hits.iter().all(|h| h.0 != "src/beta.py")), "a deleted file is not found by meaning: {semantic:?}");
    assert!(repo.default_index_dir().join("worktree-vectors.bin").exists(), "the vectors embedded for the work tree are kept");

    repo.commit("the edits");
    let out = repo.rag(&["index", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("index json");
    assert_eq!(report["embedded"], 0, "a query embedded these texts already: {report}");
    assert!(report["semantic"]["from_worktree"].as_u64().is_some_and(|n| n > 0), "{report}");
    assert!(!repo.default_index_dir().join("worktree-vectors.bin").exists(), "taken into the vector cache");
    // A fresh index of that tree answers as the layer did: the same results
    // in the same order, the same similarities but for the last float bit
    // (the layer's cosine is computed here, the index's by Qdrant: 0.6611501
    // and 0.6611499 print differently at 4 digits).
    let same = |now: Vec<Answer>, then: &[Answer]| {
        for ((a, _), (b, _)) in now.iter().zip(then) {
            let key = |h: &Located| (h.0.clone(), h.1, h.2);
            assert_eq!(a.iter().map(key).collect::<Vec<_>>(), b.iter().map(key).collect::<Vec<_>>());
            for (x, y) in a.iter().zip(b) {
                let (x, y): (f64, f64) = (x.3.parse().expect("score"), y.3.parse().expect("score"));
                assert!((x - y).abs() <= 1.5e-4, "{a:?} vs {b:?}");
            }
        }
    };
    same(answers("semantic"), &semantic);
    same(answers("hybrid"), &hybrid);
}

#[test]
fn a_commit_moves_the_base_and_the_layer_empties() {
    let repo = indexed_repo();
    repo.write("src/beta.py", "def beta_renderer(tree):\n    return repr(tree)\n\n\ndef epsilon_walker(tree):\n    return list(tree)\n");
    assert_eq!(sources(&repo, "epsilon_walker", &[]).first().map(|h| h.1.clone()), Some("worktree".to_string()));
    repo.commit("epsilon");
    // Not indexed yet: the commit is still in the layer (against the indexed commit).
    assert_eq!(sources(&repo, "epsilon_walker", &[]).first().map(|h| h.1.clone()), Some("worktree".to_string()));
    repo.rag_ok(&["index", "-q"]);
    let out = repo.rag(&["query", "epsilon_walker", "--json"]);
    assert!(!stderr(&out).contains("work tree"), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!((v["results"][0]["path"].as_str(), v["results"][0]["source"].as_str()), (Some("src/beta.py"), Some("commit")), "{v}");
    // Staged, then put back as it was: content decides, nothing is laid over.
    repo.write("src/data.txt", "changed\n");
    repo.git(&["add", "src/data.txt"]);
    repo.git(&["checkout", "HEAD", "--", "src/data.txt"]);
    let out = repo.rag(&["query", "quarterly ledger"]);
    assert!(!stderr(&out).contains("work tree"), "{}", stderr(&out));
}

/// A query process skips comparing the indexed tree with git's index file
/// when the file's cache of tree ids (written by `git commit`) says it holds
/// that tree. A staged edit whose work-tree file is the staged one shows
/// only in that comparison: it is laid over, before and after `git commit`
/// (the index then holds a tree other than the indexed one).
#[test]
fn a_staged_edit_is_laid_over_while_the_work_tree_matches_the_index() {
    let repo = indexed_repo();
    repo.write("src/beta.py", "def beta_renderer(tree):\n    return str(tree)\n\n\ndef zeta_stager(tree):\n    return sorted(tree)\n");
    repo.git(&["add", "src/beta.py"]);
    let first = |repo: &TestRepo| sources(repo, "zeta_stager", &[]).first().map(|h| (h.0.clone(), h.1.clone()));
    assert_eq!(first(&repo), Some(("src/beta.py".to_string(), "worktree".to_string())));
    repo.commit("zeta");
    assert_eq!(first(&repo), Some(("src/beta.py".to_string(), "worktree".to_string())));
    repo.rag_ok(&["index", "-q"]);
    assert_eq!(first(&repo), Some(("src/beta.py".to_string(), "commit".to_string())));
}

#[test]
fn path_rules_binaries_and_symlinks_in_the_work_tree() {
    let repo = indexed_repo();
    repo.git(&["config", "rag.exclude", "gen/**"]);
    repo.rag_ok(&["index", "-q"]);
    repo.write("gen/table.py", "def zeta_generated():\n    return 0\n");
    assert!(sources(&repo, "zeta_generated", &[]).iter().all(|h| h.0 != "gen/table.py"), "rag.exclude holds for the work tree");
    // A text file that became binary: left out, and its indexed text with it.
    repo.write("src/data.txt", b"\x00\x01\x02ledger\x00".as_slice());
    let out = repo.rag(&["query", "quarterly ledger", "--json"]);
    assert!(stderr(&out).contains("src/data.txt: not searched (binary)"), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert!(results(&v).iter().all(|r| r["path"] != "src/data.txt"), "{v}");
    // A symlink out of the tree is not followed.
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret.py"), "def eta_outside():\n    return 1\n").expect("write");
        std::os::unix::fs::symlink(outside.path().join("secret.py"), repo.path().join("src/link.py")).expect("symlink");
        assert!(sources(&repo, "eta_outside", &[]).iter().all(|h| h.0 != "src/link.py"));
    }
}

/// `git rag serve --mcp` watches the work tree: each answer follows the
/// saves, deletions and reverts made before it, without walking the tree
/// when nothing moved.
#[test]
fn a_served_layer_follows_saves_deletions_and_reverts() {
    let repo = indexed_repo();
    let alpha = std::fs::read_to_string(repo.path().join("src/alpha.py")).expect("alpha.py");
    let mut mcp = crate::mcp::Mcp::start(&repo, &["--lazy"]);
    mcp.handshake();
    let first = |mcp: &mut crate::mcp::Mcp, text: &str| -> Vec<(String, String)> {
        let v = mcp.tool("search", serde_json::json!({"query": text, "mode": "keyword"}));
        results(&v).iter().map(|r| (r["path"].as_str().unwrap_or("").to_string(), r["source"].as_str().unwrap_or("").to_string())).collect()
    };
    assert!(first(&mut mcp, "gamma_tokenizer").is_empty());
    repo.write("src/alpha.py", format!("{alpha}\n\ndef gamma_tokenizer(text):\n    return text.split()\n"));
    assert_eq!(first(&mut mcp, "gamma_tokenizer").first(), Some(&("src/alpha.py".to_string(), "worktree".to_string())));
    // The symbols tool reads the same layer.
    let defs = mcp.tool("symbols", serde_json::json!({"name": "gamma_tokenizer"}));
    assert_eq!(
        (&defs["definitions"][0]["path"], &defs["definitions"][0]["source"]),
        (&serde_json::json!("src/alpha.py"), &serde_json::json!("worktree")),
        "{defs}"
    );
    // Nothing moved: the same answer.
    assert_eq!(first(&mut mcp, "gamma_tokenizer").first(), Some(&("src/alpha.py".to_string(), "worktree".to_string())));
    // Put back as indexed: the index answers again.
    repo.write("src/alpha.py", &alpha);
    assert!(first(&mut mcp, "gamma_tokenizer").is_empty());
    assert_eq!(first(&mut mcp, "alpha_parser").first(), Some(&("src/alpha.py".to_string(), "commit".to_string())));
    // Deleted, then restored.
    repo.remove("src/beta.py");
    assert!(first(&mut mcp, "beta_renderer").iter().all(|h| h.0 != "src/beta.py"));
    repo.git(&["checkout", "--", "src/beta.py"]);
    assert_eq!(first(&mut mcp, "beta_renderer").first(), Some(&("src/beta.py".to_string(), "commit".to_string())));
    // A new folder of new files, and an ignored one.
    repo.write("src/jobs/queue.py", "def theta_enqueue(job):\n    return [job]\n");
    repo.write("build/gen.py", "def iota_generated():\n    return 0\n");
    assert_eq!(first(&mut mcp, "theta_enqueue").first(), Some(&("src/jobs/queue.py".to_string(), "worktree".to_string())));
    assert!(first(&mut mcp, "iota_generated").is_empty());
    mcp.finish();
}

/// An index kept in the work tree (`--index-dir`) is not an edit of it.
#[test]
fn an_index_dir_inside_the_work_tree_is_not_laid_over() {
    let repo = indexed_repo();
    repo.rag_ok(&["--index-dir", "rag-index", "index", "-q"]);
    let out = repo.rag(&["--index-dir", "rag-index", "query", "quarterly ledger"]);
    assert!(out.status.success() && !stderr(&out).contains("work tree"), "{}", stderr(&out));
    let status: Value = serde_json::from_str(&repo.rag_ok(&["--index-dir", "rag-index", "status", "--json"])).expect("status");
    assert_eq!(status["worktree"]["files"], serde_json::json!([]), "{status}");
}

/// A tiny deterministic generator: the same edits every run.
struct Lcg(u64);
impl Lcg {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n.max(1) as u64) as usize
    }
}

/// One random change of the work tree: an edit (lines dropped, another
/// file's code appended), a new file, a deletion or a rename.
fn random_change(rng: &mut Lcg, work: &std::path::Path, files: &mut Vec<String>, step: usize) {
    let read = |p: &str| std::fs::read_to_string(work.join(p)).unwrap_or_default();
    let path = files[rng.pick(files.len())].clone();
    match rng.pick(4) {
        0 => {
            let mut lines: Vec<String> = read(&path).lines().map(str::to_string).collect();
            let at = rng.pick(lines.len());
            lines.drain(at..(at + 1 + rng.pick(8)).min(lines.len()));
            let donor = read(&files[rng.pick(files.len())]);
            let tail: Vec<&str> = donor.lines().skip(rng.pick(donor.lines().count())).take(30).collect();
            std::fs::write(work.join(&path), format!("{}\n\n{}\n", lines.join("\n"), tail.join("\n"))).expect("edit");
        }
        1 => {
            let new = format!("pydantic/added_{step}.py");
            std::fs::create_dir_all(work.join("pydantic")).expect("dir");
            std::fs::write(work.join(&new), read(&path)).expect("add");
            files.push(new);
        }
        2 if files.len() > 5 => {
            std::fs::remove_file(work.join(&path)).expect("delete");
            files.retain(|f| f != &path);
        }
        _ => {
            let new = format!("{}_renamed_{step}.py", path.trim_end_matches(".py"));
            std::fs::rename(work.join(&path), work.join(&new)).expect("rename");
            files.retain(|f| f != &path);
            files.push(new);
        }
    }
}

/// What a query answers, without where each result came from or timings.
fn comparable_answers(dir: &std::path::Path, index: &std::path::Path, extra: &[&str]) -> Vec<Vec<(String, u64, u64, String, String)>> {
    const QUERIES: &[&str] = &[
        "validator",
        "BaseModel",
        "parse_obj",
        "json schema of a model",
        "field alias",
        "error wrappers",
        "extra fields forbidden",
        "custom root type",
        "dataclass",
        "validate_email",
    ];
    // Graph questions: callers, callees and importers through the files the changes touch.
    const GRAPH: &[&str] = &[
        "who calls validate_model",
        "what does validate_model call",
        "who calls smart_deepcopy",
        "what does parse_obj call",
        "who imports fields.py",
        "who calls lenient_issubclass",
        "what calls create_model",
    ];
    let idx = index.to_str().expect("utf-8");
    let mut out = Vec::new();
    let asked = QUERIES.iter().flat_map(|q| ["keyword", "symbol", "hybrid"].map(|m| (*q, m))).chain(GRAPH.iter().map(|q| (*q, "graph")));
    for (q, mode) in asked {
        {
            let text = String::from_utf8_lossy(
                &rag_in(dir, &[&["query", q, "--json", "--limit", "10", "--mode", mode, "--index-dir", idx][..], extra].concat()).stdout,
            )
            .into_owned();
            let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{q} {mode}: {e}: {text}"));
            out.push(
                results(&v)
                    .iter()
                    .map(|r| {
                        let s = r["path"].as_str().unwrap_or("").to_string();
                        // Scores to 5 significant digits: the sums run in another order.
                        (
                            s,
                            r["start_line"].as_u64().unwrap_or(0),
                            r["end_line"].as_u64().unwrap_or(0),
                            r["symbol"].to_string(),
                            format!("{:.5e}", r["score"].as_f64().unwrap_or(0.0)),
                        )
                    })
                    .collect(),
            );
        }
    }
    out
}

/// Random edits, new files, deletions and renames of a real corpus (the
/// eval kit's pydantic release): the keyword, symbol, hybrid and graph
/// answers with the work tree laid over the index equal those of a fresh
/// index of a commit of the same tree — hits, lines and scores.
#[test]
#[ignore = "needs the pydantic-chain corpus (GIT_RAG_EVAL_CORPORA); scripts/test.sh builds it and runs it"]
fn the_layer_answers_as_a_fresh_index_of_the_same_tree() {
    let root = crate::common::require_corpora();
    let corpus = std::path::Path::new(&root).join("pydantic-chain");
    assert!(corpus.join(".git").exists(), "no pydantic-chain corpus at {}", corpus.display());
    let scratch = tempfile::tempdir().expect("tempdir");
    let work = scratch.path().join("work");
    git_in(scratch.path(), &["clone", "-q", corpus.to_str().expect("utf-8"), "work"]);
    let index = scratch.path().join("index");
    rag_in(&work, &["index", "-q", "--no-semantic", "--index-dir", index.to_str().expect("utf-8")]);
    let mut files: Vec<String> = git_in(&work, &["ls-files", "*.py"]).lines().map(str::to_string).collect();
    assert!(files.len() > 20, "{files:?}");
    let mut rng = Lcg(0x5eed);
    // Rounds of four changes each.
    for round in 0..4 {
        for step in 0..4 {
            random_change(&mut rng, &work, &mut files, round * 10 + step);
        }
        let layered = comparable_answers(&work, &index, &[]);
        // The same tree committed in a copy, indexed from scratch.
        let fresh = scratch.path().join(format!("fresh{round}"));
        let copied = std::process::Command::new("cp").args(["-r", work.to_str().expect("utf-8"), fresh.to_str().expect("utf-8")]).status().expect("cp");
        assert!(copied.success());
        git_in(&fresh, &["add", "-A"]);
        git_in(&fresh, &["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "the work tree"]);
        let fresh_index = scratch.path().join(format!("fresh-index{round}"));
        rag_in(&fresh, &["index", "-q", "--no-semantic", "--index-dir", fresh_index.to_str().expect("utf-8")]);
        let expected = comparable_answers(&fresh, &fresh_index, &["--at-commit"]);
        for (i, (got, want)) in layered.iter().zip(&expected).enumerate() {
            assert_eq!(got, want, "round {round}, answer {i}");
        }
    }
}
