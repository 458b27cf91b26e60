//! Options from the command line, the environment and `git config rag.*`,
//! in that order of precedence.

use std::path::{Path, PathBuf};

use crate::chunk::ChunkOptions;
use crate::git::Repo;

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
