//! The index follows real git histories: adds, edits, deletes, renames,
//! branch switches and rewritten history.

use crate::common::TestRepo;

const SESSION_PY: &str = r#"import json
from .cookies import CookieJar


class Session:
    """Keeps cookies and settings across requests."""

    def __init__(self):
        self.cookies = CookieJar()

    def persist_session(self, path):
        """Write the session cookies to disk as JSON."""
        with open(path, "w") as fh:
            json.dump(self.cookies.to_dict(), fh)

    def load_session(self, path):
        with open(path) as fh:
            self.cookies.update(json.load(fh))
"#;

const ROUTER_JS: &str = r#"'use strict';
var debug = require('debug')('router');

/**
 * Register a route handler for a path.
 */
function registerRoute(router, path, handler) {
  debug('register %s', path);
  router.stack.push({ path: path, handler: handler });
}

module.exports = registerRoute;
"#;

const CACHE_TS: &str = r#"export interface CacheEntry<T> {
  value: T;
  expiresAt: number;
}

export class ExpiringCache<T> {
  private entries = new Map<string, CacheEntry<T>>();

  get(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry || entry.expiresAt < Date.now()) return undefined;
    return entry.value;
  }

  set(key: string, value: T, ttlMs: number): void {
    this.entries.set(key, { value, expiresAt: Date.now() + ttlMs });
  }
}
"#;

fn setup() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app/session.py", SESSION_PY);
    repo.write("web/router.js", ROUTER_JS);
    repo.write("src/cache.ts", CACHE_TS);
    repo.write("README.md", "# Demo\n\nA demo project.\n\n## Sessions\n\nSessions are persisted as JSON.\n");
    repo.commit("initial");
    repo
}

#[test]
fn first_index_then_add_modify_delete() {
    let repo = setup();
    let out = repo.rag_ok(&["index"]);
    assert!(out.contains("(full)") && out.contains("embedded ") && out.contains("reused 0"), "{out}");
    let status = repo.status(&[]);
    assert_eq!(status["stale"], false);
    assert_eq!(status["counts"]["files"], 4);
    assert!(status["counts"]["symbols"].as_u64().unwrap() >= 8, "{status}");

    let hits = repo.hits("persist_session", &["--mode", "symbol"]);
    assert_eq!(hits[0], ("app/session.py".into(), 11, 14, Some("Session.persist_session".into())));
    let hits = repo.hits("ExpiringCache", &["--mode", "symbol"]);
    assert_eq!(hits[0].0, "src/cache.ts");
    assert_eq!((hits[0].1, hits[0].2), (6, 18));
    assert!(repo.paths_of("register route handler", &[]).first().is_some_and(|p| p == "web/router.js"));

    // Add a file, modify one, delete one.
    repo.write("app/auth.py", "def check_token(token):\n    return token == 'secret'\n");
    repo.write("app/session.py", SESSION_PY.replace("persist_session", "save_session"));
    repo.remove("web/router.js");
    repo.commit("change things");
    assert_eq!(repo.status(&[])["stale"], true);
    let out = repo.rag_ok(&["index"]);
    assert!(out.contains("(incremental)") && out.contains("2 files indexed, 1 deleted"), "{out}");

    assert_eq!(repo.hits("check_token", &["--mode", "symbol"])[0].0, "app/auth.py");
    assert!(repo.hits("persist_session", &["--mode", "symbol"]).iter().all(|h| h.3.as_deref() != Some("Session.persist_session")));
    assert_eq!(repo.hits("save_session", &["--mode", "symbol"])[0].3.as_deref(), Some("Session.save_session"));
    assert!(repo.paths_of("registerRoute", &[]).iter().all(|p| p != "web/router.js"));
    let status = repo.status(&[]);
    assert_eq!(status["stale"], false);
    assert_eq!(status["counts"]["files"], 4);

    // Running again is a no-op.
    assert!(repo.rag_ok(&["index"]).contains("already at"));
}

#[test]
fn pure_rename_and_rename_with_edits() {
    let repo = setup();
    repo.rag_ok(&["index"]);

    repo.git(&["mv", "src/cache.ts", "src/expiring-cache.ts"]);
    repo.commit("pure rename");
    let out = repo.rag_ok(&["index"]);
    assert!(out.contains("1 renamed"), "{out}");
    let hits = repo.hits("ExpiringCache", &["--mode", "symbol"]);
    assert_eq!(hits[0].0, "src/expiring-cache.ts");
    assert!(repo.paths_of("ExpiringCache", &[]).iter().all(|p| p != "src/cache.ts"));

    // Rename plus a small edit: still a rename for git, and the new content is indexed.
    repo.git(&["mv", "app/session.py", "app/sessions.py"]);
    repo.write("app/sessions.py", SESSION_PY.replace("def load_session(self, path):", "def restore_session(self, path):"));
    repo.commit("rename with edits");
    let out = repo.rag_ok(&["index"]);
    assert!(out.contains("1 renamed"), "{out}");
    assert_eq!(repo.hits("restore_session", &["--mode", "symbol"])[0].0, "app/sessions.py");
    assert!(repo.hits("load_session", &["--mode", "symbol"]).iter().all(|h| h.3.as_deref() != Some("Session.load_session")));
    assert!(repo.paths_of("persist_session", &[]).iter().all(|p| p != "app/session.py"));
}

#[test]
fn branch_switch_and_history_rewrite() {
    let repo = setup();
    let base = repo.git(&["rev-parse", "HEAD"]);
    repo.rag_ok(&["index"]);

    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("app/feature.py", "def shiny_feature():\n    return 42\n");
    repo.commit("feature");
    repo.rag_ok(&["index"]);
    assert_eq!(repo.hits("shiny_feature", &["--mode", "symbol"]).len(), 1);

    // Back to main: the feature is gone from the index.
    repo.git(&["checkout", "-q", "main"]);
    let out = repo.rag_ok(&["index"]);
    assert!(out.contains("(incremental)"), "{out}");
    assert!(repo.hits("shiny_feature", &["--mode", "symbol"]).is_empty());

    // Rewrite history: amend the feature commit, force the branch elsewhere.
    repo.git(&["checkout", "-q", "feature"]);
    repo.write("app/feature.py", "def shinier_feature():\n    return 43\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--amend", "-m", "feature v2"]);
    repo.rag_ok(&["index"]);
    assert!(repo.hits("shiny_feature", &["--mode", "symbol"]).iter().all(|h| h.3.as_deref() != Some("shiny_feature")));
    assert_eq!(repo.hits("shinier_feature", &["--mode", "symbol"]).len(), 1);

    repo.git(&["reset", "-q", "--hard", &base]);
    repo.rag_ok(&["index"]);
    assert!(repo.hits("shinier_feature", &["--mode", "symbol"]).is_empty());
    assert_eq!(repo.status(&[])["indexed_commit"], base.as_str());
}

#[test]
fn index_a_given_revision() {
    let repo = setup();
    let first = repo.git(&["rev-parse", "HEAD"]);
    repo.write("app/later.py", "def later():\n    pass\n");
    repo.commit("later");
    let out = repo.rag_ok(&["index", "--rev", &first]);
    assert!(out.contains(&first[..12]), "{out}");
    assert!(repo.hits("later", &["--mode", "symbol", "--at-commit"]).is_empty());
    // The work tree (at HEAD) is laid over the older index: its new file answers from it.
    let v = repo.query("later", &["--mode", "symbol"]);
    assert_eq!((v["results"][0]["path"].as_str(), v["results"][0]["source"].as_str()), (Some("app/later.py"), Some("worktree")), "{v}");
    let status = repo.status(&[]);
    assert_eq!(status["stale"], true);
    let out = repo.rag(&["index", "--rev", "no-such-branch"]);
    assert!(!out.status.success());
    assert!(crate::common::stderr(&out).contains("cannot resolve revision `no-such-branch`"));
}

#[test]
fn filters_by_language_path_and_kind() {
    let repo = setup();
    repo.rag_ok(&["index"]);
    let all = repo.hits("session", &["--limit", "50"]);
    assert!(all.iter().any(|h| h.0.ends_with(".py")) && all.iter().any(|h| h.0.ends_with(".md")));
    let py = repo.hits("session", &["--lang", "python", "--limit", "50"]);
    assert!(!py.is_empty() && py.iter().all(|h| h.0.ends_with(".py")));
    let md = repo.hits("session", &["--path", "*.md"]);
    assert!(!md.is_empty() && md.iter().all(|h| h.0 == "README.md"));
    let methods = repo.query("session", &["--kind", "method"]);
    let results = methods["results"].as_array().unwrap();
    assert!(!results.is_empty() && results.iter().all(|r| r["kind"] == "method"));
    let none = repo.hits("session", &["--path", "nowhere/**"]);
    assert!(none.is_empty());
    let out = repo.rag(&["query", "x", "--lang", "cobol"]);
    assert!(!out.status.success() && crate::common::stderr(&out).contains("'cobol'"), "{}", crate::common::stderr(&out));
}
