//! How a failed command says so: one line on stderr (each cause once: a
//! library error's message often holds its source's already), and with
//! `--json` an object on stdout whose `kind` a script can branch on.

use serde_json::json;

/// The error and its causes on one line, each cause that the line does not
/// already hold appended after a colon.
pub fn line(error: &anyhow::Error) -> String {
    let mut out = String::new();
    for cause in error.chain() {
        let text = cause.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
        if text.is_empty() || out.contains(&text) {
            continue;
        }
        if !out.is_empty() {
            out.push_str(": ");
        }
        out.push_str(&text);
    }
    out
}

/// What kind of failure it is: `store_damaged` (with the store), `no_index`,
/// `locked`, or `error`.
pub fn json(error: &anyhow::Error) -> serde_json::Value {
    let damaged = error.chain().find_map(|c| c.downcast_ref::<git_rag::StoreDamaged>());
    let message = line(error);
    match damaged {
        Some(d) => json!({"error": {"kind": "store_damaged", "store": d.store, "path": d.path, "cause": d.cause, "message": message}}),
        None => {
            let kind = if error.chain().any(|c| c.downcast_ref::<git_rag::QueryError>().is_some_and(|q| matches!(q, git_rag::QueryError::NoIndex { .. })))
                || message.contains("there is no index yet")
            {
                "no_index"
            } else if message.contains("is running on") || message.contains("is busy") {
                "locked"
            } else {
                "error"
            };
            json!({"error": {"kind": kind, "message": message}})
        }
    }
}
