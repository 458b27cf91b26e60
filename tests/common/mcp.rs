//! A client of `git rag serve --mcp` over its stdio: JSON-RPC lines to a
//! child process, for the tests that compare MCP with the CLI.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::TestRepo;

pub struct Mcp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Mcp {
    pub fn start(repo: &TestRepo, extra: &[&str]) -> Mcp {
        Mcp::start_in(repo.path(), extra, &[])
    }

    /// A server in `dir` with `env` set (no `QDRANT_URL` unless `env` sets it).
    pub fn start_in(dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Mcp {
        let mut args = vec!["serve", "--mcp"];
        args.extend_from_slice(extra);
        Mcp::spawn(Path::new(env!("CARGO_BIN_EXE_git-rag")), &args, dir, env)
    }

    /// A server started as `command args…` in `dir` (what a client's config says).
    pub fn spawn(command: &Path, args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Mcp {
        let mut child = Command::new(command)
            .args(args)
            .current_dir(dir)
            .env_remove("GIT_RAG_DIR")
            .env_remove("QDRANT_URL")
            .envs(env.iter().copied())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Mcp { child, stdin, stdout, next_id: 1 }
    }

    pub fn send_line(&mut self, line: &str) {
        self.stdin.write_all(line.as_bytes()).expect("write");
        self.stdin.write_all(b"\n").expect("write");
        self.stdin.flush().expect("flush");
    }

    pub fn read(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).expect("read");
        assert!(n > 0, "the server closed stdout");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_line(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string());
        let answer = self.read();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// A tool's structured result; panics on a tool error.
    pub fn tool(&mut self, name: &str, args: Value) -> Value {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        let result = &r["result"];
        assert_eq!(result["isError"], false, "{name} {args}: {r}");
        assert!(result["content"][0]["text"].is_string(), "{r}");
        result["structuredContent"].clone()
    }

    pub fn tool_error(&mut self, name: &str, args: Value) -> String {
        let r = self.request("tools/call", json!({"name": name, "arguments": args}));
        assert_eq!(r["result"]["isError"], true, "{name} {args} should fail: {r}");
        r["result"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
    }

    pub fn handshake(&mut self) -> Value {
        let r =
            self.request("initialize", json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "git-rag-test", "version": "0"}}));
        self.send_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        r
    }

    /// Closes stdin and waits for a clean exit.
    pub fn finish(mut self) {
        drop(self.stdin);
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                assert!(status.success(), "the server exited with {status}");
                return;
            }
            assert!(Instant::now() < deadline, "the server did not exit after stdin closed");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// The answer without what differs between two runs of the same query, and
/// with scores as the f32 they are (structuredContent widens them to f64).
pub fn comparable(mut answer: Value) -> Value {
    fn f32_numbers(v: &mut Value) {
        match v {
            Value::Number(n) if n.is_f64() => *v = json!(n.as_f64().map(|x| (x as f32).to_string())),
            Value::Array(a) => a.iter_mut().for_each(f32_numbers),
            Value::Object(o) => o.values_mut().for_each(f32_numbers),
            _ => {}
        }
    }
    for key in ["took_ms", "timings"] {
        answer.as_object_mut().expect("an object").remove(key);
    }
    f32_numbers(&mut answer);
    answer
}
