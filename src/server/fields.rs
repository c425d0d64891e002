//! A submission's fields against its form's rules: unlisted fields (kept,
//! dropped or refused), the longest value of each field, and the required
//! ones. Every refusal is a 422 naming the fields, never their values.

use axum::http::StatusCode;
use serde_json::{Map, Value};

use super::config::{Extra, FormConfig};
use super::problem::{Problem, listed};

/// Why a submission's fields were refused: what a page says next to each
/// field, and what problem+json says of them all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FieldProblem {
    /// Fields the form does not take (`extra = "refuse"`).
    Unknown(Vec<String>),
    /// Fields longer than their limit, with the limit.
    TooLong(Vec<(String, usize)>),
    /// Required fields left empty.
    Missing(Vec<String>),
}

impl FieldProblem {
    /// The fields it is about, by name.
    pub fn names(&self) -> Vec<String> {
        match self {
            Self::Unknown(names) | Self::Missing(names) => names.clone(),
            Self::TooLong(limits) => limits.iter().map(|(n, _)| n.clone()).collect(),
        }
    }

    /// The 422 naming the fields.
    pub fn problem(&self) -> Problem {
        let names = self.names();
        let problem = match self {
            Self::Unknown(_) => Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "server.problem.unknown_fields.title",
                "server.problem.unknown_fields.detail",
            )
            .arg("fields", listed(&names)),
            Self::TooLong(limits) if limits.len() == 1 => Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "server.problem.too_long.title",
                "server.problem.too_long.one",
            )
            .arg("field", listed(&names))
            .arg("max", limits[0].1),
            Self::TooLong(_) => Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "server.problem.too_long.title",
                "server.problem.too_long.many",
            )
            .arg("fields", listed(&names)),
            Self::Missing(_) => Problem::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "server.problem.missing.title",
                "server.problem.missing.detail",
            )
            .arg("fields", listed(&names)),
        };
        problem.with_fields(&names)
    }
}

/// Makes `fields` what will be stored (unlisted ones dropped where the form
/// says so), or says why they cannot be: then `fields` still holds what the
/// visitor typed into the form's listed fields.
pub fn check(form: &FormConfig, fields: &mut Map<String, Value>) -> Result<(), FieldProblem> {
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
        Extra::Refuse if !unlisted.is_empty() => return Err(FieldProblem::Unknown(unlisted)),
        Extra::Refuse => {}
    }
    let too_long: Vec<(String, usize)> = fields
        .iter()
        .filter_map(|(name, value)| {
            let max = form.max_chars(name).unwrap_or(0);
            (length(value) > max).then(|| (name.clone(), max))
        })
        .collect();
    if !too_long.is_empty() {
        return Err(FieldProblem::TooLong(too_long));
    }
    let missing: Vec<String> = form
        .required
        .iter()
        .filter(|name| fields.get(name.as_str()).is_none_or(is_blank))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(FieldProblem::Missing(missing));
    }
    Ok(())
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
        let checked = |extra: &str, fields: &Value| {
            let mut map = map(fields.clone());
            check(&form(extra), &mut map).map(|()| map)
        };
        assert_eq!(checked("keep", &fields).unwrap().len(), 3);
        let dropped = checked("drop", &fields).unwrap();
        assert_eq!(
            Value::Object(dropped),
            json!({"email": "a@b.c", "website": ""})
        );
        let refused = checked("refuse", &fields).unwrap_err().problem();
        assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(refused.fields(), ["utm_source"]);
    }

    #[test]
    fn too_long_names_the_field_not_the_value() {
        let err = check(
            &form("keep"),
            &mut map(json!({"email": "a@b.c", "message": "0123456789-0123456789"})),
        )
        .unwrap_err()
        .problem();
        assert_eq!(err.fields(), ["message"]);
        let detail = err.detail(crate::i18n::Lang::En);
        assert!(detail.contains("message") && detail.contains("20"));
        assert!(!detail.contains("0123456789"));
        let ok = check(&form("keep"), &mut map(json!({"email": "山田@例え.jp"})));
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
            let err = check(&form("keep"), &mut map(fields)).unwrap_err();
            assert_eq!(err, FieldProblem::Missing(vec!["email".into()]));
            assert_eq!(err.problem().fields(), ["email"]);
        }
    }
}
