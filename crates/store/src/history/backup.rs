//! A copy of a store taken while it is in use: SQLite's `VACUUM INTO`, which reads one
//! consistent snapshot (in WAL mode the server's writers go on meanwhile) into a new file, and
//! the check of such a copy before anyone relies on it. A PostgreSQL store is copied with its
//! own `pg_dump`.

use std::path::Path;

use sqlx::Row;

use super::History;
use crate::StoreError;

impl History<'_> {
    /// Writes a consistent copy of this SQLite store into `path`, an empty file or none.
    pub async fn backup_into(&self, path: &Path) -> Result<(), StoreError> {
        if !self.db.is_sqlite() {
            return Err(StoreError::Invalid(format!(
                "{} is on PostgreSQL: back it up with pg_dump (pg_dump -Fc -f FILE URL), \
                 restore with pg_restore",
                self.db.location.display()
            )));
        }
        let Some(path) = path.to_str() else {
            return Err(StoreError::Invalid(format!(
                "{}: a backup's path must be UTF-8 for SQLite",
                path.display()
            )));
        };
        sqlx::query("VACUUM INTO $1")
            .bind(path)
            .execute(&self.db.pool)
            .await
            .map_err(|e| self.db.fail(e))?;
        Ok(())
    }

    /// How many results the store holds, once SQLite's integrity check finds its file whole
    /// (PostgreSQL's are checked by the server itself).
    pub async fn check(&self) -> Result<u64, StoreError> {
        if self.db.is_sqlite() {
            let verdict: String = sqlx::query("PRAGMA integrity_check")
                .fetch_one(&self.db.pool)
                .await
                .and_then(|row| row.try_get(0))
                .map_err(|e| self.db.fail(e))?;
            if verdict != "ok" {
                return Err(StoreError::Invalid(format!(
                    "{} is damaged: {verdict}",
                    self.db.location.display()
                )));
            }
        }
        let count: i64 = sqlx::query("SELECT COUNT(*) FROM results")
            .fetch_one(&self.db.pool)
            .await
            .and_then(|row| row.try_get(0))
            .map_err(|e| self.db.fail(e))?;
        Ok(count as u64)
    }
}
