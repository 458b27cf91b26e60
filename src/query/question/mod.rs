//! A query analysed once. Every retriever, prior and source reads a
//! [`Question`], never the raw text again: whether it is a document (an
//! issue report, a traceback), what it names, its literals and which words
//! may be identifiers are decided here, in one place, so that two
//! retrievers cannot read the same text two ways.

pub mod about;
pub mod document;
pub mod intent;
pub mod literals;
pub mod mentions;
pub mod parts;
pub mod words;

use serde::Serialize;

use about::{About, LooksFor};
use intent::{Analysis, Intent};
use literals::Literal;

/// A document with less prose than this is embedded whole (a bare traceback).
const MIN_DENSE_PROSE_WORDS: usize = 8;

/// A word of the query that may name code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Word {
    /// As written, without punctuation and call parentheses.
    pub text: String,
    /// `snake_case`, `camelCase`, `Dotted.name`, `call()`, backticked or `#id`.
    pub looks_like_code: bool,
}

/// The analysed query.
#[derive(Debug, Clone)]
pub struct Question {
    /// The text as asked.
    pub asked: String,
    /// The text the retrievers read: as asked, but a document's
    /// environment listing left out ([`document::without_environment`]).
    pub text: String,
    /// Long, several lines, fences or frames: an issue report or a pasted
    /// error, whose words are mostly incidental ([`document::is_document`]).
    pub document: bool,
    /// Intent, retriever weights, graph ask, the document's signals.
    pub analysis: Analysis,
    /// Text meant as written (quoted strings, option names, a short query
    /// whole), matched by phrase. The analysis keeps them only where the
    /// fusion weighs them (not for graph questions); keyword mode always
    /// puts them first.
    pub literals: Vec<Literal>,
    /// Its words, each with whether it looks like an identifier.
    pub words: Vec<Word>,
    /// What it asks about besides code (tests, docs, changelog, …).
    pub about: About,
    /// A document's prose: its text outside code fences (the words that
    /// say what is wrong; pasted code and logs are long and mostly incidental).
    pub prose: Option<String>,
    /// The items of a list the question holds (`url, headers, body and
    /// cookies`) and what it asks of every item, as stemmed words; none for
    /// a document.
    pub parts: parts::Listing,
    /// A document's title: its first line, when that reads as a sentence
    /// above the rest (an issue's summary, not a log line or a frame).
    pub title: Option<String>,
    /// The words of the project's own name (`kotlinx-coroutines`: kotlinx,
    /// coroutines), lowercased: "how zls resolves imports" names the
    /// project with its first word, not the file `zls.zig`. Empty unless
    /// the caller knows the project ([`crate::query::options::HybridOptions::project`]).
    pub project: Vec<String>,
}

impl Question {
    pub fn new(asked: &str) -> Question {
        let text = asked;
        let document = document::is_document(text);
        // The environment an issue template asks for names packages, not code.
        let stripped;
        let text = if document {
            stripped = document::without_environment(text);
            stripped.as_str()
        } else {
            text
        };
        let signals = document.then(|| document::extract(text));
        let literals = literals::extract(text, document);
        let analysis = intent::classify(text, document, signals, &literals);
        let prose = document.then(|| document::split_fences(text).0);
        let title = if document { document::title(text).map(str::to_string) } else { None };
        let parts = if document { Default::default() } else { parts::enumerated(text) };
        let mut about = About::of(text, document);
        about.looks_for = match analysis.intent {
            Intent::Concept | Intent::Mixed | Intent::Keyword => LooksFor::Behaviour,
            Intent::Identifier => LooksFor::Definition,
            Intent::Graph | Intent::Document => LooksFor::Anything,
        };
        Question {
            asked: asked.to_string(),
            text: text.to_string(),
            document,
            analysis,
            literals,
            words: words(text),
            about,
            prose,
            parts,
            title,
            project: Vec::new(),
        }
    }

    /// What the dense retriever embeds: a document's prose (the model reads
    /// its first 256 tokens, and a pasted log would fill them), else the text.
    pub fn dense_text(&self) -> &str {
        match &self.prose {
            Some(p) if p.split_whitespace().count() >= MIN_DENSE_PROSE_WORDS => p,
            _ => &self.text,
        }
    }

    /// What else the dense retriever embeds and searches apart: a
    /// document's title. The model reads an issue's first 256 tokens as one
    /// meaning, where the title alone says what is wrong; the two searches
    /// disagree often and each finds what the other misses (dense alone on
    /// SWE-bench dev, gold file Acc@5: prose 0.553, title 0.596, either 0.681).
    pub fn dense_title(&self) -> Option<&str> {
        self.title.as_deref().filter(|t| *t != self.dense_text().trim())
    }

    /// Whether a test's hit should count in full: the query asks about
    /// tests (a document says "test" of the failing test it shows).
    pub fn about_tests(&self) -> bool {
        self.about.tests
    }
}

/// The words of a name (`telescope.nvim`, `laravel-framework`), lowercased.
pub fn name_words(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect()
}

/// The words of `text` that may be identifiers: `snake_case`, `camelCase`,
/// `Dotted.name`, `call()` or `backticked`.
fn words(text: &str) -> Vec<Word> {
    let mut out = Vec::new();
    for raw in text.split_whitespace() {
        let backticked = raw.starts_with('`');
        let called = raw.contains("()");
        let w = raw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '#'));
        let w = w.split('(').next().unwrap_or(w).trim_end_matches(['.', ',', '?', ':', ';', '\'', '"']);
        if w.is_empty() {
            continue;
        }
        let has_inner_upper = w.chars().skip(1).any(|c| c.is_uppercase()) && w.chars().any(|c| c.is_lowercase());
        let looks_like_code = backticked || called || w.contains('_') || w.contains('.') || has_inner_upper || w.starts_with('#');
        out.push(Word { text: w.to_string(), looks_like_code });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::question::intent::Intent;

    #[test]
    fn code_words_are_told_from_english() {
        let q = Question::new("where is `parse_header_links` defined? Session.send() HTTPDigestAuth class");
        let code: Vec<&str> = q.words.iter().filter(|w| w.looks_like_code).map(|w| w.text.as_str()).collect();
        assert_eq!(code, ["parse_header_links", "Session.send", "HTTPDigestAuth"]);
        assert!(!q.document);
    }

    #[test]
    fn a_traceback_is_a_document_read_once() {
        let q = Question::new("Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n    g()\nValueError: x");
        assert!(q.document);
        assert_eq!(q.analysis.intent, Intent::Document);
        assert!(q.analysis.signals.is_some());
        assert!(!q.about_tests());
        assert!(Question::new("which tests cover retries").about_tests());
    }
}
