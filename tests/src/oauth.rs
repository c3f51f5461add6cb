//! The OAuth interop proofs' common parts (tests/tests/http_python_oauth.rs,
//! tests/tests/http_ts_oauth.rs): the authorization server on 127.0.0.1
//! (`tests/python/oauth_auth_server.py`), the `http_server` example as its resource server, and
//! plain HTTP requests to both that need no client library (a token minted for another audience,
//! a key rotation, a call with a given token).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::{Value, json};

use crate::ListeningServer;

/// An answer to [`post`]: the status, the `WWW-Authenticate` header (empty when none) and the
/// body.
#[derive(Debug)]
pub struct Answer {
    /// The HTTP status (0 when the reply had no status line).
    pub status: u16,
    /// The `WWW-Authenticate` challenge, or an empty string.
    pub challenge: String,
    /// The body, as sent (no chunked decoding: the servers here answer with a length).
    pub body: String,
}

/// A `POST` of `body` to `url` (on 127.0.0.1) with `headers`, over a fresh connection.
pub fn post(url: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let rest = url.trim_start_matches("http://");
    let (address, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("a read timeout");
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nhost: {address}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut reply = String::new();
    stream.read_to_string(&mut reply).expect("read the reply");
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0);
    let challenge = head
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("www-authenticate")
                .then(|| value.trim().to_string())
        })
        .unwrap_or_default();
    Answer {
        status,
        challenge,
        body: body.to_string(),
    }
}

/// The authorization server and the `http_server` example as its resource server, both on
/// 127.0.0.1, killed when dropped.
pub struct OAuthServers {
    /// The authorization server; its URL is the issuer.
    pub issuer: ListeningServer,
    /// The example; its URL is its canonical URL, the tokens' audience.
    pub server: ListeningServer,
}

impl OAuthServers {
    /// Starts the authorization server with `python` (the MCP Python SDK's venv), then the
    /// example trusting it, allowed to fetch the issuer's keys again at once (so that a key
    /// rotated in is fetched on its first token).
    pub fn start(python: &Path) -> OAuthServers {
        let script = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("python")
            .join("oauth_auth_server.py");
        let mut issuer = Command::new(python);
        issuer.arg(script);
        let issuer = ListeningServer::start(issuer);
        let mut server = Command::new(crate::example_binary("http_server"));
        server.args([
            "--listen",
            "127.0.0.1:0",
            "--issuer",
            issuer.url(),
            "--jwks-min-refresh",
            "0",
        ]);
        let server = ListeningServer::start(server);
        OAuthServers { issuer, server }
    }

    /// A token the authorization server signs directly (its test endpoint) for `aud`, with the
    /// scope `units`.
    pub fn mint(&self, aud: &str) -> String {
        let answer = post(
            &format!("{}/test/mint", self.issuer.url()),
            &[("content-type", "application/json")],
            &json!({"aud": aud, "scope": "units"}).to_string(),
        );
        assert_eq!(answer.status, 200, "{}", answer.body);
        let minted: Value = serde_json::from_str(&answer.body).expect("JSON");
        minted["access_token"]
            .as_str()
            .expect("a token")
            .to_string()
    }

    /// Makes the authorization server sign with a new key, which replaces the old one in its
    /// key set.
    pub fn rotate_key(&self) {
        let answer = post(&format!("{}/test/rotate", self.issuer.url()), &[], "");
        assert_eq!(answer.status, 200, "{}", answer.body);
    }

    /// A `tools/call` of `to_fahrenheit` on the example with `token`: the status and the
    /// `WWW-Authenticate` challenge.
    pub fn call_with(&self, token: &str) -> (u16, String) {
        let authorization = format!("Bearer {token}");
        let answer = post(
            self.server.url(),
            &[
                ("content-type", "application/json"),
                ("accept", "application/json, text/event-stream"),
                ("authorization", &authorization),
            ],
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": "to_fahrenheit", "arguments": {"celsius": 0}}})
            .to_string(),
        );
        (answer.status, answer.challenge)
    }
}
