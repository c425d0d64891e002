//! An `application/x-www-form-urlencoded` body, as a browser sends a plain
//! form: `name=Ada+Lovelace&topic=a&topic=b`. A repeated name becomes a list
//! of its values in order; every value is text.

use serde_json::{Map, Value};

use super::{MAX_FIELDS, invalid};
use crate::server::problem::Problem;

pub fn object(bytes: &[u8]) -> Result<Map<String, Value>, Problem> {
    let mut map = Map::new();
    let mut pairs = 0usize;
    for part in bytes.split(|&b| b == b'&').filter(|p| !p.is_empty()) {
        pairs += 1;
        if pairs > MAX_FIELDS * 4 {
            return Err(invalid("server.problem.invalid_body.too_many_values")
                .arg("values", MAX_FIELDS * 4)
                .arg("max", MAX_FIELDS));
        }
        let (name, value) = match part.iter().position(|&b| b == b'=') {
            Some(at) => (&part[..at], &part[at + 1..]),
            None => (part, &[][..]),
        };
        let name = decode(name)?;
        let value = Value::String(decode(value)?);
        match map.get_mut(&name) {
            None => {
                map.insert(name, value);
            }
            Some(Value::Array(list)) => list.push(value),
            Some(first) => {
                let first = first.take();
                map.insert(name, Value::Array(vec![first, value]));
            }
        }
    }
    Ok(map)
}

/// `+` is a space, `%XX` a byte; a `%` not followed by two hex digits stays
/// as it is (as browsers read it). The result must be UTF-8.
fn decode(bytes: &[u8]) -> Result<String, Problem> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                (Some(high), Some(low)) => {
                    out.push(high * 16 + low);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8(out).map_err(|_| invalid("server.problem.invalid_body.not_utf8"))
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plain_forms_body() {
        let map = object(b"name=Ada+Lovelace&email=ada%40example.org&topic=a&topic=b&empty=&flag")
            .unwrap();
        assert_eq!(
            Value::Object(map),
            json!({"name": "Ada Lovelace", "email": "ada@example.org", "topic": ["a", "b"], "empty": "", "flag": ""})
        );
    }

    #[test]
    fn japanese_and_odd_percents() {
        let map = object("name=%E5%B1%B1%E7%94%B0&note=100%&x=%zz".as_bytes()).unwrap();
        assert_eq!(map["name"], "山田");
        assert_eq!(map["note"], "100%");
        assert_eq!(map["x"], "%zz");
        assert!(object(b"name=%FF").is_err(), "not UTF-8");
    }
}
