//! `git rag query`: open the index (or, without one, the server's
//! collections), answer through the library's one query entry point, render.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Result;
use git_rag::{server_query, Backend, short, FileHit, Hit, QueryOutput, QueryRequest, Workspace};
use crate::output::{out, outln};

pub fn run(ws: &Workspace, request: &QueryRequest, json: bool, wait: Duration) -> Result<ExitCode> {
    let opening = Instant::now();
    let Some(state) = git_rag::indexed_state(&ws.index_dir)? else {
        if let Backend::Server(server) = &ws.backend {
            // No local index: what CI built in the server (`git rag index --ci`).
            return run_server_only(ws, server, request, json);
        }
        anyhow::bail!("there is no index yet at {}; run `git rag index` first", ws.index_dir.display());
    };
    for notice in git_rag::index_notices(&ws.repo, &state) {
        eprintln!("git-rag: {notice}");
    }
    let setup = git_rag::SemanticSetup { backend: ws.backend.clone(), model: ws.model.clone(), wait, one_shot: true };
    // Not dropped: the process exits after this answer, and freeing a big
    // repository's graph and state (millions of allocations) cost ~10% of a
    // graph query on `large`.
    let engine = std::mem::ManuallyDrop::new(Arc::new(git_rag::open_engine(&ws.index_dir, state, Some(setup))?));
    let open_ms = opening.elapsed().as_secs_f64() * 1000.0;
    let outcome = git_rag::query(&engine, &ws.repo, &ws.reranker, request)?;
    for notice in &outcome.notices {
        eprintln!("git-rag: {notice}");
    }
    match outcome.output {
        QueryOutput::Context(ctx) if json => outln!("{}", serde_json::to_string(&ctx)?),
        QueryOutput::Context(ctx) => {
            out!("{}", ctx.markdown);
            if !ctx.markdown.ends_with('\n') {
                outln!();
            }
        }
        QueryOutput::Answer(mut answer) => {
            // Reading the state and opening the keyword index happen before the search.
            answer.timings.insert("index_open", open_ms);
            if json {
                outln!("{}", serde_json::to_string(&answer)?);
                return Ok(ExitCode::SUCCESS);
            }
            if !answer.subjects.is_empty() {
                eprintln!("git-rag: about {}", answer.subjects.join(", "));
            }
            match &answer.files {
                Some(files) => print_files(files)?,
                None => print_hits(&answer.response.results, 3)?,
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A query answered from a Qdrant server's collections alone.
fn run_server_only(ws: &Workspace, server: &git_rag::ServerOptions, request: &QueryRequest, json: bool) -> Result<ExitCode> {
    server_query::check_supported(request.search.query.mode)?;
    let (store, index) = server_query::connect(server, &ws.model)?;
    eprintln!(
        "git-rag: no local index: answering from {} at {} (the server's BM25, names and vectors; `git rag index` adds the call graph)",
        server.prefix,
        index.commit.as_deref().map(short).unwrap_or("?")
    );
    let answer = server_query::search(&store, &index.paths(), &request.text, &request.search, &ws.model)?;
    if let Some(budget) = request.context_budget {
        let ctx = server_query::context(&store, &index, &ws.repo, &answer.response, budget)?;
        if json {
            outln!("{}", serde_json::to_string(&ctx)?);
        } else {
            out!("{}", ctx.markdown);
            if !ctx.markdown.ends_with('\n') {
                outln!();
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if json {
        outln!("{}", serde_json::to_string(&answer)?);
        return Ok(ExitCode::SUCCESS);
    }
    match &answer.files {
        Some(files) => print_files(files)?,
        None => print_hits(&answer.response.results, 0)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per file, then its best chunks.
fn print_files(files: &[FileHit]) -> Result<()> {
    if files.is_empty() {
        eprintln!("git-rag: no results");
    }
    for f in files {
        outln!("{}  [{:.3}{}]", f.path, f.score, if f.mentioned { ", named in the query" } else { "" });
        for c in &f.chunks {
            outln!("    {}-{}  {}  [{}]", c.start_line, c.end_line, c.symbol.as_deref().unwrap_or("-"), c.kind);
        }
    }
    Ok(())
}

/// One line per hit, then up to `preview` non-blank lines of its content.
fn print_hits(hits: &[Hit], preview: usize) -> Result<()> {
    if hits.is_empty() {
        eprintln!("git-rag: no results");
    }
    for hit in hits {
        let source = if hit.source == git_rag::Origin::Worktree { ", work tree" } else { "" };
        outln!("{}:{}-{}  {}  [{}, {:.3}{source}]", hit.path, hit.start_line, hit.end_line, hit.symbol.as_deref().unwrap_or("-"), hit.kind, hit.score);
        for line in hit.content.lines().filter(|l| !l.trim().is_empty()).take(preview) {
            let line: String = line.chars().take(120).collect();
            outln!("    {line}");
        }
    }
    Ok(())
}
