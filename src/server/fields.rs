//! A submission's fields against its form's rules: unlisted fields (kept,
//! dropped or refused), the longest value of each field, and the required
//! ones. Every refusal is a 422 naming the fields, never their values.

use axum::http::StatusCode;
use serde_json::{Map, Value};

use super::config::{Extra, FormConfig};
use super::problem::{Problem, listed};

/// The fields as they will be stored, or the problem.
pub fn check(
    form: &FormConfig,
    mut fields: Map<String, Value>,
) -> Result<Map<String, Value>, Problem> {
    let unlisted: Vec<String> = fields
        .keys()
        .filter(|k| !form.is_listed(k) && form.honeypot.as_deref() != Some(k.as_str()))
        .cloned()
        .collect();
    match form.extra {
        Extra::Keep => {}
        Extra::Drop => {
            for name in &unlisted {
                fields.remove(name);
            }
        }
        Extra::Refuse if !unlisted.is_empty() => {
            return Err(Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "server.problem.unknown_fields.title",
                "server.problem.unknown_fields.detail",
            )
            .arg("fields", listed(&unlisted))
            .with_fields(&unlisted));
        }
        Extra::Refuse => {}
    }
    let too_long: Vec<(String, usize)> = fields
        .iter()
        .filter_map(|(name, value)| {
            let max = form.max_chars(name).unwrap_or(0);
            (length(value) > max).then(|| (name.clone(), max))
        })
        .collect();
    if let Some((first, max)) = too_long.first() {
        let names: Vec<String> = too_long.iter().map(|(n, _)| n.clone()).collect();
        let title = "server.problem.too_long.title";
        let problem = if too_long.len() == 1 {
            Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                title,
                "server.problem.too_long.one",
            )
            .arg("field", listed(std::slice::from_ref(first)))
            .arg("max", max)
        } else {
            Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                title,
                "server.problem.too_long.many",
            )
            .arg("fields", listed(&names))
        };
        return Err(problem.with_fields(&names));
    }
    let missing: Vec<String> = form
        .required
        .iter()
        .filter(|name| fields.get(name.as_str()).is_none_or(is_blank))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(Problem::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "server.problem.missing.title",
            "server.problem.missing.detail",
        )
        .arg("fields", listed(&missing))
        .with_fields(&missing));
    }
    Ok(fields)
}

/// A value's length in characters: a text's own, anything else its JSON's.
fn length(value: &Value) -> usize {
    match value {
        Value::String(s) => s.chars().count(),
        Value::Array(items) => items.iter().map(length).sum::<usize>(),
        other => other.to_string().chars().count(),
    }
}

/// Null, blank text or an empty list: as good as absent.
fn is_blank(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(items) => items.iter().all(is_blank),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::config::Config;
    use serde_json::json;

    fn form(extra: &str) -> std::sync::Arc<FormConfig> {
        let text = format!(
            "[forms.c]\nfields = {{ email = 10, message = 20 }}\nrequired = [\"email\"]\nextra = \"{extra}\"\nhoneypot = \"website\""
        );
        Config::parse(&text, "t").unwrap().forms["c"].clone()
    }

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn extra_fields_kept_dropped_or_refused() {
        let fields = json!({"email": "a@b.c", "utm_source": "x", "website": ""});
        assert_eq!(check(&form("keep"), map(fields.clone())).unwrap().len(), 3);
        let dropped = check(&form("drop"), map(fields.clone())).unwrap();
        assert_eq!(
            Value::Object(dropped),
            json!({"email": "a@b.c", "website": ""})
        );
        let refused = check(&form("refuse"), map(fields)).unwrap_err();
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(refused.fields(), ["utm_source"]);
    }

    #[test]
    fn too_long_names_the_field_not_the_value() {
        let err = check(
            &form("keep"),
            map(json!({"email": "a@b.c", "message": "0123456789-0123456789"})),
        )
        .unwrap_err();
        assert_eq!(err.fields(), ["message"]);
        let detail = err.detail(crate::i18n::Lang::En);
        assert!(detail.contains("message") && detail.contains("20"));
        assert!(!detail.contains("0123456789"));
        let ok = check(&form("keep"), map(json!({"email": "山田@例え.jp"})));
        assert!(ok.is_ok(), "characters, not bytes");
    }

    #[test]
    fn required_fields_must_hold_something() {
        for fields in [
            json!({}),
            json!({"email": "  "}),
            json!({"email": null}),
            json!({"email": []}),
        ] {
            let err = check(&form("keep"), map(fields)).unwrap_err();
            assert_eq!(err.fields(), ["email"]);
        }
    }
}
