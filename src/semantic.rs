//! What is embedded, and under which key.
//!
//! Embedding dominates indexing cost on a CPU, so the text is chosen with
//! care: a SEMANTIC chunk is a short contextual header (qualified symbol,
//! kind, docstring) plus its code, cut to about the model's window; a SYMBOL
//! is its header only; a FILE is its outline. Vectors are keyed by (model id,
//! hash of that text), so identical text is embedded once, whatever path or
//! commit it appears at. That is also why no path is embedded: a rename, a
//! revert or a branch switch must re-embed nothing. Paths are matched by the
//! keyword index and filtered as payload.

use crate::chunk::{Chunk, ChunkKind};
use crate::parse::Symbol;

/// About 256 word-piece tokens of code.
pub const MAX_CHARS: usize = 1200;

/// The text embedded for a chunk.
pub fn chunk_text(chunk: &Chunk, symbol: Option<&Symbol>) -> String {
    let mut head = String::new();
    if let Some(s) = &chunk.symbol {
        head.push_str(&format!("symbol: {s} ({})\n", chunk.kind.as_str()));
    }
    if let Some(sym) = symbol {
        if let Some(doc) = &sym.doc {
            head.push_str(&format!("doc: {}\n", first_chars(doc, 300)));
        }
    }
    let body_budget = MAX_CHARS.saturating_sub(head.len());
    head.push_str(&first_chars(&chunk.content, body_budget));
    head
}

/// The text embedded for a symbol: its header only.
pub fn symbol_text(sym: &Symbol) -> String {
    let mut t = format!("{} {}\n{}", sym.kind.as_str(), sym.qualified_name, sym.signature);
    if let Some(doc) = &sym.doc {
        t.push('\n');
        t.push_str(&first_chars(doc, 400));
    }
    t
}

/// The text embedded for a file: its outline (the file chunk without its path line).
pub fn file_text(chunks: &[Chunk]) -> String {
    let outline = chunks.iter().find(|c| c.kind == ChunkKind::File).map(|c| c.content.as_str()).unwrap_or("");
    let outline = if outline.starts_with("// file: ") { outline.split_once('\n').map_or("", |(_, rest)| rest) } else { outline };
    first_chars(outline, MAX_CHARS)
}

/// Key of a vector: the model and the exact text embedded.
pub fn vector_key(model_id: &str, text: &str) -> u128 {
    let mut h = blake3::Hasher::new();
    h.update(model_id.as_bytes());
    h.update(&[0]);
    h.update(text.as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&h.finalize().as_bytes()[..16]);
    u128::from_le_bytes(b)
}

fn first_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_bounded_and_keys_depend_on_model_and_text() {
        let chunk = Chunk {
            id: "0".repeat(32),
            content_hash: "1".repeat(32),
            kind: ChunkKind::Function,
            symbol: Some("Session.send".into()),
            symbols: vec!["Session.send".into()],
            parent_id: None,
            start_line: 1,
            end_line: 2,
            start_byte: 0,
            end_byte: 10,
            content: "x".repeat(5000),
        };
        let t = chunk_text(&chunk, None);
        assert!(t.starts_with("symbol: Session.send (function)\n"));
        assert!(t.chars().count() <= MAX_CHARS);
        assert_ne!(vector_key("a", "t"), vector_key("b", "t"));
        assert_ne!(vector_key("a", "t"), vector_key("a", "u"));
        assert_eq!(vector_key("a", "t"), vector_key("a", "t"));
    }
}
