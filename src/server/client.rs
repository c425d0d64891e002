//! Who sent a request, for the rate limit. Behind a load balancer every
//! visitor arrives from the proxy's own address, so the client is the one
//! the proxies name; but anyone can write those headers, so they are read
//! only when the socket's peer is one of `[server] trusted_proxies`.
//!
//! The proxies append the address they received from, so the chain is read
//! from the right: each trusted proxy vouches for the hop to its left, and
//! the first address that is not a trusted proxy is the client (what lies
//! further left was written by the client itself). When every address is a
//! trusted proxy, the left-most is the client. A hop that cannot be read
//! (garbage, `unknown`, an obfuscated `_name`) ends the walk at the proxy's
//! own address: it is not a client that can be told apart.
//!
//! `X-Forwarded-For` wins when both it and `Forwarded` are present: it is
//! the header nearly every proxy writes, and the other one is then the
//! client's own text. A proxy that writes only `Forwarded` should remove an
//! `X-Forwarded-For` its client sent.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, header};
use ipnet::IpNet;

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The client of a request: its socket's peer, or behind a trusted proxy
/// the address the proxies name.
pub fn of_request(parts: &Parts, trusted: &[IpNet]) -> IpAddr {
    from_headers(socket_address(parts), &parts.headers, trusted)
}

/// The peer of the request's connection, as the transport records it.
fn socket_address(parts: &Parts) -> IpAddr {
    parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip())
        .unwrap_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED))
}

/// The client of a request from `socket` with these headers.
pub fn from_headers(socket: IpAddr, headers: &HeaderMap, trusted: &[IpNet]) -> IpAddr {
    let socket = socket.to_canonical();
    if !is_trusted(socket, trusted) {
        return socket;
    }
    let chain: Vec<Hop> = if headers.contains_key(&X_FORWARDED_FOR) {
        lines(headers, &X_FORWARDED_FOR, x_forwarded_for_line)
    } else {
        lines(headers, &header::FORWARDED, forwarded_line)
    };
    let mut client = socket;
    for hop in chain.into_iter().rev() {
        match hop {
            Hop::At(address) if is_trusted(address, trusted) => client = address,
            Hop::At(address) => return address,
            Hop::Unreadable => return socket,
        }
    }
    client
}

fn is_trusted(address: IpAddr, trusted: &[IpNet]) -> bool {
    trusted.iter().any(|net| net.contains(&address))
}

/// One node of a chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hop {
    At(IpAddr),
    /// Garbage, `unknown`, or an obfuscated name.
    Unreadable,
}

/// Every line of the header in order, each read by `line`; a line that is
/// not text, or that `line` cannot read, is one unreadable hop.
fn lines(headers: &HeaderMap, name: &HeaderName, line: fn(&str) -> Option<Vec<Hop>>) -> Vec<Hop> {
    let mut chain = Vec::new();
    for value in headers.get_all(name) {
        match text(value).and_then(line) {
            Some(hops) => chain.extend(hops),
            None => chain.push(Hop::Unreadable),
        }
    }
    chain
}

fn text(value: &HeaderValue) -> Option<&str> {
    value.to_str().ok()
}

/// `203.0.113.7, 10.0.0.2`: addresses, with a port or in brackets as some
/// proxies write them.
fn x_forwarded_for_line(line: &str) -> Option<Vec<Hop>> {
    Some(line.split(',').map(|item| node(item.trim())).collect())
}

/// `for=192.0.2.60;proto=http, for="[2001:db8:cafe::17]:4711"` (RFC 7239):
/// each element's `for` node; an element without one is unreadable.
fn forwarded_line(line: &str) -> Option<Vec<Hop>> {
    let bytes = line.as_bytes();
    let mut at = 0;
    let mut hops = Vec::new();
    // The current element's `for` node, and whether it has any pair at all.
    let mut node_for: Option<Hop> = None;
    let mut has_pairs = false;
    loop {
        at = skip_spaces(bytes, at);
        match bytes.get(at) {
            None | Some(b',') => {
                if has_pairs {
                    hops.push(node_for.take().unwrap_or(Hop::Unreadable));
                }
                has_pairs = false;
                node_for = None;
                if at >= bytes.len() {
                    return Some(hops);
                }
                at += 1;
                continue;
            }
            Some(b';') => {
                at += 1;
                continue;
            }
            Some(_) => {}
        }
        let name_start = at;
        while at < bytes.len() && !b"=;, \t\"".contains(&bytes[at]) {
            at += 1;
        }
        let name = &line[name_start..at];
        if name.is_empty() || bytes.get(at) != Some(&b'=') {
            return None;
        }
        at += 1;
        let (value, next) = value(line, at)?;
        at = skip_spaces(bytes, next);
        if !matches!(bytes.get(at), None | Some(b';' | b',')) {
            return None;
        }
        has_pairs = true;
        if name.eq_ignore_ascii_case("for") {
            // A second `for` in one element is not a chain that can be read.
            node_for = match node_for {
                None => Some(forwarded_node(&value)),
                Some(_) => Some(Hop::Unreadable),
            };
        }
    }
}

/// A pair's value from `at`: a token, or a quoted string with `\` escapes;
/// the value and where it ends.
fn value(line: &str, at: usize) -> Option<(String, usize)> {
    let bytes = line.as_bytes();
    if bytes.get(at) != Some(&b'"') {
        let mut end = at;
        while end < bytes.len() && !b";, \t\"".contains(&bytes[end]) {
            end += 1;
        }
        return Some((line[at..end].to_string(), end));
    }
    let mut out = String::new();
    let mut i = at + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => return Some((out, i + 1)),
            b'\\' => {
                out.push(char::from(*bytes.get(i + 1)?));
                i += 2;
            }
            b => {
                out.push(char::from(b));
                i += 1;
            }
        }
    }
    None
}

fn skip_spaces(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t') {
        at += 1;
    }
    at
}

/// A `for=` node: `192.0.2.60`, `192.0.2.60:80`, `[2001:db8::1]:4711`;
/// `unknown` and `_obfuscated` names are not addresses.
fn forwarded_node(value: &str) -> Hop {
    if value.eq_ignore_ascii_case("unknown") || value.starts_with('_') {
        return Hop::Unreadable;
    }
    if let Some(rest) = value.strip_prefix('[') {
        let Some((inside, port)) = rest.split_once(']') else {
            return Hop::Unreadable;
        };
        let port_ok = port.is_empty() || port.strip_prefix(':').is_some_and(is_port);
        return match (inside.parse::<IpAddr>(), port_ok) {
            (Ok(address @ IpAddr::V6(_)), true) => Hop::At(address.to_canonical()),
            _ => Hop::Unreadable,
        };
    }
    if let Some((address, port)) = value.split_once(':')
        && let Ok(address) = address.parse::<Ipv4Addr>()
    {
        return if is_port(port) {
            Hop::At(IpAddr::V4(address))
        } else {
            Hop::Unreadable
        };
    }
    node(value)
}

/// `8080`, or an obfuscated `_port`.
fn is_port(port: &str) -> bool {
    port.parse::<u16>().is_ok() || (port.starts_with('_') && port.len() > 1)
}

/// An address as proxies write it: bare, with a port, or in brackets.
fn node(text: &str) -> Hop {
    let address = text
        .parse::<IpAddr>()
        .ok()
        .or_else(|| text.parse::<SocketAddr>().ok().map(|s| s.ip()))
        .or_else(|| {
            text.strip_prefix('[')
                .and_then(|t| t.strip_suffix(']'))
                .and_then(|t| t.parse::<IpAddr>().ok())
        });
    match address {
        Some(address) => Hop::At(address.to_canonical()),
        None => Hop::Unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nets(list: &[&str]) -> Vec<IpNet> {
        list.iter().map(|n| n.parse().unwrap()).collect()
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    /// The client of a request from `socket` with these header lines, with
    /// 10.0.0.0/8 and ::1 trusted.
    fn client(socket: &str, lines: &[(&'static str, &str)]) -> IpAddr {
        let mut headers = HeaderMap::new();
        for (name, value) in lines {
            headers.append(*name, HeaderValue::from_str(value).unwrap());
        }
        from_headers(ip(socket), &headers, &nets(&["10.0.0.0/8", "::1/128"]))
    }

    #[test]
    fn from_anyone_else_the_headers_are_ignored() {
        let spoofed = [
            ("x-forwarded-for", "203.0.113.7"),
            ("forwarded", "for=203.0.113.8"),
        ];
        assert_eq!(client("192.0.2.1", &spoofed), ip("192.0.2.1"));
        assert_eq!(client("192.0.2.1", &spoofed[1..]), ip("192.0.2.1"));
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", HeaderValue::from_static("203.0.113.7"));
        let nothing_trusted = from_headers(ip("10.0.0.1"), &headers, &[]);
        assert_eq!(
            nothing_trusted,
            ip("10.0.0.1"),
            "nothing trusted by default"
        );
    }

    #[test]
    fn the_right_most_untrusted_address_of_x_forwarded_for() {
        let xff = |v: &str| client("10.0.0.1", &[("x-forwarded-for", v)]);
        assert_eq!(xff("203.0.113.7"), ip("203.0.113.7"));
        assert_eq!(xff("198.51.100.1, 203.0.113.7"), ip("203.0.113.7"));
        assert_eq!(xff("203.0.113.7, 10.0.0.5,10.9.9.9"), ip("203.0.113.7"));
        assert_eq!(xff("2001:db8::1"), ip("2001:db8::1"));
        assert_eq!(xff("[2001:db8::1]:443"), ip("2001:db8::1"));
        assert_eq!(xff("[2001:db8::1]"), ip("2001:db8::1"));
        assert_eq!(xff("203.0.113.7:55012"), ip("203.0.113.7"));
        assert_eq!(xff("::ffff:203.0.113.7"), ip("203.0.113.7"));
        // All trusted: the left-most.
        assert_eq!(xff("10.1.1.1, 10.2.2.2"), ip("10.1.1.1"));
        assert_eq!(xff("::1"), ip("::1"));
        // Every line, in order.
        let two = client(
            "10.0.0.1",
            &[
                ("x-forwarded-for", "203.0.113.7"),
                ("x-forwarded-for", "198.51.100.2, 10.0.0.3"),
            ],
        );
        assert_eq!(two, ip("198.51.100.2"));
        // From an IPv4-mapped socket address as well.
        assert_eq!(
            client("::ffff:10.0.0.1", &[("x-forwarded-for", "203.0.113.7")]),
            ip("203.0.113.7")
        );
    }

    #[test]
    fn garbage_makes_the_client_the_proxy() {
        let xff = |v: &str| client("10.0.0.1", &[("x-forwarded-for", v)]);
        for v in [
            "not an address",
            "",
            "203.0.113.7, ",
            "300.1.2.3",
            "unknown",
        ] {
            assert_eq!(xff(v), ip("10.0.0.1"), "{v:?}");
        }
        // What the client wrote left of its own address does not matter.
        assert_eq!(xff("garbage, 203.0.113.7"), ip("203.0.113.7"));
        assert_eq!(xff("garbage, 10.0.0.7"), ip("10.0.0.1"));
        let mut headers = HeaderMap::new();
        headers.append(
            "x-forwarded-for",
            HeaderValue::from_bytes(b"\xff\xfe").unwrap(),
        );
        let trusted = nets(&["10.0.0.0/8"]);
        assert_eq!(
            from_headers(ip("10.0.0.1"), &headers, &trusted),
            ip("10.0.0.1")
        );
        headers.append("x-forwarded-for", HeaderValue::from_static("203.0.113.7"));
        assert_eq!(
            from_headers(ip("10.0.0.1"), &headers, &trusted),
            ip("203.0.113.7"),
            "a line the proxy added after the client's is still read"
        );
    }

    #[test]
    fn forwarded_is_read_the_same_way() {
        let fwd = |v: &str| client("10.0.0.1", &[("forwarded", v)]);
        assert_eq!(fwd("for=192.0.2.60"), ip("192.0.2.60"));
        assert_eq!(fwd("For=\"192.0.2.60:8080\""), ip("192.0.2.60"));
        assert_eq!(
            fwd(r#"for="[2001:db8:cafe::17]:4711""#),
            ip("2001:db8:cafe::17")
        );
        assert_eq!(fwd(r#"for="[2001:db8:cafe::17]""#), ip("2001:db8:cafe::17"));
        assert_eq!(
            fwd("for=192.0.2.43, for=198.51.100.17;by=10.0.0.9;proto=https"),
            ip("198.51.100.17")
        );
        assert_eq!(
            fwd(r#"for=192.0.2.43 , for="[::1]";proto=http, for=10.0.0.3"#),
            ip("192.0.2.43")
        );
        assert_eq!(
            fwd("proto=https;for=192.0.2.60;host=acme.example"),
            ip("192.0.2.60")
        );
        assert_eq!(fwd(r#"for="\192.0.2.60""#), ip("192.0.2.60"), "an escape");
        // `unknown`, obfuscated names and elements without `for`: not addresses.
        for v in [
            "for=unknown",
            "for=_hidden",
            r#"for="_hidden:4711""#,
            "for=192.0.2.43, for=unknown",
            "by=10.0.0.9",
            "for=192.0.2.60;for=192.0.2.61",
            r#"for="[::1"#,
            "for=",
            "for=\"[2001:db8::1]:port\"",
            "for=192.0.2.60 proto=http",
            "garbage",
            r#"for="192.0.2.60"x"#,
        ] {
            assert_eq!(fwd(v), ip("10.0.0.1"), "{v:?}");
        }
        assert_eq!(fwd(r#"for="[2001:db8::1]:_p""#), ip("2001:db8::1"));
        assert_eq!(fwd("for=_hidden, for=203.0.113.7"), ip("203.0.113.7"));
        assert_eq!(
            fwd(",for=203.0.113.7,"),
            ip("203.0.113.7"),
            "empty elements"
        );
    }

    #[test]
    fn x_forwarded_for_wins_over_forwarded() {
        let both = client(
            "10.0.0.1",
            &[
                ("forwarded", "for=198.51.100.9"),
                ("x-forwarded-for", "203.0.113.7"),
            ],
        );
        assert_eq!(both, ip("203.0.113.7"));
    }
}
