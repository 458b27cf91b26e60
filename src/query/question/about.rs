//! What a question is about: each file has a [`Role`] read from its path
//! (code, test, docs, changelog, ...), and a question asks about some roles
//! by name ([`About`]) and looks for a definition or a behaviour ([`LooksFor`]).


/// What a file is for, from its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Code,
    Test,
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
    /// minified bundles (`jquery-3.5.1.js`, `*.min.js`), translations.
    Vendored,
}

const CHANGELOG_NAMES: &[&str] = &["changelog", "changes", "history", "news", "release-notes", "release_notes", "releasenotes", "whatsnew"];
const CHANGELOG_DIRS: &[&str] = &["changelog", "changelog.d", "changes", "newsfragments", "news", "release-notes", "releasenotes", "whatsnew"];
const CONFIG_NAMES: &[&str] = &[
    "setup.py", "noxfile.py", "setup.cfg", "tox.ini", "pyproject.toml", "makefile", "dockerfile", "cargo.toml", "package.json", "tsconfig.json", "codecov.yml", "mypy.ini",
    "pytest.ini", ".pre-commit-config.yaml", ".readthedocs.yml", ".readthedocs.yaml", ".editorconfig", ".gitignore", ".gitattributes",
    ".coveragerc", ".flake8", "manifest.in",
];
const CONFIG_EXTENSIONS: &[&str] = &["toml", "ini", "cfg", "yaml", "yml", "json", "lock", "conf"];
const DOC_EXTENSIONS: &[&str] = &["md", "markdown", "rst", "txt", "adoc", "asciidoc"];

const VENDOR_DIRS: &[&str] = &["vendor", "vendored", "_vendor", "third_party", "thirdparty", "third-party", "node_modules", "bower_components", "locale", "locales"];

/// `jquery-3.5.1.js`, `underscore-1.3.1.js`: a library copied in at a version.
fn versioned_bundle(stem: &str, ext: &str) -> bool {
    matches!(ext, "js" | "css")
        && stem.rsplit_once('-').is_some_and(|(_, v)| v.contains('.') && v.split('.').all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit())))
}

/// `requests/packages/urllib3/response.py`: Python libraries copied into a
/// package's own `packages/` folder (the older form of `_vendor/`). Only
/// below the top level and only Python: a top-level `packages/` is a
/// monorepo's own code (`packages/core/src/…`), as in most JS repositories.
fn nested_python_packages(dirs: &[&str], ext: &str) -> bool {
    ext == "py" && dirs.iter().skip(1).any(|d| *d == "packages")
}

/// The role of the file at `path` (relative to the repository root).
pub fn role(path: &str) -> Role {
    let lower = path.to_ascii_lowercase();
    let parts: Vec<&str> = lower.split('/').collect();
    let name = parts.last().copied().unwrap_or("");
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s, e),
        _ => (name, ""),
    };
    let dirs = &parts[..parts.len().saturating_sub(1)];
    if lower.starts_with(".github/workflows/") || lower.starts_with(".circleci/") || matches!(name, ".travis.yml" | ".gitlab-ci.yml" | "azure-pipelines.yml" | "appveyor.yml" | "jenkinsfile") {
        return Role::Ci;
    }
    if dirs.iter().any(|d| VENDOR_DIRS.contains(d)) || stem.ends_with(".min") || versioned_bundle(stem, ext) || nested_python_packages(dirs, ext) {
        return Role::Vendored;
    }
    if lower.starts_with(".github/") || lower.starts_with(".gitlab/") || stem.ends_with("_template") || stem == "pull_request_template" {
        return Role::Template;
    }
    if CHANGELOG_NAMES.contains(&stem) || dirs.iter().any(|d| CHANGELOG_DIRS.contains(d)) {
        return Role::Changelog;
    }
    if is_test_path(path) {
        return Role::Test;
    }
    if DOC_EXTENSIONS.contains(&ext) || dirs.iter().any(|d| matches!(*d, "doc" | "docs" | "documentation")) {
        return Role::Docs;
    }
    if CONFIG_NAMES.contains(&name) || CONFIG_EXTENSIONS.contains(&ext) {
        return Role::Config;
    }
    Role::Code
}

/// The roles a query asks about by name ("the changelog", "in tox.ini", "a
/// test for ..."): those keep their full weight.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct About {
    pub tests: bool,
    pub docs: bool,
    pub changelog: bool,
    pub templates: bool,
    pub ci: bool,
    pub config: bool,
    pub vendored: bool,
    /// What the question looks for, as far as [`behaviour_weight`] cares.
    pub looks_for: LooksFor,
}

/// What a short question looks for (a document or a graph question: [`LooksFor::Anything`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LooksFor {
    #[default]
    Anything,
    /// A name's definition ("where is ExecuteC defined").
    Definition,
    /// What code does, in words or terms ("drop the oldest page once …",
    /// "NETRC environment variable").
    Behaviour,
}

impl About {
    /// What `text` asks about; a `document` (an issue report) says "test"
    /// of the failing test it shows, not of the test code it wants.
    pub fn of(text: &str, document: bool) -> About {
        let mut a = About { tests: !document && asks_about_tests(text), ..About::default() };
        for w in text.split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '-' || c == '_')) {
            let w = w.trim_matches('.').to_ascii_lowercase();
            match w.as_str() {
                "doc" | "docs" | "documentation" | "readme" | "readme.md" | "markdown" | "rst" | "sphinx-build" => a.docs = true,
                // Not "changes", "template" or "config": an issue says them of
                // its own code ("this changes ...", Jinja templates, a config object).
                "changelog" | "release-notes" | "changelog.md" | "changes.rst" | "newsfragment" => a.changelog = true,
                ".github" | "issue_template" | "pull_request_template" => a.templates = true,
                "vendor" | "vendored" | "third_party" | "translation" | "translations" | "locale" => a.vendored = true,
                "ci" | "workflow" | "workflows" | "pipeline" | "github-actions" => a.ci = true,
                "setup.py" | "setup.cfg" | "tox.ini" | "pyproject.toml" | "yaml" | "toml" | "ini" | "package.json" | "cargo.toml" => a.config = true,
                _ => {}
            }
        }
        a
    }

    pub fn asks(&self, role: Role) -> bool {
        match role {
            Role::Code => true,
            Role::Test => self.tests,
            Role::Docs => self.docs,
            Role::Changelog => self.changelog,
            Role::Template => self.templates,
            Role::Ci => self.ci,
            Role::Config => self.config,
            Role::Vendored => self.vendored,
        }
    }
}


// Tests, fixtures and examples are rarely what a question about behaviour
// is after, unless it asks about tests.
use crate::analysis::lang::is_test_path;

pub fn asks_about_tests(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric()).any(|w| matches!(w.to_ascii_lowercase().as_str(), "test" | "tests" | "testing" | "fixture" | "fixtures" | "spec" | "mock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_paths() {
        assert!(is_test_path("tests/test_utils.py"));
        assert!(is_test_path("src/__tests__/a.ts"));
        assert!(is_test_path("src/query.test.ts"));
        assert!(is_test_path("pkg/conftest.py"));
        for p in ["command_test.go", "lib/x_spec.rb", "src/FooTest.java", "Foo.Tests/BarTests.cs", "a/b_unittest.cc", "spec/x.lua"] {
            assert!(is_test_path(p), "{p}");
        }
        for p in ["src/contest.go", "src/Latest.java", "src/attest.rs", "src/AUDIT.java"] {
            assert!(!is_test_path(p), "{p}");
        }
        assert!(!is_test_path("src/requests/utils.py"));
        assert!(!is_test_path("src/contest.py"));
        assert!(asks_about_tests("which tests cover retries"));
        assert!(!asks_about_tests("latest value"));
    }
}
