//! A fake npm registry on 127.0.0.1 for the CLI installer's tests: it serves version documents
//! (`GET /<scope>%2f<name>/<version>`) and tarballs (`GET /tarballs/<n>.tgz`), whole or broken
//! in the ways a real download breaks (cut short, stalled half-way), and builds the small
//! tarballs it serves ([`tarball`]).
//!
//! Plain `std` threads and blocking sockets: the installer it serves is blocking too, and a
//! test controls exactly how many bytes go out before a cut or a stall.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use base64::Engine as _;
use sha2::{Digest, Sha512};

/// How a tarball's bytes are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// All of them.
    Whole,
    /// `Content-Length` says all, then only this many are sent and the connection is closed.
    CutAfter(usize),
    /// `Content-Length` says all, this many are sent, then nothing more until the registry is
    /// dropped ([`FakeRegistry::wait_stalled`] returns once they are out).
    StallAfter(usize),
}

/// A package version the registry publishes.
#[derive(Debug, Clone)]
pub struct FakePackage {
    /// The package name, e.g. `@anthropic-ai/claude-code-linux-x64`.
    pub name: String,
    /// The version, e.g. `2.1.332`.
    pub version: String,
    /// The tarball served.
    pub tarball: Vec<u8>,
    /// The document's `dist.integrity`: by default [`sri`] of the tarball.
    pub integrity: Option<String>,
    /// How the tarball is sent.
    pub delivery: Delivery,
}

impl FakePackage {
    /// `name@version` with `tarball`, its true integrity, sent whole.
    pub fn new(name: impl Into<String>, version: impl Into<String>, tarball: Vec<u8>) -> Self {
        let integrity = Some(sri(&tarball));
        Self {
            name: name.into(),
            version: version.into(),
            tarball,
            integrity,
            delivery: Delivery::Whole,
        }
    }

    /// Publishes this integrity instead of the tarball's own.
    pub fn integrity(mut self, integrity: impl Into<String>) -> Self {
        self.integrity = Some(integrity.into());
        self
    }

    /// Sends the tarball this way.
    pub fn delivery(mut self, delivery: Delivery) -> Self {
        self.delivery = delivery;
        self
    }
}

/// The registry: a listener on 127.0.0.1 and a thread per connection. Dropping it releases any
/// stalled download (its connection is closed) and stops the listener.
pub struct FakeRegistry {
    url: String,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

struct Shared {
    packages: Vec<FakePackage>,
    requests: Mutex<Vec<String>>,
    stopped: AtomicBool,
    /// Downloads that have stalled, and the wake-up for the end of the stall.
    stalls: Mutex<usize>,
    changed: Condvar,
}

impl FakeRegistry {
    /// Starts a registry publishing `packages`.
    pub fn start(packages: Vec<FakePackage>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the fake registry");
        let url = format!("http://{}", listener.local_addr().expect("local address"));
        let shared = Arc::new(Shared {
            packages,
            requests: Mutex::new(Vec::new()),
            stopped: AtomicBool::new(false),
            stalls: Mutex::new(0),
            changed: Condvar::new(),
        });
        let accept = {
            let shared = Arc::clone(&shared);
            let url = url.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if shared.stopped.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let shared = Arc::clone(&shared);
                    let url = url.clone();
                    std::thread::spawn(move || serve(stream, &shared, &url));
                }
            })
        };
        Self {
            url,
            shared,
            accept: Some(accept),
        }
    }

    /// The base URL, `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The paths requested so far, in order.
    pub fn requests(&self) -> Vec<String> {
        lock(&self.shared.requests).clone()
    }

    /// Blocks until a download has stalled ([`Delivery::StallAfter`]): its bytes are written.
    pub fn wait_stalled(&self) {
        let mut stalls = lock(&self.shared.stalls);
        while *stalls == 0 {
            stalls = self
                .shared
                .changed
                .wait(stalls)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl Drop for FakeRegistry {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        {
            // Under the lock: a stalled download checks the flag under it before it waits.
            let _stalls = lock(&self.shared.stalls);
            self.shared.changed.notify_all();
        }
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect(self.url.trim_start_matches("http://"));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

fn serve(stream: TcpStream, shared: &Shared, url: &str) {
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // The rest of the head.
    loop {
        let mut line = String::new();
        match reader.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if line == "\r\n" || line == "\n" => break,
            Ok(_) => {}
        }
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    lock(&shared.requests).push(path.clone());
    let mut stream = stream;
    if let Some(index) = path
        .strip_prefix("/tarballs/")
        .and_then(|rest| rest.strip_suffix(".tgz"))
        .and_then(|n| n.parse::<usize>().ok())
        && let Some(package) = shared.packages.get(index)
    {
        send_tarball(&mut stream, shared, package);
        return;
    }
    let document = shared.packages.iter().enumerate().find(|(_, package)| {
        path == format!("/{}/{}", package.name.replace('/', "%2f"), package.version)
    });
    match document {
        Some((index, package)) => {
            let body = serde_json::json!({
                "name": package.name,
                "version": package.version,
                "dist": {
                    "integrity": package.integrity,
                    "tarball": format!("{url}/tarballs/{index}.tgz"),
                },
            })
            .to_string();
            respond(&mut stream, "200 OK", "application/json", body.as_bytes());
        }
        None => respond(
            &mut stream,
            "404 Not Found",
            "application/json",
            br#"{"error":"Not found"}"#,
        ),
    }
}

fn respond(stream: &mut TcpStream, status: &str, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
    let _ = stream.flush();
}

fn send_tarball(stream: &mut TcpStream, shared: &Shared, package: &FakePackage) {
    let tarball = &package.tarball;
    let sent = match package.delivery {
        Delivery::Whole => tarball.len(),
        Delivery::CutAfter(n) | Delivery::StallAfter(n) => n.min(tarball.len()),
    };
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        tarball.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&tarball[..sent]);
    let _ = stream.flush();
    if let Delivery::StallAfter(_) = package.delivery {
        let mut stalls = lock(&shared.stalls);
        *stalls += 1;
        shared.changed.notify_all();
        while !shared.stopped.load(Ordering::SeqCst) {
            stalls = shared
                .changed
                .wait(stalls)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// The Subresource Integrity string npm publishes for `bytes`: `sha512-<base64>`.
pub fn sri(bytes: &[u8]) -> String {
    format!(
        "sha512-{}",
        base64::engine::general_purpose::STANDARD.encode(Sha512::digest(bytes))
    )
}

/// A gzip'd tar of `files` (path inside the archive, contents, Unix mode), as `npm pack`
/// makes them (paths under `package/`).
pub fn tarball(files: &[(&str, &[u8], u32)]) -> Vec<u8> {
    let mut builder = tar::Builder::new(flate2::write::GzEncoder::new(
        Vec::new(),
        flate2::Compression::default(),
    ));
    for (path, contents, mode) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(contents.len() as u64);
        header.set_mode(*mode);
        header.set_entry_type(tar::EntryType::Regular);
        header.set_cksum();
        builder
            .append_data(&mut header, path, *contents)
            .expect("append to the tarball");
    }
    builder
        .into_inner()
        .and_then(|gz| gz.finish())
        .expect("finish the tarball")
}

/// A stand-in for the CLI's executable: a shell script that answers `--version` with
/// `<version> (Claude Code)` and otherwise says `fake claude from the fake registry` on stderr
/// and exits 3.
pub fn fake_claude_script(version: &str) -> Vec<u8> {
    format!(
        "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"{version} (Claude Code)\"; exit 0; fi\n\
         echo 'fake claude from the fake registry' >&2\nexit 3\n"
    )
    .into_bytes()
}
