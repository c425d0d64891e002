//! A site of its own on another origin: one static HTML page at `/`, the
//! way a company's web server would serve its contact page that loads
//! `/intake.js` from the intake and posts there with `fetch`.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use crate::proxy::read_request;

pub struct Site {
    addr: std::net::SocketAddr,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Site {
    /// Binds a free port; the page is given later, once the intake it
    /// names (which must list this site's origin) is running.
    pub fn bind() -> (TcpListener, String) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let origin = format!("http://{}", listener.local_addr().unwrap());
        (listener, origin)
    }

    /// Serves `page` at `/` (everything else: 404) until dropped.
    pub fn serve(listener: TcpListener, page: String) -> Self {
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let page = Arc::new(page);
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let page = page.clone();
                    std::thread::spawn(move || answer(stream, &page));
                }
            })
        };
        Self {
            addr,
            stop,
            thread: Some(thread),
        }
    }

    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn answer(mut stream: TcpStream, page: &str) {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(30)));
    let Some(request) = read_request(&mut stream) else {
        return;
    };
    let (status, body) = if request.method == "GET" && request.path == "/" {
        ("200 OK", page)
    } else {
        ("404 Not Found", "not found\n")
    };
    let content_type = if status.starts_with("200") {
        "text/html; charset=utf-8"
    } else {
        "text/plain; charset=utf-8"
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}
