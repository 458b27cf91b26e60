//! `git rag ask`: the library retrieves, asks the configured chat endpoint
//! and checks the citations; this streams the answer to stdout as it
//! arrives, then lists the sources it cites.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use git_rag::{AskRequest, Workspace};

use crate::output::outln;

pub fn run(ws: &Workspace, request: &AskRequest, json: bool, wait: Duration) -> Result<ExitCode> {
    // Before the index is opened: a missing endpoint is the first thing to fix.
    let client = git_rag::ask::client(ws.chat.as_ref())?;
    let Some(state) = git_rag::indexed_state(&ws.index_dir)? else {
        anyhow::bail!("there is no index yet at {}; run `git rag index` first", ws.index_dir.display());
    };
    for notice in git_rag::index_notices(&ws.repo, &state) {
        eprintln!("git-rag: {notice}");
    }
    let setup = git_rag::SemanticSetup { backend: ws.backend.clone(), model: ws.model.clone(), wait, one_shot: true };
    let engine = Arc::new(git_rag::open_engine(&ws.index_dir, state, Some(setup))?);
    let mut stdout = std::io::stdout();
    let mut stream = |piece: &str| -> std::io::Result<()> {
        if json {
            return Ok(());
        }
        stdout.write_all(piece.as_bytes())?;
        stdout.flush()
    };
    let asked = git_rag::ask::ask(&engine, &ws.repo, &ws.reranker, &client, request, &mut stream)?;
    for n in &asked.unknown_citations {
        eprintln!("git-rag: warning: the answer cites [{n}], which is none of the {} sources it was given; it is not listed", asked.sources);
    }
    if json {
        outln!("{}", serde_json::to_string(&asked)?);
        return Ok(ExitCode::SUCCESS);
    }
    if !asked.answer.ends_with('\n') {
        outln!();
    }
    outln!();
    if asked.citations.is_empty() {
        eprintln!("git-rag: the answer cites none of the {} sources it was given (`git rag query --context` shows them)", asked.sources);
    } else {
        outln!("Sources:");
        for c in &asked.citations {
            match &c.symbol {
                Some(s) => outln!("[{}] {}  {s}", c.n, c.citation),
                None => outln!("[{}] {}", c.n, c.citation),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
