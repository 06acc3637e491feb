//! What a results site derives from each document, kept current in the transaction that
//! changes it: the result's facts (`entries`) and its device's aggregates (`devices`, per
//! scope, computed in `aggregate.rs`); derived anew for a whole store written under older
//! rules ([`RULES`]), and given to results saved before the tables existed (`backfill`).

use std::collections::BTreeMap;

use sqlx::{Any, Row, Transaction};

use super::aggregate::scopes;
use super::columns::SQL;
use super::hold;
use super::moves;
use super::refresh::Refresh;
use super::sender::{self, Sent};
use super::stale::{Derivation, Stale};
use super::{Db, StoreError};
use iomark_result::result::metric::METRICS;
use iomark_result::result::{Identity, Reason, ResultDoc};

/// The rules that derive `entries` from documents and `devices` from entries. A store written
/// under other rules is derived anew when opened ([`Derive::rederive`]); change this with them.
pub const RULES: &str = "18";

/// What a site keeps beside a result's facts: the hash of its deletion token, its submitter
/// (`sender.rs`), and why it waits for a moderator (`hold.rs`, a `Reason` as kept), where it
/// has each.
#[derive(Clone, Copy, Default)]
pub(crate) struct Kept<'k> {
    pub token_hash: Option<&'k str>,
    pub submitter: Option<&'k str>,
    pub neighbourhood: Option<&'k str>,
    pub held: Option<&'k str>,
}

/// The facts and aggregates derived from the documents, kept current.
#[derive(Clone, Copy)]
pub struct Derive<'a> {
    db: &'a Db,
    stale: Stale<'a>,
    refresh: Refresh<'a>,
}

impl<'a> Derive<'a> {
    pub(crate) fn new(db: &'a Db, derivation: &'a Derivation) -> Derive<'a> {
        Derive {
            db,
            stale: Stale::new(db, derivation),
            refresh: Refresh::new(db),
        }
    }

    /// Refreshes the devices submissions marked stale (`stale.rs`), each in a transaction of
    /// its own: the keys of the devices refreshed (a key once for each of its classes). A
    /// server runs it every second.
    pub async fn refresh_stale(&self) -> Result<Vec<String>, StoreError> {
        self.stale.refresh().await
    }

    /// Writes the facts of a result saved now (a site's submission with what it keeps of its
    /// sender, or none for what a store's owner saves) and refreshes its device's aggregate,
    /// inside the transaction that saves the result. A submission counts as its submitter's,
    /// and may wait for a moderator (`hold.rs`); what a store's owner saves does neither.
    pub(crate) async fn add_saved(
        &self,
        tx: &mut Transaction<'_, Any>,
        doc: &ResultDoc,
        sent: Option<&Sent>,
    ) -> Result<(), sqlx::Error> {
        let Some(sent) = sent else {
            return self.add_entry(tx, doc, Kept::default()).await;
        };
        let submitter = sender::submitter(tx, sent).await?;
        let mut id = doc.identity();
        if let Some(key) = &id.device_key {
            id.device_key = Some(moves::resolve(tx, key).await?);
        }
        let held = hold::reason(tx, doc, &id).await?;
        // A device a moderator hid stays hidden: its new result is hidden as it arrives, in no
        // page, list or dump, until a moderator restores it (the eighth attack pass: a result
        // that waited brought the hidden device's page back, and showed its own).
        if let Some(Reason::HiddenDevice { moderator }) = &held {
            let key = id.device_key.as_deref().unwrap_or_default();
            return hold::hidden_on_arrival(tx, &doc.id, key, moderator, sent, submitter).await;
        }
        let held = held.map(|r| r.stored());
        let kept = Kept {
            token_hash: Some(&sent.token_hash),
            submitter: submitter.as_deref(),
            neighbourhood: sent.neighbourhood.as_deref(),
            held: held.as_deref(),
        };
        self.add_entry_as(tx, doc, id, kept).await
    }

    /// Writes a result's facts, with what the site keeps beside them, and refreshes its
    /// device's aggregate, inside the transaction that saves (or restores) the result.
    pub(crate) async fn add_entry(
        &self,
        tx: &mut Transaction<'_, Any>,
        doc: &ResultDoc,
        kept: Kept<'_>,
    ) -> Result<(), sqlx::Error> {
        let mut id = doc.identity();
        // A key merged into another, or renamed by new rules, is filed under where it leads.
        if let Some(key) = &id.device_key {
            id.device_key = Some(moves::resolve(tx, key).await?);
        }
        self.add_entry_as(tx, doc, id, kept).await
    }

    /// [`Derive::add_entry`] under `id`, the document's identity with its key resolved.
    async fn add_entry_as(
        &self,
        tx: &mut Transaction<'_, Any>,
        doc: &ResultDoc,
        id: Identity,
        kept: Kept<'_>,
    ) -> Result<(), sqlx::Error> {
        let Kept {
            token_hash,
            submitter,
            neighbourhood,
            held,
        } = kept;
        let flag = id.flag.as_ref().map(|r| r.stored());
        // Prepared afresh each time on PostgreSQL: see `History::insert` on NULL figures. The
        // binds follow `columns::ENTRY_FACTS`, then the figures.
        let mut query = sqlx::query(&SQL.insert_entry)
            .persistent(self.db.is_sqlite())
            .bind(&doc.id)
            .bind(&id.device_key)
            .bind(&id.device_name)
            .bind(id.kind)
            .bind(id.transport.map(|t| t.as_str()))
            .bind(&id.class)
            .bind(&doc.host.board)
            .bind(&doc.target.filesystem)
            .bind(id.capacity_gb.map(|g| g as i64))
            .bind(doc.price_usd)
            .bind(flag.as_deref().or(held))
            .bind(id.synthetic as i64)
            .bind(token_hash)
            .bind(&doc.started_at)
            .bind(&doc.label)
            .bind(iomark_profiles::headline(doc).map(|h| h.short))
            .bind(&id.sold_as)
            .bind(submitter)
            .bind(held)
            .bind(doc.system())
            .bind(neighbourhood);
        for metric in &METRICS {
            query = query.bind(metric.of(doc));
        }
        query.execute(&mut **tx).await?;
        if let Some(key) = &id.device_key {
            let system = doc.system();
            let scopes = scopes(
                doc.host.board.as_deref(),
                doc.target.filesystem.as_deref(),
                system.as_deref(),
            );
            if self.stale.defers(tx, &id.class, key).await? {
                self.stale.mark_stale(tx, &id.class, key, &scopes).await?;
            } else {
                self.refresh.device(tx, &id.class, key, &scopes).await?;
            }
        }
        Ok(())
    }

    /// Derives every result's facts and every device's aggregates anew, once, where the store
    /// was written under older rules than this version's ([`RULES`]).
    pub async fn rederive(&self) -> Result<(), StoreError> {
        let fail = |e| self.db.fail(e);
        let version: Option<String> = sqlx::query("SELECT value FROM meta WHERE name = 'rules'")
            .fetch_optional(&self.db.pool)
            .await
            .map_err(fail)?
            .map(|row| row.try_get(0))
            .transpose()
            .map_err(fail)?;
        if version.as_deref() == Some(RULES) {
            return Ok(());
        }
        // Two processes opening one store at once: the second waits for the first's write lock
        // (taken at BEGIN on SQLite, an advisory lock on PostgreSQL), then finds the work done.
        self.db
            .write(async |tx| {
                if !self.db.is_sqlite() {
                    sqlx::query("SELECT pg_advisory_xact_lock(hashtext('iomark rules'))::text")
                        .execute(&mut **tx)
                        .await?;
                }
                let done = sqlx::query("SELECT 1 FROM meta WHERE name = 'rules' AND value = $1")
                    .bind(RULES)
                    .fetch_optional(&mut **tx)
                    .await?;
                if done.is_some() {
                    return Ok(());
                }
                let ids: Vec<(String, Option<String>)> =
                    sqlx::query("SELECT id, device_key FROM entries")
                        .fetch_all(&mut **tx)
                        .await?
                        .iter()
                        .map(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
                        .collect::<Result<_, sqlx::Error>>()?;
                for (id, old_key) in ids {
                    self.rederive_entry(tx, &id, old_key.as_deref()).await?;
                }
                super::submitted::keep_as_submitted(tx).await?;
                super::tombstones::fill_bands(tx).await?;
                // A key some result still has is a device, not an alias (new rules split it).
                sqlx::query(
                    "DELETE FROM aliases WHERE key IN \
                 (SELECT device_key FROM entries WHERE device_key IS NOT NULL)",
                )
                .execute(&mut **tx)
                .await?;
                sqlx::query("DELETE FROM devices")
                    .execute(&mut **tx)
                    .await?;
                // Every device is refreshed below.
                sqlx::query("DELETE FROM stale").execute(&mut **tx).await?;
                let pairs = sqlx::query(
                    "SELECT DISTINCT class, device_key, board, filesystem, system FROM entries \
                 WHERE device_key IS NOT NULL",
                )
                .fetch_all(&mut **tx)
                .await?;
                let mut devices: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
                for row in &pairs {
                    let board: Option<String> = row.try_get(2)?;
                    let fs: Option<String> = row.try_get(3)?;
                    let system: Option<String> = row.try_get(4)?;
                    let wanted = devices
                        .entry((row.try_get(0)?, row.try_get(1)?))
                        .or_default();
                    for scope in scopes(board.as_deref(), fs.as_deref(), system.as_deref()) {
                        if !wanted.contains(&scope) {
                            wanted.push(scope);
                        }
                    }
                }
                for ((class, key), wanted) in devices {
                    self.refresh.device(tx, &class, &key, &wanted).await?;
                }
                sqlx::query("DELETE FROM meta WHERE name = 'rules'")
                    .execute(&mut **tx)
                    .await?;
                sqlx::query("INSERT INTO meta (name, value) VALUES ('rules', $1)")
                    .bind(RULES)
                    .execute(&mut **tx)
                    .await?;
                Ok(())
            })
            .await
            .map_err(fail)
    }

    /// Derives one result's facts anew from its document, in `tx` (a document this version
    /// cannot read keeps the facts it has). A hold stays (`flag`, where the document gives
    /// none, is why it waits).
    async fn rederive_entry(
        &self,
        tx: &mut Transaction<'_, Any>,
        id: &str,
        old_key: Option<&str>,
    ) -> Result<(), sqlx::Error> {
        let text: String = sqlx::query("SELECT document FROM results WHERE id = $1")
            .bind(id)
            .fetch_one(&mut **tx)
            .await?
            .try_get(0)?;
        let Ok(doc) = serde_json::from_str::<ResultDoc>(&text) else {
            return Ok(());
        };
        let mut facts = doc.identity();
        if let Some(key) = &facts.device_key {
            facts.device_key = Some(moves::resolve(tx, key).await?);
        }
        // A key the new rules no longer give leads to the one they give.
        if let (Some(old), Some(new)) = (old_key, &facts.device_key) {
            if old != new {
                moves::alias(tx, old, new).await?;
            }
        }
        let mut query = sqlx::query(&SQL.rederive_entry)
            .persistent(false)
            .bind(&facts.device_key)
            .bind(&facts.device_name)
            .bind(facts.kind)
            .bind(facts.transport.map(|t| t.as_str()))
            .bind(&facts.class)
            .bind(facts.capacity_gb.map(|g| g as i64))
            .bind(facts.flag.as_ref().map(|r| r.stored()))
            .bind(facts.synthetic as i64)
            .bind(iomark_profiles::headline(&doc).map(|h| h.short))
            .bind(&facts.sold_as)
            .bind(doc.system());
        // Figures too: a figure added to the list is filled for the results stored before.
        for metric in &METRICS {
            query = query.bind(metric.of(&doc));
        }
        query.bind(id).execute(&mut **tx).await?;
        Ok(())
    }

    /// Gives facts to results saved before the store had them (or by an older iomark).
    pub async fn backfill(&self) -> Result<usize, StoreError> {
        // Ids first, from the two primary keys alone: reading the documents of every run to
        // find none missing took seconds at 100,000 runs.
        let rows = sqlx::query(
            "SELECT r.id FROM results r WHERE NOT EXISTS \
             (SELECT 1 FROM entries e WHERE e.id = r.id) \
             AND NOT EXISTS (SELECT 1 FROM hidden h WHERE h.id = r.id)",
        )
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| self.db.fail(e))?;
        let mut done = 0;
        for row in rows {
            let id: String = row.try_get(0).map_err(|e| self.db.fail(e))?;
            let text: String = sqlx::query("SELECT document FROM results WHERE id = $1")
                .bind(&id)
                .fetch_one(&self.db.pool)
                .await
                .and_then(|row| row.try_get(0))
                .map_err(|e| self.db.fail(e))?;
            // A document this version cannot read keeps its history line; it is not ranked.
            let Ok(doc) = serde_json::from_str::<ResultDoc>(&text) else {
                continue;
            };
            self.db
                .write(async |tx| self.add_entry(tx, &doc, Kept::default()).await)
                .await
                .map_err(|e| self.db.fail(e))?;
            done += 1;
        }
        Ok(done)
    }

    /// Removes one result and its facts, and refreshes its device's aggregates, in `tx`.
    pub(crate) async fn remove(
        &self,
        tx: &mut Transaction<'_, Any>,
        id: &str,
    ) -> Result<(), sqlx::Error> {
        self.remove_from(tx, id, &["entries", "results"]).await
    }

    /// Removes one result's rows from `tables` (its facts always among them), and refreshes
    /// its device's aggregates, in `tx`.
    pub(crate) async fn remove_from(
        &self,
        tx: &mut Transaction<'_, Any>,
        id: &str,
        tables: &[&str],
    ) -> Result<(), sqlx::Error> {
        let facts = sqlx::query(
            "SELECT class, device_key, board, filesystem, system FROM entries WHERE id = $1",
        )
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
        for table in tables {
            sqlx::query(&format!("DELETE FROM {table} WHERE id = $1"))
                .bind(id)
                .execute(&mut **tx)
                .await?;
        }
        let Some(row) = facts else {
            return Ok(());
        };
        let class: String = row.try_get(0)?;
        if let Some(key) = row.try_get::<Option<String>, _>(1)? {
            let board: Option<String> = row.try_get(2)?;
            let fs: Option<String> = row.try_get(3)?;
            let system: Option<String> = row.try_get(4)?;
            let scopes = scopes(board.as_deref(), fs.as_deref(), system.as_deref());
            self.refresh.device(tx, &class, &key, &scopes).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A device's aggregates count its real unflagged results where it has any, else its
    /// synthetic ones: a real result that is flagged does not hide the synthetic ones.
    #[test]
    fn real_results_where_there_are_any_unflagged() {
        crate::on_a_server_store(None, async |store| {
            let mut doc = iomark_result::result::sample::ssd_doc();
            let mut ids = Vec::new();
            for n in 0..3 {
                doc.id = format!("01JREAL{n:019}");
                store.history().save(&doc).await.unwrap();
                ids.push(doc.id.clone());
            }
            let row = sqlx::query("SELECT class, device_key FROM entries WHERE id = $1")
                .bind(&ids[0])
                .fetch_one(&store.db.pool)
                .await
                .unwrap();
            let (class, key): (String, String) = (row.get(0), row.get(1));
            let set = async |sql: &str, id: &str| {
                sqlx::query(sql)
                    .bind(id)
                    .execute(&store.db.pool)
                    .await
                    .unwrap();
            };
            let ranked = async || -> Vec<String> {
                let entries = crate::refresh::Refresh::new(&store.db)
                    .ranked_entries(&store.db.pool, &class, &key)
                    .await
                    .unwrap();
                entries.into_iter().map(|e| e.id).collect()
            };
            for id in &ids[1..] {
                set("UPDATE entries SET synthetic = 1 WHERE id = $1", id).await;
            }
            assert_eq!(ranked().await, ids[..1], "the real one alone");
            set("UPDATE entries SET flag = 'flagged' WHERE id = $1", &ids[0]).await;
            assert_eq!(ranked().await, ids[1..], "its one real result is flagged");
            set("UPDATE entries SET flag = 'flagged' WHERE id = $1", &ids[1]).await;
            set("UPDATE entries SET flag = 'flagged' WHERE id = $1", &ids[2]).await;
            assert!(ranked().await.is_empty(), "every one flagged");
        });
    }
}
