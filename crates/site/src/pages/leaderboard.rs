//! `/`: devices ranked by a figure, with filters, and the newest results.

use super::*;
use iomark_profiles::reasons::words;

pub struct Choice {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

pub struct BoardLine {
    /// Its place, or "–" where it is listed unranked (too few neighbourhoods measured it).
    pub rank: String,
    pub href: String,
    pub name: String,
    /// The device's own name, where the line is named by what it is sold as.
    pub own_name: String,
    pub kind: String,
    /// The SD classes its submitters find it meets (on the sdcard board; "–" for none).
    pub classes: String,
    pub results: i64,
    /// A cell per column: the device's median of that figure and its bar.
    pub cells: Vec<Cell>,
    pub range: String,
    pub price: String,
    pub per_gb: String,
    pub per_usd: String,
}

/// A figure's column heading, which sorts the board by it.
pub struct Heading {
    pub label: String,
    pub unit: String,
    pub href: String,
    pub sorted: bool,
}

pub struct Cell {
    pub text: String,
    /// The bar's length in twentieths of the column's best (a class of site.css: the policy
    /// allows no style attribute); None where the device has no such figure.
    pub bar: Option<u8>,
    pub sorted: bool,
}

#[derive(Template)]
#[template(path = "leaderboard.html")]
pub struct LeaderboardPage {
    pub title: String,
    pub q: String,
    pub transport: String,
    pub board: String,
    pub fs: String,
    pub profiles: Vec<Choice>,
    pub boards: Vec<String>,
    pub filesystems: Vec<String>,
    pub sorts: Vec<Choice>,
    pub kinds: Vec<Choice>,
    pub class: String,
    /// The sdcard board: a column of the classes each card meets.
    pub sd: bool,
    pub sort_label: String,
    pub unit: String,
    pub columns: Vec<Heading>,
    pub lines: Vec<BoardLine>,
    pub recent: Vec<RecentLine>,
    /// The same leaderboard with more devices, when this one may have cut some.
    pub more: Option<String>,
    /// What a line without a rank means, where the board has one.
    pub unranked: Option<String>,
    pub api: String,
}

/// A result in the list of the newest.
pub struct RecentLine {
    pub href: String,
    pub date: String,
    pub device: String,
    pub class: String,
    pub label: String,
    pub figure: String,
    pub note: String,
}

pub async fn leaderboard(
    State(state): State<Shared>,
    RawQuery(raw_query): RawQuery,
    Query(mut query): Query<BoardQuery>,
) -> Result<Html<String>, Page> {
    // A page lists 50 devices unless asked for more (`limit`, up to 500); the API 100.
    let raw_query = raw_query.unwrap_or_default();
    query.limit = query.limit.or(Some(50));
    let (filter, offered) = views::checked(
        &state.store,
        &state.choices,
        &query,
        state.config.show_synthetic,
        state.config.corroboration,
    )
    .await?;
    let rows = state.store.site().leaderboard(&filter).await?;
    let mut classes = offered.classes.clone();
    if !classes.iter().any(|(c, _)| *c == filter.class) {
        classes.push((filter.class.clone(), 0));
    }
    let board = views::leaderboard(&filter, rows, &offered.figures);
    let recent = state
        .store
        .site()
        .recent(10, state.config.show_synthetic)
        .await?
        .into_iter()
        .map(recent_line)
        .collect();
    let lines = board
        .devices
        .iter()
        .map(|d| board_line(d, &board))
        .collect();
    let text = |v: &Option<String>| v.clone().unwrap_or_default();
    let page = LeaderboardPage {
        title: format!("Leaderboard: {}", profile_label(&board.class)),
        q: text(&query.q),
        transport: text(&query.transport),
        board: text(&query.board),
        fs: text(&query.fs),
        boards: offered.boards,
        filesystems: offered.filesystems,
        profiles: classes
            .iter()
            .map(|(c, n)| Choice {
                value: c.clone(),
                label: format!(
                    "{} · {n} {}",
                    profile_label(c),
                    if *n == 1 { "device" } else { "devices" }
                ),
                selected: *c == board.class,
            })
            .collect(),
        sorts: METRICS
            .iter()
            .map(|m| Choice {
                value: m.column.to_string(),
                label: m.heading(),
                selected: m.column == board.sort,
            })
            .collect(),
        kinds: std::iter::once(("", "any kind"))
            .chain(KINDS.iter().map(|k| (*k, *k)))
            .map(|(value, label)| Choice {
                value: value.into(),
                label: label.into(),
                selected: filter.kind.as_deref().unwrap_or("") == value,
            })
            .collect(),
        api: format!(
            "/api/v1/leaderboard?profile={}&sort={}",
            encode(&board.class),
            board.sort
        ),
        columns: board
            .columns
            .iter()
            .map(|c| Heading {
                label: c.label.into(),
                unit: c.unit.into(),
                href: with(&raw_query, &[("sort", c.figure)]),
                sorted: c.sorted,
            })
            .collect(),
        sd: board.class.starts_with("sdcard/"),
        class: board.class,
        sort_label: board.sort_label,
        unit: board.unit.into(),
        unranked: board.devices.iter().any(|d| d.rank.is_none()).then(|| {
            format!(
                "A device marked – is not ranked yet: its results come from fewer than {} \
                 independent networks so far, and one household's word never ranks a device \
                 above others'. It is listed after the ranked ones until results from another \
                 network (another IPv4 /16 or IPv6 /32) join them.",
                board.corroboration
            )
        }),
        lines,
        recent,
        more: (board.devices.len() as u32 >= filter.limit && filter.limit < 500).then(|| {
            with(
                &raw_query,
                &[("limit", &(filter.limit * 4).min(500).to_string())],
            )
        }),
    };
    render(&page)
}

/// A line of the newest results: its date, device, label and headline, and why it is not
/// ranked where it is not.
fn recent_line(e: iomark_store::Entry) -> RecentLine {
    RecentLine {
        href: format!("/results/{}", encode(&e.id)),
        date: e.started_at.chars().take(10).collect(),
        class: profile_label(&e.class),
        label: e.label.clone().unwrap_or_default(),
        // The profile's own figure (a score, the SD classes met), else SEQ1M Q8T1 read.
        figure: e.headline.clone().unwrap_or_else(|| {
            e.figures
                .get(metric::HEADLINE.column)
                .map(|v| format!("{} MB/s read", figure(*v)))
                .unwrap_or_else(|| "–".into())
        }),
        // Why it is not ranked: the list says "not ranked", the reason is a tooltip here
        // and said in full on its page (a phone showed the reason over half a screen).
        note: match (&e.flag, &e.device_key) {
            (Some(flag), _) => words(flag),
            (None, None) => "the result names no device model".into(),
            _ => String::new(),
        },
        device: e.device_name,
    }
}

/// A device's line: its rank, names, each column's median with its bar, spread and prices.
fn board_line(d: &views::Ranked, board: &views::Leaderboard) -> BoardLine {
    BoardLine {
        rank: d.rank.map_or_else(|| "–".into(), |r| r.to_string()),
        href: format!(
            "/devices/{}?profile={}",
            encode(&d.device.key),
            encode(&board.class)
        ),
        name: d.device.shown_name().to_string(),
        own_name: match d.device.sold_as {
            Some(_) => d.device.name.clone(),
            None => String::new(),
        },
        kind: d.device.kind.clone(),
        classes: d.device.classes.clone().unwrap_or_else(|| "–".into()),
        results: d.device.results,
        cells: board
            .columns
            .iter()
            .map(|c| {
                let median = d.device.stats.get(c.figure).map(|s| s.median);
                Cell {
                    text: median.map_or("–".into(), |v| figure(v).to_string()),
                    bar: median.zip(c.best.filter(|b| *b > 0.0)).map(|(v, best)| {
                        // Any figure above nothing shows at least a sliver.
                        ((v / best * 20.0).round() as u8).clamp(u8::from(v > 0.0), 20)
                    }),
                    sorted: c.sorted,
                }
            })
            .collect(),
        range: range(&d.figure),
        price: money(d.device.price_usd, 2),
        per_gb: money(d.usd_per_gb, 3),
        per_usd: d
            .mb_per_s_per_usd
            .map_or("–".into(), |v| figure(v).to_string()),
    }
}

/// This leaderboard's address with `changes` made to its query: only what pages read is kept
/// (the page is cached under those alone).
fn with(raw_query: &str, changes: &[(&str, &str)]) -> String {
    let next = form_urlencoded::parse(raw_query.as_bytes())
        .filter(|(k, _)| {
            !changes.iter().any(|(c, _)| c == k) && super::super::cache::KNOWN.contains(&k.as_ref())
        })
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .chain(changes.iter().map(|(k, v)| (k.to_string(), v.to_string())))
        .collect::<Vec<_>>();
    let query: String = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(next)
        .finish();
    format!("/?{query}")
}
