//! Options from the command line, the environment and `git config rag.*`,
//! in that order of precedence.

use std::path::{Path, PathBuf};

use std::time::Duration;

use crate::chunk::ChunkOptions;
use crate::git::Repo;
use crate::store::server::ServerOptions;
use crate::store::Backend;

/// Where the index of `repo` lives: `--index-dir`, then `GIT_RAG_DIR`, then
/// `git config rag.indexDir`, then `<git-dir>/rag`.
pub fn index_dir(repo: &Repo, cli: Option<&Path>) -> PathBuf {
    if let Some(dir) = cli {
        return dir.to_path_buf();
    }
    if let Some(dir) = std::env::var_os("GIT_RAG_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(dir) = config_string(repo, "rag.indexDir") {
        return PathBuf::from(dir);
    }
    repo.git_dir().join("rag")
}

/// Chunking options, with `rag.chunkBudget`, `rag.maxFileBytes` and
/// `rag.windowLines` from git config overriding the defaults.
pub fn chunk_options(repo: &Repo) -> ChunkOptions {
    let mut opts = ChunkOptions::default();
    if let Some(v) = config_usize(repo, "rag.chunkBudget") {
        opts.budget = v.max(100);
    }
    if let Some(v) = config_usize(repo, "rag.maxFileBytes") {
        opts.max_parse_bytes = v;
    }
    if let Some(v) = config_usize(repo, "rag.windowLines") {
        opts.max_window_lines = v.max(1);
    }
    opts
}

/// Whether to build the semantic layer: `git config rag.semantic` (default true).
pub fn semantic_enabled(repo: &Repo) -> bool {
    let local = repo.local();
    let snapshot = local.config_snapshot();
    snapshot.boolean("rag.semantic").unwrap_or(true)
}

/// The embedding model directory: `git config rag.model`, else the installed default.
pub fn model_dir(repo: &Repo) -> PathBuf {
    match config_string(repo, "rag.model") {
        Some(dir) => PathBuf::from(dir),
        None => crate::embed::default_model_dir(),
    }
}

/// The vector store: a Qdrant server when `--qdrant-url`, `QDRANT_URL` or
/// `git config rag.qdrantUrl` names one (API key from `QDRANT_API_KEY`),
/// else the embedded engine.
pub fn backend(repo: &Repo, cli_url: Option<&str>) -> Backend {
    let url = cli_url
        .map(str::to_string)
        .or_else(|| std::env::var("QDRANT_URL").ok())
        .filter(|u| !u.is_empty())
        .or_else(|| config_string(repo, "rag.qdrantUrl"));
    let Some(url) = url else { return Backend::Embedded };
    Backend::Server(ServerOptions {
        url,
        api_key: std::env::var("QDRANT_API_KEY").ok().filter(|k| !k.is_empty()),
        prefix: collection_prefix(repo),
        timeout: Duration::from_secs(60),
    })
}

/// Prefix of this repository's collections on a shared server:
/// `git config rag.qdrantPrefix`, else `git_rag_<name>_<hash>` where the hash
/// is of the `origin` URL (so every clone of one project shares it) or, with
/// no remote, of the repository's path.
pub fn collection_prefix(repo: &Repo) -> String {
    if let Some(p) = config_string(repo, "rag.qdrantPrefix") {
        return crate::store::sanitize(&p);
    }
    let origin = config_string(repo, "remote.origin.url");
    let git_dir = repo.git_dir();
    let root = std::fs::canonicalize(&git_dir).unwrap_or(git_dir);
    let root = if root.ends_with(".git") { root.parent().map(Path::to_path_buf).unwrap_or(root) } else { root };
    let key = origin.as_deref().map(normalize_remote).unwrap_or_else(|| root.display().to_string());
    let name = origin
        .as_deref()
        .and_then(|u| u.trim_end_matches('/').trim_end_matches(".git").rsplit(['/', ':']).next().map(str::to_string))
        .or_else(|| root.file_name().map(|n| n.to_string_lossy().to_string()))
        .unwrap_or_else(|| "repo".into());
    let hash = &blake3::hash(key.as_bytes()).to_hex()[..8];
    format!("git_rag_{}_{hash}", crate::store::sanitize(&name))
}

/// One spelling per remote repository: `https://github.com/o/r`,
/// `git@github.com:o/r.git` and `ssh://git@github.com/o/r` are all
/// `github.com/o/r`, so a CI checkout and a developer's clone share collections.
pub fn normalize_remote(url: &str) -> String {
    let mut s = url.trim().trim_end_matches('/').trim_end_matches(".git").to_string();
    if let Some((_, rest)) = s.split_once("://") {
        s = rest.to_string();
    } else if let Some((host, path)) = s.split_once(':').filter(|(h, _)| !h.contains('/')) {
        // scp-like `user@host:path`
        s = format!("{host}/{path}");
    }
    if let Some((user, rest)) = s.split_once('@').filter(|(u, _)| !u.contains('/')) {
        let _ = user;
        s = rest.to_string();
    }
    match s.split_once('/') {
        Some((host, path)) => format!("{}/{}", host.to_lowercase(), path.trim_start_matches('/')),
        None => s.to_lowercase(),
    }
}

fn config_string(repo: &Repo, key: &str) -> Option<String> {
    let local = repo.local();
    let snapshot = local.config_snapshot();
    snapshot.string(key).map(|s| s.to_string())
}

fn config_usize(repo: &Repo, key: &str) -> Option<usize> {
    let local = repo.local();
    let snapshot = local.config_snapshot();
    snapshot.integer(key).and_then(|v| usize::try_from(v).ok())
}

#[cfg(test)]
mod tests {
    #[test]
    fn remotes_of_one_repository_normalize_alike() {
        for url in ["https://github.com/Owner/Repo", "https://github.com/Owner/Repo.git", "git@github.com:Owner/Repo.git", "ssh://git@GitHub.com/Owner/Repo/"] {
            assert_eq!(super::normalize_remote(url), "github.com/Owner/Repo", "{url}");
        }
        assert_eq!(super::normalize_remote("file:///tmp/x/src"), "/tmp/x/src");
    }
}
