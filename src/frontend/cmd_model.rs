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
            let status = git_rag::semantic::model::status();
            if *json {
                println!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                println!("runtime:  {} ({})", status.runtime.display(), if status.runtime_present { "present" } else { "missing" });
                println!("model:    {}", status.model_dir.display());
                match (&status.dims, &status.error) {
                    (Some(d), _) => println!("status:   loads and embeds ({d} dims)"),
                    (None, e) => println!("status:   {}", e.as_deref().unwrap_or("does not load")),
                }
            }
            if status.dims.is_none() {
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
