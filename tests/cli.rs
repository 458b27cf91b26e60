//! The command line as a new user meets it: a reader that stops early, help
//! and man pages through git, the language list, the query filters, a large
//! file's symbols, and the process policy that is the binary's, not the
//! library's.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::{git_in, rag_env, stderr, stdout, test_git_env, TestRepo};
use serde_json::Value;

/// A repository with a few languages, indexed without vectors (fast).
fn small_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("pkg/session.py", "class Session:\n    \"\"\"Keeps cookies across requests.\"\"\"\n\n    def send(self, request):\n        return persist_cookies(request)\n\n\ndef persist_cookies(request):\n    \"\"\"Write the session cookies to disk.\"\"\"\n    return request\n");
    repo.write("pkg/vendored/session.py", "def persist_cookies(request):\n    \"\"\"A vendored copy that writes cookies.\"\"\"\n    return request\n");
    repo.write("lib/cookies.rb", "module Cookies\n  # Persist the session cookies.\n  def persist_cookies(jar)\n    jar\n  end\nend\n");
    repo.write("cmd/cookies.go", "package cmd\n\n// PersistCookies writes the session cookies.\nfunc PersistCookies(jar string) string {\n\treturn jar\n}\n");
    repo.write("src/cookies.lua", "-- persist the session cookies\nlocal function persist_cookies(jar)\n  return jar\nend\n");
    repo.write("README.md", "# Cookies\n\nThe session persists cookies.\n");
    repo.commit("one");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    repo
}

/// Runs git-rag with its stdout a pipe whose reader is already gone.
fn with_closed_stdout(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_git-rag"))
        .args(args)
        .current_dir(dir)
        .env_remove("GIT_RAG_DIR")
        .env_remove("QDRANT_URL")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git-rag starts");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("git-rag ends");
    (out.status.code(), stderr(&out))
}

#[test]
fn a_reader_that_stops_early_ends_every_command_quietly() {
    let repo = small_repo();
    let commands: [&[&str]; 9] = [
        &["query", "persist cookies"],
        &["query", "persist cookies", "--json"],
        &["query", "persist cookies", "--files"],
        &["query", "persist cookies", "--context"],
        &["query", "persist_cookies", "--mode", "symbol"],
        &["status"],
        &["patterns", "--json"],
        &["hooks", "status"],
        &["dump-graph"],
    ];
    for args in commands {
        let (code, err) = with_closed_stdout(repo.path(), args);
        assert!(!err.contains("panicked") && !err.contains("Broken pipe") && !err.contains("error"), "{args:?} said: {err}");
        // The status a shell shows for `git log | head` (128 + SIGPIPE).
        assert_eq!(code, Some(141), "{args:?}: {err}");
    }
    // With a reader that reads everything, the same commands succeed.
    assert!(repo.rag_ok(&["query", "persist cookies"]).contains("persist_cookies"));
}

/// `git rag …` as git runs it: git-rag found on PATH.
fn git_rag_via_git(bin_dir: &Path, dir: &Path, args: &[&str]) -> std::process::Output {
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap_or_default());
    let mut cmd = Command::new("git");
    test_git_env(cmd.arg("rag").args(args).current_dir(dir).env("PATH", path).env("MANPAGER", "cat").env("PAGER", "cat").env("MANWIDTH", "100"));
    cmd.env_remove("MANPATH").output().expect("git runs")
}

#[test]
fn help_works_through_git_with_and_without_man_pages() {
    let repo = TestRepo::new();
    let prefix = tempfile::tempdir().expect("tempdir");
    let bin = prefix.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_git-rag"), bin.join("git-rag")).expect("symlink");

    // `git rag help` needs no man page.
    let out = git_rag_via_git(&bin, repo.path(), &["help"]);
    assert!(out.status.success(), "{}", stderr(&out));
    for word in ["index", "query", "serve", "status"] {
        assert!(stdout(&out).contains(word), "`git rag help` lacks {word}: {}", stdout(&out));
    }
    let out = git_rag_via_git(&bin, repo.path(), &["help", "query"]);
    assert!(out.status.success() && stdout(&out).contains("--exclude"), "{}", stdout(&out));

    // Man pages, written where man finds them for a binary in <prefix>/bin
    // (as scripts/install.sh does for ~/.cargo/bin).
    let man1 = prefix.path().join("share/man/man1");
    let out = rag_env(repo.path(), &["man", "--dir", man1.to_str().expect("utf-8")], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    for page in ["git-rag.1", "git-rag-query.1", "git-rag-index.1", "git-rag-serve.1"] {
        let text = std::fs::read_to_string(man1.join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
        assert!(text.starts_with(".ie") || text.contains(".TH"), "{page} is not a man page");
    }
    if Command::new("man").arg("--version").output().is_ok_and(|o| o.status.success()) {
        // git turns `git rag --help` into `man git-rag`.
        let out = git_rag_via_git(&bin, repo.path(), &["--help"]);
        assert!(out.status.success(), "git rag --help: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("git-rag") && text.contains("query"), "{text}");
        assert!(!stderr(&out).contains("No manual entry"), "{}", stderr(&out));
    } else {
        eprintln!("no `man` on this machine: checked the pages only");
    }
}

#[test]
fn every_language_is_offered_by_help_and_filters_queries() {
    let repo = small_repo();
    let help = stdout(&rag_env(repo.path(), &["query", "--help"], &[]));
    for lang in git_rag::Language::ALL {
        assert!(help.contains(lang.name()), "`query --help` does not name {}: {help}", lang.name());
    }
    let langs = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = repo.query("persist cookies", extra)["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["language"].as_str().unwrap_or_default().to_string())
            .collect();
        v.dedup();
        v
    };
    for (flag, want) in [("ruby", "ruby"), ("rb", "ruby"), ("go", "go"), ("golang", "go"), ("lua", "lua"), ("markdown", "markdown")] {
        let got = langs(&["--lang", flag]);
        assert_eq!(got, [want], "--lang {flag}");
    }
    let out = rag_env(repo.path(), &["query", "x", "--lang", "cobol"], &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("csharp") && stderr(&out).contains("lua"), "the error lists the languages: {}", stderr(&out));
}

#[test]
fn exclude_and_min_score_filter_every_mode() {
    let repo = small_repo();
    let paths = |extra: &[&str]| -> Vec<String> { repo.paths_of("persist_cookies", extra) };
    let all = paths(&[]);
    assert!(all.iter().any(|p| p == "pkg/vendored/session.py"), "{all:?}");
    for mode in ["hybrid", "keyword", "symbol"] {
        let kept = paths(&["--mode", mode, "--exclude", "pkg/vendored/**", "--exclude", "*.lua"]);
        assert!(!kept.is_empty(), "{mode}");
        assert!(kept.iter().all(|p| !p.starts_with("pkg/vendored/") && !p.ends_with(".lua")), "{mode}: {kept:?}");
        assert!(kept.iter().any(|p| p == "pkg/session.py"), "{mode}: {kept:?}");
    }
    // With --path: inside it, less what --exclude drops.
    let kept = paths(&["--path", "pkg/**", "--exclude", "vendored/*"]);
    assert!(kept.iter().all(|p| p.starts_with("pkg/")), "{kept:?}");
    let kept = paths(&["--path", "pkg/**", "--exclude", "pkg/vendored/*"]);
    assert_eq!(kept, ["pkg/session.py"]);
    // Everything excluded: no results, not an error.
    assert!(paths(&["--exclude", "**"]).is_empty());
    let out = rag_env(repo.path(), &["query", "x", "--exclude", "a[b"], &[]);
    assert!(!out.status.success() && stderr(&out).contains("a[b"), "{}", stderr(&out));
    // An unknown --kind is an error that lists the kinds, in every mode; a known one in any case filters.
    for mode in ["hybrid", "keyword", "symbol"] {
        let out = rag_env(repo.path(), &["query", "persist_cookies", "--mode", mode, "--kind", "fucntion"], &[]);
        assert!(!out.status.success(), "{mode}");
        assert!(stderr(&out).contains("fucntion") && stderr(&out).contains("method") && stderr(&out).contains("const"), "{mode}: {}", stderr(&out));
    }
    assert!(!paths(&["--mode", "symbol", "--kind", "Function"]).is_empty());

    // --min-score keeps what scores at least that, on the score it reports.
    let scores = |extra: &[&str]| -> Vec<f64> {
        repo.query("persist cookies session", extra)["results"].as_array().expect("results").iter().map(|r| r["score"].as_f64().unwrap_or(0.0)).collect()
    };
    for mode in ["hybrid", "keyword"] {
        let all = scores(&["--mode", mode]);
        assert!(all.len() >= 3, "{mode}: {all:?}");
        let cut = all[1];
        let kept = scores(&["--mode", mode, "--min-score", &cut.to_string()]);
        assert!(kept.len() >= 2 && kept.len() < all.len(), "{mode}: {all:?} cut at {cut}: {kept:?}");
        assert!(kept.iter().all(|s| *s >= cut - 1e-6), "{mode}: {kept:?}");
        assert!(scores(&["--mode", mode, "--min-score", "1e9"]).is_empty());
    }
}

#[test]
fn a_large_file_keeps_its_symbols() {
    let repo = TestRepo::new();
    // ~1.9 MB of Python, 60,000 functions: over the old 1 MB parse cap.
    let mut big = String::with_capacity(2_000_000);
    for i in 0..60_000 {
        big.push_str(&format!("def f{i}(x):\n    return x + {i}\n"));
    }
    assert!(big.len() > 1_500_000);
    repo.write("gen/big.py", &big);
    repo.write("app.py", "from gen.big import f59999\n\n\ndef main():\n    return f59999(1)\n");
    repo.commit("big");
    let out = rag_env(repo.path(), &["index", "--no-semantic", "--json"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert!(report["symbols_total"].as_u64().unwrap_or(0) >= 60_000, "{report}");
    let hits = repo.hits("f59999", &["--mode", "symbol", "-n", "1"]);
    assert_eq!(hits.first().map(|h| (h.0.as_str(), h.1, h.3.as_deref())), Some(("gen/big.py", 119_999, Some("f59999"))), "{hits:?}");
    // The call graph reaches into it too.
    let callers = repo.hits("what calls f59999", &["--mode", "graph"]);
    assert!(callers.iter().any(|h| h.0 == "app.py"), "{callers:?}");

    // Over the parse cap a file is cut into windows, and the run says so.
    repo.git(&["config", "rag.maxFileBytes", "100000"]);
    let out = rag_env(repo.path(), &["index", "--no-semantic"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("gen/big.py") && stderr(&out).contains("rag.maxFileBytes"), "no notice: {}", stderr(&out));
    assert!(repo.hits("f59999", &["--mode", "symbol", "-n", "1"]).first().is_none_or(|h| h.0 != "gen/big.py"));
}

/// Transparent huge pages: process policy is the binary's to set. The
/// library, run in this process, reports the run's size and leaves the
/// policy as it found it.
#[cfg(target_os = "linux")]
#[test]
fn the_library_leaves_the_process_page_policy_alone() {
    use std::sync::Mutex;
    struct Sizes(Mutex<Vec<git_rag::RunSize>>);
    impl git_rag::Progress for Sizes {
        fn run_size(&self, size: git_rag::RunSize) {
            self.0.lock().expect("lock").push(size);
        }
    }
    // SAFETY: PR_GET_THP_DISABLE takes no pointer and only reads.
    let policy = || unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
    let before = policy();
    let repo = TestRepo::new();
    repo.write("a.py", "def one():\n    return 1\n");
    repo.commit("one");
    let ws = git_rag::Workspace::discover(&git_rag::Overrides { directory: Some(repo.path().to_path_buf()), ..Default::default() }).expect("workspace");
    let mut opts = ws.index_options(std::time::Duration::from_secs(10));
    opts.semantic.enabled = false;
    opts.full = true;
    let sizes = Sizes(Mutex::new(Vec::new()));
    git_rag::index(&ws.repo, &ws.index_dir, &opts, &sizes).expect("full index");
    assert_eq!(policy(), before, "a full run changed the process's page policy");
    repo.write("a.py", "def one():\n    return 2\n");
    repo.commit("two");
    opts.full = false;
    git_rag::index(&ws.repo, &ws.index_dir, &opts, &sizes).expect("one-file run");
    assert_eq!(policy(), before, "a small run changed the process's page policy");
    use git_rag::RunSize::{Large, Small};
    assert_eq!(*sizes.0.lock().expect("lock"), [Large, Large, Small, Small], "the sizes reported");
}

#[test]
fn settings_given_to_git_with_dash_c_reach_git_rag() {
    let repo = small_repo();
    let prefix = tempfile::tempdir().expect("tempdir");
    let bin = prefix.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_git-rag"), bin.join("git-rag")).expect("symlink");
    let git_c = |settings: &[&str], args: &[&str]| {
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
        let mut cmd = Command::new("git");
        for s in settings {
            cmd.args(["-c", s]);
        }
        test_git_env(cmd.arg("rag").args(args).current_dir(repo.path()).env("PATH", path));
        cmd.env_remove("GIT_RAG_DIR").output().expect("git runs")
    };
    // An index directory given with -c is where the index goes and is read from.
    let elsewhere = prefix.path().join("index with a 'quote'");
    let setting = format!("rag.indexDir={}", elsewhere.display());
    let out = git_c(&[&setting], &["index", "-q", "--no-semantic"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(elsewhere.join(".rag_index_state.json").exists(), "no index in {}", elsewhere.display());
    let out = git_c(&[&setting], &["query", "persist cookies", "--json"]);
    assert!(out.status.success() && stdout(&out).contains("persist_cookies"), "{}", stderr(&out));
    // The chat endpoint of `ask`, given with -c, is the one asked (here: nobody listens).
    let out = git_c(&[&setting, "rag.chat.url=http://127.0.0.1:9/v1"], &["ask", "how are cookies persisted?"]);
    assert!(!out.status.success());
    assert!(!stderr(&out).contains("no chat endpoint is configured") && stderr(&out).contains("127.0.0.1:9"), "{}", stderr(&out));
}

/// Settings reach git-rag wherever git itself would read them: a file
/// included by `includeIf "gitdir:…"` and `includeIf "onbranch:…"`, and a
/// linked worktree's own config (`extensions.worktreeConfig`), which the
/// main worktree does not see.
#[test]
fn settings_in_included_files_and_worktree_config_are_read_as_git_reads_them() {
    let repo = small_repo();
    let scratch = tempfile::tempdir().expect("tempdir");
    let index_in = |dir: &std::path::Path| -> std::path::PathBuf {
        let out = Command::new(env!("CARGO_BIN_EXE_git-rag")).args(["status", "--json"]).current_dir(dir).env_remove("GIT_RAG_DIR").output().expect("runs");
        assert!(out.status.success(), "{}", stderr(&out));
        let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
        std::path::PathBuf::from(v["index_dir"].as_str().unwrap_or_else(|| panic!("no index_dir: {v}")))
    };
    let default = index_in(repo.path());

    // includeIf gitdir: a file of settings for repositories under a folder.
    let included = scratch.path().join("work.gitconfig");
    let by_gitdir = scratch.path().join("by-gitdir");
    std::fs::write(&included, format!("[rag]\n\tindexDir = {}\n", by_gitdir.display())).expect("write");
    let gitdir = format!("includeIf.gitdir:{}/.path", repo.path().canonicalize().expect("path").display());
    repo.git(&["config", &gitdir, included.to_str().expect("utf-8")]);
    assert_eq!(index_in(repo.path()), by_gitdir);
    repo.git(&["config", "--unset", &gitdir]);
    assert_eq!(index_in(repo.path()), default);

    // includeIf onbranch: only while that branch is checked out.
    repo.git(&["config", "includeIf.onbranch:main.path", included.to_str().expect("utf-8")]);
    assert_eq!(index_in(repo.path()), by_gitdir);
    repo.git(&["checkout", "-q", "-b", "other"]);
    assert_eq!(index_in(repo.path()), default);
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&["config", "--unset", "includeIf.onbranch:main.path"]);

    // A linked worktree's own settings.
    let wt = scratch.path().join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "wt", wt.to_str().expect("utf-8")]);
    let own = scratch.path().join("wt-index");
    git_in(&wt, &["config", "extensions.worktreeConfig", "true"]);
    git_in(&wt, &["config", "--worktree", "rag.indexDir", own.to_str().expect("utf-8")]);
    assert_eq!(index_in(&wt), own, "the worktree's config.worktree is read");
    assert_eq!(index_in(repo.path()), default, "and only in that worktree");
}
