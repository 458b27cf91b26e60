//! `git rag query --explain` (and `explain: true` over MCP): each result's
//! score as named contributions that sum to the score it was ordered by,
//! the same numbers the ranking used — for a name, a short question, an
//! issue report and a single retriever's mode, on a real repository.

use crate::common::mcp::Mcp;
use crate::common::TestRepo;
use serde_json::{json, Value};

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.git(&["config", "rag.semantic", "false"]);
    repo.write(
        "pkg/cookies.py",
        "def merge_cookies(jar, cookies):\n    \"\"\"Add cookies to the jar.\"\"\"\n    for name in cookies:\n        jar.set(name, cookies[name])\n    return jar\n\n\ndef cookie_header(jar):\n    return '; '.join(jar)\n",
    );
    repo.write("pkg/sessions.py", "from .cookies import merge_cookies\n\n\nclass Session:\n    def send(self, request):\n        merge_cookies(self.jar, request.cookies)\n        return request\n");
    repo.write("tests/test_cookies.py", "from pkg.cookies import merge_cookies\n\n\ndef test_merge_cookies():\n    assert merge_cookies({}, {}) == {}\n");
    repo.write("docs/cookies.md", "# Cookies\n\nSessions merge the cookies of each request into their jar.\n");
    repo.commit("c");
    repo.rag_ok(&["index", "-q"]);
    repo
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1e-3)
}

/// Checks one explanation (and the fused one it holds): each term is its
/// value times its weight, and the terms sum to its score. Its score.
fn check(e: &Value, what: &str) -> f64 {
    let score = e["score"].as_f64().unwrap_or_else(|| panic!("{what}: no score: {e}"));
    let terms = e["contributions"].as_array().unwrap_or_else(|| panic!("{what}: no contributions: {e}"));
    assert!(!terms.is_empty(), "{what}: {e}");
    let mut sum = 0.0;
    for t in terms {
        let (value, c) = (t["value"].as_f64().unwrap_or(f64::NAN), t["contribution"].as_f64().unwrap_or(f64::NAN));
        let weight = t["weight"].as_f64().unwrap_or_else(|| panic!("{what}: every term has a weight: {t}"));
        assert!(close(value * weight, c), "{what}: {t}");
        assert!(t["name"].as_str().is_some_and(|n| !n.is_empty()), "{what}: {t}");
        sum += c;
    }
    assert!(close(sum, score), "{what}: terms sum to {sum}, score {score}: {e}");
    if let Some(fused) = e.get("fused") {
        check(fused, what);
    }
    score
}

/// Every result explained, each explanation adding up, and the ones a
/// ranking step ordered in the order of their explained scores.
fn explained(v: &Value, question: &str) -> Vec<(String, f64)> {
    let results = v["results"].as_array().expect("results");
    assert!(!results.is_empty(), "{question}: {v}");
    let mut out = Vec::new();
    for r in results {
        let e = &r["explain"];
        let by = e["ranked_by"].as_str().unwrap_or_else(|| panic!("{question}: unexplained result {r}")).to_string();
        let score = check(e, question);
        if by == "fusion" || by == "retriever" {
            // Unmoved by the stage, a result's score is the one explained.
            assert!(close(score, r["score"].as_f64().unwrap_or(f64::NAN)), "{question}: {r}");
        }
        if by == "stage" {
            let fused = e["fused"]["score"].as_f64().expect("the fused score the stage read");
            let read = e["contributions"].as_array().and_then(|t| t.iter().find(|t| t["name"] == "score")).and_then(|t| t["value"].as_f64()).unwrap_or(0.0);
            assert!(fused > 0.0 && read > 0.0 && read <= 1.0 + 1e-6, "{question}: the stage reads the fused score over the best: {r}");
        }
        out.push((by, score));
    }
    out
}

#[test]
fn every_results_contributions_sum_to_the_score_it_was_ranked_by() {
    let repo = repo();
    // A name, a short question: the stage orders them by its scores.
    for question in ["merge_cookies", "how are cookies merged into the jar"] {
        let v = repo.query(question, &["--explain"]);
        let ranked = explained(&v, question);
        assert_eq!(ranked[0].0, "stage", "{question}: {v}");
        let stage: Vec<f64> = ranked.iter().filter(|(by, _)| by == "stage").map(|(_, s)| *s).collect();
        assert!(stage.windows(2).all(|w| w[0] >= w[1] - 1e-6), "{question}: in the order of their stage scores: {stage:?}");
        // The same order as without --explain.
        let plain = repo.query(question, &[]);
        let paths = |v: &Value| {
            v["results"].as_array().expect("results").iter().map(|r| (r["path"].clone(), r["start_line"].clone(), r["score"].clone())).collect::<Vec<_>>()
        };
        assert_eq!(paths(&v), paths(&plain), "{question}");
    }
    // An issue report keeps its fused form: its lists, priors and named files.
    let issue = "merge_cookies drops cookies\n\nWhen a session sends a request, `merge_cookies` in pkg/cookies.py loses the cookies of the request: \
                 I expected the jar to hold every cookie after the request was sent, but it is empty. Steps: create a session, send a request with cookies.";
    let v = repo.query(issue, &["--explain"]);
    let ranked = explained(&v, "issue");
    assert!(ranked.iter().all(|(by, _)| by == "fusion"), "{v}");
    let names: Vec<&str> = v["results"]
        .as_array()
        .expect("results")
        .iter()
        .flat_map(|r| r["explain"]["contributions"].as_array().into_iter().flatten())
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(names.iter().any(|n| n.starts_with("list:")), "{names:?}");
    assert!(names.contains(&"named_by_question"), "the file the issue names is lifted: {names:?}");
    assert!(names.contains(&"prior:role"), "tests and docs weigh less against an issue: {names:?}");
    // The stage's features of an issue report's results, for the fitting
    // script: noted beside its fused explanation, the answer unchanged.
    let noted = repo.query(issue, &["--explain", "--explain-features"]);
    let results = |v: &Value| {
        v["results"].as_array().expect("results").iter().map(|r| (r["path"].clone(), r["start_line"].clone(), r["score"].clone())).collect::<Vec<_>>()
    };
    assert_eq!(results(&noted), results(&v));
    let unscored: Vec<&Value> =
        noted["results"].as_array().expect("results").iter().filter_map(|r| r["explain"]["unscored_features"].as_array()).flatten().collect();
    assert!(unscored.iter().any(|c| c["name"] == "chunk_words" && c["value"].as_f64().is_some_and(|x| x > 0.0)), "{noted}");
    assert!(v["results"].as_array().expect("results").iter().all(|r| r["explain"].get("unscored_features").is_none()), "only when asked: {v}");
    // One retriever: its own score.
    let v = repo.query("cookies jar", &["--explain", "--mode", "keyword"]);
    assert!(explained(&v, "keyword").iter().all(|(by, _)| by == "retriever"), "{v}");
    // Without --explain, nothing of it.
    assert!(repo.query("merge_cookies", &[])["results"].as_array().expect("results").iter().all(|r| r.get("explain").is_none()));
}

#[test]
fn explain_reads_as_text_and_over_mcp() {
    let repo = repo();
    let text = repo.rag_ok(&["query", "how are cookies merged into the jar", "--explain", "-n", "3"]);
    assert!(text.contains("ranked by the ranking stage"), "{text}");
    assert!(text.contains("list:bm25 #"), "the fused lists with their ranks: {text}");
    assert!(text.contains("\nfeatures:\n") && text.contains("  chunk_words: "), "what each feature measures: {text}");
    let mut mcp = Mcp::start(&repo, &[]);
    mcp.handshake();
    let v = mcp.tool("search", json!({"query": "how are cookies merged into the jar", "explain": true}));
    explained(&v, "mcp");
    let v = mcp.tool("search", json!({"query": "how are cookies merged into the jar"}));
    assert!(v["results"].as_array().expect("results").iter().all(|r| r.get("explain").is_none()), "{v}");
}
