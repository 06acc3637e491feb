//! Where the store lives: a SQLite file (the local history, by default under
//! `$XDG_DATA_HOME/iomark/`) or a PostgreSQL URL, as `--db` or `IOMARK_DB` names it; and how it
//! is named in messages, never with its password.

use std::path::PathBuf;

/// Where the store lives: a SQLite file or a PostgreSQL URL.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// From `--db` (or `IOMARK_DB`): a `postgres://` or `postgresql://` URL, a `sqlite:` URL, or
    /// a file path (made absolute, so that a `:` in it is never read as a host and port); none
    /// means the default local file. An empty value, or a URL of another kind, is refused: it
    /// would otherwise be taken as a file name and keep results where nobody looks.
    pub fn parse(db: Option<&str>) -> Result<Location, String> {
        let Some(db) = db else {
            return Ok(Location::Sqlite(default_path()?));
        };
        if db.starts_with("postgres://") || db.starts_with("postgresql://") {
            return Ok(Location::Postgres(db.to_string()));
        }
        // PostgreSQL's `key=value` form (`host=db user=iomark dbname=results`): never a file.
        if let Some(url) = keyword_url(db)? {
            return Ok(Location::Postgres(url));
        }
        let path = match db
            .strip_prefix("sqlite://")
            .or_else(|| db.strip_prefix("sqlite:"))
        {
            Some(path) => path,
            None => {
                if let Some((scheme, _)) = db.split_once("://") {
                    return Err(format!(
                        "--db: '{scheme}://' is not a store iomark can use: give a SQLite file \
                         path, or a postgres:// URL"
                    ));
                }
                db
            }
        };
        if path.trim().is_empty() {
            return Err(
                "--db: the store is empty (an empty IOMARK_DB counts): give a SQLite file path, \
                 or a postgres:// URL, or leave it unset for the default"
                    .into(),
            );
        }
        let path = std::path::absolute(path)
            .map_err(|e| format!("--db: cannot make {path} an absolute path: {e}"))?;
        Ok(Location::Sqlite(path))
    }

    /// For messages: the file, or the server without its password.
    pub fn display(&self) -> String {
        match self {
            Location::Sqlite(path) => path.display().to_string(),
            Location::Postgres(url) => redact(url),
        }
    }

    pub(super) fn url(&self) -> Result<String, String> {
        match self {
            Location::Postgres(url) => Ok(url.clone()),
            Location::Sqlite(path) => {
                let text = path.to_str().ok_or_else(|| {
                    format!("{}: the store's path must be valid UTF-8", path.display())
                })?;
                // The driver reads a URL: escape what would end the path.
                let escaped = text
                    .replace('%', "%25")
                    .replace('?', "%3F")
                    .replace('#', "%23");
                Ok(format!("sqlite://{escaped}?mode=rwc"))
            }
        }
    }
}

/// The keywords of a PostgreSQL connection string (libpq's, section 34.1.2) iomark passes on.
const KEYWORDS: [&str; 10] = [
    "host",
    "hostaddr",
    "port",
    "dbname",
    "user",
    "password",
    "sslmode",
    "application_name",
    "connect_timeout",
    "options",
];

/// `db` as a `postgres://` URL where it is a `key=value` connection string (its first word a
/// keyword), percent-encoded; none where it is not one; an error, naming no value (a password
/// may be among them), where it is one iomark cannot read.
fn keyword_url(db: &str) -> Result<Option<String>, String> {
    let first = db.trim_start().split(['=', ' ']).next().unwrap_or_default();
    if db.contains("://") || !db.contains('=') || !KEYWORDS.contains(&first.trim()) {
        return Ok(None);
    }
    let refuse = |why: String| {
        Err(format!(
            "--db: a PostgreSQL connection string {why}; give a postgres:// URL instead"
        ))
    };
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut rest = db.trim();
    while !rest.is_empty() {
        let Some((key, after)) = rest.split_once('=') else {
            return refuse("has a word without '='".into());
        };
        let key = key.trim().to_string();
        if !KEYWORDS.contains(&key.as_str()) {
            return refuse(format!(
                "has '{}', which iomark does not know",
                printable(&key)
            ));
        }
        let after = after.trim_start();
        let (value, next) = match after.strip_prefix('\'') {
            // Quoted: up to the closing quote, `\'` and `\\` escaped inside.
            Some(quoted) => {
                let mut value = String::new();
                let mut chars = quoted.char_indices();
                let mut end = None;
                while let Some((at, c)) = chars.next() {
                    match c {
                        '\\' => value.extend(chars.next().map(|(_, c)| c)),
                        '\'' => {
                            end = Some(at + 1);
                            break;
                        }
                        c => value.push(c),
                    }
                }
                let Some(end) = end else {
                    return refuse(format!("leaves the value of {key} unquoted"));
                };
                (value, &quoted[end..])
            }
            None => {
                let end = after.find(char::is_whitespace).unwrap_or(after.len());
                (after[..end].to_string(), &after[end..])
            }
        };
        pairs.push((key, value));
        rest = next.trim_start();
    }
    let take = |key: &str| pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
    let (user, password, host, port, dbname) = (
        take("user"),
        take("password"),
        take("host").or(take("hostaddr")),
        take("port"),
        take("dbname"),
    );
    let mut url = "postgres://".to_string();
    if let Some(user) = &user {
        url.push_str(&encode(user));
        if let Some(password) = &password {
            url.push(':');
            url.push_str(&encode(password));
        }
        url.push('@');
    }
    // A host that is a socket's folder goes in the query, where a URL can hold a `/`.
    let socket = host.as_ref().filter(|h| h.starts_with('/'));
    if let Some(host) = host.as_ref().filter(|_| socket.is_none()) {
        url.push_str(&encode(host));
    }
    if let Some(port) = &port {
        if !port.chars().all(|c| c.is_ascii_digit()) || port.is_empty() {
            return refuse("has a port that is not a number".into());
        }
        url.push(':');
        url.push_str(port);
    }
    url.push('/');
    url.push_str(&encode(&dbname.unwrap_or_default()));
    let query: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| {
            !["user", "password", "host", "hostaddr", "port", "dbname"].contains(&k.as_str())
        })
        .map(|(k, v)| format!("{k}={}", encode(v)))
        .chain(socket.map(|s| format!("host={}", encode(s))))
        .collect();
    if !query.is_empty() {
        url.push('?');
        url.push_str(&query.join("&"));
    }
    Ok(Some(url))
}

/// `text` percent-encoded but for the characters a URL's parts take as they are.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for byte in text.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(byte as char)
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

/// A word from the command line as a message may show it.
fn printable(text: &str) -> String {
    iomark_result::result::printable(text).into_owned()
}

/// `$XDG_DATA_HOME/iomark/results.db`, else `~/.local/share/iomark/results.db`.
pub fn default_path() -> Result<PathBuf, String> {
    data_dir().map(|dir| dir.join("results.db"))
}

/// iomark's folder under `$XDG_DATA_HOME` (else `~/.local/share`).
pub fn data_dir() -> Result<PathBuf, String> {
    iomark_os::dirs::xdg("XDG_DATA_HOME", ".local/share")
        .map_err(|e| format!("{e}: give --db PATH"))
}

/// A URL with its password shown as `***`, whether in its user information or as a query
/// parameter (`?password=…`, which PostgreSQL's URLs also take).
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let mut out = match rest.rsplit_once('@') {
        Some((user, host)) => match user.split_once(':') {
            Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
            None => format!("{scheme}://{rest}"),
        },
        None => format!("{scheme}://{rest}"),
    };
    if let Some(query) = query {
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if key.to_ascii_lowercase().contains("password") => {
                    format!("{key}=***")
                }
                _ => pair.to_string(),
            })
            .collect();
        out.push('?');
        out.push_str(&pairs.join("&"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_and_redaction() {
        assert_eq!(
            Location::parse(Some("postgres://u:secret@127.0.0.1/db"))
                .unwrap()
                .display(),
            "postgres://u:***@127.0.0.1/db"
        );
        assert_eq!(
            Location::parse(Some("postgres://u@127.0.0.1/db"))
                .unwrap()
                .display(),
            "postgres://u@127.0.0.1/db"
        );
        assert_eq!(
            redact("postgres://u@127.0.0.1/db?sslmode=disable&password=hunter2"),
            "postgres://u@127.0.0.1/db?sslmode=disable&password=***"
        );
        assert_eq!(
            redact("postgres://u:p%40ss@h/db?PassWord=x"),
            "postgres://u:***@h/db?PassWord=***"
        );
        assert_eq!(
            Location::parse(Some("sqlite:///tmp/a?b.db")).unwrap(),
            Location::Sqlite("/tmp/a?b.db".into())
        );
        assert_eq!(
            Location::Sqlite("/tmp/50%?#.db".into()).url().unwrap(),
            "sqlite:///tmp/50%25%3F%23.db?mode=rwc"
        );
    }

    #[test]
    fn an_empty_store_or_an_unknown_scheme_is_refused() {
        // Issue 11: these ran, exited 0 and kept the result nowhere, or in junk folders.
        for db in ["", " ", "sqlite:", "sqlite://"] {
            let error = Location::parse(Some(db)).unwrap_err().to_string();
            assert!(
                error.starts_with("--db: the store is empty"),
                "{db:?}: {error}"
            );
        }
        let error = Location::parse(Some("mysql://a@b/c"))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("--db: 'mysql://' is not a store"),
            "{error}"
        );
        // A relative path with a colon is a file here, not a host and a port.
        let cwd = std::env::current_dir().unwrap();
        let location = Location::parse(Some("c:y.db")).unwrap();
        assert_eq!(location, Location::Sqlite(cwd.join("c:y.db")));
        assert!(location.url().unwrap().starts_with("sqlite:///"));
        assert_eq!(
            Location::parse(Some("sqlite:rel.db")).unwrap(),
            Location::Sqlite(cwd.join("rel.db"))
        );
    }

    /// Issue 44: a `key=value` string was taken as a SQLite path: a file named after it,
    /// password included, was created and printed.
    #[test]
    fn a_keyword_connection_string_is_postgresql_and_never_a_file() {
        let l = Location::parse(Some(
            "host=db.example port=5433 user=iomark password='s3 cr\\'et' dbname=results \
             sslmode=require",
        ))
        .unwrap();
        assert_eq!(
            l,
            Location::Postgres(
                "postgres://iomark:s3%20cr%27et@db.example:5433/results?sslmode=require".into()
            )
        );
        assert_eq!(
            l.display(),
            "postgres://iomark:***@db.example:5433/results?sslmode=require"
        );
        assert_eq!(
            Location::parse(Some("host=/var/run/postgresql dbname=iomark")).unwrap(),
            Location::Postgres("postgres:///iomark?host=%2Fvar%2Frun%2Fpostgresql".into())
        );
        for bad in [
            "host=db password=secret colour=blue",
            "host=db password='secret",
            "host=db port=x password=secret",
        ] {
            let e = Location::parse(Some(bad)).unwrap_err();
            assert!(
                e.starts_with("--db: a PostgreSQL connection string") && !e.contains("secret"),
                "{e}"
            );
        }
        // A file whose name has an `=` is still a file.
        assert!(matches!(
            Location::parse(Some("/tmp/a=b.db")).unwrap(),
            Location::Sqlite(_)
        ));
    }
}
