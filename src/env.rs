//! Every environment variable git-rag reads, in one place (a leaf module:
//! any layer may ask it). An empty variable counts as unset.

use std::ffi::OsString;

fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn string(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// `GIT_RAG_DIR`: where the index lives.
pub fn index_dir() -> Option<OsString> {
    var("GIT_RAG_DIR")
}

/// `QDRANT_URL`: a Qdrant server to keep the vectors in.
pub fn qdrant_url() -> Option<String> {
    string("QDRANT_URL")
}

/// `QDRANT_API_KEY`: its API key (never printed).
pub fn qdrant_api_key() -> Option<String> {
    string("QDRANT_API_KEY")
}

/// `GIT_RAG_EMBED_API_KEY`: the key of an embeddings endpoint (never printed).
pub fn embed_api_key() -> Option<String> {
    string("GIT_RAG_EMBED_API_KEY")
}

/// `GIT_RAG_RERANK_API_KEY`: the rerank endpoint's bearer token.
pub fn rerank_api_key() -> Option<String> {
    string("GIT_RAG_RERANK_API_KEY")
}

/// `GIT_RAG_CHAT_API_KEY`: the chat endpoint's bearer token.
pub fn chat_api_key() -> Option<String> {
    string("GIT_RAG_CHAT_API_KEY")
}

/// `GIT_RAG_HTTP_TOKEN`: the bearer token `serve --http` requires.
pub fn http_token() -> Option<String> {
    string("GIT_RAG_HTTP_TOKEN")
}

/// `GIT_RAG_BRANCH`: with a server, the branch whose collections to use.
pub fn branch() -> Option<String> {
    string("GIT_RAG_BRANCH")
}

/// `GIT_RAG_CACHE`: the cache dir for the runtime and models.
pub fn cache_dir() -> Option<OsString> {
    var("GIT_RAG_CACHE")
}

/// `XDG_CACHE_HOME`.
pub fn xdg_cache_home() -> Option<OsString> {
    var("XDG_CACHE_HOME")
}

/// `HOME`.
pub fn home() -> Option<OsString> {
    var("HOME")
}

/// `PATH`.
pub fn path() -> Option<OsString> {
    var("PATH")
}

/// `GIT_RAG_ORT_LIB`: another ONNX Runtime library.
pub fn ort_library() -> Option<OsString> {
    var("GIT_RAG_ORT_LIB")
}

/// `GIT_RAG_PYTHON`: the Python that runs `pip download` (default `python3`).
pub fn python() -> String {
    string("GIT_RAG_PYTHON").unwrap_or_else(|| "python3".into())
}

/// `GIT_RAG_RERANKER`: a cross-encoder model dir.
pub fn reranker() -> Option<OsString> {
    var("GIT_RAG_RERANKER")
}

/// Error injection for tests: `GIT_RAG_FAULT=<name>` makes the operation
/// of that name fail with an error (as a full disk or a lost server would).
pub fn fault(name: &str) -> bool {
    var("GIT_RAG_FAULT").is_some_and(|v| v == name)
}

/// Fault injection for crash tests: `GIT_RAG_FAILPOINT=<name>` kills the
/// process at that point as abruptly as `kill -9` would (no destructors run).
pub fn failpoint(name: &str) {
    if var("GIT_RAG_FAILPOINT").is_some_and(|v| v == name) {
        std::process::abort();
    }
}
