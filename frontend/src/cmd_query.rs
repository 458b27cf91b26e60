//! `git rag query`: open the index (or, without one, the server's
//! collections), answer through the library's one query entry point, render.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::output::{out, outln};
use anyhow::Result;
use git_rag::{short, Backend, Explanation, FileHit, Hit, QueryOutput, QueryRequest, QueryServer, QueryTarget, Workspace};

pub fn run(ws: &Workspace, request: &QueryRequest, json: bool, wait: Duration) -> Result<ExitCode> {
    let opening = Instant::now();
    // Git's status of the work tree runs while the index opens.
    let comparing = request.worktree.as_ref().and_then(|_| git_rag::compare_worktree_early(&ws.repo, &ws.index_dir));
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
    if let Some(comparison) = comparing {
        engine.comparing(comparison);
    }
    let open_ms = opening.elapsed().as_secs_f64() * 1000.0;
    let outcome = git_rag::query(QueryTarget::Local(&engine), &ws.repo, &ws.reranker, request)?;
    render(outcome, json, Some(open_ms))
}

/// The notices on stderr, the answer or context on stdout. `open_ms`: what
/// opening the local index took before the search.
fn render(outcome: git_rag::QueryOutcome, json: bool, open_ms: Option<f64>) -> Result<ExitCode> {
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
            if let Some(ms) = open_ms {
                answer.timings.insert("index_open", ms);
            }
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
    let source = QueryServer::connect(server, &ws.model)?;
    eprintln!(
        "git-rag: no local index: answering from {} at {} (the server's BM25, names and vectors; `git rag index` adds the call graph)",
        server.prefix,
        source.index().commit.as_deref().map(short).unwrap_or("?")
    );
    let outcome = git_rag::query(QueryTarget::Server(&source), &ws.repo, &ws.reranker, request)?;
    render(outcome, json, None)
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
        if let Some(e) = &hit.explain {
            print_explanation(e, "    ")?;
        }
    }
    print_legend(hits)
}

/// What each feature an explanation names measures, once, after the results.
fn print_legend(hits: &[Hit]) -> Result<()> {
    fn names<'e>(e: &'e Explanation, into: &mut std::collections::BTreeSet<&'e str>) {
        into.extend(e.contributions.iter().map(|c| c.name.as_str()));
        if let Some(fused) = &e.fused {
            names(fused, into);
        }
    }
    let mut named = std::collections::BTreeSet::new();
    for e in hits.iter().filter_map(|h| h.explain.as_deref()) {
        names(e, &mut named);
    }
    let features: Vec<(&str, &str)> = named.into_iter().filter_map(|n| git_rag::feature_meaning(n).map(|m| (n, m))).collect();
    if !features.is_empty() {
        outln!("\nfeatures:");
        for (name, meaning) in features {
            outln!("  {name}: {meaning}");
        }
    }
    Ok(())
}

/// A result's explanation: the score it was ordered by, then each term,
/// largest first; the fused score a stage score read, the same way below it.
fn print_explanation(e: &Explanation, indent: &str) -> Result<()> {
    let by = match e.ranked_by {
        git_rag::RankedBy::Retriever => "its retriever's score",
        git_rag::RankedBy::Fusion => "fusion",
        git_rag::RankedBy::Stage => "the ranking stage",
        git_rag::RankedBy::Structure => "the question's structure (kept where fusion put it)",
    };
    outln!(
        "{indent}= {:.4}, ranked by {by}{}",
        e.score,
        if e.moved.is_empty() { String::new() } else { format!("; moved by {}", e.moved.iter().map(|m| format!("{m:?}")).collect::<Vec<_>>().join(", ")) }
    );
    let mut terms: Vec<&git_rag::Contribution> = e.contributions.iter().collect();
    terms.sort_by(|a, b| b.contribution.abs().total_cmp(&a.contribution.abs()));
    for c in terms {
        let rank = c.rank.map(|r| format!(" #{r}")).unwrap_or_default();
        match c.weight {
            Some(weight) => outln!("{indent}  {:+.4}  {}{rank}: {:.4} × {:.3}", c.contribution, c.name, c.value, weight),
            None => outln!("{indent}  {:+.4}  {}{rank}: {:.4}", c.contribution, c.name, c.value),
        }
    }
    if let Some(h) = &e.history {
        // Not a term of the score: it placed the file among the others.
        outln!(
            "{indent}  history of the file: {:.3} × {} (past commits like the question changed it; placed the file, not in the score)",
            h.value,
            h.weight.unwrap_or_default()
        );
    }
    if let Some(fused) = &e.fused {
        outln!("{indent}  score, the fused score over the best one's, from:");
        print_explanation(fused, &format!("{indent}    "))?;
    }
    Ok(())
}
