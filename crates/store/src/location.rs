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

/// `$XDG_DATA_HOME/iomark/results.db`, else `~/.local/share/iomark/results.db`.
pub fn default_path() -> Result<PathBuf, String> {
    data_dir().map(|dir| dir.join("results.db"))
}

/// iomark's folder under `$XDG_DATA_HOME` (else `~/.local/share`).
pub fn data_dir() -> Result<PathBuf, String> {
    iomark_result::dirs::xdg("XDG_DATA_HOME", ".local/share")
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
}
