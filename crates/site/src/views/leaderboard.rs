//! The leaderboard: devices ranked by one figure, with prices, and what its form offers.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{class_of, params};
use crate::error::Failure;
use iomark_result::result::identity::{slug, KINDS};
use iomark_result::result::metric::{self, METRICS};
use iomark_store::{DeviceRow, Filter, Spread, Store, StoreError, MAX_ROWS};

/// The classes with ranked devices and, per class, the boards and filesystems its results were
/// measured on: what the leaderboard's form offers. They change slowly and a page asks for
/// them on every view, so they are read from the store at most every 30 s, and after a write
/// ([`Choices::written`]) at most once a second, by one request while the others show what
/// was read before. Forgetting them at every write (issue 44: "standard · 0 devices" beside a
/// table of one) had every page under 20 submissions a second read them again, 60 at once:
/// 1,049-1,510 pages a second where this serves 5,800-6,000 (bench/RESULTS.md). A class the
/// menu lacks, or counts no device of, is read again at once: the one miscount a person
/// would see.
#[derive(Default)]
pub struct Choices {
    cached: std::sync::Mutex<BTreeMap<String, Read>>,
    /// Writes so far: what was read before the last is stale.
    writes: std::sync::atomic::AtomicU64,
    /// The keys being read now.
    reading: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

struct Read {
    at: std::time::Instant,
    /// [`Choices::writes`] when the reading began.
    writes: u64,
    offered: Offered,
}

/// How long what was read serves with no write, and after one.
const FRESH: std::time::Duration = std::time::Duration::from_secs(30);
const AFTER_A_WRITE: std::time::Duration = std::time::Duration::from_secs(1);

/// A key being read, given back when dropped.
struct Reading<'a> {
    set: &'a std::sync::Mutex<std::collections::BTreeSet<String>>,
    key: String,
}

impl<'a> Reading<'a> {
    /// The key, unless another request is reading it.
    fn take(
        set: &'a std::sync::Mutex<std::collections::BTreeSet<String>>,
        key: &str,
    ) -> Option<Reading<'a>> {
        let taken = set
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key.to_string());
        taken.then(|| Reading {
            set,
            key: key.to_string(),
        })
    }
}

impl Drop for Reading<'_> {
    fn drop(&mut self) {
        self.set
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&self.key);
    }
}

#[derive(Clone, Default)]
pub struct Offered {
    pub classes: Vec<(String, i64)>,
    /// The figures the class's ranked devices have: what it sorts by unless told.
    pub figures: Vec<&'static str>,
    pub boards: Vec<String>,
    pub filesystems: Vec<String>,
}

impl Choices {
    /// A write was made: a device may have come or gone.
    pub fn written(&self) {
        self.writes
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub async fn get(
        &self,
        store: &Store,
        class: &str,
        synthetic: bool,
    ) -> Result<Offered, StoreError> {
        let key = format!("{class}\n{synthetic}");
        let writes = self.writes.load(std::sync::atomic::Ordering::SeqCst);
        let kept = self
            .cached
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .map(|r| {
                let age = r.at.elapsed();
                let counted = r.offered.classes.iter().any(|(c, n)| c == class && *n > 0);
                let usable =
                    age < FRESH && (r.writes == writes || (age < AFTER_A_WRITE && counted));
                (usable, r.offered.clone())
            });
        let stale = match kept {
            Some((true, offered)) => return Ok(offered),
            Some((false, offered)) => Some(offered),
            None => None,
        };
        // One request reads them; the others meanwhile show what was read before. The key is
        // given back however the reading ends (a client that goes away drops it mid-way).
        let reading = Reading::take(&self.reading, &key);
        if let (None, Some(offered)) = (&reading, &stale) {
            return Ok(offered.clone());
        }
        let offered = self.read(store, class, synthetic).await?;
        drop(reading);
        let mut cached = self.cached.lock().unwrap_or_else(|e| e.into_inner());
        if cached.len() > 1000 {
            cached.clear();
        }
        cached.insert(
            key,
            Read {
                at: std::time::Instant::now(),
                writes,
                offered: offered.clone(),
            },
        );
        Ok(offered)
    }

    async fn read(
        &self,
        store: &Store,
        class: &str,
        synthetic: bool,
    ) -> Result<Offered, StoreError> {
        let classes = store.site().classes(synthetic).await?;
        let (boards, filesystems) = store.site().scopes(class).await?;
        Ok(Offered {
            classes,
            figures: store.site().figures_of(class).await?,
            boards,
            filesystems,
        })
    }
}

/// The query string of a leaderboard (page or API).
#[derive(Debug, Default, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct BoardQuery {
    /// The profile ranked (`standard`, `pi`, `sdcard`…), or a whole class
    /// (`standard/direct/random`); by default `standard`.
    #[param(value_type = Option<params::Text>, inline)]
    pub profile: Option<String>,
    /// The figure to rank by (`seq1m_q8_read`, `rnd4k_q1_read`, `score`…); by default the
    /// profile's headline.
    #[param(value_type = Option<params::Figure>, inline)]
    pub sort: Option<String>,
    /// Devices of one kind only (`microSD`, `USB flash`, `NVMe`, `SATA SSD`…).
    #[param(value_type = Option<params::Kind>, inline)]
    pub kind: Option<String>,
    /// Devices on one transport only (`usb`, `sata`, `nvme`, `mmc`…).
    #[param(value_type = Option<params::Text>, inline)]
    pub transport: Option<String>,
    /// Results measured on one board only (`Raspberry Pi 4 Model B`…).
    #[param(value_type = Option<params::Text>, inline)]
    pub board: Option<String>,
    /// Results on one filesystem only (`ext4`…).
    #[param(value_type = Option<params::Text>, inline)]
    pub fs: Option<String>,
    /// Words of the device's name, all of which it must have.
    #[param(value_type = Option<params::Text>, inline)]
    pub q: Option<String>,
    /// How many devices, 1 to 500; by default 100.
    #[param(value_type = Option<RowLimit>, inline)]
    pub limit: Option<u32>,
}

fn present(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

type RowLimit = params::Limit<MAX_ROWS>;

impl BoardQuery {
    /// The profile class asked for (`standard` means `standard/direct/random`, the default).
    pub fn class(&self) -> Result<String, Failure> {
        params::plain("profile", self.profile.as_deref())?;
        Ok(class_of(self.profile.as_deref()).unwrap_or_else(|| "standard/direct/random".into()))
    }

    /// Checked into a store filter: the class, a known figure to sort by (by default the pi
    /// profile's score for pi, else the first figure the class has of `figures`), a known
    /// kind; devices ranked once `corroboration` neighbourhoods measured them (the site's).
    pub fn filter(
        &self,
        synthetic: bool,
        figures: &[&str],
        corroboration: u32,
    ) -> Result<Filter, Failure> {
        let class = self.class()?;
        let wanted = present(&self.sort)
            .unwrap_or_else(|| metric::default_sort(&class, figures).column.into());
        let sort = metric::find(&wanted).ok_or_else(|| {
            let names: Vec<&str> = METRICS.iter().map(|m| m.column).collect();
            Failure::bad(format!(
                "sort: '{}' is not a figure; one of {}",
                wanted.chars().take(40).collect::<String>(),
                names.join(", ")
            ))
        })?;
        let kind = present(&self.kind);
        if let Some(kind) = &kind {
            if !KINDS.contains(&kind.as_str()) {
                return Err(Failure::bad(format!(
                    "kind: not a kind of device; one of {}",
                    KINDS.join(", ")
                )));
            }
        }
        for (name, value) in [
            ("transport", &self.transport),
            ("board", &self.board),
            ("fs", &self.fs),
            ("q", &self.q),
        ] {
            params::plain(name, value.as_deref())?;
        }
        Ok(Filter {
            class,
            sort,
            kind,
            transport: present(&self.transport),
            board: present(&self.board),
            filesystem: present(&self.fs),
            text: present(&self.q).filter(|q| !slug(q).is_empty()),
            limit: params::limit(self.limit, 100, MAX_ROWS)?,
            synthetic,
            corroboration,
        })
    }
}

/// A leaderboard's query checked, with what its form offers for its class.
pub async fn checked(
    store: &Store,
    choices: &Choices,
    query: &BoardQuery,
    synthetic: bool,
    corroboration: u32,
) -> Result<(Filter, Offered), Failure> {
    let offered = choices.get(store, &query.class()?, synthetic).await?;
    Ok((
        query.filter(synthetic, &offered.figures, corroboration)?,
        offered,
    ))
}

/// One device of the board, with the figure sorted by and what it costs.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Ranked {
    /// Its place among the ranked devices; none (`null`) for a device measured from fewer
    /// independent neighbourhoods than the site ranks from (`corroboration`): listed after
    /// every ranked one, in the same order.
    pub rank: Option<usize>,
    /// The device's aggregate, its fields at this level of the JSON.
    #[serde(flatten)]
    pub device: DeviceRow,
    /// The sorted-by figure across the device's results.
    pub figure: Spread,
    pub usd_per_gb: Option<f64>,
    /// SEQ1M Q8T1 read MB/s per dollar (the figure people shop by).
    pub mb_per_s_per_usd: Option<f64>,
}

#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Leaderboard {
    pub class: String,
    pub sort: String,
    pub sort_label: String,
    pub unit: &'static str,
    /// The figures each line shows side by side (`metric::side_by_side`).
    pub columns: Vec<Column>,
    /// How many independent neighbourhoods (an IPv4 /16 or IPv6 /32 each) must have measured a
    /// device before this site ranks it: never one household's word where it is 2 or more.
    pub corroboration: u32,
    pub devices: Vec<Ranked>,
}

/// A figure the leaderboard shows for every device.
#[derive(Clone, Debug, Serialize, utoipa::ToSchema)]
pub struct Column {
    /// Its name in `stats` and in `sort=`.
    pub figure: &'static str,
    pub label: &'static str,
    pub unit: &'static str,
    pub sorted: bool,
    /// The highest median of it among the devices listed: what its bars are measured against.
    pub best: Option<f64>,
}

/// The devices ranked by `filter`'s figure, showing `present`'s (the figures the class has).
pub fn leaderboard(filter: &Filter, rows: Vec<DeviceRow>, present: &[&str]) -> Leaderboard {
    let mut ranked = 0;
    let devices = rows
        .into_iter()
        .filter_map(|row| {
            let figure = row.stats.get(filter.sort.column)?.clone();
            let price = row.price_usd;
            let rank = (row.neighbourhoods >= i64::from(filter.corroboration)).then(|| {
                ranked += 1;
                ranked
            });
            Some(Ranked {
                rank,
                usd_per_gb: super::usd_per_gb(price, row.capacity_gb),
                mb_per_s_per_usd: price
                    .zip(row.stats.get(metric::HEADLINE.column))
                    .map(|(p, s)| s.median / p),
                figure,
                device: row,
            })
        })
        .collect::<Vec<Ranked>>();
    let columns = metric::side_by_side(&filter.class, present, filter.sort)
        .into_iter()
        .map(|m| Column {
            figure: m.column,
            label: m.label,
            unit: m.unit,
            sorted: m == filter.sort,
            best: devices
                .iter()
                .filter_map(|d| d.device.stats.get(m.column).map(|s| s.median))
                .fold(None, |best: Option<f64>, v| {
                    Some(best.map_or(v, |b| b.max(v)))
                }),
        })
        .collect();
    Leaderboard {
        class: filter.class.clone(),
        sort: filter.sort.column.to_string(),
        sort_label: filter.sort.label.to_string(),
        unit: filter.sort.unit,
        columns,
        corroboration: filter.corroboration,
        devices,
    }
}
