//! `git rag mcp install`: renders what [`crate::mcp::install`] wrote.

use std::process::ExitCode;

use anyhow::{Context, Result};
use git_rag::Workspace;

use crate::args::McpAction;
use crate::mcp::install::{self, Request};
use crate::output::{out, outln};

pub fn run(ws: &Workspace, action: McpAction) -> Result<ExitCode> {
    let McpAction::Install { client, user, print, portable, name, json } = action;
    let repo = ws.repo.workdir().context("the repository has no work tree: an MCP server answers for a work tree")?;
    let request = Request { user, portable, name: &name, repo: &repo };
    let Some(client) = client else {
        out!("{}", install::generic(&request)?);
        return Ok(ExitCode::SUCCESS);
    };
    let installed = install::install(client, &request, print)?;
    if print {
        out!("{}", installed.content);
    } else if json {
        outln!("{}", serde_json::to_string_pretty(&installed)?);
    } else {
        let what = match installed.action {
            install::Change::Unchanged => "already in",
            install::Change::Updated => "updated in",
            install::Change::Added => "added to",
        };
        outln!("{name}: {what} {} ({} file of {})", installed.path.display(), installed.scope, serde_json::to_value(client)?.as_str().unwrap_or(""));
    }
    Ok(ExitCode::SUCCESS)
}
