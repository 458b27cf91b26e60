//! From a file's bytes to what the index stores: the language of a path,
//! tree-sitter symbols, imports and calls, cAST chunks, mined conventions.
//! Pure functions of their input; no I/O.

/// Bump when what analysis makes of a file changes (languages, symbols,
/// chunk boundaries): indexes made by another version are rebuilt in full.
/// 2: Rust, Go, Java, C, C++, C#, Ruby and Lua parsed through tags queries.
/// 3: Python and the JavaScript family too.
/// 4: a named JS function handed to a call at module level is a definition.
/// 5: a `/** … */` doc comment a blank line above a definition is its doc.
/// 6: Vue and Svelte components' `<script>` blocks, Protobuf and Erlang parsed.
/// 7: a file's lines inside syntax errors are counted (index and status name them).
/// 8: OCaml, Objective-C, Julia, R, HCL (Terraform) and Dart parsed; a `.h`
///    that reads as C++ is C++.
/// 9: SQL and Clojure parsed; YAML, TOML and JSON keys as definitions, their chunks
///    following the top-level keys.
///    C and C++ attribute-like macros (`__always_inline`, `__alloc_size(1)`)
///    are blanked before parsing ([`macros`]).
/// 10: what a Markdown file's fenced code blocks call (the graph's edges
///     from the document).
/// 11: Perl parsed.
/// 12: a JSON key is named by its whole string, escapes and all (it was the
///     first piece before an escape, one query match per piece).
/// 13: an oversized node nested more than `chunk::MAX_SPLIT_DEPTH` deep is cut
///     into line windows (20,000 nested brackets overflowed the stack).
/// 14: Perl's `package X;` and Erlang's `-module(x).` own the definitions
///     after them (`X::f`, `x:f`); `use parent`, `use base` and `-behaviour`
///     name bases; an Erlang module with `-callback`s is an interface.
/// 15: a file's role from one table (`role`): examples, demos, samples and
///     snapshots are embedded as tests are; a call's or base's own name
///     splits at every language's separators (`name::own_part`: `p->f`,
///     `App\Mail\send` are `f`, `send`).
/// 16: a call through a receiver whose type the code states is written with
///     the type (`state.save` with `state: &IndexState` → `IndexState.save`;
///     `receivers`).
/// 17: Swift's and Scala's typed receivers too; a type imported under
///     another name (`from a import Repo as R`) is read as its own.
/// 18: so are Kotlin's, PHP's and Scala's import aliases and C#'s using
///     aliases (`import a.Repo as R`, `use App\Repo as R;`, `using R = App.Repo;`).
/// 19: Rust's calls inside a macro's arguments (`assert_eq!(parse(x), 1)`)
///     are calls (`tags::token_tree_call`).
pub const VERSION: u32 = 19;

pub mod chunk;
pub mod comments;
pub mod embedded;
pub mod kind;
pub mod lang;
pub mod macros;
pub mod name;
mod pace;
pub mod parse;
pub mod patterns;
pub mod receivers;
pub mod role;
mod siblings;
pub mod tags;
