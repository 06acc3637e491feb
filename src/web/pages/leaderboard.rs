//! `/`: devices ranked by a figure, with filters, and the newest results.

use super::*;

pub struct Choice {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

pub struct BoardLine {
    pub rank: usize,
    pub href: String,
    pub name: String,
    pub kind: String,
    pub results: i64,
    pub median: String,
    pub range: String,
    pub price: String,
    pub per_gb: String,
    pub per_usd: String,
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
    pub sort_label: String,
    pub unit: String,
    pub lines: Vec<BoardLine>,
    pub recent: Vec<RecentLine>,
    /// The same leaderboard with more devices, when this one may have cut some.
    pub more: Option<String>,
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
    )
    .await?;
    let rows = state.store.leaderboard(&filter).await?;
    let mut classes = offered.classes.clone();
    if !classes.iter().any(|(c, _)| *c == filter.class) {
        classes.push((filter.class.clone(), 0));
    }
    let board = views::leaderboard(&filter, rows);
    let recent = state
        .store
        .recent(10, state.config.show_synthetic)
        .await?
        .into_iter()
        .map(|e| RecentLine {
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
            note: match (&e.flag, &e.device_key) {
                (Some(flag), _) => format!("not ranked: {flag}"),
                (None, None) => "not ranked: the result names no device model".into(),
                _ => String::new(),
            },
            device: e.device_name,
        })
        .collect();
    let lines = board
        .devices
        .iter()
        .map(|d| BoardLine {
            rank: d.rank,
            href: format!(
                "/devices/{}?profile={}",
                encode(&d.device.key),
                encode(&board.class)
            ),
            name: d.device.name.clone(),
            kind: d.device.kind.clone(),
            results: d.device.results,
            median: figure(d.figure.median),
            range: range(&d.figure),
            price: money(d.device.price_usd, 2),
            per_gb: money(d.usd_per_gb, 3),
            per_usd: d.mb_per_s_per_usd.map(figure).unwrap_or_else(|| "–".into()),
        })
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
                label: format!("{} · {n} devices", profile_label(c)),
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
        class: board.class,
        sort_label: board.sort_label,
        unit: board.unit.into(),
        lines,
        recent,
        more: (board.devices.len() as u32 >= filter.limit && filter.limit < 500).then(|| {
            let mut next: Vec<(String, String)> = form_urlencoded::parse(raw_query.as_bytes())
                // Only what pages read: the page is cached under those alone.
                .filter(|(k, _)| k != "limit" && super::super::cache::KNOWN.contains(&k.as_ref()))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
            next.push(("limit".into(), (filter.limit * 4).min(500).to_string()));
            let query: String = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(next)
                .finish();
            format!("/?{query}")
        }),
    };
    render(&page)
}
