//! `/results/ID`: a result's full report, with the site's links above it, and what a link to
//! it shows where it is posted (Open Graph: its card as the picture, at `--public-url`).

use super::*;
use iomark_profiles::reasons::words;

/// The site's links above a result's report, and why it is not ranked.
#[derive(Template)]
#[template(path = "result_nav.html")]
struct ResultNav {
    device: Option<(String, String)>,
    json: String,
    /// A verify run or a surface scan has no table of tests, so no card.
    card: Option<String>,
    flag: Option<String>,
}

/// What a posted link to the result previews: its device and headline, its figures, its card.
#[derive(Template)]
#[template(path = "result_meta.html")]
struct ResultMeta {
    title: String,
    description: String,
    url: String,
    image: Option<String>,
}

impl ResultMeta {
    fn of(entry: &iomark_store::Entry, site: &str, carded: bool) -> ResultMeta {
        let figures: Vec<String> = metric::side_by_side(&entry.class, &[], metric::HEADLINE)
            .into_iter()
            .filter_map(|m| {
                let value = entry.figures.get(m.column)?;
                Some(format!("{} {} {}", m.label, figure(*value), m.unit))
            })
            .collect();
        let mut description = figures.join(" · ");
        if let Some(board) = entry.board.as_deref().filter(|b| !b.is_empty()) {
            description.push_str(&format!(" · on a {board}"));
        }
        let path = format!("/results/{}", encode(&entry.id));
        ResultMeta {
            title: match &entry.headline {
                Some(headline) => format!("{}: {headline}", entry.device_name),
                None => entry.device_name.clone(),
            },
            description,
            image: carded.then(|| format!("{site}{path}/card.png")),
            url: format!("{site}{path}"),
        }
    }
}

pub async fn result(State(state): State<Shared>, Path(id): Path<String>) -> Result<Response, Page> {
    let (entry, doc) = views::visible_result(&state, &id).await?;
    let carded = iomark_export::chart::check(iomark_export::chart::Kind::Card, &[&doc]).is_ok();
    // Drawn on a thread of its own, as a card is: the request's time limit holds while the
    // charts are drawn, and the workers go on answering others.
    let drawn = tokio::task::spawn_blocking(move || {
        use iomark_export::Exporter;
        iomark_export::html::Html.export(&doc)
    })
    .await;
    let report = drawn
        .map_err(|e| e.to_string())
        .and_then(|r| r.map_err(|e| e.to_string()))
        .map_err(|e| {
            Failure::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the report could not be drawn: {e}"),
            )
        })?;
    let report = String::from_utf8_lossy(&report).to_string();
    let banner = ResultNav {
        device: entry.device_key.as_ref().map(|key| {
            (
                format!(
                    "/devices/{}?profile={}&mine={}",
                    encode(key),
                    encode(&entry.class),
                    encode(&entry.id)
                ),
                entry.device_name.clone(),
            )
        }),
        json: format!("/api/v1/results/{}", encode(&entry.id)),
        card: carded.then(|| format!("/results/{}/card.png", encode(&entry.id))),
        flag: entry.flag.as_ref().map(words),
    }
    .render()
    .map_err(|e| {
        Failure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the page could not be drawn: {e}"),
        )
    })?;
    let meta = ResultMeta::of(&entry, &state.public_url, carded)
        .render()
        .unwrap_or_default();
    let body = report
        .replacen("</head>", &format!("{meta}</head>"), 1)
        .replacen("<body>\n", &format!("<body>\n{banner}"), 1);
    let mut response = Html(body).into_response();
    // The report carries its own style element (it is also a file people mail around): this
    // page allows inline style, and still no script, no request elsewhere.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; \
             form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
        ),
    );
    Ok(response)
}
