//! A chat endpoint in the OpenAI shape (`POST …/chat/completions`), as
//! Ollama, vLLM, llama.cpp's server, LM Studio and hosted APIs serve it. The
//! answer is asked for as a stream (server-sent events: `data: {"choices":
//! [{"delta": {"content": …}}]}` lines, then `data: [DONE]`) and pushed into
//! the caller's sink piece by piece; a server that answers with one JSON
//! object instead is read whole.
//!
//! Until the first piece arrives a failure that may pass (refused or reset
//! connection, 429, 5xx, no answer in time) is retried; after it, a broken
//! stream is an error that says how much had arrived.

use std::io::{BufRead, BufReader};
use std::time::Duration;

use serde::Deserialize;

use crate::endpoint::{classify, parse_retry_after, snippet, with_retries, Failure};

/// Where and how to reach the endpoint (`git config rag.chat.*`).
#[derive(Clone, PartialEq)]
pub struct ChatOptions {
    /// A base URL (`http://localhost:11434/v1`), to which `/chat/completions`
    /// is added, or the full URL ending in `/chat/completions`.
    pub url: String,
    pub model: String,
    /// Sent as `Authorization: Bearer …`; never printed.
    pub api_key: Option<String>,
    /// Longest wait for the answer to start, and between two of its pieces
    /// (a local model may take a while to load).
    pub timeout: Duration,
    /// Retries before the answer starts.
    pub retries: u32,
}

impl std::fmt::Debug for ChatOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatOptions")
            .field("url", &self.url)
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "<hidden>"))
            .field("timeout", &self.timeout)
            .field("retries", &self.retries)
            .finish()
    }
}

impl ChatOptions {
    pub fn new(url: &str, model: &str) -> ChatOptions {
        ChatOptions { url: url.to_string(), model: model.to_string(), api_key: None, timeout: Duration::from_secs(120), retries: 2 }
    }

    /// The URL requests go to.
    pub fn endpoint(&self) -> String {
        let base = self.url.trim_end_matches('/');
        if base.ends_with("/chat/completions") {
            base.to_string()
        } else {
            format!("{base}/chat/completions")
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error("the chat endpoint {url}: {message}")]
    Endpoint { url: String, message: String },
    #[error("the chat endpoint {url} stopped mid-answer after {received} characters: {message}")]
    Interrupted { url: String, received: usize, message: String },
    #[error("writing the answer: {0}")]
    Sink(#[source] std::io::Error),
}

/// One message of the conversation.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Message {
    pub role: &'static str,
    pub content: String,
}

pub struct ChatClient {
    opts: ChatOptions,
    endpoint: String,
    agent: ureq::Agent,
}

/// One event of a stream, or the whole answer of a server that does not stream.
#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    delta: Option<Content>,
    #[serde(default)]
    message: Option<Content>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    content: Option<String>,
}

/// Largest error answer read, and largest non-streamed answer.
const MAX_ANSWER_BYTES: u64 = 8 << 20;

impl ChatClient {
    pub fn new(opts: ChatOptions) -> ChatClient {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_connect(Some(Duration::from_secs(10)))
            .timeout_recv_response(Some(opts.timeout))
            .timeout_per_read(Some(opts.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        ChatClient { endpoint: opts.endpoint(), opts, agent }
    }

    pub fn options(&self) -> &ChatOptions {
        &self.opts
    }

    /// Asks for an answer to `messages`, pushing each piece into `sink` as it
    /// arrives; returns the whole answer.
    pub fn complete(&self, messages: &[Message], sink: &mut dyn FnMut(&str) -> std::io::Result<()>) -> Result<String, ChatError> {
        let body = serde_json::json!({ "model": self.opts.model, "messages": messages, "stream": true, "temperature": 0 }).to_string();
        let response = with_retries(self.opts.retries, || self.open(&body)).map_err(|message| self.error(message))?;
        let streamed = response.headers().get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|t| t.contains("text/event-stream"));
        if streamed {
            self.read_stream(response, sink)
        } else {
            self.read_whole(response, sink)
        }
    }

    /// Sends the request; a 2xx answer's response, else why not.
    fn open(&self, body: &str) -> Result<ureq::http::Response<ureq::Body>, Failure> {
        let mut req = self.agent.post(&self.endpoint).header("Content-Type", "application/json").header("Accept", "text/event-stream");
        if let Some(key) = &self.opts.api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let mut response = req.send(body).map_err(classify)?;
        let status = response.status().as_u16();
        if (200..300).contains(&status) {
            return Ok(response);
        }
        let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
        let text = response.body_mut().with_config().limit(MAX_ANSWER_BYTES).read_to_string().unwrap_or_default();
        let reason = format!("HTTP {status}: {}", snippet(&text));
        match status {
            408 | 429 | 500..=599 => Err(Failure::Transient { reason, retry_after }),
            _ => Err(Failure::Fatal(reason)),
        }
    }

    fn read_stream(&self, mut response: ureq::http::Response<ureq::Body>, sink: &mut dyn FnMut(&str) -> std::io::Result<()>) -> Result<String, ChatError> {
        let mut answer = String::new();
        let mut finished = false;
        let mut reader = BufReader::new(response.body_mut().as_reader());
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => return Err(self.interrupted(&answer, format!("reading the stream: {e}"))),
            }
            let Some(data) = line.trim_end_matches(['\r', '\n']).strip_prefix("data:") else { continue };
            let data = data.trim();
            if data == "[DONE]" {
                return Ok(answer);
            }
            let chunk: Chunk = serde_json::from_str(data)
                .map_err(|e| self.interrupted(&answer, format!("an event that is not the OpenAI chat shape ({e}): {}", snippet(data))))?;
            if let Some(error) = chunk.error {
                return Err(self.interrupted(&answer, format!("the server reported an error: {}", snippet(&error.to_string()))));
            }
            for choice in chunk.choices {
                if let Some(piece) = choice.delta.and_then(|d| d.content).filter(|p| !p.is_empty()) {
                    sink(&piece).map_err(ChatError::Sink)?;
                    answer.push_str(&piece);
                }
                finished |= choice.finish_reason.is_some();
            }
        }
        // Some servers end the stream after the last event without `[DONE]`.
        if finished {
            Ok(answer)
        } else {
            Err(self.interrupted(&answer, "the connection closed before the answer was complete".into()))
        }
    }

    fn read_whole(&self, mut response: ureq::http::Response<ureq::Body>, sink: &mut dyn FnMut(&str) -> std::io::Result<()>) -> Result<String, ChatError> {
        let text = response.body_mut().with_config().limit(MAX_ANSWER_BYTES).read_to_string().map_err(|e| self.error(format!("reading the answer: {e}")))?;
        let chunk: Chunk =
            serde_json::from_str(&text).map_err(|e| self.error(format!("an answer that is not the OpenAI chat shape ({e}): {}", snippet(&text))))?;
        if let Some(error) = chunk.error {
            return Err(self.error(format!("the server reported an error: {}", snippet(&error.to_string()))));
        }
        let answer: String = chunk.choices.into_iter().filter_map(|c| c.message.and_then(|m| m.content)).collect();
        if answer.is_empty() {
            return Err(self.error(format!("an answer without content: {}", snippet(&text))));
        }
        sink(&answer).map_err(ChatError::Sink)?;
        Ok(answer)
    }

    fn error(&self, message: String) -> ChatError {
        ChatError::Endpoint { url: self.endpoint.clone(), message }
    }

    fn interrupted(&self, answer: &str, message: String) -> ChatError {
        ChatError::Interrupted { url: self.endpoint.clone(), received: answer.chars().count(), message }
    }
}
