//! Which file an import names, for the languages described by query files:
//! Rust `use`/`mod` paths within the crate, Go import paths (a package is
//! its directory), Java packages, C/C++ `#include`, Ruby `require` /
//! `require_relative`, Lua `require`, and the like for the languages below
//! (OCaml `open`, Julia and R files loaded, Terraform module sources, Dart
//! `package:` URIs). C# `using` names a namespace, not a file, so it stays
//! external. Python and the JavaScript family are in `resolve.rs`.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::analysis::lang::Language;

/// The repository's files as import resolution looks them up: by path, by
/// file name and by directory. Every lookup of a suffix goes through the
/// file name, so resolving an import costs the few files of that name, not
/// a scan of the repository (which made a full build quadratic).
pub(super) struct Tree<'a> {
    paths: FxHashSet<&'a str>,
    by_file_name: FxHashMap<&'a str, Vec<&'a str>>,
    /// The last two segments (`utils/__init__.py`) → the paths ending so: a
    /// package's `__init__.py` among thousands is found by its directory.
    by_last_two: FxHashMap<&'a str, Vec<&'a str>>,
    by_dir: FxHashMap<&'a str, Vec<&'a str>>,
    /// A directory's last segment → the directories with it.
    by_dir_name: FxHashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Tree<'a> {
    /// The tree of `paths` (sorted).
    pub(super) fn new(paths: impl Iterator<Item = &'a str>) -> Tree<'a> {
        let mut by_file_name: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
        let mut by_last_two: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
        let mut by_dir: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
        let mut all = FxHashSet::default();
        for p in paths {
            all.insert(p);
            let (dir, name) = p.rsplit_once('/').unwrap_or(("", p));
            by_file_name.entry(name).or_default().push(p);
            if let Some(two) = last_two(p) {
                by_last_two.entry(two).or_default().push(p);
            }
            by_dir.entry(dir).or_default().push(p);
        }
        let mut by_dir_name: FxHashMap<&str, Vec<&str>> = FxHashMap::default();
        for dir in by_dir.keys() {
            by_dir_name.entry(dir.rsplit('/').next().unwrap_or(dir)).or_default().push(dir);
        }
        Tree { paths: all, by_file_name, by_last_two, by_dir, by_dir_name }
    }

    pub(super) fn contains(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    /// Paths that are `tail` or end with `/tail`.
    pub(super) fn ending_with<'t>(&self, tail: &'t str) -> impl Iterator<Item = &'a str> + use<'a, 't, '_> {
        let tail = tail.trim_start_matches("./");
        let candidates = match last_two(tail) {
            Some(two) => self.by_last_two.get(two),
            None => self.by_file_name.get(tail),
        };
        candidates.into_iter().flatten().copied().filter(move |p| ends_with_path(p, tail))
    }

    /// The files directly in `dir`, sorted.
    pub(super) fn files_in(&self, dir: &str) -> &[&'a str] {
        self.by_dir.get(dir).map_or(&[], Vec::as_slice)
    }

    /// Directories whose last segment is `name`.
    fn dirs_named(&self, name: &str) -> &[&'a str] {
        self.by_dir_name.get(name).map_or(&[], Vec::as_slice)
    }
}

/// The file `module` (as written in `from`) refers to, if the repository
/// has it. `None` for languages handled elsewhere and for anything outside.
pub(super) fn find(tree: &Tree, from: &str, module: &str) -> Option<Option<String>> {
    let dir = parent_dir(from);
    let found = match Language::from_path(from) {
        Language::Rust => rust(tree, from, module),
        Language::Go => {
            // A package is a directory: any of its files stands for it (the first, sorted).
            let last = module.rsplit('/').next().unwrap_or(module);
            let dirs = tree.dirs_named(last).iter().filter(|d| dir_matches_import(d, module));
            let files = dirs.flat_map(|d| tree.files_in(d).iter().copied()).filter(|p| is_go_source(p));
            closest(files, from)
        }
        Language::Java => {
            let file = format!("{}.java", module.trim_end_matches(".*").replace('.', "/"));
            closest(tree.ending_with(&file), from)
        }
        // `#import "x.h"` (Objective-C) as `#include`.
        Language::C | Language::Cpp | Language::ObjC => {
            let rel = join(dir, module);
            if tree.contains(&rel) {
                Some(rel)
            } else {
                closest(tree.ending_with(module), from)
            }
        }
        Language::Ruby => {
            let file = if module.ends_with(".rb") { module.to_string() } else { format!("{module}.rb") };
            let rel = join(dir, &file);
            if tree.contains(&rel) {
                Some(rel)
            } else {
                closest(tree.ending_with(&file), from)
            }
        }
        Language::Lua => {
            let base = module.replace('.', "/");
            let (file, init) = (format!("{base}.lua"), format!("{base}/init.lua"));
            closest(tree.ending_with(&file).chain(tree.ending_with(&init)), from)
        }
        Language::Haskell => {
            // `import Data.Map.Strict` → `Data/Map/Strict.hs` under any source root.
            let file = format!("{}.hs", module.replace('.', "/"));
            closest(tree.ending_with(&file), from)
        }
        Language::Php => match module.strip_suffix(".php") {
            // `require __DIR__.'/x.php'` is relative to the file.
            Some(_) => relative_or_anywhere(tree, dir, module, from),
            // PSR-4: `use Illuminate\Support\Str` → `…/Illuminate/Support/Str.php`.
            None => closest(tree.ending_with(&format!("{}.php", module.trim_start_matches('\\').replace('\\', "/"))), from),
        },
        Language::Elixir => {
            // Mix's layout: `Phoenix.Router.Helpers` in `…/phoenix/router/helpers.ex`.
            let file = format!("{}.ex", module.split('.').map(snake_case).collect::<Vec<_>>().join("/"));
            closest(tree.ending_with(&file), from)
        }
        // `@import("x.zig")` and `source ./lib.sh` name a file relative to
        // this one; `source "$ROOT/lib/x.bash"`, one under a root set at run time.
        Language::Zig | Language::Bash if module.contains('.') => {
            let rel: Vec<&str> = module.split('/').skip_while(|s| s.contains('$')).collect();
            relative_or_anywhere(tree, dir, &rel.join("/"), from)
        }
        // `-include("x.hrl")` is relative to the file (or under an include
        // folder); `-import(lists, …)` names the module `lists.erl`.
        Language::Erlang if module.ends_with(".hrl") => relative_or_anywhere(tree, dir, module, from),
        Language::Erlang => closest(tree.ending_with(&format!("{module}.erl")), from),
        // `open Foo`, `include Foo`: the module of `foo.ml` (its interface
        // `foo.mli` when there is no implementation); `open Random.State`,
        // a module inside `random.ml` when no `state.ml` is found.
        Language::OCaml | Language::OCamlInterface => module.rsplit('.').find_map(|m| ocaml_module(tree, m.trim(), from)),
        // `include("x.jl")` is relative to the file; `using Foo.Bar`, a
        // package's `Bar.jl` (else `Foo.jl`), as `src/Foo.jl` is Foo's.
        Language::Julia if module.ends_with(".jl") => relative_or_anywhere(tree, dir, module, from),
        Language::Julia => module.trim_start_matches('.').rsplit('.').find_map(|m| closest(tree.ending_with(&format!("{m}.jl")), from)),
        // `source("R/utils.R")`: relative to the file or to the project's root
        // (where R scripts run); `library(pkg)` is a package outside.
        Language::R if module.ends_with(".R") || module.ends_with(".r") => relative_or_anywhere(tree, dir, module, from),
        Language::R => None,
        // A Terraform module's local `source = "../modules/x"` names a
        // directory: its `main.tf`, else its first `.tf` file.
        Language::Hcl if module.starts_with("./") || module.starts_with("../") => terraform_module(tree, dir, module),
        Language::Hcl => None,
        // `import 'src/a.dart'` is relative to the file; `package:p/a.dart`
        // is `lib/a.dart` of the package p (this repository's, or one beside it).
        Language::Dart => dart(tree, dir, module, from),
        // `(:require [medley.core :as m])`: `medley/core.clj`, `.cljc` or
        // `.cljs` under a source root (dashes in a namespace are underscores).
        Language::Clojure => {
            let base = module.replace('.', "/").replace('-', "_");
            let (clj, cljc, cljs) = (format!("{base}.clj"), format!("{base}.cljc"), format!("{base}.cljs"));
            closest(tree.ending_with(&clj).chain(tree.ending_with(&cljc)).chain(tree.ending_with(&cljs)), from)
        }
        // `use URI::Escape;`: `URI/Escape.pm` under a library root (`lib/`).
        Language::Perl => closest(tree.ending_with(&format!("{}.pm", module.replace("::", "/"))), from),
        // `import "a/b.proto"` names a file under an include root.
        Language::Protobuf => closest(tree.ending_with(module), from),
        Language::CSharp | Language::Zig | Language::Bash | Language::Kotlin | Language::Scala | Language::Swift | Language::Sql => None,
        _ => return None,
    };
    Some(found)
}

/// A Terraform module's directory: its `main.tf`, else its first `.tf` file.
fn terraform_module(tree: &Tree, dir: &str, module: &str) -> Option<String> {
    let files = tree.files_in(&join(dir, module));
    let main = files.iter().find(|p| p.ends_with("/main.tf") || **p == "main.tf");
    main.or_else(|| files.iter().find(|p| p.ends_with(".tf"))).map(|p| p.to_string())
}

/// A Dart import: `package:p/a.dart` is `lib/a.dart` of the package p (this
/// repository's, or one beside it); `dart:` libraries are outside; anything
/// else is relative to the file.
fn dart(tree: &Tree, dir: &str, module: &str, from: &str) -> Option<String> {
    match module.strip_prefix("package:") {
        Some(rest) => rest.split_once('/').and_then(|(package, path)| {
            let beside = format!("{package}/lib/{path}");
            closest(tree.ending_with(&beside), from).or_else(|| closest(tree.ending_with(&format!("lib/{path}")), from))
        }),
        None if module.starts_with("dart:") => None,
        None => relative_or_anywhere(tree, dir, module, from),
    }
}

/// `rel` from the directory `dir` when the repository has it, else the
/// nearest file whose path ends with it.
fn relative_or_anywhere(tree: &Tree, dir: &str, rel: &str, from: &str) -> Option<String> {
    let joined = join(dir, rel);
    if tree.contains(&joined) {
        Some(joined)
    } else {
        closest(tree.ending_with(rel.trim_start_matches("../")), from)
    }
}

/// The file of the OCaml module `Foo`: `foo.ml` (or `Foo.ml`), else `foo.mli`.
fn ocaml_module(tree: &Tree, module: &str, from: &str) -> Option<String> {
    let mut chars = module.chars();
    let first = chars.next()?;
    let lower = format!("{}{}", first.to_lowercase(), chars.as_str());
    ["ml", "mli"].into_iter().find_map(|ext| closest(tree.ending_with(&format!("{lower}.{ext}")).chain(tree.ending_with(&format!("{module}.{ext}"))), from))
}

/// `VerifiedRoutes` → `verified_routes`, `HTTPClient` → `http_client`.
fn snake_case(segment: &str) -> String {
    let chars: Vec<char> = segment.chars().collect();
    let mut out = String::with_capacity(segment.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let after_lower = chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit();
            let before_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if after_lower || (before_lower && chars[i - 1].is_uppercase()) {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

fn is_go_source(p: &str) -> bool {
    p.ends_with(".go") && !p.ends_with("_test.go")
}

/// Files of the same Go package (directory) as `path`; just `path` elsewhere.
pub(super) fn package_files<'a>(tree: &Tree<'a>, path: &'a str) -> Vec<&'a str> {
    if Language::from_path(path) != Language::Go {
        return vec![path];
    }
    let mut files: Vec<&str> = tree.files_in(parent_dir(path)).iter().copied().filter(|p| is_go_source(p)).collect();
    // The import's own file first.
    files.sort_by_key(|p| (*p != path, *p));
    files
}

pub(super) fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn join(dir: &str, rel: &str) -> String {
    let mut parts: Vec<&str> = if dir.is_empty() { Vec::new() } else { dir.split('/').collect() };
    for seg in rel.split('/') {
        match seg {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// `a/b/c.py` → `b/c.py`; `None` for a path of one segment.
fn last_two(path: &str) -> Option<&str> {
    let (head, _) = path.rsplit_once('/')?;
    Some(match head.rfind('/') {
        Some(i) => &path[i + 1..],
        None => path,
    })
}

fn ends_with_path(path: &str, tail: &str) -> bool {
    let tail = tail.trim_start_matches("./");
    path.strip_suffix(tail).is_some_and(|head| head.is_empty() || head.ends_with('/'))
}

/// `github.com/spf13/cobra/doc` names the directory `doc` of the module
/// `github.com/spf13/cobra`; the repository may hold it at `doc/` or under
/// any prefix. The directory must match the import's last segments (the
/// module root itself matches an import of the module).
fn dir_matches_import(dir: &str, import: &str) -> bool {
    if dir.is_empty() {
        // The repository root is the module root: an import of the module itself.
        return false;
    }
    let import_parts: Vec<&str> = import.split('/').collect();
    let dir_parts: Vec<&str> = dir.split('/').collect();
    dir_parts.len() <= import_parts.len() && import_parts.ends_with(&dir_parts)
}

/// The candidate that shares the longest directory prefix with `from`
/// (then the shortest path), so a repository with several copies picks the
/// nearest.
pub(super) fn closest<'a>(candidates: impl Iterator<Item = &'a str>, from: &str) -> Option<String> {
    candidates.min_by_key(|p| (std::cmp::Reverse(super::resolve::common_prefix(p, from)), p.len(), *p)).map(str::to_string)
}

/// Rust: `crate::a::b`, `super::x`, `self::y`, `mod z;` (module `z`) and
/// 2015-style `a::b` within the crate of `from` (the directory holding
/// `lib.rs` or `main.rs` above it).
fn rust(tree: &Tree, from: &str, module: &str) -> Option<String> {
    let segs: Vec<&str> = module.split("::").map(str::trim).filter(|s| !s.is_empty()).collect();
    let root = rust_crate_root(tree, from)?;
    // The directory holding the current module's children.
    let file = from.rsplit('/').next().unwrap_or(from);
    let stem = file.trim_end_matches(".rs");
    let here = parent_dir(from).to_string();
    let module_dir = if matches!(stem, "mod" | "lib" | "main") { here.clone() } else { join(&here, stem) };
    let (mut base, rest): (String, &[&str]) = match segs.first() {
        Some(&"crate") => (root.clone(), &segs[1..]),
        Some(&"self") => (module_dir, &segs[1..]),
        Some(&"super") => {
            let mut base = parent_dir(&module_dir).to_string();
            let mut rest = &segs[1..];
            while rest.first() == Some(&"super") {
                base = parent_dir(&base).to_string();
                rest = &rest[1..];
            }
            (base, rest)
        }
        // `mod z;` and a path that starts with a child module of this one.
        Some(first) if tree.contains(&join(&module_dir, &format!("{first}.rs"))) || tree.contains(&join(&module_dir, &format!("{first}/mod.rs"))) => {
            (module_dir, &segs[..])
        }
        _ => (root.clone(), &segs[..]),
    };
    // The longest prefix of the path that is a module file (the base itself
    // when the rest names items: `super::Thing`, `crate::helper`).
    let module_file = |dir: &str| -> Option<String> {
        let candidates = if dir == root { [join(dir, "lib.rs"), join(dir, "main.rs")] } else { [format!("{dir}.rs"), format!("{dir}/mod.rs")] };
        candidates.into_iter().find(|c| tree.contains(c))
    };
    let anchored = matches!(segs.first(), Some(&("crate" | "self" | "super")));
    let mut best = if anchored { module_file(&base) } else { None };
    for seg in rest {
        base = join(&base, seg);
        let (file, dir_mod) = (format!("{base}.rs"), format!("{base}/mod.rs"));
        if tree.contains(&file) {
            best = Some(file);
        } else if tree.contains(&dir_mod) {
            best = Some(dir_mod);
        } else {
            break;
        }
    }
    best
}

fn rust_crate_root(tree: &Tree, from: &str) -> Option<String> {
    let mut dir = parent_dir(from);
    loop {
        if tree.contains(&join(dir, "lib.rs")) || tree.contains(&join(dir, "main.rs")) {
            return Some(dir.to_string());
        }
        if dir.is_empty() {
            // No crate root: take the file's top directory.
            return Some(from.split('/').next().filter(|_| from.contains('/')).unwrap_or("").to_string());
        }
        dir = parent_dir(dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts<'a>(paths: &[&'a str]) -> Vec<&'a str> {
        let mut v = paths.to_vec();
        v.sort();
        v
    }

    #[test]
    fn rust_paths_within_the_crate() {
        let f = facts(&["src/lib.rs", "src/a.rs", "src/a/b.rs", "src/c/mod.rs", "src/c/d.rs"]);
        let f = Tree::new(f.into_iter());
        assert_eq!(rust(&f, "src/lib.rs", "crate::a::b::Thing").as_deref(), Some("src/a/b.rs"));
        assert_eq!(rust(&f, "src/lib.rs", "a").as_deref(), Some("src/a.rs"));
        assert_eq!(rust(&f, "src/a/b.rs", "super::Thing").as_deref(), Some("src/a.rs"));
        assert_eq!(rust(&f, "src/c/mod.rs", "self::d::f").as_deref(), Some("src/c/d.rs"));
        assert_eq!(rust(&f, "src/c/d.rs", "crate::c").as_deref(), Some("src/c/mod.rs"));
        assert_eq!(rust(&f, "src/lib.rs", "std::io"), None);
        assert_eq!(rust(&f, "src/a.rs", "crate::helper").as_deref(), Some("src/lib.rs"));
    }

    #[test]
    fn go_java_c_ruby_lua() {
        let f = facts(&[
            "cmd/root.go",
            "cmd/run.go",
            "doc/man.go",
            "main.go",
            "src/main/java/org/x/Util.java",
            "src/x.c",
            "include/x.h",
            "lib/a/b.rb",
            "lib/a.rb",
            "lua/m/init.lua",
        ]);
        let f = Tree::new(f.into_iter());
        assert_eq!(find(&f, "main.go", "github.com/o/r/cmd").flatten().as_deref(), Some("cmd/run.go"));
        assert_eq!(package_files(&f, "cmd/run.go"), vec!["cmd/run.go", "cmd/root.go"]);
        assert_eq!(find(&f, "main.go", "fmt").flatten(), None);
        assert_eq!(find(&f, "src/main/java/org/x/Util.java", "org.x.Util").flatten().as_deref(), Some("src/main/java/org/x/Util.java"));
        assert_eq!(find(&f, "src/x.c", "x.h").flatten().as_deref(), Some("include/x.h"));
        assert_eq!(find(&f, "lib/a.rb", "a/b").flatten().as_deref(), Some("lib/a/b.rb"));
        assert_eq!(find(&f, "lib/a/b.rb", "../a").flatten().as_deref(), Some("lib/a.rb"));
        assert_eq!(find(&f, "x.lua", "m").flatten().as_deref(), Some("lua/m/init.lua"));
        assert_eq!(find(&f, "a.py", "m"), None);
    }

    #[test]
    fn haskell_php_elixir_zig_bash() {
        let f = facts(&[
            "src/Text/Pandoc/Shared.hs",
            "src/Illuminate/Support/Str.php",
            "src/Illuminate/Support/helpers.php",
            "lib/phoenix/router/helpers.ex",
            "lib/phoenix/verified_routes.ex",
            "src/offsets.zig",
            "src/analysis/types.zig",
            "lib/utilities.bash",
            "install.sh",
        ]);
        let f = Tree::new(f.into_iter());
        let found = |from: &str, module: &str| find(&f, from, module).flatten();
        assert_eq!(found("src/Main.hs", "Text.Pandoc.Shared").as_deref(), Some("src/Text/Pandoc/Shared.hs"));
        assert_eq!(found("src/Main.hs", "Data.Map"), None);
        assert_eq!(found("src/Illuminate/Http/Request.php", "Illuminate\\Support\\Str").as_deref(), Some("src/Illuminate/Support/Str.php"));
        assert_eq!(found("src/Illuminate/Support/Js.php", "helpers.php").as_deref(), Some("src/Illuminate/Support/helpers.php"));
        assert_eq!(found("lib/phoenix.ex", "Phoenix.Router.Helpers").as_deref(), Some("lib/phoenix/router/helpers.ex"));
        assert_eq!(found("lib/phoenix.ex", "Phoenix.VerifiedRoutes").as_deref(), Some("lib/phoenix/verified_routes.ex"));
        assert_eq!(found("src/analysis/x.zig", "../offsets.zig").as_deref(), Some("src/offsets.zig"));
        assert_eq!(found("src/analysis/x.zig", "types.zig").as_deref(), Some("src/analysis/types.zig"));
        assert_eq!(found("src/main.zig", "std"), None);
        assert_eq!(found("bash_it.sh", "lib/utilities.bash").as_deref(), Some("lib/utilities.bash"));
        assert_eq!(found("bin/run.sh", "${BASH_IT}/lib/utilities.bash").as_deref(), Some("lib/utilities.bash"));
        assert_eq!(snake_case("HTTPClient"), "http_client");
    }
}
