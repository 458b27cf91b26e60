//! Which file an import names, for the languages described by query files:
//! Rust `use`/`mod` paths within the crate, Go import paths (a package is
//! its directory), Java packages, C/C++ `#include`, Ruby `require` /
//! `require_relative`, Lua `require`. C# `using` names a namespace, not a
//! file, so it stays external. Python and the JavaScript family are in
//! `resolve.rs`.

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
        Language::C | Language::Cpp => {
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
        Language::CSharp => None,
        _ => return None,
    };
    Some(found)
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
        let f = facts(&["cmd/root.go", "cmd/run.go", "doc/man.go", "main.go", "src/main/java/org/x/Util.java", "src/x.c", "include/x.h", "lib/a/b.rb", "lib/a.rb", "lua/m/init.lua"]);
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
}
