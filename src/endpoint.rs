//! What the clients of HTTP endpoints (embeddings, rerank, chat) share: one
//! outcome classified as worth retrying or not, backoff, `Retry-After`, and
//! short quotes of what a server answered for error messages.

use std::time::Duration;

/// How one attempt failed.
pub(crate) enum Failure {
    /// Worth another try, after the server's `Retry-After` if it gave one.
    Transient {
        reason: String,
        retry_after: Option<Duration>,
    },
    /// No answer in time: worth another try for work that can wait (an
    /// index run), not for a query waiting on it.
    TimedOut(String),
    Fatal(String),
}

/// Longest wait a `Retry-After` may ask for before the next attempt.
pub(crate) const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

/// Sends `body` as JSON to `url` (with the bearer `key`) and reads at most
/// `limit` bytes of the answer; a 2xx answer is its text, 408/429/5xx and
/// broken connections are transient, anything else is fatal.
pub(crate) fn post_json(agent: &ureq::Agent, url: &str, key: Option<&str>, body: &str, limit: u64) -> Result<String, Failure> {
    let mut req = agent.post(url).header("Content-Type", "application/json");
    if let Some(key) = key {
        req = req.header("Authorization", &format!("Bearer {key}"));
    }
    let mut response = req.send(body).map_err(classify)?;
    let status = response.status().as_u16();
    let retry_after = response.headers().get("retry-after").and_then(|v| v.to_str().ok()).and_then(parse_retry_after);
    let text = response.body_mut().with_config().limit(limit).read_to_string().map_err(|e| match classify(e) {
        Failure::TimedOut(reason) => Failure::TimedOut(format!("reading the answer: {reason}")),
        _ => Failure::Transient { reason: "reading the answer: the connection broke".into(), retry_after: None },
    })?;
    match status {
        200..=299 => Ok(text),
        408 | 429 | 500..=599 => Err(Failure::Transient { reason: format!("HTTP {status}: {}", snippet(&text)), retry_after }),
        _ => Err(Failure::Fatal(format!("HTTP {status}: {}", snippet(&text)))),
    }
}

/// Runs `attempt` until it succeeds, fails fatally, or has failed
/// transiently `retries + 1` times; the error is the last failure's reason.
pub(crate) fn with_retries<T>(retries: u32, mut attempt: impl FnMut() -> Result<T, Failure>) -> Result<T, String> {
    let mut n = 0u32;
    loop {
        let (reason, retry_after) = match attempt() {
            Ok(v) => return Ok(v),
            Err(Failure::Fatal(message)) => return Err(message),
            Err(Failure::TimedOut(reason)) => (reason, None),
            Err(Failure::Transient { reason, retry_after }) => (reason, retry_after),
        };
        if n >= retries {
            return Err(format!("{reason} (gave up after {} attempts)", n + 1));
        }
        std::thread::sleep(retry_after.unwrap_or_else(|| backoff(n)));
        n += 1;
    }
}

pub(crate) fn classify(e: ureq::Error) -> Failure {
    use ureq::Error as E;
    match e {
        E::Timeout(_) => Failure::TimedOut(e.to_string()),
        E::Io(_) | E::ConnectionFailed | E::BodyStalled | E::Protocol(_) => Failure::Transient { reason: e.to_string(), retry_after: None },
        other => Failure::Fatal(other.to_string()),
    }
}

/// 0.25 s, 0.5 s, 1 s, … capped at 8 s.
pub(crate) fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(250u64.saturating_mul(1u64 << attempt.min(5))).min(Duration::from_secs(8))
}

/// `Retry-After` in seconds (the HTTP-date form falls back to backoff).
pub(crate) fn parse_retry_after(value: &str) -> Option<Duration> {
    let secs: f64 = value.trim().parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs).min(MAX_RETRY_AFTER))
}

/// The first 300 characters of an answer, for an error message.
pub(crate) fn snippet(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_and_backoff() {
        assert_eq!(parse_retry_after("2"), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after("0.5"), Some(Duration::from_millis(500)));
        assert_eq!(parse_retry_after("3600"), Some(MAX_RETRY_AFTER));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), None);
        assert_eq!(backoff(0), Duration::from_millis(250));
        assert_eq!(backoff(10), Duration::from_secs(8));
    }

    #[test]
    fn transient_failures_are_retried_and_fatal_ones_are_not() {
        let mut calls = 0;
        let r = with_retries(3, || {
            calls += 1;
            if calls < 3 {
                Err(Failure::Transient { reason: "HTTP 429".into(), retry_after: Some(Duration::ZERO) })
            } else {
                Ok(calls)
            }
        });
        assert_eq!(r, Ok(3));
        let mut calls = 0;
        let r: Result<(), String> = with_retries(3, || {
            calls += 1;
            Err(Failure::Fatal("HTTP 401".into()))
        });
        assert_eq!((r, calls), (Err("HTTP 401".to_string()), 1));
        let r: Result<(), String> = with_retries(1, || Err(Failure::Transient { reason: "HTTP 503".into(), retry_after: Some(Duration::ZERO) }));
        assert_eq!(r, Err("HTTP 503 (gave up after 2 attempts)".to_string()));
    }
}
