//! A JSON body: one object, nested at most [`MAX_DEPTH`] deep. The depth is
//! measured before parsing, so a hostile nesting never reaches the parser.

use serde_json::{Map, Value};

use super::{MAX_DEPTH, MAX_FIELDS, invalid};
use crate::server::problem::Problem;

pub fn object(bytes: &[u8]) -> Result<Map<String, Value>, Problem> {
    let depth = depth(bytes);
    if depth > MAX_DEPTH {
        return Err(invalid("server.problem.invalid_body.too_deep")
            .arg("depth", depth)
            .arg("max", MAX_DEPTH));
    }
    if top_level_fields_exceed(bytes, MAX_FIELDS) {
        return Err(invalid("server.problem.invalid_body.too_many").arg("max", MAX_FIELDS));
    }
    match serde_json::from_slice::<Value>(bytes) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(invalid("server.problem.invalid_body.not_object")),
        Err(e) => Err(invalid("server.problem.invalid_body.not_json")
            .arg("line", e.line())
            .arg("column", e.column())),
    }
}

/// Calls `each` with every byte outside strings and the nesting depth
/// after it (`[` and `{` open, `]` and `}` close).
fn outside_strings(bytes: &[u8], mut each: impl FnMut(u8, usize)) {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => depth += 1,
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        each(b, depth);
    }
}

/// The deepest nesting of `[` and `{` outside strings.
fn depth(bytes: &[u8]) -> usize {
    let mut deepest = 0;
    outside_strings(bytes, |_, depth| deepest = deepest.max(depth));
    deepest
}

/// True when the top-level object has more than `max` members (counted by
/// their separating commas), before anything is built.
fn top_level_fields_exceed(bytes: &[u8], max: usize) -> bool {
    let mut commas = 0usize;
    outside_strings(bytes, |b, depth| {
        if b == b',' && depth == 1 {
            commas += 1;
        }
    });
    commas >= max
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_ignores_brackets_in_strings() {
        assert_eq!(depth(br#"{"a": "[[[{{{"}"#), 1);
        assert_eq!(depth(br#"{"a": [{"b": [1]}]}"#), 4);
        assert_eq!(depth(br#"{"a": "\"[["}"#), 1);
    }

    #[test]
    fn only_a_shallow_object_is_taken() {
        assert!(object(br#"{"email": "a@b.c", "tags": ["x", "y"]}"#).is_ok());
        assert!(object(br#"[1, 2]"#).is_err());
        assert!(object(br#""text""#).is_err());
        assert!(object(br#"{"a": "#).is_err());
        assert!(object(br#"{"a": [[[[1]]]]}"#).is_err());
        let deep = "[".repeat(100_000);
        assert!(object(deep.as_bytes()).is_err(), "refused before parsing");
        let many: Vec<String> = (0..65).map(|i| format!("\"f{i}\": 1")).collect();
        assert!(object(format!("{{{}}}", many.join(",")).as_bytes()).is_err());
        let enough: Vec<String> = (0..64).map(|i| format!("\"f{i}\": 1")).collect();
        assert!(object(format!("{{{}}}", enough.join(",")).as_bytes()).is_ok());
    }
}
