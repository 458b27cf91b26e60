//! `git rag gc` with a Qdrant server: the server holds one repository's
//! collections per branch CI indexed (`<prefix>_<branch>_*`) and a vector
//! cache per model shared by every repository on it. Both only grow.
//!
//! - Branch collections of this repository whose branch `origin` no longer
//!   has (asked of the remote, `git ls-remote`) are deleted whole.
//! - Cached vectors no tree point on the server references are deleted:
//!   every tree point names its vector in the cache ([`CACHE_ID`]), so the
//!   referenced set is read from the server itself, across every repository
//!   and branch on it, not derived from one clone. Points written before
//!   that field existed make the set unknowable: the cache is then kept.
//!
//! A CI run writing at the same time may lose a vector it just cached and
//! has not yet referenced; its points carry their vectors anyway, so that
//! costs at most a later re-embedding, never a wrong answer.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde::Serialize;

use crate::git::Repo;
use crate::progress::Progress;
use crate::semantic::embed::ModelSource;
use crate::semantic::sync::CACHE_ID;
use crate::stores::vector::server::{ServerOptions, ServerStore, STATE_COLLECTION};
use crate::stores::vector::{branch_prefix, sanitize, Collection};

use crate::index::{IndexError, Result};

/// What gc found on the server, and what it deleted.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ServerGcReport {
    /// Deleted (`--yes`), or only counted (a dry run).
    pub applied: bool,
    pub server: String,
    /// Collection prefixes of this repository's branches that `origin` no longer has.
    pub gone_branches: Vec<String>,
    /// Their collections (deleted when `applied`).
    pub collections: Vec<String>,
    /// The vector cache of the configured model.
    pub cache: String,
    /// Vectors it holds.
    pub cached: usize,
    /// Of those, the ones some tree point on the server uses (after the branches above go).
    pub referenced: usize,
    /// Cached vectors nothing uses (deleted when `applied`).
    pub unreferenced: usize,
    /// Why the cache was left as it is, when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_kept: Option<String>,
}

/// Finds (and with `apply` deletes) the collections of branches gone from
/// `origin` under `repo_prefix`, and the cached vectors of `model` nothing on
/// the server references.
pub fn gc_server(repo: &Repo, server: &ServerOptions, repo_prefix: &str, model: &ModelSource, apply: bool, progress: &dyn Progress) -> Result<ServerGcReport> {
    let branches = repo.remote_branches("origin").map_err(|e| {
        IndexError::Gc(format!("gc on a server deletes the collections of branches gone from `origin`, and cannot ask it: {e}; nothing deleted"))
    })?;
    let identity = model.identify().map_err(|e| IndexError::Vectors(e.into()))?;
    let store = ServerStore::open(server.clone(), identity.dims, &identity.id)?;
    let names = store.collection_names()?;
    let sets = collection_sets(&names);

    let live: HashSet<String> = std::iter::once(repo_prefix.to_string()).chain(branches.iter().map(|b| branch_prefix(repo_prefix, b))).collect();
    let ours = format!("{repo_prefix}_");
    let gone: Vec<String> = sets.keys().filter(|p| p.starts_with(&ours) && !live.contains(*p)).cloned().collect();
    let collections: Vec<String> = gone.iter().flat_map(|p| sets[p].iter().map(move |suffix| format!("{p}_{suffix}"))).collect();

    let cache = store.collection_name(Collection::VectorCache);
    let mut report =
        ServerGcReport { applied: apply, server: server.url.clone(), gone_branches: gone.clone(), collections, cache: cache.clone(), ..Default::default() };
    let cache_ids: Vec<u64> = if names.contains(&cache) { store.scroll_field(&cache, CACHE_ID)?.into_iter().map(|(id, _)| id).collect() } else { Vec::new() };
    report.cached = cache_ids.len();
    let mut unreferenced = Vec::new();
    match referenced(&store, &sets, &gone, progress)? {
        Ok(referenced) => {
            unreferenced = cache_ids.iter().copied().filter(|id| !referenced.contains(id)).collect();
            report.referenced = report.cached - unreferenced.len();
            report.unreferenced = unreferenced.len();
        }
        Err(reason) => report.cache_kept = Some(reason),
    }
    if apply {
        for name in &report.collections {
            store.drop_collection(name)?;
        }
        store.delete_ids_in(&cache, &unreferenced)?;
    }
    Ok(report)
}

/// Collections grouped by prefix: `<prefix>_<suffix>` for the tree
/// collections' names and the CI state.
fn collection_sets(names: &[String]) -> BTreeMap<String, BTreeSet<&'static str>> {
    let suffixes: Vec<&'static str> = Collection::TREE.iter().map(|c| c.name()).chain([STATE_COLLECTION]).collect();
    let mut sets: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    for name in names {
        for suffix in &suffixes {
            if let Some(prefix) = name.strip_suffix(suffix).and_then(|p| p.strip_suffix('_')) {
                if !prefix.is_empty() && sanitize(prefix) == prefix {
                    sets.entry(prefix.to_string()).or_default().insert(suffix);
                }
            }
        }
    }
    sets
}

/// The cache ids every git-rag tree point on the server uses, but for the
/// prefixes about to go; `Err(reason)` when some point names none.
fn referenced(
    store: &ServerStore,
    sets: &BTreeMap<String, BTreeSet<&'static str>>,
    gone: &[String],
    progress: &dyn Progress,
) -> Result<std::result::Result<HashSet<u64>, String>> {
    let mut referenced = HashSet::new();
    // A git-rag index has all four tree collections; one with vectors of
    // another size is of another model, whose keys never name this cache.
    let indexes = sets.iter().filter(|(p, s)| !gone.contains(p) && Collection::TREE.iter().all(|c| s.contains(c.name())));
    for (prefix, _) in indexes {
        if store.dense_size(&format!("{prefix}_{}", Collection::Semantic.name()))? != Some(store.dims() as u64) {
            continue;
        }
        progress.note(&format!("reading which cached vectors {prefix}_* uses"));
        for c in Collection::TREE {
            let name = format!("{prefix}_{}", c.name());
            let mut unnamed = 0usize;
            for (_, value) in store.scroll_field(&name, CACHE_ID)? {
                match value.as_deref().and_then(|v| u64::from_str_radix(v, 16).ok()) {
                    Some(id) => {
                        referenced.insert(id);
                    }
                    None => unnamed += 1,
                }
            }
            if unnamed > 0 {
                return Ok(Err(format!(
                    "{unnamed} points of {name} name no cached vector (written by an older git-rag): the cache is kept; index that branch again with `git rag index --ci --full`"
                )));
            }
        }
    }
    Ok(Ok(referenced))
}
