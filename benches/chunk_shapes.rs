//! What one big file of an unusual shape costs to parse and chunk, per
//! language: milliseconds per MB, and whether the cost grows faster than the
//! file (the same shape at a quarter of the size, in the same run).
//!
//! Shapes, each about 1 MB, made from every parsed language's real fixtures
//! (`tests/fixtures/languages/<language>/`) or generated:
//!
//! - `real`: the language's fixtures repeated (ordinary code, big);
//! - `tiny defs`: one small definition repeated, renamed (thousands of them);
//! - `broken`: a statement no grammar reads, on every line (syntax errors throughout);
//! - `minified`: the fixtures with every line break removed (one very long line);
//! - `long line`: one line of `a + a + …` inside the fixture;
//! - `string`: one string literal of the whole size;
//! - `nesting`: brackets nested 20,000 deep;
//! - `cjk`: long runs of CJK text between the fixture's lines;
//!
//! and for text (Markdown, plain): CJK paragraphs, one huge line.
//!
//! Reported per (language, shape): median ms per MB at 1 MB (`GIT_RAG_BENCH_RUNS`
//! rounds, default 3), `growth`: ms per MB at 1 MB over ms per MB at 256 KB
//! (1.0 is linear; a quadratic path shows ~4), and `windows` where the parse
//! was given up as too costly and the file chunked as text windows
//! (`tags::PARSE_READ_FACTOR`). The worst of both is printed last.
//! `GIT_RAG_BENCH_LANGUAGE` and `GIT_RAG_BENCH_SHAPE` run one of each (to profile it).
//!
//!   cargo bench --bench chunk_shapes

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use git_rag::analysis::chunk::{chunk_file, ChunkOptions};
use git_rag::analysis::lang::Language;

const SIZE: usize = 1 << 20;
const DEPTH: usize = 20_000;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `unit` repeated to `size` bytes (cut at a line end when there is one).
fn repeat_to(unit: &str, size: usize) -> String {
    let mut out = String::with_capacity(size + unit.len());
    while out.len() < size {
        out.push_str(unit);
        if !unit.ends_with('\n') {
            out.push('\n');
        }
    }
    out
}

fn cut(mut s: String, size: usize) -> String {
    let mut at = size.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    s.truncate(at);
    s
}

/// The shapes of `size` bytes for a language whose fixtures are `code`.
fn shapes(language: &str, code: &str, size: usize) -> Vec<(&'static str, String)> {
    let tiny =
        numbered_to(tiny_definition(language).unwrap_or_else(|| shortest_definition(code).map(rename_template).unwrap_or_else(|| "x{i} = 1".into())), size);
    // Statements no grammar reads: a syntax error on every line.
    let broken = numbered_to("x {i}= 1".into(), size);
    let first_line = code.lines().next().unwrap_or("");
    let cjk_run: String = "索引的每一个文件都要按照大小线性地处理，不能多也不能少。".repeat(40);
    let cjk: String = code.lines().flat_map(|l| [l.to_string(), cjk_run.clone()]).collect::<Vec<_>>().join("\n");
    vec![
        ("real", cut(repeat_to(code, size), size)),
        ("tiny defs", cut(tiny, size)),
        ("broken", cut(broken, size)),
        ("minified", cut(repeat_to(&code.replace('\n', " "), size), size)),
        ("long line", format!("{first_line}\n{}a\n{code}", "a + ".repeat(size / 4))),
        ("string", format!("{first_line}\nx = \"{}\"\n", "ab\\\"c d".repeat(size / 7))),
        ("nesting", format!("{first_line}\nx = {}1{}\n", "(".repeat(DEPTH.min(size / 2)), ")".repeat(DEPTH.min(size / 2)))),
        ("cjk", cut(repeat_to(&cjk, size), size)),
    ]
}

/// The shortest run of lines in `code` that starts a definition
/// (a line beginning with a definition keyword) and ends before the next.
fn shortest_definition(code: &str) -> Option<&str> {
    const STARTS: [&str; 14] = ["def ", "fn ", "func ", "function ", "pub fn ", "fun ", "sub ", "proc ", "void ", "int ", "let ", "static ", "defn ", "(defn "];
    let lines: Vec<(usize, &str)> = code
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .chain([code.len()])
        .scan(0, |start, end| {
            let line = (*start, &code[*start..end]);
            *start = end;
            Some(line)
        })
        .collect();
    let starts: Vec<usize> = lines.iter().filter(|(_, l)| STARTS.iter().any(|k| l.starts_with(k))).map(|(at, _)| *at).collect();
    starts.windows(2).map(|w| &code[w[0]..w[1]]).filter(|d| d.len() < 400).min_by_key(|d| d.len())
}

/// `def` with `{i}` after its defined name (the word after its keyword).
fn rename_template(def: &str) -> String {
    let mut words = def.trim_end().splitn(2, ' ');
    let (keyword, rest) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let name_end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
    format!("{keyword} {}{{i}}{}", &rest[..name_end], &rest[name_end..]).replace('\n', " ")
}

/// `template` with `{i}` numbered 0, 1, …, one a line, to `size` bytes.
fn numbered_to(template: String, size: usize) -> String {
    let mut out = String::with_capacity(size + template.len());
    let mut i = 0;
    while out.len() < size {
        out.push_str(&template.replace("{i}", &i.to_string()));
        out.push('\n');
        i += 1;
    }
    out
}

/// One small valid definition of `language`, `{i}` in its name: thousands
/// of them make generated code (bindings, tables of handlers).
fn tiny_definition(language: &str) -> Option<String> {
    let t = match language {
        "bash" => "f{i}() { echo {i}; }",
        "c" | "objc" => "int f{i}(int x) { return x + {i}; }",
        "cpp" => "int f{i}(int x) { return x + {i}; }",
        "clojure" => "(defn f{i} [x] (+ x {i}))",
        "csharp" => "class C{i} { int F(int x) { return x + {i}; } }",
        "dart" => "int f{i}(int x) => x + {i};",
        "elixir" => "defmodule M{i} do def f(x), do: x + {i} end",
        "erlang" => "f{i}(X) -> X + {i}.",
        "go" => "func f{i}(x int) int { return x + {i} }",
        "haskell" => "f{i} x = x + {i}",
        "hcl" => "resource \"a\" \"r{i}\" { x = {i} }",
        "java" => "class C{i} { int f(int x) { return x + {i}; } }",
        "javascript" | "typescript" | "tsx" => "function f{i}(x) { return x + {i}; }",
        "julia" => "f{i}(x) = x + {i}",
        "kotlin" => "fun f{i}(x: Int) = x + {i}",
        "lua" => "function f{i}(x) return x + {i} end",
        "ocaml" => "let f{i} x = x + {i}",
        "ocaml-interface" => "val f{i} : int -> int",
        "perl" => "sub f{i} { return {i}; }",
        "php" => "function f{i}($x) { return $x + {i}; }",
        "protobuf" => "message M{i} { int32 x = 1; }",
        "python" => "def f{i}(x): return x + {i}",
        "r" => "f{i} <- function(x) x + {i}",
        "ruby" => "def f{i}(x); x + {i}; end",
        "rust" => "fn f{i}(x: i32) -> i32 { x + {i} }",
        "scala" => "def f{i}(x: Int): Int = x + {i}",
        "sql" => "CREATE TABLE t{i} (id INT);",
        "swift" => "func f{i}(_ x: Int) -> Int { x + {i} }",
        "toml" => "[t{i}]\nx = {i}",
        "yaml" => "k{i}: {i}",
        "zig" => "fn f{i}(x: i32) i32 { return x + {i}; }",
        _ => return None,
    };
    Some(t.to_string())
}

/// Milliseconds per MB to chunk `data` as `path`, median of `runs`, and
/// whether its parse was given up.
fn ms_per_mb(path: &str, data: &[u8], opts: &ChunkOptions, runs: usize) -> (f64, bool) {
    let mut v = Vec::new();
    let mut given_up = false;
    for _ in 0..runs {
        let t = Instant::now();
        let chunks = std::hint::black_box(chunk_file(path, data, opts));
        v.push(t.elapsed().as_secs_f64() * 1000.0 / (data.len() as f64 / SIZE as f64));
        given_up = chunks.parse_too_costly;
    }
    (median(v), given_up)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::var("GIT_RAG_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let only = std::env::var("GIT_RAG_BENCH_LANGUAGE").ok();
    let only_shape = std::env::var("GIT_RAG_BENCH_SHAPE").ok();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/languages");
    let mut by_language: BTreeMap<String, (String, String)> = BTreeMap::new();
    for dir in std::fs::read_dir(&root)? {
        let dir = dir?.path();
        if !dir.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            let name = path.to_string_lossy().into_owned();
            let language = Language::from_path(&name);
            if language.grammar().is_none() {
                continue;
            }
            let text = String::from_utf8_lossy(&std::fs::read(&path)?).into_owned();
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("txt").to_string();
            let slot = by_language.entry(language.name().to_string()).or_insert_with(|| (format!("big.{ext}"), String::new()));
            slot.1.push_str(&text);
            slot.1.push('\n');
        }
    }
    let opts = ChunkOptions::default();
    println!("{:<11} {:<10} {:>9} {:>7}", "language", "shape", "ms / MB", "growth");
    let mut worst: (f64, String) = (0.0, String::new());
    let mut worst_growth: (f64, String) = (0.0, String::new());
    let mut report = |language: &str, shape: &str, path: &str, big: &str, small: &str| {
        if only_shape.as_deref().is_some_and(|o| o != shape) {
            return;
        }
        let (at_size, given_up) = ms_per_mb(path, big.as_bytes(), &opts, runs);
        let (at_quarter, _) = ms_per_mb(path, small.as_bytes(), &opts, runs);
        let growth = at_size / at_quarter.max(1e-9);
        println!("{language:<11} {shape:<10} {at_size:>9.0} {growth:>7.2}{}", if given_up { "  windows" } else { "" });
        if at_size > worst.0 {
            worst = (at_size, format!("{language} {shape}"));
        }
        if growth > worst_growth.0 && at_size > 20.0 {
            worst_growth = (growth, format!("{language} {shape}"));
        }
    };
    for (language, (path, code)) in &by_language {
        if only.as_deref().is_some_and(|o| o != language) {
            continue;
        }
        // The language's query is compiled on its first file (C's: ~0.2 s),
        // not a cost of any shape.
        let _ = chunk_file(path, code.as_bytes(), &opts);
        let (big, small) = (shapes(language, code, SIZE), shapes(language, code, SIZE / 4));
        for ((shape, b), (_, s)) in big.iter().zip(&small) {
            report(language, shape, path, b, s);
        }
    }
    let cjk = "索引的每一个文件都要按照大小线性地处理。日本語の文章もここにあります。한국어 문장도 있습니다。".repeat(30);
    for (path, name) in [("big.md", "markdown"), ("big.txt", "text")] {
        let paragraphs = |size| cut(repeat_to(&format!("# 标题\n\n{cjk}\n\n"), size), size);
        let one_line = |size: usize| cut(cjk.repeat(size / cjk.len() + 1), size);
        report(name, "cjk", path, &paragraphs(SIZE), &paragraphs(SIZE / 4));
        report(name, "one line", path, &one_line(SIZE), &one_line(SIZE / 4));
    }
    println!("slowest: {} ({:.0} ms per MB); fastest-growing: {} ({:.2}× from 256 KB to 1 MB)", worst.1, worst.0, worst_growth.1, worst_growth.0);
    Ok(())
}
