//! Which lines of a file say nothing the program runs: lines whose text lies
//! wholly in comments (any node its grammar names a comment) or in a Python
//! docstring (a statement that is a plain string). `impact` reads a change of
//! such lines as no change of code.
//!
//! A comment the toolchain reads is code for this purpose
//! ([`read_by_the_toolchain`]): an example a test harness runs (a Rust doc
//! comment's code fence, a Python doctest's `>>>`), or a Go directive.

use tree_sitter::Node;

use crate::analysis::lang::Language;
use crate::analysis::tags;

/// For each line of `source` (0-based), whether it has text and all of it
/// lies in comments. Empty when the file is not parsed (no grammar, or too
/// costly) or its comments are code ([`comments_are_code`]): then no line
/// is known to be a comment.
pub fn comment_only_lines(language: Language, source: &[u8]) -> Vec<bool> {
    if comments_are_code(language, source) {
        return Vec::new();
    }
    let Ok(tree) = tags::syntax_tree(language, source) else { return Vec::new() };
    let mut in_comment = vec![false; source.len()];
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if is_comment(language, node) {
            in_comment[node.start_byte().min(source.len())..node.end_byte().min(source.len())].fill(true);
            continue;
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    let mut out = Vec::new();
    let mut at = 0;
    for line in source.split(|b| *b == b'\n') {
        let covered = line.iter().enumerate().filter(|(_, b)| !b.is_ascii_whitespace()).map(|(i, _)| in_comment[at + i]).collect::<Vec<bool>>();
        out.push(!covered.is_empty() && covered.iter().all(|c| *c));
        at += line.len() + 1;
    }
    out
}

/// Whether a comment's line is read by the toolchain: a code fence
/// (rustdoc runs a doc comment's fenced code), a Python doctest's prompt,
/// a Go directive (`//go:build`, `//go:embed`, `// +build`) or an example's
/// `// Output:` that `go test` checks, a shebang, or an encoding
/// declaration.
pub fn read_by_the_toolchain(line: &str) -> bool {
    let t = line.trim_start();
    let go = t.starts_with("//go:") || t.starts_with("// +build") || t.starts_with("// Output:") || t.starts_with("// Unordered output:");
    line.contains("```") || line.contains(">>>") || go || t.starts_with("#!") || t.contains("-*- coding")
}

/// Whether every comment of the file is code: Go's comment above
/// `import "C"` is C that cgo compiles.
pub fn comments_are_code(language: Language, source: &[u8]) -> bool {
    language == Language::Go && source.windows(10).any(|w| w == b"import \"C\"")
}

fn is_comment(language: Language, node: Node) -> bool {
    // A Python statement that is a plain string (no interpolation) does
    // nothing: a docstring, or a string left as a comment.
    let python_string_statement = || {
        node.kind() == "expression_statement"
            && node.named_child_count() == 1
            && node.named_child(0).is_some_and(|s| s.kind() == "string" && !has_interpolation(s))
    };
    node.kind().contains("comment") || (language == Language::Python && python_string_statement())
}

fn has_interpolation(string: Node) -> bool {
    let mut cursor = string.walk();
    let found = string.named_children(&mut cursor).any(|c| c.kind() == "interpolation");
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(language: Language, src: &str) -> Vec<usize> {
        comment_only_lines(language, src.as_bytes()).iter().enumerate().filter(|(_, c)| **c).map(|(i, _)| i + 1).collect()
    }

    #[test]
    fn rust_comments_of_every_kind_and_code_beside_a_comment() {
        let src = "//! module doc\nfn f() {\n    // a note\n    let x = 1; // trailing\n    /* block\n       more */\n}\n";
        assert_eq!(lines(Language::Rust, src), vec![1, 3, 5, 6], "line 4 holds code beside its comment");
    }

    #[test]
    fn python_docstrings_and_comments_but_not_f_strings() {
        let src = "def f():\n    \"\"\"Doc.\n\n    More.\n    \"\"\"\n    # note\n    f\"{g()}\"\n    return 1\n";
        assert_eq!(lines(Language::Python, src), vec![2, 4, 5, 6], "the f-string calls g");
    }

    #[test]
    fn a_file_without_a_grammar_has_no_known_comment() {
        assert!(comment_only_lines(Language::Text, b"# not parsed\n").iter().all(|c| !c));
    }
}
