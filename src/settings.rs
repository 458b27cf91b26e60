//! Settings, resolved once: flags (the frontend's [`Overrides`]) > the
//! environment > `git config rag.*` > defaults. The result is a [`Workspace`]
//! (the context a command works in: repository, index dir, vector backend,
//! model, chunking), from which the library's Options are made. Only this
//! module reads `git config rag.*`; the environment comes through [`crate::env`].

use std::path::{Path, PathBuf};

use std::time::Duration;

use crate::analysis::chunk::ChunkOptions;
use crate::git::Repo;
use crate::semantic::embed::{ApiOptions, ModelSource};
use crate::semantic::rerank::{RerankApi, RerankApiOptions, RerankerSource};
use crate::semantic::shared_cache::SharedCacheOptions;
use crate::stores::vector::server::ServerOptions;
use crate::stores::vector::Backend;

/// What a frontend's flags say; `None` leaves the choice to the environment,
/// git config and the defaults.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    /// Run as if started in this directory (`-C`).
    pub directory: Option<PathBuf>,
    pub index_dir: Option<PathBuf>,
    pub qdrant_url: Option<String>,
    /// With a Qdrant server: this branch's collections (`<prefix>_<branch>`).
    pub branch: Option<String>,
}

/// The context every command works in, resolved once.
pub struct Workspace {
    pub repo: Repo,
    pub index_dir: PathBuf,
    pub backend: Backend,
    /// Where vectors come from: `rag.embed.url` (an endpoint) or `rag.model` (a directory).
    pub model: ModelSource,
    pub chunk: ChunkOptions,
    /// `git config rag.semantic` (default true).
    pub semantic: bool,
    /// `git config rag.include` / `rag.exclude` (several values each).
    pub paths: crate::index::paths::PathRules,
    /// `git config rag.vectorCache server`: the configured Qdrant server is
    /// the team's vector cache this embedded index borrows from, not its store.
    pub shared_cache: Option<SharedCacheOptions>,
    /// Where `--rerank` gets its scores: `rag.rerank.url`, else a local cross-encoder.
    pub reranker: RerankerSource,
    /// The chat endpoint `git rag ask` answers with (`rag.chat.url`); `None` when none is set.
    pub chat: Option<crate::ask::ChatOptions>,
    /// `git serve --http`'s bearer token: `GIT_RAG_HTTP_TOKEN`, else `git config rag.http.token`.
    pub http_token: Option<String>,
    /// Origins besides loopback ones the HTTP API answers (`git config rag.http.allowOrigin`, several).
    pub http_allow_origins: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read the current directory: {0}")]
    CurrentDir(std::io::Error),
    #[error(transparent)]
    Git(#[from] crate::git::GitError),
}

impl Workspace {
    /// Finds the repository (from `-C` or the current directory) and resolves
    /// every setting.
    pub fn discover(overrides: &Overrides) -> Result<Workspace, SettingsError> {
        let cwd = match &overrides.directory {
            Some(d) => d.clone(),
            None => std::env::current_dir().map_err(SettingsError::CurrentDir)?,
        };
        let repo = Repo::discover(&cwd)?;
        Ok(Workspace::resolve(repo, overrides))
    }

    /// Resolves every setting for `repo`.
    pub fn resolve(repo: Repo, overrides: &Overrides) -> Workspace {
        let index_dir = index_dir(&repo, overrides.index_dir.as_deref());
        let mut backend = backend(&repo, overrides.qdrant_url.as_deref());
        let branch = overrides.branch.clone().filter(|b| !b.is_empty()).or_else(crate::env::branch);
        if let (Some(b), Backend::Server(o)) = (&branch, &mut backend) {
            o.prefix = branch_prefix(&o.prefix, b);
        }
        let mut shared_cache = None;
        if let (Backend::Server(server), true) = (&backend, vector_cache_on_server(&repo)) {
            let write_back = config_bool(&repo, "rag.vectorCacheWrite").unwrap_or(false);
            shared_cache = Some(SharedCacheOptions { server: server.clone(), write_back });
            backend = Backend::embedded();
        }
        if let Backend::Embedded { vector_cache } = &mut backend {
            *vector_cache = Some(vector_cache_dir(&repo, &index_dir));
        }
        Workspace {
            index_dir,
            backend,
            model: model_source(&repo),
            reranker: reranker_source(&repo),
            chat: chat_options(&repo),
            http_token: crate::env::http_token().or_else(|| config_string(&repo, "rag.http.token")).filter(|t| !t.trim().is_empty()),
            http_allow_origins: config_strings(&repo, "rag.http.allowOrigin"),
            chunk: chunk_options(&repo),
            semantic: semantic_enabled(&repo),
            paths: path_rules(&repo),
            shared_cache,
            repo,
        }
    }

    /// Options of an index run in this workspace (the defaults of `git rag index`).
    pub fn index_options(&self, lock_wait: Duration) -> crate::index::IndexOptions {
        crate::index::IndexOptions {
            full: false,
            rev: None,
            chunk: self.chunk,
            lock_wait,
            semantic: crate::index::SemanticOptions {
                enabled: self.semantic,
                model: self.model.clone(),
                backend: self.backend.clone(),
                embed: crate::semantic::embed::EmbedOptions::default(),
                shared_cache: self.shared_cache.clone(),
            },
            reindex: Vec::new(),
            paths: self.paths.clone(),
            history: history_options(&self.repo),
            memory: crate::index::MemoryBounds::default(),
        }
    }

    /// What queries need to open the semantic layer; `None` when it is turned off.
    pub fn semantic_setup(&self, wait: Duration, one_shot: bool) -> Option<crate::query::sources::engine::SemanticSetup> {
        self.semantic.then(|| crate::query::sources::engine::SemanticSetup { backend: self.backend.clone(), model: self.model.clone(), wait, one_shot })
    }
}

pub use crate::stores::vector::branch_prefix;

/// Where the index of `repo` lives: `--index-dir`, then `GIT_RAG_DIR`, then
/// `git config rag.indexDir`, then `<git-dir>/rag`.
pub fn index_dir(repo: &Repo, cli: Option<&Path>) -> PathBuf {
    if let Some(dir) = cli {
        return dir.to_path_buf();
    }
    if let Some(dir) = crate::env::index_dir() {
        return PathBuf::from(dir);
    }
    if let Some(dir) = config_string(repo, "rag.indexDir") {
        return PathBuf::from(dir);
    }
    repo.git_dir().join("rag")
}

/// Where the embedded store keeps its vector cache: `git config
/// rag.vectorCacheDir`, else, for an index in its default place, git's
/// common directory (`<common-dir>/rag-vectors`: one cache for every
/// worktree of the repository, so a vector is computed once), else beside
/// the index (an index placed elsewhere carries its vectors with it).
pub fn vector_cache_dir(repo: &Repo, index_dir: &Path) -> PathBuf {
    if let Some(dir) = config_string(repo, "rag.vectorCacheDir") {
        return PathBuf::from(dir);
    }
    if index_dir == repo.git_dir().join("rag") {
        return repo.common_dir().join("rag-vectors");
    }
    index_dir.join("vectors")
}

/// Chunking options, with `rag.chunkBudget`, `rag.maxFileBytes` and
/// `rag.windowLines` from git config overriding the defaults.
impl Workspace {
    /// How the work tree is laid over the index: with the index's own chunking and path rules.
    pub fn layer_options(&self) -> crate::worktree::LayerOptions {
        let index_dir = self.index_dir.canonicalize().ok();
        crate::worktree::LayerOptions { chunk: self.chunk, paths: self.paths.clone(), index_dir }
    }
}

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

/// How much history the history store keeps: `git config rag.historyDepth`
/// (commits; 0 keeps none), else [`crate::index::history::DEFAULT_HISTORY_DEPTH`].
pub fn history_options(repo: &Repo) -> crate::index::history::HistoryOptions {
    let depth = config_usize(repo, "rag.historyDepth").unwrap_or(crate::index::history::DEFAULT_HISTORY_DEPTH);
    crate::index::history::HistoryOptions { depth }
}

/// `git config rag.include` and `rag.exclude`: every value of each.
pub fn path_rules(repo: &Repo) -> crate::index::paths::PathRules {
    crate::index::paths::PathRules { include: config_strings(repo, "rag.include"), exclude: config_strings(repo, "rag.exclude") }
}

/// Whether to build the semantic layer: `git config rag.semantic` (default true).
pub fn semantic_enabled(repo: &Repo) -> bool {
    let local = repo.local();
    let snapshot = local.config_snapshot();
    snapshot.boolean("rag.semantic").unwrap_or(true)
}

/// Where vectors come from: an OpenAI-compatible endpoint when `git config
/// rag.embed.url` names one (with `rag.embed.model`, and optionally
/// `rag.embed.dims`, `rag.embed.queryPrefix`, `rag.embed.documentPrefix`,
/// `rag.embed.batchSize`, `rag.embed.inFlight`, `rag.embed.timeoutSecs`, `rag.embed.retries`,
/// the API key from `GIT_RAG_EMBED_API_KEY`); else the ONNX model directory
/// `git config rag.model`, else the installed default.
pub fn model_source(repo: &Repo) -> ModelSource {
    if let Some(url) = config_string(repo, "rag.embed.url").filter(|u| !u.trim().is_empty()) {
        let model = config_string(repo, "rag.embed.model").unwrap_or_default();
        let mut o = ApiOptions::new(url.trim(), model.trim());
        o.dims = config_usize(repo, "rag.embed.dims").filter(|&d| d > 0);
        o.query_prefix = config_string(repo, "rag.embed.queryPrefix").unwrap_or_default();
        o.document_prefix = config_string(repo, "rag.embed.documentPrefix").unwrap_or_default();
        o.api_key = crate::env::embed_api_key();
        if let Some(n) = config_usize(repo, "rag.embed.batchSize") {
            o.batch_size = n.max(1);
        }
        if let Some(n) = config_usize(repo, "rag.embed.inFlight") {
            o.in_flight = n.max(1);
        }
        if let Some(n) = config_usize(repo, "rag.embed.retries") {
            o.retries = n.min(20) as u32;
        }
        if let Some(n) = config_usize(repo, "rag.embed.timeoutSecs") {
            o.timeout = Duration::from_secs(n.max(1) as u64);
        }
        return ModelSource::Api(o);
    }
    match config_string(repo, "rag.model") {
        Some(dir) => ModelSource::Onnx(PathBuf::from(dir)),
        None => ModelSource::default_onnx(),
    }
}

/// Where `--rerank` gets its scores: an endpoint when `git config
/// rag.rerank.url` names one (with `rag.rerank.model`, `rag.rerank.api`
/// = `cohere` (the default; Jina, vLLM, llama.cpp) or `tei`,
/// `rag.rerank.timeoutSecs`, `rag.rerank.retries`, the API key from
/// `GIT_RAG_RERANK_API_KEY`); else a cross-encoder in `GIT_RAG_RERANKER` or
/// beside the embedding model.
pub fn reranker_source(repo: &Repo) -> RerankerSource {
    let Some(url) = config_string(repo, "rag.rerank.url").filter(|u| !u.trim().is_empty()) else {
        return RerankerSource::Local(crate::semantic::rerank::reranker_dir(&model_source(repo).local_dir()));
    };
    let api = match config_string(repo, "rag.rerank.api") {
        None => RerankApi::Cohere,
        Some(name) => match RerankApi::from_name(&name) {
            Some(api) => api,
            None => {
                return RerankerSource::Misconfigured(format!("git config rag.rerank.api is `{name}`; expected `cohere` (also Jina, vLLM, llama.cpp) or `tei`"))
            }
        },
    };
    let model = config_string(repo, "rag.rerank.model").unwrap_or_default();
    let mut o = RerankApiOptions::new(url.trim(), model.trim(), api);
    o.api_key = crate::env::rerank_api_key();
    if let Some(n) = config_usize(repo, "rag.rerank.timeoutSecs") {
        o.timeout = Duration::from_secs(n.max(1) as u64);
    }
    if let Some(n) = config_usize(repo, "rag.rerank.retries") {
        o.retries = n.min(10) as u32;
    }
    RerankerSource::Api(o)
}

/// The chat endpoint of `git rag ask`: `git config rag.chat.url` (an
/// OpenAI-compatible base URL) with `rag.chat.model`, optionally
/// `rag.chat.timeoutSecs` and `rag.chat.retries`, the key from `GIT_RAG_CHAT_API_KEY`.
pub fn chat_options(repo: &Repo) -> Option<crate::ask::ChatOptions> {
    let url = config_string(repo, "rag.chat.url").filter(|u| !u.trim().is_empty())?;
    let model = config_string(repo, "rag.chat.model").unwrap_or_default();
    let mut o = crate::ask::ChatOptions::new(url.trim(), model.trim());
    o.api_key = crate::env::chat_api_key();
    if let Some(n) = config_usize(repo, "rag.chat.timeoutSecs") {
        o.timeout = Duration::from_secs(n.max(1) as u64);
    }
    if let Some(n) = config_usize(repo, "rag.chat.retries") {
        o.retries = n.min(10) as u32;
    }
    Some(o)
}

/// The vector store: a Qdrant server when `--qdrant-url`, `QDRANT_URL` or
/// `git config rag.qdrantUrl` names one (API key from `QDRANT_API_KEY`),
/// else the embedded engine.
pub fn backend(repo: &Repo, cli_url: Option<&str>) -> Backend {
    let url = cli_url.map(str::to_string).or_else(crate::env::qdrant_url).filter(|u| !u.is_empty()).or_else(|| config_string(repo, "rag.qdrantUrl"));
    let Some(url) = url else { return Backend::embedded() };
    Backend::Server(ServerOptions { url, api_key: crate::env::qdrant_api_key(), prefix: collection_prefix(repo), timeout: Duration::from_secs(60) })
}

/// `git config rag.vectorCache`: `server` makes the configured Qdrant server
/// a cache of vectors for the local (embedded) index; `local`, the default,
/// keeps the server as the store when one is configured.
pub fn vector_cache_on_server(repo: &Repo) -> bool {
    config_string(repo, "rag.vectorCache").is_some_and(|v| v.trim().eq_ignore_ascii_case("server"))
}

/// Prefix of this repository's collections on a shared server:
/// `git config rag.qdrantPrefix`, else `git_rag_<name>_<hash>` where the hash
/// is of the `origin` URL (so every clone of one project shares it) or, with
/// no remote, of the repository's path.
pub fn collection_prefix(repo: &Repo) -> String {
    if let Some(p) = config_string(repo, "rag.qdrantPrefix") {
        return crate::stores::vector::sanitize(&p);
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
    format!("git_rag_{}_{hash}", crate::stores::vector::sanitize(&name))
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

fn config_strings(repo: &Repo, key: &str) -> Vec<String> {
    let local = repo.local();
    let snapshot = local.config_snapshot();
    snapshot.plumbing().strings(key).unwrap_or_default().into_iter().map(|v| v.to_string()).filter(|v| !v.trim().is_empty()).collect()
}

fn config_bool(repo: &Repo, key: &str) -> Option<bool> {
    repo.local().config_snapshot().boolean(key)
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
