//! `git rag index` (local, and `--ci` into a Qdrant server): run, then print
//! the summary.

use std::process::ExitCode;

use anyhow::Result;
use git_rag::{short, Backend, CiOptions, IndexOptions, IndexOutcome, Workspace};

use crate::output::outln;
use crate::progress::Terminal;

/// What the history step did, on stderr: a read of many commits, or a failure (said even with --quiet).
fn say_history(report: Option<&git_rag::HistoryReport>, error: Option<&str>, quiet: bool) {
    if let Some(e) = error {
        eprintln!("git-rag: warning: the history store was not updated: {e}");
    }
    match report {
        Some(h) if !quiet && (h.rebuilt.is_some() || h.added > 0) => {
            let why = h.rebuilt.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
            eprintln!("git-rag: history: {} commits read, {} kept{why}; {:.0} ms", h.added, h.commits, h.took_ms);
        }
        _ => {}
    }
}

pub fn run(ws: &Workspace, opts: &IndexOptions, json: bool, quiet: bool) -> Result<ExitCode> {
    let outcome = git_rag::index(&ws.repo, &ws.index_dir, opts, &Terminal::new(quiet))?;
    if json {
        outln!("{}", serde_json::to_string_pretty(&outcome)?);
        return Ok(ExitCode::SUCCESS);
    }
    match outcome {
        IndexOutcome::Empty => {
            eprintln!("git-rag: the repository has no commits yet; nothing to index");
            outln!("nothing indexed (no commits); embedded 0, reused 0");
        }
        IndexOutcome::UpToDate { commit, history, history_error } => {
            say_history(history.as_ref(), history_error.as_deref(), quiet);
            outln!("index already at {}; embedded 0, reused 0", short(&commit))
        }
        IndexOutcome::Indexed(r) => {
            say_history(r.history.as_ref(), r.history_error.as_deref(), quiet);
            let s = &r.skipped;
            let skipped = s.binary + s.symlink + s.submodule + s.generated + s.excluded;
            if skipped > 0 && !quiet {
                eprintln!(
                    "git-rag: skipped {skipped} files ({} binary, {} symlinks, {} submodules, {} generated, {} excluded by rag.include/rag.exclude or .gitattributes)",
                    s.binary, s.symlink, s.submodule, s.generated, s.excluded
                );
            }
            if !r.pending.is_empty() {
                // Said even with --quiet: these files are missing from the index.
                eprintln!("git-rag: {} files are pending, their git objects could not be read; the next run tries them again:", r.pending.len());
                for (path, p) in r.pending.iter().take(20) {
                    eprintln!("  {path} (blob {}): {}", p.blob, p.reason);
                }
                if r.pending.len() > 20 {
                    eprintln!("  … and {} more (`git rag status --json` lists them)", r.pending.len() - 20);
                }
                eprintln!("git-rag: check the object database with `git fsck`; fetch what is missing (`git fetch`, or a checkout in a partial clone), then run `git rag index`");
            }
            if let Some(b) = &r.vectors_behind {
                // Said even with --quiet: semantic search lags until a run reaches the store.
                let what = if b.all { "every file's vectors".to_string() } else { format!("the vectors of {} files", b.paths.len()) };
                eprintln!("git-rag: warning: the vector store could not be written ({}); keyword, symbol and graph search are at this commit, {what} are not; the next `git rag index` that reaches it catches up", b.reason);
            }
            if let Some(e) = r.syntax_errors.as_ref().filter(|_| !quiet) {
                let worst = e.worst.first().map(|f| format!("; most: {} ({} of {} lines)", f.path, f.error_lines, f.lines)).unwrap_or_default();
                eprintln!(
                    "git-rag: {} files had syntax errors: {:.1}% of their lines were analysed as code, the rest is searched as text{worst} (`git rag status` lists them)",
                    e.files,
                    100.0 * e.analysed_share
                );
            }
            outln!(
                "indexed {} ({}): {} files indexed, {} deleted, {} renamed; {} files, {} chunks, {} symbols in the index; {:.0} ms; {}",
                short(&r.commit),
                if r.full { "full" } else { "incremental" },
                r.files_indexed,
                r.files_deleted,
                r.renamed,
                r.files_total,
                r.chunks_total,
                r.symbols_total,
                r.took_ms,
                match &r.semantic {
                    Some(s) if ws.shared_cache.is_some() => format!(
                        "embedded {}, reused {}, borrowed {} from the team's cache{}",
                        r.embedded,
                        r.reused,
                        r.borrowed,
                        if s.shared > 0 { format!(", shared {}", s.shared) } else { String::new() }
                    ),
                    Some(s) if s.from_worktree > 0 =>
                        format!("embedded {}, reused {}, {} embedded earlier by queries of the work tree", r.embedded, r.reused, s.from_worktree),
                    Some(_) => format!("embedded {}, reused {}", r.embedded, r.reused),
                    None => "embedded 0, reused 0 (semantic layer off)".to_string(),
                }
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `git rag index --ci`: the server's collections only, the state kept in the server.
pub fn run_ci(ws: &Workspace, full: bool, rev: Option<String>, json: bool, quiet: bool) -> Result<ExitCode> {
    // `rag.vectorCache server` makes the server a cache for local runs; CI writes it.
    let server = match (&ws.backend, &ws.shared_cache) {
        (Backend::Server(server), _) => Some(server),
        (_, Some(cache)) => Some(&cache.server),
        _ => None,
    };
    let Some(server) = server else {
        anyhow::bail!("--ci keeps the index in a Qdrant server: give --qdrant-url URL (or QDRANT_URL, or git config rag.qdrantUrl)");
    };
    let opts = CiOptions { rev, full, chunk: ws.chunk, server: server.clone(), model: ws.model.clone(), embed: Default::default(), paths: ws.paths.clone() };
    let report = git_rag::index_ci(&ws.repo, &opts, &Terminal::new(quiet))?;
    if !report.pending.is_empty() {
        // Said even with --quiet: these files are missing from the server's index.
        eprintln!("git-rag: {} files could not be read and are not indexed; the next run tries them again:", report.pending.len());
        for (path, reason) in report.pending.iter().take(20) {
            eprintln!("  {path}: {reason}");
        }
    }
    if json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else if report.up_to_date {
        outln!("{} already at {}; embedded 0, reused 0", report.prefix, short(&report.commit));
    } else {
        outln!(
            "indexed {} into {} ({}): {} files indexed, {} deleted; {} files; embedded {}, reused {}; {:.0} ms",
            short(&report.commit),
            report.prefix,
            if report.full { "full" } else { "incremental" },
            report.files_indexed,
            report.files_deleted,
            report.files_total,
            report.embedded,
            report.reused,
            report.took_ms
        );
    }
    Ok(ExitCode::SUCCESS)
}
