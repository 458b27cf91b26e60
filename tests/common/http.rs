//! A real HTTP/1.1 server on loopback for the tests of git-rag's endpoint
//! clients (rerank, chat): it reads each request whole, records it, and
//! answers with what the test's handler decides, including the misbehaviour
//! of real servers (a slow answer, a 429, a connection closed mid-answer).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;

#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("request body is not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }
}

pub enum Reply {
    /// A whole answer.
    Full { status: u16, headers: Vec<(String, String)>, body: String },
    /// Waits, then answers (a slow server).
    After(Duration, Box<Reply>),
    /// A streamed answer (chunked): each piece sent after its wait; then the
    /// connection ends (cleanly when `complete`, else cut mid-answer).
    Stream { content_type: String, pieces: Vec<(Wait, String)>, complete: bool },
    /// Closes the connection without answering.
    Hangup,
}

impl Reply {
    pub fn json(status: u16, body: &Value) -> Reply {
        Reply::Full { status, headers: vec![("Content-Type".into(), "application/json".into())], body: body.to_string() }
    }

    pub fn text(status: u16, body: &str) -> Reply {
        Reply::Full { status, headers: vec![("Content-Type".into(), "text/plain".into())], body: body.to_string() }
    }

    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Full { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }
}

/// What a streamed piece waits for.
pub enum Wait {
    Pause(Duration),
    /// Until the test opens the gate (at most a minute).
    Gate(Gate),
}

/// A gate a test opens when it has seen what it waited for, e.g. the first
/// piece of a streamed answer on a child's stdout before the rest is sent.
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<bool>, std::sync::Condvar)>);

impl Gate {
    pub fn open(&self) {
        let (open, cv) = &*self.0;
        if let Ok(mut o) = open.lock() {
            *o = true;
        }
        cv.notify_all();
    }

    fn wait(&self) {
        let (open, cv) = &*self.0;
        if let Ok(o) = open.lock() {
            let _ = cv.wait_timeout_while(o, Duration::from_secs(60), |o| !*o);
        }
    }
}

type Handler = dyn Fn(&Request, usize) -> Reply + Send + Sync;

/// A server running until the test process ends.
pub struct Server {
    /// `http://127.0.0.1:PORT`
    pub url: String,
    requests: Arc<Mutex<Vec<Request>>>,
}

impl Server {
    /// Serves every connection on its own thread; the handler gets the
    /// request and its number (0 for the first this server saw).
    pub fn start(handler: impl Fn(&Request, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("local addr"));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let seen = Arc::new(AtomicUsize::new(0));
        let log = requests.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (handler, log, seen) = (handler.clone(), log.clone(), seen.clone());
                std::thread::spawn(move || serve(stream, &*handler, &log, &seen));
            }
        });
        Server { url, requests }
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

fn serve(stream: TcpStream, handler: &Handler, log: &Mutex<Vec<Request>>, seen: &AtomicUsize) {
    let Ok(read_half) = stream.try_clone() else { return };
    let mut reader = BufReader::new(read_half);
    let Some(request) = read_request(&mut reader) else { return };
    let n = seen.fetch_add(1, Ordering::SeqCst);
    if let Ok(mut l) = log.lock() {
        l.push(request.clone());
    }
    let reply = handler(&request, n);
    let mut stream = stream;
    let _ = write_reply(&mut stream, reply);
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next()?.to_string(), parts.next()?.to_string());
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len = headers.iter().find(|(k, _)| k == "content-length").and_then(|(_, v)| v.parse::<usize>().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    Some(Request { method, path, headers, body })
}

fn write_reply(stream: &mut TcpStream, reply: Reply) -> std::io::Result<()> {
    match reply {
        Reply::Full { status, headers, body } => {
            let mut head = format!("HTTP/1.1 {status} {}\r\nContent-Length: {}\r\nConnection: close\r\n", reason(status), body.len());
            for (k, v) in headers {
                head.push_str(&format!("{k}: {v}\r\n"));
            }
            head.push_str("\r\n");
            stream.write_all(head.as_bytes())?;
            stream.write_all(body.as_bytes())?;
            stream.flush()
        }
        Reply::After(pause, reply) => {
            std::thread::sleep(pause);
            write_reply(stream, *reply)
        }
        Reply::Stream { content_type, pieces, complete } => {
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
            stream.write_all(head.as_bytes())?;
            for (wait, piece) in pieces {
                match wait {
                    Wait::Pause(pause) => std::thread::sleep(pause),
                    Wait::Gate(gate) => gate.wait(),
                }
                stream.write_all(format!("{:x}\r\n{piece}\r\n", piece.len()).as_bytes())?;
                stream.flush()?;
            }
            if complete {
                stream.write_all(b"0\r\n\r\n")?;
            }
            stream.flush()?;
            stream.shutdown(std::net::Shutdown::Both)
        }
        Reply::Hangup => stream.shutdown(std::net::Shutdown::Both),
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}
