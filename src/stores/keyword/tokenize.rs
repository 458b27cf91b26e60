//! The keyword index's analyzers: code text as searchable words
//! ([`code_terms`], stemmed by [`StemmedCodeTokenizer`]) and as its exact
//! form ([`ExactTokenizer`]).
//!
//! Each tokenizer is a stream that refills one token in place: a full index
//! tokenizes every chunk twice, and a string allocated per term (tens of
//! millions of them) was allocator work that found nothing.

use std::borrow::Cow;
use std::iter::Peekable;
use std::str::CharIndices;

use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};

/// A run of identifier characters longer than this is not a word (a hash,
/// base64): the code form skips it, the exact form keeps its head.
const MAX_TOKEN_LEN: usize = 80;

/// Splits source text into searchable terms: every identifier whole
/// (lowercased) and, when it has several parts, each camelCase, PascalCase,
/// snake_case or letter/digit part as well.
pub fn code_terms(text: &str) -> Vec<Token> {
    collect(CodeTokenizer.token_stream(text))
}

/// The analyzer of every code text field: [`code_terms`], then English
/// stemming, so `sessions` finds `session` and `persisted` finds `persist`.
pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(StemmedCodeTokenizer::default()).build()
}

/// Query-side terms: exactly what the index holds for the same text.
pub fn analyze(text: &str) -> Vec<String> {
    let mut analyzer = analyzer();
    collect(analyzer.token_stream(text)).into_iter().map(|t| t.text).collect()
}

/// Splits text into its exact form: each run of identifier characters whole,
/// case kept, and every other visible character as a token of its own, so
/// that a phrase of them matches a literal (`--dry-run`, `"%s" is not a
/// valid`, `Connection refused`) as written, whatever the whitespace.
pub fn exact_terms(text: &str) -> Vec<Token> {
    collect(ExactTokenizer.token_stream(text))
}

/// The exact-form terms of `text`, as the index holds them.
pub fn exact_analyze(text: &str) -> Vec<String> {
    exact_terms(text).into_iter().map(|t| t.text).collect()
}

fn collect(mut stream: impl TokenStream) -> Vec<Token> {
    let mut out = Vec::new();
    while stream.advance() {
        out.push(stream.token().clone());
    }
    out
}

/// `parseHTTPHeader2_value` -> [parse, HTTP, Header, 2, value]
pub fn split_identifier(word: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    split_identifier_into(word, &mut parts);
    parts
}

/// [`split_identifier`] into `parts` (cleared first).
fn split_identifier_into<'w>(word: &'w str, parts: &mut Vec<&'w str>) {
    parts.clear();
    if word.is_ascii() {
        // Nearly every identifier: split on its bytes, without collecting
        // its characters first.
        let bytes = word.as_bytes();
        split_at_boundaries(word, bytes.len(), |k| (k, bytes[k]), parts);
    } else {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        split_at_boundaries(word, chars.len(), |k| chars[k], parts);
    }
}

/// A character as identifier splitting sees it: a byte of an ASCII word, or a `char`.
trait WordChar: Copy {
    fn is_separator(self) -> bool;
    fn is_lower(self) -> bool;
    fn is_upper(self) -> bool;
    fn is_letter(self) -> bool;
    fn is_digit(self) -> bool;
}

impl WordChar for u8 {
    fn is_separator(self) -> bool {
        self == b'_' || self == b'$'
    }
    fn is_lower(self) -> bool {
        self.is_ascii_lowercase()
    }
    fn is_upper(self) -> bool {
        self.is_ascii_uppercase()
    }
    fn is_letter(self) -> bool {
        self.is_ascii_alphabetic()
    }
    fn is_digit(self) -> bool {
        self.is_ascii_digit()
    }
}

impl WordChar for char {
    fn is_separator(self) -> bool {
        self == '_' || self == '$'
    }
    fn is_lower(self) -> bool {
        self.is_lowercase()
    }
    fn is_upper(self) -> bool {
        self.is_uppercase()
    }
    fn is_letter(self) -> bool {
        self.is_alphabetic()
    }
    fn is_digit(self) -> bool {
        self.is_numeric()
    }
}

/// Splits `word`, whose `k`th of `len` characters is `at(k)` (byte offset,
/// character), at separators and at case and letter/digit boundaries.
fn split_at_boundaries<'w, C: WordChar>(word: &'w str, len: usize, at: impl Fn(usize) -> (usize, C), parts: &mut Vec<&'w str>) {
    let mut start: Option<usize> = None;
    for k in 0..len {
        let (i, c) = at(k);
        if c.is_separator() {
            if let Some(s) = start.take() {
                parts.push(&word[s..i]);
            }
            continue;
        }
        // After a separator (or at the start) a part begins: `prev` below is never one.
        let Some(s) = start else {
            start = Some(i);
            continue;
        };
        let prev = at(k - 1).1;
        let next = (k + 1 < len).then(|| at(k + 1).1);
        let boundary = (prev.is_lower() && c.is_upper())
            || (prev.is_letter() && c.is_digit())
            || (prev.is_digit() && c.is_letter())
            || (prev.is_upper() && c.is_upper() && next.is_some_and(|n| n.is_lower()));
        if boundary {
            parts.push(&word[s..i]);
            start = Some(i);
        }
    }
    if let Some(s) = start {
        parts.push(&word[s..]);
    }
}

/// Consumes the identifier characters that follow a run's first one; the
/// byte offset where the run ends (`end` is where it ends so far).
fn ident_run_end(chars: &mut Peekable<CharIndices<'_>>, mut end: usize) -> usize {
    while let Some(&(i, c)) = chars.peek() {
        if !is_ident_char(c) {
            break;
        }
        end = i + c.len_utf8();
        chars.next();
    }
    end
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Appends `s` lowercased.
fn push_lowercase(out: &mut String, s: &str) {
    if s.is_ascii() {
        out.extend(s.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    } else {
        out.push_str(&s.to_lowercase());
    }
}

/// Fills `token` as the next term of a stream.
fn set(token: &mut Token, text: &str, span: (usize, usize)) {
    token.text.clear();
    token.text.push_str(text);
    (token.offset_from, token.offset_to) = span;
    token.position = token.position.wrapping_add(1);
}

/// [`code_terms`] as a tantivy tokenizer (no stemming).
#[derive(Clone, Default)]
pub struct CodeTokenizer;

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        CodeTokenStream::new(text)
    }
}

/// The terms of [`code_terms`], one at a time.
pub struct CodeTokenStream<'a> {
    text: &'a str,
    chars: Peekable<CharIndices<'a>>,
    /// The current identifier: where it is, lowercased, and its parts (the
    /// next to give at `next_part`).
    span: (usize, usize),
    whole: String,
    parts: Vec<&'a str>,
    next_part: usize,
    token: Token,
}

impl<'a> CodeTokenStream<'a> {
    fn new(text: &'a str) -> CodeTokenStream<'a> {
        CodeTokenStream {
            text,
            chars: text.char_indices().peekable(),
            span: (0, 0),
            whole: String::new(),
            parts: Vec::new(),
            next_part: 0,
            token: Token::default(),
        }
    }

    /// The next part of the current identifier that differs from the whole.
    fn next_part(&mut self) -> bool {
        while let Some(part) = self.parts.get(self.next_part) {
            self.next_part += 1;
            self.token.text.clear();
            push_lowercase(&mut self.token.text, part);
            if self.token.text != self.whole {
                (self.token.offset_from, self.token.offset_to) = self.span;
                self.token.position = self.token.position.wrapping_add(1);
                return true;
            }
        }
        false
    }

    /// The next identifier, whole; its parts are given next.
    fn next_word(&mut self) -> bool {
        while let Some((start, c)) = self.chars.next() {
            if !is_ident_char(c) {
                continue;
            }
            let end = ident_run_end(&mut self.chars, start + c.len_utf8());
            let whole = self.text[start..end].trim_matches(|c| c == '_' || c == '$');
            if whole.is_empty() || whole.len() > MAX_TOKEN_LEN {
                continue;
            }
            self.whole.clear();
            push_lowercase(&mut self.whole, whole);
            split_identifier_into(whole, &mut self.parts);
            if self.parts.len() < 2 {
                self.parts.clear();
            }
            self.next_part = 0;
            self.span = (start, end);
            set(&mut self.token, &self.whole, self.span);
            return true;
        }
        false
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        self.next_part() || self.next_word()
    }
    fn token(&self) -> &Token {
        &self.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// [`code_terms`] through English stemming (the Snowball algorithm tantivy's
/// `Stemmer` applies), each word's stem remembered: identifiers repeat, and
/// stemming every occurrence was ~6% of a full index's CPU.
pub struct StemmedCodeTokenizer {
    stemmer: frostem::Stemmer,
    /// word → its stem, `None` when that is the word itself.
    stems: rustc_hash::FxHashMap<Box<str>, Option<Box<str>>>,
}

/// Words a tokenizer remembers the stems of before it starts afresh (each
/// indexing thread has its own: a few tens of MB at most).
const REMEMBERED_STEMS: usize = 1 << 16;

impl Default for StemmedCodeTokenizer {
    fn default() -> Self {
        StemmedCodeTokenizer { stemmer: frostem::Stemmer::new(frostem::Algorithm::English), stems: Default::default() }
    }
}

/// A copy starts with nothing remembered (tantivy copies the analyzer for
/// each segment it writes).
impl Clone for StemmedCodeTokenizer {
    fn clone(&self) -> Self {
        StemmedCodeTokenizer::default()
    }
}

impl Tokenizer for StemmedCodeTokenizer {
    type TokenStream<'a> = StemmedTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> StemmedTokenStream<'a> {
        if self.stems.len() > REMEMBERED_STEMS {
            self.stems.clear();
        }
        StemmedTokenStream { terms: CodeTokenStream::new(text), tokenizer: self }
    }
}

/// The terms of [`code_terms`], each replaced by its stem.
pub struct StemmedTokenStream<'a> {
    terms: CodeTokenStream<'a>,
    tokenizer: &'a mut StemmedCodeTokenizer,
}

impl TokenStream for StemmedTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if !self.terms.advance() {
            return false;
        }
        let text = &mut self.terms.token.text;
        match self.tokenizer.stems.get(text.as_str()) {
            Some(Some(stem)) => {
                text.clear();
                text.push_str(stem);
            }
            Some(None) => {}
            None => {
                let stem = match self.tokenizer.stemmer.stem(text) {
                    Cow::Borrowed(_) => None,
                    Cow::Owned(stem) => Some(stem),
                };
                let remembered = stem.as_deref().filter(|s| s != text).map(Box::from);
                self.tokenizer.stems.insert(text.as_str().into(), remembered);
                if let Some(stem) = stem {
                    *text = stem;
                }
            }
        }
        true
    }
    fn token(&self) -> &Token {
        &self.terms.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.terms.token
    }
}

/// [`exact_terms`] as a tantivy tokenizer.
#[derive(Clone, Default)]
pub struct ExactTokenizer;

impl Tokenizer for ExactTokenizer {
    type TokenStream<'a> = ExactTokenStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> ExactTokenStream<'a> {
        ExactTokenStream { text, chars: text.char_indices().peekable(), token: Token::default() }
    }
}

/// The terms of [`exact_terms`], one at a time.
pub struct ExactTokenStream<'a> {
    text: &'a str,
    chars: Peekable<CharIndices<'a>>,
    token: Token,
}

impl TokenStream for ExactTokenStream<'_> {
    fn advance(&mut self) -> bool {
        while let Some((start, c)) = self.chars.next() {
            if c.is_whitespace() {
                continue;
            }
            // An escape in a string (`"\nDid you mean…"`) is one term, and the
            // word after it starts afresh: not the identifier `nDid`.
            let escape = c == '\\' && self.chars.peek().is_some_and(|&(_, n)| matches!(n, 'n' | 't' | 'r' | '0' | 'a' | 'b' | 'e' | 'f' | 'v'));
            let end = if escape {
                self.chars.next().map_or(start + 1, |(i, n)| i + n.len_utf8())
            } else if is_ident_char(c) {
                ident_run_end(&mut self.chars, start + c.len_utf8())
            } else {
                start + c.len_utf8()
            };
            let word = &self.text[start..end];
            let mut cut = word.len().min(MAX_TOKEN_LEN);
            while !word.is_char_boundary(cut) {
                cut -= 1;
            }
            set(&mut self.token, &word[..cut], (start, end));
            return true;
        }
        false
    }
    fn token(&self) -> &Token {
        &self.token
    }
    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The remembered stems are tantivy's: the same terms, text after text
    /// (the second time from memory), as its `Stemmer` filter gives.
    #[test]
    fn remembered_stems_equal_tantivys_stemmer() {
        use tantivy::tokenizer::{Language, Stemmer};
        let texts = [
            "def persisted_sessions(self): return self.sessions.persist(running=True)",
            "class ConnectionRefusedError: 'Connection refused' while connecting; connections connected",
            "def persisted_sessions(self): return self.sessions.persist(running=True) # again",
            "parseHTTPHeader2_value généralement ÜBER studies studying studied",
        ];
        let terms = |analyzer: &mut TextAnalyzer, text: &str| {
            let mut stream = analyzer.token_stream(text);
            let mut out = Vec::new();
            while stream.advance() {
                let t = stream.token();
                out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
            }
            out
        };
        let mut ours = analyzer();
        let mut theirs = TextAnalyzer::builder(CodeTokenizer).filter(Stemmer::new(Language::English)).build();
        for text in texts.iter().chain(texts.iter()) {
            let want = terms(&mut theirs, text);
            assert!(want.iter().any(|(t, ..)| t == "session" || t == "connect" || t == "studi"), "{want:?}");
            assert_eq!(terms(&mut ours, text), want, "{text}");
        }
    }

    #[test]
    fn exact_terms_keep_case_and_punctuation() {
        assert_eq!(exact_analyze("--dry-run"), ["-", "-", "dry", "-", "run"]);
        assert_eq!(exact_analyze("raise ValueError(\"%s is bad\" % x)"), ["raise", "ValueError", "(", "\"", "%", "s", "is", "bad", "\"", "%", "x", ")"]);
        assert_eq!(exact_analyze("Connection   refused"), exact_analyze("Connection\n refused"));
        assert_eq!(exact_analyze(r#""\n\nDid you mean this?\n""#), ["\"", "\\n", "\\n", "Did", "you", "mean", "this", "?", "\\n", "\""]);
        let long = "a".repeat(MAX_TOKEN_LEN + 5);
        let terms = exact_terms(&format!("x {long} é"));
        let got: Vec<_> = terms.iter().map(|t| (t.text.len(), t.position, t.offset_from, t.offset_to)).collect();
        assert_eq!(got, [(1, 0, 0, 1), (MAX_TOKEN_LEN, 1, 2, 2 + long.len()), (2, 2, 3 + long.len(), 5 + long.len())]);
    }

    fn texts(s: &str) -> Vec<String> {
        code_terms(s).into_iter().map(|t| t.text).collect()
    }

    proptest::proptest! {
        /// The ASCII path splits as the general one does.
        #[test]
        fn ascii_words_split_as_any_word(word in "[A-Za-z0-9_$]{0,24}") {
            let chars: Vec<(usize, char)> = word.char_indices().collect();
            let mut general = Vec::new();
            split_at_boundaries(&word, chars.len(), |k| chars[k], &mut general);
            proptest::prop_assert_eq!(split_identifier(&word), general);
        }

        /// A term is an identifier's whole or a part of it, numbered in
        /// order, and points at the identifier it came from.
        #[test]
        fn code_terms_point_at_their_identifier(text in "[A-Za-zé0-9_$ .(),\n]{0,60}") {
            for (i, t) in code_terms(&text).iter().enumerate() {
                proptest::prop_assert_eq!(t.position, i);
                let source = &text[t.offset_from..t.offset_to];
                proptest::prop_assert!(source.to_lowercase().contains(&t.text), "{:?} in {:?}", t.text, source);
            }
        }
    }

    #[test]
    fn splits_identifiers_and_keeps_the_whole() {
        assert_eq!(texts("getHTTPResponse2"), vec!["gethttpresponse2", "get", "http", "response", "2"]);
        assert_eq!(texts("parse_header_links"), vec!["parse_header_links", "parse", "header", "links"]);
        assert_eq!(texts("__init__"), vec!["init"]);
        assert_eq!(texts("CaseInsensitiveDict x"), vec!["caseinsensitivedict", "case", "insensitive", "dict", "x"]);
        assert_eq!(texts("res.sendFile('a b')"), vec!["res", "sendfile", "send", "file", "a", "b"]);
        // Beyond ASCII: the same rules on characters.
        assert_eq!(texts("naïveÉtat2_größe"), vec!["naïveétat2_größe", "naïve", "état", "2", "größe"]);
        assert_eq!(texts(&"x".repeat(MAX_TOKEN_LEN + 1)), Vec::<String>::new());
    }
}
