//! What a question is about: each file has a [`Role`] read from its path
//! (code, test, docs, changelog, ...), and a question asks about some roles
//! by name ([`About`]) and looks for a definition or a behaviour ([`LooksFor`]).

pub use crate::analysis::role::Role;

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

    /// Whether the question asks about files of `role` (code always; a
    /// test's data and examples with tests, as test code's company).
    pub fn asks(&self, role: Role) -> bool {
        match role {
            Role::Code | Role::Bench => true,
            Role::Test | Role::TestData | Role::Example => self.tests,
            Role::Docs => self.docs,
            Role::Changelog => self.changelog,
            Role::Template => self.templates,
            Role::Ci => self.ci,
            Role::Config => self.config,
            Role::Vendored | Role::Generated => self.vendored,
        }
    }
}

pub fn asks_about_tests(text: &str) -> bool {
    text.split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w.to_ascii_lowercase().as_str(), "test" | "tests" | "testing" | "fixture" | "fixtures" | "spec" | "mock"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_about_tests() {
        assert!(asks_about_tests("which tests cover retries"));
        assert!(!asks_about_tests("latest value"));
    }
}
