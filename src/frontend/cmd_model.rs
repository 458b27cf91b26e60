//! `git rag model install|status`: the embedding model and ONNX Runtime.

use std::process::ExitCode;

use anyhow::Result;

use crate::args::ModelAction;
use crate::progress::Terminal;

pub fn run(action: &ModelAction) -> Result<ExitCode> {
    match action {
        ModelAction::Install { force, json } => {
            let report = git_rag::semantic::model::install(*force, &Terminal::new(false))?;
            if *json {
                println!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                println!(
                    "model ready: {} ({} dims) with ONNX Runtime {}",
                    report.model_dir.display(),
                    report.dims,
                    report.runtime.display()
                );
            }
        }
        ModelAction::Status { json } => {
            let model_dir = git_rag::semantic::embed::default_model_dir();
            let runtime = git_rag::semantic::embed::runtime_library();
            let manifest = git_rag::semantic::embed::ModelManifest::load(&model_dir);
            let loads = git_rag::semantic::embed::Embedder::load(&model_dir, Default::default()).and_then(|e| e.embed_query("ok").map(|v| v.len()));
            let status = serde_json::json!({
                "cache_dir": git_rag::semantic::embed::cache_dir(),
                "runtime": runtime,
                "runtime_present": runtime.exists(),
                "model_dir": model_dir,
                "model": manifest.as_ref().ok().map(|m| m.id.clone()),
                "dims": loads.as_ref().ok(),
                "error": loads.as_ref().err().map(|e| e.to_string()),
            });
            if *json {
                println!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                println!("runtime:  {} ({})", runtime.display(), if runtime.exists() { "present" } else { "missing" });
                println!("model:    {}", model_dir.display());
                match &loads {
                    Ok(d) => println!("status:   loads and embeds ({d} dims)"),
                    Err(e) => println!("status:   {e}"),
                }
            }
            if loads.is_err() {
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
