//! Cards whose owners share their health checks with a site (`iomark health --share`): each
//! check a row of `card_checks`, under the keyed hash of who sent it (`sender.rs`), filed
//! under the device of the card's first check. A card is known by the hash of a key only its
//! folder holds: whoever has the key adds to the card or withdraws it, and nobody else can.
//! What a device page says of its cards is read here, a row per card.

use futures_util::future::BoxFuture;
use sqlx::{Any, AnyPool, Row, Transaction};

use super::replicas::Reader;
use super::sender::{self, Secret, Sender};
use super::{constant_time_eq, moves, now, Db, StoreError};
use iomark_result::result::health::{Verdict, LIFE_CYCLES};

/// The verdicts that end a card's good life, as SQL's list: the first check with one is when
/// it failed.
fn failed() -> String {
    let words: Vec<String> = Verdict::ALL
        .into_iter()
        .filter(|v| v.ends_a_life())
        .map(|v| format!("'{v}'"))
        .collect();
    format!("({})", words.join(", "))
}

/// A verdict the store holds, as its word; a word iomark does not give is an error, never
/// taken for healthy.
fn verdict(word: String) -> Result<Verdict, sqlx::Error> {
    Verdict::parse(&word).ok_or_else(|| {
        sqlx::Error::Decode(format!("a card's check holds the verdict '{word}'").into())
    })
}

/// One shared check, as the site keeps it.
#[derive(Clone, Debug, PartialEq)]
pub struct CardCheck {
    /// The check's own id (its document's).
    pub id: String,
    pub device_key: String,
    pub device_name: String,
    /// When the check was made, in seconds since the Unix epoch.
    pub checked_s: i64,
    pub verdict: Verdict,
    /// What the device wrote per day since the check before it, where the check could tell.
    pub written_per_day: Option<u64>,
    /// The device's size in bytes, where the check gives it: what it wrote in all is held to
    /// [`LIFE_CYCLES`] times it.
    pub capacity_bytes: Option<u64>,
}

/// What a share added: checks new to the site, and those it had already (sent again).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shared {
    pub added: u64,
    pub again: u64,
    /// The device the card is filed under.
    pub device: String,
}

/// One card of a device, as its checks tell it.
#[derive(Clone, Debug, PartialEq)]
pub struct CardRow {
    /// The name of its device, as its checks gave it.
    pub device_name: String,
    /// Who shared it (a keyed hash), where the site could tell.
    pub submitter: Option<String>,
    pub first_s: i64,
    pub last_s: i64,
    pub checks: i64,
    /// The verdict of its newest check.
    pub verdict: Verdict,
    /// Bytes its device wrote from its first shared check to its newest, where known.
    pub written: Option<i64>,
    /// Its first check that found it failing or lying: when, which, and what it had written.
    pub failed: Option<(i64, Verdict, Option<i64>)>,
}

/// One shared check as a dump publishes it: no submitter, the card by its key's hash.
#[derive(Clone, Debug, PartialEq)]
pub struct PublicCheck {
    pub id: String,
    pub card: String,
    pub device_key: String,
    pub device_name: String,
    pub checked_s: i64,
    pub verdict: Verdict,
    pub written_total: Option<i64>,
}

/// The most cards a device page reads (the oldest first).
const MOST_CARDS: i64 = 5000;

/// The shared cards of a site's store.
#[derive(Clone, Copy)]
pub struct Cards<'a> {
    db: &'a Db,
    reader: Reader<'a>,
    secret: &'a Secret,
}

impl<'a> Cards<'a> {
    pub(crate) fn new(db: &'a Db, reader: Reader<'a>, secret: &'a Secret) -> Cards<'a> {
        Cards { db, reader, secret }
    }

    /// Adds `checks` (oldest first) to the card whose key hashes to `card`, in one
    /// transaction: a check the card has already is counted again, not added; one another
    /// card has is refused (`Duplicate`), as is one older than the card's newest (`Invalid`:
    /// a card's life is told in order) or one that has it written beyond its flash's life. A
    /// share refused at any check adds none of them.
    pub async fn share(
        &self,
        card: &str,
        sender: &Sender,
        checks: &[CardCheck],
    ) -> Result<Shared, StoreError> {
        let sent = self.secret.seal(self.db, card, sender).await?;
        let outcome = self
            .db
            .write_or_refuse(async |tx| {
                let submitter = sender::submitter(tx, &sent).await?;
                let mut shared = Shared::default();
                for check in checks {
                    match add(tx, card, submitter.as_deref(), check).await? {
                        Added::New => shared.added += 1,
                        Added::Again => shared.again += 1,
                        Added::Other => return Ok(Err(StoreError::Duplicate(check.id.clone()))),
                        Added::Beyond(total) => {
                            return Ok(Err(StoreError::Invalid(format!(
                                "check {} would have the card written {:.0} TB in all, over \
                                 {LIFE_CYCLES:.0} times its size: more than any flash bears",
                                check.id,
                                total as f64 / 1e12
                            ))))
                        }
                        Added::Older => {
                            return Ok(Err(StoreError::Invalid(format!(
                                "check {} is older than the card's newest shared check: a \
                                 card's checks are shared in the order they were made",
                                check.id
                            ))))
                        }
                    }
                }
                shared.device = sqlx::query(
                    "SELECT device_key FROM card_checks WHERE card = $1 \
                     ORDER BY checked_s, id LIMIT 1",
                )
                .bind(card)
                .fetch_one(&mut **tx)
                .await?
                .try_get(0)?;
                Ok(Ok(shared))
            })
            .await
            .map_err(|e| self.db.fail(e))?;
        outcome
    }

    /// Removes every check of the card whose key hashes to `card`: how many there were.
    pub async fn withdraw(&self, card: &str) -> Result<u64, StoreError> {
        self.db
            .write(async |tx| {
                let done = sqlx::query("DELETE FROM card_checks WHERE card = $1")
                    .bind(card)
                    .execute(&mut **tx)
                    .await?;
                Ok(done.rows_affected())
            })
            .await
            .map_err(|e| self.db.fail(e))
    }

    /// Shared checks after `after` in id order, at most `limit`: a dump reads them so.
    pub async fn page_after(
        &self,
        after: &str,
        limit: i64,
    ) -> Result<Vec<PublicCheck>, StoreError> {
        let rows = sqlx::query(
            "SELECT id, card, device_key, device_name, checked_s, verdict, written_total \
             FROM card_checks WHERE id > $1 ORDER BY id LIMIT $2",
        )
        .bind(after)
        .bind(limit)
        .fetch_all(&self.db.pool)
        .await
        .map_err(|e| self.db.fail(e))?;
        rows.iter()
            .map(|row| {
                Ok(PublicCheck {
                    id: row.try_get(0)?,
                    card: row.try_get(1)?,
                    device_key: row.try_get(2)?,
                    device_name: row.try_get(3)?,
                    checked_s: row.try_get(4)?,
                    verdict: verdict(row.try_get(5)?)?,
                    written_total: row.try_get(6)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()
            .map_err(|e| self.db.fail(e))
    }

    /// The cards filed under device `key`, or under a device merged into it or renamed to it
    /// since, the longest watched first.
    pub async fn of_device(&self, key: &str) -> Result<Vec<CardRow>, StoreError> {
        let key = key.to_string();
        self.reader
            .read(
                |pool: &'a AnyPool| -> BoxFuture<'a, Result<Vec<CardRow>, sqlx::Error>> {
                    let key = key.clone();
                    let failed = failed();
                    Box::pin(async move {
                        let rows = sqlx::query(&format!(
                            "SELECT g.submitter, g.first_s, g.last_s, g.checks, \
                         (SELECT n.verdict FROM card_checks n WHERE n.card = g.card \
                          ORDER BY n.checked_s DESC, n.id DESC LIMIT 1), \
                         (SELECT n.written_total FROM card_checks n WHERE n.card = g.card \
                          ORDER BY n.checked_s DESC, n.id DESC LIMIT 1), \
                         (SELECT f.checked_s FROM card_checks f WHERE f.card = g.card \
                          AND f.verdict IN {failed} ORDER BY f.checked_s, f.id LIMIT 1), \
                         (SELECT f.verdict FROM card_checks f WHERE f.card = g.card \
                          AND f.verdict IN {failed} ORDER BY f.checked_s, f.id LIMIT 1), \
                         (SELECT f.written_total FROM card_checks f WHERE f.card = g.card \
                          AND f.verdict IN {failed} ORDER BY f.checked_s, f.id LIMIT 1), \
                         g.device_name \
                         FROM (SELECT card, MIN(submitter) AS submitter, \
                           MIN(device_name) AS device_name, \
                           MIN(checked_s) AS first_s, MAX(checked_s) AS last_s, \
                           COUNT(*) AS checks \
                           FROM card_checks WHERE device_key = $1 \
                           OR device_key IN (SELECT key FROM aliases WHERE target = $1) \
                           GROUP BY card) g \
                         ORDER BY g.last_s - g.first_s DESC, g.card LIMIT $2"
                        ))
                        .bind(key)
                        .bind(MOST_CARDS)
                        .fetch_all(pool)
                        .await?;
                        rows.iter().map(card_row).collect()
                    })
                },
            )
            .await
            .map_err(|e| self.db.fail(e))
    }
}

fn card_row(row: &sqlx::any::AnyRow) -> Result<CardRow, sqlx::Error> {
    let failed_s: Option<i64> = row.try_get(6)?;
    let failed_verdict: Option<String> = row.try_get(7)?;
    Ok(CardRow {
        submitter: row.try_get(0)?,
        device_name: row.try_get(9)?,
        first_s: row.try_get(1)?,
        last_s: row.try_get(2)?,
        checks: row.try_get(3)?,
        verdict: verdict(row.try_get(4)?)?,
        written: row.try_get(5)?,
        failed: failed_s
            .zip(failed_verdict)
            .map(|(s, v)| Ok::<_, sqlx::Error>((s, verdict(v)?, row.try_get(8)?)))
            .transpose()?,
    })
}

enum Added {
    New,
    Again,
    /// The id is another card's check.
    Other,
    /// Older than the card's newest check.
    Older,
    /// Its daily load would have the card written more than its flash bears, in bytes.
    Beyond(i64),
}

/// One check added to `card` in `tx`, after the card's newest, with the bytes written since
/// the card's first check: the newest's, plus this check's daily load over the days between.
async fn add(
    tx: &mut Transaction<'_, Any>,
    card: &str,
    submitter: Option<&str>,
    check: &CardCheck,
) -> Result<Added, sqlx::Error> {
    let holder: Option<String> = sqlx::query("SELECT card FROM card_checks WHERE id = $1")
        .bind(&check.id)
        .fetch_optional(&mut **tx)
        .await?
        .map(|row| row.try_get(0))
        .transpose()?;
    if let Some(holder) = holder {
        return Ok(match constant_time_eq(holder.as_bytes(), card.as_bytes()) {
            true => Added::Again,
            false => Added::Other,
        });
    }
    let newest = sqlx::query(
        "SELECT checked_s, written_total, device_key, device_name FROM card_checks \
         WHERE card = $1 ORDER BY checked_s DESC, id DESC LIMIT 1",
    )
    .bind(card)
    .fetch_optional(&mut **tx)
    .await?;
    let (written, device_key, device_name) = match newest {
        None => (
            Some(0),
            moves::resolve(tx, &check.device_key).await?,
            check.device_name.clone(),
        ),
        Some(row) => {
            let at: i64 = row.try_get(0)?;
            if check.checked_s < at {
                return Ok(Added::Older);
            }
            let before: Option<i64> = row.try_get(1)?;
            let since = match check.written_per_day {
                Some(per_day) => before.map(|b| {
                    let days = (check.checked_s - at) as f64 / 86_400.0;
                    b.saturating_add((per_day as f64 * days).min(i64::MAX as f64 / 2.0) as i64)
                }),
                // A check that could not tell (another boot) leaves the count where it was.
                None => before,
            };
            (since, row.try_get(2)?, row.try_get(3)?)
        }
    };
    // Summed as its page sums them, within what its flash bears (the eleventh attack pass: a
    // 4 GB stick "wrote" 3,307 TB over two checks, 827,000 times its size).
    if let (Some(total), Some(capacity)) = (written, check.capacity_bytes) {
        if total as f64 > capacity as f64 * LIFE_CYCLES {
            return Ok(Added::Beyond(total));
        }
    }
    sqlx::query(
        "INSERT INTO card_checks (id, card, device_key, device_name, checked_s, verdict, \
         written_total, submitter, received_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(&check.id)
    .bind(card)
    .bind(device_key)
    .bind::<String>(device_name)
    .bind(check.checked_s)
    .bind(check.verdict.as_str())
    .bind(written)
    .bind(submitter)
    .bind(now())
    .execute(&mut **tx)
    .await?;
    Ok(Added::New)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(id: &str, day: i64, verdict: &str, per_day: Option<u64>) -> CardCheck {
        let verdict = Verdict::parse(verdict).unwrap();
        CardCheck {
            id: id.into(),
            device_key: "sandisk-ultra-32gb".into(),
            device_name: "SanDisk Ultra 32GB".into(),
            checked_s: 1_780_000_000 + day * 86_400,
            verdict,
            written_per_day: per_day,
            capacity_bytes: Some(32_000_000_000),
        }
    }

    /// A card's life as a device page reads it: watched from its first shared check to its
    /// newest, written bytes summed from the daily loads, failed at its first failing check;
    /// a check sent again counts once, another card's id and a check out of order are
    /// refused, and withdrawing removes every check of the card and no other's.
    #[test]
    fn a_cards_life_is_kept_in_order_and_withdrawn_whole() {
        crate::on_a_server_store(None, async |store| {
            let one = Sender {
                address: Some("192.0.2.7".parse().unwrap()),
                installation: None,
            };
            let cards = store.cards();
            let life = [
                check("C1", 0, "healthy", None),
                check("C2", 10, "healthy", Some(1_000_000_000)),
                check("C3", 30, "watch", Some(2_000_000_000)),
                check("C4", 40, "lying", Some(1_000_000_000)),
                check("C5", 41, "healthy", None),
            ];
            let shared = cards.share("card-a", &one, &life[..3]).await.unwrap();
            assert_eq!((shared.added, shared.again), (3, 0));
            assert_eq!(shared.device, "sandisk-ultra-32gb");
            let shared = cards.share("card-a", &one, &life[2..]).await.unwrap();
            assert_eq!((shared.added, shared.again), (2, 1));
            assert!(matches!(
                cards.share("card-b", &one, &life[..1]).await,
                Err(StoreError::Duplicate(_))
            ));
            assert!(matches!(
                cards
                    .share("card-a", &one, &[check("C0", 5, "healthy", None)])
                    .await,
                Err(StoreError::Invalid(_))
            ));
            cards
                .share("card-b", &one, &[check("D1", 3, "healthy", None)])
                .await
                .unwrap();
            let rows = cards.of_device("sandisk-ultra-32gb").await.unwrap();
            assert_eq!(rows.len(), 2);
            let a = &rows[0];
            assert_eq!((a.last_s - a.first_s) / 86_400, 41);
            assert_eq!(a.checks, 5);
            assert_eq!(a.verdict, Verdict::Healthy);
            // 10 days at 1 GB, 20 at 2 GB, 10 at 1 GB.
            assert_eq!(a.written, Some(60_000_000_000));
            let (at, verdict, written) = a.failed.unwrap();
            assert_eq!((at - a.first_s) / 86_400, 40);
            assert_eq!(verdict, Verdict::Lying);
            assert_eq!(written, Some(60_000_000_000));
            assert!(a.submitter.is_some());
            assert_eq!(rows[1].failed, None);
            assert_eq!(failed(), "('failing', 'lying')");
            assert_eq!(cards.withdraw("card-a").await.unwrap(), 5);
            assert_eq!(cards.withdraw("card-a").await.unwrap(), 0);
            assert_eq!(
                cards.of_device("sandisk-ultra-32gb").await.unwrap().len(),
                1
            );
            // The eleventh attack pass: a load that sums past what the card's flash bears
            // (32 GB x 100,000 = 3,200 TB), the first check months before. Refused, whichever
            // share it comes in, and the share with it: E2 (1,000 TB by day 100) is not kept.
            let first = check("E1", 0, "healthy", None);
            cards.share("card-e", &one, &[first]).await.unwrap();
            let worn = [
                check("E2", 100, "healthy", Some(10_000_000_000_000)),
                check("E3", 330, "lying", Some(10_000_000_000_000)),
            ];
            let refused = cards.share("card-e", &one, &worn).await;
            assert!(
                matches!(&refused, Err(StoreError::Invalid(why)) if why.contains("E3")),
                "{refused:?}"
            );
            let rows = cards.of_device("sandisk-ultra-32gb").await.unwrap();
            let e = rows.iter().find(|r| r.first_s == 1_780_000_000).unwrap();
            assert_eq!((e.checks, e.written), (1, Some(0)));
            // A share refused for another card's check adds none of its own either.
            let refused = cards
                .share(
                    "card-f",
                    &one,
                    &[
                        check("F1", 50, "healthy", None),
                        check("D1", 51, "healthy", None),
                    ],
                )
                .await;
            assert!(
                matches!(refused, Err(StoreError::Duplicate(_))),
                "{refused:?}"
            );
            let rows = cards.of_device("sandisk-ultra-32gb").await.unwrap();
            assert_eq!(rows.len(), 2, "{rows:?}");
        })
    }
}
