//! `git rag model install|status`: the embedding model and ONNX Runtime.

use std::process::ExitCode;

use anyhow::Result;

use crate::args::ModelAction;
use crate::output::outln;
use crate::progress::Terminal;
use git_rag::{Overrides, Workspace};

pub fn run(action: &ModelAction, overrides: &Overrides) -> Result<ExitCode> {
    match action {
        ModelAction::Install { force, json } => {
            let report = git_rag::semantic::model::install(*force, &Terminal::new(false))?;
            if *json {
                outln!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                outln!("model ready: {} ({} dims) with ONNX Runtime {}", report.model_dir.display(), report.dims, report.runtime.display());
            }
        }
        ModelAction::Status { json } => {
            // The repository's choice (`rag.embed.url`, `rag.model`) when run in one.
            let source = match Workspace::discover(overrides) {
                Ok(ws) => ws.model,
                Err(_) => git_rag::semantic::embed::ModelSource::default_onnx(),
            };
            let status = git_rag::semantic::model::status(&source);
            if *json {
                outln!("{}", serde_json::to_string_pretty(&status)?);
            } else {
                print_status(&status)?;
            }
            if status.dims.is_none() {
                return Ok(ExitCode::FAILURE);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_status(status: &git_rag::semantic::model::ModelStatus) -> Result<()> {
    outln!("provider: {}", status.provider);
    if let Some(dir) = &status.model_dir {
        outln!("runtime:  {} ({})", status.runtime.display(), if status.runtime_present { "present" } else { "missing" });
        outln!("model:    {}", dir.display());
    }
    if let Some(url) = &status.endpoint {
        outln!("endpoint: {url}");
    }
    if let Some(id) = &status.model {
        outln!("id:       {id}");
    }
    match (&status.dims, &status.error) {
        (Some(d), _) => outln!("status:   embeds ({d} dims, round trip {:.0} ms)", status.round_trip_ms.unwrap_or(0.0)),
        (None, e) => outln!("status:   {}", e.as_deref().unwrap_or("does not load")),
    }
    Ok(())
}
