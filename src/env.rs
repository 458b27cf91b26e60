//! Every environment variable git-rag reads, in one place (a leaf module:
//! any layer may ask it). An empty variable counts as unset.

use std::ffi::OsString;

fn var(name: &str) -> Option<OsString> {
    std::env::var_os(name).filter(|v| !v.is_empty())
}

fn string(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// `GIT_CONFIG_PARAMETERS`: the settings `git -c key=value` hands a git
/// subcommand (`git -c rag.chat.url=… rag ask`), as `key=value` (a key
/// alone: `key`, which git reads as true), in the order given. Git writes
/// them shell-quoted: `'key'='value'`, or `'key=value'` before git 2.31.
pub fn git_config_parameters() -> Vec<String> {
    string("GIT_CONFIG_PARAMETERS").map(|s| parse_config_parameters(&s)).unwrap_or_default()
}

/// One single-quoted word of git's `sq_quote` at the start of `rest` (a
/// quote inside is written `'\''`, a `!` `'\!'`); the word and what follows it.
fn sq_word(rest: &str) -> Option<(String, &str)> {
    let mut rest = rest.strip_prefix('\'')?;
    let mut word = String::new();
    loop {
        let end = rest.find('\'')?;
        word.push_str(&rest[..end]);
        rest = &rest[end + 1..];
        // `'\X'`: an escaped character between two quoted runs.
        let mut chars = rest.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some('\\'), Some(c), Some('\'')) => {
                word.push(c);
                rest = &rest[1 + c.len_utf8() + 1..];
            }
            _ => return Some((word, rest)),
        }
    }
}

fn parse_config_parameters(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let Some((key, after)) = sq_word(rest) else { break };
        rest = after;
        match rest.strip_prefix('=') {
            Some(value) => {
                let Some((value, after)) = sq_word(value) else { break };
                out.push(format!("{key}={value}"));
                rest = after;
            }
            None => out.push(key),
        }
        rest = rest.trim_start();
    }
    out
}

/// `GIT_RAG_MODEL_GRAPH`: `integer` makes `git rag model install` build the
/// default model's integer graph and use it where it agrees with the
/// reference; `reference` (the default) keeps the reference graph.
pub fn model_graph() -> Option<String> {
    string("GIT_RAG_MODEL_GRAPH")
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

/// `XDG_CONFIG_HOME` (git's global excludes file lies under it).
pub fn xdg_config_home() -> Option<OsString> {
    var("XDG_CONFIG_HOME")
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

#[cfg(test)]
mod tests {
    use super::parse_config_parameters as parse;

    #[test]
    fn git_c_settings_are_read_as_git_writes_them() {
        // git >= 2.31: 'key'='value'; before: 'key=value'; a bare key; quotes and bangs escaped.
        assert_eq!(parse("'rag.chat.url'='http://127.0.0.1:9/v1'"), ["rag.chat.url=http://127.0.0.1:9/v1"]);
        assert_eq!(parse("'rag.semantic=false' 'core.abbrev'='7'"), ["rag.semantic=false", "core.abbrev=7"]);
        assert_eq!(parse("'rag.semantic'"), ["rag.semantic"]);
        assert_eq!(parse("'rag.chat.model'='it'\\''s a '\\!' model'"), ["rag.chat.model=it's a ! model"]);
        assert_eq!(parse("'a.b'='x y' 'c.d'=''"), ["a.b=x y", "c.d="]);
        assert!(parse("").is_empty());
        // Malformed: what was read before it is kept.
        assert_eq!(parse("'a.b'='1' broken"), ["a.b=1"]);
    }
}
