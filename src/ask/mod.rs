//! `git rag ask`: retrieve, assemble the context, ask the user's LLM, cite.
//! A question about the past (when, why, what changed) also gets the commits
//! that answer it (`git rag history`'s digest), within the same budget.
//!
//! The context's pieces go to the model as numbered sources `[1]`…`[n]`,
//! each headed by `path:start-end`; the model is told to cite them by
//! number. Every `[n]` the answer writes is checked against the sources
//! given: a known one becomes a citation with its exact lines, an unknown one
//! is reported as such and never shown as a source.

pub mod chat;
mod citations;

use std::sync::Arc;

use crate::git::Repo;
use crate::query::context::{count_tokens, Placed};
use crate::query::options::HybridOptions;
use crate::query::sources::engine::Engine;
use crate::query::{Output, QueryError, Request};
use crate::semantic::rerank::RerankerSource;
pub use chat::{ChatClient, ChatError, ChatOptions, Message};

#[derive(Debug, thiserror::Error)]
pub enum AskError {
    #[error("no chat endpoint is configured: set `git config rag.chat.url` (Ollama: http://localhost:11434/v1) and `git config rag.chat.model` (e.g. qwen2.5-coder:7b); a key, if the endpoint wants one, goes in GIT_RAG_CHAT_API_KEY")]
    NotConfigured,
    #[error("no chat model is named: set `git config rag.chat.model` (the endpoint is {url})")]
    NoModel { url: String },
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error("the index holds nothing that matches the question; no model was asked")]
    NoContext,
    #[error("{0}; `git rag query --context` gives the same context without a model")]
    Chat(#[from] ChatError),
}

/// A question and how to gather its context.
#[derive(Debug, Clone)]
pub struct AskRequest {
    pub question: String,
    pub search: HybridOptions,
    /// Tokens of context (cl100k) given to the model.
    pub budget: usize,
    /// Read the work tree laid over the index (`None`: the indexed commit
    /// alone); citations then name the lines of the files as they are now.
    pub worktree: Option<crate::worktree::LayerOptions>,
}

/// A source the answer cites: a piece of the context, by its number.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Citation {
    pub n: usize,
    /// `path:start-end`, exactly the lines the model was shown.
    pub citation: String,
    pub path: String,
    pub start_line: usize,
    pub end_line: usize,
    pub symbol: Option<String>,
}

/// An answer and its sources.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Asked {
    pub answer: String,
    /// The sources the answer cites, in the order it first cites them.
    pub citations: Vec<Citation>,
    /// Numbers the answer writes as citations that name no source it was given.
    pub unknown_citations: Vec<usize>,
    /// How many sources the model was given.
    pub sources: usize,
    /// Commits the model was shown beside them (a question about the past).
    pub history_commits: usize,
    /// Tokens (cl100k) of what the model was sent.
    pub context_tokens: usize,
    pub model: String,
}

/// What the model is told to do with the sources.
const INSTRUCTIONS: &str = "You answer questions about a code repository. Use only the numbered sources the user gives: \
each is a piece of the repository headed by its path and lines. Cite the sources every statement rests on by their \
numbers in square brackets, like [2] or [1][3]. If the sources do not answer the question, say so instead of guessing.";

/// Checks the settings: the endpoint `rag.chat.*` names, or why there is none.
pub fn client(chat: Option<&ChatOptions>) -> Result<ChatClient, AskError> {
    let opts = chat.ok_or(AskError::NotConfigured)?;
    if opts.model.trim().is_empty() {
        return Err(AskError::NoModel { url: opts.endpoint() });
    }
    Ok(ChatClient::new(opts.clone()))
}

/// Answers `req` from the index: its context, then the model's answer
/// streamed into `sink`, then the citations checked.
pub fn ask(
    engine: &Arc<Engine>,
    repo: &Repo,
    reranker: &RerankerSource,
    client: &ChatClient,
    req: &AskRequest,
    sink: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> Result<Asked, AskError> {
    let history = history_block(engine.dir(), req);
    let history_tokens = history.as_ref().map_or(0, |(text, _)| count_tokens(text));
    let code_budget = req.budget.saturating_sub(history_tokens);
    let query =
        Request { text: req.question.clone(), search: req.search.clone(), rerank: false, context_budget: Some(code_budget), worktree: req.worktree.clone() };
    let outcome = crate::query::run(crate::query::Target::Local(engine), repo, reranker, &query)?;
    let Output::Context(context) = outcome.output else { unreachable!("a request with a context budget is answered with a context") };
    if context.pieces.is_empty() {
        return Err(AskError::NoContext);
    }
    let messages = messages(&req.question, &context.pieces, history.as_ref().map(|(text, _)| text.as_str()));
    let context_tokens = messages.iter().map(|m| count_tokens(&m.content)).sum();
    let answer = client.complete(&messages, sink)?;
    let (cited, unknown_citations) = citations::check(&answer, context.pieces.len());
    let citations = cited
        .into_iter()
        .map(|n| {
            let p = &context.pieces[n - 1];
            Citation { n, citation: p.citation.clone(), path: p.path.clone(), start_line: p.start_line, end_line: p.end_line, symbol: p.symbol.clone() }
        })
        .collect();
    Ok(Asked {
        answer,
        citations,
        unknown_citations,
        sources: context.pieces.len(),
        history_commits: history.map_or(0, |(_, n)| n),
        context_tokens,
        model: client.options().model.clone(),
    })
}

/// Of a question about the past, the most commits the model is shown, and
/// the part of the budget they may take: the code stays the main evidence.
const HISTORY_COMMITS: usize = 5;
const HISTORY_BUDGET_SHARE: usize = 4;

/// For a question about the past (`asks_about_the_past`), the digest of the
/// commits that answer it and how many it holds; `None` for another
/// question, a repository without a history store, or no commit matching.
fn history_block(index_dir: &std::path::Path, req: &AskRequest) -> Option<(String, usize)> {
    if !crate::query::question::intent::asks_about_the_past(&req.question) {
        return None;
    }
    let request = crate::query::history::HistoryRequest {
        question: req.question.clone(),
        limit: HISTORY_COMMITS,
        context_budget: Some(req.budget / HISTORY_BUDGET_SHARE),
        ..Default::default()
    };
    let answer = crate::query::history::run(index_dir, &request).ok()?;
    let digest = answer.context.filter(|d| d.contains("\n## "))?;
    let shown = digest.matches("\n## ").count();
    Some((digest, shown))
}

/// The conversation: the instructions, then the question and the numbered sources.
fn messages(question: &str, pieces: &[Placed], history: Option<&str>) -> Vec<Message> {
    let mut user = format!("Question: {question}\n\nSources:\n");
    for (i, p) in pieces.iter().enumerate() {
        let symbol = p.symbol.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
        let fence = fence_for(&p.content);
        user.push_str(&format!("\n[{}] {}{symbol}\n{fence}\n{}\n{fence}\n", i + 1, p.citation, p.content));
    }
    if let Some(history) = history {
        user.push_str("\nThe repository's history: the commits that may say when or why (not numbered sources; name a commit by its id):\n\n");
        user.push_str(history.trim_end());
        user.push('\n');
    }
    user.push_str("\nAnswer the question from these sources, citing them by number.");
    vec![Message { role: "system", content: INSTRUCTIONS.to_string() }, Message { role: "user", content: user }]
}

/// A code fence longer than any run of backticks in `content`.
fn fence_for(content: &str) -> String {
    let longest = content.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    "`".repeat(longest.max(2) + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_outlast_the_backticks_inside() {
        assert_eq!(fence_for("plain"), "```");
        assert_eq!(fence_for("a ```` b"), "`````");
    }
}
