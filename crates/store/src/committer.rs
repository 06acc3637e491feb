//! Submissions to a site's SQLite store, committed together. SQLite takes one writer at a time
//! and syncs its log at every commit (`synchronous = FULL`, so that a 201 outlives a power
//! cut): submissions each in a transaction of their own queued for the write lock and paid a
//! sync each. Here one task writes them: those that arrive while a commit is under way are
//! written next, up to [`MOST`], in one transaction (a duplicate's id finds its row there and
//! writes nothing: it is refused alone), and each is answered once that transaction has
//! committed. If it fails, each is tried again alone, so that one bad submission fails alone.
//! (Each was in a savepoint of its own: two more statements a submission, and a copy of each
//! page it changed, for a refusal the id's own conflict now gives.)
//! PostgreSQL takes its writers at once and syncs them together itself: it is not queued.

use tokio::sync::{mpsc, oneshot};

use sqlx::Row;

use super::derive::Derive;
use super::history::{encode, History};
use super::model::Deletion;
use super::replicas::{Reader, Replicas};
use super::sender::{Secret, Sender, Sent};
use super::stale::Derivation;
use super::{constant_time_eq, Db, StoreError};
use iomark_result::result::ResultDoc;

/// The most submissions committed in one transaction.
pub const MOST: usize = 64;
/// The most submissions waiting; a sender past it waits for room.
const QUEUE: usize = 1024;

/// The queue to a server's committer, once the first submission started it.
#[derive(Default)]
pub(crate) struct Committer(std::sync::Mutex<Option<mpsc::Sender<Job>>>);

struct Job {
    doc: ResultDoc,
    sent: Sent,
    answer: oneshot::Sender<Result<(), StoreError>>,
}

/// What a results site saves and deletes for its submitters: each save with the hash of the
/// token that deletes it, on a server's SQLite store through its committer.
#[derive(Clone, Copy)]
pub struct Submissions<'a> {
    history: History<'a>,
    derive: Derive<'a>,
    committer: &'a Committer,
    derivation: &'a Derivation,
    secret: &'a Secret,
}

impl<'a> Submissions<'a> {
    pub(crate) fn new(
        history: History<'a>,
        derive: Derive<'a>,
        committer: &'a Committer,
        derivation: &'a Derivation,
        secret: &'a Secret,
    ) -> Submissions<'a> {
        Submissions {
            history,
            derive,
            committer,
            derivation,
            secret,
        }
    }

    /// Saves a submitted result with the hash of its deletion token and what the site knows
    /// of its sender (kept only as keyed hashes, `sender.rs`): on a server's SQLite store,
    /// committed together with those that arrive meanwhile (`committer.rs`).
    pub async fn save(
        &self,
        doc: &ResultDoc,
        token_hash: &str,
        sender: &Sender,
    ) -> Result<(), StoreError> {
        let sent = self
            .secret
            .seal(self.history.db(), token_hash, sender)
            .await?;
        if self.history.db().is_sqlite() && self.history.db().pooling.wal {
            self.save_together(doc, sent).await
        } else {
            self.history.save_with(doc, Some(&sent)).await
        }
    }

    /// Whether `doc` was saved before with the deletion token whose hash is `token_hash`: the
    /// same submission sent again by its submitter (asked of the primary, where it was saved).
    pub async fn submitted_before(
        &self,
        doc: &ResultDoc,
        token_hash: &str,
    ) -> Result<bool, StoreError> {
        let row = sqlx::query(
            "SELECT e.token_hash, r.document FROM entries e JOIN results r ON r.id = e.id \
             WHERE e.id = $1",
        )
        .bind(&doc.id)
        .fetch_optional(&self.history.db().pool)
        .await
        .map_err(|e| self.history.db().fail(e))?;
        let Some(row) = row else {
            return Ok(false);
        };
        let stored: Option<String> = row.try_get(0).map_err(|e| self.history.db().fail(e))?;
        let document: String = row.try_get(1).map_err(|e| self.history.db().fail(e))?;
        let same_token =
            stored.is_some_and(|stored| constant_time_eq(stored.as_bytes(), token_hash.as_bytes()));
        let same_document = serde_json::from_str::<serde_json::Value>(&document).ok()
            == serde_json::to_value(doc).ok();
        Ok(same_token && same_document)
    }

    /// Deletes a submitted result if `token_hash` is its token's hash (compared in constant
    /// time).
    pub async fn delete(&self, id: &str, token_hash: &str) -> Result<Deletion, StoreError> {
        self.history
            .db()
            .write(async |tx| {
                // A result moderators hid is still its submitter's to delete.
                let stored: Option<Option<String>> = sqlx::query(
                    "SELECT token_hash FROM entries WHERE id = $1 \
                 UNION ALL SELECT token_hash FROM hidden WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&mut **tx)
                .await?
                .map(|row| row.try_get(0))
                .transpose()?;
                Ok(match stored {
                    None => Deletion::NoSuchResult,
                    Some(Some(stored))
                        if constant_time_eq(stored.as_bytes(), token_hash.as_bytes()) =>
                    {
                        crate::tombstones::bury(tx, id).await?;
                        self.derive.remove(tx, id).await?;
                        sqlx::query("DELETE FROM hidden WHERE id = $1")
                            .bind(id)
                            .execute(&mut **tx)
                            .await?;
                        Deletion::Deleted
                    }
                    Some(_) => Deletion::WrongToken,
                })
            })
            .await
            .map_err(|e| self.history.db().fail(e))
    }

    /// Saves a submitted result through the store's committer, started at the first: answered
    /// when the transaction that holds it has committed.
    async fn save_together(&self, doc: &ResultDoc, sent: Sent) -> Result<(), StoreError> {
        let queue = {
            let mut committer = self.committer.0.lock().unwrap_or_else(|e| e.into_inner());
            match committer.as_ref().filter(|queue| !queue.is_closed()) {
                Some(queue) => queue.clone(),
                None => {
                    // The first submission starts it; one whose task has ended (a panic: its
                    // batch was answered 503) is started again, so that no later submission
                    // is refused until a restart.
                    if committer.is_some() {
                        tracing::error!("the store's writer stopped; it is started again");
                    }
                    let (queue, jobs) = mpsc::channel(QUEUE);
                    let writer = Writer {
                        db: self.history.db().clone(),
                        derivation: self.derivation.same_limit(),
                        replicas: Replicas::default(),
                    };
                    tokio::spawn(commit(writer, jobs));
                    *committer = Some(queue.clone());
                    queue
                }
            }
        };
        let (answer, answered) = oneshot::channel();
        let job = Job {
            doc: doc.clone(),
            sent,
            answer,
        };
        let gone = || StoreError::Unavailable {
            location: self.history.db().location.display(),
            problem: super::Problem::Other,
            detail: "the store's writer has stopped".into(),
        };
        queue.send(job).await.map_err(|_| gone())?;
        answered.await.map_err(|_| gone())?
    }
}

/// What the committer's task owns: the connection, and a store's parts made over it.
struct Writer {
    db: Db,
    derivation: Derivation,
    replicas: Replicas,
}

impl Writer {
    fn history(&self) -> History<'_> {
        let derive = Derive::new(&self.db, &self.derivation);
        History::new(&self.db, Reader::new(&self.db, &self.replicas), derive)
    }

    /// Writes `jobs` in one transaction: what each is answered.
    async fn save_jobs(&self, jobs: &[Job]) -> Result<Vec<Result<(), StoreError>>, StoreError> {
        let documents: Vec<_> = jobs.iter().map(|job| encode(&job.doc)).collect();
        let history = self.history();
        self.db
            .write(async |tx| {
                let mut each = Vec::with_capacity(jobs.len());
                for (job, document) in jobs.iter().zip(&documents) {
                    let document = match document {
                        Ok(document) => document.clone(),
                        Err(e) => {
                            each.push(Err(e.clone()));
                            continue;
                        }
                    };
                    if crate::tombstones::buried(tx, &job.doc).await? {
                        each.push(Err(StoreError::Buried(job.doc.id.clone())));
                        continue;
                    }
                    let new = history
                        .insert(tx, &job.doc, document, Some(&job.sent))
                        .await?;
                    each.push(match new {
                        true => Ok(()),
                        false => Err(StoreError::Duplicate(job.doc.id.clone())),
                    });
                }
                Ok(each)
            })
            .await
            .map_err(|e| self.db.fail(e))
    }
}

/// The committer: takes what is queued, up to [`MOST`], writes it, answers each; until every
/// sender has gone (the store closed).
async fn commit(writer: Writer, mut queue: mpsc::Receiver<Job>) {
    let mut jobs = Vec::with_capacity(MOST);
    while queue.recv_many(&mut jobs, MOST).await > 0 {
        #[cfg(test)]
        if jobs.iter().any(|job| job.doc.id == tests::PANICS) {
            panic!("the committer fails as a test asked");
        }
        // Submissions over commits: how many a commit took, on average.
        let commits = metrics::counter!("iomark_store_submission_commits_total");
        let outcomes = match writer.save_jobs(&jobs).await {
            Ok(outcomes) => {
                commits.increment(1);
                outcomes
            }
            Err(_) if jobs.len() > 1 => {
                // Each alone: whatever failed the batch fails only its own submission.
                let mut outcomes = Vec::with_capacity(jobs.len());
                for job in &jobs {
                    outcomes.push(writer.history().save_with(&job.doc, Some(&job.sent)).await);
                }
                commits.increment(jobs.len() as u64);
                outcomes
            }
            Err(e) => vec![Err(e)],
        };
        for (job, outcome) in jobs.drain(..).zip(outcomes) {
            let _ = job.answer.send(outcome);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result id the committer panics at, in tests: no panic path is known otherwise.
    pub(super) const PANICS: &str = "01JCOMMITPANICS0000000000";

    /// A committer that stopped (a panic) fails its own batch, and the next submission starts
    /// another: nothing is refused until a restart.
    #[test]
    fn a_committer_that_stopped_is_started_again() {
        crate::on_a_server_store(None, async |store| {
            let mut doc = iomark_result::result::sample::doc();
            doc.id = PANICS.into();
            let failed = store
                .submissions()
                .save(&doc, "t", &Sender::default())
                .await;
            assert!(
                matches!(&failed, Err(StoreError::Unavailable { detail, .. })
                    if detail.contains("writer has stopped")),
                "{failed:?}"
            );
            doc.id = "01JCOMMITAFTER00000000000".into();
            store
                .submissions()
                .save(&doc, "t", &Sender::default())
                .await
                .unwrap();
            store.history().document(&doc.id).await.unwrap();
        });
    }

    /// Submissions that arrive together are written together: each saved, a duplicate (of a
    /// saved result, and of one in the same transaction) refused alone, every one answered.
    #[test]
    fn submissions_together_are_each_saved_or_refused_alone() {
        // One thread: every submission is queued before the committer first runs.
        crate::on_a_server_store(None, async |store| {
            let doc = |n: u32| {
                let mut doc = iomark_result::result::sample::doc();
                doc.id = format!("01JCOMMIT{n:017}");
                doc
            };
            store
                .submissions()
                .save(&doc(0), "t0", &Sender::default())
                .await
                .unwrap();
            let ids = [1, 2, 0, 3, 2, 4];
            let docs: Vec<ResultDoc> = ids.iter().map(|&n| doc(n)).collect();
            let submissions = store.submissions();
            let nobody = Sender::default();
            let outcomes = futures_util::future::join_all(
                docs.iter().map(|d| submissions.save(d, "token", &nobody)),
            )
            .await;
            let refused: Vec<bool> = outcomes
                .iter()
                .map(|o| matches!(o, Err(StoreError::Duplicate(_))))
                .collect();
            assert_eq!(
                refused,
                [false, false, true, false, true, false],
                "{outcomes:?}"
            );
            for (outcome, refused) in outcomes.iter().zip(refused) {
                assert!(refused || outcome.is_ok(), "{outcome:?}");
            }
            for n in 0..5 {
                store.history().document(&doc(n).id).await.unwrap();
            }
        });
    }
}
