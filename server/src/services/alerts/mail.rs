// SPDX-License-Identifier: GPL-3.0-or-later
//! The mail of a summary, in the LKP robot's form: plain text, lines of at most 80 columns
//! where the tables allow, threaded by `Message-ID` and `In-Reply-To`.

use app::alerts::{AlertEvent, AlertSummary};

/// Where a summary's pages are, under the server's public URL.
pub struct Links {
    pub alert: String,
    pub trend: Option<String>,
    pub compare: String,
    pub report: Option<String>,
}

impl Links {
    pub fn new(origin: &str, s: &AlertSummary) -> Links {
        Links {
            alert: format!("{origin}/alerts?id={}", s.id),
            trend: s
                .lead()
                .map(|a| format!("{origin}/trend?{}", s.trend_query(a))),
            compare: format!("{origin}/compare?{}", s.compare_query()),
            report: s
                .report_query()
                .map(|q| format!("{origin}/api/v1/report?{q}")),
        }
    }
}

/// The `Message-ID` of a summary's first mail; updates name it in `In-Reply-To`.
pub fn thread_id(summary_id: i64, host: &str) -> String {
    format!("<perfline-alert-{summary_id}@{host}>")
}

/// The host part of message ids: the public URL's host.
pub fn host_of(origin: &str) -> String {
    let rest = origin.split_once("://").map_or(origin, |(_, r)| r);
    let host = rest.split(['/', ':']).next().unwrap_or("localhost");
    if host.is_empty() {
        "localhost".into()
    } else {
        host.to_owned()
    }
}

/// The table of a summary's changed metrics, one line each (≤ 80 columns but for very long
/// metric names).
pub fn alert_table(s: &AlertSummary) -> String {
    let mut out = format!(
        "{:<34} {:>12} {:>12} {:>8} {:>9}\n",
        "metric", "before", "after", "change", "p-value"
    );
    for a in &s.alerts {
        let mut title = a.title();
        if let Some(u) = &a.unit {
            title.push_str(&format!(" ({u})"));
        }
        out.push_str(&format!(
            "{:<34} {:>12} {:>12} {:>7.1}% {:>9}\n",
            title,
            number(a.before),
            number(a.after),
            a.change_pct,
            format!("{:.4}", a.p_value),
        ));
    }
    out
}

fn number(v: f64) -> String {
    if v.abs() >= 1e6 || (v != 0.0 && v.abs() < 1e-3) {
        format!("{v:.4e}")
    } else {
        format!("{v:.2}")
    }
}

/// The body of the first mail of a summary: what changed, where to bisect, the links, then
/// the report of `/api/v1/report` when both commits are known. Lines stay within 80 columns
/// but for URLs (alone on their lines) and the report's own tables.
pub fn new_summary_body(s: &AlertSummary, links: &Links, report: Option<&str>) -> String {
    let mut out = String::from("Greeting,\n\n");
    match s.lead() {
        Some(lead) => out.push_str(&format!(
            "FYI, Perfline noticed a {:+.1}% {} of {}\non {} at {}.\n\n",
            lead.change_pct,
            lead.verdict(),
            app::alerts::series_name(&s.benchmark, &lead.title()),
            s.machine,
            s.bad.name()
        )),
        None => out.push_str(&format!(
            "Perfline noticed a change of {} on {} at {}.\n\n",
            s.benchmark,
            s.machine,
            s.bad.name()
        )),
    }
    out.push_str(&format!(
        "last good: {} (kernel {})\nfirst bad: {} (kernel {})\n",
        s.good.name(),
        s.good.kernel,
        s.bad.name(),
        s.bad.kernel
    ));
    if let Some(h) = &s.history {
        out.push_str(&format!("history:   {h}\n"));
    }
    out.push('\n');
    out.push_str(&alert_table(s));
    if let Some(c) = &s.confirmation {
        out.push_str("\nConfirmation:\n");
        out.push_str(&wrap(c, 78, "  "));
    }
    out.push_str("\nTo bisect:\n");
    match s.bisect_command(true) {
        Some(command) => {
            out.push_str(&format!("  {command}\n"));
            let distance = s.bisect_distance();
            out.push_str(&wrap(distance.trim_start_matches([';', ' ']), 78, "  "));
        }
        None => out.push_str(&wrap(&s.bisect_versions(), 78, "  ")),
    }
    // Links on lines of their own: a URL is never broken, whatever its length.
    out.push_str(&format!("\nThis alert:\n  {}\n", links.alert));
    if let Some(t) = &links.trend {
        out.push_str(&format!(
            "The trend, the commit range highlighted:\n  {t}\n"
        ));
    }
    out.push_str(&format!("Before and after:\n  {}\n", links.compare));
    if let Some(r) = &links.report {
        out.push_str(&format!("The report below:\n  {r}\n"));
    }
    if let Some(report) = report {
        out.push_str("\n\n");
        out.push_str(report);
    }
    out.push_str("\n-- \nPerfline: triage this alert at the link above (keys a, i, f).\n");
    out
}

/// The mail of a bisection that found the culprit, in the LKP robot's form (seed 001): the
/// regression "due to commit", the commit and its subject, the testcase and machine, how the
/// bisection decided, and the report of the culprit against its parent (the `%stddev
/// %change %stddev` table and the ASCII trends with the bisect marks).
pub fn culprit_body(
    s: &AlertSummary,
    b: &app::bisection::Bisection,
    links: &Links,
    origin: &str,
    report: Option<&str>,
) -> String {
    let mut out = String::from("Greeting,\n\n");
    match report {
        // The report is the robot's mail already: the headline, the commit, the table and
        // the ASCII trends, of the culprit against its parent.
        Some(report) => {
            out.push_str(report.trim_end());
            out.push_str("\n\n");
        }
        None => {
            let culprit = b.culprit.as_deref().unwrap_or("");
            if let Some(lead) = s.lead() {
                out.push_str(&format!(
                    "FYI, we noticed a {:+.1}% {} of {} due to commit:\n\n",
                    lead.change_pct,
                    lead.verdict(),
                    app::alerts::series_name(&s.benchmark, &lead.title())
                ));
            }
            out.push_str(&format!(
                "commit: {culprit}{}\nin testcase: {}\non test machine: {}\n\n",
                b.culprit_subject
                    .as_deref()
                    .map(|x| format!(" (\"{x}\")"))
                    .unwrap_or_default(),
                s.benchmark,
                s.machine,
            ));
        }
    }
    out.push_str(&wrap(
        &format!(
            "Perfline bisected it in {} (bisection {}): {} commits tested in {} runs, each called good or bad by a sequential test through the noise:",
            b.history,
            b.id,
            b.tested.len(),
            b.runs_total
        ),
        78,
        "",
    ));
    for t in &b.tested {
        out.push_str(&format!(
            "  {} {:<4} {:>10} ({} run{}{})\n",
            app::text::short_commit(&t.commit),
            t.verdict,
            t.mean.map_or("-".to_owned(), |m| format!("{m:.4}")),
            t.runs,
            if t.runs == 1 { "" } else { "s" },
            if t.forced { ", at the run cap" } else { "" }
        ));
    }
    if let Some(why) = &b.suspicious {
        out.push('\n');
        out.push_str(&wrap(&format!("Note: {why}"), 78, ""));
    }
    out.push_str(&format!(
        "\nThe bisection log, for git bisect replay:\n  {origin}/api/v1/bisections/{}/log\n",
        b.id
    ));
    out.push_str(&format!("This alert:\n  {}\n", links.alert));
    if let Some(t) = &links.trend {
        out.push_str(&format!("The trend, the bisect marks on it:\n  {t}\n"));
    }
    out.push_str("\n-- \nPerfline\n");
    out
}

/// The body of an update: who changed what.
pub fn event_body(s: &AlertSummary, e: &AlertEvent, links: &Links) -> String {
    if e.kind == "bisected" {
        return format!(
            "{} bisected this alert to its first bad commit: {}\n\n{}\n\nAlert: {}\n",
            e.actor,
            s.bad.sha.as_deref().unwrap_or(&s.bad.kernel),
            s.subject(),
            links.alert
        );
    }
    let mut out = format!(
        "{} set this alert to {}{}.\n",
        e.actor,
        e.status,
        if e.assignee.is_empty() {
            String::new()
        } else {
            format!(", assigned to {}", e.assignee)
        }
    );
    if !e.note.is_empty() {
        out.push_str("\nNote:\n");
        out.push_str(&wrap(&e.note, 78, "  "));
    }
    if let Some(f) = s.fixed_by {
        out.push_str(&format!("\nFixed by alert summary {f}.\n"));
    }
    out.push_str(&format!("\n{}\n\nAlert: {}\n", s.subject(), links.alert));
    out
}

/// `text` broken at spaces into lines of at most `width` columns (a longer word stays whole),
/// each starting with `indent`.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let mut out = String::new();
    for paragraph in text.lines() {
        let mut line = String::from(indent);
        for word in paragraph.split_whitespace() {
            if line.len() > indent.len() && line.len() + 1 + word.len() > width {
                out.push_str(line.trim_end());
                out.push('\n');
                line = String::from(indent);
            }
            if line.len() > indent.len() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_lines_within_the_width() {
        let text = "git bisect start aaaaaaaaaaaa bbbbbbbbbbbb; 41 commits between them in linux/master (about 6 steps)";
        let w = wrap(text, 40, "  ");
        assert!(w.lines().all(|l| l.len() <= 40), "{w}");
        assert_eq!(
            w.split_whitespace().collect::<Vec<_>>(),
            text.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(host_of("https://perf.example.org:8443"), "perf.example.org");
        assert_eq!(host_of("http://127.0.0.1:3000"), "127.0.0.1");
    }
}
