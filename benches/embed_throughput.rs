//! Embedding throughput of the indexing pipeline against raw ONNX Runtime
//! inference of the same model on the same inputs, in the same run.
//!
//! Inputs: the texts git-rag embeds for a repository (`GIT_RAG_BENCH_REPO`,
//! default `$HOME/.cache/git-rag-eval-corpora/requests`), at its HEAD.
//!
//! - reference: the texts tokenized beforehand, sorted by length, and run
//!   through the ONNX session batch by batch; only inference is timed.
//! - pipeline: `vectors::sync` into a fresh embedded Qdrant store with an
//!   empty cache: tokenizing, batching, inference, pooling, cache writes
//!   (the `embed` phase), then the collection upserts and optimize.
//!
//! Alternates the two `GIT_RAG_BENCH_RUNS` times (default 3) and reports
//! medians and the ratio pipeline/raw (target ≥ 0.9).
//!
//!   cargo bench --bench embed_throughput

mod common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use git_rag::semantic::embed::{default_model_dir, ApiEmbedder, ApiOptions, EmbedOptions, Embedder, LazyEmbedder, OnnxEmbedder};
use git_rag::stores::vector::edge::{Access, EdgeStore};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let repo_dir = std::env::var_os("GIT_RAG_BENCH_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/git-rag-eval-corpora/requests"));
    let runs: usize = std::env::var("GIT_RAG_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let model_dir = default_model_dir();
    let embedder = OnnxEmbedder::load(&model_dir, EmbedOptions::default())?;
    let model_id = embedder.manifest().id.clone();

    let docs = common::head_documents(&repo_dir, &model_id)?;
    let mut texts: Vec<String> = docs.iter().map(|d| d.text.clone()).collect();
    texts.sort();
    texts.dedup();
    let prefixed: Vec<String> = texts.iter().map(|t| format!("{}{t}", embedder.manifest().document_prefix)).collect();
    let encodings = embedder.tokenize(&prefixed)?;
    let tokens: usize = encodings.iter().map(|e| e.get_ids().len()).sum();
    let mut order: Vec<usize> = (0..encodings.len()).collect();
    order.sort_by_key(|&i| encodings[i].get_ids().len());
    println!(
        "inputs: {} ({} points, {} distinct texts, {} tokens, batch {}, {} threads)",
        repo_dir.display(),
        docs.len(),
        texts.len(),
        tokens,
        embedder.batch_size(),
        EmbedOptions::default().threads
    );

    // GIT_RAG_BENCH_EMBED_URL (+ _MODEL): also time an OpenAI-compatible endpoint.
    let api = std::env::var("GIT_RAG_BENCH_EMBED_URL").ok().filter(|u| !u.is_empty()).map(|url| {
        let model = std::env::var("GIT_RAG_BENCH_EMBED_MODEL").unwrap_or_else(|_| "all-MiniLM-L6-v2".into());
        ApiOptions::new(&url, &model)
    });
    let (mut api_rates, mut api_ratios) = (Vec::new(), Vec::new());
    let mut raw = Vec::new();
    let mut pipe_embed = Vec::new();
    let mut pipe_total = Vec::new();
    for run in 1..=runs {
        // Reference: inference only.
        let mut infer = Duration::ZERO;
        for batch in order.chunks(embedder.batch_size()) {
            let encs: Vec<&tokenizers::Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            let t = Instant::now();
            let v = embedder.infer(&encs)?;
            infer += t.elapsed();
            assert_eq!(v.len(), encs.len());
        }
        let raw_rate = texts.len() as f64 / infer.as_secs_f64();

        // Pipeline: a fresh store, an empty cache.
        let dir = tempfile::tempdir()?;
        let store =
            EdgeStore::open(&dir.path().join("qdrant"), &dir.path().join("vectors"), embedder.manifest().dims, &model_id, Access::Write, Duration::ZERO)?;
        let mut lazy = LazyEmbedder::from_loaded(Embedder::Onnx(OnnxEmbedder::load(&model_dir, EmbedOptions::default())?));
        let t = Instant::now();
        let report = git_rag::semantic::sync::sync(&store, &mut lazy, changes(&docs, &model_id), None, &git_rag::Silent)?;
        let total = t.elapsed().as_secs_f64();
        assert_eq!(report.embedded, texts.len());
        let embed_s = report.timings["embed"] / 1000.0;
        let pipe_rate = texts.len() as f64 / embed_s.max(1e-9);
        println!(
            "run {run}: raw ORT {raw_rate:.1} texts/s ({:.1}s) | pipeline embed {pipe_rate:.1} texts/s ({:.1}s) | whole sync {:.1}s ({:.1} points/s) | ratio {:.3}",
            infer.as_secs_f64(),
            embed_s,
            total,
            docs.len() as f64 / total,
            pipe_rate / raw_rate
        );
        if let Some(api) = &api {
            // The same texts through an OpenAI-compatible endpoint, same run.
            let dir = tempfile::tempdir()?;
            let store = EdgeStore::open(
                &dir.path().join("qdrant"),
                &dir.path().join("vectors"),
                embedder.manifest().dims,
                &api.model_id(),
                Access::Write,
                Duration::ZERO,
            )?;
            let mut lazy = LazyEmbedder::from_loaded(Embedder::Api(ApiEmbedder::new(api.clone())));
            let report = git_rag::semantic::sync::sync(&store, &mut lazy, changes(&docs, &model_id), None, &git_rag::Silent)?;
            let rate = report.embedded as f64 / (report.timings["embed"] / 1000.0).max(1e-9);
            println!("run {run}: endpoint {rate:.1} texts/s | in-process pipeline {pipe_rate:.1} texts/s | ratio {:.3}", rate / pipe_rate);
            api_rates.push(rate);
            api_ratios.push(rate / pipe_rate);
        }
        raw.push(raw_rate);
        pipe_embed.push(pipe_rate);
        pipe_total.push(docs.len() as f64 / total);
    }
    let (r, p) = (median(raw), median(pipe_embed));
    println!(
        "MEDIAN of {runs}: raw ORT {r:.1} texts/s, pipeline {p:.1} texts/s, ratio {:.3} (target >= 0.9); whole sync {:.1} points/s",
        p / r,
        median(pipe_total)
    );
    if api.is_some() {
        println!("MEDIAN of {runs}: endpoint {:.1} texts/s, {:.3}x the in-process pipeline", median(api_rates), median(api_ratios));
    }
    Ok(())
}

/// A full sync of `docs`.
fn changes<'a>(docs: &[git_rag::semantic::docs::Doc], model_id: &'a str) -> git_rag::semantic::sync::Changes<'a> {
    git_rag::semantic::sync::Changes { full: true, cleared: &[], docs: docs.to_vec(), patterns: Vec::new(), model_id, pending: None }
}
