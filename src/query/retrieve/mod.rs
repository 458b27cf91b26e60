//! The retrievers: each finds ranked candidates for a question in one way
//! (BM25 over chunks, literals as written, symbol names, vectors, project
//! patterns). A place to search ([`Source`], implemented in
//! `crate::query::sources`) runs them over what it holds; the ranking stage
//! (`crate::query::rank`) decides which run and fuses their lists.
//!
//! Invariant: sources differ in how a retriever finds its candidates, never
//! in what is made of them.

pub mod bm25;
pub mod dense;
pub mod history;
pub mod keyword;
pub mod literals;
pub mod paths;
pub mod patterns;
pub mod symbols;

use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::graph::Neighbourhood;
use crate::query::answer::{Hit, Response, Result, SearchResult, Timings, Unavailable};
use crate::query::options::{Mode, PathFilter, QueryOptions};
use crate::query::question::intent::GraphAsk;
use crate::query::question::mentions::Mentions;
use crate::query::question::Question;
use crate::stores::keyword::{FileTerms, KeywordIndex};

/// Keyword or symbol mode alone: that retriever's list from the keyword index.
pub fn search(index: &KeywordIndex, q: &Question, opts: &QueryOptions) -> SearchResult<Response> {
    let started = Instant::now();
    let paths = PathFilter::new(opts)?;
    let (chunk_reader, symbol_reader) = index.readers()?;
    let chunks = chunk_reader.searcher();
    let results = match opts.mode {
        Mode::Keyword | Mode::Semantic | Mode::Hybrid | Mode::Graph => bm25::keyword_search(index, &chunks, q, opts, &paths, true)?,
        Mode::Symbol => symbols::symbol_search(index, &symbol_reader.searcher(), &q.words, opts, &paths, None)?,
    };
    Ok(Response { query: q.asked.clone(), took_ms: crate::progress::millis(started), results })
}

/// What the shared stage asks of a source beyond its candidate lists.
pub trait Chunks {
    /// Reads the content of the hits that came without it.
    fn fill_content(&self, hits: &mut [Hit]) -> SearchResult<()>;
    /// The outline of a file the query names that no retriever found, if the
    /// source has one.
    fn file_hit(&self, path: &str) -> SearchResult<Option<Hit>>;
    /// The definition enclosing a hit (for `--expand-parent`), if the source knows it.
    fn parent(&self, hit: &Hit) -> SearchResult<Option<Hit>>;
    /// For each of `paths`, how often the file's chunks hold each of `terms`
    /// (as the keyword index analyses them), and how rare each term is;
    /// `None` from a source without an index of every chunk's words.
    fn file_terms(&self, paths: &[&str], terms: &[String]) -> SearchResult<Option<FileTerms>>;
    /// Every path the source holds an index of.
    fn paths(&self) -> Box<dyn Iterator<Item = &str> + '_>;
}

/// The dense retriever's answer: chunk hits, the patterns nearest in
/// meaning (when asked), timings; or why it could not answer.
pub type DenseOutcome = std::result::Result<(Vec<Hit>, Vec<Hit>, Timings), Unavailable>;

/// A dense search under way (on its own thread) or already answered.
pub enum Dense {
    Running(Receiver<DenseOutcome>),
    Done(DenseOutcome),
}

impl Dense {
    /// Its answer, waiting at most `timeout` (`None`: as long as it takes).
    pub fn wait(self, timeout: Option<Duration>) -> DenseOutcome {
        let rx = match self {
            Dense::Done(outcome) => return outcome,
            Dense::Running(rx) => rx,
        };
        match timeout {
            None => rx.recv().map_err(|_| Unavailable::Gone)?,
            Some(left) => match rx.recv_timeout(left) {
                Ok(outcome) => outcome,
                Err(RecvTimeoutError::Timeout) => Err(Unavailable::TimedOut(left.as_secs_f64())),
                Err(RecvTimeoutError::Disconnected) => Err(Unavailable::Gone),
            },
        }
    }
}

/// How a graph question is walked.
#[derive(Debug, Clone, Copy)]
pub struct Walk {
    /// No relation asked: callers and callees both.
    pub neighbours: bool,
    /// The subject itself among the results (graph mode); hybrid gets it
    /// from the other retrievers.
    pub with_subject: bool,
    pub depth: usize,
}

/// What a source's retrievers find. Each list is best first, `opts.limit`
/// long at most; a source leaves out the paths `opts.hide` names.
pub trait Source: Chunks {
    /// Paths whose chunks the source leaves out of every list (the work
    /// tree holds another version of them, or none).
    fn hidden(&self) -> std::sync::Arc<std::collections::BTreeSet<String>>;
    /// The files a question names (a path, a stack frame) among the source's.
    fn mentions(&self, q: &Question) -> Mentions;
    /// Keyword or symbol mode alone: that retriever's own list.
    fn single(&self, q: &Question, opts: &QueryOptions) -> Result<Vec<Hit>>;
    /// Hybrid's BM25 list.
    fn bm25(&self, q: &Question, opts: &QueryOptions) -> Result<Vec<Hit>>;
    /// Hybrid's name list: definitions whose name the question says.
    fn names(&self, q: &Question, mentions: &Mentions, opts: &QueryOptions) -> Result<Vec<Hit>>;
    /// Chunks holding a literal of the question as written.
    fn literals(&self, q: &Question, opts: &QueryOptions) -> Result<Vec<Hit>>;
    /// What a graph question relates its subject to, and the subjects' names.
    fn related(&self, q: &Question, ask: &GraphAsk, walk: Walk, opts: &QueryOptions) -> std::result::Result<(Vec<Hit>, Vec<String>), Unavailable>;
    /// What the candidates `seeds` call, most called first (unavailable
    /// from a source without the resolved call graph).
    fn callees(&self, seeds: &[Hit], opts: &QueryOptions) -> std::result::Result<Vec<Hit>, Unavailable>;
    /// Whether a dense retriever can run: `Err(Some(why))` to report it
    /// missing, `Err(None)` when it is off by the user's choice.
    fn dense_ready(&self) -> std::result::Result<(), Option<String>>;
    /// Starts the dense retriever (and the patterns nearest in meaning when
    /// `patterns`), to run beside the others.
    fn start_dense(&self, q: &Question, opts: &QueryOptions, patterns: bool) -> Dense;
    /// Conventions whose description shares the question's words (without vectors).
    fn patterns_by_words(&self, q: &Question, limit: usize) -> Result<Vec<Hit>>;
    /// The index whose history store holds the repository's past commits
    /// ([`history::similar_commits`]); `None` from a source without one.
    fn history_index(&self) -> Option<&std::path::Path>;
}

/// What the context assembler reads besides the answer, from the answer's source.
pub trait Texts {
    /// The text of `path` as the source holds it (the indexed blob, or the
    /// work tree's file where the layer holds it): every citation is verbatim.
    fn file_text(&self, path: &str) -> Option<String>;
    /// A question's view of the code graph (the definitions code relies on,
    /// each file's neighbours), if the source has one.
    fn graph(&self) -> Option<Result<Neighbourhood<'_>>>;
    /// The project's conventions that match the query (or the most common
    /// ones), each with its note; a hit's content is the example's text.
    fn conventions(&self, query: &str) -> Result<Vec<(Hit, String)>>;
}
