//! `/results/ID`: a result's full report, with the site's links above it.

use super::*;

/// The site's links above a result's report, and why it is not ranked.
#[derive(Template)]
#[template(path = "result_nav.html")]
struct ResultNav {
    device: Option<(String, String)>,
    json: String,
    card: String,
    flag: Option<String>,
}

pub async fn result(State(state): State<Shared>, Path(id): Path<String>) -> Result<Response, Page> {
    let (entry, doc) = views::visible_result(&state, &id).await?;
    use crate::export::Exporter;
    let report = crate::export::html::Html.export(&doc).map_err(|e| {
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
        card: format!("/results/{}/card.png", encode(&entry.id)),
        flag: entry.flag.clone(),
    }
    .render()
    .map_err(|e| {
        Failure::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("the page could not be drawn: {e}"),
        )
    })?;
    let body = report.replacen("<body>\n", &format!("<body>\n{banner}"), 1);
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
