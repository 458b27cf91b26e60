//! `git rag impact` on real repositories: the changed definitions, the code
//! they reach (callers at depth 1 and 2, overrides, implementations,
//! importers), the tests to run, the work-tree form against `A..B`, and bad
//! input.

use serde_json::Value;

use crate::common::{stderr, TestRepo};

fn impact(repo: &TestRepo, args: &[&str]) -> Value {
    repo.impact(args)
}

/// (path, symbol, change) of each changed entry.
fn changed(v: &Value) -> Vec<(String, String, String)> {
    v["changed"].as_array().expect("changed").iter().map(|c| (s(&c["path"]), s(&c["symbol"]), s(&c["change"]))).collect()
}

/// (symbol or path, relation, depth) of each impacted entry.
fn impacted(v: &Value) -> Vec<(String, String, u64)> {
    v["impacted"]
        .as_array()
        .expect("impacted")
        .iter()
        .map(|c| (c["symbol"].as_str().map(str::to_string).unwrap_or_else(|| s(&c["path"])), s(&c["relation"]), c["depth"].as_u64().unwrap_or(0)))
        .collect()
}

fn tests(v: &Value) -> Vec<String> {
    v["tests"].as_array().expect("tests").iter().map(|t| s(&t["path"])).collect()
}

fn s(v: &Value) -> String {
    v.as_str().unwrap_or("-").to_string()
}

fn python_repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("pkg/__init__.py", "");
    repo.write(
        "pkg/core.py",
        "class Base:\n    def run(self, x):\n        return x\n\n\nclass Child(Base):\n    def run(self, x):\n        return x * 2\n\n\n\
         def helper(x):\n    return x + 1\n\n\ndef old_name(y):\n    return y - 1\n",
    );
    repo.write(
        "pkg/service.py",
        "from pkg.core import helper, old_name\n\n\ndef serve(v):\n    return helper(v)\n\n\ndef top(v):\n    return serve(v) + old_name(v)\n",
    );
    repo.write("pkg/gone.py", "def legacy():\n    return 1\n");
    repo.write("pkg/user.py", "from pkg.gone import legacy\n\n\ndef use_legacy():\n    return legacy()\n");
    repo.write("tests/test_core.py", "from pkg.core import helper\n\n\ndef test_helper():\n    assert helper(1) == 2\n");
    repo.write("tests/test_service.py", "from pkg.service import serve\n\n\ndef test_serve():\n    assert serve(1) == 2\n");
    repo.write("tests/test_other.py", "def test_nothing():\n    assert True\n");
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    repo
}

#[test]
fn a_changed_body_reaches_its_callers_at_depth_one_and_two_and_its_tests() {
    let repo = python_repo();
    let nothing = impact(&repo, &[]);
    assert!(changed(&nothing).is_empty() && impacted(&nothing).is_empty(), "{nothing}");
    assert_eq!(repo.rag(&["impact", "--quiet"]).status.code(), Some(0));

    repo.write("pkg/core.py", std::fs::read_to_string(repo.path().join("pkg/core.py")).unwrap().replace("return x + 1", "return x + 2"));
    let v = impact(&repo, &[]);
    assert_eq!(changed(&v), vec![("pkg/core.py".into(), "helper".into(), "body".into())], "{v}");
    let reached = impacted(&v);
    assert!(reached.contains(&("serve".into(), "calls".into(), 1)), "{v}");
    assert!(reached.contains(&("top".into(), "calls".into(), 2)), "{v}");
    assert!(reached.contains(&("pkg/service.py".into(), "imports".into(), 1)), "{v}");
    let serve = v["impacted"].as_array().unwrap().iter().find(|i| i["symbol"] == "serve").unwrap();
    assert_eq!((serve["evidence"]["line"].as_u64(), serve["evidence"]["text"].as_str()), (Some(5), Some("return helper(v)")), "{v}");
    assert!(serve["score"].as_f64().unwrap() > v["impacted"].as_array().unwrap().iter().find(|i| i["symbol"] == "top").unwrap()["score"].as_f64().unwrap());
    let t = tests(&v);
    assert_eq!(t.first().map(String::as_str), Some("tests/test_core.py"), "{v}");
    assert!(t.contains(&"tests/test_service.py".to_string()), "{v}");
    assert!(!t.contains(&"tests/test_other.py".to_string()), "{v}");
    let first = &v["tests"][0];
    assert_eq!(first["symbol"], "test_helper", "{v}");
    assert!(first["why"].as_array().unwrap().iter().any(|w| w.as_str().unwrap().contains("named after pkg/core.py")), "{v}");
    // Each test's probability falls down the list; the run tier is its head
    // and holds the test that calls and is named after the changed code.
    assert_eq!(first["tier"], "run", "{v}");
    let listed = v["tests"].as_array().unwrap();
    let p: Vec<f64> = listed.iter().map(|t| t["probability"].as_f64().expect("probability")).collect();
    assert!(p.iter().all(|x| (0.0..=1.0).contains(x)) && p.windows(2).all(|w| w[0] >= w[1]), "{p:?}");
    let tiers: Vec<&str> = listed.iter().map(|t| t["tier"].as_str().expect("tier")).collect();
    assert!(tiers.windows(2).all(|w| !(w[0] == "maybe" && w[1] == "run")), "{tiers:?}");
    let run = tiers.iter().filter(|t| **t == "run").count();
    let text = repo.rag_ok(&["impact"]);
    assert!(text.contains(&format!("tests ({}: {run} to run now, {} maybe):", tiers.len(), tiers.len() - run)), "{text}");
    assert!(text.contains("tests/test_core.py::test_helper  [run "), "{text}");
    assert_eq!(repo.rag(&["impact", "--quiet"]).status.code(), Some(1));
    let depth1 = impacted(&impact(&repo, &["--depth", "1"]));
    assert!(!depth1.iter().any(|(_, _, d)| *d > 1), "{depth1:?}");
}

#[test]
fn an_override_a_rename_and_a_deleted_file_are_found_and_a_range_equals_the_work_tree() {
    let repo = python_repo();
    let core = std::fs::read_to_string(repo.path().join("pkg/core.py")).unwrap();
    repo.write("pkg/core.py", core.replace("        return x\n", "        return -x\n").replace("def old_name(y):", "def new_name(y):"));
    repo.remove("pkg/gone.py");
    let v = impact(&repo, &[]);
    let c = changed(&v);
    assert!(c.contains(&("pkg/core.py".into(), "Base.run".into(), "body".into())), "{v}");
    assert!(c.contains(&("pkg/core.py".into(), "new_name".into(), "renamed".into())), "{v}");
    assert!(c.contains(&("pkg/gone.py".into(), "-".into(), "deleted".into())), "{v}");
    assert!(c.contains(&("pkg/gone.py".into(), "legacy".into(), "deleted".into())), "{v}");
    let renamed = v["changed"].as_array().unwrap().iter().find(|c| c["symbol"] == "new_name").unwrap();
    assert_eq!(renamed["previous"], "old_name");
    let reached = impacted(&v);
    assert!(reached.contains(&("Child.run".into(), "overrides".into(), 1)), "{v}");
    assert!(reached.contains(&("top".into(), "calls".into(), 1)), "the old name's caller: {v}");
    assert!(reached.contains(&("use_legacy".into(), "calls".into(), 1)), "the deleted file's caller: {v}");
    assert!(reached.contains(&("pkg/user.py".into(), "imports".into(), 1)), "{v}");

    // The same diff as a commit, with the index still at its parent.
    repo.commit("edit");
    let range = impact(&repo, &["HEAD~1..HEAD"]);
    assert_eq!(range, v, "impact HEAD~1..HEAD equals the work-tree form of the same diff");
    assert_eq!(impact(&repo, &["HEAD"]), v, "a commit against its parent");
    // Indexed at the new commit, the range still reads both sides: the same
    // definitions, dependents and tests (the tests' BM25 share is scored
    // with the statistics of the commit the index holds).
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    let later = impact(&repo, &["HEAD~1..HEAD"]);
    assert_eq!((&later["changed"], &later["impacted"]), (&v["changed"], &v["impacted"]));
    let sorted = |v: &Value| {
        let mut t = tests(v);
        t.sort();
        t
    };
    assert_eq!(sorted(&later), sorted(&v));
    assert!(changed(&impact(&repo, &[])).is_empty());
}

#[test]
fn staged_files_are_compared_with_head() {
    let repo = python_repo();
    repo.write("pkg/service.py", std::fs::read_to_string(repo.path().join("pkg/service.py")).unwrap().replace("serve(v) + ", "serve(v) * "));
    repo.git(&["add", "pkg/service.py"]);
    repo.write("pkg/core.py", "# unstaged\n");
    let v = impact(&repo, &["--staged"]);
    assert_eq!(changed(&v), vec![("pkg/service.py".into(), "top".into(), "body".into())], "{v}");
    assert!(tests(&v).contains(&"tests/test_service.py".to_string()), "{v}");
}

#[test]
fn the_review_context_keeps_its_budget_and_cites_the_change() {
    let repo = python_repo();
    repo.write("pkg/core.py", std::fs::read_to_string(repo.path().join("pkg/core.py")).unwrap().replace("return x + 1", "return x + 2"));
    let v = impact(&repo, &["--context", "--budget", "400"]);
    let ctx = &v["context"];
    assert!(ctx["tokens"].as_u64().unwrap() <= 400, "{ctx}");
    let md = ctx["markdown"].as_str().unwrap();
    assert!(md.contains("pkg/core.py:11-12"), "{md}");
    let text = repo.rag_ok(&["impact", "--context", "--budget", "2000"]);
    assert!(text.contains("pkg/service.py:4-5"), "{text}");
}

#[test]
fn bad_input_gets_a_clear_error_or_a_bounded_answer() {
    let repo = python_repo();
    let out = repo.rag(&["impact", "no-such-rev"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("no-such-rev"), "{}", stderr(&out));
    let out = repo.rag(&["impact", "HEAD", "--staged"]);
    assert!(!out.status.success() && stderr(&out).contains("--staged"), "{}", stderr(&out));

    // A binary file and a file of invalid UTF-8: no crash, the text one analysed.
    repo.write("pkg/blob.bin", [0u8, 159, 146, 150, 0, 1, 2, 3]);
    repo.write("pkg/latin.py", b"def f():\n    return '\xe9t\xe9'\n");
    let v = impact(&repo, &[]);
    assert!(changed(&v).contains(&("pkg/latin.py".into(), "-".into(), "added".into())), "{v}");

    // 10,000 new files: a bounded answer that says so.
    for i in 0..10_000 {
        repo.write(&format!("gen/m{i}.py"), format!("def f{i}():\n    return {i}\n"));
    }
    let out = repo.rag(&["impact", "--json", "-n", "5"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["notices"].as_array().unwrap().iter().any(|n| n.as_str().unwrap().contains("were left out")), "{}", v["notices"]);

    let empty = TestRepo::new();
    let out = empty.rag(&["impact"]);
    assert!(!out.status.success() && stderr(&out).contains("git rag index"), "{}", stderr(&out));
}

/// Co-change follows a file through its renames: its commits under its old
/// path, before a move to `src/` made in one sweeping commit, still tie it to
/// the test that changed with it.
#[test]
fn a_moved_file_keeps_the_tests_that_changed_with_it_before_the_move() {
    let repo = TestRepo::new();
    repo.write("engine.py", "def step(x):\n    return x\n");
    repo.write("tests/test_behaviour.py", "def test_steps():\n    assert True\n");
    // Enough other modules that the move is a sweep, left out of co-change itself.
    for i in 0..45 {
        repo.write(&format!("mod_{i}.py"), format!("def f{i}():\n    return {i}\n"));
    }
    repo.commit("base");
    for round in 0..4 {
        repo.write("engine.py", format!("def step(x):\n    return x + {round}\n"));
        repo.write("tests/test_behaviour.py", format!("def test_steps():\n    assert {round} >= 0\n"));
        repo.commit(&format!("step {round}"));
    }
    std::fs::create_dir_all(repo.path().join("src")).unwrap();
    repo.git(&["mv", "engine.py", "src/engine.py"]);
    for i in 0..45 {
        repo.git(&["mv", &format!("mod_{i}.py"), &format!("src/mod_{i}.py")]);
    }
    repo.commit("switch to a src layout");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);

    repo.write("src/engine.py", "def step(x):\n    return x * 2\n");
    let v = impact(&repo, &[]);
    let test = v["tests"].as_array().unwrap().iter().find(|t| t["path"] == "tests/test_behaviour.py");
    let cochanged = test.and_then(|t| t["signals"]["cochanged"].as_f64()).unwrap_or(0.0);
    assert!(cochanged > 0.5, "the test changed in 4 of the file's 5 commits before the move\n{}", v["tests"]);
}

/// Every relation is proven by the line it prints: an import by its `use`
/// statement, a call by the call, never a comment that mentions the name.
#[test]
fn evidence_is_the_line_that_proves_the_relation_not_a_comment_that_mentions_it() {
    let repo = TestRepo::new();
    repo.write("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n");
    repo.write("src/lib.rs", "pub mod record;\npub mod state;\n");
    repo.write("src/state.rs", "//! The index state.\n\npub fn save_state(n: u32) -> u32 {\n    n + 1\n}\n");
    repo.write(
        "src/record.rs",
        "//! Where the state is kept: the state file, written last.\nuse crate::state::save_state;\n\n/// Records a run; calls save_state once.\npub fn record(n: u32) -> u32 {\n    // save_state is cheap\n    let done = save_state(n);\n    done\n}\n",
    );
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    // A module-level line of code too (a comment alone would be none), so the module's importers are listed.
    repo.write("src/state.rs", "//! The index state, saved atomically.\nuse std::fmt as _;\n\npub fn save_state(n: u32) -> u32 {\n    n + 2\n}\n");
    let v = impact(&repo, &[]);
    let items = v["impacted"].as_array().expect("impacted");
    let record = items.iter().find(|i| i["symbol"] == "record" && i["relation"] == "calls").unwrap_or_else(|| panic!("record calls save_state\n{v}"));
    assert_eq!((record["evidence"]["line"].as_u64(), record["evidence"]["text"].as_str()), (Some(7), Some("let done = save_state(n);")), "{record}");
    let imports: Vec<&Value> = items.iter().filter(|i| i["relation"] == "imports").collect();
    assert!(!imports.is_empty(), "{v}");
    let by_file = |path: &str| imports.iter().find(|i| i["path"] == path).map(|i| (i["evidence"]["line"].as_u64(), i["evidence"]["text"].as_str()));
    assert_eq!(by_file("src/record.rs"), Some((Some(2), Some("use crate::state::save_state;"))), "{v}");
    assert_eq!(by_file("src/lib.rs"), Some((Some(2), Some("pub mod state;"))), "{v}");
}

/// A change of documentation alone says so and lists nothing to run; with
/// code beside it, the code's tests are listed as ever.
#[test]
fn a_documentation_only_change_says_so_and_lists_no_tests() {
    let repo = python_repo();
    repo.write("README.md", "# pkg\n\nCall `helper` to add one.\n");
    repo.write("CHANGES.md", "# Changes\n\n## 1.0\n\n- helper adds one\n");
    repo.commit("docs");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    repo.write("README.md", "# pkg\n\nCall `helper` to add one; `serve` wraps it.\n");
    repo.write("CHANGES.md", "# Changes\n\n## 1.1\n\n- serve documented\n\n## 1.0\n\n- helper adds one\n");
    let v = impact(&repo, &[]);
    assert!(!changed(&v).is_empty(), "{v}");
    assert!(tests(&v).is_empty() && impacted(&v).is_empty(), "{v}");
    assert!(v["notices"].as_array().is_some_and(|n| n.iter().any(|n| n.as_str().is_some_and(|n| n.starts_with("a documentation-only change")))), "{v}");
    assert_eq!(v["documentation_only"], true, "{v}");
    // `--quiet` exits as `git diff --quiet` does for code: 0, nothing of code changed.
    let quiet = repo.rag(&["impact", "--quiet"]);
    assert_eq!(quiet.status.code(), Some(0), "{}", String::from_utf8_lossy(&quiet.stderr));
    assert!(quiet.stdout.is_empty());

    repo.write("pkg/core.py", std::fs::read_to_string(repo.path().join("pkg/core.py")).unwrap().replace("return x + 1", "return x + 2"));
    let v = impact(&repo, &[]);
    assert_eq!(tests(&v).first().map(String::as_str), Some("tests/test_core.py"), "{v}");
    assert_eq!(v["documentation_only"], false, "{v}");
    assert_eq!(repo.rag(&["impact", "--quiet"]).status.code(), Some(1));
    assert!(v["notices"].as_array().is_none_or(|n| !n.iter().any(|n| n.as_str().is_some_and(|n| n.contains("documentation-only")))), "{v}");
}

/// A change of configuration alone (a CI workflow, a tool's settings, with
/// documentation beside them) says so and still lists tests, by what they
/// share with it; with code or a test beside it, it is a change of code.
#[test]
fn a_configuration_only_change_says_so_and_still_lists_tests() {
    let repo = python_repo();
    repo.write(
        ".github/workflows/test.yml",
        "name: test\non: [push]\njobs:\n  core:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest tests/test_core.py\n",
    );
    repo.write("pyproject.toml", "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n");
    repo.commit("ci");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    let says_configuration = |v: &Value| {
        v["notices"].as_array().is_some_and(|n| n.iter().any(|n| n.as_str().is_some_and(|n| n.starts_with("a configuration-only change (2 files"))))
    };

    repo.write(
        ".github/workflows/test.yml",
        "name: test\non: [push, pull_request]\njobs:\n  core:\n    runs-on: ubuntu-latest\n    steps:\n      - run: pytest tests/test_core.py -x\n",
    );
    repo.write("README.md", "# pkg\n\nThe core tests run on every pull request.\n");
    let v = impact(&repo, &[]);
    assert_eq!((v["configuration_only"].as_bool(), v["documentation_only"].as_bool()), (Some(true), Some(false)), "{v}");
    assert!(says_configuration(&v), "{v}");
    assert!(tests(&v).contains(&"tests/test_core.py".to_string()), "the test the workflow names is listed\n{v}");
    // Such changes edit a test ten times less often than changes of code: a
    // test they list runs now only when it is far likelier than one of code's.
    let listed = v["tests"].as_array().expect("tests");
    assert!(listed.iter().any(|t| t["probability"].as_f64().is_some_and(|p| p > 0.05)), "{v}");
    assert!(listed.iter().all(|t| t["tier"] == "maybe" || t["probability"].as_f64().is_some_and(|p| p >= 0.5)), "{v}");
    // It can still break any test: `--quiet` says something runs differently.
    assert_eq!(repo.rag(&["impact", "--quiet"]).status.code(), Some(1));

    repo.commit("run the core tests on pull requests");
    let v = impact(&repo, &["HEAD"]);
    assert_eq!(v["configuration_only"], true, "a commit of configuration alone\n{v}");

    repo.write("pyproject.toml", "[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\naddopts = \"-q\"\n");
    repo.write("tests/test_other.py", "def test_nothing():\n    assert 1\n");
    let v = impact(&repo, &[]);
    assert_eq!(v["configuration_only"], false, "a test changed beside it runs differently\n{v}");
    assert!(!says_configuration(&v), "{v}");
}

/// A changed method reaches the callers that call it through a receiver
/// whose type the code states (a typed parameter, a field, a constructed
/// variable), and not those calling a method of the same name on another
/// type: `state.save()` is `State::save`, `doc.save()` is `Doc::save`.
#[test]
fn a_changed_method_reaches_callers_through_typed_receivers_and_not_other_types() {
    struct Case {
        files: &'static [(&'static str, &'static str)],
        changed: (&'static str, &'static str, &'static str),
        callers: &'static [&'static str],
        not: &'static [&'static str],
    }
    let cases = [
        Case {
            files: &[
                ("src/lib.rs", "pub mod doc;\npub mod record;\npub mod state;\n"),
                ("src/state.rs", "pub struct State {}\n\nimpl State {\n    pub fn save(&self) -> u32 {\n        1\n    }\n}\n"),
                ("src/doc.rs", "pub struct Doc {}\n\nimpl Doc {\n    pub fn save(&self) -> u32 {\n        2\n    }\n}\n"),
                (
                    "src/record.rs",
                    "use crate::doc::Doc;\nuse crate::state::State;\n\npub struct Recorder {\n    state: State,\n}\n\n\
                     pub fn commit(state: &State) -> u32 {\n    state.save()\n}\n\n\
                     pub fn fresh() -> u32 {\n    let s = State::new();\n    s.save()\n}\n\n\
                     impl Recorder {\n    pub fn flush(&self) -> u32 {\n        self.state.save()\n    }\n}\n\n\
                     pub fn print(doc: &Doc) -> u32 {\n    doc.save()\n}\n",
                ),
            ],
            changed: ("src/state.rs", "pub fn save(&self) -> u32 {\n        1\n", "pub fn save(&self) -> u32 {\n        let _checked = true;\n        1\n"),
            callers: &["commit", "fresh", "Recorder::flush"],
            not: &["print"],
        },
        Case {
            files: &[
                ("app/__init__.py", ""),
                ("app/state.py", "class State:\n    def save(self):\n        return 1\n"),
                ("app/doc.py", "class Doc:\n    def save(self):\n        return 2\n"),
                (
                    "app/record.py",
                    "from app.doc import Doc\nfrom app.state import State\n\n\n\
                     def commit(state: State):\n    return state.save()\n\n\n\
                     def fresh():\n    s = State()\n    return s.save()\n\n\n\
                     class Recorder:\n    def __init__(self):\n        self.state = State()\n\n    def flush(self):\n        return self.state.save()\n\n\n\
                     def print_doc(doc: Doc):\n    return doc.save()\n",
                ),
            ],
            changed: ("app/state.py", "    def save(self):\n        return 1\n", "    def save(self):\n        checked = True\n        return 1\n"),
            callers: &["commit", "fresh", "Recorder.flush"],
            not: &["print_doc"],
        },
        Case {
            files: &[
                ("src/main/java/app/State.java", "package app;\n\npublic class State {\n    public int save() {\n        return 1;\n    }\n}\n"),
                ("src/main/java/app/Doc.java", "package app;\n\npublic class Doc {\n    public int save() {\n        return 2;\n    }\n}\n"),
                (
                    "src/main/java/app/Recorder.java",
                    "package app;\n\npublic class Recorder {\n    private State state;\n\n\
                     public int commit(State s) {\n        return s.save();\n    }\n\n\
                     public int flush() {\n        return state.save();\n    }\n\n\
                     public int print(Doc doc) {\n        return doc.save();\n    }\n}\n",
                ),
            ],
            changed: (
                "src/main/java/app/State.java",
                "    public int save() {\n        return 1;\n",
                "    public int save() {\n        int checked = 1;\n        return 1;\n",
            ),
            callers: &["Recorder.commit", "Recorder.flush"],
            not: &["Recorder.print"],
        },
        Case {
            files: &[
                ("go.mod", "module example.com/app\n\ngo 1.21\n"),
                ("state.go", "package app\n\ntype State struct{}\n\nfunc (s *State) Save() int {\n\treturn 1\n}\n"),
                ("doc.go", "package app\n\ntype Doc struct{}\n\nfunc (d *Doc) Save() int {\n\treturn 2\n}\n"),
                (
                    "record.go",
                    "package app\n\ntype Recorder struct {\n\tstate *State\n}\n\n\
                     func Commit(st *State) int {\n\treturn st.Save()\n}\n\n\
                     func (r *Recorder) Flush() int {\n\treturn r.state.Save()\n}\n\n\
                     func Print(d *Doc) int {\n\treturn d.Save()\n}\n",
                ),
            ],
            changed: ("state.go", "func (s *State) Save() int {\n\treturn 1\n", "func (s *State) Save() int {\n\tchecked := 1\n\t_ = checked\n\treturn 1\n"),
            callers: &["Commit", "Recorder.Flush"],
            not: &["Print"],
        },
        Case {
            files: &[
                ("src/state.ts", "export class State {\n  save(): number {\n    return 1;\n  }\n}\n"),
                ("src/doc.ts", "export class Doc {\n  save(): number {\n    return 2;\n  }\n}\n"),
                (
                    "src/record.ts",
                    "import { Doc } from './doc';\nimport { State } from './state';\n\n\
                     export function commit(state: State): number {\n  return state.save();\n}\n\n\
                     export class Recorder {\n  constructor(private state: State) {}\n  flush(): number {\n    return this.state.save();\n  }\n}\n\n\
                     export function printDoc(doc: Doc): number {\n  return doc.save();\n}\n",
                ),
            ],
            changed: ("src/state.ts", "  save(): number {\n    return 1;\n", "  save(): number {\n    const checked = 1;\n    return checked;\n"),
            callers: &["commit", "Recorder.flush"],
            not: &["printDoc"],
        },
    ];
    for case in cases {
        let repo = TestRepo::new();
        for (path, text) in case.files {
            repo.write(path, text);
        }
        repo.commit("base");
        repo.rag_ok(&["index", "--no-semantic", "-q"]);
        let (path, before, after) = case.changed;
        let text = case.files.iter().find(|(p, _)| *p == path).map(|(_, t)| *t).expect("changed file");
        assert!(text.contains(before), "{path}");
        repo.write(path, text.replace(before, after));
        let v = impact(&repo, &[]);
        let callers: Vec<String> = impacted(&v).into_iter().filter(|(_, relation, depth)| relation == "calls" && *depth == 1).map(|(s, _, _)| s).collect();
        for want in case.callers {
            assert!(callers.iter().any(|c| c == want), "{path}: {want} calls the changed method: {callers:?}\n{v}");
        }
        for other in case.not {
            assert!(!callers.iter().any(|c| c == other), "{path}: {other} calls another type's method: {callers:?}");
        }
    }
}

/// Of two calls of the name in one caller, the evidence is the call through
/// the changed method's type: `state.save()`, not `doc.save()` above it.
#[test]
fn a_call_s_evidence_is_the_call_through_the_changed_method_s_type() {
    let repo = TestRepo::new();
    repo.write("app/state.py", "class State:\n    def save(self):\n        return 1\n");
    repo.write("app/doc.py", "class Doc:\n    def save(self):\n        return 2\n");
    repo.write(
        "app/record.py",
        "from app.doc import Doc\nfrom app.state import State\n\n\ndef commit(doc: Doc, state: State):\n    doc.save()\n    return state.save()\n",
    );
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    repo.write("app/state.py", "class State:\n    def save(self):\n        return 3\n");
    let v = impact(&repo, &[]);
    let commit = v["impacted"].as_array().and_then(|a| a.iter().find(|i| i["symbol"] == "commit" && i["relation"] == "calls")).cloned();
    let commit = commit.unwrap_or_else(|| panic!("commit calls State.save\n{v}"));
    assert_eq!((commit["evidence"]["line"].as_u64(), commit["evidence"]["text"].as_str()), (Some(7), Some("return state.save()")), "{commit}");
}

/// A call whose receiver's type is unknown (`store.save()` with `store`
/// untyped) may mean any method of its name: it is listed "by name" with
/// the number of definitions it may mean, below the callers that resolve;
/// a call through an imported module (`shelve.save`) or another type is not.
#[test]
fn an_untyped_receiver_is_a_caller_by_name_with_its_candidates() {
    let repo = TestRepo::new();
    repo.write("app/__init__.py", "");
    repo.write("app/state.py", "class State:\n    def save(self):\n        return 1\n");
    repo.write("app/doc.py", "class Doc:\n    def save(self):\n        return 2\n");
    repo.write(
        "app/record.py",
        "import shelve\n\nfrom app.doc import Doc\nfrom app.state import State\n\n\n\
         def commit(state: State):\n    return state.save()\n\n\n\
         def flush(store):\n    return store.save()\n\n\n\
         def archive(x):\n    return shelve.save(x)\n\n\n\
         def print_doc(doc: Doc):\n    return doc.save()\n",
    );
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    repo.write("app/state.py", "class State:\n    def save(self):\n        checked = True\n        return 1\n");
    let v = impact(&repo, &[]);
    let items = v["impacted"].as_array().expect("impacted");
    let of = |symbol: &str| items.iter().find(|i| i["symbol"] == symbol && i["relation"] == "calls");
    let commit = of("commit").unwrap_or_else(|| panic!("commit calls State.save\n{v}"));
    let flush = of("flush").unwrap_or_else(|| panic!("flush may call State.save\n{v}"));
    assert_eq!(commit["candidates"], Value::Null, "{commit}");
    assert_eq!(flush["candidates"].as_u64(), Some(2), "{flush}");
    assert_eq!(flush["evidence"]["text"].as_str(), Some("return store.save()"), "{flush}");
    assert!(flush["score"].as_f64() < commit["score"].as_f64(), "{v}");
    assert!(of("archive").is_none() && of("print_doc").is_none(), "{v}");
    let text = repo.rag_ok(&["impact"]);
    assert!(text.contains("[calls State.save by name, 2 candidates, depth 1"), "{text}");
}

/// A changed doc comment is its definition's documentation (not a change of
/// the module around it): alone, the change is documentation only and
/// lists nothing to run; with code beside it, the code is walked as ever.
#[test]
fn a_changed_doc_comment_is_documentation_of_its_definition() {
    let repo = TestRepo::new();
    repo.write("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n");
    repo.write("src/lib.rs", "pub mod record;\npub mod state;\n");
    let state = "pub struct State {}\n\nimpl State {\n    /// Writes the state.\n    pub fn save(&self) -> u32 {\n        1\n    }\n}\n";
    repo.write("src/state.rs", state);
    repo.write("src/record.rs", "use crate::state::State;\n\npub fn commit(state: &State) -> u32 {\n    state.save()\n}\n");
    repo.write("tests/state.rs", "use app::state::State;\n\n#[test]\nfn saves() {\n    assert_eq!(State {}.save(), 1);\n}\n");
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    repo.write("src/state.rs", state.replace("/// Writes the state.", "/// Writes the state, atomically."));
    let v = impact(&repo, &[]);
    assert_eq!(changed(&v), vec![("src/state.rs".into(), "State::save".into(), "doc".into())], "{v}");
    assert_eq!(v["documentation_only"], true, "{v}");
    assert!(impacted(&v).is_empty() && tests(&v).is_empty(), "{v}");
    assert_eq!(repo.rag(&["impact", "--quiet"]).status.code(), Some(0));
    repo.write("src/state.rs", state.replace("/// Writes the state.", "/// Writes the state, atomically.").replace("        1\n", "        2\n"));
    let v = impact(&repo, &[]);
    assert_eq!(changed(&v), vec![("src/state.rs".into(), "State::save".into(), "body".into())], "{v}");
    assert!(impacted(&v).iter().any(|(s, r, _)| s == "commit" && r == "calls"), "{v}");
    assert_eq!(tests(&v).first().map(String::as_str), Some("tests/state.rs"), "{v}");
}

/// A change of comments alone, inside a method's body or at the top of the
/// module, is no change of code: each changed definition says `comment`, the
/// change is documentation only and lists nothing to run. A doc comment's
/// code fence runs as a doctest, so changing it is a change of code.
#[test]
fn a_change_of_comments_inside_a_body_runs_as_before() {
    let repo = TestRepo::new();
    repo.write("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n");
    repo.write("src/lib.rs", "pub mod record;\npub mod state;\n");
    let state =
        "pub struct State {}\n\nimpl State {\n    /// Writes the state.\n    pub fn save(&self) -> u32 {\n        // one, for now\n        1\n    }\n}\n";
    repo.write("src/state.rs", state);
    repo.write("src/record.rs", "use crate::state::State;\n\npub fn commit(state: &State) -> u32 {\n    state.save()\n}\n");
    repo.write("tests/state.rs", "use app::state::State;\n\n#[test]\nfn saves() {\n    assert_eq!(State {}.save(), 1);\n}\n");
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    let commented = format!("// The index state.\n\n{}", state.replace("// one, for now", "// one: a state is saved once"));
    repo.write("src/state.rs", &commented);
    let v = impact(&repo, &[]);
    let mut got = changed(&v);
    got.sort();
    assert_eq!(got, vec![("src/state.rs".into(), "-".into(), "comment".into()), ("src/state.rs".into(), "State::save".into(), "comment".into())], "{v}");
    assert_eq!(v["documentation_only"], true, "{v}");
    assert!(impacted(&v).is_empty() && tests(&v).is_empty(), "{v}");
    assert_eq!(repo.rag(&["impact", "--quiet"]).status.code(), Some(0));
    let fenced = state
        .replace("    /// Writes the state.\n", "    /// Writes the state.\n    /// ```\n    /// assert_eq!(app::state::State {}.save(), 1);\n    /// ```\n");
    repo.write("src/state.rs", &fenced);
    let v = impact(&repo, &[]);
    assert_eq!(changed(&v), vec![("src/state.rs".into(), "State::save".into(), "body".into())], "{v}");
    assert_eq!(v["documentation_only"], false, "{v}");
    assert!(impacted(&v).iter().any(|(s, r, _)| s == "commit" && r == "calls"), "{v}");
}

/// Rust's unit tests live in the file they test (`#[cfg(test)] mod tests`):
/// a change's own file's test module is a test to run by the language's
/// convention, and a test module elsewhere that calls the changed code is
/// one by the graph, each named by its test function. A source file
/// without tests is never listed as one.
#[test]
fn a_source_file_s_own_test_module_is_a_test_to_run() {
    let repo = TestRepo::new();
    repo.write("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n");
    repo.write("src/lib.rs", "pub mod record;\npub mod state;\n");
    let state = "pub struct State {}\n\nimpl State {\n    pub fn save(&self) -> u32 {\n        1\n    }\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn saves_once() {\n        let state = State {};\n        assert_eq!(state.save(), 1);\n    }\n}\n";
    repo.write("src/state.rs", state);
    repo.write(
        "src/record.rs",
        "use crate::state::State;\n\npub fn commit(state: &State) -> u32 {\n    state.save()\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n    #[test]\n    fn commits() {\n        let n = commit(&State {});\n        assert_eq!(n, 1);\n    }\n}\n",
    );
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    repo.write("src/state.rs", state.replace("        1\n    }\n}\n\n#[cfg", "        let _checked = true;\n        1\n    }\n}\n\n#[cfg"));
    let v = impact(&repo, &[]);
    assert_eq!(changed(&v), vec![("src/state.rs".into(), "State::save".into(), "body".into())], "{v}");
    let entry = |path: &str| v["tests"].as_array().expect("tests").iter().find(|t| t["path"] == path).cloned();
    let own = entry("src/state.rs").unwrap_or_else(|| panic!("the file's own tests are not listed: {v}"));
    assert!(s(&own["symbol"]).starts_with("tests"), "{own}");
    assert!(own["why"].as_array().expect("why").iter().any(|w| s(w) == "its own test module `tests`"), "{own}");
    let caller = entry("src/record.rs").unwrap_or_else(|| panic!("a test module that calls the change is not listed: {v}"));
    assert_eq!(s(&caller["symbol"]), "tests::commits", "{caller}");
    assert!(caller["why"].as_array().expect("why").iter().any(|w| s(w).starts_with("calls `commit`")), "{caller}");
    assert!(!tests(&v).contains(&"src/lib.rs".to_string()), "{v}");
    assert_eq!(tests(&v).first().map(String::as_str), Some("src/state.rs"), "the file's own tests come first: {v}");
}

/// Most Rust tests call the code under test inside an assertion's
/// arguments (`assert_eq!(parse("1"), 1)`), which the grammar reads as
/// tokens: the call is still a call, its line the evidence, and the test
/// that makes it is a test to run; a test file that calls nothing of the
/// change is not listed by the graph.
#[test]
fn a_call_inside_an_assertion_s_arguments_reaches_the_test() {
    let repo = TestRepo::new();
    repo.write("Cargo.toml", "[package]\nname = \"app\"\nversion = \"0.1.0\"\n");
    let parser = "pub struct Parser {}\n\nimpl Parser {\n    pub fn new() -> Self {\n        Parser {}\n    }\n\n    pub fn parse(&self, s: &str) -> u32 {\n        s.len() as u32\n    }\n}\n\npub fn double(n: u32) -> u32 {\n    n * 2\n}\n";
    repo.write("src/lib.rs", parser);
    repo.write(
        "tests/parsing.rs",
        "use app::Parser;\n\n#[test]\nfn counts_bytes() {\n    let p = Parser::new();\n    assert_eq!(\n        p.parse(\"abc\"),\n        3\n    );\n}\n",
    );
    repo.write("tests/doubling.rs", "use app::double;\n\n#[test]\nfn doubles() {\n    assert_eq!(double(2), 4);\n}\n");
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    repo.write("src/lib.rs", parser.replace("        s.len() as u32\n", "        let _checked = true;\n        s.len() as u32\n"));
    let v = impact(&repo, &[]);
    assert_eq!(changed(&v), vec![("src/lib.rs".into(), "Parser::parse".into(), "body".into())], "{v}");
    let caller = v["impacted"].as_array().and_then(|a| a.iter().find(|i| i["path"] == "tests/parsing.rs" && i["relation"] == "calls")).cloned();
    let caller = caller.unwrap_or_else(|| panic!("the assertion's call of Parser::parse is not seen\n{v}"));
    assert_eq!((caller["evidence"]["line"].as_u64(), caller["evidence"]["text"].as_str()), (Some(7), Some("p.parse(\"abc\"),")), "{caller}");
    let listed = v["tests"].as_array().expect("tests").iter().find(|t| t["path"] == "tests/parsing.rs").cloned();
    let listed = listed.unwrap_or_else(|| panic!("the test that calls the change is not a test to run\n{v}"));
    assert!(listed["why"].as_array().expect("why").iter().any(|w| s(w).starts_with("calls `Parser::parse`") || s(w).starts_with("calls `parse`")), "{listed}");
    assert_eq!(tests(&v).first().map(String::as_str), Some("tests/parsing.rs"), "{v}");
    let doubling = v["tests"].as_array().expect("tests").iter().find(|t| t["path"] == "tests/doubling.rs").cloned();
    assert!(doubling.is_none_or(|t| !t["why"].as_array().expect("why").iter().any(|w| s(w).starts_with("calls"))), "{v}");
}

/// What a change is for names its tests: a commit's subject (or `--message`
/// for the work tree) that says a test file's name words ranks that test
/// above one the code ties with it; the answer lists the words it said.
/// Without a message no test is named by one.
#[test]
fn the_change_s_message_names_its_tests() {
    let repo = TestRepo::new();
    repo.write("app/__init__.py", "");
    let core = "def echo(text, hidden=False):\n    return text\n";
    repo.write("app/core.py", core);
    repo.write("tests/test_colors.py", "from app.core import echo\n\n\ndef test_plain():\n    assert echo(\"y\") == \"y\"\n");
    repo.write("tests/test_hidden_input.py", "from app.core import echo\n\n\ndef test_masked():\n    assert echo(\"x\", True) == \"x\"\n");
    repo.commit("base");
    repo.rag_ok(&["index", "--no-semantic", "-q"]);
    let fixed = core.replace("    return text\n", "    if hidden:\n        return \"*\" * len(text)\n    return text\n");
    repo.write("app/core.py", &fixed);
    let named = |v: &Value, path: &str| {
        v["tests"].as_array().expect("tests").iter().find(|t| t["path"] == path).map(|t| t["signals"]["named_by_message"].as_f64().unwrap_or(0.0))
    };
    let bare = impact(&repo, &[]);
    assert_eq!(named(&bare, "tests/test_hidden_input.py"), Some(0.0), "no message, no test named by one: {bare}");
    let told = impact(&repo, &["--message", "Mask the echo of hidden input"]);
    assert_eq!(named(&told, "tests/test_hidden_input.py"), Some(1.0), "{told}");
    assert_eq!(named(&told, "tests/test_colors.py"), Some(0.0), "{told}");
    assert_eq!(tests(&told).first().map(String::as_str), Some("tests/test_hidden_input.py"), "{told}");
    let first = &told["tests"][0];
    assert!(first["why"].as_array().expect("why").iter().any(|w| s(w) == "named by the change's message (`hidden`, `input`, 2 of 2)"), "{first}");
    // A commit is its own message: its subject names the test.
    repo.commit("Mask the echo of hidden input");
    let committed = impact(&repo, &["HEAD"]);
    assert_eq!(named(&committed, "tests/test_hidden_input.py"), Some(1.0), "{committed}");
    assert_eq!(tests(&committed).first().map(String::as_str), Some("tests/test_hidden_input.py"), "{committed}");
}
