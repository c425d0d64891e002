//! Connecting to a PostgreSQL server from a URL, as libpq would: the
//! password from `PGPASSWORD` or `~/.pgpass` when the URL has none, the
//! user from `PGUSER`; and every failure said as one line naming the
//! database without its password.

use std::str::FromStr;
use std::time::Duration;

use postgres::error::SqlState;
use postgres::{Client, Config, NoTls};

use crate::storage::error::StorageError;
use crate::storage::location::Location;

/// The oldest server the engine speaks to: `pg_snapshot` functions and
/// `FOR EACH STATEMENT ... EXECUTE FUNCTION` came with 13.
pub const OLDEST_SERVER: i32 = 130_000;

/// How long a connection attempt waits for the server.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// A URL made into a connection's settings.
pub fn config(location: &Location) -> Result<Config, StorageError> {
    let Location::Postgres(url) = location else {
        unreachable!("a PostgreSQL location");
    };
    let mut config = Config::from_str(url).map_err(|e| StorageError::Unreachable {
        path: location.shown(),
        detail: one_line(&e.to_string()),
    })?;
    if config.get_user().is_none() {
        let user =
            std::env::var("PGUSER").unwrap_or_else(|_| whoami::username().unwrap_or_default());
        config.user(&user);
    }
    if config.get_dbname().is_none()
        && let Ok(name) = std::env::var("PGDATABASE")
    {
        config.dbname(&name);
    }
    if config.get_password().is_none()
        && let Some(password) = password_from_environment(&config)
    {
        config.password(password);
    }
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(CONNECT_TIMEOUT);
    }
    config.application_name("receipt-review");
    Ok(config)
}

/// Connects, and refuses a server older than [`OLDEST_SERVER`].
pub fn connect(location: &Location, config: &Config) -> Result<Client, StorageError> {
    let mut client = config
        .connect(NoTls)
        .map_err(|e| connect_error(location, &e))?;
    let version: String = client
        .query_one("SHOW server_version_num", &[])
        .map_err(|e| error(location, "opening", &e))?
        .get(0);
    let version: i32 = version.trim().parse().unwrap_or(0);
    if version < OLDEST_SERVER {
        return Err(StorageError::ServerTooOld {
            path: location.shown(),
            version: version.to_string(),
        });
    }
    // Times the engine writes or compares as text are UTC.
    client
        .batch_execute("SET TIME ZONE 'UTC'")
        .map_err(|e| error(location, "opening", &e))?;
    Ok(client)
}

/// `PGPASSWORD`, else the first line of `PGPASSFILE` or `~/.pgpass` that
/// matches the host, port, database and user (`*` matches any).
fn password_from_environment(config: &Config) -> Option<String> {
    if let Ok(password) = std::env::var("PGPASSWORD") {
        return Some(password);
    }
    let file = std::env::var_os("PGPASSFILE")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::Path::new(&h).join(".pgpass")))?;
    let text = std::fs::read_to_string(file).ok()?;
    let host = match config.get_hosts().first() {
        Some(postgres::config::Host::Tcp(h)) => h.clone(),
        _ => "localhost".to_string(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let db = config.get_dbname().unwrap_or_default().to_string();
    let user = config.get_user().unwrap_or_default().to_string();
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .find_map(|line| {
            let fields = pgpass_fields(line);
            let [h, p, d, u, password] = <[String; 5]>::try_from(fields).ok()?;
            let fits = |pattern: &str, value: &str| pattern == "*" || pattern == value;
            (fits(&h, &host) && fits(&p, &port) && fits(&d, &db) && fits(&u, &user))
                .then_some(password)
        })
}

/// A `.pgpass` line's five fields (`\:` and `\\` escaped).
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields.last_mut().unwrap().extend(chars.next()),
            ':' => fields.push(String::new()),
            c => fields.last_mut().unwrap().push(c),
        }
    }
    fields
}

/// A failed connection, said as the user can act on it: all exit 2.
pub fn connect_error(location: &Location, e: &postgres::Error) -> StorageError {
    let path = location.shown();
    let detail = one_line(&describe(e));
    match e.code() {
        Some(code)
            if *code == SqlState::INVALID_PASSWORD
                || *code == SqlState::INVALID_AUTHORIZATION_SPECIFICATION =>
        {
            StorageError::PermissionDenied { path, detail }
        }
        Some(code) if *code == SqlState::INVALID_CATALOG_NAME => StorageError::NoDatabase { path },
        Some(_) => StorageError::ServerRefused { path, detail },
        None => StorageError::Unreachable { path, detail },
    }
}

/// An error while working on an open connection: a connection that broke
/// is said as lost; anything else names what was being done.
pub fn error(location: &Location, context: &str, e: &postgres::Error) -> StorageError {
    let path = location.shown();
    let detail = one_line(&describe(e));
    if e.is_closed() || e.code().is_none() && e.as_db_error().is_none() && is_io(e) {
        return StorageError::ConnectionLost { path, detail };
    }
    match e.code() {
        Some(code)
            if *code == SqlState::ADMIN_SHUTDOWN
                || *code == SqlState::CRASH_SHUTDOWN
                || *code == SqlState::CANNOT_CONNECT_NOW =>
        {
            StorageError::ConnectionLost { path, detail }
        }
        Some(code) if *code == SqlState::INSUFFICIENT_PRIVILEGE => {
            StorageError::PermissionDenied { path, detail }
        }
        _ => StorageError::Other {
            path,
            context: context.to_string(),
            detail,
        },
    }
}

fn is_io(e: &postgres::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.is::<std::io::Error>() {
            return true;
        }
        source = s.source();
    }
    false
}

/// How a write failed, as someone deciding or the intake needs to know,
/// and the server's message on one line.
pub fn failure(e: &postgres::Error) -> (crate::storage::error::Failure, String) {
    use crate::storage::error::Failure;
    let failure = match e.code() {
        Some(c) if *c == SqlState::READ_ONLY_SQL_TRANSACTION => Failure::ReadOnly,
        Some(c) if *c == SqlState::DISK_FULL => Failure::Full,
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => Failure::Busy,
        _ => Failure::Other,
    };
    let detail = describe(e);
    let detail = detail.split_whitespace().collect::<Vec<_>>().join(" ");
    (failure, crate::sanitize::inline(&detail, 200))
}

/// The server's own message where there is one (the crate's `Display` says
/// only "db error"), else the error and its causes.
pub fn describe(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return db.message().to_string();
    }
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

fn one_line(text: &str) -> String {
    crate::sanitize::inline(text.trim(), 200)
}
