//! The languages parsed through tags queries, on real files
//! (`tests/fixtures/languages/<language>/`, origins in its `SOURCES.md`):
//! definitions with kind, parent and qualified name in the language's form,
//! chunks that stay inside the file and give each definition its own chunk,
//! the file outline, and files with a syntax error.

use git_rag::analysis::chunk::{chunk_file, ChunkKind, ChunkOptions, FileChunks};
use git_rag::analysis::lang::Language;

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/fixtures/languages");

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
        if !matches!(kind, "const" | "variable" | "type" | "key") {
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

/// Asserts that `symbol` calls `callee` (the call as the extractor writes
/// it); with overloads or clauses (a Haskell signature and its equations),
/// any definition of that name.
fn assert_calls(fc: &FileChunks, symbol: &str, callee: &str) {
    let calls: Vec<&String> = fc.symbols.iter().filter(|s| s.qualified_name == symbol).flat_map(|s| &s.calls).collect();
    assert!(calls.iter().any(|c| *c == callee), "{symbol} calls {callee}; calls: {calls:?}");
}

/// Asserts that the doc comment above `symbol` is joined to it.
fn assert_doc(fc: &FileChunks, symbol: &str, starts_with: &str) {
    let s = fc.symbols.iter().find(|s| s.qualified_name == symbol).unwrap_or_else(|| panic!("no {symbol}"));
    let doc = s.doc.as_deref().unwrap_or_default();
    assert!(doc.starts_with(starts_with), "{symbol}'s doc: {doc:?}");
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
    assert!(
        fc.symbols.iter().any(|s| s.qualified_name.starts_with("Queue::") && s.kind.as_str() == "method"),
        "{:?}",
        fc.symbols.iter().map(|s| &s.qualified_name).collect::<Vec<_>>()
    );
    assert_defines("cpp/prime_tables.hpp", Language::Cpp, &[]);
    let fc = assert_defines("cpp/gtest-test-part.cc", Language::Cpp, &[]);
    assert!(fc.symbols.iter().any(|s| s.kind.as_str() == "module"), "a namespace");
}

#[test]
fn a_header_is_cpp_when_it_reads_as_cpp_and_c_otherwise() {
    // The two C++ fixtures under their original names (`.h`, as GoogleTest has them).
    for (rel, original) in [("cpp/prime_tables.hpp", "samples/prime_tables.h"), ("cpp/sample3-inl.hpp", "samples/sample3-inl.h")] {
        let data = std::fs::read(format!("{DIR}/{rel}")).expect("fixture");
        let fc = chunk_file(original, &data, &ChunkOptions::default());
        assert_eq!(fc.language, Language::Cpp, "{original}");
        let names: Vec<&str> = fc.symbols.iter().map(|s| s.qualified_name.as_str()).collect();
        assert!(names.contains(&"PrimeTable") || names.contains(&"Queue"), "{original}: {names:?}");
    }
    // C headers that open `extern "C"` for C++ callers stay C.
    for rel in ["c/parser.h", "c/stack.h"] {
        let (_, fc) = chunked(rel);
        assert_eq!(fc.language, Language::C, "{rel}");
    }
    assert_eq!(Language::detect("x.h", b"#include <stdio.h>\nstruct list { struct list *next; };\n"), Language::C);
    assert_eq!(Language::detect("x.h", b"#pragma once\nnamespace fmt {\n}\n"), Language::Cpp);
    assert_eq!(Language::detect("x.h", b"class Widget {\r\npublic:\r\n  int size() const;\r\n};\r\n"), Language::Cpp);
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
    let fc = assert_defines(
        "lua/template.lua",
        Language::Lua,
        &[("parseDollarParen", "function"), ("parseHashLines", "function"), ("template.substitute", "function")],
    );
    assert!(fc.imports.iter().any(|i| i.module.starts_with("pl.")), "{:?}", fc.imports);
    assert_defines("lua/stringio.lua", Language::Lua, &[]);
}

#[test]
fn swift_protocols_extensions_and_inits() {
    let fc = assert_defines(
        "swift/SharedObject.swift",
        Language::Swift,
        &[
            ("AnySharedObject", "interface"),
            ("AnySharedObject.getDynamicType", "method"),
            ("SharedObject", "class"),
            ("SharedObject.init", "method"),
            ("SharedObject.getJavaScriptObject", "method"),
            ("SharedObject.emit", "method"),
        ],
    );
    assert_doc(&fc, "SharedObject.sharedObjectWillRelease", "A function that will be called before the object is removed");
    let fc = assert_defines(
        "swift/Record.swift",
        Language::Swift,
        &[("Record", "interface"), ("Record.Dict", "type"), ("Record.toDictionary", "method"), ("Record.update", "method"), ("fieldsOf", "function")],
    );
    assert_calls(&fc, "fieldsOf", "Mirror");
    assert_doc(&fc, "Record", "A protocol that allows initializing the object with a dictionary");
}

#[test]
fn php_classes_traits_and_functions_in_guards() {
    let fc = assert_defines(
        "php/Js.php",
        Language::Php,
        &[("Illuminate\\Support", "module"), ("Js", "class"), ("Js::REQUIRED_FLAGS", "const"), ("Js::__construct", "method"), ("Js::from", "method")],
    );
    let js = fc.symbols.iter().find(|s| s.qualified_name == "Js").expect("class Js");
    assert!(js.bases.iter().any(|b| b == "Htmlable"), "{:?}", js.bases);
    assert_calls(&fc, "Js::__toString", "$this.toHtml");
    assert_doc(&fc, "Js::from", "Create a new JavaScript string from the given data");
    assert!(fc.imports.iter().any(|i| i.module == "Illuminate\\Contracts\\Support\\Arrayable"), "{:?}", fc.imports);
    let fc = assert_defines("php/functions.php", Language::Php, &[("defer", "function"), ("php_binary", "function"), ("now", "function")]);
    assert_calls(&fc, "now", "Date.now");
    assert_doc(&fc, "defer", "Defer execution of the given callback");
}

#[test]
fn kotlin_companions_extensions_and_properties() {
    let fc = assert_defines(
        "kotlin/CdpNetworkTypes.kt",
        Language::Kotlin,
        &[
            ("Headers", "type"),
            ("ResourceType", "enum"),
            ("ResourceType.fromMimeType", "method"),
            ("JsonSerializable", "interface"),
            ("ConnectTiming", "class"),
        ],
    );
    // `mimeType: String`: the call is written with the receiver's type (`receivers.rs`).
    assert_calls(&fc, "ResourceType.fromMimeType", "String.startsWith");
    let fc = assert_defines(
        "kotlin/CodedException.kt",
        Language::Kotlin,
        &[("CodedException", "class"), ("CodedException.inferCode", "method"), ("Throwable.toCodedException", "method"), ("errorCodeOf", "function")],
    );
    assert_calls(&fc, "errorCodeOf", "CodedException.inferCode");
    assert_doc(&fc, "CodedException", "A class for errors specifying its `code`");
}

#[test]
fn scala_objects_traits_cases_and_imports() {
    let fc = assert_defines(
        "scala/CursorOp.scala",
        Language::Scala,
        &[
            ("CursorOp", "class"),
            ("CursorOp", "module"),
            ("CursorOp.requiresObject", "method"),
            ("CursorOp.DownField", "class"),
            ("CursorOp.opsToPath", "function"),
        ],
    );
    // `history: List[CursorOp]`: a call of `List`'s method.
    assert_calls(&fc, "CursorOp.opsToPath", "List.foldRight");
    assert_doc(&fc, "CursorOp.requiresObject", "Does this operation require the current focus");
    let fc = assert_defines("scala/DerivesSuite.scala", Language::Scala, &[("DerivesSuite.Vegetable", "enum"), ("DerivesSuite.Foo", "interface")]);
    // A dotted path is one module: `import io.circe.syntax._`, not its last segment.
    assert!(fc.imports.iter().any(|i| i.module.starts_with("io.circe.")), "{:?}", fc.imports);
}

#[test]
fn haskell_types_classes_instances_and_haddock() {
    let fc = assert_defines(
        "haskell/Concurrent.hs",
        Language::Haskell,
        &[("Lock", "class"), ("Once", "class"), ("Barrier", "class"), ("newLock", "function"), ("withLock", "function")],
    );
    assert_calls(&fc, "newLock", "newMVar");
    assert_doc(&fc, "newLock", "Create a new 'Lock'.");
    assert!(fc.imports.iter().any(|i| i.module == "Data.Tuple.Extra"), "{:?}", fc.imports);
    // A signature and its equations are one function: one chunk.
    let clauses: Vec<&str> = fc.chunks.iter().filter(|c| c.symbol.as_deref() == Some("newLock")).map(|c| c.content.as_str()).collect();
    assert!(matches!(clauses.as_slice(), [one] if one.contains("newLock :: IO Lock") && one.contains("newMVar")), "{clauses:?}");
    let fc = assert_defines("haskell/Class.hs", Language::Haskell, &[("Default", "interface"), ("Default.def", "method"), ("Int.def", "method")]);
    assert_doc(&fc, "Default", "A class for types with a default value.");
}

#[test]
fn zig_containers_type_functions_and_tests() {
    let fc = assert_defines(
        "zig/epoch.zig",
        Language::Zig,
        &[
            ("Month", "enum"),
            ("Month.numeric", "method"),
            ("EpochSeconds", "class"),
            ("EpochSeconds.getEpochDay", "method"),
            ("isLeapYear", "function"),
            ("epoch decoding", "function"),
        ],
    );
    assert_calls(&fc, "getDaysInYear", "isLeapYear");
    assert_doc(&fc, "EpochSeconds", "seconds since epoch Jan 1, 1970 at 12:00 AM");
    let fc = assert_defines("zig/memory_pool.zig", Language::Zig, &[("Extra", "class"), ("Extra.create", "method"), ("Options", "class")]);
    assert_calls(&fc, "Extra.create", "pool.allocNew");
}

#[test]
fn bash_functions_sources_and_commands() {
    let fc = assert_defines(
        "bash/common.bash",
        Language::Bash,
        &[("bats_version_lt", "function"), ("bats_require_minimum_version", "function"), ("bats_binary_search", "function")],
    );
    assert_calls(&fc, "bats_require_minimum_version", "bats_version_lt");
    assert_doc(&fc, "bats_version_lt", "compares two versions. Return 0 when version1 < version2");
    let fc = assert_defines("bash/semaphore.bash", Language::Bash, &[("bats_semaphore_setup", "function"), ("bats_semaphore_run", "function")]);
    assert_calls(&fc, "bats_semaphore_run", "bats_semaphore_acquire_slot");
    assert!(!fc.symbols.iter().any(|s| s.name == "BATS_SEMAPHORE_DIR"), "an `export` inside a function is not a definition");
    // A script's settings are definitions: one per name of `export A=1 B=2`.
    let fc = chunk_file("env.sh", b"#!/bin/sh\nexport A=1 B=2\nreadonly R=1\nf() {\n  local y=1\n}\n", &ChunkOptions::default());
    let names: Vec<(&str, &str)> = fc.symbols.iter().map(|s| (s.qualified_name.as_str(), s.kind.as_str())).collect();
    assert_eq!(names, [("A", "variable"), ("B", "variable"), ("R", "const"), ("f", "function")]);
}

#[test]
fn elixir_modules_protocols_impls_and_attribute_docs() {
    let fc = assert_defines(
        "elixir/message.ex",
        Language::Elixir,
        &[
            ("Phoenix.Socket.Message", "module"),
            ("Phoenix.Socket.Message.from_map!", "function"),
            ("Phoenix.Socket.Message.Inspect.inspect", "function"),
            ("Phoenix.Socket.Reply", "module"),
            ("Phoenix.Socket.Message.t", "type"),
        ],
    );
    assert_calls(&fc, "Phoenix.Socket.Message.from_map!", "Map.fetch!");
    assert_doc(&fc, "Phoenix.Socket.Message.from_map!", "Converts a map with string keys into a message struct.");
    assert_doc(&fc, "Phoenix.Socket.Message", "Defines a message dispatched over transport to channels and vice-versa.");
    let fc = assert_defines(
        "elixir/param.ex",
        Language::Elixir,
        &[
            ("Phoenix.Param", "interface"),
            ("Phoenix.Param.Atom", "module"),
            ("Phoenix.Param.Atom.to_param", "function"),
            ("Phoenix.Param.Any.to_param", "function"),
        ],
    );
    assert_calls(&fc, "Phoenix.Param.Atom.to_param", "Atom.to_string");
    assert_doc(&fc, "Phoenix.Param", "A protocol that converts data structures into URL parameters.");
    // A function's clauses share a chunk while they fit the budget.
    let (_, fc) = chunked("elixir/broken.ex");
    let camelize: Vec<(usize, usize)> =
        fc.chunks.iter().filter(|c| c.symbol.as_deref() == Some("Phoenix.Naming.camelize")).map(|c| (c.start_line, c.end_line)).collect();
    assert!(matches!(camelize.as_slice(), [(start, end)] if *start <= 94 && *end >= 101), "{camelize:?}");
}

/// A real file with one syntax error: the definitions around the error are
/// still found, and the whole file also gets a fallback chunk.
#[test]
fn vue_and_svelte_scripts_are_parsed_and_their_markup_kept() {
    let fc = assert_defines(
        "vue/VPLocalNavOutlineDropdown.vue",
        Language::Vue,
        &[("closeOnClickOutside", "function"), ("toggle", "function"), ("onItemClick", "function"), ("scrollToTop", "function")],
    );
    let toggle = fc.symbols.iter().find(|s| s.qualified_name == "toggle").expect("toggle");
    assert_eq!((toggle.span.start_line, toggle.span.end_line), (42, 45), "lines of the file, not of the script");
    assert_calls(&fc, "scrollToTop", "window.scrollTo");
    assert!(fc.imports.iter().any(|i| i.module == "./VPDocOutlineItem.vue"), "{:?}", fc.imports);
    // The template and the style are searchable, outside every definition.
    let markup = |fc: &FileChunks, text: &str| fc.chunks.iter().any(|c| c.kind == ChunkKind::Code && c.content.contains(text));
    assert!(markup(&fc, "Return to top") && markup(&fc, ".VPLocalNavOutlineDropdown"), "template and style chunks");
    let fc = assert_defines("svelte/VirtualList.svelte", Language::Svelte, &[("refresh", "function"), ("handle_scroll", "function")]);
    let refresh = fc.symbols.iter().find(|s| s.qualified_name == "refresh").expect("refresh");
    assert_eq!(refresh.span.start_line, 35);
    assert_calls(&fc, "refresh", "tick");
    assert!(markup(&fc, "svelte-virtual-list-viewport"), "the markup");
    // A component without a script is text.
    let fc = chunk_file("Icon.svelte", b"<svg viewBox=\"0 0 8 8\"><path d=\"M0 0\"/></svg>\n", &ChunkOptions::default());
    assert!(fc.symbols.is_empty() && fc.chunks.iter().all(|c| c.kind == ChunkKind::Text), "{:?}", fc.chunks);
}

#[test]
fn protobuf_messages_services_rpcs_and_the_types_they_use() {
    let fc = assert_defines(
        "protobuf/library.proto",
        Language::Protobuf,
        &[("LibraryService", "interface"), ("LibraryService.GetBook", "method"), ("Book", "class"), ("GetBookRequest", "class")],
    );
    let get_book = fc.symbols.iter().find(|s| s.qualified_name == "LibraryService.GetBook").expect("GetBook");
    assert_eq!(get_book.span.start_line, 103, "rpc GetBook(GetBookRequest) returns (Book)");
    // An rpc uses its request and response; a message, the types of its fields.
    assert_calls(&fc, "LibraryService.GetBook", "GetBookRequest");
    assert_calls(&fc, "LibraryService.DeleteShelf", "google.protobuf.Empty");
    assert_calls(&fc, "UpdateBookRequest", "Book");
    assert_doc(&fc, "Book", "A single book in the library.");
    assert!(fc.imports.iter().any(|i| i.module == "google/api/annotations.proto"), "{:?}", fc.imports);
    let fc = assert_defines(
        "protobuf/type.proto",
        Language::Protobuf,
        &[("Field", "class"), ("Field.Kind", "enum"), ("Field.Kind.TYPE_STRING", "const"), ("Enum", "class")],
    );
    assert_calls(&fc, "Type", "Field");
}

#[test]
fn erlang_clauses_types_records_and_macros() {
    // A module's functions are `module:function`.
    let fc = assert_defines(
        "erlang/orddict.erl",
        Language::Erlang,
        &[("orddict", "module"), ("orddict:fetch", "function"), ("orddict:store", "function"), ("orddict:orddict", "type")],
    );
    // The clauses of `fetch` (lines 80-81) are one chunk; the recursion is a call.
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("orddict:fetch")).expect("fetch's chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (80, 81), "{chunk:?}");
    assert_calls(&fc, "orddict:fetch", "fetch");
    // A module declaring `-callback`s is a behaviour (an interface); its functions stay functions.
    let fc = assert_defines(
        "erlang/eunit_listener.erl",
        Language::Erlang,
        &[
            ("eunit_listener", "interface"),
            ("eunit_listener:init", "method"),
            ("eunit_listener:state", "class"),
            ("eunit_listener:NODEBUG", "const"),
            ("eunit_listener:group", "function"),
            ("eunit_listener:group_loop", "function"),
        ],
    );
    assert_calls(&fc, "eunit_listener:group", "group_loop");
    assert_doc(&fc, "eunit_listener:group", "collect group items in order until group is done");
    let src = "-module(square).\n-behaviour(shape).\n\narea(_) -> 4.\n";
    let square = chunk_file("src/square.erl", src.as_bytes(), &ChunkOptions::default());
    let module = square.symbols.iter().find(|s| s.qualified_name == "square");
    assert_eq!(module.map(|s| s.bases.clone()), Some(vec!["shape".to_string()]), "-behaviour names the module's base: {:?}", square.symbols);
    assert!(fc.imports.iter().any(|i| i.module == "eunit.hrl"), "{:?}", fc.imports);
    assert!(
        (git_rag::analysis::role::Role::of("test/queue_SUITE.erl") == git_rag::analysis::role::Role::Test)
            && Language::from_shebang(b"#!/usr/bin/env escript\n") == Some(Language::Erlang)
    );
}

#[test]
fn ocaml_modules_functions_types_and_interfaces() {
    let fc = assert_defines(
        "ocaml/random.ml",
        Language::OCaml,
        &[
            ("random_seed", "function"),
            ("State", "module"),
            ("State.t", "class"),
            ("State.bits", "function"),
            ("State.full_init", "function"),
            ("default", "const"),
            ("self_init", "function"),
        ],
    );
    // The `(* … *)` comment above `bits` is its doc and opens its chunk.
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("State.bits")).expect("bits' chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (75, 83), "{chunk:?}");
    assert_doc(&fc, "State.bits", "Returns 30 random bits as an integer");
    assert_calls(&fc, "State.make", "full_init");
    assert_calls(&fc, "bits", "State.bits");
    let fc = assert_defines(
        "ocaml/gc.ml",
        Language::OCaml,
        &[("stat", "class"), ("print_stat", "function"), ("Memprof.allocation_source", "enum"), ("Memprof.start", "function")],
    );
    assert_calls(&fc, "print_stat", "fprintf");
    assert!(fc.imports.iter().any(|i| i.module == "Printf"), "{:?}", fc.imports);
    // An interface: `val`s, each documented by the `(** … *)` below it.
    let fc = assert_defines("ocaml/stack.mli", Language::OCamlInterface, &[("t", "type"), ("Empty", "type"), ("create", "function"), ("pop", "function")]);
    assert_doc(&fc, "create", "Return a new stack, initially empty.");
    assert_eq!(Language::from_shebang(b"#!/usr/bin/env ocaml\n"), Some(Language::OCaml));
}

#[test]
fn objc_classes_categories_methods_and_messages() {
    let fc = assert_defines(
        "objc/RNCConnectionStateWatcher.m",
        Language::ObjC,
        &[
            ("RNCConnectionStateWatcher", "class"),
            ("RNCConnectionStateWatcher.initWithDelegate", "method"),
            ("RNCConnectionStateWatcher.createReachabilityRef", "method"),
            // A C function inside the `@implementation` is the file's.
            ("RNCReachabilityCallback", "function"),
            // The class extension `@interface C ()` adds its properties to C.
            ("RNCConnectionStateWatcher.state", "variable"),
        ],
    );
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("RNCConnectionStateWatcher.createReachabilityRef")).expect("a chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (100, 133), "{chunk:?}");
    assert_calls(&fc, "RNCConnectionStateWatcher.setState", "self.updateDelegate");
    assert_calls(&fc, "RNCConnectionStateWatcher.update", "initWithReachabilityFlags");
    assert!(fc.imports.iter().any(|i| i.module == "RNCConnectionStateWatcher.h"), "{:?}", fc.imports);
    let fc = assert_defines(
        "objc/RNCConnectionState.m",
        Language::ObjC,
        &[("RNCConnectionState", "class"), ("RNCConnectionState.init", "method"), ("RNCConnectionState.connected", "method")],
    );
    assert_doc(&fc, "RNCConnectionState.isEqualToConnectionState", "Checks if two states are equal");
    assert_calls(&fc, "RNCConnectionState.init", "super.init");
    // A header that reads as Objective-C is parsed as it (`.h` is C otherwise).
    let fc = assert_defines(
        "objc/RNCConnectionState.h",
        Language::ObjC,
        &[("RNCConnectionState", "class"), ("RNCConnectionState.initWithReachabilityFlags", "method")],
    );
    let class = fc.symbols.iter().find(|s| s.qualified_name == "RNCConnectionState").expect("the class");
    assert_eq!(class.bases, ["NSObject"]);
}

#[test]
fn julia_types_methods_docstrings_and_includes() {
    let fc = assert_defines(
        "julia/queue.jl",
        Language::Julia,
        &[("Queue", "class"), ("Queue", "function"), ("Base.isempty", "function"), ("Base.push!", "function"), ("Base.:(==)", "function")],
    );
    // The docstring above a method is its doc and opens its chunk.
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("Base.push!")).expect("push!'s chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (65, 73), "{chunk:?}");
    assert_doc(&fc, "Base.isempty", "isempty(q::Queue)\nCheck if queue `q` is empty.");
    assert_doc(&fc, "Queue", "Queue{T}() where {T}");
    assert_calls(&fc, "Base.push!", "push!");
    // A method's own head (`Base.length(q::Queue) = …`) is not a call.
    let length = fc.symbols.iter().find(|s| s.qualified_name == "Base.length").expect("length");
    assert_eq!(length.calls, ["length"]);
    let fc = assert_defines("julia/DataStructures.jl", Language::Julia, &[("DataStructures", "module")]);
    let imports: Vec<&str> = fc.imports.iter().map(|i| i.module.as_str()).collect();
    assert!(imports.contains(&"queue.jl") && imports.contains(&"OrderedCollections"), "{imports:?}");
    assert_eq!(Language::from_shebang(b"#!/usr/bin/env julia\n"), Some(Language::Julia));
}

#[test]
fn r_functions_roxygen_and_testthat() {
    let fc = assert_defines(
        "r/seed.R",
        Language::R,
        &[("with_seed", "function"), ("local_seed", "function"), ("with_preserve_seed", "function"), ("get_seed", "function"), ("rm_seed", "function")],
    );
    // The roxygen block (`#'`) above `with_seed` is its doc and opens its chunk.
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("with_seed")).expect("with_seed's chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (1, 36), "{chunk:?}");
    assert_doc(&fc, "with_seed", "Random seed\n`with_seed()` runs code with a specific random seed");
    assert_calls(&fc, "with_seed", "with_preserve_seed");
    assert_calls(&fc, "rm_seed", "has_seed");
    let fc = assert_defines("r/db.R", Language::R, &[("with_db_connection", "function"), ("local_db_connection", "function")]);
    assert_calls(&fc, "local_db_connection", "DBI::dbDisconnect");
    assert!(fc.imports.iter().any(|i| i.module == "DBI"), "{:?}", fc.imports);
    // A testthat block is a test named by what it checks.
    let fc = assert_defines("r/test-env.R", Language::R, &[("with_envvar sets and unsets variables", "function")]);
    assert_calls(&fc, "with_envvar sets and unsets variables", "with_envvar");
    assert!(fc.patterns.iter().any(|p| p.key == "test:test_that"), "{:?}", fc.patterns.iter().map(|p| &p.key).collect::<Vec<_>>());
    assert!(
        (git_rag::analysis::role::Role::of("tests/testthat/test-env.R") == git_rag::analysis::role::Role::Test)
            && Language::from_shebang(b"#!/usr/bin/env Rscript\n") == Some(Language::R)
    );
}

#[test]
fn hcl_terraform_blocks_by_their_addresses() {
    let fc = assert_defines(
        "hcl/main.tf",
        Language::Hcl,
        &[
            ("random_pet.this", "class"),
            ("aws_iam_policy_document.sqs_external", "class"),
            ("s3_bucket", "module"),
            ("all_notifications", "module"),
            ("bucket_name", "variable"),
            ("aws", "class"),
        ],
    );
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("aws_sqs_queue.this")).expect("the queue's chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (83, 86), "{chunk:?}");
    // References by address are uses: a resource, a data source, a module, a local.
    assert_calls(&fc, "aws_sqs_queue_policy.allow_external", "aws_iam_policy_document.sqs_external");
    assert_calls(&fc, "all_notifications", "module.s3_bucket");
    assert_calls(&fc, "s3_bucket", "local.bucket_name");
    assert_doc(&fc, "aws_iam_policy_document.sqs_external", "SQS policy created outside of the module");
    let imports: Vec<&str> = fc.imports.iter().map(|i| i.module.as_str()).collect();
    assert!(imports.contains(&"../../") && imports.contains(&"../../modules/notification"), "{imports:?}");
    // A variable's `description` is its doc.
    let fc = assert_defines("hcl/variables.tf", Language::Hcl, &[("create", "variable"), ("bucket", "variable"), ("file_source", "variable")]);
    assert_doc(&fc, "create", "Whether to create this resource or not?");
}

#[test]
fn dart_classes_constructors_members_and_imports() {
    let fc = assert_defines(
        "dart/parsed_path.dart",
        Language::Dart,
        &[
            ("ParsedPath", "class"),
            ("ParsedPath.parse", "method"),
            ("ParsedPath._", "method"),
            ("ParsedPath.normalize", "method"),
            ("ParsedPath.isAbsolute", "method"),
            ("ParsedPath.root", "variable"),
        ],
    );
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("ParsedPath.parse")).expect("parse's chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (41, 75), "{chunk:?}");
    assert_calls(&fc, "ParsedPath.parse", "ParsedPath._");
    assert_calls(&fc, "ParsedPath._splitExtension", "_kthLastIndexOf");
    assert_doc(&fc, "ParsedPath.extension", "The file extension of the last non-empty part");
    assert!(fc.imports.iter().any(|i| i.module == "style.dart"), "{:?}", fc.imports);
    let fc = assert_defines("dart/path_map_test.dart", Language::Dart, &[("main", "function")]);
    assert_calls(&fc, "main", "PathMap.of");
    assert!(fc.imports.iter().any(|i| i.module == "package:test/test.dart"), "{:?}", fc.imports);
    assert!(fc.patterns.iter().any(|p| p.key == "test:test"));
    assert!((git_rag::analysis::role::Role::of("test/path_map_test.dart") == git_rag::analysis::role::Role::Test));
}

#[test]
fn sql_tables_views_functions_and_their_uses() {
    let fc = assert_defines(
        "sql/full-schema.sql",
        Language::Sql,
        &[
            ("public.users", "class"),
            ("public.role_permissions", "class"),
            ("public.app_role", "enum"),
            ("public.authorize", "function"),
            ("public.handle_new_user", "function"),
            ("on_auth_user_created", "function"),
            ("public.create_user", "function"),
        ],
    );
    // The `--` comments above a definition are its doc and open its chunk.
    let chunk = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some("public.authorize")).expect("authorize's chunk");
    assert_eq!((chunk.start_line, chunk.end_line), (56, 73), "{chunk:?}");
    assert_doc(&fc, "public.authorize", "authorize with role-based access control (RBAC)");
    assert_doc(&fc, "public.users", "USERS");
    assert_doc(&fc, "public.custom_access_token_hook", "Create the auth hook function\nhttps://supabase.com/docs/guides/auth/auth-hooks");
    // Uses: a table a function reads, a foreign key, the function a trigger runs.
    assert_calls(&fc, "public.authorize", "public.role_permissions");
    assert_calls(&fc, "public.messages", "public.channels");
    assert_calls(&fc, "on_auth_user_created", "public.handle_new_user");
    assert!(fc.has_errors, "the grammar does not know `create policy`: what it reads is kept");
    let fc = assert_defines(
        "sql/schema.sql",
        Language::Sql,
        &[("authors", "class"), ("books", "class"), ("book_type", "enum"), ("say_hello", "function"), ("books_title_idx", "variable")],
    );
    assert_calls(&fc, "books", "authors");
    assert_calls(&fc, "books_title_idx", "books");
    assert_calls(&fc, "say_hello", "CONCAT");
}

#[test]
fn clojure_namespaces_definitions_docstrings_and_requires() {
    let fc = assert_defines(
        "clojure/core.cljc",
        Language::Clojure,
        &[("medley.core", "module"), ("find-first", "function"), ("dissoc-in", "function"), ("editable?", "function"), ("assoc-some", "function")],
    );
    // The docstring after the name is the doc; `(defn …)` is the chunk.
    assert_doc(&fc, "find-first", "Finds the first item in a collection that matches a predicate.");
    assert_doc(&fc, "medley.core", "A small collection of useful, mostly pure functions");
    assert_eq!(chunk_lines(&fc, "find-first"), (7, 20));
    assert_calls(&fc, "assoc-some", "editable?");
    assert_calls(&fc, "assoc-some", "assoc-some-transient!");
    let calls: Vec<&String> = fc.symbols.iter().flat_map(|s| &s.calls).collect();
    assert!(!calls.iter().any(|c| ["defn", "let", "if", "fn"].contains(&c.as_str())), "special forms are not calls: {calls:?}");
    let fc = assert_defines("clojure/test_runner.cljs", Language::Clojure, &[("medley.test-runner", "module")]);
    let imports: Vec<&str> = fc.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(imports, ["doo.runner", "medley.core-test"]);
    assert_eq!(Language::from_shebang(b"#!/usr/bin/env bb\n"), Some(Language::Clojure));
}

#[test]
fn perl_packages_subs_methods_comments_and_uses() {
    let fc = assert_defines(
        "perl/_query.pm",
        Language::Perl,
        &[
            ("URI::_query", "module"),
            ("URI::_query::query", "method"),
            ("URI::_query::query_form", "method"),
            ("URI::_query::equery", "function"),
            ("URI::_query::_is_array", "function"),
        ],
    );
    // The subs after `package URI::_query;` are its own.
    let sub = fc.symbols.iter().find(|s| s.qualified_name == "URI::_query::query_form").unwrap();
    assert_eq!((sub.name.as_str(), sub.parent.as_deref()), ("query_form", Some("URI::_query")));
    // The `#` comment above a sub is its doc, and opens its chunk.
    assert_doc(&fc, "URI::_query::query_form", "Handle ...?foo=bar&bar=foo type of query");
    assert_eq!(chunk_lines(&fc, "URI::_query::query_form"), (30, 80));
    assert_calls(&fc, "URI::_query::query_form", "_is_array");
    assert_calls(&fc, "URI::_query::query_form", "query");
    let calls: Vec<&String> = fc.symbols.iter().flat_map(|s| &s.calls).collect();
    assert!(!calls.iter().any(|c| ["shift", "die", "defined", "map"].contains(&c.as_str())), "builtins are not calls: {calls:?}");
    let imports: Vec<&str> = fc.imports.iter().map(|i| i.module.as_str()).collect();
    assert_eq!(imports, ["URI", "URI::Escape", "Scalar::Util"], "pragmas (strict, warnings) are not imports");
    let fc = assert_defines(
        "perl/Escape.pm",
        Language::Perl,
        &[("URI::Escape", "module"), ("URI::Escape::uri_escape", "function"), ("URI::Escape::uri_unescape", "function")],
    );
    assert_calls(&fc, "URI::Escape::uri_escape_utf8", "uri_escape");
    // `use parent` names a base of the package around it; each package owns the subs up to the next.
    let src = "package Shape;\nsub area { die }\n\npackage Square;\nuse parent -norequire, 'Shape';\nuse base qw(Sided);\nsub area { 4 }\n";
    let fc = chunk_file("lib/Shapes.pm", src.as_bytes(), &ChunkOptions::default());
    let square = fc.symbols.iter().find(|s| s.qualified_name == "Square").unwrap();
    assert_eq!(square.bases, ["Shape", "Sided"]);
    let areas: Vec<(&str, Option<&str>)> = fc.symbols.iter().filter(|s| s.name == "area").map(|s| (s.qualified_name.as_str(), s.parent.as_deref())).collect();
    assert_eq!(areas, [("Shape::area", Some("Shape")), ("Square::area", Some("Square"))]);
    assert_eq!(Language::from_shebang(b"#!/usr/bin/env perl\n"), Some(Language::Perl));
    assert_eq!(Language::from_shebang(b"#!/usr/bin/perl -w\n"), Some(Language::Perl));
}

/// The chunk whose symbol is `symbol` (not a block of it): its lines.
fn chunk_lines(fc: &FileChunks, symbol: &str) -> (usize, usize) {
    let c = fc.chunks.iter().find(|c| c.symbol.as_deref() == Some(symbol) && c.kind != ChunkKind::Block).unwrap_or_else(|| panic!("{symbol}'s chunk"));
    (c.start_line, c.end_line)
}

#[test]
fn yaml_toml_and_json_keys_two_levels_deep() {
    // A workflow: its top-level keys and the keys below, by their dotted path.
    let fc = assert_defines(
        "yaml/ci.yml",
        Language::Yaml,
        &[
            ("name", "key"),
            ("on", "key"),
            ("on.push", "key"),
            ("concurrency", "key"),
            ("jobs", "key"),
            ("jobs.lint", "key"),
            ("jobs.test", "key"),
            ("jobs.coverage", "key"),
        ],
    );
    let test = fc.symbols.iter().find(|s| s.qualified_name == "jobs.test").expect("jobs.test");
    assert_eq!((test.span.start_line, test.parent.as_deref()), (44, Some("jobs")));
    assert!(!fc.symbols.iter().any(|s| s.qualified_name.starts_with("jobs.test.")), "two levels at most");
    assert_doc(&fc, "concurrency", "Cancel in progress workflows");
    assert_eq!(chunk_lines(&fc, "concurrency"), (19, 23), "the comment opens the key's chunk");
    assert_eq!(chunk_lines(&fc, "jobs"), (25, 117));
    // Over the budget, `jobs` is cut at its jobs, each whole in one chunk.
    let data = std::fs::read(format!("{DIR}/yaml/ci.yml")).expect("ci.yml");
    let fc = chunk_file("ci.yml", &data, &ChunkOptions { budget: 1000, ..ChunkOptions::default() });
    let lines = |q: &str| fc.symbols.iter().find(|s| s.qualified_name == q).map(|s| (s.span.start_line, s.span.end_line)).expect(q);
    for job in ["jobs.lint", "jobs.test", "jobs.coverage"] {
        let (start, end) = lines(job);
        assert!(
            fc.chunks.iter().any(|c| c.kind == ChunkKind::Block && c.symbols.iter().any(|s| s == job) && c.start_line <= start && end <= c.end_line),
            "{job} whole in a block of `jobs`"
        );
    }
    assert!(fc.symbols.iter().all(|s| s.calls.is_empty()), "no calls in configuration");

    // Cargo's manifest: tables, their keys, a `#` comment as a key's doc.
    let fc = assert_defines(
        "toml/serde_Cargo.toml",
        Language::Toml,
        &[
            ("package", "key"),
            ("package.version", "key"),
            ("dependencies", "key"),
            ("dependencies.serde_core", "key"),
            ("package.metadata.docs.rs", "key"),
            ("features.derive", "key"),
        ],
    );
    assert_eq!(chunk_lines(&fc, "dependencies"), (17, 19));
    assert_doc(&fc, "features.derive", "Provide derive(Serialize, Deserialize) macros.");

    // package.json: one-line values share a chunk; an object has its own.
    let fc = assert_defines(
        "json/package.json",
        Language::Json,
        &[("name", "key"), ("scripts", "key"), ("scripts.test", "key"), ("dependencies", "key"), ("dependencies.body-parser", "key"), ("engines.node", "key")],
    );
    assert_eq!(chunk_lines(&fc, "scripts"), (91, 98));
    let head = fc.chunks.iter().find(|c| c.symbols.iter().any(|s| s == "version")).expect("the one-line keys' chunk");
    assert!(head.kind == ChunkKind::Code && head.symbols.iter().any(|s| s == "author"), "{head:?}");
}

/// A JSON file with many keys is data: its second level, then every key, is
/// left out of the symbol table; its chunks stay.
#[test]
fn a_data_file_does_not_swamp_the_symbol_table() {
    let object = |n: usize, inner: usize| {
        let entries: Vec<String> =
            (0..n).map(|i| format!("  \"k{i}\": {{{}}}", (0..inner).map(|j| format!("\"f{j}\": {j}")).collect::<Vec<_>>().join(", "))).collect();
        format!("{{\n{}\n}}\n", entries.join(",\n"))
    };
    let opts = ChunkOptions::default();
    let small = chunk_file("config.json", object(20, 2).as_bytes(), &opts);
    assert_eq!(small.symbols.len(), 60);
    let wide = chunk_file("translations.json", object(300, 2).as_bytes(), &opts);
    assert_eq!(wide.symbols.len(), 300, "the top level only");
    let data = object(2000, 1);
    let huge = chunk_file("fixture.json", data.as_bytes(), &opts);
    assert!(huge.symbols.is_empty());
    assert!(huge.chunks.iter().any(|c| c.content.contains("\"k1999\"")), "every line is still in a chunk");
}

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
        ("swift/broken.swift", Language::Swift),
        ("php/broken.php", Language::Php),
        ("kotlin/broken.kt", Language::Kotlin),
        ("scala/broken.scala", Language::Scala),
        ("haskell/broken.hs", Language::Haskell),
        ("zig/broken.zig", Language::Zig),
        ("bash/broken.sh", Language::Bash),
        ("elixir/broken.ex", Language::Elixir),
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

/// The README's language table names every parsed language with the
/// extensions the language table gives it, and nothing else.
#[test]
fn the_readme_lists_the_languages_the_code_parses() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md")).expect("README.md");
    let section = readme.split("## Languages").nth(1).expect("a Languages section").split("\n## ").next().unwrap_or_default();
    let mut listed = Vec::new();
    for row in section.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| language") && !l.starts_with("|--")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (names, files) = (cells[1], cells[2]);
        let extensions: Vec<&str> = files.split(['`', ' ', ',']).filter(|w| w.starts_with('.')).collect();
        assert!(!extensions.is_empty(), "{row}: no extensions");
        for ext in extensions {
            let language = Language::from_path(&format!("x{ext}"));
            assert!(language.grammar().is_some(), "{row}: {ext} is not parsed");
            let shown = names.to_lowercase().replace("c#", "csharp").replace("c++", "cpp");
            assert!(shown.split(", ").any(|n| n == language.name()), "{row}: {ext} is {}", language.name());
            listed.push(language);
        }
    }
    for language in Language::PARSED {
        assert!(listed.contains(language), "the README's table does not list {}", language.name());
    }
}
