//! Who is deciding: `--operator`, else the config file's `operator`, else
//! the login name (`$USER`, `$LOGNAME`, or the account of the process when
//! neither is set, as under a service manager).

use super::error::unusable;

pub fn resolve(given: Option<String>) -> anyhow::Result<String> {
    let name = given
        .or_else(|| std::env::var("USER").ok())
        .or_else(|| std::env::var("LOGNAME").ok())
        .or_else(|| whoami::username().ok())
        .unwrap_or_else(|| "unknown".to_string());
    let name = name.trim().to_string();
    if !usable(&name) {
        return Err(unusable(crate::t!(
            crate::i18n::current(),
            "commands.bad_operator",
            name = format!("{:?}", crate::sanitize::inline(&name, 40))
        )));
    }
    Ok(name)
}

/// A name the review log can carry: 1–64 characters, nothing that could
/// act on a terminal.
pub fn usable(name: &str) -> bool {
    !name.is_empty() && name.chars().count() <= 64 && !name.chars().any(crate::sanitize::is_unsafe)
}
