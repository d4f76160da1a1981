// SPDX-License-Identifier: GPL-3.0-or-later
//! Offline reports (`format=html` on a permalink, a trend and a regression report): one
//! self-contained HTML file — inline CSS and SVG, no script, no external request (its own
//! Content-Security-Policy says so) — to attach to a mail or archive with a bug.

/// Text made safe inside HTML elements and attribute values.
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

/// One part of a document.
pub enum Part {
    Heading(String),
    Paragraph(String),
    /// Preformatted text (tables, ASCII charts, reports).
    Pre(String),
    /// An SVG document drawn by Perfline (plotters escapes the text in it).
    Svg(String),
    /// A labelled link (shown, never followed by the document itself).
    Link(String, String),
    /// `key: value` lines.
    Facts(Vec<(String, String)>),
}

const STYLE: &str = "body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:1100px;color:#1b1f23;padding:0 1rem}\
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:1.6rem}\
pre{background:#f6f8fa;border:1px solid #d8dde3;border-radius:6px;padding:.8rem;overflow-x:auto;font-size:12px}\
svg{max-width:100%;height:auto;border:1px solid #d8dde3;border-radius:6px}\
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}\
.muted{color:#57606a}";

/// The whole document.
pub fn document(title: &str, parts: &[Part]) -> String {
    let mut out = String::from("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    // Nothing outside this file may load, whatever opens it.
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str(&format!(
        "<title>{}</title><style>{STYLE}</style></head><body>",
        escape(title)
    ));
    out.push_str(&format!("<h1>{}</h1>", escape(title)));
    for part in parts {
        match part {
            Part::Heading(h) => out.push_str(&format!("<h2>{}</h2>", escape(h))),
            Part::Paragraph(p) => out.push_str(&format!("<p>{}</p>", escape(p))),
            Part::Pre(t) => out.push_str(&format!("<pre>{}</pre>", escape(t))),
            Part::Svg(svg) => {
                // The XML declaration is not allowed inside HTML.
                let body = svg.trim_start();
                let body = match body.strip_prefix("<?xml") {
                    Some(rest) => rest.split_once("?>").map_or(body, |(_, r)| r),
                    None => body,
                };
                out.push_str("<figure>");
                out.push_str(body);
                out.push_str("</figure>");
            }
            Part::Link(label, url) => out.push_str(&format!(
                "<p>{}: <a href=\"{}\">{}</a></p>",
                escape(label),
                escape(url),
                escape(url)
            )),
            Part::Facts(facts) => {
                out.push_str("<dl>");
                for (k, v) in facts {
                    out.push_str(&format!("<dt>{}</dt><dd>{}</dd>", escape(k), escape(v)));
                }
                out.push_str("</dl>");
            }
        }
    }
    out.push_str(&format!(
        "<p class=\"muted\">Made by Perfline {} — a self-contained copy: no script, nothing loaded from elsewhere.</p></body></html>\n",
        env!("CARGO_PKG_VERSION")
    ));
    out
}

/// The site's own style sheet, inlined in documents that are a page saved (both themes).
const SITE_STYLE: &str = include_str!("../../../style/main.css");

/// A page saved as one file: `body` is HTML the app rendered (its text escaped there), styled
/// by the site's own sheet, under the same policy as [`document`] (no script, nothing loaded).
pub fn page_document(title: &str, body: &str) -> String {
    let mut out = String::with_capacity(body.len() + SITE_STYLE.len() + 1024);
    out.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">");
    out.push_str("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">");
    out.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    out.push_str(&format!(
        "<title>{}</title><style>{SITE_STYLE}</style></head><body><main>",
        escape(title)
    ));
    out.push_str(body);
    out.push_str(&format!(
        "<p class=\"muted\">Made by Perfline {} — a self-contained copy: no script, nothing loaded from elsewhere.</p></main></body></html>\n",
        env!("CARGO_PKG_VERSION")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_text_is_escaped_and_nothing_external_is_referenced() {
        let doc = document(
            "<script>alert(1)</script>",
            &[
                Part::Pre("a < b & \"c\"".into()),
                Part::Svg(
                    "<?xml version=\"1.0\"?><svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"
                        .into(),
                ),
            ],
        );
        assert!(!doc.contains("<script>"), "{doc}");
        assert!(doc.contains("a &lt; b &amp; &quot;c&quot;"));
        assert!(!doc.contains("<?xml"));
        assert!(!doc.contains(" src="), "no external resource: {doc}");
    }
}
