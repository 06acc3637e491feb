//! What can go wrong with the store, each with what to do about it.

use super::location::Location;

/// Why the store could not be used, as far as it can be told.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem {
    /// The file is not a database, or is damaged.
    Corrupt,
    /// Another process holds it.
    Locked,
    /// No space left.
    Full,
    /// No permission, or a read-only filesystem.
    Denied,
    /// The server cannot be reached, or refused us.
    Unreachable,
    Other,
}

impl Problem {
    pub(crate) fn classify_text(text: &str) -> Problem {
        let text = text.to_ascii_lowercase();
        if text.contains("not a database") || text.contains("malformed") || text.contains("corrupt")
        {
            Problem::Corrupt
        } else if text.contains("locked") || text.contains("busy") {
            Problem::Locked
        } else if text.contains("disk is full")
            || text.contains("no space")
            || text.contains("database or disk is full")
        {
            Problem::Full
        } else if text.contains("readonly")
            || text.contains("read-only")
            || text.contains("permission denied")
            || text.contains("unable to open")
        {
            Problem::Denied
        } else if text.contains("connection refused")
            || text.contains("lookup address")
            || text.contains("password authentication")
            || text.contains("timed out")
            || text.contains("does not exist")
        {
            Problem::Unreachable
        } else {
            Problem::Other
        }
    }

    /// What the user can do, in one sentence.
    pub fn advice(self, location: &str) -> String {
        match self {
            Problem::Corrupt => format!(
                "the store is damaged: move it aside (mv {location} {location}.broken) and a new \
                 one is made on the next save"
            ),
            Problem::Locked => "another program holds the store: try again when it is done".into(),
            Problem::Full => "the disk holding the store is full: free some space".into(),
            Problem::Denied => {
                format!("iomark may not write {location}: fix its permissions, or give --db PATH")
            }
            Problem::Unreachable => {
                "check that the database server is running and the URL is right".into()
            }
            Problem::Other => format!("check {location}, or give another store with --db PATH"),
        }
    }
}

#[derive(Clone, Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot use the result store {location}: {detail}; {}", problem.advice(location))]
    Unavailable {
        location: String,
        problem: Problem,
        detail: String,
    },
    #[error("no saved run has an id starting with '{0}' (see `iomark history`)")]
    NotFound(String),
    #[error("'{0}' names more than one run ({list}): give more of the id", list = .1.join(", "))]
    Ambiguous(String, Vec<String>),
    #[error("a run with id {0} is already in the store")]
    Duplicate(String),
    /// A submission of a result this site deleted or hid (`tombstones.rs`).
    #[error(
        "result {0}, or the same measurement under another id, was deleted or hidden here: \
         it is not taken again"
    )]
    Buried(String),
    #[error("{0}")]
    Invalid(String),
}

impl StoreError {
    pub(crate) fn from_sqlx(location: &Location, error: sqlx::Error) -> StoreError {
        let detail = match &error {
            sqlx::Error::Database(e) => e.message().to_string(),
            other => other.to_string(),
        };
        let problem = match &error {
            sqlx::Error::Io(e) => io_problem(e),
            sqlx::Error::PoolTimedOut => Problem::Locked,
            _ => Problem::classify_text(&detail),
        };
        StoreError::Unavailable {
            location: location.display(),
            problem,
            detail,
        }
    }

    pub(crate) fn io(location: &Location, error: std::io::Error) -> StoreError {
        StoreError::Unavailable {
            location: location.display(),
            problem: io_problem(&error),
            detail: error.to_string(),
        }
    }
}

fn io_problem(error: &std::io::Error) -> Problem {
    match error.raw_os_error() {
        Some(libc::ENOSPC) | Some(libc::EDQUOT) => Problem::Full,
        Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS) => Problem::Denied,
        Some(libc::ECONNREFUSED) | Some(libc::EHOSTUNREACH) | Some(libc::ETIMEDOUT) => {
            Problem::Unreachable
        }
        _ => Problem::classify_text(&error.to_string()),
    }
}
