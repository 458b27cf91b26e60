//! `git rag status`, `git rag patterns` and `git rag gc`: what the index holds, rendered.

use std::process::ExitCode;

use crate::output::outln;
use anyhow::Result;
use git_rag::{short, Workspace};

pub fn status(ws: &Workspace, json: bool, verify: bool) -> Result<ExitCode> {
    let status = git_rag::collect_status(&ws.repo, &ws.index_dir, &ws.backend, true, Some(&ws.layer_options()), verify)?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&status)?);
        return Ok(damage_verdict(&status.damaged));
    }
    outln!("index:    {}", status.index_dir);
    outln!("indexed:  {}", status.indexed_commit.as_deref().map(short).unwrap_or("(nothing)"));
    outln!("HEAD:     {}", status.head.as_deref().map(short).unwrap_or("(no commits)"));
    outln!("stale:    {}", if status.stale { "yes (run `git rag index`)" } else { "no" });
    if status.indexing {
        outln!("indexing: a run is in progress");
    }
    outln!("counts:   {} files, {} chunks, {} symbols", status.counts.files, status.counts.chunks, status.counts.symbols);
    if let Some(w) = &status.worktree {
        print_worktree(w)?;
    }
    if !status.pending.is_empty() {
        outln!("pending:  {} files whose git objects could not be read (the next `git rag index` tries them again):", status.pending.len());
        for (path, p) in status.pending.iter().take(10) {
            outln!("          {path} (blob {}): {}", short(&p.blob), p.reason);
        }
    }
    if let Some(e) = &status.syntax_errors {
        outln!(
            "syntax:   {} files have syntax errors; {:.1}% of their lines were analysed as code (the rest is searched as text); most lines inside errors:",
            e.files,
            100.0 * e.analysed_share
        );
        for f in e.worst.iter().take(5) {
            outln!("          {} ({} of {} lines)", f.path, f.error_lines, f.lines);
        }
    }
    match &status.semantic {
        Some(sem) => {
            outln!("semantic: {} ({} dims) in {}", sem.model, sem.dims, sem.store);
            if let Some(counts) = &sem.counts {
                let parts: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
                outln!("vectors:  {}", parts.join(", "));
            }
            if let Some(err) = &sem.error {
                outln!("vectors:  {err}");
            }
            if let Some(c) = &status.vector_coverage {
                let share = if c.files == 0 { 100.0 } else { 100.0 * c.with_vectors as f64 / c.files as f64 };
                outln!("coverage: {} of {} files have their vectors ({share:.0}%)", c.with_vectors, c.files);
            }
            if let Some(b) = &status.vectors_behind {
                let what = if b.all { "all files".to_string() } else { format!("{} files", b.paths.len()) };
                outln!("degraded: vectors behind for {what} ({}); the next `git rag index` that reaches the store catches up", b.reason);
            }
        }
        None => outln!("semantic: off (keyword and symbol only; `git rag model install` then `git rag index` turns it on)"),
    }
    if let Some(h) = &status.history {
        let span = match (&h.oldest, &h.newest) {
            (Some(o), Some(n)) => format!(", {o} to {n}"),
            _ => String::new(),
        };
        let whole = if h.whole { ", back to the first commit" } else { " (older ones not kept: rag.historyDepth or a shallow clone)" };
        outln!("history:  {} commits{span}{whole}", h.commits);
    }
    if let Some(l) = &status.last_run {
        outln!("last run: {} (embedded {}, reused {})", l.mode, l.embedded, l.reused);
        if let Some(err) = &l.error {
            outln!("last run: failed: {err}");
        }
    }
    if let Some(h) = &status.hook {
        if h.running {
            outln!("hook:     updating the index in the background{}", h.pid.map(|p| format!(" (pid {p})")).unwrap_or_default());
        } else if h.pending {
            outln!("hook:     an update is requested");
        }
        if let Some(r) = &h.last_run {
            match &r.error {
                Some(err) => outln!("hook run: failed at {}: {err} (log: {})", git_rag::hooks::utc(r.finished_at), h.log.display()),
                None => outln!("hook run: {} at {} ({}, {} runs in all)", r.outcome, git_rag::hooks::utc(r.finished_at), r.requested_by, h.runs),
            }
        }
    }
    for d in &status.damaged {
        outln!("damaged:  {d}");
    }
    Ok(damage_verdict(&status.damaged))
}

/// A status that lists damaged stores fails (exit 1), with one error line
/// that says what to do: a script or CI step checking the index sees it.
fn damage_verdict(damaged: &[git_rag::StoreDamaged]) -> ExitCode {
    match damaged {
        [] => return ExitCode::SUCCESS,
        [one] => eprintln!("git-rag: error: {one}"),
        many => eprintln!("git-rag: error: {} stores are damaged; run `git rag index` to rebuild them (`git rag status` lists them)", many.len()),
    }
    ExitCode::FAILURE
}

pub fn patterns(ws: &Workspace, json: bool) -> Result<ExitCode> {
    if git_rag::indexed_state(&ws.index_dir)?.is_none() {
        anyhow::bail!("there is no index yet at {}; run `git rag index` first", ws.index_dir.display());
    }
    let patterns = git_rag::load_patterns(&ws.index_dir)?;
    if json {
        outln!("{}", serde_json::to_string(&patterns)?);
    } else if patterns.is_empty() {
        eprintln!("git-rag: no recurring conventions found");
    } else {
        for p in &patterns {
            outln!("{:>5} × in {:>3} files  {}  — {}", p.count, p.files, p.key, p.description);
            if let Some(e) = p.examples.first() {
                outln!("        e.g. {}:{}-{}", e.path, e.start_line, e.end_line);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `git rag gc [--yes]`.
pub fn gc(ws: &Workspace, yes: bool, json: bool) -> Result<ExitCode> {
    if let git_rag::Backend::Server(server) = &ws.backend {
        return gc_server(ws, server, yes, json);
    }
    let report = git_rag::gc(&ws.repo, &ws.index_dir, &ws.chunk, &ws.backend, yes, &crate::progress::Terminal::new(json))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if report.applied { "deleted" } else { "would delete" };
    outln!("vector cache: {} vectors, {} referenced by the index; {verb} {}", report.cached, report.referenced, report.unreferenced);
    for dir in &report.other_caches {
        outln!("{verb} {} (another model's cache, or vectors of an index that has none)", dir.display());
    }
    if !report.applied && (report.unreferenced > 0 || !report.other_caches.is_empty()) && report.unreadable == 0 {
        outln!("run `git rag gc --yes` to delete them");
    }
    Ok(ExitCode::SUCCESS)
}

/// `git rag gc [--yes]` with a Qdrant server: branches gone from `origin`, the shared cache.
fn gc_server(ws: &Workspace, server: &git_rag::ServerOptions, yes: bool, json: bool) -> Result<ExitCode> {
    let prefix = git_rag::collection_prefix(&ws.repo);
    let report = git_rag::gc_server(&ws.repo, server, &prefix, &ws.model, yes, &crate::progress::Terminal::new(json))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    let verb = if report.applied { "deleted" } else { "would delete" };
    outln!("server {}: {} branches of {prefix} gone from origin", report.server, report.gone_branches.len());
    for name in &report.collections {
        outln!("  {verb} collection {name}");
    }
    match &report.cache_kept {
        Some(reason) => outln!("vector cache {}: {} vectors, kept: {reason}", report.cache, report.cached),
        None => {
            outln!("vector cache {}: {} vectors, {} referenced on the server; {verb} {}", report.cache, report.cached, report.referenced, report.unreferenced)
        }
    }
    if !report.applied && (report.unreferenced > 0 || !report.collections.is_empty()) {
        outln!("run `git rag gc --yes` to delete them");
    }
    Ok(ExitCode::SUCCESS)
}

/// What the work tree lays over the index, a line per file (the first 20).
fn print_worktree(w: &git_rag::WorktreeStatus) -> Result<()> {
    if let Some(e) = &w.error {
        outln!("work tree: not compared with the index: {e}");
        return Ok(());
    }
    if w.files.is_empty() && w.skipped.is_empty() {
        outln!("work tree: same as the indexed commit");
        return Ok(());
    }
    outln!("work tree: {} files differ from the indexed commit; queries answer them from the work tree (--at-commit: not)", w.files.len());
    for f in w.files.iter().take(20) {
        outln!("          {:<8} {}", format!("{:?}", f.change).to_lowercase(), f.path);
    }
    if w.files.len() > 20 {
        outln!("          … and {} more", w.files.len() - 20);
    }
    for s in &w.skipped {
        outln!("          skipped  {} ({})", s.path, s.reason);
    }
    if w.over_cap > 0 {
        outln!("          {} more past the limit answer from the index", w.over_cap);
    }
    Ok(())
}
