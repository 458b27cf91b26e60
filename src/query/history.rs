//! `git rag history "<question>"`: the commits of the indexed history that
//! answer a question about the past ("when did we stop retrying on 503?",
//! "why does merge_cookies copy the jar?"), best first — by BM25 of the
//! question's words in each commit's subject, body, changed lines and paths
//! ([`crate::query::base::parameters::HISTORY_FIELDS`]), ties newest first —
//! each with the files it changed under today's names and the changed lines
//! that hold the question's words. Filters: a path (file or folder, its
//! older names included), dates, a symbol among the changed lines.
//! `--context` renders the same answer as a token-budgeted digest.

use std::path::Path;

use serde::Serialize;

use crate::query::base::parameters::{HISTORY_BODY_CHARS, HISTORY_FIELDS, HISTORY_FILES_SHOWN, HISTORY_LINES_SHOWN};
use crate::query::context::count_tokens;
use crate::query::retrieve::history::{question_terms, today};
use crate::stores::history::{CommitDoc, HistoryStore, HistoryStoreError, Search, Stamp, HISTORY_DIR};
use crate::stores::keyword::analyze;

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(transparent)]
    Store(#[from] HistoryStoreError),
    #[error("cannot read the date `{value}` (try 2024-05-01, \"2 weeks ago\", or @<unix seconds>): {message}")]
    BadDate { value: String, message: String },
}

/// What `git rag history` is asked.
#[derive(Debug, Clone, Default)]
pub struct HistoryRequest {
    /// The question; empty lists the newest commits the filters keep.
    pub question: String,
    pub limit: usize,
    /// Only commits that changed this file or folder (under any name it had).
    pub path: Option<String>,
    /// Dates as git takes them (`2024-05-01`, `2 weeks ago`, `@1700000000`).
    pub since: Option<String>,
    pub until: Option<String>,
    /// Only commits whose changed lines name this symbol.
    pub symbol: Option<String>,
    /// Also render a digest of at most this many tokens.
    pub context_budget: Option<usize>,
}

/// The answer: the commits, best first, and how far the history reaches.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryAnswer {
    pub question: String,
    pub commits: Vec<CommitAnswer>,
    pub reach: Reach,
    /// The digest (`--context`), when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

/// How much history the store holds.
#[derive(Debug, Clone, Serialize)]
pub struct Reach {
    /// The commit whose first-parent history it is.
    pub head: String,
    pub commits: usize,
    /// Dates (`YYYY-MM-DD`) of the oldest and newest commit held.
    pub oldest: Option<String>,
    pub newest: Option<String>,
    /// It holds the history back to the first commit (else `rag.historyDepth` or a shallow clone cut it).
    pub whole: bool,
}

impl Reach {
    fn of(stamp: &Stamp) -> Reach {
        Reach {
            head: stamp.head.clone(),
            commits: stamp.commits,
            oldest: stamp.oldest_time.map(date),
            newest: stamp.newest_time.map(date),
            whole: stamp.reaches_root,
        }
    }
}

/// One commit of the answer.
#[derive(Debug, Clone, Serialize)]
pub struct CommitAnswer {
    pub id: String,
    pub subject: String,
    /// The message after its subject, cut at [`HISTORY_BODY_CHARS`].
    pub body: String,
    pub author: String,
    /// Commit date, `YYYY-MM-DD`, and seconds since the epoch.
    pub date: String,
    pub time: i64,
    /// BM25 of the question in the commit (0 for a question without words).
    pub score: f64,
    /// A merge: what it changed is its pull request's change.
    pub merge: bool,
    /// The files it changed, under their names today, at most [`HISTORY_FILES_SHOWN`].
    pub files: Vec<String>,
    pub files_changed: usize,
    /// Changed lines (`-` removed, `+` added) holding the question's words, most words first.
    pub lines: Vec<String>,
}

/// How far back the history store of the index in `index_dir` reaches;
/// `None` when it has none (or one that cannot be read: `status` lists it as damaged).
pub fn reach(index_dir: &Path) -> Option<Reach> {
    let store = HistoryStore::open(&index_dir.join(HISTORY_DIR)).ok()?;
    store.stamp().ok().flatten().map(|s| Reach::of(&s))
}

/// Answers `req` from the history store of the index in `index_dir`.
pub fn run(index_dir: &Path, req: &HistoryRequest) -> Result<HistoryAnswer, HistoryError> {
    let store = HistoryStore::open(&index_dir.join(HISTORY_DIR))?;
    let stamp = store.stamp()?.unwrap_or_else(|| Stamp {
        format: crate::stores::history::FORMAT,
        head: String::new(),
        depth: 0,
        commits: 0,
        newest_seq: 0,
        oldest_time: None,
        newest_time: None,
        reaches_root: false,
    });
    let terms = question_terms(&req.question);
    let renames = store.renames()?;
    let mut search = Search {
        terms: terms.clone(),
        term_weights: Vec::new(),
        paths: req.path.as_deref().map(|p| names_of(p.trim_start_matches("./"), &renames)).unwrap_or_default(),
        since: req.since.as_deref().map(parse_date).transpose()?,
        until: req.until.as_deref().map(parse_date).transpose()?,
        changed_term: None,
        limit: req.limit.max(1),
    };
    if let Some(symbol) = req.symbol.as_deref() {
        let own = crate::analysis::name::own_part(symbol);
        search.changed_term = analyze(own).into_iter().next();
    }
    let hits = store.search(&search, HISTORY_FIELDS)?;
    let commits: Vec<CommitAnswer> = hits.into_iter().map(|(score, doc)| answer(score, doc, &terms, &renames)).collect();
    let mut answer = HistoryAnswer { question: req.question.clone(), commits, reach: Reach::of(&stamp), context: None };
    if let Some(budget) = req.context_budget {
        answer.context = Some(digest(&answer, budget));
    }
    Ok(answer)
}

/// `path` (a file or a folder) and the names it had before, newest rename
/// first (`renames`: newest first). A file moved out of a folder along with
/// the rest of it names the folder's old name; one moved alone, its own.
fn names_of(path: &str, renames: &[(u64, String, String)]) -> Vec<String> {
    let mut names = vec![path.trim_end_matches('/').to_string()];
    for (_, from, to) in renames {
        let Some(name) = names.iter().find(|n| to == *n || to.strip_prefix(n.as_str()).is_some_and(|rest| rest.starts_with('/'))) else { continue };
        let rest = &to[name.len()..];
        let old = match from.strip_suffix(rest) {
            Some(folder) if !rest.is_empty() && !folder.is_empty() => folder.to_string(),
            _ => from.clone(),
        };
        if !names.contains(&old) {
            names.push(old);
        }
    }
    names
}

fn answer(score: f32, doc: CommitDoc, terms: &[String], renames: &[(u64, String, String)]) -> CommitAnswer {
    let mut lines: Vec<(usize, usize, &String)> = doc
        .lines
        .iter()
        .enumerate()
        .filter_map(|(i, line)| {
            let words = analyze(line);
            let n = terms.iter().filter(|t| words.contains(t)).count();
            (n > 0).then_some((n, i, line))
        })
        .collect();
    lines.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let body: String = doc.body.chars().take(HISTORY_BODY_CHARS).collect();
    CommitAnswer {
        subject: doc.subject,
        body,
        author: doc.author,
        date: date(doc.commit_time),
        time: doc.commit_time,
        score: f64::from(score),
        merge: doc.parents > 1,
        files: doc.paths.iter().take(HISTORY_FILES_SHOWN).map(|p| today(p, doc.seq, renames)).collect(),
        files_changed: doc.paths.len(),
        lines: lines.into_iter().take(HISTORY_LINES_SHOWN).map(|(_, _, l)| l.clone()).collect(),
        id: doc.id,
    }
}

/// Seconds since the epoch as `YYYY-MM-DD` (UTC).
fn date(seconds: i64) -> String {
    gix::date::Time::new(seconds, 0).format_or_unix(gix::date::time::format::SHORT)
}

/// A date as git reads one (`2024-05-01`, `2 weeks ago`, `@1700000000`), in seconds.
pub fn parse_date(value: &str) -> Result<i64, HistoryError> {
    let now = gix::date::Zoned::now();
    gix::date::parse(value.trim(), Some(now)).map(|t| t.seconds).map_err(|e| HistoryError::BadDate { value: value.to_string(), message: e.to_string() })
}

/// The answer as Markdown within `budget` tokens: each commit whole or not at all.
fn digest(answer: &HistoryAnswer, budget: usize) -> String {
    let mut out = format!("# History: {}\n\n", answer.question.trim());
    if count_tokens(&out) > budget {
        return String::new();
    }
    let mut used = count_tokens(&out);
    for c in &answer.commits {
        let mut piece = format!("## {} {}\n{} · {}", &c.id[..c.id.len().min(12)], c.subject, c.date, c.author);
        if c.merge {
            piece.push_str(" · merge");
        }
        piece.push('\n');
        if !c.body.is_empty() {
            piece.push('\n');
            piece.push_str(&c.body);
            piece.push('\n');
        }
        let more = c.files_changed.saturating_sub(c.files.len());
        piece.push_str(&format!("\nfiles: {}{}\n", c.files.join(", "), if more > 0 { format!(" (and {more} more)") } else { String::new() }));
        if !c.lines.is_empty() {
            piece.push_str("```diff\n");
            for l in &c.lines {
                piece.push_str(l);
                piece.push('\n');
            }
            piece.push_str("```\n");
        }
        piece.push('\n');
        let tokens = count_tokens(&piece);
        if used + tokens > budget {
            continue;
        }
        used += tokens;
        out.push_str(&piece);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_found_under_its_older_names_and_shown_under_today_s() {
        // Newest first: b.rs -> c.rs at 9, a.rs -> b.rs at 5.
        let renames = vec![(9, "b.rs".to_string(), "c.rs".to_string()), (5, "a.rs".to_string(), "b.rs".to_string())];
        assert_eq!(names_of("c.rs", &renames), vec!["c.rs", "b.rs", "a.rs"]);
        let moved = vec![(4, "http/retry.py".to_string(), "net/retry.py".to_string()), (4, "http/pool.py".to_string(), "net/pool.py".to_string())];
        assert_eq!(names_of("net/", &moved), vec!["net", "http"], "a folder moved whole: its old name once");
        assert_eq!(names_of("net/retry.py", &moved), vec!["net/retry.py", "http/retry.py"]);
        let alone = vec![(4, "old/x.py".to_string(), "net/y.py".to_string())];
        assert_eq!(names_of("net", &alone), vec!["net", "old/x.py"], "a file renamed into the folder: its own old name");
        assert_eq!(today("a.rs", 3, &renames), "c.rs");
        assert_eq!(today("b.rs", 5, &renames), "c.rs");
        assert_eq!(today("c.rs", 9, &renames), "c.rs");
        assert_eq!(today("x.rs", 1, &renames), "x.rs");
    }

    #[test]
    fn dates_read_as_git_reads_them() {
        assert_eq!(parse_date("@1700000000").unwrap(), 1_700_000_000);
        assert_eq!(date(parse_date("2024-05-01").unwrap()), "2024-05-01");
        let now = parse_date("now").unwrap();
        let ago = parse_date("2 weeks ago").unwrap();
        assert!((now - ago - 14 * 86_400).abs() < 120);
        assert!(matches!(parse_date("the day after tomorrow-ish"), Err(HistoryError::BadDate { .. })));
    }

    #[test]
    fn a_digest_keeps_to_its_budget_with_whole_commits() {
        let commit = |i: usize| CommitAnswer {
            id: format!("{i:040}"),
            subject: format!("change {i}"),
            body: "why ".repeat(40),
            author: "A".into(),
            date: "2024-01-01".into(),
            time: 0,
            score: 1.0,
            merge: false,
            files: vec!["a.rs".into()],
            files_changed: 3,
            lines: vec!["+retry(5)".into()],
        };
        let reach = Reach { head: String::new(), commits: 5, oldest: None, newest: None, whole: true };
        let answer = HistoryAnswer { question: "why retry".into(), commits: (0..5).map(commit).collect(), reach, context: None };
        for budget in [5, 60, 120, 400, 4000] {
            let d = digest(&answer, budget);
            assert!(count_tokens(&d) <= budget, "{budget}: {d}");
            assert_eq!(d.matches("## ").count(), d.matches("```diff").count(), "whole commits only");
        }
        assert!(digest(&answer, 4000).contains("(and 2 more)"));
    }

    #[test]
    fn stop_words_leave_the_question_s_content() {
        let terms = question_terms("When did we stop retrying on 503?");
        assert!(terms.iter().any(|t| t.starts_with("retr")), "{terms:?}");
        assert!(terms.contains(&"503".to_string()), "{terms:?}");
        assert!(!terms.iter().any(|t| t == "when" || t == "we"), "{terms:?}");
    }
}
