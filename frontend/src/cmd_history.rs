//! `git rag history`: the library answers, this renders — the JSON contract,
//! the digest, or each commit in a few lines.

use std::process::ExitCode;

use anyhow::Result;
use git_rag::{HistoryAnswer, HistoryRequest, Workspace};

use crate::output::outln;

pub fn run(ws: &Workspace, request: &HistoryRequest, json: bool) -> Result<ExitCode> {
    let answer = git_rag::history(&ws.index_dir, request)?;
    if json {
        outln!("{}", serde_json::to_string(&answer)?);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(digest) = &answer.context {
        outln!("{}", digest.trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    render(&answer)?;
    Ok(ExitCode::SUCCESS)
}

fn render(answer: &HistoryAnswer) -> Result<()> {
    let reach = &answer.reach;
    let span = match (&reach.oldest, &reach.newest) {
        (Some(o), Some(n)) => format!(", {o} to {n}"),
        _ => String::new(),
    };
    let whole = if reach.whole { "" } else { " (older commits are not kept: rag.historyDepth, or a shallow clone)" };
    eprintln!("git-rag: {} commits of history{span}{whole}", reach.commits);
    if answer.commits.is_empty() {
        eprintln!("git-rag: no commit matches");
        return Ok(());
    }
    for c in &answer.commits {
        let merge = if c.merge { "  [merge]" } else { "" };
        outln!("{}  {}  {}  {}{merge}", &c.id[..c.id.len().min(12)], c.date, c.author, c.subject);
        let more = c.files_changed.saturating_sub(c.files.len());
        let shown: Vec<&str> = c.files.iter().take(6).map(String::as_str).collect();
        let rest = more + c.files.len().saturating_sub(shown.len());
        outln!("    {}{}", shown.join(", "), if rest > 0 { format!(" (+{rest} more)") } else { String::new() });
        for line in c.lines.iter().take(4) {
            outln!("    {line}");
        }
    }
    Ok(())
}
