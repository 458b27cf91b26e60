//! Literals: text a query means as written, matched by phrase on the
//! exact-form field (case kept, punctuation kept, no stemming). Stemming makes
//! a pasted "Connection refused" match every "connect" and "refuse"; the chunk
//! holding the message verbatim should come first.
//!
//! A literal is a quoted string, a code span with punctuation, an option name
//! (`--no-verify`), or a short query as a whole (a pasted message is often
//! sent without quotes).

use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// Literals kept per query.
const MAX_LITERALS: usize = 8;
/// A short query is also tried whole, up to this many words.
const WHOLE_QUERY_WORDS: usize = 12;

/// Where a literal came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    Quoted,
    CodeSpan,
    OptionName,
    WholeQuery,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Literal {
    pub text: String,
    pub source: Source,
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|e| panic!("a built-in pattern does not compile: {e}")))
}

fn quoted() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // "double", “curly”, and 'single' quotes when they open after a space or
    // bracket and close before one (so "don't ... it's" is no literal).
    re(&R, r#""([^"\n]{2,200})"|“([^”\n]{2,200})”|(?:^|[\s(\[=:,])'([^'\n]{2,120})'(?:$|[\s)\].,:;!?])"#)
}

fn code_span() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"`([^`\n]{2,200})`")
}

fn option_name() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r#"(?:^|[\s(\[`'"=])(--[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*)"#)
}

/// At least three words, mostly letters, no path: what an error message or
/// a warning looks like when it is quoted in an issue.
fn message_like(t: &str) -> bool {
    let terms = crate::stores::keyword::exact_analyze(t);
    let words = terms.iter().filter(|w| w.chars().all(char::is_alphabetic)).count();
    words >= 3 && words * 10 >= terms.len() * 6 && !t.contains('/') && !t.contains('\\')
}

/// Whether a code span is more than a name (names go to symbol lookup).
fn has_punctuation(s: &str) -> bool {
    s.chars().any(|c| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$'))
}

/// The literals of `text`; `document` for an issue report or a log (not tried whole).
pub fn extract(text: &str, document: bool) -> Vec<Literal> {
    let mut out: Vec<Literal> = Vec::new();
    let add = |out: &mut Vec<Literal>, t: &str, source: Source| {
        let t = t.trim();
        if crate::stores::keyword::exact_analyze(t).is_empty() || out.iter().any(|l| l.text == t) {
            return;
        }
        // In a document, quotes pair up across pasted code (`"a", "b"` holds
        // `, `) and spans hold commands and paths: only a message reads as a
        // literal there, and option names.
        if document && source != Source::OptionName && !message_like(t) {
            return;
        }
        out.push(Literal { text: t.to_string(), source });
    };
    for c in quoted().captures_iter(text) {
        if let Some(m) = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)) {
            add(&mut out, m.as_str(), Source::Quoted);
        }
    }
    for c in code_span().captures_iter(text) {
        if has_punctuation(&c[1]) {
            add(&mut out, &c[1], Source::CodeSpan);
        }
    }
    for c in option_name().captures_iter(text) {
        add(&mut out, &c[1], Source::OptionName);
    }
    let words = text.split_whitespace().count();
    if !document && out.is_empty() && words <= WHOLE_QUERY_WORDS && crate::stores::keyword::exact_analyze(text).len() >= 2 {
        add(&mut out, text.trim().trim_end_matches('?'), Source::WholeQuery);
    }
    out.truncate(MAX_LITERALS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(q: &str, document: bool) -> Vec<String> {
        extract(q, document).into_iter().map(|l| l.text).collect()
    }

    #[test]
    fn quotes_spans_options_and_whole_queries() {
        assert_eq!(texts(r#"where is "Failed to lookup view" raised"#, false), ["Failed to lookup view"]);
        assert_eq!(texts("what does `--dry-run` skip, and --no-verify?", false), ["--dry-run", "--no-verify"]);
        assert_eq!(texts("Missing queryFn", false), ["Missing queryFn"]);
        assert_eq!(texts("skipToken", false), Vec::<String>::new());
        assert_eq!(texts("it's what don't do", true), Vec::<String>::new());
        // In a document, messages and option names only.
        assert_eq!(texts("pytest 'abc' fails\nwith `foo(bar=1)` and --runxfail", true), ["--runxfail"]);
        assert_eq!(texts("it prints `WARNING: no number is assigned for table` and\n`x = f(\"a\", \"b\")`", true), ["WARNING: no number is assigned for table"]);
    }
}
