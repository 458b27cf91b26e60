//! The tests a change should run, one ranked list of test files from
//! every kind of evidence there is for them: the graph (test code that
//! calls, subclasses or imports the changed code, directly or through the
//! code it reaches), the names the tests say, the language's naming
//! conventions (`test_<module>.py`, `<name>_test.go`, `<Name>Test.java`,
//! `<name>.spec.ts`, …), and the repository's history (test files committed
//! together with the changed files). A file's score is the sum over kinds of
//! evidence of the strongest of each kind (`weights.rs`); `why` lists them.

use std::collections::{BTreeMap, HashSet};

use super::history::History;
use super::reach::{own_name, Reached};
use super::weights::*;
use super::{ChangeKind, ChangedCode, Relation, TestToRun};
use crate::analysis::lang::{self, Language};
use crate::graph::{EdgeKind, GraphError, Neighbourhood, NodeKey};

/// The kinds of evidence, each counted once per file (its strongest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Signal {
    InChange,
    Reached,
    NamedAfterFile,
    NamedAfterFolder,
    Imports,
    Names,
    Cochanged,
}

#[derive(Default)]
struct Found {
    parts: BTreeMap<Signal, (f32, String)>,
    symbol: Option<(f32, String)>,
}

impl Found {
    fn add(&mut self, signal: Signal, score: f32, why: String) {
        if self.parts.get(&signal).is_none_or(|(s, _)| score > *s) {
            self.parts.insert(signal, (score, why));
        }
    }
}

/// A test file, by its path: test code in a language (not a fixture, a
/// snapshot, sample data).
pub(crate) fn is_test_file(path: &str) -> bool {
    let data_folder = path.split('/').any(|p| matches!(p.to_ascii_lowercase().as_str(), "fixtures" | "fixture" | "testdata" | "examples" | "example" | "__snapshots__" | "snapshots" | "data"));
    let code = !matches!(Language::from_path(path), Language::Text | Language::Markdown | Language::Json | Language::Yaml | Language::Toml);
    lang::is_test_path(path) && !data_folder && code
}

/// What the graph, the names, the conventions and the history say.
pub(crate) struct Inputs<'a> {
    pub changed: &'a [ChangedCode],
    pub changed_paths: &'a [String],
    pub reached: &'a [Reached],
    pub history: &'a History,
}

/// The ranked tests, at most `limit`.
pub(crate) fn rank(nb: &mut Neighbourhood, inputs: &Inputs, limit: usize) -> Result<Vec<TestToRun>, GraphError> {
    let paths: HashSet<String> = nb.paths()?.iter().cloned().collect();
    let tests: Vec<&String> = paths.iter().filter(|p| is_test_file(p)).collect();
    let mut found: BTreeMap<String, Found> = BTreeMap::new();
    for p in inputs.changed_paths.iter().filter(|p| is_test_file(p) && paths.contains(*p)) {
        found.entry(p.clone()).or_default().add(Signal::InChange, TEST_IN_CHANGE, "changed in this diff".to_string());
    }
    for r in inputs.reached.iter().filter(|r| r.test && is_test_file(r.path())) {
        let f = found.entry(r.path().to_string()).or_default();
        let verb = match r.relation {
            Relation::Calls => "calls",
            Relation::Imports => "imports",
            Relation::Inherits => "subclasses",
            Relation::Implements => "implements",
            Relation::Overrides => "overrides",
        };
        let through = if r.depth > 1 { format!(" (through {} hops)", r.depth) } else { String::new() };
        f.add(Signal::Reached, TEST_REACHED * r.score, format!("{verb} `{}`{through}", r.reaches));
        if let Some(sym) = r.symbol().filter(|_| f.symbol.as_ref().is_none_or(|(s, _)| r.score > *s)) {
            f.symbol = Some((r.score, sym.to_string()));
        }
    }
    let sources: Vec<&String> = inputs.changed_paths.iter().filter(|p| !is_test_file(p)).collect();
    for source in &sources {
        by_convention(source, &tests, &mut found);
        by_history(source, inputs.history, &paths, &mut found);
        by_imports(nb, source, &mut found)?;
    }
    by_names(nb, inputs.changed, &mut found)?;
    let mut out: Vec<TestToRun> = found
        .into_iter()
        .map(|(path, f)| {
            let mut parts: Vec<(f32, String)> = f.parts.into_values().collect();
            parts.sort_by(|a, b| b.0.total_cmp(&a.0));
            TestToRun { path, symbol: f.symbol.map(|(_, s)| s), score: super::rounded(parts.iter().map(|p| p.0).sum()), why: parts.into_iter().map(|p| p.1).collect() }
        })
        .collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    out.truncate(limit);
    Ok(out)
}

/// A file's stem as tests name it: lowercase, without test affixes,
/// separators or a plural `s` (`test_blueprints.py`, `BlueprintTest.java`,
/// `blueprint.spec.ts` and `blueprints.py` all give `blueprint`).
fn subject_of(file: &str) -> String {
    let name = file.rsplit('/').next().unwrap_or(file);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s).to_ascii_lowercase();
    let mut s = stem.as_str();
    for prefix in ["tests_", "test_", "test-", "test"] {
        if let Some(rest) = s.strip_prefix(prefix).filter(|r| !r.is_empty()) {
            s = rest;
            break;
        }
    }
    for suffix in ["_unittest", ".test", ".spec", "_tests", "_test", "-test", "_spec", "-spec", "tests", "test", "spec", "suite"] {
        if let Some(rest) = s.strip_suffix(suffix).filter(|r| !r.is_empty()) {
            s = rest;
            break;
        }
    }
    let mut out: String = s.chars().filter(|c| c.is_alphanumeric()).collect();
    if out.len() > 3 && out.ends_with('s') {
        out.pop();
    }
    out
}

/// Stems that name their folder, not themselves.
fn names_its_folder(stem: &str) -> bool {
    matches!(stem, "__init__" | "mod" | "index" | "lib" | "main" | "init")
}

fn by_convention(source: &str, tests: &[&String], found: &mut BTreeMap<String, Found>) {
    let mut folders = source.rsplit('/').skip(1);
    let folder = folders.next().map(subject_of);
    let file_stem = source.rsplit('/').next().and_then(|n| n.split('.').next()).unwrap_or_default();
    let file = if names_its_folder(file_stem) { folder.clone() } else { Some(subject_of(source)) };
    for t in tests {
        let subject = subject_of(t);
        if subject.len() < 3 {
            continue;
        }
        if file.as_deref() == Some(subject.as_str()) {
            found.entry(t.to_string()).or_default().add(Signal::NamedAfterFile, TEST_NAMED_AFTER_FILE, format!("named after {source}"));
        } else if folder.as_deref() == Some(subject.as_str()) {
            found.entry(t.to_string()).or_default().add(Signal::NamedAfterFolder, TEST_NAMED_AFTER_FOLDER, format!("named after the folder of {source}"));
        }
    }
}

fn by_history(source: &str, history: &History, paths: &HashSet<String>, found: &mut BTreeMap<String, Found>) {
    let (n, with) = history.together_with(source);
    for (t, k) in with.into_iter().filter(|(t, _)| is_test_file(t) && paths.contains(*t)) {
        let score = TEST_COCHANGED * k as f32 / (n as f32 + COCHANGE_PRIOR);
        found.entry(t.to_string()).or_default().add(Signal::Cochanged, score, format!("changed with {source} in {k} of its {n} commits"));
    }
}

fn by_imports(nb: &mut Neighbourhood, source: &str, found: &mut BTreeMap<String, Found>) -> Result<(), GraphError> {
    let Some(file) = nb.node(&NodeKey::File(source.to_string()))? else { return Ok(()) };
    let (importers, _) = nb.incoming_in_order(&[file], &[EdgeKind::Imports], |p: &str| p.to_string(), |_, _| false)?;
    for ix in importers {
        let path = super::reach::key_path(&nb.graph().graph[ix].key).to_string();
        if is_test_file(&path) {
            found.entry(path).or_default().add(Signal::Imports, TEST_IMPORTS, format!("imports {source}"));
        }
    }
    Ok(())
}

fn by_names(nb: &mut Neighbourhood, changed: &[ChangedCode], found: &mut BTreeMap<String, Found>) -> Result<(), GraphError> {
    let mut names: Vec<String> = changed
        .iter()
        .filter(|c| c.change != ChangeKind::Added && !is_test_file(&c.path))
        .filter_map(|c| c.symbol.as_deref().map(own_name))
        .chain(changed.iter().filter_map(|c| c.previous.as_deref().map(own_name)))
        .filter(|n| n.len() > 2)
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    for name in names {
        let files = nb.referencing(std::slice::from_ref(&name))?;
        let rarity = 1.0 / (1.0 + (files.len().max(1) as f32).ln());
        for f in files.into_iter().filter(|f| is_test_file(f)) {
            found.entry(f).or_default().add(Signal::Names, TEST_NAMES * rarity, format!("names `{name}`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_are_named_after_their_subject_in_every_convention() {
        for t in ["tests/test_blueprints.py", "src/BlueprintTest.java", "x/blueprint.spec.ts", "blueprint_test.go", "spec/blueprint_spec.rb", "BlueprintsSpec.scala", "__tests__/blueprint.test.js"] {
            assert_eq!(subject_of(t), "blueprint", "{t}");
        }
        assert_eq!(subject_of("src/flask/blueprints.py"), "blueprint");
        assert!(is_test_file("tests/test_x.py"));
        assert!(!is_test_file("tests/fixtures/x.py"));
        assert!(!is_test_file("tests/data.json"));
        assert!(!is_test_file("src/x.py"));
    }
}
