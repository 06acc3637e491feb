//! The statements checked: built from a scratch list with one more figure, run on a real
//! SQLite, and the migrations against the list.

use super::*;
use iomark_result::result::metric::Source;

fn run<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
        .block_on(future)
}

fn scratch() -> Vec<Metric> {
    let mut metrics = METRICS.to_vec();
    metrics.push(Metric {
        column: "seq64k_q4_read",
        source: Source::Test("SEQ64K_Q4T1_read"),
        label: "SEQ64K Q4T1 read",
        unit: "MB/s",
        pi: false,
        own: false,
    });
    metrics
}

#[test]
fn a_new_figure_is_in_every_statement() {
    let sql = Statements::new(&scratch());
    let places = |s: &str| s.matches('$').count();
    assert!(sql.insert_entry.contains("seq64k_q4_read) VALUES"));
    assert_eq!(
        places(&sql.insert_entry),
        ENTRY_FACTS.len() + METRICS.len() + 1
    );
    assert!(sql
        .upsert_device
        .contains("seq64k_q4_read = excluded.seq64k_q4_read"));
    assert!(sql
        .upsert_device
        .contains("ON CONFLICT (class, scope, device_key)"));
    assert_eq!(
        places(&sql.upsert_device),
        DEVICE_FACTS.len() + METRICS.len() + 1
    );
    let three = sql.upsert_devices(3);
    let width = DEVICE_FACTS.len() + METRICS.len() + 1;
    assert_eq!(places(&three), 3 * width);
    assert!(three.contains(&format!("${}), (${}, ", width, width + 1)));
    assert!(three.ends_with(sql.upsert_device.split_once(" ON CONFLICT").unwrap().1));
    assert_eq!(sql.upsert_devices(1), sql.upsert_device);
    assert!(sql
        .entry_select("e.")
        .ends_with("e.rnd4k_q32t16_write, e.seq64k_q4_read"));
    assert!(!sql.entry_select("").contains("token_hash"));
}

/// The scratch list's statements run on a real SQLite whose tables are this version's
/// migrations plus the new column: a figure bound last is written and read back.
#[test]
fn a_new_figure_is_written_and_read_back() {
    let metrics = scratch();
    let sql = Statements::new(&metrics);
    let dir = tempfile::tempdir().unwrap();
    let location = super::super::Location::Sqlite(dir.path().join("s.db"));
    run(async {
        let store = super::super::Store::open(location).await.unwrap();
        for table in ["entries", "devices"] {
            sqlx::query(&format!(
                "ALTER TABLE {table} ADD COLUMN seq64k_q4_read DOUBLE PRECISION"
            ))
            .execute(&store.db.pool)
            .await
            .unwrap();
        }
        let mut insert = sqlx::query(&sql.insert_entry)
            .bind("01ID")
            .bind(Some("key"))
            .bind("Name")
            .bind("SD")
            .bind(None::<String>)
            .bind("standard/direct/random")
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(Some(64_i64))
            .bind(None::<f64>)
            .bind(None::<String>)
            .bind(0_i64)
            .bind(None::<String>)
            .bind("2026-11-23T00:00:00Z")
            .bind(None::<String>)
            .bind(Some("score 12"))
            .bind(Some("SanDisk Extreme"))
            .bind(Some("c0ffee"))
            .bind(None::<String>)
            .bind(Some("Raspbian GNU/Linux 10 (buster) · Linux 4.19"))
            .bind(Some("beef"));
        for (i, _) in metrics.iter().enumerate() {
            insert = insert.bind(Some(i as f64 + 0.5));
        }
        insert.execute(&store.db.pool).await.unwrap();
        let row = sqlx::query(&format!(
            "SELECT {} FROM entries WHERE id = '01ID'",
            sql.entry_select("")
        ))
        .fetch_one(&store.db.pool)
        .await
        .unwrap();
        let entry = entry_of(&row, &metrics).unwrap();
        assert_eq!(entry.figures["seq64k_q4_read"], METRICS.len() as f64 + 0.5);
        assert_eq!(entry.figures["seq1m_q8_read"], 0.5);
        assert_eq!(entry.headline.as_deref(), Some("score 12"));
        assert_eq!(entry.sold_as.as_deref(), Some("SanDisk Extreme"));
        assert_eq!(entry.neighbourhood.as_deref(), Some("beef"));

        // Read as one JSON text, every entry is the same, to the last bit of each figure.
        let mut odd = sqlx::query(&sql.insert_entry)
            .bind("01ODD")
            .bind(None::<String>)
            .bind("Quote \" back\\slash ünïcode <b>")
            .bind("SD")
            .bind(Some("usb"))
            .bind("standard/direct/random")
            .bind(Some("Raspberry Pi 5"))
            .bind(Some("ext4"))
            .bind(None::<i64>)
            .bind(Some(12.99_f64))
            .bind(Some("too fast for its link"))
            .bind(1_i64)
            .bind(None::<String>)
            .bind("2026-11-24T00:00:00Z")
            .bind(Some("\u{1F4BE} label\n"))
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(None::<String>)
            .bind(Some("held for a test"))
            .bind(None::<String>)
            .bind(None::<String>);
        for (i, _) in metrics.iter().enumerate() {
            odd = odd
                .bind((i != 3).then_some((i as f64 + 1.0) / 3.0 * 1e-300_f64.powi(i as i32 % 2)));
        }
        odd.execute(&store.db.pool).await.unwrap();
        let everything = format!("SELECT {} FROM entries", sql.entry_select(""));
        let by_row: Vec<Entry> = sqlx::query(&format!("{everything} ORDER BY id DESC"))
            .fetch_all(&store.db.pool)
            .await
            .unwrap()
            .iter()
            .map(|row| entry_of(row, &metrics).unwrap())
            .collect();
        let text: String = sqlx::query(&sql.entries_as_json(&everything, "id DESC", true))
            .fetch_one(&store.db.pool)
            .await
            .unwrap()
            .get(0);
        assert_eq!(sql.entries_from_json(&text).unwrap(), by_row);
        assert_eq!(by_row.len(), 2);
        assert!(by_row[0].figures.len() == metrics.len() - 1 && by_row[0].synthetic);
        assert!(by_row[0].waits && !by_row[1].waits);
        // A reason an older store kept in words reads back as those words.
        assert_eq!(
            by_row[0].flag,
            Some(iomark_result::result::Reason::Said {
                words: "too fast for its link".into()
            })
        );
        assert_eq!(by_row[1].submitter.as_deref(), Some("c0ffee"));
        assert_eq!(
            by_row[1].system.as_deref(),
            Some("Raspbian GNU/Linux 10 (buster) · Linux 4.19")
        );
        store.close().await;
    });
}

/// The migrations, written out, name the columns the list says.
#[test]
fn the_migrations_have_the_listed_columns() {
    let dir = tempfile::tempdir().unwrap();
    let location = super::super::Location::Sqlite(dir.path().join("s.db"));
    run(async {
        let store = super::super::Store::open(location).await.unwrap();
        for (table, facts) in [
            ("entries", &ENTRY_FACTS[..]),
            ("devices", &DEVICE_FACTS[..]),
        ] {
            let rows = sqlx::query(&format!("SELECT name FROM pragma_table_info('{table}')"))
                .fetch_all(&store.db.pool)
                .await
                .unwrap();
            let mut have: Vec<String> = rows.iter().map(|r| r.get(0)).collect();
            let mut want: Vec<String> = facts
                .iter()
                .copied()
                .chain(METRICS.iter().map(|m| m.column))
                .map(str::to_string)
                .collect();
            have.sort();
            want.sort();
            assert_eq!(have, want, "{table}");
        }
        store.close().await;
    });
}
