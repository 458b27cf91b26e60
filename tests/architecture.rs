//! The code map's rules, checked on the source tree and the two crates'
//! manifests (ARCHITECTURE.md, "Dependency direction"): the library links no
//! frontend machinery and never prints; the binary uses the library's
//! facade, not the stores' crates; process policy is the binary's; the CLI
//! entry file stays small; no library function grows past 100 lines. What a
//! crate boundary can hold (an import of a crate not depended on, a private
//! module) the compiler holds; these check the rest.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src() -> PathBuf {
    crate::common::root().join("src")
}

/// The library crate's source files (`src/`).
fn library_files() -> Vec<PathBuf> {
    let mut all = Vec::new();
    rust_files(&src(), &mut all);
    assert!(all.len() > 20, "found only {} library files", all.len());
    all
}

/// The binary crate's source files (`frontend/src/`).
fn frontend_files() -> Vec<PathBuf> {
    let mut all = Vec::new();
    rust_files(&crate::common::root().join("frontend/src"), &mut all);
    assert!(all.len() > 3, "found only {} frontend files", all.len());
    all
}

/// The crates named in a manifest's dependency tables: `[dependencies]` and
/// every target-specific one (`[target.'cfg(unix)'.dependencies]`), each
/// with its table's header. Dev- and build-dependencies are not the crate's.
fn dependency_tables(manifest: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(crate::common::root().join(manifest)).expect("manifest");
    let mut found = Vec::new();
    let mut table: Option<String> = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            let header = line.trim_matches(['[', ']']).to_string();
            table = (header == "dependencies" || (header.starts_with("target.") && header.ends_with(".dependencies"))).then_some(header);
            continue;
        }
        let Some(header) = &table else { continue };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.split(['=', '.']).next().map(str::trim).filter(|n| !n.is_empty()) {
            found.push((header.clone(), name.to_string()));
        }
    }
    found
}

/// The crates named in a manifest's dependency tables, whatever the target.
fn dependencies(manifest: &str) -> Vec<String> {
    dependency_tables(manifest).into_iter().map(|(_, name)| name).collect()
}

#[test]
fn dependency_tables_are_all_read() {
    let tables = dependency_tables("Cargo.toml");
    assert!(tables.iter().any(|(t, n)| t == "dependencies" && n == "tantivy"), "{tables:?}");
    assert!(tables.iter().any(|(t, n)| t.starts_with("target.") && n == "libc"), "the target-specific table is read: {tables:?}");
}

/// The library may link `libc` for one thing: reading the thread's CPU
/// clock (the parse's pace, `analysis/pace.rs`), on unix. That file holds
/// the library's only `libc` and its only `unsafe`; process policy stays
/// the binary's ([`process_policy_is_the_binarys`]).
const CLOCK_FILE: &str = "analysis/pace.rs";

#[test]
fn libc_and_unsafe_live_only_in_the_clock_file() {
    let files: Vec<PathBuf> = library_files().into_iter().filter(|p| !p.ends_with(CLOCK_FILE)).collect();
    let found = offending(&files, &["libc::", "unsafe "]);
    assert!(found.is_empty(), "libc or unsafe outside src/{CLOCK_FILE} (the library's one use: the thread's CPU clock):\n{}", found.join("\n"));
    let clock = offending(&[src().join(CLOCK_FILE)], &["libc::clock_gettime"]);
    assert_eq!(clock.len(), 1, "src/{CLOCK_FILE} reads the clock once: {clock:?}");
    let unix_only: Vec<(String, String)> = dependency_tables("Cargo.toml").into_iter().filter(|(_, n)| n == "libc").collect();
    assert!(unix_only.iter().all(|(t, _)| t == "target.'cfg(unix)'.dependencies"), "the library links libc on unix only: {unix_only:?}");
}

#[test]
fn the_library_links_no_frontend_machinery() {
    let deps = dependencies("Cargo.toml");
    assert!(deps.iter().any(|d| d == "tantivy"), "read the library's dependencies: {deps:?}");
    let frontend = ["clap", "clap_mangen", "indicatif", "axum", "mimalloc", "anyhow", "serde_path_to_error"];
    let found: Vec<&String> = deps.iter().filter(|d| frontend.contains(&d.as_str())).collect();
    assert!(found.is_empty(), "the library crate depends on frontend crates {found:?}: they belong to frontend/Cargo.toml");
}

#[test]
fn the_binary_reaches_the_stores_only_through_the_library() {
    let deps = dependencies("frontend/Cargo.toml");
    assert!(deps.iter().any(|d| d == "clap"), "read the binary's dependencies: {deps:?}");
    let stores = ["tantivy", "qdrant-client", "qdrant-edge", "petgraph", "gix", "redb", "ort", "tree-sitter"];
    let found: Vec<&String> = deps.iter().filter(|d| stores.contains(&d.as_str())).collect();
    assert!(found.is_empty(), "the binary depends on the stores' crates {found:?}: export what it needs from the library's lib.rs");
}

/// A file's lines up to its unit tests (`#[cfg(test)]` at the top level).
fn code_lines(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read");
    text.lines().take_while(|l| !l.starts_with("#[cfg(test)]")).map(str::to_string).collect()
}

/// Lines that hold `needle` outside comments.
fn offending(files: &[PathBuf], needles: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    for f in files {
        for (i, line) in code_lines(f).iter().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if needles.iter().any(|n| code.contains(n)) {
                found.push(format!("{}:{}: {}", f.display(), i + 1, line.trim()));
            }
        }
    }
    found
}

#[test]
fn the_library_never_prints() {
    let found = offending(&library_files(), &["println!", "eprintln!", "print!(", "eprint!(", "std::io::stdout", "std::io::stderr"]);
    assert!(found.is_empty(), "library code that prints (report through Progress, return values):\n{}", found.join("\n"));
}

#[test]
fn process_policy_is_the_binarys() {
    let found = offending(&library_files(), &["prctl", "PR_SET_", "signal(", "sigaction", "#[global_allocator]"]);
    assert!(found.is_empty(), "library code setting process policy (report through Progress; the binary decides):\n{}", found.join("\n"));
}

#[test]
fn only_the_environment_module_reads_the_environment() {
    let files: Vec<PathBuf> = library_files().into_iter().filter(|p| !p.ends_with("env.rs")).collect();
    let found = offending(&files, &["std::env::var", "env::var_os(", "env::var("]);
    assert!(found.is_empty(), "environment read outside src/env.rs:\n{}", found.join("\n"));
}

#[test]
fn frontends_use_the_facade_not_store_internals() {
    let found = offending(&frontend_files(), &["git_rag::stores"]);
    assert!(found.is_empty(), "a frontend reaching into library internals (export what it needs from lib.rs):\n{}", found.join("\n"));
}

#[test]
fn the_cli_entry_file_is_short() {
    let n = std::fs::read_to_string(crate::common::root().join("frontend/src/main.rs")).expect("main.rs").lines().count();
    assert!(n <= 300, "frontend/src/main.rs has {n} lines; keep the entry file at most 300");
}

/// `(file, line, name, length)` of each function, measured from its `fn`
/// line to the closing brace at the same indentation.
fn functions(path: &Path) -> Vec<(String, usize, String, usize)> {
    let lines = code_lines(path);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let head = trimmed.trim_start_matches("pub ").trim_start_matches("pub(crate) ").trim_start_matches("pub(super) ");
        let head = head.trim_start_matches("const ").trim_start_matches("async ").trim_start_matches("unsafe ");
        let Some(rest) = head.strip_prefix("fn ") else { continue };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let name: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
        let close = format!("{indent}}}");
        if line.trim_end().ends_with('}') {
            continue; // a one-line function
        }
        if let Some(end) = lines[i + 1..].iter().position(|l| l.trim_end() == close) {
            out.push((path.display().to_string(), i + 1, name, end + 2));
        }
    }
    out
}

#[test]
fn no_library_function_is_longer_than_100_lines() {
    let mut long: Vec<String> = Vec::new();
    let mut measured = 0;
    for f in library_files() {
        for (file, line, name, len) in functions(&f) {
            measured += 1;
            if len > 100 {
                long.push(format!("{file}:{line}: fn {name} has {len} lines"));
            }
        }
    }
    assert!(measured > 300, "measured only {measured} functions: the scanner is broken");
    assert!(long.is_empty(), "split these functions (at most 100 lines each):\n{}", long.join("\n"));
}

/// The layers of `src/query/`, bottom up (ARCHITECTURE.md, "Dependency
/// direction"): a module uses the layers before its own, never one after.
/// `base` (the features the stage weighs and the numbers that order
/// results) reads no other layer; every layer reads it.
const QUERY_LAYERS: &[&str] = &["base", "question", "answer", "options", "retrieve", "rank", "sources", "context", "history"];

/// A module's layer: its place in [`QUERY_LAYERS`].
fn query_layer(m: &[String]) -> Option<usize> {
    m.first().and_then(|top| QUERY_LAYERS.iter().position(|l| l == top))
}

/// Each module of `src/query/` (its path below `query`, `[]` for `mod.rs`) and its file.
fn query_modules() -> Vec<(Vec<String>, PathBuf)> {
    let root = src().join("query");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files
        .into_iter()
        .map(|f| {
            let rel = f.strip_prefix(&root).expect("under query").with_extension("");
            let mut parts: Vec<String> = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
            if parts.last().is_some_and(|p| p == "mod") {
                parts.pop();
            }
            (parts, f)
        })
        .collect()
}

/// A file's code before its test module, comments left out.
fn code_before_tests(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("read");
    let lines: Vec<&str> = text.lines().collect();
    let end =
        (0..lines.len()).find(|&i| lines[i].starts_with("#[cfg(test)]") && lines.get(i + 1).is_some_and(|n| n.starts_with("mod "))).unwrap_or(lines.len());
    lines[..end].iter().map(|l| l.split("//").next().unwrap_or("").to_string()).collect()
}

/// The modules of `src/query/` each module refers to: `crate::query::a::b`,
/// `super::x` (resolved) and, from a folder's `mod.rs`, its own submodules.
fn query_imports() -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let modules = query_modules();
    let known: std::collections::HashSet<Vec<String>> = modules.iter().map(|(m, _)| m.clone()).collect();
    let longest_known = |mut p: Vec<String>, floor: usize| {
        while p.len() > floor && !known.contains(&p) {
            p.pop();
        }
        p
    };
    let absolute = regex::Regex::new(r"crate::query::((?:\w+::)*\w+)").expect("regex");
    let relative = regex::Regex::new(r"\b((?:super::)+)((?:\w+::)*\w+)").expect("regex");
    let mut out = Vec::new();
    for (module, file) in &modules {
        if module.is_empty() {
            continue; // query/mod.rs: the top, `run`
        }
        let is_folder = file.ends_with("mod.rs");
        let children: Vec<String> = if is_folder {
            known.iter().filter(|k| k.len() == module.len() + 1 && k.starts_with(module)).map(|k| k[module.len()].clone()).collect()
        } else {
            Vec::new()
        };
        let mut targets: Vec<Vec<String>> = Vec::new();
        for line in code_before_tests(file) {
            for c in absolute.captures_iter(&line) {
                targets.push(longest_known(c[1].split("::").map(str::to_string).collect(), 0));
            }
            for c in relative.captures_iter(&line) {
                let mut base: Vec<String> = module[..module.len() - 1].to_vec();
                for _ in 1..c[1].matches("super::").count() {
                    base.pop();
                }
                let floor = base.len();
                base.extend(c[2].split("::").map(str::to_string));
                targets.push(longest_known(base, floor));
            }
            for child in &children {
                let used = line.split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == ':')).any(|w| w.starts_with(&format!("{child}::")));
                if used || line.trim_start().starts_with(&format!("use {child}")) {
                    let mut t = module.clone();
                    t.push(child.clone());
                    targets.push(t);
                }
            }
        }
        targets.retain(|t| t != module);
        targets.sort();
        targets.dedup();
        out.push((module.clone(), targets));
    }
    assert!(out.len() > 20, "found only {} query modules", out.len());
    out
}

#[test]
fn the_query_layers_import_only_downwards_and_without_circles() {
    let imports = query_imports();
    let layer = query_layer;
    let mut problems = Vec::new();
    for (module, targets) in &imports {
        let Some(own) = layer(module) else {
            problems.push(format!("query/{} is in no layer (add it to QUERY_LAYERS and ARCHITECTURE.md)", module.join("/")));
            continue;
        };
        for t in targets {
            match layer(t) {
                None => problems.push(format!("query/{} uses query/{} (the top, or no layer)", module.join("/"), t.join("/"))),
                Some(l) if l > own => problems.push(format!("query/{} uses query/{}, a layer above it", module.join("/"), t.join("/"))),
                _ => {}
            }
        }
    }
    // Circles: a depth-first walk that meets a module still on its path.
    let graph: std::collections::HashMap<&Vec<String>, &Vec<Vec<String>>> = imports.iter().map(|(m, t)| (m, t)).collect();
    fn walk<'a>(
        m: &'a Vec<String>,
        graph: &std::collections::HashMap<&'a Vec<String>, &'a Vec<Vec<String>>>,
        path: &mut Vec<&'a Vec<String>>,
        done: &mut std::collections::HashSet<&'a Vec<String>>,
        found: &mut Vec<String>,
    ) {
        if let Some(at) = path.iter().position(|p| *p == m) {
            let circle: Vec<String> = path[at..].iter().chain(std::iter::once(&m)).map(|p| p.join("/")).collect();
            found.push(format!("circle: {}", circle.join(" -> ")));
            return;
        }
        if !done.insert(m) {
            return;
        }
        path.push(m);
        if let Some(targets) = graph.get(m) {
            for t in targets.iter() {
                walk(t, graph, path, done, found);
            }
        }
        path.pop();
    }
    let mut done = std::collections::HashSet::new();
    for (m, _) in &imports {
        walk(m, &graph, &mut Vec::new(), &mut done, &mut problems);
    }
    assert!(problems.is_empty(), "src/query/ must stay layered ({}):\n{}", QUERY_LAYERS.join(" < "), problems.join("\n"));
}

/// Every number that orders results is named in `base/parameters.rs` with
/// its reason: no other file of `src/query/` (its tests aside) writes a
/// float literal but 0 and 1.
#[test]
fn no_number_that_orders_results_lives_outside_the_parameters_file() {
    let float = regex::Regex::new(r"(?:^|[^\w.])(\d+\.\d+(?:e-?\d+)?|\d+(?:\.\d+)?(?:e-?\d+)?f(?:32|64)|\d+e-?\d+)").expect("regex");
    let string = regex::Regex::new(r#""(?:[^"\\]|\\.)*""#).expect("regex");
    let mut found = Vec::new();
    let mut scanned = 0;
    for (module, file) in query_modules() {
        if module == ["base", "parameters"] {
            continue;
        }
        scanned += 1;
        for (i, line) in code_before_tests(&file).iter().enumerate() {
            let code = string.replace_all(line, "\"\"");
            for c in float.captures_iter(&code) {
                let literal = c[1].trim_end_matches("f32").trim_end_matches("f64");
                if literal.parse::<f64>().is_ok_and(|v| v != 0.0 && v != 1.0) {
                    found.push(format!("{}:{}: {}", file.display(), i + 1, line.trim()));
                }
            }
        }
    }
    assert!(scanned > 30, "scanned only {scanned} files");
    assert!(found.is_empty(), "name these in src/query/base/parameters.rs, with why each has its value:\n{}", found.join("\n"));
}
