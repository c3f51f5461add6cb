//! A remote MCP server over Streamable HTTP: the `units` tool server (the same tools as the
//! `stdio_server` example, in `examples/src/stdio_server.rs`), for Claude Code or any MCP client
//! to call over the network.
//!
//! ```text
//! cargo run -p claude-tools-examples --example http_server -- --listen 127.0.0.1:8080
//! ```
//!
//! The first line on stdout is the endpoint's URL (`http://127.0.0.1:8080/mcp`; with
//! `--listen 127.0.0.1:0` the system picks the port and this line tells it). Without `--listen`
//! the server listens on `127.0.0.1:8080`. When the environment variable `UNITS_MCP_TOKEN` is
//! set and not empty, every request must carry `Authorization: Bearer <that token>`. Ctrl-C or
//! `SIGTERM` shuts the server down gracefully (calls in flight get five seconds to finish).
//!
//! Register it with Claude Code:
//!
//! ```text
//! claude mcp add --transport http units http://127.0.0.1:8080/mcp
//! claude mcp add --transport http units http://127.0.0.1:8080/mcp --header "Authorization: Bearer $UNITS_MCP_TOKEN"
//! ```
//!
//! or hand it to one run with `claude --mcp-config units.json`, where `units.json` is
//!
//! ```json
//! {"mcpServers": {"units": {"type": "http", "url": "http://127.0.0.1:8080/mcp"}}}
//! ```
//!
//! (add `"headers": {"Authorization": "Bearer …"}` with a token; from Rust:
//! `Options::external_mcp_server("units", ExternalServer::http(url))`). The model then sees
//! `mcp__units__to_fahrenheit`, `mcp__units__word_stats` and `mcp__units__count_to`, and a
//! 2026-07-28 client that uses skills lists the skill `temperature-report` (compiled in).
//!
//! With `--issuer URL` the server is an OAuth 2.1 resource server (the MCP authorization spec):
//! every request needs an access token from that authorization server, a JWT signed with one of
//! the keys its metadata's `jwks_uri` lists, whose audience (`aud`) is the URL the server prints;
//! clients find the issuer in the server's metadata at
//! `/.well-known/oauth-protected-resource/mcp`. `count_to` also needs the scope `units:count`
//! (a token without it gets `403 insufficient_scope`, and an OAuth client asks for it). With
//! `--introspect` as well, tokens are opaque and checked at the issuer's introspection endpoint
//! instead, the server authenticating with `UNITS_OAUTH_CLIENT_ID` / `UNITS_OAUTH_CLIENT_SECRET`
//! when set. `--jwks-min-refresh SECONDS` sets the least time between two fetches of the issuer's
//! keys (default 30).
//!
//! ```text
//! cargo run -p claude-tools-examples --example http_server -- --listen 127.0.0.1:8080 --issuer https://auth.example.com
//! ```
//!
//! The server is stateless: run as many copies as you like behind a load balancer. With
//! `--sessions` it keeps MCP sessions instead (`Mcp-Session-Id`, a `GET` stream per session,
//! `DELETE` to end one), in this process's memory: one copy, or sticky sessions. It answers only
//! loopback browser origins; see `claude_tools::mcp::http` for every rule.

use claude_tools::mcp::http::HttpServer;
use claude_tools::mcp::http::oauth::OAuth;
use claude_tools_examples::run::Args;
use claude_tools_examples::stdio_server::server_with_skill;

/// The environment variable holding the bearer token clients must send, if set.
const TOKEN_ENV: &str = "UNITS_MCP_TOKEN";

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = Args::from_env();
    let listen = args
        .take_value("--listen")
        .unwrap_or_else(|| "127.0.0.1:8080".to_string());
    let listener = tokio::net::TcpListener::bind(&listen).await?;
    let sessions = args.words.iter().any(|word| word == "--sessions");
    let units = server_with_skill().map_err(std::io::Error::other)?;
    let mut server = HttpServer::new(units).sessions(sessions);
    if let Some(token) = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()) {
        server = server.bearer_token(token);
    }
    let url = format!("http://{}/mcp", listener.local_addr()?);
    if let Some(issuer) = args.take_value("--issuer") {
        let introspect = args.words.iter().any(|word| word == "--introspect");
        let mut oauth = oauth(&issuer, &url, introspect).map_err(std::io::Error::other)?;
        if let Some(seconds) = args.take_value("--jwks-min-refresh") {
            let seconds: u64 = seconds.parse().map_err(|_| {
                std::io::Error::other(format!(
                    "--jwks-min-refresh `{seconds}`: not a number of seconds"
                ))
            })?;
            oauth = oauth.jwks_min_refresh_interval(std::time::Duration::from_secs(seconds));
        }
        server = server.oauth(oauth);
    }
    // The URL goes out first and alone on its line, flushed: tests and scripts read the port
    // from it.
    println!("{url}");
    server
        .serve(listener)
        .with_graceful_shutdown(claude_tools::mcp::shutdown_signal())
        .await
}

/// The server's OAuth: tokens from `issuer` for `url` (JWTs, or introspected opaque tokens),
/// `count_to` needing the scope `units:count`.
fn oauth(
    issuer: &str,
    url: &str,
    introspect: bool,
) -> Result<OAuth, Box<dyn std::error::Error + Send + Sync>> {
    let oauth = if introspect {
        let mut oauth = OAuth::introspection(issuer, url)?;
        if let (Ok(id), Ok(secret)) = (
            std::env::var("UNITS_OAUTH_CLIENT_ID"),
            std::env::var("UNITS_OAUTH_CLIENT_SECRET"),
        ) {
            oauth = oauth.client_credentials(id, secret);
        }
        oauth
    } else {
        OAuth::jwt(issuer, url)?
    };
    Ok(oauth
        .resource_name("units")
        .scopes_supported(["units"])
        .challenge_scopes(["units"])
        .tool_scopes("count_to", ["units:count"]))
}
