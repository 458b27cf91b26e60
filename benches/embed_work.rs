//! What the semantic layer embeds for a repository, and what it costs: texts
//! and tokens (as the model sees them, after truncation) per collection and
//! chunk kind, with no inference. With `GIT_RAG_BENCH_SAMPLE=N` it also runs
//! N texts (a stratified sample of the whole) through ONNX Runtime under a
//! few session settings, interleaved `GIT_RAG_BENCH_RUNS` times, and reports
//! medians in tokens per second with the default settings as the reference.
//!
//!   GIT_RAG_BENCH_REPO=path cargo bench --bench embed_work

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use git_rag::semantic::embed::{default_model_dir, EmbedOptions, OnnxEmbedder};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let repo_dir = std::env::var_os("GIT_RAG_BENCH_REPO").map(PathBuf::from).ok_or("set GIT_RAG_BENCH_REPO")?;
    let model_dir = default_model_dir();
    let embedder = OnnxEmbedder::load(&model_dir, EmbedOptions::default())?;
    let model_id = embedder.manifest().id.clone();

    let docs = common::head_documents(&repo_dir, &model_id)?;
    // Distinct texts, each under the first (collection, kind) that has it.
    let mut seen = std::collections::HashSet::new();
    let mut texts: Vec<(String, String)> = Vec::new();
    for d in &docs {
        if seen.insert(d.key) {
            let kind = d.payload.get("kind").and_then(|k| k.as_str()).unwrap_or("-");
            let path = d.payload.get("path").and_then(|k| k.as_str()).unwrap_or("");
            // Roughly the query side's test-code rule.
            let test =
                if path.to_ascii_lowercase().split('/').any(|p| p.starts_with("test") || p.contains("_test") || p.contains(".test.") || p.contains("spec")) {
                    " (test)"
                } else {
                    ""
                };
            texts.push((format!("{:?}/{kind}{test}", d.collection), d.text.clone()));
        }
    }
    let inputs: Vec<String> = texts.iter().map(|(_, t)| t.clone()).collect();
    let encodings = embedder.tokenize(&inputs)?;
    // (texts, chars, tokens, tokens under a cap of 64 / 128 / 192)
    let mut per: BTreeMap<&str, (usize, usize, usize, [usize; 3])> = BTreeMap::new();
    for ((group, text), enc) in texts.iter().zip(&encodings) {
        let e = per.entry(group.as_str()).or_default();
        let n = enc.get_ids().len();
        e.0 += 1;
        e.1 += text.len();
        e.2 += n;
        for (cap, t) in [64, 128, 192].iter().zip(e.3.iter_mut()) {
            *t += n.min(*cap);
        }
    }
    let total_tokens: usize = per.values().map(|v| v.2).sum();
    println!("{}: {} points, {} distinct texts, {} tokens", repo_dir.display(), docs.len(), texts.len(), total_tokens);
    for (group, (n, chars, tokens, capped)) in &per {
        println!(
            "  {group:<22} {n:>7} texts {chars:>10} chars {tokens:>9} tokens ({:>5.1}%, {:>5.1} per text); capped at 64/128/192: {:?}",
            100.0 * *tokens as f64 / total_tokens as f64,
            *tokens as f64 / *n as f64,
            capped
        );
    }

    let sample: usize = std::env::var("GIT_RAG_BENCH_SAMPLE").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    if sample == 0 {
        return Ok(());
    }
    let runs: usize = std::env::var("GIT_RAG_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let step = (encodings.len() / sample).max(1);
    let mut picked: Vec<&tokenizers::Encoding> = encodings.iter().step_by(step).take(sample).collect();
    picked.sort_by_key(|e| e.get_ids().len());
    let sample_tokens: usize = picked.iter().map(|e| e.get_ids().len()).sum();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let one_session = EmbedOptions { threads: cores, sessions: 1, batch_size: 16, optimize_graph: true };
    let variants: Vec<(String, EmbedOptions)> = vec![
        ("default".into(), EmbedOptions::default()),
        ("default, batch 2".into(), EmbedOptions { batch_size: 2, ..Default::default() }),
        ("default, batch 8".into(), EmbedOptions { batch_size: 8, ..Default::default() }),
        (format!("one session x {cores} threads, batch 16"), one_session),
        ("default, no graph optimization".into(), EmbedOptions { optimize_graph: false, ..Default::default() }),
    ];
    let embedders: Vec<OnnxEmbedder> = variants.iter().map(|(_, o)| OnnxEmbedder::load(&model_dir, *o)).collect::<Result<_, _>>()?;
    let mut rates: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for run in 1..=runs {
        for (i, e) in embedders.iter().enumerate() {
            let t = Instant::now();
            let vectors = e.embed_encodings(&picked)?;
            assert_eq!(vectors.len(), picked.len());
            rates[i].push(sample_tokens as f64 / t.elapsed().as_secs_f64());
        }
        println!("run {run} done");
    }
    let reference = median(rates[0].clone());
    println!("sample: {} texts, {sample_tokens} tokens; medians of {runs} runs, tokens/s (ratio to default):", picked.len());
    for (i, (name, _)) in variants.iter().enumerate() {
        let m = median(rates[i].clone());
        println!("  {name:<40} {m:>8.0} ({:.2}x)", m / reference);
    }
    Ok(())
}
