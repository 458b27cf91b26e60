//! `git rag ask` against real chat servers on loopback that read the prompt
//! they are sent and answer from its sources: a streamed answer reaches
//! stdout piece by piece, citations are checked against the sources given,
//! and a server that is missing, busy, slow, refusing or dies mid-answer
//! gives a clear error (with `--context` suggested), never a made-up source.

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::http::{Gate, Reply, Request, Server, Wait};
use crate::common::{rag_env, stderr, stdout, TestRepo};

const QUESTION: &str = "how is the port number parsed from the config?";

fn repo() -> TestRepo {
    let repo = TestRepo::new();
    repo.write("app/config.py", "def load_config(path):\n    \"\"\"Read the config file.\"\"\"\n    with open(path) as f:\n        return parse(f.read())\n\n\ndef parse(text):\n    return dict(line.split('=') for line in text.splitlines())\n");
    repo.write("app/net.py", "def parse_port(value):\n    \"\"\"The port number from a config value.\"\"\"\n    port = int(value)\n    if not 0 < port < 65536:\n        raise ValueError(f'bad port {port}')\n    return port\n");
    repo.write("app/server.py", "from app.config import load_config\nfrom app.net import parse_port\n\n\ndef start(path):\n    config = load_config(path)\n    return serve(parse_port(config['port']))\n\n\ndef serve(port):\n    print('listening on', port)\n");
    repo.commit("app");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    repo
}

/// The numbered sources of the prompt: (n, `path:start-end`).
fn sources(req: &Request) -> Vec<(usize, String)> {
    let body = req.json();
    let user =
        body["messages"].as_array().and_then(|m| m.iter().find(|m| m["role"] == "user")).and_then(|m| m["content"].as_str()).unwrap_or_default().to_string();
    user.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix('[')?;
            let (n, rest) = rest.split_once("] ")?;
            Some((n.parse().ok()?, rest.split_whitespace().next()?.to_string()))
        })
        .collect()
}

/// What the test model answers: it cites the source that holds `app/net.py`
/// (the one a reader would), and also a source it was never given.
fn answer_for(req: &Request) -> Vec<String> {
    let srcs = sources(req);
    let (n, cite) = srcs.iter().find(|(_, c)| c.starts_with("app/net.py")).cloned().unwrap_or((1, "?".into()));
    vec![
        "The port ".into(),
        format!("is parsed by `parse_port` in {cite} [{n}], "),
        "which rejects values outside 1-65535. ".into(),
        format!("It is called from `start` [{}]; see also [42].", srcs.len().min(2)),
    ]
}

fn event(content: &str, finish: Option<&str>) -> String {
    let chunk = json!({"id": "c1", "object": "chat.completion.chunk", "model": "test-model", "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]});
    format!("data: {chunk}\n\n")
}

/// A streamed answer: one event per piece, the last with a finish reason, then `[DONE]`.
fn stream(pieces: Vec<String>, first_gate: Option<Gate>) -> Reply {
    let mut out: Vec<(Wait, String)> = Vec::new();
    for (i, p) in pieces.iter().enumerate() {
        let wait = match (&first_gate, i) {
            (Some(g), 1) => Wait::Gate(g.clone()),
            _ => Wait::Pause(Duration::from_millis(5)),
        };
        out.push((wait, event(p, None)));
    }
    out.push((Wait::Pause(Duration::ZERO), event("", Some("stop"))));
    out.push((Wait::Pause(Duration::ZERO), "data: [DONE]\n\n".into()));
    Reply::Stream { content_type: "text/event-stream".into(), pieces: out, complete: true }
}

fn configure(repo: &TestRepo, url: &str) {
    repo.git(&["config", "rag.chat.url", &format!("{url}/v1")]);
    repo.git(&["config", "rag.chat.model", "test-model"]);
}

#[test]
fn the_answer_streams_to_stdout_and_cites_the_sources_it_was_given() {
    let repo = repo();
    let gate = Gate::default();
    let g = gate.clone();
    let server = Server::start(move |r, _| stream(answer_for(r), Some(g.clone())));
    configure(&repo, &server.url);
    let mut child = Command::new(env!("CARGO_BIN_EXE_git-rag"))
        .args(["ask", QUESTION])
        .current_dir(repo.path())
        .env_remove("GIT_RAG_DIR")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_RAG_CHAT_API_KEY", "sk-chat-secret")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("git rag ask starts");
    // The first piece is on stdout while the server still holds the rest back.
    let mut out = child.stdout.take().expect("stdout");
    let mut seen = Vec::new();
    let mut buf = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains("The port ") {
        let n = out.read(&mut buf).expect("read stdout");
        assert!(n > 0, "stdout ended before the first piece: {}", String::from_utf8_lossy(&seen));
        seen.extend_from_slice(&buf[..n]);
    }
    assert!(!String::from_utf8_lossy(&seen).contains("is parsed by"), "the second piece came before the gate opened");
    gate.open();
    out.read_to_end(&mut seen).expect("read the rest");
    let status = child.wait().expect("wait");
    let mut err = String::new();
    child.stderr.take().expect("stderr").read_to_string(&mut err).expect("stderr");
    assert!(status.success(), "{err}");
    let text = String::from_utf8_lossy(&seen).to_string();

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let req = &reqs[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer sk-chat-secret"));
    let body = req.json();
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    let user = body["messages"][1]["content"].as_str().expect("user message");
    assert!(user.contains(QUESTION) && user.contains("def parse_port(value):"), "{user}");
    let srcs = sources(req);
    let (n, cite) = srcs.iter().find(|(_, c)| c.starts_with("app/net.py")).cloned().expect("net.py is a source");

    let answer: String = answer_for(req).concat();
    assert!(text.starts_with(&answer), "{text}");
    assert!(text.contains(&format!("Sources:\n[{n}] {cite}")), "{text}");
    assert!(!text.contains("[42] "), "an unknown citation is never listed as a source: {text}");
    assert!(err.contains("cites [42], which is none of the") && !err.contains("sk-chat-secret"), "{err}");
}

#[test]
fn json_gives_the_answer_its_citations_and_what_was_sent() {
    let repo = repo();
    let server = Server::start(|r, _| stream(answer_for(r), None));
    configure(&repo, &server.url);
    let out = rag_env(repo.path(), &["ask", QUESTION, "--json", "--budget", "3000"], &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&stdout(&out)).expect("one JSON object, nothing streamed before it");
    let req = &server.requests()[0];
    assert_eq!(v["answer"], answer_for(req).concat());
    assert_eq!(v["model"], "test-model");
    assert_eq!(v["unknown_citations"], json!([42]));
    let srcs = sources(req);
    assert_eq!(v["sources"].as_u64(), Some(srcs.len() as u64));
    assert!(v["context_tokens"].as_u64().is_some_and(|t| t > 50 && t < 3000 + 200), "{v}");
    let cited = v["citations"].as_array().expect("citations");
    assert!(!cited.is_empty());
    for c in cited {
        let n = c["n"].as_u64().expect("n") as usize;
        let (_, cite) = &srcs[n - 1];
        assert_eq!(c["citation"].as_str(), Some(cite.as_str()), "the citation names the lines the model was shown");
        assert_eq!(*cite, format!("{}:{}-{}", c["path"].as_str().unwrap_or(""), c["start_line"], c["end_line"]));
    }
}

/// The model reads the work tree as it is (an edit since the index ran, at
/// its new lines), and the indexed commit alone with `--at-commit`.
#[test]
fn ask_reads_the_work_tree_and_cites_its_lines() {
    let repo = repo();
    let server = Server::start(|r, _| stream(answer_for(r), None));
    configure(&repo, &server.url);
    // parse_port moves down four lines and checks its range another way.
    repo.write("app/net.py", "import sys\n\n\nMAX_PORT = 65535\n\n\ndef parse_port(value):\n    \"\"\"The port number from a config value.\"\"\"\n    port = int(value, base=10)\n    if port > MAX_PORT:\n        raise ValueError(f'bad port {port}')\n    return port\n");
    let asked = |extra: &[&str]| -> (Value, String) {
        let mut args = vec!["ask", QUESTION, "--json"];
        args.extend_from_slice(extra);
        let out = rag_env(repo.path(), &args, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        let req = server.requests().pop().expect("a request");
        let user = req.json()["messages"][1]["content"].as_str().unwrap_or_default().to_string();
        (serde_json::from_str(&stdout(&out)).expect("JSON"), user)
    };
    let (v, user) = asked(&[]);
    assert!(user.contains("port = int(value, base=10)") && !user.contains("if not 0 < port < 65536"), "the model read the work tree: {user}");
    assert!(user.contains("] app/net.py:7-12 (parse_port)"), "the function is cited at its lines in the work tree: {user}");
    assert!(v["citations"].as_array().is_some_and(|c| c.iter().any(|c| c["path"] == "app/net.py")), "{v}");
    let (_, user) = asked(&["--at-commit"]);
    assert!(user.contains("if not 0 < port < 65536") && !user.contains("base=10"), "--at-commit reads the indexed commit: {user}");
}

#[test]
fn a_server_that_answers_whole_or_after_a_429_is_read() {
    let repo = repo();
    let whole = Server::start(|r, _| {
        Reply::json(200, &json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": answer_for(r).concat()}, "finish_reason": "stop"}]}))
    });
    configure(&repo, &whole.url);
    let v: Value = serde_json::from_str(&repo.rag_ok(&["ask", QUESTION, "--json"])).expect("json");
    assert_eq!(v["answer"], answer_for(&whole.requests()[0]).concat());

    let busy = Server::start(|r, n| if n == 0 { Reply::text(429, "rate limited").with_header("Retry-After", "0") } else { stream(answer_for(r), None) });
    configure(&repo, &busy.url);
    let v: Value = serde_json::from_str(&repo.rag_ok(&["ask", QUESTION, "--json"])).expect("json");
    assert_eq!(busy.requests().len(), 2);
    assert!(v["answer"].as_str().is_some_and(|a| a.contains("parse_port")));
}

#[test]
fn a_missing_down_slow_refusing_or_dying_endpoint_is_a_clear_error() {
    let repo = repo();
    // Nothing configured: the settings to set are named (before any index is needed).
    let bare = TestRepo::new();
    let out = bare.rag(&["ask", QUESTION]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("rag.chat.url") && stderr(&out).contains("rag.chat.model"), "{}", stderr(&out));
    repo.git(&["config", "rag.chat.url", "http://127.0.0.1:9/v1"]);
    let out = repo.rag(&["ask", QUESTION]);
    assert!(!out.status.success() && stderr(&out).contains("no chat model is named"), "{}", stderr(&out));

    repo.git(&["config", "rag.chat.retries", "1"]);
    repo.git(&["config", "rag.chat.timeoutSecs", "1"]);
    let dying = Server::start(|r, _| {
        let pieces = answer_for(r).into_iter().take(2).map(|p| (Wait::Pause(Duration::from_millis(5)), event(&p, None))).collect();
        Reply::Stream { content_type: "text/event-stream".into(), pieces, complete: false }
    });
    let slow = Server::start(|r, _| Reply::After(Duration::from_secs(3), Box::new(stream(answer_for(r), None))));
    let refusing = Server::start(|_, _| Reply::text(401, "bad key"));
    // A port with nothing listening: bind one, then let it go.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr");
    let cases: Vec<(&str, String, &str, Option<&Server>, usize)> = vec![
        ("dying", dying.url.clone(), "stopped mid-answer after", Some(&dying), 1),
        ("slow", slow.url.clone(), "gave up after 2 attempts", Some(&slow), 2),
        ("refusing", refusing.url.clone(), "HTTP 401: bad key", Some(&refusing), 1),
        ("down", format!("http://{closed}"), "gave up after 2 attempts", None, 0),
    ];
    for (name, url, why, server, attempts) in cases {
        configure(&repo, &url);
        let out = repo.rag(&["ask", QUESTION]);
        assert!(!out.status.success(), "{name}");
        let err = stderr(&out);
        assert!(err.contains(&format!("{url}/v1/chat/completions")) && err.contains(why) && err.contains("git rag query --context"), "{name}: {err}");
        assert!(!err.contains("panicked"), "{name}: {err}");
        if let Some(s) = server {
            assert_eq!(s.requests().len(), attempts, "{name}");
        }
        if name == "dying" {
            // What had arrived was shown; no sources are listed for a broken answer.
            let arrived: String = answer_for(&dying.requests()[0]).into_iter().take(2).collect();
            assert!(stdout(&out).starts_with(&arrived) && !stdout(&out).contains("Sources:"), "{}", stdout(&out));
            assert!(err.contains(&format!("after {} characters", arrived.chars().count())), "{err}");
        }
    }
}

/// A question about the past also gets the commits that answer it (ids,
/// subjects, the lines they changed) within the same budget; another does not.
#[test]
fn a_question_about_the_past_is_given_the_commits_that_answer_it() {
    let repo = repo();
    repo.write("app/net.py", "def parse_port(value):\n    \"\"\"The port number from a config value.\"\"\"\n    port = int(value)\n    if not 1024 <= port < 65536:\n        raise ValueError(f'bad port {port}')\n    return port\n");
    let commit = repo.commit("Refuse privileged ports\n\nBinding below 1024 needs root; the server never runs as root.");
    repo.rag_ok(&["index", "-q", "--no-semantic"]);
    let server = Server::start(|r, _| stream(answer_for(r), None));
    configure(&repo, &server.url);
    let asked = |question: &str| -> (Value, String) {
        let out = rag_env(repo.path(), &["ask", question, "--json", "--budget", "2000"], &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        let req = server.requests().pop().expect("a request");
        let user = req.json()["messages"][1]["content"].as_str().unwrap_or_default().to_string();
        (serde_json::from_str(&stdout(&out)).expect("JSON"), user)
    };
    let (v, user) = asked("why was the port limit changed to refuse low ports?");
    assert!(v["history_commits"].as_u64().is_some_and(|n| n >= 1), "{v}");
    assert!(user.contains("The repository's history") && user.contains(&commit[..12]) && user.contains("Binding below 1024 needs root"), "{user}");
    assert!(user.contains("-if not 0 < port < 65536:") || user.contains("+if not 1024 <= port < 65536:"), "{user}");
    assert!(v["context_tokens"].as_u64().is_some_and(|t| t < 2000 + 200), "{v}");
    let (v, user) = asked(QUESTION);
    assert_eq!(v["history_commits"], 0, "{v}");
    assert!(!user.contains("The repository's history"), "{user}");
}
