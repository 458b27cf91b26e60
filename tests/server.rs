//! The semantic layer on a real Qdrant server, end to end through the CLI.
//! Runs when `QDRANT_URL` is set (see the README for a server on loopback);
//! ignored by a plain `cargo test` (they need it).

use crate::common::{rag_env, stderr, stdout, TestRepo};
use serde_json::Value;

fn run(repo: &TestRepo, url: &str, args: &[&str]) -> String {
    let out = rag_env(repo.path(), args, &[("QDRANT_URL", url)]);
    assert!(out.status.success(), "git-rag {args:?} failed: {}", stderr(&out));
    stdout(&out)
}

fn embedded(out: &str) -> usize {
    let at = out.find("embedded ").unwrap_or_else(|| panic!("no `embedded` in {out}"));
    out[at + 9..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().expect("number")
}

#[test]
#[ignore = "needs a Qdrant server (QDRANT_URL) and the model; scripts/test.sh starts one and runs it"]
fn index_query_rename_delete_and_incremental_equals_full_on_a_server() {
    let (url, _server) = crate::common::require_server();
    let repo = TestRepo::new();
    // A prefix of its own, so that runs never see each other's collections.
    let prefix = format!(
        "git_rag_it_{}_{}",
        std::process::id(),
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() % 1_000_000)
    );
    repo.git(&["config", "rag.qdrantPrefix", &prefix]);
    repo.write("app/retry.py", "import time\n\n\ndef call_with_backoff(fn, attempts=5):\n    \"\"\"Call fn again after a failure, waiting twice as long each time.\"\"\"\n    for i in range(attempts):\n        try:\n            return fn()\n        except IOError:\n            time.sleep(2 ** i)\n");
    repo.write("web/escape.js", "/** Replace the characters that have a meaning in HTML. */\nfunction escapeHtml(text) {\n  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');\n}\nmodule.exports = { escapeHtml };\n");
    repo.commit("initial");
    run(&repo, &url, &["index"]);
    let st: Value = serde_json::from_str(&run(&repo, &url, &["status", "--json"])).expect("json");
    assert!(st["semantic"]["store"].as_str().unwrap_or("").starts_with("server "), "{st}");
    assert!(st["semantic"]["counts"]["semantic"].as_u64().unwrap_or(0) > 0, "{st}");

    let v: Value =
        serde_json::from_str(&run(&repo, &url, &["query", "make text safe for a web page", "--mode", "semantic", "--json", "-n", "3"])).expect("json");
    assert_eq!(v["results"][0]["path"], "web/escape.js", "{v}");

    // A rename embeds nothing; a delete leaves no points.
    repo.git(&["mv", "app/retry.py", "app/backoff.py"]);
    repo.commit("rename");
    let out = run(&repo, &url, &["index"]);
    assert_eq!(embedded(&out), 0, "{out}");
    repo.remove("web/escape.js");
    let head = repo.commit("delete");
    run(&repo, &url, &["index"]);
    let dump: Value = serde_json::from_str(&run(&repo, &url, &["dump-vectors"])).expect("json");
    for c in ["files", "symbols", "semantic"] {
        let paths: Vec<&str> = dump[c].as_array().expect("points").iter().filter_map(|p| p["payload"]["path"].as_str()).collect();
        assert!(paths.contains(&"app/backoff.py") && !paths.contains(&"web/escape.js") && !paths.contains(&"app/retry.py"), "{c}: {paths:?}");
    }

    // A fresh full index of HEAD under another prefix holds the same points.
    let scratch = tempfile::tempdir().expect("tempdir");
    let fresh = scratch.path().join("fresh");
    let fresh_s = fresh.to_str().expect("utf-8");
    repo.git(&["config", "rag.qdrantPrefix", &format!("{prefix}_fresh")]);
    run(&repo, &url, &["index", "--full", "--rev", &head, "--index-dir", fresh_s]);
    let again: Value = serde_json::from_str(&run(&repo, &url, &["dump-vectors", "--index-dir", fresh_s])).expect("json");
    assert_eq!(dump, again, "incremental on the server equals a fresh full index");
}
