//! A report in one HTML file: the table, the charts as inline SVG, the settings, the host and
//! the device, drawn from `templates/report.html`. No scripts, no fonts or styles from
//! elsewhere: a Content-Security-Policy forbids every request, so the file opens the same
//! offline, from a mail or from a USB stick.

use super::chart::{self, Kind};
use super::{figure, ExportError, Exporter};
use iomark_result::result::{ResultDoc, TestResult};
use iomark_result::units::{format_micros, format_size};

pub struct Html;

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:960px;\
padding:0 1rem;color:#1d2127;background:#fff}\
h1,h2,p,dd,li,.warn{overflow-wrap:anywhere}h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dde1e6}\
.sub{color:#5c5f66;margin-top:0}\
table{border-collapse:collapse;margin:.5rem 0;display:block;overflow-x:auto;max-width:100%}\
td,th{padding:.3rem .7rem;border-bottom:1px solid #eceef1}\
th{text-align:left;background:#f5f6f8}td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\
.read{color:#2b6cb0}.write{color:#d96c1e}\
.warn{background:#fff4e5;border-left:4px solid #d96c1e;padding:.5rem .8rem;margin:.5rem 0}\
#headline{font-size:1.1rem;padding:.5rem .8rem;border-left:4px solid #2b6cb0;background:#f5f8fc}\
#verdict{font-weight:bold;padding:.5rem .8rem;border-left:4px solid}#verdict.ok{border-color:#2f9e44}#verdict.bad{border-color:#c92a2a;color:#c92a2a}\
figure.chart{margin:1rem 0}figure.chart svg{max-width:100%;height:auto}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{color:#5c5f66}dd{margin:0}\
#tests{font-size:.85rem}#tests td,#tests th{padding:.3rem .4rem}\
pre{background:#f5f6f8;padding:.8rem;overflow:auto}footer{color:#5c5f66;margin-top:3rem;font-size:.85rem}";

/// A price and what it buys: dollars per GB of the device and MB/s (SEQ1M Q8T1 read) per dollar.
pub fn price_text(doc: &ResultDoc, price: f64) -> String {
    let mut text = format!("Price ${price:.2}");
    if let Some(gb) = doc.identity().capacity_gb.filter(|g| *g > 0) {
        text.push_str(&format!(" · ${:.3}/GB", price / gb as f64));
    }
    if let Some(t) = doc.test("SEQ1M_Q8T1_read") {
        text.push_str(&format!(
            " · {:.1} MB/s per $ (SEQ1M Q8T1 read)",
            t.mb_per_s / price
        ));
    }
    text
}

/// One row of a table: its heading cell and its figures.
struct Row {
    name: String,
    cells: Vec<String>,
}

struct LangRow {
    name: String,
    variant: String,
    cells: Vec<String>,
    runtime: String,
}

struct Langs {
    intro: String,
    rows: Vec<LangRow>,
}

struct Chart {
    kind: &'static str,
    /// Drawn by `export::chart`, every text in it escaped there.
    svg: String,
}

/// `iomark verify`'s verdict and figures.
struct Verify {
    verdict: String,
    ok: bool,
    figures: Vec<(&'static str, String)>,
    problems: Vec<String>,
}

/// The report, from `templates/report.html` (askama: every value is escaped unless marked
/// safe, and only the stylesheet and the charts are).
#[derive(askama::Template)]
#[template(path = "report.html")]
struct Report {
    title: String,
    subtitle: String,
    style: &'static str,
    price: Option<String>,
    /// The profile's own figure and what it means (verify says its verdict instead).
    headline: Option<iomark_profiles::Headline>,
    warnings: Vec<String>,
    rows: Vec<Row>,
    langs: Option<Langs>,
    charts: Vec<Chart>,
    tests: Vec<Row>,
    facts: Vec<(&'static str, String)>,
    score: Option<String>,
    verify: Option<Verify>,
    id: String,
    version: String,
    /// Whether fio can check the figures: a run of tests, not verify's fill or langs' programs.
    fio: bool,
}

impl Exporter for Html {
    fn export(&self, doc: &ResultDoc) -> Result<Vec<u8>, ExportError> {
        use askama::Template;
        let title = match &doc.label {
            Some(label) => format!("{label} · {}", doc.device_label()),
            None => doc.device_label(),
        };
        let s = &doc.settings;
        let when = iomark_profiles::describe::when(doc);
        // Where: the path and its filesystem, each where known (a site's page has no path).
        let on = iomark_profiles::describe::on(doc).unwrap_or_default();
        let place = [doc.target.path.as_str(), on.as_str()]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let subtitle = [
            when,
            format!("{} profile", s.profile),
            place,
            format!("iomark {}", doc.tool.version),
        ]
        .into_iter()
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" · ");
        // What the profile adds, in the words the terminal prints (never the raw score).
        let score = Some(iomark_profiles::details::details(
            doc,
            &iomark_profiles::Plain,
        ))
        .map(|text| text.trim_end().to_string())
        .filter(|text| !text.is_empty());
        let verify = doc.verify.as_ref().map(|v| Verify {
            verdict: v.verdict.clone(),
            ok: v.ok,
            figures: v.figures(),
            problems: v.problems.iter().take(100).map(|p| v.describe(p)).collect(),
        });
        let report = Report {
            title,
            subtitle,
            style: STYLE,
            price: doc.price_usd.map(|p| price_text(doc, p)),
            headline: iomark_profiles::headline(doc).filter(|_| doc.verify.is_none()),
            warnings: doc.warnings.iter().map(|w| w.message.clone()).collect(),
            rows: table_rows(doc),
            langs: langs_section(doc),
            charts: charts(doc)?,
            tests: test_rows(doc),
            facts: facts(doc),
            score,
            verify,
            id: doc.id.clone(),
            version: doc.tool.version.clone(),
            fio: doc.verify.is_none() && doc.langs.is_none() && !doc.tests.is_empty(),
        };
        report
            .render()
            .map(String::into_bytes)
            .map_err(|e| ExportError::Encode(e.to_string()))
    }
}

/// The table as the terminal prints it: a row per test row, read and write side by side.
fn table_rows(doc: &ResultDoc) -> Vec<Row> {
    iomark_result::result::rows(&doc.tests)
        .into_iter()
        .map(|iomark_result::result::TestRow { name, read, write }| {
            let cell = |t: Option<&TestResult>, f: &dyn Fn(&TestResult) -> String| {
                t.map(f).unwrap_or_else(|| "–".into())
            };
            Row {
                name: name.replace('_', " "),
                cells: vec![
                    cell(read, &|t| figure(t.mb_per_s).to_string()),
                    cell(write, &|t| figure(t.mb_per_s).to_string()),
                    cell(read, &|t| format!("{:.0}", t.iops)),
                    cell(write, &|t| format!("{:.0}", t.iops)),
                    cell(read, &|t| format_micros(t.latency_us.p99)),
                    cell(write, &|t| format_micros(t.latency_us.p99)),
                ],
            }
        })
        .collect()
}

/// The langs experiment's rows, for a langs run.
fn langs_section(doc: &ResultDoc) -> Option<Langs> {
    doc.langs.as_ref().map(|section| Langs {
        intro: format!(
            "{} written and read per repetition, {} repetitions{}",
            format_size(section.bytes),
            section.reps,
            if section.reps > 1 {
                ", the first dropped"
            } else {
                ""
            }
        ),
        rows: section
            .results
            .iter()
            .map(|r| LangRow {
                name: r.lang.clone(),
                variant: r.variant.clone(),
                cells: vec![
                    figure(r.write.mb_per_s).to_string(),
                    figure(r.read.mb_per_s).to_string(),
                    format!("{:.2}", r.write.ns_per_byte),
                    format!("{:.2}", r.read.ns_per_byte),
                ],
                runtime: r.runtime.clone(),
            })
            .collect(),
    })
}

/// Every chart the document has the figures for, as inline SVG.
fn charts(doc: &ResultDoc) -> Result<Vec<Chart>, ExportError> {
    let docs = [doc];
    let mut charts = Vec::new();
    for kind in Kind::ALL.into_iter().filter(|k| *k != Kind::Card) {
        if chart::check(kind, &docs).is_err() {
            continue;
        }
        let svg = chart::svg(kind, &docs)?;
        charts.push(Chart {
            kind: kind.name(),
            svg: strip_prolog(&svg).to_string(),
        });
    }
    Ok(charts)
}

/// Every test in full: its figures, latency percentiles, loops and spread.
fn test_rows(doc: &ResultDoc) -> Vec<Row> {
    doc.tests
        .iter()
        .map(|t| {
            let l = &t.latency_us;
            Row {
                name: t.name.replace('_', " "),
                cells: vec![
                    figure(t.mb_per_s).to_string(),
                    format!("{:.0}", t.iops),
                    format_micros(l.min),
                    format_micros(l.mean),
                    format_micros(l.p50),
                    format_micros(l.p90),
                    format_micros(l.p99),
                    format_micros(l.p99_9),
                    format_micros(l.max),
                    t.loops.len().to_string(),
                    t.spread_text(),
                ],
            }
        })
        .collect()
}

/// How and on what the run was measured, as name and value.
fn facts(doc: &ResultDoc) -> Vec<(&'static str, String)> {
    let s = &doc.settings;
    let mut facts: Vec<(&'static str, String)> = vec![
        ("Profile", s.profile.clone()),
        ("Test file", format_size(s.file_size_bytes)),
        ("Pacing", iomark_profiles::describe::pacing(doc)),
        ("Engine", s.engine.clone()),
        ("I/O", iomark_profiles::describe::io_mode(doc)),
        ("Data", s.data.clone()),
    ];
    let h = &doc.host;
    facts.extend(h.board.clone().map(|b| ("Board", b)));
    facts.extend(h.cpu_model.clone().map(|c| ("CPU", c)));
    facts.push(("Architecture", h.arch.clone()));
    facts.extend(h.kernel.clone().map(|k| ("Kernel", k)));
    facts.extend(h.os.clone().map(|o| ("OS", o)));
    if let Some(d) = &doc.target.device {
        let name: Vec<&str> = [d.name.as_deref(), d.vendor.as_deref(), d.model.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        facts.push(("Device", name.join(" ")));
        facts.extend(d.transport.map(|t| ("Transport", t.to_string())));
        facts.extend(d.size_bytes.map(|b| ("Size", format_size(b))));
        if let Some(usb) = &d.usb {
            let link = usb
                .speed_mbps
                .map(|m| format!("{m} Mbps"))
                .unwrap_or_default();
            let driver = usb.driver.clone().unwrap_or_default();
            facts.push(("USB", format!("{link} {driver}").trim().to_string()));
        }
    }
    facts.extend(
        doc.target
            .mount_options
            .clone()
            .map(|m| ("Mount options", m)),
    );
    facts
}

/// An SVG document's `<?xml …?>` prolog, if any, does not belong inside HTML.
fn strip_prolog(svg: &str) -> &str {
    match svg.find("<svg") {
        Some(start) => &svg[start..],
        None => svg,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_is_escaped_everywhere() {
        let mut doc = iomark_result::result::sample::doc();
        doc.label = Some("<script>alert(1)</script> & \"x\"".into());
        doc.warnings.push(iomark_result::result::Warning {
            extra: Default::default(),
            kind: "k".into(),
            message: "<img src=x>".into(),
        });
        let html = String::from_utf8(Html.export(&doc).unwrap()).unwrap();
        assert!(!html.contains("<script"), "no script element may appear");
        assert!(!html.contains("<img"));
        assert!(
            html.contains("&#60;script&#62;alert(1)&#60;/script&#62; &#38; &#34;x&#34;"),
            "the label is shown, escaped"
        );
        // The only URL is the SVG namespace's: nothing is fetched.
        for (i, _) in html.match_indices("://") {
            assert!(html[..i].ends_with("http") && html[i..].starts_with("://www.w3.org/"));
        }
    }
}
