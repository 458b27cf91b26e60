//! Code embedded in another file format: the `<script>` blocks of Vue and
//! Svelte components, the fenced code blocks of Markdown. The grammar parses
//! only those byte ranges (tree-sitter's included ranges), so every node,
//! symbol and line stays in the file's own coordinates; the markup around
//! them (template, style, prose) is chunked as text.

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

/// The fenced code blocks of a Markdown text whose info string names a
/// language with a grammar (```` ```python ````, `~~~ rust,ignore`, ```` ```{.go} ````),
/// each with its contents' byte range, in order. A block closes at a line
/// of at least as many of the same fence characters and nothing else; an
/// unclosed one runs to the end (as CommonMark reads it).
pub fn fenced_blocks(src: &[u8]) -> Vec<(Language, Range<usize>)> {
    let mut out = Vec::new();
    // The open block: its fence character, length, language, contents' start.
    let mut open: Option<(u8, usize, Option<Language>, usize)> = None;
    let mut pos = 0;
    while pos < src.len() {
        let line_end = src[pos..].iter().position(|&b| b == b'\n').map_or(src.len(), |i| pos + i + 1);
        let line = &src[pos..line_end];
        let text = line.trim_ascii_start();
        let fence_char = text.first().copied().filter(|c| matches!(c, b'`' | b'~'));
        let run = fence_char.map_or(0, |c| text.iter().take_while(|&&b| b == c).count());
        match open {
            Some((c, len, language, start)) if fence_char == Some(c) && run >= len && text[run..].trim_ascii().is_empty() => {
                if let Some(language) = language.filter(|_| pos > start) {
                    out.push((language, start..pos));
                }
                open = None;
            }
            Some(_) => {}
            None if run >= 3 => {
                let info = String::from_utf8_lossy(text[run..].trim_ascii());
                // A backtick fence's info string holds no backtick (that is inline code).
                if fence_char != Some(b'`') || !info.contains('`') {
                    open = Some((text[0], run, fence_language(&info), line_end));
                }
            }
            None => {}
        }
        pos = line_end;
    }
    if let Some((_, _, Some(language), start)) = open.filter(|o| o.3 < src.len()) {
        out.push((language, start..src.len()));
    }
    out
}

/// The language a fence's info string names by its first word, if it is
/// one with a grammar that reads code (not Markdown, text or a config format).
fn fence_language(info: &str) -> Option<Language> {
    let word = info.trim_start_matches(['{', '.']).split(|c: char| c.is_whitespace() || matches!(c, ',' | '}' | '{')).next()?;
    let language = match word.to_ascii_lowercase().as_str() {
        "zsh" | "ksh" => Language::Bash,
        "py3" | "python3" => Language::Python,
        "c++" => Language::Cpp,
        "kts" => Language::Kotlin,
        other => Language::from_name(other)?,
    };
    (language.grammar().is_some() && !language.is_config() && !matches!(language, Language::Vue | Language::Svelte)).then_some(language)
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?.windows(needle.len()).position(|w| w.eq_ignore_ascii_case(needle)).map(|i| from + i)
}

/// tree-sitter's included ranges for `ranges` of `src`, which are in order
/// (points are rows and byte columns; one pass over the text).
pub fn included(src: &[u8], ranges: &[Range<usize>]) -> Vec<tree_sitter::Range> {
    let (mut row, mut line_start, mut at) = (0, 0, 0);
    let mut point = |byte: usize| {
        for (i, b) in src[at..byte].iter().enumerate() {
            if *b == b'\n' {
                row += 1;
                line_start = at + i + 1;
            }
        }
        at = byte;
        tree_sitter::Point { row, column: byte - line_start }
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
        assert_eq!(code_ranges(Language::Svelte, b"<script>\nlet x\n"), Some(std::iter::once(8..15).collect()));
        let r = included(src, &blocks[..1]);
        assert_eq!((r[0].start_point.row, r[0].start_point.column), (4, 24));
    }

    #[test]
    fn fenced_blocks_name_their_language() {
        let src = "# Use\n\n```python\nconnect()\n```\n\n  ~~~ rust,ignore\nfn f() {}\n  ~~~\n\n````md\n```go\nnot go\n```\n````\n\n```console\n$ make\n```\n\n```{.ts}\nlet a = 1\n```\n\n```x``` is inline.\n\n```sh\nrun it\n";
        let blocks: Vec<(Language, &str)> = fenced_blocks(src.as_bytes()).into_iter().map(|(l, r)| (l, &src[r])).collect();
        // Markdown inside a longer fence is not opened; `console` has no grammar; unclosed runs to the end.
        assert_eq!(
            blocks,
            [(Language::Python, "connect()\n"), (Language::Rust, "fn f() {}\n"), (Language::TypeScript, "let a = 1\n"), (Language::Bash, "run it\n")]
        );
        assert!(fenced_blocks(b"```python\n```\n").is_empty(), "an empty block");
        assert_eq!(fence_language("JSON"), None);
        assert_eq!(fence_language("c++ title=\"a.cc\""), Some(Language::Cpp));
    }
}
