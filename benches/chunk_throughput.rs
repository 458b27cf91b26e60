//! Parse + chunk throughput per language, against tree-sitter parsing alone
//! of the same bytes, in the same run.
//!
//! Inputs: the real-code fixtures of every parsed language
//! (`tests/fixtures/languages/<language>/`, `tests/fixtures/chunker/`),
//! files with deliberate syntax errors included. Per language and round,
//! each file goes through
//!
//! - reference: `tree_sitter::Parser::parse` with the language's grammar;
//! - pipeline: `chunk_file` (parse, symbols through the hand walker or the
//!   tags query, cAST chunks, ids, conventions).
//!
//! The two alternate `GIT_RAG_BENCH_RUNS` times (default 5); each round
//! repeats the language's files until 0.2 s have passed. Reported: medians of
//! MB/s for both and the ratio pipeline / parse, and the time one process
//! spends compiling the language's tags query.
//!
//!   cargo bench --bench chunk_throughput

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use git_rag::analysis::chunk::{chunk_file, ChunkOptions};
use git_rag::analysis::lang::Language;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Bytes per second of `work` over `files`, repeated for at least `min`.
fn rate(files: &[(String, Vec<u8>)], min: Duration, mut work: impl FnMut(&str, &[u8])) -> f64 {
    let started = Instant::now();
    let mut bytes = 0usize;
    while started.elapsed() < min {
        for (path, data) in files {
            work(path, data);
            bytes += data.len();
        }
    }
    bytes as f64 / started.elapsed().as_secs_f64()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::var("GIT_RAG_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut by_language: BTreeMap<&'static str, (Language, Vec<(String, Vec<u8>)>)> = BTreeMap::new();
    for dir in ["chunker", "languages"] {
        let mut stack = vec![root.join(dir)];
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d)? {
                let path = entry?.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let name = path.to_string_lossy().into_owned();
                let language = Language::from_path(&name);
                if language.grammar().is_none() {
                    continue;
                }
                let data = std::fs::read(&path)?;
                by_language.entry(language.name()).or_insert_with(|| (language, Vec::new())).1.push((name, data));
            }
        }
    }
    let opts = ChunkOptions::default();
    let min = Duration::from_millis(200);
    println!("{:<11} {:>6} {:>9} {:>12} {:>12} {:>7} {:>9}", "language", "files", "KB", "parse MB/s", "chunk MB/s", "ratio", "query ms");
    for (name, (language, files)) in &by_language {
        let grammar = language.grammar().ok_or("no grammar")?;
        let (mut parse_rates, mut chunk_rates) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&grammar)?;
            parse_rates.push(rate(files, min, |_, data| {
                std::hint::black_box(parser.parse(data, None));
            }));
            chunk_rates.push(rate(files, min, |path, data| {
                std::hint::black_box(chunk_file(path, data, &opts));
            }));
        }
        let kb = files.iter().map(|(_, d)| d.len()).sum::<usize>() as f64 / 1024.0;
        let (p, c) = (median(parse_rates) / 1e6, median(chunk_rates) / 1e6);
        // What a process pays once for the language's tags query (none for the hand-walked ones).
        let compile_ms = match language.tags_query() {
            Some(_) => {
                let started = Instant::now();
                git_rag::analysis::tags::check_query(*language)?;
                format!("{:.1}", started.elapsed().as_secs_f64() * 1e3)
            }
            None => "-".to_string(),
        };
        println!("{name:<11} {:>6} {kb:>9.1} {p:>12.2} {c:>12.2} {:>7.2} {compile_ms:>9}", files.len(), c / p);
    }
    Ok(())
}
