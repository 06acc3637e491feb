//! A report in one HTML file: the table, the charts as inline SVG, the settings, the host and
//! the device. No scripts, no fonts or styles from elsewhere: a Content-Security-Policy forbids
//! every request, so the file opens the same offline, from a mail or from a USB stick.

use std::fmt::Write as _;

use super::chart::{self, Kind};
use super::{figure, ExportError, Exporter};
use crate::result::{ResultDoc, TestResult};
use crate::units::{format_micros, format_size};

pub struct Html;

/// Escapes text for HTML element content and quoted attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2rem auto;max-width:960px;\
padding:0 1rem;color:#1d2127;background:#fff}\
h1,h2,p,dd,li,.warn{overflow-wrap:anywhere}h1{font-size:1.5rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #dde1e6}\
.sub{color:#5c5f66;margin-top:0}\
table{border-collapse:collapse;margin:.5rem 0;display:block;overflow-x:auto;max-width:100%}\
td,th{padding:.3rem .7rem;border-bottom:1px solid #eceef1}\
th{text-align:left;background:#f5f6f8}td.n{text-align:right;font-variant-numeric:tabular-nums}\
.read{color:#2b6cb0}.write{color:#d96c1e}\
.warn{background:#fff4e5;border-left:4px solid #d96c1e;padding:.5rem .8rem;margin:.5rem 0}\
figure.chart{margin:1rem 0}figure.chart svg{max-width:100%;height:auto}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{color:#5c5f66}dd{margin:0}\
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

impl Exporter for Html {
    fn export(&self, doc: &ResultDoc) -> Result<Vec<u8>, ExportError> {
        let mut out = String::new();
        let title = match &doc.label {
            Some(label) => format!("{label} · {}", doc.device_label()),
            None => doc.device_label(),
        };
        let _ = write!(
            out,
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
             <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
             <title>iomark: {}</title><style>{STYLE}</style></head><body>\n",
            escape(&title)
        );
        let s = &doc.settings;
        let _ = writeln!(out, "<h1>{}</h1>", escape(&title));
        let _ = writeln!(
            out,
            "<p class=\"sub\">{} · {} profile · {} on {} · iomark {}</p>",
            escape(&doc.started_at),
            escape(&s.profile),
            escape(&doc.target.path),
            escape(
                doc.target
                    .filesystem
                    .as_deref()
                    .unwrap_or("unknown filesystem")
            ),
            escape(&doc.tool.version)
        );
        if let Some(price) = doc.price_usd {
            let _ = writeln!(
                out,
                "<p class=\"sub\" id=\"price\">{}</p>",
                escape(&price_text(doc, price))
            );
        }
        for w in &doc.warnings {
            let _ = writeln!(out, "<div class=\"warn\">{}</div>", escape(&w.message));
        }

        out.push_str("<h2>Results</h2>\n<table id=\"results\"><thead><tr><th>Test</th>\
            <th class=\"read\">Read MB/s</th><th class=\"write\">Write MB/s</th>\
            <th class=\"read\">Read IOPS</th><th class=\"write\">Write IOPS</th>\
            <th class=\"read\">Read p99</th><th class=\"write\">Write p99</th></tr></thead><tbody>\n");
        for crate::result::TestRow {
            name: row,
            read,
            write,
        } in crate::result::rows(&doc.tests)
        {
            let cell = |t: Option<&TestResult>, f: &dyn Fn(&TestResult) -> String| {
                t.map(f).unwrap_or_else(|| "–".into())
            };
            let _ = writeln!(
                out,
                "<tr><th>{}</th><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                escape(&row.replace('_', " ")),
                cell(read, &|t| figure(t.mb_per_s)),
                cell(write, &|t| figure(t.mb_per_s)),
                cell(read, &|t| format!("{:.0}", t.iops)),
                cell(write, &|t| format!("{:.0}", t.iops)),
                cell(read, &|t| format_micros(t.latency_us.p99)),
                cell(write, &|t| format_micros(t.latency_us.p99)),
            );
        }
        out.push_str(
            "</tbody></table>\n<p class=\"sub\">MB/s is 10<sup>6</sup> bytes per second; \
            each figure is the median loop.</p>\n",
        );

        if let Some(section) = &doc.langs {
            let _ = writeln!(
                out,
                "<h2>One byte per call</h2>\n<p class=\"sub\">{} written and read per repetition, {} \
                 repetitions{}</p>\n<table id=\"langs\"><thead><tr><th>Language</th><th>Variant</th>\
                 <th class=\"write\">Write MB/s</th><th class=\"read\">Read MB/s</th><th>Write ns/B</th>\
                 <th>Read ns/B</th><th>Runtime</th></tr></thead><tbody>",
                format_size(section.bytes),
                section.reps,
                if section.reps > 1 { ", the first dropped" } else { "" }
            );
            for r in &section.results {
                let _ = writeln!(
                    out,
                    "<tr><th>{}</th><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                     <td class=\"n\">{:.2}</td><td class=\"n\">{:.2}</td><td>{}</td></tr>",
                    escape(&r.lang),
                    escape(&r.variant),
                    figure(r.write.mb_per_s),
                    figure(r.read.mb_per_s),
                    r.write.ns_per_byte,
                    r.read.ns_per_byte,
                    escape(&r.runtime)
                );
            }
            out.push_str("</tbody></table>\n");
        }
        out.push_str("<h2>Charts</h2>\n");
        let docs = [doc];
        for kind in [
            Kind::Bars,
            Kind::Timeline,
            Kind::Latency,
            Kind::Histogram,
            Kind::Sweep,
        ] {
            if chart::check(kind, &docs).is_err() {
                continue;
            }
            let svg = chart::svg(kind, &docs)?;
            let _ = writeln!(
                out,
                "<figure class=\"chart\" data-kind=\"{}\">{}</figure>",
                kind.name(),
                strip_prolog(&svg)
            );
        }

        out.push_str("<h2>Every test</h2>\n<table id=\"tests\"><thead><tr><th>Test</th><th>MB/s</th>\
            <th>IOPS</th><th>min</th><th>mean</th><th>p50</th><th>p99</th><th>p99.9</th><th>max</th>\
            <th>loops</th><th>CV</th></tr></thead><tbody>\n");
        for t in &doc.tests {
            let l = &t.latency_us;
            let _ = writeln!(
                out,
                "<tr><th>{}</th><td class=\"n\">{}</td><td class=\"n\">{:.0}</td><td class=\"n\">{}</td>\
                 <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
                 <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td></tr>",
                escape(&t.name),
                figure(t.mb_per_s),
                t.iops,
                format_micros(l.min),
                format_micros(l.mean),
                format_micros(l.p50),
                format_micros(l.p99),
                format_micros(l.p99_9),
                format_micros(l.max),
                t.loops.len(),
                escape(&t.spread_text())
            );
        }
        out.push_str("</tbody></table>\n");

        out.push_str("<h2>How it was measured</h2>\n<dl>\n");
        let mut facts: Vec<(&str, String)> = vec![
            ("Profile", s.profile.clone()),
            ("Test file", format_size(s.file_size_bytes)),
            (
                "Loops",
                format!(
                    "{} of {} s after {} s warm-up",
                    if s.loops_auto {
                        format!("3 to {} (auto)", s.loops)
                    } else {
                        s.loops.to_string()
                    },
                    s.duration_s,
                    s.warmup_s
                ),
            ),
            ("Engine", s.engine.clone()),
            (
                "I/O",
                if s.direct {
                    "direct (O_DIRECT)".into()
                } else {
                    "buffered".into()
                },
            ),
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
            facts.extend(d.transport.clone().map(|t| ("Transport", t)));
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
        for (k, v) in facts {
            let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", escape(k), escape(&v));
        }
        out.push_str("</dl>\n");
        if let Some(score) = &doc.score {
            let pretty = serde_json::to_string_pretty(score)
                .map_err(|e| ExportError::Encode(e.to_string()))?;
            let _ = writeln!(
                out,
                "<h2>Score</h2>\n<pre id=\"score\">{}</pre>",
                escape(&pretty)
            );
        }
        let _ = writeln!(
            out,
            "<footer>Run {} · made by iomark {} · every figure can be checked with fio \
             (<code>iomark run --print-fio</code>)</footer>\n</body></html>",
            escape(&doc.id),
            escape(&doc.tool.version)
        );
        Ok(out.into_bytes())
    }
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
        let mut doc = crate::result::sample::doc();
        doc.label = Some("<script>alert(1)</script> & \"x\"".into());
        doc.warnings.push(crate::result::Warning {
            extra: Default::default(),
            kind: "k".into(),
            message: "<img src=x>".into(),
        });
        let html = String::from_utf8(Html.export(&doc).unwrap()).unwrap();
        assert!(!html.contains("<script"), "no script element may appear");
        assert!(!html.contains("<img"));
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;"));
        // The only URL is the SVG namespace's: nothing is fetched.
        for (i, _) in html.match_indices("://") {
            assert!(html[..i].ends_with("http") && html[i..].starts_with("://www.w3.org/"));
        }
    }
}
