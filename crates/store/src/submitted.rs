//! What a site keeps of a submitted result (`api::submit` stores it so; results a site took
//! under older rules are brought to it once, when derived anew): no local path, no folder or
//! name of a person in any text (`ResultDoc::for_submission`'s rules, as they are now), and at
//! most 64 kB, long timelines merged (`ResultDoc::thin_for_site`).

use sqlx::{Any, Row, Transaction};

use iomark_result::result::ResultDoc;

/// What a site keeps of a submitted result: no local path (where it ran is its submitter's
/// own business) and at most 64 kB, long timelines merged (`ResultDoc::thin_for_site`);
/// `api::submit` stores it so. Results a site took before (those with a deletion token: a
/// submission, shown or hidden) are kept so here, once; a store's own runs keep all of theirs.
/// Each is read, one at a time: a text kept under older rules may name someone the rules now
/// hide (the seventh attack pass: a drive's serial in `/dev/disk/by-id/`, `alice@host`).
pub(crate) async fn keep_as_submitted(tx: &mut Transaction<'_, Any>) -> Result<(), sqlx::Error> {
    let ids: Vec<String> = sqlx::query(
        "SELECT id FROM results WHERE id IN \
         (SELECT id FROM entries WHERE token_hash IS NOT NULL \
          UNION SELECT id FROM hidden WHERE token_hash IS NOT NULL)",
    )
    .fetch_all(&mut **tx)
    .await?
    .iter()
    .map(|row| row.try_get(0))
    .collect::<Result<_, _>>()?;
    for id in ids {
        let text: String = sqlx::query("SELECT document FROM results WHERE id = $1")
            .bind(&id)
            .fetch_one(&mut **tx)
            .await?
            .try_get(0)?;
        let Ok(doc) = serde_json::from_str::<ResultDoc>(&text) else {
            continue;
        };
        let mut doc = doc.for_submission(None);
        doc.target.path.clear();
        // One that does not fit even thinned (none a site took since it thins them) is kept
        // as thin as it goes.
        if let Err(e) = doc.thin_for_site() {
            tracing::warn!(%id, "a stored result stays over the bound: {e}");
        }
        let thinned = serde_json::to_string(&doc).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
        if thinned == text {
            continue;
        }
        sqlx::query("UPDATE results SET document = $1 WHERE id = $2")
            .bind(thinned)
            .bind(id)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    /// Derived anew, a site's submitted results lose the local path they were sent with (and
    /// any folder or name a text holds that the rules now hide), and
    /// one sent whole before a site kept at most 64 kB is thinned to that (the rest unread and
    /// unchanged); a store's own runs keep all of theirs.
    #[test]
    fn submitted_results_are_kept_as_a_site_keeps_them_once() {
        crate::on_a_server_store(None, async |store| {
            let mut doc = iomark_result::result::sample::doc();
            doc.target.path = "/home/someone/card".into();
            doc.id = "01JPATHSUBMITTED000000000".into();
            // A text the rules of its day let through.
            doc.warnings.push(iomark_result::result::Warning::new(
                iomark_result::result::WarningKind::HighVariation,
                "/dev/disk/by-id/ata-X_S5Y1NX0R123456X varied, said alice@bobpc",
            ));
            let nobody = crate::Sender::default();
            store.submissions().save(&doc, "t", &nobody).await.unwrap();
            let mut long = doc.clone();
            long.target.path.clear();
            long.id = "01JLONGSUBMITTED000000000".into();
            long.tests[0].timeline = iomark_result::result::sample::timeline(&[12.3456789; 3600]);
            store.submissions().save(&long, "u", &nobody).await.unwrap();
            doc.id = "01JPATHOWN000000000000000".into();
            store.history().save(&doc).await.unwrap();
            long.id = "01JLONGOWN000000000000000".into();
            store.history().save(&long).await.unwrap();
            sqlx::query("UPDATE meta SET value = 'older' WHERE name = 'rules'")
                .execute(&store.db.pool)
                .await
                .unwrap();
            store.derivation().rederive().await.unwrap();
            let stored = async |id: &str| store.history().document(id).await.unwrap();
            let submitted = stored("01JPATHSUBMITTED000000000").await;
            assert_eq!(submitted.target.path, "");
            assert_eq!(
                submitted.warnings.last().unwrap().message,
                "/dev/[folder] varied, said [someone]"
            );
            assert_eq!(
                stored("01JPATHOWN000000000000000").await.target.path,
                "/home/someone/card"
            );
            let thinned = stored("01JLONGSUBMITTED000000000").await;
            assert!(
                serde_json::to_vec(&thinned).unwrap().len() <= iomark_result::result::SITE_KEEPS
            );
            assert!(thinned.tests[0].timeline.len() < 3600);
            assert!(thinned.warnings.iter().any(|w| w.kind == "thinned"));
            assert_eq!(
                stored("01JLONGOWN000000000000000").await.tests[0]
                    .timeline
                    .len(),
                3600
            );
        })
    }
}
