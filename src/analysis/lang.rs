//! The language table: which files are parsed with which tree-sitter grammar.
//!
//! Adding a language means one entry in [`Language::from_path`], one in
//! [`Language::grammar`], and its node kinds in `parse.rs`.

use std::path::Path;

/// A language git-rag knows how to chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Markdown,
    /// Any other text file: chunked by paragraphs.
    Text,
}

impl Language {
    /// Picks the language from the file name. Unknown extensions are `Text`;
    /// whether the content really is text is decided later from the bytes.
    pub fn from_path(path: &str) -> Language {
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .unwrap_or_default();
        match ext.as_str() {
            "py" | "pyi" | "pyw" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "md" | "markdown" | "mdx" => Language::Markdown,
            _ => Language::Text,
        }
    }

    /// Parses a user-facing name (`--lang`), accepting common aliases.
    pub fn from_name(name: &str) -> Option<Language> {
        match name.to_ascii_lowercase().as_str() {
            "python" | "py" => Some(Language::Python),
            "javascript" | "js" | "jsx" => Some(Language::JavaScript),
            "typescript" | "ts" => Some(Language::TypeScript),
            "tsx" => Some(Language::Tsx),
            "markdown" | "md" => Some(Language::Markdown),
            "text" | "txt" => Some(Language::Text),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Markdown => "markdown",
            Language::Text => "text",
        }
    }

    /// The tree-sitter grammar, for languages that are parsed into symbols.
    pub fn grammar(self) -> Option<tree_sitter::Language> {
        match self {
            Language::Python => Some(tree_sitter_python::LANGUAGE.into()),
            Language::JavaScript => Some(tree_sitter_javascript::LANGUAGE.into()),
            Language::TypeScript => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            Language::Tsx => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
            Language::Markdown | Language::Text => None,
        }
    }

    /// JavaScript-family grammars share node kinds.
    pub fn is_js_family(self) -> bool {
        matches!(self, Language::JavaScript | Language::TypeScript | Language::Tsx)
    }
}

/// Files that are text but rarely what anyone searches for: generated lock
/// files, source maps and minified bundles.
pub fn is_generated(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "package-lock.json" | "yarn.lock" | "pnpm-lock.yaml" | "Cargo.lock" | "poetry.lock" | "uv.lock" | "Pipfile.lock" | "composer.lock"
    ) || name.ends_with(".min.js")
        || name.ends_with(".min.css")
        || name.ends_with(".map")
}

/// Git's own heuristic: a NUL byte in the first 8000 bytes means binary.
pub fn looks_binary(data: &[u8]) -> bool {
    data[..data.len().min(8000)].contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages_from_paths() {
        assert_eq!(Language::from_path("a/b.py"), Language::Python);
        assert_eq!(Language::from_path("x.MJS"), Language::JavaScript);
        assert_eq!(Language::from_path("x.cjs"), Language::JavaScript);
        assert_eq!(Language::from_path("x.jsx"), Language::JavaScript);
        assert_eq!(Language::from_path("x.ts"), Language::TypeScript);
        assert_eq!(Language::from_path("x.tsx"), Language::Tsx);
        assert_eq!(Language::from_path("README.md"), Language::Markdown);
        assert_eq!(Language::from_path("Makefile"), Language::Text);
    }

    #[test]
    fn generated_and_binary() {
        assert!(is_generated("web/package-lock.json"));
        assert!(is_generated("dist/app.min.js"));
        assert!(!is_generated("src/app.js"));
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary("héllo".as_bytes()));
    }
}
