//! The history step of an index run: the indexed commit's first-parent
//! chain, newest [`HistoryOptions::depth`] commits, kept in the history
//! store (`stores::history`) — each commit's message, author, dates, the
//! files it changed against its first parent (a merge: the pull request it
//! stands for) and the lines it added or removed.
//!
//! Incremental: a run whose target's chain holds the commit the store was
//! read at adds only the commits since (one commit: a few milliseconds),
//! and drops the oldest past the depth. A chain that no longer holds it (a
//! rebase, a force-push, `reset`), a changed depth, another format or a
//! damaged store means reading the chain again. Either way the store holds
//! the same commits as one read afresh (tested).

use std::path::Path;
use std::time::Instant;

use gix::ObjectId;
use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::role::Role;
use crate::git::{commit_record, CommitRecord, Repo};
use crate::progress::{millis, Progress, Step};
use crate::stores::health::Depth;
use crate::stores::history::{CommitDoc, HistoryStore, HistoryStoreError, Stamp, FORMAT, HISTORY_DIR};

/// How many commits the store keeps when `rag.historyDepth` does not say:
/// years of most projects' history (the median of the 68 repositories
/// mined for the ranking is under 5,000 first-parent commits), read once in
/// about a minute on two cores; a repository with a million commits keeps
/// its newest 20,000.
pub const DEFAULT_HISTORY_DEPTH: usize = 20_000;

/// The changed lines kept per commit, in bytes: a commit's words are in
/// its first lines; a sweep (a vendored update, a reformat) would otherwise
/// fill the store.
const LINES_PER_COMMIT_BYTES: usize = 16 * 1024;
/// A kept line is cut at this many characters (minified code, data).
const LINE_CHARS: usize = 200;
/// The files of a commit whose lines are read (the rest are listed only).
const FILES_DIFFED: usize = 40;
/// A blob larger than this is listed, not diffed.
const BLOB_BYTES: usize = 512 * 1024;
/// Commits read, then written, at a time: bounds the memory of a full read.
const BATCH: usize = 1024;
/// The writer's arena.
const WRITER_HEAP: usize = 50_000_000;

/// How much history to keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistoryOptions {
    /// The most commits kept; 0 keeps no history store.
    pub depth: usize,
}

impl Default for HistoryOptions {
    fn default() -> Self {
        HistoryOptions { depth: DEFAULT_HISTORY_DEPTH }
    }
}

/// What the history step did.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HistoryReport {
    /// Commits read and added.
    pub added: usize,
    /// Commits dropped: the oldest past the depth, or, when the chain is read
    /// again, the ones the store held (0 when it was removed first: `--full`, damage).
    pub removed: usize,
    /// Why the store was read afresh, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<String>,
    /// Commits the store holds now.
    pub commits: usize,
    /// Commits whose object could not be read (left out).
    #[serde(skip_serializing_if = "is_zero")]
    pub unreadable: usize,
    pub took_ms: f64,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Brings the history store of `index_dir` to `head`'s chain, read afresh
/// when `fresh` (`git rag index --full`). `None` when `opts.depth` is 0 (any
/// store is removed).
pub fn update(
    repo: &Repo,
    index_dir: &Path,
    head: &ObjectId,
    opts: &HistoryOptions,
    fresh: bool,
    progress: &dyn Progress,
) -> Result<Option<HistoryReport>, HistoryStoreError> {
    let started = Instant::now();
    let dir = index_dir.join(HISTORY_DIR);
    if opts.depth == 0 {
        HistoryStore::destroy(&dir)?;
        return Ok(None);
    }
    let (store, mut rebuilt) = open_whole(&dir, fresh)?;
    let stamp = store.stamp()?;
    let head_hex = head.to_string();
    if let Some(s) = stamp.as_ref().filter(|s| s.head == head_hex && s.depth == opts.depth) {
        return Ok(Some(HistoryReport { commits: s.commits, took_ms: millis(started), ..HistoryReport::default() }));
    }
    let stop = stamp.as_ref().filter(|s| s.depth == opts.depth).and_then(|s| ObjectId::from_hex(s.head.as_bytes()).ok());
    let (ids, met) = repo.first_parent_ids(head, opts.depth, stop.as_ref()).map_err(|e| io_error(&dir, e))?;
    let previous = stamp.as_ref().filter(|_| met);
    if previous.is_none() && rebuilt.is_none() {
        rebuilt = Some(why_read_again(stamp.as_ref(), opts.depth));
    }

    let mut writer = store.writer(WRITER_HEAP)?;
    let (base_seq, kept_before) = match previous {
        Some(s) => (s.newest_seq, s.commits),
        None => {
            writer.delete_all()?;
            (0, 0)
        }
    };
    let n = ids.len();
    let newest_seq = base_seq + n as u64;
    progress.begin(Step::History, n as u64);
    let mut unreadable = 0;
    let mut newest_time = previous.and_then(|s| s.newest_time);
    let mut oldest_time = previous.and_then(|s| s.oldest_time);
    let mut added_times: Vec<(u64, i64)> = Vec::new();
    // `ids` is newest first: the i-th is numbered `newest_seq - i`.
    for (b, batch) in ids.chunks(BATCH).enumerate() {
        let docs: Vec<Option<CommitDoc>> = batch
            .par_chunks(16)
            .flat_map_iter(|chunk| {
                let local = repo.local();
                chunk.iter().map(move |id| commit_record(&local, id).ok().map(|r| commit_doc(&local, r))).collect::<Vec<_>>()
            })
            .collect();
        for (i, doc) in docs.into_iter().enumerate() {
            let Some(mut doc) = doc else {
                unreadable += 1;
                continue;
            };
            doc.seq = newest_seq - (b * BATCH + i) as u64;
            if b == 0 && i == 0 {
                newest_time = Some(doc.commit_time);
            }
            if previous.is_none() {
                oldest_time = Some(doc.commit_time);
            }
            added_times.push((doc.seq, doc.commit_time));
            writer.add(&doc)?;
        }
        progress.advance(batch.len() as u64);
    }
    progress.end();
    let total = kept_before + n - unreadable;
    let mut removed = if previous.is_none() { stamp.as_ref().map_or(0, |s| s.commits) } else { 0 };
    let mut reaches_root = if previous.is_some() { previous.is_some_and(|s| s.reaches_root) } else { n < opts.depth };
    let mut commits = total;
    if previous.is_some() && kept_before + n > opts.depth {
        // The oldest past the depth go; the oldest kept is numbered `oldest_kept`.
        let oldest_kept = newest_seq - opts.depth as u64 + 1;
        writer.delete_up_to(oldest_kept - 1)?;
        removed = kept_before + n - opts.depth;
        commits = opts.depth.min(total);
        reaches_root = false;
        let added = added_times.iter().find(|(seq, _)| *seq == oldest_kept).map(|(_, t)| *t);
        oldest_time = match added {
            Some(t) => Some(t),
            None => store.commit_time_of(oldest_kept)?,
        };
    }
    let stamp = Stamp { format: FORMAT, head: head_hex, depth: opts.depth, commits, newest_seq, oldest_time, newest_time, reaches_root };
    writer.commit(&stamp)?;
    Ok(Some(HistoryReport { added: n - unreadable, removed, rebuilt, commits, unreadable, took_ms: millis(started) }))
}

/// The store in `dir`, opened; removed first (and why, said) when `fresh`
/// or damaged, so it is read again whole.
fn open_whole(dir: &Path, fresh: bool) -> Result<(HistoryStore, Option<String>), HistoryStoreError> {
    let mut removed = None;
    if fresh {
        removed = Some("a full run".to_string());
        HistoryStore::destroy(dir)?;
    } else if let Some(d) = HistoryStore::verify(dir, Depth::Open) {
        removed = Some(format!("the store was damaged ({})", d.cause));
        HistoryStore::destroy(dir)?;
    }
    Ok((HistoryStore::open_or_create(dir)?, removed))
}

/// Why a store whose head is not on the chain (or that has none) is read again.
fn why_read_again(stamp: Option<&Stamp>, depth: usize) -> String {
    match stamp {
        None => "first read".to_string(),
        Some(s) if s.depth != depth => format!("the depth changed ({} -> {depth})", s.depth),
        Some(s) => format!("the history was rewritten: {} is no longer on HEAD's first-parent chain", &s.head[..s.head.len().min(12)]),
    }
}

fn io_error(dir: &Path, e: crate::git::GitError) -> HistoryStoreError {
    HistoryStoreError::Io { path: dir.to_path_buf(), source: std::io::Error::other(e) }
}

/// A commit as the store keeps it: the message split into subject and
/// body, every path, and the lines of the first [`FILES_DIFFED`] files
/// that are neither vendored nor generated.
fn commit_doc(repo: &gix::Repository, r: CommitRecord) -> CommitDoc {
    let message = r.message.trim();
    let (subject, body) = message.split_once('\n').map_or((message, ""), |(s, b)| (s.trim(), b.trim()));
    let mut lines = ChangedLines::default();
    let diffed = r.files.iter().filter(|f| !matches!(Role::of(&f.path), Role::Vendored | Role::Generated)).take(FILES_DIFFED);
    for file in diffed {
        if lines.full() {
            break;
        }
        let read = |id: &Option<ObjectId>| -> Option<String> {
            match id {
                None => Some(String::new()),
                Some(id) => {
                    let blob = repo.find_blob(*id).ok()?;
                    let data = &blob.data;
                    (data.len() <= BLOB_BYTES && !data[..data.len().min(8000)].contains(&0)).then(|| String::from_utf8_lossy(data).into_owned())
                }
            }
        };
        if let (Some(old), Some(new)) = (read(&file.old), read(&file.new)) {
            lines.add_diff(&old, &new);
        }
    }
    CommitDoc {
        id: r.id.to_string(),
        seq: 0,
        parents: r.parents as u64,
        author: r.author,
        author_time: r.author_time,
        commit_time: r.commit_time,
        subject: subject.to_string(),
        body: body.to_string(),
        paths: r.files.iter().map(|f| f.path.clone()).collect(),
        renames: r.files.iter().filter_map(|f| f.renamed_from.clone().map(|from| (from, f.path.clone()))).collect(),
        lines: lines.lines,
    }
}

/// The lines a commit removed (`-`) and added (`+`), trimmed, each once,
/// up to [`LINES_PER_COMMIT_BYTES`].
#[derive(Default)]
struct ChangedLines {
    lines: Vec<String>,
    bytes: usize,
    seen: std::collections::HashSet<String>,
}

impl ChangedLines {
    fn full(&self) -> bool {
        self.bytes >= LINES_PER_COMMIT_BYTES
    }

    fn add_diff(&mut self, old: &str, new: &str) {
        use gix::diff::blob::{Algorithm, Diff, InternedInput};
        let input = InternedInput::new(old, new);
        let mut diff = Diff::compute(Algorithm::Histogram, &input);
        diff.postprocess_lines(&input);
        let (old_lines, new_lines): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
        for hunk in diff.hunks() {
            let removed = (hunk.before.start as usize..hunk.before.end as usize).filter_map(|i| old_lines.get(i)).map(|l| ('-', l));
            let added = (hunk.after.start as usize..hunk.after.end as usize).filter_map(|i| new_lines.get(i)).map(|l| ('+', l));
            for (sign, line) in removed.chain(added) {
                if self.full() {
                    return;
                }
                let line = line.trim();
                if line.is_empty() || !line.chars().any(char::is_alphanumeric) {
                    continue;
                }
                let cut: String = line.chars().take(LINE_CHARS).collect();
                let kept = format!("{sign}{cut}");
                if self.seen.insert(kept.clone()) {
                    self.bytes += kept.len() + 1;
                    self.lines.push(kept);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_lines_are_signed_trimmed_kept_once_and_bounded() {
        let mut lines = ChangedLines::default();
        lines.add_diff("a\n  retry(3)\n}\nkeep\n", "a\n  retry(5)\n}\nkeep\n  retry(5)\n\n");
        assert_eq!(lines.lines, vec!["-retry(3)", "+retry(5)"]);
        let big: String = (0..5_000).map(|i| format!("line number {i}\n")).collect();
        let mut lines = ChangedLines::default();
        lines.add_diff("", &big);
        assert!(lines.bytes >= LINES_PER_COMMIT_BYTES && lines.bytes < LINES_PER_COMMIT_BYTES + LINE_CHARS + 2);
        let long = "x".repeat(1_000);
        let mut lines = ChangedLines::default();
        lines.add_diff("", &long);
        assert_eq!(lines.lines[0].chars().count(), LINE_CHARS + 1);
    }
}
