//! C and C++ as the compiler reads them after the preprocessor, for the
//! attribute-like macros a grammar cannot know: `static __always_inline
//! __alloc_size(1) void *kmalloc(…)`, `int __init f(void)`, `const void
//! __user *p`. The grammar reads `__alloc_size(1)` as the function being
//! declared and the rest as an error, so `kmalloc` had no definition; a
//! third of the Linux kernel's files had syntax errors. Such macros are
//! blanked with spaces before parsing (offsets and lines are unchanged, and
//! names, signatures and chunks are still read from the file's own bytes).
//!
//! What is blanked, outside braces and preprocessor lines only (never in a
//! function body): an identifier of the form `__name` (two underscores, not
//! ending with two: `__func__` and `__attribute__` stay) followed by a name
//! or `*` — an attribute before the declared name or the return type — and
//! `__name(…)` after a storage class, `inline`, `)` or another blanked
//! macro, when a name, `*`, `;`, `{` or `,` follows it. A declared name
//! (`void *__kmalloc(size_t)`, `int __x;`) follows a type and is kept.

/// `source` with attribute-like macros blanked, or `None` when it has none.
pub fn blank_attribute_macros(source: &[u8]) -> Option<Vec<u8>> {
    let mut out: Option<Vec<u8>> = None;
    let mut depth = 0usize;
    let mut i = 0;
    // The last significant token: what a macro with arguments may follow.
    let mut prev = Prev::Start;
    while i < source.len() {
        let b = source[i];
        match b {
            b'/' if source.get(i + 1) == Some(&b'/') => i = line_end(source, i),
            b'/' if source.get(i + 1) == Some(&b'*') => i = find(source, i + 2, b"*/").map_or(source.len(), |e| e + 2),
            b'"' | b'\'' => i = literal_end(source, i),
            b'#' if at_line_start(source, i) => i = directive_end(source, i),
            b'{' => {
                depth += 1;
                prev = Prev::Other;
                i += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                prev = Prev::Start;
                i += 1;
            }
            b';' => {
                prev = Prev::Start;
                i += 1;
            }
            b')' => {
                prev = Prev::Close;
                i += 1;
            }
            _ if is_ident_start(b) => {
                let end = ident_end(source, i);
                let word = &source[i..end];
                let blank = if depth == 0 && is_attribute_name(word) { attribute_end(source, end, prev) } else { None };
                match blank {
                    Some(to) => {
                        let buf = out.get_or_insert_with(|| source.to_vec());
                        for c in &mut buf[i..to] {
                            if *c != b'\n' {
                                *c = b' ';
                            }
                        }
                        prev = Prev::Blanked;
                        i = to;
                    }
                    None => {
                        prev = if matches!(word, b"static" | b"inline" | b"extern" | b"const") { Prev::Keyword } else { Prev::Other };
                        i = end;
                    }
                }
            }
            _ => {
                if !b.is_ascii_whitespace() {
                    prev = Prev::Other;
                }
                i += 1;
            }
        }
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Prev {
    /// The start of a file or of a declaration (after `;` or `}`).
    Start,
    Keyword,
    Close,
    Blanked,
    Other,
}

/// `__name`, not ending with `__`: the shape of attribute macros.
fn is_attribute_name(word: &[u8]) -> bool {
    word.len() > 3 && word.starts_with(b"__") && !word.ends_with(b"__") && word[2].is_ascii_lowercase()
}

/// Where a macro named up to `end` ends when it is an attribute (`None`:
/// it is something else, a declared name most often).
fn attribute_end(src: &[u8], end: usize, prev: Prev) -> Option<usize> {
    let next = skip_space(src, end);
    if src.get(next) == Some(&b'(') {
        if !matches!(prev, Prev::Start | Prev::Keyword | Prev::Close | Prev::Blanked) {
            return None;
        }
        let close = balanced_end(src, next)?;
        let after = skip_space(src, close);
        let follows = src.get(after).copied();
        let fits = follows.is_some_and(|c| is_ident_start(c) || matches!(c, b'*' | b';' | b'{' | b','));
        // At a declaration's start, `__setup(…);` is a macro call, not an attribute.
        let call = prev == Prev::Start && follows == Some(b';');
        return (fits && !call).then_some(close);
    }
    let follows = src.get(next).copied();
    follows.is_some_and(|c| is_ident_start(c) || c == b'*').then_some(end)
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn ident_end(src: &[u8], mut i: usize) -> usize {
    while i < src.len() && (src[i].is_ascii_alphanumeric() || src[i] == b'_') {
        i += 1;
    }
    i
}

fn skip_space(src: &[u8], mut i: usize) -> usize {
    while i < src.len() && src[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The index after the `)` matching the `(` at `open`; `None` when unbalanced.
fn balanced_end(src: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < src.len() {
        match src[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' | b'\'' => {
                i = literal_end(src, i);
                continue;
            }
            b'{' | b'}' | b';' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

fn line_end(src: &[u8], i: usize) -> usize {
    src[i..].iter().position(|&b| b == b'\n').map_or(src.len(), |p| i + p)
}

fn find(src: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    src.get(from..)?.windows(pat.len()).position(|w| w == pat).map(|p| from + p)
}

/// The index after a string or character literal starting at `i`.
fn literal_end(src: &[u8], i: usize) -> usize {
    let quote = src[i];
    let mut j = i + 1;
    while j < src.len() {
        match src[j] {
            b'\\' => j += 2,
            b'\n' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    src.len()
}

fn at_line_start(src: &[u8], i: usize) -> bool {
    src[..i].iter().rev().take_while(|&&b| b != b'\n').all(|b| b.is_ascii_whitespace())
}

/// The end of a preprocessor directive, continuation lines included.
fn directive_end(src: &[u8], mut i: usize) -> usize {
    loop {
        let end = line_end(src, i);
        let continued = src[i..end].iter().rev().find(|b| !matches!(b, b' ' | b'\t' | b'\r')) == Some(&b'\\');
        if !continued || end >= src.len() {
            return end;
        }
        i = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blanked(src: &str) -> String {
        let out = blank_attribute_macros(src.as_bytes()).map_or_else(|| src.to_string(), |b| String::from_utf8(b).expect("utf-8"));
        assert_eq!(out.len(), src.len(), "offsets hold");
        out.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn attributes_go_and_declared_names_stay() {
        assert_eq!(
            blanked("static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)\n{\n\treturn __kmalloc(size, flags);\n}"),
            "static void *kmalloc(size_t size, gfp_t flags) { return __kmalloc(size, flags); }"
        );
        assert_eq!(
            blanked("void *__kmalloc(size_t size, gfp_t flags) __assume_kmalloc_alignment __alloc_size(1);"),
            "void *__kmalloc(size_t size, gfp_t flags) ;"
        );
        assert_eq!(blanked("static int __init foo_init(void)\n{ int __x = 1; return __x; }"), "static int foo_init(void) { int __x = 1; return __x; }");
        assert_eq!(
            blanked("unsigned long copy_from_user(void *to, const void __user *from, unsigned long n);"),
            "unsigned long copy_from_user(void *to, const void *from, unsigned long n);"
        );
        assert_eq!(blanked("int __foo;\nint __bar = 1;\nvoid f(int __x);"), "int __foo; int __bar = 1; void f(int __x);");
        assert_eq!(blanked("__setup(\"quiet\", quiet_kernel);\nconst char *s = __func__;"), "__setup(\"quiet\", quiet_kernel); const char *s = __func__;");
        assert_eq!(
            blanked("#define __init __section(\".init.text\") __cold\n// __cold int x;\nint y;"),
            "#define __init __section(\".init.text\") __cold // __cold int x; int y;"
        );
        assert_eq!(blank_attribute_macros(b"int main(void) { return 0; }"), None);
    }

    #[test]
    fn kmalloc_in_slab_h_is_a_definition_once_blanked() {
        let src = "static __always_inline __alloc_size(1) void *kmalloc(size_t size, gfp_t flags)\n{\n\tif (__builtin_constant_p(size)) {\n\t\treturn kmalloc_large(size, flags);\n\t}\n\treturn __kmalloc(size, flags);\n}\n";
        let parsed = crate::analysis::parse::parse(crate::analysis::lang::Language::C, src.as_bytes()).expect("C parses");
        let kmalloc = parsed.symbols.iter().find(|s| s.name == "kmalloc").expect("kmalloc is defined");
        assert_eq!((kmalloc.kind, kmalloc.span.start_line), (crate::analysis::parse::SymbolKind::Function, 1));
        assert!(kmalloc.signature.contains("__alloc_size(1)"), "the signature is the file's own text: {}", kmalloc.signature);
        assert!(!parsed.has_errors, "no syntax error left");
    }
}
