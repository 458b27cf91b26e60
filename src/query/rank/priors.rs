//! Priors: which files answer a question about code. An issue report shares
//! its words with the changelog entry that will record the fix, the issue
//! template it was written in and the docs of the feature; none of them is
//! the code to open. Each file has a [`Role`] read from its path, and a role
//! other than code weighs less unless the query is about that kind of file.

use crate::analysis::kind::Kind;
use crate::analysis::lang::Language;
use crate::query::base::parameters::{CONFIG_FILE, DESCRIBES_WEIGHT, DOCUMENT_DOCS_FILE, DOCUMENT_OTHER_FILE, DOCUMENT_TEST_FILE, OTHER_FILE};
use crate::query::question::about::{About, LooksFor, Role};

/// The weight of a result in a file of `role`. A document-like query (an
/// issue report) is prose about code: prose files match its words without
/// being its answer, so they weigh less than against a short question.
pub fn weight(role: Role, about: &About, document: bool) -> f32 {
    if about.asks(role) {
        return 1.0;
    }
    match (role, document) {
        (Role::Code | Role::Bench, _) => 1.0,
        (Role::Test | Role::TestData | Role::Example, true) => DOCUMENT_TEST_FILE,
        (Role::Docs, true) => DOCUMENT_DOCS_FILE,
        (Role::Changelog | Role::Template | Role::Ci | Role::Config | Role::Vendored | Role::Generated, true) => DOCUMENT_OTHER_FILE,
        // Tests and docs are weighed inside the lists of a short question.
        (Role::Test | Role::TestData | Role::Example | Role::Docs, false) => 1.0,
        (Role::Config, false) => CONFIG_FILE,
        (Role::Changelog | Role::Template | Role::Ci | Role::Vendored | Role::Generated, false) => OTHER_FILE,
    }
}

/// The weight of a result of `kind` against what the question looks for.
/// Test code (unless the question asks about tests) shares the words of a
/// question about behaviour and the names of a lookup without doing or
/// defining what is asked; declarations of types (interfaces, type aliases)
/// share a behaviour's words without doing it, but may be the definition a
/// name asks for. Of the first 20 results on the dev kit and the Rust/Go
/// corpora, test code was 0 of 207 relevant ones for concept questions and
/// 0 of 103 for keyword ones, types 2 of 135 and 0 of 59. Measured (hybrid
/// nDCG@10): concept questions 0.634 -> 0.652, multi-part 0.607 -> 0.614,
/// keyword 0.854 -> 0.875, symbol 0.950 -> 0.951, all 273 queries 0.768 -> 0.780;
/// Go's named types kept whole: concept 0.653, cobra symbol 0.916 -> 0.925.
pub fn behaviour_weight(kind: Kind, language: Language, test_code: bool, about: &About) -> f32 {
    // A Go `type` defines a new type, which carries methods (Go's classes);
    // elsewhere a `type` is an alias.
    let declaration = kind == Kind::Interface || (kind == Kind::Type && language != Language::Go);
    let describes = match about.looks_for {
        LooksFor::Anything => false,
        LooksFor::Definition => test_code && !about.tests,
        LooksFor::Behaviour => (test_code && !about.tests) || declaration,
    };
    if describes {
        DESCRIBES_WEIGHT
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_about_a_role_keeps_its_weight() {
        let issue = About::of("The changelog entry for 2.1 says the option works, but it fails", true);
        assert_eq!(weight(Role::Changelog, &issue, true), 1.0);
        let plain = About::of("pytest crashes when a fixture raises", false);
        assert!(plain.tests);
        assert!(!About::of("pytest crashes when a fixture raises", true).tests, "an issue's failing test is not what it asks for");
        assert!(weight(Role::Config, &plain, true) < weight(Role::Docs, &plain, true));
        assert_eq!(weight(Role::Code, &plain, true), 1.0);
    }

    #[test]
    fn what_a_question_looks_for_weighs_tests_and_type_declarations() {
        let about = |q: &str| crate::query::question::Question::new(q).about;
        let concept = about("drop the oldest page once the maximum number of stored pages is exceeded");
        assert_eq!(concept.looks_for, LooksFor::Behaviour);
        assert_eq!(behaviour_weight(Kind::Function, Language::Python, false, &concept), 1.0);
        assert!(behaviour_weight(Kind::Function, Language::Python, true, &concept) < 1.0);
        assert!(behaviour_weight(Kind::Interface, Language::Python, false, &concept) < 1.0);
        assert!(behaviour_weight(Kind::Type, Language::TypeScript, false, &concept) < 1.0);
        assert_eq!(behaviour_weight(Kind::Type, Language::Go, false, &concept), 1.0);
        // Asked about tests: tests count in full.
        let tests = about("test that a mistyped subcommand prints an error with close matches");
        assert_eq!(behaviour_weight(Kind::Function, Language::Python, true, &tests), 1.0);
        // A name: its definition may be a type, not a test.
        let lookup = about("where is ShellCompDirective defined");
        assert_eq!(lookup.looks_for, LooksFor::Definition);
        assert_eq!(behaviour_weight(Kind::Type, Language::Python, false, &lookup), 1.0);
        assert!(behaviour_weight(Kind::Function, Language::Python, true, &lookup) < 1.0);
        // A graph question or an issue report: anything may be what is asked for.
        for q in ["who calls findSuggestions", "Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n    f()\nValueError: bad value\n\nThe loader fails on empty input since 2.1 and I expected an empty list instead of an error here."] {
            let a = about(q);
            assert_eq!(behaviour_weight(Kind::Interface, Language::Python, true, &a), 1.0, "{q}");
        }
    }
}
