//! The receipts of results this store's owner submitted to a results site: where each went
//! and the token that deletes it there (`iomark submit`, `submit --delete`).

use serde::Serialize;
use sqlx::Row;

use super::History;
use crate::StoreError;

/// A receipt: where a result was submitted and the token that deletes it there.
#[derive(Clone, Debug, Serialize)]
pub struct Receipt {
    pub id: String,
    pub server: String,
    pub url: String,
    pub token: String,
    pub submitted_at: String,
}

impl History<'_> {
    /// This installation's key, sent with each submission so that a site counts its results as
    /// one submitter's wherever they are sent from (the site keeps only a keyed hash of it):
    /// made at the first submission, kept in the store's `meta`.
    pub async fn installation_key(&self) -> Result<String, StoreError> {
        self.db
            .kept("installation key", iomark_result::result::token::new_token)
            .await
    }

    /// Keeps the receipt of a result submitted to `server`.
    pub async fn record_receipt(&self, receipt: &Receipt) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO submissions (id, server, url, token, submitted_at) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id, server) DO UPDATE SET \
             url = excluded.url, token = excluded.token, submitted_at = excluded.submitted_at",
        )
        .bind(&receipt.id)
        .bind(&receipt.server)
        .bind(&receipt.url)
        .bind(&receipt.token)
        .bind(&receipt.submitted_at)
        .execute(&self.db.pool)
        .await
        .map_err(|e| self.db.fail(e))?;
        Ok(())
    }

    /// The receipts kept for result `id`, newest first.
    pub async fn receipts(&self, id: &str) -> Result<Vec<Receipt>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, server, url, token, submitted_at FROM submissions WHERE id = $1 \
             ORDER BY submitted_at DESC",
        )
        .bind(id)
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(|r| {
                Ok(Receipt {
                    id: r.try_get(0)?,
                    server: r.try_get(1)?,
                    url: r.try_get(2)?,
                    token: r.try_get(3)?,
                    submitted_at: r.try_get(4)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))
    }

    pub async fn forget_receipt(&self, id: &str, server: &str) -> Result<(), StoreError> {
        sqlx::query("DELETE FROM submissions WHERE id = $1 AND server = $2")
            .bind(id)
            .bind(server)
            .execute(&self.db.pool)
            .await
            .map_err(|e| self.db.fail(e))?;
        Ok(())
    }
}
