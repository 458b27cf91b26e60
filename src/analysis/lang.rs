//! The language table: which files are parsed with which tree-sitter grammar.
//!
//! Adding a language means a variant listed in [`Language::ALL`], its
//! extensions in [`Language::from_path`] (and interpreter in
//! [`Language::from_shebang`]), its name, its grammar crate in
//! [`Language::grammar`] and a query file in `queries/` (see `tags.rs` for
//! the captures it uses); `tests/languages.rs` then wants a real file of it.

use std::path::Path;
use std::sync::OnceLock;

/// A language git-rag knows how to chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Language {
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Rust,
    Go,
    Java,
    C,
    Cpp,
    CSharp,
    Ruby,
    Lua,
    Kotlin,
    Swift,
    Php,
    Scala,
    Bash,
    Elixir,
    Haskell,
    Zig,
    Protobuf,
    Erlang,
    /// OCaml: `.ml` implementations; an interface (`.mli`) has a grammar of
    /// its own in the same crate.
    OCaml,
    OCamlInterface,
    /// Objective-C: `.m`, and a `.h` that reads as Objective-C
    /// ([`Language::detect`]).
    ObjC,
    Julia,
    R,
    /// HCL: Terraform's `.tf`, `.tfvars` and other `.hcl` files.
    Hcl,
    Dart,
    /// SQL (tree-sitter-sequel: PostgreSQL, MySQL, SQLite and others' DDL and queries).
    Sql,
    /// Clojure, ClojureScript and `.cljc` (tree-sitter-clojure-orchard).
    Clojure,
    /// Perl 5: `.pl`, `.pm`, `.t` tests (tree-sitter-perl).
    Perl,
    /// Configuration (YAML, TOML, JSON): keys as definitions, two levels deep.
    Yaml,
    Toml,
    Json,
    /// A Vue single-file component: its `<script>` blocks parsed as
    /// TypeScript (which reads JavaScript too), the markup as text.
    Vue,
    /// A Svelte component, the same way.
    Svelte,
    Markdown,
    /// Any other text file: chunked by paragraphs.
    #[default]
    Text,
}

impl Language {
    /// Picks the language from the file name. Unknown extensions are `Text`;
    /// whether the content really is text is decided later from the bytes.
    pub fn from_path(path: &str) -> Language {
        // Lowercased on the stack: the graph's resolver asks for every import.
        let ext = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or_default();
        let mut lower = [0u8; 8];
        let Some(buf) = lower.get_mut(..ext.len()) else { return Language::Text };
        buf.copy_from_slice(ext.as_bytes());
        buf.make_ascii_lowercase();
        match std::str::from_utf8(buf).unwrap_or_default() {
            "py" | "pyi" | "pyw" => Language::Python,
            "js" | "mjs" | "cjs" | "jsx" => Language::JavaScript,
            "ts" | "mts" | "cts" => Language::TypeScript,
            "tsx" => Language::Tsx,
            "rs" => Language::Rust,
            "go" => Language::Go,
            "java" => Language::Java,
            "c" | "h" => Language::C,
            "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "tpp" => Language::Cpp,
            "cs" => Language::CSharp,
            "rb" | "rake" | "gemspec" => Language::Ruby,
            "lua" => Language::Lua,
            "kt" | "kts" => Language::Kotlin,
            "swift" => Language::Swift,
            "php" => Language::Php,
            "scala" | "sc" => Language::Scala,
            "sh" | "bash" => Language::Bash,
            "ex" | "exs" => Language::Elixir,
            "hs" => Language::Haskell,
            "zig" => Language::Zig,
            "proto" => Language::Protobuf,
            "erl" | "hrl" => Language::Erlang,
            "ml" => Language::OCaml,
            "mli" => Language::OCamlInterface,
            "m" => Language::ObjC,
            "jl" => Language::Julia,
            "r" => Language::R,
            "tf" | "tfvars" | "hcl" => Language::Hcl,
            "dart" => Language::Dart,
            "sql" => Language::Sql,
            "clj" | "cljs" | "cljc" | "edn" => Language::Clojure,
            "pl" | "pm" | "t" | "psgi" => Language::Perl,
            "yml" | "yaml" => Language::Yaml,
            "toml" => Language::Toml,
            "json" | "jsonc" => Language::Json,
            "vue" => Language::Vue,
            "svelte" => Language::Svelte,
            "md" | "markdown" | "mdx" => Language::Markdown,
            _ => Language::Text,
        }
    }

    /// The language of a file from its name, or for a script without an
    /// extension (`bin/setup`, `hooks/pre-commit`), from its `#!` line; a
    /// `.h` that reads as Objective-C or C++ is.
    pub fn detect(path: &str, data: &[u8]) -> Language {
        match Language::from_path(path) {
            Language::Text if !path.rsplit('/').next().unwrap_or(path).contains('.') => Language::from_shebang(data).unwrap_or(Language::Text),
            Language::C if path.ends_with(".h") && reads_as_objc(data) => Language::ObjC,
            Language::C if path.ends_with(".h") && reads_as_cpp(data) => Language::Cpp,
            language => language,
        }
    }

    /// The interpreter a `#!` line names: `#!/bin/bash`, `#!/usr/bin/env
    /// bash`, `#!/usr/bin/env -S python3 -u`, `#!/usr/bin/env elixir`.
    pub fn from_shebang(data: &[u8]) -> Option<Language> {
        let first = data.strip_prefix(b"#!")?.split(|&b| b == b'\n').next()?;
        let line = std::str::from_utf8(first).ok()?;
        let mut words = line.split_whitespace();
        let mut program = words.next()?.rsplit('/').next()?;
        if program == "env" {
            program = words.find(|w| !w.starts_with('-'))?;
        }
        // `python3.12`, `bash5` name their language without the version.
        let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match name {
            "sh" | "bash" | "dash" | "ksh" | "zsh" => Language::Bash,
            "python" | "pypy" => Language::Python,
            "node" | "nodejs" | "deno" | "bun" => Language::JavaScript,
            "ruby" => Language::Ruby,
            "lua" | "luajit" => Language::Lua,
            "php" => Language::Php,
            "elixir" => Language::Elixir,
            "escript" => Language::Erlang,
            "ocaml" => Language::OCaml,
            "julia" => Language::Julia,
            "Rscript" => Language::R,
            "dart" => Language::Dart,
            "bb" | "clojure" | "clj" => Language::Clojure,
            "perl" => Language::Perl,
            "runhaskell" | "runghc" => Language::Haskell,
            "scala" => Language::Scala,
            "kotlin" => Language::Kotlin,
            "swift" => Language::Swift,
            _ => return None,
        })
    }

    /// Every language, in the order help texts and schemas list them: the
    /// one list behind `--lang`'s possible values, the MCP schema's enum and
    /// the query filter.
    pub const ALL: [Language; 39] = [
        Language::Python,
        Language::JavaScript,
        Language::TypeScript,
        Language::Tsx,
        Language::Rust,
        Language::Go,
        Language::Java,
        Language::C,
        Language::Cpp,
        Language::CSharp,
        Language::Ruby,
        Language::Lua,
        Language::Kotlin,
        Language::Swift,
        Language::Php,
        Language::Scala,
        Language::Bash,
        Language::Elixir,
        Language::Haskell,
        Language::Zig,
        Language::Protobuf,
        Language::Erlang,
        Language::OCaml,
        Language::OCamlInterface,
        Language::ObjC,
        Language::Julia,
        Language::R,
        Language::Hcl,
        Language::Dart,
        Language::Sql,
        Language::Clojure,
        Language::Perl,
        Language::Yaml,
        Language::Toml,
        Language::Json,
        Language::Vue,
        Language::Svelte,
        Language::Markdown,
        Language::Text,
    ];

    /// Parses a user-facing name (`--lang`, MCP `language`), case-insensitive,
    /// accepting the [`aliases`](Language::aliases).
    pub fn from_name(name: &str) -> Option<Language> {
        let name = name.to_ascii_lowercase();
        Language::ALL.into_iter().find(|l| l.name() == name || l.aliases().contains(&name.as_str()))
    }

    /// The name results and filters use (`language` in JSON).
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Tsx => "tsx",
            Language::Rust => "rust",
            Language::Go => "go",
            Language::Java => "java",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::CSharp => "csharp",
            Language::Ruby => "ruby",
            Language::Lua => "lua",
            Language::Kotlin => "kotlin",
            Language::Swift => "swift",
            Language::Php => "php",
            Language::Scala => "scala",
            Language::Bash => "bash",
            Language::Elixir => "elixir",
            Language::Haskell => "haskell",
            Language::Zig => "zig",
            Language::Protobuf => "protobuf",
            Language::Erlang => "erlang",
            Language::OCaml => "ocaml",
            Language::OCamlInterface => "ocaml-interface",
            Language::ObjC => "objc",
            Language::Julia => "julia",
            Language::R => "r",
            Language::Hcl => "hcl",
            Language::Dart => "dart",
            Language::Sql => "sql",
            Language::Clojure => "clojure",
            Language::Perl => "perl",
            Language::Yaml => "yaml",
            Language::Toml => "toml",
            Language::Json => "json",
            Language::Vue => "vue",
            Language::Svelte => "svelte",
            Language::Markdown => "markdown",
            Language::Text => "text",
        }
    }

    /// Other names a user may give for it (lowercase).
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            Language::Python => &["py"],
            Language::JavaScript => &["js", "jsx"],
            Language::TypeScript => &["ts"],
            Language::Tsx => &[],
            Language::Rust => &["rs"],
            Language::Go => &["golang"],
            Language::Java => &[],
            Language::C => &[],
            Language::Cpp => &["c++", "cxx", "cc"],
            Language::CSharp => &["c#", "cs"],
            Language::Ruby => &["rb"],
            Language::Lua => &[],
            Language::Kotlin => &["kt"],
            Language::Swift => &[],
            Language::Php => &[],
            Language::Scala => &[],
            Language::Bash => &["sh", "shell"],
            Language::Elixir => &["ex"],
            Language::Haskell => &["hs"],
            Language::Zig => &[],
            Language::Protobuf => &["proto"],
            Language::Erlang => &["erl"],
            Language::OCaml => &["ml"],
            Language::OCamlInterface => &["mli"],
            Language::ObjC => &["objective-c", "objectivec"],
            Language::Julia => &["jl"],
            Language::R => &["rlang"],
            Language::Hcl => &["terraform", "tf"],
            Language::Dart => &[],
            Language::Sql => &["postgresql", "mysql", "sqlite"],
            Language::Clojure => &["clj", "cljs", "clojurescript"],
            Language::Perl => &["pl", "perl5"],
            Language::Yaml => &["yml"],
            Language::Toml | Language::Json => &[],
            Language::Vue | Language::Svelte => &[],
            Language::Markdown => &["md"],
            Language::Text => &["txt"],
        }
    }

    /// Every name [`from_name`](Language::from_name) accepts, comma-separated, for messages.
    pub fn names() -> String {
        Language::ALL.map(Language::name).join(", ")
    }

    /// The tree-sitter grammar, for languages that are parsed into symbols.
    pub fn grammar(self) -> Option<tree_sitter::Language> {
        match self {
            Language::Python => Some(tree_sitter_python::LANGUAGE.into()),
            Language::JavaScript => Some(tree_sitter_javascript::LANGUAGE.into()),
            Language::TypeScript => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            Language::Tsx => Some(tree_sitter_typescript::LANGUAGE_TSX.into()),
            Language::Rust => Some(tree_sitter_rust::LANGUAGE.into()),
            Language::Go => Some(tree_sitter_go::LANGUAGE.into()),
            Language::Java => Some(tree_sitter_java::LANGUAGE.into()),
            Language::C => Some(tree_sitter_c::LANGUAGE.into()),
            Language::Cpp => Some(tree_sitter_cpp::LANGUAGE.into()),
            Language::CSharp => Some(tree_sitter_c_sharp::LANGUAGE.into()),
            Language::Ruby => Some(tree_sitter_ruby::LANGUAGE.into()),
            Language::Lua => Some(tree_sitter_lua::LANGUAGE.into()),
            Language::Kotlin => Some(tree_sitter_kotlin_ng::LANGUAGE.into()),
            Language::Swift => Some(tree_sitter_swift::LANGUAGE.into()),
            // With the HTML around `<?php`: most PHP files open with it.
            Language::Php => Some(tree_sitter_php::LANGUAGE_PHP.into()),
            Language::Scala => Some(tree_sitter_scala::LANGUAGE.into()),
            Language::Bash => Some(tree_sitter_bash::LANGUAGE.into()),
            Language::Elixir => Some(tree_sitter_elixir::LANGUAGE.into()),
            Language::Haskell => Some(tree_sitter_haskell::LANGUAGE.into()),
            Language::Zig => Some(tree_sitter_zig::LANGUAGE.into()),
            Language::Protobuf => Some(tree_sitter_proto::LANGUAGE.into()),
            Language::Erlang => Some(tree_sitter_erlang::LANGUAGE.into()),
            Language::OCaml => Some(tree_sitter_ocaml::LANGUAGE_OCAML.into()),
            Language::OCamlInterface => Some(tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE.into()),
            Language::ObjC => Some(tree_sitter_objc::LANGUAGE.into()),
            Language::Julia => Some(tree_sitter_julia::LANGUAGE.into()),
            Language::R => Some(tree_sitter_r::LANGUAGE.into()),
            Language::Hcl => Some(tree_sitter_hcl::LANGUAGE.into()),
            Language::Dart => Some(tree_sitter_dart::LANGUAGE.into()),
            Language::Sql => Some(tree_sitter_sequel::LANGUAGE.into()),
            Language::Clojure => Some(tree_sitter_clojure_orchard::LANGUAGE.into()),
            Language::Perl => Some(tree_sitter_perl::LANGUAGE.into()),
            Language::Yaml => Some(tree_sitter_yaml::LANGUAGE.into()),
            Language::Toml => Some(tree_sitter_toml_ng::LANGUAGE.into()),
            Language::Json => Some(tree_sitter_json::LANGUAGE.into()),
            // Only the `<script>` blocks (`embedded::code_ranges`).
            Language::Vue | Language::Svelte => Some(tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()),
            Language::Markdown | Language::Text => None,
        }
    }

    /// The tags query (definitions, calls, imports; see `tags.rs`) of a
    /// language that is described by one rather than walked by hand.
    pub fn tags_query(self) -> Option<&'static str> {
        match self {
            Language::Rust => Some(include_str!("queries/rust.scm")),
            Language::Go => Some(include_str!("queries/go.scm")),
            Language::Java => Some(include_str!("queries/java.scm")),
            Language::C => Some(include_str!("queries/c.scm")),
            Language::Cpp => Some(include_str!("queries/cpp.scm")),
            Language::CSharp => Some(include_str!("queries/csharp.scm")),
            Language::Ruby => Some(include_str!("queries/ruby.scm")),
            Language::Lua => Some(include_str!("queries/lua.scm")),
            Language::Kotlin => Some(include_str!("queries/kotlin.scm")),
            Language::Swift => Some(include_str!("queries/swift.scm")),
            Language::Php => Some(include_str!("queries/php.scm")),
            Language::Scala => Some(include_str!("queries/scala.scm")),
            Language::Bash => Some(include_str!("queries/bash.scm")),
            Language::Elixir => Some(include_str!("queries/elixir.scm")),
            Language::Haskell => Some(include_str!("queries/haskell.scm")),
            Language::Zig => Some(include_str!("queries/zig.scm")),
            Language::Protobuf => Some(include_str!("queries/protobuf.scm")),
            Language::Erlang => Some(include_str!("queries/erlang.scm")),
            // One query: an interface's nodes are the implementation's (`val`s,
            // types, module types) without the expressions.
            Language::OCaml | Language::OCamlInterface => Some(include_str!("queries/ocaml.scm")),
            // The grammar extends C's: the classes and messages, then C's query.
            Language::ObjC => Some(concat!(include_str!("queries/objc.scm"), include_str!("queries/c.scm"))),
            Language::Julia => Some(include_str!("queries/julia.scm")),
            Language::R => Some(include_str!("queries/r.scm")),
            Language::Hcl => Some(include_str!("queries/hcl.scm")),
            Language::Dart => Some(include_str!("queries/dart.scm")),
            Language::Sql => Some(include_str!("queries/sql.scm")),
            Language::Clojure => Some(include_str!("queries/clojure.scm")),
            Language::Perl => Some(include_str!("queries/perl.scm")),
            Language::Yaml => Some(include_str!("queries/yaml.scm")),
            Language::Toml => Some(include_str!("queries/toml.scm")),
            Language::Json => Some(include_str!("queries/json.scm")),
            Language::Python => Some(include_str!("queries/python.scm")),
            Language::JavaScript => Some(concat!(include_str!("queries/javascript.scm"), include_str!("queries/ecmascript.scm"))),
            Language::TypeScript | Language::Tsx | Language::Vue | Language::Svelte => {
                Some(concat!(include_str!("queries/typescript.scm"), include_str!("queries/ecmascript.scm")))
            }
            Language::Markdown | Language::Text => None,
        }
    }

    /// Whether a value can hold definitions of its own: a JavaScript
    /// object literal's methods (`const api = { get() {} }`). Elsewhere a
    /// type, constant or variable is one symbol with everything in it.
    pub fn values_hold_definitions(self) -> bool {
        matches!(self, Language::Python | Language::JavaScript | Language::TypeScript | Language::Tsx | Language::Vue | Language::Svelte)
    }

    /// Whether a type meets an interface by having its methods rather than
    /// by naming it (Go): its implementations are found by method sets.
    pub fn interfaces_are_structural(self) -> bool {
        matches!(self, Language::Go)
    }

    /// Whether a function is written as several clauses, each its own node
    /// (a Haskell signature and its equations, an Elixir function's heads):
    /// consecutive clauses of one name share a chunk.
    pub fn defines_by_clauses(self) -> bool {
        matches!(self, Language::Haskell | Language::Elixir | Language::Erlang)
    }

    /// How the language writes a member of a named scope in a qualified
    /// name: `Type::method` in Rust, C++, PHP and Perl, `module:function` in
    /// Erlang, `pkg.Func` / `Type.Method` elsewhere (Ruby's `Class#method` is
    /// decided per definition).
    pub fn scope_separator(self) -> &'static str {
        match self {
            Language::Rust | Language::Cpp | Language::Ruby | Language::Php | Language::Perl => "::",
            Language::Erlang => ":",
            _ => ".",
        }
    }

    /// Every language with a grammar, for tests and benchmarks: [`Language::ALL`]
    /// lists them first, then Markdown and plain text.
    pub const PARSED: &[Language] = Language::ALL.split_at(Language::ALL.len() - 2).0;

    /// Configuration and data (YAML, TOML, JSON): keys, not code. Their
    /// queries start at the root and go two levels deep, and a file with
    /// too many keys is data ([`crate::analysis::tags`]).
    pub fn is_config(self) -> bool {
        matches!(self, Language::Yaml | Language::Toml | Language::Json)
    }

    /// JavaScript-family grammars share node kinds.
    pub fn is_js_family(self) -> bool {
        matches!(self, Language::JavaScript | Language::TypeScript | Language::Tsx | Language::Vue | Language::Svelte)
    }
}

impl std::fmt::Display for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl serde::Serialize for Language {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// From a name or an alias; an unknown one is an error that lists the names.
impl<'de> serde::Deserialize<'de> for Language {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Language::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown language `{name}`; one of: {}", Language::names())))
    }
}

/// A string that is one of the languages' names (clients see the whole list).
impl schemars::JsonSchema for Language {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Language".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let names: Vec<&str> = Language::ALL.map(Language::name).to_vec();
        schemars::json_schema!({ "type": "string", "enum": names })
    }
}

/// An Objective-C header: `@interface`, `@protocol` or `#import` at the
/// start of a line in its first 64 KB (C has none of them).
fn reads_as_objc(data: &[u8]) -> bool {
    let head = &data[..data.len().min(64 * 1024)];
    head.split(|&b| b == b'\n').any(|line| {
        let line = line.trim_ascii_start();
        line.starts_with(b"@interface") || line.starts_with(b"@protocol") || line.starts_with(b"#import")
    })
}

/// A C++ header: a line of its first 64 KB that C cannot have (a template,
/// a namespace, a class with a base or a body, an access label, `std::`, a
/// standard C++ header included), as GitHub's linguist tells them apart.
/// C headers with `extern "C"` for C++ callers stay C (the kernel: 8 of its
/// 23,429 headers read as C++, all of them C++: gcc plugins, a Qt UI, perf's
/// clang glue; curl: none of 245; fmt: 23 of 25).
fn reads_as_cpp(data: &[u8]) -> bool {
    static LINE: OnceLock<regex::bytes::Regex> = OnceLock::new();
    let line = LINE.get_or_init(|| {
        regex::bytes::Regex::new(concat!(
            r"(?m)^[ \t]*(template[ \t]*<|(inline[ \t]+)?namespace([ \t]+[\w:]+)?[ \t]*\{|using[ \t]+namespace[ \t]",
            r"|(class|struct)[ \t]+\w+([ \t]+final)?[ \t]*:[ \t]*(public|private|protected)?[ \t]*\w|class[ \t]+\w+[ \t\r]*(\{|$)",
            r"|(public|private|protected)[ \t]*:[ \t\r]*$",
            r"|#[ \t]*include[ \t]*<(string|vector|map|memory|iostream|cstdint|cstddef|cstring|type_traits|utility|functional|algorithm|array|unordered_map|set|list|tuple|optional|limits|atomic|mutex|thread|chrono)>)",
            r"|\bstd::\w"
        ))
        .expect("a valid pattern")
    });
    line.is_match(&data[..data.len().min(64 * 1024)])
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
        assert_eq!(Language::from_path("src/lib.rs"), Language::Rust);
        assert_eq!(Language::from_path("cmd/root.go"), Language::Go);
        assert_eq!(Language::from_path("include/x.h"), Language::C);
        assert_eq!(Language::from_path("x.hpp"), Language::Cpp);
        assert_eq!(Language::from_path("X.cs"), Language::CSharp);
        assert_eq!(Language::from_path("lib/x.rb"), Language::Ruby);
        assert_eq!(Language::from_path("init.lua"), Language::Lua);
        for (path, language) in [
            ("Job.kt", Language::Kotlin),
            ("build.gradle.kts", Language::Kotlin),
            ("Sources/App.swift", Language::Swift),
            ("src/Collection.php", Language::Php),
            ("Decoder.scala", Language::Scala),
            ("install.sh", Language::Bash),
            ("lib/router.ex", Language::Elixir),
            ("mix.exs", Language::Elixir),
            ("Main.hs", Language::Haskell),
            ("build.zig", Language::Zig),
            ("stdlib/list.ml", Language::OCaml),
            ("stdlib/list.mli", Language::OCamlInterface),
            ("ios/RNView.m", Language::ObjC),
            ("src/DataStructures.jl", Language::Julia),
            ("R/seed.R", Language::R),
            ("analysis.r", Language::R),
            ("infra/main.tf", Language::Hcl),
            ("prod.tfvars", Language::Hcl),
            ("build.pkr.hcl", Language::Hcl),
            ("lib/src/parsed_path.dart", Language::Dart),
            ("db/schema.sql", Language::Sql),
            ("migrations/0001_init.SQL", Language::Sql),
            (".github/workflows/ci.yml", Language::Yaml),
            ("deploy/values.yaml", Language::Yaml),
            ("Cargo.toml", Language::Toml),
            ("package.json", Language::Json),
            ("tsconfig.jsonc", Language::Json),
            ("src/medley/core.cljc", Language::Clojure),
            ("src/app/core.cljs", Language::Clojure),
            ("deps.edn", Language::Clojure),
            ("lib/URI/Escape.pm", Language::Perl),
            ("script/run.pl", Language::Perl),
            ("t/escape.t", Language::Perl),
        ] {
            assert_eq!(Language::from_path(path), language, "{path}");
        }
        for lang in Language::PARSED {
            assert!(lang.grammar().is_some(), "{lang:?}");
        }
        for lang in &Language::ALL[Language::PARSED.len()..] {
            assert!(lang.grammar().is_none(), "{lang:?} has a grammar: list it with the parsed ones");
        }
        for lang in Language::ALL {
            assert_eq!(Language::from_name(lang.name()), Some(lang));
            assert_eq!(Language::from_name(&lang.name().to_uppercase()), Some(lang));
            for alias in lang.aliases() {
                assert_eq!(Language::from_name(alias), Some(lang), "{alias}");
            }
        }
        assert_eq!(Language::from_name("cobol"), None);
    }

    #[test]
    fn scripts_without_an_extension_by_their_interpreter() {
        assert_eq!(Language::detect("bin/setup", b"#!/usr/bin/env bash\nset -e\n"), Language::Bash);
        assert_eq!(Language::detect("hooks/pre-commit", b"#!/bin/sh\n"), Language::Bash);
        assert_eq!(Language::detect("tool", b"#!/usr/bin/env -S python3.12 -u\n"), Language::Python);
        assert_eq!(Language::detect("serve", b"#!/usr/bin/env node\n"), Language::JavaScript);
        assert_eq!(Language::detect("notes", b"plain words\n"), Language::Text);
        assert_eq!(Language::detect("run", b"#!/usr/bin/env perl\n"), Language::Perl);
        assert_eq!(Language::detect("run", b"#!/usr/bin/env tclsh\n"), Language::Text, "a language without a grammar stays text");
        // The name decides when there is one: a `.txt` with a `#!` line is text.
        assert_eq!(Language::detect("example.txt", b"#!/bin/bash\n"), Language::Text);
        assert_eq!(Language::detect("x.py", b"#!/bin/bash\n"), Language::Python);
        // A header is C unless it reads as Objective-C.
        assert_eq!(Language::detect("ios/RNView.h", b"#import <UIKit/UIKit.h>\n@interface RNView : UIView\n@end\n"), Language::ObjC);
        assert_eq!(Language::detect("src/list.h", b"#include <stddef.h>\nstruct list;\n"), Language::C);
    }

    #[test]
    fn binary() {
        assert!(looks_binary(b"abc\0def"));
        assert!(!looks_binary("héllo".as_bytes()));
    }
}

/// A [`Language`] serialized as its [`name`](Language::name).
pub mod by_name {
    use super::Language;

    pub fn serialize<S: serde::Serializer>(language: &Language, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(language.name())
    }

    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Language, D::Error> {
        let name = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
        Language::from_name(&name).ok_or_else(|| serde::de::Error::custom(format!("unknown language {name}")))
    }
}
