//! `git rag hooks …`: install, uninstall, status; the trigger the hook
//! scripts call; and the background runner, which indexes and writes its
//! lines into `hook.log`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use git_rag::hooks::{self, HookRun, HookState};
use git_rag::{short, IndexOutcome, Workspace};

use crate::args::HooksAction;
use crate::output::outln;
use crate::progress::HookLog;

pub fn run(ws: &Workspace, action: HooksAction) -> Result<ExitCode> {
    let (change, json) = match action {
        HooksAction::Run { hook, args } => {
            hooks::trigger(&ws.repo, &ws.index_dir, &hook, &args).with_context(|| format!("{hook} hook: no background index update"))?;
            return Ok(ExitCode::SUCCESS);
        }
        HooksAction::Runner => {
            let root = hooks::repo_root(&ws.repo);
            hooks::run_runner(&ws.index_dir, |requested_by| one_run(&root, ws, requested_by))?;
            return Ok(ExitCode::SUCCESS);
        }
        HooksAction::Status { json } => return status(ws, json),
        HooksAction::Install { json } => (hooks::install(&ws.repo)?, json),
        HooksAction::Uninstall { json } => (hooks::uninstall(&ws.repo)?, json),
    };
    if json {
        outln!("{}", serde_json::to_string_pretty(&change)?);
    } else {
        outln!("hooks dir: {}", change.hooks_dir.display());
        for h in &change.hooks {
            let action = h.action.as_str().replace('_', " ");
            match &h.detail {
                Some(d) => outln!("{:<14} {action}: {d}", h.name),
                None => outln!("{:<14} {action}", h.name),
            }
        }
        if !change.git_rag_on_path && change.hooks.iter().any(|h| h.action.installs()) {
            eprintln!("git-rag: warning: git-rag is not on PATH; the hooks do nothing until it is");
        }
    }
    Ok(if change.has_conflicts() { ExitCode::FAILURE } else { ExitCode::SUCCESS })
}

fn status(ws: &Workspace, json: bool) -> Result<ExitCode> {
    let st = hooks::status(&ws.repo);
    if json {
        outln!("{}", serde_json::to_string_pretty(&st)?);
        return Ok(ExitCode::SUCCESS);
    }
    outln!("hooks dir: {}", st.hooks_dir.display());
    for h in &st.hooks {
        let note = match (h.state, &h.original) {
            (HookState::Chained, Some(o)) => format!(" (runs {} first)", o.display()),
            (HookState::Foreign, _) => " (not git-rag's; `git rag hooks install` keeps it and runs it first)".into(),
            (HookState::Missing, Some(o)) => format!(" (a hook saved by an earlier install is at {})", o.display()),
            _ => String::new(),
        };
        let outdated = if h.outdated { " (outdated: `git rag hooks install` updates it)" } else { "" };
        outln!("{:<14} {}{note}{outdated}", h.name, h.state.as_str());
    }
    if !st.git_rag_on_path {
        outln!("warning: git-rag is not on PATH; the hooks do nothing until it is");
    }
    Ok(ExitCode::SUCCESS)
}

/// One index run to HEAD for the runner, recorded in `hook_state.json` and `hook.log`.
fn one_run(root: &std::path::Path, ws: &Workspace, requested_by: &str) {
    let index_dir = &ws.index_dir;
    let started_at = git_rag::now_secs();
    let t = Instant::now();
    let n = hooks::next_run_number(index_dir);
    // The HEAD this run is for, kept for the record when it fails. The
    // repository is opened again: HEAD moved since the runner started.
    let mut head = None;
    let log = HookLog { index_dir: index_dir.clone() };
    let result = git_rag::git::Repo::discover(root).map_err(anyhow::Error::from).and_then(|repo| {
        head = repo.head_commit().ok().flatten().map(|h| h.to_string());
        Ok(git_rag::index(&repo, index_dir, &ws.index_options(hooks::INDEX_LOCK_WAIT), &log)?)
    });
    let took_ms = t.elapsed().as_secs_f64() * 1000.0;
    let mut run = HookRun { started_at, requested_by: requested_by.to_string(), took_ms, ..HookRun::default() };
    let line = match &result {
        Ok(IndexOutcome::Indexed(r)) => {
            run.commit = Some(r.commit.clone());
            run.outcome = "indexed".into();
            let mode = if r.full { "full" } else { "incremental" };
            format!("indexed {} ({mode}, {} files indexed, {} deleted) in {took_ms:.0} ms", short(&r.commit), r.files_indexed, r.files_deleted)
        }
        Ok(IndexOutcome::UpToDate { commit, .. }) => {
            run.commit = Some(commit.clone());
            run.outcome = "up_to_date".into();
            format!("already at {}", short(commit))
        }
        Ok(IndexOutcome::Empty) => {
            run.outcome = "empty".into();
            "no commits yet".to_string()
        }
        Err(e) => {
            run.outcome = "failed".into();
            run.commit = head;
            run.error = Some(e.to_string());
            format!("failed: {e}")
        }
    };
    hooks::log(index_dir, &format!("run {n} ({requested_by}): {line}"));
    run.finished_at = git_rag::now_secs();
    hooks::record_run(index_dir, run);
}
