//! `git rag impact`: the library answers, this renders — the JSON contract,
//! the review context, or three short lists; `--quiet` only an exit status.

use std::process::ExitCode;

use anyhow::Result;
use git_rag::{Impact, ImpactRequest, Workspace};

use crate::output::outln;

pub fn run(ws: &Workspace, request: &ImpactRequest, json: bool, quiet: bool) -> Result<ExitCode> {
    let impact = git_rag::impact(&ws.repo, &ws.index_dir, request)?;
    if quiet {
        // As `git diff --quiet`, but for what runs: a change of documentation
        // alone is none; one of configuration is (a workflow or a build file can
        // break any test).
        let changes_what_runs = !impact.changed.is_empty() && !impact.documentation_only;
        return Ok(if changes_what_runs { ExitCode::from(1) } else { ExitCode::SUCCESS });
    }
    for notice in &impact.notices {
        eprintln!("git-rag: {notice}");
    }
    if json {
        outln!("{}", serde_json::to_string(&impact)?);
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(ctx) = &impact.context {
        outln!("{}", ctx.markdown.trim_end());
        return Ok(ExitCode::SUCCESS);
    }
    render(&impact)?;
    Ok(ExitCode::SUCCESS)
}

fn render(impact: &Impact) -> Result<()> {
    eprintln!("git-rag: {} ({:.0} ms)", impact.target, impact.took_ms);
    if impact.changed.is_empty() {
        eprintln!("git-rag: nothing changed");
        return Ok(());
    }
    outln!("changed ({}):", impact.changed.len());
    for c in &impact.changed {
        let change = serde_json::to_value(c.change)?;
        let was = c.previous.as_deref().map(|p| format!(", was {p}")).unwrap_or_default();
        outln!("  {}:{}-{}  {}  [{}{was}]", c.path, c.start_line, c.end_line, c.symbol.as_deref().unwrap_or("-"), change.as_str().unwrap_or(""));
    }
    outln!("impacted ({}):", impact.impacted.len());
    for i in &impact.impacted {
        let relation = serde_json::to_value(i.relation)?;
        let by_name = i.candidates.map(|n| format!(" by name, {n} candidates")).unwrap_or_default();
        outln!(
            "  {}:{}-{}  {}  [{} {}{by_name}, depth {}, {:.2}]",
            i.path,
            i.start_line,
            i.end_line,
            i.symbol.as_deref().unwrap_or("-"),
            relation.as_str().unwrap_or(""),
            i.reaches,
            i.depth,
            i.score
        );
        if let Some(e) = &i.evidence {
            outln!("      {}: {}", e.line, e.text);
        }
    }
    for o in &impact.omitted {
        outln!("  … {} {}: {} more dependents not listed", o.path, o.symbol.as_deref().unwrap_or(""), o.more);
    }
    let run = impact.tests.iter().filter(|t| t.tier == git_rag::TestTier::Run).count();
    outln!("tests ({}: {run} to run now, {} maybe):", impact.tests.len(), impact.tests.len() - run);
    for t in &impact.tests {
        let tier = if t.tier == git_rag::TestTier::Run { "run" } else { "maybe" };
        let symbol = t.symbol.as_deref().map(|s| format!("::{s}")).unwrap_or_default();
        outln!("  {}{symbol}  [{tier} {:.2}, score {:.2}]  {}", t.path, t.probability, t.score, t.why.join("; "));
    }
    Ok(())
}
