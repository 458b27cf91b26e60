//! `git rag history`: the history store kept by `git rag index` (appended,
//! trimmed to `rag.historyDepth`, rebuilt after a rewrite, equal to a fresh
//! read), and its answers — best commit first, filters, today's names, the
//! changed lines, the digest within its budget, the MCP tool alike.

use std::process::Command;

use serde_json::{json, Value};

use crate::common::mcp::Mcp;
use crate::common::{rag_env, rag_in, stderr, test_git_env, TestRepo};

/// Commits everything with `date` as both author and committer date.
fn commit_at(repo: &TestRepo, msg: &str, date: &str) -> String {
    repo.git(&["add", "-A"]);
    let out = test_git_env(Command::new("git").args(["commit", "-q", "--allow-empty", "-m", msg]).current_dir(repo.path()))
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .expect("git runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    repo.git(&["rev-parse", "HEAD"])
}

const RETRY: &str = "RETRY_STATUS = {500, 502, 503}\n\ndef should_retry(status):\n    return status in RETRY_STATUS\n";

/// Four commits: retries added, 503 dropped (the why in the body), the
/// module moved, an unrelated page.
fn project() -> (TestRepo, Vec<String>) {
    let repo = TestRepo::new();
    repo.git(&["config", "rag.semantic", "false"]);
    repo.write("http/retry.py", RETRY);
    let added = commit_at(&repo, "Add retries for failed requests", "2020-01-10T10:00:00Z");
    repo.write("http/retry.py", RETRY.replace(", 503}", "}"));
    let dropped = commit_at(
        &repo,
        "Do not retry when the service is unavailable\n\nThe upstream answers 503 while it deploys; retrying only made the deploy slower.",
        "2021-06-01T10:00:00Z",
    );
    repo.git(&["mv", "http", "net"]);
    let moved = commit_at(&repo, "Move the http package to net", "2022-03-01T10:00:00Z");
    repo.write("docs/guide.md", "# Guide\n\nHow to install the tool.\n");
    let docs = commit_at(&repo, "Write an install guide", "2023-09-01T10:00:00Z");
    (repo, vec![added, dropped, moved, docs])
}

fn history(repo: &TestRepo, args: &[&str]) -> Value {
    let mut all = vec!["history"];
    all.extend_from_slice(args);
    all.push("--json");
    serde_json::from_str(&repo.rag_ok(&all)).expect("history json")
}

fn ids(answer: &Value) -> Vec<String> {
    answer["commits"].as_array().expect("commits").iter().map(|c| c["id"].as_str().expect("id").to_string()).collect()
}

#[test]
fn the_commit_that_answers_comes_first_with_its_lines_and_today_s_file_names() {
    let (repo, c) = project();
    let out = repo.rag(&["index"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("history: 4 commits read, 4 kept (first read)"), "{}", stderr(&out));

    let a = history(&repo, &["when did we stop retrying on 503?"]);
    assert_eq!(ids(&a)[0], c[1], "{a:#}");
    let first = &a["commits"][0];
    assert_eq!(first["date"], "2021-06-01");
    assert_eq!(first["files"], json!(["net/retry.py"]), "today's name of the file it changed");
    assert!(first["body"].as_str().unwrap().contains("while it deploys"), "{first}");
    let lines: Vec<&str> = first["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(lines[0], "-RETRY_STATUS = {500, 502, 503}", "{lines:?}");
    assert_eq!(a["reach"]["commits"], 4);
    assert_eq!(a["reach"]["oldest"], "2020-01-10");
    assert_eq!(a["reach"]["whole"], true);

    // A file is followed under the names it had; a folder holds its files.
    assert_eq!(ids(&history(&repo, &["", "--path", "net/retry.py"])), vec![c[2].clone(), c[1].clone(), c[0].clone()]);
    assert_eq!(ids(&history(&repo, &["", "--path", "net"])), vec![c[2].clone(), c[1].clone(), c[0].clone()]);
    assert_eq!(ids(&history(&repo, &["", "--path", "docs/"])), vec![c[3].clone()]);
    // Dates as git reads them, both ends included.
    assert_eq!(ids(&history(&repo, &["", "--since", "2021-01-01", "--until", "2022-12-31"])), vec![c[2].clone(), c[1].clone()]);
    // A symbol among the changed lines.
    assert_eq!(ids(&history(&repo, &["", "--symbol", "RETRY_STATUS"])), vec![c[1].clone(), c[0].clone()]);
    // No question: the newest first, as many as asked.
    assert_eq!(ids(&history(&repo, &["-n", "2"])), vec![c[3].clone(), c[2].clone()]);

    // The digest holds the answer; a smaller budget, fewer commits (each whole).
    let wide = repo.rag_ok(&["history", "why not retry on 503", "--context", "--budget", "4000"]);
    let narrow = repo.rag_ok(&["history", "why not retry on 503", "--context", "--budget", "120"]);
    assert!(narrow.contains(&c[1][..12]) && narrow.contains("```diff"), "{narrow}");
    assert!(narrow.matches("\n## ").count() < wide.matches("\n## ").count(), "{narrow}\n---\n{wide}");
    // Text: a line per commit, then its files and lines.
    let text = repo.rag_ok(&["history", "install guide", "-n", "1"]);
    assert!(text.starts_with(&c[3][..12]) && text.contains("Write an install guide") && text.contains("docs/guide.md"), "{text}");

    let out = repo.rag(&["history", "x", "--since", "the day after tomorrow-ish"]);
    assert!(!out.status.success() && stderr(&out).contains("cannot read the date"), "{}", stderr(&out));

    // Status says how far back it reaches.
    let status = repo.status(&[]);
    assert_eq!(status["history"]["commits"], 4, "{status}");
    assert!(repo.rag_ok(&["status"]).contains("history:  4 commits, 2020-01-10 to 2023-09-01, back to the first commit"));

    // The MCP tool answers as the CLI does.
    let mut mcp = Mcp::start(&repo, &[]);
    mcp.handshake();
    let tool = mcp.tool("history", json!({"question": "when did we stop retrying on 503?"}));
    assert_eq!(tool, a);
    let err = mcp.tool_error("history", json!({"question": "x", "since": "the day after tomorrow-ish"}));
    assert!(err.contains("cannot read the date"), "{err}");
    mcp.finish();
}

#[test]
fn an_index_kept_commit_by_commit_holds_the_history_a_fresh_read_does_and_a_rewrite_is_read_again() {
    let repo = TestRepo::new();
    repo.git(&["config", "rag.semantic", "false"]);
    let fresh_ids = |repo: &TestRepo| -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        let env = [("GIT_RAG_DIR", dir.path().to_str().unwrap())];
        let out = rag_env(repo.path(), &["index", "-q"], &env);
        assert!(out.status.success(), "{}", stderr(&out));
        let out = rag_env(repo.path(), &["history", "-n", "100", "--json"], &env);
        assert!(out.status.success(), "{}", stderr(&out));
        ids(&serde_json::from_slice(&out.stdout).unwrap())
    };
    for i in 0..6 {
        repo.write(&format!("src/m{i}.py"), format!("def f{i}():\n    return {i}\n"));
        repo.commit(&format!("add f{i}"));
        repo.rag_ok(&["index", "-q"]);
    }
    let kept = ids(&history(&repo, &["-n", "100"]));
    assert_eq!(kept.len(), 6);
    assert_eq!(kept, fresh_ids(&repo));
    // The same words rank the same: BM25 over the same commits.
    assert_eq!(ids(&history(&repo, &["add f3"])), {
        let dir = tempfile::tempdir().unwrap();
        let env = [("GIT_RAG_DIR", dir.path().to_str().unwrap())];
        rag_env(repo.path(), &["index", "-q"], &env);
        ids(&serde_json::from_slice(&rag_env(repo.path(), &["history", "add f3", "--json"], &env).stdout).unwrap())
    });

    // A rewrite: two commits dropped, one new.
    repo.git(&["reset", "-q", "--hard", "HEAD~2"]);
    repo.write("src/other.py", "def g():\n    return 0\n");
    repo.commit("add g");
    let out = repo.rag(&["index"]);
    assert!(stderr(&out).contains("history was rewritten"), "{}", stderr(&out));
    assert_eq!(ids(&history(&repo, &["-n", "100"])), fresh_ids(&repo));
    assert_eq!(ids(&history(&repo, &["-n", "100"])).len(), 5);

    // A depth: the newest N, kept so as commits come.
    repo.git(&["config", "rag.historyDepth", "3"]);
    let out = repo.rag(&["index"]);
    assert!(stderr(&out).contains("the depth changed (20000 -> 3)"), "{}", stderr(&out));
    for i in 0..4 {
        repo.write(&format!("lib/n{i}.py"), format!("N = {i}\n"));
        commit_at(&repo, &format!("add n{i}"), &format!("2010-0{}-01T00:00:00Z", i + 1));
        repo.rag_ok(&["index", "-q"]);
    }
    let kept = ids(&history(&repo, &["-n", "100"]));
    assert_eq!(kept.len(), 3);
    assert_eq!(kept, fresh_ids(&repo));
    let reach = &history(&repo, &["-n", "1"])["reach"];
    assert_eq!((reach["oldest"].as_str(), reach["newest"].as_str()), (Some("2010-02-01"), Some("2010-04-01")), "{reach}");
    assert_eq!(repo.status(&[])["history"]["whole"], false);
    // 0 keeps none, and says how to get it back.
    repo.git(&["config", "rag.historyDepth", "0"]);
    repo.rag_ok(&["index", "-q"]);
    let out = rag_in(repo.path(), &["history", "anything"]);
    assert!(!out.status.success() && stderr(&out).contains("no history store"), "{}", stderr(&out));
}

#[test]
fn a_merge_stands_for_its_pull_request_and_a_shallow_clone_s_history_ends_where_it_does() {
    let repo = TestRepo::new();
    repo.git(&["config", "rag.semantic", "false"]);
    repo.write("app.py", "def serve():\n    pass\n");
    repo.commit("start");
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("app.py", "def serve():\n    compress_responses()\n");
    repo.commit("wip");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("notes.md", "# notes\n");
    repo.commit("notes");
    repo.git(&["merge", "-q", "--no-ff", "feature", "-m", "Merge pull request #7 from someone/feature\n\nCompress every response with gzip"]);
    repo.rag_ok(&["index", "-q"]);
    let a = history(&repo, &["gzip compression of responses"]);
    let first = &a["commits"][0];
    assert_eq!(first["merge"], true, "{a:#}");
    assert_eq!(first["files"], json!(["app.py"]), "the merge's change against its first parent");
    assert!(first["lines"].as_array().unwrap().iter().any(|l| l == "+compress_responses()"), "{first}");
    // First-parent: the branch's own commit is not on the chain.
    assert_eq!(a["reach"]["commits"], 3);

    let shallow = tempfile::tempdir().unwrap();
    let url = format!("file://{}", repo.path().display());
    let out = test_git_env(Command::new("git").args(["clone", "-q", "--depth", "2", &url]).arg(shallow.path().join("c"))).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let clone = shallow.path().join("c");
    crate::common::git_in(&clone, &["config", "rag.semantic", "false"]);
    let out = rag_in(&clone, &["index", "-q"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = rag_in(&clone, &["history", "", "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["reach"]["commits"], 2, "{v:#}");
}

/// Distinct files of a query's results, in order.
fn files_of(answer: &Value) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for r in answer["results"].as_array().expect("results") {
        let path = r["path"].as_str().expect("path").to_string();
        if !files.contains(&path) {
            files.push(path);
        }
    }
    files
}

const SESSION_REPORT: &str = "Session drops cookies after a redirect\n\nWhen a session follows a redirect, the cookies set by the first \
response are gone from the next request. I expected the session to keep them. The request headers, the adapter and the auth \
handler look fine: the response has a Set-Cookie header but the following request sends no Cookie header at all.";

#[test]
fn an_issue_report_s_files_are_placed_by_past_commits_like_it_after_the_first() {
    let repo = TestRepo::new();
    repo.git(&["config", "rag.semantic", "false"]);
    let files = [
        ("src/session.py", "class Session:\n    \"\"\"A session follows a redirect and sends the next request.\"\"\"\n\n    def follow_redirect(self, response):\n        request = self.next_request(response)\n        return self.send(request)\n\n    def next_request(self, response):\n        return Request(response.headers, self)\n"),
        ("src/adapter.py", "class Adapter:\n    def send(self, request):\n        \"\"\"Send the request; the response comes back with its headers.\"\"\"\n        return Response(request.headers)\n"),
        ("src/auth.py", "class AuthHandler:\n    def handle(self, request):\n        \"\"\"The auth handler adds its header to the request.\"\"\"\n        request.headers['Authorization'] = 'token'\n"),
        ("src/headers.py", "def merge_headers(request, response):\n    \"\"\"Headers of the request, then of the response.\"\"\"\n    return dict(request.headers, **response.headers)\n"),
        ("src/response.py", "class Response:\n    def __init__(self, headers):\n        \"\"\"A response and its headers.\"\"\"\n        self.headers = headers\n"),
        ("src/request.py", "class Request:\n    def __init__(self, headers, session):\n        \"\"\"A request of a session, with its headers.\"\"\"\n        self.headers = headers\n        self.session = session\n"),
        ("src/cookies.py", "class Jar:\n    def extract(self, response):\n        \"\"\"Keep what the response sets.\"\"\"\n        self.items.update(parse(response))\n"),
    ];
    for (path, text) in files {
        repo.write(path, text);
    }
    commit_at(&repo, "Start the client", "2020-01-01T10:00:00Z");
    let past = [
        "Keep cookies set by a redirect response in the jar",
        "Cookies lost when a session follows redirects",
        "Redirects: the next request sends the cookies the first response set",
    ];
    for (i, subject) in past.iter().enumerate() {
        repo.write("src/cookies.py", format!("{}# {i}\n", files[6].1));
        repo.write("tests/test_cookies.py", format!("def test_jar_{i}():\n    pass\n"));
        commit_at(&repo, subject, &format!("2021-0{}-01T10:00:00Z", i + 1));
    }
    repo.rag_ok(&["index", "-q"]);
    let with_history = repo.query(SESSION_REPORT, &["-n", "50", "--explain"]);
    assert_eq!(with_history["analysis"]["intent"], "document", "{}", with_history["analysis"]);
    let placed = files_of(&with_history);
    let text = repo.rag_ok(&["query", SESSION_REPORT, "-n", "50", "--explain"]);
    assert!(text.contains("history of the file:") && text.contains("ByHistory"), "{text}");

    // A damaged history store costs the evidence, not the answer: it is said among the fallbacks.
    std::fs::write(repo.default_index_dir().join("history").join("meta.json"), "{ not json").expect("damage the store");
    let damaged = repo.query(SESSION_REPORT, &["-n", "50"]);
    let said = damaged["fallbacks"].as_array().is_some_and(|f| f.iter().any(|s| s.as_str().is_some_and(|s| s.starts_with("history:"))));
    assert!(said, "{}", damaged["fallbacks"]);

    repo.git(&["config", "rag.historyDepth", "0"]);
    repo.rag_ok(&["index", "-q"]);
    let without = files_of(&repo.query(SESSION_REPORT, &["-n", "50"]));
    assert_eq!(files_of(&damaged), without);

    let at = |order: &[String]| order.iter().position(|f| f == "src/cookies.py");
    assert_eq!(placed[0], without[0], "the first file never moves: {placed:?} against {without:?}");
    assert!(at(&placed) < at(&without) && at(&placed).is_some(), "the file past commits like the report changed comes up: {placed:?} against {without:?}");
    let mut sorted = placed.clone();
    sorted.sort();
    let mut before = without.clone();
    before.sort();
    assert_eq!(sorted, before, "history adds no file and drops none");
    // Its evidence is in the explanation; a test file takes none.
    let results = with_history["results"].as_array().expect("results");
    let cookies = results.iter().find(|r| r["path"] == "src/cookies.py").expect("cookies.py is in the answer");
    assert_eq!(cookies["explain"]["history"]["name"], "history", "{}", cookies["explain"]);
    assert!(cookies["explain"]["moved"].as_array().is_some_and(|m| m.iter().any(|s| s == "by_history")), "{}", cookies["explain"]);
    assert!(results.iter().filter(|r| r["path"] == "tests/test_cookies.py").all(|r| r["explain"]["history"].is_null()));
}
