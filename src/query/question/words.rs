//! Words that carry no meaning in a question about code.

const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how", "i", "if", "in", "into", "is", "it",
    "its", "me", "of", "on", "or", "show", "that", "the", "their", "this", "to", "was", "what", "when", "where", "which", "who", "why",
    "with", "find", "defined", "definition", "implementation", "implemented", "code", "there", "we", "our", "get's", "does", "happens",
    "work", "works", "used", "handle", "handled", "handles", "should", "would", "any", "all", "about", "after", "before", "some", "then",
];

pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}
