//! Which files change together: the paths of each of the last
//! [`HISTORY_COMMITS`] commits along first parents of the indexed commit,
//! kept beside the index (`impact-history.json`) and extended from the commit
//! it was read at when the index moves on, so a hook-driven index reads each
//! commit once. Merges and sweeping commits (more than
//! [`HISTORY_MAX_FILES`] files) are left out: they tie everything to everything.
//! A renamed file's older commits count under its name today: a move to a
//! `src/` layout (itself a sweep) would otherwise cut every file's history
//! at the move.

use std::collections::HashMap;
use std::path::Path;

use gix::ObjectId;
use serde::{Deserialize, Serialize};

use super::weights::{COCHANGE_HALF_LIFE, HISTORY_COMMITS, HISTORY_MAX_FILES};

/// A file's commits and what changed with it ([`History::together_with`]).
#[derive(Default)]
pub(crate) struct Together<'h> {
    pub commits: usize,
    pub recent: f32,
    /// Path → (commits shared, their recency mass).
    pub with: HashMap<&'h str, (usize, f32)>,
}
use crate::git::Repo;

const FILE: &str = "impact-history.json";
/// Bumped when what a commit's entry holds changes.
const FORMAT: u32 = 2;

/// The commits read, newest first, each as the sorted ids of its paths.
#[derive(Default, Serialize, Deserialize)]
pub(crate) struct History {
    format: u32,
    head: String,
    paths: Vec<String>,
    commits: Vec<Vec<u32>>,
    /// Commits walked, kept or not (merges, sweeps): where the walk stands.
    walked: usize,
}

impl History {
    /// The history up to `head`, from the cache in `index_dir` where it
    /// holds (extended by the commits since), else read anew. A history
    /// that cannot be read (a shallow clone) is as far as it goes; one that
    /// cannot be kept is read again next time.
    pub fn load(repo: &Repo, index_dir: &Path, head: &ObjectId) -> History {
        let path = index_dir.join(FILE);
        let cached: Option<History> = std::fs::read(&path).ok().and_then(|b| serde_json::from_slice(&b).ok()).filter(|h: &History| h.format == FORMAT);
        let head_hex = head.to_string();
        if let Some(h) = cached.as_ref().filter(|h| h.head == head_hex) {
            return History { format: h.format, head: h.head.clone(), paths: h.paths.clone(), commits: h.commits.clone(), walked: h.walked };
        }
        let stop = cached.as_ref().and_then(|h| ObjectId::from_hex(h.head.as_bytes()).ok());
        let Ok((walked, met)) = repo.first_parent_history(head, HISTORY_COMMITS, stop.as_ref()) else { return History::default() };
        let mut fresh = History { format: FORMAT, head: head_hex, ..History::default() };
        let mut ids: HashMap<String, u32> = HashMap::new();
        let mut renamed = Renamed::default();
        fresh.walked = walked.len();
        for changes in walked.into_iter().filter_map(|(_, c)| c) {
            let paths: Vec<String> = changes.paths.iter().map(|p| renamed.today(p).to_string()).collect();
            fresh.push(&mut ids, paths.iter().map(String::as_str));
            // Older commits than this one name the files it renamed by their old paths.
            for (from, to) in changes.renames {
                renamed.add(from, to);
            }
        }
        if let (true, Some(old)) = (met, cached) {
            // The new commits, then the old ones (under the names the new
            // commits gave them), as far as the limit goes.
            let mut left = HISTORY_COMMITS.saturating_sub(fresh.walked);
            for commit in old.commits {
                if left == 0 {
                    break;
                }
                left -= 1;
                fresh.walked += 1;
                let paths: Vec<String> = commit.iter().filter_map(|i| old.paths.get(*i as usize)).map(|p| renamed.today(p).to_string()).collect();
                fresh.push(&mut ids, paths.iter().map(String::as_str));
            }
        }
        if let Ok(bytes) = serde_json::to_vec(&fresh) {
            let _ = crate::stores::fs::write_atomic(&path, &bytes, None);
        }
        fresh
    }

    fn push<'p>(&mut self, ids: &mut HashMap<String, u32>, paths: impl Iterator<Item = &'p str>) {
        let mut paths: Vec<&str> = paths.collect();
        // Two old names of one file in one commit are one file.
        paths.sort_unstable();
        paths.dedup();
        if paths.is_empty() || paths.len() > HISTORY_MAX_FILES {
            return;
        }
        let mut commit: Vec<u32> = paths
            .into_iter()
            .map(|p| {
                *ids.entry(p.to_string()).or_insert_with(|| {
                    self.paths.push(p.to_string());
                    (self.paths.len() - 1) as u32
                })
            })
            .collect();
        commit.sort_unstable();
        self.commits.push(commit);
    }

    /// The commits that changed `path` (how many, and their recency mass),
    /// and for each other path those of them that changed it too. The j-th
    /// newest of `path`'s commits weighs `0.5^(j / COCHANGE_HALF_LIFE)`: what
    /// a file's tests are drifts as the project grows.
    pub fn together_with(&self, path: &str) -> Together<'_> {
        let mut out = Together::default();
        let Some(id) = self.paths.iter().position(|p| p == path).map(|i| i as u32) else { return out };
        for (j, commit) in self.commits.iter().filter(|c| c.binary_search(&id).is_ok()).enumerate() {
            let weight = 0.5f32.powf(j as f32 / COCHANGE_HALF_LIFE);
            out.commits += 1;
            out.recent += weight;
            for other in commit.iter().filter(|i| **i != id) {
                if let Some(p) = self.paths.get(*other as usize) {
                    let e = out.with.entry(p.as_str()).or_default();
                    e.0 += 1;
                    e.1 += weight;
                }
            }
        }
        out
    }
}

/// Old paths and the names their files have today, gathered newest commit
/// first: a rename seen later in the walk is older, so a file renamed twice
/// (`a` → `b` → `c`) maps `a` to `c`.
#[derive(Default)]
struct Renamed {
    today: HashMap<String, String>,
}

impl Renamed {
    /// The name today of what `path` named (itself unless it was renamed since).
    fn today<'a>(&'a self, path: &'a str) -> &'a str {
        self.today.get(path).map_or(path, String::as_str)
    }

    fn add(&mut self, from: String, to: String) {
        let now = self.today(&to).to_string();
        if now != from {
            self.today.insert(from, now);
        }
    }
}
