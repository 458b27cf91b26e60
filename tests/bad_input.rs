//! Bad input gets a clear message and loses nothing.

use std::fs::OpenOptions;

use crate::common::{rag_in, stderr, stdout, TestRepo};

fn small_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("lib/money.py", "def convert_currency(amount, rate):\n    \"\"\"Convert an amount.\"\"\"\n    return amount * rate\n");
    repo.write("lib/util.js", "function slugify(text) {\n  return text.toLowerCase().replace(/ /g, '-');\n}\nmodule.exports = slugify;\n");
    repo.commit("initial");
    repo
}

#[test]
fn corrupt_state_names_the_file_and_the_fix_and_the_next_index_rebuilds() {
    let repo = small_repo();
    repo.rag_ok(&["index"]);
    let state = repo.default_index_dir().join(".rag_index_state.json");
    std::fs::write(&state, b"{\"schema_version\": 1, \"files\": [tru").unwrap();
    for args in [vec!["query", "convert"], vec!["status"]] {
        let out = repo.rag(&args);
        assert!(!out.status.success(), "{args:?} should fail");
        let err = stderr(&out);
        assert!(err.starts_with("git-rag: error: the index state file is damaged; run `git rag index` to rebuild the index ("), "{args:?}: {err}");
        assert!(err.contains(".rag_index_state.json") && err.trim().lines().count() == 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // The fix it names works.
    let out = repo.rag(&["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("the index state file is damaged (") && stderr(&out).contains("rebuilding the index in full"), "{}", stderr(&out));
    assert_eq!(repo.hits("convert_currency", &["--mode", "symbol"])[0].0, "lib/money.py");
}

#[test]
fn state_from_a_newer_version() {
    let repo = small_repo();
    repo.rag_ok(&["index"]);
    let state = repo.default_index_dir().join(".rag_index_state.json");
    std::fs::write(&state, br#"{"schema_version": 7, "last_commit": null, "files": {}, "format": "future"}"#).unwrap();
    let out = repo.rag(&["index"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("schema version 7") && err.contains("newer") && err.contains("git rag index --full"), "{err}");
    repo.rag_ok(&["index", "--full"]);
}

#[test]
fn empty_repository() {
    let repo = TestRepo::new();
    let out = repo.rag(&["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("no commits"), "{}", stderr(&out));
    assert!(stdout(&out).contains("nothing indexed"));
    let status = repo.status(&[]);
    assert!(status["indexed_commit"].is_null() && status["head"].is_null());
    assert_eq!(status["counts"]["files"], 0);
    let out = repo.rag(&["query", "anything"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no index yet"), "{}", stderr(&out));
}

#[test]
fn not_a_repository() {
    let dir = tempfile::tempdir().unwrap();
    let out = rag_in(dir.path(), &["index"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("not inside a git repository"), "{}", stderr(&out));
}

#[test]
fn detached_head() {
    let repo = small_repo();
    repo.write("lib/extra.py", "def extra_feature():\n    pass\n");
    repo.commit("extra");
    repo.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.rag_ok(&["index"]);
    let status = repo.status(&[]);
    assert_eq!(status["indexed_commit"], head.as_str());
    assert_eq!(status["stale"], false);
    assert!(repo.hits("extra_feature", &["--mode", "symbol"]).is_empty());
}

#[test]
fn shallow_clone() {
    let origin = small_repo();
    origin.write("lib/second.py", "def second():\n    pass\n");
    origin.commit("second");
    origin.write("lib/third.py", "def third():\n    pass\n");
    origin.commit("third");
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}", origin.path().display());
    crate::common::git_in(dir.path(), &["clone", "-q", "--depth", "1", &url, "clone"]);
    let clone = dir.path().join("clone");
    assert_eq!(crate::common::git_in(&clone, &["rev-parse", "--is-shallow-repository"]), "true");
    let out = rag_in(&clone, &["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("4 files indexed"), "{}", stdout(&out));
    let out = rag_in(&clone, &["query", "third", "--mode", "symbol", "--json"]);
    assert!(stdout(&out).contains("lib/third.py"));
}

#[test]
fn last_indexed_commit_gone_after_force_push_and_gc() {
    let repo = small_repo();
    repo.write("lib/doomed.py", "def doomed_function():\n    pass\n");
    repo.commit("to be rewritten");
    repo.rag_ok(&["index"]);
    // Rewrite history and collect the old commit, as a force-push + gc would.
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    repo.write("lib/replacement.py", "def replacement_function():\n    pass\n");
    repo.commit("replacement");
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    let out = repo.rag(&["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("no longer in the repository") && stderr(&out).contains("rebuilding the index in full"), "{}", stderr(&out));
    assert!(stdout(&out).contains("(full)"));
    let names: Vec<Option<String>> = repo.hits("doomed_function", &["--mode", "symbol"]).into_iter().map(|h| h.3).collect();
    assert!(!names.contains(&Some("doomed_function".to_string())), "{names:?}");
    assert_eq!(repo.hits("replacement_function", &["--mode", "symbol"])[0].3.as_deref(), Some("replacement_function"));
}

#[test]
fn invalid_utf8_is_indexed_leniently() {
    let repo = TestRepo::new();
    let mut py = b"def latin1_greeting():\n    return '".to_vec();
    py.extend_from_slice(&[0xe9, 0xff, 0xfe]);
    py.extend_from_slice(b"'\n\ndef after_bad_bytes():\n    return 1\n");
    repo.write("bad.py", &py);
    repo.write("notes.md", [b"# Notes\n\nCaf".as_slice(), &[0xe9], b" menu\n"].concat());
    repo.commit("bytes");
    repo.rag_ok(&["index"]);
    let hits = repo.hits("after_bad_bytes", &["--mode", "symbol"]);
    assert_eq!(hits[0], ("bad.py".into(), 4, 5, Some("after_bad_bytes".into())));
    let v = repo.query("latin1_greeting", &["--mode", "symbol"]);
    assert!(v["results"][0]["content"].as_str().unwrap().contains('\u{fffd}'));
    assert_eq!(repo.paths_of("menu", &[])[0], "notes.md");
}

#[test]
fn five_megabyte_file_is_cut_into_line_windows() {
    let repo = TestRepo::new();
    let mut big = String::new();
    let mut line = 0;
    while big.len() < 5 * 1024 * 1024 {
        line += 1;
        big.push_str(&format!("VALUE_{line} = compute({line}, 'padding padding padding padding')\n"));
    }
    big.push_str("needle_at_the_end = True\n");
    let last_line = line + 1;
    repo.write("data/huge.py", &big);
    repo.write("small.py", "def small():\n    pass\n");
    repo.commit("huge");
    repo.rag_ok(&["index"]);
    let hits = repo.hits("needle_at_the_end", &[]);
    let hit = hits.iter().find(|h| h.0 == "data/huge.py").expect("found in the huge file");
    assert!(hit.1 <= last_line as u64 && last_line as u64 <= hit.2, "{hit:?} should cover line {last_line}");
    let v = repo.query("needle_at_the_end", &[]);
    assert_eq!(v["results"][0]["kind"], "window");
}

#[test]
fn binary_symlink_and_submodule_entries_are_skipped() {
    let repo = small_repo();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    png.extend(std::iter::repeat_n(0u8, 64));
    repo.write("assets/logo.png", &png);
    repo.write("data/blob.py", b"def looks_like_python():\0\0\0 binary really\n");
    std::os::unix::fs::symlink("money.py", repo.path().join("lib/link.py")).unwrap();
    repo.git(&["add", "-A"]);
    // A submodule entry (gitlink) without the submodule itself.
    repo.git(&["update-index", "--add", "--cacheinfo", "160000,1111111111111111111111111111111111111111,vendor/lib"]);
    repo.git(&["commit", "-q", "-m", "odd entries"]);
    let out = repo.rag(&["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("2 binary") && err.contains("1 symlinks") && err.contains("1 submodules"), "{err}");
    let files = repo.state_files(&repo.default_index_dir());
    let paths: Vec<&String> = files.as_object().unwrap().keys().collect();
    assert_eq!(paths, vec!["lib/money.py", "lib/util.js"]);
    assert!(repo.hits("looks_like_python", &["--mode", "symbol"]).is_empty());
    // The symlink's target is indexed once, under its own path.
    let hits = repo.hits("convert_currency", &["--mode", "symbol"]);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].0, "lib/money.py");
}

#[test]
fn a_second_indexer_waits_then_gives_up_with_a_message() {
    let repo = small_repo();
    repo.rag_ok(&["index"]);
    repo.write("lib/more.py", "def more():\n    pass\n");
    repo.commit("more");
    let lock = OpenOptions::new().write(true).create(true).truncate(false).open(repo.default_index_dir().join("index.lock")).unwrap();
    lock.lock().unwrap();
    assert_eq!(repo.status(&[])["indexing"], true);
    let out = repo.rag(&["index", "--wait", "0.3"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("another `git rag index` is running"), "{}", stderr(&out));
    lock.unlock().unwrap();
    assert_eq!(repo.status(&[])["indexing"], false);
    repo.rag_ok(&["index"]);
    assert_eq!(repo.hits("more", &["--mode", "symbol"]).len(), 1);
}

/// A run killed after the keyword store committed but before the state was
/// written leaves the store ahead of the state; the next run, to yet another
/// commit, must still end equal to a fresh index.
#[test]
fn crash_between_store_commit_and_state_write() {
    let repo = small_repo();
    repo.rag_ok(&["index"]);
    let before = std::fs::read(repo.default_index_dir().join(".rag_index_state.json")).unwrap();

    // Commit B changes util.js and adds b.py; the run dies after the store commit.
    repo.write("lib/util.js", "function kebabCase(text) {\n  return text;\n}\nmodule.exports = kebabCase;\n");
    repo.write("lib/b.py", "def only_in_b():\n    pass\n");
    repo.commit("B");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_git-rag"))
        .args(["index"])
        .current_dir(repo.path())
        .env("GIT_RAG_FAILPOINT", "after-keyword-commit")
        .output()
        .unwrap();
    assert!(!out.status.success(), "the failpoint kills the run");
    let state: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(repo.default_index_dir().join(".rag_index_state.json")).unwrap()).unwrap();
    let before: serde_json::Value = serde_json::from_slice(&before).unwrap();
    assert_eq!(state["last_commit"], before["last_commit"], "state not advanced");
    let journal = std::fs::read_to_string(repo.default_index_dir().join(".rag_index_pending.json")).expect("journal left behind");
    assert!(journal.contains(&repo.git(&["rev-parse", "HEAD"])), "{journal}");

    // Commit C reverts util.js to A's content (so the A..C diff does not mention it) and drops b.py.
    repo.git(&["checkout", "HEAD~1", "--", "lib/util.js"]);
    repo.remove("lib/b.py");
    repo.commit("C");
    repo.rag_ok(&["index"]);
    assert!(repo.hits("only_in_b", &["--mode", "symbol"]).is_empty());
    assert!(repo.hits("kebabCase", &["--mode", "symbol"]).is_empty(), "B's util.js must not survive");
    assert_eq!(repo.hits("slugify", &["--mode", "symbol"]).len(), 1);

    let fresh = tempfile::tempdir().unwrap();
    let fresh_dir = fresh.path().to_str().unwrap();
    repo.rag_ok(&["index", "--full", "--index-dir", fresh_dir]);
    assert_eq!(repo.state_files(&repo.default_index_dir()), repo.state_files(fresh.path()));
    for q in ["slugify", "convert currency", "kebabCase", "only_in_b"] {
        assert_eq!(repo.query(q, &[]), repo.query(q, &["--index-dir", fresh_dir]), "{q}");
    }
}

/// Macro-heavy C reads as syntax errors to its grammar: the run and the
/// status say which files, how many of their lines were still analysed as
/// code, and a fix drops the file from the list (incremental equals full).
#[test]
fn files_with_syntax_errors_are_named_with_the_share_analysed() {
    let repo = TestRepo::new();
    repo.write("src/clean.c", "int add(int a, int b)\n{\n\treturn a + b;\n}\n");
    let broken = "int first_ok(void)\n{\n\treturn 1;\n}\n\nint broken(int a {\n\treturn a +* ;\n}}\n\nint last_ok(void)\n{\n\treturn 2;\n}\n";
    repo.write("src/broken.c", broken);
    repo.commit("c");
    let out = repo.rag(&["index", "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    // Where the memory went: the process's peak after each step (Linux).
    let peak = |step: &str| report["peak_rss_mb"][step].as_f64().unwrap_or(0.0);
    assert!(peak("parse_chunk_add") > 1.0 && peak("state") >= peak("parse_chunk_add"), "{report}");
    let errors = &report["syntax_errors"];
    assert_eq!((errors["files"].as_u64(), report["files_with_syntax_errors"].as_u64()), (Some(1), Some(1)), "{report}");
    let worst = &errors["worst"][0];
    assert_eq!((worst["path"].as_str(), worst["lines"].as_u64()), (Some("src/broken.c"), Some(13)), "{errors}");
    let error_lines = worst["error_lines"].as_u64().expect("error_lines");
    assert!((1..13).contains(&error_lines), "{errors}");
    let share = errors["analysed_share"].as_f64().expect("share");
    assert!((share - (13 - error_lines) as f64 / 13.0).abs() < 1e-9, "{errors}");
    // The definitions around the error are symbols still.
    assert_eq!(repo.hits("last_ok", &["--mode", "symbol"])[0].0, "src/broken.c");

    let status = repo.status(&[]);
    assert_eq!(status["syntax_errors"], *errors, "the index as a whole, after one full run");
    let text = repo.rag_ok(&["status"]);
    assert!(text.contains("syntax:") && text.contains("src/broken.c"), "{text}");

    // Fixed: an incremental run drops it, as a full run does.
    repo.write("src/broken.c", broken.replace("int broken(int a {\n\treturn a +* ;\n}}", "int broken(int a)\n{\n\treturn a;\n}"));
    repo.commit("fix");
    repo.rag_ok(&["index"]);
    assert!(repo.status(&[])["syntax_errors"].is_null());
    repo.write("src/clean.c", "int add(int a, int b {\n");
    repo.commit("break another");
    repo.rag_ok(&["index"]);
    let incremental = (repo.status(&[])["syntax_errors"].clone(), repo.state_files(&repo.default_index_dir()));
    repo.rag_ok(&["index", "--full"]);
    let full = (repo.status(&[])["syntax_errors"].clone(), repo.state_files(&repo.default_index_dir()));
    assert_eq!(incremental, full);
    assert_eq!(full.0["worst"][0]["path"], "src/clean.c", "{}", full.0);
}
