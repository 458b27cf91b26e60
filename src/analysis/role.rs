//! What a file is for, read from its path: the one answer the ranking, the
//! graph's listings and `impact` share (code, a test, a test's data, an
//! example, docs, a changelog, ...).
//!
//! The rules are tables by kind, checked in one order ([`Role::of`]): what
//! a project keeps apart (CI, vendored code, templates, changelogs) first,
//! then a test's data before test code (a fixture under `tests/` is data,
//! not a test to run), examples and benchmarks, then docs and config by
//! their extension; everything else is code. Test files follow each
//! language's convention ([`TEST_FILE_SUFFIXES`], [`TEST_FOLDERS`], ...).
//!
//! Invariant: a path has one role; the predicates ([`Role::is_test_side`])
//! are read off it, never computed beside it.

use crate::analysis::lang::Language;

/// What a file is for, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Code,
    /// Test code: a file a test runner runs (or its helpers: `conftest.py`).
    Test,
    /// What tests read: fixtures, snapshots, `testdata/`, and data files
    /// (JSON, YAML, text, Markdown) under a test folder.
    TestData,
    /// Code that shows how to use the project: `examples/`, `demo/`, `samples/`.
    Example,
    /// Benchmarks: `benches/`, `benchmarks/`.
    Bench,
    /// Markdown, reStructuredText, plain text, or anything under `doc(s)/`.
    Docs,
    /// Changelogs, release notes, news fragments.
    Changelog,
    /// Issue and pull-request templates, and the rest of `.github/` but workflows.
    Template,
    /// CI workflows and pipelines.
    Ci,
    /// Build and tool configuration (`setup.cfg`, `tox.ini`, YAML, TOML, ...).
    Config,
    /// Code the project ships but did not write: vendored libraries,
    /// minified bundles (`jquery-3.5.1.js`), translations.
    Vendored,
    /// Generated files nobody searches: lock files, source maps, minified
    /// bundles ([`is_generated`]); the index leaves them out.
    Generated,
}

/// Lock files, source maps and minified bundles, by their exact name.
const GENERATED_NAMES: &[&str] = &["package-lock.json", "yarn.lock", "pnpm-lock.yaml", "Cargo.lock", "poetry.lock", "uv.lock", "Pipfile.lock", "composer.lock"];
const GENERATED_SUFFIXES: &[&str] = &[".min.js", ".min.css", ".map"];

const CI_FOLDERS: &[&str] = &[".github/workflows/", ".circleci/"];
const CI_NAMES: &[&str] = &[".travis.yml", ".gitlab-ci.yml", "azure-pipelines.yml", "appveyor.yml", "jenkinsfile"];

const VENDOR_FOLDERS: &[&str] =
    &["vendor", "vendored", "_vendor", "third_party", "thirdparty", "third-party", "node_modules", "bower_components", "locale", "locales"];

const TEMPLATE_FOLDERS: &[&str] = &[".github/", ".gitlab/"];

/// A changelog's own name (`CHANGES.rst`, `HISTORY.md`, `NEWS`): with a
/// document's extension or none, so that `history.rs` stays code.
const CHANGELOG_NAMES: &[&str] = &["changelog", "changes", "history", "news", "release-notes", "release_notes", "releasenotes", "whatsnew"];
const CHANGELOG_FOLDERS: &[&str] = &["changelog", "changelog.d", "changes", "newsfragments", "news", "release-notes", "releasenotes", "whatsnew"];

/// Folders of what tests read.
const TEST_DATA_FOLDERS: &[&str] = &["fixtures", "fixture", "testdata", "test_data", "__snapshots__", "snapshots"];

/// Folders of test code, in any language.
const TEST_FOLDERS: &[&str] = &["test", "tests", "testing", "__tests__", "spec", "specs", "e2e"];
/// A file or folder name's stem ending so is a test (`x_test.go`,
/// `x_spec.rb`, `x_test.exs`, `a_unittest.cc`).
const TEST_STEM_SUFFIXES: &[&str] = &["_test", "_tests", "_spec", "_unittest"];
/// `x.test.ts`, `x.spec.js`.
const TEST_INFIXES: &[&str] = &[".test.", ".spec."];
/// Each language family's test class names: a stem ending so (letter case
/// kept: `LatestTest` is a test, `Latest` is not), in files of these extensions.
const TEST_FILE_SUFFIXES: &[(&[&str], &[&str])] = &[
    (&["Test", "Tests"], &[".java", ".cs", ".kt", ".swift", ".php", ".scala"]),
    (&["Spec", "Suite"], &[".scala", ".kt", ".hs", ".swift"]),
    (&["_SUITE"], &[".erl"]),
];
/// Test files by extension alone: Bats, Perl's `.t`.
const TEST_EXTENSIONS: &[&str] = &[".bats", ".t"];
const TEST_NAMES: &[&str] = &["conftest.py"];

const EXAMPLE_FOLDERS: &[&str] = &["example", "examples", "demo", "demos", "sample", "samples"];
const BENCH_FOLDERS: &[&str] = &["bench", "benches", "benchmark", "benchmarks"];

const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "rst", "txt", "adoc", "asciidoc"];
const DOC_FOLDERS: &[&str] = &["doc", "docs", "documentation"];

const CONFIG_NAMES: &[&str] = &[
    "setup.py",
    "noxfile.py",
    "setup.cfg",
    "tox.ini",
    "pyproject.toml",
    "makefile",
    "dockerfile",
    "cargo.toml",
    "package.json",
    "tsconfig.json",
    "codecov.yml",
    "mypy.ini",
    "pytest.ini",
    ".pre-commit-config.yaml",
    ".readthedocs.yml",
    ".readthedocs.yaml",
    ".editorconfig",
    ".gitignore",
    ".gitattributes",
    ".coveragerc",
    ".flake8",
    "manifest.in",
    "cmakelists.txt",
    "requirements.txt",
];
const CONFIG_EXTENSIONS: &[&str] = &["toml", "ini", "cfg", "yaml", "yml", "json", "lock", "conf"];

/// A path taken apart once: lowercase folders, file name, stem and extension.
struct Parts<'a> {
    /// The path as given (test class names keep their letter case).
    path: &'a str,
    lower: String,
}

impl<'a> Parts<'a> {
    fn of(path: &'a str) -> Self {
        Parts { path, lower: path.to_ascii_lowercase() }
    }

    fn folders(&self) -> impl Iterator<Item = &str> {
        let mut parts: Vec<&str> = self.lower.split('/').collect();
        parts.pop();
        parts.into_iter()
    }

    fn in_folder(&self, names: &[&str]) -> bool {
        self.folders().any(|f| names.contains(&f))
    }

    fn name(&self) -> &str {
        self.lower.rsplit('/').next().unwrap_or(&self.lower)
    }

    /// `(stem, extension)` at the last dot (a leading dot is part of the stem).
    fn stem_and_extension(&self) -> (&str, &str) {
        match self.name().rsplit_once('.') {
            Some((s, e)) if !s.is_empty() => (s, e),
            _ => (self.name(), ""),
        }
    }
}

impl Role {
    /// The role of the file at `path` (relative to the repository root).
    pub fn of(path: &str) -> Role {
        let p = Parts::of(path);
        let (stem, ext) = p.stem_and_extension();
        if is_generated(path) {
            Role::Generated
        } else if CI_FOLDERS.iter().any(|f| p.lower.starts_with(f)) || CI_NAMES.contains(&p.name()) {
            Role::Ci
        } else if p.in_folder(VENDOR_FOLDERS) || stem.ends_with(".min") || versioned_bundle(stem, ext) || nested_python_packages(&p, ext) {
            Role::Vendored
        } else if TEMPLATE_FOLDERS.iter().any(|f| p.lower.starts_with(f)) || stem.ends_with("_template") || stem == "pull_request_template" {
            Role::Template
        } else if (CHANGELOG_NAMES.contains(&stem) && (ext.is_empty() || DOC_EXTENSIONS.contains(&ext))) || p.in_folder(CHANGELOG_FOLDERS) {
            Role::Changelog
        } else if p.in_folder(TEST_DATA_FOLDERS) || (is_test_path(&p) && is_data(path) && !is_test_file_name(&p)) {
            Role::TestData
        } else if is_test_path(&p) {
            Role::Test
        } else if p.in_folder(EXAMPLE_FOLDERS) {
            Role::Example
        } else if p.in_folder(BENCH_FOLDERS) {
            Role::Bench
        } else if DOC_EXTENSIONS.contains(&ext) || p.in_folder(DOC_FOLDERS) {
            if CONFIG_NAMES.contains(&p.name()) {
                Role::Config
            } else {
                Role::Docs
            }
        } else if CONFIG_NAMES.contains(&p.name()) || CONFIG_EXTENSIONS.contains(&ext) {
            Role::Config
        } else {
            Role::Code
        }
    }

    /// The role of a definition: its file's, or [`Role::Test`] for a test
    /// module inside a source file (Rust's `#[cfg(test)] mod tests`, whose
    /// members are `tests::…`).
    pub fn of_code(path: &str, symbol: Option<&str>) -> Role {
        match symbol {
            Some(s) if s == "tests" || s.starts_with("tests::") || s.contains("::tests::") => Role::Test,
            _ => Role::of(path),
        }
    }

    /// Tests, what they read, and examples: code a question about behaviour
    /// is rarely after unless it asks about tests (the retrievers weigh it
    /// down, listings put it last, the stage's `test` feature).
    pub fn is_test_side(self) -> bool {
        matches!(self, Role::Test | Role::TestData | Role::Example)
    }
}

/// Whether `path` is a generated file ([`Role::Generated`]): the index
/// leaves these out.
pub fn is_generated(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    GENERATED_NAMES.contains(&name) || GENERATED_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// A test file by its own name alone: a language's test class names
/// ([`TEST_FILE_SUFFIXES`]) or a test runner's extension (`x.bats`, `x.t`,
/// which read as plain text or data to the language table).
fn is_test_file_name(p: &Parts) -> bool {
    let file = p.path.rsplit('/').next().unwrap_or(p.path);
    let stem = file.split('.').next().unwrap_or(file);
    let stem_ends = |suffixes: &[&str]| suffixes.iter().any(|t| stem.len() > t.len() && stem.ends_with(t));
    TEST_FILE_SUFFIXES.iter().any(|(suffixes, extensions)| stem_ends(suffixes) && extensions.iter().any(|e| file.ends_with(e)))
        || TEST_EXTENSIONS.iter().any(|e| file.ends_with(e))
}

/// Test code by each language's convention (the tables above), whatever
/// else the path says.
fn is_test_path(p: &Parts) -> bool {
    if is_test_file_name(p) {
        return true;
    }
    p.lower.split('/').any(|part| {
        let stem = part.split('.').next().unwrap_or(part);
        TEST_FOLDERS.contains(&part)
            || part.starts_with("test_")
            || (part.contains('.') && TEST_STEM_SUFFIXES.iter().any(|t| stem.ends_with(t)))
            || TEST_INFIXES.iter().any(|i| part.contains(i))
            || TEST_NAMES.contains(&part)
    })
}

/// A file of data rather than code (its language has no definitions to run).
fn is_data(path: &str) -> bool {
    matches!(Language::from_path(path), Language::Text | Language::Markdown | Language::Json | Language::Yaml | Language::Toml)
}

/// `jquery-3.5.1.js`, `underscore-1.3.1.js`: a library copied in at a version.
fn versioned_bundle(stem: &str, ext: &str) -> bool {
    matches!(ext, "js" | "css")
        && stem.rsplit_once('-').is_some_and(|(_, v)| v.contains('.') && v.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())))
}

/// `requests/packages/urllib3/response.py`: Python libraries copied into a
/// package's own `packages/` folder (the older form of `_vendor/`). Only
/// below the top level and only Python: a top-level `packages/` is a
/// monorepo's own code (`packages/core/src/…`), as in most JS repositories.
fn nested_python_packages(p: &Parts, ext: &str) -> bool {
    ext == "py" && p.folders().skip(1).any(|d| d == "packages")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One row per rule: a path it decides, and the role.
    #[test]
    fn each_rule_decides_its_paths() {
        let cases = [
            // Generated, by exact name or suffix.
            ("package-lock.json", Role::Generated),
            ("web/app.min.js", Role::Generated),
            ("dist/app.js.map", Role::Generated),
            // CI.
            (".github/workflows/main.yml", Role::Ci),
            (".circleci/config.yml", Role::Ci),
            (".travis.yml", Role::Ci),
            // Vendored: folders, minified or versioned bundles, nested Python packages.
            ("vendor/lib.js", Role::Vendored),
            ("vendor/x/tests/test_a.py", Role::Vendored),
            ("static/jquery-3.5.1.js", Role::Vendored),
            ("static/app.min.mjs", Role::Vendored),
            ("requests/packages/urllib3/response.py", Role::Vendored),
            ("packages/core/src/index.ts", Role::Code),
            ("packages/core/core/models.py", Role::Code),
            ("frontend/packages/ui/src/button.ts", Role::Code),
            ("src/pip/_vendor/requests/api.py", Role::Vendored),
            ("sphinx/locale/mk/LC_MESSAGES/sphinx.js", Role::Vendored),
            // Templates.
            (".github/ISSUE_TEMPLATE/bug_report.md", Role::Template),
            ("docs/pull_request_template.md", Role::Template),
            // Changelogs: a document's name, or a news folder.
            ("CHANGELOG.md", Role::Changelog),
            ("CHANGES.rst", Role::Changelog),
            ("HISTORY.md", Role::Changelog),
            ("NEWS", Role::Changelog),
            ("changelog/7223.bugfix.rst", Role::Changelog),
            ("src/impact/history.rs", Role::Code),
            ("app/models/news.rb", Role::Code),
            // A test's data: fixture and snapshot folders, data files under tests.
            ("tests/fixtures/a.json", Role::TestData),
            ("tests/fixtures/app.py", Role::TestData),
            ("testdata/x.txt", Role::TestData),
            ("src/__snapshots__/a.snap", Role::TestData),
            ("tests/data.json", Role::TestData),
            ("tests/README.md", Role::TestData),
            // Tests, by folder, by name, by each language's class names.
            ("tests/test_utils.py", Role::Test),
            ("src/__tests__/a.ts", Role::Test),
            ("src/query.test.ts", Role::Test),
            ("pkg/conftest.py", Role::Test),
            ("command_test.go", Role::Test),
            ("internal/data/store_test.go", Role::Test),
            ("lib/x_spec.rb", Role::Test),
            ("src/FooTest.java", Role::Test),
            ("Foo.Tests/BarTests.cs", Role::Test),
            ("a/b_unittest.cc", Role::Test),
            ("spec/x.lua", Role::Test),
            ("src/FooSpec.scala", Role::Test),
            ("test/shape_SUITE.erl", Role::Test),
            ("t/basic.t", Role::Test),
            ("test/cli.bats", Role::Test),
            ("src/testing/utils.py", Role::Test),
            ("tests/ui/x.rs", Role::Test),
            ("src/FooTest.php", Role::Test),
            ("Tests/AppTests/RouteTests.swift", Role::Test),
            ("core/JobTest.kt", Role::Test),
            ("src/test/DecoderSpec.scala", Role::Test),
            ("DecoderSuite.scala", Role::Test),
            ("test/router_test.exs", Role::Test),
            ("test/ParserSpec.hs", Role::Test),
            ("src/Testing.php", Role::Code),
            ("Sources/Spec.swift", Role::Code),
            ("lib/router.ex", Role::Code),
            ("src/Text/Pandoc.hs", Role::Code),
            ("src/main.zig", Role::Code),
            // Examples and benchmarks.
            ("examples/foo.py", Role::Example),
            ("example/foo.py", Role::Example),
            ("demos/app.js", Role::Example),
            ("pkg/example/example_test.go", Role::Test),
            ("benches/b.rs", Role::Bench),
            ("benchmarks/bench_parse.py", Role::Bench),
            // Docs.
            ("README.md", Role::Docs),
            ("doc/en/how-to/fixtures.rst", Role::Docs),
            ("docs/conf.py", Role::Docs),
            // Config.
            ("setup.cfg", Role::Config),
            ("tox.ini", Role::Config),
            ("setup.py", Role::Config),
            ("CMakeLists.txt", Role::Config),
            ("requirements.txt", Role::Config),
            ("config/app.yaml", Role::Config),
            // Code.
            ("src/requests/utils.py", Role::Code),
            ("src/_pytest/python.py", Role::Code),
            ("testing/test_python.py", Role::Test),
            ("requests/models.py", Role::Code),
            ("src/contest.go", Role::Code),
            ("src/Latest.java", Role::Code),
            ("src/attest.rs", Role::Code),
            ("src/AUDIT.java", Role::Code),
            ("sphinx/templates/quickstart/conf.py_t", Role::Code),
            ("sphinx/themes/basic/static/doctools.js", Role::Code),
        ];
        let wrong: Vec<String> = cases
            .iter()
            .filter(|(path, role)| Role::of(path) != *role)
            .map(|(path, role)| format!("{path}: {:?}, expected {role:?}", Role::of(path)))
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn a_rust_test_module_is_test_code_in_a_source_file() {
        assert_eq!(Role::of_code("src/lib.rs", Some("tests::parses")), Role::Test);
        assert_eq!(Role::of_code("src/lib.rs", Some("a::tests::parses")), Role::Test);
        assert_eq!(Role::of_code("src/lib.rs", Some("tests")), Role::Test);
        assert_eq!(Role::of_code("src/lib.rs", Some("contests::x")), Role::Code);
        assert_eq!(Role::of_code("src/lib.rs", None), Role::Code);
    }

    #[test]
    fn the_test_side_is_tests_their_data_and_examples() {
        for path in ["tests/test_a.py", "tests/fixtures/a.json", "examples/a.py"] {
            assert!(Role::of(path).is_test_side(), "{path}");
        }
        for path in ["src/a.py", "benches/b.rs", "README.md", "vendor/a.js"] {
            assert!(!Role::of(path).is_test_side(), "{path}");
        }
    }
}
