// SPDX-License-Identifier: GPL-3.0-or-later
//! The kernel test robot's (LKP, 0-day) performance report mails as data: a mail's MIME
//! decoded ([`decode`]), an mbox split into its mails ([`split_mbox`]), a report body parsed
//! ([`parse_report`]) into its header (headline, commit, testcase, machine, parameters,
//! bracket notes, the "also has significant impact" box) and its detail sections, each with
//! its axis, its commits and the lkp-tests comparison table as cells; and a section printed
//! back from those cells ([`Section::text`]), byte for byte the mail's own text from its
//! `commit:` block through its last table row.
//!
//! The table layout is lkp-tests' `compare.rb` (`show_perf_change`, `show_failure_change`,
//! their headers): fixed widths of 10 for a value, 6 for ` ±NN%`, 10 for a change, a column
//! header of 16 and then 27 characters. The cells are kept as printed (a value `5.698e+09`,
//! a change `+11.3%` or, for metrics that are percentages, `-0.4`), so printing them again
//! needs no guess at how lkp-tests rounded. Both layouts of the robot's mails are read: 2019-
//! 2022 (`FYI, we noticed a -6.3% regression of M due to commit:`, `in testcase:`, `on test
//! machine:`, `with following parameters:`) and 2023 on (`kernel test robot noticed a ...
//! on:`, `testcase:`, `test machine:`, `parameters:`).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

pub use app::reports::BisectSamples;

/// A mail's headers and its first `text/plain` part, MIME-decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Mail {
    /// Without the angle brackets.
    pub message_id: Option<String>,
    pub subject: Option<String>,
    pub date: Option<String>,
    pub from: Option<String>,
    pub body: String,
}

/// Decodes one RFC 5322 message: headers, then the first `text/plain` part (or a bare body),
/// its transfer encoding and charset undone.
pub fn decode(raw: &[u8]) -> Result<Mail, String> {
    let parsed = mailparse::parse_mail(raw).map_err(|e| format!("not a mail: {e}"))?;
    let header = |name: &str| {
        parsed
            .headers
            .iter()
            .find(|h| h.get_key_ref().eq_ignore_ascii_case(name))
            .map(|h| h.get_value().trim().to_owned())
    };
    let text = first_text_part(&parsed).ok_or("the mail has no text/plain part")?;
    // A body labelled ISO-8859-1 whose bytes are UTF-8 (a mail saved again by a tool that
    // converted it, a careless client) is read as UTF-8: `±` is two bytes there, and read as
    // Latin-1 it would be `Â±`, which no table has. Latin-1 text that is also valid UTF-8
    // with a byte above 127 is all but impossible.
    let raw_body = text
        .get_body_raw()
        .map_err(|e| format!("the text part cannot be decoded: {e}"))?;
    let latin1 = matches!(
        text.ctype.charset.to_ascii_lowercase().as_str(),
        "iso-8859-1" | "latin1" | "windows-1252" | "us-ascii"
    );
    let body = match std::str::from_utf8(&raw_body) {
        Ok(utf8) if latin1 && !utf8.is_ascii() => utf8.to_owned(),
        _ => text
            .get_body()
            .map_err(|e| format!("the text part cannot be decoded: {e}"))?,
    };
    Ok(Mail {
        message_id: header("Message-ID").map(|v| v.trim_matches(['<', '>']).to_owned()),
        subject: header("Subject"),
        date: header("Date"),
        from: header("From"),
        body,
    })
}

fn first_text_part<'a>(m: &'a mailparse::ParsedMail<'a>) -> Option<&'a mailparse::ParsedMail<'a>> {
    if m.subparts.is_empty() {
        let t = m.ctype.mimetype.to_ascii_lowercase();
        return (t == "text/plain" || t.is_empty()).then_some(m);
    }
    m.subparts.iter().find_map(first_text_part)
}

/// The mails of an mbox (`From ` lines at the start of the file or after a blank line start a
/// mail; the `From ` line itself is not part of it). Bytes that do not start with `From ` are
/// one mail.
pub fn split_mbox(raw: &[u8]) -> Vec<&[u8]> {
    if !raw.starts_with(b"From ") {
        return vec![raw];
    }
    let mut starts = vec![0];
    let mut i = 0;
    while let Some(off) = memchr::memmem::find(&raw[i..], b"\n\nFrom ") {
        starts.push(i + off + 2);
        i += off + 2;
    }
    starts
        .iter()
        .enumerate()
        .map(|(k, &s)| {
            let end = starts.get(k + 1).map_or(raw.len(), |&e| e - 1);
            let mail = &raw[s..end];
            // Drop the `From ` separator line.
            memchr::memchr(b'\n', mail).map_or(&mail[mail.len()..], |nl| &mail[nl + 1..])
        })
        .collect()
}

/// Regression or improvement, as the headline says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Regression,
    Improvement,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Regression => "regression",
            Kind::Improvement => "improvement",
        }
    }
}

/// One report mail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub kind: Kind,
    /// The headline's metric, e.g. `netperf.Throughput_Mbps`.
    pub kpi: String,
    /// The headline's change as printed (`-6.3%`; unsigned in mails from late 2024).
    pub change: String,
    /// The tested commit, as printed on the header's `commit:` line.
    pub commit: String,
    pub commit_subject: Option<String>,
    pub testcase: String,
    pub machine: String,
    /// The `parameters:` lines, as `key: value`.
    pub parameters: Vec<(String, String)>,
    /// `[still regression on ...]`, `[test failed on ...]`.
    pub notes: Vec<String>,
    /// The "also has significant impact on the following tests" box: one entry per test.
    pub also: Vec<AlsoTest>,
    pub sections: Vec<Section>,
    /// The samples of the ASCII plots under the first table (mails until about 2021).
    #[serde(default)]
    pub plots: Vec<BisectSamples>,
}

/// One row group of the "also has significant impact" box.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AlsoTest {
    pub testcase: String,
    pub kpi: String,
    pub change: String,
    pub kind: Kind,
    pub machine: String,
    pub parameters: Vec<String>,
}

/// One detail section: the axis line, the commits compared and the table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// `lkp-emr-2sp1: 256 threads ...` above sections after the first.
    pub tbox: Option<String>,
    /// The axis keys line without its colon, and the values line.
    pub axis_keys: String,
    pub axis_values: String,
    pub commits: Vec<CommitRef>,
    /// The table's column headers (16, then 27 characters of each commit), as printed.
    pub columns: Vec<String>,
    pub blocks: Vec<Block>,
}

/// A commit of a `commit:` block: a hash or tag, and its subject where printed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommitRef {
    pub id: String,
    pub subject: Option<String>,
}

/// A table block: the `fail:runs %reproduction` rows or the `%stddev %change` rows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "kind", content = "rows")]
pub enum Block {
    Failure(Vec<FailureRow>),
    Perf(Vec<PerfRow>),
}

/// A change between two columns as printed: signed, without its `%` (`pct`) when relative.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub text: String,
    pub pct: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfRow {
    pub metric: String,
    pub cells: Vec<PerfCell>,
    /// One per column after the first.
    pub changes: Vec<Change>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PerfCell {
    /// The mean as printed (`85540`, `210.66`, `5.698e+09`).
    pub value: String,
    /// The relative standard deviation in percent, where printed (above 2 %).
    pub stddev_pct: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FailureRow {
    pub metric: String,
    pub cells: Vec<FailCell>,
    pub changes: Vec<Change>,
}

/// `fails:runs` of one column; the count is blank (`None`) where lkp-tests printed none.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FailCell {
    pub fails: Option<u32>,
    pub runs: u32,
}

impl PerfCell {
    pub fn mean(&self) -> Option<f64> {
        self.value.parse().ok()
    }
}

impl Change {
    pub fn value(&self) -> Option<f64> {
        self.text.parse().ok()
    }
}

const FIRST_WIDTH: usize = 16;
const WIDTH: usize = 27;

impl Section {
    /// The section as the mail prints it, from `commit:` through its last table row (each
    /// line ending in `\n`).
    pub fn text(&self) -> String {
        let mut out = String::from("commit: \n");
        for c in &self.commits {
            out.push_str("  ");
            out.push_str(&c.id);
            if let Some(s) = &c.subject {
                let _ = write!(out, " (\"{s}\")");
            }
            out.push('\n');
        }
        out.push('\n');
        let n = self.columns.len().saturating_sub(1);
        for (i, c) in self.columns.iter().enumerate() {
            let w = if i == 0 { FIRST_WIDTH } else { WIDTH };
            let _ = write!(out, "{c:>w$} ");
        }
        out.push('\n');
        out.push_str(&"-".repeat(FIRST_WIDTH));
        out.push(' ');
        for _ in 0..n {
            out.push_str(&"-".repeat(WIDTH));
            out.push(' ');
        }
        out.push('\n');
        for b in &self.blocks {
            match b {
                Block::Failure(rows) => {
                    out.push_str(&failure_header(n));
                    for r in rows {
                        for (i, c) in r.cells.iter().enumerate() {
                            if i > 0 {
                                push_change(&mut out, &r.changes[i - 1]);
                            }
                            match c.fails {
                                None => out.push_str(&" ".repeat(11)),
                                Some(f) => {
                                    let _ = write!(out, "{f:>11}");
                                }
                            }
                            let _ = write!(out, ":{:<4}", c.runs);
                        }
                        let _ = writeln!(out, "  {}", r.metric);
                    }
                }
                Block::Perf(rows) => {
                    out.push_str(&perf_header(n));
                    for r in rows {
                        for (i, c) in r.cells.iter().enumerate() {
                            if i > 0 {
                                push_change(&mut out, &r.changes[i - 1]);
                            }
                            let _ = write!(out, "{:>10}", c.value);
                            match c.stddev_pct {
                                Some(p) => {
                                    let _ = write!(out, " ±{p:>3}%");
                                }
                                None => out.push_str("      "),
                            }
                        }
                        let _ = writeln!(out, "  {}", r.metric);
                    }
                }
            }
        }
        out
    }

    /// The testcase: the axis' `testcase` value.
    pub fn testcase(&self) -> Option<&str> {
        self.axis("testcase")
    }

    /// One axis value by its key (`tbox_group`, `testcase`, ...).
    pub fn axis(&self, key: &str) -> Option<&str> {
        let k = self.axis_keys.split('/').position(|k| k == key)?;
        self.axis_values.split('/').nth(k)
    }
}

fn push_change(out: &mut String, c: &Change) {
    let _ = write!(out, "{:>10}{} ", c.text, if c.pct { "%" } else { " " });
}

fn perf_header(n: usize) -> String {
    format!(
        "         %stddev{}\n             \\  {}\n",
        "     %change         %stddev".repeat(n),
        "        |                \\  ".repeat(n)
    )
}

fn failure_header(n: usize) -> String {
    format!(
        "       fail:runs{}\n           |    {}\n",
        "  %reproduction    fail:runs".repeat(n),
        "         |             |    ".repeat(n)
    )
}

/// Parses a report mail's body (MIME-decoded text). A body that is not an LKP performance
/// report is refused with the reason.
pub fn parse_report(body: &str) -> Result<Report, String> {
    let lines: Vec<&str> = body.lines().collect();
    let quoted = |l: &str| l.trim_start().starts_with('>');
    let Some((kind, change, kpi)) = lines
        .iter()
        .filter(|l| !quoted(l))
        .find_map(|l| headline(l))
    else {
        if lines.iter().any(|l| quoted(l) && headline(l).is_some()) {
            return Err(
                "a reply that quotes a robot's report (its lines start with \">\"), not the report: \
                 upload the robot's own mail"
                    .into(),
            );
        }
        return Err(
            "no \"we noticed a ... regression/improvement of\" headline: not an LKP performance report"
                .into(),
        );
    };
    let (commit, commit_subject) = lines
        .iter()
        .find_map(|l| {
            let rest = l.strip_prefix("commit: ")?.trim();
            let (id, subject) = commit_ref(rest);
            (!id.is_empty()).then_some((id, subject))
        })
        .ok_or("no \"commit: <sha>\" line")?;
    let value_of = |prefixes: &[&str]| {
        lines.iter().find_map(|l| {
            prefixes
                .iter()
                .find_map(|p| l.strip_prefix(p).map(|v| v.trim().to_owned()))
        })
    };
    let testcase = value_of(&["in testcase: ", "testcase: "]).ok_or("no testcase line")?;
    let machine =
        value_of(&["on test machine: ", "test machine: "]).ok_or("no test machine line")?;
    let parameters = parameters(&lines);
    let notes = lines
        .iter()
        .filter(|l| {
            l.starts_with('[')
                && l.ends_with(']')
                && (l.contains("regression on")
                    || l.contains("failed on")
                    || l.contains("improvement on"))
        })
        .map(|l| (*l).to_owned())
        .collect();
    let also = also_box(&lines);
    let sections = sections(&lines)?;
    if sections.is_empty() {
        return Err("no comparison table (\"commit:\" block with %stddev rows)".into());
    }
    Ok(Report {
        kind,
        kpi,
        change,
        commit,
        commit_subject,
        testcase,
        machine,
        parameters,
        notes,
        also,
        sections,
        plots: plots(&lines),
    })
}

/// The most lines between a plot's top and bottom frame.
const MAX_PLOT_ROWS: usize = 80;

/// The samples of every ASCII plot in a body: gnuplot's dumb terminal, as lkp-tests drew the
/// bisect-good (`+`) and bisect-bad (`O`) samples of a metric, titled by the metric above the
/// frame, the y axis labelled at the tick rows (`+-+`, `|-+`). A sample's value is its row's,
/// interpolated between the labels; a sample on the frame (drawn over its top or bottom line)
/// is the frame's value. Line segments (`.`, `:`) are not samples.
pub fn plots(lines: &[&str]) -> Vec<BisectSamples> {
    let mut out = Vec::new();
    // Each line looked at once, however many frame-like lines a hostile body has.
    let frames: Vec<Option<(usize, usize)>> = lines.iter().map(|l| frame(l)).collect();
    let mut i = 0;
    while i < lines.len() {
        let Some((left, right)) = frames[i] else {
            i += 1;
            continue;
        };
        let bottom =
            (i + 1..lines.len().min(i + MAX_PLOT_ROWS)).find(|&j| frames[j] == Some((left, right)));
        let Some(bottom) = bottom else {
            i += 1;
            continue;
        };
        if let Some(p) = plot(lines, i, bottom, left, right) {
            out.push(p);
        }
        i = bottom + 1;
    }
    out
}

/// A plot's frame line (`  89000 +-+------...---+`, `  1580 +------...---+`): the columns of
/// its two corners.
fn frame(line: &str) -> Option<(usize, usize)> {
    // Every line of every mail comes here: most leave before anything is allocated.
    let line = line.trim_end();
    if !line.ends_with(['+', 'O']) || !line.contains("---") {
        return None;
    }
    let chars: Vec<char> = line.chars().collect();
    // The corner: the first `+` after the label (whose `1e+06` has one too), or a sample's
    // `O` drawn over it.
    let left = (0..chars.len())
        .find(|&i| matches!(chars[i], '+' | 'O') && (i == 0 || chars[i - 1] == ' '))?;
    let right = chars.len().checked_sub(1)?;
    let inside = &chars[left..=right];
    let dashes = inside.iter().filter(|c| **c == '-').count();
    let ok = right > left + 20
        && matches!(chars[right], '+' | 'O')
        && dashes * 2 > inside.len()
        && inside.iter().all(|c| matches!(c, '+' | '-' | 'O'))
        && chars[..left]
            .iter()
            .all(|c| c.is_ascii_digit() || matches!(c, ' ' | '.' | 'e' | '+' | '-'));
    ok.then_some((left, right))
}

fn plot(
    lines: &[&str],
    top: usize,
    bottom: usize,
    left: usize,
    right: usize,
) -> Option<BisectSamples> {
    let rows: Vec<Vec<char>> = lines[top..=bottom]
        .iter()
        .map(|l| l.chars().collect())
        .collect();
    // The y axis: each labelled row's value.
    let labels: Vec<(usize, f64)> = rows
        .iter()
        .enumerate()
        .filter_map(|(r, row)| {
            let label: String = row.iter().take(left).collect();
            Some((r, label.trim().parse::<f64>().ok()?))
        })
        .collect();
    if labels.len() < 2 || labels.first()?.1 == labels.last()?.1 {
        return None;
    }
    // Between two labelled rows, linearly: gnuplot puts its ticks on the nearest row, so
    // the rows between ticks are not all the same height.
    let value = |r: usize| {
        let k = labels
            .windows(2)
            .position(|w| r <= w[1].0)
            .unwrap_or(labels.len() - 2);
        let ((ra, va), (rb, vb)) = (labels[k], labels[k + 1]);
        va + (r as f64 - ra as f64) * (vb - va) / (rb - ra) as f64
    };
    let row_step = labels
        .windows(2)
        .map(|w| ((w[1].1 - w[0].1) / (w[1].0 - w[0].0) as f64).abs())
        .fold(0.0, f64::max);
    let mut good: Vec<(usize, usize)> = Vec::new();
    let mut bad: Vec<(usize, usize)> = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        let edge = r == 0 || r + 1 == rows.len();
        let at = |c: usize| row.get(c).copied().unwrap_or(' ');
        // `+-+` / `|-+` at the left and `+-+` / `+-|` at the right are ticks, not samples.
        let tick = |c: usize| {
            (c == left || c == left + 2) && at(left + 1) == '-' && at(left + 2) == '+'
                || (c == right || c == right.wrapping_sub(2))
                    && at(right.wrapping_sub(1)) == '-'
                    && at(right.wrapping_sub(2)) == '+'
        };
        for c in left..=right {
            match at(c) {
                'O' => bad.push((c, r)),
                // A `+` on the frame's top or bottom line is a sample, but for the corners.
                '+' if !tick(c) && !(edge && (c == left || c == right)) => good.push((c, r)),
                _ => {}
            }
        }
    }
    if good.is_empty() && bad.is_empty() {
        return None;
    }
    good.sort_unstable();
    bad.sort_unstable();
    let title = lines[top.saturating_sub(3)..top]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .filter(|l| !l.contains(' '))
        .unwrap_or("")
        .to_owned();
    Some(BisectSamples {
        metric: title,
        good: good.iter().map(|&(_, r)| value(r)).collect(),
        bad: bad.iter().map(|&(_, r)| value(r)).collect(),
        row_step,
    })
}

/// `(kind, change, metric)` of a headline line.
fn headline(l: &str) -> Option<(Kind, String, String)> {
    let at = l.find("noticed a ")?;
    let rest = &l[at + "noticed a ".len()..];
    let (change, rest) = rest.split_once(' ')?;
    let (kind, rest) = if let Some(r) = rest.strip_prefix("regression of ") {
        (Kind::Regression, r)
    } else if let Some(r) = rest.strip_prefix("improvement of ") {
        (Kind::Improvement, r)
    } else {
        return None;
    };
    let kpi = rest
        .strip_suffix(" due to commit:")
        .or_else(|| rest.strip_suffix(" on:"))
        .unwrap_or(rest)
        .trim();
    (change.ends_with('%') && !kpi.is_empty()).then(|| (kind, change.to_owned(), kpi.to_owned()))
}

/// `id ("subject")` or a bare `id`.
fn commit_ref(s: &str) -> (String, Option<String>) {
    match s
        .split_once(" (\"")
        .and_then(|(id, rest)| Some((id, rest.strip_suffix("\")")?)))
    {
        Some((id, subject)) => (id.to_owned(), Some(subject.to_owned())),
        None => (s.to_owned(), None),
    }
}

fn parameters(lines: &[&str]) -> Vec<(String, String)> {
    let Some(start) = lines
        .iter()
        .position(|l| *l == "with following parameters:" || *l == "parameters:")
    else {
        return Vec::new();
    };
    lines[start + 1..]
        .iter()
        .skip_while(|l| l.trim().is_empty())
        .take_while(|l| l.starts_with('\t') || l.starts_with("  "))
        .filter_map(|l| {
            let (k, v) = l.trim().split_once(':')?;
            Some((k.trim().to_owned(), v.trim().to_owned()))
        })
        .collect()
}

fn also_box(lines: &[&str]) -> Vec<AlsoTest> {
    let mut out: Vec<AlsoTest> = Vec::new();
    let mut field = "";
    for l in lines {
        let Some(inner) = l.strip_prefix('|').and_then(|l| l.strip_suffix('|')) else {
            continue;
        };
        let Some((label, value)) = inner.split_once('|') else {
            continue;
        };
        let (label, value) = (label.trim(), value.trim());
        if !label.is_empty() {
            field = label;
        }
        match field {
            "testcase: change" if !label.is_empty() => {
                // `stress-ng: stress-ng.mmapfork.ops_per_sec  63.5% regression`
                let Some((testcase, rest)) = value.split_once(": ") else {
                    continue;
                };
                let words: Vec<&str> = rest.split_whitespace().collect();
                let [kpi, change, kind] = words[..] else {
                    continue;
                };
                let kind = match kind {
                    "regression" => Kind::Regression,
                    "improvement" => Kind::Improvement,
                    _ => continue,
                };
                out.push(AlsoTest {
                    testcase: testcase.to_owned(),
                    kpi: kpi.to_owned(),
                    change: change.to_owned(),
                    kind,
                    machine: String::new(),
                    parameters: Vec::new(),
                });
            }
            "test machine" => {
                if let Some(t) = out.last_mut() {
                    t.machine = value.to_owned();
                }
            }
            "test parameters" => {
                if let Some(t) = out.last_mut() {
                    t.parameters.push(value.to_owned());
                }
            }
            _ => {}
        }
    }
    out
}

fn sections(lines: &[&str]) -> Result<Vec<Section>, String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        // A detail section's `commit:` line stands alone (`commit: ` with lkp's space).
        if lines[i].trim_end() != "commit:" {
            i += 1;
            continue;
        }
        let start = i;
        let (section, end) = section_at(lines, start)
            .map_err(|e| format!("the table after line {}: {e}", start + 1))?;
        out.push(section);
        i = end;
    }
    Ok(out)
}

/// The section whose `commit:` line is `lines[at]`, and the index after its last row.
fn section_at(lines: &[&str], at: usize) -> Result<(Section, usize), String> {
    // Above: `=====`, the axis keys (`a/b/c:`), their values; above those, for sections
    // after the first, a `*****` line and the `tbox: machine` line.
    let rule = (0..at)
        .rev()
        .take(12)
        .find(|&k| lines[k].starts_with("=====") && lines[k].trim_matches('=').is_empty())
        .ok_or("no ===== axis line above it")?;
    let axis_keys = lines
        .get(rule + 1)
        .and_then(|l| l.strip_suffix(':'))
        .ok_or("no axis keys line")?
        .to_owned();
    let axis_values = lines
        .get(rule + 2)
        .map(|l| l.trim().to_owned())
        .ok_or("no axis values line")?;
    let tbox =
        (rule >= 2 && lines[rule - 2].starts_with("*****")).then(|| lines[rule - 1].to_owned());
    let mut k = at + 1;
    let mut commits = Vec::new();
    while let Some(l) = lines.get(k).and_then(|l| l.strip_prefix("  ")) {
        let (id, subject) = commit_ref(l);
        commits.push(CommitRef { id, subject });
        k += 1;
    }
    if commits.len() < 2 {
        return Err("fewer than two commits compared".into());
    }
    if lines.get(k).is_none_or(|l| !l.is_empty()) {
        return Err("no blank line after the commits".into());
    }
    let columns: Vec<String> = lines
        .get(k + 1)
        .ok_or("no column header")?
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    if columns.len() != commits.len() {
        return Err(format!(
            "{} column headers for {} commits",
            columns.len(),
            commits.len()
        ));
    }
    let n = columns.len() - 1;
    k += 3; // the header and the dashes
    let mut blocks = Vec::new();
    let (fail_head, perf_head) = (failure_header(n), perf_header(n));
    let fail_head: Vec<&str> = fail_head.lines().collect();
    let perf_head: Vec<&str> = perf_head.lines().collect();
    while k < lines.len() && !lines[k].trim().is_empty() {
        let failure = if lines[k] == fail_head[0] {
            true
        } else if lines[k] == perf_head[0] {
            false
        } else {
            return Err(format!(
                "line {}: not a table header: {:?}",
                k + 1,
                lines[k]
            ));
        };
        let marker = if failure { fail_head[1] } else { perf_head[1] };
        if lines.get(k + 1) != Some(&marker) {
            return Err(format!("line {}: no | marker line", k + 2));
        }
        k += 2;
        let mut fails = Vec::new();
        let mut perfs = Vec::new();
        while k < lines.len()
            && !lines[k].trim().is_empty()
            && lines[k] != fail_head[0]
            && lines[k] != perf_head[0]
        {
            if failure {
                fails.push(
                    failure_row(lines[k], n)
                        .ok_or_else(|| format!("line {}: {:?}", k + 1, lines[k]))?,
                );
            } else {
                perfs.push(
                    perf_row(lines[k], n)
                        .ok_or_else(|| format!("line {}: {:?}", k + 1, lines[k]))?,
                );
            }
            k += 1;
        }
        blocks.push(if failure {
            Block::Failure(fails)
        } else {
            Block::Perf(perfs)
        });
    }
    Ok((
        Section {
            tbox,
            axis_keys,
            axis_values,
            commits,
            columns,
            blocks,
        },
        k,
    ))
}

/// A cursor over a row's whitespace-separated fields.
struct Fields<'a> {
    rest: &'a str,
}

impl<'a> Fields<'a> {
    fn next(&mut self) -> Option<&'a str> {
        let s = self.rest.trim_start_matches(' ');
        let end = s.find(' ').unwrap_or(s.len());
        if end == 0 {
            return None;
        }
        self.rest = &s[end..];
        Some(&s[..end])
    }

    /// ` ±NN%` (the sign alone, or joined to the number).
    fn stddev(&mut self) -> Option<Option<u32>> {
        let s = self.rest.trim_start_matches(' ');
        let Some(after) = s.strip_prefix('±') else {
            return Some(None);
        };
        let after = after.trim_start_matches(' ');
        let end = after.find('%')?;
        let pct = after[..end].parse().ok()?;
        self.rest = &after[end + 1..];
        Some(Some(pct))
    }

    fn change(&mut self) -> Option<Change> {
        let t = self.next()?;
        let (text, pct) = match t.strip_suffix('%') {
            Some(v) => (v, true),
            None => (t, false),
        };
        text.parse::<f64>().ok()?;
        Some(Change {
            text: text.to_owned(),
            pct,
        })
    }

    /// The metric: what follows the cells.
    fn metric(self) -> Option<String> {
        let m = self.rest.trim_start_matches(' ');
        (!m.is_empty()).then(|| m.to_owned())
    }
}

fn perf_row(line: &str, n: usize) -> Option<PerfRow> {
    let mut f = Fields { rest: line };
    let mut cells = Vec::with_capacity(n + 1);
    let mut changes = Vec::with_capacity(n);
    for i in 0..=n {
        if i > 0 {
            changes.push(f.change()?);
        }
        let value = f.next()?;
        if value.parse::<f64>().is_err() {
            return None;
        }
        let stddev_pct = f.stddev()?;
        cells.push(PerfCell {
            value: value.to_owned(),
            stddev_pct,
        });
    }
    Some(PerfRow {
        metric: f.metric()?,
        cells,
        changes,
    })
}

fn failure_row(line: &str, n: usize) -> Option<FailureRow> {
    let mut f = Fields { rest: line };
    let mut cells = Vec::with_capacity(n + 1);
    let mut changes = Vec::with_capacity(n);
    for i in 0..=n {
        if i > 0 {
            changes.push(f.change()?);
        }
        let (fails, runs) = f.next()?.split_once(':')?;
        cells.push(FailCell {
            fails: if fails.is_empty() {
                None
            } else {
                Some(fails.parse().ok()?)
            },
            runs: runs.parse().ok()?,
        });
    }
    Some(FailureRow {
        metric: f.metric()?,
        cells,
        changes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_and_its_text() {
        let row = perf_row(
            "     16359 ± 24%     -78.0%       3597 ±167%  numa-numastat.node0.other_node",
            1,
        )
        .unwrap();
        assert_eq!(row.cells[0].value, "16359");
        assert_eq!(row.cells[0].stddev_pct, Some(24));
        assert_eq!(row.cells[1].stddev_pct, Some(167));
        assert_eq!(
            row.changes[0],
            Change {
                text: "-78.0".into(),
                pct: true
            }
        );
        assert_eq!(row.metric, "numa-numastat.node0.other_node");
        let abs = perf_row(
            "     12.79 ±  2%     +10.0       22.80        mpstat.cpu.all.idle%",
            1,
        )
        .unwrap();
        assert_eq!(
            abs.changes[0],
            Change {
                text: "+10.0".into(),
                pct: false
            }
        );
        assert_eq!(abs.cells[1].stddev_pct, None);
        let fail = failure_row("          1:4          -25%            :4     dmesg.WARNING:at#for_ip_interrupt_entry/0x", 1).unwrap();
        assert_eq!(
            fail.cells,
            vec![
                FailCell {
                    fails: Some(1),
                    runs: 4
                },
                FailCell {
                    fails: None,
                    runs: 4
                }
            ]
        );
        assert!(perf_row("  not a row at all", 1).is_none());
    }

    #[test]
    fn headlines_of_both_layouts() {
        assert_eq!(
            headline("FYI, we noticed a -6.3% regression of aim7.jobs-per-min due to commit:"),
            Some((Kind::Regression, "-6.3%".into(), "aim7.jobs-per-min".into()))
        );
        assert_eq!(
            headline("kernel test robot noticed a 126.2% improvement of fio.read_iops on:"),
            Some((Kind::Improvement, "126.2%".into(), "fio.read_iops".into()))
        );
        assert_eq!(headline("we noticed a nice day"), None);
    }

    #[test]
    fn an_mbox_is_split_at_its_from_lines() {
        let mbox = b"From a@b Mon Jan  1 00:00:00 2024\nSubject: one\n\nbody\n\nFrom c@d Mon Jan  1 00:00:00 2024\nSubject: two\n\nx\n";
        let mails = split_mbox(mbox);
        assert_eq!(mails.len(), 2);
        assert!(mails[0].starts_with(b"Subject: one"));
        assert!(mails[0].ends_with(b"body\n"));
        assert!(mails[1].starts_with(b"Subject: two"));
        assert_eq!(split_mbox(b"Subject: x\n\ny").len(), 1);
    }
}
