//! A TCP proxy between the browser and the intake server that can lose an
//! answer the way a network does: it passes the request on, reads the
//! server's whole answer (so the server has committed and replied), then
//! closes the browser's connection without a byte of it. The server runs as
//! it always does; nothing in it knows about the test.
//!
//! One request per connection: the proxy asks the server to close after
//! each answer and tells the browser the same, so that every request comes
//! on a fresh connection and a lost answer is never retried by the browser
//! itself (it only retries requests on connections it reused).

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// What becomes of one request's answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fate {
    /// Passed back to the browser.
    Pass,
    /// Read from the server, then the browser's connection closed.
    Lose,
}

/// One request the proxy saw, and what it did with the answer.
#[derive(Clone, Debug)]
pub struct Exchange {
    pub method: String,
    pub path: String,
    /// The Idempotency-Key header as sent (a structured-field string).
    pub key: Option<String>,
    /// The request's body, as text.
    pub body: String,
    /// The server's status, when it answered.
    pub status: Option<u16>,
    pub fate: Fate,
}

type Plan = Box<dyn FnMut(&Exchange) -> Fate + Send>;

pub struct Proxy {
    addr: SocketAddr,
    plan: Arc<Mutex<Plan>>,
    seen: Arc<Mutex<Vec<Exchange>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Proxy {
    /// A proxy on a free port of 127.0.0.1 to the server at `upstream`.
    pub fn start(upstream: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let plan: Arc<Mutex<Plan>> = Arc::new(Mutex::new(Box::new(|_: &Exchange| Fate::Pass)));
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (plan, seen, stop) = (plan.clone(), seen.clone(), stop.clone());
            std::thread::spawn(move || {
                for client in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(client) = client else { continue };
                    let (plan, seen) = (plan.clone(), seen.clone());
                    std::thread::spawn(move || relay(client, upstream, &plan, &seen));
                }
            })
        };
        Self {
            addr,
            plan,
            seen,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Decides each request's fate from now on.
    pub fn plan(&self, plan: impl FnMut(&Exchange) -> Fate + Send + 'static) {
        *self.plan.lock().unwrap() = Box::new(plan);
    }

    /// The requests seen so far, in the order they came.
    pub fn seen(&self) -> Vec<Exchange> {
        self.seen.lock().unwrap().clone()
    }

    /// The POSTs seen so far.
    pub fn posts(&self) -> Vec<Exchange> {
        self.seen()
            .into_iter()
            .filter(|e| e.method == "POST")
            .collect()
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread, which then sees `stop`.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Loses every POST's answer (and every other request's that `also` names).
pub fn lose_posts(
    also: impl Fn(&Exchange) -> bool + Send + 'static,
) -> impl FnMut(&Exchange) -> Fate + Send {
    move |e: &Exchange| {
        if e.method == "POST" || also(e) {
            Fate::Lose
        } else {
            Fate::Pass
        }
    }
}

/// Loses the first POST's answer and passes everything else.
pub fn lose_first_post() -> impl FnMut(&Exchange) -> Fate + Send {
    let mut posts = 0;
    move |e: &Exchange| {
        if e.method == "POST" {
            posts += 1;
            if posts == 1 {
                return Fate::Lose;
            }
        }
        Fate::Pass
    }
}

fn relay(
    mut client: TcpStream,
    upstream: SocketAddr,
    plan: &Mutex<Plan>,
    seen: &Mutex<Vec<Exchange>>,
) {
    // A browser may open a connection it never uses; it is dropped in time.
    let _ = client.set_read_timeout(Some(Duration::from_secs(30)));
    let Some(request) = read_request(&mut client) else {
        return;
    };
    let mut exchange = Exchange {
        method: request.method.clone(),
        path: request.path.clone(),
        key: request.header("idempotency-key").map(str::to_string),
        body: String::from_utf8_lossy(&request.body).into_owned(),
        status: None,
        fate: Fate::Pass,
    };
    let fate = (plan.lock().unwrap())(&exchange);
    exchange.fate = fate;
    // Seen as it arrives: a test that looks once the page has settled
    // counts every request the page made, answered or not.
    let index = {
        let mut seen = seen.lock().unwrap();
        seen.push(exchange);
        seen.len() - 1
    };
    let answer = forward(&request, upstream);
    // The status is known before the browser hears anything.
    seen.lock().unwrap()[index].status = answer.as_deref().and_then(status_of);
    match (fate, answer) {
        (Fate::Pass, Some(answer)) => {
            let _ = client.write_all(&with_connection_close(&answer));
        }
        // Closing the connection (dropping it) is the lost answer.
        (Fate::Lose, _) | (_, None) => {}
    }
    let _ = client.shutdown(std::net::Shutdown::Both);
}

/// The request to the server with `Connection: close`, and its whole answer.
fn forward(request: &Request, upstream: SocketAddr) -> Option<Vec<u8>> {
    let mut server = TcpStream::connect(upstream).ok()?;
    server
        .set_read_timeout(Some(Duration::from_secs(60)))
        .ok()?;
    server.write_all(&request.with_connection_close()).ok()?;
    let mut answer = Vec::new();
    server.read_to_end(&mut answer).ok()?;
    (!answer.is_empty()).then_some(answer)
}

/// An HTTP/1.1 request as read off the wire.
pub struct Request {
    pub method: String,
    pub path: String,
    /// The request line and the header lines, without the blank line.
    lines: Vec<String>,
    body: Vec<u8>,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.lines.iter().skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }

    fn with_connection_close(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in &self.lines {
            let name = line.split(':').next().unwrap_or_default().trim();
            if name.eq_ignore_ascii_case("connection") || name.eq_ignore_ascii_case("keep-alive") {
                continue;
            }
            out.extend_from_slice(line.as_bytes());
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"Connection: close\r\n\r\n");
        out.extend_from_slice(&self.body);
        out
    }
}

/// Reads one request: its head, then a body of its Content-Length. `None`
/// when the connection closes (or idles out) first.
pub fn read_request(stream: &mut TcpStream) -> Option<Request> {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(at) = find(&bytes, b"\r\n\r\n") {
            break at;
        }
        let n = stream.read(&mut buf).ok().filter(|&n| n > 0)?;
        bytes.extend_from_slice(&buf[..n]);
        if bytes.len() > 1 << 20 {
            return None;
        }
    };
    let head = String::from_utf8_lossy(&bytes[..head_end]).into_owned();
    let lines: Vec<String> = head.split("\r\n").map(str::to_string).collect();
    let mut words = lines.first()?.split(' ');
    let method = words.next()?.to_string();
    let path = words.next()?.to_string();
    let mut request = Request {
        method,
        path,
        lines,
        body: bytes[head_end + 4..].to_vec(),
    };
    if request.header("transfer-encoding").is_some() {
        // Browsers send a form's or a fetch's string body with a length.
        eprintln!("proxy: a chunked request body, not read: {}", request.path);
        return None;
    }
    let length: usize = request
        .header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while request.body.len() < length {
        let n = stream.read(&mut buf).ok().filter(|&n| n > 0)?;
        request.body.extend_from_slice(&buf[..n]);
    }
    Some(request)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// "HTTP/1.1 303 See Other" → 303.
fn status_of(answer: &[u8]) -> Option<u16> {
    let line = answer.split(|&b| b == b'\r').next()?;
    std::str::from_utf8(line)
        .ok()?
        .split(' ')
        .nth(1)?
        .parse()
        .ok()
}

/// The server's answer, saying `Connection: close` to the browser.
fn with_connection_close(answer: &[u8]) -> Vec<u8> {
    let Some(head_end) = find(answer, b"\r\n\r\n") else {
        return answer.to_vec();
    };
    let head = String::from_utf8_lossy(&answer[..head_end]);
    let mut out = Vec::with_capacity(answer.len() + 20);
    for line in head.split("\r\n") {
        let name = line.split(':').next().unwrap_or_default().trim();
        if name.eq_ignore_ascii_case("connection") || name.eq_ignore_ascii_case("keep-alive") {
            continue;
        }
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"Connection: close\r\n\r\n");
    out.extend_from_slice(&answer[head_end + 4..]);
    out
}
