//! Code embedded in another file format: the `<script>` blocks of Vue and
//! Svelte components. The grammar parses only those byte ranges (tree-sitter's
//! included ranges), so every node, symbol and line stays in the file's own
//! coordinates; the markup around them (template, style) is chunked as text.

use std::ops::Range;

use crate::analysis::lang::Language;

/// The byte ranges of `src` a language's grammar reads, for languages whose
/// code is embedded in markup; `None` for every other language (the whole
/// file is code). An empty list: a component with no script.
pub fn code_ranges(language: Language, src: &[u8]) -> Option<Vec<Range<usize>>> {
    match language {
        Language::Vue | Language::Svelte => Some(script_blocks(src)),
        _ => None,
    }
}

/// The contents of every top-level `<script …>…</script>` element (`<script
/// setup lang="ts">`, Svelte's `<script context="module">`), in order. A tag
/// must open a line (after indentation): a `<script` inside a template
/// string or an attribute is not a block. An unclosed block runs to the end.
fn script_blocks(src: &[u8]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = find(src, b"<script", at) {
        let line_start = src[..open].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let follows = src.get(open + 7).copied();
        let is_tag = matches!(follows, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r'));
        if !is_tag || !src[line_start..open].iter().all(|b| b.is_ascii_whitespace()) {
            at = open + 7;
            continue;
        }
        let Some(gt) = find(src, b">", open) else { break };
        let body = gt + 1;
        let end = find(src, b"</script", body).unwrap_or(src.len());
        if end > body {
            out.push(body..end);
        }
        at = end;
    }
    out
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle)).map(|i| from + i)
}

/// tree-sitter's included ranges for `ranges` of `src` (points are rows and
/// byte columns).
pub fn included(src: &[u8], ranges: &[Range<usize>]) -> Vec<tree_sitter::Range> {
    let point = |byte: usize| {
        let row = src[..byte].iter().filter(|&&b| b == b'\n').count();
        let column = byte - src[..byte].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        tree_sitter::Point { row, column }
    };
    ranges.iter().map(|r| tree_sitter::Range { start_byte: r.start, end_byte: r.end, start_point: point(r.start), end_point: point(r.end) }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn script_blocks_are_found_and_markup_is_not() {
        let src = b"<template>\n  <div>{{ '<script>' }}</div>\n</template>\n\n<script setup lang=\"ts\">\nconst a = 1\n</script>\n<SCRIPT>\nlet b = 2\n</SCRIPT>\n<style>\n.x {}\n</style>\n";
        let blocks = code_ranges(Language::Vue, src).expect("a component");
        let text: Vec<&str> = blocks.iter().map(|r| std::str::from_utf8(&src[r.clone()]).expect("utf8")).collect();
        assert_eq!(text, ["\nconst a = 1\n", "\nlet b = 2\n"]);
        assert_eq!(code_ranges(Language::Svelte, b"<h1>hi</h1>\n"), Some(vec![]));
        assert_eq!(code_ranges(Language::TypeScript, src), None);
        // Unclosed: to the end.
        assert_eq!(code_ranges(Language::Svelte, b"<script>\nlet x\n"), Some(vec![8..15]));
        let r = included(src, &blocks[..1]);
        assert_eq!((r[0].start_point.row, r[0].start_point.column), (4, 24));
    }
}
