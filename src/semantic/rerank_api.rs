//! Reranking by an endpoint (`git config rag.rerank.url`), in the two shapes
//! servers speak:
//!
//! - [`RerankApi::Cohere`]: `POST …/rerank` with `{model, query, documents,
//!   top_n}`, answered with `{results: [{index, relevance_score}]}`: Cohere,
//!   Jina, Voyage (`data`), vLLM, llama.cpp's server, LocalAI.
//! - [`RerankApi::Tei`]: Hugging Face text-embeddings-inference, `POST
//!   /rerank` with `{query, texts}`, answered with `[{index, score}]`.
//!
//! A query waits on this call, so it has a short timeout and few retries;
//! when it fails the caller keeps the fused order and says why.

use std::time::Duration;

use serde::Deserialize;

use super::rerank::RerankError;
use crate::endpoint::{post_json, snippet, with_retries, Failure};

/// Which request shape the endpoint speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RerankApi {
    Cohere,
    Tei,
}

impl RerankApi {
    /// `git config rag.rerank.api`: `cohere` (also `jina`, `vllm`,
    /// `llama.cpp`, `voyage`) or `tei`.
    pub fn from_name(name: &str) -> Option<RerankApi> {
        match name.trim().to_ascii_lowercase().as_str() {
            "cohere" | "jina" | "vllm" | "llama.cpp" | "llamacpp" | "voyage" | "localai" => Some(RerankApi::Cohere),
            "tei" | "text-embeddings-inference" => Some(RerankApi::Tei),
            _ => None,
        }
    }
}

/// Where and how to reach the endpoint (`git config rag.rerank.*`).
#[derive(Clone, PartialEq)]
pub struct RerankApiOptions {
    /// A base URL (`http://localhost:8080`, `https://api.cohere.com/v2`), to
    /// which `/rerank` is added, or the full URL ending in `/rerank`.
    pub url: String,
    /// The model name the endpoint knows (not sent to TEI, which serves one).
    pub model: String,
    pub api: RerankApi,
    /// Sent as `Authorization: Bearer …`; never printed.
    pub api_key: Option<String>,
    /// Per request, connecting included.
    pub timeout: Duration,
    /// Retries of a request that failed in a way that may pass (429, 5xx, a reset).
    pub retries: u32,
}

impl std::fmt::Debug for RerankApiOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RerankApiOptions")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api", &self.api)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .finish()
    }
}

impl RerankApiOptions {
    /// Options with the defaults for everything but the endpoint and model.
    pub fn new(url: &str, model: &str, api: RerankApi) -> RerankApiOptions {
        RerankApiOptions { url: url.to_string(), model: model.to_string(), api, api_key: None, timeout: Duration::from_secs(10), retries: 2 }
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        let base = self.url.trim_end_matches('/');
        if base.ends_with("/rerank") {
            base.to_string()
        } else {
            format!("{base}/rerank")
        }
    }
}

/// A client of one rerank endpoint.
pub struct ApiReranker {
    opts: RerankApiOptions,
    endpoint: String,
    agent: ureq::Agent,
}

/// `{results: […]}` (Cohere, Jina, vLLM, llama.cpp), `{data: […]}` (Voyage) or a bare list (TEI).
#[derive(Deserialize)]
#[serde(untagged)]
enum Answer {
    Wrapped {
        #[serde(alias = "data")]
        results: Vec<Scored>,
    },
    Bare(Vec<Scored>),
}

#[derive(Deserialize)]
struct Scored {
    index: usize,
    #[serde(alias = "score")]
    relevance_score: f32,
}

/// Largest answer read.
const MAX_ANSWER_BYTES: u64 = 16 << 20;

impl ApiReranker {
    pub fn new(opts: RerankApiOptions) -> ApiReranker {
        let agent: ureq::Agent = ureq::Agent::config_builder().timeout_global(Some(opts.timeout)).http_status_as_error(false).build().into();
        ApiReranker { endpoint: opts.endpoint(), opts, agent }
    }

    /// Relevance of each passage to `query`, in the passages' order; `None`
    /// for a passage the endpoint did not score.
    pub fn score(&self, query: &str, passages: &[String]) -> Result<Vec<Option<f32>>, RerankError> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let body = match self.opts.api {
            RerankApi::Cohere if self.opts.model.is_empty() => {
                serde_json::json!({ "query": query, "documents": passages, "top_n": passages.len() })
            }
            RerankApi::Cohere => serde_json::json!({ "model": self.opts.model, "query": query, "documents": passages, "top_n": passages.len() }),
            // `truncate`: TEI refuses texts longer than its model reads unless told to cut them.
            RerankApi::Tei => serde_json::json!({ "query": query, "texts": passages, "truncate": true }),
        }
        .to_string();
        let key = self.opts.api_key.as_deref();
        // A query is waiting: a timeout is not tried again.
        let attempt = || match post_json(&self.agent, &self.endpoint, key, &body, MAX_ANSWER_BYTES) {
            Err(Failure::TimedOut(reason)) => Err(Failure::Fatal(format!("no answer within {} s ({reason})", self.opts.timeout.as_secs_f32()))),
            other => other,
        };
        let text = with_retries(self.opts.retries, attempt).map_err(|message| self.error(message))?;
        self.parse(&text, passages.len())
    }

    fn parse(&self, text: &str, n: usize) -> Result<Vec<Option<f32>>, RerankError> {
        let answer: Answer =
            serde_json::from_str(text).map_err(|_| self.error(format!("an answer that is neither the Cohere nor the TEI rerank shape: {}", snippet(text))))?;
        let (Answer::Wrapped { results } | Answer::Bare(results)) = answer;
        let mut scores = vec![None; n];
        for s in results {
            let slot = scores.get_mut(s.index).ok_or_else(|| self.error(format!("scored document {} of {n}", s.index)))?;
            if slot.is_some() {
                return Err(self.error(format!("scored document {} twice", s.index)));
            }
            if !s.relevance_score.is_finite() {
                return Err(self.error(format!("gave document {} the score {}", s.index, s.relevance_score)));
            }
            *slot = Some(s.relevance_score);
        }
        Ok(scores)
    }

    fn error(&self, message: String) -> RerankError {
        RerankError::Api { url: self.endpoint.clone(), message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_names_and_secrets() {
        let o = RerankApiOptions::new("http://localhost:8080/", "m", RerankApi::Tei);
        assert_eq!(o.endpoint(), "http://localhost:8080/rerank");
        assert_eq!(RerankApiOptions::new("https://api.jina.ai/v1/rerank", "m", RerankApi::Cohere).endpoint(), "https://api.jina.ai/v1/rerank");
        assert_eq!(RerankApi::from_name(" vLLM "), Some(RerankApi::Cohere));
        assert_eq!(RerankApi::from_name("tei"), Some(RerankApi::Tei));
        assert_eq!(RerankApi::from_name("openai"), None);
        let mut k = o.clone();
        k.api_key = Some("sk-secret".into());
        assert!(!format!("{k:?}").contains("sk-secret"));
    }

    #[test]
    fn answers_of_every_shape_are_read_and_bad_ones_refused() {
        let r = ApiReranker::new(RerankApiOptions::new("http://127.0.0.1:9", "m", RerankApi::Cohere));
        let cohere = r#"{"id":"x","results":[{"index":2,"relevance_score":0.9},{"index":0,"relevance_score":0.1}]}"#;
        assert_eq!(r.parse(cohere, 3).ok(), Some(vec![Some(0.1), None, Some(0.9)]));
        let tei = r#"[{"index":1,"score":-2.5},{"index":0,"score":3.0}]"#;
        assert_eq!(r.parse(tei, 2).ok(), Some(vec![Some(3.0), Some(-2.5)]));
        let voyage = r#"{"data":[{"index":0,"relevance_score":0.5}]}"#;
        assert_eq!(r.parse(voyage, 1).ok(), Some(vec![Some(0.5)]));
        for bad in ["not json", r#"{"results":[{"index":5,"relevance_score":1}]}"#, r#"[{"index":0,"score":1},{"index":0,"score":2}]"#, r#"{"embeddings":[]}"#]
        {
            let e = r.parse(bad, 2).expect_err(bad).to_string();
            assert!(e.contains("http://127.0.0.1:9/rerank"), "{e}");
        }
    }
}
