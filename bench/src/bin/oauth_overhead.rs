//! `ct-bench-oauth`: what checking an OAuth access token costs a request of the HTTP server
//! (`HttpServer::oauth`), for instruction counts (`valgrind --tool=callgrind`, as
//! `ct-bench-tracing`).
//!
//! `ct-bench-oauth <calls> <mode>` starts, in this process, an authorization server's key set
//! (JWKS) on 127.0.0.1 and the MCP HTTP server, sends one call first (which fetches the key
//! set: it is cached from then on), then `<calls>` `tools/call`s of `add` over one keep-alive
//! connection, each answer checked, with:
//!
//! - `none`: a server without auth (the request path every server without OAuth takes);
//! - `eddsa`: a server with `OAuth::jwt`, each request carrying an Ed25519-signed JWT;
//! - `rs256`: the same with an RSA 2048 RS256 JWT (what most issuers sign with).
//!
//! The instructions of one request are the difference between two runs divided by the
//! difference of their `<calls>` (BENCHMARKS.md, "Cost of OAuth"); the client is in the same
//! process and costs the same in every mode.

use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use claude_tools::mcp::http::oauth::OAuth;
use claude_tools::mcp::http::{HttpServer, axum};
use claude_tools::prelude::*;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The bench server.
#[tool_server(name = "bench", version = "1.0.0")]
pub struct Bench;

/// Add two integers.
#[tool(server = Bench, read_only)]
async fn add(
    /// The first term
    a: i64,
    /// The second term
    b: i64,
) -> i64 {
    a.wrapping_add(b)
}

/// An Ed25519 key of the bench's issuer: PKCS#8 DER (base64), and its JWK `x`.
const ED_DER: &str = "MC4CAQAwBQYDK2VwBCIEILQGsP9J0eBOCL6zQq2FWJm6e2FXPagauvlQwCJmKW1W";
const ED_X: &str = "C3gkBsAeOGKNyVczo69gJNM01PhXmm-r1XCdfafaxL8";
/// An RSA 2048 key of the bench's issuer: PKCS#1 DER (base64), and its JWK modulus.
const RSA_DER: &str = "MIIEowIBAAKCAQEA0bS4qK3MsjoFc+ghHViOe68IgvI/CUsDMrRIqJJzhPbVMD9DiVVCXYPUd3XrbyalTpQUWnBwQ63JGXRTZXbznJU/f2BMcP+npQv053oSb2NLsgCJ/5uPfYJPT5TRV1jYRfT/1/DLdaTDFmyQWoqBAcli6sE4TythNC+kwshjGezh7TbPMIR2s+TjmnUmc+JJ86T1gts1mQxJdf1gxQ7TfLaGmBKifwhCUniGDZ58OIK45Z3p7hjT1bMTx/arafK+TQlopqWq4nPAHII6MKvsy8NgIhFLLVuWD1lWfyusDblNTCyLYBW4qjdxi7LA1urKw15kBEtCt73rzV7xozwctwIDAQABAoIBADgC1amUFk7qSWeOcj3U1+W4OAVFr8mLJBUIazm/OCSlCwcidqb5Q0sX+YlY0SP0hgWpbpBDZPDmu4ZVeCrrLSE/CeE7Nt+doUjnmyeyhrcCpgaqtzEy+w3yXr2qSYnTfJye1jD2q1lGQyc7owjT4qY4BHggWKpos0NNkGvIOxQCoYS4sBM9AwMT6qN5yjjKHw9f96nGEGSt2kdI7hm/zsGutL1nhef2rwgMvqT3u86pG9HsmdFq21L5phHF1neOcVIT3JvCBttHQiZeJjr1+4fZ+mYOVOkniHWNY7UPW7q9R/Ftffd4oWhs2sEgurIzRj8gvIg19ogZPJ2kUf6PEWUCgYEA/ZIpLapaM7VLH4z/mU8IY/fX/lVAF8eSAsfkXU4Tvg1Zy08aBtcvwd9sG0MO/sKXPjnSEo/U8MSXwFmYtjY/oYTmvyNnT6vnLC0ssJLz+4mDdu2o6vbXH3jNTBOdAd69E2F0l9d5i6WzIOqZ48KUyGdIbMYY3a0quXbIUQFTCzsCgYEA07b9NdP7gKTkomcHpnrzINz2vaIgMyb+HLCyp/oFO7cxSir26DHdtVCPJT9GjVg/UPIt54dDZpy1UTO1UMx25YWJ5V7KDQJ/bITpjchVBTO/wAVP/UxaZK+he/QK2N1QFuyIcbPRUR5Ar+zAYtTomg6W1HkmSCRLzW+mILYExLUCgYEAoPKrDH86beO+4THf8vGFQ97GzHpUCkP0W6uBOfAa++EBg9ibjof7mjU0K0GvPOlKkoak3n9JC+Hc6Ix2MAHS9bSjueLA6oMUYqfx28oK7zfjqBNFyo4PEbzdolI4sD0vCiQrm017qrXsMxJ1x2l0gpd8Ev7SPbJykfHhR/ltOo0CgYBe6TXyn6msLj/hHlcrpwq/vM9QjBHrXJumuQAeldMqxiFuonw188T0t7y0cf1q+BjKbQdvOBBbO/18/bVXF5Jlqsv669egpXICcENTsG+M+XoI11jYsRYE9UdrjigeuHhjDn7MmlRIDUvqkjRdGh18kvXDItyqkrr4ygiruW3B0QKBgF8y+v7OnQERxHNCEX1B8QwcyIZcLE94cw8dv6tSSIgUozpSYNnrrFKYZUZZSdlvuabMd8ddMT6P6L9rTwho3Z8Wy/Hl+wdKDKznERuE64lA0CB7HviLd4IdMl1Lqba0XPMy37WwZ25oicqbYd1YTA4kiHy9ZWP6qAHSHYh5RE5s";
const RSA_N: &str = "0bS4qK3MsjoFc-ghHViOe68IgvI_CUsDMrRIqJJzhPbVMD9DiVVCXYPUd3XrbyalTpQUWnBwQ63JGXRTZXbznJU_f2BMcP-npQv053oSb2NLsgCJ_5uPfYJPT5TRV1jYRfT_1_DLdaTDFmyQWoqBAcli6sE4TythNC-kwshjGezh7TbPMIR2s-TjmnUmc-JJ86T1gts1mQxJdf1gxQ7TfLaGmBKifwhCUniGDZ58OIK45Z3p7hjT1bMTx_arafK-TQlopqWq4nPAHII6MKvsy8NgIhFLLVuWD1lWfyusDblNTCyLYBW4qjdxi7LA1urKw15kBEtCt73rzV7xozwctw";

const BODY: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}"#;

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let calls: usize = match args.next().and_then(|n| n.parse().ok()) {
        Some(calls) => calls,
        None => return usage(),
    };
    let mode = args.next().unwrap_or_default();
    if !matches!(mode.as_str(), "none" | "eddsa" | "rs256") {
        return usage();
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("ct-bench-oauth: no runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(calls, &mode)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("ct-bench-oauth: {error}");
            ExitCode::FAILURE
        }
    }
}

fn usage() -> ExitCode {
    eprintln!("usage: ct-bench-oauth <calls> none|eddsa|rs256");
    ExitCode::FAILURE
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

async fn run(calls: usize, mode: &str) -> Result<(), BoxError> {
    let issuer = start_issuer().await?;
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let resource = format!("http://{addr}/mcp");
    let mut server = HttpServer::new(Bench::server());
    let token = match mode {
        "none" => None,
        alg => {
            server = server.oauth(OAuth::jwt(&issuer, &resource)?);
            Some(sign(alg, &issuer, &resource)?)
        }
    };
    tokio::spawn(server.serve(listener).into_future());
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\ncontent-length: {}\r\n",
        BODY.len()
    );
    if let Some(token) = token {
        head.push_str(&format!("authorization: Bearer {token}\r\n"));
    }
    head.push_str("\r\n");
    let request = format!("{head}{BODY}").into_bytes();
    let mut stream = TcpStream::connect(addr).await?;
    let mut buffer = Vec::with_capacity(4096);
    // The first call fetches the key set; the counted ones use the cached keys.
    for _ in 0..=calls {
        stream.write_all(&request).await?;
        let reply = read_reply(&mut stream, &mut buffer).await?;
        if !reply.contains("\"text\":\"5\"") {
            return Err(format!("an unexpected answer: {reply}").into());
        }
    }
    Ok(())
}

/// One response off a keep-alive connection (a `content-length` body).
async fn read_reply(stream: &mut TcpStream, buffer: &mut Vec<u8>) -> Result<String, BoxError> {
    buffer.clear();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_ascii_lowercase();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|value| value.trim().parse().ok())
                .ok_or("an answer without content-length")?;
            if buffer.len() >= end + 4 + length {
                return Ok(String::from_utf8_lossy(&buffer[end + 4..end + 4 + length]).into_owned());
            }
        }
        let read = stream.read(&mut chunk).await?;
        if read == 0 {
            return Err("the server closed the connection".into());
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
}

/// The issuer: its metadata and key set, on 127.0.0.1; its URL.
async fn start_issuer() -> Result<String, BoxError> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")}).to_string();
    let jwks = json!({"keys": [
        {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "alg": "EdDSA", "x": ED_X},
        {"kty": "RSA", "kid": "rsa", "alg": "RS256", "n": RSA_N, "e": "AQAB"}
    ]})
    .to_string();
    let json = |body: String| {
        move || {
            let body = body.clone();
            async move {
                axum::response::Response::builder()
                    .header("content-type", "application/json")
                    .body(axum::body::Body::from(body))
                    .unwrap_or_default()
            }
        }
    };
    let app = axum::Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            axum::routing::get(json(metadata)),
        )
        .route("/jwks", axum::routing::get(json(jwks)));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Ok(url)
}

fn sign(alg: &str, issuer: &str, resource: &str) -> Result<String, BoxError> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs();
    let claims = json!({"iss": issuer, "aud": resource, "sub": "bench", "client_id": "bench",
                        "scope": "bench", "iat": now, "exp": now + 3600});
    let (algorithm, kid, key) = match alg {
        "eddsa" => (
            Algorithm::EdDSA,
            "ed",
            EncodingKey::from_ed_der(&base64::engine::general_purpose::STANDARD.decode(ED_DER)?),
        ),
        _ => (
            Algorithm::RS256,
            "rsa",
            EncodingKey::from_rsa_der(&base64::engine::general_purpose::STANDARD.decode(RSA_DER)?),
        ),
    };
    let mut header = Header::new(algorithm);
    header.kid = Some(kid.to_string());
    Ok(jsonwebtoken::encode(&header, &claims, &key)?)
}
