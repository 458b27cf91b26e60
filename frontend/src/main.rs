//! `git-rag`: the command line. It parses flags, resolves the settings once,
//! calls the library and renders: results on stdout, progress and warnings
//! on stderr. The MCP server (`serve --mcp`) and the hooks runner are
//! frontends beside it.

mod args;
mod cmd_ask;
mod cmd_history;
mod cmd_hooks;
mod cmd_impact;
mod cmd_index;
mod cmd_inspect;
mod cmd_man;
mod cmd_mcp;
mod cmd_model;
mod cmd_query;
mod failure;
mod http;
mod mcp;
mod output;
mod pages;
mod progress;

use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;
use clap::Parser;

use args::{Cli, Command};
use git_rag::{Overrides, Workspace};
use output::outln;

/// mimalloc: an index run allocates and frees millions of small strings
/// (parsed symbols, facts, graph keys); glibc's allocator spent a fifth of a
/// one-file run in malloc, free and page faults.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    quiet_caught_panics();
    let cli = Cli::parse();
    let json = cli.command.wants_json();
    let code = match run(cli) {
        Ok(code) => code,
        // The reader went away (`git rag query … | head -1`): nothing to say.
        Err(e) if output::is_broken_pipe(&e) => ExitCode::from(output::BROKEN_PIPE_STATUS),
        Err(e) => {
            eprintln!("git-rag: error: {}", failure::line(&e));
            if json {
                let _ = output::write(format_args!("{}\n", failure::json(&e)));
            }
            ExitCode::FAILURE
        }
    };
    exit_without_destructors(code)
}

/// Ends the process without the C library's exit handlers. A thread left
/// behind on purpose (the MCP server's warm-up, a dense search past its
/// deadline) may still be inside ONNX Runtime, and libonnxruntime's static
/// destructors, which `exit` runs, crash under it: SIGSEGV after the
/// answer was written (seen 6 times in 45 `serve --mcp` runs on a loaded
/// machine). Everything `run` owned is dropped by now; only the standard
/// streams need flushing.
fn exit_without_destructors(code: ExitCode) -> ! {
    use std::io::Write;
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    // `ExitCode` does not give its number back; it compares equal to the `u8` it was made from.
    let status = (0..=u8::MAX).find(|&c| ExitCode::from(c) == code).map_or(1, i32::from);
    // SAFETY: `_exit` only ends the process; no Rust state is used after it.
    unsafe { libc::_exit(status) }
}

/// A store's reader panicking on damaged bytes is caught by the library and
/// reported as one error line ("… is damaged; run `git rag index` …"):
/// the default hook's message and backtrace would only bury it.
fn quiet_caught_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !git_rag::panic_is_caught() {
            default(info);
        }
    }));
}

/// Seconds from a flag, never negative.
fn secs(s: f64) -> Duration {
    Duration::from_secs_f64(s.max(0.0))
}

fn run(cli: Cli) -> Result<ExitCode> {
    let overrides = Overrides { directory: cli.directory, index_dir: cli.index_dir, qdrant_url: cli.qdrant_url, branch: cli.branch };
    // Model commands work outside a repository.
    if let Command::Model { action } = &cli.command {
        return cmd_model::run(action, &overrides);
    }
    if let Command::Man { dir } = &cli.command {
        return cmd_man::run(dir.as_deref());
    }
    let ws = Workspace::discover(&overrides)?;
    match cli.command {
        Command::Index { ci: true, full, rev, json, quiet, .. } => cmd_index::run_ci(&ws, full, rev, json, quiet),
        Command::Index { full, rev, wait, json, quiet, no_semantic, ci: false, share_vectors } => {
            let mut opts = ws.index_options(secs(wait));
            opts.full = full;
            opts.rev = rev;
            opts.semantic.enabled &= !no_semantic;
            if share_vectors {
                let Some(shared) = &mut opts.semantic.shared_cache else {
                    anyhow::bail!("--share-vectors writes to the team's vector cache: set `git config rag.vectorCache server` and a server (`rag.qdrantUrl` or QDRANT_URL)");
                };
                shared.write_back = true;
            }
            cmd_index::run(&ws, &opts, json, quiet)
        }
        Command::Query {
            text,
            mode,
            limit,
            scope,
            min_score,
            kind,
            json,
            wait,
            timeout,
            window,
            diversity,
            expand,
            depth,
            relation,
            rerank,
            files,
            context,
            budget,
            at_commit,
            explain,
            explain_features,
        } => {
            let query = git_rag::QueryOptions {
                lang: scope.lang,
                path: scope.path,
                exclude: scope.exclude,
                kind,
                min_score,
                ..git_rag::QueryOptions::new(mode.into(), limit.max(1))
            };
            let mut search = git_rag::HybridOptions::new(query);
            search.window = window.max(1);
            search.diversity = diversity;
            search.expand_parent = expand.is_some();
            search.depth = depth.max(1);
            search.relation = relation.map(Into::into);
            search.timeout = Duration::from_secs_f64(timeout.max(0.1));
            search.files = files;
            search.explain = explain;
            search.explain_features = explain_features;
            let worktree = (!at_commit).then(|| ws.layer_options());
            let request = git_rag::QueryRequest { text, search, rerank, context_budget: context.then_some(budget), worktree };
            cmd_query::run(&ws, &request, json, secs(wait))
        }
        Command::Ask { question, budget, scope, json, wait, at_commit } => {
            let query =
                git_rag::QueryOptions { lang: scope.lang, path: scope.path, exclude: scope.exclude, ..git_rag::QueryOptions::new(git_rag::Mode::Hybrid, 10) };
            let request = git_rag::AskRequest {
                question,
                search: git_rag::HybridOptions::new(query),
                budget: budget.max(100),
                worktree: (!at_commit).then(|| ws.layer_options()),
            };
            cmd_ask::run(&ws, &request, json, secs(wait))
        }
        Command::Impact { rev, staged, depth, limit, json, context, budget, quiet, message } => {
            let target = git_rag::ImpactTarget::parse(rev.as_deref(), staged)?;
            let request = git_rag::ImpactRequest {
                target,
                depth: depth.max(1),
                limit: limit.max(1),
                context_budget: context.then_some(budget),
                message,
                layer: ws.layer_options(),
            };
            cmd_impact::run(&ws, &request, json, quiet)
        }
        Command::History { question, limit, path, since, until, symbol, json, context, budget } => {
            let request = git_rag::HistoryRequest { question, limit, path, since, until, symbol, context_budget: context.then_some(budget) };
            cmd_history::run(&ws, &request, json)
        }
        Command::Status { json, verify } => cmd_inspect::status(&ws, json, verify),
        Command::Serve { mcp, http, max_in_flight, wait, timeout, lazy } => {
            if !mcp && http.is_none() {
                anyhow::bail!("say which protocol to serve: `git rag serve --mcp` (stdio) or `git rag serve --http [ADDR]`");
            }
            let opts = mcp::ServeOptions {
                index_dir: ws.index_dir.clone(),
                semantic: ws.semantic_setup(secs(wait), false),
                index: ws.index_options(Duration::from_secs(30)),
                timeout: Duration::from_secs_f64(timeout.max(0.1)),
            };
            let index_dir = ws.index_dir.clone();
            let http_settings = (ws.http_token.clone(), ws.http_allow_origins.clone());
            let server = mcp::Server::new(ws, opts);
            if !lazy {
                server.warm_in_background();
            }
            if let Some(addr) = http {
                let (token, allow_origins) = http_settings;
                let opts = http::HttpOptions { addr, token, allow_origins, max_in_flight, timeout: Duration::from_secs(60), max_body: 1 << 20 };
                http::serve(server, opts)?;
                return Ok(ExitCode::SUCCESS);
            }
            eprintln!("git-rag: MCP server ready on stdio (index {})", index_dir.display());
            server.serve(std::io::stdin().lock(), std::io::stdout().lock()).map_err(|e| anyhow::Error::new(e).context("MCP over stdio failed"))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Hooks { action } => cmd_hooks::run(&ws, action),
        Command::Gc { yes, json } => cmd_inspect::gc(&ws, yes, json),
        Command::DumpVectors => {
            outln!("{}", serde_json::to_string_pretty(&git_rag::dump_vectors(&ws.index_dir, &ws.backend)?)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::DumpGraph => {
            for line in git_rag::dump_graph(&ws.index_dir)? {
                outln!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::DumpState => {
            outln!("{}", serde_json::to_string_pretty(&git_rag::dump_state(&ws.index_dir)?)?);
            Ok(ExitCode::SUCCESS)
        }
        Command::Patterns { json } => cmd_inspect::patterns(&ws, json),
        Command::Mcp { action } => cmd_mcp::run(&ws, action),
        Command::Model { .. } | Command::Man { .. } => unreachable!("handled above"),
    }
}
