//! Literals: text a query means as written, matched by phrase on the
//! exact-form field (case kept, punctuation kept, no stemming). Stemming makes
//! a pasted "Connection refused" match every "connect" and "refuse"; the chunk
//! holding the message verbatim should come first.
//!
//! A literal is a quoted string, a code span with punctuation, an option name
//! (`--no-verify`), a short query as a whole (a pasted message is often
//! sent without quotes), or a query that is one token with punctuation in it
//! (`__complete`, `GIT_DIR`, `X-Request-Id`): a value the user saw, which
//! the code defines as a string.

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
    /// A document's `> quoted` line: a message the reporter saw.
    BlockQuote,
    CodeSpan,
    OptionName,
    WholeQuery,
    /// One token that is not a plain word; looked for only as a string in
    /// code, and only when no symbol has that name.
    Token,
    /// The subcommand of a command line a document shows (`$ flask routes`):
    /// command-line frameworks define it as a string (`command("routes")`,
    /// `Use: "routes"`); looked for as a [`Source::Token`] is.
    Subcommand,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Literal {
    pub text: String,
    pub source: Source,
}

impl Literal {
    /// A value the code spells as a string, looked for only as one (and
    /// left to the symbol lookup when a definition has that name).
    pub fn is_a_string_value(&self) -> bool {
        matches!(self.source, Source::Token | Source::Subcommand)
    }
}

/// Spans between `open` and `close` on one line, `min..=max` characters
/// long. With `bounded`, the opening must follow the start, a space or a
/// bracket and the closing precede the end, a space or punctuation, so that
/// apostrophes ("don't ... it's") are not quotes.
fn delimited(text: &str, open: char, close: char, min: usize, max: usize, bounded: bool) -> Vec<&str> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (start, c) = chars[i];
        let opens = c == open && (!bounded || i == 0 || matches!(chars[i - 1].1, ' ' | '\t' | '\n' | '(' | '[' | '=' | ':' | ','));
        if !opens {
            i += 1;
            continue;
        }
        let body = start + c.len_utf8();
        let mut j = i + 1;
        while j < chars.len() && chars[j].1 != close && chars[j].1 != '\n' {
            j += 1;
        }
        let closes = j < chars.len() && chars[j].1 == close && (!bounded || chars.get(j + 1).is_none_or(|&(_, n)| n.is_whitespace() || ")].,:;!?".contains(n)));
        let len = j - i - 1;
        if closes && (min..=max).contains(&len) {
            out.push(&text[body..chars[j].0]);
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// `--option-names` standing as words.
fn option_names(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(k) = text[i..].find("--") {
        let start = i + k;
        let after_boundary = start == 0 || matches!(bytes[start - 1], b' ' | b'\t' | b'\n' | b'(' | b'[' | b'`' | b'\'' | b'"' | b'=');
        let mut end = start + 2;
        if after_boundary && bytes.get(end).is_some_and(u8::is_ascii_alphabetic) {
            // [A-Za-z][A-Za-z0-9]* then ([-_][A-Za-z0-9]+)*
            while end < bytes.len()
                && (bytes[end].is_ascii_alphanumeric() || (matches!(bytes[end], b'-' | b'_') && bytes.get(end + 1).is_some_and(u8::is_ascii_alphanumeric)))
            {
                end += 1;
            }
            out.push(&text[start..end]);
        }
        i = end.max(start + 2);
    }
    out
}

/// At least three words, mostly letters, no path: what an error message or
/// a warning looks like when it is quoted in an issue.
fn message_like(t: &str) -> bool {
    let terms = crate::stores::keyword::exact_analyze(t);
    let words = terms.iter().filter(|w| w.chars().all(char::is_alphabetic)).count();
    words >= 3 && words * 10 >= terms.len() * 6 && !t.contains('/') && !t.contains('\\')
}

/// camelCase or snake_case: a word no one writes in prose.
fn is_code_word(w: &str) -> bool {
    let chars: Vec<char> = w.chars().collect();
    chars.windows(2).any(|p| p[0].is_lowercase() && p[1].is_uppercase())
        || chars.windows(3).any(|p| p[0].is_alphanumeric() && p[1] == '_' && p[2].is_alphanumeric())
}

/// Whether a code span is more than a name (names go to symbol lookup).
fn has_punctuation(s: &str) -> bool {
    s.chars().any(|c| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$'))
}

/// A quoted line longer than this is cut to its sentences that fit.
const MAX_QUOTE: usize = 200;

/// `text` cut to its first sentences within `max` bytes (a message's
/// sentences are often separate strings in code), or at a word when the
/// first sentence alone is longer.
fn sentences_within(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &text[..cut];
    match head.rfind(". ") {
        Some(i) => &text[..=i],
        None => head.rfind(' ').map_or(head, |i| &text[..i]),
    }
}

/// The subcommand of a shell prompt line (`$ flask routes --all`:
/// `routes`): the first argument, when it is a plain lowercase word (not an
/// option, a path or a file).
fn subcommand(line: &str) -> Option<&str> {
    let mut words = line.trim_start().strip_prefix("$ ")?.split_whitespace();
    let program = words.next()?;
    let sub = words.next()?;
    let plain =
        |w: &str| w.starts_with(|c: char| c.is_ascii_lowercase()) && w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    (plain(program) && plain(sub) && sub.len() >= 3).then_some(sub)
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
        if document && !matches!(source, Source::OptionName | Source::Subcommand) && !message_like(t) {
            return;
        }
        out.push(Literal { text: t.to_string(), source });
    };
    let mut quoted = delimited(text, '"', '"', 2, 200, false);
    quoted.extend(delimited(text, '“', '”', 2, 200, false));
    quoted.extend(delimited(text, '\'', '\'', 2, 120, true));
    for q in quoted {
        add(&mut out, q, Source::Quoted);
    }
    if document {
        for line in text.lines() {
            if let Some(sub) = subcommand(line) {
                add(&mut out, sub, Source::Subcommand);
            }
        }
        // Markdown quotes what the reporter saw (an error, a warning) as
        // `> ` lines; `>>>` is a Python prompt, not a quote.
        for line in text.lines() {
            if let Some(quoted) = line.trim_start().strip_prefix('>').filter(|q| !q.starts_with('>')) {
                add(&mut out, sentences_within(quoted.trim(), MAX_QUOTE), Source::BlockQuote);
            }
        }
    }
    for span in delimited(text, '`', '`', 2, 200, false) {
        if has_punctuation(span) {
            add(&mut out, span, Source::CodeSpan);
        }
    }
    for name in option_names(text) {
        add(&mut out, name, Source::OptionName);
    }
    let words = text.split_whitespace().count();
    let token = text.trim();
    if !document
        && out.is_empty()
        && words == 1
        && (3..=100).contains(&token.len())
        && token.chars().any(char::is_alphabetic)
        && token.chars().any(|c| !c.is_alphanumeric())
    {
        add(&mut out, token, Source::Token);
    }
    if !document && out.is_empty() && words <= WHOLE_QUERY_WORDS && crate::stores::keyword::exact_analyze(text).len() >= 2 {
        add(&mut out, text.trim().trim_end_matches('?'), Source::WholeQuery);
        // A code word among plain ones (`offlineFirst network mode`) is
        // often a value the code spells as a string.
        for w in text.split_whitespace() {
            let w = w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
            if words > 1 && w.len() >= 4 && is_code_word(w) {
                add(&mut out, w, Source::Token);
            }
        }
    }
    out.truncate(MAX_LITERALS);
    out
}

/// The forms of a literal to look for, best first. A message quoted from
/// an issue was printed by code that formatted it: its level or exception
/// name was prefixed (`WARNING: `, `ValueError: `) and its last words are
/// often values (`no number is assigned for table` from `no number is
/// assigned for %s`), so shorter heads of it are tried down to three words.
///
/// An option name is looked for in every form at once: as written
/// (`--no-verify`, in docs, help texts and tests) and as the string that
/// defines it in code, where flag libraries take the bare name
/// (`Bool("no-verify", …)`, `long = "no-verify"`); the definition first.
pub fn variants(literal: &Literal, document: bool) -> Vec<String> {
    if literal.source == Source::OptionName {
        let bare = literal.text.trim_start_matches('-');
        return vec![format!("\"{bare}\""), format!("'{bare}'"), literal.text.clone()];
    }
    if literal.is_a_string_value() {
        let t = &literal.text;
        return vec![format!("\"{t}\""), format!("'{t}'")];
    }
    let mut out = vec![literal.text.clone()];
    if !document {
        return out;
    }
    let mut text = literal.text.as_str();
    if let Some((head, rest)) = text.split_once(": ") {
        if !head.contains(' ')
            && (head.chars().all(|c| c.is_ascii_uppercase()) || head.ends_with("Error") || head.ends_with("Exception") || head.ends_with("Warning"))
        {
            text = rest;
            out.push(text.to_string());
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    for n in (3..words.len()).rev() {
        out.push(words[..n].join(" "));
    }
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
        assert_eq!(texts("Missing queryFn", false), ["Missing queryFn", "queryFn"]);
        assert_eq!(texts("“curly quotes” and 'single ones', not don't or it's", false), ["curly quotes", "single ones"]);
        assert_eq!(texts("x--y and --a-b_c- too", false), ["--a-b_c"]);
    }

    #[test]
    fn a_document_quotes_what_its_reporter_saw() {
        let issue = "skip at module level fails\nThis issues this error:\n\n>Using pytest.skip outside of a test is not allowed. To decorate a test function, use the @pytest.mark.skip or @pytest.mark.skipif decorators instead, and to skip a module use `pytestmark = pytest.mark.{skip,skipif}`.\n\n```python\n>>> skip(msg=\"no\")\n```\n> see\n";
        assert_eq!(texts(issue, true), ["Using pytest.skip outside of a test is not allowed."]);
        assert_eq!(sentences_within("one two three", 8), "one two");
    }

    #[test]
    fn a_command_line_names_its_subcommand() {
        assert_eq!(subcommand("$ flask routes --all"), Some("routes"));
        assert_eq!(subcommand("  $ git-rag index"), Some("index"));
        for none in ["$ pytest -rsx test_foo.py", "$ python script.py", "$ ls", "flask routes", "$ echo 'x' > a", "$ pip ls"] {
            assert_eq!(subcommand(none), None, "{none}");
        }
        let issue = "routes should show subdomains\nWith blueprints on subdomains:\n```\n$ flask routes\nEndpoint  Methods  Rule\n```";
        let found = extract(issue, true);
        assert_eq!(found, [Literal { text: "routes".into(), source: Source::Subcommand }]);
        assert_eq!(variants(&found[0], true), ["\"routes\"", "'routes'"]);
    }

    #[test]
    fn a_quoted_message_is_also_tried_without_its_prefix_and_its_tail() {
        let l = Literal { text: "WARNING: no number is assigned for table".into(), source: Source::CodeSpan };
        assert_eq!(
            variants(&l, true),
            [
                "WARNING: no number is assigned for table",
                "no number is assigned for table",
                "no number is assigned for",
                "no number is assigned",
                "no number is"
            ]
        );
        assert_eq!(variants(&l, false), ["WARNING: no number is assigned for table"]);
        let flag = Literal { text: "--no-verify".into(), source: Source::OptionName };
        assert_eq!(variants(&flag, false), ["\"no-verify\"", "'no-verify'", "--no-verify"]);
        assert_eq!(texts("skipToken", false), Vec::<String>::new());
        // One token with punctuation: looked for as a string.
        assert_eq!(extract("__complete", false), [Literal { text: "__complete".into(), source: Source::Token }]);
        assert_eq!(variants(&extract("GIT_DIR", false)[0], false), ["\"GIT_DIR\"", "'GIT_DIR'"]);
        assert_eq!(texts("timeout", false), Vec::<String>::new());
        // Code words among plain ones are tokens too, after the whole query.
        assert_eq!(
            extract("offlineFirst network mode with no_proxy", false).into_iter().map(|l| (l.text, l.source)).collect::<Vec<_>>(),
            [
                ("offlineFirst network mode with no_proxy".to_string(), Source::WholeQuery),
                ("offlineFirst".to_string(), Source::Token),
                ("no_proxy".to_string(), Source::Token),
            ]
        );
        assert_eq!(texts("__complete", true), Vec::<String>::new());
        assert_eq!(texts("it's what don't do", true), Vec::<String>::new());
        // In a document, messages and option names only.
        assert_eq!(texts("pytest 'abc' fails\nwith `foo(bar=1)` and --runxfail", true), ["--runxfail"]);
        assert_eq!(
            texts("it prints `WARNING: no number is assigned for table` and\n`x = f(\"a\", \"b\")`", true),
            ["WARNING: no number is assigned for table"]
        );
    }
}
