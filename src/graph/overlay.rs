//! The graph of the index with some files replaced, held in memory: what an
//! incremental update would write for them, never written. The work tree's
//! layer (`crate::worktree`) lays it over the store, so graph questions
//! and contexts see the files an agent is editing.
//!
//! Invariant: a [`Snapshot`](super::db::Snapshot) read through an overlay
//! answers every read (facts, out-edges, paths, each lookup table) as the
//! store would after [`Db::write`](super::db::Db::write) of the same update
//! — so a question over the overlay equals one over a fresh index of the
//! same files (`tests/worktree.rs`).

use std::collections::{BTreeMap, BTreeSet};

use super::db::{edge_targets, entry, IndexKeys, OutEdges, Snapshot, AT_INTO, LOOKUPS};
use super::{FileFacts, Result};

/// What an update changes in the store, as reads see it.
#[derive(serde::Serialize, serde::Deserialize)]
pub struct Overlay {
    /// The changed files' facts after the update (`None`: the file is gone).
    pub(super) facts: BTreeMap<String, Option<FileFacts>>,
    /// The re-resolved files' out-edges (`None`: the file is gone).
    pub(super) outs: BTreeMap<String, Option<OutEdges>>,
    /// Every path after the update, when paths appeared or vanished.
    pub(super) paths: Option<Vec<String>>,
    /// Per lookup table (in [`LOOKUPS`]' order): the entries removed and the entries added.
    pub(super) lookups: Vec<(BTreeSet<String>, BTreeSet<String>)>,
}

/// One changed file: its facts in the store and after the update.
pub(super) struct Replaced<'a> {
    pub path: &'a str,
    pub old: Option<&'a FileFacts>,
    pub new: Option<&'a FileFacts>,
}

impl Overlay {
    /// The overlay of an update: `changes` of facts, `outs` the touched
    /// files' out-edges after it, `paths` every path if they moved; the
    /// touched files' stored out-edges are read from `snapshot`.
    pub(super) fn of(snapshot: &Snapshot, changes: &[Replaced], outs: BTreeMap<String, Option<OutEdges>>, paths: Option<Vec<String>>) -> Result<Overlay> {
        let mut lookups: Vec<(BTreeSet<String>, BTreeSet<String>)> = vec![Default::default(); LOOKUPS.len()];
        for c in changes {
            for (facts, added) in [(c.old, false), (c.new, true)] {
                for (t, k) in facts.map(|f| IndexKeys::of(c.path, f).entries()).unwrap_or_default() {
                    let (gone, new) = &mut lookups[t];
                    if added {
                        new.insert(k)
                    } else {
                        gone.insert(k)
                    };
                }
            }
        }
        let into = AT_INTO;
        let stored = snapshot.out_edges(outs.keys())?;
        for (path, edges) in &outs {
            for target in stored.get(path).map(|o| edge_targets(path, o)).unwrap_or_default() {
                lookups[into].0.insert(entry(&target, path));
            }
            for target in edges.as_ref().map(|o| edge_targets(path, o)).unwrap_or_default() {
                lookups[into].1.insert(entry(&target, path));
            }
        }
        let facts = changes.iter().map(|c| (c.path.to_string(), c.new.cloned())).collect();
        Ok(Overlay { facts, outs, paths, lookups })
    }

    /// The values of lookup table `t` under `key`, in order: `stored` (the
    /// store's, in order) less the removed entries, with the added ones.
    pub(super) fn values(&self, t: usize, key: &str, stored: Vec<String>) -> Vec<String> {
        let (gone, new) = &self.lookups[t];
        let prefix = entry(key, "");
        let mut out: BTreeSet<String> = stored.into_iter().filter(|v| !gone.contains(&entry(key, v))).collect();
        let added = new.range::<String, _>(prefix.clone()..).take_while(|e| e.starts_with(&prefix));
        out.extend(added.map(|e| e[prefix.len()..].to_string()));
        out.into_iter().collect()
    }
}
