//! The history store as a retriever: the past commits most like a
//! question (BM25 of its words in each commit's subject, body, changed
//! lines and paths, [`HISTORY_FIELDS`]), each with the files it changed
//! under today's names. `git rag history` ([`crate::query::history`])
//! answers with them; an issue report's ranking weighs them as evidence
//! ([`crate::query::rank::history`]).

use std::path::Path;

use crate::query::base::parameters::{HISTORY_FIELDS, HISTORY_FILES_SHOWN};
use crate::query::question::words::is_stopword;
use crate::stores::history::{HistoryStore, HistoryStoreError, Search, HISTORY_DIR};
use crate::stores::keyword::analyze;

/// A past commit as evidence of where a question's answer is: how well
/// it matches the question, and the files it changed under today's names.
#[derive(Debug, Clone, PartialEq)]
pub struct PastCommit {
    /// BM25 of the question in the commit, as `git rag history` ranks it.
    pub score: f32,
    /// Its first [`HISTORY_FILES_SHOWN`] files, as `history` shows them.
    pub files: Vec<String>,
    /// How many files it changed in all.
    pub files_changed: usize,
}

/// The `limit` commits of the history store in `index_dir` most like
/// `question`, best first, as `git rag history` finds them; `None` when the
/// index has no history store (one built before it, or `rag.historyDepth 0`).
pub fn similar_commits(index_dir: &Path, question: &str, limit: usize) -> Result<Option<Vec<PastCommit>>, HistoryStoreError> {
    let store = match HistoryStore::open(&index_dir.join(HISTORY_DIR)) {
        Ok(store) => store,
        Err(HistoryStoreError::Missing { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let terms = question_terms(question);
    if terms.is_empty() {
        return Ok(Some(Vec::new()));
    }
    let renames = store.renames()?;
    let search = Search { terms, limit: limit.max(1), ..Search::default() };
    let hits = store.search(&search, HISTORY_FIELDS)?;
    Ok(Some(
        hits.into_iter()
            .map(|(score, doc)| PastCommit {
                score,
                files: doc.paths.iter().take(HISTORY_FILES_SHOWN).map(|p| today(p, doc.seq, &renames)).collect(),
                files_changed: doc.paths.len(),
            })
            .collect(),
    ))
}

/// The question's words as the store holds them, stop words left out.
pub fn question_terms(question: &str) -> Vec<String> {
    let kept: Vec<&str> = question.split_whitespace().filter(|w| !is_stopword(&w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())).collect();
    let mut terms: Vec<String> = Vec::new();
    for t in analyze(&kept.join(" ")) {
        if !terms.contains(&t) {
            terms.push(t);
        }
    }
    terms
}

/// `path` as a commit at `seq` named it, under its name today (renames: newest first).
pub fn today(path: &str, seq: u64, renames: &[(u64, String, String)]) -> String {
    let mut name = path.to_string();
    for (_, from, to) in renames.iter().rev().filter(|(s, _, _)| *s > seq) {
        if *from == name {
            name = to.clone();
        }
    }
    name
}
