//! The languages parsed through tags queries, on real files
//! (`tests/fixtures/languages/<language>/`, origins in its `SOURCES.md`):
//! definitions with kind, parent and qualified name in the language's form,
//! chunks that stay inside the file and give each definition its own chunk,
//! the file outline, and files with a syntax error.

use git_rag::analysis::chunk::{chunk_file, ChunkKind, ChunkOptions, FileChunks};
use git_rag::analysis::lang::Language;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/languages");

fn chunked(rel: &str) -> (Vec<u8>, FileChunks) {
    let data = std::fs::read(format!("{DIR}/{rel}")).unwrap_or_else(|e| panic!("fixture {rel}: {e}"));
    let fc = chunk_file(rel, &data, &ChunkOptions::default());
    (data, fc)
}

/// Asserts that `rel` defines each (qualified name, kind), and that each
/// callable or container among them has a chunk of its own.
fn assert_defines(rel: &str, language: Language, expected: &[(&str, &str)]) -> FileChunks {
    let (data, fc) = chunked(rel);
    assert_eq!(fc.language, language, "{rel}");
    let names: Vec<(&str, &str)> = fc.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind.as_str())).collect();
    for &(q, kind) in expected {
        assert!(names.contains(&(q, kind)), "{rel}: no {kind} {q}; symbols: {names:?}");
        if !matches!(kind, "const" | "variable" | "type") {
            assert!(fc.chunks.iter().any(|c| c.symbol.as_deref() == Some(q) && c.kind != ChunkKind::Block), "{rel}: {q} has no chunk of its own");
        }
    }
    let lines = data.iter().filter(|&&b| b == b'\n').count() + 1;
    for c in &fc.chunks {
        assert!(c.start_byte <= c.end_byte && c.end_byte <= data.len(), "{rel}: chunk bytes out of the file");
        assert!(1 <= c.start_line && c.start_line <= c.end_line && c.end_line <= lines, "{rel}: chunk lines out of the file");
    }
    for s in &fc.symbols {
        assert!(s.span.start_line <= s.span.end_line && s.span.end_line <= lines, "{rel}: symbol {} out of the file", s.qualified_name);
    }
    let file = fc.chunks.iter().find(|c| c.kind == ChunkKind::File).expect("a file chunk");
    assert!(file.content.contains(&fc.symbols[0].signature), "{rel}: the outline lists the definitions");
    fc
}

#[test]
fn rust_traits_impls_in_macros_and_modules() {
    let fc = assert_defines(
        "rust/serializer.rs",
        Language::Rust,
        &[("Serializable", "interface"), ("Serializable::serialize_to_vec", "method"), ("Serializable::serialized_bytes", "method")],
    );
    let s = fc.symbols.iter().find(|s| s.qualified_name == "Serializable").expect("trait");
    assert!(s.doc.is_some(), "the trait's `///` doc comment");
    let fc = assert_defines("rust/index_mod.rs", Language::Rust, &[]);
    assert!(fc.symbols.iter().any(|s| s.qualified_name.contains("::")), "impl members are `Type::method`");
    assert!(!fc.imports.is_empty());
    assert_defines("rust/rtls.rs", Language::Rust, &[]);
}

#[test]
fn go_receivers_structs_and_functions() {
    let fc = assert_defines(
        "go/section.go",
        Language::Go,
        &[("SectionHeader32", "class"), ("SectionHeader32.fullName", "method"), ("Reloc", "class"), ("readRelocs", "function"), ("Section", "class")],
    );
    let m = fc.symbols.iter().find(|s| s.qualified_name == "SectionHeader32.fullName").expect("method");
    assert_eq!(m.parent.as_deref(), Some("SectionHeader32"));
    assert_defines("go/type.go", Language::Go, &[]);
    assert_defines("go/cobra.go", Language::Go, &[]);
}

#[test]
fn java_nested_classes() {
    let fc = assert_defines("java/AllowList.java", Language::Java, &[("AllowList", "class"), ("AllowList.URLPattern", "class")]);
    assert!(fc.symbols.iter().any(|s| s.qualified_name.starts_with("AllowList.URLPattern.") && s.kind.as_str() == "method"), "methods of the nested class");
    assert!(fc.imports.iter().any(|i| i.module.starts_with("java.") || i.module.starts_with("android.")), "{:?}", fc.imports);
    assert_defines("java/CordovaBridge.java", Language::Java, &[("CordovaBridge", "class")]);
}

#[test]
fn c_functions_typedefs_and_the_preprocessor() {
    let fc = assert_defines("c/scanner.c", Language::C, &[("consume_char", "function"), ("skip_whitespaces", "function"), ("reset_state", "function")]);
    assert!(fc.imports.iter().any(|i| i.module.ends_with(".h")), "#include");
    assert!(fc.symbols.iter().any(|s| s.kind.as_str() == "type"), "a typedef");
    assert_defines("c/parser.h", Language::C, &[]);
    assert_defines("c/stack.h", Language::C, &[]);
}

#[test]
fn cpp_templates_classes_and_out_of_class_members() {
    let fc = assert_defines("cpp/sample3-inl.hpp", Language::Cpp, &[("QueueNode", "class"), ("Queue", "class")]);
    assert!(fc.symbols.iter().any(|s| s.qualified_name.starts_with("Queue::") && s.kind.as_str() == "method"), "{:?}", fc.symbols.iter().map(|s| &s.qualified_name).collect::<Vec<_>>());
    assert_defines("cpp/prime_tables.hpp", Language::Cpp, &[]);
    let fc = assert_defines("cpp/gtest-test-part.cc", Language::Cpp, &[]);
    assert!(fc.symbols.iter().any(|s| s.kind.as_str() == "module"), "a namespace");
}

#[test]
fn csharp_namespaces_classes_and_members() {
    let fc = assert_defines("csharp/DecoderGroup.cs", Language::CSharp, &[]);
    let group = fc.symbols.iter().find(|s| s.name == "DecoderGroup").expect("class DecoderGroup");
    assert_eq!(group.kind.as_str(), "class");
    assert!(group.bases.iter().any(|b| b.starts_with("IPyObjectDecoder")), "{:?}", group.bases);
    for m in ["Add", "CanDecode", "TryDecode"] {
        let q = format!("{}.{m}", group.qualified_name);
        assert!(fc.symbols.iter().any(|s| s.qualified_name == q && s.kind.as_str() == "method"), "no {q}");
    }
    assert_defines("csharp/Interop.cs", Language::CSharp, &[]);
}

#[test]
fn ruby_modules_classes_and_singleton_methods() {
    let fc = assert_defines(
        "ruby/readline.rb",
        Language::Ruby,
        &[
            ("Bundler::Thor::LineEditor", "module"),
            ("Bundler::Thor::LineEditor::Readline", "class"),
            ("Bundler::Thor::LineEditor::Readline.available?", "method"),
            ("Bundler::Thor::LineEditor::Readline#readline", "method"),
        ],
    );
    let k = fc.symbols.iter().find(|s| s.qualified_name == "Bundler::Thor::LineEditor::Readline").expect("class");
    assert_eq!(k.bases, vec!["Basic".to_string()]);
    assert_defines("ruby/config.rb", Language::Ruby, &[]);
}

#[test]
fn lua_module_functions_and_locals() {
    let fc = assert_defines("lua/template.lua", Language::Lua, &[("parseDollarParen", "function"), ("parseHashLines", "function"), ("template.substitute", "function")]);
    assert!(fc.imports.iter().any(|i| i.module.starts_with("pl.")), "{:?}", fc.imports);
    assert_defines("lua/stringio.lua", Language::Lua, &[]);
}

/// A real file with one syntax error: the definitions around the error are
/// still found, and the whole file also gets a fallback chunk.
#[test]
fn a_syntax_error_keeps_the_other_definitions() {
    for (rel, language) in [
        ("rust/broken.rs", Language::Rust),
        ("go/broken.go", Language::Go),
        ("java/broken.java", Language::Java),
        ("c/broken.c", Language::C),
        ("cpp/broken.cpp", Language::Cpp),
        ("csharp/broken.cs", Language::CSharp),
        ("ruby/broken.rb", Language::Ruby),
        ("lua/broken.lua", Language::Lua),
    ] {
        let (_, fc) = chunked(rel);
        assert_eq!(fc.language, language);
        assert!(fc.has_errors, "{rel} has a syntax error");
        assert!(fc.symbols.len() >= 2, "{rel}: definitions outside the error: {:?}", fc.symbols.iter().map(|s| &s.qualified_name).collect::<Vec<_>>());
        assert!(fc.chunks.iter().any(|c| c.kind == ChunkKind::Fallback), "{rel}: a fallback chunk");
    }
}

/// Every query language marks its conventions on real code.
#[test]
fn conventions_on_real_files() {
    let (_, fc) = chunked("go/section.go");
    assert!(fc.patterns.iter().any(|p| p.key == "check:err != nil"), "{:?}", fc.patterns.iter().map(|p| &p.key).collect::<Vec<_>>());
    let (_, fc) = chunked("rust/rtls.rs");
    assert!(fc.patterns.iter().any(|p| p.key == "propagate:?"), "{:?}", fc.patterns.iter().map(|p| &p.key).collect::<Vec<_>>());
}
