//! Embeddings from an OpenAI-compatible endpoint: `POST <url>/embeddings`
//! with `{"model", "input": [texts]}`, answered with `{"data": [{"index",
//! "embedding"}]}`, the shape Ollama, text-embeddings-inference, vLLM,
//! LM Studio and hosted APIs serve.
//!
//! Texts go in batches with a few requests in flight. Failures that may
//! pass (connection refused or reset, timeouts, 429, 5xx) are retried with
//! exponential backoff, honouring `Retry-After`; anything else is an error
//! that names the endpoint and what it answered. The API key is sent as a
//! bearer token and never printed (`Debug` hides it).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use serde::Deserialize;

use super::embed::{normalize, EmbedError, Result};
use crate::endpoint::{post_json, snippet, with_retries};

/// Where and how to reach the endpoint (`git config rag.embed.*`).
#[derive(Clone, PartialEq)]
pub struct ApiOptions {
    /// A base URL (`http://localhost:11434/v1`), to which `/embeddings` is
    /// added, or the full URL ending in `/embeddings`.
    pub url: String,
    /// The model name the endpoint knows.
    pub model: String,
    /// The vectors' size; `None` asks the endpoint once (one short text).
    pub dims: Option<usize>,
    pub query_prefix: String,
    pub document_prefix: String,
    /// Sent as `Authorization: Bearer …`; never printed.
    pub api_key: Option<String>,
    /// Texts per request.
    pub batch_size: usize,
    /// Requests in flight at once.
    pub in_flight: usize,
    /// Per request, connecting included.
    pub timeout: Duration,
    /// Retries of a request that failed in a way that may pass.
    pub retries: u32,
}

impl std::fmt::Debug for ApiOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ApiOptions")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("dims", &self.dims)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("batch_size", &self.batch_size)
            .field("in_flight", &self.in_flight)
            .finish_non_exhaustive()
    }
}

impl ApiOptions {
    /// Options with the defaults for everything but the endpoint and model.
    pub fn new(url: &str, model: &str) -> ApiOptions {
        ApiOptions {
            url: url.to_string(),
            model: model.to_string(),
            dims: None,
            query_prefix: String::new(),
            document_prefix: String::new(),
            api_key: None,
            batch_size: 32,
            in_flight: 4,
            timeout: Duration::from_secs(120),
            retries: 5,
        }
    }

    /// The model identity vectors are cached and stored under: the provider
    /// kind and the model name. Not the host, so that a team's CI and its
    /// developers, reaching the same model at different addresses, share vectors.
    pub fn model_id(&self) -> String {
        format!("api:{}", self.model)
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        let base = self.url.trim_end_matches('/');
        if base.ends_with("/embeddings") {
            base.to_string()
        } else {
            format!("{base}/embeddings")
        }
    }
}

/// A client of one endpoint.
pub struct ApiEmbedder {
    opts: ApiOptions,
    endpoint: String,
    agent: ureq::Agent,
    /// Configured, or learned from the first answer; every later answer must agree.
    dims: OnceLock<usize>,
}

#[derive(Deserialize)]
struct Answer {
    data: Vec<Item>,
}

#[derive(Deserialize)]
struct Item {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

/// Largest answer read (a batch of large vectors as JSON).
const MAX_ANSWER_BYTES: u64 = 256 << 20;

impl ApiEmbedder {
    /// A client; nothing is sent until the first texts.
    pub fn new(opts: ApiOptions) -> ApiEmbedder {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(opts.timeout))
            .http_status_as_error(false)
            .max_idle_connections_per_host(opts.in_flight.max(1))
            .build()
            .into();
        let dims = OnceLock::new();
        if let Some(d) = opts.dims {
            let _ = dims.set(d);
        }
        ApiEmbedder { endpoint: opts.endpoint(), opts, agent, dims }
    }

    pub fn options(&self) -> &ApiOptions {
        &self.opts
    }

    /// The vectors' size: configured, or asked of the endpoint with one short text.
    pub fn dims(&self) -> Result<usize> {
        if let Some(&d) = self.dims.get() {
            return Ok(d);
        }
        let v = self.request(&["dimension probe".to_string()])?;
        v.first().map(Vec::len).ok_or_else(|| self.error("answered no vector".into()))
    }

    pub fn embed_documents(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let prefixed: Vec<String> = texts.iter().map(|t| format!("{}{t}", self.opts.document_prefix)).collect();
        self.embed(&prefixed)
    }

    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        let mut v = self.request(&[format!("{}{text}", self.opts.query_prefix)])?;
        v.pop().ok_or_else(|| self.error("answered no vector for the query".into()))
    }

    /// Batches in input order, `in_flight` requests at a time; the first
    /// failure stops the batches not yet sent.
    fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let batches: Vec<&[String]> = texts.chunks(self.opts.batch_size.max(1)).collect();
        let slots: Vec<Mutex<Option<Result<Vec<Vec<f32>>>>>> = batches.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let failed = AtomicBool::new(false);
        let workers = self.opts.in_flight.clamp(1, batches.len().max(1));
        std::thread::scope(|s| {
            for _ in 0..workers {
                s.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= batches.len() || failed.load(Ordering::Relaxed) {
                        break;
                    }
                    let result = self.request(batches[i]);
                    if result.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    if let Ok(mut slot) = slots[i].lock() {
                        *slot = Some(result);
                    }
                });
            }
        });
        let mut out = Vec::with_capacity(texts.len());
        for slot in slots {
            match slot.into_inner().ok().flatten() {
                Some(Ok(vectors)) => out.extend(vectors),
                Some(Err(e)) => return Err(e),
                // Not sent because an earlier batch failed: that failure is returned first.
                None => continue,
            }
        }
        if out.len() != texts.len() {
            return Err(self.error(format!("returned {} vectors for {} texts", out.len(), texts.len())));
        }
        Ok(out)
    }

    /// One batch, retried while its failures may pass.
    fn request(&self, inputs: &[String]) -> Result<Vec<Vec<f32>>> {
        let body = serde_json::json!({ "model": self.opts.model, "input": inputs, "encoding_format": "float" }).to_string();
        let key = self.opts.api_key.as_deref();
        let text =
            with_retries(self.opts.retries, || post_json(&self.agent, &self.endpoint, key, &body, MAX_ANSWER_BYTES)).map_err(|message| self.error(message))?;
        self.parse(&text, inputs.len())
    }

    fn parse(&self, text: &str, expected: usize) -> Result<Vec<Vec<f32>>> {
        let answer: Answer =
            serde_json::from_str(text).map_err(|e| self.error(format!("an answer that is not the OpenAI embeddings shape ({e}): {}", snippet(text))))?;
        if answer.data.len() != expected {
            return Err(self.error(format!("returned {} vectors for {expected} texts", answer.data.len())));
        }
        let mut items = answer.data;
        if items.iter().all(|i| i.index.is_some()) {
            items.sort_by_key(|i| i.index);
        }
        let mut vectors = Vec::with_capacity(items.len());
        for item in items {
            let mut v = item.embedding;
            let want = *self.dims.get_or_init(|| v.len());
            if v.len() != want || v.is_empty() {
                return Err(EmbedError::Dims { from: self.endpoint.clone(), got: v.len(), expected: want });
            }
            normalize(&mut v);
            vectors.push(v);
        }
        Ok(vectors)
    }

    fn error(&self, message: String) -> EmbedError {
        EmbedError::Api { url: self.endpoint.clone(), message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_and_identity() {
        let o = ApiOptions::new("http://localhost:11434/v1/", "nomic-embed-text");
        assert_eq!(o.endpoint(), "http://localhost:11434/v1/embeddings");
        assert_eq!(ApiOptions::new("https://x.example/v1/embeddings", "m").endpoint(), "https://x.example/v1/embeddings");
        assert_eq!(o.model_id(), "api:nomic-embed-text");
        let mut k = o.clone();
        k.api_key = Some("sk-secret".into());
        assert!(!format!("{k:?}").contains("sk-secret"));
    }
}
