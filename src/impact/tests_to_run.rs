//! The tests a change should run, one ranked list of test files from
//! every kind of evidence there is for them: the graph (test code that
//! calls, subclasses or imports the changed code, directly or through the
//! code it reaches), the names the tests say, the language's naming
//! conventions (`test_<module>.py`, `<name>_test.go`, `<Name>Test.java`,
//! `<name>.spec.ts`, …, and a Rust file's own `mod tests`), and the
//! repository's history (test files committed together with the changed
//! files). A test module inside a source file is listed under that file,
//! named by its test function. A file's score is the sum over kinds of
//! evidence of the strongest of each kind (`weights.rs`); `why` lists them.

use std::collections::{BTreeMap, HashSet};

use super::history::History;
use super::reach::Reached;
use super::weights::{
    COCHANGE_PRIOR, COMMITS_EDITING_A_TEST_CODE, COMMITS_EDITING_A_TEST_CONFIGURATION, MESSAGE_MIN_WORD, RUN_TIER_PROBABILITY, TEST_COCHANGED,
    TEST_COCHANGED_RECENTLY, TEST_IMPORTS, TEST_IN_CHANGE, TEST_LEXICAL, TEST_NAMED_AFTER_DEFINITION, TEST_NAMED_AFTER_FILE, TEST_NAMED_AFTER_FOLDER,
    TEST_NAMED_BY_MESSAGE, TEST_NAMES, TEST_PROBABILITY_CONFIGURATION_ONLY, TEST_PROBABILITY_CONFIGURATION_ONLY_LOG_SCORE, TEST_PROBABILITY_INTERCEPT,
    TEST_PROBABILITY_LOG_RANK, TEST_PROBABILITY_LOG_SCORE, TEST_PROBABILITY_SHARE_OF_TOP, TEST_REACHED,
};
use super::{ChangeKind, ChangedCode, Relation, TestToRun, Tier};
use crate::analysis::name::own_part as own_name;
use crate::analysis::role::Role;
use crate::graph::{EdgeKind, GraphError, Neighbourhood, NodeKey};

/// The kinds of evidence, each counted once per file (its strongest).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Signal {
    InChange,
    Reached,
    NamedAfterFile,
    NamedAfterFolder,
    NamedAfterDefinition,
    NamedByMessage,
    Imports,
    Names,
    Lexical,
    Cochanged,
    CochangedRecently,
}

impl Signal {
    /// The name a test's `signals` give it.
    fn name(self) -> &'static str {
        match self {
            Signal::InChange => "in_change",
            Signal::Reached => "reached",
            Signal::NamedAfterFile => "named_after_file",
            Signal::NamedAfterFolder => "named_after_folder",
            Signal::NamedAfterDefinition => "named_after_definition",
            Signal::NamedByMessage => "named_by_message",
            Signal::Imports => "imports",
            Signal::Names => "names",
            Signal::Lexical => "lexical",
            Signal::Cochanged => "cochanged",
            Signal::CochangedRecently => "cochanged_recently",
        }
    }

    /// What a unit of it is worth (`weights.rs`).
    fn weight(self) -> f32 {
        match self {
            Signal::InChange => TEST_IN_CHANGE,
            Signal::Reached => TEST_REACHED,
            Signal::NamedAfterFile => TEST_NAMED_AFTER_FILE,
            Signal::NamedAfterFolder => TEST_NAMED_AFTER_FOLDER,
            Signal::NamedAfterDefinition => TEST_NAMED_AFTER_DEFINITION,
            Signal::NamedByMessage => TEST_NAMED_BY_MESSAGE,
            Signal::Imports => TEST_IMPORTS,
            Signal::Names => TEST_NAMES,
            Signal::Lexical => TEST_LEXICAL,
            Signal::Cochanged => TEST_COCHANGED,
            Signal::CochangedRecently => TEST_COCHANGED_RECENTLY,
        }
    }
}

/// A file's evidence: per signal its strongest value (0–1) and what it says.
#[derive(Default)]
struct Found {
    parts: BTreeMap<Signal, (f32, String)>,
    symbol: Option<(f32, String)>,
}

impl Found {
    fn add(&mut self, signal: Signal, value: f32, why: String) {
        if self.parts.get(&signal).is_none_or(|(v, _)| value > *v) {
            self.parts.insert(signal, (value, why));
        }
    }

    /// The ranked entry: the score is each signal's value times its weight, summed.
    fn into_test(self, path: String) -> TestToRun {
        let signals: BTreeMap<&'static str, f64> = self.parts.iter().map(|(s, (v, _))| (s.name(), super::rounded(*v))).collect();
        let mut parts: Vec<(f32, String)> = self.parts.into_iter().map(|(s, (v, why))| (s.weight() * v, why)).collect();
        parts.sort_by(|a, b| b.0.total_cmp(&a.0));
        let score = super::rounded(parts.iter().map(|p| p.0).sum());
        let why = parts.into_iter().map(|p| p.1).collect();
        TestToRun { path, symbol: self.symbol.map(|(_, s)| s), score, probability: 0.0, tier: Tier::Maybe, why, signals }
    }
}

/// A test file to run, by its path: test code ([`Role::Test`]), not a
/// fixture, a snapshot or an example.
pub(crate) fn is_test_file(path: &str) -> bool {
    Role::of(path) == Role::Test
}

/// What the graph, the names, the conventions and the history say.
pub(crate) struct Inputs<'a> {
    pub changed: &'a [ChangedCode],
    pub changed_paths: &'a [String],
    pub reached: &'a [Reached],
    pub history: &'a History,
    /// Test files by what they say (`lexical.rs`).
    pub lexical: &'a BTreeMap<String, super::lexical::LexicalMatch>,
    /// What the change is for, in words (its commit subjects, `--message`).
    pub message: &'a str,
    /// The change is configuration alone (`mod.rs`'s `configuration_only`).
    pub configuration_only: bool,
}

/// The ranked tests, at most `limit`.
pub(crate) fn rank(nb: &mut Neighbourhood, inputs: &Inputs, limit: usize) -> Result<Vec<TestToRun>, GraphError> {
    let paths: HashSet<String> = nb.paths()?.iter().cloned().collect();
    let tests: Vec<&String> = paths.iter().filter(|p| is_test_file(p)).collect();
    let mut found: BTreeMap<String, Found> = BTreeMap::new();
    for p in inputs.changed_paths.iter().filter(|p| is_test_file(p) && paths.contains(*p)) {
        found.entry(p.clone()).or_default().add(Signal::InChange, 1.0, "changed in this diff".to_string());
    }
    // Test code: in a test file, or a source file's own test module (Rust's `#[cfg(test)] mod tests`).
    for r in inputs.reached.iter().filter(|r| r.test && r.key.role() == Role::Test) {
        let f = found.entry(r.path().to_string()).or_default();
        let verb = match r.relation {
            Relation::Calls => "calls",
            Relation::Imports => "imports",
            Relation::Inherits => "subclasses",
            Relation::Implements => "implements",
            Relation::Overrides => "overrides",
        };
        let through = if r.depth > 1 { format!(" (through {} hops)", r.depth) } else { String::new() };
        f.add(Signal::Reached, r.score, format!("{verb} `{}`{through}", r.reaches));
        if let Some(sym) = r.symbol().filter(|_| f.symbol.as_ref().is_none_or(|(s, _)| r.score > *s)) {
            f.symbol = Some((r.score, sym.to_string()));
        }
    }
    let sources: Vec<&String> = inputs.changed_paths.iter().filter(|p| !is_test_file(p)).collect();
    for source in &sources {
        by_convention(source, &tests, &mut found);
        by_own_test_module(nb, source, &mut found)?;
        by_history(source, inputs.history, &paths, &mut found);
        by_imports(nb, source, &mut found)?;
    }
    by_names(nb, inputs.changed, &mut found)?;
    by_definition_names(inputs.changed, &tests, &mut found);
    by_message(inputs.message, &tests, &mut found);
    for (path, m) in inputs.lexical.iter().filter(|(p, _)| paths.contains(*p)) {
        let why = format!("says what the change says (BM25 rank {} of the tests: {:.1}, the changed code {:.1})", m.rank, m.score, m.reference);
        found.entry(path.clone()).or_default().add(Signal::Lexical, m.value(), why);
    }
    let mut out: Vec<TestToRun> = found.into_iter().map(|(path, f)| f.into_test(path)).collect();
    out.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.path.cmp(&b.path)));
    out.truncate(limit);
    calibrate(&mut out, inputs.configuration_only);
    Ok(out)
}

/// Each test's probability and tier, from its score, its rank, its
/// score's share of the first's, and whether the change is configuration
/// alone (`weights.rs`, fitted by `scripts/calibrate-impact.py`). Such a
/// change's run tier asks more, as such changes edit tests ten times less often.
fn calibrate(tests: &mut [TestToRun], configuration_only: bool) {
    let top = tests.first().map_or(0.0, |t| t.score).max(1e-9);
    let configuration = if configuration_only { 1.0 } else { 0.0 };
    let run_tier =
        if configuration_only { RUN_TIER_PROBABILITY * COMMITS_EDITING_A_TEST_CODE / COMMITS_EDITING_A_TEST_CONFIGURATION } else { RUN_TIER_PROBABILITY };
    for (i, t) in tests.iter_mut().enumerate() {
        let score = t.score.max(0.0) as f32;
        let z = TEST_PROBABILITY_INTERCEPT
            + TEST_PROBABILITY_LOG_SCORE * score.ln_1p()
            + TEST_PROBABILITY_LOG_RANK * ((i + 1) as f32).ln()
            + TEST_PROBABILITY_SHARE_OF_TOP * score / top as f32
            + configuration * (TEST_PROBABILITY_CONFIGURATION_ONLY + TEST_PROBABILITY_CONFIGURATION_ONLY_LOG_SCORE * score.ln_1p());
        let p = 1.0 / (1.0 + (-z).exp());
        t.probability = super::rounded(p);
        t.tier = if p >= run_tier { Tier::Run } else { Tier::Maybe };
    }
}

/// The words of a name, as tests and the files they test share them:
/// split at separators and case changes, lowercase, a plural `s` dropped
/// (`test_ext_viewcode` → test, ext, viewcode; `UserServiceTest` → user, service, test).
fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        let boundary = !c.is_alphanumeric() || (c.is_uppercase() && prev_lower);
        if boundary && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    out.extend((!word.is_empty()).then_some(word));
    out.into_iter()
        .map(|mut w| {
            if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
                w.pop();
            }
            w
        })
        .collect()
}

/// Two words of names are one when equal, or when the shorter, of five
/// letters or more, begins the longer: `build` and `builder`, `config` and
/// `configs`, `serial` and `serializer` (names inflect; four letters would
/// let `form` say `formatting`).
fn same_word(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short == long || (short.len() >= 5 && long.starts_with(short))
}

/// Words that mark a file as a test, not what it tests.
fn is_test_word(w: &str) -> bool {
    matches!(w, "test" | "spec" | "suite" | "unittest")
}

/// A test file's subject: the words of its name (every extension off) but its test affixes.
fn subject_words(test: &str) -> Vec<String> {
    let name = test.rsplit('/').next().unwrap_or(test);
    let stem = name.split('.').next().unwrap_or(name);
    let rest = &name[stem.len()..];
    // `x.test.ts`, `x.spec.js`: the affix is an extension.
    let mut w: Vec<String> = words(stem);
    w.extend(words(rest).into_iter().filter(|x| is_test_word(x)));
    w.into_iter().filter(|x| !is_test_word(x)).collect()
}

/// Stems that name their folder, not themselves.
fn names_its_folder(stem: &str) -> bool {
    matches!(stem, "__init__" | "mod" | "index" | "lib" | "main" | "init")
}

/// How a test file's name says a source file: `Some((true, share))` when
/// it says the file's own name, `share` the part of the test's words the
/// source's path holds (`test_ext_viewcode.py` for `sphinx/ext/viewcode.py`:
/// 1; `test_ext_autodoc_configs.py` for `sphinx/ext/autodoc/__init__.py`:
/// 2/3); `Some((false, 1))` when it says only the file's folder.
fn naming(test_words: &[String], source: &str) -> Option<(bool, f32)> {
    if test_words.is_empty() {
        return None;
    }
    let parts: Vec<&str> = source.split('/').collect();
    let file = parts.last().copied().unwrap_or(source);
    let stem = file.split('.').next().unwrap_or(file);
    let folders = &parts[..parts.len().saturating_sub(1)];
    let folder = folders.last().map(|f| words(f)).unwrap_or_default();
    let own = if names_its_folder(stem) { folder.clone() } else { words(stem) };
    let path_words: Vec<String> = folders.iter().flat_map(|f| words(f)).chain(own.iter().cloned()).collect();
    let contains = |set: &[String], w: &String| set.iter().any(|x| same_word(x, w));
    if !own.is_empty() && own.iter().all(|w| contains(test_words, w)) {
        let share = test_words.iter().filter(|w| contains(&path_words, w)).count() as f32 / test_words.len() as f32;
        return Some((true, share));
    }
    (!folder.is_empty() && folder.iter().all(|w| contains(test_words, w)) && test_words.iter().all(|w| contains(&path_words, w))).then_some((false, 1.0))
}

fn by_convention(source: &str, tests: &[&String], found: &mut BTreeMap<String, Found>) {
    for t in tests {
        match naming(&subject_words(t), source) {
            Some((true, share)) => found.entry(t.to_string()).or_default().add(Signal::NamedAfterFile, share, format!("named after {source}")),
            Some((false, share)) => found.entry(t.to_string()).or_default().add(Signal::NamedAfterFolder, share, format!("named after the folder of {source}")),
            None => {}
        }
    }
}

/// Test files whose name says a changed definition's (or its class's):
/// `test_arguments.py` for `Argument.__init__`, `fixtures.py` under a test
/// folder for `_showfixtures_main`.
fn by_definition_names(changed: &[ChangedCode], tests: &[&String], found: &mut BTreeMap<String, Found>) {
    let defs: Vec<(&str, Vec<String>)> = changed
        .iter()
        .filter(|c| !matches!(c.change, ChangeKind::Added) && !c.change.runs_as_before() && !is_test_file(&c.path))
        .filter_map(|c| c.symbol.as_deref())
        .map(|q| (q, words(q)))
        .collect();
    if defs.is_empty() {
        return;
    }
    for t in tests {
        let subject = subject_words(t);
        if subject.iter().map(String::len).sum::<usize>() < 4 {
            continue;
        }
        if let Some((q, _)) = defs.iter().find(|(_, w)| subject.iter().all(|s| w.contains(s))) {
            found.entry(t.to_string()).or_default().add(Signal::NamedAfterDefinition, 1.0, format!("named after `{q}`"));
        }
    }
}

/// Tests named by what the change is for: the share of a test file's name
/// words (its test affixes off) the message says, each said word listed.
fn by_message(message: &str, tests: &[&String], found: &mut BTreeMap<String, Found>) {
    let said: Vec<String> = words(message).into_iter().filter(|w| w.len() >= MESSAGE_MIN_WORD && !is_test_word(w)).collect();
    if said.is_empty() {
        return;
    }
    for t in tests {
        let subject = subject_words(t);
        let named: Vec<&String> = subject.iter().filter(|w| said.iter().any(|s| same_word(s, w))).collect();
        if named.is_empty() {
            continue;
        }
        let share = named.len() as f32 / subject.len() as f32;
        let listed = named.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ");
        found.entry(t.to_string()).or_default().add(
            Signal::NamedByMessage,
            share,
            format!("named by the change's message ({listed}, {} of {})", named.len(), subject.len()),
        );
    }
}

/// A source file's own test module (Rust's `mod tests`, [`Role::of_code`])
/// is its tests by the language's convention, as `test_<stem>.py` is
/// Python's: `cargo test <module>::tests` runs them.
fn by_own_test_module(nb: &mut Neighbourhood, source: &str, found: &mut BTreeMap<String, Found>) -> Result<(), GraphError> {
    let Some(facts) = nb.facts_of(source)? else { return Ok(()) };
    let Some(module) = facts.symbols.iter().map(|s| s.qualified_name.as_str()).find(|q| Role::of_code(source, Some(q)) == Role::Test) else {
        return Ok(());
    };
    // `tests::roundtrip` → `tests`; `parser::tests::empty` → `parser::tests`.
    let parts: Vec<&str> = module.split("::").collect();
    let module = parts[..parts.iter().position(|p| *p == "tests").map_or(parts.len(), |i| i + 1)].join("::");
    let f = found.entry(source.to_string()).or_default();
    f.add(Signal::NamedAfterFile, 1.0, format!("its own test module `{module}`"));
    if f.symbol.is_none() {
        f.symbol = Some((0.0, module));
    }
    Ok(())
}

fn by_history(source: &str, history: &History, paths: &HashSet<String>, found: &mut BTreeMap<String, Found>) {
    let together = history.together_with(source);
    let n = together.commits;
    for (t, (k, recent)) in together.with.into_iter().filter(|(t, _)| is_test_file(t) && paths.contains(*t)) {
        let f = found.entry(t.to_string()).or_default();
        f.add(Signal::Cochanged, k as f32 / (n as f32 + COCHANGE_PRIOR), format!("changed with {source} in {k} of its {n} commits"));
        f.add(Signal::CochangedRecently, recent / (together.recent + COCHANGE_PRIOR), format!("changed with {source} recently"));
    }
}

fn by_imports(nb: &mut Neighbourhood, source: &str, found: &mut BTreeMap<String, Found>) -> Result<(), GraphError> {
    let Some(file) = nb.node(&NodeKey::File(source.to_string()))? else { return Ok(()) };
    let (importers, _) = nb.incoming_in_order(&[file], &[EdgeKind::Imports], |p: &str| p.to_string(), |_, _| false)?;
    for ix in importers {
        let path = super::reach::key_path(&nb.graph().graph[ix].key).to_string();
        if is_test_file(&path) {
            found.entry(path).or_default().add(Signal::Imports, 1.0, format!("imports {source}"));
        }
    }
    Ok(())
}

fn by_names(nb: &mut Neighbourhood, changed: &[ChangedCode], found: &mut BTreeMap<String, Found>) -> Result<(), GraphError> {
    let mut names: Vec<String> = changed
        .iter()
        .filter(|c| !matches!(c.change, ChangeKind::Added) && !c.change.runs_as_before() && !is_test_file(&c.path))
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
            found.entry(f).or_default().add(Signal::Names, rarity, format!("names `{name}`"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_are_named_after_their_subject_in_every_convention() {
        let named = |t: &str, s: &str| naming(&subject_words(t), s);
        for t in [
            "tests/test_blueprints.py",
            "src/BlueprintTest.java",
            "x/blueprint.spec.ts",
            "blueprint_test.go",
            "spec/blueprint_spec.rb",
            "BlueprintsSpec.scala",
            "__tests__/blueprint.test.js",
            "TestBlueprint.cs",
        ] {
            assert_eq!(named(t, "src/flask/blueprints.py"), Some((true, 1.0)), "{t}");
        }
        assert_eq!(named("tests/test_ext_viewcode.py", "sphinx/ext/viewcode.py"), Some((true, 1.0)));
        assert_eq!(named("tests/test_domain_std.py", "sphinx/domains/std.py"), Some((true, 1.0)));
        assert_eq!(named("tests/test_build_manpage.py", "sphinx/builders/manpage.py"), Some((true, 1.0)));
        assert_eq!(named("tests/test_form.py", "app/formatting.py"), None);
        let (own, share) = named("tests/test_ext_autodoc_configs.py", "sphinx/ext/autodoc/__init__.py").unwrap();
        assert!(own && (share - 2.0 / 3.0).abs() < 1e-6);
        assert_eq!(named("testing/test_mark.py", "src/_pytest/mark/structures.py"), Some((false, 1.0)));
        assert_eq!(named("src/test/java/UserServiceTest.java", "src/main/java/UserService.java"), Some((true, 1.0)));
        assert_eq!(named("tests/test_other.py", "src/flask/blueprints.py"), None);
        assert_eq!(words("Argument.__init__"), ["argument", "init"]);
        assert_eq!(subject_words("testing/python/fixtures.py"), ["fixture"]);
        assert!(is_test_file("tests/test_x.py"));
        assert!(!is_test_file("tests/fixtures/x.py"));
        assert!(!is_test_file("tests/data.json"));
        assert!(!is_test_file("src/x.py"));
    }
}
