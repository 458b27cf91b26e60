//! The repository's history as evidence of where an issue report's fix
//! goes: the files that past commits like the report changed (BugLocator's
//! similar-report signal, over commits). The commits come from the history
//! store ([`crate::query::retrieve::history::similar_commits`]); each gives its files
//! a share of its match, `(score / best score) / files_changed ^ breadth`,
//! and only code takes a share (a fix's commit also touches tests, docs and
//! change notes, and those are not where a fix goes).
//!
//! The evidence reorders the files the retrievers found, after the first
//! one: a file's place is `1 / (RRF_K + its rank) + weight × evidence`. It
//! never adds a file and never moves the first one: fused blindly with the
//! code's lists, history cost the first place on every dev set (issue 106's
//! prototype). The weights are fitted on change notes mined from
//! repositories no benchmark holds, held out by repository
//! (`scripts/fit-history-evidence.py`), and named in
//! [`crate::query::base::parameters`].

use std::collections::HashMap;

use crate::analysis::role::Role;
use crate::query::answer::explain::{Contribution, Moved};
use crate::query::answer::{FileHit, Hit};
use crate::query::base::parameters::{HISTORY_EVIDENCE_BREADTH, HISTORY_EVIDENCE_COMMITS, HISTORY_EVIDENCE_WEIGHT, RRF_K};
use crate::query::retrieve::history::{similar_commits, PastCommit};
use crate::stores::history::HistoryStoreError;

/// The history store's search for a question, on its own thread beside
/// the retrievers (it reads nothing they find).
pub struct PendingEvidence {
    search: std::thread::JoinHandle<(Result<Option<Vec<PastCommit>>, HistoryStoreError>, f64)>,
}

impl PendingEvidence {
    /// Starts the search of the history store of the index in `index_dir`.
    pub fn start(index_dir: &std::path::Path, question: &str) -> PendingEvidence {
        let (dir, question) = (index_dir.to_path_buf(), question.to_string());
        PendingEvidence {
            search: std::thread::spawn(move || {
                let t = std::time::Instant::now();
                let found = similar_commits(&dir, &question, HISTORY_EVIDENCE_COMMITS);
                (found, crate::progress::millis(t))
            }),
        }
    }

    /// The evidence, and how long its search took; `Err` says why there is
    /// none from a store that should have answered (damaged, unreadable).
    pub fn wait(self) -> (Result<Option<FileEvidence>, String>, f64) {
        match self.search.join() {
            Ok((Ok(commits), ms)) => (Ok(commits.map(|c| FileEvidence::of(&c))), ms),
            Ok((Err(e), ms)) => (Err(e.to_string()), ms),
            Err(_) => (Err("the history search failed".to_string()), 0.0),
        }
    }
}

/// Each code file's share of the past commits like the question.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileEvidence {
    by_file: HashMap<String, f32>,
}

impl FileEvidence {
    /// The evidence of `commits` (best first, as the store ranks them).
    pub fn of(commits: &[PastCommit]) -> FileEvidence {
        let best = commits.iter().map(|c| c.score).fold(0.0, f32::max);
        let mut by_file: HashMap<String, f32> = HashMap::new();
        if best <= 0.0 {
            return FileEvidence { by_file };
        }
        for c in commits {
            let share = (c.score / best) / (c.files_changed.max(1) as f32).powf(HISTORY_EVIDENCE_BREADTH);
            for f in c.files.iter().filter(|f| Role::of(f) == Role::Code) {
                *by_file.entry(f.clone()).or_default() += share;
            }
        }
        FileEvidence { by_file }
    }

    pub fn of_file(&self, path: &str) -> f32 {
        self.by_file.get(path).copied().unwrap_or(0.0)
    }

    pub fn is_empty(&self) -> bool {
        self.by_file.is_empty()
    }

    /// The new order of `paths` (distinct, in today's order): the first
    /// stays, the others by their rank's credit plus the evidence's.
    fn order(&self, paths: &[&str]) -> Vec<usize> {
        let place = |i: usize| 1.0 / (RRF_K + i as f32 + 1.0) + HISTORY_EVIDENCE_WEIGHT * self.of_file(paths[i]);
        let mut rest: Vec<usize> = (1..paths.len()).collect();
        rest.sort_by(|&a, &b| place(b).total_cmp(&place(a)).then(a.cmp(&b)));
        (0..paths.len().min(1)).chain(rest).collect()
    }

    /// A document's chunk list with its file blocks reordered. The list is
    /// [`super::files::grouped_by_file`]'s: a prefix of contiguous blocks,
    /// one per file, then further chunks of those files; the blocks move,
    /// the rest stays after them as it was.
    pub fn reorder_chunks(&self, hits: Vec<Hit>) -> Vec<Hit> {
        if self.is_empty() {
            return hits;
        }
        let blocks = grouped_prefix(&hits);
        let paths: Vec<&str> = blocks.iter().map(|&(start, _)| hits[start].path.as_str()).collect();
        let order = self.order(&paths);
        let evidence: Vec<f32> = paths.iter().map(|p| self.of_file(p)).collect();
        let prefix_end = blocks.last().map_or(0, |&(_, end)| end);
        let mut slots: Vec<Option<Hit>> = hits.into_iter().map(Some).collect();
        let mut out = Vec::with_capacity(slots.len());
        for (at, &i) in order.iter().enumerate() {
            let (start, end) = blocks[i];
            for slot in &mut slots[start..end] {
                if let Some(h) = slot.take() {
                    out.push(self.noted(h, at != i, evidence[i]));
                }
            }
        }
        out.extend(slots.into_iter().skip(prefix_end).flatten());
        out
    }

    /// `--files` for a document: the files reordered, ranks renumbered.
    pub fn reorder_files(&self, files: Vec<FileHit>) -> Vec<FileHit> {
        if self.is_empty() {
            return files;
        }
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        let order = self.order(&paths);
        let mut slots: Vec<Option<FileHit>> = files.into_iter().map(Some).collect();
        let mut out: Vec<FileHit> = order.into_iter().filter_map(|i| slots[i].take()).collect();
        for (i, f) in out.iter_mut().enumerate() {
            f.rank = i + 1;
        }
        out
    }

    /// `h`, its explanation saying what the history gave its file.
    fn noted(&self, mut h: Hit, moved: bool, evidence: f32) -> Hit {
        if let Some(e) = h.explain.as_deref_mut() {
            if evidence > 0.0 {
                e.history = Some(Contribution {
                    name: "history".into(),
                    value: evidence,
                    weight: Some(HISTORY_EVIDENCE_WEIGHT),
                    contribution: evidence * HISTORY_EVIDENCE_WEIGHT,
                    rank: None,
                });
            }
            if moved {
                e.moved.push(Moved::ByHistory);
            }
        }
        h
    }
}

/// The contiguous blocks (start, end) of one file each that begin a
/// grouped list, up to the first chunk of a file already seen.
fn grouped_prefix(hits: &[Hit]) -> Vec<(usize, usize)> {
    let mut blocks: Vec<(usize, usize)> = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (i, h) in hits.iter().enumerate() {
        match blocks.last_mut() {
            Some((start, end)) if hits[*start].path == h.path => *end = i + 1,
            _ if seen.contains(h.path.as_str()) => break,
            _ => blocks.push((i, i + 1)),
        }
        seen.insert(h.path.as_str());
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::answer::explain::{Explanation, RankedBy};

    fn commit(score: f32, files: &[&str], files_changed: usize) -> PastCommit {
        PastCommit { score, files: files.iter().map(|f| f.to_string()).collect(), files_changed }
    }

    fn hit(path: &str, start: usize) -> Hit {
        Hit { path: path.into(), start_line: start, end_line: start + 2, explain: Some(Box::new(Explanation::new(RankedBy::Fusion))), ..Default::default() }
    }

    fn places(hits: &[Hit]) -> Vec<(String, usize)> {
        hits.iter().map(|h| (h.path.clone(), h.start_line)).collect()
    }

    #[test]
    fn a_commit_shares_its_match_among_its_code_files_by_their_number() {
        let ev = FileEvidence::of(&[
            commit(10.0, &["src/a.py", "tests/test_a.py", "CHANGES.rst", "docs/a.md"], 4),
            commit(5.0, &["src/a.py"], 1),
            commit(2.5, &["src/b.py"], 1),
        ]);
        // The best commit: 1 / 4^0.5 to its one code file; the others their score's part of the best.
        assert!((ev.of_file("src/a.py") - (0.5 + 0.5)).abs() < 1e-6, "{ev:?}");
        assert!((ev.of_file("src/b.py") - 0.25).abs() < 1e-6);
        for not_code in ["tests/test_a.py", "CHANGES.rst", "docs/a.md"] {
            assert_eq!(ev.of_file(not_code), 0.0, "{not_code}");
        }
        assert!(FileEvidence::of(&[]).is_empty());
        assert!(FileEvidence::of(&[commit(0.0, &["src/a.py"], 1)]).is_empty());
    }

    #[test]
    fn files_after_the_first_move_by_their_evidence_and_the_rest_of_the_list_stays() {
        // Grouped: a (2 chunks), b, c, d; then a further chunk of a.
        let paths = ["src/a.py", "src/b.py", "src/c.py", "src/d.py"];
        let hits = vec![hit(paths[0], 1), hit(paths[0], 10), hit(paths[1], 1), hit(paths[2], 1), hit(paths[3], 1), hit(paths[0], 20)];
        // d has the strongest evidence, then the first file (which stays first).
        let ev = FileEvidence::of(&[commit(9.0, &["src/d.py"], 1), commit(9.0, &["src/a.py"], 1)]);
        let out = ev.reorder_chunks(hits.clone());
        assert_eq!(
            places(&out),
            vec![
                ("src/a.py".into(), 1),
                ("src/a.py".into(), 10),
                ("src/d.py".into(), 1),
                ("src/b.py".into(), 1),
                ("src/c.py".into(), 1),
                ("src/a.py".into(), 20)
            ]
        );
        let d = &out[2];
        let e = d.explain.as_deref().expect("explained");
        assert_eq!(e.moved, vec![Moved::ByHistory]);
        assert_eq!(e.history.as_ref().map(|c| c.value), Some(1.0));
        assert!(out[3].explain.as_deref().is_some_and(|e| e.moved == vec![Moved::ByHistory] && e.history.is_none()), "b moved down, without evidence");
        assert!(out[0].explain.as_deref().is_some_and(|e| e.moved.is_empty() && e.history.is_some()), "the first file keeps its place");
        // Without evidence, nothing moves.
        assert_eq!(places(&FileEvidence::default().reorder_chunks(hits.clone())), places(&hits));
        // Weak evidence moves a file less than the places between.
        let many: Vec<Hit> = (0..40).map(|i| hit(&format!("src/f{i}.py"), 1)).collect();
        let weak = FileEvidence::of(&[commit(9.0, &["src/f30.py"], 1), commit(0.9, &["src/f39.py"], 1)]);
        let order: Vec<String> = weak.reorder_chunks(many).into_iter().map(|h| h.path).collect();
        let at = |p: &str| order.iter().position(|x| x == p).expect("kept");
        assert!(at("src/f30.py") < 30 && at("src/f30.py") > 1, "{order:?}");
        assert!(at("src/f39.py") < 39 && at("src/f39.py") > at("src/f30.py"), "{order:?}");
    }

    #[test]
    fn files_are_renumbered_after_the_reorder() {
        let files: Vec<FileHit> = ["a.py", "b.py", "c.py"]
            .iter()
            .enumerate()
            .map(|(i, p)| FileHit { rank: i + 1, path: p.to_string(), language: Default::default(), score: 1.0, mentioned: false, chunks: Vec::new() })
            .collect();
        let ev = FileEvidence::of(&[commit(3.0, &["c.py"], 1)]);
        let out = ev.reorder_files(files);
        assert_eq!(out.iter().map(|f| (f.rank, f.path.as_str())).collect::<Vec<_>>(), vec![(1, "a.py"), (2, "c.py"), (3, "b.py")]);
    }
}
