//! Where a request may come from, against DNS rebinding: the `Host` it names (which hosts this
//! server answers to) and the browser `Origin` it carries (which web pages may call it); their
//! [`HttpServer`] builder methods, and the checks.

use std::net::{Ipv4Addr, SocketAddr};

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::reply::transport_error;
use super::{HttpServer, Shared, TRANSPORT_ERROR};

impl HttpServer {
    /// The browser origins allowed to call, replacing the default (loopback origins with any
    /// port). Each entry is an origin as browsers send it, `scheme://host[:port]`, compared
    /// without regard to case; `"*"` allows any origin (only behind a proxy that checks origins
    /// itself). Requests without an `Origin` header always pass: only browsers send one.
    ///
    /// ```
    /// # use claude_tools::mcp::http::HttpServer;
    /// # let server = claude_tools::ToolServer::new("demo", "1.0.0");
    /// let http = HttpServer::new(server)
    ///     .allowed_origins(["https://console.example.com", "http://localhost:5173"]);
    /// ```
    pub fn allowed_origins<I, S>(mut self, origins: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut list = Vec::new();
        for origin in origins {
            let origin = origin.into();
            if origin.trim() == "*" {
                self.origins = Origins::Any;
                return self;
            }
            list.push(origin.trim().trim_end_matches('/').to_ascii_lowercase());
        }
        self.origins = Origins::List(list);
        self
    }

    /// The hosts this server answers to, by the request's `Host` header, replacing the default;
    /// a request naming another gets `403`. This defends against DNS rebinding (a web page
    /// whose own host name is made to resolve to this machine), as the `Origin` check does.
    /// Each entry is `name` (any port) or `name:port`, compared without regard to case; an IPv6
    /// address goes in brackets (`[::1]`); `"*"` allows any host.
    ///
    /// By default, [`serve`](HttpServer::serve) on a loopback listener answers only to
    /// `localhost`, `[::1]` and the addresses of `127.0.0.0/8` (any port), and on any other
    /// listener (`0.0.0.0`, a public address) to any host, whose names it cannot know; a router
    /// mounted with [`into_router`](HttpServer::into_router) cannot see its listener and answers
    /// only to the loopback hosts: behind a reverse proxy or on a public address, list the names
    /// clients use (or `"*"`). An empty list refuses every request.
    ///
    /// ```
    /// # use claude_tools::mcp::http::HttpServer;
    /// # let server = claude_tools::ToolServer::new("demo", "1.0.0");
    /// let http = HttpServer::new(server).allowed_hosts(["mcp.example.com", "localhost"]);
    /// ```
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.hosts = Hosts::of(hosts);
        self
    }

    /// The host list once the listener's address is known (see [`HttpServer::allowed_hosts`](crate::http::HttpServer::allowed_hosts)).
    pub(super) fn bound_to(mut self, listener: Option<SocketAddr>) -> Self {
        self.hosts = self.hosts.on_listener(listener);
        self
    }
}

/// Which `Origin` headers pass.
#[derive(Debug, Clone)]
pub(super) enum Origins {
    /// `http(s)://localhost|127.0.0.1|[::1]` with any port.
    Loopback,
    /// Exactly these origins, lowercased, without a trailing `/`.
    List(Vec<String>),
    /// Any origin (`"*"` in the list).
    Any,
}

/// Which `Host` headers pass.
#[derive(Debug, Clone)]
pub(super) enum Hosts {
    /// Not chosen: [`Hosts::Loopback`] on a loopback listener and for a mounted router,
    /// [`Hosts::Any`] on any other listener ([`Hosts::on_listener`]).
    Unset,
    /// `localhost`, `[::1]` or an address of `127.0.0.0/8`, with any port or none.
    Loopback,
    /// These hosts (lowercased), each with its port or, `None`, any port.
    List(Vec<(String, Option<u16>)>),
    /// Any host (`"*"` in the list).
    Any,
}

impl Hosts {
    /// The hosts allowed: an unset list becomes [`Hosts::Loopback`] on a loopback `listener`
    /// (or one of unknown address) and [`Hosts::Any`] on another.
    pub(super) fn on_listener(self, listener: Option<SocketAddr>) -> Self {
        match self {
            Hosts::Unset if listener.is_some_and(|addr| !addr.ip().is_loopback()) => Hosts::Any,
            Hosts::Unset => Hosts::Loopback,
            chosen => chosen,
        }
    }

    /// The list `allowed_hosts` was given: entries `host` or `host:port`; `"*"` allows any.
    pub(super) fn of<I, S>(hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut list = Vec::new();
        for host in hosts {
            let host = host.into();
            let host = host.trim();
            if host == "*" {
                return Hosts::Any;
            }
            match split_host(host) {
                Some((name, port)) => list.push((name.to_ascii_lowercase(), port)),
                None => tracing::warn!(host, "MCP HTTP: allowed_hosts: not a host; ignored"),
            }
        }
        Hosts::List(list)
    }

    fn allow(&self, host: &str) -> bool {
        // A header value is ASCII (`HeaderValue::to_str`): only ASCII blanks to trim.
        let Some((name, port)) = split_host(host.trim_ascii()) else {
            return false;
        };
        match self {
            Hosts::Any => true,
            Hosts::Unset | Hosts::Loopback => {
                // A listener on another loopback address (`127.0.0.2`) is reached by its own.
                is_loopback_name(name) || name.parse::<Ipv4Addr>().is_ok_and(|ip| ip.is_loopback())
            }
            Hosts::List(list) => list.iter().any(|(allowed, allowed_port)| {
                allowed.eq_ignore_ascii_case(name) && allowed_port.is_none_or(|p| Some(p) == port)
            }),
        }
    }
}

/// `host[:port]` or `[v6][:port]` as its name (brackets kept) and port; `None` if malformed.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    // Read as bytes: every `Host` of every request passes here.
    let bytes = host.as_bytes();
    let name_end = if bytes.first() == Some(&b'[') {
        bytes.iter().position(|&b| b == b']')? + 1
    } else {
        bytes.iter().position(|&b| b == b':').unwrap_or(bytes.len())
    };
    let (name, port) = host.split_at(name_end);
    if name.is_empty() || !name.bytes().all(is_host_byte) {
        return None;
    }
    if port.is_empty() {
        return Some((name, None));
    }
    let digits = port.strip_prefix(':')?;
    if digits.is_empty() {
        return None;
    }
    let mut number: u16 = 0;
    for digit in digits.bytes() {
        if !digit.is_ascii_digit() {
            return None;
        }
        number = number
            .checked_mul(10)?
            .checked_add(u16::from(digit - b'0'))?;
    }
    Some((name, Some(number)))
}

/// A byte a host name may hold (brackets and colons for an IPv6 literal).
fn is_host_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'[' | b']' | b':')
}

fn is_loopback_name(name: &str) -> bool {
    name.eq_ignore_ascii_case("localhost") || name == "127.0.0.1" || name == "[::1]"
}

/// `403` unless the request's `Host` is one this server answers to.
pub(super) fn check_host(shared: &Shared, host: Option<&HeaderValue>) -> Option<Response> {
    let data = match host {
        Some(host) if host.to_str().is_ok_and(|host| shared.hosts.allow(host)) => return None,
        Some(host) => {
            let shown = String::from_utf8_lossy(host.as_bytes());
            tracing::debug!(host = %shown, "MCP HTTP: host not allowed");
            format!("host `{shown}` is not allowed")
        }
        None if matches!(shared.hosts, Hosts::Any) => return None,
        None => {
            tracing::debug!("MCP HTTP: a request without a Host header");
            "the request has no Host header".to_string()
        }
    };
    Some(transport_error(
        StatusCode::FORBIDDEN,
        TRANSPORT_ERROR,
        "Forbidden",
        &data,
    ))
}

/// `403` if the request carries an `Origin` that is not allowed.
pub(super) fn check_origin(shared: &Shared, origin: Option<&HeaderValue>) -> Option<Response> {
    let origin = origin?;
    if allowed_origin_value(shared, Some(origin)).is_some() {
        return None;
    }
    let shown = String::from_utf8_lossy(origin.as_bytes());
    tracing::debug!(origin = %shown, "MCP HTTP: origin not allowed");
    Some(transport_error(
        StatusCode::FORBIDDEN,
        TRANSPORT_ERROR,
        "Forbidden",
        &format!("origin `{shown}` is not allowed"),
    ))
}

/// The request's `Origin`, if it has one and it is allowed.
pub(super) fn allowed_origin<'a>(shared: &Shared, headers: &'a HeaderMap) -> Option<&'a str> {
    allowed_origin_value(shared, headers.get(header::ORIGIN))
}

/// `origin` (a request's `Origin`), if it is allowed.
fn allowed_origin_value<'a>(shared: &Shared, origin: Option<&'a HeaderValue>) -> Option<&'a str> {
    let origin = origin?.to_str().ok()?;
    let allowed = match &shared.origins {
        Origins::Any => true,
        Origins::List(list) => {
            let origin = origin.trim().trim_end_matches('/');
            list.iter()
                .any(|allowed| allowed.eq_ignore_ascii_case(origin))
        }
        Origins::Loopback => is_loopback_origin(origin.trim()),
    };
    allowed.then_some(origin)
}

/// `http(s)://` + `localhost`, `127.0.0.1` or `[::1]` + an optional `:port`, nothing more.
fn is_loopback_origin(origin: &str) -> bool {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
        return false;
    }
    // `port` keeps its leading `:`.
    let (host, port) = match rest.strip_prefix("[::1]") {
        Some(port) => ("[::1]", port),
        None => rest.split_at(rest.find(':').unwrap_or(rest.len())),
    };
    let port_ok = port.is_empty()
        || port
            .strip_prefix(':')
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
    port_ok && is_loopback_name(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_origins_pass_and_others_do_not() {
        for origin in [
            "http://localhost",
            "http://localhost:3000",
            "https://LOCALHOST:8443",
            "http://127.0.0.1:9",
            "http://[::1]",
            "http://[::1]:8080",
        ] {
            assert!(is_loopback_origin(origin), "{origin}");
        }
        for origin in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "http://localhost:",
            "http://localhost:80/path",
            "ftp://localhost",
            "null",
            "http://[::1]x",
            "http://127.0.0.2",
        ] {
            assert!(!is_loopback_origin(origin), "{origin}");
        }
    }

    #[test]
    fn hosts_are_matched_by_name_and_port() {
        let loopback = Hosts::Loopback;
        for host in [
            "localhost",
            "LOCALHOST:8080",
            "127.0.0.1:1",
            "127.0.0.2",
            "[::1]",
            "[::1]:80",
            " localhost:8080\t",
            "localhost:065535",
        ] {
            assert!(loopback.allow(host), "{host}");
        }
        for host in [
            "evil.example",
            "localhost.evil.example",
            "127.0.0.1.nip.io:80",
            "localhost:",
            "localhost:x",
            "[::1",
            "[::1]x",
            "128.0.0.1",
            "127.1",
            "",
            "local host",
            "localhost:65536",
            "localhost:99999999999",
            "localhost:-1",
            "[::1]:",
        ] {
            assert!(!loopback.allow(host), "{host}");
        }
        let list = Hosts::of(["MCP.example.com", "api.example.com:8443"]);
        assert!(list.allow("mcp.example.com"));
        assert!(list.allow("mcp.example.com:443"));
        assert!(list.allow("api.example.com:8443"));
        assert!(!list.allow("api.example.com"));
        assert!(!list.allow("api.example.com:443"));
        assert!(!list.allow("localhost"));
        assert!(matches!(Hosts::of(["a", "*"]), Hosts::Any));
    }

    #[test]
    fn an_unset_host_list_follows_the_listener() {
        let on = |addr: &str| Hosts::Unset.on_listener(Some(addr.parse().unwrap()));
        assert!(matches!(on("127.0.0.1:80"), Hosts::Loopback));
        assert!(matches!(on("[::1]:80"), Hosts::Loopback));
        assert!(matches!(on("0.0.0.0:80"), Hosts::Any));
        assert!(matches!(on("10.1.2.3:80"), Hosts::Any));
        assert!(matches!(Hosts::Unset.on_listener(None), Hosts::Loopback));
        assert!(matches!(
            Hosts::of(["x"]).on_listener(Some("0.0.0.0:1".parse().unwrap())),
            Hosts::List(_)
        ));
    }
}
