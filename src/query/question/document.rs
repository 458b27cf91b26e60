//! What a document-like query names: an issue report, a pasted error or
//! stack trace is long, and most of its words are incidental ("calls",
//! "uses", "imports" appear in any bug report). The signals worth a
//! retriever are the code it mentions: stack frames, file paths, code spans,
//! dotted names and exception names. Each signal carries a confidence, so the
//! retrievers take the surest first.

use crate::query::base::parameters::{CODE_SPAN_NAME, CODE_SPAN_WORD, FENCED_NAME, PROSE_NAME};
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

/// Above this many words, or with several lines, a code fence or a traceback,
/// a query is a document rather than a question.
const DOCUMENT_WORDS: usize = 30;
/// Identifiers kept per query, surest first.
const MAX_IDENTIFIERS: usize = 16;

/// A stack frame: the file, the line and the function it names.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Frame {
    pub path: String,
    pub line: Option<usize>,
    pub function: Option<String>,
    /// 0 for the innermost frame (where the error was raised): Python
    /// prints it last, JavaScript first.
    pub depth: usize,
}

/// A name the query mentions, with how sure we are it is code.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Identifier {
    pub name: String,
    /// 1.0 for a stack frame's function or a code span, lower for a
    /// code-shaped word of the prose or of a pasted code block.
    pub confidence: f32,
}

/// The signals of a document-like query.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Signals {
    /// File paths (or file names) the text mentions, in order.
    pub paths: Vec<String>,
    /// Stack frames, innermost last, as written.
    pub frames: Vec<Frame>,
    /// Code names, surest first.
    pub identifiers: Vec<Identifier>,
}

/// Whether `text` reads as a document (an issue, a log) rather than a question.
pub fn is_document(text: &str) -> bool {
    let lines = text.lines().filter(|l| !l.trim().is_empty()).count();
    text.split_whitespace().count() > DOCUMENT_WORDS || lines > 2 || text.contains("```") || text.contains("Traceback (most recent call last)")
}

fn environment_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // `numpy: 1.18.5`, `LC_ALL: None`, `attrs==19.3.0`, `pytest>=5.3`, `- python 3.8.3`.
    re(&R, r"^\s*(?:[-*]\s+)?[A-Za-z][\w.\- ]{0,40}?\s*(?::|==|>=|<=|~=)\s*(?:None|unknown|v?\d+(?:\.\w+)*)\S*(?:\s.*)?$")
}

fn package_table_line() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // `pip list` / `conda list` columns: `attrs      19.1.0   <location>`,
    // their `Package   Version` header and `-----  -----` rule.
    re(&R, r"^\s*(?:[A-Za-z][\w.\-\[\]]{0,60}\s{2,}v?\d+(?:\.\w+)+\S*(?:\s.*)?|Package\s+Version\b.*|#\s*Name\s+Version\b.*|-{3,}(?:\s+-{3,})+\s*)$")
}

/// `text` without the lines that list an environment (`numpy: 1.18.5`,
/// `pip freeze` or `pip list` output): issue templates ask for them, and
/// their package names say nothing about where the problem is.
pub fn without_environment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        if !environment_line().is_match(line) && !package_table_line().is_match(line) {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).unwrap_or_else(|e| panic!("a built-in pattern does not compile: {e}")))
}

fn python_frame() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r#"File "([^"]+)", line (\d+)(?:, in ([A-Za-z_][\w.<>]*))?"#)
}

fn js_frame() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"at (?:([\w.$<>]+) )?\(?([^\s():]+\.[cm]?[jt]sx?):(\d+)(?::\d+)?\)?")
}

fn path_like() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"(?:^|[\s`'(\[])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|js|mjs|cjs|jsx|ts|tsx|rs|go|java|c|h|cc|cpp|cxx|hpp|hh|cs|rb|lua))\b")
}

fn code_span() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"`([^`\n]{2,120})`")
}

fn name_like() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    re(&R, r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
}

/// Names in a stretch of code-like text, dotted names whole.
fn names(text: &str) -> impl Iterator<Item = &str> {
    name_like().find_iter(text).map(|m| m.as_str())
}

/// Whether a name looks like code (not an English word).
fn code_shaped(name: &str) -> bool {
    let inner_upper = name.chars().skip(1).any(|c| c.is_uppercase()) && name.chars().any(|c| c.is_lowercase());
    name.contains('_') || name.contains('.') || inner_upper || name.ends_with("Error") || name.ends_with("Exception")
}

/// Extracts the signals of a document-like query.
pub fn extract(text: &str) -> Signals {
    let mut s = Signals::default();
    let add = |ids: &mut Vec<Identifier>, name: &str, confidence: f32| {
        let name = name.trim_matches('.');
        if name.len() < 3 || name.len() > 100 || name.starts_with("http") {
            return;
        }
        match ids.iter_mut().find(|i| i.name == name) {
            Some(i) => i.confidence = i.confidence.max(confidence),
            None => ids.push(Identifier { name: name.to_string(), confidence }),
        }
    };
    let mut ids = Vec::new();
    for c in python_frame().captures_iter(text) {
        let function = c.get(3).map(|m| m.as_str().to_string()).filter(|f| !f.contains('<'));
        if let Some(f) = &function {
            add(&mut ids, f, 1.0);
        }
        s.frames.push(Frame { path: c[1].to_string(), line: c[2].parse().ok(), function, depth: 0 });
    }
    // Python writes the innermost frame last.
    let python = s.frames.len();
    for (i, f) in s.frames.iter_mut().enumerate() {
        f.depth = python - 1 - i;
    }
    for c in js_frame().captures_iter(text) {
        let function = c.get(1).map(|m| m.as_str().to_string()).filter(|f| !f.contains('<') && f != "new");
        if let Some(f) = &function {
            add(&mut ids, f, 1.0);
        }
        let depth = s.frames.len() - python;
        s.frames.push(Frame { path: c[2].to_string(), line: c[3].parse().ok(), function, depth });
    }
    for c in path_like().captures_iter(text) {
        let p = c[1].to_string();
        if !s.paths.contains(&p) {
            s.paths.push(p);
        }
    }
    for p in s.frames.iter().map(|f| f.path.clone()).collect::<Vec<_>>() {
        if !s.paths.contains(&p) {
            s.paths.push(p);
        }
    }
    // Code spans in the prose, then code-shaped words outside fences, then
    // inside them (a pasted reproduction uses the API the issue is about,
    // and much else).
    let (prose, fenced) = split_fences(text);
    for c in code_span().captures_iter(&prose) {
        // A span of several plain words is a quoted message, not names
        // (its literal is matched as a phrase).
        let span = &c[1];
        let message = span.split_whitespace().filter(|w| w.chars().all(char::is_alphabetic)).count() >= 3;
        for n in names(span) {
            if code_shaped(n) {
                add(&mut ids, n, CODE_SPAN_NAME);
            } else if !message {
                add(&mut ids, n, CODE_SPAN_WORD);
            }
        }
    }
    for n in names(&prose) {
        if code_shaped(n) {
            add(&mut ids, n, PROSE_NAME);
        }
    }
    for n in names(&fenced) {
        if code_shaped(n) {
            add(&mut ids, n, FENCED_NAME);
        }
    }
    ids.retain(|i| !s.paths.iter().any(|p| p.ends_with(&i.name)));
    // Stable: equal confidence keeps the order of appearance.
    ids.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    ids.truncate(MAX_IDENTIFIERS);
    s.identifiers = ids;
    s
}

/// A document's first line when it reads as its title: more lines follow,
/// it is outside a fence, and it is a sentence (three words or more, most
/// of them words of letters), not a frame, a prompt or a log line.
pub(crate) fn title(text: &str) -> Option<&str> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next()?;
    lines.next()?;
    let words: Vec<&str> = first.split_whitespace().collect();
    let wordy = words.iter().filter(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).chars().all(char::is_alphabetic)).count();
    let log_like =
        first.starts_with("```") || first.starts_with("Traceback") || first.starts_with("File \"") || first.starts_with(['$', '>', '#', '[', '{', '<']);
    (words.len() >= 3 && wordy * 2 > words.len() && !log_like).then_some(first)
}

/// The text outside and inside Markdown code fences.
pub(crate) fn split_fences(text: &str) -> (String, String) {
    let (mut prose, mut fenced) = (String::new(), String::new());
    let mut inside = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            continue;
        }
        let out = if inside { &mut fenced } else { &mut prose };
        out.push_str(line);
        out.push('\n');
    }
    (prose, fenced)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_document_has_a_title_when_its_first_line_reads_as_one() {
        assert_eq!(
            title("Flask routes to return domain/sub-domains information\nCurrently when …"),
            Some("Flask routes to return domain/sub-domains information")
        );
        assert_eq!(title("Traceback (most recent call last):\n  File \"a.py\", line 3, in f"), None);
        assert_eq!(title("$ flask routes --all\nEndpoint  Methods  Rule"), None);
        assert_eq!(title("2024-01-01 12:00:01 ERROR x.y.z 500\nmore"), None);
        assert_eq!(title("One line only, however long it is"), None);
    }

    #[test]
    fn short_questions_are_not_documents() {
        assert!(!is_document("how are cookies persisted between requests?"));
        assert!(!is_document("detect the unicode flavour of a JSON payload from where the zero bytes sit in it"));
        assert!(is_document("Traceback (most recent call last):\n  File \"a.py\", line 3, in f\n    g()\nValueError: x"));
        assert!(is_document("crash\n\n```\nx()\n```"));
    }

    #[test]
    fn frames_paths_spans_and_names() {
        let text = "Calling `Session.send` with a prepared request fails.\n\
            Traceback (most recent call last):\n  \
            File \"/usr/lib/python3/site-packages/requests/sessions.py\", line 646, in send\n    \
            r = adapter.send(request, **kwargs)\n  \
            File \"requests/adapters.py\", line 519, in send\n\
            requests.exceptions.ConnectionError: Connection refused\n\
            It uses merge_environment_settings and imports utils.py too.";
        let s = extract(text);
        assert_eq!(s.frames.len(), 2);
        assert_eq!(s.frames[1], Frame { path: "requests/adapters.py".into(), line: Some(519), function: Some("send".into()), depth: 0 });
        assert!(s.paths.contains(&"utils.py".to_string()) && s.paths.contains(&"requests/adapters.py".to_string()), "{:?}", s.paths);
        let names: Vec<&str> = s.identifiers.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names[0], "send", "{names:?}");
        assert!(names.contains(&"Session.send") && names.contains(&"merge_environment_settings"), "{names:?}");
        assert!(names.contains(&"requests.exceptions.ConnectionError"), "{names:?}");
        assert!(!names.contains(&"uses") && !names.contains(&"imports"), "{names:?}");
    }

    #[test]
    fn environment_listings_are_left_out() {
        let text = "ds.update loses chunks\n```\ncommit: None\npython: 3.8.3 (default, Jul  2 2020)\nnumpy: 1.18.5\nattrs==19.3.0\n- pytest 5.4\nds.update(x)\n```\nsize = 10\nsee note: it fails";
        let kept = without_environment(text);
        assert_eq!(kept, "ds.update loses chunks\n```\n- pytest 5.4\nds.update(x)\n```\nsize = 10\nsee note: it fails\n");
        let pip_list = "xfail ignored\n```\n$ pip list\nPackage   Version  Location\n--------- -------- --------\nattrs     19.1.0\npytest    6.0.0rc2 /src/pytest\nx = f(a,  1.5)\n```";
        assert_eq!(without_environment(pip_list), "xfail ignored\n```\n$ pip list\nx = f(a,  1.5)\n```\n");
    }

    #[test]
    fn javascript_frames() {
        let s = extract("TypeError: x is undefined\n    at Router.handle (lib/router/index.js:284:7)\n    at next (lib/router/route.js:149:13)\n    at Object.<anonymous> (app.js:3:1)");
        let fns: Vec<Option<&str>> = s.frames.iter().map(|f| f.function.as_deref()).collect();
        assert_eq!(fns, [Some("Router.handle"), Some("next"), None]);
        assert_eq!(s.frames[0].path, "lib/router/index.js");
    }
}
