//! Query analysis: what kind of question a query is, from its form alone,
//! and how much each retriever should count for it.
//!
//! The classes and their cues:
//! - identifier lookup: one or two code-shaped words (`snake_case`,
//!   `CamelCase`, `a.b`, `call()`, backticks), or "where is X defined";
//! - graph: a relation between code ("what calls X", "who uses X",
//!   "callers of X", "what does X depend on", "what imports X");
//! - concept: a question in words (how, why, where, what) without code;
//! - keyword: a few plain words;
//! - mixed: words and code together;
//! - document: an issue report, a pasted error or log (long, several lines,
//!   code fences, tracebacks): its relation and convention words are
//!   incidental, so it never asks the graph or the patterns; the code it
//!   names ([`super::document`]) goes to symbol lookup.

use crate::query::base::parameters::{CONCEPT_LISTS, DOCUMENT_LISTS, DOCUMENT_SYMBOL_LIST, GRAPH_LISTS, IDENTIFIER_LISTS, KEYWORD_LISTS, MIXED_LISTS};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Intent {
    Identifier,
    Keyword,
    Concept,
    Graph,
    Mixed,
    Document,
}

/// Which way a graph question walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// Who calls / uses / depends on the subject.
    Callers,
    /// What the subject calls / uses / depends on.
    Callees,
    /// Files that import the subject's file.
    Importers,
    /// What the subject's file imports.
    Imports,
    /// The types that extend or implement the subject (a class, trait or
    /// interface), with their members that implement the subject's.
    Implementers,
}

/// A graph question: a relation and the words that name its subject.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GraphAsk {
    pub relation: Relation,
    /// Candidate subject words, most likely first (code-shaped words first).
    pub subject: Vec<String>,
    /// The other content words, used to pick among same-named subjects.
    pub context: Vec<String>,
}

/// Weight of each retriever in the fusion: a row of
/// [`crate::query::base::parameters`], which holds every such number.
pub use crate::query::base::parameters::Weights;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Analysis {
    pub intent: Intent,
    pub weights: Weights,
    pub graph: Option<GraphAsk>,
    /// The query asks about conventions ("how does this project log errors").
    pub wants_patterns: bool,
    /// What a document-like query names (paths, frames, identifiers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signals: Option<super::document::Signals>,
    /// Text the query means as written (quoted, option names, a short
    /// query whole), matched by phrase.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub literals: Vec<super::literals::Literal>,
}

const QUESTION_WORDS: &[&str] = &["how", "why", "where", "what", "when", "which", "who", "does", "do", "is", "are", "can"];

/// Words that carry no subject in a graph question.
const GRAPH_FILLER: &[&str] = &[
    "what",
    "who",
    "which",
    "where",
    "does",
    "do",
    "is",
    "are",
    "the",
    "a",
    "an",
    "of",
    "on",
    "in",
    "to",
    "by",
    "from",
    "functions",
    "function",
    "methods",
    "method",
    "code",
    "calls",
    "call",
    "called",
    "calling",
    "callers",
    "caller",
    "callees",
    "callee",
    "uses",
    "use",
    "used",
    "using",
    "user",
    "users",
    "depend",
    "depends",
    "dependent",
    "dependents",
    "dependencies",
    "dependency",
    "imports",
    "import",
    "imported",
    "importers",
    "invoke",
    "invokes",
    "invoked",
    "reference",
    "references",
    "referenced",
    "inside",
    "within",
    "framework",
    "module",
    "file",
    "files",
    "s",
    "that",
    "this",
    "when",
    "and",
    "or",
    "all",
    "every",
    "places",
    "place",
    "helper",
    "private",
    "public",
    "on",
    "it",
    "its",
    "get",
    "gets",
    "type",
    "types",
    "trait",
    "traits",
    "interface",
    "interfaces",
    "class",
    "classes",
    "struct",
    "structs",
    "implement",
    "implements",
    "implementing",
    "implemented",
    "implementation",
    "implementations",
    "implementers",
    "implementors",
    "subclass",
    "subclasses",
    "subtypes",
    "extend",
    "extends",
    "extending",
    "inherit",
    "inherits",
    "inheriting",
    "derive",
    "derives",
];

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '$' || c == '`' || c == '(' || c == ')' || c == '\''))
        .map(|w| w.trim_matches(|c: char| c == '.' || c == '`' || c == '\'' || c == '(' || c == ')'))
        .map(|w| w.strip_suffix("'s").unwrap_or(w).to_string())
        .filter(|w| !w.is_empty())
        .collect()
}

/// A word that looks like an identifier rather than English.
pub fn looks_like_code(raw: &str) -> bool {
    let w = raw.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'));
    if w.is_empty() {
        return false;
    }
    let inner_upper = w.chars().skip(1).any(|c| c.is_uppercase()) && w.chars().any(|c| c.is_lowercase());
    raw.starts_with('`') || raw.contains("()") || w.contains('_') || (w.contains('.') && !w.ends_with('.')) || inner_upper
}

/// Classifies a query and sets retriever weights. `document`, `signals`
/// and `literals` are the question's, read once ([`super`]).
pub fn classify(text: &str, document: bool, signals: Option<super::document::Signals>, literals: &[super::literals::Literal]) -> Analysis {
    let lower = text.to_lowercase();
    let raw_words: Vec<&str> = text.split_whitespace().collect();
    let code_words = raw_words.iter().filter(|w| looks_like_code(w)).count();
    let ws = words(&lower);
    let first = ws.first().map(String::as_str).unwrap_or("");
    let is_question = QUESTION_WORDS.contains(&first) || text.trim_end().ends_with('?');
    if document {
        let signals = signals.unwrap_or_default();
        let weights = Weights { symbol: if signals.identifiers.is_empty() { DOCUMENT_LISTS.symbol } else { DOCUMENT_SYMBOL_LIST }, ..DOCUMENT_LISTS };
        return Analysis { intent: Intent::Document, weights, graph: None, wants_patterns: false, signals: Some(signals), literals: literals.to_vec() };
    }
    let wants_patterns = wants_patterns(&lower);

    if let Some(ask) = graph_ask(text) {
        return Analysis { intent: Intent::Graph, weights: GRAPH_LISTS, graph: Some(ask), wants_patterns, signals: None, literals: Vec::new() };
    }
    let defined_question = lower.contains("defined") || lower.contains("definition") || lower.starts_with("where is");
    // "where is dehydrate implemented", "View constructor": a lookup of a
    // name even when the name looks like a plain word.
    let lookup_words = ["defined", "implemented", "implementation", "declared", "definition", "constructor", "class", "getter", "method", "function"];
    let content: Vec<&String> =
        ws.iter().filter(|w| !QUESTION_WORDS.contains(&w.as_str()) && !lookup_words.contains(&w.as_str()) && w.as_str() != "the").collect();
    let is_lookup = ws.iter().any(|w| lookup_words.contains(&w.as_str())) && content.len() == 1;
    // A bare word (`Session`, `Deserialize`, `formatter`) is a name looked
    // up, as a code-shaped one is: its definition first, not the code that
    // says the word most. Semble's dev split has 58 one-word questions, all
    // symbol lookups; 30 of them were read as keywords.
    let bare_name = raw_words.len() == 1 && text.trim().chars().all(|c| c.is_alphanumeric() || c == '_');
    let intent = if (raw_words.len() <= 2 && code_words >= 1) || is_lookup || bare_name || (code_words >= 1 && (defined_question || raw_words.len() <= 3)) {
        Intent::Identifier
    } else if code_words >= 1 {
        Intent::Mixed
    } else if is_question || raw_words.len() >= 6 {
        Intent::Concept
    } else {
        Intent::Keyword
    };
    let weights = match intent {
        Intent::Identifier => IDENTIFIER_LISTS,
        Intent::Keyword => KEYWORD_LISTS,
        Intent::Concept => CONCEPT_LISTS,
        Intent::Mixed => MIXED_LISTS,
        Intent::Graph | Intent::Document => unreachable_weights(),
    };
    Analysis { intent, weights, graph: None, wants_patterns, signals: None, literals: literals.to_vec() }
}

fn unreachable_weights() -> Weights {
    Weights { bm25: 1.0, symbol: 1.0, dense: 1.0, graph: 1.0 }
}

fn wants_patterns(lower: &str) -> bool {
    let cues = [
        "convention",
        "conventions",
        "pattern",
        "patterns",
        "idiom",
        "style",
        "usually",
        "typically",
        "this project",
        "the project",
        "in this codebase",
        "in this repo",
    ];
    cues.iter().any(|c| lower.contains(c)) || (lower.starts_with("how do") && (lower.contains(" we ") || lower.contains(" you ")))
}

/// Whether a question asks about the past (when, why, what changed): `ask`
/// then gives the model the commits that answer it beside the code.
pub fn asks_about_the_past(text: &str) -> bool {
    let lower = format!(" {} ", text.to_lowercase().split_whitespace().collect::<Vec<_>>().join(" "));
    let cues = [
        " when did ",
        " when was ",
        " when were ",
        " since when ",
        " why did ",
        " why was ",
        " why were ",
        " why is there ",
        " what changed ",
        " who changed ",
        " changed in ",
        " history of ",
        " introduced ",
        " stopped ",
        " used to ",
        " no longer ",
        " regression",
        " commit ",
        " commits ",
    ];
    cues.iter().any(|c| lower.contains(c))
}

/// Content words a graph question's subject may take when no word of it
/// looks like code: one names its subject in a few words.
const MAX_WORDS_OF_UNNAMED_SUBJECT: usize = 4;

/// Finds a relation phrase and the subject it is about.
pub fn graph_ask(text: &str) -> Option<GraphAsk> {
    let lower = text.to_lowercase();
    let ws = words(text);
    let lws: Vec<String> = ws.iter().map(|w| w.to_lowercase()).collect();
    let has = |w: &str| lws.iter().any(|x| x == w);
    let pos = |set: &[&str]| lws.iter().position(|x| set.contains(&x.as_str()));

    let call_verbs =
        ["call", "calls", "called", "calling", "invoke", "invokes", "invoked", "use", "uses", "used", "using", "reference", "references", "referenced"];
    let depend_verbs = ["depend", "depends"];
    let import_verbs = ["import", "imports", "imported", "importing", "require", "requires", "required"];

    let implement_verbs =
        ["implement", "implements", "implementing", "extend", "extends", "extending", "inherit", "inherits", "inheriting", "subclass", "subclasses"];
    let starts_question = matches!(lws.first().map(String::as_str), Some("what" | "who" | "which" | "where" | "list" | "find" | "show"));
    let relation = if ["implementations of", "implementers of", "implementors of", "subclasses of", "subtypes of", "implementations for"]
        .iter()
        .any(|p| lower.contains(p))
        || (starts_question && pos(&implement_verbs).is_some())
    {
        Relation::Implementers
    } else if lower.contains("callers of") || lower.contains("dependents of") || lower.contains("usages of") || lower.contains("uses of") {
        Relation::Callers
    } else if lower.contains("callees of") || lower.contains("dependencies of") {
        Relation::Callees
    } else if lower.contains("importers of") || lower.contains("who imports") || lower.contains("what imports") || lower.contains("which files import") {
        Relation::Importers
    } else if let Some(v) = pos(&import_verbs) {
        // "what does X import": the subject comes between "does" and the verb.
        let does = pos(&["does", "do"]);
        if does.is_some_and(|d| d < v) {
            Relation::Imports
        } else if v > 0 {
            Relation::Importers
        } else {
            return None;
        }
    } else {
        let v = pos(&call_verbs).or_else(|| pos(&depend_verbs))?;
        let does = pos(&["does", "do"]);
        let starts_question = matches!(lws.first().map(String::as_str), Some("what" | "who" | "which" | "where" | "how"));
        if does.is_some_and(|d| d < v) && !(has("is") && lws.get(v).is_some_and(|w| w == "used")) {
            Relation::Callees
        } else if starts_question || lws.get(v).is_some_and(|w| w == "used") {
            Relation::Callers
        } else {
            return None;
        }
    };

    // The subject: code-shaped words first, then the remaining content words.
    let raw: Vec<&str> = text.split_whitespace().collect();
    let mut subject: Vec<String> = Vec::new();
    for r in &raw {
        if looks_like_code(r) {
            let w = r.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.')).trim_end_matches('.');
            let w = w.split('(').next().unwrap_or(w);
            if !w.is_empty() && !subject.iter().any(|s| s == w) {
                subject.push(w.to_string());
            }
        }
    }
    let mut context = Vec::new();
    for w in &ws {
        let lw = w.to_lowercase();
        if GRAPH_FILLER.contains(&lw.as_str()) || lw.len() < 3 || subject.iter().any(|s| s.eq_ignore_ascii_case(w)) {
            continue;
        }
        if subject.is_empty() || !looks_like_code(w) {
            context.push(w.clone());
        }
    }
    if subject.is_empty() {
        // No code-shaped word: every content word may name the subject — as
        // long as they are few ("what does the router's handle function
        // depend on"). A sentence that only says "used by" or "invoked" on
        // its way ("where the before-run, success, error and settled
        // callbacks of a mutation are invoked") asks about behaviour.
        if context.len() > MAX_WORDS_OF_UNNAMED_SUBJECT {
            return None;
        }
        subject = context.clone();
    }
    if subject.is_empty() {
        return None;
    }
    Some(GraphAsk { relation, subject, context })
}

/// Code-shaped words of a query, as graph subjects when no relation was asked.
pub fn identifier_subjects(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .split_whitespace()
        .filter(|w| looks_like_code(w))
        .map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.')).split('(').next().unwrap_or("").to_string())
        .filter(|w| !w.is_empty())
        .collect();
    if out.is_empty() {
        out = text.split_whitespace().map(|w| w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_')).to_string()).filter(|w| w.len() > 2).collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_about_the_past_are_told_from_the_rest() {
        for q in ["When did we stop retrying on 503?", "why was the cache removed", "What changed in the netrc lookup?", "since when do we need Python 3.9"] {
            assert!(asks_about_the_past(q), "{q}");
        }
        for q in ["how are sessions persisted?", "what calls get_netrc_auth", "where is the retry policy", "commitment_level"] {
            assert!(!asks_about_the_past(q), "{q}");
        }
    }

    fn analyze(text: &str) -> Analysis {
        crate::query::question::Question::new(text).analysis
    }

    fn rel(q: &str) -> Option<(Relation, Vec<String>)> {
        graph_ask(q).map(|a| (a.relation, a.subject))
    }

    #[test]
    fn graph_questions() {
        assert_eq!(rel("what calls get_netrc_auth"), Some((Relation::Callers, vec!["get_netrc_auth".into()])));
        assert_eq!(rel("who calls should_bypass_proxies").unwrap().0, Relation::Callers);
        assert_eq!(rel("callers of merge_setting").unwrap().0, Relation::Callers);
        assert_eq!(rel("what does Session.send call"), Some((Relation::Callees, vec!["Session.send".into()])));
        assert_eq!(rel("which types implement the Resolver trait"), Some((Relation::Implementers, vec!["Resolver".into()])));
        assert_eq!(rel("implementations of the TlsConnector trait"), Some((Relation::Implementers, vec!["TlsConnector".into()])));
        assert_eq!(rel("subclasses of BaseAdapter").map(|r| r.0), Some(Relation::Implementers));
        assert_eq!(rel("what classes extend HTTPAdapter").map(|r| r.0), Some(Relation::Implementers));
        assert_eq!(rel("how the session extends the request").map(|r| r.0), None, "not a question about subtypes");
        assert_eq!(rel("where the before-run, success, error and settled callbacks of a mutation are invoked"), None, "a behaviour, no subject named");
        assert_eq!(rel("which response methods use the private sendfile helper").map(|r| r.0), Some(Relation::Callers));
        assert_eq!(rel("what does HTTPAdapter.send depend on").unwrap().0, Relation::Callees);
        assert_eq!(rel("which methods depend on replaceData").unwrap().0, Relation::Callers);
        assert_eq!(rel("where is extract_cookies_to_jar used").unwrap().0, Relation::Callers);
        assert_eq!(rel("who uses partialMatchKey"), Some((Relation::Callers, vec!["partialMatchKey".into()])));
        assert_eq!(rel("what imports utils.py").unwrap().0, Relation::Importers);
        assert_eq!(rel("what does sessions.py import").unwrap().0, Relation::Imports);
        let a = graph_ask("what does the router's handle function depend on").unwrap();
        assert_eq!(a.relation, Relation::Callees);
        assert!(a.subject.contains(&"handle".to_string()) && a.subject.contains(&"router".to_string()));
        assert_eq!(rel("how are sessions persisted"), None);
        assert_eq!(rel("retry with backoff"), None);
    }

    #[test]
    fn classes() {
        assert_eq!(analyze("parse_header_links").intent, Intent::Identifier);
        assert_eq!(analyze("where is `Session.send` defined").intent, Intent::Identifier);
        assert_eq!(analyze("how are cookies persisted between requests?").intent, Intent::Concept);
        assert_eq!(analyze("proxy environment").intent, Intent::Keyword);
        assert_eq!(analyze("where is dehydrate implemented").intent, Intent::Identifier);
        assert_eq!(analyze("View constructor").intent, Intent::Identifier);
        // A bare word is a name; a word with other marks in it is a keyword.
        for name in ["Session", "Deserialize", "formatter"] {
            assert_eq!(analyze(name).intent, Intent::Identifier, "{name}");
        }
        assert_eq!(analyze("--no-descriptions").intent, Intent::Keyword);
        assert_eq!(analyze("how does Session.send pick an adapter for the url").intent, Intent::Mixed);
        assert_eq!(analyze("what calls res.location").intent, Intent::Graph);
        assert!(analyze("how does this project log errors?").wants_patterns);
        assert!(!analyze("parse_header_links").wants_patterns);
    }
}
